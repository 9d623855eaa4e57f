/*
 * bench_preload.c - what an unmodified program pays for leapclock's clocks:
 * the cost of one clock_gettime(CLOCK_REALTIME) in this program bare, under
 * libleapclock-preload.so (exact mode, and smear:google and smear:cosine
 * pretending to be inside their windows: a line, and a curve's chords), and under
 * libfaketime (Debian package faketime) with a fixed offset, in one run.
 *
 *   bench_preload [--calls N] [--shim PATH] [--faketime PATH]
 *
 * The program re-executes itself (/proc/self/exe) once per configuration
 * with the environment set (LD_PRELOAD, LEAPCLOCK_*, FAKETIME) and reads
 * one number back from each child over a pipe: the best of 7 timed runs
 * of N calls (default 2e6), in ns of the thread's CPU time per call (so
 * that a busy machine's scheduling does not count); five rounds over all
 * the configurations, interleaved, and the best of them is reported.
 * CLOCK_MONOTONIC (which the shim passes through) is measured the same
 * way. The shim is looked for next to this program (the build tree),
 * libfaketime in Debian's multiarch path.
 * Target (issue 8): the shim at most 1.5x bare and below libfaketime.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_FLAG "--child"
#define ROUNDS 5

/* The thread's CPU time, by the raw system call: neither library can
 * interpose it, and time the thread spends descheduled (the machine may be
 * busy) does not count. */
static int64_t cpu_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Best of 7 runs of n calls, ns per call. */
static double measure(clockid_t clk, long n)
{
	double best = 1e30;
	struct timespec ts;
	volatile long sink = 0;

	for (int r = 0; r < 7; r++) {
		int64_t t0 = cpu_ns(), t1;

		for (long i = 0; i < n; i++) {
			clock_gettime(clk, &ts);
			sink += ts.tv_nsec;
		}
		t1 = cpu_ns();
		if ((double)(t1 - t0) / (double)n < best)
			best = (double)(t1 - t0) / (double)n;
	}
	(void)sink;
	return best;
}

static int child(long n)
{
	double rt = measure(CLOCK_REALTIME, n);
	double mono = measure(CLOCK_MONOTONIC, n);

	printf("%.3f %.3f\n", rt, mono);
	return 0;
}

struct config {
	const char *name;
	const char *preload; /* NULL: bare */
	const char *env[4];  /* NAME=VALUE */
	double rt, mono;
	int ok;
};

