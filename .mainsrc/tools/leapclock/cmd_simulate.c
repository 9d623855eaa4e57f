/*
 * cmd_simulate.c - `leapclock simulate`: the reproducer (src/sim.c). With no
 * arguments it runs the 2015 scenario on every model at HZ=1000 and with
 * NOHZ and prints the summary table; --trace prints a reader's readings in
 * the 2015 report's format; --json the summary as data.
 */
#include "cli.h"

#include "internal.h"
#include "sim.h"
#include "simprint.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CMD     "simulate"
#define MAXRUNS 64

const char lc_cmd_simulate_summary[] =
    "simulate how kernels (and leapclock) handle a leap second";

void lc_cmd_simulate_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: leapclock simulate [--model M[,M...]]... [--scenario S]\n"
	    "         [--leap DATE] [--hz N] [--nohz] [--seed N] [--json] "
	    "[--trace]\n"
	    "         [--reader busy|idle] [--read-cost NS] "
	    "[--timer-latency NS]\n"
	    "         [--nohz-max NS] [--timers N] [--readers N]\n\n"
	    "A deterministic discrete-event simulation of one machine "
	    "through a leap second,\nfor each model, and a summary line "
	    "per model and tick setting.\n\n"
	    "models (default: all):\n"
	    "  legacy        Linux before 4.2: the tick applies the leap; "
	    "timers fire early\n"
	    "  linux-4.2     Linux 4.2+: timers look before they leap; "
	    "readers still stale\n"
	    "  force-tick    the 2015 workaround on legacy: NOHZ off "
	    "23:59:58-00:00:01,\n"
	    "                absolute REALTIME timers due at the leap made "
	    "relative\n"
	    "  slew-all      smearing through the NTP frequency: the whole "
	    "clock slows\n"
	    "  exact         leapclock's timekeeper: every read path exact\n"
	    "  smear:PRESET  leapclock with REALTIME on the smeared clock "
	    "(default google)\n"
	    "scenarios: reproducer (default; 2015-06-30, one busy reader, "
	    "one absolute\n"
	    "  REALTIME timer for 00:00:00), timers (random timers on every "
	    "clock, many\n"
	    "  readers), delete (timers, for a leap deletion)\n\n"
	    "  --leap DATE    the day that ends with the leap (2015-06-30), "
	    "or its\n"
	    "                 23:59:60 / the midnight after, or POSIX "
	    "seconds of that midnight;\n"
	    "                 days 1972-01-01 to 2115-12-31\n"
	    "  --hz N         tick rate (default 1000); without --nohz and "
	    "--hz both\n"
	    "                 HZ=1000 and NOHZ are shown\n"
	    "  --nohz         the tick stops while the CPU is idle\n"
	    "  --seed N       tick phases and the random scenarios "
	    "(default 1)\n"
	    "  --trace        reader 0's CLOCK_REALTIME around the leap, one "
	    "model\n"
	    "  --json         an array, one object per model and setting\n"
	    "  --reader idle  reader 0 sleeps on the timer, then spins (the "
	    "2015 program)\n\n"
	    "See leapclock-simulate(1) and docs/simulator.md.\n");
}

struct opts {
	struct lc__sim_config base;
	struct lc__sim_config models[LC__SIM_NMODELS * 4];
	int nmodels;
	int hz_given, nohz_given, json, trace;
	const char *model_args[32]; /* the --model lists, parsed last */
	int nmodel_args;
};

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The numeric options and their ranges (src/sim.c checks the same). */
static const struct num_opt {
	const char *name;
	int64_t lo, hi;
	const char *range;
} num_opts[] = {
	{ "--read-cost", 1, 1000000, "in 1..1000000 (ns)" },
	{ "--timer-latency", 0, 100000000, "in 0..100000000 (ns)" },
	{ "--nohz-max", 1000000, INT64_C(1000000000000),
	  "in 1000000..1000000000000 (ns)" },
	{ "--timers", 0, 10000, "in 0..10000" },
	{ "--readers", 1, 64, "in 1..64" },
};

static const struct num_opt *num_opt(const char *a)
{
	for (size_t i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++)
		if (strcmp(a, num_opts[i].name) == 0)
			return &num_opts[i];
	return NULL;
}

