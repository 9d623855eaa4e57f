/*
 * bench_timers.c - the timer queue against libev and libuv, side by side,
 * and the real-host lateness of the timerfd driver against plain timerfd.
 *
 *   bench_timers [max_n] [--no-lateness] [--rounds R] [--no-queues]
 *                [--uv-max N]
 *
 * Part 1, throughput, for n = 1e3 .. max_n (default 1e7) timers:
 *   insert+expire: start n timers with random deadlines that are already
 *     due, then one pass of the loop fires them all (each callback counts);
 *   insert+cancel: start n timers with random future deadlines, then stop
 *     them all in the order they were started.
 * ops/s = n / (time to insert n and expire them, or to insert n and
 * cancel them). Contenders: leapclock's API on a
 * MONOTONIC base (the default loop driven by the thread that created it,
 * the same loop after another thread has used it once, so that every call
 * takes its mutex, and LC_LOOP_UNLOCKED), the bare 4-ary heap of
 * src/timer_heap.c, an intrusive pairing heap (the alternative design,
 * written here to measure it), libev's ev_timer and libuv's uv_timer_t
 * (compiled in when CMake finds them). The contenders take turns in R
 * rounds (default 3; every other round in reverse order), each repeating
 * its phases for at least 0.2 s / R per round, and the best repetition of
 * each is reported: on a shared machine a burst of load then falls on all
 * of them alike. --no-queues leaves out the two queue-only rows, --uv-max
 * runs libuv only up to N timers (about 40 s a repetition at 1e7).
 *
 * libuv's deadlines are whole ms from loop->time; to make them due without
 * sleeping, loop->time (a field of uv_loop_t) is moved 2 s back while the
 * timers are started, so they fall 1..2 s in the past; uv_run() then reads
 * the real time again. libev's are ev_now() plus a negative random offset.
 *
 * Part 2, lateness on this host (about 5 s): 10,000 MONOTONIC timers with
 * deadlines 200 us apart (+ random 0..100 us) run by lc_loop_run on its one
 * timerfd, and one plain timerfd (CLOCK_MONOTONIC, TFD_TIMER_ABSTIME) armed
 * at each of the same deadlines in turn, in four interleaved rounds of
 * 2,500. Lateness = the clock read in the callback (after read() for plain
 * timerfd) minus the deadline. `bench_timers 0` runs only this part.
 */
#include "leapclock.h"
#include "timer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __linux__
#include <sys/timerfd.h>
#include <unistd.h>
#endif
#ifdef LC_HAVE_LIBEV
#include <ev.h>
#endif
#ifdef LC_HAVE_LIBUV
#include <uv.h>
#endif

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t fired;
static double budget = 0.2; /* s per contender per round (0.2 / rounds) */

struct result {
	double expire_ops, cancel_ops;
};

/* ---- leapclock API -------------------------------------------------------- */

static void lc_cb(lc_timer *t, int status, void *data)
{
	(void)t;
	(void)status;
	(void)data;
	fired++;
}

static lc_timekeeper *bench_tk;

#include <pthread.h>

static void *touch_loop(void *arg)
{
	(void)lc_loop_count(arg);
	return NULL;
}

/* flags: lc_loop_new's, or SHARED: the default loop after another thread
 * has used it */
#define SHARED 0x100u

