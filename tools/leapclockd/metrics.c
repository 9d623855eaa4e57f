/*
 * metrics.c - Prometheus metrics for leapclockd (see metrics.h).
 *
 * The text is the exposition format 0.0.4: for each family a # HELP and a
 * # TYPE line, then its samples; counters end in _total. Per socket the
 * labels are listen="ADDR:PORT" (as bound) and mode="utc" or
 * "smear:NAME"; the leap indicator is per mode.
 *
 * The HTTP side is GNU libmicrohttpd (Debian libmicrohttpd-dev; built
 * only when CMake finds it, LD_HAVE_MHD): its one internal thread, poll(),
 * no TLS, on the socket bound here to the configured address only. At
 * most LD_METRICS_MAX_CONN connections, LD_METRICS_PER_IP of them from one
 * address; a connection silent for LD_METRICS_TIMEOUT_S is closed; a
 * request head that does not fit LD_METRICS_CONN_MEMORY gets 431. One
 * request per connection (Connection: close). GET (and HEAD) of /metrics
 * gets 200, any other path 404, any other method 405, anything
 * unparseable 400 (from MHD). Without libmicrohttpd, --metrics is refused
 * at start with a message naming the package.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef LD_HAVE_MHD
#include <microhttpd.h>
#endif

/* ---- the text (pure) ---------------------------------------------------- */

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = o->len < o->size ? o->size - o->len : 0;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* A label value with \, " and newline escaped as the format asks. */
static void put_label(struct out *o, const char *v)
{
	for (; *v != '\0'; v++) {
		if (*v == '\\')
			put(o, "\\\\");
		else if (*v == '"')
			put(o, "\\\"");
		else if (*v == '\n')
			put(o, "\\n");
		else
			put(o, "%c", *v);
	}
}

static void family(struct out *o, const char *name, const char *type,
                   const char *help)
{
	put(o, "# HELP leapclockd_%s %s\n# TYPE leapclockd_%s %s\n", name, help,
	    name, type);
}

static void sock_labels(struct out *o, const struct ld_metrics_listener *l)
{
	put(o, "{listen=\"");
	put_label(o, l->listen);
	put(o, "\",mode=\"");
	put_label(o, l->mode);
	put(o, "\"");
}

/* One sample per socket of the counter at `off` in struct ld_counters. */
static void per_socket(struct out *o, const struct ld_metrics_snapshot *s,
                       const char *name, size_t off, const char *extra)
{
	for (int i = 0; i < s->n; i++) {
		uint64_t v;

		memcpy(&v, (const char *)&s->l[i].c + off, sizeof(v));
		put(o, "leapclockd_%s", name);
		sock_labels(o, &s->l[i]);
		if (extra != NULL)
			put(o, ",%s", extra);
		put(o, "} %" PRIu64 "\n", v);
	}
}

/* ns as seconds, exactly (no float rounding): -0.000001500 */
static void put_seconds(struct out *o, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	put(o, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", a / 1000000000u,
	    a % 1000000000u);
}

static const char *const host_states[] = {
	"not_followed", "agrees", "leap_off", "stepped", "smeared",
};

/* The per-socket counters. */
static void format_sockets(struct out *o, const struct ld_metrics_snapshot *s)
{
#define OFF(f) offsetof(struct ld_counters, f)
	family(o, "received_total", "counter",
	       "Datagrams received, per socket.");
	per_socket(o, s, "received_total", OFF(received), NULL);
	family(o, "requests_total", "counter",
	       "Well-formed NTP client requests, per socket.");
	per_socket(o, s, "requests_total", OFF(requests), NULL);
	family(o, "replies_total", "counter", "Time replies sent, per socket.");
	per_socket(o, s, "replies_total", OFF(replies), NULL);
	family(o, "drops_total", "counter",
	       "Datagrams dropped unanswered (or answered with a kiss), by "
	       "reason: malformed, control (mode 6/7), other_mode, "
	       "ratelimited.");
	per_socket(o, s, "drops_total", OFF(malformed), "reason=\"malformed\"");
	per_socket(o, s, "drops_total", OFF(control), "reason=\"control\"");
	per_socket(o, s, "drops_total", OFF(other_mode),
	           "reason=\"other_mode\"");
	per_socket(o, s, "drops_total", OFF(ratelimited),
	           "reason=\"ratelimited\"");
	family(o, "kod_total", "counter",
	       "Kiss-o'-death and crypto-NAK replies sent, per socket.");
	per_socket(o, s, "kod_total", OFF(kod), NULL);
	family(o, "send_errors_total", "counter",
	       "Replies the kernel did not take, per socket.");
	per_socket(o, s, "send_errors_total", OFF(send_errors), NULL);
	family(o, "auth_total", "counter",
	       "Authenticated requests (keys or NTS) by result, per socket.");
	per_socket(o, s, "auth_total", OFF(auth_ok), "result=\"ok\"");
	per_socket(o, s, "auth_total", OFF(auth_fail), "result=\"fail\"");
#undef OFF
}

