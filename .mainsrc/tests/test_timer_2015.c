/* test_timer_2015.c - the 2015 scenario: an absolute REALTIME timer for
 * 00:00:00 across an inserted leap second, with the update ("tick") at
 * 1000 Hz, 250 Hz and NOHZ (irregular, with no tick at all for seconds
 * around the leap), a reader spinning on REALTIME in another thread and a
 * sampler reading REALTIME every 50 us of simulated time.
 *
 * Expected, by construction: REALTIME starts at E - 2 s at MONOTONIC m0, so
 * the inserted second (the repeated 23:59:59) is MONOTONIC [m0+2, m0+3) and
 * REALTIME first reads 00:00:00 = E again at m0 + 3 s exactly: the timer
 * fires there, one second after the leap second began, whatever the tick
 * rate. Linux before 4.2 fired it up to a tick early, at m0 + 2 s + x.
 */
#include "lc_test.h"
#include "timer.h"

#include <pthread.h>
#include <stdatomic.h>

#define NS LC_NSEC_PER_SEC
#define US INT64_C(1000)
#define MS INT64_C(1000000)

static lc_timekeeper *tk;
static int64_t E, fired_mono, fired_rt;
static int nfired;
static atomic_int reader_stop;

struct reader_result {
	long reads, consistent, bad;
	long backsteps;
	int64_t back_by; /* size of the backward step(s) seen */
};

static int64_t reader_m0;

/* Reads MONOTONIC, REALTIME, MONOTONIC; when both MONOTONIC reads agree the
 * REALTIME read was taken at that instant (the simulated counter moves only
 * when the main thread jumps it) and must be, from m0 = E-2 s:
 *   mono < m0+2: E-2 + (mono-m0); [m0+2, m0+3): E-1 + (mono-m0-2 s), the
 *   repeated second; later: E + (mono-m0-3 s). */
static void *reader(void *arg)
{
	struct reader_result *r = arg;
	int64_t prev = INT64_MIN;

	while (!atomic_load(&reader_stop)) {
		int64_t m1 = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
		int64_t v = lc_now_ns(tk, LC_CLOCK_REALTIME);
		int64_t m2 = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
		r->reads++;
		if (v < prev) {
			r->backsteps++;
			r->back_by = prev - v;
		}
		prev = v;
		if (m1 == m2) {
			int64_t d = m1 - reader_m0, want;
			want = d < 2 * NS   ? (E - 2) * NS + d
			       : d < 3 * NS ? (E - 1) * NS + (d - 2 * NS)
			                    : E * NS + (d - 3 * NS);
			r->consistent++;
			if (v != want)
				r->bad++;
		}
	}
	return NULL;
}

static void cb(lc_timer *t, int status, void *data)
{
	(void)t;
	(void)data;
	(void)status;
	nfired++;
	fired_mono = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
	fired_rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
}

/* tick_ns > 0: periodic updates; 0: NOHZ (random gaps, none near the leap) */
static void scenario(int64_t tick_ns)
{
	lc_counter *c;
	lc_loop *loop;
	lc_timer t;
	struct lc_tk_config cfg;
	struct lc_timex tx;
	struct reader_result rr;
	pthread_t th;
	int64_t m0, next_tick, next_sample, end, prev_rt = INT64_MIN;
	int sampler_back = 0, sampler_bad = 0;

	memset(&rr, 0, sizeof(rr));
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (E - 2) * NS;
	LC_EQ_INT(lc_counter_new_sim(&c, 1000000000, 0), 0);
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	LC_EQ_INT(lc_loop_new(&loop, tk, 0), 0);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = LC_STA_INS;
	LC_GE_INT(lc_adjtimex(tk, &tx), 0);
	lc_update(tk);
	m0 = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
	reader_m0 = m0;
	nfired = 0;
	lc_timer_init(loop, &t, LC_CLOCK_REALTIME, cb, NULL);
	LC_EQ_INT(lc_timer_start_ns(&t, LC_TIMER_ABSTIME, E * NS, 0), 0);
	atomic_store(&reader_stop, 0);
	LC_EQ_INT(pthread_create(&th, NULL, reader, &rr), 0);

	next_tick = m0 + (tick_ns ? tick_ns : 300 * MS);
	next_sample = m0 + 50 * US;
	end = m0 + 5 * NS;
	while (lc_now_ns(tk, LC_CLOCK_MONOTONIC) < end) {
		int64_t until = next_tick < next_sample ? next_tick : next_sample;
		int64_t now, rt;
		lc_loop_run_sim(loop, until);
		now = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
		if (now >= next_tick) {
			lc_update(tk);
			if (tick_ns)
				next_tick += tick_ns;
			else if (now < m0 + 1700 * MS)
				next_tick = m0 + 4300 * MS + lc_rand_range(0, 10 * MS);
			else
				next_tick = now + lc_rand_range(MS, 400 * MS);
		}
		if (now >= next_sample) {
			rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
			if (rt < prev_rt) {
				sampler_back++;
				/* the only step back: exactly 1 s, at m0+2 s */
				if (prev_rt - rt != NS - 50 * US ||
				    now != m0 + 2 * NS)
					sampler_bad++;
			}
			/* never 00:00:00.x before the repeated 23:59:59 */
			if (rt >= E * NS && now < m0 + 3 * NS)
				sampler_bad++;
			prev_rt = rt;
			next_sample += 50 * US;
		}
	}
	atomic_store(&reader_stop, 1);
	pthread_join(th, NULL);
	LC_EQ_INT(nfired, 1);
	LC_EQ_I64(fired_mono, m0 + 3 * NS);
	LC_EQ_I64(fired_rt, E * NS);
	LC_EQ_INT(sampler_back, 1);
	LC_EQ_INT(sampler_bad, 0);
	LC_EQ_I64(rr.bad, 0);
	LC_GT_I64(rr.consistent, 0);
	LC_TRUE(rr.backsteps <= 1);
	if (rr.backsteps == 1) {
		/* the reader saw the step back: at most 1 s */
		LC_LE_I64(rr.back_by, NS);
	}
	printf("# tick %s: fired at m0 + %" PRId64 " ns; reader thread %ld reads "
	       "(%ld at a known instant, all exact), %ld step back\n",
	       tick_ns ? (tick_ns == MS ? "1000 Hz" : "250 Hz") : "NOHZ",
	       fired_mono - m0, rr.reads, rr.consistent, rr.backsteps);
	lc_loop_free(loop);
	lc_tk_free(tk);
	lc_counter_free(c);
}

static void test_1000hz(void)
{
	scenario(MS);
}

static void test_250hz(void)
{
	scenario(4 * MS);
}

static void test_nohz(void)
{
	scenario(0);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	E = lc_days_from_civil(2015, 7, 1) * LC_SECS_PER_DAY;
	LC_RUN(test_1000hz,
	       "HZ=1000: REALTIME timer for 00:00:00 fires at the end of 23:59:60, exactly");
	LC_RUN(test_250hz, "HZ=250: the same");
	LC_RUN(test_nohz,
	       "NOHZ (no tick from 23:59:59.7 to 00:00:01.3): the same");
	return lc_test_done();
}
