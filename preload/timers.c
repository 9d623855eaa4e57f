/*
 * timers.c - the kernel-delivered timers of libleapclock-preload.so: POSIX
 * timers and timerfds on the program's CLOCK_REALTIME (or TAI) run on the
 * host's CLOCK_MONOTONIC, armed at the converted deadline, and a watcher
 * thread re-arms them when the program's timeline steps.
 */
#define _GNU_SOURCE

#include "shim.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

/* ---- converted deadlines that must follow steps -------------------------- */

/*
 * A kernel-delivered timer (a timerfd the program reads, a POSIX timer's
 * signal or thread) armed at an absolute REALTIME/TAI deadline runs on the
 * host MONOTONIC instant that deadline had when it was armed. When the
 * program's timeline steps (its page's writer follows a host step, a
 * rehearsal page is set), that instant is stale: a step back would fire
 * the timer before its clock reads the deadline (invariant 2), a step
 * forward late. So each such timer keeps a record of its deadline, and
 * the watcher thread (below) re-arms it on the timeline's new mapping
 * whenever lc_clock_was_set_seq() moves.
 *
 * A record is written by the program's settime call under its own
 * sequence count (odd while written; no lock: timer_settime is
 * async-signal-safe) and read only by the watcher, which also updates
 * `mono` after a re-arm.
 */
struct lcp_arm {
	_Atomic uint32_t seq;
	_Atomic int which;    /* 0 not armed absolute, 1 realtime, 2 TAI */
	_Atomic int64_t dl;   /* the deadline on the program's clock, ns */
	_Atomic int64_t iv;   /* the interval, ns; 0 one-shot */
	_Atomic int64_t mono; /* host MONOTONIC of dl as armed (periodic: of
	                       * the grid's origin dl) */
	/* the kernel's arming (periodic): grid point k0 at host MONOTONIC
	 * kmono, then every kiv ns of host MONOTONIC */
	_Atomic int64_t kmono, kiv, k0;
};

static void arm_note(struct lcp_arm *a, int which, int64_t dl, int64_t iv,
                     int64_t mono, int64_t kiv)
{
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&a->dl, dl, memory_order_relaxed);
	atomic_store_explicit(&a->iv, iv, memory_order_relaxed);
	atomic_store_explicit(&a->mono, mono, memory_order_relaxed);
	atomic_store_explicit(&a->kmono, mono, memory_order_relaxed);
	atomic_store_explicit(&a->kiv, kiv, memory_order_relaxed);
	atomic_store_explicit(&a->k0, 0, memory_order_relaxed);
	atomic_store_explicit(&a->which, which, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_release);
}

static void arm_off(struct lcp_arm *a)
{
	if (atomic_load_explicit(&a->which, memory_order_relaxed) == 0)
		return;
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&a->which, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_release);
}

static void watch_start(uint64_t seq0);
static void watch_after_fork(void);

/* The sequence a conversion is made at: if it moved by the time the
 * kernel holds the result, the caller converts again (the watcher may
 * have re-armed the timer in between with the new mapping, and our stale
 * arming would undo it). */
static uint64_t cws_now(void)
{
	/* and the RAW page's relation: both only grow, so the sum moves
	 * when either does */
	return lc_clock_was_set_seq(lcp_tk) + lcp_rel_gen();
}

/*
 * Arms `fd` (a timerfd) or `t` (a POSIX timer) at the absolute deadline
 * nv->it_value on our clock `which`, converted into host MONOTONIC, and
 * records it in `a` (NULL: not followed). `flags` are the kernel call's
 * (TIMER_ABSTIME and TFD_TIMER_ABSTIME are both 1).
 */
/* The host MONOTONIC instant (ns) at which the program's clock `which`
 * first reads grid point dl + k * iv; -1 for a bad one. */
static int64_t grid_mono(int which, int64_t dl, int64_t iv, int64_t k)
{
	struct timespec d = lc__ns_to_ts(dl + k * iv), m;

	if (lcp_to_host_mono(which, &d, &m) < 0)
		return -1;
	return lc__ts_to_ns(&m);
}

