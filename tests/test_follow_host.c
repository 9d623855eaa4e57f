/*
 * test_follow_host.c - following the host (DESIGN.md section 7), one case per
 * row of its table, on a simulated host CLOCK_REALTIME injected through
 * lc_tk_config.host_realtime. The host's TAI offset is 0 throughout (as on
 * this machine): TAI must still come from the table.
 */
#include "lc_test.h"

#include "leapclock.h"

#define NS INT64_C(1000000000)
#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define W2017 INT64_C(1483228800) /* after 2016-12-31T23:59:60 */
#define D2030 INT64_C(1893456000)

enum host_kind { H_LATE, H_NEVER, H_SMEAR, H_STEP, H_EXACT };

struct host {
	lc_counter *c;
	int kind;
	int64_t r0;     /* POSIX ns at true time 0 */
	int64_t leap_t; /* true ns at which the inserted second begins */
	int64_t late;   /* H_LATE: how late the host applies it */
	int64_t fix_t;  /* H_NEVER: when the host's NTP steps it away */
	int64_t step_t, step;
	int64_t win_s, win_e; /* H_SMEAR: window relative to the leap */
};

/* True POSIX time (what an exact clock shows) at true time t. */
static int64_t exact_rt(const struct host *h, int64_t t)
{
	return h->r0 + t - (t >= h->leap_t ? NS : 0);
}

static int64_t host_rt(void *arg)
{
	const struct host *h = arg;
	int64_t t = lc_sim_true_ns(h->c);

	switch (h->kind) {
	case H_LATE:
		return h->r0 + t - (t >= h->leap_t + h->late ? NS : 0);
	case H_NEVER:
		return h->r0 + t - (t >= h->fix_t ? NS : 0);
	case H_SMEAR: {
		/* Google: linear from noon to noon around the leap, on the
		 * pre-leap timeline r0 + t, over the window the policy gives
		 * (lc_smear_window: which of the 86400 or 86401 seconds the
		 * smear spans is the smear module's definition). */
		int64_t x = t - (h->leap_t + h->win_s);
		int64_t len = h->win_e - h->win_s;
		int64_t off = x <= 0 ? 0
		              : x >= len ? NS
		                         : (int64_t)((__int128)x * NS / len);
		return h->r0 + t - off;
	}
	case H_STEP:
		return h->r0 + t + (t >= h->step_t ? h->step : 0);
	default:
		return exact_rt(h, t);
	}
}

static lc_timekeeper *make(struct host *h, uint64_t ppb,
                           const struct lc_smear_policy *host_smear)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;

	lc_counter_new_sim(&h->c, 1000000000u, (int64_t)ppb);
	lc_tk_config_init(&cfg);
	cfg.follow_host = 1;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.host_realtime = host_rt;
	cfg.host_arg = h;
	cfg.host_smear = host_smear;
	lc_tk_new(&tk, h->c, &cfg);
	return tk;
}

static void destroy(struct host *h, lc_timekeeper *tk)
{
	lc_tk_free(tk);
	lc_counter_free(h->c);
}

static void at(struct host *h, lc_timekeeper *tk, int64_t t)
{
	lc_sim_set_true_ns(h->c, t);
	lc_update(tk);
}

/* Row 1: the host applies the leap 5 ms late (Linux with NTP arming it):
 * ignored, leapclock stays exact, no step followed. */
static void test_host_applies_late(void)
{
	struct host h = { 0 };
	lc_timekeeper *tk;
	struct lc_tk_host st;
	uint64_t seq;
	int saw_off = 0;

	h.kind = H_LATE;
	h.r0 = (W2017 - 1000) * NS;
	h.leap_t = 1000 * NS;
	h.late = 5 * MS;
	tk = make(&h, 0, NULL);
	seq = lc_clock_was_set_seq(tk);
	for (int64_t t = 990 * NS; t < 1010 * NS; t += 500 * US) {
		at(&h, tk, t);
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_REALTIME), exact_rt(&h, t));
		LC_EQ_INT(lc_tk_host_status(tk, &st), 0);
		if (t >= h.leap_t && t < h.leap_t + h.late) {
			LC_EQ_INT(st.state, LC_HOST_LEAP_OFF);
			LC_EQ_I64(st.offset_ns, NS);
			saw_off = 1;
		} else {
			LC_EQ_INT(st.state, LC_HOST_AGREES);
			LC_EQ_I64(st.offset_ns, 0);
		}
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_MONOTONIC),
		          (W2017 - 1000 + 36) * NS);
	}
	LC_TRUE(saw_off);
	LC_EQ_U64(st.steps, 0);
	/* only the leap itself was a clock-was-set */
	LC_EQ_U64(lc_clock_was_set_seq(tk), seq + 1);
	destroy(&h, tk);
}

