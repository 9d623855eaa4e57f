/*
 * cmd_now.c - `leapclock now`: every clock id of the process-wide
 * timekeeper on this host, the counter it runs on, the leap table it uses
 * and the next leap it has armed.
 */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#define CMD "now"

const char lc_cmd_now_summary[] =
	"every clock id now (UTC with 23:59:60, TAI, ...), counter, next leap";

void lc_cmd_now_usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock now [--bounds] [--json]\n\n"
	        "Reads every clock of leapclock's default timekeeper on this host:\n"
	        "monotonic_raw, monotonic, boottime, tai, realtime, utc, utc_sls.\n"
	        "It runs on the best counter (tsc where invariant, else the host's\n"
	        "CLOCK_MONOTONIC), takes UTC from the host's CLOCK_REALTIME and\n"
	        "TAI-UTC and leaps from the system's leap table:\n"
	        "$LEAPCLOCK_LEAPFILE when set (exit 2 if it cannot be used), "
	        "else the one that\nexpires last of the zoneinfo files and "
	        "the built-in table (see\nleapclock-table(1)).\n\n"
	        "In 23:59:60, utc (and utc_sls when not smeared) read SEC+1.FRAC:\n"
	        "the second after POSIX second SEC, FRAC into it.\n\n"
	        "  --bounds each clock's error bound too: earliest and latest (the\n"
	        "           clock's own convention, 23:59:60 as above), the\n"
	        "           half-width and a status (synchronised, free-running,\n"
	        "           unknown); see leapclock_clock(3)\n"
	        "  --json   one object: a member per clock id {sec, nsec} (nsec\n"
	        "           >= 1e9 in 23:59:60), utc_iso and utc_sls_iso (ISO\n"
	        "           8601, :60 shown), leap_second, counter, leap_source,\n"
	        "           leap_table_expired and next_leap; with --bounds each\n"
	        "           clock also has earliest, latest {sec, nsec},\n"
	        "           error_ns and status\n\n"
	        "A leap table past its expiry is warned about on stderr.\n\n"
	        "See leapclock-now(1).\n");
}

static const char *leap_source_text(const lc_leaptable *t, char *buf,
                                    size_t size)
{
	struct lc_leaptable_info info;

	if (lc_leaptable_info(t, &info) < 0)
		return "unknown";
	snprintf(buf, size, "%s", info.source);
	return buf;
}

static void print_ts_text(const char *name, lc_clock_id id,
                          const struct timespec *ts)
{
	char iso[64];

	/* In 23:59:60 tv_nsec runs past 1e9: SEC+1.FRAC says "the second
	 * after SEC", where SEC.1FRAC would read as a fraction of SEC. */
	if (ts->tv_nsec >= LC_NSEC_PER_SEC)
		printf("%-14s %" PRId64 "+1.%09ld", name, (int64_t)ts->tv_sec,
		       (long)(ts->tv_nsec - LC_NSEC_PER_SEC));
	else
		printf("%-14s %" PRId64 ".%09ld", name, (int64_t)ts->tv_sec,
		       (long)ts->tv_nsec);
	if (id == LC_CLOCK_UTC || id == LC_CLOCK_UTC_SLS) {
		if (lc_iso8601_format(ts, 9, iso, sizeof(iso)) > 0)
			printf("  %s", iso);
	} else if (id == LC_CLOCK_REALTIME) {
		struct timespec u = *ts;

		if (lc_iso8601_format(&u, 9, iso, sizeof(iso)) > 0)
			printf("  %s (POSIX)", iso);
	} else if (id == LC_CLOCK_TAI) {
		if (lc_iso8601_format_scale((int64_t)ts->tv_sec * LC_NSEC_PER_SEC +
		                                    ts->tv_nsec,
		                            9, iso, sizeof(iso)) > 0)
			printf("  %s TAI", iso);
	}
	printf("\n");
}

