/*
 * hostdetect.c - recognising what an undeclared host does with a leap (a
 * smear preset's curve, a post-leap slew, a step; the rule is in
 * hostfollow.h, "detection"). Pure: no I/O, no globals.
 */
#include "hostfollow.h"

#include "leapclock.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

void lc__hd_init(struct lc__hd_state *st)
{
	memset(st, 0, sizeof(*st));
}

static int found(struct lc__hd_state *st, int kind, const char *text)
{
	st->kind = kind;
	snprintf(st->text, sizeof(st->text), "%s", text);
	return 1;
}

static int smear_check(struct lc__hd_state *st, const struct lc__hd_input *in,
                       int64_t obs)
{
	int n = in->npresets < LC__HD_PRESETS ? in->npresets : LC__HD_PRESETS;

	for (int i = 0; i < n; i++) {
		int64_t exp = in->smear_ns[i];
		char text[40];

		if (abs64(exp) < LC__HD_SIG_NS && abs64(obs) < LC__HD_SIG_NS)
			continue;
		if (abs64(obs - exp) <= LC__HD_TOL_NS)
			st->match[i]++;
		else
			st->miss[i]++;
		if (st->match[i] >= LC__HD_SMEAR_N &&
		    st->miss[i] * 10 <= st->match[i]) {
			snprintf(text, sizeof(text), "smear:%s", in->names[i]);
			return found(st, LC_HOST_DETECT_SMEAR, text);
		}
	}
	return 0;
}

/* The slew's declaration: "slew" near chrony's default rate, else
 * "slew:PPM" (3 significant digits). */
static void slew_text(int64_t ppb, char *buf, size_t n)
{
	int64_t ppm = (ppb + 500) / 1000;

	if (abs64(ppb - LC_HOST_SLEW_DEFAULT_PPB) <=
	    LC_HOST_SLEW_DEFAULT_PPB / 20) {
		snprintf(buf, n, "slew");
		return;
	}
	if (ppm >= 1000) {
		int64_t q = 1;

		while (ppm / q >= 1000)
			q *= 10;
		ppm = (ppm + q / 2) / q * q;
	}
	snprintf(buf, n, "slew:%" PRId64, ppm);
}

static int slew_check(struct lc__hd_state *st, const struct lc__hd_input *in,
                      int64_t obs)
{
	/* progress: how much of the leap the host is still behind, ns */
	int64_t p = in->gap > 0 ? obs : -obs;

	if (in->gap == 0)
		return 0;
	if (abs64(p - LC__NS) <= LC__HD_TOL_NS) {
		st->behind = 1;
		st->slew_n = 0;
		st->tp = in->mono_ns;
		st->pp = p;
		st->t0 = in->mono_ns;
		st->p0 = p;
		return 0;
	}
	if (!st->behind || p <= LC__HD_SIG_NS / 4 || p > LC__NS) {
		st->slew_n = 0;
		return 0;
	}
	if (in->mono_ns > st->tp && p < st->pp) {
		int64_t r = (int64_t)((__int128)(st->pp - p) * LC__NS /
		                      (in->mono_ns - st->tp));
		int64_t all;

		if (st->slew_n == 0 || r < st->rmin)
			st->rmin = r;
		if (st->slew_n == 0 || r > st->rmax)
			st->rmax = r;
		st->slew_n++;
		st->tp = in->mono_ns;
		st->pp = p;
		all = (int64_t)((__int128)(st->p0 - p) * LC__NS /
		                (in->mono_ns - st->t0));
		if (st->slew_n >= LC__HD_SLEW_N && st->p0 - p >= LC__HD_SIG_NS &&
		    all >= 100000 && st->rmin * 5 >= all * 4 &&
		    st->rmax * 4 <= all * 5) {
			char text[40];

			slew_text(all, text, sizeof(text));
			return found(st, LC_HOST_DETECT_SLEW, text);
		}
	} else {
		st->slew_n = 0; /* not closing: not a slew (yet) */
	}
	return 0;
}

int lc__hd_update(struct lc__hd_state *st, const struct lc__hd_input *in)
{
	int64_t obs;

	if (st->kind != LC_HOST_DETECT_NONE)
		return 0;
	if (!in->near_leap) {
		st->have_base = 0;
		return 0;
	}
	if (!st->have_base) {
		st->have_base = 1;
		st->base_ns = in->learnt_ns;
	}
	if (in->closed_step)
		return found(st, LC_HOST_DETECT_STEP, "step");
	obs = in->d_ns - st->base_ns;
	if (smear_check(st, in, obs))
		return 1;
	return slew_check(st, in, obs);
}
