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

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

#define CMD "status"

const char lc_cmd_status_summary[] =
	"host kernel NTP state (read-only adjtimex) next to leapclock's own";

void lc_cmd_status_usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock status [--json]\n\n"
	        "Prints the host kernel's NTP state from a read-only adjtimex()\n"
	        "(modes = 0: nothing is changed) next to leapclock's own\n"
	        "adjtimex state; then which timeline leapclock reads (the host's\n"
	        "page published by leapclockd, or in-process, and why) and its\n"
	        "leap table, smear and host following.\n\n"
	        "  --json   one object with members host, leapclock, timeline and\n"
	        "           following\n\n"
	        "See leapclock-status(1).\n");
}

static const char *state_name(int st)
{
	static const char *const n[] = { "TIME_OK",  "TIME_INS",  "TIME_DEL",
	                                 "TIME_OOP", "TIME_WAIT", "TIME_ERROR" };

	return st >= 0 && st <= 5 ? n[st] : "?";
}

static const char *const status_bits[16] = {
	"PLL",       "PPSFREQ",   "PPSTIME",   "FLL",
	"INS",       "DEL",       "UNSYNC",    "FREQHOLD",
	"PPSSIGNAL", "PPSJITTER", "PPSWANDER", "PPSERROR",
	"CLOCKERR",  "NANO",      "MODE",      "CLK",
};

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
			fprintf(out, "%s\"%s\"", first ? "" : ",", status_bits[b]);
		else
			fprintf(out, "%s%s", first ? "" : "|", status_bits[b]);
		first = 0;
	}
	if (first && !json)
		fprintf(out, "0");
}

static void print_json(const char *name, const struct view *v)
{
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
	char table_note[160];
	char smear[48];           /* "" none */
	int have_host;            /* host state known */
	int host_state;
	int64_t host_offset_ns;
	int have_steer;
	int64_t host_steer_ppb;
	uint64_t host_steps;
	int have_kernel;          /* the lc_tk_host fields the page lacks */
	struct lc_tk_host h;
};

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
		snprintf(v->table_note, sizeof(v->table_note), "%s",
		         v->ti.table_note);
		snprintf(v->smear, sizeof(v->smear), "%s", v->ti.smear);
		v->have_host = 1;
		v->host_state = v->ti.host_state;
		v->host_offset_ns = v->ti.host_offset_ns;
		v->host_steps = v->ti.host_steps;
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
		snprintf(v->table_note, sizeof(v->table_note), "%s",
		         v->ti.table_note);
		snprintf(v->smear, sizeof(v->smear), "%s", v->ti.smear);
	} else {
		env_smear(v->smear, sizeof(v->smear));
	}
	if (lc_tk_host_status(tk, &v->h) == 0) {
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

static void print_timeline_json(const struct tl_view *v)
{
	const struct lc_timeline_info *t = &v->ti;
	int page = t->source == LC_TIMELINE_PAGE ||
	           t->source == LC_TIMELINE_FALLBACK;
	char buf[64];

	printf(",\"timeline\":{\"source\":\"%s\",\"path\":",
	       source_name(t->source));
	json_str_or_null(t->path);
	printf(",\"why\":");
	json_str_or_null(t->source == LC_TIMELINE_PAGE ? "" : t->why);
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
	if (!v->have_host) {
		printf(",\"following\":null");
		return;
	}
	printf(",\"following\":{\"from\":\"%s\",\"state\":\"%s\","
	       "\"offset_ns\":%" PRId64 ",\"steer_ppb\":",
	       v->from_page ? "page" : "process",
	       lc_cli_host_state_name(v->host_state), v->host_offset_ns);
	if (v->have_steer)
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
	char buf[64];

	printf("\n");
	switch (t->source) {
	case LC_TIMELINE_PAGE:
		printf("%-12s page %s\n", "timeline", t->path);
		break;
	case LC_TIMELINE_FALLBACK:
		printf("%-12s in-process, on from the page %s: %s\n",
		       "timeline", t->path, t->why);
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
	iso_or(buf, sizeof(buf), v->table_expires, "unknown");
	printf("%-12s %s, hash %s, expires %s%s\n", "leap table",
	       v->table_source[0] != '\0' ? v->table_source : "?",
	       hash_name(v->table_hash), buf,
	       v->from_page ? " (the writer's)" : "");
	if (v->table_note[0] != '\0')
		printf("%-12s %s\n", "table note", v->table_note);
	printf("%-12s %s\n", "smear",
	       v->smear[0] != '\0' ? v->smear : "none (UTC_SLS is UTC)");
	if (!v->have_host) {
		printf("%-12s not followed\n", "host");
		return;
	}
	printf("%-12s %s%s: host CLOCK_REALTIME %+.6f s from leapclock's",
	       "host", host_state_text(v->host_state),
	       v->from_page ? " (as the writer sees it)" : "",
	       lc_cli_json_num((double)v->host_offset_ns / 1e9, 6));
	if (v->have_steer)
		printf(", steering %+.3f ppm",
		       lc_cli_json_num((double)v->host_steer_ppb / 1e3, 3));
	printf(", %" PRIu64 " host steps followed\n", v->host_steps);
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
	snprintf(a, sizeof(a), "%.3f ppm", (double)k->freq / 65536.0);
	snprintf(b, sizeof(b), "%.3f ppm", (double)l->freq / 65536.0);
	row("frequency", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " %s", k->offset,
	         (k->status & LC_STA_NANO) ? "ns" : "us");
	snprintf(b, sizeof(b), "%" PRId64 " %s", l->offset,
	         (l->status & LC_STA_NANO) ? "ns" : "us");
	row("offset", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " us", k->maxerror);
	snprintf(b, sizeof(b), "%" PRId64 " us", l->maxerror);
	row("maxerror", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " us", k->esterror);
	snprintf(b, sizeof(b), "%" PRId64 " us", l->esterror);
	row("esterror", a, b);
	snprintf(a, sizeof(a), "%" PRId64, k->constant);
	snprintf(b, sizeof(b), "%" PRId64, l->constant);
	row("constant", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " us", k->tick);
	snprintf(b, sizeof(b), "%" PRId64 " us", l->tick);
	row("tick", a, b);
	snprintf(a, sizeof(a), "%d s%s", k->tai,
	         k->tai == 0 ? " (not set)" : "");
	snprintf(b, sizeof(b), "%d s", l->tai);
	row("TAI-UTC", a, b);
	print_timeline_text(tv);
}

int lc_cmd_status(int argc, char **argv)
{
	struct view k, l;
	struct tl_view tv;
	struct lc_leaptable_search search;
	lc_timekeeper *tk;
	int json = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else
			return lc_cli_usage_error(CMD, "unknown argument '%s'",
			                          argv[i]);
	}
	read_host(&k);
	/* A table named by $LEAPCLOCK_LEAPFILE that cannot be used is an
	 * error here too (lc_default() would keep the built-in one). */
	rc = lc_cli_check_system_table(CMD, &search);
	if (rc != 0)
		return rc;
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
	if (!tv.from_page) {
		char m[2048];

		if (lc_leaptable_search_format(&search, 0, "leapclock " CMD ": ",
		                               m, sizeof(m)) > 0)
			fputs(m, stderr);
	}
	if (json) {
		printf("{");
		print_json("host", &k);
		printf(",");
		print_json("leapclock", &l);
		print_timeline_json(&tv);
		print_following_json(&tv);
		printf("}\n");
	} else {
		print_text(&k, &l, &tv);
	}
	return LC_EXIT_OK;
}
