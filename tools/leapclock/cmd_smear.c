/*
 * cmd_smear.c - `leapclock smear`: the smear of one leap second under a
 * policy or preset, as a table, CSV, JSON and an SVG chart; --compare draws
 * several presets on one chart.
 *
 * Time on the x axis is SI time relative to the leap instant (the start of
 * 23:59:60, or of the skipped 23:59:59), in the pre-leap continuous count T
 * that smear.c uses. Two offsets are printed: `offset` is how far UTC-SLS
 * is behind T (0 to 1000 ms for an insertion: the smear itself), and
 * `utc_diff` is UTC-SLS - UTC as clock readings (23:59:60 counted as the
 * second after 23:59:59), which jumps where UTC itself jumps (at midnight).
 */
#include "cli.h"

#include "internal.h"
#include "smear.h"
#include "smear_chart.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CMD  "smear"
#define NS   LC__NS

const char lc_cmd_smear_summary[] =
    "print and draw a leap smear (offset, rate) for a preset or policy";

void lc_cmd_smear_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: leapclock smear [--preset P | --window DUR --shape S "
	    "--placement PL\n"
	    "                       [--max-rate PPM]] [--leap DATE] "
	    "[--delete] [--step DUR]\n"
	    "                       [--range FROM,TO] [--csv FILE] [--svg "
	    "FILE] [--json]\n"
	    "       leapclock smear --compare P1,P2,... [--leap DATE] "
	    "[--delete] [...]\n\n"
	    "Prints how a smeared clock (UTC-SLS) runs around one leap "
	    "second: its offset\n(ms behind the leap-free count, and "
	    "UTC-SLS - UTC) and its rate (ppm,\nnegative = slower) at "
	    "every step, and writes them as CSV and as an SVG chart.\n\n"
	    "options:\n"
	    "  --preset P       google (default), ntpd, chrony, fbclock, "
	    "utc-sls, minute,\n"
	    "                   cosine, windows, ntp-classic, aws; --window overrides "
	    "the window\n"
	    "                   of ntpd and ntp-classic (7200..86400 s) and "
	    "cosine\n"
	    "  --window DUR     window length: 86400, 1000s, 20h, 90m, 2d, "
	    "500ms\n"
	    "  --shape S        linear, cosine, quadratic (rate ramps up "
	    "and down) or step\n"
	    "  --placement PL   ending (ends at midnight), centred "
	    "(midnight +- DUR/2 on\n"
	    "                   a UTC clock), starting (starts at "
	    "midnight),\n"
	    "                   ending-posix (ends at POSIX midnight, "
	    "holding through 23:59:60)\n"
	    "  --max-rate PPM   bound on the rate; for quadratic, its "
	    "plateau\n"
	    "  --leap DATE      the day the leap ends (YYYY-MM-DD) or a "
	    "time in it;\n"
	    "                   default 2016-12-31\n"
	    "  --delete         a deleted second instead of an inserted "
	    "one\n"
	    "  --step DUR       sampling step of the table and CSV "
	    "(default: ~50 rows)\n"
	    "  --range FROM,TO  time span relative to the leap (DUR, may be "
	    "negative);\n"
	    "                   default: the window(s) and 5%% either "
	    "side\n"
	    "  --csv FILE       write the samples as CSV ('-': stdout)\n"
	    "  --svg FILE       write a chart of offset and rate against "
	    "time ('-': stdout)\n"
	    "  --width PX       the chart's width (default 960; the height in\n"
	    "                   proportion, the drawing scaled by its viewBox)\n"
	    "  --compare LIST   several presets (comma-separated, or "
	    "'all') on one chart\n"
	    "  --json           print JSON instead of the table\n"
	    "  -h, --help       this help\n\n"
	    "exit status: 0 ok, 2 usage or invalid policy, 3 cannot write "
	    "a file.\nSee leapclock-smear(1) for every preset, its source "
	    "and the edge cases.\n");
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */
/* ------------------------------------------------------------------------ */

