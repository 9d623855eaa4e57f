/*
 * privsep.h - leapclockd's writer and server processes (privsep.c).
 */
#ifndef LD_PRIVSEP_H
#define LD_PRIVSEP_H

#include <stdint.h>
#include <sys/types.h>

#define LD_PRIVSEP_MAX_FDS (LD_MAX_THREADS * 4)

/* What the server process was handed ($LEAPCLOCKD_SERVER). */
struct ld_privsep_child {
	int ctl;        /* its end of the writer's socketpair */
	int detach;     /* leave the terminal once ready (no -d) */
	int syslog_now; /* the writer already logs to syslog */
	int fds[LD_PRIVSEP_MAX_FDS]; /* the UDP sockets, worker-major */
	int nfds;
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
};

/* 1 in the server process (pc filled, the variable removed), 0 in the
 * writer, -1 on a malformed variable. */
int ld_privsep_child_env(struct ld_privsep_child *pc);
void ld_privsep_init(struct ld_privsep *p, char **argv, const int *fds,
                     int nfds, int detach);
/* Starts the server process (fork, exec of /proc/self/exe). 0 or -1. */
int ld_privsep_spawn(struct ld_privsep *p);
/* Waits for the server's 'R' (ready); -1 if it ended first (reaped). */
int ld_privsep_wait_ready(struct ld_privsep *p);
/* The writer loop's hooks (struct ld_supervise): a dead server reaped
 * and, after a pause, started again; signals handed on. */
void ld_privsep_tick(void *arg, int64_t now_mono);
void ld_privsep_signal(void *arg, int sig);
/* Stops the server (SIGTERM, SIGKILL after 5 s) and reaps it. */
void ld_privsep_stop(struct ld_privsep *p);
/* The server: ready ('R' to the writer). */
void ld_privsep_ready(int ctl);
/* The server: no_new_privs and the seccomp filter (every thread). */
int ld_privsep_confine(void);

#endif
