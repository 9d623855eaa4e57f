/*
 * tk_follow.h - following the host (tk_follow.c), for the timekeeper's
 * writer: the tick (lc_update) and creation. Not public. All take the
 * writer's lock held (creation: before the timekeeper is shared).
 */
#ifndef LC_TK_FOLLOW_H
#define LC_TK_FOLLOW_H

#include "leapclock.h"

#include <stdint.h>

/* One sample of the host: the simulated one configured, else this host's
 * (the kernel's facts and step signal where it has them). 0 or < 0. */
int lc__tk_host_sample(const lc_timekeeper *tk, struct lc_host_sample *hs);
/* The tightest sample between two counter reads; *mid the counter at its
 * middle, *width_ns its width. -1 if no sample could be had. */
int lc__tk_sample_bracketed(const lc_timekeeper *tk, struct lc_host_sample *hs,
                            uint64_t *mid, int64_t *width_ns);
/* What the following learns from the sample that set REALTIME at
 * creation (s.mono already set). */
int64_t lc__tk_prime_follow(lc_timekeeper *tk,
                            const struct lc_host_sample *hs);
/* The host's REALTIME to start from (primes the following if on). */
int64_t lc__tk_host_realtime(lc_timekeeper *tk);
/* One update of the following at MONOTONIC mono_now: sample, decide,
 * steer or step. */
void lc__tk_follow_host(lc_timekeeper *tk, int64_t mono_now);

/* The in-process writer (lc_default): a detection is also said on
 * stderr, once. Takes the lock. */
void lc__tk_follow_report_stderr(lc_timekeeper *tk);

#endif /* LC_TK_FOLLOW_H */