static struct result run_lc(size_t n, unsigned flags, lc_timer *tm,
                            int64_t *dl)
{
	struct result r = {0, 0};
	lc_loop *loop;
	double t0, t1, best_e = 1e30, best_c = 1e30, spent = 0;

	if (lc_loop_new(&loop, bench_tk, flags & ~SHARED) < 0)
		return r;
	if (flags & SHARED) {
		pthread_t th;
		if (pthread_create(&th, NULL, touch_loop, loop) == 0)
			pthread_join(th, NULL);
	}
	for (size_t i = 0; i < n; i++)
		lc_timer_init(loop, &tm[i], LC_CLOCK_MONOTONIC, lc_cb, NULL);
	do {
		int64_t now = lc_now_ns(bench_tk, LC_CLOCK_MONOTONIC);
		for (size_t i = 0; i < n; i++)
			dl[i] = now - 1 - (int64_t)(rnd() % 1000000000u);
		fired = 0;
		t0 = now_s();
		for (size_t i = 0; i < n; i++)
			lc_timer_start_ns(&tm[i], LC_TIMER_ABSTIME, dl[i], 0);
		lc_loop_expire(loop);
		t1 = now_s();
		if (fired != n)
			printf("!! leapclock fired %zu of %zu\n", fired, n);
		if (t1 - t0 < best_e)
			best_e = t1 - t0;
		spent += t1 - t0;
		now = lc_now_ns(bench_tk, LC_CLOCK_MONOTONIC);
		for (size_t i = 0; i < n; i++)
			dl[i] = now + 1000000000 + (int64_t)(rnd() % 1000000000u);
		t0 = now_s();
		for (size_t i = 0; i < n; i++)
			lc_timer_start_ns(&tm[i], LC_TIMER_ABSTIME, dl[i], 0);
		for (size_t i = 0; i < n; i++)
			lc_timer_stop(&tm[i]);
		t1 = now_s();
		if (t1 - t0 < best_c)
			best_c = t1 - t0;
		spent += t1 - t0;
	} while (spent < budget);
	lc_loop_free(loop);
	r.expire_ops = (double)n / best_e;
	r.cancel_ops = (double)n / best_c;
	return r;
}

/* ---- the bare 4-ary heap -------------------------------------------------- */

static struct result run_heap4(size_t n, struct lc__timer *tm)
{
	struct result r = {0, 0};
	struct lc__heap h = {0};
	double t0, t1, best_e = 1e30, best_c = 1e30, spent = 0;
	uint64_t seq = 0;

	do {
		t0 = now_s();
		for (size_t i = 0; i < n; i++) {
			tm[i].key = (int64_t)(rnd() % 1000000000u);
			tm[i].seq = ++seq;
			lc__heap_insert(&h, &tm[i]);
		}
		while (lc__heap_top(&h) != NULL)
			lc__heap_remove(&h, lc__heap_top(&h));
		t1 = now_s();
		if (t1 - t0 < best_e)
			best_e = t1 - t0;
		spent += t1 - t0;
		t0 = now_s();
		for (size_t i = 0; i < n; i++) {
			tm[i].key = (int64_t)(rnd() % 1000000000u);
			tm[i].seq = ++seq;
			lc__heap_insert(&h, &tm[i]);
		}
		for (size_t i = 0; i < n; i++)
			lc__heap_remove(&h, &tm[i]);
		t1 = now_s();
		if (t1 - t0 < best_c)
			best_c = t1 - t0;
		spent += t1 - t0;
	} while (spent < budget);
	lc__heap_free(&h);
	r.expire_ops = (double)n / best_e;
	r.cancel_ops = (double)n / best_c;
	return r;
}

/* ---- an intrusive pairing heap (the alternative design) ------------------- */

struct pnode {
	int64_t key;
	uint64_t seq;
	struct pnode *child, *next, *prev; /* prev: parent if first child */
};

