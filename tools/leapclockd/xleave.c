/*
 * xleave.c - the interleaved mode's table (xleave.h), and the keyed hash
 * it shares with the rate limiter (server.c).
 */
#define _GNU_SOURCE
#include "xleave.h"

#include "leapclockd.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define SIP_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND                                                        \
	do {                                                             \
		v0 += v1; v1 = SIP_ROTL(v1, 13); v1 ^= v0; v0 = SIP_ROTL(v0, 32); \
		v2 += v3; v3 = SIP_ROTL(v3, 16); v3 ^= v2;               \
		v0 += v3; v3 = SIP_ROTL(v3, 21); v3 ^= v0;               \
		v2 += v1; v1 = SIP_ROTL(v1, 17); v1 ^= v2; v2 = SIP_ROTL(v2, 32); \
	} while (0)

uint64_t ld_siphash24(const uint64_t k[2], const uint8_t *in, size_t len)
{
	uint64_t v0 = UINT64_C(0x736f6d6570736575) ^ k[0];
	uint64_t v1 = UINT64_C(0x646f72616e646f6d) ^ k[1];
	uint64_t v2 = UINT64_C(0x6c7967656e657261) ^ k[0];
	uint64_t v3 = UINT64_C(0x7465646279746573) ^ k[1];
	uint64_t b = (uint64_t)len << 56, m;
	size_t i, end = len - len % 8;

	for (i = 0; i < end; i += 8) {
		m = 0;
		for (int j = 0; j < 8; j++)
			m |= (uint64_t)in[i + (size_t)j] << (8 * j);
		v3 ^= m;
		SIP_ROUND;
		SIP_ROUND;
		v0 ^= m;
	}
	for (int j = 0; i + (size_t)j < len; j++)
		b |= (uint64_t)in[i + (size_t)j] << (8 * j);
	v3 ^= b;
	SIP_ROUND;
	SIP_ROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIP_ROUND;
	SIP_ROUND;
	SIP_ROUND;
	SIP_ROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
#undef SIP_ROUND
#undef SIP_ROTL

#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004 /* Linux 5.6 */
#endif

/* A hash key, never waiting: early in boot, before the kernel's random
 * generator is seeded, GRND_NONBLOCK fails, and reading /dev/urandom then
 * makes Linux 5.18 and later gather jitter entropy first (about 4 s under
 * qemu's TCG, found by the VM test: the first leapclockd of a boot came up
 * late). GRND_INSECURE gives bytes at once; a hash key that spreads
 * clients over slots needs nothing more. /dev/urandom is the fallback for
 * kernels before 5.6, which never block on it. */
void ld_random_key(uint64_t key[2])
{
	uint8_t b[16];
	ssize_t n = getrandom(b, sizeof(b), GRND_NONBLOCK);
	struct timespec ts;

	if (n != (ssize_t)sizeof(b))
		n = getrandom(b, sizeof(b), GRND_INSECURE);
	if (n != (ssize_t)sizeof(b)) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, b, sizeof(b)) : -1;
		if (fd >= 0)
			close(fd);
	}
	if (n == (ssize_t)sizeof(b)) {
		memcpy(key, b, sizeof(b));
		return;
	}
	ld_log(LD_LOG_WARNING,
	       "no random bytes for a hash key (%s): using the time and pid",
	       strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	key[0] = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) *
	         UINT64_C(0x9e3779b97f4a7c15);
	key[1] = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
}

#define XL_KEY 17   /* family, address (16) */
#define XL_STRIPE 64

struct xl_slot {
	uint8_t who[XL_KEY]; /* all zero: empty */
	uint64_t rx;
	uint64_t tx;         /* 0: not known (yet) */
};

struct ld_xleave {
	size_t mask;
	uint64_t key[2];
	pthread_mutex_t lock[XL_STRIPE];
	struct xl_slot *slot;
};

size_t ld_xleave_slots(const struct ld_xleave *x)
{
	return x->mask + 1;
}

struct ld_xleave *ld_xleave_new(size_t slots)
{
	struct ld_xleave *x = calloc(1, sizeof(*x));
	size_t n = 64;

	if (x == NULL)
		return NULL;
	while (n < slots && n < ((size_t)1 << 30))
		n <<= 1;
	x->slot = calloc(n, sizeof(*x->slot));
	if (x->slot == NULL) {
		free(x);
		return NULL;
	}
	x->mask = n - 1;
	ld_random_key(x->key);
	for (int i = 0; i < XL_STRIPE; i++)
		pthread_mutex_init(&x->lock[i], NULL);
	return x;
}

void ld_xleave_free(struct ld_xleave *x)
{
	if (x == NULL)
		return;
	for (int i = 0; i < XL_STRIPE; i++)
		pthread_mutex_destroy(&x->lock[i]);
	free(x->slot);
	free(x);
}

/* The client's key bytes and its slot. */
static size_t who_of(const struct ld_xleave *x, const struct sockaddr *sa,
                     uint8_t who[XL_KEY])
{
	memset(who, 0, XL_KEY);
	who[0] = (uint8_t)sa->sa_family;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
		memcpy(who + 1, &a->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
		memcpy(who + 1, &a->sin6_addr, 16);
	}
	return (size_t)ld_siphash24(x->key, who, XL_KEY) & x->mask;
}

void ld_xleave_sent(struct ld_xleave *x, const struct sockaddr *client,
                    uint64_t rx)
{
	uint8_t who[XL_KEY];
	size_t i = who_of(x, client, who);
	struct xl_slot *e = &x->slot[i];

	pthread_mutex_lock(&x->lock[i % XL_STRIPE]);
	memcpy(e->who, who, XL_KEY);
	e->rx = rx;
	e->tx = 0;
	pthread_mutex_unlock(&x->lock[i % XL_STRIPE]);
}

int ld_xleave_tx(struct ld_xleave *x, const struct sockaddr *client,
                 uint64_t rx, uint64_t tx)
{
	uint8_t who[XL_KEY];
	size_t i = who_of(x, client, who);
	struct xl_slot *e = &x->slot[i];
	int kept = 0;

	pthread_mutex_lock(&x->lock[i % XL_STRIPE]);
	if (memcmp(e->who, who, XL_KEY) == 0 && e->rx == rx) {
		e->tx = tx;
		kept = 1;
	}
	pthread_mutex_unlock(&x->lock[i % XL_STRIPE]);
	return kept;
}

int ld_xleave_lookup(struct ld_xleave *x, const struct sockaddr *client,
                     uint64_t org, uint64_t *tx)
{
	uint8_t who[XL_KEY];
	size_t i = who_of(x, client, who);
	struct xl_slot *e = &x->slot[i];
	int hit = 0;

	if (org == 0)
		return 0;
	pthread_mutex_lock(&x->lock[i % XL_STRIPE]);
	if (memcmp(e->who, who, XL_KEY) == 0 && e->rx == org && e->tx != 0) {
		*tx = e->tx;
		hit = 1;
	}
	pthread_mutex_unlock(&x->lock[i % XL_STRIPE]);
	return hit;
}
