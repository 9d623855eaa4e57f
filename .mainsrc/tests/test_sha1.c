/* test_sha1.c - SHA-1 (src/sha1.c) against the FIPS 180 / NIST known
 * answers, and the incremental interface against the one-shot one. */
#include "lc_test.h"
#include "leaptable_impl.h"

static void hex(const uint8_t d[20], char out[41])
{
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void sha1_hex(const void *p, size_t n, char out[41])
{
	uint8_t d[20];

	lc__sha1_digest(p, n, d);
	hex(d, out);
}

/* FIPS 180-2 appendix A and NIST's SHA example vectors. */
static void test_vectors(void)
{
	char h[41];

	sha1_hex("abc", 3, h);
	LC_EQ_STR(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
	sha1_hex("", 0, h);
	LC_EQ_STR(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	         h);
	LC_EQ_STR(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	/* 896-bit message of FIPS 180-4's examples (two-block padding). */
	sha1_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	         "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	         112, h);
	LC_EQ_STR(h, "a49b2446a02c645bf419f995b67091253a04a259");
}

static void test_million_a(void)
{
	size_t n = 1000000;
	char *buf = malloc(n), h[41];

	LC_TRUE(buf != NULL);
	memset(buf, 'a', n);
	sha1_hex(buf, n, h);
	free(buf);
	LC_EQ_STR(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

/* Every length 0..200 (all padding cases: 55, 56, 63, 64 bytes...) hashed
 * in random pieces gives the one-shot digest; the one-shot digests of
 * lengths 55/56/64 are fixed by independent values (Python's hashlib). */
static void test_incremental(void)
{
	uint8_t msg[200], d1[20], d2[20];
	char h[41];

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)('a' + i % 26);
	sha1_hex(msg, 55, h);
	LC_EQ_STR(h, "a617d006d1ca12671785098a19a87fe58443bde9");
	sha1_hex(msg, 56, h);
	LC_EQ_STR(h, "4ad5bb7ae3c4024768d364b77c52128ea3cffebe");
	sha1_hex(msg, 64, h);
	LC_EQ_STR(h, "93249d4c2f8903ebf41ac358473148ae6ddd7042");
	for (size_t len = 0; len <= sizeof(msg); len++) {
		struct lc__sha1 s;
		size_t off = 0;

		lc__sha1_digest(msg, len, d1);
		lc__sha1_init(&s);
		while (off < len) {
			size_t k = (size_t)lc_rand_range(0, 70);
			if (k > len - off)
				k = len - off;
			lc__sha1_update(&s, msg + off, k);
			off += k;
		}
		lc__sha1_final(&s, d2);
		LC_TRUE(memcmp(d1, d2, 20) == 0);
	}
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_vectors,
	       "FIPS 180 vectors: abc, empty, 448-bit and 896-bit messages");
	LC_RUN(test_million_a, "FIPS 180 vector: one million 'a'");
	LC_RUN(test_incremental,
	       "piecewise hashing equals one-shot for lengths 0..200");
	return lc_test_done();
}
