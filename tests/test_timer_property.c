/* test_timer_property.c - 10 million random timers on the simulated counter
 * (1 million under sanitizers: LC_SANITIZED=1; LC_TIMER_PROPERTY_N=n to
 * choose) across random leap insertions, deletions, cancelled leaps, smears
 * (three policies and none, one timekeeper each) and clock steps (settime,
 * ADJ_TAI). The smears run in 2030 and 2174, the run without one (where
 * UTC_SLS is UTC, 23:59:60 included) in 2030 and 2240: issue 12 found
 * UTC_SLS timers firing in 23:59:60 without a policy, and UTC timers
 * firing at once after 2116, neither of which the smeared runs in 2030
 * could reach.
 *
 * Timers: every clock id, absolute and relative, one-shot and periodic,
 * CANCEL_ON_SET where it applies; callbacks re-arm themselves, stop
 * themselves and stop others; the main loop cancels at random.
 *
 * What is checked, from the test's own model of each timer (its deadline,
 * period and the instants at which the test stepped each clock):
 *  - never early: at each expiry the timer's own clock reads >= the
 *    deadline the model holds;
 *  - zero lateness: the expiry happens at MONOTONIC max(ref, mono_at(dl)),
 *    ref = when it was armed (or last expired, or the clock last stepped),
 *    mono_at = lc__tk_mono_at() of the deadline; inside a repeated 23:59:59
 *    (REALTIME armed in the repeat), at ref + (dl - reading at ref);
 *  - overruns exact: floor((reading - dl) / period) (on the clock's
 *    reading; UTC periods next to a leap are checked for consistency only);
 *  - none lost: after every run of the driver, no queue head is due; the
 *    model's armed timers are exactly the active ones (sweeps), with the
 *    deadlines the model computed; a one-shot never fires twice;
 *  - CANCEL_ON_SET: cancelled exactly at the first step of its clock after
 *    it was armed (REALTIME: settime and applied leaps; TAI: settime and
 *    ADJ_TAI; UTC, UTC_SLS: settime), never otherwise.
 *
 * A run depends on the seed alone (simulated counter, no threads, no host
 * clock, no pointer order): it prints a digest of every delivery (which
 * timer, status, MONOTONIC instant, overrun) that a replay with the same
 * seed and count must print again.
 */
#include "lc_test.h"
#include "loop.h"
#include "timekeeper.h" /* lc__tk_mono_at, lc__tk_cycles_at */

#define NS LC_NSEC_PER_SEC
#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define LIVE 20000

/* Sanitizer builds run a tenth of the timers even without LC_SANITIZED=1:
 * one million take 14-43 s under ASan+UBSan on the shared 2-core machine
 * (measured), so ten million, what a ctest in a sanitizer tree ran without
 * LC_SANITIZED=1, take minutes, at CTest's 300 s timeout under load. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
        __has_feature(memory_sanitizer)
#define SANITIZER_BUILD 1
#endif
#endif
#ifndef SANITIZER_BUILD
#define SANITIZER_BUILD 0
#endif

struct pt {
	lc_timer t;
	int clock, cos, armed;
	struct timespec dl; /* model deadline */
	int64_t iv;
	int64_t ref;         /* MONOTONIC reference for lateness */
	int64_t ref_reading; /* the clock's reading at ref */
	int64_t cos_ref;     /* MONOTONIC when a COS timer was armed */
	int slot_live;
};

static lc_counter *cnt;
static lc_timekeeper *tk;
static lc_loop *loop;
static struct pt *pts;
static int *freelist, nfree;
static int64_t started, target, fires, cancels_cos, early, late, bad_ov,
        bad_cos, lost, double_fire, skipped_late, checked_late, ov_checked;
static uint64_t digest = UINT64_C(0xcbf29ce484222325); /* FNV-1a 64 */

static void digest_add(int64_t v)
{
	for (int i = 0; i < 8; i++) {
		digest ^= (uint64_t)v >> (8 * i) & 0xffu;
		digest *= UINT64_C(0x100000001b3);
	}
}

