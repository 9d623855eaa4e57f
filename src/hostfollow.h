/*
 * hostfollow.h - following the host's CLOCK_REALTIME (DESIGN.md 7): the
 * decision, as a pure function, and the sampler of the real host.
 *
 * The decision (lc__hf_update) has no I/O and no globals: it takes one
 * sample of the host (its REALTIME and, where the host gives them, the
 * kernel's NTP facts and a clock-was-set count), our exact REALTIME at the
 * same instant, our leap context, and the state it learnt before; it says
 * what to do (steer the rate, or step) and updates what it learnt.
 *
 * The rule, with d = host - expected (expected = our REALTIME with the
 * host's declared smear applied):
 *
 *  - L is the offset learnt at the previous sample (host - ours, leaps
 *    aside), less the part the proportional steer removed since
 *    (prop_ppb * dt). gap is the number of leap seconds (signed: +1 an
 *    insertion) we applied that the kernel has not: it grows when our
 *    TAI-UTC changes, and shrinks when the kernel's TAI offset changes by
 *    +-1 in a leap state (TIME_OOP/TIME_WAIT, or with that leap armed just
 *    before): the kernel changes its TAI offset exactly when it applies a
 *    leap, even from 0, so that is a fact of the sample. STA_INS/STA_DEL
 *    alone are never trusted to predict a leap (a step drops an armed leap
 *    while STA_INS reads back).
 *  - The candidates for d are L and, while gap != 0, L + gap s (the host
 *    one leap behind: late, or never). The nearest one is the host's leap
 *    status; nearest L with gap != 0 means the host caught up (gap := 0).
 *    e = d - k * gap s (k = 1 for the second candidate) is the phase error.
 *  - No step signalled since the last sample: e is drift; the rate is
 *    steered to remove it (proportional over max(2 s, 2 intervals), a
 *    slow integral within 500 ppm, the sum within 10 %), near a leap too.
 *    Except: within 2 days of a table leap, without a declared host
 *    smear, a host whose phase has moved more than LC__HF_SMEAR_HOLD
 *    (10 x step_ns: 10 ms) since that window began (what we steered
 *    beyond the frequency learnt before it, plus e) is smearing without
 *    our knowing (Google's smear gets there in a quarter of an hour, a
 *    disciplined clock never does): the rate is held at the frequency
 *    learnt before the window, the host reported as LC_HOST_LEAP_OFF,
 *    until it comes back within the bound. The candidate is chosen from
 *    L clamped to that bound, so that a smear that has carried L by up
 *    to a second is not taken for the host a leap behind once it is
 *    over.
 *  - A step signalled (the clock-was-set count moved): a signal the
 *    kernel's own leap explains (its TAI offset changed by +-1, at this
 *    sample or one in the OWED window before, since the signal may lag the
 *    TAI change by a tick and a workqueue) is not a step. Any other is
 *    followed as a clock-was-set by e - L, whatever its size. Where a
 *    single signal may stand for both the kernel's leap and a step in the
 *    same interval (a timerfd cannot count them), e - L beyond step_ns is
 *    a step too.
 *  - An unsignalled move: no step signal, and the move beyond the learnt
 *    offset (e - L) beyond step_ns. Linux sets the clock before it
 *    cancels the TFD_TIMER_CANCEL_ON_SET timerfds (clock_was_set runs
 *    after the timekeeper's update, an IPI to every CPU first), so a
 *    sample taken in between sees a step without its signal; steered as
 *    drift it left the library 1.5 ms behind a stepped host for seconds
 *    (issue 28 item 2). A move that LC__HF_MAX_SLEW_PPB over the interval
 *    (plus step_ns) cannot explain is a step at once, its signal owed
 *    (the OWED window, as for a kernel leap). A smaller one is held for
 *    one sample (the rate learnt kept, L unchanged, `resample` asked):
 *    if the next sample has the signal the whole move is the step; if
 *    not, it was drift, steered from then on.
 *  - The host closing a leap it did not apply (modes other than
 *    smear): with gap != 0, no unexplained step signal and no move a slew
 *    cannot explain, a host strictly between the candidates (beyond
 *    step_ns from both), or (declared slew, step, ignore) within step_ns
 *    of one and moving towards L at 100 ppm or more since the last
 *    sample (a slew's first and last millisecond; in kernel mode that is
 *    drift, steered), is slewing the second out (chrony leapsecmode
 *    slew, ntpd -x, an upstream's late correction; or an undeclared
 *    smear): it is no reference, the rate is held, L kept, `closing` and
 *    `held` said, until it is back within step_ns of a candidate. Back
 *    at L (k = 0, the move from L within step_ns) it has closed the gap:
 *    a step signal or an unsignalled move then is the leap's (chrony
 *    leapsecmode step, or the end of a slew), explained, not followed;
 *    a signal may still be owed for it.
 *  - Without a step signal (or before one was learnt, or after our own
 *    clock was set) the threshold rule of old is used: up to step_ns
 *    steered (not near a table leap without a declared host smear), up to
 *    1 s + step_ns near a table leap reported as leap handling, else a
 *    step of d. In the slew, step and ignore modes, a host a leap behind
 *    stays reported (not stepped) also after those 2 days.
 */
