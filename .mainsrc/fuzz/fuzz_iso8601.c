/*
 * fuzz_iso8601.c - libFuzzer target for lc_iso8601_parse.
 *
 * Parses arbitrary bytes (as a NUL-terminated copy) against two tables: the
 * built-in one and a synthetic one with a deleted second (2030-06-30). A
 * rejection must carry LC_EPARSE or LC_ENOTLEAP and a message. An accepted
 * time must have every field in range, a 23:59:60 only where the table
 * inserts a second and no deleted second, parse the same without a table,
 * and survive format -> parse unchanged (at 9 digits exactly, at fewer
 * digits truncated).
 */
#include "leapclock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char negative_table[] =
    "Leap\t1972\tJun\t30\t23:59:60\t+\tS\n"
    "Leap\t2030\tJun\t30\t23:59:59\t-\tS\n"
    "#expires 2000000000 (2033-05-18 03:33:20 UTC)\n";

static lc_leaptable *builtin, *negative;

static void check(int ok, const char *what, const char *input)
{
	if (!ok) {
		fprintf(stderr, "fuzz_iso8601: %s (input \"%s\")\n", what,
		        input);
		abort();
	}
}

static void one(const char *s, const lc_leaptable *table, int digits)
{
	struct lc_error err = {0};
	struct timespec utc = {0, 0}, back;
	struct lc_tm tm;
	char buf[96];
	long unit = 1;
	int rc, n;

	rc = lc_iso8601_parse(s, table, &utc, &err);
	if (rc < 0) {
		check(rc == LC_EPARSE || rc == LC_ENOTLEAP, "unexpected code",
		      s);
		check(err.code == rc, "err.code differs from the return", s);
		check(err.msg[0] != '\0', "empty message", s);
		check(memchr(err.msg, '\0', sizeof(err.msg)) != NULL,
		      "message not terminated", s);
		return;
	}
	check(rc == 0, "positive return", s);
	check(utc.tv_nsec >= 0 && utc.tv_nsec < 2000000000L, "tv_nsec range",
	      s);
	check(lc_utc_check(table, &utc) == 0, "lc_utc_check rejects it", s);
	check(lc_utc_to_tm(&utc, &tm) == 0, "lc_utc_to_tm fails", s);
	check(tm.mon >= 1 && tm.mon <= 12, "month range", s);
	check(tm.mday >= 1 && tm.mday <= 31, "day range", s);
	check(tm.hour >= 0 && tm.hour <= 23, "hour range", s);
	check(tm.min >= 0 && tm.min <= 59, "minute range", s);
	check(tm.sec >= 0 && tm.sec <= 60, "second range", s);
	check(tm.sec < 60 || (tm.hour == 23 && tm.min == 59),
	      "second 60 not at 23:59 UTC", s);
	check(tm.nsec >= 0 && tm.nsec < 1000000000, "nsec range", s);
	check(tm.wday >= 0 && tm.wday <= 6, "wday range", s);
	check(tm.yday >= 0 && tm.yday <= 365, "yday range", s);

	/* Without a table only the leap checks are skipped: same result. */
	rc = lc_iso8601_parse(s, NULL, &back, &err);
	check(rc == 0, "accepted with a table but not without", s);
	check(back.tv_sec == utc.tv_sec && back.tv_nsec == utc.tv_nsec,
	      "the table changed the result", s);

	/* 9 digits: exact round trip. */
	n = lc_iso8601_format(&utc, 9, buf, sizeof(buf));
	check(n > 0 && (size_t)n < sizeof(buf), "format failed", s);
	rc = lc_iso8601_parse(buf, table, &back, &err);
	check(rc == 0, "formatted text does not parse", s);
	check(back.tv_sec == utc.tv_sec && back.tv_nsec == utc.tv_nsec,
	      "9-digit round trip differs", s);

	/* Fewer digits: the fraction is truncated, never rounded up. */
	n = lc_iso8601_format(&utc, digits, buf, sizeof(buf));
	check(n > 0, "format with fewer digits failed", s);
	rc = lc_iso8601_parse(buf, table, &back, &err);
	check(rc == 0, "truncated text does not parse", s);
	for (int k = digits; k < 9; k++)
		unit *= 10;
	check(back.tv_sec == utc.tv_sec &&
	          back.tv_nsec == utc.tv_nsec - utc.tv_nsec % unit,
	      "truncated round trip differs", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (builtin == NULL) {
		builtin = lc_leaptable_new();
		negative = lc_leaptable_new();
		if (negative != NULL &&
		    lc_leaptable_load_buffer(
		        negative, "negative", negative_table,
		        strlen(negative_table), LC_LEAPFMT_TZDATA, NULL) != 0) {
			lc_leaptable_free(negative);
			negative = NULL;
		}
	}
	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	one(s, builtin, (int)(size % 10));
	if (negative != NULL)
		one(s, negative, (int)(size % 10));
	free(s);
	return 0;
}
