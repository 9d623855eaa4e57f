/*
 * timer.h - the timer queue and the loop state shared by timer.c (the queue
 * and the timer API) and loop.c (the drivers). Internal.
 *
 * The queue is a 4-ary min-heap of (key, timer) pairs in one array per clock
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

#include <pthread.h>

#define LC__HEAP0 3u
#define LC__BULK_MIN (UINT32_C(1) << 18) /* 4 MB of heap array */

/* Timer states (lc__timer.state bits) */
#define LC__T_INHEAP 0x1u /* queued in its base */
#define LC__T_READY 0x2u  /* on the ready list, callback pending */
#define LC__T_CANCELLED 0x4u /* the pending delivery is LC_ECANCELED */

struct lc__timer {
	/* line 0: everything starting, stopping and expiring touch */
	int64_t key;          /* deadline in the base's key space */
	uint64_t seq;         /* start order, for ties */
	struct lc_loop *loop;
	int64_t interval;     /* ns on the timer's clock; 0: one-shot */
	struct lc__timer *rnext, *rprev; /* ready list */
	uint32_t idx;   /* heap index (>= LC__HEAP0), 0 when not queued */
	uint32_t clock; /* lc_clock_id */
	uint32_t flags; /* LC_TIMER_* it was started with */
	uint32_t state; /* LC__T_*, LC__T_CANCELLED for the pending delivery */
	/* line 1: delivery and cancel-on-set */
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

struct lc__heap_ent {
	int64_t key;
	struct lc__timer *t;
};

struct lc__heap {
	struct lc__heap_ent *v; /* 64-byte aligned */
	uint32_t n;             /* entries in use, counting the 3 unused */
	uint32_t cap;
	uint32_t dead;          /* tombstones (t == NULL) among them */
};

/* Per-base cache of the MONOTONIC instant of the head (section "drivers" in
 * loop.c): valid while the head key, the clock-was-set sequence and the
 * armed leap are the ones it was computed with. */
struct lc__base_cache {
	int64_t key;
	int64_t mono;
	uint64_t set_seq;
	int64_t leap_when;
	int leap_dir;
	int valid;
};

struct lc_loop {
	pthread_mutex_t lock;
	int locked; /* 0 with LC_LOOP_UNLOCKED */
	lc_timekeeper *tk;
	struct lc__heap base[LC_CLOCK_COUNT];
	struct lc__base_cache cache[LC_CLOCK_COUNT];
	uint64_t seq;
	struct lc__timer *rhead, *rtail; /* ready list */
	struct lc__timer *chead;         /* cancel-on-set timers */
	size_t ncos;
	uint64_t cos_set_seq; /* clock-was-set sequence last checked */
	int64_t cos_leap_mono; /* check again at this MONOTONIC instant */
	int64_t cos_leap_when; /* the leap cos_leap_mono was computed for */
	int64_t offs_spread;   /* largest spread of an offset sample (ns) */
	int cos_leap_dir;
	uint64_t guard_rearms; /* heads found not due when converted due */
	uint32_t bulk_min;     /* bulk expiry from this many queued timers */
	/* real driver */
	int tfd;
	int64_t tfd_armed;  /* MONOTONIC ns the timerfd is armed for */
	int sleeping;       /* lc_loop_run is blocked on tfd */
	int stop;
};

static inline void lc__loop_lock(struct lc_loop *l)
{
	if (l->locked)
		pthread_mutex_lock(&l->lock);
}

static inline void lc__loop_unlock(struct lc_loop *l)
{
	if (l->locked)
		pthread_mutex_unlock(&l->lock);
}

/* The heap (timer.c). */
int lc__heap_reserve(struct lc__heap *h, size_t n);
void lc__heap_free(struct lc__heap *h);
int lc__heap_insert(struct lc__heap *h, struct lc__timer *t);
/* Takes t out, sifting (the expiry path and the tests). */
void lc__heap_remove(struct lc__heap *h, struct lc__timer *t);
/* Takes t out in O(1): its entry becomes a tombstone (the key and the
 * start order stay, so the heap order holds; see timer.c) that is dropped
 * when it reaches the head, or when tombstones outnumber the live entries
 * (then the array is compacted and re-heapified, O(n), amortised O(1) per
 * stop). The head is never a tombstone. */
void lc__heap_cancel(struct lc__heap *h, struct lc__timer *t);
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
/* Checks the heap property and the recorded indexes; 0 if sound. */
int lc__heap_check(const struct lc__heap *h);

/* Clock reading in the base's key space (timer.c): ns of the clock, or for
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

/* Runs with the lock held (timer.c): moves due timers to the ready list,
 * cancels clock-set timers; returns how many were moved. */
size_t lc__expire_locked(struct lc_loop *l);
/* Runs the ready list, dropping the lock around each callback; stops early
 * on lc_loop_stop() if `honour_stop`. */
int lc__run_ready_locked(struct lc_loop *l, int honour_stop);
/* Recomputes the MONOTONIC instant of the armed leap's step for
 * cancel-on-set timers if the timekeeper's next leap changed (or `force`). */
void lc__cos_refresh_locked(struct lc_loop *l, int force);
/* Next MONOTONIC deadline, lock held (loop.c). */
int64_t lc__next_deadline_locked(struct lc_loop *l);
/* Wakes a loop blocked in lc_loop_run, lock held (loop.c). */
void lc__loop_kick_locked(struct lc_loop *l);

#endif /* LC_TIMER_H */
