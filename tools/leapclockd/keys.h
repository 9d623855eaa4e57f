/*
 * keys.h - the parts of keys.c that its tests and its fuzzer reach: the
 * key file parser (pure: text in, a key set or an error out), the MAC of
 * one key, and where a request keeps its MAC. The daemon uses auth.h only.
 *
 * The key file is chrony's (chrony.conf(5) "keyfile"): one key a line,
 *   ID TYPE KEY     or   ID KEY   (TYPE MD5)
 * ID 1..4294967295 (0 is the crypto-NAK's), TYPE one of the names below,
 * KEY as ASCII text, "ASCII:text" or "HEX:hexdigits". A line whose first
 * non-blank character is # ; ! or % is a comment (as in chrony, a #
 * further on is part of the key). Unlike chrony, which skips a bad line
 * with a warning, any error refuses the whole file.
 */
#ifndef LD_KEYS_H
#define LD_KEYS_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define LD_KEY_MAX 256          /* bytes of one key's secret */
#define LD_KEY_LINE_MAX 2048    /* chrony's line buffer */
#define LD_KEY_FILE_MAX (1 << 20)
#define LD_MAC_MAX 64           /* the longest digest (SHA512) */
/* NTPv4 MACs: key id + 16..20 bytes; longer digests are truncated to 20
 * (RFC 7822: so that extension fields parse deterministically). */
#define LD_MAC_V4_MIN (4 + 16)
#define LD_MAC_V4_MAX (4 + 20)
#define LD_MAC_LONG_MAX (4 + LD_MAC_MAX)

enum ld_key_type {
	LD_KEY_MD5, LD_KEY_SHA1, LD_KEY_SHA256, LD_KEY_SHA384, LD_KEY_SHA512,
	LD_KEY_SHA3_224, LD_KEY_SHA3_256, LD_KEY_SHA3_384, LD_KEY_SHA3_512,
	LD_KEY_AES128, LD_KEY_AES256, LD_KEY_NTYPES
};

struct ld_key {
	uint32_t id;
	enum ld_key_type type;
	unsigned line;          /* in the file, for messages */
	size_t len;
	uint8_t secret[LD_KEY_MAX];
};

/* Sorted by id, ids unique. */
struct ld_keyset {
	size_t n;
	struct ld_key key[];
};

/* Parses a key file's text (len bytes, NUL bytes refused). name is the
 * file's name for messages. Returns 0 and *out (free with ld_keyset_free),
 * or -1 with err holding "NAME:LINE: field N (WHAT): why" (or "NAME: why"
 * for the file as a whole) and *out NULL. */
int ld_keyset_parse(const char *name, const char *text, size_t len,
                    struct ld_keyset **out, char *err, size_t errlen);
/* Wipes the secrets and frees; NULL is fine. */
void ld_keyset_free(struct ld_keyset *s);
const struct ld_key *ld_keyset_find(const struct ld_keyset *s, uint32_t id);

const char *ld_key_type_name(enum ld_key_type t);
/* The full length of the type's digest or CMAC in bytes. */
size_t ld_key_mac_len(enum ld_key_type t);
/* The MAC of data under k, full length, into out: the legacy NTP digest
 * TYPE(secret || data) (RFC 1305/5905, what chrony and ntpd compute; not
 * an HMAC) or AES-CMAC (RFC 4493, RFC 8573). Returns its length, or -1
 * when the crypto library lacks it (or leapclockd was built without
 * GnuTLS). */
int ld_key_mac(const struct ld_key *k, const uint8_t *data, size_t len,
               uint8_t out[LD_MAC_MAX]);
/* 1 when the n bytes of a and b are equal; reads all of them whatever
 * they hold (no early exit), so its time does not tell where they differ. */
int ld_mac_equal(const uint8_t *a, const uint8_t *b, size_t n);
/* What a request's MAC is compared with: ld_mac_equal (tests/
 * test_server_keys.c counts the comparisons through it). */
extern int (*ld__mac_equal)(const uint8_t *a, const uint8_t *b, size_t n);

/* Fills c->key_unknown (requests whose key id the file lacks; they count
 * in key_fail too), for auth.c's ld_auth_counters. */
/* The key file in use (auth.h's ld_keys_*); here for the tests. */
struct ld_keys {
	char path[PATH_MAX];
	pthread_rwlock_t lock;
	struct ld_keyset *set; /* under lock */
	_Atomic uint64_t unknown; /* requests with a key id not in the set */
};
struct ld_auth_counters;
void ld_keys_counters(const struct ld_keys *k, struct ld_auth_counters *c);

#endif
