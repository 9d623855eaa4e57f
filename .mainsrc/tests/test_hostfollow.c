/*
 * test_hostfollow.c - the decision of following the host (src/hostfollow.h)
 * on scripted samples: each case is a short sequence of samples (host
 * REALTIME, the kernel's TAI offset, state and status, the clock-was-set
 * count; our REALTIME, TAI-UTC and MONOTONIC) and the actions expected.
 * The first case is the 2015 failure measured on a real kernel, given to
 * both rules: the threshold rule steps by 1.0015 s, the kernel rule does
 * not step at all.
 */
#include "lc_test.h"

#include "hostfollow.h"
#include "leapclock.h"

#include <string.h>
#include <time.h>

#define NS INT64_C(1000000000)
#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define W INT64_C(1909094400) /* the 00:00:00 after the leap */

/* A scripted pair of clocks: ours (exact; leap at W) and the host's. */
struct script {
	struct lc__hf_state st;
	struct lc__hf_input in;
	struct lc__hf_output out;
	int64_t mono;  /* ours */
	int dir;
	int32_t ktai;  /* the kernel's TAI offset */
	int kstate, kstatus;
	uint64_t cws;
	int has_cws;
};

/* Our REALTIME at mono (the leap at W: mono 0 is W - 100 s on the pre-leap
 * timeline) and our TAI-UTC. */
static int64_t our_rt(const struct script *s, int64_t mono, int32_t *tai_utc)
{
	int64_t pre = (W - 100) * NS + mono;
	int64_t at = (s->dir > 0 ? W : W - 1) * NS;

	*tai_utc = 37;
	if (pre >= at) {
		*tai_utc = 37 + s->dir;
		return pre - s->dir * NS;
	}
	return pre;
}

static void init(struct script *s, int dir, int armed)
{
	memset(s, 0, sizeof(*s));
	s->dir = dir;
	s->has_cws = 1;
	s->ktai = armed ? 37 : 0;
	s->kstate = armed ? (dir > 0 ? LC_TIME_INS : LC_TIME_DEL) : LC_TIME_ERROR;
	s->kstatus = armed ? (dir > 0 ? LC_STA_INS : LC_STA_DEL) | LC_STA_PLL
	                   : LC_STA_UNSYNC;
	lc__hf_init(&s->st);
}

/* One sample at our MONOTONIC `mono`, the host reading our REALTIME plus
 * `hoff`. Returns the action. */
static int sample(struct script *s, int64_t mono, int64_t hoff)
{
	int32_t tu;
	int64_t rt = our_rt(s, mono, &tu);

	memset(&s->in, 0, sizeof(s->in));
	s->in.host_ns = rt + hoff;
	s->in.has_kernel = 1;
	s->in.ktai = s->ktai;
	s->in.kstate = s->kstate;
	s->in.kstatus = s->kstatus;
	s->in.has_cws = s->has_cws;
	s->in.cws = s->cws;
	s->in.expected_ns = rt;
	s->in.mono_ns = mono;
	s->in.tai_utc = tu;
	s->in.near_leap = 1;
	s->in.step_ns = 1 * MS;
	s->mono = mono;
	if (!s->st.learnt && s->st.last_mono == 0 && s->st.cws == 0 &&
	    !s->st.have_tai_utc) {
		lc__hf_prime(&s->st, &s->in, 1);
		memset(&s->out, 0, sizeof(s->out));
		return LC__HF_STEER;
	}
	lc__hf_update(&s->st, &s->in, &s->out);
	return s->out.action;
}

/* The kernel applies its leap (TAI by dir; TIME_OOP or TIME_WAIT). */
static void kernel_leaps(struct script *s, int signal)
{
	s->ktai += s->dir;
	s->kstate = s->dir > 0 ? LC_TIME_OOP : LC_TIME_WAIT;
	if (signal)
		s->cws++;
}

/* The 2015 case: host and library 1.5 ms apart when the kernel, armed,
 * applies the leap 5 ms late (from the tick; clock-was-set with it). The
 * kernel rule: never a step, LEAP_OFF for the 5 ms, then agreement, the
 * 1.5 ms steered. */
