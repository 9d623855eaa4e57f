/*
 * config_listen.c - leapclockd's listen addresses, "ADDR:PORT=MODE"
 * (leapclockd(8) --listen), parsed into a socket address and a mode, and
 * socket addresses formatted back for messages.
 */
#include "leapclockd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Splits buf ("ADDR" or "ADDR:PORT", ADDR as 1.2.3.4, [v6] or a bare v6)
 * into host and *port_s (NULL without a port); -1 with a message. */
static int split_host_port(char *buf, char *host, size_t hostsize,
                           char **port_s, const char *text, char *msg,
                           size_t msgsize)
{
	size_t n;

	*port_s = NULL;
	if (buf[0] == '[') {
		char *close = strchr(buf, ']');
		if (close == NULL) {
			snprintf(msg, msgsize, "listen '%s': missing ']'", text);
			return -1;
		}
		*close = '\0';
		n = (size_t)(close - buf - 1);
		if (n >= hostsize)
			n = hostsize - 1;
		memcpy(host, buf + 1, n);
		host[n] = '\0';
		if (close[1] == ':')
			*port_s = close + 2;
		else if (close[1] != '\0') {
			snprintf(msg, msgsize, "listen '%s': junk after ']'", text);
			return -1;
		}
		return 0;
	}
	char *colon = strchr(buf, ':');
	/* one colon: IPv4 with a port; more: a bare IPv6 address */
	if (colon != NULL && strchr(colon + 1, ':') == NULL) {
		*colon = '\0';
		*port_s = colon + 1;
	}
	if (strlen(buf) >= hostsize) {
		snprintf(msg, msgsize, "listen '%s': address too long", text);
		return -1;
	}
	memcpy(host, buf, strlen(buf) + 1);
	return 0;
}

/* l->addr from a numeric address and a port; -1 if not numeric. */
static int set_listen_addr(struct ld_listen_cfg *l, const char *host,
                           unsigned port)
{
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
		return -1;
	}
	return 0;
}

/* MODE: "utc" or "smear:PRESET"; -1 otherwise. */
static int set_listen_mode(struct ld_listen_cfg *l, const char *mode)
{
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
		return -1;
	}
	return 0;
}

int ld_config_parse_listen(const char *text, struct ld_listen_cfg *l,
                           char *msg, size_t msgsize)
{
	char buf[128], host[80];
	char *eq, *mode, *port_s;
	unsigned port = LD_DEFAULT_PORT;

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

	if (split_host_port(buf, host, sizeof(host), &port_s, text, msg,
	                    msgsize) != 0)
		return -1;
	if (port_s != NULL && parse_port(port_s, &port) != 0) {
		snprintf(msg, msgsize, "listen '%s': bad port '%s'", text, port_s);
		return -1;
	}
	if (set_listen_addr(l, host, port) != 0) {
		snprintf(msg, msgsize,
		         "listen '%s': '%s' is not a numeric IPv4 or IPv6 address",
		         text, host);
		return -1;
	}
	if (set_listen_mode(l, mode) != 0) {
		snprintf(msg, msgsize,
		         "listen '%s': mode '%s' is neither 'utc' nor 'smear:PRESET'",
		         text, mode);
		return -1;
	}
	return 0;
}
