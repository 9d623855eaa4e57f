/*
 * clock.c - the program's clocks in libleapclock-preload.so: the writer
 * that keeps its timekeeper (and the smear span) current, the reads
 * (clock_gettime, gettimeofday, time, timespec_get, clock_getres), the
 * settings it refuses, and absolute deadlines on its clocks converted into
 * host CLOCK_MONOTONIC ones for the modules that wait (wait.c, timers.c).
 * preload.c has the design; shim.h the inline read path.
 */
#define _GNU_SOURCE

#include "shim.h"

#include "sandbox.h"

#include <errno.h>
#include <string.h>

/* Not declared by glibc >= 2.31 headers; the symbol still exists. */
LCP_EXPORT int stime(const time_t *t);

struct lcp_smear lcp_sm;
_Atomic int64_t lcp_next_update = INT64_MAX;
_Atomic int lcp_writer;

/* ---- the writer ---------------------------------------------------------- */

/* Our own timekeeper's NTP state (never the host's): no STA_UNSYNC and a
 * zero maximum error (which would grow back to the unsynchronised limit in
 * 8.9 h: re-zeroed at each update), so that its adjtimex answers the pure
 * leap state (TIME_INS, TIME_OOP, TIME_WAIT); the host's own sync verdict
 * is combined in ntp.c. Writer only. */
void lcp_mark_synced(unsigned int extra_modes)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	if (extra_modes & LC_ADJ_STATUS) {
		/* STA_UNSYNC off, the rest kept: the STA_INS/STA_DEL the
		 * table armed at the timekeeper's creation (a start in the
		 * leap's last day) stay */
		lc_adjtimex(lcp_tk, &tx);
		tx.status &= ~LC_STA_UNSYNC;
	}
	tx.modes = LC_ADJ_MAXERROR | LC_ADJ_ESTERROR | extra_modes;
	tx.maxerror = 0;
	tx.esterror = 0;
	lc_adjtimex(lcp_tk, &tx);
}

void lcp_update_slow(int64_t mono)
{
	if (!lcp_writer_try())
		return; /* another thread, or the code we interrupted */
	if (mono >=
	    atomic_load_explicit(&lcp_next_update, memory_order_relaxed)) {
		lc_update(lcp_tk);
		lcp_mark_synced(0);
		if (lcp_sm.on)
			lcp_sm_replan(); /* a leap the table gained, the
			                  * next one */
		atomic_store_explicit(&lcp_next_update, mono + LC__NS,
		                      memory_order_relaxed);
	}
	lcp_writer_done();
}

/* Makes the smear clock of the table leap at hand (the one around the
 * program's REALTIME, or the next) and publishes it if its span differs
 * from the current one's or the current one's fast pieces are running
 * out. The writer's (under lcp_writer_try, or in lcp_init() before any
 * reader). */
void lcp_sm_replan(void)
{
	const lc_leaptable *t = lcp_page ? lc_tk_table(lcp_tk) : lcp_table;
	const struct lc__smear_clock *cur = lcp_sm_cur();
	struct lc__smear_clock *np = &lcp_sm.slot[lcp_sm.next];
	int64_t mono, rt = lcp_exact_rt(&mono);
	int64_t tai = mono + (int64_t)lc__tk_read_word(lcp_tk,
	                                               LC__TKW(offs_tai));

	if (t == NULL ||
	    lc__smear_clock_set(np, t, &lcp_sm.policy, rt, tai) < 0 ||
	    np->span.dir == 0) {
		atomic_store_explicit(&lcp_sm.cur, NULL, memory_order_release);
		return;
	}
	if (cur != NULL && cur->span.leap_when == np->span.leap_when &&
	    cur->span.dir == np->span.dir && cur->span.lo == np->span.lo &&
	    cur->span.hi == np->span.hi &&
	    (!lc__smear_clock_inside(cur, rt) ||
	     !lc__smear_clock_ending(cur, tai, LCP_SM_MARGIN)))
		return; /* the clock in force */
	lcp_sm.next = (lcp_sm.next + 1) % LCP_SM_SLOTS;
	atomic_store_explicit(&lcp_sm.cur, np, memory_order_release);
}

/* ---- the program's clocks ------------------------------------------------ */

/* The program's CLOCK_TAI in ns. */
int64_t lcp_prog_tai(void)
{
	return lc__tk_read_mono_plus(lcp_tk, LC__TKW(offs_tai), 1);
}

/* The sandbox's MONOTONIC (lcp_sb_mono): the timekeeper's own, at the
 * rate its adjtimex set. */
static int64_t prog_mono(void)
{
	int64_t mono = lc__tk_read_mono(lcp_tk);

	lcp_maybe_update(mono);
	return mono;
}

int64_t lcp_prog_now(int which)
{
	switch (which) {
	case 2:
		return lcp_prog_tai();
	case 3:
		return prog_mono();
	case 4:
		return prog_mono() + lcp_boot_off;
	default:
		return lcp_prog_rt();
	}
}

