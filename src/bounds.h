/*
 * bounds.h - the error bound of every clock (leapclock.h, "Error bounds"):
 * what the writer keeps of it, the snapshot word it publishes, and the
 * readers' arithmetic. Not public.
 *
 * The snapshot word `bound` (timekeeper.h):
 *	bits  0..39	half-width at the snapshot's `mono`, ns (saturated:
 *			2^40 - 1 ns is 1099 s, beyond the kernel's 16 s)
 *	bits 40..59	drift rate from then on, units of 100 ppb, rounded up
 *			(up to 10.48 %, above the steer's 10 % limit)
 *	bits 60..61	enum lc_bounds_status
 *	bit  62		a deleted second lies behind the snapshot's instant
 *			within the half-width: the snapshot no longer holds
 *			that leap (it arms the next one), so a reader's
 *			earliest on a realtime-derived clock is taken 1 s
 *			lower (the readings before the deletion are 1 s
 *			below the post-leap offset's)
 *	bit  63		set by a writer that publishes bounds (0: unknown)
 */
#ifndef LC_BOUNDS_H
#define LC_BOUNDS_H

#include "internal.h"

#include <stdint.h>

#define LC__BND_W_MAX      ((INT64_C(1) << 40) - 1)
#define LC__BND_RATE_UNIT  100 /* ppb */
#define LC__BND_RATE_MAX   ((INT64_C(1) << 20) - 1)
#define LC__BND_VALID      (UINT64_C(1) << 63)
#define LC__BND_DEL_BEHIND (UINT64_C(1) << 62)

/* The writer's record of the bound's parts at its last sample. */
struct lc__bnd_src {
	int have;            /* a sample with the host's error was taken */
	int status;          /* enum lc_bounds_status at it */
	int unsync;          /* STA_UNSYNC */
	int64_t sample_mono; /* MONOTONIC of the sample */
	int64_t maxerror_ns, esterror_ns;
	int64_t bracket_ns;  /* the sample's read width */
	int64_t residual_ns; /* |phase left from the host| */
	int64_t mode_ns;     /* what a declared host mode adds (set by it) */
	int64_t drift_ppb;   /* growth from the sample on */
	int64_t err_ns;      /* the half-width at sample_mono */
};

static inline uint64_t lc__bnd_pack(int64_t w_ns, int64_t drift_ppb, int status)
{
	int64_t r = (drift_ppb + LC__BND_RATE_UNIT - 1) / LC__BND_RATE_UNIT;

	if (w_ns < 0)
		w_ns = 0;
	if (w_ns > LC__BND_W_MAX)
		w_ns = LC__BND_W_MAX;
	if (r < 0)
		r = 0;
	if (r > LC__BND_RATE_MAX)
		r = LC__BND_RATE_MAX;
	return LC__BND_VALID | (uint64_t)w_ns | ((uint64_t)r << 40) |
	       ((uint64_t)(status & 3) << 60);
}

/* The drift term's rate as a multiplier: R = ceil(r * 100 ppb * 2^32) for
 * the word's rate r (units of 100 ppb), so that the growth over d ns is
 * ceil(d * R / 2^32) (lc__bnd_drift): a multiply and a shift where
 * ceil(d * r * 100 / 10^9) needs a division (a multiply by 10^9's
 * reciprocal after the first, on a reader's path). R / 2^32 is at least
 * the rate, and above it by less than 2^-32 ns per ns (0.23 ppb): the
 * term is never less than the rate's growth and exceeds ceil(d * r * 100
 * / 10^9) by at most 1 ns for d below 2^32 ns (4.3 s, four heartbeats),
 * by at most 1 ns per further 4.3 s beyond. It depends only on the word:
 * a reader computes it while the counter is read. */
static inline uint64_t lc__bnd_rate_fix(uint64_t r)
{
	/* r < 2^20: r * 100 * 2^32 < 2^59 */
	return (r * ((uint64_t)LC__BND_RATE_UNIT << 32) + (uint64_t)LC__NS -
	        1) /
	       (uint64_t)LC__NS;
}

/* ceil(d * R / 2^32) with R from lc__bnd_rate_fix: R < 2^29, so below
 * 2^34 ns (17 s) the product and the rounding fit in 64 bits; a page
 * older than that takes the 128-bit product (the same value). */
uint64_t lc__bnd_drift_wide(uint64_t d, uint64_t rfix)
    __attribute__((cold, noinline));

static inline uint64_t lc__bnd_drift(uint64_t d, uint64_t rfix)
{
	if (lc__unlikely(d >> 34))
		return lc__bnd_drift_wide(d, rfix);
	return (d * rfix + ((UINT64_C(1) << 32) - 1)) >> 32;
}

/* The half-width `d` ns after the snapshot's instant (d >= 0), rounded
 * up, and the status then (a snapshot older than the staleness limit is
 * free-running). 0 and LC_BOUNDS_UNKNOWN for a word of no bound. The
 * readers' fast paths (bounds.c) compute the same. */
static inline int64_t lc__bnd_at(uint64_t word, int64_t d, int *status)
{
	int64_t w = (int64_t)(word & (uint64_t)LC__BND_W_MAX);
	uint64_t r = (word >> 40) & (uint64_t)LC__BND_RATE_MAX;
	int st = (int)((word >> 60) & 3);

	if (!(word & LC__BND_VALID) || st == 0) {
		*status = 0;
		return 0;
	}
	if (d < 0)
		d = 0;
	w += (int64_t)lc__bnd_drift((uint64_t)d, lc__bnd_rate_fix(r));
	if (st == 1 && d > LC_TIMELINE_STALE_S * LC__NS)
		st = 2;
	*status = st;
	return w;
}

struct lc_timekeeper;
struct lc_host_sample;

/* The writer (under its lock): a host sample `hs` of read width
 * `width_ns` at MONOTONIC `mono`, after the following decided (so that
 * tk->hf holds the residual). */
void lc__bnd_sample(struct lc_timekeeper *tk, const struct lc_host_sample *hs,
                    int64_t width_ns, int64_t mono);
/* The word to publish with a snapshot at MONOTONIC `mono`. */
uint64_t lc__bnd_word(const struct lc_timekeeper *tk, int64_t mono);

#endif /* LC_BOUNDS_H */
