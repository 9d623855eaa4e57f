/*
 * timer.h - the timer queue (timer.c; its heap in timer_heap.c): per-clock
 * heaps of timers keyed in their own clock's time, the ready list and the
 * cancel-on-set watch. It takes no lock and knows no driver: loop.c owns
 * the loop (the lock, the timerfd, the public lc_timer_* and lc_loop_*
 * functions) and calls it, as libuv's core calls its timer module. Internal.
 *
 * Each base is a 4-ary min-heap of (key, timer) pairs in one array per clock
 * id, as libev keeps its timers: the key (the deadline in the clock's own
 * time) sits next to the pointer so that a sift compares keys without
 * touching the timers, and the four children of a node fill one 64-byte
 * cache line (the root is at index LC__HEAP0 = 3 so that children 4k-8 ..
 * 4k-5 start on a multiple of 4 entries). Equal keys are ordered by the
 * sequence number given when the timer was started (the only time a sift
 * reads a timer). Each timer records its index; stopping leaves a
 * tombstone in O(1) (lc__heap_cancel). bench_timers measures it against an
 * intrusive pairing heap, libev and libuv.
 */
#ifndef LC_TIMER_H
#define LC_TIMER_H

#include "internal.h"

#define LC__HEAP0 3u
#define LC__BULK_MIN (UINT32_C(1) << 18) /* 4 MB of heap array */
#define LC__RSKIP 8u /* ready list: prefetch this many timers ahead */

/* Timer states (lc__timer.state bits) */
#define LC__T_INHEAP 0x1u /* queued in its base */
#define LC__T_READY 0x2u  /* on the ready list, callback pending */
#define LC__T_CANCELLED 0x4u /* the pending delivery is LC_ECANCELED */

struct lc__tq;

struct lc__timer {
	/* line 0: everything starting, stopping and expiring touch */
	int64_t key;          /* deadline in the base's key space */
	union {
		uint64_t seq; /* start order, for ties (while queued) */
		/* On the ready list and not queued, where seq is unused: a
		 * timer pushed LC__RSKIP places later in the same expiry
		 * (uintptr_t: it may be stopped and freed before this one is
		 * popped, and is then only prefetched, never read), 0 if
		 * none. Popping prefetches it, so that the walk of the ready
		 * list is not one cache miss after another. */
		uintptr_t rskip;
	};
	struct lc__tq *q;     /* its queue (lc_timer_init); NULL: never set up */
	int64_t interval;     /* ns on the timer's clock; 0: one-shot */
	uint32_t idx;   /* heap index (>= LC__HEAP0), 0 when not queued */
	uint32_t clock; /* lc_clock_id */
	uint32_t flags; /* LC_TIMER_* it was started with */
	uint32_t state; /* LC__T_*, LC__T_CANCELLED for the pending delivery */
	/* bytes 48-127: expiry, delivery and cancel-on-set. What a start and
	 * a stop touch is the first 48 bytes, so that it is one cache line
	 * also in an array whose timers start 16 bytes into a line (glibc's
	 * malloc of a large array), where bytes 48-63 are in the next. */
	struct lc__timer *rnext, *rprev; /* ready list */
	lc_timer_cb cb;
	void *data;
	int64_t overrun;      /* overruns of the last delivered expiry */
	int64_t pend_overrun; /* overruns of the pending (ready) expiry */
	struct lc__timer *cnext, *cprev; /* cancel-on-set list */
	int64_t offs_real;    /* REALTIME - MONOTONIC when armed (COS) */
	int64_t offs_tai;     /* TAI - MONOTONIC when armed (COS) */
};

_Static_assert(sizeof(struct lc__timer) <= sizeof(struct lc_timer),
               "struct lc_timer is too small for the private timer");
_Static_assert(offsetof(struct lc__timer, state) + 4 <= 48,
               "a start's and a stop's fields fit in 48 bytes");

/* Both lines of a timer, ahead of an expiry or a delivery. */
static inline void lc__prefetch_timer(const struct lc__timer *t)
{
#if defined(__GNUC__)
	__builtin_prefetch(t, 1);
	__builtin_prefetch((const char *)t + 64, 1);
#else
	(void)t;
#endif
}

struct lc__heap_ent {
	int64_t key;
	struct lc__timer *t;
};

