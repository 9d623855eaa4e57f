/*
 * timekeeper.c - the update ("tick"), the writer's steps, publication, and
 * the lock-free read path of every clock id.
 *
 * How it fits together (the snapshot layout and the latch are described in
 * timekeeper.h; the writer's state and modules in tk_writer.h: creation in
 * tk_new.c, lc_settime/lc_adjtimex in tk_set.c, following the host in
 * tk_follow.c, the smear schedule in tk_schedule.c, UTC_SLS in tk_sls.c,
 * timers' inverses in tk_inverse.c):
 *
 *  - The writer state is a struct lc__tk_snap (`tk->s`) plus what readers do
 *    not need (NTP state, mult rounding errors, the next second boundary to
 *    process). Every writer operation takes `tk->lock`, first accumulates the
 *    elapsed cycles exactly as readers compute them (accumulate()), then
 *    processes the REALTIME second boundaries crossed since the last update
 *    (catch_up()), then changes what it changes, re-arms the pending leap
 *    (lc__tkw_rearm()) and publishes both copies of the latch
 *    (lc__tkw_publish()).
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
 *  - The exact leap: lc__tkw_rearm() puts the MONOTONIC instant of the next
 *    leap boundary into the snapshot (leap_mono, and rt_slow for the hot
 *    path); readers apply the leap themselves from that instant on. catch_up()
 *    later "folds" it: it calls lc__ntp_second_overflow() once per POSIX
 *    second boundary crossed, in order, at the MONOTONIC instant where that
 *    boundary lay on the timeline readers saw, and moves offs_real by the leap
 *    it returns; readers then see leap_folded = 1 and the same values. So what
 *    a reader sees never depends on when lc_update() runs, and the NTP state
 *    (TIME_INS -> TIME_OOP -> TIME_WAIT ...) is exact at every writer
 *    operation, which runs the catch-up first.
 *
 *  - clock_was_set: the sequence is bumped by lc_settime, ADJ_SETOFFSET, a
 *    TAI offset change (ADJ_TAI, the table) and a followed host step; for a
 *    leap it moves at the exact instant of the leap (the start of 23:59:60 or
 *    of the deleted 23:59:59): lc_clock_was_set_seq() adds the pending
 *    leap once MONOTONIC has reached leap_mono, and the fold bumps the stored
 *    value at the same time as it marks the leap folded, so the value read is
 *    continuous and one higher from the leap instant on, updated or not.
 */
#include "tk_writer.h"

#include "tk_follow.h"
#include "tk_sls.h"

#include <string.h>

/* The longest interval between updates that the 64-bit product covers.
 * Longer intervals are still right (the 128-bit path). */
#define MAX_UPDATE_SECS 600
/* mult may grow this much above nominal (tick +10%, PLL phase slew up to
 * 1/4 of 0.5 s per second, 500 ppm frequency, 500 ppm adjtime, follow
 * steer): 1.5 covers it with margin; rates are clamped to it. */
