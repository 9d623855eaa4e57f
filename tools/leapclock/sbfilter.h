/*
 * sbfilter.h - the time sandbox's seccomp filter (`leapclock run
 * --sandbox`): a program that sets the clock with syscall(2) itself, or
 * through a libc the shim does not reach, bypasses LD_PRELOAD. The
 * sandbox's program runs under a seccomp filter that hands clock_settime,
 * settimeofday, adjtimex and clock_adjtime to the writer
 * (SECCOMP_RET_USER_NOTIF): the writer reads the call's arguments from the
 * caller's memory, applies it to the sandbox's clock and answers as Linux.
 */
#ifndef LC_CLI_SBFILTER_H
#define LC_CLI_SBFILTER_H

#include <stdint.h>
#include <sys/timex.h>

/* What the writer does with a call, as the shim's requests do. Both
 * return the call's result or -errno. */
struct lc_sbf_ops {
	void *ctx;
	int (*settime)(void *ctx, int64_t sec, int64_t nsec);
	int (*adjtimex)(void *ctx, struct timex *tx);
	int debug; /* a line on stderr per call */
};

/* In the program's process, before exec: installs the filter (with
 * no_new_privs when the process may not install one without it) and
 * returns its listener fd, or -errno (ENOSYS: not on this architecture). */
int lc_sbf_install(void);

/* The listener from the child to the writer over a Unix socket: the
 * child sends its fd or its -errno; the writer's receive returns the fd
 * or -errno. */
void lc_sbf_send(int sock, int fd_or_err);
int lc_sbf_recv(int sock);

/* The writer, when the listener is readable: one call served. 0, or -1
 * when the listener is done (every process of the program has exited). */
int lc_sbf_serve(int nfd, const struct lc_sbf_ops *ops);

#endif
