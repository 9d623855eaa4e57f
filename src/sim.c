/*
 * sim.c - the reproducer's engine and its kernel models (see sim.h and
 * docs/simulator.md).
 *
 * A run has three parts:
 *
 *  1. The scenario: the leap (insertion or deletion), the readers (reader 0
 *     spins on clock_gettime at a fixed cost per call; in the TIMERS
 *     scenarios other readers spin in short bursts; an observer samples every
 *     clock at a fixed stride), and the timers (absolute or relative, each
 *     with the true instant at which its own clock first reads its deadline).
 *  2. The model: kernel models (legacy, linux-4.2, force-tick) run their own
 *     discrete-event pass over ticks, idle wake-ups, clock-was-set and timer
 *     interrupts, and produce a timeline (when the leap was applied, when
 *     each timer fired) from which every reading is a closed form; slew-all is
 *     a closed form; exact and smear drive leapclock's timekeeper
 *     (sim_exact.c).
 *  3. The replay: every reading that matters, in true-time order, checked
 *     against the truth. A busy reader makes ~10^7 calls per simulated
 *     second, so not every call is evaluated: between two events of the model
 *     every clock is a continuous non-decreasing function of time, so the
 *     calls next to each event (and a coarse sample of the rest, and every
 *     call in the trace windows) see everything a reader can see.
 *
 * The kernel's behaviour being modelled (reference: linux-leap-semantics.md
 * sections 2 and 3):
 *  - The timekeeper accumulates elapsed time in whole tick intervals from an
 *    accumulation grid whose phase (phi behind the tick grid) is arbitrary,
 *    and runs the leap state machine when the accumulated time crosses a
 *    second. So the leap is applied by the first tick (or idle wake-up) at
 *    which the last accumulation point is at or past the leap: between phi
 *    and phi + 1 tick after it, i.e. up to two ticks late.
 *  - REALTIME readers (clock_gettime) see the old offset until then.
 *  - A REALTIME hrtimer expires when MONOTONIC + the base's REALTIME offset
 *    reaches its deadline. Before 4.2 that offset is the timekeeper's, so a
 *    timer due at 00:00:00 fires at the true instant 23:59:60, a second early.
 *    Since 4.2 the expiry path uses offset - 1 s from the leap instant on
 *    (insertion only), so it never fires early.
 *  - After the leap is applied, clock_was_set runs from a work item: on a CPU
 *    kept busy by a reader it runs at the next tick (when the scheduler
 *    preempts the reader), on an idle one right away. Timers on another CPU
 *    see the new offset only then: at a deletion, REALTIME timers due after
 *    the jump fire late by the stale window plus up to a tick.
 */
#include "sim.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS    INT64_C(1000000)
#define US    INT64_C(1000)
#define NEVER INT64_MAX
#define NOVAL INT64_MIN /* a clock the model does not have */

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
	/* trace */
	int64_t *tw; /* merged windows [tw[2k], tw[2k+1]] */
	size_t ntw;
	int tr_have;
	int64_t tr_us, tr_sec, tr_rt, tr_j;
	int tr_line_open, tr_force;
	int oom;
};

static uint64_t rng_next(struct lc__sim *s)
{
	/* splitmix64 */
	uint64_t z = (s->rng += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static int64_t rng_range(struct lc__sim *s, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo));
}

static void push_x(struct lc__sim *s, int64_t x)
{
	if (x < 0 || x == NEVER)
		return;
	if (s->nxs == s->capxs) {
		size_t cap = s->capxs ? s->capxs * 2 : 256;
		int64_t *p = realloc(s->xs, cap * sizeof(*p));
		if (p == NULL) {
			s->oom = 1;
			return;
		}
		s->xs = p;
		s->capxs = cap;
	}
	s->xs[s->nxs++] = x;
}

static void push_ev(struct lc__sim *s, int64_t t, int kind, int idx, int64_t j)
{
	if (s->nev == s->capev) {
		size_t cap = s->capev ? s->capev * 2 : 4096;
		struct ev *p = realloc(s->ev, cap * sizeof(*p));
		if (p == NULL) {
			s->oom = 1;
			return;
		}
		s->ev = p;
		s->capev = cap;
	}
	s->ev[s->nev].t = t;
	s->ev[s->nev].kind = kind;
	s->ev[s->nev].idx = idx;
	s->ev[s->nev].j = j;
	s->nev++;
}

/* ------------------------------------------------------------------------ */
/* The truth                                                                 */
/* ------------------------------------------------------------------------ */

/* The pre-leap continuous POSIX timeline: never steps. */
static int64_t p_of(const struct lc__sim *s, int64_t t)
{
	return s->start_posix + t;
}

/* UTC as a key that orders 23:59:60 correctly: sec * 2e9 + nsec, with
 * nsec in [1e9, 2e9) during an inserted second. */
static int64_t ukey(int64_t sec, int64_t nsec)
{
	return sec * 2 * LC__NS + nsec;
}

static int64_t ukey_ns(int64_t ns)
{
	return ukey(lc__fdiv(ns, LC__NS), lc__fmod(ns, LC__NS));
}

/* POSIX time: repeats 23:59:59 at an insertion, skips it at a deletion. */
static int64_t true_posix(const struct lc__sim *s, int64_t t)
{
	if (t < s->t_leap)
		return p_of(s, t);
	return p_of(s, t) - s->dir * LC__NS;
}

static int64_t true_utc_key(const struct lc__sim *s, int64_t t)
{
	if (s->dir > 0 && t >= s->t_leap && t < s->t_leap + LC__NS)
		return ukey(s->leap_posix / LC__NS - 1, LC__NS + t - s->t_leap);
	return ukey_ns(true_posix(s, t));
}

static int64_t true_tai(const struct lc__sim *s, int64_t t)
{
	return p_of(s, t) + s->tai_old;
}

/* slew-all's own smear: linear over 24 h centred on the leap, as the NTP
 * servers that smear (Google's public NTP) do it. */
#define SLEW_WINDOW (INT64_C(86400) * LC__NS)

static int64_t smear_off(const struct lc__sim *s, int64_t t)
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
static int64_t intended_rt(const struct lc__sim *s, int64_t t)
{
	if (s->realtime_smeared)
		return p_of(s, t) - smear_off(s, t);
	return true_posix(s, t);
}

