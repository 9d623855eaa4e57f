/*
 * ntp.c - the NTP calls in libleapclock-preload.so: adjtimex, ntp_adjtime,
 * clock_adjtime, adjtime and ntp_gettime(x), read-only. The time, the TAI
 * offset and the leap state are the program's (its timekeeper's), the rest
 * of the NTP state the host's; any setting fails with EPERM.
 */
#define _GNU_SOURCE

#include "shim.h"

#include "sandbox.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

/* ntp_gettime's old ABI (the header redirects the name to ntp_gettimex) */
LCP_EXPORT int lcp_ntp_gettime_compat(struct ntptimeval *ntv)
	__asm__("ntp_gettime");

/* adjtime in the sandbox: ADJ_OFFSET_SINGLESHOT, as glibc makes it */
static int sb_adjtime(const struct timeval *delta, struct timeval *olddelta)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	if (delta != NULL) {
		/* glibc's bound: the microseconds must fit a long's int */
		if (delta->tv_sec > 2147483647L / 1000000L - 2 ||
		    delta->tv_sec < -2147483647L / 1000000L + 2) {
			errno = EINVAL;
			return -1;
		}
		tx.offset = (long)(delta->tv_sec * 1000000L + delta->tv_usec);
		tx.modes = ADJ_OFFSET_SINGLESHOT;
	} else {
		tx.modes = ADJ_OFFSET_SS_READ;
	}
	if (lcp_sb_adjtimex(&tx) < 0)
		return -1;
	if (olddelta != NULL) {
		olddelta->tv_sec = tx.offset / 1000000L;
		olddelta->tv_usec = tx.offset % 1000000L;
	}
	return 0;
}

