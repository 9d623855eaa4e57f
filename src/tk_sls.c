/*
 * tk_sls.c - UTC_SLS, the smeared timeline, from a snapshot: its value at a
 * MONOTONIC instant, its inverse (timers), and the two pieces of it that the
 * writer puts into lines 1-2 of every published snapshot so that a reader
 * needs one multiply (timekeeper.h). Pure functions of a snapshot
 * (tk_sls.h), tested against each other in tests/test_tk_sls.c.
 */
#include "tk_sls.h"

#include <string.h>

int64_t lc__tk_sls_at(const struct lc__tk_snap *s, int64_t mono)
{
	if (!lc__smear_plan_active(&s->plan))
		return lc__tk_realtime_at(s, mono);
	return mono + s->offs_sls - lc__smear_plan_offset(&s->plan, mono) -
	       lc__smear_plan_offset(&s->plan_next, mono);
}

/* The first MONOTONIC instant at which UTC_SLS (ns) reads >= d. With
 * f(m) = m + offs_sls - plan(m) - plan_next(m): plan_next is 0 before its
 * start S2 (>= plan.end_mono), so f is plan's alone there; from S2 on plan
 * is constant (to_ns) and f(m) = m + (offs_sls - plan.to_ns) -
 * plan_next(m). Both are non-decreasing. So the answer is plan's own
 * inverse if that is before S2, else the first instant >= S2 of
 * plan_next's inverse on its base. */
int64_t lc__tk_sls_inverse(const struct lc__tk_snap *s, int64_t d)
{
	int64_t m = lc__smear_plan_mono_at(&s->plan, s->offs_sls, d);

	if (!lc__smear_plan_active(&s->plan_next) ||
	    m < s->plan_next.start_mono)
		return m;
	m = lc__smear_plan_mono_at(&s->plan_next, s->offs_sls - s->plan.to_ns,
	                           d);
	return m > s->plan_next.start_mono ? m : s->plan_next.start_mono;
}

/* ceil(x 2^84 / d) for 0 <= x < 2^52, 0 < d < 2^52, in two steps of 2^42
 * (each product below 2^94). */
static unsigned __int128 ceil_q84(uint64_t x, uint64_t d)
{
	unsigned __int128 n = (unsigned __int128)x << 42;
	unsigned __int128 q1 = n / d, r1 = n % d;

	n = r1 << 42;
	return (q1 << 42) + n / d + (n % d != 0);
}

/* The piece of UTC_SLS around m: offset(m') = pc's (lc__smear_piece_at)
 * and UTC_SLS = m' + k0 - offset(m') for m' in [m, hi). 0 where there is
 * none (an unsmeared 23:59:60, or both plans moving). */
static int piece_around(const struct lc__tk_snap *s, int64_t m,
                        struct lc__smear_piece *pc, int64_t *k0, int64_t *hi)
{
	struct lc__smear_piece pn;

	memset(pc, 0, sizeof(*pc));
	pc->d = 1;
	if (!lc__smear_plan_active(&s->plan)) {
		if (m < s->leap_mono) {
			*hi = s->leap_mono;
			*k0 = s->offs_real;
		} else if (s->leap_dir > 0 &&
		           m < lc__sat_add(s->leap_mono, LC__NS)) {
			return 0; /* 23:59:60 */
		} else {
			*hi = INT64_MAX;
			*k0 = lc__tk_realtime_at(s, m) - m;
		}
		return 1;
	}
	lc__smear_plan_piece(&s->plan, m, pc);
	lc__smear_plan_piece(&s->plan_next, m, &pn);
	if (pn.p != 0 || pn.q != 0) {
		/* plan_next moves only where plan is constant */
		struct lc__smear_piece t = *pc;

		if (t.p != 0 || t.q != 0)
			return 0;
		*pc = pn;
		pn = t;
	}
	*k0 = s->offs_sls - pn.base;
	*hi = pc->hi < pn.hi ? pc->hi : pn.hi;
	return 1;
}

