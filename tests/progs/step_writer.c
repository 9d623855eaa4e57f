/*
 * step_writer - a timeline page whose time steps, for tests/preload_step.sh.
 *
 *	step_writer PAGE TABLE START LEAP STEPS -- PROGRAM ARGS...
 *
 * Publishes a rehearsal timeline page at PAGE (its folder must be the
 * caller's, mode 0700) from a timekeeper on the host's CLOCK_MONOTONIC
 * (STEP_WRITER_HOST_LEAP=MODE: a declared mode's writer, on
 * CLOCK_MONOTONIC_RAW), with the leap table TABLE (tzdata
 * "leapseconds" format) plus, when LEAP is "+L" or "-L", a synthetic leap
 * inserted or deleted just before the POSIX second L (a UTC midnight; "none"
 * for no leap). Its UTC is set to START (POSIX seconds, "1798761598.5") and
 * runs on with MONOTONIC; the writer ticks every 20 ms, as leapclockd would
 * (lc_update, then the page's heartbeat).
 *
 * Then it runs PROGRAM (through the PATH) with its standard output on a
 * pipe: every line is copied to our standard output, and when a line reads
 * "armed" the page's timeline is stepped by each of STEPS in turn, a comma
 * list of STEP_MS@AFTER_MS ("-300@200,+150@400": back 300 ms 200 ms after
 * "armed", then forward 150 ms 400 ms after it). A step moves TAI (and with
 * it UTC and REALTIME) with lc_settime, never the host's clock: what a
 * writer following a stepped host publishes. Prints "stepped MS" after each.
 * Exits with PROGRAM's status (1 if the writer failed, 77 if the page
 * cannot be made here).
 */
#define _GNU_SOURCE
#include "leapclock.h"
#include "timekeeper.h"
#include "timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 8

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

/* TABLE's text plus the synthetic leap's line */
static char *table_text(const char *path, const char *leap)
{
	static const char *mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
		                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	char line[96] = "";
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	if (strcmp(leap, "none") != 0) {
		/* the day before L, as tzdata names it */
		time_t day = (time_t)(strtoll(leap + 1, NULL, 10) - 86400);
		struct tm tm;

		gmtime_r(&day, &tm);
		snprintf(line, sizeof(line), "Leap\t%d\t%s\t%d\t%s\t%c\tS\n",
		         tm.tm_year + 1900, mon[tm.tm_mon], tm.tm_mday,
		         leap[0] == '+' ? "23:59:60" : "23:59:59", leap[0]);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + strlen(line) + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf != NULL)
		strcat(buf, line);
	return buf;
}