/* step instants (MONOTONIC) per kind */
#define MAXSTEP 100000
static int64_t st_rt[MAXSTEP], st_tai[MAXSTEP], st_set[MAXSTEP];
static int nst_rt, nst_tai, nst_set;
/* Leaps, as the timekeeper reports them (lc_tk_next_leap after every
 * event): the pending one, and the last applied one; leap_w is the second
 * of any leap armed during the segment (UTC periods near it are checked for
 * consistency only, since an armed-then-cancelled leap moves them). */
static int64_t pend_mono = INT64_MAX, last_leap_mono = INT64_MAX, leap_w;
static int pend_dir, last_leap_dir, leap_seen;
/* the run has no smear policy: UTC_SLS is UTC, and the model treats it so */
static int sls_is_utc;

/* clocks whose deadlines and arithmetic are UTC's (23:59:60 counted) */
static int utc_like(int clock)
{
	return clock == LC_CLOCK_UTC ||
	       (clock == LC_CLOCK_UTC_SLS && sls_is_utc);
}

static int64_t mono(void)
{
	return lc_now_ns(tk, LC_CLOCK_MONOTONIC);
}

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return (a->tv_nsec > b->tv_nsec) - (a->tv_nsec < b->tv_nsec);
}

/* first step instant > after, or INT64_MAX */
static int64_t first_step(const int64_t *v, int n, int64_t after)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (v[mid] > after)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < n ? v[lo] : INT64_MAX;
}

static void add_step(int64_t *v, int *n, int64_t m)
{
	if (*n < MAXSTEP && (*n == 0 || v[*n - 1] <= m))
		v[(*n)++] = m;
}

/* REALTIME steps: the test's settimes and the leaps, the pending one too */
static int64_t first_step_rt(int64_t after)
{
	int64_t f = first_step(st_rt, nst_rt, after);
	return pend_mono > after && pend_mono < f ? pend_mono : f;
}

static void refresh_leap(void)
{
	int64_t when, rt, m;
	int dir;

	if (lc_tk_next_leap(tk, &when, &dir) != 0) {
		pend_mono = INT64_MAX;
		pend_dir = 0;
		return;
	}
	m = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
	rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
	pend_mono = m + ((dir > 0 ? when : when - 1) * NS - rt);
	pend_dir = dir;
	leap_w = when;
	leap_seen = 1;
}

/* moves a leap that has happened into the step list */
static void leap_passed(void)
{
	if (lc_now_ns(tk, LC_CLOCK_MONOTONIC) >= pend_mono) {
		add_step(st_rt, &nst_rt, pend_mono);
		last_leap_mono = pend_mono;
		last_leap_dir = pend_dir;
		pend_mono = INT64_MAX;
		pend_dir = 0;
		refresh_leap();
	}
}

static int64_t reading_ns(int clock, struct timespec *ts)
{
	lc_gettime(tk, (lc_clock_id)clock, ts);
	return lc__ts_to_ns(ts);
}

static int near_leap(const struct timespec *a)
{
	int64_t s = (int64_t)a->tv_sec;
	return leap_seen && s >= leap_w - 3 && s <= leap_w + 3;
}

static void pt_cb(lc_timer *t, int status, void *data);

