/*
 * timeline.c - the host's timeline page: the writer's side (create or
 * continue the page, publish, heartbeat) and the readers' (map, validate,
 * fall back), and lc_default(), which chooses between the page and an
 * in-process writer. See timeline.h and DESIGN.md section 8.
 */
#define _GNU_SOURCE
#include "timeline.h"

#include "leaptable_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <poll.h>
#include <unistd.h>

#define DEFAULT_PATH "/run/leapclock/timeline"

/* ---- word latches (status, table) ------------------------------------------- */

/* The snapshot's two-copy scheme (timekeeper.h) for any block of words:
 * the writer bumps seq to odd and rewrites copy 0, bumps it to even and
 * rewrites copy 1; a reader copies copy[seq & 1] and retries if seq moved. */
static void wl_write(_Atomic uint64_t *seq, _Atomic uint64_t *copies,
                     size_t n, const void *src)
{
	uint64_t w[LC__TL_WORDS(struct lc__tl_table)];
	uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);

	memset(w, 0, n * 8);
	memcpy(w, src, n * 8);
	for (int k = 0; k < 2; k++) {
		_Atomic uint64_t *c =
			copies + (((s + 1 + (uint64_t)k) & 1) ? 0 : n);

		atomic_store_explicit(seq, s + 1 + (uint64_t)k,
		                      memory_order_release);
		for (size_t i = 0; i < n; i++)
			atomic_store_explicit(&c[i], w[i], memory_order_release);
	}
}

static void wl_read(const _Atomic uint64_t *seq, const _Atomic uint64_t *copies,
                    size_t n, void *dst)
{
	uint64_t w[LC__TL_WORDS(struct lc__tl_table)];
	uint64_t s;

	do {
		s = atomic_load_explicit(seq, memory_order_acquire);
		for (size_t i = 0; i < n; i++)
			w[i] = atomic_load_explicit(
				&copies[(s & 1) * n + i], memory_order_acquire);
	} while (atomic_load_explicit(seq, memory_order_relaxed) != s);
	memcpy(dst, w, n * 8);
}

#define ST_N LC__TL_WORDS(struct lc__tl_status)
#define TAB_N LC__TL_WORDS(struct lc__tl_table)

_Static_assert(sizeof(struct lc__tl_status) % 8 == 0, "status is words");
_Static_assert(sizeof(struct lc__tl_table) % 8 == 0, "table is words");

void lc__tl_read_status(const struct lc__tl_page *pg, struct lc__tl_status *st)
{
	wl_read(&pg->st_seq, &pg->st[0][0], ST_N, st);
	st->table_source[sizeof(st->table_source) - 1] = '\0';
	st->smear[sizeof(st->smear) - 1] = '\0';
	st->table_note[sizeof(st->table_note) - 1] = '\0';
}

void lc__tl_read_table(const struct lc__tl_page *pg, struct lc__tl_table *t)
{
	wl_read(&pg->tab_seq, &pg->tab[0][0], TAB_N, t);
	if (t->count < 0 || t->count > LC__TL_MAX_LEAPS)
		t->count = 0;
}

/* ---- small helpers ------------------------------------------------------------- */

static int64_t host_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return lc__ts_to_ns(&ts);
}

void lc__tl_boot_id(char out[LC__TL_BOOT_ID])
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	memset(out, 0, LC__TL_BOOT_ID);
	if (fd >= 0) {
		n = read(fd, out, LC__TL_BOOT_ID - 1);
		close(fd);
	}
	if (n <= 0) {
		out[0] = '\0';
		return;
	}
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* Neither the file nor its folder writable by anyone but root or us. */
static int check_owner(const struct stat *st, const char *what,
                       const char *path, struct lc_error *err)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return lc__error(err, LC_EPERM, path, 0,
		                 "%s is owned by uid %ld, neither root nor us",
		                 what, (long)st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return lc__error(err, LC_EPERM, path, 0,
		                 "%s is writable by group or others (mode %03o)",
		                 what, (unsigned)(st->st_mode & 0777));
	return 0;
}

static int check_folder(const char *path, struct lc_error *err)
{
	char dir[256];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == NULL) {
		snprintf(dir, sizeof(dir), ".");
	} else if (slash == path) {
		snprintf(dir, sizeof(dir), "/");
	} else {
		size_t n = (size_t)(slash - path);

		if (n >= sizeof(dir))
			return lc__error(err, LC_EINVAL, path, 0,
			                 "path too long");
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	if (stat(dir, &st) < 0)
		return lc__error(err, errno == ENOENT ? LC_ENOENT : LC_EIO, path,
		                 0, "folder %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return lc__error(err, LC_EINVAL, path, 0, "%s is not a folder",
		                 dir);
	return check_owner(&st, "its folder", path, err);
}

