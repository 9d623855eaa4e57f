/*
 * ntske.c - the NTS-KE server (RFC 8915 section 4) over TLS 1.3 with
 * GnuTLS: one thread accepts, each session runs in its own thread, at most
 * LD_NTSKE_MAX_SESSIONS at once and LD_NTSKE_MAX_PER_CLIENT from one
 * address (more are closed at once). A session has LD_NTSKE_TIMEOUT_MS
 * from its accept for its handshake and its whole request, and as long
 * again for the answer. With every session taken, a newcomer takes the
 * place of the oldest one still waiting for its request from the address
 * holding the most (pick_victim): connections that only sit there, from
 * a few addresses, never keep other clients out (issue 28 item 11).
 *
 * A session: handshake (TLS 1.3 only, ALPN "ntske/1" required), read the
 * request until End of Message (nts_ke_records.c), export C2S and S2C
 * (RFC 5705, label "EXPORTER-network-time-security", context: protocol 0,
 * AEAD 15, then 0 for C2S or 1 for S2C), answer with eight cookies
 * (nts.c), close.
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#ifdef LD_HAVE_GNUTLS

#include "auth.h"
#include "leapclockd.h"
#include "nts.h"
#include "nts_ke_records.h"
#include "safefile.h"

#include <gnutls/gnutls.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORTER_LABEL "EXPORTER-network-time-security"
#define ALPN "ntske/1"

/* A loaded certificate and key, shared by the sessions that use it: the
 * current one holds a reference of its own, each session one more, and
 * the last to let go frees it (a SIGHUP may swap it while sessions run). */
struct cred {
	gnutls_certificate_credentials_t c;
	int refs; /* under ld_ntske.mu */
};

/* Room for the sessions: LD_NTSKE_MAX_SESSIONS counted at once, and as
 * many again for evicted ones still closing (each within a socket
 * timeout, 200 ms). */
#define NSLOTS (2 * LD_NTSKE_MAX_SESSIONS)

/* One session's place, under ld_ntske.mu. */
struct slot {
	int fd;        /* -1: free */
	struct sockaddr_storage peer;
	int64_t start_ms;
	int answering; /* its request is in: no longer evictable */
	int evicted;   /* shut down to make room; not counted */
};

struct ld_ntske {
	struct ld_nts *nts;
	int lfd;
	int wake[2]; /* a byte in wake[1] ends the accepting thread */
	struct cred *cred; /* the current one, under mu */
	char cert_path[PATH_MAX], key_path[PATH_MAX];
	gnutls_priority_t prio;
	uint16_t ntp_port;
	char ntp_server[256]; /* "" = no Server Negotiation record */
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t idle;
	const struct ld_config *cfg; /* allow/deny; outlives k */
	int active;  /* sessions counted against the limits (not evicted) */
	int threads; /* session threads running (evicted ones included) */
	struct slot slots[NSLOTS];
	atomic_int stop;
	_Atomic uint64_t handshakes, failures;
};

struct session {
	struct ld_ntske *k;
	int slot;
	int fd;
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int export_key(gnutls_session_t s, int s2c, uint8_t *key)
{
	/* RFC 8915 5.1: Protocol ID, AEAD ID, 0 (C2S) or 1 (S2C) */
	uint8_t ctx[5] = { 0, LD_NTS_PROTO_NTPV4, 0,
		           LD_NTS_AEAD_AES_SIV_CMAC_256, (uint8_t)s2c };

	return gnutls_prf_rfc5705(s, strlen(EXPORTER_LABEL), EXPORTER_LABEL,
	                          sizeof(ctx), (const char *)ctx,
	                          LD_NTS_KEY_LEN, (char *)key) < 0
	               ? -1
	               : 0;
}

/* Reads the request until it is complete; 1 complete (r filled), 0 not
 * (timeout, closed, a TLS error). */
static int read_request(struct ld_ntske *k, gnutls_session_t s,
                        struct ld_ntske_req *r, int64_t deadline)
{
	uint8_t buf[LD_NTSKE_MAX_REQUEST];
	size_t len = 0;

