/*
 * counter.c - sources of cycles: simulated, the host's clock_gettime clock,
 * and the x86-64 invariant TSC. The only module that reads the host's clock
 * (the timekeeper's host following goes through a callback or
 * clock_gettime(CLOCK_REALTIME) in timekeeper.c, read-only).
 */
#include "counter.h"

#include <stdlib.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static struct lc_counter *counter_alloc(int kind, uint64_t freq)
{
	struct lc_counter *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->kind = kind;
	c->freq = freq;
	c->clk = CLOCK_MONOTONIC;
	atomic_init(&c->true_ns, 0);
	return c;
}

int lc__counter_new_kind(lc_counter **out, int kind, clockid_t clk,
                         uint64_t freq)
{
	struct lc_counter *c;

	if (out == NULL || freq == 0 ||
	    (kind != LC_COUNTER_SYSTEM && kind != LC_COUNTER_TSC))
		return LC_EINVAL;
#if !defined(__x86_64__)
	if (kind == LC_COUNTER_TSC)
		return LC_EUNSUPPORTED_COUNTER;
#endif
	c = counter_alloc(kind, freq);
	if (c == NULL)
		return LC_ENOMEM;
	c->clk = clk;
	*out = c;
	return 0;
}

int lc_counter_new_sim(lc_counter **out, uint64_t freq_hz, int64_t ppb_error)
{
	struct lc_counter *c;

	/* The counter must run forwards and its cycle count must fit the
	 * 128-bit product below: freq * (1e9 + ppb) < 2^63. */
	if (out == NULL || freq_hz == 0 || freq_hz > UINT64_C(1) << 40 ||
	    ppb_error <= -LC__NS || ppb_error > LC__NS)
		return LC_EINVAL;
	c = counter_alloc(LC_COUNTER_SIM, freq_hz);
	if (c == NULL)
		return LC_ENOMEM;
	c->ppb = ppb_error;
	*out = c;
	return 0;
}

int lc_counter_new_system(lc_counter **out, int clk)
{
	struct lc_counter *c;
	struct timespec ts;

	if (out == NULL || lc__host.clock_gettime((clockid_t)clk, &ts) != 0)
		return LC_EINVAL;
	c = counter_alloc(LC_COUNTER_SYSTEM, 1000000000u);
	if (c == NULL)
		return LC_ENOMEM;
	c->clk = (clockid_t)clk;
	*out = c;
	return 0;
}

#if defined(__x86_64__)
static int64_t raw_ns(void)
{
	struct timespec ts;

	lc__host.clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return lc__ts_to_ns(&ts);
}

/* A (CLOCK_MONOTONIC_RAW, TSC) pair taken as close together as we can: the
 * TSC read between two clock reads, keeping the tightest of a few tries, and
 * the clock value taken as the midpoint. */
static void tsc_pair(int64_t *ns, uint64_t *tsc)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < 5; i++) {
		int64_t a = raw_ns();
		uint64_t t = lc__rdtsc();
		int64_t b = raw_ns();

		if (b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*tsc = t;
		}
	}
}
#endif

int lc_counter_new_tsc(lc_counter **out, struct lc_error *err)
{
#if defined(__x86_64__)
	unsigned int eax, ebx, ecx, edx;
	struct lc_counter *c;
	int64_t ns0, ns1;
	uint64_t t0, t1;
	unsigned __int128 f;

	if (out == NULL)
		return LC_EINVAL;
	if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 ||
	    eax < 0x80000007u)
		return lc__error(err, LC_EUNSUPPORTED_COUNTER, "tsc", 0,
		                 "CPUID has no leaf 0x80000007 (advanced power "
		                 "management), so the TSC cannot be known to be "
		                 "invariant");
	__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
	if (!(edx & (1u << 8)))
		return lc__error(err, LC_EUNSUPPORTED_COUNTER, "tsc", 0,
		                 "CPUID 0x80000007 EDX bit 8 (invariant TSC) is "
		                 "clear: the TSC may stop or change rate");
	/* Calibrate over ~20 ms of CLOCK_MONOTONIC_RAW (the host's counter at
	 * its nominal rate): freq = dtsc * 1e9 / dns, to well under 1 ppm
	 * with sub-microsecond pairs. */
	tsc_pair(&ns0, &t0);
	do
		tsc_pair(&ns1, &t1);
	while (ns1 - ns0 < 20000000);
	if (t1 <= t0)
		return lc__error(err, LC_EUNSUPPORTED_COUNTER, "tsc", 0,
		                 "the TSC did not advance during calibration");
	f = ((unsigned __int128)(t1 - t0) * 1000000000u +
	     (uint64_t)(ns1 - ns0) / 2) /
	    (uint64_t)(ns1 - ns0);
	if (f < 1000000u || f > (UINT64_C(1) << 40))
		return lc__error(err, LC_EUNSUPPORTED_COUNTER, "tsc", 0,
		                 "calibrated TSC frequency %llu Hz is implausible",
		                 (unsigned long long)f);
	c = counter_alloc(LC_COUNTER_TSC, (uint64_t)f);
	if (c == NULL)
		return LC_ENOMEM;
	*out = c;
	return 0;
