/*
 * sockstamp.c - the kernel's packet timestamps on the program's clock:
 * recvmsg and recvmmsg in libleapclock-preload.so. A socket with
 * SO_TIMESTAMP, SO_TIMESTAMPNS or SO_TIMESTAMPING (software stamps) gets
 * each packet's arrival (or, from the error queue, departure) time as a
 * control message read from the host's CLOCK_REALTIME; an NTP daemon
 * (NTPsec's ntpd, chronyd) takes it as the packet's time on its own
 * clock. The shim rewrites it onto the program's REALTIME: the stamp plus
 * the program's REALTIME minus the host's, both read now (the stamp is
 * microseconds old; a leap or a step of the program's clock in between is
 * the only error, once). Hardware stamps (a NIC's clock) are left as they
 * are; so is ioctl(SIOCGSTAMP).
 */
#define _GNU_SOURCE

#include "shim.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

/* the types of the 64-bit time layout (Linux 5.1), when the headers are
 * older */
#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW 63
#define SO_TIMESTAMPNS_NEW 64
#define SO_TIMESTAMPING_NEW 65
#endif
#ifndef SO_TIMESTAMP_OLD
#define SO_TIMESTAMP_OLD 29
#define SO_TIMESTAMPNS_OLD 35
#define SO_TIMESTAMPING_OLD 37
#endif

struct ts64 {
	int64_t sec, frac;
};

/* a stamp (sec, frac in units of `unit` ns) moved by `d` ns; a zero stamp
 * (SO_TIMESTAMPING's empty slots) stays zero */
static void shift(int64_t *sec, int64_t *frac, int64_t unit, int64_t d)
{
	int64_t ns;

	if (*sec == 0 && *frac == 0)
		return;
	ns = *sec * LC__NS + *frac * unit + d;
	*sec = lc__fdiv(ns, LC__NS);
	*frac = lc__fmod(ns, LC__NS) / unit;
}

/* struct timeval and struct timespec: a time_t and a long, one layout */
_Static_assert(sizeof(struct timeval) == sizeof(struct timespec) &&
                       offsetof(struct timeval, tv_usec) ==
                               offsetof(struct timespec, tv_nsec),
               "timeval and timespec differ");

static void shift_native(void *p, int64_t unit, int64_t d)
{
	struct timespec ts;
	int64_t s, f;

	memcpy(&ts, p, sizeof(ts));
	s = ts.tv_sec;
	f = ts.tv_nsec;
	shift(&s, &f, unit, d);
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)f;
	memcpy(p, &ts, sizeof(ts));
}

static void shift_ts64(void *p, int64_t unit, int64_t d)
{
	struct ts64 t;

	memcpy(&t, p, sizeof(t));
	shift(&t.sec, &t.frac, unit, d);
	memcpy(p, &t, sizeof(t));
}

/* The stamps of one received message onto the program's clock. */
static void restamp(struct msghdr *m)
{
	struct cmsghdr *c;
	int64_t d = 0;
	int have = 0;

	if (m->msg_control == NULL || m->msg_controllen < sizeof(struct cmsghdr))
		return;
	for (c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
		size_t len = c->cmsg_len - CMSG_LEN(0);
		unsigned char *p = CMSG_DATA(c);

		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type != SO_TIMESTAMP_OLD &&
		    c->cmsg_type != SO_TIMESTAMPNS_OLD &&
		    c->cmsg_type != SO_TIMESTAMPING_OLD &&
		    c->cmsg_type != SO_TIMESTAMP_NEW &&
		    c->cmsg_type != SO_TIMESTAMPNS_NEW &&
		    c->cmsg_type != SO_TIMESTAMPING_NEW)
			continue;
		if (!have) {
			/* the program's REALTIME minus the host's, now */
			if (!lcp_ready())
				return;
			d = lcp_prog_rt() - lcp_host_ns(CLOCK_REALTIME);
			have = 1;
		}
		switch (c->cmsg_type) {
		case SO_TIMESTAMP_OLD:
			if (len >= sizeof(struct timeval))
				shift_native(p, 1000, d);
			break;
		case SO_TIMESTAMPNS_OLD:
			if (len >= sizeof(struct timespec))
				shift_native(p, 1, d);
			break;
		case SO_TIMESTAMPING_OLD:
			/* [0] software, [1] unused, [2] hardware: the first */
			if (len >= sizeof(struct timespec))
				shift_native(p, 1, d);
			break;
		case SO_TIMESTAMP_NEW:
			if (len >= sizeof(struct ts64))
				shift_ts64(p, 1000, d);
			break;
		default: /* the _NEW timespecs: the first, as above */
			if (len >= sizeof(struct ts64))
				shift_ts64(p, 1, d);
			break;
		}
	}
}

LCP_EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	__typeof__(recvmsg) *f = REAL(recvmsg);
	ssize_t n;

	n = f != NULL ? f(fd, m, flags)
	              : (ssize_t)syscall(SYS_recvmsg, fd, m, flags);
	if (n >= 0 && m != NULL) {
		int e = errno;

		restamp(m);
		errno = e;
	}
	return n;
}

LCP_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags,
                        struct timespec *tmo)
{
	__typeof__(recvmmsg) *f = REAL(recvmmsg);
	int r, i;

	/* the timeout is a span on the host's MONOTONIC, as Linux's */
	r = f != NULL ? f(fd, v, n, flags, tmo)
	              : (int)syscall(SYS_recvmmsg, fd, v, n, flags, tmo);
	if (r > 0 && v != NULL) {
		int e = errno;

		for (i = 0; i < r; i++)
			restamp(&v[i].msg_hdr);
		errno = e;
	}
	return r;
}
