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
 * --repeat N measures latency at one rate instead: N steps at --start,
 * then
 *   REPEAT rate=R steps=N over=K loss_pct=L p99_med_us=X p99all_med_us=Y
 * with K the steps over the loss limit, L the loss over all steps, X the
 * median over the steps of their p99, and Y the median of their p99 with
 * every lost request counted as later than any answer ("inf" when a step
 * lost 1 % or more). A single step's p99 moves by 10x from one step to the
 * next on a shared 2-core host (a worker waiting for its core for a few
 * ms), and a server that drops requests in such a stall instead of
 * queueing them leaves its worst latencies out of its own p99: Y counts
 * them.
 *
 * --key ID:HEX signs every request with a legacy SHA1 MAC (RFC 5905: key id
 * and SHA1(key || packet), 20 bytes, as chrony and ntpd check it), the
 * load of a keyed service; a reply counts when it is signed too (longer
 * than 48 bytes), and unsigned ones (crypto-NAK, or a server without the
 * key) are counted apart.
 *
 * --nts HOST:KEPORT (needs GnuTLS) does one NTS-KE exchange first (RFC
 * 8915: TLS 1.3, ALPN ntske/1; Next Protocol NTPv4, AEAD AES-SIV-CMAC-256,
 * End of Message), exports C2S and S2C (RFC 5705, label
 * "EXPORTER-network-time-security") and keeps the cookies; the server's
 * certificate is checked against --nts-ca FILE when given (else not
 * checked: a benchmark, not a client to trust). Requests still go to
 * ADDR:PORT (a Port Negotiation record is printed, not followed). Every
 * request carries a Unique Identifier (thread, sequence), one of the
 * cookies (in turn; a server keeps no replay state, so a cookie serves any
 * number of requests: RFC 8915 only asks clients not to reuse one for
 * unlinkability) and an NTS Authenticator sealed with C2S under a 16-byte
 * nonce (thread, sequence). A reply counts when it is an NTS reply: not a
 * kiss and echoing one of our Unique Identifiers (an NTSN kiss is counted
 * as a refusal, a reply without our UID as unsigned); replies are not
 * decrypted.
 *
 * NTS requests are sealed one by one, when sent: the authenticator covers
 * the header, so the transmit timestamp (the send time the latency is
 * read from) must be in it before sealing, and a precomputed ring would
 * need a table of send times keyed by Unique Identifier, whose reuse
 * across steps would misattribute late replies. One AES-SIV seal costs the
 * generator about a quarter of what a server spends per NTS request (it
 * opens the cookie and the request, seals the answer and a new cookie);
 * ntp_load measures its own sealing rate before the run and prints it, and
 * the "gen-limited" mark still flags a step it could not send in full.
 */
#define _GNU_SOURCE
#include "leaptable_impl.h" /* lc__sha1 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef LD_HAVE_GNUTLS
#include "nts_ef.h"          /* ld_nts_ef_put, LD_EF_* */
#include "nts_ke_records.h"  /* LD_NTSKE_* */
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#endif

#define BATCH 64
#define MAX_REPEAT 1000 /* --repeat steps at most */
#define MAX_SOCKS 64
#define MAX_THREADS 16
#define NTP_LEN 48
#define MAC_LEN 20 /* SHA1 */
#define MAX_KEY 64
#define MAX_PKT 512
#define NTS_COOKIES 8
#define NTS_COOKIE_MAX 256
#define NTS_KEY_LEN 32 /* AES-SIV-CMAC-256 */
#define NTS_NONCE_LEN 16
#define NTS_UID_LEN 32
#define NTS_TAG_LEN 16

struct nts_setup {
	char ke_host[64];
	uint16_t ke_port;
	const char *ca;      /* --nts-ca: trusted certificates, or NULL */
	uint8_t c2s[NTS_KEY_LEN], s2c[NTS_KEY_LEN];
	uint8_t cookie[NTS_COOKIES][NTS_COOKIE_MAX];
	size_t cookie_len[NTS_COOKIES];
	int ncookies;
	int port; /* from a Port Negotiation record, or -1 */
};

struct opts {
	struct sockaddr_in server;
	const char *target;
	int threads, sockets, clients;
	double start, factor, max_rate, step_s, drain_s, max_time_s, loss;
	int repeat;         /* --repeat N: N steps at --start, then REPEAT */
	int keyed;          /* --key: SHA1 MAC on every request */
	uint32_t key_id;
	uint8_t key[MAX_KEY];
	size_t key_len;
	int nts;            /* --nts: NTS-authenticated requests */
	struct nts_setup ns;
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
	uint64_t seq; /* NTS: this thread's requests so far */
#ifdef LD_HAVE_GNUTLS
	gnutls_aead_cipher_hd_t c2s; /* NTS: sealing handle */
#endif
	/* the step to run (set by main before the start barrier) */
	double rate;          /* this thread's requests per second */
	int64_t t0, t_end, t_stop; /* send from t0 to t_end; receive to t_stop */
	struct step_stats st;
	pthread_t th;
};

