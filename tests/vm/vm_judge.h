/*
 * vm_judge.h - the pass/fail rules of `make vm-test`, shared by its faces.
 *
 * A face (a program on lc_default(), one under the shim, the bare kernel)
 * reads REALTIME, TAI and, where it has one, UTC in a tight loop, each
 * reading bracketed by the kernel's CLOCK_MONOTONIC, and arms absolute
 * timers for the 00:00:00 after the leap. The orchestrator (vm_face.c
 * `run`) knows the truth: it set REALTIME to `set_rt` at MONOTONIC
 * `set_mono`, so true POSIX time is set_rt + (mono - set_mono) until the
 * leap, at whose true instant it steps by one second (back for an
 * insertion, forward for a deletion). At `step_mono` it stepped the host by
 * `offset` (ADJ_SETOFFSET); from then on the host's ideal time, and what a
 * face that follows the host must show, is the truth plus `offset`, with the
 * leap where that clock reaches its boundary.
 *
 * The rules (issue 13, "what it checks"), judged from step_mono + SETTLE on:
 *  - no stale reading: for an insertion no 00:00:00.x before the repeat,
 *    for a deletion no reading inside the deleted 23:59:59;
 *  - REALTIME repeats 23:59:59 (or skips it) exactly once, at its own
 *    boundary: the reading before the step is before the boundary, the one
 *    after it is within the readings' spacing of the other side;
 *  - UTC shows 23:59:60 for that second and only then (insertion), never
 *    for a deletion, and never goes back;
 *  - TAI continuous: no jump between consecutive readings beyond their
 *    brackets (plus a 0.1% rate allowance for steering);
 *  - every reading within TOL of the host's ideal time (REALTIME and TAI),
 *    except those whose bracket holds the leap instant;
 *  - after the leap, within TOL + |offset| of true UTC;
 *  - no timer fires before its own clock reads its deadline, and each fires;
 *  - no timer fires before kernel truth reaches its deadline (a separate
 *    column, `vs_true`: the earliest firing's MONOTONIC minus the instant
 *    truth reaches the deadline). Kernel truth is the kernel's MONOTONIC
 *    plus the REALTIME-MONOTONIC offset the orchestrator set and stepped
 *    (constant between them: the bare kernel's TAI, which has no leap, is
 *    checked against it and a run it left by over 1 ms is void), with the
 *    leap applied at the instant that clock reaches its boundary, not at
 *    the kernel's tick. A face's clock that is right by its own reading
 *    but ahead of truth (issue 28 item 2) fails here; its readings' worst
 *    distance from the same truth is err_host (VJ_TOL).
 * Readings whose bracket is wider than the face's bracket_max (BRACKET_MAX
 * unless the face says otherwise: the reader was preempted between its
 * reads, common under emulation) are not judged. A face with no TAI (the
 * NTP probe: a reply carries POSIX time only) sets no_tai.
 */
#ifndef LC_VM_JUDGE_H
#define LC_VM_JUDGE_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define VJ_NS          INT64_C(1000000000)
#define VJ_TOL         INT64_C(1000000) /* 1 ms */
/* A host step must be followed within VJ_SETTLE: under emulation, with
 * four busy readers and the writer on two vCPUs, following has taken up
 * to 0.54 s (the `follow` figure prints each face's own). */
#define VJ_SETTLE      INT64_C(600000000)
#define VJ_BRACKET_MAX INT64_C(100000)
#define VJ_MAX_TIMERS  8
/* Kernel truth's tolerances (issue 28 item 2). A reading may be this far
 * from the truth the face sampled around it (right faces are within
 * 0.04 ms under TCG; the in-process defect of issue 28 item 2 was 1.08 ms
 * off), and no timer may wake before truth reaches its deadline at all
 * (truth is sampled after the wake-up, so a sampled early is early). */
#define VJ_KTOL        INT64_C(250000) /* 0.25 ms */
#define VJ_KEARLY_TOL  INT64_C(0)

struct vj_cfg {
	int64_t set_rt, set_mono; /* true POSIX ns at MONOTONIC ns */
	int64_t boundary_s;       /* POSIX second the leap happens at */
	int dir;                  /* +1 insertion, -1 deletion */
	int64_t offset;           /* the host's step at step_mono */
	int64_t step_mono;
	int tai_before;           /* TAI - UTC before the leap, s */
	int64_t end_mono;
	/* Where kernel truth comes from (see "kernel truth" below):
	 * VJ_TRUTH_KTAI, the kernel's TAI (the run set and stepped it);
	 * VJ_TRUTH_RAW, the kernel's own REALTIME as it ran before the leap,
	 * continued through the leap and chronyd's correction of it: at
	 * CLOCK_MONOTONIC_RAW k, k + raw_off + (k - raw_a) * rate_ppb / 1e9,
	 * the kernel's REALTIME at raw_a (just before the leap) and its rate
	 * against MONOTONIC_RAW over the 2 s before. The orchestrator
	 * measures them there and writes VJ_TRUTH_FILE, so such a face keeps
	 * its samples and judges them at its end (vj_replay); VJ_TRUTH_SMEAR, the kernel's
	 * REALTIME (its TAI less tai_before) plus the known smear offset
	 * at that instant: a linear smear from count smear_c0 over
	 * smear_wsi SI ns, absorbing the leap's second. */
	int truth;
	int64_t raw_off, smear_c0, smear_wsi, raw_a, rate_ppb;
	/* 0: the host is disciplined by chronyd (MONOTONIC is slewed with
	 * it): only kernel truth judges, the run's plan is not used */
	int plan;
	int64_t ktol; /* kerr allowed, ns (VJ_KTOL unless given) */
};

