/*
 * nts.c - the NTP side of NTS (RFC 8915 section 5) and the server's cookie
 * keys.
 *
 * A request's NTS fields are found by nts_ef.c; here its cookie is opened
 * with the server key it names (C2S and S2C inside), its authenticator is
 * checked with C2S over the header and every field before it, and the
 * answer gets the Unique Identifier back and an authenticator whose
 * encrypted part holds fresh cookies (one, plus one per placeholder, as
 * many as fit in the request's length), sealed with S2C.
 *
 * Server keys: the newest signs new cookies, LD_NTS_KEYS in all are kept
 * (so a cookie stays good for two rotation periods at least), rotated
 * every nts_rotate_s and saved in nts_keydir/ntskeys (mode 0600, in a
 * directory 0700) so that cookies survive a restart. Readers take a read
 * lock only to copy the one key they need.
 */
#include "auth.h"

#include "leapclockd.h"

#ifndef LD_HAVE_GNUTLS

int ld_nts_new(struct ld_nts **out, const struct ld_config *cfg)
{
	*out = NULL;
	if (cfg->nts_cert[0] == '\0')
		return 0;
	ld_log(LD_LOG_ERR,
	       "nts-cert %s: this leapclockd was built without GnuTLS, so it "
	       "has no NTS: install libgnutls28-dev and rebuild",
	       cfg->nts_cert);
	return -1;
}

int ld_nts_check_config(const struct ld_config *cfg)
{
	struct ld_nts *n;

	return ld_nts_new(&n, cfg);
}

void ld_nts_free(struct ld_nts *n)
{
	(void)n;
}

int ld_nts_start(struct ld_nts *n)
{
	(void)n;
	return 0;
}

int ld_nts_reload(struct ld_nts *n)
{
	(void)n;
	return 0;
}

enum ld_auth_verdict ld_nts_check(struct ld_nts *n, const uint8_t *req,
                                  size_t len, struct ld_auth_ctx *ctx)
{
	(void)n, (void)req, (void)len, (void)ctx;
	return LD_AUTH_PLAIN;
}

size_t ld_nts_finish(struct ld_nts *n, const struct ld_auth_ctx *ctx,
                     uint8_t *out, size_t len, size_t max)
{
	(void)n, (void)ctx, (void)out;
	return len <= max ? len : 0;
}

void ld_nts_counters(const struct ld_nts *n, struct ld_auth_counters *c)
{
	(void)n, (void)c;
}

#else /* LD_HAVE_GNUTLS */

#include "nts.h"
#include "nts_ef.h"
#include "safefile.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LD_NTS_KEYS 3
#define KEYFILE "ntskeys"
#define KEYFILE_MAGIC "leapclockd-nts-keys 1"
/* AEAD_AES_SIV_CMAC_256 (RFC 5297): GnuTLS calls it AES-128-SIV after the
 * AES key size (its key is two AES-128 keys, 32 bytes) */
#define SIV GNUTLS_CIPHER_AES_128_SIV

struct skey {
	uint32_t id;
	int64_t created; /* Unix seconds */
	uint8_t key[LD_NTS_KEY_LEN];
};

struct ld_nts {
	pthread_rwlock_t lock;
	struct skey keys[LD_NTS_KEYS]; /* oldest first; the last signs */
	int nkeys;
	int64_t rotate_s;
	char keydir[PATH_MAX];
	struct ld_ntske *ke;
	_Atomic uint64_t cookie_fail, nak, malformed, auth_fail;
};

/* ---- AES-SIV-CMAC-256 ---- */

/* Each thread keeps the AEAD handles (their AES key schedules) of the
 * server keys it used last, and one more handle that it re-keys
 * (gnutls_aead_cipher_set_key, GnuTLS 3.7.5 on) for each client key, C2S
 * then S2C: a request then costs two key setups and no handle's
 * allocation, where it cost two gnutls_aead_cipher_init and _deinit. The
 * re-keyed handle holds the last client key's schedule until the next
 * request or the thread's end. Freed when the thread ends. */
