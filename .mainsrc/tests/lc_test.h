/*
 * lc_test.h - leapclock's test harness: typed assertions that print both
 * sides, a replayable seed, and a one-line summary per test case.
 *
 * Each tests/test_*.c is its own program (CTest runs each in its own process
 * with a timeout). Use:
 *
 *     static void test_x(void) { LC_EQ_I64(lc_fdiv(-1, 2), -1); }
 *     int main(int argc, char **argv) {
 *             lc_test_init(argc, argv);
 *             LC_RUN(test_x, "floor division rounds towards -inf");
 *             return lc_test_done();
 *     }
 *
 * A failing LC_* assertion prints the expression, both values and the place,
 * and returns from the test function (so it is for void functions; inside
 * helpers returning a value use LC_EXPECT_* which records and goes on).
 * Randomised tests draw from lc_rand(), seeded by lc_test_init(): the seed is
 * printed and can be replayed with LC_SEED=N or --seed N.
 */
#ifndef LC_TEST_H
#define LC_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int lc_t_failed_cases, lc_t_passed_cases, lc_t_case_failed;
static long lc_t_checks;
static uint64_t lc_t_seed, lc_t_rng[4];

static inline uint64_t lc_t_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static inline uint64_t lc_rand(void)
{
	uint64_t *s = lc_t_rng;
	uint64_t r = lc_t_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = lc_t_rotl(s[3], 45);
	return r;
}

/* Uniform in [lo, hi] (inclusive). */
static inline int64_t lc_rand_range(int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	if (span == 0)
		return (int64_t)lc_rand();
	return (int64_t)((uint64_t)lo + lc_rand() % span);
}

static inline void lc_rand_seed(uint64_t seed)
{
	uint64_t z = seed;
	for (int i = 0; i < 4; i++) {
		z += 0x9e3779b97f4a7c15ULL;
		uint64_t x = z;
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		lc_t_rng[i] = x ^ (x >> 31);
	}
}

static inline void lc_test_init(int argc, char **argv)
{
	const char *env = getenv("LC_SEED");
	lc_t_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	if (env != NULL && *env != '\0')
		lc_t_seed = strtoull(env, NULL, 0);
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--seed") == 0)
			lc_t_seed = strtoull(argv[i + 1], NULL, 0);
	lc_rand_seed(lc_t_seed);
	printf("# %s: seed %" PRIu64 " (replay with LC_SEED=%" PRIu64 ")\n",
	       argc > 0 ? argv[0] : "test", lc_t_seed, lc_t_seed);
	fflush(stdout);
}

static inline uint64_t lc_test_seed(void)
{
	return lc_t_seed;
}

