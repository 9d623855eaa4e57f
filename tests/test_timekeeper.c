/*
 * test_timekeeper.c - the timekeeper on the simulated counter: the Linux
 * timer selftests that apply to a clock core (cancel, leapcrash, set-tai,
 * valid-adjtimex, adjtick, inconsistency-check), NTP steering (PLL, FLL,
 * single-shot slew) through the rate, settime, the inverses for timers, the
 * table-driven leap, the smeared clocks and clock-was-set.
 */
#include "lc_test.h"

#include "leapclock.h"
#include "timekeeper.h" /* lc__tk_mono_at, lc__tk_cycles_at */

#define NS INT64_C(1000000000)
#define US INT64_C(1000)
#define MS INT64_C(1000000)
/* 2016-12-31T23:59:60 was inserted: the midnight after it. */
#define W2017 INT64_C(1483228800)
#define D2030 INT64_C(1893456000)

struct env {
	lc_counter *c;
	lc_timekeeper *tk;
	int64_t t;
};

static void env_new(struct env *e, uint64_t freq, int64_t ppb, int64_t rt0,
                    int source)
{
	struct lc_tk_config cfg;

	memset(e, 0, sizeof(*e));
	lc_counter_new_sim(&e->c, freq, ppb);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = rt0;
	cfg.leap_source = source;
	lc_tk_new(&e->tk, e->c, &cfg);
}

static void env_free(struct env *e)
{
	lc_tk_free(e->tk);
	lc_counter_free(e->c);
}

/* Advance true time by `ns`, updating every `every` (0: no update). */
static void run_for(struct env *e, int64_t ns, int64_t every)
{
	int64_t end = e->t + ns;

	if (every > 0)
		while (e->t + every <= end) {
			e->t += every;
			lc_sim_set_true_ns(e->c, e->t);
			lc_update(e->tk);
		}
	e->t = end;
	lc_sim_set_true_ns(e->c, e->t);
}

static int adj_status(struct env *e, int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	return lc_adjtimex(e->tk, &tx);
}

static int adj_read(struct env *e, struct lc_timex *tx)
{
	memset(tx, 0, sizeof(*tx));
	return lc_adjtimex(e->tk, tx);
}

static void clear_time_state(struct env *e)
{
	struct lc_timex tx;

	adj_status(e, LC_STA_PLL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_MAXERROR;
	lc_adjtimex(e->tk, &tx);
	adj_status(e, 0);
}

static void settime_rt(struct env *e, int64_t rt)
{
	struct timespec ts = { (time_t)(rt / NS), (long)(rt % NS) };

	lc_settime(e->tk, LC_CLOCK_REALTIME, &ts);
}

/* ---- basics ---------------------------------------------------------------- */

static void test_initial(void)
{
	struct env e;
	struct timespec ts;
	struct lc_tm tm;

	env_new(&e, 1000000000u, 0, (W2017 + 3600) * NS, LC_LEAP_FROM_ADJTIMEX);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), (W2017 + 3600) * NS);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_MONOTONIC), 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_MONOTONIC_RAW), 0);
	/* TAI-UTC from the table in 2017: 37 s */
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI), (W2017 + 3600 + 37) * NS);
	run_for(&e, 1500 * MS, 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), (W2017 + 3601) * NS + 500 * MS);
	LC_EQ_INT(lc_gettime(e.tk, LC_CLOCK_UTC, &ts), 0);
	LC_EQ_I64(ts.tv_sec, W2017 + 3601);
	LC_EQ_I64(ts.tv_nsec, 500 * MS);
	LC_EQ_INT(lc_gettime_utc_tm(e.tk, &tm), 0);
	LC_EQ_INT(tm.hour, 1);
	LC_EQ_INT(tm.sec, 1);
	LC_EQ_INT(lc_gettime(e.tk, (lc_clock_id)99, &ts), LC_EINVAL);
	LC_EQ_INT(lc_tk_next_leap(e.tk, NULL, NULL), LC_ENOENT);
	/* a fresh adjtimex read: TIME_ERROR with STA_UNSYNC, as Linux */
	{
		struct lc_timex tx;

		LC_EQ_INT(adj_read(&e, &tx), LC_TIME_ERROR);
		LC_EQ_INT(tx.status, LC_STA_UNSYNC);
		LC_EQ_INT(tx.tai, 37);
	}
	env_free(&e);
}

/* ---- the selftests -------------------------------------------------------------- */

/* STA_INS set, then cleared at 23:59:59.9: nothing is inserted. */
static void test_cancel(void)
{
	struct env e;
	int64_t w = D2030 + 86400, prev, rt, when;
	int dir;

	env_new(&e, 1000000000u, 0, (w - 10) * NS, LC_LEAP_FROM_ADJTIMEX);
	clear_time_state(&e);
	adj_status(&e, LC_STA_INS);
	run_for(&e, 1 * NS, 0);
	LC_EQ_INT(lc_tk_next_leap(e.tk, &when, &dir), 0);
	LC_EQ_I64(when, w);
	LC_EQ_INT(dir, 1);
	LC_EQ_INT(adj_status(&e, LC_STA_INS), LC_TIME_INS);
	run_for(&e, 8900 * MS, 7 * MS); /* 23:59:59.9 */
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), w * NS - 100 * MS);
	adj_status(&e, 0);
	LC_EQ_INT(lc_tk_next_leap(e.tk, NULL, NULL), LC_ENOENT);
	prev = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
	for (int i = 0; i < 3000; i++) {
		run_for(&e, MS, (i % 100) == 0 ? MS : 0);
		rt = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
		LC_EQ_I64(rt - prev, MS);
		prev = rt;
	}
	{
		struct lc_timex tx;

		LC_EQ_INT(adj_read(&e, &tx), LC_TIME_OK);
		LC_EQ_INT(tx.tai, 37); /* from the table at creation */
	}
	env_free(&e);
}

/* leapcrash: adjtimex(ADJ_STATUS, STA_INS) in a tight loop across the leap,
 * 20 times; the leap happens exactly once each time and nothing hangs. */
static void test_leapcrash(void)
{
	struct env e;

	env_new(&e, 1000000000u, 0, (D2030 - 100) * NS, LC_LEAP_FROM_ADJTIMEX);
	for (int i = 0; i < 20; i++) {
		int64_t w = D2030 + (int64_t)i * 86400, prev = INT64_MIN;
		int backs = 0;
		struct lc_timex tx;

		settime_rt(&e, (w - 2) * NS);
		clear_time_state(&e);
		for (int n = 0; n < 100000; n++) {
			int64_t rt;

			memset(&tx, 0, sizeof(tx));
			tx.modes = LC_ADJ_STATUS;
			tx.status = LC_STA_INS;
			LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
			rt = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
			if (rt < prev) {
				backs++;
				LC_LE_I64(prev - rt, NS);
				LC_GT_I64(prev - rt, NS - 2 * MS);
			}
			prev = rt;
			if (tx.time.tv_sec >= w + 1)
				break;
			run_for(&e, MS + 7, 0);
		}
		LC_EQ_INT(backs, 1);
		adj_status(&e, 0);
	}
	env_free(&e);
}

/* set-tai: ADJ_TAI 1..60 reads back, TAI - REALTIME follows, each change is
 * a clock-was-set. */
static void test_set_tai(void)
{
	struct env e;

	env_new(&e, 1000000000u, 0, (D2030 + 5) * NS, LC_LEAP_FROM_ADJTIMEX);
	for (int i = 1; i <= 60; i++) {
		struct lc_timex tx;
		uint64_t seq = lc_clock_was_set_seq(e.tk);

		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_TAI;
		tx.constant = i;
		LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
		LC_EQ_INT(adj_read(&e, &tx) >= 0, 1);
		LC_EQ_INT(tx.tai, i);
		LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI) -
		                  lc_now_ns(e.tk, LC_CLOCK_REALTIME),
		          i * NS);
		if (i != 37)
			LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq + 1);
		run_for(&e, 3 * MS, 0);
	}
	env_free(&e);
}