static int add_models(struct opts *o, const char *list)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return lc_cli_usage_error(CMD, "--model: list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		struct lc__sim_config c = o->base;
		if (o->nmodels >=
		    (int)(sizeof(o->models) / sizeof(o->models[0])))
			return lc_cli_usage_error(CMD, "too many models");
		if (lc__sim_model_parse(tok, &c) < 0)
			return lc_cli_usage_error(
			    CMD,
			    "unknown model '%s' "
			    "(legacy, linux-4.2, force-tick, "
			    "slew-all, exact, smear:PRESET)",
			    tok);
		if (c.model == LC__SIM_SMEAR) {
			struct lc_smear_policy p;
			struct lc_error err = {0};
			if (lc_smear_preset_from("--model smear:PRESET",
			                         c.preset, 0, &p, &err) < 0) {
				lc_cli_print_error(CMD, &err);
				return LC_EXIT_USAGE;
			}
		}
		o->models[o->nmodels++] = c;
	}
	return 0;
}

/*
 * The leap days the simulator covers: after UTC's 1972-01-01 start (it
 * needs TAI-UTC before the leap), and before the simulator's own UTC keys
 * (sec * 2e9 + nsec, src/sim.c) overflow: from 2116-02-20 on every model
 * reported the 00:00:00 timer 6000 ms late (still so; the library's UTC
 * timers, keyed per day since issue 12, run to 2262). The horizon (5 s, or a smear window of at most a day, each
 * side) leaves room before that: leap days 1972-01-01 to 2115-12-31.
 */
#define SIM_FIRST_SEC INT64_C(63072000)   /* 1972-01-01T00:00:00Z */
#define SIM_END_SEC   INT64_C(4607280000) /* 2116-01-01T00:00:00Z */

/* --leap: "2015-06-30" (the day that ends with the leap), an ISO 8601
 * instant at that day's 23:59:59/23:59:60 or the following midnight, or
 * POSIX seconds of the midnight. 0; -1 if it is none of those; LC_ERANGE
 * (with *err) for a day outside SIM_FIRST_SEC..SIM_END_SEC. */
static int parse_leap(const char *s, int64_t *midnight, struct lc_error *err)
{
	struct timespec ts;
	char buf[64];
	int64_t v;

	if (parse_i64(s, 0, INT64_MAX, &v) == 0) {
		if (v % 86400 != 0)
			return -1;
	} else {
		if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
			/* the day: its last second */
			snprintf(buf, sizeof(buf), "%sT23:59:59Z", s);
			s = buf;
		}
		/* No table: a simulated leap may end any day, so 23:59:60
		 * names the leap wherever it is. */
		if (lc_iso8601_parse(s, NULL, &ts, NULL) < 0)
			return -1;
		if (ts.tv_nsec >= 1000000000L)
			v = (int64_t)ts.tv_sec + 1; /* 23:59:60 */
		else if (ts.tv_nsec == 0 && (int64_t)ts.tv_sec % 86400 == 0)
			v = (int64_t)ts.tv_sec;
		else if (lc__fmod((int64_t)ts.tv_sec, 86400) == 86399)
			v = (int64_t)ts.tv_sec + 1;
		else
			return -1;
	}
	/* the leap second itself, 23:59:59 (its POSIX value) of the day */
	if (lc_range_check(v - 1, SIM_FIRST_SEC, SIM_END_SEC, "--leap", err) <
	    0)
		return LC_ERANGE;
	*midnight = v;
	return 0;
}

static void print_heading(const struct lc__sim_config *c)
{
	char day[40];
	int64_t y;
	int m, d;

	lc_civil_from_days(c->leap_midnight / 86400 - 1, &y, &m, &d);
	snprintf(day, sizeof(day), "%04" PRId64 "-%02d-%02d", y, m, d);
	printf("leapclock simulate: scenario %s, a leap second %s at the end "
	       "of %s (seed %" PRIu64 ")\n",
	       lc__sim_scenario_name(c->scenario),
	       c->scenario == LC__SIM_DELETE ? "deleted (23:59:59 skipped)"
	                                     : "inserted (23:59:60)",
	       day, c->seed);
	if (c->scenario == LC__SIM_REPRODUCER)
		printf("One machine per row: time starts 5 s before the leap; "
		       "one absolute CLOCK_REALTIME timer\nfor 00:00:00; one "
		       "reader spinning on clock_gettime (%" PRId64 " ns a "
		       "call).\n",
		       c->read_cost_ns);
	else
		printf("One machine per row: %d absolute timers per clock id "
		       "due around the leap, some\narmed in its last ms, "
		       "relative MONOTONIC timers, %d readers.\n",
		       c->ntimers, c->nreaders);
	printf("\n"
	       "  early    timers fired before their own clock read their "
	       "deadline: count, largest (ms)\n"
	       "  late     largest lateness of a timer (ms)\n"
	       "  stale    longest a reader kept reading CLOCK_REALTIME >= "
	       "0.5 s off: the time past\n"
	       "           midnight before the leap was applied, or the "
	       "deleted 23:59:59 (ms)\n"
	       "  back     backward steps a reader saw on REALTIME / UTC "
	       "(23:59:60 order) /\n"
	       "           MONOTONIC, RAW and BOOTTIME / TAI (- : no such "
	       "clock)\n"
	       "  TAI err  largest |CLOCK_TAI - true TAI| (ms); '!' if TAI "
	       "jumped\n"
	       "  smear    largest rate of the smeared CLOCK_REALTIME (ppm)\n"
	       "  applied  kernels: the leap took effect this long after its "
	       "true instant (ms)\n"
	       "  NOHZ     the tick stops only on an idle CPU: with a busy "
	       "reader it runs anyway\n\n");
	lc_cli_sim_print_columns(stdout);
}

