/*
 * leapfile_tz.c - tzdata's leapseconds format: "Leap YEAR MONTH DAY
 * HH:MM:SS CORR S" lines naming the leap second itself (whose end is the
 * next day's 00:00:00), an "Expires" line, and the #updated / #expires
 * comments. UTC's start (1972-01-01, 10 s) is implied.
 */
#include "leapfile.h"

#include <inttypes.h>
#include <stdio.h>

static int parse_month(struct span f)
{
	static const char *const names[12] = {
	    "january",   "february", "march",    "april",
	    "may",       "june",     "july",     "august",
	    "september", "october",  "november", "december"};

	/* zic's abbreviations of at least three letters, any case */
	if (f.n < 3)
		return 0;
	for (int m = 0; m < 12; m++)
		if (f.n <= strlen(names[m]) &&
		    strncasecmp(f.p, names[m], f.n) == 0)
			return m + 1;
	return 0;
}

/* "HH:MM:SS" with two-digit fields; seconds up to 60. */
static int parse_hms(struct span f, int *h, int *m, int *s)
{
	if (f.n != 8 || f.p[2] != ':' || f.p[5] != ':')
		return -1;
	for (int i = 0; i < 8; i++)
		if (i != 2 && i != 5 && !is_digit(f.p[i]))
			return -1;
	*h = (f.p[0] - '0') * 10 + (f.p[1] - '0');
	*m = (f.p[3] - '0') * 10 + (f.p[4] - '0');
	*s = (f.p[6] - '0') * 10 + (f.p[7] - '0');
	return *h < 24 && *m < 60 && *s <= 60 ? 0 : -1;
}

/* YEAR MON DAY: the date's POSIX seconds at 00:00:00. */
static int tz_date(struct parser *ps, struct span *rest, int64_t *day_start)
{
	struct span fy = lc__lf_next_field(rest, 1),
	            fm = lc__lf_next_field(rest, 1),
	            fd = lc__lf_next_field(rest, 1);
	int64_t y, d;
	int m, rc;
	char q[64];

	rc = lc__lf_need_uint(ps, fy, "YEAR", 9999, &y);
	if (rc < 0)
		return rc;
	if (y < 1)
		return lc__lf_perr(ps, LC_EPARSE, "YEAR 0 does not exist");
	if (fm.n == 0)
		return lc__lf_perr(ps, LC_EPARSE, "MONTH is missing");
	m = parse_month(fm);
	if (m == 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "MONTH %s is not a month name",
		                   lc__lf_quote(fm, q));
	rc = lc__lf_need_uint(ps, fd, "DAY", 31, &d);
	if (rc < 0)
		return rc;
	if (d < 1 || d > lc__lf_days_in_month(y, m))
		return lc__lf_perr(ps, LC_EPARSE,
		                   "DAY %s does not exist in %.*s %" PRId64,
		                   lc__lf_quote(fd, q), (int)fm.n, fm.p, y);
	*day_start = lc__leap_days_from_civil(y, m, (int)d) * LC_SECS_PER_DAY;
	return 0;
}

/* CORR: 1 for "+", -1 for "-". */
static int tz_corr(struct parser *ps, struct span fc, int *dir)
{
	char q[64];

	if (fc.n == 0)
		return lc__lf_perr(ps, LC_EPARSE, "CORR (+ or -) is missing");
	if (span_is(fc, "+"))
		*dir = 1;
	else if (span_is(fc, "-"))
		*dir = -1;
	else
		return lc__lf_perr(ps, LC_EPARSE, "CORR %s is not + or -",
		                   lc__lf_quote(fc, q));
	return 0;
}

/* R/S: only S (stationary) leaps define UTC. */
static int tz_rs(struct parser *ps, struct span fr)
{
	char q[64];

	if (fr.n == 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "R/S (S for stationary) is missing");
	if (span_is(fr, "R"))
		return lc__lf_perr(
		    ps, LC_ETABLE,
		    "a rolling (R) leap second is a "
		    "local-time one: only stationary (S) leaps define "
		    "UTC");
	if (!span_is(fr, "S"))
		return lc__lf_perr(ps, LC_EPARSE, "R/S %s is not S or R",
		                   lc__lf_quote(fr, q));
	return 0;
}

