/*
 * nts.h - what nts.c (the NTP side of NTS, the server's cookie keys) and
 * ntske.c (NTS-KE over TLS) give each other. Only with GnuTLS.
 *
 * A cookie (our own format, as chrony's): the server key's 32-bit id, a
 * 16-byte nonce, and AES-SIV-CMAC-256 under that key of C2S || S2C
 * (32 + 32 bytes) with the 16-byte tag first: 100 bytes.
 */
#ifndef LD_NTS_H
#define LD_NTS_H

#include <stddef.h>
#include <stdint.h>

struct ld_config;
struct ld_nts;
struct ld_ntske;

#define LD_NTS_KEY_LEN 32 /* AEAD_AES_SIV_CMAC_256: two AES-128 keys */
#define LD_NTS_NONCE_LEN 16
#define LD_NTS_TAG_LEN 16
#define LD_NTS_COOKIE_LEN (4 + LD_NTS_NONCE_LEN + LD_NTS_TAG_LEN + 2 * LD_NTS_KEY_LEN)
#define LD_NTSKE_MAX_SESSIONS 16 /* NTS-KE sessions at once */
#define LD_NTSKE_MAX_PER_CLIENT 4 /* ... from one address */
#ifndef LD_NTSKE_TIMEOUT_MS /* a test may shorten it */
/* from a session's accept to the end of its request (its handshake
 * included), and again for the answer; a few seconds, as chrony */
#define LD_NTSKE_TIMEOUT_MS 3000
#endif
#define LD_NTSKE_COOKIES_MAX 8 /* cookies in one NTP answer, at most */

/* nts.c: one cookie for these keys under the current server key, into
 * out[0..LD_NTS_COOKIE_LEN). 0, or -1 (no key, a crypto error). */
int ld_nts_make_cookie(struct ld_nts *n, const uint8_t *c2s,
                       const uint8_t *s2c, uint8_t *out);
/* nts.c: rotates the server key when it is due (called once a second or
 * so by the NTS-KE thread). */
void ld_nts_maintain(struct ld_nts *n);

/* ntske.c: loads the certificate and key, binds cfg->nts_listen. */
int ld_ntske_new(struct ld_ntske **out, const struct ld_config *cfg,
                 struct ld_nts *n);
/* ntske.c: checks nts-listen and that the certificate and key load,
 * binding nothing (before the daemon takes anything, --check-config).
 * 0 or -1 (logged). */
int ld_ntske_check(const struct ld_config *cfg);
/* ntske.c: starts the accepting thread (after any fork). */
int ld_ntske_start(struct ld_ntske *k);
/* ntske.c: loads the certificate and key again from their files (SIGHUP:
 * a renewed certificate); sessions under way finish with the old one. On
 * an error (logged) the one in use stays. 0 or -1. */
int ld_ntske_reload(struct ld_ntske *k);
/* ntske.c: stops accepting, ends the sessions (they time out at worst),
 * frees. */
void ld_ntske_free(struct ld_ntske *k);
void ld_ntske_counters(const struct ld_ntske *k, uint64_t *handshakes,
                       uint64_t *failures);

#endif
