/*
 * timeline_page.c - the timeline page's format (timeline.h): the word
 * latches of its status and table, its validation, and the small checks
 * the writer and the readers share (owners, folder, socket path, age).
 */
#define _GNU_SOURCE
#include "timeline.h"

#include "leaptable_impl.h"
#include "smear_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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
#define REL_N LC__TL_WORDS(struct lc__tl_rel)

_Static_assert(sizeof(struct lc__tl_status) % 8 == 0, "status is words");
_Static_assert(sizeof(struct lc__tl_table) % 8 == 0, "table is words");
_Static_assert(sizeof(struct lc__tl_rel) % 8 == 0, "relation is words");

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

void lc__tl_write_status(struct lc__tl_page *pg, const struct lc__tl_status *st)
{
	wl_write(&pg->st_seq, &pg->st[0][0], ST_N, st);
}

void lc__tl_write_table(struct lc__tl_page *pg, const struct lc__tl_table *t)
{
	wl_write(&pg->tab_seq, &pg->tab[0][0], TAB_N, t);
}

void lc__tl_write_rel(struct lc__tl_page *pg, const struct lc__tl_rel *r)
{
	wl_write(&pg->rel_seq, &pg->rel[0][0], REL_N, r);
}

void lc__tl_read_rel(const struct lc__tl_page *pg, struct lc__tl_rel *r)
{
	wl_read(&pg->rel_seq, &pg->rel[0][0], REL_N, r);
}

/* ---- the counter against host MONOTONIC ----------------------------------- */

int lc__tl_is_host_mono(const struct lc__tl_page *pg)
{
	return pg->counter_kind == LC_COUNTER_SYSTEM &&
	       pg->counter_clk == CLOCK_MONOTONIC &&
	       pg->counter_freq == (uint64_t)LC__NS;
}

int64_t lc__tl_counter_ns(const struct lc__tl_page *pg, uint64_t cycles)
{
	unsigned __int128 ns;

	if (pg->counter_freq == (uint64_t)LC__NS)
		return cycles > (uint64_t)INT64_MAX ? INT64_MAX
		                                    : (int64_t)cycles;
	ns = (unsigned __int128)cycles * (uint64_t)LC__NS / pg->counter_freq;
	return ns > (unsigned __int128)INT64_MAX ? INT64_MAX : (int64_t)ns;
}

int64_t lc__tl_rel_mono_at(const struct lc__tl_rel *r, int64_t cnow,
                           int64_t mnow, int64_t cns)
{
	__int128 d = (__int128)cns - cnow, m, q;
	int64_t ppb;

	if (d <= 0) /* reached: any instant up to now fires at once */
		return mnow + (int64_t)(d < -(__int128)INT64_MAX / 2
		                            ? -(INT64_MAX / 2)
		                            : d);
	/* never below the nominal rate less the kernel's 10 % tick limit,
	 * never above the slew limit of tk_new (10 %) twice: a relation
	 * read from a page is checked, not trusted */
	ppb = r->rate_ppb + (r->margin_ppb > 0 ? r->margin_ppb : 0);
	if (ppb < -100000000)
		ppb = -100000000;
	if (ppb > 200000000)
		ppb = 200000000;
	q = d * ppb; /* rounded up: never early */
	m = (__int128)mnow + d + (q >= 0 ? (q + LC__NS - 1) / LC__NS : q / LC__NS);
	return m > (__int128)INT64_MAX ? INT64_MAX : (int64_t)m;
}

int64_t lc__tl_rel_margin(int mode, int64_t slew_ppb,
                          const struct lc_smear_policy *smear)
{
	/* the kernel's own frequency limit (MAXFREQ, 500 ppm): what the
	 * host's ordinary discipline may change between two samples */
	int64_t r = 500000;

	if (mode == LC_HOST_LEAP_SLEW)
		r = slew_ppb > 0 ? slew_ppb : LC_HOST_SLEW_DEFAULT_PPB;
	else if (mode == LC_HOST_LEAP_SMEAR && smear != NULL) {
		double b = lc__smear_policy_bound(smear, 1);
		double b2 = lc__smear_policy_bound(smear, -1);

		if (b2 > b)
			b = b2;
		if (b * 1000.0 > (double)r)
			r = (int64_t)(b * 1000.0);
	}
	if (r < 500000)
		r = 500000;
	/* 25 % over the declared rate: the slowest detection's tolerance
	 * (DESIGN.md 7), a host a little faster than declared */
	return r + r / 4;
}

/* ---- small helpers ------------------------------------------------------------- */

int64_t lc__tl_host_ns(clockid_t id)
{
	struct timespec ts;

	lc__host.clock_gettime(id, &ts);
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
int lc__tl_check_owner(const struct stat *st, const char *what,
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

int lc__tl_check_folder(const char *path, struct lc_error *err)
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
	return lc__tl_check_owner(&st, "its folder", path, err);
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

int lc__tl_pid_alive(int64_t pid)
{
	if (pid <= 0 || pid > INT32_MAX)
		return 0;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* The socket beside the page: PATH.sock. */
int lc__tl_sock_path(const char *path, struct sockaddr_un *sa,
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

int64_t lc__tl_age(const struct lc__tl_page *pg)
{
	return lc__tl_host_ns(CLOCK_MONOTONIC) -
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
