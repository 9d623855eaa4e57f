/*
 * cmd_convert.c - `leapclock convert`: one instant on every time scale.
 *
 * The input is read on one scale into a `struct instant` (UTC with 23:59:60,
 * POSIX ns and, from 1972 on, TAI ns), and each requested output scale prints
 * itself from that. A scale is one row of `scales[]`: a name, a parser (NULL
 * if it cannot be an input) and a printer that writes a text line or a JSON
 * member. Adding a scale is adding a row and, if it needs one, an option in
 * `struct conv`: smeared UTC (utc-sls, tools/leapclock/smearconv.c) is such
 * a row, with the --smear option.
 */
#include "cli.h"

#include "internal.h"
#include "smearconv.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CMD        "convert"
#define TWO32      (INT64_C(1) << 32)
#define GPS_WEEK_S INT64_C(604800)

struct instant {
	struct timespec utc; /* tv_nsec >= 1e9 inside 23:59:60 */
	int64_t unix_ns;     /* POSIX: the inserted second repeats 23:59:59 */
	int tai_rc;          /* 0 if tai_ns is valid, else why not (LC_E*) */
	int64_t tai_ns;
	int digits;   /* fraction digits to print (those of the input) */
	int repeated; /* the POSIX second is the repeated 23:59:59 */
	int ambiguous; /* read from a POSIX count that repeats: which one */
};

struct conv {
	const lc_leaptable *table;
	struct instant in;
	int json;
	int first_member; /* JSON: no comma before the first member */
	int have_smear;   /* --smear given: the utc-sls scale exists */
	int second;       /* --occurrence second: a repeated POSIX second is
	                   * its 23:59:60, not its 23:59:59 */
	struct lc_smear_policy smear;
};

struct scale {
	const char *name;
	const char *help;
	int needs_tai;   /* cannot be printed before 1972 */
	int needs_smear; /* needs --smear */
	/* Reads `text` into c->in; 0, or an LC_E* with *err filled. */
	int (*parse)(struct conv *c, const char *text, struct lc_error *err);
	void (*print)(struct conv *c);
};

/* ---- filling the instant from each input scale --------------------------- */

/* Every scale is int64_t ns: an instant outside the range they hold is an
 * error, never a wrapped answer. */
static int check_range(int64_t utc_sec, const char *text, struct lc_error *err)
{
	return lc_range_check(utc_sec, LC_RANGE_FIRST_SEC, LC_RANGE_END_SEC,
	                      text, err);
}

/* From a UTC timespec (already checked against the table). */
static void fill_from_utc(struct conv *c)
{
	struct instant *in = &c->in;
	int64_t sec = (int64_t)in->utc.tv_sec;

	in->unix_ns = sec * LC__NS + (int64_t)in->utc.tv_nsec % LC__NS;
	in->repeated = lc_leaptable_leap_at(c->table, sec) == 1;
	in->tai_rc = lc_tai_from_utc(c->table, &in->utc, &in->tai_ns);
}

/* From TAI ns. */
static int fill_from_tai(struct conv *c, const char *text, struct lc_error *err)
{
	struct instant *in = &c->in;
	int rc;

	rc = lc_utc_from_tai(c->table, in->tai_ns, &in->utc);
	if (rc == 0)
		rc = lc_unix_from_tai(c->table, in->tai_ns, &in->unix_ns);
	if (rc == LC_EBEFORE1972)
		return lc__error(
		    err, rc, text, 0,
		    "before 1972-01-01 TAI-UTC is not a whole "
		    "number of seconds; UTC and Unix are undefined "
		    "for this TAI instant");
	if (rc < 0)
		return lc__error(err, rc, text, 0, "%s", lc_strerror(rc));
	rc = check_range((int64_t)in->utc.tv_sec, text, err);
	if (rc < 0)
		return rc;
	in->tai_rc = 0;
	in->repeated =
	    lc_leaptable_leap_at(c->table, lc__fdiv(in->unix_ns, LC__NS)) == 1;
	return 0;
}

static int from_utc(struct conv *c, const char *text, struct lc_error *err)
{
	const char *dot = strpbrk(text, ".,");
	int rc;

	rc = lc_iso8601_parse_range(text, c->table, LC_RANGE_FIRST_SEC,
	                            LC_RANGE_END_SEC, &c->in.utc, err);
	if (rc < 0)
		return rc;
	c->in.digits = 0;
	if (dot != NULL)
		while (dot[1 + c->in.digits] >= '0' &&
		       dot[1 + c->in.digits] <= '9')
			c->in.digits++;
	fill_from_utc(c);
	return 0;
}

