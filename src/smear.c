/*
 * smear.c - smear policies, the deployed presets, and smear plans (the
 * UTC_SLS timeline as the timekeeper reads it).
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
 *     STARTING  [m, m + W]           W in SI seconds (chrony, fbclock)
 *     CENTRED   [P - W/2, m + W/2]   W in civil seconds, the leap second not
 *                                    counted: noon to noon is W = 86,400 and
 *                                    spans 86,401 SI s for an insertion
 *                                    (P = T's own midnight: 0 for an
 *                                    insertion, +1 s for a deletion)
 *
 * The offset d * 1e9 * g(x) (x the fraction of the window elapsed) is what
 * UTC_SLS is behind T: UTC_SLS = T - offset.
 */
#include "smear.h"

#include "leaptable_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define SMEAR_MAX_WINDOW (INT64_C(7) * 86400 * LC__NS)
#define SMEAR_PI         3.14159265358979323846

/* ------------------------------------------------------------------------ */
/* Arithmetic                                                                */
/* ------------------------------------------------------------------------ */

/* ceil(a * b / c) for 0 <= a, 0 <= b, 0 < c, when the result fits (it does
 * here: b <= c). The product needs up to ~2^110. Rounding up (away from 0
 * for the offset's magnitude) makes an instant where the ideal offset is a
 * whole ns the first to show its smeared reading, so the inverse returns it
 * exactly (rounding down would make the ns before it read the same). */
static int64_t muldiv_ceil(int64_t a, int64_t b, int64_t c)
{
#if defined(__SIZEOF_INT128__)
	unsigned __int128 p = (unsigned __int128)(uint64_t)a * (uint64_t)b;
	return (int64_t)(p / (uint64_t)c) + (p % (uint64_t)c != 0);
#else
	/* Exact without a 128-bit type: the 128-bit product from 32-bit
	 * limbs, then schoolbook binary long division by c. */
	uint64_t x = (uint64_t)a, y = (uint64_t)b, d = (uint64_t)c;
	uint64_t x0 = x & 0xffffffffu, x1 = x >> 32;
	uint64_t y0 = y & 0xffffffffu, y1 = y >> 32;
	uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	uint64_t lo = (mid << 32) | (p00 & 0xffffffffu);
	uint64_t q = 0, r = 0;

	for (int i = 127; i >= 0; i--) {
		uint64_t bit = i >= 64 ? (hi >> (i - 64)) & 1 : (lo >> i) & 1;
		int carry = (r >> 63) != 0;
		r = (r << 1) | bit;
		if (carry || r >= d) {
			r -= d;
			if (i < 64)
				q |= (uint64_t)1 << i;
		}
	}
	return (int64_t)q + (r != 0);
#endif
}

static double clamp01(double x)
{
	return x < 0 ? 0 : (x > 1 ? 1 : x);
}

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
static double g_eval(int shape, double x, double rho)
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
static double gd_eval(int shape, double x, double rho)
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
static double gd_peak(int shape, double rho)
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

