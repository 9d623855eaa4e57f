/* test_timerfd_driver.c - the real driver (lc_loop_run on one timerfd) on
 * the host's counter: the nanosleep and set-timer-lat selftest checks on
 * every clock id with short durations, and a leap second on leapclock's own
 * REALTIME (lc_settime/lc_adjtimex on the timekeeper, never the host's
 * clock): the timers are leap-correct whatever the host kernel does.
 * Lateness on a shared machine is only bounded loosely (set-timer-lat's
 * 40 ms is the target; the bound here is 250 ms); earliness never.
 */
#include "lc_test.h"
#include "timer.h"

#define NS LC_NSEC_PER_SEC
#define MS INT64_C(1000000)

static lc_counter *cnt;
static lc_timekeeper *tk;
static lc_loop *loop;

struct rec {
	int n, early, max_n;
	struct timespec dl;
	int64_t interval, max_late, mono[8];
};

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return (a->tv_nsec > b->tv_nsec) - (a->tv_nsec < b->tv_nsec);
}

static void cb(lc_timer *t, int status, void *data)
{
	struct rec *r = data;
	struct timespec now;
	int64_t late;

	(void)status;
	lc_gettime(tk, lc_timer_clock(t), &now);
	if (ts_cmp(&now, &r->dl) < 0)
		r->early++;
	/* lateness on the clock's reading (UTC: only away from 23:59:60) */
	late = lc__ts_to_ns(&now) - lc__ts_to_ns(&r->dl);
	if (late > r->max_late)
		r->max_late = late;
	if (r->n < 8)
		r->mono[r->n] = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
	r->n++;
	if (r->interval) {
		int64_t ns = lc__ts_to_ns(&r->dl) +
		             (1 + lc_timer_overrun(t)) * r->interval;
		r->dl = lc__ns_to_ts(ns);
	}
	if (r->max_n && r->n >= r->max_n)
		lc_timer_stop(t);
}

static int setup(void)
{
	if (lc_counter_new_system(&cnt, CLOCK_MONOTONIC) < 0 ||
	    lc_tk_new(&tk, cnt, NULL) < 0 || lc_loop_new(&loop, tk, 0) < 0)
		return -1;
	return lc_loop_fd(loop) >= 0 ? 0 : 1;
}

static void teardown(void)
{
	lc_loop_free(loop);
	lc_tk_free(tk);
	lc_counter_free(cnt);
}

static void test_nanosleep_real(void)
{
	int r0 = setup();
	if (r0 == 1) {
		LC_SKIP("test_nanosleep_real", "no timerfd");
		teardown();
		return;
	}
	LC_EQ_INT(r0, 0);
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		for (int64_t d = 10; d <= 10 * MS; d *= 10) {
			for (int abs = 0; abs < 2; abs++) {
				lc_timer t;
				struct rec r;
				struct timespec now, val;
				int64_t got;

				memset(&r, 0, sizeof(r));
				lc_timer_init(loop, &t, (lc_clock_id)id, cb, &r);
				lc_gettime(tk, (lc_clock_id)id, &now);
				if (now.tv_nsec >= NS)
					now.tv_nsec = NS - 1; /* not in a leap */
				r.dl = lc__ns_to_ts(lc__ts_to_ns(&now) + d);
				val = abs ? r.dl : lc__ns_to_ts(d);
				LC_EQ_INT(lc_timer_start(&t, abs ? LC_TIMER_ABSTIME : 0,
				                         &val, NULL), 0);
				got = lc_loop_run(loop, LC_RUN_DEFAULT);
				LC_EQ_I64(got, 1);
				LC_EQ_INT(r.n, 1);
				LC_EQ_INT(r.early, 0);
				LC_LT_I64(r.max_late, 250 * MS);
			}
		}
	}
	teardown();
}

static void test_set_timer_lat_real(void)
{
	int r0 = setup();
	int64_t worst = 0;
	if (r0 == 1) {
		LC_SKIP("test_set_timer_lat_real", "no timerfd");
		teardown();
		return;
	}
	LC_EQ_INT(r0, 0);
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		for (int abs = 0; abs < 2; abs++) {
			for (int periodic = 0; periodic < 2; periodic++) {
				lc_timer t;
				struct rec r;
				struct timespec now, val, iv;
				int64_t p = 3 * MS;

				memset(&r, 0, sizeof(r));
				lc_timer_init(loop, &t, (lc_clock_id)id, cb, &r);
				lc_gettime(tk, (lc_clock_id)id, &now);
				if (now.tv_nsec >= NS)
					now.tv_nsec = NS - 1;
				r.dl = lc__ns_to_ts(lc__ts_to_ns(&now) + p);
				r.interval = periodic ? p : 0;
				r.max_n = periodic ? 5 : 0;
				val = abs ? r.dl : lc__ns_to_ts(p);
				iv = lc__ns_to_ts(r.interval);
				LC_EQ_INT(lc_timer_start(&t, abs ? LC_TIMER_ABSTIME : 0,
				                         &val, &iv), 0);
				lc_loop_run(loop, LC_RUN_DEFAULT);
				LC_EQ_INT(r.n, periodic ? 5 : 1);
				LC_EQ_INT(r.early, 0);
				LC_LT_I64(r.max_late, 250 * MS);
				if (r.max_late > worst)
					worst = r.max_late;
			}
		}
	}
	printf("# worst lateness %" PRId64 " us (set-timer-lat's bound: 40 ms)\n",
	       worst / 1000);
	teardown();
}

