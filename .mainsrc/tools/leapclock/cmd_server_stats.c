/*
 * cmd_server_stats.c - `leapclock server-stats`: what leapclockd is doing.
 *
 * Three views:
 *  - the counters that leapclockd writes to its stats file (default
 *    /run/leapclockd/stats, once a second and on SIGUSR1);
 *  - --refid ID: decodes a reference id: a 254.x.y.z smear id (NTPsec's
 *    format, which leapclockd uses) to its offset in seconds, a
 *    127.127.1.255 (chrony's smoothing id), or a 4-character code;
 *  - --query ADDR[:PORT]: sends NTP client requests to a server and decodes
 *    each answer (leap indicator, stratum, refid with the smear offset,
 *    timestamps, offset and delay against this host's CLOCK_REALTIME).
 *
 * The packet code is leapclockd's own (tools/leapclockd/ntp_packet.c).
 */
#include "cli.h"

#include "internal.h"

#include "../leapclockd/ntp_packet.c"

#include <arpa/inet.h>
#include <netdb.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CMD "server-stats"
#define DEFAULT_STATS "/run/leapclockd/stats"

const char lc_cmd_server_stats_summary[] =
	"leapclockd's counters; decode a smear refid; query an NTP server";

void lc_cmd_server_stats_usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock server-stats [--file PATH] [--json]\n"
	        "       leapclock server-stats --refid ID\n"
	        "       leapclock server-stats --query HOST[:PORT] [--count N] [--interval S] [--json]\n"
	        "\n"
	        "Without --refid or --query, prints the counters leapclockd writes to its\n"
	        "stats file (default " DEFAULT_STATS "; leapclockd --stats-file), one row\n"
	        "per listening address: datagrams received, client requests, replies,\n"
	        "malformed, control (mode 6/7), other modes, rate-limited, RATE kisses\n"
	        "sent, send errors, and the last leap indicator and reference id served;\n"
	        "with several addresses, a subtotal per mode and a total. A file whose\n"
	        "daemon is no longer running is reported as stale (exit status 1).\n"
	        "\n"
	        "--refid ID decodes a reference id given as a.b.c.d, 0xHEX or up to four\n"
	        "characters: 254.x.y.z is a leap smear in progress (NTPsec's format: a\n"
	        "signed fixed-point offset with 22 fraction bits, served time minus\n"
	        "unsmeared time); 127.127.1.255 is chrony smoothing its time.\n"
	        "\n"
	        "--query sends N (default 1) NTPv4 client requests to HOST (a name, IPv4, or IPv6\n"
	        "in brackets; port 123 by default), S seconds apart (default 1; 0: back\n"
	        "to back), and prints each answer with its offset and delay against this\n"
	        "host's CLOCK_REALTIME. A kiss-o'-death carries no time: RATE makes it\n"
	        "back off (the interval doubles, to at least the kiss's poll), DENY or\n"
	        "RSTR stops it. Exit status 1 if any request got no time (no answer\n"
	        "within a second, or a kiss).\n");
}

/* ---- reference ids ------------------------------------------------------- */

/* A sentence about a refid, for humans. */
static void describe_refid(uint32_t refid, unsigned stratum, char *buf,
                           size_t size)
{
	int64_t ns;
	char txt[5];

	if (ld_ntp_smear_refid_decode(refid, &ns) == 0) {
		snprintf(buf, size,
		         "254.%u.%u.%u: leap smear in progress, offset %s%" PRId64
		         ".%09" PRId64 " s (UTC_SLS - UTC)",
		         (refid >> 16) & 255, (refid >> 8) & 255, refid & 255,
		         ns < 0 ? "-" : "+", (ns < 0 ? -ns : ns) / 1000000000,
		         (ns < 0 ? -ns : ns) % 1000000000);
		return;
	}
	if (refid == UINT32_C(0x7f7f01ff)) {
		snprintf(buf, size,
		         "127.127.1.255: chrony smoothing its time (offset not encoded)");
		return;
	}
	for (int i = 0; i < 4; i++) {
		unsigned char ch = (unsigned char)(refid >> (24 - 8 * i));
		txt[i] = (char)ch;
		if (ch != 0 && (ch < 0x20 || ch > 0x7e))
			txt[0] = '\0';
	}
	txt[4] = '\0';
	if (txt[0] != '\0' && (stratum <= 1 || refid == LD_KISS_RATE)) {
		snprintf(buf, size, "%s%s", txt,
		         stratum == 0 ? " (kiss code)" : "");
		return;
	}
	snprintf(buf, size, "%u.%u.%u.%u", refid >> 24, (refid >> 16) & 255,
	         (refid >> 8) & 255, refid & 255);
}

