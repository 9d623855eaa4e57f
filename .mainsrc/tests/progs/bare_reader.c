/*
 * bare_reader - reads CLOCK_REALTIME and CLOCK_TAI with plain
 * clock_gettime(), each bracketed by CLOCK_MONOTONIC: run under the
 * preload shim, it is an unmodified program's view of the timeline.
 *	bare_reader N GAP_US  ->  "i a rt b a tai b" per line
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int64_t rd(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	long gap = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;

	for (long i = 0; i < n; i++) {
		int64_t a = rd(CLOCK_MONOTONIC), v = rd(CLOCK_REALTIME),
		        b = rd(CLOCK_MONOTONIC);
		int64_t c = rd(CLOCK_MONOTONIC), t = rd(CLOCK_TAI),
		        d = rd(CLOCK_MONOTONIC);

		printf("%ld %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
		       " %" PRId64 " %" PRId64 "\n",
		       i, a, v, b, c, t, d);
		if (gap > 0)
			usleep((useconds_t)gap);
	}
	return 0;
}
