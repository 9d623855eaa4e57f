/*
 * server.c - leapclockd's sockets, its worker threads and their
 * receive/answer loop.
 *
 * Workers. --threads N (default: one per core) workers each own one UDP
 * socket per --listen address, all of one address bound together with
 * SO_REUSEPORT (the kernel spreads clients over them by a hash of the
 * addresses and ports), and their own receive batch. A worker only
 * serves: poll() over its sockets, datagrams taken in batches (recvmmsg)
 * with the kernel's receive timestamp (SO_TIMESTAMPNS), each answered at
 * once with its own sendmsg. The main thread keeps the signals, the
 * timeline, the reloads and the statistics. With one thread (--threads 1)
 * there is no worker thread and no SO_REUSEPORT: the main thread serves
 * its sockets in its own ppoll(), as leapclockd always did. Before binding
 * an address with SO_REUSEPORT, a probe socket without it is bound there
 * and closed: a taken address (another leapclockd, chronyd) fails the start
 * as it would without sharing, rather than joining a group that splits its
 * requests. (A process of the same user that sets SO_REUSEPORT itself
 * could still join ours: the kernel's rule.) Port 0: the first socket binds
 * it, the others the port it got.
 *
 * Counters are per worker and socket, written by their worker alone with
 * relaxed atomic stores and summed by readers (stats file, metrics).
 *
 * Timestamps. The kernel stamps a datagram with the host's CLOCK_REALTIME,
 * which is not the time we serve (it may be off by a leap second, smeared,
 * or, with --pretend, years away). What we use of it is the age of the
 * datagram: the served receive timestamp is what the mode serves at (TAI
 * now - (host realtime now - kernel stamp)). An age that is negative or
 * over a second means the host clock stepped in between; then the time now
 * is used. In the basic mode the transmit timestamp is read just before
 * sendmsg. A reply to a request with a non-zero origin timestamp (what an
 * interleaved client sends; a plain chrony or SNTP client sends zero) also
 * asks the kernel for its software transmit timestamp (SO_TIMESTAMPING
 * TX_SOFTWARE in that sendmsg's control data; OPT_ID and OPT_TSONLY on the
 * socket: the error queue gives back the stamp and the number of the
 * stamped datagram on its socket, counted here per stamped send, as the
 * kernel counts); converted the same way, it
 * is kept in the interleaved table (xleave.h) under the reply's receive
 * timestamp, and a client in the interleaved mode (chrony's xleave), whose
 * next request's origin is that receive timestamp, gets it as the transmit
 * timestamp of the next answer: the time its previous reply really left.
 * A stamp more than LD_TX_SANE_NS after, or any before, the time read
 * before that reply's sendmsg is thrown away (a miscount never gives one
 * client another's time).
 *
 * Rate limiting is per client address with the generic cell rate algorithm
 * (a token bucket kept as one "theoretical arrival time" per client): with
 * T = 2^interval s and a burst of B, a request at `now` is allowed when
 * max(tat, now) - now <= (B - 1) * T, and then tat = max(tat, now) + T.
 * From rest that admits B requests at once and one per T after that. The
 * table is a fixed hash table (memory bounded whatever the number of
 * clients), indexed by SipHash-2-4 of the address under a random key drawn
 * at each start, so that nobody outside can choose addresses that share a
 * slot. Two clients that share one anyway share its state (one tat, one
 * next kiss): a client new to a slot never finds it fresh while another's
 * debt is in it, so a collision errs towards limiting both and never
 * resets another client's history. Workers update a slot with a
 * compare-and-swap on tat (and on the next kiss), so that one client
 * reaching several sockets is limited as one.
 *
 * A datagram longer than the receive buffer arrives cut (MSG_TRUNC): it is
 * dropped as malformed, whatever the bytes that fitted say.
 */
#define _GNU_SOURCE /* recvmmsg, ppoll, struct in6_pktinfo */
#include "leapclockd.h"

#include "auth.h"
#include "internal.h"
#include "xleave.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define BATCH 32
#define RX_BUF 1024
#define CTRL_BUF 256
#define RL_SLOTS 16384 /* power of two */
#define XL_SLOTS 16384
#define NO_SMEAR_BELOW_NS 1000
#define TXQ 1024            /* replies awaiting their kernel stamp, per socket */
#define LD_TX_SANE_NS 10000000 /* 10 ms */

volatile sig_atomic_t ld_sig_term, ld_sig_hup, ld_sig_usr1;

struct ld_server;
static void remove_stats(struct ld_server *s);

/* One --listen address, shared by the workers. */
struct listener {
	struct ld_listen_cfg cfg;
	struct sockaddr_storage bound; /* the address bound (port 0 resolved) */
	char name[80]; /* the bound address */
	int wildcard;
	struct ld_source *src;
	unsigned last_li;     /* relaxed atomics: any worker writes them */
	uint32_t last_refid;
};

/* A reply sent whose kernel transmit stamp has not come back yet. */
struct tx_pending {
	uint32_t id;         /* its number on the socket (OPT_ID) */
	int used;
	int64_t host_before; /* host REALTIME read before sendmsg */
	uint64_t rx;         /* its receive timestamp (the table's key) */
	struct sockaddr_storage to;
};

/* One worker's socket for one listener. */
struct wsock {
	int fd;
	int txts;          /* kernel transmit stamps on */
	uint32_t next_id;  /* the number of the next datagram sent */
	struct ld_counters c;
	struct tx_pending txq[TXQ];
};

struct worker {
	struct ld_server *s;
	int idx;
	int stamped; /* replies stamped since the error queues were read */
	pthread_t th;
	int started;
	struct wsock sk[LD_MAX_LISTEN];
	/* receive batch */
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_storage from[BATCH];
	uint8_t buf[BATCH][RX_BUF];
	union {
		struct cmsghdr align;
		uint8_t b[CTRL_BUF];
	} ctrl[BATCH];
};

