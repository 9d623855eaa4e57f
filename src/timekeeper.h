/*
 * timekeeper.h - the counter and the timekeeper's published snapshot, for the
 * modules that read clocks on a hot path (the timer helper). Not public.
 *
 * Reading a clock is:
 *
 *	do {
 *		seq = acquire-load(l->seq);   (l = lc__tk_pub(tk)->latch)
 *		c   = &l->copy[seq & 1];
 *		... acquire-load the words needed from c ...
 *		cycles = lc__tk_counter_read(p);
 *		... compute ...
 *	} while (load(p->seq) != seq);
 *
 * which lc__tk_read_mono() and friends below wrap. The snapshot is a two-copy
 * latch (Linux's tk_fast / NMI-safe clock): the writer bumps `seq` to odd and
 * rewrites copy 0 while readers use copy 1, then bumps it to even and rewrites
 * copy 1 while readers use copy 0. A reader therefore never waits for a writer
 * that is in the middle of an update (it reads the other copy) and retries
 * only if the sequence moved under it; it is async-signal-safe (a handler that
 * interrupts the writer reads the copy the writer is not touching). Every word
 * of a copy is an _Atomic uint64_t, so there is no data race in the C11 sense
 * (ThreadSanitizer sees none). Ordering without fences (which GCC's TSan does
 * not model): the writer stores `seq` and every word with release, the reader
 * loads `seq` and every word with acquire. A reader that loads a word of the
 * copy being rewritten synchronizes with that word's release store, which
 * comes after the bump of `seq` in the writer's program order, so its final
 * load of `seq` sees the bump and it retries; a reader that loads the
 * completed copy after the bump that published it sees all of it. On x86-64
 * acquire loads and release stores are plain moves.
 *
 * The snapshot (struct lc__tk_snap, all 8-byte words; word index = offset / 8)
 *
 *  line 0, the hot line: everything a MONOTONIC, TAI or REALTIME read needs
 *	cycle_last	counter value at the last update
 *	mult		MONOTONIC ns per cycle << shift, at the current rate
 *	frac		sub-ns part of MONOTONIC at cycle_last, << shift
 *	mono		MONOTONIC ns at cycle_last (integral part)
 *	offs_real	REALTIME = MONOTONIC + offs_real (before the exact leap)
 *	offs_tai	TAI = MONOTONIC + offs_tai (never changes at a leap)
 *	rt_slow		REALTIME/UTC reads with MONOTONIC >= rt_slow take the
 *			slow path (the next or most recent leap boundary, or
 *			the start of a smear when REALTIME is smeared;
 *			INT64_MAX: never)
 *	shift_max	bits 0..7: shift; bits 8..15: log2 of the largest
 *			cycle delta the 64-bit product handles (a larger delta
 *			takes the 128-bit path)
 *
 *	MONOTONIC(cycles) = mono + ((cycles - cycle_last) * mult + frac) >> shift
 *
 *  lines 1 and 2: UTC_SLS, two pieces sls[0], sls[1], written by the
 *  writer at each publication from the plans (tk_sls.c,
 *  lc__tk_sls_fill) so that a reader needs no division and no sin(): with
 *  d = MONOTONIC - mono (the ns since the snapshot, the product above),
 *	base, dmax, m_lo/hi, c_lo/hi of sls[i]
 *
 *	UTC_SLS(d) = base + ((d * M + C) >> 84)   sls[0] while d < its dmax,
 *	                                          else sls[1] below its dmax
 *
 *	M = m_hi:m_lo and C = c_hi:c_lo (128-bit). sls[0] is the smear's
 *	piece at the snapshot (the linear window, one chord of a curved
 *	shape, or a constant stretch) turned into a rate, sls[1] the piece
 *	after it (a chord lasts ~len / 65536: 1.1 s for the 20 h cosine, so
 *	the next one is at hand before the next update); exactly what the
 *	slow path computes for every d below dmax, which ends at the piece's
 *	end and before the error of M could reach a ns. dmax 0 (or sls[1]'s
 *	no more than sls[0]'s): the slow path (e.g. inside an unsmeared
 *	23:59:60).
 *
 *  line 3 and on: the slow path
 *	raw_mult, raw_frac, raw_mono	MONOTONIC_RAW, as above at the nominal
 *			rate (same cycle_last and shift)
 *	leap_mono	MONOTONIC instant of the next leap boundary (the start
 *			of 23:59:60, or of the deleted 23:59:59), or of the
 *			most recent one while its inserted second lasts;
 *			INT64_MAX if none
 *	leap_dir	+1 insertion, -1 deletion, 0 none
 *	leap_sec	POSIX second at whose start the leap happens: the
 *			00:00:00 after an insertion, the deleted 23:59:59
 *	leap_folded	1 when offs_real already includes the leap (the
 *			writer processed the boundary), 0 while readers apply
 *			it themselves: REALTIME = MONO + offs_real - dir * 1 s
 *			for MONO >= leap_mono
 *	offs_sls	UTC_SLS = MONO + offs_sls - smear offset(MONO): the
 *			pre-leap REALTIME offset the smear plan is relative to
 *	offs_boot	BOOTTIME = MONO + offs_boot (0: a user-space process
 *			does not see the host suspend; BOOTTIME == MONOTONIC)
 *	flags		LC__TKF_*
 *	cws_seq		clock-was-set sequence (the leap at leap_mono adds one
 *			more once reached, see lc_clock_was_set_seq())
 *	plan		the smear plan of UTC_SLS (struct lc__smear_plan)
 *	plan_next	the smear of the next leap when its window meets the
 *			running plan's (docs/smearing.md (d)): it starts at
 *			or after plan.end_mono, from offset 0, on the base
 *			offs_sls - plan.to_ns (the first leap's post-leap
 *			REALTIME offset); start_mono INT64_MAX when none.
 *			Readers subtract both offsets:
 *			UTC_SLS = MONO + offs_sls - plan(MONO) - plan_next(MONO)
 *			which is exact because plan_next is 0 up to
 *			plan.end_mono and plan is constant (to_ns) from there.
 *			The writer folds it into plan at its first operation
 *			at or after plan.end_mono without changing a reading,
 *			so the second smear's schedule never depends on when
 *			the writer runs.
 *	bound		the error bound (src/bounds.h, lc__bnd_pack): the
 *			half-width at `mono`, the drift rate from then on,
 *			the status. Added in the copy's last (padding) word,
 *			so the copy and the page keep their size: a reader
 *			that does not know it never reads it, and a page of
 *			a writer that does not write it reads 0 (unknown).
 */
