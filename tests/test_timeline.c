/*
 * test_timeline.c - the host timeline page (src/timeline_*.c, DESIGN.md 8):
 * a writer and a reader in one process read the same clocks; every page a
 * reader must refuse is refused with a code and a reason; lc__tl_validate
 * on random mutations of a good image; a second writer is refused while
 * the first runs and continues the page in place after it, with no step
 * for a reader that stays mapped; a reader of a page gone stale carries on
 * in-process with no step; a table change of the writer reaches readers.
 *
 * Everything happens in a fresh mkdtemp folder (mode 0700); the host clock
 * is only read.
 */
#define _GNU_SOURCE
#include "lc_test.h"
#include "leapclock.h"
#include "timeline.h"
#include "timekeeper.h"
#include "tk_writer.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define US INT64_C(1000)
#define PAGE_SZ sizeof(struct lc__tl_page)

static char dir[128];
static lc_leaptable *wtable; /* the writers' table */

static int64_t host_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t rd(const lc_timekeeper *tk, lc_clock_id id)
{
	struct timespec ts;

	if (lc_gettime(tk, id, &ts) != 0)
		return INT64_MIN;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Clock `id` of tk and, in *mid, the MONOTONIC of tk at the same instant
 * (the middle of a bracket of two MONOTONIC reads under 500 ns apart:
 * retried while a preemption widens it). */
static int64_t rd_at(const lc_timekeeper *tk, lc_clock_id id, int64_t *mid)
{
	int64_t a, v, b;

	for (int i = 0;; i++) {
		a = rd(tk, LC_CLOCK_MONOTONIC);
		v = rd(tk, id);
		b = rd(tk, LC_CLOCK_MONOTONIC);
		if (b - a < 500 || i == 1000)
			break;
	}
	*mid = a + (b - a) / 2;
	return v;
}

static void pathof(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

/* The full tzdata file of the test data plus `extra` lines. */
static char *tz_text(const char *extra)
{
	char p[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(p, sizeof(p), "%s/leapseconds.tzdata2026f", LC_TEST_DATA_DIR);
	f = fopen(p, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + strlen(extra) + 2);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf != NULL)
		strcat(buf, extra);
	return buf;
}

/* A writer's timekeeper: the host's CLOCK_MONOTONIC, table leaps, not
 * following the host, set to `rt_s` POSIX seconds (0: left at the host's
 * REALTIME, where it starts). */
static lc_timekeeper *new_writer_tk(int64_t rt_s)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;
	lc_counter *c = NULL;
	struct timespec ts = { (time_t)rt_s, 250000000 };

	if (lc_counter_new_system(&c, CLOCK_MONOTONIC) != 0)
		return NULL;
	lc_tk_config_init(&cfg);
	cfg.table = wtable;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.follow_host = 0;
	if (lc_tk_new(&tk, c, &cfg) != 0) {
		lc_counter_free(c);
		return NULL;
	}
	if (rt_s != 0 && lc_settime(tk, LC_CLOCK_REALTIME, &ts) != 0) {
		lc_tk_free(tk);
		lc_counter_free(c);
		return NULL;
	}
	return tk;
}

static void free_writer_tk(lc_timekeeper *tk)
{
	lc_counter *c;

	if (tk == NULL)
		return;
	c = lc_tk_counter(tk);
	lc_tk_free(tk);
	lc_counter_free(c);
}

/* Closes a reader; `first` is the table it had at open (freed too if the
 * reader replaced it), NULL if the table cannot have changed. */
static void reader_close_tables(struct lc__tl_reader *r, lc_leaptable *first)
{
	lc_leaptable *last = r->table;

	if (r->tk != NULL)
		lc_tk_free(r->tk);
	lc_counter_free(r->counter);
	lc__tl_map_close(&r->map);
	lc_leaptable_free(last);
	/* the tables it replaced, `first` among them (kept on r->old) */
	for (size_t i = 0; i < r->nold; i++)
		lc_leaptable_free(r->old[i]);
	LC_TRUE(first == NULL || first == last || r->nold > 0);
	free(r->old);
	memset(r, 0, sizeof(*r));
}

static void reader_close(struct lc__tl_reader *r)
{
	if (r->tk != NULL)
		lc_tk_free(r->tk);
	lc_counter_free(r->counter);
	lc__tl_map_close(&r->map);
	/* r->table: the reader's tables are never freed by design (a caller
	 * may hold one); the last one is ours to free here. */
	lc_leaptable_free(r->table);
	for (size_t i = 0; i < r->nold; i++)
		lc_leaptable_free(r->old[i]);
	free(r->old);
	memset(r, 0, sizeof(*r));
}

static void *read_image(const char *path)
{
	void *img = aligned_alloc(64, (PAGE_SZ + 63) / 64 * 64);
	int fd = open(path, O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = pread(fd, img, PAGE_SZ, 0);
		close(fd);
	}
	if (img == NULL || n != (ssize_t)PAGE_SZ) {
		free(img);
		return NULL;
	}
	return img;
}

/* A child serving a page image at PATH.sock as a writer would (a memfd
 * over SCM_RIGHTS), sealed or not. */
static pid_t image_server = -1;
static int image_seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE;

static void stop_image_server(void)
{
	if (image_server > 0) {
		kill(image_server, SIGKILL);
		waitpid(image_server, NULL, 0);
	}
	image_server = -1;
}

static void serve_image(const char *path, const void *img, size_t len)
{
	struct sockaddr_un sa;
	int s, mfd;
	pid_t pid;

	stop_image_server();
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.sock", path);
	unlink(sa.sun_path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	mfd = (int)syscall(SYS_memfd_create, "image", MFD_ALLOW_SEALING);
	if (s < 0 || mfd < 0 || write(mfd, img, len) != (ssize_t)len ||
	    (image_seals != 0 && fcntl(mfd, F_ADD_SEALS, image_seals) < 0) ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 8) < 0) {
		LC_T_FAIL_("cannot serve %s", sa.sun_path);
		return;
	}
	pid = fork();
	if (pid == 0) {
		for (;;) {
			char one = 'T';
			struct iovec iov = { &one, 1 };
			char cb[CMSG_SPACE(sizeof(int))];
			struct msghdr mh;
			struct cmsghdr *cm;
			int c = accept(s, NULL, NULL);

			if (c < 0)
				_exit(0);
			memset(&mh, 0, sizeof(mh));
			memset(cb, 0, sizeof(cb));
			mh.msg_iov = &iov;
			mh.msg_iovlen = 1;
			mh.msg_control = cb;
			mh.msg_controllen = sizeof(cb);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
			(void)sendmsg(c, &mh, MSG_NOSIGNAL);
			close(c);
		}
	}
	close(s);
	close(mfd);
	image_server = pid;
}

/* Writes an image (len bytes) at dir/name with `mode`, the heartbeat set
 * to now so that a reader does not find it stale, and serves it as its
 * writer would. */
static int put_image(const char *name, const void *img, size_t len,
                     mode_t mode, char *path, size_t pathn)
{
	struct lc__tl_page *pg = aligned_alloc(64, (PAGE_SZ + 63) / 64 * 64);
	int fd, rc = -1;

	pathof(path, pathn, name);
	unlink(path);
	if (pg == NULL)
		return -1;
	memcpy(pg, img, PAGE_SZ);
	atomic_store(&pg->heartbeat, host_ns(CLOCK_MONOTONIC));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0) {
		if (write(fd, pg, len) == (ssize_t)len && fchmod(fd, mode) == 0)
			rc = 0;
		close(fd);
	}
	serve_image(path, pg, len);
	free(pg);
	return rc;
}

/* A reader of dir/name must be refused with `code`, with a reason
 * containing `why`. */
