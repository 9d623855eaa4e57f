/*
 * clockbound_read.c PATH - a ClockBound client written from the public
 * protocol description alone (aws/clock-bound docs/PROTOCOL.md, "ClockBound
 * Shared Memory Protocol Version 2"), to read back what leapclockd
 * --clockbound writes. It knows byte offsets, not the writer's struct:
 *
 *	0  magic u64 = bytes 41 4D 5A 4E 43 42 02 00
 *	8  segment size u32          12 version u16      14 generation u16
 *	16 as-of (i64 sec, i64 nsec), CLOCK_MONOTONIC_COARSE
 *	32 void-after (i64 sec, i64 nsec), CLOCK_MONOTONIC_COARSE
 *	48 bound i64 ns              56 disruption marker u64
 *	64 max drift u32 ppb         68 clock status i32
 *	72 clock disruption support u8
 *
 * The generation is odd while the daemon writes and even after: read it,
 * copy, read it again; equal and even is a consistent copy. Then, as a
 * ClockBound client does: earliest/latest = CLOCK_REALTIME -/+ (bound +
 * max drift * (now - as-of)), void when now is past void-after.
 * Prints one line: "ok status=S bound_ns=B drift_ppb=D earliest_ns=E
 * latest_ns=L realtime_ns=R void=V gen=G size=Z"; exit 1 on a malformed
 * segment (naming what is wrong).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t get(const unsigned char *b, int off, int len)
{
	uint64_t v = 0;

	/* native endian: little on the machines this runs on */
	for (int i = len - 1; i >= 0; i--)
		v = (v << 8) | b[off + i];
	return v;
}

int main(int argc, char **argv)
{
	static const unsigned char magic[8] = {0x41, 0x4D, 0x5A, 0x4E,
	                                       0x43, 0x42, 0x02, 0x00};
	unsigned char b[256];
	uint16_t g1 = 1, g2 = 0;
	ssize_t n = 0;
	int fd, tries;
	struct timespec rt, mc;

	if (argc != 2) {
		fprintf(stderr, "usage: clockbound_read PATH\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (tries = 0; tries < 1000; tries++) {
		unsigned char g[2];

		if (pread(fd, g, 2, 14) != 2)
			break;
		g1 = (uint16_t)get(g, 0, 2);
		n = pread(fd, b, sizeof(b), 0);
		if (pread(fd, g, 2, 14) != 2)
			break;
		g2 = (uint16_t)get(g, 0, 2);
		if (g1 == g2 && (g1 & 1) == 0 && g1 != 0)
			break;
		usleep(100);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC_COARSE, &mc);
	close(fd);
	if (n < 80) {
		printf("bad: segment of %zd bytes, the header is 80\n", n);
		return 1;
	}
	if (memcmp(b, magic, 8) != 0) {
		printf("bad: magic\n");
		return 1;
	}
	if (get(b, 8, 4) < 80 || (ssize_t)get(b, 8, 4) > n) {
		printf("bad: segment size %" PRIu64 " (file %zd)\n",
		       get(b, 8, 4), n);
		return 1;
	}
	if (get(b, 12, 2) != 2) {
		printf("bad: version %" PRIu64 "\n", get(b, 12, 2));
		return 1;
	}
	if (g1 != g2 || (g1 & 1) || g1 == 0) {
		printf("bad: no consistent copy (generation %u then %u)\n", g1,
		       g2);
		return 1;
	}
	{
		int64_t as_of = (int64_t)get(b, 16, 8) * 1000000000 +
		                (int64_t)get(b, 24, 8);
		int64_t void_after = (int64_t)get(b, 32, 8) * 1000000000 +
		                     (int64_t)get(b, 40, 8);
		int64_t bound = (int64_t)get(b, 48, 8);
		uint32_t drift = (uint32_t)get(b, 64, 4);
		int32_t status = (int32_t)get(b, 68, 4);
		int64_t now_m = (int64_t)mc.tv_sec * 1000000000 + mc.tv_nsec;
		int64_t real = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
		int64_t age = now_m > as_of ? now_m - as_of : 0;
		int64_t e =
		    bound + (int64_t)((__int128)age * drift / 1000000000) + 1;

		printf("ok status=%d bound_ns=%" PRId64 " drift_ppb=%u "
		       "earliest_ns=%" PRId64 " latest_ns=%" PRId64
		       " realtime_ns=%" PRId64 " void=%d age_ns=%" PRId64
		       " void_in_ns=%" PRId64 " gen=%u size=%" PRIu64
		       " disruption_support=%u\n",
		       status, bound, drift, real - e, real + e, real,
		       now_m > void_after, age, void_after - now_m, g1,
		       get(b, 8, 4), (unsigned)b[72]);
	}
	return 0;
}
