/*
 * test_tk_schedule.c - the smear schedule (src/tk_schedule.c) on a
 * hand-made writer snapshot, without a timekeeper: the plan it makes for a
 * pending leap is the policy's nominal smear (lc_smear_offset), a
 * cancellation unwinds continuously back to 0, an applied leap's plan is
 * retired without changing a reading, a step moves the plan with its leap,
 * and a writer starting inside a table leap's window picks its smear up.
 */
#include "lc_test.h"

#include "tk_schedule.h"

#define NS INT64_C(1000000000)
/* 2016-12-31T23:59:60 was inserted: the 00:00:00 after it. */
#define W2017 INT64_C(1483228800)
/* MONOTONIC instant of the leap in these tests. */
#define LMONO (INT64_C(200000) * NS)

static struct lc_smear_policy pol(const char *name)
{
	struct lc_smear_policy p;

	if (lc_smear_preset(name, 0, &p, NULL) != 0)
		memset(&p, 0, sizeof(p));
	return p;
}

/* A writer snapshot with the insertion of W2017 pending at LMONO (what the
 * timekeeper's rearm leaves), REALTIME reading W2017 s there. */
static void snap_pending(struct lc__tk_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->offs_real = W2017 * NS - LMONO;
	s->leap_mono = LMONO;
	s->leap_dir = 1;
	s->leap_sec = W2017;
	s->leap_folded = 0;
}

/* UTC_SLS as readers compute it from the snapshot (timekeeper.h). */
static int64_t sls(const struct lc__tk_snap *s, int64_t m)
{
	return m + s->offs_sls - lc__smear_plan_offset(&s->plan, m) -
	       lc__smear_plan_offset(&s->plan_next, m);
}

static void test_pending_is_nominal(void)
{
	struct lc_smear_policy p = pol("google");
	struct lc__tk_sched st;
	struct lc__tk_snap s;
	int64_t t;

	snap_pending(&s);
	lc__tk_sched_init(&st, &s, &p, 0);
	LC_FALSE(lc__smear_plan_active(&s.plan));
	/* armed two days ahead: a timely arm */
	lc__tk_sched_rearm(&st, &s, LMONO - 2 * 86400 * NS);
	LC_TRUE(lc__smear_plan_active(&s.plan));
	LC_EQ_I64(st.plan_leap_mono, LMONO);
	LC_EQ_I64(st.plan_leap_sec, W2017);
	LC_EQ_I64(s.offs_sls, s.offs_real);
	LC_EQ_I64(s.plan.to_ns, NS);
	/* google: noon to noon, the leap second not counted */
	LC_EQ_I64(s.plan.start_mono, LMONO - 43200 * NS);
	LC_EQ_I64(s.plan.end_mono, LMONO + 43201 * NS);
	for (t = -50000 * NS; t <= 50000 * NS; t += 777777777777)
		LC_EQ_I64(lc__smear_plan_offset(&s.plan, LMONO + t),
		          lc_smear_offset(&p, 1, t));
	LC_FALSE(lc__smear_plan_active(&s.plan_next));
	/* a second rearm with nothing changed changes nothing */
	{
		struct lc__smear_plan before = s.plan;

		lc__tk_sched_rearm(&st, &s, LMONO - 86400 * NS);
		LC_EQ_INT(memcmp(&before, &s.plan, sizeof(before)), 0);
	}
}

static void test_no_policy(void)
{
	struct lc__tk_sched st;
	struct lc__tk_snap s;

	snap_pending(&s);
	lc__tk_sched_init(&st, &s, NULL, 0);
	lc__tk_sched_rearm(&st, &s, LMONO - 10 * NS);
	LC_FALSE(lc__smear_plan_active(&s.plan));
	LC_EQ_I64(st.plan_leap_mono, INT64_MAX);
	LC_EQ_I64(sls(&s, LMONO - 5 * NS), LMONO - 5 * NS + s.offs_real);
}

