/*
 * test_bounds.c - error bounds (leapclock.h, "Error bounds"): on a
 * simulated host whose kernel reports its maxerror, the bounds of every
 * clock contain the simulated truth at millions of random read instants,
 * through a leap of each direction, with and without a declared smear of
 * the host (Google's, noon to noon), at every distance from the writer's
 * updates; a page whose writer stopped widens its bound at the drift rate
 * and turns free-running, and stays true; STA_UNSYNC is free-running;
 * a host that gives no error is unknown; the packing saturates upward.
 * Seeded (--seed N replays a run).
 */
#include "lc_test.h"
#include "lc_testdata.h"

#include "bounds.h"
#include "leapclock.h"
#include "timekeeper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS    INT64_C(1000000000)
#define US    INT64_C(1000)
#define MS    INT64_C(1000000)
#define L2030 INT64_C(1909094400) /* the 00:00:00 after the 2030 leap */

struct host {
	lc_counter *c;
	int dir;        /* the table leap's direction */
	int64_t r0;     /* true POSIX ns at true time 0 (pre-leap) */
	int64_t leap_t; /* true ns at which the leap's second begins */
	const struct lc_smear_policy *smear; /* the host follows it, or NULL */
	const struct lc_smear_policy
	    *sls;            /* the timekeeper's UTC_SLS, or NULL */
	int64_t maxerror_us; /* what the kernel reports */
	int64_t herr;        /* the host's error now, ns (|herr| < maxerror) */
	int unsync;
	int give_error; /* LC_HOST_SAMPLE_ERROR */
};

/* True POSIX ns (REALTIME: the inserted second repeats 23:59:59). */
static int64_t true_rt(const struct host *h, int64_t t)
{
	return lc_test_true_rt(h->r0, h->leap_t, h->dir, t);
}

/* True UTC as (sec, nsec), 23:59:60 as nsec >= 1e9. */
static struct timespec true_utc(const struct host *h, int64_t t)
{
	return lc_test_true_utc(h->r0, h->leap_t, h->dir, t);
}

static int64_t true_tai(const struct host *h, int64_t t)
{
	return h->r0 + t + 37 * NS;
}

static int kh_sample(void *arg, struct lc_host_sample *out)
{
	struct host *h = arg;
	/* The host's clock is herr ahead of true time (behind if
	 * negative), leaps and smear included: its kernel applies the leap
	 * when its own clock reaches it, not at the true instant. */
	int64_t t = lc_sim_true_ns(h->c) + h->herr, pre = h->r0 + t, v;

	if (h->smear != NULL)
		v = pre - lc_smear_offset(h->smear, h->dir, t - h->leap_t);
	else
		v = true_rt(h, t);
	out->realtime_ns = v;
	/* a kernel that knows nothing of the leap: its upstream smears,
	 * or it is a leap behind, which the following explains */
	out->tai = 37;
	out->state = LC_TIME_OK;
	out->status =
	    LC_STA_PLL | LC_STA_NANO | (h->unsync ? LC_STA_UNSYNC : 0);
	out->clock_was_set = 0;
	out->maxerror_us = h->maxerror_us;
	out->esterror_us = h->maxerror_us / 4;
	out->flags = LC_HOST_SAMPLE_KERNEL | LC_HOST_SAMPLE_CWS |
	             (h->give_error ? LC_HOST_SAMPLE_ERROR : 0);
	return 0;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS + ts->tv_nsec;
}

static long n_checked, n_unknown, n_bad;
static int64_t widest, widest_at;
static int widest_dir;

