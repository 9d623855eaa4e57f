/* cli.h - shared by the leapclock subcommands (tools/leapclock/cmd_*.c). */
#ifndef LC_CLI_H
#define LC_CLI_H

#include "leapclock.h"

#include <stdio.h>

/* Each command file defines these two (NAME = the file's cmd_NAME). */
#define LC_CMD(name)                                                     \
	int lc_cmd_##name(int argc, char **argv);                        \
	extern const char lc_cmd_##name##_summary[];                     \
	void lc_cmd_##name##_usage(FILE *out);
#include "lc_commands.h"
#undef LC_CMD

/* Exit codes: 0 ok, 1 the check failed / the answer is "no", 2 usage or input
 * error, 3 runtime error. */
#define LC_EXIT_OK 0
#define LC_EXIT_FAIL 1
#define LC_EXIT_USAGE 2
#define LC_EXIT_RUNTIME 3

/* Prints "leapclock CMD: message" to stderr; returns LC_EXIT_USAGE. */
int lc_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Flushes f (stdout: flushed and left open, other streams closed) after
 * checking that every write to it went through: 0, or LC_EXIT_RUNTIME
 * with "leapclock CMD: [WHAT ]NAME: strerror" on stderr (NAME "stdout"
 * for stdout; what may be NULL). A write that failed earlier with the
 * bytes since dropped is reported as EIO. stdout's error indicator is
 * cleared once reported, so main()'s final check does not say it twice. */
int lc_cli_close_out(const char *cmd, FILE *f, const char *what,
                     const char *name);
/* Prints an lc_error as "leapclock CMD: where:line: msg". */
void lc_cli_print_error(const char *cmd, const struct lc_error *e);
/* The JSON name of an lc_tk_host state (LC_HOST_*): "agrees", ... */
const char *lc_cli_host_state_name(int state);
/* v, or 0.0 where printing it with `digits` decimals would show -0.000
 * (JSON numbers and text alike: no "-0.000000"). */
double lc_cli_json_num(double v, int digits);
/* "[-+]DIGITS[.DIGITS]" seconds (1..9 fraction digits) to ns, exactly;
 * *digits the fraction digits given. LC_EPARSE or LC_ERANGE with *err
 * naming `what` ("Unix", "TAI"...) otherwise (tools/leapclock/decimal.c). */
int lc_cli_parse_decimal(const char *s, int64_t *ns, int *digits,
                         struct lc_error *err, const char *what);
/* ns as signed decimal seconds with `digits` fraction digits (truncated
 * towards zero); returns buf. */
const char *lc_cli_fmt_sec(int64_t ns, int digits, char *buf, size_t size);
/* Writes s as a JSON string literal (with quotes). */
void lc_cli_json_str(FILE *out, const char *s);
/* Loads the table named by --leapfile, or with NULL the system's as
 * lc_leaptable_load_system_report does (what the search took and skipped
 * said on stderr when a file was bad); returns NULL on failure (message
 * printed), a bad $LEAPCLOCK_LEAPFILE included. */
lc_leaptable *lc_cli_load_table(const char *cmd, const char *file);
/* If `t` has expired at POSIX second `now`, says so on stderr ("leapclock
 * CMD: warning: leap table SOURCE expired on DATE; ...", SOURCE NULL: the
 * table's own) and returns 1; else 0. */
int lc_cli_warn_expired(const char *cmd, const lc_leaptable *t,
                        const char *source, int64_t now);
/* 1 with `leapclock -v COMMAND`: the leap table search said in full. */
extern int lc_cli_verbose;
/* Says what the system search took, in one line on stderr or none: a file
 * that could not be used (its file, line and error, and what was taken),
 * or "the system's leap-seconds.list expired on DATE: update tzdata"
 * when an expired system file lost to a later one; nothing else. With
 * lc_cli_verbose the full report (lc_leaptable_search_format, all). */
void lc_cli_say_search(const char *cmd, const struct lc_leaptable_search *s);
/* Runs the system search as lc_default() will: 0, or the exit status
 * with the message printed when $LEAPCLOCK_LEAPFILE names a table that
 * cannot be used (LC_EXIT_USAGE). What the search took and skipped is
 * said on stderr when worth it, or with `out` not NULL, left there for
 * the caller to say. */
int lc_cli_check_system_table(const char *cmd,
                              struct lc_leaptable_search *out);

/* leapclockd's stats file as `leapclock server-stats` reads it, for
 * `status --watch`: its rows' cumulative counters (tools/leapclock/
 * cmd_server_stats.c). 0, or -1 with why set (nothing printed). */
#define LC_CLI_SERVED_MAX 64
struct lc_cli_served {
	int n, alive;
	int64_t pid, updated;
	char why[200];
	struct lc_cli_served_row {
		char addr[80], mode[64];
		uint64_t requests, replies, ratelimited;
		unsigned li;
		uint32_t refid;
	} rows[LC_CLI_SERVED_MAX];
};
int lc_cli_served_read(const char *path, struct lc_cli_served *out);
/* A reference id as server-stats --refid describes it. */
void lc_cli_refid_text(uint32_t refid, char *buf, size_t size);

#endif