static void test_cancel_unwinds(void)
{
	struct lc_smear_policy p = pol("google");
	struct lc__tk_sched st;
	struct lc__tk_snap s;
	int64_t now = LMONO - 3600 * NS, before, m;

	snap_pending(&s);
	lc__tk_sched_init(&st, &s, &p, 0);
	lc__tk_sched_rearm(&st, &s, now - 86400 * NS);
	before = sls(&s, now);
	LC_GT_I64(lc__smear_plan_offset(&s.plan, now), 0);
	/* the leap is cancelled an hour before it (STA_INS cleared) */
	s.leap_mono = INT64_MAX;
	s.leap_dir = 0;
	s.leap_sec = INT64_MAX;
	lc__tk_sched_rearm(&st, &s, now);
	LC_TRUE(lc__smear_plan_active(&s.plan));
	LC_TRUE((s.plan.flags & LC__SMEAR_UNWIND) != 0);
	LC_EQ_I64(st.plan_leap_mono, INT64_MAX);
	LC_EQ_I64(s.plan.to_ns, 0);
	/* continuous at the cancellation, and back on REALTIME at the end */
	LC_EQ_I64(sls(&s, now), before);
	m = s.plan.end_mono;
	LC_EQ_I64(sls(&s, m), m + s.offs_real);
	/* never moves backwards while unwinding */
	for (int64_t t = now; t < m; t += (m - now) / 1000 + 1)
		LC_LE_I64(sls(&s, t), sls(&s, t + (m - now) / 1000 + 1));
}

static void test_applied_then_retired(void)
{
	struct lc_smear_policy p = pol("google");
	struct lc__tk_sched st;
	struct lc__tk_snap s;
	int64_t end, m;

	snap_pending(&s);
	lc__tk_sched_init(&st, &s, &p, 0);
	lc__tk_sched_rearm(&st, &s, LMONO - 86400 * NS);
	end = s.plan.end_mono;
	/* the writer folds the insertion at LMONO: REALTIME back by 1 s */
	s.offs_real -= NS;
	s.leap_folded = 1;
	lc__tk_sched_rearm(&st, &s, LMONO + 10 * NS);
	LC_TRUE(lc__smear_plan_active(&s.plan));
	/* inside the window the smear runs on from the old base */
	LC_EQ_I64(s.offs_sls - s.offs_real, NS);
	m = end + 5 * NS;
	{
		int64_t r = sls(&s, m);

		lc__tk_sched_fold(&st, &s, m);
		LC_FALSE(lc__smear_plan_active(&s.plan));
		LC_EQ_I64(s.offs_sls, s.offs_real);
		LC_EQ_I64(st.plan_leap_mono, INT64_MAX);
		/* retiring it changes no reading */
		LC_EQ_I64(sls(&s, m), r);
		LC_EQ_I64(sls(&s, m), m + s.offs_real);
	}
}

static void test_step_moves_plan(void)
{
	struct lc_smear_policy p = pol("google");
	struct lc__tk_sched st;
	struct lc__tk_snap s;
	int64_t now = LMONO - 1000 * NS, step = 10 * NS, before;

	snap_pending(&s);
	lc__tk_sched_init(&st, &s, &p, 0);
	lc__tk_sched_rearm(&st, &s, LMONO - 86400 * NS);
	before = sls(&s, now);
	/* REALTIME stepped 10 s ahead inside the window */
	s.offs_real += step;
	lc__tk_sched_after_step(&st, &s, now);
	LC_EQ_INT(st.step_pending, 1);
	LC_EQ_I64(st.step_leap_sec, W2017);
	LC_EQ_I64(st.step_leap_dir, 1);
	LC_EQ_INT(st.step_leap_applied, 0);
	/* the timekeeper re-arms the same leap, now 10 s sooner */
	s.leap_mono = W2017 * NS - s.offs_real;
	s.leap_dir = 1;
	s.leap_sec = W2017;
	s.leap_folded = 0;
	lc__tk_sched_rearm(&st, &s, now);
	LC_EQ_INT(st.step_pending, 0);
	LC_EQ_I64(st.plan_leap_mono, LMONO - step);
	LC_EQ_I64(s.offs_sls, s.offs_real);
	/* UTC_SLS stepped with REALTIME, the smear keeping its schedule
	 * relative to the leap: the nominal smear at the new distance to
	 * it (10 s further into the window: 10 s / 86401 s of the second
	 * more) */
	LC_EQ_I64(sls(&s, now), now + s.offs_real -
	                            lc_smear_offset(&p, 1, now - s.leap_mono));
	LC_EQ_I64(sls(&s, now) - before,
	          step - (lc_smear_offset(&p, 1, now - s.leap_mono) -
	                  lc_smear_offset(&p, 1, now - LMONO)));
	LC_LT_I64(sls(&s, now) - before, step);
	LC_EQ_I64(lc__smear_plan_offset(&s.plan, s.leap_mono),
	          lc_smear_offset(&p, 1, 0));
}

