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
		/* a curve near a whole leap behind (a smear that starts at
		 * the leap, just begun) tells nothing from a host that is a
		 * leap behind */
		if (abs64(abs64(exp) - LC__NS) < LC__HD_SIG_NS)
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

/* The line of a slew starts again at this sample. */
static void slew_restart(struct lc__hd_state *st, int64_t mono, int64_t p)
{
	st->slew_n = 0;
	st->t0 = st->tp = mono;
	st->p0 = st->pp = p;
}

static int slew_check(struct lc__hd_state *st, const struct lc__hd_input *in,
                      int64_t obs)
{
	/* progress: how much of the leap the host is still behind, ns */
	int64_t p = in->gap > 0 ? obs : -obs, moved, dt, r, all;
	char text[40];

	if (in->gap == 0)
		return 0;
	if (!st->behind) {
		/* a smear is half a leap behind at most at the boundary */
		if (p >= LC__NS * 9 / 10 && p <= LC__NS + LC__HD_TOL_NS) {
			st->behind = 1;
			slew_restart(st, in->mono_ns, p);
		}
		return 0;
	}
	moved = st->pp - p;
	dt = in->mono_ns - st->tp;
	if (dt <= 0)
		return 0;
	/* slower than 100 ppm since the last point: not (yet) a slew, the
	 * line starts here */
	if ((__int128)moved * 10000 < dt) {
		slew_restart(st, in->mono_ns, p);
		return 0;
	}
	/* points 1 ms apart at least, the last 5 ms (its end) aside */
	if (moved < LC__NS / 1000 || p <= LC__HD_TOL_NS)
		return 0;
	r = (int64_t)((__int128)moved * LC__NS / dt);
	if (st->slew_n == 0 || r < st->rmin)
		st->rmin = r;
	if (st->slew_n == 0 || r > st->rmax)
		st->rmax = r;
	st->slew_n++;
	st->tp = in->mono_ns;
	st->pp = p;
	all = (int64_t)((__int128)(st->p0 - p) * LC__NS / (in->mono_ns - st->t0));
	if (st->slew_n < LC__HD_SLEW_N || st->p0 - p < LC__HD_SIG_NS ||
	    all < 100000 || st->rmin * 5 < all * 4 || st->rmax * 4 > all * 5)
		return 0;
	slew_text(all, text, sizeof(text));
	return found(st, LC_HOST_DETECT_SLEW, text);
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
	obs = in->d_ns + in->steered_ns - st->base_ns;
	if (smear_check(st, in, obs))
		return 1;
	return slew_check(st, in, obs);
}
