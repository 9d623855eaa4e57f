/*
 * config.c - leapclockd's settings from the command line and from a config
 * file (leapclockd.conf(5)). The file has one setting per line, "name
 * value...", '#' starts a comment; the names are the long options without
 * their dashes.
 */
#include "leapclockd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ld_config_init(struct ld_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->statsfile, sizeof(c->statsfile), "%s",
	         LD_DEFAULT_STATSFILE);
	snprintf(c->counter, sizeof(c->counter), "best");
	/* timeline: "" here; ld_config_from_args makes it the default
	 * (LD_DEFAULT_TIMELINE) unless pretending, so that a config built by
	 * hand (tests, benches) never publishes the host's timeline. */
	c->use_syslog = -1;
	c->stratum = 1;
	c->precision = LD_PRECISION_AUTO;
	c->root_delay_ns = 0;
	/* A stratum-1 server that follows its host: claim the 1 ms that the
	 * host's own synchronisation is typically good to. */
	c->root_dispersion_ns = 1000000;
	c->refid = LD_REFID('L', 'C', 'L', 'K');
	c->ratelimit = 1;
	c->rl_interval = 0;
	c->rl_burst = 16;
	c->threads = 0;
	c->rcvbuf_kib = LD_DEFAULT_RCVBUF_KIB;
	snprintf(c->nts_listen, sizeof(c->nts_listen), "%s", LD_DEFAULT_NTS_LISTEN);
	snprintf(c->nts_keydir, sizeof(c->nts_keydir), "%s", LD_DEFAULT_NTS_KEYDIR);
	c->nts_rotate_s = 86400;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* Seconds as a decimal ("0.000123") to ns, 0..65535 s. */
static int parse_seconds(const char *s, int64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= 0.0) || v > 65535.0)
		return -1;
	*ns = (int64_t)(v * 1e9 + 0.5);
	return 0;
}

static int parse_refid(const char *s, uint32_t *out)
{
	struct in_addr a;
	size_t n = strlen(s);

	if (inet_pton(AF_INET, s, &a) == 1) {
		*out = ntohl(a.s_addr);
		return 0;
	}
	if (n == 0 || n > 4)
		return -1;
	*out = 0;
	for (size_t i = 0; i < 4; i++) {
		unsigned char ch = i < n ? (unsigned char)s[i] : 0;
		if (i < n && (ch < 0x20 || ch > 0x7e))
			return -1;
		*out |= (uint32_t)ch << (24 - 8 * i);
	}
	return 0;
}

/* "off", "INTERVAL" or "INTERVAL:BURST" */
int ld_config_parse_ratelimit(struct ld_config *c, const char *s)
{
	char buf[32], *colon;

	if (strcmp(s, "off") == 0) {
		c->ratelimit = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	colon = strchr(buf, ':');
	if (colon != NULL) {
		*colon = '\0';
		if (parse_int(colon + 1, 1, 4096, &c->rl_burst) != 0)
			return -1;
	}
	if (parse_int(buf, -8, 12, &c->rl_interval) != 0)
		return -1;
	c->ratelimit = 1;
	return 0;
}

/* "yes"/"no" (a bare name in the file is "yes"); -1 for anything else. */
static int parse_bool(const char *s, int *out)
{
	if (s == NULL || strcmp(s, "yes") == 0)
		*out = 1;
	else if (strcmp(s, "no") == 0)
		*out = 0;
	else
		return -1;
	return 0;
}

/* 1 if two listen addresses are the same socket (a port 0 is never a
 * duplicate: each gets its own port). */
static int same_listen(const struct ld_listen_cfg *a,
                       const struct ld_listen_cfg *b)
{
	if (a->addr.ss_family != b->addr.ss_family)
		return 0;
	if (a->addr.ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)&a->addr;
		const struct sockaddr_in *y = (const struct sockaddr_in *)&b->addr;
		return x->sin_port != 0 && x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)&a->addr;
		const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)&b->addr;
		return x->sin6_port != 0 && x->sin6_port == y->sin6_port &&
		       memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
	}
}

/* The known smear presets, " a b c", for an error message. */
static void preset_list(char *list, size_t size)
{
	const char *const *names = lc_smear_preset_names();

	list[0] = '\0';
	for (; names != NULL && *names != NULL; names++) {
		strncat(list, " ", size - strlen(list) - 1);
		strncat(list, *names, size - strlen(list) - 1);
	}
}

/* ---- the settings table ----
 * One row a setting: its name (and the config-file alias chrony users
 * know), the setter that parses the value into the field at `off`, and the
 * setter's data: limits, flags, the complaint about a bad value. */

struct setting;
typedef int (*setter_fn)(struct ld_config *c, const struct setting *s,
                         const char *val, const char *where);

enum {
	S_NONE = 1,     /* "none" stores "" */
	S_AUTO = 2,     /* "auto" stores auto_val */
	S_OPTVAL = 4,   /* the value may be missing (a bare name) */
	S_NOVAL = 8,    /* takes no value */
	S_GIVEN = 16,   /* sets timeline_given */
	S_CLIONLY = 32, /* command line only (not in a file) */
	S_REQARG = 64,  /* a value on the command line, optional in a file */
};

struct setting {
	const char *name, *alias;
	setter_fn set;
	size_t off, size;   /* the field; size for strings */
	size_t where_off;   /* where to note "where" it was set (0: nowhere) */
	unsigned flags;
	int lo, hi, auto_val;
	const char *bad;    /* printed before the bad value */
};

static int bad_value(const struct setting *s, const char *val,
                     const char *where)
{
	fprintf(stderr, "leapclockd: %s: %s '%s'\n", where, s->bad, val);
	return -1;
}

#define FIELD(c, s, type) ((type *)((char *)(c) + (s)->off))

static int set_str(struct ld_config *c, const struct setting *s,
                   const char *val, const char *where)
{
	if (strlen(val) >= s->size)
		return bad_value(s, val, where);
	snprintf(FIELD(c, s, char), s->size, "%s",
	         (s->flags & S_NONE) && strcmp(val, "none") == 0 ? "" : val);
	if (s->where_off != 0)
		snprintf((char *)c + s->where_off, PATH_MAX + 48, "%s", where);
	return 0;
}

static int set_int(struct ld_config *c, const struct setting *s,
                   const char *val, const char *where)
{
	if ((s->flags & S_AUTO) && strcmp(val, "auto") == 0)
		*FIELD(c, s, int) = s->auto_val;
	else if (parse_int(val, s->lo, s->hi, FIELD(c, s, int)) != 0)
		return bad_value(s, val, where);
	return 0;
}

