/*
 * test_sim.c - the reproducer (src/sim.c, src/sim_exact.c): what each model
 * must show, for an insertion and a deletion, at HZ 100/250/1000, with and
 * without NOHZ, and over 100 seeds (tick and accumulation phases).
 *
 * The expected values are derived from the kernels' rules, not from a
 * previous run:
 *  - legacy: the REALTIME timer for 00:00:00 is programmed with the old
 *    offset, i.e. for the true instant at which 23:59:60 starts; it fires one
 *    interrupt latency after it, 1 s - latency before 00:00:00 arrives.
 *  - linux-4.2: from the leap instant on, the expiry path uses the offset
 *    minus 1 s, so the same timer fires one latency after the true 00:00:00.
 *  - both: the leap is applied by the first tick whose accumulation point is
 *    at or past the leap; the accumulation grid lags the tick grid by less
 *    than a tick, so the leap is applied less than two ticks late, and a busy
 *    reader reads the stale REALTIME for that long (within two calls).
 *  - slew-all: a 24 h smear moves the whole clock, TAI included, by 1 s, at
 *    1 s / 86400 s = 11.574 ppm.
 *  - exact and smear: leapclock's own invariants (DESIGN.md section 3).
 */
#include "lc_test.h"
#include "sim.h"
#include "simprint.h" /* the CLI's trace printer, tools/leapclock/simtrace.c */

#include <math.h>

#define NS INT64_C(1000000000)

static const int hzs[3] = {100, 250, 1000};

static int run(struct lc__sim_config *c, struct lc__sim_result *r)
{
	struct lc_error err = {0};
	int rc = lc__sim_run(c, r, &err);

	if (rc < 0)
		printf("  lc__sim_run(%s): %d %s\n", r->model, rc, err.msg);
	return rc;
}

static void config(struct lc__sim_config *c, const char *model, int scenario,
                   int hz, int nohz, uint64_t seed)
{
	lc__sim_config_init(c);
	if (lc__sim_model_parse(model, c) < 0)
		printf("  bad model %s\n", model);
	c->scenario = scenario;
	c->hz = hz;
	c->nohz = nohz;
	c->seed = seed;
}

/* Checks one kernel model's result against the rules above. */
static void check_kernel(const struct lc__sim_config *c,
                         const struct lc__sim_result *r)
{
	int64_t p = NS / c->hz, lat = c->timer_latency_ns;
	int ins = c->scenario != LC__SIM_DELETE;

	LC_EQ_INT(r->available, 1);
	LC_EQ_I64(r->fired, r->timers);
	LC_GT_I64(r->leap_applied_after_ns, 0);
	LC_LT_I64(r->leap_applied_after_ns, 2 * p);
	/* a busy reader saw the stale REALTIME until the leap was applied */
	LC_GT_I64(r->stale_read_ns, 0);
	LC_LE_I64(r->stale_read_ns, r->leap_applied_after_ns);
	LC_GE_I64(r->stale_read_ns,
	          r->leap_applied_after_ns - 2 * c->read_cost_ns);
	LC_EQ_I64(r->backsteps[LC_CLOCK_REALTIME], ins ? 1 : 0);
	LC_EQ_I64(r->backsteps[LC_CLOCK_MONOTONIC], 0);
	LC_EQ_I64(r->backsteps[LC_CLOCK_TAI], 0);
	LC_EQ_I64(r->backsteps[LC_CLOCK_UTC_SLS], -1);
	LC_EQ_INT(r->tai_continuous, 1);
	LC_EQ_I64(r->max_tai_error_ns, 0);
	/* the stale readings are off by exactly the leap */
	LC_EQ_I64(r->max_realtime_error_ns, NS);
	/* 4.2's adjtimex read path is exact at the edge; legacy's state
	 * follows the tick (at a deletion both give plain POSIX time) */
	if (c->model == LC__SIM_LINUX42)
		LC_EQ_I64(r->utc_wrong_reads, 0);
	else
		LC_GT_I64(r->utc_wrong_reads, 0);
	if (!ins) {
		/* deletion: nothing fires early; REALTIME timers due after
		 * the jump fire once the timer CPU learns of it, at most a
		 * tick after the leap is applied */
		LC_EQ_I64(r->early_fires, 0);
		LC_GE_I64(r->max_late_ns, r->leap_applied_after_ns);
		LC_LE_I64(r->max_late_ns, r->leap_applied_after_ns + p + lat);
		return;
	}
	if (c->model == LC__SIM_LEGACY) {
		LC_GE_I64(r->early_fires, 1);
		LC_EQ_I64(r->max_early_ns, NS - lat);
		LC_EQ_I64(r->backsteps[LC_CLOCK_UTC], 2); /* at both ticks */
	} else if (c->model == LC__SIM_LINUX42) {
		LC_EQ_I64(r->early_fires, 0);
		LC_EQ_I64(r->backsteps[LC_CLOCK_UTC],
		          0); /* adjtimex is exact */
		if (c->scenario == LC__SIM_REPRODUCER)
			LC_EQ_I64(r->max_late_ns, lat);
	} else if (c->model == LC__SIM_FORCE_TICK) {
		/* the timer armed 5 s before was made relative; in the
		 * timers scenario the one armed 0.5 ms before was not */
		if (c->scenario == LC__SIM_REPRODUCER)
			LC_EQ_I64(r->early_fires, 0);
		else
			LC_GE_I64(r->early_fires, 1);
	}
}