/* Leap YEAR MONTH DAY HH:MM:SS CORR R/S */
static int tz_leap(struct parser *ps, struct span rest)
{
	struct span ft, fc, fr, extra;
	struct lc_leaptable *t = ps->t;
	int64_t day;
	int h, m, s, dir = 0, rc;
	char q[64], q2[64], d1[32];

	rc = tz_date(ps, &rest, &day);
	if (rc < 0)
		return rc;
	ft = lc__lf_next_field(&rest, 1);
	fc = lc__lf_next_field(&rest, 1);
	fr = lc__lf_next_field(&rest, 1);
	extra = lc__lf_next_field(&rest, 1);
	if (ft.n == 0)
		return lc__lf_perr(ps, LC_EPARSE, "HH:MM:SS is missing");
	if (parse_hms(ft, &h, &m, &s) < 0)
		return lc__lf_perr(ps, LC_EPARSE, "time %s is not HH:MM:SS",
		                   lc__lf_quote(ft, q));
	if ((rc = tz_corr(ps, fc, &dir)) < 0 || (rc = tz_rs(ps, fr)) < 0)
		return rc;
	if (extra.n != 0)
		return lc__lf_perr(ps, LC_EPARSE, "unexpected %s after R/S",
		                   lc__lf_quote(extra, q));
	/* An insertion is the second 23:59:60; a deletion removes 23:59:59,
	 * so the "+" or "-" sits at that second. Either way the new offset
	 * holds from the next 00:00:00. */
	if ((dir > 0 && !(h == 23 && m == 59 && s == 60)) ||
	    (dir < 0 && !(h == 23 && m == 59 && s == 59)))
		return lc__lf_perr(
		    ps, LC_ETABLE,
		    "a leap at %s %s: a leap second "
		    "must end a UTC day (+ at 23:59:60, - at 23:59:59)",
		    lc__lf_quote(ft, q), lc__lf_quote(fc, q2));
	if (day + LC_SECS_PER_DAY <= START_1972)
		return lc__lf_perr(ps, LC_ETABLE,
		                   "a leap on %s, before 1972-01-01: "
		                   "UTC had no leap seconds then",
		                   lc__leap_fmt_date(day, d1));
	return lc__lf_add_row(ps, day + LC_SECS_PER_DAY,
	                      t->rows[t->count - 1].tai_utc + dir, dir);
}

/* Expires YEAR MONTH DAY HH:MM:SS */
static int tz_expires(struct parser *ps, struct span rest, int *seen)
{
	struct span ft, extra;
	int64_t day;
	int h, m, s, rc;
	char q[64];

	if (*seen != 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "a second Expires line (the first "
		                   "is line %d)",
		                   *seen);
	rc = tz_date(ps, &rest, &day);
	if (rc < 0)
		return rc;
	ft = lc__lf_next_field(&rest, 1);
	extra = lc__lf_next_field(&rest, 1);
	if (ft.n == 0)
		return lc__lf_perr(ps, LC_EPARSE, "HH:MM:SS is missing");
	if (parse_hms(ft, &h, &m, &s) < 0 || s == 60)
		return lc__lf_perr(ps, LC_EPARSE, "time %s is not HH:MM:SS",
		                   lc__lf_quote(ft, q));
	if (extra.n != 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "unexpected %s after the time",
		                   lc__lf_quote(extra, q));
	*seen = ps->lineno;
	ps->t->info.expires = day + h * 3600 + m * 60 + s;
	return 0;
}

/* "#updated SECONDS (...)" or "#expires SECONDS (...)". */
static int tz_stamp(struct parser *ps, struct span rest, const char *what,
                    int *seen_line, int64_t *out)
{
	struct span f = lc__lf_next_field(&rest, 0);
	int64_t v;
	int rc;

	rc = lc__lf_stamp(ps, f, what, *seen_line, WHEN_MAX, &v);
	if (rc < 0)
		return rc;
	*seen_line = ps->lineno;
	*out = v;
	return 0;
}

int lc__lf_parse_tzdata(struct parser *ps)
{
	struct span line;
	int expires_kw = 0, expires_c = 0, leaps = 0, rc;
	int64_t expires_comment = INT64_MIN;
	char q[64];

	/* UTC's start: tzdata leaves it implied. */
	rc = lc__lf_add_row(ps, START_1972, START_TAI_UTC, 0);
	if (rc < 0)
		return rc;
	while (lc__lf_next_line(ps, &line)) {
		struct span rest = line, kw;

		if (tz_stamp_line(line, "#updated")) {
			rest.p += 8;
			rest.n -= 8;
			rc = tz_stamp(ps, rest, "#updated", &ps->updated_line,
			              &ps->t->info.updated);
		} else if (tz_stamp_line(line, "#expires")) {
			rest.p += 8;
			rest.n -= 8;
			rc = tz_stamp(ps, rest, "#expires", &expires_c,
			              &expires_comment);
		} else if ((kw = lc__lf_next_field(&rest, 1)).n == 0) {
			rc = 0; /* blank or comment */
		} else if (span_is(kw, "Leap")) {
			rc = tz_leap(ps, rest);
			leaps++;
		} else if (span_is(kw, "Expires")) {
			rc = tz_expires(ps, rest, &expires_kw);
		} else {
			rc = lc__lf_perr(ps, LC_EPARSE,
			                 "unexpected %s: a leapseconds "
			                 "file has only Leap and Expires lines",
			                 lc__lf_quote(kw, q));
		}
		if (rc < 0)
			return rc;
	}
	if (leaps == 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "no Leap lines: truncated or not a "
		                   "tzdata leapseconds file");
	/* The Expires line is what zic reads; the comment is its copy. */
	if (!expires_kw)
		ps->t->info.expires = expires_comment;
	ps->t->info.hash = LC_HASH_NONE;
	return lc__lf_validate_rows(ps);
}