/* --leap VAL into o->base; 0 or the exit status (message printed). */
static int opt_leap(struct opts *o, const char *val)
{
	struct lc_error err = {0};
	int r = parse_leap(val, &o->base.leap_midnight, &err);

	if (r == LC_ERANGE) {
		snprintf(err.where, sizeof(err.where), "--leap %.200s", val);
		lc_cli_print_error(CMD, &err);
		return LC_EXIT_USAGE;
	}
	if (r < 0)
		return lc_cli_usage_error(CMD,
		                          "--leap: '%s' is not a day "
		                          "(2015-06-30), its 23:59:60 or the "
		                          "midnight after",
		                          val);
	return 0;
}

/* One of the numeric options of num_opts[] into o->base. */
static int opt_num(struct opts *o, const struct num_opt *nopt,
                   const char *a, const char *val)
{
	int64_t v;

	if (parse_i64(val, nopt->lo, nopt->hi, &v) < 0)
		return lc_cli_usage_error(CMD, "%s: '%s' is not %s", a, val,
		                          nopt->range);
	if (nopt == &num_opts[0])
		o->base.read_cost_ns = v;
	else if (nopt == &num_opts[1])
		o->base.timer_latency_ns = v;
	else if (nopt == &num_opts[2])
		o->base.nohz_max_ns = v;
	else if (nopt == &num_opts[3])
		o->base.ntimers = (int)v;
	else
		o->base.nreaders = (int)v;
	return 0;
}

/* An option that takes a value; 0 or the exit status. */
static int opt_value(struct opts *o, const char *a, const char *val)
{
	const struct num_opt *nopt;
	int64_t v;

	if (strcmp(a, "--model") == 0) {
		if (o->nmodel_args < 32)
			o->model_args[o->nmodel_args++] = val;
	} else if (strcmp(a, "--scenario") == 0) {
		if (lc__sim_scenario_parse(val, &o->base.scenario) < 0)
			return lc_cli_usage_error(CMD,
			                          "unknown scenario '%s' "
			                          "(reproducer, timers, delete)",
			                          val);
	} else if (strcmp(a, "--leap") == 0) {
		return opt_leap(o, val);
	} else if (strcmp(a, "--hz") == 0) {
		if (parse_i64(val, 1, 10000, &v) < 0)
			return lc_cli_usage_error(
			    CMD, "--hz: '%s' is not in 1..10000", val);
		o->base.hz = (int)v;
		o->hz_given = 1;
	} else if (strcmp(a, "--seed") == 0) {
		if (parse_i64(val, 0, INT64_MAX, &v) < 0)
			return lc_cli_usage_error(
			    CMD, "--seed: '%s' is not a number", val);
		o->base.seed = (uint64_t)v;
	} else if (strcmp(a, "--reader") == 0) {
		if (strcmp(val, "busy") == 0)
			o->base.reader_mode = LC__SIM_READER_BUSY;
		else if (strcmp(val, "idle") == 0)
			o->base.reader_mode = LC__SIM_READER_IDLE;
		else
			return lc_cli_usage_error(
			    CMD, "--reader: busy or idle, not '%s'", val);
	} else if ((nopt = num_opt(a)) != NULL) {
		return opt_num(o, nopt, a, val);
	} else {
		return lc_cli_usage_error(CMD, "unknown option '%s'", a);
	}
	return 0;
}

/* The command line into *o, then the models and what goes together; 0 or
 * the exit status (message printed). */
