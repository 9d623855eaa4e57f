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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ld_config_init(struct ld_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->statsfile, sizeof(c->statsfile), "%s",
	         LD_DEFAULT_STATSFILE);
	snprintf(c->counter, sizeof(c->counter), "best");
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
}

void ld_format_addr(const struct sockaddr *sa, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(a->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		snprintf(buf, size, "?");
	}
}

static int parse_port(const char *s, unsigned *port)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end != '\0' || v > 65535 || !isdigit((unsigned char)*s))
		return -1;
	*port = (unsigned)v;
	return 0;
}

int ld_config_parse_listen(const char *text, struct ld_listen_cfg *l,
                           char *msg, size_t msgsize)
{
	char buf[128], host[80];
	char *eq, *mode, *port_s = NULL;
	unsigned port = LD_DEFAULT_PORT;
	size_t n;

	memset(l, 0, sizeof(*l));
	if (strlen(text) >= sizeof(buf)) {
		snprintf(msg, msgsize, "listen '%.40s...': too long", text);
		return -1;
	}
	snprintf(l->text, sizeof(l->text), "%s", text);
	snprintf(buf, sizeof(buf), "%s", text);
	eq = strrchr(buf, '=');
	if (eq == NULL) {
		snprintf(msg, msgsize,
		         "listen '%s': expected ADDR:PORT=MODE (MODE utc or smear:PRESET)",
		         text);
		return -1;
	}
	*eq = '\0';
	mode = eq + 1;

	if (buf[0] == '[') {
		char *close = strchr(buf, ']');
		if (close == NULL) {
			snprintf(msg, msgsize, "listen '%s': missing ']'", text);
			return -1;
		}
		*close = '\0';
		n = (size_t)(close - buf - 1);
		if (n >= sizeof(host))
			n = sizeof(host) - 1;
		memcpy(host, buf + 1, n);
		host[n] = '\0';
		if (close[1] == ':')
			port_s = close + 2;
		else if (close[1] != '\0') {
			snprintf(msg, msgsize, "listen '%s': junk after ']'", text);
			return -1;
		}
	} else {
		char *colon = strchr(buf, ':');
		/* one colon: IPv4 with a port; more: a bare IPv6 address */
		if (colon != NULL && strchr(colon + 1, ':') == NULL) {
			*colon = '\0';
			port_s = colon + 1;
		}
		if (strlen(buf) >= sizeof(host)) {
			snprintf(msg, msgsize, "listen '%s': address too long", text);
			return -1;
		}
		memcpy(host, buf, strlen(buf) + 1);
	}
	if (port_s != NULL && parse_port(port_s, &port) != 0) {
		snprintf(msg, msgsize, "listen '%s': bad port '%s'", text, port_s);
		return -1;
	}

	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&l->addr)->sin_addr) == 1) {
		struct sockaddr_in *a = (struct sockaddr_in *)&l->addr;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		l->addrlen = sizeof(*a);
	} else if (inet_pton(AF_INET6, host,
	                     &((struct sockaddr_in6 *)&l->addr)->sin6_addr) == 1) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&l->addr;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		l->addrlen = sizeof(*a);
	} else {
		snprintf(msg, msgsize,
		         "listen '%s': '%s' is not a numeric IPv4 or IPv6 address",
		         text, host);
		return -1;
	}

	if (strcmp(mode, "utc") == 0) {
		l->smear = 0;
		snprintf(l->mode_name, sizeof(l->mode_name), "utc");
	} else if (strncmp(mode, "smear:", 6) == 0 && mode[6] != '\0' &&
	           strlen(mode + 6) < sizeof(l->preset)) {
		l->smear = 1;
		snprintf(l->preset, sizeof(l->preset), "%s", mode + 6);
		snprintf(l->mode_name, sizeof(l->mode_name), "smear:%s",
		         l->preset);
	} else {
		snprintf(msg, msgsize,
		         "listen '%s': mode '%s' is neither 'utc' nor 'smear:PRESET'",
		         text, mode);
		return -1;
	}
	return 0;
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
static int parse_ratelimit(struct ld_config *c, const char *s)
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