/* One step's totals over the threads. */
struct step_result {
	double rate;
	uint64_t sent, replies, kods, bad, unsig;
	double loss, p50, p99;
	double p99all; /* p99 with lost requests counted as latest (INFINITY) */
	const char *note;
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

/* a kiss that refuses (RATE, DENY, RSTR, NTSN) is no answer; an
 * unsynchronised server's stratum 0 reply (ntpd's INIT) is one */
static int refusing_kiss(const uint8_t *buf)
{
	return buf[1] == 0 && (memcmp(buf + 12, "RATE", 4) == 0 ||
	                       memcmp(buf + 12, "DENY", 4) == 0 ||
	                       memcmp(buf + 12, "RSTR", 4) == 0 ||
	                       memcmp(buf + 12, "NTSN", 4) == 0);
}

/* 1 when the reply buf[0..len) echoes a Unique Identifier of ours (RFC
 * 8915 5.7: an NTS reply carries the request's, in the clear). */
static int echoes_uid(const uint8_t *buf, size_t len)
{
	for (size_t off = NTP_LEN; off + 4 <= len;) {
		size_t flen = (size_t)buf[off + 2] << 8 | buf[off + 3];

		if (flen < 4 || flen > len - off)
			return 0;
		if ((buf[off] << 8 | buf[off + 1]) == 0x0104 /* UID */)
			return flen == 4 + NTS_UID_LEN &&
			       memcmp(buf + off + 4, "lcld", 4) == 0;
		off += flen;
	}
	return 0;
}

static void record(struct step_stats *st, const uint8_t *buf, ssize_t len,
                   int64_t now, const struct worker *w)
{
	int64_t sent_at, lat;

	if (len < NTP_LEN || (buf[0] & 7) != 4) {
		st->bad++;
		return;
	}
	sent_at = (int64_t)get64(buf + 24); /* origin = our transmit */
	if (sent_at < w->t0 || sent_at >= w->t_end)
		return; /* a late reply to an earlier step */
	if (refusing_kiss(buf)) {
		st->kods++;
		return;
	}
	if ((w->o->keyed && len <= NTP_LEN) ||
	    (w->o->nts && !echoes_uid(buf, (size_t)len))) {
		st->unsigned_++; /* a crypto-NAK (52), no MAC, not NTS */
		return;
	}
	st->replies++;
	lat = now - sent_at;
	if (st->nlat < st->cap)
		st->lat[st->nlat++] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
}

static void receive_all(struct worker *w)
{
	static __thread uint8_t bufs[BATCH][MAX_PKT];
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
				record(&w->st, bufs[i], (ssize_t)mm[i].msg_len, now, w);
			if (n < BATCH)
				break;
		}
	}
}

/* ---- requests ---- */

/* Appends the SHA1 MAC (key id, digest) to the 48-byte request p. */
static size_t sign_sha1(const struct opts *o, uint8_t *p)
{
	struct lc__sha1 h;
	uint8_t *mac = p + NTP_LEN;

	mac[0] = (uint8_t)(o->key_id >> 24);
	mac[1] = (uint8_t)(o->key_id >> 16);
	mac[2] = (uint8_t)(o->key_id >> 8);
	mac[3] = (uint8_t)o->key_id;
	lc__sha1_init(&h);
	lc__sha1_update(&h, o->key, o->key_len);
	lc__sha1_update(&h, p, NTP_LEN);
	lc__sha1_final(&h, mac + 4);
	return NTP_LEN + 4 + MAC_LEN;
}

#ifdef LD_HAVE_GNUTLS
/* Appends UID, cookie and authenticator (sealed with C2S over everything
 * before it, empty plaintext) to the 48-byte request p[0..MAX_PKT). Its
 * length, or 0. */
