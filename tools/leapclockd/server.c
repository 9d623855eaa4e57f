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
 * *
 * The answer path is in server_answer.c, the counters and the stats file
 * in server_stats.c.
 */
#define _GNU_SOURCE /* recvmmsg, ppoll, struct in6_pktinfo */

#include "server_impl.h"
#include "sdnotify.h"

#include <errno.h>
#include <limits.h>
#include <linux/net_tstamp.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

volatile sig_atomic_t ld_sig_term, ld_sig_hup, ld_sig_usr1;

static int is_wildcard(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr,
	              &in6addr_any, sizeof(struct in6_addr)) == 0;
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

/* The receive buffer of a socket: `kib` KiB, 0 to leave the system's
 * default. SO_RCVBUFFORCE (CAP_NET_ADMIN: root before it drops to --user)
 * may exceed net.core.rmem_max; SO_RCVBUF is capped there by the kernel.
 * Socket k 0 says what it got when that is less than asked. */
static void set_rcvbuf(int fd, const struct listener *L, int k, int kib)
{
	int want = kib * 1024, got = 0;
	socklen_t gl = sizeof(got);

	if (kib <= 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	/* the kernel reports twice what it was given (its bookkeeping) */
	if (k == 0 && getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &gl) == 0 &&
	    got / 2 < want)
		ld_log(LD_LOG_INFO,
		       "%s: receive buffer %d KiB, not %d (net.core.rmem_max)",
		       L->cfg.text, got / 2048, kib);
}

/* Opens worker socket `k` of listener L (k 0 binds first). -1 with the
 * reason in err (n bytes), not logged: the caller says it (the writer once
 * for a whole outage, privsep.c). */
static int open_socket(struct listener *L, struct wsock *W, int k, int share,
                       int rcvbuf_kib, int given, char *err, size_t n)
{
	int one = 1, fd;
	int fam = L->cfg.addr.ss_family;
	const struct sockaddr_storage *at = k == 0 ? &L->cfg.addr : &L->bound;

	W->fd = -1;
	if (given >= 0) {
		/* bound by the writer (privsep.c): what is per process is
		 * set again here, the rest came with it */
		fd = given;
		goto options;
	}
	if (share && k == 0 && port_of((const struct sockaddr *)at) != 0 &&
	    probe_free(at, L->cfg.addrlen) != 0) {
		snprintf(err, n, "%s: bind: %s", L->cfg.text, strerror(errno));
		return -1;
	}
	fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, n, "%s: socket: %s", L->cfg.text, strerror(errno));
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
		snprintf(err, n, "%s: SO_REUSEPORT: %s", L->cfg.text,
		         strerror(errno));
		close(fd);
		return -1;
	}
	set_rcvbuf(fd, L, k, rcvbuf_kib);
