/*
 * smear_shape.c - what a smear policy is made of: the shapes g (linear,
 * cosine, quadratic), the window's placement around the leap, the
 * quadratic's ramp and the peak rate, and the validation of a policy.
 *
 * Time coordinates. Everything here is int64_t ns on the *pre-leap
 * continuous timeline* T (REALTIME as it would run if the leap never came),
 * relative to the leap instant L: the start of the inserted 23:59:60, or the
 * start of the deleted 23:59:59. The leap second itself occupies [0, 1 s) of
 * that axis (for a deletion it is the second that UTC skips). UTC midnight
 * after the leap is at m = +1 s for an insertion and m = 0 for a deletion.
 *
 * Windows (docs/smearing.md has the reasons):
 *
 *     ENDING    [m - W, m]           W counted in SI seconds (Kuhn, ntpd)
 *     STARTING  [0, W]               W in SI seconds, from the leap instant
 *                                    (chrony, fbclock)
 *     CENTRED   [P - W/2, m + W/2]   W in civil seconds, the leap second not
 *                                    counted: noon to noon is W = 86,400 and
 *                                    spans 86,401 SI s for an insertion
 *                                    (P = T's own midnight: 0 for an
 *                                    insertion, +1 s for a deletion)
 *     ENDING_POSIX [P - W, max(P, m)]  the ramp [P - W, P] ends at T's own
 *                                    (POSIX) midnight, as NTP's
 *                                    leapsmearinterval; for an insertion
 *                                    the offset then holds the whole
 *                                    second through 23:59:60 (a plateau,
 *                                    [0, 1 s]) and the window closes at
 *                                    UTC midnight
 *
 * The offset d * 1e9 * g(x) (x the fraction of the window elapsed) is what
 * UTC_SLS is behind T: UTC_SLS = T - offset.
 */
#include "smear_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#define SMEAR_MAX_WINDOW (INT64_C(7) * 86400 * LC__NS)
#define SMEAR_PI         3.14159265358979323846

/* ------------------------------------------------------------------------ */
/* Shapes g: [0,1] -> [0,1]                                                  */
/* ------------------------------------------------------------------------ */

/* The quadratic ramp with ramp fraction rho in (0, 1/2] on each side: the
 * rate (g') rises linearly from 0 to G over [0, rho], holds G, and falls
 * back to 0 over [1 - rho, 1]. Its area G * (1 - rho) must be 1, so
 * G = 1 / (1 - rho). Integrating:
 *     x <= rho:           g = G x^2 / (2 rho)
 *     rho <= x <= 1-rho:  g = G rho / 2 + G (x - rho)
 *     x >= 1 - rho:       g = 1 - G (1 - x)^2 / (2 rho)
 * rho = 1/2 is chrony's triangle; rho -> 0 tends to the linear shape. */
static double g_quad(double x, double rho)
{
	double G;

	if (rho <= 0)
		return x;
	G = 1.0 / (1.0 - rho);
	if (x <= rho)
		return G * x * x / (2 * rho);
	if (x >= 1 - rho)
		return 1 - G * (1 - x) * (1 - x) / (2 * rho);
	return G * rho / 2 + G * (x - rho);
}

static double gd_quad(double x, double rho)
{
	double G;

	if (rho <= 0)
		return 1;
	G = 1.0 / (1.0 - rho);
	if (x <= rho)
		return G * x / rho;
	if (x >= 1 - rho)
		return G * (1 - x) / rho;
	return G;
}

/* g(x) for the shapes; rho only for the quadratic. Raised cosine:
 * (1 - cos(pi x)) / 2 = sin^2(pi x / 2), the second form without the
 * cancellation near x = 0. */
double lc__smear_g(int shape, double x, double rho)
{
	double s;

	switch (shape) {
	case LC_SMEAR_COSINE:
		s = sin(SMEAR_PI * x / 2);
		return s * s;
	case LC_SMEAR_QUADRATIC:
		return g_quad(x, rho);
	default:
		return x;
	}
}

/* g'(x) */
double lc__smear_gd(int shape, double x, double rho)
{
	switch (shape) {
	case LC_SMEAR_COSINE:
		return SMEAR_PI / 2 * sin(SMEAR_PI * x);
	case LC_SMEAR_QUADRATIC:
		return gd_quad(x, rho);
	default:
		return 1;
	}
}

/* max g' */
double lc__smear_gd_peak(int shape, double rho)
{
	switch (shape) {
	case LC_SMEAR_COSINE:
		return SMEAR_PI / 2;
	case LC_SMEAR_QUADRATIC:
		return rho <= 0 ? 1 : 1 / (1 - rho);
	default:
		return 1;
	}
}

