/*
 * test_ntp_packet.c - leapclockd's NTP packet parser and builder
 * (tools/leapclockd/ntp_packet.c), against packets and values built here
 * byte by byte from RFC 5905 section 7.3 and NTPsec's refid smear format.
 */
#include "lc_test.h"

#include "ntp_packet.h"

/* A request built by hand: LI/VN/mode, poll, and a transmit timestamp. */
static size_t make_req(uint8_t *b, size_t len, unsigned li, unsigned vn,
                       unsigned mode, uint64_t tx)
{
	memset(b, 0, len);
	b[0] = (uint8_t)((li << 6) | (vn << 3) | mode);
	b[1] = 0;
	b[2] = 6;    /* poll 64 s */
	b[3] = 0xec; /* precision -20 */
	for (int i = 0; i < 8; i++)
		b[40 + i] = (uint8_t)(tx >> (56 - 8 * i));
	return len;
}

static uint64_t be64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | b[i];
	return v;
}

static void test_parse_fields(void)
{
	uint8_t b[48];
	struct ld_ntp_packet p;

	make_req(b, sizeof(b), 0, 4, 3, UINT64_C(0xe2a7bd3e80000000));
	b[1] = 2;
	b[4] = 0x00; b[5] = 0x01; b[6] = 0x80; b[7] = 0x00; /* 1.5 s */
	b[12] = 'G'; b[13] = 'P'; b[14] = 'S'; b[15] = 0;
	b[24] = 0x11; b[31] = 0x22; /* origin */
	LC_EQ_INT(ld_ntp_parse(b, sizeof(b), &p), LD_NTP_ANSWER);
	LC_EQ_INT(p.li, 0);
	LC_EQ_INT(p.version, 4);
	LC_EQ_INT(p.mode, 3);
	LC_EQ_INT(p.stratum, 2);
	LC_EQ_INT(p.poll, 6);
	LC_EQ_INT(p.precision, -20);
	LC_EQ_U64(p.root_delay, 0x00018000);
	LC_EQ_I64(ld_ntp_short_to_ns(p.root_delay), 1500000000);
	LC_EQ_U64(p.refid, LD_REFID('G', 'P', 'S', 0));
	LC_EQ_U64(p.org_ts, UINT64_C(0x1100000000000022));
	LC_EQ_U64(p.tx_ts, UINT64_C(0xe2a7bd3e80000000));
}

static void test_verdicts(void)
{
	uint8_t b[200];
	struct ld_ntp_packet p;

	/* lengths: 48 and whole words of extension/MAC after it */
	make_req(b, 48, 0, 4, 3, 1);
	LC_EQ_INT(ld_ntp_parse(b, 48, &p), LD_NTP_ANSWER);
	make_req(b, 68, 0, 4, 3, 1);
	LC_EQ_INT(ld_ntp_parse(b, 68, &p), LD_NTP_ANSWER);
	LC_EQ_INT(ld_ntp_parse(b, 47, &p), LD_NTP_MALFORMED);
	LC_EQ_INT(ld_ntp_parse(b, 49, &p), LD_NTP_MALFORMED);
	LC_EQ_INT(ld_ntp_parse(b, 0, &p), LD_NTP_MALFORMED);
	LC_EQ_INT(ld_ntp_parse(NULL, 48, &p), LD_NTP_MALFORMED);
	/* versions 1..4 answered, 0 and 5..7 malformed */
	for (unsigned v = 0; v < 8; v++) {
		make_req(b, 48, 0, v, 3, 1);
		LC_EQ_INT(ld_ntp_parse(b, 48, &p),
		          v >= 1 && v <= 4 ? LD_NTP_ANSWER : LD_NTP_MALFORMED);
	}
	/* modes: only client; 6 and 7 are control; v1 mode 0 is a client */
	for (unsigned m = 0; m < 8; m++) {
		int want = m == 3 ? LD_NTP_ANSWER
		           : (m == 6 || m == 7) ? LD_NTP_CONTROL
		                                : LD_NTP_NOT_CLIENT;
		make_req(b, 48, 0, 4, m, 1);
		LC_EQ_INT(ld_ntp_parse(b, 48, &p), want);
	}
	make_req(b, 48, 0, 1, 0, 1);
	LC_EQ_INT(ld_ntp_parse(b, 48, &p), LD_NTP_ANSWER);
	make_req(b, 48, 0, 2, 0, 1);
	LC_EQ_INT(ld_ntp_parse(b, 48, &p), LD_NTP_NOT_CLIENT);
	/* a short datagram still decodes what it has, zeros after */
	make_req(b, 48, 0, 4, 3, 1);
	b[1] = 9;
	LC_EQ_INT(ld_ntp_parse(b, 2, &p), LD_NTP_MALFORMED);
	LC_EQ_INT(p.stratum, 9);
	LC_EQ_INT(p.poll, 0);
	LC_EQ_U64(p.tx_ts, 0);
}