/* A POSIX second that repeats (the 23:59:59 before an inserted second) is
 * ambiguous: it is read as its first occurrence, 23:59:59, as date(1)
 * does, or with --occurrence second as the 23:59:60. */
static int from_unix(struct conv *c, const char *text, struct lc_error *err)
{
	struct instant *in = &c->in;
	int64_t sec;
	int rc;

	rc = lc_cli_parse_decimal(text, &in->unix_ns, &in->digits, err, "Unix");
	if (rc < 0)
		return rc;
	sec = lc__fdiv(in->unix_ns, LC__NS);
	rc = check_range(sec, text, err);
	if (rc < 0)
		return rc;
	if (lc_leaptable_leap_at(c->table, sec) < 0)
		return lc__error(err, LC_ENOTLEAP, text, 0,
		                 "POSIX second %" PRId64
		                 " is a deleted 23:59:59: "
		                 "it never appears on a POSIX clock",
		                 sec);
	in->repeated = lc_leaptable_leap_at(c->table, sec) == 1;
	in->ambiguous = in->repeated;
	in->utc.tv_sec = (time_t)sec;
	in->utc.tv_nsec = (long)lc__fmod(in->unix_ns, LC__NS);
	if (in->repeated && c->second)
		in->utc.tv_nsec += (long)LC__NS; /* 23:59:60 */
	in->tai_rc = lc_tai_from_utc(c->table, &in->utc, &in->tai_ns);
	return 0;
}

/* TAI as seconds, or as the calendar text that `--to tai` prints
 * ("2017-01-01T00:00:36 TAI", the " TAI" optional). */
static int from_tai(struct conv *c, const char *text, struct lc_error *err)
{
	struct instant *in = &c->in;
	int rc;

	if (strchr(text, 'T') != NULL || strchr(text, 't') != NULL ||
	    strchr(text, ' ') != NULL) {
		char buf[96];
		size_t n = strlen(text);
		struct timespec ts;
		const char *dot;

		if (n >= 4 && strcasecmp(text + n - 4, " TAI") == 0)
			n -= 4;
		else if (n >= 3 && strcasecmp(text + n - 3, "TAI") == 0)
			n -= 3;
		if (n + 2 > sizeof(buf))
			return lc__error(err, LC_EPARSE, text, 0,
			                 "TAI date too long");
		memcpy(buf, text, n);
		buf[n] = 'Z';
		buf[n + 1] = '\0';
		/* TAI is uniform: no table, and no second 60. */
		rc = lc_iso8601_parse(buf, NULL, &ts, err);
		if (rc < 0) {
			snprintf(err->where, sizeof(err->where), "%s", text);
			return rc;
		}
		if (ts.tv_nsec >= LC__NS)
			return lc__error(err, LC_EPARSE, text, 0,
			                 "TAI has no second 60");
		rc = check_range((int64_t)ts.tv_sec, text, err);
		if (rc < 0)
			return rc;
		in->tai_ns = lc__ts_to_ns(&ts);
		in->digits = 0;
		dot = strpbrk(buf, ".,");
		if (dot != NULL)
			while (dot[1 + in->digits] >= '0' &&
			       dot[1 + in->digits] <= '9')
				in->digits++;
	} else {
		rc = lc_cli_parse_decimal(text, &in->tai_ns, &in->digits, err, "TAI");
		if (rc < 0)
			return rc;
	}
	return fill_from_tai(c, text, err);
}