/* The page's counter (ns) as host CLOCK_MONOTONIC: itself on a MONOTONIC
 * page; on a RAW page through its relation from a (RAW, MONOTONIC) pair
 * read now, RAW first (so the distance is never short): with the margin
 * (`never_early`, a kernel timer: never before the counter reaches it
 * while the host's MONOTONIC runs within the margin of the rate the
 * writer measured), else at the rate measured (a wait that re-checks). */
static int64_t counter_to_host_mono(int64_t cns, int never_early)
{
	struct lc__tl_rel r;
	int64_t cnow, mnow;

	if (lcp_rel_pg == NULL)
		return cns;
	lc__tl_read_rel(lcp_rel_pg, &r);
	if (!never_early)
		r.margin_ppb = 0;
	cnow = lcp_host_ns(CLOCK_MONOTONIC_RAW);
	mnow = lcp_host_ns(CLOCK_MONOTONIC);
	return lc__tl_rel_mono_at(&r, cnow, mnow, cns);
}

/* In a sandbox, a count of the rate changes seen: the snapshot's mult
 * (MONOTONIC ns per counter cycle) that its adjtimex (ADJ_FREQUENCY,
 * ADJ_TICK, the PLL's slew) moves. A kernel timer converted at the old
 * rate fires early when the clock slows, late when it speeds up, so the
 * rate's moves count as the relation's do (timers.c re-arms them). Only
 * grows. */
static uint64_t rate_gen(void)
{
	static _Atomic uint64_t last_mult, gen;
	uint64_t m;

	if (lcp_ours(CLOCK_MONOTONIC) != 3)
		return 0;
	m = lc__tk_read_word(lcp_tk, LC__TKW(mult));
	if (atomic_load_explicit(&last_mult, memory_order_relaxed) != m &&
	    atomic_exchange(&last_mult, m) != m)
		atomic_fetch_add(&gen, 1);
	return atomic_load(&gen);
}

uint64_t lcp_rel_gen(void)
{
	struct lc__tl_rel r;

	if (lcp_rel_pg == NULL)
		return rate_gen();
	lc__tl_read_rel(lcp_rel_pg, &r);
	return (uint64_t)r.gen;
}

static int to_host_mono(int which, const struct timespec *abs,
                        struct timespec *out, int never_early);

/* An absolute deadline on our clock `which` as a host CLOCK_MONOTONIC
 * deadline (the first host instant at which the program's clock reads at or
 * past it). LC_EINVAL for a bad timespec. */
int lcp_to_host_mono(int which, const struct timespec *abs,
                     struct timespec *out)
{
	return to_host_mono(which, abs, out, 1);
}

int lcp_to_host_mono_wait(int which, const struct timespec *abs,
                          struct timespec *out)
{
	return to_host_mono(which, abs, out, 0);
}

static int to_host_mono(int which, const struct timespec *abs,
                        struct timespec *out, int never_early)
{
	const struct lc__smear_clock *c;
	int64_t d, mono;
	uint64_t cyc;
	int rc;

	if (abs->tv_nsec < 0 || abs->tv_nsec >= LC__NS)
		return LC_EINVAL;
	if ((int64_t)abs->tv_sec > INT64_MAX / LC__NS - 2) {
		out->tv_sec = (time_t)(INT64_MAX / LC__NS);
		out->tv_nsec = 0;
		return 0;
	}
	if ((int64_t)abs->tv_sec < 0) {
		out->tv_sec = 0;
		out->tv_nsec = 0;
		return 0;
	}
	d = lc__ts_to_ns(abs);
	if (which >= 3) {
		/* the sandbox's MONOTONIC (BOOTTIME: it plus the offset) */
		mono = which == 4 ? d - lcp_boot_off : d;
	} else if (which == 1 && (c = lcp_sm_cur()) != NULL &&
	    lc__smear_clock_inside(c, d)) {
		const struct lc__smear_span *sp = &c->span;

		/* The span's exact inverse, on TAI, then to MONOTONIC with
		 * the timeline's TAI offset now (outside the span the smeared
		 * REALTIME is the exact one, converted below). */
		mono = lc__smear_plan_mono_at(&sp->plan, -sp->old_ns, d) -
		       (int64_t)lc__tk_read_word(lcp_tk, LC__TKW(offs_tai));
	} else {
		/* During a repeated 23:59:59 a deadline later in it is its
		 * repeated occurrence, from now on (lc__tk_mono_at's
		 * contract, as Linux's hrtimer; test_timekeeper
		 * test_mono_at_repeat). */
		rc = lc__tk_mono_at(lcp_tk, which == 2 ? LC_CLOCK_TAI
		                                      : LC_CLOCK_REALTIME,
		                   abs, &mono);
		if (rc < 0)
			return rc;
	}
	/* counter cycles are ns of the host's MONOTONIC or MONOTONIC_RAW
	 * (the page's counter is one of them at 1 GHz: preload.c) */
	lc__tk_cycles_at(lcp_tk, mono, &cyc);
	if (cyc > (uint64_t)INT64_MAX)
		cyc = (uint64_t)INT64_MAX;
	mono = counter_to_host_mono((int64_t)cyc, never_early);
	*out = lc__ns_to_ts(mono < 0 ? 0 : mono);
	return 0;
}

