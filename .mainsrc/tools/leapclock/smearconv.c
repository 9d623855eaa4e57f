/*
 * smearconv.c - UTC <-> UTC-SLS for a smear policy and a leap table: a thin
 * wrapper over the library's pure smear of a table (src/smear.c,
 * lc__smear_utc_to_sls and lc__smear_sls_to_utc), so that `leapclock
 * convert` answers exactly what leapclockd's smear:PRESET sockets and the
 * shim serve. See smearconv.h.
 */
#include "smearconv.h"

#include "internal.h"
#include "smear.h"

int lc_smearconv_to_sls(const lc_leaptable *t, const struct lc_smear_policy *p,
                        const struct timespec *utc, struct timespec *sls)
{
	int rc = lc__smear_utc_to_sls(t, p, utc, sls);

	/* 23:59:60 where the table has none: this interface's LC_EINVAL */
	return rc == LC_ENOTLEAP ? LC_EINVAL : rc;
}

int lc_smearconv_from_sls(const lc_leaptable *t,
                          const struct lc_smear_policy *p,
                          const struct timespec *sls, struct timespec *utc)
{
	int rc = lc__smear_sls_to_utc(t, p, sls, utc);

	/* Outside the int64_t ns range no leap is known, so nothing is
	 * smeared: the caller's own range check names the range. */
	if (rc == LC_ERANGE) {
		*utc = *sls;
		return 0;
	}
	return rc;
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
