/* test_timers.c - timers on the simulated counter: the checks of Linux's
 * nanosleep and set-timer-lat selftests on every clock id, the leap-second
 * semantics of DESIGN.md invariant 2 (REALTIME, UTC 23:59:60, TAI, deleted
 * seconds, smears), CANCEL_ON_SET, overruns, ties, re-arming from callbacks
 * and clamping.
 *
 * Independent expectations: the sim counter runs at 1 GHz with no error and
 * no NTP frequency is set, so every clock advances exactly as MONOTONIC
 * except where a leap, a smear or a settime moves it; the expected MONOTONIC
 * instant of each firing is derived from the scenario by hand (comments).
 */
#include "lc_test.h"
#include "loop.h"
#include "timekeeper.h" /* lc__tk_mono_at, lc__tk_cycles_at */

#define NS LC_NSEC_PER_SEC
#define MS INT64_C(1000000)

static lc_counter *cnt;
static lc_timekeeper *tk;
static lc_loop *loop;
static int64_t E; /* 2026-07-01 00:00:00 UTC, POSIX seconds */

static int setup_freq(int64_t realtime0_ns,
                      const struct lc_smear_policy *smear, uint64_t freq)
{
	struct lc_tk_config cfg;

	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = realtime0_ns;
	cfg.smear = smear;
	if (lc_counter_new_sim(&cnt, freq, 0) < 0)
		return -1;
	if (lc_tk_new(&tk, cnt, &cfg) < 0)
		return -1;
	return lc_loop_new(&loop, tk, 0);
}

static int setup(int64_t realtime0_ns, const struct lc_smear_policy *smear)
{
	return setup_freq(realtime0_ns, smear, 1000000000);
}

static void teardown(void)
{
	lc_loop_free(loop);
	lc_tk_free(tk);
	lc_counter_free(cnt);
	loop = NULL;
	tk = NULL;
	cnt = NULL;
}

static int64_t mono(void)
{
	return lc_now_ns(tk, LC_CLOCK_MONOTONIC);
}

static int arm_leap(int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	if (lc_adjtimex(tk, &tx) < 0)
		return -1;
	return lc_update(tk);
}

/* (sec, nsec) order of two readings in the UTC convention */
static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return (a->tv_nsec > b->tv_nsec) - (a->tv_nsec < b->tv_nsec);
}

#define MAXF 64
struct rec {
	int n;
	int early;               /* firings where the clock read < deadline */
	struct timespec dl;      /* current deadline (advanced by the test) */
	int64_t interval;        /* to advance dl on periodic firings */
	int64_t mono[MAXF];
	int status[MAXF];
	int64_t overrun[MAXF];
	struct timespec clk[MAXF];
	int rearm_rel_ns;        /* >0: re-arm relative from the callback */
	int stop_self;
};

static void rec_cb(lc_timer *t, int status, void *data)
{
	struct rec *r = data;
	struct timespec now;

	lc_gettime(tk, lc_timer_clock(t), &now);
	if (r->n < MAXF) {
		r->mono[r->n] = mono();
		r->status[r->n] = status;
		r->overrun[r->n] = lc_timer_overrun(t);
		r->clk[r->n] = now;
	}
	if (status == 0 && ts_cmp(&now, &r->dl) < 0)
		r->early++;
	if (status == 0 && r->interval > 0) {
		/* the next deadline, as the test computes it */
		int64_t k = 1 + lc_timer_overrun(t);
		int64_t ns = (int64_t)r->dl.tv_nsec + k * r->interval;
		r->dl.tv_sec += (time_t)(ns / NS);
		r->dl.tv_nsec = (long)(ns % NS);
	}
	r->n++;
	if (r->rearm_rel_ns > 0)
		lc_timer_start_ns(t, 0, r->rearm_rel_ns, 0);
	if (r->stop_self)
		lc_timer_stop(t);
}

static struct timespec ts_of(int64_t ns)
{
	return lc__ns_to_ts(ns);
}

/* ---- selftest counterparts ------------------------------------------------ */

/* set-timer-lat: every clock, ABS/REL x periodic (five expiries) /
 * one-shot (exactly one). Here periods of 100 ms; no leap, so every clock
 * runs with MONOTONIC and the k-th expiry is at start + k * period. */
static void test_set_timer_lat_all_clocks(void)
{
	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		for (int abs = 0; abs < 2; abs++) {
			for (int periodic = 0; periodic < 2; periodic++) {
				lc_timer t;
				struct rec r;
				struct timespec now, val, iv;
				int64_t m0 = mono(), p = 100 * MS;

				memset(&r, 0, sizeof(r));
				lc_gettime(tk, (lc_clock_id)id, &now);
				LC_EQ_INT(lc_timer_init(loop, &t, (lc_clock_id)id,
				                        rec_cb, &r), 0);
				r.dl = now;
				r.dl.tv_nsec += (long)p;
				if (r.dl.tv_nsec >= NS) {
					r.dl.tv_sec++;
					r.dl.tv_nsec -= NS;
				}
				val = abs ? r.dl : ts_of(p);
				iv = ts_of(periodic ? p : 0);
				r.interval = periodic ? p : 0;
				LC_EQ_INT(lc_timer_start(&t, abs ? LC_TIMER_ABSTIME : 0,
				                         &val, &iv), 0);
				lc_loop_run_sim(loop, m0 + 5 * p + p / 2);
				lc_timer_stop(&t);
				LC_EQ_INT(r.early, 0);
				LC_EQ_INT(r.n, periodic ? 5 : 1);
				for (int k = 0; k < r.n; k++) {
					LC_EQ_I64(r.mono[k], m0 + (k + 1) * p);
					LC_EQ_I64(r.overrun[k], 0);
					LC_EQ_INT(r.status[k], 0);
				}
			}
		}
	}
	teardown();
}

/* nanosleep: durations 10 ns .. 1 s (x100 steps) on every clock, REL and
 * ABS: ends exactly at start + d (never before). */
static void test_nanosleep_all_clocks(void)
{
	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		for (int64_t d = 10; d <= NS; d *= 100) {
			for (int abs = 0; abs < 2; abs++) {
				lc_timer t;
				struct rec r;
				struct timespec now, val;
				int64_t m0 = mono();

				memset(&r, 0, sizeof(r));
				lc_gettime(tk, (lc_clock_id)id, &now);
				r.dl = ts_of(lc__ts_to_ns(&now) + d);
				val = abs ? r.dl : ts_of(d);
				lc_timer_init(loop, &t, (lc_clock_id)id, rec_cb, &r);
				LC_EQ_INT(lc_timer_start(&t, abs ? LC_TIMER_ABSTIME : 0,
				                         &val, NULL), 0);
				lc_loop_run_sim(loop, m0 + 2 * d + 1000);
				LC_EQ_INT(r.n, 1);
				LC_EQ_INT(r.early, 0);
				LC_EQ_I64(r.mono[0], m0 + d);
			}
		}
	}
	teardown();
}