/* The authentication code's counters (keys and NTS). */
static void format_auth(struct out *o, const struct ld_metrics_snapshot *s)
{
	const struct ld_auth_counters *a = &s->auth;

	/* disjoint results: key_fail counts the unknown ids too */
	uint64_t bad_mac = a->key_fail > a->key_unknown
	                   ? a->key_fail - a->key_unknown
	                   : 0;

	family(o, "key_requests_total", "counter",
	       "Requests with a symmetric-key MAC, by result: ok, "
	       "bad_mac (a known key, a wrong MAC), unknown_key.");
	put(o, "leapclockd_key_requests_total{result=\"ok\"} %" PRIu64
	        "\n", a->key_ok);
	put(o, "leapclockd_key_requests_total{result=\"bad_mac\"} %"
	        PRIu64 "\n", bad_mac);
	put(o, "leapclockd_key_requests_total{result=\"unknown_key\"} %"
	        PRIu64 "\n", a->key_unknown);
	family(o, "nts_requests_total", "counter",
	       "NTS-protected requests, by result: ok, fail.");
	put(o, "leapclockd_nts_requests_total{result=\"ok\"} %" PRIu64
	        "\n", a->nts_ok);
	put(o, "leapclockd_nts_requests_total{result=\"fail\"} %" PRIu64
	        "\n", a->nts_fail);
	family(o, "nts_cookie_failures_total", "counter",
	       "NTS requests whose cookie did not decrypt (of the "
	       "failed ones).");
	put(o, "leapclockd_nts_cookie_failures_total %" PRIu64 "\n",
	    a->nts_cookie_fail);
	family(o, "nts_naks_total", "counter",
	       "NTSN kiss-o'-death replies sent.");
	put(o, "leapclockd_nts_naks_total %" PRIu64 "\n", a->nts_nak);
	family(o, "ntske_handshakes_total", "counter",
	       "NTS-KE sessions that handed out cookies.");
	put(o, "leapclockd_ntske_handshakes_total %" PRIu64 "\n",
	    a->ke_handshakes);
	family(o, "ntske_failures_total", "counter",
	       "NTS-KE sessions that failed (TLS or protocol).");
	put(o, "leapclockd_ntske_failures_total %" PRIu64 "\n",
	    a->ke_failures);
}

/* What is served now: the leap indicator per mode, the smear per socket. */
static void format_served(struct out *o, const struct ld_metrics_snapshot *s)
{
	family(o, "leap_indicator", "gauge",
	       "The leap indicator served now, per mode: 0 none, 1 a second "
	       "inserted tonight, 2 deleted, 3 unsynchronised.");
	for (int i = 0; i < s->n; i++) {
		int seen = 0;

		for (int j = 0; j < i; j++)
			seen |= strcmp(s->l[j].mode, s->l[i].mode) == 0;
		if (seen)
			continue;
		put(o, "leapclockd_leap_indicator{mode=\"");
		put_label(o, s->l[i].mode);
		put(o, "\"} %u\n", s->l[i].li);
	}
	family(o, "smear_offset_seconds", "gauge",
	       "Served time minus unsmeared UTC now, per socket (0 outside a "
	       "smear and on utc sockets).");
	for (int i = 0; i < s->n; i++) {
		put(o, "leapclockd_smear_offset_seconds");
		sock_labels(o, &s->l[i]);
		put(o, "} ");
		put_seconds(o, s->l[i].smear ? s->l[i].smear_ns : 0);
		put(o, "\n");
	}
}

