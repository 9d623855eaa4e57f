/*
 * smear_chart.h - between `leapclock smear` (cmd_smear.c: options, table,
 * CSV, JSON) and its SVG chart (smear_chart.c): the sampled curves.
 */
#ifndef LC_SMEAR_CHART_H
#define LC_SMEAR_CHART_H

#include "internal.h"
#include "smear.h"

#include <stdio.h>

#define MAXP 16 /* policies on one chart (--compare) */

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

static inline double off_ms(const struct curve *c, int64_t T)
{
	return (double)lc__smear_plan_offset(&c->pl, T) / 1e6;
}

static inline double rate_ppm(const struct curve *c, int64_t T)
{
	return lc__smear_plan_rate_ppm(&c->pl, T);
}

/* "YYYY-MM-DD..." of the day the leap ends. */
static inline void day_of(const struct ctx *x, char *buf, size_t n)
{
	struct timespec ts = lc__ns_to_ts((x->M - 1) * LC__NS);

	if (lc_iso8601_format(&ts, 0, buf, n) < 0)
		snprintf(buf, n, "?");
}

static const char *const shape_names[] = {"linear", "cosine", "quadratic",
                                          "step"};
static const char *const placement_names[] = {"ending", "centred", "starting",
                                              "ending-posix"};

/* A "nice" tick step for a span, about `want` ticks. */
double lc_cli_smear_nice_step(double span, int want);
/* The chart of x's curves: offset and rate over x->lo..x->hi, a legend.
 * 0, or -1 if memory is short or writing failed. */
int lc_cli_smear_svg(FILE *o, const struct ctx *x);
/* The chart's displayed width in px (smear --width; default 960). */
extern double lc_cli_svg_width;

#endif /* LC_SMEAR_CHART_H */
