/*
 * test_tk_inverse.c - the timers' inverses (src/tk_inverse.c) on a
 * hand-made snapshot, without a timekeeper or counter: the counter value
 * for a MONOTONIC instant is the first one reaching it at a rate that is
 * not a whole number of ns per cycle, and clamps; REALTIME deadlines
 * around an inserted second (the repeated 23:59:59 asked before and
 * during it), UTC's 23:59:60, TAI and BOOTTIME, and the argument checks.
 */
#include "lc_test.h"

#include "tk_inverse.h"

#define NS    INT64_C(1000000000)
#define W2017 INT64_C(1483228800)
#define LMONO (INT64_C(200000) * NS)
#define SHIFT 24

/* A snapshot of a ~1.37 GHz counter (mult not a power of two, frac not
 * 0), with the insertion of W2017 pending at LMONO. */
static void snap(struct lc__tk_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->cycle_last = UINT64_C(123456789012);
	s->mult = (UINT64_C(1) << SHIFT) * 73 / 100 + 12345;
	s->frac = (UINT64_C(1) << SHIFT) / 3;
	s->mono = LMONO - 1000 * NS;
	s->shift_max = SHIFT | (UINT64_C(36) << 8);
	s->raw_mult = (UINT64_C(1) << SHIFT) * 73 / 100;
	s->raw_frac = 0;
	s->raw_mono = s->mono - 5 * NS;
	s->offs_real = W2017 * NS - LMONO;
	s->offs_tai = s->offs_real + 36 * NS;
	s->offs_boot = 7 * NS;
	s->leap_mono = LMONO;
	s->leap_dir = 1;
	s->leap_sec = W2017;
	s->rt_slow = LMONO;
	lc__smear_plan_none(&s->plan);
	lc__smear_plan_none(&s->plan_next);
}

static int64_t mono_of(const struct lc__tk_snap *s, uint64_t c)
{
	return s->mono + (int64_t)lc__cyc2ns(c, s->cycle_last, s->mult, s->frac,
	                                     s->shift_max);
}

static int64_t raw_of(const struct lc__tk_snap *s, uint64_t c)
{
	return s->raw_mono + (int64_t)lc__cyc2ns(c, s->cycle_last, s->raw_mult,
	                                         s->raw_frac, s->shift_max);
}

static struct timespec ts_of(int64_t sec, int64_t nsec)
{
	struct timespec ts;

	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)nsec;
	return ts;
}

/* mono_at for clock `id` at deadline sec.nsec, asked at `now`. */
static int64_t at(const struct lc__tk_snap *s, int64_t now, lc_clock_id id,
                  int64_t sec, int64_t nsec)
{
	struct timespec d = ts_of(sec, nsec);
	int64_t m = INT64_MIN;

	LC_EXPECT_I64(lc__tk_mono_at_snap(s, now, id, &d, &m), 0);
	return m;
}

static void test_cycles_first(void)
{
	struct lc__tk_snap s;

	snap(&s);
	for (int i = 0; i < 20000; i++) {
		int64_t t = s.mono + lc_rand_range(0, 3600 * NS);
		uint64_t c = lc__tk_cycles_at_snap(&s, t);

		LC_EXPECT_TRUE(mono_of(&s, c) >= t);
		LC_EXPECT_TRUE(c == s.cycle_last || mono_of(&s, c - 1) < t);
	}
	/* at the snapshot's own instant: its counter value */
	LC_EQ_U64(lc__tk_cycles_at_snap(&s, s.mono), s.cycle_last);
	/* far behind: clamped to 0; beyond the counter's range: to
	 * UINT64_MAX */
	LC_EQ_U64(lc__tk_cycles_at_snap(&s, INT64_MIN / 2), 0);
	s.cycle_last = UINT64_MAX - 1000;
	LC_EQ_U64(lc__tk_cycles_at_snap(&s, s.mono + 3600 * NS), UINT64_MAX);
	/* frac is 1/3 ns, a cycle 0.73 ns: one cycle reaches the next ns */
	LC_EQ_U64(lc__tk_cycles_at_snap(&s, s.mono + 1), UINT64_MAX - 999);
}

/* The first counter value at which MONOTONIC_RAW reads >= t (a binary
 * search: the reference for the closed form). */
