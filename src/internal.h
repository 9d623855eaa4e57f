/*
 * internal.h - what every module of leapclock shares: the one place where
 * time representations are converted, and the error helper. Nothing here is
 * part of the public API (names are lc__ or static inline).
 */
#ifndef LC_INTERNAL_H
#define LC_INTERNAL_H

#include "leapclock.h"

#include <stdint.h>
#include <time.h>

#define LC__NS INT64_C(1000000000)

#if defined(__GNUC__)
#define lc__likely(x) __builtin_expect(!!(x), 1)
#define lc__unlikely(x) __builtin_expect(!!(x), 0)
#define LC__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define lc__likely(x) (x)
#define lc__unlikely(x) (x)
#define LC__PRINTF(a, b)
#endif

/* An internal invariant (a timer's heap index, the latch's parity, a smear
 * plan's window): checked in Debug builds (LC_DEBUG_ASSERT, which CMake
 * defines for CMAKE_BUILD_TYPE=Debug: the ASan tree runs them), where a
 * broken one prints the condition and its place and aborts; compiled out
 * otherwise (the condition is not evaluated). Never for bad input, which
 * gets an error code. */
#ifdef LC_DEBUG_ASSERT
#define LC__ASSERT(c)                                                  \
	((c) ? (void)0 : lc__assert_fail(#c, __FILE__, __LINE__, __func__))
void lc__assert_fail(const char *cond, const char *file, int line,
                     const char *func) __attribute__((noreturn));
#else
#define LC__ASSERT(c) ((void)sizeof((c) ? 1 : 0))
#endif

/* Floor division and its remainder (the remainder is always >= 0). */
static inline int64_t lc__fdiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline int64_t lc__fmod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return r < 0 ? r + b : r;
}

/* ns <-> timespec. Floor semantics, so tv_nsec is always in [0, 1e9). */
static inline struct timespec lc__ns_to_ts(int64_t ns)
{
	struct timespec ts;
	ts.tv_sec = (time_t)lc__fdiv(ns, LC__NS);
	ts.tv_nsec = (long)lc__fmod(ns, LC__NS);
	return ts;
}

/* tv_nsec may exceed 1e9 (the UTC convention); the caller decides if it may. */
static inline int64_t lc__ts_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * LC__NS + (int64_t)ts->tv_nsec;
}

/* Saturating add, for deadlines that would overflow. */
static inline int64_t lc__sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* Fills *e (if not NULL) and returns `code`. */
int lc__error(struct lc_error *e, int code, const char *where, int line,
              const char *fmt, ...) LC__PRINTF(5, 6);

#endif /* LC_INTERNAL_H */
