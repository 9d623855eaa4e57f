/*
 * counter.h - the counter's representation, for the modules that read it on
 * a hot path (the timekeeper's readers inline lc__counter_read) and the
 * counter queries the rest of the library asks instead of reading fields.
 * Not public: lc_counter is opaque in leapclock.h.
 */
#ifndef LC_COUNTER_H
#define LC_COUNTER_H

#include "hostcall.h"
#include "internal.h"

#include <stdatomic.h>

struct lc_counter {
	int kind;          /* enum lc_counter_kind */
	clockid_t clk;     /* system: the host clock */
	uint64_t freq;     /* nominal Hz */
	int64_t ppb;       /* sim: actual rate error, parts per billion */
	_Atomic int64_t true_ns; /* sim: the simulation's true time */
};

#if defined(__x86_64__)
static inline uint64_t lc__rdtsc(void)
{
	uint32_t lo, hi;

	/* lfence keeps rdtsc from running ahead of the loads before it (the
	 * snapshot), as the vDSO's rdtsc_ordered() does. */
	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}
#endif

uint64_t lc__counter_read_sim(const struct lc_counter *c);

/* Reads the counter; inlined so that the hot read path has no call for the
 * tsc counter. */
static inline uint64_t lc__counter_read(const struct lc_counter *c)
{
	struct timespec ts;

#if defined(__x86_64__)
	if (lc__likely(c->kind == LC_COUNTER_TSC))
		return lc__rdtsc();
#endif
	if (c->kind == LC_COUNTER_SYSTEM) {
		lc__host.clock_gettime(c->clk, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return lc__counter_read_sim(c);
}

/* A counter of a given kind without calibration (a page reader's: the
 * writer's frequency). */
int lc__counter_new_kind(lc_counter **out, int kind, clockid_t clk,
                         uint64_t freq);

/* The host clock a writer's system counter runs on for a host whose leap
 * handling is `host_leap` (enum lc_host_leap): CLOCK_MONOTONIC in kernel
 * mode (the shim's kernel timers then map exactly), CLOCK_MONOTONIC_RAW in
 * a declared mode: the host's NTP slews MONOTONIC with REALTIME (a leap
 * slewed away, a smear followed), never RAW, so only on RAW does the
 * host's correction show as host phase, which the mode removes (DESIGN.md
 * 7). */
clockid_t lc__counter_writer_clock(int host_leap);
/* lc_counter_new_best() for a writer of a host in `host_leap`: the
 * invariant TSC where usable, else the system counter on
 * lc__counter_writer_clock(host_leap). */
int lc__counter_new_writer(lc_counter **out, int host_leap);

/* 1 if the counter's value is the host's CLOCK_MONOTONIC in ns (a system
 * counter on CLOCK_MONOTONIC at 1 GHz): a value it will read is then a
 * host CLOCK_MONOTONIC instant, which a timerfd can be armed for exactly. */
int lc__counter_is_host_mono(const lc_counter *c);

#endif /* LC_COUNTER_H */