/* valid-adjtimex: frequency round trips, SETOFFSET in both units, and every
 * invalid input rejected with the state left as it was. */
static void test_valid_adjtimex(void)
{
	static const int64_t ok_freq[] = { 1, -1, -1000, 65536, -65536,
	                                   499 * 65536, -499 * 65536, 0 };
	struct env e;
	struct lc_timex tx, before, after;

	env_new(&e, 1000000000u, 0, (D2030 + 5) * NS, LC_LEAP_FROM_ADJTIMEX);
	for (size_t i = 0; i < sizeof(ok_freq) / sizeof(ok_freq[0]); i++) {
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_FREQUENCY;
		tx.freq = ok_freq[i];
		LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
		adj_read(&e, &tx);
		LC_EQ_I64(tx.freq, ok_freq[i]);
	}
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_FREQUENCY;
	tx.freq = -550 * 65536;
	LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
	adj_read(&e, &tx);
	LC_EQ_I64(tx.freq, -32768000);

	/* SETOFFSET: REALTIME and TAI step by exactly the offset */
	{
		static const struct {
			int nano;
			int64_t sec, frac, delta;
		} v[] = {
			{ 0, 0, 999999, 999999 * US },
			{ 0, -1, 999999, -1 * US },
			{ 0, -2, 999999, -NS - US },
			{ 0, 5, 0, 5 * NS },
			{ 0, -6, 500000, -5500 * MS },
			{ 1, 0, 999999999, 999999999 },
			{ 1, -1, 999999999, -1 },
			{ 1, 5, 500000000, 5500 * MS },
		};
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			int64_t rt0 = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
			int64_t tai0 = lc_now_ns(e.tk, LC_CLOCK_TAI);
			uint64_t seq = lc_clock_was_set_seq(e.tk);

			memset(&tx, 0, sizeof(tx));
			tx.modes = LC_ADJ_SETOFFSET | (v[i].nano ? LC_ADJ_NANO : 0);
			tx.time.tv_sec = v[i].sec;
			tx.time.tv_usec = v[i].frac;
			LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
			LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME) - rt0,
			          v[i].delta);
			LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI) - tai0, v[i].delta);
			LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq + 1);
			adj_read(&e, &tx);
			LC_TRUE(tx.status & LC_STA_UNSYNC); /* NTP cleared */
		}
	}

	/* invalid inputs: the error, and nothing changed */
	{
		struct lc_timex bad[8];
		int want[8];
		int n = 0;

		memset(bad, 0, sizeof(bad));
		bad[n].modes = LC_ADJ_SETOFFSET;
		bad[n].time.tv_usec = -1;
		want[n++] = LC_EINVAL;
		bad[n].modes = LC_ADJ_SETOFFSET;
		bad[n].time.tv_usec = 1000000;
		want[n++] = LC_EINVAL;
		bad[n].modes = LC_ADJ_SETOFFSET | LC_ADJ_NANO;
		bad[n].time.tv_usec = 1000000000;
		want[n++] = LC_EINVAL;
		bad[n].modes = LC_ADJ_FREQUENCY | LC_ADJ_STATUS;
		bad[n].freq = INT64_MAX;
		bad[n].status = LC_STA_INS;
		want[n++] = LC_EINVAL;
		bad[n].modes = LC_ADJ_FREQUENCY;
		bad[n].freq = INT64_MIN;
		want[n++] = LC_EINVAL;
		bad[n].modes = LC_ADJ_TICK | LC_ADJ_STATUS;
		bad[n].tick = 8999;
		bad[n].status = LC_STA_DEL;
		want[n++] = LC_EINVAL;
		bad[n].modes = 0x8000 | LC_ADJ_STATUS;
		want[n++] = LC_EINVAL;
		/* REALTIME would go below MONOTONIC */
		bad[n].modes = LC_ADJ_SETOFFSET;
		bad[n].time.tv_sec = -(D2030 + 1000);
		want[n++] = LC_EINVAL;
		for (int i = 0; i < n; i++) {
			int64_t rt0 = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
			uint64_t seq = lc_clock_was_set_seq(e.tk);

			adj_read(&e, &before);
			LC_EQ_INT(lc_adjtimex(e.tk, &bad[i]), want[i]);
			adj_read(&e, &after);
			before.time = after.time;
			LC_TRUE(memcmp(&before, &after, sizeof(before)) == 0);
			LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), rt0);
			LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq);
			LC_EQ_INT(lc_tk_next_leap(e.tk, NULL, NULL), LC_ENOENT);
		}
	}
	/* unprivileged: reads only */
	memset(&tx, 0, sizeof(tx));
	LC_GE_INT(lc_adjtimex_unprivileged(e.tk, &tx), 0);
	tx.modes = LC_ADJ_OFFSET_SS_READ;
	LC_GE_INT(lc_adjtimex_unprivileged(e.tk, &tx), 0);
	tx.modes = LC_ADJ_STATUS;
	LC_EQ_INT(lc_adjtimex_unprivileged(e.tk, &tx), LC_EPERM);
	tx.modes = LC_ADJ_OFFSET_SINGLESHOT;
	LC_EQ_INT(lc_adjtimex_unprivileged(e.tk, &tx), LC_EPERM);
	env_free(&e);
}

/* adjtick: 8 tick values from -10% to +7.5%; MONOTONIC against RAW over 15 s
 * drifts by tick/10000 - 1 within 100 ppm, and tick/offset/freq read back. */
static void test_adjtick(void)
{
	for (int k = 0; k < 8; k++) {
		int64_t tick = 9000 + k * 250;
		struct env e;
		struct lc_timex tx;
		int64_t m0, r0, m1, r1;
		double got, want;

		env_new(&e, 1000000000u, 0, (D2030 + 5) * NS,
		        LC_LEAP_FROM_ADJTIMEX);
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_TICK | LC_ADJ_STATUS | LC_ADJ_OFFSET |
		           LC_ADJ_FREQUENCY;
		tx.status = LC_STA_PLL;
		tx.tick = tick;
		LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
		m0 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC);
		r0 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC_RAW);
		run_for(&e, 15 * NS, 10 * MS);
		m1 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC);
		r1 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC_RAW);
		got = (double)(m1 - m0) / (double)(r1 - r0) - 1.0;
		want = (double)tick / 10000.0 - 1.0;
		LC_EQ_DBL(got, want, 100e-6);
		adj_read(&e, &tx);
		LC_EQ_I64(tx.tick, tick);
		LC_EQ_I64(tx.offset, 0);
		LC_EQ_I64(tx.freq, 0);
		env_free(&e);
	}
}

/* inconsistency-check: 64 back-to-back reads per clock, again and again
 * across insertions and deletions with random updates in between: no read
 * earlier than the one before for any clock that promises it (REALTIME only
 * at an inserted second, by exactly 1 s). */
static void test_inconsistency(void)
{
	struct env e;
	long pairs = 0;

	env_new(&e, 1000000000u, 0, (D2030 - 100) * NS, LC_LEAP_FROM_ADJTIMEX);
	for (int day = 0; day < 6; day++) {
		int64_t w = D2030 + (int64_t)day * 86400;

		settime_rt(&e, (w - 3) * NS + lc_rand_range(0, NS - 1));
		clear_time_state(&e);
		adj_status(&e, day % 2 ? LC_STA_DEL : LC_STA_INS);
		for (int round = 0; round < 6000; round++) {
			for (int id = 0; id < LC_CLOCK_COUNT; id++) {
				struct timespec s[64];

				for (int i = 0; i < 64; i++) {
					lc_gettime(e.tk, (lc_clock_id)id, &s[i]);
					run_for(&e, lc_rand_range(0, 3000), 0);
					if (lc_rand() % 512 == 0)
						lc_update(e.tk);
				}
				for (int i = 1; i < 64; i++) {
					int earlier;

					pairs++;
					earlier = s[i].tv_sec < s[i - 1].tv_sec ||
					              (s[i].tv_sec == s[i - 1].tv_sec &&
					               s[i].tv_nsec < s[i - 1].tv_nsec);
					if (!earlier)
						continue;
					if (id == LC_CLOCK_REALTIME && day % 2 == 0) {
						int64_t back = (s[i - 1].tv_sec - s[i].tv_sec) * NS +
						               s[i - 1].tv_nsec - s[i].tv_nsec;
						LC_TRUE(back <= NS && back > NS - 200 * US);
						continue;
					}
					printf("  clock %s: %lld.%09ld then %lld.%09ld\n",
					       lc_clock_name((lc_clock_id)id),
					       (long long)s[i - 1].tv_sec, s[i - 1].tv_nsec,
					       (long long)s[i].tv_sec, s[i].tv_nsec);
					LC_FALSE(earlier);
				}
			}
		}
		/* the leap was inside the sweep: REALTIME is past it */
		LC_GT_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), w * NS);
		adj_status(&e, 0);
	}
	LC_EQ_I64(pairs, 6L * 6000 * LC_CLOCK_COUNT * 63);
	env_free(&e);
}

