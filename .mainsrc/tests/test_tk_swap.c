/*
 * test_tk_swap.c - a leap armed, cancelled, re-armed and swapped for the
 * other direction (STA_INS <-> STA_DEL) through lc_adjtimex at random
 * instants, with and without lc_update, for every smear preset (issue 28
 * items 17 and 18). On every read:
 *   1. UTC is exactly what the Linux leap state machine gives (a model
 *      written here from /work/shared/reference/linux-leap-semantics.md
 *      section 2.2, run on true time), so monotone in its 23:59:60 order;
 *   3. TAI is continuous (TAI - true time constant);
 *   4. lc_tk_next_leap() is the leap that model applies next if nothing
 *      changes the flags (the model run forward), LC_ENOENT if none;
 *   5. UTC_SLS is non-decreasing, within 1 s of UTC, and equal to it once
 *      every window is over.
 * Seeded: the seed is printed; LC_SEED=N or --seed N replays a run.
 */
#include "lc_test.h"

#include "leapclock.h"

#include <string.h>

#define NS  INT64_C(1000000000)
#define MS  INT64_C(1000000)
#define DAY INT64_C(86400)
/* 2030-01-01T00:00:00Z: the midnight the runs play around */
#define M2030 INT64_C(1893456000)

enum { OK, INS, DEL, OOP, WAIT };

/* The leap state machine as ref 2.2 gives it, on POSIX seconds. */
struct model {
	int state, status;
	int64_t next;  /* armed leap second, INT64_MAX none */
	int64_t b;     /* the next boundary: POSIX second that begins */
	int64_t off;   /* REALTIME = t + off (ns) */
	int in_repeat; /* in the inserted second (OOP's first second) */
};

static int64_t next_ins(int64_t s) { return s + DAY - ((s % DAY) + DAY) % DAY; }
static int64_t next_del(int64_t s)
{
	return s + DAY - (((s + 1) % DAY) + DAY) % DAY;
}

/* One boundary: returns the leap applied (-1 insert, +1 delete, 0). */
static int model_step(struct model *m, int64_t s)
{
	switch (m->state) {
	case OK:
		if (m->status & LC_STA_INS) {
			m->state = INS;
			m->next = next_ins(s);
		} else if (m->status & LC_STA_DEL) {
			m->state = DEL;
			m->next = next_del(s);
		}
		return 0;
	case INS:
		if (!(m->status & LC_STA_INS)) {
			m->state = OK;
			m->next = INT64_MAX;
		} else if (s == m->next) {
			m->state = OOP;
			return -1;
		}
		return 0;
	case DEL:
		if (!(m->status & LC_STA_DEL)) {
			m->state = OK;
			m->next = INT64_MAX;
		} else if (s == m->next) {
			m->state = WAIT;
			m->next = INT64_MAX;
			return 1;
		}
		return 0;
	case OOP:
		m->state = WAIT;
		m->next = INT64_MAX;
		return 0;
	default:
		if (!(m->status & (LC_STA_INS | LC_STA_DEL)))
			m->state = OK;
		return 0;
	}
}

/* Processes every boundary at or before true time t. */
static void model_run(struct model *m, int64_t t)
{
	while (m->b * NS - m->off <= t) {
		int r = model_step(m, m->b);

		m->in_repeat = 0;
		if (r < 0) {
			m->off -= NS; /* b begins again */
			m->in_repeat = 1;
		} else {
			m->b += 1 + r;
			if (r > 0)
				m->off += NS;
		}
	}
}

/* The next leap if the flags stay: its 00:00:00 and direction, 0 none.
 * Three boundaries settle the state (cancel, arm); then a leap can only
 * come at the armed `next`, so the model jumps there. */
static int model_next(const struct model *m0, int64_t *when)
{
	struct model m = *m0;

	for (int k = 0; k < 4; k++) {
		int64_t s = m.b;
		int r;

		if (k == 3) {
			if ((m.state != INS && m.state != DEL) ||
			    m.next == INT64_MAX || m.next < m.b)
				return 0;
			s = m.next;
		}
		r = model_step(&m, s);
		if (r != 0) {
			*when = r < 0 ? s : s + 1;
			return -r;
		}
		m.b = s + 1;
	}
	return 0;
}

/* UTC as a count in 23:59:60 order: tv_sec * 2 s + tv_nsec. */
static int64_t utc_key(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 2 * NS + ts->tv_nsec;
}

struct run {
	lc_counter *c;
	lc_timekeeper *tk;
	struct model m;
	int64_t t, t0, tai0, last_sls, last_utc;
	int have_last;
	long reads;
	int bad;
};

