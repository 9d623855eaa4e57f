/*
 * sim_impl.h - between the simulator's files (sim.c the engine and the run,
 * sim_scenario.c the timers and readers, sim_kernel.c the kernel models,
 * sim_trace.c the windows of reader 0's trace; sim_exact.c uses only sim.h).
 * Internal to the static lc_sim library: neither libleapclock nor the preload
 * shim contains the simulator.
 */
#ifndef LC_SIM_IMPL_H
#define LC_SIM_IMPL_H

#include "sim.h"

#include <math.h>

#define MS    INT64_C(1000000)
#define US    INT64_C(1000)
#define NEVER INT64_MAX
#define NOVAL INT64_MIN /* a clock the model does not have */

/* slew-all's own smear: linear over 24 h centred on the leap, as the NTP
 * servers that smear (Google's public NTP) do it. */
#define SLEW_WINDOW (INT64_C(86400) * LC__NS)

/* ------------------------------------------------------------------------ */
/* Run state                                                                 */
/* ------------------------------------------------------------------------ */

struct reader {
	int64_t *iv; /* busy intervals [iv[2k], iv[2k+1]) */
	size_t niv;
	int64_t cost; /* ns per call; 0: an observer with explicit samples */
	int cpu;      /* 1: keeps the CPU busy (observers do not) */
	int have_prev;
	int64_t prev_t, prev[LC_CLOCK_COUNT];
	int64_t back[LC_CLOCK_COUNT]; /* backward steps this reader saw */
	int stale_open;
	int64_t stale_first, stale_last;
	int64_t rate_t, rate_v; /* anchor for the smear-rate measurement */
	int have_rate;
};

struct timer {
	int clock;
	int absolute;
	int64_t value; /* deadline (UTC: key sec*2e9+nsec) or relative ns */
	int64_t arm_t;
	int64_t due_t;  /* first true instant its own clock reads >= value */
	int64_t fire_t; /* -1: not fired */
	int converted;  /* force-tick: turned into a relative timer */
};

enum { EV_UPDATE = 0, EV_ARM = 1, EV_READ = 2 };

struct ev {
	int64_t t;
	int kind;
	int idx;
	int64_t j; /* read index within its reader */
};

struct lc__sim {
	struct lc__sim_config cfg;
	struct lc__sim_result *res;
	const struct lc__sim_ops *ops;
	uint64_t rng;
	int dir;
	int64_t start_posix; /* POSIX ns at true 0, on the pre-leap timeline */
	int64_t leap_posix;  /* ins: 00:00:00 (E); del: the deleted 23:59:59 */
	int64_t t_leap;      /* true instant of the leap */
	int64_t tai_old;     /* TAI-UTC before the leap, ns */
	int64_t m0;          /* kernel MONOTONIC at true 0 */
	int64_t t_end;
	int64_t period, theta, phi;
	/* smearing: the model's policy window, relative to t_leap */
	int has_smear;
	int64_t win_start, win_end;
	struct lc_smear_policy policy;
	int realtime_smeared;
	/* kernel timeline */
	int64_t t_apply, t_wait, t_cws, t_conv;
	struct reader *rd;
	int nrd;
	struct timer *tm;
	int ntm;
	int64_t reader0_from, reader0_to;
	int64_t *xs;
	size_t nxs, capxs;
	int *fire_order; /* kernel models: fired timers by fire time */
	int nfire, fire_next;
	struct ev *ev;
	size_t nev, capev;
	void *model_state;
	/* trace windows (merged) [tw[2k], tw[2k+1]] */
	int64_t *tw;
	size_t ntw;
	int oom;
};

/* ------------------------------------------------------------------------ */
/* The truth                                                                 */
/* ------------------------------------------------------------------------ */

/* The pre-leap continuous POSIX timeline: never steps. */
static inline int64_t p_of(const struct lc__sim *s, int64_t t)
{
	return s->start_posix + t;
}

/* UTC as a key that orders 23:59:60 correctly: sec * 2e9 + nsec, with
 * nsec in [1e9, 2e9) during an inserted second. */
