/*
 * tk_writer.h - the timekeeper's writer: its state (struct lc_timekeeper)
 * and the steps every writer operation is made of, for the modules that
 * together make up the writer. Not public; besides them only bounds.c
 * (which computes the published error bound from the writer's state) and
 * tests/test_timeline.c (which checks that a page reader's writer state
 * stays unused) include it; readers and timers go through timekeeper.h,
 * the snapshot.
 *
 *	timekeeper.c	the tick (lc_update), the steps below, publication,
 *			the readers
 *	tk_new.c	creation, and the hand-over to and from a timeline page
 *	tk_set.c	setting the time: lc_settime, lc_adjtimex
 *	tk_follow.c	following the host (tk_follow.h)
 *	bounds.c	the error bound's sources (bounds.h)
 *
 * and the pure parts they call: tk_schedule.c (the smear schedule),
 * tk_sls.c (UTC_SLS from a snapshot), tk_inverse.c (timers' inverses),
 * ntp.c (the kernel's state machine), hostfollow.c (the following
 * decision).
 *
 * A writer operation takes tk->lock, brings the state to now
 * (lc__tkw_advance()), changes what it changes, and ends with
 * lc__tkw_finish() (the new rate, the pending leap re-armed, the smear
 * schedule with it, publication).
 */
#ifndef LC_TK_WRITER_H
#define LC_TK_WRITER_H

#include "timekeeper.h"

#include "bounds.h"
#include "hostfollow.h"
#include "ntp.h"
#include "tk_schedule.h"

#include <pthread.h>

/* The nominal rate in ns << 32 per second, and 1 ppb of it. */
#define LC__TK_RATE_NOMINAL  ((__int128)LC__NS << 32)
#define LC__TK_PPB_RATE(ppb) ((__int128)(ppb) * ((__int128)1 << 32))

struct lc_timekeeper {
	struct lc__tk_pub pub;       /* must be first: the latch readers use */
	struct lc__tk_latch own;     /* the latch, unless a timeline page's */
	struct lc__tk_latch *wlatch; /* where the writer publishes */
	/* A reader of a timeline page (lc__tk_new_reader): pub.latch is the
	 * page's, read-only; the writer state below is unused until
	 * lc__tk_resume() makes it a writer from the page's snapshot. */
	int reader;
	void (*reader_update)(struct lc_timekeeper *tk, void *arg);
	void *reader_arg;

	pthread_mutex_t lock;
	lc_counter *counter;
	struct lc_tk_config cfg;
	const lc_leaptable *table;
	lc_leaptable *own_table;

	struct lc__tk_snap s; /* the writer's current state */
	struct lc__ntp ntp;
	unsigned shift;
	__int128 mq, raw_mq;   /* ideal mult << 32 */
	__int128 err, raw_err; /* ideal - published, shifted ns << 32 */
	int64_t next_sec;      /* the next POSIX second boundary to process */
	struct lc__tk_sched sched; /* the smear plans' schedule */

	/* following the host (tk_follow.c) */
	struct lc_tk_host host;
	int64_t steer_ppb;    /* the rate steer, ppb */
	int64_t steer_i_ppb;  /* its integral part (hf's) */
	uint64_t hf_last_cws; /* the step signal count last acted on */
	int64_t last_update_mono;
	struct lc__hf_state hf; /* what the decision learnt (hostfollow.h) */
	int64_t hf_offs_tai;    /* offs_tai as the last sample left it: */
	int hf_offs_tai_valid;  /* another value means our clock was set */
	/* the error bound's parts at the last sample (bounds.c): published
	 * in s.bound at each publication. bnd.mode_ns is what a declared
	 * host mode adds: its code sets it at each sample. */
	struct lc__bnd_src bnd;
	/* the declared host mode's hold (tk_follow.c): since when the host
	 * is no reference, and the bound then */
	int hold_on;
	int64_t hold_mono, hold_err0;
	/* detection (hostdetect.c), undeclared: the presets' curves */
	struct lc__hd_state hd;
	struct lc_smear_policy hd_presets[LC__HD_PRESETS];
	const char *hd_names[LC__HD_PRESETS];
	int hd_npresets; /* 0: not loaded yet */
	int hd_stderr;   /* in-process (lc_default): say it on stderr */
};

static inline int lc__tkw_table_mode(const struct lc_timekeeper *tk)
{
	return tk->cfg.leap_source == LC_LEAP_FROM_TABLE;
}

/* ---- timekeeper.c ----------------------------------------------------- */

/* The shift and the largest 64-bit cycle delta for a counter of `freq` Hz
 * (Linux's clocks_calc_mult_shift()). */
void lc__tkw_choose_shift(uint64_t freq, unsigned *shift, unsigned *maxbits);
/* Ideal mult << 32 for a rate in ns << 32 per second. */
__int128 lc__tkw_rate_to_mq(const struct lc_timekeeper *tk, __int128 rate);
/* mult from the NTP rate plus the host-following steer. */
void lc__tkw_set_rate(struct lc_timekeeper *tk);
/* TAI-UTC from the table at REALTIME second `sec` (`in_repeat`: the
 * inserted second rather than the first 23:59:59). */
int lc__tkw_table_tai(const struct lc_timekeeper *tk, int64_t sec,
                      int in_repeat, int32_t *tai);
/* The pending leap from the NTP state or the table, and the smear
 * schedule with it. */
/* LC_LEAP_FROM_TABLE, at creation and after a step (tk->next_sec is the
 * next boundary): the leap state as if the table had been followed all
 * along, the next table leap armed when its last day has begun. */
void lc__tkw_table_arm_now(struct lc_timekeeper *tk);
void lc__tkw_rearm(struct lc_timekeeper *tk, int64_t mono_now);
/* Publishes tk->s into the writer's latch. */
void lc__tkw_publish(struct lc_timekeeper *tk);
/* Brings the state to the counter's now; returns MONOTONIC now. */
int64_t lc__tkw_advance(struct lc_timekeeper *tk);
/* TAI-UTC from the table, where the table or the host rules it. */
void lc__tkw_sync_table_tai(struct lc_timekeeper *tk, int64_t mono_now);
/* The end of every writer operation (rate, leap, publication). */
void lc__tkw_finish(struct lc_timekeeper *tk);

/* ---- tk_set.c ----------------------------------------------------------- */

/* Steps REALTIME to `new_rt` at mono_now (TAI moves with it), as a
 * clock-was-set. */
void lc__tkw_step_to(struct lc_timekeeper *tk, int64_t mono_now,
                     int64_t new_rt);
/* After a step to REALTIME `v` (ns) that landed `nsec` (>= 1e9) into an
 * inserted second: the state as if the leap had just been applied there
 * (the repeated 23:59:59 on REALTIME, TIME_OOP until its end). */
void lc__tkw_enter_leap_second(struct lc_timekeeper *tk, int64_t mono_now,
                               int64_t v, int64_t nsec);

#endif /* LC_TK_WRITER_H */
