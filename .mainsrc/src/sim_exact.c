/*
 * sim_exact.c - the reproducer's `exact` and `smear:PRESET` models: not a
 * model of leapclock but leapclock itself (the timekeeper on a simulated
 * counter, its timer loop, its smear policies), driven through the same
 * scenario as the kernel models in sim.c.
 *
 * The simulated counter runs at 1 GHz with no error, so its true time is the
 * simulation's true time. The timekeeper arms the leap from a table that
 * holds the real leaps before the simulated one and the simulated one itself
 * (an insertion or a deletion on any day), so a smear window that starts a
 * day early is planned as it would be in production.
 */
#include "sim.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct exact;

struct cb {
	struct exact *x;
	int i;
};

struct exact {
	struct lc__sim *s;
	lc_counter *counter;
	lc_leaptable *table;
	lc_timekeeper *tk;
	lc_loop *loop;
	lc_timer *timers;
	struct cb *cbs;
	int ntm;
};

static const char *const months[12] = {"Jan", "Feb", "Mar", "Apr",
                                       "May", "Jun", "Jul", "Aug",
                                       "Sep", "Oct", "Nov", "Dec"};

static int append_leap(char *buf, size_t size, size_t *len, int64_t when,
                       int dir)
{
	int64_t y;
	int m, d, n;

	/* the row names the day that ends with the leap */
	lc_civil_from_days(lc__fdiv(when, 86400) - 1, &y, &m, &d);
	n = snprintf(buf + *len, size - *len, "Leap\t%" PRId64 "\t%s\t%d\t%s\n",
	             y, months[m - 1], d,
	             dir > 0 ? "23:59:60\t+\tS" : "23:59:59\t-\tS");
	if (n < 0 || (size_t)n >= size - *len)
		return LC_ERANGE;
	*len += (size_t)n;
	return 0;
}

/* A tzdata leapseconds text: the built-in leaps before the simulated one,
 * then the simulated one. */
static int build_table(struct exact *x, struct lc_error *err)
{
	const struct lc__sim_config *cfg = lc__sim_cfg(x->s);
	lc_leaptable *b = lc_leaptable_new();
	char buf[8192];
	size_t len = 0, n;
	int rc = 0;

	if (b == NULL)
		return LC_ENOMEM;
	n = lc_leaptable_count(b);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct lc_leap l;
		if (lc_leaptable_get(b, i, &l) < 0 || l.dir == 0)
			continue;
		if (l.when >= cfg->leap_midnight)
			break;
		rc = append_leap(buf, sizeof(buf), &len, l.when, l.dir);
	}
	lc_leaptable_free(b);
	if (rc == 0)
		rc = append_leap(buf, sizeof(buf), &len, cfg->leap_midnight,
		                 lc__sim_dir(x->s));
	if (rc < 0)
		return rc;
	x->table = lc_leaptable_new();
	if (x->table == NULL)
		return LC_ENOMEM;
	return lc_leaptable_load_buffer(x->table, "<simulated leap table>", buf,
	                                len, LC_LEAPFMT_TZDATA, err);
}

static void on_timer(lc_timer *t, int status, void *data)
{
	struct cb *cb = data;

	(void)t;
	if (status == 0)
		lc__sim_timer_fired(cb->x->s, cb->i,
		                    lc_sim_true_ns(cb->x->counter));
}

static int exact_setup(struct lc__sim *s, struct lc_error *err)
{
	const struct lc__sim_config *cfg = lc__sim_cfg(s);
	struct lc_tk_config tc;
	struct exact *x = calloc(1, sizeof(*x));
	int rc;

	if (x == NULL)
		return LC_ENOMEM;
	*lc__sim_model_state(s) = x;
	x->s = s;
	rc = lc_counter_new_sim(&x->counter, UINT64_C(1000000000), 0);
	if (rc < 0)
		return rc;
	rc = build_table(x, err);
	if (rc < 0)
		return rc;
	lc_tk_config_init(&tc);
	tc.table = x->table;
	tc.leap_source = LC_LEAP_FROM_TABLE;
	tc.initial_realtime_ns = lc__sim_true_start_posix(s);
	tc.initial_tai_offset = -1;
	tc.smear = lc__sim_policy(s);
	tc.realtime_smeared = cfg->model == LC__SIM_SMEAR;
	rc = lc_tk_new(&x->tk, x->counter, &tc);
	if (rc < 0)
		return rc;
	rc = lc_loop_new(&x->loop, x->tk, LC_LOOP_UNLOCKED);
	if (rc < 0)
		return rc;
	if (lc_update(x->tk) < 0)
		return LC_EINVAL;
	lc__sim_set_mono0(s, lc_now_ns(x->tk, LC_CLOCK_MONOTONIC));
	return 0;
}