static void start_random(struct pt *p, int64_t now_mono)
{
	struct timespec now, val, iv;
	int abs, flags;
	int64_t span, rel;
	int r = (int)lc_rand_range(0, 99);

	span = r < 70 ? 2 * NS : r < 80 ? 10 * US : 30 * NS;
	rel = lc_rand_range(0, span);
	abs = (int)lc_rand_range(0, 1);
	p->iv = lc_rand_range(0, 99) < 30 ? lc_rand_range(MS, NS) : 0;
	p->cos = 0;
	reading_ns(p->clock, &now);
	if (utc_like(p->clock) && now.tv_nsec >= NS) {
		/* in 23:59:60: keep UTC arithmetic simple, go absolute past it */
		abs = 1;
		now.tv_sec += 1;
		now.tv_nsec = 0;
	}
	{
		int64_t ns = (int64_t)now.tv_nsec + rel, when, sum;
		int dir;
		p->dl.tv_sec = now.tv_sec + (time_t)(ns / NS);
		p->dl.tv_nsec = (long)(ns % NS);
		/* UTC counts an armed inserted second (and skips a deleted
		 * one) in elapsed time: the model moves the reading */
		sum = lc__ts_to_ns(&p->dl);
		if (utc_like(p->clock) && !abs &&
		    lc_tk_next_leap(tk, &when, &dir) == 0) {
			if (dir > 0 && sum >= when * NS) {
				sum -= NS;
				if (sum < when * NS) {
					p->dl.tv_sec = (time_t)(when - 1);
					p->dl.tv_nsec = (long)(sum - (when - 1) * NS + NS);
				} else {
					p->dl = lc__ns_to_ts(sum);
				}
			} else if (dir < 0 && sum >= (when - 1) * NS) {
				p->dl = lc__ns_to_ts(sum + NS);
			}
		}
	}
	flags = abs ? LC_TIMER_ABSTIME : 0;
	if (abs && p->clock >= LC_CLOCK_TAI && lc_rand_range(0, 9) == 0) {
		flags |= LC_TIMER_CANCEL_ON_SET;
		p->cos = 1;
	}
	val = abs ? p->dl : lc__ns_to_ts(rel);
	iv = lc__ns_to_ts(p->iv);
	if (lc_timer_start(&p->t, flags, &val, &iv) != 0) {
		LC_T_FAIL_("start failed on clock %d", p->clock);
		return;
	}
	p->armed = 1;
	p->ref = now_mono;
	p->ref_reading = lc__ts_to_ns(&now);
	p->cos_ref = now_mono;
	started++;
}

static struct pt *new_timer(void)
{
	struct pt *p;

	if (nfree == 0)
		return NULL;
	p = &pts[freelist[--nfree]];
	p->clock = (int)lc_rand_range(0, LC_CLOCK_COUNT - 1);
	lc_timer_init(loop, &p->t, (lc_clock_id)p->clock, pt_cb, p);
	p->slot_live = 1;
	start_random(p, mono());
	return p;
}

static void release(struct pt *p)
{
	p->armed = 0;
	p->slot_live = 0;
	freelist[nfree++] = (int)(p - pts);
}

static void stop_one(struct pt *p)
{
	if (!p->slot_live)
		return;
	if (lc_timer_stop(&p->t) != p->armed) {
		if (lost < 5)
			printf("  stop: timer %d clock %d: stop says %d, armed %d "
			       "at %lld\n",
			       (int)(p - pts), p->clock, !p->armed, p->armed,
			       (long long)mono());
		lost++;
	}
	release(p);
}

static int64_t expected_cos_cancel(const struct pt *p)
{
	switch (p->clock) {
	case LC_CLOCK_REALTIME: return first_step_rt(p->cos_ref);
	case LC_CLOCK_TAI: return first_step(st_tai, nst_tai, p->cos_ref);
	default: return first_step(st_set, nst_set, p->cos_ref);
	}
}