int lcp_reached(int which, const struct timespec *abs)
{
	return lcp_prog_now(which) >= lc__ts_to_ns(abs);
}

/* ---- reading clocks ------------------------------------------------------ */

/* clock_gettime(), called by name nowhere in the shim: a call by name
 * would bind to the exported symbol through the PLT (readelf -rW;
 * tests/preload_binds.sh). */
static int read_clock(clockid_t clk, struct timespec *ts)
{
	/* CLOCK_REALTIME_ALARM reads the realtime clock too (its timers stay
	 * the host's: see docs/preload.md); in a sandbox the coarse and
	 * alarm forms of MONOTONIC and BOOTTIME read the sandbox's */
	int which = clk == CLOCK_REALTIME_ALARM ? 1 : lcp_ours(clk);

	if (which == 0 && lcp_ours(CLOCK_MONOTONIC) == 3) {
		if (clk == CLOCK_MONOTONIC_COARSE)
			which = 3;
		else if (clk == CLOCK_BOOTTIME_ALARM)
			which = 4;
		else if (clk == CLOCK_MONOTONIC_RAW)
			/* the sandbox's counter, unsteered: the host's
			 * MONOTONIC (its page's counter, at 1 GHz) */
			return lcp_raw_clock_gettime(CLOCK_MONOTONIC, ts);
	}

	if (which == 0 || lc__unlikely(!lcp_ready()))
		return lcp_raw_clock_gettime(clk, ts);
	if (lcp_null(ts)) {
		errno = EFAULT;
		return -1;
	}
	lc__tk_ns_to_ts(lcp_prog_now(which), ts);
	return 0;
}

LCP_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	return read_clock(clk, ts);
}

LCP_EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	int64_t ns;

	if (!lcp_ready()) {
		__typeof__(gettimeofday) *f =
			(__typeof__(gettimeofday) *)REAL(gettimeofday);
		return f ? f(tv, tz) : (int)syscall(SYS_gettimeofday, tv, tz);
	}
	if (tz != NULL) {
		struct timeval dummy;

		REAL(gettimeofday)(&dummy, tz);
	}
	if (!lcp_null(tv)) {
		ns = lcp_prog_rt();
		tv->tv_sec = (time_t)lc__fdiv(ns, LC__NS);
		tv->tv_usec = (suseconds_t)(lc__fmod(ns, LC__NS) / 1000);
	}
	return 0;
}

LCP_EXPORT time_t time(time_t *t)
{
	struct timespec ts;
	time_t v;

	if (!lcp_ready()) {
		lcp_raw_clock_gettime(CLOCK_REALTIME, &ts);
		v = ts.tv_sec;
	} else {
		v = (time_t)lc__fdiv(lcp_prog_rt(), LC__NS);
	}
	if (t != NULL)
		*t = v;
	return v;
}

LCP_EXPORT int timespec_get(struct timespec *ts, int base)
{
	if (base != TIME_UTC)
		return 0;
	if (read_clock(CLOCK_REALTIME, ts) != 0)
		return 0;
	return base;
}

LCP_EXPORT int clock_getres(clockid_t clk, struct timespec *res)
{
	__typeof__(clock_getres) *f = REAL(clock_getres);

	/* REALTIME and TAI are MONOTONIC plus an offset: its resolution. */
	if (lcp_ours(clk) && clk != CLOCK_REALTIME_COARSE)
		clk = CLOCK_MONOTONIC;
	if (f != NULL)
		return f(clk, res);
	return (int)syscall(SYS_clock_getres, clk, res);
}

/* ---- setting clocks: refused, or the sandbox's (sandbox.c) -------------- */

LCP_EXPORT int clock_settime(clockid_t clk, const struct timespec *ts)
{
	if (!lcp_sb_on()) {
		errno = EPERM;
		return -1;
	}
	if (lcp_null(ts)) {
		errno = EFAULT;
		return -1;
	}
	/* Linux sets only CLOCK_REALTIME (CLOCK_TAI and the others have no
	 * clock_set: EINVAL) */
	if (clk != CLOCK_REALTIME) {
		errno = EINVAL;
		return -1;
	}
	return lcp_sb_settime((int64_t)ts->tv_sec, (int64_t)ts->tv_nsec);
}

LCP_EXPORT int settimeofday(const struct timeval *tv, const struct timezone *tz)
{
	if (!lcp_sb_on() || tz != NULL) {
		/* the kernel's timezone is the host's, not the sandbox's */
		errno = EPERM;
		return -1;
	}
	if (tv == NULL)
		return 0; /* neither: nothing to do, as Linux */
	if (tv->tv_usec < 0 || tv->tv_usec >= 1000000) {
		errno = EINVAL;
		return -1;
	}
	return lcp_sb_settime((int64_t)tv->tv_sec,
	                      (int64_t)tv->tv_usec * 1000);
}

LCP_EXPORT int stime(const time_t *t)
{
	if (!lcp_sb_on()) {
		errno = EPERM;
		return -1;
	}
	if (lcp_null(t)) {
		errno = EFAULT;
		return -1;
	}
	return lcp_sb_settime((int64_t)*t, 0);
}
