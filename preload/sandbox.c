/*
 * sandbox.c - the shim's side of the time sandbox (`leapclock run
 * --sandbox`, sandbox.h): with LEAPCLOCK_SANDBOX set, the calls that set
 * the clock and adjtimex in all its forms are sent to the sandbox's
 * writer, which applies them to the program's timeline (the page the shim
 * reads) with the library's kernel-compatible adjtimex; the host's clock
 * is never asked. The replies are Linux's: the clock state, or -1 with the
 * errno Linux gives for the same request.
 */
#define _GNU_SOURCE

#include "shim.h"

#include "sandbox.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static const char *sb_path(void)
{
	static const char *_Atomic path;
	static _Atomic int looked;
	const char *p;

	if (atomic_load_explicit(&looked, memory_order_acquire))
		return atomic_load_explicit(&path, memory_order_relaxed);
	p = getenv(LCP_ENV_SANDBOX);
	if (p != NULL && *p == '\0')
		p = NULL;
	atomic_store_explicit(&path, p, memory_order_relaxed);
	atomic_store_explicit(&looked, 1, memory_order_release);
	return p;
}

int lcp_sb_on(void)
{
	return sb_path() != NULL;
}

/* One request, one reply: the reply's rc, or -errno of the transport
 * (the writer gone is EPERM: the clock cannot be set, said once). */
static int sb_call(const struct lcp_sb_req *rq, struct lcp_sb_rep *rp)
{
	static _Atomic int said;
	struct sockaddr_un sa;
	struct timeval tmo = { 10, 0 };
	const char *path = sb_path();
	ssize_t n;
	int fd, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (path == NULL || strlen(path) >= sizeof(sa.sun_path))
		return -EPERM;
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof(tmo));
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR)
			continue;
		goto gone;
	}
	do
		n = send(fd, rq, sizeof(*rq), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*rq))
		goto gone;
	do
		n = recv(fd, rp, sizeof(*rp), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*rp) || rp->magic != LCP_SB_MAGIC)
		goto gone;
	close(fd);
	return rp->rc;
gone:
	e = errno;
	close(fd);
	if (!atomic_exchange(&said, 1))
		lcp_say("the sandbox's writer does not answer at %s (%s): "
		        "the clock cannot be set",
		        path, strerror(e));
	return -EPERM;
}

int lcp_sb_settime(int64_t sec, int64_t nsec)
{
	struct lcp_sb_req rq;
	struct lcp_sb_rep rp;
	int rc;

	memset(&rq, 0, sizeof(rq));
	rq.magic = LCP_SB_MAGIC;
	rq.op = LCP_SB_SETTIME;
	rq.sec = sec;
	rq.nsec = nsec;
	rc = sb_call(&rq, &rp);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int lcp_sb_adjtimex(struct timex *tx)
{
	struct lcp_sb_req rq;
	struct lcp_sb_rep rp;
	int rc;

	if (lcp_null(tx)) {
		errno = EFAULT;
		return -1;
	}
	memset(&rq, 0, sizeof(rq));
	rq.magic = LCP_SB_MAGIC;
	rq.op = LCP_SB_ADJTIMEX;
	lcp_sb_to_lc(&rq.tx, tx);
	rc = sb_call(&rq, &rp);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	lcp_sb_from_lc(tx, &rp.tx);
	return rc;
}
