/*
 * timeline.h - the host's timeline page (DESIGN.md section 8). Not public.
 *
 * One writer (leapclockd) runs the timekeeper and publishes its snapshot,
 * the same two-copy latch every reader already uses (timekeeper.h), in a
 * small file mapped shared: /run/leapclock/timeline by default. Readers
 * (lc_default(), the preload shim, the server's own answers) map it
 * read-only and read the latch lock-free, exactly as they read an
 * in-process timekeeper. The page also carries what a reader needs beyond
 * the snapshot: the counter the snapshot is in, the leap table the writer
 * uses (so conversions and per-reader smears agree with it), and the
 * status that `leapclock status` shows.
 *
 * Layout (version LC__TL_ABI; every field at a fixed offset, little
 * endian as the host, all multi-word sections behind their own two-copy
 * latch of 8-byte atomic words):
 *
 *	head	magic, abi, size, counter kind/clock/frequency, boot id,
 *		flags (LC__TLF_*), writer pid, heartbeat (host
 *		CLOCK_MONOTONIC ns of the writer's last update), writer
 *		starts (one more each time a writer takes the page)
 *	status	struct lc__tl_status (latch)
 *	table	struct lc__tl_table (latch): the writer's leap table rows
 *	rel	struct lc__tl_rel (latch): the page's counter against the
 *		host's CLOCK_MONOTONIC (ABI 4; identity on a MONOTONIC page)
 *	latch	struct lc__tk_latch: the timekeeper snapshot
 *
 * The writer creates the page under a temporary name and renames it into
 * place, so a reader never maps a half-written page; it holds an
 * exclusive flock() on it while it runs, which is how a restarting writer
 * knows the previous one is gone and continues the timeline in place (the
 * same inode: readers' mappings stay valid and see no step).
 *
 * The files, one job each: timeline_page.c (this layout: its latches,
 * validation and the checks both sides share), timeline_writer.c (the
 * writer), timeline_reader.c (a reader), timeline_default.c (lc_default()
 * and lc_timeline_info()).
 */
#ifndef LC_TIMELINE_H
#define LC_TIMELINE_H

#include "timekeeper.h"

#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define LC__TL_MAGIC UINT64_C(0x454e494c454d4954) /* "TIMELINE" */
#define LC__TL_ABI 4u /* 2: the snapshot's UTC_SLS line; 3: the host's
                       * leap mode and detection in the status; 4: the
                       * counter's relation to host CLOCK_MONOTONIC */
#define LC__TL_MAX_LEAPS 256
#define LC__TL_BOOT_ID 40

/* lc__tl_map_open(): a page is there, but its writer is gone. */
#define LC__TL_EGONE (-116)

#define LC__TLF_PRETEND 0x1 /* a rehearsal: never at the default path */

/* What `leapclock status` shows; words so that it can be latched. */
struct lc__tl_status {
	int64_t last_update_rt;  /* the writer's REALTIME at its last update, ns */
	int64_t writer_start_rt; /* when this writer took the page, ns */
	int64_t table_format;    /* enum lc_leap_format */
	int64_t table_hash;      /* enum lc_hash_status */
	int64_t table_updated;   /* POSIX s; INT64_MIN unknown */
	int64_t table_expires;   /* POSIX s; INT64_MIN unknown */
	int64_t table_gen;       /* one more per table change */
	int64_t host_state;      /* enum lc_host_state */
	int64_t host_offset_ns;
	int64_t host_steer_ppb;
	int64_t host_steps;
	char table_source[256];
	char smear[48];          /* the page's UTC_SLS policy, "" none */
	char table_note[160];    /* the last table problem, "" none */
	int64_t host_leap;       /* enum lc_host_leap (ABI 3) */
	int64_t host_detected;   /* enum lc_host_detect */
	int64_t host_hold_ns;    /* lc_tk_host hold_ns */
	char host_leap_text[40]; /* lc_host_leap_format of the mode */
	char host_detected_text[40]; /* its declaration, "" none */
};

struct lc__tl_row {
	int64_t when;
	int32_t tai_utc;
	int32_t dir;
};

struct lc__tl_table {
	int64_t count;
	struct lc__tl_row rows[LC__TL_MAX_LEAPS];
};