/* The leap table's expiry, the pretend flag and the host clock's state. */
/* UTC's error bound (leapclock_clock(3), "Error bounds"; issue 23). */
static void put_bounds(struct out *o, const struct ld_metrics_snapshot *s)
{
	static const char *const names[] = { "unknown", "synchronised",
	                                     "free_running" };

	if (!s->have_bounds)
		return;
	family(o, "bound_status", "gauge",
	       "The error bound's status: 1 for the one it is in.");
	for (int k = 0; k < 3; k++)
		put(o, "leapclockd_bound_status{status=\"%s\"} %d\n", names[k],
		    s->bound_status == k ? 1 : 0);
	family(o, "bound_seconds", "gauge",
	       "Half-width of the bound on |UTC - true UTC| now (every clock "
	       "but monotonic_raw has the same).");
	put(o, "leapclockd_bound_seconds ");
	put_seconds(o, s->bound_ns);
	put(o, "\n");
	family(o, "bound_drift_ppb", "gauge",
	       "How fast the bound grows from the last host sample, ppb.");
	put(o, "leapclockd_bound_drift_ppb %" PRId64 "\n", s->bound_drift_ppb);
	if (!s->bound_have_parts)
		return;
	family(o, "bound_maxerror_seconds", "gauge",
	       "The host kernel's maxerror at the last sample (in the bound).");
	put(o, "leapclockd_bound_maxerror_seconds ");
	put_seconds(o, s->bound_maxerror_ns);
	put(o, "\n");
	family(o, "bound_bracket_seconds", "gauge",
	       "Width of the last host sample's counter bracket.");
	put(o, "leapclockd_bound_bracket_seconds ");
	put_seconds(o, s->bound_bracket_ns);
	put(o, "\n");
	family(o, "bound_residual_seconds", "gauge",
	       "Phase to the host the steer had yet to remove at the last "
	       "sample.");
	put(o, "leapclockd_bound_residual_seconds ");
	put_seconds(o, s->bound_residual_ns);
	put(o, "\n");
	family(o, "host_unsync", "gauge",
	       "1 while the host kernel reports STA_UNSYNC.");
	put(o, "leapclockd_host_unsync %d\n", s->bound_unsync ? 1 : 0);
}

static void format_table_host(struct out *o,
                              const struct ld_metrics_snapshot *s)
{
	if (s->table_expires != INT64_MIN) {
		family(o, "leap_table_expiry_seconds", "gauge",
		       "Seconds until the leap table expires (negative: "
		       "expired).");
		put(o, "leapclockd_leap_table_expiry_seconds %" PRId64 "\n",
		    s->table_expires - s->now_unix);
		family(o, "leap_table_expires_timestamp_seconds", "gauge",
		       "When the leap table expires, POSIX seconds.");
		put(o, "leapclockd_leap_table_expires_timestamp_seconds %" PRId64
		        "\n", s->table_expires);
	}
	family(o, "pretend", "gauge",
	       "1 while serving a --pretend rehearsal, not the real time.");
	put(o, "leapclockd_pretend %d\n", s->pretend ? 1 : 0);
	family(o, "host_state", "gauge",
	       "The timeline's verdict on the host clock: 1 for the state it "
	       "is in (not_followed with --pretend).");
	for (size_t k = 0; k < sizeof(host_states) / sizeof(host_states[0]);
	     k++) {
		int state = s->host_followed ? s->host_state : 0;

		put(o, "leapclockd_host_state{state=\"%s\"} %d\n",
		    host_states[k], (size_t)state == k ? 1 : 0);
	}
	family(o, "host_leap_mode", "gauge",
	       "How the host's clock handles a leap second, as declared "
	       "(--host-leap): 1 for that mode.");
	put(o, "leapclockd_host_leap_mode{mode=\"%s\"} 1\n", s->host_leap);
	family(o, "host_leap_detected", "gauge",
	       "1 when the host's clock, undeclared, looked like a known smear "
	       "or a slew or step around a leap (the mode label says which "
	       "--host-leap would declare it), else 0 (mode \"\").");
	put(o, "leapclockd_host_leap_detected{mode=\"%s\"} %d\n",
	    s->host_detected, s->host_detected[0] != '\0' ? 1 : 0);
	if (s->host_followed) {
		family(o, "host_offset_seconds", "gauge",
		       "Host CLOCK_REALTIME minus the timeline's REALTIME "
		       "(declared host smear removed) at the last update.");
		put(o, "leapclockd_host_offset_seconds ");
		put_seconds(o, s->host_offset_ns);
		put(o, "\n");
		family(o, "host_steps_total", "counter",
		       "Steps of the host clock the timeline followed.");
		put(o, "leapclockd_host_steps_total %" PRIu64 "\n",
		    s->host_steps);
		family(o, "host_leaps_behind", "gauge",
		       "Leap seconds applied by the timeline that the host "
		       "clock has not (yet).");
		put(o, "leapclockd_host_leaps_behind %d\n",
		    s->host_leaps_behind);
	}
	put_bounds(o, s);
}

