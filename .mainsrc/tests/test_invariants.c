/*
 * test_invariants.c - DESIGN.md section 3, end to end, at random: every
 * invariant checked at the level of the public timekeeper API on the
 * simulated counter, across random scenarios that mix everything the
 * module tests exercise one at a time.
 *
 * A scenario: a sim counter (19.2 MHz..3 GHz nominal, +-100 ppm off), a
 * random start in 1972..2100 (often days before a leap), leaps from
 * adjtimex (STA_INS/STA_DEL armed at random times of day, sometimes
 * cancelled, also in the last 100 ms before the leap) or from a table
 * (the built-in one, or a synthetic tzdata table loaded with
 * lc_leaptable_load_buffer with future insertions and deletions), a smear
 * preset (every one of lc_smear_preset_names(), window overridden where
 * it may be) or none, REALTIME smeared or not, random clock steps
 * (lc_settime on REALTIME/UTC/TAI, ADJ_SETOFFSET, ADJ_TAI), random
 * frequency/offset slews, lc_update never / at 1 kHz / 1 Hz / every 17 s,
 * random steps of the counter from 1 ns to an hour with dense (~1 us)
 * sampling within 2 ms of every leap instant, end of 23:59:60, smear
 * window edge, midnight and scheduled action. Every clock is read at every
 * step.
 *
 * The expected values come from the test's own model: TAI - MONOTONIC is
 * constant between steps the test makes; TAI-UTC at a TAI instant comes
 * from the test's own copy of the table rows (or the adjtimex history it
 * drove), with the leap instant derived from the definitions (an insertion
 * at TAI (when + new - 1) s, a deletion at TAI (when + new) s); REALTIME
 * and UTC are then TAI - (TAI-UTC), UTC reading 23:59:60 as tv_nsec >= 1e9
 * during [L, L + 1 s). Replay one scenario with LC_INV_SCENARIO=<seed>
 * (LC_INV_VERBOSE=1 also prints its arms, cancels, steps and leaps).
 *
 * Invariant 7 (readings independent of the lc_update cadence) is compared
 * exactly on counters whose ns per cycle is a dyadic fraction (1 GHz,
 * 500 MHz, 25 MHz ...): on others the integer mult is off by up to one unit
 * between updates by design (timekeeper.c), which the last case measures.
 * LC_SANITIZED=1 runs a tenth of the scenarios.
 */
#include "lc_test.h"

#include "leapclock.h"

#include <math.h>

#define NS LC_NSEC_PER_SEC
#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define DAY (86400 * NS)
#define MAXROWS 256
#define MAXTIMERS 8
#define DENSE (2 * MS)

/* ---- small helpers -------------------------------------------------------- */

static int64_t tsns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * NS + t->tv_nsec;
}

static struct timespec nsts(int64_t ns)
{
	struct timespec t;
	int64_t s = ns / NS, r = ns % NS;

	if (r < 0) {
		r += NS;
		s--;
	}
	t.tv_sec = (time_t)s;
	t.tv_nsec = (long)r;
	return t;
}

/* (tv_sec, tv_nsec) order: the 23:59:60 ordering of UTC. */
static int lexcmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