/* leapclock's own models: DESIGN.md invariants 1-5. */
static void check_leapclock(const struct lc__sim_config *c,
                            const struct lc__sim_result *r)
{
	int ins = c->scenario != LC__SIM_DELETE;

	LC_EQ_INT(r->available, 1);
	LC_EQ_I64(r->fired, r->timers);
	LC_EQ_I64(r->early_fires, 0);
	LC_EQ_I64(r->max_late_ns, 0); /* in simulation, exactly on time */
	LC_EQ_I64(r->stale_read_ns, 0);
	LC_EQ_I64(r->stale_reads, 0);
	LC_EQ_INT(r->tai_continuous, 1);
	LC_EQ_I64(r->max_tai_error_ns, 0);
	/* every read path exact: REALTIME (smeared or not) and UTC */
	LC_EQ_I64(r->max_realtime_error_ns, 0);
	LC_EQ_I64(r->utc_wrong_reads, 0);
	for (int k = 0; k < LC_CLOCK_COUNT; k++)
		if (k != LC_CLOCK_REALTIME)
			LC_EQ_I64(r->backsteps[k], 0);
	if (c->model == LC__SIM_EXACT) {
		/* REALTIME repeats 23:59:59: exactly one step back */
		LC_EQ_I64(r->backsteps[LC_CLOCK_REALTIME], ins ? 1 : 0);
		LC_EQ_DBL(r->max_smear_rate_ppm, 0.0, 0.0);
	} else {
		LC_EQ_I64(r->backsteps[LC_CLOCK_REALTIME], 0);
		LC_GT_I64((int64_t)(r->max_smear_rate_ppm * 1000), 0);
		LC_LE_I64((int64_t)r->max_smear_rate_ppm, 1000000);
	}
}

static void check_slew(const struct lc__sim_config *c,
                       const struct lc__sim_result *r)
{
	LC_EQ_INT(r->available, 1);
	LC_EQ_I64(r->fired, r->timers);
	LC_EQ_I64(r->max_tai_error_ns, NS);
	LC_EQ_INT(r->tai_continuous, 1);
	LC_EQ_DBL(r->max_smear_rate_ppm, 1e6 / 86400, 0.01);
	LC_EQ_I64(r->stale_read_ns, 0);
	for (int k = 0; k < LC_CLOCK_COUNT; k++)
		if (k != LC_CLOCK_UTC_SLS)
			LC_EQ_I64(r->backsteps[k], 0);
	if (c->scenario != LC__SIM_DELETE)
		/* a slowed clock fires nothing early */
		LC_EQ_I64(r->early_fires, 0);
	else
		/* a hastened one fires TAI and MONOTONIC timers early */
		LC_GT_I64(r->early_fires, 0);
}

