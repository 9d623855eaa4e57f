/*
 * leap2015 - the pattern of the 2015 leap-second bug report's reproducer,
 * in our own words, for tests/sandbox_*.sh (run under `leapclock run
 * --sandbox`; on a real host it needs CAP_SYS_TIME and sets the clock).
 *
 *	leap2015 [ins|del]	sets the clock to 5 s before the next UTC
 *				midnight, arms STA_INS (or STA_DEL) with
 *				adjtimex, arms a TIMER_ABSTIME CLOCK_REALTIME
 *				POSIX timer for 00:00:00 and prints adjtimex's
 *				readings every 250 ms until 00:00:02. Fails if
 *				the timer fires before adjtimex reads 00:00:00
 *				("early"), or fires no or twice, or the state
 *				is not TIME_WAIT at the expiry.
 *	leap2015 set SEC	settimeofday(SEC) and exit (a fork/exec check)
 *	leap2015 checks		what the sandbox honours and refuses, each
 *				with Linux's return and errno ("check: ...")
 *	leap2015 host		prints the clock's adjtimex modes-0 state
 *				(read-only; runs anywhere)
 *
 * Every line is "leap2015: ..."; the last "leap2015: ok" or "FAIL ...".
 * It sets the clock: it refuses to run outside a sandbox (no
 * LEAPCLOCK_SANDBOX) unless LEAP2015_HOST=1 says the clock is a VM's.
 * It also refuses while CAP_SYS_TIME is effective (the sandbox drops it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

static int nfail;

/* 1 if CAP_SYS_TIME is effective (or cannot be told) */
static int has_sys_time(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return 1;
	return (d[CAP_SYS_TIME / 32].effective >> (CAP_SYS_TIME % 32)) & 1;
}

static void check(const char *what, int rc, int want_errno)
{
	int e = errno;
	int ok = want_errno == 0 ? rc >= 0 : rc == -1 && e == want_errno;

	printf("%s leap2015: check: %s: rc %d errno %s (want %s)\n",
	       ok ? "ok" : "FAIL", what, rc, rc < 0 ? strerror(e) : "-",
	       want_errno ? strerror(want_errno) : "success");
	nfail += !ok;
}

