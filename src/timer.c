/*
 * timer.c - timers that never fire early: the per-clock queues (a 4-ary heap
 * with the key next to the pointer, see timer.h), the timer API, and the
 * expiry pass that reads each clock before anything fires.
 *
 * Keys. Each base is keyed in its own clock's time, so that a step of one
 * clock (a leap, a settime) leaves the order of every queue intact and only
 * changes which MONOTONIC instant a base's head maps to:
 *   - MONOTONIC_RAW, MONOTONIC, BOOTTIME, TAI, REALTIME: the clock's ns, as
 *     lc_now_ns() returns them;
 *   - UTC and UTC_SLS: the reading (s, n) in the UTC convention (n < 2e9;
 *     23:59:60.x is s of 23:59:59 with n >= 1e9, and comes before 00:00:00
 *     = s + 1, n 0). With day = floor(s / 86400) and sod = s - 86400 day,
 *     the key is day * 86401e9 + sod * 1e9 + n: each UTC day gets 86,401 s
 *     of keys, its last second two (23:59:59 and 23:59:60). Leaps come only
 *     at the end of a UTC day (leap files and the table are checked for
 *     it, adjtimex inserts at midnight), so the map keeps the order of
 *     every reading exactly and is one-to-one; a deadline with n >= 1e9 in
 *     any other second is keyed as the next second's 00.000, the first
 *     reading at or past it (as lc_tk_mono_at() says). Days -106,749 to
 *     106,749 (1677-09-24 to 2262-04-09, about REALTIME's ns range) have
 *     keys; later deadlines are clamped to INT64_MAX, "never", which a
 *     reading never reaches (it is clamped below it), earlier ones to
 *     INT64_MIN. The plain map (s, n) -> 2e9 s + n covered only
 *     |s| < 4.6e9: from 2116-02-20 on a reading clamped to the "never" key
 *     itself, so every timer there fired at once (issue 12 item 2).
 *     UTC_SLS is keyed so because without a smear plan it is UTC and
 *     shows 23:59:60, where its ns (lc_now_ns) repeat 00:00:00's: on ns
 *     keys a 00:00:00 deadline was due at the start of 23:59:60 (issue 12
 *     item 1). While a plan runs its readings have n < 1e9 and their keys
 *     order as their ns.
 *
 * UTC arithmetic (relative starts, periods) is on elapsed UTC, and so is
 * UTC_SLS's while no smear plan runs (UTC_SLS is UTC then); while one runs,
 * UTC_SLS arithmetic is on its own ns (no leap: the plan absorbs it). With
 * the leap the timekeeper has armed at POSIX second W (the 00:00:00 after
 * it), the linear value of a reading (s, n) with p = s * 1e9 + n is
 *   insertion: p for s < W (the inserted second, s = W-1 and n >= 1e9,
 *              gives p in [W e9, W e9 + 1e9) as it should), p + 1e9 for s >= W;
 *   deletion:  p for s < W-1, (W-1) e9 for readings inside the deleted
 *              second (they never happen: the clock jumps over them), and
 *              p - 1e9 for s >= W;
 *   no leap:   p.
 */
#include "timer.h"
#include "timekeeper.h"

#include <stdlib.h>
#include <string.h>

#define DAY_S   INT64_C(86400)
#define DAY_KEY (INT64_C(86401) * LC__NS)
/* the last day all of whose keys stay below INT64_MAX ("never") */
#define DAY_MAX ((INT64_MAX - DAY_KEY) / DAY_KEY)

static inline struct lc__timer *priv(lc_timer *t)
{
	return (struct lc__timer *)(void *)t;
}

static inline const struct lc__timer *cpriv(const lc_timer *t)
{
	return (const struct lc__timer *)(const void *)t;
}

/* ------------------------------------------------------------------------ */
/* The 4-ary heap                                                            */
/* ------------------------------------------------------------------------ */

/*
 * Index arithmetic with the root at H0 = 3: the children of k are
 * 4(k - H0) + H0 + 1 .. + 4 = 4k - 8 .. 4k - 5, and the parent of c >= 4 is
 * (c - 4) / 4 + 3 = c / 4 + 2 (integer division). Entry k is 16 bytes, so
 * children 4k-8 .. 4k-5 occupy bytes 64k - 128 .. 64k - 65: one aligned cache
 * line when the array is 64-byte aligned.
 */
static inline uint32_t first_child(uint32_t k)
{
	return 4 * k - 8;
}

static inline uint32_t parent(uint32_t c)
{
	return c / 4 + 2;
}

/*
 * Tombstones. A stopped timer's entry may stay in the array (the caller may
 * free the timer at once): its pointer slot then holds (seq << 1) | 1, an
 * odd value no timer pointer has, so that ties keep ordering exactly as
 * they did and the heap stays valid. Where pointers have fewer than 64 bits
 * the sequence would not fit: there stopping removes the entry outright.
 */
#if UINTPTR_MAX > 0xffffffffu
#define LC__TOMBSTONES 1
#else
#define LC__TOMBSTONES 0
#endif

