/*
 * lc_testdata.h - leap tables, true time and a bound check the tests share, built from the test data
 * (tests/data). Header-only: each function is static inline, so a test
 * that includes this and uses none of them still compiles clean.
 */
#ifndef LC_TESTDATA_H
#define LC_TESTDATA_H

#include "leapclock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* tzdata 2026f's table (leapseconds.tzdata2026f, its Expires line
 * commented out so that the new row is in force) plus a leap at the end
 * of 2030-06-30: inserted (dir > 0, TAI-UTC 37 -> 38) or deleted
 * (dir < 0, 37 -> 36). The 00:00:00 after it is 1909094400. NULL if the
 * file is missing or does not load. */
static inline int lc_test_table_2030_load(lc_leaptable *t, int dir,
                                          int with_leap);

static inline lc_leaptable *lc_test_table_2030(int dir)
{
	lc_leaptable *t = lc_leaptable_new();

	if (t != NULL && lc_test_table_2030_load(t, dir, 1) < 0) {
		lc_leaptable_free(t);
		return NULL;
	}
	return t;
}

/* The same table loaded into `t` (a reload in place: a timekeeper using
 * it takes it at its next lc_update()), with the 2030 row or, with_leap
 * 0, without it (the leap not announced yet, or cancelled). 0 or < 0. */
static inline int lc_test_table_2030_load(lc_leaptable *t, int dir,
                                          int with_leap)
{
	const char *extra = !with_leap ? ""
	                    : dir > 0 ? "Leap\t2030\tJun\t30\t23:59:60\t+\tS\n"
	                              : "Leap\t2030\tJun\t30\t23:59:59\t-\tS\n";
	char path[512], *buf;
	FILE *f;
	long n;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/leapseconds.tzdata2026f",
	         LC_TEST_DATA_DIR);
	f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n < 0 ? NULL : malloc((size_t)n + strlen(extra) + 1);
	if (buf == NULL) {
		fclose(f);
		return -1;
	}
	len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	buf[len] = '\0';
	for (char *l = buf; (l = strstr(l, "Expires")) != NULL; l++)
		if (l == buf || l[-1] == '\n')
			l[0] = '#';
	memcpy(buf + len, extra, strlen(extra) + 1);
	rc = lc_leaptable_load_buffer(t, "2030", buf, strlen(buf),
	                              LC_LEAPFMT_TZDATA, NULL);
	free(buf);
	return rc < 0 ? -1 : 0;
}

/* True time around one leap of direction `dir` whose second begins at
 * true ns `leap_t`, `r0` the POSIX ns at true 0 on the pre-leap timeline:
 * REALTIME (an inserted second repeats 23:59:59) and UTC (23:59:60 as
 * tv_nsec >= 1e9). */
static inline int64_t lc_test_true_rt(int64_t r0, int64_t leap_t, int dir,
                                      int64_t t)
{
	return r0 + t - (t >= leap_t ? (int64_t)dir * 1000000000 : 0);
}

static inline struct timespec lc_test_true_utc(int64_t r0, int64_t leap_t,
                                               int dir, int64_t t)
{
	const int64_t ns = 1000000000;
	int64_t rt = lc_test_true_rt(r0, leap_t, dir, t);
	struct timespec ts;

	if (dir > 0 && t >= leap_t && t < leap_t + ns) {
		ts.tv_sec = (time_t)((r0 + leap_t) / ns - 1);
		ts.tv_nsec = (long)(ns + t - leap_t);
		return ts;
	}
	ts.tv_sec = (time_t)(rt / ns);
	ts.tv_nsec = (long)(rt % ns);
	return ts;
}

/* The truth at one instant, for lc_test_bounds_contain: true REALTIME,
 * TAI and UTC (23:59:60 as tv_nsec >= 1e9), and UTC_SLS (its policy's
 * smear of true UTC, ns). */
struct lc_test_truth {
	int64_t rt, tai, sls;
	struct timespec utc;
};

static inline int lc_test_ts_le(const struct timespec *a,
                                const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

/* 1 if bound b of clock `id` contains the truth: REALTIME and TAI as
 * POSIX ns, UTC_SLS against its smear, every other clock (UTC) as a
 * timespec, where 23:59:60 sorts after 23:59:59. */
static inline int lc_test_bounds_contain(const struct lc_bounds *b,
                                         lc_clock_id id,
                                         const struct lc_test_truth *tr)
{
	const int64_t ns = 1000000000;
	int64_t lo = (int64_t)b->earliest.tv_sec * ns + b->earliest.tv_nsec;
	int64_t hi = (int64_t)b->latest.tv_sec * ns + b->latest.tv_nsec;

	switch (id) {
	case LC_CLOCK_REALTIME:
		return lo <= tr->rt && tr->rt <= hi;
	case LC_CLOCK_TAI:
		return lo <= tr->tai && tr->tai <= hi;
	case LC_CLOCK_UTC_SLS:
		return lo <= tr->sls && tr->sls <= hi;
	default:
		return lc_test_ts_le(&b->earliest, &tr->utc) &&
		       lc_test_ts_le(&tr->utc, &b->latest);
	}
}

#endif
