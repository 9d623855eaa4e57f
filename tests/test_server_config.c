/*
 * test_server_config.c - leapclockd's struct ld_config as the other
 * modules see it after ld_config_from_args (tools/leapclockd/config.c):
 * the timeline field's defaults (issue 11: the host's page unless
 * pretending, never the host's page while pretending), optional --listen,
 * and every form of -c reading the same file (issue 12 item 16). Nothing
 * is started: only the parser runs.
 */
#include "lc_test.h"

#include "leapclockd.h"

#include <arpa/inet.h>
#include <stdarg.h>

static struct ld_config cfg;
static char tmpdir[] = "/tmp/lc-test-server-config.XXXXXX";

/* Parses a NULL-terminated argument list (after "leapclockd"), with
 * stderr kept out of the test's output. */
static int parse(const char *first, ...)
{
	char *argv[32];
	int argc = 0, rc, saved;
	va_list ap;

	argv[argc++] = "leapclockd";
	va_start(ap, first);
	for (const char *a = first; a != NULL && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	ld_config_init(&cfg);
	fflush(stderr);
	saved = dup(2);
	if (freopen("/dev/null", "w", stderr) == NULL)
		return -99;
	rc = ld_config_from_args(&cfg, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return rc;
}

static void test_init_publishes_nothing(void)
{
	ld_config_init(&cfg);
	LC_EQ_STR(cfg.timeline, "");
	LC_EQ_INT(cfg.timeline_given, 0);
}

static void test_timeline_defaults(void)
{
	const char *lf = LC_TEST_DATA_DIR "/leap-seconds.list.tzdata2026f";

	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", NULL), 0);
	LC_EQ_STR(cfg.timeline, LD_DEFAULT_TIMELINE);
	/* pretending: no page unless one is named */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--pretend",
	                "2016-12-31T23:59:00Z", "--leapfile", lf, NULL), 0);
	LC_EQ_STR(cfg.timeline, "");
	LC_EQ_INT(parse("--pretend", "2016-12-31T23:59:00Z", "--leapfile", lf,
	                "--timeline", "/tmp/rehearsal", NULL), 0);
	LC_EQ_STR(cfg.timeline, "/tmp/rehearsal");
	LC_EQ_INT(cfg.nlisten, 0);
	/* ... but never the host's page */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--pretend",
	                "2016-12-31T23:59:00Z", "--leapfile", lf, "--timeline",
	                LD_DEFAULT_TIMELINE, NULL), -1);
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--pretend",
	                "2016-12-31T23:59:00Z", "--leapfile", lf, "--timeline",
	                "/run//leapclock/./timeline", NULL), -1);
	/* --no-timeline, and an abbreviation of --timeline */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline", NULL), 0);
	LC_EQ_STR(cfg.timeline, "");
	LC_EQ_INT(parse("--time=/tmp/x", NULL), 0);
	LC_EQ_STR(cfg.timeline, "/tmp/x");
	/* --timeline PATH with --no-timeline: which was meant? A usage
	 * error either way round (issue 27; before, the last one won) */
	LC_EQ_INT(parse("--timeline", "/tmp/x", "--no-timeline", "--listen",
	                "127.0.0.1:1=utc", NULL), -1);
	LC_EQ_INT(parse("--no-timeline", "--timeline", "/tmp/x", "--listen",
	                "127.0.0.1:1=utc", NULL), -1);
	/* ... not with "none", its other spelling; one option twice: the
	 * last wins, as every setting */
	LC_EQ_INT(parse("--no-timeline", "--timeline", "none", "--listen",
	                "127.0.0.1:1=utc", NULL), 0);
	LC_EQ_STR(cfg.timeline, "");
	LC_EQ_INT(parse("--timeline", "/tmp/x", "--timeline", "/tmp/y", NULL), 0);
	LC_EQ_STR(cfg.timeline, "/tmp/y");
}

static void test_listen_optional(void)
{
	/* a timeline alone is something to do; nothing at all is not */
	LC_EQ_INT(parse(NULL), 0);
	LC_EQ_INT(cfg.nlisten, 0);
	LC_EQ_STR(cfg.timeline, LD_DEFAULT_TIMELINE);
	LC_EQ_INT(parse("--no-timeline", NULL), -1);
	LC_EQ_INT(parse("--pretend", "2016-12-31T23:59:00Z", NULL), -1);
}

static void test_relative_made_absolute(void)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];

	LC_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	LC_EQ_INT(parse("--timeline", "sub/../page", "--stats-file", "st", NULL), 0);
	snprintf(want, sizeof(want), "%s/page", strcmp(cwd, "/") ? cwd : "");
	LC_EQ_STR(cfg.timeline, want);
	snprintf(want, sizeof(want), "%s/st", strcmp(cwd, "/") ? cwd : "");
	LC_EQ_STR(cfg.statsfile, want);
}