static size_t seal_nts(struct worker *w, uint8_t *p)
{
	const struct nts_setup *ns = &w->o->ns;
	uint8_t uid[NTS_UID_LEN] = { 'l', 'c', 'l', 'd' }, nonce[NTS_NONCE_LEN];
	int c = (int)(w->seq % (uint64_t)ns->ncookies);
	size_t n = NTP_LEN, ad, olen = NTS_TAG_LEN;

	/* unique per request: (thread, sequence); the nonce likewise */
	uid[4] = (uint8_t)w->id;
	put64(uid + 8, w->seq);
	memset(nonce, 0, sizeof(nonce));
	nonce[0] = (uint8_t)w->id;
	put64(nonce + 8, w->seq);
	w->seq++;
	n += ld_nts_ef_put(p + n, MAX_PKT - n, LD_EF_UNIQUE_ID, uid, sizeof(uid));
	n += ld_nts_ef_put(p + n, MAX_PKT - n, LD_EF_COOKIE, ns->cookie[c],
	                   ns->cookie_len[c]);
	ad = n;
	if (n + 8 + NTS_NONCE_LEN + NTS_TAG_LEN > MAX_PKT)
		return 0;
	p[n] = (uint8_t)(LD_EF_AUTHENTICATOR >> 8);
	p[n + 1] = (uint8_t)LD_EF_AUTHENTICATOR;
	p[n + 2] = 0;
	p[n + 3] = 8 + NTS_NONCE_LEN + NTS_TAG_LEN;
	p[n + 4] = 0, p[n + 5] = NTS_NONCE_LEN;   /* nonce length */
	p[n + 6] = 0, p[n + 7] = NTS_TAG_LEN;     /* ciphertext length */
	memcpy(p + n + 8, nonce, NTS_NONCE_LEN);
	if (gnutls_aead_cipher_encrypt(w->c2s, nonce, NTS_NONCE_LEN, p, ad,
	                               NTS_TAG_LEN, NULL, 0,
	                               p + n + 8 + NTS_NONCE_LEN, &olen) < 0 ||
	    olen != NTS_TAG_LEN)
		return 0;
	return n + 8 + NTS_NONCE_LEN + NTS_TAG_LEN;
}
#endif

/* Writes this thread's next request, sent at `now`, into p. Its length. */
static size_t build_request(struct worker *w, uint8_t *p, int64_t now)
{
	memset(p, 0, NTP_LEN);
	p[0] = (4 << 3) | 3; /* LI 0, VN 4, client */
	put64(p + 40, (uint64_t)now);
	if (w->o->keyed)
		return sign_sha1(w->o, p);
#ifdef LD_HAVE_GNUTLS
	if (w->o->nts)
		return seal_nts(w, p);
#endif
	return NTP_LEN;
}

/* Points message i at packet pkt[0..len), from the next client address. */
static void address_msg(struct worker *w, struct mmsghdr *m, struct iovec *iov,
                        uint8_t *ctl, size_t ctl_len, uint8_t *pkt, size_t len)
{
	struct cmsghdr *c;
	struct in_pktinfo pi;

	iov->iov_base = pkt;
	iov->iov_len = len;
	memset(m, 0, sizeof(*m));
	m->msg_hdr.msg_name = (void *)&w->o->server;
	m->msg_hdr.msg_namelen = sizeof(w->o->server);
	m->msg_hdr.msg_iov = iov;
	m->msg_hdr.msg_iovlen = 1;
	memset(ctl, 0, ctl_len);
	m->msg_hdr.msg_control = ctl;
	m->msg_hdr.msg_controllen = ctl_len;
	c = CMSG_FIRSTHDR(&m->msg_hdr);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memset(&pi, 0, sizeof(pi));
	pi.ipi_spec_dst = client_addr(w->next_client);
	w->next_client = (w->next_client + 1) % (uint32_t)w->o->clients;
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
}

/* Sends `count` requests, spread over the sockets, each from the next
 * client address. Returns how many the kernel took. */
static uint64_t send_some(struct worker *w, uint64_t count)
{
	static __thread uint8_t pkts[BATCH][MAX_PKT];
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
			size_t len = build_request(w, pkts[i], now);

			if (len == 0)
				return done; /* NTS sealing failed */
			address_msg(w, &mm[i], &iov[i], ctl[i].b, sizeof(ctl[i].b),
			            pkts[i], len);
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
			/* paced in ticks: never spin (the server may share
			 * the cores) */
			struct timespec nap = { 0, 200000 };

			if (now >= w->t_stop)
				break;
			if (now < w->t_end) {
				due = (uint64_t)((double)(now - w->t0) * w->rate / 1e9);
				if (due > w->st.sent)
					w->st.sent += send_some(w, due - w->st.sent);
			}
			receive_all(w);
			nanosleep(&nap, NULL);
		}
		pthread_barrier_wait(&bar_done);
	}
}

/* ---- NTS-KE (RFC 8915 section 4), as a client ---- */

