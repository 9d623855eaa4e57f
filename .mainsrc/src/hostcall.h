/*
 * hostcall.h - the one table through which the library reaches the host's
 * clock: clock reads, sleeps, the REALTIME timerfd of following the host
 * and the loop's timerfd, and the read-only adjtimex. Not public.
 *
 * libleapclock's table (src/hostcall.c) holds the C library's functions
 * (the system calls for timerfd and adjtimex). The preload shim, whose
 * own exports carry these names, links the library's objects without
 * src/hostcall.c and defines the table itself (preload/hostcall.c): the
 * real functions, resolved at load, so that no call of the library binds
 * to the shim's interposers (tests/preload_binds.sh). The table is
 * written only before the library runs (the shim's start); everyone else
 * only reads it.
 */
#ifndef LC_HOSTCALL_H
#define LC_HOSTCALL_H

#include <time.h>

struct itimerspec;
struct timex;

struct lc__hostcalls {
	int (*clock_gettime)(clockid_t clk, struct timespec *ts);
	int (*clock_nanosleep)(clockid_t clk, int flags,
	                       const struct timespec *t, struct timespec *rem);
	int (*timerfd_create)(int clk, int flags);
	int (*timerfd_settime)(int fd, int flags, const struct itimerspec *v,
	                       struct itimerspec *old);
	int (*adjtimex)(struct timex *tx); /* modes 0 only: a read */
};

/* Hidden: the shared library exports none of its internals. */
extern struct lc__hostcalls lc__host __attribute__((visibility("hidden")));

#endif