/* ---- NTP steering ----------------------------------------------------------- */

/* An NTP client on a counter 50 ppm fast: every poll it measures the offset
 * of REALTIME from the true time and feeds ADJ_OFFSET. The frequency must
 * converge to -50 ppm and the offset to near 0. */
static void ntp_client(int fll, int64_t poll_s, double *freq_ppm,
                       int64_t *last_off)
{
	struct env e;
	struct lc_timex tx;
	int64_t rt0 = (D2030 + 5) * NS;

	env_new(&e, 1000000000u, 50000, rt0, LC_LEAP_FROM_ADJTIMEX);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS | LC_ADJ_TIMECONST | LC_ADJ_MAXERROR;
	tx.status = LC_STA_PLL | (fll ? LC_STA_FLL : 0);
	tx.constant = 0;
	lc_adjtimex(e.tk, &tx);
	for (int i = 0; i < (fll ? 200 : 400); i++) {
		int64_t off;

		run_for(&e, poll_s * NS, 50 * MS);
		off = (rt0 + e.t) - lc_now_ns(e.tk, LC_CLOCK_REALTIME);
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_OFFSET | LC_ADJ_STATUS;
		tx.status = LC_STA_PLL | (fll ? LC_STA_FLL : 0);
		tx.offset = off / 1000; /* us */
		lc_adjtimex(e.tk, &tx);
		*last_off = off;
	}
	adj_read(&e, &tx);
	*freq_ppm = (double)tx.freq / 65536.0;
	env_free(&e);
}

static void test_pll_converges(void)
{
	double f;
	int64_t off;

	ntp_client(0, 16, &f, &off);
	LC_EQ_DBL(f, -50.0, 0.5);
	LC_LT_I64(off < 0 ? -off : off, 50 * US);
}

static void test_fll_converges(void)
{
	double f;
	int64_t off;

	ntp_client(1, 512, &f, &off);
	LC_EQ_DBL(f, -50.0, 1.0);
	LC_LT_I64(off < 0 ? -off : off, 1 * MS);
}

/* adjtime(): 0.1 s slews at 500 ppm (200 s), then the rate is nominal. */
static void test_singleshot(void)
{
	struct env e;
	struct lc_timex tx;
	int64_t m0, r0, d;

	env_new(&e, 1000000000u, 0, (D2030 + 5) * NS, LC_LEAP_FROM_ADJTIMEX);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_OFFSET_SINGLESHOT;
	tx.offset = 100000;
	LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
	m0 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC);
	r0 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC_RAW);
	run_for(&e, 100 * NS, 10 * MS);
	d = (lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) - m0) -
	    (lc_now_ns(e.tk, LC_CLOCK_MONOTONIC_RAW) - r0);
	/* 500 us per second, as Linux from the first second boundary after
	 * the call (REALTIME starts on a boundary here, so the first one is
	 * 1 s later): 99 s of slew in 100 s, 49.5 ms; each second's rate
	 * takes effect at the first update after its boundary (10 ms). */
	LC_EQ_DBL((double)d, 49.5e6, 1e4);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_OFFSET_SS_READ;
	LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
	LC_EQ_DBL((double)tx.offset, 50000.0, 600.0);
	run_for(&e, 150 * NS, 10 * MS);
	d = (lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) - m0) -
	    (lc_now_ns(e.tk, LC_CLOCK_MONOTONIC_RAW) - r0);
	/* The whole 0.1 s, within 0.1 ms: the seconds that carry the slew
	 * are seconds of the slewed clock (0.05 % short in true time), as
	 * in Linux where each adjusted second holds ~0.9995 s of ticks. */
	LC_EQ_DBL((double)d, 100e6, 1e5);
	env_free(&e);
}

/* A new frequency applies from the instant of the call: no reading jumps. */
static void test_rate_change_continuous(void)
{
	struct env e;

	env_new(&e, 3000000007u, 0, (D2030 + 5) * NS, LC_LEAP_FROM_ADJTIMEX);
	for (int i = 0; i < 200; i++) {
		struct lc_timex tx;
		int64_t a[LC_CLOCK_COUNT], b[LC_CLOCK_COUNT];

		run_for(&e, lc_rand_range(1, 3 * NS), 0);
		for (int id = 0; id < LC_CLOCK_COUNT; id++)
			a[id] = lc_now_ns(e.tk, (lc_clock_id)id);
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_FREQUENCY | LC_ADJ_TICK;
		tx.freq = lc_rand_range(-500, 500) * 65536;
		tx.tick = lc_rand_range(9000, 11000);
		LC_GE_INT(lc_adjtimex(e.tk, &tx), 0);
		for (int id = 0; id < LC_CLOCK_COUNT; id++) {
			b[id] = lc_now_ns(e.tk, (lc_clock_id)id);
			LC_EQ_I64(b[id], a[id]);
		}
	}
	env_free(&e);
}

/* ---- settime -------------------------------------------------------------------- */

static void test_settime(void)
{
	struct env e;
	struct timespec ts;
	struct lc_tm tm;
	uint64_t seq;

	env_new(&e, 1000000000u, 0, (D2030 + 5) * NS, LC_LEAP_FROM_ADJTIMEX);
	seq = lc_clock_was_set_seq(e.tk);
	/* 2016-12-31T23:59:60.5 (UTC) */
	ts.tv_sec = (time_t)(W2017 - 1);
	ts.tv_nsec = 1500 * MS;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_UTC, &ts), 0);
	LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq + 1);
	lc_gettime(e.tk, LC_CLOCK_UTC, &ts);
	LC_EQ_I64(ts.tv_sec, W2017 - 1);
	LC_EQ_I64(ts.tv_nsec, 1500 * MS);
	lc_gettime_utc_tm(e.tk, &tm);
	LC_EQ_INT(tm.sec, 60);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), (W2017 - 1) * NS + 500 * MS);
	/* TAI: 2017-01-01T00:00:00Z is TAI 1483228837, so 23:59:60.5 is
	 * 1483228836.5 */
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI), INT64_C(1483228836) * NS + 500 * MS);
	{
		struct lc_timex tx;

		LC_EQ_INT(adj_read(&e, &tx), LC_TIME_ERROR); /* UNSYNC */
		LC_EQ_INT(tx.tai, 37);
	}
	run_for(&e, 499 * MS, 0);
	lc_gettime(e.tk, LC_CLOCK_UTC, &ts);
	LC_EQ_I64(ts.tv_nsec, 1999 * MS);
	run_for(&e, 1 * MS, 0);
	lc_gettime(e.tk, LC_CLOCK_UTC, &ts);
	LC_EQ_I64(ts.tv_sec, W2017);
	LC_EQ_I64(ts.tv_nsec, 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), W2017 * NS);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI), (W2017 + 37) * NS);

	/* 23:59:60 where no second was inserted */
	ts.tv_sec = (time_t)(W2017 + 86400 - 1);
	ts.tv_nsec = 1200 * MS;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_UTC, &ts), LC_ENOTLEAP);
	ts.tv_nsec = 1200 * MS;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_REALTIME, &ts), LC_EINVAL);
	ts.tv_nsec = -1;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_REALTIME, &ts), LC_EINVAL);
	ts.tv_sec = 0; /* below MONOTONIC (which is 0.5 s) */
	ts.tv_nsec = 0;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_REALTIME, &ts), LC_EINVAL);
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_MONOTONIC, &ts), LC_EINVAL);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), W2017 * NS);

	/* TAI: with the adjtimex source the current offset (37) gives UTC */
	ts.tv_sec = (time_t)(D2030 + 37);
	ts.tv_nsec = 0;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_TAI, &ts), 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), D2030 * NS);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI), (D2030 + 37) * NS);
	ts.tv_sec = (time_t)D2030;
	ts.tv_nsec = 250;
	LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_REALTIME, &ts), 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), D2030 * NS + 250);
	LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq + 3);
	env_free(&e);
}