static int ts_eq(const struct timespec *a, const struct timespec *b)
{
	return lexcmp(a, b) == 0;
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* 1e9/freq ns per cycle is a dyadic fraction: mult/shift is exact. */
static int exact_freq(uint64_t f)
{
	return ((unsigned __int128)1000000000u << 16) % f == 0;
}

/* ---- counts -------------------------------------------------------------- */

static int verbose;
#define VLOG(...)                                                        \
	do {                                                             \
		if (verbose)                                             \
			printf(__VA_ARGS__);                             \
	} while (0)

static long n_scen, n_steps, n_reads, n_utc60, n_ins, n_del, n_cancel,
	n_sets, n_invalid, n_badload, n_timers_fired, n_cadence_cmp,
	n_smear_reads, n_exact_late, n_into60, n_adjstate, n_rt_back;

/* ---- a scenario ----------------------------------------------------------- */

struct row {
	int64_t when;  /* POSIX s of the 00:00:00 after the leap */
	int64_t off;   /* TAI-UTC from then on */
	int dir;
	int64_t L;     /* TAI ns of the leap instant */
};

struct scen {
	uint64_t seed;
	uint64_t freq;
	int64_t ppb;
	int source;      /* enum lc_leap_source */
	int synthetic;   /* table mode: synthetic tzdata table */
	int preset;      /* index in lc_smear_preset_names(), -1 none */
	int64_t window;  /* override (0: preset default) */
	int rt_smeared;
	int64_t rt0;
	int tai0;        /* adjtimex mode: initial TAI-UTC */
	int slew;        /* frequency/offset changes allowed */
	int nleaps;      /* adjtimex mode: leaps to arm */
	int64_t span;    /* simulated ns to run after the start */
	char *tzbuf;
	size_t tzlen;
	struct row rows[MAXROWS];
	int nrows;
};

struct rd {
	struct timespec ts[LC_CLOCK_COUNT];
	uint64_t seq;
};

struct trec {
	struct run *r;
	lc_clock_id id;
	struct timespec dl;
	int fired;
	lc_timer t;
};

struct run {
	const struct scen *sc;
	lc_counter *c;
	lc_timekeeper *tk;
	lc_leaptable *tab;
	lc_loop *loop;
	struct lc_smear_policy pol;
	const struct lc_smear_policy *pp;
	int64_t period;
	int64_t t;       /* true ns */
	int64_t last_upd_t, max_gap; /* true ns of the last lc_update */
	/* model */
	int64_t offs_tai; /* TAI - MONOTONIC */
	uint64_t seq;     /* expected clock-was-set sequence */
	int have_prev, set_since_prev;
	struct rd prev;
	int64_t prev_mono, prev_tai;
	/* adjtimex mode */
	int64_t cur_off;
	int pend_dir;     /* armed leap: dir, 0 none */
	int64_t pend_w;
	int bits_set;     /* STA_INS/DEL still in status */
	int last_dir;     /* last applied leap */
	int64_t last_L;   /* its TAI instant (current frame); INT64_MIN none */
	int64_t last_w;   /* its midnight, POSIX s (the smear plan's anchor) */
	int leaps_left;
	int64_t next_act_tai; /* next arm/clear action, TAI ns */
	int status_base;  /* STA_PLL or 0 */
	int64_t last_status_mono;
	/* smear */
	double bound_ppm;
	double late_ppm;
	int64_t late_until; /* mono */
	int late_exact_ok;
	int64_t event_mono;
	int unwinding;
	/* timers */
	struct trec tm[MAXTIMERS];
	int ntm;
	/* trace for invariant 7 */
	struct rd *trace;
	size_t ntrace, captrace;
	const struct rd *cmp;
	size_t ncmp;
	int failed;
};

static void describe(const struct run *r);

#define FAILR(r, ...)                                                    \
	do {                                                             \
		if (!(r)->failed) {                                      \
			printf("  scenario seed %" PRIu64                \
			       " (LC_INV_SCENARIO=%" PRIu64 ") period %" \
			       PRId64 " t=%" PRId64 ": ",                 \
			       (r)->sc->seed, (r)->sc->seed, (r)->period, \
			       (r)->t);                                   \
			printf(__VA_ARGS__);                             \
			printf("\n");                                    \
			describe(r);                                     \
			fflush(stdout);                                  \
		}                                                        \
		(r)->failed = 1;                                         \
		lc_t_case_failed = 1;                                    \
	} while (0)

#define CHK(r, cond, ...)                                                \
	do {                                                             \
		lc_t_checks++;                                           \
		if (!(cond))                                             \
			FAILR(r, __VA_ARGS__);                           \
	} while (0)

static void describe(const struct run *r)
{
	const struct scen *sc = r->sc;

	printf("    config: freq %" PRIu64 " Hz, %" PRId64 " ppb, %s%s, "
	       "smear %s (window %" PRId64 " s)%s, start REALTIME %" PRId64
	       " ns, TAI-UTC %d (adjtimex), slew %d, span %" PRId64
	       " ns; model: TAI-MONO %" PRId64 ", armed %d (w %" PRId64
	       "), bits %d, last leap %d at TAI %" PRId64 "\n",
	       sc->freq, sc->ppb,
	       sc->source == LC_LEAP_FROM_TABLE ? "table" : "adjtimex",
	       sc->source == LC_LEAP_FROM_TABLE
	               ? (sc->synthetic ? " (synthetic)" : " (built-in)")
	               : "",
	       sc->preset >= 0 ? lc_smear_preset_names()[sc->preset] : "none",
	       r->pp ? r->pp->window_ns / NS : 0,
	       sc->rt_smeared ? ", REALTIME smeared" : "", sc->rt0, sc->tai0,
	       sc->slew, sc->span, r->offs_tai, r->pend_dir, r->pend_w,
	       r->bits_set, r->last_dir, r->last_L);
}

/* ---- the leap table model -------------------------------------------------- */

static void row_L(struct row *w)
{
	if (w->dir == 0)
		w->L = (w->when + w->off) * NS;
	else
		w->L = (w->when + w->off - (w->dir > 0 ? 1 : 0)) * NS;
}

static const char *const MON[] = {"Jan", "Feb", "Mar", "Apr", "May",
                                  "Jun", "Jul", "Aug", "Sep", "Oct",
                                  "Nov", "Dec"};

/* tzdata `leapseconds` text for rows[1..n) (row 0 is the implied 1972). */
static char *tzdata_text(const struct row *rows, int n, size_t *len)
{
	size_t cap = 128 + (size_t)n * 64, k = 0;
	char *b = malloc(cap);

	k += (size_t)snprintf(b + k, cap - k, "# synthetic\n");
	for (int i = 1; i < n; i++) {
		int64_t y;
		int m, d;

		lc_civil_from_days(rows[i].when / 86400 - 1, &y, &m, &d);
		k += (size_t)snprintf(b + k, cap - k,
		                      "Leap\t%" PRId64 "\t%s\t%d\t%s\t%s\tS\n",
		                      y, MON[m - 1], d,
		                      rows[i].dir > 0 ? "23:59:60" : "23:59:59",
		                      rows[i].dir > 0 ? "+" : "-");
	}
	k += (size_t)snprintf(b + k, cap - k, "Expires\t2150\tJan\t1\t00:00:00\n");
	*len = k;
	return b;
}

static void make_rows(struct scen *sc)
{
	lc_leaptable *t = lc_leaptable_new();
	size_t n = lc_leaptable_count(t);
	struct lc_leap l;

	sc->nrows = 0;
	for (size_t i = 0; i < n && sc->nrows < MAXROWS; i++) {
		lc_leaptable_get(t, i, &l);
		sc->rows[sc->nrows].when = l.when;
		sc->rows[sc->nrows].off = l.tai_utc;
		sc->rows[sc->nrows].dir = l.dir;
		sc->nrows++;
	}
	lc_leaptable_free(t);
	if (sc->synthetic) {
		/* Future leaps at random month ends, both directions. */
		int64_t y = 2017, m = 1 + lc_rand_range(0, 11);
		int k = (int)lc_rand_range(5, 40);

		for (int i = 0; i < k && sc->nrows < MAXROWS - 1; i++) {
			struct row *pv = &sc->rows[sc->nrows - 1];
			struct row *w = &sc->rows[sc->nrows];

			m += lc_rand_range(1, 40);
			y += (m - 1) / 12;
			m = (m - 1) % 12 + 1;
			if (y > 2099)
				break;
			w->when = lc_days_from_civil(y, (int)m, 1) * 86400;
			w->dir = (lc_rand() & 1) ? 1 : -1;
			w->off = pv->off + w->dir;
			sc->nrows++;
		}
		sc->tzbuf = tzdata_text(sc->rows, sc->nrows, &sc->tzlen);
	}
	for (int i = 0; i < sc->nrows; i++)
		row_L(&sc->rows[i]);
}

/* TAI-UTC at TAI `tai`, and whether it is inside an inserted second. */
static int64_t model_off(struct run *r, int64_t tai, int *in60,
                         int64_t *w60, int64_t *L60)
{
	*in60 = 0;
	if (r->sc->source == LC_LEAP_FROM_ADJTIMEX) {
		if (r->last_dir > 0 && r->last_L != INT64_MIN &&
		    tai >= r->last_L && tai - r->last_L < NS) {
			*in60 = 1;
			*L60 = r->last_L;
			*w60 = floordiv(r->last_L, NS) - r->cur_off + 1;
		}
		return r->cur_off;
	} else {
		const struct row *rows = r->sc->rows;
		int lo = 0, hi = r->sc->nrows - 1;

		while (lo < hi) {
			int mid = (lo + hi + 1) / 2;
			if (rows[mid].L <= tai)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (rows[lo].dir > 0 && tai >= rows[lo].L &&
		    tai - rows[lo].L < NS) {
			*in60 = 1;
			*L60 = rows[lo].L;
			*w60 = rows[lo].when;
		}
		return rows[lo].off;
	}
}

/* The leap instants (TAI ns) and directions near `tai`: table rows, or the
 * adjtimex pending / last leap. Calls fn for each. */
struct leapref {
	int64_t L;
	int dir;
};

static int leaps_near(struct run *r, int64_t tai, struct leapref *out, int max)
{
	int n = 0;

	if (r->sc->source == LC_LEAP_FROM_ADJTIMEX) {
		/* the smear of a past leap stays anchored to its UTC
		 * midnight when the time is set */
		if (r->last_dir != 0 && n < max)
			out[n++] = (struct leapref){
				(r->last_w + r->cur_off - (r->last_dir > 0)) * NS,
				r->last_dir};
		if (r->pend_dir != 0 && n < max) {
			int64_t nw = r->cur_off + r->pend_dir;
			out[n++] = (struct leapref){
				(r->pend_w + nw - (r->pend_dir > 0)) * NS,
				r->pend_dir};
		}
		return n;
	}
	for (int i = 1; i < r->sc->nrows && n < max; i++) {
		const struct row *w = &r->sc->rows[i];
		if (w->L > tai - 9 * DAY && w->L < tai + 9 * DAY)
			out[n++] = (struct leapref){w->L, w->dir};
	}
	return n;
}

/* ---- reading and checking ------------------------------------------------ */

static void read_all(struct run *r, struct rd *d)
{
	for (int id = 0; id < LC_CLOCK_COUNT; id++)
		lc_gettime(r->tk, (lc_clock_id)id, &d->ts[id]);
	d->seq = lc_clock_was_set_seq(r->tk);
	n_reads += LC_CLOCK_COUNT;
}

/* An event that may arm a smear late: creation, adjtimex arm, a step. */
static void note_event(struct run *r, int64_t mono, int64_t tai)
{
	struct leapref lr[8];
	int n;

	r->event_mono = mono;
	if (r->pp == NULL)
		return;
	n = leaps_near(r, tai, lr, 8);
	for (int i = 0; i < n; i++) {
		int64_t s, e, lm = lr[i].L - r->offs_tai;

		lc_smear_window_dir(r->pp, lr[i].dir, &s, &e);
		/* Armed while a cancelled leap still unwinds: the new smear
		 * starts at once from the unwind's offset (smear.h), moving
		 * up to 2 s in the time left, beyond the nominal rate when
		 * that is too short; from an unwind of the other sign it is
		 * over by the leap's midnight (timekeeper e65ed57), so the
		 * time left is counted to there. */
		if (r->unwinding && mono < lm + e) {
			int64_t end = mono < lm ? lm + NS : lm + e;
			double pk = 2.0 * 2e15 / (double)(end - mono);
			if (pk > r->late_ppm || r->late_until < mono)
				r->late_ppm = pk;
			r->late_until = lm + e;
		}
		if (mono > lm + s && mono < lm + e) {
			/* Late: the library starts at once and finishes in
			 * the time left (any shape peaks below 2x the mean
			 * rate), or applies the leap exactly. */
			double pk = 2.0 * 1e15 / (double)(lm + e - mono);
			if (pk > r->late_ppm || r->late_until < mono)
				r->late_ppm = pk;
			r->late_until = lm + e;
			r->late_exact_ok = 1;
		}
	}
}

static void check_reading(struct run *r, struct rd *d)
{
	const struct timespec *ts = d->ts;
	int64_t mono = tsns(&ts[LC_CLOCK_MONOTONIC]);
	int64_t raw = tsns(&ts[LC_CLOCK_MONOTONIC_RAW]);
	int64_t tai = tsns(&ts[LC_CLOCK_TAI]);
	int64_t rt = tsns(&ts[LC_CLOCK_REALTIME]);
	int64_t off, w60 = 0, L60 = 0, rt_exp;
	struct timespec utc_exp;
	int in60;
	uint64_t cyc = lc_counter_read(r->c);
	unsigned __int128 rawx = (unsigned __int128)cyc * (uint64_t)NS /
	                         r->sc->freq;

	int64_t gap = r->t - r->last_upd_t > r->max_gap ? r->t - r->last_upd_t
	                                                 : r->max_gap;
	double rtol = 2 + 1e-6 * (double)gap;

	n_steps++;
	/* MONOTONIC_RAW is the counter at its nominal rate: exactly for a
	 * counter whose ns per cycle is a dyadic fraction, else within the
	 * mult quantum (below 1 ppm) of the longest time without an update
	 * (test_raw_rate_with_and_without_update shows the size of that). */
	if (exact_freq(r->sc->freq))
		CHK(r, raw == (int64_t)rawx,
		    "MONOTONIC_RAW %" PRId64 " vs cycles*1e9/freq %" PRId64,
		    raw, (int64_t)rawx);
	else
		CHK(r, fabs((double)(raw - (int64_t)rawx)) <= rtol,
		    "MONOTONIC_RAW %" PRId64 " vs cycles*1e9/freq %" PRId64
		    " (tolerance %.0f ns)",
		    raw, (int64_t)rawx, rtol);
	CHK(r, ts_eq(&ts[LC_CLOCK_BOOTTIME], &ts[LC_CLOCK_MONOTONIC]),
	    "BOOTTIME != MONOTONIC without suspend");
	/* 4: TAI - MONOTONIC constant between our steps. */
	CHK(r, tai - mono == r->offs_tai,
	    "TAI - MONOTONIC %" PRId64 " expected %" PRId64 " (TAI jumped)",
	    tai - mono, r->offs_tai);

	/* adjtimex mode: the armed leap happens at its instant. */
	if (r->sc->source == LC_LEAP_FROM_ADJTIMEX && r->pend_dir != 0) {
		int64_t nw = r->cur_off + r->pend_dir;
		int64_t L = (r->pend_w + nw - (r->pend_dir > 0)) * NS;

		if (tai >= L) {
			r->cur_off = nw;
			r->last_dir = r->pend_dir;
			r->last_L = L;
			r->last_w = r->pend_w;
			r->pend_dir = 0;
			if (r->last_dir > 0)
				n_ins++;
			else
				n_del++;
			if (!r->set_since_prev)
				r->seq++;
		}
	}
	off = model_off(r, tai, &in60, &w60, &L60);
	rt_exp = tai - off * NS;
	if (in60) {
		utc_exp.tv_sec = (time_t)(w60 - 1);
		utc_exp.tv_nsec = (long)(NS + (tai - L60));
		n_utc60++;
	} else {
		utc_exp = nsts(rt_exp);
	}
	/* 1: UTC exactly as the model: 23:59:60 for exactly [L, L+1 s) of
	 * TAI (= of MONOTONIC), at insertions only, no new day early. */
	CHK(r, ts_eq(&ts[LC_CLOCK_UTC], &utc_exp),
	    "UTC %lld.%09ld expected %lld.%09ld (TAI %" PRId64 ", TAI-UTC %"
	    PRId64 ")",
	    (long long)ts[LC_CLOCK_UTC].tv_sec, ts[LC_CLOCK_UTC].tv_nsec,
	    (long long)utc_exp.tv_sec, utc_exp.tv_nsec, tai, off);
	if (!r->sc->rt_smeared || r->pp == NULL) {
		CHK(r, rt == rt_exp,
		    "REALTIME %" PRId64 " expected TAI - %" PRId64
		    " s = %" PRId64,
		    rt, off, rt_exp);
	} else if (ts[LC_CLOCK_UTC_SLS].tv_nsec < NS) {
		CHK(r, rt == tsns(&ts[LC_CLOCK_UTC_SLS]),
		    "smeared REALTIME %" PRId64 " != UTC_SLS %" PRId64, rt,
		    tsns(&ts[LC_CLOCK_UTC_SLS]));
	} else {
		CHK(r, rt == rt_exp, "REALTIME %" PRId64 " expected %" PRId64
		    " while UTC_SLS is exact", rt, rt_exp);
	}

	/* 5: smear bounds. */
	if (r->pp == NULL) {
		CHK(r, ts_eq(&ts[LC_CLOCK_UTC_SLS], &ts[LC_CLOCK_UTC]),
		    "UTC_SLS != UTC without a smear policy");
	} else {
		int64_t sls = tsns(&ts[LC_CLOCK_UTC_SLS]);
		int64_t u = tsns(&ts[LC_CLOCK_UTC]);
		struct leapref lr[8];
		int n = leaps_near(r, tai, lr, 8), inside = 0;

		CHK(r, sls - u <= NS && u - sls <= NS,
		    "|UTC_SLS - UTC| = %" PRId64 " ns > 1 s", sls - u);
		for (int i = 0; i < n; i++) {
			int64_t s, e, lm = lr[i].L - r->offs_tai;

			/* [start, end): at a start at midnight after an
			 * insertion UTC_SLS is still the pre-leap timeline,
			 * 1 s ahead of UTC */
			lc_smear_window_dir(r->pp, lr[i].dir, &s, &e);
			if (mono >= lm + s && mono < lm + e)
				inside = 1;
		}
		/* Equal as ns: a window starting at midnight after an
		 * insertion leaves UTC_SLS on the pre-leap timeline through
		 * 23:59:60, where it reads 00:00:00.x (the same ns). */
		if (r->unwinding && !inside && sls == u)
			r->unwinding = 0;
		if (inside)
			n_smear_reads++;
		else if (!r->unwinding)
			CHK(r, sls == u,
			    "UTC_SLS %lld.%09ld != UTC %lld.%09ld outside "
			    "the smear window",
			    (long long)ts[LC_CLOCK_UTC_SLS].tv_sec,
			    ts[LC_CLOCK_UTC_SLS].tv_nsec,
			    (long long)ts[LC_CLOCK_UTC].tv_sec,
			    ts[LC_CLOCK_UTC].tv_nsec);
		if (r->have_prev && !r->set_since_prev) {
			int64_t o0 = r->prev_tai -
			             tsns(&r->prev.ts[LC_CLOCK_UTC_SLS]);
			int64_t o1 = tai - sls, dm = mono - r->prev_mono;
			double b = r->bound_ppm;
			double lim;

			if (r->late_until >= r->prev_mono && r->late_ppm > b)
				b = r->late_ppm;
			lim = b * 1e-6 * (double)dm * 1.001 + 2;
			if (fabs((double)(o1 - o0)) > lim) {
				/* A leap the policy could not smear in the
				 * time left is applied exactly. */
				int ok = r->late_exact_ok &&
				         (o1 - o0 == NS || o1 - o0 == -NS ||
				          fabs((double)(o1 - o0) - NS) < lim ||
				          fabs((double)(o1 - o0) + NS) < lim);
				if (ok)
					n_exact_late++;
				CHK(r, ok,
				    "UTC_SLS rate: offset moved %" PRId64
				    " ns in %" PRId64 " ns (bound %.3f ppm)",
				    o1 - o0, dm, b);
			}
		}
	}

	/* 3: monotonic where promised. */
	if (r->have_prev) {
		const struct timespec *p = r->prev.ts;
		int64_t dm = mono - r->prev_mono;

		CHK(r, lexcmp(&ts[LC_CLOCK_MONOTONIC_RAW],
		              &p[LC_CLOCK_MONOTONIC_RAW]) >= 0,
		    "MONOTONIC_RAW went back");
		CHK(r, dm >= 0, "MONOTONIC went back by %" PRId64, -dm);
		CHK(r, lexcmp(&ts[LC_CLOCK_BOOTTIME], &p[LC_CLOCK_BOOTTIME]) >= 0,
		    "BOOTTIME went back");
		if (!r->set_since_prev) {
			int64_t drt = rt - tsns(&p[LC_CLOCK_REALTIME]);

			CHK(r, tai - r->prev_tai == dm,
			    "delta TAI %" PRId64 " != delta MONOTONIC %" PRId64,
			    tai - r->prev_tai, dm);
			CHK(r, lexcmp(&ts[LC_CLOCK_UTC], &p[LC_CLOCK_UTC]) >= 0,
			    "UTC went back (23:59:60 order): %lld.%09ld -> "
			    "%lld.%09ld",
			    (long long)p[LC_CLOCK_UTC].tv_sec,
			    p[LC_CLOCK_UTC].tv_nsec,
			    (long long)ts[LC_CLOCK_UTC].tv_sec,
			    ts[LC_CLOCK_UTC].tv_nsec);
			CHK(r, lexcmp(&ts[LC_CLOCK_UTC_SLS],
			              &p[LC_CLOCK_UTC_SLS]) >= 0,
			    "UTC_SLS went back: %lld.%09ld -> %lld.%09ld",
			    (long long)p[LC_CLOCK_UTC_SLS].tv_sec,
			    p[LC_CLOCK_UTC_SLS].tv_nsec,
			    (long long)ts[LC_CLOCK_UTC_SLS].tv_sec,
			    ts[LC_CLOCK_UTC_SLS].tv_nsec);
			if (drt < 0)
				n_rt_back++;
			if (!r->sc->rt_smeared || r->pp == NULL) {
				/* REALTIME: back only at an insertion, by
				 * exactly the 1 s step. */
				int64_t o0 = r->prev_tai -
				             tsns(&p[LC_CLOCK_REALTIME]);
				int64_t step = (tai - rt) - o0;

				CHK(r, drt >= 0 || step == NS,
				    "REALTIME went back by %" PRId64
				    " with a step of %" PRId64, -drt, step);
				CHK(r, step == 0 || step == NS || step == -NS,
				    "REALTIME stepped by %" PRId64, step);
			} else {
				int64_t o0 = r->prev_tai -
				             tsns(&p[LC_CLOCK_REALTIME]);
				int64_t step = (tai - rt) - o0;
				CHK(r, drt >= 0 || step == NS ||
				               (step > 0 && step <= NS),
				    "smeared REALTIME went back by %" PRId64,
				    -drt);
			}
		}
	}

	/* The clock-was-set sequence: our steps and the leaps crossed. */
	if (r->sc->source == LC_LEAP_FROM_TABLE && r->have_prev &&
	    !r->set_since_prev) {
		for (int i = 1; i < r->sc->nrows; i++) {
			const struct row *w = &r->sc->rows[i];
			if (w->L > r->prev_tai && w->L <= tai) {
				r->seq++;
				VLOG("    table leap %d crossed (TAI %" PRId64
				     "), seq %" PRIu64 " expected %" PRIu64 "\n",
				     w->dir, w->L, d->seq, r->seq);
				if (w->dir > 0)
					n_ins++;
				else
					n_del++;
			}
		}
	}
	CHK(r, d->seq == r->seq,
	    "clock_was_set_seq %" PRIu64 " expected %" PRIu64, d->seq, r->seq);

	/* 1: the adjtimex read-back (adjtimex-armed leaps). */
	if ((lc_rand() & 15) == 0) {
		struct lc_timex tx;
		int st, want;

		memset(&tx, 0, sizeof(tx));
		st = lc_adjtimex_unprivileged(r->tk, &tx);
		CHK(r, tx.tai == (int)off, "adjtimex tai %d expected %" PRId64
		    " (TAI - REALTIME %" PRId64 " ns, TAI %" PRId64 ")",
		    tx.tai, off, tai - rt, tai);
		if (r->sc->source == LC_LEAP_FROM_ADJTIMEX &&
		    mono - r->last_status_mono > NS + MS) {
			if (r->pend_dir != 0)
				want = r->pend_dir > 0 ? LC_TIME_INS
				                       : LC_TIME_DEL;
			else if (r->bits_set)
				want = in60 ? LC_TIME_OOP : LC_TIME_WAIT;
			else
				want = LC_TIME_OK;
			/* maxerror saturated at 16 s: unsynchronised */
			if (st == LC_TIME_ERROR && tx.maxerror >= 16000000 &&
			    (tx.status & LC_STA_UNSYNC))
				st = want;
			CHK(r, st == want,
			    "adjtimex state %d expected %d (armed %d, bits "
			    "%d, in 23:59:60 %d)",
			    st, want, r->pend_dir, r->bits_set, in60);
			n_adjstate++;
		}
	}

	if (r->cmp != NULL) {
		size_t k = r->ntrace;
		CHK(r, k < r->ncmp, "more readings than the first run");
		if (k < r->ncmp)
			for (int id = 0; id < LC_CLOCK_COUNT; id++)
				CHK(r, ts_eq(&ts[id], &r->cmp[k].ts[id]),
				    "cadence: reading %zu of %s is %lld.%09ld, "
				    "%lld.%09ld with the other cadence",
				    k, lc_clock_name((lc_clock_id)id),
				    (long long)ts[id].tv_sec, ts[id].tv_nsec,
				    (long long)r->cmp[k].ts[id].tv_sec,
				    r->cmp[k].ts[id].tv_nsec);
		n_cadence_cmp++;
		r->ntrace++;
	} else if (r->trace != NULL) {
		if (r->ntrace == r->captrace) {
			r->captrace = r->captrace ? r->captrace * 2 : 4096;
			r->trace = realloc(r->trace,
			                   r->captrace * sizeof(*r->trace));
		}
		r->trace[r->ntrace++] = *d;
	}

	r->prev = *d;
	r->prev_mono = mono;
	r->prev_tai = tai;
	r->have_prev = 1;
	r->set_since_prev = 0;
}

/* Reads and checks; returns MONOTONIC and TAI. */
static void sample(struct run *r, int64_t *mono, int64_t *tai)
{
	struct rd d;

	read_all(r, &d);
	check_reading(r, &d);
	*mono = tsns(&d.ts[LC_CLOCK_MONOTONIC]);
	*tai = tsns(&d.ts[LC_CLOCK_TAI]);
}

/* After a step we made: the new frame. */
static void stepped(struct run *r)
{
	int64_t mono = lc_now_ns(r->tk, LC_CLOCK_MONOTONIC);
	int64_t tai = lc_now_ns(r->tk, LC_CLOCK_TAI);

	uint64_t seq = lc_clock_was_set_seq(r->tk);

	r->offs_tai = tai - mono;
	/* One step: +1; a settime that also moves TAI-UTC to the table's
	 * value on the other side of a leap counts that change too. */
	CHK(r, seq == r->seq + 1 || seq == r->seq + 2,
	    "clock_was_set_seq %" PRIu64 " after a step, was %" PRIu64, seq,
	    r->seq);
	r->seq = seq;
	VLOG("    step at mono %" PRId64 ": TAI %" PRId64 ", seq now %" PRIu64
	     " expected %" PRIu64 "\n", mono, tai,
	     lc_clock_was_set_seq(r->tk), r->seq);
	r->set_since_prev = 1;
	r->last_L = INT64_MIN;
	n_sets++; /* an unwind goes on across a step */
	note_event(r, mono, tai);
}

/* ---- 6: invalid input changes nothing -------------------------------------- */

static void snapshot_adj(struct run *r, struct lc_timex *tx, int *st)
{
	memset(tx, 0, sizeof(*tx));
	*st = lc_adjtimex_unprivileged(r->tk, tx);
}

static int timex_same(const struct lc_timex *a, const struct lc_timex *b)
{
	return a->offset == b->offset && a->freq == b->freq &&
	       a->maxerror == b->maxerror && a->esterror == b->esterror &&
	       a->status == b->status && a->constant == b->constant &&
	       a->tick == b->tick && a->tai == b->tai &&
	       a->time.tv_sec == b->time.tv_sec &&
	       a->time.tv_usec == b->time.tv_usec;
}

static void try_invalid(struct run *r)
{
	struct rd before, after;
	struct lc_timex tx, a0, a1;
	int st0, st1, rc, want, kind = (int)lc_rand_range(0, 6);

	read_all(r, &before);
	snapshot_adj(r, &a0, &st0);
	memset(&tx, 0, sizeof(tx));
	/* valid-looking extras that must not be applied either */
	tx.modes = (unsigned)(lc_rand() & (LC_ADJ_STATUS | LC_ADJ_TAI |
	                                   LC_ADJ_MAXERROR | LC_ADJ_ESTERROR));
	tx.status = LC_STA_INS | LC_STA_DEL;
	tx.constant = 77;
	tx.maxerror = 123;
	tx.esterror = 456;
	want = LC_EINVAL;
	switch (kind) {
	case 0:
		tx.modes |= LC_ADJ_TICK;
		tx.tick = (lc_rand() & 1) ? lc_rand_range(-5, 8999)
		                          : lc_rand_range(11001, 1000000);
		break;
	case 1:
		tx.modes |= LC_ADJ_SETOFFSET;
		tx.time.tv_sec = lc_rand_range(-5, 5);
		tx.time.tv_usec = (lc_rand() & 1) ? -lc_rand_range(1, 1000)
		                                  : lc_rand_range(1000000,
		                                                  999999999);
		break;
	case 2:
		tx.modes |= LC_ADJ_SETOFFSET | LC_ADJ_NANO;
		tx.time.tv_usec = lc_rand_range(NS, 4 * NS);
		break;
	case 3:
		/* adjtime without the singleshot bit */
		tx.modes = 0x8000u | (unsigned)(lc_rand() & 0x0ffe);
		break;
	case 4:
		tx.modes |= LC_ADJ_FREQUENCY;
		tx.freq = (lc_rand() & 1) ? INT64_MAX / 65536000 + 1
		                          : INT64_MIN / 65536000 - 1 -
		                                    lc_rand_range(0, 1000);
		break;
	default:
		/* unprivileged writes */
		want = LC_EPERM;
		tx.modes |= (kind == 5) ? LC_ADJ_FREQUENCY | LC_ADJ_OFFSET
		                        : (unsigned)LC_ADJ_OFFSET_SINGLESHOT;
		if (tx.modes == 0)
			tx.modes = LC_ADJ_STATUS;
		tx.freq = 1000;
		tx.offset = 100;
		break;
	}
	if (want == LC_EPERM)
		rc = lc_adjtimex_unprivileged(r->tk, &tx);
	else
		rc = lc_adjtimex(r->tk, &tx);
	CHK(r, rc == want, "invalid adjtimex (kind %d, modes 0x%x) returned %d "
	    "expected %d", kind, tx.modes, rc, want);
	read_all(r, &after);
	snapshot_adj(r, &a1, &st1);
	for (int id = 0; id < LC_CLOCK_COUNT; id++)
		CHK(r, ts_eq(&before.ts[id], &after.ts[id]),
		    "invalid adjtimex (kind %d) changed %s", kind,
		    lc_clock_name((lc_clock_id)id));
	CHK(r, before.seq == after.seq, "invalid adjtimex bumped the seq");
	CHK(r, st0 == st1 && timex_same(&a0, &a1),
	    "invalid adjtimex (kind %d) changed the adjtimex read-back "
	    "(state %d -> %d, status 0x%x -> 0x%x, tai %d -> %d, freq %"
	    PRId64 " -> %" PRId64 ")",
	    kind, st0, st1, a0.status, a1.status, a0.tai, a1.tai, a0.freq,
	    a1.freq);
	n_invalid++;
}

static const char *const BAD_TABLES[] = {
	"Leap\t2030\tJun\t30\t23:59:60\t+\tS\nLeap\t2029\tDec\t31\t23:59:60\t+\tS\n",
	"Leap\t2030\tJun\t30\t23:59:59\t+\tS\n",
	"Leap\t2030\tJun\t30\t23:59:60\t+\tR\n",
	"Leap\t2030\tJun\t30\t23:59:60\t+\tS",
	"Leap\t2030\tJux\t30\t23:59:60\t+\tS\n",
	"Leap\t2030\tJun\t30\t23:59:60\t+\tS\nLeap\t2030\tJun\t30\t23:59:60\t+\tS\n",
	"# only a comment\n",
	"Leap\t2030\tJun\t30\t23:59:60\t+\tS\n\001\n",
};

static void try_bad_table(struct run *r)
{
	size_t n0 = lc_leaptable_count(r->tab), k;
	struct lc_error e;
	const char *b = BAD_TABLES[lc_rand_range(
		0, sizeof(BAD_TABLES) / sizeof(BAD_TABLES[0]) - 1)];
	int rc;

	memset(&e, 0, sizeof(e));
	rc = lc_leaptable_load_buffer(r->tab, "bad", b, strlen(b),
	                              (lc_rand() & 1) ? LC_LEAPFMT_TZDATA
	                                              : LC_LEAPFMT_AUTO,
	                              &e);
	CHK(r, rc < 0 && e.code == rc && e.msg[0] != '\0',
	    "bad table accepted or without a reason (rc %d): %s", rc, b);
	CHK(r, lc_leaptable_count(r->tab) == n0 &&
	            n0 == (size_t)r->sc->nrows,
	    "bad table load changed the row count %zu -> %zu", n0,
	    lc_leaptable_count(r->tab));
	for (k = 0; k < n0 && k < (size_t)r->sc->nrows; k++) {
		struct lc_leap l;
		lc_leaptable_get(r->tab, k, &l);
		CHK(r, l.when == r->sc->rows[k].when &&
		            l.tai_utc == r->sc->rows[k].off,
		    "bad table load changed row %zu", k);
	}
	n_badload++;
	VLOG("    bad table load rc %d, seq now %" PRIu64 "\n", rc,
	     lc_clock_was_set_seq(r->tk));
}

/* ---- actions ------------------------------------------------------------- */

static int adj_status(struct run *r, int bits)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	/* ntpd refreshes maxerror with each status; Linux marks the clock
	 * unsynchronised once maxerror passes 16 s (32,000 s later). */
	tx.modes = LC_ADJ_STATUS | LC_ADJ_MAXERROR;
	tx.status = r->status_base | bits;
	r->last_status_mono = lc_now_ns(r->tk, LC_CLOCK_MONOTONIC);
	return lc_adjtimex(r->tk, &tx);
}

/* The POSIX second of day of a REALTIME value. */
static int64_t sod(int64_t rt)
{
	return floordiv(rt, NS) - floordiv(rt, DAY) * 86400;
}

/* Next adjtimex arm: 1 s .. 1 day ahead, not in the last 2 s of a day. */
static void plan_arm(struct run *r, int64_t tai)
{
	int64_t a = tai + lc_rand_range(NS, DAY);
	int64_t rt = a - r->cur_off * NS;

	if (sod(rt) >= 86398)
		a -= 3 * NS;
	r->next_act_tai = a;
}

static void adj_action(struct run *r, int64_t tai)
{
	if (r->pend_dir == 0 && !r->bits_set) {
		/* arm */
		int64_t rt = tai - r->cur_off * NS;
		int dir = (lc_rand() & 1) ? 1 : -1;
		int64_t L, nw;

		if (r->leaps_left <= 0 || sod(rt) >= 86398) {
			plan_arm(r, tai);
			return;
		}
		r->leaps_left--;
		r->pend_dir = dir;
		r->pend_w = (floordiv(rt, DAY) + 1) * 86400;
		r->bits_set = 1;
		adj_status(r, dir > 0 ? LC_STA_INS : LC_STA_DEL);
		nw = r->cur_off + dir;
		L = (r->pend_w + nw - (dir > 0)) * NS;
		note_event(r, tai - r->offs_tai, tai);
		VLOG("    arm %+d at TAI %" PRId64 " (mono %" PRId64 "), leap at "
		     "TAI %" PRId64 " (mono %" PRId64 ")\n", dir, tai,
		     tai - r->offs_tai, L, L - r->offs_tai);
		switch (lc_rand_range(0, 5)) {
		case 0: /* cancel in the last 100 ms before the leap */
			r->next_act_tai = L - lc_rand_range(10 * US, 100 * MS);
			break;
		case 1: /* cancel at a random instant */
			r->next_act_tai = tai + lc_rand_range(1, L - tai);
			break;
		default: /* clear after the leap */
			r->next_act_tai = L + NS + lc_rand_range(NS / 2, 3600 * NS);
			break;
		}
		if (r->next_act_tai <= tai)
			r->next_act_tai = tai + 1;
	} else {
		/* clear the bits: a cancel before the leap, WAIT -> OK after */
		VLOG("    clear status at TAI %" PRId64 " (mono %" PRId64
		     "): %s\n", tai, tai - r->offs_tai,
		     r->pend_dir ? "cancel" : "after the leap");
		if (r->pend_dir != 0) {
			n_cancel++;
			if (r->pp != NULL)
				r->unwinding = 1;
		}
		r->pend_dir = 0;
		r->bits_set = 0;
		adj_status(r, 0);
		plan_arm(r, tai);
	}
}

/*
 * Table mode without a smear: lc_settime on UTC with tv_nsec >= 1e9, into
 * 23:59:60 of a table insertion near now (the clock is then inside that
 * second), or on a second that is not an inserted one (LC_ENOTLEAP, and
 * nothing changes: invariant 6).
 */
static void step_into_leap_second(struct run *r, int64_t tai)
{
	struct leapref lr[8];
	int n = leaps_near(r, tai, lr, 8), rc;
	struct timespec ts;
	int i;

	if (n == 0)
		return;
	i = (int)lc_rand_range(0, n - 1);
	for (int k = 1; k < r->sc->nrows; k++) {
		const struct row *w = &r->sc->rows[k];

		if (w->L != lr[i].L)
			continue;
		ts.tv_sec = (time_t)(w->when - 1);
		ts.tv_nsec = (long)(NS + lc_rand_range(0, NS - 1));
		if (w->dir < 0 || (lc_rand() & 1)) {
			/* not an inserted second */
			struct rd before, after;

			if (w->dir > 0)
				ts.tv_sec -= lc_rand_range(1, 86400);
			read_all(r, &before);
			rc = lc_settime(r->tk, LC_CLOCK_UTC, &ts);
			read_all(r, &after);
			CHK(r, rc == LC_ENOTLEAP,
			    "settime UTC %lld.%09ld (no inserted second) "
			    "returned %d",
			    (long long)ts.tv_sec, ts.tv_nsec, rc);
			for (int id = 0; id < LC_CLOCK_COUNT; id++)
				CHK(r, ts_eq(&before.ts[id], &after.ts[id]),
				    "rejected settime changed %s",
				    lc_clock_name((lc_clock_id)id));
			CHK(r, before.seq == after.seq,
			    "rejected settime bumped the seq");
			n_invalid++;
			return;
		}
		VLOG("    settime UTC into 23:59:60: %lld.%09ld\n",
		     (long long)ts.tv_sec, ts.tv_nsec);
		rc = lc_settime(r->tk, LC_CLOCK_UTC, &ts);
		CHK(r, rc == 0, "settime UTC %lld.%09ld returned %d",
		    (long long)ts.tv_sec, ts.tv_nsec, rc);
		stepped(r);
		CHK(r, lc_now_ns(r->tk, LC_CLOCK_TAI) ==
		               w->L + (int64_t)ts.tv_nsec - NS,
		    "settime into 23:59:60: TAI %" PRId64 " expected %" PRId64,
		    lc_now_ns(r->tk, LC_CLOCK_TAI),
		    w->L + (int64_t)ts.tv_nsec - NS);
		n_into60++;
		return;
	}
}

/* A random clock step (settime, ADJ_SETOFFSET, ADJ_TAI). */
static void random_step(struct run *r, int64_t tai)
{
	struct leapref lr[8];
	int64_t off, rt, target;
	int in60, kind = (int)lc_rand_range(0, 4), rc;
	int64_t w60, L60;
	struct timespec ts;

	if (r->sc->source == LC_LEAP_FROM_ADJTIMEX &&
	    (r->pend_dir != 0 || r->bits_set))
		return;
	if (r->sc->source == LC_LEAP_FROM_TABLE && r->pp == NULL &&
	    (lc_rand() & 3) == 0) {
		step_into_leap_second(r, tai);
		return;
	}
	off = model_off(r, tai, &in60, &w60, &L60);
	if (in60)
		return;
	rt = tai - off * NS;
	/* the target: near, or just before a nearby leap's window */
	if (lc_rand() & 1) {
		target = rt + lc_rand_range(-2 * DAY, 2 * DAY);
	} else {
		int n = leaps_near(r, tai, lr, 8);
		if (n > 0) {
			int i = (int)lc_rand_range(0, n - 1);
			target = lr[i].L - off * NS -
			         lc_rand_range(-3600 * NS, DAY);
		} else {
			target = rt - lc_rand_range(-NS, 10 * NS);
		}
	}
	/* away from midnights (and leaps) by 3 s */
	if (sod(target) >= 86397 || sod(target) < 3)
		target += 10 * NS;
	if (target < (INT64_C(63072000) + 40 * 86400) * NS)
		return;
	/* no jump into or across the 2 s around a leap of the table, and
	 * none from or into a table leap's smear window (where the plan is
	 * anchored is the timekeeper's business; adjtimex mode covers steps
	 * next to a smear: after its leap and during an unwind) */
	if (r->sc->source == LC_LEAP_FROM_TABLE) {
		for (int i = 1; i < r->sc->nrows; i++) {
			const struct row *w = &r->sc->rows[i];
			int64_t m = w->when * NS, s0 = 0, e0 = 0;

			if (target > m - 5 * NS && target < m + 5 * NS)
				return;
			if (r->pp == NULL)
				continue;
			lc_smear_window_dir(r->pp, w->dir, &s0, &e0);
			s0 += w->L - w->off * NS - 2 * NS;
			e0 += w->L - w->off * NS + 2 * NS;
			if ((target > s0 && target < e0) || (rt > s0 && rt < e0))
				return;
		}
		if (r->unwinding)
			return;
	}
	VLOG("    step kind %d (0 REALTIME, 1 UTC, 2 TAI, 3 SETOFFSET, 4 "
	     "ADJ_TAI) from REALTIME %" PRId64 " to %" PRId64 "\n", kind, rt,
	     target);
	switch (kind) {
	case 0:
	case 1: /* settime REALTIME or UTC */
		ts = nsts(target);
		rc = lc_settime(r->tk, kind ? LC_CLOCK_UTC : LC_CLOCK_REALTIME,
		                &ts);
		CHK(r, rc == 0, "settime returned %d", rc);
		stepped(r);
		break;
	case 2: { /* settime TAI */
		int64_t toff = off;
		int i60;
		if (r->sc->source == LC_LEAP_FROM_TABLE) {
			/* the table's offset at the target */
			struct row *rows = (struct row *)r->sc->rows;
			for (int i = 0; i < r->sc->nrows; i++)
				if (rows[i].when * NS <= target)
					toff = rows[i].off;
		}
		(void)i60;
		ts = nsts(target + toff * NS);
		rc = lc_settime(r->tk, LC_CLOCK_TAI, &ts);
		CHK(r, rc == 0, "settime TAI returned %d", rc);
		stepped(r);
		break;
	}
	case 3: { /* ADJ_SETOFFSET */
		struct lc_timex tx;
		int64_t d = target - rt;

		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_SETOFFSET | LC_ADJ_NANO;
		tx.time.tv_sec = floordiv(d, NS);
		tx.time.tv_usec = d - tx.time.tv_sec * NS;
		rc = lc_adjtimex(r->tk, &tx);
		CHK(r, rc >= 0, "ADJ_SETOFFSET returned %d", rc);
		stepped(r);
		break;
	}
	default: { /* ADJ_TAI (adjtimex mode: it is the TAI-UTC source) */
		struct lc_timex tx;
		int64_t nt;

		if (r->sc->source != LC_LEAP_FROM_ADJTIMEX)
			return;
		nt = lc_rand_range(1, 5);
		if (lc_rand() & 1)
			nt = -nt;
		nt += r->cur_off;
		if (nt < 1)
			nt = r->cur_off + 3;
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_TAI;
		tx.constant = nt;
		rc = lc_adjtimex(r->tk, &tx);
		CHK(r, rc >= 0, "ADJ_TAI returned %d", rc);
		r->cur_off = nt;
		stepped(r);
		break;
	}
	}
	if (r->sc->source == LC_LEAP_FROM_ADJTIMEX) {
		/* Linux marks the clock unsynchronised; resynchronise. */
		adj_status(r, 0);
		plan_arm(r, lc_now_ns(r->tk, LC_CLOCK_TAI));
	}
}

static void random_slew(struct run *r)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	if (lc_rand() & 1) {
		tx.modes = LC_ADJ_FREQUENCY;
		tx.freq = lc_rand_range(-500, 500) * 65536;
	} else {
		tx.modes = LC_ADJ_OFFSET;
		tx.offset = lc_rand_range(-400000, 400000); /* us */
	}
	CHK(r, lc_adjtimex(r->tk, &tx) >= 0, "slew adjtimex failed");
}