/* GPS as seconds since 1980-01-06, or WEEK:SECONDS-OF-WEEK. */
static int from_gps(struct conv *c, const char *text, struct lc_error *err)
{
	const char *colon = strchr(text, ':');
	int64_t gps_ns, sow_ns;
	int rc;

	if (colon != NULL) {
		char *end;
		long long week;

		errno = 0;
		week = strtoll(text, &end, 10);
		if (end != colon || end == text || errno != 0 || week < 0 ||
		    week > 15000)
			return lc__error(err, LC_EPARSE, text, 0,
			                 "GPS week must be a number 0..15000 "
			                 "before the ':' (WEEK:SECONDS)");
		rc = lc_cli_parse_decimal(colon + 1, &sow_ns, &c->in.digits, err,
		                   "GPS seconds-of-week");
		if (rc < 0) {
			snprintf(err->where, sizeof(err->where), "%s", text);
			return rc;
		}
		if (sow_ns < 0 || sow_ns >= GPS_WEEK_S * LC__NS)
			return lc__error(err, LC_ERANGE, text, 0,
			                 "GPS seconds-of-week must be in "
			                 "[0, 604800)");
		gps_ns = (int64_t)week * GPS_WEEK_S * LC__NS + sow_ns;
	} else {
		rc = lc_cli_parse_decimal(text, &gps_ns, &c->in.digits, err, "GPS");
		if (rc < 0)
			return rc;
	}
	if (gps_ns > INT64_MAX - LC_GPS_EPOCH_TAI * LC__NS)
		return lc__error(err, LC_ERANGE, text, 0,
		                 "GPS time out of range: the supported range is "
		                 "1677-09-22 to 2262-04-10");
	c->in.tai_ns = lc_tai_from_gps(gps_ns);
	return fill_from_tai(c, text, err);
}

/* NTP: the 64-bit timestamp in hex (0x...), or ERA:SECONDS[.f], or
 * SECONDS[.f] (era resolved by the nearest to now, as NTP does). */
static int from_ntp(struct conv *c, const char *text, struct lc_error *err)
{
	struct instant *in = &c->in;
	const char *colon = strchr(text, ':');
	int64_t era = INT64_MIN, ns;
	uint64_t ntp;
	int rc;

	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		char *end;

		errno = 0;
		ntp = strtoull(text + 2, &end, 16);
		/* All 16 digits: 0x123 would be read as the era's last
		 * 68 ns, a fraction, not the seconds it looks like. */
		if (end == text + 2 || *end != '\0' || errno != 0 ||
		    strlen(text + 2) != 16 ||
		    strspn(text + 2, "0123456789abcdefABCDEF") != 16)
			return lc__error(err, LC_EPARSE, text, 0,
			                 "an NTP timestamp in hex is 0x and "
			                 "16 hex digits (32 bits of seconds, 32 "
			                 "of fraction: 0xdc12c4ff00000000)");
		in->digits = 9;
		in->unix_ns = lc_unix_ns_from_ntp(ntp, (int64_t)time(NULL));
	} else {
		const char *num = text;

		if (colon != NULL) {
			char *end;

			errno = 0;
			era = strtoll(text, &end, 10);
			if (end != colon || end == text || errno != 0 ||
			    era < -2 || era > 2)
				return lc__error(err, LC_EPARSE, text, 0,
				                 "NTP era must be -2..2 before "
				                 "the ':' (ERA:SECONDS)");
			num = colon + 1;
		}
		rc = lc_cli_parse_decimal(num, &ns, &in->digits, err, "NTP");
		if (rc < 0) {
			snprintf(err->where, sizeof(err->where), "%s", text);
			return rc;
		}
		if (ns < 0 || ns >= TWO32 * LC__NS)
			return lc__error(err, LC_ERANGE, text, 0,
			                 "NTP seconds must be in [0, 2^32)");
		if (era != INT64_MIN) {
			/* eras -2 and 2 reach past int64_t ns: check the
			 * seconds before they become ns */
			int64_t sec = era * TWO32 - LC_NTP_UNIX_OFFSET +
			              ns / LC__NS;

			rc = check_range(sec, text, err);
			if (rc < 0)
				return rc;
			in->unix_ns = sec * LC__NS + ns % LC__NS;
		} else {
			ntp = (uint64_t)(ns / LC__NS) << 32;
			in->unix_ns =
			    lc_unix_ns_from_ntp(ntp, (int64_t)time(NULL)) +
			    ns % LC__NS;
		}
	}
	/* NTP counts POSIX seconds (it repeats the inserted one). */
	{
		char buf[40];
		int d = in->digits;

		lc_cli_fmt_sec(in->unix_ns, 9, buf, sizeof(buf));
		rc = from_unix(c, buf, err);
		in->digits = d;
		if (rc < 0) {
			snprintf(err->where, sizeof(err->where), "%s", text);
			return rc;
		}
	}
	return 0;
}

/* ---- printing ------------------------------------------------------------ */