/* ---- the exact leap without updates ------------------------------------------- */

/* Armed, then not a single update: every read applies the leap at its
 * instant, the clock-was-set sequence moves then, the next-leap query stops
 * reporting it, and an update afterwards changes no reading. */
static void test_exact_without_update(void)
{
	struct env e;
	int64_t w = D2030 + 86400;
	uint64_t seq;
	struct timespec ts;

	env_new(&e, 1000000000u, 0, (w - 5) * NS, LC_LEAP_FROM_ADJTIMEX);
	clear_time_state(&e);
	adj_status(&e, LC_STA_INS);
	seq = lc_clock_was_set_seq(e.tk);
	run_for(&e, 5 * NS - 1, 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), w * NS - 1);
	LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq);
	LC_EQ_INT(lc_tk_next_leap(e.tk, NULL, NULL), 0);
	run_for(&e, 1, 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), (w - 1) * NS);
	lc_gettime(e.tk, LC_CLOCK_UTC, &ts);
	LC_EQ_I64(ts.tv_sec, w - 1);
	LC_EQ_I64(ts.tv_nsec, NS);
	LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq + 1);
	LC_EQ_INT(lc_tk_next_leap(e.tk, NULL, NULL), LC_ENOENT);
	run_for(&e, 700 * MS, 0);
	{
		int64_t a[LC_CLOCK_COUNT];

		for (int id = 0; id < LC_CLOCK_COUNT; id++)
			a[id] = lc_now_ns(e.tk, (lc_clock_id)id);
		lc_update(e.tk);
		for (int id = 0; id < LC_CLOCK_COUNT; id++)
			LC_EQ_I64(lc_now_ns(e.tk, (lc_clock_id)id), a[id]);
	}
	LC_EQ_U64(lc_clock_was_set_seq(e.tk), seq + 1);
	env_free(&e);
}

/* The reference's next-leap vectors (E = 2015-07-01T00:00:00Z), through
 * the timekeeper: the flag seen first at the boundary that begins second
 * `secs` arms the leap whose 00:00:00-after is `when` (a deletion removes
 * the second before it), and lc_tk_next_leap() says so both before that
 * boundary (predicted) and after it (armed). */
static void test_next_leap_vectors(void)
{
	static const struct {
		int64_t secs;
		int flag;
		int64_t when;
	} v[] = {
		{ INT64_C(1435708790), LC_STA_INS, INT64_C(1435708800) },
		{ INT64_C(1435708800), LC_STA_INS, INT64_C(1435795200) },
		{ INT64_C(1435708799), LC_STA_INS, INT64_C(1435708800) },
		{ INT64_C(1435708790), LC_STA_DEL, INT64_C(1435708800) },
		{ INT64_C(1435708799), LC_STA_DEL, INT64_C(1435795200) },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct env e;
		int64_t when;
		int dir;

		env_new(&e, 1000000000u, 0, v[i].secs * NS - 300 * MS,
		        LC_LEAP_FROM_ADJTIMEX);
		clear_time_state(&e);
		adj_status(&e, v[i].flag);
		LC_EQ_INT(lc_tk_next_leap(e.tk, &when, &dir), 0);
		LC_EQ_I64(when, v[i].when);
		LC_EQ_INT(dir, v[i].flag == LC_STA_INS ? 1 : -1);
		run_for(&e, 600 * MS, 100 * MS);
		LC_EQ_INT(lc_tk_next_leap(e.tk, &when, &dir), 0);
		LC_EQ_I64(when, v[i].when);
		{
			struct lc_timex tx;

			LC_EQ_INT(adj_read(&e, &tx),
			          v[i].flag == LC_STA_INS ? LC_TIME_INS : LC_TIME_DEL);
		}
		env_free(&e);
	}
}

/* ---- inverses ----------------------------------------------------------------- */

struct dl {
	int id;
	struct timespec d;
	int64_t m;
};

static int dl_cmp(const void *a, const void *b)
{
	const struct dl *x = a, *y = b;

	return x->m < y->m ? -1 : x->m > y->m;
}

static int ts_ge(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* lc__tk_mono_at: for random deadlines on every clock around an insertion and
 * a deletion (computed before the leap), the clock reads at or past the
 * deadline at the returned instant and before it 1 ns earlier (never early,
 * and exact). */
static void check_inverse(int dir)
{
	enum { N = 3000 };
	static struct dl v[N];
	struct env e;
	int64_t w = D2030 + 86400;
	const int ids[] = { LC_CLOCK_REALTIME, LC_CLOCK_UTC, LC_CLOCK_TAI,
	                    LC_CLOCK_MONOTONIC_RAW, LC_CLOCK_UTC_SLS,
	                    LC_CLOCK_MONOTONIC, LC_CLOCK_BOOTTIME };

	env_new(&e, 3000000007u, 20000, (w - 4) * NS, LC_LEAP_FROM_ADJTIMEX);
	clear_time_state(&e);
	adj_status(&e, dir > 0 ? LC_STA_INS : LC_STA_DEL);
	run_for(&e, 100 * MS, 10 * MS);
	for (int i = 0; i < N; i++) {
		int id = ids[i % 7];
		int64_t base = (id == LC_CLOCK_TAI) ? (w + 37) * NS
		               : (id == LC_CLOCK_MONOTONIC_RAW ||
		                  id == LC_CLOCK_MONOTONIC ||
		                  id == LC_CLOCK_BOOTTIME)
		                       ? 4 * NS
		                       : w * NS;
		int64_t d = base + lc_rand_range(-3 * NS, 3 * NS);

		v[i].id = id;
		v[i].d.tv_sec = (time_t)(d / NS);
		v[i].d.tv_nsec = (long)(d % NS);
		if ((id == LC_CLOCK_UTC || id == LC_CLOCK_UTC_SLS) &&
		    lc_rand() % 3 == 0) {
			v[i].d.tv_sec = (time_t)(w - 1 - (lc_rand() % 2));
			v[i].d.tv_nsec = (long)(NS + lc_rand_range(0, NS - 1));
		}
		LC_EQ_INT(lc__tk_mono_at(e.tk, (lc_clock_id)id, &v[i].d, &v[i].m),
		          0);
	}
	qsort(v, N, sizeof(v[0]), dl_cmp);
	for (int i = 0; i < N; i++) {
		struct timespec r;
		uint64_t cyc;
		int64_t t;

		/* the true time at which MONOTONIC reaches m: through the
		 * counter inverse */
		LC_EQ_INT(lc__tk_cycles_at(e.tk, v[i].m - 1, &cyc), 0);
		t = lc_sim_true_ns_at(e.c, cyc);
		if (t >= e.t && lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) < v[i].m - 1) {
			run_for(&e, t - e.t, 0);
			LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) >= v[i].m - 1, 1);
			if (lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) == v[i].m - 1) {
				lc_gettime(e.tk, (lc_clock_id)v[i].id, &r);
				if (ts_ge(&r, &v[i].d))
					printf("  %s early: deadline %lld.%09ld read %lld.%09ld\n",
					       lc_clock_name((lc_clock_id)v[i].id),
					       (long long)v[i].d.tv_sec, v[i].d.tv_nsec,
					       (long long)r.tv_sec, r.tv_nsec);
				LC_FALSE(ts_ge(&r, &v[i].d));
			}
		}
		LC_EQ_INT(lc__tk_cycles_at(e.tk, v[i].m, &cyc), 0);
		t = lc_sim_true_ns_at(e.c, cyc);
		if (t > e.t)
			run_for(&e, t - e.t, 0);
		LC_TRUE(lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) >= v[i].m);
		lc_gettime(e.tk, (lc_clock_id)v[i].id, &r);
		if (!ts_ge(&r, &v[i].d))
			printf("  %s late: deadline %lld.%09ld read %lld.%09ld\n",
			       lc_clock_name((lc_clock_id)v[i].id),
			       (long long)v[i].d.tv_sec, v[i].d.tv_nsec,
			       (long long)r.tv_sec, r.tv_nsec);
		LC_TRUE(ts_ge(&r, &v[i].d));
		if (lc_rand() % 16 == 0)
			lc_update(e.tk);
	}
	env_free(&e);
}