#ifndef LC_HOSTFOLLOW_H
#define LC_HOSTFOLLOW_H

#include "internal.h"

/* The phase steer may reach 10 % (a host slewed by chronyd at up to 8.3 %
 * changes CLOCK_REALTIME that fast, and a TSC does not see it); the learnt
 * frequency stays within 500 ppm. */
#define LC__HF_MAX_PPB 100000000
#define LC__HF_MAX_I_PPB 500000
/* How long after the kernel's TAI offset moved its clock-was-set signal may
 * still come (the leap's tick, then clock_was_set_delayed's workqueue). */
#define LC__HF_OWED_NS (2 * LC__NS)
/* The host's largest slew (chrony's maxslewrate is 83,333 ppm; Linux's
 * tick adjustment allows 10 %): a move beyond it between two samples, plus
 * step_ns of noise, is a step whether or not its signal was seen. */
#define LC__HF_MAX_SLEW_PPB LC__HF_MAX_PPB
/* Near a table leap without a declared host smear, a phase error beyond
 * this is taken for an undeclared smear (see the rule above). */
#define LC__HF_SMEAR_HOLD(step_ns) (10 * (step_ns))

struct lc__hf_state {
	int learnt;          /* off_ns and the baselines below are valid */
	int64_t off_ns;      /* L: host - expected - gap part, last sample */
	int64_t last_mono;   /* our MONOTONIC at the last sample */
	int64_t prop_ppb;    /* the proportional steer applied since */
	int64_t i_ppb;       /* the integral steer (the counter's error) */
	int gap;             /* leap seconds we applied that the host has not */
	int have_tai_utc;
	int32_t tai_utc;     /* our TAI-UTC at the last sample, s */
	int have_kernel;     /* the last sample had the kernel's facts */
	int32_t ktai;
	int kstate, kstatus;
	int have_cws;        /* the last sample had a clock-was-set count */
	uint64_t cws;
	int owed;            /* signals owed for kernel leaps seen */
	int64_t owed_mono;   /* when the last of them was seen */
	int64_t last_steer;  /* the steer applied since the last sample, ppb */
	/* Near a leap without a declared smear: the phase steered since the
	 * window began, beyond the frequency learnt before it. */
	int win_active;
	int64_t win_ns, win_i_ppb;
	int win_held;        /* the window's hold is on (an undeclared smear) */
	/* The last sample moved beyond step_ns with no step signal and was
	 * held, not steered (an unsignalled move, see the rule above). */
	int suspect;
	/* host - ours less the gap's seconds after the last sample: the
	 * phase an unsignalled move is measured from (not the candidate,
	 * which may change between samples with no move at all) */
	int64_t last_q;
};

struct lc__hf_input {
	/* the host: lc_host_sample (leapclock.h) */
	int64_t host_ns;
	int has_kernel;
	int32_t ktai;
	int kstate, kstatus;
	int has_cws;
	uint64_t cws;
	/* ours, at the sample's instant */
	int64_t expected_ns; /* our REALTIME, the host's declared smear applied */
	int64_t mono_ns;     /* our MONOTONIC */
	int32_t tai_utc;     /* our TAI-UTC, s (leaps applied at their instants) */
	int smeared;         /* the declared host smear is non-zero now */
	int host_smear;      /* a host smear is declared at all */
	int near_leap;       /* within 2 days of a table leap (threshold rule) */
	int mode;            /* enum lc_host_leap (_SMEAR: host_smear set) */
	int ours_set;        /* our clock was set since the last sample */
	int64_t step_ns;     /* host_step_ns */
};

enum lc__hf_action {
	LC__HF_STEER = 0, /* apply steer_ppb from now */
	LC__HF_STEP = 1   /* step REALTIME (TAI with it) by step_ns, then steer */
};

