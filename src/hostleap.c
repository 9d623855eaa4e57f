/*
 * hostleap.c - the host's declared leap handling as text (leapclock.h,
 * lc_host_leap_parse): "kernel", "smear:PRESET", "slew", "slew:PPM",
 * "step", "ignore", read and written back the same.
 */
#include "internal.h"

#include "leapclock.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The slew rates accepted, ppm: ntpd -x's 500 ppm to chrony's largest
 * maxslewrate (100,000 ppm, 10 %, what Linux's tick allows). */
#define SLEW_MIN_PPM 1.0
#define SLEW_MAX_PPM 100000.0

static const char *const MODE_NAMES[] = { "kernel", "smear", "slew", "step",
	                                  "ignore" };

const char *lc_host_leap_name(int mode)
{
	if (mode < 0 || mode > LC_HOST_LEAP_IGNORE)
		return "?";
	return MODE_NAMES[mode];
}

static int known_presets(char *buf, size_t n)
{
	const char *const *names = lc_smear_preset_names();
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; names[i] != NULL && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "",
		                      names[i]);
	return 0;
}

int lc_host_leap_parse(const char *text, const char *where,
                       struct lc_host_leap_spec *out, struct lc_error *err)
{
	const char *w = where != NULL ? where : "host leap mode";
	const char *colon;
	size_t head;

	if (out == NULL)
		return lc__error(err, LC_EINVAL, w, 0, "no output");
	memset(out, 0, sizeof(*out));
	if (text == NULL || *text == '\0')
		return lc__error(err, LC_EINVAL, w, 0,
		                 "empty: expected kernel, smear:PRESET, slew, "
		                 "slew:PPM, step or ignore");
	colon = strchr(text, ':');
	head = colon != NULL ? (size_t)(colon - text) : strlen(text);
	for (int m = 0; m <= LC_HOST_LEAP_IGNORE; m++) {
		if (strlen(MODE_NAMES[m]) != head ||
		    strncmp(text, MODE_NAMES[m], head) != 0)
			continue;
		out->mode = m;
		if (m == LC_HOST_LEAP_SMEAR) {
			char known[256], pw[300];
			struct lc_error e2;

			if (colon == NULL || colon[1] == '\0') {
				known_presets(known, sizeof(known));
				return lc__error(err, LC_EINVAL, w, 0,
				                 "'%s': smear needs a preset, "
				                 "smear:PRESET (%s)",
				                 text, known);
			}
			memset(&e2, 0, sizeof(e2));
			snprintf(pw, sizeof(pw), "%s", w);
			if (lc_smear_preset_from(pw, colon + 1, 0, &out->smear,
			                         &e2) < 0) {
				known_presets(known, sizeof(known));
				return lc__error(err, LC_EINVAL, w, 0,
				                 "'%s': unknown smear preset '%s' "
				                 "(known: %s)",
				                 text, colon + 1, known);
			}
			return 0;
		}
		if (m == LC_HOST_LEAP_SLEW && colon != NULL) {
			char *end = NULL;
			double ppm;

			errno = 0;
			ppm = strtod(colon + 1, &end);
			if (colon[1] == '\0' || end == colon + 1 || *end != '\0' ||
			    errno != 0 || !(ppm >= SLEW_MIN_PPM) ||
			    !(ppm <= SLEW_MAX_PPM))
				return lc__error(err, LC_EINVAL, w, 0,
				                 "'%s': slew rate '%s': expected "
				                 "ppm 1..100000 (chrony's "
				                 "maxslewrate, 83333 by default; "
				                 "ntpd -x: 500)",
				                 text, colon + 1);
			out->slew_ppb = (int64_t)(ppm * 1000.0 + 0.5);
			return 0;
		}
		if (colon != NULL)
			return lc__error(err, LC_EINVAL, w, 0,
			                 "'%s': %s takes no ':%s'", text,
			                 MODE_NAMES[m], colon + 1);
		return 0;
	}
	return lc__error(err, LC_EINVAL, w, 0,
	                 "'%s': unknown mode '%.*s' (expected kernel, "
	                 "smear:PRESET, slew, slew:PPM, step or ignore)",
	                 text, (int)(head > 64 ? 64 : head), text);
}

int lc_host_leap_format(const struct lc_host_leap_spec *s, char *buf,
                        size_t size)
{
	if (s == NULL || s->mode < 0 || s->mode > LC_HOST_LEAP_IGNORE ||
	    (buf == NULL && size > 0))
		return LC_EINVAL;
	if (s->mode == LC_HOST_LEAP_SMEAR)
		return snprintf(buf, size, "smear:%s", s->smear.name);
	if (s->mode == LC_HOST_LEAP_SLEW && s->slew_ppb > 0) {
		int64_t ppm = s->slew_ppb / 1000, frac = s->slew_ppb % 1000;

		if (frac == 0)
			return snprintf(buf, size, "slew:%" PRId64, ppm);
		while (frac % 10 == 0)
			frac /= 10;
		return snprintf(buf, size, "slew:%" PRId64 ".%0*" PRId64, ppm,
		                s->slew_ppb % 100 == 0  ? 1
		                : s->slew_ppb % 10 == 0 ? 2
		                                        : 3,
		                frac);
	}
	return snprintf(buf, size, "%s", MODE_NAMES[s->mode]);
}

void lc_host_leap_apply(const struct lc_host_leap_spec *s,
                        struct lc_tk_config *cfg)
{
	if (s == NULL || cfg == NULL)
		return;
	cfg->host_leap = s->mode;
	cfg->host_slew_ppb = s->mode == LC_HOST_LEAP_SLEW ? s->slew_ppb : 0;
	cfg->host_smear = s->mode == LC_HOST_LEAP_SMEAR ? &s->smear : NULL;
}
