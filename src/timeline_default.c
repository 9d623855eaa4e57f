/*
 * timeline_default.c - lc_default(): the page's reader if there is a page,
 * else an in-process writer, kept updated by a thread of the library; and
 * lc_timeline_info(). See timeline.h and DESIGN.md section 8.
 */
#define _GNU_SOURCE
#include "timeline.h"
#include "tk_follow.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define DEFAULT_PATH "/run/leapclock/timeline"

/* ---- the default instance -------------------------------------------------- */

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static lc_timekeeper *default_tk;
static struct lc__tl_reader default_rd;
static lc_leaptable *default_table;
static struct lc_smear_policy default_smear;
static struct lc_host_leap_spec default_host_leap;
static char default_path[256];
static int default_source;
static char default_why[256];

/* The in-process writer, as before there were pages. */
static lc_timekeeper *in_process(void)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;
	lc_counter *c;

	struct lc_error err;

	default_table = lc_leaptable_new();
	if (default_table == NULL)
		return NULL;
	/* A table the user named (LEAPCLOCK_LEAPFILE) that cannot be used is
	 * an error wherever it is named: a library cannot exit, so it says
	 * so once, as it does for a refused page, and runs on the table a
	 * new one holds (the built-in). */
	if (lc_leaptable_load_system(default_table, &err) < 0) {
		char msg[400];

		lc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "leapclock: leap table: %s; using the built-in "
		                "table\n", msg);
	}
	lc_tk_config_init(&cfg);
	cfg.table = default_table;
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.follow_host = 1;
	{
		const char *sm = getenv("LEAPCLOCK_SMEAR");
		const char *rs = getenv("LEAPCLOCK_REALTIME_SMEARED");

		if (rs != NULL && *rs != '\0')
			cfg.realtime_smeared = strcmp(rs, "0") != 0;
		if ((sm == NULL || *sm == '\0') && cfg.realtime_smeared)
			sm = "utc-sls";
		if (sm != NULL && *sm != '\0' &&
		    lc_smear_preset(sm, 0, &default_smear, NULL) == 0)
			cfg.smear = &default_smear;
	}
	{
		/* How the host handles a leap (lc_host_leap_parse); a bad
		 * value is said once and the kernel mode used */
		const char *hl = getenv("LEAPCLOCK_HOST_LEAP");
		struct lc_error herr;

		memset(&herr, 0, sizeof(herr));
		if (hl != NULL && *hl != '\0') {
			if (lc_host_leap_parse(hl, "LEAPCLOCK_HOST_LEAP",
			                       &default_host_leap, &herr) == 0) {
				lc_host_leap_apply(&default_host_leap, &cfg);
			} else {
				char msg[600];

				lc_error_format(&herr, msg, sizeof(msg));
				fprintf(stderr, "leapclock: %s; using the kernel "
				                "mode\n", msg);
			}
		}
	}
	/* without an invariant TSC, the host's MONOTONIC in kernel mode,
	 * its MONOTONIC_RAW in a declared mode (counter.h) */
	if (lc__counter_new_writer(&c, cfg.host_leap) < 0)
		return NULL;
	if (lc_tk_new(&tk, c, &cfg) < 0) {
		lc_counter_free(c);
		return NULL;
	}
	/* a host that looks like an undeclared smear or slew: said once */
	lc__tk_follow_report_stderr(tk);
	return tk;
}

/* The library's own update, once a second: a page reader checks its page,
 * an in-process writer follows the host. */
static void *updater(void *arg)
{
	struct itimerspec far;
	int fd = lc__host.timerfd_create(CLOCK_REALTIME,
	                                 TFD_CLOEXEC | TFD_NONBLOCK);

	(void)arg;
	/* Once a second, and at once when the host's REALTIME is set (a
	 * TFD_TIMER_CANCEL_ON_SET timerfd wakes us), so that an in-process
	 * timekeeper follows a host step within the wake-up's latency, not
	 * within a second: some hosts (VMs whose agent keeps the guest's
	 * clock in step with the hypervisor's) step REALTIME many times a
	 * second. */
	memset(&far, 0, sizeof(far));
	far.it_value.tv_sec = (time_t)INT32_MAX * 2;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		uint64_t x;

		if (fd >= 0 &&
		    lc__host.timerfd_settime(
			    fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
			    &far, NULL) < 0 &&
		    errno != ECANCELED) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			/* a read failing with ECANCELED: the clock was set */
			if (poll(&p, 1, 1000) > 0) {
				ssize_t r = read(fd, &x, sizeof(x));

				(void)r;
			}
		} else {
			struct timespec d = { 1, 0 };

			lc__host.clock_nanosleep(CLOCK_MONOTONIC, 0, &d,
			                         NULL);
		}
		lc_update(default_tk);
	}
	return NULL;
}