size_t ld_metrics_format(const struct ld_metrics_snapshot *s, char *buf,
                         size_t size)
{
	struct out o = { buf, size, 0 };

	if (size > 0)
		buf[0] = '\0';
	format_sockets(&o, s);
	if (s->have_auth)
		format_auth(&o, s);
	format_served(&o, s);
	format_table_host(&o, s);
	family(&o, "start_time_seconds", "gauge",
	       "When the daemon started, POSIX seconds.");
	put(&o, "leapclockd_start_time_seconds %" PRId64 "\n", s->started_unix);
	return o.len;
}

int ld_metrics_parse_addr(const char *text, struct sockaddr_storage *ss,
                          socklen_t *len)
{
	char host[64];
	const char *colon;
	char *end;
	unsigned long port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (close == NULL || close[1] != ':')
			return -1;
		hl = (size_t)(close - text - 1);
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, text + 1, hl);
		host[hl] = '\0';
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (colon == NULL)
			return -1;
		hl = (size_t)(colon - text);
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, text, hl);
		host[hl] = '\0';
	}
	if (colon[1] < '0' || colon[1] > '9')
		return -1;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || errno != 0 || port > 65535)
		return -1;
	if (text[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -1;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof(*a);
	}
	return 0;
}

/* ---- the snapshot ------------------------------------------------------- */

struct ld_metrics {
	const struct ld_config *cfg;
	struct ld_server *server;
	struct ld_clock *clock;
	struct ld_source *src[LD_MAX_LISTEN];
	char name[LD_MAX_LISTEN][80];
	int64_t started_unix;
	int lfd;                  /* bound and listening; MHD's once started */
#ifdef LD_HAVE_MHD
	struct MHD_Daemon *httpd;
#endif
	uint64_t scrapes;         /* touched by the HTTP thread only */
};

void ld_metrics_snapshot(struct ld_metrics *m, struct ld_metrics_snapshot *s)
{
	struct lc_tk_host h;
	int n = ld_server_nlisteners(m->server);

	memset(s, 0, sizeof(*s));
	if (n > m->cfg->nlisten)
		n = m->cfg->nlisten;
	s->n = n;
	for (int i = 0; i < n; i++) {
		struct ld_metrics_listener *l = &s->l[i];
		struct ld_listener_info info;
		struct ld_reading r;

		if (ld_server_listener(m->server, i, &info) == 0) {
			snprintf(l->listen, sizeof(l->listen), "%s", info.addr);
			snprintf(l->mode, sizeof(l->mode), "%s", info.mode);
		} else {
			snprintf(l->listen, sizeof(l->listen), "%s", m->name[i]);
			snprintf(l->mode, sizeof(l->mode), "%s",
			         m->cfg->listen[i].mode_name);
		}
		ld_server_counters(m->server, i, &l->c);
		l->smear = m->cfg->listen[i].smear;
		if (m->src[i] != NULL) {
			ld_source_read(m->src[i], &r);
			l->li = r.li;
			l->smear_ns = r.smear_ns;
		}
	}
	ld_server_auth_counters(m->server, &s->auth, &s->have_auth);
	s->now_unix = (int64_t)time(NULL);
	s->started_unix = m->started_unix;
	s->table_expires = ld_clock_expires(m->clock);
	s->pretend = m->cfg->pretend[0] != '\0';
	if (ld_clock_host_status(m->clock, &h) == 0) {
		s->host_followed = 1;
		s->host_state = h.state;
		s->host_offset_ns = h.offset_ns;
		s->host_steps = h.steps;
		s->host_leaps_behind = h.leaps_behind;
		snprintf(s->host_detected, sizeof(s->host_detected), "%s",
		         h.detected_text);
		snprintf(s->host_leap, sizeof(s->host_leap), "%s",
		         h.host_leap_text);
	}
	if (s->host_leap[0] == '\0') {
		/* --pretend (not following), or a page that predates it:
		 * the configured mode */
		struct lc_host_leap_spec sp;

		if (m->cfg->host_leap[0] == '\0' ||
		    lc_host_leap_parse(m->cfg->host_leap, NULL, &sp, NULL) != 0 ||
		    lc_host_leap_format(&sp, s->host_leap, sizeof(s->host_leap)) < 0)
			snprintf(s->host_leap, sizeof(s->host_leap), "kernel");
	}
	{
		struct lc_bounds b;
		struct lc_bounds_info bi;

		if (ld_clock_bounds(m->clock, &b, &bi) == 0) {
			s->have_bounds = 1;
			s->bound_status = b.status;
			s->bound_ns = b.error_ns;
			s->bound_drift_ppb = bi.drift_ppb;
			s->bound_have_parts = bi.have_parts;
			s->bound_unsync = bi.unsync;
			s->bound_maxerror_ns = bi.maxerror_ns;
			s->bound_bracket_ns = bi.bracket_ns;
			s->bound_residual_ns = bi.residual_ns;
		}
	}
}


