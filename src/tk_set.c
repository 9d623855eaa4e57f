/*
 * tk_set.c - setting the time: lc_settime() (into an inserted 23:59:60
 * too), lc_adjtimex() (the NTP state machine of ntp.c under the
 * timekeeper's catch-up, ADJ_SETOFFSET, the table owning TAI-UTC), and the
 * adjtimex answer from a published snapshot alone. Part of the writer
 * (tk_writer.h).
 */
#include "tk_writer.h"

#include <string.h>

/* After any step of REALTIME (offs_real already moved): NTP cleared as
 * Linux does, the next boundary recomputed, the smear schedule told
 * (lc__tk_sched_after_step()), the step counted. */
static void after_step(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;

	lc__tk_sched_after_step(&tk->sched, s, mono_now);
	lc__ntp_clear(&tk->ntp);
	if (lc__tkw_table_mode(tk) && tk->ntp.time_state != LC_TIME_OK) {
		/* Linux keeps an armed state that then never fires (ref
		 * 2.6); with the table in charge, start over from TIME_OK,
		 * from which the table re-arms at once for the new time
		 * (lc__tkw_table_arm_now, below). So too from
		 * TIME_OOP/TIME_WAIT: a step back out of 23:59:60 (or to
		 * before a leap just applied) must meet that leap again, and
		 * TIME_WAIT, which STA_INS from the table holds, would never
		 * insert it. (lc_settime into 23:59:60 sets TIME_OOP after
		 * this.) */
		tk->ntp.time_state = LC_TIME_OK;
		tk->ntp.next_leap_sec = INT64_MAX;
	}
	tk->next_sec = lc__fdiv(mono_now + s->offs_real, LC__NS) + 1;
	lc__tkw_table_arm_now(tk);
	s->leap_folded = 0;
	s->leap_dir = 0;
	s->leap_mono = INT64_MAX;
	s->cws_seq++;
}

/* After offs_real moved: the step's consequences, TAI with REALTIME. */
static void stepped(struct lc_timekeeper *tk, int64_t mono_now)
{
	struct lc__tk_snap *s = &tk->s;

	after_step(tk, mono_now);
	lc__tkw_sync_table_tai(tk, mono_now);
	s->offs_tai = s->offs_real + (int64_t)tk->ntp.tai_offset * LC__NS;
}

void lc__tkw_step_to(struct lc_timekeeper *tk, int64_t mono_now, int64_t new_rt)
{
	tk->s.offs_real = new_rt - mono_now;
	stepped(tk, mono_now);
}

void lc__tkw_enter_leap_second(struct lc_timekeeper *tk, int64_t mono_now,
                               int64_t v, int64_t nsec)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t w = lc__fdiv(v, LC__NS) + 1;
	int32_t tai;

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

