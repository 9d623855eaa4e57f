/*
 * clock.c - what each mode serves, from leapclock's timekeeper.
 *
 * One timekeeper serves every mode. It runs on the best counter (the TSC
 * where invariant, else the host's CLOCK_MONOTONIC), takes its leaps from
 * the table (LC_LEAP_FROM_TABLE, as chrony's leapsectz) and either follows
 * the host's CLOCK_REALTIME (DESIGN.md section 7: leap-correct even when the
 * host's kernel leaps late or never), or, with --pretend, is set once
 * (lc_settime on its own TAI, never the host's clock) to the pretended
 * instant and runs on from there.
 *
 * Every mode is a function of the timekeeper's TAI (LC_CLOCK_TAI, which
 * never steps at a leap), so that a reading can also be taken for an
 * earlier instant: the kernel's receive timestamp, even across a leap.
 *
 *  - utc: UTC from TAI through the table. NTP timestamps cannot say
 *    23:59:60, so during an inserted second the server sends the repeated
 *    23:59:59 (what the kernel clock behind ntpd and chronyd reads in their
 *    default leap modes), with the leap indicator still set: it is set for
 *    the whole UTC day that ends with the leap, the inserted second
 *    included, and clears at 00:00:00 (chrony announces only on that day;
 *    ntpd keeps the bits until the leap is done).
 *  - smear:PRESET: UTC_SLS as the policy defines it, computed from the
 *    timekeeper's TAI with the library's pure smear of the table
 *    (lc__smear_sls_from_tai, src/smear.c) as a function of the instant,
 *    the one `leapclock convert --to utc-sls` and the shim use. A server
 *    that starts, restarts or pretends inside a window therefore serves
 *    exactly what one that ran through the whole window serves, and every
 *    leapclockd of a fleet agrees. The leap indicator is never set; the
 *    reading carries the smear offset (served minus unsmeared NTP time) for
 *    the 254.x.y.z refid.
 *
 * Threads: ld_source_read and ld_source_at are called by every worker at
 * once, and ld_clock_update and ld_clock_reload by the main thread
 * meanwhile. The timekeeper's readers are lock-free (lc_now_ns reads its
 * published snapshot). The leap table is published as a pointer to a
 * version (the table and a generation number unique in the process): a
 * reload loads the new table on the side, hands it to the timekeeper and
 * stores the new version's pointer. A reader announces the version it
 * uses in its own hazard slot (one per reading thread, taken on its first
 * reading), checks that it is still the published one, and clears the
 * slot when done; the main thread frees a replaced version only when no
 * slot names it. So readers never lock and never wait, and no table
 * changes or vanishes under one. (Past LD_HAZARDS reading threads, a
 * reader takes a mutex instead.) The caches of a source (the leap
 * indicator of the last day, the smear span) are per thread, keyed by the
 * generation, so readers share nothing they write.
 *
 * Built with -DLD_HOST_CLOCK=1, the timekeeper is replaced by the host's
 * CLOCK_REALTIME read through the table (no exact leap on a host that
 * leaps late): a debugging aid, not the default.
 */
#include "clockbound.h"
#include "leapclockd.h"

#include "internal.h"
#include "kernel_names.h"
#include "leaptable_impl.h"
#include "smear_clock.h"
#include "timeline.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef LD_HOST_CLOCK
#define LD_HOST_CLOCK 0
#endif

struct ld_source {
	struct ld_clock *clock;
	int idx; /* in clock->src[]: its slot in each thread's cache */
	int smear;
	char mode_name[48];
	struct lc_smear_policy policy;
};

/* What a source remembers between readings, one per source per thread. */
struct src_cache {
	const struct ld_source *src; /* whose (a cache of another is stale) */
	/* the leap indicator of the last UTC day asked about */
	int64_t li_day;
	uint64_t li_gen; /* 0: none */
	unsigned li;
	/* smear: the library's smear clock around the last reading
	 * (smear_clock.h), for table generation span_gen (0: none yet;
	 * generations start at 1) */
	struct lc__smear_clock sm;
	uint64_t span_gen;
};

static _Thread_local struct src_cache tl_cache[LD_MAX_LISTEN];

/* Table generations and clock ids, unique in the process (several clocks
 * in a test). */
static _Atomic uint64_t gen_counter, clock_ids;

#define LD_RETIRED_MAX 16
#define LD_HAZARDS 128

/* One version of the leap table. */
struct tver {
	lc_leaptable *t;
	uint64_t gen;
};

/* This thread's hazard slot in the clock with id tl_hz_clock. */
static _Thread_local uint64_t tl_hz_clock;
static _Thread_local int tl_hz_slot;

