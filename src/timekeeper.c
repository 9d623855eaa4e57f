/*
 * timekeeper.c - the update ("tick"), the lock-free read path of every clock
 * id, the exact leap, settime/adjtimex, and following the host.
 *
 * How it fits together (the snapshot layout and the latch are described in
 * timekeeper.h):
 *
 *  - The writer state is a struct lc__tk_snap (`tk->s`) plus what readers do
 *    not need (NTP state, mult rounding errors, the next second boundary to
 *    process). Every writer operation takes `tk->lock`, first accumulates the
 *    elapsed cycles exactly as readers compute them (accumulate()), then
 *    processes the REALTIME second boundaries crossed since the last update
 *    (catch_up()), then changes what it changes, re-arms the pending leap
 *    (rearm()) and publishes both copies of the latch (publish()).
 *
 *  - Rate: MONOTONIC advances by `mult` (ns << shift per cycle) from the last
 *    update on. The rate the NTP state machine asks for (lc__ntp_rate(), ns
 *    << 32 per second) plus the host-following steer is kept as `mq`, the
 *    ideal mult with 32 more fractional bits. Readers use an integer mult, so
 *    the writer keeps the difference between the ideal and the published
 *    progression (`err`, in shifted ns << 32) and publishes mult = floor(mq)
 *    or floor(mq) + 1 by the sign of that error: Linux's ntp_error feedback
 *    reduced to its core. The error stays within one mult unit times one
 *    update interval and averages out; it is exactly 0 when mq is an integer
 *    (a 1 GHz counter at the nominal rate). A new mult takes effect at the
 *    update's counter value, after accumulating up to it with the old one, so
 *    a rate change never makes a clock jump.
 *
 *  - The exact leap: rearm() puts the MONOTONIC instant of the next leap
 *    boundary into the snapshot (leap_mono, and rt_slow for the hot path);
 *    readers apply the leap themselves from that instant on. catch_up() later
 *    "folds" it: it calls lc__ntp_second_overflow() once per POSIX second
 *    boundary crossed, in order, at the MONOTONIC instant where that
 *    boundary lay on the timeline readers saw, and moves offs_real by the
 *    leap it returns; readers then see leap_folded = 1 and the same values.
 *    So what a reader sees never depends on when lc_update() runs, and the
 *    NTP state (TIME_INS -> TIME_OOP -> TIME_WAIT ...) is exact at every
 *    writer operation, which runs the catch-up first.
 *
 *  - clock_was_set: the sequence is bumped by lc_settime, ADJ_SETOFFSET, a
 *    TAI offset change (ADJ_TAI, the table) and a followed host step; for a
 *    leap it moves at the exact instant of the leap (the start of 23:59:60 or
 *    of the deleted 23:59:59): lc_clock_was_set_seq() adds the pending
 *    leap once MONOTONIC has reached leap_mono, and the fold bumps the stored
 *    value at the same time as it marks the leap folded, so the value read is
 *    continuous and one higher from the leap instant on, updated or not.
 */
#include "timekeeper.h"

#include "hostfollow.h"
#include "ntp.h"
#include "smear.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The longest interval between updates that the 64-bit product covers.
 * Longer intervals are still right (the 128-bit path). */
#define MAX_UPDATE_SECS 600
/* mult may grow this much above nominal (tick +10%, PLL phase slew up to
 * 1/4 of 0.5 s per second, 500 ppm frequency, 500 ppm adjtime, follow
 * steer): 1.5 covers it with margin; rates are clamped to it. */
#define MULT_HEADROOM_NUM 3
#define MULT_HEADROOM_DEN 2
#define RATE_NOMINAL ((__int128)LC__NS << 32)
#define PPB_RATE(ppb) ((__int128)(ppb) * ((__int128)1 << 32)) /* 1 ppb = 1 ns/s */
/* Following the host: the phase steer may reach 10 % (a host slewed by
 * chronyd at up to 8.3 % changes CLOCK_REALTIME that fast, and a TSC does
 * not see it); the learnt frequency stays within 500 ppm. */
#define FOLLOW_MAX_PPB 100000000
#define FOLLOW_MAX_I_PPB 500000
/* Host samples per update, the tightest kept, and the widest accepted. */
#define FOLLOW_TRIES 8
#define FOLLOW_TRIES_MAX 64
#define FOLLOW_MAX_BRACKET_NS 20000
#define FOLLOW_LEAP_WINDOW (2 * 86400 * LC__NS)

struct lc_timekeeper {
	struct lc__tk_pub pub; /* must be first: the latch readers use */
	struct lc__tk_latch own; /* the latch, unless a timeline page's */
	struct lc__tk_latch *wlatch; /* where the writer publishes */
	/* A reader of a timeline page (lc__tk_new_reader): pub.latch is the
	 * page's, read-only; the writer state below is unused until
	 * lc__tk_resume() makes it a writer from the page's snapshot. */
	int reader;
	void (*reader_update)(struct lc_timekeeper *tk, void *arg);
	void *reader_arg;

	pthread_mutex_t lock;
	lc_counter *counter;
	struct lc_tk_config cfg;
	const lc_leaptable *table;
	lc_leaptable *own_table;

	struct lc__tk_snap s; /* the writer's current state */
	struct lc__ntp ntp;
	unsigned shift;
	__int128 mq, raw_mq;   /* ideal mult << 32 */
	__int128 err, raw_err; /* ideal - published, shifted ns << 32 */
	int64_t next_sec;      /* the next POSIX second boundary to process */
	int64_t plan_leap_mono; /* the leap the smear plan is for */
	int64_t plan_leap_sec;  /* its leap_sec (the POSIX second) */
	int64_t next_leap_mono; /* the leap s.plan_next is for (INT64_MAX) */
	int64_t next_leap_sec;
	/* Set by a step (after_step()) while a leap's smear plan was in
	 * effect, for rearm_smear() to move the plan with the step
	 * (docs/smearing.md (c)): that leap's second and direction, and
	 * whether it had been applied before the step. */
	int step_pending;
	int step_leap_applied;
	int64_t step_leap_sec;
	int64_t step_leap_dir;

	/* following the host */
	struct lc_tk_host host;
	int64_t steer_ppb, steer_i_ppb;
	uint64_t hf_last_cws; /* the step signal count last acted on */ /* steer_i_ppb: hf's integral */
	int64_t last_update_mono;
	struct lc__hf_state hf;   /* what the decision learnt (hostfollow.h) */
	int64_t hf_offs_tai;      /* offs_tai as the last sample left it: */
	int hf_offs_tai_valid;    /* another value means our clock was set */
};

/* ---- mult/shift ---------------------------------------------------------- */

