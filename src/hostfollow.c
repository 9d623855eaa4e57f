/*
 * hostfollow.c - the decision of following the host (the rule is in
 * hostfollow.h). Pure: no I/O, no globals.
 */
#include "hostfollow.h"

#include "leapclock.h"

#include <string.h>

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

void lc__hf_init(struct lc__hf_state *st)
{
	memset(st, 0, sizeof(*st));
}

static void remember(struct lc__hf_state *st, const struct lc__hf_input *in)
{
	st->last_mono = in->mono_ns;
	st->tai_utc = in->tai_utc;
	st->have_tai_utc = 1;
	st->have_kernel = in->has_kernel;
	if (in->has_kernel) {
		st->ktai = in->ktai;
		st->kstate = in->kstate;
		st->kstatus = in->kstatus;
	}
	st->have_cws = in->has_cws;
	if (in->has_cws)
		st->cws = in->cws;
}

void lc__hf_prime(struct lc__hf_state *st, const struct lc__hf_input *in,
                  int offset_known)
{
	lc__hf_init(st);
	remember(st, in);
	st->off_ns = 0;
	st->learnt = offset_known && in->has_cws;
}

void lc__hf_rebase(struct lc__hf_state *st, int32_t tai_utc)
{
	st->tai_utc = tai_utc;
	st->have_tai_utc = 1;
}

/* The rate correction that removes the phase error `e` (ns, host ahead
 * positive): a proportional term removing it over max(2 s, 2 intervals)
 * and a slow integral one for a counter whose rate differs from the
 * host's (a TSC against the disciplined clock). 1 ns per second is 1 ppb.
 * Records the proportional part actually applied (after the clamps), by
 * which the next sample predicts the learnt offset. */
static int64_t steer(struct lc__hf_state *st, int64_t e, int64_t dt,
                     int64_t step_ns)
{
	int64_t horizon = dt * 2 > 2 * LC__NS ? dt * 2 : 2 * LC__NS;
	int64_t p = (int64_t)((__int128)e * LC__NS / horizon);
	/* The integral learns from errors up to step_ns only (as the
	 * threshold rule only ever saw those): a larger one is a phase to
	 * close, not a rate to learn, and would wind it up. */
	int64_t ei = clamp64(e, -step_ns, step_ns);
	int64_t total;

	if (dt > 0) {
		st->i_ppb += (int64_t)((__int128)ei * dt / ((__int128)16 * horizon));
		st->i_ppb = clamp64(st->i_ppb, -LC__HF_MAX_I_PPB, LC__HF_MAX_I_PPB);
	}
	total = clamp64(p + st->i_ppb, -LC__HF_MAX_PPB, LC__HF_MAX_PPB);
	st->prop_ppb = total - st->i_ppb;
	return total;
}

/* Holds the learnt frequency, no phase steering. */
static int64_t hold(struct lc__hf_state *st)
{
	st->prop_ppb = 0;
	return st->i_ppb;
}

/* The threshold rule: for a host that gives no step signal (or until one
 * is learnt). */
static void threshold_rule(struct lc__hf_state *st,
                           const struct lc__hf_input *in, int64_t d,
                           int64_t dt, struct lc__hf_output *out)
{
	int64_t ad = abs64(d), step = in->step_ns;

	out->offset_ns = d;
	if (ad <= step && !in->host_smear && in->near_leap) {
		/* Near a leap, a host that smears without our knowing looks
		 * like a slow drift at first: do not learn from it. Keep the
		 * rate correction learnt before (a TSC's error), no phase
		 * steering. */
		out->steer_ppb = hold(st);
		out->state = LC_HOST_AGREES;
		st->off_ns = d;
		st->gap = 0;
	} else if (ad <= step) {
		out->steer_ppb = steer(st, d, dt, in->step_ns);
		out->state = in->smeared ? LC_HOST_SMEARED : LC_HOST_AGREES;
		st->off_ns = d;
		st->gap = 0;
	} else if (ad <= LC__NS + step &&
	           (in->near_leap ||
	            (in->mode >= LC_HOST_LEAP_SLEW && st->gap != 0 &&
	             (d > 0) == (st->gap > 0)))) {
		/* The host's own leap handling: applied late, not at all, or
		 * smeared without our knowing. We already applied the leap
		 * at its exact instant; report, do not follow. */
		out->steer_ppb = hold(st);
		out->state = LC_HOST_LEAP_OFF;
		out->held = 1;
		st->gap = d > 0 ? 1 : -1;
		st->off_ns = d - st->gap * LC__NS;
	} else {
		/* A step of the host clock: follow it as a clock-was-set. */
		out->action = LC__HF_STEP;
		out->step_ns = d;
		out->steer_ppb = hold(st);
		out->state = LC_HOST_STEPPED;
		out->offset_ns = 0;
		st->off_ns = 0;
		st->gap = 0;
	}
}

