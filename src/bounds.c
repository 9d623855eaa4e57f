/*
 * bounds.c - the error bound of every clock (leapclock.h, "Error bounds";
 * bounds.h the snapshot word): the writer's record of the parts at each
 * host sample, the word it publishes, and lc_gettime_bounds().
 */
#include "bounds.h"

#include "tk_sls.h"
#include "tk_writer.h"

#include <string.h>

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* ---- the writer ---------------------------------------------------------- */

void lc__bnd_sample(struct lc_timekeeper *tk, const struct lc_host_sample *hs,
                    int64_t width_ns, int64_t mono)
{
	struct lc__bnd_src *b = &tk->bnd;
	int64_t prop;

	if (!(hs->flags & LC_HOST_SAMPLE_ERROR)) {
		b->have = 0; /* the host says nothing of its error */
		return;
	}
	b->have = 1;
	b->sample_mono = mono;
	b->maxerror_ns = hs->maxerror_us * 1000;
	b->esterror_ns = hs->esterror_us * 1000;
	b->unsync =
	    (hs->flags & LC_HOST_SAMPLE_KERNEL) && (hs->status & LC_STA_UNSYNC);
	b->bracket_ns = width_ns < 0 ? 0 : width_ns;
	/* The phase between us and the host (the declared smear and a leap
	 * it has not applied removed) that the steer has yet to take out. */
	b->residual_ns = abs64(tk->hf.off_ns);
	b->err_ns = b->maxerror_ns + (b->bracket_ns + 1) / 2 + b->residual_ns +
	            (b->mode_ns > 0 ? b->mode_ns : 0);
	/* From here our phase to the host moves at the proportional steer
	 * (the integral part matches the host's rate), the host's to true
	 * time within the drift rate. */
	prop = abs64(tk->steer_ppb - tk->steer_i_ppb);
	b->drift_ppb = LC_BOUNDS_DRIFT_PPB + prop;
	b->status = b->unsync ? LC_BOUNDS_FREE_RUNNING : LC_BOUNDS_SYNCHRONIZED;
}

/* A deleted second of the table between `from` and the snapshot's
 * instant that the snapshot no longer holds (it has armed the next). */
static int deletion_behind(const struct lc_timekeeper *tk, int64_t w)
{
	const struct lc__tk_snap *s = &tk->s;
	int64_t rt = s->mono + s->offs_real, bmono;
	struct lc_leap l;

	if (s->leap_dir < 0 && !s->leap_folded)
		return 0; /* still held: readers apply it */
	if (lc_leaptable_prev(tk->table, lc__fdiv(rt, LC__NS) + 1, &l) < 0 ||
	    l.dir >= 0)
		return 0;
	/* after the deletion REALTIME = MONO + offs_real reads l.when at
	 * the boundary */
	bmono = l.when * LC__NS - s->offs_real;
	return bmono <= s->mono && bmono > s->mono - w - LC__NS / 1000;
}

uint64_t lc__bnd_word(const struct lc_timekeeper *tk, int64_t mono)
{
	const struct lc__bnd_src *b = &tk->bnd;
	int64_t w, d, drift, mode = b->mode_ns > 0 ? b->mode_ns : 0;
	int status;
	uint64_t word;

	if (tk->cfg.follow_host) {
		if (!b->have)
			return 0;
		d = mono - b->sample_mono;
		if (d < 0)
			d = 0;
		drift = b->drift_ppb;
		w = b->err_ns +
		    (int64_t)(((unsigned __int128)d * (uint64_t)drift + LC__NS -
		               1) /
		              LC__NS);
		status = b->status;
	} else {
		/* Our own NTP state: what lc_adjtimex was told (a chronyd
		 * on the shim), maxerror grown each second as Linux does. */
		w = tk->ntp.time_maxerror * 1000 + mode;
		drift = LC_BOUNDS_DRIFT_PPB;
		status = (tk->ntp.time_status & LC_STA_UNSYNC)
		             ? LC_BOUNDS_FREE_RUNNING
		             : LC_BOUNDS_SYNCHRONIZED;
	}
	word = lc__bnd_pack(w, drift, status);
	if (deletion_behind(tk, w))
		word |= LC__BND_DEL_BEHIND;
	return word;
}