#ifndef LC_TIMEKEEPER_H
#define LC_TIMEKEEPER_H

#include "counter.h"
#include "internal.h"
#include "smear.h"

#include <stdatomic.h>
#include <stddef.h>

/* ---- the snapshot ------------------------------------------------------- */

#define LC__TKF_RT_SMEARED 0x1 /* REALTIME reads the UTC_SLS timeline */
#define LC__TKF_SMEAR 0x2      /* a smear policy is configured */

/* One piece of UTC_SLS for the fast path (one cache line). */
struct lc__tk_sls_piece {
	int64_t base;
	uint64_t dmax;
	uint64_t m_lo, m_hi;
	uint64_t c_lo, c_hi;
	uint64_t pad[2];
};

struct lc__tk_snap {
	/* line 0 */
	uint64_t cycle_last;
	uint64_t mult;
	uint64_t frac;
	int64_t mono;
	int64_t offs_real;
	int64_t offs_tai;
	int64_t rt_slow;
	uint64_t shift_max;
	/* lines 1-2: UTC_SLS's fast path (lc__tk_gettime_sls_fast) */
	struct lc__tk_sls_piece sls[2];
	/* line 3 on */
	uint64_t raw_mult;
	uint64_t raw_frac;
	int64_t raw_mono;
	int64_t leap_mono;
	int64_t leap_dir;
	int64_t leap_sec;
	int64_t leap_folded;
	int64_t offs_sls;
	int64_t offs_boot;
	int64_t flags;
	uint64_t cws_seq;
	struct lc__smear_plan plan;
	struct lc__smear_plan plan_next;
	uint64_t bound;
};

_Static_assert(sizeof(struct lc__tk_snap) % 8 == 0,
               "the snapshot is made of 8-byte words");