/* The kernel changed its TAI offset by `dk` (+-1) between the last sample
 * and this one: its own leap, if it is in a leap state now or had that
 * leap armed before (not an ADJ_TAI, which leaves TIME_OK). */
static int kernel_leapt(const struct lc__hf_state *st,
                        const struct lc__hf_input *in, int dk)
{
	int armed;

	if (in->kstate == LC_TIME_OOP || in->kstate == LC_TIME_WAIT)
		return 1;
	if (dk > 0)
		armed = st->kstate == LC_TIME_INS || (st->kstatus & LC_STA_INS);
	else
		armed = st->kstate == LC_TIME_DEL || (st->kstatus & LC_STA_DEL);
	return armed;
}

/* Leaps since the last sample: ours (TAI-UTC moved) widen the gap, the
 * kernel's (its TAI offset moved by +-1 in a leap state) narrow it and owe
 * a step signal. */
static void count_leaps(struct lc__hf_state *st, const struct lc__hf_input *in)
{
	if (st->have_tai_utc)
		st->gap += in->tai_utc - st->tai_utc;
	if (in->has_kernel && st->have_kernel) {
		int64_t dk = (int64_t)in->ktai - st->ktai;

		if ((dk == 1 || dk == -1) && kernel_leapt(st, in, (int)dk)) {
			st->gap -= (int)dk;
			st->owed++;
			st->owed_mono = in->mono_ns;
		}
	}
	/* A signal owed for a kernel leap comes within LC__HF_OWED_NS; one
	 * the previous sample, taken that long after, did not see is not
	 * coming. */
	if (st->owed > 0 && st->last_mono - st->owed_mono > LC__HF_OWED_NS)
		st->owed = 0;
}

/* A leap the host applied before us: our clock, up to LC__HF_SMEAR_HOLD
 * behind the host's near a leap (an undeclared smear is held, not
 * steered), is still short of the armed leap's boundary that the host has
 * passed, so the host reads a second from us by that leap (ahead across a
 * deletion, behind across an insertion): x = d + dir s is the host's
 * phase ahead of ours, and the boundary is no farther than x. That is
 * the host a leap ahead of us, gap = -dir, which our own leap at the
 * boundary closes (count_leaps); taken for a step of d it moved REALTIME
 * and TAI a second (test_bounds, test_leap_host_first). */
static void host_first(struct lc__hf_state *st, const struct lc__hf_input *in,
                       int64_t d)
{
	int64_t x = d + (int64_t)in->leap_ahead * LC__NS;

	if (in->leap_ahead == 0 || st->gap != 0 || in->host_smear)
		return;
	if (x > -in->step_ns &&
	    x <= LC__HF_SMEAR_HOLD(in->step_ns) + in->step_ns &&
	    in->leap_in_ns <= x + in->step_ns)
		st->gap = -in->leap_ahead;
}

/* The undeclared-smear window: what our steering moved the phase beyond
 * the frequency learnt before it. */
static void track_window(struct lc__hf_state *st,
                         const struct lc__hf_input *in, int64_t dt)
{
	if (!in->near_leap || in->host_smear) {
		st->win_active = 0;
		return;
	}
	if (!st->win_active) {
		st->win_active = 1;
		st->win_ns = 0;
		st->win_i_ppb = st->i_ppb;
		return;
	}
	st->win_ns += (int64_t)((__int128)(st->last_steer - st->win_i_ppb) *
	                        dt / LC__NS);
}

