/*
 * test_server_metrics.c - leapclockd's Prometheus text (metrics.c):
 * ld_metrics_format as a pure function of a snapshot. Checks every family
 * has its HELP and TYPE lines before its samples, the per-socket and
 * per-mode labels, the exact value forms (negative smear offsets to the ns,
 * an expired table's negative expiry), the one-hot host state, the auth
 * families only when keys or NTS are configured, label escaping, the
 * length returned when the buffer is short, the --metrics address
 * parser, and ld_metrics_check (refuses a bad address, and any address
 * in a build without libmicrohttpd, naming the package). The HTTP side
 * (libmicrohttpd's, when built with it) is tested end to end by
 * tests/server_metrics.sh.
 */
#define _GNU_SOURCE /* metrics.c: SOCK_NONBLOCK, SOCK_CLOEXEC */
#include "lc_test.h"

#include "leapclockd.h"
#include "metrics.h"

#include <stdarg.h>

/* ---- what metrics.c uses of the daemon (not called by the formatter) */
static char last_log[512];

void ld_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	va_end(ap);
}
int ld_server_nlisteners(struct ld_server *s)
{
	(void)s;
	return 0;
}
int ld_server_listener(struct ld_server *s, int i, struct ld_listener_info *out)
{
	(void)s;
	(void)i;
	(void)out;
	return -1;
}
int64_t ld_clock_expires(struct ld_clock *c)
{
	(void)c;
	return INT64_MIN;
}
int ld_clock_bounds(struct ld_clock *c, struct lc_bounds *b,
                    struct lc_bounds_info *bi)
{
	(void)c;
	(void)b;
	(void)bi;
	return -1;
}
void ld_server_counters(struct ld_server *s, int i, struct ld_counters *c)
{
	(void)s;
	(void)i;
	memset(c, 0, sizeof(*c));
}
void ld_server_auth_counters(struct ld_server *s, struct ld_auth_counters *c,
                             int *configured)
{
	(void)s;
	memset(c, 0, sizeof(*c));
	*configured = 0;
}
void ld_source_read(struct ld_source *s, struct ld_reading *r)
{
	(void)s;
	memset(r, 0, sizeof(*r));
}
struct ld_source *ld_clock_source(struct ld_clock *c,
                                  const struct ld_listen_cfg *l)
{
	(void)c;
	(void)l;
	return NULL;
}
int ld_clock_host_status(struct ld_clock *c, struct lc_tk_host *h)
{
	(void)c;
	(void)h;
	return -1;
}
void ld_format_addr(const struct sockaddr *sa, char *buf, size_t size)
{
	(void)sa;
	snprintf(buf, size, "?");
}

static void sample(struct ld_metrics_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->n = 3;
	snprintf(s->l[0].listen, 80, "127.0.0.1:123");
	snprintf(s->l[0].mode, 48, "utc");
	s->l[0].c.received = 12;
	s->l[0].c.requests = 10;
	s->l[0].c.replies = 9;
	s->l[0].c.malformed = 2;
	s->l[0].c.control = 3;
	s->l[0].c.other_mode = 4;
	s->l[0].c.ratelimited = 1;
	s->l[0].c.kod = 1;
	s->l[0].c.auth_ok = 5;
	s->l[0].c.auth_fail = 6;
	s->l[0].li = LD_LI_INSERT;
	snprintf(s->l[1].listen, 80, "[::1]:123");
	snprintf(s->l[1].mode, 48, "utc");
	s->l[1].li = LD_LI_INSERT;
	s->l[1].c.requests = UINT64_C(18446744073709551615);
	snprintf(s->l[2].listen, 80, "127.0.0.1:11123");
	snprintf(s->l[2].mode, 48, "smear:google");
	s->l[2].smear = 1;
	s->l[2].smear_ns = -1500; /* 1.5 us behind */
	s->now_unix = 1000;
	s->started_unix = 900;
	s->table_expires = 400; /* expired 600 s ago */
	s->host_followed = 1;
	s->host_state = LC_HOST_STEPPED;
	s->host_offset_ns = 250000000;
	s->host_steps = 2;
	s->have_bounds = 1;
	s->bound_status = LC_BOUNDS_FREE_RUNNING;
	s->bound_ns = 1500000;
	s->bound_drift_ppb = 15100;
	s->bound_have_parts = 1;
	s->bound_unsync = 1;
	s->bound_maxerror_ns = 1000000;
	s->bound_bracket_ns = 40;
	s->bound_residual_ns = 2500;
}

static char *fmt(const struct ld_metrics_snapshot *s)
{
	static char buf[65536];
	size_t n = ld_metrics_format(s, buf, sizeof(buf));

	if (n >= sizeof(buf))
		return NULL;
	return buf;
}

