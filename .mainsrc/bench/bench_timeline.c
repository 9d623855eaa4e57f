/*
 * bench_timeline.c - the cost of a read through a timeline page against the
 * same read from an in-process timekeeper on the same counter kind, and the
 * cost of a UTC_SLS read inside a smear window against a UTC read.
 *
 *	bench_timeline [--ms N] [--rounds N] [--spin PRESET] [--smear-only]
 *
 * --smear-only: part 2's UTC and UTC_SLS reads alone (no part 1, no
 * ablation), so that many rounds fit in a short run on a busy machine.
 *
 * --spin google|cosine: after the set-up, only lc_gettime(UTC_SLS) on that
 * preset's in-process timekeeper (system counter) for 3 s, for perf.
 *
 * Part 1: a writer timekeeper (LC_LEAP_FROM_TABLE, follow_host 0) publishes
 * to a page in a mkdtemp folder (lc__tl_writer_open); a reader maps it
 * (lc__tl_reader_open). Its REALTIME, UTC and TAI reads (lc_gettime and
 * lc_now_ns) are timed against an in-process timekeeper of the same config
 * on the same counter kind (the host's CLOCK_MONOTONIC system counter, and
 * the TSC when it calibrates), and against the vDSO
 * clock_gettime(CLOCK_REALTIME).
 *
 * Part 2: timekeepers with a smear policy (presets "google", linear 24 h
 * centred on the leap, and "cosine", 20 h ending at it) set to
 * 2016-12-31T23:00:00Z, inside both windows: UTC_SLS against UTC, in
 * process and through a page. Then an ablation of the UTC_SLS path (the
 * whole-snapshot copy, the plan offset, the 128-bit division, sin()) and a
 * prototype of a cheaper path, to say where the cost is.
 *
 * Every job runs ~N ms per round (default 20 ms x 21 rounds), all jobs
 * interleaved in each round; each figure is the median over rounds in ns
 * per call (the minimum is printed next to it), timed with
 * CLOCK_MONOTONIC. Between rounds every writer runs lc_update() (and its
 * page's tick), so snapshots stay fresh as under leapclockd.
 */
#include "timeline.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int64_t sink;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the contenders --------------------------------------------------------- */

struct job;
typedef void (*bench_fn)(const struct job *j, long n);

struct job {
	const char *name;
	bench_fn f;
	const lc_timekeeper *tk;
	lc_clock_id id;
	struct lc__smear_plan plan; /* ablation: the plan of tk */
	int64_t base;               /* ablation: a MONOTONIC inside it */
	long n;
	double r[64];
	double raw[64]; /* r in round order (paired ratios) */
	double median, min;
};