/* ---- the check at start --------------------------------------------------- */

int ld_metrics_check(const struct ld_config *cfg)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	if (cfg->metrics[0] == '\0')
		return 0;
	if (ld_metrics_parse_addr(cfg->metrics, &ss, &sl) != 0) {
		ld_log(LD_LOG_ERR,
		       "--metrics '%s': not ADDR:PORT (1.2.3.4:9975 or "
		       "[::1]:9975)", cfg->metrics);
		return -1;
	}
#ifndef LD_HAVE_MHD
	ld_log(LD_LOG_ERR,
	       "--metrics %s: this leapclockd was built without libmicrohttpd "
	       "(Debian package libmicrohttpd-dev), which serves the metrics: "
	       "rebuild with it, or drop --metrics", cfg->metrics);
	return -1;
#else
	return 0;
#endif
}

/* ---- HTTP (libmicrohttpd) ------------------------------------------------ */

#ifdef LD_HAVE_MHD

static const char body_404[] = "404 Not Found\n";
static const char body_405[] = "405 Method Not Allowed\n";
static const char body_500[] = "500 Internal Server Error\n";

/* Queues one answer; one request per connection (Connection: close), as
 * a scraper needs no more and an idle kept-alive socket holds a slot. */
static enum MHD_Result answer(struct MHD_Connection *conn, unsigned code,
                              const char *ctype, const char *body,
                              size_t len, int copy)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(len, (void *)body,
	                                    copy ? MHD_RESPMEM_MUST_COPY
	                                         : MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype) !=
	            MHD_YES ||
	    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close") !=
	            MHD_YES ||
	    (code == MHD_HTTP_METHOD_NOT_ALLOWED &&
	     MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") !=
	             MHD_YES)) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	rc = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result answer_text(struct MHD_Connection *conn, unsigned code,
                                   const char *body, size_t len)
{
	return answer(conn, code, "text/plain; charset=utf-8", body, len, 0);
}

/* The snapshot as text in a buffer of its own (NULL: out of memory). */
static char *metrics_text(struct ld_metrics *m, size_t *len)
{
	struct ld_metrics_snapshot *snap = malloc(sizeof(*snap));
	size_t size = 16384;
	char *text = NULL;

	if (snap == NULL)
		return NULL;
	ld_metrics_snapshot(m, snap);
	for (int tries = 0; tries < 4; tries++) {
		text = malloc(size);
		if (text == NULL)
			break;
		*len = ld_metrics_format(snap, text, size);
		if (*len < size)
			break;
		free(text);
		text = NULL;
		size = *len + 1;
	}
	free(snap);
	return text;
}