/* ---- readers ------------------------------------------------------------- */

/* REALTIME (exact) at any MONOTONIC instant near the snapshot's leap,
 * before or after it, folded or not. */
static int64_t rt_exact(const struct lc__tk_snap *s, int64_t m)
{
	int64_t off = s->offs_real;

	if (s->leap_dir != 0) {
		if (s->leap_folded && m < s->leap_mono)
			off += s->leap_dir * LC__NS;
		else if (!s->leap_folded && m >= s->leap_mono)
			off -= s->leap_dir * LC__NS;
	}
	return m + off;
}

static struct timespec utc_ts(const struct lc__tk_snap *s, int64_t m)
{
	struct timespec ts;

	if (s->leap_dir > 0 && m >= s->leap_mono && m - s->leap_mono < LC__NS) {
		ts.tv_sec = (time_t)(s->leap_sec - 1);
		ts.tv_nsec = (long)(LC__NS + (m - s->leap_mono));
		return ts;
	}
	return lc__ns_to_ts(rt_exact(s, m));
}

/* REALTIME over [a, b]: its smallest and largest readings (an inserted
 * second in between repeats 23:59:59). */
static void rt_range(const struct lc__tk_snap *s, int64_t a, int64_t b,
                     struct timespec *lo, struct timespec *hi)
{
	int64_t ra = rt_exact(s, a), rb = rt_exact(s, b);

	if (s->leap_dir > 0 && s->leap_mono > a && s->leap_mono <= b) {
		int64_t rep = rt_exact(s, s->leap_mono);
		int64_t last = rt_exact(s, s->leap_mono - 1);

		if (rep < ra)
			ra = rep;
		if (last > rb)
			rb = last;
	}
	*lo = lc__ns_to_ts(ra);
	*hi = lc__ns_to_ts(rb);
}

static void clock_range(const struct lc__tk_snap *s, lc_clock_id id, int64_t a,
                        int64_t b, struct timespec *lo, struct timespec *hi)
{
	int plan = lc__smear_plan_active(&s->plan);

	if ((id == LC_CLOCK_UTC_SLS ||
	     (id == LC_CLOCK_REALTIME && (s->flags & LC__TKF_RT_SMEARED))) &&
	    plan) {
		*lo = lc__ns_to_ts(lc__tk_sls_at(s, a));
		*hi = lc__ns_to_ts(lc__tk_sls_at(s, b));
	} else if (id == LC_CLOCK_REALTIME) {
		rt_range(s, a, b, lo, hi);
	} else if (id == LC_CLOCK_UTC || id == LC_CLOCK_UTC_SLS) {
		*lo = utc_ts(s, a);
		*hi = utc_ts(s, b);
	} else {
		lc__tk_clock_at(s, id, a, lo);
		lc__tk_clock_at(s, id, b, hi);
	}
}

static void ts_add(struct timespec *ts, int64_t ns)
{
	*ts = lc__ns_to_ts(lc__ts_to_ns(ts) + ns);
}

/* The slow path: the whole snapshot, each end through the clock's own
 * function. */
static void bounds_slow(const lc_timekeeper *tk, lc_clock_id id,
                        struct lc_bounds *out)
{
	struct lc__tk_snap s;
	int64_t mono, w;
	int st;

	lc__tk_read_snap(tk, &s, &mono);
	w = lc__bnd_at(s.bound, mono - s.mono, &st);
	out->age_ns = mono - s.mono;
	out->error_ns = w;
	out->status = st;
	lc__tk_clock_at(&s, id, mono, &out->now);
	if (st == LC_BOUNDS_UNKNOWN) {
		out->earliest = out->latest = out->now;
		return;
	}
	clock_range(&s, id, mono - w, mono + w, &out->earliest, &out->latest);
	if ((s.bound & LC__BND_DEL_BEHIND) && id >= LC_CLOCK_REALTIME)
		ts_add(&out->earliest, -LC__NS);
}