static int parse_refid_arg(const char *s, uint32_t *out)
{
	struct in_addr a;
	char *end;

	if (inet_pton(AF_INET, s, &a) == 1) {
		*out = ntohl(a.s_addr);
		return 0;
	}
	if (strncmp(s, "0x", 2) == 0 || strncmp(s, "0X", 2) == 0) {
		unsigned long long v;
		errno = 0;
		v = strtoull(s + 2, &end, 16);
		if (errno || *end != '\0' || end == s + 2 || v > 0xffffffffULL)
			return -1;
		*out = (uint32_t)v;
		return 0;
	}
	if (*s == '\0' || strlen(s) > 4)
		return -1;
	*out = 0;
	for (size_t i = 0; i < 4; i++)
		*out |= (uint32_t)(unsigned char)(i < strlen(s) ? s[i] : 0)
		        << (24 - 8 * i);
	return 0;
}

/* ---- the stats file -------------------------------------------------------- */

/* The counters that add up come first (NSUM of them: the main table's
 * nine, then the authentication and interleaved ones of issue 14, which a
 * file from an older leapclockd lacks: read as 0), then li and refid. */
static const char *const counter_names[] = {
	"received", "requests", "replies", "malformed", "control",
	"other_mode", "ratelimited", "kod", "send_errors",
	"interleaved", "tx_kernel", "auth_ok", "auth_fail", "li", "refid",
};
#define NCOUNTERS (sizeof(counter_names) / sizeof(counter_names[0]))
#define NSUM 13              /* the counters that add up */
#define C_INTERLEAVED 9
#define C_LI NSUM
#define C_REFID (NSUM + 1)

/* The start time of process `pid` (field 22 of /proc/PID/stat: clock
 * ticks after boot) into *ticks; -1 if unreadable. */
static int proc_start_ticks(int64_t pid, unsigned long long *ticks)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name (field 2) is in parentheses and may hold any
	 * character: count fields from the last ')' */
	p = strrchr(buf, ')');
	if (p == NULL)
		return -1;
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -1;
	*ticks = strtoull(p + 1, NULL, 10);
	return 0;
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)size, f) != NULL)
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Whether the daemon that wrote the file still runs: 1, or 0 with the
 * reason in why. Its pid must exist and, where the file says, be the same
 * process (its start time) on the same boot, not a later one that reuses
 * the pid. */
static int daemon_alive(int64_t pid, const char *pid_start, const char *boot,
                        char *why, size_t size)
{
	char now_boot[64];
	unsigned long long ticks;

	if (pid <= 0 || pid > INT32_MAX) {
		snprintf(why, size, "the file names no pid");
		return 0;
	}
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM) {
		snprintf(why, size, "leapclockd pid %" PRId64 " is not running", pid);
		return 0;
	}
	read_boot_id(now_boot, sizeof(now_boot));
	if (boot[0] != '\0' && now_boot[0] != '\0' && strcmp(boot, now_boot) != 0) {
		snprintf(why, size, "written before this boot (pid %" PRId64 ")", pid);
		return 0;
	}
	if (pid_start[0] != '\0' && proc_start_ticks(pid, &ticks) == 0 &&
	    strtoull(pid_start, NULL, 10) != ticks) {
		snprintf(why, size,
		         "leapclockd pid %" PRId64 " is not running (the pid is "
		         "another process's now)", pid);
		return 0;
	}
	return 1;
}

static void print_sum_row(const char *label, const char *mode,
                          const uint64_t *sum)
{
	printf("%-24s %-14s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
	       " %7" PRIu64 " %7" PRIu64 " %9" PRIu64 " %7" PRIu64
	       " %6" PRIu64 "\n",
	       label, mode, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5],
	       sum[6], sum[7], sum[8]);
}

static void json_sums(const uint64_t *sum)
{
	for (size_t k = 0; k < NSUM; k++)
		printf("%s\"%s\":%" PRIu64, k ? "," : "", counter_names[k], sum[k]);
}

/* A stats file as read, and its sums. */
struct stats {
	int64_t pid, updated, started;
	char leaptable[512], pretend[128];
	char pid_start[32], boot[64], why[160];
	int nrows, alive;
	struct stats_row {
		char addr[80], mode[64];
		uint64_t v[NCOUNTERS];
	} rows[64];
	/* per mode, in the order of first appearance */
	struct mode_sum {
		const char *mode;
		int n;
		uint64_t v[NSUM];
	} modes[64];
	int nmodes;
	uint64_t total[NSUM];
};