struct ld_clock {
	_Atomic(lc_leaptable *) table; /* the main thread's view: cur->t */
	_Atomic(struct tver *) cur;    /* published (seq_cst) */
	uint64_t id;
	_Atomic(const struct tver *) hazard[LD_HAZARDS]; /* in use by a reader */
	atomic_int nhazard;   /* slots handed out */
	pthread_mutex_t slow; /* readers past LD_HAZARDS; free_retired */
	/* versions replaced by a reload, freed once no hazard names them */
	struct tver *retired[LD_RETIRED_MAX];
	int nretired;
	char leapfile[PATH_MAX];
	lc_counter *counter;
	lc_timekeeper *tk;
	int pretend;
	int64_t pretend_tai_ns;  /* the TAI instant --pretend names */
	int64_t pretend_mono_ns; /* host CLOCK_MONOTONIC when it was parsed */
	struct ld_source *src[LD_MAX_LISTEN];
	int nsrc;
	/* the host's timeline page this daemon writes (NULL: none) */
	struct lc__tl_writer *tl;
	char smear_name[48];            /* the page's UTC_SLS policy */
	struct lc_smear_policy smear;
	/* how the host handles a leap (--host-leap; config.c checked it) */
	struct lc_host_leap_spec host_leap;
	int detect_logged;              /* the detection said in the log */
	char table_note[160];
	/* the host following as last logged */
	int host_state;
	uint64_t host_steps;
	/* leapclockd's server process (privsep.c): it reads the writer's
	 * page like any other reader (tk is rd.tk, the table a copy of the
	 * page's); NULL in the writer and in one process */
	struct lc__tl_reader *rd;
	const lc_leaptable *rd_table; /* the page's table last copied */
	struct ld_clockbound *cb; /* --clockbound (clockbound.c), or NULL */
};

static int64_t host_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return lc__ts_to_ns(&ts);
}

/* Logs what the system search took and skipped, and why, when that is
 * worth saying (a candidate was bad, or lost to a later expiry): one line
 * each, a warning if a file was bad. */
static void log_search(const struct lc_leaptable_search *search)
{
	char buf[4096], *line, *save = NULL;
	int level = LD_LOG_INFO;

	if (lc_leaptable_search_format(search, 0, "", buf, sizeof(buf)) <= 0)
		return;
	for (size_t i = 0; i < search->count; i++)
		if (search->c[i].status == LC_CAND_BAD)
			level = LD_LOG_WARNING;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		ld_log(level, "%s", line);
}

static int load_table(lc_leaptable *t, const char *path)
{
	struct lc_leaptable_search search;
	struct lc_error err;
	char msg[600];
	int rc;

	memset(&err, 0, sizeof(err));
	if (path[0] != '\0')
		rc = lc_leaptable_load_file(t, path, LC_LEAPFMT_AUTO, &err);
	else
		rc = lc_leaptable_load_system_report(t, &search, &err);
	if (rc < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		ld_log(LD_LOG_ERR, "leap table: %s", msg);
	} else if (path[0] == '\0') {
		log_search(&search);
	}
	if (rc >= 0) {
		struct lc_leaptable_info info;
		lc_leaptable_info(t, &info);
		ld_log(LD_LOG_INFO, "leap table: %s, %zu rows%s", info.source,
		       info.count,
		       lc_leaptable_expired(t, host_ns(CLOCK_REALTIME) / LC__NS)
		               ? " (expired: update it)"
		               : "");
	}
	return rc < 0 ? -1 : 0;
}

/* The TAI instant --pretend serves now: the pretended instant plus the
 * time elapsed since it was parsed, added on TAI (a uniform scale) so that
 * it runs through a leap correctly. */
static int64_t pretend_tai_now(const struct ld_clock *c)
{
	return c->pretend_tai_ns +
	       (host_ns(CLOCK_MONOTONIC) - c->pretend_mono_ns);
}

#if !LD_HOST_CLOCK

static int tk_start(struct ld_clock *c)
{
	struct lc_tk_config tc;
	int rc;

	lc_tk_config_init(&tc);
	tc.table = c->table;
	tc.leap_source = LC_LEAP_FROM_TABLE;
	tc.initial_tai_offset = -1;
	/* The timeline's own UTC_SLS policy (smear, or $LEAPCLOCK_SMEAR as
	 * for lc_default()): what lc_gettime(UTC_SLS) reads on the page. The
	 * smear:PRESET sockets compute their own presets from the exact
	 * timeline, so they need none. */
	tc.smear = c->smear_name[0] != '\0' ? &c->smear : NULL;
	tc.realtime_smeared = 0;
	tc.follow_host = !c->pretend;
	lc_host_leap_apply(&c->host_leap, &tc);
	rc = lc_tk_new(&c->tk, c->counter, &tc);
	if (rc == 0 && c->pretend) {
		struct timespec ts = lc__ns_to_ts(pretend_tai_now(c));
		rc = lc_settime(c->tk, LC_CLOCK_TAI, &ts);
	}
	if (rc == 0)
		rc = lc_update(c->tk);
	return rc;
}

/* TAI now; v is the table version the caller holds */
static int64_t clock_tai(struct ld_clock *c, const struct tver *v)
{
	(void)v;
	return lc_now_ns(c->tk, LC_CLOCK_TAI);
}

#else

static int tk_start(struct ld_clock *c)
{
	(void)c;
	return 0;
}

static int64_t clock_tai(struct ld_clock *c, const struct tver *v)
{
	int64_t tai;

	if (c->pretend)
		return pretend_tai_now(c);
	if (lc_tai_from_unix(v->t, host_ns(CLOCK_REALTIME), &tai) < 0)
		tai = host_ns(CLOCK_REALTIME) + 37 * LC__NS;
	return tai;
}