static void test_reply(void)
{
	uint8_t b[48], out[64];
	struct ld_ntp_packet req, rep;
	struct ld_ntp_server srv = { 1, -23, 0x00000010, 0x00000042 };
	const uint64_t tx = UINT64_C(0xdeadbeef01234567);

	for (unsigned vn = 1; vn <= 4; vn++) {
		make_req(b, 48, 0, vn, vn == 1 ? 0 : 3, tx);
		LC_EQ_INT(ld_ntp_parse(b, 48, &req), LD_NTP_ANSWER);
		ld_ntp_make_reply(&req, &srv, LD_LI_INSERT,
		                  LD_REFID('L', 'C', 'L', 'K'), 100, 200, 300, &rep);
		memset(out, 0xff, sizeof(out));
		LC_EQ_I64((int64_t)ld_ntp_encode(&rep, out), 48);
		/* LI 1, version echoed, mode 4 */
		LC_EQ_INT(out[0], (1 << 6) | (vn << 3) | 4);
		LC_EQ_INT(out[1], 1);
		LC_EQ_INT(out[2], 6); /* the client's poll */
		LC_EQ_INT(out[3], 0xe9); /* -23 */
		LC_EQ_U64(be64(out + 4) >> 32, 0x10);
		LC_EQ_U64(be64(out + 4) & 0xffffffff, 0x42);
		LC_EQ_INT(out[12], 'L');
		LC_EQ_INT(out[15], 'K');
		LC_EQ_U64(be64(out + 16), 100);
		LC_EQ_U64(be64(out + 24), tx); /* origin = client's transmit */
		LC_EQ_U64(be64(out + 32), 200);
		LC_EQ_U64(be64(out + 40), 300);
		LC_EQ_INT(out[48], 0xff); /* nothing written past 48 bytes */
	}
}

static void test_kod(void)
{
	uint8_t b[48], out[48];
	struct ld_ntp_packet req, rep;
	const uint64_t tx = UINT64_C(0x0102030405060708);

	make_req(b, 48, 0, 4, 3, tx);
	ld_ntp_parse(b, 48, &req);
	ld_ntp_make_kod(&req, 10, &rep);
	ld_ntp_encode(&rep, out);
	LC_EQ_INT(out[0], (3 << 6) | (4 << 3) | 4);
	LC_EQ_INT(out[1], 0); /* stratum 0: a kiss */
	LC_EQ_INT(out[2], 10); /* poll raised to the minimum */
	LC_EQ_INT(memcmp(out + 12, "RATE", 4), 0);
	LC_EQ_U64(be64(out + 24), tx);
	LC_EQ_U64(be64(out + 32), tx);
	LC_EQ_U64(be64(out + 40), tx);
	ld_ntp_make_kod(&req, 3, &rep); /* the client's 6 is kept */
	LC_EQ_INT(rep.poll, 6);
}

