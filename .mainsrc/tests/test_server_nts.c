/*
 * test_server_nts.c - leapclockd's NTS (tools/leapclockd/nts*.c,
 * ntske.c) with our own client code:
 *
 *   - the NTS-KE record parser and response builder on known requests
 *     (critical bits, repeats, unknown records, empty negotiation);
 *   - the extension-field parser on known requests (an empty nonce would
 *     abort nettle's SIV: it must never reach it);
 *   - the NTP side with real AES-SIV: a request made with a cookie of the
 *     server's key is answered with the Unique Identifier and fresh cookies
 *     sealed under S2C, as many as fit (never a longer reply); a tampered
 *     request is dropped; a cookie of an unknown key or a forged one gets
 *     an NTSN kiss holding only the Unique Identifier;
 *   - server keys: rotation keeps the last three (older cookies get NTSN),
 *     the key file is 0600 in a 0700 directory, a looser key file is
 *     refused, cookies survive a restart on the same directory; check and
 *     finish from four threads while keys rotate;
 *   - NTS-KE over TLS 1.3 on loopback with a GnuTLS client: ALPN ntske/1,
 *     8 cookies, the port record, keys exported by both sides that agree
 *     (a cookie from NTS-KE opens and the answer opens with the client's
 *     S2C); an unknown critical record gets an Error record; a wrong ALPN
 *     or TLS 1.2 fails the handshake; sessions beyond the bound are closed at once and
 *     an idle one is closed after its timeout.
 *
 * Without GnuTLS (Debian libgnutls28-dev) only the pure parsers run.
 */
#define _GNU_SOURCE
#include "lc_test.h"

#define LD_NTSKE_TIMEOUT_MS 1000
#include "../tools/leapclockd/config.c"
#include "../tools/leapclockd/config_listen.c"
#include "../tools/leapclockd/nts_ef.c"
#include "../tools/leapclockd/nts_ke_records.c"
#ifdef LD_HAVE_GNUTLS
#include "../tools/leapclockd/nts.c"
#include "../tools/leapclockd/ntske.c"
#include <gnutls/x509.h>
#endif

#include <arpa/inet.h>
#include <stdarg.h>
#include <sys/stat.h>