struct rl_slot {
	int64_t tat;      /* CLOCK_MONOTONIC ns; atomic */
	int64_t kod_next; /* no kiss before this; atomic */
};

struct ld_server {
	const struct ld_config *cfg;
	struct ld_clock *clock;
	struct ld_auth *auth;   /* NULL: no keys, no NTS */
	struct listener l[LD_MAX_LISTEN];
	int nl;
	struct worker *w[LD_MAX_THREADS];
	int nw;
	int stop_fd;            /* eventfd: readable when workers must stop */
	struct ld_ntp_server params;
	struct rl_slot *rl;
	uint64_t rl_key[2]; /* SipHash key, random per start */
	struct ld_xleave *xl;
	int64_t rl_period_ns;
	int64_t rl_slack_ns;
	int64_t kod_gap_ns;
	int8_t kod_poll;
	int64_t started_unix;
	int stats_warned;
	int stats_written;      /* the file is ours to remove at the end */
	long stats_pid;         /* the pid pid_start and boot_id are for */
	char pid_start[32];     /* field 22 of /proc/self/stat */
	char boot_id[64];
};

/* Counters: one writer (the socket's worker), readers anywhere. */
#define CINC(x) __atomic_store_n(&(x), __atomic_load_n(&(x), __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED)

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return lc__ts_to_ns(&ts);
}

static int is_wildcard(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr,
	              &in6addr_any, sizeof(struct in6_addr)) == 0;
}