static void pt_cb(lc_timer *t, int status, void *data)
{
	struct pt *p = data;
	int64_t m = mono(), step, exp_m, ma;
	struct timespec now;
	int64_t rd;

	digest_add(p - pts);
	digest_add(status);
	digest_add(m);
	digest_add(lc_timer_overrun(t));
	if (!p->armed) {
		double_fire++;
		return;
	}
	fires++;
	if (status == LC_ECANCELED) {
		cancels_cos++;
		if (!p->cos || expected_cos_cancel(p) != m) {
			if (bad_cos < 5)
				printf("  cancelled: clock %d cos %d at %lld, "
				       "expected %lld (armed %lld)\n",
				       p->clock, p->cos, (long long)m,
				       (long long)expected_cos_cancel(p),
				       (long long)p->cos_ref);
			bad_cos++;
		}
		release(p);
		return;
	}
	if (p->cos && expected_cos_cancel(p) <= m) {
		/* should have been cancelled */
		if (bad_cos < 5)
			printf("  not cancelled: clock %d at %lld, expected "
			       "%lld (armed %lld)\n",
			       p->clock, (long long)m,
			       (long long)expected_cos_cancel(p),
			       (long long)p->cos_ref);
		bad_cos++;
	}
	rd = reading_ns(p->clock, &now);
	if (ts_cmp(&now, &p->dl) < 0)
		early++;
	/* lateness */
	step = p->clock == LC_CLOCK_REALTIME ? first_step_rt(p->ref)
	       : p->clock == LC_CLOCK_TAI    ? first_step(st_tai, nst_tai, p->ref)
	       : p->clock >= LC_CLOCK_UTC    ? first_step(st_set, nst_set, p->ref)
	                                     : INT64_MAX;
	if (lc__tk_mono_at(tk, (lc_clock_id)p->clock, &p->dl, &ma) == 0) {
		int64_t ref = p->ref;
		/* the last test-made step before now moves the reference */
		while (step <= m) {
			ref = step;
			step = p->clock == LC_CLOCK_REALTIME
			               ? first_step_rt(step)
			       : p->clock == LC_CLOCK_TAI
			               ? first_step(st_tai, nst_tai, step)
			               : first_step(st_set, nst_set, step);
		}
		exp_m = ma > ref ? ma : ref;
		if (p->clock == LC_CLOCK_REALTIME && ma < ref &&
		    ref == p->ref && last_leap_dir > 0 &&
		    ref >= last_leap_mono && ref < last_leap_mono + NS &&
		    lc__ts_to_ns(&p->dl) > p->ref_reading)
			exp_m = ref + (lc__ts_to_ns(&p->dl) - p->ref_reading);
		else if (p->clock == LC_CLOCK_REALTIME && ma < ref &&
		         ref != p->ref)
			exp_m = m, skipped_late++;
		if (exp_m != m) {
			if (late < 5)
				printf("  late/early: clock %d dl %lld.%09ld fired "
				       "at %lld expected %lld (ref %lld ma %lld) "
				       "reading %lld.%09ld leap %d at %lld W %lld "
				       "iv %lld\n",
				       p->clock, (long long)p->dl.tv_sec,
				       p->dl.tv_nsec, (long long)m,
				       (long long)exp_m, (long long)p->ref,
				       (long long)ma, (long long)now.tv_sec,
				       now.tv_nsec, last_leap_dir,
				       (long long)last_leap_mono, (long long)leap_w,
				       (long long)p->iv);
			late++;
		}
		checked_late++;
	}
	if (p->iv == 0) {
		p->armed = 0;
		if (lc_rand_range(0, 9) < 3 && started < target) {
			start_random(p, m); /* re-arm from the callback */
		} else {
			release(p);
		}
	} else if (utc_like(p->clock) &&
	           (near_leap(&p->dl) || near_leap(&now) ||
	            p->dl.tv_nsec >= NS)) {
		/* UTC period next to a leap: the deadline must be the next
		 * one after the reading. A deadline inside a 23:59:60 is
		 * next to a leap even when a later segment no longer arms
		 * it: one armed, then stepped away from or cleared before
		 * it happened, leaves a deadline in a 23:59:60 that never
		 * was, and timer.c counts that second in the period (it
		 * cannot tell such a second from one that happened; see
		 * utc_leap_for) while this model would not. */
		lc_timer_deadline(t, &p->dl);
		if (ts_cmp(&p->dl, &now) <= 0)
			bad_ov++;
		p->ref = m;
		p->ref_reading = rd;
	} else {
		int64_t d = lc__ts_to_ns(&p->dl), ov = (rd - d) / p->iv;
		struct timespec got;
		if (ov != lc_timer_overrun(t))
			bad_ov++;
		ov_checked++;
		p->dl = lc__ns_to_ts(d + (ov + 1) * p->iv);
		lc_timer_deadline(t, &got);
		if (ts_cmp(&got, &p->dl) != 0)
			bad_ov++;
		p->ref = m;
		p->ref_reading = rd;
		if (lc_rand_range(0, 99) < 20)
			stop_one(p); /* periodic timers live ~5 periods */
	}
	/* now and then stop someone else */
	if (lc_rand_range(0, 99) < 3)
		stop_one(&pts[lc_rand_range(0, LIVE - 1)]);
}