	while (!k->stop && mono_ms() < deadline) {
		ssize_t n = gnutls_record_recv(s, buf + len, sizeof(buf) - len);

		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
			continue;
		if (n <= 0)
			return 0;
		len += (size_t)n;
		if (ld_ntske_parse(buf, len, r) == 1)
			return 1;
		if (len == sizeof(buf))
			return 0;
	}
	return 0;
}

static int send_all(gnutls_session_t s, const uint8_t *p, size_t len,
                    int64_t deadline)
{
	while (len > 0 && mono_ms() < deadline) {
		ssize_t n = gnutls_record_send(s, p, len);

		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return len == 0 ? 0 : -1;
}

#define PEM_MAX (1 << 20) /* a certificate chain or a key, at most */

/* Loads cert and key into a new cred (one reference), or NULL (logged,
 * naming the file and the reason, followed by `after`). The files are
 * read here, without waiting in open() and regular files only
 * (safefile.h), and GnuTLS gets their bytes: its own loaders take a path
 * and would wait on a FIFO for ever. */
static struct cred *cred_load(const char *cert, const char *key, const char *after)
{
	struct cred *cr = NULL;
	char *cb = NULL, *kb = NULL, why[256];
	size_t cl = 0, kl = 0;
	struct stat st;
	gnutls_datum_t cd, kd;
	int r;

	if (ld_sf_read(cert, 0, PEM_MAX, &cb, &cl, &st, why, sizeof(why)) != 0) {
		ld_log(LD_LOG_ERR, "nts-cert %s: %s%s", cert, why, after);
		return NULL;
	}
	if (ld_sf_read(key, 0, PEM_MAX, &kb, &kl, &st, why, sizeof(why)) != 0) {
		ld_log(LD_LOG_ERR, "nts-key %s: %s%s", key, why, after);
		goto out;
	}
	cr = calloc(1, sizeof(*cr));
	if (cr == NULL || gnutls_certificate_allocate_credentials(&cr->c) < 0) {
		ld_log(LD_LOG_ERR, "NTS-KE: out of memory%s", after);
		free(cr);
		cr = NULL;
		goto out;
	}
	cd.data = (unsigned char *)cb;
	cd.size = (unsigned)cl;
	kd.data = (unsigned char *)kb;
	kd.size = (unsigned)kl;
	r = gnutls_certificate_set_x509_key_mem2(cr->c, &cd, &kd,
	                                         GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r < 0) {
		ld_log(LD_LOG_ERR, "nts-cert %s, nts-key %s: %s%s", cert, key,
		       gnutls_strerror(r), after);
		gnutls_certificate_free_credentials(cr->c);
		free(cr);
		cr = NULL;
		goto out;
	}
	cr->refs = 1;
out:
	ld_sf_free(cb, cl);
	ld_sf_free(kb, kl);
	return cr;
}

/* Checks that cert and key load, as ld_ntske_new would (--check-config,
 * and before anything is bound). 0 or -1 (logged). */
static int parse_nts_listen(const char *text, struct ld_listen_cfg *l);

int ld_ntske_check(const struct ld_config *cfg)
{
	struct ld_listen_cfg l;
	struct cred *cr;

	if (parse_nts_listen(cfg->nts_listen, &l) != 0)
		return -1;
	cr = cred_load(cfg->nts_cert, cfg->nts_key, "");
	if (cr == NULL)
		return -1;
	gnutls_certificate_free_credentials(cr->c);
	free(cr);
	return 0;
}

/* Drops one reference to cr (under k->mu). */
static void cred_put(struct cred *cr)
{
	if (cr != NULL && --cr->refs == 0) {
		gnutls_certificate_free_credentials(cr->c);
		free(cr);
	}
}

static struct cred *cred_get(struct ld_ntske *k)
{
	struct cred *cr;

	pthread_mutex_lock(&k->mu);
	cr = k->cred;
	cr->refs++;
	pthread_mutex_unlock(&k->mu);
	return cr;
}

int ld_ntske_reload(struct ld_ntske *k)
{
	struct cred *cr, *old;

	if (k == NULL)
		return 0;
	cr = cred_load(k->cert_path, k->key_path,
	               " (kept the certificate in use)");
	if (cr == NULL)
		return -1;
	pthread_mutex_lock(&k->mu);
	old = k->cred;
	k->cred = cr;
	cred_put(old);
	pthread_mutex_unlock(&k->mu);
	ld_log(LD_LOG_INFO, "NTS-KE: certificate and key reloaded from %s, %s",
	       k->cert_path, k->key_path);
	return 0;
}

/* The session in `slot` has its request: it answers now, and is no
 * longer one to evict. */
static void mark_answering(struct ld_ntske *k, int slot)
{
	pthread_mutex_lock(&k->mu);
	k->slots[slot].answering = 1;
	pthread_mutex_unlock(&k->mu);
}

/* One session with credentials cred; 0 when it answered a good request. */
static int serve_with(struct ld_ntske *k, int fd, int slot,
                      gnutls_certificate_credentials_t cred)
{
	static const gnutls_datum_t alpn = { (unsigned char *)ALPN,
		                             sizeof(ALPN) - 1 };
	uint8_t cookies[LD_NTSKE_COOKIES][LD_NTS_COOKIE_LEN];
	uint8_t c2s[LD_NTS_KEY_LEN], s2c[LD_NTS_KEY_LEN];
	/* the records: cookies, a server name (up to 255), the rest */
	uint8_t out[LD_NTSKE_COOKIES * (4 + LD_NTS_COOKIE_LEN) + 4 + 255 + 64];
	struct ld_ntske_answer a;
	struct ld_ntske_req r;
	gnutls_datum_t sel;
	gnutls_session_t s;
	struct timeval tv = { 0, 200000 };
	int64_t deadline = mono_ms() + LD_NTSKE_TIMEOUT_MS;
	size_t olen;
	int rc = -1, hs;

	/* short socket timeouts so that the loops see the deadline and
	 * the stop flag */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (gnutls_init(&s, GNUTLS_SERVER | GNUTLS_NO_SIGNAL) < 0)
		return -1;
	if (gnutls_priority_set(s, k->prio) < 0 ||
	    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred) < 0 ||
	    gnutls_alpn_set_protocols(s, &alpn, 1, GNUTLS_ALPN_MANDATORY) < 0)
		goto out;
	gnutls_transport_set_int(s, fd);
	gnutls_handshake_set_timeout(s, LD_NTSKE_TIMEOUT_MS);
	do {
		hs = gnutls_handshake(s);
	} while (hs < 0 && !gnutls_error_is_fatal(hs) && !k->stop &&
	         mono_ms() < deadline);
	if (hs < 0)
		goto out;
	if (gnutls_protocol_get_version(s) != GNUTLS_TLS1_3 ||
	    gnutls_alpn_get_selected_protocol(s, &sel) < 0 ||
	    sel.size != alpn.size || memcmp(sel.data, alpn.data, sel.size) != 0)
		goto out;
	k->handshakes++;
	/* the request within the same deadline as the handshake: a client
	 * that holds a session without asking loses it (issue 28 item 11) */
	if (!read_request(k, s, &r, deadline))
		goto out;
	mark_answering(k, slot);
	deadline = mono_ms() + LD_NTSKE_TIMEOUT_MS;
	memset(&a, 0, sizeof(a));
	if (ld_ntske_agreed(&r)) {
		if (export_key(s, 0, c2s) != 0 || export_key(s, 1, s2c) != 0)
			r.error = LD_NTSKE_ERR_INTERNAL;
		for (int i = 0; r.error < 0 && i < LD_NTSKE_COOKIES; i++) {
			if (ld_nts_make_cookie(k->nts, c2s, s2c, cookies[i]) != 0)
				r.error = LD_NTSKE_ERR_INTERNAL;
			a.cookies[i] = cookies[i];
		}
		a.cookie_len = LD_NTS_COOKIE_LEN;
		a.port = k->ntp_port;
		a.server = k->ntp_server[0] != '\0' ? k->ntp_server : NULL;
		gnutls_memset(c2s, 0, sizeof(c2s));
		gnutls_memset(s2c, 0, sizeof(s2c));
	}
	olen = ld_ntske_response(&r, &a, out, sizeof(out));
	if (olen > 0 && send_all(s, out, olen, deadline) == 0 && r.error < 0 &&
	    ld_ntske_agreed(&r))
		rc = 0;
	gnutls_bye(s, GNUTLS_SHUT_WR);
out:
	gnutls_deinit(s);
	return rc;
}

/* One session; 0 when it answered a good request. */
static int serve(struct ld_ntske *k, int fd, int slot)
{
	struct cred *cr = cred_get(k);
	int rc = serve_with(k, fd, slot, cr->c);

	pthread_mutex_lock(&k->mu);
	cred_put(cr);
	pthread_mutex_unlock(&k->mu);
	return rc;
}


static void *session_main(void *arg)
{
	struct session *se = arg;
	struct ld_ntske *k = se->k;

	if (serve(k, se->fd, se->slot) != 0)
		k->failures++;
	pthread_mutex_lock(&k->mu);
	if (!k->slots[se->slot].evicted)
		k->active--;
	k->slots[se->slot].fd = -1;
	close(se->fd);
	k->threads--;
	pthread_cond_broadcast(&k->idle);
	pthread_mutex_unlock(&k->mu);
	free(se);
	return NULL;
}

/* 1 if a and b are the same IP address (ports aside) */
static int same_host(const struct sockaddr_storage *a,
                     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		              &((const struct sockaddr_in6 *)b)->sin6_addr,
		              16) == 0;
	return 0;
}