static uint16_t port_of(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

/* Binds a probe socket without SO_REUSEPORT to `sa`, closes it: 0 if the
 * address was free, -1 (errno) if taken. */
static int probe_free(const struct sockaddr_storage *sa, socklen_t len)
{
	int one = 1, rc, e;
	int fd = socket(sa->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (sa->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	rc = bind(fd, (const struct sockaddr *)sa, len);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Opens worker socket `k` of listener L (k 0 binds first). */
static int open_socket(struct listener *L, struct wsock *W, int k, int share)
{
	int one = 1, fd;
	int fam = L->cfg.addr.ss_family;
	const struct sockaddr_storage *at = k == 0 ? &L->cfg.addr : &L->bound;

	W->fd = -1;
	if (share && k == 0 && port_of((const struct sockaddr *)at) != 0 &&
	    probe_free(at, L->cfg.addrlen) != 0) {
		ld_log(LD_LOG_ERR, "%s: bind: %s", L->cfg.text, strerror(errno));
		return -1;
	}
	fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ld_log(LD_LOG_ERR, "%s: socket: %s", L->cfg.text, strerror(errno));
		return -1;
	}
	if (fam == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* No SO_REUSEADDR: on UDP it would let a second server (another
	 * leapclockd, or chronyd) bind the same address and port and take
	 * our requests without a word. UDP has no TIME_WAIT to wait out.
	 * SO_REUSEPORT only for our own workers (see the top). */
	if (share &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
		ld_log(LD_LOG_ERR, "%s: SO_REUSEPORT: %s", L->cfg.text,
		       strerror(errno));
		close(fd);
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) != 0 &&
	    k == 0)
		ld_log(LD_LOG_WARNING,
		       "%s: no kernel receive timestamps (%s): stamping on read",
		       L->cfg.text, strerror(errno));
	{
		/* reporting and numbering on the socket; the stamp itself is
		 * asked for per reply (send_reply) */
		int f = SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
		        SOF_TIMESTAMPING_OPT_TSONLY;

		W->txts = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &f,
		                     sizeof(f)) == 0;
		W->next_id = 0;
		if (!W->txts && k == 0)
			ld_log(LD_LOG_WARNING,
			       "%s: no kernel transmit timestamps (%s): no "
			       "interleaved mode", L->cfg.text, strerror(errno));
	}
	L->wildcard = is_wildcard(&L->cfg.addr);
	if (L->wildcard) {
		/* to answer from the address the request was sent to */
		if (fam == AF_INET)
			setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
		else
			setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one,
			           sizeof(one));
	}
	if (bind(fd, (const struct sockaddr *)at, L->cfg.addrlen) != 0) {
		ld_log(LD_LOG_ERR, "%s: bind: %s", L->cfg.text, strerror(errno));
		close(fd);
		return -1;
	}
	W->fd = fd;
	if (k == 0) {
		/* the address bound: with port 0, the port the kernel chose */
		struct sockaddr_storage got;
		socklen_t gl = sizeof(got);

		memset(&got, 0, sizeof(got));
		if (getsockname(fd, (struct sockaddr *)&got, &gl) == 0 &&
		    got.ss_family == L->cfg.addr.ss_family)
			L->bound = got;
		else
			L->bound = L->cfg.addr;
		ld_format_addr((struct sockaddr *)&L->bound, L->name,
		               sizeof(L->name));
	}
	return 0;
}

/* The rate-limit slot of a client address. */
static size_t rl_index(const struct ld_server *s, const struct sockaddr *sa)
{
	uint8_t key[17] = { 0 }; /* family, then 4 or 16 address bytes */
	uint64_t h;

	key[0] = (uint8_t)sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else
		memcpy(key + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	h = ld_siphash24(s->rl_key, key, sizeof(key));
	return (size_t)(h & (RL_SLOTS - 1));
}

/* The worker count --threads asks for (0: one per core online). */
static int threads_wanted(const struct ld_config *cfg)
{
	long n = cfg->threads;

	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > LD_MAX_THREADS)
		n = LD_MAX_THREADS;
	return (int)n;
}

int ld_server_new(struct ld_server **out, const struct ld_config *cfg,
                  struct ld_clock *clock)
{
	struct ld_server *s = calloc(1, sizeof(*s));
	int prec, nw;

	*out = NULL;
	if (s == NULL)
		return -1;
	s->cfg = cfg;
	s->clock = clock;
	s->stop_fd = -1;
	nw = threads_wanted(cfg);
	for (int k = 0; k < nw; k++) {
		s->w[k] = calloc(1, sizeof(*s->w[k]));
		if (s->w[k] == NULL)
			goto fail;
		s->nw++;
		s->w[k]->s = s;
		s->w[k]->idx = k;
		for (int i = 0; i < LD_MAX_LISTEN; i++)
			s->w[k]->sk[i].fd = -1;
		for (int i = 0; i < BATCH; i++) {
			s->w[k]->iov[i].iov_base = s->w[k]->buf[i];
			s->w[k]->iov[i].iov_len = RX_BUF;
		}
	}
	for (int i = 0; i < cfg->nlisten; i++) {
		struct listener *L = &s->l[s->nl];
		L->cfg = cfg->listen[i];
		L->src = ld_clock_source(clock, &L->cfg);
		if (L->src == NULL)
			goto fail;
		s->nl++;
		for (int k = 0; k < nw; k++)
			if (open_socket(L, &s->w[k]->sk[i], k, nw > 1) != 0)
				goto fail;
		ld_log(LD_LOG_INFO, "serving %s on %s/udp", L->cfg.mode_name,
		       L->name);
	}
	if (nw > 1)
		ld_log(LD_LOG_INFO, "%d worker threads", nw);
	prec = cfg->precision == LD_PRECISION_AUTO ? ld_clock_precision(clock)
	                                           : cfg->precision;
	s->params.stratum = (uint8_t)cfg->stratum;
	s->params.precision = (int8_t)prec;
	s->params.root_delay = ld_ntp_short_from_ns(cfg->root_delay_ns);
	s->params.root_dispersion = ld_ntp_short_from_ns(cfg->root_dispersion_ns);
	if (cfg->ratelimit) {
		s->rl = calloc(RL_SLOTS, sizeof(*s->rl));
		if (s->rl == NULL)
			goto fail;
		ld_random_key(s->rl_key);
		/* T = 2^interval s, interval in -8..12 */
		s->rl_period_ns = cfg->rl_interval >= 0
		                          ? LC__NS << cfg->rl_interval
		                          : LC__NS >> -cfg->rl_interval;
		s->rl_slack_ns = (int64_t)(cfg->rl_burst - 1) * s->rl_period_ns;
		/* at most one kiss-o'-death per client per period, and per
		 * second if the period is shorter */
		s->kod_gap_ns = s->rl_period_ns > LC__NS ? s->rl_period_ns : LC__NS;
		s->kod_poll = (int8_t)(cfg->rl_interval + 2 < 0 ? 0
		                       : cfg->rl_interval + 2 > 17 ? 17
		                       : cfg->rl_interval + 2);
	}
	s->xl = ld_xleave_new(XL_SLOTS);
	if (s->xl == NULL)
		goto fail;
	if (ld_auth_new(&s->auth, cfg) != 0)
		goto fail;
	s->started_unix = (int64_t)time(NULL);
	*out = s;
	return 0;
fail:
	ld_server_free(s);
	return -1;
}

/* Stops and joins the worker threads (none with one thread). */
static void stop_workers(struct ld_server *s)
{
	if (s->stop_fd >= 0) {
		uint64_t one = 1;

		if (write(s->stop_fd, &one, sizeof(one)) < 0)
			ld_log(LD_LOG_WARNING, "stopping workers: %s",
			       strerror(errno));
	}
	for (int k = 0; k < s->nw; k++)
		if (s->w[k]->started) {
			pthread_join(s->w[k]->th, NULL);
			s->w[k]->started = 0;
		}
}

void ld_server_free(struct ld_server *s)
{
	if (s == NULL)
		return;
	stop_workers(s);
	/* a stopped daemon leaves no stats file that looks alive */
	remove_stats(s);
	for (int k = 0; k < s->nw; k++) {
		for (int i = 0; i < s->nl; i++)
			if (s->w[k]->sk[i].fd >= 0)
				close(s->w[k]->sk[i].fd);
		free(s->w[k]);
	}
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	free(s->rl);
	ld_xleave_free(s->xl);
	ld_auth_free(s->auth);
	free(s);
}

/* 1 if the client at `sa` is over its rate; *kod set if it should get a
 * kiss-o'-death this time. Any worker at once: a compare-and-swap loop on
 * the slot's tat, and one on its next kiss so that one kiss goes out. */
static int rate_limited(struct ld_server *s, const struct sockaddr *sa,
                        int64_t now, int *kod)
{
	struct rl_slot *e;
	int64_t old, tat, kn;

	*kod = 0;
	if (s->rl == NULL)
		return 0;
	/* A slot holds no owner: clients that share it share its state. An
	 * empty slot's tat and kod_next (zero) are in the past, which is a
	 * fresh start; a busy one's debt and kiss gap stay whoever asks. */
	e = &s->rl[rl_index(s, sa)];
	old = __atomic_load_n(&e->tat, __ATOMIC_RELAXED);
	for (;;) {
		tat = old > now ? old : now;
		if (tat - now > s->rl_slack_ns)
			break;
		if (__atomic_compare_exchange_n(&e->tat, &old,
		                                tat + s->rl_period_ns, 0,
		                                __ATOMIC_RELAXED,
		                                __ATOMIC_RELAXED))
			return 0;
		/* another worker moved it: old is its value now */
	}
	kn = __atomic_load_n(&e->kod_next, __ATOMIC_RELAXED);
	while (now >= kn) {
		if (__atomic_compare_exchange_n(&e->kod_next, &kn,
		                                now + s->kod_gap_ns, 0,
		                                __ATOMIC_RELAXED,
		                                __ATOMIC_RELAXED)) {
			*kod = 1;
			break;
		}
	}
	return 1;
}

struct rx_meta {
	int have_ts;
	struct timespec kts;
	int have_pi4, have_pi6;
	struct in_pktinfo pi4;
	struct in6_pktinfo pi6;
};

static void read_cmsgs(struct msghdr *mh, struct rx_meta *m)
{
	memset(m, 0, sizeof(*m));
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	     c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			memcpy(&m->kts, CMSG_DATA(c), sizeof(m->kts));
			m->have_ts = 1;
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
		           c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			memcpy(&m->pi4, CMSG_DATA(c), sizeof(m->pi4));
			m->have_pi4 = 1;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
		           c->cmsg_type == IPV6_PKTINFO &&
		           c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			memcpy(&m->pi6, CMSG_DATA(c), sizeof(m->pi6));
			m->have_pi6 = 1;
		}
	}
}

