/*
 * step_timers.c - an ordinary program (it knows nothing of leapclock) that
 * tests/preload_step.sh runs under the shim while step_writer steps the
 * timeline it reads: its absolute timers, delivered by the kernel, must
 * fire when its own clock reaches their deadline, steps included.
 *
 * usage: step_timers DEADLINE [LATE_MS]
 *
 * DEADLINE is POSIX seconds ("1798761600") or "N+SECONDS", relative to the
 * program's CLOCK_REALTIME at the start. Arms, all absolute:
 *   tfd      a CLOCK_REALTIME timerfd at DEADLINE
 *   tfdper   a CLOCK_REALTIME timerfd at DEADLINE, every 100 ms (checked
 *            for its first two expirations: the second at DEADLINE + 0.1 s)
 *   signal   a CLOCK_REALTIME POSIX timer, SIGEV_SIGNAL, at DEADLINE
 *   thread   a CLOCK_REALTIME POSIX timer, SIGEV_THREAD, at DEADLINE
 *   tai      a CLOCK_TAI POSIX timer, SIGEV_SIGNAL, at the TAI that is
 *            DEADLINE - realtime now after TAI now
 *   expired  a CLOCK_REALTIME timerfd 50 ms ahead, left unread: after the
 *            others it must still hold its one expiration
 * then sleeps 100 ms (so that `expired` has expired), prints "armed" (the
 * writer steps the timeline after that) and waits. Each timer must fire,
 * never before the program's own clock (CLOCK_REALTIME, or CLOCK_TAI for
 * `tai`) read right after the wakeup reaches its deadline, and at most
 * LATE_MS (default 100) after it. Prints "fired NAME +-MS" (the clock at
 * the wakeup minus the deadline) and one "ok"/"FAIL" line per timer;
 * exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define E9 1000000000LL
#define PERIOD (100 * 1000000LL)

enum { T_TFD, T_TFDPER, T_SIGNAL, T_THREAD, T_TAI, T_N };
static const char *names[T_N] = { "tfd", "tfdper", "signal", "thread",
	                          "tai" };

static int fails;
static int thread_pipe[2];

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * E9 + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / E9), (long)(ns % E9) };

	return ts;
}

static void on_thread(union sigval v)
{
	int64_t t = now_ns(CLOCK_REALTIME);

	(void)v;
	if (write(thread_pipe[1], &t, sizeof(t)) != sizeof(t))
		_exit(3);
}

static void judge(const char *name, int64_t clock, int64_t deadline,
                  int64_t late)
{
	int64_t d = clock - deadline;

	printf("fired %s %+.3f ms\n", name, (double)d / 1e6);
	if (d < 0) {
		printf("FAIL %s: fired %.3f ms early: its clock read "
		       "%lld.%09lld, deadline %lld.%09lld\n",
		       name, (double)-d / 1e6, (long long)(clock / E9),
		       (long long)(clock % E9), (long long)(deadline / E9),
		       (long long)(deadline % E9));
		fails++;
	} else if (d > late) {
		printf("FAIL %s: fired %.3f ms late (at most %.0f)\n", name,
		       (double)d / 1e6, (double)late / 1e6);
		fails++;
	} else {
		printf("ok   %s: fired %.3f ms after its deadline\n", name,
		       (double)d / 1e6);
	}
}

static void must(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int64_t rt0 = now_ns(CLOCK_REALTIME), tai0 = now_ns(CLOCK_TAI);
	int64_t dl, dl_tai, late = 100 * 1000000LL, end, per_n = 0;
	struct itimerspec its;
	struct sigevent sev;
	timer_t tsig, tthr, ttai;
	sigset_t ss;
	int tfd, tper, texp, sfd, done[T_N] = { 0 }, left = T_N;
	uint64_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: step_timers DEADLINE [LATE_MS]\n");
		return 2;
	}
	if (strncmp(argv[1], "N+", 2) == 0)
		dl = rt0 + (int64_t)(strtod(argv[1] + 2, NULL) * 1e9);
	else
		dl = (int64_t)(strtod(argv[1], NULL) * 1e9);
	if (argc > 2)
		late = (int64_t)(strtod(argv[2], NULL) * 1e6);
	dl_tai = tai0 + (dl - rt0);

	sigemptyset(&ss);
	sigaddset(&ss, SIGRTMIN);
	sigaddset(&ss, SIGRTMIN + 1);
	must(sigprocmask(SIG_BLOCK, &ss, NULL) == 0, "sigprocmask");
	sfd = signalfd(-1, &ss, SFD_CLOEXEC);
	must(sfd >= 0, "signalfd");
	must(pipe(thread_pipe) == 0, "pipe");

	memset(&its, 0, sizeof(its));
	its.it_value = ts_of(dl);
	tfd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
	must(tfd >= 0, "timerfd_create");
	must(timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0,
	     "timerfd_settime tfd");
	tper = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
	must(tper >= 0, "timerfd_create");
	its.it_interval = ts_of(PERIOD);
	must(timerfd_settime(tper, TFD_TIMER_ABSTIME, &its, NULL) == 0,
	     "timerfd_settime tfdper");
	its.it_interval = ts_of(0);

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN;
	must(timer_create(CLOCK_REALTIME, &sev, &tsig) == 0, "timer_create");
	must(timer_settime(tsig, TIMER_ABSTIME, &its, NULL) == 0,
	     "timer_settime signal");
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = on_thread;
	must(timer_create(CLOCK_REALTIME, &sev, &tthr) == 0, "timer_create");
	must(timer_settime(tthr, TIMER_ABSTIME, &its, NULL) == 0,
	     "timer_settime thread");
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN + 1;
	must(timer_create(CLOCK_TAI, &sev, &ttai) == 0, "timer_create TAI");
	its.it_value = ts_of(dl_tai);
	must(timer_settime(ttai, TIMER_ABSTIME, &its, NULL) == 0,
	     "timer_settime tai");

	texp = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	must(texp >= 0, "timerfd_create");
	its.it_value = ts_of(now_ns(CLOCK_REALTIME) + 50000000);
	must(timerfd_settime(texp, TFD_TIMER_ABSTIME, &its, NULL) == 0,
	     "timerfd_settime expired");
	{
		struct timespec s = { 0, 100000000 };

		nanosleep(&s, NULL);
	}
	printf("armed\n");
	fflush(stdout);

	end = now_ns(CLOCK_MONOTONIC) + (dl - rt0) + 5 * E9;
	while (left > 0 && now_ns(CLOCK_MONOTONIC) < end) {
		struct pollfd p[4] = { { tfd, POLLIN, 0 },
			               { tper, POLLIN, 0 },
			               { sfd, POLLIN, 0 },
			               { thread_pipe[0], POLLIN, 0 } };

		if (poll(p, 4, 100) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			int64_t c = now_ns(CLOCK_REALTIME);

			must(read(tfd, &n, 8) == 8, "read tfd");
			judge(names[T_TFD], c, dl, late);
			done[T_TFD] = 1;
			left--;
			close(tfd);
			tfd = -1;
		}
		if (p[1].revents & POLLIN) {
			int64_t c = now_ns(CLOCK_REALTIME);
			int64_t k;

			must(read(tper, &n, 8) == 8, "read tfdper");
			k = per_n;
			per_n += (int64_t)n;
			/* the first expiration read, then the second */
			if (k == 0)
				judge("tfdper", c, dl, late);
			if (per_n >= 2) {
				judge("tfdper#2", c, dl + PERIOD,
				      late + (per_n > 2 ? PERIOD : 0));
				done[T_TFDPER] = 1;
				left--;
				close(tper);
				tper = -1;
			}
		}
		if (p[2].revents & POLLIN) {
			struct signalfd_siginfo si;
			int64_t c = now_ns(CLOCK_REALTIME);
			int64_t ct = now_ns(CLOCK_TAI);

			must(read(sfd, &si, sizeof(si)) == sizeof(si),
			     "read signalfd");
			if ((int)si.ssi_signo == SIGRTMIN && !done[T_SIGNAL]) {
				judge(names[T_SIGNAL], c, dl, late);
				done[T_SIGNAL] = 1;
				left--;
			} else if ((int)si.ssi_signo == SIGRTMIN + 1 &&
			           !done[T_TAI]) {
				judge(names[T_TAI], ct, dl_tai, late);
				done[T_TAI] = 1;
				left--;
			} else {
				printf("FAIL a second signal %d\n",
				       (int)si.ssi_signo);
				fails++;
			}
		}
		if (p[3].revents & POLLIN) {
			int64_t c;

			must(read(thread_pipe[0], &c, 8) == 8, "read pipe");
			if (!done[T_THREAD]) {
				judge(names[T_THREAD], c, dl, late);
				done[T_THREAD] = 1;
				left--;
			} else {
				printf("FAIL thread: a second callback\n");
				fails++;
			}
		}
	}
	for (int i = 0; i < T_N; i++) {
		if (!done[i]) {
			printf("FAIL %s: never fired\n", names[i]);
			fails++;
		}
	}
	if (read(texp, &n, 8) == 8 && n == 1) {
		printf("ok   expired: its one expiration is still there\n");
	} else {
		printf("FAIL expired: a timerfd that expired before the step "
		       "lost its expiration\n");
		fails++;
	}
	return fails ? 1 : 0;
}
