/*
 * leapclockd.h - what the daemon's modules share: the configuration, the
 * time sources (one per served mode), the listening sockets and their
 * counters, and logging.
 *
 * The daemon's files (leapclockd(8); DESIGN.md section 5):
 *
 *   main.c            the life cycle: daemonising, pid file, the privilege
 *                     drop, the writer's and the server's main
 *   privsep.c         the writer and server processes, the handover of an
 *                     orphaned server's sockets, landlock and seccomp
 *   config.c          the command line and the config file -> ld_config
 *   config_listen.c   the listen addresses, "ADDR:PORT=MODE"
 *   clock.c           leapclock timekeepers -> what a mode serves
 *   clockbound.c      the error bound in AWS ClockBound's format
 *   server.c          the sockets, worker threads, the main loop
 *   server_answer.c   the receive/answer path, rate limiting
 *   server_stats.c    the counters summed, the stats file
 *   xleave.c          the interleaved mode's per-client table (xleave.h)
 *   ntp_packet.c      the wire format (pure; shared with fuzz and tests)
 *   auth.c            a request to NTS or to the symmetric keys (auth.h)
 *   keys.c            symmetric keys: AES-CMAC, the legacy digests (keys.h)
 *   nts.c             NTS's NTP side, the cookie keys (nts.h)
 *   nts_ef.c          NTS extension fields of a request (nts_ef.h)
 *   nts_ke_records.c  NTS-KE records (nts_ke_records.h)
 *   ntske.c           the NTS-KE server, TLS 1.3 (GnuTLS)
 *   metrics.c         Prometheus metrics over libmicrohttpd (metrics.h)
 *   sdnotify.c        READY=1 and WATCHDOG=1 to systemd (sdnotify.h)
 *   safefile.h        how a file the daemon reads is opened
 *   server_impl.h     what the server_*.c files share
 */
#ifndef LEAPCLOCKD_H
#define LEAPCLOCKD_H

#include "leapclock.h"
#include "ntp_packet.h"

#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#define LD_MAX_LISTEN 32
#define LD_DEFAULT_PORT 123
#define LD_DEFAULT_STATSFILE "/run/leapclockd/stats"
#define LD_DEFAULT_TIMELINE "/run/leapclock/timeline"
#define LD_PRECISION_AUTO (-128)
#define LD_DEFAULT_NTS_LISTEN "0.0.0.0:4460"
#define LD_DEFAULT_NTS_KEYDIR "/var/lib/leapclockd"
/* the system user the Debian package makes (debian/leapclockd.postinst) */
#define LD_DEFAULT_USER "_leapclock"
#define LD_MAX_THREADS 64
/* 1 MiB: ~1300 queued requests, some 10 ms at 130000/s; a
 * worker that loses its core for a few ms (a 2-core host shared with
 * anything) then delays requests instead of dropping them, and a delay
 * costs no accuracy: the receive timestamp is the kernel's, taken at
 * arrival. */
#define LD_DEFAULT_RCVBUF_KIB 1024
#define LD_STR_(x) #x
#define LD_STR(x) LD_STR_(x)

/* ---- logging (main.c) ---- */
enum { LD_LOG_ERR = 3, LD_LOG_WARNING = 4, LD_LOG_INFO = 6, LD_LOG_DEBUG = 7 };
void ld_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Logging to syslog (1) or stderr (0). */
void ld_log_use_syslog(int on);

/* ---- configuration (config.c) ---- */

struct ld_listen_cfg {
	char text[128];      /* ADDR:PORT=MODE as given */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int smear;           /* 0: utc, 1: smear */
	char preset[32];     /* smear preset name */
	char mode_name[48];  /* "utc" or "smear:NAME" */
};

#define LD_MAX_ACL 256

/* One allow or deny line: an address range, IPv4 as IPv4-mapped IPv6
 * (::ffff:a.b.c.d, plen 96 + the IPv4 prefix). */
struct ld_acl_rule {
	uint8_t addr[16];
	int plen;   /* 0..128 */
	int allow;  /* 1 allow, 0 deny */
	int all;    /* "allow all"/"deny all": overrides what came before
	               inside its range */
	char text[64]; /* as given, for --check-config */
};