static inline int ent_dead(const struct lc__heap_ent *e)
{
	return ((uintptr_t)e->t & 1u) != 0;
}

static inline uint64_t ent_seq(const struct lc__heap_ent *e)
{
	return ent_dead(e) ? (uint64_t)((uintptr_t)e->t >> 1) : e->t->seq;
}

static inline int ent_less(const struct lc__heap_ent *a,
                           const struct lc__heap_ent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	/* ties: start order; a tombstone keeps its timer's seq */
	return ent_seq(a) < ent_seq(b);
}

static inline void set_idx(struct lc__heap_ent *e, uint32_t k)
{
	if (!ent_dead(e))
		e->t->idx = k;
}

static void sift_up(struct lc__heap *h, uint32_t k)
{
	struct lc__heap_ent e = h->v[k];

	while (k > LC__HEAP0) {
		uint32_t p = parent(k);
		if (!ent_less(&e, &h->v[p]))
			break;
		h->v[k] = h->v[p];
		set_idx(&h->v[k], k);
		k = p;
	}
	h->v[k] = e;
	set_idx(&h->v[k], k);
}

static void sift_down(struct lc__heap *h, uint32_t k)
{
	struct lc__heap_ent e = h->v[k];
	uint32_t n = h->n;

	for (;;) {
		uint32_t c = first_child(k), m;
		if (c >= n)
			break;
		m = c;
		if (c + 3 < n) {
			/* all four children: two pairs, then the winners */
			uint32_t a = ent_less(&h->v[c + 1], &h->v[c]) ? c + 1 : c;
			uint32_t b = ent_less(&h->v[c + 3], &h->v[c + 2]) ? c + 3
			                                                  : c + 2;
			m = ent_less(&h->v[b], &h->v[a]) ? b : a;
		} else {
			for (uint32_t i = c + 1; i < n; i++)
				if (ent_less(&h->v[i], &h->v[m]))
					m = i;
		}
		if (!ent_less(&h->v[m], &e))
			break;
		h->v[k] = h->v[m];
		set_idx(&h->v[k], k);
		k = m;
	}
	h->v[k] = e;
	set_idx(&h->v[k], k);
}

int lc__heap_reserve(struct lc__heap *h, size_t n)
{
	struct lc__heap_ent *v;
	size_t cap;

	/* at most 2^30 entries, so that 4k - 8 never wraps in 32 bits */
	if (n > (UINT32_C(1) << 30) - 64)
		return LC_ENOMEM;
	if (n + LC__HEAP0 <= h->cap)
		return 0;
	cap = h->cap ? h->cap : 64;
	while (cap < n + LC__HEAP0)
		cap *= 2;
	/* cap is a power of two >= 64: cap * 16 is a multiple of 64 */
	v = aligned_alloc(64, cap * sizeof(*v));
	if (v == NULL)
		return LC_ENOMEM;
	if (h->v != NULL)
		memcpy(v, h->v, (size_t)h->n * sizeof(*v));
	free(h->v);
	h->v = v;
	h->cap = (uint32_t)cap;
	if (h->n < LC__HEAP0)
		h->n = LC__HEAP0;
	return 0;
}