int lc__tl_validate(const void *buf, size_t len, const char *boot_id,
                    struct lc_error *err)
{
	const struct lc__tl_page *pg = buf;

	if (len < offsetof(struct lc__tl_page, st_seq))
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "truncated: %zu bytes, the page has %zu", len,
		                 sizeof(*pg));
	if (pg->magic != LC__TL_MAGIC)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "not a leapclock timeline (bad magic)");
	if (pg->abi != LC__TL_ABI)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "ABI version %u, this library reads %u", pg->abi,
		                 LC__TL_ABI);
	if (pg->size != sizeof(*pg) || len != sizeof(*pg))
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "size %u (file %zu bytes), expected %zu", pg->size,
		                 len, sizeof(*pg));
	if (pg->counter_kind != LC_COUNTER_SYSTEM &&
	    pg->counter_kind != LC_COUNTER_TSC)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "counter kind %u is not a host counter",
		                 pg->counter_kind);
	if (pg->counter_kind == LC_COUNTER_SYSTEM &&
	    pg->counter_clk != CLOCK_MONOTONIC &&
	    pg->counter_clk != CLOCK_MONOTONIC_RAW)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "counter clock %d is not a monotonic clock",
		                 pg->counter_clk);
	if (pg->counter_freq == 0 || pg->counter_freq > (UINT64_C(1) << 40))
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "counter frequency %llu Hz is implausible",
		                 (unsigned long long)pg->counter_freq);
	if (memchr(pg->boot_id, '\0', sizeof(pg->boot_id)) == NULL)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "boot id is not terminated");
	if (boot_id != NULL && boot_id[0] != '\0' &&
	    strcmp(pg->boot_id, boot_id) != 0)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "from another boot (%.36s; this is %.36s)",
		                 pg->boot_id, boot_id);
	if (pg->flags & ~(uint64_t)LC__TLF_PRETEND)
		return lc__error(err, LC_EINVAL, "timeline", 0,
		                 "unknown flags %#llx",
		                 (unsigned long long)pg->flags);
	return 0;
}

static int pid_alive(int64_t pid)
{
	if (pid <= 0 || pid > INT32_MAX)
		return 0;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

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
			wl_write(&w->pg->tab_seq, &w->pg->tab[0][0], TAB_N,
			         &tab);
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
	} else {
		w->st.host_state = LC_HOST_NOT_FOLLOWED;
	}
	w->st.last_update_rt = lc_now_ns(w->tk, LC_CLOCK_REALTIME);
	wl_write(&w->pg->st_seq, &w->pg->st[0][0], ST_N, &w->st);
}

