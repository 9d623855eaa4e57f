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
 * for an unwind after a cancellation) and is constant outside the window
 * (with LC__SMEAR_HOLD the shape ends earlier, at the leap instant, and
 * the offset holds to_ns from there to end_mono).
 * All fields are 8-byte integers so that the timekeeper can publish a plan
 * inside its snapshot as plain words.
 */
#ifndef LC_SMEAR_H
#define LC_SMEAR_H

#include "internal.h"

#define LC__SMEAR_LATE 0x1   /* armed after the window should have started */
#define LC__SMEAR_UNWIND 0x2 /* returning to UTC after a cancelled leap */
/* The shape ends at param[1] (the leap instant, P_LEAP in smear.c), before
 * end_mono; the offset holds to_ns from there: an insertion smeared by
 * LC_SMEAR_ENDING_POSIX, the inserted second a plateau. */
#define LC__SMEAR_HOLD 0x4

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
/* 1 unless the plan is none. */
static inline int lc__smear_plan_active(const struct lc__smear_plan *pl)
{
	return pl->start_mono != INT64_MAX;
}
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
/* The offset (ns) at `mono`. Linear: from + sgn ceil(|diff| tau / len),
 * exact. Cosine and quadratic: the curve's chords (65,536 of them,
 * smear.c), within 0.65 ns of the curve and 1 ns of
 * lc__smear_plan_offset_curve(). */
int64_t lc__smear_plan_offset(const struct lc__smear_plan *pl, int64_t mono);
/* The curved shapes as llround(diff g(x)) with libm's sin: the reference
 * the tests hold lc__smear_plan_offset() to (the same for linear). */
int64_t lc__smear_plan_offset_curve(const struct lc__smear_plan *pl,
                                    int64_t mono);

/* The offset is piecewise of one form: on [lo, hi) (lo <= mono < hi, the
 * whole piece around `mono`),
 *
 *     offset(m) = base + floor((p (m - t0) + q) / d),   d > 0
 *
 * exactly lc__smear_plan_offset(): constant before the window and after
 * it (p = q = 0), one piece for the linear shape, one per chord for the
 * curved ones. The writer turns it into the reader's multiply
 * (tk_sls.c, lc__tk_sls_fill). */
struct lc__smear_piece {
	int64_t lo, hi;
	int64_t t0, base;
	int64_t p, d;
	__int128 q;
};

void lc__smear_plan_piece(const struct lc__smear_plan *pl, int64_t mono,
                          struct lc__smear_piece *pc);
/* The piece's offset at mono (lo <= mono < hi). */
int64_t lc__smear_piece_at(const struct lc__smear_piece *pc, int64_t mono);
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

/*
 * The nominal smear of a leap table: UTC_SLS as a pure function of
 * (policy, table, instant), the same in every process and every face
 * (lc_gettime's page reader, the LD_PRELOAD shim, leapclockd's smear:PRESET
 * answers, `leapclock convert --to/--from utc-sls`, `leapclock smear`).
 * Every leap of the table (insertions and deletions) gets the policy's
 * nominal window, placed by lc_smear_window_dir() around it, and
 *
 *     UTC_SLS = T - lc_smear_offset(p, dir, T - L)
 *
 * on that leap's pre-leap timeline T (TAI minus the TAI-UTC before the
 * leap), L its instant (the start of 23:59:60, or of the deleted
 * 23:59:59). Outside every window UTC_SLS == UTC; in an inserted second
 * outside the window (presets whose window starts at midnight, e.g.
 * chrony, fbclock) UTC_SLS reads 00:00:00.x while UTC reads 23:59:60.x:
 * the same count, the smear then starting from there. UTC_SLS is
 * continuous, non-decreasing in TAI (strictly at the policy's rate bound,
 * up to a slow clock's repeated integer ns), |UTC_SLS - UTC| <= 1 s.
 * The stateful cases (a leap armed late or cancelled through adjtimex)
 * are the timekeeper's plans above, not these.
 *
 * All return 0, LC_EINVAL for a NULL table or a bad policy
 * (lc_smear_validate) or an out-of-range tv_nsec, LC_ERANGE where the
 * result does not fit in int64_t ns. Before the table's first row TAI-UTC
 * is taken as that row's (10 s): there UTC_SLS == UTC == TAI - 10 s.
 */