enum { VJ_TRUTH_KTAI = 0, VJ_TRUTH_RAW = 1, VJ_TRUTH_SMEAR = 2 };

#define VJ_TRUTH_FILE "/tmp/vm-truth"

/* A sample kept for vj_replay: kind 0 a reading (vj_kreading's
 * arguments), 1 a bound (vj_kbound's). */
struct vj_rec {
	int kind, clk;
	int64_t v[9];
};

struct vj_timer {
	const char *name;
	int64_t deadline; /* on its own clock, ns (UTC: s*1e9 + nsec) */
	int64_t woke;     /* its clock at wake-up, INT64_MIN if not */
	int64_t woke_mono;
	int64_t true_mono; /* MONOTONIC at which kernel truth reaches it */
	int64_t woke_k;    /* the kernel's raw CLOCK_TAI sampled by the
	                    * face after the wake-up (vj_ktai), or
	                    * INT64_MIN for none */
	int64_t ktrue;     /* kernel truth's count (see vj_kreading) at the
	                    * deadline */
};

/* A timer's clock, for its true instant. */
enum { VJ_RT, VJ_TAI, VJ_UTC };

struct vj {
	struct vj_cfg c;
	int64_t t_true, t_host; /* the leap's instant, true and the host's */
	/* the last judged reading */
	int have;
	int64_t pm1, pm2, prt, ptai, putc_s, putc_ns;
	/* counts */
	int64_t reads, judged, split, max_gap, last_m;
	int64_t stale, steps, bad_steps, utc60, utc_bad, utc_back;
	int64_t tai_jumps, max_err_host, max_err_tai, max_err_true;
	int64_t first_stale_mono;
	int saw_step;
	int64_t follow_ns; /* from the step to the first reading within
	                    * 0.2 ms of the host's ideal time; -1 never */
	const char *fail_note; /* a face's own reason to fail, or NULL */
	int64_t bracket_max;   /* widest bracket judged */
	int no_tai;            /* the face has no TAI reading */
	int64_t min_judged;    /* fewer judged readings fail the face */
	int ntimers;
	struct vj_timer timers[VJ_MAX_TIMERS];
	/* against the kernel truth the face sampled itself */
	int ksampled; /* the face sampled truth (vj_kreading) */
	int64_t kjudged, kerr, kerr_mono;
	const char *kerr_clock;
	/* kernel truth's previous bracket (TAI continuity without a plan) */
	int khave;
	int64_t pk1, pk2, pktai, ktai_jumps;
	/* the face serves a smear of true UTC (a smear:* NTP socket): its
	 * REALTIME is judged against that smear of truth, no step */
	int expect_smear;
	/* the face judges TAI only (a writer left undeclared) */
	int tai_only;
	/* bounds (lc_gettime_bounds, an NTP reply's root distance) against
	 * kernel truth: judged, missed (truth outside), unknown (no bound
	 * claimed), the widest half-width, the worst miss */
	int64_t bjudged, bmiss, bunknown, bwidth, bmiss_by;
	const char *bmiss_clock;
	/* VJ_TRUTH_RAW: the samples, judged at the end */
	int defer, replaying, keep_cur;
	int64_t keep_last_m;
	struct vj_rec *recs;
	size_t nrec, caprec;
};

/* the clock kernel truth is sampled on (vj_init sets it per face) */
static clockid_t vj_kclock = CLOCK_TAI;

static inline int64_t vj_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * VJ_NS + ts.tv_nsec;
}

static inline int64_t vj_ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * VJ_NS + ts->tv_nsec;
}

/* "--set-rt N --set-mono N --boundary S --dir D --offset N --step-mono N
 *  --tai N --end-mono N", as vm_face.c `run` passes them. 0 on success. */
