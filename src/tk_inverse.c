/*
 * tk_inverse.c - the timekeeper's inverses, for timers: the MONOTONIC
 * instant at which a clock first reads a deadline (the exact leap: a
 * deadline inside a repeated second, 23:59:60 on UTC, the smear's exact
 * inverse), and the counter value at which MONOTONIC reaches an instant.
 * Pure functions of a snapshot (tk_inverse.h), tested in
 * tests/test_tk_inverse.c; lc__tk_mono_at() and lc__tk_cycles_at() apply
 * them to the published snapshot.
 */
#include "tk_inverse.h"

#include "tk_sls.h"

static int64_t ceil_div128(__int128 a, __int128 b)
{
	__int128 q = a / b;

	if ((a % b != 0) && ((a < 0) == (b < 0)))
		q++;
	if (q > INT64_MAX)
		return INT64_MAX;
	if (q < INT64_MIN)
		return INT64_MIN;
	return (int64_t)q;
}

/* The counter delta k (from cycle_last, may be negative) at which
 * base + ((k * mult + frac) >> shift) first reaches `target`. */
static int64_t delta_at(int64_t base, uint64_t mult, uint64_t frac,
                        unsigned shift, int64_t target)
{
	__int128 need =
	    ((__int128)target - base) * ((__int128)1 << shift) - (__int128)frac;

	return ceil_div128(need, (__int128)mult);
}

static int64_t mono_at_delta(const struct lc__tk_snap *s, int64_t k)
{
	unsigned shift = (unsigned)(s->shift_max & 0xff);
	__int128 v = (__int128)k * (__int128)s->mult + (__int128)s->frac;

	/* floor division by 2^shift, for negative k too */
	return s->mono + (int64_t)(v >> shift);
}

/* First MONOTONIC instant at which REALTIME (exact leap) reads >= d:
 * REALTIME is mono + before until leap_mono, mono + after from then on.
 * An insertion makes the readings of [leap_sec - 1 s, leap_sec) happen
 * twice: first in [leap_mono - 1 s, leap_mono), again in [leap_mono,
 * leap_mono + 1 s) (after = before - 1 s). Asked at `now` >= leap_mono
 * (in the repeated second or later), the first occurrence is past and
 * REALTIME now reads below d if d is still ahead in the repeat: the
 * answer from now on is the repeated occurrence, d - after (Linux's
 * hrtimer, armed during the leap second, expires there too). If that is
 * before now as well, it is the last instant the clock reached d (a past
 * deadline: a timer fires at once), as for any past deadline. */
static int64_t rt_inverse(const struct lc__tk_snap *s, int64_t d, int64_t now)
{
	int64_t before = s->offs_real, after = s->offs_real, m;

	if (s->leap_dir != 0) {
		if (s->leap_folded)
			before = s->offs_real + s->leap_dir * LC__NS;
		else
			after = s->offs_real - s->leap_dir * LC__NS;
	}
	m = lc__sat_add(d, -before);
	if (m < s->leap_mono && !(s->leap_dir > 0 && now >= s->leap_mono &&
	                          m >= s->leap_mono - LC__NS))
		return m;
	m = lc__sat_add(d, -after);
	return m > s->leap_mono ? m : s->leap_mono;
}

static int64_t utc_inverse(const struct lc__tk_snap *s,
                           const struct timespec *d)
{
	int64_t sec = (int64_t)d->tv_sec, nsec = (int64_t)d->tv_nsec;

	if (nsec >= LC__NS) {
		/* 23:59:60.x: exists only in the inserted second at hand;
		 * elsewhere the first reading at or past it is the next
		 * second's 00.000. */
		if (s->leap_dir > 0 && sec == s->leap_sec - 1)
			return s->leap_mono + (nsec - LC__NS);
		return rt_inverse(s, (sec + 1) * LC__NS, INT64_MIN);
	}
	if (s->leap_dir > 0) {
		int64_t before = s->offs_real, after;

		if (s->leap_folded)
			before += LC__NS;
		after = before - LC__NS;
		/* Readings before 00:00:00 of the leap come before it, all
		 * later ones after the inserted second. */
		if (sec < s->leap_sec)
			return lc__sat_add(sec * LC__NS + nsec, -before);
		return lc__sat_add(sec * LC__NS + nsec, -after);
	}
	return rt_inverse(s, sec * LC__NS + nsec, INT64_MIN);
}