#define LC_RUN(fn, what)                                                 \
	do {                                                             \
		long c0_ = lc_t_checks;                                  \
		lc_t_case_failed = 0;                                    \
		fn();                                                    \
		if (lc_t_case_failed) {                                  \
			lc_t_failed_cases++;                             \
			printf("FAIL %s: %s\n", #fn, what);              \
		} else {                                                 \
			lc_t_passed_cases++;                             \
			printf("ok   %s: %s (%ld checks)\n", #fn, what,  \
			       lc_t_checks - c0_);                       \
		}                                                        \
		fflush(stdout);                                          \
	} while (0)

/* Prints a skip line and counts nothing; the reason says what is missing. */
#define LC_SKIP(what, reason)                                            \
	do {                                                             \
		printf("skip %s: %s\n", what, reason);                   \
		fflush(stdout);                                          \
	} while (0)

static inline int lc_test_done(void)
{
	printf("%d passed, %d failed\n", lc_t_passed_cases, lc_t_failed_cases);
	return lc_t_failed_cases ? 1 : 0;
}

#define LC_T_FAIL_(fmt, ...)                                             \
	do {                                                             \
		fprintf(stdout, "  %s:%d: " fmt "\n", __FILE__, __LINE__, \
		        __VA_ARGS__);                                    \
		fflush(stdout);                                          \
		lc_t_case_failed = 1;                                    \
	} while (0)

#define LC_T_CMP_(type, fmtspec, a, op, b, onfail)                       \
	do {                                                             \
		type a_ = (a), b_ = (b);                                 \
		lc_t_checks++;                                           \
		if (!(a_ op b_)) {                                       \
			LC_T_FAIL_("%s %s %s: %" fmtspec " vs %" fmtspec, \
			           #a, #op, #b, a_, b_);                 \
			onfail;                                          \
		}                                                        \
	} while (0)

#define LC_EQ_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, ==, b, return)
#define LC_NE_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, !=, b, return)
#define LC_LT_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, <, b, return)
#define LC_LE_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, <=, b, return)
#define LC_GT_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, >, b, return)
#define LC_GE_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, >=, b, return)
#define LC_EQ_U64(a, b) LC_T_CMP_(uint64_t, PRIu64, a, ==, b, return)
#define LC_EQ_INT(a, b) LC_T_CMP_(int, "d", a, ==, b, return)
#define LC_NE_INT(a, b) LC_T_CMP_(int, "d", a, !=, b, return)
#define LC_LT_INT(a, b) LC_T_CMP_(int, "d", a, <, b, return)
#define LC_GE_INT(a, b) LC_T_CMP_(int, "d", a, >=, b, return)
#define LC_EQ_DBL(a, b, tol)                                             \
	do {                                                             \
		double a_ = (a), b_ = (b), t_ = (tol);                   \
		lc_t_checks++;                                           \
		if (!(a_ - b_ <= t_ && b_ - a_ <= t_)) {                 \
			LC_T_FAIL_("%s ~= %s (tol %g): %.12g vs %.12g",  \
			           #a, #b, t_, a_, b_);                  \
			return;                                          \
		}                                                        \
	} while (0)
#define LC_TRUE(c)                                                       \
	do {                                                             \
		lc_t_checks++;                                           \
		if (!(c)) {                                              \
			LC_T_FAIL_("expected true: %s", #c);             \
			return;                                          \
		}                                                        \
	} while (0)
#define LC_FALSE(c) LC_TRUE(!(c))
#define LC_EQ_STR(a, b)                                                  \
	do {                                                             \
		const char *a_ = (a), *b_ = (b);                         \
		lc_t_checks++;                                           \
		if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) {   \
			LC_T_FAIL_("%s == %s: \"%s\" vs \"%s\"", #a, #b, \
			           a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
			return;                                          \
		}                                                        \
	} while (0)
/* Substring check, for error messages. */
#define LC_CONTAINS(hay, needle)                                         \
	do {                                                             \
		const char *h_ = (hay), *n_ = (needle);                  \
		lc_t_checks++;                                           \
		if (h_ == NULL || strstr(h_, n_) == NULL) {              \
			LC_T_FAIL_("\"%s\" should contain \"%s\"",       \
			           h_ ? h_ : "(null)", n_);              \
			return;                                          \
		}                                                        \
	} while (0)

/* Non-returning variants for helpers. */
#define LC_EXPECT_I64(a, b) LC_T_CMP_(int64_t, PRId64, a, ==, b, (void)0)
#define LC_EXPECT_TRUE(c)                                                \
	do {                                                             \
		lc_t_checks++;                                           \
		if (!(c))                                                \
			LC_T_FAIL_("expected true: %s", #c);             \
	} while (0)

/* Returns from the enclosing void test if an earlier check failed. */
#define LC_BAIL()                                                        \
	do {                                                             \
		if (lc_t_case_failed)                                    \
			return;                                          \
	} while (0)

/* Path of the shared test data (../shared/data from the source tree). */
#ifndef LC_TEST_DATA_DIR
#define LC_TEST_DATA_DIR "."
#endif

#endif /* LC_TEST_H */