static inline int vj_parse(struct vj_cfg *c, int argc, char **argv, int *i)
{
	c->plan = 1;
	c->ktol = VJ_KTOL;
	for (; *i + 1 < argc; *i += 2) {
		const char *k = argv[*i];
		long long v = strtoll(argv[*i + 1], NULL, 10);

		if (strcmp(k, "--set-rt") == 0)
			c->set_rt = v;
		else if (strcmp(k, "--set-mono") == 0)
			c->set_mono = v;
		else if (strcmp(k, "--boundary") == 0)
			c->boundary_s = v;
		else if (strcmp(k, "--dir") == 0)
			c->dir = (int)v;
		else if (strcmp(k, "--offset") == 0)
			c->offset = v;
		else if (strcmp(k, "--step-mono") == 0)
			c->step_mono = v;
		else if (strcmp(k, "--tai") == 0)
			c->tai_before = (int)v;
		else if (strcmp(k, "--end-mono") == 0)
			c->end_mono = v;
		else if (strcmp(k, "--truth") == 0)
			c->truth = (int)v;
		else if (strcmp(k, "--raw-off") == 0)
			c->raw_off = v;
		else if (strcmp(k, "--smear-c0") == 0)
			c->smear_c0 = v;
		else if (strcmp(k, "--smear-wsi") == 0)
			c->smear_wsi = v;
		else if (strcmp(k, "--plan") == 0)
			c->plan = (int)v;
		else if (strcmp(k, "--ktol") == 0)
			c->ktol = v;
		else
			break;
	}
	return c->dir == 1 || c->dir == -1 ? 0 : -1;
}

static inline void vj_init(struct vj *j, const struct vj_cfg *c)
{
	memset(j, 0, sizeof(*j));
	j->c = *c;
	j->t_true = c->set_mono + (c->boundary_s * VJ_NS - c->set_rt);
	j->t_host = j->t_true - c->offset;
	j->first_stale_mono = -1;
	j->follow_ns = -1;
	j->bracket_max = VJ_BRACKET_MAX;
	j->min_judged = 1000;
	if (j->c.ktol == 0)
		j->c.ktol = VJ_KTOL;
	vj_kclock = c->truth == VJ_TRUTH_RAW ? CLOCK_MONOTONIC_RAW : CLOCK_TAI;
	j->defer = c->truth == VJ_TRUTH_RAW;
	/* a disciplined host's run judges a few seconds around the leap */
	if (!c->plan)
		j->min_judged = 400;
}

/* VJ_TRUTH_RAW is measured over the 2 s before raw_a: readings before are
 * not judged against it (the kernel's REALTIME then is where chronyd put
 * it, which a line fitted later does not say). */
static inline int vj_kbefore(const struct vj *j, int64_t k)
{
	return j->c.truth == VJ_TRUTH_RAW && k < j->c.raw_a - 2 * VJ_NS;
}

/* Keeps a sample for vj_replay; 1 if kept (the caller returns). */
static inline int vj_keep(struct vj *j, int kind, int clk, const int64_t *v,
                          int n)
{
	struct vj_rec *r;

	if (!j->defer || j->replaying)
		return 0;
	/* one reading (and its bounds) each 0.2 ms at most: a face in a
	 * tight loop would keep millions */
	if (kind == 0) {
		j->keep_cur = j->keep_last_m == 0 || v[1] - j->keep_last_m >= 200000;
		if (j->keep_cur)
			j->keep_last_m = v[1];
	}
	if (!j->keep_cur)
		return 1;
	if (j->nrec == j->caprec) {
		size_t cap = j->caprec ? 2 * j->caprec : 65536;
		struct vj_rec *p;

		if (cap > (size_t)1 << 21)
			return 1; /* bounded (160 MB) */
		p = (struct vj_rec *)realloc(j->recs, cap * sizeof(*p));
		if (p == NULL)
			return 1;
		j->recs = p;
		j->caprec = cap;
	}
	r = &j->recs[j->nrec++];
	r->kind = kind;
	r->clk = clk;
	memcpy(r->v, v, (size_t)n * sizeof(*v));
	return 1;
}

/* The host's ideal POSIX time at MONOTONIC m (after the step). */
static inline int64_t vj_host_rt(const struct vj *j, int64_t m)
{
	int64_t v = j->c.set_rt + (m - j->c.set_mono) + j->c.offset;

	return m >= j->t_host ? v - j->c.dir * VJ_NS : v;
}

static inline int64_t vj_true_rt(const struct vj *j, int64_t m)
{
	int64_t v = j->c.set_rt + (m - j->c.set_mono);

	return m >= j->t_true ? v - j->c.dir * VJ_NS : v;
}

/* TAI does not leap: the host's ideal TAI at m. */
static inline int64_t vj_host_tai(const struct vj *j, int64_t m)
{
	return j->c.set_rt + (m - j->c.set_mono) + j->c.offset +
	       (int64_t)j->c.tai_before * VJ_NS;
}

/* Distance of v from [lo, hi]. */
static inline int64_t vj_dist(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo - v : v > hi ? v - hi : 0;
}

static inline void vj_max(int64_t *m, int64_t v)
{
	if (v > *m)
		*m = v;
}

/* One reading: REALTIME rt, TAI tai (ns), UTC as (sec, nsec in [0, 2e9))
 * or utc_s = INT64_MIN for none, between MONOTONIC m1 and m2. */
