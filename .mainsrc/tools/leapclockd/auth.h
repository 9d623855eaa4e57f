/*
 * auth.h - authenticated NTP in leapclockd: symmetric keys (keys.c,
 * RFC 8573 and the legacy digests, chrony's key file) and NTS (nts.c for
 * the NTP side, ntske.c for the key establishment over TLS, RFC 8915).
 *
 * The server loop (server.c) asks two questions of every request it will
 * answer, from any worker thread at once:
 *
 *   ld_auth_check   what the request carries and whether it holds: plain,
 *                   authenticated (answer signed), to be dropped, or to be
 *                   answered with a crypto-NAK or an NTSN kiss;
 *   ld_auth_finish  after the 48-byte reply header is final (its transmit
 *                   timestamp included), append what the answer needs:
 *                   a MAC, or NTS extension fields with fresh cookies.
 *
 * A reply is never longer than its request (no amplification).
 * With no keys and no NTS configured, ld_auth_new gives NULL and every
 * request is plain.
 */
#ifndef LD_AUTH_H
#define LD_AUTH_H

#include <stddef.h>
#include <stdint.h>

struct ld_config;

#define LD_NTP_MAX_PACKET 1024 /* the receive buffer: longer is cut */

enum ld_auth_kind { LD_AUTH_NONE = 0, LD_AUTH_KEY = 1, LD_AUTH_NTS = 2 };

enum ld_auth_verdict {
	LD_AUTH_PLAIN = 0,      /* nothing to authenticate: a plain answer */
	LD_AUTH_OK = 1,         /* authenticated: answer, then ld_auth_finish */
	LD_AUTH_DROP = 2,       /* drop, no answer (counted as auth failure) */
	LD_AUTH_CRYPTO_NAK = 3, /* answer plainly + a 4-byte zero key id MAC */
	LD_AUTH_NTSN = 4,       /* answer with an NTSN kiss (RFC 8915 5.7) */
};

/* What ld_auth_check learnt of one request, for ld_auth_finish. Lives on
 * the worker's stack. */
struct ld_auth_ctx {
	enum ld_auth_kind kind;
	size_t req_len;         /* the request's length: the reply's limit */
	/* symmetric keys */
	uint32_t key_id;
	const void *key;        /* keys.c's key, valid until the next reload */
	/* NTS */
	uint8_t uid[64];        /* the Unique Identifier field's body */
	size_t uid_len;
	uint8_t c2s[64];        /* client-to-server AEAD key from the cookie */
	size_t c2s_len;
	uint8_t s2c[64];        /* server-to-client AEAD key from the cookie;
	                           s2c_len 0: answer an NTSN kiss */
	size_t s2c_len;
	uint16_t aead;          /* AEAD algorithm id (15: AES-SIV-CMAC-256) */
	unsigned cookies;       /* cookies to send: 1 + placeholders */
	size_t placeholder_len; /* the size each returned cookie may take */
};

/* Counters kept by the auth code (summed into the stats and metrics). */
struct ld_auth_counters {
	uint64_t key_ok, key_fail, key_unknown;        /* keyed requests */
	uint64_t nts_ok, nts_fail, nts_cookie_fail, nts_nak;
	uint64_t ke_handshakes, ke_failures;           /* NTS-KE */
};

struct ld_auth;

/* Loads the key file and sets up NTS (certificate, key, cookie keys from
 * cfg->nts_keydir, the NTS-KE listening socket and its thread) as cfg
 * asks. *out is NULL when nothing is configured. Returns 0, or -1 after
 * logging an error (what was in effect is unchanged). Call before
 * dropping privileges: it reads the secret files and binds. */
int ld_auth_new(struct ld_auth **out, const struct ld_config *cfg);
void ld_auth_free(struct ld_auth *a);
/* What ld_auth_new would refuse in cfg (the key file, the NTS files and
 * addresses), found without binding or writing anything. 0 or -1
 * (logged). */
int ld_auth_check_config(const struct ld_config *cfg);
/* Rereads the key file and the NTS-KE certificate and key (SIGHUP); what
 * fails to load is logged and the old stays in use. 0, or -1 if any failed. */
int ld_auth_reload(struct ld_auth *a);
/* Starts the threads auth needs (the NTS-KE server): call after any fork
 * (daemonising), before serving. 0 or -1 (logged). */
int ld_auth_start(struct ld_auth *a);

enum ld_auth_verdict ld_auth_check(struct ld_auth *a, const uint8_t *req,
                                   size_t len, struct ld_auth_ctx *ctx);
/* Appends to the reply at out (its first `len` bytes, 48, already final)
 * what ctx needs; returns the reply's whole length (<= ctx->req_len and
 * <= max), or 0 to drop it. */
size_t ld_auth_finish(struct ld_auth *a, const struct ld_auth_ctx *ctx,
                      uint8_t *out, size_t len, size_t max);
/* A snapshot of the counters (for stats and metrics). */
void ld_auth_counters(const struct ld_auth *a, struct ld_auth_counters *c);

/* ---- the parts, called by auth.c only ---- */
struct ld_keys;
struct ld_nts;
/* keys.c: NULL *out when cfg names no key file. */
int ld_keys_new(struct ld_keys **out, const struct ld_config *cfg);
void ld_keys_free(struct ld_keys *k);
int ld_keys_reload(struct ld_keys *k);
/* LD_AUTH_PLAIN when the request carries no MAC. */
enum ld_auth_verdict ld_keys_check(struct ld_keys *k, const uint8_t *req,
                                   size_t len, struct ld_auth_ctx *ctx);
size_t ld_keys_finish(struct ld_keys *k, const struct ld_auth_ctx *ctx,
                      uint8_t *out, size_t len, size_t max);
/* nts.c: NULL *out when cfg gives no NTS certificate. */
int ld_nts_new(struct ld_nts **out, const struct ld_config *cfg);
void ld_nts_free(struct ld_nts *n);
/* nts.c: what ld_nts_new would refuse in cfg, found without creating,
 * writing or binding anything. 0 or -1 (logged). */
int ld_nts_check_config(const struct ld_config *cfg);
int ld_nts_start(struct ld_nts *n);
/* The NTS-KE certificate and key read again (SIGHUP); 0 or -1 (the old
 * ones kept, logged). */
int ld_nts_reload(struct ld_nts *n);
void ld_nts_counters(const struct ld_nts *n, struct ld_auth_counters *c);
/* LD_AUTH_PLAIN when the request carries no NTS extension fields. */
enum ld_auth_verdict ld_nts_check(struct ld_nts *n, const uint8_t *req,
                                  size_t len, struct ld_auth_ctx *ctx);
size_t ld_nts_finish(struct ld_nts *n, const struct ld_auth_ctx *ctx,
                     uint8_t *out, size_t len, size_t max);

#endif
