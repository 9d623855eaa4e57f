/*
 * wait.c - sleeps, waits and locks with an absolute deadline on the
 * program's CLOCK_REALTIME (or TAI) in libleapclock-preload.so: the
 * deadline is converted into a host CLOCK_MONOTONIC one (lcp_to_host_mono)
 * and, after the wakeup, the program's clock must have reached it or the
 * shim waits again. Never early.
 */
#define _GNU_SOURCE

#include "shim.h"

#include <errno.h>

/* ---- sleeping until a deadline ------------------------------------------- */

LCP_EXPORT int clock_nanosleep(clockid_t clk, int flags,
                               const struct timespec *req,
                               struct timespec *rem)
{
	__typeof__(clock_nanosleep) *f = REAL(clock_nanosleep);
	int which = lcp_ready() ? lcp_ours(clk) : 0;
	struct timespec m, abs;
	int rc;

	if (clk == CLOCK_REALTIME_COARSE)
		which = 0; /* not a valid sleep clock: let the host say so */
	/* (in a sandbox MONOTONIC and BOOTTIME are ours, lcp_ours: a
	 * relative sleep counts the sandbox's steered MONOTONIC, as
	 * Linux's does its own; BOOTTIME_ALARM, which reads the sandbox's
	 * BOOTTIME, too: it then sleeps on the host's MONOTONIC, never
	 * early, but does not wake a suspended host) */
	if (clk == CLOCK_BOOTTIME_ALARM && lcp_ours(CLOCK_BOOTTIME) == 4)
		which = 4;
	if (f == NULL || which == 0 || !lcp_ready())
		return f ? f(clk, flags, req, rem)
		         : (syscall(SYS_clock_nanosleep, clk, flags, req,
		                    rem) == 0 ? 0 : errno);
	if (req == NULL)
		return EFAULT;
	if (req->tv_nsec < 0 || req->tv_nsec >= LC__NS || req->tv_sec < 0)
		return EINVAL;
	abs = *req;
	if (!(flags & TIMER_ABSTIME)) {
		/* a relative sleep on our clock counts that clock from now,
		 * as its timers' relative values do (a smear makes it differ
		 * from the host's MONOTONIC, a leap by a second); plain
		 * nanosleep() and sleep() are not this call and count
		 * elapsed time */
		int64_t now = lcp_prog_now(which);

		if ((int64_t)req->tv_sec < (INT64_MAX - now) / LC__NS - 1)
			abs = lc__ns_to_ts(now + lc__ts_to_ns(req));
		else
			abs.tv_sec = (time_t)(INT64_MAX / LC__NS - 1);
	}
	for (;;) {
		if (lcp_to_host_mono_wait(which, &abs, &m) < 0)
			return EINVAL;
		rc = f(CLOCK_MONOTONIC, TIMER_ABSTIME, &m, NULL);
		if (rc == EINTR && !(flags & TIMER_ABSTIME) && rem != NULL) {
			int64_t left = lc__ts_to_ns(&abs) - lcp_prog_now(which);

			*rem = lc__ns_to_ts(left > 0 ? left : 0);
		}
		if (rc != 0)
			return rc; /* EINTR: no remainder when absolute */
		if (lcp_reached(which, &abs))
			return 0;
	}
}


/* ---- blocking with a deadline: condvars, semaphores, locks --------------- */

/* glibc keeps a condvar's clock in bit 1 of __wrefs (since 2.25): set for
 * CLOCK_MONOTONIC (pthread_condattr_setclock), clear for the REALTIME
 * default. */
static int cond_is_monotonic(pthread_cond_t *c)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 25)
	return (__atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) & 2) != 0;
#else
	(void)c;
	return 0;
#endif
}

/* The common loop: wait(host MONOTONIC deadline) until it returns other
 * than ETIMEDOUT, or the program's clock has reached the deadline. `wait`
 * returns an error number. */