static void member(struct conv *c, const char *name)
{
	if (c->json) {
		printf("%s\n  ", c->first_member ? "" : ",");
		lc_cli_json_str(stdout, name);
		printf(": ");
	} else {
		printf("%-7s ", name);
	}
	c->first_member = 0;
}

static void print_utc(struct conv *c)
{
	char iso[64];

	lc_iso8601_format(&c->in.utc, c->in.digits, iso, sizeof(iso));
	member(c, "utc");
	if (c->json) {
		printf("{\"iso\": ");
		lc_cli_json_str(stdout, iso);
		printf(", \"leap_second\": %s}",
		       c->in.utc.tv_nsec >= LC__NS ? "true" : "false");
	} else {
		printf("%s%s\n", iso,
		       c->in.utc.tv_nsec >= LC__NS ? "  (inserted leap second)"
		                                   : "");
	}
}

static void print_unix(struct conv *c)
{
	char s[40];

	lc_cli_fmt_sec(c->in.unix_ns, c->in.digits, s, sizeof(s));
	member(c, "unix");
	if (c->json)
		printf("{\"seconds\": %s, \"repeated\": %s}", s,
		       c->in.repeated ? "true" : "false");
	else
		printf("%s%s\n", s,
		       c->in.repeated ? "  (repeated second: both 23:59:59 and "
		                        "23:59:60 UTC read this)"
		                      : "");
}

static void print_tai(struct conv *c)
{
	char iso[64], s[40];

	lc_iso8601_format_scale(c->in.tai_ns, c->in.digits, iso, sizeof(iso));
	lc_cli_fmt_sec(c->in.tai_ns, c->in.digits, s, sizeof(s));
	member(c, "tai");
	if (c->json) {
		printf("{\"iso\": ");
		lc_cli_json_str(stdout, iso);
		printf(", \"seconds\": %s}", s);
	} else {
		printf("%s TAI  (%s s)\n", iso, s);
	}
}

static void print_gps(struct conv *c)
{
	int64_t gps = lc_gps_from_tai(c->in.tai_ns);
	int64_t week = lc__fdiv(gps, GPS_WEEK_S * LC__NS);
	int64_t sow = lc__fmod(gps, GPS_WEEK_S * LC__NS);
	char s[40], w[40];

	lc_cli_fmt_sec(gps, c->in.digits, s, sizeof(s));
	lc_cli_fmt_sec(sow, c->in.digits, w, sizeof(w));
	member(c, "gps");
	if (c->json)
		printf("{\"seconds\": %s, \"week\": %" PRId64
		       ", \"seconds_of_week\": %s}",
		       s, week, w);
	else
		printf("%s s  (week %" PRId64 ", %s s of week)\n", s, week, w);
}

static void print_ntp(struct conv *c)
{
	uint64_t ntp = lc_ntp_from_unix_ns(c->in.unix_ns);
	int64_t sec = lc__fdiv(c->in.unix_ns, LC__NS) + LC_NTP_UNIX_OFFSET;
	int64_t era = lc__fdiv(sec, TWO32);
	uint32_t frac = (uint32_t)(ntp & 0xffffffffu);
	char f[40];

	lc_cli_fmt_sec((int64_t)frac * LC__NS >> 32, 9, f, sizeof(f));
	member(c, "ntp");
	if (c->json)
		printf("{\"era\": %" PRId64 ", \"seconds\": %" PRIu64
		       ", \"fraction\": %" PRIu32
		       ", \"timestamp\": \"0x%016" PRIx64 "\"}",
		       era, ntp >> 32, frac, ntp);
	else
		printf("era %" PRId64 ", %" PRIu64 " s + 0x%08" PRIx32
		       " (%s s)  0x%016" PRIx64 "\n",
		       era, ntp >> 32, frac, f, ntp);
}

/* Smeared UTC: ISO 8601 text on the UTC-SLS timeline (no second 60). */
static int from_sls(struct conv *c, const char *text, struct lc_error *err)
{
	struct timespec sls;
	const char *dot = strpbrk(text, ".,");
	int rc;

	rc = lc_iso8601_parse_range(text, NULL, LC_RANGE_FIRST_SEC,
	                            LC_RANGE_END_SEC, &sls, err);
	if (rc < 0)
		return rc;
	if (sls.tv_nsec >= LC__NS)
		return lc__error(err, LC_EPARSE, text, 0,
		                 "smeared UTC has no second 60");
	rc = lc_smearconv_from_sls(c->table, &c->smear, &sls, &c->in.utc);
	if (rc < 0)
		return lc__error(err, rc, text, 0,
		                 "cannot convert from smeared UTC (%s): %s",
		                 c->smear.name, lc_strerror(rc));
	rc = check_range((int64_t)c->in.utc.tv_sec, text, err);
	if (rc < 0)
		return rc;
	c->in.digits = 0;
	if (dot != NULL)
		while (dot[1 + c->in.digits] >= '0' &&
		       dot[1 + c->in.digits] <= '9')
			c->in.digits++;
	fill_from_utc(c);
	return 0;
}