static void test_mono_at(void)
{
	struct env e;
	int64_t w = D2030 + 86400, m, lm;
	struct timespec d;

	env_new(&e, 1000000000u, 0, (w - 10) * NS, LC_LEAP_FROM_ADJTIMEX);
	clear_time_state(&e);
	adj_status(&e, LC_STA_INS);
	lm = 10 * NS; /* REALTIME reaches W at MONOTONIC 10 s */
	d.tv_sec = (time_t)w;
	d.tv_nsec = 0;
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_REALTIME, &d, &m), 0);
	LC_EQ_I64(m, lm + NS); /* 00:00:00 comes after 23:59:60 */
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_UTC, &d, &m), 0);
	LC_EQ_I64(m, lm + NS);
	d.tv_sec = (time_t)(w - 1);
	d.tv_nsec = 999999999;
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_REALTIME, &d, &m), 0);
	LC_EQ_I64(m, lm - 1);
	d.tv_nsec = 1250 * MS;
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_UTC, &d, &m), 0);
	LC_EQ_I64(m, lm + 250 * MS);
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_REALTIME, &d, &m), LC_EINVAL);
	d.tv_sec = (time_t)(w + 37);
	d.tv_nsec = 0;
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_TAI, &d, &m), 0);
	LC_EQ_I64(m, lm);
	env_free(&e);
	check_inverse(1);
	LC_BAIL();
	check_inverse(-1);
}

/* A REALTIME deadline inside the repeated 23:59:59 of an insertion (leap
 * at MONOTONIC lm = 10 s, 1 GHz: REALTIME 23:59:59.x at lm - 1 s + x and
 * again at lm + x). Asked before the leap, 23:59:59.8 is the first
 * occurrence, lm - 200 ms; asked during the repeat at 23:59:59.3 (the
 * first is past), it is the repeated one, lm + 800 ms, where REALTIME
 * reads 23:59:59.8 again and 1 ns earlier 23:59:59.799999999 ("from now
 * on", as a Linux hrtimer armed in the leap second); 23:59:59.2, past in
 * the repeat too, is its last occurrence lm + 200 ms (in the past: fires
 * at once). With and without an update in the repeat (the leap folded by
 * the writer or applied by the reader). */
static void check_mono_at_repeat(int update)
{
	struct env e;
	int64_t w = D2030 + 86400, m, lm = 10 * NS;
	struct timespec d = { (time_t)(w - 1), (long)(800 * MS) };

	env_new(&e, 1000000000u, 0, (w - 10) * NS, LC_LEAP_FROM_ADJTIMEX);
	clear_time_state(&e);
	adj_status(&e, LC_STA_INS);
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_REALTIME, &d, &m), 0);
	LC_EQ_I64(m, lm - 200 * MS);
	run_for(&e, lm + 300 * MS - e.t, update ? 100 * MS : 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), (w - 1) * NS + 300 * MS);
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_REALTIME, &d, &m), 0);
	LC_EQ_I64(m, lm + 800 * MS);
	d.tv_nsec = (long)(200 * MS);
	LC_EQ_INT(lc__tk_mono_at(e.tk, LC_CLOCK_REALTIME, &d, &m), 0);
	LC_EQ_I64(m, lm + 200 * MS);
	/* the instant found reads 23:59:59.8 in the repeat, 1 ns before it
	 * still less */
	run_for(&e, lm + 800 * MS - 1 - e.t, 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME),
	          (w - 1) * NS + 800 * MS - 1);
	run_for(&e, 1, 0);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_REALTIME), (w - 1) * NS + 800 * MS);
	env_free(&e);
}

static void test_mono_at_repeat(void)
{
	check_mono_at_repeat(0);
	check_mono_at_repeat(1);
}

/* ---- the table as leap source (chrony's leapsectz) ------------------------------ */

static void test_table_source(void)
{
	struct env e;
	struct lc_timex tx;
	int64_t when, prev = INT64_MIN;
	int dir, backs = 0;

	env_new(&e, 1000000000u, 0, (W2017 - 30) * NS, LC_LEAP_FROM_TABLE);
	LC_EQ_INT(lc_tk_next_leap(e.tk, &when, &dir), 0);
	LC_EQ_I64(when, W2017);
	LC_EQ_INT(dir, 1);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI) - lc_now_ns(e.tk, LC_CLOCK_REALTIME),
	          36 * NS);
	run_for(&e, 2 * NS, 0);
	LC_GE_INT(adj_read(&e, &tx), 0);
	LC_EQ_INT(tx.status & (LC_STA_INS | LC_STA_DEL), LC_STA_INS);
	for (int i = 0; i < 40000; i++) {
		int64_t rt;

		run_for(&e, MS, i % 1000 == 999 ? MS : 0);
		rt = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
		if (rt < prev) {
			backs++;
			LC_EQ_I64(rt, (W2017 - 1) * NS);
			LC_EQ_INT(adj_read(&e, &tx), LC_TIME_ERROR); /* UNSYNC */
			LC_EQ_INT(tx.tai, 37);
		}
		prev = rt;
	}
	LC_EQ_INT(backs, 1);
	LC_EQ_I64(lc_now_ns(e.tk, LC_CLOCK_TAI) - lc_now_ns(e.tk, LC_CLOCK_REALTIME),
	          37 * NS);
	adj_read(&e, &tx);
	LC_EQ_INT(tx.status & (LC_STA_INS | LC_STA_DEL), 0);
	/* ADJ_TAI does not override the table */
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_TAI;
	tx.constant = 5;
	lc_adjtimex(e.tk, &tx);
	LC_EQ_INT(tx.tai, 37);
	env_free(&e);
}

/* Table source, timekeeper started (or set) in the last second before the
 * leap, before any boundary could arm the state machine: the writer applies
 * the leap its readers apply (it must not drop it), at the exact instant,
 * whatever the update rate. */
static void check_late_start(int64_t start_ns, int64_t every, int backs_seen)
{
	struct env e;
	int64_t prev = INT64_MIN;
	int backs = 0, jumps = 0;

	env_new(&e, 1000000000u, 0, start_ns, LC_LEAP_FROM_TABLE);
	for (int i = 0; i < 3000; i++) {
		int64_t rt, m;

		run_for(&e, MS, every);
		rt = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
		m = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC);
		if (rt < prev)
			backs++;
		if (prev != INT64_MIN && rt - prev > 500 * MS)
			jumps++;
		/* REALTIME = start + MONOTONIC, one second less from the
		 * leap on (insertion), one more (deletion) */
		LC_EQ_I64(rt, start_ns + m -
		                      (start_ns + m >= W2017 * NS ? NS : 0));
		prev = rt;
	}
	LC_EQ_INT(backs, backs_seen);
	LC_EQ_INT(jumps, 0);
	{
		struct lc_timex tx;

		LC_GE_INT(adj_read(&e, &tx), 0);
		LC_EQ_INT(tx.tai, 37);
	}
	env_free(&e);
}