static void start_updater(void)
{
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	pthread_create(&t, &a, updater, NULL);
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void fork_prepare(void)
{
	lc__tk_lock(default_tk);
}

static void fork_parent(void)
{
	lc__tk_unlock(default_tk);
}

static void fork_child(void)
{
	lc__tk_unlock(default_tk);
	start_updater();
}

static void default_init(void)
{
	const char *env = getenv("LEAPCLOCK_TIMELINE");
	const char *path = env != NULL && *env != '\0' ? env : DEFAULT_PATH;
	struct lc_error err;
	int rc = LC_ENOENT;

	snprintf(default_path, sizeof(default_path), "%s", path);
	if (strcmp(path, "none") == 0) {
		default_path[0] = '\0';
		snprintf(default_why, sizeof(default_why),
		         "LEAPCLOCK_TIMELINE=none");
	} else {
		memset(&err, 0, sizeof(err));
		/* A rehearsal page only where the user pointed us. */
		rc = lc__tl_reader_open(&default_rd, path, env != NULL && *env != '\0',
		                 &err);
		if (rc < 0) {
			lc_error_format(&err, default_why, sizeof(default_why));
			/* No page is the normal case without leapclockd;
			 * a page refused is worth one warning. */
			if (rc != LC_ENOENT || (env != NULL && *env != '\0'))
				fprintf(stderr,
				        "leapclock: not reading the timeline: "
				        "%s; running in-process\n",
				        default_why);
		}
	}
	if (rc == 0) {
		default_tk = default_rd.tk;
		default_source = LC_TIMELINE_PAGE;
	} else {
		default_tk = in_process();
		default_source = LC_TIMELINE_IN_PROCESS;
	}
	if (default_tk == NULL)
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	start_updater();
}

lc_timekeeper *lc_default(void)
{
	pthread_once(&default_once, default_init);
	return default_tk;
}

/* The counter's name as leapclockd's --counter says it. */
static void counter_name(int kind, clockid_t clk, char *out, size_t n)
{
	const char *name = "";

	if (kind == LC_COUNTER_TSC)
		name = "tsc";
	else if (kind == LC_COUNTER_SYSTEM && clk == CLOCK_MONOTONIC)
		name = "system";
	else if (kind == LC_COUNTER_SYSTEM && clk == CLOCK_MONOTONIC_RAW)
		name = "raw";
	else if (kind == LC_COUNTER_SIM)
		name = "sim";
	snprintf(out, n, "%s", name);
}

int lc_timeline_info(const lc_timekeeper *tk, struct lc_timeline_info *out)
{
	const struct lc__tl_page *pg;
	struct lc__tl_status st;

	if (tk == NULL || out == NULL)
		return LC_EINVAL;
	memset(out, 0, sizeof(*out));
	out->table_expires = INT64_MIN;
	if (tk != default_tk) {
		out->source = LC_TIMELINE_OWN;
		return 0;
	}
	snprintf(out->path, sizeof(out->path), "%s", default_path);
	out->source = default_source;
	snprintf(out->why, sizeof(out->why), "%s", default_why);
	if (default_source != LC_TIMELINE_PAGE) {
		/* in-process: the host as this process's own writer sees it */
		struct lc_tk_host h;

		out->host_state = LC_HOST_NOT_FOLLOWED;
		counter_name(lc_tk_counter(tk)->kind, lc_tk_counter(tk)->clk,
		             out->counter, sizeof(out->counter));
		if (lc_tk_host_status(tk, &h) == 0) {
			out->host_state = h.state;
			out->host_offset_ns = h.offset_ns;
			out->host_steps = h.steps;
			out->host_leap = h.host_leap;
			out->host_detected = h.detected;
			out->host_hold_ns = h.hold_ns;
			snprintf(out->host_leap_text,
			         sizeof(out->host_leap_text), "%s",
			         h.host_leap_text);
			snprintf(out->host_detected_text,
			         sizeof(out->host_detected_text), "%s",
			         h.detected_text);
		}
		return 0;
	}
	if (default_rd.source == LC_TIMELINE_FALLBACK) {
		out->source = LC_TIMELINE_FALLBACK;
		snprintf(out->why, sizeof(out->why), "%s", default_rd.why);
	}
	pg = default_rd.map.pg;
	counter_name((int)pg->counter_kind, (clockid_t)pg->counter_clk,
	             out->counter, sizeof(out->counter));
	lc__tl_read_status(pg, &st);
	out->writer_pid = (long)atomic_load(&pg->writer_pid);
	out->writer_alive = lc__tl_pid_alive(out->writer_pid);
	out->pretend = (pg->flags & LC__TLF_PRETEND) != 0;
	out->writer_starts = atomic_load(&pg->writer_starts);
	out->age_ns = lc__tl_age(pg);
	out->last_update_rt = st.last_update_rt;
	snprintf(out->table_source, sizeof(out->table_source), "%s",
	         st.table_source);
	out->table_hash = (int)st.table_hash;
	out->table_expires = st.table_expires;
	snprintf(out->table_note, sizeof(out->table_note), "%s", st.table_note);
	snprintf(out->smear, sizeof(out->smear), "%s", st.smear);
	out->host_state = (int)st.host_state;
	out->host_offset_ns = st.host_offset_ns;
	out->host_steps = (uint64_t)st.host_steps;
	out->host_leap = (int)st.host_leap;
	out->host_detected = (int)st.host_detected;
	out->host_hold_ns = st.host_hold_ns;
	snprintf(out->host_leap_text, sizeof(out->host_leap_text), "%s",
	         st.host_leap_text);
	snprintf(out->host_detected_text, sizeof(out->host_detected_text),
	         "%s", st.host_detected_text);
	return 0;
}