#endif

/* The counter the timekeeper runs on. best: a timeline page is on a host
 * clock (every process then reads it alike, and the shim arms the
 * kernel's timers from it; a page on the TSC is read by programs on the
 * library only): CLOCK_MONOTONIC in kernel mode, CLOCK_MONOTONIC_RAW in a
 * declared host mode, where the host's NTP slews MONOTONIC with REALTIME
 * (lc__counter_writer_clock, DESIGN.md 7); without a page the TSC where
 * invariant, else the same choice. */
static int open_counter(struct ld_clock *c, const struct ld_config *cfg)
{
	int mode = c->host_leap.mode;
	struct lc_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	if (strcmp(cfg->counter, "system") == 0) {
		rc = lc_counter_new_system(&c->counter, CLOCK_MONOTONIC);
		if (rc == 0 && mode != LC_HOST_LEAP_KERNEL)
			ld_log(LD_LOG_WARNING, "counter system: the host's "
			       "CLOCK_MONOTONIC, which its NTP slews with "
			       "CLOCK_REALTIME: a leap it slews or smears away "
			       "is carried into the timeline (--counter best "
			       "runs a declared mode on CLOCK_MONOTONIC_RAW)");
	} else if (cfg->timeline[0] != '\0' && strcmp(cfg->counter, "best") == 0)
		rc = lc_counter_new_system(&c->counter,
		                           lc__counter_writer_clock(mode));
	else if (strcmp(cfg->counter, "tsc") == 0)
		rc = lc_counter_new_tsc(&c->counter, &err);
	else if (strcmp(cfg->counter, "raw") == 0)
		/* CLOCK_MONOTONIC_RAW: NTP discipline does not steer it, so
		 * a --pretend upstream on the host it disciplines does not
		 * follow its own client (tools/vm-kernel-test) */
		rc = lc_counter_new_system(&c->counter, CLOCK_MONOTONIC_RAW);
	else
		rc = lc__counter_new_writer(&c->counter, mode);
	if (rc < 0) {
		ld_log(LD_LOG_ERR, "counter %s: %s %s", cfg->counter,
		       lc_strerror(rc), err.msg);
		return -1;
	}
	return 0;
}

/* --pretend TIME or TIME@ANCHOR: TIME when the host's UTC reads ANCHOR,
 * so that every server given the same pair serves the same instant (a
 * fleet's rehearsal; config.c checked both parts). */
static int set_pretend(struct ld_clock *c, const char *pretend)
{
	struct timespec utc;
	struct lc_error err;
	char msg[600], when[sizeof(((struct ld_config *)0)->pretend)], *at;
	int rc;

	snprintf(when, sizeof(when), "%s", pretend);
	at = strchr(when, '@');
	if (at != NULL)
		*at++ = '\0';
	memset(&err, 0, sizeof(err));
	rc = lc_iso8601_parse(when, c->table, &utc, &err);
	if (rc == 0)
		rc = lc_tai_from_utc(c->table, &utc, &c->pretend_tai_ns);
	if (rc == 0 && at != NULL) {
		struct timespec anchor;

		rc = lc_iso8601_parse(at, c->table, &anchor, &err);
		if (rc == 0) {
			int64_t a = (int64_t)anchor.tv_sec * LC__NS +
			            (anchor.tv_nsec < LC__NS ? anchor.tv_nsec
			                                     : LC__NS - 1);
			int64_t rt = host_ns(CLOCK_REALTIME);

			c->pretend_mono_ns = host_ns(CLOCK_MONOTONIC);
			c->pretend_tai_ns += rt - a;
		}
	}
	if (rc < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		ld_log(LD_LOG_ERR, "--pretend '%s': %s (%s)", pretend, msg,
		       lc_strerror(rc));
		return -1;
	}
	c->pretend = 1;
	if (at == NULL)
		c->pretend_mono_ns = host_ns(CLOCK_MONOTONIC);
	ld_log(LD_LOG_INFO, "pretending: the served time starts at %s", pretend);
	return 0;
}

/* The smear the timeline declares: cfg->smear (smear, --smear, or
 * LEAPCLOCK_SMEAR; config.c checked it and says where it came from). */
static int set_smear(struct ld_clock *c, const struct ld_config *cfg)
{
	struct lc_error err;
	char msg[400];

	if (cfg->smear[0] == '\0')
		return 0;
	memset(&err, 0, sizeof(err));
	if (lc_smear_preset_from(cfg->smear_where[0] != '\0' ? cfg->smear_where
	                                                     : "smear",
	                         cfg->smear, 0, &c->smear, &err) < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		ld_log(LD_LOG_ERR, "%s", msg);
		return -1;
	}
	snprintf(c->smear_name, sizeof(c->smear_name), "%s", cfg->smear);
	return 0;
}

