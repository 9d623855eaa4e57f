/*
 * preload.c - libleapclock-preload.so: leapclock's clocks for unmodified,
 * dynamically linked programs, by LD_PRELOAD.
 *
 * How the program's time is built (docs/preload.md has the user's view):
 *
 *  - The program's timeline is the host's (DESIGN.md section 8): the page
 *    leapclockd publishes ($LEAPCLOCK_TIMELINE or /run/leapclock/timeline),
 *    read lock-free through the library's own readers, so the program
 *    follows the host's steps and the writer's table like every other face.
 *    Without a page, or in a rehearsal (--pretend, --leap-in), one
 *    timekeeper of its own on the system counter (the host's
 *    CLOCK_MONOTONIC in ns, so its MONOTONIC *is* the host's); its realtime
 *    starts at the host's, or at the pretend instant, and runs on with
 *    MONOTONIC. Either way leaps come from the table, never from the host's
 *    leap handling, and are applied exactly at the boundary in every read.
 *  - exact mode: the program's CLOCK_REALTIME is the timekeeper's REALTIME.
 *    smear:PRESET: inside the smear window of the table leap at hand,
 *    REALTIME = T(mono) - offset(mono), T the pre-leap timeline and the
 *    offset from the preset's *nominal* plan (lc__smear_plan_leap armed
 *    long before the window), so that a program started (or pretending to
 *    start) inside the window sees the same smeared time as every other
 *    clock following the preset, not a compressed late smear: the
 *    library's span of that leap (lc__smear_span_at), planned on TAI, so a
 *    step of the timeline moves nothing in it, made again each second (a
 *    leap the table gains). Outside the window both modes read the same.
 *  - CLOCK_TAI is the timekeeper's TAI (the table's TAI-UTC, whatever the
 *    host's TAI offset); MONOTONIC, BOOTTIME, the CPU-time clocks and the
 *    rest pass through untouched, except in a sandbox, where MONOTONIC
 *    and BOOTTIME are the sandbox timeline's steered MONOTONIC (and
 *    MONOTONIC_RAW its counter), converted as REALTIME (shim.h
 *    lcp_sb_mono).
 *  - Absolute REALTIME/TAI deadlines are converted into host CLOCK_MONOTONIC
 *    deadlines (lc__tk_mono_at or the plan's inverse; the timekeeper's
 *    MONOTONIC is the host's) and, where the shim waits itself, re-checked
 *    after the wakeup: the program's realtime must have reached the deadline
 *    or the shim waits again. Never early. The kernel-delivered ones
 *    (timerfds, POSIX timers) are re-armed by a watcher thread when the
 *    timeline steps (see "the watcher" in timers.c).
 *  - Setting calls (clock_settime, settimeofday, stime, adjtimex with mode
 *    bits, adjtime with a delta) fail with EPERM in the shim: nothing reaches
 *    the host's clock.
 *
 * Safety: the real functions are found with dlsym(RTLD_NEXT) in a
 * constructor (or on the first call if one comes earlier, from another
 * library's constructor); a call that arrives while that runs uses the raw
 * system call. The read paths take no lock and allocate nothing: they read
 * the timekeeper's two-copy latch (async-signal-safe) and the real
 * clock_gettime. The timekeeper's writer (lc_update, once a second, and the
 * read-only adjtimex) runs only under a try-flag, so it never waits and a
 * signal handler that interrupts it simply skips the update; the
 * timekeeper's mutex is taken only under that flag, so it is never
 * contended. After fork the child keeps the parent's timekeeper (same
 * counter, same timeline) but not its timers (lcp_timers_after_fork); if
 * another thread held the flag at the fork the child's clock keeps reading
 * correctly but no longer folds leaps.
 *
 * This file resolves the real functions and starts the shim (lcp_init);
 * shim.h lists the other modules, each by its job.
 */
#define _GNU_SOURCE

#include "shim.h"

#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the real functions -------------------------------------------------- */

#define LCP_DEF(name) __typeof__(name) *_Atomic lcp_real_##name;
LCP_REALS(LCP_DEF)
#undef LCP_DEF

