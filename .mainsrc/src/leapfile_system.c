/*
 * leapfile_system.c - the system's leap table: $LEAPCLOCK_LEAPFILE when
 * set, else the valid table that expires last among the system's files and
 * the built-in one; and the report of that search (which was taken, which
 * skipped and why).
 */
#include "leapfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The system search: candidates are compared by expiry, unknown (INT64_MIN)
 * being the oldest; on a tie the one tried first wins. */
static void candidate_init(struct lc_leap_candidate *c, const char *source)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->source, sizeof(c->source), "%s", source);
	c->expires = INT64_MIN;
}

/* $LEAPCLOCK_LEAPFILE, named by the user: that table or an error, never
 * another. */
static int load_env(struct lc_leaptable *t, const char *env,
                    struct lc_leaptable_search *search, struct lc_error *err)
{
	struct lc_leap_candidate *c = &search->c[0];
	int rc;

	search->from_env = 1;
	search->count = 1;
	candidate_init(c, env);
	rc = lc_leaptable_load_file(t, env, LC_LEAPFMT_AUTO, &c->err);
	if (rc < 0) {
		c->status = rc == LC_ENOENT ? LC_CAND_MISSING : LC_CAND_BAD;
		search->taken = 1;
		if (rc == LC_ENOENT) {
			char m[sizeof(c->err.msg)];

			snprintf(m, sizeof(m), "%s", c->err.msg);
			snprintf(c->err.msg, sizeof(c->err.msg),
			         "named by LEAPCLOCK_LEAPFILE but "
			         "missing (%.200s)",
			         m);
		}
		if (err != NULL)
			*err = c->err;
		return rc;
	}
	c->status = LC_CAND_TAKEN;
	c->expires = t->info.expires;
	search->taken = 0;
	return 0;
}

/* Candidate n, file `path` (NULL: the built-in table), loaded into tmp and
 * weighed against the one taken so far (*taken, -1 for none; its table in
 * best): it replaces it only if it expires strictly later. */
static void weigh_candidate(struct lc_leaptable_search *search, size_t n,
                            const char *path, struct lc_leaptable *tmp,
                            struct lc_leaptable *best, ptrdiff_t *taken,
                            struct lc_error *err)
{
	struct lc_leap_candidate *c = &search->c[n];
	int rc = 0;

	candidate_init(c, path == NULL ? "built-in" : path);
	if (path == NULL)
		lc__leaptable_set_builtin(tmp);
	else
		rc =
		    lc_leaptable_load_file(tmp, path, LC_LEAPFMT_AUTO, &c->err);
	if (rc == LC_ENOENT) {
		c->status = LC_CAND_MISSING;
		return;
	}
	if (rc < 0) {
		c->status = LC_CAND_BAD;
		if (err != NULL && err->code == 0)
			*err = c->err;
		return;
	}
	c->expires = tmp->info.expires;
	if (*taken >= 0 && c->expires <= search->c[*taken].expires) {
		c->status = LC_CAND_OLDER;
		return;
	}
	if (*taken >= 0)
		search->c[*taken].status = LC_CAND_OLDER;
	c->status = LC_CAND_TAKEN;
	*taken = (ptrdiff_t)n;
	*best = *tmp;
}

/* The valid table that expires last among `paths` and the built-in one,
 * which is the last tried and always valid. */
static int load_best(struct lc_leaptable *t, const char *const *paths,
                     struct lc_leaptable_search *search, struct lc_error *err)
{
	struct lc_leaptable *best = calloc(1, sizeof(*best));
	struct lc_leaptable *tmp = calloc(1, sizeof(*tmp));
	ptrdiff_t taken = -1;

	if (best == NULL || tmp == NULL) {
		free(best);
		free(tmp);
		if (err != NULL)
			lc__error(err, LC_ENOMEM, "<system leap table>", 0,
			          "out of memory");
		return LC_ENOMEM;
	}
	for (size_t n = 0;; n++) {
		int builtin = paths == NULL || paths[n] == NULL ||
		              n + 1 == LC_LEAP_CANDIDATES_MAX;

		weigh_candidate(search, n, builtin ? NULL : paths[n], tmp, best,
		                &taken, err);
		if (builtin) {
			search->count = n + 1;
			break;
		}
	}
	search->taken = (size_t)taken;
	*t = *best;
	free(best);
	free(tmp);
	return 0;
}