/* ---- leaps ----------------------------------------------------------------- */

/*
 * Insertion at the end of 2026-06-30. REALTIME starts at E - 10 s at
 * MONOTONIC m0. The inserted second occupies MONOTONIC [m0 + 10, m0 + 11) s:
 * REALTIME reads E-1 .. E-1+0.999 a second time, UTC reads 23:59:60.x, TAI
 * goes on. So (all offsets from m0):
 *   REALTIME E-0.001 -> 9.999; REALTIME E -> 11 (after the repeat), one
 *   second and 1 ms later; REALTIME E-0.5 armed at 10.2 (in the repeat,
 *   where it reads E-0.8) -> 10.5; UTC 23:59:60.5 -> 10.5; UTC E -> 11;
 *   TAI (E + L) -> 10 where L = TAI-UTC before the leap; TAI E+L+1 -> 11.
 */
static void test_insertion(void)
{
	struct rec r[8];
	lc_timer t[8];
	int64_t m0, L;
	struct timespec d;

	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 10) * NS, NULL), 0);
	m0 = mono();
	L = (lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME)) / NS;
	LC_EQ_INT(arm_leap(LC_STA_INS), 0);
	lc_timer_init(loop, &t[0], LC_CLOCK_REALTIME, rec_cb, &r[0]);
	lc_timer_init(loop, &t[1], LC_CLOCK_REALTIME, rec_cb, &r[1]);
	lc_timer_init(loop, &t[2], LC_CLOCK_UTC, rec_cb, &r[2]);
	lc_timer_init(loop, &t[3], LC_CLOCK_UTC, rec_cb, &r[3]);
	lc_timer_init(loop, &t[4], LC_CLOCK_TAI, rec_cb, &r[4]);
	lc_timer_init(loop, &t[5], LC_CLOCK_TAI, rec_cb, &r[5]);
	lc_timer_init(loop, &t[6], LC_CLOCK_REALTIME, rec_cb, &r[6]);
	r[0].dl = ts_of(E * NS - MS);
	r[1].dl = ts_of(E * NS);
	r[2].dl.tv_sec = (time_t)(E - 1);
	r[2].dl.tv_nsec = 1500000000;
	r[3].dl = ts_of(E * NS);
	r[4].dl = ts_of((E + L) * NS);
	r[5].dl = ts_of((E + L + 1) * NS);
	r[6].dl = ts_of(E * NS - NS / 2);
	for (int i = 0; i < 6; i++)
		LC_EQ_INT(lc_timer_start(&t[i], LC_TIMER_ABSTIME, &r[i].dl, NULL),
		          0);
	lc_loop_run_sim(loop, m0 + 10 * NS + 200 * MS);
	/* inside 23:59:60: REALTIME reads E-1+0.2 */
	lc_gettime(tk, LC_CLOCK_REALTIME, &d);
	LC_EQ_I64(lc__ts_to_ns(&d), (E - 1) * NS + 200 * MS);
	LC_EQ_INT(lc_timer_start(&t[6], LC_TIMER_ABSTIME, &r[6].dl, NULL), 0);
	lc_loop_run_sim(loop, m0 + 20 * NS);
	for (int i = 0; i < 7; i++) {
		LC_EQ_INT(r[i].n, 1);
		LC_EQ_INT(r[i].early, 0);
	}
	LC_EQ_I64(r[0].mono[0] - m0, 9999 * MS);
	LC_EQ_I64(r[1].mono[0] - m0, 11 * NS);
	LC_EQ_I64(r[1].mono[0] - r[0].mono[0], NS + MS);
	LC_EQ_I64(r[2].mono[0] - m0, 10500 * MS);
	LC_EQ_I64(r[2].clk[0].tv_nsec, 1500000000); /* read 23:59:60.5 */
	LC_EQ_I64(r[3].mono[0] - m0, 11 * NS);
	LC_EQ_I64(r[4].mono[0] - m0, 10 * NS);
	LC_EQ_I64(r[5].mono[0] - m0, 11 * NS);
	LC_EQ_I64(r[6].mono[0] - m0, 10500 * MS);
	teardown();
}

/* Periodic timers across the insertion: REALTIME adds its period on its own
 * reading (as Linux's CLOCK_REALTIME timers do), so a 1 s period from
 * 23:59:58.5 fires at 8.5, 9.5 and then 00:00:00.5 = 11.5 (a 2 s gap);
 * UTC counts the inserted second: 8.5, 9.5, 10.5 (23:59:60.5), 11.5. */
static void test_periodic_across_insertion(void)
{
	struct rec r[2];
	lc_timer t[2];
	struct timespec iv = {1, 0};
	int64_t m0;

	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 10) * NS, NULL), 0);
	m0 = mono();
	LC_EQ_INT(arm_leap(LC_STA_INS), 0);
	lc_timer_init(loop, &t[0], LC_CLOCK_REALTIME, rec_cb, &r[0]);
	lc_timer_init(loop, &t[1], LC_CLOCK_UTC, rec_cb, &r[1]);
	r[0].dl = r[1].dl = ts_of(E * NS - 1500 * MS);
	LC_EQ_INT(lc_timer_start(&t[0], LC_TIMER_ABSTIME, &r[0].dl, &iv), 0);
	LC_EQ_INT(lc_timer_start(&t[1], LC_TIMER_ABSTIME, &r[1].dl, &iv), 0);
	lc_loop_run_sim(loop, m0 + 11 * NS + 600 * MS);
	LC_EQ_INT(r[0].n, 3);
	LC_EQ_I64(r[0].mono[0] - m0, 8500 * MS);
	LC_EQ_I64(r[0].mono[1] - m0, 9500 * MS);
	LC_EQ_I64(r[0].mono[2] - m0, 11500 * MS);
	LC_EQ_INT(r[1].n, 4);
	LC_EQ_I64(r[1].mono[0] - m0, 8500 * MS);
	LC_EQ_I64(r[1].mono[1] - m0, 9500 * MS);
	LC_EQ_I64(r[1].mono[2] - m0, 10500 * MS);
	LC_EQ_I64(r[1].clk[2].tv_nsec, 1500000000);
	LC_EQ_I64(r[1].mono[3] - m0, 11500 * MS);
	for (int i = 0; i < r[1].n; i++)
		LC_EQ_I64(r[1].overrun[i], 0);
	LC_EQ_INT(r[0].early + r[1].early, 0);
	teardown();
}

/* Deletion: 23:59:59 of 2026-06-30 is skipped; REALTIME jumps from E-1 to E
 * at m0 + 9 s. A REALTIME or UTC timer at 23:59:59.5 fires at the jump;
 * TAI is continuous (TAI E-1+L at 9 s). */