static void resolve_all(void)
{
#define LCP_RESOLVE(name)                                                   \
	atomic_store_explicit(&lcp_real_##name,                             \
	                      (__typeof__(name) *)dlsym(RTLD_NEXT, #name), \
	                      memory_order_relaxed);
	LCP_REALS(LCP_RESOLVE)
#undef LCP_RESOLVE
	lcp_hostcalls_fill();
}

/* ---- state --------------------------------------------------------------- */

_Atomic int lcp_state;
static _Atomic pid_t g_init_tid; /* the thread running lcp_init() */
lc_timekeeper *lcp_tk;
lc_leaptable *lcp_table;
int lcp_page;
const struct lc__tl_page *lcp_rel_pg;
_Atomic int lcp_sb_mono;
int64_t lcp_boot_off;

int lcp_ready_wait(void)
{
	while (!lcp_ready()) {
		if (atomic_load(&lcp_state) != LCP_ST_INIT ||
		    atomic_load(&g_init_tid) == (pid_t)syscall(SYS_gettid))
			return 0;
		sched_yield();
	}
	return 1;
}

/* ---- initialisation ------------------------------------------------------ */

static int g_debug;

void lcp_say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "leapclock-preload[%d]: ",
	             (int)getpid());
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	strncat(buf, "\n", sizeof(buf) - strlen(buf) - 1);
	if (write(2, buf, strlen(buf)) < 0)
		return;
}

/* A configuration the user asked for and we cannot give: running the
 * program on the wrong clock would defeat the rehearsal, so stop. */
static void die(const char *what)
{
	lcp_say("%s; not running the program on the wrong clock", what);
	_exit(2);
}

/* As die, with the library's error (its place and problem). */
static void die_err(const struct lc_error *err)
{
	char m[600];

	lc_error_format(err, m, sizeof(m));
	die(m);
}

/* LEAPCLOCK_LEAP_IN (the shim preloaded by hand; `leapclock run` resolves
 * its --leap-in itself): the leap at the end of the host's current UTC day
 * (or after the table's last leap), added to the table, and the pretend
 * instant that puts it `in_ns` after the anchor (lcp_leap_in_resolve).
 * Exported to children as LEAPCLOCK_EXTRA_LEAP and LEAPCLOCK_PRETEND. */
static void resolve_leap_in(const char *in)
{
	struct timespec utc;
	struct lc_error err;
	char iso[64], extra[64];
	int64_t in_ns, when, p;
	int dir;

	if (lcp_parse_duration(in, &in_ns) < 0 || in_ns <= 0 ||
	    in_ns > LCP_LEAP_IN_MAX_NS)
		die("LEAPCLOCK_LEAP_IN is not a duration between 1 ns and 7 "
		    "days (e.g. 10s)");
	dir = lcp_parse_dir(getenv(LCP_ENV_LEAP_DIR));
	if (dir == 0)
		die("LEAPCLOCK_LEAP_DIR is neither insert nor delete");
	if (lcp_leap_in_resolve(lcp_table, lcp_host_ns(CLOCK_REALTIME), in_ns,
	                        dir, &when, &p, &err) < 0)
		die_err(&err);
	utc = lc__ns_to_ts(p);
	if (lc_iso8601_format(&utc, 9, iso, sizeof(iso)) < 0)
		die("LEAPCLOCK_LEAP_IN: cannot format the pretend instant");
	snprintf(extra, sizeof(extra), "%" PRId64 ":%+d", when, dir);
	setenv(LCP_ENV_PRETEND, iso, 1);
	setenv(LCP_ENV_EXTRA_LEAP, extra, 1);
	unsetenv(LCP_ENV_LEAP_IN);
	unsetenv(LCP_ENV_LEAP_DIR);
}

/* The host's timeline (DESIGN.md section 8): the page at
 * $LEAPCLOCK_TIMELINE or /run/leapclock/timeline, unless this program
 * rehearses on its own (LEAPCLOCK_PRETEND, LEAPCLOCK_LEAP_IN) or
 * LEAPCLOCK_TIMELINE=none. Only a page on the host's CLOCK_MONOTONIC or
 * CLOCK_MONOTONIC_RAW: the shim arms the kernel's timers in MONOTONIC
 * (through the page's relation from RAW). 1 if the shim reads it (lcp_tk,
 * lcp_table are the page's). */
static struct lc__tl_reader g_rd;

