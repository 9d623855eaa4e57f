/*
 * decimal.c - decimal seconds as `leapclock convert` reads and writes them
 * (cli.h): "[-+]DIGITS[.DIGITS]" to ns and back, exactly.
 */
#include "cli.h"

#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* "[-+]DIGITS[.DIGITS]" (1..9 fraction digits) to ns. */
int lc_cli_parse_decimal(const char *s, int64_t *ns, int *digits,
                         struct lc_error *err, const char *what)
{
	const char *p = s;
	int neg = 0, nd = 0, fd = 0;
	int64_t sec = 0, frac = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		if (sec > (INT64_MAX / LC__NS - 9) / 10)
			return lc__error(
			    err, LC_ERANGE, s, 0,
			    "%s seconds out of range: the supported range "
			    "is 1677-09-22 to 2262-04-10 (about +-9.2e9 s)",
			    what);
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, fd++) {
			if (fd == 9)
				return lc__error(err, LC_EPARSE, s, 0,
				                 "%s fraction has more than 9 "
				                 "digits",
				                 what);
			frac = frac * 10 + (*p - '0');
		}
		if (fd == 0)
			return lc__error(
			    err, LC_EPARSE, s, 0,
			    "expected digits after '.' in %s seconds", what);
	}
	if (nd == 0 || *p != '\0')
		return lc__error(err, LC_EPARSE, s, 0,
		                 "%s seconds must be a decimal number such as "
		                 "1483228800.25",
		                 what);
	*digits = fd;
	for (; fd < 9; fd++)
		frac *= 10;
	*ns = (sec * LC__NS + frac) * (neg ? -1 : 1);
	return 0;
}

/* Writes ns as signed decimal seconds with `digits` fraction digits
 * (truncated towards zero; the input's own digits are always exact). */
const char *lc_cli_fmt_sec(int64_t ns, int digits, char *buf, size_t size)
{
	uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t frac = u % (uint64_t)LC__NS;

	if (digits <= 0) {
		snprintf(buf, size, "%s%" PRIu64, ns < 0 ? "-" : "",
		         u / (uint64_t)LC__NS);
		return buf;
	}
	{
		char f[24];

		snprintf(f, sizeof(f), "%09" PRIu64, frac);
		f[digits > 9 ? 9 : digits] = '\0';
		snprintf(buf, size, "%s%" PRIu64 ".%s", ns < 0 ? "-" : "",
		         u / (uint64_t)LC__NS, f);
	}
	return buf;
}