#if !LD_HOST_CLOCK
/* The timeline page published (or continued from its previous writer). */
static int open_timeline(struct ld_clock *c, const char *path)
{
	struct lc_error err;
	char msg[600];
	int rc;

	memset(&err, 0, sizeof(err));
	rc = lc__tl_writer_open(&c->tl, path, c->tk,
	                        c->pretend ? LC__TLF_PRETEND : 0, c->smear_name, &err);
	if (rc < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		ld_log(LD_LOG_ERR, "timeline %s: %s", path, msg);
		return -1;
	}
	lc__tl_writer_tick(c->tl, c->smear_name, "");
	ld_log(LD_LOG_INFO, "timeline %s: %s%s", path,
	       lc__tl_writer_resumed(c->tl)
	               ? "continued from its previous writer"
	               : "published",
	       c->pretend ? " (a rehearsal)" : "");
	return 0;
}
#endif

int ld_clock_new(struct ld_clock **out, const struct ld_config *cfg)
{
	struct ld_clock *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (c == NULL)
		return -1;
	snprintf(c->leapfile, sizeof(c->leapfile), "%s", cfg->leapfile);
	c->table = lc_leaptable_new();
	if (c->table == NULL || load_table(c->table, c->leapfile) != 0)
		goto fail;
	c->cur = calloc(1, sizeof(*c->cur));
	if (c->cur == NULL)
		goto fail;
	c->cur->t = c->table;
	c->cur->gen = (atomic_fetch_add_explicit(&gen_counter, 1, memory_order_relaxed) + 1);
	c->id = (atomic_fetch_add_explicit(&clock_ids, 1, memory_order_relaxed) + 1);
	pthread_mutex_init(&c->slow, NULL);

	/* the mode first: it chooses the counter */
	if (cfg->host_leap[0] != '\0' &&
	    lc_host_leap_parse(cfg->host_leap, "host-leap", &c->host_leap,
	                       NULL) != 0) {
		ld_log(LD_LOG_ERR, "host-leap: '%s': not a mode", cfg->host_leap);
		goto fail;
	}
	if (open_counter(c, cfg) != 0)
		goto fail;
	if (cfg->pretend[0] != '\0' && set_pretend(c, cfg->pretend) != 0)
		goto fail;
	if (set_smear(c, cfg) != 0)
		goto fail;
	if (c->host_leap.mode != LC_HOST_LEAP_KERNEL) {
		char text[48];

		lc_host_leap_format(&c->host_leap, text, sizeof(text));
		ld_log(LD_LOG_INFO, "host clock: its leap handling declared %s",
		       text);
	}
	rc = tk_start(c);
	if (rc < 0) {
		ld_log(LD_LOG_ERR, "timekeeper: %s", lc_strerror(rc));
		goto fail;
	}
#if !LD_HOST_CLOCK
	if (cfg->timeline[0] != '\0' && open_timeline(c, cfg->timeline) != 0)
		goto fail;
	if (cfg->clockbound[0] != '\0' &&
	    ld_clockbound_open(&c->cb, cfg->clockbound, c->tk) != 0)
		goto fail;
#endif
	*out = c;
	return 0;
fail:
	ld_clock_free(c);
	return -1;
}

#if !LD_HOST_CLOCK
int ld_clock_new_reader(struct ld_clock **out, const struct ld_config *cfg)
{
	struct ld_clock *c = calloc(1, sizeof(*c));
	struct lc_error err;
	char msg[600];
	int rc;

	*out = NULL;
	if (c == NULL)
		return -1;
	c->rd = calloc(1, sizeof(*c->rd));
	if (c->rd == NULL)
		goto fail;
	memset(&err, 0, sizeof(err));
	/* a rehearsal page is ours too (--pretend publishes one) */
	rc = lc__tl_reader_open(c->rd, cfg->timeline, 1, &err);
	if (rc < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		ld_log(LD_LOG_ERR, "timeline %s: reading it: %s", cfg->timeline,
		       msg);
		free(c->rd);
		c->rd = NULL;
		goto fail;
	}
	c->tk = c->rd->tk;
	c->pretend = cfg->pretend[0] != '\0';
	c->table = lc_leaptable_new();
	if (c->table == NULL)
		goto fail;
	c->rd_table = lc_tk_table(c->tk);
	if (c->rd_table != NULL)
		*c->table = *c->rd_table;
	c->cur = calloc(1, sizeof(*c->cur));
	if (c->cur == NULL)
		goto fail;
	c->cur->t = c->table;
	c->cur->gen = (atomic_fetch_add_explicit(&gen_counter, 1, memory_order_relaxed) + 1);
	c->id = (atomic_fetch_add_explicit(&clock_ids, 1, memory_order_relaxed) + 1);
	pthread_mutex_init(&c->slow, NULL);
	*out = c;
	return 0;
fail:
	ld_clock_free(c);
	return -1;
}
#else
int ld_clock_new_reader(struct ld_clock **out, const struct ld_config *cfg)
{
	return ld_clock_new(out, cfg); /* the host's clock: no page */
}
#endif

void ld_clock_free(struct ld_clock *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->nsrc; i++)
		free(c->src[i]);
	for (int i = 0; i < c->nretired; i++) {
		lc_leaptable_free(c->retired[i]->t);
		free(c->retired[i]);
	}
	if (c->cur != NULL)
		pthread_mutex_destroy(&c->slow);
	free(c->cur);
#if !LD_HOST_CLOCK
	ld_clockbound_close(c->cb);
	lc__tl_writer_close(c->tl);
	if (c->rd == NULL)
		lc_tk_free(c->tk);