static int open_page(void)
{
	const char *tl = getenv("LEAPCLOCK_TIMELINE");
	const char *pretend = getenv(LCP_ENV_PRETEND);
	const char *leap_in = getenv(LCP_ENV_LEAP_IN);
	const char *extra = getenv(LCP_ENV_EXTRA_LEAP);
	int named = tl != NULL && *tl != '\0';
	int own = (pretend != NULL && *pretend) || (leap_in && *leap_in) ||
	          (extra && *extra);
	struct lc_error err;
	char msg[400];
	int rc;

	if (named && strcmp(tl, "none") == 0)
		return 0;
	if (own) {
		if (named)
			die("LEAPCLOCK_TIMELINE and a rehearsal of the "
			    "program's own (LEAPCLOCK_PRETEND, "
			    "LEAPCLOCK_LEAP_IN) exclude each other");
		return 0;
	}
	memset(&err, 0, sizeof(err));
	rc = lc__tl_reader_open(&g_rd, named ? tl : "/run/leapclock/timeline",
	                        named, &err);
	/* the host's CLOCK_MONOTONIC (kernel mode) or its
	 * CLOCK_MONOTONIC_RAW (a declared host mode), in ns: the kernel's
	 * timers are armed on MONOTONIC, through the page's relation for a
	 * RAW page (clock.c lcp_to_host_mono) */
	if (rc == 0 && (g_rd.map.pg->counter_kind != LC_COUNTER_SYSTEM ||
	                g_rd.map.pg->counter_freq != (uint64_t)LC__NS ||
	                (g_rd.map.pg->counter_clk != CLOCK_MONOTONIC &&
	                 g_rd.map.pg->counter_clk != CLOCK_MONOTONIC_RAW))) {
		snprintf(err.where, sizeof(err.where), "%s", g_rd.map.path);
		snprintf(err.msg, sizeof(err.msg),
		         "its counter is neither the host's CLOCK_MONOTONIC "
		         "nor its CLOCK_MONOTONIC_RAW (leapclockd --counter "
		         "best)");
		rc = LC_ENOTSUP;
	}
	if (rc < 0) {
		if (rc != LC_ENOENT || named) {
			lc_error_format(&err, msg, sizeof(msg));
			lcp_say("not reading the timeline: %s; running on the "
			    "program's own", msg);
		}
		return 0;
	}
	lcp_tk = g_rd.tk;
	lcp_table = g_rd.table;
	lcp_page = 1;
	if (!lc__tl_is_host_mono(g_rd.map.pg))
		lcp_rel_pg = g_rd.map.pg;
	return 1;
}

/*
 * A table that has expired at the program's time (its realtime at the
 * start: the pretend instant, or now) may miss leaps announced since:
 * said once on stderr for a process tree (LEAPCLOCK_TABLE_WARNED, which
 * `leapclock run` sets when it has said it). `info` is the table as loaded,
 * before a synthetic leap was added.
 */
static void warn_expired(const struct lc_leaptable_info *info)
{
	const char *done = getenv(LCP_ENV_TABLE_WARNED);
	struct timespec ts;
	char exp[40], now[40];
	int64_t mono, rt = lcp_exact_rt(&mono);

	if (info->expires == INT64_MIN ||
	    lc__fdiv(rt, LC__NS) < info->expires ||
	    (done != NULL && *done != '\0'))
		return;
	ts.tv_sec = (time_t)info->expires;
	ts.tv_nsec = 0;
	if (lc_iso8601_format(&ts, 0, exp, sizeof(exp)) < 0)
		snprintf(exp, sizeof(exp), "%" PRId64, info->expires);
	ts = lc__ns_to_ts(rt);
	if (lc_iso8601_format(&ts, 0, now, sizeof(now)) < 0)
		snprintf(now, sizeof(now), "%" PRId64, lc__fdiv(rt, LC__NS));
	exp[strnlen(exp, 10)] = '\0'; /* the date, as the CLI says it */
	lcp_say("warning: leap table %s expired on %s, before the program's "
	    "time %s; leap seconds announced since then are unknown to it",
	    info->source, exp, now);
	setenv(LCP_ENV_TABLE_WARNED, "1", 1);
}

/* ---- the start, step by step --------------------------------------------- */

/* The real functions the shim cannot run without: 0 if found. */
static int reals_found(void)
{
	return REAL(clock_gettime) != NULL && REAL(clock_nanosleep) != NULL &&
	       REAL(timer_settime) != NULL && REAL(adjtimex) != NULL
	               ? 0
	               : -1;
}

/* LEAPCLOCK_DEBUG, and LEAPCLOCK_MODE: exact, or smear:PRESET (lcp_sm). */
static void init_mode(void)
{
	const char *v = getenv(LCP_ENV_DEBUG);
	struct lc_error err;
	char preset[64];
	int mode;

	g_debug = v != NULL && *v != '\0' && strcmp(v, "0") != 0;
	mode = lcp_parse_mode(getenv(LCP_ENV_MODE), preset, sizeof(preset));
	if (mode < 0)
		die("LEAPCLOCK_MODE is neither exact nor smear:PRESET");
	if (mode == 1) {
		if (lc_smear_preset_from("LEAPCLOCK_MODE=smear:PRESET", preset,
		                         0, &lcp_sm.policy, &err) < 0)
			die_err(&err);
		lcp_sm.on = 1;
	}
}

