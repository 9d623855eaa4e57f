/*
 * privsep.c - leapclockd in two processes (leapclockd(8) PROCESSES,
 * DESIGN.md section 5).
 *
 * The writer (the process started, root) keeps the host's timeline: it
 * follows the host, reads the leap file, owns the page and its writable
 * mapping, binds the UDP sockets (and never reads them) and supervises.
 * The server (NTP, NTS-KE/TLS, metrics, the stats file) is the same
 * binary executed again (/proc/self/exe's file, so that nothing of the writer's
 * address space, its writable mapping least of all, survives into it),
 * told so by $LEAPCLOCKD_SERVER: "ctl=FD detach=0|1 syslog=0|1 fds=A,B,..":
 * its end of a socketpair to the writer and the UDP sockets the writer
 * bound, worker-major. It reads the page as any reader does (PATH.sock's
 * sealed memfd, mapped read-only), or, with --no-timeline, runs its own
 * timekeeper in-process; drops to --user (nobody when none is named),
 * sets no_new_privs and a seccomp filter (ld_privsep_confine), says 'R'
 * on the socketpair once everything is bound, and serves.
 *
 * A server that dies is started again by the writer (1 s later, doubling
 * to 32 s while it keeps dying within 10 s of its start), on the same
 * sockets: requests that arrive meanwhile wait in their socket's queue.
 * The timeline is the writer's alone and sees nothing of it. A writer
 * that dies closes the socketpair: the server serves on from the page's
 * last snapshot (server.c writer_gone).
 */
#define _GNU_SOURCE
#include "leapclockd.h"
#include "internal.h"
#include "privsep.h"


#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if LD_HAVE_SECCOMP
#include <seccomp.h>
#endif

#define ENV_NAME "LEAPCLOCKD_SERVER"

static int64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * LC__NS + ts.tv_nsec;
}

int ld_privsep_child_env(struct ld_privsep_child *pc)
{
	const char *e = getenv(ENV_NAME);
	const char *f;
	char *end;

	memset(pc, 0, sizeof(*pc));
	pc->ctl = -1;
	if (e == NULL)
		return 0;
	if (sscanf(e, "ctl=%d detach=%d syslog=%d", &pc->ctl, &pc->detach,
	           &pc->syslog_now) != 3 ||
	    (f = strstr(e, "fds=")) == NULL) {
		fprintf(stderr, "leapclockd: %s: malformed\n", ENV_NAME);
		return -1;
	}
	f += 4;
	while (*f != '\0' && pc->nfds < LD_PRIVSEP_MAX_FDS) {
		long v = strtol(f, &end, 10);

		if (end == f || v < 0 || v > 65535)
			break;
		pc->fds[pc->nfds++] = (int)v;
		f = *end == ',' ? end + 1 : end;
	}
	unsetenv(ENV_NAME);
	return 1;
}

void ld_privsep_init(struct ld_privsep *p, char **argv, const int *fds,
                     int nfds, int detach)
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->nfds = nfds < LD_PRIVSEP_MAX_FDS ? nfds : LD_PRIVSEP_MAX_FDS;
	memcpy(p->fds, fds, (size_t)p->nfds * sizeof(int));
	p->detach = detach;
	p->pid = -1;
	p->ctl = -1;
	p->backoff_s = 1;
	/* the binary by its name, so that the server is "leapclockd" in
	 * ps and pgrep (exec of /proc/self/exe would name it "exe") */
	{
		ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);

		if (n <= 0 || (size_t)n >= sizeof(p->exe) - 1)
			snprintf(p->exe, sizeof(p->exe), "/proc/self/exe");
		else
			p->exe[n] = '\0';
	}
}

/* The environment of the server: ours, less systemd's notification
 * (the writer alone speaks to systemd), plus ENV_NAME. */
static void child_env(const struct ld_privsep *p, int ctl)
{
	char v[64 + LD_PRIVSEP_MAX_FDS * 7];
	size_t n;

	n = (size_t)snprintf(v, sizeof(v), "ctl=%d detach=%d syslog=%d fds=",
	                     ctl, p->detach, p->syslog_now);
	for (int i = 0; i < p->nfds && n < sizeof(v); i++)
		n += (size_t)snprintf(v + n, sizeof(v) - n, "%s%d",
		                      i ? "," : "", p->fds[i]);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_PID");
	unsetenv("WATCHDOG_USEC");
	setenv(ENV_NAME, v, 1);
}

