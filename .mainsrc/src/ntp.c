/*
 * ntp.c - the adjtimex state machine, behaving as Linux's kernel/time/ntp.c
 * (mainline ~6.x, built without CONFIG_NTP_PPS) and the adjtimex checks of
 * kernel/time/timekeeping.c. The behaviour matched is the one written down in
 * /work/shared/reference/linux-leap-semantics.md (sections 1, 2 and 4, cited
 * below as "ref 1.3" etc.); the code is our own.
 *
 * Pure: no clock reads, no I/O, no locks (see ntp.h for the contract).
 *
 * Units (as Linux, with NTP_INTERVAL_FREQ = HZ = LC__NTP_HZ):
 *   time_freq          ns << 32 per second
 *   tick_length(_base) ns << 32 per tick (1/HZ s); a second is HZ ticks
 *   time_offset        ns << 32 / HZ: the phase still to slew, per tick
 *   maxerror, esterror, time_adjust, tick_usec: us
 */
#include "ntp.h"

#include <limits.h>
#include <string.h>

/* The constants of ref 1.1, under Linux's names (local to this file). */
#define NTP_SCALE_SHIFT 32
#define SHIFT_PLL       2
#define SHIFT_FLL       2
#define SHIFT_USEC      16
#define MAXTC           10
#define MINSEC          256
#define MAXSEC          2048
#define NSEC_PER_USEC   INT64_C(1000)
#define USEC_PER_SEC    INT64_C(1000000)
#define MAXPHASE        INT64_C(500000000) /* ns */
#define MAXFREQ         INT64_C(500000)    /* ns/s = 500 ppm */
#define MAXFREQ_SCALED  (MAXFREQ << NTP_SCALE_SHIFT)
/* time_freq per unit of freq: freq is ppm << 16, and 1 ppm is 1000 ns/s,
 * 1000 << 32 in time_freq; one unit of freq is therefore (1000 << 32) >> 16
 * = 1000 << 16 = 65,536,000. */
#define PPM_SCALE           (NSEC_PER_USEC << (NTP_SCALE_SHIFT - SHIFT_USEC))
#define PPM_SCALE_INV_SHIFT 19
/* 2^51 / PPM_SCALE + 1 = 34,359,739: (x >> 19) * PPM_SCALE_INV >> 32
 * divides x by PPM_SCALE without a 64-bit division; it is exact for every
 * time_freq that ADJ_FREQUENCY can set (see test_freq_roundtrip_random). */
#define PPM_SCALE_INV                                                          \
	(((INT64_C(1) << (PPM_SCALE_INV_SHIFT + NTP_SCALE_SHIFT)) /            \
	  PPM_SCALE) +                                                         \
	 1)
#define NTP_PHASE_LIMIT ((MAXPHASE / NSEC_PER_USEC) << 5) /* 16e6 us */
#define MAX_TICKADJ     INT64_C(500)                      /* us per second */
#define MAX_TICKADJ_SCALED                                                     \
	(((MAX_TICKADJ * NSEC_PER_USEC) << NTP_SCALE_SHIFT) / LC__NTP_HZ)
#define MAX_TAI_OFFSET 100000
#define SECS_PER_DAY   INT64_C(86400)
#define USER_TICK_USEC (USEC_PER_SEC / LC__USER_HZ)

/* The modes the kernel splits ADJ_OFFSET_SINGLESHOT (0x8001) and
 * ADJ_OFFSET_SS_READ (0xa001) into (ref 1.1). */
#define ADJ_ADJTIME        0x8000u
#define ADJ_SINGLESHOT_BIT 0x0001u
#define ADJ_READONLY       0x2000u /* the same bit as LC_ADJ_NANO */

/* Linux's shift_right(): an arithmetic shift that rounds toward zero (it
 * negates, shifts, negates), unlike >> on a negative value, which floors. */
static int64_t shift_right(int64_t x, int s)
{
	if (x < 0)
		return -((-x) >> s);
	return x >> s;
}

/* x >> s for a signed x, flooring (what the kernel's >> on s64 does), written
 * without relying on implementation-defined behaviour. */
static int64_t asr_floor(int64_t x, int s)
{
	return lc__fdiv(x, INT64_C(1) << s);
}

/* x << s for a signed x, wrapping like the kernel (-fno-strict-overflow)
 * instead of being undefined for negative x or on overflow. */