#ifdef LD_HAVE_GNUTLS
static int tcp_connect(const char *host, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { 5, 0 };
	int fd;

	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static size_t ke_record(uint8_t *p, unsigned type, const void *body,
                        size_t blen)
{
	unsigned word = type | LD_NTSKE_CRITICAL;

	p[0] = (uint8_t)(word >> 8);
	p[1] = (uint8_t)word;
	p[2] = (uint8_t)(blen >> 8);
	p[3] = (uint8_t)blen;
	if (blen > 0)
		memcpy(p + 4, body, blen);
	return 4 + blen;
}

/* Reads the answer's records in buf[0..len) into ns. 1 once End of
 * Message was read (then 0 when the answer agreed and gave cookies, -1
 * in *err otherwise), 0 when more bytes are needed. */
static int ke_parse(struct nts_setup *ns, const uint8_t *buf, size_t len,
                    int *err)
{
	int proto = 0, aead = 0;

	ns->ncookies = 0;
	ns->port = -1;
	for (size_t off = 0; off + 4 <= len;) {
		unsigned type = (unsigned)(buf[off] & 0x7f) << 8 | buf[off + 1];
		size_t bl = (size_t)buf[off + 2] << 8 | buf[off + 3];
		const uint8_t *b = buf + off + 4;

		if (off + 4 + bl > len)
			return 0;
		if (type == LD_NTSKE_END) {
			*err = proto && aead && ns->ncookies > 0 ? 0 : -1;
			return 1;
		}
		if (type == LD_NTSKE_ERROR && bl == 2)
			fprintf(stderr, "ntp_load: NTS-KE error record %d\n",
			        b[0] << 8 | b[1]);
		if (type == LD_NTSKE_NEXT_PROTO && bl == 2)
			proto = (b[0] << 8 | b[1]) == LD_NTS_PROTO_NTPV4;
		if (type == LD_NTSKE_AEAD && bl == 2)
			aead = (b[0] << 8 | b[1]) == LD_NTS_AEAD_AES_SIV_CMAC_256;
		if (type == LD_NTSKE_PORT && bl == 2)
			ns->port = b[0] << 8 | b[1];
		if (type == LD_NTSKE_COOKIE && bl > 0 && bl <= NTS_COOKIE_MAX &&
		    ns->ncookies < NTS_COOKIES) {
			memcpy(ns->cookie[ns->ncookies], b, bl);
			ns->cookie_len[ns->ncookies++] = bl;
		}
		off += 4 + bl;
	}
	return 0;
}

/* The TLS 1.3 session on fd, ALPN ntske/1, the certificate checked
 * against ns->ca if given. 0 or -1. */
static int ke_handshake(gnutls_session_t s, gnutls_certificate_credentials_t cred,
                        const struct nts_setup *ns, int fd)
{
	gnutls_datum_t alpn = { (unsigned char *)"ntske/1", 7 };
	int r;

	if (ns->ca != NULL &&
	    gnutls_certificate_set_x509_trust_file(cred, ns->ca,
	                                           GNUTLS_X509_FMT_PEM) <= 0) {
		fprintf(stderr, "ntp_load: --nts-ca %s: no certificate read\n", ns->ca);
		return -1;
	}
	if (gnutls_priority_set_direct(s, "NORMAL:-VERS-ALL:+VERS-TLS1.3", NULL) < 0 ||
	    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred) < 0 ||
	    gnutls_alpn_set_protocols(s, &alpn, 1, GNUTLS_ALPN_MANDATORY) < 0)
		return -1;
	if (ns->ca != NULL)
		gnutls_session_set_verify_cert(s, NULL, 0);
	gnutls_transport_set_int(s, fd);
	gnutls_handshake_set_timeout(s, 5000);
	do {
		r = gnutls_handshake(s);
	} while (r < 0 && !gnutls_error_is_fatal(r));
	if (r < 0)
		fprintf(stderr, "ntp_load: NTS-KE handshake: %s\n", gnutls_strerror(r));
	return r < 0 ? -1 : 0;
}

/* Keys (RFC 8915 5.1: context = protocol 0, AEAD 15, 0 C2S / 1 S2C),
 * request, answer. 0 or -1. */
