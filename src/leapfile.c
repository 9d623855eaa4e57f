/* leapfile.c - parsers for leap-seconds.list and tzdata leapseconds.
 * (Scaffolding: the parsers land with the foundation work.) */
#include "leaptable_impl.h"

int lc_leaptable_load_buffer(lc_leaptable *t, const char *name,
                             const void *buf, size_t len, int format,
                             struct lc_error *err)
{
	(void)t; (void)buf; (void)len; (void)format;
	return lc__error(err, LC_ENOTSUP, name, 0, "parser not built yet");
}

int lc_leaptable_load_file(lc_leaptable *t, const char *path, int format,
                           struct lc_error *err)
{
	return lc_leaptable_load_buffer(t, path, "", 0, format, err);
}

int lc_leaptable_load_system(lc_leaptable *t, struct lc_error *err)
{
	(void)err;
	lc_leaptable_reset_builtin(t);
	return 0;
}
