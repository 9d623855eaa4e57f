/*
 * loop.c - the loop: a timer queue (timer.c) behind a lock, the public
 * timer and loop API, and the drivers that run it: the next MONOTONIC
 * deadline for callers with their own poll/epoll, a discrete-event driver
 * for simulated counters, and a real driver on one Linux timerfd. timer.c
 * knows nothing of this file: a start tells it whether the queue's earliest
 * instant may have moved earlier, and the loop decides whether to wake.
 *
 * The MONOTONIC instant of a base's head is lc__tk_mono_at() of its deadline
 * on its clock. It changes only when that clock is set or a leap is armed,
 * cancelled or applied (for MONOTONIC_RAW also when the frequency changes),
 * so each base caches it against (head key, lc_clock_was_set_seq(), the
 * timekeeper's next leap) and a step re-evaluates only the heads whose
 * cached instant it invalidates: MONOTONIC and BOOTTIME bases never convert
 * anything, MONOTONIC_RAW always does (a frequency change moves it). Whatever
 * the conversion says, lc__tq_expire() fires a timer only when its own
 * clock reads at or past its deadline; a head found not due after its
 * converted instant has passed counts as a guard re-arm (next_after()).
 */
#include "counter.h"
#include "loop.h"
#include "timekeeper.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SAME_INSTANT_MAX 1000

#ifdef __linux__
#include <linux/membarrier.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>
#define LC_HAVE_TIMERFD 1
#if defined(SYS_membarrier)
#define LC_HAVE_MEMBARRIER 1
#endif
#endif

/* ------------------------------------------------------------------------ */
/* The lock                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * A loop (unless LC_LOOP_UNLOCKED) may be used from any thread, but most
 * are used only by the thread that created them, and a mutex taken and
 * released on every start and stop (two atomic read-modify-writes) costs
 * that thread about as much as the queue itself. So the owner, the
 * creating thread, goes without the mutex until another thread first takes
 * the lock; from then on everyone takes the mutex (one way: `shared` never
 * returns to 0).
 *
 * The switch is Dekker's handshake. The owner stores busy = 1, then loads
 * `shared`; the first other thread, holding the mutex, stores shared = 1,
 * then loads `busy` until it reads 0. With each store ordered before its
 * load, one of them sees the other's store: either the owner sees `shared`
 * and leaves for the mutex, or the other thread sees `busy` and waits for
 * the owner's release store of busy = 0, which its acquire load
 * synchronises with (the owner's work happens before its own). Store-then-
 * load needs a full fence (x86's store buffer reorders exactly that), and
 * the owner would pay for it on every call. Where Linux has
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) the owner only keeps the
 * compiler from reordering the two (a signal fence), and the other thread,
 * once, makes the kernel run a full barrier on every running thread of
 * the process (a thread not running has passed one in its context switch):
 * the asymmetric fence of userspace RCU. If the owner's load came before
 * that barrier, so did its store, which the other thread then sees; if
 * after, the load sees `shared`. Without membarrier the owner's store is an
 * atomic exchange, a full barrier itself.
 *
 * lc_loop.mode says which (LC__LOOP_*, loop.h), read once per call.
 * loop_lock() returns how it entered, for loop_unlock(): the mode may
 * change while the owner is inside (it then leaves with busy = 0 and comes
 * back through the mutex).
 */
enum { HELD_NONE, HELD_OWNER, HELD_MUTEX };

/* The calling thread, as the loop records its owner: the thread pointer
 * (one instruction) where the compiler gives it; glibc's pthread_self() is
 * that same pointer, through a call. */
#ifdef LC__THREAD_POINTER
static inline lc__thread_id self_id(void)
{
	return __builtin_thread_pointer();
}
static inline int same_thread(lc__thread_id a, lc__thread_id b)
{
	return a == b;
}
#else
static inline lc__thread_id self_id(void)
{
	return pthread_self();
}
static inline int same_thread(lc__thread_id a, lc__thread_id b)
{
	return pthread_equal(a, b);
}
#endif

#ifdef LC_HAVE_MEMBARRIER
/* 1: registered for MEMBARRIER_CMD_PRIVATE_EXPEDITED, -1: not available */
static atomic_int membarrier_state;

