/*
 * civil.c - calendar arithmetic, the UTC/Unix/TAI/GPS/NTP scales and
 * ISO 8601 / RFC 3339 text with 23:59:60.
 *
 * Nothing here reads TZ, the locale or the libc time functions: the calendar
 * is the proleptic Gregorian one computed from a March-based era, and every
 * scale is an int64_t count (seconds or ns) converted with the leap table.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Calendar                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * The Gregorian calendar repeats every 400 years = 146097 days (an "era").
 * Counting years from March 1 puts February, the only irregular month, at the
 * end of the year, so within a year the day of the year of a month start is a
 * linear function: months from March have 31,30,31,30,31 | 31,30,31,30,31 |
 * 31,(28/29) days, a 153-day period of five months, and
 *     start(mp) = (153 * mp + 2) / 5          for mp = 0 (March) .. 11 (Feb)
 * gives 0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 306, 337.
 * Within an era, the year-of-era yoe (0..399, March-based) starts at day
 *     365 * yoe + yoe / 4 - yoe / 100
 * (a leap day at the end of every 4th March-year except every 100th; the
 * 400th is the era's last day, day 146096).
 * 0000-03-01 is day 0 of era 0, and 1970-01-01 is 719468 days after it
 * (= 4 eras of 146097 days + 135080).
 */
#define DAYS_0000_03_01_TO_1970 INT64_C(719468)
#define DAYS_PER_ERA            INT64_C(146097)

int64_t lc_days_from_civil(int64_t year, int mon, int mday)
{
	int64_t y = mon <= 2 ? year - 1 : year;
	int64_t era = lc__fdiv(y, 400);
	int64_t yoe = y - era * 400;                 /* 0..399 */
	int64_t mp = (mon + 9) % 12;                 /* March = 0 */
	int64_t doy = (153 * mp + 2) / 5 + mday - 1; /* 0..365 */
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * DAYS_PER_ERA + doe - DAYS_0000_03_01_TO_1970;
}

void lc_civil_from_days(int64_t days, int64_t *year, int *mon, int *mday)
{
	/*
	 * z = days + 719468 could overflow near INT64_MAX, so split first:
	 * days = q * 146097 + r with 0 <= r < 146097, and 719468 =
	 * 4 * 146097 + 135080, so z = (q + 4) * 146097 + (r + 135080), with
	 * one carry if r + 135080 >= 146097.
	 */
	int64_t era = lc__fdiv(days, DAYS_PER_ERA) + 4;
	int64_t doe = lc__fmod(days, DAYS_PER_ERA) + 135080;
	int64_t yoe, doy, mp;

	if (doe >= DAYS_PER_ERA) {
		doe -= DAYS_PER_ERA;
		era++;
	}
	/*
	 * Invert doe = 365 * yoe + yoe / 4 - yoe / 100: subtracting the leap
	 * days before doe (doe / 1460 - doe / 36524, with the era's last day
	 * 146096 treated as belonging to year 399 by + doe / 146096) leaves
	 * 365 * yoe + day-of-year, so dividing by 365 gives yoe.
	 */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	/* Invert start(mp) = (153 * mp + 2) / 5. */
	mp = (5 * doy + 2) / 153;
	*mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	*mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	*year = yoe + era * 400 + (*mon <= 2);
}

static int is_leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int mon)
{
	static const unsigned char len[12] = {31, 28, 31, 30, 31, 30,
	                                      31, 31, 30, 31, 30, 31};
	return mon == 2 && is_leap_year(y) ? 29 : len[mon - 1];
}

/* Years that keep every intermediate of lc_days_from_civil and the POSIX
 * seconds of any instant of the year inside int64_t: 2^63 s is about
 * 2.92e11 years. */
#define YEAR_LIMIT INT64_C(290000000000)

void lc_tm_from_unix(int64_t unix_sec, int32_t nsec, struct lc_tm *tm)
{
	int64_t days, sod;

	/* Normalise a nsec outside [0, 1e9) into the seconds. */
	unix_sec += lc__fdiv(nsec, LC__NS);
	nsec = (int32_t)lc__fmod(nsec, LC__NS);
	days = lc__fdiv(unix_sec, LC_SECS_PER_DAY);
	sod = lc__fmod(unix_sec, LC_SECS_PER_DAY);
	lc_civil_from_days(days, &tm->year, &tm->mon, &tm->mday);
	tm->hour = (int)(sod / 3600);
	tm->min = (int)(sod / 60 % 60);
	tm->sec = (int)(sod % 60);
	tm->nsec = nsec;
	tm->wday = (int)lc__fmod(days + 4, 7); /* 1970-01-01 was a Thursday */
	tm->yday = (int)(days - lc_days_from_civil(tm->year, 1, 1));
}

