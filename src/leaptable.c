/*
 * leaptable.c - the leap-second table: built-in data and queries.
 *
 * A table is a list of rows (when, tai_utc, dir): from the POSIX second
 * `when` (the 00:00:00 UTC after a leap) on, TAI-UTC is `tai_utc`. Row 0 is
 * 1972-01-01 with 10 s and dir 0. An inserted leap second is the TAI second
 * [when + tai_utc - 1, when + tai_utc): UTC reads 23:59:60 there, and the
 * POSIX clock repeats when - 1.
 */
#include "leaptable_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* IERS Bulletin C through 2017; expiry of tzdata 2026f's list. */
static const struct lc_leap builtin_rows[] = {
	{ 63072000, 10, 0 },   /* 1972-01-01 */
	{ 78796800, 11, 1 },   /* 1972-07-01 */
	{ 94694400, 12, 1 },   /* 1973-01-01 */
	{ 126230400, 13, 1 },  /* 1974-01-01 */
	{ 157766400, 14, 1 },  /* 1975-01-01 */
	{ 189302400, 15, 1 },  /* 1976-01-01 */
	{ 220924800, 16, 1 },  /* 1977-01-01 */
	{ 252460800, 17, 1 },  /* 1978-01-01 */
	{ 283996800, 18, 1 },  /* 1979-01-01 */
	{ 315532800, 19, 1 },  /* 1980-01-01 */
	{ 362793600, 20, 1 },  /* 1981-07-01 */
	{ 394329600, 21, 1 },  /* 1982-07-01 */
	{ 425865600, 22, 1 },  /* 1983-07-01 */
	{ 489024000, 23, 1 },  /* 1985-07-01 */
	{ 567993600, 24, 1 },  /* 1988-01-01 */
	{ 631152000, 25, 1 },  /* 1990-01-01 */
	{ 662688000, 26, 1 },  /* 1991-01-01 */
	{ 709948800, 27, 1 },  /* 1992-07-01 */
	{ 741484800, 28, 1 },  /* 1993-07-01 */
	{ 773020800, 29, 1 },  /* 1994-07-01 */
	{ 820454400, 30, 1 },  /* 1996-01-01 */
	{ 867715200, 31, 1 },  /* 1997-07-01 */
	{ 915148800, 32, 1 },  /* 1999-01-01 */
	{ 1136073600, 33, 1 }, /* 2006-01-01 */
	{ 1230768000, 34, 1 }, /* 2009-01-01 */
	{ 1341100800, 35, 1 }, /* 2012-07-01 */
	{ 1435708800, 36, 1 }, /* 2015-07-01 */
	{ 1483228800, 37, 1 }, /* 2017-01-01 */
};

#define BUILTIN_UPDATED INT64_C(1783323897) /* 2026-07-06 07:44:57 UTC */
#define BUILTIN_EXPIRES INT64_C(1814140800) /* 2027-06-28 00:00:00 UTC */

void lc__leaptable_set_builtin(struct lc_leaptable *t)
{
	size_t n = sizeof(builtin_rows) / sizeof(builtin_rows[0]);

	memcpy(t->rows, builtin_rows, sizeof(builtin_rows));
	t->count = n;
	t->info.format = LC_LEAPFMT_BUILTIN;
	t->info.hash = LC_HASH_NONE;
	t->info.count = n;
	t->info.updated = BUILTIN_UPDATED;
	t->info.expires = BUILTIN_EXPIRES;
	strcpy(t->info.source, "built-in");
}

lc_leaptable *lc_leaptable_new(void)
{
	struct lc_leaptable *t = calloc(1, sizeof(*t));

	if (t != NULL)
		lc__leaptable_set_builtin(t);
	return t;
}

void lc_leaptable_free(lc_leaptable *t)
{
	free(t);
}

void lc_leaptable_reset_builtin(lc_leaptable *t)
{
	if (t == NULL)
		return;
	lc__leaptable_set_builtin(t);
}

int lc_leaptable_info(const lc_leaptable *t, struct lc_leaptable_info *info)
{
	if (t == NULL)
		return LC_EINVAL;
	*info = t->info;
	info->count = t->count;
	return 0;
}

int lc_leaptable_expired(const lc_leaptable *t, int64_t now)
{
	if (t == NULL)
		return 0;
	return t->info.expires != INT64_MIN && now >= t->info.expires;
}

size_t lc_leaptable_count(const lc_leaptable *t)
{
	if (t == NULL)
		return 0;
	return t->count;
}

int lc_leaptable_get(const lc_leaptable *t, size_t i, struct lc_leap *out)
{
	if (t == NULL)
		return LC_EINVAL;
	if (i >= t->count)
		return LC_ERANGE;
	*out = t->rows[i];
	return 0;
}

int lc_leaptable_add(lc_leaptable *t, int64_t when, int dir,
                     struct lc_error *err)
{
	const char *src = t != NULL ? t->info.source : NULL;
	const struct lc_leap *last;

