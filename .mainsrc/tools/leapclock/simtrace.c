/*
 * simtrace.c - reader 0's trace as `leapclock simulate --trace` prints it
 * (simprint.h): CLOCK_REALTIME as reader 0 reads it around the leap, one
 * line per distinct microsecond with a dot per repeated reading; "+++"
 * where the second increased, "---" where time went back, "..." where
 * readings were left out; and the reproducer timer's firing.
 */
#include "simprint.h"

#include "internal.h"

#include <inttypes.h>
#include <string.h>

static void fmt_tod(char *buf, size_t size, int64_t ns)
{
	int64_t sec = lc__fdiv(ns, LC__NS), sod = lc__fmod(sec, 86400);

	snprintf(buf, size, "%02d:%02d:%02d.%06d", (int)(sod / 3600),
	         (int)(sod / 60 % 60), (int)(sod % 60),
	         (int)(lc__fmod(ns, LC__NS) / 1000));
}

/* A UTC key (sec * 2e9 + nsec) as text, with 23:59:60. */
static void fmt_utc_key(char *buf, size_t size, int64_t key)
{
	int64_t sec = lc__fdiv(key, 2 * LC__NS),
	        nsec = lc__fmod(key, 2 * LC__NS);

	if (nsec >= LC__NS)
		snprintf(buf, size, "23:59:60.%06d",
		         (int)((nsec - LC__NS) / 1000));
	else
		fmt_tod(buf, size, sec * LC__NS + nsec);
}

static void end_line(struct lc_cli_sim_trace *tr)
{
	if (tr->line_open) {
		fputc('\n', tr->f);
		tr->line_open = 0;
	}
}

static void tr_begin(void *arg, const char *model, int dir, int hz, int nohz)
{
	struct lc_cli_sim_trace *tr = arg;

	fprintf(tr->f,
	        "# %s, %s, HZ=%d%s: CLOCK_REALTIME as reader 0 reads it "
	        "around the leap (true UTC 23:59:60 starts at the "
	        "first +++ after 23:59:59).\n# One line per distinct "
	        "microsecond, a dot per repeated reading; +++ the "
	        "second increased, --- time went back, ... readings "
	        "left out.\n",
	        model, dir > 0 ? "insertion" : "deletion", hz,
	        nohz ? " NOHZ" : "");
}

static void tr_read(void *arg, int64_t j, int64_t rt)
{
	struct lc_cli_sim_trace *tr = arg;
	int64_t us = lc__fdiv(rt, 1000), sec = lc__fdiv(rt, LC__NS);
	char buf[32];

	if (tr->have && !tr->force && us == tr->us && j == tr->j + 1) {
		fputc('.', tr->f);
		tr->j = j;
		return;
	}
	end_line(tr);
	if (tr->have && j != tr->j + 1)
		fprintf(tr->f, "...\n");
	if (tr->have && sec > tr->sec)
		fprintf(tr->f, "+++\n");
	if (tr->have && rt < tr->rt)
		fprintf(tr->f, "---\n");
	fmt_tod(buf, sizeof(buf), rt);
	fprintf(tr->f, "%s ", buf);
	tr->line_open = 1;
	tr->force = 0;
	tr->have = 1;
	tr->us = us;
	tr->sec = sec;
	tr->rt = rt;
	tr->j = j;
}

static void tr_timer(void *arg, int64_t fired, int64_t due, int64_t d)
{
	struct lc_cli_sim_trace *tr = arg;
	char now[32], when[32];
	int64_t a = d > 0 ? d : -d;

	end_line(tr);
	fmt_utc_key(now, sizeof(now), fired);
	fmt_utc_key(when, sizeof(when), due);
	fprintf(tr->f,
	        "timer (REALTIME 00:00:00) fired at true %s, due "
	        "at %s: %s %" PRId64 ".%06" PRId64 " s\n",
	        now, when, d > 0 ? "early by" : "late by", a / LC__NS,
	        a % LC__NS / 1000);
	tr->force = 1; /* the next reading starts a new line */
}

static void tr_end(void *arg)
{
	struct lc_cli_sim_trace *tr = arg;

	end_line(tr);
	fflush(tr->f);
}

void lc_cli_sim_trace_init(struct lc_cli_sim_trace *tr, FILE *f)
{
	memset(tr, 0, sizeof(*tr));
	tr->f = f;
	tr->ops.begin = tr_begin;
	tr->ops.read = tr_read;
	tr->ops.timer = tr_timer;
	tr->ops.end = tr_end;
	tr->ops.arg = tr;
}