#endif
	if (c->rd != NULL) {
		/* the reader's own: its tables too (ours are copies, and
		 * nothing reads any more) */
		lc_tk_free(c->rd->tk);
		lc_counter_free(c->rd->counter);
		lc__tl_map_close(&c->rd->map);
		lc_leaptable_free(c->rd->table);
		for (size_t i = 0; i < c->rd->nold; i++)
			lc_leaptable_free(c->rd->old[i]);
		free(c->rd->old);
		free(c->rd);
	}
	lc_counter_free(c->counter);
	lc_leaptable_free(c->table);
	free(c);
}

struct ld_source *ld_clock_source(struct ld_clock *c,
                                  const struct ld_listen_cfg *l)
{
	struct ld_source *s;
	struct lc_error err;

	for (int i = 0; i < c->nsrc; i++)
		if (strcmp(c->src[i]->mode_name, l->mode_name) == 0)
			return c->src[i];
	if (c->nsrc >= LD_MAX_LISTEN)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->clock = c;
	s->idx = c->nsrc;
	s->smear = l->smear;
	snprintf(s->mode_name, sizeof(s->mode_name), "%s", l->mode_name);
	memset(&err, 0, sizeof(err));
	if (s->smear && lc_smear_preset(l->preset, 0, &s->policy, &err) < 0) {
		const char *const *names = lc_smear_preset_names();
		char list[256] = "";

		for (; names != NULL && *names != NULL; names++) {
			strncat(list, " ", sizeof(list) - strlen(list) - 1);
			strncat(list, *names, sizeof(list) - strlen(list) - 1);
		}
		ld_log(LD_LOG_ERR, "%s: unknown smear preset '%s' (known:%s)",
		       l->text, l->preset, list);
		free(s);
		return NULL;
	}
	c->src[c->nsrc++] = s;
	return s;
}

/* This thread's cache for source s (reset if it held another's). */
static struct src_cache *cache_of(const struct ld_source *s)
{
	struct src_cache *k = &tl_cache[s->idx];

	if (k->src != s) {
		memset(k, 0, sizeof(*k));
		k->src = s;
	}
	return k;
}

/* LI for the UTC day containing POSIX second `sec`: announced only when
 * that day ends with a leap (its last second is a 23:59:59 followed by
 * 23:59:60, or a deleted 23:59:59). Cached per day and table. */
static unsigned day_li(struct src_cache *k, const lc_leaptable *t,
                       uint64_t gen, int64_t sec)
{
	int64_t day = lc__fdiv(sec, LC_SECS_PER_DAY);

	if (day != k->li_day || k->li_gen != gen) {
		int leap = lc_leaptable_leap_at(
			t, day * LC_SECS_PER_DAY + LC_SECS_PER_DAY - 1);
		k->li = leap > 0 ? LD_LI_INSERT
		                 : leap < 0 ? LD_LI_DELETE : LD_LI_NONE;
		k->li_day = day;
		k->li_gen = gen;
	}
	return k->li;
}

/* UTC_SLS at TAI `tai` for the source's policy: the library's pure smear
 * of the table (src/smear.c), the same function the shim, lc_gettime's
 * page reader and `leapclock convert --to utc-sls` use. `rt` is the POSIX
 * reading at that instant. The library's smear clock around it
 * (smear_clock.h) is kept per table: outside every window UTC_SLS is
 * REALTIME itself (one compare), inside one it is the clock's fast piece
 * on TAI (one multiply, primed again when it runs out), equal to
 * lc__smear_sls_from_tai at every instant. */
static int64_t smear_at(const struct ld_source *s, struct src_cache *k,
                        const lc_leaptable *t, uint64_t gen, int64_t tai,
                        int64_t rt)
{
	struct lc__smear_clock *c = &k->sm;

	if (k->span_gen != gen || !lc__smear_clock_covers(c, rt)) {
		if (lc__smear_clock_set(c, t, &s->policy, rt, tai) < 0) {
			k->span_gen = 0;
			return rt; /* cannot happen: the preset is valid */
		}
		k->span_gen = gen;
	}
	if (!lc__smear_clock_inside(c, rt))
		return rt;
	if (lc__unlikely(lc__smear_clock_ending(c, tai, 0)))
		lc__smear_clock_prime(c, tai);
	return lc__smear_clock_in(c, tai);
}

/* The table version in use, held until table_exit (see the top). */
static const struct tver *table_enter(struct ld_clock *c)
{
	const struct tver *v;
	int slot;

	if (tl_hz_clock != c->id) {
		int i = atomic_fetch_add_explicit(&c->nhazard, 1, memory_order_relaxed);

		tl_hz_clock = c->id;
		tl_hz_slot = i < LD_HAZARDS ? i : -1;
	}
	slot = tl_hz_slot;
	if (slot < 0) {
		pthread_mutex_lock(&c->slow);
		return atomic_load(&c->cur);
	}
	v = atomic_load(&c->cur);
	for (;;) {
		const struct tver *again;

		atomic_store(&c->hazard[slot], v);
		again = atomic_load(&c->cur);
		if (again == v)
			return v;
		v = again;
	}
}

