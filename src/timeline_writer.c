/*
 * timeline_writer.c - the page's writer (leapclockd): create or continue
 * the page, seal it, hand it out on PATH.sock, publish, heartbeat. See
 * timeline.h and DESIGN.md section 8.
 */
#define _GNU_SOURCE
#include "timeline.h"
#include "tk_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- the writer ------------------------------------------------------------ */

struct lc__tl_writer {
	lc_timekeeper *tk;
	struct lc__tl_page *pg; /* the memfd, mapped writable */
	int fd;                 /* the discovery file at path, locked */
	int mfd;                /* the page's memfd, sealed */
	int lsock;              /* PATH.sock */
	int resumed;
	int srv_running;
	pid_t srv_pid;          /* the process the server thread runs in */
	pthread_t thread;
	_Atomic int stop;
	struct lc__tl_status st;
	struct lc__tl_table tab; /* the last published */
	struct lc__tl_rel rel;   /* the last published relation */
	int rel_have;            /* rel holds a sample */
	char path[256];
};

static void fill_table(const lc_leaptable *t, struct lc__tl_table *out)
{
	size_t n = lc_leaptable_count(t);
	struct lc_leap l;

	memset(out, 0, sizeof(*out));
	if (n > LC__TL_MAX_LEAPS)
		n = LC__TL_MAX_LEAPS;
	for (size_t i = 0; i < n; i++) {
		lc_leaptable_get(t, i, &l);
		out->rows[i].when = l.when;
		out->rows[i].tai_utc = l.tai_utc;
		out->rows[i].dir = l.dir;
	}
	out->count = (int64_t)n;
}

static void write_status(struct lc__tl_writer *w, const char *smear,
                         const char *note)
{
	const lc_leaptable *t = lc_tk_table(w->tk);
	struct lc_leaptable_info info;
	struct lc_tk_host h;
	struct lc__tl_table tab;

	fill_table(t, &tab);
	lc_leaptable_info(t, &info);
	/* A new generation for new rows, and for the same rows renewed (a
	 * later expiry: the twice-yearly update), which readers must see
	 * too (lc_leaptable_expired). */
	if (memcmp(&tab, &w->tab, sizeof(tab)) != 0 ||
	    info.expires != w->st.table_expires ||
	    info.updated != w->st.table_updated ||
	    (int64_t)info.hash != w->st.table_hash ||
	    strncmp(info.source, w->st.table_source,
	            sizeof(w->st.table_source) - 1) != 0) {
		if (memcmp(&tab, &w->tab, sizeof(tab)) != 0) {
			w->tab = tab;
			lc__tl_write_table(w->pg, &tab);
		}
		w->st.table_gen++;
	}
	w->st.table_format = info.format;
	w->st.table_hash = info.hash;
	w->st.table_updated = info.updated;
	w->st.table_expires = info.expires;
	snprintf(w->st.table_source, sizeof(w->st.table_source), "%s",
	         info.source);
	if (smear != NULL)
		snprintf(w->st.smear, sizeof(w->st.smear), "%s", smear);
	if (note != NULL)
		snprintf(w->st.table_note, sizeof(w->st.table_note), "%s", note);
	if (lc_tk_host_status(w->tk, &h) == 0) {
		w->st.host_state = h.state;
		w->st.host_offset_ns = h.offset_ns;
		w->st.host_steer_ppb = h.steer_ppb;
		w->st.host_steps = (int64_t)h.steps;
		w->st.host_leap = h.host_leap;
		w->st.host_detected = h.detected;
		w->st.host_hold_ns = h.hold_ns;
		snprintf(w->st.host_leap_text, sizeof(w->st.host_leap_text),
		         "%s", h.host_leap_text);
		snprintf(w->st.host_detected_text,
		         sizeof(w->st.host_detected_text), "%s",
		         h.detected_text);
	} else {
		w->st.host_state = LC_HOST_NOT_FOLLOWED;
		w->st.host_leap = h.host_leap;
		snprintf(w->st.host_leap_text, sizeof(w->st.host_leap_text),
		         "%s", h.host_leap_text);
	}
	w->st.last_update_rt = lc_now_ns(w->tk, LC_CLOCK_REALTIME);
	lc__tl_write_status(w->pg, &w->st);
}

