/*
 * test_leap_a_day.c - Linux's leap-a-day selftest on the simulated counter,
 * made exact: a leap second is inserted or deleted at every simulated
 * midnight, every clock is read each simulated microsecond around each leap
 * edge (coarser elsewhere), and each reading is compared with a value
 * derived here from the definitions, not from the library. The whole run is
 * repeated with lc_update() every 10 ms, every 1 s, every 17 s (NOHZ) and at
 * every read (through adjtimex, which also checks the NTP state at each
 * read), and the readings of all four runs must be identical.
 */
#include "lc_test.h"

#include "leapclock.h"

#define NS INT64_C(1000000000)
#define US INT64_C(1000)
#define MS INT64_C(1000000)

/* 2030-01-01T00:00:00Z: far from any table leap. */
#define D0 INT64_C(1893456000)

#ifndef DAYS
#define DAYS 1000
#endif

struct run {
	lc_counter *c;
	lc_timekeeper *tk;
	int64_t period;   /* update period (ns); 0: adjtimex at every read */
	int64_t phase;
	int64_t t;        /* true ns */
	uint64_t digest[DAYS];
	/* expectations for the current day */
	int64_t t_set, v_set, t_leap, tai_minus_mono;
	int64_t w;
	int dir;
	int exp_tai;
	/* what must be seen */
	long repeats, skipped_seen, early_seen, utc60_reads;
	int64_t prev_mono, prev_raw, prev_rt, prev_utc_sec, prev_utc_nsec;
	int failed;
};

static uint64_t mix(uint64_t h, int64_t v)
{
	h ^= (uint64_t)v;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* Advances true time to `t`, running the updates of the run's pattern. */
static void advance_to(struct run *r, int64_t t)
{
	if (r->period > 0) {
		int64_t k = (r->t - r->phase) / r->period + 1;
		int64_t u = k * r->period + r->phase;

		for (; u <= t; u += r->period) {
			lc_sim_set_true_ns(r->c, u);
			lc_update(r->tk);
		}
	}
	lc_sim_set_true_ns(r->c, t);
	r->t = t;
}

static int adj(struct run *r, unsigned modes, int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = modes;
	tx.status = status;
	return lc_adjtimex(r->tk, &tx);
}

static int64_t expected_rt(const struct run *r, int64_t t)
{
	int64_t rt = r->v_set + (t - r->t_set);

	if (t >= r->t_leap)
		rt -= r->dir * NS;
	return rt;
}

#define CHECK(cond, ...)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			if (!r->failed)                                  \
				printf("  day %d t=%" PRId64 ": ", day, t); \
			if (!r->failed) {                                \
				printf(__VA_ARGS__);                     \
				printf("\n");                            \
			}                                                \
			r->failed = 1;                                   \
		}                                                        \
	} while (0)

