/*
 * timeline_reader.c - a reader of the page: get the sealed memfd from its
 * writer, map and check it, and read it (its table, a restarted writer's
 * page, the fall back in-process once it is stale). See timeline.h.
 */
#define _GNU_SOURCE
#include "timeline.h"

#include "leaptable_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- readers ------------------------------------------------------------------- */

/* Asks the writer at PATH.sock for the page: its memfd, from a peer that
 * is root or us. */
static int get_page_fd(const char *path, struct lc_error *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct timeval tv = { 2, 0 };
	struct ucred cr;
	socklen_t crl = sizeof(cr);
	char one;
	struct iovec iov = { &one, 1 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr mh;
	struct cmsghdr *cm;
	struct stat st;
	ssize_t n;
	int s, fd = -1;

	if (lc__tl_sock_path(path, &sa, &len) < 0)
		return lc__error(err, LC_EINVAL, path, 0,
		                 "too long for its socket (%s.sock)", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return lc__error(err, LC_EIO, path, 0, "socket: %s",
		                 strerror(errno));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sa, len) < 0) {
		int e = errno;

		close(s);
		if (e == ENOENT && lstat(path, &st) < 0 && errno == ENOENT)
			return lc__error(err, LC_ENOENT, path, 0, "%s",
			                 strerror(ENOENT));
		if (e == ENOENT || e == ECONNREFUSED)
			return lc__error(err, LC__TL_EGONE, path, 0,
			                 "its writer is gone (nobody answers on "
			                 "%s): a page left behind",
			                 sa.sun_path);
		return lc__error(err, LC_EIO, path, 0, "connect %s: %s",
		                 sa.sun_path, strerror(e));
	}
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &crl) < 0 ||
	    (cr.uid != 0 && cr.uid != geteuid())) {
		close(s);
		return lc__error(err, LC_EPERM, path, 0,
		                 "%s is served by uid %ld, neither root nor us",
		                 sa.sun_path, (long)cr.uid);
	}
	memset(&mh, 0, sizeof(mh));
	memset(&u, 0, sizeof(u));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.b;
	mh.msg_controllen = sizeof(u.b);
	do
		n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	close(s);
	cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (cm != NULL && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fd < 0 || (mh.msg_flags & MSG_CTRUNC)) {
		if (fd >= 0)
			close(fd);
		return lc__error(err, LC__TL_EGONE, path, 0,
		                 "its writer did not hand over the page on %s",
		                 sa.sun_path);
	}
	return fd;
}

