/*
 * loop.c - driving timers: the next MONOTONIC deadline for callers with
 * their own poll/epoll, a discrete-event driver for simulated counters, and
 * a real driver on one Linux timerfd.
 *
 * The MONOTONIC instant of a base's head is lc_tk_mono_at() of its deadline
 * on its clock. It changes only when that clock is set or a leap is armed,
 * cancelled or applied (for MONOTONIC_RAW also when the frequency changes),
 * so each base caches it against (head key, lc_clock_was_set_seq(), the
 * timekeeper's next leap) and a step re-evaluates only the heads whose
 * cached instant it invalidates: MONOTONIC and BOOTTIME bases never convert
 * anything, MONOTONIC_RAW always does (a frequency change moves it). Whatever
 * the conversion says, lc__expire_locked() fires a timer only when its own
 * clock reads at or past its deadline; a head found not due after its
 * converted instant has passed counts as a guard re-arm (next_after()).
 */
#include "timekeeper.h"
#include "timer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SAME_INSTANT_MAX 1000

#ifdef __linux__
#include <poll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#define LC_HAVE_TIMERFD 1
#endif

int lc_loop_new(lc_loop **out, lc_timekeeper *tk, unsigned int flags)
{
	struct lc_loop *l;

	if (out == NULL || tk == NULL || (flags & ~LC_LOOP_UNLOCKED))
		return LC_EINVAL;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return LC_ENOMEM;
	l->locked = !(flags & LC_LOOP_UNLOCKED);
	if (l->locked && pthread_mutex_init(&l->lock, NULL) != 0) {
		free(l);
		return LC_ENOMEM;
	}
	l->tk = tk;
	l->cos_leap_mono = INT64_MAX;
	l->bulk_min = LC__BULK_MIN;
	l->tfd = -1;
	l->tfd_armed = INT64_MIN;
#ifdef LC_HAVE_TIMERFD
	if (lc_counter_kind(lc_tk_counter(tk)) != LC_COUNTER_SIM)
		l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
#endif
	*out = l;
	return 0;
}

void lc_loop_free(lc_loop *loop)
{
	if (loop == NULL)
		return;
	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		lc__heap_free(&loop->base[c]);
#ifdef LC_HAVE_TIMERFD
	if (loop->tfd >= 0)
		close(loop->tfd);
#endif
	if (loop->locked)
		pthread_mutex_destroy(&loop->lock);
	free(loop);
}

lc_timekeeper *lc_loop_timekeeper(const lc_loop *loop)
{
	if (loop == NULL)
		return NULL;
	return loop->tk;
}

int lc_loop_reserve(lc_loop *loop, lc_clock_id id, size_t n)
{
	int r;

	if (loop == NULL || (int)id < 0 || id >= LC_CLOCK_COUNT)
		return LC_EINVAL;
	lc__loop_lock(loop);
	r = lc__heap_reserve(&loop->base[id], n);
	lc__loop_unlock(loop);
	return r;
}

