/*
 * raw_settime.c - sets the clock with syscall(2) itself, as a program the
 * LD_PRELOAD shim cannot see does (tests/sandbox_basic.sh, under
 * `leapclock run --sandbox`). Each line is "ok WHAT" or "FAIL WHAT"; the
 * exit status is the number of failures.
 *
 *   raw_settime sandbox   raw clock_settime to 2016-12-31T23:59:50Z, read
 *                         back through libc (the shim: the sandbox's
 *                         clock); raw settimeofday; raw adjtimex arming
 *                         STA_INS, read back through libc's adjtimex;
 *                         raw clock_adjtime ADJ_SETOFFSET +1 s; Linux's
 *                         errnos for what it refuses; ADJ_TICK and
 *                         ADJ_FREQUENCY steering MONOTONIC, BOOTTIME,
 *                         REALTIME and TAI against MONOTONIC_RAW, and the
 *                         timers and waits on MONOTONIC following them
 *                         (steered()); and the host's
 *                         CLOCK_REALTIME, read with a raw clock_gettime,
 *                         still within a minute of NOW (the real time,
 *                         seconds since 1970, read by the test before)
 *   raw_settime refused   outside a sandbox, without CAP_SYS_TIME: each
 *                         raw set is EPERM
 * It never runs with CAP_SYS_TIME effective (it would set the host's
 * clock): it says so and exits 2.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

static int fails;

static void check(int cond, const char *what, long got)
{
	printf("%s %s (got %ld)\n", cond ? "ok  " : "FAIL", what, got);
	if (!cond)
		fails++;
}

/* -errno or the return */
static long sys(long nr, long a, long b)
{
	long r = syscall(nr, a, b);

	return r < 0 ? -errno : r;
}

static long host_now(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
	return (long)ts.tv_sec;
}

/* A UDP packet to ourselves on a socket with `opt` (SO_TIMESTAMP,
 * SO_TIMESTAMPNS or SO_TIMESTAMPING), received with recvmsg (or recvmmsg):
 * its stamp minus the program's CLOCK_REALTIME read just after, in ns
 * (NO_STAMP if none came). */
#define NO_STAMP (-(1LL << 62))

static long long stamp_lag(int opt, int mm)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	char buf[16], cbuf[256];
	struct iovec v = { buf, sizeof(buf) };
	struct mmsghdr mh;
	struct msghdr *m = &mh.msg_hdr;
	struct cmsghdr *c;
	struct timespec now;
	long long st = 0;
	int fd, val = 1, got = 0;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (opt == SO_TIMESTAMPING)
		val = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) != 0 ||
	    setsockopt(fd, SOL_SOCKET, opt, &val, sizeof(val)) != 0) {
		if (fd >= 0)
			close(fd);
		return NO_STAMP;
	}
	/* the kernel turns its receive stamps on a little after the first
	 * socket asks (a deferred static key): SO_TIMESTAMPING, which has no
	 * fallback, may get none on a first packet; a few tries */
	for (int tries = 0; tries < 5 && !got; tries++) {
		if (tries > 0)
			usleep(20000);
		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)) != 1)
			break;
		memset(&mh, 0, sizeof(mh));
		m->msg_iov = &v;
		m->msg_iovlen = 1;
		m->msg_control = cbuf;
		m->msg_controllen = sizeof(cbuf);
		if ((mm ? recvmmsg(fd, &mh, 1, 0, NULL) : (int)recvmsg(fd, m, 0)) < 1)
			break;
		clock_gettime(CLOCK_REALTIME, &now);
		for (c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
			if (c->cmsg_level != SOL_SOCKET)
				continue;
			if (c->cmsg_type == SCM_TIMESTAMP) {
				struct timeval tv;

				memcpy(&tv, CMSG_DATA(c), sizeof(tv));
				st = tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
				got = 1;
			} else if (c->cmsg_type == SCM_TIMESTAMPNS ||
			           c->cmsg_type == SCM_TIMESTAMPING) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				st = ts.tv_sec * 1000000000LL + ts.tv_nsec;
				got = 1;
			}
		}
	}
	close(fd);
	if (!got)
		return NO_STAMP;
	return st - (now.tv_sec * 1000000000LL + now.tv_nsec);
}

