/*
 * test_tk_smear.c - the timekeeper's smeared clock (UTC_SLS) at the edges of
 * docs/smearing.md section 3: the time set inside a smear window (c), and a
 * leap re-armed while a cancelled smear unwinds (a) + (b), on the simulated
 * counter against the public nominal smear lc_smear_offset().
 */
#include "lc_test.h"
#include "lc_testdata.h"

#include "leapclock.h"
#include "timekeeper.h" /* lc__tk_mono_at, lc__tk_cycles_at */

#include <math.h>

#define NS INT64_C(1000000000)
#define US INT64_C(1000)
#define MS INT64_C(1000000)
/* 2016-12-31T23:59:60 was inserted: the midnight after it. On the pre-leap
 * timeline T the inserted second starts at W2017 * 1 s (the leap instant L). */
#define W2017 INT64_C(1483228800)
#define L2017 (W2017 * NS)
/* A future midnight for adjtimex-armed leaps. */
#define D2030 INT64_C(1893456000)

struct sim {
	lc_counter *c;
	lc_timekeeper *tk;
	int64_t t;     /* true time = MONOTONIC (1 GHz, no rate error) */
	int64_t t_off; /* the model: T = t + t_off (pre-leap continuous) */
	/* the leap of check_step(): its instant on T and direction */
	int64_t L;
	int dir;
	lc_leaptable *table; /* owned, or NULL */
};

/* m->table: the table to use (NULL: the built-in one); sim_free() frees
 * it. */
static int sim_new(struct sim *m, const struct lc_smear_policy *p, int source,
                   int64_t rt0)
{
	struct lc_tk_config cfg;
	lc_leaptable *table = m->table; /* the caller's, or NULL */

	memset(m, 0, sizeof(*m));
	m->table = table;
	if (lc_counter_new_sim(&m->c, 1000000000u, 0) < 0)
		return -1;
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = rt0;
	cfg.leap_source = source;
	cfg.smear = p;
	cfg.table = m->table;
	m->t_off = rt0;
	m->L = L2017;
	m->dir = 1;
	return lc_tk_new(&m->tk, m->c, &cfg);
}

static void sim_free(struct sim *m)
{
	lc_tk_free(m->tk);
	lc_counter_free(m->c);
	lc_leaptable_free(m->table);
}

/* tzdata 2026f's table plus a deleted 2030-06-30T23:59:59 (its Expires
 * lines commented out): the deleted second starts at DEL2030 - 1 s. */
#define DEL2030 INT64_C(1909094400) /* 2030-07-01T00:00:00Z */

static void sim_at(struct sim *m, int64_t t)
{
	m->t = t;
	lc_sim_set_true_ns(m->c, t);
}

