/*
 * ntp_load.c - an NTP load generator: the highest request rate a server
 * answers with under 0.1 % loss, and its latency percentiles.
 *
 *   ntp_load [options] ADDR:PORT
 *
 * Client requests (mode 3, NTPv4, 48 bytes) go out from many source
 * addresses of the loopback 127.0.0.0/8 (--clients N of them, 127.1.0.1
 * upwards, chosen per packet with IP_PKTINFO on sockets bound to the
 * wildcard, so that no per-address rate limit of the server is hit and
 * its receive side sees many clients), on --sockets per thread and
 * --threads threads, in batches (sendmmsg/recvmmsg). Each request's
 * transmit timestamp carries the send time (CLOCK_MONOTONIC ns), which
 * the server's reply echoes as its origin: latency without a table.
 *
 * The offered rate is stepped (--start, times --factor each step, up to
 * --max-rate); each step sends for --step seconds and waits --drain for
 * late replies. A reply counts for its step when its echoed send time is
 * within the step's window; loss = 1 - replies / sent. The search stops at
 * the second step over --loss (0.1 %), at --max-rate, or after --max-time
 * seconds in all. A step whose generator could not send what it offered
 * (under 98 %) is marked "gen-limited": it says nothing about the server.
 *
 * Output: one line per step, then
 *   RESULT max_rate=R p50_us=X p99_us=Y (R: the highest offered rate
 *   served under the loss limit; X, Y at that step)
 *
 * --key ID:HEX signs every request with a legacy SHA1 MAC (RFC 5905: key id
 * and SHA1(key || packet), 20 bytes, as chrony and ntpd check it), the
 * load of a keyed service; a reply counts when it is signed too (longer
 * than 48 bytes), and unsigned ones (crypto-NAK, or a server without the
 * key) are counted apart. --nts (NTS load) is accepted and refused for
 * now.
 */
#define _GNU_SOURCE
#include "leaptable_impl.h" /* lc__sha1 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define MAX_SOCKS 64
#define MAX_THREADS 16
#define NTP_LEN 48
#define MAC_LEN 20 /* SHA1 */
#define MAX_KEY 64

struct opts {
	struct sockaddr_in server;
	int threads, sockets, clients;
	double start, factor, max_rate, step_s, drain_s, max_time_s, loss;
	int keyed;          /* --key: SHA1 MAC on every request */
	uint32_t key_id;
	uint8_t key[MAX_KEY];
	size_t key_len;
};

struct step_stats {
	uint64_t sent, replies, kods, bad, unsigned_;
	uint32_t *lat; /* ns (capped at 4.29 s) */
	size_t nlat, cap;
};

struct worker {
	const struct opts *o;
	int id;
	int fd[MAX_SOCKS];
	uint32_t next_client;
	/* the step to run (set by main before the start barrier) */
	double rate;          /* this thread's requests per second */
	int64_t t0, t_end, t_stop; /* send from t0 to t_end; receive to t_stop */
	struct step_stats st;
	pthread_t th;
};

static pthread_barrier_t bar_start, bar_done;
static volatile int quit;

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The n-th client address: 127.1.0.1 upwards, never .0 or .255. */
static struct in_addr client_addr(uint32_t n)
{
	uint32_t host = (n / 254) * 256 + n % 254 + 1; /* skip .0, .255 */
	struct in_addr a;

	a.s_addr = htonl(0x7f010000u + host);
	return a;
}

static void record(struct step_stats *st, const uint8_t *buf, ssize_t len,
                   int64_t now, int64_t t0, int64_t t_end, int keyed)
{
	int64_t sent_at, lat;

	if (len < NTP_LEN || (buf[0] & 7) != 4) {
		st->bad++;
		return;
	}
	sent_at = (int64_t)get64(buf + 24); /* origin = our transmit */
	if (sent_at < t0 || sent_at >= t_end)
		return; /* a late reply to an earlier step */
	/* a kiss that refuses (RATE, DENY, RSTR, NTSN) is no answer; an
	 * unsynchronised server's stratum 0 reply (ntpd's INIT) is one */
	if (buf[1] == 0 && (memcmp(buf + 12, "RATE", 4) == 0 ||
	                    memcmp(buf + 12, "DENY", 4) == 0 ||
	                    memcmp(buf + 12, "RSTR", 4) == 0 ||
	                    memcmp(buf + 12, "NTSN", 4) == 0)) {
		st->kods++;
		return;
	}
	if (keyed && len <= NTP_LEN) {
		st->unsigned_++; /* a crypto-NAK (52) or no MAC at all */
		return;
	}
	st->replies++;
	lat = now - sent_at;
	if (st->nlat < st->cap)
		st->lat[st->nlat++] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
}

