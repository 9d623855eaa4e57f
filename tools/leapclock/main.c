/* main.c - the leapclock command: dispatches to tools/leapclock/cmd_*.c. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct command {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
	void (*usage)(FILE *);
};

static const struct command commands[] = {
#define LC_CMD(n) { #n, lc_cmd_##n, lc_cmd_##n##_summary, lc_cmd_##n##_usage },
#include "lc_commands.h"
#undef LC_CMD
	{ NULL, NULL, NULL, NULL },
};

static void print_name(FILE *out, const char *name);
static int finish(const char *cmd, int rc);

int lc_cli_verbose;

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclock COMMAND [ARGS...]\n"
	        "       leapclock help COMMAND | COMMAND --help\n"
	        "       leapclock -V | --version\n"
	        "       leapclock -v COMMAND ...  (the leap table search in full)\n\n"
	        "Clocks, timers and tables that keep time across leap seconds.\n\n"
	        "commands:\n");
	for (const struct command *c = commands; c->name; c++) {
		print_name(out, c->name);
		fprintf(out, " %s\n", c->summary);
	}
	fprintf(out, "\nSee leapclock(1). Version " LC_VERSION_STRING ".\n");
}

/* Command names come from file names (cmd_server_stats.c); users type
 * them with '-' (server-stats) or '_' alike. */
static int same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
		if (x != y)
			return 0;
	}
	return *a == *b;
}

static const struct command *find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (same_name(c->name, name))
			return c;
	return NULL;
}

static void print_name(FILE *out, const char *name)
{
	char buf[32];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(buf); i++)
		buf[i] = name[i] == '_' ? '-' : name[i];
	buf[i] = '\0';
	fprintf(out, "  %-14s", buf);
}

int main(int argc, char **argv)
{
	const struct command *c;

	while (argc >= 2 && (strcmp(argv[1], "-v") == 0 ||
	                     strcmp(argv[1], "--verbose") == 0)) {
		lc_cli_verbose = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 2) {
		usage(stderr);
		return LC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return finish(NULL, 0);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("leapclock " LC_VERSION_STRING "\n");
		return finish(NULL, 0);
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return finish(NULL, 0);
		}
		c = find(argv[2]);
		if (c == NULL) {
			/* Not lc_cli_usage_error: "leapclock help --help" is
			 * no command either. */
			fprintf(stderr,
			        "leapclock help: unknown command '%s' (see "
			        "'leapclock --help' for the commands)\n",
			        argv[2]);
			return LC_EXIT_USAGE;
		}
		c->usage(stdout);
		return finish("help", 0);
	}
	c = find(argv[1]);
	if (c == NULL) {
		fprintf(stderr, "leapclock: unknown command '%s'\n\n", argv[1]);
		usage(stderr);
		return LC_EXIT_USAGE;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			c->usage(stdout);
			return finish(c->name, 0);
		}
	}
	return finish(c->name, c->run(argc - 1, argv + 1));
}

int lc_cli_close_out(const char *cmd, FILE *f, const char *what,
                     const char *name)
{
	int failed = ferror(f), rc, e;

	errno = 0;
	rc = f == stdout ? fflush(f) : fclose(f);
	e = errno;
	if (rc == 0 && !failed)
		return 0;
	if (rc == 0 || e == 0)
		e = EIO; /* the failed write's bytes are gone, its errno too */
	fprintf(stderr, "leapclock%s%s: %s%s%s: %s\n", cmd ? " " : "",
	        cmd ? cmd : "", what ? what : "", what ? " " : "", name,
	        strerror(e));
	if (f == stdout)
		clearerr(f);
	return LC_EXIT_RUNTIME;
}

/* Every command's output checked at the end (issue 27: `leapclock status
 * >/dev/full` exited 0): a write to stdout that failed turns a success
 * into exit 3 with the reason said; an earlier failure keeps its status. */
static int finish(const char *name, int rc)
{
	char cmd[32];
	size_t i = 0;
	int wrc;

	if (name != NULL) {
		for (; name[i] && i + 1 < sizeof(cmd); i++)
			cmd[i] = name[i] == '_' ? '-' : name[i];
		cmd[i] = '\0';
	}
	wrc = lc_cli_close_out(name != NULL ? cmd : NULL, stdout, NULL,
	                       "stdout");
	return rc == LC_EXIT_OK ? wrc : rc;
}

int lc_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "leapclock %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'leapclock %s --help')\n", cmd);
	return LC_EXIT_USAGE;
}

const char *lc_cli_host_state_name(int s)
{
	switch (s) {
	case LC_HOST_NOT_FOLLOWED: return "not-followed";
	case LC_HOST_AGREES: return "agrees";
	case LC_HOST_LEAP_OFF: return "leap-off";
	case LC_HOST_STEPPED: return "stepped";
	case LC_HOST_SMEARED: return "smeared";
	default: return "?";
	}
}

double lc_cli_json_num(double v, int digits)
{
	double half = 0.5;

	for (int i = 0; i < digits; i++)
		half /= 10;
	return v > -half && v < half ? 0.0 : v;
}

void lc_cli_print_error(const char *cmd, const struct lc_error *e)
{
	char buf[600];

	lc_error_format(e, buf, sizeof(buf));
	fprintf(stderr, "leapclock %s: %s\n", cmd, buf);
}

void lc_cli_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* "2026-06-28" */
static const char *date_text(int64_t sec, char *buf, size_t n)
{
	struct timespec e = { (time_t)sec, 0 };

	if (sec == INT64_MIN || lc_iso8601_format(&e, 0, buf, n) < 10)
		snprintf(buf, n, "?");
	else
		buf[10] = '\0';
	return buf;
}

