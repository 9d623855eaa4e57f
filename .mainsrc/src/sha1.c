/*
 * sha1.c - SHA-1 (FIPS 180-4, section 6.1), written for leapclock to check
 * the #h line of leap-seconds.list. Not for anything that needs collision
 * resistance: the leap file's hash only guards against damage in transit.
 */
#include "leaptable_impl.h"

#include <string.h>

static uint32_t rol32(uint32_t x, int k)
{
	return (x << k) | (x >> (32 - k));
}

static uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* One 64-byte block (FIPS 180-4 6.1.2, with the 16-word circular schedule
 * of 6.1.3 so that W needs 16 words instead of 80). */
static void sha1_block(uint32_t h[5], const uint8_t *blk)
{
	uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int t = 0; t < 16; t++)
		w[t] = load_be32(blk + 4 * t);
	for (int t = 0; t < 80; t++) {
		uint32_t f, k, tmp;

		if (t >= 16) {
			w[t & 15] = rol32(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^
			                      w[(t - 14) & 15] ^ w[t & 15],
			                  1);
		}
		if (t < 20) {
			f = (b & c) | (~b & d); /* Ch */
			k = 0x5a827999;
		} else if (t < 40) {
			f = b ^ c ^ d; /* Parity */
			k = 0x6ed9eba1;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d); /* Maj */
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		tmp = rol32(a, 5) + f + e + k + w[t & 15];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = tmp;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void lc__sha1_init(struct lc__sha1 *s)
{
	static const uint32_t h0[5] = {0x67452301, 0xefcdab89, 0x98badcfe,
	                               0x10325476, 0xc3d2e1f0};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->used = 0;
}

void lc__sha1_update(struct lc__sha1 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->len += len;
	if (s->used > 0) {
		size_t take = 64 - s->used;
		if (take > len)
			take = len;
		memcpy(s->buf + s->used, p, take);
		s->used += take;
		p += take;
		len -= take;
		if (s->used < 64)
			return;
		sha1_block(s->h, s->buf);
		s->used = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha1_block(s->h, p);
	if (len > 0) {
		memcpy(s->buf, p, len);
		s->used = len;
	}
}

void lc__sha1_final(struct lc__sha1 *s, uint8_t digest[20])
{
	/* Padding (5.1.1): a 1 bit, zeros up to 56 mod 64 bytes, then the
	 * message length in bits as a 64-bit big-endian number. */
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = {0x80};
	size_t padlen = (s->used < 56 ? 56 : 120) - s->used;

	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	lc__sha1_update(s, pad, padlen + 8);
	for (int i = 0; i < 5; i++)
		store_be32(digest + 4 * i, s->h[i]);
}

void lc__sha1_digest(const void *data, size_t len, uint8_t digest[20])
{
	struct lc__sha1 s;

	lc__sha1_init(&s);
	lc__sha1_update(&s, data, len);
	lc__sha1_final(&s, digest);
}