_Static_assert(offsetof(struct lc__tk_snap, shift_max) == 56,
               "the hot read data fills exactly the first cache line");

_Static_assert(offsetof(struct lc__tk_snap, raw_mult) == 192,
               "UTC_SLS's fast path words fill exactly lines 1 and 2");

#define LC__TK_WORDS (sizeof(struct lc__tk_snap) / 8)
#define LC__TKW(field) (offsetof(struct lc__tk_snap, field) / 8)

struct lc__tk_copy {
	_Alignas(64) _Atomic uint64_t w[LC__TK_WORDS];
};

_Static_assert(sizeof(struct lc__tk_copy) == 448,
               "the bound word fills the copy's padding: the page layout "
               "(timeline.h) keeps its size");

/* The latch itself: the sequence and the two copies. It lives in the
 * timekeeper's own memory, or in a timeline page shared by every process
 * of the host (src/timeline.h), where a reader maps it read-only. It holds
 * no pointer, so that it means the same in every process. */
struct lc__tk_latch {
	_Alignas(64) _Atomic uint64_t seq;
	struct lc__tk_copy copy[2];
};

/* The reader-visible part of a timekeeper: where its latch is, and its
 * counter. The rest of struct lc_timekeeper (writer state) follows it in
 * tk_writer.h. A reader of a timeline page has its own counter of the
 * page's kind (the TSC or the host's CLOCK_MONOTONIC read the same in
 * every process). */
struct lc__tk_pub {
	/* Changes only when a page reader falls back to its own writer
	 * (lc__tk_resume): atomic, loaded relaxed (a plain move). */
	_Atomic(const struct lc__tk_latch *) latch;
	const struct lc_counter *counter;
	int counter_kind; /* a copy, so that a tsc read needs only this line */
};

/* The counter of a timekeeper, read on the hot path. */
static inline uint64_t lc__tk_counter_read(const struct lc__tk_pub *p)
{
#if defined(__x86_64__)
	if (lc__likely(p->counter_kind == LC_COUNTER_TSC))
		return lc__rdtsc();
#endif
	return lc__counter_read(p->counter);
}

/* The same with the counter's kind known at the call site: `kind` (a
 * constant) LC_COUNTER_TSC reads the TSC without testing the kind, so that
 * a reader compiled for it has no call on its path and keeps its values in
 * the registers a call would clobber; LC_COUNTER_SYSTEM calls the host
 * clock without the tests; 0 tests the kind (lc_gettime picks the reader
 * by the timekeeper's kind). */
