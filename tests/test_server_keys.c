/*
 * test_server_keys.c - leapclockd's symmetric keys (tools/leapclockd/keys.c,
 * issue 14): the key file parser's errors name file, line and field and
 * never a secret; every digest type and both CMACs against vectors made
 * apart from this code (the legacy digests with python3's hashlib as
 * HASH(key || message), AES-CMAC from RFC 4493 section 4 and NIST SP
 * 800-38B D.3); the comparison is the constant-time one over the whole
 * digest; requests are checked where chrony puts the MAC (NTPv4 truncation
 * to 20 bytes, NTPv3 whole, a long MAC, RFC 7822 extension fields);
 * replies are signed verifiably and never longer than the request; a
 * reload keeps the old keys on error, and workers checking while the main
 * thread reloads always see a whole key set.
 *
 * The MAC tests need GnuTLS (Debian: libgnutls28-dev): without it they are
 * skipped and the test exits 77 after the parser's tests.
 */
#include "lc_test.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* keys.c from leapclockd_core (CMakeLists.txt) */
#include "leapclockd.h"
#include "auth.h"
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic long n_equal;
static _Atomic size_t last_equal_len;

static int counting_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	n_equal++;
	last_equal_len = n;
	return ld_mac_equal(a, b, n);
}

static char last_log[1024];
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

void ld_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	pthread_mutex_lock(&log_mu);
	va_start(ap, fmt);
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&log_mu);
}

static char tmpdir[] = "/tmp/lc-test-server-keys.XXXXXX";
static struct ld_config cfg;

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* ---- the parser ---- */

