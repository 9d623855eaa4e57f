/*
 * test_follow_host.c - following the host (DESIGN.md section 7), one case per
 * row of its table, on a simulated host CLOCK_REALTIME injected through
 * lc_tk_config.host_realtime (no kernel facts, no step signal: the threshold
 * rule). The host's TAI offset is 0 throughout (as on this machine): TAI
 * must still come from the table.
 *
 * Then the kernel rule (src/hostfollow.h) on a simulated Linux host given
 * through lc_tk_config.host_sample: its kernel's leap handling (armed or
 * not, applied from the tick 1-10 ms late, adjtimex showing it from the
 * exact second or not, an armed leap dropped by a step), its errors (slow
 * drift, steps) and its clock-was-set count, in every combination.
 */
#include "lc_test.h"
#include "lc_testdata.h"

#include "leapclock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
		 * (lc_smear_window_dir: which of the 86400 or 86401 seconds the
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

/* The same host through host_sample, with a kernel that knows nothing of
 * the leap (synced to a smearing server, which announces none): TIME_OK,
 * TAI offset 37, no clock-was-set ever. */
static int host_sample_ok(void *arg, struct lc_host_sample *out)
{
	out->realtime_ns = host_rt(arg);
	out->tai = 37;
	out->state = LC_TIME_OK;
	out->status = LC_STA_PLL | LC_STA_NANO;
	out->clock_was_set = 0;
	out->flags = LC_HOST_SAMPLE_KERNEL | LC_HOST_SAMPLE_CWS;
	return 0;
}

static lc_timekeeper *make_k(struct host *h, uint64_t ppb,
                             const struct lc_smear_policy *host_smear,
                             int kernel)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;

	lc_counter_new_sim(&h->c, 1000000000u, (int64_t)ppb);
	lc_tk_config_init(&cfg);
	cfg.follow_host = 1;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	if (kernel)
		cfg.host_sample = host_sample_ok;
	else
		cfg.host_realtime = host_rt;
	cfg.host_arg = h;
	cfg.host_smear = host_smear;
	lc_tk_new(&tk, h->c, &cfg);
	return tk;
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
/* `kernel`: through host_sample (the kernel rule), where an undeclared
 * smear is followed up to 10 ms (as drift) and then held and reported. */
static void check_smear(int declared, int kernel)
{
	struct lc_smear_policy google;
	struct host h = { 0 };
	lc_timekeeper *tk;
	struct lc_tk_host st;
	int64_t worst = 0, max_off = 0, e_end;
	int saw_off = 0;

	LC_EQ_INT(lc_smear_preset("google", 0, &google, NULL), 0);
	h.kind = H_SMEAR;
	lc_smear_window_dir(&google, 1, &h.win_s, &h.win_e);
	LC_EQ_I64(h.win_s, -43200 * NS); /* noon before */
	h.r0 = (W2017 - 50000) * NS;
	h.leap_t = 50000 * NS;
	tk = make_k(&h, 0, declared ? &google : NULL, kernel);
	for (int64_t t = 0; t < 100000 * NS; t += 10 * NS + 7) {
		int64_t e;

		at(&h, tk, t);
		/* on TAI, which is continuous: 10 ms off UTC is 1 s off
		 * REALTIME during the 10 ms the two leaps are apart */
		e = lc_now_ns(tk, LC_CLOCK_TAI) - (h.r0 + t + 36 * NS);
		if (e < 0)
			e = -e;
		if (e > worst)
			worst = e;
		if (!kernel || declared)
			LC_LE_I64(lc_now_ns(tk, LC_CLOCK_REALTIME) - exact_rt(&h, t) < 0
			                  ? exact_rt(&h, t) - lc_now_ns(tk, LC_CLOCK_REALTIME)
			                  : lc_now_ns(tk, LC_CLOCK_REALTIME) - exact_rt(&h, t),
			          declared ? 1 * US : 0);
		lc_tk_host_status(tk, &st);
		if (declared)
			LC_TRUE(st.state == LC_HOST_AGREES ||
			        st.state == LC_HOST_SMEARED);
		else if (st.offset_ns > max_off || -st.offset_ns > max_off)
			max_off = st.offset_ns < 0 ? -st.offset_ns : st.offset_ns;
		if (st.state == LC_HOST_LEAP_OFF)
			saw_off = 1;
		if (t > 0) /* the first sample learns, by the threshold rule */
			LC_EQ_INT(st.kernel_rule, kernel);
		/* TAI is never smeared */
		LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_MONOTONIC),
		          (W2017 - 50000 + 36) * NS);
	}
	LC_EQ_U64(st.steps, 0);
	/* declared: within 1 us of true UTC (rounding of the two smear
	 * formulas only); undeclared: exact, and the host seen up to 0.5 s
	 * off at the leap */
	/* kernel rule, undeclared: the 10 ms followed before the hold, and a
	 * little overshoot as the smear ends (the host still moving) */
	LC_LE_I64(worst, declared ? 1 * US : kernel ? 12 * MS : 0);
	if (!declared) {
		LC_GT_I64(max_off, 490 * MS);
		LC_TRUE(saw_off);
	}
	/* and back on true UTC, in agreement, after the smear */
	e_end = lc_now_ns(tk, LC_CLOCK_REALTIME) -
	        exact_rt(&h, lc_sim_true_ns(h.c));
	LC_LE_I64(e_end < 0 ? -e_end : e_end, 5 * US);
	LC_EQ_INT(st.state, LC_HOST_AGREES);
	LC_EQ_INT(st.leaps_behind, 0);
	destroy(&h, tk);
}