/* "listen ADDR MODE name=value..." into the next row. */
static void stats_listen(struct stats *st, char *rest)
{
	struct stats_row *r = &st->rows[st->nrows];
	char *save = NULL, *tok;
	int field = 0;

	memset(r, 0, sizeof(*r));
	for (tok = strtok_r(rest, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save), field++) {
		char *eq = strchr(tok, '=');
		if (field == 0) {
			snprintf(r->addr, sizeof(r->addr), "%s", tok);
			continue;
		}
		if (field == 1) {
			snprintf(r->mode, sizeof(r->mode), "%s", tok);
			continue;
		}
		if (eq == NULL)
			continue;
		*eq = '\0';
		for (size_t k = 0; k < NCOUNTERS; k++)
			if (strcmp(tok, counter_names[k]) == 0)
				r->v[k] = strtoull(eq + 1, NULL, 0);
	}
	st->nrows++;
}

/* Reads the file; 0, or the exit status (message printed unless
 * stats_quiet: status --watch says it in its block). */
static int stats_quiet;
static int stats_read(const char *path, struct stats *st)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int ok = 0;

	snprintf(st->leaptable, sizeof(st->leaptable), "?");
	snprintf(st->pretend, sizeof(st->pretend), "-");
	if (f == NULL && stats_quiet)
		return LC_EXIT_RUNTIME;
	if (f == NULL) {
		fprintf(stderr, "leapclock %s: %s: %s (is leapclockd running? "
		        "see its --stats-file)\n", CMD, path, strerror(errno));
		return LC_EXIT_RUNTIME;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "leapclockd-stats ", 17) == 0)
			ok = 1;
		else if (strncmp(line, "pid ", 4) == 0)
			st->pid = strtoll(line + 4, NULL, 10);
		else if (strncmp(line, "pid-start ", 10) == 0)
			snprintf(st->pid_start, sizeof(st->pid_start), "%.30s",
			         line + 10);
		else if (strncmp(line, "boot-id ", 8) == 0)
			snprintf(st->boot, sizeof(st->boot), "%.60s", line + 8);
		else if (strncmp(line, "updated ", 8) == 0)
			st->updated = strtoll(line + 8, NULL, 10);
		else if (strncmp(line, "started ", 8) == 0)
			st->started = strtoll(line + 8, NULL, 10);
		else if (strncmp(line, "leaptable ", 10) == 0)
			snprintf(st->leaptable, sizeof(st->leaptable), "%.500s",
			         line + 10);
		else if (strncmp(line, "pretend ", 8) == 0)
			snprintf(st->pretend, sizeof(st->pretend), "%.100s",
			         line + 8);
		else if (strncmp(line, "listen ", 7) == 0 && st->nrows < 64)
			stats_listen(st, line + 7);
	}
	fclose(f);
	if (!ok && stats_quiet)
		return LC_EXIT_RUNTIME;
	if (!ok) {
		fprintf(stderr, "leapclock %s: %s is not a leapclockd stats file\n",
		        CMD, path);
		return LC_EXIT_RUNTIME;
	}
	return 0;
}

/* The subtotal of each mode and the total. */
static void stats_sum(struct stats *st)
{
	for (int i = 0; i < st->nrows; i++) {
		struct mode_sum *m = NULL;

		for (int k = 0; k < st->nmodes; k++)
			if (strcmp(st->modes[k].mode, st->rows[i].mode) == 0)
				m = &st->modes[k];
		if (m == NULL) {
			m = &st->modes[st->nmodes++];
			memset(m, 0, sizeof(*m));
			m->mode = st->rows[i].mode;
		}
		m->n++;
		for (size_t c = 0; c < NSUM; c++) {
			m->v[c] += st->rows[i].v[c];
			st->total[c] += st->rows[i].v[c];
		}
	}
}

