/*
 * fuzz_keyfile.c - libFuzzer target for leapclockd's key file parser
 * (tools/leapclockd/keys.c, chrony's format). Besides "never crash":
 *
 *  - a parse that succeeds gives keys sorted by strictly increasing id,
 *    no id 0, secrets of 1..LD_KEY_MAX bytes, AES128/AES256 keys of
 *    exactly 16/32 bytes, known types, and line numbers inside the file;
 *  - a parse that fails gives no set and a message that names the file
 *    (and, for a line's error, "NAME:LINE:" with a line inside the file);
 *  - the same bytes taken as a request are walked for a MAC the way the
 *    server does (extension fields, NTPv3/v4 MAC lengths) against the set
 *    parsed (or an empty one): the verdict is one of plain/OK/drop, and
 *    without GnuTLS in the fuzz build never OK.
 * Any violation aborts, which libFuzzer reports as a crash.
 */
#include "keys.c"

#include <stdlib.h>

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c))                                                \
			abort();                                         \
	} while (0)

void ld_log(int level, const char *fmt, ...)
{
	(void)level, (void)fmt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ld_keyset empty;
	struct ld_keyset *s = NULL;
	struct ld_auth_ctx ctx;
	char err[512];
	unsigned lines = 1;
	int rc, v;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	rc = ld_keyset_parse("kf", (const char *)data, size, &s, err,
	                     sizeof(err));
	if (rc == 0) {
		CHECK(s != NULL);
		for (size_t i = 0; i < s->n; i++) {
			const struct ld_key *k = &s->key[i];

			CHECK(k->id != 0);
			CHECK(i == 0 || s->key[i - 1].id < k->id);
			CHECK(k->len >= 1 && k->len <= LD_KEY_MAX);
			CHECK((unsigned)k->type < LD_KEY_NTYPES);
			CHECK(k->type != LD_KEY_AES128 || k->len == 16);
			CHECK(k->type != LD_KEY_AES256 || k->len == 32);
			CHECK(k->line >= 1 && k->line <= lines);
			CHECK(ld_keyset_find(s, k->id) == k);
		}
	} else {
		unsigned line = 0;

		CHECK(rc == -1 && s == NULL);
		CHECK(strncmp(err, "kf:", 3) == 0);
		if (sscanf(err, "kf:%u:", &line) == 1)
			CHECK(line >= 1 && line <= lines);
	}

	memset(&ctx, 0, sizeof(ctx));
	if (size > LD_NTP_HEADER_LEN && size <= LD_NTP_MAX_PACKET &&
	    size % 4 == 0) {
		int unknown = 0;

		v = check(s != NULL ? s : &empty, data, size, &ctx, &unknown);
		CHECK(v == LD_AUTH_PLAIN || v == LD_AUTH_OK || v == LD_AUTH_DROP);
#ifndef LD_HAVE_GNUTLS
		CHECK(v != LD_AUTH_OK);
#endif
		CHECK(v != LD_AUTH_OK || ctx.kind == LD_AUTH_KEY);
	}
	ld_keyset_free(s);
	return 0;
}
