/*
 * preload_timers.c - an ordinary program (it knows nothing of leapclock)
 * that the preload tests run under the shim: it waits for absolute
 * CLOCK_REALTIME deadlines in every way POSIX offers and reports what its
 * clocks read when each wait ended, reads the adjtimex state, and tries to
 * set the clock.
 *
 * usage: preload_timers STEP...
 *   MECH@DEADLINE[@TAIUTC[@LATE]]
 *                        wait until DEADLINE with MECH: timer,
 *                        threadtimer (a SIGEV_THREAD timer), timerfd,
 *                        nanosleep, cond (pthread_cond_timedwait),
 *                        condclock (pthread_cond_clockwait), sem
 *                        (sem_timedwait), semclock (sem_clockwait), mutex
 *                        (pthread_mutex_timedlock), mutexclock
 *                        (pthread_mutex_clocklock), rwlock
 *                        (pthread_rwlock_timedwrlock), rwlockrd
 *                        (pthread_rwlock_timedrdlock), rwlockclockrd,
 *                        rwlockclockwr (pthread_rwlock_clock*lock), cnd
 *                        (cnd_timedwait), mtx (mtx_timedlock), join
 *                        (pthread_timedjoin_np), clockjoin
 *                        (pthread_clockjoin_np), mqsend, mqrecv
 *                        (mq_timedsend, mq_timedreceive: "skip" where
 *                        mq_open fails); taitimer: a CLOCK_TAI timer at
 *                        DEADLINE + TAIUTC. The clock* forms wait on
 *                        CLOCK_REALTIME. DEADLINE is POSIX seconds
 *                        ("1483228800.25"), relative to the leap L
 *                        ("L+0.25", "L-1.5": L is the POSIX second of the
 *                        00:00:00 after the leap, from LEAPCLOCK_EXTRA_LEAP
 *                        or PRELOAD_TEST_LEAP), or relative to the
 *                        program's realtime when the step starts ("N+1"),
 *                        which also checks that the wait took that long on
 *                        CLOCK_MONOTONIC (-0.1 s, +2 s). Checks that
 *                        CLOCK_REALTIME read right after the wait is at or
 *                        past DEADLINE (never early) and less than 0.5 s
 *                        past it; a wait still blocked after 20 s fails
 *                        and ends the program; with TAIUTC (the TAI-UTC the
 *                        caller derived for the first instant realtime
 *                        reaches DEADLINE) also that CLOCK_TAI is at or
 *                        past DEADLINE + TAIUTC and within 0.5 s of it.
 *                        LATE (seconds, default 0): a deadline inside a
 *                        deleted second is first reached LATE s after it,
 *                        at 00:00:00; both checks are shifted by LATE.
 *   state@DEADLINE@N     sleep until DEADLINE, then check that adjtimex
 *                        (modes 0) returns clock state N.
 *   settime              clock_settime, settimeofday, adjtimex with a mode
 *                        and clock_adjtime with a mode must all fail with
 *                        EPERM.
 *   threads@SECONDS      4 threads and a 1 kHz SIGALRM handler read
 *                        CLOCK_REALTIME and CLOCK_TAI for SECONDS: TAI never
 *                        goes back in any thread or in the handler, and
 *                        TAI - REALTIME is always within 1 ms of a whole
 *                        number of seconds (a leap changes it by exactly 1
 *                        s, nothing else does); with LEAPCLOCK_MODE=smear:*
 *                        instead REALTIME strictly increases in each.
 *   fork                 a forked child's CLOCK_TAI lies between the
 *                        parent's readings before and after it, and a child
 *                        that execs `date` (via sh) prints the same year.
 *   forktimer            the parent has a CLOCK_REALTIME timer; a forked
 *                        child creates CLOCK_MONOTONIC timers until one
 *                        gets the parent's timer id, arms it at its
 *                        CLOCK_MONOTONIC + 1 s (absolute), and must wait
 *                        1 s for it (the shim once took it for the
 *                        parent's realtime timer and fired it at once);
 *                        then the parent's realtime timer, armed at its
 *                        realtime + 0.5 s, must not fire early.
 * Prints one "ok"/"FAIL" line per step; exits 1 if any step failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static int fails;

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

static int64_t leap_sec(void)
{
	const char *e = getenv("LEAPCLOCK_EXTRA_LEAP");

	if (e == NULL || *e == '\0')
		e = getenv("PRELOAD_TEST_LEAP");
	if (e == NULL || *e == '\0') {
		fprintf(stderr, "preload_timers: no leap known for L\n");
		exit(2);
	}
	return strtoll(e, NULL, 10);
}

/* "1483228800.25", "L+0.25", "L-1.5" or "N+1" as POSIX ns */
static int64_t parse_deadline(const char *s)
{
	int64_t base = 0;
	double off;

	if (*s == 'L') {
		base = leap_sec() * 1000000000;
		s++;
	} else if (*s == 'N') {
		base = now(CLOCK_REALTIME);
		s++;
	}
	off = strtod(s, NULL);
	return base + (int64_t)(off * 1e9 + (off < 0 ? -0.5 : 0.5));
}

