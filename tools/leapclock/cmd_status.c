/*
 * cmd_status.c - `leapclock status`: the host kernel's NTP state, read with
 * adjtimex() and modes = 0 (read-only: no mode bit is ever set, so nothing
 * on the host changes), next to leapclock's own adjtimex state machine and
 * how the default timekeeper agrees with the host; and which timeline
 * lc_default() reads (the host's page from leapclockd, or its own writer
 * in-process, or on from a page gone stale) with that timeline's state:
 * leap table, smear, and how it follows the host.
 */
#include "cli.h"
#include "kernel_names.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#define CMD "status"

const char lc_cmd_status_summary[] =
	"host kernel NTP state (read-only adjtimex) next to leapclock's own";

void lc_cmd_status_usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock status [--json]\n"
	        "       leapclock status --watch [--interval S] [--count N]\n"
	        "                        [--stats-file PATH|none]\n\n"
	        "Prints the host kernel's NTP state from a read-only adjtimex()\n"
	        "(modes = 0: nothing is changed) next to leapclock's own\n"
	        "adjtimex state; then which timeline leapclock reads (the host's\n"
	        "page published by leapclockd, or in-process, and why) and its\n"
	        "leap table, smear and host following.\n\n"
	        "  --json   one object with members host, leapclock, timeline and\n"
	        "           following\n"
	        "  --watch  a live view (also 'leapclock top'): the timeline, host\n"
	        "           following, the next leap and the smear offset now\n"
	        "           (UTC_SLS - UTC), and the requests and replies per second\n"
	        "           of each socket leapclockd serves (its stats file, as\n"
	        "           'leapclock server-stats' reads it), refreshed in place\n"
	        "           on a terminal, one block per refresh otherwise; until\n"
	        "           SIGINT or SIGTERM, or N refreshes\n"
	        "  --interval S  seconds between refreshes (default 1; 0.1..3600)\n"
	        "  --count N     stop after N refreshes\n"
	        "  --stats-file PATH  leapclockd's stats file (default\n"
	        "           /run/leapclockd/stats; none: no served rates)\n\n"
	        "See leapclock-status(1).\n");
}

static const char *state_name(int st)
{
	return lc__time_state_name(st);
}

/* The fields both report, in leapclock's types. */
struct view {
	int rc;
	int status;
	int64_t offset, freq, maxerror, esterror, constant, tick;
	int tai;
	int64_t sec, frac;
};

static void print_bits(FILE *out, int status, int json)
{
	int first = 1;

	for (int b = 0; b < 16; b++) {
		if (!(status & (1 << b)))
			continue;
		if (json)
			fprintf(out, "%s\"%s\"", first ? "" : ",", lc__sta_bit_name(b));
		else
			fprintf(out, "%s%s", first ? "" : "|", lc__sta_bit_name(b));
		first = 0;
	}
	if (first && !json)
		fprintf(out, "0");
}

/* `partial`: the page carries the state, status and TAI offset only; the
 * other fields are unknown (null), not the 0 lc_adjtimex left. */
static void print_json(const char *name, const struct view *v, int partial)
{
	if (partial) {
		printf("\"%s\":{\"state\":\"%s\",\"return\":%d,\"status\":%d,"
		       "\"status_bits\":[",
		       name, v->rc >= 0 ? state_name(v->rc) : "error", v->rc,
		       v->status);
		print_bits(stdout, v->status, 1);
		printf("],\"offset\":null,\"freq\":null,\"freq_ppm\":null,"
		       "\"maxerror_us\":null,\"esterror_us\":null,"
		       "\"constant\":null,\"tick_us\":null,\"tai\":%d,"
		       "\"time\":{\"sec\":%" PRId64 ",\"frac\":%" PRId64
		       ",\"frac_unit\":\"%s\"}}",
		       v->tai, v->sec, v->frac,
		       (v->status & LC_STA_NANO) ? "ns" : "us");
		return;
	}
	printf("\"%s\":{\"state\":\"%s\",\"return\":%d,\"status\":%d,"
	       "\"status_bits\":[",
	       name, v->rc >= 0 ? state_name(v->rc) : "error", v->rc, v->status);
	print_bits(stdout, v->status, 1);
	printf("],\"offset\":%" PRId64 ",\"freq\":%" PRId64
	       ",\"freq_ppm\":%.6f,\"maxerror_us\":%" PRId64
	       ",\"esterror_us\":%" PRId64 ",\"constant\":%" PRId64
	       ",\"tick_us\":%" PRId64 ",\"tai\":%d,\"time\":{\"sec\":%" PRId64
	       ",\"frac\":%" PRId64 ",\"frac_unit\":\"%s\"}}",
	       v->offset, v->freq, (double)v->freq / 65536.0, v->maxerror,
	       v->esterror, v->constant, v->tick, v->tai, v->sec, v->frac,
	       (v->status & LC_STA_NANO) ? "ns" : "us");
}