static void test_parse_good(void)
{
	static const char text[] =
		"# a comment\n"
		"; another\r\n"
		"! and another\n"
		"% and one more\n"
		"\n"
		"   \t\n"
		"20 SHA1 HEX:0102030405060708090a0B0C0D0E0F1011121314\r\n"
		"7 simple-md5-key\n"
		"  4294967295\tsha3-512   ASCII:with#hash\n"
		"3 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
		"1 AES256 HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
	struct ld_keyset *s;
	char err[256];
	const struct ld_key *k;

	LC_EQ_INT(ld_keyset_parse("t", text, sizeof(text) - 1, &s, err,
	                          sizeof(err)), 0);
	LC_EQ_STR(err, "");
	LC_EQ_U64(s->n, 5);
	/* sorted by id */
	LC_EQ_U64(s->key[0].id, 1);
	LC_EQ_U64(s->key[4].id, 4294967295u);
	k = ld_keyset_find(s, 20);
	LC_TRUE(k != NULL);
	LC_EQ_INT(k->type, LD_KEY_SHA1);
	LC_EQ_U64(k->len, 20);
	LC_EQ_INT(k->secret[0], 1);
	LC_EQ_INT(k->secret[11], 0x0c);
	LC_EQ_INT(k->line, 7);
	k = ld_keyset_find(s, 7); /* two fields: MD5, ASCII */
	LC_EQ_INT(k->type, LD_KEY_MD5);
	LC_EQ_U64(k->len, strlen("simple-md5-key"));
	LC_TRUE(memcmp(k->secret, "simple-md5-key", k->len) == 0);
	k = ld_keyset_find(s, 4294967295u); /* a # inside a key is the key's */
	LC_EQ_INT(k->type, LD_KEY_SHA3_512);
	LC_EQ_U64(k->len, 9);
	LC_TRUE(memcmp(k->secret, "with#hash", 9) == 0);
	LC_EQ_INT(ld_keyset_find(s, 3)->type, LD_KEY_AES128);
	LC_EQ_U64(ld_keyset_find(s, 1)->len, 32);
	LC_TRUE(ld_keyset_find(s, 2) == NULL);
	LC_TRUE(ld_keyset_find(s, 0) == NULL);
	ld_keyset_free(s);

	/* an empty file is an empty set */
	LC_EQ_INT(ld_keyset_parse("t", "", 0, &s, err, sizeof(err)), 0);
	LC_EQ_U64(s->n, 0);
	ld_keyset_free(s);
}

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "0 MD5 SECRETKEY", "f:1: field 1 (key id): 0 is not a key id" },
		{ "4294967296 MD5 SECRETKEY", "f:1: field 1 (key id): larger than 4294967295" },
		{ "-1 MD5 SECRETKEY", "f:1: field 1 (key id): '-1' is not a decimal number" },
		{ "0x10 MD5 SECRETKEY", "f:1: field 1 (key id): '0x10' is not" },
		{ "1 MD5 SECRETKEY\n2 SHA2 SECRETKEY", "f:2: field 2 (type): unknown type 'SHA2'" },
		{ "1 AES SECRETKEY", "f:1: field 2 (type): unknown type 'AES'" },
		{ "#\n\n1 MD5 HEX:abc", "f:3: field 3 (key): HEX: with an odd number of digits (3)" },
		{ "1 MD5 HEX:0g", "f:1: field 3 (key): HEX: character 2 is not a hex digit" },
		{ "1 MD5 HEX:", "f:1: field 3 (key): empty key" },
		{ "1 MD5 ASCII:", "f:1: field 3 (key): empty key" },
		{ "1 AES128 HEX:00112233", "f:1: field 3 (key): AES128 wants a 128-bit key (HEX: and 32 digits), this one has 4 bytes" },
		{ "1 AES256 HEX:2b7e151628aed2a6abf7158809cf4f3c", "f:1: field 3 (key): AES256 wants a 256-bit key" },
		{ "1 MD5 SECRETKEY extra", "f:1: field 4 (): unexpected fourth field" },
		{ "17", "f:1: want ID TYPE KEY (or ID KEY for MD5), got 1 field" },
		{ "1 MD5 SECRETKEY\n# x\n1 SHA1 SECRETKEY", "f:3: field 1 (key id): key 1 is also on line 1" },
		{ "1 MD5 SECRET\0KEY", "f:1: a NUL byte" },
	};
	struct ld_keyset *s;
	char err[256], longline[LD_KEY_LINE_MAX + 8], longkey[LD_KEY_MAX + 16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].text);

		if (strstr(cases[i].want, "NUL") != NULL)
			len = sizeof("1 MD5 SECRET\0KEY") - 1;
		s = (struct ld_keyset *)1;
		LC_EQ_INT(ld_keyset_parse("f", cases[i].text, len, &s, err,
		                          sizeof(err)), -1);
		LC_TRUE(s == NULL);
		LC_CONTAINS(err, cases[i].want);
		/* a secret is never quoted */
		LC_TRUE(strstr(err, "SECRET") == NULL);
	}
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "1 MD5 ", 6);
	LC_EQ_INT(ld_keyset_parse("f", longline, LD_KEY_LINE_MAX, &s, err,
	                          sizeof(err)), -1);
	LC_CONTAINS(err, "f:1: line longer than 2047 characters");
	memset(longkey, 'k', sizeof(longkey));
	memcpy(longkey, "1 MD5 ", 6);
	longkey[6 + LD_KEY_MAX + 1] = '\0';
	LC_EQ_INT(ld_keyset_parse("f", longkey, strlen(longkey), &s, err,
	                          sizeof(err)), -1);
	LC_CONTAINS(err, "f:1: field 3 (key): longer than 256 bytes");
	/* exactly LD_KEY_MAX is fine */
	longkey[6 + LD_KEY_MAX] = '\0';
	LC_EQ_INT(ld_keyset_parse("f", longkey, strlen(longkey), &s, err,
	                          sizeof(err)), 0);
	LC_EQ_U64(s->key[0].len, LD_KEY_MAX);
	ld_keyset_free(s);
}

/* ---- MACs ---- */

/* bytes 0..47, filled once before any thread starts */
static uint8_t msg48_bytes[48];

static const uint8_t *msg48(void)
{
	return msg48_bytes;
}

static struct ld_key mk(enum ld_key_type t, const char *hex, const char *ascii)
{
	struct ld_key k;

	memset(&k, 0, sizeof(k));
	k.type = t;
	k.id = 1;
	if (hex != NULL) {
		k.len = unhex(hex, k.secret);
	} else {
		k.len = strlen(ascii);
		memcpy(k.secret, ascii, k.len);
	}
	return k;
}

