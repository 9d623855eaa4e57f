/*
 * smear_preset.c - the deployed smears as named presets (Google, Amazon,
 * chrony, fbclock, ...), looked up by name. Each is a policy that passes
 * lc_smear_validate().
 */
#include "smear_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Presets                                                                   */
/* ------------------------------------------------------------------------ */

struct preset {
	const char *name;
	int shape, placement;
	int64_t window_s;
	double max_rate_ppm;
	int64_t min_s, max_s; /* configurable range; 0, 0: fixed */
};

/* Sources and figures: docs/smearing.md and leapclock-smear(1). */
static const struct preset presets[] = {
    /* Google Public NTP (and AWS: "aws" below): 24 h linear, noon to noon UTC
     * (developers.google.com/time/smear; github.com/google/unsmear) */
    {"google", LC_SMEAR_LINEAR, LC_SMEAR_CENTRED, 86400, 0, 0, 0},
    /* NTPsec leapsmearinterval (Debian's ntpd; NTPsec ntpd/ntp_timer.c,
     * docs/leapsmear.adoc): linear over the interval ending at the leap's
     * transition time, POSIX midnight, which on the pre-leap axis is the
     * start of 23:59:60. KNOWN: this preset ends a second later, at UTC
     * midnight (11.6 us from ntpd through the window): a window ending
     * at the leap instant needs a placement the smear module does not
     * have yet (docs/smearing.md, "Known differences") */
    {"ntpd", LC_SMEAR_LINEAR, LC_SMEAR_ENDING, 86400, 0, 7200, 86400},
    /* chrony smoothtime 400 0.001024 leaponly: quadratic spline from the
     * leap instant (its leap timeout fires at true 23:59:60.000: chrony
     * reference.c set_leap_timeout, local.c LCL_NotifyLeap, smooth.c),
     * 62,500 s, peak 32 ppm */
    {"chrony", LC_SMEAR_QUADRATIC, LC_SMEAR_STARTING, 62500, 0, 0, 0},
    /* Meta fbclock (facebook/time fbclock/daemon/daemon.go
     * leapSecondSmearing): linear over leapDurationS = 62,500 s from the
     * leap second event time (the start of 23:59:60), 16 ppm */
    {"fbclock", LC_SMEAR_LINEAR, LC_SMEAR_STARTING, 62500, 0, 0, 0},
    /* Kuhn's UTC-SLS (draft-kuhn-leapsecond-00, 2006): the rate changed
     * by 0.1 % for the last 1000 UTC seconds of the day, 23:43:21 to
     * 24:00:00 around an insertion */
    {"utc-sls", LC_SMEAR_LINEAR, LC_SMEAR_ENDING, 1000, 0, 0, 0},
    /* the last minute before midnight (no one system's: a short
     * smear for tests and charts) */
    {"minute", LC_SMEAR_LINEAR, LC_SMEAR_ENDING, 60, 0, 0, 0},
    /* Google 2008-2015: the raised cosine lie(t) = (1 - cos(pi t/w))/2
     * over a window w before midnight (Google's blog "Time, technology
     * and leaping seconds", 2011), 20 h */
    {"cosine", LC_SMEAR_COSINE, LC_SMEAR_ENDING, 72000, 0, 60, 7 * 86400},
    /* Windows 10 1809+ / Server 2019+ without the 23:59:60 opt-in
     * (PROCESS_LEAP_SECOND_INFO, learn.microsoft.com): "23:59:59 ->
     * 23:59:59.500 -> 00:00:00, which takes 2 seconds", to the end of
     * 23:59:60 */
    {"windows", LC_SMEAR_STEP, LC_SMEAR_ENDING, 2, 0, 0, 0},
    /* NTP Classic (ntp.org) ntpd leapsmearinterval (ntpd/ntp_timer.c):
     * the raised cosine (1 - cos(pi t/w))/2 over the same interval as
     * NTPsec's, ending at the start of 23:59:60 (KNOWN: here a second
     * later, as ntpd above). Last, so that the other
     * presets keep their index (the tests' replayable seeds). */
    {"ntp-classic", LC_SMEAR_COSINE, LC_SMEAR_ENDING, 86400, 0, 7200, 86400},
    /* Amazon Time Sync Service (169.254.169.123, fd00:ec2::123, and the
     * public time.aws.com): "leap seconds are smeared over a 24-hour
     * period, noon to noon UTC", linearly, as Google's
     * (docs.aws.amazon.com/AWSEC2/latest/UserGuide/set-time.html,
     * aws.amazon.com/about-aws/whats-new/2017/11/introducing-the-amazon-
     * time-sync-service): the same curve as "google", under its own name
     * so that an EC2 host can say what it runs on (--host-leap smear:aws).
     * After ntp-classic, for the same reason. */
    {"aws", LC_SMEAR_LINEAR, LC_SMEAR_CENTRED, 86400, 0, 0, 0},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const *lc_smear_preset_names(void)
{
	static const char *const names[NPRESETS + 1] = {
	    "google", "ntpd",   "chrony",  "fbclock",     "utc-sls",
	    "minute", "cosine", "windows", "ntp-classic", "aws",
	    NULL,
	};
	return names;
}

static int name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a, y = *b;
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (x == '_')
			x = '-';
		if (x != y)
			return 0;
	}
	return *a == *b;
}