static inline int64_t ukey(int64_t sec, int64_t nsec)
{
	return sec * 2 * LC__NS + nsec;
}

static inline int64_t ukey_ns(int64_t ns)
{
	return ukey(lc__fdiv(ns, LC__NS), lc__fmod(ns, LC__NS));
}

/* POSIX time: repeats 23:59:59 at an insertion, skips it at a deletion. */
static inline int64_t true_posix(const struct lc__sim *s, int64_t t)
{
	if (t < s->t_leap)
		return p_of(s, t);
	return p_of(s, t) - s->dir * LC__NS;
}

static inline int64_t true_utc_key(const struct lc__sim *s, int64_t t)
{
	if (s->dir > 0 && t >= s->t_leap && t < s->t_leap + LC__NS)
		return ukey(s->leap_posix / LC__NS - 1, LC__NS + t - s->t_leap);
	return ukey_ns(true_posix(s, t));
}

static inline int64_t true_tai(const struct lc__sim *s, int64_t t)
{
	return p_of(s, t) + s->tai_old;
}

static inline int64_t smear_off(const struct lc__sim *s, int64_t t)
{
	int64_t rel = t - s->t_leap, x;

	if (s->cfg.model == LC__SIM_SLEW_ALL) {
		x = rel + SLEW_WINDOW / 2;
		if (x <= 0)
			return 0;
		if (x >= SLEW_WINDOW)
			return s->dir * LC__NS;
		/* offset = dir * 1 s * x / W, exact in double for these sizes
		 * (x and W < 2^47, the product rounds to the nearest ns) */
		return s->dir *
		       (int64_t)llround((double)x * 1e9 / (double)SLEW_WINDOW);
	}
	if (s->has_smear)
		return lc_smear_offset(&s->policy, s->dir, rel);
	return 0;
}

/* What REALTIME should read: POSIX time, or the smeared time for models that
 * map REALTIME to their smear. */
static inline int64_t intended_rt(const struct lc__sim *s, int64_t t)
{
	if (s->realtime_smeared)
		return p_of(s, t) - smear_off(s, t);
	return true_posix(s, t);
}

/* ---- sim.c: the engine --------------------------------------------------- */

int64_t lc__sim_rng_range(struct lc__sim *s, int64_t lo, int64_t hi);
void lc__sim_push_ev(struct lc__sim *s, int64_t t, int kind, int idx,
                     int64_t j);
int lc__sim_cpu_busy(const struct lc__sim *s, int64_t t);
int64_t lc__sim_next_busy_start(const struct lc__sim *s, int64_t t);
int lc__sim_add_interval(struct reader *r, int64_t a, int64_t b);

/* ---- sim_kernel.c: legacy, linux-4.2, force-tick, slew-all ----------------
 */

int lc__sim_is_kernel(int model);
int64_t lc__sim_grid_ceil(const struct lc__sim *s, int64_t t);
extern const struct lc__sim_ops lc__sim_kernel_ops;

/* ---- sim_scenario.c: the timers, the readers and their events ------------ */

int lc__sim_build_timers(struct lc__sim *s);
int lc__sim_build_readers(struct lc__sim *s);
int64_t lc__sim_far_step(const struct lc__sim *s, int64_t t);
void lc__sim_observer_events(struct lc__sim *s);
int lc__sim_cmp_ev(const void *a, const void *b);
int lc__sim_reader_events(struct lc__sim *s, int idx);

/* ---- sim_trace.c: reader 0's CLOCK_REALTIME around the leap ---------------
 */

/* Tells the tracer the run's heading. */
void lc__sim_trace_begin(struct lc__sim *s);
/* Reader 0's reading at t, if t is in a trace window. */
void lc__sim_trace_read(struct lc__sim *s, int64_t t, int64_t j, int64_t rt);
void lc__sim_add_window(struct lc__sim *s, int64_t x);
void lc__sim_merge_windows(struct lc__sim *s);

#endif /* LC_SIM_IMPL_H */
