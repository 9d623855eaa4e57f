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
 *    rest pass through untouched.
 *  - Absolute REALTIME/TAI deadlines are converted into host CLOCK_MONOTONIC
 *    deadlines (lc_tk_mono_at or the plan's inverse; the timekeeper's
 *    MONOTONIC is the host's) and, where the shim waits itself, re-checked
 *    after the wakeup: the program's realtime must have reached the deadline
 *    or the shim waits again. Never early. The kernel-delivered ones
 *    (timerfds, POSIX timers) are re-armed by a watcher thread when the
 *    timeline steps (see "the watcher" below).
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
 * counter, same timeline) but not its timers (timers_after_fork); if
 * another thread held the flag at the fork the child's clock keeps reading
 * correctly but no longer folds leaps.
 */
#define _GNU_SOURCE

#include <time.h> /* before the counter read is redirected, below */

/*
 * The timekeeper's inline read path (timekeeper.h) reads the system counter
 * with clock_gettime(CLOCK_MONOTONIC). Inside the shim that name is our own
 * interposer; redirect the inline copy to the real function so that the
 * hot path costs one call into libc, not two.
 */
static int lcp_counter_clock(clockid_t clk, struct timespec *ts);
#define clock_gettime lcp_counter_clock
#include "timekeeper.h"
#include "timeline.h"
#undef clock_gettime

#include "env.h"
#include "leapclock.h"
#include "smear.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <threads.h>
#include <unistd.h>

#define LCP_EXPORT __attribute__((visibility("default")))

/* Not declared by glibc >= 2.31 headers; the symbol still exists. */
LCP_EXPORT int stime(const time_t *t);
/* ntp_gettime's old ABI (the header redirects the name to ntp_gettimex) */
LCP_EXPORT int lcp_ntp_gettime_compat(struct ntptimeval *ntv)
	__asm__("ntp_gettime");

/* ---- the real functions -------------------------------------------------- */

#define LCP_REALS(X)                                                        \
	X(clock_gettime) X(clock_getres) X(gettimeofday) X(clock_nanosleep) \
	X(timer_create) X(timer_delete) X(timer_settime)                    \
	X(timerfd_create) X(timerfd_settime) X(adjtimex) X(clock_adjtime)   \
	X(adjtime) X(pthread_cond_timedwait) X(pthread_cond_clockwait)      \
	X(sem_clockwait) X(pthread_mutex_clocklock)                         \
	X(pthread_rwlock_clockrdlock) X(pthread_rwlock_clockwrlock)         \
	X(pthread_timedjoin_np) X(pthread_clockjoin_np) X(cnd_timedwait)    \
	X(mtx_timedlock) X(mq_timedsend) X(mq_timedreceive)

#define LCP_DECL(name) static __typeof__(name) *_Atomic real_##name;
LCP_REALS(LCP_DECL)
#undef LCP_DECL

/* The real function, or NULL before it is resolved (relaxed: a pointer
 * resolved by dlsym stays valid; a NULL only sends the caller to the
 * fallback). */
#define REAL(name) atomic_load_explicit(&real_##name, memory_order_relaxed)

static void resolve_all(void)
{
#define LCP_RESOLVE(name)                                                   \
	atomic_store_explicit(&real_##name,                                 \
	                      (__typeof__(name) *)dlsym(RTLD_NEXT, #name), \
	                      memory_order_relaxed);
	LCP_REALS(LCP_RESOLVE)
#undef LCP_RESOLVE
}

/* p == NULL, for arguments the C library declares nonnull: the compiler may
 * not assume them non-NULL here (a NULL from a buggy program gets EFAULT
 * from us, as from the kernel). */
static inline int lcp_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

static int raw_clock_gettime(clockid_t clk, struct timespec *ts)
{
	__typeof__(clock_gettime) *f = REAL(clock_gettime);

	if (f != NULL)
		return f(clk, ts);
	return (int)syscall(SYS_clock_gettime, clk, ts);
}

static int lcp_counter_clock(clockid_t clk, struct timespec *ts)
{
	return raw_clock_gettime(clk, ts);
}

static int64_t host_ns(clockid_t clk)
{
	struct timespec ts;

	raw_clock_gettime(clk, &ts);
	return lc__ts_to_ns(&ts);
}

/* ---- state --------------------------------------------------------------- */

enum { ST_NONE, ST_INIT, ST_READY, ST_OFF };

static _Atomic int g_state;
static _Atomic pid_t g_init_tid; /* the thread running init() */
static lc_timekeeper *g_tk;
static lc_leaptable *g_table;

/* smear mode: the policy, and the library's span of the table leap at
 * hand (lc__smear_span_at: the same pure function leapclockd's smear
 * sockets and `leapclock convert` use). The span's plan runs on TAI, the
 * exact timeline, so a step of the program's timeline moves nothing in it:
 * TAI is read at each smeared read. The writer makes the span again each
 * second (a leap the table gains, the next leap once one is over) and
 * publishes it whole: written into a slot of a small ring that no reader
 * is pointed at, then the current pointer switched (a reader holding the
 * previous one reads it unchanged until the ring comes round,
 * LCP_SM_SLOTS - 1 spans later). */
#define LCP_SM_SLOTS 4
static struct {
	int on;
	struct lc_smear_policy policy;
	struct lc__smear_span slot[LCP_SM_SLOTS];
	unsigned next; /* the writer's: the slot the next span goes in */
	_Atomic(const struct lc__smear_span *) cur; /* NULL: no leap ahead */
} g_sm;

static inline const struct lc__smear_span *sm_cur(void)
{
	return atomic_load_explicit(&g_sm.cur, memory_order_acquire);
}

static void sm_replan(void);
static int g_page; /* 1: g_tk reads the host's (or a named) timeline page */

/* the writer: lc_update at most once a second, under a try-flag */
static _Atomic int64_t g_next_update = INT64_MAX;
static _Atomic int g_writer;

static void init(void);

/* 1 once the shim runs; tries to initialise on a first early call. */
static int ready(void)
{
	int st = atomic_load_explicit(&g_state, memory_order_acquire);

	if (lc__likely(st == ST_READY))
		return 1;
	if (st == ST_NONE)
		init();
	return atomic_load_explicit(&g_state, memory_order_acquire) ==
	       ST_READY;
}

/* For calls that are not async-signal-safe anyway: waits for another
 * thread's init (never for our own, which would be recursion). */
static int ready_wait(void)
{
	while (!ready()) {
		if (atomic_load(&g_state) != ST_INIT ||
		    atomic_load(&g_init_tid) == (pid_t)syscall(SYS_gettid))
			return 0;
		sched_yield();
	}
	return 1;
}

/* ---- the writer ---------------------------------------------------------- */

static int writer_try(void)
{
	return atomic_exchange_explicit(&g_writer, 1, memory_order_acquire) ==
	       0;
}

static void writer_done(void)
{
	atomic_store_explicit(&g_writer, 0, memory_order_release);
}

/* Our own timekeeper's NTP state (never the host's): no STA_UNSYNC and a
 * zero maximum error (which would grow back to the unsynchronised limit in
 * 8.9 h: re-zeroed at each update), so that its adjtimex answers the pure
 * leap state (TIME_INS, TIME_OOP, TIME_WAIT); the host's own sync verdict
 * is combined in timex_read(). Writer only. */
static void mark_synced(unsigned int extra_modes)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_MAXERROR | LC_ADJ_ESTERROR | extra_modes;
	lc_adjtimex(g_tk, &tx);
}

static void update_slow(int64_t mono)
{
	if (!writer_try())
		return; /* another thread, or the code we interrupted */
	if (mono >=
	    atomic_load_explicit(&g_next_update, memory_order_relaxed)) {
		lc_update(g_tk);
		mark_synced(0);
		if (g_sm.on)
			sm_replan(); /* a leap the table gained, the next one */
		atomic_store_explicit(&g_next_update, mono + LC__NS,
		                      memory_order_relaxed);
	}
	writer_done();
}

/* 0 when the timekeeper must never run its writer (see init()). */
static int g_updates_ok;

static inline void maybe_update(int64_t mono)
{
	if (lc__unlikely(mono >= atomic_load_explicit(&g_next_update,
	                                              memory_order_relaxed)))
		update_slow(mono);
}

/* ---- the program's clocks ------------------------------------------------ */

/* The timekeeper's REALTIME (exact leap) and the MONOTONIC it was read at:
 * the library's one reader (timekeeper.h). */
static inline int64_t exact_rt(int64_t *mono_out)
{
	return lc__tk_read_rt_at(g_tk, 1, mono_out);
}