/* The value of the sample line that starts with `key ` ("" if none). */
static const char *value_of(const char *text, const char *key)
{
	static char v[64];
	size_t kl = strlen(key);

	v[0] = '\0';
	for (const char *p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			size_t n = strcspn(p + kl + 1, "\n");
			snprintf(v, sizeof(v), "%.*s", (int)n, p + kl + 1);
			return v;
		}
	}
	return v;
}

static void test_counters_per_socket(void)
{
	struct ld_metrics_snapshot s;
	const char *t;

	sample(&s);
	t = fmt(&s);
	LC_TRUE(t != NULL);
	LC_EQ_STR(value_of(t, "leapclockd_requests_total{listen=\"127.0.0.1:123\",mode=\"utc\"}"), "10");
	LC_EQ_STR(value_of(t, "leapclockd_replies_total{listen=\"127.0.0.1:123\",mode=\"utc\"}"), "9");
	LC_EQ_STR(value_of(t, "leapclockd_received_total{listen=\"127.0.0.1:123\",mode=\"utc\"}"), "12");
	LC_EQ_STR(value_of(t, "leapclockd_requests_total{listen=\"[::1]:123\",mode=\"utc\"}"),
	          "18446744073709551615");
	LC_EQ_STR(value_of(t, "leapclockd_drops_total{listen=\"127.0.0.1:123\",mode=\"utc\",reason=\"malformed\"}"), "2");
	LC_EQ_STR(value_of(t, "leapclockd_drops_total{listen=\"127.0.0.1:123\",mode=\"utc\",reason=\"control\"}"), "3");
	LC_EQ_STR(value_of(t, "leapclockd_drops_total{listen=\"127.0.0.1:123\",mode=\"utc\",reason=\"other_mode\"}"), "4");
	LC_EQ_STR(value_of(t, "leapclockd_drops_total{listen=\"127.0.0.1:123\",mode=\"utc\",reason=\"ratelimited\"}"), "1");
	LC_EQ_STR(value_of(t, "leapclockd_kod_total{listen=\"127.0.0.1:123\",mode=\"utc\"}"), "1");
	LC_EQ_STR(value_of(t, "leapclockd_auth_total{listen=\"127.0.0.1:123\",mode=\"utc\",result=\"ok\"}"), "5");
	LC_EQ_STR(value_of(t, "leapclockd_auth_total{listen=\"127.0.0.1:123\",mode=\"utc\",result=\"fail\"}"), "6");
	LC_EQ_STR(value_of(t, "leapclockd_requests_total{listen=\"127.0.0.1:11123\",mode=\"smear:google\"}"), "0");
	printf("    counters per socket with listen and mode labels, drops by reason\n");
}

static void test_state_values(void)
{
	struct ld_metrics_snapshot s;
	const char *t;

	sample(&s);
	t = fmt(&s);
	LC_TRUE(t != NULL);
	/* LI once per mode, not per socket */
	LC_EQ_STR(value_of(t, "leapclockd_leap_indicator{mode=\"utc\"}"), "1");
	LC_EQ_STR(value_of(t, "leapclockd_leap_indicator{mode=\"smear:google\"}"), "0");
	LC_TRUE(strstr(strstr(t, "leapclockd_leap_indicator{mode=\"utc\"}") + 1,
	               "leapclockd_leap_indicator{mode=\"utc\"}") == NULL);
	LC_EQ_STR(value_of(t, "leapclockd_smear_offset_seconds{listen=\"127.0.0.1:11123\",mode=\"smear:google\"}"),
	          "-0.000001500");
	LC_EQ_STR(value_of(t, "leapclockd_smear_offset_seconds{listen=\"127.0.0.1:123\",mode=\"utc\"}"),
	          "0.000000000");
	LC_EQ_STR(value_of(t, "leapclockd_leap_table_expiry_seconds"), "-600");
	LC_EQ_STR(value_of(t, "leapclockd_leap_table_expires_timestamp_seconds"), "400");
	LC_EQ_STR(value_of(t, "leapclockd_host_state{state=\"stepped\"}"), "1");
	LC_EQ_STR(value_of(t, "leapclockd_host_state{state=\"agrees\"}"), "0");
	LC_EQ_STR(value_of(t, "leapclockd_host_state{state=\"not_followed\"}"), "0");
	LC_EQ_STR(value_of(t, "leapclockd_host_offset_seconds"), "0.250000000");
	LC_EQ_STR(value_of(t, "leapclockd_host_steps_total"), "2");
	LC_EQ_STR(value_of(t, "leapclockd_pretend"), "0");
	LC_EQ_STR(value_of(t, "leapclockd_start_time_seconds"), "900");
	LC_EQ_STR(value_of(t, "leapclockd_bound_status{status=\"free_running\"}"), "1");
	LC_EQ_STR(value_of(t, "leapclockd_bound_status{status=\"synchronised\"}"), "0");
	LC_EQ_STR(value_of(t, "leapclockd_bound_seconds"), "0.001500000");
	LC_EQ_STR(value_of(t, "leapclockd_bound_drift_ppb"), "15100");
	LC_EQ_STR(value_of(t, "leapclockd_bound_maxerror_seconds"), "0.001000000");
	LC_EQ_STR(value_of(t, "leapclockd_bound_bracket_seconds"), "0.000000040");
	LC_EQ_STR(value_of(t, "leapclockd_bound_residual_seconds"), "0.000002500");
	LC_EQ_STR(value_of(t, "leapclockd_host_unsync"), "1");
	/* not followed (pretend): one-hot on not_followed, no offset */
	s.host_followed = 0;
	s.pretend = 1;
	s.table_expires = INT64_MIN;
	t = fmt(&s);
	LC_EQ_STR(value_of(t, "leapclockd_host_state{state=\"not_followed\"}"), "1");
	LC_EQ_STR(value_of(t, "leapclockd_host_state{state=\"stepped\"}"), "0");
	LC_EQ_STR(value_of(t, "leapclockd_pretend"), "1");
	LC_TRUE(strstr(t, "leapclockd_host_offset_seconds") == NULL);
	LC_TRUE(strstr(t, "leapclockd_leap_table_expiry_seconds") == NULL);
	printf("    LI per mode once, smear offset to the ns, expiry negative when expired, host state one-hot\n");
}