static int pless(const struct pnode *a, const struct pnode *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static struct pnode *pmeld(struct pnode *a, struct pnode *b)
{
	if (a == NULL)
		return b;
	if (b == NULL)
		return a;
	if (pless(b, a)) {
		struct pnode *t = a;
		a = b;
		b = t;
	}
	b->prev = a;
	b->next = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	a->next = a->prev = NULL;
	return a;
}

/* two-pass merge of a sibling list */
static struct pnode *pmerge_pairs(struct pnode *first)
{
	struct pnode *acc = NULL, *pairs = NULL;

	while (first != NULL) {
		struct pnode *a = first, *b = a->next, *rest;
		rest = b ? b->next : NULL;
		a->next = a->prev = NULL;
		if (b)
			b->next = b->prev = NULL;
		a = pmeld(a, b);
		a->next = pairs; /* push on a stack, right to left */
		pairs = a;
		first = rest;
	}
	while (pairs != NULL) {
		struct pnode *nx = pairs->next;
		pairs->next = NULL;
		acc = pmeld(pairs, acc);
		pairs = nx;
	}
	return acc;
}

static struct pnode *ppop(struct pnode *root)
{
	return pmerge_pairs(root->child);
}

static struct pnode *premove(struct pnode *root, struct pnode *x)
{
	if (x == root)
		return ppop(root);
	/* cut x out of its sibling list */
	if (x->prev->child == x)
		x->prev->child = x->next;
	else
		x->prev->next = x->next;
	if (x->next)
		x->next->prev = x->prev;
	x->next = x->prev = NULL;
	return pmeld(root, pmerge_pairs(x->child));
}

static struct result run_pairing(size_t n, struct pnode *pn)
{
	struct result r = {0, 0};
	double t0, t1, best_e = 1e30, best_c = 1e30, spent = 0;
	uint64_t seq = 0;

	do {
		struct pnode *root = NULL;
		size_t popped = 0;
		t0 = now_s();
		for (size_t i = 0; i < n; i++) {
			pn[i].key = (int64_t)(rnd() % 1000000000u);
			pn[i].seq = ++seq;
			pn[i].child = pn[i].next = pn[i].prev = NULL;
			root = pmeld(root, &pn[i]);
		}
		while (root != NULL) {
			root = ppop(root);
			popped++;
		}
		t1 = now_s();
		if (popped != n)
			printf("!! pairing popped %zu of %zu\n", popped, n);
		if (t1 - t0 < best_e)
			best_e = t1 - t0;
		spent += t1 - t0;
		t0 = now_s();
		for (size_t i = 0; i < n; i++) {
			pn[i].key = (int64_t)(rnd() % 1000000000u);
			pn[i].seq = ++seq;
			pn[i].child = pn[i].next = pn[i].prev = NULL;
			root = pmeld(root, &pn[i]);
		}
		for (size_t i = 0; i < n; i++)
			root = premove(root, &pn[i]);
		t1 = now_s();
		if (root != NULL)
			printf("!! pairing heap not empty after removals\n");
		if (t1 - t0 < best_c)
			best_c = t1 - t0;
		spent += t1 - t0;
	} while (spent < budget);
	r.expire_ops = (double)n / best_e;
	r.cancel_ops = (double)n / best_c;
	return r;
}

/* ---- libev ---------------------------------------------------------------- */

#ifdef LC_HAVE_LIBEV
static void evb_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	(void)l;
	(void)w;
	(void)revents;
	fired++;
}

static struct result run_libev(size_t n)
{
	struct result r = {0, 0};
	struct ev_loop *l = ev_loop_new(EVFLAG_AUTO);
	ev_timer *w = calloc(n, sizeof(*w));
	double *after = calloc(n, sizeof(*after));
	double t0, t1, best_e = 1e30, best_c = 1e30, spent = 0;

	for (size_t i = 0; i < n; i++)
		ev_timer_init(&w[i], evb_cb, 0., 0.);
	do {
		for (size_t i = 0; i < n; i++)
			after[i] = -1e-9 * (double)(1 + rnd() % 1000000000u);
		fired = 0;
		ev_now_update(l);
		t0 = now_s();
		for (size_t i = 0; i < n; i++) {
			ev_timer_set(&w[i], after[i], 0.);
			ev_timer_start(l, &w[i]);
		}
		ev_run(l, EVRUN_NOWAIT);
		t1 = now_s();
		if (fired != n)
			printf("!! libev fired %zu of %zu\n", fired, n);
		if (t1 - t0 < best_e)
			best_e = t1 - t0;
		spent += t1 - t0;
		for (size_t i = 0; i < n; i++)
			after[i] = 1.0 + 1e-9 * (double)(rnd() % 1000000000u);
		t0 = now_s();
		for (size_t i = 0; i < n; i++) {
			ev_timer_set(&w[i], after[i], 0.);
			ev_timer_start(l, &w[i]);
		}
		for (size_t i = 0; i < n; i++)
			ev_timer_stop(l, &w[i]);
		t1 = now_s();
		if (t1 - t0 < best_c)
			best_c = t1 - t0;
		spent += t1 - t0;
	} while (spent < budget);
	ev_loop_destroy(l);
	free(w);
	free(after);
	r.expire_ops = (double)n / best_e;
	r.cancel_ops = (double)n / best_c;
	return r;
}
#endif