size_t lc_loop_count(lc_loop *loop)
{
	if (loop == NULL)
		return 0;
	size_t n = 0;

	lc__loop_lock(loop);
	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		n += lc__heap_count(&loop->base[c]);
	lc__loop_unlock(loop);
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
	if (key == INT64_MAX || lc_tk_mono_at(l->tk, (lc_clock_id)c, &ts,
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

int64_t lc__next_deadline_locked(struct lc_loop *l)
{
	int64_t best = INT64_MAX, leap_when = 0;
	uint64_t seq = 0;
	int leap_dir = 0, have_other = 0;

	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		if (c != LC_CLOCK_MONOTONIC && lc__heap_count(&l->base[c]))
			have_other = 1;
	if (have_other || l->ncos) {
		seq = lc_clock_was_set_seq(l->tk);
		if (lc_tk_next_leap(l->tk, &leap_when, &leap_dir) < 0)
			leap_when = 0, leap_dir = 0;
	}
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct lc__timer *t = lc__heap_top(&l->base[c]);
		int64_t m;

		if (t == NULL)
			continue;
		m = head_mono(l, c, t->key, seq, leap_when, leap_dir);
		if (m < best)
			best = m;
	}
	if (l->ncos) {
		lc__cos_refresh_locked(l, 0);
		if (l->cos_leap_mono < best)
			best = l->cos_leap_mono;
	}
	return best;
}

/*
 * After an expiry pass at MONOTONIC `now`: the next instant worth waking at.
 * A head whose converted instant is not after `now` was just found not due
 * by its own clock. That happens legitimately for a REALTIME deadline inside
 * a repeated 23:59:59 armed during the repeat (lc_tk_mono_at() names the
 * first pass, already gone), and would happen after any wrong conversion.
 * Such a head gets the instant at which its clock would reach the deadline
 * running at the MONOTONIC rate from its reading now (exact within a
 * repeated second; from below for a slower clock, so never early and
 * converging; the guard decides in every case), and the base's cache keeps
 * it until the head, the clock-was-set sequence or the leap changes.
 */
static int64_t next_after(struct lc_loop *l, int64_t now)
{
	int64_t d = lc__next_deadline_locked(l);

	if (d > now)
		return d;
	l->guard_rearms++;
	d = INT64_MAX;
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct lc__timer *t = lc__heap_top(&l->base[c]);
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
			rem = lc__key_remaining(l->tk, c, t->key);
			m = rem > 0 ? lc__sat_add(now, rem) : now;
			if (c != LC_CLOCK_MONOTONIC) {
				l->cache[c].key = t->key;
				l->cache[c].mono = m;
			}
		}
		if (m < d)
			d = m;
	}
	if (l->ncos && l->cos_leap_mono > now && l->cos_leap_mono < d)
		d = l->cos_leap_mono;
	return d;
}

/* ------------------------------------------------------------------------ */
/* The timerfd                                                               */
/* ------------------------------------------------------------------------ */

#ifdef LC_HAVE_TIMERFD
static int64_t host_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

/*
 * Arms the timerfd for leapclock MONOTONIC instant `d`. When the counter is
 * the host's CLOCK_MONOTONIC itself (a 1 GHz system counter), the counter
 * value at which leapclock's MONOTONIC reaches d (lc_tk_cycles_at, rate
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
	const struct lc_counter *c;
	uint64_t cyc;
	int64_t h, m, rel;

	if (l->tfd < 0)
		return;
	memset(&its, 0, sizeof(its));
	if (d == INT64_MAX) {
		l->tfd_armed = d;
		timerfd_settime(l->tfd, 0, &its, NULL); /* disarm */
		return;
	}
	c = lc_tk_counter(l->tk);
	if (c->kind == LC_COUNTER_SYSTEM && c->clk == CLOCK_MONOTONIC &&
	    c->freq == 1000000000u && lc_tk_cycles_at(l->tk, d, &cyc) == 0 &&
	    cyc <= (uint64_t)INT64_MAX) {
		h = (int64_t)cyc;
	} else {
		(void)host_mono();
		m = lc_now_ns(l->tk, LC_CLOCK_MONOTONIC);
		h = host_mono();
		if (__builtin_sub_overflow(d, m, &rel))
			rel = d > m ? INT64_MAX / 2 : 0;
		h = lc__sat_add(h, rel > 0 ? rel : 0);
	}
	if (h <= 0)
		h = 1;
	its.it_value = lc__ns_to_ts(h);
	l->tfd_armed = d;
	timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}
#else
static void tfd_arm(struct lc_loop *l, int64_t d)
{
	(void)l;
	(void)d;
}
#endif

void lc__loop_kick_locked(struct lc_loop *l)
{
#ifdef LC_HAVE_TIMERFD
	if (l->sleeping && l->tfd >= 0) {
		struct itimerspec its;
		memset(&its, 0, sizeof(its));
		its.it_value.tv_nsec = 1; /* relative: now */
		l->tfd_armed = INT64_MIN;
		timerfd_settime(l->tfd, 0, &its, NULL);
	}
#else
	(void)l;
#endif
}

/* ------------------------------------------------------------------------ */
/* Public drivers                                                            */
/* ------------------------------------------------------------------------ */

int64_t lc_loop_next_deadline(lc_loop *loop)
{
	if (loop == NULL)
		return INT64_MAX;
	int64_t d;

	lc__loop_lock(loop);
	d = lc__next_deadline_locked(loop);
	if (loop->tfd >= 0 && d != loop->tfd_armed)
		tfd_arm(loop, d);
	lc__loop_unlock(loop);
	return d;
}