static int floor_log2(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/* The Linux clocks_calc_mult_shift() idea: the largest shift (at most 32)
 * for which a delta of up to 2^maxbits cycles (>= MAX_UPDATE_SECS of the
 * counter) times the largest mult we allow, plus the fraction, fits 64 bits:
 *	2^maxbits * mult_nom(shift) * 3/2 + 2^shift < 2^64
 * with mult_nom(shift) = 1e9 * 2^shift / freq. A larger shift gives a finer
 * rate (one mult unit is 2^-shift ns per cycle). */
static void choose_shift(uint64_t freq, unsigned *shift, unsigned *maxbits)
{
	unsigned __int128 maxc = (unsigned __int128)freq * MAX_UPDATE_SECS;
	unsigned mb = (unsigned)floor_log2((uint64_t)maxc) + 1;
	int s;

	for (s = 32; s > 0; s--) {
		unsigned __int128 m =
			((unsigned __int128)LC__NS << s) / freq + 1;
		unsigned __int128 top = (m * MULT_HEADROOM_NUM /
		                         MULT_HEADROOM_DEN) << mb;
		if (top + ((unsigned __int128)1 << s) <
		    ((unsigned __int128)1 << 64))
			break;
	}
	*shift = (unsigned)s;
	*maxbits = mb;
}

/* Ideal mult << 32 for a rate in ns << 32 per second:
 * mult = rate / 2^32 * 2^shift / freq, so mult << 32 = (rate << shift) /
 * freq. rate < 2^63 and shift <= 32: the product fits 128 bits. */
static __int128 rate_to_mq(const struct lc_timekeeper *tk, __int128 rate)
{
	return (rate << tk->shift) / (__int128)tk->counter->freq;
}

static uint64_t mq_to_mult(__int128 mq, __int128 err)
{
	/* floor(mq) when we are ahead of the ideal, +1 when behind. */
	return (uint64_t)(mq >> 32) + (err > 0 ? 1 : 0);
}

static void set_rate(struct lc_timekeeper *tk)
{
	__int128 rate = (__int128)lc__ntp_rate(&tk->ntp) +
	                PPB_RATE(tk->steer_ppb);
	__int128 hi = RATE_NOMINAL * MULT_HEADROOM_NUM / MULT_HEADROOM_DEN;

	/* Never slower than half the nominal rate, never beyond the
	 * headroom the shift was chosen for. */
	if (rate < RATE_NOMINAL / 2)
		rate = RATE_NOMINAL / 2;
	if (rate > hi)
		rate = hi;
	tk->mq = rate_to_mq(tk, rate);
	tk->s.mult = mq_to_mult(tk->mq, tk->err);
	tk->s.raw_mult = mq_to_mult(tk->raw_mq, tk->raw_err);
}

/* ---- accumulation -------------------------------------------------------- */

/* Moves the base to `cycles` exactly as readers compute it, and accounts the
 * difference from the ideal progression. */
static void accumulate(struct lc_timekeeper *tk, uint64_t cycles)
{
	struct lc__tk_snap *s = &tk->s;
	uint64_t delta = cycles - s->cycle_last;
	unsigned __int128 t;
	uint64_t mask = (UINT64_C(1) << tk->shift) - 1;

	if ((int64_t)delta <= 0)
		return;
	t = (unsigned __int128)delta * s->mult + s->frac;
	s->mono += (int64_t)(t >> tk->shift);
	s->frac = (uint64_t)t & mask;
	tk->err += (__int128)delta * tk->mq -
	           ((__int128)delta * (__int128)s->mult << 32);

	t = (unsigned __int128)delta * s->raw_mult + s->raw_frac;
	s->raw_mono += (int64_t)(t >> tk->shift);
	s->raw_frac = (uint64_t)t & mask;
	tk->raw_err += (__int128)delta * tk->raw_mq -
	               ((__int128)delta * (__int128)s->raw_mult << 32);
	s->cycle_last = cycles;
	/* Keep mult on the side of the ideal that pays the error back. */
	s->mult = mq_to_mult(tk->mq, tk->err);
	s->raw_mult = mq_to_mult(tk->raw_mq, tk->raw_err);
}

/* ---- the leap state -------------------------------------------------------- */

static int table_mode(const struct lc_timekeeper *tk)
{
	return tk->cfg.leap_source == LC_LEAP_FROM_TABLE;
}

/* TAI-UTC from the table at REALTIME second `sec`; `in_repeat` says whether
 * `sec` is the repeated (inserted) second rather than the first 23:59:59. */
static int table_tai(const struct lc_timekeeper *tk, int64_t sec,
                     int in_repeat, int32_t *tai)
{
	if (!in_repeat && lc_leaptable_leap_at(tk->table, sec) > 0)
		sec--; /* the first 23:59:59 still has the old offset */
	return lc_leaptable_tai_utc(tk->table, sec, tai);
}

/* LC_LEAP_FROM_TABLE: the status bits chrony's leapsectz mode would set
 * before the boundary that begins POSIX second `secs`: STA_INS from the
 * midnight that starts the last day before an insertion at W up to W itself
 * (the boundary that inserts), STA_DEL from the midnight that starts the
 * day of a deletion up to its deleted second; clear otherwise (which also
 * lets TIME_WAIT return to TIME_OK after the leap). */
static void table_arm(struct lc_timekeeper *tk, int64_t secs)
{
	struct lc_leap l;
	int bits = 0;

	if (lc_leaptable_next(tk->table, secs - 1, &l) == 0) {
		if (l.dir > 0 && secs >= l.when - 86400 && secs <= l.when)
			bits = LC_STA_INS;
		else if (l.dir < 0 && secs >= l.when - 86400 &&
		         secs <= l.when - 1)
			bits = LC_STA_DEL;
	}
	/* Just after a leap the state is TIME_WAIT, which Linux leaves only
	 * at a boundary that finds STA_INS/STA_DEL clear. With the next leap
	 * less than a day away (two leaps at consecutive day ends) the bits
	 * would never clear and that leap would never be processed: clear
	 * them for this one boundary (TIME_WAIT -> TIME_OK); the next one
	 * arms the next leap (TIME_OK -> TIME_INS/DEL, for the midnight
	 * that ends that day). */
	if (tk->ntp.time_state == LC_TIME_WAIT)
		bits = 0;
	tk->ntp.time_status =
		(tk->ntp.time_status & ~(LC_STA_INS | LC_STA_DEL)) | bits;
	/* A timekeeper that starts (or is set) inside the last second
	 * before the leap has not had a boundary to move TIME_OK ->
	 * TIME_INS/DEL: second_overflow() would now arm the *next* day's
	 * leap and drop this one, which readers, armed from the table,
	 * already apply. The table is in charge: arm it for this very
	 * boundary. */
	if (tk->ntp.time_state == LC_TIME_OK &&
	    ((bits == LC_STA_INS && secs == l.when) ||
	     (bits == LC_STA_DEL && secs == l.when - 1))) {
		tk->ntp.time_state = bits == LC_STA_INS ? LC_TIME_INS
		                                        : LC_TIME_DEL;
		tk->ntp.next_leap_sec = secs;
	}
}

/* Processes every REALTIME second boundary at or before `mono_now`, in
 * order, one lc__ntp_second_overflow() call each, at the MONOTONIC instant
 * where readers saw it. A returned leap is folded into offs_real (the TAI
 * offset moves with it inside ntp, so offs_tai does not change). */
/* second_overflow() changes nothing in this state: no leap armed or
 * asked for, no phase or adjtime slew left, maxerror pinned at its limit
 * (16 s, with STA_UNSYNC). The state after any number of boundaries is the
 * state now. */
static int ntp_quiet(const struct lc__ntp *n)
{
	return n->time_state == LC_TIME_OK &&
	       !(n->time_status & (LC_STA_INS | LC_STA_DEL)) &&
	       n->time_offset == 0 && n->time_adjust == 0 &&
	       n->tick_length == n->tick_length_base &&
	       n->time_maxerror >= 16000000 &&
	       (n->time_status & LC_STA_UNSYNC);
}

/* After a long gap (NOHZ for days, a simulation jumping years) the quiet
 * seconds are skipped instead of processed one by one, which is exact (see
 * ntp_quiet), except the last day before now and, with the table as the
 * source, the two days before its next leap (where table_arm() acts). */
static void fast_forward(struct lc_timekeeper *tk, int64_t mono_now)
{
	int64_t to = lc__fdiv(mono_now + tk->s.offs_real, LC__NS) - 86400;
	struct lc_leap l;

	if (!ntp_quiet(&tk->ntp))
		return;
	if (table_mode(tk) &&
	    lc_leaptable_next(tk->table, tk->next_sec - 1, &l) == 0 &&
	    l.when - 2 * 86400 < to)
		to = l.when - 2 * 86400;
	if (to > tk->next_sec)
		tk->next_sec = to;
}

static void catch_up(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;

	for (;;) {
		int64_t b = tk->next_sec * LC__NS - s->offs_real;
		int leap;

		if (b > mono_now)
			break;
		if (mono_now - b > 4 * 86400 * LC__NS) {
			int64_t before = tk->next_sec;

			fast_forward(tk, mono_now);
			if (tk->next_sec != before)
				continue;
		}
		if (table_mode(tk))
			table_arm(tk, tk->next_sec);
		leap = lc__ntp_second_overflow(&tk->ntp, tk->next_sec);
		if (leap != 0) {
			/* Insertion (leap -1): REALTIME goes back to 23:59:59
			 * at b; the next boundary is the same POSIX second
			 * once more, one second later. Deletion (+1): it
			 * jumps to 00:00:00 and the next boundary is the one
			 * after that. Readers already applied this leap at b
			 * (leap_mono == b): folding changes no reading. */
			s->offs_real += leap * LC__NS;
			s->leap_mono = b;
			s->leap_dir = -leap;
			s->leap_sec = tk->next_sec;
			s->leap_folded = 1;
			s->cws_seq++;
		}
		tk->next_sec += 1 + leap;
	}
	s->offs_tai = s->offs_real + (int64_t)tk->ntp.tai_offset * LC__NS;
}

static int plan_active(const struct lc__smear_plan *pl)
{
	return pl->start_mono != INT64_MAX;
}

/* After a step (after_step() set tk->step_pending): the plan of the leap
 * that was being smeared becomes the nominal plan for that leap's instant on
 * the new timeline (docs/smearing.md (c)), so that UTC_SLS steps with
 * REALTIME by exactly the step and the smear keeps its schedule relative to
 * the leap. The leap is identified by its POSIX second and direction, not
 * by the step's size: a settime into 23:59:60 steps REALTIME by one second
 * less than UTC. Where the leap is now:
 *  - still pending (rearm() re-armed it): at leap_mono; the pre-leap base
 *    offs_sls is offs_real;
 *  - applied at leap_mono (a settime into its 23:59:60): base offs_real +
 *    dir * 1 s (the pre-leap timeline T reads one second more than
 *    REALTIME after an insertion);
 *  - behind us, if it had been applied before the step, or the table rules
 *    TAI-UTC (then REALTIME after the step is post-leap UTC): T =
 *    MONOTONIC + offs_real + dir * 1 s and the leap is where T reads
 *    leap_sec * 1 s.
 * Otherwise (the step disarmed the leap, as Linux's armed state that never
 * fires after ntp_clear, or moved it to another day) the plan is dropped:
 * the step is not smeared, and a leap armed now is planned afresh. */
static void smear_after_step(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t sec = tk->step_leap_sec, dir = tk->step_leap_dir;
	int64_t post = s->offs_real + dir * LC__NS, lm = INT64_MAX, base = 0;

	tk->step_pending = 0;
	if (s->leap_dir == dir && s->leap_sec == sec) {
		lm = s->leap_mono;
		base = s->leap_folded ? post : s->offs_real;
	} else if ((tk->step_leap_applied || table_mode(tk)) &&
	           sec < INT64_MAX / LC__NS &&
	           sec * LC__NS - post <= mono_now) {
		lm = sec * LC__NS - post;
		base = post;
	}
	if (lm != INT64_MAX && lc__smear_plan_settime(&s->plan, tk->cfg.smear,
	                                              lm, (int)dir, NULL) == 0) {
		s->offs_sls = base;
		tk->plan_leap_mono = lm;
		tk->plan_leap_sec = sec;
		return;
	}
	lc__smear_plan_none(&s->plan);
	s->offs_sls = s->offs_real;
	tk->plan_leap_mono = INT64_MAX;
}

/* A leap re-armed while a cancelled smear unwinds, which
 * lc__smear_plan_leap() refused (LC_ERANGE: from the unwind's offset, the
 * rest cannot be absorbed by the window's end within the policy's rate).
 * The leap cannot go unsmeared: UTC_SLS is on the unwind, continuous, and
 * a leap then applied would leave it on the pre-leap base for good (one
 * second ahead of UTC after an insertion, behind after a deletion, until
 * the next plan re-bases it with a one-second step). So the smear is
 * planned from the unwind's offset as for a later leap instant, the
 * smallest delay (bisected to 1 ms, up to about 12 days) that the policy
 * accepts: it runs at no more than the policy's rate and ends that much
 * after the nominal window's end. (The plan's own record of its leap is
 * then that later instant; the timekeeper keeps the real one in
 * plan_leap_mono.) Returns 0 with *pl set, or the first refusal. */
static int plan_leap_extended(struct lc__smear_plan *pl,
                              const struct lc_smear_policy *p,
                              int64_t leap_mono, int dir, int64_t mono_now)
{
	struct lc__smear_plan t = *pl;
	int64_t lo = 0, hi = INT64_C(1) << 50, ms = 1000000;
	int rc = lc__smear_plan_leap(&t, p, lc__sat_add(leap_mono, hi), dir,
	                             mono_now, NULL);

	if (rc < 0)
		return rc;
	/* invariant: lo refused, hi accepted */
	while (hi - lo > ms) {
		int64_t mid = lo + (hi - lo) / 2;

		t = *pl;
		if (lc__smear_plan_leap(&t, p, lc__sat_add(leap_mono, mid), dir,
		                        mono_now, NULL) == 0)
			hi = mid;
		else
			lo = mid;
	}
	rc = lc__smear_plan_leap(pl, p, lc__sat_add(leap_mono, hi), dir,
	                         mono_now, NULL);
	return rc;
}

/* lc__smear_plan_leap() from the current plan *pl. When *pl unwinds an
 * offset of the other sign than this leap's (an insertion's smear
 * cancelled, then a deletion armed, or the reverse), the smear from that
 * offset must be over by the leap instant: |UTC_SLS - UTC| <= 1 s needs the
 * offset in [0, 1 s] at an insertion's instant (UTC steps back by 1 s
 * against T there) and in [-1 s, 0] at a deletion's, and a window that
 * runs on past the leap (centred, starting) would cross it with up to
 * 2 s to go. So the smear is planned as the policy's shape with its window
 * ending at midnight (placement ENDING; a late plan from now to there,
 * faster than the policy's own). */
static int plan_leap_from(struct lc__smear_plan *pl,
                          const struct lc_smear_policy *p, int64_t leap_mono,
                          int dir, int64_t mono_now)
{
	struct lc_smear_policy q = *p;
	int64_t o = 0;

	if (plan_active(pl) && (pl->flags & LC__SMEAR_UNWIND))
		o = lc__smear_plan_offset(pl, mono_now);
	if (o != 0 && (o > 0) != (dir > 0)) {
		q.placement = LC_SMEAR_ENDING;
		if (lc_smear_validate(&q, NULL) == 0)
			p = &q;
	}
	return lc__smear_plan_leap(pl, p, leap_mono, dir, mono_now, NULL);
}

static void drop_next(struct lc_timekeeper *tk)
{
	lc__smear_plan_none(&tk->s.plan_next);
	tk->next_leap_mono = INT64_MAX;
}

/*
 * Two leaps whose smears meet (docs/smearing.md (d)). While the plan of an
 * applied leap still runs, the next leap's smear is planned at once, as if
 * armed at max(now, plan.end_mono), into s->plan_next, which readers add
 * (timekeeper.h). Its schedule therefore depends on the instants only (the
 * first plan's end, the second leap's instant, the policy, and the arm
 * call when that came after the first plan's end), never on when the writer
 * runs: every writer call from the arm to plan.end_mono computes the same
 * plan, and a reader between plan.end_mono and the next writer call already
 * reads it.
 *
 * Folding it in (the first writer call at or after plan.end_mono): readers
 * computed
 *	U(m) = m + offs_sls - plan(m) - plan_next(m)
 * and for m >= plan.end_mono plan(m) == plan.to_ns, so
 *	U(m) = m + (offs_sls - plan.to_ns) - plan_next(m)
 * which is what the single plan plan_next on the base offs_sls -
 * plan.to_ns gives: no reading changes. The first plan is done when its
 * leap was applied (offs_sls - offs_real == plan.to_ns), or when the
 * second one was applied too (no writer call between them:
 * offs_sls - offs_real == plan.to_ns + plan_next.to_ns).
 */
static void fold_plans(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t gap = s->offs_sls - s->offs_real;
	int next = plan_active(&s->plan_next);

	if (!plan_active(&s->plan) || mono_now < s->plan.end_mono)
		return;
	if (gap == s->plan.to_ns ||
	    (next && gap == s->plan.to_ns + s->plan_next.to_ns)) {
		if (next) {
			s->offs_sls -= s->plan.to_ns;
			s->plan = s->plan_next;
			tk->plan_leap_mono = tk->next_leap_mono;
			tk->plan_leap_sec = tk->next_leap_sec;
			drop_next(tk);
			return;
		}
		/* Done: the smeared timeline has caught up with REALTIME. */
		lc__smear_plan_none(&s->plan);
		s->offs_sls = s->offs_real;
		tk->plan_leap_mono = INT64_MAX;
	}
}

/* The pending leap (s->leap_*, not applied) while the plan of an applied
 * leap runs: plan_next for it (see fold_plans()), or none if the policy
 * refuses it as a late arm at max(now, plan.end_mono) (it would refuse it
 * at any later instant too: less time, a higher rate), which leaves that
 * leap unsmeared (docs/smearing.md (b)). A plan_next whose leap is no
 * longer pending nor applied (cancelled, or another leap armed) is
 * dropped: it has not started (mono_now < plan.end_mono <=
 * plan_next.start_mono, or fold_plans() would have taken it), so no
 * reading changes. */
static void plan_next_leap(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int pending = s->leap_dir != 0 && !s->leap_folded;
	struct lc__smear_plan pl;

	if (plan_active(&s->plan_next) &&
	    !(pending && s->leap_mono == tk->next_leap_mono) &&
	    s->offs_sls - s->offs_real !=
	            s->plan.to_ns + s->plan_next.to_ns)
		drop_next(tk);
	if (!pending || !plan_active(&s->plan) ||
	    (s->plan.flags & LC__SMEAR_UNWIND) ||
	    tk->plan_leap_mono == s->leap_mono ||
	    tk->next_leap_mono == s->leap_mono ||
	    s->offs_sls - s->offs_real != s->plan.to_ns ||
	    s->plan.to_ns == 0)
		return;
	lc__smear_plan_none(&pl);
	if (lc__smear_plan_leap(&pl, tk->cfg.smear, s->leap_mono,
	                        (int)s->leap_dir,
	                        mono_now > s->plan.end_mono ? mono_now
	                                                    : s->plan.end_mono,
	                        NULL) == 0 &&
	    pl.from_ns == 0 && pl.start_mono >= s->plan.end_mono) {
		s->plan_next = pl;
		tk->next_leap_mono = s->leap_mono;
		tk->next_leap_sec = s->leap_sec;
	}
}

/* Keeps the smear plan in step with the pending leap. */
static void rearm_smear(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	const struct lc_smear_policy *p = tk->cfg.smear;

	if (p == NULL)
		return;
	if (tk->step_pending)
		smear_after_step(tk, mono_now);
	fold_plans(tk, mono_now);
	plan_next_leap(tk, mono_now);
	if (s->leap_dir != 0 && !s->leap_folded) {
		if (tk->plan_leap_mono != s->leap_mono &&
		    (!plan_active(&s->plan) ||
		     (s->plan.flags & LC__SMEAR_UNWIND))) {
			struct lc__smear_plan pl = s->plan;
			int rc;

			/* A new leap to smear, or one re-armed while a
			 * cancelled one unwinds: lc__smear_plan_leap()
			 * continues from the unwind's offset at mono_now
			 * (pl is the current plan), on the same pre-leap
			 * base (offs_sls == offs_real during an unwind and
			 * before this leap), over by the leap if that offset
			 * has the other sign (plan_leap_from()). A late arm
			 * refused from an unwind is planned later instead
			 * (plan_leap_extended(); if the offset had the other
			 * sign, |UTC_SLS - UTC| then exceeds 1 s for a while
			 * rather than UTC_SLS stepping); one
			 * refused from no plan leaves the leap unsmeared
			 * (docs/smearing.md (b)). */
			/* A table leap is smeared on its nominal schedule,
			 * a pure function of the instant, however late the
			 * writer learnt of it (it started, restarted, or
			 * loaded a table inside the window): every process
			 * and the server then agree. Late arms are for leaps
			 * armed through adjtimex. */
			if (table_mode(tk) && !plan_active(&s->plan))
				rc = lc__smear_plan_settime(&pl, p, s->leap_mono,
				                            (int)s->leap_dir,
				                            NULL);
			else
				rc = plan_leap_from(&pl, p, s->leap_mono,
				                    (int)s->leap_dir, mono_now);
			if (rc == LC_ERANGE && plan_active(&s->plan))
				rc = plan_leap_extended(&pl, p, s->leap_mono,
				                        (int)s->leap_dir,
				                        mono_now);
			if (rc == 0) {
				s->plan = pl;
				s->offs_sls = s->offs_real;
				tk->plan_leap_mono = s->leap_mono;
				tk->plan_leap_sec = s->leap_sec;
			}
		}
	} else if (plan_active(&s->plan) &&
	           !(s->plan.flags & LC__SMEAR_UNWIND) &&
	           tk->plan_leap_mono != INT64_MAX &&
	           !(s->leap_folded && s->leap_mono == tk->plan_leap_mono) &&
	           s->offs_sls == s->offs_real) {
		/* The leap the plan was for is no longer pending and was not
		 * applied: cancelled. Unwind smoothly. */
		lc__smear_plan_cancel(&s->plan, p, mono_now);
		tk->plan_leap_mono = INT64_MAX;
	}
}

/* Recomputes the pending leap from the NTP state (or the table) after any
 * change, and the smear plan with it. */
static void rearm(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t when = INT64_MAX;
	int dir = 0;

	/* Keep an applied insertion in the snapshot while its second lasts
	 * (UTC reads 23:59:60 from it). */
	if (s->leap_folded && s->leap_dir > 0 &&
	    mono_now < s->leap_mono + LC__NS)
		goto smear;
	if (table_mode(tk)) {
		struct lc_leap l;
		int64_t rt = mono_now + s->offs_real;

		if (lc_leaptable_next(tk->table, lc__fdiv(rt, LC__NS), &l) == 0) {
			dir = l.dir;
			when = l.dir > 0 ? l.when : l.when - 1;
		}
	} else {
		dir = lc__ntp_pending_leap(&tk->ntp, tk->next_sec, &when);
	}
	if (dir != 0 && when < INT64_MAX / LC__NS - 1) {
		s->leap_mono = when * LC__NS - s->offs_real;
		s->leap_dir = dir;
		s->leap_sec = when;
	} else {
		s->leap_mono = INT64_MAX;
		s->leap_dir = 0;
		s->leap_sec = INT64_MAX;
	}
	s->leap_folded = 0;
smear:
	rearm_smear(tk, mono_now);
}

/* ---- publication ------------------------------------------------------------ */

/* ceil(x 2^84 / d) for 0 <= x < 2^52, 0 < d < 2^52, in two steps of 2^42
 * (each product below 2^94). */
static unsigned __int128 ceil_q84(uint64_t x, uint64_t d)
{
	unsigned __int128 n = (unsigned __int128)x << 42;
	unsigned __int128 q1 = n / d, r1 = n % d;

	n = r1 << 42;
	return (q1 << 42) + n / d + (n % d != 0);
}

/*
 * Lines 1-2 of the snapshot: UTC_SLS from the snapshot's instant `mono`
 * (m0) on, as two pieces. On a piece, with offset(m) = base +
 * floor((p (m - t0) + q) / D) (lc__smear_plan_piece: the plan's offset,
 * exactly) and K the rest (offs_sls minus the other plan's constant
 * offset), at m = m0 + d:
 *
 *     UTC_SLS = m0 + d + K - base - floor((p (u0 + d) + q) / D)
 *             = S0 + d - floor((p d + r0) / D)           p u0 + q = n0 D + r0
 *             = S0 + floor((E d + c0) / D)               E = D - p > 0,
 *                                                        c0 = D - 1 - r0
 *
 * with u0 = m0 - t0 (negative for the second piece) and S0 = m0 + K -
 * base - n0 (d - floor(y) = ceil(d - y) = floor((D d - p d - r0 + D - 1)
 * / D)). E > 0: the offset moves less than 1 ns per ns. The reader takes
 * it as (d M + C) >> 84 with M = ceil(E 2^84 / D), C = ceil(c0 2^84 / D):
 * the fraction of (E d + c0) / D is a multiple of 1/D at most 1 - 1/D,
 * and the error of (d M + C) / 2^84 is in [0, (d + 1) / 2^84), below 1/D
 * while (d + 1) D <= 2^84, so the floor is the same. Hence dmax =
 * min(the piece's end - m0, 2^84 / D, 2^40); 2^40 ns (18 min) keeps d M
 * below 2^125.
 *
 * Without a plan UTC_SLS is UTC: REALTIME up to the leap, 23:59:60 during
 * an inserted second (the slow path), REALTIME after it.
 *
 * Fills *out for the piece around m (>= m0) and returns its end (an
 * exclusive MONOTONIC instant; m when there is none: dmax stays 0).
 */
static int64_t sls_piece_fill(const struct lc__tk_snap *s, int64_t m,
                              struct lc__tk_sls_piece *out)
{
	const int64_t m0 = s->mono;
	struct lc__smear_piece pc, pn;
	int64_t k0, hi, n0, r0, E, c0;
	unsigned __int128 M, C;
	__int128 num, S0;
	uint64_t dmax;

	memset(out, 0, sizeof(*out));
	memset(&pc, 0, sizeof(pc));
	pc.d = 1;
	if (!plan_active(&s->plan)) {
		if (m < s->leap_mono) {
			hi = s->leap_mono;
			k0 = s->offs_real;
		} else if (s->leap_dir > 0 &&
		           m < lc__sat_add(s->leap_mono, LC__NS)) {
			return m; /* 23:59:60 */
		} else {
			hi = INT64_MAX;
			k0 = lc__tk_realtime_at(s, m) - m;
		}
	} else {
		lc__smear_plan_piece(&s->plan, m, &pc);
		lc__smear_plan_piece(&s->plan_next, m, &pn);
		if (pn.p != 0 || pn.q != 0) {
			/* plan_next moves only where plan is constant */
			struct lc__smear_piece t = pc;

			if (t.p != 0 || t.q != 0)
				return m;
			pc = pn;
			pn = t;
		}
		k0 = s->offs_sls - pn.base;
		hi = pc.hi < pn.hi ? pc.hi : pn.hi;
	}
	if (pc.d <= 0 || pc.d >= (INT64_C(1) << 51) || pc.p >= pc.d ||
	    pc.p <= -pc.d || hi <= m)
		return m;
	num = (__int128)pc.p * ((__int128)m0 - pc.t0) + pc.q;
	n0 = (int64_t)(num / pc.d);
	r0 = (int64_t)(num % pc.d);
	if (r0 < 0) {
		n0--;
		r0 += pc.d;
	}
	S0 = (__int128)m0 + k0 - pc.base - n0;
	if (S0 > INT64_MAX - (INT64_C(1) << 41) || S0 < INT64_MIN)
		return m;
	E = pc.d - pc.p;
	c0 = pc.d - 1 - r0;
	M = ceil_q84((uint64_t)E, (uint64_t)pc.d);
	C = ceil_q84((uint64_t)c0, (uint64_t)pc.d);
	dmax = UINT64_C(1) << 40;
	if ((((unsigned __int128)1 << 84) / (uint64_t)pc.d) < dmax)
		dmax = (uint64_t)(((unsigned __int128)1 << 84) /
		                  (uint64_t)pc.d);
	if ((uint64_t)hi - (uint64_t)m0 < dmax)
		dmax = (uint64_t)hi - (uint64_t)m0;
	if (dmax <= (uint64_t)m - (uint64_t)m0)
		return m;
	out->base = (int64_t)S0;
	out->m_lo = (uint64_t)M;
	out->m_hi = (uint64_t)(M >> 64);
	out->c_lo = (uint64_t)C;
	out->c_hi = (uint64_t)(C >> 64);
	out->dmax = dmax;
	return (int64_t)((uint64_t)m0 + dmax);
}

static void sls_fast_fill(struct lc__tk_snap *s)
{
	int64_t end = sls_piece_fill(s, s->mono, &s->sls[0]);

	memset(&s->sls[1], 0, sizeof(s->sls[1]));
	if (s->sls[0].dmax > 0 && end < INT64_MAX)
		sls_piece_fill(s, end, &s->sls[1]);
}

static void publish(struct lc_timekeeper *tk)
{
	/* The writer owns its latch, its own or a timeline page's. */
	struct lc__tk_latch *p = tk->wlatch;
	struct lc__tk_snap *s = &tk->s;
	uint64_t w[LC__TK_WORDS];
	uint64_t seq;

	s->rt_slow = s->leap_mono;
	if ((s->flags & LC__TKF_RT_SMEARED) && plan_active(&s->plan) &&
	    s->plan.start_mono < s->rt_slow)
		s->rt_slow = s->plan.start_mono;
	sls_fast_fill(s);
	memcpy(w, s, sizeof(w));

	/* The latch: readers use copy[seq & 1]. Bump to odd (readers move to
	 * copy 1, which holds the previous state), rewrite copy 0, bump to
	 * even (readers move to copy 0, now new), rewrite copy 1. Each word
	 * is stored with release, so a reader that acquires any new word of
	 * the copy it is reading also sees the bump before it at its
	 * re-check and retries; the release store of the bump publishes the
	 * copy written before it. */
	seq = atomic_load_explicit(&p->seq, memory_order_relaxed);
	for (int k = 0; k < 2; k++) {
		struct lc__tk_copy *c =
			&p->copy[((seq + 1 + (uint64_t)k) & 1) ? 0 : 1];

		atomic_store_explicit(&p->seq, seq + 1 + (uint64_t)k,
		                      memory_order_release);
		for (size_t i = 0; i < LC__TK_WORDS; i++)
			atomic_store_explicit(&c->w[i], w[i],
			                      memory_order_release);
	}
}

/* ---- the writer's catch-up ------------------------------------------------ */

/* One sample of the host: the simulated one configured, else this host's
 * (the kernel's facts and step signal where it has them). */
static int host_sample(const struct lc_timekeeper *tk,
                       struct lc_host_sample *hs)
{
	if (tk->cfg.host_sample != NULL) {
		memset(hs, 0, sizeof(*hs));
		return tk->cfg.host_sample(tk->cfg.host_arg, hs);
	}
	if (tk->cfg.host_realtime != NULL) {
		memset(hs, 0, sizeof(*hs));
		hs->realtime_ns = tk->cfg.host_realtime(tk->cfg.host_arg);
		return 0;
	}
	return lc__hostclock_sample(hs);
}

static void host_input(struct lc__hf_input *in, const struct lc_host_sample *hs)
{
	memset(in, 0, sizeof(*in));
	in->host_ns = hs->realtime_ns;
	in->has_kernel = (hs->flags & LC_HOST_SAMPLE_KERNEL) != 0;
	in->ktai = hs->tai;
	in->kstate = hs->state;
	in->kstatus = hs->status;
	in->has_cws = (hs->flags & LC_HOST_SAMPLE_CWS) != 0;
	in->cws = hs->clock_was_set;
}

/* The host's REALTIME, which lc_tk_new starts from (s->mono is set). When
 * following the host, that sample is also the first one the decision
 * learns from: REALTIME is set to the host's, so the learnt offset is 0
 * (unless a declared host smear is under way), TAI-UTC the table's, and
 * the kernel's state and step count are the baselines. */
/* The host sample between two counter reads (a preemption in between
 * would bias it): the tightest of FOLLOW_TRIES, and of up to
 * FOLLOW_TRIES_MAX while every bracket was wider than a quarter of
 * FOLLOW_MAX_BRACKET_NS, but never one older than a step signal another
 * showed. *mid is the counter at the bracket's middle, *width_ns its
 * width at the counter's nominal rate. -1 if no sample could be had. */
static int sample_bracketed(const struct lc_timekeeper *tk,
                            struct lc_host_sample *hs, uint64_t *mid,
                            int64_t *width_ns)
{
	uint64_t ca = 0, cb = 0, best = UINT64_MAX;
	struct lc_host_sample hv;
	int got = 0;

	memset(hs, 0, sizeof(*hs));
	for (int i = 0; i < FOLLOW_TRIES_MAX && best != 0; i++) {
		uint64_t a, b;
		int rc;

		if (i >= FOLLOW_TRIES && got &&
		    (int64_t)((unsigned __int128)best * LC__NS /
		              tk->counter->freq) <= FOLLOW_MAX_BRACKET_NS / 4)
			break;
		a = lc__counter_read(tk->counter);
		rc = host_sample(tk, &hv);
		b = lc__counter_read(tk->counter);
		if (rc < 0)
			continue;
		if (got && hv.clock_was_set != hs->clock_was_set)
			best = UINT64_MAX;
		if (b - a < best) {
			best = b - a;
			ca = a;
			cb = b;
			*hs = hv;
			got = 1;
		}
	}
	if (!got)
		return -1;
	*mid = ca + (cb - ca) / 2;
	*width_ns = (int64_t)((unsigned __int128)(cb - ca) * LC__NS /
	                      tk->counter->freq);
	return 0;
}

/* The host following's starting point: what it learns from the sample
 * that set REALTIME at creation (MONOTONIC is already set). */
static void prime_follow(struct lc_timekeeper *tk,
                         const struct lc_host_sample *hs)
{
	struct lc__hf_input in;
	int32_t tai;

	host_input(&in, hs);
	in.mono_ns = tk->s.mono;
	if (table_tai(tk, lc__fdiv(hs->realtime_ns, LC__NS), 0, &tai) < 0)
		tai = 0;
	in.tai_utc = tai;
	lc__hf_prime(&tk->hf, &in, tk->cfg.host_smear == NULL);
	/* lc_tk_new's offs_tai, as sync_table_tai() leaves it */
	tk->hf_offs_tai = hs->realtime_ns - tk->s.mono + (int64_t)tai * LC__NS;
	tk->hf_offs_tai_valid = 1;
}

static int64_t host_realtime(struct lc_timekeeper *tk)
{
	struct lc_host_sample hs;
	struct timespec ts;

	if (tk->cfg.follow_host && host_sample(tk, &hs) == 0) {
		prime_follow(tk, &hs);
		return hs.realtime_ns;
	}
	if (tk->cfg.host_realtime != NULL)
		return tk->cfg.host_realtime(tk->cfg.host_arg);
	if (tk->cfg.host_sample != NULL && host_sample(tk, &hs) == 0)
		return hs.realtime_ns;
	clock_gettime(CLOCK_REALTIME, &ts);
	return lc__ts_to_ns(&ts);
}

static void follow_host(struct lc_timekeeper *tk, int64_t mono_now);

/* Brings the writer state to the counter's now: accumulate, process the
 * crossed second boundaries. Returns MONOTONIC now. */
static int64_t advance(struct lc_timekeeper *tk)
{
	uint64_t cycles = lc__counter_read(tk->counter);
	int64_t mono;

	accumulate(tk, cycles);
	mono = tk->s.mono;
	/* The base is exact at cycle_last (frac is below 1 ns). */
	catch_up(tk, mono);
	/* Before anything (a step) moves offs_real under the plans. */
	if (tk->cfg.smear != NULL)
		fold_plans(tk, mono);
	return mono;
}

/* The table's TAI-UTC at REALTIME `rt` (exact state), if table-driven. */
static void sync_table_tai(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t sec = lc__fdiv(mono_now + s->offs_real, LC__NS);
	int in_repeat = s->leap_folded && s->leap_dir > 0 &&
	                mono_now < s->leap_mono + LC__NS;
	int32_t tai;

	if (!(table_mode(tk) || tk->cfg.follow_host))
		return;
	if (table_tai(tk, sec, in_repeat, &tai) < 0)
		return;
	if (tai != tk->ntp.tai_offset) {
		tk->ntp.tai_offset = tai;
		s->offs_tai = s->offs_real + (int64_t)tai * LC__NS;
		s->cws_seq++;
	}
}

/* The end of every writer operation: the new rate, the pending leap, and
 * publication. The base is first moved once more, with the rate readers
 * are still using, to the counter's value just before publishing: the new
 * mult then takes effect from (almost) the instant readers switch to it,
 * not from the start of the operation, so a reader that extrapolated the
 * old rate a little past the operation's start cannot be overtaken
 * backwards by one using the new rate (the window left is the
 * publication itself, a few ns, times the relative rate change). */
static void finish(struct lc_timekeeper *tk)
{
	accumulate(tk, lc__counter_read(tk->counter));
	catch_up(tk, tk->s.mono);
	set_rate(tk);
	rearm(tk, tk->s.mono);
	publish(tk);
}

int lc_update(lc_timekeeper *tk)
{
	if (tk == NULL)
		return LC_EINVAL;
	int64_t mono;

	if (tk->reader) {
		/* A page reader: the page's writer updates; the timeline
		 * module checks the page (and may resume in-process). */
		if (tk->reader_update != NULL)
			tk->reader_update(tk, tk->reader_arg);
		if (tk->reader)
			return 0;
	}
	pthread_mutex_lock(&tk->lock);
	mono = advance(tk);
	sync_table_tai(tk, mono);
	if (tk->cfg.follow_host)
		follow_host(tk, mono);
	finish(tk);
	tk->last_update_mono = mono;
	pthread_mutex_unlock(&tk->lock);
	return 0;
}

/* ---- creation --------------------------------------------------------------- */

static void plan_prev_table_leap(struct lc_timekeeper *tk, int64_t rt);

void lc_tk_config_init(struct lc_tk_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->leap_source = LC_LEAP_FROM_ADJTIMEX;
	cfg->initial_tai_offset = -1;
#ifdef LC_DEFAULT_REALTIME_SMEARED
	cfg->realtime_smeared = 1;
#endif
}

int lc_tk_new(lc_timekeeper **out, lc_counter *counter,
              const struct lc_tk_config *cfg)
{
	struct lc_tk_config def;
	struct lc_timekeeper *tk;
	struct lc__tk_snap *s;
	unsigned maxbits;
	uint64_t c0;
	int64_t rt0 = 0;
	struct lc_host_sample hs0;
	int have_hs0 = 0;
	int32_t tai = 0;

	if (out == NULL || counter == NULL)
		return LC_EINVAL;
	if (cfg == NULL) {
		lc_tk_config_init(&def);
		cfg = &def;
	}
	if (cfg->leap_source != LC_LEAP_FROM_ADJTIMEX &&
	    cfg->leap_source != LC_LEAP_FROM_TABLE)
		return LC_EINVAL;
	if (cfg->initial_tai_offset < -1 || cfg->initial_tai_offset > 100000)
		return LC_EINVAL;
	if (cfg->smear != NULL && lc_smear_validate(cfg->smear, NULL) < 0)
		return LC_EINVAL;
	tk = aligned_alloc(64, (sizeof(*tk) + 63) / 64 * 64);
	if (tk == NULL)
		return LC_ENOMEM;
	memset(tk, 0, sizeof(*tk));
	tk->cfg = *cfg;
	if (cfg->smear == NULL)
		tk->cfg.realtime_smeared = 0;
	if (tk->cfg.host_step_ns <= 0)
		tk->cfg.host_step_ns = 1000000;
	tk->counter = counter;
	tk->wlatch = &tk->own;
	atomic_init(&tk->pub.latch, &tk->own);
	tk->pub.counter = counter;
	tk->pub.counter_kind = counter->kind;
	if (cfg->table != NULL) {
		tk->table = cfg->table;
	} else {
		tk->own_table = lc_leaptable_new();
		if (tk->own_table == NULL) {
			free(tk);
			return LC_ENOMEM;
		}
		tk->table = tk->own_table;
	}
	pthread_mutex_init(&tk->lock, NULL);
	choose_shift(counter->freq, &tk->shift, &maxbits);

	s = &tk->s;
	c0 = lc__counter_read(counter);
	if (counter->kind != LC_COUNTER_SIM) {
		/* The host's REALTIME at c0, from a bracketed sample, after
		 * one that sets the sampler up (its first call may open a
		 * timerfd: tens of us). */
		int64_t width;

		(void)host_sample(tk, &hs0);
		if (sample_bracketed(tk, &hs0, &c0, &width) == 0)
			have_hs0 = 1;
		else
			c0 = lc__counter_read(counter);
	}
	s->cycle_last = c0;
	s->shift_max = tk->shift | (uint64_t)maxbits << 8;
	/* MONOTONIC and MONOTONIC_RAW start at the counter's own value at
	 * the nominal rate (the host's uptime for system and tsc; 0 for a
	 * sim counter at true time 0). */
	s->mono = (int64_t)((unsigned __int128)c0 * (uint64_t)LC__NS /
	                    counter->freq);
	s->raw_mono = s->mono;
	if (counter->kind == LC_COUNTER_SIM && !cfg->follow_host) {
		rt0 = cfg->initial_realtime_ns + s->mono;
	} else if (have_hs0) {
		rt0 = hs0.realtime_ns;
		if (tk->cfg.follow_host)
			prime_follow(tk, &hs0);
	} else {
		rt0 = host_realtime(tk);
	}
	s->offs_real = rt0 - s->mono;
	s->offs_sls = s->offs_real;
	s->offs_boot = 0;
	s->flags = (tk->cfg.smear ? LC__TKF_SMEAR : 0) |
	           (tk->cfg.realtime_smeared ? LC__TKF_RT_SMEARED : 0);
	lc__smear_plan_none(&s->plan);
	lc__smear_plan_none(&s->plan_next);
	tk->plan_leap_mono = INT64_MAX;
	tk->next_leap_mono = INT64_MAX;

	lc__ntp_init(&tk->ntp);
	if (cfg->initial_tai_offset >= 0)
		tai = cfg->initial_tai_offset;
	else if (table_tai(tk, lc__fdiv(rt0, LC__NS), 0, &tai) < 0)
		tai = 0;
	tk->ntp.tai_offset = tai;
	s->offs_tai = s->offs_real + (int64_t)tai * LC__NS;
	tk->next_sec = lc__fdiv(rt0, LC__NS) + 1;

	tk->raw_mq = rate_to_mq(tk, RATE_NOMINAL);
	set_rate(tk);
	if (tk->cfg.follow_host)
		tk->host.state = LC_HOST_AGREES;
	plan_prev_table_leap(tk, rt0);
	rearm(tk, s->mono);
	tk->last_update_mono = s->mono;
	publish(tk);
	*out = tk;
	return 0;
}

void lc_tk_free(lc_timekeeper *tk)
{
	if (tk == NULL)
		return;
	pthread_mutex_destroy(&tk->lock);
	lc_leaptable_free(tk->own_table);
	free(tk);
}

/* ---- timeline support ----------------------------------------------------- */

void lc__tk_publish_to(lc_timekeeper *tk, struct lc__tk_latch *l)
{
	pthread_mutex_lock(&tk->lock);
	tk->wlatch = l;
	publish(tk);
	atomic_store_explicit(&tk->pub.latch, l, memory_order_release);
	pthread_mutex_unlock(&tk->lock);
}

void lc__tk_read_from(lc_timekeeper *tk, const struct lc__tk_latch *l,
                      void (*update)(lc_timekeeper *tk, void *arg),
                      void *arg)
{
	pthread_mutex_lock(&tk->lock);
	tk->reader = 1;
	tk->reader_update = update;
	tk->reader_arg = arg;
	atomic_store_explicit(&tk->pub.latch, l, memory_order_release);
	pthread_mutex_unlock(&tk->lock);
}

void lc__tk_lock(lc_timekeeper *tk)
{
	pthread_mutex_lock(&tk->lock);
}

void lc__tk_unlock(lc_timekeeper *tk)
{
	pthread_mutex_unlock(&tk->lock);
}

void lc__tk_set_table(lc_timekeeper *tk, const lc_leaptable *t)
{
	pthread_mutex_lock(&tk->lock);
	tk->table = t;
	pthread_mutex_unlock(&tk->lock);
}

int lc__tk_is_reader(const lc_timekeeper *tk)
{
	return tk->reader;
}

void lc__tk_latch_snap(const lc_timekeeper *tk, const struct lc__tk_latch *l,
                       struct lc__tk_snap *s, int64_t *mono)
{
	struct lc__tk_pub view;

	/* The same read as lc__tk_read_snap, of another latch with tk's
	 * counter (pub is the first member, so a view is a timekeeper to
	 * the inline readers). */
	view.counter = tk->pub.counter;
	view.counter_kind = tk->pub.counter_kind;
	atomic_init(&view.latch, l);
	lc__tk_read_snap((const lc_timekeeper *)(const void *)&view, s, mono);
}

/* Plans the smear of the table leap just behind REALTIME `rt` if its
 * window may still run (the nominal plan, as after a step: see
 * smear_after_step()), so that a writer that starts or resumes inside a
 * window that runs on past the leap (chrony's, fbclock's) smears exactly
 * as one that ran through it. */
static void plan_prev_table_leap(struct lc_timekeeper *tk, int64_t rt)
{
	struct lc_leap l;

	if (tk->cfg.smear == NULL || !table_mode(tk))
		return;
	if (lc_leaptable_prev(tk->table, lc__fdiv(rt, LC__NS), &l) < 0 ||
	    l.dir == 0 || rt - l.when * LC__NS > 30 * 86400 * LC__NS)
		return;
	tk->step_pending = 1;
	tk->step_leap_applied = 1;
	tk->step_leap_sec = l.dir > 0 ? l.when : l.when - 1;
	tk->step_leap_dir = l.dir;
}

int lc__tk_resume(lc_timekeeper *tk, const struct lc__tk_latch *from,
                  struct lc__tk_latch *to)
{
	struct lc__tk_snap ps, *s = &tk->s;
	int64_t pm, mono0, rt0, nominal, ppb;
	uint64_t c0;

	lc__tk_latch_snap(tk, from, &ps, &pm);
	if (ps.leap_dir != 0 && ps.leap_mono != INT64_MAX &&
	    pm >= ps.leap_mono - LC__NS && pm < ps.leap_mono + 2 * LC__NS)
		return LC_EBUSY;
	pthread_mutex_lock(&tk->lock);
	c0 = lc__counter_read(tk->counter);
	mono0 = ps.mono + (int64_t)lc__cyc2ns(c0, ps.cycle_last, ps.mult,
	                                      ps.frac, ps.shift_max);
	rt0 = lc__tk_realtime_at(&ps, mono0);
	s->cycle_last = c0;
	s->mono = mono0;
	s->frac = 0;
	s->raw_mono = ps.raw_mono +
	              (int64_t)lc__cyc2ns(c0, ps.cycle_last, ps.raw_mult,
	                                  ps.raw_frac, ps.shift_max);
	s->raw_frac = 0;
	s->offs_real = rt0 - mono0;
	s->offs_tai = ps.offs_tai;
	s->offs_sls = s->offs_real;
	s->offs_boot = ps.offs_boot;
	s->cws_seq = ps.cws_seq;
	lc__smear_plan_none(&s->plan);
	lc__smear_plan_none(&s->plan_next);
	tk->plan_leap_mono = INT64_MAX;
	tk->next_leap_mono = INT64_MAX;
	tk->step_pending = 0;
	lc__ntp_init(&tk->ntp);
	tk->ntp.tai_offset = (int32_t)lc__fdiv(ps.offs_tai - s->offs_real +
	                                       LC__NS / 2, LC__NS);
	tk->next_sec = lc__fdiv(rt0, LC__NS) + 1;
	tk->err = 0;
	tk->raw_err = 0;
	/* Run on at the page's rate: the steering it had is the counter's
	 * error against the host (and the host following corrects it from
	 * here on). */
	nominal = (int64_t)(rate_to_mq(tk, RATE_NOMINAL) >> 32);
	ppb = nominal > 0 ? (int64_t)(((__int128)ps.mult - nominal) * LC__NS /
	                              nominal)
	                  : 0;
	if (ppb > FOLLOW_MAX_I_PPB)
		ppb = FOLLOW_MAX_I_PPB;
	if (ppb < -FOLLOW_MAX_I_PPB)
		ppb = -FOLLOW_MAX_I_PPB;
	tk->steer_ppb = tk->steer_i_ppb = ppb;
	set_rate(tk);
	plan_prev_table_leap(tk, rt0);
	rearm(tk, mono0);
	tk->last_update_mono = mono0;
	tk->wlatch = to != NULL ? to : &tk->own;
	tk->reader = 0;
	publish(tk);
	atomic_store_explicit(&tk->pub.latch, tk->wlatch, memory_order_release);
	pthread_mutex_unlock(&tk->lock);
	return 0;
}

lc_counter *lc_tk_counter(const lc_timekeeper *tk)
{
	if (tk == NULL)
		return NULL;
	return tk->counter;
}

const lc_leaptable *lc_tk_table(const lc_timekeeper *tk)
{
	if (tk == NULL)
		return NULL;
	return tk->table;
}

int lc_tk_leap_source(const lc_timekeeper *tk)
{
	if (tk == NULL)
		return LC_EINVAL;
	return tk->cfg.leap_source;
}

/* ---- readers -------------------------------------------------------------------- */

/* The smeared timeline at `mono` (UTC_SLS), as ns. */
static int64_t sls_at(const struct lc__tk_snap *s, int64_t mono)
{
	if (!plan_active(&s->plan))
		return lc__tk_realtime_at(s, mono);
	return mono + s->offs_sls - lc__smear_plan_offset(&s->plan, mono) -
	       lc__smear_plan_offset(&s->plan_next, mono);
}

/* The first MONOTONIC instant at which UTC_SLS (ns) reads >= d. With
 * f(m) = m + offs_sls - plan(m) - plan_next(m): plan_next is 0 before its
 * start S2 (>= plan.end_mono), so f is plan's alone there; from S2 on plan
 * is constant (to_ns) and f(m) = m + (offs_sls - plan.to_ns) -
 * plan_next(m). Both are non-decreasing. So the answer is plan's own
 * inverse if that is before S2, else the first instant >= S2 of
 * plan_next's inverse on its base. */
static int64_t sls_inverse(const struct lc__tk_snap *s, int64_t d)
{
	int64_t m = lc__smear_plan_mono_at(&s->plan, s->offs_sls, d);

	if (!plan_active(&s->plan_next) || m < s->plan_next.start_mono)
		return m;
	m = lc__smear_plan_mono_at(&s->plan_next,
	                           s->offs_sls - s->plan.to_ns, d);
	return m > s->plan_next.start_mono ? m : s->plan_next.start_mono;
}

int64_t lc__tk_slow_rt(const lc_timekeeper *tk, int64_t *mono_out)
{
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	if (mono_out != NULL)
		*mono_out = mono;
	if ((s.flags & LC__TKF_RT_SMEARED) && plan_active(&s.plan))
		return sls_at(&s, mono);
	return lc__tk_realtime_at(&s, mono);
}

int lc__tk_sls_is_utc(const lc_timekeeper *tk)
{
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	return !plan_active(&s.plan);
}

/* UTC as a timespec from a snapshot: 23:59:60 during an inserted second. */
static struct timespec utc_at(const struct lc__tk_snap *s, int64_t mono)
{
	struct timespec ts;

	if (s->leap_dir > 0 && mono >= s->leap_mono &&
	    mono - s->leap_mono < LC__NS) {
		ts.tv_sec = (time_t)(s->leap_sec - 1);
		ts.tv_nsec = (long)(LC__NS + (mono - s->leap_mono));
		return ts;
	}
	return lc__ns_to_ts(lc__tk_realtime_at(s, mono));
}

static struct timespec utc_sls_at(const struct lc__tk_snap *s, int64_t mono)
{
	if (plan_active(&s->plan))
		return lc__ns_to_ts(sls_at(s, mono));
	return utc_at(s, mono);
}

int lc__tk_clock_at(const struct lc__tk_snap *s, lc_clock_id id, int64_t mono,
                    struct timespec *ts)
{
	switch (id) {
	case LC_CLOCK_MONOTONIC:
		*ts = lc__ns_to_ts(mono);
		return 0;
	case LC_CLOCK_BOOTTIME:
		*ts = lc__ns_to_ts(mono + s->offs_boot);
		return 0;
	case LC_CLOCK_TAI:
		*ts = lc__ns_to_ts(mono + s->offs_tai);
		return 0;
	case LC_CLOCK_REALTIME:
		if ((s->flags & LC__TKF_RT_SMEARED) && plan_active(&s->plan))
			*ts = lc__ns_to_ts(sls_at(s, mono));
		else
			*ts = lc__ns_to_ts(lc__tk_realtime_at(s, mono));
		return 0;
	case LC_CLOCK_UTC:
		*ts = utc_at(s, mono);
		return 0;
	case LC_CLOCK_UTC_SLS:
		*ts = utc_sls_at(s, mono);
		return 0;
	default:
		return LC_EINVAL;
	}
}

static int64_t read_raw(const lc_timekeeper *tk)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_copy *c;
	uint64_t seq;
	int64_t v;

	do {
		seq = lc__tk_read_begin(p, &c);
		v = (int64_t)lc__tkw(c, LC__TKW(raw_mono)) +
		    (int64_t)lc__cyc2ns(lc__tk_counter_read(p),
		                        lc__tkw(c, LC__TKW(cycle_last)),
		                        lc__tkw(c, LC__TKW(raw_mult)),
		                        lc__tkw(c, LC__TKW(raw_frac)),
		                        lc__tkw(c, LC__TKW(shift_max)));
	} while (lc__tk_read_retry(p, seq));
	return v;
}

