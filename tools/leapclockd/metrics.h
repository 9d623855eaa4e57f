/*
 * metrics.h - leapclockd's Prometheus metrics (text exposition format
 * 0.0.4) on an opt-in address (--metrics ADDR:PORT).
 *
 *   ld_metrics_format  a snapshot of the counters and the clock's state ->
 *                      the text (pure: no I/O, no clock; unit tested);
 *   ld_metrics_new     binds the address (before detaching and before the
 *                      privilege drop, so that a failure is printed);
 *   ld_metrics_start   its thread (after detaching: a fork keeps no
 *                      thread): libmicrohttpd's HTTP/1.0 and 1.1 server,
 *                      which answers GET /metrics and nothing else, with
 *                      bounded connections (per client address too),
 *                      request size and idle time.
 * Without libmicrohttpd (Debian libmicrohttpd-dev) at build time, the
 * text is still built and --metrics is refused by ld_metrics_check.
 */
#ifndef LD_METRICS_H
#define LD_METRICS_H

#include "auth.h"
#include "leapclockd.h"

#include <stddef.h>
#include <stdint.h>

#define LD_METRICS_MAX_CONN 64        /* connections served at once */
#define LD_METRICS_PER_IP 4           /* of them from one client address */
#define LD_METRICS_CONN_MEMORY 5120   /* bytes a connection's head, headers
                                         and answer head may take */
#define LD_METRICS_TIMEOUT_S 5        /* a silent connection is closed */

struct ld_metrics_listener {
	char listen[80];         /* "127.0.0.1:123" */
	char mode[48];           /* "utc", "smear:google" */
	struct ld_counters c;
	unsigned li;             /* LD_LI_* of the mode now */
	int smear;               /* 1: a smear mode */
	int64_t smear_ns;        /* served minus unsmeared time now */
};

struct ld_metrics_snapshot {
	int n;
	struct ld_metrics_listener l[LD_MAX_LISTEN];
	int have_auth;           /* keys or NTS configured */
	struct ld_auth_counters auth;
	int64_t now_unix;        /* host UTC seconds of the snapshot */
	int64_t started_unix;    /* the daemon's start */
	int64_t table_expires;   /* POSIX seconds; INT64_MIN: unknown */
	int pretend;             /* 1: --pretend rehearsal */
	int host_followed;       /* 0: host_* below not meaningful */
	int host_state;          /* enum lc_host_state */
	int64_t host_offset_ns;
	uint64_t host_steps;
	int host_leaps_behind;
	char host_leap[48];      /* the declared mode, "kernel", "smear:google" */
	char host_detected[48];  /* what detection recognised, "" none */
	/* UTC's error bound (lc_gettime_bounds, lc_tk_bounds_info): ns, ppb */
	int have_bounds;         /* 0: bound_* below not meaningful */
	int bound_status;        /* enum lc_bounds_status */
	int64_t bound_ns;        /* the half-width now */
	int64_t bound_drift_ppb;
	int bound_have_parts;    /* the parts below are known */
	int bound_unsync;        /* the host's STA_UNSYNC */
	int64_t bound_maxerror_ns, bound_bracket_ns, bound_residual_ns;
};

/* Formats the snapshot as Prometheus text into buf (always terminated
 * when size > 0). Returns the length the whole text takes (as snprintf):
 * a value >= size means it was cut. */
size_t ld_metrics_format(const struct ld_metrics_snapshot *s, char *buf,
                         size_t size);

/* Parses "1.2.3.4:PORT" or "[v6]:PORT" into *ss; -1 on error. */
int ld_metrics_parse_addr(const char *text, struct sockaddr_storage *ss,
                          socklen_t *len);

struct ld_metrics;
struct ld_server;

/* Checks cfg->metrics before anything is bound: the address, and that
 * this build has libmicrohttpd. 0 when fine or off; -1 after logging (a
 * configuration error: exit 2). */
int ld_metrics_check(const struct ld_config *cfg);

/* Binds cfg->metrics (NULL *out when ""). -1 after logging an error. */
int ld_metrics_new(struct ld_metrics **out, const struct ld_config *cfg,
                   struct ld_server *server, struct ld_clock *clock);
/* Starts the thread (call after detaching). -1 after logging. */
int ld_metrics_start(struct ld_metrics *m);
/* Stops the thread and closes everything (NULL is fine). */
void ld_metrics_free(struct ld_metrics *m);
/* Takes a snapshot now (what the thread serves). */
void ld_metrics_snapshot(struct ld_metrics *m, struct ld_metrics_snapshot *s);

/* From the server (server.c, beside ld_server_counters): the auth code's
 * counters and whether keys or NTS are configured; any thread. */
void ld_server_auth_counters(struct ld_server *s, struct ld_auth_counters *c,
                             int *configured);

#endif