/* The window [*s, *e] relative to the leap instant, for direction dir. */
static void window_dir(const struct lc_smear_policy *p, int dir, int64_t *s,
                       int64_t *e)
{
	int64_t m = dir > 0 ? LC__NS : 0; /* UTC midnight */
	int64_t P = dir > 0 ? 0 : LC__NS; /* T's midnight */
	int64_t W = p->window_ns;

	switch (p->placement) {
	case LC_SMEAR_STARTING:
		*s = m;
		*e = m + W;
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
}

/* The quadratic's ramp length (ns) for a window of `len` ns that must move
 * the offset by `amount` ns with its rate at most max_ppm (0: no plateau,
 * the triangle). Returns -1 if max_ppm is too small. Derivation: with ramp
 * r and peak R, the area is R (len - r) = amount; the triangle has
 * r = len/2 and R = 2 amount / len; capping R at max gives
 * r = len - amount / max, valid while 0 <= r <= len/2. */
static int64_t quad_ramp(int64_t len, int64_t amount, double max_ppm)
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
static double peak_ppm(int shape, int64_t len, int64_t ramp, int64_t amount)
{
	double rho = (shape == LC_SMEAR_QUADRATIC && len > 0)
	                 ? (double)ramp / (double)len
	                 : 0;
	return (double)amount * gd_peak(shape, rho) / (double)len * 1e6;
}

static const char *shape_name(int s)
{
	static const char *const n[] = {"linear", "cosine", "quadratic",
	                                "step"};
	return (s >= 0 && s <= 3) ? n[s] : "?";
}

/* The nominal peak rate (ppm) of the policy for direction dir; assumes the
 * policy passed the structural checks. */
static double policy_peak(const struct lc_smear_policy *p, int dir)
{
	int64_t s, e, r = 0;

	window_dir(p, dir, &s, &e);
	if (p->shape == LC_SMEAR_QUADRATIC) {
		r = quad_ramp(e - s, LC__NS, p->max_rate_ppm);
		if (r < 0)
			return INFINITY;
	}
	return peak_ppm(p->shape, e - s, r, LC__NS);
}

/* The rate bound of the policy in direction dir: max_rate_ppm when set,
 * else the nominal peak. */
static double policy_bound(const struct lc_smear_policy *p, int dir)
{
	if (p->max_rate_ppm > 0)
		return p->max_rate_ppm;
	return policy_peak(p, dir);
}

/* err->where names where the policy came from (an option, a variable, a
 * file and key): the caller's label, else "smear policy". */
int lc_smear_validate_from(const char *where, const struct lc_smear_policy *p,
                           struct lc_error *err)
{
	const char *w = where != NULL ? where : "smear policy";
	double pk;

	if (p == NULL)
		return lc__error(err, LC_EINVAL, w, 0, "no policy given");
	if (p->shape < 0 || p->shape > LC_SMEAR_STEP)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "shape: unknown shape %d (linear, cosine, "
		                 "quadratic or step)",
		                 p->shape);
	if (p->placement < 0 || p->placement > LC_SMEAR_STARTING)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "placement: unknown placement %d (ending, "
		                 "centred or starting)",
		                 p->placement);
	if (p->window_ns <= 0)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "window: %" PRId64 " ns is not a positive "
		                 "length",
		                 p->window_ns);
	if (p->window_ns > SMEAR_MAX_WINDOW)
		return lc__error(err, LC_EINVAL, w, 0,
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
	for (int dir = 1; dir >= -1; dir -= 2) {
		int64_t s, e;

		window_dir(p, dir, &s, &e);
		if (p->shape == LC_SMEAR_QUADRATIC &&
		    quad_ramp(e - s, LC__NS, p->max_rate_ppm) < 0)
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "max_rate: %g ppm is too small for a %.3f s "
			    "window to absorb 1 s (needs at least %.6g ppm)",
			    p->max_rate_ppm, (double)(e - s) / 1e9,
			    1e15 / (double)(e - s));
		pk = policy_peak(p, dir);
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

int lc_smear_validate(const struct lc_smear_policy *p, struct lc_error *err)
{
	return lc_smear_validate_from(NULL, p, err);
}

/* ------------------------------------------------------------------------ */
/* Presets                                                                   */
/* ------------------------------------------------------------------------ */

struct preset {
	const char *name;
	int shape, placement;
	int64_t window_s;
	double max_rate_ppm;
	int64_t min_s, max_s; /* configurable range; 0, 0: fixed */
};

/* Sources and figures: docs/smearing.md and leapclock-smear(1). */
static const struct preset presets[] = {
    /* Google Public NTP / AWS: 24 h linear, noon to noon UTC */
    {"google", LC_SMEAR_LINEAR, LC_SMEAR_CENTRED, 86400, 0, 0, 0},
    /* NTPsec leapsmearinterval (Debian's ntpd): linear, ends at the
     * leap */
    {"ntpd", LC_SMEAR_LINEAR, LC_SMEAR_ENDING, 86400, 0, 7200, 86400},
    /* chrony smoothtime 400 0.001024 leaponly: quadratic spline from the
     * leap, 62,500 s, peak 32 ppm */
    {"chrony", LC_SMEAR_QUADRATIC, LC_SMEAR_STARTING, 62500, 0, 0, 0},
    /* Meta fbclock (facebook/time): linear 62,500 s from the leap, 16 ppm */
    {"fbclock", LC_SMEAR_LINEAR, LC_SMEAR_STARTING, 62500, 0, 0, 0},
    /* Kuhn's UTC-SLS: the last 1000 UTC seconds before midnight */
    {"utc-sls", LC_SMEAR_LINEAR, LC_SMEAR_ENDING, 1000, 0, 0, 0},
    /* the last minute before midnight */
    {"minute", LC_SMEAR_LINEAR, LC_SMEAR_ENDING, 60, 0, 0, 0},
    /* Google before 2016: raised cosine before midnight, 20 h */
    {"cosine", LC_SMEAR_COSINE, LC_SMEAR_ENDING, 72000, 0, 60, 7 * 86400},
    /* Windows 10 1809+ / Server 2019+ without the 23:59:60 opt-in:
     * 23:59:59 lasts 2 s, to the end of 23:59:60 */
    {"windows", LC_SMEAR_STEP, LC_SMEAR_ENDING, 2, 0, 0, 0},
    /* NTP Classic (ntp.org) ntpd leapsmearinterval: the raised cosine
     * (1 - cos(pi t/w))/2, ends at the leap. Last, so that the other
     * presets keep their index (the tests' replayable seeds). */
    {"ntp-classic", LC_SMEAR_COSINE, LC_SMEAR_ENDING, 86400, 0, 7200,
     86400},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const *lc_smear_preset_names(void)
{
	static const char *const names[NPRESETS + 1] = {
	    "google", "ntpd",   "chrony",  "fbclock",     "utc-sls",
	    "minute", "cosine", "windows", "ntp-classic", NULL,
	};
	return names;
}

static int name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a, y = *b;
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (x == '_')
			x = '-';
		if (x != y)
			return 0;
	}
	return *a == *b;
}

/* The presets whose window may be set, "ntpd (7200..86400 s), ...". */
static void window_presets(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NPRESETS && k < n; i++) {
		if (presets[i].min_s == 0)
			continue;
		k += (size_t)snprintf(buf + k, n - k,
		                      "%s%s (%" PRId64 "..%" PRId64 " s)",
		                      k > 0 ? ", " : "", presets[i].name,
		                      presets[i].min_s, presets[i].max_s);
	}
}

/* err->where names where the text came from: the caller's label, else
 * "smear preset". */
int lc_smear_preset_from(const char *where, const char *name,
                         int64_t window_ns, struct lc_smear_policy *p,
                         struct lc_error *err)
{
	const char *w = where != NULL ? where : "smear preset";
	struct lc_smear_policy np;
	const struct preset *ps = NULL;
	char wp[160];

	if (name == NULL)
		return lc__error(err, LC_EINVAL, w, 0, "no preset name given");
	for (size_t i = 0; i < NPRESETS; i++)
		if (name_eq(name, presets[i].name))
			ps = &presets[i];
	if (ps == NULL)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "unknown preset '%s' (google, ntpd, chrony, "
		                 "fbclock, utc-sls, minute, cosine, windows, "
		                 "ntp-classic)",
		                 name);
	memset(&np, 0, sizeof(np));
	snprintf(np.name, sizeof(np.name), "%s", ps->name);
	np.shape = ps->shape;
	np.placement = ps->placement;
	np.window_ns = ps->window_s * LC__NS;
	np.max_rate_ppm = ps->max_rate_ppm;
	if (window_ns != 0) {
		if (ps->min_s == 0) {
			window_presets(wp, sizeof(wp));
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "preset '%s' has a fixed window of %" PRId64
			    " s; a window is taken by %s, or by a custom "
			    "policy",
			    ps->name, ps->window_s, wp);
		}
		if (window_ns < ps->min_s * LC__NS ||
		    window_ns > ps->max_s * LC__NS)
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "window: %.3f s is outside preset '%s''s "
			    "range, %" PRId64 "..%" PRId64 " s",
			    (double)window_ns / 1e9, ps->name, ps->min_s,
			    ps->max_s);
		np.window_ns = window_ns;
	}
	if (lc_smear_validate_from(w, &np, err) < 0)
		return LC_EINVAL;
	*p = np;
	return 0;
}

