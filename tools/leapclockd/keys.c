/*
 * keys.c - symmetric-key authentication (RFC 8573 AES-CMAC and the legacy
 * NTP digests) with chrony's key file (keys.h for the format).
 *
 * What a request gets, as chronyd 4.3 does it (ntp_auth.c, ntp_core.c):
 * - no MAC: a plain answer;
 * - a MAC that holds: the answer, signed with the same key: key id and
 *   the MAC over the 48-byte reply header, truncated to 20 bytes in NTPv4
 *   (RFC 7822), whole in NTPv3 and older;
 * - an unknown key id, a wrong MAC, a MAC of the wrong length, or bytes
 *   after the header that are neither extension fields nor a MAC: no
 *   answer at all (chronyd sends no crypto-NAK for symmetric keys; an
 *   answer would only tell an attacker which key ids exist).
 * Where the MAC is (NTPv4): after any extension fields, the last 20..24
 * bytes; 24 < n <= 68 bytes right after the header are taken as one long
 * MAC when they verify as one (old chrony clients), as extension fields
 * otherwise. NTPv3 and older: everything after the header.
 *
 * Threads: the key set is read under a read lock by every worker; a
 * reload parses the new file first and swaps the set under the write
 * lock, so a worker sees the old keys or the new ones, never a mix, and a
 * bad file changes nothing. ld_keys_finish looks the key up again by id,
 * so a reload between check and finish never leaves a dangling key.
 */
#define _GNU_SOURCE /* explicit_bzero, strncasecmp, writer-preferring rwlock */

#include "auth.h"
#include "keys.h"

#include "leapclockd.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef LD_HAVE_GNUTLS
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#endif

int (*ld__mac_equal)(const uint8_t *a, const uint8_t *b, size_t n) =
        ld_mac_equal;

#define MIN_SECURE_KEY_LEN 10 /* 80 bits: chrony warns below */
#define MAX_KEYS 65536

static const struct {
	const char *name;
	size_t mac_len;
} types[LD_KEY_NTYPES] = {
	[LD_KEY_MD5] = { "MD5", 16 },
	[LD_KEY_SHA1] = { "SHA1", 20 },
	[LD_KEY_SHA256] = { "SHA256", 32 },
	[LD_KEY_SHA384] = { "SHA384", 48 },
	[LD_KEY_SHA512] = { "SHA512", 64 },
	[LD_KEY_SHA3_224] = { "SHA3-224", 28 },
	[LD_KEY_SHA3_256] = { "SHA3-256", 32 },
	[LD_KEY_SHA3_384] = { "SHA3-384", 48 },
	[LD_KEY_SHA3_512] = { "SHA3-512", 64 },
	[LD_KEY_AES128] = { "AES128", 16 },
	[LD_KEY_AES256] = { "AES256", 16 },
};

const char *ld_key_type_name(enum ld_key_type t)
{
	return (unsigned)t < LD_KEY_NTYPES ? types[t].name : "?";
}

size_t ld_key_mac_len(enum ld_key_type t)
{
	return (unsigned)t < LD_KEY_NTYPES ? types[t].mac_len : 0;
}

int ld_mac_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	volatile uint8_t d = 0;

	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/* ---- the MAC ---- */

#ifdef LD_HAVE_GNUTLS
static const gnutls_digest_algorithm_t digests[LD_KEY_NTYPES] = {
	[LD_KEY_MD5] = GNUTLS_DIG_MD5,
	[LD_KEY_SHA1] = GNUTLS_DIG_SHA1,
	[LD_KEY_SHA256] = GNUTLS_DIG_SHA256,
	[LD_KEY_SHA384] = GNUTLS_DIG_SHA384,
	[LD_KEY_SHA512] = GNUTLS_DIG_SHA512,
	[LD_KEY_SHA3_224] = GNUTLS_DIG_SHA3_224,
	[LD_KEY_SHA3_256] = GNUTLS_DIG_SHA3_256,
	[LD_KEY_SHA3_384] = GNUTLS_DIG_SHA3_384,
	[LD_KEY_SHA3_512] = GNUTLS_DIG_SHA3_512,
};