/* ---- libuv ---------------------------------------------------------------- */

#ifdef LC_HAVE_LIBUV
static void uvb_cb(uv_timer_t *h)
{
	(void)h;
	fired++;
}

static struct result run_libuv(size_t n)
{
	struct result r = {0, 0};
	uv_loop_t *l = calloc(1, sizeof(*l));
	uv_timer_t *w = calloc(n, sizeof(*w));
	uint64_t *ms = calloc(n, sizeof(*ms));
	double t0, t1, best_e = 1e30, best_c = 1e30, spent = 0;

	uv_loop_init(l);
	for (size_t i = 0; i < n; i++)
		uv_timer_init(l, &w[i]);
	do {
		uint64_t real;
		for (size_t i = 0; i < n; i++)
			ms[i] = rnd() % 1000u;
		fired = 0;
		uv_update_time(l);
		real = l->time;
		l->time = real - 2000; /* see the header comment */
		t0 = now_s();
		for (size_t i = 0; i < n; i++)
			uv_timer_start(&w[i], uvb_cb, ms[i], 0);
		uv_run(l, UV_RUN_NOWAIT);
		t1 = now_s();
		if (fired != n)
			printf("!! libuv fired %zu of %zu\n", fired, n);
		if (t1 - t0 < best_e)
			best_e = t1 - t0;
		spent += t1 - t0;
		for (size_t i = 0; i < n; i++)
			ms[i] = 1000u + rnd() % 1000u;
		t0 = now_s();
		for (size_t i = 0; i < n; i++)
			uv_timer_start(&w[i], uvb_cb, ms[i], 0);
		for (size_t i = 0; i < n; i++)
			uv_timer_stop(&w[i]);
		t1 = now_s();
		if (t1 - t0 < best_c)
			best_c = t1 - t0;
		spent += t1 - t0;
	} while (spent < budget);
	/* the handles are not closed (1e7 close callbacks would dominate);
	 * the loop is abandoned, not uv_loop_close()d */
	free(w);
	free(ms);
	r.expire_ops = (double)n / best_e;
	r.cancel_ops = (double)n / best_c;
	return r;
}
#endif

/* ---- part 2: lateness on this host ---------------------------------------- */

#ifdef __linux__
enum { NLAT = 10000 };
static int64_t lat_dl[NLAT], lat_lc[NLAT], lat_fd[NLAT];
static size_t lat_i;