/* Range checks shared by lc_tm_to_utc and the parser; returns a static
 * description of the first bad field, or NULL. */
static const char *tm_bad_field(const struct lc_tm *tm)
{
	if (tm->year < -YEAR_LIMIT || tm->year > YEAR_LIMIT)
		return "year";
	if (tm->mon < 1 || tm->mon > 12)
		return "month";
	if (tm->mday < 1 || tm->mday > days_in_month(tm->year, tm->mon))
		return "day";
	if (tm->hour < 0 || tm->hour > 23)
		return "hour";
	if (tm->min < 0 || tm->min > 59)
		return "minute";
	if (tm->sec < 0 || tm->sec > 60 ||
	    (tm->sec == 60 && (tm->hour != 23 || tm->min != 59)))
		return "second";
	if (tm->nsec < 0 || tm->nsec >= LC__NS)
		return "nanoseconds";
	return NULL;
}

int lc_tm_to_utc(const struct lc_tm *tm, struct timespec *utc)
{
	int64_t days;

	if (tm_bad_field(tm) != NULL)
		return LC_EINVAL;
	days = lc_days_from_civil(tm->year, tm->mon, tm->mday);
	/* sec 60 is written as 23:59:59 with tv_nsec + 1e9. */
	utc->tv_sec = (time_t)(days * LC_SECS_PER_DAY + tm->hour * 3600 +
	                       tm->min * 60 + (tm->sec == 60 ? 59 : tm->sec));
	utc->tv_nsec = (long)(tm->nsec + (tm->sec == 60 ? LC__NS : 0));
	return 0;
}

int lc_utc_to_tm(const struct timespec *utc, struct lc_tm *tm)
{
	struct lc_tm t;

	if (utc->tv_nsec < 0 || utc->tv_nsec >= 2 * LC__NS)
		return LC_EINVAL;
	if (utc->tv_nsec < LC__NS) {
		lc_tm_from_unix((int64_t)utc->tv_sec, (int32_t)utc->tv_nsec,
		                tm);
		return 0;
	}
	lc_tm_from_unix((int64_t)utc->tv_sec, (int32_t)(utc->tv_nsec - LC__NS),
	                &t);
	if (t.hour != 23 || t.min != 59 || t.sec != 59)
		return LC_EINVAL;
	t.sec = 60;
	*tm = t;
	return 0;
}