static int expect_refused(const char *what, const char *path, int pretend,
                          int code, const char *why)
{
	struct lc__tl_reader r;
	struct lc_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = lc__tl_reader_open(&r, path, pretend, &err);
	lc_t_checks++;
	if (rc == 0) {
		LC_T_FAIL_("%s: accepted, want %d (%s)", what, code, why);
		reader_close(&r);
		return 0;
	}
	if (rc != code || err.code != code || strstr(err.msg, why) == NULL) {
		LC_T_FAIL_("%s: rc %d (err.code %d) \"%s\", want %d \"%s\"",
		           what, rc, err.code, err.msg, code, why);
		return 0;
	}
	printf("  refused %-32s %d: %s: %s\n", what, rc, err.where, err.msg);
	return 1;
}

/* ---- writer and reader in one process ------------------------------------ */

static void test_same_readings(void)
{
	char path[256];
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_timekeeper *tk = new_writer_tk(1735689600); /* 2025-01-01 */
	struct timespec ts = { 1800000000, 0 };
	struct lc_timex tx;

	LC_TRUE(tk != NULL);
	pathof(path, sizeof(path), "page");
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	LC_EQ_INT(lc__tl_writer_resumed(w), 0);
	memset(&err, 0, sizeof(err));
	if (lc__tl_reader_open(&r, path, 0, &err) != 0) {
		LC_T_FAIL_("reader: %d %s", err.code, err.msg);
		return;
	}
	LC_EQ_INT(r.source, LC_TIMELINE_PAGE);
	LC_TRUE(lc__tk_is_reader(r.tk));
	/* A reader is only a reader (issue 25 item 4): opening the page
	 * sampled nothing and primed no host following; its writer state is
	 * untouched until a fall back resumes it. */
	LC_EQ_I64(r.tk->s.mono, 0);
	LC_EQ_U64(r.tk->s.cycle_last, 0);
	LC_EQ_I64(r.tk->hf.last_mono, 0);
	LC_EQ_INT(r.tk->hf_offs_tai_valid, 0);
	printf("  the reader's writer state is untouched (mono %lld, "
	       "host following unprimed)\n", (long long)r.tk->s.mono);
	for (int round = 0; round < 200; round++) {
		for (int id = 0; id < LC_CLOCK_COUNT; id++) {
			int64_t a, b, c;

			/* Retried while a preemption widens the bracket. */
			for (int k = 0;; k++) {
				a = rd(tk, (lc_clock_id)id);
				b = rd(r.tk, (lc_clock_id)id);
				c = rd(tk, (lc_clock_id)id);
				if (c - a < 20 * US || k == 100)
					break;
			}

			LC_NE_I64(b, INT64_MIN);
			LC_LT_I64(a - 1 * US, b);
			LC_LT_I64(b, c + 1 * US);
			LC_LT_I64(c - a, 1 * US * 50); /* a sane bracket */
			if (id == LC_CLOCK_MONOTONIC ||
			    id == LC_CLOCK_MONOTONIC_RAW) {
				LC_LE_I64(a, b);
				LC_LE_I64(b, c);
			}
		}
		if (round % 50 == 49) {
			lc_update(tk);
			lc__tl_writer_tick(w, "", NULL);
			lc_update(r.tk);
		}
	}
	/* REALTIME around the set instant (2025): the page reads it. */
	LC_LT_I64(rd(r.tk, LC_CLOCK_REALTIME) - INT64_C(1735689600) * 1000000000,
	          INT64_C(60) * 1000000000);
	/* TAI-UTC 37 s through the page. */
	LC_EQ_I64((rd(r.tk, LC_CLOCK_TAI) - rd(r.tk, LC_CLOCK_REALTIME) +
	           500000000) / 1000000000, 37);
	/* Only the writer sets the page's time. */
	LC_EQ_INT(lc_settime(r.tk, LC_CLOCK_REALTIME, &ts), LC_EPERM);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_FREQUENCY;
	LC_EQ_INT(lc_adjtimex(r.tk, &tx), LC_EPERM);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_OFFSET;
	LC_EQ_INT(lc_adjtimex(r.tk, &tx), LC_EPERM);
	memset(&tx, 0, sizeof(tx));
	tx.modes = 0;
	LC_GE_INT(lc_adjtimex(r.tk, &tx), 0); /* a pure read is fine */
	LC_EQ_I64(tx.tai, 37);
	reader_close(&r);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
}

/* ---- the page's counter against host MONOTONIC (ABI 4) ------------------- */

/* A writer on `clk` in host mode `mode` (text), not following the host. */
static lc_timekeeper *new_mode_tk(clockid_t clk, const char *mode,
                                  struct lc_host_leap_spec *spec)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;
	lc_counter *c = NULL;

	if (lc_host_leap_parse(mode, NULL, spec, NULL) != 0 ||
	    lc_counter_new_system(&c, (int)clk) != 0)
		return NULL;
	lc_tk_config_init(&cfg);
	cfg.table = wtable;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	lc_host_leap_apply(spec, &cfg);
	if (lc_tk_new(&tk, c, &cfg) != 0) {
		lc_counter_free(c);
		return NULL;
	}
	return tk;
}

static void test_relation(void)
{
	char path[256];
	struct lc__tl_writer *w = NULL;
	struct lc_host_leap_spec spec;
	struct lc__tl_rel r, r2;
	struct lc_error err;
	lc_timekeeper *tk = new_mode_tk(CLOCK_MONOTONIC, "kernel", &spec);
	struct timespec d = { 0, 150000000 };
	int64_t raw, mono, guess;

	/* kernel mode's page: CLOCK_MONOTONIC, its relation the identity */
	LC_TRUE(tk != NULL);
	pathof(path, sizeof(path), "relpage");
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	lc__tl_writer_tick(w, "", NULL);
	LC_EQ_INT(lc__tl_is_host_mono(lc__tl_writer_page(w)), 1);
	lc__tl_read_rel(lc__tl_writer_page(w), &r);
	LC_EQ_I64(r.gen, 0);
	LC_EQ_I64(r.rate_ppb, 0);
	LC_EQ_I64(r.margin_ppb, 0);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);

	/* a declared slew's page: RAW, the relation measured, the slew's
	 * margin (1.25 x 83,333 ppm) */
	tk = new_mode_tk(CLOCK_MONOTONIC_RAW, "slew", &spec);
	LC_TRUE(tk != NULL);
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	LC_EQ_INT(lc__tl_is_host_mono(lc__tl_writer_page(w)), 0);
	lc__tl_read_rel(lc__tl_writer_page(w), &r);
	LC_EQ_I64(r.gen, 1);
	LC_EQ_I64(r.margin_ppb, LC_HOST_SLEW_DEFAULT_PPB * 5 / 4);
	raw = lc__tl_host_ns(CLOCK_MONOTONIC_RAW);
	mono = lc__tl_host_ns(CLOCK_MONOTONIC);
	guess = r.mono_ns + (raw - r.counter_ns);
	/* at the nominal rate, within the host's frequency (500 ppm at
	 * most) over the time since, and the reads' bracket */
	LC_LT_I64(mono - guess < 0 ? guess - mono : mono - guess,
	          (raw - r.counter_ns) / 2000 + 1000000);
	lc__host.clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
	lc__tl_writer_tick(w, "", NULL);
	lc__tl_read_rel(lc__tl_writer_page(w), &r2);
	LC_GE_I64(r2.period_ns, 100000000);
	LC_LT_I64(r2.rate_ppb < 0 ? -r2.rate_ppb : r2.rate_ppb, 1000000);
	/* a converted deadline 1 s ahead: at least a second of MONOTONIC
	 * at the rate and margin */
	LC_GE_I64(lc__tl_rel_mono_at(&r2, raw, mono, raw + 1000000000),
	          mono + 1000000000 + (r2.rate_ppb + r2.margin_ppb));
	printf("  slew page: gen %lld, rate %+.3f ppm over %.0f ms, margin "
	       "%.0f ppm\n", (long long)r2.gen, (double)r2.rate_ppb / 1e3,
	       (double)r2.period_ns / 1e6, (double)r2.margin_ppb / 1e3);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);

	/* the margins by mode */
	LC_EQ_I64(lc__tl_rel_margin(LC_HOST_LEAP_STEP, 0, NULL), 625000);
	LC_EQ_I64(lc__tl_rel_margin(LC_HOST_LEAP_SLEW, 500000, NULL), 625000);
	{
		struct lc_smear_policy p;

		LC_EQ_INT(lc_smear_preset("minute", 0, &p, NULL), 0);
		/* a 60 s linear smear: 16,667 ppm, 20,833 with the 25 % */
		LC_GE_I64(lc__tl_rel_margin(LC_HOST_LEAP_SMEAR, 0, &p), 20800000);
		LC_LE_I64(lc__tl_rel_margin(LC_HOST_LEAP_SMEAR, 0, &p), 20900000);
		LC_EQ_INT(lc_smear_preset("google", 0, &p, NULL), 0);
		LC_EQ_I64(lc__tl_rel_margin(LC_HOST_LEAP_SMEAR, 0, &p), 625000);
	}
}