/* Every clock's bound at true time t contains the truth. */
static int check_at(struct host *h, lc_timekeeper *tk, int64_t t)
{
	static const lc_clock_id ids[] = {LC_CLOCK_REALTIME, LC_CLOCK_UTC,
	                                  LC_CLOCK_TAI, LC_CLOCK_UTC_SLS};
	struct lc_bounds b;

	lc_sim_set_true_ns(h->c, t);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct timespec tu = true_utc(h, t);
		int ok;

		if (lc_gettime_bounds(tk, ids[i], &b) != 0) {
			n_bad++;
			return -1;
		}
		if (b.status == LC_BOUNDS_UNKNOWN) {
			n_unknown++;
			continue;
		}
		if (b.error_ns > widest) {
			widest = b.error_ns;
			widest_at = t - h->leap_t;
			widest_dir = h->dir;
		}
		{
			struct lc_test_truth tr = {true_rt(h, t), true_tai(h, t),
			                           0, tu};

			/* UTC_SLS: the policy's smear of true UTC; without
			 * a policy it is UTC */
			if (h->sls != NULL)
				tr.sls = h->r0 + t -
				         lc_smear_offset(h->sls, h->dir,
				                         t - h->leap_t);
			ok = lc_test_bounds_contain(
			    &b,
			    ids[i] == LC_CLOCK_UTC_SLS && h->sls == NULL
			        ? LC_CLOCK_UTC
			        : ids[i],
			    &tr);
		}
		if (!ok || !lc_test_ts_le(&b.earliest, &b.now) ||
		    !lc_test_ts_le(&b.now, &b.latest)) {
			printf("  not contained: %s at true %+.9f s from the "
			       "leap: [%lld.%09ld, %lld.%09ld] now %lld.%09ld "
			       "truth %lld.%09ld (err %lld ns, status %d)\n",
			       lc_clock_name(ids[i]),
			       (double)(t - h->leap_t) / 1e9,
			       (long long)b.earliest.tv_sec, b.earliest.tv_nsec,
			       (long long)b.latest.tv_sec, b.latest.tv_nsec,
			       (long long)b.now.tv_sec, b.now.tv_nsec,
			       (long long)tu.tv_sec, tu.tv_nsec,
			       (long long)b.error_ns, b.status);
			n_bad++;
			return -1;
		}
		n_checked++;
	}
	return 0;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static lc_timekeeper *make(struct host *h, lc_leaptable *table, int64_t ppb,
                           int64_t start)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;

	lc_counter_new_sim(&h->c, 1000000000u, ppb);
	lc_sim_set_true_ns(h->c, start);
	lc_tk_config_init(&cfg);
	cfg.table = table;
	cfg.follow_host = 1;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.host_sample = kh_sample;
	cfg.host_arg = h;
	cfg.host_smear = h->smear;
	cfg.smear = h->sls;
	if (lc_tk_new(&tk, h->c, &cfg) != 0)
		return NULL;
	return tk;
}

/* A host of maxerror `maxerror_us` that reports it, 200000 s before an
 * insertion, and its timekeeper (the counter `ppb` off) updated
 * `updates` times a second apart from *t on; *t is left a second past
 * the last update. */
static lc_timekeeper *make_updated(struct host *h, lc_leaptable *table,
                                   int64_t maxerror_us, int64_t ppb, int64_t *t,
                                   int updates)
{
	lc_timekeeper *tk;

	memset(h, 0, sizeof(*h));
	h->dir = 1;
	h->give_error = 1;
	h->maxerror_us = maxerror_us;
	h->leap_t = 200000 * NS;
	h->r0 = L2030 * NS - h->leap_t;
	tk = make(h, table, ppb, *t);
	if (tk == NULL)
		return NULL;
	for (int i = 0; i < updates; i++, *t += NS) {
		lc_sim_set_true_ns(h->c, *t);
		lc_update(tk);
	}
	return tk;
}

/* One leap: from `before` s to `after` s around it, updates every 0.2 to
 * 1.8 s, `reads` random reads between each two, the host's error a
 * random walk within 80 % of its maxerror (1..5 ms). */
