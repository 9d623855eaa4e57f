/*
 * timeline.c - the host's timeline page: the writer's side (create or
 * continue the page, publish, heartbeat) and the readers' (map, validate,
 * fall back), and lc_default(), which chooses between the page and an
 * in-process writer. See timeline.h and DESIGN.md section 8.
 */
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
#include <sys/timerfd.h>
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
	struct lc__tl_page *pg;
	int fd;
	int resumed;
	int64_t table_gen;
	struct lc__tl_status st;
	struct lc__tl_table tab; /* the last published */
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
	if (memcmp(&tab, &w->tab, sizeof(tab)) != 0) {
		w->tab = tab;
		wl_write(&w->pg->tab_seq, &w->pg->tab[0][0], TAB_N, &tab);
		w->st.table_gen++;
	}
	lc_leaptable_info(t, &info);
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

/* Maps a page fd writable. */
static struct lc__tl_page *map_rw(int fd)
{
	void *p = mmap(NULL, sizeof(struct lc__tl_page), PROT_READ | PROT_WRITE,
	               MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The existing page, if its writer is gone and it can be continued: the
 * same boot, ABI and counter as ours. Returns the fd (locked) or -1. */
static int take_existing(const char *path, lc_timekeeper *tk,
                         const char *boot, struct lc_error *err,
                         struct lc__tl_page **pgp)
{
	const lc_counter *c = lc_tk_counter(tk);
	struct lc__tl_page *pg;
	struct stat st;
	int fd;

	*pgp = NULL;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		const struct lc__tl_page *ro = NULL;
		long pid = 0;

		if (fstat(fd, &st) == 0 && st.st_size == (off_t)sizeof(*pg))
			ro = map_rw(fd);
		if (ro != NULL) {
			pid = (long)atomic_load(&ro->writer_pid);
			munmap((void *)(uintptr_t)ro, sizeof(*pg));
		}
		close(fd);
		lc__error(err, LC_EBUSY, path, 0,
		          "another writer (pid %ld) holds the timeline", pid);
		return -2;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)sizeof(*pg) ||
	    check_owner(&st, "the page", path, NULL) < 0)
		goto no;
	pg = map_rw(fd);
	if (pg == NULL)
		goto no;
	if (lc__tl_validate(pg, sizeof(*pg), boot, NULL) < 0 ||
	    pg->counter_kind != (uint32_t)lc_counter_kind(c) ||
	    pg->counter_freq != c->freq ||
	    (pg->counter_kind == LC_COUNTER_SYSTEM &&
	     pg->counter_clk != (int32_t)c->clk)) {
		munmap(pg, sizeof(*pg));
		goto no;
	}
	*pgp = pg;
	return fd;
no:
	close(fd);
	return -1;
}