static void check(const struct lc__sim_config *c,
                  const struct lc__sim_result *r)
{
	if (c->model == LC__SIM_SLEW_ALL)
		check_slew(c, r);
	else if (c->model == LC__SIM_EXACT || c->model == LC__SIM_SMEAR)
		check_leapclock(c, r);
	else
		check_kernel(c, r);
}

static void sweep(int scenario)
{
	static const char *const models[] = {"legacy", "linux-4.2",
	                                     "force-tick", "exact"};

	for (int h = 0; h < 3; h++)
		for (int nohz = 0; nohz <= 1; nohz++)
			for (size_t m = 0; m < sizeof(models) / sizeof(*models);
			     m++) {
				struct lc__sim_config c;
				struct lc__sim_result r;
				config(&c, models[m], scenario, hzs[h], nohz,
				       1);
				LC_EQ_INT(run(&c, &r), 0);
				check(&c, &r);
				if (lc_t_case_failed) {
					printf("  in %s HZ=%d nohz=%d\n",
					       r.model, c.hz, nohz);
					return;
				}
			}
}

static void test_reproducer_every_hz(void)
{
	sweep(LC__SIM_REPRODUCER);
}

static void test_timers_every_hz(void)
{
	sweep(LC__SIM_TIMERS);
}

static void test_delete_every_hz(void)
{
	sweep(LC__SIM_DELETE);
}

/* The 24 h models, at the two settings `make run` shows. */
static void test_slew_and_google(void)
{
	const int scen[3] = {LC__SIM_REPRODUCER, LC__SIM_TIMERS,
	                     LC__SIM_DELETE};

	for (int s = 0; s < 3; s++)
		for (int nohz = 0; nohz <= 1; nohz++) {
			struct lc__sim_config c;
			struct lc__sim_result r;
			config(&c, "slew-all", scen[s], 1000, nohz, 3);
			LC_EQ_INT(run(&c, &r), 0);
			check(&c, &r);
			config(&c, "smear:google", scen[s], 1000, nohz, 3);
			LC_EQ_INT(run(&c, &r), 0);
			check(&c, &r);
			/* google: linear over 24 h */
			LC_EQ_DBL(r.max_smear_rate_ppm, 1e6 / 86400, 0.01);
			LC_BAIL();
		}
}

/* Every smear preset, insertion and deletion. */
static void test_every_preset(void)
{
	const char *const *names = lc_smear_preset_names();

	for (int i = 0; names[i] != NULL; i++)
		for (int d = 0; d < 2; d++) {
			struct lc__sim_config c;
			struct lc__sim_result r;
			char m[64];
			snprintf(m, sizeof(m), "smear:%s", names[i]);
			/* the presets between them cover every HZ and NOHZ */
			config(&c, m, d ? LC__SIM_DELETE : LC__SIM_TIMERS,
			       hzs[(i + d) % 3], (i + d) % 2, 5);
			c.ntimers = 8;
			LC_EQ_INT(run(&c, &r), 0);
			check(&c, &r);
			if (lc_t_case_failed) {
				printf("  in %s %s\n", m,
				       d ? "delete" : "insert");
				return;
			}
		}
}

/* 100 seeds: random HZ, NOHZ, direction. The leap is applied anywhere in
 * [0, 2) ticks after its instant, and the models keep their shapes. */