struct ld_config {
	struct ld_listen_cfg listen[LD_MAX_LISTEN];
	int nlisten;
	char leapfile[PATH_MAX]; /* "" = the system's table */
	char pretend[80];        /* "" = serve the real time */
	/* The timeline page to publish (DESIGN.md section 8): "" = none.
	 * After ld_config_from_args: --timeline's PATH (made absolute), or by default
	 * LD_DEFAULT_TIMELINE, or "" with --pretend (the host's default
	 * timeline never pretends; --pretend together with the default path
	 * is a config error). ld_config_init leaves it "" so that a config
	 * built by hand never publishes the host's page. */
	char timeline[PATH_MAX];
	int timeline_given;      /* --timeline, --no-timeline or timeline */
	/* which of timeline PATH (1) and no-timeline (2) each source gave,
	 * [0] the config files, [1] the command line, and where the first
	 * was: both from one source is a usage error (config.c) */
	int timeline_seen[2];
	char timeline_where[2][PATH_MAX + 48];
	/* where pretend and leapfile were set, for errors found later:
	 * "FILE:LINE: pretend" or "--pretend" ("" = default) */
	char pretend_where[PATH_MAX + 48];
	char leapfile_where[PATH_MAX + 48];
	char statsfile[PATH_MAX];
	char counter[16];        /* "best", "system", "tsc" */
	int foreground;
	int use_syslog;          /* -1: syslog unless foreground */
	int stratum;             /* 1..15 */
	int precision;           /* log2 s, or LD_PRECISION_AUTO */
	int64_t root_delay_ns;
	int64_t root_dispersion_ns;
	uint32_t refid;
	int ratelimit;           /* 0: off */
	int rl_interval;         /* log2 s between requests on average */
	int rl_burst;            /* requests allowed at once */
	/* issue 14: fleets */
	int threads;             /* worker threads; 0 = one per core */
	int rcvbuf_kib;          /* receive buffer per socket; 0 = the system's */
	char metrics[128];       /* "" = off; ADDR:PORT for Prometheus text */
	char user[64];           /* "" = stay; drop to this user after binding */
	char keyfile[PATH_MAX];  /* "" = none; chrony's key file format */
	char nts_cert[PATH_MAX]; /* NTS-KE certificate chain (PEM); "" = no NTS */
	char nts_key[PATH_MAX];  /* its private key (PEM) */
	char nts_listen[128];    /* NTS-KE address, default 0.0.0.0:4460 */
	char nts_keydir[PATH_MAX]; /* server cookie keys kept here (0600) */
	int nts_ntp_port;        /* NTP port announced by NTS-KE; 0 = none */
	char nts_ntp_server[256]; /* NTP server announced by NTS-KE; "" = none */
	int nts_rotate_s;        /* cookie key rotation period, seconds */
	/* the timeline page's own UTC_SLS policy: --smear, smear, or
	 * LEAPCLOCK_SMEAR when neither is given; "" = none */
	char smear[48];
	char smear_where[PATH_MAX + 48]; /* "" = not given */
	/* how the host handles a leap (--host-leap, host-leap, --host-smear
	 * P as smear:P, or LEAPCLOCK_HOST_LEAP): lc_host_leap_parse's text;
	 * "" = kernel */
	char host_leap[64];
	char host_leap_where[PATH_MAX + 48]; /* "" = not given */
	char pidfile[PATH_MAX];  /* "" = none */
	char clockbound[PATH_MAX]; /* --clockbound: ClockBound's segment; "" none */
	char user_where[PATH_MAX + 48]; /* where user was set; "" = default */
	int check_config;        /* --check-config: check, print, exit */
	/* this process is the server, started by its writer (privsep.c):
	 * the leap file and the pretended instant are the writer's, checked
	 * when it started (the file may since have changed: a bad new version
	 * is the writer's to keep out, not a reason for its server to exit) */
	int server_process;
	/* allow/deny (chrony's): none = everyone served */
	struct ld_acl_rule acl[LD_MAX_ACL];
	int nacl;
};

void ld_config_init(struct ld_config *c);
/* Parses the command line into *c, reading the config files named by -c
 * first, in any form getopt_long accepts (-cFILE, -dc FILE, --config=FILE,
 * a unique abbreviation such as --conf): the command line then overrides
 * them; --listen adds to the files' listen lines. Then checks the whole:
 * the leap file loads, pretend parses against it, the timeline rule, at
 * least one listen address or a timeline. Returns 0, 1 if --help/--version
 * was handled (exit 0), or -1 after printing an error (exit 2). */
int ld_config_from_args(struct ld_config *c, int argc, char **argv);
/* Reads a config file (leapclockd.conf(5)); -1 after printing an error. */
int ld_config_read_file(struct ld_config *c, const char *path);
/* Parses "ADDR:PORT=MODE" (ADDR as 1.2.3.4, [v6] or a bare v6 without a
 * port; PORT optional); -1 with a message in msg. */
int ld_config_parse_listen(const char *text, struct ld_listen_cfg *l,
                           char *msg, size_t msgsize);
/* Parses an allow/deny value ("", "all", ADDR, ADDR/LEN, "all ADDR/LEN")
 * into r; -1 with a message in msg. */