/* MONOTONIC + the word at `off_word` of the snapshot (offs_tai, offs_boot). */
static int64_t read_mono_plus(const lc_timekeeper *tk, size_t off_word)
{
	return lc__tk_read_mono_plus(tk, off_word, 1);
}

static void read_slow_ts(const lc_timekeeper *tk, lc_clock_id id,
                         struct timespec *ts)
{
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	lc__tk_clock_at(&s, id, mono, ts);
}

int lc_gettime(const lc_timekeeper *tk, lc_clock_id id, struct timespec *ts)
{
	if (tk == NULL)
		return LC_EINVAL;
	int64_t v;

	switch (id) {
	case LC_CLOCK_REALTIME:
		lc__tk_gettime_rt(tk, ts, 1);
		return 0;
	case LC_CLOCK_TAI:
		lc__tk_ns_to_ts(read_mono_plus(tk, LC__TKW(offs_tai)), ts);
		return 0;
	case LC_CLOCK_MONOTONIC:
		lc__tk_ns_to_ts(lc__tk_read_mono(tk), ts);
		return 0;
	case LC_CLOCK_UTC:
		if (lc__tk_gettime_utc_fast(tk, ts))
			return 0;
		read_slow_ts(tk, id, ts);
		return 0;
	case LC_CLOCK_MONOTONIC_RAW:
		v = read_raw(tk);
		lc__tk_ns_to_ts(v, ts);
		return 0;
	case LC_CLOCK_BOOTTIME:
		lc__tk_ns_to_ts(read_mono_plus(tk, LC__TKW(offs_boot)), ts);
		return 0;
	case LC_CLOCK_UTC_SLS:
		/* Without a smear policy UTC_SLS is UTC. The flags never
		 * change after lc_tk_new(), so either copy tells. */
		if (!(lc__tkw(&lc__tk_latch_of(tk)->copy[0], LC__TKW(flags)) &
		      LC__TKF_SMEAR)) {
			if (lc__tk_gettime_utc_fast(tk, ts))
				return 0;
		} else if (lc__tk_gettime_sls_fast(tk, ts)) {
			return 0;
		}
		read_slow_ts(tk, id, ts);
		return 0;
	default:
		return LC_EINVAL;
	}
}

