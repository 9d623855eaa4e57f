/*
 * test_tk_sls.c - UTC_SLS from a snapshot (src/tk_sls.c), without a
 * timekeeper: the two fast-path pieces the writer publishes give, through
 * the reader's one multiply, exactly what the slow path computes at every
 * ns they cover (linear, cosine chords, quadratic; before, inside and at
 * the end of the window, and without a plan up to the leap), and the
 * inverse returns the first instant that reads a value.
 */
#include "lc_test.h"

#include "tk_sls.h"

#define NS    INT64_C(1000000000)
#define W2017 INT64_C(1483228800)
#define LMONO (INT64_C(200000) * NS)

/* The reader's formula (lc__tk_gettime_sls_fast) for one piece. */
static int64_t piece_read(const struct lc__tk_sls_piece *pc, uint64_t d)
{
	unsigned __int128 t = (unsigned __int128)d * pc->m_lo +
	                      (((unsigned __int128)pc->c_hi << 64) | pc->c_lo);
	uint64_t hi = (uint64_t)(t >> 64) + d * pc->m_hi;

	return pc->base + (int64_t)(hi >> 20);
}

/* A snapshot at MONOTONIC m0 with the insertion at LMONO pending and the
 * policy's nominal plan for it (none if p is NULL). */
static void snap_at(struct lc__tk_snap *s, const struct lc_smear_policy *p,
                    int64_t m0)
{
	memset(s, 0, sizeof(*s));
	s->mono = m0;
	s->offs_real = W2017 * NS - LMONO;
	s->offs_sls = s->offs_real;
	s->leap_mono = LMONO;
	s->leap_dir = 1;
	s->leap_sec = W2017;
	lc__smear_plan_none(&s->plan);
	lc__smear_plan_none(&s->plan_next);
	if (p != NULL)
		lc__smear_plan_settime(&s->plan, p, LMONO, 1, NULL);
	lc__tk_sls_fill(s);
}

/* Every d of both pieces checked at the edges and at random inside;
 * returns the number of ns the fast path covers. */
static uint64_t check_pieces(const struct lc__tk_snap *s)
{
	const struct lc__tk_sls_piece *a = &s->sls[0], *b = &s->sls[1];
	uint64_t lo[2] = {0, a->dmax}, hi[2] = {a->dmax, b->dmax};

	for (int k = 0; k < 2; k++) {
		const struct lc__tk_sls_piece *pc = k ? b : a;

		if (hi[k] <= lo[k])
			continue;
		for (int i = 0; i < 2000; i++) {
			uint64_t d;

			/* the first two and last two ns, then at random */
			if (i < 2)
				d = lo[k] + (uint64_t)i;
			else if (i < 4)
				d = hi[k] - 1 - (uint64_t)(i - 2);
			else
				d = lo[k] + lc_rand() % (hi[k] - lo[k]);
			if (d < lo[k] || d >= hi[k])
				continue;
			LC_EXPECT_I64(piece_read(pc, d),
			              lc__tk_sls_at(s, s->mono + (int64_t)d));
		}
	}
	return b->dmax > a->dmax ? b->dmax : a->dmax;
}

static void test_pieces_exact(void)
{
	static const char *const names[] = {"google", "cosine", "chrony",
	                                    "ntpd", "utc-sls"};

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		struct lc_smear_policy p;
		struct lc__tk_snap s;
		int64_t from, to;

		LC_EQ_INT(lc_smear_preset(names[n], 0, &p, NULL), 0);
		snap_at(&s, &p, 0);
		from = s.plan.start_mono - 10 * NS;
		to = s.plan.end_mono + 10 * NS;
		for (int i = 0; i < 40; i++) {
			int64_t m0 = i < 2 ? (i ? s.plan.end_mono - 1
			                        : s.plan.start_mono)
			                   : lc_rand_range(from, to);

			snap_at(&s, &p, m0);
			check_pieces(&s);
			/* inside the window the fast path always has a piece */
			if (m0 >= s.plan.start_mono && m0 < s.plan.end_mono)
				LC_GT_I64((int64_t)s.sls[0].dmax, 0);
		}
	}
}

static void test_no_plan(void)
{
	struct lc__tk_snap s;
	uint64_t cover;

	/* an hour before the leap: one piece up to the leap, REALTIME */
	snap_at(&s, NULL, LMONO - 3600 * NS);
	cover = check_pieces(&s);
	LC_GT_I64((int64_t)cover, 0);
	LC_LE_I64((int64_t)cover, 3600 * NS);
	LC_EQ_I64(lc__tk_sls_at(&s, LMONO - 1), W2017 * NS - 1);
	/* inside the inserted second: no fast path (23:59:60 is the slow
	 * path's) */
	snap_at(&s, NULL, LMONO + NS / 2);
	LC_EQ_I64((int64_t)s.sls[0].dmax, 0);
	LC_EQ_I64((int64_t)s.sls[1].dmax, 0);
}

static void test_inverse_first_instant(void)
{
	struct lc_smear_policy p;
	struct lc__tk_snap s;

	LC_EQ_INT(lc_smear_preset("cosine", 0, &p, NULL), 0);
	snap_at(&s, &p, 0);
	for (int i = 0; i < 3000; i++) {
		int64_t m =
		    lc_rand_range(s.plan.start_mono - NS, s.plan.end_mono + NS);
		int64_t v = lc__tk_sls_at(&s, m);
		int64_t inv = lc__tk_sls_inverse(&s, v);

		LC_EXPECT_TRUE(inv <= m);
		LC_EXPECT_TRUE(lc__tk_sls_at(&s, inv) >= v);
		LC_EXPECT_TRUE(lc__tk_sls_at(&s, inv - 1) < v);
	}
	/* the smeared clock never reads 23:59:60: the first instant that
	 * reads W2017 s is inside the window, after the leap */
	{
		int64_t inv = lc__tk_sls_inverse(&s, W2017 * NS);

		LC_GT_I64(inv, LMONO);
		LC_LE_I64(inv, s.plan.end_mono);
	}
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_pieces_exact,
	       "the fast path's pieces read exactly what the slow path does");
	LC_RUN(test_no_plan,
	       "no plan: one piece up to the leap, none in 23:59:60");
	LC_RUN(test_inverse_first_instant,
	       "the inverse is the first instant reading a value");
	return lc_test_done();
}