static void test_smear_refid_vectors(void)
{
	int64_t ns;

	/* 24 bits: 2 signed integer bits, 22 fraction bits; unit 2^-22 s =
	 * 1e9 / 4194304 = 238.418579... ns */
	LC_EQ_U64(ld_ntp_smear_refid(0), 0xfe000000);
	LC_EQ_U64(ld_ntp_smear_refid(500000000), 0xfe200000);  /* 0.5 s */
	LC_EQ_U64(ld_ntp_smear_refid(-1000000000), 0xfec00000); /* -1 s: 254.192.0.0 */
	LC_EQ_U64(ld_ntp_smear_refid(238), 0xfe000001);  /* 0.998 unit */
	LC_EQ_U64(ld_ntp_smear_refid(119), 0xfe000000);  /* 0.499 unit */
	LC_EQ_U64(ld_ntp_smear_refid(-239), 0xfeffffff); /* -1.002 units */
	LC_EQ_U64(ld_ntp_smear_refid(5000000000), 0xfe7fffff); /* clamped */
	LC_EQ_U64(ld_ntp_smear_refid(-5000000000), 0xfe800000);

	LC_EQ_INT(ld_ntp_smear_refid_decode(0xfe000000, &ns), 0);
	LC_EQ_I64(ns, 0);
	LC_EQ_INT(ld_ntp_smear_refid_decode(0xfe000001, &ns), 0);
	LC_EQ_I64(ns, 238);
	LC_EQ_INT(ld_ntp_smear_refid_decode(0xfe7fffff, &ns), 0);
	LC_EQ_I64(ns, 1999999762); /* 2 - 2^-22 s */
	LC_EQ_INT(ld_ntp_smear_refid_decode(0xfe800000, &ns), 0);
	LC_EQ_I64(ns, -2000000000);
	LC_EQ_INT(ld_ntp_smear_refid_decode(0xfeffffff, &ns), 0);
	LC_EQ_I64(ns, -238);
	LC_EQ_INT(ld_ntp_smear_refid_decode(0xfec00000, &ns), 0);
	LC_EQ_I64(ns, -1000000000);
	LC_EQ_INT(ld_ntp_smear_refid_decode(LD_REFID('L', 'C', 'L', 'K'), &ns), -1);
	LC_EQ_INT(ld_ntp_smear_refid_decode(0x7f7f01ff, &ns), -1);
}

static void test_smear_refid_random(void)
{
	for (int i = 0; i < 100000; i++) {
		int64_t off = lc_rand_range(-1500000000, 1500000000), back;
		uint32_t r = ld_ntp_smear_refid(off);
		LC_EQ_U64(r >> 24, 254);
		LC_EQ_INT(ld_ntp_smear_refid_decode(r, &back), 0);
		/* half a unit (119.2 ns) at most */
		LC_LE_I64(back - off, 120);
		LC_LE_I64(off - back, 120);
	}
}

static void test_short_format(void)
{
	LC_EQ_U64(ld_ntp_short_from_ns(0), 0);
	LC_EQ_U64(ld_ntp_short_from_ns(-5), 0);
	LC_EQ_U64(ld_ntp_short_from_ns(1000000000), 0x00010000);
	LC_EQ_U64(ld_ntp_short_from_ns(1), 1); /* rounded up */
	LC_EQ_U64(ld_ntp_short_from_ns(15258), 1); /* 0.99999 units */
	LC_EQ_U64(ld_ntp_short_from_ns(15259), 2); /* 1.00001 units */
	LC_EQ_U64(ld_ntp_short_from_ns(INT64_C(70000) * 1000000000), 0xffffffff);
	LC_EQ_I64(ld_ntp_short_to_ns(0x00010000), 1000000000);
	LC_EQ_I64(ld_ntp_short_to_ns(1), 15259); /* 15258.789 */
	LC_EQ_I64(ld_ntp_short_to_ns(0x00008000), 500000000);
	for (int i = 0; i < 100000; i++) {
		int64_t ns = lc_rand_range(0, INT64_C(65535) * 1000000000);
		int64_t back = ld_ntp_short_to_ns(ld_ntp_short_from_ns(ns));
		LC_GE_I64(back, ns); /* never understated */
		LC_LE_I64(back - ns, 15259);
	}
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_parse_fields, "header fields decode from big-endian bytes");
	LC_RUN(test_verdicts, "length, version and mode decide answer/drop");
	LC_RUN(test_reply, "reply: mode 4, version/poll echoed, origin = client transmit, 48 bytes");
	LC_RUN(test_kod, "RATE kiss-o'-death: LI 3, stratum 0, no usable time");
	LC_RUN(test_smear_refid_vectors, "254.x.y.z smear refid: NTPsec's 2.22 fixed point");
	LC_RUN(test_smear_refid_random, "smear refid round-trips within half a unit");
	LC_RUN(test_short_format, "NTP short format: rounded up, exact back");
	return lc_test_done();
}