static void test_config_forms(void)
{
	char path[PATH_MAX], arg[PATH_MAX + 16];
	const char *forms[] = { "-c", "--config", "--conf", "--con" };
	FILE *f;

	snprintf(path, sizeof(path), "%s/conf", tmpdir);
	f = fopen(path, "w");
	LC_TRUE(f != NULL);
	fprintf(f, "listen 127.0.0.1:1 utc\nstratum 7\ntimeline none\n");
	fclose(f);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		LC_EQ_INT(parse(forms[i], path, NULL), 0);
		LC_EQ_INT(cfg.stratum, 7);
		LC_EQ_STR(cfg.timeline, "");
	}
	snprintf(arg, sizeof(arg), "-c%s", path);
	LC_EQ_INT(parse(arg, NULL), 0);
	LC_EQ_INT(cfg.stratum, 7);
	LC_EQ_INT(parse("-dc", path, NULL), 0);
	LC_EQ_INT(cfg.stratum, 7);
	LC_EQ_INT(cfg.foreground, 1);
	snprintf(arg, sizeof(arg), "--conf=%s", path);
	LC_EQ_INT(parse(arg, "--stratum", "3", NULL), 0);
	LC_EQ_INT(cfg.stratum, 3); /* the command line overrides the file */
	LC_EQ_INT(parse("--co", path, NULL), -1); /* --config or --counter */
	unlink(path);
}

/* 1 if the parsed rules let in ADDR (IPv4 or IPv6 text) */
static int allowed(const char *addr)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(addr, ':') == NULL) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &a->sin_addr);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &a->sin6_addr);
	}
	return ld_acl_allowed(&cfg, (struct sockaddr *)&ss);
}

/* issue 27 item 3: chrony's allow/deny rules */
static void test_acl(void)
{
	/* no rule: everyone */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline", NULL), 0);
	LC_EQ_INT(allowed("192.0.2.1"), 1);
	LC_EQ_INT(allowed("2001:db8::1"), 1);
	/* the most specific range decides; outside every range: denied */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline",
	                "--allow", "10.0.0.0/8", "--deny", "10.1.0.0/16",
	                "--allow", "10.1.2.3", "--allow", "2001:db8::/32", NULL), 0);
	LC_EQ_INT(allowed("10.9.9.9"), 1);
	LC_EQ_INT(allowed("10.1.9.9"), 0);
	LC_EQ_INT(allowed("10.1.2.3"), 1);
	LC_EQ_INT(allowed("11.0.0.1"), 0);
	LC_EQ_INT(allowed("2001:db8:5::1"), 1);
	LC_EQ_INT(allowed("2001:db9::1"), 0);
	/* the later of two lines for one range; "all" overrides inside */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline",
	                "--allow", "10.0.0.0/8", "--deny", "10.0.0.0/8", NULL), 0);
	LC_EQ_INT(allowed("10.0.0.1"), 0);
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline",
	                "--deny", "10.1.2.3", "--allow", "all 10.0.0.0/8", NULL), 0);
	LC_EQ_INT(allowed("10.1.2.3"), 1);
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline",
	                "--deny", "10.1.2.3", "--allow", "10.0.0.0/8", NULL), 0);
	LC_EQ_INT(allowed("10.1.2.3"), 0);
	/* a bare "all": every address, IPv4 and IPv6 */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline",
	                "--allow", "all", NULL), 0);
	LC_EQ_INT(allowed("203.0.113.7") && allowed("::1"), 1);
	/* bits past the prefix do not count; bad ranges are errors */
	LC_EQ_INT(parse("--listen", "127.0.0.1:1=utc", "--no-timeline",
	                "--allow", "10.1.2.3/8", NULL), 0);
	LC_EQ_INT(allowed("10.200.0.1"), 1);
	LC_EQ_INT(parse("--no-timeline", "--listen", "127.0.0.1:1=utc",
	                "--allow", "10.0.0.0/33", NULL), -1);
	LC_EQ_INT(parse("--no-timeline", "--listen", "127.0.0.1:1=utc",
	                "--deny", "::/129", NULL), -1);
	LC_EQ_INT(parse("--no-timeline", "--listen", "127.0.0.1:1=utc",
	                "--deny", "example.org", NULL), -1);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	LC_RUN(test_init_publishes_nothing, "ld_config_init publishes no timeline");
	LC_RUN(test_timeline_defaults, "timeline: the host's page, none when pretending, never both");
	LC_RUN(test_listen_optional, "--listen optional with a timeline, an error without");
	LC_RUN(test_relative_made_absolute, "relative timeline and stats paths made absolute");
	LC_RUN(test_config_forms, "-c FILE, --config, --conf, --con, -cFILE, -dc FILE, --conf=FILE");
	LC_RUN(test_acl, "allow/deny: most specific range, later line, all, default deny");
	rmdir(tmpdir);
	return lc_test_done();
}
