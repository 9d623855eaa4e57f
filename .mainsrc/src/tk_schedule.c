/*
 * tk_schedule.c - the smear schedule of the timekeeper's leaps: which smear
 * plan (s->plan, s->plan_next) runs for the pending leap, an applied one, a
 * cancelled one (the unwind), two leaps whose windows meet, and a step of
 * REALTIME in the middle of all that (docs/smearing.md section 3).
 *
 * Pure: it reads and writes the writer's snapshot (the leap fields the
 * timekeeper re-armed, the plans and offs_sls) and its own state (struct
 * lc__tk_sched), nothing else; the timekeeper calls it under its lock
 * (tk_schedule.h).
 */
#include "tk_schedule.h"

#include <string.h>

/* After a step (lc__tk_sched_after_step() set st->step_pending): the plan of
 * the leap that was being smeared becomes the nominal plan for that leap's
 * instant on the new timeline (docs/smearing.md (c)), so that UTC_SLS steps
 * with REALTIME by exactly the step and the smear keeps its schedule relative
 * to the leap. The leap is identified by its POSIX second and direction, not
 * by the step's size: a settime into 23:59:60 steps REALTIME by one second
 * less than UTC. Where the leap is now:
 *  - still pending (the timekeeper re-armed it): at leap_mono; the
 *    pre-leap base offs_sls is offs_real;
 *  - applied at leap_mono (a settime into its 23:59:60): base offs_real +
 *    dir * 1 s (the pre-leap timeline T reads one second more than
 *    REALTIME after an insertion);
 *  - behind us, if it had been applied before the step, or the table rules
 *    TAI-UTC (then REALTIME after the step is post-leap UTC): T =
 *    MONOTONIC + offs_real + dir * 1 s and the leap is where T reads
 *    leap_sec * 1 s.
 * Otherwise (the step disarmed the leap, as Linux's armed state that never
 * fires after ntp_clear, or moved it to another day) the plan is dropped:
 * the step is not smeared, and a leap armed now is planned afresh. */
static void smear_after_step(struct lc__tk_sched *st, struct lc__tk_snap *s,
                             int64_t mono_now)
{
	int64_t sec = st->step_leap_sec, dir = st->step_leap_dir;
	int64_t post = s->offs_real + dir * LC__NS, lm = INT64_MAX, base = 0;

	st->step_pending = 0;
	if (s->leap_dir == dir && s->leap_sec == sec) {
		lm = s->leap_mono;
		base = s->leap_folded ? post : s->offs_real;
	} else if ((st->step_leap_applied || st->table_mode) &&
	           sec < INT64_MAX / LC__NS &&
	           sec * LC__NS - post <= mono_now) {
		lm = sec * LC__NS - post;
		base = post;
	}
	if (lm != INT64_MAX && lc__smear_plan_settime(&s->plan, st->policy, lm,
	                                              (int)dir, NULL) == 0) {
		s->offs_sls = base;
		st->plan_leap_mono = lm;
		st->plan_leap_sec = sec;
		return;
	}
	lc__smear_plan_none(&s->plan);
	s->offs_sls = s->offs_real;
	st->plan_leap_mono = INT64_MAX;
}

/* A leap re-armed while a cancelled smear unwinds, which
 * lc__smear_plan_leap() refused (LC_ERANGE: from the unwind's offset, the
 * rest cannot be absorbed by the window's end within the policy's rate).
 * The leap cannot go unsmeared: UTC_SLS is on the unwind, continuous, and
 * a leap then applied would leave it on the pre-leap base for good (one
 * second ahead of UTC after an insertion, behind after a deletion, until
 * the next plan re-bases it with a one-second step). So the smear is
 * planned from the unwind's offset as for a later leap instant, the
 * smallest delay (bisected to 1 ms, up to about 12 days) that the policy
 * accepts: it runs at no more than the policy's rate and ends that much
 * after the nominal window's end. (The plan's own record of its leap is
 * then that later instant; the schedule keeps the real one in
 * plan_leap_mono.) Returns 0 with *pl set, or the first refusal. */