/* lc__tl_rel_mono_at, pure: for any host rate up to rate + margin the
 * converted instant is never before the counter reaches the deadline, and
 * late by no more than d x (rate + margin - actual) + 1 ns; a past
 * deadline is at once. */
static void test_relation_never_early(void)
{
	long late_max = 0;

	for (int i = 0; i < 1000000; i++) {
		struct lc__tl_rel r;
		int64_t cnow = lc_rand_range(0, INT64_C(1) << 50);
		int64_t mnow = lc_rand_range(0, INT64_C(1) << 50);
		int64_t d = lc_rand_range(-1000000000, INT64_C(100000) * 1000000000);
		int64_t act, m, reach;

		memset(&r, 0, sizeof(r));
		r.rate_ppb = lc_rand_range(-90000000, 90000000);
		r.margin_ppb = lc_rand_range(0, 110000000);
		act = lc_rand_range(-100000000, r.rate_ppb + r.margin_ppb);
		m = lc__tl_rel_mono_at(&r, cnow, mnow, cnow + d);
		if (d <= 0) {
			LC_LE_I64(m, mnow);
			continue;
		}
		/* the host's MONOTONIC when the counter has run d at `act` */
		reach = mnow + d + (int64_t)((__int128)d * act / 1000000000);
		if (m < reach) {
			LC_GE_I64(m, reach);
			break;
		}
		if (m - reach - (int64_t)((__int128)d *
		                          (r.rate_ppb + r.margin_ppb - act) /
		                          1000000000) > 2) {
			LC_T_FAIL_("late by %lld ns beyond the margin",
			           (long long)(m - reach));
			break;
		}
		if (m - reach > late_max && d < 1000000000)
			late_max = (long)(m - reach);
	}
	printf("  1e6 conversions: never early; the latest of those under 1 s "
	       "%.3f ms (the margin's)\n", (double)late_max / 1e6);
}

/* A reader's adjtimex (modes 0) answers the leap state from the page:
 * TIME_INS with STA_INS on the leap's day, TIME_OOP during 23:59:60,
 * TIME_WAIT after, as Linux does under an NTP daemon that set STA_INS (and
 * as the preload shim answers for its own timekeeper); TAI-UTC and the
 * second as the writer's own adjtimex says them. One implementation,
 * lc__tk_snapshot_timex, which the shim uses too. */
static void test_reader_adjtimex(void)
{
	char path[256];
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	/* 2016-12-31T23:59:57.25: the writer's state machine arms the table's
	 * leap at the next second boundary, as Linux arms STA_INS */
	lc_timekeeper *tk = new_writer_tk(1483228797);
	static const int want[5] = { LC_TIME_INS, LC_TIME_INS, LC_TIME_INS,
		                     LC_TIME_OOP, LC_TIME_WAIT };
	static const char *const at[5] = { "23:59:57.3", "23:59:58.3",
		                           "23:59:59.3", "23:59:60.3",
		                           "00:00:00.3" };

	struct lc_timex sync;

	LC_TRUE(tk != NULL);
	/* synchronised (no STA_UNSYNC, no error), as leapclockd's writer
	 * would be: the state is then the leap's alone */
	memset(&sync, 0, sizeof(sync));
	sync.modes = LC_ADJ_STATUS | LC_ADJ_MAXERROR | LC_ADJ_ESTERROR;
	LC_GE_INT(lc_adjtimex(tk, &sync), 0);
	pathof(path, sizeof(path), "page-adjtimex");
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	memset(&err, 0, sizeof(err));
	if (lc__tl_reader_open(&r, path, 1, &err) != 0) {
		LC_T_FAIL_("reader: %d %s", err.code, err.msg);
		return;
	}
	for (int k = 0; k < 5; k++) {
		struct lc_timex a, b;
		int sa, sb;

		lc_update(tk);
		lc__tl_writer_tick(w, "", NULL);
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		sa = lc_adjtimex_unprivileged(tk, &a);
		sb = lc_adjtimex_unprivileged(r.tk, &b);
		printf("  %s: writer state %d status 0x%x tai %d, reader state "
		       "%d status 0x%x tai %d\n",
		       at[k],
		       sa, a.status & (LC_STA_INS | LC_STA_DEL), a.tai, sb,
		       b.status & (LC_STA_INS | LC_STA_DEL), b.tai);
		if (k == 4) {
			/* once the writer has folded the leap the page no
			 * longer holds it: TIME_WAIT while it still did, then
			 * TIME_OK (the writer says WAIT until STA_INS is
			 * cleared, as Linux does) */
			LC_TRUE(sb == LC_TIME_WAIT || sb == LC_TIME_OK);
		} else {
			LC_EQ_INT(sb, want[k]);
			LC_EQ_INT(b.status & (LC_STA_INS | LC_STA_DEL),
			          LC_STA_INS);
		}
		if (k >= 1 && k <= 3) /* the writer armed at 23:59:58 */
			LC_EQ_INT(sb, sa);
		LC_EQ_INT(b.tai, a.tai);
		LC_EQ_I64(b.time.tv_sec, a.time.tv_sec);
		if (k < 4)
			usleep(1000000);
	}
	reader_close(&r);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
}

/* ---- pages refused ----------------------------------------------------------------- */