/* leapclock's REALTIME is set (on the timekeeper only) to 23:59:58.8 of a
 * day with an inserted second (armed as leap-a-day does, so that the state
 * machine sees the 23:59:59 boundary: Linux arms the following midnight for
 * a flag first seen at 00:00:00): the REALTIME timer for 00:00:00 must take
 * 2.2 s of MONOTONIC, the UTC timer for 23:59:60.2 1.4 s and the TAI timer
 * for the leap's start 1.2 s, whatever the host kernel knows of leaps. */
static void test_leap_on_real_driver(void)
{
	int r0 = setup();
	struct rec r[3];
	lc_timer t[3];
	struct timespec set;
	struct lc_timex tx;
	int64_t W = lc_days_from_civil(2026, 7, 1) * LC_SECS_PER_DAY, m0, L;

	if (r0 == 1) {
		LC_SKIP("test_leap_on_real_driver", "no timerfd");
		teardown();
		return;
	}
	LC_EQ_INT(r0, 0);
	memset(r, 0, sizeof(r));
	set = lc__ns_to_ts(W * NS - 5 * NS);
	LC_EQ_INT(lc_settime(tk, LC_CLOCK_REALTIME, &set), 0);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = LC_STA_INS;
	LC_GE_INT(lc_adjtimex(tk, &tx), 0);
	lc_update(tk);
	set = lc__ns_to_ts(W * NS - 1200 * MS);
	LC_EQ_INT(lc_settime(tk, LC_CLOCK_REALTIME, &set), 0);
	/* a settime clears the pending leap: arm it again (leap-a-day) */
	tx.status = LC_STA_PLL;
	lc_adjtimex(tk, &tx);
	tx.status = 0;
	lc_adjtimex(tk, &tx);
	tx.status = LC_STA_INS;
	LC_GE_INT(lc_adjtimex(tk, &tx), 0);
	lc_update(tk);
	{
		int64_t when;
		int dir;
		LC_EQ_INT(lc_tk_next_leap(tk, &when, &dir), 0);
		LC_EQ_I64(when, W);
		LC_EQ_INT(dir, 1);
	}
	m0 = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
	L = (lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME) +
	     NS / 2) / NS;
	m0 += W * NS - 1200 * MS - lc_now_ns(tk, LC_CLOCK_REALTIME);
	/* m0 is now the MONOTONIC instant at which REALTIME read W-1.2 */
	lc_timer_init(loop, &t[0], LC_CLOCK_REALTIME, cb, &r[0]);
	lc_timer_init(loop, &t[1], LC_CLOCK_UTC, cb, &r[1]);
	lc_timer_init(loop, &t[2], LC_CLOCK_TAI, cb, &r[2]);
	r[0].dl = lc__ns_to_ts(W * NS);
	r[1].dl.tv_sec = (time_t)(W - 1);
	r[1].dl.tv_nsec = 1200000000;
	r[2].dl = lc__ns_to_ts((W + L) * NS);
	for (int i = 0; i < 3; i++)
		LC_EQ_INT(lc_timer_start(&t[i], LC_TIMER_ABSTIME, &r[i].dl, NULL),
		          0);
	lc_loop_run(loop, LC_RUN_DEFAULT);
	for (int i = 0; i < 3; i++) {
		LC_EQ_INT(r[i].n, 1);
		LC_EQ_INT(r[i].early, 0);
	}
	/* MONOTONIC at the firings: not before, and not far after */
	LC_GE_I64(r[0].mono[0] - m0, 2200 * MS);
	LC_LT_I64(r[0].mono[0] - m0, 2450 * MS);
	LC_GE_I64(r[1].mono[0] - m0, 1400 * MS);
	LC_LT_I64(r[1].mono[0] - m0, 1650 * MS);
	LC_GE_I64(r[2].mono[0] - m0, 1200 * MS);
	LC_LT_I64(r[2].mono[0] - m0, 1450 * MS);
	teardown();
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_nanosleep_real,
	       "nanosleep on the timerfd driver: 7 clocks x 10ns..10ms x ABS/REL, never early");
	LC_RUN(test_set_timer_lat_real,
	       "set-timer-lat on the timerfd driver: 7 clocks x ABS/REL x 5 periods/one-shot");
	LC_RUN(test_leap_on_real_driver,
	       "leapclock's own inserted second on the real driver: REALTIME 00:00:00 after 23:59:60");
	return lc_test_done();
}