static void sample(struct run *r, int day)
{
	struct timespec ts[LC_CLOCK_COUNT];
	int64_t t = r->t, rt, exp_rt, mono, raw;
	uint64_t h = r->digest[day];

	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		lc_gettime(r->tk, (lc_clock_id)id, &ts[id]);
		h = mix(h, (int64_t)ts[id].tv_sec);
		h = mix(h, (int64_t)ts[id].tv_nsec);
	}
	r->digest[day] = h;
	mono = (int64_t)ts[LC_CLOCK_MONOTONIC].tv_sec * NS +
	       ts[LC_CLOCK_MONOTONIC].tv_nsec;
	raw = (int64_t)ts[LC_CLOCK_MONOTONIC_RAW].tv_sec * NS +
	      ts[LC_CLOCK_MONOTONIC_RAW].tv_nsec;
	rt = (int64_t)ts[LC_CLOCK_REALTIME].tv_sec * NS +
	     ts[LC_CLOCK_REALTIME].tv_nsec;
	exp_rt = expected_rt(r, t);

	/* 1 GHz counter at the nominal rate: both monotonic clocks are the
	 * true time itself. */
	CHECK(mono == t, "MONOTONIC %" PRId64 " != true %" PRId64, mono, t);
	CHECK(raw == t, "MONOTONIC_RAW %" PRId64 " != true %" PRId64, raw, t);
	CHECK(mono >= r->prev_mono, "MONOTONIC went back");
	CHECK(ts[LC_CLOCK_BOOTTIME].tv_sec == ts[LC_CLOCK_MONOTONIC].tv_sec &&
	              ts[LC_CLOCK_BOOTTIME].tv_nsec ==
	                      ts[LC_CLOCK_MONOTONIC].tv_nsec,
	      "BOOTTIME != MONOTONIC");
	/* TAI never jumps: TAI - MONOTONIC is the same all day. */
	CHECK((int64_t)ts[LC_CLOCK_TAI].tv_sec * NS + ts[LC_CLOCK_TAI].tv_nsec -
	                      mono == r->tai_minus_mono,
	      "TAI jumped: TAI-MONO %" PRId64 " vs %" PRId64,
	      (int64_t)ts[LC_CLOCK_TAI].tv_sec * NS + ts[LC_CLOCK_TAI].tv_nsec -
	              mono,
	      r->tai_minus_mono);
	CHECK(rt == exp_rt, "REALTIME %" PRId64 " expected %" PRId64, rt,
	      exp_rt);
	/* The 2015 trace: 00:00:00.x before the leap was applied. */
	if (t < r->t_leap && rt >= r->w * NS)
		r->early_seen++;
	if (r->dir < 0 && rt / NS == r->w - 1)
		r->skipped_seen++;
	if (rt < r->prev_rt) {
		CHECK(r->dir > 0 && t >= r->t_leap && r->prev_rt - rt <= NS &&
		              r->prev_rt - rt > NS - 50 * MS,
		      "REALTIME went back by %" PRId64 " outside a leap",
		      r->prev_rt - rt);
		r->repeats++;
	}
	/* UTC: 23:59:60 during the inserted second, REALTIME otherwise. */
	if (r->dir > 0 && t >= r->t_leap && t < r->t_leap + NS) {
		CHECK(ts[LC_CLOCK_UTC].tv_sec == r->w - 1 &&
		              ts[LC_CLOCK_UTC].tv_nsec == NS + (t - r->t_leap),
		      "UTC %lld.%09ld, expected 23:59:60.%09lld",
		      (long long)ts[LC_CLOCK_UTC].tv_sec,
		      ts[LC_CLOCK_UTC].tv_nsec, (long long)(t - r->t_leap));
		r->utc60_reads++;
	} else {
		CHECK(ts[LC_CLOCK_UTC].tv_sec == ts[LC_CLOCK_REALTIME].tv_sec &&
		              ts[LC_CLOCK_UTC].tv_nsec ==
		                      ts[LC_CLOCK_REALTIME].tv_nsec,
		      "UTC != REALTIME outside the leap");
	}
	CHECK(ts[LC_CLOCK_UTC].tv_sec > r->prev_utc_sec ||
	              (ts[LC_CLOCK_UTC].tv_sec == r->prev_utc_sec &&
	               ts[LC_CLOCK_UTC].tv_nsec >= r->prev_utc_nsec),
	      "UTC went back");
	CHECK(ts[LC_CLOCK_UTC_SLS].tv_sec == ts[LC_CLOCK_UTC].tv_sec &&
	              ts[LC_CLOCK_UTC_SLS].tv_nsec == ts[LC_CLOCK_UTC].tv_nsec,
	      "UTC_SLS != UTC without a smear");

	if (r->period == 0) {
		/* The state the machine prescribes at this instant. */
		struct lc_timex tx;
		int st, want;

		memset(&tx, 0, sizeof(tx));
		st = lc_adjtimex(r->tk, &tx);
		if (r->dir > 0)
			want = t < r->t_leap          ? LC_TIME_INS
			       : t < r->t_leap + NS   ? LC_TIME_OOP
			                              : LC_TIME_WAIT;
		else
			want = t < r->t_leap ? LC_TIME_DEL : LC_TIME_WAIT;
		CHECK(st == want, "adjtimex state %d, expected %d", st, want);
		CHECK(tx.tai == r->exp_tai + (t >= r->t_leap ? r->dir : 0),
		      "adjtimex tai %d", tx.tai);
		CHECK(tx.time.tv_sec == ts[LC_CLOCK_REALTIME].tv_sec &&
		              tx.time.tv_usec ==
		                      ts[LC_CLOCK_REALTIME].tv_nsec / 1000,
		      "adjtimex time %lld.%06lld vs REALTIME",
		      (long long)tx.time.tv_sec, (long long)tx.time.tv_usec);
		CHECK((int64_t)ts[LC_CLOCK_TAI].tv_sec -
		                      ts[LC_CLOCK_REALTIME].tv_sec ==
		              tx.tai,
		      "TAI - REALTIME != adjtimex tai");
	}
	r->prev_mono = mono;
	r->prev_raw = raw;
	r->prev_rt = rt;
	r->prev_utc_sec = (int64_t)ts[LC_CLOCK_UTC].tv_sec;
	r->prev_utc_nsec = ts[LC_CLOCK_UTC].tv_nsec;
}