static void test_host_smears(void)
{
	check_smear(1, 0);
	LC_BAIL();
	check_smear(0, 0);
	LC_BAIL();
	check_smear(1, 1);
	LC_BAIL();
	check_smear(0, 1);
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

/* ---- the kernel rule: a simulated Linux host through host_sample -------- */

/* A leap appended to tzdata 2026f's table at the end of 2030-06-30:
 * inserted (TAI-UTC 37 -> 38) or deleted (37 -> 36); W30 is the 00:00:00
 * after it. */
#define W30 INT64_C(1909094400)

enum kh_err { KE_NONE, KE_DRIFT, KE_STEP, KE_STEP_IN_LEAP };
enum kh_kernel { KK_LATE, KK_LATE_OLD_READ, KK_NEVER };

/* The host. True time t (ns) starts at W30 - 100 s; `edge_t` is the true
 * instant of the leap (insertion: 23:59:60 begins; deletion: the deleted
 * 23:59:59 would begin). The host's REALTIME without its leap is
 *     base(t) = W30 - 100 s + t + err(t) + steps(t)
 * and its kernel (as Linux, linux-leap-semantics.md 2) applies an armed
 * leap from the first tick `late` after base reaches the leap's second,
 * unless a step came before that tick (the step clears the kernel's NTP
 * state: the leap is dropped while STA_INS/DEL still read back); its TAI
 * offset then moves by dir, and its clock-was-set count moves `cws_delay`
 * later (clock_was_set_delayed). With `override` adjtimex shows the leap
 * from the exact second (Linux >= 4.2). A leap the kernel did not apply is
 * stepped in by the host's NTP at `fix_t` (one more clock-was-set). */
struct kh {
	lc_counter *c;
	int dir;
	int64_t edge_t;
	int64_t kt[4], kv[4]; /* err(t): piecewise linear through the knots */
	int nk;
	int64_t st_t[4], st_v[4]; /* steps(t) */
	int ns;
	int armed, override, nocws;
	int64_t late, cws_delay, fix_t;
	int64_t st_sig; /* a step's clock-was-set this long after it */
	int32_t tai0;
};

#define KH_R0 ((W30 - 100) * NS)

static int64_t kh_err(const struct kh *h, int64_t t)
{
	if (h->nk == 0 || t <= h->kt[0])
		return h->nk ? h->kv[0] : 0;
	for (int i = 1; i < h->nk; i++)
		if (t < h->kt[i])
			return h->kv[i - 1] +
			       (int64_t)((__int128)(h->kv[i] - h->kv[i - 1]) *
			                 (t - h->kt[i - 1]) /
			                 (h->kt[i] - h->kt[i - 1]));
	return h->kv[h->nk - 1];
}

/* The host's error against true UTC, steps included, its leap aside. */
static int64_t kh_herr(const struct kh *h, int64_t t)
{
	int64_t e = kh_err(h, t);

	for (int i = 0; i < h->ns; i++)
		if (t >= h->st_t[i])
			e += h->st_v[i];
	return e;
}

static int64_t kh_base(const struct kh *h, int64_t t)
{
	return KH_R0 + t + kh_herr(h, t);
}

/* The host's own edge: base reaches the leap's second (searched near the
 * true leap, where base increases). */
static int64_t kh_hedge(const struct kh *h)
{
	int64_t want = (h->dir > 0 ? W30 : W30 - 1) * NS;
	int64_t lo = h->edge_t - 1500 * MS, hi = h->edge_t + 1500 * MS;

	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (kh_base(h, mid) >= want)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static int64_t kh_tick(const struct kh *h)
{
	return kh_hedge(h) + h->late;
}

static int kh_dropped(const struct kh *h)
{
	for (int i = 0; i < h->ns; i++)
		if (h->st_t[i] < kh_tick(h))
			return 1;
	return 0;
}

static int kh_kernel_applies(const struct kh *h)
{
	return h->armed && !kh_dropped(h);
}

static int kh_sample(void *arg, struct lc_host_sample *out)
{
	const struct kh *h = arg;
	int64_t t = lc_sim_true_ns(h->c);
	int64_t base = kh_base(h, t), hedge = kh_hedge(h);
	int applies = kh_kernel_applies(h);
	int applied = applies && t >= kh_tick(h);
	int shown = applied || (applies && h->override && t >= hedge);
	int fixed = !applies && t >= h->fix_t;
	uint64_t cws = 0;

	for (int i = 0; i < h->ns; i++)
		if (t >= h->st_t[i] + h->st_sig)
			cws++;
	if (applied && t >= kh_tick(h) + h->cws_delay)
		cws++;
	if (fixed)
		cws++;
	out->realtime_ns = base - (shown || fixed ? h->dir * NS : 0);
	out->tai = h->tai0 + (shown ? h->dir : 0);
	out->clock_was_set = cws;
	out->flags = LC_HOST_SAMPLE_KERNEL | (h->nocws ? 0 : LC_HOST_SAMPLE_CWS);
	if (!h->armed) {
		/* this machine: no NTP leap handling, unsynchronised */
		out->state = LC_TIME_ERROR;
		out->status = LC_STA_UNSYNC;
	} else {
		int st = h->dir > 0 ? LC_STA_INS : LC_STA_DEL;

		out->status = LC_STA_PLL | LC_STA_NANO | st;
		if (kh_dropped(h) && t >= h->st_t[0])
			out->status |= LC_STA_UNSYNC; /* the step cleared NTP */
		if (!shown)
			out->state = h->dir > 0 ? LC_TIME_INS : LC_TIME_DEL;
		else if (h->dir > 0 && t < hedge + NS)
			out->state = LC_TIME_OOP;
		else
			out->state = LC_TIME_WAIT;
		if (out->status & LC_STA_UNSYNC)
			out->state = LC_TIME_ERROR;
	}
	if (h->nocws) {
		/* no kernel facts either: host_realtime's view */
		out->flags = 0;
	}
	return 0;
}

/* What went wrong in a run: counted, the first one described. */
struct verdict {
	int bad;
	char first[256];
	int saw_60;     /* 23:59:60 shown */
	int saw_off;    /* LC_HOST_LEAP_OFF reported */
	uint64_t steps; /* host steps followed */
	int64_t end_err;
	int end_state, end_behind;
	long checks, updates; /* how much was checked */
	int64_t worst_tai;    /* largest |TAI - host timeline| checked */
};

#define BAD(v, ...)                                                      \
	do {                                                             \
		if ((v)->bad++ == 0)                                     \
			snprintf((v)->first, sizeof((v)->first),         \
			         __VA_ARGS__);                           \
	} while (0)

/* The library's clocks at true time t against the model:
 *  - exact leap: TAI - UTC label is 37 s before the library's own leap
 *    boundary, 37 + dir after it (the label of 23:59:60 being 23:59:59 +
 *    1e9..2e9 ns), and TAI - REALTIME the same with REALTIME's repeated
 *    23:59:59: no 00:00:00.x during 23:59:60, no 23:59:59 after a
 *    deletion;
 *  - TAI continuous and on the host's timeline: TAI = true TAI + the
 *    host's error (its leap aside), within `tol`, unless a host step has
 *    not been sampled yet. */
static void kh_check(struct verdict *v, lc_timekeeper *tk, const struct kh *h,
                     int64_t t, int64_t tol, int check_tai)
{
	struct timespec u;
	int64_t tai = lc_now_ns(tk, LC_CLOCK_TAI);
	int64_t rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
	int64_t label, want, e;

	lc_gettime(tk, LC_CLOCK_UTC, &u);
	label = (int64_t)u.tv_sec * NS + u.tv_nsec;
	if (u.tv_nsec >= NS)
		v->saw_60 = 1;
	want = (u.tv_sec >= W30 ? 37 + h->dir : 37) * NS;
	if (tai - label != want)
		BAD(v, "t=%.6f s: TAI - UTC label %lld ns, want %lld (UTC %lld.%09ld)",
		    (double)(t - h->edge_t) / 1e9, (long long)(tai - label),
		    (long long)want, (long long)u.tv_sec, u.tv_nsec);
	if (u.tv_nsec >= NS)
		want = (37 + h->dir) * NS; /* REALTIME repeats 23:59:59 */
	if (tai - rt != want)
		BAD(v, "t=%.6f s: TAI - REALTIME %lld ns, want %lld",
		    (double)(t - h->edge_t) / 1e9, (long long)(tai - rt),
		    (long long)want);
	e = tai - (KH_R0 + t + 37 * NS + kh_herr(h, t));
	v->checks++;
	if (check_tai && (e > v->worst_tai || -e > v->worst_tai))
		v->worst_tai = e < 0 ? -e : e;
	if (check_tai && (e > tol || e < -tol))
		BAD(v, "t=%.6f s: TAI off the host's timeline by %lld ns",
		    (double)(t - h->edge_t) / 1e9, (long long)e);
}

/* Runs one host from 100 s before the leap to 200 s after it: updates
 * every 200..300 ms, and every 1 ms (at a random phase) from 30 ms before
 * to 30 ms after the leap and after its tick, reading every clock at every
 * ms in the 2 s around the leap. */
static void kh_run(struct kh *h, struct verdict *v)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;
	lc_leaptable *tab = lc_test_table_2030(h->dir);
	struct lc_tk_host st;
	int64_t t, next_up, last_step_seen = -1, end = h->edge_t + 200 * NS;
	int64_t tick = kh_tick(h);

	memset(v, 0, sizeof(*v));
	if (tab == NULL) {
		BAD(v, "no table");
		return;
	}
	lc_counter_new_sim(&h->c, 1000000000u, 0);
	lc_tk_config_init(&cfg);
	cfg.table = tab;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.follow_host = 1;
	cfg.host_sample = kh_sample;
	cfg.host_arg = h;
	lc_tk_new(&tk, h->c, &cfg);
	next_up = 0;
	for (t = 0; t <= end;) {
		int dense = (t > h->edge_t - 30 * MS && t < h->edge_t + 30 * MS) ||
		            (t > tick - 30 * MS && t < tick + 30 * MS);
		int near = t > h->edge_t - NS && t < h->edge_t + NS;
		int pending = 0;

		lc_sim_set_true_ns(h->c, t);
		if (t >= next_up) {
			lc_update(tk);
			v->updates++;
			lc_tk_host_status(tk, &st);
			if (st.state == LC_HOST_LEAP_OFF)
				v->saw_off = 1;
			/* every sample after the first by the kernel rule
			 * (our own leap is no clock setting of ours) */
			if (t > 0 && st.kernel_rule != !h->nocws)
				BAD(v, "t=%.6f s: kernel_rule %d",
				    (double)(t - h->edge_t) / 1e9, st.kernel_rule);
			last_step_seen = t;
			next_up = t + (dense ? MS : lc_rand_range(200 * MS, 300 * MS));
		}
		/* a host step (or the NTP's fix) not sampled yet: the library
		 * is still where it was */
		for (int i = 0; i < h->ns; i++)
			if (h->st_t[i] <= t &&
			    h->st_t[i] + h->st_sig > last_step_seen)
				pending = 1;
		kh_check(v, tk, h, t, 300 * US, !pending);
		if (near || dense)
			t += MS + (near ? 0 : lc_rand_range(0, 100) * US);
		else
			t = next_up < t + NS ? next_up : t + NS;
	}
	lc_sim_set_true_ns(h->c, end);
	lc_update(tk);
	lc_tk_host_status(tk, &st);
	v->steps = st.steps;
	v->end_state = st.state;
	v->end_behind = st.leaps_behind;
	/* true UTC: REALTIME against the exact clock (the host is back on it) */
	v->end_err = lc_now_ns(tk, LC_CLOCK_REALTIME) -
	             (KH_R0 + end - h->dir * NS);
	lc_tk_free(tk);
	lc_counter_free(h->c);
	lc_leaptable_free(tab);
}

/* One host of the matrix. `size` is the error at the leap (+-1.5 ms, or
 * 300 ms): from a drift over the last 60 s, or a step 1.7 s before it (or
 * 0.4 s into the leap second, KE_STEP_IN_LEAP); the host's NTP takes it
 * away again after the leap (a slew 20..30 s after, or for 300 ms a step
 * back at 40 s). */
static void kh_make(struct kh *h, int dir, int err, int64_t size, int kernel)
{
	memset(h, 0, sizeof(*h));
	h->dir = dir;
	h->edge_t = dir > 0 ? 100 * NS : 99 * NS;
	h->armed = kernel != KK_NEVER;
	h->override = kernel == KK_LATE;
	h->late = lc_rand_range(1, 10) * MS + lc_rand_range(0, 999) * US;
	h->cws_delay = lc_rand_range(50, 500) * US;
	h->fix_t = h->edge_t + 50 * NS;
	h->tai0 = h->armed ? 37 : 0;
	if (err == KE_DRIFT) {
		h->nk = 4;
		h->kt[0] = h->edge_t - 60 * NS, h->kv[0] = 0;
		h->kt[1] = h->edge_t, h->kv[1] = size;
		h->kt[2] = h->edge_t + 20 * NS, h->kv[2] = size;
		h->kt[3] = h->edge_t + 30 * NS, h->kv[3] = 0;
	} else if (err == KE_STEP || err == KE_STEP_IN_LEAP) {
		h->ns = 1;
		h->st_t[0] = h->edge_t + (err == KE_STEP ? -1700 * MS : 400 * MS);
		h->st_v[0] = size;
		if (size > 100 * MS || size < -100 * MS) {
			h->ns = 2;
			h->st_t[1] = h->edge_t + 40 * NS;
			h->st_v[1] = -size;
		} else {
			h->nk = 2;
			h->kt[0] = h->edge_t + 20 * NS, h->kv[0] = 0;
			h->kt[1] = h->edge_t + 30 * NS, h->kv[1] = -size;
		}
	}
}

static const char *const KE_NAME[] = { "none", "drift", "step -1.7 s",
	                               "step +0.4 s" };
static const char *const KK_NAME[] = { "armed, adjtimex exact",
	                               "armed, adjtimex late (pre-4.2)",
	                               "not armed" };

/* Every combination: the leap exact at the library's own boundary,
 * 23:59:60 shown, TAI continuous on the host's timeline, every host step
 * followed, none made up, the host's late or missing leap never followed,
 * and at the end the library within 5 us of true UTC, in agreement. */
static void test_kernel_rule_matrix(void)
{
	static const struct { int err; int64_t size; int late_sig; } E[] = {
		{ KE_NONE, 0, 0 },
		{ KE_DRIFT, 1500 * US, 0 }, { KE_DRIFT, -1500 * US, 0 },
		{ KE_STEP, 1500 * US, 0 }, { KE_STEP, -1500 * US, 0 },
		{ KE_STEP, 300 * MS, 0 }, { KE_STEP, -300 * MS, 0 },
		{ KE_STEP_IN_LEAP, 300 * MS, 0 },
		/* the step's signal 0.1..5 ms after it (issue 28 item 2) */
		{ KE_STEP, 1500 * US, 1 }, { KE_STEP, -1500 * US, 1 },
		{ KE_STEP, 300 * MS, 1 },
	};
	int runs = 0;

	for (int dir = 1; dir >= -1; dir -= 2)
		for (size_t e = 0; e < sizeof(E) / sizeof(E[0]); e++)
			for (int k = KK_LATE; k <= KK_NEVER; k++) {
				struct kh h;
				struct verdict v;
				uint64_t want_steps;

				kh_make(&h, dir, E[e].err, E[e].size, k);
				if (E[e].late_sig)
					h.st_sig = lc_rand_range(100, 5000) * US;
				kh_run(&h, &v);
				want_steps = (uint64_t)h.ns +
				             (kh_kernel_applies(&h) ? 0 : 1);
				if (v.bad || v.steps != want_steps ||
				    (dir > 0 && !v.saw_60) ||
				    (!kh_kernel_applies(&h) && !v.saw_off) ||
				    v.end_err > 5 * US || v.end_err < -5 * US ||
				    v.end_state != LC_HOST_AGREES || v.end_behind != 0)
					printf("  %s, %s %+.4f ms, %s (late %.3f ms): "
					       "%d bad (%s), steps %llu/%llu, 23:59:60 %d, "
					       "off %d, end %lld ns state %d behind %d\n",
					       dir > 0 ? "insertion" : "deletion",
					       KE_NAME[E[e].err], (double)E[e].size / 1e6,
					       KK_NAME[k], (double)h.late / 1e6, v.bad,
					       v.first, (unsigned long long)v.steps,
					       (unsigned long long)want_steps, v.saw_60,
					       v.saw_off, (long long)v.end_err,
					       v.end_state, v.end_behind);
				if (getenv("LC_VERBOSE") != NULL)
					printf("  # %s, %s %+.4f ms, %s: %ld updates, "
					       "%ld checks, worst TAI %lld ns, end %lld ns\n",
					       dir > 0 ? "ins" : "del", KE_NAME[E[e].err],
					       (double)E[e].size / 1e6, KK_NAME[k],
					       v.updates, v.checks, (long long)v.worst_tai,
					       (long long)v.end_err);
				LC_GT_I64(v.updates, 1000);
				LC_EQ_INT(v.bad, 0);
				LC_EQ_U64(v.steps, want_steps);
				if (dir > 0)
					LC_TRUE(v.saw_60);
				if (!kh_kernel_applies(&h))
					LC_TRUE(v.saw_off);
				LC_LE_I64(v.end_err, 5 * US);
				LC_GE_I64(v.end_err, -5 * US);
				LC_EQ_INT(v.end_state, LC_HOST_AGREES);
				LC_EQ_INT(v.end_behind, 0);
				runs++;
			}
	LC_EQ_INT(runs, 2 * 11 * 3);
}

/* The same hosts seen through host_realtime alone (no kernel facts, no
 * step signal): the threshold rule, which is what lc_update did before the
 * kernel rule. A host 1.5 ms off at the leap (a 1.5 ms step 1.7 s before
 * it, which also dropped the kernel's armed leap; or a drift with the
 * kernel applying it late) is taken for a host step at the leap: 00:00:00.x
 * during 23:59:60 and TAI 1.0015 s off, the 2015 failure. This test
 * records that the fallback still has it (so every case of
 * test_kernel_rule_matrix with a 1.5 ms error fails under the old logic),
 * and that the kernel rule is what removes it. */
static void test_threshold_rule_fails_2015(void)
{
	static const int ERR[] = { KE_STEP, KE_DRIFT };

	for (size_t i = 0; i < 2; i++) {
		struct kh h;
		struct verdict v;

		kh_make(&h, 1, ERR[i], 1500 * US, KK_LATE);
		h.nocws = 1;
		kh_run(&h, &v);
		LC_GT_I64(v.bad, 0);
		kh_make(&h, 1, ERR[i], 1500 * US, KK_LATE);
		kh_run(&h, &v);
		LC_EQ_INT(v.bad, 0);
	}
}

/* This process's timerfds (anonymous inodes "[timerfd]" in /proc/self/fd). */
static int count_timerfds(void)
{
	char path[64], link[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		n += strcmp(link, "anon_inode:[timerfd]") == 0;
	}
	return n;
}

/* In a child (the step timerfd is process-wide, made once): a timekeeper
 * on this host's counter, following it or not; 0 if it opened no timerfd,
 * 1 if it did, 2 on error. *err_ns: its REALTIME just after creation minus
 * the middle of two clock_gettime reads around it, the best of 5. */
static int start_in_child(int follow, int64_t *err_ns)
{
	int p[2], st = 0;
	pid_t pid;

	if (pipe(p) != 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		struct lc_tk_config cfg;
		lc_counter *c = NULL;
		lc_timekeeper *tk = NULL;
		int64_t best = INT64_MAX;
		int before = count_timerfds(), opened;

		if (lc_counter_new_system(&c, CLOCK_MONOTONIC) < 0)
			_exit(2);
		lc_tk_config_init(&cfg);
		cfg.leap_source = LC_LEAP_FROM_TABLE;
		cfg.follow_host = follow;
		for (int i = 0; i < 5; i++) {
			struct timespec a, b;
			int64_t rt, e;

			if (lc_tk_new(&tk, c, &cfg) < 0)
				_exit(2);
			clock_gettime(CLOCK_REALTIME, &a);
			rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
			clock_gettime(CLOCK_REALTIME, &b);
			e = rt - ((int64_t)a.tv_sec * NS + a.tv_nsec +
			          (int64_t)b.tv_sec * NS + b.tv_nsec) / 2;
			if ((e < 0 ? -e : e) < (best < 0 ? -best : best))
				best = e;
			lc_tk_free(tk);
		}
		opened = count_timerfds() > before;
		if (write(p[1], &best, sizeof(best)) != sizeof(best))
			_exit(2);
		_exit(opened);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], err_ns, sizeof(*err_ns)) !=
	                   (ssize_t)sizeof(*err_ns))
		st = 2 << 8;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