static void test_step_without_plan_drops(void)
{
	struct lc_smear_policy p = pol("google");
	struct lc__tk_sched st;
	struct lc__tk_snap s;

	snap_pending(&s);
	lc__tk_sched_init(&st, &s, &p, 0);
	/* armed long before the window: a plan, not yet started */
	lc__tk_sched_rearm(&st, &s, LMONO - 5 * 86400 * NS);
	LC_TRUE(lc__smear_plan_active(&s.plan));
	/* a step that disarms the leap (the timekeeper re-arms none) */
	s.offs_real -= 3 * 86400 * NS;
	lc__tk_sched_after_step(&st, &s, LMONO - 5 * 86400 * NS);
	s.leap_mono = INT64_MAX;
	s.leap_dir = 0;
	s.leap_sec = INT64_MAX;
	lc__tk_sched_rearm(&st, &s, LMONO - 5 * 86400 * NS);
	LC_FALSE(lc__smear_plan_active(&s.plan));
	LC_EQ_I64(s.offs_sls, s.offs_real);
	LC_EQ_I64(st.plan_leap_mono, INT64_MAX);
}

static void test_start_inside_table_window(void)
{
	struct lc_smear_policy p = pol("chrony");
	lc_leaptable *t = lc_leaptable_new();
	struct lc__tk_sched st;
	struct lc__tk_snap s;
	int64_t after = 3 * 3600 * NS; /* 3 h after the leap's midnight */
	int64_t now = LMONO + after;

	LC_TRUE(t != NULL);
	/* a writer starting at 2017-01-01T03:00 with the table in charge:
	 * the leap is applied and behind it (no pending leap) */
	memset(&s, 0, sizeof(s));
	s.offs_real = W2017 * NS + after - now;
	s.leap_mono = INT64_MAX;
	s.leap_sec = INT64_MAX;
	lc__tk_sched_init(&st, &s, &p, 1);
	lc__tk_sched_prev_leap(&st, t, now + s.offs_real);
	LC_EQ_INT(st.step_pending, 1);
	LC_EQ_I64(st.step_leap_sec, W2017);
	LC_EQ_I64(st.step_leap_dir, 1);
	lc__tk_sched_rearm(&st, &s, now);
	LC_TRUE(lc__smear_plan_active(&s.plan));
	/* chrony's smear starts at the leap's midnight and is the nominal
	 * one: the pre-leap timeline T is one second ahead of REALTIME */
	LC_EQ_I64(s.offs_sls - s.offs_real, NS);
	LC_EQ_I64(lc__smear_plan_offset(&s.plan, now),
	          lc_smear_offset(&p, 1, after + NS));
	/* without the table in charge nothing is planned */
	lc__tk_sched_init(&st, &s, &p, 0);
	lc__tk_sched_prev_leap(&st, t, now + s.offs_real);
	LC_EQ_INT(st.step_pending, 0);
	lc_leaptable_free(t);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_pending_is_nominal,
	       "a timely arm plans the policy's nominal smear");
	LC_RUN(test_no_policy, "no policy: no plan, UTC_SLS is REALTIME");
	LC_RUN(test_cancel_unwinds,
	       "a cancelled leap unwinds continuously back to REALTIME");
	LC_RUN(
	    test_applied_then_retired,
	    "an applied leap's plan is retired at its end, no reading moves");
	LC_RUN(test_step_moves_plan,
	       "a step inside the window moves the plan with its leap");
	LC_RUN(test_step_without_plan_drops,
	       "a step that disarms the leap drops its plan");
	LC_RUN(test_start_inside_table_window,
	       "a writer starting inside a table leap's window smears it");
	return lc_test_done();
}