static void test_seeds(void)
{
	static const char *const models[] = {"legacy", "linux-4.2", "exact",
	                                     "smear:minute"};
	double lo = 2, hi = 0;

	for (int i = 0; i < 100; i++) {
		uint64_t seed = lc_rand();
		int hz = hzs[lc_rand_range(0, 2)],
		    nohz = (int)lc_rand_range(0, 1);
		int scen = i % 2 ? LC__SIM_DELETE : LC__SIM_REPRODUCER;
		for (size_t m = 0; m < sizeof(models) / sizeof(*models); m++) {
			struct lc__sim_config c;
			struct lc__sim_result r;
			if (m == 3 && i % 4 != 0)
				continue; /* the smear: every 4th seed (time) */
			config(&c, models[m], scen, hz, nohz, seed);
			if (scen == LC__SIM_DELETE)
				c.ntimers = 8;
			LC_EQ_INT(run(&c, &r), 0);
			check(&c, &r);
			if (lc_t_case_failed) {
				printf("  in %s HZ=%d nohz=%d seed %" PRIu64
				       " %s\n",
				       r.model, hz, nohz, seed,
				       lc__sim_scenario_name(scen));
				return;
			}
			if (c.model == LC__SIM_LINUX42) {
				double f =
				    (double)r.leap_applied_after_ns * hz / 1e9;
				lo = f < lo ? f : lo;
				hi = f > hi ? f : hi;
			}
		}
	}
	/* the spread covers most of [0, 2) ticks */
	LC_LT_I64((int64_t)(lo * 100), 50);
	LC_GT_I64((int64_t)(hi * 100), 120);
}

/* The 2015 test program: the reader sleeps on the timer, then spins.
 * legacy wakes it at the start of 23:59:60, before the leap is applied, so
 * it reads 00:00:00.x; linux-4.2 wakes it at the true 00:00:00, when the
 * leap has been applied (by a tick, or with NOHZ by that very wake-up), so
 * it reads nothing stale. */
static void test_idle_reader(void)
{
	for (int h = 0; h < 3; h++)
		for (int nohz = 0; nohz <= 1; nohz++) {
			struct lc__sim_config c;
			struct lc__sim_result r;
			config(&c, "legacy", LC__SIM_REPRODUCER, hzs[h], nohz,
			       11);
			c.reader_mode = LC__SIM_READER_IDLE;
			LC_EQ_INT(run(&c, &r), 0);
			LC_EQ_I64(r.early_fires, 1);
			LC_GT_I64(r.stale_read_ns, 0);
			LC_LT_I64(r.stale_read_ns, 2 * NS / hzs[h]);
			config(&c, "linux-4.2", LC__SIM_REPRODUCER, hzs[h],
			       nohz, 11);
			c.reader_mode = LC__SIM_READER_IDLE;
			LC_EQ_INT(run(&c, &r), 0);
			LC_EQ_I64(r.early_fires, 0);
			LC_EQ_I64(r.stale_read_ns, 0);
			LC_GT_I64(r.leap_applied_after_ns, 0);
			if (!nohz) /* the tick applied it */
				LC_LT_I64(r.leap_applied_after_ns,
				          2 * NS / hzs[h]);
			else /* a wake-up did, at the latest the timer's */
				LC_LE_I64(r.leap_applied_after_ns,
				          NS + c.timer_latency_ns);
		}
}

/* Same configuration, same result and trace. */
static void test_deterministic(void)
{
	struct lc__sim_config c;
	struct lc__sim_result a, b;
	char *t1 = NULL, *t2 = NULL;
	size_t n1 = 0, n2 = 0;
	struct lc_cli_sim_trace tr;
	FILE *f;

	config(&c, "linux-4.2", LC__SIM_TIMERS, 250, 1, 42);
	f = open_memstream(&t1, &n1);
	lc_cli_sim_trace_init(&tr, f);
	c.trace = &tr.ops;
	LC_EQ_INT(run(&c, &a), 0);
	fclose(f);
	f = open_memstream(&t2, &n2);
	lc_cli_sim_trace_init(&tr, f);
	LC_EQ_INT(run(&c, &b), 0);
	fclose(f);
	LC_TRUE(memcmp(&a, &b, sizeof(a)) == 0);
	LC_EQ_U64(n1, n2);
	LC_TRUE(n1 > 0 && memcmp(t1, t2, n1) == 0);
	free(t1);
	free(t2);
	c.trace = NULL;
	c.seed = 43;
	LC_EQ_INT(run(&c, &b), 0);
	LC_NE_I64(a.leap_applied_after_ns, b.leap_applied_after_ns);
}