/* Samples from t0 to t1 (true ns, inclusive) every `step`. */
static void sweep(struct run *r, int day, int64_t t0, int64_t t1, int64_t step)
{
	for (int64_t t = t0; t <= t1; t += step) {
		if (t > r->t)
			advance_to(r, t);
		sample(r, day);
		if (r->failed)
			return;
	}
}

static void one_day(struct run *r, int day)
{
	int64_t w = D0 + (int64_t)day * 86400;
	/* A different sub-second phase each day, so that updates and samples
	 * fall at every position relative to the boundaries. */
	int64_t phi = ((int64_t)day * 7919 * US) % NS;
	struct timespec set = { (time_t)(w - 40), (long)phi };
	struct lc_timex tx;
	int dir = (day % 2 == 0) ? 1 : -1;
	int st;

	advance_to(r, r->t + 1234567);
	/* The selftest's order: set the time, clear the NTP state
	 * (STA_PLL on, maxerror 0, status 0), then arm. */
	if (lc_settime(r->tk, LC_CLOCK_REALTIME, &set) != 0) {
		printf("  day %d: settime failed\n", day);
		r->failed = 1;
		return;
	}
	adj(r, LC_ADJ_STATUS, LC_STA_PLL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_MAXERROR;
	lc_adjtimex(r->tk, &tx);
	adj(r, LC_ADJ_STATUS, 0);
	adj(r, LC_ADJ_STATUS, dir > 0 ? LC_STA_INS : LC_STA_DEL);
	memset(&tx, 0, sizeof(tx));
	lc_adjtimex(r->tk, &tx);
	if (tx.status != (dir > 0 ? LC_STA_INS : LC_STA_DEL)) {
		printf("  day %d: status read back 0x%x\n", day, tx.status);
		r->failed = 1;
		return;
	}

	r->w = w;
	r->dir = dir;
	r->t_set = r->t;
	r->v_set = (w - 40) * NS + phi;
	r->t_leap = r->t_set + ((dir > 0 ? w : w - 1) * NS - r->v_set);
	r->exp_tai = tx.tai;
	r->tai_minus_mono = lc_now_ns(r->tk, LC_CLOCK_TAI) -
	                    lc_now_ns(r->tk, LC_CLOCK_MONOTONIC);
	r->prev_rt = INT64_MIN;
	r->prev_utc_sec = INT64_MIN;
	r->prev_utc_nsec = 0;

	/* coarse: every 0.5 s from 30 s before; every 10 ms within 2 s;
	 * every microsecond within 300 us of each edge */
	sweep(r, day, r->t_leap - 30 * NS, r->t_leap - 2 * NS, 500 * MS);
	sweep(r, day, r->t_leap - 2 * NS + 3 * MS, r->t_leap - 300 * US,
	      10 * MS);
	sweep(r, day, r->t_leap - 300 * US + 1, r->t_leap + 300 * US, US);
	if (dir > 0) {
		sweep(r, day, r->t_leap + 301 * US, r->t_leap + NS - 300 * US,
		      10 * MS);
		sweep(r, day, r->t_leap + NS - 299 * US, r->t_leap + NS + 300 * US,
		      US);
	}
	sweep(r, day, r->t_leap + NS + 301 * US, r->t_leap + 3 * NS, 10 * MS);
	sweep(r, day, r->t_leap + 3 * NS + 7, r->t_leap + 20 * NS, 500 * MS);
	if (r->failed)
		return;
	/* Clear the flag: TIME_WAIT ends at the next boundary. */
	adj(r, LC_ADJ_STATUS, 0);
	advance_to(r, r->t + NS + 1);
	st = adj(r, 0, 0);
	if (st != LC_TIME_OK) {
		printf("  day %d: state %d after clearing the flag\n", day, st);
		r->failed = 1;
	}
}

static struct run runs[4];

static void run_pattern(struct run *r, int64_t period, int days)
{
	struct lc_tk_config cfg;

	memset(r, 0, sizeof(*r));
	r->period = period;
	r->phase = period > 0 ? (period / 3) + 12345 : 0;
	lc_counter_new_sim(&r->c, 1000000000u, 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (D0 - 1000) * NS;
	lc_tk_new(&r->tk, r->c, &cfg);
	r->prev_mono = INT64_MIN;
	for (int d = 0; d < days && !r->failed; d++) {
		long rep0 = r->repeats;

		one_day(r, d);
		if (r->failed)
			break;
		if (r->repeats - rep0 != (r->dir > 0 ? 1 : 0)) {
			printf("  day %d: REALTIME went back %ld times\n", d,
			       r->repeats - rep0);
			r->failed = 1;
		}
	}
	lc_tk_free(r->tk);
	lc_counter_free(r->c);
}

static int days_to_run(void)
{
	/* Under the sanitizers the same work is ~10x slower. */
	return getenv("LC_SANITIZED") ? DAYS / 10 : DAYS;
}

static void test_update_every_10ms(void)
{
	run_pattern(&runs[0], 10 * MS, days_to_run());
	LC_EQ_INT(runs[0].failed, 0);
	LC_EQ_I64(runs[0].early_seen, 0);
	LC_EQ_I64(runs[0].skipped_seen, 0);
	LC_EQ_I64(runs[0].repeats, (days_to_run() + 1) / 2);
	/* 300 + 100 + 299 reads inside each inserted second */
	LC_EQ_I64(runs[0].utc60_reads, (days_to_run() + 1) / 2 * 699);
}

static void test_update_every_1s(void)
{
	run_pattern(&runs[1], NS, days_to_run());
	LC_EQ_INT(runs[1].failed, 0);
	LC_EQ_I64(runs[1].early_seen, 0);
	LC_EQ_I64(runs[1].skipped_seen, 0);
	LC_EQ_I64(runs[1].repeats, (days_to_run() + 1) / 2);
}

static void test_update_every_17s(void)
{
	run_pattern(&runs[2], 17 * NS, days_to_run());
	LC_EQ_INT(runs[2].failed, 0);
	LC_EQ_I64(runs[2].early_seen, 0);
	LC_EQ_I64(runs[2].skipped_seen, 0);
	LC_EQ_I64(runs[2].repeats, (days_to_run() + 1) / 2);
}

static void test_adjtimex_every_read(void)
{
	run_pattern(&runs[3], 0, days_to_run());
	LC_EQ_INT(runs[3].failed, 0);
	LC_EQ_I64(runs[3].early_seen, 0);
	LC_EQ_I64(runs[3].repeats, (days_to_run() + 1) / 2);
}

static void test_identical(void)
{
	for (int k = 1; k < 4; k++)
		for (int d = 0; d < days_to_run(); d++)
			if (runs[k].digest[d] != runs[0].digest[d]) {
				printf("  pattern %d differs from 10 ms on day %d\n",
				       k, d);
				LC_EQ_U64(runs[k].digest[d], runs[0].digest[d]);
			}
	LC_TRUE(runs[0].digest[0] != 0);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_update_every_10ms,
	       "leap a day, update every 10 ms: REALTIME repeats 23:59:59 once "
	       "per insertion and skips it at deletions, UTC shows 23:59:60, "
	       "TAI/MONOTONIC never jump, no 00:00:00.x before the leap");
	LC_RUN(test_update_every_1s, "the same with an update every second");
	LC_RUN(test_update_every_17s, "the same with an update every 17 s (NOHZ)");
	LC_RUN(test_adjtimex_every_read,
	       "the same with adjtimex at every read: the state is INS/OOP/WAIT "
	       "or DEL/WAIT exactly as prescribed, tai and time agree");
	LC_RUN(test_identical,
	       "readings are identical whatever the update rate");
	return lc_test_done();
}