void ld_log(int level, const char *fmt, ...)
{
	(void)level;
	if (getenv("LC_TEST_VERBOSE") != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

static size_t rec(uint8_t *p, unsigned type, int crit, const void *body,
                  size_t blen)
{
	unsigned w = type | (crit ? 0x8000u : 0);
	p[0] = (uint8_t)(w >> 8);
	p[1] = (uint8_t)w;
	p[2] = (uint8_t)(blen >> 8);
	p[3] = (uint8_t)blen;
	if (blen > 0)
		memcpy(p + 4, body, blen);
	return 4 + blen;
}

static const uint8_t PROTO0[2] = { 0, 0 }, AEAD15[2] = { 0, 15 };

/* ---------------------------------------------------------------- NTS-KE */

static void test_ke_records(void)
{
	uint8_t b[256], out[2048], ck[100];
	struct ld_ntske_req r;
	struct ld_ntske_answer a;
	size_t n = 0, olen, off;
	unsigned ncookies = 0, port = 0, seen_next = 0, seen_aead = 0;

	n += rec(b + n, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_AEAD, 1, AEAD15, 2);
	/* every prefix is "not yet" */
	for (size_t i = 0; i <= n + 3; i++)
		LC_EQ_INT(ld_ntske_parse(b, i < n ? i : n, &r), 0);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(ld_ntske_parse(b, n, &r), 1);
	LC_EQ_INT(r.error, -1);
	LC_EQ_INT(ld_ntske_agreed(&r), 1);

	memset(&a, 0, sizeof(a));
	memset(ck, 0xab, sizeof(ck));
	for (int i = 0; i < 8; i++)
		a.cookies[i] = ck;
	a.cookie_len = sizeof(ck);
	a.port = 4123;
	olen = ld_ntske_response(&r, &a, out, sizeof(out));
	LC_GT_I64((int64_t)olen, 0);
	for (off = 0; off + 4 <= olen;) {
		unsigned w = (unsigned)(out[off] << 8 | out[off + 1]);
		size_t bl = (size_t)(out[off + 2] << 8 | out[off + 3]);
		unsigned t = w & 0x7fff;
		if (t == LD_NTSKE_NEXT_PROTO) {
			LC_TRUE((w & 0x8000) && bl == 2 && out[off + 5] == 0);
			seen_next++;
		} else if (t == LD_NTSKE_AEAD) {
			LC_TRUE(bl == 2 && out[off + 5] == 15);
			seen_aead++;
		} else if (t == LD_NTSKE_COOKIE) {
			LC_TRUE(!(w & 0x8000) && bl == 100);
			ncookies++;
		} else if (t == LD_NTSKE_PORT) {
			port = (unsigned)(out[off + 4] << 8 | out[off + 5]);
		} else if (t == LD_NTSKE_END) {
			LC_TRUE(w & 0x8000);
			LC_EQ_I64((int64_t)(off + 4), (int64_t)olen);
		}
		off += 4 + bl;
	}
	LC_EQ_INT((int)seen_next, 1);
	LC_EQ_INT((int)seen_aead, 1);
	LC_EQ_INT((int)ncookies, 8);
	LC_EQ_INT((int)port, 4123);
	/* too small a buffer: nothing, not a cut message */
	LC_EQ_I64((int64_t)ld_ntske_response(&r, &a, out, 100), 0);
}

/* the Error code of a one-request answer, or -1 */
static int error_of(const uint8_t *b, size_t n)
{
	struct ld_ntske_req r;
	uint8_t out[64];
	size_t olen;

	if (ld_ntske_parse(b, n, &r) != 1)
		return -2;
	olen = ld_ntske_response(&r, &(struct ld_ntske_answer){ 0 }, out,
	                         sizeof(out));
	if (olen >= 6 && (out[1] & 0x7f) == LD_NTSKE_ERROR && (out[0] & 0x80))
		return out[4] << 8 | out[5];
	return -1;
}

static void test_ke_bad_requests(void)
{
	uint8_t b[256], x[2] = { 0, 7 };
	size_t n;
	struct ld_ntske_req r;
	uint8_t out[64];
	size_t olen;

	/* an unknown critical record: error 0 */
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, 0x4000, 1, x, 2);
	n += rec(b + n, LD_NTSKE_AEAD, 1, AEAD15, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_UNRECOGNIZED);
	/* the same, not critical: ignored */
	b[6 + 0] &= 0x7f;
	LC_EQ_INT(error_of(b, n), -1);
	/* no AEAD record with NTPv4 offered: bad request */
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* Next Protocol twice */
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_AEAD, 1, AEAD15, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* Next Protocol not critical */
	n = rec(b, LD_NTSKE_NEXT_PROTO, 0, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_AEAD, 1, AEAD15, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* no Next Protocol */
	n = rec(b, LD_NTSKE_AEAD, 1, AEAD15, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* a byte after End of Message */
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_AEAD, 1, AEAD15, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	b[n++] = 0;
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* a client's Error record */
	n = rec(b, LD_NTSKE_ERROR, 1, PROTO0, 2);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* an odd Next Protocol body */
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 1);
	LC_EQ_INT(error_of(b, n), LD_NTSKE_ERR_BAD_REQUEST);
	/* a record longer than a request may be */
	b[0] = 0x80, b[1] = 1, b[2] = 0x20, b[3] = 0;
	LC_EQ_INT(error_of(b, 4), LD_NTSKE_ERR_BAD_REQUEST);

	/* NTPv4 not offered: an empty Next Protocol, no AEAD, no cookies */
	x[1] = 1;
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, x, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(ld_ntske_parse(b, n, &r), 1);
	LC_EQ_INT(r.error, -1);
	LC_EQ_INT(ld_ntske_agreed(&r), 0);
	olen = ld_ntske_response(&r, &(struct ld_ntske_answer){ 0 }, out,
	                         sizeof(out));
	LC_EQ_I64((int64_t)olen, 8);
	LC_TRUE(out[1] == LD_NTSKE_NEXT_PROTO && out[3] == 0 && out[5] == 0);
	/* AES-SIV-CMAC-256 not offered: an empty AEAD record, no cookies */
	x[1] = 30;
	n = rec(b, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	n += rec(b + n, LD_NTSKE_AEAD, 1, x, 2);
	n += rec(b + n, LD_NTSKE_END, 1, NULL, 0);
	LC_EQ_INT(ld_ntske_parse(b, n, &r), 1);
	LC_EQ_INT(ld_ntske_agreed(&r), 0);
	olen = ld_ntske_response(&r, &(struct ld_ntske_answer){ 0 }, out,
	                         sizeof(out));
	LC_EQ_I64((int64_t)olen, 6 + 4 + 4);
	LC_TRUE(out[7] == LD_NTSKE_AEAD && out[9] == 0 && out[11] == 0);
}

/* ------------------------------------------------------ extension fields */

static size_t ef(uint8_t *p, unsigned type, const void *body, size_t blen)
{
	return ld_nts_ef_put(p, 2048, type, body, blen);
}

static size_t auth_field(uint8_t *p, size_t nlen, size_t clen)
{
	size_t flen = 4 + 4 + ((nlen + 3) & ~3u) + ((clen + 3) & ~3u);
	memset(p, 0x5c, flen);
	p[0] = 4, p[1] = 4, p[2] = (uint8_t)(flen >> 8), p[3] = (uint8_t)flen;
	p[4] = (uint8_t)(nlen >> 8), p[5] = (uint8_t)nlen;
	p[6] = (uint8_t)(clen >> 8), p[7] = (uint8_t)clen;
	return flen;
}

static void test_ef_parse(void)
{
	uint8_t p[1024] = { 0x23 }, uid[32], ck[100];
	struct ld_nts_ef e;
	size_t n;

	memset(uid, 1, sizeof(uid));
	memset(ck, 2, sizeof(ck));
	n = 48 + ef(p + 48, LD_EF_UNIQUE_ID, uid, 32);
	n += ef(p + n, LD_EF_COOKIE, ck, 100);
	n += ef(p + n, LD_EF_PLACEHOLDER, ck, 100);
	n += auth_field(p + n, 16, 16);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_OK);
	LC_EQ_I64((int64_t)e.uid_off, 52);
	LC_EQ_I64((int64_t)e.cookie_len, 100);
	LC_EQ_INT((int)e.placeholders, 1);
	LC_EQ_I64((int64_t)e.auth_off, 48 + 36 + 104 + 104);
	LC_EQ_I64((int64_t)e.nonce_len, 16);
	LC_EQ_I64((int64_t)e.ct_len, 16);
	/* a field after the authenticator: skipped */
	LC_EQ_INT(ld_nts_ef_parse(p, n + ef(p + n, 0x0900, uid, 12), &e),
	          LD_NTS_EF_OK);
	/* an empty nonce (nettle's SIV would abort), a short one */
	auth_field(p + 48 + 36 + 208, 0, 16);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	auth_field(p + 48 + 36 + 208, 8, 24);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	/* a ciphertext shorter than the tag */
	auth_field(p + 48 + 36 + 208, 16, 12);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	/* lengths that overrun the field */
	auth_field(p + 48 + 36 + 208, 16, 16);
	p[48 + 36 + 208 + 7] = 20;
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	/* two cookies */
	n = 48 + ef(p + 48, LD_EF_UNIQUE_ID, uid, 32);
	n += ef(p + n, LD_EF_COOKIE, ck, 100);
	n += ef(p + n, LD_EF_COOKIE, ck, 100);
	n += auth_field(p + n, 16, 16);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	/* no Unique Identifier; a short one */
	n = 48 + ef(p + 48, LD_EF_COOKIE, ck, 100);
	n += auth_field(p + n, 16, 16);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	n = 48 + ef(p + 48, LD_EF_UNIQUE_ID, uid, 28);
	n += ef(p + n, LD_EF_COOKIE, ck, 100);
	n += auth_field(p + n, 16, 16);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	/* the cookie after the authenticator: not authenticated */
	n = 48 + ef(p + 48, LD_EF_UNIQUE_ID, uid, 32);
	n += auth_field(p + n, 16, 16);
	n += ef(p + n, LD_EF_COOKIE, ck, 100);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_MALFORMED);
	/* a legacy MAC (key id 1, 16 bytes), a bare header: not NTS */
	memset(p + 48, 0, 20);
	p[51] = 1;
	LC_EQ_INT(ld_nts_ef_parse(p, 68, &e), LD_NTS_EF_NONE);
	LC_EQ_INT(ld_nts_ef_parse(p, 48, &e), LD_NTS_EF_NONE);
	/* a field of another kind only: not NTS */
	n = 48 + ef(p + 48, 0x2005, uid, 12);
	LC_EQ_INT(ld_nts_ef_parse(p, n, &e), LD_NTS_EF_NONE);
	/* NTS's first field cut: malformed */
	n = 48 + ef(p + 48, LD_EF_UNIQUE_ID, uid, 32);
	LC_EQ_INT(ld_nts_ef_parse(p, n - 4, &e), LD_NTS_EF_MALFORMED);
}

#ifdef LD_HAVE_GNUTLS
/* ---------------------------------------------------------- with crypto */

static char dir[64];
static char certf[128], keyf[128];
static struct ld_config cfg;

/* A self-signed ECDSA certificate for 127.0.0.1 in dir. 0 or -1. */
static int make_cert(void)
{
	gnutls_x509_privkey_t k;
	gnutls_x509_crt_t c;
	uint8_t ip[4] = { 127, 0, 0, 1 }, serial[8] = { 1 };
	uint8_t buf[8192];
	size_t len;
	FILE *f;
	int ok;

	if (gnutls_x509_privkey_init(&k) < 0)
		return -1;
	if (gnutls_x509_crt_init(&c) < 0)
		return -1;
	ok = gnutls_x509_privkey_generate(k, GNUTLS_PK_ECDSA,
	                                  GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1),
	                                  0) >= 0 &&
	     gnutls_x509_crt_set_version(c, 3) >= 0 &&
	     gnutls_x509_crt_set_serial(c, serial, sizeof(serial)) >= 0 &&
	     gnutls_x509_crt_set_activation_time(c, time(NULL) - 3600) >= 0 &&
	     gnutls_x509_crt_set_expiration_time(c, time(NULL) + 86400) >= 0 &&
	     gnutls_x509_crt_set_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0,
	                                   "localhost", 9) >= 0 &&
	     gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_IPADDRESS, ip, 4,
	                                          GNUTLS_FSAN_SET) >= 0 &&
	     gnutls_x509_crt_set_key(c, k) >= 0 &&
	     gnutls_x509_crt_sign2(c, c, k, GNUTLS_DIG_SHA256, 0) >= 0;
	len = sizeof(buf);
	ok = ok && gnutls_x509_crt_export(c, GNUTLS_X509_FMT_PEM, buf, &len) >= 0 &&
	     (f = fopen(certf, "w")) != NULL;
	if (ok) {
		ok = fwrite(buf, 1, len, f) == len;
		fclose(f);
	}
	len = sizeof(buf);
	ok = ok && gnutls_x509_privkey_export(k, GNUTLS_X509_FMT_PEM, buf, &len) >= 0 &&
	     (f = fopen(keyf, "w")) != NULL;
	if (ok) {
		ok = fwrite(buf, 1, len, f) == len;
		fclose(f);
	}
	gnutls_x509_crt_deinit(c);
	gnutls_x509_privkey_deinit(k);
	return ok ? 0 : -1;
}

