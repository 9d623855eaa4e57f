/*
 * fuzz_leapfile.c - libFuzzer target for the leap-file parsers
 * (src/leapfile.c). Each input is loaded as a buffer in AUTO, IERS and TZDATA
 * format into one long-lived table, so the table before a load varies.
 *
 *  - After a successful load the table obeys the rules every parser promises
 *    (1972 start row, increasing UTC midnights, steps of +-1 s) and the queries
 *    agree with the rows, at and around every leap and at the extremes.
 *  - After a failed load the table is exactly what it was (nothing lost), and
 *    the error is filled in with one of the input-error codes.
 * Any violation aborts, which libFuzzer reports as a crash.
 */
#include "leaptable_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c))                                                      \
			abort();                                               \
	} while (0)

static int same_table(const struct lc_leaptable *a,
                      const struct lc_leaptable *b)
{
	return a->count == b->count &&
	       memcmp(a->rows, b->rows, a->count * sizeof(a->rows[0])) == 0 &&
	       a->info.format == b->info.format &&
	       a->info.hash == b->info.hash &&
	       a->info.updated == b->info.updated &&
	       a->info.expires == b->info.expires &&
	       strcmp(a->info.source, b->info.source) == 0;
}

static void check_queries_at(const lc_leaptable *t, int64_t u)
{
	struct lc_leap l;
	int32_t off;
	int in_leap, dir;

	(void)lc_leaptable_tai_utc(t, u, &off);
	(void)lc_leaptable_tai_utc_at_tai(t, u, &off, &in_leap);
	dir = lc_leaptable_leap_at(t, u);
	CHECK(dir >= -1 && dir <= 1);
	if (lc_leaptable_next(t, u, &l) == 0)
		CHECK(l.when > u && l.dir != 0);
	if (lc_leaptable_prev(t, u, &l) == 0)
		CHECK(l.when <= u && l.dir != 0);
}

static void check_table(const lc_leaptable *t, const char *name)
{
	struct lc_leaptable_info info;
	struct lc_leap r, p, l;
	size_t n = lc_leaptable_count(t);
	int32_t off;
	int in_leap;

	CHECK(lc_leaptable_info(t, &info) == 0);
	CHECK(info.count == n && n >= 2 && n <= LC__LEAP_MAX);
	CHECK(info.format == LC_LEAPFMT_IERS ||
	      info.format == LC_LEAPFMT_TZDATA);
	CHECK(info.format == LC_LEAPFMT_IERS ? info.hash != LC_HASH_NONE
	                                     : info.hash == LC_HASH_NONE);
	CHECK(strcmp(info.source, name) == 0);
	CHECK(lc_leaptable_get(t, 0, &p) == 0);
	CHECK(p.when == 63072000 && p.tai_utc == 10 && p.dir == 0);
	CHECK(lc_leaptable_get(t, n, &r) == LC_ERANGE);
	CHECK(lc_leaptable_tai_utc(t, p.when - 1, &off) == LC_EBEFORE1972);
	CHECK(lc_leaptable_tai_utc(t, p.when, &off) == 0 && off == 10);
	for (size_t i = 1; i < n; i++) {
		CHECK(lc_leaptable_get(t, i, &r) == 0);
		CHECK(r.when > p.when && r.when % 86400 == 0);
		CHECK((r.dir == 1 || r.dir == -1) &&
		      r.tai_utc - p.tai_utc == r.dir);
		/* The leap is at the POSIX second before r.when. */
		CHECK(lc_leaptable_leap_at(t, r.when - 1) == r.dir);
		CHECK(lc_leaptable_leap_at(t, r.when) == 0);
		CHECK(lc_leaptable_tai_utc(t, r.when, &off) == 0 &&
		      off == r.tai_utc);
		CHECK(lc_leaptable_tai_utc(t, r.when - 2, &off) == 0 &&
		      off == p.tai_utc);
		CHECK(lc_leaptable_next(t, r.when - 1, &l) == 0 &&
		      l.when == r.when);
		CHECK(lc_leaptable_prev(t, r.when, &l) == 0 &&
		      l.when == r.when);
		/* TAI side: 00:00:00 after the leap is TAI when + new offset;
		 * an inserted second is the TAI second just before it. */
		CHECK(lc_leaptable_tai_utc_at_tai(t, r.when + r.tai_utc, &off,
		                                  &in_leap) == 0 &&
		      off == r.tai_utc && in_leap == 0);
		CHECK(lc_leaptable_tai_utc_at_tai(t, r.when + r.tai_utc - 1,
		                                  &off, &in_leap) == 0);
		CHECK(r.dir > 0 ? (in_leap == 1 && off == r.tai_utc)
		                : (in_leap == 0 && off == p.tai_utc));
		check_queries_at(t, r.when + 1);
		p = r;
	}
	check_queries_at(t, INT64_MIN);
	check_queries_at(t, INT64_MAX);
	check_queries_at(t, 0);
	CHECK(lc_leaptable_next(t, p.when, &l) == LC_ENOENT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int formats[] = {LC_LEAPFMT_AUTO, LC_LEAPFMT_IERS,
	                              LC_LEAPFMT_TZDATA};
	static lc_leaptable *t;
	static struct lc_leaptable before;

	if (t == NULL)
		t = lc_leaptable_new();
	CHECK(t != NULL);
	if (size % 2)
		lc_leaptable_reset_builtin(t);
	for (size_t k = 0; k < 3; k++) {
		struct lc_error err;
		int rc;

		memset(&err, 0, sizeof(err));
		before = *t;
		rc = lc_leaptable_load_buffer(t, "fuzz", data, size, formats[k],
		                              &err);
		if (rc == 0) {
			check_table(t, "fuzz");
			if (formats[k] != LC_LEAPFMT_AUTO)
				CHECK(t->info.format == formats[k]);
		} else {
			CHECK(same_table(t, &before));
			CHECK(rc == LC_EPARSE || rc == LC_ETABLE ||
			      rc == LC_EHASH);
			CHECK(err.code == rc && err.msg[0] != '\0' &&
			      err.line >= 0 && strcmp(err.where, "fuzz") == 0);
		}
	}
	return 0;
}
