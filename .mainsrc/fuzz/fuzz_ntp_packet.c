/*
 * fuzz_ntp_packet.c - leapclockd's packet parser and reply builder on
 * arbitrary bytes. Besides "never crash", checks what the server relies on:
 * a datagram it answers is at least as long as the reply, the reply parses
 * back as a server answer of the same version whose origin is the request's
 * transmit timestamp, and the smear reference id and the NTP short format
 * round-trip within their resolution.
 */
#include "ntp_packet.c"

#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c))                                                \
			abort();                                         \
	} while (0)

static uint64_t take64(const uint8_t *d, size_t n, size_t off)
{
	uint64_t v = 0;
	for (size_t i = 0; i < 8; i++)
		v = (v << 8) | (off + i < n ? d[off + i] : 0x5a);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ld_ntp_packet req, rep, back;
	struct ld_ntp_server srv;
	uint8_t out[LD_NTP_HEADER_LEN];
	enum ld_ntp_verdict v = ld_ntp_parse(data, size, &req);
	uint64_t x = take64(data, size, 0), y = take64(data, size, 8);
	int64_t off, dec;

	CHECK(v == LD_NTP_ANSWER || v == LD_NTP_MALFORMED ||
	      v == LD_NTP_CONTROL || v == LD_NTP_NOT_CLIENT);
	if (v == LD_NTP_ANSWER) {
		CHECK(size >= LD_NTP_HEADER_LEN && size % 4 == 0);
		CHECK(req.mode == LD_MODE_CLIENT ||
		      (req.mode == 0 && req.version == 1));
		srv.stratum = (uint8_t)(x & 15);
		srv.precision = (int8_t)(x >> 8);
		srv.root_delay = (uint32_t)(x >> 16);
		srv.root_dispersion = (uint32_t)y;
		ld_ntp_make_reply(&req, &srv, (unsigned)(y >> 40), (uint32_t)x,
		                  x, y, x ^ y, &rep);
		CHECK(ld_ntp_encode(&rep, out) <= size);
		CHECK(ld_ntp_parse(out, sizeof(out), &back) == LD_NTP_NOT_CLIENT);
		CHECK(back.mode == LD_MODE_SERVER && back.version == req.version);
		CHECK(back.org_ts == req.tx_ts && back.tx_ts == (x ^ y));
		CHECK(back.poll == req.poll && back.li == ((y >> 40) & 3));
		ld_ntp_make_kod(&req, (int8_t)y, &rep);
		CHECK(ld_ntp_encode(&rep, out) <= size);
		ld_ntp_parse(out, sizeof(out), &back);
		CHECK(back.stratum == 0 && back.refid == LD_KISS_RATE &&
		      back.li == LD_LI_ALARM && back.org_ts == req.tx_ts);
	} else if (v == LD_NTP_CONTROL) {
		CHECK(req.mode == 6 || req.mode == 7);
	}

	/* smear refid: |offset| <= 1.5 s round-trips within half a unit */
	off = (int64_t)(x % UINT64_C(3000000001)) - INT64_C(1500000000);
	CHECK(ld_ntp_smear_refid_decode(ld_ntp_smear_refid(off), &dec) == 0);
	CHECK(dec - off <= 120 && off - dec <= 120);
	if ((uint32_t)y >> 24 == 254)
		CHECK(ld_ntp_smear_refid(
		              (ld_ntp_smear_refid_decode((uint32_t)y, &dec), dec)) ==
		      (uint32_t)y);
	else
		CHECK(ld_ntp_smear_refid_decode((uint32_t)y, &dec) == -1);
	/* short format: from ns never understates, to ns within 1/65536 s */
	off = (int64_t)(y % (UINT64_C(65535) * 1000000000u));
	dec = ld_ntp_short_to_ns(ld_ntp_short_from_ns(off));
	CHECK(dec >= off - 1 && dec - off <= 15259);
	return 0;
}