static inline uint64_t lc__tk_counter_read_k(const struct lc__tk_pub *p,
                                             int kind)
{
#if defined(__x86_64__)
	if (kind == LC_COUNTER_TSC)
		return lc__rdtsc();
#endif
	if (kind == LC_COUNTER_SYSTEM) {
		struct timespec ts;

		lc__host.clock_gettime(p->counter->clk, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u +
		       (uint64_t)ts.tv_nsec;
	}
	return lc__tk_counter_read(p);
}

/* The latch part of a timekeeper (it is the first member). */
static inline const struct lc__tk_pub *lc__tk_pub(const lc_timekeeper *tk)
{
	return (const struct lc__tk_pub *)(const void *)tk;
}

static inline uint64_t lc__tkw(const struct lc__tk_copy *c, size_t i)
{
	return atomic_load_explicit(&c->w[i], memory_order_acquire);
}

/* Reader side of the latch. */
static inline uint64_t lc__tk_read_begin(const struct lc__tk_pub *p,
                                         const struct lc__tk_copy **c)
{
	const struct lc__tk_latch *l =
		atomic_load_explicit(&p->latch, memory_order_relaxed);
	uint64_t seq = atomic_load_explicit(&l->seq, memory_order_acquire);

	*c = &l->copy[seq & 1];
	return seq;
}

static inline int lc__tk_read_retry(const struct lc__tk_pub *p, uint64_t seq)
{
	/* The acquire loads of the words keep this load after them. */
	const struct lc__tk_latch *l =
		atomic_load_explicit(&p->latch, memory_order_relaxed);

	return atomic_load_explicit(&l->seq, memory_order_relaxed) != seq;
}

/* Copies a whole snapshot (slow paths). */
static inline void lc__tk_load(const struct lc__tk_copy *c,
                               struct lc__tk_snap *s)
{
	uint64_t w[LC__TK_WORDS];

	for (size_t i = 0; i < LC__TK_WORDS; i++)
		w[i] = lc__tkw(c, i);
	__builtin_memcpy(s, w, sizeof(*s));
}

/* (cycles - last) * mult + frac, >> shift: the 64-bit product while delta
 * is within 2^maxbits (chosen so that it cannot overflow), else 128-bit.
 * A counter read behind `last` (a TSC a few cycles off between CPUs) counts
 * as no time elapsed. */
static inline uint64_t lc__cyc2ns(uint64_t cycles, uint64_t last,
                                  uint64_t mult, uint64_t frac,
                                  uint64_t shift_max)
{
	uint64_t delta = cycles - last;
	unsigned shift = (unsigned)(shift_max & 0xff);

	if (lc__unlikely(delta >> ((shift_max >> 8) & 0xff))) {
		if ((int64_t)delta < 0)
			delta = 0;
		return (uint64_t)(((unsigned __int128)delta * mult + frac) >>
		                  shift);
	}
	return (delta * mult + frac) >> shift;
}

/* lc__cyc2ns() with its 128-bit case out of line (timekeeper.c), for the
 * fast readers: the wide multiply's registers (rdx:rax, the double shift)
 * then do not shape the hot path's register allocation. The same value. */
uint64_t lc__cyc2ns_wide(uint64_t delta, uint64_t mult, uint64_t frac,
                         unsigned shift) __attribute__((cold, noinline));

static inline uint64_t lc__cyc2ns_fast(uint64_t cycles, uint64_t last,
                                       uint64_t mult, uint64_t frac,
                                       uint64_t shift_max)
{
	uint64_t delta = cycles - last;
	unsigned shift = (unsigned)(shift_max & 0xff);

	if (lc__unlikely(delta >> ((shift_max >> 8) & 0xff)))
		return lc__cyc2ns_wide(delta, mult, frac, shift);
	return (delta * mult + frac) >> shift;
}

/* MONOTONIC in ns from a copy and a counter value. */
static inline int64_t lc__tk_mono_of(const struct lc__tk_copy *c,
                                     uint64_t cycles)
{
	return (int64_t)lc__tkw(c, LC__TKW(mono)) +
	       (int64_t)lc__cyc2ns(cycles, lc__tkw(c, LC__TKW(cycle_last)),
	                           lc__tkw(c, LC__TKW(mult)),
	                           lc__tkw(c, LC__TKW(frac)),
	                           lc__tkw(c, LC__TKW(shift_max)));
}

/* MONOTONIC now plus the snapshot word `off_word` (LC__TKW(offs_tai),
 * LC__TKW(offs_boot), or none for MONOTONIC itself), lock-free: the latch
 * loop every reader of a MONOTONIC-based clock goes through. */
static inline int64_t lc__tk_read_mono_plus(const lc_timekeeper *tk,
                                            size_t off_word, int plus)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_copy *c;
	uint64_t seq;
	int64_t v;

	do {
		seq = lc__tk_read_begin(p, &c);
		v = lc__tk_mono_of(c, lc__tk_counter_read(p));
		if (plus)
			v += (int64_t)lc__tkw(c, off_word);
	} while (lc__tk_read_retry(p, seq));
	return v;
}

/* One word of the current snapshot (LC__TKW(...)), lock-free. */
static inline uint64_t lc__tk_read_word(const lc_timekeeper *tk, size_t word)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_copy *c;
	uint64_t seq, v;

	do {
		seq = lc__tk_read_begin(p, &c);
		v = lc__tkw(c, word);
	} while (lc__tk_read_retry(p, seq));
	return v;
}

/* MONOTONIC now, lock-free. */
static inline int64_t lc__tk_read_mono(const lc_timekeeper *tk)
{
	return lc__tk_read_mono_plus(tk, 0, 0);
}

/* A consistent snapshot and the MONOTONIC instant it was read at (for
 * modules that need several values from one instant, e.g. timers). */