static void run_leap(int dir, int smeared, const char *sls, int reads,
                     int64_t before, int64_t after)
{
	struct lc_smear_policy slsp;
	lc_leaptable *table = lc_test_table_2030(dir);
	struct lc_smear_policy google;
	struct host h;
	lc_timekeeper *tk;
	int64_t t, end, rs[256];
	int n;

	if (table == NULL) {
		LC_TRUE(table != NULL);
		return;
	}
	memset(&h, 0, sizeof(h));
	lc_smear_preset("google", 0, &google, NULL);
	h.dir = dir;
	h.smear = smeared ? &google : NULL;
	if (sls != NULL && lc_smear_preset(sls, 0, &slsp, NULL) == 0)
		h.sls = &slsp;
	h.give_error = 1;
	h.maxerror_us = lc_rand_range(1000, 5000);
	/* the leap's second begins at true time leap_t */
	h.leap_t = 200000 * NS;
	/* 23:59:60 begins at the pre-leap timeline's L2030, the deleted
	 * 23:59:59 at L2030 - 1 */
	h.r0 = (L2030 - (dir > 0 ? 0 : 1)) * NS - h.leap_t;
	t = h.leap_t - before * NS;
	end = h.leap_t + after * NS;
	tk = make(&h, table, lc_rand_range(-5000, 5000), t);
	LC_TRUE(tk != NULL);
	if (tk == NULL)
		goto out;
	while (t < end) {
		int64_t next = t + lc_rand_range(200 * MS, 1800 * MS);

		/* an update within the bound of the leap's boundary, after
		 * it: the writer then arms the next leap, and a bound
		 * reaching back across the boundary must still hold */
		if (t < h.leap_t + NS && next > h.leap_t + NS && dir > 0)
			next = h.leap_t + NS + lc_rand_range(1, 2 * MS);
		else if (t < h.leap_t && next > h.leap_t && dir < 0)
			next = h.leap_t + lc_rand_range(1, 2 * MS);
		int64_t lim = h.maxerror_us * US * 8 / 10;

		lc_sim_set_true_ns(h.c, t);
		h.herr += lc_rand_range(-300 * US, 300 * US);
		if (h.herr > lim)
			h.herr = lim;
		if (h.herr < -lim)
			h.herr = -lim;
		lc_update(tk);
		/* reads at every distance from the update (the simulated
		 * counter never goes back: in order), one right after it,
		 * and several packed around the leap */
		n = 0;
		rs[n++] = t + lc_rand_range(0, 1000);
		for (int i = 1; i < reads; i++)
			rs[n++] = lc_rand_range(t, next - 1);
		if (t <= h.leap_t + 3 * MS && next > h.leap_t - 3 * MS)
			for (int i = 0; i < 64; i++)
				rs[n++] =
				    h.leap_t + lc_rand_range(-3 * MS, 3 * MS);
		qsort(rs, n, sizeof(rs[0]), cmp64);
		for (int i = 0; i < n; i++) {
			if (rs[i] < t || rs[i] >= next)
				continue;
			if (check_at(&h, tk, rs[i]) < 0)
				goto out;
		}
		t = next;
	}
out:
	LC_EQ_I64((int64_t)n_bad, 0);
	lc_tk_free(tk);
	lc_counter_free(h.c);
	lc_leaptable_free(table);
}

static void test_containment(void)
{
	long before = n_checked;

	n_unknown = 0;
	widest = 0;
	for (int dir = 1; dir >= -1; dir -= 2) {
		run_leap(dir, 0, NULL, 40, 3600, 3600);
		/* the timekeeper's own UTC_SLS smeared (utc-sls: 1000 s
		 * before the leap) */
		run_leap(dir, 0, "utc-sls", 40, 3600, 3600);
		/* Google's smear on the host: the whole window, noon to
		 * noon */
		run_leap(dir, 1, NULL, 20, 13 * 3600, 13 * 3600);
	}
	printf("  %ld reads of REALTIME, UTC, TAI, UTC_SLS contained the "
	       "truth (insertion and deletion, with and without Google's "
	       "smear on the host, UTC_SLS unsmeared and utc-sls; %ld before "
	       "the first sample: unknown; "
	       "widest half-width %.3f ms, %+.3f s from the %s)\n",
	       n_checked - before, n_unknown, (double)widest / 1e6,
	       (double)widest_at / 1e9,
	       widest_dir > 0 ? "insertion" : "deletion");
	LC_GT_I64((int64_t)(n_checked - before), INT64_C(2000000));
}

/* A writer that stops: the bound widens at the drift rate, the status
 * turns free-running after LC_TIMELINE_STALE_S, and the truth stays
 * inside though the counter runs 10 ppm fast. */