void lc_cli_say_search(const char *cmd,
                       const struct lc_leaptable_search *s)
{
	const struct lc_leap_candidate *tk =
	    s->taken < s->count ? &s->c[s->taken] : NULL;
	char m[2048], prefix[64], d1[32], d2[32], names[600] = "";
	int64_t now = (int64_t)time(NULL), expired_on = INT64_MIN;
	int bad = -1;

	snprintf(prefix, sizeof(prefix), "leapclock %s: ", cmd);
	if (lc_cli_verbose) {
		if (lc_leaptable_search_format(s, 1, prefix, m, sizeof(m)) > 0)
			fputs(m, stderr);
		return;
	}
	for (size_t i = 0; i < s->count; i++) {
		const struct lc_leap_candidate *c = &s->c[i];

		if (c->status == LC_CAND_BAD && bad < 0)
			bad = (int)i;
		if (c->status == LC_CAND_OLDER && c->expires != INT64_MIN &&
		    c->expires <= now && strcmp(c->source, "built-in") != 0) {
			const char *b = strrchr(c->source, '/');
			size_t l = strlen(names);

			snprintf(names + l, sizeof(names) - l, "%s%s",
			         l > 0 ? " and " : "", b != NULL ? b + 1 : c->source);
			if (expired_on == INT64_MIN)
				expired_on = c->expires;
		}
	}
	if (bad >= 0) {
		/* one line: the file, its line and what was wrong */
		lc_error_format(&s->c[bad].err, m, sizeof(m));
		fprintf(stderr, "%sleap table %s skipped; using %s (expires %s)\n",
		        prefix, m, tk != NULL ? tk->source : "none",
		        tk != NULL ? date_text(tk->expires, d1, sizeof(d1)) : "?");
	} else if (expired_on != INT64_MIN && tk != NULL) {
		fprintf(stderr,
		        "%sthe system's %s expired on %s: update tzdata (using "
		        "%s, expires %s)\n",
		        prefix, names, date_text(expired_on, d1, sizeof(d1)),
		        strcmp(tk->source, "built-in") == 0 ? "the built-in table"
		                                            : tk->source,
		        date_text(tk->expires, d2, sizeof(d2)));
	}
}

/*
 * The default timekeeper loads the system's table itself and, if
 * $LEAPCLOCK_LEAPFILE cannot be used, keeps the built-in one: search first
 * (the same search, so the same answer) to refuse a named table that
 * cannot be used and to say what the search took and skipped.
 */
int lc_cli_check_system_table(const char *cmd,
                              struct lc_leaptable_search *out)
{
	struct lc_leaptable_search search;
	struct lc_error err = {0};
	lc_leaptable *t = lc_leaptable_new();
	char m[2048];
	int rc;

	if (t == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", cmd);
		return LC_EXIT_RUNTIME;
	}
	rc = lc_leaptable_load_system_report(t, &search, &err);
	lc_leaptable_free(t);
	if (rc < 0) {
		lc_error_format(&err, m, sizeof(m));
		fprintf(stderr, "leapclock %s: %s%s\n", cmd,
		        strstr(m, "LEAPCLOCK_LEAPFILE") == NULL
		            ? "LEAPCLOCK_LEAPFILE: "
		            : "",
		        m);
		return rc == LC_ENOMEM ? LC_EXIT_RUNTIME : LC_EXIT_USAGE;
	}
	if (out != NULL) {
		*out = search;
		return 0;
	}
	lc_cli_say_search(cmd, &search);
	return 0;
}

lc_leaptable *lc_cli_load_table(const char *cmd, const char *file)
{
	struct lc_error err = { 0 };
	lc_leaptable *t = lc_leaptable_new();
	int rc;

	if (t == NULL) {
		fprintf(stderr, "leapclock %s: out of memory\n", cmd);
		return NULL;
	}
	if (file != NULL) {
		rc = lc_leaptable_load_file(t, file, LC_LEAPFMT_AUTO, &err);
		if (rc < 0) {
			lc_cli_print_error(cmd, &err);
			lc_leaptable_free(t);
			return NULL;
		}
	} else {
		struct lc_leaptable_search search;

		rc = lc_leaptable_load_system_report(t, &search, &err);
		if (rc < 0) {
			lc_cli_print_error(cmd, &err);
			lc_leaptable_free(t);
			return NULL;
		}
		/* One line at most: a file that could not be used, or the
		 * system's expired (run's stderr is its program's). */
		lc_cli_say_search(cmd, &search);
	}
	return t;
}

int lc_cli_warn_expired(const char *cmd, const lc_leaptable *t,
                        const char *source, int64_t now)
{
	struct lc_leaptable_info info;
	struct timespec e;
	char iso[64];

	if (!lc_leaptable_expired(t, now) || lc_leaptable_info(t, &info) != 0)
		return 0;
	e.tv_sec = (time_t)info.expires;
	e.tv_nsec = 0;
	if (lc_iso8601_format(&e, 0, iso, sizeof(iso)) > 0)
		iso[10] = '\0'; /* the date */
	else
		snprintf(iso, sizeof(iso), "%" PRId64, info.expires);
	fprintf(stderr,
	        "leapclock %s: warning: leap table %s expired on %s; "
	        "leap seconds announced since then are unknown to it\n",
	        cmd, source != NULL ? source : info.source, iso);
	return 1;
}
