/*
 * loop.h - the loop (loop.c): a timer queue (timer.h), the lock that
 * serialises it, and the drivers' state. Internal; the tests read it.
 */
#ifndef LC_LOOP_H
#define LC_LOOP_H

#include "timer.h"

#include <pthread.h>
#include <stdatomic.h>

/* Per-base cache of the MONOTONIC instant of the head (section "Next
 * deadline" in loop.c): valid while the head key, the clock-was-set
 * sequence and the armed leap are the ones it was computed with. */
struct lc__base_cache {
	int64_t key;
	int64_t mono;
	uint64_t set_seq;
	int64_t leap_when;
	int leap_dir;
	int valid;
};

/* A thread, as the loop records its owner (loop.c: self_id): the thread
 * pointer where the compiler gives it, else pthread_self(). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define LC__THREAD_POINTER 1
typedef const void *lc__thread_id;
#else
typedef pthread_t lc__thread_id;
#endif

/* lc_loop.mode */
enum {
	LC__LOOP_UNLOCKED,   /* LC_LOOP_UNLOCKED: no lock at all */
	LC__LOOP_OWNER,      /* only the owner has used it; membarrier */
	LC__LOOP_OWNER_XCHG, /* the same without membarrier */
	LC__LOOP_SHARED      /* another thread has used it: the mutex */
};

struct lc_loop {
	struct lc__tq q;
	/* the lock (section "The lock" in loop.c) */
	_Atomic int mode;     /* LC__LOOP_*: only ever goes to SHARED */
	_Atomic int busy;     /* the owner is inside without the mutex */
	lc__thread_id owner;  /* the thread that created it */
	pthread_mutex_t lock;
	/* drivers */
	struct lc__base_cache cache[LC_CLOCK_COUNT];
	uint64_t guard_rearms; /* heads found not due when converted due */
	int tfd;
	int64_t tfd_armed;  /* MONOTONIC ns the timerfd is armed for */
	int sleeping;       /* lc_loop_run is blocked on tfd */
	int stop;
	/* lc_loop_run on a timekeeper that follows the host: a REALTIME
	 * TFD_TIMER_CANCEL_ON_SET timerfd that wakes it when the host's clock
	 * is set (-1: none yet, -2: none here), and how long it still looks
	 * for the timekeeper to follow that step (loop.c sleep_until). */
	int hfd;
	int watch_ms;
	uint64_t watch_seq;
};

#endif /* LC_LOOP_H */
