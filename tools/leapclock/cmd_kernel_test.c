/*
 * cmd_kernel_test.c - `leapclock kernel-test`: the reproducer's scenario on
 * the real kernel this runs on. It SETS THE SYSTEM CLOCK and arms a leap
 * second with adjtimex, so it is meant for a throw-away virtual machine
 * (tools/vm-kernel-test) and refuses to run unless the process has
 * CAP_SYS_TIME (checked first, before anything else) and is given
 * --i-understand-this-sets-the-clock. It never runs in CI or in the tests
 * (they only check that it refuses).
 *
 * What it does: sets CLOCK_REALTIME to 5 s before the next UTC midnight,
 * clears the NTP state, sets TAI-UTC, arms STA_INS (or STA_DEL), arms an
 * absolute CLOCK_REALTIME sleep for 00:00:00 in a thread, and either spins
 * reading the clocks (busy) or waits for that thread and then spins (idle).
 * CLOCK_MONOTONIC is the reference: the leap's true instant is known in it
 * from the moment the time was set. Then it clears the leap, puts the time
 * back (the original plus the time elapsed) and prints the same summary as
 * `leapclock simulate`.
 */
#include "cli.h"

#include "internal.h"
#include "sim.h"
#include "simprint.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CMD  "kernel-test"
#define FLAG "--i-understand-this-sets-the-clock"
#define NS   INT64_C(1000000000)

const char lc_cmd_kernel_test_summary[] =
    "run the leap reproducer on this kernel (SETS THE CLOCK; VMs only)";

void lc_cmd_kernel_test_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: leapclock kernel-test " FLAG "\n"
	    "         [--delete] [--reader busy|idle] [--tai N] [--json] "
	    "[--label TEXT]\n\n"
	    "Runs the reproducer's scenario against the running kernel: "
	    "sets CLOCK_REALTIME\nto 5 s before the next midnight, arms a "
	    "leap second (STA_INS, or STA_DEL with\n--delete) and an "
	    "absolute CLOCK_REALTIME sleep for 00:00:00, reads the clocks\n"
	    "(busy: spinning throughout; idle: after the sleep ends), then "
	    "clears the leap,\nputs the time back and prints the same "
	    "summary line as 'leapclock simulate'.\n\n"
	    "THIS SETS THE SYSTEM CLOCK AND ITS NTP STATE. Run it only in a "
	    "throw-away VM\n(make vm-test does). It refuses to run without "
	    "CAP_SYS_TIME and " FLAG ".\n");
}

/* CAP_SYS_TIME in the effective set (capget: no libcap needed). */
static int has_cap_sys_time(void)
{
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[2];

	memset(&h, 0, sizeof(h));
	memset(d, 0, sizeof(d));
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = 0;
	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return (d[CAP_SYS_TIME / 32].effective >> (CAP_SYS_TIME % 32)) & 1;
}

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return lc__ts_to_ns(&ts);
}

struct sleeper {
	int64_t deadline; /* REALTIME ns */
	int64_t woke_mono;
	int rc;
	volatile int done;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *sl = arg;
	struct timespec ts = lc__ns_to_ts(sl->deadline);

	do
		sl->rc =
		    clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
	while (sl->rc == EINTR);
	sl->woke_mono = now_ns(CLOCK_MONOTONIC);
	sl->done = 1;
	return NULL;
}

struct reading {
	int have;
	int64_t mono, rt, tai, utc;
};

