/*
 * cmd_table.c - `leapclock table`: the leap-second table in use, where it
 * came from, whether it has expired, whether its hash checks out, and every
 * leap with TAI-UTC after it.
 */
#include "cli.h"

#include "leaptable_impl.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CMD "table"

const char lc_cmd_table_summary[] =
    "show the leap-second table: source, expiry, hash, leaps";

void lc_cmd_table_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: leapclock table [--leapfile FILE] [--verify] [--json] "
	    "[--now WHEN]\n\n"
	    "Shows the leap-second table: its source, format, last update, "
	    "expiry and\nhash status, and every leap second with TAI-UTC "
	    "after it. Without --leapfile\nthe system's table is used: "
	    "$LEAPCLOCK_LEAPFILE when set (an error if it cannot\nbe used), "
	    "else the one that expires last of\n"
	    "/usr/share/zoneinfo/leap-seconds.list, "
	    "/usr/share/zoneinfo/leapseconds and\nthe built-in table; stderr "
	    "says which it took and why it skipped the others\nwhen a file "
	    "was bad or lost to a newer table. An expired table is shown\n"
	    "with a warning.\n\n"
	    "options:\n"
	    "  --leapfile FILE\n"
	    "               a leap-seconds.list (IERS/NIST) or tzdata "
	    "leapseconds file\n"
	    "               (--file FILE: the same)\n"
	    "  --verify     only check the leap-seconds.list hash: exit 0 "
	    "if it matches,\n"
	    "               1 if it is wrong or missing (or the format has "
	    "none)\n"
	    "  --json       print one JSON object\n"
	    "  --now WHEN   judge expiry at WHEN (YYYY-MM-DD, "
	    "YYYY-MM-DDThh:mm:ssZ or\n"
	    "               @POSIX-seconds) instead of the current time\n"
	    "  -h, --help   this help\n\n"
	    "exit status: 0 ok (an expired table too), 1 --verify failed, "
	    "2 usage or bad file,\n3 runtime error. See "
	    "leapclock-table(1).\n");
}

/* "YYYY-MM-DDThh:mm:ssZ"; with `sec60`, the second shows as 60 (the
 * inserted second, whose POSIX value is that of 23:59:59). */
static const char *fmt_utc(int64_t unix_sec, int sec60, char buf[48])
{
	int64_t y;
	int m, d, sod;

	lc__leap_civil(unix_sec, &y, &m, &d, &sod);
	snprintf(buf, 48, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02dZ", y, m, d,
	         sod / 3600, sod / 60 % 60, sec60 ? 60 : sod % 60);
	return buf;
}

static const char *fmt_date(int64_t unix_sec, char buf[48])
{
	int64_t y;
	int m, d, sod;

	lc__leap_civil(unix_sec, &y, &m, &d, &sod);
	snprintf(buf, 48, "%04" PRId64 "-%02d-%02d", y, m, d);
	return buf;
}