int ld_acl_parse(const char *text, int allow, struct ld_acl_rule *r,
                 char *msg, size_t msgsize);
/* 1 if the allow/deny rules let address sa in (always with no rule;
 * with rules, the most specific range that holds sa decides, a later
 * line over an earlier one of the same range, an "all" line over every
 * earlier one inside its range; no range holds sa: denied, as chrony). */
int ld_acl_allowed(const struct ld_config *c, const struct sockaddr *sa);
/* Parses a ratelimit value ("off", "on", INTERVAL:BURST) into c; -1 after
 * printing an error. */
int ld_config_parse_ratelimit(struct ld_config *c, const char *s);
/* Prints the effective configuration as a config file (--check-config). */
void ld_config_print(const struct ld_config *c, FILE *out);
/* The default --user: LD_DEFAULT_USER when that user exists here, else
 * "" (stay root); see leapclockd(8). */
void ld_config_default_user(struct ld_config *c);
/* Formats a socket address as "1.2.3.4:123" or "[::1]:123". */
void ld_format_addr(const struct sockaddr *sa, char *buf, size_t size);

/* ---- time sources (clock.c) ---- */

/* What one mode serves at one instant. */
struct ld_reading {
	int64_t unix_ns;  /* the time served, on the POSIX/NTP scale */
	unsigned li;      /* LD_LI_* */
	int64_t smear_ns; /* served minus unsmeared NTP time (smear modes) */
	int64_t tai_ns;   /* the instant, on leapclock's TAI */
};

struct ld_source;
struct ld_clock;

/* Creates the clock: the leap table (cfg->leapfile or the system's), the
 * counter, and --pretend's start instant. -1 after logging an error. */
int ld_clock_new(struct ld_clock **out, const struct ld_config *cfg);
void ld_clock_free(struct ld_clock *c);
/* The server process's clock (privsep.c): a reader of the writer's page
 * cfg->timeline (through PATH.sock, mapped read-only), the table the
 * page's; no leap file read, no page written. -1 after logging. */
int ld_clock_new_reader(struct ld_clock **out, const struct ld_config *cfg);
/* The source serving mode `l` (shared by listeners of the same mode). */
struct ld_source *ld_clock_source(struct ld_clock *c,
                                  const struct ld_listen_cfg *l);
/* Reads a source now. ld_source_read and ld_source_at may be called
 * from any thread at once, also while the main thread runs
 * ld_clock_update or ld_clock_reload; they never lock or wait. */
void ld_source_read(struct ld_source *s, struct ld_reading *r);
/* What the source serves at TAI instant `tai_ns` (ns on leapclock's TAI):
 * for an instant in the recent past, such as a kernel receive timestamp. */
void ld_source_at(struct ld_source *s, int64_t tai_ns, struct ld_reading *r);
/* Runs the timekeepers' update (call a few times a second). */
void ld_clock_update(struct ld_clock *c);
/* How often the writer updates the page (and at once on a host step). */
#define LD_UPDATE_NS INT64_C(250000000)
/* A timerfd that becomes readable when the host's CLOCK_REALTIME is set
 * (TFD_TIMER_CANCEL_ON_SET; never expires), or -1. */
int ld_step_watch(void);
/* Reloads the leap table from its file; keeps the old table if the new is
 * bad. Returns 0 or -1 (logged). */
int ld_clock_reload(struct ld_clock *c);
/* The leap files to watch (inotify on each and its folder): the
 * configured one and the one in use. Returns how many (0..2). */
int ld_clock_watch_paths(const struct ld_clock *c, char paths[2][PATH_MAX]);
/* The table in use (for LI and information). Main thread only: a reload
 * frees the table it replaces. */
const lc_leaptable *ld_clock_table(const struct ld_clock *c);
/* The timeline's host-following verdict as of the last update, from any
 * thread; -1 when the host is not followed (--pretend). */
int ld_clock_host_status(struct ld_clock *c, struct lc_tk_host *h);
/* UTC's error bound now and its parts (lc_gettime_bounds,
 * lc_tk_bounds_info); -1 without a timekeeper of its own. */
int ld_clock_bounds(struct ld_clock *c, struct lc_bounds *b,
                    struct lc_bounds_info *bi);
/* The expiry (POSIX seconds) of the table in use; from any thread. */
int64_t ld_clock_expires(struct ld_clock *c);
/* A measure of the clock's read precision as log2 seconds. */
int ld_clock_precision(struct ld_clock *c);

/* ---- the server (server.c) ---- */