/* ---- 2: timers ------------------------------------------------------------- */

static void timer_cb(lc_timer *t, int status, void *data)
{
	struct trec *tr = data;
	struct run *r = tr->r;
	struct timespec now;

	(void)t;
	lc_gettime(r->tk, tr->id, &now);
	CHK(r, status == 0, "timer status %d", status);
	CHK(r, lexcmp(&now, &tr->dl) >= 0,
	    "timer on %s fired early: clock %lld.%09ld < deadline "
	    "%lld.%09ld",
	    lc_clock_name(tr->id), (long long)now.tv_sec, now.tv_nsec,
	    (long long)tr->dl.tv_sec, tr->dl.tv_nsec);
	tr->fired++;
	CHK(r, tr->fired == 1, "one-shot timer on %s fired %d times",
	    lc_clock_name(tr->id), tr->fired);
	n_timers_fired++;
}

static void arm_timers(struct run *r)
{
	if (lc_loop_new(&r->loop, r->tk, LC_LOOP_UNLOCKED) < 0) {
		r->loop = NULL;
		return;
	}
	r->ntm = (int)lc_rand_range(2, MAXTIMERS);
	for (int i = 0; i < r->ntm; i++) {
		struct trec *tr = &r->tm[i];
		struct timespec now;

		tr->r = r;
		tr->id = (lc_clock_id)lc_rand_range(0, LC_CLOCK_COUNT - 1);
		tr->fired = 0;
		lc_gettime(r->tk, tr->id, &now);
		tr->dl = nsts(tsns(&now) -
		              (now.tv_nsec >= NS ? NS : 0) +
		              lc_rand_range(0, r->sc->span));
		lc_timer_init(r->loop, &tr->t, tr->id, timer_cb, tr);
		CHK(r, lc_timer_start(&tr->t, LC_TIMER_ABSTIME, &tr->dl,
		                      NULL) == 0,
		    "timer start failed");
	}
}

