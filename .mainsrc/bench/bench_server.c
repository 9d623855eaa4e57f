/*
 * bench_server.c - leapclockd's load generator, and the comparison with
 * chronyd serving on another loopback port in the same run.
 *
 *   bench_server [--seconds S] [--requests N] [--window W] [--rounds R]
 *                [--no-chrony] [--leapclockd PATH]
 *       starts leapclockd (utc mode, rate limiting off) and chronyd -x
 *       (local stratum 1, no sources, never touches the clock) on two
 *       127.0.0.1 ports, and measures each with the same client: reply
 *       latency with one request in flight (p50, p99), then throughput with
 *       W requests in flight; R rounds alternating the servers, medians
 *       reported. Bounded: at most N requests and S seconds per phase.
 *
 *   bench_server flood ADDR:PORT [--count N] [--seconds S]
 *       sends N datagrams of every bad kind (random bytes, truncated
 *       requests, control and private modes, bad versions, lengths that are
 *       not whole words, valid requests with extension fields) to a running
 *       server, checks that only the datagrams that deserve an answer get
 *       one and that every answer is 48 bytes, then that 20 ordinary
 *       requests are still answered. Exit status 0 if all of that held.
 *
 * Every request carries a tag in its transmit timestamp, which a server
 * echoes as the origin timestamp: the kind of datagram and a sequence
 * number, so each reply is matched to what caused it.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TAG_ANSWER UINT64_C(0xa1)  /* must be answered */
#define TAG_SILENT UINT64_C(0xb2)  /* must not be answered */
#define MAX_LAT 2000000

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void put64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t get64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | b[i];
	return v;
}

static void make_request(uint8_t *b, unsigned vn, unsigned mode, uint64_t tx)
{
	memset(b, 0, 48);
	b[0] = (uint8_t)((vn << 3) | mode);
	b[2] = 6;
	b[3] = 0xec;
	put64(b + 40, tx);
}

