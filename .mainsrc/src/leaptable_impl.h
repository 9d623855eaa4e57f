/* leaptable_impl.h - the table's layout, shared by leaptable.c and its
 * parsers (leapfile*.c, leapfile.h). Not public. */
#ifndef LC_LEAPTABLE_IMPL_H
#define LC_LEAPTABLE_IMPL_H

#include "internal.h"

/* Enough for one leap a month until 2100; the parsers reject more. */
#define LC__LEAP_MAX 2048

struct lc_leaptable {
	size_t count;
	struct lc_leap rows[LC__LEAP_MAX];
	struct lc_leaptable_info info;
};

void lc__leaptable_set_builtin(struct lc_leaptable *t);

/* The last row whose start is at or before second `sec`, -1 before the
 * first; the start is `when` on POSIX seconds, when + tai_utc on TAI
 * (tai != 0). Binary search: both keys grow with the row. */
ptrdiff_t lc__leap_row_at(const struct lc_leaptable *t, int64_t sec, int tai);

/* lc_leaptable_load_system_report with its list of system paths given (a
 * NULL-terminated list, at most LC_LEAP_CANDIDATES_MAX - 1 are tried; NULL
 * for none): $LEAPCLOCK_LEAPFILE when set and not empty (its error is
 * returned), else the valid table that expires last among `paths` and the
 * built-in one. `search` may be NULL. */
int lc__leaptable_load_system_paths(struct lc_leaptable *t,
                                    const char *const *paths,
                                    struct lc_leaptable_search *search,
                                    struct lc_error *err);

/* Calendar helpers of leapfile_text.c (proleptic Gregorian, days since
 * 1970-01-01) over civil.c's, shared with the `leapclock table` command. */
int64_t lc__leap_days_from_civil(int64_t year, int mon, int mday);
/* POSIX seconds to year, month (1..12), day (1..31) and second of the day. */
void lc__leap_civil(int64_t unix_sec, int64_t *year, int *mon, int *mday,
                    int *sec_of_day);

/* SHA-1 (FIPS 180-4, src/sha1.c), used to check leap-seconds.list:
 * incremental, and lc__sha1_digest() the one-shot form. */
struct lc__sha1 {
	uint32_t h[5];
	uint64_t len;   /* bytes hashed so far */
	size_t used;    /* bytes waiting in buf */
	uint8_t buf[64];
};

void lc__sha1_init(struct lc__sha1 *s);
void lc__sha1_update(struct lc__sha1 *s, const void *data, size_t len);
void lc__sha1_final(struct lc__sha1 *s, uint8_t digest[20]);
void lc__sha1_digest(const void *data, size_t len, uint8_t digest[20]);

#endif