LCP_EXPORT int adjtime(const struct timeval *delta, struct timeval *olddelta)
{
	if (lcp_sb_on())
		return sb_adjtime(delta, olddelta);
	if (delta != NULL) {
		errno = EPERM;
		return -1;
	}
	if (REAL(adjtime) == NULL && !lcp_ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	return REAL(adjtime)(NULL, olddelta); /* read-only */
}

/* The program's own NTP state, from its timekeeper: the snapshot's (a page
 * reader), else a read-only
 * adjtimex of the timekeeper under the writer's flag. Returns the clock
 * state, or -1 with errno set. */
static int timex_prog(struct lc_timex *l)
{
	int rc, tries = 0;

	memset(l, 0, sizeof(*l));
	if (lc__tk_is_reader(lcp_tk)) {
		rc = lc__tk_snapshot_timex(lcp_tk, l);
	} else {
		while (!lcp_writer_try()) {
			if (++tries > 1000) {
				errno = EAGAIN;
				return -1;
			}
			sched_yield();
		}
		rc = lc_adjtimex_unprivileged(lcp_tk, l);
		lcp_writer_done();
	}
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return rc;
}

/* The answer: the host's timex `h` (its adjtimex returned host_rc) with
 * the program's time, TAI offset, leap bits and clock state (`l`, rc). */
static int timex_merge(struct timex *tx, const struct timex *h, int host_rc,
                       const struct lc_timex *l, int rc)
{
	unsigned int modes = tx->modes;
	int64_t rt;

	*tx = *h;
	tx->modes = modes;
	tx->status = (h->status & ~(STA_INS | STA_DEL)) |
	             (l->status & (STA_INS | STA_DEL));
	tx->tai = l->tai;
	rt = lcp_prog_rt();
	tx->time.tv_sec = (time_t)lc__fdiv(rt, LC__NS);
	tx->time.tv_usec = (suseconds_t)(lc__fmod(rt, LC__NS) /
	                                 ((h->status & STA_NANO) ? 1 : 1000));
	if (lcp_sm.on) {
		/* A smeared clock hides the leap, as a host synced to a
		 * smearing server sees none: no leap bits, no leap state
		 * (a program acting on TIME_INS would apply the leap a
		 * second time on top of the smear). */
		tx->status &= ~(STA_INS | STA_DEL);
		return host_rc == TIME_ERROR ? TIME_ERROR : TIME_OK;
	}
	if (rc == TIME_OOP) /* the repeated second: Linux reads 23:59:59 */
		tx->time.tv_sec = (time_t)(l->time.tv_sec);
	/* The leap states are the program's; otherwise the host's verdict
	 * (TIME_ERROR when it is unsynchronised). */
	if (rc == TIME_INS || rc == TIME_DEL || rc == TIME_OOP ||
	    rc == TIME_WAIT)
		return rc;
	return host_rc == TIME_ERROR ? TIME_ERROR : rc;
}

/* adjtimex/ntp_adjtime/clock_adjtime(REALTIME): modes 0 (or the singleshot
 * read) only. The host's own NTP state (frequency, errors, sync status) is
 * read with a fresh modes-0 timex; the time, the TAI offset, the leap bits
 * and the clock state are leapclock's, so the program sees TIME_INS,
 * TIME_OOP, TIME_WAIT... at its own leap, whatever the host does. */
static int timex_read(struct timex *tx)
{
	struct timex h;
	struct lc_timex l;
	int rc, host_rc;

	if (lcp_null(tx)) {
		errno = EFAULT;
		return -1;
	}
	if (lcp_sb_on())
		return lcp_sb_adjtimex(tx); /* the sandbox's, all of it */
	if (tx->modes != 0 && tx->modes != ADJ_OFFSET_SS_READ) {
		errno = EPERM;
		return -1;
	}
	if (!lcp_ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.modes = tx->modes; /* 0 or ADJ_OFFSET_SS_READ: both read-only */
	host_rc = REAL(adjtimex)(&h);
	if (host_rc < 0)
		return host_rc;
	rc = timex_prog(&l);
	if (rc < 0)
		return -1;
	return timex_merge(tx, &h, host_rc, &l, rc);
}

LCP_EXPORT int adjtimex(struct timex *tx)
{
	return timex_read(tx);
}

LCP_EXPORT int ntp_adjtime(struct timex *tx)
{
	return timex_read(tx);
}

LCP_EXPORT int clock_adjtime(clockid_t clk, struct timex *tx)
{
	struct timex h;

	if (lcp_null(tx)) {
		errno = EFAULT;
		return -1;
	}
	if (clk == CLOCK_REALTIME)
		return timex_read(tx);
	if (tx->modes != 0 && clk == CLOCK_TAI && lcp_sb_on()) {
		errno = EOPNOTSUPP; /* as Linux: CLOCK_TAI has no clock_adj */
		return -1;
	}
	if (tx->modes != 0) {
		errno = EPERM;
		return -1;
	}
	if (!lcp_ready_wait() || REAL(clock_adjtime) == NULL) {
		errno = EAGAIN;
		return -1;
	}
	memset(&h, 0, sizeof(h)); /* a fresh, read-only request */
	h.modes = 0;
	{
		int rc = REAL(clock_adjtime)(clk, &h);

		if (rc >= 0)
			*tx = h;
		return rc;
	}
}

/* The read-only adjtimex, as ntp_gettime(x) reports it; `with_tai` is 0
 * for the old struct (time, maxerror, esterror only). */
static int ntptimeval_read(struct ntptimeval *ntv, int with_tai)
{
	struct timex tx;
	int rc;

	memset(&tx, 0, sizeof(tx));
	rc = timex_read(&tx);
	if (rc < 0)
		return rc;
	ntv->time = tx.time;
	if (tx.status & STA_NANO)
		ntv->time.tv_usec /= 1000;
	ntv->maxerror = tx.maxerror;
	ntv->esterror = tx.esterror;
	if (with_tai)
		ntv->tai = tx.tai;
	return rc;
}

LCP_EXPORT int ntp_gettimex(struct ntptimeval *ntv)
{
	return ntptimeval_read(ntv, 1);
}

int lcp_ntp_gettime_compat(struct ntptimeval *ntv)
{
	return ntptimeval_read(ntv, 0);
}