static void setup_cfg(const char *keydir)
{
	memset(&cfg, 0, sizeof(cfg));
	ld_config_init(&cfg);
	snprintf(cfg.nts_cert, sizeof(cfg.nts_cert), "%s", certf);
	snprintf(cfg.nts_key, sizeof(cfg.nts_key), "%s", keyf);
	snprintf(cfg.nts_listen, sizeof(cfg.nts_listen), "127.0.0.1:0");
	snprintf(cfg.nts_keydir, sizeof(cfg.nts_keydir), "%s/%s", dir, keydir);
	cfg.nts_ntp_port = 4123;
	cfg.nts_rotate_s = 3600;
}

/* A client's request: header, UID, the cookie, `ph` placeholders of body
 * `phlen`, an authenticator sealed with c2s. Its length. */
static size_t make_request(uint8_t *p, const uint8_t *cookie, size_t clen,
                           const uint8_t *c2s, const uint8_t *uid,
                           unsigned ph, size_t phlen)
{
	uint8_t zeros[512] = { 0 }, nonce[16];
	size_t n = 48, a;

	memset(p, 0, 48);
	p[0] = 0x23; /* v4, client */
	memset(p + 40, 0x77, 8);
	n += ld_nts_ef_put(p + n, 1024 - n, LD_EF_UNIQUE_ID, uid, 32);
	n += ld_nts_ef_put(p + n, 1024 - n, LD_EF_COOKIE, cookie, clen);
	for (unsigned i = 0; i < ph; i++)
		n += ld_nts_ef_put(p + n, 1024 - n, LD_EF_PLACEHOLDER, zeros,
		                   phlen);
	a = n;
	gnutls_rnd(GNUTLS_RND_NONCE, nonce, 16);
	p[n] = 4, p[n + 1] = 4, p[n + 2] = 0, p[n + 3] = 4 + 4 + 16 + 16;
	p[n + 4] = 0, p[n + 5] = 16, p[n + 6] = 0, p[n + 7] = 16;
	memcpy(p + n + 8, nonce, 16);
	if (seal(c2s, 0, nonce, 16, p, a, NULL, 0, p + n + 24) != 0)
		return 0;
	return n + 40;
}