/* Sends the `len` bytes at out (a reply already encoded and signed),
 * with a kernel transmit stamp if `stamp`. Returns 1 if sent (counted in
 * *counter), 0 if not. */
static int send_reply(struct listener *L, struct wsock *W, const uint8_t *out,
                      size_t len, const struct sockaddr *to, socklen_t tolen,
                      const struct rx_meta *m, uint64_t *counter, int stamp)
{
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
		          CMSG_SPACE(sizeof(uint32_t))];
	} cb;
	struct cmsghdr *c = NULL;
	struct iovec iov = { (void *)out, len };
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = (void *)to;
	mh.msg_namelen = tolen;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	memset(&cb, 0, sizeof(cb));
	mh.msg_control = cb.b;
	mh.msg_controllen = sizeof(cb.b);
	if (L->wildcard && (m->have_pi4 || m->have_pi6)) {
		c = CMSG_FIRSTHDR(&mh);
		if (m->have_pi4) {
			struct in_pktinfo pi;
			memset(&pi, 0, sizeof(pi));
			pi.ipi_spec_dst = m->pi4.ipi_addr;
			c->cmsg_level = IPPROTO_IP;
			c->cmsg_type = IP_PKTINFO;
			c->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		} else {
			c->cmsg_level = IPPROTO_IPV6;
			c->cmsg_type = IPV6_PKTINFO;
			c->cmsg_len = CMSG_LEN(sizeof(m->pi6));
			memcpy(CMSG_DATA(c), &m->pi6, sizeof(m->pi6));
		}
	}
	if (stamp) {
		uint32_t f = SOF_TIMESTAMPING_TX_SOFTWARE;

		c = c == NULL ? CMSG_FIRSTHDR(&mh) : CMSG_NXTHDR(&mh, c);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SO_TIMESTAMPING;
		c->cmsg_len = CMSG_LEN(sizeof(f));
		memcpy(CMSG_DATA(c), &f, sizeof(f));
	}
	if (c == NULL) {
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
	} else {
		mh.msg_controllen = (size_t)((uint8_t *)c - cb.b) +
		                    CMSG_SPACE(c->cmsg_len - CMSG_LEN(0));
	}
	if (sendmsg(W->fd, &mh, 0) == (ssize_t)len) {
		/* each stamped datagram that leaves takes the socket's next
		 * number */
		if (stamp)
			W->next_id++;
		CINC(*counter);
		return 1;
	}
	CINC(W->c.send_errors);
	return 0;
}

/* What mode L serves at the host REALTIME instant `host_ns` of the recent
 * past (a kernel stamp), from reading *now: by its age. */
static void served_at(struct listener *L, const struct ld_reading *now,
                      int64_t host_now, int64_t host_ns, struct ld_reading *r)
{
	int64_t age = host_now - host_ns;

	*r = *now;
	if (age > 0 && age < LC__NS)
		ld_source_at(L->src, now->tai_ns - age, r);
}

/* Reads the kernel's transmit stamps waiting on W's error queue and keeps
 * them in the interleaved table. */
static void drain_errq(struct ld_server *s, struct listener *L, struct wsock *W)
{
	/* one reading for all: a stamp's age is taken against it */
	struct ld_reading now;
	int64_t hnow = 0;
	int have_now = 0;

	for (int guard = 0; guard < 4 * TXQ; guard++) {
		union {
			struct cmsghdr align;
			uint8_t b[CTRL_BUF];
		} cb;
		uint8_t junk[64];
		struct iovec iov = { junk, sizeof(junk) };
		struct msghdr mh;
		struct scm_timestamping ts;
		struct sock_extended_err ee;
		int have_ts = 0, have_ee = 0;
		struct tx_pending *p;
		struct ld_reading at;
		int64_t kts;

		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cb.b;
		mh.msg_controllen = sizeof(cb.b);
		if (recvmsg(W->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL;
		     c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_TIMESTAMPING &&
			    c->cmsg_len >= CMSG_LEN(sizeof(ts))) {
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				have_ts = 1;
			} else if (((c->cmsg_level == SOL_IP &&
			             c->cmsg_type == IP_RECVERR) ||
			            (c->cmsg_level == SOL_IPV6 &&
			             c->cmsg_type == IPV6_RECVERR)) &&
			           c->cmsg_len >= CMSG_LEN(sizeof(ee))) {
				memcpy(&ee, CMSG_DATA(c), sizeof(ee));
				have_ee = ee.ee_errno == ENOMSG &&
				          ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING;
			}
		}
		if (!have_ts || !have_ee ||
		    (ts.ts[0].tv_sec == 0 && ts.ts[0].tv_nsec == 0))
			continue;
		p = &W->txq[ee.ee_data % TXQ];
		if (!p->used || p->id != ee.ee_data)
			continue;
		p->used = 0;
		kts = lc__ts_to_ns(&ts.ts[0]);
		if (kts < p->host_before || kts - p->host_before > LD_TX_SANE_NS)
			continue;
		if (!have_now) {
			ld_source_read(L->src, &now);
			hnow = real_ns();
			have_now = 1;
		}
		served_at(L, &now, hnow, kts, &at);
		if (ld_xleave_tx(s->xl, (const struct sockaddr *)&p->to, p->rx,
		                 lc_ntp_from_unix_ns(at.unix_ns)))
			CINC(W->c.tx_kernel);
	}
}