/* The program's CLOCK_REALTIME in ns: the exact REALTIME, or inside the
 * span of a leap the smeared one, UTC_SLS = TAI - (TAI-UTC before the
 * leap) - the plan's offset at TAI (the span widens the window and the
 * leap second by 1 s: T and REALTIME differ by up to 1 s around a leap). */
static inline int64_t prog_rt(void)
{
	int64_t mono, rt = exact_rt(&mono);
	const struct lc__smear_span *sp = sm_cur();

	if (lc__unlikely(sp != NULL && rt >= sp->lo && rt < sp->hi)) {
		int64_t tai = mono + (int64_t)lc__tk_read_word(
		                         g_tk, LC__TKW(offs_tai));

		rt = tai - sp->old_ns - lc__smear_plan_offset(&sp->plan, tai);
	}
	maybe_update(mono);
	return rt;
}

/* The program's CLOCK_TAI in ns. */
static int64_t prog_tai(void)
{
	return lc__tk_read_mono_plus(g_tk, LC__TKW(offs_tai), 1);
}

/* Which of our clocks a host clock id is: 1 realtime, 2 TAI, 0 neither. */
static inline int ours(clockid_t clk)
{
	if (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)
		return 1;
	if (clk == CLOCK_TAI)
		return 2;
	return 0;
}

static int64_t prog_now(int which)
{
	return which == 2 ? prog_tai() : prog_rt();
}

/* An absolute deadline on our clock `which` as a host CLOCK_MONOTONIC
 * deadline (the first host instant at which the program's clock reads at or
 * past it). LC_EINVAL for a bad timespec. */
static int to_host_mono(int which, const struct timespec *abs,
                        struct timespec *out)
{
	const struct lc__smear_span *sp;
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
	if (which == 1 && (sp = sm_cur()) != NULL && d >= sp->lo &&
	    d < sp->hi) {
		/* The span's exact inverse, on TAI, then to MONOTONIC with
		 * the timeline's TAI offset now (outside the span the smeared
		 * REALTIME is the exact one, converted below). */
		mono = lc__smear_plan_mono_at(&sp->plan, -sp->old_ns, d) -
		       (int64_t)lc__tk_read_word(g_tk, LC__TKW(offs_tai));
	} else {
		int64_t now_mono, now_rt;

		lc_clock_id id = which == 2 ? LC_CLOCK_TAI : LC_CLOCK_REALTIME;

		rc = lc_tk_mono_at(g_tk, id, abs, &mono);
		if (rc < 0)
			return rc;
		/* lc_tk_mono_at answers the first instant ever: during a
		 * repeated 23:59:59, a deadline later in it was first
		 * reached in the first 23:59:59, already past. The program
		 * (like Linux) waits for its clock from now on: REALTIME
		 * runs with MONOTONIC until the next leap, so the deadline
		 * is d - REALTIME now after now. */
		now_rt = which == 1 ? exact_rt(&now_mono) : 0;
		if (which == 1 && mono < now_mono && now_rt < d)
			mono = now_mono + (d - now_rt);
	}
	lc_tk_cycles_at(g_tk, mono, &cyc); /* counter ns = host MONOTONIC */
	if (cyc > (uint64_t)INT64_MAX)
		cyc = (uint64_t)INT64_MAX;
	*out = lc__ns_to_ts((int64_t)cyc);
	return 0;
}

static int reached(int which, const struct timespec *abs)
{
	return prog_now(which) >= lc__ts_to_ns(abs);
}

/* ---- reading clocks ------------------------------------------------------ */

LCP_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	/* CLOCK_REALTIME_ALARM reads the realtime clock too (its timers stay
	 * the host's: see docs/preload.md) */
	int which = clk == CLOCK_REALTIME_ALARM ? 1 : ours(clk);

	if (which == 0 || lc__unlikely(!ready()))
		return raw_clock_gettime(clk, ts);
	if (lcp_null(ts)) {
		errno = EFAULT;
		return -1;
	}
	lc__tk_ns_to_ts(prog_now(which), ts);
	return 0;
}

LCP_EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	int64_t ns;

	if (!ready()) {
		__typeof__(gettimeofday) *f =
			(__typeof__(gettimeofday) *)REAL(gettimeofday);
		return f ? f(tv, tz) : (int)syscall(SYS_gettimeofday, tv, tz);
	}
	if (tz != NULL) {
		struct timeval dummy;

		REAL(gettimeofday)(&dummy, tz);
	}
	if (!lcp_null(tv)) {
		ns = prog_rt();
		tv->tv_sec = (time_t)lc__fdiv(ns, LC__NS);
		tv->tv_usec = (suseconds_t)(lc__fmod(ns, LC__NS) / 1000);
	}
	return 0;
}

LCP_EXPORT time_t time(time_t *t)
{
	struct timespec ts;
	time_t v;

	if (!ready()) {
		raw_clock_gettime(CLOCK_REALTIME, &ts);
		v = ts.tv_sec;
	} else {
		v = (time_t)lc__fdiv(prog_rt(), LC__NS);
	}
	if (t != NULL)
		*t = v;
	return v;
}

LCP_EXPORT int timespec_get(struct timespec *ts, int base)
{
	if (base != TIME_UTC)
		return 0;
	if (clock_gettime(CLOCK_REALTIME, ts) != 0)
		return 0;
	return base;
}

LCP_EXPORT int clock_getres(clockid_t clk, struct timespec *res)
{
	__typeof__(clock_getres) *f = REAL(clock_getres);

	/* REALTIME and TAI are MONOTONIC plus an offset: its resolution. */
	if (ours(clk) && clk != CLOCK_REALTIME_COARSE)
		clk = CLOCK_MONOTONIC;
	if (f != NULL)
		return f(clk, res);
	return (int)syscall(SYS_clock_getres, clk, res);
}

/* ---- setting clocks: refused --------------------------------------------- */

LCP_EXPORT int clock_settime(clockid_t clk, const struct timespec *ts)
{
	(void)clk;
	(void)ts;
	errno = EPERM;
	return -1;
}

LCP_EXPORT int settimeofday(const struct timeval *tv, const struct timezone *tz)
{
	(void)tv;
	(void)tz;
	errno = EPERM;
	return -1;
}

LCP_EXPORT int stime(const time_t *t)
{
	(void)t;
	errno = EPERM;
	return -1;
}