static inline void lc__tk_read_snap(const lc_timekeeper *tk,
                                    struct lc__tk_snap *s, int64_t *mono)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_copy *c;
	uint64_t seq;

	do {
		seq = lc__tk_read_begin(p, &c);
		lc__tk_load(c, s);
		*mono = s->mono + (int64_t)lc__cyc2ns(lc__tk_counter_read(p),
		                                      s->cycle_last, s->mult,
		                                      s->frac, s->shift_max);
	} while (lc__tk_read_retry(p, seq));
}

/* REALTIME at MONOTONIC instant `mono` given a snapshot: the exact leap,
 * never the smear (when REALTIME is configured smeared, LC__TKF_RT_SMEARED,
 * use lc__tk_clock_at() for what lc_gettime() returns). */
static inline int64_t lc__tk_realtime_at(const struct lc__tk_snap *s,
                                         int64_t mono)
{
	int64_t rt = mono + s->offs_real;

	if (mono >= s->leap_mono && !s->leap_folded)
		rt -= s->leap_dir * LC__NS;
	return rt;
}

/* Out of line (timekeeper.c): the REALTIME slow path (a leap or a smear at
 * hand), and any clock at a MONOTONIC instant from a snapshot. */
int64_t lc__tk_slow_rt(const lc_timekeeper *tk, int64_t *mono);
/* 1 if UTC_SLS is UTC now: no smear plan runs (no policy, or the leap at
 * hand is left unsmeared), so UTC_SLS shows an inserted 23:59:60 as UTC
 * does; 0 while a plan runs (UTC_SLS then never shows 23:59:60). */
int lc__tk_sls_is_utc(const lc_timekeeper *tk);
int lc__tk_clock_at(const struct lc__tk_snap *s, lc_clock_id id, int64_t mono,
                    struct timespec *ts);

/* ---- timeline support (src/timeline_*.c) ----------------------------------- */

/* The latch a timekeeper's readers use now (its own, or a page's). */
static inline const struct lc__tk_latch *lc__tk_latch_of(const lc_timekeeper *tk)
{
	return atomic_load_explicit(&lc__tk_pub(tk)->latch,
	                            memory_order_relaxed);
}

/* Makes the writer publish into `l` (a timeline page's latch, mapped
 * writable by its one writer) from now on, and publishes there at once.
 * Call before other threads read the timekeeper. */
void lc__tk_publish_to(lc_timekeeper *tk, struct lc__tk_latch *l);

/* A reader of the page latch `l` (timeline_reader.c): a timekeeper of
 * `counter` and `cfg` (its table, smear policy, follow_host for later)
 * whose lc_gettime() and friends read `l`; writer calls (lc_settime,
 * lc_adjtimex with modes) fail with LC_EPERM; lc_update() calls
 * `update(tk, arg)` (the timeline module's check of the page). Nothing is
 * sampled or primed: the writer state stays unused until lc__tk_resume()
 * makes it a writer from the page's snapshot. */
int lc__tk_new_reader(lc_timekeeper **out, lc_counter *counter,
                      const struct lc_tk_config *cfg,
                      const struct lc__tk_latch *l,
                      void (*update)(lc_timekeeper *tk, void *arg), void *arg);
/* Moves a reader (no other thread writing it) onto another page latch `l`
 * (a restarted writer's page), with its update `update(tk, arg)`. */
void lc__tk_read_from(lc_timekeeper *tk, const struct lc__tk_latch *l,
                      void (*update)(lc_timekeeper *tk, void *arg),
                      void *arg);
/* The writer's lock (fork handlers), and a new table for the writer (the
 * old one must stay valid: readers may hold it). */
void lc__tk_lock(lc_timekeeper *tk);
void lc__tk_unlock(lc_timekeeper *tk);
void lc__tk_set_table(lc_timekeeper *tk, const lc_leaptable *t);
/* The adjtimex answer (state returned; time, tai and the leap bits of
 * status filled) from the published snapshot alone: what a page reader's
 * lc_adjtimex answers, and the preload shim's when its writer must not
 * run. */
int lc__tk_snapshot_timex(const lc_timekeeper *tk, struct lc_timex *tx);
/* 1 while tk reads a page it does not write. */
int lc__tk_is_reader(const lc_timekeeper *tk);