int lc_loop_expire(lc_loop *loop)
{
	if (loop == NULL)
		return 0;
	int n;

	lc__loop_lock(loop);
	lc__expire_locked(loop);
	n = lc__run_ready_locked(loop, 0);
	if (loop->tfd >= 0 && !loop->sleeping) {
		int64_t d = lc__next_deadline_locked(loop);
		if (d != loop->tfd_armed)
			tfd_arm(loop, d);
	}
	lc__loop_unlock(loop);
	return n;
}

/* Moves a simulated counter so that MONOTONIC reads `mono` (never back). */
static void sim_jump(struct lc_loop *l, lc_counter *c, int64_t mono)
{
	uint64_t cyc;

	if (lc_tk_cycles_at(l->tk, mono, &cyc) < 0)
		return;
	lc_sim_set_true_ns(c, lc_sim_true_ns_at(c, cyc));
}

int64_t lc_loop_run_sim(lc_loop *loop, int64_t until_mono)
{
	if (loop == NULL)
		return LC_EINVAL;
	lc_counter *c = lc_tk_counter(loop->tk);
	int64_t n = 0;
	int same = 0;

	if (lc_counter_kind(c) != LC_COUNTER_SIM)
		return LC_ENOTSUP;
	lc__loop_lock(loop);
	for (;;) {
		int64_t now, d;

		lc__expire_locked(loop);
		n += lc__run_ready_locked(loop, 0);
		now = lc_now_ns(loop->tk, LC_CLOCK_MONOTONIC);
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
		if (lc_now_ns(loop->tk, LC_CLOCK_MONOTONIC) <= now)
			sim_jump(loop, c, now + 1); /* make progress */
	}
	lc__loop_unlock(loop);
	return n;
}

int64_t lc_loop_run(lc_loop *loop, int mode)
{
	if (loop == NULL)
		return LC_EINVAL;
	int64_t n = 0;

	if (mode < LC_RUN_DEFAULT || mode > LC_RUN_NOWAIT)
		return LC_EINVAL;
	if (lc_counter_kind(lc_tk_counter(loop->tk)) == LC_COUNTER_SIM)
		return LC_EINVAL;
#ifndef LC_HAVE_TIMERFD
	return LC_ENOTSUP;
#else
	if (loop->tfd < 0)
		return LC_ENOTSUP;
	lc__loop_lock(loop);
	loop->stop = 0;
	for (;;) {
		int64_t now, d;
		uint64_t ticks;
		struct pollfd pfd;
		int armed;

		lc__expire_locked(loop);
		n += lc__run_ready_locked(loop, 1);
		if (loop->stop || mode == LC_RUN_NOWAIT ||
		    (mode == LC_RUN_ONCE && n > 0))
			break;
		armed = loop->rhead != NULL;
		for (int c = 0; c < LC_CLOCK_COUNT && !armed; c++)
			armed = lc__heap_count(&loop->base[c]) != 0;
		if (!armed && mode == LC_RUN_DEFAULT)
			break;
		if (!armed && mode == LC_RUN_ONCE)
			break;
		now = lc_now_ns(loop->tk, LC_CLOCK_MONOTONIC);
		d = next_after(loop, now);
		tfd_arm(loop, d);
		loop->sleeping = 1;
		lc__loop_unlock(loop);
		pfd.fd = loop->tfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) > 0 &&
		    read(loop->tfd, &ticks, sizeof(ticks)) < 0)
			(void)errno; /* EAGAIN after a re-arm: go round */
		lc__loop_lock(loop);
		loop->sleeping = 0;
	}
	loop->stop = 0;
	lc__loop_unlock(loop);
	return n;
#endif
}

void lc_loop_stop(lc_loop *loop)
{
	if (loop == NULL)
		return;
	lc__loop_lock(loop);
	loop->stop = 1;
	lc__loop_kick_locked(loop);
	lc__loop_unlock(loop);
}

int lc_loop_fd(lc_loop *loop)
{
	if (loop == NULL)
		return -1;
	return loop->tfd;
}