uint64_t lc__bnd_drift_wide(uint64_t d, uint64_t rfix)
{
	return (uint64_t)(((unsigned __int128)d * rfix +
	                   ((UINT64_C(1) << 32) - 1)) >>
	                  32);
}

/* The fast path of a clock that is MONOTONIC plus the snapshot word
 * `off_word` (0: none), and for the realtime clocks (leap_check) the leap
 * check, as lc__tk_gettime_fast_k() reads the plain clock: only the
 * sequence is loaded before the ordered counter read; the copy's words,
 * the bound word among them, after it, so that the CPU loads them while
 * the counter read is under way. Everything that depends only on the
 * snapshot is computed there too, off the path from the counter value to
 * the result: the bound word's fields, the drift term's multiplier
 * (lc__bnd_rate_fix: no division), and the splits of the three instants
 * at the snapshot, b and b -+ w0 (w0 the half-width there), into seconds
 * and ns (lc__tk_ts_of). After the counter read: d, the ns since the
 * snapshot (one multiply), the drift over d (one multiply and a shift),
 * and three additions with one carry each. The same values as
 * bounds_slow() away from a leap: earliest = b + d - (w0 + drift),
 * latest = b + d + (w0 + drift). 0 when the slow path must decide (a leap
 * within the interval, or a deletion behind the snapshot). `kind`: as
 * lc__tk_counter_read_k(). */
static inline __attribute__((always_inline)) int
bounds_fast_k(const lc_timekeeper *tk, struct lc_bounds *out, int kind,
              size_t off_word, int leap_check)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_latch *l;
	const struct lc__tk_copy *c;
	uint64_t seq, cyc, d, bw, w0, rfix, drift;
	int64_t mono, b, slow_at = INT64_MAX;
	int st;

	do {
		l = atomic_load_explicit(&p->latch, memory_order_relaxed);
		seq = atomic_load_explicit(&l->seq, memory_order_acquire);
		c = &l->copy[seq & 1];
		cyc = lc__tk_counter_read_k(p, kind);
		mono = (int64_t)lc__tkw(c, LC__TKW(mono));
		b = mono;
		if (off_word)
			b += (int64_t)lc__tkw(c, off_word);
		bw = lc__tkw(c, LC__TKW(bound));
		d = lc__cyc2ns_fast(cyc, lc__tkw(c, LC__TKW(cycle_last)),
		                    lc__tkw(c, LC__TKW(mult)),
		                    lc__tkw(c, LC__TKW(frac)),
		                    lc__tkw(c, LC__TKW(shift_max)));
		if (leap_check)
			slow_at = (int64_t)lc__tkw(c, LC__TKW(rt_slow));
	} while (atomic_load_explicit(&l->seq, memory_order_relaxed) != seq);
	/* the word's fields (lc__bnd_at) */
	st = (int)((bw >> 60) & 3);
	if (lc__likely((bw & LC__BND_VALID) && st != 0)) {
		w0 = bw & (uint64_t)LC__BND_W_MAX;
		rfix =
		    lc__bnd_rate_fix((bw >> 40) & (uint64_t)LC__BND_RATE_MAX);
	} else {
		st = 0;
		w0 = 0;
		rfix = 0;
	}
	drift = lc__bnd_drift(d, rfix); /* <= d: rfix < 2^32 / 9 */
	if (leap_check &&
	    lc__unlikely(mono + (int64_t)d >= slow_at - (int64_t)(w0 + drift) ||
	                 (bw & LC__BND_DEL_BEHIND)))
		return 0;
	if (st == LC_BOUNDS_SYNCHRONIZED &&
	    lc__unlikely(d > (uint64_t)(LC_TIMELINE_STALE_S * LC__NS)))
		st = LC_BOUNDS_FREE_RUNNING;
	lc__tk_ts_of(b, d, &out->now);
	lc__tk_ts_of(b - (int64_t)w0, d - drift, &out->earliest);
	lc__tk_ts_of(b + (int64_t)w0, d + drift, &out->latest);
	out->error_ns = (int64_t)(w0 + drift);
	out->age_ns = (int64_t)d;
	out->status = st;
	return 1;
}