int ld_privsep_spawn(struct ld_privsep *p)
{
	int sp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		ld_log(LD_LOG_ERR, "socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		ld_log(LD_LOG_ERR, "fork: %s", strerror(errno));
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		close(sp[0]);
		/* these, and only these, go through exec */
		fcntl(sp[1], F_SETFD, 0);
		for (int i = 0; i < p->nfds; i++)
			fcntl(p->fds[i], F_SETFD, 0);
		child_env(p, sp[1]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(p->exe, p->argv);
		fprintf(stderr, "leapclockd: exec %s: %s\n", p->exe,
		        strerror(errno));
		_exit(127);
	}
	close(sp[1]);
	if (p->ctl >= 0)
		close(p->ctl);
	p->ctl = sp[0];
	p->pid = pid;
	p->started = mono();
	return 0;
}

/* Reaps the server if it ended: 1 (said), 0 still running. */
static int reap(struct ld_privsep *p, int block)
{
	int ws;
	pid_t r;

	if (p->pid < 0)
		return 1;
	do
		r = waitpid(p->pid, &ws, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r > 0 && !p->stopping) {
		if (WIFSIGNALED(ws))
			ld_log(LD_LOG_ERR, "the server process (pid %ld) was "
			       "killed: %s", (long)p->pid,
			       strsignal(WTERMSIG(ws)));
		else
			ld_log(LD_LOG_ERR, "the server process (pid %ld) "
			       "exited with status %d", (long)p->pid,
			       WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	}
	p->pid = -1;
	if (p->ctl >= 0)
		close(p->ctl);
	p->ctl = -1;
	return 1;
}

int ld_privsep_wait_ready(struct ld_privsep *p)
{
	char b = 0;
	ssize_t n;

	do
		n = read(p->ctl, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && b == 'R')
		return 0;
	p->stopping = 1; /* its own messages said why */
	reap(p, 1);
	ld_log(LD_LOG_ERR, "the server process did not start");
	return -1;
}

void ld_privsep_tick(void *arg, int64_t now)
{
	struct ld_privsep *p = arg;

	if (p->pid >= 0) {
		if (!reap(p, 0))
			return;
		/* it died: again after a pause that grows while it keeps
		 * dying young */
		if (now - p->started < 10 * LC__NS) {
			if (p->backoff_s < 32)
				p->backoff_s *= 2;
		} else {
			p->backoff_s = 1;
		}
		p->restart_at = now + (int64_t)p->backoff_s * LC__NS / 2;
		ld_log(LD_LOG_WARNING, "starting the server process again in "
		       "%.1f s", (double)p->backoff_s / 2);
		return;
	}
	if (p->restart_at != 0 && now >= p->restart_at) {
		p->restart_at = 0;
		p->restarts++;
		if (ld_privsep_spawn(p) == 0)
			ld_log(LD_LOG_INFO, "server process started again "
			       "(pid %ld, restart %lu)", (long)p->pid,
			       p->restarts);
		else
			p->restart_at = now + 32 * LC__NS;
	}
}

void ld_privsep_signal(void *arg, int sig)
{
	struct ld_privsep *p = arg;

	if (p->pid > 0)
		kill(p->pid, sig);
}

void ld_privsep_stop(struct ld_privsep *p)
{
	struct timespec gap = { 0, 20000000 };

	if (p->pid <= 0)
		return; /* none (0: never initialised) */
	p->stopping = 1;
	kill(p->pid, SIGTERM);
	for (int i = 0; i < 250; i++) { /* 5 s */
		if (reap(p, 0))
			return;
		nanosleep(&gap, NULL);
	}
	ld_log(LD_LOG_WARNING, "the server process (pid %ld) did not stop: "
	       "killing it", (long)p->pid);
	kill(p->pid, SIGKILL);
	reap(p, 1);
}

void ld_privsep_ready(int ctl)
{
	if (ctl >= 0 && write(ctl, "R", 1) != 1)
		ld_log(LD_LOG_WARNING, "telling the writer: %s", strerror(errno));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LD_SANITIZED 1
#endif
#endif

#if LD_HAVE_SECCOMP && !defined(LD_SANITIZED)
/* What the server keeps (leapclockd(8) PROCESSES). Everything else fails
 * with EPERM, so that a call missed here is an error the code reports,
 * not a dead server; the calls that would change the host's time, run
 * another program or reach into another process kill it. */
static const char *const keep[] = {
	/* memory, threads, signals */
	"brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "futex",
	"set_robust_list", "rseq", "clone", "clone3", "exit", "exit_group",
	"set_tid_address", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
	"sigaltstack", "tgkill", "gettid", "getpid", "getppid", "sched_yield",
	"sched_getaffinity", "membarrier", "restart_syscall", "prctl",
	"getrandom", "uname", "getuid", "geteuid", "getgid", "getegid",
	"prlimit64", "getrusage", "sysinfo",
	/* files: the stats file, NTS cookie keys, the page's socket */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close",
	"openat", "open", "fstat", "newfstatat", "stat", "lstat", "statx",
	"lseek", "fcntl", "ioctl", "dup", "dup2", "dup3", "pipe2",
	"getdents64", "rename", "renameat", "renameat2", "unlink", "unlinkat",
	"fsync", "fdatasync", "fchmod", "ftruncate", "readlink", "access",
	"faccessat", "faccessat2", "flock",
	/* waiting */
	"poll", "ppoll", "select", "pselect6", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "eventfd2", "timerfd_create",
	"timerfd_settime", "timerfd_gettime", "inotify_init1",
	"inotify_add_watch", "inotify_rm_watch",
	/* time: reads only (adjtimex with modes needs CAP_SYS_TIME, which
	 * the server's user has not) */
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep",
	"gettimeofday", "time", "adjtimex", "clock_adjtime",
	/* the sockets it was given and the connections it accepts */
	"recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
	"accept", "accept4", "getsockname", "getpeername", "setsockopt",
	"getsockopt", "shutdown", "connect",
};

static const char *const deadly[] = {
	"execve", "execveat", "ptrace", "process_vm_writev",
	"process_vm_readv", "settimeofday", "clock_settime", "mount",
	"setuid", "setgid", "setresuid", "setresgid", "setreuid",
	"setregid", "setgroups", "kill",
};

int ld_privsep_confine(void)
{
	scmp_filter_ctx f;
	int rc = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		ld_log(LD_LOG_ERR, "no_new_privs: %s", strerror(errno));
		return -1;
	}
	f = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (f == NULL) {
		ld_log(LD_LOG_ERR, "seccomp_init failed");
		return -1;
	}
	/* every thread (the metrics' and NTS-KE's already run) */
	seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]) && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(keep[i]);

		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(f, SCMP_ACT_ALLOW, nr, 0);
	}
	/* new sockets: only Unix ones (the page's PATH.sock, syslog) */
	if (rc == 0) {
		struct scmp_arg_cmp unix_only = { .arg = 0, .op = SCMP_CMP_EQ,
		                                  .datum_a = AF_UNIX,
		                                  .datum_b = 0 };

		rc = seccomp_rule_add_array(f, SCMP_ACT_ALLOW, SCMP_SYS(socket),
		                            1, &unix_only);
	}
	for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]) && rc == 0;
	     i++) {
		int nr = seccomp_syscall_resolve_name(deadly[i]);

		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, nr, 0);
	}
	if (rc == 0)
		rc = seccomp_load(f);
	seccomp_release(f);
	if (rc != 0) {
		ld_log(LD_LOG_ERR, "seccomp: %s", strerror(-rc));
		return -1;
	}
	ld_log(LD_LOG_INFO, "server process confined: no_new_privs, seccomp "
	       "filter");
	return 0;
}
#else
int ld_privsep_confine(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		ld_log(LD_LOG_ERR, "no_new_privs: %s", strerror(errno));
		return -1;
	}
#ifdef LD_SANITIZED
	ld_log(LD_LOG_INFO, "server process: no_new_privs; no seccomp filter "
	       "in a sanitizer build (its runtime needs ptrace and more)");
#else
	ld_log(LD_LOG_WARNING, "server process: no_new_privs; built without "
	       "libseccomp (Debian libseccomp-dev): no seccomp filter");
#endif
	return 0;
}
#endif
