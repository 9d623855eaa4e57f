/*
 * smearconv.c - UTC <-> UTC-SLS for a smear policy and a leap table.
 *
 * Each leap of the table is smeared on its own pre-leap continuous axis T
 * (POSIX ns before the leap; POSIX ns + dir * 1 s after it, so that T does
 * not step), with the leap instant L at the start of 23:59:60 (insertion)
 * or of the skipped 23:59:59 (deletion). UTC-SLS = T - offset, where the
 * offset is the policy's nominal smear (src/smear.c). See smearconv.h.
 */
#include "smearconv.h"

#include "internal.h"
#include "smear.h"

struct axis {
	int64_t M;    /* POSIX seconds of the midnight after the leap */
	int dir;      /* +1 / -1 */
	int64_t L;    /* the leap instant on T, ns */
	int64_t s, e; /* the window on T, ns */
};

static void axis_of(const struct lc_leap *lp, const struct lc_smear_policy *p,
                    struct axis *a)
{
	int64_t s, e;

	a->M = lp->when;
	a->dir = lp->dir;
	a->L = (lp->dir > 0 ? lp->when : lp->when - 1) * LC__NS;
	lc_smear_window_dir(p, lp->dir, &s, &e);
	a->s = a->L + s;
	a->e = a->L + e;
}

/* UTC timespec -> T on this leap's axis. */
static int64_t utc_to_T(const struct axis *a, const struct timespec *utc)
{
	int64_t ns = lc__ts_to_ns(utc);

	if (utc->tv_nsec >= LC__NS)
		return ns; /* (M-1) s + [1, 2) s = L + [0, 1) s */
	return ns < a->M * LC__NS ? ns : ns + a->dir * LC__NS;
}

static void T_to_utc(const struct axis *a, int64_t T, struct timespec *utc)
{
	if (T < a->L) {
		*utc = lc__ns_to_ts(T);
	} else if (a->dir > 0 && T < a->L + LC__NS) {
		utc->tv_sec = (time_t)(a->M - 1);
		utc->tv_nsec = (long)(T - (a->M - 1) * LC__NS);
	} else {
		*utc = lc__ns_to_ts(T - a->dir * LC__NS);
	}
}

/* The leaps around POSIX second `sec` (previous and next), up to 2. */
static int candidates(const lc_leaptable *t, const struct lc_smear_policy *p,
                      int64_t sec, struct axis out[2])
{
	struct lc_leap lp;
	int n = 0;

	if (lc_leaptable_prev(t, sec, &lp) == 0 && lp.dir != 0)
		axis_of(&lp, p, &out[n++]);
	if (lc_leaptable_next(t, sec, &lp) == 0 && lp.dir != 0)
		axis_of(&lp, p, &out[n++]);
	return n;
}

int lc_smearconv_to_sls(const lc_leaptable *t, const struct lc_smear_policy *p,
                        const struct timespec *utc, struct timespec *sls)
{
	struct axis ax[2];
	int n;

	if (lc_smear_validate(p, NULL) < 0 || utc->tv_nsec < 0 ||
	    utc->tv_nsec >= 2 * LC__NS)
		return LC_EINVAL;
	n = candidates(t, p, (int64_t)utc->tv_sec, ax);
	for (int i = 0; i < n; i++) {
		int64_t T = utc_to_T(&ax[i], utc);
		int inserted = utc->tv_nsec >= LC__NS;

		if (inserted && !(ax[i].dir > 0 && ax[i].M - 1 == utc->tv_sec))
			continue;
		if (inserted || (T >= ax[i].s && T < ax[i].e)) {
			*sls = lc__ns_to_ts(
			    T - lc_smear_offset(p, ax[i].dir, T - ax[i].L));
			return 0;
		}
	}
	if (utc->tv_nsec >= LC__NS)
		return LC_EINVAL; /* 23:59:60 where the table has none */
	*sls = *utc;
	return 0;
}

int lc_smearconv_from_sls(const lc_leaptable *t,
                          const struct lc_smear_policy *p,
                          const struct timespec *sls, struct timespec *utc)
{
	struct axis ax[2];
	int64_t S = lc__ts_to_ns(sls);
	int n;

	if (lc_smear_validate(p, NULL) < 0 || sls->tv_nsec < 0 ||
	    sls->tv_nsec >= LC__NS)
		return LC_EINVAL;
	n = candidates(t, p, lc__fdiv(S, LC__NS), ax);
	for (int i = 0; i < n; i++) {
		struct lc__smear_plan pl;
		int64_t T;

		lc__smear_plan_none(&pl);
		lc__smear_plan_settime(&pl, p, ax[i].L, ax[i].dir, NULL);
		T = lc__smear_plan_mono_at(&pl, 0, S);
		if ((T >= ax[i].s && T < ax[i].e) ||
		    (ax[i].dir > 0 && T >= ax[i].L && T < ax[i].L + LC__NS)) {
			T_to_utc(&ax[i], T, utc);
			return 0;
		}
	}
	*utc = *sls;
	return 0;
}

int lc_smearconv_diff_ns(const lc_leaptable *t, const struct lc_smear_policy *p,
                         const struct timespec *utc, int64_t *diff_ns)
{
	struct timespec s;
	int rc = lc_smearconv_to_sls(t, p, utc, &s);

	if (rc < 0)
		return rc;
	*diff_ns = lc__ts_to_ns(&s) - lc__ts_to_ns(utc);
	return 0;
}
