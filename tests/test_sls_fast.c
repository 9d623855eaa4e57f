/*
 * test_sls_fast.c - UTC_SLS computed fast and computed once.
 *
 * The curved shapes (cosine, quadratic) are chords between 65,537 knots
 * of their curve (src/smear.c): against the libm form
 * (lc__smear_plan_offset_curve) within 1 ns everywhere, within 0.65 ns of
 * the ideal curve (long double), over every chord of whole windows, for
 * every curved preset, random curved policies, both directions, unwinds
 * and late plans. The offset is monotone and UTC_SLS non-decreasing at
 * ns steps around the window's edges, the leap, the middle and knots.
 * The pieces the writer hands to readers (lc__smear_plan_piece) give the
 * offset itself. And the timekeeper's fast read (lc__tk_gettime_sls_fast,
 * one multiply from the snapshot's line 1) returns, whenever it answers,
 * what the slow path (the whole snapshot, lc__tk_clock_at) returns, and
 * both equal the pure function lc__smear_sls_from_tai() of the reading's
 * TAI, to the ns, for every preset, both leap directions, two counter
 * rates and random update cadences.
 */
#include "lc_test.h"
#include "lc_testdata.h"

#include "timekeeper.h"

#include <math.h>

#define NS INT64_C(1000000000)
#define W2017 INT64_C(1483228800) /* the midnight after 2016's 23:59:60 */
#define DEL2030 INT64_C(1909094400) /* 2030-07-01, after a deleted second */

static const char *const presets[] = {
    "google", "ntpd",   "chrony",  "fbclock",    "utc-sls",
    "minute", "cosine", "windows", "ntp-classic"};
#define NPRESETS (int)(sizeof(presets) / sizeof(presets[0]))

static struct lc_smear_policy preset(const char *name)
{
	struct lc_smear_policy p;

	memset(&p, 0, sizeof(p));
	if (lc_smear_preset(name, 0, &p, NULL) < 0)
		fprintf(stderr, "no preset %s\n", name);
	return p;
}

/* ---- the pure function: chords against the curve ------------------------ */

static double max_err_curve, max_err_ideal;
static long n_points, n_off_by_one;

/* Where the plan's shape ends: end_mono, or the leap instant of a plan
 * that holds its offset through the inserted second (LC__SMEAR_HOLD,
 * placement ENDING_POSIX: ntpd, ntp-classic). */
static int64_t shape_end(const struct lc__smear_plan *pl)
{
	return (pl->flags & LC__SMEAR_HOLD) ? pl->param[1] : pl->end_mono;
}

/* The ideal curve in long double: from + diff g(tau / len). */
static long double ideal(const struct lc__smear_plan *pl, int64_t m)
{
	long double len = (long double)(shape_end(pl) - pl->start_mono);
	long double x = (long double)(m - pl->start_mono) / len, g;
	long double diff = (long double)(pl->to_ns - pl->from_ns);

	if (m <= pl->start_mono)
		return (long double)pl->from_ns;
	if (m >= shape_end(pl))
		return (long double)pl->to_ns;
	if (pl->shape == LC_SMEAR_COSINE) {
		g = sinl(3.14159265358979323846264338327950288L * x / 2);
		g *= g;
	} else {
		long double rho = (long double)pl->param[0] / len, G;

		if (rho <= 0) {
			g = x;
		} else {
			G = 1 / (1 - rho);
			if (x <= rho)
				g = G * x * x / (2 * rho);
			else if (x >= 1 - rho)
				g = 1 - G * (1 - x) * (1 - x) / (2 * rho);
			else
				g = G * rho / 2 + G * (x - rho);
		}
	}
	return (long double)pl->from_ns + diff * g;
}

static void check_point(const struct lc__smear_plan *pl, int64_t m)
{
	int64_t got = lc__smear_plan_offset(pl, m);
	int64_t ref = lc__smear_plan_offset_curve(pl, m);
	long double id = ideal(pl, m);
	double e1 = (double)llabs(got - ref);
	double e2 = (double)fabsl((long double)got - id);
	struct lc__smear_piece pc;

	n_points++;
	if (got != ref)
		n_off_by_one++;
	if (e1 > max_err_curve)
		max_err_curve = e1;
	if (e2 > max_err_ideal && pl->shape != LC_SMEAR_LINEAR)
		max_err_ideal = e2;
	/* the linear shape rounds up: within 1 ns of its line */
	double bound = pl->shape == LC_SMEAR_LINEAR ? 1 : 0.65;

	if (e1 > 1 || e2 > bound) {
		printf("  shape %d [%" PRId64 ", %" PRId64 "] %" PRId64
		       " -> %" PRId64 " at %" PRId64 ": chord %" PRId64
		       ", libm %" PRId64 ", ideal %.4Lf\n",
		       (int)pl->shape, pl->start_mono, pl->end_mono,
		       pl->from_ns, pl->to_ns, m, got, ref, id);
		LC_TRUE(e1 <= 1 && e2 <= bound);
	}
	lc__smear_plan_piece(pl, m, &pc);
	LC_TRUE(pc.lo <= m && m < pc.hi);
	LC_EQ_I64(lc__smear_piece_at(&pc, m), got);
}

