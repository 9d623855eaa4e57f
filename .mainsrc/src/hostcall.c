/*
 * hostcall.c - libleapclock's table of host calls (hostcall.h): the C
 * library's clock functions; timerfd and adjtimex as system calls where
 * they exist (the kernel's, whatever a program interposes on them).
 * Not linked into the preload shim, which defines its own table.
 */
#define _GNU_SOURCE
#include "hostcall.h"

#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>

static int sys_timerfd_create(int clk, int flags)
{
#ifdef SYS_timerfd_create
	return (int)syscall(SYS_timerfd_create, clk, flags);
#else
	return timerfd_create(clk, flags);
#endif
}

static int sys_timerfd_settime(int fd, int flags, const struct itimerspec *v,
                               struct itimerspec *old)
{
#if defined(SYS_timerfd_settime) && !defined(__ILP32__) && \
	(!defined(__SIZEOF_LONG__) || __SIZEOF_LONG__ == 8)
	return (int)syscall(SYS_timerfd_settime, fd, flags, v, old);
#else
	return timerfd_settime(fd, flags, v, old);
#endif
}

static int sys_adjtimex(struct timex *tx)
{
#ifdef SYS_adjtimex
	return (int)syscall(SYS_adjtimex, tx);
#else
	return adjtimex(tx);
#endif
}

struct lc__hostcalls lc__host = {
	clock_gettime, clock_nanosleep, sys_timerfd_create,
	sys_timerfd_settime, sys_adjtimex,
};
#else
struct lc__hostcalls lc__host = { clock_gettime, clock_nanosleep, NULL, NULL,
	                          NULL };
#endif