static inline void vj_reading(struct vj *j, int64_t m1, int64_t rt,
                              int64_t tai, int64_t utc_s, int64_t utc_ns,
                              int64_t m2)
{
	int64_t b = j->c.boundary_s * VJ_NS, gap;
	int straddles;

	j->reads++;
	if (j->last_m != 0)
		vj_max(&j->max_gap, m1 - j->last_m);
	j->last_m = m2;
	if (j->follow_ns < 0 && m1 >= j->c.step_mono && m2 - m1 <= j->bracket_max &&
	    m2 < j->t_host - VJ_TOL &&
	    vj_dist(rt, vj_host_rt(j, m1), vj_host_rt(j, m2)) <= 200000)
		j->follow_ns = m1 - j->c.step_mono;
	if (m1 < j->c.step_mono + VJ_SETTLE || m2 > j->c.end_mono)
		return;
	if (m2 - m1 > j->bracket_max) {
		j->split++;
		return;
	}
	j->judged++;
	if (!j->c.plan)
		goto planless;
	/* stale: insertion, 00:00:00.x before the repeat; deletion, inside
	 * the deleted second */
	if ((j->c.dir > 0 && !j->saw_step && rt >= b) ||
	    (j->c.dir < 0 && rt >= b && rt < b + VJ_NS)) {
		j->stale++;
		if (j->first_stale_mono < 0)
			j->first_stale_mono = m1;
	}
	straddles = m1 <= j->t_host + VJ_TOL && m2 >= j->t_host - VJ_TOL;
	if (!straddles) {
		vj_max(&j->max_err_host,
		       vj_dist(rt, vj_host_rt(j, m1), vj_host_rt(j, m2)));
		if (m1 > j->t_true + (j->c.dir > 0 ? VJ_NS : 0) + VJ_SETTLE)
			vj_max(&j->max_err_true, vj_dist(rt, vj_true_rt(j, m1),
			                                 vj_true_rt(j, m2)));
	}
	if (!j->no_tai)
		vj_max(&j->max_err_tai,
		       vj_dist(tai, vj_host_tai(j, m1), vj_host_tai(j, m2)));
	if (utc_s != INT64_MIN && utc_ns >= VJ_NS) {
		j->utc60++;
		/* 23:59:60 only as the second after boundary - 1, and only
		 * while the host's ideal clock is inside it */
		if (j->c.dir < 0 || utc_s != j->c.boundary_s - 1 ||
		    m2 < j->t_host - VJ_TOL || m1 > j->t_host + VJ_NS + VJ_TOL)
			j->utc_bad++;
	} else if (utc_s != INT64_MIN && j->c.dir > 0 && !straddles &&
	           m1 > j->t_host + VJ_TOL && m2 < j->t_host + VJ_NS - VJ_TOL) {
		j->utc_bad++; /* inside the inserted second, not 23:59:60 */
	}
planless:
	if (!j->have) {
		j->have = 1;
		goto keep;
	}
	gap = m2 - j->pm1;
	if (utc_s != INT64_MIN &&
	    (utc_s < j->putc_s || (utc_s == j->putc_s && utc_ns < j->putc_ns)))
		j->utc_back++;
	if (!j->no_tai && j->c.plan) {
		/* TAI against MONOTONIC between the two readings */
		int64_t dt = tai - j->ptai, lo = m1 - j->pm2, hi = m2 - j->pm1;
		int64_t slack = 100000 + hi / 1000;

		if (dt < lo - slack || dt > hi + slack)
			j->tai_jumps++;
	}
	/* a step: REALTIME moved half a second beyond what MONOTONIC allows
	 * between the two readings (a reader descheduled for longer than
	 * that, common under emulation, is no step) */
	if ((j->c.dir > 0 && rt - j->prt < (m1 - j->pm2) - VJ_NS / 2) ||
	    (j->c.dir < 0 && rt - j->prt > gap + VJ_NS / 2)) {
		int64_t from = j->prt, to = rt;
		int64_t target = b - j->c.dir * VJ_NS;

		j->steps++;
		j->saw_step = 1;
		/* at its own boundary: from before it to just after the other
		 * side, within the readings' spacing */
		if (from >= b || to < target || to - target > gap + 200000)
			j->bad_steps++;
	}
keep:
	j->pm1 = m1;
	j->pm2 = m2;
	j->prt = rt;
	j->ptai = tai;
	j->putc_s = utc_s;
	j->putc_ns = utc_ns;
}