static int membarrier_ready(void)
{
	int s = atomic_load_explicit(&membarrier_state, memory_order_acquire);

	if (s == 0) {
		s = syscall(SYS_membarrier,
		            MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0
		            ? 1
		            : -1;
		atomic_store_explicit(&membarrier_state, s,
		                      memory_order_release);
	}
	return s > 0;
}
#else
static int membarrier_ready(void)
{
	return 0;
}
#endif

/* The first thread other than the owner, mutex held: the switch. */
static void go_shared(struct lc_loop *l, int mode)
{
	atomic_store_explicit(&l->mode, LC__LOOP_SHARED, memory_order_seq_cst);
#ifdef LC_HAVE_MEMBARRIER
	/* cannot fail once the process is registered (membarrier(2)); the
	 * registration is kept across fork */
	if (mode == LC__LOOP_OWNER)
		(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
		              0, 0);
#else
	(void)mode;
#endif
	while (atomic_load_explicit(&l->busy, memory_order_seq_cst))
		sched_yield(); /* the owner is inside: wait for it to leave */
}

static int loop_lock_slow(struct lc_loop *l)
{
	int mode;

	pthread_mutex_lock(&l->lock);
	mode = atomic_load_explicit(&l->mode, memory_order_relaxed);
	if (mode != LC__LOOP_SHARED)
		go_shared(l, mode);
	return HELD_MUTEX;
}

static inline int loop_lock(struct lc_loop *l)
{
	int mode = atomic_load_explicit(&l->mode, memory_order_relaxed);

	if (mode == LC__LOOP_UNLOCKED)
		return HELD_NONE;
	if (lc__likely(mode != LC__LOOP_SHARED) &&
	    same_thread(self_id(), l->owner)) {
		if (lc__likely(mode == LC__LOOP_OWNER)) {
			atomic_store_explicit(&l->busy, 1, memory_order_relaxed);
			atomic_signal_fence(memory_order_seq_cst);
		} else {
			(void)atomic_exchange_explicit(&l->busy, 1,
			                               memory_order_seq_cst);
		}
		if (lc__likely(atomic_load_explicit(&l->mode,
		                                    memory_order_seq_cst) !=
		               LC__LOOP_SHARED))
			return HELD_OWNER;
		atomic_store_explicit(&l->busy, 0, memory_order_release);
	}
	return loop_lock_slow(l);
}

static inline void loop_unlock(struct lc_loop *l, int held)
{
	if (held == HELD_OWNER)
		atomic_store_explicit(&l->busy, 0, memory_order_release);
	else if (held == HELD_MUTEX)
		pthread_mutex_unlock(&l->lock);
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                  */
/* ------------------------------------------------------------------------ */

int lc_loop_new(lc_loop **out, lc_timekeeper *tk, unsigned int flags)
{
	struct lc_loop *l;

	if (out == NULL || tk == NULL || (flags & ~LC_LOOP_UNLOCKED))
		return LC_EINVAL;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return LC_ENOMEM;
	if (!(flags & LC_LOOP_UNLOCKED) &&
	    pthread_mutex_init(&l->lock, NULL) != 0) {
		free(l);
		return LC_ENOMEM;
	}
	lc__tq_init(&l->q, tk);
	l->owner = self_id();
	atomic_init(&l->busy, 0);
	if (flags & LC_LOOP_UNLOCKED)
		atomic_init(&l->mode, LC__LOOP_UNLOCKED);
	else
		atomic_init(&l->mode, membarrier_ready() ? LC__LOOP_OWNER
		                                         : LC__LOOP_OWNER_XCHG);
	l->tfd = -1;
	l->tfd_armed = INT64_MIN;
	l->hfd = -1;
	l->watch_ms = -1;
#ifdef LC_HAVE_TIMERFD
	if (lc_counter_kind(lc_tk_counter(tk)) != LC_COUNTER_SIM)
		l->tfd = lc__host.timerfd_create(CLOCK_MONOTONIC,
		                                 TFD_CLOEXEC | TFD_NONBLOCK);
#endif
	*out = l;
	return 0;
}

void lc_loop_free(lc_loop *loop)
{
	if (loop == NULL)
		return;
	lc__tq_free(&loop->q);
#ifdef LC_HAVE_TIMERFD
	if (loop->tfd >= 0)
		close(loop->tfd);
	if (loop->hfd >= 0)
		close(loop->hfd);
#endif
	if (atomic_load(&loop->mode) != LC__LOOP_UNLOCKED)
		pthread_mutex_destroy(&loop->lock);
	free(loop);
}

lc_timekeeper *lc_loop_timekeeper(const lc_loop *loop)
{
	if (loop == NULL)
		return NULL;
	return loop->q.tk;
}

int lc_loop_reserve(lc_loop *loop, lc_clock_id id, size_t n)
{
	int r, held;

	if (loop == NULL || (int)id < 0 || id >= LC_CLOCK_COUNT)
		return LC_EINVAL;
	held = loop_lock(loop);
	r = lc__heap_reserve(&loop->q.base[id], n);
	loop_unlock(loop, held);
	return r;
}

size_t lc_loop_count(lc_loop *loop)
{
	if (loop == NULL)
		return 0;
	size_t n;
	int held = loop_lock(loop);

	n = lc__tq_count(&loop->q);
	loop_unlock(loop, held);
	return n;
}

/* ------------------------------------------------------------------------ */
/* Next deadline                                                             */
/* ------------------------------------------------------------------------ */

static int64_t head_mono(struct lc_loop *l, int c, int64_t key, uint64_t seq,
                         int64_t leap_when, int leap_dir)
{
	struct lc__base_cache *ca = &l->cache[c];
	struct timespec ts;
	int64_t mono;

	if (c == LC_CLOCK_MONOTONIC)
		return key;
	if (c != LC_CLOCK_MONOTONIC_RAW && ca->valid && ca->key == key &&
	    ca->set_seq == seq && ca->leap_when == leap_when &&
	    ca->leap_dir == leap_dir)
		return ca->mono;
	ts = lc__key_to_ts(c, key);
	if (key == INT64_MAX || lc__tk_mono_at(l->q.tk, (lc_clock_id)c, &ts,
	                                       &mono) < 0)
		mono = INT64_MAX;
	ca->key = key;
	ca->mono = mono;
	ca->set_seq = seq;
	ca->leap_when = leap_when;
	ca->leap_dir = leap_dir;
	ca->valid = 1;
	return mono;
}

/* The next MONOTONIC deadline, lock held. */
static int64_t next_deadline(struct lc_loop *l)
{
	int64_t best = INT64_MAX, leap_when = 0, cos;
	uint64_t seq = 0;
	int leap_dir = 0, have_other = 0;

	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		if (c != LC_CLOCK_MONOTONIC && lc__heap_count(&l->q.base[c]))
			have_other = 1;
	if (have_other || l->q.ncos) {
		seq = lc_clock_was_set_seq(l->q.tk);
		if (lc_tk_next_leap(l->q.tk, &leap_when, &leap_dir) < 0)
			leap_when = 0, leap_dir = 0;
	}
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct lc__timer *t = lc__heap_top(&l->q.base[c]);
		int64_t m;

		if (t == NULL)
			continue;
		m = head_mono(l, c, t->key, seq, leap_when, leap_dir);
		if (m < best)
			best = m;
	}
	cos = lc__tq_cos_mono(&l->q);
	return cos < best ? cos : best;
}

/*
 * After an expiry pass at MONOTONIC `now`: the next instant worth waking at.
 * A head whose converted instant is not after `now` was just found not due
 * by its own clock. That happens legitimately for a REALTIME deadline inside
 * a repeated 23:59:59 armed during the repeat (lc__tk_mono_at() names the
 * first pass, already gone), and would happen after any wrong conversion.
 * Such a head gets the instant at which its clock would reach the deadline
 * running at the MONOTONIC rate from its reading now (exact within a
 * repeated second; from below for a slower clock, so never early and
 * converging; the guard decides in every case), and the base's cache keeps
 * it until the head, the clock-was-set sequence or the leap changes.
 */
static int64_t next_after(struct lc_loop *l, int64_t now)
{
	int64_t d = next_deadline(l), cos;

	if (d > now)
		return d;
	l->guard_rearms++;
	d = INT64_MAX;
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct lc__timer *t = lc__heap_top(&l->q.base[c]);
		int64_t m, rem;

		if (t == NULL)
			continue;
		if (c == LC_CLOCK_MONOTONIC)
			m = t->key;
		else if (l->cache[c].valid && l->cache[c].key == t->key)
			m = l->cache[c].mono;
		else
			m = now;
		if (m <= now) {
			/* due by its clock (armed by a callback after the
			 * pass, say): now */
			rem = lc__key_remaining(l->q.tk, c, t->key);
			m = rem > 0 ? lc__sat_add(now, rem) : now;
			if (c != LC_CLOCK_MONOTONIC) {
				l->cache[c].key = t->key;
				l->cache[c].mono = m;
			}
		}
		if (m < d)
			d = m;
	}
	cos = lc__tq_cos_mono(&l->q);
	if (cos > now && cos < d)
		d = cos;
	return d;
}