static int create_page(const char *path, lc_timekeeper *tk, const char *boot,
                       uint64_t flags, const char *smear,
                       struct lc_error *err, struct lc__tl_page **pgp)
{
	struct lc__tl_writer tw;
	const lc_counter *c = lc_tk_counter(tk);
	char tmp[300];
	struct lc__tl_page *pg;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.new.%ld", path, (long)getpid());
	unlink(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return lc__error(err, LC_EIO, tmp, 0, "cannot create: %s",
		                 strerror(errno));
	if (fchmod(fd, 0644) < 0 || ftruncate(fd, sizeof(*pg)) < 0 ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0 || (pg = map_rw(fd)) == NULL) {
		int e = errno;

		close(fd);
		unlink(tmp);
		return lc__error(err, LC_EIO, tmp, 0, "cannot set up: %s",
		                 strerror(e));
	}
	pg->magic = LC__TL_MAGIC;
	pg->abi = LC__TL_ABI;
	pg->size = sizeof(*pg);
	pg->counter_kind = (uint32_t)lc_counter_kind(c);
	pg->counter_clk = (int32_t)c->clk;
	pg->counter_freq = c->freq;
	snprintf(pg->boot_id, sizeof(pg->boot_id), "%s", boot);
	pg->flags = flags;
	atomic_store(&pg->heartbeat, host_ns(CLOCK_MONOTONIC));
	/* The snapshot first, then the name: a reader never maps a page
	 * without one. */
	lc__tk_publish_to(tk, &pg->latch);
	/* ... and the table and the status too: a reader that maps the page
	 * the instant it appears gets the writer's table and smear. */
	memset(&tw, 0, sizeof(tw));
	tw.tk = tk;
	tw.pg = pg;
	tw.tab.count = -1;
	write_status(&tw, smear, "");
	if (rename(tmp, path) < 0) {
		int e = errno;

		munmap(pg, sizeof(*pg));
		close(fd);
		unlink(tmp);
		return lc__error(err, LC_EIO, path, 0, "cannot rename %s: %s",
		                 tmp, strerror(e));
	}
	*pgp = pg;
	return fd;
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

/* An existing page of the same flags taken over (*pgp mapped), its
 * timeline continued in place: our writer rebuilt from the page's
 * snapshot. The fd, -1 if there is none to continue, or LC_EBUSY if
 * another writer has it. lc__tk_resume() declines within a second of a
 * leap; wait it out (the page's snapshot is exact there on its own). */
static int resume_page(const char *path, lc_timekeeper *tk, const char *boot,
                       uint64_t flags, struct lc_error *err,
                       struct lc__tl_page **pgp)
{
	struct lc__tl_page *pg = NULL;
	int fd = take_existing(path, tk, boot, err, &pg);
	int rc = LC_EBUSY;

	if (fd == -2)
		return LC_EBUSY;
	if (fd < 0)
		return -1;
	if (pg->flags == flags) {
		for (int i = 0; i < 50 && rc == LC_EBUSY; i++) {
			rc = lc__tk_resume(tk, &pg->latch, &pg->latch);
			if (rc == LC_EBUSY)
				usleep(100000);
		}
		if (rc >= 0) {
			*pgp = pg;
			return fd;
		}
	}
	munmap(pg, sizeof(*pg));
	close(fd);
	return -1;
}

/* A new writer on page pg: a restarted writer continues the page's
 * status, its table generation above all (readers compare generations,
 * so a table changed while no writer ran must count as a change). */
static struct lc__tl_writer *writer_new(lc_timekeeper *tk,
                                        struct lc__tl_page *pg, int fd,
                                        int resumed)
{
	struct lc__tl_writer *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->tk = tk;
	w->pg = pg;
	w->fd = fd;
	w->resumed = resumed;
	if (resumed) {
		/* the page's table too: the generation moves only if ours
		 * differs from it */
		lc__tl_read_status(pg, &w->st);
		lc__tl_read_table(pg, &w->tab);
	} else {
		w->st.table_gen = 1; /* what create_page() published */
		fill_table(lc_tk_table(tk), &w->tab);
	}
	atomic_fetch_add(&pg->writer_starts, 1);
	atomic_store(&pg->writer_pid, (int64_t)getpid());
	w->st.writer_start_rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
	return w;
}

int lc__tl_writer_open(struct lc__tl_writer **out, const char *path,
                       lc_timekeeper *tk, uint64_t flags, const char *smear,
                       struct lc_error *err)
{
	struct lc__tl_writer *w;
	struct lc__tl_page *pg = NULL;
	char boot[LC__TL_BOOT_ID];
	int fd, rc, resumed;

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
	lc__tl_boot_id(boot);
	fd = resume_page(path, tk, boot, flags, err, &pg);
	if (fd == LC_EBUSY)
		return LC_EBUSY;
	resumed = fd >= 0;
	if (fd < 0) {
		fd = create_page(path, tk, boot, flags, smear, err, &pg);
		if (fd < 0)
			return fd;
	}
	w = writer_new(tk, pg, fd, resumed);
	if (w == NULL) {
		munmap(pg, sizeof(*pg));
		close(fd);
		return LC_ENOMEM;
	}
	lc__tl_writer_tick(w, smear, "");
	*out = w;
	return 0;
}

void lc__tl_writer_tick(struct lc__tl_writer *w, const char *smear,
                        const char *note)
{
	if (w == NULL)
		return;
	write_status(w, smear, note);
	atomic_store_explicit(&w->pg->heartbeat, host_ns(CLOCK_MONOTONIC),
	                      memory_order_release);
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
	munmap(w->pg, sizeof(*w->pg));
	close(w->fd); /* releases the flock */
	free(w);
}

/* ---- readers ------------------------------------------------------------------- */

int lc__tl_map_open(struct lc__tl_map *m, const char *path, int allow_pretend,
                    struct lc_error *err)
{
	char boot[LC__TL_BOOT_ID];
	struct stat st;
	void *p;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (path == NULL || strlen(path) >= sizeof(m->path))
		return lc__error(err, LC_EINVAL, "timeline", 0, "bad path");
	snprintf(m->path, sizeof(m->path), "%s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return lc__error(err, errno == ENOENT ? LC_ENOENT : LC_EIO, path,
		                 0, "%s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return lc__error(err, LC_EINVAL, path, 0, "not a regular file");
	}
	rc = check_owner(&st, "the page", path, err);
	if (rc == 0)
		rc = check_folder(path, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	if (st.st_size != (off_t)sizeof(struct lc__tl_page)) {
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

/* lc_update() of a page reader: the table if the writer changed it, and
 * the fall back in-process once the page is stale. */
static void reader_check(lc_timekeeper *tk, void *arg)
{
	struct lc__tl_reader *r = arg;
	const struct lc__tl_page *pg = r->map.pg;
	struct lc__tl_status st;
	int64_t age = lc__tl_age(pg);

	lc__tl_read_status(pg, &st);
	if (st.table_gen != r->table_gen) {
		/* A new table object: the old one may be in use by a caller
		 * of lc_tk_table(); tables change a few times a year, so the
		 * old one is kept, not freed. */
		lc_leaptable *t = lc_leaptable_new();

		if (t != NULL && lc__tl_table_into(pg, t) == 0) {
			lc__tk_set_table(tk, t);
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