/* The counted sessions from the address of slot i's peer (or `from`). */
static int sessions_from(const struct ld_ntske *k,
                         const struct sockaddr_storage *from)
{
	int n = 0;

	for (int i = 0; i < NSLOTS; i++)
		if (k->slots[i].fd >= 0 && !k->slots[i].evicted &&
		    same_host(&k->slots[i].peer, from))
			n++;
	return n;
}

/* Every slot counted: the session to give up for a newcomer from an
 * address that holds `mine` sessions, or -1 (keep them all, refuse the
 * newcomer). Only a session still without its request is given up (one
 * that answers ends on its own): the oldest of those from the address
 * holding the most sessions, when that is more than the newcomer's plus
 * one; else, for a newcomer from a new address, the oldest waiting one.
 * So idle connections from a few addresses never keep others out, and
 * an address never loses its last session to one that has some. */
static int pick_victim(const struct ld_ntske *k, int mine)
{
	int victim = -1, vcount = 0;

	for (int i = 0; i < NSLOTS; i++) {
		const struct slot *sl = &k->slots[i];
		int c;

		if (sl->fd < 0 || sl->evicted || sl->answering)
			continue;
		c = sessions_from(k, &sl->peer);
		if (victim < 0 || c > vcount ||
		    (c == vcount && sl->start_ms < k->slots[victim].start_ms)) {
			victim = i;
			vcount = c;
		}
	}
	if (victim < 0)
		return -1;
	if (vcount > mine + 1 || (mine == 0 && vcount >= 1))
		return victim;
	return -1;
}