/* Every piece of the plan (every chord of a curved shape), walked with
 * lc__smear_plan_piece: both its ends, its middle (where a chord is
 * farthest from the curve) and a random point. */
static void check_chords(const struct lc__smear_plan *pl)
{
	int64_t m = pl->start_mono, se = shape_end(pl);
	long n = 0;

	while (m < se && !lc_t_case_failed) {
		struct lc__smear_piece pc;

		lc__smear_plan_piece(pl, m, &pc);
		LC_EQ_I64(pc.lo, m);
		LC_GT_I64(pc.hi, m);
		check_point(pl, m);
		check_point(pl, m + (pc.hi - m) / 2);
		check_point(pl, lc_rand_range(m, pc.hi - 1));
		check_point(pl, pc.hi - 1);
		m = pc.hi;
		n++;
	}
	LC_EQ_I64(m, se);
	/* a held offset: to_ns, one constant piece, to the window's end */
	if (se < pl->end_mono) {
		struct lc__smear_piece pc;

		check_point(pl, se);
		check_point(pl, se + (pl->end_mono - se) / 2);
		check_point(pl, pl->end_mono - 1);
		LC_EQ_I64(lc__smear_plan_offset(pl, se), pl->to_ns);
		LC_EQ_I64(lc__smear_plan_offset(pl, pl->end_mono - 1),
		          pl->to_ns);
		lc__smear_plan_piece(pl, se, &pc);
		LC_TRUE(pc.p == 0 && pc.q == 0 && pc.hi > pl->end_mono);
	}
	/* 65,536 chords (the quadratic: two ramps of 32,768 and its
	 * plateau), fewer only where knots meet in a short window */
	if (pl->shape != LC_SMEAR_LINEAR)
		LC_TRUE(n <= 65537 &&
		        (n >= 65536 || se - pl->start_mono < 65536 ||
		         pl->param[0] < 32768));
}

/* At ns steps over [c - n, c + n]: the offset moves by 0 or sgn 1 ns per
 * ns, so UTC_SLS = T - offset never goes back. */
static void check_ns_steps(const struct lc__smear_plan *pl, int64_t c,
                           int64_t n)
{
	int sgn = pl->to_ns >= pl->from_ns ? 1 : -1;
	int64_t prev = lc__smear_plan_offset(pl, c - n - 1);

	for (int64_t m = c - n; m <= c + n; m++) {
		int64_t o = lc__smear_plan_offset(pl, m);

		if ((o - prev) * sgn < 0 || (o - prev) * sgn > 1) {
			printf("  shape %d: offset %" PRId64 " -> %" PRId64
			       " at %" PRId64 " (window %" PRId64
			       "..%" PRId64 ")\n",
			       (int)pl->shape, prev, o, m, pl->start_mono,
			       pl->end_mono);
			LC_TRUE(0);
		}
		prev = o;
	}
}

static void check_plan(const struct lc__smear_plan *pl)
{
	int64_t s = pl->start_mono, e = shape_end(pl), len = e - s;

	check_chords(pl);
	if (lc_t_case_failed)
		return;
	check_ns_steps(pl, s, 20000);
	check_ns_steps(pl, e, 20000);
	check_ns_steps(pl, s + len / 2, 20000);
	if (pl->shape == LC_SMEAR_QUADRATIC) {
		/* the ramps' ends */
		check_ns_steps(pl, s + pl->param[0], 3000);
		check_ns_steps(pl, e - pl->param[0], 3000);
	}
	for (int i = 0; i < 8; i++) {
		int64_t k = lc_rand_range(1, 65535);
		check_ns_steps(pl, s + (int64_t)(((unsigned __int128)len *
		                                  (uint64_t)k) >> 16),
		               300);
	}
}