static void expire_timers(struct run *r)
{
	if (r->loop == NULL)
		return;
	lc_loop_expire(r->loop);
	for (int i = 0; i < r->ntm; i++) {
		struct trec *tr = &r->tm[i];
		struct timespec now;

		if (tr->fired)
			continue;
		lc_gettime(r->tk, tr->id, &now);
		CHK(r, lexcmp(&now, &tr->dl) < 0,
		    "timer on %s not fired: clock %lld.%09ld >= deadline "
		    "%lld.%09ld after lc_loop_expire",
		    lc_clock_name(tr->id), (long long)now.tv_sec, now.tv_nsec,
		    (long long)tr->dl.tv_sec, tr->dl.tv_nsec);
	}
}

/* ---- the run ------------------------------------------------------------- */

/* The next boundary (TAI ns) after `tai`, and the last one at or before. */
static void boundaries(struct run *r, int64_t tai, int64_t *next,
                       int64_t *last)
{
	struct leapref lr[8];
	int n = leaps_near(r, tai, lr, 8);
	int64_t c[40];
	int k = 0;
	int64_t off = r->sc->source == LC_LEAP_FROM_ADJTIMEX ? r->cur_off : 0;

	if (r->sc->source != LC_LEAP_FROM_ADJTIMEX) {
		int in60;
		int64_t w, L;
		off = model_off(r, tai, &in60, &w, &L);
	}
	for (int i = 0; i < n && k < 36; i++) {
		c[k++] = lr[i].L;
		c[k++] = lr[i].L + NS;
		if (r->pp != NULL) {
			int64_t s, e;
			lc_smear_window_dir(r->pp, lr[i].dir, &s, &e);
			c[k++] = lr[i].L + s;
			c[k++] = lr[i].L + e;
		}
	}
	/* the next plain midnight */
	c[k++] = ((floordiv(tai - off * NS, DAY) + 1) * 86400 + off) * NS;
	c[k++] = (floordiv(tai - off * NS, DAY) * 86400 + off) * NS;
	if (r->sc->source == LC_LEAP_FROM_ADJTIMEX)
		c[k++] = r->next_act_tai;
	*next = INT64_MAX;
	*last = INT64_MIN;
	for (int i = 0; i < k; i++) {
		if (c[i] > tai && c[i] < *next)
			*next = c[i];
		if (c[i] <= tai && c[i] > *last)
			*last = c[i];
	}
}