/* The program's own leap table: the system's (LEAPCLOCK_LEAPFILE if set,
 * which must load). */
static void own_table(struct lc_leaptable_info *tinfo)
{
	struct lc_error err;

	lcp_table = lc_leaptable_new();
	if (lcp_table == NULL)
		die("out of memory");
	lc_leaptable_load_system(lcp_table, &err);
	if (err.code != 0 && getenv(LCP_ENV_LEAPFILE) != NULL &&
	    strstr(err.where, getenv(LCP_ENV_LEAPFILE)) != NULL)
		die("LEAPCLOCK_LEAPFILE cannot be loaded");
	lc_leaptable_info(lcp_table, tinfo);
}

/* LEAPCLOCK_ANCHOR: the host CLOCK_MONOTONIC ns at which the rehearsal's
 * clock reads the pretend instant; set now for the process tree if a
 * rehearsal starts here (0 without one). */
static int64_t rehearsal_anchor(void)
{
	const char *pretend = getenv(LCP_ENV_PRETEND);
	const char *leap_in = getenv(LCP_ENV_LEAP_IN);
	const char *anchor_s = getenv(LCP_ENV_ANCHOR);
	int64_t anchor = 0;
	char buf[64];

	if (anchor_s != NULL) {
		const char *e = lcp_parse_u64(anchor_s, &anchor);

		if (e == NULL || *e != '\0')
			die("LEAPCLOCK_ANCHOR is not a CLOCK_MONOTONIC ns "
			    "count");
	} else if ((pretend != NULL && *pretend) || (leap_in && *leap_in)) {
		anchor = lcp_host_ns(CLOCK_MONOTONIC);
		snprintf(buf, sizeof(buf), "%" PRId64, anchor);
		setenv(LCP_ENV_ANCHOR, buf, 1);
	}
	return anchor;
}

/* The synthetic leap, added to the table: LEAPCLOCK_LEAP_IN resolved here
 * (first shim of the tree), or the LEAPCLOCK_EXTRA_LEAP a parent wrote. */
static void rehearsal_leap(void)
{
	const char *leap_in = getenv(LCP_ENV_LEAP_IN);
	const char *extra = getenv(LCP_ENV_EXTRA_LEAP);
	struct lc_error err;
	int64_t when = 0;
	int dir = 0;

	if (leap_in != NULL && *leap_in != '\0' &&
	    (extra == NULL || *extra == '\0')) {
		resolve_leap_in(leap_in);
	} else if (extra != NULL && *extra != '\0') {
		const char *e = lcp_parse_u64(extra, &when);

		if (e == NULL || *e != ':' || (dir = lcp_parse_dir(e + 1)) == 0)
			die("LEAPCLOCK_EXTRA_LEAP is not SECONDS:+1 or "
			    "SECONDS:-1");
		if (lc_leaptable_add(lcp_table, when, dir, &err) < 0)
			die_err(&err);
	}
}

/* LEAPCLOCK_PRETEND: 1 and its TAI in *tai0, or 0 without one. */
static int rehearsal_pretend(int64_t *tai0)
{
	const char *pretend = getenv(LCP_ENV_PRETEND);
	struct lc_error err;
	struct timespec utc;

	if (pretend == NULL || *pretend == '\0')
		return 0;
	if (lc_iso8601_parse(pretend, lcp_table, &utc, &err) < 0 ||
	    lc_tai_from_utc(lcp_table, &utc, tai0) < 0)
		die("LEAPCLOCK_PRETEND is not an ISO 8601 UTC instant "
		    "after 1972 (23:59:60 only on a leap)");
	return 1;
}

/* The program's own timekeeper on the host's CLOCK_MONOTONIC, leaps from
 * lcp_table; with `pretend`, TAI = tai0 + host MONOTONIC elapsed since
 * the anchor: unambiguous, 23:59:60 included. */
static void own_timekeeper(int pretend, int64_t tai0, int64_t anchor)
{
	struct lc_tk_config cfg;
	lc_counter *counter = NULL;

	if (lc_counter_new_system(&counter, CLOCK_MONOTONIC) < 0)
		die("cannot read CLOCK_MONOTONIC");
	lc_tk_config_init(&cfg);
	cfg.table = lcp_table;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	if (lc_tk_new(&lcp_tk, counter, &cfg) < 0)
		die("cannot create the timekeeper");
	if (pretend) {
		struct timespec t = lc__ns_to_ts(
			tai0 + lcp_host_ns(CLOCK_MONOTONIC) - anchor);

		if (lc_settime(lcp_tk, LC_CLOCK_TAI, &t) < 0)
			die("cannot set the pretend instant");
	}
	lcp_mark_synced(LC_ADJ_STATUS);
}