static int set_seconds(struct ld_config *c, const struct setting *s,
                       const char *val, const char *where)
{
	if (parse_seconds(val, FIELD(c, s, int64_t)) != 0)
		return bad_value(s, val, where);
	return 0;
}

static int set_refid(struct ld_config *c, const struct setting *s,
                     const char *val, const char *where)
{
	if (parse_refid(val, FIELD(c, s, uint32_t)) != 0)
		return bad_value(s, val, where);
	return 0;
}

static int set_ratelimit(struct ld_config *c, const struct setting *s,
                         const char *val, const char *where)
{
	if (ld_config_parse_ratelimit(c, val) != 0)
		return bad_value(s, val, where);
	return 0;
}

static int set_bool(struct ld_config *c, const struct setting *s,
                    const char *val, const char *where)
{
	if (parse_bool(val, FIELD(c, s, int)) != 0)
		return bad_value(s, val, where);
	return 0;
}

/* A host name or an IP address as RFC 8915 4.1.7 carries it (ASCII): a
 * DNS name (letters, digits, '-', '.'), a dotted IPv4 or a bare IPv6. */
static int set_host(struct ld_config *c, const struct setting *s,
                    const char *val, const char *where)
{
	size_t n = strlen(val);

	if (n == 0 || n >= s->size)
		return bad_value(s, val, where);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)val[i];
		if (!isalnum(ch) && ch != '-' && ch != '.' && ch != ':')
			return bad_value(s, val, where);
	}
	return set_str(c, s, val, where);
}

static int set_counter(struct ld_config *c, const struct setting *s,
                       const char *val, const char *where)
{
	if (strcmp(val, "best") != 0 && strcmp(val, "system") != 0 &&
	    strcmp(val, "tsc") != 0 && strcmp(val, "raw") != 0)
		return bad_value(s, val, where);
	return set_str(c, s, val, where);
}

/* --no-timeline */
static int set_empty(struct ld_config *c, const struct setting *s,
                     const char *val, const char *where)
{
	(void)val;
	(void)where;
	FIELD(c, s, char)[0] = '\0';
	return 0;
}

/* One more listen address: parsed, its smear preset known, not a
 * duplicate of an earlier one. */
static int set_listen(struct ld_config *c, const struct setting *s,
                      const char *val, const char *where)
{
	struct ld_listen_cfg *l = &c->listen[c->nlisten];
	char msg[256];

	(void)s;
	if (c->nlisten >= LD_MAX_LISTEN) {
		fprintf(stderr, "leapclockd: %s: more than %d listen addresses\n",
		        where, LD_MAX_LISTEN);
		return -1;
	}
	if (ld_config_parse_listen(val, l, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "leapclockd: %s: %s\n", where, msg);
		return -1;
	}
	if (l->smear) {
		struct lc_smear_policy pol;
		struct lc_error err;
		char list[256];

		memset(&err, 0, sizeof(err));
		if (lc_smear_preset(l->preset, 0, &pol, &err) < 0) {
			preset_list(list, sizeof(list));
			fprintf(stderr,
			        "leapclockd: %s: '%s': unknown smear preset '%s' (known:%s)\n",
			        where, val, l->preset, list);
			return -1;
		}
	}
	for (int i = 0; i < c->nlisten; i++) {
		if (same_listen(&c->listen[i], l)) {
			fprintf(stderr,
			        "leapclockd: %s: '%s': duplicate of listen '%s'\n",
			        where, val, c->listen[i].text);
			return -1;
		}
	}
	c->nlisten++;
	return 0;
}

/* One more allow or deny line. */
static int set_acl(struct ld_config *c, const struct setting *s,
                   const char *val, const char *where)
{
	char msg[256];

	if (c->nacl >= LD_MAX_ACL) {
		fprintf(stderr, "leapclockd: %s: more than %d allow and deny lines\n",
		        where, LD_MAX_ACL);
		return -1;
	}
	if (ld_acl_parse(val, strcmp(s->name, "allow") == 0, &c->acl[c->nacl],
	                 msg, sizeof(msg)) != 0) {
		fprintf(stderr, "leapclockd: %s: %s\n", where, msg);
		return -1;
	}
	c->nacl++;
	return 0;
}

/* --host-smear PRESET: the older spelling of --host-leap smear:PRESET */
static int set_host_smear(struct ld_config *c, const struct setting *s,
                          const char *val, const char *where)
{
	char text[80];

	if (strlen(val) + 7 >= s->size)
		return bad_value(s, val, where);
	snprintf(text, sizeof(text), "smear:%s", val);
	return set_str(c, s, text, where);
}

/* --check-config */
static int set_flag(struct ld_config *c, const struct setting *s,
                    const char *val, const char *where)
{
	(void)val;
	(void)where;
	*FIELD(c, s, int) = 1;
	return 0;
}

#define OFF(f) offsetof(struct ld_config, f)
#define STR(f) set_str, OFF(f), sizeof(((struct ld_config *)0)->f)
#define PATH_BAD "path too long:"
#define SECS_BAD "expected seconds 0..65535, not"
#define BOOL_BAD "expected yes or no, not"

