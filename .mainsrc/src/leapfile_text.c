/*
 * leapfile_text.c - what both leap-file parsers stand on: the calendar
 * helpers, lines and fields, messages naming the line, the check that the
 * file is text, and the rules every table's rows follow (leapfile.h).
 */
#include "leapfile.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- calendar ------------------------------------------------------------ */

/* The calendar is civil.c's (one implementation in the library); these
 * keep the parsers' and the table command's call sites short. */
int64_t lc__leap_days_from_civil(int64_t year, int mon, int mday)
{
	return lc_days_from_civil(year, mon, mday);
}

void lc__leap_civil(int64_t unix_sec, int64_t *year, int *mon, int *mday,
                    int *sec_of_day)
{
	lc_civil_from_days(lc__fdiv(unix_sec, LC_SECS_PER_DAY), year, mon,
	                   mday);
	*sec_of_day = (int)lc__fmod(unix_sec, LC_SECS_PER_DAY);
}

static int is_leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int lc__lf_days_in_month(int64_t y, int m)
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
const char *lc__leap_fmt_date(int64_t unix_sec, char buf[32])
{
	int64_t y;
	int m, d, sod;

	lc__leap_civil(unix_sec, &y, &m, &d, &sod);
	snprintf(buf, 32, "%04" PRId64 "-%02d-%02d", y, m, d);
	return buf;
}

/* ---- lines and fields ---------------------------------------------------- */

/* The next line, without its '\n' (and a '\r' before it). 0 at the end. */
int lc__lf_next_line(struct parser *ps, struct span *line)
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

/* The next whitespace-separated field of *s (which is advanced past it);
 * stops at '#' when `stop_hash`. An empty span when there is none. */
struct span lc__lf_next_field(struct span *s, int stop_hash)
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

/* A field quoted for a message: at most 40 characters, anything but
 * printable ASCII shown as '?'. */
const char *lc__lf_quote(struct span f, char buf[64])
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

int lc__lf_perr(struct parser *ps, int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return lc__error(ps->err, code, ps->name, ps->lineno, "%s", msg);
}

/* A number field that must be there: its name goes into the message. */
int lc__lf_need_uint(struct parser *ps, struct span f, const char *what,
                     int64_t max, int64_t *out)
{
	char q[64];
	int rc;

	if (f.n == 0)
		return lc__lf_perr(ps, LC_EPARSE, "%s is missing", what);
	rc = parse_uint(f, max, out);
	if (rc == -1)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "%s: %s is not a decimal number", what,
		                   lc__lf_quote(f, q));
	if (rc == -2)
		return lc__lf_perr(ps, LC_EPARSE, "%s: %s is out of range",
		                   what, lc__lf_quote(f, q));
	return 0;
}

/* The number of a stamp line (`what` names it), which a file holds once:
 * `seen_line` is the line of the first, 0 if none yet. */
int lc__lf_stamp(struct parser *ps, struct span f, const char *what,
                 int seen_line, int64_t max, int64_t *out)
{
	if (seen_line != 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "a second %s line (the first is "
		                   "line %d)",
		                   what, seen_line);
	return lc__lf_need_uint(ps, f, what, max, out);
}

/* ---- text check ---------------------------------------------------------- */

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
int lc__lf_check_text(struct parser *ps)
{
	const unsigned char *b = (const unsigned char *)ps->buf;
	int line = 1;

	if (ps->len == 0) {
		ps->lineno = 0;
		return lc__lf_perr(ps, LC_EPARSE,
		                   "the file is empty: no leap-second data");
	}
	for (size_t i = 0; i < ps->len; i++) {
		unsigned char c = b[i];

		ps->lineno = line;
		if (c == '\n') {
			line++;
		} else if (c == 0) {
			return lc__lf_perr(
			    ps, LC_EPARSE,
			    "NUL byte at offset %zu: binary data, not a "
			    "leap-second file",
			    i);
		} else if (c == '\r' && i + 1 < ps->len && b[i + 1] == '\n') {
			/* CR-LF */
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			return lc__lf_perr(
			    ps, LC_EPARSE,
			    "control byte 0x%02x at offset %zu: binary "
			    "data, not a leap-second file",
			    c, i);
		} else if (c >= 0x80) {
			size_t n = utf8_len(b + i, ps->len - i);
			if (n == 0)
				return lc__lf_perr(
				    ps, LC_EPARSE,
				    "byte 0x%02x at offset %zu is not "
				    "UTF-8 text: binary data, not a "
				    "leap-second file",
				    c, i);
			i += n - 1;
		}
	}
	if (b[ps->len - 1] != '\n') {
		ps->lineno = line;
		return lc__lf_perr(
		    ps, LC_EPARSE,
		    "truncated file: the last line has no newline");
	}
	ps->lineno = 0;
	return 0;
}