static void start_session(struct ld_ntske *k, int fd,
                          const struct sockaddr_storage *from)
{
	struct session *se;
	pthread_attr_t at;
	pthread_t t;
	int slot = -1, mine;

	/* allow/deny (chrony's, the NTP rules): closed at once */
	if (k->cfg != NULL && !ld_acl_allowed(k->cfg, (const struct sockaddr *)from)) {
		k->failures++;
		close(fd);
		return;
	}
	pthread_mutex_lock(&k->mu);
	for (int i = 0; i < NSLOTS && slot < 0; i++)
		if (k->slots[i].fd < 0)
			slot = i;
	mine = sessions_from(k, from);
	/* one client may not hold more than its share */
	if (mine >= LD_NTSKE_MAX_PER_CLIENT)
		slot = -1;
	if (slot >= 0 && k->active >= LD_NTSKE_MAX_SESSIONS) {
		int v = pick_victim(k, mine);

		if (v < 0) {
			slot = -1;
		} else {
			/* its thread sees the socket end at once */
			shutdown(k->slots[v].fd, SHUT_RDWR);
			k->slots[v].evicted = 1;
			k->active--;
		}
	}
	se = slot >= 0 ? malloc(sizeof(*se)) : NULL;
	if (se == NULL) {
		/* busy: no session, no wait */
		pthread_mutex_unlock(&k->mu);
		k->failures++;
		close(fd);
		return;
	}
	se->k = k;
	se->slot = slot;
	se->fd = fd;
	k->slots[slot].fd = fd;
	k->slots[slot].peer = *from;
	k->slots[slot].start_ms = mono_ms();
	k->slots[slot].answering = 0;
	k->slots[slot].evicted = 0;
	k->active++;
	k->threads++;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 * 1024);
	if (pthread_create(&t, &at, session_main, se) != 0) {
		k->slots[slot].fd = -1;
		k->active--;
		k->threads--;
		k->failures++;
		close(fd);
		free(se);
	}
	pthread_attr_destroy(&at);
	pthread_mutex_unlock(&k->mu);
}

