/*
 * ntp_packet.h - the NTP packet as leapclockd sees it: parse a request,
 * decide whether it deserves an answer, build the answer. Pure functions:
 * no I/O, no clock, no allocation, so that the fuzz target
 * (fuzz/fuzz_ntp_packet.c), the unit test (tests/test_ntp_packet.c) and
 * `leapclock server-stats` can include ntp_packet.c as it is.
 *
 * Wire format (RFC 5905 section 7.3), all fields big-endian:
 *
 *   0  LI(2) VN(3) Mode(3) | Stratum | Poll | Precision
 *   4  Root Delay       (NTP short format: 16.16 seconds)
 *   8  Root Dispersion  (16.16 seconds)
 *  12  Reference ID
 *  16  Reference Timestamp (64-bit NTP timestamp: 32.32 seconds since 1900)
 *  24  Origin Timestamp
 *  32  Receive Timestamp
 *  40  Transmit Timestamp
 *  48  extension fields and/or a MAC (NTPv4; never interpreted here)
 *
 * leapclockd answers with the 48-byte header only, so a reply is never
 * longer than the request that caused it.
 */
#ifndef LD_NTP_PACKET_H
#define LD_NTP_PACKET_H

#include <stddef.h>
#include <stdint.h>

#define LD_NTP_HEADER_LEN 48

/* Leap indicator values (RFC 5905 figure 9). */
#define LD_LI_NONE 0   /* no warning */
#define LD_LI_INSERT 1 /* last minute of the day has 61 seconds */
#define LD_LI_DELETE 2 /* last minute of the day has 59 seconds */
#define LD_LI_ALARM 3  /* clock unsynchronised */

/* Association modes (RFC 5905 figure 10). */
#define LD_MODE_RESERVED 0
#define LD_MODE_SYM_ACTIVE 1
#define LD_MODE_SYM_PASSIVE 2
#define LD_MODE_CLIENT 3
#define LD_MODE_SERVER 4
#define LD_MODE_BROADCAST 5
#define LD_MODE_CONTROL 6 /* ntpq; never answered */
#define LD_MODE_PRIVATE 7 /* ntpdc; never answered */

/* The header fields, in host order. Timestamps are the raw 64-bit NTP
 * values (seconds << 32 | fraction). */
struct ld_ntp_packet {
	uint8_t li;
	uint8_t version;
	uint8_t mode;
	uint8_t stratum;
	int8_t poll;      /* log2 seconds */
	int8_t precision; /* log2 seconds */
	uint32_t root_delay; /* NTP short format */
	uint32_t root_dispersion;
	uint32_t refid;   /* as on the wire: "RATE" is 0x52415445 */
	uint64_t ref_ts;
	uint64_t org_ts;
	uint64_t rx_ts;
	uint64_t tx_ts;
};

/* What to do with a datagram. */
enum ld_ntp_verdict {
	LD_NTP_ANSWER = 0,    /* a client request: answer it */
	LD_NTP_MALFORMED = 1, /* too short, not a multiple of 4, bad version */
	LD_NTP_CONTROL = 2,   /* mode 6 or 7: never answered */
	LD_NTP_NOT_CLIENT = 3 /* any other mode: not ours to answer */
};

/* Decodes the header of `len` bytes at `buf` (any length; only the first 48
 * bytes are read) into *p, and classifies it. A request is answerable when
 * it is at least 48 bytes long, its length is a multiple of 4 (RFC 5905
 * extension fields and MACs are whole 32-bit words), its version is 1 to 4,
 * and its mode is client (3), or reserved (0) with version 1 (NTPv1, RFC
 * 1059, had no mode field; a v1 client sends 0 there). *p is filled as far
 * as the bytes allow (zeros beyond) whatever the verdict. */
enum ld_ntp_verdict ld_ntp_parse(const void *buf, size_t len,
                                 struct ld_ntp_packet *p);

/* Encodes *p into exactly 48 bytes at `out`. Returns 48. */
size_t ld_ntp_encode(const struct ld_ntp_packet *p, uint8_t *out);

/* The server-side constants of a reply. */
struct ld_ntp_server {
	uint8_t stratum;     /* 1..15 */
	int8_t precision;    /* log2 seconds */
	uint32_t root_delay; /* NTP short format */
	uint32_t root_dispersion;
};

/* Fills *reply as the answer to *req (which ld_ntp_parse accepted): mode 4,
 * the request's version echoed, its poll echoed, origin = the request's
 * transmit timestamp, and the given leap indicator, reference id, reference,
 * receive and transmit timestamps. */
void ld_ntp_make_reply(const struct ld_ntp_packet *req,
                       const struct ld_ntp_server *srv, unsigned li,
                       uint32_t refid, uint64_t ref_ts, uint64_t rx_ts,
                       uint64_t tx_ts, struct ld_ntp_packet *reply);

/* Fills *reply as a kiss-o'-death RATE answer to *req (RFC 5905 section
 * 7.4): LI 3 (alarm), stratum 0, reference id "RATE", poll at least
 * `min_poll` (the interval the client should back off to). The origin,
 * receive and transmit timestamps all carry the request's transmit
 * timestamp, so a client that ignores the kiss code gets no time from it
 * (what ntpd does). */
void ld_ntp_make_kod(const struct ld_ntp_packet *req, int8_t min_poll,
                     struct ld_ntp_packet *reply);

/* Kiss codes and reference ids written as 4 ASCII characters. */
#define LD_REFID(a, b, c, d)                                             \
	(((uint32_t)(uint8_t)(a) << 24) | ((uint32_t)(uint8_t)(b) << 16) | \
	 ((uint32_t)(uint8_t)(c) << 8) | (uint32_t)(uint8_t)(d))
#define LD_KISS_RATE LD_REFID('R', 'A', 'T', 'E')

/*
 * The smear reference id, NTPsec's (and ntpd's) "leap smear" convention:
 * the first octet is 254 and the other 24 bits are the smear offset in
 * seconds as a two's-complement fixed-point number with 2 integer bits and
 * 22 fraction bits (one unit is 2^-22 s, about 238.4 ns; the range is
 * [-2, 2) s). The offset is the served (smeared) time minus the unsmeared
 * NTP time, so a leap insertion shows a negative offset before the leap and
 * a positive one after it for a centred window.
 */
uint32_t ld_ntp_smear_refid(int64_t offset_ns);
/* Decodes a 254.x.y.z reference id to ns (rounded to nearest). Returns 0,
 * or -1 if `refid` is not a smear id (first octet not 254). */
int ld_ntp_smear_refid_decode(uint32_t refid, int64_t *offset_ns);

/* Non-negative seconds in ns to NTP short format (16.16), rounded up so
 * that a delay or dispersion is never understated, saturating at
 * 0xffffffff. Negative input gives 0. */
uint32_t ld_ntp_short_from_ns(int64_t ns);
/* NTP short format to ns (exact to the ns, rounded to nearest). */
int64_t ld_ntp_short_to_ns(uint32_t s);

#endif