static const struct setting settings[] = {
	{ "listen", NULL, set_listen, 0, 0, 0, 0, 0, 0, 0, NULL },
	{ "leapfile", NULL, STR(leapfile), OFF(leapfile_where), 0, 0, 0, 0, PATH_BAD },
	{ "pretend", NULL, STR(pretend), OFF(pretend_where), 0, 0, 0, 0, "too long:" },
	{ "timeline", NULL, STR(timeline), 0, S_NONE | S_GIVEN, 0, 0, 0, PATH_BAD },
	{ "no-timeline", NULL, set_empty, OFF(timeline), 0, 0, S_NOVAL | S_GIVEN, 0, 0, 0, NULL },
	{ "stats-file", "statsfile", STR(statsfile), 0, S_NONE, 0, 0, 0, PATH_BAD },
	{ "counter", NULL, set_counter, OFF(counter), sizeof(((struct ld_config *)0)->counter),
	  0, 0, 0, 0, 0, "expected best, system or tsc, not" },
	{ "stratum", NULL, set_int, OFF(stratum), 0, 0, 0, 1, 15, 0, "expected 1..15, not" },
	{ "precision", NULL, set_int, OFF(precision), 0, 0, S_AUTO, -32, 0, LD_PRECISION_AUTO,
	  "expected auto or log2 seconds -32..0, not" },
	{ "root-delay", "rootdelay", set_seconds, OFF(root_delay_ns), 0, 0, 0, 0, 0, 0, SECS_BAD },
	{ "root-dispersion", "rootdispersion", set_seconds, OFF(root_dispersion_ns), 0, 0, 0,
	  0, 0, 0, SECS_BAD },
	{ "refid", NULL, set_refid, OFF(refid), 0, 0, 0, 0, 0, 0,
	  "expected 1-4 printable ASCII characters or a.b.c.d, not" },
	{ "ratelimit", NULL, set_ratelimit, 0, 0, 0, 0, 0, 0, 0,
	  "expected off, INTERVAL (log2 s, -8..12) or INTERVAL:BURST, not" },
	{ "threads", NULL, set_int, OFF(threads), 0, 0, S_AUTO, 1, LD_MAX_THREADS, 0,
	  "expected auto or 1.." LD_STR(LD_MAX_THREADS) ", not" },
	{ "rcvbuf", NULL, set_int, OFF(rcvbuf_kib), 0, 0, 0, 0, 1 << 20, 0,
	  "expected KiB 0..1048576 (0: the system's default), not" },
	{ "metrics", NULL, STR(metrics), 0, S_NONE, 0, 0, 0, "too long:" },
	{ "user", NULL, STR(user), OFF(user_where), S_NONE, 0, 0, 0, "too long:" },
	{ "keyfile", NULL, STR(keyfile), 0, 0, 0, 0, 0, PATH_BAD },
	{ "nts-cert", "ntsservercert", STR(nts_cert), 0, 0, 0, 0, 0, PATH_BAD },
	{ "nts-key", "ntsserverkey", STR(nts_key), 0, 0, 0, 0, 0, PATH_BAD },
	{ "nts-listen", NULL, STR(nts_listen), 0, 0, 0, 0, 0, "too long:" },
	{ "nts-keydir", "ntsdumpdir", STR(nts_keydir), 0, 0, 0, 0, 0, PATH_BAD },
	{ "nts-ntp-port", NULL, set_int, OFF(nts_ntp_port), 0, 0, 0, 1, 65535, 0,
	  "expected a port 1..65535, not" },
	{ "nts-ntp-server", "ntsntpserver", set_host, OFF(nts_ntp_server),
	  sizeof(((struct ld_config *)0)->nts_ntp_server), 0, 0, 0, 0, 0,
	  "expected a host name or an IP address (up to 255 characters), not" },
	{ "nts-rotate", NULL, set_int, OFF(nts_rotate_s), 0, 0, 0, 60, 30 * 86400, 0,
	  "expected seconds 60..2592000, not" },
	{ "smear", NULL, STR(smear), OFF(smear_where), S_NONE, 0, 0, 0, "too long:" },
	{ "host-leap", NULL, STR(host_leap), OFF(host_leap_where), 0, 0, 0, 0, "too long:" },
	{ "host-smear", NULL, set_host_smear, OFF(host_leap),
	  sizeof(((struct ld_config *)0)->host_leap), OFF(host_leap_where), 0, 0, 0, 0,
	  "too long:" },
	{ "allow", NULL, set_acl, 0, 0, 0, S_OPTVAL | S_REQARG, 0, 0, 0, NULL },
	{ "deny", NULL, set_acl, 0, 0, 0, S_OPTVAL | S_REQARG, 0, 0, 0, NULL },
	{ "pidfile", "pid-file", STR(pidfile), 0, S_NONE, 0, 0, 0, PATH_BAD },
	{ "clockbound", NULL, STR(clockbound), 0, S_NONE, 0, 0, 0, PATH_BAD },
	{ "check-config", NULL, set_flag, OFF(check_config), 0, 0, S_NOVAL | S_CLIONLY,
	  0, 0, 0, NULL },
	{ "syslog", NULL, set_bool, OFF(use_syslog), 0, 0, S_OPTVAL, 0, 0, 0, BOOL_BAD },
	{ "foreground", NULL, set_bool, OFF(foreground), 0, 0, S_OPTVAL, 0, 0, 0, BOOL_BAD },
};

#undef OFF
#undef STR
#undef PATH_BAD
#undef SECS_BAD
#undef BOOL_BAD

static const struct setting *find_setting(const char *name)
{
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const struct setting *s = &settings[i];
		if (strcmp(name, s->name) == 0 ||
		    (s->alias != NULL && strcmp(name, s->alias) == 0))
			return s;
	}
	return NULL;
}

/*
 * --timeline PATH and --no-timeline together (issue 27: accepted, the
 * last won): a usage error naming both when one source gives both, the
 * command line or the config files (include and confdir are one
 * configuration). Across sources the command line overrides the files,
 * as for every setting. "timeline none" is --no-timeline's spelling, no
 * conflict with it.
 */
static int timeline_conflict(struct ld_config *c, const struct setting *s,
                             const char *val, int in_file, const char *where)
{
	int src = in_file ? 0 : 1;
	int kind = strcmp(s->name, "no-timeline") == 0 ||
	                   (val != NULL && strcmp(val, "none") == 0)
	               ? 2
	               : 1;
	int other = 3 - kind;

	if (c->timeline_seen[src] & other) {
		fprintf(stderr,
		        "leapclockd: %s%s%.*s: contradicts %s: %s publishes no "
		        "timeline page, %s publishes one; give one of them\n",
		        where, kind == 1 && val != NULL ? " " : "", 200,
		        kind == 1 && val != NULL ? val : "",
		        c->timeline_where[src],
		        in_file ? "no-timeline" : "--no-timeline",
		        in_file ? "timeline PATH" : "--timeline PATH");
		return -1;
	}
	/* "--timeline PATH" or "FILE:LINE: no-timeline"; a long one cut,
	 * the option still named */
	if (!(c->timeline_seen[src] & kind) &&
	    snprintf(c->timeline_where[src], sizeof(c->timeline_where[src]),
	             "%s%s%s", where, kind == 1 && val != NULL ? " " : "",
	             kind == 1 && val != NULL ? val : "") >=
	        (int)sizeof(c->timeline_where[src]))
		c->timeline_where[src][sizeof(c->timeline_where[src]) - 1] = '\0';
	c->timeline_seen[src] |= kind;
	return 0;
}

/* Applies one setting. `file` is "PATH:LINE" for a config file line, NULL
 * for the command line; errors are labelled "PATH:LINE: name" or "--name".
 * 0 or -1 (printed). */