int64_t lc_now_ns(const lc_timekeeper *tk, lc_clock_id id)
{
	if (tk == NULL)
		return 0;
	struct timespec ts;

	switch (id) {
	case LC_CLOCK_REALTIME:
		return lc__tk_read_rt(tk, 1);
	case LC_CLOCK_TAI:
		return read_mono_plus(tk, LC__TKW(offs_tai));
	case LC_CLOCK_MONOTONIC:
		return lc__tk_read_mono(tk);
	case LC_CLOCK_MONOTONIC_RAW:
		return read_raw(tk);
	case LC_CLOCK_BOOTTIME:
		return read_mono_plus(tk, LC__TKW(offs_boot));
	default:
		if (lc_gettime(tk, id, &ts) < 0)
			return INT64_MIN;
		return lc__ts_to_ns(&ts);
	}
}

int lc_gettime_utc_tm(const lc_timekeeper *tk, struct lc_tm *tm)
{
	if (tk == NULL)
		return LC_EINVAL;
	struct timespec ts;

	lc_gettime(tk, LC_CLOCK_UTC, &ts);
	return lc_utc_to_tm(&ts, tm);
}

uint64_t lc_clock_was_set_seq(const lc_timekeeper *tk)
{
	if (tk == NULL)
		return 0;
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	/* A leap readers already apply counts from its exact instant. */
	return s.cws_seq +
	       (s.leap_dir != 0 && !s.leap_folded && mono >= s.leap_mono);
}

