/*
 * fuzz_nts_ef.c - leapclockd's NTS extension-field parser
 * (tools/leapclockd/nts_ef.c) on arbitrary NTP requests. Besides "never
 * crash, never read past the end", checks what nts.c relies on before it
 * hands bytes to AES-SIV: for an NTS request, the Unique Identifier (32 to
 * 64 bytes) and the cookie lie before the authenticator, the nonce (16
 * bytes at least: nettle aborts on an empty one) and the ciphertext (the
 * 16-byte tag at least) inside it, all inside the packet; the placeholder
 * counter agrees with itself on the same bytes.
 */
#include "nts_ef.c"

#include <stdlib.h>

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c))                                                \
			abort();                                         \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ld_nts_ef e;
	enum ld_nts_ef_verdict v = ld_nts_ef_parse(data, size, &e);
	size_t m1 = 0, m2 = 0;
	uint8_t out[64];

	CHECK(v == LD_NTS_EF_NONE || v == LD_NTS_EF_OK || v == LD_NTS_EF_MALFORMED);
	if (v == LD_NTS_EF_OK) {
		CHECK(size > 48);
		CHECK(e.uid_off >= 52 && e.uid_len >= 32 && e.uid_len <= 64);
		CHECK(e.uid_off + e.uid_len <= e.auth_off);
		CHECK(e.cookie_off >= 52 && e.cookie_off + e.cookie_len <= e.auth_off);
		CHECK(e.nonce_off == e.auth_off + 8 && e.nonce_len >= 16);
		CHECK(e.ct_off >= e.nonce_off + e.nonce_len && e.ct_len >= 16);
		CHECK(e.ct_off + e.ct_len <= size);
	}
	if (size > 48) {
		int a = ld_nts_ef_placeholders(data + 48, size - 48, &m1);
		int b = ld_nts_ef_placeholders(data + 48, size - 48, &m2);
		CHECK(a == b && (a <= 0 || m1 == m2));
	}
	/* a field written is read back as one */
	if (size >= 2) {
		size_t blen = data[0] % 40, w;
		w = ld_nts_ef_put(out, sizeof(out), LD_EF_COOKIE, data,
		                  blen < size ? blen : size);
		CHECK(w % 4 == 0 && w >= 4 && w <= sizeof(out));
		CHECK(ld_nts_ef_placeholders(out, w, &m1) == 0);
	}
	return 0;
}
