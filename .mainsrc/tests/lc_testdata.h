/*
 * lc_testdata.h - leap tables the tests share, built from the test data
 * (tests/data). Header-only: each function is static inline, so a test
 * that includes this and uses none of them still compiles clean.
 */
#ifndef LC_TESTDATA_H
#define LC_TESTDATA_H

#include "leapclock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tzdata 2026f's table (leapseconds.tzdata2026f, its Expires line
 * commented out so that the new row is in force) plus a leap at the end
 * of 2030-06-30: inserted (dir > 0, TAI-UTC 37 -> 38) or deleted
 * (dir < 0, 37 -> 36). The 00:00:00 after it is 1909094400. NULL if the
 * file is missing or does not load. */
static inline lc_leaptable *lc_test_table_2030(int dir)
{
	const char *extra = dir > 0 ? "Leap\t2030\tJun\t30\t23:59:60\t+\tS\n"
	                            : "Leap\t2030\tJun\t30\t23:59:59\t-\tS\n";
	char path[512], *buf;
	lc_leaptable *t;
	FILE *f;
	long n;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/leapseconds.tzdata2026f",
	         LC_TEST_DATA_DIR);
	f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n < 0 ? NULL : malloc((size_t)n + strlen(extra) + 1);
	if (buf == NULL) {
		fclose(f);
		return NULL;
	}
	len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	buf[len] = '\0';
	for (char *l = buf; (l = strstr(l, "Expires")) != NULL; l++)
		if (l == buf || l[-1] == '\n')
			l[0] = '#';
	memcpy(buf + len, extra, strlen(extra) + 1);
	t = lc_leaptable_new();
	rc = lc_leaptable_load_buffer(t, "2030", buf, strlen(buf),
	                              LC_LEAPFMT_TZDATA, NULL);
	free(buf);
	if (rc < 0) {
		lc_leaptable_free(t);
		return NULL;
	}
	return t;
}

#endif