static void test_auth_families(void)
{
	struct ld_metrics_snapshot s;
	const char *t;

	sample(&s);
	t = fmt(&s);
	LC_TRUE(strstr(t, "ntske") == NULL);
	LC_TRUE(strstr(t, "key_requests_total") == NULL);
	s.have_auth = 1;
	s.auth.key_ok = 5;
	s.auth.key_fail = 7; /* the unknown ids included, as auth.c counts */
	s.auth.key_unknown = 3;
	s.auth.nts_ok = 12;
	s.auth.nts_fail = 10;
	s.auth.nts_cookie_fail = 8;
	s.auth.nts_nak = 6;
	s.auth.ke_handshakes = 9;
	s.auth.ke_failures = 11;
	t = fmt(&s);
	LC_EQ_STR(value_of(t, "leapclockd_key_requests_total{result=\"ok\"}"), "5");
	LC_EQ_STR(value_of(t, "leapclockd_key_requests_total{result=\"bad_mac\"}"), "4");
	LC_EQ_STR(value_of(t, "leapclockd_key_requests_total{result=\"unknown_key\"}"), "3");
	LC_EQ_STR(value_of(t, "leapclockd_nts_requests_total{result=\"ok\"}"), "12");
	LC_EQ_STR(value_of(t, "leapclockd_nts_requests_total{result=\"fail\"}"), "10");
	LC_EQ_STR(value_of(t, "leapclockd_nts_cookie_failures_total"), "8");
	LC_EQ_STR(value_of(t, "leapclockd_nts_naks_total"), "6");
	LC_EQ_STR(value_of(t, "leapclockd_ntske_handshakes_total"), "9");
	LC_EQ_STR(value_of(t, "leapclockd_ntske_failures_total"), "11");
	/* a snapshot where unknown ran ahead of fail: no wrap-around */
	s.auth.key_unknown = 9;
	t = fmt(&s);
	LC_EQ_STR(value_of(t, "leapclockd_key_requests_total{result=\"bad_mac\"}"), "0");
	printf("    MAC results disjoint (bad_mac = fail - unknown), cookie, NTSN and NTS-KE families only with keys or NTS configured\n");
}

/* Every sample's family has had its # HELP and # TYPE lines, each
 * family's are given once, and its samples are together. */