static void test_digest_vectors(void)
{
	/* python3: hashlib.new(NAME, b"leapclock-test-key" + bytes(range(48))) */
	static const struct {
		enum ld_key_type t;
		const char *hex;
	} v[] = {
		{ LD_KEY_MD5, "d38c792bec6249f16cd1a345abbe9c36" },
		{ LD_KEY_SHA1, "35de6e6595d623faca18cf5f341b942d577d03b1" },
		{ LD_KEY_SHA256, "b40e531b226d81c6b64764485e5a6d13144940fe0fc7451189795ef9af8454bb" },
		{ LD_KEY_SHA384, "408478a9a351b8389cbc6b85f8c4ef3b19f9a684e59f6170b04ddd83d4092c647aa5119b20e4d614b4a17845a5d13df0" },
		{ LD_KEY_SHA512, "0010e2a01f9e5ca8d305ef52d4bea5bfc9e5ed4c200017e2be1042ec0c1b396aa95209246e6cd6bf36c01668a1d28dd17012254fb3916d8941ea65bf2e38bd21" },
		{ LD_KEY_SHA3_224, "2d2a8f5e6a1673e57fec87906704041b3ae4ed11f0f9d615949179bf" },
		{ LD_KEY_SHA3_256, "632f4a339c0c97bc1503ba17c42d1de085f90c51951dbc30cb93bb7bfbba1d42" },
		{ LD_KEY_SHA3_384, "5a93d635c554a1fcba4fa49234cfefd3e8d91648ab1715910b4736fd5ed3a9ecc4c7d1a1dcc33499f0104e169c14f17f" },
		{ LD_KEY_SHA3_512, "9be19c2474432ba83f71970f4371a6e05a8ee7d582d4ff9be65c7fe98a12f6863fd0aa80e229e49c58a0aef26cb80551499ee601df966101705879528fd5da3a" },
	};
	uint8_t want[LD_MAC_MAX], got[LD_MAC_MAX];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct ld_key k = mk(v[i].t, NULL, "leapclock-test-key");
		size_t n = unhex(v[i].hex, want);

		LC_EQ_U64(ld_key_mac_len(v[i].t), n);
		LC_EQ_INT(ld_key_mac(&k, msg48(), 48, got), (int)n);
		if (memcmp(got, want, n) != 0)
			LC_T_FAIL_("%s: digest differs from hashlib's",
			           ld_key_type_name(v[i].t));
	}
}