int lc_tk_next_leap(const lc_timekeeper *tk, int64_t *when, int *dir)
{
	if (tk == NULL)
		return LC_EINVAL;
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	if (s.leap_dir == 0 || s.leap_folded || mono >= s.leap_mono)
		return LC_ENOENT;
	if (when != NULL)
		*when = s.leap_dir > 0 ? s.leap_sec : s.leap_sec + 1;
	if (dir != NULL)
		*dir = (int)s.leap_dir;
	return 0;
}

/* ---- inverses (timers) ---------------------------------------------------- */

static int64_t ceil_div128(__int128 a, __int128 b)
{
	__int128 q = a / b;

	if ((a % b != 0) && ((a < 0) == (b < 0)))
		q++;
	if (q > INT64_MAX)
		return INT64_MAX;
	if (q < INT64_MIN)
		return INT64_MIN;
	return (int64_t)q;
}

/* The counter delta k (from cycle_last, may be negative) at which
 * base + ((k * mult + frac) >> shift) first reaches `target`. */
static int64_t delta_at(int64_t base, uint64_t mult, uint64_t frac,
                        unsigned shift, int64_t target)
{
	__int128 need = ((__int128)target - base) * ((__int128)1 << shift) -
	                (__int128)frac;

	return ceil_div128(need, (__int128)mult);
}