LCP_EXPORT int adjtime(const struct timeval *delta, struct timeval *olddelta)
{
	if (delta != NULL) {
		errno = EPERM;
		return -1;
	}
	if (REAL(adjtime) == NULL && !ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	return REAL(adjtime)(NULL, olddelta); /* read-only */
}

/* adjtimex/ntp_adjtime/clock_adjtime(REALTIME): modes 0 (or the singleshot
 * read) only. The host's own NTP state (frequency, errors, sync status) is
 * read with a fresh modes-0 timex; the time, the TAI offset, the leap bits
 * and the clock state are leapclock's, so the program sees TIME_INS,
 * TIME_OOP, TIME_WAIT... at its own leap, whatever the host does. */
static int timex_read(struct timex *tx)
{
	struct timex h;
	struct lc_timex l;
	int64_t rt;
	int rc, tries = 0, host_rc;
	unsigned int modes;

	if (lcp_null(tx)) {
		errno = EFAULT;
		return -1;
	}
	modes = tx->modes;
	if (modes != 0 && modes != ADJ_OFFSET_SS_READ) {
		errno = EPERM;
		return -1;
	}
	if (!ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.modes = modes; /* 0 or ADJ_OFFSET_SS_READ: both read-only */
	host_rc = REAL(adjtimex)(&h);
	if (host_rc < 0)
		return host_rc;
	memset(&l, 0, sizeof(l));
	if (!g_updates_ok || lc__tk_is_reader(g_tk)) {
		rc = lc__tk_snapshot_timex(g_tk, &l);
	} else {
		while (!writer_try()) {
			if (++tries > 1000) {
				errno = EAGAIN;
				return -1;
			}
			sched_yield();
		}
		rc = lc_adjtimex_unprivileged(g_tk, &l);
		writer_done();
	}
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	*tx = h;
	tx->modes = modes;
	tx->status = (h.status & ~(STA_INS | STA_DEL)) |
	             (l.status & (STA_INS | STA_DEL));
	tx->tai = l.tai;
	rt = prog_rt();
	tx->time.tv_sec = (time_t)lc__fdiv(rt, LC__NS);
	tx->time.tv_usec = (suseconds_t)(lc__fmod(rt, LC__NS) /
	                                 ((h.status & STA_NANO) ? 1 : 1000));
	if (g_sm.on) {
		/* A smeared clock hides the leap, as a host synced to a
		 * smearing server sees none: no leap bits, no leap state
		 * (a program acting on TIME_INS would apply the leap a
		 * second time on top of the smear). */
		tx->status &= ~(STA_INS | STA_DEL);
		return host_rc == TIME_ERROR ? TIME_ERROR : TIME_OK;
	}
	if (rc == TIME_OOP) /* the repeated second: Linux reads 23:59:59 */
		tx->time.tv_sec = (time_t)(l.time.tv_sec);
	/* The leap states are the program's; otherwise the host's verdict
	 * (TIME_ERROR when it is unsynchronised). */
	if (rc == TIME_INS || rc == TIME_DEL || rc == TIME_OOP ||
	    rc == TIME_WAIT)
		return rc;
	return host_rc == TIME_ERROR ? TIME_ERROR : rc;
}

LCP_EXPORT int adjtimex(struct timex *tx)
{
	return timex_read(tx);
}

LCP_EXPORT int ntp_adjtime(struct timex *tx)
{
	return timex_read(tx);
}

LCP_EXPORT int clock_adjtime(clockid_t clk, struct timex *tx)
{
	struct timex h;

	if (lcp_null(tx)) {
		errno = EFAULT;
		return -1;
	}
	if (clk == CLOCK_REALTIME)
		return timex_read(tx);
	if (tx->modes != 0) {
		errno = EPERM;
		return -1;
	}
	if (!ready_wait() || REAL(clock_adjtime) == NULL) {
		errno = EAGAIN;
		return -1;
	}
	memset(&h, 0, sizeof(h)); /* a fresh, read-only request */
	h.modes = 0;
	{
		int rc = REAL(clock_adjtime)(clk, &h);

		if (rc >= 0)
			*tx = h;
		return rc;
	}
}

/* The read-only adjtimex, as ntp_gettime(x) reports it; `with_tai` is 0
 * for the old struct (time, maxerror, esterror only). */
static int ntptimeval_read(struct ntptimeval *ntv, int with_tai)
{
	struct timex tx;
	int rc;

	memset(&tx, 0, sizeof(tx));
	rc = timex_read(&tx);
	if (rc < 0)
		return rc;
	ntv->time = tx.time;
	if (tx.status & STA_NANO)
		ntv->time.tv_usec /= 1000;
	ntv->maxerror = tx.maxerror;
	ntv->esterror = tx.esterror;
	if (with_tai)
		ntv->tai = tx.tai;
	return rc;
}

LCP_EXPORT int ntp_gettimex(struct ntptimeval *ntv)
{
	return ntptimeval_read(ntv, 1);
}

int lcp_ntp_gettime_compat(struct ntptimeval *ntv)
{
	return ntptimeval_read(ntv, 0);
}

/* ---- sleeping until a deadline ------------------------------------------- */

LCP_EXPORT int clock_nanosleep(clockid_t clk, int flags,
                               const struct timespec *req,
                               struct timespec *rem)
{
	__typeof__(clock_nanosleep) *f = REAL(clock_nanosleep);
	int which = ours(clk);
	struct timespec m;
	int rc;

	if (clk == CLOCK_REALTIME_COARSE)
		which = 0; /* not a valid sleep clock: let the host say so */
	if (f == NULL || which == 0 || !(flags & TIMER_ABSTIME) || !ready())
		return f ? f(clk, flags, req, rem)
		         : (syscall(SYS_clock_nanosleep, clk, flags, req,
		                    rem) == 0 ? 0 : errno);
	if (req == NULL)
		return EFAULT;
	for (;;) {
		if (to_host_mono(which, req, &m) < 0)
			return EINVAL;
		rc = f(CLOCK_MONOTONIC, TIMER_ABSTIME, &m, NULL);
		if (rc != 0)
			return rc; /* EINTR: no remainder when absolute */
		if (reached(which, req))
			return 0;
	}
}

/* ---- converted deadlines that must follow steps -------------------------- */

/*
 * A kernel-delivered timer (a timerfd the program reads, a POSIX timer's
 * signal or thread) armed at an absolute REALTIME/TAI deadline runs on the
 * host MONOTONIC instant that deadline had when it was armed. When the
 * program's timeline steps (its page's writer follows a host step, a
 * rehearsal page is set), that instant is stale: a step back would fire
 * the timer before its clock reads the deadline (invariant 2), a step
 * forward late. So each such timer keeps a record of its deadline, and
 * the watcher thread (below) re-arms it on the timeline's new mapping
 * whenever lc_clock_was_set_seq() moves.
 *
 * A record is written by the program's settime call under its own
 * sequence count (odd while written; no lock: timer_settime is
 * async-signal-safe) and read only by the watcher, which also updates
 * `mono` after a re-arm.
 */
struct lcp_arm {
	_Atomic uint32_t seq;
	_Atomic int which;    /* 0 not armed absolute, 1 realtime, 2 TAI */
	_Atomic int64_t dl;   /* the deadline on the program's clock, ns */
	_Atomic int64_t iv;   /* the interval, ns; 0 one-shot */
	_Atomic int64_t mono; /* host MONOTONIC of dl as armed (periodic: of
	                       * the grid's origin dl) */
};

static void arm_note(struct lcp_arm *a, int which, int64_t dl, int64_t iv,
                     int64_t mono)
{
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&a->dl, dl, memory_order_relaxed);
	atomic_store_explicit(&a->iv, iv, memory_order_relaxed);
	atomic_store_explicit(&a->mono, mono, memory_order_relaxed);
	atomic_store_explicit(&a->which, which, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_release);
}

static void arm_off(struct lcp_arm *a)
{
	if (atomic_load_explicit(&a->which, memory_order_relaxed) == 0)
		return;
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&a->which, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->seq, 1, memory_order_release);
}

static void watch_start(uint64_t seq0);
static void watch_after_fork(void);

/* The sequence a conversion is made at: if it moved by the time the
 * kernel holds the result, the caller converts again (the watcher may
 * have re-armed the timer in between with the new mapping, and our stale
 * arming would undo it). */
static uint64_t cws_now(void)
{
	return lc_clock_was_set_seq(g_tk);
}

/*
 * Arms `fd` (a timerfd) or `t` (a POSIX timer) at the absolute deadline
 * nv->it_value on our clock `which`, converted into host MONOTONIC, and
 * records it in `a` (NULL: not followed). `flags` are the kernel call's
 * (TIMER_ABSTIME and TFD_TIMER_ABSTIME are both 1).
 */
static int arm_abs(struct lcp_arm *a, int fd, timer_t t, int which,
                   int flags, const struct itimerspec *nv,
                   struct itimerspec *ov)
{
	struct itimerspec v = *nv;
	uint64_t seq0;
	int rc, tries = 0;

	for (;;) {
		seq0 = cws_now();
		if (to_host_mono(which, &nv->it_value, &v.it_value) < 0) {
			errno = EINVAL;
			return -1;
		}
		if (v.it_value.tv_sec == 0 && v.it_value.tv_nsec == 0)
			v.it_value.tv_nsec = 1; /* past: fire now, don't disarm */
		if (a != NULL) {
			arm_note(a, which, lc__ts_to_ns(&nv->it_value),
			         lc__ts_to_ns(&nv->it_interval),
			         lc__ts_to_ns(&v.it_value));
			watch_start(seq0);
		}
		rc = fd >= 0 ? REAL(timerfd_settime)(fd, flags, &v, ov)
		             : REAL(timer_settime)(t, flags, &v, ov);
		if (rc != 0 && a != NULL)
			arm_off(a); /* the kernel kept what it had */
		if (rc != 0 || a == NULL || cws_now() == seq0 || ++tries == 4)
			return rc;
		ov = NULL; /* the old value was the caller's, now ours */
	}
}

/* ---- POSIX timers and timerfds ------------------------------------------- */

/* POSIX timers created on REALTIME/TAI run on CLOCK_MONOTONIC; this table
 * remembers which. A slot holds the key timer_t + 1 (so that kernel timer
 * id 0 does not look like an empty slot) and, beside it, which clock (1
 * realtime, 2 TAI). The key uses every bit: glibc's SIGEV_THREAD timers
 * are INTPTR_MIN | pointer >> 1, with the top bit set, so no bit of a
 * timer_t is free to hold the clock. Lock-free: slots are claimed and freed
 * by compare-and-swap; a slot's clock is written after its claim and before
 * timer_create returns the id, so nobody can look that id up earlier. */
#define LCP_TIMERS 1024
static _Atomic uintptr_t g_timer_key[LCP_TIMERS];
static _Atomic int g_timer_which[LCP_TIMERS];
static struct lcp_arm g_timer_arm[LCP_TIMERS];

static _Atomic int g_timer_count;

static uintptr_t timer_key(timer_t t)
{
	return (uintptr_t)t + 1;
}