static void test_deletion(void)
{
	struct rec r[3];
	lc_timer t[3];
	int64_t m0, L;

	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 10) * NS, NULL), 0);
	m0 = mono();
	L = (lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME)) / NS;
	LC_EQ_INT(arm_leap(LC_STA_DEL), 0);
	lc_timer_init(loop, &t[0], LC_CLOCK_REALTIME, rec_cb, &r[0]);
	lc_timer_init(loop, &t[1], LC_CLOCK_UTC, rec_cb, &r[1]);
	lc_timer_init(loop, &t[2], LC_CLOCK_TAI, rec_cb, &r[2]);
	r[0].dl = r[1].dl = ts_of(E * NS - NS / 2);
	r[2].dl = ts_of((E - 1 + L) * NS + 1);
	for (int i = 0; i < 3; i++)
		LC_EQ_INT(lc_timer_start(&t[i], LC_TIMER_ABSTIME, &r[i].dl, NULL),
		          0);
	lc_loop_run_sim(loop, m0 + 20 * NS);
	for (int i = 0; i < 3; i++) {
		LC_EQ_INT(r[i].n, 1);
		LC_EQ_INT(r[i].early, 0);
	}
	LC_EQ_I64(r[0].mono[0] - m0, 9 * NS);
	LC_EQ_I64(lc__ts_to_ns(&r[0].clk[0]), E * NS); /* read 00:00:00 */
	LC_EQ_I64(r[1].mono[0] - m0, 9 * NS);
	LC_EQ_I64(r[2].mono[0] - m0, 9 * NS + 1);
	teardown();
}

/* UTC_SLS follows the smear: with the 1000 s UTC-SLS preset ending at the
 * leap, a UTC_SLS timer at E - 500 fires when the smeared clock reads it,
 * i.e. at the first ns t (from m0) with (E - 1000 + t) - smear(t) >= E - 500
 * where smear() is lc_smear_offset() relative to the leap instant
 * m0 + 1000 s; the reference solves it by bisection on that function. */
static void test_smear_follows(void)
{
	struct lc_smear_policy pol;
	struct rec r[2];
	lc_timer t[2];
	int64_t m0, lo, hi, target = 500 * NS;

	memset(r, 0, sizeof(r));
	LC_EQ_INT(lc_smear_preset("utc-sls", 0, &pol, NULL), 0);
	LC_EQ_INT(setup((E - 1000) * NS, &pol), 0);
	m0 = mono();
	LC_EQ_INT(arm_leap(LC_STA_INS), 0);
	lc_timer_init(loop, &t[0], LC_CLOCK_UTC_SLS, rec_cb, &r[0]);
	lc_timer_init(loop, &t[1], LC_CLOCK_UTC, rec_cb, &r[1]);
	r[0].dl = r[1].dl = ts_of((E - 500) * NS);
	LC_EQ_INT(lc_timer_start(&t[0], LC_TIMER_ABSTIME, &r[0].dl, NULL), 0);
	LC_EQ_INT(lc_timer_start(&t[1], LC_TIMER_ABSTIME, &r[1].dl, NULL), 0);
	lc_loop_run_sim(loop, m0 + 1100 * NS);
	LC_EQ_INT(r[0].n, 1);
	LC_EQ_INT(r[1].n, 1);
	LC_EQ_INT(r[0].early, 0);
	LC_EQ_I64(r[1].mono[0] - m0, 500 * NS);
	/* reference: smallest t with t - smear(t - 1000 s) >= 500 s */
	lo = 0;
	hi = 1000 * NS;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (mid - lc_smear_offset(&pol, 1, mid - 1000 * NS) >= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	LC_GT_I64(lo, 500 * NS); /* the smeared clock is behind: later */
	LC_EQ_I64(r[0].mono[0] - m0, lo);
	teardown();
}

/* UTC_SLS with no smear for the leap at hand is UTC (issue 12 item 1): with
 * no policy, and with a policy that refuses the leap (utc-sls bounded to
 * 1500 ppm, armed 10 s before the leap: it would need 1e5 ppm), UTC_SLS
 * reads 23:59:60.x, and its timers are UTC's: the leap is at m0 + 10 s, so
 *   00:00:00 -> 11, 00:00:00.5 -> 11.5, 23:59:60.5 -> 10.5 (a valid
 *   deadline, as lc__tk_mono_at says), a 1 s period from 23:59:58.5 -> 8.5,
 *   9.5, 10.5 (23:59:60.5), 11.5; 0.5 s relative from 23:59:60.2 -> 10.7;
 * while a MONOTONIC timer wakes the loop at 10.001 and 10.2, inside the
 * inserted second, where UTC_SLS's ns value (lc_now_ns) repeats 00:00:00's.
 * On a 32768 Hz counter every instant is the first counter tick at or after
 * it (never early, less than one tick late). */
static void sls_unsmeared_case(uint64_t freq, const struct lc_smear_policy *pol)
{
	enum { N = 7 };
	struct rec r[N];
	lc_timer t[N];
	struct timespec iv = {1, 0}, d, v;
	int64_t m0, ma, tick = (NS + (int64_t)freq - 1) / (int64_t)freq;
	/* expected firings, ns from m0 */
	static const int64_t want[N][4] = {
		{11 * NS}, {11500 * MS}, {10500 * MS}, {10 * NS + MS},
		{8500 * MS, 9500 * MS, 10500 * MS, 11500 * MS}, {10700 * MS},
		{11 * NS},
	};
	static const int nwant[N] = {1, 1, 1, 2, 4, 1, 1};

	printf("  counter %llu Hz, %s\n", (unsigned long long)freq,
	       pol ? "policy refusing the leap" : "no policy");
	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup_freq((E - 10) * NS, pol, freq), 0);
	m0 = mono();
	LC_EQ_INT(arm_leap(LC_STA_INS), 0);
	for (int i = 0; i < N; i++)
		lc_timer_init(loop, &t[i],
		              i == 3   ? LC_CLOCK_MONOTONIC
		              : i == 6 ? LC_CLOCK_UTC
		                       : LC_CLOCK_UTC_SLS,
		              rec_cb, &r[i]);
	r[0].dl = ts_of(E * NS);
	r[1].dl = ts_of(E * NS + NS / 2);
	r[2].dl.tv_sec = (time_t)(E - 1);
	r[2].dl.tv_nsec = 1500000000;
	r[3].dl = ts_of(m0 + 10 * NS + MS);
	r[4].dl = ts_of(E * NS - 1500 * MS); /* the first (checked below) */
	r[6].dl = ts_of(E * NS);
	/* a UTC_SLS deadline in 23:59:60: both lc_timer_start and
	 * lc__tk_mono_at take it, and agree on when it is */
	LC_EQ_INT(lc__tk_mono_at(tk, LC_CLOCK_UTC_SLS, &r[2].dl, &ma), 0);
	LC_GE_I64(ma - m0, 10500 * MS);
	LC_LT_I64(ma - m0, 10500 * MS + tick);
	for (int i = 0; i < N; i++) {
		if (i == 5)
			continue; /* relative, started in 23:59:60 below */
		LC_EQ_INT(lc_timer_start(&t[i], LC_TIMER_ABSTIME, &r[i].dl,
		                         i == 4 ? &iv : NULL),
		          0);
	}
	LC_EQ_INT(lc_timer_deadline(&t[2], &d), 0);
	LC_EQ_I64(d.tv_sec, E - 1);
	LC_EQ_I64(d.tv_nsec, 1500000000);
	v = r[2].dl;
	v.tv_nsec = 2000000000;
	LC_EQ_INT(lc_timer_start(&t[5], LC_TIMER_ABSTIME, &v, NULL),
	          LC_EINVAL);
	LC_EQ_INT(lc__tk_mono_at(tk, LC_CLOCK_UTC_SLS, &v, &ma), LC_EINVAL);
	lc_loop_run_sim(loop, m0 + 10 * NS + 200 * MS);
	/* inside 23:59:60: UTC_SLS reads it, and its ns value repeats */
	LC_EQ_INT(lc_gettime(tk, LC_CLOCK_UTC_SLS, &d), 0);
	LC_EQ_I64(d.tv_sec, E - 1);
	LC_GE_I64(d.tv_nsec, 1200000000);
	LC_LT_I64(d.tv_nsec, 1200000000 + tick);
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_UTC_SLS), E * NS + d.tv_nsec - NS);
	LC_EQ_INT(lc_timer_remaining(&t[0], &d), 0);
	LC_GT_I64(lc__ts_to_ns(&d), 800 * MS - tick);
	LC_LE_I64(lc__ts_to_ns(&d), 800 * MS);
	r[5].dl.tv_sec = (time_t)(E - 1);
	r[5].dl.tv_nsec = 1700000000;
	LC_EQ_INT(lc_timer_start_ns(&t[5], 0, 500 * MS, 0), 0);
	LC_EQ_INT(lc_timer_start_ns(&t[3], LC_TIMER_ABSTIME, mono(), 0), 0);
	lc_loop_run_sim(loop, m0 + 20 * NS);
	for (int i = 0; i < N; i++) {
		if (r[i].early)
			printf("  timer %d fired early\n", i);
		LC_EQ_INT(r[i].early, 0);
		if (i == 4)
			LC_GE_INT(r[i].n, nwant[i]); /* periodic: runs on */
		else
			LC_EQ_INT(r[i].n, nwant[i]);
		for (int k = 0; k < nwant[i]; k++) {
			if (i == 3 && k == 1)
				continue; /* the waker re-armed at 10.2 */
			LC_GE_I64(r[i].mono[k] - m0, want[i][k]);
			LC_LT_I64(r[i].mono[k] - m0, want[i][k] + tick);
		}
	}
	LC_GE_I64(r[2].clk[0].tv_nsec, 1500000000); /* read 23:59:60.5 */
	LC_EQ_I64(r[4].clk[2].tv_sec, E - 1); /* 23:59:60.5 */
	LC_GE_I64(r[4].clk[2].tv_nsec, 1500000000);
	LC_EQ_I64(r[4].clk[3].tv_sec, E); /* 00:00:00.5 */
	LC_GE_I64(r[4].clk[3].tv_nsec, 500000000);
	for (int k = 0; k < 4; k++)
		LC_EQ_I64(r[4].overrun[k], 0);
	teardown();
}

