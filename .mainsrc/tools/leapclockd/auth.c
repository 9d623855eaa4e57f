/*
 * auth.c - dispatches a request to NTS or to the symmetric keys (auth.h).
 */
#include "auth.h"

#include "keys.h"
#include "leapclockd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct ld_auth {
	struct ld_keys *keys;
	struct ld_nts *nts;
	_Atomic uint64_t key_ok, key_fail, nts_ok, nts_fail;
};

int ld_auth_new(struct ld_auth **out, const struct ld_config *cfg)
{
	struct ld_auth *a;

	*out = NULL;
	if (cfg->keyfile[0] == '\0' && cfg->nts_cert[0] == '\0')
		return 0;
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		ld_log(LD_LOG_ERR, "out of memory");
		return -1;
	}
	if (ld_keys_new(&a->keys, cfg) != 0 || ld_nts_new(&a->nts, cfg) != 0) {
		ld_auth_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

int ld_auth_check_config(const struct ld_config *cfg)
{
	struct ld_keys *k = NULL;
	int rc = 0;

	if (ld_keys_new(&k, cfg) != 0)
		rc = -1;
	ld_keys_free(k);
	if (ld_nts_check_config(cfg) != 0)
		rc = -1;
	return rc;
}

void ld_auth_free(struct ld_auth *a)
{
	if (a == NULL)
		return;
	ld_keys_free(a->keys);
	ld_nts_free(a->nts);
	free(a);
}

int ld_auth_reload(struct ld_auth *a)
{
	int rk, rn;

	if (a == NULL)
		return 0;
	rk = ld_keys_reload(a->keys);
	rn = ld_nts_reload(a->nts);
	return rk != 0 || rn != 0 ? -1 : 0;
}

int ld_auth_start(struct ld_auth *a)
{
	return a == NULL ? 0 : ld_nts_start(a->nts);
}

enum ld_auth_verdict ld_auth_check(struct ld_auth *a, const uint8_t *req,
                                   size_t len, struct ld_auth_ctx *ctx)
{
	enum ld_auth_verdict v;

	memset(ctx, 0, sizeof(*ctx));
	ctx->req_len = len;
	if (a == NULL || len <= LD_NTP_HEADER_LEN)
		return LD_AUTH_PLAIN;
	v = ld_nts_check(a->nts, req, len, ctx);
	if (v != LD_AUTH_PLAIN) {
		if (v == LD_AUTH_OK)
			a->nts_ok++;
		else
			a->nts_fail++;
		return v;
	}
	v = ld_keys_check(a->keys, req, len, ctx);
	if (v == LD_AUTH_OK)
		a->key_ok++;
	else if (v != LD_AUTH_PLAIN)
		a->key_fail++;
	return v;
}

size_t ld_auth_finish(struct ld_auth *a, const struct ld_auth_ctx *ctx,
                      uint8_t *out, size_t len, size_t max)
{
	if (max > ctx->req_len)
		max = ctx->req_len;
	if (a == NULL || ctx->kind == LD_AUTH_NONE)
		return len <= max ? len : 0;
	if (ctx->kind == LD_AUTH_NTS)
		return ld_nts_finish(a->nts, ctx, out, len, max);
	return ld_keys_finish(a->keys, ctx, out, len, max);
}

void ld_auth_counters(const struct ld_auth *a, struct ld_auth_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (a == NULL)
		return;
	ld_nts_counters(a->nts, c);
	c->key_ok = a->key_ok;
	c->key_fail = a->key_fail;
	c->nts_ok = a->nts_ok;
	c->nts_fail = a->nts_fail;
	if (a->keys != NULL)
		ld_keys_counters(a->keys, c);
}