/* ---- kernel truth, sampled by the face itself (issue 28 item 2) ----------
 * Each face reads the VM kernel's own CLOCK_TAI with a raw system call (no
 * vDSO symbol, so neither the shim nor the library can stand in for it)
 * just before and just after each of its readings, and after each timer's
 * wake-up. The kernel's TAI does not move at the kernel's leap (its
 * REALTIME steps and its TAI offset changes by the same second, at its
 * tick, or not at all when unarmed), but follows every step and slew of
 * the host, so TAI minus the TAI-UTC offset the orchestrator set is
 * "truth's count": the kernel's REALTIME before the leap, continued
 * through it. Truth's REALTIME is that count with the leap at the exact
 * instant the count reaches the boundary (for an insertion, back by a
 * second; for a deletion, forward), truth's UTC shows 23:59:60 for the
 * inserted second, and truth's TAI is the kernel's TAI. Each reading is
 * judged from its own bracket of truth: max |reading - truth| (kerr, over
 * REALTIME, TAI and UTC; REALTIME and UTC readings within VJ_TOL of the
 * boundary are not judged, where a clock off by less may read either
 * side)
 * must stay within VJ_KTOL, and no timer may wake before truth's count
 * reaches its deadline (kearly: the largest earliness, negative when every
 * timer was late by at least that much). */

static inline int64_t vj_ktai(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, vj_kclock, &ts);
	return (int64_t)ts.tv_sec * VJ_NS + ts.tv_nsec;
}

/* A linear smear from count c0 over wsi SI ns absorbing dir seconds:
 * the smeared clock at count c, and its inverse (google: c0 noon before
 * the leap, wsi 86400 +- 1 s; minute: the 60 SI s ending at midnight). */
static inline int64_t vj_smear_of(const struct vj_cfg *c, int64_t t)
{
	int64_t x = t - c->smear_c0;

	if (x <= 0)
		return t;
	if (x >= c->smear_wsi)
		return t - c->dir * VJ_NS;
	return t - (int64_t)((double)c->dir * VJ_NS * (double)x /
	                     (double)c->smear_wsi);
}

static inline int64_t vj_unsmear(const struct vj_cfg *c, int64_t s)
{
	int64_t x = s - c->smear_c0, w = c->smear_wsi - c->dir * VJ_NS;

	if (x <= 0)
		return s;
	if (x >= w)
		return s + c->dir * VJ_NS;
	return c->smear_c0 +
	       (int64_t)((double)x * (double)c->smear_wsi / (double)w);
}

/* Truth's count from a sample of vj_kclock. */
static inline int64_t vj_kcount(const struct vj *j, int64_t k)
{
	if (j->c.truth == VJ_TRUTH_RAW)
		return k + j->c.raw_off +
		       (int64_t)((double)(k - j->c.raw_a) * (double)j->c.rate_ppb /
		                 1e9);
	k -= (int64_t)j->c.tai_before * VJ_NS;
	return j->c.truth == VJ_TRUTH_SMEAR ? vj_unsmear(&j->c, k) : k;
}

/* A truth bracket may be this much wider than the face's own. */
#define VJ_KSLACK INT64_C(50000)

/* Truth's REALTIME at truth's count t. */
static inline int64_t vj_k_rt(const struct vj *j, int64_t t)
{
	return t >= j->c.boundary_s * VJ_NS ? t - j->c.dir * VJ_NS : t;
}

/* The truth count at which UTC (sec, nsec in [0, 2e9)) is read. */
static inline int64_t vj_k_utc(const struct vj *j, int64_t s, int64_t ns)
{
	int64_t v = s * VJ_NS + ns;

	if (ns >= VJ_NS)
		return v; /* 23:59:60.x is the count boundary + x */
	return v >= j->c.boundary_s * VJ_NS ? v + j->c.dir * VJ_NS : v;
}

/* Truth's count when clock clk reads `deadline` (VJ_UTC: the (sec, nsec)
 * key), the first time. */
static inline int64_t vj_k_deadline(const struct vj *j, int clk,
                                    int64_t deadline)
{
	if (clk == VJ_TAI)
		return deadline - (int64_t)j->c.tai_before * VJ_NS;
	if (clk == VJ_UTC)
		return vj_k_utc(j, deadline / (2 * VJ_NS), deadline % (2 * VJ_NS));
	return deadline >= j->c.boundary_s * VJ_NS ? deadline + j->c.dir * VJ_NS
	                                           : deadline;
}

static inline void vj_kerr(struct vj *j, const char *clk, int64_t d,
                           int64_t m)
{
	if (d > j->kerr) {
		j->kerr = d;
		j->kerr_clock = clk;
		j->kerr_mono = m;
	}
}

/* One reading, as vj_reading, with the kernel's raw TAI k1 sampled just
 * before m1 and k2 just after m2. */
