/*
 * smear_table.c - UTC_SLS over a leap table: every leap's nominal smear on
 * its own axis, as a pure function of (policy, table, instant), and its
 * inverse; the span of the smear at an instant (what leapclockd's smear
 * sockets, convert and the preload shim use).
 */
#include "smear_impl.h"

#include "leaptable_impl.h"

#include <string.h>

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
	int64_t r;      /* the end of its ramp (s < r <= e) */
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
	lc__smear_ramp_dir(p, a->dir, &a->s, &a->r, &a->e);
}

/* The nominal offset of this leap's smear at rel (lc_smear_offset's value,
 * without re-validating the policy). */
static int64_t axis_offset(const struct lc_smear_policy *p,
                           const struct leap_axis *a, int64_t rel)
{
	struct lc__smear_plan pl;

	if (rel <= a->s)
		return 0;
	if (rel >= a->r)
		return a->dir * LC__NS;
	lc__smear_make_plan(&pl, p, a->s, a->r, a->e, 0, a->dir * LC__NS);
	return lc__smear_plan_offset(&pl, rel);
}

/* TAI-UTC (s) before the table's first row. */
static int64_t first_offset(const lc_leaptable *t)
{
	return t->count > 0 ? (int64_t)t->rows[0].tai_utc - t->rows[0].dir : 10;
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
	ptrdiff_t i = lc__leap_row_at(t, lc__fdiv(x, LC__NS), 1), j;
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
	ptrdiff_t i = lc__leap_row_at(t, lc__fdiv(S, LC__NS), 0);
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

int lc__smear_tai_at_sls(const lc_leaptable *t, const struct lc_smear_policy *p,
                         int64_t sls_ns, int64_t *tai_ns)
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

int lc__smear_utc_to_sls(const lc_leaptable *t, const struct lc_smear_policy *p,
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

int lc__smear_sls_to_utc(const lc_leaptable *t, const struct lc_smear_policy *p,
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
	lc__smear_make_plan(&sp->plan, p, lc__sat_add(a->L_tai, a->s),
	                    lc__sat_add(a->L_tai, a->r),
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
	i = lc__leap_row_at(t, lc__fdiv(rt_ns, LC__NS), 0);
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