static void stats_json(const struct stats *st)
{
	printf("{\"pid\":%" PRId64 ",\"running\":%s,\"started\":%" PRId64
	       ",\"updated\":%" PRId64 ",\"leaptable\":",
	       st->pid, st->alive ? "true" : "false", st->started,
	       st->updated);
	lc_cli_json_str(stdout, st->leaptable);
	/* null, not the file's "-", when not pretending */
	printf(",\"pretend\":");
	if (strcmp(st->pretend, "-") == 0)
		printf("null");
	else
		lc_cli_json_str(stdout, st->pretend);
	if (!st->alive) {
		printf(",\"stale\":");
		lc_cli_json_str(stdout, st->why);
	}
	printf(",\"listen\":[");
	for (int i = 0; i < st->nrows; i++) {
		const struct stats_row *r = &st->rows[i];
		int64_t ns;
		printf("%s{\"address\":", i ? "," : "");
		lc_cli_json_str(stdout, r->addr);
		printf(",\"mode\":");
		lc_cli_json_str(stdout, r->mode);
		/* the refid as in --query --json: "0x%08x" */
		for (size_t k = 0; k < C_REFID; k++)
			printf(",\"%s\":%" PRIu64, counter_names[k], r->v[k]);
		printf(",\"refid\":\"0x%08" PRIx32 "\"",
		       (uint32_t)r->v[C_REFID]);
		if (ld_ntp_smear_refid_decode((uint32_t)r->v[C_REFID], &ns) == 0)
			printf(",\"smear_offset_ns\":%" PRId64, ns);
		printf("}");
	}
	printf("],\"modes\":[");
	for (int k = 0; k < st->nmodes; k++) {
		printf("%s{\"mode\":", k ? "," : "");
		lc_cli_json_str(stdout, st->modes[k].mode);
		printf(",\"addresses\":%d,", st->modes[k].n);
		json_sums(st->modes[k].v);
		printf("}");
	}
	printf("],\"total\":{");
	json_sums(st->total);
	printf("}}\n");
}

/* The interleaved and authentication counters, as a second table, when
 * any is not 0 (a server without keys, NTS or xleave clients has none). */
static void stats_text_more(const struct stats *st)
{
	int any = 0;

	for (size_t k = C_INTERLEAVED; k < NSUM; k++)
		any |= st->total[k] != 0;
	if (!any)
		return;
	printf("\n%-24s %-14s %11s %9s %9s %9s\n", "address", "mode",
	       "interleaved", "tx_kernel", "auth_ok", "auth_fail");
	for (int i = 0; i < st->nrows; i++) {
		const uint64_t *v = st->rows[i].v + C_INTERLEAVED;

		printf("%-24s %-14s %11" PRIu64 " %9" PRIu64 " %9" PRIu64
		       " %9" PRIu64 "\n", st->rows[i].addr, st->rows[i].mode,
		       v[0], v[1], v[2], v[3]);
	}
}

static void stats_text(const struct stats *st)
{
	int64_t ago = (int64_t)time(NULL) - st->updated;

	if (st->alive)
		printf("leapclockd pid %" PRId64 ", up %" PRId64 " s, counters from %" PRId64
		       " s ago; leap table %s%s%s\n",
		       st->pid, st->updated - st->started, ago, st->leaptable,
		       strcmp(st->pretend, "-") ? "; pretending from " : "",
		       strcmp(st->pretend, "-") ? st->pretend : "");
	else
		printf("STALE: %s; counters from %" PRId64 " s ago, when it had been "
		       "up %" PRId64 " s; leap table %s\n", st->why, ago,
		       st->updated - st->started, st->leaptable);
	printf("%-24s %-14s %9s %9s %9s %9s %7s %7s %9s %7s %6s %2s  %s\n",
	       "address", "mode", "received", "requests", "replies",
	       "malformed", "control", "other", "ratelimit", "kod", "errors",
	       "li", "refid");
	for (int i = 0; i < st->nrows; i++) {
		const struct stats_row *r = &st->rows[i];
		char desc[128];
		describe_refid((uint32_t)r->v[C_REFID], 1, desc, sizeof(desc));
		printf("%-24s %-14s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
		       " %7" PRIu64 " %7" PRIu64 " %9" PRIu64 " %7" PRIu64
		       " %6" PRIu64 " %2" PRIu64 "  %s\n",
		       r->addr, r->mode, r->v[0], r->v[1], r->v[2], r->v[3],
		       r->v[4], r->v[5], r->v[6], r->v[7], r->v[8], r->v[C_LI],
		       r->v[1] ? desc : "-");
	}
	/* With several addresses: a subtotal for every mode (so that the
	 * subtotals add up to the total), then the total. */
	if (st->nrows >= 2) {
		for (int k = 0; k < st->nmodes; k++)
			print_sum_row("(mode subtotal)", st->modes[k].mode,
			              st->modes[k].v);
		print_sum_row("(total)", "all", st->total);
	}
	stats_text_more(st);
}