static void test_structure(void)
{
	struct ld_metrics_snapshot s;
	char *t, *save = NULL, *line;
	char seen[64][64];
	int nseen = 0;
	char cur[64] = "";

	sample(&s);
	s.have_auth = 1;
	t = fmt(&s);
	LC_TRUE(t[strlen(t) - 1] == '\n');
	for (line = strtok_r(t, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (strncmp(line, "# HELP ", 7) == 0) {
			sscanf(line + 7, "%63s", name);
			for (int i = 0; i < nseen; i++)
				LC_TRUE(strcmp(seen[i], name) != 0);
			LC_TRUE(nseen < 64);
			snprintf(seen[nseen++], 64, "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			char type[16];

			LC_EQ_INT(sscanf(line + 7, "%63s %15s", name, type), 2);
			LC_EQ_STR(name, cur);
			LC_TRUE(strcmp(type, "counter") == 0 ||
			        strcmp(type, "gauge") == 0);
			/* counters, and only they, end in _total */
			LC_EQ_INT(strcmp(type, "counter") == 0,
			          strlen(name) > 6 &&
			                  strcmp(name + strlen(name) - 6, "_total") == 0);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, "{ "), line);
		LC_EQ_STR(name, cur);
	}
	LC_GE_INT(nseen, 15);
	printf("    %d families, each with HELP and TYPE once before its samples; _total = counter\n",
	       nseen);
}

static void test_escaping_and_short_buffer(void)
{
	struct ld_metrics_snapshot s;
	char small[100];
	size_t full, n;
	const char *t;

	sample(&s);
	snprintf(s.l[2].mode, 48, "smear:a\"b\\c\nd");
	t = fmt(&s);
	LC_CONTAINS(t, "mode=\"smear:a\\\"b\\\\c\\nd\"");
	full = strlen(t);
	n = ld_metrics_format(&s, small, sizeof(small));
	LC_EQ_U64(n, full);
	LC_EQ_U64(strlen(small), sizeof(small) - 1);
	LC_EQ_INT(memcmp(small, t, sizeof(small) - 1), 0);
	LC_EQ_U64(ld_metrics_format(&s, NULL, 0), full);
	printf("    label values escaped (\\\" \\\\ \\n); a short buffer is cut and the full length returned\n");
}

static void test_parse_addr(void)
{
	struct sockaddr_storage ss;
	socklen_t l;

	LC_EQ_INT(ld_metrics_parse_addr("127.0.0.1:9975", &ss, &l), 0);
	LC_EQ_INT(ss.ss_family, AF_INET);
	LC_EQ_INT(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9975);
	LC_EQ_INT(ld_metrics_parse_addr("[::1]:9975", &ss, &l), 0);
	LC_EQ_INT(ss.ss_family, AF_INET6);
	LC_EQ_INT(ld_metrics_parse_addr("127.0.0.1", &ss, &l), -1);
	LC_EQ_INT(ld_metrics_parse_addr("127.0.0.1:", &ss, &l), -1);
	LC_EQ_INT(ld_metrics_parse_addr("127.0.0.1:65536", &ss, &l), -1);
	LC_EQ_INT(ld_metrics_parse_addr("127.0.0.1:-1", &ss, &l), -1);
	LC_EQ_INT(ld_metrics_parse_addr("localhost:9975", &ss, &l), -1);
	LC_EQ_INT(ld_metrics_parse_addr("::1:9975", &ss, &l), -1);
	LC_EQ_INT(ld_metrics_parse_addr("[::1]9975", &ss, &l), -1);
	printf("    --metrics takes 1.2.3.4:P and [v6]:P, refuses names, no port, bad ports\n");
}

/* ld_metrics_check: what main.c refuses with exit 2 before binding */
static void test_check(void)
{
	static struct ld_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	LC_EQ_INT(ld_metrics_check(&cfg), 0);
	snprintf(cfg.metrics, sizeof(cfg.metrics), "localhost:9975");
	last_log[0] = '\0';
	LC_EQ_INT(ld_metrics_check(&cfg), -1);
	LC_CONTAINS(last_log, "not ADDR:PORT");
	snprintf(cfg.metrics, sizeof(cfg.metrics), "127.0.0.1:9975");
	last_log[0] = '\0';
#ifdef LD_HAVE_MHD
	LC_EQ_INT(ld_metrics_check(&cfg), 0);
	LC_EQ_INT(last_log[0], '\0');
	printf("    off: fine; a name refused; 127.0.0.1:9975 fine (built with libmicrohttpd)\n");
#else
	LC_EQ_INT(ld_metrics_check(&cfg), -1);
	LC_CONTAINS(last_log, "libmicrohttpd-dev");
	printf("    off: fine; a name refused; 127.0.0.1:9975 refused naming libmicrohttpd-dev (built without it)\n");
#endif
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_counters_per_socket, "counters per socket and mode");
	LC_RUN(test_state_values, "leap state, smear offset, table expiry, host state");
	LC_RUN(test_auth_families, "auth and NTS-KE counters");
	LC_RUN(test_structure, "exposition format structure");
	LC_RUN(test_escaping_and_short_buffer, "escaping, truncation");
	LC_RUN(test_parse_addr, "the --metrics address");
	LC_RUN(test_check, "--metrics checked at start");
	return lc_test_done();
}