static void test_sls_unsmeared_is_utc(void)
{
	static const uint64_t freqs[] = {1000000000, 32768};
	struct lc_smear_policy pol;

	LC_EQ_INT(lc_smear_preset("utc-sls", 0, &pol, NULL), 0);
	pol.max_rate_ppm = 1500;
	LC_EQ_INT(lc_smear_validate(&pol, NULL), 0);
	for (int f = 0; f < 2; f++) {
		sls_unsmeared_case(freqs[f], NULL);
		LC_BAIL();
		sls_unsmeared_case(freqs[f], &pol);
		LC_BAIL();
	}
}

/* UTC timers far in the future (issue 12 item 2): at REALTIME
 * 2174-01-14T23:43:20 (1000 s before midnight), an absolute UTC timer at
 * now + 100 s and a relative 100 s one fire at m0 + 100 s, as REALTIME's and
 * UTC_SLS's do; an insertion armed there makes 23:59:60.5 fire at
 * m0 + 1000.5 s and 00:00:00 at m0 + 1001 s on UTC and UTC_SLS (no policy);
 * a deadline past the key range (2262-04-10 on, tv_sec = 2^62) never
 * fires. A MONOTONIC timer wakes the loop every 10 s. */
static void test_utc_far_future(void)
{
	enum { N = 11 };
	struct rec r[N];
	lc_timer t[N];
	struct timespec big = {0, 0}, left;
	struct timespec iv = {10, 0};
	int64_t R0 = lc_days_from_civil(2174, 1, 14) * LC_SECS_PER_DAY +
	             (23 * 60 + 43) * 60 + 20,
	        W = R0 + 1000, m0;
	static const int clk[N] = {
		LC_CLOCK_UTC,      LC_CLOCK_UTC,     LC_CLOCK_REALTIME,
		LC_CLOCK_REALTIME, LC_CLOCK_UTC_SLS, LC_CLOCK_UTC_SLS,
		LC_CLOCK_UTC,      LC_CLOCK_UTC,     LC_CLOCK_UTC_SLS,
		LC_CLOCK_UTC,      LC_CLOCK_UTC_SLS,
	};

	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup(R0 * NS, NULL), 0);
	m0 = mono();
	for (int i = 0; i < N; i++)
		lc_timer_init(loop, &t[i], (lc_clock_id)clk[i], rec_cb, &r[i]);
	for (int i = 0; i < 6; i++) {
		r[i].dl = ts_of((R0 + 100) * NS);
		if (i % 2 == 0)
			LC_EQ_INT(lc_timer_start(&t[i], LC_TIMER_ABSTIME,
			                         &r[i].dl, NULL),
			          0);
		else
			LC_EQ_INT(lc_timer_start_ns(&t[i], 0, 100 * NS, 0), 0);
	}
	/* past the key range: clamped to never */
	big.tv_sec = (time_t)(INT64_C(1) << 62);
	r[9].dl = r[10].dl = big;
	LC_EQ_INT(lc_timer_start(&t[9], LC_TIMER_ABSTIME, &big, NULL), 0);
	LC_EQ_INT(lc_timer_start(&t[10], LC_TIMER_ABSTIME, &big, NULL), 0);
	{
		lc_timer w;
		struct rec rw;
		memset(&rw, 0, sizeof(rw));
		lc_timer_init(loop, &w, LC_CLOCK_MONOTONIC, rec_cb, &rw);
		LC_EQ_INT(lc_timer_start(&w, 0, &iv, &iv), 0);
		lc_loop_run_sim(loop, m0 + 200 * NS);
		LC_EQ_INT(rw.n, 20);
		lc_timer_stop(&w);
	}
	for (int i = 0; i < 6; i++) {
		LC_EQ_INT(r[i].n, 1);
		LC_EQ_INT(r[i].early, 0);
		LC_EQ_I64(r[i].mono[0] - m0, 100 * NS);
	}
	/* an insertion at W = 2174-01-15 00:00:00 */
	LC_EQ_INT(arm_leap(LC_STA_INS), 0);
	r[6].dl.tv_sec = r[8].dl.tv_sec = (time_t)(W - 1);
	r[6].dl.tv_nsec = r[8].dl.tv_nsec = 1500000000;
	r[7].dl = ts_of(W * NS);
	LC_EQ_INT(lc_timer_start(&t[6], LC_TIMER_ABSTIME, &r[6].dl, NULL), 0);
	LC_EQ_INT(lc_timer_start(&t[7], LC_TIMER_ABSTIME, &r[7].dl, NULL), 0);
	LC_EQ_INT(lc_timer_start(&t[8], LC_TIMER_ABSTIME, &r[8].dl, NULL), 0);
	lc_loop_run_sim(loop, m0 + 1100 * NS);
	for (int i = 6; i < 9; i++) {
		LC_EQ_INT(r[i].n, 1);
		LC_EQ_INT(r[i].early, 0);
	}
	LC_EQ_I64(r[6].mono[0] - m0, 1000 * NS + 500 * MS);
	LC_EQ_I64(r[6].clk[0].tv_nsec, 1500000000);
	LC_EQ_I64(r[7].mono[0] - m0, 1001 * NS);
	LC_EQ_I64(r[8].mono[0] - m0, 1000 * NS + 500 * MS);
	LC_EQ_I64(r[8].clk[0].tv_nsec, 1500000000);
	/* the clamped ones are still armed, and say so */
	LC_EQ_INT(r[9].n + r[10].n, 0);
	LC_EQ_INT(lc_timer_active(&t[9]), 1);
	LC_EQ_INT(lc_timer_active(&t[10]), 1);
	LC_EQ_INT(lc_timer_remaining(&t[9], &left), 0);
	LC_GT_I64(lc__ts_to_ns(&left),
	          INT64_MAX - lc_now_ns(tk, LC_CLOCK_REALTIME) - 2 * NS);
	LC_EQ_I64(lc_loop_next_deadline(loop), INT64_MAX);
	lc_timer_stop(&t[9]);
	lc_timer_stop(&t[10]);
	teardown();
}