/* Where the search for a key starts (then every slot, wrapping): timer_t
 * values are small kernel ids or pointers, so this is usually the slot. */
static int timer_slot0(uintptr_t k)
{
	return (int)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 54) &
	       (LCP_TIMERS - 1);
}

/* The slot holding t's key, or -1. */
static int timer_find(timer_t t)
{
	uintptr_t k = timer_key(t);
	int i0 = timer_slot0(k);

	if (atomic_load_explicit(&g_timer_count, memory_order_relaxed) == 0)
		return -1;
	for (int j = 0; j < LCP_TIMERS; j++) {
		int i = (i0 + j) & (LCP_TIMERS - 1);

		if (atomic_load_explicit(&g_timer_key[i],
		                         memory_order_acquire) == k)
			return i;
	}
	return -1;
}

/* t's clock (0 not ours) and its slot in *slot */
static int timer_lookup(timer_t t, int *slot)
{
	int i = timer_find(t);

	*slot = i;
	return i < 0 ? 0
	             : atomic_load_explicit(&g_timer_which[i],
	                                    memory_order_relaxed);
}

static int timer_remember(timer_t t, int which)
{
	uintptr_t k = timer_key(t);
	int i0 = timer_slot0(k);

	for (int j = 0; j < LCP_TIMERS; j++) {
		int i = (i0 + j) & (LCP_TIMERS - 1);
		uintptr_t z = 0;

		if (atomic_compare_exchange_strong(&g_timer_key[i], &z, k)) {
			arm_off(&g_timer_arm[i]);
			atomic_store_explicit(&g_timer_which[i], which,
			                      memory_order_relaxed);
			atomic_fetch_add(&g_timer_count, 1);
			return 0;
		}
	}
	return -1;
}

/* Forgets every entry of `t`: the one timer_delete ends, or stale ones
 * that a new timer with the same id must not inherit. */
static void timer_forget(timer_t t)
{
	uintptr_t k = timer_key(t);
	int i = timer_find(t);

	/* every slot holding the key: a stale one may sit before the live */
	for (int j = 0; i >= 0 && j < LCP_TIMERS; j++) {
		int n = (i + j) & (LCP_TIMERS - 1);
		uintptr_t e = k;

		if (atomic_load_explicit(&g_timer_key[n],
		                         memory_order_relaxed) != k)
			continue;
		arm_off(&g_timer_arm[n]);
		if (atomic_compare_exchange_strong(&g_timer_key[n], &e, 0))
			atomic_fetch_sub(&g_timer_count, 1);
	}
}

/*
 * A child starts with no timers (POSIX timers are not inherited by fork),
 * and the kernel numbers its timers afresh: its first CLOCK_MONOTONIC timer
 * took the id of the parent's first CLOCK_REALTIME one, found the parent's
 * entry here, and an absolute MONOTONIC + 2 s was converted as a realtime
 * instant in 1970, so it fired at once. The child's table starts empty
 * (pthread_atfork; only the forking thread runs here), and a new timer
 * drops any entry left under its id (a child made by a bare clone or
 * _Fork, which runs no fork handlers).
 */
static void timers_after_fork(void)
{
	for (int i = 0; i < LCP_TIMERS; i++) {
		arm_off(&g_timer_arm[i]);
		atomic_store_explicit(&g_timer_key[i], 0,
		                      memory_order_relaxed);
	}
	atomic_store(&g_timer_count, 0);
	watch_after_fork();
}

LCP_EXPORT int timer_create(clockid_t clk, struct sigevent *sev,
                            timer_t *id)
{
	int which = ours(clk), rc;

	if (clk == CLOCK_REALTIME_COARSE || !ready_wait())
		which = 0;
	if (which == 0) {
		rc = REAL(timer_create)(clk, sev, id);
		if (rc == 0)
			timer_forget(*id);
		return rc;
	}
	rc = REAL(timer_create)(CLOCK_MONOTONIC, sev, id);
	if (rc == 0)
		timer_forget(*id);
	if (rc == 0 && timer_remember(*id, which) < 0) {
		REAL(timer_delete)(*id);
		errno = EAGAIN;
		return -1;
	}
	return rc;
}