static inline void vj_kreading(struct vj *j, int64_t k1, int64_t m1,
                               int64_t rt, int64_t tai, int64_t utc_s,
                               int64_t utc_ns, int64_t m2, int64_t k2)
{
	int64_t b = j->c.boundary_s * VJ_NS;
	int64_t t1, t2, tai_off = (int64_t)j->c.tai_before * VJ_NS;
	const int64_t v[8] = {k1, m1, rt, tai, utc_s, utc_ns, m2, k2};

	if (vj_keep(j, 0, 0, v, 8))
		return;
	t1 = vj_kcount(j, k1);
	t2 = vj_kcount(j, k2);
	vj_reading(j, m1, rt, tai, utc_s, utc_ns, m2);
	j->ksampled = 1;
	if (m1 < j->c.step_mono + VJ_SETTLE || m2 > j->c.end_mono ||
	    k2 - k1 > j->bracket_max + VJ_KSLACK || k2 < k1 || vj_kbefore(j, k1))
		return;
	j->kjudged++;
	if (!j->no_tai && !j->c.plan) {
		/* TAI continuous against truth between two readings */
		if (j->khave) {
			int64_t dt = tai - j->pktai, lo = t1 - vj_kcount(j, j->pk2);
			int64_t hi = t2 - vj_kcount(j, j->pk1);

			/* 0.1 ms, and 0.1 % of the interval (a face left to
			 * follow a slewing host undeclared: 10 %, a step
			 * detector) */
			int64_t slack = 100000 + (hi > 0 ? hi : 0) /
			                             (j->tai_only ? 10 : 1000);

			if (dt < lo - slack || dt > hi + slack)
				j->ktai_jumps++;
		}
		j->khave = 1;
		j->pk1 = k1;
		j->pk2 = k2;
		j->pktai = tai;
	}
	if (j->tai_only)
		return;
	if (!j->no_tai)
		vj_kerr(j, "tai", vj_dist(tai, t1 + tai_off, t2 + tai_off), m1);
	if (j->expect_smear) {
		vj_kerr(j, "smeared",
		        vj_dist(rt, vj_smear_of(&j->c, t1), vj_smear_of(&j->c, t2)),
		        m1);
		return;
	}
	if (!j->c.plan && utc_s != INT64_MIN) {
		/* 23:59:60 only while truth is inside it, and there always */
		int in60 = utc_ns >= VJ_NS;

		if ((in60 && (j->c.dir < 0 || t2 < b - VJ_TOL ||
		              t1 > b + VJ_NS + VJ_TOL)) ||
		    (!in60 && j->c.dir > 0 && t1 > b + VJ_TOL &&
		     t2 < b + VJ_NS - VJ_TOL))
			j->utc_bad++;
		if (in60)
			j->utc60++;
	}
	if (!j->c.plan && rt >= b && ((j->c.dir > 0 && t2 < b - VJ_TOL) ||
	                              (j->c.dir < 0 && rt < b + VJ_NS))) {
		j->stale++; /* 00:00:00.x before the repeat, or the deleted s */
		if (j->first_stale_mono < 0)
			j->first_stale_mono = m1;
	}
	if (t2 + VJ_TOL < b || t1 - VJ_TOL > b) {
		vj_kerr(j, "realtime",
		        vj_dist(rt, vj_k_rt(j, t1), vj_k_rt(j, t2)), m1);
		if (utc_s != INT64_MIN)
			vj_kerr(j, "utc", vj_dist(vj_k_utc(j, utc_s, utc_ns), t1, t2),
			        m1);
	}
}

/* Truth's count at REALTIME value r: the first (last: the latest of a
 * bound, which covers both 23:59:59s of an insertion) instant reading it;
 * a deleted second's values map to the boundary. */
static inline int64_t vj_k_from_rt(const struct vj *j, int64_t r, int last)
{
	int64_t b = j->c.boundary_s * VJ_NS;

	if (j->c.dir > 0)
		return last && r >= b - VJ_NS ? r + VJ_NS : r;
	return r >= b + VJ_NS ? r - VJ_NS : r >= b ? b : r;
}

/* One bound of clock clk (VJ_RT, VJ_TAI, VJ_UTC: (sec, nsec) as
 * vj_k_utc takes them), [e, l] in the clock's own convention, half-width
 * w, status st (0: none claimed), read between truth samples k1 and k2:
 * truth must lie in it (the intervals meet). */
static inline void vj_kbound(struct vj *j, int clk, int64_t k1, int64_t e_s,
                             int64_t e_ns, int64_t l_s, int64_t l_ns,
                             int64_t w, int st, int64_t k2, int64_t m1)
{
	int64_t t1, t2, lo, hi, miss;
	static const char *const names[3] = {"realtime", "tai", "utc"};
	const int64_t v[9] = {k1, e_s, e_ns, l_s, l_ns, w, st, k2, m1};

	if (vj_keep(j, 1, clk, v, 9))
		return;
	t1 = vj_kcount(j, k1);
	t2 = vj_kcount(j, k2);

	if (m1 < j->c.step_mono + VJ_SETTLE || m1 > j->c.end_mono ||
	    k2 - k1 > j->bracket_max + VJ_KSLACK || k2 < k1 || vj_kbefore(j, k1))
		return;
	if (st == 0) {
		j->bunknown++;
		return;
	}
	j->bjudged++;
	vj_max(&j->bwidth, w);
	if (clk == VJ_TAI) {
		lo = e_s * VJ_NS + e_ns - (int64_t)j->c.tai_before * VJ_NS;
		hi = l_s * VJ_NS + l_ns - (int64_t)j->c.tai_before * VJ_NS;
	} else if (clk == VJ_UTC) {
		lo = vj_k_utc(j, e_s, e_ns);
		hi = vj_k_utc(j, l_s, l_ns);
	} else if (j->expect_smear) {
		/* a smeared clock has no repeat: its inverse */
		struct vj_cfg c = j->c;

		lo = vj_unsmear(&c, e_s * VJ_NS + e_ns);
		hi = vj_unsmear(&c, l_s * VJ_NS + l_ns);
	} else {
		lo = vj_k_from_rt(j, e_s * VJ_NS + e_ns, 0);
		hi = vj_k_from_rt(j, l_s * VJ_NS + l_ns, 1);
	}
	miss = lo > t2 ? lo - t2 : t1 > hi ? t1 - hi : 0;
	if (miss > 0) {
		j->bmiss++;
		if (miss > j->bmiss_by) {
			j->bmiss_by = miss;
			j->bmiss_clock = names[clk];
		}
	}
}