/* Runs a trace and splits it into lines. */
static int trace_lines(const char *model, int scenario, char ***lines,
                       size_t *n, char **buf)
{
	struct lc__sim_config c;
	struct lc__sim_result r;
	size_t len = 0, cap = 0;
	struct lc_cli_sim_trace tr;
	FILE *f;
	char *p;

	config(&c, model, scenario, 1000, 0, 1);
	f = open_memstream(buf, &len);
	lc_cli_sim_trace_init(&tr, f);
	c.trace = &tr.ops;
	if (run(&c, &r) < 0)
		return -1;
	fclose(f);
	*n = 0;
	*lines = NULL;
	for (p = strtok(*buf, "\n"); p != NULL; p = strtok(NULL, "\n")) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			*lines = realloc(*lines, cap * sizeof(**lines));
		}
		(*lines)[(*n)++] = p;
	}
	return 0;
}

static long find(char **l, size_t n, size_t from, const char *prefix)
{
	for (size_t i = from; i < n; i++)
		if (strncmp(l[i], prefix, strlen(prefix)) == 0)
			return (long)i;
	return -1;
}

/* The 2015 report's trace: 23:59:59.999x, +++, 00:00:00.x with the timer
 * firing among them, ---, 23:59:59.000x. */
static void test_legacy_trace_shape(void)
{
	char **l, *buf = NULL;
	size_t n;
	long plus, timer, minus;

	LC_EQ_INT(trace_lines("legacy", LC__SIM_REPRODUCER, &l, &n, &buf), 0);
	plus = find(l, n, 0, "+++");
	timer = find(l, n, 0, "timer");
	minus = find(l, n, 0, "---");
	LC_GT_I64(plus, 0);
	LC_CONTAINS(l[plus - 1], "23:59:59.999");
	LC_CONTAINS(l[plus + 1], "00:00:00.000000");
	LC_GT_I64(timer, plus);
	LC_LT_I64(timer, minus);
	LC_CONTAINS(l[timer], "early by 0.999");
	/* between +++ and ---: readings of 00:00:00.x, dots for repeats */
	for (long i = plus + 1; i < minus; i++)
		if (i != timer && strcmp(l[i], "...") != 0)
			LC_CONTAINS(l[i], "00:00:00.000");
	LC_CONTAINS(l[plus + 1], "00:00:00.000000 ....");
	LC_CONTAINS(l[minus + 1], "23:59:59.000");
	/* the step back is by exactly a second: the reading before and
	 * after share their microseconds or the later one is one more */
	LC_TRUE(strncmp(l[minus - 1] + 9, l[minus + 1] + 9, 4) == 0);
	free(l);
	free(buf);
}

/* linux-4.2: the same stale readings, but the timer fires after the step
 * back, at the second 00:00:00; exact: the step back at the boundary. */
static void test_other_traces(void)
{
	char **l, *buf = NULL;
	size_t n;
	long plus, timer, minus;

	LC_EQ_INT(trace_lines("linux-4.2", LC__SIM_REPRODUCER, &l, &n, &buf),
	          0);
	plus = find(l, n, 0, "+++");
	minus = find(l, n, 0, "---");
	timer = find(l, n, 0, "timer");
	LC_CONTAINS(l[plus + 1], "00:00:00.000000");
	LC_GT_I64(minus, plus + 1);
	LC_GT_I64(timer, minus);
	LC_CONTAINS(l[timer], "late by 0.000005");
	LC_CONTAINS(l[timer - 1], "00:00:00.000004");
	free(l);
	free(buf);
	buf = NULL;
	LC_EQ_INT(trace_lines("exact", LC__SIM_REPRODUCER, &l, &n, &buf), 0);
	minus = find(l, n, 0, "---");
	LC_GT_I64(minus, 0);
	LC_CONTAINS(l[minus - 1], "23:59:59.999999");
	LC_CONTAINS(l[minus + 1], "23:59:59.000000");
	LC_EQ_I64(find(l, n, 0, "00:00:00") > find(l, n, 0, "timer") ? 0 : 1,
	          0);
	free(l);
	free(buf);
	buf = NULL;
	/* deletion on legacy: the non-existent 23:59:59 is read */
	LC_EQ_INT(trace_lines("legacy", LC__SIM_DELETE, &l, &n, &buf), 0);
	plus = find(l, n, 0, "+++");
	LC_GT_I64(plus, 0);
	LC_CONTAINS(l[plus + 1], "23:59:59.000000");
	LC_EQ_I64(find(l, n, 0, "---"), -1);
	free(l);
	free(buf);
}