#define DEADLINE_LOOP(which, abs, CALL)                                     \
	do {                                                                \
		struct timespec m_;                                         \
		int rc_;                                                    \
		for (;;) {                                                  \
			if (lcp_to_host_mono_wait((which), (abs), &m_) < 0) \
				return EINVAL;                              \
			rc_ = (CALL);                                       \
			if (rc_ != ETIMEDOUT ||                             \
			    lcp_reached((which), (abs)))                    \
				return rc_;                                 \
		}                                                           \
	} while (0)

/* Each wait on a host MONOTONIC deadline: an error number. */
static int cond_deadline(pthread_cond_t *c, pthread_mutex_t *mx,
                         const struct timespec *abs, int which)
{
	DEADLINE_LOOP(which, abs, REAL(pthread_cond_clockwait)(
	                              c, mx, CLOCK_MONOTONIC, &m_));
}

static int mutex_deadline(pthread_mutex_t *mx, const struct timespec *abs,
                          int which)
{
	DEADLINE_LOOP(which, abs, REAL(pthread_mutex_clocklock)(
	                              mx, CLOCK_MONOTONIC, &m_));
}

static int sem_rc(int rc)
{
	return rc == 0 ? 0 : errno;
}

static int sem_deadline(sem_t *s, const struct timespec *abs, int which)
{
	DEADLINE_LOOP(which, abs,
	              sem_rc(REAL(sem_clockwait)(s, CLOCK_MONOTONIC, &m_)));
}

static int rdlock_deadline(pthread_rwlock_t *l, const struct timespec *abs,
                           int which)
{
	DEADLINE_LOOP(which, abs, REAL(pthread_rwlock_clockrdlock)(
	                              l, CLOCK_MONOTONIC, &m_));
}

static int wrlock_deadline(pthread_rwlock_t *l, const struct timespec *abs,
                           int which)
{
	DEADLINE_LOOP(which, abs, REAL(pthread_rwlock_clockwrlock)(
	                              l, CLOCK_MONOTONIC, &m_));
}

/* pthread_timedjoin_np is pthread_clockjoin_np(CLOCK_REALTIME) in glibc;
 * a NULL deadline waits for ever. */
static int join_deadline(pthread_t t, void **ret, const struct timespec *abs,
                         int which)
{
	DEADLINE_LOOP(which, abs, REAL(pthread_clockjoin_np)(
	                              t, ret, CLOCK_MONOTONIC, &m_));
}

/* Which of our clocks a wait on `clk` until `abs` is on (1 REALTIME; 3
 * MONOTONIC in a sandbox, whose MONOTONIC is steered: lcp_ours), 0 if the
 * shim does not convert it (the clock forms take only these two). */
static int wait_ours(clockid_t clk, const struct timespec *abs)
{
	if (!lcp_ready_wait() || lcp_null(abs))
		return 0;
	if (clk == CLOCK_REALTIME)
		return 1;
	return clk == CLOCK_MONOTONIC && lcp_ours(clk) == 3 ? 3 : 0;
}

/* The timed forms wait on CLOCK_REALTIME: each is its clock form's. */

LCP_EXPORT int pthread_cond_timedwait(pthread_cond_t *restrict c,
                                      pthread_mutex_t *restrict mx,
                                      const struct timespec *restrict abs)
{
	int which;

	if (!lcp_ready_wait() || lcp_null(abs))
		return REAL(pthread_cond_timedwait)(c, mx, abs);
	which = cond_is_monotonic(c) ? wait_ours(CLOCK_MONOTONIC, abs) : 1;
	if (which == 0)
		return REAL(pthread_cond_timedwait)(c, mx, abs);
	return cond_deadline(c, mx, abs, which);
}

LCP_EXPORT int pthread_cond_clockwait(pthread_cond_t *restrict c,
                                      pthread_mutex_t *restrict mx,
                                      clockid_t clk,
                                      const struct timespec *restrict abs)
{
	int which = wait_ours(clk, abs);

	if (which == 0)
		return REAL(pthread_cond_clockwait)(c, mx, clk, abs);
	return cond_deadline(c, mx, abs, which);
}

