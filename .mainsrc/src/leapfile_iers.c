/*
 * leapfile_iers.c - the IERS/NIST leap-seconds.list format: data lines
 * "NTP-seconds TAI-UTC", the #$ (last update) and #@ (expiry) stamps, and
 * the #h SHA-1 of the data, checked before the table's rules so that a
 * damaged file is reported as damaged.
 */
#include "leapfile.h"

#include <inttypes.h>
#include <stdio.h>

/* A "#$" or "#@" line: one NTP-seconds number. Its digits are hashed. */
static int iers_stamp(struct parser *ps, struct span rest, const char *what,
                      int *seen_line, int64_t *out)
{
	struct span f = lc__lf_next_field(&rest, 0);
	int64_t ntp;
	char q[64];
	int rc;

	rc = lc__lf_stamp(ps, f, what, *seen_line,
	                  WHEN_MAX + LC_NTP_UNIX_OFFSET, &ntp);
	if (rc < 0)
		return rc;
	if (!span_empty(rest))
		return lc__lf_perr(ps, LC_EPARSE,
		                   "%s: unexpected %s after the NTP "
		                   "seconds",
		                   what, lc__lf_quote(rest, q));
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
		return lc__lf_perr(ps, LC_EPARSE,
		                   "a second #h line (the first is "
		                   "line %d)",
		                   ps->hash_line);
	for (k = 0;; k++) {
		struct span f = lc__lf_next_field(&rest, 0);
		uint32_t v = 0;

		if (f.n == 0)
			break;
		if (k == 5)
			return lc__lf_perr(ps, LC_EPARSE,
			                   "#h: more than the five "
			                   "words of a SHA-1: %s",
			                   lc__lf_quote(f, q));
		if (f.n > 8)
			return lc__lf_perr(ps, LC_EPARSE,
			                   "#h: word %d %s is longer "
			                   "than 8 hex digits",
			                   k + 1, lc__lf_quote(f, q));
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
				return lc__lf_perr(ps, LC_EPARSE,
				                   "#h: word %d %s is "
				                   "not hexadecimal",
				                   k + 1, lc__lf_quote(f, q));
			v = v << 4 | (uint32_t)d;
		}
		ps->hash_file[k] = v;
	}
	if (k < 5)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "#h: %d of the 5 words of the SHA-1 "
		                   "(truncated file?)",
		                   k);
	ps->hash_line = ps->lineno;
	return 0;
}

/* "NTP-seconds TAI-UTC [# comment]". Both numbers are hashed. */
static int iers_data_line(struct parser *ps, struct span rest)
{
	struct span f1 = lc__lf_next_field(&rest, 1),
	            f2 = lc__lf_next_field(&rest, 1);
	int64_t ntp, off;
	char q[64];
	int rc;

	rc = lc__lf_need_uint(ps, f1, "field 1 (NTP seconds)",
	                      WHEN_MAX + LC_NTP_UNIX_OFFSET, &ntp);
	if (rc == 0)
		rc = lc__lf_need_uint(ps, f2, "field 2 (TAI-UTC seconds)",
		                      100000, &off);
	if (rc < 0)
		return rc;
	while (rest.n > 0 && is_space(*rest.p)) {
		rest.p++;
		rest.n--;
	}
	if (rest.n > 0 && *rest.p != '#')
		return lc__lf_perr(ps, LC_EPARSE,
		                   "unexpected %s after TAI-UTC "
		                   "(a comment starts with '#')",
		                   lc__lf_quote(rest, q));
	lc__sha1_update(&ps->sha, f1.p, f1.n);
	lc__sha1_update(&ps->sha, f2.p, f2.n);
	/* The step is checked in validate_rows; dir records it here (off and
	 * the previous value are both at most 100000, so no overflow). */
	return lc__lf_add_row(
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

/* One line of the file, whatever it is. */
static int iers_line(struct parser *ps, struct span line)
{
	struct span rest = {line.p + 2, line.n >= 2 ? line.n - 2 : 0};

	if (iers_marker(line, "#$"))
		return iers_stamp(ps, rest, "#$ (last update)",
		                  &ps->updated_line, &ps->t->info.updated);
	if (iers_marker(line, "#@"))
		return iers_stamp(ps, rest, "#@ (expiry)", &ps->expires_line,
		                  &ps->t->info.expires);
	if (iers_marker(line, "#h"))
		return iers_hash_line(ps, rest);
	if (line.n > 0 && line.p[0] == '#')
		return 0; /* comment */
	if (span_empty(line))
		return 0;
	rest = line;
	if (lc__lf_next_field(&rest, 1).n == 0)
		return 0; /* indented comment */
	return iers_data_line(ps, line);
}

/* The #h line against the data's SHA-1; a list without one is truncated
 * if it carries the stamps of a published list, else hand-made. */
static int iers_check_hash(struct parser *ps)
{
	uint8_t d[20];
	uint32_t mine[5];
	char a[48], b[48];

	if (ps->hash_line == 0 &&
	    (ps->updated_line != 0 || ps->expires_line != 0))
		/* Published lists carry #$, #@ and end with #h: without the
		 * hash this one was cut short, perhaps inside its data. */
		return lc__lf_perr(
		    ps, LC_EPARSE,
		    "truncated file: %s line %d but no "
		    "#h line (a published list ends with its hash)",
		    ps->updated_line ? "#$" : "#@",
		    ps->updated_line ? ps->updated_line : ps->expires_line);
	if (ps->hash_line == 0) {
		/* A hand-made list of data lines only: accepted, reported. */
		ps->t->info.hash = LC_HASH_MISSING;
		return 0;
	}
	lc__sha1_final(&ps->sha, d);
	for (int i = 0; i < 5; i++)
		mine[i] = (uint32_t)d[4 * i] << 24 |
		          (uint32_t)d[4 * i + 1] << 16 |
		          (uint32_t)d[4 * i + 2] << 8 | d[4 * i + 3];
	if (memcmp(mine, ps->hash_file, sizeof(mine)) != 0) {
		ps->lineno = ps->hash_line;
		hex_words(ps->hash_file, a);
		hex_words(mine, b);
		return lc__lf_perr(ps, LC_EHASH,
		                   "hash mismatch: #h says %s, "
		                   "the data hashes to %s",
		                   a, b);
	}
	ps->t->info.hash = LC_HASH_OK;
	return 0;
}

int lc__lf_parse_iers(struct parser *ps)
{
	struct span line;
	int rc;

	lc__sha1_init(&ps->sha);
	while (lc__lf_next_line(ps, &line)) {
		rc = iers_line(ps, line);
		if (rc < 0)
			return rc;
	}
	if (ps->t->count == 0)
		return lc__lf_perr(ps, LC_EPARSE,
		                   "no data lines (NTP-seconds TAI-UTC): "
		                   "truncated or not a leap-seconds.list file");
	/* The hash first: a damaged file is reported as damaged even when the
	 * damage also breaks the table's rules. */
	rc = iers_check_hash(ps);
	if (rc < 0)
		return rc;
	return lc__lf_validate_rows(ps);
}