static void row(const char *what, const char *a, const char *b)
{
	printf("%-12s %-28s %s\n", what, a, b);
}

static const char *source_name(int s)
{
	switch (s) {
	case LC_TIMELINE_OWN: return "own";
	case LC_TIMELINE_PAGE: return "page";
	case LC_TIMELINE_IN_PROCESS: return "in-process";
	case LC_TIMELINE_FALLBACK: return "fallback";
	default: return "?";
	}
}

static const char *host_state_text(int s)
{
	switch (s) {
	case LC_HOST_NOT_FOLLOWED: return "not following the host";
	case LC_HOST_AGREES: return "in agreement with the host";
	case LC_HOST_LEAP_OFF: return "host off by its leap handling (not followed)";
	case LC_HOST_STEPPED: return "host was stepped (followed)";
	case LC_HOST_SMEARED: return "in agreement, the host's declared smear removed";
	default: return "?";
	}
}

static const char *hash_name(int h)
{
	switch (h) {
	case LC_HASH_NONE: return "none";
	case LC_HASH_OK: return "ok";
	case LC_HASH_MISSING: return "missing";
	default: return "?";
	}
}

/* What status says about the timeline: from the page (the writer's view)
 * or from this process's own writer. */
struct tl_view {
	struct lc_timeline_info ti;
	int from_page;            /* table/smear/host are the writer's */
	char table_source[256];
	int table_hash;
	int64_t table_expires;    /* INT64_MIN unknown */
	char table_note[168];     /* cut at a word, " ..." (note_copy) */
	char smear[48];           /* "" none */
	int have_host;            /* host state known */
	int host_state;
	int64_t host_offset_ns;
	int have_steer;
	int64_t host_steer_ppb;
	uint64_t host_steps;
	char host_leap[40];       /* the declared mode, "" unknown */
	char host_detected[40];   /* what the detection recognised, "" none */
	int64_t host_hold_ns;
	int have_kernel;          /* the lc_tk_host fields the page lacks */
	struct lc_tk_host h;
	/* leapclockd's server process, from the writer's PAGE.state (a
	 * page of another writer: none) */
	int have_server;
	char server_state[16];    /* "up", "starting", "down" */
	long server_pid;          /* -1 none */
	unsigned long server_starts;
	int64_t server_down_since; /* POSIX s, down only */
	char server_why[256];     /* why it is down */
};

/* PAGE.state (leapclockd(8) FILES): what the page's writer says of its
 * server process. Read only when its writer is the page's, alive. */
static void read_server_state(struct tl_view *v)
{
	char path[300], line[320];
	long wpid = -1;
	FILE *f;

	if (v->ti.writer_pid <= 0 || !v->ti.writer_alive || v->ti.path[0] == '\0' ||
	    (size_t)snprintf(path, sizeof(path), "%s.state", v->ti.path) >=
	            sizeof(path) ||
	    (f = fopen(path, "re")) == NULL)
		return;
	v->server_pid = -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		long long ll;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "writer-pid %ld", &wpid) == 1)
			continue;
		if (sscanf(line, "server-pid %ld", &v->server_pid) == 1)
			continue;
		if (strncmp(line, "server ", 7) == 0 &&
		    sscanf(line + 7, "%15s", v->server_state) == 1)
			continue;
		if (sscanf(line, "starts %lu", &v->server_starts) == 1)
			continue;
		if (sscanf(line, "down-since %lld", &ll) == 1)
			v->server_down_since = ll;
		else if (strncmp(line, "reason ", 7) == 0)
			snprintf(v->server_why, sizeof(v->server_why), "%.255s",
			         line + 7);
	}
	fclose(f);
	v->have_server = wpid == v->ti.writer_pid && v->server_state[0] != '\0';
}

/* The in-process writer's smear, as lc_default() chooses it from the
 * environment (LEAPCLOCK_SMEAR, LEAPCLOCK_REALTIME_SMEARED). */
static void env_smear(char *out, size_t n)
{
	const char *sm = getenv("LEAPCLOCK_SMEAR");
	const char *rs = getenv("LEAPCLOCK_REALTIME_SMEARED");
	struct lc_smear_policy p;

	out[0] = '\0';
	if ((sm == NULL || *sm == '\0') && rs != NULL && *rs != '\0' &&
	    strcmp(rs, "0") != 0)
		sm = "utc-sls";
	if (sm != NULL && *sm != '\0' && lc_smear_preset(sm, 0, &p, NULL) == 0)
		snprintf(out, n, "%s", sm);
}

/* The page's note, which the page cuts at its 159 bytes: a note that
 * fills them is cut back to its last space with " ..." (not mid-word or
 * mid-hash). */
static void note_copy(char *out, size_t n, const char *note)
{
	size_t len = strlen(note);
	const char *sp;

	snprintf(out, n, "%s", note);
	if (len + 1 < sizeof(((struct lc_timeline_info *)0)->table_note))
		return;
	sp = strrchr(out, ' ');
	while (sp != NULL && sp > out && (size_t)(sp - out) + 5 > n - 1) {
		out[sp - out] = '\0';
		sp = strrchr(out, ' ');
	}
	if (sp != NULL && sp > out)
		snprintf(out + (sp - out), n - (size_t)(sp - out), " ...");
}

