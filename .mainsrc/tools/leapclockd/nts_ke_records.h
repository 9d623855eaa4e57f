/*
 * nts_ke_records.h - NTS Key Establishment records (RFC 8915 section 4):
 * the server's side, as pure functions on bytes (no TLS, no crypto), so
 * that the parser can be fuzzed and tested alone.
 *
 * A record is a 16-bit word (critical bit, then a 15-bit type), a 16-bit
 * body length and the body. A request ends with End of Message.
 */
#ifndef LD_NTS_KE_RECORDS_H
#define LD_NTS_KE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

enum {
	LD_NTSKE_END = 0,
	LD_NTSKE_NEXT_PROTO = 1,
	LD_NTSKE_ERROR = 2,
	LD_NTSKE_WARNING = 3,
	LD_NTSKE_AEAD = 4,
	LD_NTSKE_COOKIE = 5,
	LD_NTSKE_SERVER = 6,
	LD_NTSKE_PORT = 7,
};
#define LD_NTSKE_CRITICAL 0x8000u

enum {
	LD_NTSKE_ERR_UNRECOGNIZED = 0, /* Unrecognized Critical Record */
	LD_NTSKE_ERR_BAD_REQUEST = 1,
	LD_NTSKE_ERR_INTERNAL = 2,
};

#define LD_NTS_PROTO_NTPV4 0
#define LD_NTS_AEAD_AES_SIV_CMAC_256 15
#define LD_NTSKE_MAX_REQUEST 4096 /* a longer request is a bad one */
#define LD_NTSKE_COOKIES 8

/* What a request asks, once ld_ntske_parse returned 1. */
struct ld_ntske_req {
	int error;        /* -1, or the error code the answer must carry */
	int ntpv4;        /* 1: NTPv4 (0) offered in Next Protocol */
	int aead_ok;      /* 1: AES-SIV-CMAC-256 (15) offered */
	int port_asked;   /* the client sent a Port Negotiation record */
	uint16_t port;    /* ... with this port */
	int server_asked; /* the client sent a Server Negotiation record */
	unsigned records; /* records read, End of Message included */
};

/* Parses the request in buf[0..len). Returns 0 when more bytes are needed
 * (a partial record, or no End of Message yet), 1 when the request is
 * complete: End of Message was read, or the request can never become valid
 * (a critical record not known, a bad length or repeat, a record after End
 * of Message, longer than LD_NTSKE_MAX_REQUEST); then r->error >= 0 gives
 * the Error record's code. Pure; never reads past len. */
int ld_ntske_parse(const uint8_t *buf, size_t len, struct ld_ntske_req *r);

/* What the answer carries (see ld_ntske_response). */
struct ld_ntske_answer {
	const uint8_t *cookies[LD_NTSKE_COOKIES]; /* NULL: fewer cookies */
	size_t cookie_len;
	uint16_t port;      /* 0: no Port Negotiation record */
	const char *server; /* NULL: no Server Negotiation record */
};

/* Writes the response to request r into out[0..max): an Error record if
 * r->error >= 0; otherwise Next Protocol (NTPv4 or empty), AEAD (15 or
 * empty), and only when both were agreed the port, server and cookie
 * records; End of Message last. Returns its length, or 0 if max is too
 * small. Pure. */
size_t ld_ntske_response(const struct ld_ntske_req *r,
                         const struct ld_ntske_answer *a, uint8_t *out,
                         size_t max);

/* 1 when r and the answer agree on NTPv4 with AES-SIV-CMAC-256 (keys and
 * cookies are needed). */
int ld_ntske_agreed(const struct ld_ntske_req *r);

#endif