/* ------------------------------------------------------------------------ */
/* Policies                                                                  */
/* ------------------------------------------------------------------------ */

/* The window [*s, *e] relative to the leap instant, for direction dir, and
 * the end *r of its ramp (s < r <= e; the offset holds its full value on
 * [r, e]). */
void lc__smear_ramp_dir(const struct lc_smear_policy *p, int dir, int64_t *s,
                        int64_t *r, int64_t *e)
{
	int64_t m = dir > 0 ? LC__NS : 0; /* UTC midnight */
	int64_t P = dir > 0 ? 0 : LC__NS; /* T's midnight */
	int64_t W = p->window_ns;

	switch (p->placement) {
	case LC_SMEAR_ENDING_POSIX:
		/* NTP's leapsmearinterval (NTPsec and NTP Classic
		 * ntpd/ntp_timer.c): the interval ends at the leap's
		 * transition time, POSIX midnight, on T: the start of
		 * 23:59:60 for an insertion (the second absorbed as it
		 * begins), the end of the deleted 23:59:59 for a deletion.
		 * The window closes with the leap second, so that outside
		 * it UTC_SLS is UTC: during 23:59:60 UTC_SLS reads the
		 * POSIX 23:59:59.x (the plateau). */
		*s = P - W;
		*r = P;
		*e = P > m ? P : m;
		return;
	case LC_SMEAR_STARTING:
		/* From the leap instant itself: where chronyd's leap timeout
		 * fires (its clock reads 00:00:00, true 23:59:60.000) and
		 * fbclock's daemon starts (its leap second event time), the
		 * smeared clock then reading 00:00:00.000 and already slow
		 * (docs/smearing.md). For a deletion that is UTC's midnight
		 * too. */
		*s = 0;
		*e = W;
		(void)m;
		break;
	case LC_SMEAR_CENTRED:
		/* W/2 civil seconds either side of midnight; rounding the
		 * half down on the left and up on the right keeps
		 * e - s == W + dir s for odd W. */
		*s = P - W / 2;
		*e = m + (W - W / 2);
		break;
	default:
		*s = m - W;
		*e = m;
		break;
	}
	*r = *e;
}

void lc__smear_window_dir(const struct lc_smear_policy *p, int dir, int64_t *s,
                          int64_t *e)
{
	int64_t r;

	lc__smear_ramp_dir(p, dir, s, &r, e);
}

/* The quadratic's ramp length (ns) for a window of `len` ns that must move
 * the offset by `amount` ns with its rate at most max_ppm (0: no plateau,
 * the triangle). Returns -1 if max_ppm is too small. Derivation: with ramp
 * r and peak R, the area is R (len - r) = amount; the triangle has
 * r = len/2 and R = 2 amount / len; capping R at max gives
 * r = len - amount / max, valid while 0 <= r <= len/2. */
int64_t lc__smear_quad_ramp(int64_t len, int64_t amount, double max_ppm)
{
	double R, r;

	if (max_ppm <= 0)
		return len / 2;
	R = max_ppm * 1e-6;
	if (R * (double)len >= 2.0 * (double)amount)
		return len / 2;
	r = (double)len - (double)amount / R;
	if (r < 0) {
		/* within rounding of the exact minimum: the linear shape */
		if (r > -1.0)
			return 0;
		return -1;
	}
	return (int64_t)r;
}

/* Peak |rate| in ppm of a smear moving `amount` ns over `len` ns with the
 * given shape and quadratic ramp. */
double lc__smear_peak_ppm(int shape, int64_t len, int64_t ramp, int64_t amount)
{
	double rho = (shape == LC_SMEAR_QUADRATIC && len > 0)
	                 ? (double)ramp / (double)len
	                 : 0;
	return (double)amount * lc__smear_gd_peak(shape, rho) / (double)len *
	       1e6;
}

static const char *shape_name(int s)
{
	static const char *const n[] = {"linear", "cosine", "quadratic",
	                                "step"};
	return (s >= 0 && s <= 3) ? n[s] : "?";
}

/* The nominal peak rate (ppm) of the policy for direction dir; assumes the
 * policy passed the structural checks. */
double lc__smear_policy_peak(const struct lc_smear_policy *p, int dir)
{
	int64_t s, re, e, r = 0;

	lc__smear_ramp_dir(p, dir, &s, &re, &e);
	if (p->shape == LC_SMEAR_QUADRATIC) {
		r = lc__smear_quad_ramp(re - s, LC__NS, p->max_rate_ppm);
		if (r < 0)
			return INFINITY;
	}
	return lc__smear_peak_ppm(p->shape, re - s, r, LC__NS);
}