void lc__heap_free(struct lc__heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

int lc__heap_insert(struct lc__heap *h, struct lc__timer *t)
{
	uint32_t k;

	if (lc__unlikely(h->n >= h->cap)) {
		size_t slots = h->n > LC__HEAP0 ? h->n - LC__HEAP0 : 0;
		int r = lc__heap_reserve(h, slots + 1);
		if (r < 0)
			return r;
	}
	k = h->n++;
	h->v[k].key = t->key;
	h->v[k].t = t;
	sift_up(h, k);
	return 0;
}

static void remove_at(struct lc__heap *h, uint32_t k)
{
	uint32_t last = h->n - 1;

	h->n = last;
	if (k == last)
		return;
	h->v[k] = h->v[last];
	if (k > LC__HEAP0 && ent_less(&h->v[k], &h->v[parent(k)]))
		sift_up(h, k);
	else
		sift_down(h, k);
}

/* Keeps the head live: drops tombstones that reached it. */
static void clean_top(struct lc__heap *h)
{
	while (h->n > LC__HEAP0 && ent_dead(&h->v[LC__HEAP0])) {
		remove_at(h, LC__HEAP0);
		h->dead--;
	}
}

/* Floyd's bottom-up heap construction over [H0, n), indexes first. */
static void heapify(struct lc__heap *h)
{
	for (uint32_t e = LC__HEAP0; e < h->n; e++)
		set_idx(&h->v[e], e);
	if (h->n > LC__HEAP0 + 1)
		for (uint32_t e = parent(h->n - 1); e >= LC__HEAP0; e--)
			sift_down(h, e);
}

/* Drops every tombstone and rebuilds the heap: O(n). */
static void compact(struct lc__heap *h)
{
	uint32_t w = LC__HEAP0;

	for (uint32_t k = LC__HEAP0; k < h->n; k++)
		if (!ent_dead(&h->v[k]))
			h->v[w++] = h->v[k];
	h->n = w;
	h->dead = 0;
	heapify(h);
}

void lc__heap_remove(struct lc__heap *h, struct lc__timer *t)
{
	uint32_t k = t->idx;

	t->idx = 0;
	remove_at(h, k);
	clean_top(h);
	if (h->dead > 64 && h->dead > lc__heap_count(h))
		compact(h);
}

void lc__heap_cancel(struct lc__heap *h, struct lc__timer *t)
{
	uint32_t k = t->idx;

	t->idx = 0;
	if (k == LC__HEAP0 || !LC__TOMBSTONES) {
		/* the head leaves at once; the live count still drops, so the
		 * bound on tombstones below applies here too */
		remove_at(h, k);
		clean_top(h);
	} else {
		h->v[k].t = (struct lc__timer *)(uintptr_t)((t->seq << 1) | 1u);
		h->dead++;
	}
	if (h->dead > 64 && h->dead > lc__heap_count(h))
		compact(h);
}

int lc__heap_check(const struct lc__heap *h)
{
	uint32_t dead = 0;

	if (h->n > LC__HEAP0 && ent_dead(&h->v[LC__HEAP0]))
		return -3;
	for (uint32_t k = LC__HEAP0; k < h->n; k++) {
		if (ent_dead(&h->v[k]))
			dead++;
		else if (h->v[k].t->idx != k || h->v[k].t->key != h->v[k].key)
			return -1;
		if (k > LC__HEAP0 && ent_less(&h->v[k], &h->v[parent(k)]))
			return -2;
	}
	return dead == h->dead ? 0 : -4;
}

/* ------------------------------------------------------------------------ */
/* Keys                                                                      */
/* ------------------------------------------------------------------------ */

/* Clocks keyed in the UTC convention (see the top of the file). */
static inline int utc_keyed(int clock)
{
	return clock == LC_CLOCK_UTC || clock == LC_CLOCK_UTC_SLS;
}

int64_t lc__utc_key(int64_t sec, int64_t nsec)
{
	int64_t day = lc__fdiv(sec, DAY_S), sod = lc__fmod(sec, DAY_S);

	if (nsec >= LC__NS && sod != DAY_S - 1) {
		/* no 23:59:60 but at a day's end: the next second's start
		 * (sod + 1 <= 86399, the same day) */
		sod++;
		nsec = 0;
	}
	if (day > DAY_MAX)
		return INT64_MAX;
	if (day < -DAY_MAX)
		return INT64_MIN;
	return day * DAY_KEY + sod * LC__NS + nsec;
}

/* A UTC key back to (s, n), n in [1e9, 2e9) only in a day's last second. */
static void utc_unkey(int64_t key, int64_t *sec, int64_t *nsec)
{
	int64_t day = lc__fdiv(key, DAY_KEY), r = lc__fmod(key, DAY_KEY);
	int64_t sod = r / LC__NS;

	if (sod > DAY_S - 1)
		sod = DAY_S - 1; /* 23:59:60 */
	*sec = day * DAY_S + sod;
	*nsec = r - sod * LC__NS;
}

static int64_t ts_key(int clock, const struct timespec *ts)
{
	int64_t s = (int64_t)ts->tv_sec;

	if (utc_keyed(clock))
		return lc__utc_key(s, ts->tv_nsec);
	if (s > (INT64_MAX - LC__NS) / LC__NS)
		return INT64_MAX;
	if (s < INT64_MIN / LC__NS + 1)
		return INT64_MIN;
	return s * LC__NS + ts->tv_nsec;
}

struct timespec lc__key_to_ts(int clock, int64_t key)
{
	struct timespec ts;
	int64_t s, n;

	if (!utc_keyed(clock))
		return lc__ns_to_ts(key);
	utc_unkey(key, &s, &n);
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)n;
	return ts;
}

int64_t lc__base_now(lc_timekeeper *tk, int clock)
{
	struct timespec ts;
	int64_t k;

	if (!utc_keyed(clock))
		return lc_now_ns(tk, (lc_clock_id)clock);
	if (lc_gettime(tk, (lc_clock_id)clock, &ts) < 0)
		return INT64_MIN;
	k = lc__utc_key(ts.tv_sec, ts.tv_nsec);
	/* a reading past the keys stays below "never" */
	return k == INT64_MAX ? INT64_MAX - 1 : k;
}

struct utc_leap {
	int64_t when; /* POSIX seconds of the 00:00:00 after the leap */
	int dir;      /* 0: none armed */
};

static struct utc_leap utc_leap_of(lc_timekeeper *tk)
{
	struct utc_leap lp = {0, 0};
	if (lc_tk_next_leap(tk, &lp.when, &lp.dir) < 0)
		lp.dir = 0;
	/* a leap whose instant has no ns value meets no key: ignore (this
	 * also keeps (when + 1) * 1e9 below from overflowing) */
	if (lp.when > INT64_MAX / LC__NS - 2 ||
	    lp.when < INT64_MIN / LC__NS + 2)
		lp.dir = 0;
	return lp;
}

/* Does key k (not a clamped one) name 23:59:60? Then *when is the second
 * after it. */
