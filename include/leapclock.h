/*
 * leapclock.h - clocks, timers and tables that keep time across leap seconds.
 *
 * Conventions (read these first; every function below follows them)
 *
 *  - Time inside is a signed 64-bit count of nanoseconds (int64_t) on one
 *    timeline per scale. `struct timespec` and broken-down UTC (struct lc_tm)
 *    exist only at the edge of the API.
 *  - Scales:
 *      UNIX/REALTIME  POSIX seconds: 86400 per day, an inserted leap second
 *                     repeats 23:59:59, a deleted one is skipped.
 *      UTC            as UNIX, but the inserted second reads 23:59:60. In a
 *                     struct timespec it is written as tv_sec = 23:59:59's
 *                     value and tv_nsec in [1e9, 2e9) (Kuhn's CLOCK_UTC).
 *      TAI            POSIX seconds + (TAI-UTC): Linux's CLOCK_TAI convention,
 *                     so 2017-01-01T00:00:00Z is TAI 1483228837.
 *      GPS            TAI - 19 s, counted from 1980-01-06T00:00:00Z.
 *      NTP            RFC 5905 64-bit timestamps, era-aware.
 *  - Errors: a function returns 0 (or a count/state >= 0) on success and a
 *    negative LC_E* code on failure. lc_strerror() names a code. Where input
 *    comes from a file or from text, a struct lc_error (may be NULL) receives
 *    the file, line and a sentence naming the problem; on failure nothing that
 *    was in effect before the call is changed.
 *  - Objects with a lifetime are opaque handles created by lc_*_new() and
 *    released by lc_*_free().
 *  - NULL, one rule for every function: a NULL object handle (lc_leaptable
 *    *, lc_counter *, lc_timekeeper *, lc_loop *, lc_timer *) is refused
 *    without harm, by the kind of value the function returns: a function
 *    returning 0 or a negative LC_E* code returns LC_EINVAL; one returning
 *    a count, a flag, a time or a sequence returns 0; one returning a
 *    pointer returns NULL; a void function does nothing (so
 *    lc_*_free(NULL) is a no-op). Exceptions are stated at the function:
 *    the table of lc_iso8601_parse and lc_iso8601_parse_range may be
 *    NULL (no table, see there), lc_loop_next_deadline(NULL) is INT64_MAX (nothing
 *    armed), lc_loop_fd(NULL) is -1 (no fd), lc_timer_clock(NULL) is
 *    LC_CLOCK_COUNT (no clock). Other pointer arguments must be valid
 *    unless documented "may be NULL". tests/test_null_rule.c calls every
 *    function that takes a handle with NULL.
 *  - ABI: the shared library exports exactly the functions declared here
 *    with LC_API (tests/abi_exports.sh checks it); its soname's number,
 *    LC_ABI_VERSION, grows whenever a function is removed or changes.
 *  - Nothing in this library sets the host's clock or NTP state. It reads the
 *    host clock only through a counter (lc_counter_new_system/_tsc).
 *  - Thread safety: readers (lc_gettime, lc_now_ns, the lc_leaptable query
 *    functions on a table nobody is loading into) may run concurrently with
 *    anything; they never lock and never wait. Writers (lc_update,
 *    lc_adjtimex, lc_settime, loading a table) serialise among themselves.
 */
#ifndef LEAPCLOCK_H
#define LEAPCLOCK_H

/* Only C11's headers: with glibc, <time.h> gives struct timespec under
 * -std=c11 (timespec_get) and in C++ without any feature-test macro. */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LC_VERSION_MAJOR 0
#define LC_VERSION_MINOR 2
#define LC_VERSION_PATCH 0
#define LC_VERSION_STRING "0.2.0"
/* The shared library's soname is libleapclock.so.LC_ABI_VERSION: 1 since
 * 0.2.0 (lc_sha1, lc_smear_window, lc_tk_mono_at and lc_tk_cycles_at left
 * the API, and the internal lc__ symbols left the exports). */
#define LC_ABI_VERSION 1

/* Marks the functions the shared library exports; everything else in it
 * is built with hidden visibility. */
#if defined(__GNUC__) || defined(__clang__)
#define LC_API __attribute__((visibility("default")))
#else
#define LC_API
#endif

#define LC_NSEC_PER_SEC INT64_C(1000000000)
#define LC_SECS_PER_DAY INT64_C(86400)

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* errno-style codes (negated Linux errno values) */
#define LC_EPERM (-1)
#define LC_ENOENT (-2)
#define LC_EIO (-5)
#define LC_ENOMEM (-12)
#define LC_EFAULT (-14)
#define LC_EBUSY (-16)
#define LC_EINVAL (-22)
#define LC_ERANGE (-34)
#define LC_ENOTSUP (-95)
#define LC_ECANCELED (-125)
/* leapclock's own codes, outside the errno range */
#define LC_EPARSE (-4001)     /* malformed text: a line, a field, a timestamp */
#define LC_EHASH (-4002)      /* leap-seconds.list hash missing or wrong */
#define LC_EEXPIRED (-4003)   /* the leap table has expired */
#define LC_EBEFORE1972 (-4004) /* before 1972-01-01: no integral TAI-UTC */
#define LC_ENOTLEAP (-4005)   /* 23:59:60 where no second is inserted, or a deleted second */
#define LC_ETABLE (-4006)     /* table content invalid (order, step, not at end of day) */
#define LC_ENOLEAP (-4007)    /* no leap second where one was asked for */
#define LC_EUNSUPPORTED_COUNTER (-4008) /* this counter cannot run here (non-invariant TSC...) */

/* A short English name for an LC_E* code (never NULL). */
LC_API const char *lc_strerror(int err);

/* Details of a failure caused by input. `where` is a file name or a label
 * such as "<argument>"; `line` is 1-based, 0 when the problem has no line;
 * `msg` is one sentence naming the field and the problem. */
struct lc_error {
	int code;
	int line;
	char where[256];
	char msg[256];
};

/* Formats an error as "where:line: msg" (or "where: msg"). Returns the length
 * that snprintf would have written. */
