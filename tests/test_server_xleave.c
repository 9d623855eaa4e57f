/*
 * test_server_xleave.c - leapclockd's interleaved-mode table
 * (tools/leapclockd/xleave.c): a client's reply is found by the receive
 * timestamp it carried once its kernel transmit stamp is known, not
 * before, not by another client, not after the client's next reply
 * replaced it; the table is bounded (a fixed number of slots) and new
 * clients evict old ones, whose next request is then answered in the basic
 * mode; several threads at once keep every client's own pair.
 */
#define _GNU_SOURCE
#include "lc_test.h"

#include "leapclockd.h"
#include "xleave.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>

void ld_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

static struct sockaddr_storage v4(uint32_t host, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(host);
	a->sin_port = htons(port);
	return ss;
}

#define SA(x) ((const struct sockaddr *)&(x))

static void test_basic_flow(void)
{
	struct ld_xleave *x = ld_xleave_new(1024);
	struct sockaddr_storage c = v4(0x7f000001, 40000);
	struct sockaddr_storage c2 = v4(0x7f000001, 40001); /* same address */
	struct sockaddr_storage d = v4(0x7f000002, 40000);
	struct sockaddr_in6 six;
	uint64_t tx = 0;

	LC_TRUE(x != NULL);
	/* nothing kept: basic */
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x100, &tx), 0);
	ld_xleave_sent(x, SA(c), 0x100);
	/* sent, stamp not back yet: basic */
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x100, &tx), 0);
	/* a stamp for another reply is not kept */
	LC_EQ_INT(ld_xleave_tx(x, SA(c), 0x0ff, 0x555), 0);
	LC_EQ_INT(ld_xleave_tx(x, SA(c), 0x100, 0x180), 1);
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x100, &tx), 1);
	LC_EQ_U64(tx, 0x180);
	/* another port of the same address is the same client */
	tx = 0;
	LC_EQ_INT(ld_xleave_lookup(x, SA(c2), 0x100, &tx), 1);
	LC_EQ_U64(tx, 0x180);
	/* another address, a wrong origin, a zero origin: basic */
	LC_EQ_INT(ld_xleave_lookup(x, SA(d), 0x100, &tx), 0);
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x101, &tx), 0);
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0, &tx), 0);
	/* the next reply replaces it: the old origin is basic now */
	ld_xleave_sent(x, SA(c), 0x200);
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x100, &tx), 0);
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x200, &tx), 0);
	/* a late stamp for the replaced reply is not kept */
	LC_EQ_INT(ld_xleave_tx(x, SA(c), 0x100, 0x190), 0);
	LC_EQ_INT(ld_xleave_tx(x, SA(c), 0x200, 0x280), 1);
	LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x200, &tx), 1);
	LC_EQ_U64(tx, 0x280);
	/* IPv6 ::1 is not 127.0.0.1 */
	memset(&six, 0, sizeof(six));
	six.sin6_family = AF_INET6;
	six.sin6_addr = in6addr_loopback;
	LC_EQ_INT(ld_xleave_lookup(x, (const struct sockaddr *)&six, 0x200, &tx), 0);
	ld_xleave_sent(x, (const struct sockaddr *)&six, 0x300);
	LC_EQ_INT(ld_xleave_tx(x, (const struct sockaddr *)&six, 0x300, 0x380), 1);
	LC_EQ_INT(ld_xleave_lookup(x, (const struct sockaddr *)&six, 0x300, &tx), 1);
	LC_EQ_U64(tx, 0x380);
	ld_xleave_free(x);
}

/* 64 slots (the least), 10000 clients: at most 64 are remembered, the
 * last ones sent mostly, and every hit gives the client's own stamp. */
static void test_bounded_evicts(void)
{
	struct ld_xleave *x = ld_xleave_new(1); /* rounded up to 64 */
	const uint32_t n = 10000;
	uint32_t hits = 0, last_hits = 0;
	uint64_t tx;

	LC_TRUE(x != NULL);
	LC_EQ_U64((uint64_t)ld_xleave_slots(x), 64);
	for (uint32_t i = 0; i < n; i++) {
		struct sockaddr_storage c = v4(0x0a000000 + i, 123);

		ld_xleave_sent(x, SA(c), 0x1000 + i);
		LC_EQ_INT(ld_xleave_tx(x, SA(c), 0x1000 + i, 0x900000 + i), 1);
	}
	for (uint32_t i = 0; i < n; i++) {
		struct sockaddr_storage c = v4(0x0a000000 + i, 123);

		tx = 0;
		if (ld_xleave_lookup(x, SA(c), 0x1000 + i, &tx)) {
			LC_EQ_U64(tx, 0x900000 + i);
			hits++;
			if (i >= n - 64)
				last_hits++;
		}
	}
	printf("     %u of %u clients remembered in 64 slots, %u of the last 64\n",
	       hits, n, last_hits);
	/* bounded: one client per slot, and all 64 in use */
	LC_TRUE(hits <= 64 && hits >= 60);
	/* the last client sent is always there */
	{
		struct sockaddr_storage c = v4(0x0a000000 + n - 1, 123);
		LC_EQ_INT(ld_xleave_lookup(x, SA(c), 0x1000 + n - 1, &tx), 1);
	}
	/* the first ones mostly evicted: about 64 of 10000 can survive */
	LC_TRUE(last_hits >= 16);
	ld_xleave_free(x);
}

struct th_arg {
	struct ld_xleave *x;
	uint32_t base;
	int bad;
};

static void *hammer(void *p)
{
	struct th_arg *a = p;

	for (uint32_t r = 1; r <= 2000; r++)
		for (uint32_t i = 0; i < 16; i++) {
			struct sockaddr_storage c = v4(a->base + i, 123);
			uint64_t rx = ((uint64_t)(a->base + i) << 32) | r, tx = 0;

			ld_xleave_sent(a->x, SA(c), rx);
			ld_xleave_tx(a->x, SA(c), rx, rx ^ 0xffff);
			/* any hit is this client's own pair */
			if (ld_xleave_lookup(a->x, SA(c), rx, &tx) &&
			    tx != (rx ^ 0xffff))
				a->bad++;
		}
	return NULL;
}

static void test_threads(void)
{
	struct ld_xleave *x = ld_xleave_new(256);
	pthread_t th[4];
	struct th_arg a[4];
	int bad = 0;

	for (int k = 0; k < 4; k++) {
		a[k].x = x;
		a[k].base = 0x0b000000u + (uint32_t)k * 0x100u;
		a[k].bad = 0;
		pthread_create(&th[k], NULL, hammer, &a[k]);
	}
	for (int k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		bad += a[k].bad;
	}
	LC_EQ_INT(bad, 0);
	ld_xleave_free(x);
}

static void test_siphash_key(void)
{
	uint64_t k1[2], k2[2];

	ld_random_key(k1);
	ld_random_key(k2);
	LC_TRUE(k1[0] != k2[0] || k1[1] != k2[1]);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_basic_flow, "a client's pair found by its receive timestamp once stamped; basic otherwise");
	LC_RUN(test_bounded_evicts, "64 slots for 10000 clients: bounded, evicts, every hit the client's own");
	LC_RUN(test_threads, "4 threads at once: every hit is the client's own pair");
	LC_RUN(test_siphash_key, "a fresh random key per table");
	return lc_test_done();
}