static int key_in_leap(int64_t k, int64_t *when)
{
	int64_t s, n;

	if (k == INT64_MAX || k == INT64_MIN)
		return 0;
	utc_unkey(k, &s, &n);
	*when = s + 1;
	return n >= LC__NS;
}

/* The leap for arithmetic on keys a and b of `clock`: the armed one, or,
 * while an inserted second is in progress (the timekeeper no longer reports
 * it as next), the one that a reading inside 23:59:60 proves. None for
 * UTC_SLS while a smear plan runs: it never shows 23:59:60 then. */
static struct utc_leap utc_leap_for(lc_timekeeper *tk, int clock, int64_t a,
                                    int64_t b)
{
	struct utc_leap lp = {0, 0};

	if (clock == LC_CLOCK_UTC_SLS && !lc__tk_sls_is_utc(tk))
		return lp;
	lp = utc_leap_of(tk);
	if (lp.dir == 0 &&
	    (key_in_leap(a, &lp.when) || key_in_leap(b, &lp.when)))
		lp.dir = 1;
	return lp;
}

static int64_t utc_lin(int64_t key, struct utc_leap lp)
{
	int64_t s, n, p;

	if (key == INT64_MAX || key == INT64_MIN)
		return key;
	utc_unkey(key, &s, &n);
	p = s * LC__NS + n; /* |s| <= 9.2233e9, n < 2e9: no overflow */
	if (lp.dir > 0 && s >= lp.when)
		return p + LC__NS;
	if (lp.dir < 0 && s >= lp.when)
		return p - LC__NS;
	if (lp.dir < 0 && s == lp.when - 1)
		return (lp.when - 1) * LC__NS;
	return p;
}

static int64_t utc_from_lin(int64_t l, struct utc_leap lp)
{
	int64_t p = l;

	if (l == INT64_MAX || l == INT64_MIN)
		return l;
	if (lp.dir > 0 && l >= lp.when * LC__NS) {
		if (l < (lp.when + 1) * LC__NS)
			return lc__utc_key(lp.when - 1,
			                   l - (lp.when - 1) * LC__NS);
		p = l - LC__NS;
	} else if (lp.dir < 0 && l >= (lp.when - 1) * LC__NS) {
		p = lc__sat_add(l, LC__NS);
	}
	return lc__utc_key(lc__fdiv(p, LC__NS), lc__fmod(p, LC__NS));
}

/* ------------------------------------------------------------------------ */
/* Lists                                                                     */
/* ------------------------------------------------------------------------ */

static void ready_push(struct lc_loop *l, struct lc__timer *t)
{
	t->rnext = NULL;
	t->rprev = l->rtail;
	if (l->rtail)
		l->rtail->rnext = t;
	else
		l->rhead = t;
	l->rtail = t;
	t->state |= LC__T_READY;
}

static void ready_unlink(struct lc_loop *l, struct lc__timer *t)
{
	if (t->rprev)
		t->rprev->rnext = t->rnext;
	else
		l->rhead = t->rnext;
	if (t->rnext)
		t->rnext->rprev = t->rprev;
	else
		l->rtail = t->rprev;
	t->rnext = t->rprev = NULL;
	t->state &= ~(LC__T_READY | LC__T_CANCELLED);
}

static void cos_push(struct lc_loop *l, struct lc__timer *t)
{
	t->cprev = NULL;
	t->cnext = l->chead;
	if (l->chead)
		l->chead->cprev = t;
	l->chead = t;
	l->ncos++;
}

static void cos_unlink(struct lc_loop *l, struct lc__timer *t)
{
	if (t->cprev)
		t->cprev->cnext = t->cnext;
	else
		l->chead = t->cnext;
	if (t->cnext)
		t->cnext->cprev = t->cprev;
	t->cnext = t->cprev = NULL;
	l->ncos--;
}

static int on_cos_list(const struct lc__timer *t)
{
	return (t->flags & LC_TIMER_CANCEL_ON_SET) &&
	       (t->state & LC__T_INHEAP);
}

/* Takes a timer out of everything; lock held. */
static void detach(struct lc_loop *l, struct lc__timer *t)
{
	if (on_cos_list(t))
		cos_unlink(l, t);
	if (t->state & LC__T_INHEAP) {
		lc__heap_cancel(&l->base[t->clock], t);
		t->state &= ~LC__T_INHEAP;
	}
	if (t->state & LC__T_READY)
		ready_unlink(l, t);
}

/* ------------------------------------------------------------------------ */
/* Clock-set detection                                                       */
/* ------------------------------------------------------------------------ */

/* REALTIME - MONOTONIC and TAI - MONOTONIC. The reads are at successive
 * instants m1 <= r, a <= m2, so each offset is exact to within m2 - m1
 * (0 on a simulated counter that nobody advances meanwhile). */