int lc_smear_preset(const char *name, int64_t window_ns,
                    struct lc_smear_policy *p, struct lc_error *err)
{
	return lc_smear_preset_from(NULL, name, window_ns, p, err);
}

/* ------------------------------------------------------------------------ */
/* Plans                                                                     */
/* ------------------------------------------------------------------------ */

/* param[] slots */
#define P_RAMP 0 /* quadratic ramp (ns) in this plan's window */
#define P_LEAP 1 /* leap_mono of the leap this plan smears */
#define P_DIR  2 /* its direction (0 for an unwind) */
#define P_PEAK 3 /* the plan's peak |rate| in parts per 1e12 */

void lc__smear_plan_none(struct lc__smear_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->start_mono = INT64_MAX;
	pl->end_mono = INT64_MAX;
}

static void set_peak(struct lc__smear_plan *pl)
{
	double pk = peak_ppm((int)pl->shape, pl->end_mono - pl->start_mono,
	                     pl->param[P_RAMP],
	                     pl->to_ns > pl->from_ns ? pl->to_ns - pl->from_ns
	                                             : pl->from_ns - pl->to_ns);
	pl->param[P_PEAK] = (int64_t)ceil(pk * 1e6);
}

/*
 * The curved shapes (cosine, quadratic) are evaluated as chords: the
 * window is cut into regions, each into n chords between knots
 * t_k = A + floor(k R / n) (region [A, A + R)); the offset at a knot is
 * the curve's, V_k = llround(|diff| g(t_k / len) 2^16) (in 2^-16 ns), and
 * between knots it is the straight line through them, rounded to the ns
 * (halves away from 0):
 *
 *     offset(tau) = from + sgn floor((V_k h + (V_k+1 - V_k) u + h 2^15)
 *                                    / (h 2^16))
 *
 * with h = t_k+1 - t_k, u = tau - t_k. Cosine: one region, the window, in
 * 65,536 chords. Quadratic (ramp r): the ramps [0, r) and [len - r, len)
 * in 32,768 chords each and the plateau, a straight line already, as one.
 * That is the one definition of UTC_SLS for those shapes (every face calls
 * this function); the reader's fast path (timekeeper.h,
 * lc__tk_gettime_sls_fast) evaluates the same line with a multiply
 * instead of sin() and a division.
 *
 * Against the curve itself (libm's sin, the definition before): a chord
 * is within max|f''| h^2 / 8 of it, f = |diff| g(tau / len). Cosine:
 * |diff| pi^2 / (16 65536^2) = 0.144 ns for |diff| = 1 s. Quadratic, in a
 * ramp f'' = |diff| G / (r len) and h = r / 32768: |diff| G rho /
 * (8 32768^2) <= 0.116 ns (G rho = rho / (1 - rho) <= 1), whatever the
 * ramp's length. V_k adds 2^-17 ns. So the integer offset is within 0.65 ns
 * of the curve, and within 1 ns of llround(diff g) (tests/test_sls_fast.c
 * checks both over whole windows). The knots are monotone in k (g is, and
 * its steps between knots are far above a double's rounding), and every
 * chord's slope is a mean of g', so the offset is monotone, moves at most
 * 1 ns per ns and stays within the policy's rate bound, as the curve does.
 */
#define CHORD_FRAC 16

/* |V| at tau: the curve in 2^-CHORD_FRAC ns (a = |diff|) */
static int64_t chord_v(const struct lc__smear_plan *pl, int64_t len,
                       int64_t a, int64_t tau)
{
	double rho = (double)pl->param[P_RAMP] / (double)len;
	double g;

	if (tau <= 0)
		return 0;
	if (tau >= len)
		return a << CHORD_FRAC;
	g = clamp01(g_eval((int)pl->shape, (double)tau / (double)len, rho));
	return llround((double)a * (double)(INT64_C(1) << CHORD_FRAC) * g);
}

/* The chord around tau (0 <= tau < len): its knots *t0 <= tau < *t1. */
static void chord_at(const struct lc__smear_plan *pl, int64_t len,
                     int64_t tau, int64_t *t0, int64_t *t1)
{
	int64_t A = 0, R = len, n = INT64_C(1) << 16, k, r;

	if (pl->shape == LC_SMEAR_QUADRATIC) {
		r = pl->param[P_RAMP];
		if (r <= 0 || r > len / 2) {
			n = 1; /* no ramp: a line */
		} else if (tau < r) {
			R = r;
			n = INT64_C(1) << 15;
		} else if (tau < len - r) {
			A = r;
			R = len - 2 * r;
			n = 1;
		} else {
			A = len - r;
			R = r;
			n = INT64_C(1) << 15;
		}
	}
	/* the last k with A + floor(k R / n) <= tau */
	k = (int64_t)(((unsigned __int128)(uint64_t)(tau - A + 1) *
	                   (uint64_t)n -
	               1) /
	              (uint64_t)R);
	*t0 = A + (int64_t)((unsigned __int128)(uint64_t)R * (uint64_t)k /
	                    (uint64_t)n);
	*t1 = A + (int64_t)((unsigned __int128)(uint64_t)R * (uint64_t)(k + 1) /
	                    (uint64_t)n);
}

/* floor(n / d), d > 0 */
static __int128 fdiv128(__int128 n, int64_t d)
{
	__int128 q = n / d;

	if (n % d != 0 && n < 0)
		q--;
	return q;
}

void lc__smear_plan_piece(const struct lc__smear_plan *pl, int64_t mono,
                          struct lc__smear_piece *pc)
{
	int64_t len, tau, diff, a, tk, tk1, h, vk, vk1;
	int neg;