options:
	/* Don't fragment: with DF set the kernel gives an unconnected
	 * socket's datagram IP ID 0 instead of drawing one from its shared
	 * hash of counters (__ip_select_ident: 4 % of a core's time per
	 * reply under load). A reply is never larger than its request; one
	 * over the path's MTU back to the client would be dropped instead of
	 * fragmented, which takes a request of over 1280 bytes (chrony's
	 * largest NTS request, 7 cookie placeholders, is under 1000). */
	if (fam == AF_INET) {
		int pmtu = IP_PMTUDISC_PROBE;

		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	}
	{
		/* reporting and numbering on the socket; the transmit stamp
		 * is asked for per reply (send_reply); the receive stamp is
		 * SCM_TIMESTAMPING's first, the only one per datagram
		 * (SO_TIMESTAMPNS beside it made the kernel add a second) */
		int f = SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
		        SOF_TIMESTAMPING_OPT_TSONLY |
		        SOF_TIMESTAMPING_RX_SOFTWARE;

		W->txts = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &f,
		                     sizeof(f)) == 0;
		if (!W->txts &&
		    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
		               sizeof(one)) != 0 &&
		    k == 0)
			ld_log(LD_LOG_WARNING,
			       "%s: no kernel receive timestamps (%s): "
			       "stamping on read",
			       L->cfg.text, strerror(errno));
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
	if (given < 0 &&
	    bind(fd, (const struct sockaddr *)at, L->cfg.addrlen) != 0) {
		snprintf(err, n, "%s: bind: %s", L->cfg.text, strerror(errno));
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

/* Every worker's socket of every listener opened (bound, or taken from
 * s->given): all of them, or none (closed again) and -1 with the reason
 * in why. */
static int bind_all(struct ld_server *s, char *why, size_t n)
{
	const struct ld_config *cfg = s->cfg;

	for (int i = 0; i < s->nl; i++) {
		struct listener *L = &s->l[i];

		for (int k = 0; k < s->nw; k++)
			if (open_socket(L, &s->w[k]->sk[i], k, s->nw > 1,
			                cfg->rcvbuf_kib,
			                s->given != NULL
			                        ? s->given[k * cfg->nlisten + i]
			                        : -1, why, n) != 0)
				goto fail;
	}
	for (int i = 0; i < s->nl && s->role != LD_ROLE_SERVER; i++)
		ld_log(LD_LOG_INFO, "serving %s on %s/udp",
		       s->l[i].cfg.mode_name, s->l[i].name);
	if (s->nw > 1 && s->role != LD_ROLE_SERVER)
		ld_log(LD_LOG_INFO, "%d worker threads", s->nw);
	why[0] = '\0';
	return 0;
fail:
	for (int k = 0; k < s->nw; k++)
		for (int i = 0; i < s->nl; i++)
			if (s->w[k]->sk[i].fd >= 0) {
				close(s->w[k]->sk[i].fd);
				s->w[k]->sk[i].fd = -1;
			}
	/* sockets handed over are taken once: bound afresh next time */
	s->given = NULL;
	return -1;
}

int ld_server_bind(struct ld_server *s, char *why, size_t n)
{
	if (s->unbound[0] == '\0')
		return 0;
	if (bind_all(s, s->unbound, sizeof(s->unbound)) == 0)
		return 0;
	snprintf(why, n, "%s", s->unbound);
	return -1;
}

const char *ld_server_unbound(const struct ld_server *s)
{
	return s->unbound[0] != '\0' ? s->unbound : NULL;
}

int ld_server_new(struct ld_server **out, const struct ld_config *cfg,
                  struct ld_clock *clock)
{
	return ld_server_new_role(out, cfg, clock, LD_ROLE_ALL, NULL, 0, -1);
}

int ld_server_new_role(struct ld_server **out, const struct ld_config *cfg,
                       struct ld_clock *clock, int role, const int *given,
                       int ngiven, int ctl_fd)
{
	struct ld_server *s = calloc(1, sizeof(*s));
	int prec, nw;

	*out = NULL;
	if (s == NULL)
		return -1;
	s->cfg = cfg;
	s->clock = clock;
	s->stop_fd = -1;
	s->role = role;
	s->given = given;
	s->ngiven = ngiven;
	s->ctl_fd = ctl_fd;
	/* the stats file names the daemon: the writer, which holds the pid
	 * file and takes the signals */
	s->daemon_pid = role == LD_ROLE_SERVER ? (long)getppid() : 0;
	nw = threads_wanted(cfg);
	if (given != NULL && ngiven != nw * cfg->nlisten) {
		ld_log(LD_LOG_ERR, "%d sockets handed down, %d x %d expected",
		       ngiven, nw, cfg->nlisten);
		free(s);
		return -1;
	}
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
		if (role != LD_ROLE_WRITER) {
			L->src = ld_clock_source(clock, &L->cfg);
			if (L->src == NULL)
				goto fail;
		}
		s->nl++;
	}
	if (bind_all(s, s->unbound, sizeof(s->unbound)) != 0 &&
	    role != LD_ROLE_WRITER) {
		ld_log(LD_LOG_ERR, "%s", s->unbound);
		goto fail;
	}
	if (role == LD_ROLE_WRITER) {
		/* no keys, no client state: those are the server's. Sockets
		 * that did not bind are bound again before each start of the
		 * server (ld_server_bind), the page kept meanwhile */
		*out = s;
		return 0;
	}
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
	ld__srv_remove_stats(s);
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
int ld_server_fds(const struct ld_server *s, int *fds, int max)
{
	int n = 0;

	for (int k = 0; k < s->nw; k++)
		for (int i = 0; i < s->nl; i++)
			if (n < max)
				fds[n++] = s->w[k]->sk[i].fd;
	return n;
}

static int same_addr(const struct sockaddr_storage *want, socklen_t len,
                     const struct sockaddr_storage *got)
{
	if (want->ss_family != got->ss_family)
		return 0;
	if (want->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)want,
		                         *b = (const void *)got;

		return a->sin_addr.s_addr == b->sin_addr.s_addr &&
		       (a->sin_port == 0 || a->sin_port == b->sin_port);
	}
	if (want->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *a = (const void *)want,
		                          *b = (const void *)got;

		return memcmp(&a->sin6_addr, &b->sin6_addr,
		              sizeof(a->sin6_addr)) == 0 &&
		       (a->sin6_port == 0 || a->sin6_port == b->sin6_port);
	}
	return 0;
}