/* --now: "@SECONDS", "YYYY-MM-DD" or "YYYY-MM-DDThh:mm:ssZ". */
static int parse_when(const char *s, int64_t *out)
{
	long long v, y;
	int mo, d, h = 0, mi = 0, se = 0, n = -1;

	if (s[0] == '@') {
		char *end;
		v = strtoll(s + 1, &end, 10);
		if (end == s + 1 || *end != '\0')
			return -1;
		*out = v;
		return 0;
	}
	if (sscanf(s, "%4lld-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	if (s[n] != '\0') {
		int n2 = -1;
		if (sscanf(s + n, "T%2d:%2d:%2dZ%n", &h, &mi, &se, &n2) != 3 ||
		    n2 != 10 || s[n + n2] != '\0')
			return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    se > 59 || h < 0 || mi < 0 || se < 0)
		return -1;
	*out = lc__leap_days_from_civil(y, mo, d) * LC_SECS_PER_DAY + h * 3600 +
	       mi * 60 + se;
	/* reject 2026-02-30 and the like: the date must come back */
	{
		int64_t yy;
		int mm, dd, sod;
		lc__leap_civil(*out, &yy, &mm, &dd, &sod);
		if (yy != y || mm != mo || dd != d)
			return -1;
	}
	return 0;
}

static const char *format_name(int f, int json)
{
	switch (f) {
	case LC_LEAPFMT_IERS:
		return json ? "iers" : "leap-seconds.list (IERS/NIST)";
	case LC_LEAPFMT_TZDATA:
		return json ? "tzdata" : "leapseconds (tzdata)";
	case LC_LEAPFMT_BUILTIN:
		return json ? "builtin" : "built-in (compiled into leapclock)";
	default:
		return "unknown";
	}
}

static const char *hash_name(const struct lc_leaptable_info *info, int json)
{
	switch (info->hash) {
	case LC_HASH_OK:
		return json ? "ok" : "ok (the #h line matches the data)";
	case LC_HASH_MISSING:
		return json ? "missing"
		            : "missing (no #h line: the data is not verified)";
	default:
		if (json)
			return "none";
		return info->format == LC_LEAPFMT_TZDATA
		           ? "none (the tzdata format carries no hash)"
		           : "none (built-in data)";
	}
}

static void json_time(FILE *out, const char *key, int64_t t)
{
	char b[48];

	if (t == INT64_MIN) {
		fprintf(out, "  \"%s\": null,\n  \"%s_unix\": null,\n", key,
		        key);
		return;
	}
	fprintf(out, "  \"%s\": \"%s\",\n  \"%s_unix\": %" PRId64 ",\n", key,
	        fmt_utc(t, 0, b), key, t);
}

static void print_table(const lc_leaptable *t, int json, int expired,
                        const char *warning)
{
	struct lc_leaptable_info info;
	struct lc_leap r;
	char b[48];

	lc_leaptable_info(t, &info);
	if (json) {
		printf("{\n  \"source\": ");
		lc_cli_json_str(stdout, info.source);
		printf(",\n  \"format\": \"%s\",\n",
		       format_name(info.format, 1));
		json_time(stdout, "updated", info.updated);
		json_time(stdout, "expires", info.expires);
		printf("  \"expired\": %s,\n  \"warning\": ",
		       expired ? "true" : "false");
		if (warning != NULL)
			lc_cli_json_str(stdout, warning);
		else
			printf("null");
		printf(",\n  \"hash\": \"%s\",\n  \"leaps\": [",
		       hash_name(&info, 1));
		for (size_t i = 0; lc_leaptable_get(t, i, &r) == 0; i++) {
			/* the leap second is the one before `when`; the
			 * 1972 start row is the instant itself */
			int64_t at = r.dir != 0 ? r.when - 1 : r.when;
			printf("%s\n    {\"date\": \"%s\", \"when\": %" PRId64
			       ", \"dir\": %d, \"tai_utc\": %d}",
			       i ? "," : "", fmt_utc(at, r.dir > 0, b), r.when,
			       (int)r.dir, (int)r.tai_utc);
		}
		printf("\n  ]\n}\n");
		return;
	}
	printf("source:   %s\n", info.source);
	printf("format:   %s\n", format_name(info.format, 0));
	if (info.updated != INT64_MIN)
		printf("updated:  %s\n", fmt_utc(info.updated, 0, b));
	else
		printf("updated:  unknown (the file does not say)\n");
	if (info.expires != INT64_MIN)
		printf("expires:  %s%s\n", fmt_utc(info.expires, 0, b),
		       expired ? " (EXPIRED)" : "");
	else
		printf("expires:  unknown (the file does not say)\n");
	printf("hash:     %s\n", hash_name(&info, 0));
	printf("leaps:    %zu since 1972-01-01 (TAI-UTC 10 s then)\n\n",
	       info.count - 1);
	printf("%-22s %-13s %s\n", "leap second (UTC)", "direction",
	       "TAI-UTC after");
	for (size_t i = 0; lc_leaptable_get(t, i, &r) == 0; i++) {
		int64_t at = r.dir != 0 ? r.when - 1 : r.when;
		const char *dir = r.dir > 0   ? "+1 inserted"
		                  : r.dir < 0 ? "-1 deleted"
		                              : "start of UTC";
		printf("%-22s %-13s %d s\n", fmt_utc(at, r.dir > 0, b), dir,
		       (int)r.tai_utc);
	}
}

/* --verify: 0 if the hash matched, 1 if not or there is none. */
static int verify(const char *file, const lc_leaptable *t, int rc,
                  const struct lc_error *err, int json)
{
	struct lc_leaptable_info info;
	const char *status;
	char msg[600];

	memset(&info, 0, sizeof(info));

	if (rc == LC_EHASH) {
		status = "wrong";
		lc_error_format(err, msg, sizeof(msg));
	} else {
		lc_leaptable_info(t, &info);
		if (info.hash == LC_HASH_OK) {
			status = "ok";
			snprintf(msg, sizeof(msg),
			         "%s: hash ok: the #h line "
			         "matches the SHA-1 of the data",
			         info.source);
		} else if (info.hash == LC_HASH_MISSING) {
			status = "missing";
			snprintf(msg, sizeof(msg),
			         "%s: hash missing: no #h "
			         "line, the data cannot be verified",
			         info.source);
		} else {
			status = "none";
			snprintf(msg, sizeof(msg), "%s: no hash to verify: %s",
			         info.source, hash_name(&info, 0));
		}
	}
	if (json) {
		printf("{\n  \"source\": ");
		lc_cli_json_str(stdout, rc == LC_EHASH ? file : info.source);
		printf(",\n  \"hash\": \"%s\",\n  \"verified\": %s,\n"
		       "  \"message\": ",
		       status, strcmp(status, "ok") == 0 ? "true" : "false");
		lc_cli_json_str(stdout, msg);
		printf("\n}\n");
	} else {
		printf("%s\n", msg);
	}
	return strcmp(status, "ok") == 0 ? LC_EXIT_OK : LC_EXIT_FAIL;
}

struct table_opts {
	const char *file; /* --leapfile; or the failed system table, for
	                   * --verify */
	int do_verify, json;
	int64_t now;
	int load_rc; /* what loading the table returned */
	struct lc_error err;
	struct lc_leaptable_search search;
};

static int table_parse(struct table_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"leapfile", required_argument, NULL, 'f'},
	    {"file", required_argument, NULL, 'f'}, /* the old name */
	    {"verify", no_argument, NULL, 'v'},
	    {"json", no_argument, NULL, 'j'},
	    {"now", required_argument, NULL, 'n'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	o->now = (int64_t)time(NULL);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->file = optarg;
			break;
		case 'v':
			o->do_verify = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'n':
			if (parse_when(optarg, &o->now) < 0)
				return lc_cli_usage_error(
				    CMD,
				    "--now: '%s' is not YYYY-MM-DD, "
				    "YYYY-MM-DDThh:mm:ssZ or @SECONDS",
				    optarg);
			break;
		case ':':
			return lc_cli_usage_error(CMD,
			                          "option '%s' needs a "
			                          "value",
			                          argv[optind - 1]);
		default:
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	return 0;
}

/* --leapfile, or the system's table (what the search took and skipped
 * said on stderr when worth it). A bad hash goes on to --verify, which
 * reports it; any other failure is the exit status (message printed). */
static int table_load(struct table_opts *o, lc_leaptable *t)
{
	char m[2048];
	int rc;

	memset(&o->err, 0, sizeof(o->err));
	if (o->file != NULL) {
		rc = lc_leaptable_load_file(t, o->file, LC_LEAPFMT_AUTO,
		                            &o->err);
		if (rc < 0 && !(o->do_verify && rc == LC_EHASH)) {
			lc_cli_print_error(CMD, &o->err);
			return rc == LC_ENOMEM ? LC_EXIT_RUNTIME
			                       : LC_EXIT_USAGE;
		}
		o->load_rc = rc;
		return 0;
	}
	rc = lc_leaptable_load_system_report(t, &o->search, &o->err);
	if (rc < 0 && !(o->do_verify && rc == LC_EHASH)) {
		/* named by the user: that table or nothing */
		lc_error_format(&o->err, m, sizeof(m));
		fprintf(stderr, "leapclock %s: %s%s\n", CMD,
		        strstr(m, "LEAPCLOCK_LEAPFILE") != NULL
		            ? ""
		            : "LEAPCLOCK_LEAPFILE: ",
		        m);
		return rc == LC_ENOMEM ? LC_EXIT_RUNTIME : LC_EXIT_USAGE;
	}
	if (rc < 0)
		o->file = o->search.c[0].source; /* --verify reports it */
	lc_cli_say_search(CMD, &o->search);
	o->load_rc = rc;
	return 0;
}

int lc_cmd_table(int argc, char **argv)
{
	struct table_opts o;
	struct lc_leaptable_info info;
	char warning[600], b[48];
	lc_leaptable *t;
	int rc, expired = 0;

	memset(&o, 0, sizeof(o));
	rc = table_parse(&o, argc, argv);
	if (rc != 0)
		return rc;
	t = lc_leaptable_new();
	if (t == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", CMD);
		return LC_EXIT_RUNTIME;
	}
	rc = table_load(&o, t);
	if (rc != 0) {
		lc_leaptable_free(t);
		return rc;
	}
	if (o.load_rc == 0) {
		lc_leaptable_info(t, &info);
		expired = lc_leaptable_expired(t, o.now);
		if (expired) {
			snprintf(warning, sizeof(warning),
			         "leap table %s expired on %s; leap seconds "
			         "announced since then are unknown to it",
			         info.source, fmt_date(info.expires, b));
			fprintf(stderr, "leapclock %s: warning: %s\n", CMD,
			        warning);
		}
	}
	if (o.do_verify)
		rc = verify(o.file, t, o.load_rc, &o.err, o.json);
	else
		print_table(t, o.json, expired, expired ? warning : NULL);
	lc_leaptable_free(t);
	return rc;
}