static void handle(struct worker *w, int li, int i, int64_t now_mono)
{
	struct ld_server *s = w->s;
	struct listener *L = &s->l[li];
	struct wsock *W = &w->sk[li];
	struct msghdr *mh = &w->msgs[i].msg_hdr;
	const struct sockaddr *from = (const struct sockaddr *)&w->from[i];
	size_t len = w->msgs[i].msg_len;
	struct ld_ntp_packet req, rep;
	struct ld_reading a, b;
	struct rx_meta m;
	struct ld_auth_ctx actx;
	enum ld_auth_verdict av;
	uint8_t out[RX_BUF];
	size_t olen;
	int64_t rx_ns, host_before = 0;
	uint64_t prev_tx = 0, rx_ntp;
	uint32_t refid;
	int kod, xleave, stamp;

	CINC(W->c.received);
	/* longer than the buffer: cut, so its length says nothing */
	if (mh->msg_flags & MSG_TRUNC) {
		CINC(W->c.malformed);
		return;
	}
	switch (ld_ntp_parse(w->buf[i], len, &req)) {
	case LD_NTP_ANSWER:
		break;
	case LD_NTP_MALFORMED:
		CINC(W->c.malformed);
		return;
	case LD_NTP_CONTROL:
		CINC(W->c.control);
		return;
	default:
		CINC(W->c.other_mode);
		return;
	}
	if (mh->msg_namelen == 0 || port_of(from) == 0 ||
	    (from->sa_family != AF_INET && from->sa_family != AF_INET6)) {
		CINC(W->c.malformed);
		return;
	}
	CINC(W->c.requests);
	read_cmsgs(mh, &m);
	if (rate_limited(s, from, now_mono, &kod)) {
		CINC(W->c.ratelimited);
		if (kod) {
			ld_ntp_make_kod(&req, s->kod_poll, &rep);
			ld_ntp_encode(&rep, out);
			send_reply(L, W, out, LD_NTP_HEADER_LEN, from,
			           mh->msg_namelen, &m, &W->c.kod, 0);
		}
		return;
	}
	av = ld_auth_check(s->auth, w->buf[i], len, &actx);
	switch (av) {
	case LD_AUTH_PLAIN:
	case LD_AUTH_OK:
		break;
	case LD_AUTH_CRYPTO_NAK:
		/* RFC 5905 7.5: the header and a MAC of a zero key id only */
		CINC(W->c.auth_fail);
		ld_ntp_make_kod(&req, req.poll, &rep);
		rep.li = LD_LI_NONE;
		rep.stratum = s->params.stratum;
		rep.refid = s->cfg->refid;
		ld_ntp_encode(&rep, out);
		memset(out + LD_NTP_HEADER_LEN, 0, 4);
		send_reply(L, W, out, LD_NTP_HEADER_LEN + 4, from,
		           mh->msg_namelen, &m, &W->c.kod, 0);
		return;
	case LD_AUTH_NTSN:
		/* RFC 8915 5.7: a kiss with the request's Unique Identifier */
		CINC(W->c.auth_fail);
		ld_ntp_make_kod(&req, req.poll, &rep);
		rep.refid = LD_REFID('N', 'T', 'S', 'N');
		ld_ntp_encode(&rep, out);
		olen = ld_auth_finish(s->auth, &actx, out, LD_NTP_HEADER_LEN,
		                      sizeof(out));
		if (olen != 0)
			send_reply(L, W, out, olen, from, mh->msg_namelen, &m,
			           &W->c.kod, 0);
		return;
	default:
		CINC(W->c.auth_fail);
		return;
	}

	ld_source_read(L->src, &a);
	if (m.have_ts) {
		/* the reading at arrival: on TAI, so that a request that
		 * arrived just before 23:59:60 and is read inside it gets
		 * its true time */
		struct ld_reading now = a;

		served_at(L, &now, real_ns(), lc__ts_to_ns(&m.kts), &a);
	}
	rx_ns = a.unix_ns;
	rx_ntp = lc_ntp_from_unix_ns(rx_ns);
	refid = s->cfg->refid;
	if (a.smear_ns >= NO_SMEAR_BELOW_NS || a.smear_ns <= -NO_SMEAR_BELOW_NS)
		refid = ld_ntp_smear_refid(a.smear_ns);
	__atomic_store_n(&L->last_li, a.li, __ATOMIC_RELAXED);
	__atomic_store_n(&L->last_refid, refid, __ATOMIC_RELAXED);
	/* interleaved: the origin names our previous reply's receive
	 * timestamp, whose kernel transmit stamp we have */
	xleave = ld_xleave_lookup(s->xl, from, req.org_ts, &prev_tx);
	/* The reference timestamp: the served time's last whole second,
	 * never after the receive timestamp. */
	ld_ntp_make_reply(&req, &s->params, a.li, refid,
	                  lc_ntp_from_unix_ns(lc__fdiv(rx_ns, LC__NS) * LC__NS),
	                  rx_ntp, 0, &rep);
	if (xleave) {
		rep.org_ts = req.rx_ts;
		rep.tx_ts = prev_tx;
	} else {
		/* the transmit timestamp as late as we can: just before
		 * sendmsg */
		ld_source_read(L->src, &b);
		rep.tx_ts = lc_ntp_from_unix_ns(b.unix_ns);
	}
	ld_ntp_encode(&rep, out);
	olen = ld_auth_finish(s->auth, &actx, out, LD_NTP_HEADER_LEN, sizeof(out));
	if (olen == 0) {
		CINC(W->c.auth_fail);
		return;
	}
	if (av == LD_AUTH_OK)
		CINC(W->c.auth_ok);
	/* a client that sends an origin may be interleaved: stamp it */
	stamp = W->txts && req.org_ts != 0;
	if (stamp) {
		ld_xleave_sent(s->xl, from, rx_ntp);
		host_before = real_ns();
	}
	{
		uint32_t id = W->next_id;

		if (send_reply(L, W, out, olen, from, mh->msg_namelen, &m,
		               &W->c.replies, stamp) && stamp) {
			w->stamped++;
			struct tx_pending *p = &W->txq[id % TXQ];

			p->id = id;
			p->used = 1;
			p->host_before = host_before;
			p->rx = rx_ntp;
			memcpy(&p->to, from, mh->msg_namelen);
		}
	}
	if (xleave)
		CINC(W->c.interleaved);
}