#define HCACHE (LD_NTS_KEYS + 1)

struct hcache {
	unsigned next;
	int used[HCACHE];
	uint8_t key[HCACHE][LD_NTS_KEY_LEN];
	gnutls_aead_cipher_hd_t h[HCACHE];
	int have_scratch;
	gnutls_aead_cipher_hd_t scratch; /* re-keyed for client keys */
};

static pthread_key_t hcache_key;
static pthread_once_t hcache_once = PTHREAD_ONCE_INIT;
static int hcache_ok;

static void hcache_free(void *p)
{
	struct hcache *c = p;

	for (int i = 0; i < HCACHE; i++)
		if (c->used[i])
			gnutls_aead_cipher_deinit(c->h[i]);
	if (c->have_scratch)
		gnutls_aead_cipher_deinit(c->scratch);
	gnutls_memset(c, 0, sizeof(*c));
	free(c);
}

static void hcache_init(void)
{
	hcache_ok = pthread_key_create(&hcache_key, hcache_free) == 0;
}

/* This thread's cache; NULL if it cannot be had. */
static struct hcache *thread_hcache(void)
{
	struct hcache *c;

	pthread_once(&hcache_once, hcache_init);
	if (!hcache_ok)
		return NULL;
	c = pthread_getspecific(hcache_key);
	if (c == NULL) {
		c = calloc(1, sizeof(*c));
		if (c == NULL || pthread_setspecific(hcache_key, c) != 0) {
			free(c);
			return NULL;
		}
	}
	return c;
}

/* This thread's re-keyed handle, set to a client key; NULL if none can be
 * had (the caller makes its own). */
static gnutls_aead_cipher_hd_t scratch_handle(const uint8_t *key)
{
	gnutls_datum_t k = { (unsigned char *)key, LD_NTS_KEY_LEN };
	struct hcache *c = thread_hcache();

	if (c == NULL)
		return NULL;
	if (c->have_scratch) {
		if (gnutls_aead_cipher_set_key(c->scratch, &k) >= 0)
			return c->scratch;
		gnutls_aead_cipher_deinit(c->scratch);
		c->have_scratch = 0;
	}
	c->have_scratch = gnutls_aead_cipher_init(&c->scratch, SIV, &k) >= 0;
	return c->have_scratch ? c->scratch : NULL;
}

/* This thread's handle for a server key; NULL if none can be had (the
 * caller makes its own). */
static gnutls_aead_cipher_hd_t cached_handle(const uint8_t *key)
{
	gnutls_datum_t k = { (unsigned char *)key, LD_NTS_KEY_LEN };
	struct hcache *c = thread_hcache();
	unsigned i;

	if (c == NULL)
		return NULL;
	for (i = 0; i < HCACHE; i++)
		if (c->used[i] && memcmp(c->key[i], key, LD_NTS_KEY_LEN) == 0)
			return c->h[i];
	i = c->next++ % HCACHE;
	if (c->used[i])
		gnutls_aead_cipher_deinit(c->h[i]);
	c->used[i] = gnutls_aead_cipher_init(&c->h[i], SIV, &k) >= 0;
	if (!c->used[i])
		return NULL;
	memcpy(c->key[i], key, LD_NTS_KEY_LEN);
	return c->h[i];
}

/* A handle for key: this thread's cached one if `cache` (server keys),
 * else its re-keyed one (client keys), else a new one in *own, to be
 * freed by the caller. */
static gnutls_aead_cipher_hd_t handle(const uint8_t *key, int cache,
                                      gnutls_aead_cipher_hd_t *own)
{
	gnutls_datum_t k = { (unsigned char *)key, LD_NTS_KEY_LEN };
	gnutls_aead_cipher_hd_t h = cache ? cached_handle(key)
	                                  : scratch_handle(key);

	*own = NULL;
	if (h == NULL && gnutls_aead_cipher_init(own, SIV, &k) >= 0)
		h = *own;
	return h;
}