static int udp_to(const char *spec, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	int fd, buf = 1 << 20;

	memset(sa, 0, sizeof(*sa));
	if (colon == NULL || (size_t)(colon - spec) >= sizeof(host))
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return -1;
	/* loopback only */
	if ((ntohl(sa->sin_addr.s_addr) >> 24) != 127)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (connect(fd, (struct sockaddr *)sa, sizeof(*sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- measuring one server ------------------------------------------------- */

struct result {
	double rps;
	int64_t p50, p99; /* ns */
	uint64_t sent, replies, bad;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Request number seq sent in slot i (its tag: slot and number). */
static void send_slot(int fd, uint8_t out[48], unsigned i, uint64_t seq,
                      uint64_t *slot_seq, int64_t *sent_at, struct result *r)
{
	slot_seq[i] = seq;
	put64(out + 40, (TAG_ANSWER << 56) | ((uint64_t)i << 32) |
	                        (seq & 0xffffffff));
	sent_at[i] = mono_ns();
	if (send(fd, out, 48, 0) == 48)
		r->sent++;
}

/*
 * Sends requests keeping `window` in flight (a request unanswered for
 * 200 ms counts as lost and its slot is reused), until `max_req` were sent
 * or `seconds` passed. Latency is from just before send() to just after
 * recv() returns the reply.
 */
static void measure(int fd, int window, uint64_t max_req, double seconds,
                    struct result *r, int64_t *lat)
{
	int64_t *sent_at = calloc((size_t)window, sizeof(int64_t));
	uint64_t *slot_seq = calloc((size_t)window, sizeof(uint64_t));
	int64_t start = mono_ns(), end = start + (int64_t)(seconds * 1e9);
	uint64_t seq = 0, nlat = 0;
	uint8_t out[48], in[512];
	int inflight = 0;

	memset(r, 0, sizeof(*r));
	make_request(out, 4, 3, 0);
	for (;;) {
		int64_t now = mono_ns();

		/* refill: free slots, and slots lost for 200 ms */
		for (int i = 0; i < window && seq < max_req && now < end; i++) {
			if (slot_seq[i] != 0 && now - sent_at[i] < 200000000)
				continue;
			if (slot_seq[i] == 0)
				inflight++;
			send_slot(fd, out, (unsigned)i, ++seq, slot_seq, sent_at, r);
		}
		if (inflight == 0 || (now >= end && seq > 0 &&
		                      now - end > 200000000))
			break;
		{
			struct pollfd p = { fd, POLLIN, 0 };
			if (poll(&p, 1, 50) <= 0)
				continue;
		}
		for (;;) {
			ssize_t n = recv(fd, in, sizeof(in), MSG_DONTWAIT);
			int64_t t = mono_ns();
			uint64_t org;
			unsigned i;

			if (n < 0)
				break;
			org = n >= 48 ? get64(in + 24) : 0;
			i = (unsigned)((org >> 32) & 0xffffff);
			if (n != 48 || (in[0] & 7) != 4 || (org >> 56) != TAG_ANSWER ||
			    i >= (unsigned)window ||
			    slot_seq[i] != (org & 0xffffffff) || slot_seq[i] == 0) {
				r->bad++; /* stale (lost and resent) or wrong */
				continue;
			}
			r->replies++;
			if (nlat < MAX_LAT)
				lat[nlat++] = t - sent_at[i];
			slot_seq[i] = 0;
			inflight--;
			if (seq >= max_req || t >= end)
				continue;
			/* refill this slot at once */
			inflight++;
			send_slot(fd, out, i, ++seq, slot_seq, sent_at, r);
		}
		if (now >= end + INT64_C(300000000))
			break;
	}
	r->rps = (double)r->replies / ((double)(mono_ns() - start) / 1e9);
	if (nlat > 0) {
		qsort(lat, nlat, sizeof(*lat), cmp_i64);
		r->p50 = lat[nlat / 2];
		r->p99 = lat[(nlat * 99) / 100];
	}
	free(sent_at);
	free(slot_seq);
}

/* ---- running the servers -------------------------------------------------- */

static pid_t spawn(char *const argv[], const char *logpath)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Waits (at most 10 s) until the server at fd answers a request. */
static int wait_ready(int fd)
{
	uint8_t out[48], in[512];

	make_request(out, 4, 3, UINT64_C(0x1234));
	for (int i = 0; i < 100; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (send(fd, out, sizeof(out), 0) < 0) {
			usleep(100000);
			continue;
		}
		if (poll(&p, 1, 100) > 0 && recv(fd, in, sizeof(in), 0) >= 48) {
			/* drain anything else */
			while (recv(fd, in, sizeof(in), MSG_DONTWAIT) > 0)
				;
			return 0;
		}
		usleep(100000); /* refused: not listening yet */
	}
	return -1;
}

static int find_exe(char *out, size_t size, const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	if (strlen(self) + 1 + strlen(name) >= size)
		return -1;
	memcpy(out, self, strlen(self));
	out[strlen(self)] = '/';
	memcpy(out + strlen(self) + 1, name, strlen(name) + 1);
	return access(out, X_OK);
}

static int have_cmd(const char *name)
{
	const char *dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin",
		               "/usr/local/sbin", "/usr/local/bin" };
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dirs[i], name);
		if (access(p, X_OK) == 0)
			return 1;
	}
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of the rounds' results, metric by metric. */
static void median(const struct result *r, int n, struct result *m)
{
	double v[4][16];

	for (int i = 0; i < n; i++) {
		v[0][i] = r[i].rps;
		v[1][i] = (double)r[i].p50;
		v[2][i] = (double)r[i].p99;
		v[3][i] = (double)(r[i].sent - r[i].replies);
	}
	for (int k = 0; k < 4; k++)
		qsort(v[k], (size_t)n, sizeof(double), cmp_dbl);
	memset(m, 0, sizeof(*m));
	m->rps = v[0][n / 2];
	m->p50 = (int64_t)v[1][n / 2];
	m->p99 = (int64_t)v[2][n / 2];
	m->replies = 0;
	m->sent = (uint64_t)v[3][n / 2];
}

static void print_row(const char *name, const struct result *lat1,
                      const struct result *tput)
{
	printf("%-22s %10.0f %9.1f %9.1f %12.0f %9.1f %9.1f %8" PRIu64 "\n",
	       name, lat1->rps, (double)lat1->p50 / 1e3, (double)lat1->p99 / 1e3,
	       tput->rps, (double)tput->p50 / 1e3, (double)tput->p99 / 1e3,
	       tput->sent - tput->replies);
}

/* One comparison: its options, its files and the two servers. */
struct bench_run {
	double seconds;
	uint64_t max_req;
	int window, chrony, rounds, port;
	char dpath[PATH_MAX];
	char tmp[32];
	char conf[PATH_MAX + 32], log1[PATH_MAX + 32], log2[PATH_MAX + 32],
		pidf[PATH_MAX + 32], sock[PATH_MAX + 32];
	pid_t dpid, cpid;
	int dfd, cfd;
};

/* 0, or 2 after saying what is wrong. */
static int bench_args(struct bench_run *b, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			b->seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--requests") == 0 && i + 1 < argc)
			b->max_req = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc)
			b->window = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			b->rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-chrony") == 0)
			b->chrony = 0;
		else if (strcmp(argv[i], "--leapclockd") == 0 && i + 1 < argc)
			snprintf(b->dpath, sizeof(b->dpath), "%s", argv[++i]);
		else {
			fprintf(stderr, "bench_server: unknown argument '%s'\n",
			        argv[i]);
			return 2;
		}
	}
	if (b->seconds <= 0 || b->seconds > 60 || b->window < 1 ||
	    b->window > 4096 || b->max_req < 1 || b->max_req > 100000000 ||
	    b->rounds < 1 || b->rounds > 15) {
		fprintf(stderr, "bench_server: --seconds 0..60, --window 1..4096, "
		        "--rounds 1..15\n");
		return 2;
	}
	return 0;
}

/* A server started (argv av, its output in log) and a socket to it at
 * addr; 0 once it answers, else 3. */
static int start_server(char **av, const char *log, const char *addr,
                        const char *name, pid_t *pid, int *fd)
{
	struct sockaddr_in sa;

	*pid = spawn(av, log);
	*fd = udp_to(addr, &sa);
	if (*fd < 0 || wait_ready(*fd) != 0) {
		fprintf(stderr, "bench_server: %s did not answer (log %s)\n",
		        name, log);
		return 3;
	}
	return 0;
}

/* leapclockd started on 127.0.0.1:port; 0 once it answers, else 3. */
static int start_leapclockd(struct bench_run *b)
{
	char spec[64], dspec[64];

	snprintf(spec, sizeof(spec), "127.0.0.1:%d=utc", b->port);
	snprintf(dspec, sizeof(dspec), "127.0.0.1:%d", b->port);
	char *av[] = { b->dpath, "-d", "--no-timeline", "--listen", spec,
		       "--ratelimit", "off", "--stats-file", "none", NULL };
	return start_server(av, b->log1, dspec, "leapclockd", &b->dpid, &b->dfd);
}

/* chronyd started on 127.0.0.1:port+1; 0 once it answers, else 3. */
static int start_chronyd(struct bench_run *b)
{
	char cspec[64];
	FILE *f = fopen(b->conf, "w");

	if (f == NULL)
		return 3;
	/* a server only: no sources, no rate limit, no command port,
	 * and -x: it never touches the host's clock */
	fprintf(f, "port %d\nbindaddress 127.0.0.1\nallow 127.0.0.1\n"
	        "local stratum 1\ncmdport 0\nbindcmdaddress %s\n"
	        "pidfile %s\n", b->port + 1, b->sock, b->pidf);
	fclose(f);
	snprintf(cspec, sizeof(cspec), "127.0.0.1:%d", b->port + 1);
	char *av[] = { "chronyd", "-x", "-n", "-u", "root", "-f", b->conf, NULL };
	return start_server(av, b->log2, cspec, "chronyd", &b->cpid, &b->cfd);
}

/* The rounds, servers alternated round by round so that both see the
 * same background load on a shared machine; the medians printed. */
static void bench_measure(struct bench_run *b, int64_t *lat)
{
	struct result dl[16], dt[16], cl[16], ct[16], m1, m2, m3, m4;

	printf("bench_server: %d rounds, %.1f s per phase (at most %" PRIu64
	       " requests), W = %d, loopback, one client socket; medians\n",
	       b->rounds, b->seconds, b->max_req, b->window);
	for (int r = 0; r < b->rounds; r++) {
		measure(b->dfd, 1, b->max_req, b->seconds, &dl[r], lat);
		if (b->cfd >= 0)
			measure(b->cfd, 1, b->max_req, b->seconds, &cl[r], lat);
		measure(b->dfd, b->window, b->max_req, b->seconds, &dt[r], lat);
		if (b->cfd >= 0)
			measure(b->cfd, b->window, b->max_req, b->seconds, &ct[r], lat);
	}
	printf("%-22s %10s %9s %9s %12s %9s %9s %8s\n", "server", "req/s@1",
	       "p50 us", "p99 us", "req/s@W", "p50 us", "p99 us", "lost");
	median(dl, b->rounds, &m1);
	median(dt, b->rounds, &m2);
	print_row("leapclockd utc", &m1, &m2);
	if (b->cfd < 0) {
		printf("chronyd: skipped (%s)\n",
		       b->chrony ? "needs Debian package chrony" : "--no-chrony");
		return;
	}
	median(cl, b->rounds, &m3);
	median(ct, b->rounds, &m4);
	print_row("chronyd -x", &m3, &m4);
	printf("leapclockd/chronyd: throughput@1 x%.2f, throughput@W x%.2f, "
	       "p99@1 x%.2f, p99@W x%.2f (latency: below 1 is better)\n",
	       m3.rps > 0 ? m1.rps / m3.rps : 0.0,
	       m4.rps > 0 ? m2.rps / m4.rps : 0.0,
	       m3.p99 > 0 ? (double)m1.p99 / (double)m3.p99 : 0.0,
	       m4.p99 > 0 ? (double)m2.p99 / (double)m4.p99 : 0.0);
}

/* The servers stopped, their files and folder removed. */
static void bench_cleanup(struct bench_run *b)
{
	if (b->dfd >= 0)
		close(b->dfd);
	if (b->cfd >= 0)
		close(b->cfd);
	stop(b->dpid);
	stop(b->cpid);
	unlink(b->conf);
	unlink(b->log1);
	unlink(b->log2);
	unlink(b->pidf);
	unlink(b->sock);
	rmdir(b->tmp);
}

static int bench(int argc, char **argv)
{
	static struct bench_run b = {
		.seconds = 2.0, .max_req = 1000000, .window = 32, .chrony = 1,
		.rounds = 3, .tmp = "/tmp/lc-bench-server.XXXXXX",
		.dpid = -1, .cpid = -1, .dfd = -1, .cfd = -1,
	};
	int64_t *lat = malloc(MAX_LAT * sizeof(int64_t));
	int rc;

	rc = bench_args(&b, argc, argv);
	if (rc == 0 && lat == NULL) {
		fprintf(stderr, "bench_server: --seconds 0..60, "
		        "--window 1..4096, --rounds 1..15\n");
		rc = 2;
	}
	if (rc != 0) {
		free(lat);
		return rc;
	}
	if (b.dpath[0] == '\0' &&
	    find_exe(b.dpath, sizeof(b.dpath), "leapclockd") != 0) {
		printf("bench_server: skipped: leapclockd is not built next to it\n");
		free(lat);
		return 0;
	}
	if (mkdtemp(b.tmp) == NULL) {
		free(lat);
		return 3;
	}
	b.port = 20000 + (int)(getpid() % 20000);
	snprintf(b.log1, sizeof(b.log1), "%s/leapclockd.log", b.tmp);
	snprintf(b.conf, sizeof(b.conf), "%s/chrony.conf", b.tmp);
	snprintf(b.log2, sizeof(b.log2), "%s/chronyd.log", b.tmp);
	snprintf(b.pidf, sizeof(b.pidf), "%s/chronyd.pid", b.tmp);
	snprintf(b.sock, sizeof(b.sock), "%s/chronyd.sock", b.tmp);
	rc = start_leapclockd(&b);
	if (rc == 0 && b.chrony && have_cmd("chronyd"))
		rc = start_chronyd(&b);
	if (rc == 0)
		bench_measure(&b, lat);
	bench_cleanup(&b);
	free(lat);
	return rc;
}

/* ---- flood ---------------------------------------------------------------- */

/* Independent of the server's parser: RFC 5905's rules as leapclockd
 * documents them. */
static int deserves_answer(const uint8_t *b, size_t len)
{
	unsigned vn = (b[0] >> 3) & 7, mode = b[0] & 7;

	if (len < 48 || len % 4 != 0 || vn < 1 || vn > 4)
		return 0;
	return mode == 3 || (mode == 0 && vn == 1);
}

/* Datagram `kind` (0..7) of the flood in pkt; its length. */
static size_t make_junk(unsigned kind, uint8_t *pkt)
{
	size_t len;

	switch (kind) {
	case 0: /* random bytes, random length */
		len = (size_t)(rnd() % 600);
		for (size_t i = 0; i < len; i++)
			pkt[i] = (uint8_t)rnd();
		break;
	case 1: /* a valid request cut short */
		make_request(pkt, 4, 3, 0);
		len = (size_t)(rnd() % 48);
		break;
	case 2: /* control / private modes, answerable length */
		make_request(pkt, (unsigned)(1 + rnd() % 4),
		             (unsigned)(6 + rnd() % 2), 0);
		len = 48 + 4 * (size_t)(rnd() % 20);
		break;
	case 3: /* bad versions */
		make_request(pkt, rnd() % 2 ? 0 : (unsigned)(5 + rnd() % 3), 3, 0);
		len = 48;
		break;
	case 4: /* not whole words */
		make_request(pkt, 4, 3, 0);
		len = 49 + (size_t)(rnd() % 3);
		break;
	case 5: /* valid, with extension fields / MAC bytes after */
		make_request(pkt, 4, 3, 0);
		len = 48 + 4 * (size_t)(rnd() % 150);
		for (size_t i = 48; i < len; i++)
			pkt[i] = (uint8_t)rnd();
		break;
	case 6: /* other modes (1, 2, 4, 5) */
		make_request(pkt, 4, (unsigned)(1 + rnd() % 5), 0);
		if ((pkt[0] & 7) == 3)
			pkt[0] = (uint8_t)((pkt[0] & ~7) | 5);
		len = 48;
		break;
	default: /* plain valid requests, versions 1..4 */
		make_request(pkt, (unsigned)(1 + rnd() % 4), 3, 0);
		len = 48;
		break;
	}
	return len;
}

struct flood_count {
	uint64_t sent, answered, expected, bad;
	uint64_t kinds[8];
};

/* A reply of n bytes: an answer to a request that deserved one, or bad. */
static void tally(struct flood_count *fc, const uint8_t *in, ssize_t n)
{
	if (n != 48 || (get64(in + 24) >> 56) != TAG_ANSWER)
		fc->bad++;
	else
		fc->answered++;
}

/* Sends up to `count` datagrams of every kind for `seconds`, reading the
 * replies as it goes and for 300 ms after. */
static void flood_send(int fd, uint64_t count, int64_t end,
                       struct flood_count *fc)
{
	uint8_t pkt[700], in[1024];
	ssize_t n;

	while (fc->sent < count && mono_ns() < end) {
		unsigned kind = (unsigned)(rnd() % 8);
		size_t len = make_junk(kind, pkt);

		if (len >= 48) {
			int want = deserves_answer(pkt, len);
			put64(pkt + 40, ((want ? TAG_ANSWER : TAG_SILENT) << 56) |
			                        ((uint64_t)kind << 48) | fc->sent);
			fc->expected += (uint64_t)want;
		}
		if (send(fd, pkt, len, 0) >= 0) {
			fc->sent++;
			fc->kinds[kind]++;
		}
		/* drain replies as we go */
		while ((n = recv(fd, in, sizeof(in), MSG_DONTWAIT)) >= 0)
			tally(fc, in, n);
	}
	/* late replies */
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 300) <= 0)
			break;
		n = recv(fd, in, sizeof(in), 0);
		if (n < 0)
			break;
		tally(fc, in, n);
	}
}