static int sem_wait_on(sem_t *s, clockid_t clk, const struct timespec *abs)
{
	int which = wait_ours(clk, abs), rc;

	if (which == 0)
		return REAL(sem_clockwait)(s, clk, abs);
	rc = sem_deadline(s, abs, which);
	if (rc == 0)
		return 0;
	errno = rc;
	return -1;
}

LCP_EXPORT int sem_timedwait(sem_t *restrict s,
                             const struct timespec *restrict abs)
{
	return sem_wait_on(s, CLOCK_REALTIME, abs);
}

LCP_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clk,
                             const struct timespec *restrict abs)
{
	return sem_wait_on(s, clk, abs);
}

static int mutex_lock_on(pthread_mutex_t *mx, clockid_t clk,
                         const struct timespec *abs)
{
	int which = wait_ours(clk, abs);

	if (which == 0)
		return REAL(pthread_mutex_clocklock)(mx, clk, abs);
	return mutex_deadline(mx, abs, which);
}

LCP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *restrict mx,
                                       const struct timespec *restrict abs)
{
	return mutex_lock_on(mx, CLOCK_REALTIME, abs);
}

LCP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *restrict mx,
                                       clockid_t clk,
                                       const struct timespec *restrict abs)
{
	return mutex_lock_on(mx, clk, abs);
}

/* pthread_rwlock_{timed,clock}{rd,wr}lock: `wr` 1 for a write lock */
static int rwlock_on(pthread_rwlock_t *l, int wr, clockid_t clk,
                     const struct timespec *abs)
{
	int which = wait_ours(clk, abs);

	if (which != 0)
		return wr ? wrlock_deadline(l, abs, which)
		          : rdlock_deadline(l, abs, which);
	return wr ? REAL(pthread_rwlock_clockwrlock)(l, clk, abs)
	          : REAL(pthread_rwlock_clockrdlock)(l, clk, abs);
}

LCP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict l,
                                          const struct timespec *restrict abs)
{
	return rwlock_on(l, 0, CLOCK_REALTIME, abs);
}

LCP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l,
                                          const struct timespec *restrict abs)
{
	return rwlock_on(l, 1, CLOCK_REALTIME, abs);
}

LCP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict l,
                                          clockid_t clk,
                                          const struct timespec *restrict abs)
{
	return rwlock_on(l, 0, clk, abs);
}

LCP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict l,
                                          clockid_t clk,
                                          const struct timespec *restrict abs)
{
	return rwlock_on(l, 1, clk, abs);
}

LCP_EXPORT int pthread_timedjoin_np(pthread_t t, void **ret,
                                    const struct timespec *abs)
{
	if (!lcp_ready_wait() || lcp_null(abs))
		return REAL(pthread_timedjoin_np)(t, ret, abs);
	return join_deadline(t, ret, abs, 1);
}

LCP_EXPORT int pthread_clockjoin_np(pthread_t t, void **ret, clockid_t clk,
                                    const struct timespec *abs)
{
	int which = wait_ours(clk, abs);

	if (which == 0)
		return REAL(pthread_clockjoin_np)(t, ret, clk, abs);
	return join_deadline(t, ret, abs, which);
}

/* C11 threads: glibc's cnd_t and mtx_t are its pthread_cond_t and
 * pthread_mutex_t (cnd_timedwait and mtx_timedlock cast them and call the
 * pthread functions internally, which no interposer sees), waiting on the
 * deadline as TIME_UTC, i.e. CLOCK_REALTIME. The error numbers become
 * thrd_* as glibc's thrd_err_map does. */
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t) &&
                       _Alignof(cnd_t) == _Alignof(pthread_cond_t),
               "glibc's cnd_t is a pthread_cond_t");
_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t) &&
                       _Alignof(mtx_t) == _Alignof(pthread_mutex_t),
               "glibc's mtx_t is a pthread_mutex_t");

static int thrd_of(int e)
{
	switch (e) {
	case 0:
		return thrd_success;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	case ENOMEM:
		return thrd_nomem;
	default:
		return thrd_error;
	}
}