/*
 * ABI 4. The page's counter against the host's CLOCK_MONOTONIC, which the
 * kernel's timers run on. A page on CLOCK_MONOTONIC (kernel mode, the
 * default) is its own relation (identity: gen 0, rates 0). A page on
 * CLOCK_MONOTONIC_RAW (a declared host mode: the host's NTP slews
 * MONOTONIC with REALTIME, never RAW) carries the writer's measurement at
 * each tick: MONOTONIC at a counter value, the rate between its last two
 * samples, and the margin by which MONOTONIC may run faster than that
 * rate before the next sample (the declared mode's fastest correction,
 * DESIGN.md 7): a deadline converted with rate + margin is never early.
 * `gen` moves when the rate or the margin moves (by more than 1 ppm) or
 * the offset leaves the prediction by more than 10 us: then a reader's
 * converted kernel timers are stale.
 */
struct lc__tl_rel {
	int64_t gen;
	int64_t counter_ns; /* the page's counter at the sample, ns */
	int64_t mono_ns;    /* host CLOCK_MONOTONIC then */
	int64_t rate_ppb;   /* d MONOTONIC / d counter - 1, ppb */
	int64_t margin_ppb; /* MONOTONIC may run up to this much faster */
	int64_t period_ns;  /* counter ns between the last two samples */
};

#define LC__TL_REL_MOVE_NS 10000   /* offset off the prediction: moved */
#define LC__TL_REL_MOVE_PPB 1000   /* rate or margin change: moved */

#define LC__TL_WORDS(T) ((sizeof(T) + 7) / 8)

struct lc__tl_page {
	uint64_t magic;
	uint32_t abi;
	uint32_t size;
	uint32_t counter_kind;
	int32_t counter_clk;
	uint64_t counter_freq;
	char boot_id[LC__TL_BOOT_ID];
	uint64_t flags;
	_Atomic int64_t writer_pid;
	_Atomic int64_t heartbeat;
	_Atomic uint64_t writer_starts;

	_Alignas(64) _Atomic uint64_t st_seq;
	_Atomic uint64_t st[2][LC__TL_WORDS(struct lc__tl_status)];

	_Alignas(64) _Atomic uint64_t tab_seq;
	_Atomic uint64_t tab[2][LC__TL_WORDS(struct lc__tl_table)];

	_Alignas(64) _Atomic uint64_t rel_seq;
	_Atomic uint64_t rel[2][LC__TL_WORDS(struct lc__tl_rel)];

	struct lc__tk_latch latch;
};

/* ---- validation (pure: fuzzed) --------------------------------------------- */

/* Checks a page image of `len` bytes: magic, ABI version, size, counter,
 * and the boot it belongs to (`boot_id`; "" accepts any). 0, or
 * LC_EINVAL with the reason in *err. */
int lc__tl_validate(const void *buf, size_t len, const char *boot_id,
                    struct lc_error *err);
/* This boot's id (/proc/sys/kernel/random/boot_id), "" if unknown. */
void lc__tl_boot_id(char out[LC__TL_BOOT_ID]);

/* The word latches of the status and the table: the writer's publish, a
 * reader's consistent copy (lc__tl_read_status, lc__tl_read_table). */
void lc__tl_write_status(struct lc__tl_page *pg, const struct lc__tl_status *st);
void lc__tl_write_table(struct lc__tl_page *pg, const struct lc__tl_table *t);
void lc__tl_write_rel(struct lc__tl_page *pg, const struct lc__tl_rel *r);
void lc__tl_read_rel(const struct lc__tl_page *pg, struct lc__tl_rel *r);
/* 1 if the page's counter is the host's CLOCK_MONOTONIC in ns (its
 * relation the identity). */
int lc__tl_is_host_mono(const struct lc__tl_page *pg);
/* The page's counter in ns (cycles at its nominal rate). */
int64_t lc__tl_counter_ns(const struct lc__tl_page *pg, uint64_t cycles);
/* Pure (tested): the host MONOTONIC ns at or after which the page's
 * counter reads `cns` (ns) or more, from the pair (cnow, mnow) read just
 * before (the counter first, so that cnow is not late) and the relation:
 * mnow + d (1 + rate + margin), rounded up, for d = cns - cnow > 0;
 * mnow + d (a past instant) otherwise. */
int64_t lc__tl_rel_mono_at(const struct lc__tl_rel *r, int64_t cnow,
                           int64_t mnow, int64_t cns);
/* The margin (ppb) the writer publishes for a host in `mode` (enum
 * lc_host_leap) with its declared slew rate (ppb) and smear policy
 * (NULL none): how much faster than measured the host's MONOTONIC may
 * run before the next sample. */
int64_t lc__tl_rel_margin(int mode, int64_t slew_ppb,
                          const struct lc_smear_policy *smear);

/* Shared by the writer and the readers (timeline_page.c). */
int64_t lc__tl_host_ns(clockid_t id); /* a host clock, ns */
/* Owned by root or us, writable by nobody else; else LC_EPERM naming
 * `what` of `path`. */