/* The rate bound of the policy in direction dir: max_rate_ppm when set,
 * else the nominal peak. */
double lc__smear_policy_bound(const struct lc_smear_policy *p, int dir)
{
	if (p->max_rate_ppm > 0)
		return p->max_rate_ppm;
	return lc__smear_policy_peak(p, dir);
}

/* The fields one by one: 0 or LC_EINVAL naming the field. */
static int check_fields(const char *w, const struct lc_smear_policy *p,
                        struct lc_error *err)
{
	if (p->shape < 0 || p->shape > LC_SMEAR_STEP)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "shape: unknown shape %d (linear, cosine, "
		                 "quadratic or step)",
		                 p->shape);
	if (p->placement < 0 || p->placement > LC_SMEAR_ENDING_POSIX)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "placement: unknown placement %d (ending, "
		                 "centred, starting or ending-posix)",
		                 p->placement);
	if (p->window_ns <= 0)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "window: %" PRId64 " ns is not a positive "
		                 "length",
		                 p->window_ns);
	if (p->window_ns > SMEAR_MAX_WINDOW)
		return lc__error(
		    err, LC_EINVAL, w, 0,
		    "window: %.0f s is longer than 7 days (the "
		    "smears of leaps a month apart would overlap); "
		    "allowed: up to 604800 s",
		    (double)p->window_ns / 1e9);
	if (!(p->max_rate_ppm >= 0)) /* also NaN */
		return lc__error(err, LC_EINVAL, w, 0,
		                 "max_rate: %g ppm is negative (allowed: 0, "
		                 "the shape's own peak, or more)",
		                 p->max_rate_ppm);
	if (p->shape == LC_SMEAR_STEP &&
	    (p->window_ns != 2 * LC__NS || p->placement != LC_SMEAR_ENDING))
		return lc__error(
		    err, LC_EINVAL, w, 0,
		    "window: the step shape is Windows' fixed form, "
		    "a 2 s window ending at midnight (23:59:59 "
		    "lasts two seconds); use linear for others");
	if (p->placement == LC_SMEAR_CENTRED && p->window_ns <= LC__NS)
		return lc__error(
		    err, LC_EINVAL, w, 0,
		    "window: a centred window counts civil seconds "
		    "and must be longer than 1 s (it spans W - 1 SI "
		    "seconds around a deleted second)");
	return 0;
}

/* The rates the policy asks of the smeared clock, both directions. */
static int check_rates(const char *w, const struct lc_smear_policy *p,
                       struct lc_error *err)
{
	double pk;

	for (int dir = 1; dir >= -1; dir -= 2) {
		int64_t s, r, e;

		lc__smear_ramp_dir(p, dir, &s, &r, &e);
		e = r; /* the rates are the ramp's */
		if (p->shape == LC_SMEAR_QUADRATIC &&
		    lc__smear_quad_ramp(e - s, LC__NS, p->max_rate_ppm) < 0)
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "max_rate: %g ppm is too small for a %.3f s "
			    "window to absorb 1 s (needs at least %.6g ppm)",
			    p->max_rate_ppm, (double)(e - s) / 1e9,
			    1e15 / (double)(e - s));
		pk = lc__smear_policy_peak(p, dir);
		if (dir > 0 && pk >= 1e6)
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "window: %.6g s is too short for the %s shape: "
			    "its peak rate %.6g ppm would stop the smeared "
			    "clock or run it backwards (must stay above "
			    "-1e6 ppm)",
			    (double)p->window_ns / 1e9, shape_name(p->shape),
			    -pk);
		if (p->max_rate_ppm > 0 && pk > p->max_rate_ppm * (1 + 1e-12))
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "max_rate: %g ppm is too small for the %s shape "
			    "to absorb 1 s in a %.6g s window (needs %.6g "
			    "ppm)",
			    p->max_rate_ppm, shape_name(p->shape),
			    (double)(e - s) / 1e9, pk);
	}
	return 0;
}

/* err->where names where the policy came from (an option, a variable, a
 * file and key): the caller's label, else "smear policy". */
int lc_smear_validate_from(const char *where, const struct lc_smear_policy *p,
                           struct lc_error *err)
{
	const char *w = where != NULL ? where : "smear policy";
	int rc;

	if (p == NULL)
		return lc__error(err, LC_EINVAL, w, 0, "no policy given");
	rc = check_fields(w, p, err);
	return rc < 0 ? rc : check_rates(w, p, err);
}

int lc_smear_validate(const struct lc_smear_policy *p, struct lc_error *err)
{
	return lc_smear_validate_from(NULL, p, err);
}
