/*
 * keys.c - symmetric-key authentication (RFC 8573, legacy digests) with
 * chrony's key file. Not built yet: a key file is refused.
 */
#include "auth.h"

#include "leapclockd.h"

int ld_keys_new(struct ld_keys **out, const struct ld_config *cfg)
{
	*out = NULL;
	if (cfg->keyfile[0] == '\0')
		return 0;
	ld_log(LD_LOG_ERR, "keyfile %s: symmetric keys are not supported yet",
	       cfg->keyfile);
	return -1;
}

void ld_keys_free(struct ld_keys *k)
{
	(void)k;
}

int ld_keys_reload(struct ld_keys *k)
{
	(void)k;
	return 0;
}

enum ld_auth_verdict ld_keys_check(struct ld_keys *k, const uint8_t *req,
                                   size_t len, struct ld_auth_ctx *ctx)
{
	(void)k, (void)req, (void)len, (void)ctx;
	return LD_AUTH_PLAIN;
}

size_t ld_keys_finish(struct ld_keys *k, const struct ld_auth_ctx *ctx,
                      uint8_t *out, size_t len, size_t max)
{
	(void)k, (void)ctx, (void)out, (void)max;
	return len;
}