static void wait_timer(clockid_t clk, int64_t d)
{
	struct sigevent sev;
	struct itimerspec its;
	sigset_t set;
	timer_t t;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN;
	if (timer_create(clk, &sev, &t) != 0) {
		perror("timer_create");
		exit(2);
	}
	memset(&its, 0, sizeof(its));
	its.it_value = ts_of(d);
	if (timer_settime(t, TIMER_ABSTIME, &its, NULL) != 0) {
		perror("timer_settime");
		exit(2);
	}
	sigwait(&set, &sig);
	timer_delete(t);
}

static void thread_timer_fired(union sigval v)
{
	sem_post(v.sival_ptr);
}

/* A SIGEV_THREAD timer: glibc's timer_t for it is INTPTR_MIN | pointer >>
 * 1, which a shim that packs flags into a timer_t's top bits loses. Waits
 * at most 10 s of the host's MONOTONIC for it. */
static void wait_thread_timer(clockid_t clk, int64_t d)
{
	struct sigevent sev;
	struct itimerspec its;
	struct timespec limit;
	sem_t done;
	timer_t t;

	sem_init(&done, 0, 0);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = thread_timer_fired;
	sev.sigev_value.sival_ptr = &done;
	if (timer_create(clk, &sev, &t) != 0) {
		perror("timer_create");
		exit(2);
	}
	memset(&its, 0, sizeof(its));
	its.it_value = ts_of(d);
	if (timer_settime(t, TIMER_ABSTIME, &its, NULL) != 0) {
		perror("timer_settime");
		exit(2);
	}
	limit = ts_of(now(CLOCK_MONOTONIC) + INT64_C(10000000000));
	while (sem_clockwait(&done, CLOCK_MONOTONIC, &limit) != 0) {
		if (errno != EINTR) {
			printf("FAIL threadtimer: no callback within 10 s\n");
			fails++;
			break;
		}
	}
	timer_delete(t);
	sem_destroy(&done);
}

static void wait_timerfd(int64_t d)
{
	struct itimerspec its;
	uint64_t n;
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);

	if (fd < 0) {
		perror("timerfd_create");
		exit(2);
	}
	memset(&its, 0, sizeof(its));
	its.it_value = ts_of(d);
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
		perror("timerfd_settime");
		exit(2);
	}
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		perror("read timerfd");
	close(fd);
}

static void wait_nanosleep(int64_t d)
{
	struct timespec ts = ts_of(d);

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void wait_cond(int64_t d)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec ts = ts_of(d);

	pthread_mutex_lock(&m);
	while (pthread_cond_timedwait(&c, &m, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&m);
}

static void wait_sem(int64_t d)
{
	struct timespec ts = ts_of(d);
	sem_t s;

	sem_init(&s, 0, 0);
	while (sem_timedwait(&s, &ts) != 0 && errno != ETIMEDOUT)
		;
	sem_destroy(&s);
}

static void *hold(void *arg)
{
	pthread_mutex_lock(arg);
	return NULL;
}

static void wait_mutex(int64_t d)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec ts = ts_of(d);
	pthread_t th;

	/* held by another (finished) thread: never available */
	pthread_create(&th, NULL, hold, &m);
	pthread_join(th, NULL);
	while (pthread_mutex_timedlock(&m, &ts) != ETIMEDOUT)
		;
}