	pc->t0 = 0;
	pc->p = 0;
	pc->q = 0;
	pc->d = 1;
	if (pl->start_mono == INT64_MAX || mono < pl->start_mono) {
		pc->lo = INT64_MIN;
		pc->hi = pl->start_mono;
		pc->base = pl->from_ns;
		return;
	}
	if (mono >= pl->end_mono) {
		pc->lo = pl->end_mono;
		pc->hi = INT64_MAX;
		pc->base = pl->to_ns;
		return;
	}
	len = pl->end_mono - pl->start_mono;
	tau = mono - pl->start_mono;
	diff = pl->to_ns - pl->from_ns;
	neg = diff < 0;
	a = neg ? -diff : diff;
	pc->base = pl->from_ns;
	if (pl->shape == LC_SMEAR_LINEAR || pl->shape == LC_SMEAR_STEP) {
		/* sgn ceil(a tau / len) */
		pc->lo = pl->start_mono;
		pc->hi = pl->end_mono;
		pc->t0 = pl->start_mono;
		pc->d = len;
		pc->p = neg ? -a : a;
		pc->q = neg ? 0 : len - 1;
		return;
	}
	chord_at(pl, len, tau, &tk, &tk1);
	h = tk1 - tk;
	vk = chord_v(pl, len, a, tk);
	vk1 = chord_v(pl, len, a, tk1);
	pc->lo = pl->start_mono + tk;
	pc->hi = pl->start_mono + tk1;
	pc->t0 = pc->lo;
	pc->d = h << CHORD_FRAC;
	pc->p = vk1 - vk;
	pc->q = (__int128)vk * h + ((__int128)h << (CHORD_FRAC - 1));
	if (neg) {
		/* -floor(y) = floor((-num + d - 1) / d) */
		pc->p = -pc->p;
		pc->q = -pc->q + pc->d - 1;
	}
}

int64_t lc__smear_piece_at(const struct lc__smear_piece *pc, int64_t mono)
{
	if (pc->p == 0 && pc->q == 0)
		return pc->base;
	return pc->base +
	       (int64_t)fdiv128((__int128)pc->p * (mono - pc->t0) + pc->q,
	                        pc->d);
}

int64_t lc__smear_plan_offset(const struct lc__smear_plan *pl, int64_t mono)
{
	struct lc__smear_piece pc;
	int64_t len, tau, diff;

	if (mono <= pl->start_mono)
		return pl->from_ns;
	if (mono >= pl->end_mono)
		return pl->to_ns;
	len = pl->end_mono - pl->start_mono;
	tau = mono - pl->start_mono;
	diff = pl->to_ns - pl->from_ns;
	if (pl->shape == LC_SMEAR_LINEAR || pl->shape == LC_SMEAR_STEP) {
		/* exact: from + sign * ceil(|diff| * tau / len) */
		if (diff >= 0)
			return pl->from_ns + muldiv_ceil(diff, tau, len);
		return pl->from_ns - muldiv_ceil(-diff, tau, len);
	}
	lc__smear_plan_piece(pl, mono, &pc);
	return lc__smear_piece_at(&pc, mono);
}

/* The curve itself, llround(diff g(x)) with libm: the definition of the
 * curved shapes before they became chords, kept as the tests' reference. */
int64_t lc__smear_plan_offset_curve(const struct lc__smear_plan *pl,
                                    int64_t mono)
{
	int64_t len, tau, diff;
	double x, rho, g;

	if (mono <= pl->start_mono)
		return pl->from_ns;
	if (mono >= pl->end_mono)
		return pl->to_ns;
	len = pl->end_mono - pl->start_mono;
	tau = mono - pl->start_mono;
	diff = pl->to_ns - pl->from_ns;
	if (pl->shape == LC_SMEAR_LINEAR || pl->shape == LC_SMEAR_STEP)
		return lc__smear_plan_offset(pl, mono);
	x = (double)tau / (double)len;
	rho = (double)pl->param[P_RAMP] / (double)len;
	g = clamp01(g_eval((int)pl->shape, x, rho));
	return pl->from_ns + llround((double)diff * g);
}

/* The rate of UTC_SLS against T (ppm; negative: slower) at mono. */
double lc__smear_plan_rate_ppm(const struct lc__smear_plan *pl, int64_t mono)
{
	int64_t len;
	double x, rho;

	if (mono < pl->start_mono || mono >= pl->end_mono)
		return 0;
	len = pl->end_mono - pl->start_mono;
	x = (double)(mono - pl->start_mono) / (double)len;
	rho = (double)pl->param[P_RAMP] / (double)len;
	return -(double)(pl->to_ns - pl->from_ns) / (double)len *
	       gd_eval((int)pl->shape, x, rho) * 1e6;
}

double lc__smear_plan_peak_ppm(const struct lc__smear_plan *pl)
{
	return (double)pl->param[P_PEAK] * 1e-6;
}

/* Fills *pl with a smear from `from` at `start` to `to` at `end` in the
 * policy's shape, the quadratic's ramp re-solved for this window. Returns
 * the peak rate in ppm, or -1 if the quadratic cannot fit under max. */
static double make_plan(struct lc__smear_plan *pl,
                        const struct lc_smear_policy *p, int64_t start,
                        int64_t end, int64_t from, int64_t to)
{
	int64_t amount = to > from ? to - from : from - to;

	lc__smear_plan_none(pl);
	pl->start_mono = start;
	pl->end_mono = end;
	pl->from_ns = from;
	pl->to_ns = to;
	pl->shape = p->shape == LC_SMEAR_STEP ? LC_SMEAR_LINEAR : p->shape;
	if (pl->shape == LC_SMEAR_QUADRATIC) {
		pl->param[P_RAMP] =
		    quad_ramp(end - start, amount, p->max_rate_ppm);
		if (pl->param[P_RAMP] < 0) {
			/* no trapezoid fits under max: report its need */
			pl->param[P_RAMP] = 0;
			set_peak(pl);
			return -1;
		}
	}
	set_peak(pl);
	return lc__smear_plan_peak_ppm(pl);
}