static int ke_talk(gnutls_session_t s, struct nts_setup *ns)
{
	static const char label[] = "EXPORTER-network-time-security";
	uint8_t ctx[5] = { 0, 0, 0, LD_NTS_AEAD_AES_SIV_CMAC_256, 0 };
	uint8_t req[32], ans[8192], body[2];
	size_t rl = 0, got = 0;
	int err = -1;

	if (gnutls_prf_rfc5705(s, sizeof(label) - 1, label, sizeof(ctx),
	                       (const char *)ctx, NTS_KEY_LEN, (char *)ns->c2s) < 0)
		return -1;
	ctx[4] = 1;
	if (gnutls_prf_rfc5705(s, sizeof(label) - 1, label, sizeof(ctx),
	                       (const char *)ctx, NTS_KEY_LEN, (char *)ns->s2c) < 0)
		return -1;
	body[0] = 0, body[1] = LD_NTS_PROTO_NTPV4;
	rl += ke_record(req + rl, LD_NTSKE_NEXT_PROTO, body, 2);
	body[0] = 0, body[1] = LD_NTS_AEAD_AES_SIV_CMAC_256;
	rl += ke_record(req + rl, LD_NTSKE_AEAD, body, 2);
	rl += ke_record(req + rl, LD_NTSKE_END, NULL, 0);
	if (gnutls_record_send(s, req, rl) != (ssize_t)rl)
		return -1;
	while (got < sizeof(ans)) {
		ssize_t n = gnutls_record_recv(s, ans + got, sizeof(ans) - got);

		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (ke_parse(ns, ans, got, &err))
			break;
	}
	return err;
}

/* One NTS-KE exchange with ns->ke_host:ke_port. 0 or -1 (said why). */
static int nts_ke(struct nts_setup *ns)
{
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_session_t s = NULL;
	int fd = tcp_connect(ns->ke_host, ns->ke_port), r = -1;

	if (fd < 0) {
		fprintf(stderr, "ntp_load: NTS-KE %s:%u: %s\n", ns->ke_host,
		        ns->ke_port, strerror(errno));
		return -1;
	}
	if (gnutls_certificate_allocate_credentials(&cred) >= 0 &&
	    gnutls_init(&s, GNUTLS_CLIENT) >= 0 &&
	    ke_handshake(s, cred, ns, fd) == 0) {
		r = ke_talk(s, ns);
		if (r != 0)
			fprintf(stderr, "ntp_load: NTS-KE: no NTPv4/AES-SIV-CMAC-256 "
			        "agreement with cookies\n");
		gnutls_bye(s, GNUTLS_SHUT_WR);
	}
	if (s != NULL)
		gnutls_deinit(s);
	if (cred != NULL)
		gnutls_certificate_free_credentials(cred);
	close(fd);
	return r;
}

static int nts_worker_init(struct worker *w)
{
	gnutls_datum_t k = { (unsigned char *)w->o->ns.c2s, NTS_KEY_LEN };

	return gnutls_aead_cipher_init(&w->c2s, GNUTLS_CIPHER_AES_128_SIV, &k) < 0
	               ? -1 : 0;
}

/* The generator's own NTS sealing rate on one thread (requests/s). */
static double nts_seal_rate(struct worker *w)
{
	uint8_t p[MAX_PKT];
	int64_t t0 = mono_ns();
	int n;

	for (n = 0; n < 20000; n++)
		if (build_request(w, p, mono_ns()) == 0)
			return 0;
	w->seq = 0;
	return n / ((double)(mono_ns() - t0) / 1e9);
}
#endif

/* ---- options ---- */

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
	        "  --repeat N     N steps at the --start rate: latency at one rate\n"
	        "                 (median p99 over the steps; REPEAT line)\n"
	        "  --key ID:HEX   sign requests with SHA1 key ID (hex bytes)\n"
	        "  --nts H:P      NTS: cookies and keys from NTS-KE at IPv4 H port P\n"
	        "                 (not with --key)\n"
	        "  --nts-ca FILE  NTS: trust these certificates (default: no check)\n");
}

/* IPv4 "ADDR:PORT" into host[0..hmax) and *port. 0 or -1. */
static int split_addr(const char *s, char *host, size_t hmax, uint16_t *port)
{
	const char *colon = strrchr(s, ':');
	struct in_addr a;
	long p;
	char *end;

	if (colon == NULL || (size_t)(colon - s) >= hmax)
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	p = strtol(colon + 1, &end, 10);
	if (*end != '\0' || p < 1 || p > 65535 || inet_pton(AF_INET, host, &a) != 1)
		return -1;
	*port = (uint16_t)p;
	return 0;
}

