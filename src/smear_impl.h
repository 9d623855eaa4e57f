/*
 * smear_impl.h - what the smear modules share (smear_shape.c, smear.c,
 * smear_preset.c, smear_table.c). Not for other modules: they use smear.h
 * (plans, a table's smear) and leapclock.h (policies).
 */
#ifndef LC_SMEAR_IMPL_H
#define LC_SMEAR_IMPL_H

#include "smear.h"

/* ---- smear_shape.c ------------------------------------------------------- */

/* The shape g: [0, 1] -> [0, 1] at x (rho: the quadratic's ramp as a
 * fraction of the window), its derivative, and the derivative's peak. */
double lc__smear_g(int shape, double x, double rho);
double lc__smear_gd(int shape, double x, double rho);
double lc__smear_gd_peak(int shape, double rho);
/* The window [*s, *e] relative to the leap instant, for direction dir. */
void lc__smear_window_dir(const struct lc_smear_policy *p, int dir,
                          int64_t *s, int64_t *e);
/* The same and the end *r of the window's ramp (s < r <= e): the offset
 * holds its full value on [r, e] (ENDING_POSIX's inserted second). */
void lc__smear_ramp_dir(const struct lc_smear_policy *p, int dir, int64_t *s,
                        int64_t *r, int64_t *e);
/* The quadratic's ramp (ns) for a window of `len` ns moving the offset by
 * `amount` ns at most max_ppm (0: the triangle); -1 if it cannot. */
int64_t lc__smear_quad_ramp(int64_t len, int64_t amount, double max_ppm);
/* Peak |rate| (ppm) of a smear of `amount` ns over `len` ns. */
double lc__smear_peak_ppm(int shape, int64_t len, int64_t ramp,
                          int64_t amount);
/* The policy's nominal peak rate (ppm) for direction dir, and its rate
 * bound (max_rate_ppm when set, else that peak). */
double lc__smear_policy_peak(const struct lc_smear_policy *p, int dir);
double lc__smear_policy_bound(const struct lc_smear_policy *p, int dir);

/* ---- smear.c ------------------------------------------------------------- */

/* *pl from `from` at `start` to `to` at `ramp_end` in the policy's shape,
 * holding `to` from there to `end` (ramp_end < end: flag LC__SMEAR_HOLD);
 * returns the peak rate in ppm, or -1 if the quadratic cannot fit under
 * the policy's max. */
double lc__smear_make_plan(struct lc__smear_plan *pl,
                           const struct lc_smear_policy *p, int64_t start,
                           int64_t ramp_end, int64_t end, int64_t from,
                           int64_t to);

#endif /* LC_SMEAR_IMPL_H */