static void wait_rwlock(int64_t d)
{
	static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	struct timespec ts = ts_of(d);

	pthread_rwlock_rdlock(&l);
	while (pthread_rwlock_timedwrlock(&l, &ts) != ETIMEDOUT)
		;
}

/* ---- the other absolute CLOCK_REALTIME deadlines of glibc ---------------- */

static void wait_condclock(int64_t d)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec ts = ts_of(d);

	pthread_mutex_lock(&m);
	while (pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &ts) !=
	       ETIMEDOUT)
		;
	pthread_mutex_unlock(&m);
}

static void wait_semclock(int64_t d)
{
	struct timespec ts = ts_of(d);
	sem_t s;

	sem_init(&s, 0, 0);
	while (sem_clockwait(&s, CLOCK_REALTIME, &ts) != 0 && errno != ETIMEDOUT)
		;
	sem_destroy(&s);
}

/* A mutex held by a finished thread: never available (locked once). */
static pthread_mutex_t *held_mutex(void)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static int held;
	pthread_t th;

	if (!held) {
		pthread_create(&th, NULL, hold, &m);
		pthread_join(th, NULL);
		held = 1;
	}
	return &m;
}

static void wait_mutexclock(int64_t d)
{
	struct timespec ts = ts_of(d);

	while (pthread_mutex_clocklock(held_mutex(), CLOCK_REALTIME, &ts) !=
	       ETIMEDOUT)
		;
}

static void *hold_wr(void *arg)
{
	pthread_rwlock_wrlock(arg);
	return NULL;
}

/* A rwlock write-locked by a finished thread: no reader, no writer gets it
 * (a thread that holds the write lock itself gets EDEADLK, not a wait). */
static pthread_rwlock_t *held_rwlock(void)
{
	static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	static int held;
	pthread_t th;

	if (!held) {
		pthread_create(&th, NULL, hold_wr, &l);
		pthread_join(th, NULL);
		held = 1;
	}
	return &l;
}

static void wait_rwlockrd(int64_t d)
{
	struct timespec ts = ts_of(d);

	while (pthread_rwlock_timedrdlock(held_rwlock(), &ts) != ETIMEDOUT)
		;
}

static void wait_rwlockclock(int64_t d, int wr)
{
	struct timespec ts = ts_of(d);
	pthread_rwlock_t *l = held_rwlock();

	while ((wr ? pthread_rwlock_clockwrlock(l, CLOCK_REALTIME, &ts)
	           : pthread_rwlock_clockrdlock(l, CLOCK_REALTIME, &ts)) !=
	       ETIMEDOUT)
		;
}

static void wait_cnd(int64_t d)
{
	struct timespec ts = ts_of(d);
	mtx_t m;
	cnd_t c;

	mtx_init(&m, mtx_plain);
	cnd_init(&c);
	mtx_lock(&m);
	while (cnd_timedwait(&c, &m, &ts) != thrd_timedout)
		;
	mtx_unlock(&m);
	cnd_destroy(&c);
	mtx_destroy(&m);
}

static int hold_mtx(void *arg)
{
	mtx_lock(arg);
	return 0;
}

static mtx_t *held_mtx(void)
{
	static mtx_t m;
	static int held;
	thrd_t th;

	if (!held) {
		mtx_init(&m, mtx_timed);
		thrd_create(&th, hold_mtx, &m);
		thrd_join(th, NULL);
		held = 1;
	}
	return &m;
}

static void wait_mtx(int64_t d)
{
	struct timespec ts = ts_of(d);

	while (mtx_timedlock(held_mtx(), &ts) != thrd_timedout)
		;
}

/* The locks held by finished threads, made before an "N+x" deadline is
 * read, so that making them (a thread each) does not eat into the wait. */
static void prepare(const char *mech)
{
	if (strcmp(mech, "mutexclock") == 0)
		held_mutex();
	else if (strncmp(mech, "rwlockclock", 11) == 0 ||
	         strcmp(mech, "rwlockrd") == 0)
		held_rwlock();
	else if (strcmp(mech, "mtx") == 0)
		held_mtx();
}

static void *block_on(void *arg)
{
	char c;

	if (read(*(int *)arg, &c, 1) < 0)
		perror("read");
	return NULL;
}

