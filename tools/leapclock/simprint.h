/* simprint.h - the simulator's summary lines (tools/leapclock/simprint.c),
 * for `leapclock simulate` and `leapclock kernel-test`. */
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

#endif
