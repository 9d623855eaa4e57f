/*
 * vm_lib.c - the real-kernel leap test's library face: a program on
 * lc_default(), run inside the test VM by `lc_vm_face run`.
 *
 *	lc_vm_lib face lib|lib-inproc|lib-undecl [--cpu N] CFG...
 *
 * `lib` must read the page leapclockd publishes; `lib-inproc` (started with
 * LEAPCLOCK_TIMELINE=none) the in-process timeline that follows the host on
 * its own; `lib-undecl` the page of a second leapclockd that was not told
 * how the host handles the leap (judged on TAI only: it must never step).
 * Each reads REALTIME, UTC and TAI with lc_gettime_bounds in a tight
 * loop, bracketed by the kernel's CLOCK_MONOTONIC, with leapclock timers for
 * 00:00:00 on REALTIME, UTC and TAI on an lc_loop in a thread; vm_judge.h
 * judges it. A UTC reading or deadline is compared as (sec, nsec), so that
 * 23:59:60.x (tv_nsec >= 1e9) comes before 00:00:00. Every reading's bound
 * must contain kernel truth (vj_kbound).
 */
#define _GNU_SOURCE
#include "leapclock.h"
#include "vm_judge.h"

#include <pthread.h>
#include <sched.h>

static lc_timekeeper *g_tk;
static struct vj g_j;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

/* (sec, nsec) of a UTC reading as one ordered number */
static int64_t utc_key(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 2 * VJ_NS + ts->tv_nsec;
}

static void fired(lc_timer *t, int status, void *data)
{
	struct vj_timer *vt = data;
	lc_clock_id id = lc_timer_clock(t);
	struct timespec ts;
	int64_t m, k;

	if (status != 0)
		return; /* not cancelled: the timers are not CANCEL_ON_SET */
	lc_gettime(g_tk, id, &ts);
	m = vj_mono();
	k = vj_ktai();
	pthread_mutex_lock(&g_mu);
	if (vt->woke == INT64_MIN) {
		vt->woke = id == LC_CLOCK_UTC ? utc_key(&ts) : vj_ts_ns(&ts);
		vt->woke_mono = m;
		vt->woke_k = k;
	}
	pthread_mutex_unlock(&g_mu);
}

static void *loop_main(void *arg)
{
	lc_loop_run(arg, LC_RUN_DEFAULT);
	return NULL;
}

int main(int argc, char **argv)
{
	struct vj_cfg c;
	struct lc_timeline_info ti;
	static lc_timer tm[3];
	lc_loop *loop;
	pthread_t th;
	int i = 3, want, rc;
	int64_t midnight, tai_after;
	char extra[320];
	const char *face;

	if (argc < 3 || strcmp(argv[1], "face") != 0) {
		fprintf(stderr, "usage: lc_vm_lib face lib|lib-inproc "
		                "[--cpu N] CFG...\n");
		return 2;
	}
	face = argv[2];
	memset(&c, 0, sizeof(c));
	if (i + 1 < argc && strcmp(argv[i], "--cpu") == 0) {
		cpu_set_t s;

		CPU_ZERO(&s);
		CPU_SET(atoi(argv[i + 1]), &s);
		sched_setaffinity(0, sizeof(s), &s);
		i += 2;
	}
	if (vj_parse(&c, argc, argv, &i) != 0 || i != argc) {
		fprintf(stderr, "lc_vm_lib: bad arguments\n");
		return 2;
	}
	g_tk = lc_default();
	if (g_tk == NULL) {
		printf("LC-FACE %s FAIL no timekeeper\n", face);
		return 1;
	}
	lc_timeline_info(g_tk, &ti);
	want = strcmp(face, "lib-inproc") != 0 ? LC_TIMELINE_PAGE
	                                       : LC_TIMELINE_IN_PROCESS;
	vj_init(&g_j, &c);
	g_j.tai_only = strcmp(face, "lib-undecl") == 0;
	midnight = c.boundary_s + (c.dir > 0 ? 0 : 1);
	tai_after = c.tai_before + c.dir;
	if (lc_loop_new(&loop, g_tk, 0) != 0) {
		printf("LC-FACE %s FAIL lc_loop_new\n", face);
		return 1;
	}
	if (!g_j.tai_only) {
		static const lc_clock_id ids[3] = {
		    LC_CLOCK_REALTIME, LC_CLOCK_UTC, LC_CLOCK_TAI};
		static const char *const names[3] = {"rt-lc", "utc-lc",
		                                     "tai-lc"};

		for (int k = 0; k < 3; k++) {
			struct timespec d = {
			    .tv_sec = (time_t)(k == 2 ? midnight + tai_after
			                              : midnight)};
			struct vj_timer *vt = vj_timer_add(
			    &g_j, names[k], k == 2 ? VJ_TAI : k == 1 ? VJ_UTC : VJ_RT,
			    k == 1 ? utc_key(&d) : vj_ts_ns(&d));

			lc_timer_init(loop, &tm[k], ids[k], fired, vt);
			rc = lc_timer_start(&tm[k], LC_TIMER_ABSTIME, &d, NULL);
			if (rc != 0) {
				printf("LC-FACE %s FAIL lc_timer_start %s: %s\n",
				       face, names[k], lc_strerror(rc));
				return 1;
			}
		}
	}
	pthread_create(&th, NULL, loop_main, loop);
	pthread_detach(th);
	for (;;) {
		struct lc_bounds b[3];
		static const lc_clock_id bid[3] = {LC_CLOCK_REALTIME,
		                                   LC_CLOCK_TAI, LC_CLOCK_UTC};
		int64_t k1 = vj_ktai(), m1 = vj_mono(), m2, k2;

		for (int k = 0; k < 3; k++)
			lc_gettime_bounds(g_tk, bid[k], &b[k]);
		m2 = vj_mono();
		k2 = vj_ktai();
		if (m1 >= c.end_mono)
			break;
		vj_kreading(&g_j, k1, m1, vj_ts_ns(&b[0].now),
		            vj_ts_ns(&b[1].now), b[2].now.tv_sec,
		            b[2].now.tv_nsec, m2, k2);
		if (g_j.tai_only) {
			usleep(500); /* a step detector: leaves the CPUs be */
			continue;
		}
		/* VJ_RT, VJ_TAI, VJ_UTC in that order */
		for (int k = 0; k < 3; k++)
			vj_kbound(&g_j, k, k1, b[k].earliest.tv_sec,
			          b[k].earliest.tv_nsec, b[k].latest.tv_sec,
			          b[k].latest.tv_nsec, b[k].error_ns,
			          b[k].status != LC_BOUNDS_UNKNOWN, k2, m1);
	}
	lc_timeline_info(g_tk, &ti);
	{
		struct lc_tk_host h;

		memset(&h, 0, sizeof(h));
		lc_tk_host_status(g_tk, &h); /* in-process only */
		snprintf(extra, sizeof(extra),
		         "source=%d host_state=%d host_steps=%" PRIu64
		         " host_offset=%.3fms kernel_rule=%d",
		         ti.source, ti.host_state, ti.host_steps,
		         (double)ti.host_offset_ns / 1e6, h.kernel_rule);
	}
	if (ti.source != want)
		g_j.fail_note = want == LC_TIMELINE_PAGE ? "not-on-the-page"
		                                         : "not-in-process";
	pthread_mutex_lock(&g_mu);
	vj_replay(&g_j);
	return vj_report(&g_j, face, 1, extra);
}