static int64_t mono_at_delta(const struct lc__tk_snap *s, int64_t k)
{
	unsigned shift = (unsigned)(s->shift_max & 0xff);
	__int128 v = (__int128)k * (__int128)s->mult + (__int128)s->frac;

	/* floor division by 2^shift, for negative k too */
	return s->mono + (int64_t)(v >> shift);
}

/* First MONOTONIC instant at which REALTIME (exact leap) reads >= d:
 * REALTIME is mono + before until leap_mono, mono + after from then on.
 * An insertion makes the readings of [leap_sec - 1 s, leap_sec) happen
 * twice: first in [leap_mono - 1 s, leap_mono), again in [leap_mono,
 * leap_mono + 1 s) (after = before - 1 s). Asked at `now` >= leap_mono
 * (in the repeated second or later), the first occurrence is past and
 * REALTIME now reads below d if d is still ahead in the repeat: the
 * answer from now on is the repeated occurrence, d - after (Linux's
 * hrtimer, armed during the leap second, expires there too). If that is
 * before now as well, it is the last instant the clock reached d (a past
 * deadline: a timer fires at once), as for any past deadline. */
static int64_t rt_inverse(const struct lc__tk_snap *s, int64_t d, int64_t now)
{
	int64_t before = s->offs_real, after = s->offs_real, m;

	if (s->leap_dir != 0) {
		if (s->leap_folded)
			before = s->offs_real + s->leap_dir * LC__NS;
		else
			after = s->offs_real - s->leap_dir * LC__NS;
	}
	m = lc__sat_add(d, -before);
	if (m < s->leap_mono &&
	    !(s->leap_dir > 0 && now >= s->leap_mono &&
	      m >= s->leap_mono - LC__NS))
		return m;
	m = lc__sat_add(d, -after);
	return m > s->leap_mono ? m : s->leap_mono;
}

static int64_t utc_inverse(const struct lc__tk_snap *s,
                           const struct timespec *d)
{
	int64_t sec = (int64_t)d->tv_sec, nsec = (int64_t)d->tv_nsec;

	if (nsec >= LC__NS) {
		/* 23:59:60.x: exists only in the inserted second at hand;
		 * elsewhere the first reading at or past it is the next
		 * second's 00.000. */
		if (s->leap_dir > 0 && sec == s->leap_sec - 1)
			return s->leap_mono + (nsec - LC__NS);
		return rt_inverse(s, (sec + 1) * LC__NS, INT64_MIN);
	}
	if (s->leap_dir > 0) {
		int64_t before = s->offs_real, after;

		if (s->leap_folded)
			before += LC__NS;
		after = before - LC__NS;
		/* Readings before 00:00:00 of the leap come before it, all
		 * later ones after the inserted second. */
		if (sec < s->leap_sec)
			return lc__sat_add(sec * LC__NS + nsec, -before);
		return lc__sat_add(sec * LC__NS + nsec, -after);
	}
	return rt_inverse(s, sec * LC__NS + nsec, INT64_MIN);
}