/* What `leapclock now` shows, read once. */
struct now_state {
	struct timespec ts[LC_CLOCK_COUNT];
	struct lc_bounds b[LC_CLOCK_COUNT];
	int bounds;
	const lc_leaptable *table;
	lc_counter *c;
	struct lc_tk_host host;
	char src[300];
	int64_t when;
	int dir, have_next, have_host, expired;
};

static const char *bounds_status_name(int st)
{
	return st == LC_BOUNDS_SYNCHRONIZED ? "synchronised"
	       : st == LC_BOUNDS_FREE_RUNNING ? "free-running"
	                                      : "unknown";
}

/* A timespec as text: SEC+1.FRAC in 23:59:60 (see print_ts_text). */
static void put_ts(const struct timespec *ts)
{
	if (ts->tv_nsec >= LC_NSEC_PER_SEC)
		printf("%" PRId64 "+1.%09ld", (int64_t)ts->tv_sec,
		       (long)(ts->tv_nsec - LC_NSEC_PER_SEC));
	else
		printf("%" PRId64 ".%09ld", (int64_t)ts->tv_sec,
		       (long)ts->tv_nsec);
}

static void print_json(const struct now_state *n)
{
	printf("{");
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		const struct lc_bounds *b = &n->b[id];

		printf("\"%s\":{\"sec\":%" PRId64 ",\"nsec\":%ld",
		       lc_clock_name((lc_clock_id)id),
		       (int64_t)n->ts[id].tv_sec, (long)n->ts[id].tv_nsec);
		if (n->bounds)
			printf(",\"earliest\":{\"sec\":%" PRId64
			       ",\"nsec\":%ld},\"latest\":{\"sec\":%" PRId64
			       ",\"nsec\":%ld},\"error_ns\":%" PRId64
			       ",\"status\":\"%s\"",
			       (int64_t)b->earliest.tv_sec,
			       (long)b->earliest.tv_nsec,
			       (int64_t)b->latest.tv_sec, (long)b->latest.tv_nsec,
			       b->error_ns, bounds_status_name(b->status));
		printf("},");
	}
	/* UTC as text, 23:59:60 shown; leap_second true in it (the utc and
	 * utc_sls members then carry nsec >= 1e9) */
	for (int id = LC_CLOCK_UTC; id <= LC_CLOCK_UTC_SLS; id++) {
		char iso[64];

		if (lc_iso8601_format(&n->ts[id], 9, iso, sizeof(iso)) < 0)
			iso[0] = '\0';
		printf("\"%s_iso\":", lc_clock_name((lc_clock_id)id));
		lc_cli_json_str(stdout, iso);
		printf(",");
	}
	printf("\"leap_second\":%s,",
	       n->ts[LC_CLOCK_UTC].tv_nsec >= LC_NSEC_PER_SEC ? "true"
	                                                      : "false");
	printf("\"counter\":");
	lc_cli_json_str(stdout, lc_counter_name(n->c));
	printf(",\"counter_hz\":%" PRIu64 ",\"leap_source\":",
	       lc_counter_freq(n->c));
	lc_cli_json_str(stdout, n->src);
	printf(",\"leap_table_expired\":%s", n->expired ? "true" : "false");
	printf(",\"next_leap\":");
	if (n->have_next) {
		struct timespec w = { (time_t)n->when, 0 };
		char iso[64];

		/* The instant after the leap: 00:00:00 */
		lc_iso8601_format(&w, 0, iso, sizeof(iso));
		printf("{\"when\":%" PRId64 ",\"utc\":", n->when);
		lc_cli_json_str(stdout, iso);
		printf(",\"dir\":\"%s\"}", n->dir > 0 ? "insert" : "delete");
	} else {
		printf("null");
	}
	/* not following: nothing measured, null (as status --json) */
	if (n->have_host && n->host.state != LC_HOST_NOT_FOLLOWED)
		printf(",\"host_offset_ns\":%" PRId64, n->host.offset_ns);
	else if (n->have_host)
		printf(",\"host_offset_ns\":null");
	if (n->have_host)
		printf(",\"host_state\":\"%s\"",
		       lc_cli_host_state_name(n->host.state));
	printf("}\n");
}