LCP_EXPORT int timer_delete(timer_t id)
{
	if (REAL(timer_delete) == NULL && !ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	timer_forget(id);
	return REAL(timer_delete)(id);
}

LCP_EXPORT int timer_settime(timer_t id, int flags,
                             const struct itimerspec *nv,
                             struct itimerspec *ov)
{
	int which, slot = -1;

	if (REAL(timer_settime) == NULL && !ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	which = nv != NULL ? timer_lookup(id, &slot) : 0;
	if (slot >= 0 && nv != NULL)
		arm_off(&g_timer_arm[slot]); /* re-noted below if absolute */
	if (which == 0 || !(flags & TIMER_ABSTIME) ||
	    (nv->it_value.tv_sec == 0 && nv->it_value.tv_nsec == 0))
		return REAL(timer_settime)(id, flags, nv, ov);
	return arm_abs(&g_timer_arm[slot], -1, id, which, flags, nv, ov);
}

/* timerfds created on CLOCK_REALTIME run on CLOCK_MONOTONIC; a bit per fd
 * says which. A new timerfd on the same number clears or sets it (the old
 * one was closed). */
#define LCP_FDS 65536
static _Atomic uint64_t g_tfd_rt[LCP_FDS / 64];

static void tfd_mark(int fd, int on)
{
	uint64_t bit = UINT64_C(1) << (fd % 64);

	if (fd < 0 || fd >= LCP_FDS)
		return;
	if (on)
		atomic_fetch_or(&g_tfd_rt[fd / 64], bit);
	else
		atomic_fetch_and(&g_tfd_rt[fd / 64], ~bit);
}

static int tfd_is_rt(int fd)
{
	if (fd < 0 || fd >= LCP_FDS)
		return 0;
	return (atomic_load_explicit(&g_tfd_rt[fd / 64],
	                             memory_order_relaxed) >> (fd % 64)) & 1;
}

/* The records of the realtime timerfds armed absolute, by fd (a timerfd
 * numbered LCP_TFD_ARMS or above does not follow steps). A new timerfd on
 * the number clears it; the watcher clears one that is no timerfd any
 * more (the program closed it and the number went to something else). */
#define LCP_TFD_ARMS 4096
static struct lcp_arm g_tfd_arm[LCP_TFD_ARMS];

static struct lcp_arm *tfd_arm(int fd)
{
	return fd >= 0 && fd < LCP_TFD_ARMS ? &g_tfd_arm[fd] : NULL;
}

LCP_EXPORT int timerfd_create(int clk, int flags)
{
	int fd;

	if (clk != CLOCK_REALTIME || !ready_wait()) {
		fd = REAL(timerfd_create) ? REAL(timerfd_create)(clk, flags)
		                          : (int)syscall(SYS_timerfd_create,
		                                         clk, flags);
		if (tfd_arm(fd) != NULL)
			arm_off(tfd_arm(fd));
		tfd_mark(fd, 0);
		return fd;
	}
	fd = REAL(timerfd_create)(CLOCK_MONOTONIC, flags);
	if (fd >= LCP_FDS) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	if (tfd_arm(fd) != NULL)
		arm_off(tfd_arm(fd));
	tfd_mark(fd, 1);
	return fd;
}

LCP_EXPORT int timerfd_settime(int fd, int flags,
                               const struct itimerspec *nv,
                               struct itimerspec *ov)
{
	struct lcp_arm *a;

	if (REAL(timerfd_settime) == NULL && !ready_wait()) {
		errno = EAGAIN;
		return -1;
	}
	if (!tfd_is_rt(fd) || nv == NULL)
		return REAL(timerfd_settime)(fd, flags, nv, ov);
	/* The program's realtime is never set (settime is refused) and its
	 * leaps are not steps of the host clock: a MONOTONIC timerfd has no
	 * cancel-on-set, so the flag goes. */
	flags &= ~TFD_TIMER_CANCEL_ON_SET;
	if (!(flags & TFD_TIMER_ABSTIME) ||
	    (nv->it_value.tv_sec == 0 && nv->it_value.tv_nsec == 0)) {
		a = tfd_arm(fd);
		if (a != NULL)
			arm_off(a);
		return REAL(timerfd_settime)(fd, flags, nv, ov);
	}
	return arm_abs(tfd_arm(fd), fd, NULL, 1, flags, nv, ov);
}

/* ---- the watcher: re-arming converted timers after a step ----------------- */

/*
 * One detached thread per process, started by the first absolute arming of
 * a converted timer (none in programs that never arm one; again in a
 * forked child at its first), with every signal blocked. It wakes on a
 * host REALTIME timerfd with TFD_TIMER_CANCEL_ON_SET (the host's clock was
 * set: the page's writer follows within milliseconds, so it then looks
 * every millisecond for LCP_WATCH_FAST_NS) and otherwise every
 * LCP_WATCH_MS (a rehearsal page set by its writer, a writer that
 * followed late, the program's own timekeeper following the host after
 * its page went stale). When lc_clock_was_set_seq() moved it re-arms every
 * recorded timer that is armed and not yet expired on the new mapping:
 * a one-shot at its deadline, a periodic one at the next point of its
 * grid on the program's clock (deadline + k * interval). It allocates
 * nothing and prints nothing.
 */
#define LCP_WATCH_MS 50
#define LCP_WATCH_FAST_NS (200 * 1000000LL)
#define LCP_WATCH_DEFER_NS (100 * 1000000LL)

static _Atomic int g_watch;          /* 1 once started in this process */
static _Atomic uint64_t g_watch_seq; /* the sequence the records are at */

/*
 * Re-arms the timer of record `a` (timerfd `fd`, else POSIX timer `t`) at
 * the current mapping. Returns 1 if it must be tried again later: a
 * periodic timerfd with expirations the program has not read yet
 * (timerfd_settime would drop them).
 */
static int rearm_one(struct lcp_arm *a, int fd, timer_t t, int force)
{
	for (int tries = 0; tries < 4; tries++) {
		struct itimerspec cur, v;
		struct timespec d;
		uint32_t s = atomic_load_explicit(&a->seq,
		                                  memory_order_acquire);
		int which = atomic_load_explicit(&a->which,
		                                 memory_order_relaxed);
		int64_t dl = atomic_load_explicit(&a->dl, memory_order_relaxed);
		int64_t iv = atomic_load_explicit(&a->iv, memory_order_relaxed);
		int64_t m0 = atomic_load_explicit(&a->mono,
		                                  memory_order_relaxed);
		int64_t k = 0, m;
		int rc;

		atomic_thread_fence(memory_order_acquire);
		if (s & 1)
			continue;
		if (which == 0 ||
		    atomic_load_explicit(&a->seq, memory_order_relaxed) != s)
			return 0;
		rc = fd >= 0 ? timerfd_gettime(fd, &cur) : timer_gettime(t, &cur);
		if (rc != 0) {
			if (fd >= 0 && atomic_load_explicit(
			                   &a->seq, memory_order_relaxed) == s)
				arm_off(a); /* closed: no timer any more */
			return 0;
		}
		/* disarmed, or a one-shot that expired (a timerfd may still
		 * hold its expiration unread: re-arming would drop it) */
		if (cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0)
			return 0;
		if (iv > 0) {
			int64_t next = host_ns(CLOCK_MONOTONIC) +
			               lc__ts_to_ns(&cur.it_value);

			if (fd >= 0 && !force) {
				struct pollfd p = { fd, POLLIN, 0 };

				if (poll(&p, 1, 0) > 0)
					return 1;
			}
			k = (next - m0 + iv / 2) / iv;
			if (k < 0)
				k = 0;
		}
		d = lc__ns_to_ts(dl + k * iv);
		if (to_host_mono(which, &d, &v.it_value) < 0)
			return 0;
		m = lc__ts_to_ns(&v.it_value);
		if (m == m0 + k * iv)
			return 0; /* this step did not move it */
		if (m == 0)
			v.it_value.tv_nsec = 1;
		v.it_interval = lc__ns_to_ts(iv);
		if (atomic_load_explicit(&a->seq, memory_order_acquire) != s)
			continue; /* the program armed it meanwhile */
		rc = fd >= 0 ? REAL(timerfd_settime)(fd, TFD_TIMER_ABSTIME, &v,
		                                     NULL)
		             : REAL(timer_settime)(t, TIMER_ABSTIME, &v, NULL);
		if (rc != 0)
			return 0;
		atomic_store_explicit(&a->mono, m - k * iv,
		                      memory_order_relaxed);
		/* armed by the program while we did: ours may have undone
		 * its arming, so do its record again */
		if (atomic_load_explicit(&a->seq, memory_order_acquire) == s)
			return 0;
	}
	return 0;
}

/* Re-arms every recorded timer; the number that must be tried again. */
static int rearm_all(int force)
{
	int later = 0;

	for (int i = 0; i < LCP_TIMERS; i++) {
		uintptr_t k = atomic_load_explicit(&g_timer_key[i],
		                                   memory_order_acquire);

		if (k != 0 && atomic_load_explicit(&g_timer_arm[i].which,
		                                   memory_order_relaxed))
			later += rearm_one(&g_timer_arm[i], -1,
			                   (timer_t)(k - 1), force);
	}
	for (int fd = 0; fd < LCP_TFD_ARMS; fd++) {
		if (atomic_load_explicit(&g_tfd_arm[fd].which,
		                         memory_order_relaxed) &&
		    tfd_is_rt(fd))
			later += rearm_one(&g_tfd_arm[fd], fd, NULL, force);
	}
	return later;
}

/* A host REALTIME timerfd that wakes us when the host's clock is set. */
static int host_set_fd(void)
{
	struct itimerspec far;
	int fd;

	if (REAL(timerfd_create) == NULL || REAL(timerfd_settime) == NULL)
		return -1;
	fd = REAL(timerfd_create)(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -1;
	memset(&far, 0, sizeof(far));
	far.it_value.tv_sec = (time_t)(sizeof(time_t) > 4 ? INT64_C(1) << 33
	                                                  : INT32_MAX);
	if (REAL(timerfd_settime)(fd,
	                          TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
	                          &far, NULL) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *watch_main(void *arg)
{
	int fd = host_set_fd(), later = 0;
	int64_t fast_until = 0, defer_until = 0;

	(void)arg;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t now = host_ns(CLOCK_MONOTONIC);
		uint64_t seq;

		if (poll(&p, fd >= 0 ? 1 : 0,
		         now < fast_until || later ? 1 : LCP_WATCH_MS) > 0) {
			uint64_t n;

			/* ECANCELED: the host's REALTIME was set */
			if (read(fd, &n, sizeof(n)) < 0 && errno != ECANCELED &&
			    errno != EAGAIN) {
				close(fd);
				fd = -1;
			}
			fast_until = host_ns(CLOCK_MONOTONIC) +
			             LCP_WATCH_FAST_NS;
		}
		now = host_ns(CLOCK_MONOTONIC);
		if (g_updates_ok)
			maybe_update(now); /* a page's table, staleness */
		seq = cws_now();
		if (seq != atomic_load(&g_watch_seq)) {
			atomic_store(&g_watch_seq, seq);
			later = rearm_all(0);
			defer_until = now + LCP_WATCH_DEFER_NS;
			fast_until = 0;
		} else if (later) {
			later = rearm_all(now >= defer_until);
		}
	}
	return NULL;
}

/* Starts the watcher unless it runs; `seq0` is the sequence the caller's
 * deadline was converted at, so that a step right after it is seen. */
static void watch_start(uint64_t seq0)
{
	pthread_attr_t at;
	pthread_t t;
	sigset_t all, old;
	int expect = 0;

	if (lc__likely(atomic_load_explicit(&g_watch, memory_order_relaxed)))
		return;
	if (!atomic_compare_exchange_strong(&g_watch, &expect, 1))
		return;
	atomic_store(&g_watch_seq, seq0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&at) == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 256 * 1024);
		if (pthread_create(&t, &at, watch_main, NULL) == 0)
			pthread_setname_np(t, "leapclock-timer");
		else
			atomic_store(&g_watch, 0); /* the next arming tries */
		pthread_attr_destroy(&at);
	} else {
		atomic_store(&g_watch, 0);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* fork: the child has no watcher; its first arming starts one. */
static void watch_after_fork(void)
{
	atomic_store(&g_watch, 0);
}

/* ---- blocking with a deadline: condvars, semaphores, locks --------------- */

/* glibc keeps a condvar's clock in bit 1 of __wrefs (since 2.25): set for
 * CLOCK_MONOTONIC (pthread_condattr_setclock), clear for the REALTIME
 * default. */
static int cond_is_monotonic(pthread_cond_t *c)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 25)
	return (__atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) & 2) != 0;
#else
	(void)c;
	return 0;
#endif
}

/* The common loop: wait(host MONOTONIC deadline) until it returns other
 * than ETIMEDOUT, or the program's clock has reached the deadline. `wait`
 * returns an error number. */
#define DEADLINE_LOOP(which, abs, CALL)                                     \
	do {                                                                \
		struct timespec m_;                                         \
		int rc_;                                                    \
		for (;;) {                                                  \
			if (to_host_mono((which), (abs), &m_) < 0)          \
				return EINVAL;                              \
			rc_ = (CALL);                                       \
			if (rc_ != ETIMEDOUT || reached((which), (abs)))    \
				return rc_;                                 \
		}                                                           \
	} while (0)

LCP_EXPORT int pthread_cond_timedwait(pthread_cond_t *restrict c,
                                      pthread_mutex_t *restrict mx,
                                      const struct timespec *restrict abs)
{
	if (!ready_wait() || cond_is_monotonic(c) || lcp_null(abs))
		return REAL(pthread_cond_timedwait)(c, mx, abs);
	DEADLINE_LOOP(1, abs, REAL(pthread_cond_clockwait)(
	                              c, mx, CLOCK_MONOTONIC, &m_));
}

LCP_EXPORT int pthread_cond_clockwait(pthread_cond_t *restrict c,
                                      pthread_mutex_t *restrict mx,
                                      clockid_t clk,
                                      const struct timespec *restrict abs)
{
	if (!ready_wait() || clk != CLOCK_REALTIME || lcp_null(abs))
		return REAL(pthread_cond_clockwait)(c, mx, clk, abs);
	DEADLINE_LOOP(1, abs, REAL(pthread_cond_clockwait)(
	                              c, mx, CLOCK_MONOTONIC, &m_));
}

static int sem_rc(int rc)
{
	return rc == 0 ? 0 : errno;
}

static int sem_deadline(sem_t *s, const struct timespec *abs)
{
	DEADLINE_LOOP(1, abs,
	              sem_rc(REAL(sem_clockwait)(s, CLOCK_MONOTONIC, &m_)));
}

LCP_EXPORT int sem_timedwait(sem_t *restrict s,
                             const struct timespec *restrict abs)
{
	int rc;

	if (!ready_wait() || lcp_null(abs))
		return REAL(sem_clockwait)(s, CLOCK_REALTIME, abs);
	rc = sem_deadline(s, abs);
	if (rc == 0)
		return 0;
	errno = rc;
	return -1;
}

LCP_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clk,
                             const struct timespec *restrict abs)
{
	int rc;

	if (!ready_wait() || clk != CLOCK_REALTIME || lcp_null(abs))
		return REAL(sem_clockwait)(s, clk, abs);
	rc = sem_deadline(s, abs);
	if (rc == 0)
		return 0;
	errno = rc;
	return -1;
}