static int show_stats(const char *path, int json)
{
	static struct stats st;
	int rc;

	memset(&st, 0, sizeof(st));
	rc = stats_read(path, &st);
	if (rc != 0)
		return rc;
	st.alive = daemon_alive(st.pid, st.pid_start, st.boot, st.why,
	                        sizeof(st.why));
	if (!st.alive)
		fprintf(stderr, "leapclock %s: %s is stale: %s; its counters are "
		        "from %" PRId64 " s ago\n", CMD, path, st.why,
		        (int64_t)time(NULL) - st.updated);
	stats_sum(&st);
	if (json)
		stats_json(&st);
	else
		stats_text(&st);
	return st.alive ? LC_EXIT_OK : LC_EXIT_FAIL;
}

int lc_cli_served_read(const char *path, struct lc_cli_served *out)
{
	static struct stats st;
	int rc;

	memset(&st, 0, sizeof(st));
	memset(out, 0, sizeof(*out));
	stats_quiet = 1;
	rc = stats_read(path, &st);
	stats_quiet = 0;
	if (rc != 0) {
		FILE *f = fopen(path, "r");

		snprintf(out->why, sizeof(out->why), "%s: %s", path,
		         f == NULL ? strerror(errno)
		                   : "not a leapclockd stats file");
		if (f != NULL)
			fclose(f);
		return -1;
	}
	out->alive = daemon_alive(st.pid, st.pid_start, st.boot, out->why,
	                          sizeof(out->why));
	out->pid = st.pid;
	out->updated = st.updated;
	for (int i = 0; i < st.nrows && i < LC_CLI_SERVED_MAX; i++) {
		struct lc_cli_served_row *r = &out->rows[i];

		snprintf(r->addr, sizeof(r->addr), "%s", st.rows[i].addr);
		snprintf(r->mode, sizeof(r->mode), "%s", st.rows[i].mode);
		r->requests = st.rows[i].v[1];
		r->replies = st.rows[i].v[2];
		r->ratelimited = st.rows[i].v[6];
		r->li = (unsigned)st.rows[i].v[C_LI];
		r->refid = (uint32_t)st.rows[i].v[C_REFID];
		out->n++;
	}
	return 0;
}

void lc_cli_refid_text(uint32_t refid, char *buf, size_t size)
{
	describe_refid(refid, 1, buf, size);
}

/* ---- querying a server ----------------------------------------------------- */

static int parse_server(const char *s, struct sockaddr_storage *ss,
                        socklen_t *len)
{
	char host[80];
	const char *port_s = NULL;
	unsigned long port = 123;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (close == NULL || (size_t)(close - s - 1) >= sizeof(host))
			return -1;
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		if (close[1] == ':')
			port_s = close + 2;
		else if (close[1] != '\0')
			return -1;
	} else {
		const char *colon = strchr(s, ':');
		size_t n = colon && !strchr(colon + 1, ':') ? (size_t)(colon - s)
		                                            : strlen(s);
		if (n >= sizeof(host))
			return -1;
		memcpy(host, s, n);
		host[n] = '\0';
		if (n < strlen(s))
			port_s = s + n + 1;
	}
	if (port_s != NULL) {
		char *end;
		port = strtoul(port_s, &end, 10);
		if (*port_s == '\0' || *end != '\0' || port == 0 || port > 65535)
			return -1;
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
	/* A host name, as ntpdig and chronyc take: its first address. */
	if (host[0] != '\0') {
		struct addrinfo hints, *res = NULL;
		char port_txt[8];
		int rc;

		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_DGRAM;
		snprintf(port_txt, sizeof(port_txt), "%lu", port);
		rc = getaddrinfo(host, port_txt, &hints, &res);
		if (rc != 0 || res == NULL ||
		    res->ai_addrlen > sizeof(*ss)) {
			fprintf(stderr, "leapclock %s: --query '%s': %s\n", CMD,
			        s, rc != 0 ? gai_strerror(rc) : "no address");
			if (res != NULL)
				freeaddrinfo(res);
			return -2;
		}
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		*len = (socklen_t)res->ai_addrlen;
		freeaddrinfo(res);
		return 0;
	}
	return -1;
}

static int64_t host_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return lc__ts_to_ns(&ts);
}

static void fmt_ntp(uint64_t ntp, int64_t pivot_sec, char *buf, size_t size)
{
	struct timespec ts;

	if (ntp == 0) {
		snprintf(buf, size, "0");
		return;
	}
	ts = lc__ns_to_ts(lc_unix_ns_from_ntp(ntp, pivot_sec));
	if (lc_iso8601_format(&ts, 9, buf, size) < 0)
		snprintf(buf, size, "0x%016" PRIx64, ntp);
}