/* The first true t in [lo, hi] with P(t) - smear(t) >= x (non-decreasing). */
static int64_t smeared_at(const struct lc__sim *s, int64_t x, int64_t lo)
{
	int64_t hi = x - s->start_posix + 2 * LC__NS;

	if (hi < lo)
		return lo;
	if (lo < 0)
		lo = 0;
	if (p_of(s, lo) - smear_off(s, lo) >= x)
		return lo;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (p_of(s, mid) - smear_off(s, mid) >= x)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The first true instant >= arm at which timer tm's own clock, as it should
 * read, is at or past its deadline (DESIGN.md invariant 2). */
static int64_t due_of(const struct lc__sim *s, const struct timer *tm)
{
	int64_t x = tm->value, t, sec, nsec;

	if (!tm->absolute)
		return tm->arm_t + x;
	switch (tm->clock) {
	case LC_CLOCK_MONOTONIC_RAW:
	case LC_CLOCK_MONOTONIC:
	case LC_CLOCK_BOOTTIME:
		t = x - s->m0;
		break;
	case LC_CLOCK_TAI:
		t = x - s->start_posix - s->tai_old;
		break;
	case LC_CLOCK_UTC_SLS:
		t = smeared_at(s, x, tm->arm_t);
		break;
	case LC_CLOCK_REALTIME:
		if (s->realtime_smeared) {
			t = smeared_at(s, x, tm->arm_t);
			break;
		}
		if (s->dir > 0 && true_posix(s, tm->arm_t) < x &&
		    x - s->start_posix < tm->arm_t &&
		    x - s->start_posix + LC__NS >= s->t_leap) {
			/* armed in the repeated 23:59:59 after its first
			 * pass reached x: the second pass reaches it */
			t = x - s->start_posix + LC__NS;
			break;
		}
		/* fall through: unsmeared REALTIME is UTC without 23:59:60 */
		x = ukey_ns(x);
		/* fall through */
	case LC_CLOCK_UTC:
	default:
		sec = lc__fdiv(x, 2 * LC__NS);
		nsec = lc__fmod(x, 2 * LC__NS);
		if (nsec >= LC__NS) /* 23:59:60.x */
			t = s->t_leap + nsec - LC__NS;
		else if (s->dir > 0)
			t = sec * LC__NS + nsec < s->leap_posix
			        ? sec * LC__NS + nsec - s->start_posix
			        : sec * LC__NS + nsec - s->start_posix + LC__NS;
		else if (sec * LC__NS + nsec < s->leap_posix)
			t = sec * LC__NS + nsec - s->start_posix;
		else if (sec * LC__NS + nsec < s->leap_posix + LC__NS)
			t = s->t_leap; /* deleted: 00:00:00 comes first */
		else
			t = sec * LC__NS + nsec - s->start_posix - LC__NS;
		break;
	}
	return t > tm->arm_t ? t : tm->arm_t;
}

/* ------------------------------------------------------------------------ */
/* Readers and the CPU                                                       */
/* ------------------------------------------------------------------------ */

static int reader_busy(const struct reader *r, int64_t t)
{
	size_t lo = 0, hi = r->niv;

	/* intervals are sorted and disjoint: binary search */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->iv[2 * mid + 1] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->niv && r->iv[2 * lo] <= t;
}

static int cpu_busy(const struct lc__sim *s, int64_t t)
{
	if (t >= s->reader0_from && t < s->reader0_to)
		return 1;
	for (int i = 1; i < s->nrd; i++)
		if (s->rd[i].cpu && reader_busy(&s->rd[i], t))
			return 1;
	return 0;
}

/* The next instant > t at which an idle CPU becomes busy (NEVER if none). */
static int64_t next_busy_start(const struct lc__sim *s, int64_t t)
{
	int64_t best = NEVER;

	if (s->reader0_from > t)
		best = s->reader0_from;
	for (int i = 1; i < s->nrd; i++) {
		const struct reader *r = &s->rd[i];
		if (!r->cpu)
			continue;
		for (size_t k = 0; k < r->niv; k++)
			if (r->iv[2 * k] > t) {
				if (r->iv[2 * k] < best)
					best = r->iv[2 * k];
				break;
			}
	}
	return best;
}

static int add_interval(struct reader *r, int64_t a, int64_t b)
{
	int64_t *p = realloc(r->iv, (r->niv + 1) * 2 * sizeof(*p));

	if (p == NULL)
		return LC_ENOMEM;
	r->iv = p;
	p[2 * r->niv] = a;
	p[2 * r->niv + 1] = b;
	r->niv++;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Kernel models: the discrete-event pass                                    */
/* ------------------------------------------------------------------------ */

static int is_kernel(int model)
{
	return model == LC__SIM_LEGACY || model == LC__SIM_LINUX42 ||
	       model == LC__SIM_FORCE_TICK;
}

/* First tick-grid point >= t (the grid: theta + k * period). */
static int64_t grid_ceil(const struct lc__sim *s, int64_t t)
{
	int64_t k = lc__fdiv(t - s->theta + s->period - 1, s->period);
	return s->theta + k * s->period;
}

/* The last accumulation point <= t (the accumulation grid lags the tick
 * grid by phi). */
static int64_t acc_floor(const struct lc__sim *s, int64_t t)
{
	int64_t o = s->theta - s->phi;
	return o + lc__fdiv(t - o, s->period) * s->period;
}

struct kstate {
	int applied, wait_done;
	int64_t last_update;
};

/* One timekeeping update at u that accumulated up to acc point a. */
static void k_update(struct lc__sim *s, struct kstate *k, int64_t u, int64_t a)
{
	k->last_update = u;
	if (!k->applied && a >= s->t_leap) {
		k->applied = 1;
		s->t_apply = u;
		/* clock_was_set's work item: next tick on a busy CPU */
		s->t_cws = cpu_busy(s, u) ? grid_ceil(s, u + 1)
		                          : u + s->cfg.timer_latency_ns;
	}
	if (k->applied && !k->wait_done && a >= s->t_leap + LC__NS) {
		k->wait_done = 1; /* TIME_OOP -> TIME_WAIT */
		s->t_wait = u;
	}
}

/* The REALTIME offset (REALTIME - kernel MONOTONIC) that the timer CPU's
 * hrtimer base uses at t. */
static int64_t k_timer_offs_real(const struct lc__sim *s, int64_t t)
{
	int64_t before = s->start_posix - s->m0;
	int64_t after = before - s->dir * LC__NS;

	if (s->cfg.model == LC__SIM_LINUX42 && s->dir > 0)
		/* look before it leaps: next_leap_ktime */
		return t >= s->t_leap ? after : before;
	return t >= s->t_cws ? after : before;
}

/* Earliest interrupt instant >= now at which timer tm expires if the
 * offsets stay as they are at now. */
static int64_t k_candidate(const struct lc__sim *s, const struct timer *tm,
                           int64_t now)
{
	int64_t lo = tm->arm_t > now ? tm->arm_t : now, x;

	if (!tm->absolute || tm->converted) {
		x = tm->converted ? tm->due_t : tm->arm_t + tm->value;
	} else {
		switch (tm->clock) {
		case LC_CLOCK_TAI:
			x = tm->value - s->start_posix - s->tai_old;
			break;
		case LC_CLOCK_REALTIME:
			x = tm->value - s->m0 - k_timer_offs_real(s, lo);
			break;
		default: /* MONOTONIC, BOOTTIME */
			x = tm->value - s->m0;
			break;
		}
	}
	return x > lo ? x : lo;
}

static int ticking(const struct lc__sim *s, int64_t g)
{
	if (!s->cfg.nohz)
		return 1;
	if (s->cfg.model == LC__SIM_FORCE_TICK && g >= s->t_conv &&
	    g < s->t_leap + LC__NS)
		return 1; /* the workaround: NOHZ off around midnight */
	return cpu_busy(s, g);
}

static int kernel_pass(struct lc__sim *s)
{
	struct kstate k = {0, s->dir < 0, 0};
	int64_t t = s->t_leap - 4 * LC__NS, g, x;
	int pending = 0;

	if (t < 0)
		t = 0;
	k.last_update = t;
	s->t_apply = s->t_wait = s->t_cws = NEVER;
	if (s->dir < 0)
		s->t_wait = NEVER;
	for (int i = 0; i < s->ntm; i++)
		s->tm[i].fire_t = -1;
	pending = s->ntm;
	g = grid_ceil(s, t);
	for (;;) {
		int64_t nt = NEVER, nb = NEVER, no = NEVER;
		int ti = -1;

		/* the next timer interrupt */
		for (int i = 0; i < s->ntm; i++) {
			int64_t c;
			if (s->tm[i].fire_t >= 0)
				continue;
			c = k_candidate(s, &s->tm[i], t);
			if (c < nt) {
				nt = c;
				ti = i;
			}
		}
		/* offset changes and the workaround's conversion */
		if (s->cfg.model == LC__SIM_LINUX42 && s->dir > 0 &&
		    t < s->t_leap)
			no = s->t_leap;
		if (s->t_cws != NEVER && s->t_cws > t && s->t_cws < no)
			no = s->t_cws;
		if (s->cfg.model == LC__SIM_FORCE_TICK && t < s->t_conv &&
		    s->t_conv < no)
			no = s->t_conv;
		if (s->cfg.nohz && !cpu_busy(s, t))
			nb = next_busy_start(s, t);
		x = g;
		if (no < x)
			x = no;
		if (nb < x)
			x = nb;
		if (nt < x)
			x = nt;
		if (x > s->t_end)
			break;
		if (pending == 0 && k.applied && k.wait_done &&
		    x > s->t_leap + 3 * LC__NS)
			break;
		s->res->events++;
		if (x == no) {
			t = x;
			if (s->cfg.model == LC__SIM_FORCE_TICK &&
			    x == s->t_conv) {
				/* every pending absolute REALTIME timer due
				 * from the leap to 2 s after becomes relative,
				 * with the leap counted in */
				for (int i = 0; i < s->ntm; i++) {
					struct timer *tm = &s->tm[i];
					if (tm->fire_t < 0 && tm->absolute &&
					    tm->arm_t <= x &&
					    tm->clock == LC_CLOCK_REALTIME &&
					    tm->value >= s->leap_posix &&
					    tm->value <
					        s->leap_posix + 2 * LC__NS)
						tm->converted = 1;
				}
			}
			continue;
		}
		if (x == g) {
			t = g;
			if (ticking(s, g))
				k_update(s, &k, g, g - s->phi);
			else if (g - k.last_update >= s->cfg.nohz_max_ns)
				k_update(s, &k, g,
				         g - s->phi); /* max deferment */
			g += s->period;
			continue;
		}
		if (x == nb) {
			/* idle exit: irq_enter brings jiffies and the wall
			 * time up to date */
			t = nb;
			k_update(s, &k, nb, acc_floor(s, nb));
			continue;
		}
		/* a timer interrupt */
		t = nt;
		if (s->cfg.nohz && !cpu_busy(s, nt) && nt > k.last_update)
			k_update(s, &k, nt, acc_floor(s, nt));
		if (k_candidate(s, &s->tm[ti], nt) <= nt) {
			struct timer *tm = &s->tm[ti];
			tm->fire_t = nt + s->cfg.timer_latency_ns;
			pending--;
			if (ti == 0 &&
			    s->cfg.reader_mode == LC__SIM_READER_IDLE) {
				s->reader0_from = tm->fire_t;
				s->reader0_to = tm->fire_t + 2 * LC__NS;
			}
		}
	}
	return 0;
}

/* slew-all's kernel clock c at t (its MONOTONIC runs slow by the smear). */
static int64_t slew_clock(const struct lc__sim *s, int clock, int64_t t)
{
	int64_t mono = s->m0 + t - smear_off(s, t);

	switch (clock) {
	case LC_CLOCK_TAI:
		return mono - s->m0 + s->start_posix + s->tai_old;
	case LC_CLOCK_REALTIME:
		return mono - s->m0 + s->start_posix;
	default:
		return mono;
	}
}

static int slew_pass(struct lc__sim *s)
{
	for (int i = 0; i < s->ntm; i++) {
		struct timer *tm = &s->tm[i];
		int clock = tm->absolute ? tm->clock : LC_CLOCK_MONOTONIC;
		int64_t target =
		    tm->absolute
		        ? tm->value
		        : slew_clock(s, LC_CLOCK_MONOTONIC, tm->arm_t) +
		              tm->value;
		int64_t lo = tm->arm_t, hi = lo + 4 * LC__NS;

		while (slew_clock(s, clock, hi) < target)
			hi += (target - slew_clock(s, clock, hi)) + LC__NS;
		if (slew_clock(s, clock, lo) >= target) {
			hi = lo;
		} else {
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;
				if (slew_clock(s, clock, mid) >= target)
					hi = mid;
				else
					lo = mid;
			}
		}
		tm->fire_t = hi + s->cfg.timer_latency_ns;
		if (i == 0 && s->cfg.reader_mode == LC__SIM_READER_IDLE) {
			s->reader0_from = tm->fire_t;
			s->reader0_to = tm->fire_t + 2 * LC__NS;
		}
	}
	s->t_apply = NEVER;
	return 0;
}

static int kernel_prepare(struct lc__sim *s, struct lc_error *err)
{
	int rc;

	(void)err;
	rc = s->cfg.model == LC__SIM_SLEW_ALL ? slew_pass(s) : kernel_pass(s);
	if (rc < 0)
		return rc;
	/* the fired timers in firing order (insertion sort by fire_t: the
	 * input is nearly sorted and small) */
	s->fire_order = calloc((size_t)s->ntm + 1, sizeof(*s->fire_order));
	if (s->fire_order == NULL)
		return LC_ENOMEM;
	for (int i = 0; i < s->ntm; i++) {
		int k;
		if (s->tm[i].fire_t < 0)
			continue;
		for (k = s->nfire; k > 0 && s->tm[s->fire_order[k - 1]].fire_t >
		                                s->tm[i].fire_t;
		     k--)
			s->fire_order[k] = s->fire_order[k - 1];
		s->fire_order[k] = i;
		s->nfire++;
	}
	return 0;
}

static void kernel_advance(struct lc__sim *s, int64_t t)
{
	/* report fires in order (for the trace), via the sorted index */
	while (s->fire_next < s->nfire) {
		int i = s->fire_order[s->fire_next];
		if (s->tm[i].fire_t > t)
			return;
		s->fire_next++;
		lc__sim_timer_fired(s, i, s->tm[i].fire_t);
	}
}

static void kernel_read(struct lc__sim *s, int64_t t, int64_t v[LC_CLOCK_COUNT])
{
	int64_t rt, sec, nsec;

	v[LC_CLOCK_MONOTONIC_RAW] = s->m0 + t;
	v[LC_CLOCK_UTC_SLS] = NOVAL;
	if (s->cfg.model == LC__SIM_SLEW_ALL) {
		v[LC_CLOCK_MONOTONIC] = slew_clock(s, LC_CLOCK_MONOTONIC, t);
		v[LC_CLOCK_BOOTTIME] = v[LC_CLOCK_MONOTONIC];
		v[LC_CLOCK_TAI] = slew_clock(s, LC_CLOCK_TAI, t);
		v[LC_CLOCK_REALTIME] = slew_clock(s, LC_CLOCK_REALTIME, t);
		v[LC_CLOCK_UTC] = ukey_ns(v[LC_CLOCK_REALTIME]);
		return;
	}
	v[LC_CLOCK_MONOTONIC] = v[LC_CLOCK_BOOTTIME] = s->m0 + t;
	v[LC_CLOCK_TAI] = p_of(s, t) + s->tai_old;
	rt = p_of(s, t) - (t >= s->t_apply ? s->dir * LC__NS : 0);
	v[LC_CLOCK_REALTIME] = rt;
	sec = lc__fdiv(rt, LC__NS);
	nsec = lc__fmod(rt, LC__NS);
	/* UTC as a program gets it from adjtimex: the time and TIME_OOP
	 * (23:59:60 while the state is OOP). */
	if (s->dir < 0) {
		if (s->cfg.model == LC__SIM_LINUX42 && t < s->t_apply &&
		    rt >= s->leap_posix)
			sec++; /* 4.2 read path: TIME_WAIT, time + 1 s */
		v[LC_CLOCK_UTC] = ukey(sec, nsec);
		return;
	}
	if (s->cfg.model == LC__SIM_LINUX42) {
		if (t < s->t_apply)
			v[LC_CLOCK_UTC] = rt >= s->leap_posix
			                      ? ukey(sec - 1, nsec + LC__NS)
			                      : ukey(sec, nsec);
		else if (t < s->t_wait && sec != s->leap_posix / LC__NS)
			v[LC_CLOCK_UTC] = ukey(sec, nsec + LC__NS);
		else
			v[LC_CLOCK_UTC] = ukey(sec, nsec);
		return;
	}
	/* legacy: the state follows the tick */
	if (t >= s->t_apply && t < s->t_wait)
		v[LC_CLOCK_UTC] = ukey(sec, nsec + LC__NS);
	else
		v[LC_CLOCK_UTC] = ukey(sec, nsec);
}

static const struct lc__sim_ops kernel_ops = {
    NULL, kernel_prepare, NULL, kernel_advance, NULL, kernel_read, NULL,
};

/* ------------------------------------------------------------------------ */
/* Accessors for sim_exact.c                                                 */
/* ------------------------------------------------------------------------ */

int64_t lc__sim_true_start_posix(const struct lc__sim *s)
{
	return s->start_posix;
}

int lc__sim_dir(const struct lc__sim *s)
{
	return s->dir;
}

int64_t lc__sim_leap_posix(const struct lc__sim *s)
{
	return s->leap_posix;
}

const struct lc__sim_config *lc__sim_cfg(const struct lc__sim *s)
{
	return &s->cfg;
}

const struct lc_smear_policy *lc__sim_policy(const struct lc__sim *s)
{
	return s->has_smear ? &s->policy : NULL;
}

void lc__sim_set_mono0(struct lc__sim *s, int64_t mono0)
{
	s->m0 = mono0;
}

void **lc__sim_model_state(struct lc__sim *s)
{
	return &s->model_state;
}

void lc__sim_timer_info(const struct lc__sim *s, int i, int *clock,
                        int *absolute, int64_t *value)
{
	const struct timer *tm = &s->tm[i];

	*clock = tm->clock;
	*absolute = tm->absolute;
	*value = tm->value;
}

int lc__sim_ntimers(const struct lc__sim *s)
{
	return s->ntm;
}

void lc__sim_unavailable(struct lc__sim *s, const char *note)
{
	s->res->available = 0;
	snprintf(s->res->note, sizeof(s->res->note), "%s", note);
}

/* ------------------------------------------------------------------------ */
/* Trace                                                                     */
/* ------------------------------------------------------------------------ */

static void fmt_tod(char *buf, size_t size, int64_t ns)
{
	int64_t sec = lc__fdiv(ns, LC__NS), sod = lc__fmod(sec, 86400);

	snprintf(buf, size, "%02d:%02d:%02d.%06d", (int)(sod / 3600),
	         (int)(sod / 60 % 60), (int)(sod % 60),
	         (int)(lc__fmod(ns, LC__NS) / 1000));
}

/* True UTC at t as text, with 23:59:60. */
static void fmt_true_utc(const struct lc__sim *s, char *buf, size_t size,
                         int64_t t)
{
	int64_t key = true_utc_key(s, t);
	int64_t sec = lc__fdiv(key, 2 * LC__NS),
	        nsec = lc__fmod(key, 2 * LC__NS);

	if (nsec >= LC__NS)
		snprintf(buf, size, "23:59:60.%06d",
		         (int)((nsec - LC__NS) / 1000));
	else
		fmt_tod(buf, size, sec * LC__NS + nsec);
}

static void trace_end_line(struct lc__sim *s)
{
	if (s->tr_line_open) {
		fputc('\n', s->cfg.trace);
		s->tr_line_open = 0;
	}
}

static int in_trace(const struct lc__sim *s, int64_t t)
{
	for (size_t k = 0; k < s->ntw; k++)
		if (t >= s->tw[2 * k] && t <= s->tw[2 * k + 1])
			return 1;
	return 0;
}

static void trace_read(struct lc__sim *s, int64_t t, int64_t j, int64_t rt)
{
	FILE *f = s->cfg.trace;
	int64_t us = lc__fdiv(rt, US), sec = lc__fdiv(rt, LC__NS);
	char buf[32];

	if (!in_trace(s, t))
		return;
	if (s->tr_have && !s->tr_force && us == s->tr_us && j == s->tr_j + 1) {
		fputc('.', f);
		s->tr_j = j;
		return;
	}
	trace_end_line(s);
	if (s->tr_have && j != s->tr_j + 1)
		fprintf(f, "...\n");
	if (s->tr_have && sec > s->tr_sec)
		fprintf(f, "+++\n");
	if (s->tr_have && rt < s->tr_rt)
		fprintf(f, "---\n");
	fmt_tod(buf, sizeof(buf), rt);
	fprintf(f, "%s ", buf);
	s->tr_line_open = 1;
	s->tr_force = 0;
	s->tr_have = 1;
	s->tr_us = us;
	s->tr_sec = sec;
	s->tr_rt = rt;
	s->tr_j = j;
}

void lc__sim_timer_fired(struct lc__sim *s, int i, int64_t t)
{
	struct timer *tm = &s->tm[i];
	char due[32], now[32];
	int64_t d;

	tm->fire_t = t;
	if (i != 0 || s->cfg.trace == NULL)
		return;
	trace_end_line(s);
	fmt_true_utc(s, now, sizeof(now), t);
	fmt_true_utc(s, due, sizeof(due), tm->due_t);
	d = tm->due_t - t;
	fprintf(s->cfg.trace,
	        "timer (REALTIME 00:00:00) fired at true %s, due "
	        "at %s: %s %" PRId64 ".%06" PRId64 " s\n",
	        now, due, d > 0 ? "early by" : "late by",
	        (d > 0 ? d : -d) / LC__NS, (d > 0 ? d : -d) % LC__NS / 1000);
	/* the next reading starts a new line */
	s->tr_force = 1;
}

/* ------------------------------------------------------------------------ */
/* Scenario                                                                  */
/* ------------------------------------------------------------------------ */

static int kernel_has_timer_clock(int clock)
{
	return clock == LC_CLOCK_MONOTONIC || clock == LC_CLOCK_BOOTTIME ||
	       clock == LC_CLOCK_TAI || clock == LC_CLOCK_REALTIME;
}

/* The reading a clock should have at true instant u (deadlines are drawn as
 * readings at random instants). */
static int64_t intended_reading(const struct lc__sim *s, int clock, int64_t u)
{
	switch (clock) {
	case LC_CLOCK_TAI:
		return true_tai(s, u);
	case LC_CLOCK_REALTIME:
		return intended_rt(s, u);
	case LC_CLOCK_UTC:
		return true_utc_key(s, u);
	case LC_CLOCK_UTC_SLS:
		return p_of(s, u) - smear_off(s, u);
	default:
		return s->m0 + u;
	}
}

static int build_timers(struct lc__sim *s)
{
	int exact =
	    !is_kernel(s->cfg.model) && s->cfg.model != LC__SIM_SLEW_ALL;
	int n = 1, per = s->cfg.ntimers, i = 0;
	int64_t arm0 = s->t_leap - 5 * LC__NS;
	int64_t midnight = s->dir > 0 ? s->leap_posix : s->leap_posix + LC__NS;

	if (s->cfg.scenario != LC__SIM_REPRODUCER)
		n += 1 + per * LC_CLOCK_COUNT + per / 4 + 1;
	s->tm = calloc((size_t)n, sizeof(*s->tm));
	if (s->tm == NULL)
		return LC_ENOMEM;
	/* timer 0: the reproducer's absolute REALTIME timer for 00:00:00 */
	s->tm[0].clock = LC_CLOCK_REALTIME;
	s->tm[0].absolute = 1;
	s->tm[0].value = midnight;
	s->tm[0].arm_t = arm0;
	i = 1;
	if (s->cfg.scenario != LC__SIM_REPRODUCER) {
		/* timer 1: the same, armed half a millisecond before the leap
		 * (after force-tick's conversion pass) */
		s->tm[1] = s->tm[0];
		s->tm[1].arm_t = s->t_leap - MS / 2;
		i = 2;
		for (int c = 0; c < LC_CLOCK_COUNT; c++) {
			if (!exact && !kernel_has_timer_clock(c))
				continue;
			if (c == LC_CLOCK_UTC_SLS && !s->has_smear)
				continue;
			for (int k = 0; k < per; k++) {
				struct timer *tm = &s->tm[i++];
				int64_t u =
				    rng_range(s, s->t_leap - 2 * LC__NS,
				              s->t_leap + 5 * LC__NS / 2);
				int64_t v;
				tm->clock = c;
				tm->absolute = 1;
				if (k % 4 == 0) /* on a whole second */
					u = s->t_leap +
					    (rng_range(s, -2, 3) * LC__NS);
				v = intended_reading(s, c, u);
				if (k % 4 == 0 && c != LC_CLOCK_UTC)
					v = lc__fdiv(v + LC__NS / 2, LC__NS) *
					    LC__NS;
				tm->value = v;
				/* some armed in the last ms before the leap */
				if (k % 7 == 3 && u > s->t_leap)
					tm->arm_t = rng_range(s, s->t_leap - MS,
					                      s->t_leap);
				else
					tm->arm_t = rng_range(s, arm0, u);
			}
		}
		for (int k = 0; k < per / 4 + 1; k++) {
			struct timer *tm = &s->tm[i++];
			tm->clock = LC_CLOCK_MONOTONIC;
			tm->absolute = 0;
			tm->arm_t = rng_range(s, s->t_leap - 3 * LC__NS,
			                      s->t_leap + LC__NS);
			tm->value = rng_range(s, 0, 2 * LC__NS);
		}
	}
	s->ntm = i;
	for (i = 0; i < s->ntm; i++) {
		s->tm[i].due_t = due_of(s, &s->tm[i]);
		s->tm[i].fire_t = -1;
	}
	return 0;
}

static int build_readers(struct lc__sim *s)
{
	int n = s->cfg.scenario == LC__SIM_REPRODUCER ? 1 : s->cfg.nreaders;
	int rc;

	if (n < 1)
		n = 1;
	s->nrd = n + 1; /* + the observer */
	s->rd = calloc((size_t)s->nrd, sizeof(*s->rd));
	if (s->rd == NULL)
		return LC_ENOMEM;
	s->rd[0].cost = s->cfg.read_cost_ns;
	s->rd[0].cpu = 1;
	if (s->cfg.reader_mode == LC__SIM_READER_BUSY) {
		s->reader0_from = s->t_leap - 5 * LC__NS;
		s->reader0_to = s->t_leap + 5 * LC__NS;
	} else {
		s->reader0_from = s->reader0_to = NEVER; /* set by the timer */
	}
	for (int i = 1; i < n; i++) {
		struct reader *r = &s->rd[i];
		int64_t t = s->t_leap - 3 * LC__NS;
		r->cost = rng_range(s, 50, 400);
		r->cpu = 1;
		while (t < s->t_leap + 3 * LC__NS) {
			int64_t a = t + rng_range(s, 0, 20 * MS);
			int64_t b = a + rng_range(s, 20 * US, 3 * MS);
			rc = add_interval(r, a, b);
			if (rc < 0)
				return rc;
			t = b;
		}
	}
	return 0;
}

/* Far from the leap (a smear window's hours), samples and updates every
 * 10 s; within a minute of it, every second. */
static int64_t far_step(const struct lc__sim *s, int64_t t)
{
	int64_t d = t > s->t_leap ? t - s->t_leap : s->t_leap - t;

	return d > 60 * LC__NS ? 10 * LC__NS : LC__NS;
}

/* The observer: samples every clock every 1 s (10 s far away), every
 * 10 ms from 2 s before to 3 s after the leap and every 1 ms from 0.1 s
 * before to 1.1 s after. */
static void observer_events(struct lc__sim *s)
{
	int idx = s->nrd - 1;
	int64_t j = 0, t;

	for (t = 0; t < s->t_leap - 2 * LC__NS; t += far_step(s, t))
		push_ev(s, t, EV_READ, idx, j++);
	for (t = s->t_leap - 2 * LC__NS; t < s->t_leap + 3 * LC__NS;
	     t += t >= s->t_leap - 100 * MS && t < s->t_leap + 1100 * MS
	              ? MS
	              : 10 * MS)
		push_ev(s, t, EV_READ, idx, j++);
	for (; t < s->t_end; t += far_step(s, t))
		push_ev(s, t, EV_READ, idx, j++);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

/* The calls of a cost-driven reader that are evaluated (see the top). */
static int reader_events(struct lc__sim *s, int idx)
{
	struct reader *r = &s->rd[idx];
	int64_t *js = NULL, jbase = 0;
	size_t nj = 0, cap = 0;

	for (size_t k = 0; k < r->niv; k++) {
		int64_t a = r->iv[2 * k], b = r->iv[2 * k + 1];
		int64_t n = (b - a + r->cost - 1) / r->cost, stride;

		if (n <= 0)
			continue;
		/* coarse samples: every 1 ms from 0.1 s before the leap to
		 * 1.1 s after, every 20 ms elsewhere */
		stride = 20 * MS / r->cost;
		if (stride < 1)
			stride = 1;
#define ADDJ(jj)                                                               \
	do {                                                                   \
		int64_t j_ = (jj);                                             \
		if (j_ >= 0 && j_ < n) {                                       \
			if (nj == cap) {                                       \
				size_t c_ = cap ? cap * 2 : 1024;              \
				int64_t *p_ = realloc(js, c_ * sizeof(*p_));   \
				if (p_ == NULL) {                              \
					free(js);                              \
					return LC_ENOMEM;                      \
				}                                              \
				js = p_;                                       \
				cap = c_;                                      \
			}                                                      \
			js[nj++] = j_;                                         \
		}                                                              \
	} while (0)
		nj = 0;
		ADDJ(0);
		ADDJ(n - 1);
		for (int64_t j = 0; j < n; j += stride)
			ADDJ(j);
		for (int64_t u = s->t_leap - 100 * MS;
		     u < s->t_leap + 1100 * MS; u += MS)
			if (u >= a && u < b)
				ADDJ((u - a) / r->cost);
		for (size_t m = 0; m < s->nxs; m++) {
			int64_t x = s->xs[m], j0;
			if (x < a || x >= b)
				continue;
			j0 = (x - a) / r->cost;
			for (int64_t d = -2; d <= 2; d++)
				ADDJ(j0 + d);
		}
		if (idx == 0 && s->cfg.trace != NULL)
			for (size_t w = 0; w < s->ntw; w++) {
				int64_t lo = s->tw[2 * w],
				        hi = s->tw[2 * w + 1];
				if (hi < a || lo >= b)
					continue;
				for (int64_t j = lo > a ? (lo - a) / r->cost
				                        : 0;
				     j < n && a + j * r->cost <= hi; j++)
					ADDJ(j);
			}
#undef ADDJ
		qsort(js, nj, sizeof(*js), cmp_i64);
		for (size_t m = 0; m < nj; m++)
			if (m == 0 || js[m] != js[m - 1])
				push_ev(s, a + js[m] * r->cost, EV_READ, idx,
				        jbase + js[m]);
		jbase += n + 1; /* a gap in j marks a new interval */
	}
	free(js);
	return s->oom ? LC_ENOMEM : 0;
}

static void add_window(struct lc__sim *s, int64_t x)
{
	int64_t *p;

	if (x < 0 || x == NEVER)
		return;
	p = realloc(s->tw, (s->ntw + 1) * 2 * sizeof(*p));
	if (p == NULL) {
		s->oom = 1;
		return;
	}
	s->tw = p;
	p[2 * s->ntw] = x - 20 * US;
	p[2 * s->ntw + 1] = x + 20 * US;
	s->ntw++;
}

/* Sorts the trace windows and merges those less than 2.5 ms apart, so that
 * a stale window of a few ticks prints in full. */
static void merge_windows(struct lc__sim *s)
{
	size_t k, m = 0;

	for (k = 1; k < s->ntw; k++) /* insertion sort, a handful */
		for (size_t q = k; q > 0 && s->tw[2 * q] < s->tw[2 * q - 2];
		     q--) {
			int64_t a = s->tw[2 * q], b = s->tw[2 * q + 1];
			s->tw[2 * q] = s->tw[2 * q - 2];
			s->tw[2 * q + 1] = s->tw[2 * q - 1];
			s->tw[2 * q - 2] = a;
			s->tw[2 * q - 1] = b;
		}
	for (k = 0; k < s->ntw; k++) {
		if (m > 0 && s->tw[2 * k] <= s->tw[2 * m - 1] + 5 * MS / 2) {
			if (s->tw[2 * k + 1] > s->tw[2 * m - 1])
				s->tw[2 * m - 1] = s->tw[2 * k + 1];
			continue;
		}
		s->tw[2 * m] = s->tw[2 * k];
		s->tw[2 * m + 1] = s->tw[2 * k + 1];
		m++;
	}
	s->ntw = m;
}

/* ------------------------------------------------------------------------ */
/* Metrics                                                                   */
/* ------------------------------------------------------------------------ */

static int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

static void close_stale(struct lc__sim *s, struct reader *r)
{
	if (r->stale_open &&
	    r->stale_last - r->stale_first > s->res->stale_read_ns)
		s->res->stale_read_ns = r->stale_last - r->stale_first;
	r->stale_open = 0;
}

static void on_read(struct lc__sim *s, int idx, int64_t t, int64_t j)
{
	struct reader *r = &s->rd[idx];
	struct lc__sim_result *res = s->res;
	int64_t v[LC_CLOCK_COUNT], e;

	s->ops->read(s, t, v);
	res->reads++;
	if (idx == 0 && s->cfg.trace != NULL)
		trace_read(s, t, j, v[LC_CLOCK_REALTIME]);
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		if (v[c] == NOVAL) {
			res->backsteps[c] = -1;
			continue;
		}
		if (r->have_prev && v[c] < r->prev[c])
			r->back[c]++;
	}
	/* stale: REALTIME half a second or more off what it should read, as
	 * a program reads it (not the observer, which also samples while the
	 * CPU is idle: no program runs then, and one that wakes brings the
	 * kernel's time up to date first) */
	if (r->cpu &&
	    absdiff(v[LC_CLOCK_REALTIME], intended_rt(s, t)) >= LC__NS / 2) {
		res->stale_reads++;
		if (!r->stale_open) {
			r->stale_open = 1;
			r->stale_first = t;
		}
		r->stale_last = t;
	} else {
		close_stale(s, r);
	}
	e = absdiff(v[LC_CLOCK_REALTIME], intended_rt(s, t));
	if (e > res->max_realtime_error_ns)
		res->max_realtime_error_ns = e;
	if (v[LC_CLOCK_UTC] == NOVAL)
		res->utc_wrong_reads = -1;
	else if (res->utc_wrong_reads >= 0 &&
	         v[LC_CLOCK_UTC] != true_utc_key(s, t))
		res->utc_wrong_reads++;
	e = absdiff(v[LC_CLOCK_TAI], true_tai(s, t));
	if (e > res->max_tai_error_ns)
		res->max_tai_error_ns = e;
	if (r->have_prev && absdiff(v[LC_CLOCK_TAI] - r->prev[LC_CLOCK_TAI],
	                            t - r->prev_t) > MS)
		res->tai_continuous = 0;
	/* the smear rate, over at least 100 ms */
	if (s->realtime_smeared) {
		int64_t rv = v[LC_CLOCK_REALTIME];
		if (!r->have_rate) {
			r->have_rate = 1;
			r->rate_t = t;
			r->rate_v = rv;
		} else if (t - r->rate_t >= 100 * MS) {
			double dt = (double)(t - r->rate_t);
			double rate =
			    fabs((double)(rv - r->rate_v) - dt) / dt * 1e6;
			if (rate > res->max_smear_rate_ppm)
				res->max_smear_rate_ppm = rate;
			r->rate_t = t;
			r->rate_v = rv;
		}
	}
	memcpy(r->prev, v, sizeof(v));
	r->prev_t = t;
	r->have_prev = 1;
}

/* ------------------------------------------------------------------------ */
/* Configuration                                                             */
/* ------------------------------------------------------------------------ */

void lc__sim_config_init(struct lc__sim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->model = LC__SIM_LEGACY;
	snprintf(cfg->preset, sizeof(cfg->preset), "google");
	cfg->scenario = LC__SIM_REPRODUCER;
	cfg->leap_midnight = INT64_C(1435708800); /* 2015-07-01 00:00:00 */
	cfg->hz = 1000;
	cfg->nohz = 0;
	cfg->nohz_max_ns = LC__NS;
	cfg->read_cost_ns = 100;
	cfg->timer_latency_ns = 5 * US;
	cfg->seed = 1;
	cfg->ntimers = 32;
	cfg->nreaders = 4;
	cfg->reader_mode = LC__SIM_READER_BUSY;
}

static const char *const model_names[LC__SIM_NMODELS] = {
    "legacy", "linux-4.2", "force-tick", "slew-all", "exact", "smear",
};

int lc__sim_model_parse(const char *name, struct lc__sim_config *cfg)
{
	if (strncmp(name, "smear:", 6) == 0 && name[6] != '\0' &&
	    strlen(name + 6) < sizeof(cfg->preset)) {
		cfg->model = LC__SIM_SMEAR;
		snprintf(cfg->preset, sizeof(cfg->preset), "%s", name + 6);
		return 0;
	}
	for (int m = 0; m < LC__SIM_NMODELS; m++)
		if (strcmp(name, model_names[m]) == 0) {
			cfg->model = m;
			return 0;
		}
	return LC_EINVAL;
}

void lc__sim_model_name(const struct lc__sim_config *cfg, char *buf,
                        size_t size)
{
	if (cfg->model == LC__SIM_SMEAR)
		snprintf(buf, size, "smear:%s", cfg->preset);
	else if (cfg->model >= 0 && cfg->model < LC__SIM_NMODELS)
		snprintf(buf, size, "%s", model_names[cfg->model]);
	else
		snprintf(buf, size, "?");
}

static const char *const scenario_names[] = {"reproducer", "timers", "delete"};

const char *lc__sim_scenario_name(int scenario)
{
	if (scenario < 0 || scenario > 2)
		return "?";
	return scenario_names[scenario];
}

int lc__sim_scenario_parse(const char *name, int *scenario)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, scenario_names[i]) == 0) {
			*scenario = i;
			return 0;
		}
	return LC_EINVAL;
}