/* Maps the page memfd writable. */
static struct lc__tl_page *map_rw(int fd)
{
	void *p = mmap(NULL, sizeof(struct lc__tl_page), PROT_READ | PROT_WRITE,
	               MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The socket beside the page: PATH.sock. */
static int sock_path(const char *path, struct sockaddr_un *sa,
                     socklen_t *len)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s.sock",
	                     path) >= sizeof(sa->sun_path))
		return -1;
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	                   strlen(sa->sun_path) + 1);
	return 0;
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
	    check_owner(&st, "the page", path, NULL) < 0) {
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
	atomic_store(&pg->heartbeat, host_ns(CLOCK_MONOTONIC));
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

				nanosleep(&d, NULL);
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

	if (sock_path(path, &sa, &len) < 0)
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
	return check_folder(path, err);
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

		if (sock_path(path, &sa, &len) == 0)
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
			if (rc == LC_EBUSY)
				usleep(100000);
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
	atomic_store(&pg->heartbeat, host_ns(CLOCK_MONOTONIC));
	w = writer_new(tk, pg, resumed);
	if (w == NULL) {
		munmap(pg, sizeof(*pg));
		close(mfd);
		rc = LC_ENOMEM;
		goto fail_copy;
	}
	w->mfd = mfd;
	snprintf(w->path, sizeof(w->path), "%s", path);
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
	write_status(w, smear, note);
	atomic_store_explicit(&w->pg->heartbeat, host_ns(CLOCK_MONOTONIC),
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

	if (sock_path(path, &sa, &len) < 0)
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
	rc = check_folder(path, err);
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

int64_t lc__tl_age(const struct lc__tl_page *pg)
{
	return host_ns(CLOCK_MONOTONIC) -
	       atomic_load_explicit(&pg->heartbeat, memory_order_acquire);
}

int lc__tl_counter(const struct lc__tl_page *pg, lc_counter **out)
{
	return lc__counter_new_kind(out, (int)pg->counter_kind,
	                            (clockid_t)pg->counter_clk,
	                            pg->counter_freq);
}

int lc__tl_table_into(const struct lc__tl_page *pg, lc_leaptable *t)
{
	struct lc__tl_table tab;
	struct lc__tl_status st;

	lc__tl_read_table(pg, &tab);
	lc__tl_read_status(pg, &st);
	if (tab.count <= 0)
		return LC_ENOENT;
	t->count = (size_t)tab.count;
	for (int64_t i = 0; i < tab.count; i++) {
		t->rows[i].when = tab.rows[i].when;
		t->rows[i].tai_utc = tab.rows[i].tai_utc;
		t->rows[i].dir = tab.rows[i].dir;
	}
	t->info.format = (int)st.table_format;
	t->info.hash = (int)st.table_hash;
	t->info.count = t->count;
	t->info.updated = st.table_updated;
	t->info.expires = st.table_expires;
	snprintf(t->info.source, sizeof(t->info.source), "%.240s (timeline)",
	         st.table_source);
	return 0;
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
	int64_t now = host_ns(CLOCK_MONOTONIC);
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
	rc = lc_tk_new(&r->tk, r->counter, &cfg);
	if (rc < 0)
		goto fail;
	lc__tk_read_from(r->tk, &r->map.pg->latch, reader_check, r);
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

/* ---- the default instance -------------------------------------------------- */

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static lc_timekeeper *default_tk;
static struct lc__tl_reader default_rd;
static lc_leaptable *default_table;
static struct lc_smear_policy default_smear;
static char default_path[256];
static int default_source;
static char default_why[256];

/* The in-process writer, as before there were pages. */
static lc_timekeeper *in_process(void)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;
	lc_counter *c;

	struct lc_error err;

	default_table = lc_leaptable_new();
	if (default_table == NULL)
		return NULL;
	/* A table the user named (LEAPCLOCK_LEAPFILE) that cannot be used is
	 * an error wherever it is named: a library cannot exit, so it says
	 * so once, as it does for a refused page, and runs on the table a
	 * new one holds (the built-in). */
	if (lc_leaptable_load_system(default_table, &err) < 0) {
		char msg[400];

		lc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "leapclock: leap table: %s; using the built-in "
		                "table\n", msg);
	}
	if (lc_counter_new_best(&c) < 0)
		return NULL;
	lc_tk_config_init(&cfg);
	cfg.table = default_table;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.follow_host = 1;
	{
		const char *sm = getenv("LEAPCLOCK_SMEAR");
		const char *rs = getenv("LEAPCLOCK_REALTIME_SMEARED");

		if (rs != NULL && *rs != '\0')
			cfg.realtime_smeared = strcmp(rs, "0") != 0;
		if ((sm == NULL || *sm == '\0') && cfg.realtime_smeared)
			sm = "utc-sls";
		if (sm != NULL && *sm != '\0' &&
		    lc_smear_preset(sm, 0, &default_smear, NULL) == 0)
			cfg.smear = &default_smear;
	}
	if (lc_tk_new(&tk, c, &cfg) < 0) {
		lc_counter_free(c);
		return NULL;
	}
	return tk;
}

/* The library's own update, once a second: a page reader checks its page,
 * an in-process writer follows the host. */
static void *updater(void *arg)
{
	struct itimerspec far;
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);

	(void)arg;
	/* Once a second, and at once when the host's REALTIME is set (a
	 * TFD_TIMER_CANCEL_ON_SET timerfd wakes us), so that an in-process
	 * timekeeper follows a host step within the wake-up's latency, not
	 * within a second: some hosts (VMs whose agent keeps the guest's
	 * clock in step with the hypervisor's) step REALTIME many times a
	 * second. */
	memset(&far, 0, sizeof(far));
	far.it_value.tv_sec = (time_t)INT32_MAX * 2;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		uint64_t x;

		if (fd >= 0 &&
		    timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
		                    &far, NULL) < 0 &&
		    errno != ECANCELED) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			/* a read failing with ECANCELED: the clock was set */
			if (poll(&p, 1, 1000) > 0) {
				ssize_t r = read(fd, &x, sizeof(x));

				(void)r;
			}
		} else {
			struct timespec d = { 1, 0 };

			clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
		}
		lc_update(default_tk);
	}
	return NULL;
}

