/*
 * tk_sls.h - UTC_SLS from a snapshot (tk_sls.c), for the timekeeper's
 * readers, its publication and its inverses. Not public.
 *
 * UTC_SLS(m) = m + offs_sls - plan(m) - plan_next(m) while s->plan runs;
 * otherwise UTC_SLS is UTC (lc__tk_sls_at() then gives REALTIME, the
 * caller shows 23:59:60 itself).
 */
#ifndef LC_TK_SLS_H
#define LC_TK_SLS_H

#include "timekeeper.h"

/* UTC_SLS (ns) at MONOTONIC `mono`. */
int64_t lc__tk_sls_at(const struct lc__tk_snap *s, int64_t mono);
/* The first MONOTONIC instant at which UTC_SLS reads >= d (s->plan
 * active). */
int64_t lc__tk_sls_inverse(const struct lc__tk_snap *s, int64_t d);
/* Fills s->sls[0] and s->sls[1], the fast path's pieces from s->mono on:
 * for every d below a piece's dmax the reader's (d M + C) >> 84 formula
 * gives exactly lc__tk_sls_at(s, s->mono + d). */
void lc__tk_sls_fill(struct lc__tk_snap *s);

/* The arithmetic of those pieces, for any smear on any axis (the
 * timekeeper's MONOTONIC, the smear clock's TAI, smear_clock.h): for the
 * offset piece *pc (lc__smear_plan_piece) around m >= m0, valid up to hi,
 * with UTC_SLS(x) = x + k0 - offset(x), fills *out so that
 * lc__sls_piece_eval(out, x - m0) == UTC_SLS(x) for every x - m0 below
 * out->dmax (0: no fast piece); returns the piece's end, m0 + dmax (m
 * when there is none). */
int64_t lc__sls_piece_make(const struct lc__smear_piece *pc, int64_t k0,
                           int64_t hi, int64_t m0, int64_t m,
                           struct lc__tk_sls_piece *out);

/* base + ((d M + C) >> 84), d < 2^40 and M < 2^85: no product overflows
 * (the reader's multiply, lc__tk_gettime_sls_fast). */
static inline int64_t lc__sls_piece_eval(const struct lc__tk_sls_piece *pc,
                                         uint64_t d)
{
	unsigned __int128 t = (unsigned __int128)d * pc->m_lo +
	                      (((unsigned __int128)pc->c_hi << 64) | pc->c_lo);
	uint64_t hi = (uint64_t)(t >> 64) + d * pc->m_hi;

	return pc->base + (int64_t)(hi >> 20);
}

#endif /* LC_TK_SLS_H */