/* Reads up to `rounds` batches from listener li's socket of worker w. */
static void drain(struct worker *w, int li, int rounds)
{
	struct wsock *W = &w->sk[li];

	for (int r = 0; r < rounds; r++) {
		int n;
		int64_t now;

		for (int i = 0; i < BATCH; i++) {
			struct msghdr *mh = &w->msgs[i].msg_hdr;
			memset(mh, 0, sizeof(*mh));
			mh->msg_name = &w->from[i];
			mh->msg_namelen = sizeof(w->from[i]);
			mh->msg_iov = &w->iov[i];
			mh->msg_iovlen = 1;
			mh->msg_control = w->ctrl[i].b;
			mh->msg_controllen = CTRL_BUF;
			w->msgs[i].msg_len = 0;
		}
		n = recvmmsg(W->fd, w->msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		now = mono_ns();
		for (int i = 0; i < n; i++)
			handle(w, li, i, now);
		/* the stamps of this batch's replies (on loopback they are
		 * there already), before the pending ring can wrap */
		if (w->stamped > 0) {
			drain_errq(w->s, &w->s->l[li], W);
			w->stamped = 0;
		}
		/* Under load more requests arrive while a batch is answered:
		 * read again before going back to poll (an idle socket costs
		 * one recvmmsg that finds nothing). */
	}
}

/* Serves what poll found on worker w's sockets (pfd[i] for listener i). */
static void serve(struct worker *w, const struct pollfd *pfd)
{
	for (int i = 0; i < w->s->nl; i++) {
		if (pfd[i].revents & POLLIN)
			drain(w, i, 8);
		if ((pfd[i].revents & POLLERR) && w->sk[i].txts)
			drain_errq(w->s, &w->s->l[i], &w->sk[i]);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ld_server *s = w->s;
	struct pollfd pfd[LD_MAX_LISTEN + 1];

	for (int i = 0; i < s->nl; i++) {
		pfd[i].fd = w->sk[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[s->nl].fd = s->stop_fd;
	pfd[s->nl].events = POLLIN;
	for (;;) {
		int n = poll(pfd, (nfds_t)s->nl + 1, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ld_log(LD_LOG_ERR, "worker %d: poll: %s", w->idx,
			       strerror(errno));
			return NULL;
		}
		if (pfd[s->nl].revents & POLLIN)
			return NULL;
		serve(w, pfd);
	}
}

/* Starts the worker threads (with more than one), every signal blocked
 * in them: the main thread alone takes signals. */
static int start_workers(struct ld_server *s)
{
	sigset_t all, old;
	int rc = 0;

	if (s->nw <= 1)
		return 0;
	s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->stop_fd < 0) {
		ld_log(LD_LOG_ERR, "eventfd: %s", strerror(errno));
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int k = 0; k < s->nw; k++) {
		int e = pthread_create(&s->w[k]->th, NULL, worker_main, s->w[k]);

		if (e != 0) {
			ld_log(LD_LOG_ERR, "worker thread: %s", strerror(e));
			rc = -1;
			break;
		}
		s->w[k]->started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		stop_workers(s);
	return rc;
}

/* The counters of listener i summed over the workers. */
static void sum_counters(struct ld_server *s, int li, struct ld_counters *sum)
{
	uint64_t *o = (uint64_t *)sum;

	memset(sum, 0, sizeof(*sum));
	for (int k = 0; k < s->nw; k++) {
		const uint64_t *v = (const uint64_t *)&s->w[k]->sk[li].c;

		for (size_t j = 0; j < sizeof(*sum) / sizeof(uint64_t); j++)
			o[j] += __atomic_load_n(&v[j], __ATOMIC_RELAXED);
	}
}

int ld_server_nlisteners(struct ld_server *s)
{
	return s->nl;
}

int ld_server_listener(struct ld_server *s, int i, struct ld_listener_info *out)
{
	if (i < 0 || i >= s->nl)
		return -1;
	out->addr = s->l[i].name;
	out->mode = s->l[i].cfg.mode_name;
	out->src = s->l[i].src;
	out->li = __atomic_load_n(&s->l[i].last_li, __ATOMIC_RELAXED);
	out->refid = __atomic_load_n(&s->l[i].last_refid, __ATOMIC_RELAXED);
	return 0;
}

void ld_server_counters(struct ld_server *s, int listener,
                        struct ld_counters *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < s->nl; i++) {
		struct ld_counters one;
		uint64_t *o = (uint64_t *)sum;
		const uint64_t *v = (const uint64_t *)&one;

		if (listener >= 0 && i != listener)
			continue;
		sum_counters(s, i, &one);
		for (size_t k = 0; k < sizeof(*sum) / sizeof(uint64_t); k++)
			o[k] += v[k];
	}
}

/* Reads the first line of `path` into buf ("" if none). */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)size, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* What says that the stats file's pid is this process and not a later
 * one that reuses it: the process start time (clock ticks after boot) and
 * the boot. Read again after a fork (detaching changes the pid). */
static void stats_identity(struct ld_server *s)
{
	char buf[1024], *p;
	int field;

	if (s->stats_pid == (long)getpid())
		return;
	s->stats_pid = (long)getpid();
	s->pid_start[0] = '\0';
	read_line("/proc/self/stat", buf, sizeof(buf));
	/* the command name (field 2) may hold spaces: count from its ')' */
	p = strrchr(buf, ')');
	for (field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		snprintf(s->pid_start, sizeof(s->pid_start), "%.*s",
		         (int)strcspn(p + 1, " "), p + 1);
	read_line("/proc/sys/kernel/random/boot_id", s->boot_id,
	          sizeof(s->boot_id));
}

/* Removes the stats file when the daemon stops, if it is still the one
 * this process wrote (another leapclockd may have taken the path over). */
static void remove_stats(struct ld_server *s)
{
	const char *path = s->cfg->statsfile;
	char line[64], want[64];
	FILE *f;
	int ours = 0;

	if (!s->stats_written || path[0] == '\0')
		return;
	snprintf(want, sizeof(want), "pid %ld\n", (long)getpid());
	f = fopen(path, "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strcmp(line, want) == 0) {
			ours = 1;
			break;
		}
	fclose(f);
	if (ours && unlink(path) != 0)
		ld_log(LD_LOG_WARNING, "stats file %s: %s", path, strerror(errno));
	s->stats_written = 0;
}

/* The stats file's temporary, opened for writing without waiting: a FIFO
 * there (or anything but a regular file) is refused, since opening one
 * for writing waits for a reader, and the loop with it, SIGTERM blocked.
 * NULL with errno set. */
static FILE *open_stats_tmp(const char *tmp)
{
	struct stat st;
	FILE *f;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	                       O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
	              0644);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

static void write_stats(struct ld_server *s)
{
	char tmp[PATH_MAX + 8];
	const char *path = s->cfg->statsfile;
	struct lc_leaptable_info info;
	FILE *f;

	if (path[0] == '\0')
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = open_stats_tmp(tmp);
	if (f == NULL && errno == ENOENT) {
		/* create the last directory (as systemd's RuntimeDirectory) */
		char dir[PATH_MAX];
		char *slash;
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
			mkdir(dir, 0755);
			f = open_stats_tmp(tmp);
		}
	}
	if (f == NULL) {
		if (!s->stats_warned)
			ld_log(LD_LOG_WARNING, "stats file %s: %s", tmp,
			       errno == EINVAL || errno == ENXIO
			               ? "not a regular file"
			               : strerror(errno));
		s->stats_warned = 1;
		return;
	}
	lc_leaptable_info(ld_clock_table(s->clock), &info);
	stats_identity(s);
	fprintf(f, "# leapclockd statistics: read with 'leapclock server-stats'\n");
	fprintf(f, "leapclockd-stats 1\n");
	fprintf(f, "pid %ld\n", (long)getpid());
	if (s->pid_start[0] != '\0')
		fprintf(f, "pid-start %s\n", s->pid_start);
	if (s->boot_id[0] != '\0')
		fprintf(f, "boot-id %s\n", s->boot_id);
	fprintf(f, "started %" PRId64 "\n", s->started_unix);
	fprintf(f, "updated %" PRId64 "\n", (int64_t)time(NULL));
	fprintf(f, "leaptable %s\n", info.source);
	fprintf(f, "leaptable-expires %" PRId64 "\n", info.expires);
	fprintf(f, "pretend %s\n", s->cfg->pretend[0] ? s->cfg->pretend : "-");
	fprintf(f, "threads %d\n", s->nw);
	for (int i = 0; i < s->nl; i++) {
		const struct listener *L = &s->l[i];
		struct ld_counters c;

		sum_counters(s, i, &c);
		fprintf(f,
		        "listen %s %s received=%" PRIu64 " requests=%" PRIu64
		        " replies=%" PRIu64 " malformed=%" PRIu64
		        " control=%" PRIu64 " other_mode=%" PRIu64
		        " ratelimited=%" PRIu64 " kod=%" PRIu64
		        " send_errors=%" PRIu64 " li=%u refid=0x%08" PRIx32
		        " interleaved=%" PRIu64 " tx_kernel=%" PRIu64 "\n",
		        L->name, L->cfg.mode_name, c.received, c.requests,
		        c.replies, c.malformed, c.control, c.other_mode,
		        c.ratelimited, c.kod, c.send_errors,
		        __atomic_load_n(&L->last_li, __ATOMIC_RELAXED),
		        __atomic_load_n(&L->last_refid, __ATOMIC_RELAXED),
		        c.interleaved, c.tx_kernel);
	}
	/* per worker (ignored by server-stats; shows the spread) */
	for (int k = 0; k < s->nw && s->nw > 1; k++)
		for (int i = 0; i < s->nl; i++) {
			const struct ld_counters *c = &s->w[k]->sk[i].c;

			fprintf(f, "worker %d %s received=%" PRIu64
			        " replies=%" PRIu64 " ratelimited=%" PRIu64 "\n",
			        k, s->l[i].name,
			        __atomic_load_n(&c->received, __ATOMIC_RELAXED),
			        __atomic_load_n(&c->replies, __ATOMIC_RELAXED),
			        __atomic_load_n(&c->ratelimited, __ATOMIC_RELAXED));
		}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		if (!s->stats_warned)
			ld_log(LD_LOG_WARNING, "stats file %s: %s", path,
			       strerror(errno));
		s->stats_warned = 1;
		unlink(tmp);
		return;
	}
	s->stats_written = 1;
}

void ld_server_dump_stats(struct ld_server *s, int log)
{
	write_stats(s);
	if (!log)
		return;
	for (int i = 0; i < s->nl; i++) {
		struct ld_counters cs, *c = &cs;

		sum_counters(s, i, c);
		ld_log(LD_LOG_INFO,
		       "%s %s: received %" PRIu64 ", requests %" PRIu64
		       ", replies %" PRIu64 ", malformed %" PRIu64
		       ", control %" PRIu64 ", other modes %" PRIu64
		       ", rate-limited %" PRIu64 " (kod %" PRIu64
		       "), send errors %" PRIu64,
		       s->l[i].name, s->l[i].cfg.mode_name, c->received,
		       c->requests, c->replies, c->malformed, c->control,
		       c->other_mode, c->ratelimited, c->kod, c->send_errors);
	}
}

/* inotify on the leap files and their folders: a replaced file (renamed
 * into place, as dpkg does) or one rewritten in place is reloaded within
 * the loop's 250 ms. Returns the fd, or -1 (then SIGHUP still reloads). */
static int watch_tables(struct ld_server *s)
{
	char paths[2][PATH_MAX];
	int n = ld_clock_watch_paths(s->clock, paths);
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char dir[PATH_MAX];
		char *slash;

		inotify_add_watch(fd, paths[i],
		                  IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB |
		                          IN_DELETE_SELF | IN_MOVE_SELF);
		size_t len = strnlen(paths[i], sizeof(dir) - 1);

		memcpy(dir, paths[i], len);
		dir[len] = '\0';
		slash = strrchr(dir, '/');
		if (slash == NULL)
			continue;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		inotify_add_watch(fd, dir,
		                  IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE |
		                          IN_DELETE);
	}
	return fd;
}

