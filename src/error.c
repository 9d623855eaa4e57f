/* error.c - error codes, their names, and the input-error record. */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *lc_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case LC_EPERM: return "operation not permitted";
	case LC_ENOENT: return "not found";
	case LC_EIO: return "input/output error";
	case LC_ENOMEM: return "out of memory";
	case LC_EFAULT: return "bad address";
	case LC_EBUSY: return "busy";
	case LC_EINVAL: return "invalid argument";
	case LC_ERANGE: return "out of range";
	case LC_ENOTSUP: return "not supported";
	case LC_ECANCELED: return "cancelled (the clock was set)";
	case LC_EPARSE: return "malformed input";
	case LC_EHASH: return "leap table hash missing or wrong";
	case LC_EEXPIRED: return "leap table expired";
	case LC_EBEFORE1972: return "before 1972-01-01: TAI-UTC is not an integral number of seconds";
	case LC_ENOTLEAP: return "no leap second at this instant";
	case LC_ETABLE: return "invalid leap table";
	case LC_ENOLEAP: return "no leap second armed";
	case LC_EUNSUPPORTED_COUNTER: return "counter not usable on this machine";
	default: return "unknown error";
	}
}

int lc_error_format(const struct lc_error *e, char *buf, size_t size)
{
	if (e->line > 0)
		return snprintf(buf, size, "%s:%d: %s", e->where, e->line, e->msg);
	return snprintf(buf, size, "%s: %s", e->where, e->msg);
}

int lc__error(struct lc_error *e, int code, const char *where, int line,
              const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return code;
	e->code = code;
	e->line = line;
	snprintf(e->where, sizeof(e->where), "%s", where ? where : "<input>");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

static const char *const clock_names[LC_CLOCK_COUNT] = {
	"monotonic_raw", "monotonic", "boottime", "tai",
	"realtime", "utc", "utc_sls",
};

const char *lc_clock_name(lc_clock_id id)
{
	if ((unsigned)id >= LC_CLOCK_COUNT)
		return NULL;
	return clock_names[id];
}

int lc_clock_from_name(const char *name, lc_clock_id *out)
{
	char norm[32];
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < sizeof(norm); i++)
		norm[i] = name[i] == '-' ? '_' : name[i];
	if (name[i] != '\0')
		return LC_EINVAL;
	norm[i] = '\0';
	for (i = 0; i < LC_CLOCK_COUNT; i++) {
		if (strcasecmp(norm, clock_names[i]) == 0) {
			*out = (lc_clock_id)i;
			return 0;
		}
	}
	return LC_EINVAL;
}

#ifdef LC_DEBUG_ASSERT
void lc__assert_fail(const char *cond, const char *file, int line,
                     const char *func)
{
	fprintf(stderr, "leapclock: %s:%d: %s: internal invariant broken: "
	                "%s\n", file, line, func, cond);
	abort();
}
#endif