int lc__leaptable_load_system_paths(struct lc_leaptable *t,
                                    const char *const *paths,
                                    struct lc_leaptable_search *search,
                                    struct lc_error *err)
{
	const char *env = getenv("LEAPCLOCK_LEAPFILE");
	struct lc_leaptable_search local;

	if (search == NULL)
		search = &local;
	memset(search, 0, sizeof(*search));
	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (env != NULL && *env != '\0')
		return load_env(t, env, search, err);
	return load_best(t, paths, search, err);
}

static const char *const system_paths[] = {
    "/usr/share/zoneinfo/leap-seconds.list",
    "/usr/share/zoneinfo/leapseconds",
    NULL,
};

int lc_leaptable_load_system(lc_leaptable *t, struct lc_error *err)
{
	if (t == NULL)
		return LC_EINVAL;
	return lc__leaptable_load_system_paths(t, system_paths, NULL, err);
}

int lc_leaptable_load_system_report(lc_leaptable *t,
                                    struct lc_leaptable_search *search,
                                    struct lc_error *err)
{
	if (t == NULL)
		return LC_EINVAL;
	return lc__leaptable_load_system_paths(t, system_paths, search, err);
}

int lc_leaptable_search_notable(const struct lc_leaptable_search *s)
{
	size_t first = s->count;

	if (s->from_env)
		return 0;
	for (size_t i = 0; i < s->count; i++) {
		if (s->c[i].status == LC_CAND_BAD)
			return 1;
		if (s->c[i].status != LC_CAND_MISSING && first == s->count)
			first = i;
	}
	return s->taken != first;
}

struct out {
	char *buf;
	size_t size, len;
};

LC__PRINTF(2, 3)
static void out_printf(struct out *o, const char *fmt, ...);

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
	              o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static const char *expiry_text(int64_t expires, char buf[32])
{
	if (expires == INT64_MIN)
		return "unknown";
	return lc__leap_fmt_date(expires, buf);
}

int lc_leaptable_search_format(const struct lc_leaptable_search *s, int all,
                               const char *prefix, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	const struct lc_leap_candidate *tk =
	    s->taken < s->count ? &s->c[s->taken] : NULL;
	char d1[32], d2[32], e[600];

	if (size > 0)
		buf[0] = '\0';
	if (prefix == NULL)
		prefix = "";
	if (!all && !lc_leaptable_search_notable(s))
		return 0;
	/* The one in use first, then the others in the order tried. */
	if (tk != NULL)
		out_printf(&o, "%sleap table: using %s (expires %s)\n", prefix,
		           tk->source, expiry_text(tk->expires, d1));
	for (size_t i = 0; i < s->count; i++) {
		const struct lc_leap_candidate *c = &s->c[i];

		switch (c->status) {
		case LC_CAND_TAKEN:
			break;
		case LC_CAND_OLDER:
			if (tk != NULL && tk->expires == c->expires)
				out_printf(
				    &o,
				    "%sleap table: skipped %s (expires "
				    "%s): %s expires on the same day and "
				    "comes first\n",
				    prefix, c->source,
				    expiry_text(c->expires, d1), tk->source);
			else
				out_printf(&o,
				           "%sleap table: skipped %s (expires "
				           "%s): %s expires later (%s)\n",
				           prefix, c->source,
				           expiry_text(c->expires, d1),
				           tk != NULL ? tk->source : "another",
				           tk != NULL
				               ? expiry_text(tk->expires, d2)
				               : "?");
			break;
		case LC_CAND_BAD:
			lc_error_format(&c->err, e, sizeof(e));
			out_printf(&o, "%sleap table: skipped %s\n", prefix, e);
			break;
		default: /* LC_CAND_MISSING */
			if (all || s->from_env)
				out_printf(&o,
				           "%sleap table: skipped %s: "
				           "missing\n",
				           prefix, c->source);
			break;
		}
	}
	return (int)o.len;
}