/* A thread that runs until we let it go. */
static void wait_join(int64_t d, int clock)
{
	struct timespec ts = ts_of(d);
	pthread_t th;
	int fd[2];

	if (pipe(fd) != 0) {
		perror("pipe");
		exit(2);
	}
	pthread_create(&th, NULL, block_on, &fd[0]);
	while ((clock ? pthread_clockjoin_np(th, NULL, CLOCK_REALTIME, &ts)
	              : pthread_timedjoin_np(th, NULL, &ts)) != ETIMEDOUT)
		;
	if (write(fd[1], "x", 1) != 1)
		perror("write");
	pthread_join(th, NULL);
	close(fd[0]);
	close(fd[1]);
}

/* 0 once the wait timed out; -1 if this system has no message queues. */
static int wait_mq(int64_t d, int send)
{
	struct mq_attr a = { .mq_maxmsg = 1, .mq_msgsize = 8 };
	struct timespec ts = ts_of(d);
	char name[64], buf[8] = "leap";
	mqd_t q;

	snprintf(name, sizeof(name), "/lc-preload-timers-%d", (int)getpid());
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &a);
	if (q == (mqd_t)-1) {
		printf("skip mq%s: mq_open: %s\n", send ? "send" : "recv",
		       strerror(errno));
		return -1;
	}
	mq_unlink(name);
	if (send && mq_send(q, buf, sizeof(buf), 0) != 0) { /* now full */
		perror("mq_send");
		exit(2);
	}
	while ((send ? mq_timedsend(q, buf, sizeof(buf), 0, &ts)
	             : (int)mq_timedreceive(q, buf, sizeof(buf), NULL,
	                                    &ts)) >= 0 ||
	       errno != ETIMEDOUT)
		;
	mq_close(q);
	return 0;
}

static void report(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		fails++;
}

static char watchdog_msg[160];

static void on_watchdog(int sig)
{
	(void)sig;
	if (write(1, watchdog_msg, strlen(watchdog_msg)) < 0)
		_exit(1);
	_exit(1);
}

/* A wait that never ends fails (and ends the program) after 20 s. */
static void watchdog(const char *mech, int64_t d)
{
	snprintf(watchdog_msg, sizeof(watchdog_msg),
	         "FAIL %s deadline %.6f: still waiting after 20 s\n", mech,
	         d / 1e9);
	signal(SIGALRM, on_watchdog);
	alarm(20);
}

/* `dur`: for an "N+x" deadline, the wait must take x s of MONOTONIC
 * (-1: not checked). */
