/*
 * smear_chart.c - the SVG chart of `leapclock smear --svg`: the offset and
 * the rate of each policy around the leap, one colour per policy, and a
 * legend (smear_chart.h).
 */
#include "smear_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS LC__NS

/* ------------------------------------------------------------------------ */
/* SVG                                                                       */
/* ------------------------------------------------------------------------ */

/* one per preset, so that no two curves of --compare all share one */
static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#9467bd", "#ff7f0e", "#8c564b",
                                      "#e377c2", "#17becf", "#bcbd22"};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

double lc_cli_smear_nice_step(double span, int want)
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

/* A horizontal grid line at y, labelled on the left. */
static void grid_line(FILE *o, const struct panel *p, double y,
                      const char *label)
{
	fprintf(o,
	        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
	        "y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
	        p->x0, y, p->x0 + p->w, y);
	fprintf(o,
	        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
	        "text-anchor=\"end\">%s</text>\n",
	        p->x0 - 6, y + 4, label);
}

/* show_x_label: 0 none, +1 / -1 the x label for an insertion / deletion */
static void axes(FILE *o, const struct panel *p, const char *ylabel,
                 int show_x_label)
{
	double st = lc_cli_smear_nice_step(p->tmax - p->tmin, 8), v;
	char lab[64];

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
			snprintf(lab, sizeof(lab), "%.*f", e < 0 ? -e : 0,
			         pow(10, e));
			grid_line(o, p, py(p, pow(10, e)), lab);
		}
	} else {
		double sv = lc_cli_smear_nice_step(p->vmax - p->vmin, 6);
		for (v = ceil(p->vmin / sv) * sv; v <= p->vmax + 1e-9 * sv;
		     v += sv) {
			tick_label(lab, sizeof(lab), v);
			grid_line(o, p, py(p, v), lab);
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
static void off_scale_note(FILE *o, const struct ctx *x, const struct panel *p,
                           double y)
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
			kn +=
			    (size_t)snprintf(names + kn, sizeof(names) - kn,
			                     "%s%s", kn ? "," : "", c->p.name);
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

#define SVG_W 960.0 /* the chart's width, px */

/* The two panels (offset above, rate below) for x's curves: the time
 * unit, the value ranges (several rates whose peaks differ by more than
 * 20x on a log scale). */
static void panels(const struct ctx *x, struct panel *po, struct panel *pr)
{
	double rmax = 0, peakmin = INFINITY;

	for (int i = 0; i < x->n; i++) {
		double pk = lc_smear_peak_ppm(&x->c[i].p, x->dir);
		if (pk > rmax)
			rmax = pk;
		if (pk < peakmin)
			peakmin = pk;
	}
	po->x0 = pr->x0 = 90;
	po->w = pr->w = SVG_W - 90 - 30;
	time_unit(po, x->lo, x->hi);
	time_unit(pr, x->lo, x->hi);
	po->y0 = 70;
	po->h = 220;
	pr->y0 = 340;
	pr->h = 200;
	po->logy = 0;
	po->vmin = x->dir > 0 ? 0 : -1000;
	po->vmax = x->dir > 0 ? 1000 : 0;
	pr->logy = x->n > 1 && rmax / peakmin > 20;
	if (pr->logy) {
		pr->vmin = floor(log10(peakmin)) - 1;
		pr->vmax = ceil(log10(rmax * 1.5));
	} else if (x->dir > 0) {
		pr->vmin = -rmax * 1.1;
		pr->vmax = rmax * 0.1 + 1e-9;
	} else {
		pr->vmin = -rmax * 0.1 - 1e-9;
		pr->vmax = rmax * 1.1;
	}
}

/* --width: the chart's displayed width in px (its height in proportion);
 * the drawing keeps its 960-unit viewBox and scales. */
double lc_cli_svg_width = SVG_W;

/* The document's head, the title and the subtitle. */
static void svg_head(FILE *o, const struct ctx *x, double H)
{
	char day[64], title[256];

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
	        lc_cli_svg_width, H * lc_cli_svg_width / SVG_W, SVG_W, H);
	xml_text(o, title);
	fprintf(o, "</title>\n<rect width=\"100%%\" height=\"100%%\" "
	           "fill=\"#fafafa\"/>\n");
	fprintf(o,
	        "<text x=\"%.1f\" y=\"30\" font-size=\"18\" "
	        "font-weight=\"bold\" text-anchor=\"middle\">",
	        SVG_W / 2);
	xml_text(o, title);
	fprintf(o, "</text>\n");
	fprintf(o,
	        "<text x=\"%.1f\" y=\"50\" font-size=\"12\" fill=\"#555555\" "
	        "text-anchor=\"middle\">offset: how far the smeared clock "
	        "is behind a clock without the leap; rate: its speed "
	        "relative to SI seconds</text>\n",
	        SVG_W / 2);
}

/* Curve i's offset (a polyline) and rate (a path) at the instants ts. */
static void svg_curve(FILE *o, const struct ctx *x, int i,
                      const struct panel *po, const struct panel *pr,
                      const int64_t *ts, size_t n)
{
	const struct curve *c = &x->c[i];
	const char *col = colours[i % NCOLOURS];
	/* Curves that coincide (at the plateau, or presets alike) must not
	 * hide each other: the ones drawn first are wider, each later one
	 * dashed its own way, so every colour shows beside the others. */
	static const char *const dashes[] = { "none", "10 4", "3 3",
		                              "14 3 3 3", "6 6", "2 6",
		                              "18 4", "8 3 2 3 2 3" };
	double w = 2.0 + 0.6 * (double)(x->n - 1 - i);
	const char *dash = dashes[i % (int)(sizeof(dashes) / sizeof(dashes[0]))];

	if (x->n == 1)
		w = 2.0;
	fprintf(o,
	        "<polyline class=\"offset\" fill=\"none\" "
	        "stroke=\"%s\" stroke-width=\"%.1f\" "
	        "stroke-dasharray=\"%s\" points=\"",
	        col, w, dash);
	for (size_t k = 0; k < n; k++)
		fprintf(o, "%.2f,%.2f ", px_ns(po, ts[k]),
		        py(po, off_ms(c, x->L + ts[k])));
	fprintf(o, "\"/>\n");
	/* the rate as a path: on the log scale a zero rate (outside the
	 * window) has no place, and drawn at the bottom it read as 1 ppm
	 * (issue 16): the path is cut there instead */
	fprintf(o,
	        "<path class=\"rate\" fill=\"none\" stroke=\"%s\" "
	        "stroke-width=\"%.1f\" stroke-dasharray=\"%s\" d=\"",
	        col, w, dash);
	for (size_t k = 0, pen = 0; k < n; k++) {
		double r = rate_ppm(c, x->L + ts[k]);
		if (pr->logy && !(fabs(r) >= pow(10, pr->vmin))) {
			pen = 0;
			continue;
		}
		fprintf(o, "%s%.2f,%.2f ", pen ? "L" : "M", px_ns(pr, ts[k]),
		        py(pr, pr->logy ? fabs(r) : r));
		pen = 1;
	}
	fprintf(o, "\"/>\n");
}

/* The legend, below the charts, in two columns; the off-scale note. */
static void svg_legend(FILE *o, const struct ctx *x, const struct panel *po,
                       const struct panel *pr, int noff)
{
	int rows = (x->n + 1) / 2;
	double ly = pr->y0 + pr->h + 52;

	fprintf(o,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	        "height=\"%d\" fill=\"#ffffff\" stroke=\"#bbbbbb\"/>\n",
	        po->x0, ly, po->w, 10 + 18 * rows);
	for (int i = 0; i < x->n; i++) {
		const struct curve *c = &x->c[i];
		double lx = po->x0 + 10 + (x->n > 1 ? (i % 2) * po->w / 2 : 0);
		double y = ly + 18 + 18 * (x->n > 1 ? i / 2 : i);
		char lab[160];

		snprintf(lab, sizeof(lab),
		         "%s: %s, %s, %.6g SI s, peak %.4g ppm%s", c->p.name,
		         shape_names[c->p.shape],
		         placement_names[c->p.placement],
		         (double)(c->e - c->s) / 1e9,
		         lc_smear_peak_ppm(&c->p, x->dir),
		         off_scale(po, c) ? " *" : "");
		fprintf(o,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		        "y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"3\"/>\n",
		        lx, y - 4, lx + 22, y - 4, colours[i % NCOLOURS]);
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">",
		        lx + 28, y);
		xml_text(o, lab);
		fprintf(o, "</text>\n");
	}
	if (noff > 0)
		off_scale_note(o, x, po, ly + 10 + 18 * rows + 18);
}