/* The error bound of UTC now and what it is made of (leapclock_clock(3),
 * "Error bounds"); issue 23. */
static const char *bounds_status_text(int st)
{
	return st == LC_BOUNDS_SYNCHRONIZED ? "synchronised"
	       : st == LC_BOUNDS_FREE_RUNNING ? "free-running"
	                                      : "unknown";
}

static void print_bounds(lc_timekeeper *tk, int json)
{
	struct lc_bounds b;
	struct lc_bounds_info bi;

	lc_gettime_bounds(tk, LC_CLOCK_UTC, &b);
	lc_tk_bounds_info(tk, &bi);
	if (json) {
		printf(",\"bounds\":{\"status\":\"%s\",\"error_ns\":%" PRId64
		       ",\"drift_ppb\":%" PRId64 ",\"age_ns\":%" PRId64,
		       bounds_status_text(b.status), b.error_ns, bi.drift_ppb,
		       b.age_ns);
		if (bi.have_parts)
			printf(",\"unsync\":%s,\"maxerror_ns\":%" PRId64
			       ",\"esterror_ns\":%" PRId64
			       ",\"bracket_ns\":%" PRId64
			       ",\"residual_ns\":%" PRId64
			       ",\"mode_ns\":%" PRId64,
			       bi.unsync ? "true" : "false", bi.maxerror_ns,
			       bi.esterror_ns, bi.bracket_ns, bi.residual_ns,
			       bi.mode_ns);
		printf("}");
		return;
	}
	printf("%-12s UTC +-%.6f s, %s", "bounds",
	       lc_cli_json_num((double)b.error_ns / 1e9, 6),
	       bounds_status_text(b.status));
	if (b.status != LC_BOUNDS_UNKNOWN)
		printf(", growing %.3f ppm", (double)bi.drift_ppb / 1e3);
	if (bi.have_parts)
		printf(" (maxerror %.6f s%s, bracket %.3f us, residual %.3f "
		       "us, mode %.6f s)",
		       (double)bi.maxerror_ns / 1e9,
		       bi.unsync ? ", STA_UNSYNC" : "",
		       (double)bi.bracket_ns / 1e3, (double)bi.residual_ns / 1e3,
		       (double)bi.mode_ns / 1e9);
	printf("\n");
}

static void get_view(lc_timekeeper *tk, struct tl_view *v)
{
	memset(v, 0, sizeof(*v));
	v->table_expires = INT64_MIN;
	lc_timeline_info(tk, &v->ti);
	if (v->ti.source == LC_TIMELINE_PAGE) {
		v->from_page = 1;
		snprintf(v->table_source, sizeof(v->table_source), "%s",
		         v->ti.table_source);
		v->table_hash = v->ti.table_hash;
		v->table_expires = v->ti.table_expires;
		note_copy(v->table_note, sizeof(v->table_note),
		          v->ti.table_note);
		snprintf(v->smear, sizeof(v->smear), "%s", v->ti.smear);
		v->have_host = 1;
		v->host_state = v->ti.host_state;
		v->host_offset_ns = v->ti.host_offset_ns;
		v->host_steps = v->ti.host_steps;
		snprintf(v->host_leap, sizeof(v->host_leap), "%s",
		         v->ti.host_leap_text);
		snprintf(v->host_detected, sizeof(v->host_detected), "%s",
		         v->ti.host_detected_text);
		v->host_hold_ns = v->ti.host_hold_ns;
		read_server_state(v);
		return;
	}
	{
		struct lc_leaptable_info info;

		if (lc_leaptable_info(lc_tk_table(tk), &info) == 0) {
			snprintf(v->table_source, sizeof(v->table_source), "%s",
			         info.source);
			v->table_hash = info.hash;
			v->table_expires = info.expires;
		}
	}
	if (v->ti.source == LC_TIMELINE_FALLBACK) {
		/* On from the page: its table and smear, its last note. */
		note_copy(v->table_note, sizeof(v->table_note),
		          v->ti.table_note);
		snprintf(v->smear, sizeof(v->smear), "%s", v->ti.smear);
	} else {
		env_smear(v->smear, sizeof(v->smear));
	}
	{
		int hrc = lc_tk_host_status(tk, &v->h);

		snprintf(v->host_leap, sizeof(v->host_leap), "%s",
		         v->h.host_leap_text);
		snprintf(v->host_detected, sizeof(v->host_detected), "%s",
		         v->h.detected_text);
		v->host_hold_ns = v->h.hold_ns;
		if (hrc != 0)
			return;
	}
	{
		v->have_host = v->have_steer = v->have_kernel = 1;
		v->host_state = v->h.state;
		v->host_offset_ns = v->h.offset_ns;
		v->host_steer_ppb = v->h.steer_ppb;
		v->host_steps = v->h.steps;
	}
}

