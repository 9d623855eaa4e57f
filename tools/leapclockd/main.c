/*
 * main.c - leapclockd: an NTP server that serves leap-correct UTC, or
 * smeared UTC, from leapclock's clocks. See leapclockd(8).
 *
 * Life cycle: read the settings, load the leap table, create the
 * timekeepers and bind every socket while still attached to the terminal
 * (so that any failure is printed and the exit status says so), then, unless
 * -d, detach and log to syslog.
 */
#include "leapclockd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static int log_syslog;

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

static int detach(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0) {
		ld_log(LD_LOG_ERR, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		_exit(0);
	setsid();
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

int main(int argc, char **argv)
{
	static struct ld_config cfg;
	struct ld_clock *clock = NULL;
	struct ld_server *server = NULL;
	int rc;

	ld_config_init(&cfg);
	rc = ld_config_from_args(&cfg, argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (cfg.use_syslog == 1)
		ld_log_use_syslog(1);

	setup_signals();
	if (ld_clock_new(&clock, &cfg) != 0)
		return 1;
	if (ld_server_new(&server, &cfg, clock) != 0) {
		ld_clock_free(clock);
		return 1;
	}
	if (!cfg.foreground) {
		if (cfg.use_syslog != 0)
			ld_log_use_syslog(1);
		if (detach() != 0)
			return 1;
	}
	start_stop_signals();
	ld_log(LD_LOG_INFO, "leapclockd " LC_VERSION_STRING " running (pid %ld)",
	       (long)getpid());
	rc = ld_server_run(server);
	ld_log(LD_LOG_INFO, "stopping");
	ld_server_free(server);
	ld_clock_free(clock);
	return rc == 0 ? 0 : 1;
}