static void step_wait(const char *mech, int64_t d, const char *taiutc,
                      const char *late_s, int64_t dur)
{
	int64_t rt, tai, late, late_min = 0, m0 = now(CLOCK_MONOTONIC);
	int skipped = 0;
	char msg[256];

	watchdog(mech, d);
	if (strcmp(mech, "timer") == 0)
		wait_timer(CLOCK_REALTIME, d);
	else if (strcmp(mech, "threadtimer") == 0)
		wait_thread_timer(CLOCK_REALTIME, d);
	else if (strcmp(mech, "taitimer") == 0 && taiutc != NULL)
		wait_timer(CLOCK_TAI, d + (int64_t)atoi(taiutc) * 1000000000);
	else if (strcmp(mech, "timerfd") == 0)
		wait_timerfd(d);
	else if (strcmp(mech, "nanosleep") == 0)
		wait_nanosleep(d);
	else if (strcmp(mech, "cond") == 0)
		wait_cond(d);
	else if (strcmp(mech, "sem") == 0)
		wait_sem(d);
	else if (strcmp(mech, "mutex") == 0)
		wait_mutex(d);
	else if (strcmp(mech, "rwlock") == 0)
		wait_rwlock(d);
	else if (strcmp(mech, "condclock") == 0)
		wait_condclock(d);
	else if (strcmp(mech, "semclock") == 0)
		wait_semclock(d);
	else if (strcmp(mech, "mutexclock") == 0)
		wait_mutexclock(d);
	else if (strcmp(mech, "rwlockrd") == 0)
		wait_rwlockrd(d);
	else if (strcmp(mech, "rwlockclockrd") == 0)
		wait_rwlockclock(d, 0);
	else if (strcmp(mech, "rwlockclockwr") == 0)
		wait_rwlockclock(d, 1);
	else if (strcmp(mech, "cnd") == 0)
		wait_cnd(d);
	else if (strcmp(mech, "mtx") == 0)
		wait_mtx(d);
	else if (strcmp(mech, "join") == 0)
		wait_join(d, 0);
	else if (strcmp(mech, "clockjoin") == 0)
		wait_join(d, 1);
	else if (strcmp(mech, "mqsend") == 0)
		skipped = wait_mq(d, 1) < 0;
	else if (strcmp(mech, "mqrecv") == 0)
		skipped = wait_mq(d, 0) < 0;
	else {
		fprintf(stderr, "preload_timers: unknown mechanism %s\n", mech);
		exit(2);
	}
	rt = now(CLOCK_REALTIME);
	tai = now(CLOCK_TAI);
	m0 = now(CLOCK_MONOTONIC) - m0;
	alarm(0);
	if (skipped)
		return;
	if (late_s != NULL)
		late_min = (int64_t)(strtod(late_s, NULL) * 1e9 + 0.5);
	late = rt - d - late_min;
	snprintf(msg, sizeof(msg),
	         "%s deadline %.6f: realtime %.6f (%+.6f s) tai %.6f", mech,
	         d / 1e9, rt / 1e9, (rt - d) / 1e9, tai / 1e9);
	report(late >= 0 && late < 500000000, msg);
	if (dur >= 0) {
		snprintf(msg, sizeof(msg),
		         "%s: waited %.6f s of CLOCK_MONOTONIC for a deadline "
		         "%.3f s ahead", mech, m0 / 1e9, dur / 1e9);
		report(m0 >= dur - 100000000 && m0 < dur + 2000000000, msg);
	}
	if (taiutc != NULL) {
		int64_t want = d + late_min +
		               (int64_t)atoi(taiutc) * 1000000000;

		snprintf(msg, sizeof(msg),
		         "%s: TAI %.6f at or just past %.6f (deadline + %s s)",
		         mech, tai / 1e9, want / 1e9, taiutc);
		report(tai >= want && tai - want < 500000000, msg);
	}
}

static void step_state(int64_t d, int want)
{
	struct timex tx;
	char msg[128];
	int rc;

	wait_nanosleep(d);
	memset(&tx, 0, sizeof(tx));
	rc = adjtimex(&tx);
	snprintf(msg, sizeof(msg), "adjtimex at %.3f: state %d (want %d), "
	         "tai %ld", d / 1e9, rc, want, (long)tx.tai);
	report(rc == want, msg);
}

static void expect_eperm(int rc, const char *what)
{
	char msg[128];
	int e = errno;

	snprintf(msg, sizeof(msg), "%s -> %d (%s)", what, rc,
	         rc == 0 ? "success" : strerror(e));
	report(rc == -1 && e == EPERM, msg);
}

static void step_settime(void)
{
	struct timespec ts;
	struct timeval tv;
	struct timex tx;

	clock_gettime(CLOCK_REALTIME, &ts);
	tv.tv_sec = ts.tv_sec;
	tv.tv_usec = 0;
	errno = 0;
	expect_eperm(clock_settime(CLOCK_REALTIME, &ts), "clock_settime");
	expect_eperm(clock_settime(CLOCK_TAI, &ts), "clock_settime(TAI)");
	expect_eperm(settimeofday(&tv, NULL), "settimeofday");
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET | ADJ_NANO;
	tx.time.tv_sec = 0;
	tx.time.tv_usec = 1; /* 1 ns, should it ever get through */
	expect_eperm(adjtimex(&tx), "adjtimex(ADJ_SETOFFSET)");
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_INS;
	expect_eperm(ntp_adjtime(&tx), "ntp_adjtime(ADJ_STATUS, STA_INS)");
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	expect_eperm(clock_adjtime(CLOCK_REALTIME, &tx),
	             "clock_adjtime(ADJ_FREQUENCY)");
}

/* ---- threads, a signal handler, fork ------------------------------------- */