/* Row 2: the host never applies it: a 1 s difference persists and is
 * reported; leapclock keeps true UTC; once the host's NTP steps it back,
 * they agree again and nothing was followed. */
static void test_host_never_applies(void)
{
	struct host h = { 0 };
	lc_timekeeper *tk;
	struct lc_tk_host st;

	h.kind = H_NEVER;
	h.r0 = (W2017 - 1000) * NS;
	h.leap_t = 1000 * NS;
	h.fix_t = 1900 * NS;
	tk = make(&h, 0, NULL);
	for (int64_t t = 900 * NS; t < 2000 * NS; t += 250 * MS) {
		at(&h, tk, t);
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_REALTIME), exact_rt(&h, t));
		lc_tk_host_status(tk, &st);
		if (t >= h.leap_t && t < h.fix_t) {
			LC_EQ_INT(st.state, LC_HOST_LEAP_OFF);
			LC_EQ_I64(st.offset_ns, NS);
		} else {
			LC_EQ_INT(st.state, LC_HOST_AGREES);
		}
	}
	LC_EQ_U64(st.steps, 0);
	/* TAI from the table (37 s after the leap), not the host's 0 */
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME),
	          37 * NS);
	destroy(&h, tk);
}

/* Row 3: the host follows Google's smear. Declared: leapclock removes it
 * and agrees with the host all along, keeping true UTC; undeclared: it
 * reports the difference and does not follow it. */
static void check_smear(int declared)
{
	struct lc_smear_policy google;
	struct host h = { 0 };
	lc_timekeeper *tk;
	struct lc_tk_host st;
	int64_t worst = 0, max_off = 0;

	LC_EQ_INT(lc_smear_preset("google", 0, &google, NULL), 0);
	h.kind = H_SMEAR;
	lc_smear_window(&google, &h.win_s, &h.win_e);
	LC_EQ_I64(h.win_s, -43200 * NS); /* noon before */
	h.r0 = (W2017 - 50000) * NS;
	h.leap_t = 50000 * NS;
	tk = make(&h, 0, declared ? &google : NULL);
	for (int64_t t = 0; t < 100000 * NS; t += 10 * NS + 7) {
		int64_t e;

		at(&h, tk, t);
		e = lc_now_ns(tk, LC_CLOCK_REALTIME) - exact_rt(&h, t);
		if (e < 0)
			e = -e;
		if (e > worst)
			worst = e;
		lc_tk_host_status(tk, &st);
		if (declared)
			LC_EQ_INT(st.state, LC_HOST_AGREES);
		else if (st.offset_ns > max_off || -st.offset_ns > max_off)
			max_off = st.offset_ns < 0 ? -st.offset_ns : st.offset_ns;
		/* TAI is never smeared */
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_MONOTONIC),
		          (W2017 - 50000 + 36) * NS);
	}
	LC_EQ_U64(st.steps, 0);
	/* declared: within 1 us of true UTC (rounding of the two smear
	 * formulas only); undeclared: exact, and the host seen up to 0.5 s
	 * off at the leap */
	LC_LE_I64(worst, declared ? 1 * US : 0);
	if (!declared)
		LC_GT_I64(max_off, 490 * MS);
	destroy(&h, tk);
}

static void test_host_smears(void)
{
	check_smear(1);
	LC_BAIL();
	check_smear(0);
}

/* Row 4: the host is stepped (far from any leap): followed as a
 * clock-was-set, TAI with it, offset from the table. */