int ld_server_fds_match(const struct ld_config *cfg, const int *fds, int n)
{
	int nw = threads_wanted(cfg);

	if (n != nw * cfg->nlisten)
		return 0;
	for (int k = 0; k < nw; k++)
		for (int i = 0; i < cfg->nlisten; i++) {
			struct sockaddr_storage got;
			socklen_t gl = sizeof(got);
			int type = 0;
			socklen_t tl = sizeof(type);
			int fd = fds[k * cfg->nlisten + i];

			memset(&got, 0, sizeof(got));
			if (getsockname(fd, (struct sockaddr *)&got, &gl) != 0 ||
			    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
			    type != SOCK_DGRAM ||
			    !same_addr(&cfg->listen[i].addr,
			               cfg->listen[i].addrlen, &got))
				return 0;
		}
	return 1;
}

void ld_server_supervise(struct ld_server *s, const struct ld_supervise *sup)
{
	s->sup = *sup;
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
		ld__srv_serve(w, pfd);
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
/* What the table watch watches: each leap file itself, and its folder
 * for that file's name only (name ""). */
struct table_watch {
	int wd;
	char name[NAME_MAX + 1]; /* a folder's: the leap file's name in it */
};

#define MAX_WATCHES 4

/* inotify on the leap files and their folders: a replaced file (renamed
 * into place, as dpkg does) or one rewritten in place is reloaded within
 * the loop's 250 ms. An event in a folder counts only when it names the
 * leap file (issue 28 item 13: any file made there, a stats file written
 * once a second, reloaded the table and said so, for ever). Returns the
 * fd, or -1 (then SIGHUP still reloads); the watches into w[0..*nw). */
static int watch_tables(struct ld_server *s, struct table_watch *w, int *nw)
{
	char paths[2][PATH_MAX];
	int n, fd;

	*nw = 0;
	if (s->clock == NULL ||
	    (n = ld_clock_watch_paths(s->clock, paths)) == 0)
		return -1; /* nothing to watch here (privsep.c) */
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char dir[PATH_MAX];
		char *slash;
		size_t len = strnlen(paths[i], sizeof(dir) - 1);
		int wd;

		wd = inotify_add_watch(fd, paths[i],
		                       IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB |
		                               IN_DELETE_SELF | IN_MOVE_SELF);
		if (wd >= 0 && *nw < MAX_WATCHES) {
			w[*nw].wd = wd;
			w[*nw].name[0] = '\0';
			(*nw)++;
		}
		memcpy(dir, paths[i], len);
		dir[len] = '\0';
		slash = strrchr(dir, '/');
		if (slash == NULL || slash[1] == '\0' ||
		    strlen(slash + 1) > NAME_MAX || *nw >= MAX_WATCHES)
			continue;
		snprintf(w[*nw].name, NAME_MAX + 1, "%s", slash + 1);
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		wd = inotify_add_watch(fd, dir,
		                       IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE |
		                               IN_DELETE);
		if (wd >= 0) {
			/* the same folder twice gives the same wd: both
			 * names kept (drain_watch tries every entry) */
			w[*nw].wd = wd;
			(*nw)++;
		}
	}
	return fd;
}

/* Drains the inotify fd; 1 if an event concerned a leap file: any event
 * on a file's own watch, or a folder's event naming it. */
static int drain_watch(int fd, const struct table_watch *w, int nw)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int any = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			for (int i = 0; i < nw; i++) {
				if (ev->wd != w[i].wd)
					continue;
				if (w[i].name[0] == '\0' ||
				    (ev->len > 0 && strcmp(ev->name, w[i].name) == 0))
					any = 1;
			}
			if (ev->mask & IN_Q_OVERFLOW)
				any = 1; /* events lost: look again */
			p += sizeof(*ev) + ev->len;
		}
	}
	return any;
}

