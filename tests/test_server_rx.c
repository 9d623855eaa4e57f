/*
 * test_server_rx.c - leapclockd's receive path (tools/leapclockd/server.c)
 * on real loopback sockets, driven one batch at a time: per-client rate
 * limiting when two clients share a hash slot (issue 12 item 14), and
 * datagrams cut by the receive buffer (item 15).
 *
 * The server under test is in this process: requests are sent from client
 * sockets bound to 127.x.y.z addresses (all of 127/8 is on lo), the
 * server's drain (ld__srv_drain) reads them (loopback delivery is synchronous), and the
 * answers are read back without waiting.
 */
#define _GNU_SOURCE
#include "lc_test.h"

/* the daemon's modules from leapclockd_core (CMakeLists.txt); what is
 * internal to the server files through their shared header */
#include "server_impl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* With no keyfile and no certificate configured here, every request is
 * plain. */

void ld_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

static struct ld_config cfg;
static struct ld_clock *clk;

/* A server pretending 2016-12-31T12:00:00Z on 127.0.0.1:0, utc, rate
 * limited `rl` ("0:16", "off"). NULL on failure (reported). */
static struct ld_server *server(const char *rl)
{
	struct ld_server *s = NULL;
	char msg[256];

	ld_clock_free(clk);
	clk = NULL;
	ld_config_init(&cfg);
	cfg.statsfile[0] = '\0';
	snprintf(cfg.pretend, sizeof(cfg.pretend), "2016-12-31T12:00:00Z");
	snprintf(cfg.leapfile, sizeof(cfg.leapfile), "%s",
	         LC_TEST_DATA_DIR "/leap-seconds.list.tzdata2026f");
	if (ld_config_parse_listen("127.0.0.1:0=utc", &cfg.listen[0], msg,
	                           sizeof(msg)) != 0 ||
	    ld_config_parse_ratelimit(&cfg, rl) != 0) {
		LC_T_FAIL_("config: %s", msg);
		return NULL;
	}
	cfg.nlisten = 1;
	cfg.threads = 1; /* one socket, drained here */
	if (ld_clock_new(&clk, &cfg) != 0 || ld_server_new(&s, &cfg, clk) != 0) {
		LC_T_FAIL_("cannot start a server (%s)", rl);
		return NULL;
	}
	return s;
}

static struct sockaddr_in in4(const char *addr, unsigned port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &a.sin_addr);
	return a;
}

/* A UDP socket bound to `addr`, connected to the server; -1 if the host
 * cannot (reported as a skip by the caller). */
static int client(struct ld_server *s, const char *addr)
{
	struct sockaddr_in me = in4(addr, 0), srv;
	socklen_t sl = sizeof(srv);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0 ||
	    getsockname(s->w[0]->sk[0].fd, (struct sockaddr *)&srv, &sl) != 0 ||
	    connect(fd, (struct sockaddr *)&srv, sl) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends a client request of `len` bytes (a v4 header, then zeros). */
static void send_request(int fd, size_t len, uint32_t id)
{
	static uint8_t buf[2048];
	struct ld_ntp_packet req;

	memset(&req, 0, sizeof(req));
	req.version = 4;
	req.mode = LD_MODE_CLIENT;
	req.tx_ts = ((uint64_t)3692260800u << 32) | id;
	memset(buf, 0, sizeof(buf));
	ld_ntp_encode(&req, buf);
	if (send(fd, buf, len, 0) != (ssize_t)len)
		LC_T_FAIL_("send %zu bytes: %s", len, strerror(errno));
}

/* Reads every answer waiting on fd: time replies into *rep, kisses into
 * *kod. */
static void collect(int fd, int *rep, int *kod)
{
	uint8_t in[512];
	struct ld_ntp_packet p;
	ssize_t n;

	while ((n = recv(fd, in, sizeof(in), MSG_DONTWAIT)) > 0) {
		ld_ntp_parse(in, (size_t)n, &p);
		if (p.stratum == 0)
			(*kod)++;
		else
			(*rep)++;
	}
}

/* One request from fd, read by the server at once, and its answers. */
static void ask(struct ld_server *s, int fd, size_t len, uint32_t id,
                int *rep, int *kod)
{
	send_request(fd, len, id);
	ld__srv_drain(s->w[0], 0, 1);
	collect(fd, rep, kod);
}

static void test_siphash_vector(void)
{
	/* SipHash-2-4's reference vector (the paper, appendix A): key
	 * 00..0f, message 00..0e */
	uint64_t k[2] = { UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908) };
	uint8_t m[15];

	for (int i = 0; i < 15; i++)
		m[i] = (uint8_t)i;
	LC_EQ_U64(ld_siphash24(k, m, 15), UINT64_C(0xa129ca6149be45e5));
	LC_EQ_U64(ld_siphash24(k, m, 0), UINT64_C(0x726fdb47dd0e0e31));
}

static void test_key_per_start(void)
{
	struct ld_server *a = server("0:16"), *b;

	if (a == NULL)
		return;
	b = server("0:16");
	if (b == NULL) {
		ld_server_free(a);
		return;
	}
	LC_TRUE(a->rl_key[0] != b->rl_key[0] || a->rl_key[1] != b->rl_key[1]);
	ld_server_free(a);
	ld_server_free(b);
}

/* The reproducer: 127.0.0.2 and 127.1.61.220 shared a slot of the
 * unkeyed FNV-1a, and interleaving them reset each other's state: 500 of
 * 500 answered. Now 127.0.0.2 gets its burst of 16 and then kisses. */
