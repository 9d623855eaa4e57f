/*
 * kernel_names.h - the names of adjtimex's clock states (TIME_OK ...) and
 * status bits (PLL|UNSYNC ...), one spelling for `leapclock status` and
 * leapclockd's log. Header-only, libc only.
 */
#ifndef LC_KERNEL_NAMES_H
#define LC_KERNEL_NAMES_H

#include <stddef.h>
#include <stdio.h>

/* "TIME_OK" ... "TIME_ERROR" for adjtimex's return 0..5; "?" otherwise. */
static inline const char *lc__time_state_name(int st)
{
	static const char *const n[] = { "TIME_OK",  "TIME_INS",  "TIME_DEL",
	                                 "TIME_OOP", "TIME_WAIT", "TIME_ERROR" };

	return st >= 0 && st <= 5 ? n[st] : "?";
}

/* The name of status bit b (0..15, STA_PLL = bit 0), as in <sys/timex.h>
 * without "STA_". */
static inline const char *lc__sta_bit_name(int b)
{
	static const char *const n[16] = {
		"PLL",       "PPSFREQ",   "PPSTIME",   "FLL",
		"INS",       "DEL",       "UNSYNC",    "FREQHOLD",
		"PPSSIGNAL", "PPSJITTER", "PPSWANDER", "PPSERROR",
		"CLOCKERR",  "NANO",      "MODE",      "CLK",
	};

	return b >= 0 && b < 16 ? n[b] : "?";
}

/* The set bits of `status` as "UNSYNC|NANO" ("0" for none) into buf. */
static inline const char *lc__sta_format(int status, char *buf, size_t n)
{
	size_t len = 0;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	for (int b = 0; b < 16; b++) {
		int w;

		if (!(status & (1 << b)))
			continue;
		w = snprintf(buf + len, n - len, "%s%s", len ? "|" : "",
		             lc__sta_bit_name(b));
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	if (buf[0] == '\0')
		snprintf(buf, n, "0");
	return buf;
}

#endif