LC_API int lc_error_format(const struct lc_error *e, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Clock ids                                                                 */
/* ------------------------------------------------------------------------ */

typedef enum lc_clock_id {
	LC_CLOCK_MONOTONIC_RAW = 0, /* counter at its nominal rate; never steps */
	LC_CLOCK_MONOTONIC = 1,     /* with NTP frequency/offset corrections */
	LC_CLOCK_BOOTTIME = 2,      /* MONOTONIC + time suspended */
	LC_CLOCK_TAI = 3,           /* MONOTONIC + offs_tai; steps only when set */
	LC_CLOCK_REALTIME = 4,      /* POSIX time; repeats 23:59:59 at an insertion */
	LC_CLOCK_UTC = 5,           /* 23:59:60 as tv_nsec in [1e9, 2e9) */
	LC_CLOCK_UTC_SLS = 6,       /* smeared UTC; UTC, 23:59:60 included,
	                             * while no smear plan runs */
	LC_CLOCK_COUNT = 7
} lc_clock_id;

/* "monotonic_raw", "monotonic", ..., "utc_sls"; NULL for an invalid id. */
LC_API const char *lc_clock_name(lc_clock_id id);
/* Parses a clock name (case-insensitive, '-' or '_'); LC_EINVAL if unknown. */
LC_API int lc_clock_from_name(const char *name, lc_clock_id *out);

/* ------------------------------------------------------------------------ */
/* Leap-second table (src/leaptable.c, the files: src/leapfile*.c)          */
/* ------------------------------------------------------------------------ */

typedef struct lc_leaptable lc_leaptable;

enum lc_leap_format {
	LC_LEAPFMT_AUTO = 0,    /* detect from content */
	LC_LEAPFMT_IERS = 1,    /* IERS/NIST leap-seconds.list */
	LC_LEAPFMT_TZDATA = 2,  /* tzdata `leapseconds` */
	LC_LEAPFMT_BUILTIN = 3  /* compiled into the library */
};

enum lc_hash_status {
	LC_HASH_NONE = 0,    /* the format has no hash (tzdata, built-in) */
	LC_HASH_OK = 1,      /* the #h line matches the data */
	LC_HASH_MISSING = 2  /* an IERS list of data lines only, without #h
	                      * (accepted, reported); one with #$ or #@ but
	                      * no #h is rejected as truncated */
};

/* One row of the table: from `when` on, TAI-UTC is `tai_utc` seconds. */
struct lc_leap {
	int64_t when;    /* POSIX seconds of the 00:00:00 UTC after the leap */
	int32_t tai_utc; /* TAI-UTC from `when` on */
	int32_t dir;     /* +1 inserted second, -1 deleted, 0 the 1972 start (10 s) */
};

struct lc_leaptable_info {
	int format;          /* enum lc_leap_format */
	int hash;            /* enum lc_hash_status */
	size_t count;        /* rows, including the 1972 start row */
	int64_t updated;     /* POSIX seconds of the last update; INT64_MIN if unknown */
	int64_t expires;     /* POSIX seconds of expiry; INT64_MIN if unknown */
	char source[256];    /* the path, or "built-in" */
};

/* A new table holding the built-in data (27 leaps 1972-2017). */
LC_API lc_leaptable *lc_leaptable_new(void);
LC_API void lc_leaptable_free(lc_leaptable *t);
/* Replaces the table with the built-in data. */
LC_API void lc_leaptable_reset_builtin(lc_leaptable *t);
/* Loads a file (format LC_LEAPFMT_AUTO detects it). On any error the table
 * keeps what it held and *err says what is wrong with the file: its name,
 * the line (0 when none) and the problem. LC_EPARSE: a malformed line or
 * field, binary data (NUL, control bytes, invalid UTF-8), a truncated file
 * (last line without newline, #h cut short or missing after #$/#@, no data,
 * only the 1972 row), more than 1 MiB. LC_EHASH: the #h line does not match
 * the SHA-1 of the #$ and #@ digits and the data lines' two numbers, as the
 * file's header describes; the message gives both hashes. LC_ETABLE: dates
 * not increasing, before 1972 or not a UTC midnight (tzdata: a leap at other
 * than 23:59:60 +, 23:59:59 -), a leap that does not end a month (ITU-R
 * TF.460 puts them at the end of a month only), a first row other than
 * 1972-01-01 with 10 s, a step other than +-1 s, more rows than the table
 * holds, a rolling (R) tzdata leap. LC_ENOENT, LC_EPERM, LC_EIO: the file
 * could not be read, or is not a regular file (a FIFO or a device is
 * refused without waiting for a writer: it is opened O_NONBLOCK and checked
 * with fstat). tzdata's implied 1972-01-01 row is added, so both formats
 * give the same rows; its Expires line is preferred to the #expires
 * comment. */
LC_API int lc_leaptable_load_file(lc_leaptable *t, const char *path, int format,
                                  struct lc_error *err);
/* As lc_leaptable_load_file, from memory; `name` labels errors (NULL:
 * "<buffer>") and becomes the source. LC_EINVAL for LC_LEAPFMT_BUILTIN.
 * Unlike a file, a buffer may put a leap at the end of any day: synthetic
 * tables (a rehearsed leap, the simulator) use that. */
LC_API int lc_leaptable_load_buffer(lc_leaptable *t, const char *name,
                                    const void *buf, size_t len, int format,
                                    struct lc_error *err);
/* Adds one leap at the end of the table: the UTC day that ends at POSIX
 * second `when` (the 00:00:00 after the leap, any UTC midnight, as for a
 * buffer) gets an inserted 23:59:60 (dir +1) or loses its 23:59:59 (dir
 * -1), and TAI-UTC from `when` on is the last row's plus dir. For a
 * rehearsed leap (`leapclock run --leap-in`, LEAPCLOCK_EXTRA_LEAP): the
 * table's other rows and its info (source, format, hash, updated and
 * expiry, which describe the file loaded) stay as they were; count grows
 * by one. LC_EINVAL: t NULL or dir not +-1. LC_ETABLE (*t unchanged, *err
 * says why): `when` not a UTC midnight, not after the table's last row,
 * or the table full. */
LC_API int lc_leaptable_add(lc_leaptable *t, int64_t when, int dir,
                            struct lc_error *err);
/* Loads the system's table. With $LEAPCLOCK_LEAPFILE set (and not empty)
 * that file is the table: if it cannot be used (missing too), its error is
 * returned with *err naming the file and line, and *t is unchanged.
 * Otherwise the search takes, among /usr/share/zoneinfo/leap-seconds.list,
 * /usr/share/zoneinfo/leapseconds and the built-in table, the valid one
 * that expires last (an unknown expiry counts as the oldest; on a tie the
 * first in that order), and returns 0. *err is cleared first; after a
 * search err->code != 0 means a candidate that exists was bad and skipped
 * (the first such problem; missing system files are not reported).
 * Nothing is printed: lc_leaptable_load_system_report says what the search
 * took and skipped. */
LC_API int lc_leaptable_load_system(lc_leaptable *t, struct lc_error *err);

/* What the system search did, for a caller to report (the library prints
 * nothing). */
enum lc_leap_candidate_status {
	LC_CAND_TAKEN = 0,   /* the table loaded into *t */
	LC_CAND_MISSING = 1, /* no such file */
	LC_CAND_BAD = 2,     /* exists but cannot be used: err says why */
	LC_CAND_OLDER = 3    /* valid, but the one taken expires later (or on
	                      * the same day and comes first) */
};

struct lc_leap_candidate {
	char source[256];    /* the path, or "built-in" */
	int status;          /* enum lc_leap_candidate_status */
	int64_t expires;     /* POSIX s when it loaded; INT64_MIN if unknown */
	struct lc_error err; /* LC_CAND_BAD, LC_CAND_MISSING: why */
};

#define LC_LEAP_CANDIDATES_MAX 4

struct lc_leaptable_search {
	int from_env;  /* 1: $LEAPCLOCK_LEAPFILE named the table, no search */
	size_t count;  /* candidates in c[], in the order tried */
	size_t taken;  /* index of the one in use; count if none (from_env) */
	struct lc_leap_candidate c[LC_LEAP_CANDIDATES_MAX];
};

/* As lc_leaptable_load_system, and fills *search (may be NULL). */
LC_API int lc_leaptable_load_system_report(lc_leaptable *t,
                                           struct lc_leaptable_search *search,
                                           struct lc_error *err);
/* 1 if the search is worth telling the user about: a candidate that exists
 * was bad, or the table taken is not the first that exists (a later one, or
 * the built-in one, expires later). 0 for an explicit $LEAPCLOCK_LEAPFILE. */
LC_API int lc_leaptable_search_notable(const struct lc_leaptable_search *search);
/* Writes the report as lines, each starting with `prefix` (may be NULL):
 * "leap table: using built-in (expires 2027-06-28)", "leap table: skipped
 * /usr/share/zoneinfo/leap-seconds.list (expires 2026-06-28): built-in
 * expires later (2027-06-28)", "leap table: skipped FILE:LINE: problem".
 * With all == 0 nothing is written unless lc_leaptable_search_notable() and
 * missing files are left out. Returns the length snprintf would have
 * written (the text is cut at size - 1). */
LC_API int lc_leaptable_search_format(const struct lc_leaptable_search *search,
                                      int all, const char *prefix, char *buf,
                                      size_t size);
LC_API int lc_leaptable_info(const lc_leaptable *t, struct lc_leaptable_info *info);
/* 1 if the table has expired at POSIX second `now`, 0 if not or unknown. */
LC_API int lc_leaptable_expired(const lc_leaptable *t, int64_t now);
LC_API size_t lc_leaptable_count(const lc_leaptable *t);
LC_API int lc_leaptable_get(const lc_leaptable *t, size_t i, struct lc_leap *out);

/* TAI-UTC (seconds) in effect at a UTC instant given as POSIX seconds. For
 * the repeated POSIX second of an insertion this is the new offset (as Linux's
 * tai_offset, which moves at the start of the inserted second).
 * LC_EBEFORE1972 before 1972-01-01. */
LC_API int lc_leaptable_tai_utc(const lc_leaptable *t, int64_t unix_sec,
                                int32_t *tai_utc);
/* TAI-UTC at a TAI instant (seconds on the TAI scale); *in_leap (may be NULL)
 * is set to 1 inside an inserted second 23:59:60. */
LC_API int lc_leaptable_tai_utc_at_tai(const lc_leaptable *t, int64_t tai_sec,
                                       int32_t *tai_utc, int *in_leap);
/* +1 if the POSIX second `unix_sec` is a 23:59:59 followed by an inserted
 * 23:59:60, -1 if it is a deleted 23:59:59, 0 otherwise. */
LC_API int lc_leaptable_leap_at(const lc_leaptable *t, int64_t unix_sec);
/* The first leap (dir != 0) with when > unix_sec; LC_ENOENT if none known. */
LC_API int lc_leaptable_next(const lc_leaptable *t, int64_t unix_sec,
                             struct lc_leap *out);
/* The last leap (dir != 0) with when <= unix_sec; LC_ENOENT if none. */
LC_API int lc_leaptable_prev(const lc_leaptable *t, int64_t unix_sec,
                             struct lc_leap *out);

/* ------------------------------------------------------------------------ */
/* Civil time (src/civil.c)                                                  */
/* ------------------------------------------------------------------------ */

/* Broken-down time. sec is 0..60 (60 only for an inserted leap second). */
struct lc_tm {
	int64_t year;
	int mon;   /* 1..12 */
	int mday;  /* 1..31 */
	int hour;  /* 0..23 */
	int min;   /* 0..59 */
	int sec;   /* 0..60 */
	int32_t nsec;
	int wday;  /* 0 = Sunday (output only) */
	int yday;  /* 0..365 (output only) */
};

/* Days since 1970-01-01 of a proleptic Gregorian date (year 0 = 1 BC), and
 * back. lc_days_from_civil needs mon 1..12 and |year| <= 2.9e11 (about the
 * range of int64_t POSIX seconds); mday may run past the month (it counts on).
 * lc_civil_from_days accepts any int64_t. Neither uses TZ, locale or libc. */
LC_API int64_t lc_days_from_civil(int64_t year, int mon, int mday);
LC_API void lc_civil_from_days(int64_t days, int64_t *year, int *mon, int *mday);

/* POSIX seconds (+nsec) to broken-down, sec < 60 (a nsec outside [0, 1e9)
 * carries into the seconds). Fills wday and yday. */
LC_API void lc_tm_from_unix(int64_t unix_sec, int32_t nsec, struct lc_tm *tm);
/* Broken-down UTC to the UTC timespec convention (sec 60 -> tv_sec of
 * 23:59:59, tv_nsec + 1e9). Fields are not range-checked against the table:
 * use lc_utc_check() or lc_iso8601_parse(). LC_EINVAL on a field out of
 * range (sec 60 is in range only at 23:59; |year| <= 2.9e11); wday and yday
 * are ignored. */
LC_API int lc_tm_to_utc(const struct lc_tm *tm, struct timespec *utc);
/* A UTC timespec (tv_nsec < 2e9) to broken-down with sec 60. LC_EINVAL if
 * tv_nsec is negative, >= 2e9, or >= 1e9 on a second other than 23:59:59. */
LC_API int lc_utc_to_tm(const struct timespec *utc, struct lc_tm *tm);
/* Checks a UTC timespec against the table: tv_nsec >= 1e9 only on an
 * inserted second, and never the tv_sec of a deleted 23:59:59 (both
 * LC_ENOTLEAP); LC_EINVAL for tv_nsec outside [0, 2e9). */
LC_API int lc_utc_check(const lc_leaptable *t, const struct timespec *utc);

/* Scale conversions; TAI is int64_t ns on the TAI scale. UTC -> TAI checks
 * the timespec with lc_utc_check() first (LC_ENOTLEAP, LC_EINVAL); both
 * directions return LC_EBEFORE1972 before 1972-01-01 and LC_ERANGE where the
 * ns do not fit in int64_t (outside about 1677..2262). The inserted second
 * 23:59:60 is TAI [when + tai_utc - 1, when + tai_utc) in the table's terms;
 * the TAI second of a deleted 23:59:59 does not exist (TAI goes on from
 * 23:59:58 to 00:00:00). */
LC_API int lc_tai_from_utc(const lc_leaptable *t, const struct timespec *utc,
                           int64_t *tai_ns);
LC_API int lc_utc_from_tai(const lc_leaptable *t, int64_t tai_ns,
                           struct timespec *utc);
/* POSIX (REALTIME) ns <-> TAI ns. A repeated POSIX second maps to its
 * second (the 23:59:60 reading, as Linux's tai_offset moves at its start);
 * TAI -> POSIX maps both 23:59:59 and 23:59:60 to the repeated second. The
 * POSIX second of a deleted 23:59:59 never appears on REALTIME: LC_ENOTLEAP. */
LC_API int lc_tai_from_unix(const lc_leaptable *t, int64_t unix_ns, int64_t *tai_ns);
LC_API int lc_unix_from_tai(const lc_leaptable *t, int64_t tai_ns, int64_t *unix_ns);

#define LC_GPS_EPOCH_TAI INT64_C(315964819) /* 1980-01-06T00:00:00Z in TAI s */
/* GPS ns (since the GPS epoch) <-> TAI ns; saturate at the int64_t ends. */
LC_API int64_t lc_gps_from_tai(int64_t tai_ns);
LC_API int64_t lc_tai_from_gps(int64_t gps_ns);

/* NTP: 64-bit timestamps (seconds << 32 | fraction) since 1900 in era 0;
 * era n starts 2^32 s after era n-1 (2036-02-07T06:28:16Z for era 1). */
#define LC_NTP_UNIX_OFFSET INT64_C(2208988800) /* 1970 - 1900 in seconds */
/* The fraction is round(ns * 2^32 / 1e9); the era is dropped (seconds mod
 * 2^32). NTP, like POSIX, repeats the second of an insertion. */
LC_API uint64_t lc_ntp_from_unix_ns(int64_t unix_ns);
/* Resolves the era as the one that puts the result nearest `pivot_unix_sec`
 * (the result is within [pivot - 2^31, pivot + 2^31) seconds), ns rounded to
 * nearest, so lc_unix_ns_from_ntp(lc_ntp_from_unix_ns(x), p) == x for every x
 * within 68 years of p. Saturates where the ns do not fit in int64_t. */
LC_API int64_t lc_unix_ns_from_ntp(uint64_t ntp, int64_t pivot_unix_sec);

/* ISO 8601 / RFC 3339: "2016-12-31T23:59:60.5Z", offsets "+01:00" or
 * "-05:30", 'T', 't' or a space between date and time, 'Z' or 'z', a '.' or
 * ',' fraction of 1..9 digits. Years are 4 digits, or ISO 8601's expanded
 * form: a sign and 4..11 digits ("-0001", "+12345"). Second 60 is accepted
 * exactly where the table has an inserted leap second (checked after the
 * offset is applied: "2017-01-01T00:59:60+01:00" is 2016-12-31T23:59:60Z);
 * a deleted 23:59:59 is rejected; both are LC_ENOTLEAP. With t == NULL there
 * is no table: second 60 is accepted at 23:59:60 UTC of any day and nothing
 * is deleted. Any other error is LC_EPARSE. On failure *err (may be NULL)
 * has where = the text and a message naming the field and the 1-based
 * column ("month 13 out of range (1..12) at column 6"), and *utc is
 * untouched. Writes a UTC timespec (tv_nsec + 1e9 for 23:59:60). */
LC_API int lc_iso8601_parse(const char *s, const lc_leaptable *t,
                            struct timespec *utc, struct lc_error *err);

/* The instants that every int64_t ns scale of the library holds (POSIX,
 * TAI and GPS ns, the clocks), in whole days: 1677-09-22 to 2262-04-10
 * UTC, that is POSIX seconds [LC_RANGE_FIRST_SEC, LC_RANGE_END_SEC).
 * int64_t ns run from 1677-09-21T00:12:43Z to 2262-04-11T23:47:16Z; the
 * margin holds TAI-UTC and a 23:59:60. A struct timespec or lc_tm holds
 * far more (lc_iso8601_parse reads years up to 11 digits), so an entry
 * point that converts to ns checks its input with lc_range_check() or
 * lc_iso8601_parse_range() first. */
#define LC_RANGE_FIRST_SEC INT64_C(-9223286400) /* 1677-09-22T00:00:00Z */
#define LC_RANGE_END_SEC INT64_C(9223286400)    /* 2262-04-11T00:00:00Z */
/* 0 if the POSIX second `sec` is in [first_sec, end_sec); else LC_ERANGE
 * and *err (may be NULL) with where = `where` (NULL: "<time>") and a
 * message naming the instant and the range ("3000-01-01T00:00:00Z is
 * outside the supported range, 1677-09-22 to 2262-04-10", without the
 * instant when `where` already is its text; a range of whole days is given
 * as its first and last day). */
LC_API int lc_range_check(int64_t sec, int64_t first_sec, int64_t end_sec,
                          const char *where, struct lc_error *err);
/* lc_iso8601_parse, then lc_range_check of the result's tv_sec (23:59:60
 * counts as its 23:59:59) against [first_sec, end_sec): LC_ERANGE outside,
 * with *utc untouched. */
LC_API int lc_iso8601_parse_range(const char *s, const lc_leaptable *t,
                                  int64_t first_sec, int64_t end_sec,
                                  struct timespec *utc, struct lc_error *err);
/* Formats a UTC timespec as "YYYY-MM-DDThh:mm:ss[.fff]Z" with `digits`
 * fraction digits (0..9, truncated, never rounded up); tv_nsec >= 1e9 prints
 * second 60. Years outside 0..9999 use the expanded form that
 * lc_iso8601_parse reads. Returns the length, LC_ERANGE if it doesn't fit
 * in `size` (with its NUL), LC_EINVAL for bad digits or a timespec that
 * lc_utc_to_tm rejects. */
LC_API int lc_iso8601_format(const struct timespec *utc, int digits, char *buf,
                             size_t size);
/* Formats ns on a uniform scale (TAI, GPS...) as a calendar date without leap
 * seconds and without the 'Z' ("2017-01-01T00:00:36" for TAI of
 * 2016-12-31T23:59:60Z); the caller appends the scale's name. Returns as
 * lc_iso8601_format. */
LC_API int lc_iso8601_format_scale(int64_t ns, int digits, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Counters (src/counter.c)                                                  */
/* ------------------------------------------------------------------------ */

typedef struct lc_counter lc_counter;

enum lc_counter_kind {
	LC_COUNTER_SIM = 0,    /* simulated, advanced by the caller */
	LC_COUNTER_SYSTEM = 1, /* a host clock_gettime clock, in ns */
	LC_COUNTER_TSC = 2     /* x86 invariant TSC */
};

/* A simulated counter of `freq_hz` nominal cycles per second that actually
 * runs `ppb_error` parts per billion fast (negative: slow) against the
 * simulation's true time, which starts at 0. */
LC_API int lc_counter_new_sim(lc_counter **out, uint64_t freq_hz, int64_t ppb_error);
/* The host clock `clk` (CLOCK_MONOTONIC or CLOCK_MONOTONIC_RAW) as a 1 GHz
 * counter. `clk` is a clockid_t value passed as int: clockid_t is POSIX's,
 * and <time.h> hides it from a strict C11 or C++ build that defines no
 * _POSIX_C_SOURCE, while this header must build alone there. Linux's
 * clockid_t is int, so the ABI is unchanged. */
LC_API int lc_counter_new_system(lc_counter **out, int clk);
/* The invariant TSC, calibrated against CLOCK_MONOTONIC_RAW. Fails with
 * LC_EUNSUPPORTED_COUNTER and a reason in *err where it is not invariant. */
LC_API int lc_counter_new_tsc(lc_counter **out, struct lc_error *err);
/* The best real counter: tsc where usable, else system(CLOCK_MONOTONIC). */
LC_API int lc_counter_new_best(lc_counter **out);
LC_API void lc_counter_free(lc_counter *c);
LC_API uint64_t lc_counter_read(const lc_counter *c);
LC_API uint64_t lc_counter_freq(const lc_counter *c);
LC_API int lc_counter_kind(const lc_counter *c);
LC_API const char *lc_counter_name(const lc_counter *c); /* "sim", "system", "tsc" */

/* Simulated counters only (no-ops on others). Safe against concurrent
 * lc_counter_read. */
LC_API void lc_sim_advance(lc_counter *c, int64_t ns);
LC_API void lc_sim_set_true_ns(lc_counter *c, int64_t true_ns); /* never backwards */
LC_API int64_t lc_sim_true_ns(const lc_counter *c);
/* The true ns at which the counter reaches `cycles` (rounded up). */
LC_API int64_t lc_sim_true_ns_at(const lc_counter *c, uint64_t cycles);

/* ------------------------------------------------------------------------ */
/* adjtimex (src/ntp.c)                                                      */
/* ------------------------------------------------------------------------ */

/* Mode bits, as Linux's ADJ_* */
#define LC_ADJ_OFFSET 0x0001
#define LC_ADJ_FREQUENCY 0x0002
#define LC_ADJ_MAXERROR 0x0004
#define LC_ADJ_ESTERROR 0x0008
#define LC_ADJ_STATUS 0x0010
#define LC_ADJ_TIMECONST 0x0020
#define LC_ADJ_TAI 0x0080
#define LC_ADJ_SETOFFSET 0x0100
#define LC_ADJ_MICRO 0x1000
#define LC_ADJ_NANO 0x2000
#define LC_ADJ_TICK 0x4000
#define LC_ADJ_OFFSET_SINGLESHOT 0x8001
#define LC_ADJ_OFFSET_SS_READ 0xa001

/* Status bits, as Linux's STA_* */
#define LC_STA_PLL 0x0001
#define LC_STA_PPSFREQ 0x0002
#define LC_STA_PPSTIME 0x0004
#define LC_STA_FLL 0x0008
#define LC_STA_INS 0x0010
#define LC_STA_DEL 0x0020
#define LC_STA_UNSYNC 0x0040
#define LC_STA_FREQHOLD 0x0080
#define LC_STA_PPSSIGNAL 0x0100
#define LC_STA_PPSJITTER 0x0200
#define LC_STA_PPSWANDER 0x0400
#define LC_STA_PPSERROR 0x0800
#define LC_STA_CLOCKERR 0x1000
#define LC_STA_NANO 0x2000
#define LC_STA_MODE 0x4000
#define LC_STA_CLK 0x8000
#define LC_STA_RONLY                                                      \
	(LC_STA_PPSSIGNAL | LC_STA_PPSJITTER | LC_STA_PPSWANDER |             \
	 LC_STA_PPSERROR | LC_STA_CLOCKERR | LC_STA_NANO | LC_STA_MODE |      \
	 LC_STA_CLK)

/* Clock states, as Linux's TIME_* (the non-negative returns of adjtimex) */
#define LC_TIME_OK 0
#define LC_TIME_INS 1
#define LC_TIME_DEL 2
#define LC_TIME_OOP 3
#define LC_TIME_WAIT 4
#define LC_TIME_ERROR 5

/* Mirrors Linux's struct timex field for field (longs as int64_t), for
 * lc_adjtimex() and lc_adjtimex_unprivileged(). On input only `modes` and
 * the fields its LC_ADJ_* bits name are read; on output every field is
 * written (the state after the call). A call is checked as Linux's
 * adjtimex checks it before anything changes: LC_EINVAL for an
 * LC_ADJ_OFFSET_SINGLESHOT family mode without its 0x0001 bit, a tick out
 * of 9000..11000, an ADJ_SETOFFSET fraction outside [0, 1 s) in the unit
 * of this call, a freq whose scaled value overflows; LC_EPERM for modes
 * other than 0 and LC_ADJ_OFFSET_SS_READ without privilege. Values the
 * kernel clamps or ignores are clamped or ignored as noted per field. */
struct lc_timex {
	/* In: LC_ADJ_* bits saying which fields below to apply; 0 only
	 * reads. LC_ADJ_NANO / LC_ADJ_MICRO set / clear LC_STA_NANO (MICRO
	 * wins when both are given). */
	unsigned int modes;
	/* LC_ADJ_OFFSET: the phase offset to slew out through the PLL/FLL,
	 * ns if LC_STA_NANO else us (clamped to +-0.5 s). Out: the phase
	 * still to slew, in the same unit. For LC_ADJ_OFFSET_SINGLESHOT
	 * (adjtime()): in, the new slew in us (unclamped, replacing the one
	 * pending; not read by LC_ADJ_OFFSET_SS_READ); out, the slew that
	 * was pending before the call, us. */
	int64_t offset;
	/* LC_ADJ_FREQUENCY: the frequency correction in scaled ppm (ppm
	 * times 2^16), clamped to +-500 ppm. Out: the current one. */
	int64_t freq;
	/* LC_ADJ_MAXERROR: the maximum error, us, clamped to 0..16e6; it
	 * grows by 500 us each second. Out: the current value. */
	int64_t maxerror;
	/* LC_ADJ_ESTERROR: the estimated error, us, clamped to 0..16e6.
	 * Out: the current value. */
	int64_t esterror;
	/* LC_ADJ_STATUS: the LC_STA_* bits (LC_STA_INS / LC_STA_DEL arm a
	 * leap at the next UTC midnight with LC_LEAP_FROM_ADJTIMEX; clearing
	 * LC_STA_PLL resets the leap state); the LC_STA_RONLY bits cannot be
	 * set and keep their value. Out: the current bits. */
	int status;
	/* LC_ADJ_TIMECONST: the PLL time constant, clamped to 0..10; in us
	 * mode (no LC_STA_NANO) 4 is added and read back, as Linux does.
	 * LC_ADJ_TAI: the new TAI-UTC offset in seconds (0..100000, others
	 * ignored). Out: the PLL time constant. */
	int64_t constant;
	int64_t precision; /* out only: clock precision, us (always 1) */
	int64_t tolerance; /* out only: largest |freq|, scaled ppm
	                    * (32768000 = 500 ppm) */
	/* LC_ADJ_SETOFFSET: a step added to REALTIME (and TAI); tv_sec of
	 * either sign, tv_usec in [0, 1e6) us, or [0, 1e9) ns with
	 * LC_ADJ_NANO in modes. Out: REALTIME at the call, tv_usec in ns if
	 * LC_STA_NANO else us; during an inserted second tv_sec repeats
	 * 23:59:59 (and `tai` is already the new offset), as Linux shows it. */
	struct {
		int64_t tv_sec;
		int64_t tv_usec;
	} time;
	/* LC_ADJ_TICK: us per 1/100 s tick, 9000..11000 (10000 nominal):
	 * a coarse frequency change of up to +-10 %. Out: the current one. */
	int64_t tick;
	/* PPS fields (no PPS support, as Linux without CONFIG_NTP_PPS):
	 * never read, always written as 0. */
	int64_t ppsfreq, jitter;
	int shift;
	int64_t stabil, jitcnt, calcnt, errcnt, stbcnt;
	/* Out only: TAI-UTC in seconds (set through LC_ADJ_TAI). */
	int tai;
};

/* ------------------------------------------------------------------------ */
/* Smear policies (src/smear*.c)                                             */
/* ------------------------------------------------------------------------ */

enum lc_smear_shape {
	LC_SMEAR_LINEAR = 0,
	LC_SMEAR_COSINE = 1,    /* raised cosine: zero rate change at both ends */
	LC_SMEAR_QUADRATIC = 2, /* rate ramps up and down, limited by max_rate */
	LC_SMEAR_STEP = 3       /* Windows' default: 23:59:59 lasts two seconds */
};

enum lc_smear_placement {
	LC_SMEAR_ENDING = 0,   /* the window ends at the leap */
	LC_SMEAR_CENTRED = 1,  /* the window is centred on the leap */
	LC_SMEAR_STARTING = 2, /* the window starts at the leap */
	/* the smear ends at POSIX midnight (the start of an inserted
	 * 23:59:60, the end of a deleted 23:59:59) and the window closes at
	 * the end of the leap second: NTP's leapsmearinterval */
	LC_SMEAR_ENDING_POSIX = 3
};

struct lc_smear_policy {
	char name[32];        /* preset name, or "custom" */
	int shape;            /* enum lc_smear_shape */
	int placement;        /* enum lc_smear_placement */
	int64_t window_ns;    /* length of the window, in UTC ns */
	double max_rate_ppm;  /* bound on |rate|; 0 means the shape's own peak */
};

/* Fills *p with a preset: google, ntpd (NTPsec's linear smear), chrony,
 * fbclock, utc-sls, minute, cosine, windows, ntp-classic (NTP Classic's
 * cosine) (docs/smearing.md and leapclock-smear(1) give each one's
 * parameters and source). `window_ns` of 0 keeps the preset's default,
 * otherwise overrides it for the presets whose window is configurable
 * (ntpd and ntp-classic 7200..86400 s, cosine 60 s..7 days); LC_EINVAL
 * with a reason for an unknown name, a fixed window or one out of range. */
LC_API int lc_smear_preset(const char *name, int64_t window_ns,
                           struct lc_smear_policy *p, struct lc_error *err);
/* The same, with err->where set to `where`: where the name came from (an
 * option such as "--preset", a variable such as "LEAPCLOCK_SMEAR", a file
 * and key), so that the message names it; NULL: "smear preset". */
LC_API int lc_smear_preset_from(const char *where, const char *name,
                                int64_t window_ns, struct lc_smear_policy *p,
                                struct lc_error *err);
/* The names of the presets, NULL-terminated. */
LC_API const char *const *lc_smear_preset_names(void);
/* Checks a policy; LC_EINVAL with a reason for a bad one. */
LC_API int lc_smear_validate(const struct lc_smear_policy *p, struct lc_error *err);
/* The same, err->where set to `where` (NULL: "smear policy"). */
LC_API int lc_smear_validate_from(const char *where, const struct lc_smear_policy *p,
                                  struct lc_error *err);
/* The smear offset in ns (how far UTC_SLS is behind the pre-leap timeline,
 * 0..1e9 for an insertion, 0..-1e9 for a deletion) at `t_ns` relative to the
 * leap instant (the start of 23:59:60, or of the deleted 23:59:59). */
LC_API int64_t lc_smear_offset(const struct lc_smear_policy *p, int dir, int64_t t_ns);
/* The rate of the smeared clock relative to UTC, in ppm, at `t_ns`:
 * negative while it runs slow (insertion), positive while fast (deletion),
 * 0 outside the window. */
LC_API double lc_smear_rate_ppm(const struct lc_smear_policy *p, int dir, int64_t t_ns);
/* Window start/end relative to the leap instant, in ns, for direction
 * `dir` (+1 insertion, -1 deletion; both 0 for an invalid policy).
 * Placement: ENDING ends at UTC midnight (leap + 1 s for an insertion, + 0
 * for a deletion) and STARTING starts at the leap instant (the start of
 * 23:59:60, as chrony and fbclock; midnight for a deletion), window_ns
 * counted in SI
 * seconds; CENTRED runs from midnight - window/2 to midnight + window/2 as
 * read on a UTC clock, so that noon to noon is 86,400 s and spans 86,401 SI
 * s around an insertion. ENDING_POSIX smears over the window_ns SI seconds
 * before POSIX midnight (leap + 0 for an insertion, + 1 s for a deletion)
 * and, for an insertion, holds the whole second through 23:59:60: its
 * window is [-window_ns, +1 s] (insertion), [1 s - window_ns, +1 s]
 * (deletion). */
LC_API void lc_smear_window_dir(const struct lc_smear_policy *p, int dir,
                                int64_t *start_rel, int64_t *end_rel);
/* The policy's peak |rate| in ppm for direction `dir` (0 if invalid). */
LC_API double lc_smear_peak_ppm(const struct lc_smear_policy *p, int dir);

/* ------------------------------------------------------------------------ */
/* Timekeeper (src/timekeeper.c, tk_new.c, tk_set.c, tk_follow.c)           */
/* ------------------------------------------------------------------------ */

typedef struct lc_timekeeper lc_timekeeper;

enum lc_leap_source {
	LC_LEAP_FROM_ADJTIMEX = 0, /* leaps are armed by STA_INS/STA_DEL, as Linux */
	LC_LEAP_FROM_TABLE = 1     /* the table arms them (chrony's leapsectz) */
};

/* One sample of the host the timekeeper follows (lc_tk_config
 * host_sample), as Linux's read-only adjtimex gives it: taken at one
 * instant, under one kernel lock. */
#define LC_HOST_SAMPLE_KERNEL 0x1 /* tai, state, status are valid */
#define LC_HOST_SAMPLE_CWS 0x2    /* clock_was_set is valid */
#define LC_HOST_SAMPLE_ERROR 0x4  /* maxerror_us, esterror_us are valid */
struct lc_host_sample {
	int64_t realtime_ns;    /* the host's CLOCK_REALTIME, POSIX ns (adjtimex's
	                         * time: Linux shows its leap there from the
	                         * exact second, clock_gettime only from the
	                         * tick after it) */
	int32_t tai;            /* the kernel's TAI offset, s (timex.tai); it
	                         * moves by +1 (-1) when the kernel inserts
	                         * (deletes) a leap, even from 0 */
	int state;              /* adjtimex's return: LC_TIME_OK .. LC_TIME_ERROR */
	int status;             /* timex.status: LC_STA_* bits */
	uint64_t clock_was_set; /* how often the host's REALTIME was set so far
	                         * (steps, and the kernel's own leaps: a
	                         * TFD_TIMER_CANCEL_ON_SET count); any origin,
	                         * only its changes matter */
	int flags;              /* LC_HOST_SAMPLE_*: what the fields hold */
	/* The kernel's error estimates (timex.maxerror, timex.esterror), us:
	 * maxerror bounds |host REALTIME - true UTC| while STA_UNSYNC is
	 * clear (lc_gettime_bounds). Appended in 0.2: the library owns the
	 * struct it passes to host_sample, so a callback that does not know
	 * them leaves them 0 and the flag clear. */
	int64_t maxerror_us;
	int64_t esterror_us;
};

struct lc_tk_config {
	/* The table used for TAI-UTC and, with LC_LEAP_FROM_TABLE, for leaps.
	 * NULL: the library's built-in table. Not copied: it must outlive the
	 * timekeeper; a reload in place takes effect at the next lc_update(). */
	const lc_leaptable *table;
	int leap_source;             /* enum lc_leap_source */
	/* Simulated counters: REALTIME at counter 0, in POSIX ns. Real
	 * counters (and follow_host) start from the host's CLOCK_REALTIME. */
	int64_t initial_realtime_ns;
	/* Initial TAI-UTC in seconds; -1 takes it from the table. */
	int initial_tai_offset;
	/* Smearing: the policy of UTC_SLS (NULL: no smear, UTC_SLS is UTC,
	 * 23:59:60 included) and whether REALTIME reads the smeared timeline
	 * (ignored without a policy). Not copied. A leap the policy cannot
	 * smear in the time left (lc_smear_validate's rate bound) is applied
	 * exactly on UTC_SLS: it then reads UTC's 23:59:60 too. */
	const struct lc_smear_policy *smear;
	int realtime_smeared;
	/* Follow the host's CLOCK_REALTIME (DESIGN.md 7): each lc_update()
	 * re-samples it and compares the difference (host - leapclock, the
	 * declared host_smear removed) with the offset learnt at the sample
	 * before, not with zero. Where the host gives the kernel's facts and a
	 * step signal (a real Linux host: the read-only adjtimex and a
	 * TFD_TIMER_CANCEL_ON_SET timerfd; a simulated one: host_sample), the
	 * candidates for the difference are the learnt offset and, while
	 * leapclock has applied a table leap that the kernel has not (its TAI
	 * offset has not moved by the leap's +-1), that plus the leap's second:
	 *  - no step signalled: the difference from the nearest candidate is
	 *    drift, removed by steering the rate (a learnt frequency within
	 *    500 ppm plus a phase term up to 10 %), near a leap too;
	 *  - a step signalled that the kernel's own leap does not explain: it
	 *    is followed as a clock-was-set by the difference from the nearest
	 *    candidate, whatever its size (1.5 ms or 300 ms, near a leap or
	 *    not).
	 * The host one leap behind (late, or never) is reported as
	 * LC_HOST_LEAP_OFF, never followed. STA_INS/STA_DEL are not trusted to
	 * predict a kernel leap (a step drops an armed one on Linux while the
	 * bit reads back): only the TAI offset's change says it happened.
	 * Without a step signal (host_realtime, or no timerfd) the threshold
	 * rule is used: differences up to host_step_ns steered (but not within
	 * 2 days of a table leap without a declared host_smear, where an
	 * undeclared smear would look like drift), up to 1 s + host_step_ns
	 * within those 2 days reported as the host's leap handling, anything
	 * else followed as a step. TAI-UTC always comes from the table. */
	int follow_host;
	/* The host, sampled now, simulated: fills *out (realtime_ns, and what
	 * out->flags says it holds) and returns 0, or a negative code to skip
	 * this update's following. Preferred to host_realtime. */
	int (*host_sample)(void *arg, struct lc_host_sample *out);
	/* The host's CLOCK_REALTIME in POSIX ns, sampled now, without kernel
	 * facts or step signal (the threshold rule). Both NULL: this host
	 * (following it on Linux: adjtimex with modes 0 and the timerfd;
	 * elsewhere, and for a timekeeper that does not follow it, whose
	 * REALTIME only starts at the host's: clock_gettime(CLOCK_REALTIME)
	 * alone, no adjtimex, no timerfd). */
	int64_t (*host_realtime)(void *arg);
	void *host_arg; /* passed to host_sample / host_realtime */
	/* The smear the host is known to follow (e.g. the "google" preset for
	 * a host synced to Google's servers), removed before comparing; NULL:
	 * the host is expected to keep true UTC. Not copied. */
	const struct lc_smear_policy *host_smear;
	/* The threshold rule's largest difference followed smoothly, ns (and,
	 * with a step signal, the largest drift a signal that the kernel's
	 * leap explains may hide); 0: 1 ms. */
	int64_t host_step_ns;
	/* How the host handles a leap (enum lc_host_leap, DESIGN.md 7):
	 * LC_HOST_LEAP_KERNEL (0, the default) as above; _SMEAR: the host
	 * follows an upstream that smears by host_smear (which must be set;
	 * host_smear set with _KERNEL is _SMEAR, as before this field);
	 * _SLEW, _STEP, _IGNORE: the host keeps the old TAI-UTC past the
	 * boundary and its NTP slews the second out (at up to host_slew_ppb),
	 * steps it out, or leaves it to its upstream. Appended in 0.2. */
	int host_leap;
	/* _SLEW: the host's maximum slew rate, ppb; 0: chrony's default
	 * maxslewrate, 83,333 ppm (ntpd -x: 500 ppm, "slew:500"). */
	int64_t host_slew_ppb;
};

/* How the host the timekeeper follows handles a leap second
 * (lc_tk_config host_leap; leapclockd --host-leap; LEAPCLOCK_HOST_LEAP). */
enum lc_host_leap {
	LC_HOST_LEAP_KERNEL = 0, /* its kernel applies it (armed by NTP), late,
	                          * or never: DESIGN.md 7 */
	LC_HOST_LEAP_SMEAR = 1,  /* synced to a smearing upstream (a preset) */
	LC_HOST_LEAP_SLEW = 2,   /* chrony leapsecmode slew, ntpd -x */
	LC_HOST_LEAP_STEP = 3,   /* chrony leapsecmode step */
	LC_HOST_LEAP_IGNORE = 4  /* chrony leapsecmode ignore: left to the
	                          * upstream, corrected at any later time */
};

/* chrony's default maxslewrate, 83,333 ppm, in ppb. */
#define LC_HOST_SLEW_DEFAULT_PPB INT64_C(83333000)

/* A host leap mode as text says it: "kernel", "smear:PRESET" (any
 * lc_smear_preset_names() name: google, aws, ...), "slew", "slew:PPM"
 * (1..100000 ppm, e.g. slew:500 for ntpd -x), "step", "ignore". */
struct lc_host_leap_spec {
	int mode;                     /* enum lc_host_leap */
	int64_t slew_ppb;             /* _SLEW: the rate, ppb; 0 the default */
	struct lc_smear_policy smear; /* _SMEAR: the preset's policy */
};

/* Parses `text` into *out. LC_EINVAL with a reason naming the bad part
 * (and err->where set to `where`, e.g. "--host-leap"; NULL: "host leap
 * mode"). */
LC_API int lc_host_leap_parse(const char *text, const char *where,
                              struct lc_host_leap_spec *out,
                              struct lc_error *err);
/* The text form of a spec, as lc_host_leap_parse() reads it back:
 * "kernel", "smear:google", "slew", "slew:500", ... Returns the length
 * (snprintf's), or LC_EINVAL for a bad spec. */
LC_API int lc_host_leap_format(const struct lc_host_leap_spec *s, char *buf,
                               size_t size);
/* Puts the spec into a config (host_leap, host_slew_ppb, host_smear
 * pointing into *s, which must outlive the timekeeper). */
LC_API void lc_host_leap_apply(const struct lc_host_leap_spec *s,
                               struct lc_tk_config *cfg);
/* The mode's name: "kernel", "smear", "slew", "step", "ignore" ("?" for
 * an unknown value). */
LC_API const char *lc_host_leap_name(int mode);

/* Sets defaults: no table (built-in), leaps from adjtimex, realtime 0,
 * TAI offset from the table, no smear, no host following. */
LC_API void lc_tk_config_init(struct lc_tk_config *cfg);
/* A timekeeper on `counter` (not owned: free it after the timekeeper);
 * cfg NULL takes the defaults. MONOTONIC and MONOTONIC_RAW start at the
 * counter's own value at its nominal rate (0 on a new sim counter).
 * LC_EINVAL for a bad config (leap source, TAI offset, smear policy). */
LC_API int lc_tk_new(lc_timekeeper **out, lc_counter *counter,
                     const struct lc_tk_config *cfg);
LC_API void lc_tk_free(lc_timekeeper *tk);
LC_API lc_counter *lc_tk_counter(const lc_timekeeper *tk);
/* The leap table the timekeeper uses (the configured one, or its own
 * built-in copy). */
LC_API const lc_leaptable *lc_tk_table(const lc_timekeeper *tk);
/* The leap source: enum lc_leap_source. */
LC_API int lc_tk_leap_source(const lc_timekeeper *tk);

/* The process-wide instance: the host's timeline. Created on first use,
 * thread-safely; never freed.
 *
 * Where leapclockd publishes the host's timeline (/run/leapclock/timeline,
 * or the page $LEAPCLOCK_TIMELINE names; LEAPCLOCK_TIMELINE=none: never a
 * page), lc_default() reads that page, lock-free, exactly as it would read
 * its own snapshot: every program on the host, the preload shim and
 * leapclockd's NTP answers then read one timeline (its table, its smear,
 * its host following). A page is refused, with one warning on stderr,
 * when someone other than root or this user could have written it or its
 * folder, or it is of another ABI version, size or boot, or truncated, or
 * a rehearsal (--pretend) at the default path. lc_settime() and
 * lc_adjtimex() with modes then fail with LC_EPERM: only the writer sets
 * the host's timeline. If the writer stops updating the page for
 * LC_TIMELINE_STALE_S seconds, the next lc_update() (the library runs one
 * each second on its own) carries on in-process from the page's last
 * snapshot, with no step beyond the drift since that heartbeat.
 *
 * Without a page it runs the same writer in-process: on the best real
 * counter, following the host with the system's leap table
 * (LC_LEAP_FROM_TABLE; a table LEAPCLOCK_LEAPFILE names that cannot be
 * used is said once on stderr, and the built-in table used), updated once a second by a thread of the library
 * (re-created in a fork()ed child), so no lc_update() call is needed;
 * calling it still helps right after the host's clock was set (it follows
 * the step at once rather than within a second). The environment can add a
 * smear: LEAPCLOCK_SMEAR=<preset> (lc_smear_preset) smears UTC_SLS, and
 * LEAPCLOCK_REALTIME_SMEARED=1 (or the build option LC_REALTIME_SMEARED,
 * which defaults the preset to "utc-sls") maps REALTIME to it; with a page,
 * the page's smear is used. NULL only if no counter works or memory is
 * short. */
LC_API lc_timekeeper *lc_default(void);

#define LC_TIMELINE_STALE_S 5

enum lc_timeline_source {
	LC_TIMELINE_OWN = 0,        /* a timekeeper of the caller's own */
	LC_TIMELINE_PAGE = 1,       /* lc_default() reading a writer's page */
	LC_TIMELINE_IN_PROCESS = 2, /* lc_default() without a page */
	LC_TIMELINE_FALLBACK = 3    /* lc_default() on from a page gone stale */
};

struct lc_timeline_info {
	int source;              /* enum lc_timeline_source */
	char path[256];          /* the page read or tried; "" none */
	char why[256];           /* IN_PROCESS/FALLBACK: why not the page */
	long writer_pid;         /* the page's writer, 0 if none */
	int writer_alive;        /* 1 if that process exists */
	int pretend;             /* 1 for a rehearsal page (--pretend) */
	uint64_t writer_starts;  /* writers that took the page, restarts + 1 */
	int64_t age_ns;          /* since the writer's last heartbeat */
	int64_t last_update_rt;  /* the writer's REALTIME then, ns */
	char table_source[256];  /* the writer's leap table */
	int table_hash;          /* enum lc_hash_status */
	int64_t table_expires;   /* POSIX s, INT64_MIN unknown */
	/* the writer's last table problem, "" none: "FILE:LINE: message"
	 * made to fit whole in at most 158 bytes by leapclockd (a long
	 * FILE shortened in its middle with "...", its name kept; a message
	 * longer than that cut after a word, ending " ..."). 159 bytes:
	 * one the page cut (another writer). Its full text is in the
	 * writer's log. The size stays 160: the ABI of this struct. */
	char table_note[160];
	char smear[48];          /* the page's UTC_SLS policy, "" none */
	int host_state;          /* enum lc_host_state, as the writer sees it */
	int64_t host_offset_ns;
	uint64_t host_steps;
	/* Appended in 0.2: the host's declared leap handling and what the
	 * detection recognised (lc_tk_host) */
	int host_leap;                 /* enum lc_host_leap */
	char host_leap_text[40];       /* "kernel", "smear:google", ... */
	int host_detected;             /* enum lc_host_detect */
	char host_detected_text[40];   /* "smear:google", "slew", ""; */
	int64_t host_hold_ns;          /* lc_tk_host hold_ns */
	/* Appended in 0.3: the counter the timeline runs on, as leapclockd's
	 * --counter names it: "system" (the host's CLOCK_MONOTONIC), "raw"
	 * (CLOCK_MONOTONIC_RAW: a declared host mode), "tsc"; "" unknown */
	char counter[16];
};

/* Which timeline `tk` reads and its state. For a timekeeper other than
 * lc_default(), source is LC_TIMELINE_OWN and the rest is empty. */
LC_API int lc_timeline_info(const lc_timekeeper *tk, struct lc_timeline_info *out);

/* The tick: accumulates elapsed cycles, runs the NTP second processing and the
 * leap state machine. May run at any rate; readers do not depend on it for
 * the leap at hand: every read path applies at its exact instant the one
 * leap the snapshot holds, which is the next leap as of the last writer
 * call (lc_update, lc_settime, lc_adjtimex), or the one just applied while
 * its inserted 23:59:60 lasts. The leap after it is armed by the first
 * writer call after that leap's instant (for an insertion, after its
 * 23:59:60 ended). So reads are exact through every leap if some writer
 * call runs between each two leaps (at least once a day where leaps come
 * at consecutive day ends); if none runs, reads are one second off from
 * the second leap's instant until the next update, which then processes
 * every leap crossed, in order, exactly (REALTIME, TAI-UTC, the NTP state,
 * the clock-was-set count). A leap's smear that must wait for the previous
 * leap's to end is published with it and starts exactly at its end, so
 * UTC_SLS does not depend on when updates run (docs/smearing.md (d)). NTP's
 * per-second slew and frequency take effect at each update, as Linux's at
 * each tick. It processes every REALTIME second crossed since the last
 * update, in order; after a gap of days the quiet ones (nothing armed,
 * nothing left to slew, maxerror at its limit) are skipped, exactly. With
 * follow_host it also re-samples the host's CLOCK_REALTIME. Returns 0. */
LC_API int lc_update(lc_timekeeper *tk);

/* Reads a clock. Lock-free; never waits for a writer. For LC_CLOCK_UTC,
 * tv_nsec is in [1e9, 2e9) during an inserted second; for LC_CLOCK_UTC_SLS
 * too while no smear plan runs (no policy, or a leap the policy cannot
 * smear): UTC_SLS is UTC then. While a plan runs UTC_SLS never shows
 * 23:59:60. */
LC_API int lc_gettime(const lc_timekeeper *tk, lc_clock_id id, struct timespec *ts);
/* The same as ns; for LC_CLOCK_UTC, and LC_CLOCK_UTC_SLS reading 23:59:60,
 * the value is tv_sec*1e9 + tv_nsec (which repeats after 23:59:60: use
 * lc_gettime for those, and order readings as (tv_sec, tv_nsec)). */
LC_API int64_t lc_now_ns(const lc_timekeeper *tk, lc_clock_id id);
/* Broken-down UTC with sec == 60 during an inserted leap second. */
LC_API int lc_gettime_utc_tm(const lc_timekeeper *tk, struct lc_tm *tm);

/* Steps REALTIME (and TAI with it) as settimeofday does; `id` is
 * LC_CLOCK_REALTIME, LC_CLOCK_UTC or LC_CLOCK_TAI. Clears NTP state as Linux
 * does and bumps the clock-was-set sequence. UTC takes tv_nsec in [1e9, 2e9)
 * only inside an inserted second of the table (else LC_ENOTLEAP): the clock
 * is then inside that second (TIME_OOP until its end). TAI converts with
 * the table under LC_LEAP_FROM_TABLE/follow_host, else with the current
 * TAI offset. LC_EINVAL for another id, a bad tv_nsec, or REALTIME below
 * MONOTONIC (as Linux). With LC_LEAP_FROM_TABLE the TAI offset is re-read
 * from the table; with adjtimex as the source it is kept. A smear under way
 * for a leap that stays armed (or was applied) moves with the step, as for
 * ADJ_SETOFFSET and a followed host step: UTC_SLS steps with REALTIME and
 * then reads the policy's nominal smear of the new UTC (docs/smearing.md,
 * edge case (c)); an unwind after a cancelled leap is kept as it is. */
LC_API int lc_settime(lc_timekeeper *tk, lc_clock_id id, const struct timespec *ts);
/* Incremented whenever REALTIME/TAI step: lc_settime, ADJ_SETOFFSET, a
 * change of TAI-UTC (ADJ_TAI, or the table), a followed host step, and each
 * leap. For a leap it moves at the exact instant REALTIME moves (the start
 * of 23:59:60, or of the deleted 23:59:59): read at or after that instant
 * it is one higher, whether or not an update has run since. Lock-free. */
LC_API uint64_t lc_clock_was_set_seq(const lc_timekeeper *tk);

/* adjtimex with CAP_SYS_TIME. Returns the clock state (LC_TIME_*) or a
 * negative error, as Linux's adjtimex. */
LC_API int lc_adjtimex(lc_timekeeper *tk, struct lc_timex *tx);
/* adjtimex without CAP_SYS_TIME: modes 0 and LC_ADJ_OFFSET_SS_READ only;
 * anything else is LC_EPERM. */
LC_API int lc_adjtimex_unprivileged(lc_timekeeper *tk, struct lc_timex *tx);

/* How the timekeeper agrees with the host it follows (lc_tk_config
 * follow_host). */
enum lc_host_state {
	LC_HOST_NOT_FOLLOWED = 0, /* follow_host is off */
	LC_HOST_AGREES = 1,       /* within host_step_ns; followed smoothly */
	LC_HOST_LEAP_OFF = 2,     /* off by (part of) a leap the table explains:
	                           * the host applies it late, never, or smears
	                           * it (undeclared); not followed */
	LC_HOST_STEPPED = 3,      /* the last update followed a host step */
	LC_HOST_SMEARED = 4       /* agrees, the declared host smear (under
	                           * way now) removed */
};

struct lc_tk_host {
	int state;          /* enum lc_host_state */
	int64_t offset_ns;  /* host REALTIME - leapclock REALTIME (with the
	                     * declared host smear removed) at the last update,
	                     * ns: about +-1e9 while the host is a leap behind */
	int64_t steer_ppb;  /* rate correction applied to follow the host, ppb */
	uint64_t steps;     /* host steps followed so far */
	int leaps_behind;   /* leap seconds (signed, +1 an insertion) applied
	                     * here that the host has not (yet) */
	int kernel_rule;    /* 1: decided from the kernel's facts and step
	                     * signal; 0: by the threshold rule */
	int32_t kernel_tai; /* the host kernel's TAI offset, s, and its state */
	int kernel_state;   /* (LC_TIME_*) and status (LC_STA_*) at the last */
	int kernel_status;  /* sample; 0 unless kernel facts were sampled */
	/* Appended in 0.2: the declared mode (lc_tk_config host_leap, the
	 * smear's preset in host_leap_text: "smear:google") ... */
	int host_leap;           /* enum lc_host_leap */
	char host_leap_text[40]; /* lc_host_leap_format() of it */
	/* ... and what the detection recognised, undeclared (kernel mode),
	 * around a table leap: LC_HOST_DETECT_* and the declaration that
	 * would describe it ("smear:google", "slew", "slew:500", "step"), ""
	 * none. Once recognised it stays until the timekeeper is freed. */
	int detected;            /* enum lc_host_detect */
	char detected_text[40];
	/* While the host is slewing (or smearing, undeclared) a leap out:
	 * how long the writer has held its rate, ns (0: not holding). */
	int64_t hold_ns;
};

/* What the detection (kernel mode) recognised in the host's phase around
 * a table leap (DESIGN.md 7). */
enum lc_host_detect {
	LC_HOST_DETECT_NONE = 0,
	LC_HOST_DETECT_SMEAR = 1, /* a smear preset's curve, within 5 ms over
	                           * at least 8 samples 20 ms or more apart
	                           * from the host's learnt offset */
	LC_HOST_DETECT_SLEW = 2,  /* after the boundary, the host a leap behind
	                           * and closing it at a steady rate (5 samples
	                           * within 5 ms of a line, at least 20 ms
	                           * of it done) */
	LC_HOST_DETECT_STEP = 3   /* the host a leap behind, then stepped by
	                           * the leap's second (not its kernel's leap) */
};

/* The host-following state as of the last lc_update(). LC_ENOENT if the
 * timekeeper does not follow the host (host_leap and host_leap_text are
 * still filled: the declared mode). */
LC_API int lc_tk_host_status(const lc_timekeeper *tk, struct lc_tk_host *st);

/* The next leap armed in the timekeeper (by adjtimex or the table): `when`,
 * the POSIX seconds of the 00:00:00 after it, and its direction. LC_ENOENT
 * if none is armed, or from the leap's own boundary on: the start of the
 * inserted 23:59:60 (so during 23:59:60 it is no longer "next"), or of the
 * deleted 23:59:59 (which is also when 00:00:00 begins). Lock-free. */
LC_API int lc_tk_next_leap(const lc_timekeeper *tk, int64_t *when, int *dir);


/* ------------------------------------------------------------------------ */
/* Error bounds (src/bounds.c)                                               */
/* ------------------------------------------------------------------------ */

/*
 * Every snapshot the writer publishes carries what bounds |clock - true
 * time| at any later read: a half-width at the snapshot's instant and a
 * maximum drift rate from it on. The writer makes the half-width, at each
 * sample of the host, the sum of
 *   - the kernel's maxerror (timex.maxerror, us: chronyd or ntpd sets it
 *     to its root distance, and the kernel adds 500 us each second);
 *     without the host's kernel facts, the timekeeper's own NTP maxerror
 *     (what lc_adjtimex was told);
 *   - half the sampling bracket (the width of the counter reads around the
 *     host sample) and the following residual (the phase between leapclock
 *     and the host, the declared host smear and a leap the host has not
 *     applied removed, that the steer has not yet taken out);
 *   - what a declared host mode adds (its own uncertainty, 0 for none);
 * and from the sample on it grows by LC_BOUNDS_DRIFT_PPB (plus the
 * proportional steer then applied), so a page whose writer stopped widens
 * honestly at every read. STA_UNSYNC set, or no update for
 * LC_TIMELINE_STALE_S seconds, is LC_BOUNDS_FREE_RUNNING; the bound is
 * then still true (the kernel's maxerror grows to 16 s while unsynced).
 *
 * Which truth: REALTIME, UTC and UTC_SLS against true UTC (UTC_SLS
 * against the configured smear of true UTC), TAI against true TAI;
 * MONOTONIC and BOOTTIME against true TAI less the snapshot's TAI -
 * clock offset (the same half-width: they are TAI's rate). MONOTONIC_RAW
 * runs at the counter's nominal rate, which nothing measures: its status
 * is always LC_BOUNDS_UNKNOWN.
 *
 * 23:59:60: earliest and latest are readings of the clock itself, in the
 * clock's own convention, at the two ends of the true interval: for UTC
 * (and UTC_SLS while it shows 23:59:60) either may be inside the inserted
 * second, tv_nsec in [1e9, 2e9), and earliest <= latest in (tv_sec,
 * tv_nsec) order, e.g. [23:59:59.999990, 23:59:60.000010] is
 * {tv_sec = 23:59:59's, tv_nsec 999990000} to {the same tv_sec, tv_nsec
 * 1000010000}. REALTIME repeats 23:59:59 at an insertion, so where the
 * interval reaches into the repeat its earliest is the smallest POSIX
 * value in it and its latest the largest: the bound then covers both
 * 23:59:59s, as the repeat forces. A deleted second is simply skipped.
 */
enum lc_bounds_status {
	LC_BOUNDS_UNKNOWN = 0,      /* no bound: earliest == latest == now */
	LC_BOUNDS_SYNCHRONIZED = 1, /* the host's NTP is synchronised and
	                             * the writer is updating */
	LC_BOUNDS_FREE_RUNNING = 2  /* STA_UNSYNC, or a stale snapshot: the
	                             * bound holds, and grows with the drift */
};

/* The drift rate a bound grows by from the last sample, ppb (15 ppm, as
 * AWS ClockBound's default maximum drift). */
#define LC_BOUNDS_DRIFT_PPB 15000

struct lc_bounds {
	struct timespec now;      /* the reading, as lc_gettime gives it */
	struct timespec earliest; /* the clock's reading at true time - error */
	struct timespec latest;   /* the clock's reading at true time + error */
	int64_t error_ns;         /* the half-width at this read, ns */
	int64_t age_ns;           /* since the snapshot's last sample, ns */
	int status;               /* enum lc_bounds_status */
};

/* Reads clock `id` and its bound, from one snapshot at one instant:
 * the true time is within [earliest, latest] (see above). Lock-free, the
 * cost of a plain read plus one word of the same snapshot. LC_EINVAL for
 * an invalid id or a NULL out. */
LC_API int lc_gettime_bounds(const lc_timekeeper *tk, lc_clock_id id,
                             struct lc_bounds *out);

/* What the current bound is made of, as the writer last sampled it (for
 * status and metrics). A page reader sees only the published half-width,
 * drift rate and status (have_parts 0). Units: ns, ppb. */
struct lc_bounds_info {
	int status;           /* enum lc_bounds_status at the last sample */
	int have_parts;       /* 1: the parts below are known */
	int unsync;           /* STA_UNSYNC was set */
	int64_t error_ns;     /* half-width at the snapshot's instant */
	int64_t drift_ppb;    /* growth from then on */
	int64_t age_ns;       /* since the last sample, now */
	int64_t maxerror_ns;  /* the kernel's (or NTP state's) maxerror */
	int64_t esterror_ns;  /* and esterror (not in the bound: an estimate) */
	int64_t bracket_ns;   /* the host sample's read width */
	int64_t residual_ns;  /* |phase left from the host| */
	int64_t mode_ns;      /* what the declared host mode adds */
};

LC_API int lc_tk_bounds_info(const lc_timekeeper *tk,
                             struct lc_bounds_info *out);

/* ------------------------------------------------------------------------ */
/* Timers and loops (src/timer.c, src/timer_heap.c, src/loop.c)              */
/* ------------------------------------------------------------------------ */

/*
 * Timers never fire early: a timer fires at the first instant at which its
 * own clock reads at or past its deadline (DESIGN.md invariant 2). Each loop
 * keeps one queue ("base") per clock id, keyed in that clock's own time;
 * before a timer fires the loop reads the timer's own clock and, if it is not
 * yet due (whatever a conversion to MONOTONIC said), leaves it queued.
 *
 * Units: deadlines and intervals are struct timespec on the timer's clock,
 * or int64_t ns (the lc_timer_start_ns form); loop deadlines are MONOTONIC ns
 * of the loop's timekeeper.
 *
 * UTC and UTC_SLS timers: deadlines use the UTC convention (tv_nsec in
 * [1e9, 2e9) is 23:59:60), so 23:59:60.5 is a deadline; one in a second
 * that ends no UTC day is the next second's 00.000. Intervals and relative
 * values on UTC count elapsed UTC seconds, the inserted second included,
 * for the leap the timekeeper has armed when the period or the relative
 * value is computed. UTC_SLS is UTC while no smear plan runs (no policy, or
 * a leap the policy cannot smear), timers included: a UTC_SLS timer for
 * 00:00:00 after an insertion fires after 23:59:60, as a UTC one does.
 * While a plan runs UTC_SLS shows no 23:59:60 and its periods and relative
 * values are added on its own reading. UTC and UTC_SLS deadlines from
 * 2262-04-10 on (where REALTIME's ns end) are clamped to "never"; before
 * that they fire as REALTIME's do. REALTIME periods are added on the
 * clock's own reading, as Linux adds them on CLOCK_REALTIME: a 1 s REALTIME
 * period across an insertion has one 2 s gap.
 *
 * Clock set (LC_TIMER_CANCEL_ON_SET, absolute timers only, the semantics of
 * timerfd's TFD_TIMER_CANCEL_ON_SET): the timer is cancelled and its callback
 * runs once with status LC_ECANCELED when its clock is set:
 *   REALTIME: when REALTIME - MONOTONIC changes: lc_settime, ADJ_SETOFFSET,
 *             and every applied leap second, at the exact instant the leap
 *             steps REALTIME (Linux cancels such timerfds when the tick that
 *             applies the leap runs clock_was_set; leapclock applies the leap
 *             at the boundary, so it cancels there).
 *   TAI:      when TAI - MONOTONIC changes (lc_settime, ADJ_SETOFFSET,
 *             ADJ_TAI); never at a leap.
 *   UTC, UTC_SLS: when both REALTIME and TAI step (lc_settime, ADJ_SETOFFSET);
 *             never at a leap, never by a smear, not by ADJ_TAI alone.
 * Changes are detected when lc_clock_was_set_seq() moves and at the armed
 * leap's instant (the loop wakes there), and each such event is judged on
 * its own (a leap, then an ADJ_TAI, is not a step of both). Steps smaller
 * than the spread of two back-to-back clock reads (0 on a simulated
 * counter, tens of ns on a real one) go unnoticed.
 * On MONOTONIC_RAW, MONOTONIC and BOOTTIME the flag is LC_EINVAL.
 *
 * Thread safety: a loop serialises its operations on a mutex (unless created
 * with LC_LOOP_UNLOCKED). Any thread may start, stop or query a timer of a
 * loop while another thread runs the loop; a timer started from another
 * thread that becomes the earliest one wakes a loop blocked in lc_loop_run().
 * Callbacks run on the thread that runs the loop, without the lock held, and
 * may start, stop or free any timer, including their own. After
 * lc_timer_stop() returns the callback will not start, but one already
 * running on the loop's thread may still be running (as with POSIX timers).
 * One thread at a time runs a loop (lc_loop_run*, lc_loop_expire).
 *
 * Memory: a timer is caller-allocated (struct lc_timer, 128 bytes); the
 * queue holds 16 bytes per armed timer in a 4-ary heap array per clock. A
 * stop leaves a 16-byte tombstone in O(1), and tombstones are compacted
 * away before they outnumber the armed timers; the array grows by doubling
 * (never shrinks; lc_loop_reserve() presizes it). So 16 bytes per armed
 * timer, at most 64 in the worst case of tombstones and doubling: 10
 * million timers take 1.28 GB of the caller's plus 160 MB (at most 640 MB)
 * of queue. Starting or stopping a timer never allocates once the array is
 * large enough; expiry never allocates.
 */
typedef struct lc_loop lc_loop;
typedef struct lc_timer lc_timer;

/* Called when a timer expires (status 0; lc_timer_overrun() gives the
 * expirations missed before this one, for periodic timers) or is cancelled
 * because its clock was set (status LC_ECANCELED; the timer is then idle). */
typedef void (*lc_timer_cb)(lc_timer *t, int status, void *data);

/* Embed it (like uv_timer_t): its size is part of the ABI, its fields are
 * private and may change meaning in any release. */
struct lc_timer {
	int64_t priv[16]; /* 128 bytes */
};

/* lc_timer_start flags */
#define LC_TIMER_ABSTIME 0x1       /* value is an absolute deadline */
#define LC_TIMER_CANCEL_ON_SET 0x2 /* absolute only; see above */

/* lc_loop_new flags */
#define LC_LOOP_UNLOCKED 0x1 /* caller guarantees one thread; no mutex */

/* A loop on `tk` (which must outlive it). On Linux the loop owns one timerfd
 * on CLOCK_MONOTONIC for lc_loop_run and lc_loop_fd. */
LC_API int lc_loop_new(lc_loop **out, lc_timekeeper *tk, unsigned int flags);
/* Frees the loop; its timers must not be used afterwards. */
LC_API void lc_loop_free(lc_loop *loop);
LC_API lc_timekeeper *lc_loop_timekeeper(const lc_loop *loop);
/* Presizes the queue of clock `id` for `n` armed timers (16 bytes each). */
LC_API int lc_loop_reserve(lc_loop *loop, lc_clock_id id, size_t n);
/* Armed timers on all clocks. */
LC_API size_t lc_loop_count(lc_loop *loop);

/* Initialises an idle timer on clock `id` of `loop`. Never fails for a valid
 * id and non-NULL arguments (LC_EINVAL otherwise). */
LC_API int lc_timer_init(lc_loop *loop, lc_timer *t, lc_clock_id id, lc_timer_cb cb,
                         void *data);
/* Arms (or re-arms) a timer. `value`: with LC_TIMER_ABSTIME the deadline on
 * the timer's clock, otherwise an offset (>= 0) from the clock's reading now;
 * tv_nsec in [0, 1e9), or [0, 2e9) for an absolute UTC or UTC_SLS deadline
 * (see the UTC notes above). `interval`
 * (NULL or zero: one-shot): the period, tv_nsec in [0, 1e9). Deadlines that
 * would overflow are clamped to the latest representable instant. Ties
 * expire in the order they were started. LC_EINVAL on a bad argument. */
LC_API int lc_timer_start(lc_timer *t, int flags, const struct timespec *value,
                          const struct timespec *interval);
/* The same in ns. An absolute UTC or UTC_SLS value_ns is read as a timespec
 * with tv_nsec < 1e9, so it cannot name 23:59:60: use lc_timer_start for
 * that. */
LC_API int lc_timer_start_ns(lc_timer *t, int flags, int64_t value_ns,
                             int64_t interval_ns);
/* Disarms; returns 1 if the timer was armed (or expired and not yet
 * delivered), 0 if it was idle. */
LC_API int lc_timer_stop(lc_timer *t);
/* 1 if armed or expired-but-not-yet-delivered, else 0. */
LC_API int lc_timer_active(lc_timer *t);
/* Time left until the deadline, on the timer's own clock (0 if due);
 * LC_ENOENT if idle. */
LC_API int lc_timer_remaining(lc_timer *t, struct timespec *left);
/* The current absolute deadline (the UTC convention for UTC and UTC_SLS
 * timers). */
LC_API int lc_timer_deadline(lc_timer *t, struct timespec *deadline);
/* Expirations missed before the last delivered one (timer_getoverrun). */
LC_API int64_t lc_timer_overrun(lc_timer *t);
LC_API void *lc_timer_data(const lc_timer *t);
/* The timer's clock; LC_CLOCK_COUNT (no clock) for NULL. */
LC_API lc_clock_id lc_timer_clock(const lc_timer *t);

/* The MONOTONIC instant (ns) of the next expiry or clock-set cancellation;
 * INT64_MAX if nothing is armed (or loop is NULL). For callers with their
 * own poll/epoll: sleep until then (round up), then call lc_loop_expire().
 * Fires nothing. */
LC_API int64_t lc_loop_next_deadline(lc_loop *loop);
/* Reads each armed clock once, moves every due timer to a ready list, then
 * runs their callbacks in order (ties in start order). Returns the number of
 * callbacks run. Must not be called from a callback. */
LC_API int lc_loop_expire(lc_loop *loop);
/* Discrete-event driver for a simulated counter: repeatedly jumps the
 * counter to the next expiry and fires it (zero lateness), until MONOTONIC
 * reaches `until_mono` (the counter is left there). Does not call
 * lc_update(): callers that want ticks call it between runs. Returns the
 * callbacks run, or LC_ENOTSUP on a counter that is not simulated. */
LC_API int64_t lc_loop_run_sim(lc_loop *loop, int64_t until_mono);

/* lc_loop_run modes */
#define LC_RUN_DEFAULT 0 /* until no timer is armed or lc_loop_stop() */
#define LC_RUN_ONCE 1    /* block for one expiry, run it, return */
#define LC_RUN_NOWAIT 2  /* run what is due, don't block */

/* Real driver (Linux): sleeps on the loop's timerfd (CLOCK_MONOTONIC, armed
 * at the deadline leapclock computed, so timers are leap-correct whatever
 * the host kernel does) and runs timers. Returns the callbacks run, or a
 * negative error (LC_ENOTSUP without timerfd; LC_EINVAL on a simulated
 * counter). */
LC_API int64_t lc_loop_run(lc_loop *loop, int mode);
/* Makes lc_loop_run return after the callback in progress (any thread). */
LC_API void lc_loop_stop(lc_loop *loop);
/* The timerfd (readable when the next deadline is due), re-armed by each
 * lc_loop_expire()/lc_loop_next_deadline(); -1 if there is none (or loop
 * is NULL). For an external epoll: wait for it, read it, call
 * lc_loop_expire(). */
LC_API int lc_loop_fd(lc_loop *loop);

#ifdef __cplusplus
}
#endif

#endif /* LEAPCLOCK_H */