static void print_text(const struct now_state *n)
{
	for (int id = 0; id < LC_CLOCK_COUNT; id++)
		print_ts_text(lc_clock_name((lc_clock_id)id), (lc_clock_id)id,
		              &n->ts[id]);
	if (n->bounds) {
		printf("\nbounds (true time within [earliest, latest])\n");
		for (int id = 0; id < LC_CLOCK_COUNT; id++) {
			const struct lc_bounds *b = &n->b[id];

			printf("%-14s [", lc_clock_name((lc_clock_id)id));
			put_ts(&b->earliest);
			printf(", ");
			put_ts(&b->latest);
			printf("]  +-%.6f s  %s\n",
			       lc_cli_json_num((double)b->error_ns / 1e9, 6),
			       bounds_status_name(b->status));
		}
	}
	printf("\ncounter        %s (%" PRIu64 " Hz)\n", lc_counter_name(n->c),
	       lc_counter_freq(n->c));
	printf("leap source    %s\n", n->src);
	if (n->have_next) {
		/* 23:59:60 for an insertion, the deleted 23:59:59 */
		struct timespec w = { (time_t)(n->when - 1),
		                      n->dir > 0 ? 1000000000L : 0 };
		char iso[64];

		lc_iso8601_format(&w, 0, iso, sizeof(iso));
		printf("next leap      %s second %s\n",
		       n->dir > 0 ? "inserted" : "deleted", iso);
	} else {
		printf("next leap      none scheduled\n");
	}
	if (n->have_host) {
		/* by enum lc_host_state; SMEARED (4) read "not followed"
		 * through a 4-entry table */
		static const char *const states[] = {
		    "not followed", "agrees", "off by its own leap handling",
		    "was stepped (followed)",
		    "agrees, its declared smear removed" };
		int st = n->host.state;

		if (st < 0 || st > LC_HOST_SMEARED)
			printf("host           ?\n");
		else if (st == LC_HOST_NOT_FOLLOWED) /* nothing measured */
			printf("host           %s\n", states[st]);
		else
			printf("host           %s, CLOCK_REALTIME %+.6f s from "
			       "leapclock\n", states[st],
			       lc_cli_json_num((double)n->host.offset_ns / 1e9,
			                       6));
	}
}

int lc_cmd_now(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "bounds", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct now_state n;
	lc_timekeeper *tk;
	int json = 0, rc, c;

	memset(&n, 0, sizeof(n));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:jbh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'b': n.bounds = 1; break;
		case 'h': lc_cmd_now_usage(stdout); return LC_EXIT_OK;
		default:
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	rc = lc_cli_check_system_table(CMD, NULL);
	if (rc != 0)
		return rc;
	tk = lc_default();
	if (tk == NULL) {
		fprintf(stderr, "leapclock %s: cannot start the timekeeper\n",
		        CMD);
		return LC_EXIT_RUNTIME;
	}
	lc_update(tk);
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		if (n.bounds) {
			/* the reading and its bound from one instant */
			lc_gettime_bounds(tk, (lc_clock_id)id, &n.b[id]);
			n.ts[id] = n.b[id].now;
		} else {
			lc_gettime(tk, (lc_clock_id)id, &n.ts[id]);
		}
	}
	n.c = lc_tk_counter(tk);
	n.table = lc_tk_table(tk);
	n.have_next = lc_tk_next_leap(tk, &n.when, &n.dir) == 0;
	n.have_host = lc_tk_host_status(tk, &n.host) == 0;
	leap_source_text(n.table, n.src, sizeof(n.src));
	/* An expired table knows nothing of the leaps announced since: say
	 * so (on stderr, as `leapclock table` does), judged at REALTIME now. */
	n.expired = lc_cli_warn_expired(CMD, n.table, n.src,
	                                (int64_t)n.ts[LC_CLOCK_REALTIME].tv_sec);
	if (json)
		print_json(&n);
	else
		print_text(&n);
	return LC_EXIT_OK;
}
