/* test_concurrency_timers.c - arming and cancelling timers from other
 * threads while the loop runs on the real timerfd driver (make check runs
 * this under ThreadSanitizer).
 *
 * Three workers each own 48 timers on MONOTONIC, REALTIME and TAI; each
 * timer goes round: arm (absolute, 0..2 ms ahead) -> either stop it (if
 * lc_timer_stop() returns 1 the callback must never run for that arming)
 * or wait for its callback. The loop thread sleeps on the timerfd behind a
 * far-away keep-alive timer, so every early wake-up comes from a worker's
 * start kicking it. A fourth thread queries remaining time and counts.
 * Checked: every arming ends exactly once (fired + cancelled == armed), no
 * callback after a stop that returned 1, no callback before its clock reads
 * the deadline, and a bounded lateness (the kick works).
 *
 * The switch-over: a loop is used without its mutex by the thread that
 * created it until another thread first uses it (loop.c, "The lock"). Many
 * fresh loops are driven hard by their owner (starts, stops, expiry with
 * callbacks) while a second thread joins at a random moment and starts and
 * stops its own timers of the same loop. Checked: the owner's operations
 * keep their results across the switch, every arming of both threads ends
 * exactly once, the heaps are sound afterwards, the loop switched, and a
 * loop its owner alone used never did. Under ThreadSanitizer a missed
 * hand-over is a reported race.
 */
#include "lc_test.h"
#include "loop.h"

#include <pthread.h>
#include <stdatomic.h>

#define NS LC_NSEC_PER_SEC
#define MS INT64_C(1000000)
#define WORKERS 3
#define PER 48

struct slot {
	lc_timer t;
	lc_clock_id clock;
	_Atomic int64_t deadline;
	atomic_int armed; /* the worker expects a callback or a cancel */
	atomic_int done;  /* the callback ran */
};

static lc_counter *cnt;
static lc_timekeeper *tk;
static lc_loop *loop;
static struct slot slots[WORKERS][PER];
static atomic_long n_armed, n_fired, n_cancelled, n_bad_after_cancel, n_early;
static _Atomic int64_t max_late;
static atomic_int stop_all;
static double run_seconds = 1.0;

static void cb(lc_timer *t, int status, void *data)
{
	struct slot *s = data;
	int64_t now = lc_now_ns(tk, s->clock);
	int64_t d = atomic_load(&s->deadline), late = now - d, m;

	(void)t;
	(void)status;
	if (!atomic_load(&s->armed))
		atomic_fetch_add(&n_bad_after_cancel, 1);
	if (now < d)
		atomic_fetch_add(&n_early, 1);
	m = atomic_load(&max_late);
	while (late > m && !atomic_compare_exchange_weak(&max_late, &m, late))
		;
	atomic_fetch_add(&n_fired, 1);
	atomic_store(&s->armed, 0);
	atomic_store(&s->done, 1);
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t rng = lc_test_seed() * 7919 + (uint64_t)w * 104729 + 1;

	while (!atomic_load(&stop_all)) {
		for (int i = 0; i < PER; i++) {
			struct slot *s = &slots[w][i];
			if (atomic_load(&s->armed))
				continue;
			int64_t d = lc_now_ns(tk, s->clock) +
			            (int64_t)(xs(&rng) % (2 * MS));
			atomic_store(&s->deadline, d);
			atomic_store(&s->done, 0);
			atomic_store(&s->armed, 1);
			atomic_fetch_add(&n_armed, 1);
			lc_timer_start_ns(&s->t, LC_TIMER_ABSTIME, d, 0);
		}
		for (int i = 0; i < PER; i++) {
			struct slot *s = &slots[w][i];
			if (!atomic_load(&s->armed) || xs(&rng) % 3 != 0)
				continue;
			if (lc_timer_stop(&s->t) == 1) {
				/* cancelled before the callback began */
				atomic_store(&s->armed, 0);
				atomic_fetch_add(&n_cancelled, 1);
			}
			/* else it fired or is firing: the callback ends it */
		}
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *querier(void *arg)
{
	long n = 0;
	(void)arg;
	while (!atomic_load(&stop_all)) {
		struct timespec left;
		struct slot *s = &slots[n % WORKERS][n % PER];
		if (lc_timer_remaining(&s->t, &left) == 0 &&
		    lc__ts_to_ns(&left) > 10 * MS)
			atomic_fetch_add(&n_early, 1000000); /* 2 ms at most */
		(void)lc_loop_count(loop);
		n++;
	}
	return NULL;
}

static void *loop_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)lc_loop_run(loop, LC_RUN_DEFAULT);
}

static void keepalive_cb(lc_timer *t, int status, void *data)
{
	(void)t;
	(void)status;
	(void)data;
}