static void stamps(void)
{
	static const struct { int opt, mm; const char *what; } k[] = {
		{ SO_TIMESTAMP, 0, "SO_TIMESTAMP, recvmsg" },
		{ SO_TIMESTAMPNS, 0, "SO_TIMESTAMPNS, recvmsg" },
		{ SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS, recvmmsg" },
		{ SO_TIMESTAMPING, 0, "SO_TIMESTAMPING (software), recvmsg" },
	};
	char what[160];

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		long long lag = stamp_lag(k[i].opt, k[i].mm);

		snprintf(what, sizeof(what), "a packet's kernel stamp (%s) is on the "
		         "sandbox's clock: within 50 ms before its REALTIME (lag us)",
		         k[i].what);
		check(lag <= 0 && lag > -50000000, what, (long)(lag / 1000));
	}
}

static int refused(void)
{
	struct timespec ts = { 1483228790, 0 };
	struct timeval tv = { 1483228790, 0 };
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_INS;
	check(sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts) == -EPERM,
	      "raw clock_settime: EPERM", sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts));
	check(sys(SYS_settimeofday, (long)&tv, 0) == -EPERM,
	      "raw settimeofday: EPERM", sys(SYS_settimeofday, (long)&tv, 0));
	check(sys(SYS_adjtimex, (long)&tx, 0) == -EPERM,
	      "raw adjtimex STA_INS: EPERM", sys(SYS_adjtimex, (long)&tx, 0));
	return fails;
}

/* ---- the sandbox's tick and frequency steer MONOTONIC as Linux's ------- */

static double secs(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long set_tick(long tick)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TICK;
	tx.tick = tick;
	return sys(SYS_adjtimex, (long)&tx, 0);
}

/* MONOTONIC's advance (us) over a wait on it of `us` (relative) by `how`:
 * 0 clock_nanosleep, 1 timerfd, 2 a POSIX timer, 3 a condvar on
 * MONOTONIC; with `tick2` set (raw adjtimex) 100 ms after the arming
 * (0: none). -1 if a call failed. */
static long waited(int how, long us, long tick2)
{
	struct timespec rel = { us / 1000000, (us % 1000000) * 1000 }, ab;
	struct itimerspec it;
	double m0, m1;
	long r = 0;

	memset(&it, 0, sizeof(it));
	it.it_value = rel;
	m0 = secs(CLOCK_MONOTONIC);
	if (how == 0) {
		if (tick2)
			return -1; /* sleeping: no one to set it */
		r = clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL) ? -1 : 0;
	} else if (how == 1) {
		int fd = timerfd_create(CLOCK_MONOTONIC, 0);
		uint64_t n;

		if (fd < 0 || timerfd_settime(fd, 0, &it, NULL) != 0)
			return -1;
		if (tick2) {
			usleep(100000);
			set_tick(tick2);
		}
		if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
			r = -1;
		close(fd);
	} else if (how == 2) {
		struct sigevent sev;
		timer_t t;
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGRTMIN;
		if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0 ||
		    timer_settime(t, 0, &it, NULL) != 0)
			return -1;
		if (tick2) {
			usleep(100000);
			set_tick(tick2);
		}
		if (sigwait(&set, &sig) != 0)
			r = -1;
		timer_delete(t);
	} else {
		pthread_condattr_t ca;
		pthread_cond_t cv;
		pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;

		if (tick2)
			return -1;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&cv, &ca);
		clock_gettime(CLOCK_MONOTONIC, &ab);
		ab.tv_sec += rel.tv_sec;
		ab.tv_nsec += rel.tv_nsec;
		if (ab.tv_nsec >= 1000000000) {
			ab.tv_sec++;
			ab.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&mx);
		while (pthread_cond_timedwait(&cv, &mx, &ab) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&mx);
	}
	m1 = secs(CLOCK_MONOTONIC);
	return r < 0 ? -1 : (long)((m1 - m0) * 1e6);
}

/* On Linux the tick and frequency steer MONOTONIC, BOOTTIME, REALTIME and
 * TAI alike, MONOTONIC_RAW not; timers on MONOTONIC follow the steered
 * clock and never fire early, when the rate changes after the arming too
 * (the shim's watcher re-arms them). */