static void table_exit(struct ld_clock *c)
{
	if (tl_hz_slot < 0)
		pthread_mutex_unlock(&c->slow);
	else
		atomic_store_explicit(&c->hazard[tl_hz_slot], NULL,
		                      memory_order_release);
}

static void source_at(struct ld_source *s, const struct tver *v, int64_t tai,
                      struct ld_reading *r)
{
	struct src_cache *k = cache_of(s);
	struct timespec ts;
	uint64_t gen = v->gen;
	const lc_leaptable *t = v->t;

	r->tai_ns = tai;
	if (!s->smear) {
		int64_t nsec;

		if (lc_utc_from_tai(t, tai, &ts) < 0)
			ts = lc__ns_to_ts(tai - 10 * LC__NS); /* before 1972 */
		nsec = ts.tv_nsec;
		/* 23:59:60.x (tv_nsec >= 1e9) goes out as the repeated
		 * 23:59:59.x: NTP timestamps cannot say 23:59:60. */
		if (nsec >= LC__NS)
			nsec -= LC__NS;
		r->unix_ns = (int64_t)ts.tv_sec * LC__NS + nsec;
		r->li = day_li(k, t, gen, (int64_t)ts.tv_sec);
		r->smear_ns = 0;
	} else {
		int64_t rt, sls;

		if (lc_unix_from_tai(t, tai, &rt) < 0)
			rt = tai - 10 * LC__NS; /* before 1972: no smear */
		sls = smear_at(s, k, t, gen, tai, rt);
		/* smear_ns: served minus the unsmeared NTP time (POSIX, the
		 * repeated 23:59:59 in an inserted second), in (-2 s, 2 s) */
		r->unix_ns = sls;
		r->li = LD_LI_NONE;
		r->smear_ns = sls - rt;
	}
}

void ld_source_at(struct ld_source *s, int64_t tai, struct ld_reading *r)
{
	const struct tver *v = table_enter(s->clock);

	source_at(s, v, tai, r);
	table_exit(s->clock);
}

void ld_source_read(struct ld_source *s, struct ld_reading *r)
{
	const struct tver *v = table_enter(s->clock);

	source_at(s, v, clock_tai(s->clock, v), r);
	table_exit(s->clock);
}

int64_t ld_clock_expires(struct ld_clock *c)
{
	const struct tver *v = table_enter(c);
	struct lc_leaptable_info info;

	lc_leaptable_info(v->t, &info);
	table_exit(c);
	return info.expires;
}

#if !LD_HOST_CLOCK
static const char *host_state_name(int s)
{
	switch (s) {
	case LC_HOST_AGREES: return "agrees";
	case LC_HOST_LEAP_OFF: return "a leap off (not followed)";
	case LC_HOST_STEPPED: return "stepped (followed)";
	case LC_HOST_SMEARED: return "smeared (declared)";
	default: return "not followed";
	}
}

/* One line each time the host following changes its verdict or follows a
 * step: what an administrator (or the VM test) needs to see why the
 * served time moved, or did not. */
static void log_host(struct ld_clock *c)
{
	struct lc_tk_host h;
	char bits[200];

	if (lc_tk_host_status(c->tk, &h) != 0)
		return;
	if (h.detected != LC_HOST_DETECT_NONE && !c->detect_logged) {
		/* once: what the host looks like, and how to declare it */
		ld_log(LD_LOG_WARNING,
		       "host clock looks like %s around the leap second: not "
		       "followed (UTC and TAI stay true); declare it with "
		       "--host-leap %s (host-leap %s in leapclockd.conf)",
		       h.detected_text, h.detected_text, h.detected_text);
		c->detect_logged = 1;
	}
	if (h.state == c->host_state && h.steps == c->host_steps)
		return;
	ld_log(LD_LOG_INFO,
	       "host clock: %s, offset %+.6f ms, steps followed %" PRIu64
	       ", %s rule, kernel state %s status %s TAI %d",
	       host_state_name(h.state), (double)h.offset_ns / 1e6, h.steps,
	       h.kernel_rule ? "kernel" : "threshold",
	       lc__time_state_name(h.kernel_state),
	       lc__sta_format(h.kernel_status, bits, sizeof(bits)),
	       (int)h.kernel_tai);
	c->host_state = h.state;
	c->host_steps = h.steps;
}
#endif

/* Frees the replaced table versions that no reader holds (all with
 * `all`: no reader left). */
static void free_retired(struct ld_clock *c, int all)
{
	int n = 0;

	pthread_mutex_lock(&c->slow);
	for (int i = 0; i < c->nretired; i++) {
		int held = 0;

		for (int h = 0; h < LD_HAZARDS && !all; h++)
			if (atomic_load(&c->hazard[h]) ==
			    c->retired[i])
				held = 1;
		if (!held) {
			lc_leaptable_free(c->retired[i]->t);
			free(c->retired[i]);
			continue;
		}
		c->retired[n++] = c->retired[i];
	}
	c->nretired = n;
	pthread_mutex_unlock(&c->slow);
}

/* The host following as of the last update (locked in the library: any
 * thread). LC_ENOENT-like -1 when not following (--pretend). */
