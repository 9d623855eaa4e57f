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

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CMD  "smear"
#define NS   LC__NS
#define MAXP 16

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
	    "                   cosine, windows, ntp-classic; --window overrides "
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
	    "midnight)\n"
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

struct curve {
	struct lc_smear_policy p;
	struct lc__smear_plan pl; /* nominal, leap at L */
	int64_t s, e;             /* window relative to the leap */
};

struct ctx {
	struct curve c[MAXP];
	int n;
	int dir;
	int64_t M, L; /* midnight (POSIX s); leap instant on T (ns) */
	int64_t lo, hi, step;
};

static double off_ms(const struct curve *c, int64_t T)
{
	return (double)lc__smear_plan_offset(&c->pl, T) / 1e6;
}

/* UTC-SLS - UTC as readings: UTC = T before the leap instant, T during
 * 23:59:60 (counted as the second after 23:59:59), T - dir s after
 * midnight. */
static double diff_ms(const struct ctx *x, const struct curve *c, int64_t T)
{
	int64_t midnight = x->L + (x->dir > 0 ? NS : 0);
	int64_t utc = T < midnight ? T : T - x->dir * NS;

	return (double)(T - lc__smear_plan_offset(&c->pl, T) - utc) / 1e6;
}

static double rate_ppm(const struct curve *c, int64_t T)
{
	return lc__smear_plan_rate_ppm(&c->pl, T);
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

/* "YYYY-MM-DD..." of the day the leap ends. */
static void day_of(const struct ctx *x, char *buf, size_t n)
{
	struct timespec ts = lc__ns_to_ts((x->M - 1) * NS);

	if (lc_iso8601_format(&ts, 0, buf, n) < 0)
		snprintf(buf, n, "?");
}

static const char *shape_names[] = {"linear", "cosine", "quadratic", "step"};
static const char *placement_names[] = {"ending", "centred", "starting"};

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
			fprintf(out, " %12s %14s %12s", "offset (ms)",
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
/* SVG                                                                       */
/* ------------------------------------------------------------------------ */

/* one per preset, so that no two curves of --compare all share one */
static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#9467bd", "#ff7f0e", "#8c564b",
                                      "#e377c2", "#17becf", "#bcbd22"};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

/* A "nice" tick step for a span, about `want` ticks. */
static double nice_step(double span, int want)
{
	double raw = span / want, p = pow(10, floor(log10(raw))), m = raw / p;

	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

struct panel {
	double x0, y0, w, h; /* plot area, px */
	double tmin, tmax;   /* in units of tu ns */
	double tu;           /* the time unit, ns: 1e6, 1e9, 60e9 or 3600e9 */
	const char *tname;   /* its name: "milliseconds", ... "hours" */
	double vmin, vmax;   /* value (linear or log10) */
	int logy;
};

static double px(const struct panel *p, double t)
{
	return p->x0 + (t - p->tmin) / (p->tmax - p->tmin) * p->w;
}

/* x of an instant t_ns relative to the leap */
static double px_ns(const struct panel *p, int64_t t_ns)
{
	return px(p, (double)t_ns / p->tu);
}

/* The time unit of the x axis, from the span: ticks read -5 ... 5 s for
 * --range -5s,5s, not -0.0012 ... 0.0012 h (issue 16). */
static void time_unit(struct panel *p, int64_t lo, int64_t hi)
{
	double span = (double)(hi - lo) / 1e9;

	if (span < 2) {
		p->tu = 1e6;
		p->tname = "milliseconds";
	} else if (span < 600) {
		p->tu = 1e9;
		p->tname = "seconds";
	} else if (span < 3 * 3600) {
		p->tu = 60e9;
		p->tname = "minutes";
	} else {
		p->tu = 3600e9;
		p->tname = "hours";
	}
	p->tmin = (double)lo / p->tu;
	p->tmax = (double)hi / p->tu;
}

static double py(const struct panel *p, double v)
{
	if (p->logy)
		v = log10(v < 1e-300 ? 1e-300 : v);
	if (v < p->vmin)
		v = p->vmin;
	if (v > p->vmax)
		v = p->vmax;
	return p->y0 + p->h - (v - p->vmin) / (p->vmax - p->vmin) * p->h;
}

static void tick_label(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	snprintf(buf, n, "%g", v);
}

/* show_x_label: 0 none, +1 / -1 the x label for an insertion / deletion */
static void axes(FILE *o, const struct panel *p, const char *ylabel,
                 int show_x_label)
{
	double st = nice_step(p->tmax - p->tmin, 8), v;
	char lab[32];

	fprintf(o,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	        "fill=\"#ffffff\" stroke=\"#444444\"/>\n",
	        p->x0, p->y0, p->w, p->h);
	for (v = ceil(p->tmin / st) * st; v <= p->tmax + 1e-9; v += st) {
		double x = px(p, v);
		tick_label(lab, sizeof(lab), v);
		fprintf(o,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#e0e0e0\"/>\n",
		        x, p->y0, x, p->y0 + p->h);
		fprintf(o,
		        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
		        "text-anchor=\"middle\">%s</text>\n",
		        x, p->y0 + p->h + 16, lab);
	}
	if (p->logy) {
		for (int e = (int)ceil(p->vmin); e <= (int)floor(p->vmax);
		     e++) {
			double y = py(p, pow(10, e));
			fprintf(o,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			        "y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
			        p->x0, y, p->x0 + p->w, y);
			fprintf(o,
			        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
			        "text-anchor=\"end\">%.*f</text>\n",
			        p->x0 - 6, y + 4, e < 0 ? -e : 0, pow(10, e));
		}
	} else {
		double sv = nice_step(p->vmax - p->vmin, 6);
		for (v = ceil(p->vmin / sv) * sv; v <= p->vmax + 1e-9 * sv;
		     v += sv) {
			double y = py(p, v);
			tick_label(lab, sizeof(lab), v);
			fprintf(o,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			        "y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
			        p->x0, y, p->x0 + p->w, y);
			fprintf(o,
			        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
			        "text-anchor=\"end\">%s</text>\n",
			        p->x0 - 6, y + 4, lab);
		}
	}
	/* the leap instant */
	if (p->tmin <= 0 && p->tmax >= 0)
		fprintf(o,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#888888\" stroke-dasharray=\"4 3\"/>\n",
		        px(p, 0), p->y0, px(p, 0), p->y0 + p->h);
	fprintf(o,
	        "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
	        "font-size=\"13\" text-anchor=\"middle\">%s</text>\n",
	        p->x0 - 72, p->y0 + p->h / 2, ylabel);
	if (show_x_label != 0)
		fprintf(o,
		        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
		        "text-anchor=\"middle\">time relative to the leap "
		        "second, in %s (dashed line: start of the %s "
		        "second)</text>\n",
		        p->x0 + p->w / 2, p->y0 + p->h + 36, p->tname,
		        show_x_label > 0 ? "inserted" : "deleted");
}

/* Sample instants for the chart: a uniform grid plus each window's edges
 * (and a ns either side), so kinks and short windows are drawn. */
static int64_t *chart_times(const struct ctx *x, size_t *n)
{
	size_t cap = 2000 + (size_t)x->n * 8, k = 0;
	int64_t *t = malloc(cap * sizeof(*t));

	if (t == NULL)
		return NULL;
	for (int i = 0; i <= 1600; i++)
		t[k++] = x->lo + (int64_t)((double)(x->hi - x->lo) * i / 1600);
	for (int i = 0; i < x->n; i++) {
		int64_t e[4] = {x->c[i].s, x->c[i].e,
		                (x->c[i].s + x->c[i].e) / 2, 0};
		for (int j = 0; j < 4; j++)
			for (int d = -1; d <= 1; d++)
				if (e[j] + d >= x->lo && e[j] + d <= x->hi &&
				    k < cap)
					t[k++] = e[j] + d;
	}
	/* insertion sort is fine for ~2000 mostly sorted values */
	for (size_t i = 1; i < k; i++) {
		int64_t v = t[i];
		size_t j = i;
		while (j > 0 && t[j - 1] > v) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = v;
	}
	*n = k;
	return t;
}

/* A window narrower than 3 px is invisible at the chart's range (the
 * minute preset in --compare all): the legend says so (issue 16). */
static int off_scale(const struct panel *p, const struct curve *c)
{
	return px_ns(p, c->e) - px_ns(p, c->s) < 3;
}

static void xml_text(FILE *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", o);
		else if (*s == '>')
			fputs("&gt;", o);
		else if (*s == '&')
			fputs("&amp;", o);
		else
			fputc(*s, o);
	}
}

/* "* off-scale here (window under 3 px): minute (60 s), ...; see them
 * with --compare minute,... --range A,B" */
static void off_scale_note(FILE *o, const struct ctx *x,
                           const struct panel *p, double y)
{
	char names[160] = "", line[400];
	size_t k = 0, kn = 0;
	int64_t s = INT64_MAX, e = INT64_MIN, pad;

	line[0] = '\0';
	for (int i = 0; i < x->n; i++) {
		const struct curve *c = &x->c[i];
		if (!off_scale(p, c))
			continue;
		if (k < sizeof(line))
			k += (size_t)snprintf(line + k, sizeof(line) - k,
			                      "%s%s (%.6g s)", k ? ", " : "",
			                      c->p.name,
			                      (double)(c->e - c->s) / 1e9);
		if (kn < sizeof(names))
			kn += (size_t)snprintf(names + kn, sizeof(names) - kn,
			                       "%s%s", kn ? "," : "",
			                       c->p.name);
		if (c->s < s)
			s = c->s;
		if (c->e > e)
			e = c->e;
	}
	pad = (e - s) / 4 > NS ? (e - s) / 4 : NS;
	fprintf(o,
	        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
	        "fill=\"#555555\">* off-scale at this range (window under "
	        "3 px): ",
	        p->x0, y);
	xml_text(o, line);
	fprintf(o, "; see %s with --compare %s --range %.0fs,%.0fs</text>\n",
	        strchr(names, ',') ? "them" : "it", names,
	        floor((double)(s - pad) / 1e9), ceil((double)(e + pad) / 1e9));
}

static int write_svg(FILE *o, const struct ctx *x)
{
	const double W = 960;
	double H = 600 + 18.0 * ((x->n + 1) / 2) + 30;
	struct panel po, pr;
	size_t n;
	int64_t *ts = chart_times(x, &n);
	double rmax = 0, rmin = 0, peakmin = INFINITY;
	int noff = 0;
	char day[64], title[256];

	if (ts == NULL)
		return -1;
	for (int i = 0; i < x->n; i++) {
		double pk = lc_smear_peak_ppm(&x->c[i].p, x->dir);
		if (pk > rmax)
			rmax = pk;
		if (pk < peakmin)
			peakmin = pk;
	}
	po.x0 = pr.x0 = 90;
	po.w = pr.w = W - 90 - 30;
	time_unit(&po, x->lo, x->hi);
	time_unit(&pr, x->lo, x->hi);
	for (int i = 0; i < x->n; i++)
		if (off_scale(&po, &x->c[i]))
			noff++;
	if (noff > 0)
		H += 22;
	po.y0 = 70;
	po.h = 220;
	pr.y0 = 340;
	pr.h = 200;
	po.logy = 0;
	po.vmin = x->dir > 0 ? 0 : -1000;
	po.vmax = x->dir > 0 ? 1000 : 0;
	/* one policy: the signed rate, linear; several: |rate| on a log
	 * scale when their peaks differ by more than 20x */
	pr.logy = x->n > 1 && rmax / peakmin > 20;
	if (pr.logy) {
		pr.vmin = floor(log10(peakmin)) - 1;
		pr.vmax = ceil(log10(rmax * 1.5));
	} else if (x->dir > 0) {
		rmin = -rmax * 1.1;
		pr.vmin = rmin;
		pr.vmax = rmax * 0.1 + 1e-9;
	} else {
		pr.vmin = -rmax * 0.1 - 1e-9;
		pr.vmax = rmax * 1.1;
	}
	day_of(x, day, sizeof(day));
	snprintf(title, sizeof(title),
	         "Leap smear of the %s second at the end of %.10s UTC",
	         x->dir > 0 ? "inserted" : "deleted", day);
	fprintf(o,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
	        "<title>",
	        W, H, W, H);
	xml_text(o, title);
	fprintf(o, "</title>\n<rect width=\"100%%\" height=\"100%%\" "
	           "fill=\"#fafafa\"/>\n");
	fprintf(o,
	        "<text x=\"%.1f\" y=\"30\" font-size=\"18\" "
	        "font-weight=\"bold\" text-anchor=\"middle\">",
	        W / 2);
	xml_text(o, title);
	fprintf(o, "</text>\n");
	fprintf(o,
	        "<text x=\"%.1f\" y=\"50\" font-size=\"12\" fill=\"#555555\" "
	        "text-anchor=\"middle\">offset: how far the smeared clock "
	        "is behind a clock without the leap; rate: its speed "
	        "relative to SI seconds</text>\n",
	        W / 2);
	axes(o, &po, x->dir > 0 ? "offset behind (ms)" : "offset (ms, ahead)",
	     0);
	axes(o, &pr,
	     pr.logy ? "|rate| (ppm, log scale)"
	             : (x->dir > 0 ? "rate (ppm, negative = slow)"
	                           : "rate (ppm, positive = fast)"),
	     x->dir);
	for (int i = 0; i < x->n; i++) {
		const struct curve *c = &x->c[i];
		const char *col = colours[i % NCOLOURS];

		fprintf(o,
		        "<polyline class=\"offset\" fill=\"none\" "
		        "stroke=\"%s\" stroke-width=\"2\" points=\"",
		        col);
		for (size_t k = 0; k < n; k++)
			fprintf(o, "%.2f,%.2f ", px_ns(&po, ts[k]),
			        py(&po, off_ms(c, x->L + ts[k])));
		fprintf(o, "\"/>\n");
		/* the rate as a path: on the log scale a zero rate (outside
		 * the window) has no place, and drawn at the bottom it read
		 * as 1 ppm (issue 16): the path is cut there instead */
		fprintf(o,
		        "<path class=\"rate\" fill=\"none\" stroke=\"%s\" "
		        "stroke-width=\"2\" d=\"",
		        col);
		for (size_t k = 0, pen = 0; k < n; k++) {
			double r = rate_ppm(c, x->L + ts[k]);
			if (pr.logy && !(fabs(r) >= pow(10, pr.vmin))) {
				pen = 0;
				continue;
			}
			fprintf(o, "%s%.2f,%.2f ", pen ? "L" : "M",
			        px_ns(&pr, ts[k]), py(&pr, pr.logy ? fabs(r) : r));
			pen = 1;
		}
		fprintf(o, "\"/>\n");
	}
	if (pr.logy)
		fprintf(o,
		        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		        "fill=\"#555555\">a zero rate (outside a window) is "
		        "not drawn on the log scale</text>\n",
		        pr.x0 + 6, pr.y0 + 14);
	/* legend, below the charts: two columns */
	{
		int rows = (x->n + 1) / 2;
		double ly = pr.y0 + pr.h + 52;
		fprintf(o,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		        "height=\"%d\" fill=\"#ffffff\" stroke=\"#bbbbbb\"/>\n",
		        po.x0, ly, po.w, 10 + 18 * rows);
		for (int i = 0; i < x->n; i++) {
			const struct curve *c = &x->c[i];
			double lx =
			    po.x0 + 10 + (x->n > 1 ? (i % 2) * po.w / 2 : 0);
			double y = ly + 18 + 18 * (x->n > 1 ? i / 2 : i);
			char lab[160];

			snprintf(lab, sizeof(lab),
			         "%s: %s, %s, %.6g SI s, peak %.4g ppm%s",
			         c->p.name, shape_names[c->p.shape],
			         placement_names[c->p.placement],
			         (double)(c->e - c->s) / 1e9,
			         lc_smear_peak_ppm(&c->p, x->dir),
			         off_scale(&po, c) ? " *" : "");
			fprintf(o,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			        "y2=\"%.1f\" stroke=\"%s\" "
			        "stroke-width=\"3\"/>\n",
			        lx, y - 4, lx + 22, y - 4, colours[i % NCOLOURS]);
			fprintf(o,
			        "<text x=\"%.1f\" y=\"%.1f\" "
			        "font-size=\"12\">",
			        lx + 28, y);
			xml_text(o, lab);
			fprintf(o, "</text>\n");
		}
		if (noff > 0)
			off_scale_note(o, x, &po, ly + 10 + 18 * rows + 18);
	}
	fprintf(o, "</svg>\n");
	free(ts);
	(void)rmin;
	return ferror(o) ? -1 : 0;
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

static int close_out(FILE *f)
{
	if (f == stdout)
		return fflush(f);
	return fclose(f);
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
	OPT_COMPARE,
	OPT_JSON
};

int lc_cmd_smear(int argc, char **argv)
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
	    {"compare", required_argument, NULL, OPT_COMPARE},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static struct ctx x;
	const char *preset = NULL, *leap = NULL, *csv = NULL, *svg = NULL;
	const char *compare = NULL, *range = NULL;
	const char *window_arg = NULL, *max_rate_arg = NULL;
	char label[200];
	int64_t window = 0, step = 0;
	int shape = -1, placement = -1, json = 0, custom = 0, o;
	double max_rate = -1;
	struct lc_error err = {0};
	lc_leaptable *t;
	char names[MAXP][32];
	int nnames = 0;

	memset(&x, 0, sizeof(x));
	x.dir = 1;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		switch (o) {
		case OPT_PRESET:
			preset = optarg;
			break;
		case OPT_WINDOW:
			if (parse_dur(optarg, &window) < 0 || window <= 0)
				return lc_cli_usage_error(
				    CMD,
				    "--window: '%s' is not a positive "
				    "duration (e.g. 86400, 20h, 1000s)",
				    optarg);
			window_arg = optarg;
			break;
		case OPT_SHAPE:
			shape = lookup(optarg, shape_names, 4);
			if (shape < 0)
				return lc_cli_usage_error(
				    CMD,
				    "--shape: unknown shape '%s' "
				    "(linear, cosine, quadratic, step)",
				    optarg);
			custom = 1;
			break;
		case OPT_PLACEMENT:
			placement = lookup(optarg, placement_names, 3);
			if (placement < 0 && strcmp(optarg, "centered") == 0)
				placement = LC_SMEAR_CENTRED;
			if (placement < 0)
				return lc_cli_usage_error(
				    CMD,
				    "--placement: unknown placement '%s' "
				    "(ending, centred, starting)",
				    optarg);
			custom = 1;
			break;
		case OPT_MAXRATE:
			errno = 0;
			max_rate = strtod(optarg, &end);
			if (*end != '\0' || errno || !(max_rate >= 0))
				return lc_cli_usage_error(
				    CMD,
				    "--max-rate: '%s' is not a rate in "
				    "ppm >= 0",
				    optarg);
			max_rate_arg = optarg;
			break;
		case OPT_LEAP:
			leap = optarg;
			break;
		case OPT_DELETE:
			x.dir = -1;
			break;
		case OPT_STEP:
			if (parse_dur(optarg, &step) < 0 || step <= 0)
				return lc_cli_usage_error(
				    CMD,
				    "--step: '%s' is not a positive "
				    "duration",
				    optarg);
			break;
		case OPT_RANGE:
			range = optarg;
			break;
		case OPT_CSV:
			csv = optarg;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_COMPARE:
			compare = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
			lc_cmd_smear_usage(stdout);
			return 0;
		default:
			return lc_cli_usage_error(CMD,
			                          "unknown or incomplete "
			                          "option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	if (compare != NULL && (preset != NULL || custom))
		return lc_cli_usage_error(CMD, "--compare draws presets: do "
		                               "not combine it with --preset, "
		                               "--shape or --placement");
	if (preset != NULL && custom)
		return lc_cli_usage_error(CMD,
		                          "--preset and --shape/--placement "
		                          "are exclusive");
	/* the default preset's window is fixed: do not blame "preset
	 * 'google'", which the user never chose (issue 16) */
	if (window != 0 && preset == NULL && !custom && compare == NULL)
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
	if (json && ((csv != NULL && strcmp(csv, "-") == 0) ||
	             (svg != NULL && strcmp(svg, "-") == 0)))
		return lc_cli_usage_error(
		    CMD,
		    "%s - and --json both write to standard output: send "
		    "the %s to a file",
		    csv != NULL && strcmp(csv, "-") == 0 ? "--csv" : "--svg",
		    csv != NULL && strcmp(csv, "-") == 0 ? "CSV" : "SVG");

	/* the policies */
	if (compare != NULL) {
		const char *s = strcmp(compare, "all") == 0 ? NULL : compare;
		if (s == NULL) {
			for (const char *const *nm = lc_smear_preset_names();
			     *nm && nnames < MAXP; nm++)
				snprintf(names[nnames++], 32, "%s", *nm);
		} else {
			while (*s) {
				size_t len = strcspn(s, ",");
				if (len == 0 || len >= 32 || nnames >= MAXP)
					return lc_cli_usage_error(
					    CMD, "--compare: bad list '%s'",
					    compare);
				memcpy(names[nnames], s, len);
				names[nnames++][len] = '\0';
				s += len + (s[len] == ',');
			}
		}
		for (int i = 0; i < nnames; i++) {
			if (lc_smear_preset_from("--compare", names[i], 0,
			                         &x.c[i].p, &err) < 0) {
				lc_cli_print_error(CMD, &err);
				return LC_EXIT_USAGE;
			}
		}
		x.n = nnames;
	} else if (custom) {
		struct lc_smear_policy *p = &x.c[0].p;
		if (shape < 0 || placement < 0 || window <= 0)
			return lc_cli_usage_error(CMD, "a custom policy needs "
			                               "--window, --shape and "
			                               "--placement");
		snprintf(p->name, sizeof(p->name), "custom");
		p->shape = shape;
		p->placement = placement;
		p->window_ns = window;
		p->max_rate_ppm = max_rate > 0 ? max_rate : 0;
		snprintf(label, sizeof(label),
		         "custom policy --shape %s --placement %s --window "
		         "%.40s%s%.40s",
		         shape_names[shape], placement_names[placement],
		         window_arg, max_rate_arg ? " --max-rate " : "",
		         max_rate_arg ? max_rate_arg : "");
		if (lc_smear_validate_from(label, p, &err) < 0) {
			lc_cli_print_error(CMD, &err);
			return LC_EXIT_USAGE;
		}
		x.n = 1;
	} else {
		struct lc_smear_policy *p = &x.c[0].p;
		const char *name = preset ? preset : "google";
		/* the name first, then the window: each message names its
		 * option */
		if (lc_smear_preset_from("--preset", name, 0, p, &err) < 0 ||
		    (window != 0 &&
		     lc_smear_preset_from("--window", name, window, p, &err) <
		         0)) {
			lc_cli_print_error(CMD, &err);
			return LC_EXIT_USAGE;
		}
		if (max_rate >= 0) {
			p->max_rate_ppm = max_rate;
			if (lc_smear_validate_from("--max-rate", p, &err) < 0) {
				lc_cli_print_error(CMD, &err);
				return LC_EXIT_USAGE;
			}
		}
		x.n = 1;
	}

	/* the leap */
	t = lc_leaptable_new();
	if (t == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", CMD);
		return LC_EXIT_RUNTIME;
	}
	x.M = INT64_C(1483228800); /* 2017-01-01: after 2016-12-31 23:59:60 */
	if (leap != NULL && parse_leap(leap, t, &x.M, &err) < 0) {
		lc_cli_print_error(CMD, &err);
		lc_leaptable_free(t);
		return LC_EXIT_USAGE;
	}
	lc_leaptable_free(t);
	x.L = (x.dir > 0 ? x.M : x.M - 1) * NS;
	x.lo = INT64_MAX;
	x.hi = INT64_MIN;
	for (int i = 0; i < x.n; i++) {
		struct curve *c = &x.c[i];
		lc_smear_window_dir(&c->p, x.dir, &c->s, &c->e);
		lc__smear_plan_none(&c->pl);
		lc__smear_plan_settime(&c->pl, &c->p, x.L, x.dir, NULL);
		if (c->s < x.lo)
			x.lo = c->s;
		if (c->e > x.hi)
			x.hi = c->e;
	}
	{
		int64_t pad = (x.hi - x.lo) / 20;
		if (pad < NS)
			pad = NS;
		x.lo -= pad;
		x.hi += pad;
	}
	if (range != NULL) {
		char a[64];
		const char *comma = strchr(range, ',');
		size_t la = comma ? (size_t)(comma - range) : 0;
		if (comma == NULL || la >= sizeof(a))
			return lc_cli_usage_error(CMD, "--range: expected "
			                               "FROM,TO (e.g. -2h,2h)");
		memcpy(a, range, la);
		a[la] = '\0';
		if (parse_dur(a, &x.lo) < 0 ||
		    parse_dur(comma + 1, &x.hi) < 0 || x.hi <= x.lo)
			return lc_cli_usage_error(CMD,
			                          "--range: '%s' is not "
			                          "FROM,TO with FROM < TO",
			                          range);
	}
	x.step = step;
	if (x.step == 0) {
		/* about 50 rows at a round step */
		x.step =
		    (int64_t)(nice_step((double)(x.hi - x.lo) / 1e9, 50) * 1e9);
		if (x.step < 1)
			x.step = 1;
	}
	if ((x.hi - x.lo) / x.step > 10000000)
		return lc_cli_usage_error(CMD,
		                          "--step: %.9g s gives more than "
		                          "10 million rows",
		                          (double)x.step / 1e9);

	if (csv != NULL) {
		FILE *f = open_out(csv);
		if (f == NULL) {
			fprintf(stderr, "leapclock %s: %s: %s\n", CMD, csv,
			        strerror(errno));
			return LC_EXIT_RUNTIME;
		}
		print_csv(f, &x);
		if (close_out(f) != 0)
			return LC_EXIT_RUNTIME;
	}
	if (svg != NULL) {
		FILE *f = open_out(svg);
		if (f == NULL) {
			fprintf(stderr, "leapclock %s: %s: %s\n", CMD, svg,
			        strerror(errno));
			return LC_EXIT_RUNTIME;
		}
		if (write_svg(f, &x) < 0 || close_out(f) != 0) {
			fprintf(stderr, "leapclock %s: %s: write failed\n", CMD,
			        svg);
			return LC_EXIT_RUNTIME;
		}
	}
	if ((csv != NULL && strcmp(csv, "-") == 0) ||
	    (svg != NULL && strcmp(svg, "-") == 0))
		return 0;
	if (json)
		print_json(stdout, &x);
	else
		print_table(stdout, &x);
	return 0;
}
