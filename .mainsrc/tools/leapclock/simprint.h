/* simprint.h - what `leapclock simulate` and `leapclock kernel-test` print
 * of the simulator: the summary lines (simprint.c) and reader 0's trace
 * (simtrace.c, also used by tests/test_sim.c). */
#ifndef LC_SIMPRINT_H
#define LC_SIMPRINT_H

#include "sim.h"

#include <stdio.h>

/* The summary as a table row (model, tick, early count and largest, late,
 * stale, backward steps, TAI error, smear rate, leap applied), its column
 * names, and as one JSON object (preceded by a comma unless `first`). */
void lc_cli_sim_print_columns(FILE *f);
void lc_cli_sim_print_row(FILE *f, const struct lc__sim_result *r);
void lc_cli_sim_print_json(FILE *f, const struct lc__sim_result *r, int first);

/* Reader 0's trace written to f as text: lc__sim_config's trace is
 * &tr->ops after lc_cli_sim_trace_init(tr, f). */
struct lc_cli_sim_trace {
	struct lc__sim_tracer ops;
	FILE *f;
	int have, line_open, force; /* force: the next reading starts a line */
	int64_t us, sec, rt, j;     /* the last reading printed */
};
void lc_cli_sim_trace_init(struct lc_cli_sim_trace *tr, FILE *f);

#endif