int lc__tk_mono_at_snap(const struct lc__tk_snap *s, int64_t now,
                        lc_clock_id id, const struct timespec *deadline,
                        int64_t *mono_ns)
{
	int64_t d, k;
	unsigned shift;

	if (deadline == NULL || mono_ns == NULL || deadline->tv_nsec < 0 ||
	    deadline->tv_nsec >= 2 * LC__NS ||
	    (deadline->tv_nsec >= LC__NS && id != LC_CLOCK_UTC &&
	     id != LC_CLOCK_UTC_SLS))
		return LC_EINVAL;
	if ((int64_t)deadline->tv_sec > INT64_MAX / LC__NS - 2 ||
	    (int64_t)deadline->tv_sec < INT64_MIN / LC__NS + 2)
		return LC_ERANGE;
	d = lc__ts_to_ns(deadline);
	shift = (unsigned)(s->shift_max & 0xff);
	switch (id) {
	case LC_CLOCK_MONOTONIC:
		*mono_ns = d;
		return 0;
	case LC_CLOCK_BOOTTIME:
		*mono_ns = lc__sat_add(d, -s->offs_boot);
		return 0;
	case LC_CLOCK_TAI:
		*mono_ns = lc__sat_add(d, -s->offs_tai);
		return 0;
	case LC_CLOCK_MONOTONIC_RAW:
		k = delta_at(s->raw_mono, s->raw_mult, s->raw_frac, shift, d);
		*mono_ns = mono_at_delta(s, k);
		return 0;
	case LC_CLOCK_REALTIME:
		if ((s->flags & LC__TKF_RT_SMEARED) &&
		    lc__smear_plan_active(&s->plan))
			*mono_ns = lc__tk_sls_inverse(s, d);
		else
			*mono_ns = rt_inverse(s, d, now);
		return 0;
	case LC_CLOCK_UTC_SLS:
		if (lc__smear_plan_active(&s->plan)) {
			if (deadline->tv_nsec >= LC__NS)
				d = ((int64_t)deadline->tv_sec + 1) * LC__NS;
			*mono_ns = lc__tk_sls_inverse(s, d);
			return 0;
		}
		/* no plan: UTC_SLS == UTC */
		*mono_ns = utc_inverse(s, deadline);
		return 0;
	case LC_CLOCK_UTC:
		*mono_ns = utc_inverse(s, deadline);
		return 0;
	default:
		return LC_EINVAL;
	}
}

int lc__tk_mono_at(const lc_timekeeper *tk, lc_clock_id id,
                   const struct timespec *deadline, int64_t *mono_ns)
{
	struct lc__tk_snap s;
	int64_t mono;

	if (deadline == NULL || mono_ns == NULL)
		return LC_EINVAL;
	lc__tk_read_snap(tk, &s, &mono);
	return lc__tk_mono_at_snap(&s, mono, id, deadline, mono_ns);
}

uint64_t lc__tk_cycles_at_snap(const struct lc__tk_snap *s, int64_t mono_ns)
{
	int64_t k = delta_at(s->mono, s->mult, s->frac,
	                     (unsigned)(s->shift_max & 0xff), mono_ns);

	if (k < 0 && (uint64_t)-k > s->cycle_last)
		return 0;
	if (k > 0 && (uint64_t)k > UINT64_MAX - s->cycle_last)
		return UINT64_MAX;
	return s->cycle_last + (uint64_t)k;
}

int lc__tk_cycles_at(const lc_timekeeper *tk, int64_t mono_ns,
                     uint64_t *cycles)
{
	struct lc__tk_snap s;
	int64_t mono;

	if (cycles == NULL)
		return LC_EINVAL;
	lc__tk_read_snap(tk, &s, &mono);
	*cycles = lc__tk_cycles_at_snap(&s, mono_ns);
	return 0;
}