/* Applies one setting; `where` labels errors. 0 or -1 (printed). */
static int apply(struct ld_config *c, const char *name, const char *val,
                 const char *where)
{
	char msg[256];

#define NEED_VAL                                                          \
	do {                                                              \
		if (val == NULL || *val == '\0') {                        \
			fprintf(stderr, "leapclockd: %s: '%s' needs a value\n", \
			        where, name);                             \
			return -1;                                        \
		}                                                         \
	} while (0)
#define BAD(what)                                                         \
	do {                                                              \
		fprintf(stderr, "leapclockd: %s: %s: %s '%s'\n", where,   \
		        name, what, val);                                 \
		return -1;                                                \
	} while (0)

	if (strcmp(name, "listen") == 0) {
		NEED_VAL;
		if (c->nlisten >= LD_MAX_LISTEN) {
			fprintf(stderr, "leapclockd: %s: more than %d listen addresses\n",
			        where, LD_MAX_LISTEN);
			return -1;
		}
		if (ld_config_parse_listen(val, &c->listen[c->nlisten], msg,
		                           sizeof(msg)) != 0) {
			fprintf(stderr, "leapclockd: %s: %s\n", where, msg);
			return -1;
		}
		c->nlisten++;
	} else if (strcmp(name, "leapfile") == 0) {
		NEED_VAL;
		if (strlen(val) >= sizeof(c->leapfile))
			BAD("path too long");
		snprintf(c->leapfile, sizeof(c->leapfile), "%s", val);
	} else if (strcmp(name, "pretend") == 0) {
		NEED_VAL;
		if (strlen(val) >= sizeof(c->pretend))
			BAD("too long");
		snprintf(c->pretend, sizeof(c->pretend), "%s", val);
	} else if (strcmp(name, "stats-file") == 0 ||
	           strcmp(name, "statsfile") == 0) {
		NEED_VAL;
		if (strlen(val) >= sizeof(c->statsfile))
			BAD("path too long");
		/* "none" disables the file */
		snprintf(c->statsfile, sizeof(c->statsfile), "%s",
		         strcmp(val, "none") == 0 ? "" : val);
	} else if (strcmp(name, "counter") == 0) {
		NEED_VAL;
		if (strcmp(val, "best") != 0 && strcmp(val, "system") != 0 &&
		    strcmp(val, "tsc") != 0)
			BAD("expected best, system or tsc, not");
		snprintf(c->counter, sizeof(c->counter), "%s", val);
	} else if (strcmp(name, "stratum") == 0) {
		NEED_VAL;
		if (parse_int(val, 1, 15, &c->stratum) != 0)
			BAD("expected 1..15, not");
	} else if (strcmp(name, "precision") == 0) {
		NEED_VAL;
		if (strcmp(val, "auto") == 0)
			c->precision = LD_PRECISION_AUTO;
		else if (parse_int(val, -32, 0, &c->precision) != 0)
			BAD("expected auto or log2 seconds -32..0, not");
	} else if (strcmp(name, "root-delay") == 0 ||
	           strcmp(name, "rootdelay") == 0) {
		NEED_VAL;
		if (parse_seconds(val, &c->root_delay_ns) != 0)
			BAD("expected seconds 0..65535, not");
	} else if (strcmp(name, "root-dispersion") == 0 ||
	           strcmp(name, "rootdispersion") == 0) {
		NEED_VAL;
		if (parse_seconds(val, &c->root_dispersion_ns) != 0)
			BAD("expected seconds 0..65535, not");
	} else if (strcmp(name, "refid") == 0) {
		NEED_VAL;
		if (parse_refid(val, &c->refid) != 0)
			BAD("expected 1-4 printable ASCII characters or a.b.c.d, not");
	} else if (strcmp(name, "ratelimit") == 0) {
		NEED_VAL;
		if (parse_ratelimit(c, val) != 0)
			BAD("expected off, INTERVAL (log2 s, -8..12) or INTERVAL:BURST, not");
	} else if (strcmp(name, "syslog") == 0) {
		c->use_syslog = (val == NULL || strcmp(val, "yes") == 0) ? 1 : 0;
	} else if (strcmp(name, "foreground") == 0) {
		c->foreground = (val == NULL || strcmp(val, "yes") == 0) ? 1 : 0;
	} else {
		fprintf(stderr, "leapclockd: %s: unknown setting '%s'\n", where,
		        name);
		return -1;
	}
	return 0;
#undef NEED_VAL
#undef BAD
}

