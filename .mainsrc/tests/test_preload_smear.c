/*
 * test_preload_smear.c - the shim's smeared CLOCK_REALTIME against the
 * library's nominal smear (lc_smear_offset), for every preset and both
 * directions, pretending to be inside each preset's window.
 *
 * The test re-executes itself with libleapclock-preload.so preloaded
 * (LC_BUILD_DIR), LEAPCLOCK_MODE=smear:PRESET and a pretend instant 37 % of
 * the way into the window; the child reads (TAI, REALTIME, TAI) triples for
 * 0.25 s and checks each REALTIME against
 *     T - lc_smear_offset(preset, dir, T - leap),
 * T = TAI minus the pre-leap TAI-UTC (the pre-leap timeline), leap = the
 * start of 23:59:60 on T, or of the deleted 23:59:59: the REALTIME read
 * must lie within 1 us of the interval that formula spans between the two
 * TAI reads around it, and strictly increase. Insertion: the
 * 2016-12-31 leap (TAI-UTC 36 before). Deletion: a synthetic one at the end
 * of 2030-06-30 (LEAPCLOCK_EXTRA_LEAP; TAI-UTC 37 before).
 */
#include "lc_test.h"

#include "leapclock.h"

#include <errno.h>
#include <limits.h>
#include <sys/wait.h>

#define SHIM LC_BUILD_DIR "/libleapclock-preload.so"
#define TABLE LC_TEST_DATA_DIR "/leapseconds.tzdata2026f"
#define L2016 INT64_C(1483228800)
#define L2030 INT64_C(1909094400) /* 2030-07-01T00:00:00Z */
#define E INT64_C(1000000000)

static int64_t ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * E + ts.tv_nsec;
}

/* The child: runs under the shim. Returns the exit status. */
static int child(const char *preset, int dir)
{
	struct lc_smear_policy p;
	int64_t leap_t, before, end, last = INT64_MIN, worst = 0;
	long n = 0, tight = 0, bad = 0;

	if (lc_smear_preset(preset, 0, &p, NULL) < 0)
		return 3;
	leap_t = dir > 0 ? L2016 * E : (L2030 - 1) * E;
	before = dir > 0 ? 36 : 37;
	end = ns_of(CLOCK_MONOTONIC) + 250000000;
	while (ns_of(CLOCK_MONOTONIC) < end) {
		int64_t a = ns_of(CLOCK_TAI), r = ns_of(CLOCK_REALTIME);
		int64_t b = ns_of(CLOCK_TAI), t, lo, hi, err;

		if (r <= last)
			bad++;
		last = r;
		n++;
		if (b - a > 20000)
			continue;
		tight++;
		/* the smeared clock at both ends of the bracket: the read
		 * lies between them (the smeared clock is increasing) */
		t = a - before * E;
		lo = t - lc_smear_offset(&p, dir, t - leap_t);
		t = b - before * E;
		hi = t - lc_smear_offset(&p, dir, t - leap_t);
		err = r < lo ? lo - r : r > hi ? r - hi : 0;
		if (err > worst)
			worst = err;
	}
	printf("%ld reads, %ld not increasing, %ld tight, worst %" PRId64
	       " ns off lc_smear_offset\n",
	       n, bad, tight, worst);
	return bad == 0 && tight >= 100 && worst <= 1000 ? 0 : 1;
}

/* The parent: one child per preset and direction. */
static int run_child(const char *self, const char *preset, int dir,
                     char *out, size_t size)
{
	struct lc_smear_policy p;
	int64_t s, e, leap_t, t0, pos;
	struct timespec utc;
	char iso[64], mode[64], dirs[4];
	int fd[2], status;
	ssize_t got;
	pid_t pid;

	if (lc_smear_preset(preset, 0, &p, NULL) < 0)
		return -1;
	lc_smear_window_dir(&p, dir, &s, &e);
	leap_t = dir > 0 ? L2016 * E : (L2030 - 1) * E;
	t0 = leap_t + s + (e - s) * 37 / 100; /* on the pre-leap timeline */
	/* as UTC: before the leap T is UTC; an inserted second is
	 * 23:59:60.x; after it UTC = T - dir s */
	if (t0 < leap_t)
		pos = t0;
	else if (dir > 0 && t0 < leap_t + E)
		pos = -1;
	else
		pos = t0 - dir * E;
	if (pos >= 0) {
		utc.tv_sec = (time_t)(pos / E);
		utc.tv_nsec = (long)(pos % E);
	} else {
		utc.tv_sec = (time_t)(L2016 - 1);
		utc.tv_nsec = (long)(E + (t0 - leap_t));
	}
	if (lc_iso8601_format(&utc, 9, iso, sizeof(iso)) < 0 ||
	    pipe(fd) != 0)
		return -1;
	snprintf(mode, sizeof(mode), "smear:%s", preset);
	snprintf(dirs, sizeof(dirs), "%+d", dir);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		setenv("LD_PRELOAD", SHIM, 1);
		/* in a sanitizer build the shim precedes the ASan runtime
		 * this program links; harmless otherwise */
		setenv("ASAN_OPTIONS",
		       "verify_asan_link_order=0:detect_leaks=0", 1);
		setenv("LEAPCLOCK_MODE", mode, 1);
		setenv("LEAPCLOCK_PRETEND", iso, 1);
		setenv("LEAPCLOCK_LEAPFILE", TABLE, 1);
		unsetenv("LEAPCLOCK_ANCHOR");
		unsetenv("LEAPCLOCK_LEAP_IN");
		if (dir < 0)
			setenv("LEAPCLOCK_EXTRA_LEAP", "1909094400:-1", 1);
		else
			unsetenv("LEAPCLOCK_EXTRA_LEAP");
		execl(self, self, "--child", preset, dirs, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	got = read(fd[0], out, size - 1);
	out[got > 0 ? got : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	printf("    %s %s from %s: %s", preset, dir > 0 ? "insert" : "delete",
	       iso, out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char self_path[PATH_MAX];

static void check_all(int dir)
{
	const char *const *names = lc_smear_preset_names();
	char out[256];

	for (size_t i = 0; names[i] != NULL; i++) {
		int rc = run_child(self_path, names[i], dir, out, sizeof(out));

		LC_EQ_INT(rc, 0);
	}
}

static void test_insert(void)
{
	check_all(1);
}

static void test_delete(void)
{
	check_all(-1);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 4 && strcmp(argv[1], "--child") == 0)
		return child(argv[2], atoi(argv[3]));
	lc_test_init(argc, argv);
	if (access(SHIM, R_OK) != 0) {
		LC_SKIP("test_preload_smear", "the shim is not built");
		return 77;
	}
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n <= 0)
		return 2;
	self_path[n] = '\0';
	LC_RUN(test_insert, "every preset, inside its window around the 2016 "
	                    "insertion: the shim's REALTIME is strictly "
	                    "increasing and within 1 us of lc_smear_offset");
	LC_RUN(test_delete, "every preset, inside its window around a "
	                    "synthetic 2030 deletion: the same");
	return lc_test_done();
}