static int checks(void)
{
	struct timespec ts, t2;
	struct timeval tv, old;
	struct timezone tz = { 0, 0 };
	struct timex tx;

	clock_gettime(CLOCK_TAI, &ts);
	errno = 0;
	check("clock_settime(CLOCK_TAI)", clock_settime(CLOCK_TAI, &ts), EINVAL);
	check("clock_settime(CLOCK_MONOTONIC)",
	      clock_settime(CLOCK_MONOTONIC, &ts), EINVAL);
	gettimeofday(&tv, NULL);
	check("settimeofday with a timezone", settimeofday(&tv, &tz), EPERM);
	tv.tv_usec = 1000000;
	check("settimeofday tv_usec 1e6", settimeofday(&tv, NULL), EINVAL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TICK;
	tx.tick = 20000;
	check("adjtimex ADJ_TICK 20000", adjtimex(&tx), EINVAL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = 0x8000;
	check("adjtimex modes 0x8000", adjtimex(&tx), EINVAL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET;
	tx.time.tv_usec = 1000000;
	check("clock_adjtime ADJ_SETOFFSET usec 1e6",
	      clock_adjtime(CLOCK_REALTIME, &tx), EINVAL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 1;
	check("clock_adjtime(CLOCK_TAI) ADJ_FREQUENCY",
	      clock_adjtime(CLOCK_TAI, &tx), EOPNOTSUPP);
	clock_gettime(CLOCK_REALTIME, &ts);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET;
	tx.time.tv_sec = 5;
	check("clock_adjtime ADJ_SETOFFSET +5 s",
	      clock_adjtime(CLOCK_REALTIME, &tx), 0);
	clock_gettime(CLOCK_REALTIME, &t2);
	check("the step moved REALTIME by 5 s",
	      t2.tv_sec - ts.tv_sec >= 5 && t2.tv_sec - ts.tv_sec <= 6 ? 0 : -1,
	      0);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 100 * 65536;
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	adjtimex(&tx);
	check("ADJ_FREQUENCY 100 ppm reads back",
	      tx.freq == 100 * 65536 ? 0 : -1, 0);
	tv.tv_sec = 1;
	tv.tv_usec = 0;
	check("adjtime +1 s", adjtime(&tv, NULL), 0);
	check("adjtime reads the pending slew", adjtime(NULL, &old), 0);
	check("  which is about 1 s",
	      old.tv_sec == 0 && old.tv_usec > 990000 ? 0
	      : old.tv_sec == 1 && old.tv_usec == 0   ? 0
	                                              : -1,
	      0);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = 40;
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	adjtimex(&tx);
	check("ADJ_TAI 40 reads back", tx.tai == 40 ? 0 : -1, 0);
	printf("leap2015: %s\n", nfail ? "FAIL checks" : "ok");
	return nfail != 0;
}

static volatile sig_atomic_t fired, early, state_at_fire = -1;
static time_t midnight;

static void on_timer(int sig)
{
	struct timex tx;

	(void)sig;
	memset(&tx, 0, sizeof(tx));
	state_at_fire = adjtimex(&tx);
	if (tx.time.tv_sec < midnight)
		early = 1;
	fired++;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "ins";
	struct timeval tv;
	struct timex tx;
	struct sigevent sev;
	struct itimerspec its;
	struct sigaction sa;
	timer_t t;
	int rc, ins = strcmp(dir, "del") != 0;

	if (strcmp(dir, "host") == 0) {
		memset(&tx, 0, sizeof(tx));
		rc = adjtimex(&tx);
		printf("state %d status 0x%x freq %ld offset %ld tai %d tick "
		       "%ld constant %ld\n", rc, (unsigned)tx.status,
		       (long)tx.freq, (long)tx.offset, tx.tai, (long)tx.tick,
		       (long)tx.constant);
		return rc < 0;
	}
	/* the variable alone could be inherited by a program the shim does
	 * not reach: with CAP_SYS_TIME still effective, a set call would
	 * change the host's clock, so that refuses too (the sandbox drops
	 * it) */
	if ((getenv("LEAPCLOCK_SANDBOX") == NULL ||
	     *getenv("LEAPCLOCK_SANDBOX") == '\0' || has_sys_time()) &&
	    (getenv("LEAP2015_HOST") == NULL ||
	     strcmp(getenv("LEAP2015_HOST"), "1") != 0)) {
		printf("FAIL leap2015: not in a sandbox (leapclock run "
		       "--sandbox): it would set this host's clock "
		       "(LEAP2015_HOST=1 in a VM)\n");
		return 2;
	}
	if (strcmp(dir, "set") == 0 && argc > 2) {
		tv.tv_sec = (time_t)strtoll(argv[2], NULL, 10);
		tv.tv_usec = 0;
		if (settimeofday(&tv, NULL) != 0) {
			printf("FAIL leap2015: settimeofday: %s\n",
			       strerror(errno));
			return 1;
		}
		return 0;
	}
	if (strcmp(dir, "checks") == 0)
		return checks();
	gettimeofday(&tv, NULL);
	midnight = tv.tv_sec + 86400 - tv.tv_sec % 86400;
	tv.tv_sec = midnight - 5;
	tv.tv_usec = 0;
	if (settimeofday(&tv, NULL) != 0) {
		printf("FAIL leap2015: settimeofday: %s\n", strerror(errno));
		return 1;
	}
	/* clear the state, then arm (as the selftests do: after the set) */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_PLL;
	adjtimex(&tx);
	tx.modes = ADJ_STATUS | ADJ_MAXERROR;
	tx.status = 0;
	tx.maxerror = 0;
	adjtimex(&tx);
	tx.modes = ADJ_STATUS;
	tx.status = ins ? STA_INS : STA_DEL;
	if (adjtimex(&tx) < 0) {
		printf("FAIL leap2015: Problem setting STA_%s: %s\n",
		       ins ? "INS" : "DEL", strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sigaction(SIGRTMIN, &sa, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN;
	if (timer_create(CLOCK_REALTIME, &sev, &t) != 0) {
		printf("FAIL leap2015: timer_create: %s\n", strerror(errno));
		return 1;
	}
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = midnight;
	timer_settime(t, TIMER_ABSTIME, &its, NULL);
	printf("leap2015: %s armed for %lld, clock set to 23:59:55\n",
	       ins ? "insertion" : "deletion", (long long)midnight);
	for (int i = 0; i < 40; i++) {
		struct timespec d = { 0, 250000000 };

		while (nanosleep(&d, &d) != 0 && errno == EINTR)
			;
		memset(&tx, 0, sizeof(tx));
		rc = adjtimex(&tx);
		printf("leap2015: %+.3f s state %d tai %d%s\n",
		       (double)(tx.time.tv_sec - midnight) +
		               tx.time.tv_usec / 1e6,
		       rc, tx.tai, fired ? " (timer fired)" : "");
		if (tx.time.tv_sec >= midnight + 2)
			break;
	}
	if (fired != 1 || early || state_at_fire != TIME_WAIT) {
		printf("FAIL leap2015: timer fired %d time(s)%s, state at "
		       "expiry %d (want once, not early, TIME_WAIT %d)\n",
		       (int)fired, early ? ", Early timer expiration!" : "",
		       (int)state_at_fire, TIME_WAIT);
		return 1;
	}
	printf("leap2015: ok\n");
	return 0;
}