static void check_read(struct run *r)
{
	struct timespec u, s, a;
	int64_t exp_rt, uk, sls, ucount, when = 0, ew = 0;
	int dir = 0, edir;

	lc_gettime(r->tk, LC_CLOCK_UTC, &u);
	lc_gettime(r->tk, LC_CLOCK_UTC_SLS, &s);
	lc_gettime(r->tk, LC_CLOCK_TAI, &a);
	r->reads++;
	/* 1: UTC is the machine's */
	exp_rt = r->t + r->m.off;
	uk = utc_key(&u);
	{
		int64_t sec = exp_rt / NS, ns = exp_rt % NS;
		int64_t want = r->m.in_repeat ? sec * 2 * NS + NS + ns
		                              : sec * 2 * NS + ns;
		LC_EXPECT_I64(uk, want);
		if (uk != want)
			r->bad = 1;
	}
	/* 3: TAI continuous */
	LC_EXPECT_I64((int64_t)a.tv_sec * NS + a.tv_nsec - r->t, r->tai0);
	/* 4: next_leap */
	edir = model_next(&r->m, &ew);
	if (lc_tk_next_leap(r->tk, &when, &dir) != 0)
		dir = 0, when = 0;
	if (edir == 0)
		ew = 0;
	LC_EXPECT_I64(dir, edir);
	LC_EXPECT_I64(when, ew);
	if (dir != edir || when != ew)
		r->bad = 1;
	/* 5: UTC_SLS monotone, within 1 s of UTC (23:59:60.x counted as
	 * 00:00:00.x) */
	sls = (int64_t)s.tv_sec * NS + s.tv_nsec;
	ucount = (int64_t)u.tv_sec * NS + u.tv_nsec;
	LC_EXPECT_TRUE(sls - ucount <= NS && ucount - sls <= NS);
	if (sls - ucount > NS || ucount - sls > NS)
		r->bad = 1;
	if (r->have_last) {
		LC_EXPECT_TRUE(sls >= r->last_sls);
		LC_EXPECT_TRUE(uk >= r->last_utc);
	}
	r->last_sls = sls;
	r->last_utc = uk;
	r->have_last = 1;
}

static void advance(struct run *r, int64_t t)
{
	r->t = t;
	lc_sim_set_true_ns(r->c, t);
	model_run(&r->m, t);
}

static void set_status(struct run *r, int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	lc_adjtimex(r->tk, &tx);
	r->m.status = status;
}

static int run_new(struct run *r, const struct lc_smear_policy *p,
                   int64_t rt0)
{
	struct lc_tk_config cfg;
	struct timespec a;

	memset(r, 0, sizeof(*r));
	if (lc_counter_new_sim(&r->c, 1000000000u, 0) < 0)
		return -1;
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = rt0;
	cfg.leap_source = LC_LEAP_FROM_ADJTIMEX;
	cfg.smear = p;
	if (lc_tk_new(&r->tk, r->c, &cfg) < 0)
		return -1;
	r->m.state = OK;
	r->m.next = INT64_MAX;
	r->m.off = rt0;
	r->m.b = rt0 / NS + 1;
	lc_gettime(r->tk, LC_CLOCK_TAI, &a);
	r->tai0 = (int64_t)a.tv_sec * NS + a.tv_nsec;
	return 0;
}

static void run_free(struct run *r)
{
	lc_tk_free(r->tk);
	lc_counter_free(r->c);
}

/* The end: quiet (flags cleared) for 3 days after the last event, then
 * UTC_SLS == UTC exactly. */
static void finish(struct run *r, int updates)
{
	int64_t end = r->t + 3 * DAY * NS;

	set_status(r, 0);
	while (r->t < end) {
		advance(r, r->t + 3599 * NS + 1234567);
		if (updates)
			lc_update(r->tk);
		check_read(r);
	}
	{
		struct timespec u, s;

		lc_gettime(r->tk, LC_CLOCK_UTC, &u);
		lc_gettime(r->tk, LC_CLOCK_UTC_SLS, &s);
		LC_EXPECT_I64((int64_t)s.tv_sec * NS + s.tv_nsec,
		              (int64_t)u.tv_sec * NS + u.tv_nsec);
	}
}

/* 28.17: STA_INS at 23:59:40.2, STA_DEL in its place at 23:59:40.7 (and
 * back), lc_update every second. Before the fix UTC_SLS - UTC ended at
 * -2 s (+2 s) for ever. */
