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
 * told so by $LEAPCLOCKD_SERVER: "ctl=FD detach=0|1 syslog=0|1 ho=FD
 * fds=A,B,..": its end of a socketpair to the writer, the handover
 * socket (-1: none) and the UDP sockets the writer bound, worker-major.
 * It reads the page as any reader does (PATH.sock's sealed memfd, mapped
 * read-only), or, with --no-timeline, runs its own timekeeper in-process;
 * drops to --user, sets no_new_privs and landlock before its first thread
 * (ld_privsep_landlock), the seccomp filter after (ld_privsep_confine,
 * every thread), says 'R' on the socketpair once everything is bound, and
 * serves.
 *
 * A server that dies is started again by the writer (1 s later, doubling
 * to 32 s while it keeps dying within 10 s of its start), on the same
 * sockets: requests that arrive meanwhile wait in their socket's queue.
 * The timeline is the writer's alone and sees nothing of it. A server
 * that cannot start at all (a UDP port the writer cannot bind, exec or
 * the server's start failing) does not stop the writer either: it keeps
 * the page, logs the reason once, and tries again with the same backoff
 * (the sockets bound afresh first), its state in PAGE.state for
 * leapclock status. A writer
 * that dies closes the socketpair: the server serves on from the page's
 * last snapshot (server.c writer_gone) until a writer started again takes
 * its sockets over (the handover, below).
 */
#define _GNU_SOURCE
#include "leapclockd.h"
#include "internal.h"
#include "privsep.h"


#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if LD_HAVE_SECCOMP
#include <seccomp.h>
#endif
#include <sys/syscall.h>
#if defined(__NR_landlock_create_ruleset) && __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#define LD_HAVE_LANDLOCK 1
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
	pc->ho = -1;
	pc->ho_conn = -1;
	pc->writer_uid = getuid();
	if (e == NULL)
		return 0;
	if (sscanf(e, "ctl=%d detach=%d syslog=%d ho=%d quiet=%d", &pc->ctl,
	           &pc->detach, &pc->syslog_now, &pc->ho, &pc->quiet) != 5 ||
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

void ld_privsep_init(struct ld_privsep *p, char **argv, int detach)
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->detach = detach;
	p->pid = -1;
	p->ctl = -1;
	p->ho = -1;
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

	n = (size_t)snprintf(v, sizeof(v),
	                     "ctl=%d detach=%d syslog=%d ho=%d quiet=%d fds=",
	                     ctl, p->detach, p->syslog_now, p->ho,
	                     p->logged[0] != '\0');
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
		if (p->ho >= 0)
			fcntl(p->ho, F_SETFD, 0);
		for (int i = 0; i < p->nfds; i++)
			fcntl(p->fds[i], F_SETFD, 0);
		child_env(p, sp[1]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(p->exe, p->argv);
		{
			char why[256];

			snprintf(why, sizeof(why), "exec %.180s: %.60s", p->exe,
			         strerror(errno));
			if (p->logged[0] == '\0')
				fprintf(stderr, "leapclockd: %s\n", why);
			ld_privsep_failed(sp[1], why);
		}
		_exit(127);
	}
	close(sp[1]);
	if (p->ctl >= 0)
		close(p->ctl);
	p->ctl = sp[0];
	p->pid = pid;
	p->started = mono();
	p->was_up = 0;
	p->why[0] = '\0';
	return 0;
}

/* The state file (leapclockd(8) FILES, PAGE.state) for leapclock status:
 * written again, atomically, at each change of the server's state. */
static void write_state(struct ld_privsep *p)
{
	static const char *const names[] = { "starting", "up", "down" };
	char tmp[4096 + 16];
	struct timespec ts;
	FILE *f;
	int fd;

	clock_gettime(CLOCK_REALTIME, &ts);
	p->since_rt = (int64_t)ts.tv_sec * LC__NS + ts.tv_nsec;
	if (p->state_path[0] == '\0' ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", p->state_path) >=
	            sizeof(tmp))
		return;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	if (fchmod(fd, 0644) != 0 || (f = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(f, "leapclockd-state 1\nwriter-pid %ld\nserver %s\n"
	        "server-pid %ld\nsince %lld.%03ld\nstarts %lu\n",
	        (long)getpid(), names[p->state],
	        p->state == LD_PS_DOWN ? -1L : (long)p->pid,
	        (long long)ts.tv_sec, ts.tv_nsec / 1000000, p->starts);
	if (p->state == LD_PS_DOWN)
		fprintf(f, "down-since %lld\nreason %s\n",
		        (long long)(p->since_rt / LC__NS -
		                    (mono() - p->down_mono) / LC__NS),
		        p->why);
	if (fclose(f) != 0 || rename(tmp, p->state_path) != 0)
		unlink(tmp);
}

static void set_state(struct ld_privsep *p, int state)
{
	if (p->state == state && state != LD_PS_DOWN)
		return;
	p->state = state;
	write_state(p);
}

void ld_privsep_failed(int ctl, const char *why)
{
	char b[300];
	int n = snprintf(b, sizeof(b), "E%s\n", why);

	if (ctl >= 0 && write(ctl, b, (size_t)n) != n)
		return; /* the writer is gone: nobody to tell */
}

/* One message of the server's on the socketpair ('R', or 'E' and its
 * reason), read when ctl is readable: 0, or -1 at its end. */
static int ctl_take(struct ld_privsep *p)
{
	char b[300];
	ssize_t n = read(p->ctl, b, sizeof(b) - 1);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	b[n] = '\0';
	if (b[0] == 'R')
		p->was_up = 1;
	if (b[0] == 'E') {
		b[strcspn(b, "\n")] = '\0';
		snprintf(p->why, sizeof(p->why), "%.255s", b + 1);
	}
	return 0;
}

/* What the server said on the socketpair so far, without waiting. */
static void ctl_read(struct ld_privsep *p)
{
	while (p->ctl >= 0 && !p->was_up) {
		struct pollfd pf = { p->ctl, POLLIN, 0 };
		int r = poll(&pf, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || ctl_take(p) != 0)
			return;
	}
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
	if (r > 0 && p->why[0] == '\0') {
		if (WIFSIGNALED(ws))
			snprintf(p->why, sizeof(p->why), "the server process was "
			         "killed: %s", strsignal(WTERMSIG(ws)));
		else
			snprintf(p->why, sizeof(p->why), "the server process "
			         "exited with status %d",
			         WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	}
	p->exit_status = r > 0 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	if (r > 0 && !p->stopping && p->was_up) {
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

/* While the first server starts (seconds on a busy or emulated host:
 * exec, libraries, keys, the confinement), the writer keeps the page as
 * its loop would: updated every LD_UPDATE_NS, and at once when the host's
 * clock is set. A host step in those seconds once reached the readers
 * only after the server said ready (0.8 s late in the VM's runs). */
int ld_privsep_wait_ready(struct ld_privsep *p)
{
	int sfd = p->clock != NULL ? ld_step_watch() : -1;
	int64_t last = mono();

	while (p->ctl >= 0 && !p->was_up) {
		struct pollfd pf[2] = { { p->ctl, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		int64_t now = mono();
		int wait_ms = -1, r, set = 0;

		if (p->clock != NULL)
			wait_ms = last + LD_UPDATE_NS <= now
			              ? 0
			              : (int)((last + LD_UPDATE_NS - now) / 1000000) + 1;
		r = poll(pf, sfd >= 0 ? 2 : 1, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && sfd >= 0 && (pf[1].revents & POLLIN)) {
			/* a cancelled timerfd stays readable: a fresh watch */
			close(sfd);
			sfd = ld_step_watch();
			set = 1;
		}
		if (p->clock != NULL && (set || mono() - last >= LD_UPDATE_NS)) {
			ld_clock_update(p->clock);
			last = mono();
		}
		if (r > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    ctl_take(p) != 0)
			break; /* it ended without a word */
	}
	if (sfd >= 0)
		close(sfd);
	if (p->was_up)
		return 0;
	reap(p, 1);
	return p->exit_status == 2 ? 2 : -1;
}

/* The server is down (p->why): said once for the outage (and again when
 * the reason changes), tried again after the backoff. */
static void went_down(struct ld_privsep *p, int64_t now)
{
	if (p->down_mono == 0)
		p->down_mono = now;
	if (p->backoff_s < 32)
		p->backoff_s *= 2;
	p->restart_at = now + (int64_t)p->backoff_s * LC__NS / 2;
	if (strcmp(p->why, p->logged) != 0) {
		ld_log(LD_LOG_ERR, "the server process did not start: %s; the "
		       "writer keeps the timeline and tries again in %.0f s, "
		       "then at most every 16 s (said again only if the "
		       "reason changes)", p->why, (double)p->backoff_s / 2);
		snprintf(p->logged, sizeof(p->logged), "%s", p->why);
	}
	set_state(p, LD_PS_DOWN);
}

/* The server said 'R'. */
static void came_up(struct ld_privsep *p, int64_t now)
{
	p->starts++;
	if (p->down_mono != 0 && p->logged[0] != '\0')
		ld_log(LD_LOG_INFO, "the server process is up (pid %ld) after "
		       "%.1f s without one", (long)p->pid,
		       (double)(now - p->down_mono) / 1e9);
	p->down_mono = 0;
	p->logged[0] = '\0';
	set_state(p, LD_PS_UP);
}

/* Binds the writer's sockets if they are not and starts the server: 0,
 * or -1 with the reason in p->why. */
static int try_start(struct ld_privsep *p)
{
	if (p->writer != NULL &&
	    ld_server_bind(p->writer, p->why, sizeof(p->why)) != 0)
		return -1;
	if (p->writer != NULL)
		p->nfds = ld_server_fds(p->writer, p->fds, LD_PRIVSEP_MAX_FDS);
	if (ld_privsep_spawn(p) != 0) {
		snprintf(p->why, sizeof(p->why), "fork: %s", strerror(errno));
		return -1;
	}
	set_state(p, LD_PS_STARTING);
	return 0;
}

int ld_privsep_first_start(struct ld_privsep *p, int keep_on)
{
	int rc = try_start(p);

	if (rc == 0) {
		rc = ld_privsep_wait_ready(p);
		if (rc == 0) {
			came_up(p, mono());
			return 0;
		}
		if (rc == 2) {
			ld_log(LD_LOG_ERR, "the server process did not start: "
			       "its configuration: %s", p->why);
			return 2;
		}
	}
	if (!keep_on) {
		ld_log(LD_LOG_ERR, "the server process did not start: %s",
		       p->why);
		return 1;
	}
	went_down(p, mono());
	return 0;
}

void ld_privsep_tick(void *arg, int64_t now)
{
	struct ld_privsep *p = arg;

	if (p->pid >= 0) {
		if (!p->was_up) {
			ctl_read(p);
			if (p->was_up)
				came_up(p, now);
		}
		if (!reap(p, 0))
			return;
		if (!p->was_up) {
			/* it never served: the outage goes on */
			went_down(p, now);
			return;
		}
		/* it died: again after a pause that grows while it keeps
		 * dying young */
		p->down_mono = now;
		set_state(p, LD_PS_DOWN);
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
		if (try_start(p) != 0)
			went_down(p, now);
		else if (p->logged[0] == '\0')
			ld_log(LD_LOG_INFO, "server process started again "
			       "(pid %ld, restart %lu)", (long)p->pid,
			       p->restarts);
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
	if (kill(p->pid, SIGKILL) != 0) {
		/* another user's, and no CAP_KILL: never wait for ever */
		ld_log(LD_LOG_ERR, "the server process (pid %ld): kill: %s",
		       (long)p->pid, strerror(errno));
		return;
	}
	reap(p, 1);
}

void ld_privsep_unlisten(struct ld_privsep *p)
{
	if (p->state_path[0] != '\0' && unlink(p->state_path) != 0 &&
	    errno != ENOENT)
		ld_log(LD_LOG_WARNING, "%s: %s", p->state_path, strerror(errno));
	p->state_path[0] = '\0';
	if (p->ho < 0 || p->ho_path[0] == '\0')
		return;
	close(p->ho);
	p->ho = -1;
	if (unlink(p->ho_path) != 0 && errno != ENOENT)
		ld_log(LD_LOG_WARNING, "%s: %s", p->ho_path, strerror(errno));
}

/*
 * The handover (leapclockd(8) PROCESSES). A server whose writer died
 * (kill -9, a crash) serves on with the UDP sockets, the NTS-KE and the
 * metrics ports; a writer started again finds it on the handover socket
 * the writer made and gave it (PATH.server, mode 0600), checks what it
 * is, and asks:
 *   writer "H"  ->  server "F" + its UDP sockets (SCM_RIGHTS), or "B"
 *                   (busy: its own writer lives);
 *   writer "Q"  ->  the server stops; its end of the connection closes
 *                   when the process is gone.
 * The new writer's server then serves the same UDP sockets: a request
 * that arrives meanwhile waits in the socket's queue, none is refused,
 * and at no time do two processes serve one port.
 */

/* Waits up to `ms` for one byte. 1, or 0 (none: EOF, error, timeout). */
static int read_byte(int fd, char *b, int ms)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	int64_t end = mono() + (int64_t)ms * 1000000;

	for (;;) {
		int left = (int)((end - mono()) / 1000000);
		int r = poll(&pf, 1, left > 0 ? left : 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		return read(fd, b, 1) == 1;
	}
}

/* A Unix socket's address: 0, or -1 if `path` does not fit. */
static int un_addr(struct sockaddr_un *sa, const char *path)
{
	size_t n = strlen(path);

	if (n >= sizeof(sa->sun_path))
		return -1;
	memcpy(sa->sun_path, path, n + 1);
	return 0;
}

void ld_privsep_ho_path(const struct ld_config *cfg, char *buf, size_t n)
{
	const char *base = cfg->timeline[0] != '\0' ? cfg->timeline
	                   : cfg->pidfile;

	buf[0] = '\0';
	if (base[0] != '\0' &&
	    (size_t)snprintf(buf, n, "%s.server", base) >= n)
		buf[0] = '\0';
}

void ld_privsep_handover(void *arg, int writer_alive)
{
	struct ld_privsep_child *pc = arg;
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	char b = 0;
	int c = accept4(pc->ho, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 ||
	    (cr.uid != 0 && cr.uid != pc->writer_uid)) {
		ld_log(LD_LOG_WARNING, "handover socket: a caller of another "
		       "user refused");
		close(c);
		return;
	}
	if (!read_byte(c, &b, 1000) || b != 'H') {
		close(c);
		return;
	}
	if (writer_alive || pc->ho_conn >= 0) {
		/* ours lives: the caller is a second daemon on our page */
		if (write(c, "B", 1) != 1)
			ld_log(LD_LOG_WARNING, "handover: %s", strerror(errno));
		close(c);
		return;
	}
	{
		union {
			char buf[CMSG_SPACE(sizeof(int) * LD_PRIVSEP_MAX_FDS)];
			struct cmsghdr align;
		} u;
		struct iovec iov = { "F", 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
		                    .msg_control = u.buf,
		                    .msg_controllen =
		                            CMSG_SPACE(sizeof(int) * (size_t)pc->nfds) };
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);

		memset(u.buf, 0, sizeof(u.buf));
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)pc->nfds);
		memcpy(CMSG_DATA(h), pc->fds, sizeof(int) * (size_t)pc->nfds);
		if (pc->nfds <= 0 || sendmsg(c, &m, MSG_NOSIGNAL) != 1) {
			ld_log(LD_LOG_WARNING, "handover: sending the sockets: %s",
			       strerror(errno));
			close(c);
			return;
		}
	}
	if (!read_byte(c, &b, 3000) || b != 'Q') {
		ld_log(LD_LOG_WARNING, "handover: the new writer (pid %ld) went "
		       "before taking over: serving on", (long)cr.pid);
		close(c);
		return;
	}
	ld_log(LD_LOG_WARNING, "a new writer (pid %ld) takes the sockets over: "
	       "stopping", (long)cr.pid);
	pc->ho_conn = c; /* closed by our exit: its EOF says we are gone */
	ld_sig_term = 1;
}

/* readlink of /proc/PID/exe, less a " (deleted)" (a binary replaced on
 * disk by an upgrade is still the same program's). */
static int exe_of(long pid, char *buf, size_t n)
{
	char p[64];
	ssize_t r;

	snprintf(p, sizeof(p), "/proc/%ld/exe", pid);
	r = readlink(p, buf, n - 1);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	if (r > 10 && strcmp(buf + r - 10, " (deleted)") == 0)
		buf[r - 10] = '\0';
	return 0;
}

static long parent_of(long pid)
{
	char p[64], buf[512], *rp;
	long pp = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
	f = fopen(p, "re");
	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (rp = strrchr(buf, ')')) != NULL)
		sscanf(rp + 1, " %*c %ld", &pp);
	fclose(f);
	return pp;
}

/* 1 if uid is the user named (--user), to which our server drops. */
static int is_user(uid_t uid, const char *user)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	return user[0] != '\0' && getpwnam_r(user, &pw, buf, sizeof(buf),
	                                      &res) == 0 &&
	       res != NULL && pw.pw_uid == uid;
}

/* What the sender of the answer was (its kernel-stamped credentials: a
 * listening socket's SO_PEERCRED names the process that listened, our
 * dead writer): 0 an orphaned server of this binary. */
static int check_orphan(const struct ucred *cr, const char *exe,
                        const char *user)
{
	char e[4096], want[4096];
	long pp;

	snprintf(want, sizeof(want), "%s", exe);
	{
		size_t n = strlen(want);

		if (n > 10 && strcmp(want + n - 10, " (deleted)") == 0)
			want[n - 10] = '\0';
	}
	if (cr->pid <= 0) {
		ld_log(LD_LOG_WARNING, "handover: no peer credentials");
		return -1;
	}
	if (cr->uid != 0 && cr->uid != getuid() && !is_user(cr->uid, user)) {
		ld_log(LD_LOG_WARNING, "handover: pid %ld is of another user",
		       (long)cr->pid);
		return -1;
	}
	if (exe_of(cr->pid, e, sizeof(e)) != 0 || strcmp(e, want) != 0) {
		ld_log(LD_LOG_WARNING, "handover: pid %ld is not %s: leaving it",
		       (long)cr->pid, want);
		return -1;
	}
	pp = parent_of(cr->pid);
	if (pp > 1 && exe_of(pp, e, sizeof(e)) == 0 && strcmp(e, want) == 0) {
		ld_log(LD_LOG_WARNING, "handover: the server (pid %ld) has its "
		       "writer (pid %ld): leaving it", (long)cr->pid, pp);
		return -1;
	}
	return 0;
}

int ld_privsep_find(struct ld_orphan *o, const char *path, const char *exe,
                    const char *user, int *fds, int max)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	union {
		char buf[CMSG_SPACE(sizeof(int) * LD_PRIVSEP_MAX_FDS) +
		         CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	char b = 0;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	                    .msg_control = u.buf,
	                    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *h;
	struct ucred cr = { 0, 0, 0 };
	struct pollfd pf;
	int n = 0, c, one = 1;

	o->pid = 0;
	o->conn = -1;
	if (path[0] == '\0' || un_addr(&sa, path) != 0)
		return 0;
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0)
		return 0;
	if (setsockopt(c, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0 ||
	    connect(c, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    write(c, "H", 1) != 1) {
		close(c); /* none there (ENOENT), or nobody listens */
		return 0;
	}
	pf.fd = c;
	pf.events = POLLIN;
	if (poll(&pf, 1, 2000) != 1 || recvmsg(c, &m, MSG_CMSG_CLOEXEC) != 1) {
		ld_log(LD_LOG_WARNING, "handover: %s: no answer", path);
		close(c);
		return 0;
	}
	for (h = CMSG_FIRSTHDR(&m); h != NULL; h = CMSG_NXTHDR(&m, h)) {
		if (h->cmsg_level != SOL_SOCKET)
			continue;
		if (h->cmsg_type == SCM_CREDENTIALS &&
		    h->cmsg_len >= CMSG_LEN(sizeof(cr)))
			memcpy(&cr, CMSG_DATA(h), sizeof(cr));
		if (h->cmsg_type == SCM_RIGHTS) {
			int k = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int in[LD_PRIVSEP_MAX_FDS];

			if (k > LD_PRIVSEP_MAX_FDS)
				k = LD_PRIVSEP_MAX_FDS;
			memcpy(in, CMSG_DATA(h), sizeof(int) * (size_t)k);
			for (int i = 0; i < k; i++) {
				if (n < max)
					fds[n++] = in[i];
				else
					close(in[i]);
			}
		}
	}
	if (b != 'F' || check_orphan(&cr, exe, user) != 0) {
		if (b == 'B')
			ld_log(LD_LOG_WARNING, "handover: the server (pid %ld) "
			       "has its writer: leaving it", (long)cr.pid);
		while (n > 0)
			close(fds[--n]);
		close(c); /* it serves on */
		return 0;
	}
	o->pid = cr.pid;
	o->conn = c;
	ld_log(LD_LOG_INFO, "handover: the server process (pid %ld) outlived "
	       "its writer; taking its %d UDP sockets over", (long)o->pid, n);
	return n;
}

/* 1 once `pid` is gone or a zombie (its sockets closed), within `ms`. */
static int wait_gone(pid_t pid, int ms)
{
	char st[64], line[256];

	snprintf(st, sizeof(st), "/proc/%ld/status", (long)pid);
	for (int i = 0; i <= ms / 5; i++) {
		struct timespec gap = { 0, 5000000 };
		FILE *f = fopen(st, "re");
		int zombie = 0;

		if (f == NULL)
			return 1;
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "State:", 6) == 0)
				zombie = strchr(line, 'Z') != NULL ||
				         strchr(line, 'X') != NULL;
		fclose(f);
		if (zombie)
			return 1;
		nanosleep(&gap, NULL);
	}
	return 0;
}

void ld_privsep_orphan_stop(struct ld_orphan *o)
{
	char b;

	if (o->pid <= 0)
		return;
	/* its exit closes the connection (EOF), then it is reaped */
	if (o->conn >= 0 && write(o->conn, "Q", 1) == 1)
		(void)read_byte(o->conn, &b, 3000);
	if (!wait_gone(o->pid, 1000)) {
		ld_log(LD_LOG_WARNING, "handover: the old server (pid %ld) did "
		       "not stop: killing it", (long)o->pid);
		kill(o->pid, SIGKILL);
		wait_gone(o->pid, 1000);
	}
	if (o->conn >= 0)
		close(o->conn);
	ld_log(LD_LOG_INFO, "handover: the old server process (pid %ld) is "
	       "gone", (long)o->pid);
	o->conn = -1;
	o->pid = 0;
}

int ld_privsep_listen(struct ld_privsep *p)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (p->ho_path[0] == '\0')
		return 0;
	if (un_addr(&sa, p->ho_path) != 0) {
		ld_log(LD_LOG_WARNING, "%s: too long for a socket: no handover",
		       p->ho_path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if ((unlink(p->ho_path) != 0 && errno != ENOENT) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(p->ho_path, 0600) != 0 || listen(fd, 4) != 0) {
		ld_log(LD_LOG_WARNING, "%s: %s: no handover to a writer "
		       "started later", p->ho_path, strerror(errno));
		close(fd);
		return -1;
	}
	p->ho = fd;
	return 0;
}

void ld_privsep_ready(int ctl)
{
	if (ctl >= 0 && write(ctl, "R", 1) != 1)
		ld_log(LD_LOG_WARNING, "telling the writer: %s", strerror(errno));
}

#ifdef LD_HAVE_LANDLOCK
/* Landlock's ABI numbers for what an older <linux/landlock.h> lacks
 * (ABI 3: truncate; ABI 4: TCP bind and connect). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define LD_LL_NET_BIND_TCP (1ULL << 0)
#define LD_LL_NET_CONNECT_TCP (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 4 (the kernel takes a shorter
 * one, and a longer one whose extra fields are zero) */
struct ld_ll_ruleset {
	uint64_t fs, net;
};

/* A folder the server may write beneath (rights `fs`); 0, or -1. */
static int ll_allow(int rs, const char *dir, uint64_t fs)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = fs };
	int rc;

	pb.parent_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return 0; /* none: nothing to write there */
	rc = (int)syscall(__NR_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
	                  &pb, 0);
	close(pb.parent_fd);
	if (rc != 0)
		ld_log(LD_LOG_ERR, "landlock: %s: %s", dir, strerror(errno));
	return rc;
}

/* The folder of `path` ("" none) into buf. */
static const char *folder(const char *path, char *buf, size_t n)
{
	char *slash;

	if (path[0] == '\0' || (size_t)snprintf(buf, n, "%s", path) >= n)
		return NULL;
	slash = strrchr(buf, '/');
	if (slash == NULL)
		return ".";
	if (slash == buf)
		slash[1] = '\0';
	else
		*slash = '\0';
	return buf;
}

/* The server writes files beneath the stats file's folder and the NTS key
 * folder, nowhere else; binds and connects no TCP socket (its listeners
 * are bound before); reads stay open (certificates, leap files, zone
 * files). Best effort: an older kernel gets what its ABI has, none none
 * (said). 0, or -1 when the kernel refused a ruleset it offered. */
static int landlock(const struct ld_config *cfg)
{
	uint64_t fs = LANDLOCK_ACCESS_FS_WRITE_FILE |
	              LANDLOCK_ACCESS_FS_REMOVE_DIR |
	              LANDLOCK_ACCESS_FS_REMOVE_FILE |
	              LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
	              LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
	              LANDLOCK_ACCESS_FS_MAKE_FIFO |
	              LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	struct ld_ll_ruleset ra;
	char dir[PATH_MAX];
	const char *d;
	int rs, rc = 0;
	int abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0,
	                       LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 1) {
		ld_log(LD_LOG_INFO, "landlock: not in this kernel (%s)",
		       strerror(errno));
		return 0;
	}
	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	ra.fs = fs;
	ra.net = abi >= 4 ? LD_LL_NET_BIND_TCP | LD_LL_NET_CONNECT_TCP : 0;
	rs = (int)syscall(__NR_landlock_create_ruleset, &ra,
	                  abi >= 4 ? sizeof(ra) : sizeof(ra.fs), 0);
	if (rs < 0) {
		ld_log(LD_LOG_ERR, "landlock: ruleset: %s", strerror(errno));
		return -1;
	}
	if ((d = folder(cfg->statsfile, dir, sizeof(dir))) != NULL)
		rc |= ll_allow(rs, d, fs);
	if (cfg->nts_cert[0] != '\0' && cfg->nts_keydir[0] != '\0')
		rc |= ll_allow(rs, cfg->nts_keydir, fs);
	if (rc == 0 &&
	    syscall(__NR_landlock_restrict_self, rs, 0) != 0) {
		ld_log(LD_LOG_ERR, "landlock: %s", strerror(errno));
		rc = -1;
	}
	close(rs);
	if (rc == 0)
		ld_log(LD_LOG_INFO, "server process: landlock ABI %d: writes only "
		       "beneath its stats and key folders%s", abi,
		       abi >= 4 ? ", no TCP bind or connect" : "");
	return rc;
}
#else
static int landlock(const struct ld_config *cfg)
{
	(void)cfg;
	ld_log(LD_LOG_INFO, "landlock: not in this build's kernel headers");
	return 0;
}
#endif

int ld_privsep_landlock(const struct ld_config *cfg)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		ld_log(LD_LOG_ERR, "no_new_privs: %s", strerror(errno));
		return -1;
	}
	return landlock(cfg);
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
	/* a binary tree of the syscall numbers, not a list of 120 checks
	 * run on every call (libseccomp 2.5; older ones refuse: a list) */
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	seccomp_attr_set(f, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#endif
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
