/*
 * leapfile.c - loading a leap-second table from a file: the IERS/NIST
 * leap-seconds.list format, tzdata's `leapseconds` format, format detection,
 * and the search for the system's table.
 *
 * Every load parses into a temporary table and copies it over the caller's
 * only when the whole file was accepted, so a bad file never changes the
 * table in effect (DESIGN.md invariant 6).
 *
 * The two formats (both describe the same data in Debian's tzdata):
 *
 *   leap-seconds.list          tzdata leapseconds
 *   2272060800  10  # 1 Jan 72  (no row: UTC's start is implied)
 *   2287785600  11  # 1 Jul 72  Leap 1972 Jun 30 23:59:60 + S
 *   #$ NTP seconds of update    #updated POSIX-seconds (comment)
 *   #@ NTP seconds of expiry    #expires POSIX-seconds, or Expires Y M D T
 *   #h SHA-1 of the data        (no hash)
 *
 * A leap-seconds.list row gives TAI-UTC from its instant on; a tzdata row
 * names the leap second itself, whose end is the next day's 00:00:00.
 */
#include "leaptable_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define START_1972    INT64_C(63072000) /* 1972-01-01T00:00:00Z */
#define START_TAI_UTC 10
/* Nothing after 9999-12-31 is accepted: it keeps every sum of a date and an
 * offset far from overflow, and no real table goes there. */
#define WHEN_MAX INT64_C(253402300800) /* 10000-01-01T00:00:00Z */
#define FILE_MAX (1024 * 1024)         /* real files are < 10 KiB */

/* ------------------------------------------------------------------------ */
/* Calendar                                                                  */
/* ------------------------------------------------------------------------ */

/* The calendar is civil.c's (one implementation in the library); these
 * keep the parsers' and the table command's call sites short. */
int64_t lc__leap_days_from_civil(int64_t year, int mon, int mday)
{
	return lc_days_from_civil(year, mon, mday);
}

void lc__leap_civil(int64_t unix_sec, int64_t *year, int *mon, int *mday,
                    int *sec_of_day)
{
	lc_civil_from_days(lc__fdiv(unix_sec, LC_SECS_PER_DAY), year, mon, mday);
	*sec_of_day = (int)lc__fmod(unix_sec, LC_SECS_PER_DAY);
}

static int is_leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m)
{
	static const int len[12] = {31, 28, 31, 30, 31, 30,
	                            31, 31, 30, 31, 30, 31};

	return m == 2 && is_leap_year(y) ? 29 : len[m - 1];
}

/* 1 if the POSIX second is 00:00:00 of the first day of a month: the
 * instant after a leap at the end of a month. */
static int starts_month(int64_t unix_sec)
{
	int64_t y;
	int m, d, sod;

	lc__leap_civil(unix_sec, &y, &m, &d, &sod);
	return d == 1 && sod == 0;
}