int lc_tk_mono_at(const lc_timekeeper *tk, lc_clock_id id,
                  const struct timespec *deadline, int64_t *mono_ns)
{
	struct lc__tk_snap s;
	int64_t mono, d, k;
	unsigned shift;

	if (deadline == NULL || mono_ns == NULL || deadline->tv_nsec < 0 ||
	    deadline->tv_nsec >= 2 * LC__NS ||
	    (deadline->tv_nsec >= LC__NS && id != LC_CLOCK_UTC &&
	     id != LC_CLOCK_UTC_SLS))
		return LC_EINVAL;
	if ((int64_t)deadline->tv_sec > INT64_MAX / LC__NS - 2 ||
	    (int64_t)deadline->tv_sec < INT64_MIN / LC__NS + 2)
		return LC_ERANGE;
	lc__tk_read_snap(tk, &s, &mono);
	d = lc__ts_to_ns(deadline);
	shift = (unsigned)(s.shift_max & 0xff);
	switch (id) {
	case LC_CLOCK_MONOTONIC:
		*mono_ns = d;
		return 0;
	case LC_CLOCK_BOOTTIME:
		*mono_ns = lc__sat_add(d, -s.offs_boot);
		return 0;
	case LC_CLOCK_TAI:
		*mono_ns = lc__sat_add(d, -s.offs_tai);
		return 0;
	case LC_CLOCK_MONOTONIC_RAW:
		k = delta_at(s.raw_mono, s.raw_mult, s.raw_frac, shift, d);
		*mono_ns = mono_at_delta(&s, k);
		return 0;
	case LC_CLOCK_REALTIME:
		if ((s.flags & LC__TKF_RT_SMEARED) && plan_active(&s.plan))
			*mono_ns = sls_inverse(&s, d);
		else
			*mono_ns = rt_inverse(&s, d, mono);
		return 0;
	case LC_CLOCK_UTC_SLS:
		if (plan_active(&s.plan)) {
			if (deadline->tv_nsec >= LC__NS)
				d = ((int64_t)deadline->tv_sec + 1) * LC__NS;
			*mono_ns = sls_inverse(&s, d);
			return 0;
		}
		/* no plan: UTC_SLS == UTC */
		*mono_ns = utc_inverse(&s, deadline);
		return 0;
	case LC_CLOCK_UTC:
		*mono_ns = utc_inverse(&s, deadline);
		return 0;
	default:
		return LC_EINVAL;
	}
}

int lc_tk_cycles_at(const lc_timekeeper *tk, int64_t mono_ns, uint64_t *cycles)
{
	struct lc__tk_snap s;
	int64_t mono, k;

	if (cycles == NULL)
		return LC_EINVAL;
	lc__tk_read_snap(tk, &s, &mono);
	k = delta_at(s.mono, s.mult, s.frac, (unsigned)(s.shift_max & 0xff),
	             mono_ns);
	if (k < 0 && (uint64_t)-k > s.cycle_last)
		*cycles = 0;
	else if (k > 0 && (uint64_t)k > UINT64_MAX - s.cycle_last)
		*cycles = UINT64_MAX;
	else
		*cycles = s.cycle_last + (uint64_t)k;
	return 0;
}

/* ---- setting the time --------------------------------------------------------- */

/* After any step of REALTIME (offs_real already moved): NTP cleared as
 * Linux does, the next boundary recomputed, TAI from the table where the
 * table rules it, the step counted. The smear plan is not simply dropped:
 * an unwind is relative to UTC and stays as it is (its base moves with
 * offs_real); the plan of a leap moves with that leap once rearm() has
 * re-armed it (rearm_smear() -> smear_after_step()). */
static void after_step(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;

	/* advance() folded a next plan whose time had come: one left has not
	 * started; the re-armed leap gets a new one (rearm_smear()). */
	drop_next(tk);
	if (plan_active(&s->plan) && (s->plan.flags & LC__SMEAR_UNWIND)) {
		s->offs_sls = s->offs_real;
	} else if (plan_active(&s->plan) && tk->plan_leap_mono != INT64_MAX) {
		tk->step_pending = 1;
		tk->step_leap_sec = tk->plan_leap_sec;
		tk->step_leap_dir = s->plan.to_ns > 0 ? 1 : -1;
		tk->step_leap_applied = mono_now >= tk->plan_leap_mono;
	} else {
		lc__smear_plan_none(&s->plan);
		tk->plan_leap_mono = INT64_MAX;
		s->offs_sls = s->offs_real;
	}
	lc__ntp_clear(&tk->ntp);
	if (table_mode(tk) && tk->ntp.time_state != LC_TIME_OK) {
		/* Linux keeps an armed state that then never fires (ref
		 * 2.6); with the table in charge, start over from TIME_OK so
		 * that the table re-arms at the next boundary. So too from
		 * TIME_OOP/TIME_WAIT: a step back out of 23:59:60 (or to
		 * before a leap just applied) must meet that leap again, and
		 * TIME_WAIT, which STA_INS from the table holds, would never
		 * insert it. (lc_settime into 23:59:60 sets TIME_OOP after
		 * this.) */
		tk->ntp.time_state = LC_TIME_OK;
		tk->ntp.next_leap_sec = INT64_MAX;
	}
	tk->next_sec = lc__fdiv(mono_now + s->offs_real, LC__NS) + 1;
	if (!tk->step_pending)
		s->offs_sls = s->offs_real;
	s->leap_folded = 0;
	s->leap_dir = 0;
	s->leap_mono = INT64_MAX;
	s->cws_seq++;
}

/* Steps offs_real to `new_rt` at mono_now; TAI moves with REALTIME. */
static void step_to(struct lc_timekeeper *tk, int64_t mono_now, int64_t new_rt)
{
	struct lc__tk_snap *s = &tk->s;

	s->offs_real = new_rt - mono_now;
	after_step(tk, mono_now);
	sync_table_tai(tk, mono_now);
	s->offs_tai = s->offs_real + (int64_t)tk->ntp.tai_offset * LC__NS;
}

int lc_settime(lc_timekeeper *tk, lc_clock_id id, const struct timespec *ts)
{
	if (tk == NULL)
		return LC_EINVAL;
	struct lc__tk_snap *s = &tk->s;
	int64_t mono, v, nsec;
	int32_t tai;
	int in_leap = 0, rc = 0;

	if (tk->reader)
		return LC_EPERM; /* only the page's writer sets its time */
	if (ts == NULL || ts->tv_nsec < 0)
		return LC_EINVAL;
	nsec = (int64_t)ts->tv_nsec;
	if (nsec >= LC__NS && !(id == LC_CLOCK_UTC && nsec < 2 * LC__NS))
		return LC_EINVAL;
	if ((int64_t)ts->tv_sec > INT64_MAX / LC__NS - 2 ||
	    (int64_t)ts->tv_sec < 0)
		return LC_EINVAL;
	if (id != LC_CLOCK_REALTIME && id != LC_CLOCK_UTC &&
	    id != LC_CLOCK_TAI)
		return LC_EINVAL;
	if (nsec >= LC__NS &&
	    lc_leaptable_leap_at(tk->table, (int64_t)ts->tv_sec) <= 0)
		return LC_ENOTLEAP;

	pthread_mutex_lock(&tk->lock);
	mono = advance(tk);
	v = (int64_t)ts->tv_sec * LC__NS + nsec;
	if (id == LC_CLOCK_TAI) {
		if (table_mode(tk) || tk->cfg.follow_host) {
			if (lc_leaptable_tai_utc_at_tai(tk->table,
			                                lc__fdiv(v, LC__NS),
			                                &tai, &in_leap) < 0) {
				rc = LC_EINVAL;
				goto out;
			}
		} else {
			tai = tk->ntp.tai_offset;
		}
		if (in_leap)
			nsec = lc__fmod(v, LC__NS) + LC__NS;
		v -= (int64_t)tai * LC__NS;
	} else if (nsec >= LC__NS) {
		in_leap = 1;
		nsec -= LC__NS;
		v -= LC__NS;
	}
	if (v - mono < 0) { /* REALTIME may not be set below MONOTONIC */
		rc = LC_EINVAL;
		goto out;
	}
	step_to(tk, mono, v);
	if (in_leap) {
		/* Set inside an inserted second: it began `nsec` ago. The
		 * state is as if the leap had just been applied there: the
		 * repeated 23:59:59 on REALTIME, TIME_OOP until its end. */
		int64_t w = lc__fdiv(v, LC__NS) + 1;

		s->leap_mono = mono - lc__fmod(nsec, LC__NS);
		s->leap_dir = 1;
		s->leap_sec = w;
		s->leap_folded = 1;
		tk->ntp.time_state = LC_TIME_OOP;
		tk->ntp.next_leap_sec = w;
		tk->next_sec = w;
		if (lc_leaptable_tai_utc(tk->table, w - 1, &tai) == 0) {
			tk->ntp.tai_offset = tai;
			s->offs_tai = s->offs_real + (int64_t)tai * LC__NS;
		}
	}
out:
	/* (on an error too: the catch-up is published, no reading changes) */
	finish(tk);
	pthread_mutex_unlock(&tk->lock);
	return rc;
}

/* ---- adjtimex ------------------------------------------------------------------ */

static int do_adjtimex(lc_timekeeper *tk, struct lc_timex *tx, int privileged)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t mono, rt, sec, nsec;
	int tai_changed = 0, rc;
	int32_t tai_before;

	if (tx == NULL)
		return LC_EFAULT;
	if (tk->reader && tx->modes != 0)
		return LC_EPERM; /* only the page's writer adjusts it */
	if (tk->reader) {
		/* the page's writer runs the state machine: its snapshot */
		memset(tx, 0, sizeof(*tx));
		return lc__tk_snapshot_timex(tk, tx);
	}
	rc = lc__ntp_validate(tx, privileged);
	if (rc < 0)
		return rc;

	pthread_mutex_lock(&tk->lock);
	/* The catch-up first, so that the state the call sees and returns
	 * is the exact one at this instant. */
	mono = advance(tk);
	if (tx->modes & LC_ADJ_SETOFFSET) {
		int64_t unit = (tx->modes & LC_ADJ_NANO) ? 1 : 1000, delta;

		if (__builtin_mul_overflow(tx->time.tv_sec, LC__NS, &delta) ||
		    __builtin_add_overflow(delta, tx->time.tv_usec * unit,
		                           &delta) ||
		    s->offs_real + delta < 0) {
			/* Linux: EINVAL if REALTIME would be invalid or
			 * below MONOTONIC; nothing changes (the catch-up
			 * is published: it changes no reading). */
			finish(tk);
			pthread_mutex_unlock(&tk->lock);
			return LC_EINVAL;
		}
		s->offs_real += delta;
		after_step(tk, mono);
		sync_table_tai(tk, mono);
		s->offs_tai = s->offs_real + (int64_t)tk->ntp.tai_offset * LC__NS;
	}
	/* REALTIME sampled once the offset is applied (Linux samples it
	 * after timekeeping_inject_offset()). */
	rt = lc__tk_realtime_at(s, mono);
	sec = lc__fdiv(rt, LC__NS);
	nsec = lc__fmod(rt, LC__NS);
	tai_before = tk->ntp.tai_offset;
	rc = lc__ntp_adjtimex(&tk->ntp, tx, sec, &tai_changed);
	if (table_mode(tk) && tk->ntp.tai_offset != tai_before) {
		/* The table owns TAI-UTC (chrony's leapsectz): ADJ_TAI is
		 * read back but not applied. */
		tk->ntp.tai_offset = tai_before;
		tx->tai = tai_before;
		tai_changed = 0;
	}
	if (tai_changed) {
		s->offs_tai = s->offs_real + (int64_t)tk->ntp.tai_offset * LC__NS;
		s->cws_seq++;
	}
	tx->time.tv_sec = sec;
	tx->time.tv_usec = (tk->ntp.time_status & LC_STA_NANO) ? nsec
	                                                       : nsec / 1000;
	/* The read-path leap override of Linux 4.2 (ref 2.3), from the exact
	 * state: after the catch-up the state machine has already moved at
	 * the boundary, so these only fire if it has not. */
	if (rc >= 0 && sec >= tk->ntp.next_leap_sec) {
		if (tk->ntp.time_state == LC_TIME_INS &&
		    (tk->ntp.time_status & LC_STA_INS)) {
			rc = LC_TIME_OOP;
			tx->tai++;
			tx->time.tv_sec--;
		}
		if (tk->ntp.time_state == LC_TIME_DEL &&
		    (tk->ntp.time_status & LC_STA_DEL)) {
			rc = LC_TIME_WAIT;
			tx->tai--;
			tx->time.tv_sec++;
		}
		if (tk->ntp.time_state == LC_TIME_OOP &&
		    sec == tk->ntp.next_leap_sec)
			rc = LC_TIME_WAIT;
	}
	/* A new rate (frequency, tick, offset) applies from this instant. */
	finish(tk);
	pthread_mutex_unlock(&tk->lock);
	return rc;
}

