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
#include <getopt.h>
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

struct kt_opts {
	int del, idle, json, agreed, tai;
	const char *label;
};

/* One run: the clock as found, the leap as armed, the reader's findings. */
struct kt {
	int orig_status, orig_tai;
	int64_t orig_rt, orig_mono;
	int64_t midnight, set_rt, set_mono;
	int64_t t_leap, due, end; /* MONOTONIC ns */
	struct sleeper sl;
	pthread_t th;
	struct lc__sim_result r;
	struct reading prev;
	int64_t stale_first, stale_last, step_mono;
	int64_t nsamples, dropped, max_gap, nstale;
	int last_state;
	char states[128];
	size_t nstates; /* chars used in states */
};

static int refuse(const char *why)
{
	fprintf(stderr, "leapclock %s: refusing to run: %s", CMD, why);
	return LC_EXIT_USAGE;
}

static int kt_parse(struct kt_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"i-understand-this-sets-the-clock", no_argument, NULL, 'A'},
	    {"delete", no_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"reader", required_argument, NULL, 'r'},
	    {"tai", required_argument, NULL, 't'},
	    {"label", required_argument, NULL, 'l'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	o->tai = 35;
	opterr = 0;
	optind = 1;
	/* getopt_long as every subcommand; the clock-setting agreement is
	 * taken only spelt out in full, never abbreviated */
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		if (c == 'A' && strcmp(argv[optind - 1], FLAG) == 0)
			o->agreed = 1;
		else if (c == 'd')
			o->del = 1;
		else if (c == 'j')
			o->json = 1;
		else if (c == 'r') {
			if (strcmp(optarg, "idle") == 0)
				o->idle = 1;
			else if (strcmp(optarg, "busy") != 0)
				return lc_cli_usage_error(CMD,
				                          "--reader: busy or "
				                          "idle");
		} else if (c == 't') {
			o->tai = atoi(optarg);
		} else if (c == 'l') {
			o->label = optarg;
		} else {
			return lc_cli_usage_error(CMD, "unknown option '%s'",
			                          argv[optind - 1]);
		}
	}
	if (optind < argc)
		return lc_cli_usage_error(CMD, "unknown option '%s'",
		                          argv[optind]);
	if (!o->agreed)
		return refuse("this test SETS THE SYSTEM "
		              "CLOCK to 5 s before\nmidnight and arms a leap "
		              "second. Give " FLAG "\nif this is a throw-away "
		              "VM (make vm-test runs it in one).\n");
	return 0;
}

/* Sets the clock to 5 s before the next midnight, as the leap-a-day
 * selftest: the time first (that clears the NTP state), then the flags,
 * TAI-UTC and the leap. 0 or LC_EXIT_RUNTIME. */
static int kt_arm(const struct kt_opts *o, struct kt *k)
{
	struct timex tx;
	struct timespec ts;

	memset(&tx, 0, sizeof(tx));
	if (adjtimex(&tx) < 0) {
		perror("leapclock kernel-test: adjtimex");
		return LC_EXIT_RUNTIME;
	}
	k->orig_status = tx.status;
	k->orig_tai = tx.tai;
	k->orig_rt = now_ns(CLOCK_REALTIME);
	k->orig_mono = now_ns(CLOCK_MONOTONIC);
	k->midnight = (lc__fdiv(k->orig_rt, NS) / 86400 + 1) * 86400;
	ts = lc__ns_to_ts((k->midnight - 5) * NS);
	if (clock_settime(CLOCK_REALTIME, &ts) != 0) {
		perror("leapclock kernel-test: clock_settime");
		return LC_EXIT_RUNTIME;
	}
	k->set_mono = now_ns(CLOCK_MONOTONIC);
	k->set_rt = now_ns(CLOCK_REALTIME);
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
	tx.constant = o->tai;
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = o->del ? STA_DEL : STA_INS;
	if (adjtimex(&tx) < 0) {
		perror("leapclock kernel-test: adjtimex(STA_INS/DEL)");
		return LC_EXIT_RUNTIME;
	}
	/* the leap's true instant in MONOTONIC: REALTIME reaches the start of
	 * 23:59:60 (insertion) or of the deleted 23:59:59 */
	k->t_leap =
	    k->set_mono + (k->midnight * NS - (o->del ? NS : 0)) - k->set_rt;
	k->due = o->del ? k->t_leap : k->t_leap + NS; /* 00:00:00, truly */
	k->end = k->due + 2 * NS;
	return 0;
}

