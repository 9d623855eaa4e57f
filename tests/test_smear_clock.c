/*
 * test_smear_clock.c - the smear clock (src/smear_clock.h), which the
 * shim's smeared REALTIME and leapclockd's smear:PRESET sockets read: its
 * fast pieces (the timekeeper's own piece arithmetic, tk_sls.c) give
 * exactly the table's smear, lc__smear_sls_from_tai, at every instant of
 * every preset's window, both directions, primed as its owners prime it.
 */
#include "lc_test.h"
#include "smear_clock.h"

#include <string.h>

#define NS INT64_C(1000000000)

/* The built-in table and a deleted second at the end of 2029-06-30
 * (TAI-UTC 37 -> 36). */
static lc_leaptable *table_with_deletion(void)
{
	lc_leaptable *t = lc_leaptable_new();
	FILE *in = fopen(LC_TEST_DATA_DIR "/leapseconds.tzdata2026f", "r");
	char line[256], *buf = NULL;
	size_t len = 0;
	struct lc_error err = {0};
	FILE *out;

	if (t == NULL || in == NULL) {
		if (in)
			fclose(in);
		lc_leaptable_free(t);
		return NULL;
	}
	out = open_memstream(&buf, &len);
	while (out != NULL && fgets(line, sizeof(line), in) != NULL)
		if (strncmp(line, "#expires", 8) != 0)
			fputs(line, out);
	fclose(in);
	if (out == NULL) {
		lc_leaptable_free(t);
		return NULL;
	}
	fputs("Leap\t2029\tJun\t30\t23:59:59\t-\tS\n", out);
	fclose(out);
	if (lc_leaptable_load_buffer(t, "deletion", buf, len,
	                             LC_LEAPFMT_TZDATA, &err) < 0) {
		printf("  table: %s\n", err.msg);
		lc_leaptable_free(t);
		t = NULL;
	}
	free(buf);
	return t;
}

struct stats {
	long reads, inside, fast, primes, sets;
};

/* The POSIX reading at TAI x (inside an inserted second POSIX repeats
 * 23:59:59, as REALTIME does). */
static int64_t posix_of(const lc_leaptable *t, int64_t x)
{
	int64_t u;

	if (lc_unix_from_tai(t, x, &u) < 0)
		return INT64_MIN;
	return u;
}

/* Walks TAI from a to b in steps around `step` (jittered), reading the
 * clock as leapclockd does (made again when the reading leaves it, primed
 * when its pieces run out) and comparing with the pure function. */
static void walk(const lc_leaptable *t, const struct lc_smear_policy *p,
                 int64_t a, int64_t b, int64_t step, struct stats *st)
{
	struct lc__smear_clock c;
	int have = 0;

	memset(&c, 0, sizeof(c));
	for (int64_t x = a; x <= b && !lc_t_case_failed;
	     x += step + lc_rand_range(0, step / 3)) {
		int64_t rt = posix_of(t, x), want, got;

		LC_TRUE(rt != INT64_MIN);
		if (!have || !lc__smear_clock_covers(&c, rt)) {
			LC_GE_INT(lc__smear_clock_set(&c, t, p, rt, x), 0);
			have = 1;
			st->sets++;
		}
		if (lc__smear_clock_inside(&c, rt) &&
		    lc__smear_clock_ending(&c, x, 0)) {
			lc__smear_clock_prime(&c, x);
			st->primes++;
		}
		if (lc__smear_clock_inside(&c, rt)) {
			st->inside++;
			if ((uint64_t)(x - c.t0) < c.fast[0].dmax ||
			    (uint64_t)(x - c.t0) < c.fast[1].dmax)
				st->fast++;
		}
		got = lc__smear_clock_read(&c, rt, x);
		LC_EQ_INT(lc__smear_sls_from_tai(t, p, x, &want), 0);
		if (got != want) {
			printf("  %s at TAI %lld (rt %lld): clock %lld, table "
			       "%lld\n",
			       p->name, (long long)x, (long long)rt,
			       (long long)got, (long long)want);
			LC_EQ_I64(got, want);
		}
		st->reads++;
	}
}

static void test_clock_equals_table(void)
{
	lc_leaptable *t = table_with_deletion();
	const char *const *names = lc_smear_preset_names();
	/* 2016-12-31's 23:59:60 (TAI 1483228836 s) and 2029-06-30's deleted
	 * 23:59:59 (TAI-UTC 37 before it) */
	const int64_t leaps[2] = {INT64_C(1483228836) * NS,
	                          (INT64_C(1877558399) + 37) * NS};
	struct stats st = {0};

	LC_TRUE(t != NULL);
	if (t == NULL)
		return;
	for (int i = 0; names[i] != NULL && !lc_t_case_failed; i++) {
		struct lc_smear_policy p;

		LC_EQ_INT(lc_smear_preset(names[i], 0, &p, NULL), 0);
		for (int k = 0; k < 2; k++) {
			int64_t s, e, L = leaps[k];

			lc_smear_window_dir(&p, k == 0 ? 1 : -1, &s, &e);
			/* the whole window, coarsely, and the leap second
			 * and the window's ends finely */
			walk(t, &p, L + s - 5 * NS, L + e + 5 * NS,
			     (e - s) / 3000 + 1, &st);
			walk(t, &p, L - 3 * NS, L + 3 * NS, 7 * 1000 * 1000,
			     &st);
			walk(t, &p, L + s - NS, L + s + NS, 3 * 1000 * 1000,
			     &st);
			walk(t, &p, L + e - NS, L + e + NS, 3 * 1000 * 1000,
			     &st);
		}
	}
	printf("#   %ld readings, %ld inside a span, %ld of them on a fast "
	       "piece, %ld primes, %ld clocks made: every one equal to the "
	       "table's smear\n",
	       st.reads, st.inside, st.fast, st.primes, st.sets);
	/* primed when the pieces run out: every inside read is fast */
	LC_EQ_I64(st.fast, st.inside);
	lc_leaptable_free(t);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_clock_equals_table,
	       "the smear clock (the shim's and leapclockd's smeared "
	       "reading) == lc__smear_sls_from_tai to the ns, every preset, "
	       "an insertion and a deletion, whole windows and their edges, "
	       "through primes");
	return lc_test_done();
}