LCP_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict mx,
                             const struct timespec *restrict abs)
{
	if (!lcp_ready_wait() || lcp_null(abs))
		return REAL(cnd_timedwait)(c, mx, abs);
	return thrd_of(cond_deadline((pthread_cond_t *)(void *)c,
	                             (pthread_mutex_t *)(void *)mx, abs, 1));
}

LCP_EXPORT int mtx_timedlock(mtx_t *restrict mx,
                             const struct timespec *restrict abs)
{
	if (!lcp_ready_wait() || lcp_null(abs))
		return REAL(mtx_timedlock)(mx, abs);
	return thrd_of(mutex_deadline((pthread_mutex_t *)(void *)mx, abs, 1));
}

/*
 * POSIX message queues take only a CLOCK_REALTIME deadline (no clock form,
 * and mq descriptors polled instead would lose SA_RESTART). The converted
 * MONOTONIC deadline becomes a host CLOCK_REALTIME one the same distance
 * ahead (both clocks run at the host's rate); the real call keeps every
 * other behaviour (a message ready, O_NONBLOCK, EINTR, restarts), and
 * after ETIMEDOUT the program's realtime must have reached the deadline or
 * the shim waits again, so a host step forward cannot end the wait early
 * (one back lengthens it, as it would without the shim).
 */
#define LCP_MQ_SLICE (INT64_C(86400) * LC__NS)

static void mq_host_deadline(const struct timespec *abs, struct timespec *out)
{
	struct timespec m;
	int64_t left;

	lcp_to_host_mono_wait(1, abs, &m); /* abs is valid: checked by the caller */
	left = lc__ts_to_ns(&m) - lcp_host_ns(CLOCK_MONOTONIC);
	if (left < 0)
		left = 0;
	if (left > LCP_MQ_SLICE)
		left = LCP_MQ_SLICE; /* the loop waits again */
	*out = lc__ns_to_ts(lcp_host_ns(CLOCK_REALTIME) + left);
}

/* 1 if the shim converts this deadline: a valid one, once it runs (an
 * invalid one goes to the kernel, which says EINVAL only if it must wait) */
static int mq_ours(const struct timespec *abs)
{
	return lcp_ready_wait() && !lcp_null(abs) && abs->tv_nsec >= 0 &&
	       abs->tv_nsec < LC__NS;
}

/* One mq_timedsend (recv 0) or mq_timedreceive (recv 1) of the program's. */
struct mq_req {
	int recv;
	mqd_t q;
	const char *out; /* send: the message */
	char *in;        /* receive: the buffer */
	size_t len;
	unsigned int prio, *prio_in;
};

static ssize_t mq_call(const struct mq_req *r, const struct timespec *abs)
{
	if (r->recv)
		return REAL(mq_timedreceive)(r->q, r->in, r->len, r->prio_in,
		                             abs);
	return REAL(mq_timedsend)(r->q, r->out, r->len, r->prio, abs);
}

/* The call until it ends other than by ETIMEDOUT or the program's realtime
 * has reached `abs`. */
static ssize_t mq_deadline(const struct mq_req *r, const struct timespec *abs)
{
	struct timespec h;
	ssize_t rc;
	int e;

	if (!mq_ours(abs))
		return mq_call(r, abs);
	for (;;) {
		mq_host_deadline(abs, &h);
		rc = mq_call(r, &h);
		e = errno;
		if (rc >= 0 || e != ETIMEDOUT || lcp_reached(1, abs)) {
			errno = e;
			return rc;
		}
	}
}

LCP_EXPORT int mq_timedsend(mqd_t q, const char *msg, size_t len,
                            unsigned int prio, const struct timespec *abs)
{
	struct mq_req r = { 0, q, msg, NULL, len, prio, NULL };

	return (int)mq_deadline(&r, abs);
}

LCP_EXPORT ssize_t mq_timedreceive(mqd_t q, char *restrict msg, size_t len,
                                   unsigned int *restrict prio,
                                   const struct timespec *restrict abs)
{
	struct mq_req r = { 1, q, NULL, msg, len, 0, prio };

	return mq_deadline(&r, abs);
}