static void test_refused(void)
{
	char path[256], good[256], p2[256];
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_timekeeper *tk = new_writer_tk(1735689600);
	struct lc__tl_page *img, *m;
	char boot[LC__TL_BOOT_ID];

	LC_TRUE(tk != NULL);
	pathof(path, sizeof(path), "page");
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	img = read_image(path);
	LC_TRUE(img != NULL);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
	lc__tl_boot_id(boot);
	LC_EQ_STR(img->boot_id, boot);

	/* The image as it is: accepted (a baseline for every case below). */
	LC_EQ_INT(put_image("good", img, PAGE_SZ, 0644, good, sizeof(good)), 0);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_reader_open(&r, good, 0, &err), 0);
	reader_close(&r);
	LC_EQ_INT(put_image("good", img, PAGE_SZ, 0600, good, sizeof(good)), 0);
	LC_EQ_INT(lc__tl_reader_open(&r, good, 0, &err), 0);
	reader_close(&r);

	/* A page file whose writer is gone (nobody answers on its socket):
	 * not a source for a new reader. */
	LC_EQ_INT(put_image("p", img, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	stop_image_server();
	LC_TRUE(expect_refused("a page left by a writer gone", p2, 1,
	                       LC__TL_EGONE, "its writer is gone"));
	/* A page handed over unsealed (anyone holding it could shrink it
	 * under our mapping): never mapped. */
	image_seals = F_SEAL_GROW;
	LC_EQ_INT(put_image("p", img, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("an unsealed page", p2, 1, LC_EPERM,
	                       "not sealed"));
	image_seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE;
	stop_image_server();
	unlink(p2);

	/* The folder writable by others (the folder is ours, mode 0700). */
	LC_EQ_INT(chmod(dir, 0777), 0);
	LC_TRUE(expect_refused("folder 0777", good, 1, LC_EPERM,
	                       "its folder is writable by group or others"));
	LC_EQ_INT(chmod(dir, 0770), 0);
	LC_TRUE(expect_refused("folder 0770", good, 1, LC_EPERM,
	                       "its folder is writable"));
	LC_EQ_INT(chmod(dir, 0700), 0);

	/* Sizes. */
	LC_EQ_INT(put_image("short", img, PAGE_SZ - 8, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("truncated by 8 bytes", p2, 1, LC_EINVAL,
	                       "a page of this version has"));
	LC_EQ_INT(put_image("short", img, 0, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("truncated to 0", p2, 1, LC_EINVAL,
	                       "0 bytes"));
	{
		char *big = calloc(2, PAGE_SZ);

		LC_TRUE(big != NULL);
		memcpy(big, img, PAGE_SZ);
		serve_image(p2, big, PAGE_SZ * 2);
		free(big);
	}
	LC_TRUE(expect_refused("twice the size", p2, 1, LC_EINVAL,
	                       "a page of this version has"));
	unlink(p2);

	/* Contents. */
	m = aligned_alloc(64, (PAGE_SZ + 63) / 64 * 64);
	LC_TRUE(m != NULL);
	memcpy(m, img, PAGE_SZ);
	m->magic ^= 1;
	LC_EQ_INT(put_image("magic", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("bad magic", p2, 1, LC_EINVAL, "bad magic"));
	memcpy(m, img, PAGE_SZ);
	m->abi = LC__TL_ABI + 1;
	LC_EQ_INT(put_image("abi", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("ABI + 1", p2, 1, LC_EINVAL, "ABI version"));
	/* the format before the relation (ABI 3): refused, naming both */
	m->abi = 3;
	LC_EQ_INT(put_image("abi3", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("ABI 3 (no relation)", p2, 1, LC_EINVAL,
	                       "ABI version 3, this library reads 4"));
	memcpy(m, img, PAGE_SZ);
	m->size = (uint32_t)PAGE_SZ - 64;
	LC_EQ_INT(put_image("size", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("size field", p2, 1, LC_EINVAL, "expected"));
	memcpy(m, img, PAGE_SZ);
	m->flags = 0x100;
	LC_EQ_INT(put_image("flags", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("unknown flag", p2, 1, LC_EINVAL,
	                       "unknown flags"));
	memcpy(m, img, PAGE_SZ);
	m->counter_kind = LC_COUNTER_SIM;
	LC_EQ_INT(put_image("sim", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("simulated counter", p2, 1, LC_EINVAL,
	                       "not a host counter"));
	memcpy(m, img, PAGE_SZ);
	m->counter_clk = CLOCK_REALTIME;
	LC_EQ_INT(put_image("clk", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
	LC_TRUE(expect_refused("counter on REALTIME", p2, 1, LC_EINVAL,
	                       "not a monotonic clock"));

	/* Another boot: a page served with another boot id. */
	if (boot[0] == '\0') {
		LC_SKIP("another boot", "no /proc/sys/kernel/random/boot_id");
	} else {
		memcpy(m, img, PAGE_SZ);
		m->boot_id[0] = m->boot_id[0] == '0' ? '1' : '0';
		LC_EQ_INT(put_image("boot", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
		LC_TRUE(expect_refused("another boot id", p2, 1, LC_EINVAL,
		                       "from another boot"));
		/* An unterminated boot id. */
		memcpy(m, img, PAGE_SZ);
		memset(m->boot_id, 'a', sizeof(m->boot_id));
		LC_EQ_INT(put_image("boot", m, PAGE_SZ, 0644, p2, sizeof(p2)), 0);
		LC_TRUE(expect_refused("unterminated boot id", p2, 1, LC_EINVAL,
		                       "not terminated"));
	}
	free(m);

	/* A rehearsal page from a rehearsing writer. */
	{
		lc_timekeeper *t2 = new_writer_tk(1735689600);
		struct lc__tl_writer *w2 = NULL;

		LC_TRUE(t2 != NULL);
		pathof(p2, sizeof(p2), "rehearsal");
		LC_EQ_INT(lc__tl_writer_open(&w2, p2, t2, LC__TLF_PRETEND, "", &err), 0);
		LC_TRUE(expect_refused("rehearsal, allow_pretend 0", p2, 0,
		                       LC_EPERM, "rehearsal"));
		memset(&err, 0, sizeof(err));
		LC_EQ_INT(lc__tl_reader_open(&r, p2, 1, &err), 0);
		LC_EQ_INT(r.source, LC_TIMELINE_PAGE);
		LC_TRUE((r.map.pg->flags & LC__TLF_PRETEND) != 0);
		reader_close(&r);
		lc__tl_writer_close(w2);
		free_writer_tk(t2);
		unlink(p2);
	}

	/* Whatever is at the path, with nobody answering on its socket,
	 * is a page left behind: never opened (a FIFO does not block). */
	pathof(p2, sizeof(p2), "fifo");
	LC_EQ_INT(mkfifo(p2, 0644), 0);
	LC_TRUE(expect_refused("a FIFO", p2, 1, LC__TL_EGONE,
	                       "writer is gone"));
	unlink(p2);
	pathof(p2, sizeof(p2), "sub");
	LC_EQ_INT(mkdir(p2, 0700), 0);
	LC_TRUE(expect_refused("a directory", p2, 1, LC__TL_EGONE,
	                       "writer is gone"));
	rmdir(p2);
	/* A symlink to the good page: O_NOFOLLOW. */
	pathof(p2, sizeof(p2), "link");
	LC_EQ_INT(symlink(good, p2), 0);
	LC_TRUE(expect_refused("a symlink to a good page", p2, 1,
	                       LC__TL_EGONE, "writer is gone"));
	unlink(p2);
	pathof(p2, sizeof(p2), "missing");
	LC_TRUE(expect_refused("a missing file", p2, 1, LC_ENOENT,
	                       strerror(ENOENT)));
	pathof(p2, sizeof(p2), "nodir/page");
	LC_TRUE(expect_refused("a missing folder", p2, 1, LC_ENOENT,
	                       strerror(ENOENT)));

	/* Owner: neither root nor us. */
	if (geteuid() != 0) {
		LC_SKIP("owner uid 65534", "not root: cannot chown");
	} else {
		LC_EQ_INT(put_image("owner", img, PAGE_SZ, 0644, p2, sizeof(p2)),
		          0);
		/* The file's owner no longer matters (readers never open
		 * it; the socket's peer is checked, SO_PEERCRED); the
		 * folder owned by another user does. */
		LC_EQ_INT(chown(dir, 65534, 65534), 0);
		LC_TRUE(expect_refused("folder owned by uid 65534", p2, 1,
		                       LC_EPERM, "its folder is owned by uid"));
		LC_EQ_INT(chown(dir, 0, 0), 0);
		unlink(p2);
	}
	/* A stale image (heartbeat LC__TL_STALE_NS + 1 s old): read, and
	 * carried on from at once (src/timeline.c since 24e0eb4). */
	{
		int fd;
		int64_t old = host_ns(CLOCK_MONOTONIC) - LC__TL_STALE_NS -
		              1000000000;

		struct lc__tl_page *st = aligned_alloc(64, (PAGE_SZ + 63) / 64 * 64);

		LC_TRUE(st != NULL);
		LC_EQ_INT(put_image("stale", img, PAGE_SZ, 0644, p2, sizeof(p2)),
		          0);
		memcpy(st, img, PAGE_SZ);
		atomic_store(&st->heartbeat, old);
		serve_image(p2, st, PAGE_SZ);
		free(st);
		(void)fd;
		/* Not refused: still this boot's timeline; the reader
		 * carries on from its last snapshot at once. */
		memset(&err, 0, sizeof(err));
		LC_EQ_INT(lc__tl_reader_open(&r, p2, 1, &err), 0);
		LC_EQ_INT(r.source, LC_TIMELINE_FALLBACK);
		LC_FALSE(lc__tk_is_reader(r.tk));
		LC_CONTAINS(r.why, "stopped updating");
		printf("  stale at open: %s\n", r.why);
		LC_LT_I64(llabs(rd(r.tk, LC_CLOCK_REALTIME) -
		                INT64_C(1735689600) * 1000000000),
		          INT64_C(60) * 1000000000);
		reader_close(&r);
		unlink(p2);
	}
	unlink(good);
	free(img);
	stop_image_server();
}

/* ---- lc__tl_validate on random mutations ---------------------------------------- */

/* An independent statement of what lc__tl_validate checks. */
static int model_ok(const unsigned char *b, size_t len, const char *boot)
{
	struct lc__tl_page h;

	if (len != PAGE_SZ)
		return 0;
	memcpy(&h, b, offsetof(struct lc__tl_page, writer_pid));
	if (h.magic != LC__TL_MAGIC || h.abi != LC__TL_ABI ||
	    h.size != PAGE_SZ)
		return 0;
	if (h.counter_kind == LC_COUNTER_SYSTEM) {
		if (h.counter_clk != CLOCK_MONOTONIC &&
		    h.counter_clk != CLOCK_MONOTONIC_RAW)
			return 0;
	} else if (h.counter_kind != LC_COUNTER_TSC) {
		return 0;
	}
	if (h.counter_freq == 0 || h.counter_freq > (UINT64_C(1) << 40))
		return 0;
	if (memchr(h.boot_id, 0, sizeof(h.boot_id)) == NULL)
		return 0;
	if (boot[0] != '\0' && strcmp(h.boot_id, boot) != 0)
		return 0;
	if (h.flags & ~(uint64_t)LC__TLF_PRETEND)
		return 0;
	return 1;
}

static void put_seed(const char *d, const char *name, const void *b,
                     size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", d, name);
	f = fopen(p, "wb");
	if (f == NULL || fwrite(b, 1, len, f) != len)
		fprintf(stderr, "cannot write %s\n", p);
	if (f != NULL)
		fclose(f);
}

/* LC_TL_CORPUS=DIR: the seed corpus of fuzz/fuzz_timeline.c from a good
 * image: it, and truncated and mutated copies. */
static void write_corpus(const char *d, const unsigned char *img)
{
	unsigned char *m = malloc(PAGE_SZ);
	struct lc__tl_page *pg = (struct lc__tl_page *)(void *)m;

	if (m == NULL)
		return;
	put_seed(d, "valid", img, PAGE_SZ);
	put_seed(d, "head-only", img, offsetof(struct lc__tl_page, st_seq));
	put_seed(d, "short-1", img, PAGE_SZ - 1);
	put_seed(d, "short-7", img, 7);
	memcpy(m, img, PAGE_SZ);
	pg->flags = LC__TLF_PRETEND;
	put_seed(d, "rehearsal", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	pg->counter_kind = LC_COUNTER_TSC;
	pg->counter_freq = UINT64_C(2999999000);
	put_seed(d, "tsc", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	pg->magic ^= UINT64_C(0x100);
	put_seed(d, "bad-magic", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	pg->abi = LC__TL_ABI + 1;
	put_seed(d, "abi-next", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	memset(pg->boot_id, 'x', sizeof(pg->boot_id));
	put_seed(d, "boot-unterminated", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	pg->boot_id[0] = '\0';
	put_seed(d, "boot-empty", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	pg->counter_freq = 0;
	put_seed(d, "freq-0", m, PAGE_SZ);
	memcpy(m, img, PAGE_SZ);
	memset(m + offsetof(struct lc__tl_page, tab_seq), 0xff,
	       offsetof(struct lc__tl_page, latch) -
	               offsetof(struct lc__tl_page, tab_seq));
	put_seed(d, "table-garbage", m, PAGE_SZ);
	free(m);
	printf("  wrote the fuzz seed corpus to %s\n", d);
}

static void test_validate_mutations(void)
{
	char path[256], boot[LC__TL_BOOT_ID];
	struct lc__tl_writer *w = NULL;
	struct lc_error err;
	lc_timekeeper *tk = new_writer_tk(1735689600);
	unsigned char *img, *m;
	const size_t head = offsetof(struct lc__tl_page, writer_pid);
	long accepted = 0, rejected = 0;
	uint64_t seed = lc_test_seed();

	LC_TRUE(tk != NULL);
	pathof(path, sizeof(path), "page");
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	img = read_image(path);
	LC_TRUE(img != NULL);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
	lc__tl_boot_id(boot);
	LC_EQ_INT(lc__tl_validate(img, PAGE_SZ, boot, &err), 0);
	LC_EQ_INT(lc__tl_validate(img, PAGE_SZ, "", &err), 0);
	LC_EQ_INT(lc__tl_validate(img, PAGE_SZ, NULL, &err), 0);
	printf("  mutations: seed %" PRIu64 " (LC_SEED=%" PRIu64 ")\n", seed,
	       seed);
	if (getenv("LC_TL_CORPUS") != NULL && *getenv("LC_TL_CORPUS") != '\0')
		write_corpus(getenv("LC_TL_CORPUS"), img);
	/* A little slack after the page for lengths > PAGE_SZ. */
	m = aligned_alloc(64, (PAGE_SZ + 64 + 63) / 64 * 64);
	LC_TRUE(m != NULL);
	for (long it = 0; it < 100000; it++) {
		size_t len = PAGE_SZ;
		const char *bid = (it & 3) == 0 ? "" : boot;
		int nmut = (int)lc_rand_range(0, 4), rc, want;

		memcpy(m, img, PAGE_SZ);
		memset(m + PAGE_SZ, 0xa5, 64);
		for (int k = 0; k < nmut; k++) {
			/* Mostly the head, where the checked fields are. */
			size_t at = (lc_rand() & 7) ? (size_t)lc_rand_range(
			                                      0, (int64_t)head - 1)
			                            : (size_t)lc_rand_range(
			                                      0, PAGE_SZ - 1);

			switch (lc_rand() % 4) {
			case 0: m[at] ^= (unsigned char)(1u << (lc_rand() % 8)); break;
			case 1: m[at] = (unsigned char)lc_rand(); break;
			case 2: m[at] = 0; break;
			default: /* a plausible other value of a field */
				if (at < 8)
					memset(m, 0, 8);
				else if (at < 16)
					m[at & ~(size_t)3] ^= 1;
				else if (at >= 20 && at < 24)
					m[20] = (unsigned char)(lc_rand() % 8);
				else if (at >= 16 && at < 20)
					m[16] = (unsigned char)(lc_rand() % 4);
				else
					m[at] ^= 0x80;
			}
		}
		switch (lc_rand() % 16) {
		case 0: len = (size_t)lc_rand_range(0, (int64_t)head + 8); break;
		case 1: len = (size_t)lc_rand_range(0, (int64_t)PAGE_SZ + 64); break;
		case 2: len = PAGE_SZ - 1; break;
		case 3: len = PAGE_SZ + 1; break;
		default: break;
		}
		memset(&err, 0, sizeof(err));
		rc = lc__tl_validate(m, len, bid, &err);
		want = model_ok(m, len, bid);
		lc_t_checks++;
		if ((rc == 0) != want) {
			LC_T_FAIL_("iteration %ld (seed %" PRIu64 "): len %zu, "
			           "validate %d (%s), model %d",
			           it, seed, len, rc, err.msg, want);
			break;
		}
		if (rc == 0) {
			/* Accepted: the fields a reader relies on are intact
			 * or a documented alternative. */
			const struct lc__tl_page *pg = (const void *)m;

			LC_EQ_U64(pg->magic, LC__TL_MAGIC);
			LC_EQ_INT((int)pg->abi, (int)LC__TL_ABI);
			LC_EQ_INT((int)pg->size, (int)PAGE_SZ);
			LC_TRUE(bid[0] == '\0' || strcmp(pg->boot_id, boot) == 0);
			if (memcmp(m, img, head) == 0)
				LC_EQ_INT(len, PAGE_SZ);
			accepted++;
		} else {
			LC_EQ_INT(rc, LC_EINVAL);
			LC_EQ_INT(err.code, LC_EINVAL);
			LC_TRUE(err.msg[0] != '\0');
			rejected++;
		}
	}
	printf("  mutations: %ld accepted, %ld rejected\n", accepted, rejected);
	LC_GT_I64(accepted, 1000);
	LC_GT_I64(rejected, 1000);
	free(m);
	free(img);
}

/* ---- a second writer, and a restart in place ------------------------------------ */

static void test_second_writer_and_restart(void)
{
	char path[256];
	struct lc__tl_writer *w1 = NULL, *w2 = NULL, *w3 = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_timekeeper *t1 = new_writer_tk(1735689600);
	/* The next writer's own clock is far away: only the page's
	 * timeline may come through. */
	lc_timekeeper *t2 = new_writer_tk(1900000000);
	lc_timekeeper *t3 = new_writer_tk(1900000000);
	int64_t rt0, tai0, mono0, h0a, h0b, rt1, tai1, mono1, h1a, h1b;
	int64_t off0, off1, toff0, toff1, rm0, rm1, tm0, tm1;
	uint64_t starts;

	LC_TRUE(t1 != NULL && t2 != NULL && t3 != NULL);
	pathof(path, sizeof(path), "page");
	unlink(path);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w1, path, t1, 0, "", &err), 0);
	LC_EQ_INT(lc__tl_writer_resumed(w1), 0);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_reader_open(&r, path, 0, &err), 0);
	LC_EQ_I64(atomic_load(&r.map.pg->writer_pid), (int64_t)getpid());
	starts = atomic_load(&r.map.pg->writer_starts);

	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w3, path, t3, 0, "", &err), LC_EBUSY);
	LC_EQ_INT(err.code, LC_EBUSY);
	LC_CONTAINS(err.msg, "another writer");
	printf("  second writer: %s: %s\n", err.where, err.msg);
	LC_TRUE(w3 == NULL);

	lc_update(t1);
	lc__tl_writer_tick(w1, "", NULL);
	usleep(20000);
	rt0 = rd_at(r.tk, LC_CLOCK_REALTIME, &rm0);
	tai0 = rd_at(r.tk, LC_CLOCK_TAI, &tm0);
	h0a = host_ns(CLOCK_MONOTONIC);
	mono0 = rd(r.tk, LC_CLOCK_MONOTONIC);
	h0b = host_ns(CLOCK_MONOTONIC);
	{
		struct lc__tk_snap sn;
		int64_t m;

		lc__tk_read_snap(r.tk, &sn, &m);
		off0 = lc__tk_realtime_at(&sn, m) - m;
		toff0 = sn.offs_tai;
	}
	lc__tl_writer_close(w1);
	LC_EQ_I64(atomic_load(&r.map.pg->writer_pid), 0);
	usleep(30000);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w2, path, t2, 0, "", &err), 0);
	/* The reader's next update moves it onto the new writer's page,
	 * which continues the old one's timeline. */
	lc_update(r.tk);
	LC_TRUE(lc__tk_is_reader(r.tk));
	h1a = host_ns(CLOCK_MONOTONIC);
	mono1 = rd(r.tk, LC_CLOCK_MONOTONIC);
	h1b = host_ns(CLOCK_MONOTONIC);
	rt1 = rd_at(r.tk, LC_CLOCK_REALTIME, &rm1);
	tai1 = rd_at(r.tk, LC_CLOCK_TAI, &tm1);
	{
		struct lc__tk_snap sn;
		int64_t m;

		lc__tk_read_snap(r.tk, &sn, &m);
		off1 = lc__tk_realtime_at(&sn, m) - m;
		toff1 = sn.offs_tai;
	}
	printf("  REALTIME - MONOTONIC moved %+" PRId64 " ns, TAI - MONOTONIC "
	       "%+" PRId64 " ns across the restart\n",
	       off1 - off0, toff1 - toff0);
	LC_LT_I64(llabs(off1 - off0), 1 * US);
	LC_LT_I64(llabs(toff1 - toff0), 1 * US);
	LC_EQ_INT(lc__tl_writer_resumed(w2), 1);
	LC_EQ_U64(atomic_load(&r.map.pg->writer_starts), starts + 1);
	LC_EQ_I64(atomic_load(&r.map.pg->writer_pid), (int64_t)getpid());
	printf("  across the restart: MONOTONIC +%" PRId64 " ns (host +%" PRId64
	       "..%" PRId64 " ns); REALTIME - its MONOTONIC %+" PRId64
	       " ns, TAI - its MONOTONIC %+" PRId64 " ns\n",
	       mono1 - mono0, h1a - h0b, h1b - h0a,
	       (rt1 - rt0) - (rm1 - rm0), (tai1 - tai0) - (tm1 - tm0));
	/* MONOTONIC ran as the host's (within the bracket), REALTIME and
	 * TAI as MONOTONIC. */
	LC_LE_I64(h1a - h0b - 1 * US, mono1 - mono0);
	LC_LE_I64(mono1 - mono0, h1b - h0a + 1 * US);
	LC_LT_I64(llabs((rt1 - rt0) - (rm1 - rm0)), 1 * US);
	LC_LT_I64(llabs((tai1 - tai0) - (tm1 - tm0)), 1 * US);
	/* The new writer's own clock (2030) did not come through. */
	LC_LT_I64(llabs(rt1 - INT64_C(1735689600) * 1000000000),
	          INT64_C(60) * 1000000000);
	/* And it reads as the reader. */
	{
		int64_t a = rd(t2, LC_CLOCK_REALTIME), b = rd(r.tk, LC_CLOCK_REALTIME),
		        c = rd(t2, LC_CLOCK_REALTIME);

		LC_LE_I64(a - 1 * US, b);
		LC_LE_I64(b, c + 1 * US);
	}
	/* The reader goes on after a tick of the new writer. */
	lc_update(t2);
	lc__tl_writer_tick(w2, "", NULL);
	lc_update(r.tk);
	LC_EQ_INT(r.source, LC_TIMELINE_PAGE);
	reader_close(&r);
	lc__tl_writer_close(w2);
	free_writer_tk(t1);
	free_writer_tk(t2);
	free_writer_tk(t3);
	unlink(path);
}

/* ---- staleness ----------------------------------------------------------------------- */

/* A page whose writer stopped: `rt_s` the writer's REALTIME (0: the
 * host's), `flags` the page's. Returns 1 if the reader fell back with no
 * step; reports a step in *step. */
static int stale_case(int64_t rt_s, uint64_t flags, int64_t *step)
{
	char path[256];
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_timekeeper *tk = new_writer_tk(rt_s);
	struct lc__tl_page *pg;
	int64_t v0[LC_CLOCK_COUNT], v1[LC_CLOCK_COUNT], h0, h1, wrt;
	int64_t m0[LC_CLOCK_COUNT], m1[LC_CLOCK_COUNT];
	struct timespec ts = { 1740000000, 0 };
	int fd, ok = 0;

	*step = 0;
	lc_t_checks++;
	if (tk == NULL) {
		LC_T_FAIL_("%s", "writer timekeeper");
		return 0;
	}
	pathof(path, sizeof(path), "page");
	unlink(path);
	memset(&err, 0, sizeof(err));
	if (lc__tl_writer_open(&w, path, tk, flags, "", &err) != 0 ||
	    lc__tl_reader_open(&r, path, 1, &err) != 0) {
		LC_T_FAIL_("open: %d %s", err.code, err.msg);
		return 0;
	}
	/* Fresh: an update keeps reading the page. */
	lc_update(r.tk);
	LC_EXPECT_TRUE(r.source == LC_TIMELINE_PAGE && lc__tk_is_reader(r.tk));

	/* The writer stops ticking: age the heartbeat in its page (the
	 * writer's own mapping: nobody else can map the page writable). */
	pg = lc__tl_writer_page(w);
	(void)fd;
	atomic_store(&pg->heartbeat, host_ns(CLOCK_MONOTONIC) -
	                                     LC__TL_STALE_NS - 500000000);
	LC_EXPECT_TRUE(lc__tl_age(r.map.pg) > LC__TL_STALE_NS);

	h0 = host_ns(CLOCK_MONOTONIC);
	for (int id = 0; id < LC_CLOCK_COUNT; id++)
		v0[id] = rd_at(r.tk, (lc_clock_id)id, &m0[id]);
	lc_update(r.tk);
	for (int id = 0; id < LC_CLOCK_COUNT; id++)
		v1[id] = rd_at(r.tk, (lc_clock_id)id, &m1[id]);
	h1 = host_ns(CLOCK_MONOTONIC);
	LC_EXPECT_TRUE(r.source == LC_TIMELINE_FALLBACK);
	LC_EXPECT_TRUE(!lc__tk_is_reader(r.tk));
	LC_EXPECT_TRUE(strstr(r.why, "stopped updating") != NULL);
	printf("  fallback: %s\n", r.why);
	/* No step: each clock moved by what MONOTONIC moved, and that is
	 * at most the host's elapsed time around the reads. */
	LC_EXPECT_TRUE(v1[LC_CLOCK_MONOTONIC] - v0[LC_CLOCK_MONOTONIC] <=
	               h1 - h0 + 1 * US);
	LC_EXPECT_TRUE(v1[LC_CLOCK_MONOTONIC] >= v0[LC_CLOCK_MONOTONIC]);
	ok = 1;
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		/* What the clock moved minus what MONOTONIC moved, each at
		 * the instant of the clock's own read. */
		int64_t d = (v1[id] - v0[id]) - (m1[id] - m0[id]);

		if (llabs(d) >= 1 * US) {
			printf("  clock %d stepped by %+.9f s at the fallback\n",
			       id, (double)d / 1e9);
			if (*step == 0 || id == LC_CLOCK_REALTIME)
				*step = d;
			ok = 0;
		}
	}
	/* It is the writer of its own timeline now, monotonic across its
	 * own updates. */
	for (int i = 0; i < 3; i++) {
		int64_t a = rd(r.tk, LC_CLOCK_MONOTONIC);

		lc_update(r.tk);
		LC_EXPECT_TRUE(a <= rd(r.tk, LC_CLOCK_MONOTONIC));
	}
	LC_EXPECT_I64(lc_settime(r.tk, LC_CLOCK_REALTIME, &ts), 0);
	LC_EXPECT_TRUE(llabs(rd(r.tk, LC_CLOCK_REALTIME) -
	                     INT64_C(1740000000) * 1000000000) < 1000000000);
	/* The page itself is untouched by the fallen-back reader. */
	wrt = rd(tk, LC_CLOCK_REALTIME);
	lc_t_checks++;
	if (llabs(lc__tk_read_mono(tk) - lc__tk_read_mono(tk)) > 1000000 ||
	    (rt_s != 0 &&
	     llabs(wrt - rt_s * 1000000000) > INT64_C(60) * 1000000000))
		LC_T_FAIL_("the writer's clock moved: %" PRId64, wrt);
	reader_close(&r);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
	return ok;
}

static void test_stale_fallback(void)
{
	int64_t step;

	/* A writer on the host's time (as leapclockd following the host). */
	LC_TRUE(stale_case(0, 0, &step));
	LC_EQ_I64(step, 0);
}

/* The rehearsal case: leapclockd --pretend runs its writer on a rehearsed
 * instant without following the host (tools/leapclockd/clock.c
 * tk_start: follow_host = !pretend), and publishes a LC__TLF_PRETEND page.
 * A reader of it (LEAPCLOCK_TIMELINE=that page) that falls back must carry
 * on from the page's time, not step to the host's (it did until 24e0eb4:
 * the reader's timekeeper followed the host whatever the page, and
 * lc_update() runs the host following right after lc__tk_resume()). */
static void test_stale_fallback_rehearsal(void)
{
	int64_t step;
	int ok = stale_case(1483228740, LC__TLF_PRETEND, &step); /* 2016-12-31T23:59:00Z */

	LC_BAIL();
	lc_t_checks++;
	if (!ok)
		LC_T_FAIL_("the rehearsal reader stepped %+.3f s at the "
		           "fallback (to the host's time?)",
		           (double)step / 1e9);
}

/* ---- the writer's table reaches readers ------------------------------------------ */

static void test_table_propagation(void)
{
	char path[256];
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_timekeeper *tk = new_writer_tk(1735689600);
	const lc_leaptable *rt;
	struct lc_leap l;
	size_t n0, n1;
	char *text;
	int found = 0;
	int64_t when = INT64_C(1814400000); /* 2027-07-01: after 2027 Jun 30 */
	lc_leaptable *first;

	LC_TRUE(tk != NULL);
	pathof(path, sizeof(path), "page");
	unlink(path);
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_reader_open(&r, path, 0, &err), 0);
	first = r.table;
	n0 = lc_leaptable_count(lc_tk_table(r.tk));
	LC_EQ_I64((int64_t)n0, (int64_t)lc_leaptable_count(wtable));

	text = tz_text("Leap\t2027\tJun\t30\t23:59:60\t+\tS\n");
	LC_TRUE(text != NULL);
	memset(&err, 0, sizeof(err));
	if (lc_leaptable_load_buffer(wtable, "extra-leap", text, strlen(text),
	                             LC_LEAPFMT_TZDATA, &err) != 0) {
		LC_T_FAIL_("load: %d %s:%d: %s", err.code, err.where, err.line,
		           err.msg);
		free(text);
		return;
	}
	free(text);
	LC_EQ_I64((int64_t)lc_leaptable_count(wtable), (int64_t)n0 + 1);
	lc_update(tk);
	lc__tl_writer_tick(w, "", NULL);
	lc_update(r.tk);
	rt = lc_tk_table(r.tk);
	n1 = lc_leaptable_count(rt);
	LC_EQ_I64((int64_t)n1, (int64_t)n0 + 1);
	for (size_t i = 0; i < n1; i++)
		if (lc_leaptable_get(rt, i, &l) == 0 && l.when == when &&
		    l.dir == 1 && l.tai_utc == 38)
			found = 1;
	LC_TRUE(found);
	{
		struct lc_leaptable_info info;

		LC_EQ_INT(lc_leaptable_info(rt, &info), 0);
		LC_CONTAINS(info.source, "extra-leap");
	}
	/* The reader arms it as the writer does. */
	{
		int64_t ww = 0, rw = 0;
		int wd = 0, rdir = 0;

		LC_EQ_INT(lc_tk_next_leap(tk, &ww, &wd), 0);
		LC_EQ_INT(lc_tk_next_leap(r.tk, &rw, &rdir), 0);
		LC_EQ_I64(rw, ww);
		LC_EQ_INT(rdir, wd);
	}
	reader_close_tables(&r, first);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
	/* Back to the base table for other cases. */
	text = tz_text("");
	if (text != NULL)
		lc_leaptable_load_buffer(wtable, "base", text, strlen(text),
		                         LC_LEAPFMT_TZDATA, NULL);
	free(text);
}

/* A writer restarting on its page with another table (the leap file was
 * updated while leapclockd was down): a reader that stays mapped must get
 * the new table. (It did not while each writer counted table_gen from 0:
 * the restarted writer published generation 1 again, the one the reader
 * had; a resumed writer now continues the page's count.) */
static void test_restart_new_table(void)
{
	char path[256];
	struct lc__tl_writer *w1 = NULL, *w2 = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_leaptable *t2 = lc_leaptable_new();
	lc_timekeeper *tk1 = new_writer_tk(1735689600), *tk2 = NULL;
	struct lc_tk_config cfg;
	lc_counter *c = NULL;
	struct lc__tl_status st;
	char *text = tz_text("Leap\t2027\tJun\t30\t23:59:60\t+\tS\n");
	size_t n0, n1;
	lc_leaptable *first;

	LC_TRUE(tk1 != NULL && t2 != NULL && text != NULL);
	LC_EQ_INT(lc_leaptable_load_buffer(t2, "restart-table", text,
	                                   strlen(text), LC_LEAPFMT_TZDATA,
	                                   NULL), 0);
	free(text);
	pathof(path, sizeof(path), "page");
	unlink(path);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc__tl_writer_open(&w1, path, tk1, 0, "", &err), 0);
	LC_EQ_INT(lc__tl_reader_open(&r, path, 0, &err), 0);
	first = r.table;
	n0 = lc_leaptable_count(lc_tk_table(r.tk));
	lc__tl_writer_close(w1);

	LC_EQ_INT(lc_counter_new_system(&c, CLOCK_MONOTONIC), 0);
	lc_tk_config_init(&cfg);
	cfg.table = t2;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	LC_EQ_INT(lc_tk_new(&tk2, c, &cfg), 0);
	LC_EQ_INT(lc__tl_writer_open(&w2, path, tk2, 0, "", &err), 0);
	LC_EQ_INT(lc__tl_writer_resumed(w2), 1);
	lc_update(tk2);
	lc__tl_writer_tick(w2, "", NULL);
	lc_update(r.tk);
	lc__tl_read_status(r.map.pg, &st);
	n1 = lc_leaptable_count(lc_tk_table(r.tk));
	printf("  the page's table generation after the restart: %" PRId64
	       " (the reader had %" PRId64 "); reader rows %zu -> %zu, the "
	       "new writer has %zu\n",
	       st.table_gen, r.table_gen, n0, n1, lc_leaptable_count(t2));
	LC_TRUE(st.table_gen > r.table_gen - 1);
	LC_EQ_U64((uint64_t)n1, (uint64_t)lc_leaptable_count(t2));
	reader_close_tables(&r, first);
	lc__tl_writer_close(w2);
	lc_tk_free(tk2);
	lc_counter_free(c);
	lc_leaptable_free(t2);
	free_writer_tk(tk1);
	unlink(path);
}

/* The file's rows (no comments) with "#expires `exp`". */
static char *rows_expiring(int64_t exp)
{
	char *all = tz_text(""), *out, *o;
	const char *l;

	if (all == NULL)
		return NULL;
	out = calloc(1, strlen(all) + 64);
	if (out == NULL) {
		free(all);
		return NULL;
	}
	o = out;
	for (l = all; *l != '\0';) {
		const char *e = strchr(l, '\n');
		size_t n = e != NULL ? (size_t)(e - l) + 1 : strlen(l);

		if (l[0] != '#') {
			memcpy(o, l, n);
			o += n;
		}
		l += n;
	}
	sprintf(o, "#expires %lld\n", (long long)exp);
	free(all);
	return out;
}

/* Issue 28 item 8: a renewed leap file (the same rows, a later expiry)
 * reached the writer but not running readers, whose table stayed expired
 * (the writer moved the table generation only for new rows). */
static void test_table_renewal(void)
{
	char path[256];
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader r;
	struct lc_error err;
	lc_timekeeper *tk = new_writer_tk(1735689600);
	int64_t now = INT64_C(1900000000); /* 2030 */
	char *text;
	lc_leaptable *first;

	LC_TRUE(tk != NULL);
	text = rows_expiring(INT64_C(1800000000));
	LC_TRUE(text != NULL);
	memset(&err, 0, sizeof(err));
	LC_EQ_INT(lc_leaptable_load_buffer(wtable, "old", text, strlen(text),
	                                   LC_LEAPFMT_TZDATA, &err), 0);
	free(text);
	lc_update(tk);
	pathof(path, sizeof(path), "page");
	unlink(path);
	LC_EQ_INT(lc__tl_writer_open(&w, path, tk, 0, "", &err), 0);
	LC_EQ_INT(lc__tl_reader_open(&r, path, 0, &err), 0);
	first = r.table;
	LC_EQ_INT(lc_leaptable_expired(lc_tk_table(r.tk), now), 1);
	text = rows_expiring(INT64_C(2000000000));
	LC_TRUE(text != NULL);
	LC_EQ_INT(lc_leaptable_load_buffer(wtable, "old", text, strlen(text),
	                                   LC_LEAPFMT_TZDATA, &err), 0);
	free(text);
	LC_EQ_INT(lc_leaptable_expired(wtable, now), 0);
	lc_update(tk);
	lc__tl_writer_tick(w, "", NULL);
	lc_update(r.tk);
	printf("  renewed: the reader's table expired at 2030: %d (the "
	       "writer's %d)\n", lc_leaptable_expired(lc_tk_table(r.tk), now),
	       lc_leaptable_expired(wtable, now));
	LC_EQ_INT(lc_leaptable_expired(lc_tk_table(r.tk), now), 0);
	reader_close_tables(&r, first);
	lc__tl_writer_close(w);
	free_writer_tk(tk);
	unlink(path);
	/* the base table back for the tests after */
	text = tz_text("");
	LC_TRUE(text != NULL);
	LC_EQ_INT(lc_leaptable_load_buffer(wtable, "base", text, strlen(text),
	                                   LC_LEAPFMT_TZDATA, &err), 0);
	free(text);
}

int main(int argc, char **argv)
{
	char *text;
	struct lc_error err;

	lc_test_init(argc, argv);
	snprintf(dir, sizeof(dir), "/tmp/lc-timeline.XXXXXX");
	if (mkdtemp(dir) == NULL || chmod(dir, 0700) != 0) {
		perror("mkdtemp");
		return 1;
	}
	wtable = lc_leaptable_new();
	text = tz_text("");
	memset(&err, 0, sizeof(err));
	if (wtable == NULL || text == NULL ||
	    lc_leaptable_load_buffer(wtable, "base", text, strlen(text),
	                             LC_LEAPFMT_TZDATA, &err) != 0) {
		fprintf(stderr, "cannot load the test table: %s\n", err.msg);
		return 1;
	}
	free(text);
	LC_RUN(test_same_readings,
	       "a reader of the page reads every clock as the writer; it cannot set it");
	LC_RUN(test_reader_adjtimex, "a page reader's adjtimex is the writer's leap state: INS, OOP, WAIT, TAI-UTC");
	LC_RUN(test_refused, "pages a reader must refuse, with a reason");
	LC_RUN(test_validate_mutations,
	       "lc__tl_validate on 1e5 random mutations agrees with its model");
	LC_RUN(test_second_writer_and_restart,
	       "a second writer is refused; the next continues in place, no step");
	LC_RUN(test_restart_new_table,
	       "a writer restarting with another table: readers get it");
	LC_RUN(test_stale_fallback,
	       "a stale page: the reader carries on in-process, no step");
	LC_RUN(test_stale_fallback_rehearsal,
	       "a stale rehearsal page: the reader carries on from its time, not the host's");
	LC_RUN(test_table_renewal, "a renewed leap file (same rows, later expiry) reaches running readers");
	LC_RUN(test_relation, "the page's counter against host MONOTONIC: the identity in kernel mode, measured on RAW in a declared mode, with its margin");
	LC_RUN(test_relation_never_early, "converting the page's counter to host MONOTONIC with the margin is never early for any host rate within it");
	LC_RUN(test_table_propagation,
	       "a table change of the writer reaches the reader at lc_update");
	{
		char cmd[300];

		chmod(dir, 0700);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	lc_leaptable_free(wtable);
	return lc_test_done();
}