static void advance(struct run *r, int64_t dt)
{
	int64_t t1 = r->t + dt;

	if (r->period > 0) {
		int64_t k0 = floordiv(r->t, r->period) + 1;
		int64_t k1 = floordiv(t1, r->period);

		if (k1 - k0 > 3)
			k0 = k1 - 3;
		for (int64_t k = k0; k <= k1; k++) {
			lc_sim_set_true_ns(r->c, k * r->period);
			lc_update(r->tk);
			if (k * r->period - r->last_upd_t > r->max_gap)
				r->max_gap = k * r->period - r->last_upd_t;
			r->last_upd_t = k * r->period;
		}
	}
	lc_sim_set_true_ns(r->c, t1);
	r->t = t1;
}

static int run_scenario(const struct scen *sc, int64_t period,
                        struct run *r)
{
	struct lc_tk_config cfg;
	int64_t mono, tai, end_mono;
	long steps = 0, maxsteps = 200000;
	uint64_t saved[4];
	int rc;

	memcpy(saved, lc_t_rng, sizeof(saved));
	lc_rand_seed(sc->seed ^ 0x5eed);
	r->sc = sc;
	r->period = period;
	r->failed = 0;
	r->t = 0;
	r->last_upd_t = 0;
	r->max_gap = 0;
	lc_counter_new_sim(&r->c, sc->freq, sc->ppb);
	lc_tk_config_init(&cfg);
	r->tab = NULL;
	if (sc->source == LC_LEAP_FROM_TABLE) {
		struct lc_error e;
		r->tab = lc_leaptable_new();
		if (sc->synthetic) {
			rc = lc_leaptable_load_buffer(r->tab, "synthetic",
			                              sc->tzbuf, sc->tzlen,
			                              LC_LEAPFMT_TZDATA, &e);
			CHK(r, rc == 0, "synthetic table rejected: %s", e.msg);
			CHK(r, lc_leaptable_count(r->tab) == (size_t)sc->nrows,
			    "synthetic table has %zu rows, wrote %d",
			    lc_leaptable_count(r->tab), sc->nrows);
		}
		cfg.table = r->tab;
		cfg.leap_source = LC_LEAP_FROM_TABLE;
		cfg.initial_tai_offset = -1;
	} else {
		cfg.leap_source = LC_LEAP_FROM_ADJTIMEX;
		cfg.initial_tai_offset = sc->tai0;
	}
	r->pp = NULL;
	if (sc->preset >= 0) {
		const char *name = lc_smear_preset_names()[sc->preset];
		rc = lc_smear_preset(name, sc->window, &r->pol, NULL);
		CHK(r, rc == 0, "preset %s window %" PRId64 ": %d", name,
		    sc->window, rc);
		r->pp = &r->pol;
		cfg.smear = r->pp;
		cfg.realtime_smeared = sc->rt_smeared;
		r->bound_ppm = r->pol.max_rate_ppm > 0
		                       ? r->pol.max_rate_ppm
		                       : fmax(lc_smear_peak_ppm(r->pp, 1),
		                              lc_smear_peak_ppm(r->pp, -1));
	}
	cfg.initial_realtime_ns = sc->rt0;
	rc = lc_tk_new(&r->tk, r->c, &cfg);
	CHK(r, rc == 0, "lc_tk_new: %d", rc);
	if (rc != 0) {
		lc_counter_free(r->c);
		lc_leaptable_free(r->tab);
		memcpy(lc_t_rng, saved, sizeof(saved));
		return -1;
	}
	r->status_base = sc->slew ? LC_STA_PLL : 0;
	r->cur_off = sc->tai0;
	r->pend_dir = r->bits_set = r->last_dir = 0;
	r->last_L = INT64_MIN;
	r->leaps_left = sc->nleaps;
	r->have_prev = r->set_since_prev = 0;
	r->late_ppm = 0;
	r->late_until = INT64_MIN;
	r->late_exact_ok = 0;
	r->unwinding = 0;
	r->ntrace = 0;
	r->loop = NULL;
	r->ntm = 0;
	adj_status(r, 0);
	r->last_status_mono = INT64_MIN / 2;
	r->seq = lc_clock_was_set_seq(r->tk);
	mono = lc_now_ns(r->tk, LC_CLOCK_MONOTONIC);
	tai = lc_now_ns(r->tk, LC_CLOCK_TAI);
	r->offs_tai = tai - mono;
	if (sc->source == LC_LEAP_FROM_TABLE) {
		int in60;
		int64_t w, L;
		int64_t off = model_off(r, tai, &in60, &w, &L);
		CHK(r, tai == sc->rt0 + off * NS,
		    "initial TAI %" PRId64 " expected REALTIME + %" PRId64 " s",
		    tai, off);
	} else {
		CHK(r, tai == sc->rt0 + sc->tai0 * NS,
		    "initial TAI %" PRId64 " expected REALTIME + %d s", tai,
		    sc->tai0);
	}
	note_event(r, mono, tai);
	plan_arm(r, tai);
	arm_timers(r);
	sample(r, &mono, &tai);
	end_mono = mono + sc->span;