static const char *li_name(unsigned li)
{
	static const char *const n[] = { "no-leap", "add-leap", "del-leap",
		                         "unsync" };
	return n[li & 3];
}

static int64_t mono_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

/* Sleeps until CLOCK_MONOTONIC reads `until_ns`. */
static void sleep_until(int64_t until_ns)
{
	struct timespec ts = lc__ns_to_ts(until_ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A kiss code as text ("RATE"), or "" if the refid is not 4 letters. */
static void kiss_code(uint32_t refid, char code[5])
{
	for (int i = 0; i < 4; i++) {
		unsigned char ch = (unsigned char)(refid >> (24 - 8 * i));
		code[i] = (ch >= 0x20 && ch <= 0x7e) ? (char)ch : '?';
	}
	code[4] = '\0';
}

/* Longest back-off a RATE kiss makes us wait (2^17 s is NTP's maximum
 * poll; a day is plenty for a command-line tool). */
#define MAX_BACKOFF_NS (INT64_C(86400) * LC__NS)

/* A UDP socket connected to the server; 0 or the exit status. */
static int query_open(const char *server, int *fdp)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	int rc = parse_server(server, &ss, &sl);

	if (rc == -2)
		return LC_EXIT_RUNTIME; /* the name did not resolve: said */
	if (rc != 0)
		return lc_cli_usage_error(CMD, "--query '%s': expected HOST[:PORT] "
		                          "(a name or address; IPv6 as "
		                          "[ADDR]:PORT)", server);
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) != 0) {
		fprintf(stderr, "leapclock %s: %s: %s\n", CMD, server,
		        strerror(errno));
		if (fd >= 0)
			close(fd);
		return LC_EXIT_RUNTIME;
	}
	*fdp = fd;
	return 0;
}

/* One exchange of a query. */
struct exchange {
	struct ld_ntp_packet rep;
	uint64_t tx;       /* our transmit timestamp, the reply's origin */
	int64_t t1, t4;    /* this host's REALTIME at send and receive */
	int64_t sent_mono; /* MONOTONIC at send */
};

/* Sends request i (a unique transmit timestamp: its low bits count the
 * requests; the poll is log2 of the interval, rounded up). 0, or -1 with
 * the error printed. */
static int query_send(int fd, int i, int64_t interval_ns, struct exchange *x)
{
	struct ld_ntp_packet req;
	uint8_t out[LD_NTP_HEADER_LEN];

	memset(&req, 0, sizeof(req));
	req.version = 4;
	req.mode = LD_MODE_CLIENT;
	req.poll = 0;
	while (req.poll < 17 && (LC__NS << req.poll) < interval_ns)
		req.poll++;
	x->sent_mono = mono_now_ns();
	x->t1 = host_realtime_ns();
	x->tx = (lc_ntp_from_unix_ns(x->t1) & ~UINT64_C(0xffff)) |
	        (uint64_t)(i & 0xffff);
	req.tx_ts = x->tx;
	ld_ntp_encode(&req, out);
	if (send(fd, out, sizeof(out), 0) != (ssize_t)sizeof(out)) {
		fprintf(stderr, "leapclock %s: send: %s\n", CMD,
		        strerror(errno));
		return -1;
	}
	return 0;
}

/* Waits up to 1 s per packet for the answer to our request (anything
 * else is stale); its length, or -1. */
static ssize_t query_wait(int fd, struct exchange *x)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	uint8_t in[512];
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, 1000) <= 0)
			return -1;
		n = recv(fd, in, sizeof(in), 0);
		x->t4 = host_realtime_ns();
		if (n < 0)
			return -1;
		ld_ntp_parse(in, (size_t)n, &x->rep);
		if (n >= LD_NTP_HEADER_LEN && x->rep.org_ts == x->tx)
			return n;
	}
}

/* A kiss-o'-death (RFC 5905 section 7.4): no time in it, only a code.
 * RATE backs off (*interval_ns, *next_send); DENY and RSTR stop: returns
 * 1 then. */