int ld_config_read_file(struct ld_config *c, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024], where[PATH_MAX + 32];
	int lineno = 0, rc = 0;

	if (f == NULL) {
		fprintf(stderr, "leapclockd: %s: %s\n", path, strerror(errno));
		return -1;
	}
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
	        "usage: leapclockd [-d] [-c CONFIG] --listen ADDR:PORT=MODE ... [OPTIONS]\n"
	        "\n"
	        "An NTP server (RFC 5905) that serves leap-correct UTC, or smeared time,\n"
	        "from leapclock's clocks. One mode per listening address:\n"
	        "  utc            real UTC; the leap indicator announces a leap only\n"
	        "                 during the UTC day that ends with it\n"
	        "  smear:PRESET   smeared UTC (google, ntpd, chrony, fbclock, utc-sls,\n"
	        "                 minute, cosine, windows); never announces a leap; the\n"
	        "                 smear offset is in a 254.x.y.z reference id\n"
	        "\n"
	        "options:\n"
	        "  -d, --foreground        stay in the foreground, log to stderr\n"
	        "  -c, --config FILE       read settings from FILE (leapclockd.conf(5))\n"
	        "  -l, --listen A:P=MODE   e.g. 127.0.0.1:11123=utc, [::1]:11124=smear:google\n"
	        "      --leapfile FILE     leap-seconds.list or tzdata leapseconds\n"
	        "                          (default: the system's; SIGHUP reloads it)\n"
	        "      --pretend TIME      serve time that reads TIME (ISO 8601) now\n"
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
	        "      --counter C         best (default), system or tsc\n"
	        "      --syslog            log to syslog even with -d\n"
	        "  -h, --help              this text\n"
	        "  -V, --version\n"
	        "\n"
	        "Signals: SIGHUP reloads the leap table (keeping the old one if the new is\n"
	        "bad), SIGUSR1 logs the counters and writes the stats file, SIGTERM stops.\n"
	        "See leapclockd(8).\n");
}

int ld_config_from_args(struct ld_config *c, int argc, char **argv)
{
	enum {
		O_LEAPFILE = 256, O_PRETEND, O_STATS, O_STRATUM, O_REFID,
		O_PRECISION, O_RDELAY, O_RDISP, O_RATELIMIT, O_COUNTER,
		O_SYSLOG
	};
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "leapfile", required_argument, NULL, O_LEAPFILE },
		{ "pretend", required_argument, NULL, O_PRETEND },
		{ "stats-file", required_argument, NULL, O_STATS },
		{ "stratum", required_argument, NULL, O_STRATUM },
		{ "refid", required_argument, NULL, O_REFID },
		{ "precision", required_argument, NULL, O_PRECISION },
		{ "root-delay", required_argument, NULL, O_RDELAY },
		{ "root-dispersion", required_argument, NULL, O_RDISP },
		{ "ratelimit", required_argument, NULL, O_RATELIMIT },
		{ "counter", required_argument, NULL, O_COUNTER },
		{ "syslog", no_argument, NULL, O_SYSLOG },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *names[] = {
		[O_LEAPFILE - 256] = "leapfile", [O_PRETEND - 256] = "pretend",
		[O_STATS - 256] = "stats-file", [O_STRATUM - 256] = "stratum",
		[O_REFID - 256] = "refid", [O_PRECISION - 256] = "precision",
		[O_RDELAY - 256] = "root-delay", [O_RDISP - 256] = "root-dispersion",
		[O_RATELIMIT - 256] = "ratelimit", [O_COUNTER - 256] = "counter",
		[O_SYSLOG - 256] = "syslog",
	};
	int opt;

	/* The config file first, so that the command line overrides it. */
	for (int i = 1; i < argc; i++) {
		const char *path = NULL;
		if (strcmp(argv[i], "--") == 0)
			break;
		if ((strcmp(argv[i], "-c") == 0 ||
		     strcmp(argv[i], "--config") == 0) && i + 1 < argc)
			path = argv[++i];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			path = argv[i] + 9;
		if (path != NULL && ld_config_read_file(c, path) != 0)
			return -1;
	}

	optind = 1;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, "dc:l:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->foreground = 1;
			break;
		case 'c':
			break; /* read above */
		case 'l':
			if (apply(c, "listen", optarg, "--listen") != 0)
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("leapclockd " LC_VERSION_STRING "\n");
			return 1;
		case O_SYSLOG:
			c->use_syslog = 1;
			break;
		default:
			if (opt >= 256 && opt <= O_SYSLOG) {
				char where[40];
				snprintf(where, sizeof(where), "--%s",
				         names[opt - 256]);
				if (apply(c, names[opt - 256], optarg, where) != 0)
					return -1;
				break;
			}
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "leapclockd: unexpected argument '%s'\n",
		        argv[optind]);
		return -1;
	}
	if (c->nlisten == 0) {
		fprintf(stderr,
		        "leapclockd: nothing to serve: give --listen ADDR:PORT=MODE "
		        "(or listen lines in the config file)\n");
		return -1;
	}
	return 0;
}
