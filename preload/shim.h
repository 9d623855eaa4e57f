/*
 * shim.h - what the modules of libleapclock-preload.so share: the real
 * functions, the shim's state, and the program's clocks on the read path
 * (inline: a clock_gettime through the shim costs one call into libc).
 * Internal to the shim; every name here is lcp_ and hidden (the library is
 * built with -fvisibility=hidden; only LCP_EXPORT calls leave it).
 *
 * The modules, by job (preload.c has the design):
 *	preload.c  the real functions, the start (init) and its messages
 *	clock.c    the program's clocks: the writer, the reads, the refused
 *	           settings, deadlines converted into host MONOTONIC
 *	ntp.c      adjtimex, ntp_adjtime, clock_adjtime, ntp_gettime(x)
 *	timers.c   POSIX timers and timerfds, and the watcher that re-arms
 *	           them when the timeline steps
 *	wait.c     sleeps, waits and locks with an absolute deadline
 *
 * Every .c defines _GNU_SOURCE before including this header first.
 */
#ifndef LC_PRELOAD_SHIM_H
#define LC_PRELOAD_SHIM_H

/* The library reaches the host only through its table (src/hostcall.h),
 * which the shim defines with the real functions (preload/hostcall.c):
 * the timekeeper's inline read path costs one call into libc. */
#include "hostcall.h"
#include "timekeeper.h"
#include "timeline.h"

#include "env.h"
#include "leapclock.h"
#include "smear_clock.h"

#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <threads.h>
#include <unistd.h>

#define LCP_EXPORT __attribute__((visibility("default")))

/* ---- the real functions (preload.c resolves them) ------------------------ */

#define LCP_REALS(X)                                                        \
	X(clock_gettime) X(clock_getres) X(gettimeofday) X(clock_nanosleep) \
	X(timer_create) X(timer_delete) X(timer_settime)                    \
	X(timerfd_create) X(timerfd_settime) X(adjtimex) X(clock_adjtime)   \
	X(adjtime) X(pthread_cond_timedwait) X(pthread_cond_clockwait)      \
	X(sem_clockwait) X(pthread_mutex_clocklock)                         \
	X(pthread_rwlock_clockrdlock) X(pthread_rwlock_clockwrlock)         \
	X(pthread_timedjoin_np) X(pthread_clockjoin_np) X(cnd_timedwait)    \
	X(mtx_timedlock) X(mq_timedsend) X(mq_timedreceive)                 \
	X(recvmsg) X(recvmmsg)

#define LCP_DECL(name) extern __typeof__(name) *_Atomic lcp_real_##name;
LCP_REALS(LCP_DECL)
#undef LCP_DECL

/* The real function, or NULL before it is resolved (relaxed: a pointer
 * resolved by dlsym stays valid; a NULL only sends the caller to the
 * fallback). */