LCP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *restrict mx,
                                       const struct timespec *restrict abs)
{
	if (!ready_wait() || lcp_null(abs))
		return REAL(pthread_mutex_clocklock)(mx, CLOCK_REALTIME, abs);
	DEADLINE_LOOP(1, abs, REAL(pthread_mutex_clocklock)(
	                              mx, CLOCK_MONOTONIC, &m_));
}

LCP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *restrict mx,
                                       clockid_t clk,
                                       const struct timespec *restrict abs)
{
	if (!ready_wait() || clk != CLOCK_REALTIME || lcp_null(abs))
		return REAL(pthread_mutex_clocklock)(mx, clk, abs);
	DEADLINE_LOOP(1, abs, REAL(pthread_mutex_clocklock)(
	                              mx, CLOCK_MONOTONIC, &m_));
}

static int rdlock_deadline(pthread_rwlock_t *l, const struct timespec *abs)
{
	DEADLINE_LOOP(1, abs, REAL(pthread_rwlock_clockrdlock)(
	                              l, CLOCK_MONOTONIC, &m_));
}

static int wrlock_deadline(pthread_rwlock_t *l, const struct timespec *abs)
{
	DEADLINE_LOOP(1, abs, REAL(pthread_rwlock_clockwrlock)(
	                              l, CLOCK_MONOTONIC, &m_));
}

LCP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict l,
                                          const struct timespec *restrict abs)
{
	if (!ready_wait() || lcp_null(abs))
		return REAL(pthread_rwlock_clockrdlock)(l, CLOCK_REALTIME, abs);
	return rdlock_deadline(l, abs);
}

LCP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l,
                                          const struct timespec *restrict abs)
{
	if (!ready_wait() || lcp_null(abs))
		return REAL(pthread_rwlock_clockwrlock)(l, CLOCK_REALTIME, abs);
	return wrlock_deadline(l, abs);
}

LCP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict l,
                                          clockid_t clk,
                                          const struct timespec *restrict abs)
{
	if (!ready_wait() || clk != CLOCK_REALTIME || lcp_null(abs))
		return REAL(pthread_rwlock_clockrdlock)(l, clk, abs);
	return rdlock_deadline(l, abs);
}

LCP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict l,
                                          clockid_t clk,
                                          const struct timespec *restrict abs)
{
	if (!ready_wait() || clk != CLOCK_REALTIME || lcp_null(abs))
		return REAL(pthread_rwlock_clockwrlock)(l, clk, abs);
	return wrlock_deadline(l, abs);
}

/* pthread_timedjoin_np is pthread_clockjoin_np(CLOCK_REALTIME) in glibc;
 * a NULL deadline waits for ever. */
static int join_deadline(pthread_t t, void **ret, const struct timespec *abs)
{
	DEADLINE_LOOP(1, abs, REAL(pthread_clockjoin_np)(
	                              t, ret, CLOCK_MONOTONIC, &m_));
}

LCP_EXPORT int pthread_timedjoin_np(pthread_t t, void **ret,
                                    const struct timespec *abs)
{
	if (!ready_wait() || lcp_null(abs))
		return REAL(pthread_timedjoin_np)(t, ret, abs);
	return join_deadline(t, ret, abs);
}

LCP_EXPORT int pthread_clockjoin_np(pthread_t t, void **ret, clockid_t clk,
                                    const struct timespec *abs)
{
	if (!ready_wait() || clk != CLOCK_REALTIME || lcp_null(abs))
		return REAL(pthread_clockjoin_np)(t, ret, clk, abs);
	return join_deadline(t, ret, abs);
}

/* C11 threads: glibc's cnd_t and mtx_t are its pthread_cond_t and
 * pthread_mutex_t (cnd_timedwait and mtx_timedlock cast them and call the
 * pthread functions internally, which no interposer sees), waiting on the
 * deadline as TIME_UTC, i.e. CLOCK_REALTIME. The error numbers become
 * thrd_* as glibc's thrd_err_map does. */
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t) &&
                       _Alignof(cnd_t) == _Alignof(pthread_cond_t),
               "glibc's cnd_t is a pthread_cond_t");
_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t) &&
                       _Alignof(mtx_t) == _Alignof(pthread_mutex_t),
               "glibc's mtx_t is a pthread_mutex_t");

static int thrd_of(int e)
{
	switch (e) {
	case 0:
		return thrd_success;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	case ENOMEM:
		return thrd_nomem;
	default:
		return thrd_error;
	}
}

static int cnd_deadline(pthread_cond_t *c, pthread_mutex_t *mx,
                        const struct timespec *abs)
{
	DEADLINE_LOOP(1, abs, REAL(pthread_cond_clockwait)(
	                              c, mx, CLOCK_MONOTONIC, &m_));
}

static int mtx_deadline(pthread_mutex_t *mx, const struct timespec *abs)
{
	DEADLINE_LOOP(1, abs, REAL(pthread_mutex_clocklock)(
	                              mx, CLOCK_MONOTONIC, &m_));
}

LCP_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict mx,
                             const struct timespec *restrict abs)
{
	if (!ready_wait() || lcp_null(abs))
		return REAL(cnd_timedwait)(c, mx, abs);
	return thrd_of(cnd_deadline((pthread_cond_t *)(void *)c,
	                            (pthread_mutex_t *)(void *)mx, abs));
}

LCP_EXPORT int mtx_timedlock(mtx_t *restrict mx,
                             const struct timespec *restrict abs)
{
	if (!ready_wait() || lcp_null(abs))
		return REAL(mtx_timedlock)(mx, abs);
	return thrd_of(mtx_deadline((pthread_mutex_t *)(void *)mx, abs));
}

/*
 * POSIX message queues take only a CLOCK_REALTIME deadline (no clock form,
 * and mq descriptors polled instead would lose SA_RESTART). The converted
 * MONOTONIC deadline becomes a host CLOCK_REALTIME one the same distance
 * ahead (both clocks run at the host's rate); the real call keeps every
 * other behaviour (a message ready, O_NONBLOCK, EINTR, restarts), and
 * after ETIMEDOUT the program's realtime must have reached the deadline or
 * the shim waits again, so a host step forward cannot end the wait early
 * (one back lengthens it, as it would without the shim).
 */
#define LCP_MQ_SLICE (INT64_C(86400) * LC__NS)

