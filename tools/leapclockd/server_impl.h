/*
 * server_impl.h - what leapclockd's server files share (server.c: sockets,
 * workers and the main loop; server_answer.c: the receive/answer path;
 * server_stats.c: counters and the stats file): the server's structs and
 * the functions one file calls in another. Include it after defining
 * _GNU_SOURCE (struct mmsghdr).
 */
#ifndef LD_SERVER_IMPL_H
#define LD_SERVER_IMPL_H

#include "leapclockd.h"

#include "auth.h"
#include "internal.h"
#include "xleave.h"

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>
#include <time.h>

#define BATCH 32
#define RX_BUF 1024
#define CTRL_BUF 256
#define RL_SLOTS 16384 /* power of two */
#define XL_SLOTS 16384
#define NO_SMEAR_BELOW_NS 1000
#define TXQ 1024            /* replies awaiting their kernel stamp, per socket */
#define LD_TX_SANE_NS 10000000 /* 10 ms */

/* One --listen address, shared by the workers. */
struct listener {
	struct ld_listen_cfg cfg;
	struct sockaddr_storage bound; /* the address bound (port 0 resolved) */
	char name[80]; /* the bound address */
	int wildcard;
	struct ld_source *src;
	_Atomic unsigned last_li; /* relaxed: any worker writes them */
	_Atomic uint32_t last_refid;
};

/* A reply sent whose kernel transmit stamp has not come back yet. */
struct tx_pending {
	uint32_t id;         /* its number on the socket (OPT_ID) */
	int used;
	int64_t host_before; /* host REALTIME read before sendmsg */
	uint64_t rx;         /* its receive timestamp (the table's key) */
	struct sockaddr_storage to;
};

/* A socket's counters: struct ld_counters's fields, in its order, each a
 * relaxed atomic (one writer, the socket's worker; readers anywhere:
 * server_stats.c sums them as an array). */
struct ld_live_counters {
	_Atomic uint64_t received, requests, replies, malformed, control,
	        other_mode, ratelimited, kod, send_errors, auth_ok, auth_fail,
	        interleaved, tx_kernel, denied;
};
_Static_assert(sizeof(struct ld_live_counters) == sizeof(struct ld_counters) &&
               offsetof(struct ld_live_counters, denied) ==
                       offsetof(struct ld_counters, denied) &&
               sizeof(_Atomic uint64_t) == sizeof(uint64_t),
               "struct ld_live_counters is struct ld_counters, atomic");

/* One worker's socket for one listener. */
struct wsock {
	int fd;
	int txts;          /* kernel transmit stamps on */
	uint32_t next_id;  /* the number of the next datagram sent */
	struct ld_live_counters c;
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
	_Atomic int64_t tat;      /* CLOCK_MONOTONIC ns */
	_Atomic int64_t kod_next; /* no kiss before this */
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
	/* privilege separation (privsep.c) */
	int role;               /* LD_ROLE_* */
	const int *given;       /* LD_ROLE_SERVER: the bound sockets handed
	                         * down, worker-major; NULL: bind them */
	int ngiven;
	int ctl_fd;             /* the server's end to its writer; -1 none */
	long daemon_pid;        /* the daemon's pid, the writer's in the
	                         * server process (the stats file's pid) */
	int64_t writer_gone;    /* CLOCK_MONOTONIC ns the writer went; 0 */
	_Atomic uint32_t root_disp_now; /* the root dispersion served since
	                         * (NTP short format); 0: params' */
	struct ld_supervise sup; /* LD_ROLE_WRITER: the server process */
	char unbound[256];      /* LD_ROLE_WRITER: why its sockets are not
	                         * bound ("": they are) */
};

/* Counters: one writer (the socket's worker), readers anywhere. */
#define CINC(x) atomic_store_explicit(&(x), atomic_load_explicit(&(x), memory_order_relaxed) + 1, memory_order_relaxed)

static inline int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return lc__ts_to_ns(&ts);
}

static inline int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return lc__ts_to_ns(&ts);
}
static inline uint16_t port_of(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}
/* server_answer.c: serves what poll found on worker w's sockets (pfd[i]
 * for listener i). */
void ld__srv_serve(struct worker *w, const struct pollfd *pfd);
/* server_answer.c, for tests/test_server_rx.c too: the rate limit's slot
 * of a client address; whether a request of `sa` at `now` (CLOCK_MONOTONIC
 * ns) is over its rate (1; *kod: send a kiss); up to `rounds` batches of
 * listener li's socket read and answered. */
size_t ld__srv_rl_index(const struct ld_server *s, const struct sockaddr *sa);
int ld__srv_rate_limited(struct ld_server *s, const struct sockaddr *sa,
                         int64_t now, int *kod);
void ld__srv_drain(struct worker *w, int li, int rounds);
/* server_stats.c: the stats file written (atomically replaced), and
 * removed at the end if it is ours. */
void ld__srv_write_stats(struct ld_server *s);
void ld__srv_remove_stats(struct ld_server *s);

#endif