static void iso_or(char *buf, size_t n, int64_t sec, const char *none)
{
	struct timespec ts;

	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = 0;
	if (sec == INT64_MIN || lc_iso8601_format(&ts, 0, buf, n) < 0)
		snprintf(buf, n, "%s", none);
}

static void json_str_or_null(const char *s)
{
	if (s == NULL || s[0] == '\0')
		printf("null");
	else
		lc_cli_json_str(stdout, s);
}

/* Why a page is no longer followed, in status's one wording, from the
 * fields (lc_timeline_info's why names the pid as 0 for a writer that
 * closed the page); other reasons as the library gives them. */
static const char *fallback_why(const struct lc_timeline_info *t, char *buf,
                                size_t n)
{
	if (t->source != LC_TIMELINE_FALLBACK ||
	    strncmp(t->why, "the writer ", 11) != 0)
		return t->why;
	if (t->writer_pid > 0)
		snprintf(buf, n, "its writer (pid %ld, %s) stopped updating it "
		         "%.1f s ago", t->writer_pid,
		         t->writer_alive ? "alive" : "gone",
		         (double)t->age_ns / 1e9);
	else
		snprintf(buf, n, "its writer closed the page %.1f s ago",
		         (double)t->age_ns / 1e9);
	return buf;
}

/* "server": leapclockd's server process as its writer says (null: no
 * word from the page's writer). */
static void print_server_json(const struct tl_view *v)
{
	char buf[64];

	printf(",\"server\":");
	if (!v->have_server) {
		printf("null");
		return;
	}
	printf("{\"state\":");
	lc_cli_json_str(stdout, v->server_state);
	printf(",\"pid\":");
	if (v->server_pid > 0)
		printf("%ld", v->server_pid);
	else
		printf("null");
	printf(",\"starts\":%lu,\"down_since\":", v->server_starts);
	if (v->server_down_since > 0) {
		iso_or(buf, sizeof(buf), v->server_down_since, "");
		json_str_or_null(buf);
	} else {
		printf("null");
	}
	printf(",\"why\":");
	json_str_or_null(v->server_why);
	printf("}");
}

static void print_timeline_json(const struct tl_view *v)
{
	char why[300];
	const struct lc_timeline_info *t = &v->ti;
	int page = t->source == LC_TIMELINE_PAGE ||
	           t->source == LC_TIMELINE_FALLBACK;
	char buf[64];

	printf(",\"timeline\":{\"source\":\"%s\",\"path\":",
	       source_name(t->source));
	json_str_or_null(t->path);
	printf(",\"why\":");
	json_str_or_null(t->source == LC_TIMELINE_PAGE
	                     ? ""
	                     : fallback_why(t, why, sizeof(why)));
	if (page) {
		printf(",\"writer_pid\":");
		if (t->writer_pid > 0)
			printf("%ld", t->writer_pid);
		else
			printf("null");
		printf(",\"writer_alive\":%s,\"rehearsal\":%s,"
		       "\"heartbeat_age_s\":%.3f,\"writer_starts\":%" PRIu64
		       ",\"last_update\":",
		       t->writer_alive ? "true" : "false",
		       t->pretend ? "true" : "false",
		       lc_cli_json_num((double)t->age_ns / 1e9, 3),
		       t->writer_starts);
		if (t->last_update_rt != 0) {
			struct timespec ts = { (time_t)(t->last_update_rt /
			                                1000000000),
			                       (long)(t->last_update_rt %
			                              1000000000) };

			if (lc_iso8601_format(&ts, 3, buf, sizeof(buf)) < 0)
				buf[0] = '\0';
			json_str_or_null(buf);
		} else {
			printf("null");
		}
	} else {
		printf(",\"writer_pid\":null,\"writer_alive\":null,"
		       "\"rehearsal\":null,\"heartbeat_age_s\":null,"
		       "\"writer_starts\":null,\"last_update\":null");
	}
	print_server_json(v);
	printf(",\"counter\":");
	json_str_or_null(t->counter);
	printf(",\"state_from\":\"%s\",\"table\":{\"source\":",
	       v->from_page ? "page" : "process");
	json_str_or_null(v->table_source);
	printf(",\"hash\":\"%s\",\"expires\":", hash_name(v->table_hash));
	iso_or(buf, sizeof(buf), v->table_expires, "");
	json_str_or_null(buf);
	printf(",\"note\":");
	json_str_or_null(v->table_note);
	printf("},\"smear\":");
	json_str_or_null(v->smear);
	printf("}");
}