static void test_cmac_vectors(void)
{
	/* RFC 4493 section 4 (AES-128) and NIST SP 800-38B D.3 (AES-256):
	 * the message's first 0, 16, 40 and 64 bytes */
	static const char m64[] =
		"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
		"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
	static const size_t lens[4] = { 0, 16, 40, 64 };
	static const char *const t128[4] = {
		"bb1d6929e95937287fa37d129b756746", "070a16b46b4d4144f79bdd9dd04a287c",
		"dfa66747de9ae63030ca32611497c827", "51f0bebf7e3b9d92fc49741779363cfe",
	};
	static const char *const t256[4] = {
		"028962f61b7bf89efc6b551f4667d983", "28a7023f452e8f82bd4bf28d8c37c35c",
		"aaf3d8f1de5640c232f5b169b9c911e6", "e1992190549f6ed5696a2c056c315410",
	};
	struct ld_key k128 = mk(LD_KEY_AES128, "2b7e151628aed2a6abf7158809cf4f3c", NULL);
	struct ld_key k256 = mk(LD_KEY_AES256,
	        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", NULL);
	uint8_t m[64], want[16], got[LD_MAC_MAX];

	unhex(m64, m);
	for (int i = 0; i < 4; i++) {
		unhex(t128[i], want);
		LC_EQ_INT(ld_key_mac(&k128, m, lens[i], got), 16);
		if (memcmp(got, want, 16) != 0)
			LC_T_FAIL_("AES128 CMAC of %zu bytes differs from RFC 4493", lens[i]);
		unhex(t256[i], want);
		LC_EQ_INT(ld_key_mac(&k256, m, lens[i], got), 16);
		if (memcmp(got, want, 16) != 0)
			LC_T_FAIL_("AES256 CMAC of %zu bytes differs from SP 800-38B", lens[i]);
	}
}

static void test_mac_equal(void)
{
	uint8_t a[64], b[64];

	for (int i = 0; i < 64; i++)
		a[i] = b[i] = (uint8_t)lc_rand();
	LC_EQ_INT(ld_mac_equal(a, b, 64), 1);
	LC_EQ_INT(ld_mac_equal(a, b, 0), 1);
	/* one bit anywhere, the last byte included, makes a difference */
	for (int i = 0; i < 64; i++)
		for (int bit = 0; bit < 8; bit++) {
			b[i] ^= (uint8_t)(1 << bit);
			LC_EQ_INT(ld_mac_equal(a, b, 64), 0);
			b[i] ^= (uint8_t)(1 << bit);
		}
}

/* ---- requests and replies ---- */

#define KEYS_A                                                                \
	"1 MD5 ASCII:leapclock-test-key\n"                                    \
	"2 SHA1 ASCII:leapclock-test-key\n"                                   \
	"3 SHA256 ASCII:leapclock-test-key\n"                                 \
	"4 SHA512 ASCII:leapclock-test-key\n"                                 \
	"5 SHA3-256 ASCII:leapclock-test-key\n"                               \
	"6 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"

static char path_a[256], path_b[256], path_bad[256];

static struct ld_keys *open_keys(const char *path)
{
	struct ld_keys *k = NULL;

	snprintf(cfg.keyfile, sizeof(cfg.keyfile), "%s", path);
	if (ld_keys_new(&k, &cfg) != 0)
		return NULL;
	return k;
}

/* A request: header (version v, client) + optional 16-byte extension
 * field + key id + the MAC computed here by keys.c's own function, dlen
 * bytes of it, the first byte flipped when bad. */
static size_t request(uint8_t *p, int v, int ext, const struct ld_key *key,
                      uint32_t id, size_t dlen, int bad)
{
	uint8_t mac[LD_MAC_MAX];
	size_t n = 48;

	memcpy(p, msg48(), 48);
	p[0] = (uint8_t)(v << 3 | 3);
	if (ext) {
		memset(p + n, 0, 16);
		p[n] = 0xf1, p[n + 1] = 0x23, p[n + 3] = 16;
		n += 16;
	}
	p[n] = (uint8_t)(id >> 24), p[n + 1] = (uint8_t)(id >> 16);
	p[n + 2] = (uint8_t)(id >> 8), p[n + 3] = (uint8_t)id;
	if (key != NULL)
		ld_key_mac(key, p, n, mac);
	else
		memset(mac, 0x55, sizeof(mac));
	memcpy(p + n + 4, mac, dlen);
	if (bad)
		p[n + 4] ^= 1;
	return n + 4 + dlen;
}

static void test_check(void)
{
	struct ld_keys *k = open_keys(path_a);
	struct ld_auth_ctx ctx;
	uint8_t req[LD_NTP_MAX_PACKET];
	const struct ld_key *sha256, *md5, *sha512, *aes;
	size_t n;
	long e0;

	LC_TRUE(k != NULL);
	if (k == NULL)
		return;
	md5 = ld_keyset_find(k->set, 1);
	sha256 = ld_keyset_find(k->set, 3);
	sha512 = ld_keyset_find(k->set, 4);
	aes = ld_keyset_find(k->set, 6);

	/* NTPv4, SHA256 truncated to 20: accepted, one whole-digest compare */
	memset(&ctx, 0, sizeof(ctx));
	n = request(req, 4, 0, sha256, 3, 20, 0);
	e0 = n_equal;
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	LC_EQ_I64(n_equal - e0, 1);
	LC_EQ_U64(last_equal_len, 20);
	LC_EQ_INT(ctx.kind, LD_AUTH_KEY);
	LC_EQ_U64(ctx.key_id, 3);
	/* the same with the MAC wrong in its first byte: dropped, after the
	 * same whole compare */
	n = request(req, 4, 0, sha256, 3, 20, 1);
	e0 = n_equal;
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_DROP);
	LC_EQ_I64(n_equal - e0, 1);
	LC_EQ_U64(last_equal_len, 20);
	/* the whole 32 bytes in NTPv4 right after the header (old chrony) */
	n = request(req, 4, 0, sha256, 3, 32, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	LC_EQ_U64(last_equal_len, 32);
	/* NTPv3: SHA512 whole (64), truncated is wrong */
	n = request(req, 3, 0, sha512, 4, 64, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	LC_EQ_U64(last_equal_len, 64);
	n = request(req, 3, 0, sha512, 4, 20, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_DROP);
	/* MD5 and CMAC: 16 bytes */
	n = request(req, 4, 0, md5, 1, 16, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	LC_EQ_U64(last_equal_len, 16);
	n = request(req, 4, 0, aes, 6, 16, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	LC_EQ_U64(ctx.key_id, 6);
	/* a SHA1 key's MAC cut to 16 bytes is no MAC: no compare at all */
	n = request(req, 4, 0, ld_keyset_find(k->set, 2), 2, 16, 0);
	e0 = n_equal;
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_DROP);
	LC_EQ_I64(n_equal - e0, 0);
	/* an unknown key: dropped (chronyd 4.3 sends no crypto-NAK) */
	n = request(req, 4, 0, NULL, 99, 20, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_DROP);
	{
		struct ld_auth_counters c;

		memset(&c, 0, sizeof(c));
		ld_keys_counters(k, &c);
		LC_EQ_U64(c.key_unknown, 1); /* the wrong MACs above are not */
	}
	/* RFC 7822: the MAC after an extension field covers it */
	n = request(req, 4, 1, sha256, 3, 20, 0);
	LC_EQ_U64(n, 88);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	req[60] ^= 1; /* inside the field */
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_DROP);
	/* an extension field alone: plain; a field of a bad length: dropped */
	LC_EQ_INT(ld_keys_check(k, req, 64, &ctx), LD_AUTH_PLAIN);
	req[51] = 12;
	LC_EQ_INT(ld_keys_check(k, req, 64, &ctx), LD_AUTH_DROP);
	/* four zero bytes (a crypto-NAK's MAC) in a request, and a length
	 * that is not a multiple of 4: dropped; no MAC: plain */
	memset(req + 48, 0, 4);
	LC_EQ_INT(ld_keys_check(k, req, 52, &ctx), LD_AUTH_DROP);
	LC_EQ_INT(ld_keys_check(k, req, 70, &ctx), LD_AUTH_DROP);
	LC_EQ_INT(ld_keys_check(k, req, 48, &ctx), LD_AUTH_PLAIN);
	LC_EQ_INT(ld_keys_check(NULL, req, 72, &ctx), LD_AUTH_PLAIN);
	ld_keys_free(k);
}

static void test_finish(void)
{
	/* python3: hashlib.new(NAME, b"leapclock-test-key" + bytes([0x23]) +
	 * bytes(range(1, 48))).hexdigest()[:40] - the reply header below */
	static const char sha256_20[] = "0a6e8c4f2f2595ca243f9733f35cb7d907e9303b";
	static const char sha512_20[] = "2838eddd797c83b2fac5e3ac5ccda4553b68d2aa";
	static const char md5_16[] = "90f2cacc7207dce6d93e1a4953e70d3c";
	struct ld_keys *k = open_keys(path_a);
	struct ld_auth_ctx ctx;
	uint8_t req[LD_NTP_MAX_PACKET], out[LD_NTP_MAX_PACKET], want[LD_MAC_MAX];
	size_t n;

	LC_TRUE(k != NULL);
	if (k == NULL)
		return;
	memset(&ctx, 0, sizeof(ctx));
	/* SHA256: request 72 bytes, reply 48 + 4 + 20 over the reply header */
	n = request(req, 4, 0, ld_keyset_find(k->set, 3), 3, 20, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	ctx.req_len = n;
	memcpy(out, msg48(), 48);
	out[0] = 0x23; /* what a v4 reply header would start with here */
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 72);
	LC_EQ_INT(out[48] << 24 | out[49] << 16 | out[50] << 8 | out[51], 3);
	unhex(sha256_20, want);
	LC_TRUE(memcmp(out + 52, want, 20) == 0);
	/* SHA512 asked with its whole MAC in NTPv4 (old chrony): the reply
	 * is NTPv4 so its MAC is cut to 20, as chronyd does */
	n = request(req, 4, 0, ld_keyset_find(k->set, 4), 4, 64, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	ctx.req_len = n;
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 72);
	unhex(sha512_20, want);
	LC_TRUE(memcmp(out + 52, want, 20) == 0);
	/* MD5: 68 bytes */
	n = request(req, 4, 0, ld_keyset_find(k->set, 1), 1, 16, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	ctx.req_len = n;
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 68);
	unhex(md5_16, want);
	LC_TRUE(memcmp(out + 52, want, 16) == 0);
	/* the reply is checked by the same code the requests are */
	LC_EQ_INT(ld_keys_check(k, out, 68, &ctx), LD_AUTH_OK);
	/* never longer than the request, nor than the buffer */
	ctx.req_len = 67;
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 0);
	ctx.req_len = 68;
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, 60), 0);
	/* NTPv3: the whole SHA512 MAC, 116 bytes */
	n = request(req, 3, 0, ld_keyset_find(k->set, 4), 4, 64, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	ctx.req_len = n;
	out[0] = 3 << 3 | 4;
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 116);
	LC_EQ_INT(ld_keys_check(k, out, 116, &ctx), LD_AUTH_OK);
	ld_keys_free(k);
}