int lc__tl_map_open(struct lc__tl_map *m, const char *path, int allow_pretend,
                    struct lc_error *err)
{
	const int need = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE;
	char boot[LC__TL_BOOT_ID];
	struct stat st;
	void *p;
	int fd, rc, seals;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (path == NULL || strlen(path) >= sizeof(m->path))
		return lc__error(err, LC_EINVAL, "timeline", 0, "bad path");
	snprintf(m->path, sizeof(m->path), "%s", path);
	rc = lc__tl_check_folder(path, err);
	if (rc < 0)
		return rc;
	fd = get_page_fd(path, err);
	if (fd < 0)
		return fd;
	/* Only a page nobody can shrink, grow or map writable: never a
	 * file that anyone could truncate under our mapping. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & need) != need) {
		close(fd);
		return lc__error(err, LC_EPERM, path, 0,
		                 "its writer handed over a page that is not "
		                 "sealed (seals %#x)", seals < 0 ? 0 : seals);
	}
	if (fstat(fd, &st) < 0 ||
	    st.st_size != (off_t)sizeof(struct lc__tl_page)) {
		close(fd);
		return lc__error(err, LC_EINVAL, path, 0,
		                 "%lld bytes, a page of this version has %zu",
		                 (long long)st.st_size,
		                 sizeof(struct lc__tl_page));
	}
	p = mmap(NULL, sizeof(struct lc__tl_page), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return lc__error(err, LC_EIO, path, 0, "mmap: %s",
		                 strerror(errno));
	}
	lc__tl_boot_id(boot);
	rc = lc__tl_validate(p, sizeof(struct lc__tl_page), boot, err);
	if (rc == 0 && !allow_pretend &&
	    (((const struct lc__tl_page *)p)->flags & LC__TLF_PRETEND))
		rc = lc__error(err, LC_EPERM, path, 0,
		               "a rehearsal (--pretend) page at the host's path");
	if (rc < 0) {
		if (err != NULL)
			snprintf(err->where, sizeof(err->where), "%s", path);
		munmap(p, sizeof(struct lc__tl_page));
		close(fd);
		return rc;
	}
	m->pg = p;
	m->size = sizeof(struct lc__tl_page);
	m->fd = fd;
	return 0;
}

void lc__tl_map_close(struct lc__tl_map *m)
{
	if (m->pg != NULL)
		munmap((void *)(uintptr_t)m->pg, m->size);
	if (m->fd >= 0)
		close(m->fd);
	m->pg = NULL;
	m->fd = -1;
}

/* ---- a page reader ----------------------------------------------------------- */

/* lc_update() of a page reader: the table if the writer changed it, a
 * restarted writer's page, and the fall back in-process once the page is
 * stale. */
static void reader_check(lc_timekeeper *tk, void *arg);

/* A page whose writer stopped (closed, or no heartbeat for 2 s): a writer
 * restarted on the path publishes a new page that continues this one's
 * timeline (lc__tk_resume), and readers move onto it, tried at most once a
 * second. The old mapping stays (a reader in another thread may be inside
 * its latch); it is one page per writer restart. */
static void reader_rejoin(lc_timekeeper *tk, struct lc__tl_reader *r,
                          int64_t age)
{
	const struct lc__tl_page *old = r->map.pg;
	int64_t now = lc__tl_host_ns(CLOCK_MONOTONIC);
	struct lc__tl_map m;
	struct stat a, b;

	if (age < 2 * LC__NS && atomic_load(&old->writer_pid) != 0)
		return;
	if (r->rejoin_mono != 0 && now - r->rejoin_mono < LC__NS)
		return;
	r->rejoin_mono = now;
	if (lc__tl_map_open(&m, r->map.path, 1, NULL) < 0)
		return;
	if (fstat(m.fd, &a) < 0 || fstat(r->map.fd, &b) < 0 ||
	    (a.st_ino == b.st_ino && a.st_dev == b.st_dev) ||
	    m.pg->flags != old->flags ||
	    m.pg->counter_kind != old->counter_kind ||
	    m.pg->counter_clk != old->counter_clk ||
	    m.pg->counter_freq != old->counter_freq ||
	    lc__tl_age(m.pg) > 2 * LC__NS) {
		lc__tl_map_close(&m);
		return;
	}
	lc__tk_read_from(tk, &m.pg->latch, reader_check, r);
	close(r->map.fd); /* the old mapping stays */
	r->map = m;
	r->table_gen = INT64_MIN; /* the new page's table, at once */
}

static void reader_check(lc_timekeeper *tk, void *arg)
{
	struct lc__tl_reader *r = arg;
	const struct lc__tl_page *pg;
	struct lc__tl_status st;
	int64_t age;

	reader_rejoin(tk, r, lc__tl_age(r->map.pg));
	pg = r->map.pg;
	age = lc__tl_age(pg);
	lc__tl_read_status(pg, &st);
	if (st.table_gen != r->table_gen) {
		/* A new table object: the old one may be in use by a caller
		 * of lc_tk_table(); tables change a few times a year, so the
		 * old one is kept on r->old (reachable), not freed. */
		lc_leaptable *t = lc_leaptable_new();

		lc_leaptable **old =
		    realloc(r->old, (r->nold + 1) * sizeof(*r->old));

		if (old != NULL)
			r->old = old;
		if (t != NULL && old != NULL && lc__tl_table_into(pg, t) == 0) {
			lc__tk_set_table(tk, t);
			r->old[r->nold++] = r->table;
			r->table = t;
			r->table_gen = st.table_gen;
		} else {
			lc_leaptable_free(t);
		}
	}
	if (age > LC__TL_STALE_NS && lc__tk_resume(tk, &pg->latch, NULL) == 0) {
		r->source = LC_TIMELINE_FALLBACK;
		snprintf(r->why, sizeof(r->why),
		         "the writer (pid %ld) stopped updating %.150s %.1f s ago",
		         (long)atomic_load(&pg->writer_pid), r->map.path,
		         (double)age / 1e9);
	}
}

int lc__tl_reader_open(struct lc__tl_reader *r, const char *path,
                       int allow_pretend, struct lc_error *err)
{
	struct lc_tk_config cfg;
	struct lc__tl_status st;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = lc__tl_map_open(&r->map, path, allow_pretend, err);
	if (rc < 0)
		return rc;
	rc = lc__tl_counter(r->map.pg, &r->counter);
	if (rc < 0) {
		lc__error(err, rc, path, 0, "its counter cannot run here");
		goto fail;
	}
	r->table = lc_leaptable_new();
	if (r->table == NULL) {
		rc = LC_ENOMEM;
		goto fail;
	}
	lc__tl_read_status(r->map.pg, &st);
	lc__tl_table_into(r->map.pg, r->table);
	r->table_gen = st.table_gen;
	lc_tk_config_init(&cfg);
	cfg.table = r->table;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	/* A rehearsal runs on its own instant: carrying on from it
	 * in-process must not follow the host back to the real time. */
	cfg.follow_host = !(r->map.pg->flags & LC__TLF_PRETEND);
	if (st.smear[0] != '\0' &&
	    lc_smear_preset(st.smear, 0, &r->smear, NULL) == 0)
		cfg.smear = &r->smear;
	rc = lc__tk_new_reader(&r->tk, r->counter, &cfg, &r->map.pg->latch,
	                       reader_check, r);
	if (rc < 0)
		goto fail;
	r->source = LC_TIMELINE_PAGE;
	/* A page already stale is still this boot's timeline: carry on
	 * from its last snapshot at once (as a reader that saw it go stale
	 * does). */
	reader_check(r->tk, r);
	return 0;
fail:
	lc_leaptable_free(r->table);
	lc_counter_free(r->counter);
	lc__tl_map_close(&r->map);
	r->table = NULL;
	r->counter = NULL;
	return rc;
}
