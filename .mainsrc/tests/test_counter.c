/*
 * test_counter.c - the counters (sim, system, tsc) and the cycles -> ns
 * conversion (mult/shift with its error feedback, the 128-bit path for
 * long intervals between updates).
 */
#include "lc_test.h"

#include "leapclock.h"

#define NS INT64_C(1000000000)

static void test_sim_formula(void)
{
	lc_counter *c;

	/* 19.2 MHz running 50 ppm fast: after one true second it has counted
	 * 19.2e6 * 1.00005 = 19,200,960 cycles. */
	LC_EQ_INT(lc_counter_new_sim(&c, 19200000u, 50000), 0);
	LC_EQ_STR(lc_counter_name(c), "sim");
	LC_EQ_INT(lc_counter_kind(c), LC_COUNTER_SIM);
	LC_EQ_U64(lc_counter_freq(c), 19200000u);
	LC_EQ_U64(lc_counter_read(c), 0);
	lc_sim_advance(c, NS);
	LC_EQ_U64(lc_counter_read(c), 19200960u);
	/* 1 ns more is 0.0192 cycles: still 19,200,960 (floor). */
	lc_sim_advance(c, 1);
	LC_EQ_U64(lc_counter_read(c), 19200960u);
	LC_EQ_I64(lc_sim_true_ns(c), NS + 1);
	/* never backwards */
	lc_sim_set_true_ns(c, 5);
	LC_EQ_I64(lc_sim_true_ns(c), NS + 1);
	lc_sim_advance(c, -7);
	LC_EQ_I64(lc_sim_true_ns(c), NS + 1);
	/* 10 true days at -50 ppm on 1 GHz: 864000e9 * (1 - 5e-5) cycles */
	lc_counter_free(c);
	LC_EQ_INT(lc_counter_new_sim(&c, 1000000000u, -50000), 0);
	lc_sim_set_true_ns(c, 864000 * NS);
	LC_EQ_U64(lc_counter_read(c), UINT64_C(864000) * 1000000000u -
	                                      UINT64_C(43200000000));
	lc_counter_free(c);
	LC_EQ_INT(lc_counter_new_sim(&c, 0, 0), LC_EINVAL);
	LC_EQ_INT(lc_counter_new_sim(&c, 1000, -NS), LC_EINVAL);
}

/* lc_sim_true_ns_at(): the least true time at which the counter shows at
 * least `cycles`, checked on both sides against the forward formula. */
static void test_sim_inverse(void)
{
	for (int i = 0; i < 2000; i++) {
		uint64_t f = (uint64_t)lc_rand_range(1, INT64_C(5000000000));
		int64_t ppb = lc_rand_range(-200000, 200000);
		uint64_t cyc = (uint64_t)lc_rand_range(1, INT64_C(1) << 45);
		lc_counter *a, *b;
		int64_t t;

		LC_EQ_INT(lc_counter_new_sim(&a, f, ppb), 0);
		LC_EQ_INT(lc_counter_new_sim(&b, f, ppb), 0);
		t = lc_sim_true_ns_at(a, cyc);
		lc_sim_set_true_ns(a, t);
		lc_sim_set_true_ns(b, t - 1);
		LC_TRUE(lc_counter_read(a) >= cyc);
		LC_TRUE(lc_counter_read(b) < cyc);
		lc_counter_free(a);
		lc_counter_free(b);
	}
}