/* The most a slewed host can move from us in dt ns. */
static int64_t slew_bound(int64_t dt)
{
	return (int64_t)((__int128)dt * LC__HF_MAX_SLEW_PPB / LC__NS);
}

/* `fires` step signals (> 0) with r the move beyond the learnt offset:
 * those the kernel's owed leaps explain are not steps; one more is. One it
 * may explain can hide a step in the same interval (one timerfd read
 * stands for any number of them): r beyond step_ns is one too. */
static int is_step(struct lc__hf_state *st, uint64_t fires, int64_t r,
                   int64_t step_ns)
{
	uint64_t explained =
	    fires < (uint64_t)st->owed ? fires : (uint64_t)st->owed;

	st->owed -= (int)explained;
	return fires > explained || abs64(r) > step_ns;
}

/* d strictly between a and b, beyond `margin` from both. */
static int between(int64_t d, int64_t a, int64_t b, int64_t margin)
{
	int64_t lo = a < b ? a : b, hi = a < b ? b : a;

	return d > lo + margin && d < hi - margin;
}

void lc__hf_update(struct lc__hf_state *st, const struct lc__hf_input *in,
                   struct lc__hf_output *out)
{
	int64_t d = in->host_ns - in->expected_ns;
	int64_t dt = in->mono_ns - st->last_mono;
	int64_t lp, lc, e, r, mv, ref;
	uint64_t fires = 0;
	int k = 0, stepped = 0, moving;

	memset(out, 0, sizeof(*out));
	if (dt < 0)
		dt = 0;

	count_leaps(st, in);
	host_first(st, in, d);
	/* the move since the last sample, our leaps and the kernel's aside */
	mv = d - (int64_t)st->gap * LC__NS -
	     (st->last_q - (int64_t)((__int128)st->prop_ppb * dt / LC__NS));

	if (!in->has_cws || !st->have_cws || !st->learnt || in->ours_set) {
		threshold_rule(st, in, d, dt, out);
		st->learnt = in->has_cws;
		goto done;
	}
	out->kernel_rule = 1;
	fires = in->cws - st->cws;

	track_window(st, in, dt);

	/* The candidates: the learnt offset, less what the proportional
	 * steer removed since; and, while the host is `gap` leaps behind, the
	 * same plus gap seconds. */
	lp = st->off_ns - (int64_t)((__int128)st->prop_ppb * dt / LC__NS);
	/* Which candidate is judged from the learnt offset as far as it is
	 * drift (an undeclared smear held near a leap is not): */
	lc = clamp64(lp, -LC__HF_SMEAR_HOLD(in->step_ns),
	             LC__HF_SMEAR_HOLD(in->step_ns));
	if (st->gap != 0 &&
	    abs64(d - (lc + st->gap * LC__NS)) < abs64(d - lc))
		k = 1;
	e = d - (k ? st->gap * LC__NS : 0);
	r = e - lp;