static void print_sls(struct conv *c)
{
	struct timespec sls;
	int64_t diff = 0;
	char iso[64], d[40];
	int rc;

	rc = lc_smearconv_to_sls(c->table, &c->smear, &c->in.utc, &sls);
	if (rc == 0)
		rc = lc_smearconv_diff_ns(c->table, &c->smear, &c->in.utc,
		                          &diff);
	member(c, "utc-sls");
	if (rc < 0) {
		if (c->json)
			printf("null");
		else
			printf("unavailable: %s\n", lc_strerror(rc));
		return;
	}
	/* A smear is rarely a whole number of ns: all digits, always. */
	lc_iso8601_format(&sls, 9, iso, sizeof(iso));
	lc_cli_fmt_sec(diff, 9, d, sizeof(d));
	if (c->json) {
		printf("{\"iso\": ");
		lc_cli_json_str(stdout, iso);
		printf(", \"smear\": ");
		lc_cli_json_str(stdout, c->smear.name);
		printf(", \"minus_utc\": %s}", d);
	} else {
		printf("%s  (smear %s, UTC-SLS - UTC = %s s)\n", iso,
		       c->smear.name, d);
	}
}

static const struct scale scales[] = {
    {.name = "utc",
     .help = "UTC with 23:59:60, ISO 8601 (2016-12-31T23:59:60Z)",
     .parse = from_utc,
     .print = print_utc},
    {.name = "tai",
     .help = "TAI: a date (2017-01-01T00:00:36 TAI) or seconds",
     .needs_tai = 1,
     .parse = from_tai,
     .print = print_tai},
    {.name = "gps",
     .help = "GPS seconds since 1980-01-06, or WEEK:SECONDS",
     .needs_tai = 1,
     .parse = from_gps,
     .print = print_gps},
    {.name = "unix",
     .help = "POSIX seconds (the inserted second repeats 23:59:59)",
     .parse = from_unix,
     .print = print_unix},
    {.name = "ntp",
     .help = "NTP: 0xTIMESTAMP, ERA:SECONDS or SECONDS (era nearest now)",
     .parse = from_ntp,
     .print = print_ntp},
    {.name = "utc-sls",
     .help = "smeared UTC, ISO 8601 (needs --smear PRESET)",
     .needs_smear = 1,
     .parse = from_sls,
     .print = print_sls},
};
#define NSCALES (sizeof(scales) / sizeof(scales[0]))

/* Case-insensitive, '_' for '-' (utc_sls is utc-sls). */
static const struct scale *find_scale(const char *name, size_t len)
{
	for (size_t i = 0; i < NSCALES; i++) {
		const char *n = scales[i].name;
		size_t k;

		if (strlen(n) != len)
			continue;
		for (k = 0; k < len; k++) {
			char a = name[k] == '_' ? '-' : name[k];
			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (a != n[k])
				break;
		}
		if (k == len)
			return &scales[i];
	}
	return NULL;
}

/* "google, ntpd, ..." for messages. */
static const char *preset_list(char *buf, size_t size)
{
	const char *const *names = lc_smear_preset_names();
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; names[i] != NULL && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
		                      names[i]);
	return buf;
}

/* An instant past the table's expiry may miss leaps announced since: say so
 * (the answer is still printed; it is the best the table knows). */
static void warn_expiry(const struct conv *c, const char *time_arg)
{
	struct lc_leaptable_info info;
	struct timespec ts;
	char when[40];

	if (lc_leaptable_info(c->table, &info) < 0 ||
	    info.expires == INT64_MIN ||
	    lc__fdiv(c->in.unix_ns, LC__NS) < info.expires)
		return;
	ts.tv_sec = (time_t)info.expires;
	ts.tv_nsec = 0;
	if (lc_iso8601_format(&ts, 0, when, sizeof(when)) < 0)
		snprintf(when, sizeof(when), "%" PRId64, info.expires);
	fprintf(stderr,
	        "leapclock %s: warning: %s is after the expiry of the leap "
	        "table (%s, expires %s): leap seconds announced later are "
	        "not in it\n",
	        CMD, time_arg, info.source, when);
}