static void test_file_and_reload(void)
{
	struct ld_keys *k;
	struct ld_auth_ctx ctx;
	uint8_t req[LD_NTP_MAX_PACKET], out[LD_NTP_MAX_PACKET];
	struct ld_key key3 = mk(LD_KEY_SHA256, NULL, "leapclock-test-key");
	size_t n;

	/* errors name the file, the line and the field */
	LC_TRUE(open_keys(path_bad) == NULL);
	LC_CONTAINS(last_log, path_bad);
	LC_CONTAINS(last_log, ":3: field 3 (key): HEX: with an odd number");
	/* others may not read the secrets */
	write_file(path_b, KEYS_A, 0644);
	LC_TRUE(open_keys(path_b) == NULL);
	LC_CONTAINS(last_log, "mode 0644 lets others read or write");
	write_file(path_b, KEYS_A, 0602);
	LC_TRUE(open_keys(path_b) == NULL);
	LC_TRUE(open_keys("/nonexistent/keys") == NULL);
	LC_CONTAINS(last_log, "/nonexistent/keys: No such file");
	LC_TRUE(open_keys(tmpdir) == NULL);
	LC_CONTAINS(last_log, "not a regular file");
	/* group-readable is fine (a daemon that drops to a group) */
	write_file(path_b, "3 SHA256 ASCII:other-secret\n", 0640);

	k = open_keys(path_a);
	LC_TRUE(k != NULL);
	if (k == NULL)
		return;
	n = request(req, 4, 0, &key3, 3, 20, 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	/* a broken file: refused, the old keys stay */
	snprintf(k->path, sizeof(k->path), "%s", path_bad);
	LC_EQ_INT(ld_keys_reload(k), -1);
	LC_CONTAINS(last_log, "not reloaded, the 6 keys in use stay");
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	/* a good one replaces them: key 3 has another secret now, and a
	 * check made before the reload finishes with the new set */
	snprintf(k->path, sizeof(k->path), "%s", path_b);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_OK);
	ctx.req_len = n;
	LC_EQ_INT(ld_keys_reload(k), 0);
	LC_EQ_INT(ld_keys_check(k, req, n, &ctx), LD_AUTH_DROP);
	memcpy(out, req, 48);
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 72);
	/* key 1 went: a check from before the reload cannot be finished */
	ctx.key_id = 1;
	LC_EQ_U64(ld_keys_finish(k, &ctx, out, 48, sizeof(out)), 0);
	ld_keys_free(k);
}