	/* The host's place if it kept true time: L, or near a leap where
	 * an undeclared smear may have carried us, L less what we steered
	 * since the window began. */
	ref = st->win_active && st->win_held ? -st->win_ns : lc;
	/* declared slew, step or ignore: moving towards ref at 100 ppm or
	 * more since the last sample is a slew starting, or not yet over (in
	 * kernel mode that is drift, steered, as before) */
	moving = in->mode >= LC_HOST_LEAP_SLEW && st->gap != 0 &&
	         (mv < 0) == (st->gap > 0) &&
	         (__int128)abs64(mv) * 10000 > dt;
	if (st->gap != 0 && in->mode != LC_HOST_LEAP_SMEAR &&
	    (between(d, ref, ref + st->gap * LC__NS, in->step_ns) ||
	     (moving && (abs64(d - ref) <= in->step_ns ||
	                 abs64(d - ref - st->gap * LC__NS) <= in->step_ns))) &&
	    abs64(mv) <= in->step_ns + slew_bound(dt) &&
	    (fires == 0 || fires <= (uint64_t)st->owed)) {
		/* The host closing the leap (the rule above): no reference
		 * while it slews; L and the gap kept. */
		st->owed -= (int)fires;
		st->suspect = 0;
		out->offset_ns = d;
		out->state = LC_HOST_LEAP_OFF;
		out->held = 1;
		out->closing = 1;
		st->off_ns = lp;
		out->steer_ppb = hold(st);
		goto done;
	}
	if (st->gap != 0 && !k && abs64(r) <= in->step_ns) {
		/* Back at L from a leap behind: the leap's own correction
		 * (a step, or a slew's end). Declared (slew, step, ignore):
		 * explained, not followed; its signal, if it has not come,
		 * may still come. In kernel mode, as before: a signalled one
		 * is followed by the rest r (its NTP's correction beyond the
		 * leap's second). */
		out->closed = abs64(mv) > in->step_ns || fires > 0 ? 2 : 1;
		out->gap_before = st->gap;
	}
	if (out->closed && in->mode >= LC_HOST_LEAP_SLEW) {
		if (fires > 0)
			st->owed -= (int)(fires < (uint64_t)st->owed ? fires
			                                             : (uint64_t)st->owed);
		else if (abs64(mv) > in->step_ns) {
			st->owed++;
			st->owed_mono = in->mono_ns;
		}
		fires = 0;
		mv = 0;
	}
	stepped = fires > 0 && is_step(st, fires, r, in->step_ns);
	if (!k)
		st->gap = 0; /* the host shows our leaps (again) */
	if (!stepped && fires == 0 && abs64(r) > in->step_ns &&
	    abs64(mv) > in->step_ns) {
		/* An unsignalled move (the rule above): beyond any slew, a
		 * step whose signal is owed; else held once, unless the last
		 * sample was held already (then it is drift). Under a
		 * declared smear, never a step: its NTP client lags the
		 * smear's turns (chronyd by tens of ms at the minute
		 * preset's 16,667 ppm) and that lag unwinds unsignalled, a
		 * move to steer; a real step there signals. */
		if (abs64(mv) > in->step_ns + slew_bound(dt) &&
		    in->mode != LC_HOST_LEAP_SMEAR) {
			stepped = 1;
			out->unsignalled = 1;
			st->owed++;
			st->owed_mono = in->mono_ns;
		} else if (!st->suspect) {
			st->suspect = 1;
			out->resample = 1;
			out->offset_ns = d;
			out->state = k ? LC_HOST_LEAP_OFF
			           : in->smeared ? LC_HOST_SMEARED
			                         : LC_HOST_AGREES;
			st->off_ns = lp;
			out->steer_ppb = hold(st);
			goto done;
		}
	}
	st->suspect = 0;

	if (stepped) {
		out->action = LC__HF_STEP;
		out->step_ns = r;
		out->offset_ns = d - r;
		out->state = LC_HOST_STEPPED;
		st->off_ns = lp;
		out->steer_ppb = steer(st, lp, dt, in->step_ns);
	} else if (st->win_active &&
	           abs64(st->win_ns + e) > LC__HF_SMEAR_HOLD(in->step_ns)) {
		/* Near a leap, a host that moved this far is smearing it
		 * without our knowing: report, run at the frequency learnt
		 * before, do not follow. */
		out->offset_ns = d;
		out->state = LC_HOST_LEAP_OFF;
		out->held = 1;
		st->win_held = 1;
		st->off_ns = e;
		st->i_ppb = st->win_i_ppb;
		out->steer_ppb = hold(st);
	} else {
		st->win_held = 0;
		out->offset_ns = d;
		out->state = k ? LC_HOST_LEAP_OFF
		           : in->smeared ? LC_HOST_SMEARED
		                         : LC_HOST_AGREES;
		st->off_ns = e;
		out->steer_ppb = steer(st, e, dt, in->step_ns);
	}
	if (st->win_active && !out->held && out->action != LC__HF_STEP)
		out->unknown_ns = abs64(st->win_ns + e);
done:
	if (out->action == LC__HF_STEP)
		st->win_active = 0; /* the window starts again from here */
	if (!st->win_active)
		st->win_held = 0;
	st->last_steer = out->steer_ppb;
	st->last_q = out->offset_ns - (int64_t)st->gap * LC__NS;
	out->gap = st->gap;
	remember(st, in);
}