const char lc_cmd_convert_summary[] =
    "convert an instant between UTC (23:59:60), Unix, TAI, GPS, NTP, UTC-SLS";

void lc_cmd_convert_usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock convert TIME [--from SCALE] [--to SCALE,...] "
	        "[--leapfile FILE] [--json]\n"
	        "                         [--smear PRESET] "
	        "[--occurrence first|second]\n\n"
	        "Prints one instant on several time scales, using the leap "
	        "table\n(--leapfile, else the system's: see 'leapclock table').\n\n"
	        "  --from SCALE   the scale of TIME (default: utc for a date, "
	        "ntp for 0x...,\n                 unix for a number)\n"
	        "  --to LIST      comma-separated scales to print, or 'all' "
	        "(default)\n"
	        "  --leapfile FILE\n"
	        "                 leap-seconds.list or tzdata leapseconds "
	        "file\n"
	        "                 (--file FILE: the same)\n"
	        "  --json         one JSON object with a member per scale\n"
	        "  --smear PRESET the smear of the utc-sls scale (it is "
	        "printed only with\n                 this option)\n"
	        "  --occurrence first|second\n"
	        "                 which UTC second a repeated POSIX second "
	        "(unix or ntp\n                 input) is: its 23:59:59 "
	        "(first, the default, as date(1))\n                 or "
	        "its 23:59:60 (second)\n\n"
	        "scales:\n");
	for (size_t i = 0; i < NSCALES; i++)
		fprintf(out, "  %-8s %s\n", scales[i].name, scales[i].help);
	{
		char buf[256];
		fprintf(out, "\nsmear presets: %s\n",
		        preset_list(buf, sizeof(buf)));
	}
	fprintf(
	    out,
	    "\nTAI and GPS exist only from 1972-01-01 on (no integral "
	    "TAI-UTC before).\nInstants are supported from 1677-09-22 to "
	    "2262-04-10 (int64_t ns on every\nscale); others are an error.\n"
	    "The POSIX second of an inserted leap repeats: it is read as its "
	    "23:59:59\n(first occurrence) unless --occurrence second, and "
	    "stderr says it is ambiguous.\n\n"
	    "example: leapclock convert 2016-12-31T23:59:60Z --to "
	    "tai,gps,unix,ntp\n");
}

/* The leap table: --leapfile, else the system's. A table named (--leapfile or
 * $LEAPCLOCK_LEAPFILE) that cannot be used is an error; the system search
 * says on stderr what it took and skipped when that is worth knowing. */
static lc_leaptable *load_table(const char *file)
{
	struct lc_leaptable_search search;
	struct lc_error err = {0};
	lc_leaptable *t = lc_leaptable_new();
	char m[2048];
	int rc;

	if (t == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", CMD);
		return NULL;
	}
	if (file != NULL)
		rc = lc_leaptable_load_file(t, file, LC_LEAPFMT_AUTO, &err);
	else
		rc = lc_leaptable_load_system_report(t, &search, &err);
	if (rc < 0) {
		lc_error_format(&err, m, sizeof(m));
		fprintf(stderr, "leapclock %s: %s%s\n", CMD,
		        file == NULL && strstr(m, "LEAPCLOCK_LEAPFILE") == NULL
		            ? "LEAPCLOCK_LEAPFILE: "
		            : "",
		        m);
		lc_leaptable_free(t);
		return NULL;
	}
	if (file == NULL)
		lc_cli_say_search(CMD, &search);
	return t;
}

/* The note for a repeated POSIX second read from unix or ntp input. */
static void note_ambiguous(const struct conv *c, const char *time_arg)
{
	struct timespec a = c->in.utc, b;
	char first[64], second[64];

	a.tv_nsec %= (long)LC__NS;
	b = a;
	b.tv_nsec += (long)LC__NS;
	lc_iso8601_format(&a, c->in.digits, first, sizeof(first));
	lc_iso8601_format(&b, c->in.digits, second, sizeof(second));
	fprintf(stderr,
	        "leapclock %s: note: %s is ambiguous: POSIX second %" PRId64
	        " is both %s and %s; this is the %s (--occurrence %s for "
	        "the other)\n",
	        CMD, time_arg, (int64_t)a.tv_sec, first, second,
	        c->second ? "second" : "first",
	        c->second ? "first" : "second");
}