static void test_stale_widens(void)
{
	lc_leaptable *table = lc_test_table_2030(1);
	struct host h;
	lc_timekeeper *tk;
	struct lc_bounds b0, b;
	int64_t t;

	n_bad = 0;
	t = 1000 * NS;
	tk = make_updated(&h, table, 1000, 10000, &t, 61);
	t -= NS;
	lc_gettime_bounds(tk, LC_CLOCK_REALTIME, &b0);
	LC_EQ_INT(b0.status, LC_BOUNDS_SYNCHRONIZED);
	for (int64_t d = 1; d <= INT64_C(100000); d *= 10) {
		if (check_at(&h, tk, t + d * NS) < 0)
			break;
		LC_EQ_I64((int64_t)n_bad, 0);
		lc_gettime_bounds(tk, LC_CLOCK_REALTIME, &b);
		/* at least the drift rate's growth */
		LC_GE_I64(b.error_ns - b0.error_ns,
		          d * NS / 1000000000 * LC_BOUNDS_DRIFT_PPB);
		LC_EQ_INT(b.status, d > LC_TIMELINE_STALE_S
		                        ? LC_BOUNDS_FREE_RUNNING
		                        : LC_BOUNDS_SYNCHRONIZED);
		printf("  %6lld s without an update: half-width %.6f s, %s\n",
		       (long long)d, (double)b.error_ns / 1e9,
		       b.status == LC_BOUNDS_FREE_RUNNING ? "free-running"
		                                          : "synchronised");
	}
	lc_tk_free(tk);
	lc_counter_free(h.c);
	lc_leaptable_free(table);
}

/* STA_UNSYNC: free-running (and the kernel's maxerror still the bound);
 * a host that gives no error: unknown, earliest == latest == now. */
static void test_unsync_unknown(void)
{
	lc_leaptable *table = lc_test_table_2030(1);
	struct host h;
	lc_timekeeper *tk;
	struct lc_bounds b;
	struct lc_bounds_info bi;
	int64_t t = 1000 * NS;

	memset(&h, 0, sizeof(h));
	h.dir = 1;
	h.give_error = 1;
	h.unsync = 1;
	h.maxerror_us = 16000000;
	h.leap_t = 200000 * NS;
	h.r0 = L2030 * NS - h.leap_t;
	tk = make(&h, table, 0, t);
	lc_sim_set_true_ns(h.c, t + NS);
	lc_update(tk);
	lc_gettime_bounds(tk, LC_CLOCK_UTC, &b);
	LC_EQ_INT(b.status, LC_BOUNDS_FREE_RUNNING);
	LC_GE_I64(b.error_ns, 16 * NS);
	LC_EQ_INT(lc_tk_bounds_info(tk, &bi), 0);
	LC_EQ_INT(bi.unsync, 1);
	LC_EQ_I64(bi.maxerror_ns, 16 * NS);
	h.give_error = 0;
	lc_sim_set_true_ns(h.c, t + 2 * NS);
	lc_update(tk);
	lc_gettime_bounds(tk, LC_CLOCK_UTC, &b);
	LC_EQ_INT(b.status, LC_BOUNDS_UNKNOWN);
	LC_EQ_I64(ts_ns(&b.earliest), ts_ns(&b.now));
	LC_EQ_I64(ts_ns(&b.latest), ts_ns(&b.now));
	LC_EQ_INT(lc_gettime_bounds(tk, LC_CLOCK_COUNT, &b), LC_EINVAL);
	LC_EQ_INT(lc_gettime_bounds(tk, LC_CLOCK_UTC, NULL), LC_EINVAL);
	lc_gettime_bounds(tk, LC_CLOCK_MONOTONIC_RAW, &b);
	LC_EQ_INT(b.status, LC_BOUNDS_UNKNOWN);
	printf("  STA_UNSYNC: free-running, +-%.0f s; no error from the "
	       "host: unknown\n",
	       16.0);
	lc_tk_free(tk);
	lc_counter_free(h.c);
	lc_leaptable_free(table);
}

/* A deleted second just behind the snapshot: the host (and so the clock)
 * 3 ms ahead of true time, an update 1 ms after the boundary as our clock
 * shows it: the writer has armed the next leap, and a read then is at a
 * true instant still before the deletion, whose reading is 1 s below the
 * post-leap offset's. */
