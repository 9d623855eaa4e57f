/*
 * privsep.h - leapclockd's writer and server processes (privsep.c).
 */
#ifndef LD_PRIVSEP_H
#define LD_PRIVSEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ld_config;
struct ld_server;

#define LD_PRIVSEP_MAX_FDS (LD_MAX_THREADS * 4)

/* What the server process was handed ($LEAPCLOCKD_SERVER). */
struct ld_privsep_child {
	int ctl;        /* its end of the writer's socketpair */
	int detach;     /* leave the terminal once ready (no -d) */
	int syslog_now; /* the writer already logs to syslog */
	int fds[LD_PRIVSEP_MAX_FDS]; /* the UDP sockets, worker-major */
	int nfds;
	int ho;         /* the handover socket's listening end; -1 none */
	uid_t writer_uid; /* who may take the sockets over (and root) */
	int ho_conn;    /* the new writer's connection, kept to the end */
	int quiet;      /* a retry within an outage: errors to the writer
	                 * only (it logs a new reason once) */
};

/* An orphaned server found by a starting writer (ld_privsep_find). */
struct ld_orphan {
	pid_t pid;      /* 0: none */
	int conn;       /* -1: none */
};

/* The writer's view of its server process. */
struct ld_privsep {
	char **argv;
	char exe[4096];     /* this binary (/proc/self/exe) */
	int fds[LD_PRIVSEP_MAX_FDS];
	int nfds;
	int detach, syslog_now;
	pid_t pid;          /* -1: none running */
	int ctl;            /* the writer's end */
	int64_t started;    /* CLOCK_MONOTONIC ns of its start */
	int64_t restart_at; /* 0: none due */
	int backoff_s;      /* twice the next pause, s */
	unsigned long restarts;
	int stopping;
	int ho;             /* the handover socket (listening); -1 none */
	char ho_path[4096]; /* "": none */
	/* a server that cannot start (a port taken, exec failing, its own
	 * start failing) leaves the writer keeping the page: it is tried
	 * again with the backoff above, the state said in state_path */
	struct ld_server *writer; /* its UDP sockets, bound again */
	struct ld_clock *clock;   /* the page kept while a start is awaited */
	int state;          /* LD_PS_* */
	int was_up;         /* the server running said 'R' */
	int exit_status;    /* the last one reaped: its exit status, -1 */
	char why[256];      /* why it is down ("" up) */
	char logged[256];   /* the reason logged in this outage */
	int64_t down_mono;  /* CLOCK_MONOTONIC ns the outage began; 0 none */
	int64_t since_rt;   /* CLOCK_REALTIME ns of the last state change */
	unsigned long starts; /* servers that said ready */
	char state_path[4096]; /* PAGE.state; "": none */
};

enum { LD_PS_STARTING = 0, LD_PS_UP = 1, LD_PS_DOWN = 2 };

/* 1 in the server process (pc filled, the variable removed), 0 in the
 * writer, -1 on a malformed variable. */
int ld_privsep_child_env(struct ld_privsep_child *pc);
/* The sockets (fds, nfds) are set by the caller before the spawn. */
void ld_privsep_init(struct ld_privsep *p, char **argv, int detach);
/* The handover socket's path for `cfg`: beside the page (PATH.server),
 * else beside the pid file, else "" (none). */
void ld_privsep_ho_path(const struct ld_config *cfg, char *buf, size_t n);
/* A starting writer: finds a server on `path` that outlived its writer
 * (verified: this binary, of root, our uid or `user`'s (--user), its
 * parent not this binary, it says its writer is gone) and takes dups of
 * its UDP sockets into fds (it serves on meanwhile). Returns how many (0:
 * none, or no orphan: o->pid says). */
int ld_privsep_find(struct ld_orphan *o, const char *path, const char *exe,
                    const char *user, int *fds, int max);
/* Tells the orphan to stop and waits until it has (SIGKILL after 3 s):
 * its NTS-KE and metrics ports are free after. */
void ld_privsep_orphan_stop(struct ld_orphan *o);
/* The writer: listens on p->ho_path (after any orphan is gone), handed to
 * every server it starts. 0 or -1 (logged; no handover then). */
int ld_privsep_listen(struct ld_privsep *p);
/* Closes and removes it and the state file (the writer stopping). */
void ld_privsep_unlisten(struct ld_privsep *p);
/* The server: a connection on its handover socket (struct ld_supervise
 * ready; arg the ld_privsep_child). */
void ld_privsep_handover(void *arg, int writer_alive);
/* Starts the server process (fork, exec of /proc/self/exe). 0 or -1. */
int ld_privsep_spawn(struct ld_privsep *p);
/* Waits for the server's 'R' (ready): 0; if it ended first (reaped), 2
 * when it exited with status 2 (its configuration), else -1; the reason
 * in p->why either way. */
int ld_privsep_wait_ready(struct ld_privsep *p);
/* The first start (p->writer's sockets, bound or not): 0 with the server
 * up, or down and tried again from ld_privsep_tick when `keep_on` (the
 * writer has a page to keep; logged once); 2 its configuration is bad; 1
 * it did not start (no keep_on). */
int ld_privsep_first_start(struct ld_privsep *p, int keep_on);
/* The server, failing to start: the reason to its writer ('E'). */
void ld_privsep_failed(int ctl, const char *why);
/* The writer loop's hooks (struct ld_supervise): a dead server reaped
 * and, after a pause, started again; signals handed on. */
void ld_privsep_tick(void *arg, int64_t now_mono);
void ld_privsep_signal(void *arg, int sig);
/* Stops the server (SIGTERM, SIGKILL after 5 s) and reaps it. */
void ld_privsep_stop(struct ld_privsep *p);
/* The server: ready ('R' to the writer). */
void ld_privsep_ready(int ctl);
/* The server, before it starts a thread (landlock binds the calling
 * thread and those it starts later): no_new_privs, and landlock where the
 * kernel has it: files written only beneath the stats file's and the NTS
 * key folder; no TCP bind or connect (ABI 4). 0, or -1 (logged). */
int ld_privsep_landlock(const struct ld_config *cfg);
/* The server: no_new_privs and the seccomp filter (every thread). */
int ld_privsep_confine(void);

#endif
