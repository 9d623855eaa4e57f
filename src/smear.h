/*
 * smear.h - smear plans: the UTC_SLS timeline as the timekeeper uses it.
 *
 * A plan says how far the smeared clock is behind the pre-leap continuous
 * timeline T (T = MONOTONIC + offs_real as it was before the leap, which
 * does not step at the leap) at each MONOTONIC instant:
 *
 *     UTC_SLS(mono) = T(mono) - lc__smear_plan_offset(plan, mono)
 *
 * The offset goes from `from_ns` at start_mono to `to_ns` at end_mono along
 * the policy's shape (+1e9 for an insertion, -1e9 for a deletion, back to 0
 * for an unwind after a cancellation) and is constant outside the window.
 * All fields are 8-byte integers so that the timekeeper can publish a plan
 * inside its snapshot as plain words.
 */
#ifndef LC_SMEAR_H
#define LC_SMEAR_H

#include "internal.h"

#define LC__SMEAR_LATE 0x1   /* armed after the window should have started */
#define LC__SMEAR_UNWIND 0x2 /* returning to UTC after a cancelled leap */

struct lc__smear_plan {
	int64_t start_mono; /* INT64_MAX: no plan */
	int64_t end_mono;
	int64_t from_ns;    /* offset at and before start_mono */
	int64_t to_ns;      /* offset at and after end_mono */
	int64_t shape;      /* enum lc_smear_shape */
	int64_t flags;      /* LC__SMEAR_* */
	int64_t param[4];   /* shape parameters (e.g. the quadratic's ramp) */
};

/* No smear: offset 0 everywhere. */
void lc__smear_plan_none(struct lc__smear_plan *pl);
/* Plans the smear of a leap that starts at `leap_mono` (the instant the
 * inserted 23:59:60 or the deleted 23:59:59 begins), direction `dir` (+1
 * insertion, -1 deletion), armed at `now_mono`. If the window should already
 * have started, the smear starts at now_mono and completes by the window's
 * end at a higher rate (flag LC__SMEAR_LATE); if that rate would exceed the
 * policy's max_rate_ppm (when set), returns LC_ERANGE with a reason in *err
 * and leaves *pl unchanged. */
int lc__smear_plan_leap(struct lc__smear_plan *pl,
                        const struct lc_smear_policy *p, int64_t leap_mono,
                        int dir, int64_t now_mono, struct lc_error *err);
/* The leap was cancelled at `now_mono`: replaces *pl with an unwind from the
 * offset at now_mono back to 0, continuous, never faster than the policy's
 * rate bound (so the smeared clock never goes back). */
void lc__smear_plan_cancel(struct lc__smear_plan *pl,
                           const struct lc_smear_policy *p, int64_t now_mono);
/* The offset (ns) at `mono`. */
int64_t lc__smear_plan_offset(const struct lc__smear_plan *pl, int64_t mono);
/* For timers: the first MONOTONIC instant at which
 * mono + base - offset(mono) >= target. */
int64_t lc__smear_plan_mono_at(const struct lc__smear_plan *pl, int64_t base,
                               int64_t target);

#endif