int ld_clock_host_status(struct ld_clock *c, struct lc_tk_host *h)
{
#if !LD_HOST_CLOCK
	if (c->rd != NULL) {
		/* the writer's verdict, from its page */
		struct lc__tl_status st;

		if (c->rd->map.pg == NULL)
			return -1;
		lc__tl_read_status(c->rd->map.pg, &st);
		memset(h, 0, sizeof(*h));
		h->state = (int)st.host_state;
		h->offset_ns = st.host_offset_ns;
		h->steer_ppb = st.host_steer_ppb;
		h->steps = (uint64_t)st.host_steps;
		h->host_leap = (int)st.host_leap;
		h->detected = (int)st.host_detected;
		h->hold_ns = st.host_hold_ns;
		snprintf(h->host_leap_text, sizeof(h->host_leap_text), "%s",
		         st.host_leap_text);
		snprintf(h->detected_text, sizeof(h->detected_text), "%s",
		         st.host_detected_text);
		return 0;
	}
	return lc_tk_host_status(c->tk, h) == 0 ? 0 : -1;
#else
	(void)c;
	(void)h;
	return -1;
#endif
}

/* Publishes `fresh` (the clock's from now on); the old table stays
 * readable for those who hold it (see the top of this file). */
static int publish_table(struct ld_clock *c, lc_leaptable *fresh)
{
	struct tver *nv = calloc(1, sizeof(*nv));
	struct timespec gap = { 0, 1000000 };

	if (nv == NULL) {
		lc_leaptable_free(fresh);
		return -1;
	}
	free_retired(c, 0);
	while (c->nretired == LD_RETIRED_MAX) {
		nanosleep(&gap, NULL); /* readers hold one for us */
		free_retired(c, 0);
	}
	nv->t = fresh;
	nv->gen = (atomic_fetch_add_explicit(&gen_counter, 1, memory_order_relaxed) + 1);
#if !LD_HOST_CLOCK
	if (c->rd == NULL)
		lc__tk_set_table(c->tk, fresh);
#endif
	c->retired[c->nretired++] = c->cur;
	atomic_store_explicit(&c->table, fresh, memory_order_relaxed);
	atomic_store(&c->cur, nv);
	free_retired(c, 0);
	return 0;
}

/* The server process: the page's table, copied when the writer changed
 * it (the reader's lc_update took the change). */
static void reader_follow_table(struct ld_clock *c)
{
	const lc_leaptable *pt = lc_tk_table(c->tk);
	lc_leaptable *copy;

	if (pt == NULL || pt == c->rd_table)
		return;
	copy = lc_leaptable_new();
	if (copy == NULL)
		return;
	*copy = *pt;
	c->rd_table = pt;
	if (publish_table(c, copy) == 0)
		ld_log(LD_LOG_INFO, "leap table: the writer's page now has %s, "
		       "%zu rows", copy->info.source, copy->count);
}

int ld_clock_bounds(struct ld_clock *c, struct lc_bounds *b,
                    struct lc_bounds_info *bi)
{
#if !LD_HOST_CLOCK
	if (c->tk == NULL || lc_gettime_bounds(c->tk, LC_CLOCK_UTC, b) != 0)
		return -1;
	return lc_tk_bounds_info(c->tk, bi) == 0 ? 0 : -1;
#else
	(void)c;
	(void)b;
	(void)bi;
	return -1;
#endif
}

void ld_clock_update(struct ld_clock *c)
{
	if (c->nretired > 0)
		free_retired(c, 0);
#if !LD_HOST_CLOCK
	lc_update(c->tk);
	if (c->rd != NULL) {
		reader_follow_table(c);
		return;
	}
	lc__tl_writer_tick(c->tl, c->smear_name, c->table_note);
	ld_clockbound_update(c->cb);
	if (!c->pretend)
		log_host(c);
#else
	(void)c;
#endif
}

/* Loads `path` ("": the system search) into a scratch table; the error
 * text in note. */
/*
 * The page's table note, whole (issue 27: cut at 159 bytes mid-hash, the
 * page's char[160] in struct lc_timeline_info, a public ABI kept as it
 * is). The note is "FILE:LINE: message"; what gives way is the file's
 * folder, shortened in its middle with "..." and its name kept, so the
 * message stays whole; if it does not fit with the file's name alone
 * (".../NAME:LINE: message"), that is cut after a word with " ..." (as
 * leapclock status cuts a note an older writer let the page cut). At most n - 2 bytes: a note of the page's full 159 is
 * one the page cut. The log line has the note in full.
 */
static void fit_note(char *out, size_t n, const char *note, const char *path)
{
	size_t len = strlen(note), max = n - 2;
	const char *p = path[0] != '\0' ? strstr(note, path) : NULL;
	char tmp[1024];

	if (len <= max) {
		memcpy(out, note, len + 1);
		return;
	}
	if (p != NULL) {
		size_t plen = strlen(path), rest = len - plen;
		const char *tail = strrchr(path, '/');
		size_t tlen = strlen(tail != NULL ? tail : path);

		if (rest + tlen + 3 <= max) {
			/* the head of the folder that fits before "..." */
			size_t head = max - rest - tlen - 3;

			snprintf(out, n, "%.*s%.*s...%s%s", (int)(p - note), note,
			         (int)head, path, path + plen - tlen, p + plen);
			return;
		}
		/* the whole folder gone, ".../NAME", and the message cut */
		snprintf(tmp, sizeof(tmp), "%.*s...%s%s", (int)(p - note), note,
		         path + plen - tlen, p + plen);
		note = tmp;
	}
	memcpy(out, note, max - 4);
	out[max - 4] = '\0';
	{
		char *sp = strrchr(out, ' ');

		if (sp != NULL && sp > out)
			*sp = '\0';
		memcpy(out + strlen(out), " ...", 5);
	}
}