static void check_late_leap(int dir, int64_t off)
{
	struct script s;
	int64_t edge = (dir > 0 ? 100 : 99) * NS;

	init(&s, dir, 1);
	sample(&s, 0, 0);
	/* a drift to `off` the library could not follow yet */
	LC_EQ_INT(sample(&s, edge - 1 * NS, off), LC__HF_STEER);
	LC_EQ_INT(s.out.kernel_rule, 1);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
	LC_EQ_INT(sample(&s, edge - 1 * MS, off), LC__HF_STEER);
	/* we applied the leap at the edge; the host has not: it shows one
	 * leap behind (insertion: 00:00:00.002 while we show 23:59:60) */
	LC_EQ_INT(sample(&s, edge + 2 * MS, off + dir * NS), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF);
	LC_EQ_INT(s.out.gap, dir);
	LC_EQ_I64(s.out.offset_ns, off + dir * NS);
	/* the tick: TAI by dir, clock-was-set */
	kernel_leaps(&s, 1);
	LC_EQ_INT(sample(&s, edge + 7 * MS, off), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
	LC_EQ_INT(s.out.gap, 0);
	LC_EQ_INT(sample(&s, edge + 500 * MS, off), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
	/* and the 1.5 ms is steered towards, in the right direction */
	LC_TRUE(off > 0 ? s.out.steer_ppb > 0 : s.out.steer_ppb < 0);
}

static void test_late_leap_with_offset(void)
{
	check_late_leap(1, 1500 * US);
	LC_BAIL();
	check_late_leap(1, -1500 * US);
	LC_BAIL();
	check_late_leap(-1, 1500 * US);
	LC_BAIL();
	check_late_leap(-1, -1500 * US);
}

/* The same samples under the threshold rule (no step signal): the host's
 * late leap, 1 s + 1.5 ms, is taken for a step and followed. This is the
 * failure measured on a real kernel, kept only for hosts without a step
 * signal. */
static void test_threshold_rule_2015(void)
{
	struct script s;

	init(&s, 1, 1);
	s.has_cws = 0;
	sample(&s, 0, 0);
	sample(&s, 99 * NS, 1500 * US);
	LC_EQ_INT(s.out.kernel_rule, 0);
	LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF); /* 1.5 ms near a leap */
	LC_EQ_INT(sample(&s, 100 * NS + 2 * MS, 1500 * US + NS), LC__HF_STEP);
	LC_EQ_I64(s.out.step_ns, NS + 1500 * US);
}

/* Steps near a leap, of any size, are followed by exactly their size
 * (the proportional steer since the last sample taken into account). */
static void test_steps_followed(void)
{
	static const int64_t SIZE[] = { 1500 * US, -1500 * US, 300 * MS,
		                        -300 * MS, 20 * US, 5 * NS };

	for (size_t i = 0; i < sizeof(SIZE) / sizeof(SIZE[0]); i++) {
		struct script s;

		init(&s, 1, 1);
		sample(&s, 0, 0);
		sample(&s, 98 * NS, 200 * US); /* a learnt offset */
		/* the host stepped: the count moves */
		s.cws++;
		LC_EQ_INT(sample(&s, 98 * NS + 300 * MS, 200 * US + SIZE[i]),
		          LC__HF_STEP);
		/* 200 us less what the steer removed in 300 ms */
		LC_EQ_DBL((double)s.out.step_ns, (double)SIZE[i], 60e3);
		LC_EQ_INT(s.out.state, LC_HOST_STEPPED);
		/* an unsignalled sample after it (ours followed the step:
		 * the host is where it was from us): drift again */
		LC_EQ_INT(sample(&s, 98 * NS + 600 * MS, 200 * US),
		          LC__HF_STEER);
	}
}

/* A step while the kernel's leap is armed drops it (Linux clears the NTP
 * state; STA_INS reads back): the kernel never applies it, TAI stays;
 * the library stays exact, reports the host a leap behind, and when the
 * host's NTP steps it by the leap's second follows only what is left. */
static void test_step_drops_armed_leap(void)
{
	struct script s;

	init(&s, 1, 1);
	sample(&s, 0, 0);
	s.cws++;
	LC_EQ_INT(sample(&s, 98 * NS + 300 * MS, 300 * MS), LC__HF_STEP);
	LC_EQ_I64(s.out.step_ns, 300 * MS);
	s.kstatus |= LC_STA_UNSYNC; /* the step's NTP clear */
	s.kstate = LC_TIME_ERROR;
	/* now we follow the host: it agrees (offset 0 from here) */
	LC_EQ_INT(sample(&s, 99 * NS, 0), LC__HF_STEER);
	for (int64_t t = 100 * NS + 10 * MS; t < 110 * NS; t += NS) {
		LC_EQ_INT(sample(&s, t, NS), LC__HF_STEER);
		LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF);
		LC_EQ_INT(s.out.gap, 1);
	}
	/* its NTP steps it back by 1 s (and 3 us) */
	s.cws++;
	LC_EQ_INT(sample(&s, 111 * NS, -3 * US), LC__HF_STEP);
	LC_EQ_I64(s.out.step_ns, -3 * US);
	LC_EQ_INT(s.out.gap, 0);
	LC_EQ_INT(sample(&s, 112 * NS, 0), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
}

/* Linux >= 4.2: adjtimex shows the leap (TAI moved) from the exact
 * second, the clock-was-set signal comes after the tick, samples later:
 * that signal is the leap's, not a step. One that comes too long after is
 * a step (by what it shows: nothing here). */
static void test_signal_after_tai(void)
{
	struct script s;

	init(&s, 1, 1);
	sample(&s, 0, 0);
	sample(&s, 99 * NS, 0);
	kernel_leaps(&s, 0);
	LC_EQ_INT(sample(&s, 100 * NS + 1 * MS, 0), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
	s.cws++;
	LC_EQ_INT(sample(&s, 100 * NS + 300 * MS, 0), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
	/* a second signal is a step */
	s.cws++;
	LC_EQ_INT(sample(&s, 100 * NS + 600 * MS, 0), LC__HF_STEP);
}

/* One timerfd read may stand for the kernel's leap and a step together:
 * what the sample shows beyond step_ns is the step. A count that moved by
 * more than the leaps seen is a step whatever its size. */
static void test_merged_signals(void)
{
	struct script s;

	init(&s, 1, 1);
	sample(&s, 0, 0);
	sample(&s, 99 * NS, 0);
	kernel_leaps(&s, 1);
	LC_EQ_INT(sample(&s, 100 * NS + 300 * MS, 250 * MS), LC__HF_STEP);
	LC_EQ_I64(s.out.step_ns, 250 * MS);

	init(&s, 1, 1);
	sample(&s, 0, 0);
	sample(&s, 99 * NS, 0);
	kernel_leaps(&s, 1);
	s.cws++;
	LC_EQ_INT(sample(&s, 100 * NS + 300 * MS, 40 * US), LC__HF_STEP);
	LC_EQ_I64(s.out.step_ns, 40 * US);
}

/* The kernel inserts a leap the table does not have (a bogus leap bit
 * from an upstream, as some GPS receivers sent in 2015): its TAI offset
 * moves by +1 with the clock-was-set, so the host is now one leap *ahead*:
 * reported, not followed; when its NTP steps it back, only the rest is
 * followed. */
static void test_bogus_kernel_leap(void)
{
	struct script s;

	init(&s, 1, 1);
	s.dir = 0; /* our table: no leap */
	sample(&s, 0, 0);
	sample(&s, 99 * NS, 0);
	s.ktai += 1;
	s.kstate = LC_TIME_OOP;
	s.cws++;
	LC_EQ_INT(sample(&s, 100 * NS + 10 * MS, -NS), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF);
	LC_EQ_INT(s.out.gap, -1);
	LC_EQ_INT(sample(&s, 130 * NS, -NS + 20 * US), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF);
	s.cws++;
	LC_EQ_INT(sample(&s, 140 * NS, 7 * US), LC__HF_STEP);
	LC_EQ_DBL((double)s.out.step_ns, 7e3, 20e3);
	LC_EQ_INT(s.out.gap, 0);
}

/* ADJ_TAI (ntpd or chrony setting the offset, TIME_OK, no signal) is not
 * a leap: nothing changes. */
static void test_adj_tai_not_a_leap(void)
{
	struct script s;

	init(&s, 1, 0);
	s.kstate = LC_TIME_OK;
	s.kstatus = LC_STA_PLL;
	sample(&s, 0, 0);
	s.ktai = 37; /* from 0 */
	LC_EQ_INT(sample(&s, 10 * NS, 0), LC__HF_STEER);
	LC_EQ_INT(s.out.gap, 0);
	s.ktai = 38; /* +1, still TIME_OK and not armed */
	LC_EQ_INT(sample(&s, 20 * NS, 0), LC__HF_STEER);
	LC_EQ_INT(s.out.gap, 0);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
}

/* Without a step signal, or after our own clock was set, the threshold
 * rule decides (and says so). */
static void test_fallbacks(void)
{
	struct script s;

	init(&s, 1, 1);
	sample(&s, 0, 0);
	s.has_cws = 0;
	/* 300 ms near a leap: leap handling by that rule; 1.3 s a step */
	LC_EQ_INT(sample(&s, 10 * NS, 300 * MS), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF);
	LC_EQ_INT(s.out.kernel_rule, 0);
	LC_EQ_INT(sample(&s, 11 * NS, 1300 * MS), LC__HF_STEP);
	LC_EQ_I64(s.out.step_ns, 1300 * MS);

	init(&s, 1, 1);
	sample(&s, 0, 0);
	memset(&s.in, 0, sizeof(s.in));
	LC_EQ_INT(sample(&s, 10 * NS, 0), LC__HF_STEER);
	LC_EQ_INT(s.out.kernel_rule, 1);
	/* ours was set (lc_settime): re-learn by the threshold rule */
	{
		int32_t tu;
		int64_t rt = our_rt(&s, 11 * NS, &tu);

		s.in.host_ns = rt + 2 * NS;
		s.in.expected_ns = rt;
		s.in.mono_ns = 11 * NS;
		s.in.tai_utc = tu;
		s.in.ours_set = 1;
		lc__hf_update(&s.st, &s.in, &s.out);
		LC_EQ_INT(s.out.kernel_rule, 0);
		LC_EQ_INT(s.out.action, LC__HF_STEP);
		LC_EQ_I64(s.out.step_ns, 2 * NS);
	}
}

/* Drift is steered near a leap too, towards the nearest candidate: with
 * the host a leap behind, its 1 s is not steered, the rest is. */
static void test_drift_steered_near_leap(void)
{
	struct script s;

	init(&s, 1, 0);
	sample(&s, 0, 0);
	LC_EQ_INT(sample(&s, 99 * NS, 300 * US), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_AGREES);
	LC_GT_I64(s.out.steer_ppb, 0);
	LC_EQ_INT(sample(&s, 101 * NS, NS - 300 * US), LC__HF_STEER);
	LC_EQ_INT(s.out.state, LC_HOST_LEAP_OFF);
	LC_LT_I64(s.out.steer_ppb, 0);
	LC_GE_I64(s.out.steer_ppb, -LC__HF_MAX_PPB);
	LC_GT_I64(s.out.steer_ppb, -1000000); /* not the 1 s */
}

/* Issue 28 item 2: Linux sets the clock before it cancels the
 * CANCEL_ON_SET timerfds, so a sample can see a step before its signal.
 * 1.7 s before an armed insertion the host is stepped by +-1.5 ms; the
 * sample right after shows the move, no signal; the next one (a few ms,
 * or a second, later) has it. The whole move must be one step, not
 * steered as drift: before the fix the first sample steered it (750 ppm)
 * and the second "stepped" by only what the steer had not yet removed. A
 * move no slew explains (1.5 ms in 5 ms) is a step at once, and its late
 * signal no second step. A held move with no signal at the next sample
 * is drift after all: steered. */
static void test_step_before_signal(void)
{
	static const int64_t SIZE[] = { 1500 * US, -1500 * US, 300 * MS };
	static const int64_t GAP[] = { 2 * MS, 1000 * MS };

	for (size_t i = 0; i < sizeof(SIZE) / sizeof(SIZE[0]); i++)
		for (size_t g = 0; g < sizeof(GAP) / sizeof(GAP[0]); g++) {
			struct script s;
			int64_t t = 98 * NS + 300 * MS;

			init(&s, 1, 1);
			sample(&s, 0, 0);
			sample(&s, 97 * NS, 0);
			/* 1 s after the last sample: a slew could do it */
			LC_EQ_INT(sample(&s, t, SIZE[i]),
			          SIZE[i] > 100 * MS ? LC__HF_STEP : LC__HF_STEER);
			if (SIZE[i] > 100 * MS) {
				LC_EQ_I64(s.out.step_ns, SIZE[i]);
				LC_EQ_INT(s.out.unsignalled, 1);
				s.cws++; /* ours stepped with it: offset 0 */
				LC_EQ_INT(sample(&s, t + GAP[g], 0),
				          LC__HF_STEER);
				LC_EQ_INT(s.out.state, LC_HOST_AGREES);
				continue;
			}
			LC_EQ_I64(s.out.steer_ppb, 0); /* held, not steered */
			LC_EQ_INT(s.out.resample, 1);
			s.cws++; /* the signal, late */
			LC_EQ_INT(sample(&s, t + GAP[g], SIZE[i]), LC__HF_STEP);
			LC_EQ_I64(s.out.step_ns, SIZE[i]);
			LC_EQ_INT(s.out.state, LC_HOST_STEPPED);
		}

	/* 1.5 ms within 2 ms of the last sample: no slew does that */
	{
		struct script s;

		init(&s, 1, 1);
		sample(&s, 0, 0);
		sample(&s, 98 * NS, 0);
		LC_EQ_INT(sample(&s, 98 * NS + 2 * MS, 1500 * US), LC__HF_STEP);
		LC_EQ_I64(s.out.step_ns, 1500 * US);
		LC_EQ_INT(s.out.unsignalled, 1);
		s.cws++; /* its signal: owed, no second step (ours followed) */
		LC_EQ_INT(sample(&s, 98 * NS + 20 * MS, 0), LC__HF_STEER);
		/* a later signal is a step again */
		s.cws++;
		LC_EQ_INT(sample(&s, 98 * NS + 900 * MS, 40 * US), LC__HF_STEP);
	}
	/* held, and still no signal: drift, steered */
	{
		struct script s;

		init(&s, 1, 1);
		sample(&s, 0, 0);
		sample(&s, 97 * NS, 0);
		LC_EQ_INT(sample(&s, 98 * NS, 1500 * US), LC__HF_STEER);
		LC_EQ_INT(s.out.resample, 1);
		LC_EQ_INT(sample(&s, 98 * NS + 300 * MS, 1600 * US), LC__HF_STEER);
		LC_EQ_INT(s.out.resample, 0);
		LC_GT_I64(s.out.steer_ppb, 100000);
	}
}

/* A host whose kernel was never armed and whose NTP slews the leap away
 * after it (chrony's leapsecmode slew: 1 s at 83,333 ppm, about 12 s;
 * ntpd -x at 500 ppm is slower still), undeclared: moves of up to 83 ms
 * between samples with no step signal. Never a step, never the slew
 * steered into the timeline (the rate stays within the learnt 500 ppm),
 * the host reported off while it slews. */
static void test_undeclared_slew_not_followed(void)
{
	static const int64_t PERIOD[] = { 1000 * MS, 250 * MS };

	for (int dir = 1; dir >= -1; dir -= 2)
		for (size_t p = 0; p < 2; p++) {
			struct script s;
			int off = 0, steps = 0;
			int64_t edge = (dir > 0 ? 100 : 99) * NS;

			init(&s, dir, 0);
			sample(&s, 0, 0);
			sample(&s, 90 * NS, 0);
			for (int64_t t = 91 * NS; t < edge + 20 * NS;
			     t += PERIOD[p]) {
				/* the host keeps the old TAI-UTC: dir s from us
				 * after the edge, then slews it away from 1 s
				 * after at 83,333 ppm */
				int64_t x = t - (edge + NS), h = 0;

				if (t >= edge)
					h = dir * NS;
				if (x > 0)
					h -= dir * (x < 12 * NS
					            ? (int64_t)((__int128)x * 83333333 / NS)
					            : NS);
				if (h > dir * NS && dir > 0)
					h = dir * NS;
				if (sample(&s, t, h) == LC__HF_STEP)
					steps++;
				LC_LE_I64(s.out.steer_ppb, LC__HF_MAX_I_PPB);
				LC_GE_I64(s.out.steer_ppb, -LC__HF_MAX_I_PPB);
				if (s.out.state == LC_HOST_LEAP_OFF)
					off = 1;
			}
			LC_EQ_INT(steps, 0);
			LC_TRUE(off);
		}
}

/* This host, read only: the sample is this host's REALTIME (within 10 ms
 * of clock_gettime), with the kernel's facts and a step signal on Linux;
 * two samples in a row see no clock-was-set (unless the host's clock is
 * being set right now, which the test cannot cause). */
static void test_this_host(void)
{
	struct lc_host_sample a, b;
	struct timespec ts;
	int64_t now, d;

	LC_EQ_INT(lc__hostclock_sample(&a), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	LC_EQ_INT(lc__hostclock_sample(&b), 0);
	now = (int64_t)ts.tv_sec * NS + ts.tv_nsec;
	d = a.realtime_ns - now;
	LC_LE_I64(d < 0 ? -d : d, 10 * MS);
	LC_LE_I64(a.realtime_ns, b.realtime_ns);
#ifdef __linux__
	LC_TRUE(a.flags & LC_HOST_SAMPLE_KERNEL);
	LC_TRUE(b.state >= LC_TIME_OK && b.state <= LC_TIME_ERROR);
	LC_TRUE(b.tai >= 0);
	if (a.flags & LC_HOST_SAMPLE_CWS)
		LC_EQ_U64(b.clock_was_set, a.clock_was_set);
	else
		LC_SKIP("this host's step signal", "no timerfd here");
#else
	LC_EQ_INT(a.flags, 0);
#endif
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_late_leap_with_offset, "1.5 ms apart at a kernel's late leap (both signs, both directions): no step");
	LC_RUN(test_threshold_rule_2015, "the same under the threshold rule: a step of 1.0015 s (the 2015 failure)");
	LC_RUN(test_steps_followed, "signalled steps of 5 ns .. 300 ms near a leap followed by their size");
	LC_RUN(test_step_drops_armed_leap, "a step drops the kernel's armed leap: host a leap behind, then its NTP's step, only the rest followed");
	LC_RUN(test_signal_after_tai, "adjtimex shows the leap before its clock-was-set: that signal is the leap's, the next one a step");
	LC_RUN(test_merged_signals, "one signal for a leap and a step: the step found");
	LC_RUN(test_bogus_kernel_leap, "a kernel leap the table does not have: the host a leap ahead, not followed");
	LC_RUN(test_adj_tai_not_a_leap, "ADJ_TAI is not a leap");
	LC_RUN(test_fallbacks, "no step signal, or our clock set: the threshold rule");
	LC_RUN(test_drift_steered_near_leap, "drift steered near a leap, towards the nearest candidate");
	LC_RUN(test_step_before_signal, "a step seen before its clock-was-set signal (issue 28 item 2): one step of its whole size, not drift");
	LC_RUN(test_undeclared_slew_not_followed, "an undeclared post-leap slew (83,333 ppm, both directions, samples every 1 s and 250 ms): never stepped, never steered into the timeline");
	LC_RUN(test_this_host, "this host sampled read-only: adjtimex facts and a timerfd step signal on Linux");
	return lc_test_done();
}
