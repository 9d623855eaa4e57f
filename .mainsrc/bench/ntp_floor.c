/*
 * ntp_floor.c - the floor contender of the NTP load benchmark
 * (tools/run-load-bench, issue 26): the least a server can do per request
 * on this machine, so that each real server is read as a fraction of it.
 *
 *   ntp_floor [--threads N] ADDR:PORT      (IPv4; N default 1, 0: one per
 *                                            CPU)
 *
 * Each thread has its own SO_REUSEPORT socket on ADDR:PORT (1 MiB receive
 * buffer) and loops: recvmmsg a batch of up to 64 datagrams (blocking for
 * the first), one CLOCK_REALTIME read for the whole batch, and for each
 * datagram of at least 48 bytes in client mode (3) a 48-byte server reply
 * (stratum 1, the request's transmit time as origin, the batch's time as
 * receive and transmit time), all sent with one sendmmsg. No other check:
 * no kernel timestamps, no rate limit, no access list, no keys, no leap
 * second handling. It answers only unauthenticated requests, so
 * run-load-bench measures it with basic requests in every mode. Runs
 * until SIGTERM or SIGINT. Never sets the clock.
 */
#define _GNU_SOURCE /* recvmmsg, sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define PKT 1024
#define NTP_EPOCH_OFFSET 2208988800u /* 1900-01-01 to 1970-01-01, s */

static struct sockaddr_in where;

static void put_ts(uint8_t *p, const struct timespec *ts)
{
	uint32_t s = (uint32_t)((uint64_t)ts->tv_sec + NTP_EPOCH_OFFSET);
	uint32_t f = (uint32_t)(((uint64_t)ts->tv_nsec << 32) / 1000000000u);

	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(s >> (24 - 8 * i));
		p[4 + i] = (uint8_t)(f >> (24 - 8 * i));
	}
}

static int open_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1, buf = 1 << 20;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(fd, (const struct sockaddr *)&where, sizeof(where)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *serve(void *arg)
{
	static __thread uint8_t in[BATCH][PKT], out[BATCH][48];
	static __thread struct sockaddr_in from[BATCH];
	static __thread struct mmsghdr rm[BATCH], sm[BATCH];
	static __thread struct iovec riov[BATCH], siov[BATCH];
	int fd = (int)(intptr_t)arg;

	for (int i = 0; i < BATCH; i++) {
		riov[i].iov_base = in[i];
		riov[i].iov_len = PKT;
		rm[i].msg_hdr.msg_iov = &riov[i];
		rm[i].msg_hdr.msg_iovlen = 1;
		siov[i].iov_len = 48;
	}
	for (;;) {
		struct timespec now;
		int n, k = 0;

		for (int i = 0; i < BATCH; i++) {
			rm[i].msg_hdr.msg_name = &from[i];
			rm[i].msg_hdr.msg_namelen = sizeof(from[i]);
		}
		n = recvmmsg(fd, rm, BATCH, MSG_WAITFORONE, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EINTR)
				return NULL;
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		for (int i = 0; i < n; i++) {
			const uint8_t *q = in[i];
			uint8_t *r = out[k];

			if (rm[i].msg_len < 48 || (q[0] & 7) != 3)
				continue;
			memset(r, 0, 48);
			r[0] = (uint8_t)((q[0] & 0x38) | 4); /* LI 0, its VN */
			r[1] = 1;                            /* stratum */
			r[2] = q[2];                         /* poll */
			r[3] = (uint8_t)-20;                 /* precision */
			memcpy(r + 12, "FLOR", 4);
			put_ts(r + 16, &now);
			memcpy(r + 24, q + 40, 8); /* origin */
			put_ts(r + 32, &now);
			put_ts(r + 40, &now);
			siov[k].iov_base = r;
			memset(&sm[k].msg_hdr, 0, sizeof(sm[k].msg_hdr));
			sm[k].msg_hdr.msg_name = &from[i];
			sm[k].msg_hdr.msg_namelen = rm[i].msg_hdr.msg_namelen;
			sm[k].msg_hdr.msg_iov = &siov[k];
			sm[k].msg_hdr.msg_iovlen = 1;
			k++;
		}
		for (int sent = 0; sent < k;) {
			int m = sendmmsg(fd, sm + sent, (unsigned)(k - sent), 0);
			if (m <= 0)
				break; /* a full buffer: drop the rest */
			sent += m;
		}
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	long threads = 1;
	char host[64], *colon;
	pthread_t th[256];
	sigset_t set;
	int sig;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			threads = strtol(argv[++i], NULL, 10);
		else
			addr = argv[i];
	}
	if (threads == 0)
		threads = sysconf(_SC_NPROCESSORS_ONLN);
	if (addr == NULL || threads < 1 || threads > 256 ||
	    strlen(addr) >= sizeof(host)) {
		fprintf(stderr, "usage: ntp_floor [--threads N] ADDR:PORT\n");
		return 2;
	}
	strcpy(host, addr);
	colon = strrchr(host, ':');
	if (colon == NULL) {
		fprintf(stderr, "ntp_floor: %s: no :PORT\n", addr);
		return 2;
	}
	*colon = '\0';
	where.sin_family = AF_INET;
	where.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &where.sin_addr) != 1) {
		fprintf(stderr, "ntp_floor: %s: not an IPv4 address\n", host);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (long i = 0; i < threads; i++) {
		int fd = open_socket();
		if (fd < 0 || pthread_create(&th[i], NULL, serve,
		                             (void *)(intptr_t)fd) != 0) {
			fprintf(stderr, "ntp_floor: %s: %s\n", addr,
			        strerror(errno));
			return 1;
		}
	}
	fprintf(stderr, "ntp_floor: %ld thread(s) on %s\n", threads, addr);
	sigwait(&set, &sig);
	return 0;
}