#else
	if (out == NULL)
		return LC_EINVAL;
	return lc__error(err, LC_EUNSUPPORTED_COUNTER, "tsc", 0,
	                 "the tsc counter needs x86-64 (this build is for "
	                 "another architecture)");
#endif
}

int lc_counter_new_best(lc_counter **out)
{
	if (lc_counter_new_tsc(out, NULL) == 0)
		return 0;
	return lc_counter_new_system(out, CLOCK_MONOTONIC);
}

clockid_t lc__counter_writer_clock(int host_leap)
{
	return host_leap == LC_HOST_LEAP_KERNEL ? CLOCK_MONOTONIC
	                                        : CLOCK_MONOTONIC_RAW;
}

int lc__counter_new_writer(lc_counter **out, int host_leap)
{
	if (lc_counter_new_tsc(out, NULL) == 0)
		return 0;
	return lc_counter_new_system(out,
	                             (int)lc__counter_writer_clock(host_leap));
}

void lc_counter_free(lc_counter *c)
{
	free(c);
}

/* cycles = floor(true_ns * freq * (1e9 + ppb) / 1e18): freq nominal cycles
 * per nominal second, running (1e9 + ppb) / 1e9 times as fast as true time.
 * The product is at most 2^63 * 2^40 * 2^31 < 2^128 for true_ns < 2^63. */
static uint64_t sim_cycles(const struct lc_counter *c, int64_t t)
{
	unsigned __int128 p;

	if (t <= 0)
		return 0;
	p = (unsigned __int128)(uint64_t)t * c->freq *
	    (uint64_t)(LC__NS + c->ppb);
	return (uint64_t)(p / ((unsigned __int128)LC__NS * (uint64_t)LC__NS));
}

uint64_t lc__counter_read_sim(const struct lc_counter *c)
{
	return sim_cycles(c, atomic_load_explicit(
	                             &((struct lc_counter *)c)->true_ns,
	                             memory_order_acquire));
}

uint64_t lc_counter_read(const lc_counter *c)
{
	if (c == NULL)
		return 0;
	return lc__counter_read(c);
}

uint64_t lc_counter_freq(const lc_counter *c)
{
	if (c == NULL)
		return 0;
	return c->freq;
}

int lc_counter_kind(const lc_counter *c)
{
	if (c == NULL)
		return LC_EINVAL;
	return c->kind;
}

int lc__counter_is_host_mono(const lc_counter *c)
{
	return c->kind == LC_COUNTER_SYSTEM && c->clk == CLOCK_MONOTONIC &&
	       c->freq == 1000000000u;
}

const char *lc_counter_name(const lc_counter *c)
{
	if (c == NULL)
		return NULL;
	switch (c->kind) {
	case LC_COUNTER_SIM:
		return "sim";
	case LC_COUNTER_SYSTEM:
		return "system";
	case LC_COUNTER_TSC:
		return "tsc";
	}
	return "?";
}

void lc_sim_advance(lc_counter *c, int64_t ns)
{
	if (c == NULL)
		return;
	if (c->kind != LC_COUNTER_SIM || ns <= 0)
		return;
	atomic_fetch_add_explicit(&c->true_ns, ns, memory_order_acq_rel);
}

void lc_sim_set_true_ns(lc_counter *c, int64_t true_ns)
{
	if (c == NULL)
		return;
	int64_t cur;

	if (c->kind != LC_COUNTER_SIM)
		return;
	cur = atomic_load_explicit(&c->true_ns, memory_order_relaxed);
	/* Never backwards, even against a concurrent advance. */
	while (true_ns > cur &&
	       !atomic_compare_exchange_weak_explicit(&c->true_ns, &cur, true_ns,
	                                             memory_order_acq_rel,
	                                             memory_order_relaxed))
		;
}

int64_t lc_sim_true_ns(const lc_counter *c)
{
	if (c == NULL)
		return 0;
	if (c->kind != LC_COUNTER_SIM)
		return 0;
	return atomic_load_explicit(&((struct lc_counter *)c)->true_ns,
	                            memory_order_acquire);
}

/* The least t with sim_cycles(t) >= cycles: t = ceil(cycles * 1e18 /
 * (freq * (1e9 + ppb))). Saturates at INT64_MAX. */
int64_t lc_sim_true_ns_at(const lc_counter *c, uint64_t cycles)
{
	if (c == NULL)
		return 0;
	unsigned __int128 num, den, q;

	if (c->kind != LC_COUNTER_SIM || cycles == 0)
		return 0;
	num = (unsigned __int128)cycles * (uint64_t)LC__NS * (uint64_t)LC__NS;
	den = (unsigned __int128)c->freq * (uint64_t)(LC__NS + c->ppb);
	q = (num + den - 1) / den;
	return q > (unsigned __int128)INT64_MAX ? INT64_MAX : (int64_t)q;
}