/* After a driver run: nothing due anywhere (the heads are the earliest). */
static void check_heads(void)
{
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct lc__timer *t = lc__heap_top(&loop->q.base[c]);
		if (t != NULL && lc__key_remaining(tk, c, t->key) <= 0) {
			struct timespec k = lc__key_to_ts(c, t->key), now;
			reading_ns(c, &now);
			if (lost < 5)
				printf("  due after the run: clock %d head "
				       "%lld.%09ld reads %lld.%09ld at %lld\n",
				       c, (long long)k.tv_sec, k.tv_nsec,
				       (long long)now.tv_sec, now.tv_nsec,
				       (long long)mono());
			lost++;
		}
	}
}

static void sweep(void)
{
	for (int i = 0; i < LIVE; i++) {
		struct pt *p = &pts[i];
		struct timespec got;
		if (!p->slot_live)
			continue;
		if (lc_timer_active(&p->t) != p->armed) {
			if (lost < 5)
				printf("  sweep: timer %d clock %d active %d, "
				       "armed %d at %lld\n",
				       i, p->clock, !p->armed, p->armed,
				       (long long)mono());
			lost++;
			continue;
		}
		if (p->armed && lc_timer_deadline(&p->t, &got) == 0 &&
		    ts_cmp(&got, &p->dl) != 0 &&
		    !(utc_like(p->clock) && near_leap(&got))) {
			if (lost < 5)
				printf("  sweep: timer %d clock %d deadline "
				       "%lld.%09ld, model %lld.%09ld iv %lld "
				       "at %lld\n",
				       i, p->clock, (long long)got.tv_sec,
				       got.tv_nsec, (long long)p->dl.tv_sec,
				       p->dl.tv_nsec, (long long)p->iv,
				       (long long)mono());
			lost++;
		}
	}
}

static void adj_status(int status)
{
	struct lc_timex tx;
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	lc_adjtimex(tk, &tx);
}

/* A segment: REALTIME is stepped to a few seconds before midnight W and a
 * random leap is armed; runs to a few seconds after it. */