/* ------------------------------------------------------------------------ */
/* The run                                                                   */
/* ------------------------------------------------------------------------ */

static void sim_free(struct lc__sim *s)
{
	if (s->rd != NULL)
		for (int i = 0; i < s->nrd; i++)
			free(s->rd[i].iv);
	free(s->rd);
	free(s->tm);
	free(s->fire_order);
	free(s->xs);
	free(s->ev);
	free(s->tw);
	free(s);
}

static int run(struct lc__sim *s, struct lc_error *err)
{
	const struct lc__sim_config *cfg = &s->cfg;
	struct lc__sim_result *res = s->res;
	lc_leaptable *table;
	int32_t tai_utc = 0;
	int64_t before, after, t;
	int rc;

	s->dir = cfg->scenario == LC__SIM_DELETE ? -1 : 1;
	res->dir = s->dir;
	s->leap_posix = cfg->leap_midnight * LC__NS - (s->dir < 0 ? LC__NS : 0);
	s->period = LC__NS / cfg->hz;
	s->rng = cfg->seed;
	s->theta = rng_range(s, 0, s->period);
	s->phi = rng_range(s, 0, s->period);
	s->m0 = 1000 * LC__NS;
	s->ops = is_kernel(cfg->model) || cfg->model == LC__SIM_SLEW_ALL
	             ? &kernel_ops
	             : &lc__sim_exact_ops;
	table = lc_leaptable_new();
	if (table == NULL)
		return LC_ENOMEM;
	rc = lc_leaptable_tai_utc(table, cfg->leap_midnight - 2, &tai_utc);
	lc_leaptable_free(table);
	if (rc < 0)
		return lc__error(err, LC_EINVAL, "--leap", 0,
		                 "the leap must be after 1972-01-01");
	s->tai_old = (int64_t)tai_utc * LC__NS;
	/* the horizon: 5 s each side, or the smear window and 5 s */
	before = after = 5 * LC__NS;
	if (cfg->model == LC__SIM_SLEW_ALL) {
		s->realtime_smeared = 1;
		before = after = SLEW_WINDOW / 2 + 5 * LC__NS;
	}
	if (cfg->model == LC__SIM_SMEAR) {
		rc = lc_smear_preset(cfg->preset, 0, &s->policy, err);
		if (rc < 0)
			return rc;
		s->has_smear = 1;
		s->realtime_smeared = 1;
		lc_smear_window_dir(&s->policy, 1, &s->win_start, &s->win_end);
		if (-s->win_start + 5 * LC__NS > before)
			before = -s->win_start + 5 * LC__NS;
		if (s->win_end + 5 * LC__NS > after)
			after = s->win_end + 5 * LC__NS;
	}
	s->t_leap = before;
	s->t_end = before + after;
	s->start_posix = s->leap_posix - s->t_leap;
	s->t_conv = s->t_leap - 2 * LC__NS;
	s->t_apply = s->t_wait = s->t_cws = NEVER;
	res->tai_continuous = 1;
	if (s->ops->setup != NULL) {
		rc = s->ops->setup(s, err);
		if (rc < 0 || !res->available)
			return rc;
	}
	rc = build_timers(s);
	if (rc == 0)
		rc = build_readers(s);
	if (rc < 0)
		return rc;
	rc = s->ops->prepare(s, err);
	if (rc < 0)
		return rc;
	if (!res->available)
		return 0;
	res->leap_applied_after_ns =
	    s->t_apply != NEVER ? s->t_apply - s->t_leap : -1;
	if (cfg->reader_mode == LC__SIM_READER_IDLE &&
	    s->reader0_from == NEVER && !is_kernel(cfg->model) &&
	    cfg->model != LC__SIM_SLEW_ALL) {
		/* the exact models fire on time: the reader wakes then */
		s->reader0_from = s->tm[0].due_t;
		s->reader0_to = s->reader0_from + 2 * LC__NS;
	}
	if (s->reader0_from != NEVER)
		rc = add_interval(&s->rd[0], s->reader0_from, s->reader0_to);
	if (rc < 0)
		return rc;
	/* the instants next to which every reader's calls are evaluated */
	for (int d = -1; d <= 2; d++)
		push_x(s, s->t_leap + d * LC__NS);
	push_x(s, s->t_apply);
	push_x(s, s->t_wait);
	push_x(s, s->t_cws);
	for (int i = 0; i < s->ntm; i++) {
		push_x(s, s->tm[i].due_t);
		if (s->tm[i].fire_t >= 0)
			push_x(s, s->tm[i].fire_t);
	}
	if (cfg->trace != NULL) {
		add_window(s, s->t_leap);
		add_window(s, s->t_leap + LC__NS);
		add_window(s, s->t_apply);
		add_window(s, s->tm[0].fire_t >= 0 ? s->tm[0].fire_t
		                                   : s->tm[0].due_t);
		merge_windows(s);
	}
	/* updates ("ticks") for the timekeeper models */
	if (s->ops->update != NULL) {
		int64_t last = 0;
		for (t = 0; t < s->t_leap - 5 * LC__NS; t += far_step(s, t))
			push_ev(s, t, EV_UPDATE, 0, 0);
		for (t = grid_ceil(s, s->t_leap - 5 * LC__NS);
		     t < s->t_leap + 5 * LC__NS; t += s->period) {
			if (!cfg->nohz || cpu_busy(s, t) ||
			    t - last >= cfg->nohz_max_ns) {
				push_ev(s, t, EV_UPDATE, 0, 0);
				last = t;
				if (t >= s->t_leap - 100 * MS &&
				    t <= s->t_leap + 1100 * MS)
					push_x(s, t);
			}
		}
		for (; t < s->t_end; t += far_step(s, t))
			push_ev(s, t, EV_UPDATE, 0, 0);
	}
	if (s->ops->arm != NULL)
		for (int i = 0; i < s->ntm; i++)
			push_ev(s, s->tm[i].arm_t, EV_ARM, i, 0);
	for (int i = 0; i < s->nrd - 1; i++) {
		rc = reader_events(s, i);
		if (rc < 0)
			return rc;
	}
	observer_events(s);
	if (s->oom)
		return LC_ENOMEM;
	qsort(s->ev, s->nev, sizeof(*s->ev), cmp_ev);
	if (cfg->trace != NULL) {
		char name[48];
		lc__sim_model_name(cfg, name, sizeof(name));
		fprintf(
		    cfg->trace,
		    "# %s, %s, HZ=%d%s: CLOCK_REALTIME as reader 0 reads it "
		    "around the leap (true UTC 23:59:60 starts at the "
		    "first +++ after 23:59:59).\n# One line per distinct "
		    "microsecond, a dot per repeated reading; +++ the "
		    "second increased, --- time went back, ... readings "
		    "left out.\n",
		    name, s->dir > 0 ? "insertion" : "deletion", cfg->hz,
		    cfg->nohz ? " NOHZ" : "");
	}
	for (size_t e = 0; e < s->nev; e++) {
		struct ev *ev = &s->ev[e];
		if (s->ops->advance != NULL)
			s->ops->advance(s, ev->t);
		res->events++;
		switch (ev->kind) {
		case EV_UPDATE:
			s->ops->update(s, ev->t);
			break;
		case EV_ARM:
			s->ops->arm(s, ev->idx, ev->t);
			break;
		default:
			on_read(s, ev->idx, ev->t, ev->j);
			break;
		}
	}
	if (s->ops->advance != NULL)
		s->ops->advance(s, s->t_end);
	if (cfg->trace != NULL) {
		trace_end_line(s);
		fflush(cfg->trace);
	}
	for (int i = 0; i < s->nrd; i++) {
		close_stale(s, &s->rd[i]);
		/* what one reader saw (the most any reader saw) */
		for (int c = 0; c < LC_CLOCK_COUNT; c++)
			if (res->backsteps[c] >= 0 &&
			    s->rd[i].back[c] > res->backsteps[c])
				res->backsteps[c] = s->rd[i].back[c];
	}
	/* timers */
	res->timers = s->ntm;
	for (int i = 0; i < s->ntm; i++) {
		const struct timer *tm = &s->tm[i];
		int64_t d;
		if (tm->fire_t < 0)
			continue;
		res->fired++;
		d = tm->due_t - tm->fire_t;
		if (d > 0) {
			res->early_fires++;
			if (d > res->max_early_ns)
				res->max_early_ns = d;
		} else if (-d > res->max_late_ns) {
			res->max_late_ns = -d;
		}
	}
	return 0;
}