static void test_table_late_start(void)
{
	check_late_start(W2017 * NS - 500 * MS, MS, 1);
	LC_BAIL();
	check_late_start(W2017 * NS - 500 * MS, 0, 1);
	LC_BAIL();
	/* 1 ns before: the first read (1 ms on) is already in 23:59:60 */
	check_late_start(W2017 * NS - 1, 7 * MS, 0);
}

/* A table-driven timekeeper created (or set, `set_ns` >= 0) inside the
 * last day before a table leap, its last seconds included, has that leap
 * armed at once as a host under chrony's leapsectz has: adjtimex says
 * TIME_INS with STA_INS (TIME_DEL, STA_DEL) before any update, then
 * TIME_OOP in 23:59:60 and TIME_WAIT (a deletion: TIME_WAIT), and REALTIME
 * repeats (skips) the second exactly at the leap. Before (issue 25 item 6),
 * the state was TIME_OK until the leap's own boundary, and the preload
 * shim stopped its writer in the last two seconds for that (updates_safe):
 * the first adjtimex check fails without lc__tkw_table_arm_now. */
static void check_arm_at_start(lc_leaptable *tab, int64_t start_ns,
                               int64_t set_ns, int64_t w, int dir)
{
	const int ins = dir > 0;
	struct lc_tk_config cfg;
	struct lc_timex tx;
	struct env e;
	int seen[8], nseen = 0, st;
	int64_t rt0 = set_ns >= 0 ? set_ns : start_ns, m0 = 0;
	/* the leap's REALTIME boundary: 00:00:00 (insertion), the deleted
	 * 23:59:59 (deletion) */
	int64_t b = (ins ? w : w - 1) * NS;

	memset(&e, 0, sizeof(e));
	lc_counter_new_sim(&e.c, 1000000000u, 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = start_ns;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.table = tab;
	LC_EQ_INT(lc_tk_new(&e.tk, e.c, &cfg), 0);
	if (set_ns >= 0) {
		struct timespec ts = { (time_t)(set_ns / NS),
		                       (long)(set_ns % NS) };

		run_for(&e, 5 * MS, 0);
		LC_EQ_INT(lc_settime(e.tk, LC_CLOCK_REALTIME, &ts), 0);
		m0 = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC);
	}
	/* synchronised (as the shim marks it): STA_UNSYNC off, the rest of
	 * the status kept, maxerror 0 (16 s of it would set STA_UNSYNC again
	 * at the next boundary) */
	adj_read(&e, &tx);
	tx.modes = LC_ADJ_STATUS | LC_ADJ_MAXERROR;
	tx.status &= ~LC_STA_UNSYNC;
	tx.maxerror = 0;
	lc_adjtimex(e.tk, &tx);
	st = adj_read(&e, &tx);
	LC_EQ_INT(st, ins ? LC_TIME_INS : LC_TIME_DEL);
	LC_EQ_INT(tx.status & (LC_STA_INS | LC_STA_DEL),
	          ins ? LC_STA_INS : LC_STA_DEL);
	seen[nseen++] = st;
	while (lc_now_ns(e.tk, LC_CLOCK_REALTIME) < b + 2 * NS) {
		int64_t rt, m;

		run_for(&e, 10 * MS, 10 * MS);
		m = lc_now_ns(e.tk, LC_CLOCK_MONOTONIC) - m0;
		rt = lc_now_ns(e.tk, LC_CLOCK_REALTIME);
		/* the exact leap: -1 s from 00:00:00 on (insertion), +1 s
		 * from the deleted 23:59:59 on */
		LC_EQ_I64(rt, rt0 + m - (rt0 + m >= b ? dir * NS : 0));
		st = adj_read(&e, &tx);
		if (st != seen[nseen - 1] && nseen < 8)
			seen[nseen++] = st;
	}
	LC_GE_INT(nseen, (ins ? 3 : 2));
	if (ins) {
		LC_EQ_INT(seen[1], LC_TIME_OOP);
		LC_EQ_INT(seen[2], LC_TIME_WAIT);
	} else {
		LC_EQ_INT(seen[1], LC_TIME_WAIT);
	}
	env_free(&e);
}

static void test_table_arm_at_start(void)
{
	lc_leaptable *del = lc_leaptable_new();
	/* a deletion 30 days after the 2017 leap (2017-01-31 00:00:00) */
	const int64_t d = W2017 + 30 * 86400;

	LC_EQ_INT(lc_leaptable_add(del, d, -1, NULL), 0);
	check_arm_at_start(NULL, W2017 * NS - 500 * MS, -1, W2017, 1);
	LC_BAIL();
	check_arm_at_start(NULL, W2017 * NS - 1500 * MS, -1, W2017, 1);
	LC_BAIL();
	check_arm_at_start(NULL, W2017 * NS - 3600 * NS, -1, W2017, 1);
	LC_BAIL();
	/* set, from a day before, into the last second */
	check_arm_at_start(NULL, (W2017 - 86400 - 10) * NS,
	                   W2017 * NS - 700 * MS, W2017, 1);
	LC_BAIL();
	check_arm_at_start(del, (d - 1) * NS - 500 * MS, -1, d, -1);
	LC_BAIL();
	check_arm_at_start(del, (d - 1) * NS - 2500 * MS, -1, d, -1);
	LC_BAIL();
	check_arm_at_start(del, (d - 2 * 86400) * NS, (d - 1) * NS - 300 * MS,
	                   d, -1);
	lc_leaptable_free(del);
}

/* Long gaps between updates: the writer skips quiet seconds exactly. A
 * year in one update ends in the same state as updates every 3 days (which
 * process every second); with the table as source, updates 5 days apart
 * across 2015-06-30 and 2016-12-31 still fold both leaps. */
static void test_long_gaps(void)
{
	struct env a, b;
	struct lc_timex ta, tb;
	int64_t year = 365 * 86400 * NS;

	env_new(&a, 1000000000u, 0, D2030 * NS, LC_LEAP_FROM_ADJTIMEX);
	env_new(&b, 1000000000u, 0, D2030 * NS, LC_LEAP_FROM_ADJTIMEX);
	run_for(&a, year, year);
	run_for(&b, year, 3 * 86400 * NS);
	LC_EQ_I64(lc_now_ns(a.tk, LC_CLOCK_REALTIME), D2030 * NS + year);
	LC_EQ_I64(lc_now_ns(b.tk, LC_CLOCK_REALTIME), D2030 * NS + year);
	LC_EQ_INT(adj_read(&a, &ta), LC_TIME_ERROR);
	LC_EQ_INT(adj_read(&b, &tb), LC_TIME_ERROR);
	ta.time = tb.time;
	LC_TRUE(memcmp(&ta, &tb, sizeof(ta)) == 0);
	LC_EQ_I64(ta.maxerror, 16000000);
	env_free(&a);
	env_free(&b);

	/* 2015-01-01 to 2018-01-01 */
	env_new(&a, 1000000000u, 0, INT64_C(1420070400) * NS, LC_LEAP_FROM_TABLE);
	run_for(&a, 1096 * 86400 * NS, 5 * 86400 * NS);
	LC_EQ_I64(lc_now_ns(a.tk, LC_CLOCK_REALTIME),
	          (INT64_C(1420070400) + 1096 * 86400 - 2) * NS);
	LC_EQ_I64(lc_now_ns(a.tk, LC_CLOCK_TAI) - lc_now_ns(a.tk, LC_CLOCK_REALTIME),
	          37 * NS);
	env_free(&a);
}

/* ---- two leaps one day apart, updates between them or not ------------------- */

/* 2030-06-30 and 2030-07-01 each end with an inserted second (or the second
 * one with a deleted 23:59:59), appended to tzdata 2026f's table: midnights
 * W1 = 1909094400 (2030-07-01T00:00:00Z) and W2 = W1 + 86400. */
#define W1 INT64_C(1909094400)
#define W2 (W1 + 86400)

