/*
 * sim_kernel.c - the simulator's kernel models (see sim.c's top comment for
 * the behaviour modelled): legacy, linux-4.2 and force-tick run a
 * discrete-event pass over ticks, idle wake-ups, clock-was-set and timer
 * interrupts and give a timeline from which each reading is a closed form;
 * slew-all is a closed form.
 */
#include "sim_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Kernel models: the discrete-event pass                                    */
/* ------------------------------------------------------------------------ */

int lc__sim_is_kernel(int model)
{
	return model == LC__SIM_LEGACY || model == LC__SIM_LINUX42 ||
	       model == LC__SIM_FORCE_TICK;
}

/* First tick-grid point >= t (the grid: theta + k * period). */
int64_t lc__sim_grid_ceil(const struct lc__sim *s, int64_t t)
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
		s->t_cws = lc__sim_cpu_busy(s, u) ? lc__sim_grid_ceil(s, u + 1)
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
	return lc__sim_cpu_busy(s, g);
}

/* The next timer interrupt after t (NEVER if none), and its timer. */
static int64_t next_timer(const struct lc__sim *s, int64_t t, int *ti)
{
	int64_t nt = NEVER;

	*ti = -1;
	for (int i = 0; i < s->ntm; i++) {
		int64_t c;
		if (s->tm[i].fire_t >= 0)
			continue;
		c = k_candidate(s, &s->tm[i], t);
		if (c < nt) {
			nt = c;
			*ti = i;
		}
	}
	return nt;
}

/* The next change of a timer base's offset, or the workaround's
 * conversion, after t (NEVER if none). */
static int64_t next_offset_change(const struct lc__sim *s, int64_t t)
{
	int64_t no = NEVER;

	if (s->cfg.model == LC__SIM_LINUX42 && s->dir > 0 && t < s->t_leap)
		no = s->t_leap;
	if (s->t_cws != NEVER && s->t_cws > t && s->t_cws < no)
		no = s->t_cws;
	if (s->cfg.model == LC__SIM_FORCE_TICK && t < s->t_conv &&
	    s->t_conv < no)
		no = s->t_conv;
	return no;
}

/* force-tick at t_conv: every pending absolute REALTIME timer due from the
 * leap to 2 s after becomes relative, with the leap counted in. */
static void force_tick_convert(struct lc__sim *s, int64_t x)
{
	for (int i = 0; i < s->ntm; i++) {
		struct timer *tm = &s->tm[i];
		if (tm->fire_t < 0 && tm->absolute && tm->arm_t <= x &&
		    tm->clock == LC_CLOCK_REALTIME &&
		    tm->value >= s->leap_posix &&
		    tm->value < s->leap_posix + 2 * LC__NS)
			tm->converted = 1;
	}
}

/* The interrupt at nt for timer ti: on an idle NOHZ CPU the time is
 * brought up to date first; the timer fires if it is due by then.
 * Returns 1 if it fired. */
static int timer_interrupt(struct lc__sim *s, struct kstate *k, int64_t nt,
                           int ti)
{
	struct timer *tm = &s->tm[ti];

	if (s->cfg.nohz && !lc__sim_cpu_busy(s, nt) && nt > k->last_update)
		k_update(s, k, nt, acc_floor(s, nt));
	if (k_candidate(s, tm, nt) > nt)
		return 0;
	tm->fire_t = nt + s->cfg.timer_latency_ns;
	if (ti == 0 && s->cfg.reader_mode == LC__SIM_READER_IDLE) {
		s->reader0_from = tm->fire_t;
		s->reader0_to = tm->fire_t + 2 * LC__NS;
	}
	return 1;
}

static int kernel_pass(struct lc__sim *s)
{
	struct kstate k = {0, s->dir < 0, 0};
	int64_t t = s->t_leap - 4 * LC__NS, g, x;
	int pending;

	if (t < 0)
		t = 0;
	k.last_update = t;
	s->t_apply = s->t_wait = s->t_cws = NEVER;
	for (int i = 0; i < s->ntm; i++)
		s->tm[i].fire_t = -1;
	pending = s->ntm;
	g = lc__sim_grid_ceil(s, t);
	for (;;) {
		int ti;
		int64_t nt = next_timer(s, t, &ti), nb = NEVER;
		int64_t no = next_offset_change(s, t);

		if (s->cfg.nohz && !lc__sim_cpu_busy(s, t))
			nb = lc__sim_next_busy_start(s, t);
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
		t = x;
		if (x == no) {
			if (s->cfg.model == LC__SIM_FORCE_TICK &&
			    x == s->t_conv)
				force_tick_convert(s, x);
		} else if (x == g) {
			/* a tick; on an idle NOHZ CPU only at the longest
			 * deferment */
			if (ticking(s, g) ||
			    g - k.last_update >= s->cfg.nohz_max_ns)
				k_update(s, &k, g, g - s->phi);
			g += s->period;
		} else if (x == nb) {
			/* idle exit: irq_enter brings jiffies and the wall
			 * time up to date */
			k_update(s, &k, nb, acc_floor(s, nb));
		} else {
			pending -= timer_interrupt(s, &k, nt, ti);
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

const struct lc__sim_ops lc__sim_kernel_ops = {
    NULL, kernel_prepare, NULL, kernel_advance, NULL, kernel_read, NULL,
};