int lc__sim_run(const struct lc__sim_config *cfg, struct lc__sim_result *res,
                struct lc_error *err)
{
	struct lc__sim *s;
	int rc;

	memset(res, 0, sizeof(*res));
	lc__sim_model_name(cfg, res->model, sizeof(res->model));
	res->scenario = cfg->scenario;
	res->hz = cfg->hz;
	res->nohz = cfg->nohz;
	res->available = 1;
	res->leap_applied_after_ns = -1;
	/* Labelled by the option of `leapclock simulate` that sets each. */
	if (cfg->model < 0 || cfg->model >= LC__SIM_NMODELS)
		return lc__error(err, LC_EINVAL, "--model", 0,
		                 "unknown model %d", cfg->model);
	if (cfg->scenario < 0 || cfg->scenario > LC__SIM_DELETE)
		return lc__error(err, LC_EINVAL, "--scenario", 0,
		                 "unknown scenario %d", cfg->scenario);
	if (cfg->hz < 1 || cfg->hz > 10000)
		return lc__error(err, LC_EINVAL, "--hz", 0,
		                 "%d is not in 1..10000", cfg->hz);
	if (cfg->leap_midnight % 86400 != 0)
		return lc__error(err, LC_EINVAL, "--leap", 0,
		                 "a leap second ends a UTC day");
	if (cfg->read_cost_ns < 1 || cfg->read_cost_ns > MS)
		return lc__error(err, LC_EINVAL, "--read-cost", 0,
		                 "%" PRId64 " ns is not in 1..1000000",
		                 cfg->read_cost_ns);
	if (cfg->timer_latency_ns < 0 || cfg->timer_latency_ns > 100 * MS)
		return lc__error(err, LC_EINVAL, "--timer-latency", 0,
		                 "%" PRId64 " ns is not in 0..100000000",
		                 cfg->timer_latency_ns);
	if (cfg->nohz_max_ns < MS)
		return lc__error(err, LC_EINVAL, "--nohz-max", 0,
		                 "%" PRId64 " ns is below 1000000",
		                 cfg->nohz_max_ns);
	if (cfg->ntimers < 0 || cfg->ntimers > 10000)
		return lc__error(err, LC_EINVAL, "--timers", 0,
		                 "%d is not in 0..10000", cfg->ntimers);
	if (cfg->nreaders < 1 || cfg->nreaders > 64)
		return lc__error(err, LC_EINVAL, "--readers", 0,
		                 "%d is not in 1..64", cfg->nreaders);
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return LC_ENOMEM;
	s->cfg = *cfg;
	s->res = res;
	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		res->backsteps[c] = 0;
	rc = run(s, err);
	if (s->ops != NULL && s->ops->finish != NULL)
		s->ops->finish(s);
	sim_free(s);
	if (rc == LC_ENOMEM)
		lc__error(err, rc, "simulation", 0, "out of memory");
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Summary lines (leapclock simulate and leapclock kernel-test)              */
/* ------------------------------------------------------------------------ */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void fmt_ms(char *buf, size_t size, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.3f", (double)ns / 1e6);
}

static void fmt_count(char *buf, size_t size, int64_t n)
{
	if (n < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRId64, n);
}

void lc__sim_print_columns(FILE *f)
{
	fprintf(f, "%-14s %-12s %5s %9s %8s %8s %13s %9s %6s %8s\n", "model",
	        "tick", "early", "(max ms)", "late", "stale",
	        "back rt/utc/m/tai", "TAI err", "smear", "applied");
}

void lc__sim_print_row(FILE *f, const struct lc__sim_result *r)
{
	char tick[24], maxe[24], late[24], stale[24], back[112], tai[24],
	    smear[24], appl[24], b[4][24];
	int64_t mono = r->backsteps[LC_CLOCK_MONOTONIC];

	if (r->hz > 0)
		snprintf(tick, sizeof(tick), "HZ=%d%s", r->hz,
		         r->nohz ? " NOHZ" : "");
	else
		snprintf(tick, sizeof(tick), "real"); /* kernel-test */
	if (!r->available) {
		fprintf(f, "%-14s %-12s  not available: %s\n", r->model, tick,
		        r->note);
		return;
	}
	if (r->backsteps[LC_CLOCK_MONOTONIC_RAW] > mono)
		mono = r->backsteps[LC_CLOCK_MONOTONIC_RAW];
	if (r->backsteps[LC_CLOCK_BOOTTIME] > mono)
		mono = r->backsteps[LC_CLOCK_BOOTTIME];
	fmt_ms(maxe, sizeof(maxe), r->early_fires ? r->max_early_ns : -1);
	fmt_ms(late, sizeof(late), r->max_late_ns);
	fmt_ms(stale, sizeof(stale), r->stale_read_ns);
	fmt_count(b[0], sizeof(b[0]), r->backsteps[LC_CLOCK_REALTIME]);
	fmt_count(b[1], sizeof(b[1]), r->backsteps[LC_CLOCK_UTC]);
	fmt_count(b[2], sizeof(b[2]), mono);
	fmt_count(b[3], sizeof(b[3]), r->backsteps[LC_CLOCK_TAI]);
	snprintf(back, sizeof(back), "%s/%s/%s/%s", b[0], b[1], b[2], b[3]);
	snprintf(tai, sizeof(tai), "%.3f%s", (double)r->max_tai_error_ns / 1e6,
	         r->tai_continuous ? "" : "!");
	snprintf(smear, sizeof(smear), "%.2f", r->max_smear_rate_ppm);
	fmt_ms(appl, sizeof(appl), r->leap_applied_after_ns);
	fprintf(f, "%-14s %-12s %5" PRId64 " %9s %8s %8s %13s %9s %6s %8s\n",
	        r->model, tick, r->early_fires, maxe, late, stale, back, tai,
	        smear, appl);
}

void lc__sim_print_json(FILE *f, const struct lc__sim_result *r, int first)
{
	static const char *const names[LC_CLOCK_COUNT] = {
	    "monotonic_raw", "monotonic", "boottime", "tai",
	    "realtime",      "utc",       "utc_sls",
	};

	fprintf(f, "%s\n  {\"model\": ", first ? "" : ",");
	json_str(f, r->model);
	fprintf(f,
	        ", \"scenario\": \"%s\", \"hz\": %d, \"nohz\": %s, "
	        "\"leap\": \"%s\", \"available\": %s",
	        lc__sim_scenario_name(r->scenario), r->hz,
	        r->nohz ? "true" : "false", r->dir > 0 ? "insert" : "delete",
	        r->available ? "true" : "false");
	if (!r->available) {
		fprintf(f, ", \"note\": ");
		json_str(f, r->note);
		fprintf(f, "}");
		return;
	}
	fprintf(f,
	        ",\n   \"timers\": %" PRId64 ", \"fired\": %" PRId64
	        ", \"early_fires\": %" PRId64 ", \"max_early_ns\": %" PRId64
	        ", \"max_late_ns\": %" PRId64
	        ",\n   \"stale_read_ns\": %" PRId64
	        ", \"stale_reads\": %" PRId64 ",\n   \"backsteps\": {",
	        r->timers, r->fired, r->early_fires, r->max_early_ns,
	        r->max_late_ns, r->stale_read_ns, r->stale_reads);
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		fprintf(f, "%s\"%s\": ", c ? ", " : "", names[c]);
		if (r->backsteps[c] < 0)
			fprintf(f, "null");
		else
			fprintf(f, "%" PRId64, r->backsteps[c]);
	}
	fprintf(f,
	        "},\n   \"tai_continuous\": %s, \"max_tai_error_ns\": %" PRId64
	        ", \"max_smear_rate_ppm\": %.3f, \"leap_applied_after_ns\": ",
	        r->tai_continuous ? "true" : "false", r->max_tai_error_ns,
	        /* no -0.000 */
	        fabs(r->max_smear_rate_ppm) < 0.0005 ? 0.0
	                                             : r->max_smear_rate_ppm);
	if (r->leap_applied_after_ns < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRId64, r->leap_applied_after_ns);
	fprintf(f,
	        ",\n   \"max_realtime_error_ns\": %" PRId64
	        ", \"utc_wrong_reads\": ",
	        r->max_realtime_error_ns);
	if (r->utc_wrong_reads < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRId64, r->utc_wrong_reads);
	fprintf(f, "}");
}