/* MHD's request handler, in its one thread: called once the request head
 * is in (MHD has answered 400, 414 or 431 itself to a head it could not
 * take). GET and HEAD of /metrics (MHD sends no body to HEAD); any other
 * method 405, any other path 404; the query is not part of url. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version,
                                  const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
	struct ld_metrics *m = cls;
	enum MHD_Result rc;
	size_t len = 0;
	char *text;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, body_405,
		                   sizeof(body_405) - 1);
	if (strcmp(url, "/metrics") != 0)
		return answer_text(conn, MHD_HTTP_NOT_FOUND, body_404,
		                   sizeof(body_404) - 1);
	text = metrics_text(m, &len);
	if (text == NULL)
		return answer_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
		                   body_500, sizeof(body_500) - 1);
	m->scrapes++;
	rc = answer(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
	            text, len, 1);
	free(text);
	return rc;
}

#endif /* LD_HAVE_MHD */

int ld_metrics_new(struct ld_metrics **out, const struct ld_config *cfg,
                   struct ld_server *server, struct ld_clock *clock)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct ld_metrics *m;
	int one = 1;

	*out = NULL;
	if (cfg->metrics[0] == '\0')
		return 0;
	if (ld_metrics_check(cfg) != 0 ||
	    ld_metrics_parse_addr(cfg->metrics, &ss, &sl) != 0)
		return -1;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -1;
	m->cfg = cfg;
	m->server = server;
	m->clock = clock;
	m->started_unix = (int64_t)time(NULL);
	for (int i = 0; i < cfg->nlisten; i++) {
		/* Sources of the metrics' own, made now in this thread: a
		 * source keeps a cache (the LI of the day, the smear span)
		 * that its reader updates, so the metrics thread reads its
		 * own and never the server's. Per mode, as the server's. */
		struct ld_listen_cfg own = cfg->listen[i];

		snprintf(own.mode_name, sizeof(own.mode_name), "metrics %.38s",
		         cfg->listen[i].mode_name);
		m->src[i] = ld_clock_source(clock, &own);
		ld_format_addr((const struct sockaddr *)&cfg->listen[i].addr,
		               m->name[i], sizeof(m->name[i]));
	}
	/* bound here, on this address only, so that an error is printed
	 * before detaching; libmicrohttpd takes the socket at start */
	m->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	                0);
	if (m->lfd < 0 ||
	    setsockopt(m->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(m->lfd, (struct sockaddr *)&ss, sl) != 0 ||
	    listen(m->lfd, LD_METRICS_MAX_CONN) != 0) {
		ld_log(LD_LOG_ERR, "--metrics %s: %s", cfg->metrics,
		       strerror(errno));
		ld_metrics_free(m);
		return -1;
	}
	ld_log(LD_LOG_INFO, "metrics on http://%s/metrics", cfg->metrics);
	*out = m;
	return 0;
}

int ld_metrics_start(struct ld_metrics *m)
{
#ifdef LD_HAVE_MHD
	sigset_t all, old;
	int e;

	if (m == NULL)
		return 0;
	/* Its one thread polls the listening socket and every connection;
	 * no TLS. A connection silent for LD_METRICS_TIMEOUT_S is closed;
	 * one address holds at most LD_METRICS_PER_IP of the
	 * LD_METRICS_MAX_CONN (more are closed at once), so idle clients
	 * at a few addresses leave room for the scraper (issue 28 item 11).
	 * MHD's messages are off: one a refused connection would let a
	 * client fill the log. The thread takes no signal: they are the
	 * main loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = 0;
	m->httpd = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC, 0,
		NULL, NULL, on_request, m,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)m->lfd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)LD_METRICS_MAX_CONN,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)LD_METRICS_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)LD_METRICS_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)LD_METRICS_CONN_MEMORY, MHD_OPTION_END);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (m->httpd == NULL) {
		ld_log(LD_LOG_ERR, "--metrics %s: libmicrohttpd did not start%s%s",
		       m->cfg->metrics, e != 0 ? ": " : "",
		       e != 0 ? strerror(e) : "");
		return -1;
	}
	m->lfd = -1; /* MHD's now: it closes it when stopped */
	return 0;
#else
	return m == NULL ? 0 : -1;
#endif
}

void ld_metrics_free(struct ld_metrics *m)
{
	if (m == NULL)
		return;
#ifdef LD_HAVE_MHD
	if (m->httpd != NULL)
		MHD_stop_daemon(m->httpd);
#endif
	if (m->lfd >= 0)
		close(m->lfd);
	free(m);
}
