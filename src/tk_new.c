/*
 * tk_new.c - a timekeeper's creation (the counter's starting point, the
 * host's REALTIME, TAI-UTC, a smear already under way), and its hand-over
 * to and from a timeline page (lc__tk_publish_to, lc__tk_read_from,
 * lc__tk_resume). Part of the writer (tk_writer.h).
 */
#include "tk_writer.h"

#include "tk_follow.h"

#include <stdlib.h>
#include <string.h>

void lc_tk_config_init(struct lc_tk_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->leap_source = LC_LEAP_FROM_ADJTIMEX;
	cfg->initial_tai_offset = -1;
#ifdef LC_DEFAULT_REALTIME_SMEARED
	cfg->realtime_smeared = 1;
#endif
}

static int config_ok(const struct lc_tk_config *cfg)
{
	if (cfg->leap_source != LC_LEAP_FROM_ADJTIMEX &&
	    cfg->leap_source != LC_LEAP_FROM_TABLE)
		return 0;
	if (cfg->initial_tai_offset < -1 || cfg->initial_tai_offset > 100000)
		return 0;
	if (cfg->host_leap < LC_HOST_LEAP_KERNEL ||
	    cfg->host_leap > LC_HOST_LEAP_IGNORE ||
	    (cfg->host_leap == LC_HOST_LEAP_SMEAR && cfg->host_smear == NULL) ||
	    cfg->host_slew_ppb < 0 || cfg->host_slew_ppb > 100000000)
		return 0;
	if (cfg->host_smear != NULL &&
	    lc_smear_validate(cfg->host_smear, NULL) != 0)
		return 0;
	return cfg->smear == NULL || lc_smear_validate(cfg->smear, NULL) == 0;
}

/* A zeroed timekeeper with its configuration, counter, table and lock. */
static struct lc_timekeeper *tk_alloc(lc_counter *counter,
                                      const struct lc_tk_config *cfg)
{
	struct lc_timekeeper *tk;

	tk = aligned_alloc(64, (sizeof(*tk) + 63) / 64 * 64);
	if (tk == NULL)
		return NULL;
	memset(tk, 0, sizeof(*tk));
	tk->cfg = *cfg;
	if (cfg->smear == NULL)
		tk->cfg.realtime_smeared = 0;
	/* host_smear with the default mode is a smearing host (as before
	 * host_leap); the other modes keep the true UTC of their upstream */
	if (tk->cfg.host_leap == LC_HOST_LEAP_KERNEL && cfg->host_smear != NULL)
		tk->cfg.host_leap = LC_HOST_LEAP_SMEAR;
	else if (tk->cfg.host_leap != LC_HOST_LEAP_SMEAR)
		tk->cfg.host_smear = NULL;
	if (tk->cfg.host_leap == LC_HOST_LEAP_SLEW &&
	    tk->cfg.host_slew_ppb == 0)
		tk->cfg.host_slew_ppb = LC_HOST_SLEW_DEFAULT_PPB;
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
			return NULL;
		}
		tk->table = tk->own_table;
	}
	pthread_mutex_init(&tk->lock, NULL);
	return tk;
}

/* What lc__tk_resume() needs and does not rebuild: the shift for the
 * counter, the flags the snapshot carries for ever, the nominal raw rate. */
static void fixed_state(struct lc_timekeeper *tk)
{
	unsigned maxbits;

	lc__tkw_choose_shift(tk->counter->freq, &tk->shift, &maxbits);
	tk->s.shift_max = tk->shift | (uint64_t)maxbits << 8;
	tk->s.flags = (tk->cfg.smear ? LC__TKF_SMEAR : 0) |
	              (tk->cfg.realtime_smeared ? LC__TKF_RT_SMEARED : 0);
	tk->raw_mq = lc__tkw_rate_to_mq(tk, LC__TK_RATE_NOMINAL);
}

/* The starting point: the counter value, MONOTONIC and MONOTONIC_RAW at
 * it, and the REALTIME to start from, which it returns. */
static int64_t start_point(struct lc_timekeeper *tk)
{
	struct lc__tk_snap *s = &tk->s;
	lc_counter *counter = tk->counter;
	struct lc_host_sample hs0;
	int have_hs0 = 0;
	uint64_t c0;

	c0 = lc__counter_read(counter);
	if (counter->kind != LC_COUNTER_SIM) {
		/* The host's REALTIME at c0, from a bracketed sample, after
		 * one that sets the sampler up (its first call may open a
		 * timerfd: tens of us). */
		int64_t width;

		(void)lc__tk_host_sample(tk, &hs0);
		if (lc__tk_sample_bracketed(tk, &hs0, &c0, &width) == 0)
			have_hs0 = 1;
		else
			c0 = lc__counter_read(counter);
	}
	s->cycle_last = c0;
	/* MONOTONIC and MONOTONIC_RAW start at the counter's own value at
	 * the nominal rate (the host's uptime for system and tsc; 0 for a
	 * sim counter at true time 0). */
	s->mono =
	    (int64_t)((unsigned __int128)c0 * (uint64_t)LC__NS / counter->freq);
	s->raw_mono = s->mono;
	if (counter->kind == LC_COUNTER_SIM && !tk->cfg.follow_host)
		return tk->cfg.initial_realtime_ns + s->mono;
	if (have_hs0) {
		if (tk->cfg.follow_host)
			return lc__tk_prime_follow(tk, &hs0);
		return hs0.realtime_ns;
	}
	return lc__tk_host_realtime(tk);
}