/* ---- rows ---------------------------------------------------------------- */

int lc__lf_add_row(struct parser *ps, int64_t when, int32_t tai_utc, int dir)
{
	struct lc_leaptable *t = ps->t;

	if (t->count >= LC__LEAP_MAX)
		return lc__lf_perr(ps, LC_ETABLE,
		                   "too many rows: a table holds at most %d",
		                   LC__LEAP_MAX);
	t->rows[t->count].when = when;
	t->rows[t->count].tai_utc = tai_utc;
	t->rows[t->count].dir = dir;
	ps->lines[t->count] = ps->lineno;
	t->count++;
	return 0;
}

/* The first row: UTC's start, 1972-01-01 at 10 s. */
static int check_first_row(struct parser *ps, const struct lc_leap *r)
{
	char d1[32];

	if (r->when != START_1972)
		return lc__lf_perr(ps, LC_ETABLE,
		                   "the first row is %s: it must be "
		                   "1972-01-01, the start of UTC with "
		                   "leap seconds",
		                   lc__leap_fmt_date(r->when, d1));
	if (r->tai_utc != START_TAI_UTC)
		return lc__lf_perr(ps, LC_ETABLE,
		                   "TAI-UTC on 1972-01-01 is %" PRId32
		                   " s: it was 10 s",
		                   r->tai_utc);
	return 0;
}

/* Row i > 0 after row i - 1: a later UTC midnight (ending a month when the
 * parser asks), one second's step. */
static int check_next_row(struct parser *ps, size_t i)
{
	const struct lc_leap *r = &ps->t->rows[i];
	char d1[32], d2[32];

	if (r->when <= r[-1].when)
		return lc__lf_perr(ps, LC_ETABLE,
		                   "date %s is not after the previous row's %s "
		                   "(line %d): dates must increase",
		                   lc__leap_fmt_date(r->when, d1),
		                   lc__leap_fmt_date(r[-1].when, d2),
		                   ps->lines[i - 1]);
	if (r->when % LC_SECS_PER_DAY != 0)
		return lc__lf_perr(ps, LC_ETABLE,
		                   "%" PRId64 " (%s) is not 00:00:00 UTC: a "
		                   "leap second must end a UTC day",
		                   r->when, lc__leap_fmt_date(r->when, d1));
	if (r->dir != 1 && r->dir != -1)
		return lc__lf_perr(
		    ps, LC_ETABLE,
		    "TAI-UTC steps from %" PRId32 " to %" PRId32
		    " s: a leap second changes it by exactly 1 s",
		    r[-1].tai_utc, r->tai_utc);
	if (ps->month_end && !starts_month(r->when))
		return lc__lf_perr(ps, LC_ETABLE,
		                   "a leap second at the end of %s, which is "
		                   "not the last day of a month: ITU-R TF.460 "
		                   "puts leap seconds at the end of a month "
		                   "only",
		                   lc__leap_fmt_date(r->when - 1, d1));
	return 0;
}

/* Checks the rows of either format: the first is UTC's start (1972-01-01,
 * 10 s), dates increase, each is a UTC midnight, and each step is +-1 s.
 * Errors name the row's line. */
int lc__lf_validate_rows(struct parser *ps)
{
	struct lc_leaptable *t = ps->t;
	char d1[32];
	int rc;

	for (size_t i = 0; i < t->count; i++) {
		const struct lc_leap *r = &t->rows[i];

		ps->lineno = ps->lines[i];
		if (r->when < START_1972)
			return lc__lf_perr(
			    ps, LC_ETABLE,
			    "date %s is before 1972-01-01: UTC had no "
			    "integral TAI-UTC then",
			    lc__leap_fmt_date(r->when, d1));
		rc = i == 0 ? check_first_row(ps, r) : check_next_row(ps, i);
		if (rc < 0)
			return rc;
	}
	/* Both formats agree on this: tzdata has no Leap line to give. */
	if (t->count < 2) {
		ps->lineno = ps->lines[0];
		return lc__lf_perr(
		    ps, LC_EPARSE,
		    "only the 1972-01-01 row and no leap "
		    "second: truncated or not a leap-second file");
	}
	ps->lineno = 0;
	return 0;
}