static void receive_all(struct worker *w)
{
	static __thread uint8_t bufs[BATCH][128];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];

	for (int s = 0; s < w->o->sockets; s++) {
		for (;;) {
			int n;
			int64_t now;

			for (int i = 0; i < BATCH; i++) {
				iov[i].iov_base = bufs[i];
				iov[i].iov_len = sizeof(bufs[i]);
				memset(&mm[i], 0, sizeof(mm[i]));
				mm[i].msg_hdr.msg_iov = &iov[i];
				mm[i].msg_hdr.msg_iovlen = 1;
			}
			n = recvmmsg(w->fd[s], mm, BATCH, MSG_DONTWAIT, NULL);
			if (n <= 0)
				break;
			now = mono_ns();
			for (int i = 0; i < n; i++)
				record(&w->st, bufs[i], (ssize_t)mm[i].msg_len, now,
				       w->t0, w->t_end, w->o->keyed);
			if (n < BATCH)
				break;
		}
	}
}

/* Sends `count` requests, spread over the sockets, each from the next
 * client address. Returns how many the kernel took. */
static uint64_t send_some(struct worker *w, uint64_t count)
{
	static __thread uint8_t pkts[BATCH][NTP_LEN + 4 + MAC_LEN];
	static __thread union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(struct in_pktinfo))];
	} ctl[BATCH];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	uint64_t done = 0;
	static __thread int sock_rr;

	while (done < count) {
		int n = count - done > BATCH ? BATCH : (int)(count - done);
		int64_t now = mono_ns();
		int got;

		for (int i = 0; i < n; i++) {
			struct cmsghdr *c;
			struct in_pktinfo pi;

			memset(pkts[i], 0, NTP_LEN);
			pkts[i][0] = (4 << 3) | 3; /* LI 0, VN 4, client */
			put64(pkts[i] + 40, (uint64_t)now);
			iov[i].iov_base = pkts[i];
			iov[i].iov_len = NTP_LEN;
			if (w->o->keyed) {
				struct lc__sha1 h;
				uint8_t *mac = pkts[i] + NTP_LEN;

				mac[0] = (uint8_t)(w->o->key_id >> 24);
				mac[1] = (uint8_t)(w->o->key_id >> 16);
				mac[2] = (uint8_t)(w->o->key_id >> 8);
				mac[3] = (uint8_t)w->o->key_id;
				lc__sha1_init(&h);
				lc__sha1_update(&h, w->o->key, w->o->key_len);
				lc__sha1_update(&h, pkts[i], NTP_LEN);
				lc__sha1_final(&h, mac + 4);
				iov[i].iov_len = NTP_LEN + 4 + MAC_LEN;
			}
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_name = (void *)&w->o->server;
			mm[i].msg_hdr.msg_namelen = sizeof(w->o->server);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			memset(&ctl[i], 0, sizeof(ctl[i]));
			mm[i].msg_hdr.msg_control = ctl[i].b;
			mm[i].msg_hdr.msg_controllen = sizeof(ctl[i].b);
			c = CMSG_FIRSTHDR(&mm[i].msg_hdr);
			c->cmsg_level = IPPROTO_IP;
			c->cmsg_type = IP_PKTINFO;
			c->cmsg_len = CMSG_LEN(sizeof(pi));
			memset(&pi, 0, sizeof(pi));
			pi.ipi_spec_dst = client_addr(w->next_client);
			w->next_client = (w->next_client + 1) % (uint32_t)w->o->clients;
			memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		}
		got = sendmmsg(w->fd[sock_rr], mm, (unsigned)n, MSG_DONTWAIT);
		sock_rr = (sock_rr + 1) % w->o->sockets;
		if (got <= 0)
			break; /* the socket's buffer is full: later */
		done += (uint64_t)got;
	}
	return done;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		pthread_barrier_wait(&bar_start);
		if (quit)
			return NULL;
		while (mono_ns() < w->t0)
			;
		for (;;) {
			int64_t now = mono_ns();
			uint64_t due;

			if (now >= w->t_stop)
				break;
			if (now < w->t_end) {
				due = (uint64_t)((double)(now - w->t0) * w->rate / 1e9);
				if (due > w->st.sent)
					w->st.sent += send_some(w, due - w->st.sent);
			}
			receive_all(w);
			{
				/* paced in ticks: never spin (the server may
				 * share the cores) */
				struct timespec nap = { 0, 200000 };
				nanosleep(&nap, NULL);
			}
		}
		pthread_barrier_wait(&bar_done);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: ntp_load [options] ADDR:PORT\n"
	        "  --threads N    sending/receiving threads (default 2)\n"
	        "  --sockets N    sockets per thread (default 8)\n"
	        "  --clients N    source addresses from 127.1.0.1 up (default 10000,\n"
	        "                 at most 16581120: 127.1.0.1..127.255.255.254)\n"
	        "  --start R      first offered rate, requests/s (default 5000)\n"
	        "  --factor F     rate multiplier per step (default 1.2)\n"
	        "  --max-rate R   stop there (default 2000000)\n"
	        "  --step S       seconds of sending per step (default 2)\n"
	        "  --drain S      seconds to wait for late replies (default 0.3)\n"
	        "  --max-time S   stop after S seconds in all (default 60)\n"
	        "  --loss P       loss limit in percent (default 0.1)\n"
	        "  --key ID:HEX   sign requests with SHA1 key ID (hex bytes)\n"
	        "  --nts          (NTS load: not yet)\n");
}