int lc_tk_new(lc_timekeeper **out, lc_counter *counter,
              const struct lc_tk_config *cfg)
{
	struct lc_tk_config def;
	struct lc_timekeeper *tk;
	struct lc__tk_snap *s;
	int64_t rt0;
	int32_t tai = 0;

	if (out == NULL || counter == NULL)
		return LC_EINVAL;
	if (cfg == NULL) {
		lc_tk_config_init(&def);
		cfg = &def;
	}
	if (!config_ok(cfg))
		return LC_EINVAL;
	tk = tk_alloc(counter, cfg);
	if (tk == NULL)
		return LC_ENOMEM;
	s = &tk->s;
	fixed_state(tk);
	rt0 = start_point(tk);
	s->offs_real = rt0 - s->mono;
	s->offs_boot = 0;
	lc__tk_sched_init(&tk->sched, s, tk->cfg.smear, lc__tkw_table_mode(tk));

	lc__ntp_init(&tk->ntp);
	if (cfg->initial_tai_offset >= 0)
		tai = cfg->initial_tai_offset;
	else if (lc__tkw_table_tai(tk, lc__fdiv(rt0, LC__NS), 0, &tai) < 0)
		tai = 0;
	tk->ntp.tai_offset = tai;
	s->offs_tai = s->offs_real + (int64_t)tai * LC__NS;
	tk->next_sec = lc__fdiv(rt0, LC__NS) + 1;
	lc__tkw_table_arm_now(tk);

	lc__tkw_set_rate(tk);
	if (tk->cfg.follow_host)
		tk->host.state = LC_HOST_AGREES;
	lc__tk_sched_prev_leap(&tk->sched, tk->table, rt0);
	lc__tkw_rearm(tk, s->mono);
	tk->last_update_mono = s->mono;
	lc__tkw_publish(tk);
	*out = tk;
	return 0;
}

int lc__tk_new_reader(lc_timekeeper **out, lc_counter *counter,
                      const struct lc_tk_config *cfg,
                      const struct lc__tk_latch *l,
                      void (*update)(lc_timekeeper *tk, void *arg), void *arg)
{
	struct lc_timekeeper *tk;

	if (out == NULL || counter == NULL || cfg == NULL || l == NULL)
		return LC_EINVAL;
	if (!config_ok(cfg))
		return LC_EINVAL;
	tk = tk_alloc(counter, cfg);
	if (tk == NULL)
		return LC_ENOMEM;
	fixed_state(tk);
	if (tk->cfg.follow_host)
		tk->host.state = LC_HOST_AGREES; /* as the page's writer is */
	tk->reader = 1;
	tk->reader_update = update;
	tk->reader_arg = arg;
	atomic_store_explicit(&tk->pub.latch, l, memory_order_release);
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

void lc__tk_publish_to(lc_timekeeper *tk, struct lc__tk_latch *l)
{
	pthread_mutex_lock(&tk->lock);
	tk->wlatch = l;
	lc__tkw_publish(tk);
	atomic_store_explicit(&tk->pub.latch, l, memory_order_release);
	pthread_mutex_unlock(&tk->lock);
}

void lc__tk_read_from(lc_timekeeper *tk, const struct lc__tk_latch *l,
                      void (*update)(lc_timekeeper *tk, void *arg), void *arg)
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
	s->raw_mono =
	    ps.raw_mono + (int64_t)lc__cyc2ns(c0, ps.cycle_last, ps.raw_mult,
	                                      ps.raw_frac, ps.shift_max);
	s->raw_frac = 0;
	s->offs_real = rt0 - mono0;
	s->offs_tai = ps.offs_tai;
	s->offs_sls = s->offs_real;
	s->offs_boot = ps.offs_boot;
	s->cws_seq = ps.cws_seq;
	lc__tk_sched_init(&tk->sched, s, tk->cfg.smear, lc__tkw_table_mode(tk));
	lc__ntp_init(&tk->ntp);
	tk->ntp.tai_offset =
	    (int32_t)lc__fdiv(ps.offs_tai - s->offs_real + LC__NS / 2, LC__NS);
	tk->next_sec = lc__fdiv(rt0, LC__NS) + 1;
	tk->err = 0;
	tk->raw_err = 0;
	/* Run on at the page's rate: the steering it had is the counter's
	 * error against the host (and the host following corrects it from
	 * here on). */
	nominal = (int64_t)(lc__tkw_rate_to_mq(tk, LC__TK_RATE_NOMINAL) >> 32);
	ppb = nominal > 0
	          ? (int64_t)(((__int128)ps.mult - nominal) * LC__NS / nominal)
	          : 0;
	if (ppb > LC__HF_MAX_I_PPB)
		ppb = LC__HF_MAX_I_PPB;
	if (ppb < -LC__HF_MAX_I_PPB)
		ppb = -LC__HF_MAX_I_PPB;
	tk->steer_ppb = tk->steer_i_ppb = ppb;
	lc__tkw_set_rate(tk);
	lc__tk_sched_prev_leap(&tk->sched, tk->table, rt0);
	lc__tkw_rearm(tk, mono0);
	tk->last_update_mono = mono0;
	tk->wlatch = to != NULL ? to : &tk->own;
	tk->reader = 0;
	lc__tkw_publish(tk);
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