static void segment(int64_t *day, int *n_ins, int *n_del, int *n_cancel)
{
	struct timespec ts;
	int64_t W = *day * LC_SECS_PER_DAY, m, seg_end, cancel_at = INT64_MAX,
	        step_at = INT64_MAX, tai_at = INT64_MAX, rt;
	int kind = (int)lc_rand_range(0, 99), probes = 0;

	(*day)++;
	ts = lc__ns_to_ts((W - lc_rand_range(3, 8)) * NS + lc_rand_range(0, NS - 1));
	lc_settime(tk, LC_CLOCK_REALTIME, &ts);
	m = mono();
	add_step(st_rt, &nst_rt, m);
	add_step(st_tai, &nst_tai, m);
	add_step(st_set, &nst_set, m);
	/* clear the state as leap-a-day does, then arm */
	adj_status(LC_STA_PLL);
	adj_status(0);
	leap_seen = 0;
	if (kind < 35) {
		adj_status(LC_STA_INS);
		(*n_ins)++;
	} else if (kind < 60) {
		adj_status(LC_STA_DEL);
		(*n_del)++;
	} else if (kind < 75) {
		adj_status(LC_STA_INS); /* cancelled before midnight */
		(*n_cancel)++;
	}
	lc_update(tk);
	refresh_leap();
	rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
	if (kind >= 60 && kind < 75)
		cancel_at = m + (W * NS - rt) - lc_rand_range(MS, 2 * NS);
	if (lc_rand_range(0, 9) == 0)
		step_at = m + lc_rand_range(0, 10 * NS);
	if (lc_rand_range(0, 19) == 0)
		tai_at = m + lc_rand_range(0, 10 * NS);
	seg_end = m + (W * NS - rt) + lc_rand_range(2, 6) * NS;
	while ((m = mono()) < seg_end && started < target) {
		int64_t until = m + lc_rand_range(US, 20 * MS), ev;
		while (nfree > 0 && started < target)
			new_timer();
		ev = cancel_at < step_at ? cancel_at : step_at;
		ev = tai_at < ev ? tai_at : ev;
		if (until > ev)
			until = ev;
		if (until > seg_end)
			until = seg_end;
		if (until <= m)
			until = m + 1;
		if (until > pend_mono && pend_mono > m)
			until = pend_mono;
		lc_loop_run_sim(loop, until);
		check_heads();
		leap_passed();
		m = mono();
		if (m >= cancel_at) {
			adj_status(0); /* STA_INS cleared: leap cancelled */
			refresh_leap();
			cancel_at = INT64_MAX;
		}
		if (m >= step_at) {
			ts = lc__ns_to_ts(lc_now_ns(tk, LC_CLOCK_REALTIME) +
			                  lc_rand_range(-3 * NS, 3 * NS));
			lc_settime(tk, LC_CLOCK_REALTIME, &ts);
			add_step(st_rt, &nst_rt, m);
			add_step(st_tai, &nst_tai, m);
			add_step(st_set, &nst_set, m);
			refresh_leap();
			step_at = INT64_MAX;
		}
		if (m >= tai_at) {
			struct lc_timex tx;
			memset(&tx, 0, sizeof(tx));
			int64_t before = lc_now_ns(tk, LC_CLOCK_TAI) - m;
			tx.modes = LC_ADJ_TAI;
			tx.constant = lc_rand_range(30, 40);
			/* a step only if the offset moved (it may be the same) */
			if (lc_adjtimex(tk, &tx) >= 0 &&
			    lc_now_ns(tk, LC_CLOCK_TAI) - m != before)
				add_step(st_tai, &nst_tai, m);
			refresh_leap();
			tai_at = INT64_MAX;
		}
		if (lc_rand_range(0, 9) == 0) {
			lc_update(tk);
			refresh_leap();
		}
		if (lc_rand_range(0, 4) == 0)
			stop_one(&pts[lc_rand_range(0, LIVE - 1)]);
		if (++probes % 5000 == 0)
			sweep();
	}
}

static void run_policy(const struct lc_smear_policy *pol, int year, int64_t n)
{
	struct lc_tk_config cfg;
	int64_t day = lc_days_from_civil(year, 1, 1), t0 = started;
	const char *name = pol != NULL ? pol->name : "none";
	int n_ins = 0, n_del = 0, n_cancel = 0;

	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = day * LC_SECS_PER_DAY * NS;
	cfg.smear = pol;
	LC_EQ_INT(lc_counter_new_sim(&cnt, 1000000000, 0), 0);
	LC_EQ_INT(lc_tk_new(&tk, cnt, &cfg), 0);
	LC_EQ_INT(lc_loop_new(&loop, tk, LC_LOOP_UNLOCKED), 0);
	/* exercise the bulk expiry path too (by default it starts at 2^18
	 * queued timers; this test keeps 20,000): on for the smears whose
	 * name does not start with 'c' */
	if (name[0] != 'c')
		loop->q.bulk_min = 64;
	sls_is_utc = pol == NULL;
	nst_rt = nst_tai = nst_set = 0;
	pend_mono = last_leap_mono = INT64_MAX;
	pend_dir = last_leap_dir = leap_seen = 0;
	pts = calloc(LIVE, sizeof(*pts));
	freelist = calloc(LIVE, sizeof(*freelist));
	nfree = 0;
	for (int i = LIVE - 1; i >= 0; i--)
		freelist[nfree++] = i;
	target = started + n;
	while (started < target)
		segment(&day, &n_ins, &n_del, &n_cancel);
	/* let everything armed run out for a while, then check the rest */
	lc_loop_run_sim(loop, mono() + 40 * NS);
	check_heads();
	leap_passed();
	sweep();
	printf("# smear %s from %d: %" PRId64 " timers, %d insertions, "
	       "%d deletions, %d cancelled leaps, %d clock steps\n",
	       name, year, started - t0, n_ins, n_del, n_cancel, nst_set);
	for (int i = 0; i < LIVE; i++)
		if (pts[i].slot_live)
			lc_timer_stop(&pts[i].t);
	lc_loop_free(loop);
	lc_tk_free(tk);
	lc_counter_free(cnt);
	free(pts);
	free(freelist);
}