static void test_arm_cancel_from_threads(void)
{
	pthread_t lt, wt[WORKERS], qt;
	lc_timer keep;
	void *rv;
	lc_clock_id ids[3] = {LC_CLOCK_MONOTONIC, LC_CLOCK_REALTIME,
	                      LC_CLOCK_TAI};
	struct timespec ts;

	LC_EQ_INT(lc_counter_new_system(&cnt, CLOCK_MONOTONIC), 0);
	LC_EQ_INT(lc_tk_new(&tk, cnt, NULL), 0);
	LC_EQ_INT(lc_loop_new(&loop, tk, 0), 0);
	if (lc_loop_fd(loop) < 0) {
		LC_SKIP("test_arm_cancel_from_threads", "no timerfd here");
		return;
	}
	for (int w = 0; w < WORKERS; w++)
		for (int i = 0; i < PER; i++) {
			slots[w][i].clock = ids[i % 3];
			lc_timer_init(loop, &slots[w][i].t, ids[i % 3], cb,
			              &slots[w][i]);
		}
	lc_timer_init(loop, &keep, LC_CLOCK_MONOTONIC, keepalive_cb, NULL);
	lc_timer_start_ns(&keep, 0, 3600 * NS, 0);
	LC_EQ_INT(pthread_create(&lt, NULL, loop_thread, NULL), 0);
	for (int w = 0; w < WORKERS; w++)
		pthread_create(&wt[w], NULL, worker, (void *)(intptr_t)w);
	pthread_create(&qt, NULL, querier, NULL);
	ts.tv_sec = (time_t)run_seconds;
	ts.tv_nsec = (long)((run_seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	atomic_store(&stop_all, 1);
	for (int w = 0; w < WORKERS; w++)
		pthread_join(wt[w], NULL);
	pthread_join(qt, NULL);
	/* let what is armed fire, then stop the loop */
	ts.tv_sec = 0;
	ts.tv_nsec = 50 * MS;
	nanosleep(&ts, NULL);
	lc_loop_stop(loop);
	pthread_join(lt, &rv);
	LC_GE_I64((int64_t)(intptr_t)rv, 0);
	printf("# armed %ld, fired %ld, cancelled %ld, max lateness %" PRId64
	       " ns\n",
	       atomic_load(&n_armed), atomic_load(&n_fired),
	       atomic_load(&n_cancelled), atomic_load(&max_late));
	LC_EQ_I64(atomic_load(&n_early), 0);
	LC_EQ_I64(atomic_load(&n_bad_after_cancel), 0);
	LC_EQ_I64(atomic_load(&n_fired) + atomic_load(&n_cancelled),
	          atomic_load(&n_armed));
	LC_GT_I64(atomic_load(&n_fired), 100);
	LC_GT_I64(atomic_load(&n_cancelled), 10);
	/* generous: sanitizers and a loaded 2-core machine */
	LC_LT_I64(atomic_load(&max_late), 500 * MS);
	for (int w = 0; w < WORKERS; w++)
		for (int i = 0; i < PER; i++)
			LC_FALSE(lc_timer_active(&slots[w][i].t));
	LC_EQ_INT(lc_timer_stop(&keep), 1);
	LC_EQ_U64(lc_loop_count(loop), 0);
	lc_loop_free(loop);
	lc_tk_free(tk);
	lc_counter_free(cnt);
}

/* ---- the switch-over ---------------------------------------------------- */

#define SW_OWN 48
#define SW_OTHER 16
#define SW_ROUNDS 40

struct sw_slot {
	lc_timer t;
	atomic_int fired; /* callbacks, counted by the loop's thread */
};

static struct sw_slot sw_own[SW_OWN], sw_other[SW_OTHER];
static lc_loop *sw_loop;
static atomic_int sw_go;
static atomic_long sw_other_armed, sw_other_cancelled;
static unsigned sw_delay;

static void sw_cb(lc_timer *t, int status, void *data)
{
	struct sw_slot *s = data;

	(void)t;
	(void)status;
	atomic_fetch_add(&s->fired, 1);
}

static void *sw_other_thread(void *arg)
{
	uint64_t rng = (uint64_t)(uintptr_t)arg * 2654435761u + 1;
	volatile unsigned spin = 0;

	while (!atomic_load(&sw_go))
		;
	for (unsigned i = 0; i < sw_delay; i++)
		spin++;
	for (int r = 0; r < SW_ROUNDS; r++) {
		int64_t now = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
		for (int i = 0; i < SW_OTHER; i++) {
			struct sw_slot *s = &sw_other[i];
			int due = (int)(xs(&rng) % 2);
			/* re-arming drops an undelivered expiry: stop first,
			 * so that each arming ends exactly once */
			if (lc_timer_stop(&s->t) == 1)
				atomic_fetch_add(&sw_other_cancelled, 1);
			atomic_fetch_add(&sw_other_armed, 1);
			lc_timer_start_ns(&s->t, LC_TIMER_ABSTIME,
			                  due ? now - 1 : now + 3600 * NS, 0);
		}
		(void)lc_loop_count(sw_loop);
	}
	return NULL;
}

/* One loop: the owner runs SW_ROUNDS rounds while the other thread joins
 * after sw_delay spins. Returns the number of failed checks. */
static int sw_one(int with_other, uint64_t seed)
{
	pthread_t th;
	long own_armed_due = 0, bad = 0, other_fired = 0;

	if (lc_loop_new(&sw_loop, tk, 0) != 0)
		return 1;
	/* every other loop takes the path for kernels without membarrier:
	 * the owner's store of busy is an atomic exchange */
	if (seed & 2)
		atomic_store(&sw_loop->mode, LC__LOOP_OWNER_XCHG);
	for (int i = 0; i < SW_OWN; i++) {
		lc_timer_init(sw_loop, &sw_own[i].t, LC_CLOCK_MONOTONIC, sw_cb,
		              &sw_own[i]);
		atomic_store(&sw_own[i].fired, 0);
	}
	for (int i = 0; i < SW_OTHER; i++) {
		lc_timer_init(sw_loop, &sw_other[i].t, LC_CLOCK_MONOTONIC, sw_cb,
		              &sw_other[i]);
		atomic_store(&sw_other[i].fired, 0);
	}
	atomic_store(&sw_go, 0);
	atomic_store(&sw_other_armed, 0);
	atomic_store(&sw_other_cancelled, 0);
	if (with_other &&
	    pthread_create(&th, NULL, sw_other_thread, (void *)(uintptr_t)seed))
		return 1;
	atomic_store(&sw_go, 1);
	for (int r = 0; r < SW_ROUNDS; r++) {
		int64_t now = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
		/* even slots due now, odd ones in an hour */
		for (int i = 0; i < SW_OWN; i++)
			lc_timer_start_ns(&sw_own[i].t, LC_TIMER_ABSTIME,
			                  i % 2 ? now + 3600 * NS : now - 1, 0);
		own_armed_due += SW_OWN / 2;
		lc_loop_expire(sw_loop);
		for (int i = 1; i < SW_OWN; i += 2)
			bad += lc_timer_stop(&sw_own[i].t) != 1;
		for (int i = 0; i < SW_OWN; i += 2)
			bad += lc_timer_active(&sw_own[i].t) != 0;
	}
	if (with_other)
		pthread_join(th, NULL);
	for (int i = 0; i < SW_OTHER; i++)
		if (lc_timer_stop(&sw_other[i].t) == 1)
			atomic_fetch_add(&sw_other_cancelled, 1);
	lc_loop_expire(sw_loop);
	for (int i = 0; i < SW_OWN; i++)
		bad += atomic_load(&sw_own[i].fired) !=
		       (i % 2 ? 0 : SW_ROUNDS);
	for (int i = 0; i < SW_OTHER; i++)
		other_fired += atomic_load(&sw_other[i].fired);
	bad += other_fired + atomic_load(&sw_other_cancelled) !=
	       atomic_load(&sw_other_armed);
	bad += lc_loop_count(sw_loop) != 0;
	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		bad += lc__heap_check(&sw_loop->q.base[c]) != 0;
	/* switched exactly when another thread used the loop */
	bad += (atomic_load(&sw_loop->mode) == LC__LOOP_SHARED) != with_other;
	bad += atomic_load(&sw_loop->busy) != 0;
	if (bad)
		printf("  loop with_other=%d delay=%u: %ld failed checks "
		       "(other armed %ld fired %ld cancelled %ld)\n",
		       with_other, sw_delay, bad, atomic_load(&sw_other_armed),
		       other_fired, atomic_load(&sw_other_cancelled));
	(void)own_armed_due;
	lc_loop_free(sw_loop);
	return (int)bad;
}

static void test_owner_switch_over(void)
{
	int loops = getenv("LC_SANITIZED") ? 100 : 400, failed = 0;
	uint64_t rng = lc_test_seed() | 1;

	LC_EQ_INT(lc_counter_new_system(&cnt, CLOCK_MONOTONIC), 0);
	LC_EQ_INT(lc_tk_new(&tk, cnt, NULL), 0);
	failed += sw_one(0, 1);
	for (int k = 0; k < loops; k++) {
		/* from before the owner's first call to well into its run */
		sw_delay = (unsigned)(xs(&rng) % 200000);
		failed += sw_one(1, xs(&rng));
	}
	printf("# %d loops switched over at random moments (about half "
	       "without membarrier), 1 kept by its owner\n", loops);
	LC_EQ_INT(failed, 0);
	lc_tk_free(tk);
	lc_counter_free(cnt);
}

int main(int argc, char **argv)
{
	const char *san = getenv("LC_SANITIZED");

	lc_test_init(argc, argv);
	if (san != NULL && strcmp(san, "1") == 0)
		run_seconds = 0.5;
	LC_RUN(test_arm_cancel_from_threads,
	       "3 threads arm/cancel on a running timerfd loop: each arming ends once, never early");
	LC_RUN(test_owner_switch_over,
	       "a second thread joins an owner-only loop at a random moment: results kept, heaps sound, one-way switch");
	return lc_test_done();
}