int lc__smear_plan_leap(struct lc__smear_plan *pl,
                        const struct lc_smear_policy *p, int64_t leap_mono,
                        int dir, int64_t now_mono, struct lc_error *err)
{
	const char *w = "<smear plan>";
	struct lc__smear_plan np;
	int64_t s, e, from = 0, to;
	int active, unwinding;
	double pk;
	int rc;

	rc = lc_smear_validate(p, err);
	if (rc < 0)
		return rc;
	if (dir != 1 && dir != -1)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "direction %d is neither +1 (insert) nor -1 "
		                 "(delete)",
		                 dir);
	active = pl->start_mono != INT64_MAX && now_mono < pl->end_mono;
	unwinding = (pl->flags & LC__SMEAR_UNWIND) != 0;
	if (active && !unwinding) {
		if (pl->param[P_LEAP] == leap_mono && pl->param[P_DIR] == dir)
			return 0; /* this leap is already planned */
		return lc__error(err, LC_EBUSY, w, 0,
		                 "the smear of the previous leap runs until "
		                 "mono %" PRId64 " ns; plan this one at the "
		                 "first update at or after it",
		                 pl->end_mono);
	}
	if (active && unwinding)
		from = lc__smear_plan_offset(pl, now_mono);
	if (now_mono > leap_mono)
		return lc__error(
		    err, LC_ERANGE, w, 0,
		    "armed %.9f s after the leap instant: too late "
		    "to smear it",
		    (double)(now_mono - leap_mono) / 1e9);
	window_dir(p, dir, &s, &e);
	s = lc__sat_add(leap_mono, s);
	e = lc__sat_add(leap_mono, e);
	to = dir * LC__NS;
	if (now_mono <= s && from == 0) {
		make_plan(&np, p, s, e, 0, to);
	} else {
		if (e <= now_mono)
			return lc__error(err, LC_ERANGE, w, 0,
			                 "armed after the smear window ended");
		pk = make_plan(&np, p, now_mono, e, from, to);
		if (pk < 0 ||
		    (p->max_rate_ppm > 0 && lc__smear_plan_peak_ppm(&np) >
		                                p->max_rate_ppm * (1 + 1e-12)))
			return lc__error(
			    err, LC_ERANGE, w, 0,
			    "armed %.3f s into the window: finishing by its "
			    "end needs %.6g ppm, more than max_rate %g ppm",
			    (double)(now_mono - s) / 1e9,
			    lc__smear_plan_peak_ppm(&np), p->max_rate_ppm);
		if (to > from && lc__smear_plan_peak_ppm(&np) >= 1e6 * 0.999)
			return lc__error(
			    err, LC_ERANGE, w, 0,
			    "armed %.3f s into the window: finishing by its "
			    "end needs %.6g ppm, which would (nearly) stop "
			    "the smeared clock",
			    (double)(now_mono - s) / 1e9,
			    lc__smear_plan_peak_ppm(&np));
		if (now_mono > s)
			np.flags |= LC__SMEAR_LATE;
	}
	np.param[P_LEAP] = leap_mono;
	np.param[P_DIR] = dir;
	*pl = np;
	return 0;
}

int lc__smear_plan_settime(struct lc__smear_plan *pl,
                           const struct lc_smear_policy *p, int64_t leap_mono,
                           int dir, struct lc_error *err)
{
	struct lc__smear_plan np;
	int64_t s, e;
	int rc;

	if (pl->flags & LC__SMEAR_UNWIND)
		return 0; /* an unwind is relative to UTC: a step moves both */
	rc = lc_smear_validate(p, err);
	if (rc < 0)
		return rc;
	if (dir != 1 && dir != -1)
		return lc__error(err, LC_EINVAL, "<smear plan>", 0,
		                 "direction %d is neither +1 nor -1", dir);
	window_dir(p, dir, &s, &e);
	make_plan(&np, p, lc__sat_add(leap_mono, s), lc__sat_add(leap_mono, e),
	          0, dir * LC__NS);
	np.param[P_LEAP] = leap_mono;
	np.param[P_DIR] = dir;
	*pl = np;
	return 0;
}

void lc__smear_plan_cancel(struct lc__smear_plan *pl,
                           const struct lc_smear_policy *p, int64_t now_mono)
{
	struct lc__smear_plan np;
	int64_t o, len;
	double bound, gpk, rho = 0;
	int travel;

	if (pl->start_mono == INT64_MAX || (pl->flags & LC__SMEAR_UNWIND))
		return; /* nothing to cancel, or already returning */
	if (pl->param[P_DIR] != 0 && now_mono >= pl->param[P_LEAP])
		return; /* the leap has happened: too late to cancel it */
	o = lc__smear_plan_offset(pl, now_mono);
	if (o == 0) {
		lc__smear_plan_none(pl);
		return;
	}
	/* The unwind moves the offset back to 0 at the policy's rate bound,
	 * the smaller of its two directions' (they differ for centred
	 * windows). When the unwind slows the clock (a deletion's smear
	 * undone) it also stays under the insertion's nominal peak, which
	 * validation keeps below 1e6 ppm, so the clock keeps moving even
	 * under a loose max_rate_ppm. */
	travel = o > 0 ? -1 : 1;
	if (p != NULL && lc_smear_validate(p, NULL) == 0) {
		bound = fmin(policy_bound(p, 1), policy_bound(p, -1));
		if (travel > 0)
			bound = fmin(bound, policy_peak(p, 1));
	} else {
		bound = lc__smear_plan_peak_ppm(pl);
	}
	if (!(bound > 0))
		bound = 1;
	if (pl->shape == LC_SMEAR_QUADRATIC)
		rho = 0.5; /* the unwind is the triangle: no plateau needed */
	gpk = gd_peak((int)pl->shape, rho);
	/* len = |o| * g'max / bound, rounded up so the peak stays under it */
	len = (int64_t)ceil((double)(o > 0 ? o : -o) * gpk / (bound * 1e-6));
	if (len < 1)
		len = 1;
	lc__smear_plan_none(&np);
	np.start_mono = now_mono;
	np.end_mono = lc__sat_add(now_mono, len);
	np.from_ns = o;
	np.to_ns = 0;
	np.shape = pl->shape;
	np.param[P_RAMP] = pl->shape == LC_SMEAR_QUADRATIC ? len / 2 : 0;
	np.flags = LC__SMEAR_UNWIND;
	set_peak(&np);
	*pl = np;
}

