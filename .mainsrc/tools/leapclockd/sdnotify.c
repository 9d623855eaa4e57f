/*
 * sdnotify.c - READY=1 and WATCHDOG=1 to $NOTIFY_SOCKET (see sdnotify.h).
 */
#include "sdnotify.h"
#include "leapclockd.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* One datagram `msg` to $NOTIFY_SOCKET: 1 sent, 0 no socket, -1 error
 * (errno). */
static int sd_send(const char *msg)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t len;
	size_t n;
	int fd;
	ssize_t w;

	if (name == NULL || name[0] == '\0')
		return 0;
	n = strlen(name);
	if ((name[0] != '/' && name[0] != '@') || n >= sizeof(sa.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract: no NUL at the end */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
	                  (name[0] == '/' ? 1 : 0));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	w = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
	           len);
	close(fd);
	return w < 0 ? -1 : 1;
}

static int warned;

static void warn_once(const char *what)
{
	if (warned)
		return;
	warned = 1;
	ld_log(LD_LOG_WARNING, "systemd notification (%s) to %s: %s", what,
	       getenv("NOTIFY_SOCKET"), strerror(errno));
}

int ld_sd_ready(void)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "READY=1\nMAINPID=%ld\nSTATUS=serving",
	         (long)getpid());
	if (sd_send(msg) < 0) {
		warn_once("READY=1");
		return -1;
	}
	return 0;
}

/* The watchdog's period in ns for this process, 0 if none. */
static int64_t watchdog_ns(void)
{
	const char *us = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	char *end;
	unsigned long long v;

	if (us == NULL || getenv("NOTIFY_SOCKET") == NULL)
		return 0;
	if (pid != NULL && strtol(pid, NULL, 10) != (long)getpid())
		return 0; /* meant for another process (a parent) */
	errno = 0;
	v = strtoull(us, &end, 10);
	if (errno != 0 || end == us || *end != '\0' || v == 0 ||
	    v > (unsigned long long)INT64_MAX / 1000)
		return 0;
	return (int64_t)v * 1000;
}

void ld_sd_watchdog(void)
{
	static int64_t period = -1, last;
	struct timespec ts;
	int64_t now;

	if (period < 0)
		period = watchdog_ns();
	if (period == 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (last != 0 && now - last < period / 4)
		return;
	last = now;
	if (sd_send("WATCHDOG=1") < 0)
		warn_once("WATCHDOG=1");
}