static void sample_offsets(lc_timekeeper *tk, int64_t *real, int64_t *tai,
                           int64_t *spread)
{
	int64_t m1 = lc_now_ns(tk, LC_CLOCK_MONOTONIC);
	int64_t r = lc_now_ns(tk, LC_CLOCK_REALTIME);
	int64_t a = lc_now_ns(tk, LC_CLOCK_TAI);
	int64_t m2 = lc_now_ns(tk, LC_CLOCK_MONOTONIC);

	*real = r - m1;
	*tai = a - m1;
	*spread = m2 - m1;
}

static int moved(int64_t then, int64_t now, int64_t tol)
{
	int64_t d = now - then;
	return d > tol || d < -tol;
}

/* Was the clock of COS timer t set since it was armed? (leapclock.h) */
static int clock_was_set_for(const struct lc_loop *l,
                             const struct lc__timer *t, int64_t real,
                             int64_t tai, int64_t spread)
{
	/* each sample is exact to within its spread; the loop keeps the
	 * largest one seen at arming time */
	int64_t tol = l->offs_spread + spread;
	int r = moved(t->offs_real, real, tol), a = moved(t->offs_tai, tai, tol);

	switch (t->clock) {
	case LC_CLOCK_REALTIME: return r;
	case LC_CLOCK_TAI: return a;
	default: return r && a; /* UTC, UTC_SLS: a step of both */
	}
}

/*
 * The MONOTONIC instant at which the armed leap steps REALTIME: the start of
 * the inserted 23:59:60 (REALTIME goes back from W to W-1) or of the deleted
 * 23:59:59 (REALTIME jumps from W-1 to W), W the POSIX second after the
 * leap. TAI does not step there, so the instant is where TAI reads the
 * pre-leap REALTIME value plus the pre-leap TAI-UTC L: (W + L) e9 for an
 * insertion, (W - 1 + L) e9 for a deletion. L is TAI - REALTIME now,
 * rounded to whole seconds (it is whole; rounding absorbs the read skew).
 * An instant already past means the step has been seen: nothing to wait for.
 */
void lc__cos_refresh_locked(struct lc_loop *l, int force)
{
	int64_t when = 0, mono, now, L;
	int dir = 0;
	struct timespec ts;

	if (lc_tk_next_leap(l->tk, &when, &dir) < 0)
		dir = 0;
	if (!force && when == l->cos_leap_when && dir == l->cos_leap_dir)
		return;
	l->cos_leap_when = when;
	l->cos_leap_dir = dir;
	l->cos_leap_mono = INT64_MAX;
	if (dir == 0 || when > (INT64_C(1) << 33) || when < -(INT64_C(1) << 33))
		return;
	L = lc_now_ns(l->tk, LC_CLOCK_TAI) - lc_now_ns(l->tk, LC_CLOCK_REALTIME);
	L = lc__fdiv(L + LC__NS / 2, LC__NS);
	ts.tv_sec = (time_t)(when + L - (dir < 0 ? 1 : 0));
	ts.tv_nsec = 0;
	if (lc_tk_mono_at(l->tk, LC_CLOCK_TAI, &ts, &mono) < 0)
		return;
	now = lc_now_ns(l->tk, LC_CLOCK_MONOTONIC);
	if (mono > now)
		l->cos_leap_mono = mono;
}

static void cancel_set_timers(struct lc_loop *l)
{
	int64_t real, tai, spread;
	struct lc__timer *t, *next;

	sample_offsets(l->tk, &real, &tai, &spread);
	if (spread > l->offs_spread)
		l->offs_spread = spread;
	for (t = l->chead; t != NULL; t = next) {
		next = t->cnext;
		if (!clock_was_set_for(l, t, real, tai, spread)) {
			/* judge each event on its own: a leap (REALTIME only)
			 * and a later ADJ_TAI (TAI only) are not a step of
			 * both, so the reference moves to what was just read */
			t->offs_real = real;
			t->offs_tai = tai;
			continue;
		}
		cos_unlink(l, t);
		lc__heap_cancel(&l->base[t->clock], t);
		t->state &= ~LC__T_INHEAP;
		/* an expiry still pending delivery is dropped, as a cancelled
		 * timerfd drops its ticks */
		if (t->state & LC__T_READY)
			ready_unlink(l, t);
		t->pend_overrun = 0;
		ready_push(l, t);
		t->state |= LC__T_CANCELLED;
	}
}

/* ------------------------------------------------------------------------ */
/* Expiry                                                                    */
/* ------------------------------------------------------------------------ */

/* The next deadline of periodic timer t due at reading `now` (both keys):
 * d_k = d + k * interval for the smallest k >= 1 with d_k > now; the
 * overrun is k - 1 (the periods that passed unseen), as timer_getoverrun. */
static void advance_periodic(struct lc_loop *l, struct lc__timer *t,
                             int64_t now)
{
	struct utc_leap lp = {0, 0};
	int64_t d = t->key, n = now, k, next, since;

	if (utc_keyed((int)t->clock)) {
		lp = utc_leap_for(l->tk, (int)t->clock, d, now);
		d = utc_lin(d, lp);
		n = utc_lin(now, lp);
	}
	if (__builtin_sub_overflow(n, d, &since) || since < 0)
		since = since < 0 ? 0 : INT64_MAX;
	k = since / t->interval + 1;
	if (__builtin_mul_overflow(k, t->interval, &next) ||
	    __builtin_add_overflow(d, next, &next))
		next = INT64_MAX;
	t->pend_overrun = k - 1;
	t->key = utc_keyed((int)t->clock) ? utc_from_lin(next, lp) : next;
}