static void test_swap_before_next_second(void)
{
	const char *const *names = lc_smear_preset_names();

	for (size_t i = 0; names[i] != NULL; i++)
		for (int first = 0; first < 2; first++) {
			struct lc_smear_policy p;
			struct run r;
			int64_t t;

			LC_EQ_INT(lc_smear_preset(names[i], 0, &p, NULL), 0);
			if (run_new(&r, &p, (M2030 - 30) * NS) < 0) {
				LC_TRUE(0);
				return;
			}
			t = 0;
			advance(&r, t);
			check_read(&r);
			advance(&r, t += 10200 * MS);
			set_status(&r, first ? LC_STA_DEL : LC_STA_INS);
			check_read(&r);
			advance(&r, t += 500 * MS);
			set_status(&r, first ? LC_STA_INS : LC_STA_DEL);
			check_read(&r);
			while (t < 40 * NS) {
				advance(&r, t += 100 * MS);
				if (t % NS == 0)
					lc_update(r.tk);
				check_read(&r);
			}
			finish(&r, 1);
			if (r.bad)
				printf("#   preset %s, %s first: wrong\n",
				       names[i], first ? "STA_DEL" : "STA_INS");
			run_free(&r);
		}
}

/* 28.18: STA_DEL at 23:50:00.3, STA_INS in its place at 23:51:00.3 (and
 * back), then reads only. Before the fix lc_tk_next_leap said LC_ENOENT
 * and UTC read 00:00:00.5 at 23:59:60.5. */
static void test_swap_reads_only(void)
{
	for (int first = 0; first < 2; first++) {
		struct lc_smear_policy p;
		struct run r;
		int64_t t = 0;

		LC_EQ_INT(lc_smear_preset("google", 0, &p, NULL), 0);
		if (run_new(&r, &p, (M2030 - 600) * NS) < 0) {
			LC_TRUE(0);
			return;
		}
		advance(&r, t += 300 * MS);
		set_status(&r, first ? LC_STA_INS : LC_STA_DEL);
		advance(&r, t += 60 * NS);
		set_status(&r, first ? LC_STA_DEL : LC_STA_INS);
		while (t < 605 * NS) {
			advance(&r, t += (t > 595 * NS ? 50 : 5000) * MS);
			check_read(&r);
		}
		lc_update(r.tk);
		check_read(&r);
		finish(&r, 0);
		run_free(&r);
	}
}

/* Random orders of arm, cancel, re-arm and swap. */
static void test_random_orders(void)
{
	const char *const *names = lc_smear_preset_names();
	long runs = 0;

	for (size_t i = 0; names[i] != NULL; i++)
		for (int k = 0; k < 100; k++) {
			static const int st[] = {0, LC_STA_INS, LC_STA_DEL,
			                         LC_STA_INS | LC_STA_DEL};
			struct lc_smear_policy p;
			struct run r;
			int updates = k & 1, nops = (int)lc_rand_range(1, 7);
			/* events in [midnight - span, midnight + 3 s] */
			int64_t span = (k & 2) ? 120 * NS : 3 * 3600 * NS;
			int64_t rt0 = M2030 * NS - span - NS;
			int64_t ops[8], t = 0;

			LC_EQ_INT(lc_smear_preset(names[i], 0, &p, NULL), 0);
			if (run_new(&r, &p, rt0) < 0) {
				LC_TRUE(0);
				return;
			}
			for (int j = 0; j < nops; j++)
				ops[j] = lc_rand_range(0, span + 4 * NS);
			for (int j = 1; j < nops; j++) /* sort */
				for (int q = j; q > 0 && ops[q] < ops[q - 1];
				     q--) {
					int64_t x = ops[q];
					ops[q] = ops[q - 1];
					ops[q - 1] = x;
				}
			for (int j = 0; j <= nops; j++) {
				int64_t to = j < nops ? ops[j] : span + 6 * NS;

				/* reads up to the op: coarse, dense near
				 * midnight */
				while (t < to) {
					int64_t mid = span + NS - t;
					int64_t d = (mid < 3 * NS && mid > -3 * NS)
					                ? lc_rand_range(1, 80 * MS)
					                : lc_rand_range(1, 97 * NS);
					t = t + d < to ? t + d : to;
					advance(&r, t);
					if (updates && lc_rand() % 4 == 0)
						lc_update(r.tk);
					check_read(&r);
				}
				if (j < nops) {
					set_status(&r, st[lc_rand() % 4]);
					check_read(&r);
				}
			}
			finish(&r, updates);
			if (r.bad)
				printf("#   wrong: preset %s, run %d (seed %llu)\n",
				       names[i], k,
				       (unsigned long long)lc_test_seed());
			run_free(&r);
			runs++;
		}
	printf("#   %ld runs\n", runs);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_swap_before_next_second,
	       "STA_INS <-> STA_DEL within a second, every preset: UTC_SLS "
	       "within 1 s of UTC, equal after (28.17)");
	LC_RUN(test_swap_reads_only,
	       "a swapped direction reaches readers with no writer call "
	       "(28.18)");
	LC_RUN(test_random_orders,
	       "random arm/cancel/re-arm/swap, every preset, with and "
	       "without updates: invariants 1, 3, 4, 5 on every read");
	return lc_test_done();
}