static void print_following_json(const struct tl_view *v)
{
	/* the declared mode, and what the detection recognised (null:
	 * nothing) */
	printf(",\"host_leap\":");
	json_str_or_null(v->host_leap);
	printf(",\"host_leap_detected\":");
	json_str_or_null(v->host_detected);
	if (!v->have_host) {
		printf(",\"following\":null");
		return;
	}
	printf(",\"following\":{\"from\":\"%s\",\"state\":\"%s\","
	       "\"offset_ns\":",
	       v->from_page ? "page" : "process",
	       lc_cli_host_state_name(v->host_state));
	/* not following (a rehearsal, the host unreadable): nothing is
	 * measured, so null as in the text (issue 27: it printed 0) */
	if (v->host_state != LC_HOST_NOT_FOLLOWED)
		printf("%" PRId64, v->host_offset_ns);
	else
		printf("null");
	printf(",\"steer_ppb\":");
	if (v->have_steer && v->host_state != LC_HOST_NOT_FOLLOWED)
		printf("%" PRId64, v->host_steer_ppb);
	else
		printf("null");
	printf(",\"steps\":%" PRIu64, v->host_steps);
	if (v->have_kernel) {
		printf(",\"leaps_behind\":%d,\"kernel_rule\":%s,"
		       "\"kernel_tai\":%d,\"kernel_state\":\"%s\","
		       "\"kernel_status\":%d,\"kernel_status_bits\":[",
		       v->h.leaps_behind, v->h.kernel_rule ? "true" : "false",
		       (int)v->h.kernel_tai, state_name(v->h.kernel_state),
		       v->h.kernel_status);
		print_bits(stdout, v->h.kernel_status, 1);
		printf("]}");
	} else {
		/* Not published on the page. */
		printf(",\"leaps_behind\":null,\"kernel_rule\":null,"
		       "\"kernel_tai\":null,\"kernel_state\":null,"
		       "\"kernel_status\":null,\"kernel_status_bits\":null}");
	}
}

static void print_timeline_text(const struct tl_view *v)
{
	const struct lc_timeline_info *t = &v->ti;
	char buf[64], why[300];

	printf("\n");
	switch (t->source) {
	case LC_TIMELINE_PAGE:
		printf("%-12s page %s\n", "timeline", t->path);
		break;
	case LC_TIMELINE_FALLBACK:
		printf("%-12s in-process, on from the page %s: %s\n",
		       "timeline", t->path, fallback_why(t, why, sizeof(why)));
		break;
	case LC_TIMELINE_IN_PROCESS:
		printf("%-12s in-process: %s\n", "timeline",
		       t->why[0] != '\0' ? t->why : "no page");
		break;
	default:
		printf("%-12s %s\n", "timeline", source_name(t->source));
	}
	if (t->source == LC_TIMELINE_PAGE || t->source == LC_TIMELINE_FALLBACK) {
		if (t->writer_pid > 0)
			printf("%-12s pid %ld (%s)", "writer", t->writer_pid,
			       t->writer_alive ? "alive" : "gone");
		else
			printf("%-12s none (its writer closed the page)",
			       "writer");
		printf(", %" PRIu64 " writer start%s, heartbeat %.1f s ago%s\n",
		       t->writer_starts, t->writer_starts == 1 ? "" : "s",
		       (double)t->age_ns / 1e9,
		       t->pretend ? ", a rehearsal (--pretend)" : "");
	}
	if (v->have_server && strcmp(v->server_state, "down") == 0)
		printf("%-12s down for %lld s, no NTP served: %s (its writer "
		       "tries it again)\n", "server",
		       (long long)((int64_t)time(NULL) - v->server_down_since),
		       v->server_why);
	else if (v->have_server)
		printf("%-12s %s, pid %ld, %lu start%s\n", "server",
		       v->server_state, v->server_pid, v->server_starts,
		       v->server_starts == 1 ? "" : "s");
	if (t->counter[0] != '\0')
		printf("%-12s %s%s\n", "counter", t->counter,
		       strcmp(t->counter, "raw") == 0
		           ? " (CLOCK_MONOTONIC_RAW: the host's slew is not in "
		             "it)"
		       : strcmp(t->counter, "system") == 0
		           ? " (CLOCK_MONOTONIC)"
		           : "");
	iso_or(buf, sizeof(buf), v->table_expires, "unknown");
	printf("%-12s %s, hash %s, expires %s%s\n", "leap table",
	       v->table_source[0] != '\0' ? v->table_source : "?",
	       hash_name(v->table_hash), buf,
	       v->from_page ? " (the writer's)" : "");
	if (v->table_note[0] != '\0')
		printf("%-12s %s\n", "table note", v->table_note);
	printf("%-12s %s\n", "smear",
	       v->smear[0] != '\0' ? v->smear : "none (UTC_SLS is UTC)");
	printf("%-12s %s%s\n", "host leap",
	       v->host_leap[0] != '\0' ? v->host_leap : "kernel",
	       v->host_hold_ns > 0 ? ", the host not a reference now (held)"
	                           : "");
	if (v->host_detected[0] != '\0')
		printf("%-12s host looks like %s; declare it with --host-leap "
		       "%s (leapclockd), LEAPCLOCK_HOST_LEAP=%s (in-process)\n",
		       "", v->host_detected, v->host_detected, v->host_detected);
	if (!v->have_host) {
		printf("%-12s not followed\n", "host");
		return;
	}
	printf("%-12s %s%s", "host", host_state_text(v->host_state),
	       v->from_page ? " (as the writer sees it)" : "");
	/* Not following (a rehearsal, the host unreadable): no offset is
	 * measured, so none is shown. */
	if (v->host_state != LC_HOST_NOT_FOLLOWED) {
		printf(": host CLOCK_REALTIME %+.6f s from leapclock's",
		       lc_cli_json_num((double)v->host_offset_ns / 1e9, 6));
		if (v->have_steer)
			printf(", steering %+.3f ppm",
			       lc_cli_json_num((double)v->host_steer_ppb / 1e3,
			                       3));
	}
	printf(", %" PRIu64 " host step%s followed\n", v->host_steps,
	       v->host_steps == 1 ? "" : "s");
	if (v->have_kernel) {
		printf("%-12s %s rule; kernel TAI %d s, %s, status ", "",
		       v->h.kernel_rule ? "kernel" : "threshold",
		       (int)v->h.kernel_tai, state_name(v->h.kernel_state));
		print_bits(stdout, v->h.kernel_status, 0);
		printf("; %d leap%s applied here the host has not\n",
		       v->h.leaps_behind, v->h.leaps_behind == 1 ||
		                                  v->h.leaps_behind == -1
		                          ? "" : "s");
	} else {
		printf("%-12s kernel facts and leaps behind: not on the page\n",
		       "");
	}
}