int64_t lc__smear_plan_mono_at(const struct lc__smear_plan *pl, int64_t base,
                               int64_t target)
{
	int64_t lo_off = pl->from_ns < pl->to_ns ? pl->from_ns : pl->to_ns;
	int64_t hi_off = pl->from_ns < pl->to_ns ? pl->to_ns : pl->from_ns;
	int64_t t0, lo, hi;

	/* f(m) = m + base - offset(m) is non-decreasing (the offset moves
	 * at most 1 ns per ns where it grows) and offset is within
	 * [lo_off, hi_off], so f(t0 + lo_off - 1) < target <= f(t0 + hi_off)
	 * with t0 = target - base. Bisection on the discrete offset finds the
	 * first such m exactly. */
	if (__builtin_sub_overflow(target, base, &t0))
		return base > 0 ? INT64_MIN : INT64_MAX;
	lo = lc__sat_add(t0, lo_off - 1);
	hi = lc__sat_add(t0, hi_off);
	if (lo == INT64_MIN || hi == INT64_MAX)
		return hi;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (mid + base - lc__smear_plan_offset(pl, mid) >= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* ------------------------------------------------------------------------ */
/* The public pure functions: the nominal smear of one leap at t = 0         */
/* ------------------------------------------------------------------------ */

static int nominal(const struct lc_smear_policy *p, int dir,
                   struct lc__smear_plan *pl)
{
	lc__smear_plan_none(pl);
	if (lc_smear_validate(p, NULL) < 0 || (dir != 1 && dir != -1))
		return -1;
	return lc__smear_plan_settime(pl, p, 0, dir, NULL);
}

int64_t lc_smear_offset(const struct lc_smear_policy *p, int dir, int64_t t_ns)
{
	struct lc__smear_plan pl;

	nominal(p, dir, &pl);
	return lc__smear_plan_offset(&pl, t_ns);
}

double lc_smear_rate_ppm(const struct lc_smear_policy *p, int dir, int64_t t_ns)
{
	struct lc__smear_plan pl;

	nominal(p, dir, &pl);
	return lc__smear_plan_rate_ppm(&pl, t_ns);
}

void lc_smear_window_dir(const struct lc_smear_policy *p, int dir,
                         int64_t *start_rel, int64_t *end_rel)
{
	int64_t s = 0, e = 0;

	if (lc_smear_validate(p, NULL) == 0)
		window_dir(p, dir >= 0 ? 1 : -1, &s, &e);
	if (start_rel)
		*start_rel = s;
	if (end_rel)
		*end_rel = e;
}

double lc_smear_peak_ppm(const struct lc_smear_policy *p, int dir)
{
	if (lc_smear_validate(p, NULL) < 0)
		return 0;
	return policy_peak(p, dir >= 0 ? 1 : -1);
}


/* ------------------------------------------------------------------------ */
/* A table's leaps: UTC_SLS as a pure function of (policy, table, instant)   */
/* ------------------------------------------------------------------------ */

/*
 * Every leap of the table (dir != 0) gets the policy's nominal smear on its
 * own axis. With N the row's TAI-UTC (the offset from `when` on) and d its
 * direction, the offset before the leap is N - d, and
 *
 *     T     = TAI - (N - d) s          the pre-leap timeline (POSIX before
 *                                      the leap; 23:59:60 reads when + x)
 *     L_tai = (when + N) s - [d > 0] s the start of 23:59:60 (insertion),
 *                                      of the skipped 23:59:59 (deletion)
 *     L_T   = L_tai - (N - d) s        = when s (ins.), (when - 1) s (del.)
 *     rel   = TAI - L_tai = T - L_T
 *     UTC_SLS = T - offset(rel)        offset = lc_smear_offset(p, d, rel):
 *                                      0 before the window, d s after it
 *
 * At an instant, the leap whose axis applies is the last one at or before
 * it (the table row in effect on TAI) while its window has not ended, else
 * the next one (UTC_SLS = T = UTC there, offset 0, until its window starts;
 * in an inserted second outside the window that is 23:59:60 counted on,
 * i.e. when + x, as UTC's own ns count), else none (UTC_SLS = TAI - the
 * current TAI-UTC). Switching axes at a window's end is continuous: both
 * read POSIX there. Windows (at most 7 days + 1 s) of table leaps a month
 * apart never overlap; in a synthetic table with leaps closer than that the
 * earlier leap's smear runs to its end and the later one's is taken as it
 * stands then (the timekeeper's plan_next handles that case continuously).
 *
 * Before the table's first row TAI-UTC is taken as that row's (10 s for
 * 1972): no leap, UTC_SLS = UTC = TAI - 10 s.
 */

struct leap_axis {
	int dir;        /* +1 / -1 */
	int64_t when;   /* POSIX s of the midnight after the leap */
	int64_t old_ns; /* TAI-UTC before the leap, ns */
	int64_t L_tai;  /* the leap instant, TAI ns */
	int64_t L_T;    /* the same on T (POSIX ns before the leap) */
	int64_t s, e;   /* the window relative to the leap instant */
};

static void axis_of(const struct lc_leap *lp, const struct lc_smear_policy *p,
                    struct leap_axis *a)
{
	a->dir = lp->dir > 0 ? 1 : -1;
	a->when = lp->when;
	a->old_ns = ((int64_t)lp->tai_utc - a->dir) * LC__NS;
	a->L_T = lc__sat_add(lp->when, a->dir > 0 ? 0 : -1);
	a->L_T = (a->L_T > INT64_MAX / LC__NS || a->L_T < INT64_MIN / LC__NS)
	             ? (a->L_T > 0 ? INT64_MAX : INT64_MIN)
	             : a->L_T * LC__NS;
	a->L_tai = lc__sat_add(a->L_T, a->old_ns);
	window_dir(p, a->dir, &a->s, &a->e);
}

/* The nominal offset of this leap's smear at rel (lc_smear_offset's value,
 * without re-validating the policy). */
static int64_t axis_offset(const struct lc_smear_policy *p,
                           const struct leap_axis *a, int64_t rel)
{
	struct lc__smear_plan pl;

	if (rel <= a->s)
		return 0;
	if (rel >= a->e)
		return a->dir * LC__NS;
	make_plan(&pl, p, a->s, a->e, 0, a->dir * LC__NS);
	return lc__smear_plan_offset(&pl, rel);
}

/* TAI-UTC (s) before the table's first row. */
static int64_t first_offset(const lc_leaptable *t)
{
	return t->count > 0 ? (int64_t)t->rows[0].tai_utc - t->rows[0].dir
	                    : 10;
}

/* The last row in effect at TAI second tai_sec (its start, when +
 * tai_utc, at or before it), -1 before the first. An inserted 23:59:60
 * (TAI when + tai_utc - 1) belongs to the row before its own. */
static ptrdiff_t row_at_tai(const lc_leaptable *t, int64_t tai_sec)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)t->count - 1, ans = -1;

	while (lo <= hi) {
		ptrdiff_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].when + t->rows[mid].tai_utc <= tai_sec) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

