/*
 * smear_clock.c - the smeared reading of a clock for a policy and a table
 * (smear_clock.h): the span of the leap at hand and its fast pieces, made
 * with the timekeeper's own piece arithmetic (tk_sls.c).
 */
#include "smear_clock.h"

#include <string.h>

int64_t lc__smear_clock_slow(const struct lc__smear_clock *c, int64_t tai)
{
	return tai - c->span.old_ns - lc__smear_plan_offset(&c->span.plan, tai);
}

/* UTC_SLS(x) = x - old_ns - offset(x) on the plan's piece around x: the
 * timekeeper's form with K = -old_ns. */
void lc__smear_clock_prime(struct lc__smear_clock *c, int64_t tai)
{
	struct lc__smear_piece pc;
	int64_t end;

	memset(c->fast, 0, sizeof(c->fast));
	c->t0 = tai;
	if (!lc__smear_plan_active(&c->span.plan))
		return;
	lc__smear_plan_piece(&c->span.plan, tai, &pc);
	end = lc__sls_piece_make(&pc, -c->span.old_ns, pc.hi, tai, tai,
	                         &c->fast[0]);
	if (c->fast[0].dmax == 0 || end == INT64_MAX)
		return;
	lc__smear_plan_piece(&c->span.plan, end, &pc);
	lc__sls_piece_make(&pc, -c->span.old_ns, pc.hi, tai, end, &c->fast[1]);
}

int lc__smear_clock_set(struct lc__smear_clock *c, const lc_leaptable *t,
                        const struct lc_smear_policy *p, int64_t rt,
                        int64_t tai)
{
	int rc = lc__smear_span_at(t, p, rt, &c->span);

	if (rc < 0)
		return rc;
	lc__smear_clock_prime(c, tai);
	return rc;
}