/* Opens an answer with s2c: checks the UID, returns the cookies it holds
 * (copied to cookies[i]) or -1. */
static int open_answer(const uint8_t *r, size_t len, const uint8_t *s2c,
                       const uint8_t *uid, uint8_t cookies[][100])
{
	uint8_t pt[1024];
	size_t off = 48, nl, cl, ct;
	int n = 0;

	if (len < 48 + 36 + 8 || r[off] != 1 || r[off + 1] != 4 ||
	    r[off + 3] != 36 || memcmp(r + off + 4, uid, 32) != 0)
		return -1;
	off += 36;
	if (r[off] != 4 || r[off + 1] != 4 ||
	    (size_t)(r[off + 2] << 8 | r[off + 3]) != len - off)
		return -1;
	nl = (size_t)(r[off + 4] << 8 | r[off + 5]);
	cl = (size_t)(r[off + 6] << 8 | r[off + 7]);
	ct = off + 8 + ((nl + 3) & ~3u);
	if (nl < 16 || ct + cl > len ||
	    open_sealed(s2c, 0, r + off + 8, nl, r, off, r + ct, cl, pt) != 0)
		return -1;
	for (size_t o = 0; o + 4 <= cl - 16;) {
		size_t fl = (size_t)(pt[o + 2] << 8 | pt[o + 3]);
		if (pt[o] != 2 || pt[o + 1] != 4 || fl != 104)
			return -1;
		memcpy(cookies[n++], pt + o + 4, 100);
		o += fl;
	}
	return n;
}