static int plan_leap_extended(struct lc__smear_plan *pl,
                              const struct lc_smear_policy *p,
                              int64_t leap_mono, int dir, int64_t mono_now)
{
	struct lc__smear_plan t = *pl;
	int64_t lo = 0, hi = INT64_C(1) << 50, ms = 1000000;
	int rc = lc__smear_plan_leap(&t, p, lc__sat_add(leap_mono, hi), dir,
	                             mono_now, NULL);

	if (rc < 0)
		return rc;
	/* invariant: lo refused, hi accepted */
	while (hi - lo > ms) {
		int64_t mid = lo + (hi - lo) / 2;

		t = *pl;
		if (lc__smear_plan_leap(&t, p, lc__sat_add(leap_mono, mid), dir,
		                        mono_now, NULL) == 0)
			hi = mid;
		else
			lo = mid;
	}
	rc = lc__smear_plan_leap(pl, p, lc__sat_add(leap_mono, hi), dir,
	                         mono_now, NULL);
	return rc;
}

/* lc__smear_plan_leap() from the current plan *pl. When *pl unwinds an
 * offset of the other sign than this leap's (an insertion's smear
 * cancelled, then a deletion armed, or the reverse), the smear from that
 * offset must be over by the leap instant: |UTC_SLS - UTC| <= 1 s needs the
 * offset in [0, 1 s] at an insertion's instant (UTC steps back by 1 s
 * against T there) and in [-1 s, 0] at a deletion's, and a window that
 * runs on past the leap (centred, starting) would cross it with up to
 * 2 s to go. So the smear is planned as the policy's shape with its window
 * ending at midnight (placement ENDING; a late plan from now to there,
 * faster than the policy's own). */
static int plan_leap_from(struct lc__smear_plan *pl,
                          const struct lc_smear_policy *p, int64_t leap_mono,
                          int dir, int64_t mono_now)
{
	struct lc_smear_policy q = *p;
	int64_t o = 0;

	if (lc__smear_plan_active(pl) && (pl->flags & LC__SMEAR_UNWIND))
		o = lc__smear_plan_offset(pl, mono_now);
	if (o != 0 && (o > 0) != (dir > 0)) {
		q.placement = LC_SMEAR_ENDING;
		if (lc_smear_validate(&q, NULL) == 0)
			p = &q;
	}
	return lc__smear_plan_leap(pl, p, leap_mono, dir, mono_now, NULL);
}

static void drop_next(struct lc__tk_sched *st, struct lc__tk_snap *s)
{
	lc__smear_plan_none(&s->plan_next);
	st->next_leap_mono = INT64_MAX;
}

/*
 * Two leaps whose smears meet (docs/smearing.md (d)). While the plan of an
 * applied leap still runs, the next leap's smear is planned at once, as if
 * armed at max(now, plan.end_mono), into s->plan_next, which readers add
 * (timekeeper.h). Its schedule therefore depends on the instants only (the
 * first plan's end, the second leap's instant, the policy, and the arm
 * call when that came after the first plan's end), never on when the writer
 * runs: every writer call from the arm to plan.end_mono computes the same
 * plan, and a reader between plan.end_mono and the next writer call already
 * reads it.
 *
 * Folding it in (the first writer call at or after plan.end_mono): readers
 * computed
 *	U(m) = m + offs_sls - plan(m) - plan_next(m)
 * and for m >= plan.end_mono plan(m) == plan.to_ns, so
 *	U(m) = m + (offs_sls - plan.to_ns) - plan_next(m)
 * which is what the single plan plan_next on the base offs_sls -
 * plan.to_ns gives: no reading changes. The first plan is done when its
 * leap was applied (offs_sls - offs_real == plan.to_ns), or when the
 * second one was applied too (no writer call between them:
 * offs_sls - offs_real == plan.to_ns + plan_next.to_ns).
 */
static void fold_plans(struct lc__tk_sched *st, struct lc__tk_snap *s,
                       int64_t mono_now)
{
	int64_t gap = s->offs_sls - s->offs_real;
	int next = lc__smear_plan_active(&s->plan_next);

	if (!lc__smear_plan_active(&s->plan) || mono_now < s->plan.end_mono)
		return;
	if (gap == s->plan.to_ns ||
	    (next && gap == s->plan.to_ns + s->plan_next.to_ns)) {
		if (next) {
			s->offs_sls -= s->plan.to_ns;
			s->plan = s->plan_next;
			st->plan_leap_mono = st->next_leap_mono;
			st->plan_leap_sec = st->next_leap_sec;
			drop_next(st, s);
			return;
		}
		/* Done: the smeared timeline has caught up with REALTIME. */
		lc__smear_plan_none(&s->plan);
		s->offs_sls = s->offs_real;
		st->plan_leap_mono = INT64_MAX;
	}
}