static int apply(struct ld_config *c, const char *name, const char *val,
                 const char *file)
{
	const struct setting *s = find_setting(name);
	char where[PATH_MAX + 48];

	if (s == NULL) {
		fprintf(stderr, "leapclockd: %s: unknown setting '%s'\n",
		        file != NULL ? file : "command line", name);
		return -1;
	}
	if (file != NULL)
		snprintf(where, sizeof(where), "%.*s: %s", PATH_MAX, file, name);
	else
		snprintf(where, sizeof(where), "--%s", name);
	if (file != NULL && (s->flags & S_CLIONLY)) {
		fprintf(stderr, "leapclockd: %s: a command-line option only\n",
		        where);
		return -1;
	}

	if (s->flags & S_NOVAL) {
		if (val != NULL) {
			fprintf(stderr, "leapclockd: %s: takes no value, not '%s'\n",
			        where, val);
			return -1;
		}
	} else if (!(s->flags & S_OPTVAL) && (val == NULL || *val == '\0')) {
		fprintf(stderr, "leapclockd: %s: needs a value\n", where);
		return -1;
	}
	if (s->set(c, s, val, where) != 0)
		return -1;
	if (s->flags & S_GIVEN) {
		c->timeline_given = 1;
		if (timeline_conflict(c, s, val, file != NULL, where) != 0)
			return -1;
	}
	return 0;
}

/* The config file opened for reading: a regular file only, opened
 * without waiting (a FIFO would block open() until a writer came). NULL
 * with the reason printed. */
static FILE *open_config(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		fprintf(stderr, "leapclockd: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "leapclockd: %s: %s\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
		        "leapclockd: %s: not a regular file: a config file "
		        "must be one\n",
		        path);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		fprintf(stderr, "leapclockd: %s: %s\n", path, strerror(errno));
		close(fd);
	}
	return f;
}

#define MAX_INCLUDE_DEPTH 8

static int read_file(struct ld_config *c, const char *path, int depth);

/* `name` against the folder of the file that names it (a relative
 * include), into out. */
static void beside(const char *file, const char *name, char *out, size_t size)
{
	const char *slash = strrchr(file, '/');

	if (name[0] == '/' || slash == NULL)
		snprintf(out, size, "%s", name);
	else
		snprintf(out, size, "%.*s/%s", (int)(slash - file), file, name);
}

static int has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* include PATTERN: every file the pattern names, in order of name; a
 * pattern without a wildcard must name a file (a typo is an error), one
 * with a wildcard may match none (chrony's include). */
static int do_include(struct ld_config *c, const char *file, const char *val,
                      const char *where, int depth)
{
	char pat[PATH_MAX];
	glob_t g;
	int r, rc = 0;

	beside(file, val, pat, sizeof(pat));
	if (!has_wildcard(pat))
		return read_file(c, pat, depth + 1);
	memset(&g, 0, sizeof(g));
	r = glob(pat, GLOB_ERR, NULL, &g);
	if (r != 0 && r != GLOB_NOMATCH) {
		fprintf(stderr, "leapclockd: %s: '%s': %s\n", where, pat,
		        r == GLOB_NOSPACE ? "out of memory" : "cannot read its folder");
		globfree(&g);
		return -1;
	}
	for (size_t i = 0; r == 0 && i < g.gl_pathc && rc == 0; i++)
		rc = read_file(c, g.gl_pathv[i], depth + 1);
	globfree(&g);
	return rc;
}

static int cmp_base(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return strcmp(strrchr(x, '/') + 1, strrchr(y, '/') + 1);
}

/* confdir DIR...: the *.conf files of the folders, in order of their
 * names; a name in several folders is read from the first only
 * (chrony's confdir). A folder that does not exist is skipped. */
static int do_confdir(struct ld_config *c, const char *file, char *val,
                      const char *where, int depth)
{
	char *list[512], *save = NULL;
	size_t n = 0;
	int rc = 0;

	for (char *d = strtok_r(val, " \t", &save); d != NULL && rc == 0;
	     d = strtok_r(NULL, " \t", &save)) {
		char pat[PATH_MAX + 8], dir[PATH_MAX];
		glob_t g;
		int r;

		beside(file, d, dir, sizeof(dir));
		snprintf(pat, sizeof(pat), "%s/*.conf", dir);
		memset(&g, 0, sizeof(g));
		r = glob(pat, 0, NULL, &g);
		for (size_t i = 0; r == 0 && i < g.gl_pathc; i++) {
			int dup = 0;

			for (size_t j = 0; j < n && !dup; j++)
				dup = strcmp(strrchr(list[j], '/'),
				             strrchr(g.gl_pathv[i], '/')) == 0;
			if (dup)
				continue;
			if (n == sizeof(list) / sizeof(list[0])) {
				fprintf(stderr, "leapclockd: %s: more than %zu files\n",
				        where, n);
				rc = -1;
				break;
			}
			list[n] = strdup(g.gl_pathv[i]);
			if (list[n] == NULL) {
				fprintf(stderr, "leapclockd: out of memory\n");
				rc = -1;
				break;
			}
			n++;
		}
		globfree(&g);
	}
	qsort(list, n, sizeof(list[0]), cmp_base);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = read_file(c, list[i], depth + 1);
		free(list[i]);
	}
	return rc;
}

int ld_config_read_file(struct ld_config *c, const char *path)
{
	return read_file(c, path, 0);
}