int ld_key_mac(const struct ld_key *k, const uint8_t *data, size_t len,
               uint8_t out[LD_MAC_MAX])
{
	uint8_t buf[LD_KEY_MAX + LD_NTP_MAX_PACKET];
	gnutls_hash_hd_t h;
	int rc;

	switch (k->type) {
	case LD_KEY_AES128:
	case LD_KEY_AES256:
		rc = gnutls_hmac_fast(k->type == LD_KEY_AES128 ?
		                      GNUTLS_MAC_AES_CMAC_128 :
		                      GNUTLS_MAC_AES_CMAC_256,
		                      k->secret, k->len, data, len, out);
		return rc < 0 ? -1 : (int)types[k->type].mac_len;
	default:
		break;
	}
	if ((unsigned)k->type >= LD_KEY_NTYPES)
		return -1;
	/* the legacy digest: TYPE(secret || data), in one call when the
	 * two fit the stack buffer (every request does) */
	if (k->len + len <= sizeof(buf)) {
		memcpy(buf, k->secret, k->len);
		memcpy(buf + k->len, data, len);
		rc = gnutls_hash_fast(digests[k->type], buf, k->len + len, out);
		explicit_bzero(buf, k->len);
		return rc < 0 ? -1 : (int)types[k->type].mac_len;
	}
	if (gnutls_hash_init(&h, digests[k->type]) < 0)
		return -1;
	rc = gnutls_hash(h, k->secret, k->len);
	if (rc >= 0)
		rc = gnutls_hash(h, data, len);
	gnutls_hash_deinit(h, out);
	return rc < 0 ? -1 : (int)types[k->type].mac_len;
}
#else
int ld_key_mac(const struct ld_key *k, const uint8_t *data, size_t len,
               uint8_t out[LD_MAC_MAX])
{
	(void)k, (void)data, (void)len, (void)out;
	return -1;
}
#endif

/* ---- the key file ---- */

