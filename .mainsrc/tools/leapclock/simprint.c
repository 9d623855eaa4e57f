/*
 * simprint.c - the simulator's summary as `leapclock simulate` and
 * `leapclock kernel-test` print it: a table row under its column names, or
 * one JSON object per run (simprint.h).
 */
#include "simprint.h"

#include "cli.h"

#include <inttypes.h>
#include <stdio.h>

static void fmt_ms(char *buf, size_t size, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.3f", (double)ns / 1e6);
}

static void fmt_count(char *buf, size_t size, int64_t n)
{
	if (n < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%" PRId64, n);
}

void lc_cli_sim_print_columns(FILE *f)
{
	fprintf(f, "%-14s %-12s %5s %9s %8s %8s %13s %9s %6s %8s\n", "model",
	        "tick", "early", "(max ms)", "late", "stale",
	        "back rt/utc/m/tai", "TAI err", "smear", "applied");
}

void lc_cli_sim_print_row(FILE *f, const struct lc__sim_result *r)
{
	char tick[24], maxe[24], late[24], stale[24], back[112], tai[24],
	    smear[24], appl[24], b[4][24];
	int64_t mono = r->backsteps[LC_CLOCK_MONOTONIC];

	if (r->hz > 0)
		snprintf(tick, sizeof(tick), "HZ=%d%s", r->hz,
		         r->nohz ? " NOHZ" : "");
	else
		snprintf(tick, sizeof(tick), "real"); /* kernel-test */
	if (!r->available) {
		fprintf(f, "%-14s %-12s  not available: %s\n", r->model, tick,
		        r->note);
		return;
	}
	if (r->backsteps[LC_CLOCK_MONOTONIC_RAW] > mono)
		mono = r->backsteps[LC_CLOCK_MONOTONIC_RAW];
	if (r->backsteps[LC_CLOCK_BOOTTIME] > mono)
		mono = r->backsteps[LC_CLOCK_BOOTTIME];
	fmt_ms(maxe, sizeof(maxe), r->early_fires ? r->max_early_ns : -1);
	fmt_ms(late, sizeof(late), r->max_late_ns);
	fmt_ms(stale, sizeof(stale), r->stale_read_ns);
	fmt_count(b[0], sizeof(b[0]), r->backsteps[LC_CLOCK_REALTIME]);
	fmt_count(b[1], sizeof(b[1]), r->backsteps[LC_CLOCK_UTC]);
	fmt_count(b[2], sizeof(b[2]), mono);
	fmt_count(b[3], sizeof(b[3]), r->backsteps[LC_CLOCK_TAI]);
	snprintf(back, sizeof(back), "%s/%s/%s/%s", b[0], b[1], b[2], b[3]);
	snprintf(tai, sizeof(tai), "%.3f%s", (double)r->max_tai_error_ns / 1e6,
	         r->tai_continuous ? "" : "!");
	snprintf(smear, sizeof(smear), "%.2f", r->max_smear_rate_ppm);
	fmt_ms(appl, sizeof(appl), r->leap_applied_after_ns);
	fprintf(f, "%-14s %-12s %5" PRId64 " %9s %8s %8s %13s %9s %6s %8s\n",
	        r->model, tick, r->early_fires, maxe, late, stale, back, tai,
	        smear, appl);
}

void lc_cli_sim_print_json(FILE *f, const struct lc__sim_result *r, int first)
{
	static const char *const names[LC_CLOCK_COUNT] = {
	    "monotonic_raw", "monotonic", "boottime", "tai",
	    "realtime",      "utc",       "utc_sls",
	};

	fprintf(f, "%s\n  {\"model\": ", first ? "" : ",");
	lc_cli_json_str(f, r->model);
	fprintf(f,
	        ", \"scenario\": \"%s\", \"hz\": %d, \"nohz\": %s, "
	        "\"leap\": \"%s\", \"available\": %s",
	        lc__sim_scenario_name(r->scenario), r->hz,
	        r->nohz ? "true" : "false", r->dir > 0 ? "insert" : "delete",
	        r->available ? "true" : "false");
	if (!r->available) {
		fprintf(f, ", \"note\": ");
		lc_cli_json_str(f, r->note);
		fprintf(f, "}");
		return;
	}
	fprintf(f,
	        ",\n   \"timers\": %" PRId64 ", \"fired\": %" PRId64
	        ", \"early_fires\": %" PRId64 ", \"max_early_ns\": %" PRId64
	        ", \"max_late_ns\": %" PRId64
	        ",\n   \"stale_read_ns\": %" PRId64
	        ", \"stale_reads\": %" PRId64 ",\n   \"backsteps\": {",
	        r->timers, r->fired, r->early_fires, r->max_early_ns,
	        r->max_late_ns, r->stale_read_ns, r->stale_reads);
	for (int c = 0; c < LC_CLOCK_COUNT; c++) {
		fprintf(f, "%s\"%s\": ", c ? ", " : "", names[c]);
		if (r->backsteps[c] < 0)
			fprintf(f, "null");
		else
			fprintf(f, "%" PRId64, r->backsteps[c]);
	}
	fprintf(f,
	        "},\n   \"tai_continuous\": %s, \"max_tai_error_ns\": %" PRId64
	        ", \"max_smear_rate_ppm\": %.3f, \"leap_applied_after_ns\": ",
	        r->tai_continuous ? "true" : "false", r->max_tai_error_ns,
	        lc_cli_json_num(r->max_smear_rate_ppm, 3)); /* no -0.000 */
	if (r->leap_applied_after_ns < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRId64, r->leap_applied_after_ns);
	fprintf(f,
	        ",\n   \"max_realtime_error_ns\": %" PRId64
	        ", \"utc_wrong_reads\": ",
	        r->max_realtime_error_ns);
	if (r->utc_wrong_reads < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%" PRId64, r->utc_wrong_reads);
	fprintf(f, "}");
}