/* "86400", "1000s", "20h", "90m", "2d", "500ms", "10us", "5ns", "-2h". */
static int parse_dur(const char *s, int64_t *out)
{
	char *end;
	double v;
	double mul = 1e9;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(v))
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		mul = 1e9;
	else if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "us") == 0)
		mul = 1e3;
	else if (strcmp(end, "ns") == 0)
		mul = 1;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		mul = 60e9;
	else if (strcmp(end, "h") == 0)
		mul = 3600e9;
	else if (strcmp(end, "d") == 0)
		mul = 86400e9;
	else
		return -1;
	v *= mul;
	if (fabs(v) > 9e18)
		return -1;
	*out = (int64_t)llround(v);
	return 0;
}

static int lookup(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* The leap days --leap takes: the curves are int64_t ns around the leap,
 * and a window of up to 7 days (lc_smear_validate) with its margins must
 * stay inside LC_RANGE_FIRST_SEC..LC_RANGE_END_SEC (1677-09-22..2262-04-10):
 * whole years inside that, 1678-01-01 to 2261-12-31. */
#define LEAP_FIRST_SEC INT64_C(-9214560000) /* 1678-01-01T00:00:00Z */
#define LEAP_END_SEC   INT64_C(9214646400)  /* 2262-01-01T00:00:00Z */

/* The POSIX second of the midnight ending the leap's day. */
static int parse_leap(const char *s, const lc_leaptable *t, int64_t *M,
                      struct lc_error *err)
{
	struct timespec ts;
	const char *arg = s;
	char buf[64];
	int rc;

	if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
		snprintf(buf, sizeof(buf), "%sT00:00:00Z", s);
		s = buf;
	}
	/* 3000-06-30 used to wrap to a window in 1831. */
	rc = lc_iso8601_parse_range(s, t, LEAP_FIRST_SEC, LEAP_END_SEC, &ts,
	                            err);
	if (rc < 0) {
		if (err != NULL && s != arg)
			snprintf(err->where, sizeof(err->where), "--leap %.200s",
			         arg);
		return rc;
	}
	*M = (lc__fdiv((int64_t)ts.tv_sec, 86400) + 1) * 86400;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Sampling                                                                  */
/* ------------------------------------------------------------------------ */

/* UTC-SLS - UTC as readings: UTC = T before the leap instant, T during
 * 23:59:60 (counted as the second after 23:59:59), T - dir s after
 * midnight. */
static double diff_ms(const struct ctx *x, const struct curve *c, int64_t T)
{
	int64_t midnight = x->L + (x->dir > 0 ? NS : 0);
	int64_t utc = T < midnight ? T : T - x->dir * NS;

	return (double)(T - lc__smear_plan_offset(&c->pl, T) - utc) / 1e6;
}

/* "YYYY-MM-DDThh:mm:ss.sssZ" of the UTC instant at T. */
static void fmt_T(const struct ctx *x, int64_t T, char *buf, size_t n)
{
	struct timespec ts;

	if (T < x->L) {
		ts = lc__ns_to_ts(T);
	} else if (x->dir > 0 && T < x->L + NS) {
		ts.tv_sec = (time_t)(x->M - 1);
		ts.tv_nsec = (long)(T - (x->M - 1) * NS);
	} else {
		ts = lc__ns_to_ts(T - x->dir * NS);
	}
	if (lc_iso8601_format(&ts, 3, buf, n) < 0)
		snprintf(buf, n, "?");
}

static void describe(FILE *out, const struct ctx *x, const struct curve *c)
{
	char a[64], b[64];

	fmt_T(x, x->L + c->s, a, sizeof(a));
	fmt_T(x, x->L + c->e, b, sizeof(b));
	fprintf(out,
	        "%s: %s, %s, window %.9g s (%.9g SI s: %s to %s), "
	        "peak %.6g ppm%s\n",
	        c->p.name, shape_names[c->p.shape],
	        placement_names[c->p.placement], (double)c->p.window_ns / 1e9,
	        (double)(c->e - c->s) / 1e9, a, b,
	        lc_smear_peak_ppm(&c->p, x->dir),
	        c->p.max_rate_ppm > 0 ? " (max_rate set)" : "");
}

/* ------------------------------------------------------------------------ */
/* Output: table, CSV, JSON                                                  */
/* ------------------------------------------------------------------------ */

static int64_t first_row(const struct ctx *x)
{
	return lc__fdiv(x->lo + x->step - 1, x->step) * x->step;
}

static void print_table(FILE *out, const struct ctx *x)
{
	char when[64];

	fprintf(out, "leap: %s second at the end of ",
	        x->dir > 0 ? "inserted" : "deleted");
	day_of(x, when, sizeof(when));
	fprintf(out, "%.10s\n", when);
	for (int i = 0; i < x->n; i++)
		describe(out, x, &x->c[i]);
	fprintf(out, "\n%-25s %14s", "UTC", "t-leap (s)");
	for (int i = 0; i < x->n; i++)
		if (x->n == 1)
			/* T-SLS: the curve's offset, how far UTC_SLS is
			 * behind T; SLS-UTC: the smear offset as status
			 * and the refid show it (docs/smearing.md) */
			fprintf(out, " %12s %14s %12s", "T-SLS (ms)",
			        "SLS-UTC (ms)", "rate (ppm)");
		else
			fprintf(out, " %9.9s(ms) %9.9s(ppm)", x->c[i].p.name,
			        x->c[i].p.name);
	fputc('\n', out);
	for (int64_t t = first_row(x); t <= x->hi; t += x->step) {
		int64_t T = x->L + t;

		fmt_T(x, T, when, sizeof(when));
		fprintf(out, "%-25s %14.3f", when, (double)t / 1e9);
		for (int i = 0; i < x->n; i++) {
			const struct curve *c = &x->c[i];
			if (x->n == 1)
				fprintf(out, " %12.3f %14.3f %12.4f",
				        off_ms(c, T), diff_ms(x, c, T),
				        rate_ppm(c, T));
			else
				fprintf(out, " %13.3f %14.4f", off_ms(c, T),
				        rate_ppm(c, T));
		}
		fputc('\n', out);
	}
}

static void print_csv(FILE *out, const struct ctx *x)
{
	char when[64];

	fprintf(out, "t_rel_s,utc");
	for (int i = 0; i < x->n; i++) {
		if (x->n == 1)
			fprintf(out, ",offset_ms,utc_diff_ms,rate_ppm");
		else
			fprintf(out, ",%s_offset_ms,%s_utc_diff_ms,%s_rate_ppm",
			        x->c[i].p.name, x->c[i].p.name, x->c[i].p.name);
	}
	fputc('\n', out);
	for (int64_t t = first_row(x); t <= x->hi; t += x->step) {
		int64_t T = x->L + t;

		fmt_T(x, T, when, sizeof(when));
		fprintf(out, "%.9f,%s", (double)t / 1e9, when);
		for (int i = 0; i < x->n; i++)
			fprintf(out, ",%.6f,%.6f,%.6f", off_ms(&x->c[i], T),
			        diff_ms(x, &x->c[i], T), rate_ppm(&x->c[i], T));
		fputc('\n', out);
	}
}

static void print_json(FILE *out, const struct ctx *x)
{
	char when[64];

	fmt_T(x, x->L, when, sizeof(when));
	fprintf(out, "{\"leap\":");
	lc_cli_json_str(out, when);
	fprintf(out, ",\"direction\":%d,\"policies\":[", x->dir);
	for (int i = 0; i < x->n; i++) {
		const struct curve *c = &x->c[i];
		fprintf(out, "%s{\"name\":", i ? "," : "");
		lc_cli_json_str(out, c->p.name);
		fprintf(
		    out,
		    ",\"shape\":\"%s\",\"placement\":\"%s\","
		    "\"window_s\":%.9f,\"window_si_s\":%.9f,"
		    "\"start_rel_s\":%.9f,\"end_rel_s\":%.9f,"
		    "\"max_rate_ppm\":%.9g,\"peak_ppm\":%.9g,"
		    "\"offset_at_leap_ms\":%.6f}",
		    shape_names[c->p.shape], placement_names[c->p.placement],
		    (double)c->p.window_ns / 1e9, (double)(c->e - c->s) / 1e9,
		    (double)c->s / 1e9, (double)c->e / 1e9, c->p.max_rate_ppm,
		    lc_smear_peak_ppm(&c->p, x->dir), off_ms(c, x->L));
	}
	fprintf(out, "],\"samples\":[");
	for (int64_t t = first_row(x), k = 0; t <= x->hi; t += x->step, k++) {
		int64_t T = x->L + t;
		fmt_T(x, T, when, sizeof(when));
		fprintf(out, "%s{\"t_rel_s\":%.9f,\"utc\":\"%s\"", k ? "," : "",
		        (double)t / 1e9, when);
		for (int i = 0; i < x->n; i++)
			fprintf(
			    out,
			    ",\"%s\":{\"offset_ms\":%.6f,\"utc_diff_ms\":%.6f,"
			    "\"rate_ppm\":%.6f}",
			    x->c[i].p.name, off_ms(&x->c[i], T),
			    diff_ms(x, &x->c[i], T), rate_ppm(&x->c[i], T));
		fputc('}', out);
	}
	fprintf(out, "]}\n");
}

/* ------------------------------------------------------------------------ */
/* The command                                                               */
/* ------------------------------------------------------------------------ */

static FILE *open_out(const char *path)
{
	if (strcmp(path, "-") == 0)
		return stdout;
	return fopen(path, "w");
}

enum {
	OPT_PRESET = 256,
	OPT_WINDOW,
	OPT_SHAPE,
	OPT_PLACEMENT,
	OPT_MAXRATE,
	OPT_LEAP,
	OPT_DELETE,
	OPT_STEP,
	OPT_RANGE,
	OPT_CSV,
	OPT_SVG,
	OPT_WIDTH,
	OPT_COMPARE,
	OPT_JSON
};

/* The command line. */
struct smear_opts {
	const char *preset, *leap, *csv, *svg, *compare, *range;
	const char *window_arg, *max_rate_arg;
	int64_t window, step;
	int shape, placement, json, custom, help;
	double max_rate;
};

/* One option (getopt's code o, its argument optarg) into *so or x->dir;
 * 0 or the exit status. */
static int smear_option(struct smear_opts *so, struct ctx *x, int o,
                        char **argv)
{
	char *end;

	switch (o) {
	case OPT_PRESET:
		so->preset = optarg;
		break;
	case OPT_WINDOW:
		if (parse_dur(optarg, &so->window) < 0 || so->window <= 0)
			return lc_cli_usage_error(
			    CMD,
			    "--window: '%s' is not a positive "
			    "duration (e.g. 86400, 20h, 1000s)",
			    optarg);
		so->window_arg = optarg;
		break;
	case OPT_SHAPE:
		so->shape = lookup(optarg, shape_names, 4);
		if (so->shape < 0)
			return lc_cli_usage_error(
			    CMD,
			    "--shape: unknown shape '%s' "
			    "(linear, cosine, quadratic, step)",
			    optarg);
		so->custom = 1;
		break;
	case OPT_PLACEMENT:
		so->placement = lookup(optarg, placement_names, 4);
		if (so->placement < 0 && strcmp(optarg, "centered") == 0)
			so->placement = LC_SMEAR_CENTRED;
		if (so->placement < 0)
			return lc_cli_usage_error(
			    CMD,
			    "--placement: unknown placement '%s' "
			    "(ending, centred, starting, ending-posix)",
			    optarg);
		so->custom = 1;
		break;
	case OPT_MAXRATE:
		errno = 0;
		so->max_rate = strtod(optarg, &end);
		if (*end != '\0' || errno || !(so->max_rate >= 0))
			return lc_cli_usage_error(
			    CMD, "--max-rate: '%s' is not a rate in ppm >= 0",
			    optarg);
		so->max_rate_arg = optarg;
		break;
	case OPT_LEAP:
		so->leap = optarg;
		break;
	case OPT_DELETE:
		x->dir = -1;
		break;
	case OPT_STEP:
		if (parse_dur(optarg, &so->step) < 0 || so->step <= 0)
			return lc_cli_usage_error(
			    CMD, "--step: '%s' is not a positive duration",
			    optarg);
		break;
	case OPT_RANGE:
		so->range = optarg;
		break;
	case OPT_CSV:
		so->csv = optarg;
		break;
	case OPT_SVG:
		so->svg = optarg;
		break;
	case OPT_WIDTH: {
		char *wend;
		long w;

		errno = 0;
		w = strtol(optarg, &wend, 10);
		if (errno || wend == optarg || *wend != '\0' || w < 100 ||
		    w > 20000)
			return lc_cli_usage_error(CMD, "--width '%s': pixels, "
			                          "100..20000", optarg);
		lc_cli_svg_width = (double)w;
		break;
	}
	case OPT_COMPARE:
		so->compare = optarg;
		break;
	case OPT_JSON:
		so->json = 1;
		break;
	case 'h':
		so->help = 1;
		break;
	default:
		return lc_cli_usage_error(CMD,
		                          "unknown or incomplete option '%s'",
		                          argv[optind - 1]);
	}
	return 0;
}

static int smear_parse(struct smear_opts *so, struct ctx *x, int argc,
                       char **argv)
{
	static const struct option opts[] = {
	    {"preset", required_argument, NULL, OPT_PRESET},
	    {"window", required_argument, NULL, OPT_WINDOW},
	    {"shape", required_argument, NULL, OPT_SHAPE},
	    {"placement", required_argument, NULL, OPT_PLACEMENT},
	    {"max-rate", required_argument, NULL, OPT_MAXRATE},
	    {"leap", required_argument, NULL, OPT_LEAP},
	    {"delete", no_argument, NULL, OPT_DELETE},
	    {"step", required_argument, NULL, OPT_STEP},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"csv", required_argument, NULL, OPT_CSV},
	    {"svg", required_argument, NULL, OPT_SVG},
	    {"width", required_argument, NULL, OPT_WIDTH},
	    {"compare", required_argument, NULL, OPT_COMPARE},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int o, rc;

	so->shape = so->placement = -1;
	so->max_rate = -1;
	x->dir = 1;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		rc = smear_option(so, x, o, argv);
		if (rc != 0 || so->help)
			return rc;
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	return 0;
}

/* What goes together; 0 or the exit status. */
static int smear_check(const struct smear_opts *so)
{
	const char *csv = so->csv, *svg = so->svg;

	if (so->compare != NULL && (so->preset != NULL || so->custom))
		return lc_cli_usage_error(CMD, "--compare draws presets: do "
		                               "not combine it with --preset, "
		                               "--shape or --placement");
	if (so->preset != NULL && so->custom)
		return lc_cli_usage_error(CMD,
		                          "--preset and --shape/--placement "
		                          "are exclusive");
	/* each preset in a comparison is drawn as defined: a --window or
	 * --max-rate given beside it was silently ignored */
	if (so->compare != NULL && (so->window != 0 || so->max_rate >= 0))
		return lc_cli_usage_error(
		    CMD, "%s applies to one --preset or a custom policy, not "
		         "to --compare (which draws each preset as defined)",
		    so->window != 0 ? "--window" : "--max-rate");
	/* the default preset's window is fixed: do not blame "preset
	 * 'google'", which the user never chose (issue 16) */
	if (so->window != 0 && so->preset == NULL && !so->custom &&
	    so->compare == NULL)
		return lc_cli_usage_error(
		    CMD,
		    "--window sets the window of --preset ntpd (7200..86400 "
		    "s) or cosine (60..604800 s), or of a custom policy "
		    "(with --shape and --placement); the default preset, "
		    "google, has a fixed 86400 s window");
	/* one stream, one output (issue 16: --csv - --json dropped the
	 * JSON, --svg - --csv - mixed both on stdout) */
	if (csv != NULL && svg != NULL && strcmp(csv, svg) == 0)
		return lc_cli_usage_error(
		    CMD,
		    strcmp(csv, "-") == 0
		        ? "--csv - and --svg - both write to standard "
		          "output: send one of them to a file"
		        : "--csv and --svg both write to '%s': give them "
		          "two files",
		    csv);
	if (so->json && ((csv != NULL && strcmp(csv, "-") == 0) ||
	                 (svg != NULL && strcmp(svg, "-") == 0)))
		return lc_cli_usage_error(
		    CMD,
		    "%s - and --json both write to standard output: send "
		    "the %s to a file",
		    csv != NULL && strcmp(csv, "-") == 0 ? "--csv" : "--svg",
		    csv != NULL && strcmp(csv, "-") == 0 ? "CSV" : "SVG");
	return 0;
}

/* --compare LIST (or all): the presets into x->c[]. */
static int compare_policies(const struct smear_opts *so, struct ctx *x)
{
	const char *s = strcmp(so->compare, "all") == 0 ? NULL : so->compare;
	char names[MAXP][32];
	struct lc_error err = {0};
	int nnames = 0;

	if (s == NULL) {
		for (const char *const *nm = lc_smear_preset_names();
		     *nm && nnames < MAXP; nm++)
			/* aws is google's curve under Amazon's name: drawn
			 * once, as google */
			if (strcmp(*nm, "aws") != 0)
				snprintf(names[nnames++], 32, "%s", *nm);
	} else {
		while (*s) {
			size_t len = strcspn(s, ",");
			if (len == 0 || len >= 32 || nnames >= MAXP)
				return lc_cli_usage_error(
				    CMD, "--compare: bad list '%s'",
				    so->compare);
			memcpy(names[nnames], s, len);
			names[nnames++][len] = '\0';
			s += len + (s[len] == ',');
		}
	}
	for (int i = 0; i < nnames; i++) {
		if (lc_smear_preset_from("--compare", names[i], 0, &x->c[i].p,
		                         &err) < 0) {
			lc_cli_print_error(CMD, &err);
			return LC_EXIT_USAGE;
		}
	}
	x->n = nnames;
	return 0;
}

/* --shape, --placement, --window (and --max-rate): one custom policy. */
static int custom_policy(const struct smear_opts *so, struct ctx *x)
{
	struct lc_smear_policy *p = &x->c[0].p;
	struct lc_error err = {0};
	char label[200];

	if (so->shape < 0 || so->placement < 0 || so->window <= 0)
		return lc_cli_usage_error(CMD, "a custom policy needs "
		                               "--window, --shape and "
		                               "--placement");
	snprintf(p->name, sizeof(p->name), "custom");
	p->shape = so->shape;
	p->placement = so->placement;
	p->window_ns = so->window;
	p->max_rate_ppm = so->max_rate > 0 ? so->max_rate : 0;
	snprintf(label, sizeof(label),
	         "custom policy --shape %s --placement %s --window "
	         "%.40s%s%.40s",
	         shape_names[so->shape], placement_names[so->placement],
	         so->window_arg, so->max_rate_arg ? " --max-rate " : "",
	         so->max_rate_arg ? so->max_rate_arg : "");
	if (lc_smear_validate_from(label, p, &err) < 0) {
		lc_cli_print_error(CMD, &err);
		return LC_EXIT_USAGE;
	}
	x->n = 1;
	return 0;
}

/* --preset (google by default), with --window and --max-rate. */
static int preset_policy(const struct smear_opts *so, struct ctx *x)
{
	struct lc_smear_policy *p = &x->c[0].p;
	const char *name = so->preset ? so->preset : "google";
	struct lc_error err = {0};

	/* the name first, then the window: each message names its option */
	if (lc_smear_preset_from("--preset", name, 0, p, &err) < 0 ||
	    (so->window != 0 &&
	     lc_smear_preset_from("--window", name, so->window, p, &err) <
	         0)) {
		lc_cli_print_error(CMD, &err);
		return LC_EXIT_USAGE;
	}
	if (so->max_rate >= 0) {
		p->max_rate_ppm = so->max_rate;
		if (lc_smear_validate_from("--max-rate", p, &err) < 0) {
			lc_cli_print_error(CMD, &err);
			return LC_EXIT_USAGE;
		}
	}
	x->n = 1;
	return 0;
}

/* The leap (--leap, else 2016-12-31's) and each policy's plan for it. */
static int smear_plan(const struct smear_opts *so, struct ctx *x)
{
	struct lc_error err = {0};
	lc_leaptable *t = lc_leaptable_new();

	if (t == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", CMD);
		return LC_EXIT_RUNTIME;
	}
	x->M = INT64_C(1483228800); /* 2017-01-01: after 2016-12-31 23:59:60 */
	if (so->leap != NULL && parse_leap(so->leap, t, &x->M, &err) < 0) {
		lc_cli_print_error(CMD, &err);
		lc_leaptable_free(t);
		return LC_EXIT_USAGE;
	}
	lc_leaptable_free(t);
	x->L = (x->dir > 0 ? x->M : x->M - 1) * NS;
	x->lo = INT64_MAX;
	x->hi = INT64_MIN;
	for (int i = 0; i < x->n; i++) {
		struct curve *c = &x->c[i];
		lc_smear_window_dir(&c->p, x->dir, &c->s, &c->e);
		lc__smear_plan_none(&c->pl);
		lc__smear_plan_settime(&c->pl, &c->p, x->L, x->dir, NULL);
		if (c->s < x->lo)
			x->lo = c->s;
		if (c->e > x->hi)
			x->hi = c->e;
	}
	return 0;
}

/* The rows: the windows and a 5 % margin (at least 1 s), or --range;
 * --step, or about 50 rows at a round step. */
static int smear_rows(const struct smear_opts *so, struct ctx *x)
{
	const char *range = so->range;
	int64_t pad = (x->hi - x->lo) / 20;

	if (pad < NS)
		pad = NS;
	x->lo -= pad;
	x->hi += pad;
	if (range != NULL) {
		char a[64];
		const char *comma = strchr(range, ',');
		size_t la = comma ? (size_t)(comma - range) : 0;
		if (comma == NULL || la >= sizeof(a))
			return lc_cli_usage_error(CMD, "--range: expected "
			                               "FROM,TO (e.g. -2h,2h)");
		memcpy(a, range, la);
		a[la] = '\0';
		if (parse_dur(a, &x->lo) < 0 ||
		    parse_dur(comma + 1, &x->hi) < 0 || x->hi <= x->lo)
			return lc_cli_usage_error(CMD,
			                          "--range: '%s' is not "
			                          "FROM,TO with FROM < TO",
			                          range);
	}
	x->step = so->step;
	if (x->step == 0) {
		x->step = (int64_t)(lc_cli_smear_nice_step(
		                        (double)(x->hi - x->lo) / 1e9, 50) *
		                    1e9);
		if (x->step < 1)
			x->step = 1;
	}
	if ((x->hi - x->lo) / x->step > 10000000)
		return lc_cli_usage_error(CMD,
		                          "--step: %.9g s gives more than "
		                          "10 million rows",
		                          (double)x->step / 1e9);
	return 0;
}

/* --csv FILE and --svg FILE, then the table or JSON on stdout unless one
 * of them went there. */
static int smear_output(const struct smear_opts *so, const struct ctx *x)
{
	const char *csv = so->csv, *svg = so->svg;

	if (csv != NULL) {
		const char *name = strcmp(csv, "-") == 0 ? "stdout" : csv;
		FILE *f = open_out(csv);
		int rc;

		if (f == NULL) {
			fprintf(stderr, "leapclock %s: writing the CSV (--csv) "
			        "to %s: %s\n", CMD, csv, strerror(errno));
			return LC_EXIT_RUNTIME;
		}
		print_csv(f, x);
		rc = lc_cli_close_out(CMD, f, "writing the CSV (--csv) to",
		                      name);
		if (rc != 0)
			return rc;
	}
	if (svg != NULL) {
		const char *name = strcmp(svg, "-") == 0 ? "stdout" : svg;
		FILE *f = open_out(svg);
		int rc;

		if (f == NULL) {
			fprintf(stderr,
			        "leapclock %s: writing the chart (--svg) to %s: "
			        "%s\n", CMD, svg, strerror(errno));
			return LC_EXIT_RUNTIME;
		}
		/* -1 without a write error: memory was short */
		if (lc_cli_smear_svg(f, x) < 0 && !ferror(f)) {
			fprintf(stderr, "leapclock %s: writing the chart (--svg) "
			        "to %s: out of memory\n", CMD, svg);
			if (f != stdout)
				fclose(f);
			return LC_EXIT_RUNTIME;
		}
		rc = lc_cli_close_out(CMD, f, "writing the chart (--svg) to",
		                      name);
		if (rc != 0)
			return rc;
	}
	if ((csv != NULL && strcmp(csv, "-") == 0) ||
	    (svg != NULL && strcmp(svg, "-") == 0))
		return 0;
	if (so->json)
		print_json(stdout, x);
	else
		print_table(stdout, x);
	return 0;
}

int lc_cmd_smear(int argc, char **argv)
{
	static struct ctx x;
	struct smear_opts so;
	int rc;

	memset(&x, 0, sizeof(x));
	memset(&so, 0, sizeof(so));
	rc = smear_parse(&so, &x, argc, argv);
	if (rc == 0 && so.help) {
		lc_cmd_smear_usage(stdout);
		return 0;
	}
	if (rc == 0)
		rc = smear_check(&so);
	if (rc != 0)
		return rc;
	if (so.compare != NULL)
		rc = compare_policies(&so, &x);
	else if (so.custom)
		rc = custom_policy(&so, &x);
	else
		rc = preset_policy(&so, &x);
	if (rc == 0)
		rc = smear_plan(&so, &x);
	if (rc == 0)
		rc = smear_rows(&so, &x);
	if (rc == 0)
		rc = smear_output(&so, &x);
	return rc;
}