static int read_file(struct ld_config *c, const char *path, int depth)
{
	FILE *f;
	char line[1024], where[PATH_MAX + 32];
	int lineno = 0, rc = 0;

	if (depth > MAX_INCLUDE_DEPTH) {
		fprintf(stderr, "leapclockd: %s: included more than %d deep "
		        "(an include loop?)\n", path, MAX_INCLUDE_DEPTH);
		return -1;
	}
	f = open_config(path);
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *name, *val, *hash, *end;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fprintf(stderr, "leapclockd: %s: line too long\n", where);
			rc = -1;
			break;
		}
		hash = strchr(p, '#');
		if (hash != NULL)
			*hash = '\0';
		while (isspace((unsigned char)*p))
			p++;
		end = p + strlen(p);
		while (end > p && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (*p == '\0')
			continue;
		name = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p) {
			*p++ = '\0';
			while (isspace((unsigned char)*p))
				p++;
		}
		val = *p ? p : NULL;
		/* "listen ADDR:PORT MODE" is accepted as well as "=MODE" */
		if (val != NULL && strcmp(name, "listen") == 0 &&
		    strchr(val, '=') == NULL) {
			char *sp = val;
			while (*sp && !isspace((unsigned char)*sp))
				sp++;
			if (*sp) {
				*sp++ = '=';
				while (isspace((unsigned char)*sp))
					memmove(sp, sp + 1, strlen(sp));
			}
		}
		if (strcmp(name, "include") == 0 || strcmp(name, "confdir") == 0) {
			char w2[PATH_MAX + 48];

			/* the keyword as a literal: its length bounds the text */
			snprintf(w2, sizeof(w2), "%.*s: %s", PATH_MAX, where,
			         name[0] == 'i' ? "include" : "confdir");
			if (val == NULL) {
				fprintf(stderr, "leapclockd: %s: needs a value\n", w2);
				rc = -1;
			} else if (name[0] == 'i') {
				rc = do_include(c, path, val, w2, depth);
			} else {
				rc = do_confdir(c, path, val, w2, depth);
			}
			if (rc != 0)
				break;
			continue;
		}
		if (apply(c, name, val, where) != 0) {
			rc = -1;
			break;
		}
	}
	fclose(f);
	return rc;
}

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: leapclockd [-d] [-c CONFIG] [--listen ADDR:PORT=MODE ...]\n"
	        "                  [--timeline PATH | --no-timeline] [OPTIONS]\n"
	        "\n"
	        "The host's leap-correct time service: publishes leapclock's timeline\n"
	        "page (default " LD_DEFAULT_TIMELINE ") and, on each --listen address,\n"
	        "an NTP server (RFC 5905) that serves leap-correct UTC or smeared time.\n"
	        "One mode per listening address:\n"
	        "  utc            real UTC; the leap indicator announces a leap only\n"
	        "                 during the UTC day that ends with it\n"
	        "  smear:PRESET   smeared UTC (google, ntpd, chrony, fbclock, utc-sls,\n"
	        "                 minute, cosine, windows, ntp-classic, aws); never announces\n"
	        "                 a leap; the smear offset is in a 254.x.y.z\n"
	        "                 reference id\n"
	        "\n"
	        "options (long ones may be abbreviated to any unique prefix):\n"
	        "  -d, --foreground        stay in the foreground, log to stderr\n"
	        "  -c, --config FILE       read settings from FILE (leapclockd.conf(5))\n"
	        "  -l, --listen A:P=MODE   e.g. 127.0.0.1:11123=utc, [::1]:11124=smear:google\n"
	        "                          (port 0: any free port, logged)\n"
	        "      --timeline PATH     the timeline page to publish (default\n"
	        "                          " LD_DEFAULT_TIMELINE "; none with --pretend)\n"
	        "      --no-timeline       publish no timeline page (needs --listen)\n"
	        "      --leapfile FILE     leap-seconds.list or tzdata leapseconds\n"
	        "                          (default: the system's; SIGHUP reloads it)\n"
	        "      --pretend TIME[@AT] serve time that reads TIME (ISO 8601) now, or\n"
	        "                          when the host's UTC reads AT (a fleet agrees)\n"
	        "      --stats-file FILE   counters for 'leapclock server-stats'\n"
	        "                          (default " LD_DEFAULT_STATSFILE ", 'none': off)\n"
	        "      --stratum N         1..15 (default 1)\n"
	        "      --refid ID          1-4 ASCII characters or a.b.c.d (default LCLK)\n"
	        "      --precision N       log2 seconds, or auto (default)\n"
	        "      --root-delay S      seconds (default 0)\n"
	        "      --root-dispersion S seconds (default 0.001)\n"
	        "      --ratelimit R       off, or INTERVAL[:BURST]: one request per\n"
	        "                          2^INTERVAL s on average per client, BURST at\n"
	        "                          once (default 0:16); over it: dropped, with an\n"
	        "                          occasional RATE kiss-o'-death\n"
	        "      --counter C         best (default), system, tsc or raw\n"
	        "      --syslog            log to syslog even with -d\n"
	        "      --threads N         worker threads (default auto: one per core)\n"
	        "      --rcvbuf KIB        receive buffer per socket (default " LD_STR(LD_DEFAULT_RCVBUF_KIB) ";\n"
	        "                          0: the system's)\n"
	        "      --metrics A:P       serve Prometheus metrics on A:P (default off)\n"
	        "      --user NAME|none    after binding, run as NAME (when started as root;\n"
	        "                          default " LD_DEFAULT_USER " if it exists and the page is\n"
	        "                          the host's, else none)\n"
	        "      --smear PRESET      the page's smear policy (default $LEAPCLOCK_SMEAR)\n"
	        "      --host-leap MODE    how the host's clock handles a leap: kernel\n"
	        "                          (default), smear:PRESET (a cloud VM: smear:google,\n"
	        "                          smear:aws), slew[:PPM] (chrony leapsecmode slew;\n"
	        "                          ntpd -x: slew:500), step, ignore (default\n"
	        "                          $LEAPCLOCK_HOST_LEAP; --host-smear P: smear:P)\n"
	        "      --allow RANGE       serve ADDR[/LEN] or all (NTP and NTS-KE, as chrony)\n"
	        "      --deny RANGE        do not serve ADDR[/LEN] or all\n"
	        "      --pidfile PATH      the daemon's pid, locked while it runs\n"
	        "      --clockbound PATH   publish the error bound in AWS ClockBound's\n"
	        "                          shared memory layout (e.g.\n"
	        "                          /var/run/clockbound/shm0)\n"
	        "      --check-config      check everything, print the effective\n"
	        "                          configuration, exit 0 or 2\n"
	        "      --keyfile FILE      symmetric keys, chrony's format (ID TYPE KEY)\n"
	        "      --nts-cert FILE     NTS: the server's certificate chain (PEM)\n"
	        "      --nts-key FILE      NTS: its private key (PEM)\n"
	        "      --nts-listen A:P    NTS-KE address (default " LD_DEFAULT_NTS_LISTEN ")\n"
	        "      --nts-keydir DIR    NTS cookie keys kept here (default\n"
	        "                          " LD_DEFAULT_NTS_KEYDIR ")\n"
	        "      --nts-ntp-port N    NTP port NTS-KE tells clients (default: none)\n"
	        "      --nts-ntp-server H  NTP server NTS-KE tells clients (default: none)\n"
	        "      --nts-rotate S      cookie key rotation in seconds (default 86400)\n"
	        "  -h, --help              this text\n"
	        "  -V, --version\n"
	        "\n"
	        "Exit status 2 for a usage or configuration error, 1 for a failure at\n"
	        "run time (a socket that does not bind, a timeline page not written).\n"
	        "Signals: SIGHUP reloads the leap table (keeping the old one if the new is\n"
	        "bad), SIGUSR1 logs the counters and writes the stats file, SIGTERM stops.\n"
	        "See leapclockd(8).\n");
}

/* `path` made absolute (against the working folder) and lexically
 * normalised ("//", "." and ".." taken out) into out; -1 if too long. */