	while (mono < end_mono && steps < maxsteps && !r->failed) {
		int64_t next, last, dt, dist;

		boundaries(r, tai, &next, &last);
		dist = next == INT64_MAX ? INT64_MAX : next - tai;
		if (dist <= DENSE || tai - last <= DENSE) {
			dt = lc_rand_range(1, 2 * US);
		} else {
			switch (lc_rand_range(0, 3)) {
			case 0:
				dt = lc_rand_range(1, 10 * MS);
				break;
			case 1:
				dt = lc_rand_range(1, 5 * NS);
				break;
			default:
				dt = lc_rand_range(1, 3600 * NS);
				break;
			}
			/* stop short of the next boundary: the rate is
			 * within 0.2 % of the true one */
			if (dist != INT64_MAX && dt > (dist - DENSE / 2) * 99 / 100)
				dt = (dist - DENSE / 2) * 99 / 100;
			if (dt < 1)
				dt = 1;
		}
		advance(r, dt);
		steps++;
		sample(r, &mono, &tai);
		if (sc->source == LC_LEAP_FROM_ADJTIMEX &&
		    tai >= r->next_act_tai) {
			adj_action(r, tai);
			sample(r, &mono, &tai);
		}
		if ((lc_rand() % 3000) == 0) {
			random_step(r, tai);
			sample(r, &mono, &tai);
		}
		if (sc->slew && (lc_rand() % 500) == 0)
			random_slew(r);
		if ((lc_rand() % 4000) == 0)
			try_invalid(r);
		if (r->tab != NULL && (lc_rand() % 4000) == 0)
			try_bad_table(r);
		expire_timers(r);
	}
	/* every timer whose clock has reached its deadline fired */
	expire_timers(r);
	lc_loop_free(r->loop);
	lc_tk_free(r->tk);
	lc_counter_free(r->c);
	lc_leaptable_free(r->tab);
	memcpy(lc_t_rng, saved, sizeof(saved));
	return r->failed ? -1 : 0;
}