static int perr(char *err, size_t errlen, const char *name, unsigned line,
                int field, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static const char *const field_names[] = { "", "key id", "type", "key" };

/* "NAME:LINE: field N (WHAT): why", or without the field when 0, or
 * "NAME: why" when line is 0. Never quotes a key. */
static int perr(char *err, size_t errlen, const char *name, unsigned line,
                int field, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (errlen == 0)
		return -1;
	if (line == 0)
		n = snprintf(err, errlen, "%s: ", name);
	else if (field == 0)
		n = snprintf(err, errlen, "%s:%u: ", name, line);
	else
		n = snprintf(err, errlen, "%s:%u: field %d (%s): ", name, line,
		             field, field_names[field < 4 ? field : 0]);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int cmp_key(const void *a, const void *b)
{
	const struct ld_key *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void ld_keyset_free(struct ld_keyset *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s->key, s->n * sizeof(s->key[0]));
	free(s);
}

/* Makes room for one more key: a new block and the old one wiped, so no
 * secret is left behind in freed memory by realloc. */
static int grow(struct ld_keyset **s, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	struct ld_keyset *n;

	if (ncap > MAX_KEYS)
		ncap = MAX_KEYS;
	n = malloc(sizeof(*n) + ncap * sizeof(n->key[0]));
	if (n == NULL)
		return -1;
	n->n = 0;
	if (*s != NULL) {
		n->n = (*s)->n;
		memcpy(n->key, (*s)->key, (*s)->n * sizeof(n->key[0]));
		ld_keyset_free(*s);
	}
	*s = n;
	*cap = ncap;
	return 0;
}

/* A line's place, for its errors. */
struct kline {
	const char *name;
	unsigned lineno;
	char *err;
	size_t errlen;
};

/* Up to 4 blank-separated words of p[0..n); their count. */
static int split_words(const char *p, size_t n, const char *w[4],
                       size_t wl[4])
{
	size_t i = 0;
	int nw = 0;

	while (i < n) {
		while (i < n && is_blank(p[i]))
			i++;
		if (i == n)
			break;
		if (nw == 4)
			break;
		w[nw] = p + i;
		while (i < n && !is_blank(p[i]))
			i++;
		wl[nw] = (size_t)(p + i - w[nw]);
		nw++;
	}
	return nw;
}

/* ID: decimal, 1..2^32-1 */
static int parse_id(const struct kline *L, const char *w, size_t wl,
                    struct ld_key *k)
{
	uint64_t id = 0;

	for (size_t i = 0; i < wl; i++) {
		if (w[i] < '0' || w[i] > '9')
			return perr(L->err, L->errlen, L->name, L->lineno, 1,
			            "'%.*s' is not a decimal number", (int)wl > 20 ? 20 : (int)wl,
			            w);
		id = id * 10 + (uint64_t)(w[i] - '0');
		if (id > UINT32_MAX)
			return perr(L->err, L->errlen, L->name, L->lineno, 1,
			            "larger than 4294967295");
	}
	if (id == 0)
		return perr(L->err, L->errlen, L->name, L->lineno, 1,
		            "0 is not a key id (it marks a crypto-NAK); use 1..4294967295");
	k->id = (uint32_t)id;
	return 0;
}

/* TYPE (field 2), by name, any case. */
static int parse_type(const struct kline *L, const char *w, size_t wl,
                      struct ld_key *k)
{
	k->type = LD_KEY_NTYPES;
	for (int t = 0; t < LD_KEY_NTYPES; t++)
		if (strlen(types[t].name) == wl &&
		    strncasecmp(types[t].name, w, wl) == 0)
			k->type = (enum ld_key_type)t;
	if (k->type == LD_KEY_NTYPES)
		return perr(L->err, L->errlen, L->name, L->lineno, 2,
		            "unknown type '%.*s' (want MD5, SHA1, SHA256, "
		            "SHA384, SHA512, SHA3-224, SHA3-256, SHA3-384, "
		            "SHA3-512, AES128 or AES256)",
		            (int)wl > 20 ? 20 : (int)wl, w);
	return 0;
}

/* KEY (field kf): ASCII, ASCII:text or HEX:digits. Its text is never
 * quoted. Its length checked against its type. */
static int parse_secret(const struct kline *L, int kf, const char *kv,
                        size_t kl, struct ld_key *k)
{
	if (kl >= 4 && memcmp(kv, "HEX:", 4) == 0) {
		kv += 4;
		kl -= 4;
		if (kl % 2 != 0)
			return perr(L->err, L->errlen, L->name, L->lineno, kf,
			            "HEX: with an odd number of digits (%zu)", kl);
		if (kl / 2 > LD_KEY_MAX)
			return perr(L->err, L->errlen, L->name, L->lineno, kf,
			            "longer than %d bytes", LD_KEY_MAX);
		for (size_t i = 0; i < kl; i += 2) {
			int hi = hexval(kv[i]), lo = hexval(kv[i + 1]);

			if (hi < 0 || lo < 0)
				return perr(L->err, L->errlen, L->name, L->lineno, kf,
				            "HEX: character %zu is not a hex digit",
				            i + (hi < 0 ? 1 : 2));
			k->secret[i / 2] = (uint8_t)(hi << 4 | lo);
		}
		k->len = kl / 2;
	} else {
		if (kl >= 6 && memcmp(kv, "ASCII:", 6) == 0) {
			kv += 6;
			kl -= 6;
		}
		if (kl > LD_KEY_MAX)
			return perr(L->err, L->errlen, L->name, L->lineno, kf,
			            "longer than %d bytes", LD_KEY_MAX);
		memcpy(k->secret, kv, kl);
		k->len = kl;
	}
	if (k->len == 0)
		return perr(L->err, L->errlen, L->name, L->lineno, kf, "empty key");
	if ((k->type == LD_KEY_AES128 && k->len != 16) ||
	    (k->type == LD_KEY_AES256 && k->len != 32))
		return perr(L->err, L->errlen, L->name, L->lineno, kf,
		            "%s wants a %d-bit key (HEX: and %d digits), this one "
		            "has %zu bytes",
		            types[k->type].name, k->type == LD_KEY_AES128 ? 128 : 256,
		            k->type == LD_KEY_AES128 ? 32 : 64, k->len);
	return 0;
}

/* One line (no newline, no NUL), not blank, not a comment, into k:
 * ID TYPE KEY, or ID KEY for MD5 (as chrony). */
static int parse_line(const char *name, unsigned lineno, const char *p,
                      size_t n, struct ld_key *k, char *err, size_t errlen)
{
	const struct kline L = { name, lineno, err, errlen };
	const char *w[4];
	size_t wl[4];
	int nw = split_words(p, n, w, wl), kf;

	if (nw < 2)
		return perr(err, errlen, name, lineno, 0,
		            "want ID TYPE KEY (or ID KEY for MD5), got %d field",
		            nw);
	if (nw > 3)
		return perr(err, errlen, name, lineno, 4,
		            "unexpected fourth field (want ID TYPE KEY)");
	if (parse_id(&L, w[0], wl[0], k) != 0)
		return -1;
	k->line = lineno;
	if (nw == 3) {
		kf = 3;
		if (parse_type(&L, w[1], wl[1], k) != 0)
			return -1;
	} else {
		kf = 2;
		k->type = LD_KEY_MD5;
	}
	return parse_secret(&L, kf, w[kf - 1], wl[kf - 1], k);
}

int ld_keyset_parse(const char *name, const char *text, size_t len,
                    struct ld_keyset **out, char *err, size_t errlen)
{
	struct ld_keyset *s = NULL;
	size_t cap = 0, pos = 0;
	unsigned lineno = 0;
	struct ld_key k;
	int rc = -1;

	*out = NULL;
	if (errlen > 0)
		err[0] = '\0';
	if (len > LD_KEY_FILE_MAX) {
		perr(err, errlen, name, 0, 0, "longer than %d bytes",
		     LD_KEY_FILE_MAX);
		return -1;
	}
	if (grow(&s, &cap) != 0)
		goto nomem;
	while (pos < len) {
		const char *p = text + pos, *nl, *nul;
		size_t n, i = 0;

		lineno++;
		nl = memchr(p, '\n', len - pos);
		n = nl != NULL ? (size_t)(nl - p) : len - pos;
		pos += n + (nl != NULL);
		nul = memchr(p, '\0', n);
		if (nul != NULL) {
			perr(err, errlen, name, lineno, 0,
			     "a NUL byte (not a text file?)");
			goto out;
		}
		if (n >= LD_KEY_LINE_MAX) {
			perr(err, errlen, name, lineno, 0,
			     "line longer than %d characters",
			     LD_KEY_LINE_MAX - 1);
			goto out;
		}
		while (i < n && is_blank(p[i]))
			i++;
		if (i == n || strchr("#;!%", p[i]) != NULL)
			continue;
		if (parse_line(name, lineno, p + i, n - i, &k, err, errlen) != 0)
			goto out;
		if (s->n == cap) {
			if (cap == MAX_KEYS) {
				perr(err, errlen, name, lineno, 0,
				     "more than %d keys", MAX_KEYS);
				goto out;
			}
			if (grow(&s, &cap) != 0)
				goto nomem;
		}
		s->key[s->n++] = k;
	}
	qsort(s->key, s->n, sizeof(s->key[0]), cmp_key);
	for (size_t i = 1; i < s->n; i++) {
		if (s->key[i].id == s->key[i - 1].id) {
			perr(err, errlen, name, s->key[i].line, 1,
			     "key %u is also on line %u", s->key[i].id,
			     s->key[i - 1].line);
			goto out;
		}
	}
	*out = s;
	s = NULL;
	rc = 0;
	goto out;
nomem:
	perr(err, errlen, name, 0, 0, "out of memory");
out:
	explicit_bzero(&k, sizeof(k));
	ld_keyset_free(s);
	return rc;
}

const struct ld_key *ld_keyset_find(const struct ld_keyset *s, uint32_t id)
{
	size_t lo = 0, hi;

	if (s == NULL)
		return NULL;
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->key[mid].id == id)
			return &s->key[mid];
		if (s->key[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- the daemon's side ---- */

/* Reads and checks path: a regular file nobody else may read or write
 * (chrony only warns; a world-readable secret is refused here), every key
 * usable with this GnuTLS. Logs why not. */
static int load(const char *path, struct ld_keyset **out)
{
	char err[512];
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int rc = -1;

	*out = NULL;
	/* without waiting in open(): a FIFO there is refused, not waited on
	 * (safefile.h) */
	if (ld_sf_read(path, 0, LD_KEY_FILE_MAX, &buf, &got, &st, err,
	               sizeof(err)) != 0) {
		ld_log(LD_LOG_ERR, "keyfile %s: %s", path, err);
		return -1;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH)) {
		ld_log(LD_LOG_ERR,
		       "keyfile %s: mode %04o lets others read or write the "
		       "secrets; refused (chmod o-rw %s)",
		       path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	if (ld_keyset_parse(path, buf, got, out, err, sizeof(err)) != 0) {
		ld_log(LD_LOG_ERR, "keyfile %s", err);
		goto out;
	}
	for (size_t i = 0; i < (*out)->n; i++) {
		const struct ld_key *k = &(*out)->key[i];
		uint8_t mac[LD_MAC_MAX];

		if (ld_key_mac(k, (const uint8_t *)"", 0, mac) < 0) {
			ld_log(LD_LOG_ERR,
			       "keyfile %s:%u: field 2 (type): %s is not "
			       "available in this GnuTLS",
			       path, k->line, types[k->type].name);
			ld_keyset_free(*out);
			*out = NULL;
			goto out;
		}
		if (k->type < LD_KEY_AES128 && k->len < MIN_SECURE_KEY_LEN)
			ld_log(LD_LOG_WARNING,
			       "keyfile %s:%u: key %u is shorter than 80 bits",
			       path, k->line, k->id);
	}
	if ((*out)->n == 0)
		ld_log(LD_LOG_WARNING, "keyfile %s: no keys", path);
	rc = 0;
out:
	ld_sf_free(buf, got);
	return rc;
}

int ld_keys_new(struct ld_keys **out, const struct ld_config *cfg)
{
	struct ld_keys *k;
	pthread_rwlockattr_t attr;

	*out = NULL;
	if (cfg->keyfile[0] == '\0')
		return 0;
#ifndef LD_HAVE_GNUTLS
	ld_log(LD_LOG_ERR,
	       "keyfile %s: symmetric keys need GnuTLS, and this leapclockd "
	       "was built without it (install Debian's libgnutls28-dev and "
	       "rebuild)", cfg->keyfile);
	return -1;
#endif
	k = calloc(1, sizeof(*k));
	if (k == NULL) {
		ld_log(LD_LOG_ERR, "out of memory");
		return -1;
	}
	snprintf(k->path, sizeof(k->path), "%s", cfg->keyfile);
	if (load(k->path, &k->set) != 0) {
		free(k);
		return -1;
	}
	pthread_rwlockattr_init(&attr);
#ifdef __GLIBC__
	/* a reload must not wait for a pause in the requests */
	pthread_rwlockattr_setkind_np(&attr,
	        PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
	pthread_rwlock_init(&k->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	ld_log(LD_LOG_INFO, "keyfile %s: %zu key%s", k->path, k->set->n,
	       k->set->n == 1 ? "" : "s");
	*out = k;
	return 0;
}

void ld_keys_free(struct ld_keys *k)
{
	if (k == NULL)
		return;
	pthread_rwlock_destroy(&k->lock);
	ld_keyset_free(k->set);
	free(k);
}

int ld_keys_reload(struct ld_keys *k)
{
	struct ld_keyset *n, *old;

	if (k == NULL)
		return 0;
	if (load(k->path, &n) != 0) {
		pthread_rwlock_rdlock(&k->lock);
		ld_log(LD_LOG_ERR, "keyfile %s: not reloaded, the %zu key%s "
		       "in use stay", k->path, k->set->n,
		       k->set->n == 1 ? "" : "s");
		pthread_rwlock_unlock(&k->lock);
		return -1;
	}
	pthread_rwlock_wrlock(&k->lock);
	old = k->set;
	k->set = n;
	pthread_rwlock_unlock(&k->lock);
	ld_keyset_free(old);
	ld_log(LD_LOG_INFO, "keyfile %s: reloaded, %zu key%s", k->path, n->n,
	       n->n == 1 ? "" : "s");
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The MAC at req[pos..len) (key id + digest) over req[0..pos): 1 when it
 * holds, 0 when not, -1 when its key id is unknown. */
static int verify(const struct ld_keyset *s, const uint8_t *req, size_t len,
                  size_t pos, int version, struct ld_auth_ctx *ctx)
{
	const struct ld_key *key;
	uint8_t mac[LD_MAC_MAX];
	size_t n = len - pos, dlen = n - 4, want;
	int m, ok;

	key = ld_keyset_find(s, be32(req + pos));
	if (key == NULL)
		return -1;
	/* NTPv4 MACs up to 4+20 bytes are the digest truncated to 20 */
	want = types[key->type].mac_len;
	if (version == 4 && n <= LD_MAC_V4_MAX && want > 20)
		want = 20;
	if (dlen != want)
		return 0;
	m = ld_key_mac(key, req, pos, mac);
	if (m < 0)
		return 0;
	ok = ld__mac_equal(mac, req + pos + 4, dlen);
	explicit_bzero(mac, sizeof(mac));
	if (!ok)
		return 0;
	ctx->kind = LD_AUTH_KEY;
	ctx->key_id = key->id;
	ctx->key = key;
	return 1;
}

static enum ld_auth_verdict verdict(int v, int *unknown)
{
	if (v < 0)
		*unknown = 1;
	return v > 0 ? LD_AUTH_OK : LD_AUTH_DROP;
}

static enum ld_auth_verdict check(const struct ld_keyset *s,
                                  const uint8_t *req, size_t len,
                                  struct ld_auth_ctx *ctx, int *unknown)
{
	int version = (req[0] >> 3) & 7;
	size_t pos = LD_NTP_HEADER_LEN;

	if (version <= 3) {
		if (len - pos < LD_MAC_V4_MIN || len - pos > LD_MAC_LONG_MAX)
			return LD_AUTH_DROP;
		return verdict(verify(s, req, len, pos, version, ctx), unknown);
	}
	for (;;) {
		size_t n = len - pos, flen;

		if (n == 0)
			return LD_AUTH_PLAIN; /* extension fields only */
		if (n >= LD_MAC_V4_MIN && n <= LD_MAC_V4_MAX)
			return verdict(verify(s, req, len, pos, version, ctx),
			               unknown);
		/* a long MAC right after the header, when it is one */
		if (pos == LD_NTP_HEADER_LEN && n > LD_MAC_V4_MAX &&
		    n <= LD_MAC_LONG_MAX &&
		    verify(s, req, len, pos, version, ctx) > 0)
			return LD_AUTH_OK;
		/* an extension field (RFC 7822): type, length >= 16, 4 | length */
		if (n < 16)
			return LD_AUTH_DROP;
		flen = (size_t)req[pos + 2] << 8 | req[pos + 3];
		if (flen < 16 || flen % 4 != 0 || flen > n)
			return LD_AUTH_DROP;
		pos += flen;
	}
}

enum ld_auth_verdict ld_keys_check(struct ld_keys *k, const uint8_t *req,
                                   size_t len, struct ld_auth_ctx *ctx)
{
	enum ld_auth_verdict v;
	int unknown = 0;

	if (k == NULL || len <= LD_NTP_HEADER_LEN)
		return LD_AUTH_PLAIN;
	if (len > LD_NTP_MAX_PACKET || len % 4 != 0)
		return LD_AUTH_DROP;
	pthread_rwlock_rdlock(&k->lock);
	v = check(k->set, req, len, ctx, &unknown);
	pthread_rwlock_unlock(&k->lock);
	if (unknown)
		k->unknown++;
	return v;
}

size_t ld_keys_finish(struct ld_keys *k, const struct ld_auth_ctx *ctx,
                      uint8_t *out, size_t len, size_t max)
{
	const struct ld_key *key;
	uint8_t mac[LD_MAC_MAX];
	size_t dlen;
	int m, version;

	if (max > ctx->req_len)
		max = ctx->req_len;
	if (k == NULL || ctx->kind != LD_AUTH_KEY || len < LD_NTP_HEADER_LEN)
		return 0;
	version = (out[0] >> 3) & 7;
	pthread_rwlock_rdlock(&k->lock);
	key = ld_keyset_find(k->set, ctx->key_id);
	m = key != NULL ? ld_key_mac(key, out, len, mac) : -1;
	pthread_rwlock_unlock(&k->lock);
	if (m < 0)
		return 0; /* the key went in a reload since the check */
	dlen = (size_t)m;
	if (version == 4 && dlen > 20)
		dlen = 20;
	if (len + 4 + dlen > max) {
		explicit_bzero(mac, sizeof(mac));
		return 0;
	}
	out[len] = (uint8_t)(ctx->key_id >> 24);
	out[len + 1] = (uint8_t)(ctx->key_id >> 16);
	out[len + 2] = (uint8_t)(ctx->key_id >> 8);
	out[len + 3] = (uint8_t)ctx->key_id;
	memcpy(out + len + 4, mac, dlen);
	explicit_bzero(mac, sizeof(mac));
	return len + 4 + dlen;
}

void ld_keys_counters(const struct ld_keys *k, struct ld_auth_counters *c)
{
	if (k != NULL)
		c->key_unknown = k->unknown;
}
