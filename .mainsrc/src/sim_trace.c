/*
 * sim_trace.c - the windows of reader 0's trace (`leapclock simulate
 * --trace`): around the leap, its application and the reproducer timer,
 * reader 0's CLOCK_REALTIME readings are told to the run's tracer (struct
 * lc__sim_tracer, sim.h), which prints them (tools/leapclock/simtrace.c).
 */
#include "sim_impl.h"

#include <stdlib.h>
#include <string.h>

static int in_trace(const struct lc__sim *s, int64_t t)
{
	for (size_t k = 0; k < s->ntw; k++)
		if (t >= s->tw[2 * k] && t <= s->tw[2 * k + 1])
			return 1;
	return 0;
}

void lc__sim_trace_read(struct lc__sim *s, int64_t t, int64_t j, int64_t rt)
{
	if (in_trace(s, t))
		s->cfg.trace->read(s->cfg.trace->arg, j, rt);
}

void lc__sim_timer_fired(struct lc__sim *s, int i, int64_t t)
{
	struct timer *tm = &s->tm[i];

	tm->fire_t = t;
	if (i != 0 || s->cfg.trace == NULL)
		return;
	s->cfg.trace->timer(s->cfg.trace->arg, true_utc_key(s, t),
	                    true_utc_key(s, tm->due_t), tm->due_t - t);
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
	s->cfg.trace->begin(s->cfg.trace->arg, name, s->dir, s->cfg.hz,
	                    s->cfg.nohz);
}