static void test_ntp_side(void)
{
	struct ld_nts *n = NULL;
	struct ld_auth_ctx ctx;
	uint8_t c2s[32], s2c[32], uid[32], cookie[100], got[8][100];
	uint8_t req[1024], out[1024];
	size_t len, olen;
	struct stat st;
	char path[PATH_MAX + 16];
	uint64_t nak0;

	setup_cfg("keys1");
	LC_EQ_INT(ld_nts_new(&n, &cfg), 0);
	LC_TRUE(n != NULL);
	LC_EQ_INT(stat(cfg.nts_keydir, &st), 0);
	LC_EQ_INT((int)(st.st_mode & 0777), 0700);
	snprintf(path, sizeof(path), "%s/ntskeys", cfg.nts_keydir);
	LC_EQ_INT(stat(path, &st), 0);
	LC_EQ_INT((int)(st.st_mode & 0777), 0600);

	gnutls_rnd(GNUTLS_RND_KEY, c2s, 32);
	gnutls_rnd(GNUTLS_RND_KEY, s2c, 32);
	gnutls_rnd(GNUTLS_RND_NONCE, uid, 32);
	LC_EQ_INT(ld_nts_make_cookie(n, c2s, s2c, cookie), 0);

	/* one cookie, three placeholders of a cookie's size: four back, and
	 * the answer exactly as long as the request */
	len = make_request(req, cookie, 100, c2s, uid, 3, 100);
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_OK);
	LC_EQ_INT((int)ctx.cookies, 4);
	memcpy(out, req, 48); /* the server's header would be here */
	olen = ld_nts_finish(n, &ctx, out, 48, len);
	LC_EQ_I64((int64_t)olen, (int64_t)len);
	LC_EQ_INT(open_answer(out, olen, s2c, uid, got), 4);
	/* a returned cookie works, and all four differ */
	LC_TRUE(memcmp(got[0], got[1], 100) != 0 && memcmp(got[2], got[3], 100) != 0);
	len = make_request(req, got[3], 100, c2s, uid, 0, 0);
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_OK);
	LC_EQ_INT((int)ctx.cookies, 1);
	olen = ld_nts_finish(n, &ctx, out, 48, len);
	LC_EQ_I64((int64_t)olen, (int64_t)len);
	LC_EQ_INT(open_answer(out, olen, s2c, uid, got), 1);

	/* placeholders too small: fewer cookies, never a longer answer */
	len = make_request(req, cookie, 100, c2s, uid, 3, 40);
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_OK);
	olen = ld_nts_finish(n, &ctx, out, 48, len);
	LC_LE_I64((int64_t)olen, (int64_t)len);
	LC_EQ_INT(open_answer(out, olen, s2c, uid, got), 2);

	/* any byte of the authenticated part changed: dropped */
	len = make_request(req, cookie, 100, c2s, uid, 1, 100);
	for (size_t i = 0; i < len; i += 7) {
		uint8_t t[1024];
		enum ld_auth_verdict v;
		memcpy(t, req, len);
		t[i] ^= 0x10;
		v = ld_nts_check(n, t, len, &ctx);
		/* the cookie's bytes: NTSN (it no longer opens); lengths
		 * and types: malformed or not NTS; the rest: dropped */
		if (i >= 88 && i < 188 + 4 && v != LD_AUTH_NTSN)
			LC_EQ_INT(v, LD_AUTH_DROP);
		else if (v != LD_AUTH_PLAIN)
			LC_TRUE(v == LD_AUTH_DROP || v == LD_AUTH_NTSN);
		LC_NE_INT(v, LD_AUTH_OK);
	}
	/* a wrong C2S: dropped */
	c2s[0] ^= 1;
	len = make_request(req, cookie, 100, c2s, uid, 0, 0);
	c2s[0] ^= 1;
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_DROP);

	/* an unknown key id: NTSN with the UID only */
	nak0 = n->nak;
	cookie[0] ^= 0x80;
	len = make_request(req, cookie, 100, c2s, uid, 0, 0);
	cookie[0] ^= 0x80;
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_NTSN);
	LC_EQ_I64((int64_t)ctx.s2c_len, 0);
	olen = ld_nts_finish(n, &ctx, out, 48, len);
	LC_EQ_I64((int64_t)olen, 48 + 36);
	LC_TRUE(out[48] == 1 && out[49] == 4 && memcmp(out + 52, uid, 32) == 0);
	/* a forged cookie of a known key: NTSN */
	cookie[50] ^= 1;
	len = make_request(req, cookie, 100, c2s, uid, 0, 0);
	cookie[50] ^= 1;
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_NTSN);
	/* a cookie of another size: NTSN */
	len = make_request(req, cookie, 96, c2s, uid, 0, 0);
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_NTSN);
	LC_EQ_U64(n->nak - nak0, 3);

	/* rotation: the last three keys open, a fourth rotation forgets
	 * the first */
	len = make_request(req, cookie, 100, c2s, uid, 0, 0);
	for (int i = 0; i < 2; i++) {
		rotate(n, (int64_t)time(NULL));
		LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_OK);
	}
	rotate(n, (int64_t)time(NULL));
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_NTSN);
	/* a cookie made now survives a restart on the same directory */
	LC_EQ_INT(ld_nts_make_cookie(n, c2s, s2c, cookie), 0);
	ld_nts_free(n);
	n = NULL;
	LC_EQ_INT(ld_nts_new(&n, &cfg), 0);
	len = make_request(req, cookie, 100, c2s, uid, 0, 0);
	LC_EQ_INT(ld_nts_check(n, req, len, &ctx), LD_AUTH_OK);
	olen = ld_nts_finish(n, &ctx, out, 48, len);
	LC_EQ_INT(open_answer(out, olen, s2c, uid, got), 1);
	LC_EQ_INT(stat(path, &st), 0);
	LC_EQ_INT((int)(st.st_mode & 0777), 0600);
	ld_nts_free(n);
	n = NULL;
	/* a key file others can read is refused */
	LC_EQ_INT(chmod(path, 0644), 0);
	LC_EQ_INT(ld_nts_new(&n, &cfg), -1);
	LC_TRUE(n == NULL);
	/* a key directory others can write in is refused */
	LC_EQ_INT(chmod(path, 0600), 0);
	LC_EQ_INT(chmod(cfg.nts_keydir, 0777), 0);
	LC_EQ_INT(ld_nts_new(&n, &cfg), -1);
	LC_EQ_INT(chmod(cfg.nts_keydir, 0700), 0);
	/* a key file that is not ours is refused */
	{
		FILE *f = fopen(path, "w");
		LC_TRUE(f != NULL);
		fputs("not keys\n", f);
		fclose(f);
		LC_EQ_INT(ld_nts_new(&n, &cfg), -1);
	}
}

