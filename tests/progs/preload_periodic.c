/*
 * preload_periodic.c - an ordinary program (it knows nothing of leapclock)
 * that tests/preload_periodic.sh runs under the shim: periodic
 * CLOCK_REALTIME timers of every kind, absolute and relative, armed
 * together, checked as the kernel's set-timer-lat checks them: the clock
 * read when an expiration is delivered must be at or past its deadline
 * (never early) and not too late.
 *
 * usage: preload_periodic ALIGN PERIOD COUNT LATE
 *   ALIGN   first waits (clock_nanosleep, TIMER_ABSTIME) until the
 *           program's realtime reads a whole second + ALIGN s, so that
 *           a caller knows where the expirations fall relative to a leap
 *   PERIOD  the period in s; the first expiration is 1 s after the start
 *           (absolute: start + 1 s; relative: a value of 1 s)
 *   COUNT   expirations each timer must deliver
 *   LATE    the latest an expiration may come after its deadline, in s
 *           (a deadline inside a deleted second is reached at 00:00:00,
 *           up to 1 s after it)
 * Timers: a SIGEV_SIGNAL POSIX timer, a SIGEV_THREAD POSIX timer and a
 * timerfd, each TIMER_ABSTIME and relative: six. Expirations are counted
 * with timer_getoverrun and the timerfd's read count: the k-th expiration's
 * deadline is start + 1 + (k - 1) * PERIOD. Prints "ok"/"FAIL" lines.
 *
 * usage: preload_periodic unread signal|timerfd|overrun
 *   one periodic relative timer (1 s, first 1 s after a whole second +
 *   .001 s) whose expirations the program does not take for 5.5 s of its
 *   clock (its signal blocked, or the timerfd not read), then takes them:
 *   5 expirations are due (a blocked signal is delivered once with the
 *   others as overruns, a timerfd's read counts them all), "ok"/"FAIL".
 *   A signal's timer_getoverrun must be the si_overrun of the signal
 *   taken last. overrun: the signal timer, its signal taken once at 2.5 s
 *   (2 expirations), then at 5.5 s first timer_getoverrun (still that
 *   signal's, 1: the next one is pending, not taken), then the rest.
 *
 * usage: preload_periodic sleep N
 *   N relative clock_nanosleep(CLOCK_REALTIME, 0, 1 s) calls: each must
 *   end at or past 1 s after the program's realtime before it (relative
 *   sleeps on REALTIME count the program's clock, as its timers do).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NT 6
#define MAXEV 64

static const char *const names[NT] = {
	"signal timer ABSTIME", "signal timer relative",
	"thread timer ABSTIME", "thread timer relative",
	"timerfd ABSTIME",      "timerfd relative",
};

struct ev {
	int64_t rt;    /* CLOCK_REALTIME when delivered */
	int64_t count; /* expirations up to and with this one */
};

static struct ev evs[NT][MAXEV];
static atomic_int nev[NT];
static int64_t total[NT];
static int64_t start_ns, period_ns;
static timer_t tid[NT];
static int tfd[NT];
static int want;

static int64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000),
		               (long)(ns % 1000000000) };
	return ts;
}

/* one delivery of timer i with `n` expirations (handler-safe) */
static void record(int i, int64_t n)
{
	int k = atomic_load(&nev[i]);

	if (k >= MAXEV)
		return;
	total[i] += n;
	evs[i][k].rt = now(CLOCK_REALTIME);
	evs[i][k].count = total[i];
	atomic_store(&nev[i], k + 1);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int i = si->si_value.sival_int;
	int o;

	(void)sig;
	(void)uc;
	if (i < 0 || i >= 2)
		return;
	o = timer_getoverrun(tid[i]);
	record(i, 1 + (o > 0 ? o : 0));
}

static void on_thread(union sigval v)
{
	int i = v.sival_int, o = timer_getoverrun(tid[i]);

	record(i, 1 + (o > 0 ? o : 0));
}

static void *tfd_reader(void *arg)
{
	int i = (int)(intptr_t)arg;

	while (atomic_load(&nev[i]) < want) {
		uint64_t n;

		if (read(tfd[i], &n, sizeof(n)) != sizeof(n)) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		record(i, (int64_t)n);
	}
	return NULL;
}

