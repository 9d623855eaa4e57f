/*
 * sim_scenario.c - the simulator's scenario: when each timer is due by its
 * own clock (the truth), the timers and readers of a run, and the readings
 * that are evaluated (sim.c's top comment says why not all).
 */
#include "sim_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

int lc__sim_build_timers(struct lc__sim *s)
{
	int exact = !lc__sim_is_kernel(s->cfg.model) &&
	            s->cfg.model != LC__SIM_SLEW_ALL;
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
				int64_t u = lc__sim_rng_range(
				    s, s->t_leap - 2 * LC__NS,
				    s->t_leap + 5 * LC__NS / 2);
				int64_t v;
				tm->clock = c;
				tm->absolute = 1;
				if (k % 4 == 0) /* on a whole second */
					u = s->t_leap +
					    (lc__sim_rng_range(s, -2, 3) *
					     LC__NS);
				v = intended_reading(s, c, u);
				if (k % 4 == 0 && c != LC_CLOCK_UTC)
					v = lc__fdiv(v + LC__NS / 2, LC__NS) *
					    LC__NS;
				tm->value = v;
				/* some armed in the last ms before the leap */
				if (k % 7 == 3 && u > s->t_leap)
					tm->arm_t = lc__sim_rng_range(
					    s, s->t_leap - MS, s->t_leap);
				else
					tm->arm_t =
					    lc__sim_rng_range(s, arm0, u);
			}
		}
		for (int k = 0; k < per / 4 + 1; k++) {
			struct timer *tm = &s->tm[i++];
			tm->clock = LC_CLOCK_MONOTONIC;
			tm->absolute = 0;
			tm->arm_t = lc__sim_rng_range(s, s->t_leap - 3 * LC__NS,
			                              s->t_leap + LC__NS);
			tm->value = lc__sim_rng_range(s, 0, 2 * LC__NS);
		}
	}
	s->ntm = i;
	for (i = 0; i < s->ntm; i++) {
		s->tm[i].due_t = due_of(s, &s->tm[i]);
		s->tm[i].fire_t = -1;
	}
	return 0;
}

int lc__sim_build_readers(struct lc__sim *s)
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
		r->cost = lc__sim_rng_range(s, 50, 400);
		r->cpu = 1;
		while (t < s->t_leap + 3 * LC__NS) {
			int64_t a = t + lc__sim_rng_range(s, 0, 20 * MS);
			int64_t b = a + lc__sim_rng_range(s, 20 * US, 3 * MS);
			rc = lc__sim_add_interval(r, a, b);
			if (rc < 0)
				return rc;
			t = b;
		}
	}
	return 0;
}

/* Far from the leap (a smear window's hours), samples and updates every
 * 10 s; within a minute of it, every second. */
int64_t lc__sim_far_step(const struct lc__sim *s, int64_t t)
{
	int64_t d = t > s->t_leap ? t - s->t_leap : s->t_leap - t;

	return d > 60 * LC__NS ? 10 * LC__NS : LC__NS;
}

/* The observer: samples every clock every 1 s (10 s far away), every
 * 10 ms from 2 s before to 3 s after the leap and every 1 ms from 0.1 s
 * before to 1.1 s after. */
void lc__sim_observer_events(struct lc__sim *s)
{
	int idx = s->nrd - 1;
	int64_t j = 0, t;

	for (t = 0; t < s->t_leap - 2 * LC__NS; t += lc__sim_far_step(s, t))
		lc__sim_push_ev(s, t, EV_READ, idx, j++);
	for (t = s->t_leap - 2 * LC__NS; t < s->t_leap + 3 * LC__NS;
	     t += t >= s->t_leap - 100 * MS && t < s->t_leap + 1100 * MS
	              ? MS
	              : 10 * MS)
		lc__sim_push_ev(s, t, EV_READ, idx, j++);
	for (; t < s->t_end; t += lc__sim_far_step(s, t))
		lc__sim_push_ev(s, t, EV_READ, idx, j++);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int lc__sim_cmp_ev(const void *a, const void *b)
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
int lc__sim_reader_events(struct lc__sim *s, int idx)
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
				lc__sim_push_ev(s, a + js[m] * r->cost, EV_READ,
				                idx, jbase + js[m]);
		jbase += n + 1; /* a gap in j marks a new interval */
	}
	free(js);
	return s->oom ? LC_ENOMEM : 0;
}
