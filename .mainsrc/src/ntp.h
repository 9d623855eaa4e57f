/*
 * ntp.h - the adjtimex state machine, as Linux's kernel/time/ntp.c has it.
 *
 * Pure: no clock reads, no I/O, no locking. The timekeeper owns one
 * struct lc__ntp, serialises calls, and passes the time in. Units follow
 * Linux: time_freq and tick lengths are ns << 32 (per second here: we model
 * NTP_INTERVAL_FREQ = HZ = LC__NTP_HZ, and report per-second values to the
 * timekeeper), time_offset is ns << 32 / HZ, maxerror/esterror in us.
 *
 * Contract with the timekeeper (src/timekeeper.c):
 *  1. lc_adjtimex():   lc__ntp_validate() -> (SETOFFSET: the timekeeper steps
 *     the clock and calls lc__ntp_clear()) -> lc__ntp_adjtimex() -> the
 *     timekeeper re-reads lc__ntp_rate() and lc__ntp_pending_leap().
 *  2. each REALTIME second boundary the timekeeper crosses (in order, one
 *     call per boundary, `secs` = the POSIX second that begins):
 *     leap = lc__ntp_second_overflow(n, secs); leap is -1 (insert: REALTIME
 *     goes back one second), +1 (delete: it jumps forward), 0 otherwise.
 *  3. lc__ntp_pending_leap() says, for the state now, at which POSIX second
 *     the next leap will be applied and in which direction, so the timekeeper
 *     can apply it exactly at that instant in every read path.
 */
#ifndef LC_NTP_H
#define LC_NTP_H

#include "internal.h"

#define LC__NTP_HZ  1000 /* the modelled HZ (Linux's NTP_INTERVAL_FREQ) */
#define LC__USER_HZ 100  /* tick_usec is in units of 1/USER_HZ */

struct lc__ntp {
	int time_state;        /* LC_TIME_OK .. LC_TIME_ERROR */
	int time_status;       /* LC_STA_* */
	int64_t time_constant; /* 0..10 (internal: includes the +4) */
	int64_t time_maxerror; /* us */
	int64_t time_esterror; /* us */
	int64_t time_freq;     /* ns << 32 per second */
	int64_t time_offset;   /* ns << 32 / HZ, remaining phase to slew */
	int64_t time_reftime;  /* POSIX seconds of the last offset update */
	int64_t time_adjust;   /* us, remaining adjtime() slew */
	int64_t tick_usec;     /* us per USER_HZ tick */
	int64_t tick_length;   /* ns << 32 per tick, this second */
	int64_t tick_length_base;
	int64_t next_leap_sec; /* POSIX second of the leap, INT64_MAX if none */
	int32_t tai_offset;    /* TAI-UTC, seconds */
};

/* Linux's initial state: TIME_OK, STA_UNSYNC, tc 2, maxerror = esterror =
 * 16e6 us, tick_usec 10000, no leap, TAI offset 0. */
void lc__ntp_init(struct lc__ntp *n);
/* ntp_clear(), what setting the clock does: time_adjust = 0, STA_UNSYNC,
 * maxerror = esterror = NTP_PHASE_LIMIT, tick length = base, offset = 0,
 * next leap cleared. State and STA_INS/DEL are kept (Linux does). */
void lc__ntp_clear(struct lc__ntp *n);
/* The checks of timekeeping_validate_timex(), in Linux's order: returns 0,
 * LC_EINVAL or LC_EPERM (LC_EFAULT for tx == NULL). Changes nothing. */
int lc__ntp_validate(const struct lc_timex *tx, int privileged);
/* process_adjtimex_modes() and the read-back of ntp_adjtimex(): applies the
 * modes (except SETOFFSET, done by the caller first), fills the output
 * fields of *tx (time is the caller's: it sets tx->time), and returns the
 * clock state as adjtimex would, before the leap read-path override (which
 * the timekeeper applies from its exact state). `now_sec` is REALTIME in
 * POSIX seconds (for time_reftime). *tai_changed (may be NULL) is set to 1
 * when ADJ_TAI changed the offset, else 0. Input that lc__ntp_validate(tx, 1)
 * rejects returns that error and changes nothing (defensive re-check). */
int lc__ntp_adjtimex(struct lc__ntp *n, struct lc_timex *tx, int64_t now_sec,
                     int *tai_changed);
/* second_overflow(): one second boundary. Returns the leap to apply now, in
 * Linux's sign (-1 insert, +1 delete). It also moves n->tai_offset with the
 * leap (tai_offset -= leap), grows maxerror, and sets this second's
 * tick_length (lc__ntp_rate() changes at every boundary while a PLL offset
 * or an adjtime() slew is pending). */
int lc__ntp_second_overflow(struct lc__ntp *n, int64_t secs);
/* The length of the current second in ns << 32 (tick_length * HZ): the rate
 * the timekeeper steers MONOTONIC to. 1e9 << 32 when nothing is adjusted. */
int64_t lc__ntp_rate(const struct lc__ntp *n);
/* The leap the state machine will apply, given that the next second
 * boundary to be processed begins POSIX second `next_boundary_sec`:
 * returns +1 (insertion, applied when POSIX second *when_sec begins: the
 * clock then reads when_sec - 1 again), -1 (deletion: when the deleted
 * second *when_sec would begin, the clock jumps to *when_sec + 1), or 0.
 * Covers the case where STA_INS/DEL is set but the state machine has not yet
 * moved to TIME_INS/DEL (it moves at that next boundary), and a flag swapped
 * for the other one in TIME_INS/DEL (the next boundary cancels, the one after
 * arms the other direction): the answer is the leap that comes if nothing
 * changes the state again, so that the readers have it at once. */
int lc__ntp_pending_leap(const struct lc__ntp *n, int64_t next_boundary_sec,
                         int64_t *when_sec);
/* Optional: the adjtimex read path of Linux >= 4.2 (reference 2.3), for a
 * timekeeper that has not yet run the boundary at which a leap applies.
 * `sec` is REALTIME in POSIX seconds as the state machine's clock has it
 * (no leap applied that second_overflow has not returned yet). If sec is at
 * or past the armed leap: INS with STA_INS -> TIME_OOP, tx->tai + 1 and
 * tx->time.tv_sec - 1; DEL with STA_DEL -> TIME_WAIT, tai - 1, tv_sec + 1;
 * OOP and sec == the leap second -> TIME_WAIT. Returns the (possibly
 * replaced) `result`; changes nothing in *n. */
int lc__ntp_read_leap(const struct lc__ntp *n, int64_t sec, int result,
                      struct lc_timex *tx);

#endif