int lc_cli_smear_svg(FILE *o, const struct ctx *x)
{
	double H = 600 + 18.0 * ((x->n + 1) / 2) + 30;
	struct panel po, pr;
	size_t n;
	int64_t *ts = chart_times(x, &n);
	int noff = 0;

	if (ts == NULL)
		return -1;
	panels(x, &po, &pr);
	for (int i = 0; i < x->n; i++)
		if (off_scale(&po, &x->c[i]))
			noff++;
	if (noff > 0)
		H += 22;
	svg_head(o, x, H);
	/* offset_ms = T - UTC_SLS, negative for a deletion: the label
	 * names the sign of the numbers beside it (before, a deletion's
	 * read "offset (ms, ahead)" beside -1000..0) */
	axes(o, &po,
	     x->dir > 0 ? "offset behind (ms)"
	                : "offset behind (ms; negative: ahead)",
	     0);
	axes(o, &pr,
	     pr.logy ? "|rate| (ppm, log scale)"
	             : (x->dir > 0 ? "rate (ppm, negative = slow)"
	                           : "rate (ppm, positive = fast)"),
	     x->dir);
	for (int i = 0; i < x->n; i++)
		svg_curve(o, x, i, &po, &pr, ts, n);
	if (pr.logy)
		fprintf(o,
		        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		        "fill=\"#555555\">a zero rate (outside a window) is "
		        "not drawn on the log scale</text>\n",
		        pr.x0 + 6, pr.y0 + 14);
	svg_legend(o, x, &po, &pr, noff);
	fprintf(o, "</svg>\n");
	free(ts);
	return ferror(o) ? -1 : 0;
}
