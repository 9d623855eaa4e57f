/*
 * hostclock.c - sampling this host's clock for following it (hostfollow.h):
 * the read-only adjtimex and a TFD_TIMER_CANCEL_ON_SET timerfd.
 *
 * Nothing here sets anything: adjtimex is called with modes = 0 only, and
 * the timerfd is this process's own.
 *
 * The timerfd is process-wide (one per process, created on first use, made
 * again in a fork()ed child, which must not drain its parent's): each
 * cancellation seen adds one to a count, and every timekeeper compares the
 * count with the one it saw last. Every host call goes through the table
 * of hostcall.h (the kernel's, never the preload shim's interposers).
 */
#include "hostfollow.h"

#include "hostcall.h"

#include "leapclock.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>

static pthread_mutex_t hc_lock = PTHREAD_MUTEX_INITIALIZER;
static int hc_fd = -1;
static pid_t hc_pid;
static uint64_t hc_count;
static int hc_broken; /* no timerfd here: no step signal */

static int hc_timerfd_create(void)
{
	return lc__host.timerfd_create(CLOCK_REALTIME,
	                               TFD_NONBLOCK | TFD_CLOEXEC);
}

/* An absolute REALTIME timer far away (it never expires; if the clock is
 * set past it, that expiry counts as a step too). */
static int hc_arm(int fd)
{
	struct itimerspec its;
	struct timespec now;

	memset(&its, 0, sizeof(its));
	lc__host.clock_gettime(CLOCK_REALTIME, &now);
	its.it_value.tv_sec = now.tv_sec + (time_t)(sizeof(time_t) > 4
	                                                    ? INT64_C(1) << 40
	                                                    : INT32_C(1) << 28);
	if (its.it_value.tv_sec < now.tv_sec)
		its.it_value.tv_sec = now.tv_sec; /* 32-bit wrap: expire, count */
	return lc__host.timerfd_settime(
		fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}

/* Drains the timerfd: 1 if REALTIME was set (a cancellation, or the far
 * timer expired) since the last drain. Caller holds hc_lock. */
static int hc_drain(void)
{
	int fired = 0;

	for (int i = 0; i < 4; i++) {
		uint64_t ticks;
		ssize_t n = read(hc_fd, &ticks, sizeof(ticks));

		if (n == (ssize_t)sizeof(ticks) ||
		    (n < 0 && errno == ECANCELED)) {
			/* Reading ECANCELED resets the fd's offset to the
			 * current one; re-arming keeps the far timer armed
			 * in either case. */
			fired = 1;
			if (hc_arm(hc_fd) < 0 && errno != ECANCELED)
				break;
			continue;
		}
		break; /* EAGAIN: nothing (more) */
	}
	return fired;
}

/* Caller holds hc_lock. 0 when the timerfd works. */
static int hc_setup(void)
{
	pid_t pid = getpid();

	if (hc_fd >= 0 && hc_pid == pid)
		return 0;
	if (hc_broken && hc_pid == pid)
		return -1;
	if (hc_fd >= 0)
		close(hc_fd); /* the parent's: leave it to the parent */
	hc_pid = pid;
	hc_broken = 0;
	hc_fd = hc_timerfd_create();
	if (hc_fd < 0 || hc_arm(hc_fd) < 0) {
		if (hc_fd >= 0)
			close(hc_fd);
		hc_fd = -1;
		hc_broken = 1;
		return -1;
	}
	/* A new fd: the count goes on (each timekeeper compares with its
	 * last), and the first sample from here on is the baseline. */
	hc_count++;
	return 0;
}

static int hc_adjtimex(struct timex *tx)
{
	memset(tx, 0, sizeof(*tx));
	tx->modes = 0; /* read only: never anything else */
	return lc__host.adjtimex(tx);
}

int lc__hostclock_sample(struct lc_host_sample *out)
{
	struct timex tx;
	int rc = -1, have_fd, fired = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&hc_lock);
	have_fd = hc_setup() == 0;
	/* drain, sample, drain: a sample is kept only if no step came
	 * between the two drains, so that every step before it is counted
	 * with it and none after it. */
	for (int i = 0; i < 3; i++) {
		if (have_fd)
			fired |= hc_drain();
		rc = hc_adjtimex(&tx);
		if (!have_fd || !hc_drain())
			break;
		fired = 1;
	}
	if (fired)
		hc_count++;
	out->clock_was_set = hc_count;
	pthread_mutex_unlock(&hc_lock);

	if (rc < 0) {
		struct timespec ts;

		lc__host.clock_gettime(CLOCK_REALTIME, &ts);
		out->realtime_ns = (int64_t)ts.tv_sec * LC__NS + ts.tv_nsec;
		out->flags = have_fd ? LC_HOST_SAMPLE_CWS : 0;
		return 0;
	}
	/* tv_usec holds ns under STA_NANO; else us, centred in its us. */
	out->realtime_ns = (int64_t)tx.time.tv_sec * LC__NS +
	                   ((tx.status & STA_NANO) ? (int64_t)tx.time.tv_usec
	                                           : (int64_t)tx.time.tv_usec * 1000 + 500);
	out->tai = (int32_t)tx.tai;
	out->state = rc;
	out->status = tx.status;
	out->maxerror_us = (int64_t)tx.maxerror;
	out->esterror_us = (int64_t)tx.esterror;
	out->flags = LC_HOST_SAMPLE_KERNEL | LC_HOST_SAMPLE_ERROR |
	             (have_fd ? LC_HOST_SAMPLE_CWS : 0);
	return 0;
}

#else /* !__linux__ */

int lc__hostclock_sample(struct lc_host_sample *out)
{
	struct timespec ts;

	memset(out, 0, sizeof(*out));
	lc__host.clock_gettime(CLOCK_REALTIME, &ts);
	out->realtime_ns = (int64_t)ts.tv_sec * LC__NS + ts.tv_nsec;
	return 0;
}

#endif
