/*
 * sandbox.h - the time sandbox's wire format (`leapclock run --sandbox`),
 * shared by the shim's client (preload/sandbox.c) and the writer
 * (tools/leapclock/cmd_run.c).
 *
 * The writer owns the program's timeline: a timekeeper on the host's
 * CLOCK_MONOTONIC whose leaps are armed by adjtimex (STA_INS/STA_DEL, as
 * Linux), published as a timeline page in a private folder (mode 0700)
 * that every process of the program reads. A call that sets the clock (or
 * reads the NTP state) is one request on a SOCK_SEQPACKET Unix socket in
 * that folder: connect, one request, one reply, close (a connection per
 * call: nothing to redo after fork, nothing shared between threads). The
 * socket's folder is the caller's own: only its user can connect.
 */
#ifndef LC_PRELOAD_SANDBOX_H
#define LC_PRELOAD_SANDBOX_H

#include "leapclock.h"

#include <stdint.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

/* The socket's path (LEAPCLOCK_TIMELINE names the page beside it). */
#define LCP_ENV_SANDBOX "LEAPCLOCK_SANDBOX"

/* The host's BOOTTIME - MONOTONIC in ns when the sandbox started, set by
 * `leapclock run --sandbox` (else by the first shim that starts without
 * it): the sandbox's BOOTTIME is its MONOTONIC plus this in every process
 * of the program (shim.h lcp_boot_off). */
#define LCP_ENV_SB_BOOT "LEAPCLOCK_SANDBOX_BOOT"

#define LCP_SB_MAGIC 0x4c435342u /* "LCSB" */

/* The host's BOOTTIME - MONOTONIC (ns, >= 0) through `gettime` (the real
 * clock_gettime): the tightest of three MONOTONIC-bracketed samples. */
static inline int64_t lcp_sb_boot_sample(int (*gettime)(clockid_t,
                                                        struct timespec *))
{
	int64_t best = INT64_MAX, off = 0;

	for (int i = 0; i < 3; i++) {
		struct timespec m0, b, m1;
		int64_t a, z;

		gettime(CLOCK_MONOTONIC, &m0);
		gettime(CLOCK_BOOTTIME, &b);
		gettime(CLOCK_MONOTONIC, &m1);
		a = (int64_t)m0.tv_sec * 1000000000 + m0.tv_nsec;
		z = (int64_t)m1.tv_sec * 1000000000 + m1.tv_nsec;
		if (z - a < best) {
			best = z - a;
			off = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec -
			      (a + (z - a) / 2);
		}
	}
	return off < 0 ? 0 : off;
}

enum lcp_sb_op {
	LCP_SB_SETTIME = 1, /* clock_settime(CLOCK_REALTIME) and its kin */
	LCP_SB_ADJTIMEX = 2 /* adjtimex(2), any modes */
};

struct lcp_sb_req {
	uint32_t magic, op;
	int64_t sec, nsec;   /* SETTIME: the new REALTIME */
	struct lc_timex tx;  /* ADJTIMEX: in */
};

struct lcp_sb_rep {
	uint32_t magic;
	int32_t rc;          /* the call's return, or -errno */
	struct lc_timex tx;  /* ADJTIMEX: out */
};

/* struct timex (the kernel's and libc's, one layout on a 64-bit ABI) to
 * the library's and back: the shim's requests, and the raw syscalls the
 * writer's seccomp filter hands it (tools/leapclock/sbfilter.c). */
static inline void lcp_sb_to_lc(struct lc_timex *l, const struct timex *t)
{
	memset(l, 0, sizeof(*l));
	l->modes = t->modes;
	l->offset = t->offset;
	l->freq = t->freq;
	l->maxerror = t->maxerror;
	l->esterror = t->esterror;
	l->status = t->status;
	l->constant = t->constant;
	l->time.tv_sec = t->time.tv_sec;
	l->time.tv_usec = t->time.tv_usec;
	l->tick = t->tick;
}

static inline void lcp_sb_from_lc(struct timex *t, const struct lc_timex *l)
{
	unsigned int modes = t->modes;

	memset(t, 0, sizeof(*t));
	t->modes = modes;
	t->offset = (long)l->offset;
	t->freq = (long)l->freq;
	t->maxerror = (long)l->maxerror;
	t->esterror = (long)l->esterror;
	t->status = l->status;
	t->constant = (long)l->constant;
	t->precision = (long)l->precision;
	t->tolerance = (long)l->tolerance;
	t->time.tv_sec = (time_t)l->time.tv_sec;
	t->time.tv_usec = (suseconds_t)l->time.tv_usec;
	t->tick = (long)l->tick;
	t->ppsfreq = (long)l->ppsfreq;
	t->jitter = (long)l->jitter;
	t->shift = l->shift;
	t->stabil = (long)l->stabil;
	t->jitcnt = (long)l->jitcnt;
	t->calcnt = (long)l->calcnt;
	t->errcnt = (long)l->errcnt;
	t->stbcnt = (long)l->stbcnt;
	t->tai = l->tai;
}

/* The shim's client (sandbox.c). lcp_sb_on: 1 inside a sandbox. The
 * others return as the libc call they stand for (-1 with errno). */
int lcp_sb_on(void);
int lcp_sb_settime(int64_t sec, int64_t nsec);
int lcp_sb_adjtimex(struct timex *tx);

#endif