static void b_vdso(const struct job *j, long n)
{
	struct timespec ts;
	int64_t acc = 0;

	(void)j;
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

static void b_gettime(const struct job *j, long n)
{
	struct timespec ts;
	int64_t acc = 0;
	const lc_timekeeper *tk = j->tk;
	lc_clock_id id = j->id;

	for (long i = 0; i < n; i++) {
		lc_gettime(tk, id, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

static void b_now(const struct job *j, long n)
{
	int64_t acc = 0;
	const lc_timekeeper *tk = j->tk;
	lc_clock_id id = j->id;

	for (long i = 0; i < n; i++)
		acc += lc_now_ns(tk, id);
	sink = acc;
}

/* Each read's lfence (before rdtsc, in lc__rdtsc and in the vDSO's
 * rdtsc_ordered) waits for the previous read's work to complete, so inside
 * a read loop the smear math costs its latency, not its throughput: the
 * ablation loops below put the same lfence in each iteration. */
static inline void serialize(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("lfence" ::: "memory");
#endif
}

static void b_lfence(const struct job *j, long n)
{
	int64_t acc = 0, m = j->base;

	for (long i = 0; i < n; i++) {
		serialize();
		acc += m;
		m += 37;
	}
	sink = acc;
}

/* Ablation 1: what lc_gettime(UTC_SLS) does before the smear: the whole
 * snapshot copied (lc__tk_read_snap, 39 words over 5 cache lines) and
 * lc__tk_clock_at() for UTC (utc_at: no smear math). */
static void b_snap_utc(const struct job *j, long n)
{
	struct lc__tk_snap s;
	struct timespec ts;
	int64_t mono, acc = 0;

	for (long i = 0; i < n; i++) {
		lc__tk_read_snap(j->tk, &s, &mono);
		lc__tk_clock_at(&s, LC_CLOCK_UTC, mono, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

/* Ablation 2: lc__smear_plan_offset() alone (out of line, in smear.c), on
 * the timekeeper's own plan, at instants moving through the window. */
static void b_plan_offset(const struct job *j, long n)
{
	int64_t acc = 0, m = j->base;

	for (long i = 0; i < n; i++) {
		serialize();
		acc += lc__smear_plan_offset(&j->plan, m);
		m += 37;
	}
	sink = acc;
}

/* Ablation 3: the linear shape's exact ceil(a * b / c), as smear.c's
 * muldiv_ceil: a 128-bit product and a 128-by-64 division (__udivti3). */
static __attribute__((noinline)) int64_t muldiv_ceil_copy(int64_t a, int64_t b,
                                                          int64_t c)
{
	unsigned __int128 p = (unsigned __int128)(uint64_t)a * (uint64_t)b;

	return (int64_t)(p / (uint64_t)c) + (p % (uint64_t)c != 0);
}

static void b_div128(const struct job *j, long n)
{
	int64_t acc = 0, len = j->plan.end_mono - j->plan.start_mono;
	int64_t diff = j->plan.to_ns - j->plan.from_ns;
	int64_t tau = j->base - j->plan.start_mono;

	for (long i = 0; i < n; i++) {
		serialize();
		acc += muldiv_ceil_copy(diff, tau, len);
		tau += 37;
	}
	sink = acc;
}

/* Ablation 4: the cosine shape's sin(pi x / 2)^2 and llround. */
static __attribute__((noinline)) int64_t cosine_copy(int64_t tau, int64_t len,
                                                     int64_t diff)
{
	double x = (double)tau / (double)len;
	double s = sin(3.14159265358979323846 * x / 2);

	return llround((double)diff * (s * s));
}

static void b_sin(const struct job *j, long n)
{
	int64_t acc = 0, len = j->plan.end_mono - j->plan.start_mono;
	int64_t diff = j->plan.to_ns - j->plan.from_ns;
	int64_t tau = j->base - j->plan.start_mono;

	for (long i = 0; i < n; i++) {
		serialize();
		acc += cosine_copy(tau, len, diff);
		tau += 37;
	}
	sink = acc;
}

/* Prototype (not the library's code; what a fast path could do): read
 * only the hot line, offs_sls and the words of `plan` under the latch,
 * as lc__tk_gettime_utc_fast() does, bail to the library when plan_next
 * is active, and compute the offset out of line with the library's own
 * lc__smear_plan_offset(). It returns the same value as lc_gettime
 * (checked in main). */
/* mode 0: no smear math (offset 0: the floor of such a path); 1: the
 * library's lc__smear_plan_offset(); 2: the linear shape inline with its
 * 128-bit division replaced by a multiply by M = floor(|diff| 2^64 / len),
 * a word the writer would publish with the plan (here: computed once per
 * plan and cached), and an exact fix-up. */
static int64_t lin_len, lin_a;
static uint64_t lin_m;

static int64_t linear_fast(const struct lc__smear_plan *pl, int64_t mono)
{
	int64_t len, tau, diff, a;
	uint64_t q, r;

	if (mono <= pl->start_mono)
		return pl->from_ns;
	if (mono >= pl->end_mono)
		return pl->to_ns;
	len = pl->end_mono - pl->start_mono;
	tau = mono - pl->start_mono;
	diff = pl->to_ns - pl->from_ns;
	a = diff < 0 ? -diff : diff;
	if (lc__unlikely(len != lin_len || a != lin_a)) {
		/* the writer's once-per-plan division (a < len) */
		lin_m = (uint64_t)(((unsigned __int128)(uint64_t)a << 64) /
		                   (uint64_t)len);
		lin_len = len;
		lin_a = a;
	}
	/* q = floor(a tau / len) or one less (the error of M is below 1
	 * per 2^64, times tau < 2^63); r = a tau - q len is then in
	 * [0, 2 len), exact in 64-bit wrapping arithmetic */
	q = (uint64_t)(((unsigned __int128)(uint64_t)tau * lin_m) >> 64);
	r = (uint64_t)a * (uint64_t)tau - q * (uint64_t)len;
	if (r >= (uint64_t)len) {
		q++;
		r -= (uint64_t)len;
	}
	q += r != 0;
	return diff < 0 ? pl->from_ns - (int64_t)q : pl->from_ns + (int64_t)q;
}

static int proto_mode;

static int proto_sls(const lc_timekeeper *tk, struct timespec *ts)
{
	const struct lc__tk_pub *p = lc__tk_pub(tk);
	const struct lc__tk_copy *c;
	struct lc__smear_plan pl;
	uint64_t seq, w[sizeof(pl) / 8];
	int64_t mono, base;
	size_t po = LC__TKW(plan);

	do {
		seq = lc__tk_read_begin(p, &c);
		mono = lc__tk_mono_of(c, lc__tk_counter_read(p));
		if ((int64_t)lc__tkw(c, LC__TKW(plan_next)) != INT64_MAX)
			return 0;
		base = (int64_t)lc__tkw(c, LC__TKW(offs_sls));
		for (size_t i = 0; i < sizeof(pl) / 8; i++)
			w[i] = lc__tkw(c, po + i);
	} while (lc__tk_read_retry(p, seq));
	memcpy(&pl, w, sizeof(pl));
	if (pl.start_mono == INT64_MAX)
		return 0;
	if (proto_mode == 0)
		lc__tk_ns_to_ts(mono + base, ts);
	else if (proto_mode == 2 && pl.shape == LC_SMEAR_LINEAR)
		lc__tk_ns_to_ts(mono + base - linear_fast(&pl, mono), ts);
	else
		lc__tk_ns_to_ts(mono + base - lc__smear_plan_offset(&pl, mono),
		                ts);
	return 1;
}

static void b_proto(const struct job *j, long n)
{
	struct timespec ts;
	int64_t acc = 0;

	proto_mode = (int)j->base;
	for (long i = 0; i < n; i++) {
		if (!proto_sls(j->tk, &ts))
			lc_gettime(j->tk, LC_CLOCK_UTC_SLS, &ts);
		acc += ts.tv_nsec;
	}
	sink = acc;
}

/* ---- timing ----------------------------------------------------------------- */

static double time_one(struct job *j, long n)
{
	int64_t t0 = now_ns();

	j->f(j, n);
	return (double)(now_ns() - t0) / (double)n;
}

static long calibrate(struct job *j, int ms)
{
	long n = 1000;

	for (;;) {
		int64_t t0 = now_ns();

		j->f(j, n);
		if (now_ns() - t0 > 5000000 || n > (1L << 30))
			break;
		n *= 2;
	}
	{
		double per = time_one(j, n);

		return (long)((double)ms * 1e6 / (per > 0.1 ? per : 0.1));
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- the timekeepers -------------------------------------------------------- */

#define MAX_JOBS 96
#define MAX_TK 16

static struct job jobs[MAX_JOBS];
static int nj;

/* Writers to update between rounds (in-process ones and page writers). */
static lc_timekeeper *writers[MAX_TK];
static struct lc__tl_writer *pagew[MAX_TK];
static const char *pagew_smear[MAX_TK];
static int nwriters, npagew;
static struct lc__tl_reader readers[MAX_TK];
static int nreaders;
static char dir[64];

static int add(const char *name, bench_fn f, const lc_timekeeper *tk,
               lc_clock_id id)
{
	if (nj >= MAX_JOBS) {
		fprintf(stderr, "bench_timeline: too many jobs\n");
		exit(1);
	}
	memset(&jobs[nj], 0, sizeof(jobs[nj]));
	jobs[nj].name = name;
	jobs[nj].f = f;
	jobs[nj].tk = tk;
	jobs[nj].id = id;
	return nj++;
}

static void tick_all(void)
{
	for (int i = 0; i < nwriters; i++)
		lc_update(writers[i]);
	for (int i = 0; i < npagew; i++)
		lc__tl_writer_tick(pagew[i], pagew_smear[i], NULL);
	for (int i = 0; i < nreaders; i++)
		lc_update(readers[i].tk);
}

static void die(const char *what, const struct lc_error *err)
{
	fprintf(stderr, "bench_timeline: %s: %s\n", what,
	        err && err->msg[0] ? err->msg : "failed");
	exit(1);
}

/* 2016-12-31T23:00:00Z: inside google's window (12:00-12:00) and cosine's
 * (20 h ending at midnight). */
#define SMEAR_AT 1483225200

static lc_timekeeper *new_tk(lc_counter *c, const struct lc_smear_policy *sm)
{
	struct lc_tk_config cfg;
	lc_timekeeper *tk = NULL;

	lc_tk_config_init(&cfg);
	cfg.leap_source = LC_LEAP_FROM_TABLE;
	cfg.follow_host = 0;
	cfg.smear = sm;
	if (lc_tk_new(&tk, c, &cfg) < 0)
		die("lc_tk_new", NULL);
	if (sm != NULL) {
		struct timespec ts = {SMEAR_AT, 0};

		if (lc_settime(tk, LC_CLOCK_UTC, &ts) < 0)
			die("lc_settime", NULL);
	}
	lc_update(tk);
	writers[nwriters++] = tk;
	return tk;
}

/* lc__tl_writer_open() is gaining a `smear` argument (the policy's name)
 * after `flags`: call whichever of the two the header declares, so that
 * this file builds on both sides of that change. */
typedef int (*writer_open5)(struct lc__tl_writer **, const char *,
                            lc_timekeeper *, uint64_t, struct lc_error *);
typedef int (*writer_open6)(struct lc__tl_writer **, const char *,
                            lc_timekeeper *, uint64_t, const char *,
                            struct lc_error *);

static int writer_open(struct lc__tl_writer **w, const char *path,
                       lc_timekeeper *tk, const char *smear,
                       struct lc_error *err)
{
	/* through a plain function pointer: only the branch _Generic picks
	 * is called, with the function's own type */
	void (*f)(void) = (void (*)(void))&lc__tl_writer_open;

	return _Generic(&lc__tl_writer_open,
	        writer_open6: ((writer_open6)f)(w, path, tk, 0, smear, err),
	        default: ((writer_open5)f)(w, path, tk, 0, err));
}

/* A writer on `c` publishing to a page, and a reader of it. */
static const lc_timekeeper *new_page(lc_counter *c,
                                     const struct lc_smear_policy *sm,
                                     const char *leaf)
{
	struct lc__tl_writer *w = NULL;
	struct lc__tl_reader *r = &readers[nreaders];
	struct lc_error err;
	lc_timekeeper *tk = new_tk(c, sm);
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	memset(&err, 0, sizeof(err));
	if (writer_open(&w, path, tk, sm ? sm->name : "", &err) < 0)
		die("lc__tl_writer_open", &err);
	pagew_smear[npagew] = sm ? sm->name : "";
	pagew[npagew++] = w;
	lc__tl_writer_tick(w, sm ? sm->name : "", NULL);
	if (lc__tl_reader_open(r, path, 0, &err) < 0)
		die("lc__tl_reader_open", &err);
	if (r->source != LC_TIMELINE_PAGE)
		die("the reader is not on the page", NULL);
	nreaders++;
	return r->tk;
}

/* ---- report ------------------------------------------------------------------ */

static int nrounds;

/* The median over rounds of a / b within each round: a and b ran next to
 * each other, so load that changes between rounds cancels. */
static double paired(int a, int b)
{
	double q[64];

	for (int r = 0; r < nrounds; r++)
		q[r] = jobs[a].raw[r] / jobs[b].raw[r];
	qsort(q, (size_t)nrounds, sizeof(double), cmp_d);
	return q[nrounds / 2];
}

static void row(const char *label, int k, int base)
{
	printf("  %-44s %8.2f %8.2f", label, jobs[k].median, jobs[k].min);
	if (base >= 0)
		printf("   %5.3fx", jobs[k].median / jobs[base].median);
	printf("\n");
}

/* ---- the run: its options, counters and job indices ---------------------------- */

static const lc_clock_id p1_ids[] = {LC_CLOCK_REALTIME, LC_CLOCK_UTC,
                                    LC_CLOCK_TAI};
static const char *const presets[] = {"google", "cosine"};
static const char *const cname[2] = {"system (CLOCK_MONOTONIC)", "tsc"};

static struct run {
	int ms, rounds, smear_only;
	const char *spin;
	lc_counter *counters[2];
	int nc;
	struct lc_smear_policy pol[2];
	/* job indices */
	int vdso, p1[2][3][2][2];          /* counter, clock, own/page, gettime/now */
	int p2[2][2][2][2];                /* counter, preset, own/page, UTC/UTC_SLS */
	int ab[2][2][5], proto[2][2][3];   /* counter, preset */
	const lc_timekeeper *smtk[2][2][2];
} R = { .ms = 20, .rounds = 21 };

/* 0, or 2 after printing the usage. */
static int parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
			R.ms = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			R.rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--spin") == 0 && i + 1 < argc)
			R.spin = argv[++i];
		else if (strcmp(argv[i], "--smear-only") == 0)
			R.smear_only = 1;
		else {
			fprintf(stderr, "usage: %s [--ms N] [--rounds N] [--spin PRESET] [--smear-only]\n",
			        argv[0]);
			return 2;
		}
	}
	if (R.rounds < 1 || R.rounds > 64 || R.ms < 1)
		return 2;
	return 0;
}

/* The system counter, the TSC when it calibrates, the two presets. */
static void setup(void)
{
	lc_counter *csys = NULL, *ctsc = NULL;
	struct lc_error err;

	snprintf(dir, sizeof(dir), "/tmp/bench_timeline.XXXXXX");
	if (mkdtemp(dir) == NULL)
		die("mkdtemp", NULL);
	if (lc_counter_new_system(&csys, CLOCK_MONOTONIC) < 0)
		die("no system counter", NULL);
	R.counters[0] = csys;
	R.nc = 1;
	memset(&err, 0, sizeof(err));
	if (lc_counter_new_tsc(&ctsc, &err) == 0) {
		R.counters[R.nc++] = ctsc;
		printf("tsc: %" PRIu64 " Hz (calibrated)\n", lc_counter_freq(ctsc));
	} else {
		printf("tsc: skipped: %s\n", err.msg);
	}
	for (int p = 0; p < 2; p++)
		if (lc_smear_preset(presets[p], 0, &R.pol[p], &err) < 0)
			die("lc_smear_preset", &err);
}

/* The ablation jobs of the smearing in-process timekeeper st. */
static void add_ablation(int c, int p, const lc_timekeeper *st)
{
	struct lc__tk_snap s;
	int64_t mono;
	int a[5];

	lc__tk_read_snap(st, &s, &mono);
	a[0] = add("snapshot + UTC", b_snap_utc, st, 0);
	a[1] = add("plan offset", b_plan_offset, st, 0);
	a[2] = add("128-bit muldiv_ceil", b_div128, st, 0);
	a[3] = add("sin^2 + llround", b_sin, st, 0);
	a[4] = add("lfence loop", b_lfence, st, 0);
	for (int i = 0; i < 5; i++) {
		jobs[a[i]].plan = s.plan;
		jobs[a[i]].base = mono;
		R.ab[c][p][i] = a[i];
	}
	for (int m = 0; m < 3; m++) {
		R.proto[c][p][m] = add("prototype", b_proto, st, 0);
		jobs[R.proto[c][p][m]].base = m;
	}
	if (s.plan.start_mono == INT64_MAX || mono <= s.plan.start_mono ||
	    mono >= s.plan.end_mono)
		die("the smear window is not at hand", NULL);
}

/* Counter c's jobs: plain reads in process and on a page, then per
 * preset UTC and UTC_SLS (and the ablation). */
static void add_jobs(int c)
{
	char leaf[32];
	const lc_timekeeper *own = new_tk(R.counters[c], NULL), *pg;

	snprintf(leaf, sizeof(leaf), "plain%d", c);
	pg = new_page(R.counters[c], NULL, leaf);
	for (int k = 0; k < 3 && !R.smear_only; k++) {
		R.p1[c][k][0][0] = add("own gettime", b_gettime, own, p1_ids[k]);
		R.p1[c][k][1][0] = add("page gettime", b_gettime, pg, p1_ids[k]);
		R.p1[c][k][0][1] = add("own now_ns", b_now, own, p1_ids[k]);
		R.p1[c][k][1][1] = add("page now_ns", b_now, pg, p1_ids[k]);
	}
	for (int p = 0; p < 2; p++) {
		const lc_timekeeper *st = new_tk(R.counters[c], &R.pol[p]);

		snprintf(leaf, sizeof(leaf), "%s%d", presets[p], c);
		R.smtk[c][p][0] = st;
		R.smtk[c][p][1] = new_page(R.counters[c], &R.pol[p], leaf);
		for (int o = 0; o < 2; o++) {
			R.p2[c][p][o][0] = add("UTC", b_gettime,
			                       R.smtk[c][p][o], LC_CLOCK_UTC);
			R.p2[c][p][o][1] = add("UTC_SLS", b_gettime,
			                       R.smtk[c][p][o], LC_CLOCK_UTC_SLS);
		}
		if (!R.smear_only)
			add_ablation(c, p, st);
	}
}

/* The prototype agrees with the library: its UTC_SLS lies between two
 * lc_gettime reads around it (*a: the first of the last pair). */
static void check_prototype(const lc_timekeeper *tk, struct timespec *a)
{
	struct timespec b, d;

	for (proto_mode = 1; proto_mode <= 2; proto_mode++) {
		lc_gettime(tk, LC_CLOCK_UTC_SLS, a);
		if (!proto_sls(tk, &d))
			die("prototype: no plan", NULL);
		lc_gettime(tk, LC_CLOCK_UTC_SLS, &b);
		if (lc__ts_to_ns(&d) < lc__ts_to_ns(a) ||
		    lc__ts_to_ns(&d) > lc__ts_to_ns(&b))
			die("prototype disagrees with lc_gettime", NULL);
	}
}

/* The inline linear offset is the library's, to the ns, across the whole
 * window (and its ends). */
static void check_linear_fast(const struct lc__smear_plan *pl)
{
	uint64_t x = 88172645463325252u;

	for (long i = 0; i < 2000000; i++) {
		int64_t m;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		m = pl->start_mono - 10 +
		    (int64_t)(x % (uint64_t)(pl->end_mono - pl->start_mono + 20));
		if (i < 3)
			m = i == 0 ? pl->start_mono + 1
			  : i == 1 ? pl->end_mono - 1
			           : pl->start_mono;
		if (pl->shape == LC_SMEAR_LINEAR &&
		    linear_fast(pl, m) != lc__smear_plan_offset(pl, m))
			die("linear_fast is not exact", NULL);
	}
}

/* Sanity: inside the window UTC_SLS is behind UTC, the page reads what the
 * in-process timekeeper reads, and the prototype agrees with the
 * library. */
static void check_smear(int c, int p)
{
	struct timespec a, b;
	int64_t off[2];

	for (int o = 0; o < 2; o++) {
		lc_gettime(R.smtk[c][p][o], LC_CLOCK_UTC, &a);
		lc_gettime(R.smtk[c][p][o], LC_CLOCK_UTC_SLS, &b);
		off[o] = lc__ts_to_ns(&a) - lc__ts_to_ns(&b);
	}
	if (!R.smear_only) {
		check_prototype(R.smtk[c][p][0], &a);
		check_linear_fast(&jobs[R.ab[c][p][0]].plan);
	}
	printf("%s, %s: UTC - UTC_SLS = %.6f s in process, "
	       "%.6f s on the page (at %lld, 23:00Z)\n",
	       cname[c], presets[p], (double)off[0] / 1e9,
	       (double)off[1] / 1e9, (long long)a.tv_sec);
	if (off[0] <= 0 || off[1] <= 0)
		die("not smearing", NULL);
}

/* --spin PRESET: UTC_SLS read for 3 s (for a profiler). */
static void spin(void)
{
	int p = strcmp(R.spin, "cosine") == 0;
	struct job *j = &jobs[R.p2[0][p][0][1]];
	int64_t t0 = now_ns();

	while (now_ns() - t0 < 3000000000)
		j->f(j, 1000000);
	printf("spun UTC_SLS on %s\n", presets[p]);
}

/* Every job calibrated to ~ms, then timed in interleaved rounds (the
 * writers ticked between rounds); median and minimum kept. */
static void measure(void)
{
	int rounds = R.rounds;

	for (int k = 0; k < nj; k++)
		jobs[k].n = calibrate(&jobs[k], R.ms);
	nrounds = rounds;
	for (int r = 0; r < rounds; r++) {
		tick_all();
		for (int k = 0; k < nj; k++)
			jobs[k].r[r] = time_one(&jobs[k], jobs[k].n);
	}
	for (int k = 0; k < nj; k++) {
		memcpy(jobs[k].raw, jobs[k].r, sizeof(jobs[k].r));
		qsort(jobs[k].r, (size_t)rounds, sizeof(double), cmp_d);
		jobs[k].median = jobs[k].r[rounds / 2];
		jobs[k].min = jobs[k].r[0];
	}
	for (int i = 0; i < nreaders; i++)
		if (readers[i].source != LC_TIMELINE_PAGE)
			die("a reader fell back from its page", NULL);
}

/* Table 1: page vs in-process reads, counter c. */
static void report_page(int c)
{
	printf("\n%s counter\n", cname[c]);
	printf("  %-10s %-8s %9s %9s %8s %8s %8s %8s\n", "clock",
	       "call", "own", "page", "page/own", "paired", "own/vdso",
	       "page/vdso");
	for (int k = 0; k < 3; k++)
		for (int a = 0; a < 2; a++) {
			double o = jobs[R.p1[c][k][0][a]].median;
			double pg = jobs[R.p1[c][k][1][a]].median;
			double pr = paired(R.p1[c][k][1][a], R.p1[c][k][0][a]);

			printf("  %-10s %-8s %9.2f %9.2f %8.3f %8.3f "
			       "%8.3f %8.3f%s\n",
			       lc_clock_name(p1_ids[k]),
			       a ? "now_ns" : "gettime", o, pg, pg / o,
			       pr, o / jobs[R.vdso].median,
			       pg / jobs[R.vdso].median,
			       pr > 1.05 ? "  over" : "");
		}
}

/* Table 2: UTC_SLS vs UTC inside the window, counter c. */
static void report_sls(int c)
{
	printf("\n%s counter\n", cname[c]);
	printf("  %-8s %-8s %9s %9s %8s %8s %8s\n", "preset", "where",
	       "UTC", "UTC_SLS", "SLS/UTC", "paired", "min/min");
	for (int p = 0; p < 2; p++)
		for (int o = 0; o < 2; o++) {
			int ju = R.p2[c][p][o][0], js = R.p2[c][p][o][1];
			double u = jobs[ju].median;
			double s = jobs[js].median;
			double pr = paired(js, ju);

			printf("  %-8s %-8s %9.2f %9.2f %8.3f %8.3f %8.3f%s\n",
			       presets[p], o ? "page" : "process", u, s,
			       s / u, pr, jobs[js].min / jobs[ju].min,
			       pr > 1.1 ? "  over" : "");
		}
}

/* The ablation of counter c, preset p (ratios to its UTC read). */
static void report_ablation(int c, int p)
{
	int u = R.p2[c][p][0][0];

	printf("\n%s counter, %s\n", cname[c], presets[p]);
	printf("  %-44s %8s %8s   %s\n", "", "median", "min", "x UTC");
	row("UTC (fast path)", u, u);
	row("UTC_SLS (lc_gettime)", R.p2[c][p][0][1], u);
	row("snapshot copy + lc__tk_clock_at(UTC)", R.ab[c][p][0], u);
	row("lc__smear_plan_offset alone", R.ab[c][p][1], u);
	row("  of which 128-bit muldiv_ceil (linear)", R.ab[c][p][2], u);
	row("  of which sin^2 + llround (cosine)", R.ab[c][p][3], u);
	row("  (the lfence loop they run in)", R.ab[c][p][4], u);
	row("prototype: hot line + plan words, no math", R.proto[c][p][0], u);
	row("prototype + lc__smear_plan_offset", R.proto[c][p][1], u);
	if (R.pol[p].shape == LC_SMEAR_LINEAR)
		row("prototype + linear without division", R.proto[c][p][2], u);
}

static void report(void)
{
	printf("\nns per call: median, minimum over %d interleaved rounds of "
	       "~%d ms; \"paired\": the median of the per-round ratios\n",
	       R.rounds, R.ms);
	printf("\nvDSO clock_gettime(CLOCK_REALTIME): %.2f (min %.2f)\n",
	       jobs[R.vdso].median, jobs[R.vdso].min);
	if (!R.smear_only) {
		printf("\n1. page vs in-process (same counter kind); target "
		       "page <= 1.05x\n");
		for (int c = 0; c < R.nc; c++)
			report_page(c);
	}
	printf("\n2. UTC_SLS inside the window vs UTC, lc_gettime; target "
	       "<= 1.1x\n");
	for (int c = 0; c < R.nc; c++)
		report_sls(c);
	if (!R.smear_only) {
		printf("\nablation (in process; ratio to that timekeeper's "
		       "UTC read)\n");
		for (int c = 0; c < R.nc; c++)
			for (int p = 0; p < 2; p++)
				report_ablation(c, p);
	}
}

/* The page writers closed, their pages and folder removed. */
static void cleanup(void)
{
	static const char *const leaves[] = {"plain", "google", "cosine"};
	char path[128];

	for (int i = 0; i < npagew; i++)
		lc__tl_writer_close(pagew[i]);
	for (int c = 0; c < R.nc; c++)
		for (int l = 0; l < 3; l++) {
			snprintf(path, sizeof(path), "%s/%s%d", dir, leaves[l], c);
			unlink(path);
		}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (parse_args(argc, argv) != 0)
		return 2;
	printf("command:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");

	setup();
	R.vdso = add("vdso", b_vdso, NULL, 0);
	for (int c = 0; c < R.nc; c++)
		add_jobs(c);
	for (int c = 0; c < R.nc; c++)
		for (int p = 0; p < 2; p++)
			check_smear(c, p);
	if (R.spin != NULL) {
		spin();
	} else {
		measure();
		report();
	}
	cleanup();
	return 0;
}