static void test_chords_presets(void)
{
	for (int i = 0; i < NPRESETS && !lc_t_case_failed; i++) {
		struct lc_smear_policy p = preset(presets[i]);

		for (int dir = 1; dir >= -1; dir -= 2) {
			struct lc__smear_plan pl;

			lc__smear_plan_none(&pl);
			LC_EQ_INT(lc__smear_plan_settime(&pl, &p, 0, dir, NULL),
			          0);
			check_plan(&pl);
			/* the leap instant and the midnight after it */
			check_ns_steps(&pl, 0, 20000);
			check_ns_steps(&pl, NS, 20000);
		}
	}
	printf("# %ld points: chord vs libm max %.0f ns (%ld differ by 1), "
	       "vs the ideal curve max %.3f ns\n",
	       n_points, max_err_curve, n_off_by_one, max_err_ideal);
}

static void test_chords_random(void)
{
	static const int64_t windows[] = {60, 61, 1000, 3607, 72000,
	                                  86400, 7 * 86400};

	for (int n = 0; n < 40 && !lc_t_case_failed; n++) {
		struct lc_smear_policy p;
		struct lc__smear_plan pl;
		int dir = lc_rand() % 2 ? 1 : -1;

		memset(&p, 0, sizeof(p));
		p.shape = lc_rand() % 2 ? LC_SMEAR_COSINE : LC_SMEAR_QUADRATIC;
		p.placement = (int)(lc_rand() % 3);
		p.window_ns = windows[lc_rand() % 7] * NS +
		              lc_rand_range(0, NS - 1);
		/* a plateau, from a short ramp (rho near 0) to a long one */
		if (p.shape == LC_SMEAR_QUADRATIC && lc_rand() % 3) {
			static const double f[] = {1.00001, 1.001, 1.05,
			                           1.3, 1.9};

			p.max_rate_ppm = 1e15 / ((double)p.window_ns - NS) *
			                 f[lc_rand() % 5];
		}
		if (lc_smear_validate(&p, NULL) < 0)
			continue;
		lc__smear_plan_none(&pl);
		LC_EQ_INT(lc__smear_plan_settime(&pl, &p, 0, dir, NULL), 0);
		/* armed late: from `now` to the window's end */
		if (lc_rand() % 3 == 0) {
			struct lc__smear_plan late;
			int64_t now = pl.start_mono +
			              (pl.end_mono - pl.start_mono) / 4;

			lc__smear_plan_none(&late);
			if (lc__smear_plan_leap(&late, &p, 0, dir, now, NULL) ==
			    0)
				pl = late;
		}
		/* cancelled half-way: the unwind back to 0 */
		if (lc_rand() % 3 == 0)
			lc__smear_plan_cancel(&pl, &p,
			                      pl.start_mono +
			                          (pl.end_mono - pl.start_mono) / 3);
		check_plan(&pl);
	}
	printf("# with random policies: %ld points, chord vs libm max %.0f "
	       "ns, vs the ideal curve max %.3f ns\n",
	       n_points, max_err_curve, max_err_ideal);
}

/* ---- the timekeeper's fast read ------------------------------------------ */

static long n_fast, n_slow;

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS + ts->tv_nsec;
}

/* One instant: the fast read (when it answers) == the slow path ==
 * lc_gettime == the pure function of the reading's TAI. */
static void check_read(lc_timekeeper *tk, const struct lc_smear_policy *p)
{
	struct timespec f = {0, 0}, sl, g;
	struct lc__tk_snap s;
	int64_t mono, want;
	int fast = lc__tk_gettime_sls_fast(tk, &f);

	lc__tk_read_snap(tk, &s, &mono);
	LC_EQ_INT(lc__tk_clock_at(&s, LC_CLOCK_UTC_SLS, mono, &sl), 0);
	if (fast) {
		n_fast++;
		if (f.tv_sec != sl.tv_sec || f.tv_nsec != sl.tv_nsec) {
			printf("  mono %" PRId64 " (snapshot at %" PRId64
			       "): fast %" PRId64 ", slow %" PRId64 "\n",
			       mono, s.mono, ts_ns(&f), ts_ns(&sl));
			LC_EQ_I64(ts_ns(&f), ts_ns(&sl));
		}
	} else {
		n_slow++;
	}
	LC_EQ_INT(lc_gettime(tk, LC_CLOCK_UTC_SLS, &g), 0);
	LC_EQ_I64(ts_ns(&g), ts_ns(&sl));
	LC_EQ_INT(lc__smear_sls_from_tai(lc_tk_table(tk), p,
	                                 mono + s.offs_tai, &want),
	          0);
	LC_EQ_I64(ts_ns(&sl), want);
}

/* Walks a timekeeper on the simulated counter (rate `freq`, `ppb` off)
 * through the window of the leap at L (T scale) for preset `name`:
 * random steps, lc_update() at random, and ns steps around the window's
 * edges, the leap, the middle and just after each update. `sparse`:
 * updates far apart (a stopped writer's page), so that reads run past the
 * two pieces and the fast path must decline. */
