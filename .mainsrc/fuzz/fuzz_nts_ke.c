/*
 * fuzz_nts_ke.c - leapclockd's NTS-KE record parser and response builder
 * (tools/leapclockd/nts_ke_records.c) on arbitrary requests. Besides
 * "never crash, never read past the end", checks what the server relies
 * on: a request is "not yet complete" only while it is shorter than the
 * limit and every prefix of a complete one is not complete; the answer is
 * a sequence of records that ends with a critical End of Message, carries
 * cookies only when NTPv4 and AES-SIV-CMAC-256 were agreed, and an Error
 * record exactly when the request was bad.
 */
#include "nts_ke_records.c"

#include <stdlib.h>

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c))                                                \
			abort();                                         \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t cookie[100] = { 1, 2, 3 };
	struct ld_ntske_req r, rp;
	struct ld_ntske_answer a = { .cookie_len = sizeof(cookie), .port = 123 };
	uint8_t out[2048];
	size_t olen, off = 0;
	int done = ld_ntske_parse(data, size, &r), cookies = 0, errors = 0;
	int end = 0;

	CHECK(done == 0 || done == 1);
	if (done == 0) {
		CHECK(size < LD_NTSKE_MAX_REQUEST);
		return 0;
	}
	/* a complete request is not complete one byte earlier, unless it
	 * was refused before its end */
	if (r.error < 0 && size > 0)
		CHECK(ld_ntske_parse(data, size - 1, &rp) == 0 || rp.error >= 0);
	for (int i = 0; i < LD_NTSKE_COOKIES; i++)
		a.cookies[i] = cookie;
	olen = ld_ntske_response(&r, &a, out, sizeof(out));
	CHECK(olen >= 8);
	while (off < olen) {
		unsigned w, t;
		size_t bl;

		CHECK(olen - off >= 4 && !end);
		w = (unsigned)(out[off] << 8 | out[off + 1]);
		bl = (size_t)(out[off + 2] << 8 | out[off + 3]);
		t = w & 0x7fff;
		CHECK(off + 4 + bl <= olen);
		if (t == LD_NTSKE_COOKIE)
			cookies++;
		if (t == LD_NTSKE_ERROR)
			errors++;
		if (t == LD_NTSKE_END) {
			CHECK((w & 0x8000) && bl == 0);
			end = 1;
		}
		off += 4 + bl;
	}
	CHECK(end);
	CHECK(errors == (r.error >= 0));
	CHECK(cookies == (ld_ntske_agreed(&r) ? LD_NTSKE_COOKIES : 0));
	return 0;
}