/* "YYYY-MM-DD" for messages. */
static const char *fmt_date(int64_t unix_sec, char buf[32])
{
	int64_t y;
	int m, d, sod;

	lc__leap_civil(unix_sec, &y, &m, &d, &sod);
	snprintf(buf, 32, "%04" PRId64 "-%02d-%02d", y, m, d);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Lines and fields                                                          */
/* ------------------------------------------------------------------------ */

struct span {
	const char *p;
	size_t n;
};

struct parser {
	const char *name;
	const char *buf;
	size_t len;
	size_t pos; /* start of the next line */
	int lineno; /* of the line last returned */
	struct lc_error *err;
	struct lc_leaptable *t;  /* the temporary being filled */
	int lines[LC__LEAP_MAX]; /* line of each row (0: synthesised) */
	int hash_line;           /* the #h line, 0 if none */
	uint32_t hash_file[5];   /* the #h words */
	struct lc__sha1 sha;
	int updated_line, expires_line;
	int month_end; /* a leap must end a month (a table from a file) */
};

/* The next line, without its '\n' (and a '\r' before it). 0 at the end. */
static int next_line(struct parser *ps, struct span *line)
{
	const char *nl;

	if (ps->pos >= ps->len)
		return 0;
	line->p = ps->buf + ps->pos;
	nl = memchr(line->p, '\n', ps->len - ps->pos);
	line->n = nl ? (size_t)(nl - line->p) : ps->len - ps->pos;
	ps->pos += line->n + (nl != NULL);
	if (line->n > 0 && line->p[line->n - 1] == '\r')
		line->n--;
	ps->lineno++;
	return 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The next whitespace-separated field of *s (which is advanced past it);
 * stops at '#' when `stop_hash`. An empty span when there is none. */
static struct span next_field(struct span *s, int stop_hash)
{
	struct span f;

	while (s->n > 0 && is_space(*s->p)) {
		s->p++;
		s->n--;
	}
	f.p = s->p;
	f.n = 0;
	while (f.n < s->n && !is_space(f.p[f.n]) &&
	       !(stop_hash && f.p[f.n] == '#'))
		f.n++;
	s->p += f.n;
	s->n -= f.n;
	return f;
}

static int span_empty(struct span s)
{
	while (s.n > 0 && is_space(*s.p)) {
		s.p++;
		s.n--;
	}
	return s.n == 0;
}

static int span_is(struct span s, const char *word)
{
	return s.n == strlen(word) && strncasecmp(s.p, word, s.n) == 0;
}

static int starts_with(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

/* A field quoted for a message: at most 40 characters, anything but
 * printable ASCII shown as '?'. */
static const char *quote(struct span f, char buf[64])
{
	size_t i, n = f.n > 40 ? 40 : f.n;

	buf[0] = '\'';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)f.p[i];
		buf[1 + i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	strcpy(buf + 1 + n, f.n > n ? "...'" : "'");
	return buf;
}

/* A decimal number of at most `max`. 0, or -1 if not all digits, -2 if too
 * large. */
static int parse_uint(struct span f, int64_t max, int64_t *out)
{
	int64_t v = 0;

	if (f.n == 0)
		return -1;
	for (size_t i = 0; i < f.n; i++) {
		if (!is_digit(f.p[i]))
			return -1;
		/* v * 10 + d <= max, checked without overflow */
		if (v > (max - (f.p[i] - '0')) / 10)
			return -2;
		v = v * 10 + (f.p[i] - '0');
	}
	*out = v;
	return 0;
}

LC__PRINTF(3, 4)
static int perr(struct parser *ps, int code, const char *fmt, ...);

static int perr(struct parser *ps, int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return lc__error(ps->err, code, ps->name, ps->lineno, "%s", msg);
}

/* A number field that must be there: its name goes into the message. */
static int need_uint(struct parser *ps, struct span f, const char *what,
                     int64_t max, int64_t *out)
{
	char q[64];
	int rc;

	if (f.n == 0)
		return perr(ps, LC_EPARSE, "%s is missing", what);
	rc = parse_uint(f, max, out);
	if (rc == -1)
		return perr(ps, LC_EPARSE, "%s: %s is not a decimal number",
		            what, quote(f, q));
	if (rc == -2)
		return perr(ps, LC_EPARSE, "%s: %s is out of range", what,
		            quote(f, q));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Text check                                                                */
/* ------------------------------------------------------------------------ */

/* Length of the well-formed UTF-8 sequence at p (lead byte >= 0x80), or 0.
 * Ranges from RFC 3629 section 4 (no overlongs, no surrogates). */
static size_t utf8_len(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* Rejects anything that is not a text file: NUL and other control bytes
 * (tab and CR-LF line ends allowed), malformed UTF-8, an empty file, and a
 * last line without its newline (a file cut short). */
static int check_text(struct parser *ps)
{
	const unsigned char *b = (const unsigned char *)ps->buf;
	int line = 1;

	if (ps->len == 0) {
		ps->lineno = 0;
		return perr(ps, LC_EPARSE,
		            "the file is empty: no leap-second data");
	}
	for (size_t i = 0; i < ps->len; i++) {
		unsigned char c = b[i];

		ps->lineno = line;
		if (c == '\n') {
			line++;
		} else if (c == 0) {
			return perr(
			    ps, LC_EPARSE,
			    "NUL byte at offset %zu: binary data, not a "
			    "leap-second file",
			    i);
		} else if (c == '\r' && i + 1 < ps->len && b[i + 1] == '\n') {
			/* CR-LF */
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			return perr(ps, LC_EPARSE,
			            "control byte 0x%02x at offset %zu: binary "
			            "data, not a leap-second file",
			            c, i);
		} else if (c >= 0x80) {
			size_t n = utf8_len(b + i, ps->len - i);
			if (n == 0)
				return perr(ps, LC_EPARSE,
				            "byte 0x%02x at offset %zu is not "
				            "UTF-8 text: binary data, not a "
				            "leap-second file",
				            c, i);
			i += n - 1;
		}
	}
	if (b[ps->len - 1] != '\n') {
		ps->lineno = line;
		return perr(ps, LC_EPARSE,
		            "truncated file: the last line has no newline");
	}
	ps->lineno = 0;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                      */
/* ------------------------------------------------------------------------ */

static int add_row(struct parser *ps, int64_t when, int32_t tai_utc, int dir)
{
	struct lc_leaptable *t = ps->t;

	if (t->count >= LC__LEAP_MAX)
		return perr(ps, LC_ETABLE,
		            "too many rows: a table holds at most %d",
		            LC__LEAP_MAX);
	t->rows[t->count].when = when;
	t->rows[t->count].tai_utc = tai_utc;
	t->rows[t->count].dir = dir;
	ps->lines[t->count] = ps->lineno;
	t->count++;
	return 0;
}

/* Checks the rows of either format: the first is UTC's start (1972-01-01,
 * 10 s), dates increase, each is a UTC midnight, and each step is +-1 s.
 * Errors name the row's line. */
static int validate_rows(struct parser *ps)
{
	struct lc_leaptable *t = ps->t;
	char d1[32], d2[32];

	for (size_t i = 0; i < t->count; i++) {
		const struct lc_leap *r = &t->rows[i];

		ps->lineno = ps->lines[i];
		if (r->when < START_1972)
			return perr(ps, LC_ETABLE,
			            "date %s is before 1972-01-01: UTC had no "
			            "integral TAI-UTC then",
			            fmt_date(r->when, d1));
		if (i == 0) {
			if (r->when != START_1972)
				return perr(ps, LC_ETABLE,
				            "the first row is %s: it must be "
				            "1972-01-01, the start of UTC with "
				            "leap seconds",
				            fmt_date(r->when, d1));
			if (r->tai_utc != START_TAI_UTC)
				return perr(ps, LC_ETABLE,
				            "TAI-UTC on 1972-01-01 is %" PRId32
				            " s: it was 10 s",
				            r->tai_utc);
			continue;
		}
		if (r->when <= r[-1].when)
			return perr(
			    ps, LC_ETABLE,
			    "date %s is not after the previous row's %s "
			    "(line %d): dates must increase",
			    fmt_date(r->when, d1), fmt_date(r[-1].when, d2),
			    ps->lines[i - 1]);
		if (r->when % LC_SECS_PER_DAY != 0)
			return perr(ps, LC_ETABLE,
			            "%" PRId64 " (%s) is not 00:00:00 UTC: a "
			            "leap second must end a UTC day",
			            r->when, fmt_date(r->when, d1));
		if (r->dir != 1 && r->dir != -1)
			return perr(
			    ps, LC_ETABLE,
			    "TAI-UTC steps from %" PRId32 " to %" PRId32
			    " s: a leap second changes it by exactly 1 s",
			    r[-1].tai_utc, r->tai_utc);
		if (ps->month_end && !starts_month(r->when))
			return perr(ps, LC_ETABLE,
			            "a leap second at the end of %s, which is "
			            "not the last day of a month: ITU-R TF.460 "
			            "puts leap seconds at the end of a month "
			            "only",
			            fmt_date(r->when - 1, d1));
	}
	/* Both formats agree on this: tzdata has no Leap line to give. */
	if (t->count < 2) {
		ps->lineno = ps->lines[0];
		return perr(ps, LC_EPARSE,
		            "only the 1972-01-01 row and no leap "
		            "second: truncated or not a leap-second file");
	}
	ps->lineno = 0;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* IERS/NIST leap-seconds.list                                               */
/* ------------------------------------------------------------------------ */

/* "#$", "#@" or "#h" at the start of a line, alone or followed by a blank
 * (so that a comment such as "#hello" stays a comment). */
static int iers_marker(struct span line, const char *m)
{
	return starts_with(line, m) && (line.n == 2 || is_space(line.p[2]));
}

/* A "#$" or "#@" line: one NTP-seconds number. Its digits are hashed. */
static int iers_stamp(struct parser *ps, struct span rest, const char *what,
                      int *seen_line, int64_t *out)
{
	struct span f = next_field(&rest, 0);
	int64_t ntp;
	char q[64];
	int rc;

	if (*seen_line != 0)
		return perr(ps, LC_EPARSE,
		            "a second %s line (the first is "
		            "line %d)",
		            what, *seen_line);
	rc = need_uint(ps, f, what, WHEN_MAX + LC_NTP_UNIX_OFFSET, &ntp);
	if (rc < 0)
		return rc;
	if (!span_empty(rest))
		return perr(ps, LC_EPARSE,
		            "%s: unexpected %s after the NTP "
		            "seconds",
		            what, quote(rest, q));
	lc__sha1_update(&ps->sha, f.p, f.n);
	*seen_line = ps->lineno;
	*out = ntp - LC_NTP_UNIX_OFFSET;
	return 0;
}

/* "#h" followed by five 32-bit words in hex. The IERS writes them without
 * leading zeros, so a word has 1 to 8 digits. */
static int iers_hash_line(struct parser *ps, struct span rest)
{
	char q[64];
	int k;

	if (ps->hash_line != 0)
		return perr(ps, LC_EPARSE,
		            "a second #h line (the first is "
		            "line %d)",
		            ps->hash_line);
	for (k = 0;; k++) {
		struct span f = next_field(&rest, 0);
		uint32_t v = 0;

		if (f.n == 0)
			break;
		if (k == 5)
			return perr(ps, LC_EPARSE,
			            "#h: more than the five "
			            "words of a SHA-1: %s",
			            quote(f, q));
		if (f.n > 8)
			return perr(ps, LC_EPARSE,
			            "#h: word %d %s is longer "
			            "than 8 hex digits",
			            k + 1, quote(f, q));
		for (size_t i = 0; i < f.n; i++) {
			char c = f.p[i];
			int d;
			if (is_digit(c))
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				d = c - 'A' + 10;
			else
				return perr(ps, LC_EPARSE,
				            "#h: word %d %s is "
				            "not hexadecimal",
				            k + 1, quote(f, q));
			v = v << 4 | (uint32_t)d;
		}
		ps->hash_file[k] = v;
	}
	if (k < 5)
		return perr(ps, LC_EPARSE,
		            "#h: %d of the 5 words of the SHA-1 "
		            "(truncated file?)",
		            k);
	ps->hash_line = ps->lineno;
	return 0;
}

/* "NTP-seconds TAI-UTC [# comment]". Both numbers are hashed. */
static int iers_data_line(struct parser *ps, struct span rest)
{
	struct span f1 = next_field(&rest, 1), f2 = next_field(&rest, 1);
	int64_t ntp, off;
	char q[64];
	int rc;

	rc = need_uint(ps, f1, "field 1 (NTP seconds)",
	               WHEN_MAX + LC_NTP_UNIX_OFFSET, &ntp);
	if (rc == 0)
		rc = need_uint(ps, f2, "field 2 (TAI-UTC seconds)", 100000,
		               &off);
	if (rc < 0)
		return rc;
	while (rest.n > 0 && is_space(*rest.p)) {
		rest.p++;
		rest.n--;
	}
	if (rest.n > 0 && *rest.p != '#')
		return perr(ps, LC_EPARSE,
		            "unexpected %s after TAI-UTC "
		            "(a comment starts with '#')",
		            quote(rest, q));
	lc__sha1_update(&ps->sha, f1.p, f1.n);
	lc__sha1_update(&ps->sha, f2.p, f2.n);
	/* The step is checked in validate_rows; dir records it here (off and
	 * the previous value are both at most 100000, so no overflow). */
	return add_row(
	    ps, ntp - LC_NTP_UNIX_OFFSET, (int32_t)off,
	    ps->t->count == 0
	        ? 0
	        : (int)(off - ps->t->rows[ps->t->count - 1].tai_utc));
}

static void hex_words(const uint32_t w[5], char buf[48])
{
	snprintf(buf, 48,
	         "%08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32
	         " %08" PRIx32,
	         w[0], w[1], w[2], w[3], w[4]);
}

static int parse_iers(struct parser *ps)
{
	struct span line;
	int rc;

	lc__sha1_init(&ps->sha);
	while (next_line(ps, &line)) {
		struct span rest = {line.p + 2, line.n >= 2 ? line.n - 2 : 0};

		if (iers_marker(line, "#$"))
			rc =
			    iers_stamp(ps, rest, "#$ (last update)",
			               &ps->updated_line, &ps->t->info.updated);
		else if (iers_marker(line, "#@"))
			rc =
			    iers_stamp(ps, rest, "#@ (expiry)",
			               &ps->expires_line, &ps->t->info.expires);
		else if (iers_marker(line, "#h"))
			rc = iers_hash_line(ps, rest);
		else if (line.n > 0 && line.p[0] == '#')
			rc = 0; /* comment */
		else if (span_empty(line))
			rc = 0;
		else if (rest = line, next_field(&rest, 1).n == 0)
			rc = 0; /* indented comment */
		else
			rc = iers_data_line(ps, line);
		if (rc < 0)
			return rc;
	}
	if (ps->t->count == 0)
		return perr(ps, LC_EPARSE,
		            "no data lines (NTP-seconds TAI-UTC): "
		            "truncated or not a leap-seconds.list file");
	/* The hash first: a damaged file is reported as damaged even when the
	 * damage also breaks the table's rules. */
	if (ps->hash_line != 0) {
		uint8_t d[20];
		uint32_t mine[5];
		char a[48], b[48];

		lc__sha1_final(&ps->sha, d);
		for (int i = 0; i < 5; i++)
			mine[i] = (uint32_t)d[4 * i] << 24 |
			          (uint32_t)d[4 * i + 1] << 16 |
			          (uint32_t)d[4 * i + 2] << 8 | d[4 * i + 3];
		if (memcmp(mine, ps->hash_file, sizeof(mine)) != 0) {
			ps->lineno = ps->hash_line;
			hex_words(ps->hash_file, a);
			hex_words(mine, b);
			return perr(ps, LC_EHASH,
			            "hash mismatch: #h says %s, "
			            "the data hashes to %s",
			            a, b);
		}
		ps->t->info.hash = LC_HASH_OK;
	} else if (ps->updated_line != 0 || ps->expires_line != 0) {
		/* Published lists carry #$, #@ and end with #h: without the
		 * hash this one was cut short, perhaps inside its data. */
		return perr(ps, LC_EPARSE,
		            "truncated file: %s line %d but no "
		            "#h line (a published list ends with its hash)",
		            ps->updated_line ? "#$" : "#@",
		            ps->updated_line ? ps->updated_line
		                             : ps->expires_line);
	} else {
		/* A hand-made list of data lines only: accepted, reported. */
		ps->t->info.hash = LC_HASH_MISSING;
	}
	return validate_rows(ps);
}

/* ------------------------------------------------------------------------ */
/* tzdata leapseconds                                                        */
/* ------------------------------------------------------------------------ */

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
	struct span fy = next_field(rest, 1), fm = next_field(rest, 1),
	            fd = next_field(rest, 1);
	int64_t y, d;
	int m, rc;
	char q[64];

	rc = need_uint(ps, fy, "YEAR", 9999, &y);
	if (rc < 0)
		return rc;
	if (y < 1)
		return perr(ps, LC_EPARSE, "YEAR 0 does not exist");
	if (fm.n == 0)
		return perr(ps, LC_EPARSE, "MONTH is missing");
	m = parse_month(fm);
	if (m == 0)
		return perr(ps, LC_EPARSE, "MONTH %s is not a month name",
		            quote(fm, q));
	rc = need_uint(ps, fd, "DAY", 31, &d);
	if (rc < 0)
		return rc;
	if (d < 1 || d > days_in_month(y, m))
		return perr(ps, LC_EPARSE,
		            "DAY %s does not exist in %.*s %" PRId64,
		            quote(fd, q), (int)fm.n, fm.p, y);
	*day_start = lc__leap_days_from_civil(y, m, (int)d) * LC_SECS_PER_DAY;
	return 0;
}

/* Leap YEAR MONTH DAY HH:MM:SS CORR R/S */
static int tz_leap(struct parser *ps, struct span rest)
{
	struct span ft, fc, fr, extra;
	struct lc_leaptable *t = ps->t;
	int64_t day;
	int h, m, s, dir, rc;
	char q[64], q2[64], d1[32];

	rc = tz_date(ps, &rest, &day);
	if (rc < 0)
		return rc;
	ft = next_field(&rest, 1);
	fc = next_field(&rest, 1);
	fr = next_field(&rest, 1);
	extra = next_field(&rest, 1);
	if (ft.n == 0)
		return perr(ps, LC_EPARSE, "HH:MM:SS is missing");
	if (parse_hms(ft, &h, &m, &s) < 0)
		return perr(ps, LC_EPARSE, "time %s is not HH:MM:SS",
		            quote(ft, q));
	if (fc.n == 0)
		return perr(ps, LC_EPARSE, "CORR (+ or -) is missing");
	if (span_is(fc, "+"))
		dir = 1;
	else if (span_is(fc, "-"))
		dir = -1;
	else
		return perr(ps, LC_EPARSE, "CORR %s is not + or -",
		            quote(fc, q));
	if (fr.n == 0)
		return perr(ps, LC_EPARSE, "R/S (S for stationary) is missing");
	if (span_is(fr, "R"))
		return perr(ps, LC_ETABLE,
		            "a rolling (R) leap second is a "
		            "local-time one: only stationary (S) leaps define "
		            "UTC");
	if (!span_is(fr, "S"))
		return perr(ps, LC_EPARSE, "R/S %s is not S or R",
		            quote(fr, q));
	if (extra.n != 0)
		return perr(ps, LC_EPARSE, "unexpected %s after R/S",
		            quote(extra, q));
	/* An insertion is the second 23:59:60; a deletion removes 23:59:59,
	 * so the "+" or "-" sits at that second. Either way the new offset
	 * holds from the next 00:00:00. */
	if ((dir > 0 && !(h == 23 && m == 59 && s == 60)) ||
	    (dir < 0 && !(h == 23 && m == 59 && s == 59)))
		return perr(ps, LC_ETABLE,
		            "a leap at %s %s: a leap second "
		            "must end a UTC day (+ at 23:59:60, - at 23:59:59)",
		            quote(ft, q), quote(fc, q2));
	if (day + LC_SECS_PER_DAY <= START_1972)
		return perr(ps, LC_ETABLE,
		            "a leap on %s, before 1972-01-01: "
		            "UTC had no leap seconds then",
		            fmt_date(day, d1));
	return add_row(ps, day + LC_SECS_PER_DAY,
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
		return perr(ps, LC_EPARSE,
		            "a second Expires line (the first "
		            "is line %d)",
		            *seen);
	rc = tz_date(ps, &rest, &day);
	if (rc < 0)
		return rc;
	ft = next_field(&rest, 1);
	extra = next_field(&rest, 1);
	if (ft.n == 0)
		return perr(ps, LC_EPARSE, "HH:MM:SS is missing");
	if (parse_hms(ft, &h, &m, &s) < 0 || s == 60)
		return perr(ps, LC_EPARSE, "time %s is not HH:MM:SS",
		            quote(ft, q));
	if (extra.n != 0)
		return perr(ps, LC_EPARSE, "unexpected %s after the time",
		            quote(extra, q));
	*seen = ps->lineno;
	ps->t->info.expires = day + h * 3600 + m * 60 + s;
	return 0;
}

/* "#updated SECONDS (...)" or "#expires SECONDS (...)". */
static int tz_stamp(struct parser *ps, struct span rest, const char *what,
                    int *seen_line, int64_t *out)
{
	struct span f = next_field(&rest, 0);
	int64_t v;
	int rc;

	if (*seen_line != 0)
		return perr(ps, LC_EPARSE,
		            "a second %s line (the first is "
		            "line %d)",
		            what, *seen_line);
	rc = need_uint(ps, f, what, WHEN_MAX, &v);
	if (rc < 0)
		return rc;
	*seen_line = ps->lineno;
	*out = v;
	return 0;
}

/* "#updated" / "#expires" followed by a blank (so "#expiresX" is a
 * comment). */
static int tz_stamp_line(struct span line, const char *word)
{
	size_t n = strlen(word);

	return starts_with(line, word) && line.n > n && is_space(line.p[n]);
}

static int parse_tzdata(struct parser *ps)
{
	struct span line;
	int expires_kw = 0, expires_c = 0, leaps = 0, rc;
	int64_t expires_comment = INT64_MIN;
	char q[64];

	/* UTC's start: tzdata leaves it implied. */
	rc = add_row(ps, START_1972, START_TAI_UTC, 0);
	if (rc < 0)
		return rc;
	while (next_line(ps, &line)) {
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
		} else if ((kw = next_field(&rest, 1)).n == 0) {
			rc = 0; /* blank or comment */
		} else if (span_is(kw, "Leap")) {
			rc = tz_leap(ps, rest);
			leaps++;
		} else if (span_is(kw, "Expires")) {
			rc = tz_expires(ps, rest, &expires_kw);
		} else {
			rc = perr(ps, LC_EPARSE,
			          "unexpected %s: a leapseconds "
			          "file has only Leap and Expires lines",
			          quote(kw, q));
		}
		if (rc < 0)
			return rc;
	}
	if (leaps == 0)
		return perr(ps, LC_EPARSE,
		            "no Leap lines: truncated or not a "
		            "tzdata leapseconds file");
	/* The Expires line is what zic reads; the comment is its copy. */
	if (!expires_kw)
		ps->t->info.expires = expires_comment;
	ps->t->info.hash = LC_HASH_NONE;
	return validate_rows(ps);
}

/* ------------------------------------------------------------------------ */
/* Detection and loading                                                     */
/* ------------------------------------------------------------------------ */

/* The format of the first line that tells: IERS's #$ #@ #h or a numeric
 * data line; tzdata's #updated, #expires, Leap or Expires. */
static int detect(struct parser *ps)
{
	struct span line;
	char q[64];

	while (next_line(ps, &line)) {
		struct span rest = line, f;

		if (iers_marker(line, "#$") || iers_marker(line, "#@") ||
		    iers_marker(line, "#h"))
			return LC_LEAPFMT_IERS;
		if (tz_stamp_line(line, "#updated") ||
		    tz_stamp_line(line, "#expires"))
			return LC_LEAPFMT_TZDATA;
		f = next_field(&rest, 1);
		if (f.n == 0)
			continue;
		if (is_digit(f.p[0]))
			return LC_LEAPFMT_IERS;
		if (span_is(f, "Leap") || span_is(f, "Expires"))
			return LC_LEAPFMT_TZDATA;
		return perr(ps, LC_EPARSE,
		            "%s starts neither a "
		            "leap-seconds.list data line nor a tzdata Leap "
		            "line",
		            quote(f, q));
	}
	ps->lineno = 0;
	return perr(ps, LC_EPARSE,
	            "no data: only comments and blank lines "
	            "(truncated, or not a leap-second file)");
}

static void rewind_parser(struct parser *ps)
{
	ps->pos = 0;
	ps->lineno = 0;
}

/* Parses a whole buffer into a temporary and copies it over *t when it is
 * accepted. `month_end`: leaps must end a month (a table from a file). */
static int load_buffer(lc_leaptable *t, const char *name, const void *buf,
                       size_t len, int format, int month_end,
                       struct lc_error *err)
{
	struct parser *ps;
	int rc;

	if (name == NULL)
		name = "<buffer>";
	if (format != LC_LEAPFMT_AUTO && format != LC_LEAPFMT_IERS &&
	    format != LC_LEAPFMT_TZDATA)
		return lc__error(err, LC_EINVAL, name, 0,
		                 "format %d cannot be "
		                 "loaded: use AUTO, IERS or TZDATA",
		                 format);
	if (buf == NULL && len > 0)
		return lc__error(err, LC_EFAULT, name, 0, "no buffer");
	if (len > FILE_MAX)
		return lc__error(err, LC_EPARSE, name, 0,
		                 "%zu bytes: too "
		                 "large for a leap-second file (at most %d)",
		                 len, FILE_MAX);
	ps = calloc(1, sizeof(*ps));
	if (ps == NULL)
		return lc__error(err, LC_ENOMEM, name, 0, "out of memory");
	ps->t = calloc(1, sizeof(*ps->t));
	if (ps->t == NULL) {
		free(ps);
		return lc__error(err, LC_ENOMEM, name, 0, "out of memory");
	}
	ps->name = name;
	ps->buf = buf;
	ps->len = len;
	ps->err = err;
	ps->month_end = month_end;
	ps->t->info.updated = INT64_MIN;
	ps->t->info.expires = INT64_MIN;

	rc = check_text(ps);
	if (rc == 0 && format == LC_LEAPFMT_AUTO) {
		rc = detect(ps);
		if (rc > 0)
			format = rc;
		rewind_parser(ps);
	}
	if (rc >= 0) {
		if (format == LC_LEAPFMT_IERS)
			rc = parse_iers(ps);
		else
			rc = parse_tzdata(ps);
	}
	if (rc >= 0) {
		ps->t->info.format = format;
		ps->t->info.count = ps->t->count;
		snprintf(ps->t->info.source, sizeof(ps->t->info.source), "%s",
		         name);
		*t = *ps->t;
		rc = 0;
	}
	free(ps->t);
	free(ps);
	return rc;
}

int lc_leaptable_load_buffer(lc_leaptable *t, const char *name, const void *buf,
                             size_t len, int format, struct lc_error *err)
{
	if (t == NULL)
		return lc__error(err, LC_EINVAL, name ? name : "<buffer>", 0,
		                 "no table to load into (NULL)");
	/* Buffers also carry synthetic tables (LEAPCLOCK_EXTRA_LEAP, the
	 * simulator) with a leap at the end of any day. */
	return load_buffer(t, name, buf, len, format, 0, err);
}

static int errno_code(int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		return LC_ENOENT;
	case EACCES:
	case EPERM:
		return LC_EPERM;
	case ENOMEM:
		return LC_ENOMEM;
	default:
		return LC_EIO;
	}
}

static const char *file_type(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

int lc_leaptable_load_file(lc_leaptable *t, const char *path, int format,
                           struct lc_error *err)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd, rc;

	if (t == NULL || path == NULL)
		return lc__error(err, LC_EINVAL, path ? path : "<file>", 0,
		                 "no %s (NULL)", t ? "path" : "table to load into");
	/*
	 * O_NONBLOCK: opening a FIFO (or a device) must not wait for a
	 * writer; only a regular file is read, and on a regular file the
	 * flag changes nothing. The type is checked on the open descriptor,
	 * so the file read is the file checked.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return lc__error(err, errno_code(errno), path, 0,
		                 "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = lc__error(err, errno_code(errno), path, 0,
		               "cannot stat: %s", strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return lc__error(err, LC_EIO, path, 0,
		                 "is %s: a leap-second file must be a regular "
		                 "file",
		                 file_type(st.st_mode));
	}
	if (st.st_size > FILE_MAX) {
		close(fd);
		return lc__error(err, LC_EPARSE, path, 0,
		                 "%lld bytes: too large for a leap-second file "
		                 "(at most %d)",
		                 (long long)st.st_size, FILE_MAX);
	}
	/* One byte more than the limit, to tell "too large" from "fits"
	 * should the file grow while it is read. */
	buf = malloc(FILE_MAX + 1);
	if (buf == NULL) {
		close(fd);
		return lc__error(err, LC_ENOMEM, path, 0, "out of memory");
	}
	while (len < FILE_MAX + 1) {
		ssize_t n = read(fd, buf + len, FILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = lc__error(err, errno_code(errno), path, 0,
			               "cannot read: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	rc = load_buffer(t, path, buf, len, format, 1, err);
out:
	free(buf);
	close(fd);
	return rc;
}

/* The system search: candidates are compared by expiry, unknown (INT64_MIN)
 * being the oldest; on a tie the one tried first wins. */
static void candidate_init(struct lc_leap_candidate *c, const char *source)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->source, sizeof(c->source), "%s", source);
	c->expires = INT64_MIN;
}

int lc__leaptable_load_system_paths(struct lc_leaptable *t,
                                    const char *const *paths,
                                    struct lc_leaptable_search *search,
                                    struct lc_error *err)
{
	const char *env = getenv("LEAPCLOCK_LEAPFILE");
	struct lc_leaptable_search local;
	struct lc_leaptable *best = NULL, *tmp = NULL;
	struct lc_leap_candidate *c;
	ptrdiff_t taken = -1;
	size_t n = 0;
	int rc;

	if (search == NULL)
		search = &local;
	memset(search, 0, sizeof(*search));
	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (env != NULL && *env != '\0') {
		/* Named by the user: that table or an error, never another. */
		search->from_env = 1;
		search->count = 1;
		c = &search->c[0];
		candidate_init(c, env);
		rc = lc_leaptable_load_file(t, env, LC_LEAPFMT_AUTO, &c->err);
		if (rc < 0) {
			c->status = rc == LC_ENOENT ? LC_CAND_MISSING
			                            : LC_CAND_BAD;
			search->taken = 1;
			if (rc == LC_ENOENT) {
				char m[sizeof(c->err.msg)];

				snprintf(m, sizeof(m), "%s", c->err.msg);
				snprintf(c->err.msg, sizeof(c->err.msg),
				         "named by LEAPCLOCK_LEAPFILE but "
				         "missing (%.200s)",
				         m);
			}
			if (err != NULL)
				*err = c->err;
			return rc;
		}
		c->status = LC_CAND_TAKEN;
		c->expires = t->info.expires;
		search->taken = 0;
		return 0;
	}

	best = calloc(1, sizeof(*best));
	tmp = calloc(1, sizeof(*tmp));
	if (best == NULL || tmp == NULL) {
		free(best);
		free(tmp);
		if (err != NULL)
			lc__error(err, LC_ENOMEM, "<system leap table>", 0,
			          "out of memory");
		return LC_ENOMEM;
	}
	/* Each valid candidate replaces the best so far only if it expires
	 * strictly later; the built-in table is the last and always valid. */
	for (size_t i = 0;; i++) {
		int builtin = paths == NULL || paths[i] == NULL ||
		              n + 1 == LC_LEAP_CANDIDATES_MAX;

		c = &search->c[n];
		candidate_init(c, builtin ? "built-in" : paths[i]);
		if (builtin) {
			lc__leaptable_set_builtin(tmp);
			rc = 0;
		} else {
			rc = lc_leaptable_load_file(tmp, paths[i],
			                            LC_LEAPFMT_AUTO, &c->err);
		}
		if (rc == LC_ENOENT) {
			c->status = LC_CAND_MISSING;
		} else if (rc < 0) {
			c->status = LC_CAND_BAD;
			if (err != NULL && err->code == 0)
				*err = c->err;
		} else {
			c->expires = tmp->info.expires;
			if (taken < 0 || c->expires > search->c[taken].expires) {
				if (taken >= 0)
					search->c[taken].status = LC_CAND_OLDER;
				c->status = LC_CAND_TAKEN;
				taken = (ptrdiff_t)n;
				*best = *tmp;
			} else {
				c->status = LC_CAND_OLDER;
			}
		}
		n++;
		if (builtin)
			break;
	}
	search->count = n;
	search->taken = (size_t)taken;
	*t = *best;
	free(best);
	free(tmp);
	return 0;
}

static const char *const system_paths[] = {
    "/usr/share/zoneinfo/leap-seconds.list",
    "/usr/share/zoneinfo/leapseconds",
    NULL,
};

int lc_leaptable_load_system(lc_leaptable *t, struct lc_error *err)
{
	if (t == NULL)
		return LC_EINVAL;
	return lc__leaptable_load_system_paths(t, system_paths, NULL, err);
}

int lc_leaptable_load_system_report(lc_leaptable *t,
                                    struct lc_leaptable_search *search,
                                    struct lc_error *err)
{
	if (t == NULL)
		return LC_EINVAL;
	return lc__leaptable_load_system_paths(t, system_paths, search, err);
}

int lc_leaptable_search_notable(const struct lc_leaptable_search *s)
{
	size_t first = s->count;

	if (s->from_env)
		return 0;
	for (size_t i = 0; i < s->count; i++) {
		if (s->c[i].status == LC_CAND_BAD)
			return 1;
		if (s->c[i].status != LC_CAND_MISSING && first == s->count)
			first = i;
	}
	return s->taken != first;
}

struct out {
	char *buf;
	size_t size, len;
};

LC__PRINTF(2, 3)
static void out_printf(struct out *o, const char *fmt, ...);

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
	              o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static const char *expiry_text(int64_t expires, char buf[32])
{
	if (expires == INT64_MIN)
		return "unknown";
	return fmt_date(expires, buf);
}

int lc_leaptable_search_format(const struct lc_leaptable_search *s, int all,
                               const char *prefix, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	const struct lc_leap_candidate *tk =
	    s->taken < s->count ? &s->c[s->taken] : NULL;
	char d1[32], d2[32], e[600];

	if (size > 0)
		buf[0] = '\0';
	if (prefix == NULL)
		prefix = "";
	if (!all && !lc_leaptable_search_notable(s))
		return 0;
	/* The one in use first, then the others in the order tried. */
	if (tk != NULL)
		out_printf(&o, "%sleap table: using %s (expires %s)\n", prefix,
		           tk->source, expiry_text(tk->expires, d1));
	for (size_t i = 0; i < s->count; i++) {
		const struct lc_leap_candidate *c = &s->c[i];

		switch (c->status) {
		case LC_CAND_TAKEN:
			break;
		case LC_CAND_OLDER:
			if (tk != NULL && tk->expires == c->expires)
				out_printf(&o,
				           "%sleap table: skipped %s (expires "
				           "%s): %s expires on the same day and "
				           "comes first\n",
				           prefix, c->source,
				           expiry_text(c->expires, d1),
				           tk->source);
			else
				out_printf(&o,
				           "%sleap table: skipped %s (expires "
				           "%s): %s expires later (%s)\n",
				           prefix, c->source,
				           expiry_text(c->expires, d1),
				           tk != NULL ? tk->source : "another",
				           tk != NULL
				               ? expiry_text(tk->expires, d2)
				               : "?");
			break;
		case LC_CAND_BAD:
			lc_error_format(&c->err, e, sizeof(e));
			out_printf(&o, "%sleap table: skipped %s\n", prefix, e);
			break;
		default: /* LC_CAND_MISSING */
			if (all || s->from_env)
				out_printf(&o, "%sleap table: skipped %s: "
				               "missing\n",
				           prefix, c->source);
			break;
		}
	}
	return (int)o.len;
}