/* The kernel's interval for a grid whose point k is at host MONOTONIC
 * h0: the host MONOTONIC length of the period after it (a period is
 * counted on the program's clock: 2 s across an inserted second, longer
 * than 1 s of MONOTONIC under a smear that slows the clock), never 0
 * (that would make the kernel's timer a one-shot). */
static int64_t grid_kiv(int which, int64_t dl, int64_t iv, int64_t k,
                        int64_t h0)
{
	int64_t h1 = grid_mono(which, dl, iv, k + 1);

	return h1 > h0 ? h1 - h0 : iv;
}

static int arm_abs(struct lcp_arm *a, int fd, timer_t t, int which,
                   int flags, const struct itimerspec *nv,
                   struct itimerspec *ov)
{
	struct itimerspec v = *nv;
	int64_t dl = lc__ts_to_ns(&nv->it_value);
	int64_t iv = lc__ts_to_ns(&nv->it_interval), kiv = 0;
	uint64_t seq0;
	int rc, tries = 0;

	for (;;) {
		seq0 = cws_now();
		if (lcp_to_host_mono(which, &nv->it_value, &v.it_value) < 0) {
			errno = EINVAL;
			return -1;
		}
		if (iv > 0) {
			kiv = grid_kiv(which, dl, iv, 0,
			               lc__ts_to_ns(&v.it_value));
			v.it_interval = lc__ns_to_ts(kiv);
		}
		if (v.it_value.tv_sec == 0 && v.it_value.tv_nsec == 0)
			v.it_value.tv_nsec = 1; /* past: fire now, don't disarm */
		if (a != NULL) {
			arm_note(a, which, dl, iv, lc__ts_to_ns(&v.it_value),
			         kiv);
			watch_start(seq0);
		}
		rc = fd >= 0 ? REAL(timerfd_settime)(fd, flags, &v, ov)
		             : REAL(timer_settime)(t, flags, &v, ov);
		if (rc != 0 && a != NULL)
			arm_off(a); /* the kernel kept what it had */
		if (rc != 0 || a == NULL || cws_now() == seq0 || ++tries == 4)
			return rc;
		ov = NULL; /* the old value was the caller's, now ours */
	}
}

/* A relative arming on our clock `which` as an absolute one: the value is
 * counted on the program's own clock from now (as its periods are), not
 * on the host's MONOTONIC, which a smear or a leap makes differ from it.
 * 0, or -1 with errno EINVAL for a bad value. */
static int rel_to_abs(int which, const struct itimerspec *nv,
                      struct itimerspec *abs)
{
	int64_t v, now;

	if (nv->it_value.tv_nsec < 0 || nv->it_value.tv_nsec >= LC__NS ||
	    nv->it_value.tv_sec < 0 || nv->it_interval.tv_nsec < 0 ||
	    nv->it_interval.tv_nsec >= LC__NS || nv->it_interval.tv_sec < 0) {
		errno = EINVAL;
		return -1;
	}
	now = lcp_prog_now(which);
	*abs = *nv;
	if ((int64_t)nv->it_value.tv_sec >= (INT64_MAX - now) / LC__NS - 1) {
		abs->it_value.tv_sec = (time_t)(INT64_MAX / LC__NS - 1);
		abs->it_value.tv_nsec = 0;
		return 0;
	}
	v = lc__ts_to_ns(&nv->it_value);
	abs->it_value = lc__ns_to_ts(now + v);
	return 0;
}

/* ---- POSIX timers and timerfds ------------------------------------------- */

/* POSIX timers created on REALTIME/TAI run on CLOCK_MONOTONIC; this table
 * remembers which. A slot holds the key timer_t + 1 (so that kernel timer
 * id 0 does not look like an empty slot) and, beside it, which clock (1
 * realtime, 2 TAI). The key uses every bit: glibc's SIGEV_THREAD timers
 * are INTPTR_MIN | pointer >> 1, with the top bit set, so no bit of a
 * timer_t is free to hold the clock. Lock-free: slots are claimed and freed
 * by compare-and-swap; a slot's clock is written after its claim and before
 * timer_create returns the id, so nobody can look that id up earlier. */