static const int64_t CADENCE[] = {0, MS, NS, 17 * NS};

static const uint64_t EXACT_FREQS[] = {
	INT64_C(1000000000), INT64_C(500000000), INT64_C(250000000),
	INT64_C(125000000), INT64_C(2000000000), INT64_C(25000000),
	INT64_C(100000000),
};

static void make_scen(struct scen *sc, uint64_t seed, int noslew)
{
	const char *const *names = lc_smear_preset_names();
	int np = 0;
	uint64_t saved[4];

	memcpy(saved, lc_t_rng, sizeof(saved));
	lc_rand_seed(seed);
	while (names[np] != NULL)
		np++;
	memset(sc, 0, sizeof(*sc));
	sc->seed = seed;
	sc->freq = (uint64_t)lc_rand_range(19200000, INT64_C(3000000000));
	if (lc_rand_range(0, 3) == 0)
		sc->freq = 19200000;
	/* invariant 7 needs a counter that mult/shift converts exactly */
	if (noslew || lc_rand_range(0, 2) == 0)
		sc->freq = EXACT_FREQS[lc_rand_range(0, 6)];
	sc->ppb = lc_rand_range(-100000, 100000);
	sc->source = (lc_rand() & 1) ? LC_LEAP_FROM_TABLE
	                             : LC_LEAP_FROM_ADJTIMEX;
	sc->synthetic = sc->source == LC_LEAP_FROM_TABLE && (lc_rand() & 1);
	sc->preset = (int)lc_rand_range(-1, np - 1);
	sc->window = 0;
	if (sc->preset >= 0) {
		if (strcmp(names[sc->preset], "ntpd") == 0 && (lc_rand() & 1))
			sc->window = lc_rand_range(7200, 86400) * NS;
		if (strcmp(names[sc->preset], "cosine") == 0 && (lc_rand() & 1))
			sc->window = lc_rand_range(60, 3 * 86400) * NS;
		if (strcmp(names[sc->preset], "ntp-classic") == 0 &&
		    (lc_rand() & 1))
			sc->window = lc_rand_range(7200, 86400) * NS;
	}
	sc->rt_smeared = (int)(lc_rand() & 1);
	sc->slew = noslew ? 0 : (int)(lc_rand() & 1);
	sc->tai0 = (int)lc_rand_range(10, 60);
	sc->nleaps = (int)lc_rand_range(1, 3);
	make_rows(sc);
	/* the start: days before a leap of the table, or anywhere */
	{
		int64_t y = lc_rand_range(1972, 2100);
		/* one draw per statement: the order of evaluation of
		 * arguments differs between compilers, and a seed must
		 * replay the same scenario with any of them */
		int mday = (int)lc_rand_range(1, 28);
		int mon = (int)lc_rand_range(1, 12);
		int64_t d = lc_days_from_civil(y, mon, mday);
		int64_t sec = lc_rand_range(3, 86396);

		sc->rt0 = d * DAY + sec * NS;
		sc->rt0 += lc_rand_range(0, NS - 1);
		if (sc->source == LC_LEAP_FROM_TABLE && (lc_rand() % 4) != 0) {
			int i = (int)lc_rand_range(1, sc->nrows - 1);
			int64_t back = lc_rand_range(3 * NS, 4 * DAY);
			sc->rt0 = sc->rows[i].when * NS - back;
			if (sod(sc->rt0) >= 86397 || sod(sc->rt0) < 3)
				sc->rt0 -= 10 * NS;
		}
		if (sc->rt0 < (INT64_C(63072000) + 86400) * NS)
			sc->rt0 = (INT64_C(63072000) + 86400 * 2) * NS;
	}
	sc->span = lc_rand_range(NS, 5 * DAY);
	memcpy(lc_t_rng, saved, sizeof(saved));
}

static long scale(long n)
{
	const char *s = getenv("LC_SANITIZED");
	if (s != NULL && strcmp(s, "1") == 0)
		return n / 10 > 0 ? n / 10 : 1;
	return n;
}

static uint64_t one_seed;
static int have_one;

static void test_random_scenarios(void)
{
	long n = have_one ? 1 : scale(300), fails = 0;
	clock_t c0 = clock();

	n_reads = 0;
	for (long i = 0; i < n; i++) {
		struct scen sc;
		struct run r;
		uint64_t seed = have_one ? one_seed : lc_rand();

		make_scen(&sc, seed, 0);
		memset(&r, 0, sizeof(r));
		if (run_scenario(&sc, CADENCE[lc_rand_range(0, 3)], &r) < 0)
			fails++;
		free(sc.tzbuf);
		n_scen++;
		if (fails >= 5)
			break;
	}
	printf("# %ld scenarios (%ld failed), %ld steps, %ld clock reads, "
	       "%ld in 23:59:60 (%ld steps into it), %ld insertions, %ld deletions crossed, %ld "
	       "cancelled, %ld steps set, %ld smeared reads, %ld exact late "
	       "leaps, %ld adjtimex states, %ld REALTIME repeats, %ld "
	       "invalid adjtimex, %ld bad tables, %ld timers fired; %.2f s "
	       "CPU\n",
	       n_scen, fails, n_steps, n_reads, n_utc60, n_into60, n_ins, n_del,
	       n_cancel, n_sets, n_smear_reads, n_exact_late, n_adjstate,
	       n_rt_back, n_invalid, n_badload, n_timers_fired,
	       (double)(clock() - c0) / CLOCKS_PER_SEC);
}

static void test_cadence(void)
{
	long n = have_one ? 1 : scale(50), fails = 0;
	clock_t c0 = clock();

	n_cadence_cmp = 0;
	for (long i = 0; i < n; i++) {
		struct scen sc;
		struct run r1, r2;
		uint64_t seed = have_one ? one_seed : lc_rand();
		/* from the scenario's seed, so LC_INV_SCENARIO replays them;
		 * LC_INV_CADENCES=a,b (indices in CADENCE) overrides */
		int a = (int)(seed % 4);
		int b = (a + 1 + (int)((seed >> 8) % 3)) % 4;
		const char *cd = getenv("LC_INV_CADENCES");

		if (cd != NULL && sscanf(cd, "%d,%d", &a, &b) == 2) {
			a &= 3;
			b &= 3;
		}

		make_scen(&sc, seed, 1);
		memset(&r1, 0, sizeof(r1));
		memset(&r2, 0, sizeof(r2));
		r1.trace = malloc(sizeof(struct rd));
		r1.captrace = 1;
		VLOG("    cadences %" PRId64 " and %" PRId64 " ns\n", CADENCE[a],
		     CADENCE[b]);
		if (run_scenario(&sc, CADENCE[a], &r1) == 0) {
			r2.cmp = r1.trace;
			r2.ncmp = r1.ntrace;
			if (run_scenario(&sc, CADENCE[b], &r2) < 0)
				fails++;
			else
				CHK(&r2, r2.ntrace == r1.ntrace,
				    "%zu readings vs %zu", r2.ntrace,
				    r1.ntrace);
		} else {
			fails++;
		}
		free(r1.trace);
		free(sc.tzbuf);
		if (fails >= 3)
			break;
	}
	printf("# %ld scenario pairs (%ld failed), %ld readings compared "
	       "across two update cadences; %.2f s CPU\n",
	       n, fails, n_cadence_cmp,
	       (double)(clock() - c0) / CLOCKS_PER_SEC);
}

/* ---- minimal cases of bugs the random runs found ---------------------------- */

/*
 * Found by the random scenarios (LC_INV_SCENARIO=16547650599301291581 before
 * timekeeper commit afbd71e fixed it; kept as a regression test):
 * REALTIME set back across an inserted leap less than 2 s after its
 * instant, with no lc_update since the leap but a writer operation (here
 * an adjtimex read) inside 23:59:60. When the clock reaches the leap
 * again, readers apply it correctly, but the next writer operation
 * (lc_update, or even an adjtimex read) steps TAI and REALTIME forward by
 * one second, and the adjtimex read shows the old TAI-UTC. Expected from
 * the definitions: TAI - MONOTONIC does not change without a step, so TAI
 * reads the same before and after an lc_update at one counter instant, and
 * TAI - REALTIME is 37 s after the 2016 leap.
 */
