/*
 * sim_trace.c - reader 0's trace (`leapclock simulate --trace`): its
 * CLOCK_REALTIME readings around the leap, one line per distinct
 * microsecond, and the reproducer timer's firing. Written while the run
 * replays its events.
 */
#include "sim_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Trace                                                                     */
/* ------------------------------------------------------------------------ */

static void fmt_tod(char *buf, size_t size, int64_t ns)
{
	int64_t sec = lc__fdiv(ns, LC__NS), sod = lc__fmod(sec, 86400);

	snprintf(buf, size, "%02d:%02d:%02d.%06d", (int)(sod / 3600),
	         (int)(sod / 60 % 60), (int)(sod % 60),
	         (int)(lc__fmod(ns, LC__NS) / 1000));
}

/* True UTC at t as text, with 23:59:60. */
static void fmt_true_utc(const struct lc__sim *s, char *buf, size_t size,
                         int64_t t)
{
	int64_t key = true_utc_key(s, t);
	int64_t sec = lc__fdiv(key, 2 * LC__NS),
	        nsec = lc__fmod(key, 2 * LC__NS);

	if (nsec >= LC__NS)
		snprintf(buf, size, "23:59:60.%06d",
		         (int)((nsec - LC__NS) / 1000));
	else
		fmt_tod(buf, size, sec * LC__NS + nsec);
}

void lc__sim_trace_end_line(struct lc__sim *s)
{
	if (s->tr_line_open) {
		fputc('\n', s->cfg.trace);
		s->tr_line_open = 0;
	}
}

static int in_trace(const struct lc__sim *s, int64_t t)
{
	for (size_t k = 0; k < s->ntw; k++)
		if (t >= s->tw[2 * k] && t <= s->tw[2 * k + 1])
			return 1;
	return 0;
}

void lc__sim_trace_read(struct lc__sim *s, int64_t t, int64_t j, int64_t rt)
{
	FILE *f = s->cfg.trace;
	int64_t us = lc__fdiv(rt, US), sec = lc__fdiv(rt, LC__NS);
	char buf[32];

	if (!in_trace(s, t))
		return;
	if (s->tr_have && !s->tr_force && us == s->tr_us && j == s->tr_j + 1) {
		fputc('.', f);
		s->tr_j = j;
		return;
	}
	lc__sim_trace_end_line(s);
	if (s->tr_have && j != s->tr_j + 1)
		fprintf(f, "...\n");
	if (s->tr_have && sec > s->tr_sec)
		fprintf(f, "+++\n");
	if (s->tr_have && rt < s->tr_rt)
		fprintf(f, "---\n");
	fmt_tod(buf, sizeof(buf), rt);
	fprintf(f, "%s ", buf);
	s->tr_line_open = 1;
	s->tr_force = 0;
	s->tr_have = 1;
	s->tr_us = us;
	s->tr_sec = sec;
	s->tr_rt = rt;
	s->tr_j = j;
}

void lc__sim_timer_fired(struct lc__sim *s, int i, int64_t t)
{
	struct timer *tm = &s->tm[i];
	char due[32], now[32];
	int64_t d;

	tm->fire_t = t;
	if (i != 0 || s->cfg.trace == NULL)
		return;
	lc__sim_trace_end_line(s);
	fmt_true_utc(s, now, sizeof(now), t);
	fmt_true_utc(s, due, sizeof(due), tm->due_t);
	d = tm->due_t - t;
	fprintf(s->cfg.trace,
	        "timer (REALTIME 00:00:00) fired at true %s, due "
	        "at %s: %s %" PRId64 ".%06" PRId64 " s\n",
	        now, due, d > 0 ? "early by" : "late by",
	        (d > 0 ? d : -d) / LC__NS, (d > 0 ? d : -d) % LC__NS / 1000);
	/* the next reading starts a new line */
	s->tr_force = 1;
}

void lc__sim_add_window(struct lc__sim *s, int64_t x)
{
	int64_t *p;

	if (x < 0 || x == NEVER)
		return;
	p = realloc(s->tw, (s->ntw + 1) * 2 * sizeof(*p));
	if (p == NULL) {
		s->oom = 1;
		return;
	}
	s->tw = p;
	p[2 * s->ntw] = x - 20 * US;
	p[2 * s->ntw + 1] = x + 20 * US;
	s->ntw++;
}

/* Sorts the trace windows and merges those less than 2.5 ms apart, so that
 * a stale window of a few ticks prints in full. */
void lc__sim_merge_windows(struct lc__sim *s)
{
	size_t k, m = 0;

	for (k = 1; k < s->ntw; k++) /* insertion sort, a handful */
		for (size_t q = k; q > 0 && s->tw[2 * q] < s->tw[2 * q - 2];
		     q--) {
			int64_t a = s->tw[2 * q], b = s->tw[2 * q + 1];
			s->tw[2 * q] = s->tw[2 * q - 2];
			s->tw[2 * q + 1] = s->tw[2 * q - 1];
			s->tw[2 * q - 2] = a;
			s->tw[2 * q - 1] = b;
		}
	for (k = 0; k < s->ntw; k++) {
		if (m > 0 && s->tw[2 * k] <= s->tw[2 * m - 1] + 5 * MS / 2) {
			if (s->tw[2 * k + 1] > s->tw[2 * m - 1])
				s->tw[2 * m - 1] = s->tw[2 * k + 1];
			continue;
		}
		s->tw[2 * m] = s->tw[2 * k];
		s->tw[2 * m + 1] = s->tw[2 * k + 1];
		m++;
	}
	s->ntw = m;
}


void lc__sim_trace_begin(struct lc__sim *s)
{
	char name[48];

	lc__sim_model_name(&s->cfg, name, sizeof(name));
	fprintf(s->cfg.trace,
	        "# %s, %s, HZ=%d%s: CLOCK_REALTIME as reader 0 reads it "
	        "around the leap (true UTC 23:59:60 starts at the "
	        "first +++ after 23:59:59).\n# One line per distinct "
	        "microsecond, a dot per repeated reading; +++ the "
	        "second increased, --- time went back, ... readings "
	        "left out.\n",
	        name, s->dir > 0 ? "insertion" : "deletion", s->cfg.hz,
	        s->cfg.nohz ? " NOHZ" : "");
}