static void test_deletion_behind(void)
{
	lc_leaptable *table = lc_test_table_2030(-1);
	struct host h;
	lc_timekeeper *tk;
	int64_t t;

	n_bad = 0;
	memset(&h, 0, sizeof(h));
	h.dir = -1;
	h.give_error = 1;
	h.maxerror_us = 5000;
	h.herr = 3 * MS;
	h.leap_t = 200000 * NS;
	h.r0 = (L2030 - 1) * NS - h.leap_t;
	t = h.leap_t - 100 * NS;
	tk = make(&h, table, 0, t);
	for (; t < h.leap_t - 2 * MS; t += NS) {
		lc_sim_set_true_ns(h.c, t);
		lc_update(tk);
	}
	/* our clock passes the boundary at true leap_t - 3 ms */
	t = h.leap_t - 2 * MS;
	lc_sim_set_true_ns(h.c, t);
	lc_update(tk);
	for (int64_t r = t; r < h.leap_t + 2 * MS; r += 100 * US)
		if (check_at(&h, tk, r) < 0)
			break;
	LC_EQ_I64((int64_t)n_bad, 0);
	printf("  reads from 2 ms before to 2 ms after a deletion, the clock "
	       "3 ms ahead and updated just past it: contained\n");
	lc_tk_free(tk);
	lc_counter_free(h.c);
	lc_leaptable_free(table);
}

/* A leap the host applies before us: near a table leap an undeclared
 * host is followed loosely (a smear it may be making is held, not
 * steered, up to LC__HF_SMEAR_HOLD), so our clock may run ms behind the
 * host's. Here the counter runs 5 ppm slow against a host 1 ms ahead of
 * true time, from an hour before the leap, an update each second, and
 * one lands just after the host's clock passed the boundary but before
 * ours does: the host reads a second from us (ahead across a deletion,
 * behind across an insertion) by its own leap, which is no step. */
static void leap_host_first(int dir)
{
	lc_leaptable *table = lc_test_table_2030(dir);
	struct host h;
	lc_timekeeper *tk;
	struct timespec g;
	struct lc_tk_host hst;
	int64_t t, lag;

	n_bad = 0;
	memset(&h, 0, sizeof(h));
	h.dir = dir;
	h.give_error = 1;
	h.maxerror_us = 5000;
	h.herr = 1 * MS;
	h.leap_t = 200000 * NS;
	h.r0 = (L2030 - (dir > 0 ? 0 : 1)) * NS - h.leap_t;
	t = h.leap_t - 3600 * NS;
	tk = make(&h, table, -5000, t);
	for (; t <= h.leap_t - NS; t += NS) {
		lc_sim_set_true_ns(h.c, t);
		lc_update(tk);
	}
	t = h.leap_t - NS / 2;
	lc_sim_set_true_ns(h.c, t);
	lc_gettime(tk, LC_CLOCK_REALTIME, &g);
	lag = true_rt(&h, t + h.herr) - ts_ns(&g);
	/* the host passes the boundary at true leap_t - 1 ms, we lag it */
	t = h.leap_t - h.herr + lag / 2;
	lc_sim_set_true_ns(h.c, t);
	lc_update(tk);
	for (int64_t r = t; r < h.leap_t + lag + 2 * MS; r += 100 * US)
		if (check_at(&h, tk, r) < 0)
			break;
	/* and a second later, both past it */
	for (int i = 0; i < 3 && n_bad == 0; i++) {
		t += NS;
		lc_sim_set_true_ns(h.c, t);
		lc_update(tk);
		check_at(&h, tk, t + NS / 2);
	}
	LC_GT_I64(lag, 2 * MS);
	LC_EQ_I64((int64_t)n_bad, 0);
	LC_EQ_INT(lc_tk_host_status(tk, &hst), 0);
	LC_EQ_I64((int64_t)hst.steps, 0);
	printf("  %s, our clock %.3f ms behind the host's, updated after the "
	       "host passed it, before we did: contained, no step\n",
	       dir > 0 ? "insertion" : "deletion", (double)lag / 1e6);
	lc_tk_free(tk);
	lc_counter_free(h.c);
	lc_leaptable_free(table);
}

static void test_leap_host_first(void)
{
	leap_host_first(-1);
	leap_host_first(1);
}

/* The word never rounds a bound down. */
static void test_pack(void)
{
	int st;
	uint64_t w = lc__bnd_pack(123456789, 15001, LC_BOUNDS_SYNCHRONIZED);

	LC_EQ_I64(lc__bnd_at(w, 0, &st), 123456789);
	LC_EQ_INT(st, LC_BOUNDS_SYNCHRONIZED);
	/* 15001 ppb rounds up to 15100, whose multiplier ceil(15100e-9 *
	 * 2^32) = 64855 is 15100.23 ppb: 1 s adds 15101 ns */
	LC_EQ_I64(lc__bnd_at(w, NS, &st), 123456789 + 15101);
	LC_EQ_I64(lc__bnd_at(lc__bnd_pack(INT64_C(1) << 50, 1, 1), 0, &st),
	          LC__BND_W_MAX);
	LC_EQ_I64(lc__bnd_at(0, NS, &st), 0);
	LC_EQ_INT(st, LC_BOUNDS_UNKNOWN);
	printf("  packing: exact below 2^40 ns, drift rounded up, 0 unknown\n");
}