/* The sleeper for 00:00:00, and the result's fixed fields. */
static int kt_start(const struct kt_opts *o, struct kt *k)
{
	struct lc__sim_result *r = &k->r;
	struct utsname u;

	memset(&k->sl, 0, sizeof(k->sl));
	k->sl.deadline = k->midnight * NS;
	if (pthread_create(&k->th, NULL, sleeper_main, &k->sl) != 0) {
		fprintf(stderr, "leapclock %s: pthread_create failed\n", CMD);
		return LC_EXIT_RUNTIME;
	}
	memset(r, 0, sizeof(*r));
	r->available = 1;
	r->dir = o->del ? -1 : 1;
	r->tai_continuous = 1;
	r->timers = 1;
	r->leap_applied_after_ns = -1;
	r->backsteps[LC_CLOCK_UTC_SLS] = -1;
	if (uname(&u) == 0)
		snprintf(r->model, sizeof(r->model), "%.40s",
		         o->label ? o->label : u.release);
	k->stale_first = k->stale_last = k->step_mono = -1;
	k->last_state = -1;
	return 0;
}

/* Every 32nd sample: the kernel's state, noted when it changes. */
static void kt_note_state(struct kt *k)
{
	static const char *const nm[] = {"OK",  "INS",  "DEL",
	                                 "OOP", "WAIT", "ERROR"};
	struct timex tx;
	int state;

	memset(&tx, 0, sizeof(tx));
	state = adjtimex(&tx);
	if (state != k->last_state && k->nstates + 8 < sizeof(k->states)) {
		k->nstates += (size_t)snprintf(
		    k->states + k->nstates, sizeof(k->states) - k->nstates,
		    "%s%s", k->nstates ? "," : "",
		    state >= 0 && state <= 5 ? nm[state] : "?");
		k->last_state = state;
	}
}

/* One sample against what the clocks should read. */
static void kt_check(const struct kt_opts *o, struct kt *k,
                     const struct reading *x)
{
	struct lc__sim_result *r = &k->r;
	const struct reading *prev = &k->prev;
	/* what REALTIME should read at this MONOTONIC instant */
	int64_t intended = k->set_rt + (x->mono - k->set_mono), e;

	if (x->mono >= k->t_leap)
		intended -= r->dir * NS;
	if (llabs(x->rt - intended) > r->max_realtime_error_ns)
		r->max_realtime_error_ns = llabs(x->rt - intended);
	if (x->rt - intended >= NS / 2 || intended - x->rt >= NS / 2) {
		k->nstale++;
		if (k->stale_first < 0)
			k->stale_first = x->mono;
		k->stale_last = x->mono;
	}
	if (prev->have) {
		if (x->rt < prev->rt) {
			r->backsteps[LC_CLOCK_REALTIME]++;
			k->step_mono = x->mono;
		}
		if (x->mono < prev->mono)
			r->backsteps[LC_CLOCK_MONOTONIC]++;
		if (x->tai < prev->tai)
			r->backsteps[LC_CLOCK_TAI]++;
		if (llabs((x->tai - prev->tai) - (x->mono - prev->mono)) >
		    1000000)
			r->tai_continuous = 0;
	}
	if (r->dir < 0 && x->rt - prev->rt > NS / 2 && prev->have)
		k->step_mono = x->mono; /* the jump forward */
	e = llabs(x->tai -
	          (k->set_rt + (x->mono - k->set_mono) + (int64_t)o->tai * NS));
	if (e > r->max_tai_error_ns)
		r->max_tai_error_ns = e;
}

/* Reads the clocks until 2 s after 00:00:00 (idle: only once the sleep
 * has ended). */