/* TAI ns -> UTC_SLS ns (a POSIX-like count: UTC_SLS has no second 60). */
int lc__smear_sls_from_tai(const lc_leaptable *t,
                           const struct lc_smear_policy *p, int64_t tai_ns,
                           int64_t *sls_ns);
/* For timers: the first TAI ns x at which lc__smear_sls_from_tai(x) >=
 * sls_ns. Exact to the ns against the forward function: the reading at
 * *tai_ns is >= sls_ns and the one at *tai_ns - 1 is < sls_ns, so a timer
 * armed on TAI at *tai_ns never fires early and never late. (TAI, not
 * POSIX ns: inside an inserted second POSIX repeats 23:59:59, and a
 * REALTIME deadline at the repeated value would fire a second early.) */
int lc__smear_tai_at_sls(const lc_leaptable *t,
                         const struct lc_smear_policy *p, int64_t sls_ns,
                         int64_t *tai_ns);
/* UTC timespec (the inserted second has tv_nsec in [1e9, 2e9)) -> UTC_SLS
 * timespec (tv_nsec < 1e9). LC_ENOTLEAP for a tv_nsec >= 1e9 where the
 * table has no inserted second, or the tv_sec of a deleted 23:59:59. */
int lc__smear_utc_to_sls(const lc_leaptable *t,
                         const struct lc_smear_policy *p,
                         const struct timespec *utc, struct timespec *sls);
/* UTC_SLS timespec (tv_nsec < 1e9) -> the first UTC instant whose
 * UTC_SLS reading is at or after it (lc__smear_tai_at_sls, as UTC). */
int lc__smear_sls_to_utc(const lc_leaptable *t,
                         const struct lc_smear_policy *p,
                         const struct timespec *sls, struct timespec *utc);

/* Where the smear is, for a hot path that reads REALTIME (POSIX ns on the
 * exact timeline) and wants UTC_SLS with one compare most of the time. */
struct lc__smear_span {
	/* The window of the leap whose smear contains rt_ns or is the next
	 * one after it, as POSIX ns [lo, hi): the window and the leap second
	 * itself, widened by 1 s on each side (T and REALTIME differ by up to
	 * 1 s around a leap). Outside every such span UTC_SLS == REALTIME ==
	 * UTC exactly (tv_nsec < 1e9). lo == hi == INT64_MAX: no leap ahead. */
	int64_t lo, hi;
	/* If rt_ns is outside [lo, hi): the whole interval around it that is
	 * outside every window, [end of the previous leap's span (INT64_MIN
	 * if none), lo); a reader may cache it and return UTC_SLS = REALTIME
	 * while quiet_lo <= rt < quiet_hi, until the table changes (the cache
	 * belongs to one table and one policy). If rt_ns is inside [lo, hi):
	 * empty (quiet_lo == quiet_hi == lo). */
	int64_t quiet_lo, quiet_hi;
	int64_t leap_when; /* the span's leap: `when` of its table row */
	int32_t dir;       /* its direction (+1/-1), 0 if no span */
	/* The span's smear prepared on TAI, for reads inside it without the
	 * table: for every TAI instant whose POSIX reading is in [lo, hi),
	 *     UTC_SLS = tai - old_ns - lc__smear_plan_offset(&plan, tai)
	 * exactly as lc__smear_sls_from_tai computes it. old_ns is TAI-UTC
	 * before the leap (ns); plan runs on TAI ns (start_mono, end_mono:
	 * the window). No span: old_ns 0, plan lc__smear_plan_none(). */
	int64_t old_ns;
	struct lc__smear_plan plan;
};

/* Fills *sp for POSIX instant rt_ns: 1 if rt_ns is inside [sp->lo, sp->hi)
 * (compute with lc__smear_sls_from_tai or sp->plan), 0 if quiet (UTC_SLS ==
 * REALTIME for every POSIX ns in [quiet_lo, quiet_hi)), LC_EINVAL. */
int lc__smear_span_at(const lc_leaptable *t, const struct lc_smear_policy *p,
                      int64_t rt_ns, struct lc__smear_span *sp);

#endif