static void steered(void)
{
	static const char *const how[] = { "clock_nanosleep", "timerfd",
	                                    "POSIX timer", "condvar" };
	double w0, m0, b0, t0, r0, w1, m1, b1, t1, r1;
	struct timex tx;
	char what[160];
	long r, us;

	r = set_tick(9000);
	w0 = secs(CLOCK_MONOTONIC_RAW);
	m0 = secs(CLOCK_MONOTONIC);
	b0 = secs(CLOCK_BOOTTIME);
	t0 = secs(CLOCK_TAI);
	r0 = secs(CLOCK_REALTIME);
	usleep(1000000);
	w1 = secs(CLOCK_MONOTONIC_RAW);
	m1 = secs(CLOCK_MONOTONIC);
	b1 = secs(CLOCK_BOOTTIME);
	t1 = secs(CLOCK_TAI);
	r1 = secs(CLOCK_REALTIME);
	printf("     tick 9000: in MONOTONIC_RAW %.6f s, MONOTONIC %.6f s, "
	       "BOOTTIME %.6f s, TAI %.6f s, REALTIME %.6f s\n",
	       w1 - w0, m1 - m0, b1 - b0, t1 - t0, r1 - r0);
	check(r >= 0 && (m1 - m0) / (w1 - w0) > 0.899 &&
	      (m1 - m0) / (w1 - w0) < 0.901,
	      "raw adjtimex ADJ_TICK 9000 runs the sandbox's MONOTONIC 10% slow against MONOTONIC_RAW (per mille)",
	      (long)(1000 * (m1 - m0) / (w1 - w0)));
	check((b1 - b0) / (w1 - w0) > 0.899 && (b1 - b0) / (w1 - w0) < 0.901 &&
	      (r1 - r0) / (w1 - w0) > 0.899 && (r1 - r0) / (w1 - w0) < 0.901 &&
	      (t1 - t0) / (w1 - w0) > 0.899 && (t1 - t0) / (w1 - w0) < 0.901,
	      "... and its BOOTTIME, REALTIME and TAI alike (REALTIME per mille)",
	      (long)(1000 * (r1 - r0) / (w1 - w0)));
	check(b0 - m0 > -0.001 && b0 - m0 < 1e7,
	      "the sandbox's BOOTTIME is its MONOTONIC plus the host's suspended time", (long)((b0 - m0) * 1e6));
	/* 300 ms on the slowed clock: 333 ms of the counter; armed at the
	 * host's rate they would fire at 270 ms of it (early) */
	for (int i = 0; i < 4; i++) {
		w0 = secs(CLOCK_MONOTONIC_RAW);
		us = waited(i, 300000, 0);
		w1 = secs(CLOCK_MONOTONIC_RAW);
		printf("     tick 9000: %s 300 ms on MONOTONIC: MONOTONIC "
		       "%.6f s, MONOTONIC_RAW %.6f s\n", how[i], us / 1e6,
		       w1 - w0);
		snprintf(what, sizeof(what), "tick 9000: a %s of 300 ms "
		         "(relative) on MONOTONIC lasts 300 ms of the steered "
		         "MONOTONIC, never less (us)", how[i]);
		check(us >= 300000 && us < 330000 && w1 - w0 > 0.33, what,
		      us);
	}
	/* the rate changing under an armed timer: at tick 10000 for 600
	 * ms, then 10% slow from 100 ms on (500 ms more of MONOTONIC: 556
	 * ms of the counter; left at the first rate it fires 50 ms early on
	 * MONOTONIC) */
	for (int i = 1; i < 3; i++) {
		set_tick(10000);
		us = waited(i, 600000, 9000);
		printf("     tick 10000 then 9000: %s 600 ms on MONOTONIC: "
		       "MONOTONIC %.6f s\n", how[i], us / 1e6);
		snprintf(what, sizeof(what), "a %s of 600 ms on MONOTONIC "
		         "whose rate slows 10%% after 100 ms: re-armed, never "
		         "early (us)", how[i]);
		check(us >= 600000 && us < 660000, what, us);
	}
	set_tick(10000);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 500L << 16; /* +500 ppm */
	r = sys(SYS_adjtimex, (long)&tx, 0);
	w0 = secs(CLOCK_MONOTONIC_RAW);
	m0 = secs(CLOCK_MONOTONIC);
	usleep(1000000);
	w1 = secs(CLOCK_MONOTONIC_RAW);
	m1 = secs(CLOCK_MONOTONIC);
	tx.freq = 0;
	sys(SYS_adjtimex, (long)&tx, 0);
	printf("     freq +500 ppm: MONOTONIC %+.1f ppm against MONOTONIC_RAW\n",
	       ((m1 - m0) / (w1 - w0) - 1) * 1e6);
	check(r >= 0 && ((m1 - m0) / (w1 - w0) - 1) * 1e6 > 490 &&
	      ((m1 - m0) / (w1 - w0) - 1) * 1e6 < 510,
	      "raw adjtimex ADJ_FREQUENCY +500 ppm speeds the sandbox's MONOTONIC so (ppm)",
	      (long)(((m1 - m0) / (w1 - w0) - 1) * 1e6));
}