/* ---- CANCEL_ON_SET ---------------------------------------------------------- */

static void test_cancel_on_set(void)
{
	struct rec r[6];
	lc_timer t[6];
	lc_clock_id ids[6] = {LC_CLOCK_REALTIME, LC_CLOCK_TAI, LC_CLOCK_UTC,
	                      LC_CLOCK_UTC_SLS, LC_CLOCK_REALTIME,
	                      LC_CLOCK_MONOTONIC};
	struct timespec far, now;
	int64_t m0;

	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 10) * NS, NULL), 0);
	m0 = mono();
	LC_EQ_INT(arm_leap(LC_STA_INS), 0);
	for (int i = 0; i < 6; i++) {
		lc_timer_init(loop, &t[i], ids[i], rec_cb, &r[i]);
		lc_gettime(tk, ids[i], &now);
		far = now;
		far.tv_sec += 1000;
		r[i].dl = far;
	}
	/* flags: CANCEL_ON_SET only with ABSTIME, not on MONOTONIC */
	LC_EQ_INT(lc_timer_start(&t[5], LC_TIMER_ABSTIME | LC_TIMER_CANCEL_ON_SET,
	                         &r[5].dl, NULL), LC_EINVAL);
	LC_EQ_INT(lc_timer_start(&t[0], LC_TIMER_CANCEL_ON_SET, &r[5].dl, NULL),
	          LC_EINVAL);
	for (int i = 0; i < 4; i++)
		LC_EQ_INT(lc_timer_start(&t[i],
		                         LC_TIMER_ABSTIME | LC_TIMER_CANCEL_ON_SET,
		                         &r[i].dl, NULL), 0);
	/* a plain absolute REALTIME timer is not cancelled */
	LC_EQ_INT(lc_timer_start(&t[4], LC_TIMER_ABSTIME, &r[4].dl, NULL), 0);
	LC_EQ_I64(lc_loop_next_deadline(loop), m0 + 10 * NS); /* the leap */
	/* the leap: only REALTIME's COS timer is cancelled, at its instant */
	lc_loop_run_sim(loop, m0 + 12 * NS);
	LC_EQ_INT(r[0].n, 1);
	LC_EQ_INT(r[0].status[0], LC_ECANCELED);
	LC_EQ_I64(r[0].mono[0] - m0, 10 * NS);
	LC_FALSE(lc_timer_active(&t[0]));
	for (int i = 1; i < 5; i++)
		LC_EQ_INT(r[i].n, 0);
	/* ADJ_TAI: only TAI */
	{
		struct lc_timex tx;
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_TAI;
		tx.constant = 50;
		LC_GE_INT(lc_adjtimex(tk, &tx), 0);
	}
	lc_loop_run_sim(loop, m0 + 13 * NS);
	LC_EQ_INT(r[1].n, 1);
	LC_EQ_INT(r[1].status[0], LC_ECANCELED);
	LC_EQ_I64(r[1].mono[0] - m0, 12 * NS); /* when it was set */
	LC_EQ_INT(r[2].n + r[3].n + r[4].n, 0);
	/* settime: UTC and UTC_SLS (both REALTIME and TAI step) */
	LC_EQ_INT(lc_timer_start(&t[0], LC_TIMER_ABSTIME | LC_TIMER_CANCEL_ON_SET,
	                         &r[0].dl, NULL), 0);
	lc_gettime(tk, LC_CLOCK_REALTIME, &now);
	now.tv_sec += 100;
	LC_EQ_INT(lc_settime(tk, LC_CLOCK_REALTIME, &now), 0);
	lc_loop_run_sim(loop, m0 + 14 * NS);
	LC_EQ_INT(r[0].n, 2);
	LC_EQ_INT(r[0].status[1], LC_ECANCELED);
	LC_EQ_INT(r[2].n, 1);
	LC_EQ_INT(r[2].status[0], LC_ECANCELED);
	LC_EQ_INT(r[3].n, 1);
	LC_EQ_INT(r[3].status[0], LC_ECANCELED);
	LC_EQ_I64(r[2].mono[0] - m0, 13 * NS);
	LC_EQ_INT(r[4].n, 0); /* the plain one stays armed */
	LC_TRUE(lc_timer_active(&t[4]));
	teardown();
}