static void mq_host_deadline(const struct timespec *abs, struct timespec *out)
{
	struct timespec m;
	int64_t left;

	to_host_mono(1, abs, &m); /* abs is valid: checked by the caller */
	left = lc__ts_to_ns(&m) - host_ns(CLOCK_MONOTONIC);
	if (left < 0)
		left = 0;
	if (left > LCP_MQ_SLICE)
		left = LCP_MQ_SLICE; /* the loop waits again */
	*out = lc__ns_to_ts(host_ns(CLOCK_REALTIME) + left);
}

/* 1 if the shim converts this deadline: a valid one, once it runs (an
 * invalid one goes to the kernel, which says EINVAL only if it must wait) */
static int mq_ours(const struct timespec *abs)
{
	return ready_wait() && !lcp_null(abs) && abs->tv_nsec >= 0 &&
	       abs->tv_nsec < LC__NS;
}

LCP_EXPORT int mq_timedsend(mqd_t q, const char *msg, size_t len,
                            unsigned int prio, const struct timespec *abs)
{
	struct timespec r;
	int rc, e;

	if (!mq_ours(abs))
		return REAL(mq_timedsend)(q, msg, len, prio, abs);
	for (;;) {
		mq_host_deadline(abs, &r);
		rc = REAL(mq_timedsend)(q, msg, len, prio, &r);
		e = errno;
		if (rc == 0 || e != ETIMEDOUT || reached(1, abs)) {
			errno = e;
			return rc;
		}
	}
}

LCP_EXPORT ssize_t mq_timedreceive(mqd_t q, char *restrict msg, size_t len,
                                   unsigned int *restrict prio,
                                   const struct timespec *restrict abs)
{
	struct timespec r;
	ssize_t rc;
	int e;

	if (!mq_ours(abs))
		return REAL(mq_timedreceive)(q, msg, len, prio, abs);
	for (;;) {
		mq_host_deadline(abs, &r);
		rc = REAL(mq_timedreceive)(q, msg, len, prio, &r);
		e = errno;
		if (rc >= 0 || e != ETIMEDOUT || reached(1, abs)) {
			errno = e;
			return rc;
		}
	}
}

/* ---- initialisation ------------------------------------------------------ */

static int g_debug;

static void say(const char *fmt, ...) LC__PRINTF(1, 2);
static void say(const char *fmt, ...)
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
	say("%s; not running the program on the wrong clock", what);
	_exit(2);
}

static int64_t host_realtime_cb(void *arg)
{
	(void)arg;
	return host_ns(CLOCK_REALTIME);
}

/* The system table plus one synthetic row, as an IERS list of data lines
 * (NTP seconds, TAI-UTC) that lc_leaptable_load_buffer reads. */
static int add_extra_leap(int64_t when, int dir, struct lc_error *err)
{
	size_t n = lc_leaptable_count(g_table), cap = (n + 2) * 40, len = 0;
	struct lc_leap l, last = { 0, 10, 0 };
	char *buf = malloc(cap);
	int rc;

	if (buf == NULL)
		return LC_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (lc_leaptable_get(g_table, i, &l) < 0)
			continue;
		if (l.when >= when)
			break;
		len += (size_t)snprintf(buf + len, cap - len,
		                        "%" PRId64 "\t%d\n",
		                        l.when + LC_NTP_UNIX_OFFSET,
		                        (int)l.tai_utc);
		last = l;
	}
	len += (size_t)snprintf(buf + len, cap - len, "%" PRId64 "\t%d\n",
	                        when + LC_NTP_UNIX_OFFSET,
	                        (int)last.tai_utc + dir);
	rc = lc_leaptable_load_buffer(g_table, "<LEAPCLOCK_EXTRA_LEAP>", buf,
	                              len, LC_LEAPFMT_IERS, err);
	free(buf);
	return rc;
}

/* LEAPCLOCK_LEAP_IN: the leap at the end of the host's current UTC day
 * (or after the table's last leap), and the pretend instant that puts it
 * `in_ns` after the anchor: an insertion's 23:59:60 begins, or a deletion's
 * 23:59:58.999... jumps to 00:00:00, then. Exported to children as
 * LEAPCLOCK_EXTRA_LEAP and LEAPCLOCK_PRETEND. */
static void resolve_leap_in(const char *in, int64_t *when, int *dir)
{
	struct lc_leap last;
	struct timespec utc;
	char iso[64], extra[64];
	int64_t in_ns, rt = host_ns(CLOCK_REALTIME), p;

	if (lcp_parse_duration(in, &in_ns) < 0 || in_ns <= 0 ||
	    in_ns > LCP_LEAP_IN_MAX_NS)
		die("LEAPCLOCK_LEAP_IN is not a duration between 1 ns and 7 "
		    "days (e.g. 10s)");
	*dir = lcp_parse_dir(getenv(LCP_ENV_LEAP_DIR));
	if (*dir == 0)
		die("LEAPCLOCK_LEAP_DIR is neither insert nor delete");
	*when = (lc__fdiv(rt, LC__NS * LC_SECS_PER_DAY) + 1) * LC_SECS_PER_DAY;
	if (lc_leaptable_prev(g_table, INT64_MAX / 4, &last) == 0 &&
	    last.when >= *when)
		*when = (lc__fdiv(last.when, LC_SECS_PER_DAY) + 1) *
		        LC_SECS_PER_DAY;
	p = (*dir > 0 ? *when : *when - 1) * LC__NS - in_ns;
	utc = lc__ns_to_ts(p);
	if (lc_iso8601_format(&utc, 9, iso, sizeof(iso)) < 0)
		die("LEAPCLOCK_LEAP_IN: cannot format the pretend instant");
	snprintf(extra, sizeof(extra), "%" PRId64 ":%+d", *when, *dir);
	setenv(LCP_ENV_PRETEND, iso, 1);
	setenv(LCP_ENV_EXTRA_LEAP, extra, 1);
	unsetenv(LCP_ENV_LEAP_IN);
	unsetenv(LCP_ENV_LEAP_DIR);
}

/* The smear of the leap nearest the start (the first whose nominal window
 * has not ended), planned as if armed long before its window. */
/* Makes the span of the table leap at hand (the one around the program's
 * REALTIME, or the next) and publishes it if it differs from the current
 * one. The writer's (under writer_try, or in init() before any reader). */
static void sm_replan(void)
{
	const lc_leaptable *t = g_page ? lc_tk_table(g_tk) : g_table;
	const struct lc__smear_span *cur = sm_cur();
	struct lc__smear_span *np = &g_sm.slot[g_sm.next];
	int64_t mono, rt = exact_rt(&mono);

	if (t == NULL || lc__smear_span_at(t, &g_sm.policy, rt, np) < 0 ||
	    np->dir == 0) {
		atomic_store_explicit(&g_sm.cur, NULL, memory_order_release);
		return;
	}
	if (cur != NULL && cur->leap_when == np->leap_when &&
	    cur->dir == np->dir && cur->lo == np->lo && cur->hi == np->hi)
		return; /* the span in force */
	g_sm.next = (g_sm.next + 1) % LCP_SM_SLOTS;
	atomic_store_explicit(&g_sm.cur, np, memory_order_release);
}

/*
 * The timekeeper's writer (lc_update, adjtimex) runs Linux's leap state
 * machine, which arms a table leap at a second boundary *before* it: the
 * start of 23:59:59 for an insertion, of 23:59:58 for a deletion (an
 * STA_INS seen first at the leap's own boundary arms the next midnight,
 * as in Linux). A timekeeper started after that boundary (a pretend
 * instant in the last second or two) never sees its state machine armed
 * for the leap its readers apply: its adjtimex would answer TIME_OK where
 * the program must see TIME_INS/TIME_DEL (and earlier timekeepers
 * dropped the leap from REALTIME at the first update). Then the writer
 * never runs: the readers keep applying the leap armed at creation (exact
 * in every read, the slow path after it) and adjtimex is answered from the
 * snapshot (lc__tk_snapshot_timex()).
 */
static int updates_safe(void)
{
	struct lc__tk_snap s;
	int64_t mono, rt;

	lc__tk_read_snap(g_tk, &s, &mono);
	if (s.leap_dir == 0 || s.leap_folded)
		return 1;
	rt = lc__tk_realtime_at(&s, mono);
	/* leap_sec: the 00:00:00 after an insertion, the deleted 23:59:59 */
	return lc__fdiv(rt, LC__NS) + 1 <= s.leap_sec - 1;
}