static int64_t total_n;

static void test_property(void)
{
	struct lc_smear_policy pol[3];

	LC_EQ_INT(lc_smear_preset("minute", 0, &pol[0], NULL), 0);
	pol[0].window_ns = 2 * NS; /* ending at the leap, 2 s */
	snprintf(pol[0].name, sizeof(pol[0].name), "linear-2s-ending");
	memset(&pol[1], 0, sizeof(pol[1]));
	snprintf(pol[1].name, sizeof(pol[1].name), "cosine-4s-centred");
	pol[1].shape = LC_SMEAR_COSINE;
	pol[1].placement = LC_SMEAR_CENTRED;
	pol[1].window_ns = 4 * NS;
	LC_EQ_INT(lc_smear_preset("windows", 0, &pol[2], NULL), 0);
	/* each smear in 2030 and 2174, no smear in 2030 and 2240: eight
	 * runs of an eighth each */
	for (int i = 0; i < 8; i++) {
		const struct lc_smear_policy *p = i < 6 ? &pol[i / 2] : NULL;
		static const int year[8] = {2030, 2174, 2030, 2174,
		                            2030, 2174, 2030, 2240};
		if (p != NULL)
			LC_EQ_INT(lc_smear_validate(p, NULL), 0);
		run_policy(p, year[i], total_n / 8 + (i == 0 ? total_n % 8 : 0));
		LC_BAIL();
	}
	printf("# %" PRId64 " started, %" PRId64 " expiries (%" PRId64
	       " CANCEL_ON_SET cancellations), lateness checked on %" PRId64
	       " (%" PRId64 " skipped), overruns on %" PRId64 "\n",
	       started, fires, cancels_cos, checked_late, skipped_late,
	       ov_checked);
	printf("# delivery digest %016" PRIx64 " (seed %" PRIu64 ", %" PRId64
	       " timers)\n",
	       digest, lc_test_seed(), total_n);
	if (early || late || lost || double_fire || bad_ov || bad_cos)
		printf("# FAILED: replay with LC_SEED=%" PRIu64
		       " LC_TIMER_PROPERTY_N=%" PRId64 "\n",
		       lc_test_seed(), total_n);
	LC_GE_I64(started, total_n);
	LC_EQ_I64(early, 0);
	LC_EQ_I64(late, 0);
	LC_EQ_I64(lost, 0);
	LC_EQ_I64(double_fire, 0);
	LC_EQ_I64(bad_ov, 0);
	LC_EQ_I64(bad_cos, 0);
	LC_GT_I64(cancels_cos, 0);
	LC_GT_I64(ov_checked, 0);
}

int main(int argc, char **argv)
{
	const char *n = getenv("LC_TIMER_PROPERTY_N");
	const char *san = getenv("LC_SANITIZED");

	lc_test_init(argc, argv);
	total_n = 10000000;
	if (SANITIZER_BUILD || (san != NULL && strcmp(san, "1") == 0)) {
		total_n = 1000000;
		printf("# %s: 1,000,000 timers instead of 10,000,000\n",
		       SANITIZER_BUILD ? "sanitizer build" : "LC_SANITIZED=1");
	}
	if (n != NULL && *n != '\0')
		total_n = strtoll(n, NULL, 0);
	LC_RUN(test_property,
	       "random timers across leaps, smears and steps: none early, late, lost; overruns exact");
	return lc_test_done();
}