/*
 * Bulk expiry. Popping k due timers one at a time costs k sifts of log4(n)
 * levels, each level a cache miss once the heap outgrows the cache. When at
 * least a quarter of a base is due (a burst: a step of the clock, a loop
 * that slept, a benchmark), it is cheaper to take them all at once:
 * partition the array into due and not due (one sequential pass), sort the
 * due entries by (key, seq) (the order the pops would have given), hand
 * them out, and rebuild the heap from what is left (Floyd's bottom-up
 * heapify, O(n)). Both paths deliver the same timers in the same order.
 */
/* Below loop->bulk_min (LC__BULK_MIN by default) queued timers a base
 * always pops one at a time: while the heap array fits in the caches the
 * pops are cheap and the bulk pass's extra sweeps over the timers cost more
 * (bench_timers: 1e5 timers expire 1.2-1.3x libev's rate one at a time,
 * 0.75x in bulk; 1e6-1e7 timers 2-2.6x in bulk, ~1.2x one at a time). */

/* Due entries, counted by a walk of the due part of the tree (closed
 * upwards: a due node's parent is due); stops at `limit`. */
static uint32_t count_due(const struct lc__heap *h, int64_t now,
                          uint32_t limit)
{
	uint32_t stack[128], cnt = 0;
	int sp = 0;

	if (h->n <= LC__HEAP0 || h->v[LC__HEAP0].key > now)
		return 0;
	stack[sp++] = LC__HEAP0;
	while (sp > 0) {
		uint32_t k = stack[--sp], c = first_child(k);
		if (++cnt >= limit)
			return cnt;
		/* depth <= 16 for 2^30 entries, at most 3 siblings waiting
		 * per level plus 4 children: the stack never exceeds 64 */
		for (uint32_t i = c; i < c + 4 && i < h->n; i++)
			if (h->v[i].key <= now)
				stack[sp++] = i;
	}
	return cnt;
}

static void swap_ent(struct lc__heap_ent *a, struct lc__heap_ent *b)
{
	struct lc__heap_ent x = *a;
	*a = *b;
	*b = x;
}

/* Quicksort (Hoare partition around the middle element) by (key, seq),
 * insertion sort below 16; recursion on the smaller side only. */
