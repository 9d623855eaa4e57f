/*
 * main.c - leapclockd: an NTP server that serves leap-correct UTC, or
 * smeared UTC, from leapclock's clocks. See leapclockd(8).
 *
 * Life cycle: read and check the whole configuration (every error of it
 * exits 2 before anything is taken: the page, a socket, a file); unless
 * -d, fork, the parent waiting for the child's word (fork_daemon); then,
 * in the process that serves, load the leap table, create the
 * timekeeper, publish the page and bind every socket while still on the
 * terminal's stderr (so that any failure is printed and the exit status
 * says so), and only then detach and log to syslog.
 *
 * Two processes (privsep.c): this one, the writer, keeps the page, the
 * leap file and the host, binds the UDP sockets and runs the server
 * process (server_main) again and again if it dies; the server serves.
 *
 * Started as root with --user NAME (by default _leapclock where that user
 * exists), the server drops to that user once everything is bound and
 * every secret read (before detaching, so that a failure is printed): the
 * NTS key folder and the certificate and its key become the user's, mode
 * 0700/0600, and a drop that does not hold (setuid(0) still works) stops
 * the daemon rather than leave it running as root. Under systemd too: the
 * unit runs the writer as root (the page must be root's) with CAP_SETUID,
 * CAP_SETGID, CAP_CHOWN, CAP_FOWNER and CAP_DAC_READ_SEARCH in its bounding
 * set for this drop, all of which the server loses with it (and CAP_KILL,
 * for the writer to signal a server of another user).
 */
#define _GNU_SOURCE /* setgroups, pipe2 */
#include "leapclockd.h"
#include "auth.h"
#include "metrics.h"
#include "privsep.h"
#include "sdnotify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static int log_syslog;
/* The server process: its last error, for its writer when its start
 * fails (ld_privsep_failed); held back from the log on a retry
 * (log_quiet), whose writer says a new reason once. */
static char last_error[256];
static int log_quiet;

void ld_log_use_syslog(int on)
{
	if (on && !log_syslog)
		openlog("leapclockd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	log_syslog = on;
}

void ld_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (level <= LD_LOG_ERR) {
		va_list cp;

		va_copy(cp, ap);
		vsnprintf(last_error, sizeof(last_error), fmt, cp);
		va_end(cp);
		if (log_quiet) {
			va_end(ap);
			return;
		}
	}
	if (log_syslog) {
		vsyslog(level, fmt, ap);
	} else {
		/* syslog stamps its own lines; these get the host's UTC
		 * time with ms after the "leapclockd: " that scripts key on
		 * (tests/vm, tools/vm-kernel-test). */
		struct timespec now;
		struct tm tm;
		char stamp[40] = "";

		if (clock_gettime(CLOCK_REALTIME, &now) == 0 &&
		    gmtime_r(&now.tv_sec, &tm) != NULL) {
			size_t n = strftime(stamp, sizeof(stamp),
			                    "%Y-%m-%dT%H:%M:%S", &tm);
			snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ ",
			         now.tv_nsec / 1000000L);
		}
		fprintf(stderr, "leapclockd: %s%s", stamp,
		        level <= LD_LOG_ERR ? "error: "
		        : level == LD_LOG_WARNING ? "warning: " : "");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		ld_sig_hup = 1;
	else if (sig == SIGUSR1)
		ld_sig_usr1 = 1;
	else
		ld_sig_term = 1;
}

/* The handled signals stay blocked except inside ppoll(), so that none is
 * lost between a check of its flag and the wait. SIGHUP and SIGUSR1 are
 * handled from the start (one sent while starting is acted on once
 * running); SIGTERM and SIGINT keep their default action, to stop the
 * daemon at once, until start_stop_signals() just before the loop: a step
 * of the start that waits (a file that blocks, a slow disk) can always be
 * stopped. */