int main(int argc, char **argv)
{
	struct lc_tk_config cfg;
	struct lc_error err;
	struct lc__tl_writer *w = NULL;
	lc_leaptable *table = lc_leaptable_new();
	lc_timekeeper *tk = NULL;
	lc_counter *c = NULL;
	static struct lc_host_leap_spec spec;
	struct timespec utc, ts;
	double step_ms[MAX_STEPS];
	int64_t tai, after_ms[MAX_STEPS], armed = -1;
	int nsteps = 0, done = 0, p[2], status = 0, fail = 0, open = 1;
	char *text, *s, *end, line[512];
	size_t len = 0;
	pid_t pid;

	if (argc < 8 || strcmp(argv[6], "--") != 0) {
		fprintf(stderr, "usage: step_writer PAGE TABLE START LEAP "
		                "STEPS -- PROGRAM ARGS...\n");
		return 2;
	}
	for (s = argv[5]; *s != '\0' && nsteps < MAX_STEPS; nsteps++) {
		step_ms[nsteps] = strtod(s, &end);
		if (*end != '@') {
			fprintf(stderr, "step_writer: bad STEPS %s\n", argv[5]);
			return 2;
		}
		after_ms[nsteps] = strtoll(end + 1, &s, 10);
		if (*s == ',')
			s++;
	}
	text = table_text(argv[2], argv[4]);
	memset(&err, 0, sizeof(err));
	if (table == NULL || text == NULL ||
	    lc_leaptable_load_buffer(table, "step_writer", text, strlen(text),
	                             LC_LEAPFMT_TZDATA, &err) != 0) {
		fprintf(stderr, "step_writer: table: %s\n", err.msg);
		return 1;
	}
	free(text);
	lc_tk_config_init(&cfg);
	{
		/* STEP_WRITER_HOST_LEAP=MODE: a writer of a host in that
		 * declared mode, on the counter the library picks for it
		 * (CLOCK_MONOTONIC_RAW: the page then carries its relation
		 * to MONOTONIC, through which the shim arms its timers) */
		const char *hl = getenv("STEP_WRITER_HOST_LEAP");

		if (hl != NULL && *hl != '\0') {
			if (lc_host_leap_parse(hl, "STEP_WRITER_HOST_LEAP",
			                       &spec, &err) != 0) {
				fprintf(stderr, "step_writer: %s\n", err.msg);
				return 1;
			}
			lc_host_leap_apply(&spec, &cfg);
		}
	}
	if (lc_counter_new_system(&c, (int)lc__counter_writer_clock(
	                                      cfg.host_leap)) != 0)
		return 1;
	cfg.table = table;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.follow_host = 0;
	if (lc_tk_new(&tk, c, &cfg) != 0)
		return 1;
	{
		double st = strtod(argv[3], NULL);

		utc.tv_sec = (time_t)st;
		utc.tv_nsec = (long)((st - (double)utc.tv_sec) * 1e9 + 0.5);
	}
	if (lc_tai_from_utc(table, &utc, &tai) != 0)
		return 1;
	ts = lc__ns_to_ts(tai);
	if (lc_settime(tk, LC_CLOCK_TAI, &ts) != 0 || lc_update(tk) != 0)
		return 1;
	memset(&err, 0, sizeof(err));
	if (lc__tl_writer_open(&w, argv[1], tk, LC__TLF_PRETEND, "", &err) !=
	    0) {
		printf("skip: cannot publish the page %s: %s\n", argv[1],
		       err.msg);
		return 77;
	}
	fflush(stdout);
	if (pipe(p) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[7], argv + 7);
		perror(argv[7]);
		_exit(127);
	}
	close(p[1]);
	while (open) {
		struct pollfd pfd = { p[0], POLLIN, 0 };
		int64_t now;

		if (poll(&pfd, 1, 1) > 0) {
			ssize_t n = read(p[0], line + len, sizeof(line) - 1 - len);
			char *nl;

			if (n <= 0) {
				open = 0;
				n = 0;
			}
			len += (size_t)n;
			line[len] = '\0';
			while ((nl = strchr(line, '\n')) != NULL ||
			       len == sizeof(line) - 1) {
				size_t k = nl ? (size_t)(nl - line) + 1 : len;

				fwrite(line, 1, k, stdout);
				if (nl && strncmp(line, "armed\n", 6) == 0)
					armed = mono_ns();
				memmove(line, line + k, len - k + 1);
				len -= k;
			}
			fflush(stdout);
		}
		now = mono_ns();
		while (armed >= 0 && done < nsteps &&
		       now >= armed + after_ms[done] * 1000000) {
			int64_t t;

			lc_gettime(tk, LC_CLOCK_TAI, &ts);
			t = lc__ts_to_ns(&ts) + (int64_t)(step_ms[done] * 1e6);
			ts = lc__ns_to_ts(t);
			if (lc_settime(tk, LC_CLOCK_TAI, &ts) != 0) {
				printf("FAIL step_writer: lc_settime\n");
				fail = 1;
			}
			lc__tl_writer_tick(w, "", NULL);
			printf("stepped %+g ms\n", step_ms[done]);
			fflush(stdout);
			done++;
		}
		{
			static int64_t next;

			if (now >= next) {
				lc_update(tk);
				lc__tl_writer_tick(w, "", NULL);
				next = now + 20000000;
			}
		}
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	lc__tl_writer_close(w);
	if (done < nsteps) {
		printf("FAIL step_writer: the program never said \"armed\" "
		       "(%d of %d steps made)\n", done, nsteps);
		return 1;
	}
	if (fail)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