static int exact_prepare(struct lc__sim *s, struct lc_error *err)
{
	struct exact *x = *lc__sim_model_state(s);
	int rc;

	(void)err;
	x->ntm = lc__sim_ntimers(s);
	x->timers = calloc((size_t)x->ntm + 1, sizeof(*x->timers));
	x->cbs = calloc((size_t)x->ntm + 1, sizeof(*x->cbs));
	if (x->timers == NULL || x->cbs == NULL)
		return LC_ENOMEM;
	for (int i = 0; i < x->ntm; i++) {
		int clock, abs;
		int64_t v;
		lc__sim_timer_info(s, i, &clock, &abs, &v);
		x->cbs[i].x = x;
		x->cbs[i].i = i;
		rc = lc_timer_init(x->loop, &x->timers[i], (lc_clock_id)clock,
		                   on_timer, &x->cbs[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void exact_update(struct lc__sim *s, int64_t t)
{
	struct exact *x = *lc__sim_model_state(s);

	lc_sim_set_true_ns(x->counter, t);
	lc_update(x->tk);
}

static void exact_advance(struct lc__sim *s, int64_t t)
{
	struct exact *x = *lc__sim_model_state(s);
	int64_t now = lc_sim_true_ns(x->counter), mono;

	if (t <= now)
		return;
	/* MONOTONIC runs at the counter's rate: no frequency is steered */
	mono = lc_now_ns(x->tk, LC_CLOCK_MONOTONIC) + (t - now);
	lc_loop_run_sim(x->loop, mono);
	lc_sim_set_true_ns(x->counter, t);
}

static void exact_arm(struct lc__sim *s, int i, int64_t t)
{
	struct exact *x = *lc__sim_model_state(s);
	int clock, abs;
	int64_t v;

	lc_sim_set_true_ns(x->counter, t);
	lc__sim_timer_info(s, i, &clock, &abs, &v);
	if (abs && clock == LC_CLOCK_UTC) {
		/* the key sec * 2e9 + nsec back to the UTC convention */
		struct timespec ts;
		ts.tv_sec = (time_t)lc__fdiv(v, 2 * LC__NS);
		ts.tv_nsec = (long)lc__fmod(v, 2 * LC__NS);
		lc_timer_start(&x->timers[i], LC_TIMER_ABSTIME, &ts, NULL);
		return;
	}
	lc_timer_start_ns(&x->timers[i], abs ? LC_TIMER_ABSTIME : 0, v, 0);
}

static void exact_read(struct lc__sim *s, int64_t t, int64_t v[LC_CLOCK_COUNT])
{
	struct exact *x = *lc__sim_model_state(s);

	lc_sim_set_true_ns(x->counter, t);
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct timespec ts;
		if (lc_gettime(x->tk, (lc_clock_id)c, &ts) < 0) {
			v[c] = INT64_MIN;
			continue;
		}
		if (c == LC_CLOCK_UTC || c == LC_CLOCK_UTC_SLS)
			/* the 23:59:60 order: sec * 2e9 + nsec */
			v[c] = (int64_t)ts.tv_sec * 2 * LC__NS + ts.tv_nsec;
		else
			v[c] = lc__ts_to_ns(&ts);
	}
}

static void exact_finish(struct lc__sim *s)
{
	struct exact *x = *lc__sim_model_state(s);

	if (x == NULL)
		return;
	if (x->timers != NULL)
		for (int i = 0; i < x->ntm; i++)
			lc_timer_stop(&x->timers[i]);
	lc_loop_free(x->loop);
	lc_tk_free(x->tk);
	lc_leaptable_free(x->table);
	lc_counter_free(x->counter);
	free(x->timers);
	free(x->cbs);
	free(x);
	*lc__sim_model_state(s) = NULL;
}

const struct lc__sim_ops lc__sim_exact_ops = {
    exact_setup, exact_prepare, exact_update, exact_advance,
    exact_arm,   exact_read,    exact_finish,
};