static void *accept_main(void *arg)
{
	struct ld_ntske *k = arg;
	struct pollfd p[2] = { { k->lfd, POLLIN, 0 }, { k->wake[0], POLLIN, 0 } };

	while (!k->stop) {
		int n = poll(p, 2, 1000);

		ld_nts_maintain(k->nts);
		if (n <= 0 || (p[1].revents & POLLIN))
			continue;
		if (p[0].revents & POLLIN) {
			struct sockaddr_storage from;
			socklen_t fl = sizeof(from);
			int fd = accept4(k->lfd, (struct sockaddr *)&from, &fl,
			                 SOCK_CLOEXEC);

			if (fd >= 0)
				start_session(k, fd, &from);
			else if (errno != EAGAIN && errno != EINTR &&
			         errno != ECONNABORTED)
				/* out of descriptors or memory: the
				 * connection stays queued; do not spin */
				poll(NULL, 0, 100);
		}
	}
	return NULL;
}

/* nts-listen's ADDR[:PORT] (port 4460 when none is given) into l; -1
 * (logged) when it is not one. */
static int parse_nts_listen(const char *text, struct ld_listen_cfg *l)
{
	char spec[160], msg[256];

	snprintf(spec, sizeof(spec), "%s=utc", text);
	if (strlen(text) >= 128 ||
	    ld_config_parse_listen(spec, l, msg, sizeof(msg)) != 0) {
		ld_log(LD_LOG_ERR, "nts-listen '%s': expected ADDR:PORT", text);
		return -1;
	}
	/* no port given: NTS-KE's, 4460 */
	if (text[0] == '[' ? strstr(text, "]:") == NULL
	                   : strchr(text, ':') == NULL ||
	                             strchr(text, ':') != strrchr(text, ':')) {
		struct sockaddr *sa = (struct sockaddr *)&l->addr;

		if (sa->sa_family == AF_INET)
			((struct sockaddr_in *)sa)->sin_port = htons(4460);
		else
			((struct sockaddr_in6 *)sa)->sin6_port = htons(4460);
	}
	return 0;
}

static int listen_on(struct ld_ntske *k, const char *text)
{
	struct ld_listen_cfg l;
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);
	char name[80];
	int one = 1;

	if (parse_nts_listen(text, &l) != 0)
		return -1;
	k->lfd = socket(l.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (k->lfd < 0) {
		ld_log(LD_LOG_ERR, "nts-listen %s: socket: %s", text,
		       strerror(errno));
		return -1;
	}
	setsockopt(k->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l.addr.ss_family == AF_INET6)
		setsockopt(k->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(k->lfd, (struct sockaddr *)&l.addr, l.addrlen) != 0 ||
	    listen(k->lfd, 64) != 0) {
		ld_log(LD_LOG_ERR, "nts-listen %s: %s", text, strerror(errno));
		return -1;
	}
	/* said as the NTP sockets are, with the port a port 0 got */
	memset(&got, 0, sizeof(got));
	if (getsockname(k->lfd, (struct sockaddr *)&got, &gl) != 0 ||
	    got.ss_family != l.addr.ss_family)
		got = l.addr;
	ld_format_addr((struct sockaddr *)&got, name, sizeof(name));
	ld_log(LD_LOG_INFO, "serving NTS-KE on %s/tcp", name);
	return 0;
}

