/*
 * timeline_reader - a program on lc_default(), for the timeline tests.
 *
 *	timeline_reader info            which timeline lc_default() reads
 *	timeline_reader read N GAP_US   N lines "mono_before clock_ns mono_after"
 *	                                for REALTIME, UTC (ns, 23:59:60 as
 *	                                1e9..2e9-1), UTC_SLS and TAI, each
 *	                                bracketed by CLOCK_MONOTONIC
 *	timeline_reader threads N MS    N threads reading UTC_SLS and TAI
 *	                                for MS ms; "threads ok READS" if no
 *	                                reading went back, else exit 1
 *	timeline_reader timer ISO       an absolute REALTIME timer (lc timers
 *	                                are not needed: clock_nanosleep on
 *	                                the host's MONOTONIC to the instant
 *	                                lc__tk_mono_at gives), then the clock
 *	                                at wake-up: "fired REALTIME_NS"
 */
#define _GNU_SOURCE
#include "leapclock.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t ns_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t host_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns_of(&ts);
}

static long run_ms;
static _Atomic long total_reads, went_back;

static void *reader_thread(void *arg)
{
	lc_timekeeper *tk = arg;
	int64_t end = host_mono() + (int64_t)run_ms * 1000000;
	int64_t last_sls = INT64_MIN, last_tai = INT64_MIN;
	long n = 0;

	while (host_mono() < end) {
		struct timespec a, b;

		lc_gettime(tk, LC_CLOCK_UTC_SLS, &a);
		lc_gettime(tk, LC_CLOCK_TAI, &b);
		if (ns_of(&a) < last_sls || ns_of(&b) < last_tai)
			went_back++;
		last_sls = ns_of(&a);
		last_tai = ns_of(&b);
		n++;
	}
	total_reads += n;
	return NULL;
}

int main(int argc, char **argv)
{
	lc_timekeeper *tk = lc_default();
	struct lc_timeline_info ti;

	if (tk == NULL) {
		fprintf(stderr, "timeline_reader: no timekeeper\n");
		return 1;
	}
	if (argc >= 2 && strcmp(argv[1], "info") == 0) {
		lc_timeline_info(tk, &ti);
		printf("source %d\npath %s\nwhy %s\nwriter_pid %ld\nalive %d\n"
		       "pretend %d\nstarts %" PRIu64 "\nsmear %s\ntable %s\n",
		       ti.source, ti.path, ti.why, ti.writer_pid,
		       ti.writer_alive, ti.pretend, ti.writer_starts, ti.smear,
		       ti.table_source);
		{
			int64_t when;
			int dir;

			lc_update(tk); /* picks up the page's table */
			if (lc_tk_next_leap(tk, &when, &dir) == 0)
				printf("next_leap %" PRId64 " %+d\n", when, dir);
			else
				printf("next_leap none\n");
			printf("realtime_s %" PRId64 "\n",
			       lc_now_ns(tk, LC_CLOCK_REALTIME) / 1000000000);
			printf("rows %zu\nnote %s\n",
			       lc_leaptable_count(lc_tk_table(tk)),
			       ti.table_note);
		}
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "threads") == 0) {
		long nt = strtol(argv[2], NULL, 10);
		pthread_t t[64];

		run_ms = strtol(argv[3], NULL, 10);
		if (nt < 1 || nt > 64)
			return 2;
		for (long i = 0; i < nt; i++)
			pthread_create(&t[i], NULL, reader_thread, tk);
		for (long i = 0; i < nt; i++)
			pthread_join(t[i], NULL);
		lc_timeline_info(tk, &ti);
		printf("threads %s %ld reads, source %d\n",
		       went_back ? "BACK" : "ok", (long)total_reads, ti.source);
		return went_back ? 1 : 0;
	}
	if (argc >= 4 && strcmp(argv[1], "read") == 0) {
		long n = strtol(argv[2], NULL, 10);
		long gap = strtol(argv[3], NULL, 10);
		static const lc_clock_id ids[] = { LC_CLOCK_REALTIME,
			                           LC_CLOCK_UTC,
			                           LC_CLOCK_UTC_SLS,
			                           LC_CLOCK_TAI };

		for (long i = 0; i < n; i++) {
			printf("%ld", i);
			for (int k = 0; k < 4; k++) {
				struct timespec ts;
				int64_t a = host_mono(), b;

				lc_gettime(tk, ids[k], &ts);
				b = host_mono();
				/* UTC's 23:59:60 is tv_nsec >= 1e9: printed
				 * as sec:nsec so that it stays apart */
				if (ids[k] == LC_CLOCK_UTC)
					printf(" %" PRId64 " %lld:%ld %" PRId64, a,
					       (long long)ts.tv_sec, ts.tv_nsec,
					       b);
				else
					printf(" %" PRId64 " %" PRId64
					       " %" PRId64,
					       a, ns_of(&ts), b);
			}
			printf("\n");
			if (gap > 0)
				usleep((useconds_t)gap);
		}
		return 0;
	}
	fprintf(stderr, "usage: timeline_reader info | read N GAP_US\n");
	return 2;
}