static void sort_ents(struct lc__heap_ent *a, size_t n)
{
	while (n > 16) {
		struct lc__heap_ent p = a[n / 2];
		ptrdiff_t i = -1, j = (ptrdiff_t)n;
		for (;;) {
			do
				i++;
			while (ent_less(&a[i], &p));
			do
				j--;
			while (ent_less(&p, &a[j]));
			if (i >= j)
				break;
			swap_ent(&a[i], &a[j]);
		}
		/* [0, j] and [j + 1, n), both non-empty */
		if ((size_t)j + 1 < n - (size_t)j - 1) {
			sort_ents(a, (size_t)j + 1);
			a += j + 1;
			n -= (size_t)j + 1;
		} else {
			sort_ents(a + j + 1, n - (size_t)j - 1);
			n = (size_t)j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct lc__heap_ent x = a[i];
		size_t j = i;
		while (j > 0 && ent_less(&x, &a[j - 1])) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/* The common part of both paths for due timer t, already out of the heap
 * array's order (idx stale): returns 1 if it stays queued (periodic). */
static int take_due(struct lc_loop *l, struct lc__timer *t, int64_t now)
{
	int stays = 0;

	if (t->state & LC__T_READY) {
		/* still undelivered: count it as missed */
		ready_unlink(l, t);
		t->pend_overrun++;
	} else {
		t->pend_overrun = 0;
	}
	if (t->interval > 0) {
		int64_t prev = t->pend_overrun;
		advance_periodic(l, t, now);
		t->pend_overrun += prev;
		t->seq = ++l->seq;
		stays = 1;
	} else {
		if (on_cos_list(t))
			cos_unlink(l, t);
		t->state &= ~LC__T_INHEAP;
		t->idx = 0;
	}
	ready_push(l, t);
	return stays;
}

static size_t bulk_expire(struct lc_loop *l, struct lc__heap *h, int64_t now)
{
	struct lc__heap_ent *v = h->v;
	uint32_t lo = LC__HEAP0, n, i, j, k, w;

	if (h->dead) {
		/* drop the tombstones first (the heap is rebuilt anyway) */
		uint32_t d = LC__HEAP0;
		for (uint32_t e = LC__HEAP0; e < h->n; e++)
			if (!ent_dead(&v[e]))
				v[d++] = v[e];
		h->n = d;
		h->dead = 0;
	}
	n = h->n;
	i = lo;
	j = n;

	while (i < j) {
		if (v[i].key <= now)
			i++;
		else
			swap_ent(&v[i], &v[--j]);
	}
	k = i - lo;
	sort_ents(v + lo, k);
	w = lo;
	for (uint32_t e = lo; e < lo + k; e++) {
		struct lc__timer *t = v[e].t;
		if (take_due(l, t, now)) {
			v[w].key = t->key;
			v[w].t = t;
			w++;
		}
	}
	memmove(v + w, v + lo + k, (size_t)(n - lo - k) * sizeof(*v));
	h->n = w + (n - lo - k);
	heapify(h);
	return k;
}

size_t lc__expire_locked(struct lc_loop *l)
{
	size_t moved_n = 0;

	if (l->ncos) {
		uint64_t seq = lc_clock_was_set_seq(l->tk);
		if (seq != l->cos_set_seq ||
		    lc_now_ns(l->tk, LC_CLOCK_MONOTONIC) >= l->cos_leap_mono) {
			l->cos_set_seq = seq;
			cancel_set_timers(l);
			lc__cos_refresh_locked(l, 1);
		}
	}
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		struct lc__heap *h = &l->base[c];
		struct lc__timer *t;
		int64_t now;

		if (lc__heap_count(h) == 0)
			continue;
		/* The guard: the clock's own reading decides, never a
		 * conversion. A head not yet due stays queued. */
		now = lc__base_now(l->tk, c);
		if (lc__heap_count(h) >= l->bulk_min &&
		    count_due(h, now, lc__heap_count(h) / 4) >=
		            lc__heap_count(h) / 4) {
			moved_n += bulk_expire(l, h, now);
			continue;
		}
		while ((t = lc__heap_top(h)) != NULL && t->key <= now) {
			lc__heap_remove(h, t);
			if (take_due(l, t, now))
				lc__heap_insert(h, t); /* fits: just removed */
			moved_n++;
		}
	}
	return moved_n;
}

int lc__run_ready_locked(struct lc_loop *l, int honour_stop)
{
	int n = 0;

	while (l->rhead != NULL && !(honour_stop && l->stop)) {
		struct lc__timer *t = l->rhead;
		lc_timer_cb cb = t->cb;
		void *data = t->data;
		int status = (t->state & LC__T_CANCELLED) ? LC_ECANCELED : 0;

		ready_unlink(l, t);
		t->overrun = t->pend_overrun;
		t->pend_overrun = 0;
		n++;
		lc__loop_unlock(l);
		cb((lc_timer *)(void *)t, status, data);
		lc__loop_lock(l);
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* The timer API                                                             */
/* ------------------------------------------------------------------------ */

int lc_timer_init(lc_loop *loop, lc_timer *t, lc_clock_id id, lc_timer_cb cb,
                  void *data)
{
	struct lc__timer *p;

	if (loop == NULL || t == NULL || cb == NULL || (int)id < 0 ||
	    id >= LC_CLOCK_COUNT)
		return LC_EINVAL;
	p = priv(t);
	memset(t, 0, sizeof(*t));
	p->loop = loop;
	p->cb = cb;
	p->data = data;
	p->clock = (uint32_t)id;
	return 0;
}

static int cos_clock(int clock)
{
	return clock == LC_CLOCK_REALTIME || clock == LC_CLOCK_TAI ||
	       clock == LC_CLOCK_UTC || clock == LC_CLOCK_UTC_SLS;
}

/* `abs_key` is a deadline key if LC_TIMER_ABSTIME, else rel_ns is used. */
static int start_common(struct lc__timer *t, int flags, int64_t abs_key,
                        int64_t rel_ns, int64_t interval)
{
	struct lc_loop *l = t->loop;
	int64_t key = abs_key;
	int r;

	if ((flags & ~(LC_TIMER_ABSTIME | LC_TIMER_CANCEL_ON_SET)) ||
	    ((flags & LC_TIMER_CANCEL_ON_SET) &&
	     (!(flags & LC_TIMER_ABSTIME) || !cos_clock((int)t->clock))))
		return LC_EINVAL;
	lc__loop_lock(l);
	if (t->state)
		detach(l, t);
	if (!(flags & LC_TIMER_ABSTIME)) {
		int64_t now = lc__base_now(l->tk, (int)t->clock);
		if (utc_keyed((int)t->clock)) {
			struct utc_leap lp =
			        utc_leap_for(l->tk, (int)t->clock, now, now);
			key = utc_from_lin(lc__sat_add(utc_lin(now, lp), rel_ns),
			                   lp);
		} else {
			key = lc__sat_add(now, rel_ns);
		}
	}
	t->key = key;
	t->interval = interval;
	t->flags = (uint32_t)flags;
	t->seq = ++l->seq;
	r = lc__heap_insert(&l->base[t->clock], t);
	if (r < 0) {
		lc__loop_unlock(l);
		return r;
	}
	t->state |= LC__T_INHEAP;
	if (flags & LC_TIMER_CANCEL_ON_SET) {
		if (l->ncos == 0) {
			l->cos_set_seq = lc_clock_was_set_seq(l->tk);
			lc__cos_refresh_locked(l, 1);
		}
		int64_t spread;
		sample_offsets(l->tk, &t->offs_real, &t->offs_tai, &spread);
		if (spread > l->offs_spread)
			l->offs_spread = spread;
		cos_push(l, t);
	}
	if (t->idx == LC__HEAP0 && l->sleeping)
		lc__loop_kick_locked(l);
	lc__loop_unlock(l);
	return 0;
}

int lc_timer_start(lc_timer *t, int flags, const struct timespec *value,
                   const struct timespec *interval)
{
	struct lc__timer *p = priv(t);
	int64_t iv = 0, rel = 0, key = 0;
	long max_nsec;

	if (t == NULL || p->loop == NULL || value == NULL)
		return LC_EINVAL;
	max_nsec = (utc_keyed((int)p->clock) && (flags & LC_TIMER_ABSTIME))
	                   ? 2 * 1000000000L
	                   : 1000000000L;
	if (value->tv_nsec < 0 || value->tv_nsec >= max_nsec)
		return LC_EINVAL;
	if (interval != NULL) {
		if (interval->tv_sec < 0 || interval->tv_nsec < 0 ||
		    interval->tv_nsec >= 1000000000L)
			return LC_EINVAL;
		iv = ts_key(LC_CLOCK_MONOTONIC, interval);
	}
	if (flags & LC_TIMER_ABSTIME) {
		key = ts_key((int)p->clock, value);
	} else {
		if (value->tv_sec < 0)
			return LC_EINVAL;
		rel = ts_key(LC_CLOCK_MONOTONIC, value);
	}
	return start_common(p, flags, key, rel, iv);
}

int lc_timer_start_ns(lc_timer *t, int flags, int64_t value_ns,
                      int64_t interval_ns)
{
	struct lc__timer *p = priv(t);
	int64_t key = value_ns;

	if (t == NULL || p->loop == NULL || interval_ns < 0)
		return LC_EINVAL;
	if (!(flags & LC_TIMER_ABSTIME) && value_ns < 0)
		return LC_EINVAL;
	if ((flags & LC_TIMER_ABSTIME) && utc_keyed((int)p->clock))
		key = lc__utc_key(lc__fdiv(value_ns, LC__NS),
		                  lc__fmod(value_ns, LC__NS));
	return start_common(p, flags, key, value_ns, interval_ns);
}

int lc_timer_stop(lc_timer *t)
{
	struct lc__timer *p;
	int was;

	if (t == NULL || (p = priv(t))->loop == NULL)
		return 0;
	lc__loop_lock(p->loop);
	was = p->state != 0;
	if (was)
		detach(p->loop, p);
	lc__loop_unlock(p->loop);
	return was;
}

int lc_timer_active(lc_timer *t)
{
	if (t == NULL)
		return 0;
	struct lc__timer *p = priv(t);
	int r;

	if (p->loop == NULL)
		return 0;
	lc__loop_lock(p->loop);
	r = p->state != 0;
	lc__loop_unlock(p->loop);
	return r;
}

int64_t lc__key_remaining(lc_timekeeper *tk, int clock, int64_t key)
{
	int64_t now = lc__base_now(tk, clock), d = key, diff;

	if (utc_keyed(clock)) {
		struct utc_leap lp = utc_leap_for(tk, clock, key, now);
		d = utc_lin(key, lp);
		now = utc_lin(now, lp);
	}
	if (__builtin_sub_overflow(d, now, &diff))
		diff = d > now ? INT64_MAX : INT64_MIN;
	return diff;
}

int lc_timer_remaining(lc_timer *t, struct timespec *left)
{
	if (t == NULL)
		return LC_EINVAL;
	struct lc__timer *p = priv(t);
	struct lc_loop *l = p->loop;
	int64_t key, diff;

	if (l == NULL || left == NULL)
		return LC_EINVAL;
	lc__loop_lock(l);
	if (p->state == 0) {
		lc__loop_unlock(l);
		return LC_ENOENT;
	}
	key = p->key;
	lc__loop_unlock(l);
	diff = lc__key_remaining(l->tk, (int)p->clock, key);
	if (diff < 0)
		diff = 0;
	*left = lc__ns_to_ts(diff);
	return 0;
}

int lc_timer_deadline(lc_timer *t, struct timespec *deadline)
{
	if (t == NULL)
		return LC_EINVAL;
	struct lc__timer *p = priv(t);
	int r = 0;

	if (p->loop == NULL || deadline == NULL)
		return LC_EINVAL;
	lc__loop_lock(p->loop);
	if (p->state == 0)
		r = LC_ENOENT;
	else
		*deadline = lc__key_to_ts((int)p->clock, p->key);
	lc__loop_unlock(p->loop);
	return r;
}

int64_t lc_timer_overrun(lc_timer *t)
{
	if (t == NULL)
		return 0;
	return priv(t)->overrun;
}

void *lc_timer_data(const lc_timer *t)
{
	if (t == NULL)
		return NULL;
	return cpriv(t)->data;
}

lc_clock_id lc_timer_clock(const lc_timer *t)
{
	if (t == NULL)
		return LC_CLOCK_COUNT;
	return (lc_clock_id)cpriv(t)->clock;
}