/* Workers check and sign with key 1 (the same secret in both files) and
 * key 2 (only in file A) while the main thread reloads A and B in turn. */
struct worker {
	struct ld_keys *k;
	long ok1, bad1, ok2, drop2;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ld_key k1 = mk(LD_KEY_SHA1, NULL, "same-secret-in-both");
	struct ld_key k2 = mk(LD_KEY_AES128, "2b7e151628aed2a6abf7158809cf4f3c", NULL);
	uint8_t req[LD_NTP_MAX_PACKET], out[LD_NTP_MAX_PACKET], mac[LD_MAC_MAX];
	struct ld_auth_ctx ctx;

	for (int i = 0; i < 20000; i++) {
		size_t n = request(req, 4, 0, &k1, 1, 20, 0), r;

		memset(&ctx, 0, sizeof(ctx));
		ctx.req_len = n;
		if (ld_keys_check(w->k, req, n, &ctx) != LD_AUTH_OK) {
			w->bad1++;
			continue;
		}
		memcpy(out, req, 48);
		r = ld_keys_finish(w->k, &ctx, out, 48, sizeof(out));
		ld_key_mac(&k1, out, 48, mac);
		if (r == 72 && memcmp(out + 52, mac, 20) == 0)
			w->ok1++;
		else
			w->bad1++;
		n = request(req, 4, 0, &k2, 2, 16, 0);
		ctx.req_len = n;
		if (ld_keys_check(w->k, req, n, &ctx) == LD_AUTH_OK)
			w->ok2++;
		else
			w->drop2++;
	}
	return NULL;
}

