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

#endif /* LC_TK_SLS_H */
