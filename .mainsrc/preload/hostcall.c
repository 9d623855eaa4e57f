/*
 * hostcall.c - the library's table of host calls (src/hostcall.h) inside
 * libleapclock-preload.so. The shim's exports carry these names, so the
 * library must never call them by name here: until the start resolves the
 * real functions (lcp_hostcalls_fill, from resolve_all) each entry is the
 * system call; then it is the C library's function itself, so that the
 * timekeeper's inline counter read costs one call into libc.
 */
#define _GNU_SOURCE

#include "shim.h"

#include <errno.h>

static int sys_clock_nanosleep(clockid_t clk, int flags,
                               const struct timespec *t, struct timespec *rem)
{
	int e = errno, r;

	r = (int)syscall(SYS_clock_nanosleep, clk, flags, t, rem) < 0 ? errno : 0;
	errno = e;
	return r;
}

static int sys_timerfd_create(int clk, int flags)
{
	return (int)syscall(SYS_timerfd_create, clk, flags);
}

static int sys_timerfd_settime(int fd, int flags, const struct itimerspec *v,
                               struct itimerspec *old)
{
	return (int)syscall(SYS_timerfd_settime, fd, flags, v, old);
}

static int sys_adjtimex(struct timex *tx)
{
	return (int)syscall(SYS_adjtimex, tx);
}

struct lc__hostcalls lc__host = {
	lcp_raw_clock_gettime, sys_clock_nanosleep, sys_timerfd_create,
	sys_timerfd_settime, sys_adjtimex,
};

void lcp_hostcalls_fill(void)
{
	if (REAL(clock_gettime) != NULL)
		lc__host.clock_gettime = REAL(clock_gettime);
	if (REAL(clock_nanosleep) != NULL)
		lc__host.clock_nanosleep = REAL(clock_nanosleep);
	if (REAL(timerfd_create) != NULL)
		lc__host.timerfd_create = REAL(timerfd_create);
	if (REAL(timerfd_settime) != NULL)
		lc__host.timerfd_settime = REAL(timerfd_settime);
	/* adjtimex stays the system call: the kernel's, read only */
}
