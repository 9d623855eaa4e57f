/*
 * leapfile.c - loading a leap-second table from a buffer or a file: the
 * checks of what is loaded, format detection, and the copy over the
 * caller's table. The formats are parsed in leapfile_iers.c and
 * leapfile_tz.c (leapfile.h lists the modules).
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
#include "leapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX (1024 * 1024) /* real files are < 10 KiB */

/* The format of the first line that tells: IERS's #$ #@ #h or a numeric
 * data line; tzdata's #updated, #expires, Leap or Expires. */
static int detect(struct parser *ps)
{
	struct span line;
	char q[64];

	while (lc__lf_next_line(ps, &line)) {
		struct span rest = line, f;

		if (iers_marker(line, "#$") || iers_marker(line, "#@") ||
		    iers_marker(line, "#h"))
			return LC_LEAPFMT_IERS;
		if (tz_stamp_line(line, "#updated") ||
		    tz_stamp_line(line, "#expires"))
			return LC_LEAPFMT_TZDATA;
		f = lc__lf_next_field(&rest, 1);
		if (f.n == 0)
			continue;
		if (is_digit(f.p[0]))
			return LC_LEAPFMT_IERS;
		if (span_is(f, "Leap") || span_is(f, "Expires"))
			return LC_LEAPFMT_TZDATA;
		return lc__lf_perr(
		    ps, LC_EPARSE,
		    "%s starts neither a "
		    "leap-seconds.list data line nor a tzdata Leap "
		    "line",
		    lc__lf_quote(f, q));
	}
	ps->lineno = 0;
	return lc__lf_perr(ps, LC_EPARSE,
	                   "no data: only comments and blank lines "
	                   "(truncated, or not a leap-second file)");
}

static void rewind_parser(struct parser *ps)
{
	ps->pos = 0;
	ps->lineno = 0;
}

/* A parser of `buf` filling a new, empty temporary; NULL if out of
 * memory. */
static struct parser *parser_new(const char *name, const void *buf, size_t len,
                                 int month_end, struct lc_error *err)
{
	struct lc_leaptable *t = calloc(1, sizeof(*t));
	struct parser *ps = t != NULL ? malloc(sizeof(*ps)) : NULL;

	if (ps == NULL) {
		free(t);
		return NULL;
	}
	t->info.updated = INT64_MIN;
	t->info.expires = INT64_MIN;
	*ps = (struct parser){.name = name,
	                      .buf = buf,
	                      .len = len,
	                      .err = err,
	                      .t = t,
	                      .month_end = month_end};
	return ps;
}

/* Checks, detects (AUTO) and parses the parser's buffer; the format, or a
 * negative error. */
static int parse(struct parser *ps, int format)
{
	int rc = lc__lf_check_text(ps);

	if (rc == 0 && format == LC_LEAPFMT_AUTO) {
		rc = detect(ps);
		if (rc > 0)
			format = rc;
		rewind_parser(ps);
	}
	if (rc < 0)
		return rc;
	if (format == LC_LEAPFMT_IERS)
		rc = lc__lf_parse_iers(ps);
	else
		rc = lc__lf_parse_tzdata(ps);
	return rc < 0 ? rc : format;
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
	ps = parser_new(name, buf, len, month_end, err);
	if (ps == NULL)
		return lc__error(err, LC_ENOMEM, name, 0, "out of memory");
	rc = parse(ps, format);
	if (rc >= 0) {
		ps->t->info.format = rc;
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

/* Reads the open regular file `fd` whole into a new buffer (one byte more
 * than the limit, to tell "too large" from "fits" should the file grow
 * while it is read): 0, or a negative error. */
static int read_all(int fd, const char *path, char **out, size_t *len,
                    struct lc_error *err)
{
	char *buf = malloc(FILE_MAX + 1);

	*len = 0;
	if (buf == NULL)
		return lc__error(err, LC_ENOMEM, path, 0, "out of memory");
	while (*len < FILE_MAX + 1) {
		ssize_t n = read(fd, buf + *len, FILE_MAX + 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = lc__error(err, errno_code(errno), path, 0,
			                   "cannot read: %s", strerror(errno));

			free(buf);
			return rc;
		}
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	*out = buf;
	return 0;
}

/* The open descriptor's file must be a regular file within the limit. */
static int check_file(int fd, const char *path, struct lc_error *err)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return lc__error(err, errno_code(errno), path, 0,
		                 "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return lc__error(err, LC_EIO, path, 0,
		                 "is %s: a leap-second file must be a regular "
		                 "file",
		                 file_type(st.st_mode));
	if (st.st_size > FILE_MAX)
		return lc__error(err, LC_EPARSE, path, 0,
		                 "%lld bytes: too large for a leap-second file "
		                 "(at most %d)",
		                 (long long)st.st_size, FILE_MAX);
	return 0;
}

int lc_leaptable_load_file(lc_leaptable *t, const char *path, int format,
                           struct lc_error *err)
{
	char *buf = NULL;
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
	rc = check_file(fd, path, err);
	if (rc == 0)
		rc = read_all(fd, path, &buf, &len, err);
	if (rc == 0)
		rc = load_buffer(t, path, buf, len, format, 1, err);
	free(buf);
	close(fd);
	return rc;
}