/* The last row with when <= unix_sec (POSIX), -1 before the first. */
static ptrdiff_t row_at_unix(const lc_leaptable *t, int64_t unix_sec)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)t->count - 1, ans = -1;

	while (lo <= hi) {
		ptrdiff_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].when <= unix_sec) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

static ptrdiff_t leap_before(const lc_leaptable *t, ptrdiff_t i)
{
	while (i >= 0 && t->rows[i].dir == 0)
		i--;
	return i;
}

static ptrdiff_t leap_after(const lc_leaptable *t, ptrdiff_t i)
{
	for (i++; i < (ptrdiff_t)t->count; i++)
		if (t->rows[i].dir != 0)
			return i;
	return -1;
}

/* UTC_SLS at TAI x for a validated policy. */
static int sls_of_tai(const lc_leaptable *t, const struct lc_smear_policy *p,
                      int64_t x, int64_t *out)
{
	ptrdiff_t i = row_at_tai(t, lc__fdiv(x, LC__NS)), j;
	struct leap_axis a;
	int64_t rel, T, off;

	j = leap_before(t, i);
	if (j >= 0) {
		axis_of(&t->rows[j], p, &a);
		if (!__builtin_sub_overflow(x, a.L_tai, &rel) && rel < a.e) {
			if (__builtin_sub_overflow(x, a.old_ns, &T))
				return LC_ERANGE;
			*out = T - axis_offset(p, &a, rel);
			return 0;
		}
	}
	j = leap_after(t, i);
	if (j >= 0) {
		axis_of(&t->rows[j], p, &a);
		if (__builtin_sub_overflow(x, a.L_tai, &rel))
			rel = INT64_MIN; /* far before: offset 0 */
		if (__builtin_sub_overflow(x, a.old_ns, &T))
			return LC_ERANGE;
		off = axis_offset(p, &a, rel);
		if (__builtin_sub_overflow(T, off, out))
			return LC_ERANGE;
		return 0;
	}
	off = (i >= 0 ? (int64_t)t->rows[i].tai_utc : first_offset(t)) * LC__NS;
	if (__builtin_sub_overflow(x, off, out))
		return LC_ERANGE;
	return 0;
}

int lc__smear_sls_from_tai(const lc_leaptable *t,
                           const struct lc_smear_policy *p, int64_t tai_ns,
                           int64_t *sls_ns)
{
	if (t == NULL || lc_smear_validate(p, NULL) < 0)
		return LC_EINVAL;
	return sls_of_tai(t, p, tai_ns, sls_ns);
}

/* The first TAI x with sls_of_tai(x) >= S (validated policy). UTC_SLS is
 * non-decreasing in TAI (the offset moves by less than 1 ns per ns where
 * it grows, validation keeps the peak rate below 1e6 ppm; axis switches
 * are continuous), so bisection on the forward function is exact: it
 * returns the instant the forward function itself says, never one ns
 * early. Outside windows UTC_SLS = TAI - TAI-UTC, so the first guess
 * S + TAI-UTC is checked first and usually is the answer. */
static int tai_of_sls(const lc_leaptable *t, const struct lc_smear_policy *p,
                      int64_t S, int64_t *out)
{
	ptrdiff_t i = row_at_unix(t, lc__fdiv(S, LC__NS));
	int64_t off = i >= 0 ? (int64_t)t->rows[i].tai_utc : first_offset(t);
	int64_t x0 = lc__sat_add(S, off * LC__NS), lo, hi, f;
	int64_t step = 4 * LC__NS;
	int rc;

	/* the guess, and the ns before it */
	rc = sls_of_tai(t, p, x0, &f);
	if (rc == 0 && f >= S && x0 > INT64_MIN) {
		int64_t g;
		rc = sls_of_tai(t, p, x0 - 1, &g);
		if (rc == 0 && g < S) {
			*out = x0;
			return 0;
		}
	}
	/* bracket: sls(lo) < S <= sls(hi) */
	lo = lc__sat_add(x0, -step);
	hi = lc__sat_add(x0, step);
	for (int n = 0;; n++) {
		rc = sls_of_tai(t, p, lo, &f);
		if (rc < 0)
			return rc;
		if (f < S)
			break;
		if (n >= 40 || lo == INT64_MIN)
			return LC_ERANGE;
		lo = lc__sat_add(lo, -(step << (n < 20 ? n : 20)));
	}
	for (int n = 0;; n++) {
		rc = sls_of_tai(t, p, hi, &f);
		if (rc < 0)
			return rc;
		if (f >= S)
			break;
		if (n >= 40 || hi == INT64_MAX)
			return LC_ERANGE;
		hi = lc__sat_add(hi, step << (n < 20 ? n : 20));
	}
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		rc = sls_of_tai(t, p, mid, &f);
		if (rc < 0)
			return rc;
		if (f >= S)
			hi = mid;
		else
			lo = mid;
	}
	*out = hi;
	return 0;
}

