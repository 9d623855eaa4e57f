/*
 * smear_clock.h - the smeared reading of a clock for one policy and one
 * leap table: what the LD_PRELOAD shim's smeared REALTIME and leapclockd's
 * smear:PRESET sockets read (src/smear_clock.c). Not public.
 *
 * It holds the library's span of the table leap at hand (smear.h,
 * lc__smear_span_at: outside it UTC_SLS is REALTIME, one compare) and,
 * inside it, the two pieces of UTC_SLS from an origin t0 on TAI in the
 * form the timekeeper publishes for its own UTC_SLS (tk_sls.c,
 * lc__sls_piece_make): UTC_SLS = base + ((d M + C) >> 84), d = tai - t0,
 * one multiply, exact to the ns against lc__smear_sls_from_tai while d is
 * below the piece's dmax. Past both pieces a read computes the plan's
 * offset itself (exact, slower) until the owner primes the clock again.
 *
 * A clock is plain data, written by one writer and read by any number of
 * readers that the owner keeps off it while it is written (the shim
 * publishes whole clocks through a ring and a pointer; leapclockd keeps
 * one per thread).
 */
#ifndef LC_SMEAR_CLOCK_H
#define LC_SMEAR_CLOCK_H

#include "smear.h"
#include "tk_sls.h"

struct lc__smear_clock {
	struct lc__smear_span span;
	int64_t t0; /* TAI ns: the origin of fast[] */
	struct lc__tk_sls_piece fast[2];
};

/* Makes the clock of policy p and table t around POSIX instant rt (TAI
 * tai at that instant), its fast pieces from tai on. 1 if rt is inside
 * the span, 0 if quiet (UTC_SLS == REALTIME on [quiet_lo, quiet_hi)),
 * LC_EINVAL (a NULL table, a bad policy). */
int lc__smear_clock_set(struct lc__smear_clock *c, const lc_leaptable *t,
                        const struct lc_smear_policy *p, int64_t rt,
                        int64_t tai);
/* Prepares the fast pieces from TAI instant tai on (the span unchanged). */
void lc__smear_clock_prime(struct lc__smear_clock *c, int64_t tai);
/* UTC_SLS at tai from the span's plan itself (the slow path). */
int64_t lc__smear_clock_slow(const struct lc__smear_clock *c, int64_t tai);

/* 1 while rt is in the span's quiet interval or in the span itself: the
 * clock answers for rt. */
static inline int lc__smear_clock_covers(const struct lc__smear_clock *c,
                                         int64_t rt)
{
	return (rt >= c->span.quiet_lo && rt < c->span.quiet_hi) ||
	       (rt >= c->span.lo && rt < c->span.hi);
}

/* 1 if rt is inside the span (a smeared reading needs TAI). */
static inline int lc__smear_clock_inside(const struct lc__smear_clock *c,
                                         int64_t rt)
{
	return rt >= c->span.lo && rt < c->span.hi;
}

/* The fast pieces end within `margin` ns after tai: time to prime. */
static inline int lc__smear_clock_ending(const struct lc__smear_clock *c,
                                         int64_t tai, int64_t margin)
{
	uint64_t d = (uint64_t)tai - (uint64_t)c->t0 + (uint64_t)margin;
	uint64_t end = c->fast[1].dmax > c->fast[0].dmax ? c->fast[1].dmax
	                                                 : c->fast[0].dmax;

	return d >= end;
}

/* UTC_SLS (ns) at TAI tai for a POSIX instant rt inside the span. */
static inline int64_t lc__smear_clock_in(const struct lc__smear_clock *c,
                                         int64_t tai)
{
	uint64_t d = (uint64_t)tai - (uint64_t)c->t0;

	if (lc__likely(d < c->fast[0].dmax))
		return lc__sls_piece_eval(&c->fast[0], d);
	if (d < c->fast[1].dmax)
		return lc__sls_piece_eval(&c->fast[1], d);
	return lc__smear_clock_slow(c, tai);
}

/* UTC_SLS at POSIX rt (TAI tai) for a clock that covers rt. */
static inline int64_t lc__smear_clock_read(const struct lc__smear_clock *c,
                                           int64_t rt, int64_t tai)
{
	if (lc__likely(!lc__smear_clock_inside(c, rt)))
		return rt;
	return lc__smear_clock_in(c, tai);
}

#endif /* LC_SMEAR_CLOCK_H */
