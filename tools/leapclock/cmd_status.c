/*
 * cmd_status.c - `leapclock status`: the host kernel's NTP state, read with
 * adjtimex() and modes = 0 (read-only: no mode bit is ever set, so nothing
 * on the host changes), next to leapclock's own adjtimex state machine and
 * how the default timekeeper agrees with the host.
 */
#include "cli.h"

#include <inttypes.h>
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
	        "adjtimex state, and how leapclock's clock agrees with the host.\n\n"
	        "  --json   one object with members host, leapclock and following\n\n"
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

int lc_cmd_status(int argc, char **argv)
{
	struct timex ktx;
	struct lc_timex ltx;
	struct view k, l;
	struct lc_tk_host host;
	lc_timekeeper *tk;
	int json = 0, have_host;
	char a[64], b[64];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else
			return lc_cli_usage_error(CMD, "unknown argument '%s'",
			                          argv[i]);
	}
	/* The host: modes = 0, a pure read (never any ADJ_* bit). */
	memset(&ktx, 0, sizeof(ktx));
	ktx.modes = 0;
	memset(&k, 0, sizeof(k));
	k.rc = adjtimex(&ktx);
	k.status = ktx.status;
	k.offset = ktx.offset;
	k.freq = ktx.freq;
	k.maxerror = ktx.maxerror;
	k.esterror = ktx.esterror;
	k.constant = ktx.constant;
	k.tick = ktx.tick;
	k.tai = ktx.tai;
	k.sec = ktx.time.tv_sec;
	k.frac = ktx.time.tv_usec;

	tk = lc_default();
	if (tk == NULL) {
		fprintf(stderr, "leapclock %s: cannot start the timekeeper\n",
		        CMD);
		return LC_EXIT_RUNTIME;
	}
	lc_update(tk);
	memset(&ltx, 0, sizeof(ltx));
	memset(&l, 0, sizeof(l));
	l.rc = lc_adjtimex_unprivileged(tk, &ltx);
	l.status = ltx.status;
	l.offset = ltx.offset;
	l.freq = ltx.freq;
	l.maxerror = ltx.maxerror;
	l.esterror = ltx.esterror;
	l.constant = ltx.constant;
	l.tick = ltx.tick;
	l.tai = ltx.tai;
	l.sec = ltx.time.tv_sec;
	l.frac = ltx.time.tv_usec;
	have_host = lc_tk_host_status(tk, &host) == 0;

	if (json) {
		printf("{");
		print_json("host", &k);
		printf(",");
		print_json("leapclock", &l);
		if (have_host)
			printf(",\"following\":{\"state\":%d,\"offset_ns\":%" PRId64
			       ",\"steer_ppb\":%" PRId64 ",\"steps\":%" PRIu64 "}",
			       host.state, host.offset_ns, host.steer_ppb,
			       host.steps);
		printf("}\n");
		return LC_EXIT_OK;
	}
	row("", "host kernel", "leapclock");
	row("state", k.rc >= 0 ? state_name(k.rc) : "error",
	    l.rc >= 0 ? state_name(l.rc) : "error");
	printf("%-12s ", "status");
	{
		char buf[200];
		FILE *m = fmemopen(buf, sizeof(buf), "w");

		if (m) {
			print_bits(m, k.status, 0);
			fclose(m);
			printf("%-28s ", buf);
		}
		print_bits(stdout, l.status, 0);
		printf("\n");
	}
	snprintf(a, sizeof(a), "%.3f ppm", (double)k.freq / 65536.0);
	snprintf(b, sizeof(b), "%.3f ppm", (double)l.freq / 65536.0);
	row("frequency", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " %s", k.offset,
	         (k.status & LC_STA_NANO) ? "ns" : "us");
	snprintf(b, sizeof(b), "%" PRId64 " %s", l.offset,
	         (l.status & LC_STA_NANO) ? "ns" : "us");
	row("offset", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " us", k.maxerror);
	snprintf(b, sizeof(b), "%" PRId64 " us", l.maxerror);
	row("maxerror", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " us", k.esterror);
	snprintf(b, sizeof(b), "%" PRId64 " us", l.esterror);
	row("esterror", a, b);
	snprintf(a, sizeof(a), "%" PRId64, k.constant);
	snprintf(b, sizeof(b), "%" PRId64, l.constant);
	row("constant", a, b);
	snprintf(a, sizeof(a), "%" PRId64 " us", k.tick);
	snprintf(b, sizeof(b), "%" PRId64 " us", l.tick);
	row("tick", a, b);
	snprintf(a, sizeof(a), "%d s%s", k.tai, k.tai == 0 ? " (not set)" : "");
	snprintf(b, sizeof(b), "%d s", l.tai);
	row("TAI-UTC", a, b);
	if (have_host)
		printf("\nleapclock follows the host: %s, host CLOCK_REALTIME "
		       "%+.6f s from leapclock's, steering %+.3f ppm, %" PRIu64
		       " host steps followed\n",
		       host.state == LC_HOST_AGREES    ? "in agreement"
		       : host.state == LC_HOST_LEAP_OFF ? "host off by its leap handling"
		       : host.state == LC_HOST_STEPPED  ? "host was stepped"
		                                        : "not following",
		       (double)host.offset_ns / 1e9, (double)host.steer_ppb / 1e3,
		       host.steps);
	return LC_EXIT_OK;
}