static atomic_int stop_flag;
static int smear_mode;
static int64_t handler_last_rt;
static atomic_long bad_reads, handler_reads;
static int64_t handler_last_tai;

/* TAI - REALTIME must be a whole number of seconds (within 1 ms: the two
 * reads are not simultaneous). */
static int whole(int64_t d)
{
	int64_t r = d % 1000000000;

	if (r < 0)
		r += 1000000000;
	return r < 1000000 || r > 999000000;
}

static void on_alarm(int sig)
{
	int64_t t = now(CLOCK_TAI), r = now(CLOCK_REALTIME);

	(void)sig;
	if (t < handler_last_tai ||
	    (smear_mode ? r <= handler_last_rt : !whole(now(CLOCK_TAI) - r)))
		atomic_fetch_add(&bad_reads, 1);
	handler_last_tai = t;
	handler_last_rt = r;
	atomic_fetch_add(&handler_reads, 1);
}

static void *reader(void *arg)
{
	int64_t last = 0, last_rt = 0;
	long n = 0;

	(void)arg;
	while (!atomic_load(&stop_flag)) {
		int64_t a = now(CLOCK_TAI), r = now(CLOCK_REALTIME);
		int64_t b = now(CLOCK_TAI);

		if (a < last || b < a ||
		    (smear_mode ? r <= last_rt
		                : (b - a < 1000000 && !whole(a - r))))
			atomic_fetch_add(&bad_reads, 1);
		last = b;
		last_rt = r;
		n++;
	}
	return (void *)n;
}

static void step_threads(double secs)
{
	pthread_t th[4];
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	int64_t end = now(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9);
	struct timespec d = ts_of(end);
	const char *mode = getenv("LEAPCLOCK_MODE");
	long total = 0;
	char msg[160];

	smear_mode = mode != NULL && strncmp(mode, "smear:", 6) == 0;
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL) ==
	       EINTR)
		;
	atomic_store(&stop_flag, 1);
	for (int i = 0; i < 4; i++) {
		void *n;

		pthread_join(th[i], &n);
		total += (long)n;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	snprintf(msg, sizeof(msg),
	         "threads: %ld reads in 4 threads, %ld in a SIGALRM handler, "
	         "%ld inconsistent", total, (long)atomic_load(&handler_reads),
	         (long)atomic_load(&bad_reads));
	report(atomic_load(&bad_reads) == 0 && total > 1000 &&
	               atomic_load(&handler_reads) > 10,
	       msg);
}

static void step_fork(void)
{
	int fd[2], status;
	int64_t before, after, child = 0;
	char msg[160], year[16] = "", want[32];
	int y0, y1;
	time_t t;
	struct tm tm;
	FILE *f;
	pid_t pid;

	if (pipe(fd) != 0)
		return;
	before = now(CLOCK_TAI);
	pid = fork();
	if (pid == 0) {
		int64_t v = now(CLOCK_TAI);

		if (write(fd[1], &v, sizeof(v)) != sizeof(v))
			_exit(1);
		_exit(0);
	}
	if (read(fd[0], &child, sizeof(child)) != sizeof(child))
		child = 0;
	waitpid(pid, &status, 0);
	after = now(CLOCK_TAI);
	snprintf(msg, sizeof(msg), "fork: child's TAI %.6f between the "
	         "parent's %.6f and %.6f", child / 1e9, before / 1e9,
	         after / 1e9);
	report(before <= child && child <= after, msg);
	close(fd[0]);
	close(fd[1]);
	/* The year is read before and after `date` runs: near a new year
	 * (the tests pretend to be at 2016-12-31T23:59:5x) the child may
	 * rightly print either. */
	t = time(NULL);
	gmtime_r(&t, &tm);
	y0 = tm.tm_year + 1900;
	f = popen("date -u +%Y", "r");
	if (f != NULL) {
		if (fgets(year, sizeof(year), f) == NULL)
			year[0] = '\0';
		pclose(f);
	}
	t = time(NULL);
	gmtime_r(&t, &tm);
	y1 = tm.tm_year + 1900;
	year[strcspn(year, "\n")] = '\0';
	snprintf(want, sizeof(want), "%d", y0);
	if (y1 != y0)
		snprintf(want, sizeof(want), "%d..%d", y0, y1);
	snprintf(msg, sizeof(msg), "fork+exec: date prints year %s, this "
	         "program reads %s", year, want);
	report(year[0] != '\0' && atoi(year) >= y0 && atoi(year) <= y1, msg);
}