static int64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void test_system(void)
{
	lc_counter *c;
	struct timespec ts;
	uint64_t a, b;

	LC_EQ_INT(lc_counter_new_system(&c, CLOCK_MONOTONIC), 0);
	LC_EQ_STR(lc_counter_name(c), "system");
	LC_EQ_U64(lc_counter_freq(c), 1000000000u);
	a = lc_counter_read(c);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	b = lc_counter_read(c);
	LC_TRUE(a <= b);
	LC_TRUE((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >= a);
	LC_TRUE((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec <= b);
	lc_counter_free(c);
}

static void test_tsc(void)
{
	struct lc_error err;
	lc_counter *c;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = lc_counter_new_tsc(&c, &err);
	if (rc == LC_EUNSUPPORTED_COUNTER) {
		/* The refusal names what is missing. */
		LC_TRUE(strstr(err.msg, "TSC") != NULL ||
		        strstr(err.msg, "x86-64") != NULL);
		printf("  (tsc refused here: %s)\n", err.msg);
		LC_EQ_INT(lc_counter_new_best(&c), 0);
		LC_EQ_STR(lc_counter_name(c), "system");
		lc_counter_free(c);
		return;
	}
	LC_EQ_INT(rc, 0);
	LC_EQ_STR(lc_counter_name(c), "tsc");
	{
		/* The calibrated rate against CLOCK_MONOTONIC_RAW over 50 ms:
		 * within 200 ppm (a VM's scheduling noise included). */
		int64_t n0 = mono_raw_ns(), n1;
		uint64_t t0 = lc_counter_read(c), t1;
		double ratio;

		do
			n1 = mono_raw_ns();
		while (n1 - n0 < 50000000);
		t1 = lc_counter_read(c);
		ratio = (double)(t1 - t0) * 1e9 / (double)lc_counter_freq(c) /
		        (double)(n1 - n0);
		LC_EQ_DBL(ratio, 1.0, 200e-6);
	}
	lc_counter_free(c);
	LC_EQ_INT(lc_counter_new_best(&c), 0);
	LC_EQ_STR(lc_counter_name(c), "tsc");
	lc_counter_free(c);
}

/* The nominal-rate clocks on an awkward frequency follow cycles * 1e9 / f
 * within the mult rounding bound, with updates every second and with no
 * update for two hours (beyond the 600 s the 64-bit product covers). */
static void check_conversion(uint64_t f, int64_t update_every, int64_t total)
{
	struct lc_tk_config cfg;
	lc_counter *c;
	lc_timekeeper *tk;
	int64_t t = 0, worst = 0;

	lc_counter_new_sim(&c, f, 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = INT64_C(1700000000) * NS;
	lc_tk_new(&tk, c, &cfg);
	while (t < total) {
		t += update_every;
		lc_sim_set_true_ns(c, t);
		if (update_every < 600 * NS)
			lc_update(tk);
		{
			uint64_t cyc = lc_counter_read(c);
			int64_t ideal = (int64_t)((unsigned __int128)cyc * 1000000000u / f);
			int64_t raw = lc_now_ns(tk, LC_CLOCK_MONOTONIC_RAW);
			int64_t mono = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
			int64_t e1 = raw - ideal, e2 = mono - ideal;

			if (e1 < 0)
				e1 = -e1;
			if (e2 < 0)
				e2 = -e2;
			if (e1 > worst)
				worst = e1;
			if (e2 > worst)
				worst = e2;
		}
	}
	/* One mult unit is at most 2^-20 ns per cycle here, i.e. under one
	 * ppm: the feedback keeps the error within one interval's worth. */
	LC_LE_I64(worst, update_every / 1000000 + 2);
	lc_tk_free(tk);
	lc_counter_free(c);
}

static void test_conversion(void)
{
	check_conversion(1000000000u, NS, 1000 * NS);
	LC_BAIL();
	check_conversion(3000000007u, NS, 1000 * NS);
	LC_BAIL();
	check_conversion(19200000u, NS / 7, 100 * NS);
	LC_BAIL();
	check_conversion(32768u, NS, 1000 * NS);
	LC_BAIL();
	/* no update at all for 2 h: the 128-bit path */
	check_conversion(3000000007u, 7200 * NS, 7200 * NS);
	LC_BAIL();
	check_conversion(1000000000u, 36000 * NS, 36000 * NS);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_sim_formula, "sim counter: floor(t * f * (1e9+ppb) / 1e18), never backwards");
	LC_RUN(test_sim_inverse, "sim counter: lc_sim_true_ns_at is the least true time reaching a count");
	LC_RUN(test_system, "system counter: CLOCK_MONOTONIC as a 1 GHz counter");
	LC_RUN(test_tsc, "tsc: invariant TSC calibrated within 200 ppm, or refused with the reason and best falls back to system");
	LC_RUN(test_conversion, "mult/shift: nominal clocks within the rounding bound at any frequency, and right after hours without an update");
	return lc_test_done();
}