#define LCP_TIMERS 1024
static _Atomic uintptr_t g_timer_key[LCP_TIMERS];
static _Atomic int g_timer_which[LCP_TIMERS];
static struct lcp_arm g_timer_arm[LCP_TIMERS];

static _Atomic int g_timer_count;

static uintptr_t timer_key(timer_t t)
{
	return (uintptr_t)t + 1;
}

/* Where the search for a key starts (then every slot, wrapping): timer_t
 * values are small kernel ids or pointers, so this is usually the slot. */
static int timer_slot0(uintptr_t k)
{
	return (int)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 54) &
	       (LCP_TIMERS - 1);
}

/* The slot holding t's key, or -1. */
static int timer_find(timer_t t)
{
	uintptr_t k = timer_key(t);
	int i0 = timer_slot0(k);

	if (atomic_load_explicit(&g_timer_count, memory_order_relaxed) == 0)
		return -1;
	for (int j = 0; j < LCP_TIMERS; j++) {
		int i = (i0 + j) & (LCP_TIMERS - 1);

		if (atomic_load_explicit(&g_timer_key[i],
		                         memory_order_acquire) == k)
			return i;
	}
	return -1;
}

/* t's clock (0 not ours) and its slot in *slot */
static int timer_lookup(timer_t t, int *slot)
{
	int i = timer_find(t);

	*slot = i;
	return i < 0 ? 0
	             : atomic_load_explicit(&g_timer_which[i],
	                                    memory_order_relaxed);
}

static int timer_remember(timer_t t, int which)
{
	uintptr_t k = timer_key(t);
	int i0 = timer_slot0(k);

	for (int j = 0; j < LCP_TIMERS; j++) {
		int i = (i0 + j) & (LCP_TIMERS - 1);
		uintptr_t z = 0;

		if (atomic_compare_exchange_strong(&g_timer_key[i], &z, k)) {
			arm_off(&g_timer_arm[i]);
			atomic_store_explicit(&g_timer_which[i], which,
			                      memory_order_relaxed);
			atomic_fetch_add(&g_timer_count, 1);
			return 0;
		}
	}
	return -1;
}

/* Forgets every entry of `t`: the one timer_delete ends, or stale ones
 * that a new timer with the same id must not inherit. */
static void timer_forget(timer_t t)
{
	uintptr_t k = timer_key(t);
	int i = timer_find(t);

	/* every slot holding the key: a stale one may sit before the live */
	for (int j = 0; i >= 0 && j < LCP_TIMERS; j++) {
		int n = (i + j) & (LCP_TIMERS - 1);
		uintptr_t e = k;

		if (atomic_load_explicit(&g_timer_key[n],
		                         memory_order_relaxed) != k)
			continue;
		arm_off(&g_timer_arm[n]);
		if (atomic_compare_exchange_strong(&g_timer_key[n], &e, 0))
			atomic_fetch_sub(&g_timer_count, 1);
	}
}

/*
 * A child starts with no timers (POSIX timers are not inherited by fork),
 * and the kernel numbers its timers afresh: its first CLOCK_MONOTONIC timer
 * took the id of the parent's first CLOCK_REALTIME one, found the parent's
 * entry here, and an absolute MONOTONIC + 2 s was converted as a realtime
 * instant in 1970, so it fired at once. The child's table starts empty
 * (pthread_atfork; only the forking thread runs here), and a new timer
 * drops any entry left under its id (a child made by a bare clone or
 * _Fork, which runs no fork handlers).
 */
void lcp_timers_after_fork(void)
{
	for (int i = 0; i < LCP_TIMERS; i++) {
		arm_off(&g_timer_arm[i]);
		atomic_store_explicit(&g_timer_key[i], 0,
		                      memory_order_relaxed);
	}
	atomic_store(&g_timer_count, 0);
	watch_after_fork();
}