static void walk(const char *name, int dir, uint64_t freq, int64_t ppb,
                 int sparse)
{
	struct lc_smear_policy p = preset(name);
	struct lc_tk_config cfg;
	lc_leaptable *table = NULL;
	lc_counter *c = NULL;
	lc_timekeeper *tk = NULL;
	int64_t L = W2017 * NS, ws, we, t0, t, marks[6];
	int nm = 0;

	if (dir < 0) {
		L = (DEL2030 - 1) * NS;
		table = lc_test_table_2030(-1);
		LC_TRUE(table != NULL);
	}
	lc_smear_window_dir(&p, dir, &ws, &we);
	LC_EQ_INT(lc_counter_new_sim(&c, freq, ppb), 0);
	lc_tk_config_init(&cfg);
	t0 = L + ws - 3 * NS;
	cfg.initial_realtime_ns = t0;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.smear = &p;
	cfg.table = table;
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	/* true time t runs from 0 at T = t0 (the rate error makes T drift
	 * from it a little: the marks are near, not at, the edges) */
	marks[nm++] = L + ws - t0;
	marks[nm++] = L - t0;
	marks[nm++] = L + NS - t0;
	marks[nm++] = L + (ws + we) / 2 - t0;
	marks[nm++] = L + we - t0;
	marks[nm++] = L + we + 2 * NS - t0;
	t = 0;
	for (int i = 0; i < nm && !lc_t_case_failed; i++) {
		int64_t span = (marks[i] - t) / 300 + 1;

		/* coarse to near the mark */
		while (t < marks[i] - 3000 && !lc_t_case_failed) {
			int64_t step = lc_rand_range(1, 2 * span);

			t = t + step < marks[i] - 3000 ? t + step
			                               : marks[i] - 3000;
			/* a writer updating at least every 250 ms (as
			 * leapclockd's tick), or at random */
			if (sparse ? lc_rand() % 20 == 0
			           : step > NS / 4 || lc_rand() % 3 == 0) {
				int64_t u = t - lc_rand_range(0, NS / 4);

				if (u > 0) {
					lc_sim_set_true_ns(c, u);
					lc_update(tk);
					check_read(tk, &p);
				}
			}
			lc_sim_set_true_ns(c, t);
			check_read(tk, &p);
		}
		/* ns steps across it */
		for (; t < marks[i] + 3000 && !lc_t_case_failed; t++) {
			lc_sim_set_true_ns(c, t);
			if (lc_rand() % 500 == 0)
				lc_update(tk);
			check_read(tk, &p);
		}
	}
	if (getenv("LC_SLS_VERBOSE"))
		printf("  %s dir %d freq %" PRIu64 ": %ld fast, %ld slow\n",
		       name, dir, freq, n_fast, n_slow);
	lc_tk_free(tk);
	lc_counter_free(c);
	lc_leaptable_free(table);
}

static void test_fast_read(void)
{
	for (int i = 0; i < NPRESETS && !lc_t_case_failed; i++)
		for (int dir = 1; dir >= -1 && !lc_t_case_failed; dir -= 2) {
			walk(presets[i], dir, 1000000000u, 0, 0);
			walk(presets[i], dir, UINT64_C(2999999000), 37, 0);
		}
	printf("# updates at least every 250 ms: %ld reads on the fast path, "
	       "%ld on the slow one\n",
	       n_fast, n_slow);
	/* every read is inside a piece the writer prepared */
	LC_EQ_I64(n_slow, 0);
	n_fast = n_slow = 0;
	for (int i = 0; i < NPRESETS && !lc_t_case_failed; i++)
		for (int dir = 1; dir >= -1 && !lc_t_case_failed; dir -= 2)
			walk(presets[i], dir, UINT64_C(2999999000), 37, 1);
	printf("# updates far apart: %ld reads on the fast path, %ld on the "
	       "slow one\n",
	       n_fast, n_slow);
	LC_GT_I64(n_slow, 0);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_chords_presets,
	       "every curved preset, both directions: every chord within 1 ns "
	       "of the libm form and 0.65 ns of the ideal curve; monotone at "
	       "ns steps around the edges, the leap, the middle and knots; "
	       "the readers' pieces give the same offset");
	LC_RUN(test_chords_random,
	       "random curved policies, late plans and unwinds: the same "
	       "bounds");
	LC_RUN(test_fast_read,
	       "the timekeeper's fast UTC_SLS read == its slow path == the "
	       "pure function of TAI, to the ns, every preset, both "
	       "directions, two counter rates, random update cadences; "
	       "with updates every 250 ms every read takes the fast path");
	return lc_test_done();
}