struct lc__heap {
	struct lc__heap_ent *v; /* 64-byte aligned */
	uint32_t n;             /* entries in use, counting the 3 unused */
	uint32_t cap;
	uint32_t dead;          /* tombstones (odd t, below) among them */
};

/* The heap (timer_heap.c). */
int lc__heap_reserve(struct lc__heap *h, size_t n);
void lc__heap_free(struct lc__heap *h);
/* Grows the array by one doubling (lc__heap_insert's slow path). */
int lc__heap_grow(struct lc__heap *h);
/* Takes t out, sifting (the expiry path and the tests). */
void lc__heap_remove(struct lc__heap *h, struct lc__timer *t);
/* Index LC__HEAP0 is the head; NULL if empty. */
static inline struct lc__timer *lc__heap_top(const struct lc__heap *h)
{
	return h->n > LC__HEAP0 ? h->v[LC__HEAP0].t : NULL;
}
/* Live (queued) timers. */
static inline uint32_t lc__heap_count(const struct lc__heap *h)
{
	return h->n > LC__HEAP0 ? h->n - LC__HEAP0 - h->dead : 0;
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

/* Entry order: key, then start order; a tombstone keeps its timer's seq. */
static inline int lc__ent_dead(const struct lc__heap_ent *e)
{
	return ((uintptr_t)e->t & 1u) != 0;
}

static inline uint64_t lc__ent_seq(const struct lc__heap_ent *e)
{
	return lc__ent_dead(e) ? (uint64_t)((uintptr_t)e->t >> 1) : e->t->seq;
}

/* Inserts t at t->key: 0 or LC_ENOMEM. Inline: it is the other half of
 * every start-and-stop. A new entry that is not below its parent (most of
 * them, with random deadlines) costs one compare against the array; each
 * level it climbs moves the parent down and writes that timer's index. */
static inline int lc__heap_insert(struct lc__heap *h, struct lc__timer *t)
{
	int64_t key = t->key;
	uint64_t seq = t->seq;
	struct lc__heap_ent *v;
	uint32_t k;

	if (lc__unlikely(h->n >= h->cap)) {
		int r = lc__heap_grow(h);
		if (r < 0)
			return r;
	}
	v = h->v;
	k = h->n++;
	while (k > LC__HEAP0) {
		uint32_t p = k / 4 + 2; /* the parent (timer_heap.c) */
		if (key > v[p].key || (key == v[p].key && seq >= lc__ent_seq(&v[p])))
			break;
		v[k] = v[p];
		if (!lc__ent_dead(&v[k]))
			v[k].t->idx = k;
		k = p;
	}
	v[k].key = key;
	v[k].t = t;
	t->idx = k;
	return 0;
}

/* Takes the entry at index k out, sifting (lc__heap_cancel's slow path). */
void lc__heap_cancel_at(struct lc__heap *h, uint32_t k);
/* Drops every tombstone and rebuilds the heap: O(n). */
void lc__heap_compact(struct lc__heap *h);

/* Takes t out in O(1): its entry becomes a tombstone (the key and the
 * start order stay, so the heap order holds) that is dropped when it
 * reaches the head, or when tombstones outnumber the live entries (then the
 * array is compacted and re-heapified, O(n), amortised O(1) per stop). The
 * head is never a tombstone. Inline: it is half of every start-and-stop. */
static inline void lc__heap_cancel(struct lc__heap *h, struct lc__timer *t)
{
	uint32_t k = t->idx;

	/* a queued timer's index is its own live entry's */
	LC__ASSERT(k >= LC__HEAP0 && k < h->n && h->v[k].t == t &&
	           h->v[k].key == t->key);
	t->idx = 0;
	if (k == LC__HEAP0 || !LC__TOMBSTONES) {
		lc__heap_cancel_at(h, k);
		return;
	}
	if (k == h->n - 1) {
		/* the last entry: it simply leaves, with any tombstones
		 * before it (the heap order never depends on a last entry) */
		h->n = k;
		while (h->dead && lc__ent_dead(&h->v[h->n - 1])) {
			h->n--;
			h->dead--;
		}
	} else {
		h->v[k].t = (struct lc__timer *)(uintptr_t)((t->seq << 1) | 1u);
		h->dead++;
	}
	if (lc__unlikely(h->dead > 64 && h->dead > lc__heap_count(h)))
		lc__heap_compact(h);
}

/* Checks the heap property and the recorded indexes; 0 if sound. */
int lc__heap_check(const struct lc__heap *h);
/* Bulk expiry (timer.c): the due entries (key <= now), counted by a walk
 * of the due part of the tree, stopping at `limit`; ... */
uint32_t lc__heap_count_due(const struct lc__heap *h, int64_t now,
                            uint32_t limit);
/* ... the k due entries moved to v[LC__HEAP0, LC__HEAP0 + k) in (key,
 * start order) order, tombstones dropped: returns k, and h is no heap
 * until ... */
uint32_t lc__heap_split_due(struct lc__heap *h, int64_t now);
/* ... the first `kept` of those k entries (rewritten by the caller: the
 * periodic timers re-keyed) stay, the others leave, and the heap is rebuilt
 * (Floyd's heapify, O(n)). */
void lc__heap_rejoin(struct lc__heap *h, uint32_t k, uint32_t kept);

/* ---- keys (timer.c) --------------------------------------------------------- */

/* Clock reading in the base's key space: ns of the clock, or for
 * UTC and UTC_SLS lc__utc_key() of the reading (monotone in reading order
 * with 23:59:60; below INT64_MAX, "never", even past the keys' range). */
int64_t lc__base_now(lc_timekeeper *tk, int clock);
/* The key of UTC reading or deadline (sec, nsec), nsec in [0, 2e9): one
 * 86,401 s block of keys per UTC day (timer.c explains it); INT64_MAX from
 * 2262-04-10 on, INT64_MIN before 1677-09-24. */
int64_t lc__utc_key(int64_t sec, int64_t nsec);
/* Deadline `key` minus the clock's reading now, in ns of the clock (elapsed
 * UTC for UTC, and for UTC_SLS while no smear plan runs); negative when
 * due. */
int64_t lc__key_remaining(lc_timekeeper *tk, int clock, int64_t key);
/* A key back to the clock's timespec (the UTC convention for UTC and
 * UTC_SLS). */
struct timespec lc__key_to_ts(int clock, int64_t key);

/* ---- the queue ----------------------------------------------------------- */

struct lc__tq {
	lc_timekeeper *tk;
	struct lc__heap base[LC_CLOCK_COUNT];
	uint64_t seq;                    /* start order */
	struct lc__timer *rhead, *rtail; /* ready list */
	struct lc__timer *chead;         /* cancel-on-set timers */
	size_t ncos;
	uint64_t cos_set_seq; /* clock-was-set sequence last checked */
	int64_t cos_leap_mono; /* check again at this MONOTONIC instant */
	int64_t cos_leap_when; /* the leap cos_leap_mono was computed for */
	int64_t offs_spread;   /* largest spread of an offset sample (ns) */
	int cos_leap_dir;
	uint32_t bulk_min;     /* bulk expiry from this many queued timers */
	uint32_t rpushed;      /* timers pushed ready by this expiry */
	struct lc__timer *rring[LC__RSKIP]; /* the last LC__RSKIP of them */
};

/* The checked arguments of a start (lc__arm_ts, lc__arm_ns). */
struct lc__arm {
	int flags;        /* LC_TIMER_* */
	int64_t key;      /* the deadline's key, with LC_TIMER_ABSTIME */
	int64_t rel;      /* else ns from now */
	int64_t interval; /* ns; 0: one-shot */
};

void lc__tq_init(struct lc__tq *q, lc_timekeeper *tk);
void lc__tq_free(struct lc__tq *q);
/* Sets up timer t of queue q (lc_timer_init's arguments, checked). */
void lc__timer_setup(struct lc__timer *t, struct lc__tq *q, int clock,
                     lc_timer_cb cb, void *data);
/* Checks lc_timer_start's arguments for a timer set up on clock t->clock
 * and turns them into keys: 0 or LC_EINVAL. */
int lc__arm_ts(const struct lc__timer *t, int flags,
               const struct timespec *value, const struct timespec *interval,
               struct lc__arm *a);
/* The flags alone: 0 or LC_EINVAL. */
int lc__arm_flags(const struct lc__timer *t, int flags);

/* Clocks keyed in the UTC convention (timer.c). */
static inline int lc__utc_keyed(int clock)
{
	return clock == LC_CLOCK_UTC || clock == LC_CLOCK_UTC_SLS;
}

/* lc__arm_ts for lc_timer_start_ns; inline, with the start and the stop
 * below, because they are all there is to the common start and stop. */
static inline int lc__arm_ns(const struct lc__timer *t, int flags,
                             int64_t value_ns, int64_t interval_ns,
                             struct lc__arm *a)
{
	if (interval_ns < 0 || (!(flags & LC_TIMER_ABSTIME) && value_ns < 0) ||
	    ((flags & ~LC_TIMER_ABSTIME) && lc__arm_flags(t, flags) < 0))
		return LC_EINVAL;
	a->flags = flags;
	a->interval = interval_ns;
	a->key = a->rel = value_ns;
	if ((flags & LC_TIMER_ABSTIME) && lc__utc_keyed((int)t->clock))
		a->key = lc__utc_key(lc__fdiv(value_ns, LC__NS),
		                     lc__fmod(value_ns, LC__NS));
	return 0;
}

/* Arms (or re-arms) t: 1 if the queue's earliest instant may have moved
 * earlier (t is its base's new head, or it is the first cancel-on-set
 * timer, which watches the armed leap), so that a driver asleep for a later
 * instant must wake; 0 if not; LC_ENOMEM (t is then idle). */
int lc__tq_start_any(struct lc__tq *q, struct lc__timer *t,
                     const struct lc__arm *a);
static inline int lc__tq_start(struct lc__tq *q, struct lc__timer *t,
                               const struct lc__arm *a)
{
	/* the common case: an idle timer, an absolute deadline */
	if (lc__likely(t->state == 0 && a->flags == LC_TIMER_ABSTIME)) {
		t->key = a->key;
		t->interval = a->interval;
		t->flags = LC_TIMER_ABSTIME;
		t->seq = ++q->seq;
		if (lc__unlikely(lc__heap_insert(&q->base[t->clock], t) < 0))
			return LC_ENOMEM;
		t->state = LC__T_INHEAP;
		return t->idx == LC__HEAP0;
	}
	return lc__tq_start_any(q, t, a);
}

/* Disarms t and drops a pending delivery: 1 if it was armed or pending. */
int lc__tq_stop_any(struct lc__tq *q, struct lc__timer *t);
static inline int lc__tq_stop(struct lc__tq *q, struct lc__timer *t)
{
	if (t->state == 0)
		return 0;
	/* the common case: queued, not on the cancel-on-set list */
	if (lc__likely(t->state == LC__T_INHEAP &&
	               !(t->flags & LC_TIMER_CANCEL_ON_SET))) {
		lc__heap_cancel(&q->base[t->clock], t);
		t->state = 0;
		return 1;
	}
	return lc__tq_stop_any(q, t);
}

static inline int lc__timer_armed(const struct lc__timer *t)
{
	return t->state != 0;
}
/* Moves due timers to the ready list (each clock read before anything
 * fires) and cancels clock-set timers; returns how many were moved. */
size_t lc__tq_expire(struct lc__tq *q);
/* Takes the first timer off the ready list (NULL if none), its overrun
 * recorded and *status its callback's status (0 or LC_ECANCELED). */
struct lc__timer *lc__tq_pop_ready(struct lc__tq *q, int *status);
/* The MONOTONIC instant at which cancel-on-set timers must be checked
 * again (the armed leap's step; INT64_MAX: none), recomputed first if the
 * timekeeper's next leap changed. */
int64_t lc__tq_cos_mono(struct lc__tq *q);
/* Queued timers (periodic ones included, ready ones not). */
static inline size_t lc__tq_count(const struct lc__tq *q)
{
	size_t n = 0;

	for (int c = 0; c < LC_CLOCK_COUNT; c++)
		n += lc__heap_count(&q->base[c]);
	return n;
}
/* Nothing queued and nothing pending delivery. */
static inline int lc__tq_idle(const struct lc__tq *q)
{
	return q->rhead == NULL && lc__tq_count(q) == 0;
}

#endif /* LC_TIMER_H */