/* A step forward: the periodic REALTIME timer's missed periods are counted
 * as overruns; a one-shot whose deadline was stepped over fires at once. */
static void test_step_overruns(void)
{
	struct rec r[2];
	lc_timer t[2];
	struct timespec now, iv = {1, 0};
	int64_t m0;

	memset(r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	m0 = mono();
	lc_timer_init(loop, &t[0], LC_CLOCK_REALTIME, rec_cb, &r[0]);
	lc_timer_init(loop, &t[1], LC_CLOCK_REALTIME, rec_cb, &r[1]);
	r[0].dl = ts_of((E - 999) * NS);
	r[0].interval = NS;
	r[1].dl = ts_of((E - 990) * NS);
	LC_EQ_INT(lc_timer_start(&t[0], LC_TIMER_ABSTIME, &r[0].dl, &iv), 0);
	LC_EQ_INT(lc_timer_start(&t[1], LC_TIMER_ABSTIME, &r[1].dl, NULL), 0);
	lc_loop_run_sim(loop, m0 + 1500 * MS); /* fires at 1 s */
	LC_EQ_INT(r[0].n, 1);
	/* REALTIME now reads E-998.5; step it to E-988.25: periods due at
	 * E-998 .. E-989 have passed: one expiry now plus 9 overruns */
	now = ts_of((E - 988) * NS - 250 * MS);
	LC_EQ_INT(lc_settime(tk, LC_CLOCK_REALTIME, &now), 0);
	lc_loop_run_sim(loop, m0 + 1500 * MS + 1);
	LC_EQ_INT(r[0].n, 2);
	LC_EQ_I64(r[0].overrun[1], 9);
	LC_EQ_INT(r[1].n, 1);
	LC_EQ_I64(r[1].mono[0], m0 + 1500 * MS);
	/* next period: E-988 -> 250 ms later */
	lc_loop_run_sim(loop, m0 + 1750 * MS);
	LC_EQ_INT(r[0].n, 3);
	LC_EQ_I64(r[0].mono[2], m0 + 1750 * MS);
	LC_EQ_I64(r[0].overrun[2], 0);
	/* a step back: the next deadline (E-987) is now 10 s of reading away */
	now = ts_of((E - 997) * NS);
	LC_EQ_INT(lc_settime(tk, LC_CLOCK_REALTIME, &now), 0);
	lc_loop_run_sim(loop, m0 + 1750 * MS + 10 * NS);
	LC_EQ_INT(r[0].n, 4);
	LC_EQ_I64(r[0].mono[3], m0 + 1750 * MS + 10 * NS);
	LC_EQ_INT(r[0].early, 0);
	teardown();
}

/* ---- queue semantics through the API --------------------------------------- */

static int order[8], norder;
static void order_cb(lc_timer *t, int status, void *data)
{
	(void)t;
	(void)status;
	order[norder++] = (int)(intptr_t)data;
}

static void test_ties_and_rearm(void)
{
	lc_timer t[4], self;
	struct rec r;
	int64_t m0;
	struct timespec left;

	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	m0 = mono();
	/* started in the order 2, 0, 3, 1 with one deadline */
	int st[4] = {2, 0, 3, 1};
	for (int i = 0; i < 4; i++)
		lc_timer_init(loop, &t[i], LC_CLOCK_MONOTONIC, order_cb,
		              (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++)
		lc_timer_start_ns(&t[st[i]], LC_TIMER_ABSTIME, m0 + NS, 0);
	norder = 0;
	lc_loop_run_sim(loop, m0 + 2 * NS);
	LC_EQ_INT(norder, 4);
	for (int i = 0; i < 4; i++)
		LC_EQ_INT(order[i], st[i]);

	/* a timer that re-arms itself for "now" fires once per pass */
	memset(&r, 0, sizeof(r));
	r.rearm_rel_ns = 1; /* re-armed 1 ns later each time */
	lc_timer_init(loop, &self, LC_CLOCK_MONOTONIC, rec_cb, &r);
	lc_timer_start_ns(&self, LC_TIMER_ABSTIME, mono() - 5, 0);
	LC_EQ_INT(lc_loop_expire(loop), 1);
	LC_EQ_INT(r.n, 1);
	LC_TRUE(lc_timer_active(&self));
	LC_EQ_INT(lc_loop_expire(loop), 0); /* not due: 1 ns later */
	m0 = mono();
	lc_loop_run_sim(loop, m0 + 10);
	LC_EQ_INT(r.n, 11); /* m0+1 .. m0+10 */
	LC_EQ_INT(lc_timer_remaining(&self, &left), 0);
	LC_EQ_I64(lc__ts_to_ns(&left), 1);
	LC_EQ_INT(lc_timer_stop(&self), 1);
	LC_EQ_INT(lc_timer_stop(&self), 0);
	LC_EQ_INT(lc_timer_remaining(&self, &left), LC_ENOENT);

	/* stop from its own callback: a periodic timer ends */
	memset(&r, 0, sizeof(r));
	r.stop_self = 1;
	lc_timer_start_ns(&self, 0, 10, 10);
	lc_loop_run_sim(loop, mono() + 100);
	LC_EQ_INT(r.n, 1);
	LC_FALSE(lc_timer_active(&self));
	LC_EQ_U64(lc_loop_count(loop), 0);
	teardown();
}

/* A callback running at until_mono that arms a timer already due there. */
struct due_at_until {
	lc_timer *rt, *mo; /* armed by the first callback */
	int n_first, n_rt, n_mo, n_self;
	int64_t at_rt, at_mo;
};

static void due_first_cb(lc_timer *t, int status, void *data)
{
	struct due_at_until *d = data;

	(void)t;
	(void)status;
	d->n_first++;
	/* REALTIME relative 0 and MONOTONIC absolute "now": both due now */
	lc_timer_start_ns(d->rt, 0, 0, 0);
	lc_timer_start_ns(d->mo, LC_TIMER_ABSTIME, mono(), 0);
}

static void due_rt_cb(lc_timer *t, int status, void *data)
{
	struct due_at_until *d = data;

	(void)t;
	(void)status;
	d->n_rt++;
	d->at_rt = mono();
}

static void due_mo_cb(lc_timer *t, int status, void *data)
{
	struct due_at_until *d = data;

	(void)t;
	(void)status;
	d->n_mo++;
	d->at_mo = mono();
}

static void due_self_cb(lc_timer *t, int status, void *data)
{
	struct due_at_until *d = data;

	(void)status;
	d->n_self++;
	lc_timer_start_ns(t, 0, 0, 0); /* due again at once, forever */
}

/*
 * lc_loop_run_sim(until) fires what is due at until, including timers that
 * callbacks running at until arm already due (as it does at every earlier
 * instant): nothing due is left queued when it returns. Found by
 * test_timer_property (LC_SEED=14177142343793010131 LC_TIMER_PROPERTY_N=
 * 1000000): a callback at a deletion's jump re-armed a REALTIME timer for
 * the reading at that instant; the run ended at the jump with it queued.
 */
static void test_due_at_until(void)
{
	lc_timer first, rt, mo, self;
	struct due_at_until d, d2;
	int64_t m0, until, n1, n2, end1, next1;
	size_t count1;

	memset(&d, 0, sizeof(d));
	d.rt = &rt;
	d.mo = &mo;
	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	lc_timer_init(loop, &first, LC_CLOCK_MONOTONIC, due_first_cb, &d);
	lc_timer_init(loop, &rt, LC_CLOCK_REALTIME, due_rt_cb, &d);
	lc_timer_init(loop, &mo, LC_CLOCK_MONOTONIC, due_mo_cb, &d);
	m0 = mono();
	until = m0 + NS;
	/* the first timer is due exactly at until */
	lc_timer_start_ns(&first, LC_TIMER_ABSTIME, until, 0);
	n1 = lc_loop_run_sim(loop, until);
	end1 = mono();
	count1 = lc_loop_count(loop);
	next1 = lc_loop_next_deadline(loop);

	/* the same at an instant before until: fired at that instant */
	d2 = d;
	memset(&d, 0, sizeof(d));
	d.rt = &rt;
	d.mo = &mo;
	lc_timer_start_ns(&first, LC_TIMER_ABSTIME, until + NS, 0);
	n2 = lc_loop_run_sim(loop, until + 2 * NS);

	/* a timer re-arming itself for "now" at until cannot hold the run:
	 * it returns after a bounded number of passes at that instant */
	lc_timer_init(loop, &self, LC_CLOCK_MONOTONIC, due_self_cb, &d);
	lc_timer_start_ns(&self, LC_TIMER_ABSTIME, mono() + 10, 0);
	lc_loop_run_sim(loop, mono() + 10);
	lc_timer_stop(&self);
	lc_timer_stop(&rt);
	lc_timer_stop(&mo);
	teardown();

	LC_EQ_I64(n1, 3);
	LC_EQ_I64(end1, until);
	LC_EQ_INT(d2.n_first, 1);
	LC_EQ_INT(d2.n_rt, 1);
	LC_EQ_INT(d2.n_mo, 1);
	LC_EQ_I64(d2.at_rt, until);
	LC_EQ_I64(d2.at_mo, until);
	LC_EQ_U64(count1, 0);
	LC_EQ_I64(next1, INT64_MAX);
	LC_EQ_I64(n2, 3);
	LC_EQ_I64(d.at_rt, until + NS);
	LC_EQ_I64(d.at_mo, until + NS);
	LC_GT_I64(d.n_self, 1);
	LC_LE_I64(d.n_self, 1000);
}

static void test_clamp_and_args(void)
{
	lc_timer t;
	struct rec r;
	struct timespec v = {0, 0}, left, dl;

	memset(&r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	lc_timer_init(loop, &t, LC_CLOCK_REALTIME, rec_cb, &r);
	/* a relative value that would overflow is clamped, never fires */
	LC_EQ_INT(lc_timer_start_ns(&t, 0, INT64_MAX, 0), 0);
	LC_EQ_INT(lc_timer_deadline(&t, &dl), 0);
	LC_EQ_I64(lc__ts_to_ns(&dl), INT64_MAX);
	LC_EQ_I64(lc_loop_next_deadline(loop), INT64_MAX);
	lc_loop_run_sim(loop, mono() + 10 * NS);
	LC_EQ_INT(r.n, 0);
	LC_EQ_INT(lc_timer_remaining(&t, &left), 0);
	LC_GT_I64(lc__ts_to_ns(&left), INT64_C(1) << 62);
	/* periodic with a huge interval: the next deadline clamps */
	LC_EQ_INT(lc_timer_start_ns(&t, 0, 5, INT64_MAX), 0);
	lc_loop_run_sim(loop, mono() + 10);
	LC_EQ_INT(r.n, 1);
	LC_EQ_INT(lc_timer_deadline(&t, &dl), 0);
	LC_EQ_I64(lc__ts_to_ns(&dl), INT64_MAX);
	/* bad arguments */
	v.tv_nsec = NS;
	LC_EQ_INT(lc_timer_start(&t, LC_TIMER_ABSTIME, &v, NULL), LC_EINVAL);
	v.tv_nsec = -1;
	LC_EQ_INT(lc_timer_start(&t, 0, &v, NULL), LC_EINVAL);
	v.tv_nsec = 0;
	v.tv_sec = -1;
	LC_EQ_INT(lc_timer_start(&t, 0, &v, NULL), LC_EINVAL);
	LC_EQ_INT(lc_timer_start(&t, 0x100, &v, NULL), LC_EINVAL);
	LC_EQ_INT(lc_timer_init(loop, &t, LC_CLOCK_COUNT, rec_cb, NULL),
	          LC_EINVAL);
	/* UTC takes tv_nsec up to 2e9 - 1, only for absolute deadlines */
	lc_timer_init(loop, &t, LC_CLOCK_UTC, rec_cb, &r);
	v.tv_sec = 1;
	v.tv_nsec = 1999999999;
	LC_EQ_INT(lc_timer_start(&t, LC_TIMER_ABSTIME, &v, NULL), 0);
	LC_EQ_INT(lc_timer_start(&t, 0, &v, NULL), LC_EINVAL);
	v.tv_nsec = 2000000000;
	LC_EQ_INT(lc_timer_start(&t, LC_TIMER_ABSTIME, &v, NULL), LC_EINVAL);
	lc_timer_stop(&t);
	LC_EQ_INT((int)lc_loop_run(loop, LC_RUN_NOWAIT), LC_EINVAL); /* sim */
	teardown();
}

/* The guard: whatever a conversion says, a timer fires only when its own
 * clock reads its deadline. The base's cached MONOTONIC instant is poisoned
 * to 100 ms (the deadline is 1 s away): the driver wakes there, finds the
 * timer not due, and it still fires at exactly 1 s. */
static void test_guard_against_bad_conversion(void)
{
	lc_timer t;
	struct rec r;
	int64_t m0;
	uint64_t g0;

	memset(&r, 0, sizeof(r));
	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	m0 = mono();
	lc_timer_init(loop, &t, LC_CLOCK_REALTIME, rec_cb, &r);
	r.dl = ts_of((E - 999) * NS);
	LC_EQ_INT(lc_timer_start(&t, LC_TIMER_ABSTIME, &r.dl, NULL), 0);
	LC_EQ_I64(lc_loop_next_deadline(loop), m0 + NS);
	LC_TRUE(loop->cache[LC_CLOCK_REALTIME].valid);
	loop->cache[LC_CLOCK_REALTIME].mono = m0 + 100 * MS; /* wrong */
	LC_EQ_I64(lc_loop_next_deadline(loop), m0 + 100 * MS);
	g0 = loop->guard_rearms;
	lc_loop_run_sim(loop, m0 + 2 * NS);
	LC_EQ_INT(r.n, 1);
	LC_EQ_INT(r.early, 0);
	LC_EQ_I64(r.mono[0], m0 + NS);
	LC_EQ_U64(loop->guard_rearms - g0, 1);
	/* and lc_loop_expire at the wrong instant fires nothing */
	lc_timer_start(&t, LC_TIMER_ABSTIME, &r.dl, NULL);
	r.dl = ts_of((E - 997) * NS);
	LC_EQ_INT(lc_timer_start(&t, LC_TIMER_ABSTIME, &r.dl, NULL), 0);
	lc_sim_set_true_ns(cnt, lc_sim_true_ns(cnt) + 500 * MS);
	LC_EQ_INT(lc_loop_expire(loop), 0);
	LC_EQ_INT(r.n, 1);
	teardown();
}

/* Bulk expiry (from 2^18 queued timers) and one-at-a-time pops deliver the
 * same timers in the same order: 300,000 timers (ties, periodic ones,
 * tombstones of stopped ones) due at once, each path on its own loop, then
 * compared with each other and with a sort of (deadline, start order). */
#define NBULK 300000
static int *bulk_seq, nbulk_seq;
static void bulk_cb(lc_timer *t, int status, void *data)
{
	(void)t;
	(void)status;
	bulk_seq[nbulk_seq++] = (int)(intptr_t)data;
}

static int64_t *bulk_dl;
static int cmp_bulk(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (bulk_dl[x] != bulk_dl[y])
		return bulk_dl[x] < bulk_dl[y] ? -1 : 1;
	return (x > y) - (x < y); /* started in index order */
}

static void run_bulk(uint32_t bulk_min, int *out, int *nout, uint64_t seed)
{
	lc_timer *tm = calloc(NBULK, sizeof(*tm));
	int64_t m0;

	LC_EQ_INT(setup((E - 1000) * NS, NULL), 0);
	loop->q.bulk_min = bulk_min;
	m0 = mono();
	lc_rand_seed(seed);
	for (int i = 0; i < NBULK; i++) {
		bulk_dl[i] = m0 + 1 + lc_rand_range(0, 999) * 1000;
		lc_timer_init(loop, &tm[i], LC_CLOCK_MONOTONIC, bulk_cb,
		              (void *)(intptr_t)i);
		lc_timer_start_ns(&tm[i], LC_TIMER_ABSTIME, bulk_dl[i],
		                  i % 10 == 0 ? 10 * MS : 0);
	}
	for (int i = 0; i < NBULK; i += 7)
		lc_timer_stop(&tm[i]); /* tombstones */
	bulk_seq = out;
	nbulk_seq = 0;
	lc_sim_set_true_ns(cnt, lc_sim_true_ns(cnt) + 2 * MS);
	LC_GE_INT(lc_loop_expire(loop), 0);
	*nout = nbulk_seq;
	for (int i = 0; i < NBULK; i++)
		lc_timer_stop(&tm[i]);
	free(tm);
	teardown();
}

static void test_bulk_equals_one_by_one(void)
{
	int *a = calloc(NBULK, sizeof(int)), *b = calloc(NBULK, sizeof(int));
	int *ref = calloc(NBULK, sizeof(int)), na = 0, nb = 0, nref = 0;
	uint64_t seed = lc_rand();

	bulk_dl = calloc(NBULK, sizeof(int64_t));
	run_bulk(64, a, &na, seed);
	run_bulk(UINT32_MAX, b, &nb, seed);
	for (int i = 0; i < NBULK; i++)
		if (i % 7 != 0)
			ref[nref++] = i;
	qsort(ref, (size_t)nref, sizeof(int), cmp_bulk);
	LC_EQ_INT(na, nref);
	LC_EQ_INT(nb, nref);
	for (int i = 0; i < nref; i++) {
		LC_EQ_INT(a[i], ref[i]);
		LC_EQ_INT(b[i], ref[i]);
	}
	free(a);
	free(b);
	free(ref);
	free(bulk_dl);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	E = lc_days_from_civil(2026, 7, 1) * LC_SECS_PER_DAY;
	LC_RUN(test_set_timer_lat_all_clocks,
	       "set-timer-lat: 7 clocks x ABS/REL x 5-expiry periodic/one-shot, exact, never early");
	LC_RUN(test_nanosleep_all_clocks,
	       "nanosleep: 7 clocks x 10ns..1s x ABS/REL end exactly at the target");
	LC_RUN(test_insertion,
	       "insertion: REALTIME 00:00:00 fires after the repeated 23:59:59, UTC 23:59:60.5, TAI");
	LC_RUN(test_periodic_across_insertion,
	       "periods across an insertion: REALTIME on its reading, UTC counts 23:59:60");
	LC_RUN(test_deletion,
	       "deletion: timers at 23:59:59.5 fire at the jump; TAI continuous");
	LC_RUN(test_smear_follows,
	       "UTC_SLS timers fire when the smeared clock reads the deadline");
	LC_RUN(test_sls_unsmeared_is_utc,
	       "UTC_SLS without a smear (no policy, leap refused) is UTC: 23:59:60 timers, never early (1 GHz, 32 kHz)");
	LC_RUN(test_utc_far_future,
	       "UTC and UTC_SLS timers in 2174 fire on time, across a leap too; from 2262-04-10 never");
	LC_RUN(test_cancel_on_set,
	       "CANCEL_ON_SET: leap cancels REALTIME only, ADJ_TAI TAI only, settime all");
	LC_RUN(test_step_overruns,
	       "steps: overruns counted, stepped-over one-shot fires at once, step back waits");
	LC_RUN(test_ties_and_rearm,
	       "ties in start order; self re-arming cannot starve; stop from callback");
	LC_RUN(test_due_at_until,
	       "run_sim(until) fires timers that callbacks at until arm already due");
	LC_RUN(test_clamp_and_args, "overflow clamps; invalid arguments rejected");
	LC_RUN(test_bulk_equals_one_by_one,
	       "bulk expiry and one-by-one pops deliver 257k timers in (deadline, start) order");
	LC_RUN(test_guard_against_bad_conversion,
	       "guard: a poisoned MONOTONIC conversion cannot make a timer fire early or late");
	return lc_test_done();
}