/* out[0..16+len) = tag || ciphertext. 0 or -1. */
static int seal(const uint8_t *key, int cache, const uint8_t *nonce,
                size_t nlen, const uint8_t *ad, size_t adlen,
                const uint8_t *pt, size_t len, uint8_t *out)
{
	gnutls_aead_cipher_hd_t own, h;
	size_t olen = LD_NTS_TAG_LEN + len;
	int r;

	/* nettle's SIV aborts on an empty nonce */
	if (nlen == 0 || (h = handle(key, cache, &own)) == NULL)
		return -1;
	r = gnutls_aead_cipher_encrypt(h, nonce, nlen, ad, adlen,
	                               LD_NTS_TAG_LEN, pt, len, out, &olen);
	if (own != NULL)
		gnutls_aead_cipher_deinit(own);
	return r < 0 || olen != LD_NTS_TAG_LEN + len ? -1 : 0;
}

/* out[0..len-16) from tag || ciphertext in[0..len). 0 or -1 (forged). */
static int open_sealed(const uint8_t *key, int cache, const uint8_t *nonce,
                       size_t nlen, const uint8_t *ad, size_t adlen,
                       const uint8_t *in, size_t len, uint8_t *out)
{
	gnutls_aead_cipher_hd_t own, h;
	size_t olen = len - LD_NTS_TAG_LEN;
	int r;

	if (nlen == 0 || len < LD_NTS_TAG_LEN ||
	    (h = handle(key, cache, &own)) == NULL)
		return -1;
	r = gnutls_aead_cipher_decrypt(h, nonce, nlen, ad, adlen,
	                               LD_NTS_TAG_LEN, in, len, out, &olen);
	if (own != NULL)
		gnutls_aead_cipher_deinit(own);
	return r < 0 || olen != len - LD_NTS_TAG_LEN ? -1 : 0;
}

/* ---- server keys ---- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int keyfile_path(const struct ld_nts *n, const char *name, char *buf,
                        size_t size)
{
	int w = snprintf(buf, size, "%s/%s", n->keydir, name);
	return w < 0 || (size_t)w >= size ? -1 : 0;
}

/* The key directory: created 0700 if absent; refused if others may write
 * in it. */
