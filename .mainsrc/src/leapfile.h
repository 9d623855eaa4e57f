/*
 * leapfile.h - what the leap-file modules share (not public): the parser's
 * state, its lines and fields, its messages, and the rules both formats
 * check. The modules, by job:
 *
 *	leapfile_text.c    lines, fields and messages; the text check; the
 *	                   rows and the rules they must follow
 *	leapfile_iers.c    the IERS/NIST leap-seconds.list format and its
 *	                   SHA-1
 *	leapfile_tz.c      tzdata's leapseconds format
 *	leapfile.c         format detection and loading a buffer or a file
 *	leapfile_system.c  the search for the system's table and its report
 *
 * Every load parses into a temporary table and copies it over the caller's
 * only when the whole file was accepted, so a bad file never changes the
 * table in effect (DESIGN.md invariant 6).
 */
#ifndef LC_LEAPFILE_H
#define LC_LEAPFILE_H

#include "leaptable_impl.h"

#include <string.h>
#include <strings.h>

#define START_1972    INT64_C(63072000) /* 1972-01-01T00:00:00Z */
#define START_TAI_UTC 10
/* Nothing after 9999-12-31 is accepted: it keeps every sum of a date and an
 * offset far from overflow, and no real table goes there. */
#define WHEN_MAX INT64_C(253402300800) /* 10000-01-01T00:00:00Z */

/* ---- lines and fields ---------------------------------------------------- */

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

static inline int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline int span_empty(struct span s)
{
	while (s.n > 0 && is_space(*s.p)) {
		s.p++;
		s.n--;
	}
	return s.n == 0;
}

static inline int span_is(struct span s, const char *word)
{
	return s.n == strlen(word) && strncasecmp(s.p, word, s.n) == 0;
}

static inline int starts_with(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

/* The next line, without its '\n' (and a '\r' before it). 0 at the end. */
int lc__lf_next_line(struct parser *ps, struct span *line);
/* The next whitespace-separated field of *s (which is advanced past it);
 * stops at '#' when `stop_hash`. An empty span when there is none. */
struct span lc__lf_next_field(struct span *s, int stop_hash);
/* A field quoted for a message: at most 40 characters, anything but
 * printable ASCII shown as '?'. */
const char *lc__lf_quote(struct span f, char buf[64]);
/* An error at the parser's line: its code. */
LC__PRINTF(3, 4)
int lc__lf_perr(struct parser *ps, int code, const char *fmt, ...);
/* A number field of at most `max` that must be there: its name goes into
 * the message. */
int lc__lf_need_uint(struct parser *ps, struct span f, const char *what,
                     int64_t max, int64_t *out);
/* The number of a stamp line (`what` names it), which a file holds once:
 * `seen_line` is the line of the first, 0 if none yet. */
int lc__lf_stamp(struct parser *ps, struct span f, const char *what,
                 int seen_line, int64_t max, int64_t *out);

/* ---- the checks both formats share --------------------------------------- */

/* Rejects anything that is not a text file (binary bytes, bad UTF-8, an
 * empty or cut-short file). */
int lc__lf_check_text(struct parser *ps);
/* Adds a row (the parser's line is noted for messages). */
int lc__lf_add_row(struct parser *ps, int64_t when, int32_t tai_utc, int dir);
/* Checks the rows: UTC's start first, increasing UTC midnights, +-1 s. */
int lc__lf_validate_rows(struct parser *ps);

/* Days in month m (1..12) of year y. */
int lc__lf_days_in_month(int64_t y, int m);
/* "YYYY-MM-DD" of a POSIX second, for messages. */
const char *lc__leap_fmt_date(int64_t unix_sec, char buf[32]);

/* ---- the formats --------------------------------------------------------- */

/* "#$", "#@" or "#h" at the start of a line, alone or followed by a blank
 * (so that a comment such as "#hello" stays a comment). */
static inline int iers_marker(struct span line, const char *m)
{
	return starts_with(line, m) && (line.n == 2 || is_space(line.p[2]));
}

/* "#updated" / "#expires" followed by a blank (so "#expiresX" is a
 * comment). */
static inline int tz_stamp_line(struct span line, const char *word)
{
	size_t n = strlen(word);

	return starts_with(line, word) && line.n > n && is_space(line.p[n]);
}

/* Parse the whole buffer in each format into ps->t. */
int lc__lf_parse_iers(struct parser *ps);
int lc__lf_parse_tzdata(struct parser *ps);

#endif