/* ------------------------------------------------------------------------ */
/* The timerfd                                                               */
/* ------------------------------------------------------------------------ */

#ifdef LC_HAVE_TIMERFD
static int64_t host_mono(void)
{
	struct timespec ts;
	lc__host.clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

/*
 * Arms the timerfd for leapclock MONOTONIC instant `d`. When the counter is
 * the host's CLOCK_MONOTONIC itself (a 1 GHz system counter), the counter
 * value at which leapclock's MONOTONIC reaches d (lc__tk_cycles_at, rate
 * included) is the host deadline, exactly. Otherwise the two clocks differ
 * by an offset (and, with a TSC counter, by a small rate): read host h1,
 * leapclock m, host h2; m was taken in [h1, h2], so `d` is at most
 * h2 + (d - m) on the host clock at the same rate. Using h2 errs late by at
 * most h2 - h1; a rate difference that makes the wake early is caught by the
 * expiry guard, which re-arms.
 */
static void tfd_arm(struct lc_loop *l, int64_t d)
{
	struct itimerspec its;
	uint64_t cyc;
	int64_t h, m, rel;

	if (l->tfd < 0)
		return;
	memset(&its, 0, sizeof(its));
	if (d == INT64_MAX) {
		l->tfd_armed = d;
		lc__host.timerfd_settime(l->tfd, 0, &its, NULL); /* disarm */
		return;
	}
	if (lc__counter_is_host_mono(lc_tk_counter(l->q.tk)) &&
	    lc__tk_cycles_at(l->q.tk, d, &cyc) == 0 &&
	    cyc <= (uint64_t)INT64_MAX) {
		h = (int64_t)cyc;
	} else {
		(void)host_mono();
		m = lc_now_ns(l->q.tk, LC_CLOCK_MONOTONIC);
		h = host_mono();
		if (__builtin_sub_overflow(d, m, &rel))
			rel = d > m ? INT64_MAX / 2 : 0;
		h = lc__sat_add(h, rel > 0 ? rel : 0);
	}
	if (h <= 0)
		h = 1;
	its.it_value = lc__ns_to_ts(h);
	l->tfd_armed = d;
	lc__host.timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}
#else
static void tfd_arm(struct lc_loop *l, int64_t d)
{
	(void)l;
	(void)d;
}
#endif

/* Wakes a loop blocked in lc_loop_run, lock held. */
static void kick(struct lc_loop *l)
{
#ifdef LC_HAVE_TIMERFD
	if (l->sleeping && l->tfd >= 0) {
		struct itimerspec its;
		memset(&its, 0, sizeof(its));
		its.it_value.tv_nsec = 1; /* relative: now */
		l->tfd_armed = INT64_MIN;
		lc__host.timerfd_settime(l->tfd, 0, &its, NULL);
	}
#else
	(void)l;
#endif
}

/* ------------------------------------------------------------------------ */
/* The timer API                                                             */
/* ------------------------------------------------------------------------ */

static inline struct lc__timer *priv(lc_timer *t)
{
	return (struct lc__timer *)(void *)t;
}

static inline const struct lc__timer *cpriv(const lc_timer *t)
{
	return (const struct lc__timer *)(const void *)t;
}

static inline struct lc_loop *loop_of(const struct lc__timer *t)
{
	return (struct lc_loop *)(void *)((char *)t->q -
	                                  offsetof(struct lc_loop, q));
}

int lc_timer_init(lc_loop *loop, lc_timer *t, lc_clock_id id, lc_timer_cb cb,
                  void *data)
{
	if (loop == NULL || t == NULL || cb == NULL || (int)id < 0 ||
	    id >= LC_CLOCK_COUNT)
		return LC_EINVAL;
	lc__timer_setup(priv(t), &loop->q, (int)id, cb, data);
	return 0;
}

static inline int start(struct lc__timer *p, const struct lc__arm *a)
{
	struct lc_loop *l = loop_of(p);
	int held = loop_lock(l), r;

	r = lc__tq_start(&l->q, p, a);
	if (r > 0 && l->sleeping)
		kick(l);
	loop_unlock(l, held);
	return r < 0 ? r : 0;
}

int lc_timer_start(lc_timer *t, int flags, const struct timespec *value,
                   const struct timespec *interval)
{
	struct lc__arm a;

	if (t == NULL || priv(t)->q == NULL ||
	    lc__arm_ts(priv(t), flags, value, interval, &a) < 0)
		return LC_EINVAL;
	return start(priv(t), &a);
}

int lc_timer_start_ns(lc_timer *t, int flags, int64_t value_ns,
                      int64_t interval_ns)
{
	struct lc__arm a;

	if (t == NULL || priv(t)->q == NULL ||
	    lc__arm_ns(priv(t), flags, value_ns, interval_ns, &a) < 0)
		return LC_EINVAL;
	return start(priv(t), &a);
}

int lc_timer_stop(lc_timer *t)
{
	struct lc__timer *p;
	struct lc_loop *l;
	int held, was;

	if (t == NULL || (p = priv(t))->q == NULL)
		return 0;
	l = loop_of(p);
	held = loop_lock(l);
	was = lc__tq_stop(&l->q, p);
	loop_unlock(l, held);
	return was;
}

int lc_timer_active(lc_timer *t)
{
	if (t == NULL)
		return 0;
	struct lc__timer *p = priv(t);
	struct lc_loop *l;
	int held, r;

	if (p->q == NULL)
		return 0;
	l = loop_of(p);
	held = loop_lock(l);
	r = lc__timer_armed(p);
	loop_unlock(l, held);
	return r;
}

int lc_timer_remaining(lc_timer *t, struct timespec *left)
{
	if (t == NULL)
		return LC_EINVAL;
	struct lc__timer *p = priv(t);
	struct lc_loop *l;
	int64_t key, diff;
	int held, armed;

	if (p->q == NULL || left == NULL)
		return LC_EINVAL;
	l = loop_of(p);
	held = loop_lock(l);
	armed = lc__timer_armed(p);
	key = p->key;
	loop_unlock(l, held);
	if (!armed)
		return LC_ENOENT;
	diff = lc__key_remaining(l->q.tk, (int)p->clock, key);
	if (diff < 0)
		diff = 0;
	*left = lc__ns_to_ts(diff);
	return 0;
}

int lc_timer_deadline(lc_timer *t, struct timespec *deadline)
{
	if (t == NULL)
		return LC_EINVAL;
	struct lc__timer *p = priv(t);
	struct lc_loop *l;
	int held, r = 0;

	if (p->q == NULL || deadline == NULL)
		return LC_EINVAL;
	l = loop_of(p);
	held = loop_lock(l);
	if (!lc__timer_armed(p))
		r = LC_ENOENT;
	else
		*deadline = lc__key_to_ts((int)p->clock, p->key);
	loop_unlock(l, held);
	return r;
}

int64_t lc_timer_overrun(lc_timer *t)
{
	if (t == NULL)
		return 0;
	return priv(t)->overrun;
}

void *lc_timer_data(const lc_timer *t)
{
	if (t == NULL)
		return NULL;
	return cpriv(t)->data;
}

lc_clock_id lc_timer_clock(const lc_timer *t)
{
	if (t == NULL)
		return LC_CLOCK_COUNT;
	return (lc_clock_id)cpriv(t)->clock;
}

/* ------------------------------------------------------------------------ */
/* Public drivers                                                            */
/* ------------------------------------------------------------------------ */

/* Runs the ready list, dropping the lock around each callback (*held is
 * how it is held, which may change meanwhile); stops early on
 * lc_loop_stop() if `honour_stop`. */
static int run_ready(struct lc_loop *l, int *held, int honour_stop)
{
	struct lc__timer *t;
	int n = 0, status;

	while (!(honour_stop && l->stop) &&
	       (t = lc__tq_pop_ready(&l->q, &status)) != NULL) {
		lc_timer_cb cb = t->cb;
		void *data = t->data;

		n++;
		loop_unlock(l, *held);
		cb((lc_timer *)(void *)t, status, data);
		*held = loop_lock(l);
	}
	return n;
}

int64_t lc_loop_next_deadline(lc_loop *loop)
{
	if (loop == NULL)
		return INT64_MAX;
	int64_t d;
	int held = loop_lock(loop);

	d = next_deadline(loop);
	if (loop->tfd >= 0 && d != loop->tfd_armed)
		tfd_arm(loop, d);
	loop_unlock(loop, held);
	return d;
}

int lc_loop_expire(lc_loop *loop)
{
	if (loop == NULL)
		return 0;
	int n, held = loop_lock(loop);

	lc__tq_expire(&loop->q);
	n = run_ready(loop, &held, 0);
	if (loop->tfd >= 0 && !loop->sleeping) {
		int64_t d = next_deadline(loop);
		if (d != loop->tfd_armed)
			tfd_arm(loop, d);
	}
	loop_unlock(loop, held);
	return n;
}

/* Moves a simulated counter so that MONOTONIC reads `mono` (never back). */
static void sim_jump(struct lc_loop *l, lc_counter *c, int64_t mono)
{
	uint64_t cyc;

	if (lc__tk_cycles_at(l->q.tk, mono, &cyc) < 0)
		return;
	lc_sim_set_true_ns(c, lc_sim_true_ns_at(c, cyc));
}

int64_t lc_loop_run_sim(lc_loop *loop, int64_t until_mono)
{
	if (loop == NULL)
		return LC_EINVAL;
	lc_counter *c = lc_tk_counter(loop->q.tk);
	int64_t n = 0;
	int same = 0, held;

	if (lc_counter_kind(c) != LC_COUNTER_SIM)
		return LC_ENOTSUP;
	held = loop_lock(loop);
	for (;;) {
		int64_t now, d;

		lc__tq_expire(&loop->q);
		n += run_ready(loop, &held, 0);
		now = lc_now_ns(loop->q.tk, LC_CLOCK_MONOTONIC);
		d = next_after(loop, now);
		/* Armed due by a callback: another pass at this instant, at
		 * until_mono too (a run leaves nothing due behind it, so a
		 * step the caller makes next cannot move a timer that was
		 * already due). Time moves on (or the run returns) after
		 * SAME_INSTANT_MAX passes so that a timer re-arming itself
		 * for "now" cannot stop the simulation. */
		if (d <= now && ++same < SAME_INSTANT_MAX)
			continue;
		if (now >= until_mono)
			break;
		if (d <= now)
			d = now + 1;
		same = 0;
		if (d >= until_mono) {
			sim_jump(loop, c, until_mono);
			/* timers due exactly at until_mono fire in this run */
			if (d > until_mono)
				break;
			continue;
		}
		sim_jump(loop, c, d);
		if (lc_now_ns(loop->q.tk, LC_CLOCK_MONOTONIC) <= now)
			sim_jump(loop, c, now + 1); /* make progress */
	}
	loop_unlock(loop, held);
	return n;
}

#ifdef LC_HAVE_TIMERFD
/* The host-step watch (issue 28 item 2). A loop sleeps on a MONOTONIC
 * timerfd armed for its earliest deadline as converted then; when the
 * host's REALTIME is stepped, the timekeeper follows the step only at its
 * next update, and the loop learnt of it only when it next woke (at the
 * old deadline: CANCEL_ON_SET timers were cancelled up to a second late,
 * after the leap in the test VM). So a loop on a timekeeper that follows
 * the host also waits on a REALTIME TFD_TIMER_CANCEL_ON_SET timerfd of
 * its own: when the kernel cancels it, the loop runs lc_update() at once
 * (an in-process writer follows the step there; a page reader checks its
 * page) and then expires: CANCEL_ON_SET timers get LC_ECANCELED and every
 * deadline is converted again. A page's writer follows the step in its
 * own time, so until the timekeeper's clock-was-set sequence moves the
 * loop looks again after 1, 2, 4 .. 256 ms. Returns the fd, or -1. */
#define WATCH_FIRST_MS 1
#define WATCH_LAST_MS 256

static int host_watch_fd(struct lc_loop *l)
{
	struct itimerspec far;
	struct lc_tk_host h;

	/* The kernel's own timerfd (the system call, not an interposed
	 * timerfd_create that the preload shim would run on leapclock's
	 * REALTIME), as hostclock.c does. */
	if (l->hfd == -1) {
		l->hfd = -2;
		if (lc_tk_host_status(l->q.tk, &h) == 0) {
#ifdef SYS_timerfd_create
			int fd = (int)syscall(SYS_timerfd_create, CLOCK_REALTIME,
			                      TFD_CLOEXEC | TFD_NONBLOCK);
#else
			int fd = timerfd_create(CLOCK_REALTIME,
			                        TFD_CLOEXEC | TFD_NONBLOCK);
#endif

			if (fd >= 0)
				l->hfd = fd;
		}
	}
	if (l->hfd < 0)
		return -1;
	memset(&far, 0, sizeof(far));
	far.it_value.tv_sec = (time_t)INT32_MAX * 2;
	/* (ECANCELED: set since the last read, which poll shows) */
#if defined(SYS_timerfd_settime) && !defined(__ILP32__) && \
	(!defined(__SIZEOF_LONG__) || __SIZEOF_LONG__ == 8)
	(void)syscall(SYS_timerfd_settime, l->hfd,
	              TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL);
#else
	(void)timerfd_settime(l->hfd,
	                      TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far,
	                      NULL);
#endif
	return l->hfd;
}

/* After the loop woke: the host's clock was set (`set`), or a look of the
 * watch is due. Lock dropped. */
static void host_watch(struct lc_loop *l, int set)
{
	uint64_t seq;

	if (set) {
		l->watch_seq = lc_clock_was_set_seq(l->q.tk);
		l->watch_ms = WATCH_FIRST_MS;
	}
	lc_update(l->q.tk);
	seq = lc_clock_was_set_seq(l->q.tk);
	if (seq != l->watch_seq || l->watch_ms >= WATCH_LAST_MS)
		l->watch_ms = -1; /* followed (or not coming) */
	else if (!set)
		l->watch_ms *= 2;
}

/* Sleeps on the timerfd until instant d (or a kick, or a host step),
 * lock dropped. */
static void sleep_until(struct lc_loop *l, int64_t d, int *held)
{
	struct pollfd pfd[2];
	uint64_t ticks;
	int n = 1, rc, set = 0;

	tfd_arm(l, d);
	pfd[0].fd = l->tfd;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	pfd[1].fd = host_watch_fd(l);
	pfd[1].events = POLLIN;
	pfd[1].revents = 0;
	if (pfd[1].fd >= 0)
		n = 2;
	l->sleeping = 1;
	loop_unlock(l, *held);
	rc = poll(pfd, (nfds_t)n, l->watch_ms);
	if (rc > 0 && (pfd[0].revents & POLLIN) &&
	    read(l->tfd, &ticks, sizeof(ticks)) < 0)
		(void)errno; /* EAGAIN after a re-arm: go round */
	if (rc > 0 && n == 2 && (pfd[1].revents & POLLIN)) {
		/* ECANCELED: the host's clock was set */
		if (read(l->hfd, &ticks, sizeof(ticks)) < 0 &&
		    errno == ECANCELED)
			set = 1;
	}
	if (set || (rc == 0 && l->watch_ms >= 0))
		host_watch(l, set);
	*held = loop_lock(l);
	l->sleeping = 0;
}
#endif

int64_t lc_loop_run(lc_loop *loop, int mode)
{
	if (loop == NULL)
		return LC_EINVAL;
	int64_t n = 0;
	int held;

	if (mode < LC_RUN_DEFAULT || mode > LC_RUN_NOWAIT)
		return LC_EINVAL;
	if (lc_counter_kind(lc_tk_counter(loop->q.tk)) == LC_COUNTER_SIM)
		return LC_EINVAL;
#ifndef LC_HAVE_TIMERFD
	return LC_ENOTSUP;
#else
	if (loop->tfd < 0)
		return LC_ENOTSUP;
	held = loop_lock(loop);
	loop->stop = 0;
	for (;;) {
		lc__tq_expire(&loop->q);
		n += run_ready(loop, &held, 1);
		if (loop->stop || mode == LC_RUN_NOWAIT ||
		    (mode == LC_RUN_ONCE && n > 0))
			break;
		/* nothing armed: DEFAULT and ONCE return */
		if (lc__tq_idle(&loop->q))
			break;
		sleep_until(loop,
		            next_after(loop, lc_now_ns(loop->q.tk,
		                                       LC_CLOCK_MONOTONIC)),
		            &held);
	}
	loop->stop = 0;
	loop_unlock(loop, held);
	return n;
#endif
}

void lc_loop_stop(lc_loop *loop)
{
	if (loop == NULL)
		return;
	int held = loop_lock(loop);

	loop->stop = 1;
	kick(loop);
	loop_unlock(loop, held);
}

int lc_loop_fd(lc_loop *loop)
{
	if (loop == NULL)
		return -1;
	return loop->tfd;
}