int lc__tl_check_owner(const struct stat *st, const char *what,
                       const char *path, struct lc_error *err);
/* The folder of `path`, checked as lc__tl_check_owner() does. */
int lc__tl_check_folder(const char *path, struct lc_error *err);
/* PATH.sock: -1 if too long. */
int lc__tl_sock_path(const char *path, struct sockaddr_un *sa, socklen_t *len);
/* 1 if a process of that pid exists (ours or not). */
int lc__tl_pid_alive(int64_t pid);

/* ---- the writer ---------------------------------------------------------------- */

struct lc__tl_writer;

/* Takes the page at `path` for `tk` (a writer: leapclockd's timekeeper).
 * A valid page of this boot whose writer is gone is continued in place
 * (lc__tk_resume: no reader sees a step); anything else is replaced by a
 * new page. Fails if another writer holds the page, or if the folder or
 * the page could be written by another unprivileged user. `flags`:
 * LC__TLF_*; `smear` names the timekeeper's UTC_SLS policy ("" none).
 * Errors name the path. */
int lc__tl_writer_open(struct lc__tl_writer **out, const char *path,
                       lc_timekeeper *tk, uint64_t flags, const char *smear,
                       struct lc_error *err);
/* After each lc_update() of the writer: heartbeat, status, and the table
 * if it changed. `smear` names the policy ("" none); `note` the last
 * table problem (NULL: keep). */
void lc__tl_writer_tick(struct lc__tl_writer *w, const char *smear,
                        const char *note);
/* 1 if the writer continued an existing page (a restart). */
int lc__tl_writer_resumed(const struct lc__tl_writer *w);
/* For tests: the writer's own (writable) mapping of its page. */
struct lc__tl_page *lc__tl_writer_page(struct lc__tl_writer *w);
/* Stops writing; the page stays (readers read its snapshot on the
 * counter, and after the staleness limit go on in-process from it). */
void lc__tl_writer_close(struct lc__tl_writer *w);

/* ---- readers -------------------------------------------------------------------- */

/* How long a page may go without a heartbeat before its readers carry on
 * in-process from its last snapshot. */
#define LC__TL_STALE_NS (5 * LC__NS)

struct lc__tl_map {
	const struct lc__tl_page *pg;
	size_t size;
	int fd;
	char path[256];
};

/* Maps the page at `path` read-only after the checks of DESIGN.md
 * section 8: a regular file of the right size, owned by root or by us,
 * writable by nobody else, in a folder nobody else can write; a page of
 * this ABI and boot. `allow_pretend`: 0 refuses a rehearsal page. */
int lc__tl_map_open(struct lc__tl_map *m, const char *path, int allow_pretend,
                    struct lc_error *err);
void lc__tl_map_close(struct lc__tl_map *m);
/* The status and the table of a page (a consistent copy of each). */
void lc__tl_read_status(const struct lc__tl_page *pg, struct lc__tl_status *st);
void lc__tl_read_table(const struct lc__tl_page *pg, struct lc__tl_table *t);
/* Nanoseconds since the page's last heartbeat (host CLOCK_MONOTONIC). */
int64_t lc__tl_age(const struct lc__tl_page *pg);
/* A counter of the page's kind, for a reader in this process. */
int lc__tl_counter(const struct lc__tl_page *pg, lc_counter **out);
/* Fills `t` with the page's table rows and info. */
int lc__tl_table_into(const struct lc__tl_page *pg, lc_leaptable *t);

/* A timekeeper reading a page: lc_default()'s and the shim's. */
struct lc__tl_reader {
	lc_timekeeper *tk;     /* reads the page; its lc_update() checks it */
	lc_counter *counter;   /* of the page's kind */
	lc_leaptable *table;   /* the page's table (replaced, never freed) */
	lc_leaptable **old;    /* the tables it replaced, kept (a caller of
	                        * lc_tk_table() may hold one) */
	size_t nold;
	struct lc_smear_policy smear;
	struct lc__tl_map map;
	int64_t table_gen;
	int64_t rejoin_mono;   /* the last try for a restarted writer's page */
	int source;            /* LC_TIMELINE_PAGE, then _FALLBACK */
	char why[256];         /* why it fell back */
};

/* Opens a reader of the page at `path`: a timekeeper whose readers read
 * the page and whose lc_update() picks up the writer's table changes and,
 * once the page is LC__TL_STALE_NS old, carries on in-process from its
 * last snapshot (at once for a page already stale). Fails (reason in
 * *err) where lc__tl_map_open() does. */
int lc__tl_reader_open(struct lc__tl_reader *r, const char *path,
                       int allow_pretend, struct lc_error *err);

#endif