#define MULT_HEADROOM_NUM 3
#define MULT_HEADROOM_DEN 2

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
void lc__tkw_choose_shift(uint64_t freq, unsigned *shift, unsigned *maxbits)
{
	unsigned __int128 maxc = (unsigned __int128)freq * MAX_UPDATE_SECS;
	unsigned mb = (unsigned)floor_log2((uint64_t)maxc) + 1;
	int s;

	for (s = 32; s > 0; s--) {
		unsigned __int128 m =
		    ((unsigned __int128)LC__NS << s) / freq + 1;
		unsigned __int128 top =
		    (m * MULT_HEADROOM_NUM / MULT_HEADROOM_DEN) << mb;
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
__int128 lc__tkw_rate_to_mq(const struct lc_timekeeper *tk, __int128 rate)
{
	return (rate << tk->shift) / (__int128)tk->counter->freq;
}

static uint64_t mq_to_mult(__int128 mq, __int128 err)
{
	/* floor(mq) when we are ahead of the ideal, +1 when behind. */
	return (uint64_t)(mq >> 32) + (err > 0 ? 1 : 0);
}

void lc__tkw_set_rate(struct lc_timekeeper *tk)
{
	__int128 rate =
	    (__int128)lc__ntp_rate(&tk->ntp) + LC__TK_PPB_RATE(tk->steer_ppb);
	__int128 hi =
	    LC__TK_RATE_NOMINAL * MULT_HEADROOM_NUM / MULT_HEADROOM_DEN;

	/* Never slower than half the nominal rate, never beyond the
	 * headroom the shift was chosen for. */
	if (rate < LC__TK_RATE_NOMINAL / 2)
		rate = LC__TK_RATE_NOMINAL / 2;
	if (rate > hi)
		rate = hi;
	tk->mq = lc__tkw_rate_to_mq(tk, rate);
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

/* ---- the leap state ------------------------------------------------------ */

/* TAI-UTC from the table at REALTIME second `sec`; `in_repeat` says whether
 * `sec` is the repeated (inserted) second rather than the first 23:59:59. */
int lc__tkw_table_tai(const struct lc_timekeeper *tk, int64_t sec,
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
		tk->ntp.time_state =
		    bits == LC_STA_INS ? LC_TIME_INS : LC_TIME_DEL;
		tk->ntp.next_leap_sec = secs;
	}
}

/* The state chrony's leapsectz and Linux show in the second before
 * tk->next_sec when the table has been followed all along: from the start
 * of the leap's last day, STA_INS (STA_DEL) and TIME_INS (TIME_DEL) armed
 * for that leap's boundary (what the boundary at that day's start did, as
 * second_overflow() does it). A timekeeper created or set in the last
 * seconds before a table leap answers adjtimex as the host would at once,
 * and its writer applies the leap at its boundary like any other (the
 * preload shim's writer runs there too). Nothing in a state other than
 * TIME_OK, or before the leap's day. */
void lc__tkw_table_arm_now(struct lc_timekeeper *tk)
{
	int64_t sec = tk->next_sec - 1;
	struct lc_leap l;
	int *st = &tk->ntp.time_status;

	if (!lc__tkw_table_mode(tk) || tk->ntp.time_state != LC_TIME_OK ||
	    lc_leaptable_next(tk->table, sec, &l) != 0 ||
	    sec < l.when - 86400)
		return;
	*st &= ~(LC_STA_INS | LC_STA_DEL);
	if (l.dir > 0) {
		*st |= LC_STA_INS;
		tk->ntp.time_state = LC_TIME_INS;
		tk->ntp.next_leap_sec = l.when;
	} else if (sec < l.when - 1) {
		*st |= LC_STA_DEL;
		tk->ntp.time_state = LC_TIME_DEL;
		tk->ntp.next_leap_sec = l.when - 1;
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
	       n->time_maxerror >= 16000000 && (n->time_status & LC_STA_UNSYNC);
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
	if (lc__tkw_table_mode(tk) &&
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
		if (lc__tkw_table_mode(tk))
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

/* Recomputes the pending leap from the NTP state (or the table) after any
 * change, and the smear plan with it. */
void lc__tkw_rearm(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t when = INT64_MAX;
	int dir = 0;

	/* Keep an applied insertion in the snapshot while its second lasts
	 * (UTC reads 23:59:60 from it). */
	if (s->leap_folded && s->leap_dir > 0 &&
	    mono_now < s->leap_mono + LC__NS)
		goto smear;
	if (lc__tkw_table_mode(tk)) {
		struct lc_leap l;
		int64_t rt = mono_now + s->offs_real;

		if (lc_leaptable_next(tk->table, lc__fdiv(rt, LC__NS), &l) ==
		    0) {
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
	lc__tk_sched_rearm(&tk->sched, s, mono_now);
}

/* ---- publication --------------------------------------------------------- */

void lc__tkw_publish(struct lc_timekeeper *tk)
{
	/* The writer owns its latch, its own or a timeline page's. */
	struct lc__tk_latch *p = tk->wlatch;
	struct lc__tk_snap *s = &tk->s;
	uint64_t w[LC__TK_WORDS];
	uint64_t seq;

	s->rt_slow = s->leap_mono;
	if ((s->flags & LC__TKF_RT_SMEARED) &&
	    lc__smear_plan_active(&s->plan) && s->plan.start_mono < s->rt_slow)
		s->rt_slow = s->plan.start_mono;
	lc__tk_sls_fill(s);
	s->bound = lc__bnd_word(tk, s->mono);
	memcpy(w, s, sizeof(w));

	/* The latch: readers use copy[seq & 1]. Bump to odd (readers move to
	 * copy 1, which holds the previous state), rewrite copy 0, bump to
	 * even (readers move to copy 0, now new), rewrite copy 1. Each word
	 * is stored with release, so a reader that acquires any new word of
	 * the copy it is reading also sees the bump before it at its
	 * re-check and retries; the release store of the bump publishes the
	 * copy written before it. */
	seq = atomic_load_explicit(&p->seq, memory_order_relaxed);
	/* even between publications (one writer: the lock, or a page's) */
	LC__ASSERT((seq & 1) == 0);
	/* a plan's window is ordered; the next leap's starts at or after the
	 * running plan's end (timekeeper.h, plan_next) */
	LC__ASSERT(!lc__smear_plan_active(&s->plan) ||
	           s->plan.start_mono <= s->plan.end_mono);
	LC__ASSERT(!lc__smear_plan_active(&s->plan_next) ||
	           (s->plan_next.start_mono <= s->plan_next.end_mono &&
	            lc__smear_plan_active(&s->plan) &&
	            s->plan.end_mono <= s->plan_next.start_mono));
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

/* ---- the tick ------------------------------------------------------------ */

/* Brings the writer state to the counter's now: accumulate, process the
 * crossed second boundaries. Returns MONOTONIC now. */
int64_t lc__tkw_advance(struct lc_timekeeper *tk)
{
	uint64_t cycles = lc__counter_read(tk->counter);
	int64_t mono;

	accumulate(tk, cycles);
	mono = tk->s.mono;
	/* The base is exact at cycle_last (frac is below 1 ns). */
	catch_up(tk, mono);
	/* Before anything (a step) moves offs_real under the plans. */
	lc__tk_sched_fold(&tk->sched, &tk->s, mono);
	return mono;
}

/* The table's TAI-UTC at REALTIME `rt` (exact state), if table-driven. */
void lc__tkw_sync_table_tai(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t sec = lc__fdiv(mono_now + s->offs_real, LC__NS);
	int in_repeat = s->leap_folded && s->leap_dir > 0 &&
	                mono_now < s->leap_mono + LC__NS;
	int32_t tai;

	if (!(lc__tkw_table_mode(tk) || tk->cfg.follow_host))
		return;
	if (lc__tkw_table_tai(tk, sec, in_repeat, &tai) < 0)
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
void lc__tkw_finish(struct lc_timekeeper *tk)
{
	accumulate(tk, lc__counter_read(tk->counter));
	catch_up(tk, tk->s.mono);
	lc__tkw_set_rate(tk);
	lc__tkw_rearm(tk, tk->s.mono);
	lc__tkw_publish(tk);
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
	mono = lc__tkw_advance(tk);
	lc__tkw_sync_table_tai(tk, mono);
	if (tk->cfg.follow_host)
		lc__tk_follow_host(tk, mono);
	lc__tkw_finish(tk);
	tk->last_update_mono = mono;
	pthread_mutex_unlock(&tk->lock);
	return 0;
}

/* ---- readers ------------------------------------------------------------- */

int64_t lc__tk_slow_rt(const lc_timekeeper *tk, int64_t *mono_out)
{
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	if (mono_out != NULL)
		*mono_out = mono;
	if ((s.flags & LC__TKF_RT_SMEARED) && lc__smear_plan_active(&s.plan))
		return lc__tk_sls_at(&s, mono);
	return lc__tk_realtime_at(&s, mono);
}

int lc__tk_sls_is_utc(const lc_timekeeper *tk)
{
	struct lc__tk_snap s;
	int64_t mono;

	lc__tk_read_snap(tk, &s, &mono);
	return !lc__smear_plan_active(&s.plan);
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
	if (lc__smear_plan_active(&s->plan))
		return lc__ns_to_ts(lc__tk_sls_at(s, mono));
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
		if ((s->flags & LC__TKF_RT_SMEARED) &&
		    lc__smear_plan_active(&s->plan))
			*ts = lc__ns_to_ts(lc__tk_sls_at(s, mono));
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

uint64_t lc__cyc2ns_wide(uint64_t delta, uint64_t mult, uint64_t frac,
                         unsigned shift)
{
	if ((int64_t)delta < 0)
		delta = 0;
	return (uint64_t)(((unsigned __int128)delta * mult + frac) >> shift);
}

/* One reader per clock id and counter kind, each a leaf that lc_gettime()
 * jumps to: a TSC read keeps its few registers to itself (with every clock
 * inlined into lc_gettime, and the system counter's call on the path, the
 * reads shared one frame: six saved registers and the UTC_SLS path's
 * spills on every read) and ends in one split of the reading
 * (lc__tk_ts_of), whose division happens beside the counter read. */
typedef int (*gettime_fn)(const lc_timekeeper *tk, struct timespec *ts);

#define LC__TK_READERS(K, KIND)                                                \
	static __attribute__((noinline)) int realtime_##K(                    \
		const lc_timekeeper *tk, struct timespec *ts)                 \
	{                                                                     \
		if (!lc__tk_gettime_fast_k(tk, ts, KIND, 0,                    \
		                           LC__TKW(offs_real), 1))            \
			lc__tk_ns_to_ts(lc__tk_slow_rt(tk, NULL), ts);        \
		return 0;                                                     \
	}                                                                     \
	static __attribute__((noinline)) int tai_##K(const lc_timekeeper *tk, \
	                                             struct timespec *ts)     \
	{                                                                     \
		lc__tk_gettime_fast_k(tk, ts, KIND, 0, LC__TKW(offs_tai), 0);  \
		return 0;                                                     \
	}                                                                     \
	static __attribute__((noinline)) int mono_##K(                        \
		const lc_timekeeper *tk, struct timespec *ts)                 \
	{                                                                     \
		lc__tk_gettime_fast_k(tk, ts, KIND, 0, 0, 0);                  \
		return 0;                                                     \
	}                                                                     \
	static __attribute__((noinline)) int raw_##K(const lc_timekeeper *tk, \
	                                             struct timespec *ts)     \
	{                                                                     \
		lc__tk_gettime_fast_k(tk, ts, KIND, 1, 0, 0);                  \
		return 0;                                                     \
	}                                                                     \
	static __attribute__((noinline)) int boot_##K(                        \
		const lc_timekeeper *tk, struct timespec *ts)                 \
	{                                                                     \
		lc__tk_gettime_fast_k(tk, ts, KIND, 0, LC__TKW(offs_boot), 0); \
		return 0;                                                     \
	}                                                                     \
	static __attribute__((noinline)) int utc_##K(const lc_timekeeper *tk, \
	                                             struct timespec *ts)     \
	{                                                                     \
		if (!lc__tk_gettime_fast_k(tk, ts, KIND, 0,                    \
		                           LC__TKW(offs_real), 1))            \
			read_slow_ts(tk, LC_CLOCK_UTC, ts);                   \
		return 0;                                                     \
	}                                                                     \
	/* Without a smear policy UTC_SLS is UTC (the same reader). The     \
	 * flags never change after lc_tk_new(), so either copy tells. */     \
	static __attribute__((noinline)) int utc_sls_##K(                     \
		const lc_timekeeper *tk, struct timespec *ts)                 \
	{                                                                     \
		if (!(lc__tkw(&lc__tk_latch_of(tk)->copy[0], LC__TKW(flags)) & \
		      LC__TKF_SMEAR))                                         \
			return utc_##K(tk, ts);                               \
		if (!lc__tk_gettime_sls_fast_k(tk, ts, KIND, 0))              \
			read_slow_ts(tk, LC_CLOCK_UTC_SLS, ts);               \
		return 0;                                                     \
	}                                                                     \
	static const gettime_fn readers_##K[LC_CLOCK_COUNT] = {               \
		[LC_CLOCK_REALTIME] = realtime_##K,                           \
		[LC_CLOCK_TAI] = tai_##K,                                     \
		[LC_CLOCK_MONOTONIC] = mono_##K,                              \
		[LC_CLOCK_UTC] = utc_##K,                                     \
		[LC_CLOCK_MONOTONIC_RAW] = raw_##K,                           \
		[LC_CLOCK_BOOTTIME] = boot_##K,                               \
		[LC_CLOCK_UTC_SLS] = utc_sls_##K,                             \
	};

LC__TK_READERS(any, 0)
LC__TK_READERS(sys, LC_COUNTER_SYSTEM)
#if defined(__x86_64__)
LC__TK_READERS(tsc, LC_COUNTER_TSC)
#endif

int lc_gettime(const lc_timekeeper *tk, lc_clock_id id, struct timespec *ts)
{
	if (tk == NULL || (unsigned)id >= LC_CLOCK_COUNT)
		return LC_EINVAL;
#if defined(__x86_64__)
	if (lc__likely(lc__tk_pub(tk)->counter_kind == LC_COUNTER_TSC))
		return readers_tsc[id](tk, ts);
#endif
	if (lc__tk_pub(tk)->counter_kind == LC_COUNTER_SYSTEM)
		return readers_sys[id](tk, ts);
	return readers_any[id](tk, ts);
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