static int two_leaps_table(lc_leaptable **out, int dir2)
{
	char path[512], *buf;
	FILE *f;
	long n;
	size_t len;
	const char *extra = dir2 > 0 ? "Leap\t2030\tJun\t30\t23:59:60\t+\tS\n"
	                               "Leap\t2030\tJul\t1\t23:59:60\t+\tS\n"
	                             : "Leap\t2030\tJun\t30\t23:59:60\t+\tS\n"
	                               "Leap\t2030\tJul\t1\t23:59:59\t-\tS\n";
	int rc;

	snprintf(path, sizeof(path), "%s/leapseconds.tzdata2026f",
	         LC_TEST_DATA_DIR);
	f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + strlen(extra) + 1);
	len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	/* drop the expiry lines (the table ends in 2027 otherwise) */
	buf[len] = '\0';
	for (char *l = buf; (l = strstr(l, "Expires")) != NULL; l++)
		if (l == buf || l[-1] == '\n')
			l[0] = '#';
	memcpy(buf + len, extra, strlen(extra) + 1);
	*out = lc_leaptable_new();
	rc = lc_leaptable_load_buffer(*out, "two-leaps", buf, strlen(buf),
	                              LC_LEAPFMT_TZDATA, NULL);
	free(buf);
	return rc;
}

/* The UTC reading of the model at true time t for a timekeeper started at
 * REALTIME W1 - 100 s: T = W1 - 100 s + t on the pre-leap timeline, an
 * inserted second at W1 (T in [W1, W1 + 1 s)), the second leap at W2 + 1 s
 * on T (W2 after the first leap), inserted or deleted. Returns the expected
 * UTC timespec and TAI-UTC. */
static void two_leaps_model(int64_t t, int dir2, struct timespec *utc,
                            int64_t *rt, int *tai)
{
	int64_t T = (W1 - 100) * NS + t, u;

	*tai = 38;
	if (T < W1 * NS) {
		u = T;
		*tai = 37;
	} else if (T < (W1 + 1) * NS) {
		utc->tv_sec = (time_t)(W1 - 1);
		utc->tv_nsec = (long)(NS + T - W1 * NS);
		*rt = T - NS;
		return;
	} else {
		u = T - NS; /* on UTC after the first leap */
	}
	if (*tai == 38 && dir2 > 0 && u >= W2 * NS) {
		if (u < (W2 + 1) * NS) {
			utc->tv_sec = (time_t)(W2 - 1);
			utc->tv_nsec = (long)(NS + u - W2 * NS);
			*rt = u - NS;
			*tai = 39;
			return;
		}
		u -= NS;
		*tai = 39;
	} else if (*tai == 38 && dir2 < 0 && u >= (W2 - 1) * NS) {
		u += NS; /* 23:59:59 deleted */
		*tai = 37;
	}
	*utc = (struct timespec){ (time_t)(u / NS), (long)(u % NS) };
	*rt = u;
}

/* Readings at true time t against the model; `exact` also checks UTC and
 * REALTIME (else only TAI, which never depends on leaps being armed). */
static void two_leaps_check(lc_timekeeper *tk, int64_t t, int dir2)
{
	struct timespec utc, got;
	int64_t rt;
	int tai;

	two_leaps_model(t, dir2, &utc, &rt, &tai);
	lc_gettime(tk, LC_CLOCK_UTC, &got);
	LC_EXPECT_I64((int64_t)got.tv_sec, (int64_t)utc.tv_sec);
	LC_EXPECT_I64((int64_t)got.tv_nsec, (int64_t)utc.tv_nsec);
	LC_EXPECT_I64(lc_now_ns(tk, LC_CLOCK_REALTIME), rt);
	LC_EXPECT_I64(lc_now_ns(tk, LC_CLOCK_TAI), (W1 - 100 + 37) * NS + t);
}

/* Two table leaps one day apart. (a) One update after the first leap and
 * none until after the second: readings through the second leap are exact
 * (the snapshot had it armed). (b) No update from before the first leap to
 * after the second: the readers' single-leap snapshot misses the second
 * (documented), but the update after both folds both exactly: REALTIME,
 * UTC, TAI-UTC (adjtimex's tai), clock_was_set (+2), no leap left armed,
 * the NTP state back to TIME_OK with the table's bits clear. Every
 * reading right after that update is exact again. */
static void check_two_leaps(int dir2, int update_between)
{
	lc_leaptable *tab;
	lc_counter *c;
	lc_timekeeper *tk;
	struct lc_tk_config cfg;
	struct lc_timex tx;
	uint64_t cws0;
	int64_t t, end = 100 * NS + 86400 * NS + 200 * NS, when;
	int dir;

	LC_EQ_INT(two_leaps_table(&tab, dir2), 0);
	lc_counter_new_sim(&c, 1000000000u, 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (W1 - 100) * NS;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.table = tab;
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	cws0 = lc_clock_was_set_seq(tk);
	LC_EQ_INT(lc_tk_next_leap(tk, &when, &dir), 0);
	LC_EQ_I64(when, W1);
	/* through the first leap, no update */
	for (t = 90 * NS; t < 103 * NS; t += 7 * MS + 3) {
		lc_sim_set_true_ns(c, t);
		two_leaps_check(tk, t, dir2);
	}
	LC_BAIL();
	if (update_between) {
		lc_sim_set_true_ns(c, 110 * NS);
		lc_update(tk);
		LC_EQ_INT(lc_tk_next_leap(tk, &when, &dir), 0);
		LC_EQ_I64(when, dir2 > 0 ? W2 : W2);
		LC_EQ_INT(dir, dir2);
		/* through the second leap, no update */
		for (t = 100 * NS + 86400 * NS - 10 * NS;
		     t < 100 * NS + 86400 * NS + 10 * NS; t += 7 * MS + 3) {
			lc_sim_set_true_ns(c, t);
			two_leaps_check(tk, t, dir2);
		}
		LC_BAIL();
	}
	/* one update after both */
	lc_sim_set_true_ns(c, end);
	lc_update(tk);
	two_leaps_check(tk, end, dir2);
	LC_BAIL();
	LC_EQ_U64(lc_clock_was_set_seq(tk), cws0 + 2);
	LC_EQ_INT(lc_tk_next_leap(tk, &when, &dir), LC_ENOENT);
	memset(&tx, 0, sizeof(tx));
	lc_adjtimex(tk, &tx);
	LC_EQ_INT(tx.tai, dir2 > 0 ? 39 : 37);
	LC_EQ_INT(tx.status & (LC_STA_INS | LC_STA_DEL), 0);
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME),
	          (dir2 > 0 ? 39 : 37) * NS);
	/* and the next second boundary leaves the state at TIME_OK */
	lc_sim_set_true_ns(c, end + 2 * NS);
	LC_EQ_INT(lc_adjtimex(tk, &tx) & 0xff, LC_TIME_ERROR); /* UNSYNC */
	two_leaps_check(tk, end + 2 * NS, dir2);
	lc_tk_free(tk);
	lc_counter_free(c);
	lc_leaptable_free(tab);
}

static void test_two_leaps(void)
{
	check_two_leaps(1, 1);
	LC_BAIL();
	check_two_leaps(1, 0);
	LC_BAIL();
	check_two_leaps(-1, 1);
	LC_BAIL();
	check_two_leaps(-1, 0);
}

/* ---- smearing ------------------------------------------------------------------- */