/* Continues the timeline published in `from` with tk's own writer: the
 * writer state is rebuilt (a reader's host following starts afresh: its
 * first sample decides by the threshold rule, then learns) so that MONOTONIC, MONOTONIC_RAW, REALTIME, UTC,
 * TAI and UTC_SLS (table leaps: the nominal smear, a pure function of the
 * instant) read on from what `from` reads now, at its rate; it then
 * publishes to `to` (NULL: tk's own latch, for a reader falling back
 * in-process; the page itself for a writer restarting on its page), and
 * tk's readers switch to that latch. LC_EBUSY within a second of a leap
 * (the page's snapshot is exact there by itself: try again later). */
int lc__tk_resume(lc_timekeeper *tk, const struct lc__tk_latch *from,
                  struct lc__tk_latch *to);
/* Copies the current snapshot of a latch (for validation and status). */
void lc__tk_latch_snap(const lc_timekeeper *tk, const struct lc__tk_latch *l,
                       struct lc__tk_snap *s, int64_t *mono);

/* ns to timespec without a signed 64-bit division where ns >= 0 (always, for
 * clocks after 1970): the unsigned division by a constant is a multiply. */
static inline void lc__tk_ns_to_ts(int64_t ns, struct timespec *ts)
{
	if (lc__likely(ns >= 0)) {
		ts->tv_sec = (time_t)((uint64_t)ns / 1000000000u);
		ts->tv_nsec = (long)((uint64_t)ns % 1000000000u);
	} else {
		*ts = lc__ns_to_ts(ns);
	}
}

/* REALTIME in ns, and the MONOTONIC instant it is of in *mono_out (unless
 * NULL: for callers that convert or compare at that instant, such as the
 * preload shim). `leap_check` is a constant at each call site: 1 in the
 * library; the benchmark builds a copy with 0 to measure what the one
 * compare that gives the exact leap costs (with 0 the value is wrong at a
 * leap: never use it elsewhere). */
static inline int64_t lc__tk_read_rt_at(const lc_timekeeper *tk,
                                        int leap_check, int64_t *mono_out)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_copy *c;
	uint64_t seq;
	int64_t mono, rt;

	do {
		seq = lc__tk_read_begin(p, &c);
		mono = lc__tk_mono_of(c, lc__tk_counter_read(p));
		if (leap_check &&
		    lc__unlikely(mono >= (int64_t)lc__tkw(c, LC__TKW(rt_slow))))
			return lc__tk_slow_rt(tk, mono_out);
		rt = mono + (int64_t)lc__tkw(c, LC__TKW(offs_real));
	} while (lc__tk_read_retry(p, seq));
	if (mono_out != NULL)
		*mono_out = mono;
	return rt;
}

static inline int64_t lc__tk_read_rt(const lc_timekeeper *tk, int leap_check)
{
	return lc__tk_read_rt_at(tk, leap_check, NULL);
}

static inline void lc__tk_gettime_rt(const lc_timekeeper *tk,
                                     struct timespec *ts, int leap_check)
{
	lc__tk_ns_to_ts(lc__tk_read_rt(tk, leap_check), ts);
}

/* ns since 1970 at the snapshot, `b`, plus `d` ns since the snapshot, as a
 * timespec, the way the vDSO splits its reading: b is split while the
 * counter is being read (it depends only on the snapshot, so the CPU does
 * its multiply by 1/10^9 in the shadow of the rdtsc), and after the read
 * only d is added to the ns part, with one carry. The ns part then needs a
 * division only when b < 0 or d is a second or more past the carry (a
 * writer not updated for over a second: the result is the same, by the
 * division of b + d). */
static inline __attribute__((always_inline)) void
lc__tk_ts_of(int64_t b, uint64_t d, struct timespec *ts)
{
	if (lc__likely(b >= 0)) {
		uint64_t sec = (uint64_t)b / 1000000000u;
		uint64_t ns = (uint64_t)b % 1000000000u + d;

		if (lc__likely(ns < 2000000000u)) {
			uint64_t carry = ns >= 1000000000u;

			ts->tv_sec = (time_t)(sec + carry);
			ts->tv_nsec = (long)(ns - (carry ? 1000000000u : 0));
			return;
		}
	}
	lc__tk_ns_to_ts(b + (int64_t)d, ts);
}