/* Maps the page memfd writable. */
static struct lc__tl_page *map_rw(int fd)
{
	void *p = mmap(NULL, sizeof(struct lc__tl_page), PROT_READ | PROT_WRITE,
	               MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Writes the whole page image to the discovery file with pwrite (never a
 * mapping: a file shrunk or a full filesystem is an error here, not a
 * SIGBUS). */
static int write_copy(int fd, const struct lc__tl_page *pg)
{
	const char *p = (const char *)pg;
	size_t done = 0;

	while (done < sizeof(*pg)) {
		ssize_t n = pwrite(fd, p + done, sizeof(*pg) - done,
		                   (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* The discovery file at path, if one is there: opened and locked (the
 * lock is how a restarting writer knows the previous one is gone), and a
 * copy of its page read with pread into *copy if it is one this writer can
 * continue (same boot, ABI, counter). Returns the fd, -1 if there is no
 * file to take, or -2 (LC_EBUSY in *err) if another writer holds it. */
static int take_existing(const char *path, lc_timekeeper *tk,
                         const char *boot, struct lc_error *err,
                         struct lc__tl_page *copy, int *valid)
{
	const lc_counter *c = lc_tk_counter(tk);
	struct stat st;
	ssize_t n;
	int fd;

	*valid = 0;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		long pid = 0;

		if (pread(fd, copy, sizeof(*copy), 0) == (ssize_t)sizeof(*copy))
			pid = (long)atomic_load(&copy->writer_pid);
		close(fd);
		lc__error(err, LC_EBUSY, path, 0,
		          "another writer (pid %ld) holds the timeline", pid);
		return -2;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    lc__tl_check_owner(&st, "the page", path, NULL) < 0) {
		close(fd);
		return -1;
	}
	n = pread(fd, copy, sizeof(*copy), 0);
	if (n == (ssize_t)sizeof(*copy) &&
	    lc__tl_validate(copy, sizeof(*copy), boot, NULL) == 0 &&
	    copy->counter_kind == (uint32_t)lc_counter_kind(c) &&
	    copy->counter_freq == c->freq &&
	    (copy->counter_kind != LC_COUNTER_SYSTEM ||
	     copy->counter_clk == (int32_t)c->clk))
		*valid = 1;
	return fd;
}

/* The page itself: a memfd, its space reserved, mapped writable by us,
 * then sealed against shrinking, growing and any new writable mapping
 * (F_SEAL_FUTURE_WRITE), so that nothing done to a file can take it from
 * under a reader. Returns the memfd or -1 (errno). */
static int page_memfd(struct lc__tl_page **pgp)
{
	int fd = (int)syscall(SYS_memfd_create, "leapclock-timeline",
	                      MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int e;

	*pgp = NULL;
	if (fd < 0)
		return -1;
	if (ftruncate(fd, sizeof(struct lc__tl_page)) < 0 ||
	    (e = posix_fallocate(fd, 0, sizeof(struct lc__tl_page))) != 0 ||
	    (*pgp = map_rw(fd)) == NULL) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int page_seal(int fd)
{
	return fcntl(fd, F_ADD_SEALS,
	             F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE |
	                     F_SEAL_SEAL);
}

/*
 * The page's counter against the host's CLOCK_MONOTONIC (ABI 4), for a
 * page on another counter (CLOCK_MONOTONIC_RAW in a declared host mode):
 * at each tick the tightest of three (counter, MONOTONIC, counter) reads,
 * the rate since the last sample (100 ms at least: ticks closer than that
 * keep it), and the mode's margin. `gen` moves when the relation moved
 * (timeline.h). A page on CLOCK_MONOTONIC keeps its zero relation, the
 * identity.
 */
static void write_rel(struct lc__tl_writer *w)
{
	const lc_counter *c = lc_tk_counter(w->tk);
	const struct lc_tk_config *cfg = &w->tk->cfg;
	struct lc__tl_rel r = w->rel;
	int64_t best = INT64_MAX, cns = 0, mono = 0, margin;
	int moved = !w->rel_have;

	if (lc__tl_is_host_mono(w->pg))
		return;
	for (int i = 0; i < 3; i++) {
		int64_t a = lc__tl_counter_ns(w->pg, lc__counter_read(c));
		int64_t m = lc__tl_host_ns(CLOCK_MONOTONIC);
		int64_t b = lc__tl_counter_ns(w->pg, lc__counter_read(c));

		if (b - a < best) {
			best = b - a;
			cns = a + (b - a) / 2;
			mono = m;
		}
	}
	margin = lc__tl_rel_margin(cfg->host_leap, cfg->host_slew_ppb,
	                           cfg->host_smear);
	if (w->rel_have) {
		int64_t period = cns - w->rel.counter_ns, pred, off;

		if (period < 100000000)
			return; /* too close to measure a rate: keep it */
		r.rate_ppb = (int64_t)(((__int128)(mono - w->rel.mono_ns) -
		                        period) *
		                       LC__NS / period);
		pred = w->rel.mono_ns + period +
		       (int64_t)((__int128)period * w->rel.rate_ppb / LC__NS);
		off = mono - pred;
		moved = off > LC__TL_REL_MOVE_NS || off < -LC__TL_REL_MOVE_NS ||
		        r.rate_ppb - w->rel.rate_ppb > LC__TL_REL_MOVE_PPB ||
		        w->rel.rate_ppb - r.rate_ppb > LC__TL_REL_MOVE_PPB ||
		        margin != w->rel.margin_ppb;
		r.period_ns = period;
	}
	r.gen += moved;
	r.counter_ns = cns;
	r.mono_ns = mono;
	r.margin_ppb = margin;
	lc__tl_write_rel(w->pg, &r);
	w->rel = r;
	w->rel_have = 1;
}

/* The page's head, as a new page has it. */
static void page_head(struct lc__tl_page *pg, lc_timekeeper *tk,
                      const char *boot, uint64_t flags)
{
	const lc_counter *c = lc_tk_counter(tk);

	pg->magic = LC__TL_MAGIC;
	pg->abi = LC__TL_ABI;
	pg->size = sizeof(*pg);
	pg->counter_kind = (uint32_t)lc_counter_kind(c);
	pg->counter_clk = (int32_t)c->clk;
	pg->counter_freq = c->freq;
	snprintf(pg->boot_id, sizeof(pg->boot_id), "%s", boot);
	pg->flags = flags;
	atomic_store(&pg->heartbeat, lc__tl_host_ns(CLOCK_MONOTONIC));
}

/* The discovery file, written whole under a temporary name (its space
 * reserved first) and renamed into place. Returns the fd (locked) or an
 * error naming the path; nothing is left behind on failure. */
static int create_file(const char *path, const struct lc__tl_page *pg,
                       struct lc_error *err)
{
	char tmp[300];
	int fd, e;

	snprintf(tmp, sizeof(tmp), "%s.new.%ld", path, (long)getpid());
	unlink(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return lc__error(err, LC_EIO, path, 0, "cannot create %s: %s",
		                 tmp, strerror(errno));
	e = posix_fallocate(fd, 0, sizeof(*pg));
	if (e == 0 && (fchmod(fd, 0644) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 ||
	               write_copy(fd, pg) < 0))
		e = errno;
	if (e == 0 && rename(tmp, path) < 0)
		e = errno;
	if (e != 0) {
		close(fd);
		unlink(tmp);
		return lc__error(err, LC_EIO, path, 0, "cannot write the page: %s",
		                 strerror(e));
	}
	return fd;
}

/* Hands the memfd to each reader that connects (SCM_RIGHTS), until the
 * writer closes. */
static void *serve(void *arg)
{
	struct lc__tl_writer *w = arg;

	for (;;) {
		char one = 'T';
		struct iovec iov = { &one, 1 };
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} u;
		struct msghdr mh;
		struct cmsghdr *cm;
		int c = accept4(w->lsock, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (atomic_load(&w->stop))
				break;
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				struct timespec d = { 0, 10000000 };

				lc__host.clock_nanosleep(CLOCK_MONOTONIC, 0,
				                         &d, NULL);
				continue;
			}
			break;
		}
		memset(&mh, 0, sizeof(mh));
		memset(&u, 0, sizeof(u));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = u.b;
		mh.msg_controllen = sizeof(u.b);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &w->mfd, sizeof(int));
		(void)sendmsg(c, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(c);
	}
	return NULL;
}

static int start_server(struct lc__tl_writer *w)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, serve, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	w->srv_pid = getpid();
	w->srv_running = rc == 0;
	return rc == 0 ? 0 : -1;
}

/* The listening socket beside the page, bound under a temporary name and
 * renamed into place; connectable by every user (they read the host's
 * time), the folder being writable only by the writer. */
static int open_socket(const char *path, struct lc_error *err)
{
	struct sockaddr_un sa, tmp;
	socklen_t len, tlen;
	int s;

	if (lc__tl_sock_path(path, &sa, &len) < 0)
		return lc__error(err, LC_EINVAL, path, 0,
		                 "too long for its socket (%s.sock)", path);
	memcpy(&tmp, &sa, sizeof(tmp));
	if ((size_t)snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.%ld",
	                     sa.sun_path, (long)getpid()) >=
	    sizeof(tmp.sun_path))
		return lc__error(err, LC_EINVAL, path, 0,
		                 "too long for its socket (%s.sock)", path);
	tlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	                   strlen(tmp.sun_path) + 1);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return lc__error(err, LC_EIO, path, 0, "socket: %s",
		                 strerror(errno));
	unlink(tmp.sun_path);
	if (bind(s, (struct sockaddr *)&tmp, tlen) < 0 ||
	    chmod(tmp.sun_path, 0666) < 0 || listen(s, 64) < 0 ||
	    rename(tmp.sun_path, sa.sun_path) < 0) {
		int e = errno;

		close(s);
		unlink(tmp.sun_path);
		return lc__error(err, LC_EIO, path, 0, "socket %s: %s",
		                 sa.sun_path, strerror(e));
	}
	(void)len;
	return s;
}

/* The page's folder: its last component made if missing (0755, as
 * systemd's RuntimeDirectory would), then checked. */
static int make_folder(const char *path, struct lc_error *err)
{
	char dir[256];
	const char *slash = strrchr(path, '/');

	if (slash != NULL && slash != path &&
	    (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		if (mkdir(dir, 0755) == 0)
			chmod(dir, 0755);
	}
	return lc__tl_check_folder(path, err);
}

/* A new writer on page pg: a restarted writer continues the page's
 * status, its table generation above all (readers compare generations,
 * so a table changed while no writer ran must count as a change). */
static struct lc__tl_writer *writer_new(lc_timekeeper *tk,
                                        struct lc__tl_page *pg, int resumed)
{
	struct lc__tl_writer *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->tk = tk;
	w->pg = pg;
	w->fd = -1;
	w->mfd = -1;
	w->lsock = -1;
	w->resumed = resumed;
	if (resumed) {
		/* the page's table too: the generation moves only if ours
		 * differs from it */
		lc__tl_read_status(pg, &w->st);
		lc__tl_read_table(pg, &w->tab);
		/* the relation's generation goes on (readers compare it) */
		lc__tl_read_rel(pg, &w->rel);
		w->rel_have = w->rel.mono_ns != 0;
	} else {
		w->st.table_gen = 1; /* what the first write_status publishes */
		w->tab.count = -1;
	}
	atomic_fetch_add(&pg->writer_starts, 1);
	atomic_store(&pg->writer_pid, (int64_t)getpid());
	w->st.writer_start_rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
	return w;
}

static void writer_free(struct lc__tl_writer *w, const char *path)
{
	if (w->srv_running && w->srv_pid == getpid()) {
		atomic_store(&w->stop, 1);
		shutdown(w->lsock, SHUT_RDWR); /* wakes accept() */
		pthread_join(w->thread, NULL);
	}
	if (w->lsock >= 0)
		close(w->lsock);
	if (path != NULL) {
		struct sockaddr_un sa;
		socklen_t len;

		if (lc__tl_sock_path(path, &sa, &len) == 0)
			unlink(sa.sun_path);
	}
	if (w->pg != NULL)
		munmap(w->pg, sizeof(*w->pg));
	if (w->mfd >= 0)
		close(w->mfd);
	if (w->fd >= 0)
		close(w->fd); /* releases the flock */
	free(w);
}

int lc__tl_writer_open(struct lc__tl_writer **out, const char *path,
                       lc_timekeeper *tk, uint64_t flags, const char *smear,
                       struct lc_error *err)
{
	struct lc__tl_writer *w;
	struct lc__tl_page *pg = NULL, *copy;
	char boot[LC__TL_BOOT_ID];
	int fd, mfd, rc, valid = 0, resumed = 0;

	if (out == NULL || path == NULL || tk == NULL || path[0] == '\0' ||
	    strlen(path) >= 250)
		return lc__error(err, LC_EINVAL, path ? path : "timeline", 0,
		                 "bad timeline path");
	if (lc_counter_kind(lc_tk_counter(tk)) == LC_COUNTER_SIM)
		return lc__error(err, LC_EINVAL, path, 0,
		                 "a simulated counter cannot be shared");
	rc = make_folder(path, err);
	if (rc < 0)
		return rc;
	copy = calloc(1, sizeof(*copy));
	if (copy == NULL)
		return LC_ENOMEM;
	lc__tl_boot_id(boot);
	fd = take_existing(path, tk, boot, err, copy, &valid);
	if (fd == -2) {
		free(copy);
		return LC_EBUSY;
	}
	mfd = page_memfd(&pg);
	if (mfd < 0) {
		rc = lc__error(err, LC_EIO, path, 0, "cannot make the page "
		               "(memfd): %s", strerror(errno));
		goto fail_copy;
	}
	/* Continue the previous writer's timeline from its copy (the same
	 * flags only): lc__tk_resume() declines within a second of a leap;
	 * wait it out (the old snapshot is exact there on its own). */
	if (valid && copy->flags == flags) {
		rc = LC_EBUSY;
		memcpy(pg, copy, sizeof(*pg));
		for (int i = 0; i < 50 && rc == LC_EBUSY; i++) {
			rc = lc__tk_resume(tk, &copy->latch, &pg->latch);
			if (rc == LC_EBUSY) {
				struct timespec d = { 0, 100000000 };

				lc__host.clock_nanosleep(CLOCK_MONOTONIC, 0,
				                         &d, NULL);
			}
		}
		resumed = rc >= 0;
	}
	if (!resumed) {
		memset(pg, 0, sizeof(*pg));
		page_head(pg, tk, boot, flags);
		/* The snapshot, the table and the status before any reader
		 * can have the page. */
		lc__tk_publish_to(tk, &pg->latch);
	}
	atomic_store(&pg->heartbeat, lc__tl_host_ns(CLOCK_MONOTONIC));
	w = writer_new(tk, pg, resumed);
	if (w == NULL) {
		munmap(pg, sizeof(*pg));
		close(mfd);
		rc = LC_ENOMEM;
		goto fail_copy;
	}
	w->mfd = mfd;
	snprintf(w->path, sizeof(w->path), "%s", path);
	write_rel(w);
	write_status(w, smear, "");
	if (page_seal(mfd) < 0) {
		rc = lc__error(err, LC_EIO, path, 0, "cannot seal the page: %s",
		               strerror(errno));
		goto fail_w;
	}
	/* The socket before the file: a reader that finds the file finds
	 * its writer answering. */
	w->lsock = open_socket(path, err);
	if (w->lsock < 0) {
		rc = w->lsock;
		w->lsock = -1;
		goto fail_w;
	}
	if (start_server(w) < 0) {
		rc = lc__error(err, LC_EIO, path, 0, "cannot start its server");
		goto fail_sock;
	}
	if (fd >= 0 && write_copy(fd, pg) == 0) {
		w->fd = fd;
		fd = -1;
	} else {
		if (fd >= 0)
			close(fd);
		fd = -1;
		w->fd = create_file(path, pg, err);
		if (w->fd < 0) {
			rc = w->fd;
			w->fd = -1;
			goto fail_sock;
		}
	}
	free(copy);
	*out = w;
	return 0;
fail_sock:
	writer_free(w, path);
	goto fail_copy_only;
fail_w:
	writer_free(w, NULL);
fail_copy_only:
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc;
fail_copy:
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc;
}

void lc__tl_writer_tick(struct lc__tl_writer *w, const char *smear,
                        const char *note)
{
	if (w == NULL)
		return;
	/* A writer that forked (daemonised) after taking the page: its
	 * server thread stayed in the parent, and the page names the
	 * parent. */
	if (w->srv_pid != getpid()) {
		atomic_store(&w->pg->writer_pid, (int64_t)getpid());
		start_server(w);
	}
	write_rel(w);
	write_status(w, smear, note);
	atomic_store_explicit(&w->pg->heartbeat, lc__tl_host_ns(CLOCK_MONOTONIC),
	                      memory_order_release);
	/* The discovery file's copy: a failure (a full filesystem, a file
	 * shrunk) costs only that copy, never the page. */
	(void)write_copy(w->fd, w->pg);
}

struct lc__tl_page *lc__tl_writer_page(struct lc__tl_writer *w)
{
	return w->pg;
}

int lc__tl_writer_resumed(const struct lc__tl_writer *w)
{
	return w->resumed;
}

void lc__tl_writer_close(struct lc__tl_writer *w)
{
	if (w == NULL)
		return;
	atomic_store(&w->pg->writer_pid, 0);
	(void)write_copy(w->fd, w->pg);
	writer_free(w, w->path);
}