static void check_smear(int rt_smeared)
{
	struct lc_smear_policy p;
	struct lc_tk_config cfg;
	lc_counter *c;
	lc_timekeeper *tk;
	int64_t t = 0, prev_sls = INT64_MIN, prev_rt = INT64_MIN;
	int in_window = 0;

	LC_EQ_INT(lc_smear_preset("utc-sls", 0, &p, NULL), 0);
	lc_counter_new_sim(&c, 1000000000u, 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (W2017 - 1100) * NS;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.smear = &p;
	cfg.realtime_smeared = rt_smeared;
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	while (t < 1200 * NS) {
		struct timespec u, s;
		int64_t sls, utc_rt, diff;

		t += lc_rand_range(1, 50 * MS);
		lc_sim_set_true_ns(c, t);
		if (lc_rand() % 8 == 0)
			lc_update(tk);
		lc_gettime(tk, LC_CLOCK_UTC, &u);
		lc_gettime(tk, LC_CLOCK_UTC_SLS, &s);
		sls = (int64_t)s.tv_sec * NS + s.tv_nsec;
		LC_LT_I64(s.tv_nsec, NS);
		LC_GT_I64(sls, prev_sls);
		prev_sls = sls;
		/* UTC on a continuous scale: 23:59:60.x counts as W + x */
		utc_rt = (int64_t)u.tv_sec * NS + u.tv_nsec;
		if (t >= 1100 * NS + NS)
			utc_rt += NS;
		diff = utc_rt - sls;
		LC_TRUE(diff >= 0 && diff <= NS);
		if (diff > 0)
			in_window = 1;
		if (t < 90 * NS || t > 1102 * NS)
			LC_EQ_I64(diff, t > 1102 * NS ? NS : 0);
		if (rt_smeared) {
			int64_t rt = lc_now_ns(tk, LC_CLOCK_REALTIME);

			LC_EQ_I64(rt, sls);
			LC_GT_I64(rt, prev_rt);
			prev_rt = rt;
		}
		/* TAI is not smeared */
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI), (W2017 - 1100 + 36) * NS + t);
	}
	LC_TRUE(in_window);
	lc_tk_free(tk);
	lc_counter_free(c);
}

static void test_smear(void)
{
	check_smear(0);
	LC_BAIL();
	check_smear(1);
}

/* A smeared insertion cancelled half-way (STA_INS cleared 30 s before the
 * leap, inside the minute-long window): UTC_SLS unwinds back to UTC without
 * ever going back or stepping, and no leap happens. Then one armed late
 * (10 s before a 60 s window ends) still completes by the leap. */
static void test_smear_cancel_and_late(void)
{
	struct lc_smear_policy p;
	struct lc_tk_config cfg;
	lc_counter *c;
	lc_timekeeper *tk;
	int64_t w = D2030 + 86400, t = 0, prev = INT64_MIN, maxdiff = 0;
	struct lc_timex tx;

	LC_EQ_INT(lc_smear_preset("minute", 0, &p, NULL), 0);
	lc_counter_new_sim(&c, 1000000000u, 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (w - 100) * NS;
	cfg.smear = &p;
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = LC_STA_INS;
	lc_adjtimex(tk, &tx);
	for (t = 0; t < 400 * NS; t += 7 * MS) {
		int64_t sls, rt;

		lc_sim_set_true_ns(c, t);
		if (t % (70 * MS) == 0)
			lc_update(tk);
		if (t >= 70 * NS && t < 70 * NS + 7 * MS) {
			memset(&tx, 0, sizeof(tx));
			tx.modes = LC_ADJ_STATUS;
			tx.status = 0; /* cancel, 30 s before the leap */
			lc_adjtimex(tk, &tx);
		}
		sls = lc_now_ns(tk, LC_CLOCK_UTC_SLS);
		rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
		LC_EQ_I64(rt, (w - 100) * NS + t); /* no leap */
		LC_GT_I64(sls, prev);
		LC_TRUE(rt - sls >= 0 && rt - sls < NS);
		if (rt - sls > maxdiff)
			maxdiff = rt - sls;
		prev = sls;
	}
	/* it had started, then unwound completely */
	LC_GT_I64(maxdiff, 100 * MS);
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_UTC_SLS), lc_now_ns(tk, LC_CLOCK_REALTIME));

	/* armed late: 10 s before the leap, the window began 50 s ago */
	w += 86400;
	{
		struct timespec set = { (time_t)(w - 12), 0 };

		lc_sim_set_true_ns(c, t);
		lc_settime(tk, LC_CLOCK_REALTIME, &set);
	}
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = LC_STA_INS;
	lc_adjtimex(tk, &tx);
	prev = INT64_MIN;
	for (int64_t u = 0; u <= 20 * NS; u += 4 * MS) {
		struct timespec s;
		int64_t v;

		lc_sim_set_true_ns(c, t + u);
		lc_gettime(tk, LC_CLOCK_UTC_SLS, &s);
		v = (int64_t)s.tv_sec * NS + s.tv_nsec;
		LC_GT_I64(v, prev);
		LC_LT_I64(s.tv_nsec, NS);
		prev = v;
	}
	/* done by now: UTC_SLS == REALTIME, after the leap */
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_UTC_SLS), lc_now_ns(tk, LC_CLOCK_REALTIME));
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_REALTIME), (w + 7) * NS);
	lc_tk_free(tk);
	lc_counter_free(c);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_initial, "initial state: REALTIME from the config, TAI from the table, a fresh adjtimex reads TIME_ERROR/UNSYNC");
	LC_RUN(test_cancel, "cancel: STA_INS cleared at 23:59:59.9 gives no leap");
	LC_RUN(test_leapcrash, "leapcrash: STA_INS in a tight loop across 20 leaps, each applied exactly once");
	LC_RUN(test_set_tai, "set-tai: ADJ_TAI 1..60 reads back, moves TAI, bumps clock-was-set");
	LC_RUN(test_valid_adjtimex, "valid-adjtimex: frequency round trips, SETOFFSET steps REALTIME and TAI exactly, invalid input rejected with nothing changed, unprivileged reads only");
	LC_RUN(test_adjtick, "adjtick: MONOTONIC vs RAW drift within 100 ppm of tick/10000 - 1 for 8 ticks");
	LC_RUN(test_inconsistency, "inconsistency-check: 64 back-to-back reads per clock across leaps never go back where promised");
	LC_RUN(test_pll_converges, "PLL converges on a counter 50 ppm fast (freq -50 ppm, offset < 50 us)");
	LC_RUN(test_fll_converges, "FLL converges on a counter 50 ppm fast");
	LC_RUN(test_singleshot, "single-shot offset slews at 500 ppm, SS_READ reports the remainder");
	LC_RUN(test_rate_change_continuous, "frequency/tick changes never make a clock jump");
	LC_RUN(test_settime, "settime REALTIME/UTC (incl. 23:59:60)/TAI, rejections, clock-was-set");
	LC_RUN(test_exact_without_update, "exact leap with no update: reads, clock-was-set and next-leap switch at the instant");
	LC_RUN(test_next_leap_vectors, "next-leap vectors of the reference through lc_tk_next_leap, predicted and armed");
	LC_RUN(test_mono_at, "lc__tk_mono_at/cycles_at: first instant at or past the deadline on every clock, across insertion and deletion");
	LC_RUN(test_mono_at_repeat, "lc__tk_mono_at REALTIME in the repeated 23:59:59: the first occurrence before the leap, the repeated one from inside it (from now on), updated or not");
	LC_RUN(test_table_source, "LC_LEAP_FROM_TABLE: the table arms 2016-12-31 23:59:60 and owns TAI-UTC");
	LC_RUN(test_table_arm_at_start, "table source created or set in the leap's last day (its last second too): TIME_INS/TIME_DEL armed at once, then OOP/WAIT, the exact leap");
	LC_RUN(test_table_late_start, "table source started in the last second before a leap: the writer applies the leap its readers apply");
	LC_RUN(test_long_gaps, "long gaps between updates: quiet seconds skipped exactly, table leaps still folded");
	LC_RUN(test_two_leaps, "two table leaps a day apart (+1 +1, +1 -1): exact through the second with an update after the first; one update after both folds both (REALTIME, UTC, TAI-UTC, clock-was-set +2, nothing left armed)");
	LC_RUN(test_smear, "UTC_SLS smears within 1 s, strictly increasing; REALTIME smeared with it; TAI never");
	LC_RUN(test_smear_cancel_and_late, "a smeared leap cancelled mid-window unwinds without going back; one armed late completes by the leap");
	return lc_test_done();
}