int lc_utc_check(const lc_leaptable *t, const struct timespec *utc)
{
	if (t == NULL)
		return LC_EINVAL;
	int leap;

	if (utc->tv_nsec < 0 || utc->tv_nsec >= 2 * LC__NS)
		return LC_EINVAL;
	leap = lc_leaptable_leap_at(t, (int64_t)utc->tv_sec);
	if (leap < 0)
		return LC_ENOTLEAP; /* a deleted 23:59:59 never exists */
	if (utc->tv_nsec >= LC__NS && leap != 1)
		return LC_ENOTLEAP;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Scales                                                                    */
/* ------------------------------------------------------------------------ */

/* Seconds that, as ns, stay inside int64_t (about +-292 years from 1970). */
#define NS_SEC_MAX (INT64_MAX / LC__NS - 1)

int lc_tai_from_utc(const lc_leaptable *t, const struct timespec *utc,
                    int64_t *tai_ns)
{
	if (t == NULL)
		return LC_EINVAL;
	int64_t sec = (int64_t)utc->tv_sec;
	int32_t off;
	int rc;

	rc = lc_utc_check(t, utc);
	if (rc < 0)
		return rc;
	rc = lc_leaptable_tai_utc(t, sec, &off);
	if (rc < 0)
		return rc;
	/*
	 * lc_leaptable_tai_utc gives the repeated POSIX second (23:59:59
	 * before an insertion) the new offset already. In UTC that second is
	 * two: 23:59:59 (tv_nsec < 1e9) still has the old offset, and
	 * 23:59:60 (tv_nsec + 1e9) = 23:59:59 + 1 s on the old offset, i.e.
	 * TAI [when + new - 1, when + new), as the table defines it.
	 */
	if (lc_leaptable_leap_at(t, sec) == 1)
		off -= 1;
	/* (sec + off) * 1e9 + tv_nsec (< 2e9) must fit in int64_t. */
	if (sec > NS_SEC_MAX - 1 - off || sec < -NS_SEC_MAX)
		return LC_ERANGE;
	*tai_ns = (sec + off) * LC__NS + (int64_t)utc->tv_nsec;
	return 0;
}

int lc_utc_from_tai(const lc_leaptable *t, int64_t tai_ns, struct timespec *utc)
{
	if (t == NULL)
		return LC_EINVAL;
	int64_t tai_sec = lc__fdiv(tai_ns, LC__NS);
	int64_t frac = lc__fmod(tai_ns, LC__NS);
	int32_t off;
	int in_leap = 0, rc;

	rc = lc_leaptable_tai_utc_at_tai(t, tai_sec, &off, &in_leap);
	if (rc < 0)
		return rc;
	/* Inside 23:59:60 (TAI when + off - 1, off the new offset), tai_sec -
	 * off is when - 1, the tv_sec of 23:59:59, and tv_nsec gets + 1e9. */
	utc->tv_sec = (time_t)(tai_sec - off);
	utc->tv_nsec = (long)(in_leap ? frac + LC__NS : frac);
	return 0;
}

int lc_tai_from_unix(const lc_leaptable *t, int64_t unix_ns, int64_t *tai_ns)
{
	if (t == NULL)
		return LC_EINVAL;
	int64_t sec = lc__fdiv(unix_ns, LC__NS);
	int32_t off;
	int rc;

	if (lc_leaptable_leap_at(t, sec) < 0)
		return LC_ENOTLEAP; /* REALTIME skips a deleted second */
	rc = lc_leaptable_tai_utc(t, sec, &off);
	if (rc < 0)
		return rc;
	/* The repeated second has the new offset: it maps to 23:59:60. */
	if (unix_ns > INT64_MAX - off * LC__NS)
		return LC_ERANGE;
	*tai_ns = unix_ns + off * LC__NS;
	return 0;
}

int lc_unix_from_tai(const lc_leaptable *t, int64_t tai_ns, int64_t *unix_ns)
{
	if (t == NULL)
		return LC_EINVAL;
	int32_t off;
	int rc;

	/* Inside 23:59:60 the offset is already the new one, so the result is
	 * the repeated 23:59:59, as REALTIME reads it. */
	rc = lc_leaptable_tai_utc_at_tai(t, lc__fdiv(tai_ns, LC__NS), &off,
	                                 NULL);
	if (rc < 0)
		return rc;
	*unix_ns = tai_ns - off * LC__NS;
	return 0;
}

int64_t lc_gps_from_tai(int64_t tai_ns)
{
	return lc__sat_add(tai_ns, -LC_GPS_EPOCH_TAI * LC__NS);
}

int64_t lc_tai_from_gps(int64_t gps_ns)
{
	return lc__sat_add(gps_ns, LC_GPS_EPOCH_TAI * LC__NS);
}

#define TWO32 (INT64_C(1) << 32)

uint64_t lc_ntp_from_unix_ns(int64_t unix_ns)
{
	int64_t sec = lc__fdiv(unix_ns, LC__NS);
	int64_t ns = lc__fmod(unix_ns, LC__NS);
	/*
	 * fraction = round(ns * 2^32 / 1e9). ns < 1e9 < 2^30, so ns * 2^32 <
	 * 2^62 does not overflow, and the largest result, for 999999999 ns, is
	 * 4294967292 < 2^32: no carry into the seconds. The seconds are taken
	 * modulo 2^32 (the era is not part of the timestamp).
	 */
	uint64_t frac = (uint64_t)((ns * TWO32 + LC__NS / 2) / LC__NS);
	uint64_t s = (uint64_t)(sec + LC_NTP_UNIX_OFFSET) & 0xffffffffu;

	return s << 32 | frac;
}

int64_t lc_unix_ns_from_ntp(uint64_t ntp, int64_t pivot_unix_sec)
{
	int64_t base = (int64_t)(ntp >> 32) - LC_NTP_UNIX_OFFSET;
	int64_t frac = (int64_t)(ntp & 0xffffffffu);
	int64_t sec, ns, k;

	/*
	 * The candidates are base + k * 2^32. The nearest to the pivot lies
	 * in [pivot - 2^31, pivot + 2^31): k = -floor((base - pivot + 2^31) /
	 * 2^32). A pivot beyond what int64_t ns can hold is clamped first.
	 */
	if (pivot_unix_sec > NS_SEC_MAX)
		pivot_unix_sec = NS_SEC_MAX;
	if (pivot_unix_sec < -NS_SEC_MAX)
		pivot_unix_sec = -NS_SEC_MAX;
	k = -lc__fdiv(base - pivot_unix_sec + TWO32 / 2, TWO32);
	sec = base + k * TWO32;
	/* ns = round(frac * 1e9 / 2^32); frac * 1e9 < 2^62. The inverse of
	 * the rounding in lc_ntp_from_unix_ns: the encoding is off by at most
	 * half a unit (0.117 ns), so rounding back restores the ns exactly. */
	ns = (frac * LC__NS + TWO32 / 2) >> 32;
	if (sec > NS_SEC_MAX)
		return INT64_MAX;
	if (sec < -NS_SEC_MAX)
		return INT64_MIN;
	return sec * LC__NS + ns;
}

/* ------------------------------------------------------------------------ */
/* ISO 8601 / RFC 3339                                                       */
/* ------------------------------------------------------------------------ */

struct parser {
	const char *s;
	size_t i;        /* 0-based index; messages say column i + 1 */
	char where[256]; /* the input, printable, for lc_error.where */
	struct lc_error *err;
};

/* The input as a label: non-printable bytes become '?', long ones end in
 * "...". */
static void set_where(struct parser *p)
{
	size_t i, n = 0;

	for (i = 0; p->s[i] != '\0' && n < 200; i++) {
		unsigned char c = (unsigned char)p->s[i];
		p->where[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (p->s[i] != '\0')
		n +=
		    (size_t)snprintf(p->where + n, sizeof(p->where) - n, "...");
	p->where[n] = '\0';
}

/* Describes the character at the cursor for a message. */
static const char *found(const struct parser *p, char *buf, size_t size)
{
	unsigned char c = (unsigned char)p->s[p->i];

	if (c == '\0')
		snprintf(buf, size, "the end of the text");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Exactly n digits of `field`, which follows `after` (for messages). */
static int digits(struct parser *p, int n, const char *field, int64_t *out)
{
	char f[32];
	int64_t v = 0;

	for (int k = 0; k < n; k++) {
		if (!is_digit(p->s[p->i]))
			return lc__error(p->err, LC_EPARSE, p->where, 0,
			                 "expected %d-digit %s at column %zu, "
			                 "found %s",
			                 n, field, p->i + 1 - (size_t)k,
			                 found(p, f, sizeof(f)));
		v = v * 10 + (p->s[p->i++] - '0');
	}
	*out = v;
	return 0;
}

static int expect(struct parser *p, char c, const char *after)
{
	char f[32];

	if (p->s[p->i] != c)
		return lc__error(
		    p->err, LC_EPARSE, p->where, 0,
		    "expected '%c' after %s at column %zu, found %s", c, after,
		    p->i + 1, found(p, f, sizeof(f)));
	p->i++;
	return 0;
}

static int range(struct parser *p, const char *field, int64_t v, int64_t lo,
                 int64_t hi, size_t col)
{
	if (v < lo || v > hi)
		return lc__error(
		    p->err, LC_EPARSE, p->where, 0,
		    "%s %lld out of range (%lld..%lld) at column %zu", field,
		    (long long)v, (long long)lo, (long long)hi, col);
	return 0;
}

/* Years: 4 digits, or ISO 8601's expanded form: a sign and 4 to 11 digits
 * (11 digits keep every instant inside int64_t POSIX seconds). */
static int parse_year(struct parser *p, int64_t *year)
{
	char f[32];
	int neg = 0, n = 0;
	int64_t v = 0;
	size_t start = p->i;

	if (p->s[p->i] == '+' || p->s[p->i] == '-') {
		neg = p->s[p->i] == '-';
		p->i++;
	}
	while (is_digit(p->s[p->i]) && n < 12) {
		v = v * 10 + (p->s[p->i++] - '0');
		n++;
	}
	if (n < 4)
		return lc__error(
		    p->err, LC_EPARSE, p->where, 0,
		    "expected a 4-digit year at column %zu, found %s",
		    start + 1, found(p, f, sizeof(f)));
	if (n > 4 && p->i - (size_t)n == start)
		return lc__error(p->err, LC_EPARSE, p->where, 0,
		                 "year with more than 4 digits needs a '+' or "
		                 "'-' sign (column %zu)",
		                 start + 1);
	if (n > 11)
		return lc__error(p->err, LC_EPARSE, p->where, 0,
		                 "year has more than 11 digits (column %zu)",
		                 start + 1);
	*year = neg ? -v : v;
	return 0;
}

/* A 2-digit field in lo..hi. */
static int field2(struct parser *p, const char *field, int64_t lo, int64_t hi,
                  int64_t *out)
{
	size_t col = p->i + 1;
	int rc;

	if ((rc = digits(p, 2, field, out)) < 0 ||
	    (rc = range(p, field, *out, lo, hi, col)) < 0)
		return rc;
	return 0;
}

/* The fields of an ISO 8601 instant as written (second 60 kept). */
struct iso_fields {
	int64_t year, mon, mday, hour, min, sec;
	int64_t nsec; /* the fraction, in ns */
	int64_t off;  /* the zone's offset east of UTC, in s */
};

/* YYYY-MM-DD and the 'T' (or 't', or ' ') before the time. */
static int parse_date(struct parser *p, struct iso_fields *f)
{
	char buf[32];
	size_t col;
	int rc;

	if ((rc = parse_year(p, &f->year)) < 0 ||
	    (rc = expect(p, '-', "year")) < 0 ||
	    (rc = field2(p, "month", 1, 12, &f->mon)) < 0 ||
	    (rc = expect(p, '-', "month")) < 0)
		return rc;
	col = p->i + 1;
	if ((rc = digits(p, 2, "day", &f->mday)) < 0)
		return rc;
	if (f->mday < 1 || f->mday > days_in_month(f->year, (int)f->mon))
		return lc__error(
		    p->err, LC_EPARSE, p->where, 0,
		    "day %lld out of range (1..%d for %04lld-%02lld) "
		    "at column %zu",
		    (long long)f->mday, days_in_month(f->year, (int)f->mon),
		    (long long)f->year, (long long)f->mon, col);
	if (p->s[p->i] != 'T' && p->s[p->i] != 't' && p->s[p->i] != ' ')
		return lc__error(p->err, LC_EPARSE, p->where, 0,
		                 "expected 'T' or ' ' between date and time at "
		                 "column %zu, found %s",
		                 p->i + 1, found(p, buf, sizeof(buf)));
	p->i++;
	return 0;
}

/* hh:mm:ss (ss up to 60). */
static int parse_time(struct parser *p, struct iso_fields *f)
{
	int rc;

	if ((rc = field2(p, "hour", 0, 23, &f->hour)) < 0 ||
	    (rc = expect(p, ':', "hour")) < 0 ||
	    (rc = field2(p, "minute", 0, 59, &f->min)) < 0 ||
	    (rc = expect(p, ':', "minute")) < 0 ||
	    (rc = field2(p, "second", 0, 60, &f->sec)) < 0)
		return rc;
	return 0;
}

/* An optional fraction of a second: '.' or ',' and 1 to 9 digits. */
static int parse_fraction(struct parser *p, int64_t *nsec)
{
	char buf[32];
	size_t col;
	int n = 0;

	*nsec = 0;
	if (p->s[p->i] != '.' && p->s[p->i] != ',')
		return 0;
	p->i++;
	col = p->i + 1;
	while (is_digit(p->s[p->i])) {
		if (n == 9)
			return lc__error(p->err, LC_EPARSE, p->where, 0,
			                 "fraction of a second has more "
			                 "than 9 digits (column %zu)",
			                 col);
		*nsec = *nsec * 10 + (p->s[p->i++] - '0');
		n++;
	}
	if (n == 0)
		return lc__error(p->err, LC_EPARSE, p->where, 0,
		                 "expected digits of the fraction after "
		                 "'.' at column %zu, found %s",
		                 col, found(p, buf, sizeof(buf)));
	for (; n < 9; n++)
		*nsec *= 10;
	return 0;
}

/* The zone, 'Z' or +hh:mm / -hh:mm, which must end the text. */
static int parse_zone(struct parser *p, int64_t *off)
{
	size_t col = p->i + 1;
	char buf[32];
	int rc;

	*off = 0;
	if (p->s[p->i] == 'Z' || p->s[p->i] == 'z') {
		p->i++;
	} else if (p->s[p->i] == '+' || p->s[p->i] == '-') {
		int neg = p->s[p->i] == '-';
		int64_t oh, om;

		p->i++;
		if ((rc = digits(p, 2, "offset hour", &oh)) < 0 ||
		    (rc = range(p, "offset hour", oh, 0, 23, col + 1)) < 0 ||
		    (rc = expect(p, ':', "offset hour")) < 0)
			return rc;
		if ((rc = digits(p, 2, "offset minute", &om)) < 0 ||
		    (rc = range(p, "offset minute", om, 0, 59, p->i - 1)) < 0)
			return rc;
		*off = (oh * 3600 + om * 60) * (neg ? -1 : 1);
	} else {
		return lc__error(
		    p->err, LC_EPARSE, p->where, 0,
		    "expected 'Z' or an offset such as +01:00 after "
		    "the time at column %zu, found %s",
		    col, found(p, buf, sizeof(buf)));
	}
	if (p->s[p->i] != '\0')
		return lc__error(
		    p->err, LC_EPARSE, p->where, 0,
		    "unexpected %s after the time zone at column %zu",
		    found(p, buf, sizeof(buf)), p->i + 1);
	return 0;
}

/* The fields as a UTC timespec: second 60 only as a leap second of the
 * table (23:59:60 UTC whatever the offset), no deleted second. */
static int fields_to_utc(const struct parser *p, const struct iso_fields *f,
                         const lc_leaptable *t, struct timespec *utc)
{
	struct lc_tm tm = {0};
	int64_t posix, days;
	int leap;

	/* Local fields to UTC. Second 60 counts as 59 here and becomes
	 * tv_nsec + 1e9 below. */
	days = lc_days_from_civil(f->year, (int)f->mon, (int)f->mday);
	posix = days * LC_SECS_PER_DAY + f->hour * 3600 + f->min * 60 +
	        (f->sec == 60 ? 59 : f->sec) - f->off;
	lc_tm_from_unix(posix, 0, &tm);
	leap = t != NULL ? lc_leaptable_leap_at(t, posix) : 0;
	if (f->sec == 60) {
		if (tm.hour != 23 || tm.min != 59)
			return lc__error(
			    p->err, LC_ENOTLEAP, p->where, 0,
			    "second 60 is %02d:%02d:60 UTC; a leap "
			    "second can only be 23:59:60 UTC",
			    tm.hour, tm.min);
		if (t != NULL && leap != 1)
			return lc__error(
			    p->err, LC_ENOTLEAP, p->where, 0,
			    "no leap second was inserted at the end "
			    "of %04lld-%02d-%02d",
			    (long long)tm.year, tm.mon, tm.mday);
	} else if (leap < 0) {
		return lc__error(p->err, LC_ENOTLEAP, p->where, 0,
		                 "23:59:59 UTC on %04lld-%02d-%02d was deleted "
		                 "(a negative leap second): it never existed",
		                 (long long)tm.year, tm.mon, tm.mday);
	}
	utc->tv_sec = (time_t)posix;
	utc->tv_nsec = (long)(f->nsec + (f->sec == 60 ? LC__NS : 0));
	return 0;
}

int lc_iso8601_parse(const char *s, const lc_leaptable *t, struct timespec *utc,
                     struct lc_error *err)
{
	struct parser p = {.s = s, .i = 0, .err = err};
	struct iso_fields f = {0};
	int rc;

	set_where(&p);
	if (s[0] == '\0')
		return lc__error(err, LC_EPARSE, "<time>", 0,
		                 "empty time: expected YYYY-MM-DDThh:mm:ssZ");
	if ((rc = parse_date(&p, &f)) < 0 || (rc = parse_time(&p, &f)) < 0 ||
	    (rc = parse_fraction(&p, &f.nsec)) < 0 ||
	    (rc = parse_zone(&p, &f.off)) < 0)
		return rc;
	return fields_to_utc(&p, &f, t, utc);
}

/* Writes "YYYY-MM-DDThh:mm:ss[.f]" for broken-down fields; returns the length
 * or LC_ERANGE. Years outside 0..9999 get ISO 8601's expanded form (a sign
 * and at least 4 digits), which lc_iso8601_parse reads back. */
static int format_fields(const struct lc_tm *tm, int digits, const char *zone,
                         char *buf, size_t size)
{
	char frac[12] = "";
	int n;

	if (digits < 0 || digits > 9)
		return LC_EINVAL;
	if (digits > 0) {
		int32_t v = tm->nsec;
		for (int k = 9; k > digits; k--)
			v /= 10; /* truncate: the text never rounds up a second
			          */
		snprintf(frac, sizeof(frac), ".%0*d", digits, (int)v);
	}
	if (tm->year >= 0 && tm->year <= 9999)
		n = snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02d%s%s",
		             (long long)tm->year, tm->mon, tm->mday, tm->hour,
		             tm->min, tm->sec, frac, zone);
	else
		n = snprintf(buf, size, "%c%04lld-%02d-%02dT%02d:%02d:%02d%s%s",
		             tm->year < 0 ? '-' : '+',
		             (long long)(tm->year < 0 ? -tm->year : tm->year),
		             tm->mon, tm->mday, tm->hour, tm->min, tm->sec,
		             frac, zone);
	if (n < 0 || (size_t)n >= size)
		return LC_ERANGE;
	return n;
}

int lc_iso8601_format(const struct timespec *utc, int digits, char *buf,
                      size_t size)
{
	struct lc_tm tm;

	if (lc_utc_to_tm(utc, &tm) < 0)
		return LC_EINVAL;
	return format_fields(&tm, digits, "Z", buf, size);
}

int lc_iso8601_format_scale(int64_t ns, int digits, char *buf, size_t size)
{
	struct lc_tm tm;

	lc_tm_from_unix(lc__fdiv(ns, LC__NS), (int32_t)lc__fmod(ns, LC__NS),
	                &tm);
	return format_fields(&tm, digits, "", buf, size);
}

/* ------------------------------------------------------------------------ */
/* Supported range                                                           */
/* ------------------------------------------------------------------------ */

/* "YYYY-MM-DD" when `date_only`, else "YYYY-MM-DDThh:mm:ssZ". */
static void range_text(int64_t sec, int date_only, char *buf, size_t size)
{
	struct lc_tm tm;
	int n;

	lc_tm_from_unix(sec, 0, &tm);
	n = format_fields(&tm, 0, "Z", buf, size);
	if (date_only && n > 0)
		buf[n - 10] = '\0'; /* drop "Thh:mm:ssZ" */
}

/* The error of lc_range_check; `name` the instant unless the label (the
 * text given) already is that instant. */
static int range_error(int64_t sec, int64_t first_sec, int64_t end_sec,
                       const char *where, struct lc_error *err)
{
	char a[48], b[48], c[48];
	int days;

	if (where == NULL)
		where = "<time>";
	/* A range of whole days is shown as dates, the last one inclusive. */
	days = lc__fmod(first_sec, LC_SECS_PER_DAY) == 0 &&
	       lc__fmod(end_sec, LC_SECS_PER_DAY) == 0;
	range_text(sec, 0, a, sizeof(a));
	range_text(first_sec, days, b, sizeof(b));
	range_text(days ? end_sec - LC_SECS_PER_DAY : end_sec - 1, days, c,
	           sizeof(c));
	if (strcmp(a, where) == 0)
		return lc__error(err, LC_ERANGE, where, 0,
		                 "outside the supported range, %s to %s", b, c);
	return lc__error(err, LC_ERANGE, where, 0,
	                 "%s is outside the supported range, %s to %s", a, b,
	                 c);
}

int lc_range_check(int64_t sec, int64_t first_sec, int64_t end_sec,
                   const char *where, struct lc_error *err)
{
	if (sec >= first_sec && sec < end_sec)
		return 0;
	return range_error(sec, first_sec, end_sec, where, err);
}

int lc_iso8601_parse_range(const char *s, const lc_leaptable *t,
                           int64_t first_sec, int64_t end_sec,
                           struct timespec *utc, struct lc_error *err)
{
	struct timespec ts;
	char where[256];
	int rc;

	rc = lc_iso8601_parse(s, t, &ts, err);
	if (rc < 0)
		return rc;
	snprintf(where, sizeof(where), "%s", s);
	/* The labels of lc_iso8601_parse: printable, cut at 200. */
	for (size_t i = 0; where[i] != '\0'; i++)
		if ((unsigned char)where[i] < 0x20 ||
		    (unsigned char)where[i] >= 0x7f)
			where[i] = '?';
	if (strlen(where) > 200)
		strcpy(where + 200, "...");
	rc = lc_range_check((int64_t)ts.tv_sec, first_sec, end_sec, where,
	                    err);
	if (rc < 0)
		return rc;
	*utc = ts;
	return 0;
}
