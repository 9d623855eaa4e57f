/*
 * nts_ke_records.c - NTS-KE records, the server's side (nts_ke_records.h).
 */
#include "nts_ke_records.h"

#include <string.h>

static unsigned ke_get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static int ke_bad(struct ld_ntske_req *r, int code)
{
	r->error = code;
	return 1;
}

int ld_ntske_parse(const uint8_t *buf, size_t len, struct ld_ntske_req *r)
{
	size_t off = 0;
	int have_next = 0, have_aead = 0;

	memset(r, 0, sizeof(*r));
	r->error = -1;
	while (off + 4 <= len) {
		unsigned w = ke_get16(buf + off), blen = ke_get16(buf + off + 2);
		unsigned type = w & 0x7fffu, crit = (w & LD_NTSKE_CRITICAL) != 0;
		const uint8_t *body = buf + off + 4;

		if (off + 4 + blen > LD_NTSKE_MAX_REQUEST)
			return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
		if (off + 4 + blen > len)
			return 0;
		off += 4 + (size_t)blen;
		r->records++;
		switch (type) {
		case LD_NTSKE_END:
			if (blen != 0 || !crit || off != len)
				return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
			/* RFC 8915 4.1.2: exactly one Next Protocol; 4.1.5:
			 * an AEAD record when NTPv4 is offered */
			if (!have_next || (r->ntpv4 && !have_aead))
				return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
			return 1;
		case LD_NTSKE_NEXT_PROTO:
			if (have_next || !crit || blen % 2 != 0)
				return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
			have_next = 1;
			for (unsigned i = 0; i < blen; i += 2)
				if (ke_get16(body + i) == LD_NTS_PROTO_NTPV4)
					r->ntpv4 = 1;
			break;
		case LD_NTSKE_AEAD:
			if (have_aead || blen % 2 != 0)
				return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
			have_aead = 1;
			for (unsigned i = 0; i < blen; i += 2)
				if (ke_get16(body + i) == LD_NTS_AEAD_AES_SIV_CMAC_256)
					r->aead_ok = 1;
			break;
		case LD_NTSKE_ERROR:
		case LD_NTSKE_WARNING:
			/* only a server sends these */
			return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
		case LD_NTSKE_COOKIE:
			/* a client has no use sending cookies: ignored */
			break;
		case LD_NTSKE_SERVER:
			if (r->server_asked || blen == 0)
				return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
			r->server_asked = 1;
			break;
		case LD_NTSKE_PORT:
			if (r->port_asked || blen != 2)
				return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
			r->port_asked = 1;
			r->port = (uint16_t)ke_get16(body);
			break;
		default:
			/* RFC 8915 4.1: an unknown record is ignored unless
			 * critical */
			if (crit)
				return ke_bad(r, LD_NTSKE_ERR_UNRECOGNIZED);
			break;
		}
	}
	if (len >= LD_NTSKE_MAX_REQUEST)
		return ke_bad(r, LD_NTSKE_ERR_BAD_REQUEST);
	return 0;
}

int ld_ntske_agreed(const struct ld_ntske_req *r)
{
	return r->error < 0 && r->ntpv4 && r->aead_ok;
}

/* appends one record; 0 when it does not fit */
static int ke_put(uint8_t *out, size_t max, size_t *off, unsigned type,
               int crit, const void *body, size_t blen)
{
	unsigned w = type | (crit ? LD_NTSKE_CRITICAL : 0);

	if (blen > 0xffff || *off + 4 + blen > max)
		return 0;
	out[*off] = (uint8_t)(w >> 8);
	out[*off + 1] = (uint8_t)w;
	out[*off + 2] = (uint8_t)(blen >> 8);
	out[*off + 3] = (uint8_t)blen;
	if (blen > 0)
		memcpy(out + *off + 4, body, blen);
	*off += 4 + blen;
	return 1;
}

size_t ld_ntske_response(const struct ld_ntske_req *r,
                         const struct ld_ntske_answer *a, uint8_t *out,
                         size_t max)
{
	static const uint8_t ntpv4[2] = { 0, LD_NTS_PROTO_NTPV4 };
	static const uint8_t siv[2] = { 0, LD_NTS_AEAD_AES_SIV_CMAC_256 };
	size_t off = 0;
	int ok = 1;

	if (r->error >= 0) {
		uint8_t code[2] = { (uint8_t)(r->error >> 8), (uint8_t)r->error };

		ok = ke_put(out, max, &off, LD_NTSKE_ERROR, 1, code, 2);
	} else {
		/* RFC 8915 4.1.2, 4.1.5: an empty record when nothing offered
		 * is supported, and then no cookies */
		ok = ke_put(out, max, &off, LD_NTSKE_NEXT_PROTO, 1, ntpv4,
		         r->ntpv4 ? 2 : 0);
		if (ok && r->ntpv4)
			ok = ke_put(out, max, &off, LD_NTSKE_AEAD, 1, siv,
			         r->aead_ok ? 2 : 0);
		if (ok && ld_ntske_agreed(r)) {
			if (a->server != NULL)
				ok = ke_put(out, max, &off, LD_NTSKE_SERVER, 1,
				         a->server, strlen(a->server));
			if (ok && a->port != 0) {
				uint8_t p[2] = { (uint8_t)(a->port >> 8),
					         (uint8_t)a->port };

				ok = ke_put(out, max, &off, LD_NTSKE_PORT, 1, p, 2);
			}
			for (int i = 0; ok && i < LD_NTSKE_COOKIES; i++)
				if (a->cookies[i] != NULL)
					ok = ke_put(out, max, &off, LD_NTSKE_COOKIE,
					         0, a->cookies[i],
					         a->cookie_len);
		}
	}
	if (ok)
		ok = ke_put(out, max, &off, LD_NTSKE_END, 1, NULL, 0);
	return ok ? off : 0;
}
