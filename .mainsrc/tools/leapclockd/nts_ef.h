/*
 * nts_ef.h - the NTS extension fields of an NTP request (RFC 8915 section
 * 5, RFC 7822 layout): a pure parser (no crypto) that finds them, so that
 * it can be fuzzed alone. nts.c checks what it found.
 *
 * A field is a 16-bit type, a 16-bit length (the whole field's, a
 * multiple of 4, at least 16 for RFC 7822 but at least 4 here: NTS fields
 * carry their own sizes) and the body.
 */
#ifndef LD_NTS_EF_H
#define LD_NTS_EF_H

#include <stddef.h>
#include <stdint.h>

#define LD_EF_UNIQUE_ID 0x0104
#define LD_EF_COOKIE 0x0204
#define LD_EF_PLACEHOLDER 0x0304
#define LD_EF_AUTHENTICATOR 0x0404

#define LD_NTS_UID_MIN 32 /* RFC 8915 5.3: at least 32 octets */
#define LD_NTS_NONCE_MIN 16 /* what we accept of a client's nonce */

enum ld_nts_ef_verdict {
	LD_NTS_EF_NONE = 0,      /* no NTS fields: not an NTS request */
	LD_NTS_EF_OK = 1,        /* one UID, one cookie, an authenticator */
	LD_NTS_EF_MALFORMED = 2, /* NTS fields, but wrong: drop */
};

/* Where the fields of an NTS request are (offsets into the packet). */
struct ld_nts_ef {
	size_t uid_off, uid_len;       /* the Unique Identifier's body */
	size_t cookie_off, cookie_len; /* the NTS Cookie's body */
	unsigned placeholders;         /* Cookie Placeholders before auth */
	size_t placeholder_min;        /* the smallest placeholder's body */
	size_t auth_off;               /* the authenticator field's start:
	                                  the associated data's end */
	size_t nonce_off, nonce_len;   /* its nonce */
	size_t ct_off, ct_len;         /* its ciphertext (tag first) */
};

/* Finds the NTS fields of the request pkt[0..len) (len > 48: the 48-byte
 * header first). LD_NTS_EF_OK when there is exactly one Unique Identifier
 * (of LD_NTS_UID_MIN to 64 octets) and one NTS Cookie before exactly one
 * NTS Authenticator, whose nonce (at least LD_NTS_NONCE_MIN) and
 * ciphertext (at least 16, the SIV tag) fit in it; fields after the
 * authenticator are not authenticated and are skipped. LD_NTS_EF_NONE when
 * the request has no UID, cookie, placeholder or authenticator field, or
 * its bytes after the header are not extension fields (a MAC). Pure. */
enum ld_nts_ef_verdict ld_nts_ef_parse(const uint8_t *pkt, size_t len,
                                       struct ld_nts_ef *ef);

/* Counts the Cookie Placeholders among the fields in buf[0..len) (the
 * decrypted part of an authenticator). -1 if they are not well formed. */
int ld_nts_ef_placeholders(const uint8_t *buf, size_t len, size_t *min_len);

/* Writes one field (type, body, zero padding to a multiple of 4) at
 * out[0..max); returns its length, or 0 if it does not fit. */
size_t ld_nts_ef_put(uint8_t *out, size_t max, unsigned type,
                     const void *body, size_t blen);

#endif