/* The fast timespec read of a clock that is MONOTONIC (or MONOTONIC_RAW,
 * raw != 0) plus one snapshot word (off_word; 0 for none), every term
 * inline. Only the sequence is loaded before the counter read (the read
 * must not run ahead of it: the copy it selects has a cycle_last no later
 * than the counter); the copy's words are loaded after it, while the
 * ordered read is still under way, as the vDSO does, so that no word's
 * load is on the path and few registers are live across the read; the
 * split of the snapshot's instant (lc__tk_ts_of) runs beside it too. The
 * retry compares the sequence of the latch the copy was read from. With
 * leap_check, returns 0 at or past rt_slow (the caller takes the slow
 * path: a leap or a smear at hand), as lc__tk_read_rt_at() does;
 * otherwise 1. `kind`: as lc__tk_counter_read_k(). */
static inline __attribute__((always_inline)) int
lc__tk_gettime_fast_k(const lc_timekeeper *tk, struct timespec *ts, int kind,
                      int raw, size_t off_word, int leap_check)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_latch *l;
	const struct lc__tk_copy *c;
	uint64_t seq, cyc, d;
	int64_t mono, b;
	int slow = 0;

	do {
		l = atomic_load_explicit(&p->latch, memory_order_relaxed);
		seq = atomic_load_explicit(&l->seq, memory_order_acquire);
		c = &l->copy[seq & 1];
		cyc = lc__tk_counter_read_k(p, kind);
		mono = (int64_t)lc__tkw(c, raw ? LC__TKW(raw_mono)
		                               : LC__TKW(mono));
		b = mono;
		if (off_word)
			b += (int64_t)lc__tkw(c, off_word);
		d = lc__cyc2ns_fast(cyc, lc__tkw(c, LC__TKW(cycle_last)),
		                    lc__tkw(c, raw ? LC__TKW(raw_mult)
		                                   : LC__TKW(mult)),
		                    lc__tkw(c, raw ? LC__TKW(raw_frac)
		                                   : LC__TKW(frac)),
		                    lc__tkw(c, LC__TKW(shift_max)));
		if (leap_check)
			slow = mono + (int64_t)d >=
			       (int64_t)lc__tkw(c, LC__TKW(rt_slow));
	} while (atomic_load_explicit(&l->seq, memory_order_relaxed) != seq);
	if (lc__unlikely(slow))
		return 0;
	lc__tk_ts_of(b, d, ts);
	return 1;
}

/* UTC_SLS when a smear policy is configured: one multiply after MONOTONIC's
 * (the words of line 1, loaded, as line 0's, after the counter read has
 * started: see lc__tk_gettime_fast_k); returns 0 when the slow path must
 * decide (past the piece the writer prepared, or inside an unsmeared
 * 23:59:60). With `or_utc`, a snapshot without a smear policy
 * (LC__TKF_SMEAR clear) reads UTC, as lc__tk_gettime_utc_fast() does:
 * UTC_SLS is UTC then, and the flags word is loaded with the others, off
 * the path, instead of before the loop. */