/* Arms `t` at the absolute `d` on its clock and waits for SIGRTMIN
 * (blocked by the caller). */
static void arm_and_wait(timer_t t, int64_t d)
{
	struct itimerspec its;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	memset(&its, 0, sizeof(its));
	its.it_value = ts_of(d);
	if (timer_settime(t, TIMER_ABSTIME, &its, NULL) != 0) {
		perror("timer_settime");
		_exit(2);
	}
	sigwait(&set, &sig);
}

/* Timers are not inherited by a child (POSIX): its first timers take ids
 * the parent's may have, and the shim must not take them for the
 * parent's. */
static void step_forktimer(void)
{
	struct sigevent sev;
	sigset_t set;
	timer_t pt, ct;
	int64_t d, rt, waited = -1;
	int fd[2], status, same = 0;
	char msg[200];
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN;
	if (pipe(fd) != 0 || timer_create(CLOCK_REALTIME, &sev, &pt) != 0) {
		perror("forktimer");
		exit(2);
	}
	pid = fork();
	if (pid == 0) {
		int64_t v[2] = { -1, 0 };

		for (int i = 0; i < 256; i++) {
			if (timer_create(CLOCK_MONOTONIC, &sev, &ct) != 0)
				break;
			if (ct == pt) {
				v[1] = 1;
				break;
			}
		}
		d = now(CLOCK_MONOTONIC) + 1000000000;
		arm_and_wait(ct, d);
		v[0] = now(CLOCK_MONOTONIC) - (d - 1000000000);
		if (write(fd[1], v, sizeof(v)) != sizeof(v))
			_exit(1);
		_exit(0);
	}
	{
		int64_t v[2];

		if (read(fd[0], v, sizeof(v)) == sizeof(v)) {
			waited = v[0];
			same = (int)v[1];
		}
	}
	waitpid(pid, &status, 0);
	close(fd[0]);
	close(fd[1]);
	snprintf(msg, sizeof(msg),
	         "forktimer: the child's CLOCK_MONOTONIC timer (%s the "
	         "parent's realtime timer's id) at its MONOTONIC + 1 s fired "
	         "after %.6f s", same ? "with" : "without", waited / 1e9);
	report(waited >= 1000000000 && waited < 1500000000, msg);
	d = now(CLOCK_REALTIME) + 500000000;
	arm_and_wait(pt, d);
	rt = now(CLOCK_REALTIME);
	timer_delete(pt);
	snprintf(msg, sizeof(msg),
	         "forktimer: then the parent's CLOCK_REALTIME timer at "
	         "%.6f fired at %.6f (%+.6f s)", d / 1e9, rt / 1e9,
	         (rt - d) / 1e9);
	report(rt >= d && rt - d < 500000000, msg);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		char buf[256], *mech, *dl, *extra, *late;

		snprintf(buf, sizeof(buf), "%s", argv[i]);
		if (strcmp(buf, "settime") == 0) {
			step_settime();
			continue;
		}
		if (strcmp(buf, "fork") == 0) {
			step_fork();
			continue;
		}
		if (strcmp(buf, "forktimer") == 0) {
			step_forktimer();
			continue;
		}
		if (strncmp(buf, "threads@", 8) == 0) {
			step_threads(strtod(buf + 8, NULL));
			continue;
		}
		mech = strtok(buf, "@");
		dl = strtok(NULL, "@");
		extra = strtok(NULL, "@");
		late = strtok(NULL, "@");
		if (mech == NULL || dl == NULL) {
			fprintf(stderr, "preload_timers: bad step %s\n",
			        argv[i]);
			return 2;
		}
		if (strcmp(mech, "state") == 0) {
			step_state(parse_deadline(dl),
			           extra ? atoi(extra) : -1);
		} else {
			int64_t d;

			prepare(mech);
			d = parse_deadline(dl);

			step_wait(mech, d, extra, late,
			          *dl == 'N' ? d - now(CLOCK_REALTIME) : -1);
		}
	}
	return fails ? 1 : 0;
}