static int parse_key(struct opts *o, const char *v)
{
	char *end;
	unsigned long id = strtoul(v, &end, 10);
	size_t hl;

	if (*end != ':' || id == 0 || id > UINT32_MAX ||
	    (hl = strlen(end + 1)) == 0 || hl % 2 != 0 || hl / 2 > MAX_KEY) {
		fprintf(stderr, "ntp_load: --key ID:HEX (SHA1 key, 1..%d bytes "
		        "in hex)\n", MAX_KEY);
		return -1;
	}
	for (size_t k = 0; k < hl / 2; k++) {
		unsigned b;

		if (sscanf(end + 1 + 2 * k, "%2x", &b) != 1) {
			fprintf(stderr, "ntp_load: --key: bad hex\n");
			return -1;
		}
		o->key[k] = (uint8_t)b;
	}
	o->key_len = hl / 2;
	o->key_id = (uint32_t)id;
	o->keyed = 1;
	return 0;
}

/* One option with its value v (NULL if none); how many arguments it
 * took (1 or 2), or -1. */
static int parse_option(struct opts *o, const char *a, const char *v)
{
	static const struct { const char *name; size_t off; int is_int; } num[] = {
		{ "--threads", offsetof(struct opts, threads), 1 },
		{ "--sockets", offsetof(struct opts, sockets), 1 },
		{ "--clients", offsetof(struct opts, clients), 1 },
		{ "--start", offsetof(struct opts, start), 0 },
		{ "--factor", offsetof(struct opts, factor), 0 },
		{ "--max-rate", offsetof(struct opts, max_rate), 0 },
		{ "--step", offsetof(struct opts, step_s), 0 },
		{ "--drain", offsetof(struct opts, drain_s), 0 },
		{ "--max-time", offsetof(struct opts, max_time_s), 0 },
		{ "--loss", offsetof(struct opts, loss), 0 },
		{ "--repeat", offsetof(struct opts, repeat), 1 },
	};

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		if (strcmp(a, num[i].name) != 0)
			continue;
		if (num[i].is_int)
			*(int *)((char *)o + num[i].off) = atoi(v);
		else
			*(double *)((char *)o + num[i].off) = atof(v);
		return 2;
	}
	if (strcmp(a, "--key") == 0)
		return parse_key(o, v) == 0 ? 2 : -1;
	if (strcmp(a, "--nts-ca") == 0) {
		o->ns.ca = v;
		return 2;
	}
	if (strcmp(a, "--nts") == 0) {
		o->nts = 1;
		if (split_addr(v, o->ns.ke_host, sizeof(o->ns.ke_host),
		               &o->ns.ke_port) == 0)
			return 2;
		fprintf(stderr, "ntp_load: --nts %s: not IPv4 HOST:KEPORT\n", v);
	}
	return -1;
}