int main(int argc, char **argv)
{
	struct opts o = { .threads = 2, .sockets = 8, .clients = 10000,
	                  .start = 5000, .factor = 1.2, .max_rate = 2e6,
	                  .step_s = 2, .drain_s = 0.3, .max_time_s = 60,
	                  .loss = 0.1 };
	static struct worker w[MAX_THREADS];
	const char *target = NULL;
	double rate, best = 0, best50 = 0, best99 = 0;
	int64_t begin;
	int overs = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

#define NUM(name, field)                                                   \
	if (strcmp(a, name) == 0 && v != NULL) {                           \
		o.field = atof(v);                                         \
		i++;                                                       \
		continue;                                                  \
	}
		NUM("--threads", threads)
		NUM("--sockets", sockets)
		NUM("--clients", clients)
		NUM("--start", start)
		NUM("--factor", factor)
		NUM("--max-rate", max_rate)
		NUM("--step", step_s)
		NUM("--drain", drain_s)
		NUM("--max-time", max_time_s)
		NUM("--loss", loss)
#undef NUM
		if (strcmp(a, "--key") == 0 && v != NULL) {
			char *end;
			unsigned long id = strtoul(v, &end, 10);
			size_t hl;

			i++;
			if (*end != ':' || id == 0 || id > UINT32_MAX ||
			    (hl = strlen(end + 1)) == 0 || hl % 2 != 0 ||
			    hl / 2 > MAX_KEY) {
				fprintf(stderr, "ntp_load: --key ID:HEX (SHA1 key, "
				        "1..%d bytes in hex)\n", MAX_KEY);
				return 2;
			}
			for (size_t k = 0; k < hl / 2; k++) {
				unsigned b;

				if (sscanf(end + 1 + 2 * k, "%2x", &b) != 1) {
					fprintf(stderr, "ntp_load: --key: bad hex\n");
					return 2;
				}
				o.key[k] = (uint8_t)b;
			}
			o.key_len = hl / 2;
			o.key_id = (uint32_t)id;
			o.keyed = 1;
			continue;
		}
		if (strcmp(a, "--nts") == 0) {
			fprintf(stderr, "ntp_load: --nts: NTS load is not "
			        "implemented yet\n");
			return 2;
		}
		if (a[0] == '-' || target != NULL) {
			usage();
			return 2;
		}
		target = a;
	}
	if (target == NULL || o.threads < 1 || o.threads > MAX_THREADS ||
	    o.sockets < 1 || o.sockets > MAX_SOCKS || o.clients < 1 ||
	    o.clients > 254 * 65280 /* to 127.255.255.254 */ ||
	    o.start <= 0 || o.factor <= 1 ||
	    o.step_s <= 0 || o.drain_s < 0) {
		usage();
		return 2;
	}
	{
		char host[64];
		const char *colon = strrchr(target, ':');

		if (colon == NULL || (size_t)(colon - target) >= sizeof(host)) {
			usage();
			return 2;
		}
		memcpy(host, target, (size_t)(colon - target));
		host[colon - target] = '\0';
		o.server.sin_family = AF_INET;
		o.server.sin_port = htons((uint16_t)atoi(colon + 1));
		if (inet_pton(AF_INET, host, &o.server.sin_addr) != 1) {
			fprintf(stderr, "ntp_load: %s: not IPv4 ADDR:PORT\n", target);
			return 2;
		}
	}
	for (int t = 0; t < o.threads; t++) {
		w[t].o = &o;
		w[t].id = t;
		w[t].next_client = (uint32_t)(t * o.clients / o.threads);
		for (int s = 0; s < o.sockets; s++) {
			struct sockaddr_in any = { .sin_family = AF_INET };
			int big = 4 << 20;

			w[t].fd[s] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			if (w[t].fd[s] < 0 ||
			    bind(w[t].fd[s], (struct sockaddr *)&any, sizeof(any)) != 0) {
				perror("ntp_load: socket");
				return 1;
			}
			/* over rmem_max as root; else as much as allowed */
			if (setsockopt(w[t].fd[s], SOL_SOCKET, SO_RCVBUFFORCE, &big,
			               sizeof(big)) != 0)
				setsockopt(w[t].fd[s], SOL_SOCKET, SO_RCVBUF, &big,
				           sizeof(big));
			if (setsockopt(w[t].fd[s], SOL_SOCKET, SO_SNDBUFFORCE, &big,
			               sizeof(big)) != 0)
				setsockopt(w[t].fd[s], SOL_SOCKET, SO_SNDBUF, &big,
				           sizeof(big));
		}
	}
	pthread_barrier_init(&bar_start, NULL, (unsigned)o.threads + 1);
	pthread_barrier_init(&bar_done, NULL, (unsigned)o.threads + 1);
	for (int t = 0; t < o.threads; t++)
		pthread_create(&w[t].th, NULL, worker_main, &w[t]);

	printf("# ntp_load %s: %d threads x %d sockets, %d client addresses, "
	       "%.1f s steps, loss limit %.3f %%%s\n",
	       target, o.threads, o.sockets, o.clients, o.step_s, o.loss,
	       o.keyed ? ", SHA1-signed requests" : "");
	printf("# %10s %10s %10s %8s %9s %9s %s\n", "offered/s", "sent/s",
	       "replies/s", "loss%", "p50_us", "p99_us", "note");
	fflush(stdout);
	begin = mono_ns();
	for (rate = o.start; rate <= o.max_rate * 1.0001; rate *= o.factor) {
		int64_t t0 = mono_ns() + 20000000;
		size_t cap = (size_t)(rate * o.step_s / o.threads * 1.05) + 1024;
		uint64_t sent = 0, replies = 0, kods = 0, bad = 0, unsig = 0;
		uint32_t *all;
		size_t nall = 0;
		double loss, p50 = 0, p99 = 0;
		const char *note = "";

		if ((double)(t0 - begin) / 1e9 + o.step_s + o.drain_s > o.max_time_s)
			break;
		for (int t = 0; t < o.threads; t++) {
			memset(&w[t].st, 0, sizeof(w[t].st));
			w[t].st.lat = malloc(cap * sizeof(uint32_t));
			w[t].st.cap = w[t].st.lat != NULL ? cap : 0;
			w[t].rate = rate / o.threads;
			w[t].t0 = t0;
			w[t].t_end = t0 + (int64_t)(o.step_s * 1e9);
			w[t].t_stop = w[t].t_end + (int64_t)(o.drain_s * 1e9);
		}
		pthread_barrier_wait(&bar_start);
		pthread_barrier_wait(&bar_done);
		for (int t = 0; t < o.threads; t++) {
			sent += w[t].st.sent;
			replies += w[t].st.replies;
			kods += w[t].st.kods;
			bad += w[t].st.bad;
			unsig += w[t].st.unsigned_;
			nall += w[t].st.nlat;
		}
		all = malloc((nall + 1) * sizeof(uint32_t));
		nall = 0;
		for (int t = 0; t < o.threads; t++) {
			if (all != NULL)
				memcpy(all + nall, w[t].st.lat,
				       w[t].st.nlat * sizeof(uint32_t));
			nall += w[t].st.nlat;
			free(w[t].st.lat);
		}
		if (all != NULL && nall > 0) {
			qsort(all, nall, sizeof(uint32_t), cmp_u32);
			p50 = all[nall / 2] / 1e3;
			p99 = all[(size_t)((double)nall * 0.99)] / 1e3;
		}
		free(all);
		loss = sent ? 100.0 * (1.0 - (double)replies / (double)sent) : 100;
		if ((double)sent < 0.98 * rate * o.step_s)
			note = "gen-limited";
		else if (loss > o.loss)
			note = "over the loss limit";
		if (kods || bad || unsig)
			printf("#   %" PRIu64 " refusing kiss-o'-death, %" PRIu64
			       " bad replies, %" PRIu64 " unsigned\n",
			       kods, bad, unsig);
		printf("  %10.0f %10.0f %10.0f %8.3f %9.1f %9.1f %s\n", rate,
		       sent / o.step_s, replies / o.step_s, loss, p50, p99, note);
		fflush(stdout);
		if (loss <= o.loss && note[0] == '\0') {
			best = rate;
			best50 = p50;
			best99 = p99;
			overs = 0;
		} else if (++overs >= 2) {
			break;
		}
	}
	quit = 1;
	pthread_barrier_wait(&bar_start);
	for (int t = 0; t < o.threads; t++)
		pthread_join(w[t].th, NULL);
	printf("RESULT max_rate=%.0f p50_us=%.1f p99_us=%.1f\n", best, best50,
	       best99);
	return 0;
}