/* The drift term by its multiplier (lc__bnd_drift) against the exact
 * ceil(d * r * 100 / 10^9), at random rates and ages, across the 64-bit
 * product's limit (2^34 ns): never below it, at most 1 ns above it per
 * 2^32 ns of age (and at most 1 below 2^32 ns). */
static void test_drift_multiplier(void)
{
	long bad = 0, above = 0;

	for (int i = 0; i < 2000000; i++) {
		uint64_t r = (uint64_t)lc_rand_range(0, LC__BND_RATE_MAX);
		int bits = (int)lc_rand_range(0, 45);
		uint64_t d = (uint64_t)lc_rand_range(
		    0, (INT64_C(1) << bits) + (i & 1 ? INT64_C(1) << 34 : 0));
		unsigned __int128 x;
		uint64_t exact, got;

		if (i < 4) /* whole seconds: exact multiples of the rate */
			d = (uint64_t)i * (uint64_t)NS;
		x = (unsigned __int128)d * r * LC__BND_RATE_UNIT;
		exact = (uint64_t)((x + (uint64_t)NS - 1) / (uint64_t)NS);
		got = lc__bnd_drift(d, lc__bnd_rate_fix(r));
		if (got < exact || got > exact + 1 + (d >> 32))
			bad++;
		above += got > exact;
	}
	LC_EQ_I64((int64_t)bad, 0);
	LC_EQ_I64((int64_t)lc__bnd_drift(0, lc__bnd_rate_fix(LC__BND_RATE_MAX)),
	          0);
	/* the largest rate grows by less than d: earliest's d - drift
	 * never goes below 0 */
	LC_TRUE(lc__bnd_rate_fix(LC__BND_RATE_MAX) < (UINT64_C(1) << 32) / 9);
	printf("  2e6 random rates and ages: never below the exact ceiling, "
	       "%ld of them 1 ns above\n",
	       above);
}

/* The fast path's arithmetic: away from a leap each clock's bound is
 * the reading -+ lc__bnd_at() of the snapshot's word at the read's age,
 * and its reading lc_gettime()'s at the same instant (the simulated
 * counter stands still between them), at ages from 0 to a day (past the
 * staleness limit and the drift's 64-bit product). */
static void test_fast_arith(void)
{
	static const lc_clock_id ids[] = {LC_CLOCK_REALTIME, LC_CLOCK_UTC,
	                                  LC_CLOCK_TAI,      LC_CLOCK_MONOTONIC,
	                                  LC_CLOCK_BOOTTIME, LC_CLOCK_UTC_SLS};
	lc_leaptable *table = lc_test_table_2030(1);
	struct host h;
	lc_timekeeper *tk;
	int64_t t;
	long n = 0;

	t = 1000 * NS;
	tk = make_updated(&h, table, 2500, 3000, &t, 20);
	LC_TRUE(tk != NULL);
	if (tk == NULL)
		return;
	for (int i = 0; i < 20000; i++) {
		int64_t age = i < 10000 ? lc_rand_range(0, 2 * NS)
		                        : lc_rand_range(0, 86400 * NS);
		uint64_t word = lc__tk_read_word(tk, LC__TKW(bound));
		struct lc_bounds b;
		struct timespec g;
		int st;

		lc_sim_set_true_ns(h.c, t + age);
		for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
			int64_t w;

			LC_EQ_INT(lc_gettime_bounds(tk, ids[k], &b), 0);
			lc_gettime(tk, ids[k], &g);
			w = lc__bnd_at(word, b.age_ns, &st);
			if (b.error_ns != w || b.status != st ||
			    b.status == LC_BOUNDS_UNKNOWN ||
			    ts_ns(&b.now) != ts_ns(&g) ||
			    ts_ns(&b.earliest) != ts_ns(&g) - w ||
			    ts_ns(&b.latest) != ts_ns(&g) + w ||
			    b.now.tv_nsec < 0 || b.now.tv_nsec >= NS ||
			    b.earliest.tv_nsec < 0 ||
			    b.earliest.tv_nsec >= NS || b.latest.tv_nsec < 0 ||
			    b.latest.tv_nsec >= NS) {
				printf("  %s at age %lld: error %lld (word: "
				       "%lld), status %d (%d)\n",
				       lc_clock_name(ids[k]),
				       (long long)b.age_ns,
				       (long long)b.error_ns, (long long)w,
				       b.status, st);
				LC_TRUE(0);
				goto out;
			}
			n++;
		}
	}
	printf("  %ld reads of six clocks, ages 0 to a day: the word's "
	       "half-width around lc_gettime's reading\n",
	       n);