static lc_leaptable *scratch_load(const char *path, char *note, size_t size)
{
	lc_leaptable *t = lc_leaptable_new();
	struct lc_error err;
	int rc;

	if (t == NULL)
		return NULL;
	memset(&err, 0, sizeof(err));
	if (path[0] != '\0') {
		rc = lc_leaptable_load_file(t, path, LC_LEAPFMT_AUTO, &err);
	} else {
		struct lc_leaptable_search search;

		rc = lc_leaptable_load_system_report(t, &search, &err);
		if (rc == 0)
			log_search(&search);
	}
	if (rc < 0) {
		lc_error_format(&err, note, size);
		lc_leaptable_free(t);
		return NULL;
	}
	return t;
}

static int64_t expiry_of(const lc_leaptable *t)
{
	struct lc_leaptable_info info;

	lc_leaptable_info(t, &info);
	return info.expires;
}

int ld_clock_reload(struct ld_clock *c)
{
	struct lc_leaptable_info cur;
	char path[PATH_MAX], note[600] = "";
	lc_leaptable *fresh = NULL, *sys;

	if (c->rd != NULL)
		return 0; /* the writer reloads; its page brings the table */
	/* The file in use is reloaded by name, the configured one or the
	 * one the system search found: a file gone bad (tampered, cut
	 * short, junk) keeps the table in effect, whichever way it was
	 * found. Without a configured file the system search may also offer
	 * a newer valid table (a later expiry), which then wins. The live
	 * table is only touched once a file is known to be good. */
	lc_leaptable_info(c->table, &cur);
	if (c->leapfile[0] != '\0')
		snprintf(path, sizeof(path), "%s", c->leapfile);
	else if (cur.source[0] == '/')
		snprintf(path, sizeof(path), "%s", cur.source);
	else
		path[0] = '\0';
	if (path[0] != '\0') {
		fresh = scratch_load(path, note, sizeof(note));
		if (fresh == NULL) {
			ld_log(LD_LOG_WARNING,
			       "leap table: %s; keeping the table in use (%s)",
			       note, cur.source);
			fit_note(c->table_note, sizeof(c->table_note), note,
			         path);
			ld_clock_update(c);
			return -1;
		}
	}
	if (c->leapfile[0] == '\0') {
		char n2[600];

		sys = scratch_load("", n2, sizeof(n2));
		if (sys != NULL &&
		    (fresh == NULL || expiry_of(sys) > expiry_of(fresh))) {
			lc_leaptable_free(fresh);
			fresh = sys;
		} else {
			lc_leaptable_free(sys);
		}
	}
	if (fresh == NULL)
		return -1;
	{
		struct lc_leaptable_info ni;

		lc_leaptable_info(fresh, &ni);
		if (memcmp(fresh, c->table, sizeof(*fresh)) != 0)
			ld_log(LD_LOG_INFO, "leap table: now %s, %zu rows",
			       ni.source, ni.count);
	}
	if (publish_table(c, fresh) != 0)
		return -1;
	c->table_note[0] = '\0';
	ld_clock_update(c);
	return 0;
}

/* The folders to watch for a new leap table: the configured file's, and
 * the one the table in use came from. */
int ld_clock_watch_paths(const struct ld_clock *c, char paths[2][PATH_MAX])
{
	struct lc_leaptable_info cur;
	int n = 0;

	if (c->rd != NULL)
		return 0; /* the writer watches them */
	lc_leaptable_info(c->table, &cur);
	if (c->leapfile[0] != '\0')
		snprintf(paths[n++], PATH_MAX, "%s", c->leapfile);
	if (cur.source[0] == '/' &&
	    (n == 0 || strcmp(paths[0], cur.source) != 0))
		snprintf(paths[n++], PATH_MAX, "%s", cur.source);
	return n;
}

const lc_leaptable *ld_clock_table(const struct ld_clock *c)
{
	return atomic_load_explicit(&c->table, memory_order_relaxed);
}

int ld_clock_precision(struct ld_clock *c)
{
	int64_t best = INT64_MAX, prev, now;
	int p;

	/* chrony's way: the smallest step between successive readings of
	 * the clock bounds how finely a timestamp can be taken. */
	prev = clock_tai(c, c->cur);
	for (int i = 0; i < 200; i++) {
		now = clock_tai(c, c->cur);
		if (now > prev && now - prev < best)
			best = now - prev;
		prev = now;
	}
	if (best == INT64_MAX)
		best = 1000;
	p = (int)ceil(log2((double)best * 1e-9));
	if (p < -30)
		p = -30;
	if (p > -6)
		p = -6;
	return p;
}