/* How many of 20 ordinary requests the server still answers. */
static int ordinary_after(int fd)
{
	uint8_t pkt[48], in[1024];
	int ok = 0;

	for (int i = 0; i < 20; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		uint64_t tx = UINT64_C(0x7700000000000000) | (uint64_t)i;
		make_request(pkt, 4, 3, tx);
		if (send(fd, pkt, 48, 0) != 48)
			continue;
		while (poll(&p, 1, 1000) > 0) {
			ssize_t n = recv(fd, in, sizeof(in), 0);
			if (n == 48 && (in[0] & 7) == 4 && get64(in + 24) == tx &&
			    in[1] >= 1 && in[1] <= 15) {
				ok++;
				break;
			}
		}
	}
	return ok;
}

static int flood(int argc, char **argv)
{
	uint64_t count = 200000;
	struct flood_count fc;
	double seconds = 10;
	struct sockaddr_in sa;
	int64_t start;
	int fd, ok_after;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_server flood ADDR:PORT [--count N] "
		        "[--seconds S]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
			count = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else
			return 2;
	}
	if (count > 10000000 || seconds <= 0 || seconds > 120)
		return 2;
	fd = udp_to(argv[1], &sa);
	if (fd < 0) {
		fprintf(stderr, "bench_server flood: %s: not a 127.x.y.z:PORT\n",
		        argv[1]);
		return 2;
	}
	rng_state ^= (uint64_t)getpid() << 20 ^ (uint64_t)mono_ns();
	memset(&fc, 0, sizeof(fc));
	start = mono_ns();
	flood_send(fd, count, start + (int64_t)(seconds * 1e9), &fc);
	ok_after = ordinary_after(fd);
	close(fd);
	printf("flood: sent %" PRIu64 " datagrams in %.2f s (random %" PRIu64
	       ", truncated %" PRIu64 ", mode 6/7 %" PRIu64 ", bad version %" PRIu64
	       ", odd length %" PRIu64 ", extensions %" PRIu64 ", other modes %" PRIu64
	       ", valid %" PRIu64 ")\n",
	       fc.sent, (double)(mono_ns() - start) / 1e9, fc.kinds[0],
	       fc.kinds[1], fc.kinds[2], fc.kinds[3], fc.kinds[4], fc.kinds[5],
	       fc.kinds[6], fc.kinds[7]);
	printf("flood: %" PRIu64 " answers to the %" PRIu64
	       " that deserved one (loss under flood is allowed), %" PRIu64
	       " wrong answers; afterwards %d/20 ordinary requests answered\n",
	       fc.answered, fc.expected, fc.bad, ok_after);
	return (fc.bad == 0 && fc.answered <= fc.expected && ok_after == 20) ? 0 : 1;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && strcmp(argv[1], "flood") == 0)
		return flood(argc - 1, argv + 1);
	return bench(argc, argv);
}
