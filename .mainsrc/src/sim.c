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
#include "sim_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_next(struct lc__sim *s)
{
	/* splitmix64 */
	uint64_t z = (s->rng += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
int64_t lc__sim_rng_range(struct lc__sim *s, int64_t lo, int64_t hi)
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

void lc__sim_push_ev(struct lc__sim *s, int64_t t, int kind, int idx, int64_t j)
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

int lc__sim_cpu_busy(const struct lc__sim *s, int64_t t)
{
	if (t >= s->reader0_from && t < s->reader0_to)
		return 1;
	for (int i = 1; i < s->nrd; i++)
		if (s->rd[i].cpu && reader_busy(&s->rd[i], t))
			return 1;
	return 0;
}

/* The next instant > t at which an idle CPU becomes busy (NEVER if none). */
int64_t lc__sim_next_busy_start(const struct lc__sim *s, int64_t t)
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

int lc__sim_add_interval(struct reader *r, int64_t a, int64_t b)
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
		lc__sim_trace_read(s, t, j, v[LC_CLOCK_REALTIME]);
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

/* The leap, the tick grid, the model and the horizon: 5 s each side of
 * the leap, or the smear window and 5 s. */
static int setup_leap(struct lc__sim *s, struct lc_error *err)
{
	const struct lc__sim_config *cfg = &s->cfg;
	lc_leaptable *table;
	int32_t tai_utc = 0;
	int64_t before, after;
	int rc;

	s->dir = cfg->scenario == LC__SIM_DELETE ? -1 : 1;
	s->res->dir = s->dir;
	s->leap_posix = cfg->leap_midnight * LC__NS - (s->dir < 0 ? LC__NS : 0);
	s->period = LC__NS / cfg->hz;
	s->rng = cfg->seed;
	s->theta = lc__sim_rng_range(s, 0, s->period);
	s->phi = lc__sim_rng_range(s, 0, s->period);
	s->m0 = 1000 * LC__NS;
	s->ops = lc__sim_is_kernel(cfg->model) || cfg->model == LC__SIM_SLEW_ALL
	             ? &lc__sim_kernel_ops
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
	s->res->tai_continuous = 1;
	return 0;
}

/* The model's setup, the timers and readers, and the model's own pass.
 * Returns 1 if the run goes on, 0 if the model is not available here. */
static int build(struct lc__sim *s, struct lc_error *err)
{
	const struct lc__sim_config *cfg = &s->cfg;
	int rc;

	if (s->ops->setup != NULL) {
		rc = s->ops->setup(s, err);
		if (rc < 0 || !s->res->available)
			return rc;
	}
	rc = lc__sim_build_timers(s);
	if (rc == 0)
		rc = lc__sim_build_readers(s);
	if (rc < 0)
		return rc;
	rc = s->ops->prepare(s, err);
	if (rc < 0 || !s->res->available)
		return rc;
	s->res->leap_applied_after_ns =
	    s->t_apply != NEVER ? s->t_apply - s->t_leap : -1;
	if (cfg->reader_mode == LC__SIM_READER_IDLE &&
	    s->reader0_from == NEVER && !lc__sim_is_kernel(cfg->model) &&
	    cfg->model != LC__SIM_SLEW_ALL) {
		/* the exact models fire on time: the reader wakes then */
		s->reader0_from = s->tm[0].due_t;
		s->reader0_to = s->reader0_from + 2 * LC__NS;
	}
	if (s->reader0_from != NEVER)
		rc = lc__sim_add_interval(&s->rd[0], s->reader0_from,
		                          s->reader0_to);
	return rc < 0 ? rc : 1;
}

/* The instants next to which every reader's calls are evaluated, and the
 * trace's windows. */
static void mark_instants(struct lc__sim *s)
{
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
	if (s->cfg.trace != NULL) {
		lc__sim_add_window(s, s->t_leap);
		lc__sim_add_window(s, s->t_leap + LC__NS);
		lc__sim_add_window(s, s->t_apply);
		lc__sim_add_window(s, s->tm[0].fire_t >= 0 ? s->tm[0].fire_t
		                                           : s->tm[0].due_t);
		lc__sim_merge_windows(s);
	}
}

/* Updates ("ticks") for the timekeeper models: far from the leap every
 * far_step, within 5 s of it on the tick grid (NOHZ: only while the CPU is
 * busy, or after nohz_max_ns idle). */
static void schedule_updates(struct lc__sim *s)
{
	const struct lc__sim_config *cfg = &s->cfg;
	int64_t last = 0, t;

	for (t = 0; t < s->t_leap - 5 * LC__NS; t += lc__sim_far_step(s, t))
		lc__sim_push_ev(s, t, EV_UPDATE, 0, 0);
	for (t = lc__sim_grid_ceil(s, s->t_leap - 5 * LC__NS);
	     t < s->t_leap + 5 * LC__NS; t += s->period) {
		if (!cfg->nohz || lc__sim_cpu_busy(s, t) ||
		    t - last >= cfg->nohz_max_ns) {
			lc__sim_push_ev(s, t, EV_UPDATE, 0, 0);
			last = t;
			if (t >= s->t_leap - 100 * MS &&
			    t <= s->t_leap + 1100 * MS)
				push_x(s, t);
		}
	}
	for (; t < s->t_end; t += lc__sim_far_step(s, t))
		lc__sim_push_ev(s, t, EV_UPDATE, 0, 0);
}

/* Every event of the run, in true-time order. */
static int schedule(struct lc__sim *s)
{
	int rc;

	if (s->ops->update != NULL)
		schedule_updates(s);
	if (s->ops->arm != NULL)
		for (int i = 0; i < s->ntm; i++)
			lc__sim_push_ev(s, s->tm[i].arm_t, EV_ARM, i, 0);
	for (int i = 0; i < s->nrd - 1; i++) {
		rc = lc__sim_reader_events(s, i);
		if (rc < 0)
			return rc;
	}
	lc__sim_observer_events(s);
	if (s->oom)
		return LC_ENOMEM;
	qsort(s->ev, s->nev, sizeof(*s->ev), lc__sim_cmp_ev);
	return 0;
}

/* Replays the events through the model, checking each reading. */
static void replay(struct lc__sim *s)
{
	if (s->cfg.trace != NULL)
		lc__sim_trace_begin(s);
	for (size_t e = 0; e < s->nev; e++) {
		struct ev *ev = &s->ev[e];
		if (s->ops->advance != NULL)
			s->ops->advance(s, ev->t);
		s->res->events++;
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
	if (s->cfg.trace != NULL)
		s->cfg.trace->end(s->cfg.trace->arg);
}

/* The readers' and the timers' findings into the result. */
static void summarise(struct lc__sim *s)
{
	struct lc__sim_result *res = s->res;

	for (int i = 0; i < s->nrd; i++) {
		close_stale(s, &s->rd[i]);
		/* what one reader saw (the most any reader saw) */
		for (int c = 0; c < LC_CLOCK_COUNT; c++)
			if (res->backsteps[c] >= 0 &&
			    s->rd[i].back[c] > res->backsteps[c])
				res->backsteps[c] = s->rd[i].back[c];
	}
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
}

static int run(struct lc__sim *s, struct lc_error *err)
{
	int rc = setup_leap(s, err);

	if (rc < 0)
		return rc;
	rc = build(s, err);
	if (rc <= 0)
		return rc;
	mark_instants(s);
	rc = schedule(s);
	if (rc < 0)
		return rc;
	replay(s);
	summarise(s);
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