struct lc__hf_output {
	int action;          /* enum lc__hf_action */
	int64_t step_ns;     /* LC__HF_STEP: add to our REALTIME */
	int64_t steer_ppb;   /* the rate correction, ppb (ns per s) */
	int state;           /* enum lc_host_state */
	int64_t offset_ns;   /* host - expected after the action */
	int gap;             /* leap seconds the host is behind (signed) */
	int kernel_rule;     /* 1: decided from the kernel's facts */
	int resample;        /* an unsignalled move was held: a sample
	                      * taken a little later may show its signal */
	int unsignalled;     /* LC__HF_STEP taken without its signal */
	int held;            /* the host is not a reference now (it closes a
	                      * leap, or smears undeclared): the rate held */
	int closing;         /* held because the host is between the
	                      * candidates, slewing the leap out */
	int closed;          /* the host closed the gap this sample, explained
	                      * by the leap: 2 at once (a step), 1 at the end
	                      * of a slew */
	int gap_before;      /* st->gap before this sample's closing */
	int64_t unknown_ns;  /* near a leap, undeclared: how far the host
	                      * moved since the window began (what a smear it
	                      * does not declare may have carried us) */
};

void lc__hf_init(struct lc__hf_state *st);
/* One sample: the action, and *st updated (call lc__hf_rebase after
 * applying a step). */
void lc__hf_update(struct lc__hf_state *st, const struct lc__hf_input *in,
                   struct lc__hf_output *out);
/* After a step was applied: our TAI-UTC right after it (the step may have
 * crossed a table leap, which the host, having been stepped the same way,
 * shows as we do). */
void lc__hf_rebase(struct lc__hf_state *st, int32_t tai_utc);
/* Takes the kernel and clock-was-set baselines from a sample taken when
 * the timekeeper was created from it (REALTIME set to the host's: L = 0
 * when `offset_known`). */
void lc__hf_prime(struct lc__hf_state *st, const struct lc__hf_input *in,
                  int offset_known);

/* ---- detection (src/hostdetect.c): what an undeclared host does --------- */

/* DESIGN.md 7, "Detection". Around a table leap, in kernel mode, the
 * host's phase (host - our REALTIME, less the offset learnt before the
 * window: obs) is compared with
 *  - each smear preset's curve (what obs would be on that smear): a
 *    sample counts where either is LC__HD_SIG_NS or more, a match within
 *    LC__HD_TOL_NS; LC__HD_SMEAR_N matches and no more than one miss in
 *    ten recognise the first such preset (google before aws: the same
 *    curve);
 *  - a slew: after the boundary the host 90 % of a leap behind or more
 *    (a smear is half at most), then closing it at a steady rate: at
 *    least LC__HD_SLEW_N intervals (of 1 ms or more), each within
 *    0.8..1.25 of the overall rate, at least LC__HD_SIG_NS done, the rate
 *    at least 100 ppm (slower is a smear's);
 *  - a step: the decision said the host closed a full leap at once.
 * Pure: no I/O, no globals. */
#define LC__HD_TOL_NS (5 * LC__NS / 1000)
#define LC__HD_SIG_NS (20 * LC__NS / 1000)
#define LC__HD_SMEAR_N 8
#define LC__HD_SLEW_N 5
#define LC__HD_PRESETS 16

struct lc__hd_state {
	int kind;           /* enum lc_host_detect: recognised (final) */
	char text[40];      /* its declaration, "smear:google", "slew:500" */
	int have_base;
	int64_t base_ns;    /* the learnt offset when the window began */
	int match[LC__HD_PRESETS], miss[LC__HD_PRESETS];
	int behind;         /* after the boundary, seen a full leap behind */
	int slew_n;         /* intervals seen of a slew under way */
	int slew_bad;
	int64_t t0, p0, tp, pp; /* its first and last samples: mono, progress */
	int64_t rmin, rmax;     /* the intervals' rates, ppb */
};

struct lc__hd_input {
	int64_t d_ns;       /* host - our REALTIME */
	int64_t mono_ns;
	int64_t learnt_ns;  /* the decision's L before this sample */
	int64_t steered_ns; /* the phase we steered since the window began
	                     * (hf win_ns): the host's own move is d + it */
	int gap;            /* leaps the host is behind (after this sample,
	                     * or before it when it closed the gap now) */
	int near_leap;
	int closed_step;    /* the decision: the host stepped a leap out */
	int npresets;
	const char *const *names;
	int64_t smear_ns[LC__HD_PRESETS]; /* obs on each preset's curve */
};

void lc__hd_init(struct lc__hd_state *st);
/* One sample; 1 when it recognised something now (st->kind, st->text),
 * once. */
int lc__hd_update(struct lc__hd_state *st, const struct lc__hd_input *in);

/* ---- the real host (src/hostclock.c) ------------------------------------ */

struct lc_host_sample;
/* One sample of this host: on Linux the read-only adjtimex (REALTIME, the
 * TAI offset, the state and status under one kernel lock; ns with STA_NANO,
 * else us, centred) and the count of TFD_TIMER_CANCEL_ON_SET cancellations
 * seen by this process; elsewhere clock_gettime(CLOCK_REALTIME) alone.
 * Never sets anything. Returns 0. */
int lc__hostclock_sample(struct lc_host_sample *out);

#endif