static int on_kiss(const char *server, int json, const struct exchange *x,
                   int64_t *interval_ns, int64_t *next_send)
{
	const struct ld_ntp_packet *rep = &x->rep;
	char code[5];
	int stop = rep->refid == LD_REFID('D', 'E', 'N', 'Y') ||
	           rep->refid == LD_REFID('R', 'S', 'T', 'R');
	int rate = rep->refid == LD_KISS_RATE;
	int64_t backoff = 0;

	kiss_code(rep->refid, code);
	if (rate) {
		int p = rep->poll < 0 ? 0 : rep->poll > 17 ? 17 : rep->poll;
		int64_t kiss_ns = LC__NS << p;
		backoff = *interval_ns > MAX_BACKOFF_NS / 2 ? MAX_BACKOFF_NS
		                                            : 2 * *interval_ns;
		if (backoff < kiss_ns)
			backoff = kiss_ns;
		if (backoff > MAX_BACKOFF_NS)
			backoff = MAX_BACKOFF_NS;
		*interval_ns = backoff;
		*next_send = x->sent_mono + *interval_ns;
	}
	if (json) {
		printf("{\"server\":");
		lc_cli_json_str(stdout, server);
		printf(",\"kiss\":true,\"kiss_code\":\"%s\",\"li\":%u,"
		       "\"version\":%u,\"mode\":%u,\"stratum\":0,"
		       "\"poll\":%d,\"refid\":\"0x%08" PRIx32 "\"",
		       code, rep->li, rep->version, rep->mode, rep->poll,
		       rep->refid);
		if (rate)
			printf(",\"backoff_ns\":%" PRId64, backoff);
		if (stop)
			printf(",\"stopped\":true");
		printf("}\n");
	} else if (rate) {
		printf("%s: kiss-o'-death RATE (poll %d): backing off, "
		       "next request in %.3f s\n", server, rep->poll,
		       (double)backoff / 1e9);
	} else if (stop) {
		printf("%s: kiss-o'-death %s: the server refuses this "
		       "client; stopping\n", server, code);
	} else {
		printf("%s: kiss-o'-death %s: no time in this answer\n",
		       server, code);
	}
	fflush(stdout);
	return stop;
}

/* An answer with time: its header, and the offset and delay against this
 * host's clock (RFC 5905: offset = ((T2 - T1) + (T3 - T4)) / 2, delay =
 * (T4 - T1) - (T3 - T2)). */
static void print_reply(const char *server, int json, const struct exchange *x)
{
	const struct ld_ntp_packet *rep = &x->rep;
	int64_t pivot = x->t1 / LC__NS;
	int64_t t2 = lc_unix_ns_from_ntp(rep->rx_ts, pivot);
	int64_t t3 = lc_unix_ns_from_ntp(rep->tx_ts, pivot);
	int64_t offset = ((t2 - x->t1) + (t3 - x->t4)) / 2;
	int64_t delay = (x->t4 - x->t1) - (t3 - t2), sm;
	char desc[128], rx_s[64], tx_s[64], ref_s[64];

	describe_refid(rep->refid, rep->stratum, desc, sizeof(desc));
	fmt_ntp(rep->rx_ts, pivot, rx_s, sizeof(rx_s));
	fmt_ntp(rep->tx_ts, pivot, tx_s, sizeof(tx_s));
	fmt_ntp(rep->ref_ts, pivot, ref_s, sizeof(ref_s));
	if (json) {
		printf("{\"server\":");
		lc_cli_json_str(stdout, server);
		printf(",\"leap\":\"%s\",\"li\":%u,\"version\":%u,\"mode\":%u,"
		       "\"stratum\":%u,\"poll\":%d,\"precision\":%d,"
		       "\"root_delay_ns\":%" PRId64 ",\"root_dispersion_ns\":%" PRId64
		       ",\"refid\":\"0x%08" PRIx32 "\",\"kiss\":false",
		       li_name(rep->li), rep->li, rep->version, rep->mode,
		       rep->stratum, rep->poll, rep->precision,
		       ld_ntp_short_to_ns(rep->root_delay),
		       ld_ntp_short_to_ns(rep->root_dispersion), rep->refid);
		if (ld_ntp_smear_refid_decode(rep->refid, &sm) == 0)
			printf(",\"smear_offset_ns\":%" PRId64, sm);
		printf(",\"reference\":\"%s\",\"receive\":\"%s\",\"transmit\":\"%s\","
		       "\"offset_ns\":%" PRId64 ",\"delay_ns\":%" PRId64 "}\n",
		       ref_s, rx_s, tx_s, offset, delay);
	} else {
		printf("%s: %s, version %u, mode %u, stratum %u, poll %d, "
		       "precision %d\n", server, li_name(rep->li),
		       rep->version, rep->mode, rep->stratum, rep->poll,
		       rep->precision);
		printf("  refid %s\n", desc);
		printf("  reference %s, receive %s, transmit %s\n", ref_s,
		       rx_s, tx_s);
		printf("  offset %+.9f s, delay %.9f s (against this host's clock)\n",
		       (double)offset / 1e9, (double)delay / 1e9);
	}
	fflush(stdout);
}