static int check_keydir(const struct ld_nts *n)
{
	struct stat st;

	if (mkdir(n->keydir, 0700) != 0 && errno != EEXIST) {
		ld_log(LD_LOG_ERR, "nts-keydir %s: cannot create: %s",
		       n->keydir, strerror(errno));
		return -1;
	}
	if (stat(n->keydir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		ld_log(LD_LOG_ERR, "nts-keydir %s: not a directory", n->keydir);
		return -1;
	}
	if (st.st_mode & 022) {
		ld_log(LD_LOG_ERR,
		       "nts-keydir %s: writable by others (mode %03o): "
		       "chmod 700 it",
		       n->keydir, (unsigned)(st.st_mode & 0777));
		return -1;
	}
	if (st.st_mode & 077)
		ld_log(LD_LOG_WARNING,
		       "nts-keydir %s: mode %03o, 700 is enough", n->keydir,
		       (unsigned)(st.st_mode & 0777));
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Reads nts_keydir/ntskeys into n (none if it is absent). -1 on a file
 * that is not ours to trust (readable by others, malformed). */
static int load_keys(struct ld_nts *n)
{
	char path[PATH_MAX + 16], line[256], why[256];
	struct stat st;
	FILE *f;
	int fd, lineno = 0, rc = 0;

	n->nkeys = 0;
	if (keyfile_path(n, KEYFILE, path, sizeof(path)) != 0)
		return -1;
	/* without waiting in open() (a FIFO is refused), no symbolic link
	 * (safefile.h) */
	fd = ld_sf_open(path, LD_SF_NOFOLLOW, &st, why, sizeof(why));
	if (fd < 0) {
		if (errno == ENOENT && lstat(path, &st) != 0)
			return 0;
		ld_log(LD_LOG_ERR, "%s: %s", path, why);
		return -1;
	}
	if (st.st_mode & 077) {
		ld_log(LD_LOG_ERR,
		       "%s: not a regular file of mode 600 (it holds the NTS "
		       "cookie keys): chmod 600 it, or remove it",
		       path);
		close(fd);
		return -1;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		struct skey k;
		char hex[2 * LD_NTS_KEY_LEN + 2];
		unsigned id;
		long long created;

		lineno++;
		if (lineno == 1) {
			if (strncmp(line, KEYFILE_MAGIC, strlen(KEYFILE_MAGIC)) != 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (sscanf(line, "%8x %lld %65s", &id, &created, hex) != 3 ||
		    strlen(hex) != 2 * LD_NTS_KEY_LEN) {
			rc = -1;
			break;
		}
		k.id = id;
		k.created = created;
		for (int i = 0; i < LD_NTS_KEY_LEN && rc == 0; i++) {
			int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
			if (hi < 0 || lo < 0)
				rc = -1;
			k.key[i] = (uint8_t)(hi << 4 | lo);
		}
		if (rc != 0)
			break;
		/* keep the newest LD_NTS_KEYS (the file lists oldest first) */
		if (n->nkeys == LD_NTS_KEYS) {
			memmove(n->keys, n->keys + 1,
			        (LD_NTS_KEYS - 1) * sizeof(n->keys[0]));
			n->nkeys--;
		}
		n->keys[n->nkeys++] = k;
	}
	fclose(f);
	if (rc != 0) {
		ld_log(LD_LOG_ERR, "%s: line %d: not a leapclockd NTS key file",
		       path, lineno);
		n->nkeys = 0;
	}
	return rc;
}

/* Writes the keys to ntskeys.tmp (created 0600, exclusively) and renames
 * it over ntskeys. 0 or -1 (logged). */
static int save_keys(const struct skey *keys, int nkeys, const struct ld_nts *n)
{
	char path[PATH_MAX + 16], tmp[PATH_MAX + 16];
	FILE *f;
	int fd, ok;

	if (keyfile_path(n, KEYFILE, path, sizeof(path)) != 0 ||
	    keyfile_path(n, KEYFILE ".tmp", tmp, sizeof(tmp)) != 0)
		return -1;
	/* a temp file left by a crash: ours, in our 0700 directory */
	if (unlink(tmp) != 0 && errno != ENOENT) {
		ld_log(LD_LOG_ERR, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	          0600);
	if (fd < 0) {
		ld_log(LD_LOG_ERR, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	/* the umask may only have taken bits away; make it exactly 0600 */
	(void)fchmod(fd, 0600);
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	ok = fprintf(f, "%s\n", KEYFILE_MAGIC) > 0;
	for (int i = 0; i < nkeys && ok; i++) {
		ok = fprintf(f, "%08" PRIx32 " %" PRId64 " ", keys[i].id,
		             keys[i].created) > 0;
		for (int j = 0; j < LD_NTS_KEY_LEN && ok; j++)
			ok = fprintf(f, "%02x", keys[i].key[j]) > 0;
		ok = ok && fputc('\n', f) != EOF;
	}
	ok = ok && fflush(f) == 0 && fsync(fd) == 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		ld_log(LD_LOG_ERR, "%s: cannot write the NTS keys: %s", path,
		       strerror(errno));
		unlink(tmp);
		return -1;
	}
	fd = open(n->keydir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	return 0;
}

/* Makes a fresh key (the one that signs from now on), drops the oldest
 * beyond LD_NTS_KEYS, saves the set and only then puts it in place: the
 * workers wait for the swap, never for the disk. One rotator at a time
 * (ld_nts_new, then the NTS-KE thread). 0, or -1 when no key could be
 * made. */
static int rotate(struct ld_nts *n, int64_t now)
{
	struct skey keys[LD_NTS_KEYS], k;
	int nkeys, unique;

	pthread_rwlock_rdlock(&n->lock);
	memcpy(keys, n->keys, sizeof(keys));
	nkeys = n->nkeys;
	pthread_rwlock_unlock(&n->lock);
	if (gnutls_rnd(GNUTLS_RND_KEY, k.key, sizeof(k.key)) != 0)
		return -1;
	do {
		if (gnutls_rnd(GNUTLS_RND_NONCE, &k.id, sizeof(k.id)) != 0)
			return -1;
		unique = 1;
		for (int i = 0; i < nkeys; i++)
			if (keys[i].id == k.id)
				unique = 0;
	} while (!unique);
	k.created = now;
	if (nkeys == LD_NTS_KEYS) {
		memmove(keys, keys + 1, (LD_NTS_KEYS - 1) * sizeof(keys[0]));
		nkeys--;
	}
	keys[nkeys++] = k;
	/* kept in memory even if the disk refuses: cookies just do not
	 * survive a restart then */
	if (save_keys(keys, nkeys, n) != 0)
		ld_log(LD_LOG_WARNING,
		       "NTS cookie key %08" PRIx32 " is not saved: cookies "
		       "will not survive a restart",
		       k.id);
	pthread_rwlock_wrlock(&n->lock);
	memcpy(n->keys, keys, sizeof(keys));
	n->nkeys = nkeys;
	pthread_rwlock_unlock(&n->lock);
	gnutls_memset(keys, 0, sizeof(keys));
	gnutls_memset(&k, 0, sizeof(k));
	return 0;
}

static int due(const struct ld_nts *n, int64_t now)
{
	return n->nkeys == 0 ||
	       now - n->keys[n->nkeys - 1].created >= n->rotate_s ||
	       /* a clock set far back: do not keep one key for years */
	       n->keys[n->nkeys - 1].created - now > n->rotate_s;
}

void ld_nts_maintain(struct ld_nts *n)
{
	int64_t now = (int64_t)time(NULL);
	int d;

	pthread_rwlock_rdlock(&n->lock);
	d = due(n, now);
	pthread_rwlock_unlock(&n->lock);
	if (d && rotate(n, now) == 0)
		ld_log(LD_LOG_INFO, "NTS: a new cookie key every %" PRId64
		       " s: rotated", n->rotate_s);
}

/* Copies the key with this id (any id: the newest, for id == NULL). */
static int find_key(struct ld_nts *n, const uint32_t *id, struct skey *out)
{
	int found = 0;

	pthread_rwlock_rdlock(&n->lock);
	for (int i = n->nkeys - 1; i >= 0 && !found; i--)
		if (id == NULL || n->keys[i].id == *id) {
			*out = n->keys[i];
			found = 1;
		}
	pthread_rwlock_unlock(&n->lock);
	return found;
}

int ld_nts_make_cookie(struct ld_nts *n, const uint8_t *c2s,
                       const uint8_t *s2c, uint8_t *out)
{
	uint8_t pt[2 * LD_NTS_KEY_LEN];
	struct skey k;
	int r;

	if (!find_key(n, NULL, &k))
		return -1;
	memcpy(pt, c2s, LD_NTS_KEY_LEN);
	memcpy(pt + LD_NTS_KEY_LEN, s2c, LD_NTS_KEY_LEN);
	put32(out, k.id);
	r = gnutls_rnd(GNUTLS_RND_NONCE, out + 4, LD_NTS_NONCE_LEN) == 0 &&
	            seal(k.key, 1, out + 4, LD_NTS_NONCE_LEN, NULL, 0, pt,
	                 sizeof(pt), out + 4 + LD_NTS_NONCE_LEN) == 0
	        ? 0
	        : -1;
	gnutls_memset(pt, 0, sizeof(pt));
	gnutls_memset(k.key, 0, sizeof(k.key));
	return r;
}

/* C2S and S2C from a cookie; 0, or -1 if it is not one of ours. */
static int open_cookie(struct ld_nts *n, const uint8_t *c, size_t len,
                       uint8_t *c2s, uint8_t *s2c)
{
	uint8_t pt[2 * LD_NTS_KEY_LEN];
	struct skey k;
	uint32_t id;
	int r;

	if (len != LD_NTS_COOKIE_LEN)
		return -1;
	id = get32(c);
	if (!find_key(n, &id, &k))
		return -1;
	r = open_sealed(k.key, 1, c + 4, LD_NTS_NONCE_LEN, NULL, 0,
	                c + 4 + LD_NTS_NONCE_LEN, len - 4 - LD_NTS_NONCE_LEN,
	                pt);
	if (r == 0) {
		memcpy(c2s, pt, LD_NTS_KEY_LEN);
		memcpy(s2c, pt + LD_NTS_KEY_LEN, LD_NTS_KEY_LEN);
	}
	gnutls_memset(pt, 0, sizeof(pt));
	gnutls_memset(k.key, 0, sizeof(k.key));
	return r;
}

/* ---- the object ---- */

/* A daemon that drops to cfg->user after binding must still write its
 * keys at rotation: the directory and the file become that user's (and
 * stay closed to everyone else). */
static void give_keys_to(const struct ld_nts *n, const char *user)
{
	char path[PATH_MAX + 16];
	struct passwd *pw;

	if (user[0] == '\0' || geteuid() != 0)
		return;
	pw = getpwnam(user);
	if (pw == NULL)
		return; /* the privilege drop reports it */
	if (keyfile_path(n, KEYFILE, path, sizeof(path)) != 0 ||
	    fchownat(AT_FDCWD, n->keydir, pw->pw_uid, pw->pw_gid,
	             AT_SYMLINK_NOFOLLOW) != 0 ||
	    fchownat(AT_FDCWD, path, pw->pw_uid, pw->pw_gid,
	             AT_SYMLINK_NOFOLLOW) != 0)
		ld_log(LD_LOG_WARNING,
		       "nts-keydir %s: cannot give it to user %s (%s): "
		       "rotated keys may not be saved",
		       n->keydir, user, strerror(errno));
}

int ld_nts_new(struct ld_nts **out, const struct ld_config *cfg)
{
	struct ld_nts *n;

	*out = NULL;
	if (cfg->nts_cert[0] == '\0')
		return 0;
	n = calloc(1, sizeof(*n));
	if (n == NULL || pthread_rwlock_init(&n->lock, NULL) != 0) {
		free(n);
		ld_log(LD_LOG_ERR, "out of memory");
		return -1;
	}
	n->rotate_s = cfg->nts_rotate_s > 0 ? cfg->nts_rotate_s : 86400;
	snprintf(n->keydir, sizeof(n->keydir), "%s", cfg->nts_keydir);
	if (check_keydir(n) != 0 || load_keys(n) != 0)
		goto fail;
	if (due(n, (int64_t)time(NULL)) && rotate(n, (int64_t)time(NULL)) != 0) {
		ld_log(LD_LOG_ERR, "NTS: cannot make a cookie key");
		goto fail;
	}
	give_keys_to(n, cfg->user);
	if (ld_ntske_new(&n->ke, cfg, n) != 0)
		goto fail;
	*out = n;
	return 0;
fail:
	ld_nts_free(n);
	return -1;
}

/* What ld_nts_new would refuse, found without changing anything: the
 * key folder (when it exists: made at start otherwise) and its cookie
 * keys, nts-listen, the certificate and its key. */
int ld_nts_check_config(const struct ld_config *cfg)
{
	struct ld_nts *n;
	struct stat st;
	int rc = 0;

	if (cfg->nts_cert[0] == '\0')
		return 0;
	n = calloc(1, sizeof(*n));
	if (n == NULL) {
		ld_log(LD_LOG_ERR, "out of memory");
		return -1;
	}
	snprintf(n->keydir, sizeof(n->keydir), "%s", cfg->nts_keydir);
	if (stat(n->keydir, &st) == 0 &&
	    (check_keydir(n) != 0 || load_keys(n) != 0))
		rc = -1;
	gnutls_memset(n->keys, 0, sizeof(n->keys));
	free(n);
	if (ld_ntske_check(cfg) != 0)
		rc = -1;
	return rc;
}

int ld_nts_start(struct ld_nts *n)
{
	return n == NULL ? 0 : ld_ntske_start(n->ke);
}

int ld_nts_reload(struct ld_nts *n)
{
	return n == NULL ? 0 : ld_ntske_reload(n->ke);
}

void ld_nts_free(struct ld_nts *n)
{
	if (n == NULL)
		return;
	ld_ntske_free(n->ke);
	gnutls_memset(n->keys, 0, sizeof(n->keys));
	pthread_rwlock_destroy(&n->lock);
	free(n);
}

void ld_nts_counters(const struct ld_nts *n, struct ld_auth_counters *c)
{
	if (n == NULL)
		return;
	c->nts_cookie_fail = n->cookie_fail;
	c->nts_nak = n->nak;
	ld_ntske_counters(n->ke, &c->ke_handshakes, &c->ke_failures);
}

/* ---- requests ---- */

enum ld_auth_verdict ld_nts_check(struct ld_nts *n, const uint8_t *req,
                                  size_t len, struct ld_auth_ctx *ctx)
{
	struct ld_nts_ef ef;
	uint8_t c2s[LD_NTS_KEY_LEN], s2c[LD_NTS_KEY_LEN];
	uint8_t pt[LD_NTP_MAX_PACKET];
	size_t min_ph = 0;
	unsigned cookies;
	int ph;

	if (n == NULL)
		return LD_AUTH_PLAIN;
	switch (ld_nts_ef_parse(req, len, &ef)) {
	case LD_NTS_EF_NONE:
		return LD_AUTH_PLAIN;
	case LD_NTS_EF_MALFORMED:
		n->malformed++;
		return LD_AUTH_DROP;
	default:
		break;
	}
	ctx->kind = LD_AUTH_NTS;
	ctx->aead = 15;
	ctx->c2s_len = ctx->s2c_len = 0; /* 0: an NTSN kiss, until it holds */
	ctx->cookies = 0;
	memcpy(ctx->uid, req + ef.uid_off, ef.uid_len);
	ctx->uid_len = ef.uid_len;
	if (open_cookie(n, req + ef.cookie_off, ef.cookie_len, c2s, s2c) != 0) {
		/* RFC 8915 5.7: an NTSN kiss, with the Unique Identifier */
		n->cookie_fail++;
		n->nak++;
		return LD_AUTH_NTSN;
	}
	if (ef.ct_len - LD_NTS_TAG_LEN > sizeof(pt) ||
	    open_sealed(c2s, 0, req + ef.nonce_off, ef.nonce_len, req,
	                ef.auth_off, req + ef.ct_off, ef.ct_len, pt) != 0) {
		n->auth_fail++;
		gnutls_memset(c2s, 0, sizeof(c2s));
		gnutls_memset(s2c, 0, sizeof(s2c));
		return LD_AUTH_DROP;
	}
	/* placeholders may be in the clear before the authenticator or in
	 * its encrypted part */
	ph = ld_nts_ef_placeholders(pt, ef.ct_len - LD_NTS_TAG_LEN, &min_ph);
	if (ph < 0) {
		n->malformed++;
		gnutls_memset(c2s, 0, sizeof(c2s));
		gnutls_memset(s2c, 0, sizeof(s2c));
		return LD_AUTH_DROP;
	}
	if (ef.placeholders > 0 && (ph == 0 || ef.placeholder_min < min_ph))
		min_ph = ef.placeholder_min;
	cookies = 1 + ef.placeholders + (unsigned)ph;
	ctx->cookies = cookies > LD_NTSKE_COOKIES_MAX ? LD_NTSKE_COOKIES_MAX
	                                             : cookies;
	ctx->placeholder_len = min_ph;
	memcpy(ctx->c2s, c2s, LD_NTS_KEY_LEN);
	ctx->c2s_len = LD_NTS_KEY_LEN;
	memcpy(ctx->s2c, s2c, LD_NTS_KEY_LEN);
	ctx->s2c_len = LD_NTS_KEY_LEN;
	gnutls_memset(c2s, 0, sizeof(c2s));
	gnutls_memset(s2c, 0, sizeof(s2c));
	return LD_AUTH_OK;
}

size_t ld_nts_finish(struct ld_nts *n, const struct ld_auth_ctx *ctx,
                     uint8_t *out, size_t len, size_t max)
{
	uint8_t pt[LD_NTSKE_COOKIES_MAX * (4 + LD_NTS_COOKIE_LEN)];
	uint8_t cookie[LD_NTS_COOKIE_LEN];
	size_t off = len, w, auth_off, ptlen = 0, fixed, fit;
	unsigned want;

	if (n == NULL || len > max)
		return 0;
	w = ld_nts_ef_put(out + off, max - off, LD_EF_UNIQUE_ID, ctx->uid,
	                  ctx->uid_len);
	if (ctx->s2c_len == 0)
		/* the NTSN kiss: its Unique Identifier only (or none if it
		 * does not fit: the client will not match it, no harm) */
		return off + w;
	if (w == 0)
		return 0;
	off += w;
	auth_off = off;
	/* the authenticator: type, length, nonce length, ciphertext
	 * length, nonce, tag, then the cookie fields */
	fixed = 8 + LD_NTS_NONCE_LEN + LD_NTS_TAG_LEN;
	if (max - off < fixed)
		return 0;
	fit = (max - off - fixed) / (4 + LD_NTS_COOKIE_LEN);
	want = ctx->cookies < fit ? ctx->cookies : (unsigned)fit;
	for (unsigned i = 0; i < want; i++) {
		if (ld_nts_make_cookie(n, ctx->c2s, ctx->s2c, cookie) != 0)
			return 0;
		ptlen += ld_nts_ef_put(pt + ptlen, sizeof(pt) - ptlen,
		                       LD_EF_COOKIE, cookie, sizeof(cookie));
	}
	w = fixed + ptlen; /* a multiple of 4: every part is */
	out[off] = LD_EF_AUTHENTICATOR >> 8;
	out[off + 1] = LD_EF_AUTHENTICATOR & 0xff;
	out[off + 2] = (uint8_t)(w >> 8);
	out[off + 3] = (uint8_t)w;
	out[off + 4] = 0;
	out[off + 5] = LD_NTS_NONCE_LEN;
	out[off + 6] = (uint8_t)((LD_NTS_TAG_LEN + ptlen) >> 8);
	out[off + 7] = (uint8_t)(LD_NTS_TAG_LEN + ptlen);
	if (gnutls_rnd(GNUTLS_RND_NONCE, out + off + 8, LD_NTS_NONCE_LEN) != 0 ||
	    seal(ctx->s2c, 0, out + off + 8, LD_NTS_NONCE_LEN, out, auth_off, pt,
	         ptlen, out + off + 8 + LD_NTS_NONCE_LEN) != 0)
		return 0;
	gnutls_memset(pt, 0, sizeof(pt));
	return off + w;
}

#endif /* LD_HAVE_GNUTLS */
