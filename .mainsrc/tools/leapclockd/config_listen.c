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

/* ---- allow/deny (leapclockd.conf(5)) ---- */

/* sa's address as 16 bytes, IPv4 mapped into IPv6 (::ffff:a.b.c.d) */
static void acl_key(const struct sockaddr *sa, uint8_t out[16])
{
	memset(out, 0, 16);
	if (sa->sa_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

/* 1 if the first plen bits of a and b agree */
static int acl_match(const uint8_t *a, const uint8_t *b, int plen)
{
	int whole = plen / 8, rest = plen % 8;

	if (memcmp(a, b, (size_t)whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a[whole] ^ b[whole]) & (0xff << (8 - rest)) & 0xff) == 0;
}

int ld_acl_parse(const char *text, int allow, struct ld_acl_rule *r,
                 char *msg, size_t msgsize)
{
	char buf[64], *slash, *end;
	const char *p = text != NULL ? text : "";
	struct in_addr a4;
	struct in6_addr a6;
	long len = -1;

	memset(r, 0, sizeof(*r));
	r->allow = allow;
	snprintf(r->text, sizeof(r->text), "%s", p);
	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "all", 3) == 0 &&
	    (p[3] == '\0' || isspace((unsigned char)p[3]))) {
		r->all = 1;
		p += 3;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (*p == '\0') {
		/* every address: ::/0 holds the mapped IPv4 ones too */
		r->plen = 0;
		return 0;
	}
	if (strlen(p) >= sizeof(buf)) {
		snprintf(msg, msgsize, "'%s': too long", text);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", p);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash++ = '\0';
		errno = 0;
		len = strtol(slash, &end, 10);
		if (errno || end == slash || *end != '\0' || len < 0) {
			snprintf(msg, msgsize,
			         "'%s': expected ADDR/LEN with LEN a number", text);
			return -1;
		}
	}
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		if (len > 32) {
			snprintf(msg, msgsize, "'%s': an IPv4 prefix is 0..32", text);
			return -1;
		}
		r->addr[10] = r->addr[11] = 0xff;
		memcpy(r->addr + 12, &a4, 4);
		r->plen = 96 + (len < 0 ? 32 : (int)len);
	} else if (inet_pton(AF_INET6, buf, &a6) == 1) {
		if (len > 128) {
			snprintf(msg, msgsize, "'%s': an IPv6 prefix is 0..128", text);
			return -1;
		}
		memcpy(r->addr, &a6, 16);
		r->plen = len < 0 ? 128 : (int)len;
	} else {
		snprintf(msg, msgsize,
		         "'%s': expected all, ADDR or ADDR/LEN (a numeric IPv4 or "
		         "IPv6 address)", text);
		return -1;
	}
	/* the bits past the prefix do not count */
	for (int b = r->plen; b < 128; b++)
		r->addr[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
	return 0;
}

int ld_acl_allowed(const struct ld_config *c, const struct sockaddr *sa)
{
	uint8_t key[16];
	int best = -1, allow = 0;

	if (c->nacl == 0)
		return 1;
	acl_key(sa, key);
	for (int i = 0; i < c->nacl; i++) {
		const struct ld_acl_rule *r = &c->acl[i];

		if (!acl_match(key, r->addr, r->plen))
			continue;
		/* an "all" line overrides every earlier line inside its
		 * range (they are all at least as specific); any other line
		 * wins when at least as specific as the best so far */
		if (r->all || r->plen >= best) {
			best = r->plen;
			allow = r->allow;
		}
	}
	return best >= 0 && allow;
}