/* MONOTONIC_RAW: nothing measures the counter's nominal rate. */
static inline __attribute__((always_inline)) void
bounds_raw_k(const lc_timekeeper *tk, struct lc_bounds *out, int kind)
{
	struct timespec ts; /* stored three times, not reloaded */

	lc__tk_gettime_fast_k(tk, &ts, kind, 1, 0, 0);
	out->now = ts;
	out->earliest = ts;
	out->latest = ts;
	out->error_ns = 0;
	out->age_ns = 0;
	out->status = LC_BOUNDS_UNKNOWN;
}

static __attribute__((noinline, cold)) int
bounds_slow_ret(const lc_timekeeper *tk, lc_clock_id id, struct lc_bounds *out)
{
	bounds_slow(tk, id, out);
	return 0;
}

/* One reader per clock id and counter kind, each a leaf that
 * lc_gettime_bounds() jumps to, as lc_gettime()'s (timekeeper.c): a TSC
 * reader has no call on its path and keeps its values in the registers
 * a call would clobber. */
typedef int (*bounds_fn)(const lc_timekeeper *tk, struct lc_bounds *out);

/* A realtime clock's reader (the leap check; the slow path decides near
 * a leap), and a MONOTONIC-based one's (MONOTONIC + off_word). */
#define LC__BND_RT_READER(NAME, ID, K, KIND)                                   \
	static __attribute__((noinline)) int b_##NAME##_##K(                   \
	    const lc_timekeeper *tk, struct lc_bounds *out)                    \
	{                                                                      \
		if (lc__likely(                                                \
		        bounds_fast_k(tk, out, KIND, LC__TKW(offs_real), 1)))  \
			return 0;                                              \
		return bounds_slow_ret(tk, ID, out);                           \
	}
#define LC__BND_MONO_READER(NAME, OFF_WORD, K, KIND)                           \
	static __attribute__((noinline)) int b_##NAME##_##K(                   \
	    const lc_timekeeper *tk, struct lc_bounds *out)                    \
	{                                                                      \
		bounds_fast_k(tk, out, KIND, OFF_WORD, 0);                     \
		return 0;                                                      \
	}

#define LC__BND_READERS(K, KIND)                                               \
	LC__BND_RT_READER(realtime, LC_CLOCK_REALTIME, K, KIND)                \
	LC__BND_RT_READER(utc, LC_CLOCK_UTC, K, KIND)                          \
	LC__BND_MONO_READER(tai, LC__TKW(offs_tai), K, KIND)                   \
	LC__BND_MONO_READER(mono, 0, K, KIND)                                  \
	LC__BND_MONO_READER(boot, LC__TKW(offs_boot), K, KIND)                 \
	static __attribute__((noinline)) int b_raw_##K(                        \
	    const lc_timekeeper *tk, struct lc_bounds *out)                    \
	{                                                                      \
		bounds_raw_k(tk, out, KIND);                                   \
		return 0;                                                      \
	}                                                                      \
	/* Without a smear policy UTC_SLS is UTC (the flags never change       \
	 * after lc_tk_new(), so either copy tells); with one, the slow        \
	 * path. */                                                            \
	static __attribute__((noinline)) int b_utc_sls_##K(                    \
	    const lc_timekeeper *tk, struct lc_bounds *out)                    \
	{                                                                      \
		if (lc__likely(!(lc__tkw(&lc__tk_latch_of(tk)->copy[0],        \
		                         LC__TKW(flags)) &                     \
		                 LC__TKF_SMEAR)) &&                            \
		    lc__likely(                                                \
		        bounds_fast_k(tk, out, KIND, LC__TKW(offs_real), 1)))  \
			return 0;                                              \
		return bounds_slow_ret(tk, LC_CLOCK_UTC_SLS, out);             \
	}                                                                      \
	static const bounds_fn breaders_##K[LC_CLOCK_COUNT] = {                \
	    [LC_CLOCK_REALTIME] = b_realtime_##K,                              \
	    [LC_CLOCK_TAI] = b_tai_##K,                                        \
	    [LC_CLOCK_MONOTONIC] = b_mono_##K,                                 \
	    [LC_CLOCK_UTC] = b_utc_##K,                                        \
	    [LC_CLOCK_MONOTONIC_RAW] = b_raw_##K,                              \
	    [LC_CLOCK_BOOTTIME] = b_boot_##K,                                  \
	    [LC_CLOCK_UTC_SLS] = b_utc_sls_##K,                                \
	};