static void test_threads(void)
{
	enum { NW = 4 };
	struct worker w[NW];
	pthread_t th[NW];
	struct ld_keys *k;
	char pa[300], pb[300];
	long ok2 = 0, drop2 = 0;
	int reloads = 0;

	snprintf(pa, sizeof(pa), "%s/threads-a", tmpdir);
	snprintf(pb, sizeof(pb), "%s/threads-b", tmpdir);
	write_file(pa, "1 SHA1 ASCII:same-secret-in-both\n"
	               "2 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n", 0600);
	write_file(pb, "1 SHA1 ASCII:same-secret-in-both\n", 0600);
	k = open_keys(pa);
	LC_TRUE(k != NULL);
	if (k == NULL)
		return;
	for (int i = 0; i < NW; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].k = k;
		pthread_create(&th[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < 300; i++) {
		snprintf(k->path, sizeof(k->path), "%s", i % 2 ? pa : pb);
		if (ld_keys_reload(k) == 0)
			reloads++;
		usleep(200);
	}
	for (int i = 0; i < NW; i++) {
		pthread_join(th[i], NULL);
		LC_EQ_I64(w[i].bad1, 0);
		LC_EQ_I64(w[i].ok1, 20000);
		ok2 += w[i].ok2;
		drop2 += w[i].drop2;
	}
	LC_EQ_INT(reloads, 300);
	LC_EQ_I64(ok2 + drop2, NW * 20000);
	printf("  # %d reloads; key 2 held in %ld checks and was absent in %ld\n",
	       reloads, ok2, drop2);
	ld_keys_free(k);
}

int main(int argc, char **argv)
{
	int have = 0;

	/* count the MAC comparisons keys.c makes, and their lengths */
	ld__mac_equal = counting_equal;

#ifdef LD_HAVE_GNUTLS
	have = 1;
#endif
	lc_test_init(argc, argv);
	for (int i = 0; i < 48; i++)
		msg48_bytes[i] = (uint8_t)i;
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path_a, sizeof(path_a), "%s/a.keys", tmpdir);
	snprintf(path_b, sizeof(path_b), "%s/b.keys", tmpdir);
	snprintf(path_bad, sizeof(path_bad), "%s/bad.keys", tmpdir);
	write_file(path_a, KEYS_A, 0600);
	write_file(path_bad, "1 MD5 good\n# fine so far\n2 SHA1 HEX:123\n", 0600);

	LC_RUN(test_parse_good, "key file: comments, blanks, CRLF, ID KEY, ASCII:, HEX:, any case, sorted");
	LC_RUN(test_parse_errors, "key file errors name file, line and field, never the secret");
	LC_RUN(test_mac_equal, "the MAC comparison finds one bit anywhere");
	if (have) {
		LC_RUN(test_digest_vectors, "legacy digests HASH(key||msg), 9 types, against hashlib's");
		LC_RUN(test_cmac_vectors, "AES-CMAC 128/256 against RFC 4493 and SP 800-38B");
		LC_RUN(test_check, "requests: NTPv4 truncation, NTPv3 whole, long MAC, RFC 7822 fields, "
		       "drops, one whole-digest constant-time compare");
		LC_RUN(test_finish, "replies signed (known digests), never longer than the request");
		LC_RUN(test_file_and_reload, "file errors and modes; a bad reload keeps the keys, a good one swaps");
		LC_RUN(test_threads, "4 workers check and sign while the main thread reloads 300 times");
	} else {
		LC_SKIP("MAC tests", "leapclockd built without GnuTLS (Debian package libgnutls28-dev)");
	}
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("  # could not remove %s\n", tmpdir);
	}
	if (!have && lc_t_failed_cases == 0) {
		lc_test_done();
		return 77;
	}
	return lc_test_done();
}