int lc_cmd_kernel_test(int argc, char **argv)
{
	int del = 0, idle = 0, json = 0, agreed = 0, tai = 35, state,
	    last_state;
	const char *label = NULL;
	struct timex tx;
	struct sleeper sl;
	pthread_t th;
	struct lc__sim_result r;
	struct reading prev = {0};
	int64_t orig_rt, orig_mono, midnight, set_rt, set_mono, t_leap, due;
	int64_t stale_first = -1, stale_last = -1, end, step_mono = -1;
	int orig_status, orig_tai;
	char states[128] = "";
	size_t ns = 0;
	int64_t nsamples = 0, dropped = 0, max_gap = 0, nstale = 0;
	struct timespec ts;
	struct utsname u;

	/* First, before anything else: the capability. */
	if (!has_cap_sys_time()) {
		fprintf(
		    stderr,
		    "leapclock %s: refusing to run: this process does not "
		    "have CAP_SYS_TIME,\nso it could not set the clock. The "
		    "test sets the system clock and arms a\nleap second; run "
		    "it only in a throw-away VM (make vm-test).\n",
		    CMD);
		return LC_EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], FLAG) == 0)
			agreed = 1;
		else if (strcmp(argv[i], "--delete") == 0)
			del = 1;
		else if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--reader") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "idle") == 0)
				idle = 1;
			else if (strcmp(argv[i], "busy") != 0)
				return lc_cli_usage_error(CMD,
				                          "--reader: busy or "
				                          "idle");
		} else if (strcmp(argv[i], "--tai") == 0 && i + 1 < argc) {
			tai = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
			label = argv[++i];
		} else {
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[i]);
		}
	}
	if (!agreed) {
		fprintf(
		    stderr,
		    "leapclock %s: refusing to run: this test SETS THE SYSTEM "
		    "CLOCK to 5 s before\nmidnight and arms a leap second. "
		    "Give " FLAG "\nif this is a throw-away VM "
		    "(make vm-test runs it in one).\n",
		    CMD);
		return LC_EXIT_USAGE;
	}

	memset(&tx, 0, sizeof(tx));
	if (adjtimex(&tx) < 0) {
		perror("leapclock kernel-test: adjtimex");
		return LC_EXIT_RUNTIME;
	}
	orig_status = tx.status;
	orig_tai = tx.tai;
	orig_rt = now_ns(CLOCK_REALTIME);
	orig_mono = now_ns(CLOCK_MONOTONIC);
	/* 5 s before the next midnight, as the leap-a-day selftest: set the
	 * time first (that clears the NTP state), then the flags */
	midnight = (lc__fdiv(orig_rt, NS) / 86400 + 1) * 86400;
	set_rt = (midnight - 5) * NS;
	ts = lc__ns_to_ts(set_rt);
	if (clock_settime(CLOCK_REALTIME, &ts) != 0) {
		perror("leapclock kernel-test: clock_settime");
		return LC_EXIT_RUNTIME;
	}
	set_mono = now_ns(CLOCK_MONOTONIC);
	set_rt = now_ns(CLOCK_REALTIME);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_PLL;
	adjtimex(&tx);
	tx.modes = ADJ_STATUS | ADJ_MAXERROR;
	tx.status = 0;
	tx.maxerror = 0;
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = tai;
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = del ? STA_DEL : STA_INS;
	if (adjtimex(&tx) < 0) {
		perror("leapclock kernel-test: adjtimex(STA_INS/DEL)");
		return LC_EXIT_RUNTIME;
	}
	/* the leap's true instant in MONOTONIC: REALTIME reaches the start of
	 * 23:59:60 (insertion) or of the deleted 23:59:59 */
	t_leap = set_mono + (midnight * NS - (del ? NS : 0)) - set_rt;
	due = del ? t_leap : t_leap + NS; /* when 00:00:00 truly comes */

	memset(&sl, 0, sizeof(sl));
	sl.deadline = midnight * NS;
	if (pthread_create(&th, NULL, sleeper_main, &sl) != 0) {
		fprintf(stderr, "leapclock %s: pthread_create failed\n", CMD);
		return LC_EXIT_RUNTIME;
	}
	memset(&r, 0, sizeof(r));
	r.available = 1;
	r.dir = del ? -1 : 1;
	r.tai_continuous = 1;
	r.timers = 1;
	r.leap_applied_after_ns = -1;
	r.backsteps[LC_CLOCK_UTC_SLS] = -1;
	if (uname(&u) == 0)
		snprintf(r.model, sizeof(r.model), "%.40s",
		         label ? label : u.release);
	if (idle)
		while (!sl.done)
			usleep(1000); /* idle: nothing reads until the sleep
			                 ends */
	end = due + 2 * NS;
	last_state = -1;
	for (unsigned long it = 0;; it++) {
		struct reading x;
		int64_t intended;

		int64_t m2;

		/* MONOTONIC around the other two: a sample whose reads were
		 * split by a preemption (common under emulation) would
		 * look like a jump; it is dropped */
		x.mono = now_ns(CLOCK_MONOTONIC);
		x.rt = now_ns(CLOCK_REALTIME);
		x.tai = now_ns(CLOCK_TAI);
		m2 = now_ns(CLOCK_MONOTONIC);
		if (x.mono >= end)
			break;
		nsamples++;
		if (prev.have && x.mono - prev.mono > max_gap)
			max_gap = x.mono - prev.mono;
		if (m2 - x.mono > 50000) {
			dropped++;
			continue;
		}
		if ((it & 31) == 0) {
			memset(&tx, 0, sizeof(tx));
			state = adjtimex(&tx);
			if (state != last_state && ns + 8 < sizeof(states)) {
				static const char *const nm[] = {
				    "OK", "INS", "DEL", "OOP", "WAIT", "ERROR"};
				ns += (size_t)snprintf(
				    states + ns, sizeof(states) - ns, "%s%s",
				    ns ? "," : "",
				    state >= 0 && state <= 5 ? nm[state] : "?");
				last_state = state;
			}
		}
		/* what REALTIME should read at this MONOTONIC instant */
		intended = set_rt + (x.mono - set_mono);
		if (x.mono >= t_leap)
			intended -= r.dir * NS;
		if (llabs(x.rt - intended) > r.max_realtime_error_ns)
			r.max_realtime_error_ns = llabs(x.rt - intended);
		if (x.rt - intended >= NS / 2 || intended - x.rt >= NS / 2) {
			nstale++;
			if (stale_first < 0)
				stale_first = x.mono;
			stale_last = x.mono;
		}
		if (prev.have) {
			if (x.rt < prev.rt) {
				r.backsteps[LC_CLOCK_REALTIME]++;
				step_mono = x.mono;
			}
			if (x.mono < prev.mono)
				r.backsteps[LC_CLOCK_MONOTONIC]++;
			if (x.tai < prev.tai)
				r.backsteps[LC_CLOCK_TAI]++;
			if (llabs((x.tai - prev.tai) - (x.mono - prev.mono)) >
			    1000000)
				r.tai_continuous = 0;
		}
		if (r.dir < 0 && x.rt - prev.rt > NS / 2 && prev.have)
			step_mono = x.mono; /* the jump forward */
		{
			int64_t e =
			    llabs(x.tai - (set_rt + (x.mono - set_mono) +
			                   (int64_t)tai * NS));
			if (e > r.max_tai_error_ns)
				r.max_tai_error_ns = e;
		}
		x.have = 1;
		prev = x;
	}
	pthread_join(th, NULL);
	/* put things back: clear the leap, restore TAI-UTC and the time */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = orig_status & ~(STA_INS | STA_DEL);
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = orig_tai;
	adjtimex(&tx);
	ts = lc__ns_to_ts(orig_rt + (now_ns(CLOCK_MONOTONIC) - orig_mono));
	clock_settime(CLOCK_REALTIME, &ts);

	/* from the leap instant to the last stale reading: under emulation
	 * the reader can be descheduled for milliseconds, so its first stale
	 * reading may come late; the kernel served stale time from the leap
	 * instant on in any case */
	if (stale_first >= 0)
		r.stale_read_ns =
		    stale_last - (t_leap < stale_first ? t_leap : stale_first);
	r.stale_reads = nstale;
	if (step_mono >= 0)
		r.leap_applied_after_ns = step_mono - t_leap;
	r.fired = sl.rc == 0;
	if (sl.rc == 0) {
		int64_t d = due - sl.woke_mono;
		if (d > 0) {
			r.early_fires = 1;
			r.max_early_ns = d;
		} else {
			r.max_late_ns = -d;
		}
	}
	r.backsteps[LC_CLOCK_UTC] = -1;
	r.utc_wrong_reads = -1;
	r.backsteps[LC_CLOCK_MONOTONIC_RAW] = -1;
	r.backsteps[LC_CLOCK_BOOTTIME] = -1;
	r.hz = 0; /* the kernel's HZ is not visible from user space */
	r.scenario = del ? LC__SIM_DELETE : LC__SIM_REPRODUCER;
	if (json) {
		printf("[");
		lc_cli_sim_print_json(stdout, &r, 1);
		printf("\n]\n");
	} else {
		lc_cli_sim_print_row(stdout, &r);
	}
	printf("# adjtimex states seen: %s; reader %s; leap %s; %" PRId64
	       " samples (%" PRId64 " dropped: split reads), %" PRId64
	       " stale, largest gap %.3f ms\n",
	       states, idle ? "idle" : "busy", del ? "deleted" : "inserted",
	       nsamples, dropped, nstale, (double)max_gap / 1e6);
	return LC_EXIT_OK;
}