/* The pending leap (s->leap_*, not applied) while the plan of an applied
 * leap runs: plan_next for it (see fold_plans()), or none if the policy
 * refuses it as a late arm at max(now, plan.end_mono) (it would refuse it
 * at any later instant too: less time, a higher rate), which leaves that
 * leap unsmeared (docs/smearing.md (b)). A plan_next whose leap is no
 * longer pending nor applied (cancelled, or another leap armed) is
 * dropped: it has not started (mono_now < plan.end_mono <=
 * plan_next.start_mono, or fold_plans() would have taken it), so no
 * reading changes. */
static void plan_next_leap(struct lc__tk_sched *st, struct lc__tk_snap *s,
                           int64_t mono_now)
{
	int pending = s->leap_dir != 0 && !s->leap_folded;
	struct lc__smear_plan pl;

	if (lc__smear_plan_active(&s->plan_next) &&
	    !(pending && s->leap_mono == st->next_leap_mono) &&
	    s->offs_sls - s->offs_real != s->plan.to_ns + s->plan_next.to_ns)
		drop_next(st, s);
	if (!pending || !lc__smear_plan_active(&s->plan) ||
	    (s->plan.flags & LC__SMEAR_UNWIND) ||
	    st->plan_leap_mono == s->leap_mono ||
	    st->next_leap_mono == s->leap_mono ||
	    s->offs_sls - s->offs_real != s->plan.to_ns || s->plan.to_ns == 0)
		return;
	lc__smear_plan_none(&pl);
	if (lc__smear_plan_leap(&pl, st->policy, s->leap_mono, (int)s->leap_dir,
	                        mono_now > s->plan.end_mono ? mono_now
	                                                    : s->plan.end_mono,
	                        NULL) == 0 &&
	    pl.from_ns == 0 && pl.start_mono >= s->plan.end_mono) {
		s->plan_next = pl;
		st->next_leap_mono = s->leap_mono;
		st->next_leap_sec = s->leap_sec;
	}
}

/* A leap is pending and its smear is not planned yet: a new leap to
 * smear, or one re-armed while a cancelled one unwinds.
 * lc__smear_plan_leap() continues from the unwind's offset at mono_now (pl
 * is the current plan), on the same pre-leap base (offs_sls == offs_real
 * during an unwind and before this leap), over by the leap if that offset
 * has the other sign (plan_leap_from()). A late arm refused from an unwind
 * is planned later instead (plan_leap_extended(); if the offset had the
 * other sign, |UTC_SLS - UTC| then exceeds 1 s for a while rather than
 * UTC_SLS stepping); one refused from no plan leaves the leap unsmeared
 * (docs/smearing.md (b)).
 * A table leap is smeared on its nominal schedule, a pure function of the
 * instant, however late the writer learnt of it (it started, restarted, or
 * loaded a table inside the window): every process and the server then
 * agree. Late arms are for leaps armed through adjtimex. */
static void plan_pending_leap(struct lc__tk_sched *st, struct lc__tk_snap *s,
                              int64_t mono_now)
{
	const struct lc_smear_policy *p = st->policy;
	struct lc__smear_plan pl = s->plan;
	int active = lc__smear_plan_active(&s->plan);
	int dir = (int)s->leap_dir;
	int rc;

	if (st->table_mode && !active)
		rc = lc__smear_plan_settime(&pl, p, s->leap_mono, dir, NULL);
	else
		rc = plan_leap_from(&pl, p, s->leap_mono, dir, mono_now);
	if (rc == LC_ERANGE && active)
		rc = plan_leap_extended(&pl, p, s->leap_mono, dir, mono_now);
	if (rc == 0) {
		s->plan = pl;
		s->offs_sls = s->offs_real;
		st->plan_leap_mono = s->leap_mono;
		st->plan_leap_sec = s->leap_sec;
	}
}

/* The plan smears a leap that was not applied (offs_sls == offs_real: the
 * base is still pre-leap) and that is no longer the pending one: cleared
 * (cancelled), or replaced by another leap, the other direction's in its
 * place (STA_DEL for STA_INS, or back), or another day's. Such a plan must
 * go: left as it was, UTC_SLS would go on smearing the old direction's
 * second while UTC takes the new one, and end 2 s from UTC for ever. The
 * leap is told by its POSIX second and direction, not by leap_mono (which
 * moves with offs_real). */
static int plan_is_stale(const struct lc__tk_sched *st,
                         const struct lc__tk_snap *s)
{
	int pending = s->leap_dir != 0 && !s->leap_folded;
	int64_t pdir = s->plan.to_ns > 0 ? 1 : -1;

	if (!lc__smear_plan_active(&s->plan) ||
	    (s->plan.flags & LC__SMEAR_UNWIND) ||
	    st->plan_leap_mono == INT64_MAX || s->offs_sls != s->offs_real)
		return 0;
	if (s->leap_folded && s->leap_mono == st->plan_leap_mono)
		return 0; /* applied: its second lasts */
	return !pending || s->leap_sec != st->plan_leap_sec ||
	       s->leap_dir != pdir;
}