static void test_settime_back_across_unfolded_leap(void)
{
	const int64_t W = INT64_C(1483228800); /* 2017-01-01T00:00:00Z */
	lc_counter *c;
	lc_timekeeper *tk;
	struct lc_tk_config cfg;
	struct timespec ts = {(time_t)(W - 100), 0};
	struct lc_timex tx;
	int64_t tai0, rt0, tai1, rt1;

	LC_EQ_INT(lc_counter_new_sim(&c, INT64_C(1000000000), 0), 0);
	lc_tk_config_init(&cfg);
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.initial_realtime_ns = (W - 10) * NS;
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	/* 0.5 s into 23:59:60, no update; an adjtimex read (a writer) */
	lc_sim_advance(c, 10 * NS + NS / 2);
	memset(&tx, 0, sizeof(tx));
	lc_adjtimex_unprivileged(tk, &tx);
	LC_EXPECT_I64(tx.tai, 37);
	LC_EXPECT_I64(lc_now_ns(tk, LC_CLOCK_TAI) - lc_now_ns(tk, LC_CLOCK_REALTIME),
	          37 * NS);
	LC_EXPECT_I64(lc_settime(tk, LC_CLOCK_REALTIME, &ts), 0);
	LC_EXPECT_I64(lc_now_ns(tk, LC_CLOCK_TAI), (W - 100 + 36) * NS);
	memset(&tx, 0, sizeof(tx));
	lc_adjtimex_unprivileged(tk, &tx);
	LC_EXPECT_I64(tx.tai, 36);
	/* through the leap again: 1 s + 38 us after the leap instant */
	lc_sim_advance(c, 101 * NS + 38 * US);
	tai0 = lc_now_ns(tk, LC_CLOCK_TAI);
	rt0 = lc_now_ns(tk, LC_CLOCK_REALTIME);
	LC_EXPECT_I64(tai0, (W + 37) * NS + 38 * US);
	LC_EXPECT_I64(rt0, W * NS + 38 * US);
	memset(&tx, 0, sizeof(tx));
	lc_adjtimex_unprivileged(tk, &tx);
	LC_EXPECT_I64(tx.tai, 37);
	lc_update(tk);
	tai1 = lc_now_ns(tk, LC_CLOCK_TAI);
	rt1 = lc_now_ns(tk, LC_CLOCK_REALTIME);
	LC_EXPECT_I64(tai1, tai0);
	LC_EXPECT_I64(rt1, rt0);
	lc_tk_free(tk);
	lc_counter_free(c);
}

/*
 * Found by test_cadence (LC_INV_SCENARIO=15216960259624117173, any cadence
 * pair with 1 kHz against never, 1 Hz or 17 s): UTC_SLS (here as smeared
 * REALTIME) differed by 1 ns between update cadences 6.7 us after noon,
 * where the google window of a deletion at midnight M1 ends and that of an
 * insertion armed for M1 + 1 day begins. The second smear was planned at
 * "the first update at or after" the first one's end, so its start and
 * rounding depended on when that update came. Fixed in f9477f7: the second
 * plan starts exactly at the first one's end and is published ahead of
 * time (docs/smearing.md (d)). The replay runs the scenario with both
 * cadences and compares every reading.
 */
static void test_cadence_replay_smear_handover(void)
{
	struct scen sc;
	struct run r1, r2;

	make_scen(&sc, UINT64_C(15216960259624117173), 1);
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	r1.trace = malloc(sizeof(struct rd));
	r1.captrace = 1;
	if (run_scenario(&sc, 0, &r1) == 0) {
		r2.cmp = r1.trace;
		r2.ncmp = r1.ntrace;
		run_scenario(&sc, MS, &r2);
	}
	free(r1.trace);
	free(sc.tzbuf);
}

/*
 * MONOTONIC_RAW is "the counter converted at its nominal rate". On a counter
 * whose ns per cycle is not a dyadic fraction (any real TSC) the integer
 * mult is off by up to one unit (3 GHz: about 0.36 ppm) and the writer's
 * error feedback corrects it at each update: timekeeper.c states the error
 * "stays within one mult unit times one update interval". So at an update
 * the reading is exact, and without updates it drifts by up to that rate:
 * about 20 ms after a day with no lc_update at 3 GHz (readers do depend on
 * the cadence at that level; invariant 7 is therefore compared exactly on
 * counters with a dyadic ns per cycle only). Bounds checked: exact after
 * an update every second; within 1 ppm of the day without one.
 */
static void test_raw_rate_with_and_without_update(void)
{
	const uint64_t f = UINT64_C(3000000000);
	lc_counter *c;
	lc_timekeeper *never, *every;
	int64_t a, b, ideal;

	LC_EQ_INT(lc_counter_new_sim(&c, f, 0), 0);
	LC_EQ_INT(lc_tk_new(&never, c, NULL), 0);
	LC_EQ_INT(lc_tk_new(&every, c, NULL), 0);
	for (int i = 0; i < 86400; i++) {
		lc_sim_advance(c, NS);
		lc_update(every);
	}
	a = lc_now_ns(never, LC_CLOCK_MONOTONIC_RAW);
	b = lc_now_ns(every, LC_CLOCK_MONOTONIC_RAW);
	ideal = (int64_t)((unsigned __int128)lc_counter_read(c) * 1000000000u /
	                  f);
	lc_tk_free(never);
	lc_tk_free(every);
	lc_counter_free(c);
	printf("# 3 GHz counter, one day: MONOTONIC_RAW - cycles*1e9/freq = "
	       "%" PRId64 " ns updated every second, %" PRId64
	       " ns never updated\n", b - ideal, a - ideal);
	LC_EQ_I64(b - ideal, 0);
	LC_LE_I64(a - ideal, 86400 * US);
	LC_GE_I64(a - ideal, -86400 * US);
}

/*
 * Found by the random scenarios (LC_INV_SCENARIO=7308084980313125010,
 * 955187030005134526, 2539592137621692356; fixed by timekeeper commit
 * e65ed57, kept as a regression test): a leap armed while the smear of a
 * cancelled one was still unwinding was smeared from the unwind's offset
 * at the policy's rate, and at its instant UTC_SLS was more than 1 s from
 * UTC (DESIGN.md invariant 5: |UTC_SLS - UTC| <= 1 s). Minimal
 * form with the google policy (24 h linear, noon to noon, 11.57 ppm):
 * an insertion armed a day ahead is cancelled 50 ms before midnight M
 * (UTC_SLS then 0.5 s behind and unwinding), REALTIME is set back to
 * M - 2 h, and a deletion is armed for the same midnight. At M the
 * deleted second makes UTC jump 1 s ahead while UTC_SLS is still about
 * 0.4 s behind the pre-leap timeline: 1.4 s apart. The late-arm rule
 * (DESIGN.md section 4: "starts the smear at once and finishes it in the
 * time left, and says so") would keep the bound. No step is needed: in
 * 2539592137621692356 a deletion is cancelled and an insertion armed for
 * the same midnight 33 min before it; UTC_SLS is 1.03 s from UTC.
 */
static int adj_bits(lc_timekeeper *tk, int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	return lc_adjtimex(tk, &tx);
}

static void test_rearm_while_unwinding(void)
{
	const int64_t M = INT64_C(2051222400); /* 2035-01-01T00:00:00Z */
	struct lc_smear_policy pol;
	struct lc_tk_config cfg;
	lc_counter *c;
	lc_timekeeper *tk;
	struct timespec ts = {(time_t)(M - 7200), 0}, u, sls;
	int64_t worst = 0, t;

	LC_EQ_INT(lc_smear_preset("google", 0, &pol, NULL), 0);
	LC_EQ_INT(lc_counter_new_sim(&c, INT64_C(1000000000), 0), 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (M - 20 * 3600) * NS;
	cfg.initial_tai_offset = 40;
	cfg.smear = &pol;
	LC_EQ_INT(lc_tk_new(&tk, c, &cfg), 0);
	adj_bits(tk, LC_STA_INS);                       /* at M - 20 h */
	lc_sim_advance(c, 20 * 3600 * NS - 50 * MS);
	lc_update(tk);
	adj_bits(tk, 0);                                /* cancel at M - 50 ms */
	lc_settime(tk, LC_CLOCK_REALTIME, &ts);         /* back to M - 2 h */
	adj_bits(tk, LC_STA_DEL);
	/* from 1 s before the deleted second to 10 s after it, every 1 ms */
	lc_sim_advance(c, 7200 * NS - 2 * NS);
	lc_update(tk);
	for (t = 0; t < 12000; t++) {
		int64_t d;

		lc_sim_advance(c, MS);
		if (t % 1000 == 0)
			lc_update(tk);
		lc_gettime(tk, LC_CLOCK_UTC, &u);
		lc_gettime(tk, LC_CLOCK_UTC_SLS, &sls);
		d = tsns(&sls) - tsns(&u);
		if (d < 0)
			d = -d;
		if (d > worst)
			worst = d;
	}
	lc_tk_free(tk);
	lc_counter_free(c);
	printf("# largest |UTC_SLS - UTC| around the deletion: %" PRId64
	       " ns\n", worst);
	LC_LE_I64(worst, NS);
}

int main(int argc, char **argv)
{
	const char *one = getenv("LC_INV_SCENARIO");

	lc_test_init(argc, argv);
	if (one != NULL && *one != '\0') {
		one_seed = strtoull(one, NULL, 0);
		verbose = getenv("LC_INV_VERBOSE") != NULL;
		have_one = 1;
	}
	LC_RUN(test_random_scenarios,
	       "invariants 1-6 (exact leap and adjtimex state, timers never "
	       "early and once, monotonic where promised, TAI continuous, "
	       "smear bounds, invalid input changes nothing) across random "
	       "scenarios");
	LC_RUN(test_cadence,
	       "invariant 7: identical readings on every clock with two "
	       "update cadences (leaps, smears, steps; no slew)");
	LC_RUN(test_settime_back_across_unfolded_leap,
	       "regression (found here, fixed in afbd71e): REALTIME set "
	       "back out of 23:59:60; crossing the leap again, the next "
	       "update does not step TAI/REALTIME");
	LC_RUN(test_rearm_while_unwinding,
	       "regression (found here, fixed in e65ed57): a deletion armed "
	       "while a cancelled insertion's smear unwinds keeps "
	       "|UTC_SLS - UTC| <= 1 s");
	LC_RUN(test_cadence_replay_smear_handover,
	       "regression (found here, fixed in f9477f7): one scenario's "
	       "readings are the same with lc_update never and at 1 kHz "
	       "(two leaps' smears meeting at a window's end)");
	LC_RUN(test_raw_rate_with_and_without_update,
	       "MONOTONIC_RAW of a 3 GHz counter after a day: exact with "
	       "updates every second, within 1 ppm without any");
	return lc_test_done();
}
