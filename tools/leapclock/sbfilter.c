/*
 * sbfilter.c - the time sandbox's seccomp filter (sbfilter.h).
 *
 * The filter: on the native architecture, clock_settime, settimeofday,
 * adjtimex and clock_adjtime go to the listener; everything else runs.
 * Another ABI's calls (x32, i386 on x86_64) run too and meet the kernel
 * without CAP_SYS_TIME: EPERM for a set, a read of the host's state for
 * adjtimex modes 0.
 *
 * The writer answers each call as Linux answers it, with the sandbox's
 * clock in place of the host's (the shim's rules, preload/clock.c and
 * preload/ntp.c): clock_settime sets CLOCK_REALTIME only (others EINVAL),
 * settimeofday with a timezone is EPERM (the kernel's timezone is the
 * host's), clock_adjtime(CLOCK_TAI) is EOPNOTSUPP, clock_adjtime of
 * another clock reads the host's (modes 0) or is EPERM. Arguments are
 * read from, and results written to, the caller's memory with
 * process_vm_readv/writev (the writer is the program's ancestor and runs
 * as its user); memory that cannot be read is EFAULT, as Linux.
 */
#define _GNU_SOURCE

#include "sbfilter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define SBF_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && !defined(__ILP32__)
#define SBF_ARCH AUDIT_ARCH_AARCH64
#endif

#if defined(SBF_ARCH) && defined(SECCOMP_FILTER_FLAG_NEW_LISTENER) && \
	defined(SECCOMP_IOCTL_NOTIF_RECV) && defined(SECCOMP_USER_NOTIF_FLAG_CONTINUE)

#define SBF_LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SBF_TO_NOTIFY(nr, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (skip), 0)

int lc_sbf_install(void)
{
	struct sock_filter f[] = {
		SBF_LD(offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBF_ARCH, 0, 5),
		SBF_LD(offsetof(struct seccomp_data, nr)),
		SBF_TO_NOTIFY(__NR_clock_settime, 4),
		SBF_TO_NOTIFY(__NR_settimeofday, 3),
		SBF_TO_NOTIFY(__NR_adjtimex, 2),
		SBF_TO_NOTIFY(__NR_clock_adjtime, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
	long fd;

	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	             SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0 && errno == EACCES) {
		/* without CAP_SYS_ADMIN a filter needs no_new_privs */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			return -errno;
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		             SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	}
	return fd < 0 ? -errno : (int)fd;
}

/* the caller's memory: 0 or -EFAULT */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };

	if (addr == 0)
		return -EFAULT;
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -EFAULT;
}

static int poke(pid_t pid, uint64_t addr, const void *buf, size_t n)
{
	struct iovec l = { (void *)buf, n }, r = { (void *)(uintptr_t)addr, n };

	if (addr == 0)
		return -EFAULT;
	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0
	                                                             : -EFAULT;
}