static uint64_t raw_first(const struct lc__tk_snap *s, int64_t t)
{
	uint64_t lo = s->cycle_last, hi = s->cycle_last + (UINT64_C(1) << 44);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (raw_of(s, mid) >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void test_raw_first(void)
{
	struct lc__tk_snap s;

	snap(&s);
	for (int i = 0; i < 5000; i++) {
		int64_t t = s.raw_mono + lc_rand_range(1, 600 * NS);
		int64_t m = at(&s, s.mono, LC_CLOCK_MONOTONIC_RAW,
		               lc__fdiv(t, NS), lc__fmod(t, NS));

		/* MONOTONIC at the counter value where RAW first reaches t */
		LC_EXPECT_I64(m, mono_of(&s, raw_first(&s, t)));
	}
}

static void test_realtime_leap(void)
{
	struct lc__tk_snap s;
	int64_t before = LMONO - 1000 * NS;

	snap(&s);
	/* before the leap: MONOTONIC = REALTIME - offs_real */
	LC_EQ_I64(at(&s, before, LC_CLOCK_REALTIME, W2017 - 10, 5),
	          LMONO - 10 * NS + 5);
	/* 23:59:59.5 asked before the leap: its first occurrence */
	LC_EQ_I64(at(&s, before, LC_CLOCK_REALTIME, W2017 - 1, NS / 2),
	          LMONO - NS / 2);
	/* asked during the inserted second (REALTIME repeats 23:59:59):
	 * .25 has passed the second time only at LMONO + .25 s */
	LC_EQ_I64(at(&s, LMONO + NS / 10, LC_CLOCK_REALTIME, W2017 - 1, NS / 4),
	          LMONO + NS / 4);
	/* 00:00:00.5 after it: one second later on MONOTONIC */
	LC_EQ_I64(at(&s, before, LC_CLOCK_REALTIME, W2017, NS / 2),
	          LMONO + NS + NS / 2);
	/* the same once the writer folded the leap (offs_real moved) */
	s.offs_real -= NS;
	s.leap_folded = 1;
	LC_EQ_I64(at(&s, LMONO + 2 * NS, LC_CLOCK_REALTIME, W2017, NS / 2),
	          LMONO + NS + NS / 2);
	LC_EQ_I64(at(&s, LMONO + 2 * NS, LC_CLOCK_REALTIME, W2017 - 10, 0),
	          LMONO - 10 * NS);
}

static void test_utc_leap_second(void)
{
	struct lc__tk_snap s;
	int64_t now = LMONO - 5 * NS;

	snap(&s);
	/* 23:59:60.3 exists: in the inserted second */
	LC_EQ_I64(at(&s, now, LC_CLOCK_UTC, W2017 - 1, NS + 3 * NS / 10),
	          LMONO + 3 * NS / 10);
	/* UTC's 23:59:59.5 is only the first one; 00:00:00 after 23:59:60 */
	LC_EQ_I64(at(&s, now, LC_CLOCK_UTC, W2017 - 1, NS / 2), LMONO - NS / 2);
	LC_EQ_I64(at(&s, now, LC_CLOCK_UTC, W2017, 0), LMONO + NS);
	/* a 23:59:60 that does not exist: the next second's 00.000 */
	LC_EQ_I64(at(&s, now, LC_CLOCK_UTC, W2017 - 86401, NS + 1),
	          LMONO - 86400 * NS);
	/* no smear plan: UTC_SLS is UTC */
	LC_EQ_I64(at(&s, now, LC_CLOCK_UTC_SLS, W2017 - 1, NS + 1), LMONO + 1);
}

static void test_offsets_and_args(void)
{
	struct lc__tk_snap s;
	struct timespec d;
	int64_t m = 42;

	snap(&s);
	LC_EQ_I64(at(&s, s.mono, LC_CLOCK_MONOTONIC, 77, 5), 77 * NS + 5);
	LC_EQ_I64(at(&s, s.mono, LC_CLOCK_BOOTTIME, 77, 5), 70 * NS + 5);
	/* TAI never repeats: no leap logic */
	LC_EQ_I64(at(&s, s.mono, LC_CLOCK_TAI, W2017 + 36, 0),
	          W2017 * NS - s.offs_real);
	d = ts_of(W2017, NS);
	LC_EQ_INT(lc__tk_mono_at_snap(&s, s.mono, LC_CLOCK_REALTIME, &d, &m),
	          LC_EINVAL);
	d = ts_of(W2017, -1);
	LC_EQ_INT(lc__tk_mono_at_snap(&s, s.mono, LC_CLOCK_UTC, &d, &m),
	          LC_EINVAL);
	d = ts_of(W2017, 2 * NS);
	LC_EQ_INT(lc__tk_mono_at_snap(&s, s.mono, LC_CLOCK_UTC, &d, &m),
	          LC_EINVAL);
	d = ts_of(INT64_MAX / NS, 0);
	LC_EQ_INT(lc__tk_mono_at_snap(&s, s.mono, LC_CLOCK_MONOTONIC, &d, &m),
	          LC_ERANGE);
	d = ts_of(1, 0);
	LC_EQ_INT(lc__tk_mono_at_snap(&s, s.mono, (lc_clock_id)99, &d, &m),
	          LC_EINVAL);
	LC_EQ_INT(lc__tk_mono_at_snap(&s, s.mono, LC_CLOCK_UTC, NULL, &m),
	          LC_EINVAL);
	/* nothing written on an error */
	LC_EQ_I64(m, 42);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_cycles_first,
	       "the counter value is the first reaching MONOTONIC, clamped");
	LC_RUN(
	    test_raw_first,
	    "MONOTONIC_RAW deadlines land on the first instant reaching them");
	LC_RUN(test_realtime_leap,
	       "REALTIME around an inserted second, before and after the fold");
	LC_RUN(test_utc_leap_second, "UTC's 23:59:60 and the second after it");
	LC_RUN(test_offsets_and_args,
	       "MONOTONIC, BOOTTIME, TAI, and the argument checks");
	return lc_test_done();
}