/* the unread mode: 0 if 5 expirations are counted at start + 5.5 s */
static int unread(const char *kind)
{
	int fd = -1, sigs = 0, tfd_mode = strcmp(kind, "timerfd") == 0;
	int early = strcmp(kind, "overrun") == 0, last = -1, ovr, bad = 0;
	int64_t got = 0, t;
	struct itimerspec its = { { 1, 0 }, { 1, 0 } };
	struct sigevent sev;
	struct timespec d, z = { 0, 0 };
	siginfo_t si;
	sigset_t set;
	timer_t id;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (tfd_mode) {
		fd = timerfd_create(CLOCK_REALTIME, 0);
		if (fd < 0)
			return 2;
	} else {
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGRTMIN;
		if (timer_create(CLOCK_REALTIME, &sev, &id) != 0)
			return 2;
	}
	t = (now(CLOCK_REALTIME) / 1000000000 + 1) * 1000000000 + 1000000;
	d = ts_of(t);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL) == EINTR)
		;
	if ((tfd_mode ? timerfd_settime(fd, 0, &its, NULL)
	              : timer_settime(id, 0, &its, NULL)) != 0)
		return 2;
	if (early) {
		d = ts_of(t + 2500000000LL);
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d,
		                       NULL) == EINTR)
			;
		while (sigtimedwait(&set, &si, &z) == SIGRTMIN) {
			sigs++;
			last = si.si_overrun;
			got += 1 + (si.si_overrun > 0 ? si.si_overrun : 0);
		}
	}
	d = ts_of(t + 5500000000LL);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL) == EINTR)
		;
	if (early && (ovr = timer_getoverrun(id)) != last) {
		printf("FAIL %s: timer_getoverrun %d at 5.5 s, the signal "
		       "taken at 2.5 s had si_overrun %d\n", kind, ovr, last);
		bad = 1;
	}
	if (tfd_mode) {
		uint64_t n = 0;

		if (read(fd, &n, sizeof(n)) == sizeof(n))
			got = (int64_t)n;
	} else {
		while (sigtimedwait(&set, &si, &z) == SIGRTMIN) {
			sigs++;
			last = si.si_overrun;
			got += 1 + (si.si_overrun > 0 ? si.si_overrun : 0);
		}
		if (sigs > 0 && (ovr = timer_getoverrun(id)) != last) {
			printf("FAIL %s: timer_getoverrun %d, the signal taken "
			       "last had si_overrun %d\n", kind, ovr, last);
			bad = 1;
		}
	}
	printf("%s %s: %lld expirations taken at 5.5 s (%s; want 5)\n",
	       got == 5 ? "ok  " : "FAIL", kind, (long long)got,
	       tfd_mode ? "one read" : sigs == 1 ? "one signal" : "signals");
	return got == 5 && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	double align, late;
	int64_t late_ns, t;
	struct itimerspec its;
	struct sigaction sa;
	pthread_t th[NT];
	int fails = 0;

	if (argc == 3 && strcmp(argv[1], "unread") == 0)
		return unread(argv[2]);
	if (argc == 3 && strcmp(argv[1], "sleep") == 0) {
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++) {
			struct timespec one = { 1, 0 };
			int64_t a = now(CLOCK_REALTIME), b;

			clock_nanosleep(CLOCK_REALTIME, 0, &one, NULL);
			b = now(CLOCK_REALTIME);
			if (b - a < 1000000000 || b - a > 1300000000) {
				printf("FAIL relative clock_nanosleep of 1 s: "
				       "realtime moved %lld ns\n",
				       (long long)(b - a));
				fails++;
			} else {
				printf("ok   relative clock_nanosleep of 1 s: "
				       "realtime moved %lld ns\n",
				       (long long)(b - a));
			}
		}
		return fails ? 1 : 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: preload_periodic ALIGN PERIOD COUNT "
		                "LATE\n");
		return 2;
	}
	align = atof(argv[1]);
	period_ns = (int64_t)(atof(argv[2]) * 1e9);
	want = atoi(argv[3]);
	late = atof(argv[4]);
	late_ns = (int64_t)(late * 1e9);
	if (want < 1 || want > MAXEV || period_ns <= 0)
		return 2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN, &sa, NULL);

	for (int i = 0; i < NT; i++) {
		struct sigevent sev;

		if (i >= 4) {
			tfd[i] = timerfd_create(CLOCK_REALTIME, 0);
			if (tfd[i] < 0) {
				perror("timerfd_create");
				return 1;
			}
			continue;
		}
		memset(&sev, 0, sizeof(sev));
		sev.sigev_value.sival_int = i;
		if (i < 2) {
			sev.sigev_notify = SIGEV_SIGNAL;
			sev.sigev_signo = SIGRTMIN;
		} else {
			sev.sigev_notify = SIGEV_THREAD;
			sev.sigev_notify_function = on_thread;
		}
		if (timer_create(CLOCK_REALTIME, &sev, &tid[i]) != 0) {
			perror("timer_create");
			return 1;
		}
	}

	/* the start: a whole second + ALIGN on the program's realtime */
	t = now(CLOCK_REALTIME);
	t = (t / 1000000000 + 1) * 1000000000 + (int64_t)(align * 1e9);
	{
		struct timespec d = ts_of(t);

		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d,
		                       NULL) == EINTR)
			;
	}
	start_ns = now(CLOCK_REALTIME);
	for (int i = 0; i < NT; i++) {
		int abs = i % 2 == 0, rc;

		its.it_interval = ts_of(period_ns);
		its.it_value = abs ? ts_of(start_ns + 1000000000) : ts_of(1000000000);
		if (i >= 4)
			rc = timerfd_settime(tfd[i], abs ? TFD_TIMER_ABSTIME : 0,
			                     &its, NULL);
		else
			rc = timer_settime(tid[i], abs ? TIMER_ABSTIME : 0,
			                   &its, NULL);
		if (rc != 0) {
			perror("settime");
			return 1;
		}
	}
	for (int i = 4; i < NT; i++)
		pthread_create(&th[i], NULL, tfd_reader, (void *)(intptr_t)i);

	/* bounded: the expirations' time, plus the leap's second, plus 5 s */
	{
		int64_t end = now(CLOCK_MONOTONIC) + 1000000000 +
		              want * period_ns + 6000000000LL;
		int done;

		do {
			struct timespec d = { 0, 20000000 };

			nanosleep(&d, NULL);
			done = 1;
			for (int i = 0; i < NT; i++)
				done &= atomic_load(&nev[i]) >= want;
		} while (!done && now(CLOCK_MONOTONIC) < end);
	}

	printf("start %lld.%09lld, period %.3f s\n",
	       (long long)(start_ns / 1000000000),
	       (long long)(start_ns % 1000000000), period_ns / 1e9);
	for (int i = 0; i < NT; i++) {
		int n = atomic_load(&nev[i]), bad = 0;
		int64_t worst_early = 0, worst_late = 0;
		char where[96] = "";

		if (n < want) {
			printf("FAIL %s: %d of %d expirations delivered\n",
			       names[i], n, want);
			fails++;
			continue;
		}
		for (int k = 0; k < n; k++) {
			/* the deadline of the last expiration counted */
			int64_t dl = start_ns + 1000000000 +
			             (evs[i][k].count - 1) * period_ns;
			int64_t delta = evs[i][k].rt - dl;

			if (delta < worst_early) {
				worst_early = delta;
				snprintf(where, sizeof(where),
				         "expiration %lld due %lld.%09lld",
				         (long long)evs[i][k].count,
				         (long long)(dl / 1000000000),
				         (long long)(dl % 1000000000));
			}
			if (delta > worst_late)
				worst_late = delta;
		}
		if (worst_early < 0) {
			printf("FAIL %s: fired early by %lld ns (%s)\n",
			       names[i], (long long)-worst_early, where);
			bad = 1;
		}
		if (worst_late > late_ns) {
			printf("FAIL %s: latency %lld ns over %.3f s\n",
			       names[i], (long long)worst_late, late);
			bad = 1;
		}
		/* a failure shows every delivery: a lost expiration (every
		 * later count a period behind) from one late wake */
		for (int k = 0; bad && k < n; k++)
			printf("     delivery %d: %+.6f s from the start, "
			       "%lld expirations\n",
			       k + 1, (evs[i][k].rt - start_ns) / 1e9,
			       (long long)evs[i][k].count);
		if (!bad)
			printf("ok   %s: %d deliveries, %lld expirations, never "
			       "early, latency at most %lld us\n",
			       names[i], n, (long long)total[i],
			       (long long)(worst_late / 1000));
		fails += bad;
	}
	fflush(stdout);
	_exit(fails ? 1 : 0);
}