static int normalise_path(const char *path, char *out, size_t size)
{
	char buf[2 * PATH_MAX];
	size_t n = 0;
	const char *p;

	if (path[0] == '/') {
		snprintf(buf, sizeof(buf), "%s", path);
	} else {
		char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return -1;
		snprintf(buf, sizeof(buf), "%s/%s", cwd, path);
	}
	if (size < 2)
		return -1;
	for (p = buf; *p != '\0';) {
		const char *q;
		size_t len;

		while (*p == '/')
			p++;
		q = p;
		while (*q != '\0' && *q != '/')
			q++;
		len = (size_t)(q - p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--; /* the slash */
		} else {
			if (n + 1 + len + 1 > size)
				return -1;
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = q;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

/* 1 if `path` names the host's default timeline: the same path once
 * normalised, or the same file through a symbolic link in an existing
 * folder. */
static int is_default_timeline(const char *path)
{
	char a[PATH_MAX], b[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	char *sa, *sb;

	if (normalise_path(path, a, sizeof(a)) != 0 ||
	    normalise_path(LD_DEFAULT_TIMELINE, b, sizeof(b)) != 0)
		return strcmp(path, LD_DEFAULT_TIMELINE) == 0;
	if (strcmp(a, b) == 0)
		return 1;
	if (realpath(path, ra) != NULL && realpath(LD_DEFAULT_TIMELINE, rb) != NULL)
		return strcmp(ra, rb) == 0;
	/* the folders through realpath (when both exist), then the names */
	sa = strrchr(a, '/');
	sb = strrchr(b, '/');
	if (strcmp(sa + 1, sb + 1) != 0)
		return 0;
	*sa = '\0';
	*sb = '\0';
	if (realpath(a[0] ? a : "/", ra) == NULL ||
	    realpath(b[0] ? b : "/", rb) == NULL)
		return 0;
	return strcmp(ra, rb) == 0;
}

/* A relative path made absolute in place (a PATH_MAX field), since a
 * detached daemon works from "/" and the timeline and stats file are
 * opened again after that; -1 if too long. "" and absolute paths stay. */
static int make_absolute(char *path)
{
	char abs[PATH_MAX];

	if (path[0] == '\0' || path[0] == '/')
		return 0;
	if (normalise_path(path, abs, sizeof(abs)) != 0)
		return -1;
	snprintf(path, PATH_MAX, "%s", abs);
	return 0;
}

/* The timeline rule: by default the host's, which never pretends. */
static int check_timeline(struct ld_config *c)
{
	if (!c->timeline_given)
		snprintf(c->timeline, sizeof(c->timeline), "%s",
		         c->pretend[0] != '\0' ? "" : LD_DEFAULT_TIMELINE);
	if (c->pretend[0] != '\0' && c->timeline[0] != '\0' &&
	    is_default_timeline(c->timeline)) {
		fprintf(stderr,
		        "leapclockd: %s: the host's timeline %s never pretends: "
		        "give --timeline another PATH (a rehearsal timeline) or "
		        "--no-timeline\n",
		        c->pretend_where, c->timeline);
		return -1;
	}
	if (c->pretend[0] != '\0' && c->clockbound[0] != '\0') {
		/* ClockBound's clients read the host's CLOCK_REALTIME: a
		 * bound on a rehearsal's time would be a lie */
		fprintf(stderr,
		        "leapclockd: %s: --clockbound bounds the host's clock, "
		        "which a rehearsal does not show: drop one of them\n",
		        c->pretend_where);
		return -1;
	}
	if (make_absolute(c->timeline) != 0) {
		fprintf(stderr, "leapclockd: timeline '%s': path too long\n",
		        c->timeline);
		return -1;
	}
	return 0;
}

/* A table named by LEAPCLOCK_LEAPFILE is named as --leapfile names one
 * (which wins): that table or an error at start, and the file reloaded by
 * name, so that a bad new version keeps the table in use. Made absolute
 * as the others, for a detached daemon. */
static int check_leapfile(struct ld_config *c)
{
	if (c->leapfile[0] == '\0') {
		const char *env = getenv("LEAPCLOCK_LEAPFILE");

		if (env != NULL && *env != '\0') {
			if (strlen(env) >= sizeof(c->leapfile)) {
				fprintf(stderr, "leapclockd: LEAPCLOCK_LEAPFILE: "
				        "path too long\n");
				return -1;
			}
			snprintf(c->leapfile, sizeof(c->leapfile), "%s", env);
			snprintf(c->leapfile_where, sizeof(c->leapfile_where),
			         "LEAPCLOCK_LEAPFILE");
		}
	}
	if (make_absolute(c->leapfile) != 0) {
		fprintf(stderr, "leapclockd: %s: '%s': path too long\n",
		        c->leapfile_where, c->leapfile);
		return -1;
	}
	return 0;
}

/* The other files' paths made absolute; NTS's two files together. */
static int check_files(struct ld_config *c)
{
	struct { char *path; const char *name; } p[] = {
		{ c->statsfile, "stats-file" },
		{ c->keyfile, "keyfile" }, { c->nts_cert, "nts-cert" },
		{ c->nts_key, "nts-key" }, { c->nts_keydir, "nts-keydir" },
		{ c->pidfile, "pidfile" },
		{ c->clockbound, "clockbound" },
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		if (make_absolute(p[i].path) != 0) {
			fprintf(stderr, "leapclockd: %s '%s': path too long\n",
			        p[i].name, p[i].path);
			return -1;
		}
	}
	if ((c->nts_cert[0] != '\0') != (c->nts_key[0] != '\0')) {
		fprintf(stderr, "leapclockd: NTS needs both nts-cert and nts-key "
		        "(only %s was given)\n",
		        c->nts_cert[0] != '\0' ? "nts-cert" : "nts-key");
		return -1;
	}
	return 0;
}

/* The pretended instant, TIME or TIME@ANCHOR (the host's UTC at which
 * the served time reads TIME), read against table t. */
static int check_pretend(const struct ld_config *c, lc_leaptable *t)
{
	struct timespec utc;
	struct lc_error err;
	char when[sizeof(c->pretend)], *at, msg[600];
	int64_t tai;
	int rc;

	snprintf(when, sizeof(when), "%s", c->pretend);
	at = strchr(when, '@');
	if (at != NULL)
		*at++ = '\0';
	memset(&err, 0, sizeof(err));
	rc = lc_iso8601_parse(when, t, &utc, &err);
	if (rc == 0)
		rc = lc_tai_from_utc(t, &utc, &tai);
	if (rc == 0 && at != NULL)
		rc = lc_iso8601_parse(at, t, &utc, &err);
	if (rc < 0) {
		if (err.code != 0)
			lc_error_format(&err, msg, sizeof(msg));
		else
			snprintf(msg, sizeof(msg), "%s", lc_strerror(rc));
		fprintf(stderr, "leapclockd: %s: '%s': %s\n",
		        c->pretend_where, c->pretend, msg);
		return -1;
	}
	return 0;
}

/* The leap table named, and the pretended instant read against it, are
 * checked here so that their errors say where they were set. */
static int check_leaptable(const struct ld_config *c)
{
	lc_leaptable *t;
	struct lc_error err;
	char msg[600];
	int rc;

	if (c->server_process)
		return 0;
	if (c->leapfile[0] == '\0' && c->pretend[0] == '\0')
		return 0;
	t = lc_leaptable_new();
	if (t == NULL) {
		fprintf(stderr, "leapclockd: out of memory\n");
		return -1;
	}
	memset(&err, 0, sizeof(err));
	if (c->leapfile[0] != '\0')
		rc = lc_leaptable_load_file(t, c->leapfile, LC_LEAPFMT_AUTO, &err);
	else
		rc = lc_leaptable_load_system(t, &err);
	if (rc < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		if (c->leapfile[0] != '\0')
			fprintf(stderr, "leapclockd: %s: '%s': %s\n",
			        c->leapfile_where, c->leapfile, msg);
		else
			fprintf(stderr, "leapclockd: leap table: %s\n", msg);
	} else if (c->pretend[0] != '\0') {
		rc = check_pretend(c, t);
	}
	lc_leaptable_free(t);
	return rc < 0 ? -1 : 0;
}

/* The page's smear policy: smear (or --smear), else LEAPCLOCK_SMEAR as
 * before there was a setting; checked here, so that a bad one is a
 * configuration error naming where it was set. */
static int check_page_smear(struct ld_config *c)
{
	struct lc_smear_policy pol;
	struct lc_error err;
	char msg[600];

	if (c->smear_where[0] == '\0') {
		const char *env = getenv("LEAPCLOCK_SMEAR");

		if (env == NULL || *env == '\0')
			return 0;
		if (strlen(env) >= sizeof(c->smear)) {
			fprintf(stderr, "leapclockd: LEAPCLOCK_SMEAR: '%s': too long\n",
			        env);
			return -1;
		}
		snprintf(c->smear, sizeof(c->smear), "%s", env);
		snprintf(c->smear_where, sizeof(c->smear_where), "LEAPCLOCK_SMEAR");
	}
	if (c->smear[0] == '\0')
		return 0;
	memset(&err, 0, sizeof(err));
	if (lc_smear_preset_from(c->smear_where, c->smear, 0, &pol, &err) < 0) {
		lc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "leapclockd: %s\n", msg);
		return -1;
	}
	return 0;
}

/* How the host handles a leap: host-leap (or --host-leap, --host-smear),
 * else LEAPCLOCK_HOST_LEAP; checked here, so that a bad one is a
 * configuration error naming where it was set and the bad part. */
static int check_host_leap(struct ld_config *c)
{
	struct lc_host_leap_spec spec;
	struct lc_error err;
	char msg[700];

	if (c->host_leap_where[0] == '\0') {
		const char *env = getenv("LEAPCLOCK_HOST_LEAP");

		if (env == NULL || *env == '\0')
			return 0;
		if (strlen(env) >= sizeof(c->host_leap)) {
			fprintf(stderr,
			        "leapclockd: LEAPCLOCK_HOST_LEAP: '%s': too long\n",
			        env);
			return -1;
		}
		snprintf(c->host_leap, sizeof(c->host_leap), "%s", env);
		snprintf(c->host_leap_where, sizeof(c->host_leap_where),
		         "LEAPCLOCK_HOST_LEAP");
	}
	memset(&err, 0, sizeof(err));
	if (lc_host_leap_parse(c->host_leap, c->host_leap_where, &spec, &err) <
	    0) {
		lc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "leapclockd: %s\n", msg);
		return -1;
	}
	/* the effective configuration prints the canonical form */
	lc_host_leap_format(&spec, c->host_leap, sizeof(c->host_leap));
	return 0;
}

/* --metrics ADDR:PORT, parsed as the exporter parses it, and --user:
 * errors of the configuration, found before anything is taken. */
static int check_metrics_user(struct ld_config *c)
{
	if (c->metrics[0] != '\0') {
		struct ld_listen_cfg l;
		char spec[160], msg[256];
		const char *colon = strrchr(c->metrics, ':');
		const char *rb = strrchr(c->metrics, ']');

		snprintf(spec, sizeof(spec), "%s=utc", c->metrics);
		if (colon == NULL || (rb != NULL && colon < rb) ||
		    (c->metrics[0] != '[' && colon != strchr(c->metrics, ':')) ||
		    ld_config_parse_listen(spec, &l, msg, sizeof(msg)) != 0) {
			fprintf(stderr,
			        "leapclockd: metrics '%s': not ADDR:PORT (1.2.3.4:9975 "
			        "or [::1]:9975)\n", c->metrics);
			return -1;
		}
	}
	if (c->user_where[0] == '\0') {
		ld_config_default_user(c);
	} else if (c->user[0] != '\0' && getpwnam(c->user) == NULL) {
		fprintf(stderr, "leapclockd: %s: no such user '%s'\n",
		        c->user_where, c->user);
		return -1;
	}
	return 0;
}

void ld_config_default_user(struct ld_config *c)
{
	/* Only for the host's own page: a rehearsal, a test or a second
	 * server (--timeline elsewhere, --no-timeline, --pretend) stays as
	 * it was started unless --user says otherwise. */
	if (c->user_where[0] != '\0' || c->timeline[0] == '\0' ||
	    !is_default_timeline(c->timeline) || getpwnam(LD_DEFAULT_USER) == NULL)
		return;
	snprintf(c->user, sizeof(c->user), "%s", LD_DEFAULT_USER);
	snprintf(c->user_where, sizeof(c->user_where), "the default user");
}

/* The checks that need the whole configuration. 0 or -1 (printed). */
static int check(struct ld_config *c)
{
	if (check_timeline(c) != 0 || check_leapfile(c) != 0 ||
	    check_files(c) != 0 || check_page_smear(c) != 0 ||
	    check_host_leap(c) != 0 ||
	    check_metrics_user(c) != 0)
		return -1;
	if (c->nlisten == 0 && c->timeline[0] == '\0') {
		fprintf(stderr,
		        "leapclockd: nothing to do: give --listen ADDR:PORT=MODE "
		        "(or listen lines in the config file), or a --timeline\n");
		return -1;
	}
	return check_leaptable(c);
}

/* ---- the effective configuration, as a config file (--check-config) */

static void print_value(const struct ld_config *c, const struct setting *s,
                        FILE *out)
{
	if (s->set == set_str || s->set == set_host || s->set == set_counter) {
		const char *v = FIELD(c, s, const char);

		if (v[0] != '\0' || (s->flags & S_NONE))
			fprintf(out, "%s %s\n", s->name, v[0] != '\0' ? v : "none");
		else
			fprintf(out, "# %s (not set)\n", s->name);
	} else if (s->set == set_int) {
		int v = *FIELD(c, s, const int);

		if (v < s->lo && !(s->flags & S_AUTO))
			fprintf(out, "# %s (not set)\n", s->name);
		else if ((s->flags & S_AUTO) && v == s->auto_val)
			fprintf(out, "%s auto\n", s->name);
		else
			fprintf(out, "%s %d\n", s->name, v);
	} else if (s->set == set_seconds) {
		fprintf(out, "%s %.9f\n", s->name,
		        (double)*FIELD(c, s, const int64_t) / 1e9);
	} else if (s->set == set_bool) {
		int v = *FIELD(c, s, const int);

		if (v < 0)
			fprintf(out, "# %s (default: yes unless -d)\n", s->name);
		else
			fprintf(out, "%s %s\n", s->name, v > 0 ? "yes" : "no");
	} else if (s->set == set_refid) {
		uint32_t r = *FIELD(c, s, const uint32_t);
		char t[5];
		int printable = 1;

		for (int i = 0; i < 4; i++) {
			t[i] = (char)(r >> (24 - 8 * i));
			if (t[i] != 0 && (t[i] < 0x21 || t[i] > 0x7e))
				printable = 0;
		}
		t[4] = '\0';
		if (printable && t[0] != 0)
			fprintf(out, "refid %s\n", t);
		else
			fprintf(out, "refid %u.%u.%u.%u\n", r >> 24, (r >> 16) & 255,
			        (r >> 8) & 255, r & 255);
	} else if (s->set == set_ratelimit) {
		if (!c->ratelimit)
			fprintf(out, "ratelimit off\n");
		else
			fprintf(out, "ratelimit %d:%d\n", c->rl_interval, c->rl_burst);
	} else if (s->set == set_listen) {
		for (int i = 0; i < c->nlisten; i++)
			fprintf(out, "listen %s\n", c->listen[i].text);
	} else if (s->set == set_acl) {
		int allow = strcmp(s->name, "allow") == 0;

		/* both kinds in their order, under "allow" */
		for (int i = 0; allow && i < c->nacl; i++)
			fprintf(out, "%s %s\n", c->acl[i].allow ? "allow" : "deny",
			        c->acl[i].text[0] != '\0' ? c->acl[i].text : "all");
	}
}

void ld_config_print(const struct ld_config *c, FILE *out)
{
	fprintf(out, "# leapclockd " LC_VERSION_STRING
	        ": the effective configuration (leapclockd.conf(5))\n");
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const struct setting *s = &settings[i];

		if (s->flags & (S_NOVAL | S_CLIONLY))
			continue;
		if (s->set == set_str && s->where_off != 0 &&
		    ((const char *)c + s->where_off)[0] != '\0' &&
		    strcmp(s->name, "user") != 0)
			fprintf(out, "# %s: from %s\n", s->name,
			        (const char *)c + s->where_off);
		print_value(c, s, out);
	}
	if (c->timeline[0] == '\0')
		fprintf(out, "# no timeline page\n");
	if (c->user_where[0] != '\0')
		fprintf(out, "# user: %s\n", c->user_where);
	if (c->nacl == 0)
		fprintf(out, "# no allow or deny lines: every client is served\n");
}

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))
#define O_SETTING 256 /* getopt's value of settings[i]: O_SETTING + i */