struct ld_counters {
	uint64_t received;    /* datagrams */
	uint64_t requests;    /* well-formed client requests */
	uint64_t replies;     /* time replies sent */
	uint64_t malformed;   /* dropped: short, bad length or version */
	uint64_t control;     /* dropped: mode 6/7 */
	uint64_t other_mode;  /* dropped: not a client request */
	uint64_t ratelimited; /* requests over the client's rate */
	uint64_t kod;         /* RATE kiss-o'-death replies sent */
	uint64_t send_errors;
	uint64_t auth_ok;     /* authenticated replies (keys or NTS) */
	uint64_t auth_fail;   /* requests failing authentication */
	uint64_t interleaved; /* replies in interleaved mode (chrony xleave) */
	uint64_t tx_kernel;   /* kernel transmit timestamps read back */
	uint64_t denied;      /* dropped: the client is not allowed (deny) */
};

struct ld_server;

/* leapclockd's processes (privsep.c, leapclockd(8) PROCESSES) */
enum {
	LD_ROLE_ALL = 0,    /* one process does everything (unit tests) */
	LD_ROLE_WRITER = 1, /* the page, the leap file, the host; binds the
	                     * UDP sockets, never reads them; supervises */
	LD_ROLE_SERVER = 2  /* NTP, NTS-KE, metrics, stats: unprivileged */
};

/* What the loop calls (privsep.c). The writer's: each tick, and with the
 * signals to hand on. The server's: `ready` when `fd` (the handover
 * socket; -1 none) is readable, told whether its writer still lives. */
struct ld_supervise {
	void (*tick)(void *arg, int64_t now_mono);
	void (*signal)(void *arg, int sig);
	void (*ready)(void *arg, int writer_alive);
	int fd;
	void *arg;
};

/* The writer's or the server's half (LD_ROLE_*). The writer: `clock` may
 * be NULL (--no-timeline: it has no page to keep), binds the UDP sockets
 * and logs them, takes no keys. The server: the sockets `given` (ngiven:
 * threads x listeners, worker-major) instead of binding, `ctl_fd` its
 * end of the writer's socketpair (EOF: the writer is gone). */
int ld_server_new_role(struct ld_server **out, const struct ld_config *cfg,
                       struct ld_clock *clock, int role, const int *given,
                       int ngiven, int ctl_fd);
/* The writer's sockets, when they did not bind (a port taken: the writer
 * keeps the page and binds them again, privsep.c): bound now, 0, or -1
 * with the reason in why. ld_server_unbound: that reason, NULL when
 * bound. */
int ld_server_bind(struct ld_server *s, char *why, size_t n);
const char *ld_server_unbound(const struct ld_server *s);
/* The writer's bound sockets (worker-major), for the server it starts. */
int ld_server_fds(const struct ld_server *s, int *fds, int max);
/* 1 if `fds` (n, worker-major) are the UDP sockets `cfg` asks for: as
 * many, each bound to its listener's address (any port for port 0). */
int ld_server_fds_match(const struct ld_config *cfg, const int *fds, int n);
/* The writer's loop: what to call each tick and on signals. */
void ld_server_supervise(struct ld_server *s, const struct ld_supervise *sup);

int ld_server_new(struct ld_server **out, const struct ld_config *cfg,
                  struct ld_clock *clock);
void ld_server_free(struct ld_server *s);
/* Flags the loop checks (set from signal handlers). */
extern volatile sig_atomic_t ld_sig_term, ld_sig_hup, ld_sig_usr1;
/* Runs until SIGTERM/SIGINT. Returns 0 or -1. */
int ld_server_run(struct ld_server *s);
/* Writes the statistics file now (and logs the counters if `log`). */
void ld_server_dump_stats(struct ld_server *s, int log);

/* For the metrics exporter (another thread): callable at any time
 * between ld_server_new and ld_server_free, from any thread. */
/* The number of listening addresses (the --listen lines), fixed for the
 * server's life. */
int ld_server_nlisteners(struct ld_server *s);
/* What listener `i` (0..nlisteners-1) is: the address bound ("1.2.3.4:123",
 * "[::1]:123", with the port the kernel chose for port 0) and the mode
 * ("utc", "smear:NAME"). Pointers valid until ld_server_free. */
struct ld_listener_info {
	const char *addr;
	const char *mode;
	struct ld_source *src; /* the source it serves (ld_source_read) */
	unsigned li;           /* the leap indicator last served */
	uint32_t refid;        /* the reference id last served */
};
int ld_server_listener(struct ld_server *s, int i, struct ld_listener_info *out);
/* The counters of listener `i` summed over the worker threads (each read
 * atomically, relaxed: a sum taken while serving may be a few requests
 * behind, never torn). `listener` -1 sums every listener. */
void ld_server_counters(struct ld_server *s, int listener,
                        struct ld_counters *sum);

#endif