/* The presets whose window may be set, "ntpd (7200..86400 s), ...". */
static void window_presets(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NPRESETS && k < n; i++) {
		if (presets[i].min_s == 0)
			continue;
		k += (size_t)snprintf(buf + k, n - k,
		                      "%s%s (%" PRId64 "..%" PRId64 " s)",
		                      k > 0 ? ", " : "", presets[i].name,
		                      presets[i].min_s, presets[i].max_s);
	}
}

/* err->where names where the text came from: the caller's label, else
 * "smear preset". */
int lc_smear_preset_from(const char *where, const char *name, int64_t window_ns,
                         struct lc_smear_policy *p, struct lc_error *err)
{
	const char *w = where != NULL ? where : "smear preset";
	struct lc_smear_policy np;
	const struct preset *ps = NULL;
	char wp[160];

	if (name == NULL)
		return lc__error(err, LC_EINVAL, w, 0, "no preset name given");
	for (size_t i = 0; i < NPRESETS; i++)
		if (name_eq(name, presets[i].name))
			ps = &presets[i];
	if (ps == NULL)
		return lc__error(err, LC_EINVAL, w, 0,
		                 "unknown preset '%s' (google, ntpd, chrony, "
		                 "fbclock, utc-sls, minute, cosine, windows, "
		                 "ntp-classic)",
		                 name);
	memset(&np, 0, sizeof(np));
	snprintf(np.name, sizeof(np.name), "%s", ps->name);
	np.shape = ps->shape;
	np.placement = ps->placement;
	np.window_ns = ps->window_s * LC__NS;
	np.max_rate_ppm = ps->max_rate_ppm;
	if (window_ns != 0) {
		if (ps->min_s == 0) {
			window_presets(wp, sizeof(wp));
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "preset '%s' has a fixed window of %" PRId64
			    " s; a window is taken by %s, or by a custom "
			    "policy",
			    ps->name, ps->window_s, wp);
		}
		if (window_ns < ps->min_s * LC__NS ||
		    window_ns > ps->max_s * LC__NS)
			return lc__error(
			    err, LC_EINVAL, w, 0,
			    "window: %.3f s is outside preset '%s''s "
			    "range, %" PRId64 "..%" PRId64 " s",
			    (double)window_ns / 1e9, ps->name, ps->min_s,
			    ps->max_s);
		np.window_ns = window_ns;
	}
	if (lc_smear_validate_from(w, &np, err) < 0)
		return LC_EINVAL;
	*p = np;
	return 0;
}

int lc_smear_preset(const char *name, int64_t window_ns,
                    struct lc_smear_policy *p, struct lc_error *err)
{
	return lc_smear_preset_from(NULL, name, window_ns, p, err);
}