/* A timekeeper that does not follow the host starts its REALTIME at the
 * host's clock_gettime reading (ns) and touches nothing else of the host:
 * no process-wide step timerfd, no adjtimex (whose time has us resolution
 * without STA_NANO). Before, it sampled the kernel as a follower does and
 * the preload shim passed a host_realtime callback to avoid that; the
 * timerfd check fails without the change (one timerfd opened). A follower
 * opens the timerfd (the count sees it). */
static void test_start_without_following(void)
{
	int64_t e_no = 0, e_yes = 0;

	LC_EQ_INT(start_in_child(0, &e_no), 0);
	LC_EQ_INT(start_in_child(1, &e_yes), 1);
	printf("    REALTIME at the start minus clock_gettime's: %" PRId64
	       " ns not following, %" PRId64 " ns following (adjtimex)\n",
	       e_no, e_yes);
	LC_LE_I64(e_no < 0 ? -e_no : e_no, 2 * US);
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
	LC_RUN(test_host_smears, "host on Google's smear: declared, removed (true UTC); undeclared, reported, not followed (kernel rule: beyond 10 ms); both rules");
	LC_RUN(test_host_stepped, "host stepped: followed as clock-was-set, TAI with it");
	LC_RUN(test_host_rate_followed, "host rate followed by steering (counter 20 ppm fast), no step");
	LC_RUN(test_kernel_rule_matrix, "kernel rule: +-1.5 ms (drift, step) and +-300 ms steps at the leap, kernel late/old read path/never, insertion and deletion: exact leap, TAI continuous, steps followed");
	LC_RUN(test_threshold_rule_fails_2015, "threshold rule (no step signal) on a host 1.5 ms off at the leap: the 2015 failure; the kernel rule on the same host: none");
	LC_RUN(test_start_without_following, "a timekeeper not following the host starts from clock_gettime(REALTIME), opens no timerfd (a follower does)");
	LC_RUN(test_default, "lc_default follows this host with TAI from the table");
	return lc_test_done();
}
