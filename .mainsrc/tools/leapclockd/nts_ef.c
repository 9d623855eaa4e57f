/*
 * nts_ef.c - finds the NTS extension fields of a request (nts_ef.h).
 */
#include "nts_ef.h"

#include <string.h>

#define HEADER 48

static size_t ef_get16(const uint8_t *p)
{
	return (size_t)p[0] << 8 | p[1];
}

static size_t ef_pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* walks the fields of buf[0..len); 1 if they tile it exactly */
static int ef_well_formed(const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		size_t flen;

		if (len - off < 4)
			return 0;
		flen = ef_get16(buf + off + 2);
		if (flen < 4 || flen % 4 != 0 || flen > len - off)
			return 0;
		off += flen;
	}
	return 1;
}

enum ld_nts_ef_verdict ld_nts_ef_parse(const uint8_t *pkt, size_t len,
                                       struct ld_nts_ef *ef)
{
	size_t off = HEADER;
	unsigned uids = 0, cookies = 0, auths = 0, nts = 0;

	memset(ef, 0, sizeof(*ef));
	if (len <= HEADER)
		return LD_NTS_EF_NONE;
	if (!ef_well_formed(pkt + HEADER, len - HEADER)) {
		/* a legacy MAC, or garbage: NTS only if it starts with an
		 * NTS field (a key id of 0x01040000... is not a real one) */
		unsigned t = len - HEADER >= 4 ? (unsigned)ef_get16(pkt + HEADER) : 0;

		return t == LD_EF_UNIQUE_ID || t == LD_EF_COOKIE ||
		                       t == LD_EF_PLACEHOLDER ||
		                       t == LD_EF_AUTHENTICATOR
		               ? LD_NTS_EF_MALFORMED
		               : LD_NTS_EF_NONE;
	}
	while (off < len) {
		unsigned type = (unsigned)ef_get16(pkt + off);
		size_t flen = ef_get16(pkt + off + 2), blen = flen - 4;
		size_t body = off + 4;

		switch (type) {
		case LD_EF_UNIQUE_ID:
			nts++;
			if (auths == 0) {
				uids++;
				ef->uid_off = body;
				ef->uid_len = blen;
			}
			break;
		case LD_EF_COOKIE:
			nts++;
			if (auths == 0) {
				cookies++;
				ef->cookie_off = body;
				ef->cookie_len = blen;
			}
			break;
		case LD_EF_PLACEHOLDER:
			nts++;
			if (auths == 0) {
				if (ef->placeholders == 0 ||
				    blen < ef->placeholder_min)
					ef->placeholder_min = blen;
				ef->placeholders++;
			}
			break;
		case LD_EF_AUTHENTICATOR:
			nts++;
			if (auths++ == 0) {
				size_t nl, cl;

				if (blen < 4)
					return LD_NTS_EF_MALFORMED;
				nl = ef_get16(pkt + body);
				cl = ef_get16(pkt + body + 2);
				if (nl < LD_NTS_NONCE_MIN || cl < 16 ||
				    4 + ef_pad4(nl) + ef_pad4(cl) > blen)
					return LD_NTS_EF_MALFORMED;
				ef->auth_off = off;
				ef->nonce_off = body + 4;
				ef->nonce_len = nl;
				ef->ct_off = body + 4 + ef_pad4(nl);
				ef->ct_len = cl;
			}
			break;
		default:
			break;
		}
		off += flen;
	}
	if (nts == 0)
		return LD_NTS_EF_NONE;
	if (uids != 1 || cookies != 1 || auths != 1 ||
	    ef->uid_len < LD_NTS_UID_MIN || ef->uid_len > 64)
		return LD_NTS_EF_MALFORMED;
	return LD_NTS_EF_OK;
}

int ld_nts_ef_placeholders(const uint8_t *buf, size_t len, size_t *min_len)
{
	size_t off = 0;
	int n = 0;

	if (!ef_well_formed(buf, len))
		return -1;
	while (off < len) {
		size_t flen = ef_get16(buf + off + 2);

		if (ef_get16(buf + off) == LD_EF_PLACEHOLDER) {
			if (n == 0 || flen - 4 < *min_len)
				*min_len = flen - 4;
			n++;
		}
		off += flen;
	}
	return n;
}

size_t ld_nts_ef_put(uint8_t *out, size_t max, unsigned type,
                     const void *body, size_t blen)
{
	size_t flen = 4 + ef_pad4(blen);

	if (flen > 0xffff || flen > max)
		return 0;
	out[0] = (uint8_t)(type >> 8);
	out[1] = (uint8_t)type;
	out[2] = (uint8_t)(flen >> 8);
	out[3] = (uint8_t)flen;
	if (blen > 0)
		memcpy(out + 4, body, blen);
	memset(out + 4 + blen, 0, flen - 4 - blen);
	return flen;
}