#define REAL(name) \
	atomic_load_explicit(&lcp_real_##name, memory_order_relaxed)

/* p == NULL, for arguments the C library declares nonnull: the compiler may
 * not assume them non-NULL here (a NULL from a buggy program gets EFAULT
 * from us, as from the kernel). */
static inline int lcp_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

static inline int lcp_raw_clock_gettime(clockid_t clk, struct timespec *ts)
{
	__typeof__(clock_gettime) *f = REAL(clock_gettime);

	if (f != NULL)
		return f(clk, ts);
	return (int)syscall(SYS_clock_gettime, clk, ts);
}

static inline int64_t lcp_host_ns(clockid_t clk)
{
	struct timespec ts;

	lcp_raw_clock_gettime(clk, &ts);
	return lc__ts_to_ns(&ts);
}

/* Fills the library's table of host calls with the real functions
 * (preload/hostcall.c; preload.c calls it once they are resolved). */
void lcp_hostcalls_fill(void);

/* ---- state (preload.c) --------------------------------------------------- */

enum { LCP_ST_NONE, LCP_ST_INIT, LCP_ST_READY, LCP_ST_OFF };

extern _Atomic int lcp_state;
extern lc_timekeeper *lcp_tk;
extern lc_leaptable *lcp_table;
extern int lcp_page; /* 1: lcp_tk reads the host's (or a named) page */
/* The page when its counter is not the host's CLOCK_MONOTONIC (a writer
 * in a declared host mode runs on CLOCK_MONOTONIC_RAW): deadlines are then
 * converted through its relation (timeline.h lc__tl_rel); NULL else. */
extern const struct lc__tl_page *lcp_rel_pg;

void lcp_init(void);

/* 1 once the shim runs; tries to initialise on a first early call. */
static inline int lcp_ready(void)
{
	int st = atomic_load_explicit(&lcp_state, memory_order_acquire);

	if (lc__likely(st == LCP_ST_READY))
		return 1;
	if (st == LCP_ST_NONE)
		lcp_init();
	return atomic_load_explicit(&lcp_state, memory_order_acquire) ==
	       LCP_ST_READY;
}

/* For calls that are not async-signal-safe anyway: waits for another
 * thread's init (never for our own, which would be recursion). */
int lcp_ready_wait(void);

/* A line on stderr, "leapclock-preload[PID]: ..." */
void lcp_say(const char *fmt, ...) LC__PRINTF(1, 2);

/* ---- smear mode (clock.c) ------------------------------------------------ */

/* smear mode: the policy, and the library's smear clock of the table leap
 * at hand (smear_clock.h: the span of lc__smear_span_at, the same pure
 * function leapclockd's smear sockets and `leapclock convert` use, with
 * the fast pieces the timekeeper's own UTC_SLS reads, one multiply). The
 * span's plan runs on TAI, the exact timeline, so a step of the program's
 * timeline moves nothing in it: TAI is read at each smeared read. The
 * writer makes the clock again each second when the span changes (a leap
 * the table gains, the next leap once one is over) or its fast pieces run
 * out within LCP_SM_MARGIN (a linear window's piece lasts minutes, a
 * cosine's chords about a second), and publishes it whole: written into a
 * slot of a small ring that no reader is pointed at, then the current
 * pointer switched (a reader holding the previous one reads it unchanged
 * until the ring comes round, LCP_SM_SLOTS - 1 publications and at least
 * as many seconds later). */
#define LCP_SM_SLOTS 8
#define LCP_SM_MARGIN (2 * LC__NS)
struct lcp_smear {
	int on;
	struct lc_smear_policy policy;
	struct lc__smear_clock slot[LCP_SM_SLOTS];
	unsigned next; /* the writer's: the slot the next clock goes in */
	_Atomic(const struct lc__smear_clock *) cur; /* NULL: no leap ahead */
};
extern struct lcp_smear lcp_sm;

static inline const struct lc__smear_clock *lcp_sm_cur(void)
{
	return atomic_load_explicit(&lcp_sm.cur, memory_order_acquire);
}

/* Makes the span of the table leap at hand and publishes it if it
 * differs from the current one (the writer's). */
void lcp_sm_replan(void);

/* ---- the writer (clock.c) ------------------------------------------------ */

/* lc_update at most once a second, under a try-flag */
extern _Atomic int64_t lcp_next_update;
extern _Atomic int lcp_writer;

static inline int lcp_writer_try(void)
{
	return atomic_exchange_explicit(&lcp_writer, 1,
	                                memory_order_acquire) == 0;
}

static inline void lcp_writer_done(void)
{
	atomic_store_explicit(&lcp_writer, 0, memory_order_release);
}

void lcp_mark_synced(unsigned int extra_modes);
void lcp_update_slow(int64_t mono);

static inline void lcp_maybe_update(int64_t mono)
{
	if (lc__unlikely(mono >= atomic_load_explicit(&lcp_next_update,
	                                              memory_order_relaxed)))
		lcp_update_slow(mono);
}

/* ---- the program's clocks (clock.c) -------------------------------------- */

/* The timekeeper's REALTIME (exact leap) and the MONOTONIC it was read at:
 * the library's one reader (timekeeper.h). */
static inline int64_t lcp_exact_rt(int64_t *mono_out)
{
	return lc__tk_read_rt_at(lcp_tk, 1, mono_out);
}

/* The program's CLOCK_REALTIME in ns: the exact REALTIME, or inside the
 * span of a leap the smeared one, UTC_SLS = TAI - (TAI-UTC before the
 * leap) - the plan's offset at TAI, from the smear clock's fast piece (the
 * span widens the window and the leap second by 1 s: T and REALTIME differ
 * by up to 1 s around a leap). */
static inline int64_t lcp_prog_rt(void)
{
	int64_t mono, rt = lcp_exact_rt(&mono);
	const struct lc__smear_clock *c = lcp_sm_cur();

	if (lc__unlikely(c != NULL && lc__smear_clock_inside(c, rt))) {
		int64_t tai = mono + (int64_t)lc__tk_read_word(
		                         lcp_tk, LC__TKW(offs_tai));

		rt = lc__smear_clock_in(c, tai);
	}
	lcp_maybe_update(mono);
	return rt;
}

/* Inside a sandbox (`leapclock run --sandbox`), 1: the program's
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME are the sandbox timeline's MONOTONIC,
 * which its adjtimex frequency and tick steer as Linux's do (REALTIME and
 * TAI are it plus an offset); MONOTONIC_RAW reads the sandbox's counter,
 * unsteered (the host's MONOTONIC: clock.c read_clock). 0 outside,
 * where the program's MONOTONIC is the host's (the page's counter). Set
 * by lcp_init() before the shim is ready (preload.c). */
extern _Atomic int lcp_sb_mono;
/* BOOTTIME - MONOTONIC of the host, sampled at the start: the sandbox's
 * BOOTTIME is its MONOTONIC plus this (a host suspend during the run is
 * not added). */
extern int64_t lcp_boot_off;

/* Which of our clocks a host clock id is: 1 realtime, 2 TAI, in a sandbox
 * 3 MONOTONIC and 4 BOOTTIME (timers and sleeps too: the coarse and alarm
 * ids are read_clock's only), 0 none. */
static inline int lcp_ours(clockid_t clk)
{
	if (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)
		return 1;
	if (clk == CLOCK_TAI)
		return 2;
	if (lc__unlikely(atomic_load_explicit(&lcp_sb_mono,
	                                      memory_order_relaxed))) {
		if (clk == CLOCK_MONOTONIC)
			return 3;
		if (clk == CLOCK_BOOTTIME)
			return 4;
	}
	return 0;
}

/* The program's CLOCK_TAI in ns. */
int64_t lcp_prog_tai(void);

/* The program's clock `which` (lcp_ours) now, in ns. */
int64_t lcp_prog_now(int which);

/* An absolute deadline on our clock `which` as a host CLOCK_MONOTONIC
 * deadline (the first host instant at which the program's clock reads at or
 * past it). LC_EINVAL for a bad timespec. */
int lcp_to_host_mono(int which, const struct timespec *abs,
                     struct timespec *out);

/* The same for a wait that re-checks the program's clock when it wakes
 * (wait.c): on a RAW page the relation's best estimate, without the
 * margin that keeps a kernel timer from firing early (a wait woken early
 * waits again). */
int lcp_to_host_mono_wait(int which, const struct timespec *abs,
                          struct timespec *out);
/* The relation's generation (0 on a MONOTONIC page): converted kernel
 * timers are stale when it moves (timers.c). */
uint64_t lcp_rel_gen(void);

/* 1 once the program's clock `which` reads at or past `abs`. */
int lcp_reached(int which, const struct timespec *abs);

/* ---- timers (timers.c) --------------------------------------------------- */

/* fork: the child keeps no POSIX timer and no watcher (pthread_atfork). */
void lcp_timers_after_fork(void);

#endif