static inline __attribute__((always_inline)) int
lc__tk_gettime_sls_fast_k(const lc_timekeeper *tk, struct timespec *ts,
                          int kind, int or_utc)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_latch *l;
	const struct lc__tk_copy *c;
	uint64_t seq, cyc, mlo, mhi, clo, chi, d, v;
	int64_t base, mono;
	unsigned __int128 t;
	int slow;

	do {
		l = atomic_load_explicit(&p->latch, memory_order_relaxed);
		seq = atomic_load_explicit(&l->seq, memory_order_acquire);
		c = &l->copy[seq & 1];
		cyc = lc__tk_counter_read_k(p, kind);
		d = lc__cyc2ns_fast(cyc, lc__tkw(c, LC__TKW(cycle_last)),
		                    lc__tkw(c, LC__TKW(mult)),
		                    lc__tkw(c, LC__TKW(frac)),
		                    lc__tkw(c, LC__TKW(shift_max)));
		if (or_utc && !(lc__tkw(c, LC__TKW(flags)) & LC__TKF_SMEAR)) {
			mono = (int64_t)lc__tkw(c, LC__TKW(mono));
			base = mono + (int64_t)lc__tkw(c, LC__TKW(offs_real));
			slow = mono + (int64_t)d >=
			       (int64_t)lc__tkw(c, LC__TKW(rt_slow));
			v = d;
			continue;
		}
		if (lc__likely(d < lc__tkw(c, LC__TKW(sls[0].dmax)))) {
			base = (int64_t)lc__tkw(c, LC__TKW(sls[0].base));
			mlo = lc__tkw(c, LC__TKW(sls[0].m_lo));
			mhi = lc__tkw(c, LC__TKW(sls[0].m_hi));
			clo = lc__tkw(c, LC__TKW(sls[0].c_lo));
			chi = lc__tkw(c, LC__TKW(sls[0].c_hi));
		} else {
			if (d >= lc__tkw(c, LC__TKW(sls[1].dmax)))
				return 0;
			base = (int64_t)lc__tkw(c, LC__TKW(sls[1].base));
			mlo = lc__tkw(c, LC__TKW(sls[1].m_lo));
			mhi = lc__tkw(c, LC__TKW(sls[1].m_hi));
			clo = lc__tkw(c, LC__TKW(sls[1].c_lo));
			chi = lc__tkw(c, LC__TKW(sls[1].c_hi));
		}
		/* d < 2^40 and M < 2^85: no product overflows */
		t = (unsigned __int128)d * mlo +
		    (((unsigned __int128)chi << 64) | clo);
		v = ((uint64_t)(t >> 64) + d * mhi) >> 20;
		slow = 0;
	} while (atomic_load_explicit(&l->seq, memory_order_relaxed) != seq);
	if (lc__unlikely(slow))
		return 0;
	lc__tk_ts_of(base, v, ts);
	return 1;
}

static inline int lc__tk_gettime_sls_fast(const lc_timekeeper *tk,
                                          struct timespec *ts)
{
	return lc__tk_gettime_sls_fast_k(tk, ts, 0, 0);
}

/* UTC away from a leap is REALTIME; returns 0 when the slow path must
 * decide (a leap or smear at hand). */
static inline int lc__tk_gettime_utc_fast(const lc_timekeeper *tk,
                                          struct timespec *ts)
{
	return lc__tk_gettime_fast_k(tk, ts, 0, 0, LC__TKW(offs_real), 1);
}

/* ---- timer inverses (src/tk_inverse.c), for the timer queue, the loop's
 * driver and the preload shim; not part of the public header (issue 15) */

/* The first MONOTONIC instant (ns) at which clock `id` reads at or past
 * `deadline`, given the state now (no future steps), across the armed leap:
 * a REALTIME or UTC 00:00:00 after an insertion is one second after
 * 23:59:59.999..., and a UTC deadline in 23:59:60 (tv_nsec >= 1e9, UTC and
 * UTC_SLS only, the same deadlines lc_timer_start takes) is inside the
 * inserted second, or where there is none the next second's 00.000.
 * UTC_SLS is UTC while no smear plan runs, and goes through the plan while
 * one does (a 23:59:60.x deadline is then the 00:00:00 after it, the first
 * smeared reading at or past it). Exact on a simulated counter (tested:
 * the clock reads below the deadline 1 ns earlier). A REALTIME deadline
 * (exact, or smeared while no smear plan runs) in a repeated 23:59:59 is
 * the first occurrence when asked before the leap, and the repeated one
 * when asked during or after it (the first is past): the first instant
 * from now on at which the clock reads >= the deadline, as Linux's hrtimer
 * does for a timer armed in the leap second (one past in the repeat too
 * returns its last occurrence, in the past: a timer fires at once).
 * Lock-free. For timers. */
int lc__tk_mono_at(const lc_timekeeper *tk, lc_clock_id id,
                   const struct timespec *deadline, int64_t *mono_ns);

/* The counter value at which MONOTONIC reaches `mono_ns` at the current
 * rate (rounded up), for drivers that sleep until a deadline (with a sim
 * counter: lc_sim_true_ns_at() of it is the true time to advance to). */
int lc__tk_cycles_at(const lc_timekeeper *tk, int64_t mono_ns,
                     uint64_t *cycles);

#endif /* LC_TIMEKEEPER_H */
