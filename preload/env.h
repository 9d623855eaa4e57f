/*
 * env.h - the environment contract between `leapclock run` and
 * libleapclock-preload.so, and the small parsers both sides use. Header
 * only (static functions): the shim and the CLI are separate targets.
 *
 * Variables (docs/preload.md has the user's view):
 *
 *	LEAPCLOCK_MODE       exact (default) | smear:PRESET
 *	LEAPCLOCK_PRETEND    ISO 8601 UTC instant: the program's realtime at
 *	                     the anchor instant (23:59:60 allowed on a leap)
 *	LEAPCLOCK_ANCHOR     host CLOCK_MONOTONIC ns at which the program's
 *	                     clock reads LEAPCLOCK_PRETEND. Set by the wrapper
 *	                     just before exec, or by the first shim that starts
 *	                     without it, so that every process of the tree
 *	                     (children exec'd later) shares one timeline.
 *	LEAPCLOCK_LEAP_IN    a duration ("10s", "1500ms", "2m", "10"): a
 *	                     synthetic leap that many seconds after the anchor
 *	LEAPCLOCK_LEAP_DIR   insert (default) | delete
 *	LEAPCLOCK_EXTRA_LEAP POSIX second of the 00:00:00 after the synthetic
 *	                     leap, a ':' and +1 or -1. Written by whoever
 *	                     resolves LEAPCLOCK_LEAP_IN (`leapclock run
 *	                     --leap-in`, or the first shim that finds it set),
 *	                     which then removes it, so that children reuse the
 *	                     leap; each shim adds it to its table with
 *	                     lc_leaptable_add.
 *	LEAPCLOCK_LEAPFILE   the leap table (lc_leaptable_load_system reads it)
 *	LEAPCLOCK_DEBUG      1: the shim prints its configuration to stderr
 *	LEAPCLOCK_TABLE_WARNED
 *	                     1: the leap table has expired at the program's
 *	                     time and this process tree has been told; set by
 *	                     whichever says it first (the wrapper, else the
 *	                     first shim), so that it is said once.
 */
#ifndef LC_PRELOAD_ENV_H
#define LC_PRELOAD_ENV_H

#include "leapclock.h"

#include <stdint.h>
#include <string.h>

#define LCP_ENV_MODE "LEAPCLOCK_MODE"
#define LCP_ENV_PRETEND "LEAPCLOCK_PRETEND"
#define LCP_ENV_ANCHOR "LEAPCLOCK_ANCHOR"
#define LCP_ENV_LEAP_IN "LEAPCLOCK_LEAP_IN"
#define LCP_ENV_LEAP_DIR "LEAPCLOCK_LEAP_DIR"
#define LCP_ENV_EXTRA_LEAP "LEAPCLOCK_EXTRA_LEAP"
#define LCP_ENV_LEAPFILE "LEAPCLOCK_LEAPFILE"
#define LCP_ENV_DEBUG "LEAPCLOCK_DEBUG"
#define LCP_ENV_TABLE_WARNED "LEAPCLOCK_TABLE_WARNED"

/* The longest synthetic-leap delay: a week keeps pretend instants sane. */
#define LCP_LEAP_IN_MAX_NS (INT64_C(7) * 86400 * 1000000000)

/* Parses a non-negative integer of at most 18 digits; returns the end or
 * NULL. */
static inline const char *lcp_parse_u64(const char *s, int64_t *out)
{
	int64_t v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > 18)
			return NULL;
		v = v * 10 + (*s++ - '0');
	}
	if (n == 0)
		return NULL;
	*out = v;
	return s;
}

/* A duration: digits, an optional fraction, and a unit ns, us, ms, s
 * (default), m or h. Returns 0 and the ns in *ns, or -1. */
static inline int lcp_parse_duration(const char *s, int64_t *ns)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", 1000000000 },
		{ "m", INT64_C(60) * 1000000000 },
		{ "h", INT64_C(3600) * 1000000000 },
		{ "", 1000000000 },
	};
	int64_t ip, frac = 0, scale = 1, unit = -1;
	const char *p;

	if (s == NULL || (p = lcp_parse_u64(s, &ip)) == NULL)
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale < INT64_C(1000000000)) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
		}
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name) == 0) {
			unit = units[i].ns;
			break;
		}
	}
	if (unit < 0 || ip > INT64_MAX / unit / 2)
		return -1;
	/* frac / scale of a unit, truncated to whole ns */
	*ns = ip * unit + (int64_t)((__int128)frac * unit / scale);
	return 0;
}

/* "insert" / "delete" (and +1 / -1): +1 or -1; 0 if neither. */
static inline int lcp_parse_dir(const char *s)
{
	if (s == NULL || *s == '\0' || strcmp(s, "insert") == 0 ||
	    strcmp(s, "+1") == 0 || strcmp(s, "+") == 0)
		return 1;
	if (strcmp(s, "delete") == 0 || strcmp(s, "-1") == 0 ||
	    strcmp(s, "-") == 0)
		return -1;
	return 0;
}

/* LEAPCLOCK_LEAP_IN resolved on table `t`, which gets the leap (one row,
 * lc_leaptable_add): the 00:00:00 that ends the UTC day of POSIX ns `rt`
 * (or the day after the table's last leap, if that is later) in *when,
 * and the pretend instant that puts the leap `in_ns` ahead in *pretend_ns
 * (POSIX ns): an insertion's 23:59:60 begins, or a deletion's
 * 23:59:58.999... jumps to 00:00:00, then. lc_leaptable_add's result. */
static inline int lcp_leap_in_resolve(lc_leaptable *t, int64_t rt,
                                      int64_t in_ns, int dir, int64_t *when,
                                      int64_t *pretend_ns,
                                      struct lc_error *err)
{
	const int64_t day = LC_SECS_PER_DAY, ns = LC_NSEC_PER_SEC;
	struct lc_leap last;
	int64_t w = (rt >= 0 ? rt / ns : -((-rt + ns - 1) / ns)) / day + 1;

	w *= day;
	if (lc_leaptable_prev(t, INT64_MAX / 4, &last) == 0 && last.when >= w)
		w = (last.when / day + 1) * day;
	*when = w;
	*pretend_ns = (dir > 0 ? w : w - 1) * ns - in_ns;
	return lc_leaptable_add(t, w, dir, err);
}

/* LEAPCLOCK_MODE: 0 exact, 1 smear (the preset name after "smear:" is
 * copied to preset[]), -1 unknown. A NULL or empty value is exact. */
static inline int lcp_parse_mode(const char *s, char *preset, size_t size)
{
	if (s == NULL || *s == '\0' || strcmp(s, "exact") == 0)
		return 0;
	if (strncmp(s, "smear:", 6) == 0 && s[6] != '\0' &&
	    strlen(s + 6) < size) {
		memcpy(preset, s + 6, strlen(s + 6) + 1);
		return 1;
	}
	return -1;
}

#endif