static void test_interleaved_pair(void)
{
	struct ld_server *s = server("0:16");
	int a, b, rep_a = 0, kod_a = 0, rep_b = 0, kod_b = 0;

	if (s == NULL)
		return;
	a = client(s, "127.0.0.2");
	b = client(s, "127.1.61.220");
	if (a < 0 || b < 0) {
		ld_server_free(s);
		LC_SKIP("interleaved pair", "cannot bind 127.0.0.2 / 127.1.61.220");
		return;
	}
	for (uint32_t i = 0; i < 500; i++) {
		ask(s, a, 48, i, &rep_a, &kod_a);
		ask(s, b, 48, i, &rep_b, &kod_b);
	}
	/* the burst, plus one for each second the loop may take */
	LC_GE_INT(rep_a, 16);
	LC_LE_I64(rep_a, 18);
	LC_GE_INT(kod_a, 1);
	LC_LE_I64(rep_b, 18);
	close(a);
	close(b);
	ld_server_free(s);
}

/* Two addresses forced into one slot under this server's key: the second
 * inherits the first's debt (limited at once) instead of a fresh state,
 * and interleaving them never lets either past the slot's one rate. */
static void test_forced_collision(void)
{
	struct ld_server *s = server("0:16");
	/* as the server has them: in a sockaddr_storage */
	struct sockaddr_storage a, c;
	struct sockaddr_in a4 = in4("127.0.0.2", 40000);
	size_t slot;
	int found = 0, kod, limited, passed = 0;
	int64_t now = INT64_C(1000000000000);

	if (s == NULL)
		return;
	memset(&a, 0, sizeof(a));
	memcpy(&a, &a4, sizeof(a4));
	slot = ld__srv_rl_index(s, (struct sockaddr *)&a);
	for (uint32_t x = 1; x < (1u << 24) && !found; x++) {
		struct sockaddr_in c4 = a4;
		c4.sin_addr.s_addr = htonl((127u << 24) | x);
		memset(&c, 0, sizeof(c));
		memcpy(&c, &c4, sizeof(c4));
		if (c4.sin_addr.s_addr != a4.sin_addr.s_addr &&
		    ld__srv_rl_index(s, (struct sockaddr *)&c) == slot)
			found = 1;
	}
	if (!found) {
		ld_server_free(s);
		LC_SKIP("forced collision", "no address of 127/8 shares the slot");
		return;
	}
	/* a uses its burst of 16 */
	for (int i = 0; i < 16; i++)
		LC_EQ_INT(ld__srv_rate_limited(s, (struct sockaddr *)&a, now, &kod), 0);
	LC_EQ_INT(ld__srv_rate_limited(s, (struct sockaddr *)&a, now, &kod), 1);
	LC_EQ_INT(kod, 1);
	/* c, new to the slot, does not wipe it: limited too, no second kiss
	 * within the gap */
	limited = ld__srv_rate_limited(s, (struct sockaddr *)&c, now, &kod);
	LC_EQ_INT(limited, 1);
	LC_EQ_INT(kod, 0);
	/* interleaved over 10 s: the slot's one rate (one per second) for
	 * both together, never one each */
	for (int i = 0; i < 1000; i++) {
		int64_t t = now + (int64_t)i * 10000000; /* 10 ms apart */
		passed += !ld__srv_rate_limited(s, (struct sockaddr *)(i % 2 ? &c : &a),
		                        t, &kod);
	}
	LC_LE_I64(passed, 11);
	LC_GE_INT(passed, 9);
	/* at rest again (the bucket refilled): a fresh burst, for whoever */
	now += 100 * LC__NS;
	for (int i = 0; i < 16; i++)
		LC_EQ_INT(ld__srv_rate_limited(s, (struct sockaddr *)&c, now, &kod), 0);
	ld_server_free(s);
}

/* Lengths around the 1024-byte receive buffer: whole words up to 1024
 * answered; anything the buffer cut (MSG_TRUNC) dropped as malformed,
 * including the lengths that are not whole words and that the cut made
 * look like 1024. */
static void test_truncated(void)
{
	struct ld_server *s = server("off");
	int fd, rep = 0, kod = 0;
	uint64_t mal0;

	if (s == NULL)
		return;
	fd = client(s, "127.0.0.3");
	if (fd < 0) {
		ld_server_free(s);
		LC_SKIP("truncated", "cannot bind 127.0.0.3");
		return;
	}
	ask(s, fd, 1024, 1, &rep, &kod);
	LC_EQ_INT(rep, 1);
	ask(s, fd, 1020, 2, &rep, &kod);
	LC_EQ_INT(rep, 2);
	ask(s, fd, 1023, 3, &rep, &kod);
	LC_EQ_INT(rep, 2);
	mal0 = s->w[0]->sk[0].c.malformed;
	for (size_t len = 1025; len <= 1100; len++) {
		int before = rep;
		ask(s, fd, len, (uint32_t)len, &rep, &kod);
		if (rep != before)
			LC_T_FAIL_("a %zu-byte datagram was answered", len);
	}
	LC_EQ_INT(rep, 2);
	LC_EQ_U64(s->w[0]->sk[0].c.malformed - mal0, 76);
	ask(s, fd, 2000, 4, &rep, &kod);
	LC_EQ_INT(rep, 2);
	/* and the socket still answers */
	ask(s, fd, 48, 5, &rep, &kod);
	LC_EQ_INT(rep, 3);
	LC_EQ_INT(kod, 0);
	close(fd);
	ld_server_free(s);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_siphash_vector, "SipHash-2-4 reference vectors");
	LC_RUN(test_key_per_start, "a new rate-limit hash key at each start");
	LC_RUN(test_interleaved_pair, "127.0.0.2 interleaved with 127.1.61.220: still limited");
	LC_RUN(test_forced_collision, "two clients in one slot share its state, never reset it");
	LC_RUN(test_truncated, "datagrams over 1024 bytes (cut by the buffer) dropped as malformed");
	ld_clock_free(clk);
	return lc_test_done();
}