/* The adjtimex answer from the published snapshot alone: the leap state
 * (LC_TIME_INS/DEL from the start of the leap's UTC day, OOP during an
 * inserted 23:59:60, WAIT for the second after), its LC_STA_INS/DEL bit,
 * TAI-UTC and the time (s). For a reader of a page, whose writer runs the
 * state machine elsewhere, and for one whose own writer must not run (the
 * preload shim started inside a leap's last seconds). It says TIME_INS for
 * the leap's whole UTC day (as Linux under an NTP daemon that set STA_INS;
 * a table-driven writer arms it at the next second boundary), and TIME_WAIT
 * after it only until the writer folds the leap (then TIME_OK, where the
 * writer says TIME_WAIT until STA_INS is cleared). */
int lc__tk_snapshot_timex(const lc_timekeeper *tk, struct lc_timex *tx)
{
	struct lc__tk_snap s;
	int64_t mono, rt, midnight;
	int st = LC_TIME_OK;

	lc__tk_read_snap(tk, &s, &mono);
	rt = lc__tk_realtime_at(&s, mono);
	tx->tai = (int)lc__fdiv(mono + s.offs_tai - rt + LC__NS / 2, LC__NS);
	tx->time.tv_sec = lc__fdiv(rt, LC__NS);
	tx->time.tv_usec = lc__fmod(rt, LC__NS) / 1000;
	tx->status = 0;
	if (s.leap_dir == 0)
		return st;
	/* the 00:00:00 after the leap */
	midnight = s.leap_dir > 0 ? s.leap_sec : s.leap_sec + 1;
	if (mono < s.leap_mono) {
		if (lc__fdiv(rt, LC__NS) >= midnight - LC_SECS_PER_DAY) {
			st = s.leap_dir > 0 ? LC_TIME_INS : LC_TIME_DEL;
			tx->status = s.leap_dir > 0 ? LC_STA_INS : LC_STA_DEL;
		}
	} else if (s.leap_dir > 0 && mono < s.leap_mono + LC__NS) {
		st = LC_TIME_OOP;
		tx->status = LC_STA_INS;
	} else if (lc__fdiv(rt, LC__NS) < midnight + 1) {
		st = LC_TIME_WAIT;
	}
	return st;
}

int lc_adjtimex(lc_timekeeper *tk, struct lc_timex *tx)
{
	if (tk == NULL)
		return LC_EINVAL;
	return do_adjtimex(tk, tx, 1);
}

int lc_adjtimex_unprivileged(lc_timekeeper *tk, struct lc_timex *tx)
{
	if (tk == NULL)
		return LC_EINVAL;
	return do_adjtimex(tk, tx, 0);
}

/* ---- following the host (DESIGN.md 7) ------------------------------------ */

/* The value the host should show at REALTIME `rt` if it follows the
 * declared smear: rt minus the smear offset (relative to the pre-leap
 * timeline) around the nearest table leap. */
static int64_t expected_host(const struct lc_timekeeper *tk, int64_t rt,
                             int64_t mono_now)
{
	const struct lc__tk_snap *s = &tk->s;
	const struct lc_smear_policy *p = tk->cfg.host_smear;
	struct lc_leap prev, next;
	int64_t sec = lc__fdiv(rt, LC__NS);
	int in_repeat = s->leap_folded && s->leap_dir > 0 &&
	                mono_now >= s->leap_mono &&
	                mono_now < s->leap_mono + LC__NS;
	int64_t pre, t_rel;

	if (p == NULL)
		return rt;
	/* Relative time to the leap instant on the pre-leap timeline; the
	 * smear offset is measured from that timeline (T), which reads one
	 * second more than REALTIME after an insertion. */
	if (lc_leaptable_next(tk->table, in_repeat ? sec - 1 : sec, &next) == 0 &&
	    (next.when - (next.dir > 0 ? 0 : 1)) * LC__NS - rt <
	            FOLLOW_LEAP_WINDOW) {
		int64_t at = (next.dir > 0 ? next.when : next.when - 1) * LC__NS;

		if (in_repeat)
			pre = rt + LC__NS;
		else
			pre = rt;
		t_rel = pre - at;
		return pre - lc_smear_offset(p, next.dir, t_rel);
	}
	if (lc_leaptable_prev(tk->table, sec, &prev) == 0 &&
	    rt - prev.when * LC__NS < FOLLOW_LEAP_WINDOW) {
		int64_t at = (prev.dir > 0 ? prev.when : prev.when - 1) * LC__NS;

		pre = rt + prev.dir * LC__NS;
		t_rel = pre - at;
		return pre - lc_smear_offset(p, prev.dir, t_rel);
	}
	return rt;
}

/* Within FOLLOW_LEAP_WINDOW of a table leap (on either side). */
static int near_table_leap(const struct lc_timekeeper *tk, int64_t rt)
{
	struct lc_leap l;
	int64_t sec = lc__fdiv(rt, LC__NS);

	if (lc_leaptable_next(tk->table, sec, &l) == 0 &&
	    l.when * LC__NS - rt <= FOLLOW_LEAP_WINDOW)
		return 1;
	if (lc_leaptable_next(tk->table, sec - 1, &l) == 0 &&
	    l.when * LC__NS - rt <= FOLLOW_LEAP_WINDOW)
		return 1;
	if (lc_leaptable_prev(tk->table, sec, &l) == 0 &&
	    rt - l.when * LC__NS <= FOLLOW_LEAP_WINDOW)
		return 1;
	return 0;
}

/* Follows a host step of `r` ns as a clock-was-set on the continuous
 * timeline: TAI moves by r and UTC comes from the table at the new TAI, so
 * that a step made inside an inserted 23:59:60 stays inside it (a
 * REALTIME step there could not tell the repeated 23:59:59 from the
 * first). As lc_settime(LC_CLOCK_TAI) does, under the lock already held. */
static void follow_step(struct lc_timekeeper *tk, int64_t mono_now, int64_t r)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t v = mono_now + s->offs_tai + r, nsec = 0;
	int32_t tai;
	int in_leap = 0;

	if (lc_leaptable_tai_utc_at_tai(tk->table, lc__fdiv(v, LC__NS), &tai,
	                                &in_leap) < 0) {
		step_to(tk, mono_now, lc__tk_realtime_at(s, mono_now) + r);
		return;
	}
	if (in_leap)
		nsec = lc__fmod(v, LC__NS) + LC__NS;
	v -= (int64_t)tai * LC__NS;
	step_to(tk, mono_now, v);
	if (in_leap) {
		/* Inside an inserted second: it began `nsec` ago; the
		 * repeated 23:59:59 on REALTIME, TIME_OOP until its end. */
		int64_t w = lc__fdiv(v, LC__NS) + 1;

		s->leap_mono = mono_now - lc__fmod(nsec, LC__NS);
		s->leap_dir = 1;
		s->leap_sec = w;
		s->leap_folded = 1;
		tk->ntp.time_state = LC_TIME_OOP;
		tk->ntp.next_leap_sec = w;
		tk->next_sec = w;
		if (lc_leaptable_tai_utc(tk->table, w - 1, &tai) == 0) {
			tk->ntp.tai_offset = tai;
			s->offs_tai = s->offs_real + (int64_t)tai * LC__NS;
		}
	}
}

static void follow_host(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	struct lc_host_sample hs;
	struct lc__hf_input in;
	struct lc__hf_output out;
	uint64_t mid;
	int64_t m, rt, width;

	if (sample_bracketed(tk, &hs, &mid, &width) < 0)
		return; /* no sample: run on as we are */
	/* A bracket wider than FOLLOW_MAX_BRACKET_NS (the thread was
	 * preempted, a VM's vCPU stolen, in every try) could put the host's
	 * reading anywhere in it: steering on it would move our clock by
	 * that noise. Run on as we are; the next update samples again. A
	 * step is still followed then, later by one update. */
	if (width > FOLLOW_MAX_BRACKET_NS &&
	    hs.clock_was_set == tk->hf_last_cws)
		return;
	tk->hf_last_cws = hs.clock_was_set;
	m = s->mono + (int64_t)lc__cyc2ns(mid, s->cycle_last, s->mult,
	                                  s->frac, s->shift_max);
	rt = lc__tk_realtime_at(s, m);

	host_input(&in, &hs);
	in.expected_ns = expected_host(tk, rt, m);
	in.mono_ns = m;
	/* TAI is continuous, so TAI - REALTIME at the sample is our TAI-UTC
	 * with the leap applied at its instant. */
	in.tai_utc = (int32_t)lc__fdiv(m + s->offs_tai - rt + LC__NS / 2, LC__NS);
	in.smeared = in.expected_ns != rt;
	in.host_smear = tk->cfg.host_smear != NULL;
	in.near_leap = near_table_leap(tk, rt);
	in.ours_set = tk->hf_offs_tai_valid && s->offs_tai != tk->hf_offs_tai;
	in.step_ns = tk->cfg.host_step_ns;

	tk->hf.i_ppb = tk->steer_i_ppb; /* lc__tk_resume may seed it */
	lc__hf_update(&tk->hf, &in, &out);
	tk->steer_i_ppb = tk->hf.i_ppb;

	if (out.action == LC__HF_STEP) {
		/* A step of the host clock (its administrator, or NTP):
		 * follow it as a clock-was-set. */
		follow_step(tk, mono_now, out.step_ns);
		lc__hf_rebase(&tk->hf, tk->ntp.tai_offset);
		tk->host.steps++;
	}
	tk->steer_ppb = out.steer_ppb;
	tk->host.state = out.state;
	tk->host.offset_ns = out.offset_ns;
	tk->host.steer_ppb = out.steer_ppb;
	tk->host.leaps_behind = out.gap;
	tk->host.kernel_rule = out.kernel_rule;
	tk->host.kernel_tai = in.has_kernel ? in.ktai : 0;
	tk->host.kernel_state = in.has_kernel ? in.kstate : 0;
	tk->host.kernel_status = in.has_kernel ? in.kstatus : 0;
	tk->hf_offs_tai = s->offs_tai;
	tk->hf_offs_tai_valid = 1;
}

int lc_tk_host_status(const lc_timekeeper *tk, struct lc_tk_host *st)
{
	if (tk == NULL)
		return LC_EINVAL;
	struct lc_timekeeper *w = (struct lc_timekeeper *)tk;

	if (st == NULL)
		return LC_EINVAL;
	if (!tk->cfg.follow_host) {
		memset(st, 0, sizeof(*st));
		return LC_ENOENT;
	}
	pthread_mutex_lock(&w->lock);
	*st = tk->host;
	pthread_mutex_unlock(&w->lock);
	return 0;
}