static int64_t shl_wrap(int64_t x, int s)
{
	return (int64_t)((uint64_t)x << s);
}

/* a + b and a * b, wrapping as the kernel's arithmetic does. */
static int64_t add_wrap(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t mul_wrap(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * ntp_update_frequency(): the length of a second is tick_usec * USER_HZ us
 * plus the frequency correction; a tick is 1/HZ of it (truncated). The new
 * base takes effect at once: tick_length keeps the slew already added to it
 * this second and moves by the change of the base (ref 4 "Tick length").
 * second_length <= 11000 us * 100 * 1000 << 32 + MAXFREQ_SCALED ~ 4.73e18,
 * so int64 holds it (Linux uses u64; it is never negative here either).
 */
static void update_frequency(struct lc__ntp *n)
{
	int64_t second_length, new_base;

	second_length = (n->tick_usec * NSEC_PER_USEC * LC__USER_HZ)
	                << NTP_SCALE_SHIFT;
	second_length += n->time_freq; /* ntp_tick_adj is 0: no boot param */
	new_base = second_length / LC__NTP_HZ;

	n->tick_length += new_base - n->tick_length_base;
	n->tick_length_base = new_base;
}

void lc__ntp_clear(struct lc__ntp *n)
{
	/* ntp_clear() (ref 2.6). time_state and STA_INS/STA_DEL stay: an armed
	 * TIME_INS/TIME_DEL then never fires (its `next` is gone and the
	 * trigger is an equality) until STA_INS/DEL is cleared or PLL goes
	 * on->off. That is Linux's current code; we keep it. */
	n->time_adjust = 0;
	n->time_status |= LC_STA_UNSYNC;
	n->time_maxerror = NTP_PHASE_LIMIT;
	n->time_esterror = NTP_PHASE_LIMIT;
	update_frequency(n);
	n->tick_length = n->tick_length_base;
	n->time_offset = 0;
	n->next_leap_sec = INT64_MAX;
}

void lc__ntp_init(struct lc__ntp *n)
{
	/* Linux's boot state (ref 1.1 "Initial state"): memset first so that
	 * padding is defined (tests compare the struct with memcmp). */
	memset(n, 0, sizeof(*n));
	n->time_state = LC_TIME_OK;
	n->time_status = LC_STA_UNSYNC;
	n->time_constant = 2;
	n->tick_usec = USER_TICK_USEC;
	n->time_reftime = 0;
	n->tai_offset = 0;
	lc__ntp_clear(n);
}

/* ------------------------------------------------------------------------ */
/* The second boundary                                                       */
/* ------------------------------------------------------------------------ */

/*
 * The POSIX second of the next UTC midnight after `secs` (the following one
 * when `secs` is itself a midnight): the instant an inserted second starts.
 * Linux computes secs + 86400 - rem with a truncating remainder; for secs >= 0
 * (the only REALTIME Linux allows) that equals this floor form, which also
 * stays right before 1970.
 */
static int64_t next_insert_sec(int64_t secs)
{
	return secs + SECS_PER_DAY - lc__fmod(secs, SECS_PER_DAY);
}

/* The next 23:59:59 strictly after `secs`: the second a deletion removes.
 * If secs is 23:59:59 itself it is the next day's (ref 2.2). */
static int64_t next_delete_sec(int64_t secs)
{
	return secs + SECS_PER_DAY - lc__fmod(secs + 1, SECS_PER_DAY);
}

/* The leap state machine, as Linux since Dec 2015 (ref 2.2): one step
 * at the start of second `secs`; the leap applied now, -1, 0 or +1. */
static int leap_state_step(struct lc__ntp *n, int64_t secs)
{
	int leap = 0;

	switch (n->time_state) {
	case LC_TIME_OK:
		if (n->time_status & LC_STA_INS) {
			/* OK -> INS: arm an insertion at the next midnight.
			 * STA_INS is tested first, so INS wins if both are
			 * set. */
			n->time_state = LC_TIME_INS;
			n->next_leap_sec = next_insert_sec(secs);
		} else if (n->time_status & LC_STA_DEL) {
			/* OK -> DEL: arm the deletion of the next 23:59:59. */
			n->time_state = LC_TIME_DEL;
			n->next_leap_sec = next_delete_sec(secs);
		}
		break;
	case LC_TIME_INS:
		if (!(n->time_status & LC_STA_INS)) {
			/* INS -> OK: STA_INS was cleared before the leap:
			 * cancelled, nothing is inserted. */
			n->next_leap_sec = INT64_MAX;
			n->time_state = LC_TIME_OK;
		} else if (secs == n->next_leap_sec) {
			/* INS -> OOP: midnight begins; REALTIME goes back to
			 * 23:59:59 (shown as 23:59:60 by UTC). TAI-UTC grows
			 * at the start of the inserted second, so TAI does not
			 * jump. `next` stays set during OOP (the adjtimex read
			 * path compares against it, ref 2.3). */
			leap = -1;
			n->time_state = LC_TIME_OOP;
		}
		break;
	case LC_TIME_DEL:
		if (!(n->time_status & LC_STA_DEL)) {
			/* DEL -> OK: STA_DEL cleared before the leap:
			 * cancelled, nothing is deleted. */
			n->next_leap_sec = INT64_MAX;
			n->time_state = LC_TIME_OK;
		} else if (secs == n->next_leap_sec) {
			/* DEL -> WAIT: 23:59:59 would begin; REALTIME jumps to
			 * 00:00:00 instead, TAI-UTC shrinks by one. */
			leap = 1;
			n->next_leap_sec = INT64_MAX;
			n->time_state = LC_TIME_WAIT;
		}
		break;
	case LC_TIME_OOP:
		/* OOP -> WAIT: the inserted second is over (OOP lasts exactly
		 * one second). The flags are not looked at: an applied leap
		 * is never undone. */
		n->next_leap_sec = INT64_MAX;
		n->time_state = LC_TIME_WAIT;
		break;
	case LC_TIME_WAIT:
		/* WAIT -> OK only once both STA_INS and STA_DEL are clear. A
		 * STA_INS left set does NOT insert again the next day: the man
		 * page says a leap "occurs each day while set", but the code
		 * stays in TIME_WAIT; we follow the code (ref 2.2). */
		if (!(n->time_status & (LC_STA_INS | LC_STA_DEL)))
			n->time_state = LC_TIME_OK;
		break;
	default:
		/* TIME_ERROR is only ever a return value in Linux, never a
		 * state; nothing to do. */
		break;
	}
	return leap;
}

/* Each second: maxerror grows, and this second's length is set (the
 * phase slew, adjtime()). */
static void second_errors_and_slew(struct lc__ntp *n)
{
	int64_t delta;

	/* maxerror grows by MAXFREQ, 500 us per second, and is pinned at
	 * NTP_PHASE_LIMIT, which also declares the clock unsynchronised
	 * (ref 1.5). From 0 it passes 16e6 on the 32,001st second. */
	n->time_maxerror += MAXFREQ / NSEC_PER_USEC;
	if (n->time_maxerror > NTP_PHASE_LIMIT) {
		n->time_maxerror = NTP_PHASE_LIMIT;
		n->time_status |= LC_STA_UNSYNC;
	}

	/* This second's length starts from the base; then 1/2^(2+tc) of the
	 * remaining phase is slewed (ref 4 "Each second"). Without PPS
	 * support STA_PPSSIGNAL (read-only) is never set, so the "whole
	 * offset at once" case of STA_PPSTIME && STA_PPSSIGNAL cannot occur
	 * and Linux without CONFIG_NTP_PPS does not have it either. */
	n->tick_length = n->tick_length_base;
	delta = shift_right(n->time_offset, SHIFT_PLL + (int)n->time_constant);
	n->time_offset -= delta;
	n->tick_length += delta;

	/* adjtime(): 500 us per second while more than that remains, then
	 * the remainder in one second (ref 4 "adjtime"). Per tick that is
	 * (remainder * 1000 / HZ) ns, truncated toward zero as Linux does. */
	if (n->time_adjust > MAX_TICKADJ) {
		n->time_adjust -= MAX_TICKADJ;
		n->tick_length += MAX_TICKADJ_SCALED;
	} else if (n->time_adjust < -MAX_TICKADJ) {
		n->time_adjust += MAX_TICKADJ;
		n->tick_length -= MAX_TICKADJ_SCALED;
	} else if (n->time_adjust != 0) {
		n->tick_length +=
		    shl_wrap(n->time_adjust * NSEC_PER_USEC / LC__NTP_HZ,
		             NTP_SCALE_SHIFT);
		n->time_adjust = 0;
	}
}

int lc__ntp_second_overflow(struct lc__ntp *n, int64_t secs)
{
	int leap = leap_state_step(n, secs);

	/* The timekeeper moves offs_tai with the leap (tai -= leap): +1 at
	 * the start of an inserted second, -1 at a deletion (ref 2.2). */
	n->tai_offset -= leap;
	second_errors_and_slew(n);
	return leap;
}

int64_t lc__ntp_rate(const struct lc__ntp *n)
{
	/* HZ ticks of tick_length each: the base (<= ~4.73e18, see
	 * update_frequency), plus the phase slew (at most a quarter of
	 * MAXPHASE, 1.25e8 ns, in one second: ~5.4e17) and 500 us of adjtime
	 * (~2.1e15): below 5.3e18, so int64 holds it. */
	return n->tick_length * LC__NTP_HZ;
}

int lc__ntp_pending_leap(const struct lc__ntp *n, int64_t next_boundary_sec,
                         int64_t *when_sec)
{
	int64_t when = INT64_MAX;
	int state = n->time_state;
	int dir = 0;

	/* INS (DEL) whose flag was cleared: the next boundary cancels it
	 * (-> OK), and the one after arms whatever flag is set then, the
	 * other direction's if it took the cleared one's place (ref 2.2).
	 * Readers must see that leap now, not at the next writer call. */
	if ((state == LC_TIME_INS && !(n->time_status & LC_STA_INS)) ||
	    (state == LC_TIME_DEL && !(n->time_status & LC_STA_DEL))) {
		state = LC_TIME_OK;
		if (next_boundary_sec < INT64_MAX)
			next_boundary_sec++;
	}
	switch (state) {
	case LC_TIME_OK:
		/* Not yet transitioned: the boundary `next_boundary_sec` will
		 * move OK -> INS/DEL and compute `next` from that second,
		 * exactly as second_overflow does. */
		if (n->time_status & LC_STA_INS) {
			dir = 1;
			when = next_insert_sec(next_boundary_sec);
		} else if (n->time_status & LC_STA_DEL) {
			dir = -1;
			when = next_delete_sec(next_boundary_sec);
		}
		break;
	case LC_TIME_INS:
		/* Fires only while STA_INS stays set (else the next boundary
		 * cancels) and only if the boundary at `next` is still ahead
		 * (the trigger is an equality; after lc__ntp_clear() `next`
		 * is INT64_MAX and it never fires). */
		if ((n->time_status & LC_STA_INS) &&
		    n->next_leap_sec != INT64_MAX &&
		    n->next_leap_sec >= next_boundary_sec) {
			dir = 1;
			when = n->next_leap_sec;
		}
		break;
	case LC_TIME_DEL:
		if ((n->time_status & LC_STA_DEL) &&
		    n->next_leap_sec != INT64_MAX &&
		    n->next_leap_sec >= next_boundary_sec) {
			dir = -1;
			when = n->next_leap_sec;
		}
		break;
	default:
		/* OOP, WAIT: nothing until the state is back to OK, which
		 * takes at least one more boundary after this one. */
		break;
	}
	if (when_sec != NULL)
		*when_sec = dir != 0 ? when : INT64_MAX;
	return dir;
}

/* ------------------------------------------------------------------------ */
/* adjtimex                                                                  */
/* ------------------------------------------------------------------------ */

int lc__ntp_validate(const struct lc_timex *tx, int privileged)
{
	/* timekeeping_validate_timex(), in its order (ref 1.2). */
	if (tx == NULL)
		return LC_EFAULT;
	if (tx->modes & ADJ_ADJTIME) {
		/* adjtime(): only ADJ_OFFSET_SINGLESHOT (0x8001) and its read
		 * (0xa001). Linux checks just the 0x0001 bit: other bits with
		 * it pass here and are then ignored (the adjtime path does not
		 * process NTP modes), except SETOFFSET, checked below. */
		if (!(tx->modes & ADJ_SINGLESHOT_BIT))
			return LC_EINVAL;
		if (!(tx->modes & ADJ_READONLY) && !privileged)
			return LC_EPERM;
	} else {
		if (tx->modes != 0 && !privileged)
			return LC_EPERM;
		/* The tick may be off by at most 10% (in us per USER_HZ
		 * tick: 9000..11000 at USER_HZ 100). */
		if ((tx->modes & LC_ADJ_TICK) &&
		    (tx->tick < 900000 / LC__USER_HZ ||
		     tx->tick > 1100000 / LC__USER_HZ))
			return LC_EINVAL;
	}

	if (tx->modes & LC_ADJ_SETOFFSET) {
		if (!privileged)
			return LC_EPERM;
		/* tv_sec may have either sign; the fraction must be in
		 * [0, 1 s) in the unit of *this call* (ADJ_NANO in modes, not
		 * STA_NANO). */
		if (tx->time.tv_usec < 0)
			return LC_EINVAL;
		if (tx->modes & LC_ADJ_NANO) {
			if (tx->time.tv_usec >= LC__NS)
				return LC_EINVAL;
		} else if (tx->time.tv_usec >= USEC_PER_SEC) {
			return LC_EINVAL;
		}
	}

	/* 64-bit Linux: freq * PPM_SCALE must not overflow (the clamp to
	 * +-500 ppm happens after the multiplication). C division truncates,
	 * as the kernel's LLONG_MIN / PPM_SCALE does. */
	if (tx->modes & LC_ADJ_FREQUENCY) {
		if (INT64_MIN / PPM_SCALE > tx->freq)
			return LC_EINVAL;
		if (INT64_MAX / PPM_SCALE < tx->freq)
			return LC_EINVAL;
	}
	return 0;
}

/* process_adj_status() (ref 1.3 step 1). */
static void adj_status(struct lc__ntp *n, int status, int64_t now_sec)
{
	if ((n->time_status & LC_STA_PLL) && !(status & LC_STA_PLL)) {
		/* PLL on -> off: the leap state machine is reset (any state
		 * -> OK, an armed leap is dropped). Linux writes STA_UNSYNC
		 * here, but the masking below keeps only read-only bits of
		 * it, i.e. none: the net effect is that the read-only bits
		 * (STA_NANO among them) are cleared. We do the same. */
		n->time_state = LC_TIME_OK;
		n->time_status = LC_STA_UNSYNC;
		n->next_leap_sec = INT64_MAX;
	}
	if (!(n->time_status & LC_STA_PLL) && (status & LC_STA_PLL))
		n->time_reftime = now_sec; /* PLL off -> on */

	/* Read-only bits keep their value; attempts to set them are
	 * silently ignored. */
	n->time_status &= LC_STA_RONLY;
	n->time_status |= status & ~LC_STA_RONLY;
}

/* ntp_update_offset(): the PLL/FLL update of ref 4. */
static void update_offset(struct lc__ntp *n, int64_t offset, int64_t now_sec)
{
	int64_t secs, freq_adj, pll, tc = n->time_constant;

	if (!(n->time_status & LC_STA_PLL))
		return; /* ignored without STA_PLL */

	if (!(n->time_status & LC_STA_NANO)) {
		/* us: pre-clamped to +-1 s so the scaling cannot overflow
		 * (current kernels). */
		offset = clamp64(offset, -USEC_PER_SEC, USEC_PER_SEC);
		offset *= NSEC_PER_USEC;
	}
	offset = clamp64(offset, -MAXPHASE, MAXPHASE);

	/* Seconds since the last update; 0 under STA_FREQHOLD. */
	secs = (int64_t)((uint64_t)now_sec - (uint64_t)n->time_reftime);
	if (n->time_status & LC_STA_FREQHOLD)
		secs = 0;
	n->time_reftime = now_sec;

	/* FLL term, for long intervals (or on request with STA_FLL once the
	 * interval is at least MINSEC): offset / secs as ns/s << 32, with
	 * 2^-SHIFT_FLL gain: (offset << (32 - 2)) / secs, dividing toward
	 * zero. |offset| <= 5e8 so offset << 30 < 5.4e17. */
	n->time_status &= ~LC_STA_MODE;
	freq_adj = 0;
	if (secs >= MINSEC &&
	    ((n->time_status & LC_STA_FLL) || secs > MAXSEC)) {
		n->time_status |= LC_STA_MODE;
		freq_adj = offset *
		           (INT64_C(1) << (NTP_SCALE_SHIFT - SHIFT_FLL)) / secs;
	}

	/* PLL term: offset * secs / 2^(2 * (SHIFT_PLL + 2 + tc)) ns/s, with
	 * secs capped at 2^(SHIFT_PLL + 1 + tc) to keep the loop stable with
	 * sparse updates. In ns << 32 that is (offset * secs) << (32 - 2 *
	 * (4 + tc)) = << (24 - 2 tc), a left shift because tc <= 10. With the
	 * cap, |offset * secs << shift| <= 5e8 * 2^(27 - tc): no overflow for
	 * secs >= 0. A negative secs (the clock was stepped back since the
	 * last update) is not capped, as in Linux; the product may then wrap,
	 * as it does in the kernel, and the clamp below bounds the result. */
	if (secs > (INT64_C(1) << (SHIFT_PLL + 1 + tc)))
		secs = INT64_C(1) << (SHIFT_PLL + 1 + tc);
	pll = shl_wrap(mul_wrap(offset, secs),
	               NTP_SCALE_SHIFT - 2 * (SHIFT_PLL + 2 + (int)tc));
	freq_adj = add_wrap(add_wrap(freq_adj, pll), n->time_freq);
	n->time_freq = clamp64(freq_adj, -MAXFREQ_SCALED, MAXFREQ_SCALED);

	/* The phase to slew, per tick: (offset << 32) / HZ, toward zero.
	 * |offset << 32| <= 5e8 * 2^32 ~ 2.1e18. */
	n->time_offset = offset * (INT64_C(1) << NTP_SCALE_SHIFT) / LC__NTP_HZ;
}

/* process_adjtimex_modes(), in Linux's order (ref 1.3 steps 1-10). */
static void process_modes(struct lc__ntp *n, const struct lc_timex *tx,
                          int64_t now_sec, int *tai_changed)
{
	unsigned int m = tx->modes;

	if (m & LC_ADJ_STATUS)
		adj_status(n, tx->status, now_sec);

	/* NANO then MICRO: MICRO wins when both are given. */
	if (m & LC_ADJ_NANO)
		n->time_status |= LC_STA_NANO;
	if (m & LC_ADJ_MICRO)
		n->time_status &= ~LC_STA_NANO;

	/* freq is ppm << 16; validate() guaranteed that the product fits. */
	if (m & LC_ADJ_FREQUENCY)
		n->time_freq = clamp64(tx->freq * PPM_SCALE, -MAXFREQ_SCALED,
		                       MAXFREQ_SCALED);

	/* Current kernels clamp both to [0, NTP_PHASE_LIMIT] ("ntp: Clamp
	 * maxerror and esterror to operating range", 2024); older ones
	 * stored any value. We follow current code. */
	if (m & LC_ADJ_MAXERROR)
		n->time_maxerror = clamp64(tx->maxerror, 0, NTP_PHASE_LIMIT);
	if (m & LC_ADJ_ESTERROR)
		n->time_esterror = clamp64(tx->esterror, 0, NTP_PHASE_LIMIT);

	/* In us mode the constant is taken as 4 larger (the old NTPv3
	 * scale); the stored (and read back) value includes the +4. */
	if (m & LC_ADJ_TIMECONST) {
		int64_t tc = clamp64(tx->constant, 0, MAXTC);
		if (!(n->time_status & LC_STA_NANO))
			tc += 4;
		n->time_constant = clamp64(tc, 0, MAXTC);
	}

	/* ADJ_TAI shares `constant` with ADJ_TIMECONST; a value outside
	 * 0..MAX_TAI_OFFSET is silently ignored (current kernels: older ones
	 * required > 0). */
	if ((m & LC_ADJ_TAI) && tx->constant >= 0 &&
	    tx->constant <= MAX_TAI_OFFSET) {
		if (n->tai_offset != (int32_t)tx->constant && tai_changed)
			*tai_changed = 1;
		n->tai_offset = (int32_t)tx->constant;
	}

	if (m & LC_ADJ_OFFSET)
		update_offset(n, tx->offset, now_sec);

	if (m & LC_ADJ_TICK)
		n->tick_usec = tx->tick;

	if (m & (LC_ADJ_TICK | LC_ADJ_FREQUENCY | LC_ADJ_OFFSET))
		update_frequency(n);
}

int lc__ntp_adjtimex(struct lc__ntp *n, struct lc_timex *tx, int64_t now_sec,
                     int *tai_changed)
{
	int result, rc;

	if (tai_changed != NULL)
		*tai_changed = 0;
	/* Defensive: the caller validated already (with its privilege); a
	 * second check as privileged catches a caller that did not, and
	 * leaves everything unchanged. */
	rc = lc__ntp_validate(tx, 1);
	if (rc != 0)
		return rc;

	if (tx->modes & ADJ_ADJTIME) {
		/* adjtime(): independent of the NTP modes, none of which are
		 * processed. The read-back is the slew still pending (us);
		 * unless READONLY (0xa001), the new one replaces it, unclamped
		 * (ref 1.3 "Singleshot"). */
		int64_t save_adjust = n->time_adjust;

		if (!(tx->modes & ADJ_READONLY)) {
			n->time_adjust = tx->offset;
			update_frequency(n);
		}
		tx->offset = save_adjust;
	} else {
		if (tx->modes != 0)
			process_modes(n, tx, now_sec, tai_changed);
		/* The remaining phase, in ns: time_offset * HZ >> 32 toward
		 * zero (|time_offset * HZ| <= 5e8 << 32), then in us unless
		 * STA_NANO, dividing the signed value toward zero as current
		 * mainline does (checked in its ntp_adjtimex). Ref 1.4 notes
		 * that some 5.x/6.x kernels cast to u32 before dividing,
		 * mangling negative offsets (which versions: UNVERIFIED); we
		 * treat that as the bug it was and do not reproduce it. */
		tx->offset =
		    shift_right(n->time_offset * LC__NTP_HZ, NTP_SCALE_SHIFT);
		if (!(n->time_status & LC_STA_NANO))
			tx->offset /= NSEC_PER_USEC;
	}

	/* The return value: the state, or TIME_ERROR when unsynchronised or
	 * on a clock error. We model a kernel without CONFIG_NTP_PPS (no PPS
	 * discipline exists here; STA_PPSSIGNAL is read-only and never set):
	 * there, and so here, the PPS conditions of ref 1.4 (PPSFREQ/PPSTIME
	 * without PPSSIGNAL, PPSTIME with PPSJITTER, PPSFREQ with
	 * PPSWANDER|PPSERROR) do not make the result TIME_ERROR. */
	result = n->time_state;
	if (n->time_status & (LC_STA_UNSYNC | LC_STA_CLOCKERR))
		result = LC_TIME_ERROR;

	/* ppm << 16 from ns << 32 per second: divide by PPM_SCALE as
	 * (time_freq >> 19) * PPM_SCALE_INV >> 32, the last shift toward
	 * zero. |time_freq >> 19| <= 2^32 and PPM_SCALE_INV < 2^26: fits. */
	tx->freq = shift_right(asr_floor(n->time_freq, PPM_SCALE_INV_SHIFT) *
	                           PPM_SCALE_INV,
	                       NTP_SCALE_SHIFT);
	tx->maxerror = n->time_maxerror;
	tx->esterror = n->time_esterror;
	tx->status = n->time_status;
	tx->constant = n->time_constant;
	tx->precision = 1;
	tx->tolerance = MAXFREQ_SCALED / PPM_SCALE; /* 32768000: 500 ppm */
	tx->tick = n->tick_usec;
	tx->tai = n->tai_offset;
	/* PPS fields: zero, as Linux without CONFIG_NTP_PPS. */
	tx->ppsfreq = 0;
	tx->jitter = 0;
	tx->shift = 0;
	tx->stabil = 0;
	tx->jitcnt = 0;
	tx->calcnt = 0;
	tx->errcnt = 0;
	tx->stbcnt = 0;
	return result;
}

int lc__ntp_read_leap(const struct lc__ntp *n, int64_t sec, int result,
                      struct lc_timex *tx)
{
	/* Linux samples the time before taking the NTP state and shows the
	 * leap on the edge, even if the tick that applies it runs a few ms
	 * later (ref 2.3). It replaces any result, TIME_ERROR included. */
	if (sec < n->next_leap_sec)
		return result;
	if (n->time_state == LC_TIME_INS && (n->time_status & LC_STA_INS)) {
		/* inside the inserted second: 23:59:60 */
		result = LC_TIME_OOP;
		tx->tai++;
		tx->time.tv_sec--;
	}
	if (n->time_state == LC_TIME_DEL && (n->time_status & LC_STA_DEL)) {
		/* the deleted second: already 00:00:00 */
		result = LC_TIME_WAIT;
		tx->tai--;
		tx->time.tv_sec++;
	}
	if (n->time_state == LC_TIME_OOP && sec == n->next_leap_sec)
		result = LC_TIME_WAIT; /* 00:00:00, OOP not yet ended */
	return result;
}