/* The host's timeline (DESIGN.md section 8): the page at
 * $LEAPCLOCK_TIMELINE or /run/leapclock/timeline, unless this program
 * rehearses on its own (LEAPCLOCK_PRETEND, LEAPCLOCK_LEAP_IN) or
 * LEAPCLOCK_TIMELINE=none. Only a page on the host's CLOCK_MONOTONIC:
 * the shim arms the kernel's timers in that clock. 1 if the shim reads
 * it (g_tk, g_table are the page's). */
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
	if (rc == 0 && (g_rd.map.pg->counter_kind != LC_COUNTER_SYSTEM ||
	                g_rd.map.pg->counter_clk != CLOCK_MONOTONIC)) {
		snprintf(err.msg, sizeof(err.msg),
		         "its counter is not the host's CLOCK_MONOTONIC "
		         "(leapclockd --counter system)");
		rc = LC_ENOTSUP;
	}
	if (rc < 0) {
		if (rc != LC_ENOENT || named) {
			lc_error_format(&err, msg, sizeof(msg));
			say("not reading the timeline: %s; running on the "
			    "program's own", msg);
		}
		return 0;
	}
	g_tk = g_rd.tk;
	g_table = g_rd.table;
	g_page = 1;
	return 1;
}

/*
 * A table that has expired at the program's time (its realtime at the
 * start: the pretend instant, or now) may miss leaps announced since:
 * said once on stderr for a process tree (LEAPCLOCK_TABLE_WARNED, which
 * `leapclock run` sets when it has said it). `info` is the table as loaded,
 * before a synthetic leap (whose rows carry no expiry) was added.
 */
static void warn_expired(const struct lc_leaptable_info *info)
{
	const char *done = getenv(LCP_ENV_TABLE_WARNED);
	struct timespec ts;
	char exp[40], now[40];
	int64_t mono, rt = exact_rt(&mono);

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
	say("warning: leap table %s expired on %s, before the program's "
	    "time %s; leap seconds announced since then are unknown to it",
	    info->source, exp, now);
	setenv(LCP_ENV_TABLE_WARNED, "1", 1);
}

static void init(void)
{
	int expect = ST_NONE;
	struct lc_tk_config cfg;
	struct lc_leaptable_info tinfo;
	struct lc_error err;
	struct timespec utc;
	lc_counter *counter = NULL;
	const char *pretend, *leap_in, *extra, *anchor_s, *v;
	char preset[64], buf[64];
	int64_t anchor = 0, extra_when = 0, tai0 = 0;
	int extra_dir = 0, mode;

	if (!atomic_compare_exchange_strong(&g_state, &expect, ST_INIT))
		return;
	atomic_store(&g_init_tid, (pid_t)syscall(SYS_gettid));
	resolve_all();
	if (REAL(clock_gettime) == NULL || REAL(clock_nanosleep) == NULL ||
	    REAL(timer_settime) == NULL || REAL(adjtimex) == NULL) {
		say("cannot find the C library's time functions; passing "
		    "every call through");
		atomic_store(&g_state, ST_OFF);
		return;
	}
	v = getenv(LCP_ENV_DEBUG);
	g_debug = v != NULL && *v != '\0' && strcmp(v, "0") != 0;

	mode = lcp_parse_mode(getenv(LCP_ENV_MODE), preset, sizeof(preset));
	if (mode < 0)
		die("LEAPCLOCK_MODE is neither exact nor smear:PRESET");
	if (mode == 1) {
		if (lc_smear_preset_from("LEAPCLOCK_MODE=smear:PRESET", preset,
		                         0, &g_sm.policy, &err) < 0) {
			char m[600];
			lc_error_format(&err, m, sizeof(m));
			die(m);
		}
		g_sm.on = 1;
	}

	memset(&tinfo, 0, sizeof(tinfo));
	tinfo.expires = INT64_MIN;
	if (open_page()) {
		lc_leaptable_info(g_table, &tinfo);
		goto ready;
	}

	g_table = lc_leaptable_new();
	if (g_table == NULL)
		die("out of memory");
	lc_leaptable_load_system(g_table, &err);
	if (err.code != 0 && getenv(LCP_ENV_LEAPFILE) != NULL &&
	    strstr(err.where, getenv(LCP_ENV_LEAPFILE)) != NULL)
		die("LEAPCLOCK_LEAPFILE cannot be loaded");
	lc_leaptable_info(g_table, &tinfo);

	pretend = getenv(LCP_ENV_PRETEND);
	leap_in = getenv(LCP_ENV_LEAP_IN);
	extra = getenv(LCP_ENV_EXTRA_LEAP);
	anchor_s = getenv(LCP_ENV_ANCHOR);
	if (anchor_s != NULL) {
		const char *e = lcp_parse_u64(anchor_s, &anchor);

		if (e == NULL || *e != '\0')
			die("LEAPCLOCK_ANCHOR is not a CLOCK_MONOTONIC ns "
			    "count");
	} else if ((pretend != NULL && *pretend) || (leap_in && *leap_in)) {
		anchor = host_ns(CLOCK_MONOTONIC);
		snprintf(buf, sizeof(buf), "%" PRId64, anchor);
		setenv(LCP_ENV_ANCHOR, buf, 1);
	}
	if (leap_in != NULL && *leap_in != '\0' &&
	    (extra == NULL || *extra == '\0')) {
		resolve_leap_in(leap_in, &extra_when, &extra_dir);
		pretend = getenv(LCP_ENV_PRETEND);
	} else if (extra != NULL && *extra != '\0') {
		const char *e = lcp_parse_u64(extra, &extra_when);

		if (e == NULL || *e != ':' ||
		    (extra_dir = lcp_parse_dir(e + 1)) == 0)
			die("LEAPCLOCK_EXTRA_LEAP is not SECONDS:+1 or "
			    "SECONDS:-1");
	}
	if (extra_dir != 0 && add_extra_leap(extra_when, extra_dir, &err) < 0)
		die("the synthetic leap does not fit the leap table");
	if (pretend != NULL && *pretend != '\0') {
		if (lc_iso8601_parse(pretend, g_table, &utc, &err) < 0 ||
		    lc_tai_from_utc(g_table, &utc, &tai0) < 0)
			die("LEAPCLOCK_PRETEND is not an ISO 8601 UTC instant "
			    "after 1972 (23:59:60 only on a leap)");
	} else {
		pretend = NULL;
	}

	if (lc_counter_new_system(&counter, CLOCK_MONOTONIC) < 0)
		die("cannot read CLOCK_MONOTONIC");
	lc_tk_config_init(&cfg);
	cfg.table = g_table;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.host_realtime = host_realtime_cb;
	if (lc_tk_new(&g_tk, counter, &cfg) < 0)
		die("cannot create the timekeeper");
	if (pretend != NULL) {
		/* TAI = pretend's TAI + host MONOTONIC elapsed since the
		 * anchor: unambiguous, 23:59:60 included. */
		struct timespec t =
			lc__ns_to_ts(tai0 + host_ns(CLOCK_MONOTONIC) - anchor);

		if (lc_settime(g_tk, LC_CLOCK_TAI, &t) < 0)
			die("cannot set the pretend instant");
	}
	mark_synced(LC_ADJ_STATUS);
ready:
	if (g_sm.on)
		sm_replan();
	/* A page reader's update only checks the page (its writer runs the
	 * state machine), so it is always safe. */
	g_updates_ok = g_page || updates_safe();
	if (g_updates_ok)
		atomic_store(&g_next_update, host_ns(CLOCK_MONOTONIC) + LC__NS);
	atomic_store_explicit(&g_state, ST_READY, memory_order_release);
	pthread_atfork(NULL, NULL, timers_after_fork);
	warn_expired(&tinfo);

	if (g_debug) {
		struct timespec now;
		int64_t w;
		int d;

		lc_gettime(g_tk, LC_CLOCK_UTC, &now);
		lc_iso8601_format(&now, 6, buf, sizeof(buf));
		say("mode %s%s, realtime %s, TAI-UTC %d",
		    g_sm.on ? "smear:" : "exact",
		    g_sm.on ? g_sm.policy.name : "", buf,
		    (int)lc__fdiv(prog_tai() - exact_rt(&w) + LC__NS / 2,
		                  LC__NS));
		if (lc_tk_next_leap(g_tk, &w, &d) == 0)
			say("next leap: %s second before %" PRId64
			    " (POSIX), in %.3f s",
			    d > 0 ? "inserted" : "deleted", w,
			    (double)((d > 0 ? w : w - 1) * LC__NS -
			             prog_rt()) / 1e9);
		if (sm_cur() != NULL)
			say("smear window: %.3f s .. %.3f s from now",
			    (double)(sm_cur()->plan.start_mono - prog_tai()) / 1e9,
			    (double)(sm_cur()->plan.end_mono - prog_tai()) / 1e9);
	}
}

__attribute__((constructor)) static void lcp_ctor(void)
{
	init();
}