	if (t == NULL || (dir != 1 && dir != -1))
		return lc__error(err, LC_EINVAL, src, 0,
		                 t == NULL ? "no table to add a leap to (NULL)"
		                           : "a leap is +1 or -1 s, not %d",
		                 dir);
	last = &t->rows[t->count - 1];
	if (lc__fmod(when, LC_SECS_PER_DAY) != 0)
		return lc__error(err, LC_ETABLE, src, 0,
		                 "a leap at POSIX second %" PRId64 ": not a "
		                 "UTC midnight (the end of a day)",
		                 when);
	if (when <= last->when)
		return lc__error(err, LC_ETABLE, src, 0,
		                 "a leap at POSIX second %" PRId64 ": not after "
		                 "the table's last row (%" PRId64 ")",
		                 when, last->when);
	if (t->count >= LC__LEAP_MAX)
		return lc__error(err, LC_ETABLE, src, 0,
		                 "the table is full (%d rows)", LC__LEAP_MAX);
	t->rows[t->count].when = when;
	t->rows[t->count].tai_utc = last->tai_utc + dir;
	t->rows[t->count].dir = dir;
	t->count++;
	t->info.count = t->count;
	return 0;
}

/* The last row whose start is at or before second `sec`, -1 before the
 * first: on POSIX seconds the start is `when`; on TAI (tai != 0) it is
 * when + tai_utc, so an inserted 23:59:60 (TAI when + tai_utc - 1)
 * belongs to the row before its own. Both keys grow with the row. */
ptrdiff_t lc__leap_row_at(const lc_leaptable *t, int64_t sec, int tai)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)t->count - 1, ans = -1;

	while (lo <= hi) {
		ptrdiff_t mid = lo + (hi - lo) / 2;
		int64_t start = t->rows[mid].when +
		                (tai ? (int64_t)t->rows[mid].tai_utc : 0);

		if (start <= sec) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

int lc_leaptable_tai_utc(const lc_leaptable *t, int64_t unix_sec,
                         int32_t *tai_utc)
{
	if (t == NULL)
		return LC_EINVAL;
	ptrdiff_t i;

	/* The repeated POSIX second (when - 1) of an insertion already has the
	 * new offset: Linux moves tai_offset at the start of 23:59:60. */
	i = lc__leap_row_at(t, unix_sec, 0);
	if (i + 1 < (ptrdiff_t)t->count && t->rows[i + 1].dir > 0 &&
	    unix_sec == t->rows[i + 1].when - 1)
		i++;
	if (i < 0)
		return LC_EBEFORE1972;
	*tai_utc = t->rows[i].tai_utc;
	return 0;
}

int lc_leaptable_tai_utc_at_tai(const lc_leaptable *t, int64_t tai_sec,
                                int32_t *tai_utc, int *in_leap)
{
	if (t == NULL)
		return LC_EINVAL;
	/* Row i starts at TAI when + tai_utc; that key is increasing. */
	ptrdiff_t ans = lc__leap_row_at(t, tai_sec, 1);
	int leap = 0;

	/* An inserted second belongs to the next row's offset already. */
	if (ans + 1 < (ptrdiff_t)t->count && t->rows[ans + 1].dir > 0 &&
	    tai_sec == t->rows[ans + 1].when + t->rows[ans + 1].tai_utc - 1) {
		ans++;
		leap = 1;
	}
	if (ans < 0)
		return LC_EBEFORE1972;
	*tai_utc = t->rows[ans].tai_utc;
	if (in_leap != NULL)
		*in_leap = leap;
	return 0;
}

int lc_leaptable_leap_at(const lc_leaptable *t, int64_t unix_sec)
{
	if (t == NULL)
		return 0;
	ptrdiff_t i;

	if (unix_sec == INT64_MAX) /* no row is at INT64_MAX + 1 */
		return 0;
	i = lc__leap_row_at(t, unix_sec + 1, 0);

	if (i >= 0 && t->rows[i].when == unix_sec + 1 && t->rows[i].dir > 0)
		return 1;
	/* A deleted 23:59:59 is the POSIX second when - 1 of a deletion row:
	 * its value never appears, the clock goes from 23:59:58 to 00:00:00. */
	if (i >= 0 && t->rows[i].when == unix_sec + 1 && t->rows[i].dir < 0)
		return -1;
	return 0;
}

int lc_leaptable_next(const lc_leaptable *t, int64_t unix_sec,
                      struct lc_leap *out)
{
	if (t == NULL)
		return LC_EINVAL;
	for (size_t i = (size_t)(lc__leap_row_at(t, unix_sec, 0) + 1); i < t->count;
	     i++) {
		if (t->rows[i].dir != 0) {
			*out = t->rows[i];
			return 0;
		}
	}
	return LC_ENOENT;
}

int lc_leaptable_prev(const lc_leaptable *t, int64_t unix_sec,
                      struct lc_leap *out)
{
	if (t == NULL)
		return LC_EINVAL;
	for (ptrdiff_t i = lc__leap_row_at(t, unix_sec, 0); i >= 0; i--) {
		if (t->rows[i].dir != 0) {
			*out = t->rows[i];
			return 0;
		}
	}
	return LC_ENOENT;
}