LCP_EXPORT int timer_create(clockid_t clk, struct sigevent *sev,
                            timer_t *id)
{
	int which = lcp_ready_wait() ? lcp_ours(clk) : 0, rc;

	if (clk == CLOCK_REALTIME_COARSE)
		which = 0;
	if (which == 0) {
		rc = REAL(timer_create)(clk, sev, id);
		if (rc == 0)
			timer_forget(*id);
		return rc;
	}
	rc = REAL(timer_create)(CLOCK_MONOTONIC, sev, id);
	if (rc == 0)
		timer_forget(*id);
	if (rc == 0 && timer_remember(*id, which) < 0) {
		REAL(timer_delete)(*id);
		errno = EAGAIN;
		return -1;
	}
	return rc;
}

LCP_EXPORT int timer_delete(timer_t id)
{
	if (REAL(timer_delete) == NULL && !lcp_ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	timer_forget(id);
	return REAL(timer_delete)(id);
}

LCP_EXPORT int timer_settime(timer_t id, int flags,
                             const struct itimerspec *nv,
                             struct itimerspec *ov)
{
	int which, slot = -1;

	if (REAL(timer_settime) == NULL && !lcp_ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	which = nv != NULL ? timer_lookup(id, &slot) : 0;
	if (slot >= 0 && nv != NULL)
		arm_off(&g_timer_arm[slot]); /* re-noted below if absolute */
	if (which == 0 ||
	    (nv->it_value.tv_sec == 0 && nv->it_value.tv_nsec == 0))
		return REAL(timer_settime)(id, flags, nv, ov);
	if (!(flags & TIMER_ABSTIME)) {
		struct itimerspec abs;

		if (rel_to_abs(which, nv, &abs) < 0)
			return -1;
		return arm_abs(&g_timer_arm[slot], -1, id, which,
		               flags | TIMER_ABSTIME, &abs, ov);
	}
	return arm_abs(&g_timer_arm[slot], -1, id, which, flags, nv, ov);
}

/* timerfds created on CLOCK_REALTIME (in a sandbox also MONOTONIC and
 * BOOTTIME, lcp_ours) run on CLOCK_MONOTONIC; a byte per fd says on
 * which of our clocks (0: the host's own). A new timerfd on the same
 * number sets it (the old one was closed). */
#define LCP_FDS 65536
static _Atomic unsigned char g_tfd_which[LCP_FDS];

static void tfd_mark(int fd, int which)
{
	if (fd < 0 || fd >= LCP_FDS)
		return;
	atomic_store(&g_tfd_which[fd], (unsigned char)which);
}

/* Our clock of timerfd `fd` (lcp_ours), 0 if none. */
static int tfd_is_rt(int fd)
{
	if (fd < 0 || fd >= LCP_FDS)
		return 0;
	return atomic_load_explicit(&g_tfd_which[fd], memory_order_relaxed);
}

/* The records of the realtime timerfds armed absolute, by fd (a timerfd
 * numbered LCP_TFD_ARMS or above does not follow steps). A new timerfd on
 * the number clears it; the watcher clears one that is no timerfd any
 * more (the program closed it and the number went to something else). */
#define LCP_TFD_ARMS 4096
static struct lcp_arm g_tfd_arm[LCP_TFD_ARMS];

static struct lcp_arm *tfd_arm(int fd)
{
	return fd >= 0 && fd < LCP_TFD_ARMS ? &g_tfd_arm[fd] : NULL;
}

LCP_EXPORT int timerfd_create(int clk, int flags)
{
	int fd, which = lcp_ready_wait() ? lcp_ours(clk) : 0;

	/* (timerfds take neither CLOCK_REALTIME_COARSE nor CLOCK_TAI) */
	if ((which != 1 && which != 3 && which != 4) ||
	    clk == CLOCK_REALTIME_COARSE) {
		fd = REAL(timerfd_create) ? REAL(timerfd_create)(clk, flags)
		                          : (int)syscall(SYS_timerfd_create,
		                                         clk, flags);
		if (tfd_arm(fd) != NULL)
			arm_off(tfd_arm(fd));
		tfd_mark(fd, 0);
		return fd;
	}
	fd = REAL(timerfd_create)(CLOCK_MONOTONIC, flags);
	if (fd >= LCP_FDS) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	if (tfd_arm(fd) != NULL)
		arm_off(tfd_arm(fd));
	tfd_mark(fd, which);
	return fd;
}

LCP_EXPORT int timerfd_settime(int fd, int flags,
                               const struct itimerspec *nv,
                               struct itimerspec *ov)
{
	struct lcp_arm *a;
	int which;

	if (REAL(timerfd_settime) == NULL && !lcp_ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	which = tfd_is_rt(fd);
	if (which == 0 || nv == NULL)
		return REAL(timerfd_settime)(fd, flags, nv, ov);
	/* The program's realtime is never set (settime is refused) and its
	 * leaps are not steps of the host clock: a MONOTONIC timerfd has no
	 * cancel-on-set, so the flag goes. */
	flags &= ~TFD_TIMER_CANCEL_ON_SET;
	if (nv->it_value.tv_sec == 0 && nv->it_value.tv_nsec == 0) {
		a = tfd_arm(fd);
		if (a != NULL)
			arm_off(a);
		return REAL(timerfd_settime)(fd, flags, nv, ov);
	}
	if (!(flags & TFD_TIMER_ABSTIME)) {
		struct itimerspec abs;

		if (rel_to_abs(which, nv, &abs) < 0)
			return -1;
		return arm_abs(tfd_arm(fd), fd, NULL, which,
		               flags | TFD_TIMER_ABSTIME, &abs, ov);
	}
	return arm_abs(tfd_arm(fd), fd, NULL, which, flags, nv, ov);
}

/* ---- the watcher: re-arming converted timers after a step ----------------- */

/*
 * One detached thread per process, started by the first absolute arming of
 * a converted timer (none in programs that never arm one; again in a
 * forked child at its first), with every signal blocked. It wakes on a
 * host REALTIME timerfd with TFD_TIMER_CANCEL_ON_SET (the host's clock was
 * set: the page's writer follows within milliseconds, so it then looks
 * every millisecond for LCP_WATCH_FAST_NS) and otherwise every
 * LCP_WATCH_MS (a rehearsal page set by its writer, a writer that
 * followed late, the program's own timekeeper following the host after
 * its page went stale). When lc_clock_was_set_seq() moved it re-arms every
 * recorded timer that is armed and not yet expired on the new mapping:
 * a one-shot at its deadline, a periodic one at the next point of its
 * grid on the program's clock (deadline + k * interval). On every pass
 * it also keeps each periodic timer's kernel grid on the program's clock
 * (below), waking just after an expiration that comes before an irregular
 * period. It allocates nothing and prints nothing.
 */
#define LCP_WATCH_MS 50
#define LCP_WATCH_FAST_NS (200 * 1000000LL)
#define LCP_WATCH_DEFER_NS (100 * 1000000LL)

static _Atomic int g_watch;          /* 1 once started in this process */
static _Atomic uint64_t g_watch_seq; /* the sequence the records are at */

/* A copy of a record, read under its sequence count. */
struct lcp_arm_copy {
	uint32_t seq;
	int which;
	int64_t dl, iv, mono, kmono, kiv, k0;
};

/* Copies record `a`; 0 while the program writes it (try again). */
static int arm_read(struct lcp_arm *a, struct lcp_arm_copy *c)
{
	c->seq = atomic_load_explicit(&a->seq, memory_order_acquire);
	c->which = atomic_load_explicit(&a->which, memory_order_relaxed);
	c->dl = atomic_load_explicit(&a->dl, memory_order_relaxed);
	c->iv = atomic_load_explicit(&a->iv, memory_order_relaxed);
	c->mono = atomic_load_explicit(&a->mono, memory_order_relaxed);
	c->kmono = atomic_load_explicit(&a->kmono, memory_order_relaxed);
	c->kiv = atomic_load_explicit(&a->kiv, memory_order_relaxed);
	c->k0 = atomic_load_explicit(&a->k0, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	return (c->seq & 1) == 0;
}

/* 1 while record `a` is still at the copy's sequence. */
static int arm_same(struct lcp_arm *a, const struct lcp_arm_copy *c)
{
	return atomic_load_explicit(&a->seq, memory_order_acquire) == c->seq;
}

/*
 * A periodic timer's grid is dl + k * iv on the program's clock; the
 * kernel runs it on host MONOTONIC as kmono + j * kiv (point k0 + j).
 * Where the program's clock and MONOTONIC do not run alike (an inserted
 * second: one period is 2 s of MONOTONIC; a deleted one: points inside
 * it are all reached at 00:00:00; a smear: every period is longer or
 * shorter by the smear's rate), the kernel's grid drifts from the true
 * one: early is forbidden (invariant 2), so the watcher re-arms it. It
 * looks LCP_LOOK_NS ahead (two points at least): each of the kernel's
 * points must be at or up to LCP_LATE_NS after the true one; a later
 * point that the kernel would fire early gets a wake-up of the watcher
 * just after the point before it fires (the re-arm then has a whole
 * kernel interval to land in).
 */
#define LCP_LOOK_NS (250 * 1000000LL)
#define LCP_REL_EARLIER_NS (20 * 1000LL)
#define LCP_LATE_NS (20 * 1000LL)
#define LCP_LOOK_MAX 64
#define LCP_WAKE_AFTER_NS (50 * 1000LL)

/* 1 if the kernel's point i (at kn) is right for true point h. */
static int grid_ok(int64_t kn, int64_t h)
{
	return kn >= h && kn - h <= LCP_LATE_NS;
}

/*
 * Re-arms the timer of record `a` (timerfd `fd`, else POSIX timer `t`) at
 * the current mapping if it needs it; *wake: the host MONOTONIC instant
 * the watcher must look again (lowered, never raised). `step` (the
 * timeline stepped): one-shots too; `force`: even a timerfd with
 * expirations unread. Returns 1 if it must be tried again soon:
 * a timerfd with expirations the program has not read yet
 * (timerfd_settime would drop them).
 */
static int rearm_one(struct lcp_arm *a, int fd, timer_t t, int step,
                     int force, int64_t *wake)
{
	for (int tries = 0; tries < 4; tries++) {
		struct lcp_arm_copy c;
		struct itimerspec cur, v;
		int64_t now, n, j, k, h[LCP_LOOK_MAX + 2], kiv, m;
		int rc, look, bad = -1;

		if (!arm_read(a, &c))
			continue;
		if (c.which == 0 || !arm_same(a, &c))
			return 0;
		if (c.iv <= 0 && !step && lcp_rel_pg == NULL)
			return 0;
		rc = fd >= 0 ? timerfd_gettime(fd, &cur)
		             : timer_gettime(t, &cur);
		if (rc != 0) {
			if (fd >= 0 && arm_same(a, &c))
				arm_off(a); /* closed: no timer any more */
			return 0;
		}
		/* disarmed, or a one-shot that expired (a timerfd may still
		 * hold its expiration unread: re-arming would drop it) */
		if (cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0)
			return 0;
		now = lcp_host_ns(CLOCK_MONOTONIC);
		memset(&v, 0, sizeof(v));
		if (c.iv <= 0) {
			m = grid_mono(c.which, c.dl, 0, 0);
			if (m < 0 || m == c.mono)
				return 0; /* this step did not move it */
			/* a RAW page, its relation unmoved: the margin that
			 * keeps the arming from firing early also makes it
			 * late, by margin x the time left when converted;
			 * converted again on every pass it comes in (never
			 * later, not when imminent) */
			if (!step && (m > c.mono - LCP_REL_EARLIER_NS ||
			              c.mono < now + 2000000))
				return 0;
			k = 0;
			kiv = 0;
			v.it_value = lc__ns_to_ts(m);
			goto arm;
		}
		/* the kernel's next point, exactly (its arming is known; the
		 * reading of the remaining time only picks which one) */
		n = now + lc__ts_to_ns(&cur.it_value);
		j = c.kiv > 0 ? (n - c.kmono + c.kiv / 2) / c.kiv : 0;
		if (j < 0)
			j = 0;
		k = c.k0 + j;
		n = c.kmono + j * c.kiv;
		look = (int)(LCP_LOOK_NS / c.iv) + 2; /* at least 2 */
		if (look > LCP_LOOK_MAX)
			look = LCP_LOOK_MAX;
		for (int i = 0; i <= look; i++) {
			h[i] = grid_mono(c.which, c.dl, c.iv, k + i);
			if (h[i] < 0)
				return 0;
		}
		for (int i = 0; i <= look && bad < 0; i++)
			if (!grid_ok(n + i * c.kiv, h[i]))
				bad = i;
		if (bad < 0)
			return 0; /* right for the look-ahead */
		/* the arming for the kernel's next point k: merged with the
		 * points of a deleted second that are reached at the same
		 * instant (fired once, an overrun, as Linux fires a clock
		 * that jumps past several), and an interval that is the
		 * longer of the next two periods: never early for the two
		 * points after it (a shorter period after a longer one
		 * comes late until the re-arm after the longer one) */
		{
			int i0 = 0;

			while (i0 < look - 1 && h[i0 + 1] <= h[i0])
				i0++;
			m = h[i0];
			kiv = h[i0 + 1] - h[i0];
			if (h[i0 + 2] - h[i0 + 1] > kiv)
				kiv = h[i0 + 2] - h[i0 + 1];
			if (kiv <= 0)
				kiv = c.iv;
			k += i0;
		}
		if (bad >= 1 && !(bad == 1 && n > now + 2000000 &&
		                  (m != n || kiv != c.kiv))) {
			/* the kernel fires point bad - 1 right: look again just
			 * after it, with a whole kernel interval to re-arm in
			 * (not before point 0 when it is imminent: a re-arm
			 * racing its expiration could fire it twice) */
			int64_t w = n + (bad - 1) * c.kiv + LCP_WAKE_AFTER_NS;

			if (w < *wake)
				*wake = w;
			return 0;
		}
		v.it_value = lc__ns_to_ts(m);
		v.it_interval = lc__ns_to_ts(kiv);
		if (m + LCP_WAKE_AFTER_NS < *wake)
			*wake = m + LCP_WAKE_AFTER_NS;
	arm:
		if (fd >= 0 && !force && c.iv > 0 && m > now + 2000000) {
			struct pollfd p = { fd, POLLIN, 0 };

			if (poll(&p, 1, 0) > 0)
				return 1; /* read first */
		}
		if (m == 0)
			v.it_value.tv_nsec = 1;
		if (!arm_same(a, &c))
			continue; /* the program armed it meanwhile */
		rc = fd >= 0 ? REAL(timerfd_settime)(fd, TFD_TIMER_ABSTIME, &v,
		                                     NULL)
		             : REAL(timer_settime)(t, TIMER_ABSTIME, &v, NULL);
		if (rc != 0)
			return 0;
		atomic_store_explicit(&a->mono, c.iv > 0 ? c.mono : m,
		                      memory_order_relaxed);
		atomic_store_explicit(&a->kmono, m, memory_order_relaxed);
		atomic_store_explicit(&a->kiv, kiv, memory_order_relaxed);
		atomic_store_explicit(&a->k0, k, memory_order_relaxed);
		/* armed by the program while we did: ours may have undone
		 * its arming, so do its record again */
		if (arm_same(a, &c))
			return 0;
	}
	return 0;
}

/* Re-arms every recorded timer that needs it; the number that must be
 * tried again; *wake as rearm_one's. */
static int rearm_all(int step, int force, int64_t *wake)
{
	int later = 0;

	for (int i = 0; i < LCP_TIMERS; i++) {
		uintptr_t k = atomic_load_explicit(&g_timer_key[i],
		                                   memory_order_acquire);

		if (k != 0 && atomic_load_explicit(&g_timer_arm[i].which,
		                                   memory_order_relaxed))
			later += rearm_one(&g_timer_arm[i], -1,
			                   (timer_t)(k - 1), step, force,
			                   wake);
	}
	for (int fd = 0; fd < LCP_TFD_ARMS; fd++) {
		if (atomic_load_explicit(&g_tfd_arm[fd].which,
		                         memory_order_relaxed) &&
		    tfd_is_rt(fd))
			later += rearm_one(&g_tfd_arm[fd], fd, NULL, step,
			                   force, wake);
	}
	return later;
}

/* A host REALTIME timerfd that wakes us when the host's clock is set. */
static int host_set_fd(void)
{
	struct itimerspec far;
	int fd;

	if (REAL(timerfd_create) == NULL || REAL(timerfd_settime) == NULL)
		return -1;
	fd = REAL(timerfd_create)(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -1;
	memset(&far, 0, sizeof(far));
	far.it_value.tv_sec = (time_t)(sizeof(time_t) > 4 ? INT64_C(1) << 33
	                                                  : INT32_MAX);
	if (REAL(timerfd_settime)(fd,
	                          TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
	                          &far, NULL) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *watch_main(void *arg)
{
	int fd = host_set_fd(), later = 0, step = 0;
	int64_t fast_until = 0, defer_until = 0, wake = 0;

	(void)arg;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t now = lcp_host_ns(CLOCK_MONOTONIC);
		int64_t to = LCP_WATCH_MS * 1000000LL;
		struct timespec tts;
		uint64_t seq;

		if (now < fast_until || later)
			to = 1000000;
		if (wake > now && wake - now < to)
			to = wake - now;
		else if (wake != 0 && wake <= now)
			to = 0;
		tts = lc__ns_to_ts(to);
		if (ppoll(&p, fd >= 0 ? 1 : 0, &tts, NULL) > 0) {
			uint64_t n;

			/* ECANCELED: the host's REALTIME was set */
			if (read(fd, &n, sizeof(n)) < 0 && errno != ECANCELED &&
			    errno != EAGAIN) {
				close(fd);
				fd = -1;
			}
			fast_until = lcp_host_ns(CLOCK_MONOTONIC) +
			             LCP_WATCH_FAST_NS;
		}
		now = lcp_host_ns(CLOCK_MONOTONIC);
		{
			/* a page's table, staleness: on the timekeeper's
			 * MONOTONIC (a RAW page's is not the host's) */
			int64_t tm;

			(void)lcp_exact_rt(&tm);
			lcp_maybe_update(tm);
		}
		seq = cws_now();
		if (seq != atomic_load(&g_watch_seq)) {
			atomic_store(&g_watch_seq, seq);
			step = 1;
			defer_until = now + LCP_WATCH_DEFER_NS;
			fast_until = 0;
		}
		/* every pass: periodic grids drift from the kernel's where
		 * the program's clock and MONOTONIC differ in rate or leap */
		wake = INT64_MAX;
		later = rearm_all(step, step && now >= defer_until, &wake);
		if (!later)
			step = 0;
		if (wake == INT64_MAX)
			wake = 0;
	}
	return NULL;
}

/* Starts the watcher unless it runs; `seq0` is the sequence the caller's
 * deadline was converted at, so that a step right after it is seen. */
static void watch_start(uint64_t seq0)
{
	pthread_attr_t at;
	pthread_t t;
	sigset_t all, old;
	int expect = 0;

	if (lc__likely(atomic_load_explicit(&g_watch, memory_order_relaxed)))
		return;
	if (!atomic_compare_exchange_strong(&g_watch, &expect, 1))
		return;
	atomic_store(&g_watch_seq, seq0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&at) == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 256 * 1024);
		if (pthread_create(&t, &at, watch_main, NULL) == 0)
			pthread_setname_np(t, "leapclock-timer");
		else
			atomic_store(&g_watch, 0); /* the next arming tries */
		pthread_attr_destroy(&at);
	} else {
		atomic_store(&g_watch, 0);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* fork: the child has no watcher; its first arming starts one. */
static void watch_after_fork(void)
{
	atomic_store(&g_watch, 0);
}