int lc_settime(lc_timekeeper *tk, lc_clock_id id, const struct timespec *ts)
{
	if (tk == NULL)
		return LC_EINVAL;
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
	if (id != LC_CLOCK_REALTIME && id != LC_CLOCK_UTC && id != LC_CLOCK_TAI)
		return LC_EINVAL;
	if (nsec >= LC__NS &&
	    lc_leaptable_leap_at(tk->table, (int64_t)ts->tv_sec) <= 0)
		return LC_ENOTLEAP;

	pthread_mutex_lock(&tk->lock);
	mono = lc__tkw_advance(tk);
	v = (int64_t)ts->tv_sec * LC__NS + nsec;
	if (id == LC_CLOCK_TAI) {
		if (lc__tkw_table_mode(tk) || tk->cfg.follow_host) {
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
	lc__tkw_step_to(tk, mono, v);
	if (in_leap)
		lc__tkw_enter_leap_second(tk, mono, v, nsec);
out:
	/* (on an error too: the catch-up is published, no reading changes) */
	lc__tkw_finish(tk);
	pthread_mutex_unlock(&tk->lock);
	return rc;
}

/* The read-path leap override of Linux 4.2 (ref 2.3), from the exact
 * state: after the catch-up the state machine has already moved at the
 * boundary, so these only fire if it has not. Returns the state to
 * answer. */
static int leap_override(const struct lc_timekeeper *tk, struct lc_timex *tx,
                         int64_t sec, int rc)
{
	if (sec < tk->ntp.next_leap_sec)
		return rc;
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
	if (tk->ntp.time_state == LC_TIME_OOP && sec == tk->ntp.next_leap_sec)
		rc = LC_TIME_WAIT;
	return rc;
}

/* ADJ_SETOFFSET: steps REALTIME by tx->time (us, or ns with ADJ_NANO);
 * LC_EINVAL, nothing changed, if that overflows or goes below
 * MONOTONIC. */
static int set_offset(struct lc_timekeeper *tk, const struct lc_timex *tx,
                      int64_t mono)
{
	struct lc__tk_snap *s = &tk->s;
	int64_t unit = (tx->modes & LC_ADJ_NANO) ? 1 : 1000, delta;

	if (__builtin_mul_overflow(tx->time.tv_sec, LC__NS, &delta) ||
	    __builtin_add_overflow(delta, tx->time.tv_usec * unit, &delta) ||
	    s->offs_real + delta < 0)
		return LC_EINVAL;
	s->offs_real += delta;
	stepped(tk, mono);
	return 0;
}

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
	mono = lc__tkw_advance(tk);
	if ((tx->modes & LC_ADJ_SETOFFSET) && set_offset(tk, tx, mono) < 0) {
		/* Linux: EINVAL if REALTIME would be invalid or below
		 * MONOTONIC; nothing changes (the catch-up is published: it
		 * changes no reading). */
		lc__tkw_finish(tk);
		pthread_mutex_unlock(&tk->lock);
		return LC_EINVAL;
	}
	/* REALTIME sampled once the offset is applied (Linux samples it
	 * after timekeeping_inject_offset()). */
	rt = lc__tk_realtime_at(s, mono);
	sec = lc__fdiv(rt, LC__NS);
	nsec = lc__fmod(rt, LC__NS);
	tai_before = tk->ntp.tai_offset;
	rc = lc__ntp_adjtimex(&tk->ntp, tx, sec, &tai_changed);
	if (lc__tkw_table_mode(tk) && tk->ntp.tai_offset != tai_before) {
		/* The table owns TAI-UTC (chrony's leapsectz): ADJ_TAI is
		 * read back but not applied. */
		tk->ntp.tai_offset = tai_before;
		tx->tai = tai_before;
		tai_changed = 0;
	}
	if (tai_changed) {
		s->offs_tai =
		    s->offs_real + (int64_t)tk->ntp.tai_offset * LC__NS;
		s->cws_seq++;
	}
	tx->time.tv_sec = sec;
	tx->time.tv_usec =
	    (tk->ntp.time_status & LC_STA_NANO) ? nsec : nsec / 1000;
	if (rc >= 0)
		rc = leap_override(tk, tx, sec, rc);
	/* A new rate (frequency, tick, offset) applies from this instant. */
	lc__tkw_finish(tk);
	pthread_mutex_unlock(&tk->lock);
	return rc;
}

/* The adjtimex answer from the published snapshot alone: the leap state
 * (LC_TIME_INS/DEL from the start of the leap's UTC day, OOP during an
 * inserted 23:59:60, WAIT for the second after), its LC_STA_INS/DEL bit,
 * TAI-UTC and the time (s). For a reader of a page, whose writer runs the
 * state machine elsewhere. It says TIME_INS for the leap's whole UTC day
 * (as Linux under an NTP daemon that set STA_INS, and a table-driven
 * writer, which arms it at the day's first boundary or at its creation
 * inside the day: lc__tkw_table_arm_now), and TIME_WAIT
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