/* Drains the inotify fd; 1 if anything arrived. */
static int drain_watch(int fd)
{
	char buf[4096] __attribute__((aligned(8)));
	int any = 0;

	while (read(fd, buf, sizeof(buf)) > 0)
		any = 1;
	return any;
}

/* A TFD_TIMER_CANCEL_ON_SET timerfd that becomes readable when the host's
 * REALTIME is set, so that the timeline follows a step at once rather than
 * at the next 250 ms update (readers of the page see it that much sooner).
 * Returns the fd, or -1 (then the periodic update still follows it). */
static int watch_steps(void)
{
	int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	struct itimerspec its;

	if (fd < 0)
		return -1;
	memset(&its, 0, sizeof(its));
	clock_gettime(CLOCK_REALTIME, &its.it_value);
	its.it_value.tv_sec += (time_t)1 << 30; /* never expires */
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
	                    &its, NULL) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int ld_server_run(struct ld_server *s)
{
	struct pollfd pfd[LD_MAX_LISTEN + 2];
	sigset_t empty;
	int64_t last_update = mono_ns(), last_stats = 0, reload_at = -1;
	int wfd = watch_tables(s), np = s->nl, sfd = watch_steps();
	/* one thread: it serves here; more: the workers do */
	int inline_serve = s->nw <= 1;

	if (ld_auth_start(s->auth) != 0)
		return -1;
	sigemptyset(&empty);
	if (start_workers(s) != 0) {
		if (wfd >= 0)
			close(wfd);
		if (sfd >= 0)
			close(sfd);
		return -1;
	}
	for (int i = 0; i < s->nl; i++) {
		pfd[i].fd = inline_serve ? s->w[0]->sk[i].fd : -1;
		pfd[i].events = POLLIN;
	}
	/* the step watch at nl (fd -1 is ignored by ppoll), the table watch
	 * last */
	pfd[np].fd = sfd;
	pfd[np].events = POLLIN;
	np++;
	if (wfd >= 0) {
		pfd[np].fd = wfd;
		pfd[np].events = POLLIN;
		np++;
	}
	write_stats(s);
	while (!ld_sig_term) {
		struct timespec tmo = { 0, 250000000 };
		int n = ppoll(pfd, (nfds_t)np, &tmo, &empty);
		int64_t now;

		if (n < 0 && errno != EINTR) {
			ld_log(LD_LOG_ERR, "ppoll: %s", strerror(errno));
			if (wfd >= 0)
				close(wfd);
			if (sfd >= 0)
				close(sfd);
			stop_workers(s);
			return -1;
		}
		if (inline_serve && n > 0)
			serve(s->w[0], pfd);
		now = mono_ns();
		if (wfd >= 0 && n > 0 && (pfd[np - 1].revents & POLLIN) &&
		    drain_watch(wfd) && reload_at < 0)
			reload_at = now + 100000000; /* let a writer finish */
		if (sfd >= 0 && n > 0 && (pfd[s->nl].revents & POLLIN)) {
			/* the host's clock was set: follow it now, on a fresh
			 * watch (a cancelled timerfd stays readable) */
			close(sfd);
			sfd = watch_steps();
			pfd[s->nl].fd = sfd;
			last_update = now - 250000000;
		}
		if (now - last_update >= 250000000) {
			ld_clock_update(s->clock);
			last_update = now;
		}
		if (now - last_stats >= LC__NS) {
			write_stats(s);
			last_stats = now;
		}
		if (reload_at >= 0 && now >= reload_at) {
			reload_at = -1;
			ld_log(LD_LOG_INFO, "leap file changed: reloading");
			ld_clock_reload(s->clock);
			/* a file renamed into place is a new inode: watch it */
			if (wfd >= 0) {
				close(wfd);
				wfd = watch_tables(s);
				if (wfd >= 0)
					pfd[np - 1].fd = wfd;
				else
					np--;
			}
		}
		if (ld_sig_hup) {
			ld_sig_hup = 0;
			ld_log(LD_LOG_INFO, "SIGHUP: reloading the leap table");
			ld_clock_reload(s->clock);
			ld_auth_reload(s->auth);
		}
		if (ld_sig_usr1) {
			ld_sig_usr1 = 0;
			ld_server_dump_stats(s, 1);
		}
	}
	if (wfd >= 0)
		close(wfd);
	if (sfd >= 0)
		close(sfd);
	stop_workers(s);
	ld_server_dump_stats(s, 1);
	return 0;
}


/* For metrics.c (keep after merging hA): the auth code's counters. */
#include "metrics.h"

void ld_server_auth_counters(struct ld_server *s, struct ld_auth_counters *c,
                             int *configured)
{
	*configured = s->auth != NULL;
	ld_auth_counters(s->auth, c);
}