static int looks_like_number(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	return *s >= '0' && *s <= '9' && strspn(s, "0123456789.") == strlen(s);
}

/* The command line, before and after its checks. */
struct conv_opts {
	const char *time_arg, *from, *to, *file, *smear, *occurrence;
	const struct scale *in_scale, *out[16];
	size_t nout;
	int explicit_to; /* --to named the scales (not "all") */
};

/* The options, with getopt_long as every subcommand (so each takes
 * --opt VALUE, --opt=VALUE and an unambiguous abbreviation). TIME may be
 * a negative number ("-1.5"), which getopt would take for an option: the
 * loop looks at each word first and hands getopt only the options. */
static int parse_args(struct conv_opts *o, struct conv *c, int argc,
                      char **argv)
{
	static const struct option opts[] = {
	    {"from", required_argument, NULL, 'F'},
	    {"to", required_argument, NULL, 't'},
	    {"leapfile", required_argument, NULL, 'f'},
	    {"file", required_argument, NULL, 'f'}, /* the old name */
	    {"smear", required_argument, NULL, 's'},
	    {"occurrence", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'j'},
	    {NULL, 0, NULL, 0},
	};
	int only_args = 0, r;

	o->to = "all";
	opterr = 0;
	optind = 1;
	while (optind < argc) {
		const char *a = argv[optind];

		if (!only_args && strcmp(a, "--") == 0) {
			only_args = 1;
			optind++;
			continue;
		}
		if (only_args || a[0] != '-' || a[1] == '\0' ||
		    looks_like_number(a)) {
			if (o->time_arg != NULL)
				return lc_cli_usage_error(
				    CMD, "one TIME only ('%s' and '%s')",
				    o->time_arg, a);
			o->time_arg = a;
			optind++;
			continue;
		}
		/* "+": argv[optind] is an option; getopt takes it (and its
		 * value) and nothing else */
		r = getopt_long(argc, argv, "+:", opts, NULL);
		switch (r) {
		case 'F':
			o->from = optarg;
			break;
		case 't':
			o->to = optarg;
			break;
		case 'f':
			o->file = optarg;
			break;
		case 's':
			o->smear = optarg;
			break;
		case 'o':
			o->occurrence = optarg;
			break;
		case 'j':
			c->json = 1;
			break;
		case ':':
			return lc_cli_usage_error(CMD, "%s needs a value",
			                          argv[optind - 1]);
		case -1: /* cannot happen: argv[optind] is an option */
			return lc_cli_usage_error(CMD, "unexpected '%s'", a);
		default:
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (o->time_arg == NULL || o->time_arg[0] == '\0')
		return lc_cli_usage_error(CMD, "%s TIME (for example "
		                               "2016-12-31T23:59:60Z)",
		                          o->time_arg == NULL ? "missing"
		                                              : "empty");
	return 0;
}

/* --smear, the input scale (--from, or guessed from TIME's form) and
 * --occurrence; 0 or the exit status. */
static int pick_input(struct conv_opts *o, struct conv *c)
{
	const char *time_arg = o->time_arg, *from = o->from;
	struct lc_error err = {0};

	if (o->smear != NULL) {
		char buf[256];

		if (lc_smear_preset(o->smear, 0, &c->smear, &err) < 0)
			return lc_cli_usage_error(
			    CMD, "--smear: unknown preset '%s' (%s)", o->smear,
			    preset_list(buf, sizeof(buf)));
		c->have_smear = 1;
	}
	if (from != NULL) {
		o->in_scale = find_scale(from, strlen(from));
		if (o->in_scale == NULL || o->in_scale->parse == NULL)
			return lc_cli_usage_error(
			    CMD,
			    "unknown input scale '%s' (utc, "
			    "tai, gps, unix, ntp, utc-sls)",
			    from);
		if (o->in_scale->needs_smear && !c->have_smear)
			return lc_cli_usage_error(
			    CMD, "--from %s needs --smear PRESET", from);
	} else if (time_arg[0] == '0' &&
	           (time_arg[1] == 'x' || time_arg[1] == 'X')) {
		o->in_scale = find_scale("ntp", 3);
	} else if (looks_like_number(time_arg)) {
		o->in_scale = find_scale("unix", 4);
	} else {
		o->in_scale = find_scale("utc", 3);
	}
	if (o->occurrence == NULL)
		return 0;
	if (strcmp(o->occurrence, "second") == 0)
		c->second = 1;
	else if (strcmp(o->occurrence, "first") != 0)
		return lc_cli_usage_error(
		    CMD, "--occurrence: first or second, not '%s'",
		    o->occurrence);
	if (o->in_scale->parse != from_unix && o->in_scale->parse != from_ntp)
		return lc_cli_usage_error(
		    CMD, "--occurrence applies to POSIX counts (unix "
		         "and ntp input), where a second can repeat");
	return 0;
}

/* The output scales: --to's list, or all (those needing a smear only
 * with --smear); 0 or the exit status. */
static int pick_outputs(struct conv_opts *o, const struct conv *c)
{
	o->explicit_to = strcasecmp(o->to, "all") != 0;
	if (!o->explicit_to) {
		for (size_t i = 0; i < NSCALES; i++)
			if (!scales[i].needs_smear || c->have_smear)
				o->out[o->nout++] = &scales[i];
		return 0;
	}
	for (const char *p = o->to;;) {
		size_t len = strcspn(p, ",");
		const struct scale *s = find_scale(p, len);

		if (s == NULL)
			return lc_cli_usage_error(
			    CMD,
			    "unknown output scale '%.*s' (utc, tai, "
			    "gps, unix, ntp, utc-sls, all)",
			    (int)len, p);
		if (s->needs_smear && !c->have_smear)
			return lc_cli_usage_error(
			    CMD, "--to %s needs --smear PRESET", s->name);
		if (o->nout < sizeof(o->out) / sizeof(o->out[0]))
			o->out[o->nout++] = s;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	return 0;
}

/* Reads TIME on the input scale and prints it on each output scale; 0 or
 * the exit status. */
static int convert(const struct conv_opts *o, struct conv *c)
{
	const char *time_arg = o->time_arg;
	struct lc_error err = {0};
	int rc = o->in_scale->parse(c, time_arg, &err);

	if (rc < 0) {
		char buf[600];

		if (err.code == 0)
			lc__error(&err, rc, time_arg, 0, "%s", lc_strerror(rc));
		fprintf(stderr, "leapclock %s: %s time: ", CMD,
		        o->in_scale->name);
		lc_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "%s\n", buf);
		return LC_EXIT_USAGE;
	}
	if (c->in.ambiguous)
		note_ambiguous(c, time_arg);
	warn_expiry(c, time_arg);
	/* Scales that need TAI-UTC: an error if asked for by name, else
	 * reported as unavailable. */
	for (size_t i = 0; c->in.tai_rc < 0 && o->explicit_to && i < o->nout;
	     i++) {
		if (o->out[i]->needs_tai) {
			fprintf(stderr, "leapclock %s: %s: no %s time: %s\n",
			        CMD, time_arg, o->out[i]->name,
			        lc_strerror(c->in.tai_rc));
			return LC_EXIT_USAGE;
		}
	}
	if (c->json)
		printf("{");
	for (size_t i = 0; i < o->nout; i++) {
		if (o->out[i]->needs_tai && c->in.tai_rc < 0) {
			member(c, o->out[i]->name);
			if (c->json)
				printf("null");
			else
				printf("unavailable: %s\n",
				       lc_strerror(c->in.tai_rc));
			continue;
		}
		o->out[i]->print(c);
	}
	if (c->json)
		printf("\n}\n");
	return LC_EXIT_OK;
}

int lc_cmd_convert(int argc, char **argv)
{
	struct conv_opts o = {0};
	struct conv c = {0};
	lc_leaptable *t;
	int rc;

	rc = parse_args(&o, &c, argc, argv);
	if (rc == 0)
		rc = pick_input(&o, &c);
	if (rc == 0)
		rc = pick_outputs(&o, &c);
	if (rc != 0)
		return rc;
	t = load_table(o.file);
	if (t == NULL)
		return LC_EXIT_USAGE;
	c.table = t;
	c.first_member = 1;
	rc = convert(&o, &c);
	lc_leaptable_free(t);
	return rc;
}
