/*
 * tk_follow.c - following the host's CLOCK_REALTIME (DESIGN.md 7), the
 * timekeeper's side: sampling the host between two counter reads, the
 * inputs of the decision (hostfollow.c, pure), and carrying out what it
 * decides (a rate steer, or a step followed as a clock-was-set on the
 * continuous timeline). Part of the writer (tk_writer.h); its entry
 * points are in tk_follow.h.
 */
#include "tk_follow.h"

#include "hostcall.h"
#include "tk_writer.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Host samples per update, the tightest kept, and the widest accepted. */
#define FOLLOW_TRIES          8
#define FOLLOW_TRIES_MAX      64
#define FOLLOW_MAX_BRACKET_NS 20000
#define FOLLOW_LEAP_WINDOW    (2 * 86400 * LC__NS)

/* One sample of the host: the simulated one configured, else this host's:
 * the kernel's facts and step signal where it has them for a timekeeper
 * that follows the host; for one that does not (it samples only to start
 * REALTIME at the host's) the REALTIME reading alone, in ns, the same one
 * clock_gettime gives (adjtimex's time has us resolution without
 * STA_NANO), and no process-wide step timerfd or adjtimex call. */
int lc__tk_host_sample(const struct lc_timekeeper *tk,
                       struct lc_host_sample *hs)
{
	struct timespec ts;