/* A view of either adjtimex answer: struct timex and struct lc_timex name
 * these fields alike. */
#define VIEW_FROM(v, tx)                                                 \
	do {                                                             \
		(v)->status = (tx).status;                               \
		(v)->offset = (tx).offset;                               \
		(v)->freq = (tx).freq;                                   \
		(v)->maxerror = (tx).maxerror;                           \
		(v)->esterror = (tx).esterror;                           \
		(v)->constant = (tx).constant;                           \
		(v)->tick = (tx).tick;                                   \
		(v)->tai = (tx).tai;                                     \
		(v)->sec = (tx).time.tv_sec;                             \
		(v)->frac = (tx).time.tv_usec;                           \
	} while (0)

/* The host: modes = 0, a pure read (never any ADJ_* bit). */
static void read_host(struct view *k)
{
	struct timex ktx;

	memset(&ktx, 0, sizeof(ktx));
	ktx.modes = 0;
	memset(k, 0, sizeof(*k));
	k->rc = adjtimex(&ktx);
	VIEW_FROM(k, ktx);
}

/* leapclock's timekeeper, through the same read-only adjtimex. */
static void read_leapclock(lc_timekeeper *tk, struct view *l)
{
	struct lc_timex ltx;

	memset(&ltx, 0, sizeof(ltx));
	memset(l, 0, sizeof(*l));
	l->rc = lc_adjtimex_unprivileged(tk, &ltx);
	VIEW_FROM(l, ltx);
}

/* The host and leapclock side by side, then the timeline. */
static void print_text(const struct view *k, const struct view *l,
                       const struct tl_view *tv)
{
	char a[64], b[64], buf[200];
	FILE *m;
	/* a page carries the state, status and TAI offset, not the rest */
	int partial = tv->from_page;
#define ROW_L(what, fmt_a, fmt_b)                                        \
	do {                                                             \
		fmt_a;                                                   \
		if (partial)                                             \
			snprintf(b, sizeof(b), "unknown (not on the page)"); \
		else                                                     \
			fmt_b;                                           \
		row(what, a, b);                                         \
	} while (0)

	row("", "host kernel", "leapclock");
	row("state", k->rc >= 0 ? state_name(k->rc) : "error",
	    l->rc >= 0 ? state_name(l->rc) : "error");
	printf("%-12s ", "status");
	m = fmemopen(buf, sizeof(buf), "w");
	if (m) {
		print_bits(m, k->status, 0);
		fclose(m);
		printf("%-28s ", buf);
	}
	print_bits(stdout, l->status, 0);
	printf("\n");
	ROW_L("frequency",
	      snprintf(a, sizeof(a), "%.3f ppm", (double)k->freq / 65536.0),
	      snprintf(b, sizeof(b), "%.3f ppm", (double)l->freq / 65536.0));
	ROW_L("offset",
	      snprintf(a, sizeof(a), "%" PRId64 " %s", k->offset,
	               (k->status & LC_STA_NANO) ? "ns" : "us"),
	      snprintf(b, sizeof(b), "%" PRId64 " %s", l->offset,
	               (l->status & LC_STA_NANO) ? "ns" : "us"));
	ROW_L("maxerror", snprintf(a, sizeof(a), "%" PRId64 " us", k->maxerror),
	      snprintf(b, sizeof(b), "%" PRId64 " us", l->maxerror));
	ROW_L("esterror", snprintf(a, sizeof(a), "%" PRId64 " us", k->esterror),
	      snprintf(b, sizeof(b), "%" PRId64 " us", l->esterror));
	ROW_L("constant", snprintf(a, sizeof(a), "%" PRId64, k->constant),
	      snprintf(b, sizeof(b), "%" PRId64, l->constant));
	ROW_L("tick", snprintf(a, sizeof(a), "%" PRId64 " us", k->tick),
	      snprintf(b, sizeof(b), "%" PRId64 " us", l->tick));
#undef ROW_L
	snprintf(a, sizeof(a), "%d s%s", k->tai,
	         k->tai == 0 ? " (not set)" : "");
	snprintf(b, sizeof(b), "%d s", l->tai);
	row("TAI-UTC", a, b);
	print_timeline_text(tv);
}

