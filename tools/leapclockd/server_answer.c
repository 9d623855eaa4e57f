/*
 * server_answer.c - leapclockd's receive/answer path: a worker's batch of
 * datagrams read, each rate limited, parsed, authenticated and answered,
 * and the kernel's transmit stamps read back (sockets and workers:
 * server.c).
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

#include "server_impl.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* The rate-limit slot of a client address. */
size_t ld__srv_rl_index(const struct ld_server *s, const struct sockaddr *sa)
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
/* 1 if the client at `sa` is over its rate; *kod set if it should get a
 * kiss-o'-death this time. Any worker at once: a compare-and-swap loop on
 * the slot's tat, and one on its next kiss so that one kiss goes out. */
int ld__srv_rate_limited(struct ld_server *s, const struct sockaddr *sa,
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
	e = &s->rl[ld__srv_rl_index(s, sa)];
	old = atomic_load_explicit(&e->tat, memory_order_relaxed);
	for (;;) {
		tat = old > now ? old : now;
		if (tat - now > s->rl_slack_ns)
			break;
		if (atomic_compare_exchange_strong_explicit(
		            &e->tat, &old, tat + s->rl_period_ns,
		            memory_order_relaxed, memory_order_relaxed))
			return 0;
		/* another worker moved it: old is its value now */
	}
	kn = atomic_load_explicit(&e->kod_next, memory_order_relaxed);
	while (now >= kn) {
		if (atomic_compare_exchange_strong_explicit(
		            &e->kod_next, &kn, now + s->kod_gap_ns,
		            memory_order_relaxed, memory_order_relaxed)) {
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
		} else if (c->cmsg_level == SOL_SOCKET &&
		           c->cmsg_type == SCM_TIMESTAMPING &&
		           c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			/* ts[0], the software stamp (0 if none was taken) */
			memcpy(&m->kts, CMSG_DATA(c), sizeof(m->kts));
			m->have_ts = m->kts.tv_sec != 0 || m->kts.tv_nsec != 0;
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
                      const struct rx_meta *m, _Atomic uint64_t *counter,
                      int stamp)
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

/* One request being answered: where it came from and what it said. */
struct request {
	struct worker *w;
	struct listener *L;
	struct wsock *W;
	const struct sockaddr *from;
	socklen_t fromlen;
	struct rx_meta m;
	struct ld_ntp_packet req;
	struct ld_auth_ctx actx;
};

/* Datagram i of w's batch on listener li: 0 if it is an NTP request from a
 * real client address (r->req parsed), -1 once counted as something else. */
static int classify(struct worker *w, int li, int i, struct request *r)
{
	struct wsock *W = &w->sk[li];
	struct msghdr *mh = &w->msgs[i].msg_hdr;

	r->w = w;
	r->L = &w->s->l[li];
	r->W = W;
	r->from = (const struct sockaddr *)&w->from[i];
	r->fromlen = mh->msg_namelen;
	CINC(W->c.received);
	/* longer than the buffer: cut, so its length says nothing */
	if (mh->msg_flags & MSG_TRUNC) {
		CINC(W->c.malformed);
		return -1;
	}
	switch (ld_ntp_parse(w->buf[i], w->msgs[i].msg_len, &r->req)) {
	case LD_NTP_ANSWER:
		break;
	case LD_NTP_MALFORMED:
		CINC(W->c.malformed);
		return -1;
	case LD_NTP_CONTROL:
		CINC(W->c.control);
		return -1;
	default:
		CINC(W->c.other_mode);
		return -1;
	}
	if (r->fromlen == 0 || port_of(r->from) == 0 ||
	    (r->from->sa_family != AF_INET && r->from->sa_family != AF_INET6)) {
		CINC(W->c.malformed);
		return -1;
	}
	CINC(W->c.requests);
	read_cmsgs(mh, &r->m);
	return 0;
}

/* A request whose authentication failed: the kiss its kind of failure
 * gets, if any. */
static void refuse_auth(struct ld_server *s, struct request *r,
                        enum ld_auth_verdict av)
{
	struct ld_ntp_packet rep;
	uint8_t out[RX_BUF];
	size_t olen;

	CINC(r->W->c.auth_fail);
	switch (av) {
	case LD_AUTH_CRYPTO_NAK:
		/* RFC 5905 7.5: the header and a MAC of a zero key id only */
		ld_ntp_make_kod(&r->req, r->req.poll, &rep);
		rep.li = LD_LI_NONE;
		rep.stratum = s->params.stratum;
		rep.refid = s->cfg->refid;
		ld_ntp_encode(&rep, out);
		memset(out + LD_NTP_HEADER_LEN, 0, 4);
		send_reply(r->L, r->W, out, LD_NTP_HEADER_LEN + 4, r->from,
		           r->fromlen, &r->m, &r->W->c.kod, 0);
		break;
	case LD_AUTH_NTSN:
		/* RFC 8915 5.7: a kiss with the request's Unique Identifier */
		ld_ntp_make_kod(&r->req, r->req.poll, &rep);
		rep.refid = LD_REFID('N', 'T', 'S', 'N');
		ld_ntp_encode(&rep, out);
		olen = ld_auth_finish(s->auth, &r->actx, out, LD_NTP_HEADER_LEN,
		                      sizeof(out));
		if (olen != 0)
			send_reply(r->L, r->W, out, olen, r->from, r->fromlen,
			           &r->m, &r->W->c.kod, 0);
		break;
	default:
		break;
	}
}

/* The reply to r in *rep: the served time at arrival, and as transmit
 * time either our previous reply's kernel stamp (interleaved: 1 returned)
 * or the time read now, just before sendmsg. *rx_ntp: its receive
 * timestamp. */
static int make_reply(struct ld_server *s, struct request *r,
                      struct ld_ntp_packet *rep, uint64_t *rx_ntp)
{
	struct listener *L = r->L;
	struct ld_reading a, b;
	struct ld_ntp_server params;
	uint64_t prev_tx = 0;
	uint32_t refid, disp;
	int64_t rx_ns;
	int xleave;

	ld_source_read(L->src, &a);
	if (r->m.have_ts) {
		/* the reading at arrival: on TAI, so that a request that
		 * arrived just before 23:59:60 and is read inside it gets
		 * its true time */
		struct ld_reading now = a;

		served_at(L, &now, real_ns(), lc__ts_to_ns(&r->m.kts), &a);
	}
	rx_ns = a.unix_ns;
	*rx_ntp = lc_ntp_from_unix_ns(rx_ns);
	refid = s->cfg->refid;
	if (a.smear_ns >= NO_SMEAR_BELOW_NS || a.smear_ns <= -NO_SMEAR_BELOW_NS)
		refid = ld_ntp_smear_refid(a.smear_ns);
	atomic_store_explicit(&L->last_li, a.li, memory_order_relaxed);
	atomic_store_explicit(&L->last_refid, refid, memory_order_relaxed);
	/* interleaved: the origin names our previous reply's receive
	 * timestamp, whose kernel transmit stamp we have */
	xleave = ld_xleave_lookup(s->xl, r->from, r->req.org_ts, &prev_tx);
	/* The reference timestamp: the served time's last whole second,
	 * never after the receive timestamp. */
	params = s->params;
	/* grown by the main thread once the writer is gone (server.c) */
	disp = atomic_load_explicit(&s->root_disp_now, memory_order_relaxed);
	if (disp != 0)
		params.root_dispersion = disp;
	ld_ntp_make_reply(&r->req, &params, a.li, refid,
	                  lc_ntp_from_unix_ns(lc__fdiv(rx_ns, LC__NS) * LC__NS),
	                  *rx_ntp, 0, rep);
	if (xleave) {
		rep->org_ts = r->req.rx_ts;
		rep->tx_ts = prev_tx;
	} else {
		/* the transmit timestamp as late as we can: just before
		 * sendmsg */
		ld_source_read(L->src, &b);
		rep->tx_ts = lc_ntp_from_unix_ns(b.unix_ns);
	}
	return xleave;
}

/* Sends the reply out[olen] to r; a client that sends an origin may be
 * interleaved: then the kernel stamps it, and the send is remembered
 * until its stamp comes back (drain_errq). */
static void send_answer(struct ld_server *s, struct request *r,
                        const uint8_t *out, size_t olen, uint64_t rx_ntp)
{
	struct wsock *W = r->W;
	int64_t host_before = 0;
	uint32_t id = W->next_id;
	int stamp = W->txts && r->req.org_ts != 0;

	if (stamp) {
		ld_xleave_sent(s->xl, r->from, rx_ntp);
		host_before = real_ns();
	}
	if (send_reply(r->L, W, out, olen, r->from, r->fromlen, &r->m,
	               &W->c.replies, stamp) && stamp) {
		r->w->stamped++;
		struct tx_pending *p = &W->txq[id % TXQ];

		p->id = id;
		p->used = 1;
		p->host_before = host_before;
		p->rx = rx_ntp;
		memcpy(&p->to, r->from, r->fromlen);
	}
}

static void handle(struct worker *w, int li, int i, int64_t now_mono)
{
	struct ld_server *s = w->s;
	struct request r;
	struct ld_ntp_packet rep;
	enum ld_auth_verdict av;
	uint8_t out[RX_BUF];
	uint64_t rx_ntp;
	size_t olen;
	int kod, xleave;

	if (classify(w, li, i, &r) != 0)
		return;
	/* allow/deny: a client not allowed gets nothing, as from chronyd */
	if (s->cfg->nacl > 0 &&
	    !ld_acl_allowed(s->cfg, (const struct sockaddr *)r.from)) {
		CINC(r.W->c.denied);
		return;
	}
	if (ld__srv_rate_limited(s, r.from, now_mono, &kod)) {
		CINC(r.W->c.ratelimited);
		if (kod) {
			ld_ntp_make_kod(&r.req, s->kod_poll, &rep);
			ld_ntp_encode(&rep, out);
			send_reply(r.L, r.W, out, LD_NTP_HEADER_LEN, r.from,
			           r.fromlen, &r.m, &r.W->c.kod, 0);
		}
		return;
	}
	av = ld_auth_check(s->auth, w->buf[i], w->msgs[i].msg_len, &r.actx);
	if (av != LD_AUTH_PLAIN && av != LD_AUTH_OK) {
		refuse_auth(s, &r, av);
		return;
	}
	xleave = make_reply(s, &r, &rep, &rx_ntp);
	ld_ntp_encode(&rep, out);
	olen = ld_auth_finish(s->auth, &r.actx, out, LD_NTP_HEADER_LEN, sizeof(out));
	if (olen == 0) {
		CINC(r.W->c.auth_fail);
		return;
	}
	if (av == LD_AUTH_OK)
		CINC(r.W->c.auth_ok);
	send_answer(s, &r, out, olen, rx_ntp);
	if (xleave)
		CINC(r.W->c.interleaved);
}

/* Reads up to `rounds` batches from listener li's socket of worker w. */
void ld__srv_drain(struct worker *w, int li, int rounds)
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
void ld__srv_serve(struct worker *w, const struct pollfd *pfd)
{
	for (int i = 0; i < w->s->nl; i++) {
		if (pfd[i].revents & POLLIN)
			ld__srv_drain(w, i, 8);
		if ((pfd[i].revents & POLLERR) && w->sk[i].txts)
			drain_errq(w->s, &w->s->l[i], &w->sk[i]);
	}
}
