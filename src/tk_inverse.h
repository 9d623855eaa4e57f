/*
 * tk_inverse.h - the timekeeper's inverses from a snapshot (tk_inverse.c),
 * for timers and their tests. Not public.
 */
#ifndef LC_TK_INVERSE_H
#define LC_TK_INVERSE_H

#include "timekeeper.h"

/* The first MONOTONIC instant at which clock `id` reads >= *deadline, on
 * snapshot s read at MONOTONIC `now` (which decides, inside an inserted
 * second, that a deadline in the repeated second is the second
 * occurrence). tv_nsec may reach 2e9 - 1 for UTC and UTC_SLS (23:59:60).
 * 0, LC_EINVAL (bad deadline or id) or LC_ERANGE (|tv_sec| too large).
 * What lc__tk_mono_at() does on the published snapshot. */
int lc__tk_mono_at_snap(const struct lc__tk_snap *s, int64_t now,
                        lc_clock_id id, const struct timespec *deadline,
                        int64_t *mono_ns);
/* The first counter value at which MONOTONIC on s reads >= mono_ns,
 * clamped to [0, UINT64_MAX]. */
uint64_t lc__tk_cycles_at_snap(const struct lc__tk_snap *s, int64_t mono_ns);

#endif /* LC_TK_INVERSE_H */
