/*
 * smearconv.h - UTC <-> smeared UTC (UTC-SLS) for one smear policy and a
 * leap table: pure functions, for `leapclock convert --to utc-sls --smear P`
 * and `--from utc-sls`, and for `leapclock smear`. A wrapper over
 * src/smear.c (lc__smear_utc_to_sls, lc__smear_sls_to_utc).
 *
 * UTC timespecs follow the library's convention (the inserted second has
 * tv_nsec in [1e9, 2e9)); smeared timespecs never do (UTC-SLS has no
 * 23:59:60). Every leap of the table (insertions and deletions) is smeared
 * by the policy's nominal window around it.
 */
#ifndef LC_SMEARCONV_H
#define LC_SMEARCONV_H

#include "leapclock.h"

#include <time.h>

/* UTC -> UTC-SLS. LC_EINVAL for a bad policy or a tv_nsec >= 1e9 where the
 * table has no inserted second. */
int lc_smearconv_to_sls(const lc_leaptable *t, const struct lc_smear_policy *p,
                        const struct timespec *utc, struct timespec *sls);
/* UTC-SLS -> UTC: the first UTC instant whose smeared reading is at or
 * after `sls` (exact against the integer smear; within 1 ns of the ideal
 * curve). */
int lc_smearconv_from_sls(const lc_leaptable *t,
                          const struct lc_smear_policy *p,
                          const struct timespec *sls, struct timespec *utc);
/* The offset UTC-SLS - UTC in ns at a UTC instant (the inserted second
 * counts as the second after 23:59:59, so the offset is in [-1e9, 1e9]). */
int lc_smearconv_diff_ns(const lc_leaptable *t, const struct lc_smear_policy *p,
                         const struct timespec *utc, int64_t *diff_ns);

#endif