static void setup_signals(void)
{
	struct sigaction sa;
	sigset_t set;
	const int sigs[] = { SIGHUP, SIGUSR1 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* SIGTERM and SIGINT handled as the others: blocked first, so that one
 * that arrives now stays pending until ppoll() and is not lost. */
static void start_stop_signals(void)
{
	struct sigaction sa;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* Daemonising, before anything is taken (issue 28 item 7: a page made
 * before the fork carried the parent's pid, so every reader took the
 * running daemon for dead). The parent forks at once and waits: the child
 * does all the work, on the terminal's stderr, and reports through a pipe
 * one byte, its exit status, once it serves (0) or when it fails (1); the
 * parent exits with that status, so a failure is printed and the exit
 * status keeps its meaning. A child that dies without a word (a signal)
 * is reaped and said. Returns, in the child, the pipe's write end. */
static int fork_daemon(void)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0) {
		ld_log(LD_LOG_ERR, "pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		ld_log(LD_LOG_ERR, "fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		unsigned char st;
		ssize_t n;
		int ws;

		close(p[1]);
		do
			n = read(p[0], &st, 1);
		while (n < 0 && errno == EINTR);
		if (n == 1)
			_exit(st);
		/* no word: it died */
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(ws))
			_exit(WEXITSTATUS(ws) != 0 ? WEXITSTATUS(ws) : 1);
		fprintf(stderr, "leapclockd: the daemon (pid %ld) died while "
		        "starting: %s\n", (long)pid,
		        WIFSIGNALED(ws) ? strsignal(WTERMSIG(ws)) : "?");
		_exit(1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

/* The child's word to the waiting parent (see fork_daemon); -1: none. */
static void report_start(int *fd, int status)
{
	unsigned char st = (unsigned char)status;

	if (*fd < 0)
		return;
	if (write(*fd, &st, 1) != 1)
		ld_log(LD_LOG_WARNING, "telling the starting process: %s",
		       strerror(errno));
	close(*fd);
	*fd = -1;
}

/* Once serving: away from the terminal. */
static int detach_stdio(void)
{
	int fd;

	if (chdir("/") != 0)
		return -1;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

/* --pidfile: the daemon's pid, in a file it holds locked for its life, so
 * that a second leapclockd on the same file refuses before it takes the
 * page or any socket. Taken by the process that serves (after the fork).
 * The fd, or -1 after logging. */
static int pidfile_take(const char *path)
{
	struct stat st;
	char buf[32];
	int n, fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	                               O_NONBLOCK | O_NOCTTY, 0644);

	if (fd < 0) {
		ld_log(LD_LOG_ERR, "pidfile %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ld_log(LD_LOG_ERR, "pidfile %s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);

		buf[r > 0 ? r : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		ld_log(LD_LOG_ERR, "pidfile %s: held by another leapclockd "
		       "(pid %s): not starting a second one", path,
		       buf[0] ? buf : "?");
		close(fd);
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		ld_log(LD_LOG_ERR, "pidfile %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Removes the pid file if it still holds this process's pid. */
static void pidfile_drop(const char *path, int fd)
{
	char buf[32], want[32];
	ssize_t r;

	if (fd < 0)
		return;
	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[r > 0 ? r : 0] = '\0';
	if (strcmp(buf, want) == 0 && unlink(path) != 0 && errno != ENOENT)
		ld_log(LD_LOG_WARNING, "pidfile %s: %s", path, strerror(errno));
	close(fd);
}

/* Makes `path` the user's with `mode`, if it exists (logged). */
static int give(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		ld_log(LD_LOG_ERR, "--user: %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		ld_log(LD_LOG_ERR, "--user: %s is a symbolic link: not handing "
		       "it over", path);
		return -1;
	}
	if ((st.st_uid != uid || st.st_gid != gid) &&
	    chown(path, uid, gid) != 0) {
		ld_log(LD_LOG_ERR, "--user: chown %s: %s", path, strerror(errno));
		return -1;
	}
	if ((st.st_mode & 07777) != mode && chmod(path, mode) != 0) {
		ld_log(LD_LOG_ERR, "--user: chmod %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The NTS secrets readable by the user and nobody else: the key folder
 * (0700) and the files in it (0600), the certificate and its key (0600). */
static int hand_over(const struct ld_config *c, uid_t uid, gid_t gid)
{
	int rc = 0;

	if (c->nts_cert[0] == '\0')
		return 0;
	if (c->nts_keydir[0] != '\0') {
		DIR *d = opendir(c->nts_keydir);
		struct dirent *e;

		if (give(c->nts_keydir, uid, gid, 0700) != 0)
			rc = -1;
		while (d != NULL && (e = readdir(d)) != NULL) {
			char p[PATH_MAX + 260];
			struct stat st;

			snprintf(p, sizeof(p), "%s/%s", c->nts_keydir, e->d_name);
			if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			    give(p, uid, gid, 0600) != 0)
				rc = -1;
		}
		if (d != NULL)
			closedir(d);
	}
	if (give(c->nts_cert, uid, gid, 0600) != 0 ||
	    give(c->nts_key, uid, gid, 0600) != 0)
		rc = -1;
	return rc;
}

/* The stats file's folder: created for the user if missing, and the
 * default one (/run/leapclockd, leapclockd's own) handed over, so that
 * the counters keep being written. Another folder is left as it is. */
static void stats_dir(const struct ld_config *c, uid_t uid, gid_t gid)
{
	char dir[PATH_MAX];
	char *slash;

	if (c->statsfile[0] == '\0')
		return;
	snprintf(dir, sizeof(dir), "%s", c->statsfile);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0 ||
	    strcmp(c->statsfile, LD_DEFAULT_STATSFILE) == 0) {
		if (chown(dir, uid, gid) != 0)
			ld_log(LD_LOG_WARNING, "--user: chown %s: %s", dir,
			       strerror(errno));
	}
}

/* Drops root for cfg->user (see the top), in the server process. With
 * no --user (and no _leapclock user on the host) it stays as started,
 * confined (seccomp, no_new_privs) but root: said as a warning. 0, or -1
 * after logging: the server must not go on. */
static int drop_privileges(const struct ld_config *c)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int e;

	if (c->user[0] == '\0') {
		if (geteuid() == 0)
			ld_log(LD_LOG_WARNING, "no --user: the server process "
			       "stays root (confined); name an unprivileged "
			       "user");
		return 0;
	}
	if (geteuid() != 0) {
		ld_log(LD_LOG_INFO, "not started as root: --user %s not needed",
		       c->user);
		return 0;
	}
	e = getpwnam_r(c->user, &pw, buf, sizeof(buf), &res);
	if (res == NULL) {
		ld_log(LD_LOG_ERR, "--user %s: %s", c->user,
		       e != 0 ? strerror(e) : "no such user");
		return -1;
	}
	if (pw.pw_uid == 0) {
		ld_log(LD_LOG_WARNING, "--user %s is root: the server process "
		       "stays root (confined)", c->user);
		return 0;
	}
	if (hand_over(c, pw.pw_uid, pw.pw_gid) != 0)
		return -1;
	stats_dir(c, pw.pw_uid, pw.pw_gid);
	if (setgroups(1, &pw.pw_gid) != 0 || setgid(pw.pw_gid) != 0 ||
	    setuid(pw.pw_uid) != 0) {
		ld_log(LD_LOG_ERR, "--user %s: cannot drop root (%s): refusing "
		       "to run as root", c->user, strerror(errno));
		return -1;
	}
	/* it must not be undoable */
	if (setuid(0) == 0 || geteuid() == 0 || getuid() == 0 ||
	    getegid() != pw.pw_gid) {
		ld_log(LD_LOG_ERR, "--user %s: root could be regained: refusing "
		       "to run", c->user);
		return -1;
	}
	ld_log(LD_LOG_INFO, "server process running as %s (uid %ld, gid %ld)", c->user,
	       (long)pw.pw_uid, (long)pw.pw_gid);
	return 0;
}

/* The server process (privsep.c): NTP, NTS-KE, metrics, the stats file,
 * on the sockets the writer bound, reading the writer's page. */
static int server_main(struct ld_config *cfg, struct ld_privsep_child *pc)
{
	struct ld_clock *clock = NULL;
	struct ld_server *server = NULL;
	struct ld_metrics *metrics = NULL;
	int rc;

	cfg->foreground = 1;
	log_quiet = pc->quiet;
	if (pc->syslog_now)
		ld_log_use_syslog(1);
	setup_signals();
	/* a dying writer must not take the server with it (no
	 * PDEATHSIG); its end of the socketpair says when it goes */
	rc = cfg->timeline[0] != '\0' ? ld_clock_new_reader(&clock, cfg)
	                              : ld_clock_new(&clock, cfg);
	if (rc != 0 ||
	    ld_server_new_role(&server, cfg, clock, LD_ROLE_SERVER, pc->fds,
	                       pc->nfds, pc->ctl) != 0 ||
	    ld_metrics_new(&metrics, cfg, server, clock) != 0 ||
	    drop_privileges(cfg) != 0)
		goto fail;
	if (pc->detach) {
		if (cfg->use_syslog != 0)
			ld_log_use_syslog(1);
		if (detach_stdio() != 0)
			goto fail;
	}
	/* landlock before any thread starts, seccomp (TSYNC) after */
	if (ld_privsep_landlock(cfg) != 0 || ld_metrics_start(metrics) != 0)
		goto fail;
	start_stop_signals();
	if (ld_privsep_confine() != 0)
		goto fail;
	{
		/* a writer started after ours died takes our sockets over */
		struct ld_supervise sup = { NULL, NULL, ld_privsep_handover,
		                            pc->ho, pc };

		ld_server_supervise(server, &sup);
	}
	log_quiet = 0;
	ld_log(LD_LOG_INFO, "server process ready (pid %ld)", (long)getpid());
	ld_privsep_ready(pc->ctl);
	rc = ld_server_run(server);
	ld_metrics_free(metrics);
	ld_server_free(server);
	ld_clock_free(clock);
	return rc == 0 ? 0 : 1;
fail:
	ld_privsep_failed(pc->ctl, last_error[0] != '\0' ? last_error
	                                                 : "its start failed");
	ld_metrics_free(metrics);
	ld_server_free(server);
	ld_clock_free(clock);
	return 1;
}

int main(int argc, char **argv)
{
	static struct ld_config cfg;
	static struct ld_privsep ps;
	struct ld_privsep_child pc;
	struct ld_clock *clock = NULL;
	struct ld_server *writer = NULL;
	static int got[LD_PRIVSEP_MAX_FDS];
	struct ld_orphan orphan = { 0, -1 };
	int rc, report = -1, pidfd = -1, role, ngot, fail_rc = 1;

	role = ld_privsep_child_env(&pc);
	if (role < 0)
		return 1;
	/* Every configuration error is found here, before the page, a
	 * socket or a file is touched (issue 28 item 14): exit 2. */
	ld_config_init(&cfg);
	cfg.server_process = role == 1;
	rc = ld_config_from_args(&cfg, argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (role == 1)
		return server_main(&cfg, &pc);
	if (ld_metrics_check(&cfg) != 0)
		return 2; /* a bad address, or no libmicrohttpd in this build */
	if (ld_auth_check_config(&cfg) != 0)
		return 2;
	if (cfg.check_config) {
		ld_config_print(&cfg, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (cfg.use_syslog == 1)
		ld_log_use_syslog(1);

	setup_signals();
	if (!cfg.foreground)
		report = fork_daemon();
	/* from here on, this is the writer: the page, the leap file, the
	 * host; the UDP sockets bound for the server process */
	if (cfg.pidfile[0] != '\0' && (pidfd = pidfile_take(cfg.pidfile)) < 0)
		goto fail;
	if (cfg.timeline[0] != '\0' && ld_clock_new(&clock, &cfg) != 0)
		goto fail;
	/* a server that outlived its writer (killed, crashed) holds our
	 * ports: its UDP sockets are taken over, and it is stopped just
	 * before ours starts (privsep.c, the handover) */
	ld_privsep_init(&ps, argv, !cfg.foreground);
	ps.syslog_now = cfg.use_syslog == 1;
	ld_privsep_ho_path(&cfg, ps.ho_path, sizeof(ps.ho_path));
	ngot = ld_privsep_find(&orphan, ps.ho_path, ps.exe, cfg.user, got,
	                       LD_PRIVSEP_MAX_FDS);
	if (ngot > 0 && !ld_server_fds_match(&cfg, got, ngot)) {
		ld_log(LD_LOG_WARNING, "handover: the old server's sockets are "
		       "not the ones configured: binding anew once it is gone");
		for (int i = 0; i < ngot; i++)
			close(got[i]);
		ngot = 0;
	}
	if (ngot == 0)
		ld_privsep_orphan_stop(&orphan); /* before binding its ports */
	if (ld_server_new_role(&writer, &cfg, clock, LD_ROLE_WRITER,
	                       ngot > 0 ? got : NULL, ngot, -1) != 0)
		goto fail;
	ld_privsep_orphan_stop(&orphan);
	ld_privsep_listen(&ps);
	/* nobody of our user may read or write this process's memory
	 * (ptrace, /proc/PID/mem): the server may be of the same user */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* A server that cannot start (its port taken, exec failing, its own
	 * start failing) does not stop the writer, whose page every program
	 * reads: it keeps the page and tries the server again (privsep.c).
	 * Its configuration found bad (exit 2) stops this first start; with
	 * no page there is nothing to keep: exit 1, as before. */
	ps.writer = writer;
	ps.clock = clock;
	if (cfg.timeline[0] != '\0' &&
	    (size_t)snprintf(ps.state_path, sizeof(ps.state_path), "%s.state",
	                     cfg.timeline) >= sizeof(ps.state_path))
		ps.state_path[0] = '\0'; /* too long: no state file */
	rc = ld_privsep_first_start(&ps, clock != NULL);
	if (rc != 0) {
		fail_rc = rc;
		goto fail;
	}
	if (!cfg.foreground) {
		if (cfg.use_syslog != 0)
			ld_log_use_syslog(1);
		if (detach_stdio() != 0)
			goto fail;
		ps.syslog_now = cfg.use_syslog != 0;
	}
	start_stop_signals();
	ld_log(LD_LOG_INFO, "leapclockd " LC_VERSION_STRING " running (pid %ld)",
	       (long)getpid());
	if (ps.pid > 0)
		ld_log(LD_LOG_INFO, "the writer (pid %ld) keeps the timeline; "
		       "the server process (pid %ld) serves", (long)getpid(),
		       (long)ps.pid);
	else
		ld_log(LD_LOG_WARNING, "the writer (pid %ld) keeps the "
		       "timeline; no server process yet: %s", (long)getpid(),
		       ps.why);
	/* the page is published and every socket bound: the parent may go,
	 * and systemd may count the service as started */
	report_start(&report, 0);
	ld_sd_ready();
	{
		struct ld_supervise sup = { ld_privsep_tick, ld_privsep_signal,
		                            NULL, -1, &ps };

		ld_server_supervise(writer, &sup);
	}
	rc = ld_server_run(writer);
	ld_log(LD_LOG_INFO, "stopping");
	ld_privsep_stop(&ps);
	ld_privsep_unlisten(&ps);
	ld_server_free(writer);
	ld_clock_free(clock);
	pidfile_drop(cfg.pidfile, pidfd);
	return rc == 0 ? 0 : 1;
fail:
	report_start(&report, fail_rc);
	ld_privsep_orphan_stop(&orphan);
	ld_privsep_stop(&ps);
	ld_privsep_unlisten(&ps);
	ld_server_free(writer);
	ld_clock_free(clock);
	pidfile_drop(cfg.pidfile, pidfd);
	return fail_rc;
}