out:
	lc_tk_free(tk);
	lc_counter_free(h.c);
	lc_leaptable_free(table);
}

/* The same on the real counters (each has its own readers): the host's
 * CLOCK_MONOTONIC and, where there is one, the TSC. Each reading lies
 * between two plain reads around it, its bound around it. */
static void test_real_counters(void)
{
	for (int k = 0; k < 2; k++) {
		lc_counter *c = NULL;
		lc_timekeeper *tk = NULL;
		struct lc_error err;
		long n = 0;

		memset(&err, 0, sizeof(err));
		if (k == 0 ? lc_counter_new_system(&c, CLOCK_MONOTONIC)
		           : lc_counter_new_tsc(&c, &err)) {
			printf("  %s: no counter (%s)\n", k ? "tsc" : "system",
			       err.msg);
			continue;
		}
		LC_EQ_INT(lc_tk_new(&tk, c, NULL), 0);
		lc_update(tk);
		for (int i = 0; i < 20000; i++) {
			lc_clock_id id = (lc_clock_id)(i % LC_CLOCK_COUNT);
			struct timespec g0, g1;
			struct lc_bounds b;
			int64_t w;

			lc_gettime(tk, id, &g0);
			LC_EQ_INT(lc_gettime_bounds(tk, id, &b), 0);
			lc_gettime(tk, id, &g1);
			w = b.error_ns;
			if (!lc_test_ts_le(&g0, &b.now) || !lc_test_ts_le(&b.now, &g1) ||
			    ts_ns(&b.earliest) != ts_ns(&b.now) - w ||
			    ts_ns(&b.latest) != ts_ns(&b.now) + w ||
			    (b.status == LC_BOUNDS_UNKNOWN && w != 0) ||
			    (id == LC_CLOCK_MONOTONIC_RAW &&
			     b.status != LC_BOUNDS_UNKNOWN)) {
				printf("  %s on %s: %lld.%09ld not within "
				       "%lld.%09ld..%lld.%09ld, or its bound "
				       "(%lld ns, status %d) not around it\n",
				       lc_clock_name(id), k ? "tsc" : "system",
				       (long long)b.now.tv_sec, b.now.tv_nsec,
				       (long long)g0.tv_sec, g0.tv_nsec,
				       (long long)g1.tv_sec, g1.tv_nsec,
				       (long long)w, b.status);
				LC_TRUE(0);
				break;
			}
			n++;
		}
		printf("  %s counter: %ld reads of every clock within the "
		       "plain reads around them\n",
		       k ? "tsc" : "system", n);
		lc_tk_free(tk);
		lc_counter_free(c);
	}
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_pack, "the snapshot's bound word");
	LC_RUN(test_drift_multiplier,
	       "the drift term's multiplier never rounds the bound down");
	LC_RUN(test_fast_arith, "the fast path is the word's half-width "
	                        "around the plain reading");
	LC_RUN(test_real_counters, "the system counter's and the TSC's "
	                           "readers");
	LC_RUN(test_containment,
	       "bounds contain the simulated truth at millions of random "
	       "reads, both leap directions, a declared smear");
	LC_RUN(test_deletion_behind, "a deleted second behind the snapshot, "
	                             "reached by the bound: contained");
	LC_RUN(test_leap_host_first,
	       "a leap the host applies before our lagging clock: no step");
	LC_RUN(test_stale_widens, "a stale snapshot's bound widens at the "
	                          "drift rate, turns free-running, stays true");
	LC_RUN(test_unsync_unknown,
	       "STA_UNSYNC free-running; no host error unknown; bad arguments");
	return lc_test_done();
}