static void lat_cb(lc_timer *t, int status, void *data)
{
	size_t i = (size_t)(uintptr_t)data;
	(void)status;
	(void)t;
	lat_lc[i] = lc_now_ns(bench_tk, LC_CLOCK_MONOTONIC) - lat_dl[i];
	lat_i++;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void pct(int64_t *v, size_t n, int64_t *p50, int64_t *p99,
                int64_t *max, size_t *early)
{
	*early = 0;
	for (size_t i = 0; i < n; i++)
		*early += v[i] < 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	*p50 = v[n / 2];
	*p99 = v[n * 99 / 100];
	*max = v[n - 1];
}

/* One round: `n` timers from lat_dl[off..] on the driver, then the same
 * deadlines (shifted to now) on a plain timerfd. */
static int lateness_round(size_t off, size_t n, lc_timer *tm)
{
	lc_loop *loop;
	int64_t start, host_off;
	struct timespec hts;
	int fd;

	if (lc_loop_new(&loop, bench_tk, 0) < 0 || lc_loop_fd(loop) < 0)
		return -1;
	start = lc_now_ns(bench_tk, LC_CLOCK_MONOTONIC) + 20000000;
	for (size_t i = off; i < off + n; i++) {
		lat_dl[i] = start + (int64_t)(i - off) * 200000 +
		            (int64_t)(rnd() % 100000u);
		lc_timer_init(loop, &tm[i], LC_CLOCK_MONOTONIC, lat_cb,
		              (void *)(uintptr_t)i);
		lc_timer_start_ns(&tm[i], LC_TIMER_ABSTIME, lat_dl[i], 0);
	}
	lc_loop_run(loop, LC_RUN_DEFAULT);
	lc_loop_free(loop);

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	clock_gettime(CLOCK_MONOTONIC, &hts);
	host_off = (hts.tv_sec * INT64_C(1000000000) + hts.tv_nsec) +
	           20000000 - start;
	for (size_t i = off; i < off + n; i++) {
		struct itimerspec its;
		uint64_t ticks;
		int64_t d = lat_dl[i] + host_off;
		memset(&its, 0, sizeof(its));
		its.it_value.tv_sec = (time_t)(d / 1000000000);
		its.it_value.tv_nsec = (long)(d % 1000000000);
		timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
		if (read(fd, &ticks, sizeof(ticks)) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &hts);
		lat_fd[i] = hts.tv_sec * INT64_C(1000000000) + hts.tv_nsec - d;
	}
	close(fd);
	return 0;
}

static void lateness(void)
{
	lc_timer *tm = calloc(NLAT, sizeof(*tm));
	int64_t a50, a99, amax, b50, b99, bmax;
	size_t aearly, bearly;

	/* four interleaved rounds of 2,500, so that the load of the machine
	 * falls on both sides alike */
	for (size_t r = 0; r < 4; r++) {
		if (lateness_round(r * (NLAT / 4), NLAT / 4, tm) < 0) {
			printf("lateness: skipped (no timerfd)\n");
			free(tm);
			return;
		}
	}
	free(tm);
	pct(lat_lc, NLAT, &a50, &a99, &amax, &aearly);
	pct(lat_fd, NLAT, &b50, &b99, &bmax, &bearly);
	printf("\nlateness over %d timers, 200-300 us apart, 4 interleaved "
	       "rounds (ns)\n", NLAT);
	printf("%-28s %10s %10s %10s %6s\n", "", "p50", "p99", "max", "early");
	printf("%-28s %10" PRId64 " %10" PRId64 " %10" PRId64 " %6zu\n",
	       "leapclock timerfd driver", a50, a99, amax, aearly);
	printf("%-28s %10" PRId64 " %10" PRId64 " %10" PRId64 " %6zu\n",
	       "plain timerfd", b50, b99, bmax, bearly);
	printf("%-28s %10.3f %10.3f %10.3f\n", "ratio", (double)a50 / (double)b50,
	       (double)a99 / (double)b99, (double)amax / (double)bmax);
}
#endif

enum {
	C_LIBEV,
	C_LIBUV,
	C_LC_OWNER,
	C_LC_SHARED,
	C_LC_UNLOCKED,
	C_HEAP4,
	C_PAIRING,
	NCONT
};

static const char *const names[NCONT] = {
	"libev ev_timer",
	"libuv uv_timer_t",
	"leapclock default loop",
	"leapclock default, shared",
	"leapclock LC_LOOP_UNLOCKED",
	"queue only: 4-ary heap",
	"queue only: pairing heap",
};

static struct result run_one(int c, size_t n, lc_timer *tm, int64_t *dl,
                             void *raw)
{
	struct result none = {0, 0};

	switch (c) {
#ifdef LC_HAVE_LIBEV
	case C_LIBEV: return run_libev(n);
#endif
#ifdef LC_HAVE_LIBUV
	case C_LIBUV: return run_libuv(n);
#endif
	case C_LC_OWNER: return run_lc(n, 0, tm, dl);
	case C_LC_SHARED: return run_lc(n, SHARED, tm, dl);
	case C_LC_UNLOCKED: return run_lc(n, LC_LOOP_UNLOCKED, tm, dl);
	case C_HEAP4: return run_heap4(n, raw);
	case C_PAIRING: return run_pairing(n, raw);
	}
	return none;
}

static void row(const char *name, struct result r, struct result ref_ev,
                struct result ref_uv)
{
	printf("  %-30s %12.0f %12.0f", name, r.expire_ops, r.cancel_ops);
	if (ref_ev.expire_ops > 0)
		printf("   %5.2fx %5.2fx", r.expire_ops / ref_ev.expire_ops,
		       r.cancel_ops / ref_ev.cancel_ops);
	else
		printf("   %6s %6s", "-", "-");
	if (ref_uv.expire_ops > 0)
		printf("   %5.2fx %5.2fx", r.expire_ops / ref_uv.expire_ops,
		       r.cancel_ops / ref_uv.cancel_ops);
	printf("\n");
}

int main(int argc, char **argv)
{
	size_t maxn = 10000000;
	int do_lat = 1, rounds = 3, queues = 1;
	double uv_max = 1e30;
	lc_counter *c;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-lateness") == 0)
			do_lat = 0;
		else if (strcmp(argv[i], "--no-queues") == 0)
			queues = 0;
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--uv-max") == 0 && i + 1 < argc)
			uv_max = strtod(argv[++i], NULL);
		else
			maxn = (size_t)strtod(argv[i], NULL);
	}
	if (rounds < 1)
		rounds = 1;
	budget = 0.2 / rounds;
	if (lc_counter_new_system(&c, CLOCK_MONOTONIC) < 0 ||
	    lc_tk_new(&bench_tk, c, NULL) < 0) {
		fprintf(stderr, "bench_timers: no timekeeper\n");
		return 1;
	}
	printf("timer throughput, ops/s (n timers; best of repeats, %d "
	       "interleaved rounds)\n", rounds);
	printf("ratios: this row / libev, this row / libuv (expire, cancel)\n");
#ifndef LC_HAVE_LIBEV
	printf("libev: skipped (not found at build time: Debian libev-dev)\n");
#endif
#ifndef LC_HAVE_LIBUV
	printf("libuv: skipped (not found at build time: Debian libuv1-dev)\n");
#endif
	for (size_t n = 1000; n <= maxn; n *= 10) {
		lc_timer *tm = calloc(n, sizeof(*tm));
		int64_t *dl = calloc(n, sizeof(*dl));
		struct result best[NCONT];
		void *raw = calloc(n, sizeof(struct pnode) > sizeof(struct lc__timer)
		                          ? sizeof(struct pnode)
		                          : sizeof(struct lc__timer));

		if (tm == NULL || dl == NULL || raw == NULL) {
			printf("n=%zu: out of memory\n", n);
			break;
		}
		memset(best, 0, sizeof(best));
		for (int r = 0; r < rounds; r++)
			for (int k = 0; k < NCONT; k++) {
				int who = r % 2 ? NCONT - 1 - k : k;
				struct result x = {0, 0};
				if (who >= C_HEAP4 && !queues)
					continue;
				if (who == C_LIBUV && (double)n > uv_max)
					continue;
				x = run_one(who, n, tm, dl, raw);
				if (x.expire_ops > best[who].expire_ops)
					best[who].expire_ops = x.expire_ops;
				if (x.cancel_ops > best[who].cancel_ops)
					best[who].cancel_ops = x.cancel_ops;
			}
		printf("\nn = %zu\n  %-30s %12s %12s   %13s   %13s\n", n, "",
		       "ins+expire", "ins+cancel", "vs libev", "vs libuv");
		for (int who = 0; who < NCONT; who++)
			if (best[who].expire_ops > 0)
				row(names[who], best[who], best[C_LIBEV],
				    best[C_LIBUV]);
		fflush(stdout);
		free(tm);
		free(dl);
		free(raw);
	}
	printf("\nmemory: struct lc_timer %zu bytes (caller's) + 16 bytes per "
	       "queued timer in the heap array (64 at worst: tombstones of "
	       "stopped timers up to the armed count, and doubling)\n",
	       sizeof(struct lc_timer));
#ifdef LC_HAVE_LIBEV
	printf("memory: libev ev_timer %zu bytes + 16 per active timer in its "
	       "heap array (deadline and pointer)\n", sizeof(ev_timer));
#endif
#ifdef LC_HAVE_LIBUV
	printf("memory: libuv uv_timer_t %zu bytes (its heap links inside)\n",
	       sizeof(uv_timer_t));
#endif
#ifdef __linux__
	if (do_lat)
		lateness();
#else
	(void)do_lat;
#endif
	lc_tk_free(bench_tk);
	lc_counter_free(c);
	return 0;
}