/* In a sandbox, its page (on the host's CLOCK_MONOTONIC: cmd_run.c)
 * serves the program's MONOTONIC and BOOTTIME too (shim.h lcp_sb_mono),
 * BOOTTIME at the offset the sandbox started with (sandbox.h). */
static void init_sandbox_mono(void)
{
	const char *v = getenv(LCP_ENV_SB_BOOT), *end;

	if (!lcp_page || !lcp_sb_on() || lcp_rel_pg != NULL)
		return;
	end = v != NULL ? lcp_parse_u64(v, &lcp_boot_off) : NULL;
	if (end == NULL || *end != '\0') {
		char buf[32];

		lcp_boot_off = lcp_sb_boot_sample(lcp_raw_clock_gettime);
		snprintf(buf, sizeof(buf), "%" PRId64, lcp_boot_off);
		setenv(LCP_ENV_SB_BOOT, buf, 1);
	}
	atomic_store_explicit(&lcp_sb_mono, 1, memory_order_relaxed);
}

/* Opens the shim for calls: the smear span, the writer's first update,
 * the fork handler, and the expired table's warning. */
static void init_ready(const struct lc_leaptable_info *tinfo)
{
	if (lcp_sm.on)
		lcp_sm_replan();
	{
		/* on the timekeeper's MONOTONIC, which the reads compare
		 * (a RAW page's is not the host's) */
		int64_t mono;

		(void)lcp_exact_rt(&mono);
		atomic_store(&lcp_next_update, mono + LC__NS);
	}
	atomic_store_explicit(&lcp_state, LCP_ST_READY, memory_order_release);
	pthread_atfork(NULL, NULL, lcp_timers_after_fork);
	warn_expired(tinfo);
}

/* LEAPCLOCK_DEBUG: the configuration, on stderr. */
static void say_config(void)
{
	const struct lc__smear_clock *sp;
	struct timespec now;
	char buf[64];
	int64_t w;
	int d;

	lc_gettime(lcp_tk, LC_CLOCK_UTC, &now);
	lc_iso8601_format(&now, 6, buf, sizeof(buf));
	lcp_say("mode %s%s, realtime %s, TAI-UTC %d",
	        lcp_sm.on ? "smear:" : "exact",
	        lcp_sm.on ? lcp_sm.policy.name : "", buf,
	        (int)lc__fdiv(lcp_prog_tai() - lcp_exact_rt(&w) + LC__NS / 2,
	                      LC__NS));
	if (lc_tk_next_leap(lcp_tk, &w, &d) == 0)
		lcp_say("next leap: %s second before %" PRId64
		        " (POSIX), in %.3f s",
		        d > 0 ? "inserted" : "deleted", w,
		        (double)((d > 0 ? w : w - 1) * LC__NS - lcp_prog_rt()) /
		                1e9);
	sp = lcp_sm_cur();
	if (sp != NULL)
		lcp_say("smear window: %.3f s .. %.3f s from now",
		        (double)(sp->span.plan.start_mono - lcp_prog_tai()) /
		            1e9,
		        (double)(sp->span.plan.end_mono - lcp_prog_tai()) /
		            1e9);
}

/* The start: once, from the constructor or from the first call that comes
 * earlier (another library's constructor). A page to read, else a
 * timekeeper of the program's own (a rehearsal, or no page). */
void lcp_init(void)
{
	int expect = LCP_ST_NONE;
	struct lc_leaptable_info tinfo;
	int64_t anchor, tai0 = 0;
	int pretend;

	if (!atomic_compare_exchange_strong(&lcp_state, &expect, LCP_ST_INIT))
		return;
	atomic_store(&g_init_tid, (pid_t)syscall(SYS_gettid));
	resolve_all();
	if (reals_found() < 0) {
		lcp_say("cannot find the C library's time functions; passing "
		        "every call through");
		atomic_store(&lcp_state, LCP_ST_OFF);
		return;
	}
	init_mode();
	memset(&tinfo, 0, sizeof(tinfo));
	tinfo.expires = INT64_MIN;
	if (open_page()) {
		lc_leaptable_info(lcp_table, &tinfo);
	} else {
		own_table(&tinfo);
		anchor = rehearsal_anchor();
		rehearsal_leap();
		pretend = rehearsal_pretend(&tai0);
		own_timekeeper(pretend, tai0, anchor);
	}
	init_sandbox_mono();
	init_ready(&tinfo);
	if (g_debug)
		say_config();
}

__attribute__((constructor)) static void lcp_ctor(void)
{
	lcp_init();
}