static int query(const char *server, int count, int64_t interval_ns, int json)
{
	int fd = -1, failures = 0, rc;
	int64_t next_send;

	rc = query_open(server, &fd);
	if (rc != 0)
		return rc;
	next_send = mono_now_ns();
	for (int i = 0; i < count; i++) {
		struct exchange x;

		memset(&x, 0, sizeof(x));
		sleep_until(next_send);
		rc = query_send(fd, i, interval_ns, &x);
		next_send = x.sent_mono + interval_ns;
		if (rc < 0) {
			failures++;
			continue;
		}
		if (query_wait(fd, &x) < 0) {
			if (json) {
				printf("{\"server\":");
				lc_cli_json_str(stdout, server);
				printf(",\"timeout\":true}\n");
			} else {
				printf("%s: no answer within 1 s\n", server);
			}
			fflush(stdout);
			failures++;
			continue;
		}
		if (x.rep.stratum == 0) {
			failures++;
			if (on_kiss(server, json, &x, &interval_ns, &next_send))
				break;
			continue;
		}
		print_reply(server, json, &x);
	}
	close(fd);
	return failures ? LC_EXIT_FAIL : LC_EXIT_OK;
}

int lc_cmd_server_stats(int argc, char **argv)
{
	const char *file = DEFAULT_STATS, *refid_s = NULL, *server = NULL;
	const char *query_opt = NULL;
	int json = 0, count = 1, file_given = 0;
	int64_t interval_ns = LC__NS;

	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"file", required_argument, NULL, 'f'},
	    {"refid", required_argument, NULL, 'r'},
	    {"query", required_argument, NULL, 'q'},
	    {"count", required_argument, NULL, 'c'},
	    {"interval", required_argument, NULL, 'i'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	/* getopt_long as every subcommand: --opt VALUE, --opt=VALUE and
	 * unambiguous abbreviations; -f for --file */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:f:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'f':
			file = optarg;
			file_given = 1;
			break;
		case 'r':
			refid_s = optarg;
			break;
		case 'q':
			server = optarg;
			break;
		case 'c': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end != '\0' || v < 1 || v > 100000)
				return lc_cli_usage_error(CMD, "--count: 1..100000");
			count = (int)v;
			query_opt = "--count";
			break;
		}
		case 'i': {
			char *end;
			const char *v = optarg;
			double d;

			errno = 0;
			d = strtod(v, &end);
			if (errno || end == v || *end != '\0' || !(d >= 0.0) ||
			    d > 86400.0)
				return lc_cli_usage_error(CMD, "--interval '%s': "
				                          "seconds, 0..86400", v);
			interval_ns = (int64_t)(d * 1e9 + 0.5);
			query_opt = "--interval";
			break;
		}
		case ':':
			return lc_cli_usage_error(CMD, "option '%s' needs a value",
			                          argv[optind - 1]);
		default:
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unexpected argument '%s'",
		                          argv[optind]);
	/* One view per run: the others' options would be dropped. */
	if (refid_s != NULL && server != NULL)
		return lc_cli_usage_error(CMD, "--refid and --query are two "
		                          "views: give one");
	if (file_given && (refid_s != NULL || server != NULL))
		return lc_cli_usage_error(CMD, "--file names the stats file, "
		                          "not read with %s",
		                          refid_s != NULL ? "--refid" : "--query");
	if (query_opt != NULL && server == NULL)
		return lc_cli_usage_error(CMD, "%s applies to --query only",
		                          query_opt);
	if (refid_s != NULL) {
		uint32_t r;
		char desc[128];
		int64_t ns;

		if (parse_refid_arg(refid_s, &r) != 0)
			return lc_cli_usage_error(CMD, "--refid '%s': expected a.b.c.d, "
			                          "0xHEX or 1-4 characters", refid_s);
		if (json) {
			printf("{\"refid\":\"0x%08" PRIx32 "\"", r);
			if (ld_ntp_smear_refid_decode(r, &ns) == 0)
				printf(",\"smear_offset_ns\":%" PRId64, ns);
			printf("}\n");
		} else {
			describe_refid(r, 1, desc, sizeof(desc));
			printf("%s\n", desc);
		}
		return LC_EXIT_OK;
	}
	if (server != NULL)
		return query(server, count, interval_ns, json);
	return show_stats(file, json);
}