/* The call still waits for our answer (its memory is still its own). */
static int still_valid(int nfd, uint64_t id)
{
	return ioctl(nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* adjtimex/clock_adjtime(CLOCK_REALTIME) on the sandbox's clock */
static int do_adjtimex(int nfd, const struct seccomp_notif *rq,
                       uint64_t addr, const struct lc_sbf_ops *ops)
{
	struct timex tx;
	int rc;

	if (peek(rq->pid, addr, &tx, sizeof(tx)) < 0)
		return -EFAULT;
	if (!still_valid(nfd, rq->id))
		return -ESRCH;
	rc = ops->adjtimex(ops->ctx, &tx);
	if (rc >= 0 && poke(rq->pid, addr, &tx, sizeof(tx)) < 0)
		return -EFAULT;
	return rc;
}

static int do_settime(int nfd, const struct seccomp_notif *rq,
                      const struct lc_sbf_ops *ops)
{
	const __u64 *a = rq->data.args;

	if (rq->data.nr == __NR_clock_settime) {
		struct timespec ts;

		if ((clockid_t)a[0] != CLOCK_REALTIME)
			return -EINVAL; /* Linux: no clock_set but REALTIME's */
		if (peek(rq->pid, a[1], &ts, sizeof(ts)) < 0)
			return -EFAULT;
		if (!still_valid(nfd, rq->id))
			return -ESRCH;
		return ops->settime(ops->ctx, (int64_t)ts.tv_sec,
		                    (int64_t)ts.tv_nsec);
	} else {
		struct timeval tv;
		struct timezone tz;

		if (a[0] != 0 && peek(rq->pid, a[0], &tv, sizeof(tv)) < 0)
			return -EFAULT;
		if (a[0] != 0 && (tv.tv_usec < 0 || tv.tv_usec >= 1000000))
			return -EINVAL;
		if (a[1] != 0)
			return peek(rq->pid, a[1], &tz, sizeof(tz)) < 0 ? -EFAULT
			                                                : -EPERM;
		if (a[0] == 0)
			return 0;
		if (!still_valid(nfd, rq->id))
			return -ESRCH;
		return ops->settime(ops->ctx, (int64_t)tv.tv_sec,
		                    (int64_t)tv.tv_usec * 1000);
	}
}

static const char *sbf_name(int nr)
{
	return nr == __NR_clock_settime  ? "clock_settime"
	       : nr == __NR_settimeofday ? "settimeofday"
	       : nr == __NR_adjtimex     ? "adjtimex"
	                                 : "clock_adjtime";
}

int lc_sbf_serve(int nfd, const struct lc_sbf_ops *ops)
{
	struct seccomp_notif rq;
	struct seccomp_notif_resp rp;
	static struct seccomp_notif_sizes sz;
	const __u64 *a = rq.data.args;
	int rc;

	if (sz.seccomp_notif == 0 &&
	    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return -1;
	/* a kernel whose structures outgrew ours would write past them */
	if (sz.seccomp_notif > sizeof(rq) || sz.seccomp_notif_resp > sizeof(rp))
		return -1;
	memset(&rq, 0, sizeof(rq));
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &rq) != 0)
		/* ENOENT: the caller was killed meanwhile */
		return errno == ENOENT || errno == EINTR ? 0 : -1;
	memset(&rp, 0, sizeof(rp));
	rp.id = rq.id;
	switch (rq.data.nr) {
	case __NR_clock_settime:
	case __NR_settimeofday:
		rc = do_settime(nfd, &rq, ops);
		break;
	case __NR_adjtimex:
		rc = do_adjtimex(nfd, &rq, a[0], ops);
		break;
	case __NR_clock_adjtime:
		if ((clockid_t)a[0] == CLOCK_REALTIME) {
			rc = do_adjtimex(nfd, &rq, a[1], ops);
		} else if ((clockid_t)a[0] == CLOCK_TAI) {
			rc = -EOPNOTSUPP; /* Linux: CLOCK_TAI has no clock_adj */
		} else {
			unsigned int modes;

			/* another clock (a PTP device...): the host's, read
			 * only, as the shim */
			rc = peek(rq.pid, a[1], &modes, sizeof(modes));
			if (rc == 0 && modes != 0)
				rc = -EPERM;
			else if (rc == 0)
				rp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		}
		break;
	default:
		rc = -ENOSYS; /* not in the filter */
		break;
	}
	if (ops->debug)
		fprintf(stderr, "leapclock run: sandbox: raw %s from pid %d -> %s%d\n",
		        sbf_name((int)rq.data.nr), (int)rq.pid,
		        rp.flags ? "the kernel's, " : "", rc);
	if (rp.flags == 0) {
		if (rc < 0)
			rp.error = rc;
		else
			rp.val = rc;
	}
	/* ENOENT: the caller is gone; nothing to answer */
	ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &rp);
	return 0;
}

#else /* no user notification here: raw calls meet the kernel (EPERM) */

int lc_sbf_install(void)
{
	return -ENOSYS;
}

int lc_sbf_serve(int nfd, const struct lc_sbf_ops *ops)
{
	(void)nfd;
	(void)ops;
	return -1;
}

#endif

void lc_sbf_send(int sock, int fd_or_err)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr m;
	struct iovec v = { &fd_or_err, sizeof(fd_or_err) };

	memset(&m, 0, sizeof(m));
	memset(cbuf, 0, sizeof(cbuf));
	m.msg_iov = &v;
	m.msg_iovlen = 1;
	if (fd_or_err >= 0) {
		struct cmsghdr *c;

		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd_or_err, sizeof(int));
	}
	while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

int lc_sbf_recv(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr m;
	struct cmsghdr *c;
	int val = -EIO, fd = -1;
	struct iovec v = { &val, sizeof(val) };
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &v;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(val))
		return -EIO; /* the child died before it said */
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (val >= 0)
		return fd >= 0 ? fd : -EIO;
	if (fd >= 0)
		close(fd);
	return val;
}