/* One child run; keeps the best figures of c over the rounds. */
static int run_child(const char *self, struct config *c, long n)
{
	double rt, mono;
	char nbuf[32], out[128];
	int fd[2], status;
	ssize_t got;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	snprintf(nbuf, sizeof(nbuf), "%ld", n);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		unsetenv("LD_PRELOAD");
		for (const char *const *e = c->env; *e; e++)
			putenv((char *)*e);
		if (c->preload != NULL)
			setenv("LD_PRELOAD", c->preload, 1);
		execl(self, self, CHILD_FLAG, nbuf, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	got = read(fd[0], out, sizeof(out) - 1);
	close(fd[0]);
	waitpid(pid, &status, 0);
	if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	out[got] = '\0';
	if (sscanf(out, "%lf %lf", &rt, &mono) != 2)
		return -1;
	if (!c->ok || rt < c->rt)
		c->rt = rt;
	if (!c->ok || mono < c->mono)
		c->mono = mono;
	c->ok = 1;
	return 0;
}

/* The shim next to this program, unless --shim named one. 0 or 1. */
static int find_shim(const char *shim_arg, char *self, size_t selfsize,
                     char *shim, size_t shimsize)
{
	ssize_t len = readlink("/proc/self/exe", self, selfsize - 1);
	char *slash;

	if (len <= 0) {
		fprintf(stderr, "bench_preload: /proc/self/exe: %s\n",
		        strerror(errno));
		return 1;
	}
	self[len] = '\0';
	if (shim_arg != NULL) {
		snprintf(shim, shimsize, "%s", shim_arg);
	} else {
		snprintf(shim, shimsize, "%s", self);
		slash = strrchr(shim, '/');
		snprintf(slash + 1, shimsize - (size_t)(slash + 1 - shim),
		         "libleapclock-preload.so");
	}
	return 0;
}

static void report(struct config *cfgs, size_t ncfg, long n)
{
	printf("clock_gettime cost in a program, ns per call (best of %d "
	       "rounds x 7 x %ld calls)\n", ROUNDS, n);
	printf("  %-28s %10s %7s %12s\n", "", "REALTIME", "vs bare",
	       "MONOTONIC");
	for (size_t i = 0; i < ncfg; i++) {
		struct config *c = &cfgs[i];

		if (c->preload != NULL && access(c->preload, R_OK) != 0) {
			printf("  %-28s skipped (%s not found%s)\n", c->name,
			       c->preload,
			       strstr(c->name, "faketime") ?
			               ": Debian package faketime" : "");
			continue;
		}
		if (!c->ok) {
			printf("  %-28s failed\n", c->name);
			continue;
		}
		printf("  %-28s %10.2f %6.2fx %12.2f\n", c->name, c->rt,
		       cfgs[0].ok ? c->rt / cfgs[0].rt : 0.0, c->mono);
	}
	if (cfgs[0].ok && cfgs[1].ok) {
		int ft = cfgs[ncfg - 1].ok;
		int pass = cfgs[1].rt <= 1.5 * cfgs[0].rt &&
		           (!ft || cfgs[1].rt < cfgs[ncfg - 1].rt);

		printf("target: shim <= 1.5x bare%s: %s\n",
		       ft ? " and below libfaketime" : "",
		       pass ? "met" : "NOT met");
	}
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], shim[PATH_MAX + 32];
	const char *faketime =
		"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
	const char *shim_arg = NULL;
	long n = 2000000;

	if (argc == 3 && strcmp(argv[1], CHILD_FLAG) == 0)
		return child(atol(argv[2]));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
			n = atol(argv[++i]);
		else if (strcmp(argv[i], "--shim") == 0 && i + 1 < argc)
			shim_arg = argv[++i];
		else if (strcmp(argv[i], "--faketime") == 0 && i + 1 < argc)
			faketime = argv[++i];
		else {
			fprintf(stderr, "usage: bench_preload [--calls N] "
			        "[--shim PATH] [--faketime PATH]\n");
			return 2;
		}
	}
	if (n < 1000)
		n = 1000;
	if (find_shim(shim_arg, self, sizeof(self), shim, sizeof(shim)) != 0)
		return 1;

	struct config cfgs[] = {
		{ "bare", NULL, { NULL }, 0, 0, 0 },
		{ "leapclock exact", shim, { "LEAPCLOCK_MODE=exact", NULL },
		  0, 0, 0 },
		{ "leapclock exact, pretend", shim,
		  { "LEAPCLOCK_MODE=exact",
		    "LEAPCLOCK_PRETEND=2016-12-31T20:00:00Z", NULL },
		  0, 0, 0 },
		{ "leapclock smear:google, in", shim,
		  { "LEAPCLOCK_MODE=smear:google",
		    "LEAPCLOCK_PRETEND=2016-12-31T20:00:00Z", NULL },
		  0, 0, 0 },
		{ "leapclock smear:cosine, in", shim,
		  { "LEAPCLOCK_MODE=smear:cosine",
		    "LEAPCLOCK_PRETEND=2016-12-31T20:00:00Z", NULL },
		  0, 0, 0 },
		{ "libfaketime +1d", faketime,
		  { "FAKETIME=+1d", NULL },
		  0, 0, 0 },
	};
	size_t ncfg = sizeof(cfgs) / sizeof(cfgs[0]);

	/* Rounds interleave the configurations, so that a burst of load on
	 * the machine hits them alike; the best of all is kept. */
	for (int round = 0; round < ROUNDS; round++)
		for (size_t i = 0; i < ncfg; i++)
			if (cfgs[i].preload == NULL ||
			    access(cfgs[i].preload, R_OK) == 0)
				run_child(self, &cfgs[i], n);
	report(cfgs, ncfg, n);
	return 0;
}