/* getopt_long's table: -c/--config, --help, --version, and every setting
 * under its name (a setting that takes no value, or may go without one
 * in the file, takes none on the command line). */
static void build_opts(struct option *o)
{
	size_t n = 0;

	o[n++] = (struct option){ "config", required_argument, NULL, 'c' };
	o[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	o[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	for (size_t i = 0; i < NSETTINGS; i++)
		o[n++] = (struct option){
			settings[i].name,
			(settings[i].flags & (S_NOVAL | S_OPTVAL)) &&
			                !(settings[i].flags & S_REQARG)
			        ? no_argument
			        : required_argument,
			NULL, O_SETTING + (int)i
		};
	o[n] = (struct option){ NULL, 0, NULL, 0 };
}

static int parse_args(struct ld_config *c, int argc, char **argv,
                      const char *short_opts)
{
	struct option opts[NSETTINGS + 4];
	int opt;

	build_opts(opts);

	/* Pass 1: getopt_long itself finds the config files (so that -cFILE,
	 * -dc FILE, --config=FILE and --conf FILE all count, exactly the forms
	 * it accepts) and every usage error, before anything is read. The '+'
	 * stops at the first operand, which is an error below. */
	optind = 0;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 1;
		}
		if (opt == 'V') {
			printf("leapclockd " LC_VERSION_STRING "\n");
			return 1;
		}
		if (opt == '?' || opt == ':') {
			fprintf(stderr, "leapclockd: see --help\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "leapclockd: unexpected argument '%s'\n",
		        argv[optind]);
		return -1;
	}
	optind = 0;
	while ((opt = getopt_long(argc, argv, short_opts, opts, NULL)) != -1)
		if (opt == 'c' && ld_config_read_file(c, optarg) != 0)
			return -1;

	/* Pass 2: the rest of the command line, over the files' settings. */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->foreground = 1;
			break;
		case 'c':
			break; /* read above */
		case 'l':
			if (apply(c, "listen", optarg, NULL) != 0)
				return -1;
			break;
		default:
			if (opt >= O_SETTING && opt < O_SETTING + (int)NSETTINGS) {
				if (apply(c, settings[opt - O_SETTING].name, optarg,
				          NULL) != 0)
					return -1;
				break;
			}
			return -1; /* not reached: pass 1 took every error */
		}
	}
	return 0;
}

int ld_config_from_args(struct ld_config *c, int argc, char **argv)
{
	const char *short_opts = "+dc:l:hV";
	char *argv0 = argc > 0 ? argv[0] : NULL;
	char prog[] = "leapclockd";
	int rc;

	/* getopt_long names argv[0] in its messages */
	if (argc > 0)
		argv[0] = prog;
	rc = parse_args(c, argc, argv, short_opts);
	if (argc > 0)
		argv[0] = argv0;
	if (rc != 0)
		return rc;
	return check(c);
}