void lc__tk_sched_rearm(struct lc__tk_sched *st, struct lc__tk_snap *s,
                        int64_t mono_now)
{
	if (st->policy == NULL)
		return;
	if (st->step_pending)
		smear_after_step(st, s, mono_now);
	fold_plans(st, s, mono_now);
	plan_next_leap(st, s, mono_now);
	if (plan_is_stale(st, s)) {
		/* Unwind smoothly from where it is; a leap pending in its
		 * place is then planned from the unwind (plan_leap_from():
		 * over by that leap's instant if the offset has the other
		 * sign). */
		lc__smear_plan_cancel(&s->plan, st->policy, mono_now);
		st->plan_leap_mono = INT64_MAX;
		st->plan_leap_sec = INT64_MAX;
	}
	if (s->leap_dir != 0 && !s->leap_folded &&
	    st->plan_leap_mono != s->leap_mono &&
	    (!lc__smear_plan_active(&s->plan) ||
	     (s->plan.flags & LC__SMEAR_UNWIND)))
		plan_pending_leap(st, s, mono_now);
}

void lc__tk_sched_init(struct lc__tk_sched *st, struct lc__tk_snap *s,
                       const struct lc_smear_policy *policy, int table_mode)
{
	memset(st, 0, sizeof(*st));
	st->policy = policy;
	st->table_mode = table_mode;
	st->plan_leap_mono = INT64_MAX;
	st->plan_leap_sec = INT64_MAX;
	st->next_leap_mono = INT64_MAX;
	st->next_leap_sec = INT64_MAX;
	lc__smear_plan_none(&s->plan);
	lc__smear_plan_none(&s->plan_next);
	s->offs_sls = s->offs_real;
}

void lc__tk_sched_fold(struct lc__tk_sched *st, struct lc__tk_snap *s,
                       int64_t mono_now)
{
	if (st->policy != NULL)
		fold_plans(st, s, mono_now);
}

/* The smear plan is not simply dropped at a step: an unwind is relative to
 * UTC and stays as it is (its base moves with offs_real); the plan of a
 * leap moves with that leap once the timekeeper has re-armed it
 * (lc__tk_sched_rearm() -> smear_after_step()). */
void lc__tk_sched_after_step(struct lc__tk_sched *st, struct lc__tk_snap *s,
                             int64_t mono_now)
{
	/* The writer folded a next plan whose time had come: one left has
	 * not started; the re-armed leap gets a new one
	 * (lc__tk_sched_rearm()). */
	drop_next(st, s);
	if (lc__smear_plan_active(&s->plan) &&
	    (s->plan.flags & LC__SMEAR_UNWIND)) {
		s->offs_sls = s->offs_real;
	} else if (lc__smear_plan_active(&s->plan) &&
	           st->plan_leap_mono != INT64_MAX) {
		st->step_pending = 1;
		st->step_leap_sec = st->plan_leap_sec;
		st->step_leap_dir = s->plan.to_ns > 0 ? 1 : -1;
		st->step_leap_applied = mono_now >= st->plan_leap_mono;
	} else {
		lc__smear_plan_none(&s->plan);
		st->plan_leap_mono = INT64_MAX;
		s->offs_sls = s->offs_real;
	}
	if (!st->step_pending)
		s->offs_sls = s->offs_real;
}

/* Plans the smear of the table leap just behind REALTIME `rt` if its window
 * may still run (the nominal plan, as after a step: see
 * smear_after_step()), so that a writer that starts or resumes inside a
 * window that runs on past the leap (chrony's, fbclock's) smears exactly
 * as one that ran through it. */
void lc__tk_sched_prev_leap(struct lc__tk_sched *st, const lc_leaptable *t,
                            int64_t rt)
{
	struct lc_leap l;

	if (st->policy == NULL || !st->table_mode)
		return;
	if (lc_leaptable_prev(t, lc__fdiv(rt, LC__NS), &l) < 0 || l.dir == 0 ||
	    rt - l.when * LC__NS > 30 * 86400 * LC__NS)
		return;
	st->step_pending = 1;
	st->step_leap_applied = 1;
	st->step_leap_sec = l.dir > 0 ? l.when : l.when - 1;
	st->step_leap_dir = l.dir;
}
