/* test_harness.c - the project's own checks of its test harness and of the
 * shared internal conversions (internal.h), so that a broken assertion
 * macro or floor division cannot silently pass everything else. */
#include "internal.h"
#include "lc_test.h"

static void test_floor_division(void)
{
	LC_EQ_I64(lc__fdiv(-1, LC__NS), -1);
	LC_EQ_I64(lc__fmod(-1, LC__NS), LC__NS - 1);
	LC_EQ_I64(lc__fdiv(LC__NS, LC__NS), 1);
	LC_EQ_I64(lc__fdiv(-LC__NS, LC__NS), -1);
	LC_EQ_I64(lc__fmod(-LC__NS, LC__NS), 0);
	for (int i = 0; i < 100000; i++) {
		int64_t a = lc_rand_range(-(INT64_C(1) << 62), INT64_C(1) << 62);
		int64_t b = lc_rand_range(1, INT64_C(1) << 40);
		int64_t q = lc__fdiv(a, b), r = lc__fmod(a, b);
		LC_EQ_I64(q * b + r, a);
		LC_TRUE(r >= 0 && r < b);
	}
}

static void test_timespec_round_trip(void)
{
	for (int i = 0; i < 100000; i++) {
		int64_t ns = lc_rand_range(-(INT64_C(1) << 62), INT64_C(1) << 62);
		struct timespec ts = lc__ns_to_ts(ns);
		LC_TRUE(ts.tv_nsec >= 0 && ts.tv_nsec < LC__NS);
		LC_EQ_I64(lc__ts_to_ns(&ts), ns);
	}
	LC_EQ_I64(lc__sat_add(INT64_MAX - 1, 5), INT64_MAX);
	LC_EQ_I64(lc__sat_add(INT64_MIN + 1, -5), INT64_MIN);
	LC_EQ_I64(lc__sat_add(40, 2), 42);
}

static void test_error_names(void)
{
	struct lc_error e;
	char buf[600];
	lc_clock_id id;

	LC_EQ_STR(lc_strerror(LC_EINVAL), "invalid argument");
	LC_CONTAINS(lc_strerror(LC_EBEFORE1972), "1972");
	LC_EQ_INT(lc__error(&e, LC_EPARSE, "f.list", 12, "field %d bad", 2), LC_EPARSE);
	lc_error_format(&e, buf, sizeof(buf));
	LC_EQ_STR(buf, "f.list:12: field 2 bad");
	LC_EQ_INT(lc_clock_from_name("UTC-SLS", &id), 0);
	LC_EQ_INT(id, LC_CLOCK_UTC_SLS);
	LC_EQ_INT(lc_clock_from_name("nope", &id), LC_EINVAL);
	LC_EQ_STR(lc_clock_name(LC_CLOCK_MONOTONIC_RAW), "monotonic_raw");
}

/* Under `make check` as root the suite must run without CAP_SYS_TIME. */
static void test_no_sys_time(void)
{
	const char *want = getenv("LC_EXPECT_NO_SYS_TIME");
	FILE *f;
	char line[256];
	unsigned long long eff = 0;

	if (want == NULL || strcmp(want, "1") != 0) {
		LC_SKIP("test_no_sys_time", "not run by make check as root");
		return;
	}
	f = fopen("/proc/self/status", "r");
	LC_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	LC_EQ_U64((eff >> 25) & 1, 0); /* CAP_SYS_TIME is bit 25 */
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_floor_division, "floor division and modulo on 100k random pairs");
	LC_RUN(test_timespec_round_trip, "ns <-> timespec round trips; saturating add");
	LC_RUN(test_error_names, "error names, error formatting, clock names");
	LC_RUN(test_no_sys_time, "make check as root runs without CAP_SYS_TIME");
	return lc_test_done();
}
