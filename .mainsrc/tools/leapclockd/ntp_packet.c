/*
 * ntp_packet.c - parse NTP requests and build replies (see ntp_packet.h).
 * No I/O and no clock: everything time-dependent is a parameter.
 */
#include "ntp_packet.h"

#include <string.h>

static uint32_t get32(const uint8_t *b)
{
	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) |
	       ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}

static uint64_t get64(const uint8_t *b)
{
	return ((uint64_t)get32(b) << 32) | get32(b + 4);
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b + 4, (uint32_t)v);
}

enum ld_ntp_verdict ld_ntp_parse(const void *buf, size_t len,
                                 struct ld_ntp_packet *p)
{
	uint8_t h[LD_NTP_HEADER_LEN];

	/* Copy what there is into a zeroed header so that every field is
	 * defined however short the datagram. */
	memset(h, 0, sizeof(h));
	if (buf != NULL && len > 0)
		memcpy(h, buf, len < sizeof(h) ? len : sizeof(h));
	p->li = (uint8_t)(h[0] >> 6);
	p->version = (uint8_t)((h[0] >> 3) & 7);
	p->mode = (uint8_t)(h[0] & 7);
	p->stratum = h[1];
	p->poll = (int8_t)h[2];
	p->precision = (int8_t)h[3];
	p->root_delay = get32(h + 4);
	p->root_dispersion = get32(h + 8);
	p->refid = get32(h + 12);
	p->ref_ts = get64(h + 16);
	p->org_ts = get64(h + 24);
	p->rx_ts = get64(h + 32);
	p->tx_ts = get64(h + 40);

	if (buf == NULL || len < LD_NTP_HEADER_LEN || len % 4 != 0)
		return LD_NTP_MALFORMED;
	if (p->version < 1 || p->version > 4)
		return LD_NTP_MALFORMED;
	if (p->mode == LD_MODE_CONTROL || p->mode == LD_MODE_PRIVATE)
		return LD_NTP_CONTROL;
	if (p->mode == LD_MODE_CLIENT)
		return LD_NTP_ANSWER;
	if (p->mode == LD_MODE_RESERVED && p->version == 1)
		return LD_NTP_ANSWER;
	return LD_NTP_NOT_CLIENT;
}

size_t ld_ntp_encode(const struct ld_ntp_packet *p, uint8_t *out)
{
	out[0] = (uint8_t)(((p->li & 3) << 6) | ((p->version & 7) << 3) |
	                   (p->mode & 7));
	out[1] = p->stratum;
	out[2] = (uint8_t)p->poll;
	out[3] = (uint8_t)p->precision;
	put32(out + 4, p->root_delay);
	put32(out + 8, p->root_dispersion);
	put32(out + 12, p->refid);
	put64(out + 16, p->ref_ts);
	put64(out + 24, p->org_ts);
	put64(out + 32, p->rx_ts);
	put64(out + 40, p->tx_ts);
	return LD_NTP_HEADER_LEN;
}

void ld_ntp_make_reply(const struct ld_ntp_packet *req,
                       const struct ld_ntp_server *srv, unsigned li,
                       uint32_t refid, uint64_t ref_ts, uint64_t rx_ts,
                       uint64_t tx_ts, struct ld_ntp_packet *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->li = (uint8_t)(li & 3);
	reply->version = req->version;
	reply->mode = LD_MODE_SERVER;
	reply->stratum = srv->stratum;
	reply->poll = req->poll;
	reply->precision = srv->precision;
	reply->root_delay = srv->root_delay;
	reply->root_dispersion = srv->root_dispersion;
	reply->refid = refid;
	reply->ref_ts = ref_ts;
	reply->org_ts = req->tx_ts;
	reply->rx_ts = rx_ts;
	reply->tx_ts = tx_ts;
}

void ld_ntp_make_kod(const struct ld_ntp_packet *req, int8_t min_poll,
                     struct ld_ntp_packet *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->li = LD_LI_ALARM;
	reply->version = req->version;
	reply->mode = LD_MODE_SERVER;
	reply->stratum = 0;
	reply->poll = req->poll > min_poll ? req->poll : min_poll;
	reply->precision = req->precision;
	reply->refid = LD_KISS_RATE;
	reply->org_ts = req->tx_ts;
	reply->rx_ts = req->tx_ts;
	reply->tx_ts = req->tx_ts;
}

/* Floor division for the rounding below (the divisors are positive). */
static int64_t fdiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

#define SMEAR_UNIT_SHIFT 22 /* 22 fraction bits */
#define SMEAR_FIELD_MIN (-(INT64_C(1) << 23))
#define SMEAR_FIELD_MAX ((INT64_C(1) << 23) - 1)

uint32_t ld_ntp_smear_refid(int64_t offset_ns)
{
	int64_t u;

	/* u = round(offset_ns * 2^22 / 1e9), half up:
	 *   floor((2 * offset_ns * 2^22 + 1e9) / 2e9).
	 * Clamp first so the product stays far inside int64: |offset| <= 2 s
	 * gives |2 * offset * 2^22| <= 1.7e16. */
	if (offset_ns > INT64_C(2000000000))
		offset_ns = INT64_C(2000000000);
	if (offset_ns < -INT64_C(2000000000))
		offset_ns = -INT64_C(2000000000);
	u = fdiv(2 * offset_ns * (INT64_C(1) << SMEAR_UNIT_SHIFT) +
	                 INT64_C(1000000000),
	         INT64_C(2000000000));
	if (u > SMEAR_FIELD_MAX)
		u = SMEAR_FIELD_MAX;
	if (u < SMEAR_FIELD_MIN)
		u = SMEAR_FIELD_MIN;
	return UINT32_C(0xfe000000) | ((uint32_t)u & UINT32_C(0x00ffffff));
}

int ld_ntp_smear_refid_decode(uint32_t refid, int64_t *offset_ns)
{
	int64_t v;

	if ((refid >> 24) != 254)
		return -1;
	v = (int64_t)(refid & UINT32_C(0x00ffffff));
	if (v & 0x800000) /* sign-extend the 24-bit field */
		v -= INT64_C(1) << 24;
	/* ns = round(v * 1e9 / 2^22) = floor((2 * v * 1e9 + 2^22) / 2^23) */
	*offset_ns = fdiv(2 * v * INT64_C(1000000000) +
	                          (INT64_C(1) << SMEAR_UNIT_SHIFT),
	                  INT64_C(1) << (SMEAR_UNIT_SHIFT + 1));
	return 0;
}

uint32_t ld_ntp_short_from_ns(int64_t ns)
{
	/* ceil(ns * 65536 / 1e9); 65536 s is the first value that does not
	 * fit, and below it ns * 65536 < 4.3e18 fits in int64. */
	if (ns <= 0)
		return 0;
	if (ns >= INT64_C(65536) * INT64_C(1000000000))
		return UINT32_C(0xffffffff);
	return (uint32_t)((ns * 65536 + INT64_C(999999999)) /
	                  INT64_C(1000000000));
}

int64_t ld_ntp_short_to_ns(uint32_t s)
{
	return ((int64_t)s * INT64_C(1000000000) + 32768) >> 16;
}
