/*
 * clockbound.h - leapclockd --clockbound PATH: leapclock's error bound
 * published in AWS ClockBound's shared-memory layout (its protocol
 * version 2, clock-bound docs/PROTOCOL.md), so that programs written
 * against ClockBound read bounds that hold through leaps and smears.
 */
#ifndef LD_CLOCKBOUND_H
#define LD_CLOCKBOUND_H

#include "leapclock.h"

struct ld_clockbound;

/* Creates the segment at `path` (under a temporary name, renamed into
 * place; mode 0644) for the timekeeper `tk`, and writes it once. -1 with
 * the reason logged. */
int ld_clockbound_open(struct ld_clockbound **out, const char *path,
                       lc_timekeeper *tk);
/* After each update of the timekeeper: a new bound. */
void ld_clockbound_update(struct ld_clockbound *cb);
/* Stops writing; the segment stays (its void-after then lapses). */
void ld_clockbound_close(struct ld_clockbound *cb);

#endif /* LD_CLOCKBOUND_H */
