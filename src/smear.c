/*
 * smear.c - smear plans (the UTC_SLS timeline as the timekeeper reads it):
 * a plan for a leap, late, after a settime, the unwind of a cancelled one,
 * its offset at an instant exactly (chords of the curve in integers), its
 * inverse, and the public nominal smear of one leap (lc_smear_offset and
 * friends). The shapes and windows are in smear_shape.c, the presets in
 * smear_preset.c, a table's leaps in smear_table.c (smear_impl.h).
 *
 * Time coordinates are those of smear_shape.c: ns on the pre-leap
 * continuous timeline T, the offset being what UTC_SLS is behind T.
 */
#include "smear_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* Where the shape ends: end_mono, or the leap instant of a plan whose
 * offset holds its full value from there (LC__SMEAR_HOLD). */
static int64_t ramp_end(const struct lc__smear_plan *pl)
{
	return (pl->flags & LC__SMEAR_HOLD) ? pl->param[P_LEAP] : pl->end_mono;
}

static void set_peak(struct lc__smear_plan *pl)
{
	double pk = lc__smear_peak_ppm(
	    (int)pl->shape, ramp_end(pl) - pl->start_mono, pl->param[P_RAMP],
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
static int64_t chord_v(const struct lc__smear_plan *pl, int64_t len, int64_t a,
                       int64_t tau)
{
	double rho = (double)pl->param[P_RAMP] / (double)len;
	double g;

	if (tau <= 0)
		return 0;
	if (tau >= len)
		return a << CHORD_FRAC;
	g = clamp01(
	    lc__smear_g((int)pl->shape, (double)tau / (double)len, rho));
	return llround((double)a * (double)(INT64_C(1) << CHORD_FRAC) * g);
}

/* The chord around tau (0 <= tau < len): its knots *t0 <= tau < *t1. */
static void chord_at(const struct lc__smear_plan *pl, int64_t len, int64_t tau,
                     int64_t *t0, int64_t *t1)
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
	if (mono >= ramp_end(pl)) {
		pc->lo = ramp_end(pl);
		pc->hi = INT64_MAX;
		pc->base = pl->to_ns;
		return;
	}
	len = ramp_end(pl) - pl->start_mono;
	tau = mono - pl->start_mono;
	diff = pl->to_ns - pl->from_ns;
	neg = diff < 0;
	a = neg ? -diff : diff;
	pc->base = pl->from_ns;
	if (pl->shape == LC_SMEAR_LINEAR || pl->shape == LC_SMEAR_STEP) {
		/* sgn ceil(a tau / len) */
		pc->lo = pl->start_mono;
		pc->hi = ramp_end(pl);
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
	return pc->base + (int64_t)fdiv128(
	                      (__int128)pc->p * (mono - pc->t0) + pc->q, pc->d);
}

/* 1 if mono is outside the ramp (the offset is from_ns or to_ns), else 0
 * with the ramp's length, the time into it and the offset to travel. */
static int outside(const struct lc__smear_plan *pl, int64_t mono, int64_t *len,
                   int64_t *tau, int64_t *diff)
{
	if (mono <= pl->start_mono || mono >= ramp_end(pl))
		return 1;
	*len = ramp_end(pl) - pl->start_mono;
	*tau = mono - pl->start_mono;
	*diff = pl->to_ns - pl->from_ns;
	return 0;
}

int64_t lc__smear_plan_offset(const struct lc__smear_plan *pl, int64_t mono)
{
	struct lc__smear_piece pc;
	int64_t len, tau, diff;

	if (outside(pl, mono, &len, &tau, &diff))
		return mono <= pl->start_mono ? pl->from_ns : pl->to_ns;
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

	if (outside(pl, mono, &len, &tau, &diff))
		return mono <= pl->start_mono ? pl->from_ns : pl->to_ns;
	if (pl->shape == LC_SMEAR_LINEAR || pl->shape == LC_SMEAR_STEP)
		return lc__smear_plan_offset(pl, mono);
	x = (double)tau / (double)len;
	rho = (double)pl->param[P_RAMP] / (double)len;
	g = clamp01(lc__smear_g((int)pl->shape, x, rho));
	return pl->from_ns + llround((double)diff * g);
}

/* The rate of UTC_SLS against T (ppm; negative: slower) at mono. */
double lc__smear_plan_rate_ppm(const struct lc__smear_plan *pl, int64_t mono)
{
	int64_t len;
	double x, rho;

	if (mono < pl->start_mono || mono >= ramp_end(pl))
		return 0;
	len = ramp_end(pl) - pl->start_mono;
	x = (double)(mono - pl->start_mono) / (double)len;
	rho = (double)pl->param[P_RAMP] / (double)len;
	return -(double)(pl->to_ns - pl->from_ns) / (double)len *
	       lc__smear_gd((int)pl->shape, x, rho) * 1e6;
}

double lc__smear_plan_peak_ppm(const struct lc__smear_plan *pl)
{
	return (double)pl->param[P_PEAK] * 1e-6;
}

/* Fills *pl with a smear from `from` at `start` to `to` at `rend` in the
 * policy's shape, the quadratic's ramp re-solved for this window, holding
 * `to` from rend to `end`. Returns the peak rate in ppm, or -1 if the
 * quadratic cannot fit under max. */
double lc__smear_make_plan(struct lc__smear_plan *pl,
                           const struct lc_smear_policy *p, int64_t start,
                           int64_t rend, int64_t end, int64_t from,
                           int64_t to)
{
	int64_t amount = to > from ? to - from : from - to;

	lc__smear_plan_none(pl);
	pl->start_mono = start;
	pl->end_mono = end;
	pl->from_ns = from;
	pl->to_ns = to;
	pl->shape = p->shape == LC_SMEAR_STEP ? LC_SMEAR_LINEAR : p->shape;
	if (rend < end) {
		pl->flags |= LC__SMEAR_HOLD;
		pl->param[P_LEAP] = rend;
	}
	if (pl->shape == LC_SMEAR_QUADRATIC) {
		pl->param[P_RAMP] =
		    lc__smear_quad_ramp(rend - start, amount, p->max_rate_ppm);
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

/* A smear that cannot start at its window's start s (armed later, or from
 * an unwind's offset `from`): from now_mono to the window's end e, faster
 * than the policy's own; LC_ERANGE if that is over or needs a rate beyond
 * max_rate or one that (nearly) stops the smeared clock. */
static int plan_late(struct lc__smear_plan *np, const struct lc_smear_policy *p,
                     int64_t now_mono, int64_t s, int64_t r, int64_t e,
                     int64_t from, int64_t to, struct lc_error *err)
{
	const char *w = "<smear plan>";
	double pk;

	if (r <= now_mono)
		return lc__error(err, LC_ERANGE, w, 0,
		                 "armed after the smear window ended");
	pk = lc__smear_make_plan(np, p, now_mono, r, e, from, to);
	if (pk < 0 ||
	    (p->max_rate_ppm > 0 &&
	     lc__smear_plan_peak_ppm(np) > p->max_rate_ppm * (1 + 1e-12)))
		return lc__error(
		    err, LC_ERANGE, w, 0,
		    "armed %.3f s into the window: finishing by its "
		    "end needs %.6g ppm, more than max_rate %g ppm",
		    (double)(now_mono - s) / 1e9, lc__smear_plan_peak_ppm(np),
		    p->max_rate_ppm);
	if (to > from && lc__smear_plan_peak_ppm(np) >= 1e6 * 0.999)
		return lc__error(
		    err, LC_ERANGE, w, 0,
		    "armed %.3f s into the window: finishing by its "
		    "end needs %.6g ppm, which would (nearly) stop "
		    "the smeared clock",
		    (double)(now_mono - s) / 1e9, lc__smear_plan_peak_ppm(np));
	if (now_mono > s)
		np->flags |= LC__SMEAR_LATE;
	return 0;
}

int lc__smear_plan_leap(struct lc__smear_plan *pl,
                        const struct lc_smear_policy *p, int64_t leap_mono,
                        int dir, int64_t now_mono, struct lc_error *err)
{
	const char *w = "<smear plan>";
	struct lc__smear_plan np;
	int64_t s, r, e, from = 0, to;
	int active, unwinding;
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
	lc__smear_ramp_dir(p, dir, &s, &r, &e);
	s = lc__sat_add(leap_mono, s);
	r = lc__sat_add(leap_mono, r);
	e = lc__sat_add(leap_mono, e);
	to = dir * LC__NS;
	if (now_mono <= s && from == 0) {
		lc__smear_make_plan(&np, p, s, r, e, 0, to);
	} else {
		rc = plan_late(&np, p, now_mono, s, r, e, from, to, err);
		if (rc < 0)
			return rc;
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
	int64_t s, r, e;
	int rc;

	if (pl->flags & LC__SMEAR_UNWIND)
		return 0; /* an unwind is relative to UTC: a step moves both */
	rc = lc_smear_validate(p, err);
	if (rc < 0)
		return rc;
	if (dir != 1 && dir != -1)
		return lc__error(err, LC_EINVAL, "<smear plan>", 0,
		                 "direction %d is neither +1 nor -1", dir);
	lc__smear_ramp_dir(p, dir, &s, &r, &e);
	lc__smear_make_plan(&np, p, lc__sat_add(leap_mono, s),
	                    lc__sat_add(leap_mono, r), lc__sat_add(leap_mono, e),
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
		bound = fmin(lc__smear_policy_bound(p, 1),
		             lc__smear_policy_bound(p, -1));
		if (travel > 0)
			bound = fmin(bound, lc__smear_policy_peak(p, 1));
	} else {
		bound = lc__smear_plan_peak_ppm(pl);
	}
	if (!(bound > 0))
		bound = 1;
	if (pl->shape == LC_SMEAR_QUADRATIC)
		rho = 0.5; /* the unwind is the triangle: no plateau needed */
	gpk = lc__smear_gd_peak((int)pl->shape, rho);
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
		lc__smear_window_dir(p, dir >= 0 ? 1 : -1, &s, &e);
	if (start_rel)
		*start_rel = s;
	if (end_rel)
		*end_rel = e;
}

double lc_smear_peak_ppm(const struct lc_smear_policy *p, int dir)
{
	if (lc_smear_validate(p, NULL) < 0)
		return 0;
	return lc__smear_policy_peak(p, dir >= 0 ? 1 : -1);
}