static int parse_opts(struct opts *o, int argc, char **argv)
{
	char host[64];
	uint16_t port;

	for (int i = 1; i < argc; i++) {
		int used;

		if (argv[i][0] != '-') {
			if (o->target != NULL)
				return -1;
			o->target = argv[i];
			continue;
		}
		used = parse_option(o, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (used < 0)
			return -1;
		i += used - 1;
	}
	if (o->target == NULL || o->threads < 1 || o->threads > MAX_THREADS ||
	    o->sockets < 1 || o->sockets > MAX_SOCKS || o->clients < 1 ||
	    o->clients > 254 * 65280 /* to 127.255.255.254 */ ||
	    o->start <= 0 || o->factor <= 1 || o->step_s <= 0 || o->repeat < 0 || o->repeat > MAX_REPEAT ||
	    o->drain_s < 0 || (o->keyed && o->nts))
		return -1;
	if (split_addr(o->target, host, sizeof(host), &port) != 0) {
		fprintf(stderr, "ntp_load: %s: not IPv4 ADDR:PORT\n", o->target);
		return -1;
	}
	o->server.sin_family = AF_INET;
	o->server.sin_port = htons(port);
	inet_pton(AF_INET, host, &o->server.sin_addr);
	return 0;
}

/* ---- set up, steps, report ---- */

static int open_sockets(struct worker *w, int sockets)
{
	for (int s = 0; s < sockets; s++) {
		struct sockaddr_in any = { .sin_family = AF_INET };
		int big = 4 << 20, pmtu = IP_PMTUDISC_PROBE;

		w->fd[s] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (w->fd[s] < 0 ||
		    bind(w->fd[s], (struct sockaddr *)&any, sizeof(any)) != 0) {
			perror("ntp_load: socket");
			return -1;
		}
		/* over rmem_max as root; else as much as allowed */
		if (setsockopt(w->fd[s], SOL_SOCKET, SO_RCVBUFFORCE, &big,
		               sizeof(big)) != 0)
			setsockopt(w->fd[s], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
		if (setsockopt(w->fd[s], SOL_SOCKET, SO_SNDBUFFORCE, &big,
		               sizeof(big)) != 0)
			setsockopt(w->fd[s], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
		/* DF: the kernel then skips drawing an IP ID per request
		 * (5 % of the generator's time), time left to the server
		 * that shares the cores, whichever server it is */
		setsockopt(w->fd[s], IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
		           sizeof(pmtu));
	}
	return 0;
}

/* NTS-KE, when asked, and the workers' sockets and threads. 0 or -1. */
static int set_up(struct opts *o, struct worker *w)
{
	if (o->nts) {
#ifdef LD_HAVE_GNUTLS
		if (nts_ke(&o->ns) != 0)
			return -1;
#else
		fprintf(stderr, "ntp_load: --nts: built without GnuTLS (Debian "
		        "libgnutls28-dev)\n");
		return -1;
#endif
	}
	for (int t = 0; t < o->threads; t++) {
		w[t].o = o;
		w[t].id = t;
		w[t].next_client = (uint32_t)(t * o->clients / o->threads);
		if (open_sockets(&w[t], o->sockets) != 0)
			return -1;
#ifdef LD_HAVE_GNUTLS
		if (o->nts && nts_worker_init(&w[t]) != 0) {
			fprintf(stderr, "ntp_load: no AES-SIV-CMAC-256 in GnuTLS\n");
			return -1;
		}
#endif
	}
	pthread_barrier_init(&bar_start, NULL, (unsigned)o->threads + 1);
	pthread_barrier_init(&bar_done, NULL, (unsigned)o->threads + 1);
	for (int t = 0; t < o->threads; t++)
		pthread_create(&w[t].th, NULL, worker_main, &w[t]);
	return 0;
}

static void print_header(const struct opts *o, struct worker *w)
{
	printf("# ntp_load %s: %d threads x %d sockets, %d client addresses, "
	       "%.1f s steps, loss limit %.3f %%%s\n",
	       o->target, o->threads, o->sockets, o->clients, o->step_s, o->loss,
	       o->keyed ? ", SHA1-signed requests" : o->nts ? ", NTS requests" : "");
#ifdef LD_HAVE_GNUTLS
	if (o->nts) {
		printf("# NTS-KE %s:%u (certificate %s): %d cookies of %zu bytes, "
		       "port record %d; generator seals %.0f requests/s per "
		       "thread\n", o->ns.ke_host, o->ns.ke_port,
		       o->ns.ca ? "checked" : "not checked", o->ns.ncookies,
		       o->ns.cookie_len[0], o->ns.port, nts_seal_rate(&w[0]));
	}
#else
	(void)w;
#endif
	printf("# %10s %10s %10s %8s %9s %9s %s\n", "offered/s", "sent/s",
	       "replies/s", "loss%", "p50_us", "p99_us", "note");
	fflush(stdout);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sums the threads' counts and latencies into r (frees them). */
static void gather(const struct opts *o, struct worker *w, struct step_result *r)
{
	uint32_t *all;
	size_t nall = 0;

	for (int t = 0; t < o->threads; t++) {
		r->sent += w[t].st.sent;
		r->replies += w[t].st.replies;
		r->kods += w[t].st.kods;
		r->bad += w[t].st.bad;
		r->unsig += w[t].st.unsigned_;
		nall += w[t].st.nlat;
	}
	all = malloc((nall + 1) * sizeof(uint32_t));
	nall = 0;
	for (int t = 0; t < o->threads; t++) {
		if (all != NULL)
			memcpy(all + nall, w[t].st.lat, w[t].st.nlat * sizeof(uint32_t));
		nall += w[t].st.nlat;
		free(w[t].st.lat);
	}
	r->p99all = INFINITY;
	if (all != NULL && nall > 0) {
		/* the 99th percentile of the sent, lost ones last */
		size_t k = (size_t)((double)r->sent * 0.99);

		qsort(all, nall, sizeof(uint32_t), cmp_u32);
		r->p50 = all[nall / 2] / 1e3;
		r->p99 = all[(size_t)((double)nall * 0.99)] / 1e3;
		if (k < nall)
			r->p99all = all[k] / 1e3;
	}
	free(all);
}

/* Runs one step at `rate` starting at t0; its totals into r. */
static void run_step(const struct opts *o, struct worker *w, double rate,
                     int64_t t0, struct step_result *r)
{
	size_t cap = (size_t)(rate * o->step_s / o->threads * 1.05) + 1024;

	memset(r, 0, sizeof(*r));
	r->rate = rate;
	for (int t = 0; t < o->threads; t++) {
		memset(&w[t].st, 0, sizeof(w[t].st));
		w[t].st.lat = malloc(cap * sizeof(uint32_t));
		w[t].st.cap = w[t].st.lat != NULL ? cap : 0;
		w[t].rate = rate / o->threads;
		w[t].t0 = t0;
		w[t].t_end = t0 + (int64_t)(o->step_s * 1e9);
		w[t].t_stop = w[t].t_end + (int64_t)(o->drain_s * 1e9);
	}
	pthread_barrier_wait(&bar_start);
	pthread_barrier_wait(&bar_done);
	gather(o, w, r);
	r->loss = r->sent ? 100.0 * (1.0 - (double)r->replies / (double)r->sent) : 100;
	r->note = "";
	if ((double)r->sent < 0.98 * rate * o->step_s)
		r->note = "gen-limited";
	else if (r->loss > o->loss)
		r->note = "over the loss limit";
}

static void report_step(const struct opts *o, const struct step_result *r)
{
	if (r->kods || r->bad || r->unsig)
		printf("#   %" PRIu64 " refusing kiss-o'-death, %" PRIu64
		       " bad replies, %" PRIu64 " unsigned\n",
		       r->kods, r->bad, r->unsig);
	printf("  %10.0f %10.0f %10.0f %8.3f %9.1f %9.1f %s\n", r->rate,
	       r->sent / o->step_s, r->replies / o->step_s, r->loss, r->p50,
	       r->p99, r->note);
	fflush(stdout);
}

/* The search: steps from --start up by --factor; the RESULT line. */
static void run_search(const struct opts *o, struct worker *w)
{
	struct step_result best = { 0 }, r;
	int64_t begin = mono_ns();
	int overs = 0;

	for (double rate = o->start; rate <= o->max_rate * 1.0001; rate *= o->factor) {
		int64_t t0 = mono_ns() + 20000000;

		if ((double)(t0 - begin) / 1e9 + o->step_s + o->drain_s > o->max_time_s)
			break;
		run_step(o, w, rate, t0, &r);
		report_step(o, &r);
		if (r.loss <= o->loss && r.note[0] == '\0') {
			best = r;
			overs = 0;
		} else if (++overs >= 2) {
			break;
		}
	}
	printf("RESULT max_rate=%.0f p50_us=%.1f p99_us=%.1f\n", best.rate,
	       best.p50, best.p99);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n == 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --repeat: o->repeat steps at --start; the REPEAT line. */
static void run_repeat(const struct opts *o, struct worker *w)
{
	static double p99[MAX_REPEAT], p99all[MAX_REPEAT];
	uint64_t sent = 0, replies = 0;
	int64_t begin = mono_ns();
	int n = 0, over = 0;
	double all;
	char allbuf[32];

	for (; n < o->repeat; n++) {
		struct step_result r;
		int64_t t0 = mono_ns() + 20000000;

		if ((double)(t0 - begin) / 1e9 + o->step_s + o->drain_s > o->max_time_s)
			break;
		run_step(o, w, o->start, t0, &r);
		report_step(o, &r);
		p99[n] = r.p99;
		p99all[n] = r.p99all;
		sent += r.sent;
		replies += r.replies;
		over += r.note[0] != '\0';
	}
	all = median(p99all, n);
	if (isinf(all))
		snprintf(allbuf, sizeof(allbuf), "inf");
	else
		snprintf(allbuf, sizeof(allbuf), "%.1f", all);
	printf("REPEAT rate=%.0f steps=%d over=%d loss_pct=%.3f p99_med_us=%.1f "
	       "p99all_med_us=%s\n", o->start, n, over,
	       sent ? 100.0 * (1.0 - (double)replies / (double)sent) : 100.0,
	       median(p99, n), allbuf);
}

int main(int argc, char **argv)
{
	static struct opts o = { .threads = 2, .sockets = 8, .clients = 10000,
	                         .start = 5000, .factor = 1.2, .max_rate = 2e6,
	                         .step_s = 2, .drain_s = 0.3, .max_time_s = 60,
	                         .loss = 0.1 };
	static struct worker w[MAX_THREADS];

	if (parse_opts(&o, argc, argv) != 0) {
		usage();
		return 2;
	}
	if (set_up(&o, w) != 0)
		return 1;
	print_header(&o, w);
	if (o.repeat > 0)
		run_repeat(&o, w);
	else
		run_search(&o, w);
	quit = 1;
	pthread_barrier_wait(&bar_start);
	for (int t = 0; t < o.threads; t++)
		pthread_join(w[t].th, NULL);
	return 0;
}
