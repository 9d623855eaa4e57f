/*
 * tk_schedule.h - the smear schedule of the timekeeper's leaps (tk_schedule.c),
 * for the timekeeper's writer (timekeeper.c, tk_new.c, tk_set.c). Not public.
 *
 * The timekeeper arms the pending leap in its snapshot (leap_mono, leap_dir,
 * leap_sec, leap_folded) and moves offs_real; the schedule keeps the
 * snapshot's smear plans (plan, plan_next) and their base offs_sls in step
 * with that (docs/smearing.md section 3, timekeeper.h for what readers do
 * with them). It touches nothing else of the timekeeper, so it is tested on
 * a hand-made snapshot (tests/test_tk_schedule.c).
 */
#ifndef LC_TK_SCHEDULE_H
#define LC_TK_SCHEDULE_H

#include "timekeeper.h"

struct lc__tk_sched {
	const struct lc_smear_policy *policy; /* NULL: no smear at all */
	int table_mode; /* the table rules TAI-UTC (LC_LEAP_FROM_TABLE) */
	int64_t plan_leap_mono; /* the leap s->plan is for (INT64_MAX: none) */
	int64_t plan_leap_sec;  /* its leap_sec (the POSIX second) */
	int64_t next_leap_mono; /* the leap s->plan_next is for (INT64_MAX) */
	int64_t next_leap_sec;
	/* Set by a step (lc__tk_sched_after_step()) while a leap's smear
	 * plan was in effect, for the next lc__tk_sched_rearm() to move the
	 * plan with the step (docs/smearing.md (c)): that leap's second and
	 * direction, and whether it had been applied before the step. */
	int step_pending;
	int step_leap_applied;
	int64_t step_leap_sec;
	int64_t step_leap_dir;
};

/* No plan; s->offs_sls = s->offs_real. `policy` must outlive the state. */
void lc__tk_sched_init(struct lc__tk_sched *st, struct lc__tk_snap *s,
                       const struct lc_smear_policy *policy, int table_mode);
/* After the leap fields were re-armed (every writer operation): plans the
 * pending leap's smear, the next one's when the windows meet, unwinds a
 * cancelled one, moves a plan with a step. */
void lc__tk_sched_rearm(struct lc__tk_sched *st, struct lc__tk_snap *s,
                        int64_t mono_now);
/* At the start of a writer operation, before anything moves offs_real:
 * retires a finished plan, or folds plan_next into plan (no reading
 * changes). */
void lc__tk_sched_fold(struct lc__tk_sched *st, struct lc__tk_snap *s,
                       int64_t mono_now);
/* After a step of REALTIME (offs_real already moved). */
void lc__tk_sched_after_step(struct lc__tk_sched *st, struct lc__tk_snap *s,
                             int64_t mono_now);
/* A writer starting at REALTIME `rt` (creation, resume) inside the window
 * of the table leap just behind it: plan that leap's nominal smear at the
 * next lc__tk_sched_rearm(). */
void lc__tk_sched_prev_leap(struct lc__tk_sched *st, const lc_leaptable *t,
                            int64_t rt);

#endif /* LC_TK_SCHEDULE_H */