/* A TFD_TIMER_CANCEL_ON_SET timerfd that becomes readable when the host's
 * REALTIME is set, so that the timeline follows a step at once rather than
 * at the next 250 ms update (readers of the page see it that much sooner).
 * Returns the fd, or -1 (then the periodic update still follows it). */
int ld_step_watch(void)
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

/* The main thread's loop: its poll set (the sockets when it serves them,
 * the step watch at nl, the table watch last) and its clocks. */
struct main_loop {
	struct pollfd pfd[LD_MAX_LISTEN + 4];
	int np;
	int wfd, sfd;  /* table and step watches, -1 for none */
	struct table_watch tw[MAX_WATCHES]; /* what wfd watches */
	int ntw;
	int inline_serve;
	int64_t last_update, last_stats, reload_at;
};

static void loop_close_watches(struct main_loop *ml)
{
	if (ml->wfd >= 0)
		close(ml->wfd);
	if (ml->sfd >= 0)
		close(ml->sfd);
}

static void loop_setup(struct ld_server *s, struct main_loop *ml)
{
	ml->np = s->nl;
	for (int i = 0; i < s->nl; i++) {
		ml->pfd[i].fd = ml->inline_serve ? s->w[0]->sk[i].fd : -1;
		ml->pfd[i].events = POLLIN;
	}
	/* the step watch at nl (fd -1 is ignored by ppoll), the writer's
	 * socketpair at nl + 1, the handover socket at nl + 2, the table
	 * watch last */
	ml->pfd[ml->np].fd = ml->sfd;
	ml->pfd[ml->np].events = POLLIN;
	ml->np++;
	ml->pfd[ml->np].fd = s->ctl_fd;
	ml->pfd[ml->np].events = POLLIN;
	ml->np++;
	ml->pfd[ml->np].fd = s->sup.ready != NULL ? s->sup.fd : -1;
	ml->pfd[ml->np].events = POLLIN;
	ml->np++;
	if (ml->wfd >= 0) {
		ml->pfd[ml->np].fd = ml->wfd;
		ml->pfd[ml->np].events = POLLIN;
		ml->np++;
	}
}

/* NTP's bound on a clock left to itself: 15 us/s (RFC 5905 PHI) */
#define LD_PHI_NS_PER_S 15000

/* The server's writer is gone (its socketpair closed: killed, crashed):
 * the server serves on from the page's last snapshot, as every reader
 * of the page does, and says so; its root dispersion grows from now on
 * (loop_periodic). */
static void writer_gone(struct ld_server *s, struct main_loop *ml, int64_t now)
{
	char b;

	if (read(s->ctl_fd, &b, 1) > 0)
		return; /* a word, not the end */
	close(s->ctl_fd);
	s->ctl_fd = -1;
	ml->pfd[s->nl + 1].fd = -1;
	s->writer_gone = now;
	ld_log(LD_LOG_WARNING,
	       "the writer process is gone: serving on from the timeline's "
	       "last snapshot, the root dispersion growing %d us/s",
	       LD_PHI_NS_PER_S / 1000);
}

/* What the watches saw: a leap file changed (reloaded a little later), the
 * host's clock set. */
static void loop_watches(struct ld_server *s, struct main_loop *ml, int64_t now)
{
	if (ml->wfd >= 0 && (ml->pfd[ml->np - 1].revents & POLLIN) &&
	    drain_watch(ml->wfd, ml->tw, ml->ntw) && ml->reload_at < 0)
		ml->reload_at = now + 100000000; /* let a writer finish */
	if (ml->sfd >= 0 && (ml->pfd[s->nl].revents & POLLIN)) {
		/* the host's clock was set: follow it now, on a fresh
		 * watch (a cancelled timerfd stays readable) */
		close(ml->sfd);
		ml->sfd = ld_step_watch();
		ml->pfd[s->nl].fd = ml->sfd;
		ml->last_update = now - LD_UPDATE_NS;
	}
	if (s->ctl_fd >= 0 && (ml->pfd[s->nl + 1].revents & (POLLIN | POLLHUP)))
		writer_gone(s, ml, now);
	if (ml->pfd[s->nl + 2].fd >= 0 && (ml->pfd[s->nl + 2].revents & POLLIN))
		s->sup.ready(s->sup.arg, s->ctl_fd >= 0);
}

/* The periodic work: the clock updated, the stats file written, a changed
 * leap file reloaded. */