/* ---- the live view (--watch) ---------------------------------------------- */

static volatile sig_atomic_t watch_stop;

static void on_stop(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* "3 d 04:05:06" from seconds */
static void fmt_span(int64_t s, char *buf, size_t n)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, n, "%" PRId64 " d %02d:%02d:%02d", s / 86400,
		         (int)(s / 3600 % 24), (int)(s / 60 % 60), (int)(s % 60));
	else
		snprintf(buf, n, "%02d:%02d:%02d", (int)(s / 3600),
		         (int)(s / 60 % 60), (int)(s % 60));
}

struct served_prev {
	int have;
	int64_t mono_ns;
	struct lc_cli_served s;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void print_served(const char *path, struct served_prev *prev)
{
	static struct lc_cli_served now;
	int64_t t = mono_ns();
	double dt;

	if (path == NULL)
		return;
	if (lc_cli_served_read(path, &now) != 0) {
		printf("%-12s no stats: %s\n", "served", now.why);
		prev->have = 0;
		return;
	}
	dt = prev->have ? (double)(t - prev->mono_ns) / 1e9 : 0;
	printf("%-12s leapclockd pid %" PRId64 "%s%s, counters from %" PRId64
	       " s ago\n",
	       "served", now.pid, now.alive ? "" : ", stale: ",
	       now.alive ? "" : now.why, (int64_t)time(NULL) - now.updated);
	printf("%-12s %-24s %-14s %10s %9s %9s %9s  %s\n", "", "address",
	       "mode", "requests", "req/s", "replies/s", "limited", "refid");
	for (int i = 0; i < now.n; i++) {
		const struct lc_cli_served_row *r = &now.rows[i], *p = NULL;
		char rq[32] = "-", rp[32] = "-", refid[128];

		for (int k = 0; prev->have && k < prev->s.n; k++)
			if (strcmp(prev->s.rows[k].addr, r->addr) == 0)
				p = &prev->s.rows[k];
		if (p != NULL && dt > 0 && r->requests >= p->requests) {
			snprintf(rq, sizeof(rq), "%.1f",
			         (double)(r->requests - p->requests) / dt);
			snprintf(rp, sizeof(rp), "%.1f",
			         (double)(r->replies - p->replies) / dt);
		}
		lc_cli_refid_text(r->refid, refid, sizeof(refid));
		printf("%-12s %-24s %-14s %10" PRIu64 " %9s %9s %9" PRIu64
		       "  %s\n",
		       "", r->addr, r->mode, r->requests, rq, rp,
		       r->ratelimited, r->refid != 0 ? refid : "-");
	}
	prev->s = now;
	prev->mono_ns = t;
	prev->have = 1;
}

/* One refresh: the time, the timeline, the next leap and smear, served. */
static void print_watch_block(lc_timekeeper *tk, const char *stats,
                              struct served_prev *prev, int i, int count,
                              double interval)
{
	struct tl_view tv;
	struct timespec u, sls, u2;
	char iso[64], span[40];
	double off;
	int64_t when;
	int dir;

	lc_update(tk);
	get_view(tk, &tv);
	/* UTC_SLS between two UTC readings, against their middle */
	lc_gettime(tk, LC_CLOCK_UTC, &u);
	lc_gettime(tk, LC_CLOCK_UTC_SLS, &sls);
	lc_gettime(tk, LC_CLOCK_UTC, &u2);
	off = ((double)(sls.tv_sec - u.tv_sec) * 1e9 +
	       (double)(sls.tv_nsec - u.tv_nsec)) -
	      ((double)(u2.tv_sec - u.tv_sec) * 1e9 +
	       (double)(u2.tv_nsec - u.tv_nsec)) / 2;
	if (lc_iso8601_format(&u, 3, iso, sizeof(iso)) < 0)
		iso[0] = '\0';
	printf("leapclock status --watch  UTC %s  refresh %d", iso, i + 1);
	if (count > 0)
		printf(" of %d", count);
	printf(", every %g s\n", interval);
	print_timeline_text(&tv);
	if (lc_tk_next_leap(tk, &when, &dir) == 0) {
		struct timespec w = { (time_t)(when - 1),
		                      dir > 0 ? 1000000000L : 0 };

		if (lc_iso8601_format(&w, 0, iso, sizeof(iso)) < 0)
			iso[0] = '\0';
		fmt_span(when - 1 - (int64_t)u.tv_sec, span, sizeof(span));
		printf("%-12s %s second %s, in %s\n", "next leap",
		       dir > 0 ? "inserted" : "deleted", iso, span);
	} else {
		printf("%-12s none scheduled\n", "next leap");
	}
	printf("%-12s %+.6f s (smear offset = UTC_SLS - UTC)\n",
	       "smear now", lc_cli_json_num(off / 1e9, 6));
	/* the bound of UTC now and its parts (issue 27 item 4) */
	print_bounds(tk, 0);
	print_served(stats, prev);
}

/* Sleeps `s` seconds or until SIGINT/SIGTERM. */
static void watch_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (!watch_stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int watch(const char *stats, double interval, int count)
{
	static struct served_prev prev;
	struct sigaction sa;
	lc_timekeeper *tk = lc_default();
	int tty = isatty(STDOUT_FILENO);

	if (tk == NULL) {
		fprintf(stderr, "leapclock %s: cannot start the timekeeper\n",
		        CMD);
		return LC_EXIT_RUNTIME;
	}
	memset(&sa, 0, sizeof(sa));
	/* SA_RESTART: a write the signal interrupts is not a failed write
	 * (the view's writes are checked); the sleep still ends, nanosleep
	 * is never restarted (signal(7)) */
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tty)
		printf("\033[?25l"); /* the cursor hidden while we draw */
	for (int i = 0; !watch_stop && (count == 0 || i < count); i++) {
		if (i > 0)
			watch_sleep(interval);
		if (watch_stop)
			break;
		if (tty)
			printf("\033[H\033[2J"); /* home, clear */
		else if (i > 0)
			printf("\n");
		print_watch_block(tk, stats, &prev, i, count, interval);
		/* a view nobody can see: stop, saying why (exit 3) */
		if (lc_cli_close_out(CMD, stdout, NULL, "stdout") != 0)
			return LC_EXIT_RUNTIME;
	}
	if (tty)
		printf("\033[?25h"); /* the cursor back */
	fflush(stdout);
	return LC_EXIT_OK;
}

int lc_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", no_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "stats-file", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct view k, l;
	struct tl_view tv;
	struct lc_leaptable_search search;
	lc_timekeeper *tk;
	const char *stats = "/run/leapclockd/stats", *watch_opt = NULL;
	int json = 0, watching = 0, count = 0, rc, c;
	double interval = 1.0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:jwi:n:s:h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'j': json = 1; break;
		case 'w': watching = 1; break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || end == optarg || *end != '\0' ||
			    !(interval >= 0.1 && interval <= 3600))
				return lc_cli_usage_error(
				    CMD, "--interval '%s': seconds, 0.1..3600",
				    optarg);
			watch_opt = "--interval";
			break;
		case 'n': {
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end != '\0' || v < 1 ||
			    v > 1000000)
				return lc_cli_usage_error(
				    CMD, "--count '%s': 1..1000000", optarg);
			count = (int)v;
			watch_opt = "--count";
			break;
		}
		case 's':
			stats = strcmp(optarg, "none") == 0 ? NULL : optarg;
			watch_opt = "--stats-file";
			break;
		case 'h': lc_cmd_status_usage(stdout); return LC_EXIT_OK;
		case ':':
			return lc_cli_usage_error(CMD, "%s needs a value",
			                          argv[optind - 1]);
		default:
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	if (watching && json)
		return lc_cli_usage_error(CMD, "--watch is for reading: "
		                          "--json prints one object (run it "
		                          "again to refresh)");
	if (!watching && watch_opt != NULL)
		return lc_cli_usage_error(CMD, "%s applies to --watch only",
		                          watch_opt);
	read_host(&k);
	/* A table named by $LEAPCLOCK_LEAPFILE that cannot be used is an
	 * error here too (lc_default() would keep the built-in one). */
	rc = lc_cli_check_system_table(CMD, &search);
	if (rc != 0)
		return rc;
	if (watching)
		return watch(stats, interval, count);
	tk = lc_default();
	if (tk == NULL) {
		fprintf(stderr, "leapclock %s: cannot start the timekeeper\n",
		        CMD);
		return LC_EXIT_RUNTIME;
	}
	lc_update(tk);
	read_leapclock(tk, &l);
	get_view(tk, &tv);
	/* what the search took and skipped, when it is the table in use */
	if (!tv.from_page)
		lc_cli_say_search(CMD, &search);
	if (json) {
		printf("{");
		print_json("host", &k, 0);
		printf(",");
		print_json("leapclock", &l, tv.from_page);
		print_timeline_json(&tv);
		print_following_json(&tv);
		print_bounds(tk, 1);
		printf("}\n");
	} else {
		print_text(&k, &l, &tv);
		print_bounds(tk, 0);
	}
	return LC_EXIT_OK;
}
