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
 * mono + base - offset(mono) >= target. Exact against the plan's own
 * (integer) offset, so within 1 ns of the ideal curve for every shape and
 * exact for the linear one. */
int64_t lc__smear_plan_mono_at(const struct lc__smear_plan *pl, int64_t base,
                               int64_t target);

/*
 * Additions (smear.c), and the rules the timekeeper follows. docs/smearing.md
 * has the full specification.
 *
 *  - T after the leap is applied: T = REALTIME + dir * 1e9 (the pre-leap
 *    timeline keeps running), so UTC_SLS = REALTIME + dir*1e9 - offset once
 *    the leap is applied, REALTIME - offset before. When mono >= end_mono
 *    and the leap has been applied, offset == dir*1e9 and UTC_SLS ==
 *    REALTIME: the timekeeper may then replace the plan with
 *    lc__smear_plan_none() (or leave it; it is constant).
 *  - lc__smear_plan_leap() returns 0 without change if *pl already smears
 *    this leap (same leap_mono and dir); LC_EBUSY (with *err) if *pl still
 *    smears a different leap at now_mono (two leaps closer than the
 *    window: plan the second one on an empty plan with now_mono =
 *    max(now, pl->end_mono), so that it starts exactly when the first
 *    ends, a late arm if its window had begun, and publish it ahead of
 *    time: the timekeeper's plan_next, docs/smearing.md (d)); LC_ERANGE
 *    if now_mono is past leap_mono. If *pl is unwinding a cancelled
 *    leap, the new smear starts from the unwind's offset at now_mono
 *    (continuous).
 *  - The time was set (settime, ADJ_SETOFFSET) while a leap is armed: call
 *    lc__smear_plan_settime() with the leap's new leap_mono. The plan
 *    becomes the nominal one for the new instants (UTC_SLS steps with
 *    REALTIME, a clock-was-set like any other); an unwind is kept as is.
 *  - A cancellation at or after leap_mono is ignored (the leap happened).
 *  - Every function reads *pl: start from lc__smear_plan_none().
 */
int lc__smear_plan_settime(struct lc__smear_plan *pl,
                           const struct lc_smear_policy *p,
                           int64_t leap_mono, int dir, struct lc_error *err);
/* The rate of UTC_SLS against T at `mono`, in ppm (negative: slower; 0
 * outside the window). */
double lc__smear_plan_rate_ppm(const struct lc__smear_plan *pl, int64_t mono);
/* The plan's peak |rate| in ppm (the "stated rate" of a LC__SMEAR_LATE
 * plan; the unwind's rate after a cancellation). */
double lc__smear_plan_peak_ppm(const struct lc__smear_plan *pl);

#endif