static void loop_periodic(struct ld_server *s, struct main_loop *ml, int64_t now)
{
	if (now - ml->last_update >= LD_UPDATE_NS) {
		if (s->clock != NULL)
			ld_clock_update(s->clock);
		ld_sd_watchdog(); /* fed by the tick that updates the page */
		ml->last_update = now;
		if (s->writer_gone != 0) {
			/* the bound widens with the time left to itself */
			int64_t d = s->cfg->root_dispersion_ns +
			            (now - s->writer_gone) / LC__NS * LD_PHI_NS_PER_S;
			atomic_store_explicit(&s->root_disp_now,
			                      ld_ntp_short_from_ns(d),
			                      memory_order_relaxed);
		}
	}
	if (s->sup.tick != NULL)
		s->sup.tick(s->sup.arg, now);
	if (s->role != LD_ROLE_WRITER && now - ml->last_stats >= LC__NS) {
		ld__srv_write_stats(s);
		ml->last_stats = now;
	}
	if (ml->reload_at >= 0 && now >= ml->reload_at) {
		int old = ml->wfd;

		ml->reload_at = -1;
		ld_log(LD_LOG_INFO, "leap file changed: reloading");
		/* A file renamed into place is a new inode: watch it, and
		 * before reading it, so that a write after the read is seen
		 * (watched after the reload, a write in between was lost: a
		 * tampered file then stayed unnoticed). A change the reload
		 * already read only costs one more reload. */
		if (old >= 0) {
			ml->wfd = watch_tables(s, ml->tw, &ml->ntw);
			if (ml->wfd >= 0)
				ml->pfd[ml->np - 1].fd = ml->wfd;
			else
				ml->np--;
		}
		ld_clock_reload(s->clock);
		if (old >= 0)
			close(old);
	}
}

static void loop_signals(struct ld_server *s)
{
	if (ld_sig_hup) {
		ld_sig_hup = 0;
		if (s->role != LD_ROLE_SERVER)
			ld_log(LD_LOG_INFO, "SIGHUP: reloading the leap table (and any key file and NTS certificate)");
		if (s->clock != NULL)
			ld_clock_reload(s->clock);
		ld_auth_reload(s->auth);
		if (s->sup.signal != NULL)
			s->sup.signal(s->sup.arg, SIGHUP);
	}
	if (ld_sig_usr1) {
		ld_sig_usr1 = 0;
		if (s->role != LD_ROLE_WRITER)
			ld_server_dump_stats(s, 1);
		if (s->sup.signal != NULL)
			s->sup.signal(s->sup.arg, SIGUSR1);
	}
}

int ld_server_run(struct ld_server *s)
{
	struct main_loop ml;
	sigset_t empty;

	memset(&ml, 0, sizeof(ml));
	ml.last_update = mono_ns();
	ml.reload_at = -1;
	ml.wfd = watch_tables(s, ml.tw, &ml.ntw);
	ml.sfd = ld_step_watch();
	/* one thread: it serves here; more: the workers do; the writer
	 * never reads its sockets (they are the server's) */
	ml.inline_serve = s->nw <= 1 && s->role != LD_ROLE_WRITER;
	if (s->clock == NULL) {
		if (ml.sfd >= 0)
			close(ml.sfd);
		ml.sfd = -1;
	}

	if (ld_auth_start(s->auth) != 0)
		return -1;
	sigemptyset(&empty);
	if (s->role != LD_ROLE_WRITER && start_workers(s) != 0) {
		loop_close_watches(&ml);
		return -1;
	}
	loop_setup(s, &ml);
	if (s->role != LD_ROLE_WRITER)
		ld__srv_write_stats(s);
	while (!ld_sig_term) {
		struct timespec tmo = { 0, 250000000 };
		int n = ppoll(ml.pfd, (nfds_t)ml.np, &tmo, &empty);
		int64_t now;

		if (n < 0 && errno != EINTR) {
			ld_log(LD_LOG_ERR, "ppoll: %s", strerror(errno));
			loop_close_watches(&ml);
			stop_workers(s);
			return -1;
		}
		if (ml.inline_serve && n > 0)
			ld__srv_serve(s->w[0], ml.pfd);
		now = mono_ns();
		if (n > 0)
			loop_watches(s, &ml, now);
		loop_periodic(s, &ml, now);
		loop_signals(s);
	}
	loop_close_watches(&ml);
	stop_workers(s);
	if (s->role != LD_ROLE_WRITER)
		ld_server_dump_stats(s, 1);
	return 0;
}