int lc__smear_tai_at_sls(const lc_leaptable *t,
                         const struct lc_smear_policy *p, int64_t sls_ns,
                         int64_t *tai_ns)
{
	if (t == NULL || lc_smear_validate(p, NULL) < 0)
		return LC_EINVAL;
	return tai_of_sls(t, p, sls_ns, tai_ns);
}

/* A UTC timespec to TAI, extended before the table's first row. */
static int utc_to_x(const lc_leaptable *t, const struct timespec *utc,
                    int64_t *x)
{
	int rc = lc_tai_from_utc(t, utc, x);
	int64_t ns;

	if (rc != LC_EBEFORE1972)
		return rc;
	/* only before the first row (lc_utc_check passed already) */
	if ((int64_t)utc->tv_sec < INT64_MIN / LC__NS + 1000)
		return LC_ERANGE;
	ns = (int64_t)utc->tv_sec * LC__NS + utc->tv_nsec;
	*x = lc__sat_add(ns, first_offset(t) * LC__NS);
	return 0;
}

int lc__smear_utc_to_sls(const lc_leaptable *t,
                         const struct lc_smear_policy *p,
                         const struct timespec *utc, struct timespec *sls)
{
	int64_t x, s;
	int rc;

	if (t == NULL || lc_smear_validate(p, NULL) < 0 || utc->tv_nsec < 0 ||
	    utc->tv_nsec >= 2 * LC__NS)
		return LC_EINVAL;
	rc = utc_to_x(t, utc, &x);
	if (rc == 0)
		rc = sls_of_tai(t, p, x, &s);
	if (rc < 0)
		return rc;
	*sls = lc__ns_to_ts(s);
	return 0;
}

int lc__smear_sls_to_utc(const lc_leaptable *t,
                         const struct lc_smear_policy *p,
                         const struct timespec *sls, struct timespec *utc)
{
	int64_t S, x;
	int rc;

	if (t == NULL || lc_smear_validate(p, NULL) < 0 || sls->tv_nsec < 0 ||
	    sls->tv_nsec >= LC__NS)
		return LC_EINVAL;
	if ((int64_t)sls->tv_sec > INT64_MAX / LC__NS - 1 ||
	    (int64_t)sls->tv_sec < INT64_MIN / LC__NS + 1)
		return LC_ERANGE;
	S = lc__ts_to_ns(sls);
	rc = tai_of_sls(t, p, S, &x);
	if (rc < 0)
		return rc;
	rc = lc_utc_from_tai(t, x, utc);
	if (rc == LC_EBEFORE1972) {
		*utc = lc__ns_to_ts(x - first_offset(t) * LC__NS);
		rc = 0;
	}
	return rc;
}

/* The POSIX-ns span [lo, hi) that may differ from UTC around one leap:
 * the window and the leap second itself on T, widened by 1 s each side
 * (POSIX = T before the leap, T - d s after it). */
static void span_of(const struct leap_axis *a, int64_t *lo, int64_t *hi)
{
	int64_t s = a->s < 0 ? a->s : 0, e = a->e > LC__NS ? a->e : LC__NS;

	*lo = lc__sat_add(lc__sat_add(a->L_T, s), -LC__NS);
	*hi = lc__sat_add(lc__sat_add(a->L_T, e), LC__NS);
}

static void span_fill(const struct lc_smear_policy *p,
                      const struct leap_axis *a, int64_t lo, int64_t hi,
                      struct lc__smear_span *sp)
{
	sp->lo = lo;
	sp->hi = hi;
	sp->leap_when = a->when;
	sp->dir = a->dir;
	sp->old_ns = a->old_ns;
	make_plan(&sp->plan, p, lc__sat_add(a->L_tai, a->s),
	          lc__sat_add(a->L_tai, a->e), 0, a->dir * LC__NS);
	sp->plan.param[1] = a->L_tai; /* P_LEAP, P_DIR: as a leap's plan */
	sp->plan.param[2] = a->dir;
}

int lc__smear_span_at(const lc_leaptable *t, const struct lc_smear_policy *p,
                      int64_t rt_ns, struct lc__smear_span *sp)
{
	ptrdiff_t i, j;
	struct leap_axis a;
	int64_t lo, hi;

	if (t == NULL || lc_smear_validate(p, NULL) < 0)
		return LC_EINVAL;
	sp->lo = sp->hi = INT64_MAX;
	sp->quiet_lo = INT64_MIN;
	sp->quiet_hi = INT64_MAX;
	sp->leap_when = 0;
	sp->dir = 0;
	sp->old_ns = 0;
	lc__smear_plan_none(&sp->plan);
	i = row_at_unix(t, lc__fdiv(rt_ns, LC__NS));
	j = leap_before(t, i);
	if (j >= 0) {
		axis_of(&t->rows[j], p, &a);
		span_of(&a, &lo, &hi);
		if (rt_ns < hi) {
			span_fill(p, &a, lo, hi, sp);
			sp->quiet_lo = sp->quiet_hi = lo;
			return 1;
		}
		sp->quiet_lo = hi;
	}
	j = leap_after(t, i);
	if (j >= 0) {
		axis_of(&t->rows[j], p, &a);
		span_of(&a, &lo, &hi);
		span_fill(p, &a, lo, hi, sp);
		if (rt_ns >= lo) {
			sp->quiet_lo = sp->quiet_hi = lo;
			return 1;
		}
		sp->quiet_hi = lo;
	}
	return 0;
}