static int sandboxed(long real)
{
	struct timespec ts = { 1483228790, 0 }, now;
	struct timeval tv;
	struct timex tx;
	long r;

	r = sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts);
	clock_gettime(CLOCK_REALTIME, &now);
	check(r == 0 && now.tv_sec >= 1483228790 && now.tv_sec <= 1483228791,
	      "raw clock_settime reached the sandbox: libc reads 23:59:50", (long)now.tv_sec);
	tv.tv_sec = 1483228780;
	tv.tv_usec = 0;
	r = sys(SYS_settimeofday, (long)&tv, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	check(r == 0 && now.tv_sec >= 1483228780 && now.tv_sec <= 1483228781,
	      "raw settimeofday reached the sandbox: libc reads 23:59:40", (long)now.tv_sec);

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_INS;
	r = sys(SYS_adjtimex, (long)&tx, 0);
	check(r >= 0 && (tx.status & STA_INS), "raw adjtimex armed STA_INS (its timex written back)", r);
	/* TIME_INS from the next second on, as Linux, once the clock is
	 * synchronised (else TIME_ERROR): as leap2015.c, all raw */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_PLL;
	sys(SYS_adjtimex, (long)&tx, 0);
	tx.modes = ADJ_STATUS | ADJ_MAXERROR;
	tx.status = 0;
	tx.maxerror = 0;
	sys(SYS_adjtimex, (long)&tx, 0);
	tx.modes = ADJ_STATUS;
	tx.status = STA_INS;
	sys(SYS_adjtimex, (long)&tx, 0);
	usleep(1200000);
	memset(&tx, 0, sizeof(tx));
	r = adjtimex(&tx);
	check(r == TIME_INS && (tx.status & STA_INS),
	      "libc's adjtimex (the shim) reads the raw call's leap: TIME_INS", r);

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET | ADJ_NANO;
	tx.time.tv_sec = 1;
	tx.time.tv_usec = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	r = sys(SYS_clock_adjtime, CLOCK_REALTIME, (long)&tx);
	clock_gettime(CLOCK_REALTIME, &now);
	check(r >= 0 && now.tv_sec - ts.tv_sec == 1,
	      "raw clock_adjtime ADJ_SETOFFSET +1 s moved the sandbox's clock", (long)(now.tv_sec - ts.tv_sec));

	/* the kernel's packet stamps, read from the host's clock, are the
	 * shim's to move onto the program's (2016 here) */
	stamps();

	/* refusals, as Linux */
	r = sys(SYS_clock_settime, CLOCK_MONOTONIC, (long)&ts);
	check(r == -EINVAL, "raw clock_settime(CLOCK_MONOTONIC): EINVAL", r);
	ts.tv_nsec = 1000000000;
	r = sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts);
	check(r == -EINVAL, "raw clock_settime, tv_nsec 1e9: EINVAL", r);
	r = sys(SYS_clock_settime, CLOCK_REALTIME, 8);
	check(r == -EFAULT, "raw clock_settime, a bad pointer: EFAULT", r);
	r = sys(SYS_adjtimex, 8, 0);
	check(r == -EFAULT, "raw adjtimex, a bad pointer: EFAULT", r);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	r = sys(SYS_clock_adjtime, CLOCK_TAI, (long)&tx);
	check(r == -EOPNOTSUPP, "raw clock_adjtime(CLOCK_TAI): EOPNOTSUPP", r);
	{
		struct timezone tz = { 0, 0 };

		r = sys(SYS_settimeofday, 0, (long)&tz);
		check(r == -EPERM, "raw settimeofday with a timezone: EPERM (the kernel's is the host's)", r);
	}
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TICK;
	tx.tick = 20000;
	r = sys(SYS_adjtimex, (long)&tx, 0);
	check(r == -EINVAL, "raw adjtimex ADJ_TICK 20000: EINVAL", r);

	steered();

	r = host_now();
	check(r >= real - 60 && r <= real + 60,
	      "the host's CLOCK_REALTIME (a raw clock_gettime) is the real time", r - real);
	return fails;
}

/* CAP_SYS_TIME (25) in the effective set, from /proc/self/status; 1 when
 * it cannot be told */
static int has_sys_time(void)
{
	char line[256];
	unsigned long long eff = ~0ull;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> 25) & 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (has_sys_time()) {
		fprintf(stderr, "raw_settime: CAP_SYS_TIME is effective: it would "
		        "set the host's clock; run it without (leapclock run "
		        "--sandbox, setpriv --bounding-set=-sys_time)\n");
		return 2;
	}
	if (argc == 3 && strcmp(argv[1], "sandbox") == 0)
		return sandboxed(strtol(argv[2], NULL, 10));
	if (argc == 2 && strcmp(argv[1], "refused") == 0)
		return refused();
	fprintf(stderr, "usage: raw_settime sandbox NOW | raw_settime refused\n");
	return 2;
}