static void start_updater(void)
{
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	pthread_create(&t, &a, updater, NULL);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void fork_prepare(void)
{
	lc__tk_lock(default_tk);
}

static void fork_parent(void)
{
	lc__tk_unlock(default_tk);
}

static void fork_child(void)
{
	lc__tk_unlock(default_tk);
	start_updater();
}

static void default_init(void)
{
	const char *env = getenv("LEAPCLOCK_TIMELINE");
	const char *path = env != NULL && *env != '\0' ? env : DEFAULT_PATH;
	struct lc_error err;
	int rc = LC_ENOENT;

	snprintf(default_path, sizeof(default_path), "%s", path);
	if (strcmp(path, "none") == 0) {
		default_path[0] = '\0';
		snprintf(default_why, sizeof(default_why),
		         "LEAPCLOCK_TIMELINE=none");
	} else {
		memset(&err, 0, sizeof(err));
		/* A rehearsal page only where the user pointed us. */
		rc = lc__tl_reader_open(&default_rd, path, env != NULL && *env != '\0',
		                 &err);
		if (rc < 0) {
			lc_error_format(&err, default_why, sizeof(default_why));
			/* No page is the normal case without leapclockd;
			 * a page refused is worth one warning. */
			if (rc != LC_ENOENT || (env != NULL && *env != '\0'))
				fprintf(stderr,
				        "leapclock: not reading the timeline: "
				        "%s; running in-process\n",
				        default_why);
		}
	}
	if (rc == 0) {
		default_tk = default_rd.tk;
		default_source = LC_TIMELINE_PAGE;
	} else {
		default_tk = in_process();
		default_source = LC_TIMELINE_IN_PROCESS;
	}
	if (default_tk == NULL)
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	start_updater();
}

lc_timekeeper *lc_default(void)
{
	pthread_once(&default_once, default_init);
	return default_tk;
}

int lc_timeline_info(const lc_timekeeper *tk, struct lc_timeline_info *out)
{
	const struct lc__tl_page *pg;
	struct lc__tl_status st;

	if (tk == NULL || out == NULL)
		return LC_EINVAL;
	memset(out, 0, sizeof(*out));
	out->table_expires = INT64_MIN;
	if (tk != default_tk) {
		out->source = LC_TIMELINE_OWN;
		return 0;
	}
	snprintf(out->path, sizeof(out->path), "%s", default_path);
	out->source = default_source;
	snprintf(out->why, sizeof(out->why), "%s", default_why);
	if (default_source != LC_TIMELINE_PAGE) {
		/* in-process: the host as this process's own writer sees it */
		struct lc_tk_host h;

		out->host_state = LC_HOST_NOT_FOLLOWED;
		if (lc_tk_host_status(tk, &h) == 0) {
			out->host_state = h.state;
			out->host_offset_ns = h.offset_ns;
			out->host_steps = h.steps;
		}
		return 0;
	}
	if (default_rd.source == LC_TIMELINE_FALLBACK) {
		out->source = LC_TIMELINE_FALLBACK;
		snprintf(out->why, sizeof(out->why), "%s", default_rd.why);
	}
	pg = default_rd.map.pg;
	lc__tl_read_status(pg, &st);
	out->writer_pid = (long)atomic_load(&pg->writer_pid);
	out->writer_alive = pid_alive(out->writer_pid);
	out->pretend = (pg->flags & LC__TLF_PRETEND) != 0;
	out->writer_starts = atomic_load(&pg->writer_starts);
	out->age_ns = lc__tl_age(pg);
	out->last_update_rt = st.last_update_rt;
	snprintf(out->table_source, sizeof(out->table_source), "%s",
	         st.table_source);
	out->table_hash = (int)st.table_hash;
	out->table_expires = st.table_expires;
	snprintf(out->table_note, sizeof(out->table_note), "%s", st.table_note);
	snprintf(out->smear, sizeof(out->smear), "%s", st.smear);
	out->host_state = (int)st.host_state;
	out->host_offset_ns = st.host_offset_ns;
	out->host_steps = (uint64_t)st.host_steps;
	return 0;
}