int ld_ntske_new(struct ld_ntske **out, const struct ld_config *cfg,
                 struct ld_nts *n)
{
	struct ld_ntske *k;
	int r;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return -1;
	k->nts = n;
	k->lfd = -1;
	k->wake[0] = k->wake[1] = -1;
	k->ntp_port = (uint16_t)cfg->nts_ntp_port;
	snprintf(k->ntp_server, sizeof(k->ntp_server), "%s", cfg->nts_ntp_server);
	k->cfg = cfg;
	for (int i = 0; i < NSLOTS; i++)
		k->slots[i].fd = -1;
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->idle, NULL);
	snprintf(k->cert_path, sizeof(k->cert_path), "%s", cfg->nts_cert);
	snprintf(k->key_path, sizeof(k->key_path), "%s", cfg->nts_key);
	k->cred = cred_load(k->cert_path, k->key_path, "");
	if (k->cred == NULL)
		goto fail;
	/* RFC 8915 3: TLS 1.3 or later only */
	r = gnutls_priority_init2(&k->prio, "-VERS-ALL:+VERS-TLS1.3", NULL,
	                          GNUTLS_PRIORITY_INIT_DEF_APPEND);
	if (r < 0) {
		ld_log(LD_LOG_ERR, "NTS-KE: TLS priorities: %s",
		       gnutls_strerror(r));
		goto fail;
	}
	if (pipe2(k->wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    listen_on(k, cfg->nts_listen) != 0)
		goto fail;
	*out = k;
	return 0;
fail:
	ld_ntske_free(k);
	return -1;
}

int ld_ntske_start(struct ld_ntske *k)
{
	sigset_t all, old;
	int r;

	if (k == NULL || k->started)
		return 0;
	/* the threads take no signals: the main loop does */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&k->thread, NULL, accept_main, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		ld_log(LD_LOG_ERR, "NTS-KE: cannot start its thread: %s",
		       strerror(r));
		return -1;
	}
	k->started = 1;
	return 0;
}

void ld_ntske_free(struct ld_ntske *k)
{
	if (k == NULL)
		return;
	k->stop = 1;
	if (k->started) {
		ssize_t w = write(k->wake[1], "x", 1);
		(void)w;
		pthread_join(k->thread, NULL);
	}
	/* the sessions see the stop flag within a socket timeout; wake
	 * them sooner */
	pthread_mutex_lock(&k->mu);
	for (int i = 0; i < NSLOTS; i++)
		if (k->slots[i].fd >= 0)
			shutdown(k->slots[i].fd, SHUT_RDWR);
	while (k->threads > 0)
		pthread_cond_wait(&k->idle, &k->mu);
	pthread_mutex_unlock(&k->mu);
	if (k->lfd >= 0)
		close(k->lfd);
	for (int i = 0; i < 2; i++)
		if (k->wake[i] >= 0)
			close(k->wake[i]);
	if (k->prio != NULL)
		gnutls_priority_deinit(k->prio);
	cred_put(k->cred); /* the sessions have ended */
	pthread_cond_destroy(&k->idle);
	pthread_mutex_destroy(&k->mu);
	free(k);
}

void ld_ntske_counters(const struct ld_ntske *k, uint64_t *handshakes,
                       uint64_t *failures)
{
	if (k == NULL)
		return;
	*handshakes = k->handshakes;
	*failures = k->failures;
}

#else
/* without GnuTLS, nts.c refuses NTS and nothing here is used */
typedef int ld_ntske_unused;
#endif