static void test_config_errors(void)
{
	struct lc__sim_config c;
	struct lc__sim_result r;
	struct lc_error err = {0};

	lc__sim_config_init(&c);
	c.hz = 0;
	LC_EQ_INT(lc__sim_run(&c, &r, &err), LC_EINVAL);
	LC_EQ_STR(err.where, "--hz"); /* the option, not "<argument>" */
	LC_CONTAINS(err.msg, "1..10000");
	lc__sim_config_init(&c);
	c.leap_midnight += 3600;
	LC_EQ_INT(lc__sim_run(&c, &r, &err), LC_EINVAL);
	LC_CONTAINS(err.msg, "ends a UTC day");
	lc__sim_config_init(&c);
	LC_EQ_INT(lc__sim_model_parse("linux-2.6", &c), LC_EINVAL);
	LC_EQ_INT(lc__sim_model_parse("smear:", &c), LC_EINVAL);
	LC_EQ_INT(lc__sim_model_parse("smear:google", &c), 0);
	LC_EQ_INT(c.model, LC__SIM_SMEAR);
	LC_EQ_STR(c.preset, "google");
	snprintf(c.preset, sizeof(c.preset), "nonesuch");
	LC_EQ_INT(lc__sim_run(&c, &r, &err) < 0, 1);
	LC_CONTAINS(err.msg, "nonesuch");
}

/* Another leap: 2016-12-31 and a deletion on a day without a leap. */
static void test_other_dates(void)
{
	struct lc__sim_config c;
	struct lc__sim_result r;

	config(&c, "exact", LC__SIM_TIMERS, 250, 0, 9);
	c.leap_midnight = INT64_C(1483228800); /* 2017-01-01 */
	LC_EQ_INT(run(&c, &r), 0);
	check(&c, &r);
	config(&c, "legacy", LC__SIM_TIMERS, 250, 0, 9);
	c.leap_midnight = INT64_C(1483228800);
	LC_EQ_INT(run(&c, &r), 0);
	check(&c, &r);
	config(&c, "exact", LC__SIM_DELETE, 100, 1, 9);
	c.leap_midnight = INT64_C(1782864000); /* 2026-07-01 */
	LC_EQ_INT(run(&c, &r), 0);
	check(&c, &r);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_reproducer_every_hz,
	       "reproducer at HZ 100/250/1000 and "
	       "NOHZ: legacy early, 4.2 stale only, force-tick, exact clean");
	LC_RUN(test_timers_every_hz, "timers scenario at every HZ and NOHZ");
	LC_RUN(test_delete_every_hz,
	       "deletion at every HZ and NOHZ: "
	       "stale 23:59:59, late REALTIME timers, exact clean");
	LC_RUN(test_slew_and_google, "slew-all: TAI off by 1 s at 11.574 ppm; "
	                             "smear:google clean");
	LC_RUN(test_every_preset, "every smear preset, insertion and deletion");
	LC_RUN(test_seeds, "100 seeds: shapes hold, leap applied 0..2 ticks "
	                   "late");
	LC_RUN(test_idle_reader, "reader asleep on the timer: legacy wakes it "
	                         "into stale time, linux-4.2 does not");
	LC_RUN(test_deterministic, "same configuration, same result and trace");
	LC_RUN(test_legacy_trace_shape, "legacy trace reads like the 2015 "
	                                "report's");
	LC_RUN(test_other_traces, "linux-4.2, exact and deletion traces");
	LC_RUN(test_config_errors, "bad configurations are refused");
	LC_RUN(test_other_dates, "other leap dates, and a deletion on any day");
	return lc_test_done();
}
