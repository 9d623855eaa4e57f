/*
 * bench_read.c - the cost of reading each clock id, on the system and tsc
 * counters, as a ratio to the vDSO clock_gettime(CLOCK_REALTIME); and the
 * cost of the exact leap (the one compare in the REALTIME read path), by
 * timing the same read built with the compare compiled out; and
 * lc_gettime_bounds() of every clock as a ratio to lc_gettime() of the
 * same clock and counter (issue 23: at most 1.2), twice: on timekeepers
 * that sample this host's kernel (here often STA_UNSYNC: free-running,
 * 16 s) and on timekeepers whose host sample reports a synchronised
 * kernel (maxerror 1 ms), the common case under NTP.
 *
 *	bench_read [--ms N] [--rounds N]
 *
 * Each figure is the minimum over `rounds` interleaved runs of ~N ms each
 * (default 40 ms x 15), in ns per call, timed with CLOCK_MONOTONIC.
 */
#include "timekeeper.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int64_t sink;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef void (*bench_fn)(const lc_timekeeper *tk, long n);

static void b_vdso(const lc_timekeeper *tk, long n)
{
	struct timespec ts;
	int64_t acc = 0;

	(void)tk;
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

#if defined(__x86_64__)
/* The floor of any TSC-based read: the ordered TSC read alone. */
static void b_rdtsc(const lc_timekeeper *tk, long n)
{
	uint64_t acc = 0;

	(void)tk;
	for (long i = 0; i < n; i++)
		acc += lc__rdtsc();
	sink = (int64_t)acc;
}
#endif

static lc_clock_id cur_id;

static void b_gettime(const lc_timekeeper *tk, long n)
{
	struct timespec ts;
	int64_t acc = 0;
	lc_clock_id id = cur_id;

	for (long i = 0; i < n; i++) {
		lc_gettime(tk, id, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

/* The REALTIME read with and without the leap compare: two copies of the
 * same static inline function, the flag constant-folded in each. */
static __attribute__((noinline)) void rt_with(const lc_timekeeper *tk,
                                              struct timespec *ts)
{
	lc__tk_gettime_rt(tk, ts, 1);
}

static __attribute__((noinline)) void rt_without(const lc_timekeeper *tk,
                                                 struct timespec *ts)
{
	lc__tk_gettime_rt(tk, ts, 0);
}

static void b_rt_with(const lc_timekeeper *tk, long n)
{
	struct timespec ts;
	int64_t acc = 0;

	for (long i = 0; i < n; i++) {
		rt_with(tk, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

static void b_rt_without(const lc_timekeeper *tk, long n)
{
	struct timespec ts;
	int64_t acc = 0;

	for (long i = 0; i < n; i++) {
		rt_without(tk, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

static double time_one(bench_fn f, const lc_timekeeper *tk, long n)
{
	int64_t t0 = now_ns();

	f(tk, n);
	return (double)(now_ns() - t0) / (double)n;
}

/* Iterations for ~ms milliseconds. */
static long calibrate(bench_fn f, const lc_timekeeper *tk, int ms)
{
	long n = 1000;

	for (;;) {
		int64_t t0 = now_ns();

		f(tk, n);
		if (now_ns() - t0 > 5000000 || n > (1L << 30))
			break;
		n *= 2;
	}
	{
		double per = time_one(f, tk, n);

		return (long)((double)ms * 1e6 / (per > 0.1 ? per : 0.1));
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct job {
	bench_fn f;
	const lc_timekeeper *tk;
	lc_clock_id id;
	long n;
	double r[64];
	double median;
};

static void run_jobs(struct job *j, int nj, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < nj; k++) {
			/* A job reads a timekeeper updated just before it
			 * (untimed): in use a default timekeeper is updated
			 * once a second by the library's thread (the vDSO's
			 * data at every tick), so a read combines a snapshot
			 * under a second old; without updates the snapshot
			 * would age through the run. */
			lc_update((lc_timekeeper *)j[k].tk);
			cur_id = j[k].id;
			j[k].r[r] = time_one(j[k].f, j[k].tk, j[k].n);
		}
	}
	for (int k = 0; k < nj; k++) {
		qsort(j[k].r, (size_t)rounds, sizeof(double), cmp_d);
		/* the minimum: on a shared machine the noise only adds */
		j[k].median = j[k].r[0];
	}
}

/* --ms N, --rounds N: 0, or 2 after the usage. */
static int parse_args(int argc, char **argv, int *ms, int *rounds)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
			*ms = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			*rounds = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--ms N] [--rounds N]\n",
			        argv[0]);
			return 2;
		}
	}
	return *rounds < 1 || *rounds > 64 || *ms < 1 ? 2 : 0;
}

static void add_job(struct job *jobs, int *nj, bench_fn f,
                    const lc_timekeeper *tk, lc_clock_id id)
{
	jobs[*nj].f = f;
	jobs[*nj].tk = tk;
	jobs[*nj].id = id;
	(*nj)++;
}

/* lc_gettime_bounds() of the same clock, to set beside the plain read
 * (issue 23: at most 1.2 x). */
static void b_bounds(const lc_timekeeper *tk, long n)
{
	struct lc_bounds b;
	int64_t acc = 0;
	lc_clock_id id = cur_id;

	for (long i = 0; i < n; i++) {
		lc_gettime_bounds(tk, id, &b);
		acc += b.latest.tv_nsec;
	}
	sink = acc;
}

/* A host as a synchronised one reports itself (this machine's kernel is
 * often STA_UNSYNC, maxerror 16 s): its REALTIME, STA_UNSYNC clear,
 * maxerror 1 ms. Called by lc_update() only (untimed), so the bound
 * read it gives is the common case of a host under NTP: a half-width of
 * about a ms. */
static int synced_sample(void *arg, struct lc_host_sample *out)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &ts);
	memset(out, 0, sizeof(*out));
	out->realtime_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	out->tai = 37;
	out->state = LC_TIME_OK;
	out->status = LC_STA_PLL | LC_STA_NANO;
	out->maxerror_us = 1000;
	out->esterror_us = 100;
	out->flags = LC_HOST_SAMPLE_KERNEL | LC_HOST_SAMPLE_ERROR;
	return 0;
}

/* The jobs in the order the report reads them: the vDSO, every clock on
 * the system counter (and the TSC), the REALTIME read with and without
 * the leap compare, the bare TSC read. */
static int add_jobs(struct job *jobs, const lc_timekeeper *tsys,
                    const lc_timekeeper *ttsc, const lc_timekeeper *ssys,
                    const lc_timekeeper *stsc)
{
	int nj = 0;

	add_job(jobs, &nj, b_vdso, tsys, 0);
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		add_job(jobs, &nj, b_gettime, tsys, (lc_clock_id)id);
		if (ttsc)
			add_job(jobs, &nj, b_gettime, ttsc, (lc_clock_id)id);
	}
	add_job(jobs, &nj, b_rt_with, tsys, 0);
	add_job(jobs, &nj, b_rt_without, tsys, 0);
	if (ttsc) {
		add_job(jobs, &nj, b_rt_with, ttsc, 0);
		add_job(jobs, &nj, b_rt_without, ttsc, 0);
	}
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		add_job(jobs, &nj, b_bounds, tsys, (lc_clock_id)id);
		if (ttsc)
			add_job(jobs, &nj, b_bounds, ttsc, (lc_clock_id)id);
	}
	for (int id = 0; id < LC_CLOCK_COUNT; id++) {
		add_job(jobs, &nj, b_bounds, ssys, (lc_clock_id)id);
		if (ttsc)
			add_job(jobs, &nj, b_bounds, stsc, (lc_clock_id)id);
	}
#if defined(__x86_64__)
	add_job(jobs, &nj, b_rdtsc, tsys, 0);
#endif
	return nj;
}

static void report(const struct job *jobs, int nj, int have_tsc)
{
	double vdso = jobs[0].median;
	int k = 1 + LC_CLOCK_COUNT * (have_tsc ? 2 : 1);

	printf("\nvDSO clock_gettime(CLOCK_REALTIME): %.2f ns/call "
	       "(host clocksource decides its cost)\n\n",
	       vdso);
	printf("%-14s %12s %8s %12s %8s\n", "clock", "system ns", "x vDSO",
	       "tsc ns", "x vDSO");
	for (int id = 0, j = 1; id < LC_CLOCK_COUNT; id++) {
		double s = jobs[j++].median, t = 0;

		if (have_tsc)
			t = jobs[j++].median;
		printf("%-14s %12.2f %8.2f", lc_clock_name((lc_clock_id)id), s,
		       s / vdso);
		if (have_tsc)
			printf(" %12.2f %8.2f\n", t, t / vdso);
		else
			printf(" %12s %8s\n", "-", "-");
	}
	printf("\nleap compare (REALTIME read, same code with the "
	       "compare compiled out):\n");
	printf("  system: with %.3f ns, without %.3f ns: %+.2f %%\n",
	       jobs[k].median, jobs[k + 1].median,
	       (jobs[k].median / jobs[k + 1].median - 1) * 100);
	if (have_tsc)
		printf("  tsc:    with %.3f ns, without %.3f ns: %+.2f %%\n",
		       jobs[k + 2].median, jobs[k + 3].median,
		       (jobs[k + 2].median / jobs[k + 3].median - 1) * 100);
	for (int set = 0; set < 2; set++) {
		int j = k + (have_tsc ? 4 : 2) +
		        set * LC_CLOCK_COUNT * (have_tsc ? 2 : 1);
		struct lc_bounds b;

		/* what the bound read computed (the host's synchronisation
		 * decides the half-width, not the cost: the same code) */
		lc_gettime_bounds(jobs[j].tk, LC_CLOCK_REALTIME, &b);
		printf("\nlc_gettime_bounds beside lc_gettime (x plain: the "
		       "bound's cost, at most 1.2), %s: status %s, half-width "
		       "%.6f s:\n",
		       set ? "a host reporting itself synchronised (maxerror "
		             "1 ms)"
		           : "this host's own kernel state",
		       b.status == LC_BOUNDS_SYNCHRONIZED   ? "synchronised"
		       : b.status == LC_BOUNDS_FREE_RUNNING ? "free-running"
		                                            : "unknown",
		       (double)b.error_ns / 1e9);
		printf("%-14s %12s %8s %12s %8s\n", "clock", "system ns",
		       "x plain", "tsc ns", "x plain");
		for (int id = 0; id < LC_CLOCK_COUNT; id++) {
			int p = 1 + id * (have_tsc ? 2 : 1);
			double s = jobs[j++].median, t = 0;

			if (have_tsc)
				t = jobs[j++].median;
			printf("%-14s %12.2f %8.2f",
			       lc_clock_name((lc_clock_id)id), s,
			       s / jobs[p].median);
			if (have_tsc)
				printf(" %12.2f %8.2f\n", t,
				       t / jobs[p + 1].median);
			else
				printf(" %12s %8s\n", "-", "-");
		}
	}
#if defined(__x86_64__)
	printf("\nfloor: the ordered TSC read alone (lfence; rdtsc) %.2f ns = "
	       "%.2f x vDSO\n",
	       jobs[nj - 1].median, jobs[nj - 1].median / vdso);
#else
	(void)nj;
#endif
}

int main(int argc, char **argv)
{
	lc_counter *csys = NULL, *ctsc = NULL;
	lc_timekeeper *tsys = NULL, *ttsc = NULL, *ssys = NULL, *stsc = NULL;
	struct lc_tk_config scfg;
	struct lc_error err;
	struct job jobs[2 + 6 * LC_CLOCK_COUNT + 5];
	int nj, ms = 40, rounds = 15;

	if (parse_args(argc, argv, &ms, &rounds) != 0)
		return 2;
	printf("command:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	if (lc_counter_new_system(&csys, CLOCK_MONOTONIC) < 0 ||
	    lc_tk_new(&tsys, csys, NULL) < 0) {
		fprintf(stderr, "bench_read: no system counter\n");
		return 1;
	}
	memset(&err, 0, sizeof(err));
	if (lc_counter_new_tsc(&ctsc, &err) == 0) {
		lc_tk_new(&ttsc, ctsc, NULL);
		printf("tsc: %" PRIu64 " Hz (calibrated)\n", lc_counter_freq(ctsc));
	} else {
		printf("tsc: skipped: %s\n", err.msg);
	}
	lc_tk_config_init(&scfg);
	scfg.follow_host = 1;
	scfg.host_sample = synced_sample;
	if (lc_tk_new(&ssys, csys, &scfg) < 0 ||
	    (ttsc && lc_tk_new(&stsc, ctsc, &scfg) < 0)) {
		fprintf(stderr, "bench_read: no synchronised timekeeper\n");
		return 1;
	}
	lc_update(tsys);
	lc_update(ssys);
	if (ttsc) {
		lc_update(ttsc);
		lc_update(stsc);
	}

	memset(jobs, 0, sizeof(jobs));
	nj = add_jobs(jobs, tsys, ttsc, ssys, stsc);
	for (int k = 0; k < nj; k++) {
		cur_id = jobs[k].id;
		jobs[k].n = calibrate(jobs[k].f, jobs[k].tk, ms);
	}
	run_jobs(jobs, nj, rounds);
	report(jobs, nj, ttsc != NULL);
	lc_tk_free(tsys);
	lc_tk_free(ttsc);
	lc_tk_free(ssys);
	lc_tk_free(stsc);
	lc_counter_free(csys);
	lc_counter_free(ctsc);
	return 0;
}