	if (tk->cfg.host_sample != NULL) {
		memset(hs, 0, sizeof(*hs));
		return tk->cfg.host_sample(tk->cfg.host_arg, hs);
	}
	if (tk->cfg.host_realtime != NULL) {
		memset(hs, 0, sizeof(*hs));
		hs->realtime_ns = tk->cfg.host_realtime(tk->cfg.host_arg);
		return 0;
	}
	if (tk->cfg.follow_host)
		return lc__hostclock_sample(hs);
	memset(hs, 0, sizeof(*hs));
	if (lc__host.clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	hs->realtime_ns = lc__ts_to_ns(&ts);
	return 0;
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

/* The host sample between two counter reads (a preemption in between
 * would bias it): the tightest of FOLLOW_TRIES, and of up to
 * FOLLOW_TRIES_MAX while every bracket was wider than a quarter of
 * FOLLOW_MAX_BRACKET_NS, but never one older than a step signal another
 * showed. *mid is the counter at the bracket's middle, *width_ns its
 * width at the counter's nominal rate. -1 if no sample could be had. */
int lc__tk_sample_bracketed(const struct lc_timekeeper *tk,
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
		rc = lc__tk_host_sample(tk, &hv);
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

static void mode_status(struct lc_timekeeper *tk);

static int64_t expected_host(const struct lc_timekeeper *tk, int64_t rt,
                             int64_t mono_now);

/* The REALTIME whose declared smear the host shows as `host`: the inverse
 * of expected_host, by fixed point (a smear's slope is far below 1, so
 * each round shrinks the error by that factor: ns within a dozen). No
 * declared smear: `host` itself. */
static int64_t unsmear_host(const struct lc_timekeeper *tk, int64_t host,
                            int64_t mono)
{
	int64_t rt = host;

	if (tk->cfg.host_smear == NULL)
		return host;
	for (int i = 0; i < 16; i++) {
		int64_t n = host + (rt - expected_host(tk, rt, mono));

		if (n == rt)
			break;
		rt = n;
	}
	return rt;
}

/* The host following's starting point: what it learns from the sample
 * that set REALTIME at creation (MONOTONIC is already set). Returns the
 * REALTIME to start from: the host's, less a declared smear under way
 * (a writer started inside the smear's window would otherwise take the
 * smeared host for true UTC and hold that offset as a leap off). */
int64_t lc__tk_prime_follow(struct lc_timekeeper *tk,
                            const struct lc_host_sample *hs)
{
	struct lc__hf_input in;
	int64_t rt = unsmear_host(tk, hs->realtime_ns, tk->s.mono);
	int32_t tai;

	host_input(&in, hs);
	in.mono_ns = tk->s.mono;
	if (lc__tkw_table_tai(tk, lc__fdiv(rt, LC__NS), 0, &tai) < 0)
		tai = 0;
	in.tai_utc = tai;
	lc__hf_prime(&tk->hf, &in, tk->cfg.host_smear == NULL);
	mode_status(tk);
	/* lc_tk_new's offs_tai, as lc__tkw_sync_table_tai() leaves it */
	tk->hf_offs_tai = rt - tk->s.mono + (int64_t)tai * LC__NS;
	tk->hf_offs_tai_valid = 1;
	return rt;
}

/* The host's REALTIME, which lc_tk_new starts from (s->mono is set). When
 * following the host, that sample is also the first one the decision
 * learns from: REALTIME is set to the host's, so the learnt offset is 0
 * (unless a declared host smear is under way), TAI-UTC the table's, and
 * the kernel's state and step count are the baselines. */
int64_t lc__tk_host_realtime(struct lc_timekeeper *tk)
{
	struct lc_host_sample hs;
	struct timespec ts;

	if (tk->cfg.follow_host && lc__tk_host_sample(tk, &hs) == 0)
		return lc__tk_prime_follow(tk, &hs);
	if (tk->cfg.host_realtime != NULL)
		return tk->cfg.host_realtime(tk->cfg.host_arg);
	if (tk->cfg.host_sample != NULL && lc__tk_host_sample(tk, &hs) == 0)
		return hs.realtime_ns;
	lc__host.clock_gettime(CLOCK_REALTIME, &ts);
	return lc__ts_to_ns(&ts);
}

/* The value the host should show at REALTIME `rt` if it follows the
 * declared smear: rt minus the smear offset (relative to the pre-leap
 * timeline) around the nearest table leap. */
static int64_t expected_host_by(const struct lc_timekeeper *tk,
                                const struct lc_smear_policy *p, int64_t rt,
                                int64_t mono_now)
{
	const struct lc__tk_snap *s = &tk->s;
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
	if (lc_leaptable_next(tk->table, in_repeat ? sec - 1 : sec, &next) ==
	        0 &&
	    (next.when - (next.dir > 0 ? 0 : 1)) * LC__NS - rt <
	        FOLLOW_LEAP_WINDOW) {
		int64_t at =
		    (next.dir > 0 ? next.when : next.when - 1) * LC__NS;

		if (in_repeat)
			pre = rt + LC__NS;
		else
			pre = rt;
		t_rel = pre - at;
		return pre - lc_smear_offset(p, next.dir, t_rel);
	}
	if (lc_leaptable_prev(tk->table, sec, &prev) == 0 &&
	    rt - prev.when * LC__NS < FOLLOW_LEAP_WINDOW) {
		int64_t at =
		    (prev.dir > 0 ? prev.when : prev.when - 1) * LC__NS;

		pre = rt + prev.dir * LC__NS;
		t_rel = pre - at;
		return pre - lc_smear_offset(p, prev.dir, t_rel);
	}
	return rt;
}

static int64_t expected_host(const struct lc_timekeeper *tk, int64_t rt,
                             int64_t mono_now)
{
	return expected_host_by(tk, tk->cfg.host_smear, rt, mono_now);
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
		lc__tkw_step_to(tk, mono_now,
		                lc__tk_realtime_at(s, mono_now) + r);
		return;
	}
	if (in_leap)
		nsec = lc__fmod(v, LC__NS) + LC__NS;
	v -= (int64_t)tai * LC__NS;
	lc__tkw_step_to(tk, mono_now, v);
	if (in_leap)
		lc__tkw_enter_leap_second(tk, mono_now, v, nsec);
}

/* The decision's input for sample `hs` taken at counter `mid`. */
static void follow_input(struct lc_timekeeper *tk,
                         const struct lc_host_sample *hs, uint64_t mid,
                         struct lc__hf_input *in)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t m, rt;

	m = s->mono + (int64_t)lc__cyc2ns(mid, s->cycle_last, s->mult, s->frac,
	                                  s->shift_max);
	rt = lc__tk_realtime_at(s, m);

	host_input(in, hs);
	in->expected_ns = expected_host(tk, rt, m);
	in->mono_ns = m;
	/* TAI is continuous, so TAI - REALTIME at the sample is our TAI-UTC
	 * with the leap applied at its instant. */
	in->tai_utc =
	    (int32_t)lc__fdiv(m + s->offs_tai - rt + LC__NS / 2, LC__NS);
	in->smeared = in->expected_ns != rt;
	in->host_smear = tk->cfg.host_smear != NULL;
	in->near_leap = near_table_leap(tk, rt);
	in->leap_ahead = 0;
	in->leap_in_ns = 0;
	if (s->leap_dir != 0 && m < s->leap_mono) {
		in->leap_ahead = (int)s->leap_dir;
		in->leap_in_ns = s->leap_mono - m;
	}
	in->mode = tk->cfg.host_leap;
	in->ours_set = tk->hf_offs_tai_valid && s->offs_tai != tk->hf_offs_tai;
	in->step_ns = tk->cfg.host_step_ns;
}

/* How long a held move waits for its step signal on this host: Linux
 * cancels the CANCEL_ON_SET timerfds microseconds after it set the clock
 * (an IPI to every CPU between), a busy VM later. */
#define FOLLOW_SIGNAL_TRIES 20
#define FOLLOW_SIGNAL_WAIT_NS 100000

/* The decision held an unsignalled move: on this host (not a simulated
 * one, which cannot change under us), sample again a few times, briefly,
 * for the signal the kernel may be about to give. 1 with *hs, *mid the
 * sample that has it. */
static int await_signal(struct lc_timekeeper *tk, struct lc_host_sample *hs,
                        uint64_t *mid)
{
	if (tk->cfg.host_sample != NULL || tk->cfg.host_realtime != NULL)
		return 0;
	for (int i = 0; i < FOLLOW_SIGNAL_TRIES; i++) {
		struct timespec d = { 0, FOLLOW_SIGNAL_WAIT_NS };
		struct lc_host_sample hv;
		uint64_t mv;
		int64_t w;

		nanosleep(&d, NULL);
		if (lc__tk_sample_bracketed(tk, &hv, &mv, &w) < 0)
			continue;
		if (hv.clock_was_set != hs->clock_was_set) {
			*hs = hv;
			*mid = mv;
			return 1;
		}
	}
	return 0;
}

/* The detection's presets, loaded once. */
static void detect_presets(struct lc_timekeeper *tk)
{
	const char *const *names = lc_smear_preset_names();
	int n = 0;

	if (tk->hd_npresets > 0)
		return;
	for (int i = 0; names[i] != NULL && n < LC__HD_PRESETS; i++)
		if (lc_smear_preset(names[i], 0, &tk->hd_presets[n], NULL) == 0)
			tk->hd_names[n++] = names[i];
	tk->hd_npresets = n;
}

/* Detection (hostdetect.c), in kernel mode: what the host's phase looks
 * like around a table leap. Said once: in the status (and so the page,
 * the log and metrics), on stderr for the in-process writer. */
static void detect(struct lc_timekeeper *tk, const struct lc__hf_input *in,
                   const struct lc__hf_output *out, int64_t learnt,
                   int64_t rt)
{
	struct lc__hd_input di;

	if (tk->cfg.host_leap != LC_HOST_LEAP_KERNEL ||
	    tk->hd.kind != LC_HOST_DETECT_NONE)
		return;
	memset(&di, 0, sizeof(di));
	di.near_leap = in->near_leap;
	if (in->near_leap) {
		detect_presets(tk);
		di.npresets = tk->hd_npresets;
		di.names = tk->hd_names;
		for (int i = 0; i < di.npresets; i++)
			di.smear_ns[i] =
			    expected_host_by(tk, &tk->hd_presets[i], rt,
			                     in->mono_ns) -
			    rt;
	}
	di.d_ns = in->host_ns - rt;
	di.mono_ns = in->mono_ns;
	di.learnt_ns = learnt;
	di.steered_ns = tk->hf.win_active ? tk->hf.win_ns : 0;
	di.gap = out->closed ? out->gap_before : out->gap;
	di.closed_step = out->closed == 2;
	if (lc__hd_update(&tk->hd, &di) != 1)
		return;
	tk->host.detected = tk->hd.kind;
	snprintf(tk->host.detected_text, sizeof(tk->host.detected_text), "%s",
	         tk->hd.text);
	if (tk->hd_stderr)
		fprintf(stderr,
		        "leapclock: the host's clock looks like %s around the "
		        "leap second (not followed: UTC and TAI stay true); "
		        "declare it with LEAPCLOCK_HOST_LEAP=%s\n",
		        tk->hd.text, tk->hd.text);
}

/* What the host's mode adds to the bound (bnd.mode_ns): while the host is
 * no reference (held), the bound when that began grown at the drift rate;
 * else, near a leap undeclared, how far the host moved since the window
 * began (a smear we do not know of may have carried us that far). */
static void mode_bound(struct lc_timekeeper *tk, const struct lc__hf_output *out,
                       int64_t mono)
{
	if (out->held) {
		int64_t el;

		if (!tk->hold_on) {
			tk->hold_on = 1;
			tk->hold_mono = mono;
			tk->hold_err0 = tk->bnd.have ? tk->bnd.err_ns : 0;
		}
		el = mono - tk->hold_mono;
		tk->bnd.mode_ns =
		    tk->hold_err0 +
		    (int64_t)((__int128)el * LC_BOUNDS_DRIFT_PPB / LC__NS) + 1;
		tk->host.hold_ns = el;
		return;
	}
	tk->hold_on = 0;
	tk->host.hold_ns = 0;
	tk->bnd.mode_ns = out->unknown_ns;
}

void lc__tk_follow_report_stderr(struct lc_timekeeper *tk)
{
	pthread_mutex_lock(&tk->lock);
	tk->hd_stderr = 1;
	pthread_mutex_unlock(&tk->lock);
}

/* The declared mode's text (lc_host_leap_format). */
static void mode_text(const struct lc_timekeeper *tk, char *buf, size_t n)
{
	struct lc_host_leap_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.mode = tk->cfg.host_leap;
	sp.slew_ppb = tk->cfg.host_slew_ppb == LC_HOST_SLEW_DEFAULT_PPB
	                  ? 0
	                  : tk->cfg.host_slew_ppb;
	if (tk->cfg.host_smear != NULL)
		sp.smear = *tk->cfg.host_smear;
	if (lc_host_leap_format(&sp, buf, n) < 0)
		buf[0] = '\0';
}

/* The declared mode as the status shows it. */
static void mode_status(struct lc_timekeeper *tk)
{
	tk->host.host_leap = tk->cfg.host_leap;
	mode_text(tk, tk->host.host_leap_text, sizeof(tk->host.host_leap_text));
}

void lc__tk_follow_host(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;
	struct lc_host_sample hs;
	struct lc__hf_input in;
	struct lc__hf_output out;
	struct lc__hf_state before;
	uint64_t mid;
	int64_t width, rt;

	mode_status(tk);
	if (lc__tk_sample_bracketed(tk, &hs, &mid, &width) < 0)
		return; /* no sample: run on as we are */
	/* A bracket wider than FOLLOW_MAX_BRACKET_NS (the thread was
	 * preempted, a VM's vCPU stolen, in every try) could put the host's
	 * reading anywhere in it: steering on it would move our clock by
	 * that noise. Run on as we are; the next update samples again. A
	 * step is still followed then, later by one update. */
	if (width > FOLLOW_MAX_BRACKET_NS &&
	    hs.clock_was_set == tk->hf_last_cws)
		return;
	follow_input(tk, &hs, mid, &in);
	tk->hf.i_ppb = tk->steer_i_ppb; /* lc__tk_resume may seed it */
	before = tk->hf;
	rt = lc__tk_realtime_at(s, in.mono_ns);
	lc__hf_update(&tk->hf, &in, &out);
	if (out.resample && await_signal(tk, &hs, &mid)) {
		/* the signal came: decide again from the later sample */
		tk->hf = before;
		follow_input(tk, &hs, mid, &in);
		rt = lc__tk_realtime_at(s, in.mono_ns);
		lc__hf_update(&tk->hf, &in, &out);
	}
	detect(tk, &in, &out, before.off_ns, rt);
	tk->hf_last_cws = hs.clock_was_set;
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
	mode_bound(tk, &out, in.mono_ns);
	lc__bnd_sample(tk, &hs, width, in.mono_ns);
}

int lc_tk_host_status(const lc_timekeeper *tk, struct lc_tk_host *st)
{
	if (tk == NULL)
		return LC_EINVAL;
	struct lc_timekeeper *w = (struct lc_timekeeper *)tk;

	if (st == NULL)
		return LC_EINVAL;
	if (!tk->cfg.follow_host) {
		/* not following (a rehearsal): the declared mode only */
		memset(st, 0, sizeof(*st));
		st->host_leap = tk->cfg.host_leap;
		mode_text(tk, st->host_leap_text, sizeof(st->host_leap_text));
		return LC_ENOENT;
	}
	pthread_mutex_lock(&w->lock);
	*st = tk->host;
	pthread_mutex_unlock(&w->lock);
	return 0;
}