/* VJ_TRUTH_RAW: reads the truth the orchestrator measured ("raw_off
 * rate_ppb raw_a" in VJ_TRUTH_FILE) and judges the kept samples. */
static inline void vj_replay(struct vj *j)
{
	FILE *f;
	long long a = 0, b = 0, c = 0;
	int ok = 0;

	if (!j->defer)
		return;
	for (int k = 0; k < 300 && !ok; k++) { /* it is written at the leap */
		f = fopen(VJ_TRUTH_FILE, "r");
		if (f != NULL) {
			ok = fscanf(f, "%lld %lld %lld", &a, &b, &c) == 3;
			fclose(f);
		}
		if (!ok)
			usleep(10000);
	}
	if (!ok) {
		j->fail_note = "no-truth-measured";
		return;
	}
	j->c.raw_off = a;
	j->c.rate_ppb = b;
	j->c.raw_a = c;
	j->replaying = 1;
	for (size_t k = 0; k < j->nrec; k++) {
		const struct vj_rec *r = &j->recs[k];
		const int64_t *v = r->v;

		if (r->kind == 0)
			vj_kreading(j, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
		else
			vj_kbound(j, r->clk, v[0], v[1], v[2], v[3], v[4], v[5],
			          (int)v[6], v[7], v[8]);
	}
	free(j->recs);
	j->recs = NULL;
	j->nrec = 0;
}

/* The MONOTONIC instant at which kernel truth (the host's ideal clock,
 * see above) reaches `deadline` on clock `clk` (VJ_UTC: the (sec, nsec)
 * key, nsec >= 1e9 inside 23:59:60). */
static inline int64_t vj_true_mono(const struct vj *j, int clk,
                                   int64_t deadline)
{
	/* MONOTONIC minus POSIX time on the pre-leap timeline */
	int64_t base = j->c.set_mono - j->c.set_rt - j->c.offset;
	int64_t m;

	if (clk == VJ_TAI)
		return deadline - (int64_t)j->c.tai_before * VJ_NS + base;
	if (clk == VJ_UTC) {
		int64_t s = deadline / (2 * VJ_NS), ns = deadline % (2 * VJ_NS);

		if (ns >= VJ_NS)
			return j->t_host + (ns - VJ_NS);
		deadline = s * VJ_NS + ns;
	}
	m = deadline + base;
	/* at or after the leap: an insertion reaches it a second later, a
	 * deletion a second sooner */
	return m >= j->t_host ? m + j->c.dir * VJ_NS : m;
}

static inline struct vj_timer *vj_timer_add(struct vj *j, const char *name,
                                            int clk, int64_t deadline)
{
	struct vj_timer *t = &j->timers[j->ntimers++];

	t->name = name;
	t->deadline = deadline;
	t->woke = INT64_MIN;
	t->true_mono = vj_true_mono(j, clk, deadline);
	t->woke_k = INT64_MIN;
	t->ktrue = vj_k_deadline(j, clk, deadline);
	return t;
}

/* Prints the face's verdict line and returns 0 if it passed (or is not
 * judged). */
static inline int vj_report(const struct vj *j, const char *face, int judged,
                            const char *extra)
{
	char why[512] = "", kearly_s[32];
	size_t n = 0;
	int early = 0, unfired = 0, early_true = 0;
	int64_t late = 0, vs_true = INT64_MAX, kearly = INT64_MIN;

#define VJ_WHY(...)                                                         \
	n += (size_t)snprintf(why + n, n < sizeof(why) ? sizeof(why) - n : 0, \
	                      __VA_ARGS__)
	for (int k = 0; k < j->ntimers; k++) {
		const struct vj_timer *t = &j->timers[k];

		if (t->woke == INT64_MIN) {
			unfired++;
			VJ_WHY(" %s-unfired", t->name);
		} else if (t->woke < t->deadline) {
			early++;
			VJ_WHY(" %s-early-%.3fms", t->name,
			       (double)(t->deadline - t->woke) / 1e6);
		} else if (t->woke - t->deadline > late) {
			late = t->woke - t->deadline;
		}
		if (t->woke == INT64_MIN)
			continue;
		if (t->woke_mono - t->true_mono < vs_true)
			vs_true = t->woke_mono - t->true_mono;
		if (j->c.plan && t->woke_mono < t->true_mono) {
			early_true++;
			VJ_WHY(" %s-early-vs-plan-%.3fms", t->name,
			       (double)(t->true_mono - t->woke_mono) / 1e6);
		}
		if (t->woke_k != INT64_MIN) {
			int64_t e = t->ktrue - vj_kcount(j, t->woke_k);

			vj_max(&kearly, e);
			if (e > VJ_KEARLY_TOL) {
				VJ_WHY(" %s-early-vs-kernel-truth-%.3fms", t->name,
				       (double)e / 1e6);
			}
		}
	}
	if (kearly == INT64_MIN)
		snprintf(kearly_s, sizeof(kearly_s), "none");
	else
		snprintf(kearly_s, sizeof(kearly_s), "%.3fms",
		         (double)kearly / 1e6);
	if (j->fail_note != NULL)
		VJ_WHY(" %s", j->fail_note);
	if (j->judged < j->min_judged)
		VJ_WHY(" few-readings");
	if (j->stale)
		VJ_WHY(" stale");
	if (j->steps != (j->expect_smear || j->tai_only ? j->steps : 1) ||
	    (j->expect_smear && j->steps != 0))
		VJ_WHY(" steps=%" PRId64, j->steps);
	if (j->bad_steps)
		VJ_WHY(" step-off-boundary");
	if (!j->tai_only &&
	    (j->utc_bad || j->utc_back ||
	     (j->c.dir > 0 && j->utc60 == 0 && strstr(face, "lib"))))
		VJ_WHY(" utc");
	if (j->tai_jumps)
		VJ_WHY(" tai-jumps=%" PRId64, j->tai_jumps);
	if (j->ktai_jumps)
		VJ_WHY(" tai-jumps-vs-truth=%" PRId64, j->ktai_jumps);
	if (j->c.plan && j->max_err_host > VJ_TOL)
		VJ_WHY(" host-err");
	if (j->c.plan && j->max_err_tai > VJ_TOL)
		VJ_WHY(" tai-err");
	if (j->c.plan && j->max_err_true > VJ_TOL + llabs(j->c.offset))
		VJ_WHY(" true-err");
	if (j->ksampled && j->kjudged < j->min_judged / 2)
		VJ_WHY(" few-truth-readings=%" PRId64, j->kjudged);
	if (j->bmiss)
		VJ_WHY(" bounds-miss-kernel-truth=%" PRId64 "-%s-by-%.3fms",
		       j->bmiss, j->bmiss_clock, (double)j->bmiss_by / 1e6);
	if (j->kerr > j->c.ktol)
		VJ_WHY(" %s-off-kernel-truth-%.3fms-at-%+.3fs", j->kerr_clock,
		       (double)j->kerr / 1e6,
		       (double)(j->kerr_mono - j->t_host) / 1e9);
#undef VJ_WHY
	printf("LC-FACE %s %s reads=%" PRId64 " judged=%" PRId64
	       " split=%" PRId64 " gap=%.3fms stale=%" PRId64
	       " steps=%" PRId64 " utc60=%" PRId64 " taijumps=%" PRId64
	       " err_host=%.3fms err_tai=%.3fms err_true=%.3fms timers=%d"
	       " early=%d late=%.3fms early_plan=%d vs_plan=%.3fms"
	       " kjudged=%" PRId64 " kerr=%.3fms kearly=%s"
	       " bounds=%" PRId64 "/%" PRId64 "/%" PRId64 " bwidth=%.3fms"
	       " follow=%.3fms%s%s%s\n",
	       face, !judged ? "INFO" : n ? "FAIL" : "PASS", j->reads,
	       j->judged, j->split, (double)j->max_gap / 1e6, j->stale,
	       j->steps, j->utc60, j->tai_jumps,
	       (double)j->max_err_host / 1e6, (double)j->max_err_tai / 1e6,
	       (double)j->max_err_true / 1e6, j->ntimers - unfired, early,
	       (double)late / 1e6, early_true,
	       vs_true == INT64_MAX ? 0.0 : (double)vs_true / 1e6,
	       j->kjudged, (double)j->kerr / 1e6,
	       kearly_s, j->bmiss, j->bjudged, j->bunknown,
	       (double)j->bwidth / 1e6,
	       (double)j->follow_ns / 1e6,
	       extra ? " " : "", extra ? extra : "",
	       n && judged ? " why:" : "");
	if (n && judged)
		printf("LC-WHY %s%s\n", face, why);
	fflush(stdout);
	return judged && n ? 1 : 0;
}

#endif