static void kt_read(const struct kt_opts *o, struct kt *k)
{
	if (o->idle)
		while (!k->sl.done)
			usleep(1000); /* idle: nothing reads until the sleep
			                 ends */
	for (unsigned long it = 0;; it++) {
		struct reading x;
		int64_t m2;

		/* MONOTONIC around the other two: a sample whose reads were
		 * split by a preemption (common under emulation) would
		 * look like a jump; it is dropped */
		x.mono = now_ns(CLOCK_MONOTONIC);
		x.rt = now_ns(CLOCK_REALTIME);
		x.tai = now_ns(CLOCK_TAI);
		m2 = now_ns(CLOCK_MONOTONIC);
		if (x.mono >= k->end)
			break;
		k->nsamples++;
		if (k->prev.have && x.mono - k->prev.mono > k->max_gap)
			k->max_gap = x.mono - k->prev.mono;
		if (m2 - x.mono > 50000) {
			k->dropped++;
			continue;
		}
		if ((it & 31) == 0)
			kt_note_state(k);
		kt_check(o, k, &x);
		x.have = 1;
		k->prev = x;
	}
}

/* Puts things back: clears the leap, restores TAI-UTC and the time. */
static void kt_restore(struct kt *k)
{
	struct timex tx;
	struct timespec ts;

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = k->orig_status & ~(STA_INS | STA_DEL);
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = k->orig_tai;
	adjtimex(&tx);
	ts =
	    lc__ns_to_ts(k->orig_rt + (now_ns(CLOCK_MONOTONIC) - k->orig_mono));
	clock_settime(CLOCK_REALTIME, &ts);
}

static void kt_summarise(const struct kt_opts *o, struct kt *k)
{
	struct lc__sim_result *r = &k->r;

	/* from the leap instant to the last stale reading: under emulation
	 * the reader can be descheduled for milliseconds, so its first stale
	 * reading may come late; the kernel served stale time from the leap
	 * instant on in any case */
	if (k->stale_first >= 0)
		r->stale_read_ns =
		    k->stale_last -
		    (k->t_leap < k->stale_first ? k->t_leap : k->stale_first);
	r->stale_reads = k->nstale;
	if (k->step_mono >= 0)
		r->leap_applied_after_ns = k->step_mono - k->t_leap;
	r->fired = k->sl.rc == 0;
	if (k->sl.rc == 0) {
		int64_t d = k->due - k->sl.woke_mono;
		if (d > 0) {
			r->early_fires = 1;
			r->max_early_ns = d;
		} else {
			r->max_late_ns = -d;
		}
	}
	r->backsteps[LC_CLOCK_UTC] = -1;
	r->utc_wrong_reads = -1;
	r->backsteps[LC_CLOCK_MONOTONIC_RAW] = -1;
	r->backsteps[LC_CLOCK_BOOTTIME] = -1;
	r->hz = 0; /* the kernel's HZ is not visible from user space */
	r->scenario = o->del ? LC__SIM_DELETE : LC__SIM_REPRODUCER;
}

static void kt_print(const struct kt_opts *o, const struct kt *k)
{
	if (o->json) {
		printf("[");
		lc_cli_sim_print_json(stdout, &k->r, 1);
		printf("\n]\n");
	} else {
		lc_cli_sim_print_row(stdout, &k->r);
	}
	printf("# adjtimex states seen: %s; reader %s; leap %s; %" PRId64
	       " samples (%" PRId64 " dropped: split reads), %" PRId64
	       " stale, largest gap %.3f ms\n",
	       k->states, o->idle ? "idle" : "busy",
	       o->del ? "deleted" : "inserted", k->nsamples, k->dropped,
	       k->nstale, (double)k->max_gap / 1e6);
}

int lc_cmd_kernel_test(int argc, char **argv)
{
	struct kt_opts o;
	struct kt k;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&k, 0, sizeof(k));

	/* First, before anything else: the capability. */
	if (!has_cap_sys_time())
		return refuse("this process does not have CAP_SYS_TIME,\nso "
		              "it could not set the clock. The test sets the "
		              "system clock and arms a\nleap second; run it "
		              "only in a throw-away VM (make vm-test).\n");
	rc = kt_parse(&o, argc, argv);
	if (rc != 0)
		return rc;
	rc = kt_arm(&o, &k);
	if (rc == 0)
		rc = kt_start(&o, &k);
	if (rc != 0)
		return rc;
	kt_read(&o, &k);
	pthread_join(k.th, NULL);
	kt_restore(&k);
	kt_summarise(&o, &k);
	kt_print(&o, &k);
	return LC_EXIT_OK;
}