static int64_t sls_now(const struct sim *m)
{
	struct timespec ts;

	lc_gettime(m->tk, LC_CLOCK_UTC_SLS, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

/* UTC now as a reading on the T scale: 23:59:60.x is W + x s (T itself
 * during the inserted second), 00:00:00.x after it W + 1 + x s; after a
 * deleted second UTC reads 1 s more than T. */
static int64_t utc_on_t(const struct sim *m)
{
	struct timespec ts;
	int64_t v;

	lc_gettime(m->tk, LC_CLOCK_UTC, &ts);
	v = (int64_t)ts.tv_sec * NS + ts.tv_nsec;
	if (m->dir < 0) /* from the deleted second on, UTC is T + 1 s */
		return v >= m->L + NS ? v - NS : v;
	return v >= m->L ? v + NS - (ts.tv_nsec >= NS ? NS : 0) : v;
}

static int adj_status(struct sim *m, int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	return lc_adjtimex(m->tk, &tx);
}

static int is_linear(const struct lc_smear_policy *p)
{
	return p->shape == LC_SMEAR_LINEAR || p->shape == LC_SMEAR_STEP;
}

/* ---- (c) the time set during a smear window ------------------------------ */

/* Sets the clock so that T becomes `t_new` (the table rules TAI-UTC, so a
 * REALTIME after the leap is post-leap UTC): REALTIME below L, 23:59:60.x
 * through LC_CLOCK_UTC inside an inserted second, T - 1 s after it (T + 1 s
 * after a deleted one).
 * Half the time by ADJ_SETOFFSET instead where the target is unambiguous. */
static int set_t(struct sim *m, int64_t t_new)
{
	int64_t t_old = m->t + m->t_off, L = m->L, sh = m->dir * NS;
	int in_old = m->dir > 0 && t_old >= L && t_old < L + NS;
	int in_new = m->dir > 0 && t_new >= L && t_new < L + NS;
	struct timespec ts;
	int rc;

	if (!in_new && !in_old && lc_rand() % 2) {
		/* REALTIME moves by the step minus the leap's second where
		 * the step crosses the leap (the table's TAI-UTC). */
		int64_t d = t_new - t_old;
		struct lc_timex tx;

		if (t_new >= L && t_old < L)
			d -= sh;
		if (t_new < L && t_old >= L)
			d += sh;
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_SETOFFSET | LC_ADJ_NANO;
		tx.time.tv_sec = d / NS - (d % NS < 0);
		tx.time.tv_usec = d - tx.time.tv_sec * NS;
		rc = lc_adjtimex(m->tk, &tx);
	} else if (in_new) {
		ts.tv_sec = (time_t)(L / NS - 1);
		ts.tv_nsec = (long)(NS + t_new - L);
		rc = lc_settime(m->tk, LC_CLOCK_UTC, &ts);
	} else {
		int64_t rt = t_new >= L ? t_new - sh : t_new;

		ts.tv_sec = (time_t)(rt / NS);
		ts.tv_nsec = (long)(rt % NS);
		rc = lc_settime(m->tk, LC_CLOCK_REALTIME, &ts);
	}
	m->t_off = t_new - m->t;
	return rc < 0 ? rc : 0;
}

/* One step inside the window of the 2016 leap for preset `name`: start
 * before the window (the nominal plan), run to a random instant in it,
 * step T by a random amount (forwards or backwards) to another instant in
 * the window (or just outside it), then check UTC_SLS at the step and at
 * random instants to past the window's end against the policy's nominal
 * smear of the new UTC: UTC_SLS == T - lc_smear_offset(T - L), to the ns
 * for the linear shape, within 1 ns otherwise; UTC read on the T scale is
 * T; UTC_SLS strictly increasing between steps. */
static void check_step(const char *name, int64_t window, int forward, int dir)
{
	struct lc_smear_policy p;
	struct sim m;
	int64_t ws, we, t_rel, t_new_rel, t, prev = INT64_MIN;
	int64_t tol, L;

	LC_EQ_INT(lc_smear_preset(name, window, &p, NULL), 0);
	tol = is_linear(&p) ? 0 : 1;
	lc_smear_window_dir(&p, dir, &ws, &we);
	/* T starts a minute before the window */
	memset(&m, 0, sizeof(m));
	L = L2017;
	if (dir < 0) {
		L = (DEL2030 - 1) * NS;
		m.table = lc_test_table_2030(-1);
		LC_TRUE(m.table != NULL);
	}
	LC_EQ_INT(sim_new(&m, &p, LC_LEAP_FROM_TABLE, L + ws - 60 * NS), 0);
	m.L = L;
	m.dir = dir;
	t_rel = lc_rand_range(ws + 1, we - 1);
	if (forward)
		t_new_rel = lc_rand_range(t_rel + 1, we + NS);
	else
		t_new_rel = lc_rand_range(ws - NS, t_rel - 1);
	/* Run to T = L + t_rel, updating now and then (the smear is exact
	 * whatever the cadence), reading UTC_SLS. */
	for (t = 0; t + m.t_off < L + t_rel;) {
		int64_t v;

		t += lc_rand_range(1, (we - ws) / 50 + 1);
		if (t + m.t_off > L + t_rel)
			t = L + t_rel - m.t_off;
		sim_at(&m, t);
		if (lc_rand() % 4 == 0)
			lc_update(m.tk);
		v = sls_now(&m);
		LC_GT_I64(v, prev);
		prev = v;
		if (v + lc_smear_offset(&p, dir, t + m.t_off - L) !=
		        t + m.t_off ||
		    utc_on_t(&m) != t + m.t_off) {
			printf("  %s %s: before the step, at L%+.9f s\n",
			       dir > 0 ? "insertion" : "deletion", name,
			       (double)(t + m.t_off - L) / 1e9);
			LC_EQ_I64(utc_on_t(&m), t + m.t_off);
			LC_EQ_I64(v + lc_smear_offset(&p, dir, t + m.t_off - L),
			          t + m.t_off);
		}
	}
	LC_EQ_INT(set_t(&m, L + t_new_rel), 0);
	/* at the step and after it, to 10 s past the window's end */
	for (int i = 0;; i++) {
		int64_t T = m.t + m.t_off, v = sls_now(&m);
		int64_t want = T - lc_smear_offset(&p, dir, T - L);

		if (v - want > tol || want - v > tol || utc_on_t(&m) != T) {
			printf(
			    "  %s %s %s: stepped T from L%+.9f s to L%+.9f s; "
			    "read %d at L%+.9f s\n",
			    dir > 0 ? "insertion" : "deletion", name,
			    forward ? "forward" : "backward",
			    (double)t_rel / 1e9, (double)t_new_rel / 1e9, i,
			    (double)(T - L) / 1e9);
			LC_EQ_I64(utc_on_t(&m), T);
			LC_EQ_I64(v, want);
		}
		if (i > 0)
			LC_GT_I64(v, prev);
		LC_TRUE(want - v <= NS && v - want <= NS);
		prev = v;
		if (T - L > we + 10 * NS)
			break;
		sim_at(&m, m.t + lc_rand_range(1, (we - ws) / 40 + 1));
		if (lc_rand() % 3 == 0)
			lc_update(m.tk);
	}
	/* after the window: UTC_SLS is UTC */
	LC_EQ_I64(sls_now(&m), m.t + m.t_off - dir * NS);
	sim_free(&m);
}

static void test_settime_in_window(void)
{
	static const struct {
		const char *name;
		int64_t window;
	} presets[] = {
	    {"utc-sls", 0},       {"minute", 0},  {"google", 0},
	    {"ntpd", 7200 * NS},  {"fbclock", 0}, {"chrony", 0},
	    {"cosine", 600 * NS}, {"windows", 0},
	    {"ntp-classic", 7200 * NS},
	};

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		for (int k = 0; k < 8; k++) {
			check_step(presets[i].name, presets[i].window, k & 1,
			           k & 2 ? -1 : 1);
			LC_BAIL();
		}
}

/* The example of docs/smearing.md (c): utc-sls, the time set 200 s
 * forwards 500 s before the leap: the offset becomes that of 300 s before
 * the leap, 699 ms. The window is the 1000 SI s ending at midnight, L + 1 s,
 * so it starts at L - 999 s: 500 s before L, 499 s of 1000 are done (499
 * ms); 300 s before, 699 s (699 ms). */
static void test_settime_example(void)
{
	struct lc_smear_policy p;
	struct sim m;
	struct timespec ts = {(time_t)(W2017 - 300), 0};

	LC_EQ_INT(lc_smear_preset("utc-sls", 0, &p, NULL), 0);
	m.table = NULL;
	LC_EQ_INT(sim_new(&m, &p, LC_LEAP_FROM_TABLE, L2017 - 2000 * NS), 0);
	sim_at(&m, 1500 * NS);
	lc_update(m.tk);
	/* 500 s before the leap: 499 s of 1000 done, offset 499 ms */
	LC_EQ_I64(m.t + m.t_off - sls_now(&m), 499 * MS);
	LC_EQ_INT(lc_settime(m.tk, LC_CLOCK_REALTIME, &ts), 0);
	LC_EQ_I64(L2017 - 300 * NS - sls_now(&m), 699 * MS);
	/* and the smear ends at midnight on schedule */
	sim_at(&m, m.t + 301 * NS);
	LC_EQ_I64(sls_now(&m), L2017);
	sim_free(&m);
}

/* ---- a leap re-armed while a cancelled smear unwinds ------------------- */

struct walk {
	struct sim *m;
	const struct lc_smear_policy *p;
	int64_t prev_t, prev_v;
	double bound_ppm;
	int64_t max_jump; /* the largest |d offset| - allowed seen, ns */
	long reads;
	int unsmeared;  /* the leap is not smeared: UTC_SLS reads as UTC */
	int64_t del_at; /* T of a deleted second's start, else INT64_MAX */
	char what[160]; /* the scenario, for messages */
};

/* Reads UTC_SLS at true time t (>= the previous read) and checks it
 * against the previous read: strictly increasing, the offset moved no
 * faster than the bound (+ 2 ns for the integer rounding of both reads),
 * within [0, 1 s] of T before the leap is applied, of T - 1 s after. */
static void walk_to(struct walk *w, int64_t t)
{
	struct sim *m = w->m;
	int64_t v, T, d_off, allow;

	sim_at(m, t);
	v = sls_now(m);
	T = t + m->t_off;
	w->reads++;
	if (w->unsmeared) {
		struct timespec a, b;

		lc_gettime(m->tk, LC_CLOCK_UTC_SLS, &a);
		lc_gettime(m->tk, LC_CLOCK_UTC, &b);
		LC_EXPECT_I64((int64_t)a.tv_sec, (int64_t)b.tv_sec);
		LC_EXPECT_I64((int64_t)a.tv_nsec, (int64_t)b.tv_nsec);
		w->prev_t = t;
		w->prev_v = v;
		return;
	}
	if (w->prev_t != INT64_MIN) {
		int64_t dt = t - w->prev_t;

		LC_EXPECT_TRUE(v > w->prev_v);
		/* the offset is T - UTC_SLS */
		d_off = (dt - (v - w->prev_v));
		if (d_off < 0)
			d_off = -d_off;
		allow = (int64_t)ceil((double)dt * w->bound_ppm * 1e-6) + 2;
		if (d_off - allow > w->max_jump)
			w->max_jump = d_off - allow;
		if (d_off > allow) {
			printf(
			    "  %s: jump at T = L%+.9f s: UTC_SLS moved %" PRId64
			    " ns in %" PRId64 " ns (offset %" PRId64
			    " ns, allowed %" PRId64 ")\n",
			    w->what, (double)(T - (int64_t)D2030 * NS) / 1e9,
			    v - w->prev_v, dt, d_off, allow);
			LC_EXPECT_TRUE(d_off <= allow);
		}
	}
	if (w->del_at != INT64_MAX) {
		/* UTC is T until the deleted second, T + 1 s from it */
		int64_t U = T + (T >= w->del_at ? NS : 0);

		if (v - U > NS || U - v > NS) {
			printf("  at T = L%+.9f s: UTC_SLS - UTC = %" PRId64
			       " ns\n",
			       (double)(T - (int64_t)D2030 * NS) / 1e9, v - U);
			LC_EXPECT_TRUE(v - U <= NS && U - v <= NS);
		}
	} else if (!(T - v >= 0 && T - v <= NS)) {
		printf("  at T = L%+.9f s: UTC_SLS is T - %" PRId64
		       " ns (previous read %+.9f s, T - %" PRId64 ")\n",
		       (double)(T - (int64_t)D2030 * NS) / 1e9, T - v,
		       (double)(w->prev_t + m->t_off - (int64_t)D2030 * NS) /
		           1e9,
		       w->prev_t + m->t_off - w->prev_v);
		LC_EXPECT_TRUE(T - v >= 0 && T - v <= NS);
	}
	w->prev_t = t;
	w->prev_v = v;
}

/* Every simulated microsecond for `half` either side of `t`, then t. */
static void walk_fine(struct walk *w, int64_t t, int64_t half)
{
	for (int64_t u = t - half; u < t; u += US)
		if (u > w->prev_t)
			walk_to(w, u);
}

static void walk_coarse(struct walk *w, int64_t to, int64_t max_step)
{
	while (w->prev_t < to) {
		int64_t t = w->prev_t + lc_rand_range(1, max_step);

		if (t > to)
			t = to;
		if (lc_rand() % 16 == 0)
			lc_update(w->m->tk);
		walk_to(w, t);
	}
}

static long n_unsmeared, n_capped_unwinding;

static double shape_peak_slope(const struct lc_smear_policy *p)
{
	/* g' at its peak: 1 (linear), pi/2 (cosine), 2 (the quadratic's
	 * triangle, its steepest trapezoid) */
	return p->shape == LC_SMEAR_COSINE      ? M_PI / 2
	       : p->shape == LC_SMEAR_QUADRATIC ? 2
	                                        : 1;
}

/* An insertion at the end of 2029-12-31, armed by adjtimex (STA_INS) well
 * before the window; cancelled (STA_INS cleared) at a random instant in
 * the window; re-armed (STA_INS set) at a random instant after that, while
 * the unwind runs or after it ended (both happen); sampled every
 * microsecond for 2 ms either side of each transition and at random
 * instants in between. The leap then happens (REALTIME steps back), and
 * UTC_SLS ends equal to UTC.
 * Uncapped: the re-arm comes early enough that the late smear needs at
 * most 20x the policy's rate; the rate bound is the policy's, or the late
 * smear's from the offset read at the re-arm. Capped (max_rate_ppm set a
 * little above the policy's peak): anywhere up to the last second, so
 * that the late smear is often refused and the unwind may still run at
 * the leap; the rate bound is max_rate_ppm throughout, and UTC_SLS must
 * still be continuous and end equal to UTC. */
static void check_rearm(const char *name, int64_t window, int capped,
                        int64_t *worst)
{
	struct lc_smear_policy p;
	struct sim m;
	struct walk w;
	int64_t L = (int64_t)D2030 * NS, ws, we, t_cancel, t_rearm, latest;
	int64_t off, t_end, step, wr;
	double bound_ppm;

	LC_EQ_INT(lc_smear_preset(name, window, &p, NULL), 0);
	lc_smear_window_dir(&p, 1, &ws, &we);
	/* where the smear must be complete: the window's end, or, for ntpd's
	 * placement, the leap instant (the offset then holds through
	 * 23:59:60) */
	wr = p.placement == LC_SMEAR_ENDING_POSIX ? 0 : we;
	bound_ppm = ceil(lc_smear_peak_ppm(&p, 1));
	if (capped) {
		p.max_rate_ppm =
		    bound_ppm * (1 + (double)lc_rand_range(0, 50) / 100);
		bound_ppm = p.max_rate_ppm;
	}
	m.table = NULL;
	LC_EQ_INT(sim_new(&m, &p, LC_LEAP_FROM_ADJTIMEX, L + ws - 20 * NS), 0);
	LC_GE_INT(adj_status(&m, LC_STA_INS), 0);
	memset(&w, 0, sizeof(w));
	w.m = &m;
	w.p = &p;
	w.prev_t = INT64_MIN;
	w.del_at = INT64_MAX;
	w.bound_ppm = bound_ppm;
	step = (we - ws) / 2000 + 1;
	walk_to(&w, 0);

	/* Re-arming must come before the last second before midnight:
	 * STA_INS set there arms the next day's leap (as Linux's state
	 * machine, which moves to TIME_INS only at a boundary before it). */
	latest = L - NS - 10 * MS;
	if (!capped) {
		int64_t need =
		    (int64_t)((double)NS / (20.0 * bound_ppm * 1e-6) *
		              shape_peak_slope(&p));

		if (L + wr - need < latest)
			latest = L + wr - need;
	}
	/* cancel somewhere in the window before `latest` */
	t_cancel = lc_rand_range(L + ws + (we - ws) / 20,
	                         capped ? latest - 20 * MS
	                                : L - (we - ws) / 4 - 2 * NS) -
	           m.t_off;
	LC_LT_I64(t_cancel + m.t_off + 5 * MS, latest);
	walk_coarse(&w, t_cancel - 2 * MS, step);
	walk_fine(&w, t_cancel, 2 * MS);
	walk_to(&w, t_cancel);
	LC_GE_INT(adj_status(&m, 0), 0);
	walk_fine(&w, t_cancel + 2 * MS, 2 * MS);

	t_rearm = lc_rand_range(t_cancel + m.t_off + 5 * MS, latest) - m.t_off;
	walk_coarse(&w, t_rearm - 2 * MS, step);
	walk_fine(&w, t_rearm, 2 * MS);
	walk_to(&w, t_rearm);
	off = t_rearm + m.t_off - sls_now(&m);
	LC_GE_INT(adj_status(&m, LC_STA_INS), 0);
	/* Capped, with the unwind over: a plain late arm, refused if it
	 * needs more than max_rate_ppm; the leap is then not smeared and
	 * UTC_SLS reads as UTC, 23:59:60 included (docs/smearing.md (b)).
	 * (The rate is the mean times the shape's peak slope; 1e-6 of
	 * margin either side for the rounding of the library's figure.) */
	if (capped && off == 0) {
		double need = 1e9 / (double)(L + wr - (t_rearm + m.t_off)) *
		              shape_peak_slope(&p) * 1e6;

		if (need > p.max_rate_ppm * (1 - 1e-6) &&
		    need < p.max_rate_ppm * (1 + 1e-6)) {
			sim_free(&m);
			return; /* too close to call */
		}
		w.unsmeared = need > p.max_rate_ppm;
		if (w.unsmeared)
			n_unsmeared++;
	}
	if (capped && off > 0)
		n_capped_unwinding++;
	/* uncapped, the smeared clock may need the late plan's rate from
	 * here: the offset left over the time left, from the offset now */
	if (!capped) {
		double need = (double)(NS - off) /
		              (double)(L + wr - (t_rearm + m.t_off)) *
		              shape_peak_slope(&p) * 1e6;

		if (need > w.bound_ppm)
			w.bound_ppm = need * (1 + 1e-9);
	}
	walk_fine(&w, t_rearm + 2 * MS, 2 * MS);
	/* on to the leap, through it (T stays the pre-leap timeline: UTC is
	 * T through 23:59:60 and T - 1 s after it, so 0 <= T - UTC_SLS <= 1 s
	 * is |UTC_SLS - UTC| <= 1 s on both sides), and to the end of the
	 * smear: the window's end, or, capped, the longest a smear from 0 at
	 * max_rate_ppm can take after the re-arm */
	walk_coarse(&w, L - m.t_off - 2 * MS, step);
	walk_fine(&w, L - m.t_off + 2 * MS, 2 * MS);
	LC_EQ_I64(lc_now_ns(m.tk, LC_CLOCK_REALTIME), w.prev_t + m.t_off - NS);
	t_end = L + we;
	if (capped) {
		int64_t longest = t_rearm + m.t_off +
		                  (int64_t)ceil(shape_peak_slope(&p) * 1e9 /
		                                (p.max_rate_ppm * 1e-6));

		if (longest > t_end)
			t_end = longest;
	}
	walk_coarse(&w, t_end + NS - m.t_off, step);
	/* UTC_SLS is UTC after the smear */
	LC_EQ_I64(sls_now(&m), lc_now_ns(m.tk, LC_CLOCK_REALTIME));
	LC_EQ_I64(sls_now(&m), w.prev_t + m.t_off - NS);
	LC_EQ_I64(lc_now_ns(m.tk, LC_CLOCK_TAI),
	          w.prev_t + m.t_off - NS + 38 * NS);
	if (w.max_jump > *worst)
		*worst = w.max_jump;
	LC_BAIL();
	sim_free(&m);
}

/* The other direction: an insertion's smear cancelled in its window, then a
 * deletion armed for the same midnight (STA_DEL) while the unwind runs. The
 * deleted second starts at Ld = M - 1 s on T, where UTC steps to T + 1 s.
 * UTC_SLS must stay continuous (rate within the policy's, or the late
 * smear's from the offset at the re-arm to -1 s by Ld), strictly
 * increasing, within 1 s of UTC throughout, and equal to UTC after the
 * smear. */
static void check_rearm_reverse(const char *name, int64_t window)
{
	struct lc_smear_policy p;
	struct sim m;
	struct walk w;
	int64_t M = (int64_t)D2030 * NS, Ld = M - NS, ws, we, dws, dwe;
	int64_t t_cancel, t_rearm, latest, off, step, t_end;
	double need;

	LC_EQ_INT(lc_smear_preset(name, window, &p, NULL), 0);
	lc_smear_window_dir(&p, 1, &ws, &we);
	lc_smear_window_dir(&p, -1, &dws, &dwe);
	m.table = NULL;
	LC_EQ_INT(sim_new(&m, &p, LC_LEAP_FROM_ADJTIMEX, M + ws - 20 * NS), 0);
	LC_GE_INT(adj_status(&m, LC_STA_INS), 0);
	memset(&w, 0, sizeof(w));
	w.m = &m;
	w.prev_t = INT64_MIN;
	w.del_at = Ld;
	snprintf(w.what, sizeof(w.what), "%s reverse", name);
	w.bound_ppm =
	    ceil(fmax(lc_smear_peak_ppm(&p, 1), lc_smear_peak_ppm(&p, -1)));
	step = (we - ws) / 2000 + 1;
	walk_to(&w, 0);
	/* the insertion's window has begun before M only for ending and
	 * centred placements; STA_DEL must come before M - 2 s (the boundary
	 * that arms the deleted M - 1 s) with time to spare for the late
	 * smear: 2 s at no more than 20x the nominal rate */
	latest = Ld - (int64_t)(2e9 / (20.0 * w.bound_ppm * 1e-6) *
	                        shape_peak_slope(&p));
	LC_LT_I64(M + ws + (we - ws) / 20, latest - 3 * NS);
	t_cancel = lc_rand_range(M + ws + (we - ws) / 20,
	                         (M + ws + (we - ws) / 20 + latest) / 2) -
	           m.t_off;
	walk_coarse(&w, t_cancel - 2 * MS, step);
	walk_fine(&w, t_cancel, 2 * MS);
	walk_to(&w, t_cancel);
	LC_GE_INT(adj_status(&m, 0), 0);
	walk_fine(&w, t_cancel + 2 * MS, 2 * MS);
	/* More than a second after the cancel: within the same second the
	 * state is still TIME_INS, where STA_DEL arms nothing until the next
	 * boundary returns it to TIME_OK (Linux's state machine), and the
	 * late smear would start there, not at the re-arm. */
	t_rearm =
	    lc_rand_range(t_cancel + m.t_off + 1100 * MS, latest) - m.t_off;
	walk_coarse(&w, t_rearm - 2 * MS, step);
	walk_fine(&w, t_rearm, 2 * MS);
	walk_to(&w, t_rearm);
	off = t_rearm + m.t_off - sls_now(&m);
	LC_GE_INT(adj_status(&m, LC_STA_DEL), 0);
	snprintf(w.what, sizeof(w.what),
	         "%s reverse (cancel L%+.3f s, re-arm L%+.3f s, offset %.6f s)",
	         name, (double)(t_cancel + m.t_off - M) / 1e9,
	         (double)(t_rearm + m.t_off - M) / 1e9, (double)off / 1e9);
	need = (double)(NS + off) / (double)(Ld - (t_rearm + m.t_off)) *
	       shape_peak_slope(&p) * 1e6;
	if (need > w.bound_ppm)
		w.bound_ppm = need * (1 + 1e-9);
	walk_fine(&w, t_rearm + 2 * MS, 2 * MS);
	walk_coarse(&w, Ld - m.t_off - 2 * MS, step);
	walk_fine(&w, Ld - m.t_off + 2 * MS, 2 * MS);
	/* the deletion happened: REALTIME is T + 1 s */
	LC_EQ_I64(lc_now_ns(m.tk, LC_CLOCK_REALTIME), w.prev_t + m.t_off + NS);
	t_end = Ld + (off == 0 ? dwe : 0);
	if (t_end < Ld)
		t_end = Ld;
	walk_coarse(&w, t_end + 2 * NS - m.t_off, step);
	LC_EQ_I64(sls_now(&m), lc_now_ns(m.tk, LC_CLOCK_REALTIME));
	LC_EQ_I64(sls_now(&m), w.prev_t + m.t_off + NS);
	LC_BAIL();
	sim_free(&m);
}

static void test_rearm_reverse(void)
{
	static const struct {
		const char *name;
		int64_t window;
	} presets[] = {
	    {"google", 0},        {"utc-sls", 0},      {"minute", 0},
	    {"cosine", 600 * NS}, {"ntpd", 7200 * NS},
	};

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		for (int k = 0; k < 6; k++) {
			check_rearm_reverse(presets[i].name, presets[i].window);
			LC_BAIL();
		}
}

static void test_rearm_while_unwinding(void)
{
	static const struct {
		const char *name;
		int64_t window;
	} presets[] = {
	    {"utc-sls", 0},      {"minute", 0},         {"cosine", 600 * NS},
	    {"ntpd", 7200 * NS}, {"cosine", 7200 * NS}, {"google", 0},
	};
	int64_t worst = INT64_MIN;

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		for (int k = 0; k < 12; k++) {
			check_rearm(presets[i].name, presets[i].window, k & 1,
			            &worst);
			LC_BAIL();
		}
	printf("# largest |offset change| beyond the rate bound: %" PRId64
	       " ns; capped runs re-armed while unwinding: %ld, re-armed "
	       "after it and refused (unsmeared): %ld\n",
	       worst, n_capped_unwinding, n_unsmeared);
}

/* ---- (d) two leaps whose windows meet ----------------------------------- */

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS + ts->tv_nsec;
}

static int64_t sls_of(lc_timekeeper *tk)
{
	struct timespec ts;

	lc_gettime(tk, LC_CLOCK_UTC_SLS, &ts);
	return ts_ns(&ts);
}

static int adj_tk(lc_timekeeper *tk, int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	return lc_adjtimex(tk, &tx);
}

/*
 * A linear smear centred on the leap over 36 h: a deletion at the end of
 * 2029-12-31 (the deleted second starts at D - 1 s, D = 2030-01-01
 * 00:00:00) smears until D + 18 h (UTC); an insertion armed at D + 1 h for
 * the next midnight W2 = D + 1 day has a nominal window from W2 - 18 h =
 * D + 6 h, inside the first. docs/smearing.md (d): the second smear
 * starts exactly at the first's end, D + 18 h, as a late arm ending at
 * the nominal end W2 + 1 s + 18 h (T, the insertion's pre-leap timeline,
 * is UTC until W2): between them the linear offset is
 *	ceil(1e9 * (u - (D + 18 h)) / 86,401 s)
 * at UTC reading u (the window's 86,401 SI seconds), derived here from
 * the rule, not from the code. Two timekeepers on identical simulated
 * counters get the same calls (arm, clear, arm); one also runs lc_update
 * every few samples (1 us apart around the first window's end), the other
 * never: every UTC_SLS reading must be the same (DESIGN.md: nothing a
 * reader sees depends on when the writer runs) and equal the model.
 * Variants: `cancel` clears STA_INS again at D + 17 h, before the second
 * smear starts: no second smear at all (UTC_SLS == UTC from D + 18 h).
 */
/* check_two_leaps()'s rule for UTC_SLS at UTC reading u in
 * [S2, W2) */
static int64_t model_two(int cancel, int64_t S2, int64_t u)
{
	if (cancel)
		return u;
	return u - (int64_t)(((unsigned __int128)(u - S2) * 1000000000u +
	                      86401 * NS - 1) /
	                     (86401 * NS));
}

static void check_two_leaps(int cancel)
{
	const int64_t D = D2030 * NS, H = 3600 * NS, W2 = D + 86400 * NS;
	const int64_t S2 = D + 18 * H, E2 = W2 + NS + 18 * H;
	struct lc_smear_policy pol;
	struct lc_tk_config cfg;
	lc_counter *ca, *cb;
	lc_timekeeper *a, *b;
	int64_t t, t0 = D - 20 * H, va, vb, model, n = 0, bad = 0;
	int64_t x, nx, nmono = 0;

	memset(&pol, 0, sizeof(pol));
	snprintf(pol.name, sizeof(pol.name), "custom");
	pol.shape = LC_SMEAR_LINEAR;
	pol.placement = LC_SMEAR_CENTRED;
	pol.window_ns = 36 * H;
	LC_EQ_INT(lc_smear_validate(&pol, NULL), 0);
	LC_EQ_INT(lc_counter_new_sim(&ca, 1000000000u, 0), 0);
	LC_EQ_INT(lc_counter_new_sim(&cb, 1000000000u, 0), 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = t0;
	cfg.smear = &pol;
	LC_EQ_INT(lc_tk_new(&a, ca, &cfg), 0);
	LC_EQ_INT(lc_tk_new(&b, cb, &cfg), 0);
	/* MONOTONIC = t (1 GHz, no error); UTC = t0 + t until D - 1 s,
	 * t0 + t + 1 s after the deleted second. */
#define AT(x)                                                                  \
	do {                                                                   \
		lc_sim_set_true_ns(ca, (x));                                   \
		lc_sim_set_true_ns(cb, (x));                                   \
	} while (0)
#define BOTH(call)                                                             \
	do {                                                                   \
		LC_TRUE(call(a) >= 0);                                         \
		LC_TRUE(call(b) >= 0);                                         \
	} while (0)
#define DEL(tk) adj_tk(tk, LC_STA_DEL)
#define CLR(tk) adj_tk(tk, 0)
#define INS(tk) adj_tk(tk, LC_STA_INS)
	AT(0);
	BOTH(DEL);
	AT(D + 10 * NS - NS - t0);
	BOTH(CLR);
	AT(D + H - NS - t0);
	BOTH(INS);
	/* samples: every 61 s from D + 1 h to E2 + 1 h, every 1 us within
	 * 3 ms of S2, every 1 ms within 2 s of W2 */
	for (t = D + H - NS - t0 + NS;;) {
		if (cancel == 1 && t0 + t + NS >= D + 17 * H) {
			AT(D + 17 * H - NS - t0);
			BOTH(CLR);
			cancel = 2;
		}
		AT(t);
		if (n % 3 == 0)
			lc_update(a);
		va = sls_of(a);
		vb = sls_of(b);
		if (va != vb && bad++ < 5)
			printf("  %s: t %" PRId64 ": UTC_SLS %" PRId64
			       " updated, %" PRId64 " never updated\n",
			       cancel ? "cancel" : "two leaps", t, va, vb);
		model = INT64_MIN;
		if (t0 + t + NS >= S2 && t0 + t + NS < W2) {
			model = model_two(cancel, S2, t0 + t + NS);
		} else if (t0 + t + NS >= W2 + NS && (cancel || t0 + t >= E2)) {
			/* UTC after both leaps, or after the deletion
			 * alone */
			model = cancel ? t0 + t + NS : t0 + t;
		}
		if (model != INT64_MIN && vb != model && bad++ < 5)
			printf("  %s: t %" PRId64 ": UTC_SLS %" PRId64
			       ", the rule gives %" PRId64 "\n",
			       cancel ? "cancel" : "two leaps", t, vb, model);
		/* the timer inverse on the never-updated one (plan_next
		 * still unfolded in its snapshot), where the model holds:
		 * the first instant at which UTC_SLS reads >= vb, which is
		 * t or, where the slow clock shows vb for two ns, t - 1 */
		if (n % 7 == 0 && model != INT64_MIN && t0 + t + NS < W2) {
			struct timespec d = {(time_t)(vb / NS),
			                     (long)(vb % NS)};
			int64_t m, first = t;

			while (model_two(cancel, S2, t0 + first - 1 + NS) >= vb)
				first--;
			LC_EQ_INT(lc__tk_mono_at(b, LC_CLOCK_UTC_SLS, &d, &m),
			          0);
			if (m != first && bad++ < 5)
				printf("  mono_at %" PRId64
				       ", the rule gives %" PRId64 "\n",
				       m, first);
			nmono++;
		}
		n++;
		x = t0 + t + NS; /* post-deletion UTC until W2 */
		if (llabs(x - S2) < 3 * MS)
			nx = x + US;
		else if (llabs(x - W2) < 2 * NS)
			nx = x + MS;
		else
			nx = x + 61 * NS;
		if (x < S2 - 3 * MS && nx > S2 - 3 * MS)
			nx = S2 - 3 * MS;
		if (x < W2 - 2 * NS && nx > W2 - 2 * NS)
			nx = W2 - 2 * NS;
		t = nx - t0 - NS;
		if (t0 + t > E2 + H)
			break;
	}
	printf("# %s: %" PRId64 " readings, two cadences, %" PRId64
	       " timer inverses, %" PRId64 " wrong\n",
	       cancel ? "second leap cancelled" : "two leaps", n, nmono, bad);
	LC_EQ_I64(bad, 0);
#undef AT
#undef BOTH
#undef DEL
#undef CLR
#undef INS
	lc_tk_free(a);
	lc_tk_free(b);
	lc_counter_free(ca);
	lc_counter_free(cb);
}

static void test_two_leaps_meeting(void)
{
	check_two_leaps(0);
	check_two_leaps(1);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_settime_example,
	       "docs/smearing.md (c) example: utc-sls set 200 s forwards 500 s "
	       "before the leap reads 699 ms behind and ends at midnight");
	LC_RUN(test_settime_in_window,
	       "time set forwards/backwards inside the window, 8 presets, "
	       "insertion and deletion: UTC_SLS == new UTC - "
	       "lc_smear_offset(new UTC - L) (exact for linear, 1 ns "
	       "otherwise) at and after the step");
	LC_RUN(test_rearm_while_unwinding,
	       "leap cancelled in the window and re-armed at random: UTC_SLS "
	       "never back, no jump beyond the rate bound (1 us sampling at "
	       "each transition), within 1 s of UTC, == UTC after");
	LC_RUN(test_rearm_reverse,
	       "insertion's smear cancelled, deletion armed while it unwinds "
	       "(5 presets): UTC_SLS continuous, never back, within 1 s of UTC "
	       "across the deleted second, == UTC after");
	LC_RUN(test_two_leaps_meeting,
	       "docs/smearing.md (d): a second leap's smear starts exactly at "
	       "the first's end (late arm, linear offset from the rule), the "
	       "same readings with lc_update never and every few us; "
	       "cancelled before it starts, no second smear");
	return lc_test_done();
}