LC__BND_READERS(any, 0)
LC__BND_READERS(sys, LC_COUNTER_SYSTEM)
#if defined(__x86_64__)
LC__BND_READERS(tsc, LC_COUNTER_TSC)
#endif

int lc_gettime_bounds(const lc_timekeeper *tk, lc_clock_id id,
                      struct lc_bounds *out)
{
	if (tk == NULL || out == NULL || (unsigned)id >= LC_CLOCK_COUNT)
		return LC_EINVAL;
#if defined(__x86_64__)
	if (lc__likely(lc__tk_pub(tk)->counter_kind == LC_COUNTER_TSC))
		return breaders_tsc[id](tk, out);
#endif
	if (lc__tk_pub(tk)->counter_kind == LC_COUNTER_SYSTEM)
		return breaders_sys[id](tk, out);
	return breaders_any[id](tk, out);
}

int lc_tk_bounds_info(const lc_timekeeper *tk, struct lc_bounds_info *out)
{
	if (tk == NULL || out == NULL)
		return LC_EINVAL;
	struct lc_timekeeper *w = (struct lc_timekeeper *)tk;
	struct lc__tk_snap s;
	int64_t mono;
	uint64_t r;

	memset(out, 0, sizeof(*out));
	lc__tk_read_snap(tk, &s, &mono);
	out->error_ns = lc__bnd_at(s.bound, 0, &out->status);
	r = (s.bound >> 40) & (uint64_t)LC__BND_RATE_MAX;
	out->drift_ppb = out->status ? (int64_t)r * LC__BND_RATE_UNIT : 0;
	out->age_ns = mono - s.mono;
	lc__bnd_at(s.bound, mono - s.mono, &out->status);
	if (lc__tk_is_reader(tk))
		return 0;
	pthread_mutex_lock(&w->lock);
	if (tk->cfg.follow_host && tk->bnd.have) {
		out->have_parts = 1;
		out->unsync = tk->bnd.unsync;
		out->maxerror_ns = tk->bnd.maxerror_ns;
		out->esterror_ns = tk->bnd.esterror_ns;
		out->bracket_ns = tk->bnd.bracket_ns;
		out->residual_ns = tk->bnd.residual_ns;
		out->mode_ns = tk->bnd.mode_ns;
		out->age_ns = mono - tk->bnd.sample_mono;
	} else if (!tk->cfg.follow_host) {
		out->have_parts = 1;
		out->unsync = (tk->ntp.time_status & LC_STA_UNSYNC) != 0;
		out->maxerror_ns = tk->ntp.time_maxerror * 1000;
		out->esterror_ns = tk->ntp.time_esterror * 1000;
		out->mode_ns = tk->bnd.mode_ns;
	}
	pthread_mutex_unlock(&w->lock);
	return 0;
}