/* ---- four threads check and answer while keys rotate ---- */

static struct ld_nts *shared;
static atomic_int bad_verdicts, answered;

static void *worker(void *arg)
{
	uint8_t c2s[32], s2c[32], uid[32], cookie[100], got[8][100];
	uint8_t req[1024], out[1024];
	struct ld_auth_ctx ctx;
	(void)arg;

	for (int i = 0; i < 400; i++) {
		size_t len, olen;
		enum ld_auth_verdict v;

		gnutls_rnd(GNUTLS_RND_NONCE, c2s, 32);
		gnutls_rnd(GNUTLS_RND_NONCE, s2c, 32);
		gnutls_rnd(GNUTLS_RND_NONCE, uid, 32);
		if (ld_nts_make_cookie(shared, c2s, s2c, cookie) != 0) {
			bad_verdicts++;
			continue;
		}
		len = make_request(req, cookie, 100, c2s, uid, 1, 100);
		v = ld_nts_check(shared, req, len, &ctx);
		if (v == LD_AUTH_NTSN)
			continue; /* rotated three times in between: fair */
		if (v != LD_AUTH_OK) {
			bad_verdicts++;
			continue;
		}
		memcpy(out, req, 48);
		olen = ld_nts_finish(shared, &ctx, out, 48, len);
		if (olen != len || open_answer(out, olen, s2c, uid, got) != 2)
			bad_verdicts++;
		else
			answered++;
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[4];

	setup_cfg("keys2");
	LC_EQ_INT(ld_nts_new(&shared, &cfg), 0);
	for (int i = 0; i < 4; i++)
		LC_EQ_INT(pthread_create(&t[i], NULL, worker, NULL), 0);
	for (int i = 0; i < 30; i++) {
		rotate(shared, (int64_t)time(NULL));
		usleep(2000);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	LC_EQ_INT(atomic_load(&bad_verdicts), 0);
	LC_GT_I64(atomic_load(&answered), 1000);
	ld_nts_free(shared);
}

/* ---- NTS-KE over TLS ---- */

static int ke_port;

/* a connection to the NTS-KE port from 127.0.0.`host` */
static int tcp_connect_from(int host)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, b = a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)ke_port);
	b.sin_addr.s_addr = htonl(0x7f000000u | (unsigned)host);
	if (fd >= 0 && (bind(fd, (struct sockaddr *)&b, sizeof(b)) != 0 ||
	                connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tcp_connect(void)
{
	return tcp_connect_from(1);
}

/* ms until the server closes fd (reading nothing), up to 3 s; -1 if it
 * sent something, 3000+ if it did not close */
static int64_t ms_to_close(int fd, int limit_ms)
{
	struct timeval tv = { limit_ms / 1000, (limit_ms % 1000) * 1000 };
	struct timespec a, b;
	char c;
	ssize_t r;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	clock_gettime(CLOCK_MONOTONIC, &a);
	r = read(fd, &c, 1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (r > 0)
		return -1;
	if (r < 0)
		return 100000;
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/* One NTS-KE exchange: request req[0..rlen) with ALPN `alpn`; the answer
 * into ans (its length, or -1 if the handshake failed); C2S and S2C
 * exported by the client into c2s, s2c. */
static const char *client_prio = "NORMAL:-VERS-ALL:+VERS-TLS1.3";

static int ke_exchange(const char *alpn, const uint8_t *req, size_t rlen,
                       uint8_t *ans, size_t max, uint8_t *c2s, uint8_t *s2c)
{
	gnutls_certificate_credentials_t cred;
	gnutls_session_t s;
	gnutls_datum_t proto = { (unsigned char *)alpn, (unsigned)strlen(alpn) };
	uint8_t ctx[5] = { 0, 0, 0, 15, 0 };
	size_t got = 0;
	int fd = tcp_connect(), r;

	if (fd < 0)
		return -1;
	gnutls_certificate_allocate_credentials(&cred);
	gnutls_init(&s, GNUTLS_CLIENT);
	gnutls_priority_set_direct(s, client_prio, NULL);
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_alpn_set_protocols(s, &proto, 1, 0);
	gnutls_transport_set_int(s, fd);
	gnutls_handshake_set_timeout(s, 3000);
	do {
		r = gnutls_handshake(s);
	} while (r < 0 && !gnutls_error_is_fatal(r));
	if (r < 0) {
		got = (size_t)-1;
		goto out;
	}
	gnutls_prf_rfc5705(s, 30, "EXPORTER-network-time-security", 5,
	                   (const char *)ctx, 32, (char *)c2s);
	ctx[4] = 1;
	gnutls_prf_rfc5705(s, 30, "EXPORTER-network-time-security", 5,
	                   (const char *)ctx, 32, (char *)s2c);
	gnutls_record_send(s, req, rlen);
	for (;;) {
		ssize_t n = gnutls_record_recv(s, ans + got, max - got);
		if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
out:
	gnutls_deinit(s);
	gnutls_certificate_free_credentials(cred);
	close(fd);
	return (int)got;
}

static void test_ke_tls(void)
{
	struct ld_nts *n = NULL;
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	uint8_t req[64], ans[4096], c2s[32], s2c[32], uid[32], cookies[8][100];
	uint8_t p[1024], out[1024], got[8][100], x[2] = { 0x12, 0x34 };
	struct ld_auth_ctx ctx;
	size_t rl, len, olen;
	int al2, nc = 0, port = 0, err = -1, fds[LD_NTSKE_MAX_SESSIONS + 1];
	int64_t t0;

	setup_cfg("keys3");
	LC_EQ_INT(ld_nts_new(&n, &cfg), 0);
	LC_EQ_INT(getsockname(n->ke->lfd, (struct sockaddr *)&a, &al), 0);
	ke_port = ntohs(a.sin_port);
	LC_EQ_INT(ld_nts_start(n), 0);

	rl = rec(req, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	rl += rec(req + rl, LD_NTSKE_AEAD, 1, AEAD15, 2);
	rl += rec(req + rl, LD_NTSKE_END, 1, NULL, 0);
	al2 = ke_exchange("ntske/1", req, rl, ans, sizeof(ans), c2s, s2c);
	LC_GT_I64(al2, 0);
	for (size_t off = 0; off + 4 <= (size_t)al2;) {
		unsigned t = ans[off] & 0x7f;
		t = t << 8 | ans[off + 1];
		size_t bl = (size_t)(ans[off + 2] << 8 | ans[off + 3]);
		if (t == LD_NTSKE_COOKIE && bl == 100 && nc < 8)
			memcpy(cookies[nc++], ans + off + 4, 100);
		if (t == LD_NTSKE_PORT)
			port = ans[off + 4] << 8 | ans[off + 5];
		if (t == LD_NTSKE_ERROR)
			err = ans[off + 4] << 8 | ans[off + 5];
		off += 4 + bl;
	}
	LC_EQ_INT(err, -1);
	LC_EQ_INT(nc, 8);
	LC_EQ_INT(port, 4123);
	/* the keys both sides exported agree: the server opens a request
	 * sealed with the client's C2S, the client opens the answer with
	 * its S2C */
	gnutls_rnd(GNUTLS_RND_NONCE, uid, 32);
	len = make_request(p, cookies[5], 100, c2s, uid, 0, 0);
	LC_EQ_INT(ld_nts_check(n, p, len, &ctx), LD_AUTH_OK);
	memcpy(out, p, 48);
	olen = ld_nts_finish(n, &ctx, out, 48, len);
	LC_EQ_INT(open_answer(out, olen, s2c, uid, got), 1);

	/* an unknown critical record: an Error record (code 0) */
	rl = rec(req, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	rl += rec(req + rl, 0x1234, 1, x, 2);
	rl += rec(req + rl, LD_NTSKE_AEAD, 1, AEAD15, 2);
	rl += rec(req + rl, LD_NTSKE_END, 1, NULL, 0);
	al2 = ke_exchange("ntske/1", req, rl, ans, sizeof(ans), c2s, s2c);
	LC_EQ_INT(al2, 10);
	LC_TRUE(ans[0] == 0x80 && ans[1] == LD_NTSKE_ERROR && ans[5] == 0);

	/* another ALPN: no handshake */
	LC_EQ_INT(ke_exchange("http/1.1", req, rl, ans, sizeof(ans), c2s, s2c),
	          -1);
	LC_GE_I64((int64_t)n->ke->failures, 2);
	/* TLS 1.2: no handshake (RFC 8915 3: TLS 1.3 or later) */
	client_prio = "NORMAL:-VERS-ALL:+VERS-TLS1.2";
	LC_EQ_INT(ke_exchange("ntske/1", req, rl, ans, sizeof(ans), c2s, s2c),
	          -1);
	client_prio = "NORMAL:-VERS-ALL:+VERS-TLS1.3";

	/* the bounds: LD_NTSKE_MAX_PER_CLIENT idle connections from
	 * 127.0.0.1, the next from there is closed at once, one from
	 * 127.0.0.2 is not; with every slot held (four addresses), one from
	 * a fifth gets in, the oldest idle one of the fullest address
	 * (fds[0]) closed at once for it (issue 28 item 11); the idle ones
	 * are closed after the timeout (LD_NTSKE_TIMEOUT_MS, 1 s here) */
	for (int i = 0; i < LD_NTSKE_MAX_SESSIONS; i++) {
		fds[i] = tcp_connect_from(1 + i / LD_NTSKE_MAX_PER_CLIENT);
		LC_GE_I64(fds[i], 0);
		if (i == LD_NTSKE_MAX_PER_CLIENT - 1) {
			int extra = tcp_connect_from(1);
			usleep(100000);
			LC_LT_I64(ms_to_close(extra, 300), 300);
			close(extra);
		}
		if (i == LD_NTSKE_MAX_PER_CLIENT)
			/* 127.0.0.2's first: kept */
			LC_EQ_I64(ms_to_close(fds[i], 200), 100000);
	}
	usleep(100000);
	fds[LD_NTSKE_MAX_SESSIONS] = tcp_connect_from(9);
	LC_LT_I64(ms_to_close(fds[0], 500), 500);
	LC_EQ_I64(ms_to_close(fds[LD_NTSKE_MAX_SESSIONS], 100), 100000);
	t0 = ms_to_close(fds[1], 3000);
	LC_GE_I64(t0, 20);
	LC_LT_I64(t0, 1500);
	for (int i = 0; i <= LD_NTSKE_MAX_SESSIONS; i++)
		close(fds[i]);
	/* after the timeouts the sessions are free again */
	usleep(1500000);
	rl = rec(req, LD_NTSKE_NEXT_PROTO, 1, PROTO0, 2);
	rl += rec(req + rl, LD_NTSKE_AEAD, 1, AEAD15, 2);
	rl += rec(req + rl, LD_NTSKE_END, 1, NULL, 0);
	LC_GT_I64(ke_exchange("ntske/1", req, rl, ans, sizeof(ans), c2s, s2c), 400);
	LC_GE_I64((int64_t)n->ke->handshakes, 2);
	ld_nts_free(n);

	/* an IPv6 NTS-KE address; a bad one is refused */
	n = NULL;
	snprintf(cfg.nts_listen, sizeof(cfg.nts_listen), "[::1]:0");
	if (ld_nts_new(&n, &cfg) == 0) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		LC_EQ_INT(getsockname(n->ke->lfd, (struct sockaddr *)&ss, &sl), 0);
		LC_EQ_INT(ss.ss_family, AF_INET6);
		ld_nts_free(n);
	} else {
		printf("  (no IPv6 loopback here: [::1] not checked)\n");
	}
	n = NULL;
	snprintf(cfg.nts_listen, sizeof(cfg.nts_listen), "localhost:4460");
	LC_EQ_INT(ld_nts_new(&n, &cfg), -1);
	LC_TRUE(n == NULL);
}
#endif

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_ke_records, "NTS-KE: a good request, its answer (8 cookies, port, End)");
	LC_RUN(test_ke_bad_requests, "NTS-KE: bad requests get the right Error; empty negotiation");
	LC_RUN(test_ef_parse, "NTP extension fields: found, or refused when wrong");
#ifdef LD_HAVE_GNUTLS
	snprintf(dir, sizeof(dir), "/tmp/lc-test-nts.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(certf, sizeof(certf), "%s/cert.pem", dir);
	snprintf(keyf, sizeof(keyf), "%s/key.pem", dir);
	if (make_cert() != 0) {
		printf("FAIL cannot make a certificate\n");
		return 1;
	}
	LC_RUN(test_ntp_side, "NTP side: answers, NTSN, tampering, rotation, restart, file modes");
	LC_RUN(test_threads, "four threads check and answer while keys rotate");
	LC_RUN(test_ke_tls, "NTS-KE over TLS 1.3: cookies that work, Error, ALPN, session bound");
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("could not remove %s\n", dir);
	}
#else
	LC_SKIP("NTS crypto, NTS-KE over TLS",
	        "built without GnuTLS (Debian package libgnutls28-dev)");
#endif
	return lc_test_done();
}