static int parse_opts(struct opts *o, int argc, char **argv)
{
	int rc;

	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"trace", no_argument, NULL, 'T'},
	    {"nohz", no_argument, NULL, 'N'},
	    {"model", required_argument, NULL, 256},
	    {"scenario", required_argument, NULL, 257},
	    {"leap", required_argument, NULL, 258},
	    {"hz", required_argument, NULL, 259},
	    {"seed", required_argument, NULL, 260},
	    {"reader", required_argument, NULL, 261},
	    {"read-cost", required_argument, NULL, 262},
	    {"timer-latency", required_argument, NULL, 263},
	    {"nohz-max", required_argument, NULL, 264},
	    {"timers", required_argument, NULL, 265},
	    {"readers", required_argument, NULL, 266},
	    {NULL, 0, NULL, 0},
	};
	char name[32];
	int c, li;

	lc__sim_config_init(&o->base);
	opterr = 0;
	optind = 1;
	/* getopt_long as every subcommand: --opt VALUE, --opt=VALUE and
	 * unambiguous abbreviations (each option its own value, or getopt would
	 * take "--re" for the first of --reader, --read-cost, --readers);
	 * opt_value() gets the full name */
	while ((li = -1, c = getopt_long(argc, argv, "+:", opts, &li)) != -1) {
		switch (c) {
		case 'j':
			o->json = 1;
			break;
		case 'T':
			o->trace = 1;
			break;
		case 'N':
			o->nohz_given = 1;
			o->base.nohz = 1;
			break;
		default:
			if (c < 256 || li < 0) /* '?': unknown, ambiguous */
				return lc_cli_usage_error(
				    CMD, "unknown option '%s'",
				    argv[optind - 1]);
			snprintf(name, sizeof(name), "--%s", opts[li].name);
			rc = opt_value(o, name, optarg);
			if (rc != 0)
				return rc;
			break;
		case ':':
			return lc_cli_usage_error(
			    CMD, "unknown option or missing value: '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	if (o->json && o->trace) {
		/* Both go to stdout: the trace's text would break the JSON. */
		return lc_cli_usage_error(CMD, "--json and --trace are two "
		                               "outputs for stdout: give one");
	}
	for (int i = 0; i < o->nmodel_args; i++) {
		rc = add_models(o, o->model_args[i]);
		if (rc != 0)
			return rc;
	}
	if (o->nmodel_args == 0)
		add_models(o, "legacy,linux-4.2,force-tick,slew-all,exact,"
		              "smear:google");
	if (o->trace && o->nmodels != 1) {
		if (o->nmodel_args != 0)
			return lc_cli_usage_error(CMD, "--trace shows one model: "
			                               "give one --model");
		o->nmodels = 1; /* legacy, the 2015 trace */
	}
	return 0;
}

/* Runs model m in setting k (of nset) and prints its result; 0 or the
 * exit status. */
static int run_one(const struct opts *o, int m, int k, int nset, int *first)
{
	struct lc__sim_config c = o->base;
	struct lc__sim_result r;
	struct lc_cli_sim_trace tr;
	struct lc_error err = {0};

	lc_cli_sim_trace_init(&tr, stdout);
	c.model = o->models[m].model;
	memcpy(c.preset, o->models[m].preset, sizeof(c.preset));
	if (nset == 2)
		c.nohz = k;
	c.trace = o->trace ? &tr.ops : NULL;
	if (lc__sim_run(&c, &r, &err) < 0) {
		if (o->json)
			printf("]\n");
		lc_cli_print_error(CMD, &err);
		return err.code == LC_ENOMEM ? LC_EXIT_RUNTIME : LC_EXIT_USAGE;
	}
	if (o->json) {
		lc_cli_sim_print_json(stdout, &r, *first);
		*first = 0;
	} else if (o->trace) {
		printf("\n");
		print_heading(&c);
		lc_cli_sim_print_row(stdout, &r);
	} else {
		lc_cli_sim_print_row(stdout, &r);
	}
	return 0;
}

int lc_cmd_simulate(int argc, char **argv)
{
	struct opts *o = calloc(1, sizeof(*o));
	int rc, first = 1;

	if (o == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", CMD);
		return LC_EXIT_RUNTIME;
	}
	rc = parse_opts(o, argc, argv);
	if (rc != 0)
		goto out;
	if (!o->json && !o->trace)
		print_heading(&o->base);
	if (o->json)
		printf("[");
	for (int m = 0; m < o->nmodels; m++) {
		/* settings: the given one, else HZ=1000 and NOHZ */
		int nset = (o->hz_given || o->nohz_given || o->trace) ? 1 : 2;
		for (int k = 0; k < nset; k++) {
			rc = run_one(o, m, k, nset, &first);
			if (rc != 0)
				goto out;
		}
	}
	if (o->json)
		printf("\n]\n");
out:
	free(o);
	return rc;
}