static void test_host_stepped(void)
{
	struct host h = { 0 };
	lc_timekeeper *tk;
	struct lc_tk_host st;
	uint64_t seq;
	int64_t t;

	h.kind = H_STEP;
	h.r0 = D2030 * NS;
	h.step_t = 100 * NS + 123;
	h.step = 3700 * MS;
	tk = make(&h, 0, NULL);
	seq = lc_clock_was_set_seq(tk);
	for (t = 0; t < 200 * NS; t += 100 * MS) {
		at(&h, tk, t);
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_REALTIME), host_rt(&h));
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME),
		          37 * NS);
	}
	lc_tk_host_status(tk, &st);
	LC_EQ_U64(st.steps, 1);
	LC_EQ_U64(lc_clock_was_set_seq(tk), seq + 1);
	/* and back by 0.4 s */
	h.step = 3300 * MS;
	at(&h, tk, t);
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_REALTIME), host_rt(&h));
	lc_tk_host_status(tk, &st);
	LC_EQ_INT(st.state, LC_HOST_STEPPED);
	LC_EQ_U64(st.steps, 2);
	destroy(&h, tk);
}

/* Agreement with a counter 20 ppm fast (a TSC against the host's
 * disciplined clock): the steer keeps leapclock within 50 us of the host
 * without a single step, and MONOTONIC never goes back. */
static void test_host_rate_followed(void)
{
	struct host h = { 0 };
	lc_timekeeper *tk;
	struct lc_tk_host st;
	int64_t prev = INT64_MIN;

	h.kind = H_EXACT;
	h.r0 = D2030 * NS;
	h.leap_t = INT64_MAX;
	tk = make(&h, 20000, NULL);
	for (int64_t t = 0; t < 600 * NS; t += 500 * MS) {
		int64_t m;

		at(&h, tk, t);
		m = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
		LC_GE_I64(m, prev);
		prev = m;
		lc_tk_host_status(tk, &st);
		LC_EQ_INT(st.state, LC_HOST_AGREES);
		if (t > 60 * NS) {
			int64_t d = lc_now_ns(tk, LC_CLOCK_REALTIME) - host_rt(&h);

			LC_LE_I64(d < 0 ? -d : d, 50 * US);
		}
	}
	LC_EQ_U64(st.steps, 0);
	/* the steer found the counter's error: -20 ppm within 2 ppm */
	LC_EQ_DBL((double)st.steer_ppb, -20000.0, 2000.0);
	destroy(&h, tk);
}

/* The process-wide instance: follows this host, TAI from the table. */
static void test_default(void)
{
	lc_timekeeper *tk = lc_default();
	lc_leaptable *t = lc_leaptable_new();
	struct timespec now;
	int32_t tai;
	int64_t rt, d;

	LC_TRUE(tk != NULL);
	LC_TRUE(lc_default() == tk);
	lc_update(tk);
	clock_gettime(CLOCK_REALTIME, &now);
	rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
	d = rt - ((int64_t)now.tv_sec * NS + now.tv_nsec);
	LC_LE_I64(d < 0 ? -d : d, 50 * MS);
	lc_leaptable_load_system(t, NULL);
	LC_EQ_INT(lc_leaptable_tai_utc(t, rt / NS, &tai), 0);
	LC_EQ_I64((lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME) +
	           NS / 2) / NS,
	          tai);
	lc_leaptable_free(t);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_host_applies_late, "host applies the leap 5 ms late: ignored, leapclock exact");
	LC_RUN(test_host_never_applies, "host never applies it: reported off by 1 s, leapclock keeps true UTC, agrees again after the host's fix");
	LC_RUN(test_host_smears, "host on Google's smear: declared, removed (true UTC); undeclared, reported, not followed");
	LC_RUN(test_host_stepped, "host stepped: followed as clock-was-set, TAI with it");
	LC_RUN(test_host_rate_followed, "host rate followed by steering (counter 20 ppm fast), no step");
	LC_RUN(test_default, "lc_default follows this host with TAI from the table");
	return lc_test_done();
}