/*
 * Lines 1-2 of the snapshot: UTC_SLS from the snapshot's instant `mono`
 * (m0) on, as two pieces. On a piece, with offset(m) = base +
 * floor((p (m - t0) + q) / D) (lc__smear_plan_piece: the plan's offset,
 * exactly) and K the rest (offs_sls minus the other plan's constant
 * offset), at m = m0 + d:
 *
 *     UTC_SLS = m0 + d + K - base - floor((p (u0 + d) + q) / D)
 *             = S0 + d - floor((p d + r0) / D)           p u0 + q = n0 D + r0
 *             = S0 + floor((E d + c0) / D)               E = D - p > 0,
 *                                                        c0 = D - 1 - r0
 *
 * with u0 = m0 - t0 (negative for the second piece) and S0 = m0 + K -
 * base - n0 (d - floor(y) = ceil(d - y) = floor((D d - p d - r0 + D - 1)
 * / D)). E > 0: the offset moves less than 1 ns per ns. The reader takes
 * it as (d M + C) >> 84 with M = ceil(E 2^84 / D), C = ceil(c0 2^84 / D):
 * the fraction of (E d + c0) / D is a multiple of 1/D at most 1 - 1/D,
 * and the error of (d M + C) / 2^84 is in [0, (d + 1) / 2^84), below 1/D
 * while (d + 1) D <= 2^84, so the floor is the same. Hence dmax =
 * min(the piece's end - m0, 2^84 / D, 2^40); 2^40 ns (18 min) keeps d M
 * below 2^125.
 *
 * Without a plan UTC_SLS is UTC: REALTIME up to the leap, 23:59:60 during
 * an inserted second (the slow path), REALTIME after it.
 *
 * Fills *out for the piece around m (>= m0) and returns its end (an
 * exclusive MONOTONIC instant; m when there is none: dmax stays 0).
 */
int64_t lc__sls_piece_make(const struct lc__smear_piece *pc, int64_t k0,
                           int64_t hi, int64_t m0, int64_t m,
                           struct lc__tk_sls_piece *out)
{
	int64_t n0, r0, E, c0;
	unsigned __int128 M, C;
	__int128 num, S0;
	uint64_t dmax;

	memset(out, 0, sizeof(*out));
	if (pc->d <= 0 || pc->d >= (INT64_C(1) << 51) || pc->p >= pc->d ||
	    pc->p <= -pc->d || hi <= m)
		return m;
	num = (__int128)pc->p * ((__int128)m0 - pc->t0) + pc->q;
	n0 = (int64_t)(num / pc->d);
	r0 = (int64_t)(num % pc->d);
	if (r0 < 0) {
		n0--;
		r0 += pc->d;
	}
	S0 = (__int128)m0 + k0 - pc->base - n0;
	if (S0 > INT64_MAX - (INT64_C(1) << 41) || S0 < INT64_MIN)
		return m;
	E = pc->d - pc->p;
	c0 = pc->d - 1 - r0;
	M = ceil_q84((uint64_t)E, (uint64_t)pc->d);
	C = ceil_q84((uint64_t)c0, (uint64_t)pc->d);
	dmax = UINT64_C(1) << 40;
	if ((((unsigned __int128)1 << 84) / (uint64_t)pc->d) < dmax)
		dmax = (uint64_t)(((unsigned __int128)1 << 84) /
		                  (uint64_t)pc->d);
	if ((uint64_t)hi - (uint64_t)m0 < dmax)
		dmax = (uint64_t)hi - (uint64_t)m0;
	if (dmax <= (uint64_t)m - (uint64_t)m0)
		return m;
	out->base = (int64_t)S0;
	out->m_lo = (uint64_t)M;
	out->m_hi = (uint64_t)(M >> 64);
	out->c_lo = (uint64_t)C;
	out->c_hi = (uint64_t)(C >> 64);
	out->dmax = dmax;
	return (int64_t)((uint64_t)m0 + dmax);
}

static int64_t sls_piece_fill(const struct lc__tk_snap *s, int64_t m,
                              struct lc__tk_sls_piece *out)
{
	struct lc__smear_piece pc;
	int64_t k0, hi;

	memset(out, 0, sizeof(*out));
	if (!piece_around(s, m, &pc, &k0, &hi))
		return m;
	return lc__sls_piece_make(&pc, k0, hi, s->mono, m, out);
}

void lc__tk_sls_fill(struct lc__tk_snap *s)
{
	int64_t end = sls_piece_fill(s, s->mono, &s->sls[0]);

	memset(&s->sls[1], 0, sizeof(s->sls[1]));
	if (s->sls[0].dmax > 0 && end < INT64_MAX)
		sls_piece_fill(s, end, &s->sls[1]);
}
