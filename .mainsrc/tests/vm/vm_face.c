/*
 * vm_face.c - the real-kernel leap test's orchestrator and its libc faces,
 * run inside the VM that tools/vm-kernel-test boots (never on a host).
 *
 *	lc_vm_face run --i-understand-this-sets-the-clock --dir ins|del
 *	    --armed 0|1|2 --offset NS --leapfile PATH --label TEXT
 *	lc_vm_face face bare|shim|ntp [--cpu N] CFG...
 *	lc_vm_face leap --i-understand-this-sets-the-clock --dir ins|del --in S
 *	lc_vm_face leap --i-understand-this-sets-the-clock --clear
 *
 * `run` sets CLOCK_REALTIME to 3.5 s before a leap (2016-12-31 inserted,
 * 2029-06-30 deleted), arms the kernel (STA_INS/STA_DEL) or not, starts
 * leapclockd on /run/leapclock/timeline and the faces, steps the host by
 * --offset (ADJ_SETOFFSET) 1.7 s before the leap, re-arming the kernel after
 * the step (a step drops an armed leap while STA_INS reads back), waits for
 * the faces' verdicts and clears the kernel's leap state. With --armed 2 the
 * whole chain runs instead: the clock is set 8.5 s before the leap, a real
 * chronyd (leapsecmode system) synchronises to leapclockd's utc socket and
 * must arm the kernel itself from the leap leapclockd announces (checked
 * through adjtimex) before the faces start. It refuses to run
 * outside the test VM: CAP_SYS_TIME, the flag, and `lc_vm=1` on the kernel
 * command line are all required.
 *
 * `face` reads clock_gettime(CLOCK_REALTIME) and (CLOCK_TAI), bracketed by
 * CLOCK_MONOTONIC, in a tight loop, with absolute timers for 00:00:00 on
 * REALTIME (clock_nanosleep, timerfd, timer_create) and on TAI
 * (clock_nanosleep); vm_judge.h judges it. `bare` is the kernel itself (the
 * baseline, printed, not judged); `shim` is the same program run with
 * LD_PRELOAD=libleapclock-preload.so (judged). `ntp` asks leapclockd's utc
 * socket for the time every millisecond and judges its answers as REALTIME
 * (they must never be 00:00:00.x before the leap is over, whatever the
 * kernel does) and their LI (the leap announced until it happens).
 */
#define _GNU_SOURCE
#include "vm_judge.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <unistd.h>

#define FLAG     "--i-understand-this-sets-the-clock"
#define PAGE     "/run/leapclock/timeline"
#define NTP_UNIX INT64_C(2208988800)
#define NTP_PORT 11123 /* leapclockd's utc socket in the VM */
#define NTP_PORT_S "11123"

static struct vj g_j;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static int64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return vj_ts_ns(&ts);
}

static void pin(int cpu)
{
	cpu_set_t s;

	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

/* ---- the NTP face: leapclockd probed every millisecond --------------------- */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* One client request to leapclockd's utc socket and its answer: the
 * server's transmit time as POSIX ns (NTP time repeats 23:59:59 during an
 * inserted second, as REALTIME does) and LI. 0, or -1 for no answer. */
static int ntp_ask(int fd, uint64_t cookie, int64_t *rt, int *li, int *kiss)
{
	uint8_t q[48], r[512];

	memset(q, 0, sizeof(q));
	q[0] = 4 << 3 | 3; /* LI 0, version 4, client */
	for (int k = 0; k < 8; k++)
		q[40 + k] = (uint8_t)(cookie >> (56 - 8 * k));
	if (send(fd, q, sizeof(q), 0) != (ssize_t)sizeof(q))
		return -1;
	for (;;) {
		ssize_t n = recv(fd, r, sizeof(r), 0);

		if (n < 0)
			return -1; /* SO_RCVTIMEO */
		if (n < 48 || memcmp(r + 24, q + 40, 8) != 0)
			continue; /* an earlier request's late answer */
		*li = r[0] >> 6;
		*kiss = r[1] == 0;
		*rt = ((int64_t)be32(r + 40) - NTP_UNIX) * VJ_NS +
		      (int64_t)(((uint64_t)be32(r + 44) * (uint64_t)VJ_NS) >> 32);
		return 0;
	}
}

/* The daemon's answers judged as a REALTIME face (no TAI: a reply carries
 * POSIX time only), each bracketed by the request's send and the answer's
 * arrival; until the leap every answer must announce it (LI 1 or 2). */
static int cmd_ntp_face(const struct vj_cfg *c)
{
	struct sockaddr_in a;
	struct timeval tv = {0, 50000};
	struct timespec next;
	int64_t lost = 0, li_bad = 0, kisses = 0, want_li = c->dir > 0 ? 1 : 2;
	uint64_t cookie = 0x6c63766d00000000ULL;
	char extra[96];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	vj_init(&g_j, c);
	g_j.no_tai = 1;
	/* a loopback round trip through the daemon, under emulation; and a
	 * request a millisecond is fewer readings than a tight loop */
	g_j.bracket_max = 2 * VJ_TOL;
	g_j.min_judged = 150;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(NTP_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
		printf("LC-FACE ntp FAIL socket: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		int64_t k1 = vj_ktai(), m1 = now(CLOCK_MONOTONIC), m2, k2, rt;
		int li, kiss;

		if (m1 >= c->end_mono)
			break;
		if (ntp_ask(fd, ++cookie, &rt, &li, &kiss) != 0) {
			lost++;
			continue;
		}
		m2 = now(CLOCK_MONOTONIC);
		k2 = vj_ktai();
		if (kiss) {
			kisses++;
		} else {
			if (m1 >= c->step_mono + VJ_SETTLE &&
			    m2 < g_j.t_host - VJ_TOL && li != want_li)
				li_bad++;
			vj_kreading(&g_j, k1, m1, rt, 0, INT64_MIN, 0, m2, k2);
		}
		/* the next request a millisecond after this one's */
		m1 += VJ_NS / 1000;
		if (m1 > now(CLOCK_MONOTONIC)) {
			next.tv_sec = (time_t)(m1 / VJ_NS);
			next.tv_nsec = (long)(m1 % VJ_NS);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
	}
	close(fd);
	if (kisses)
		g_j.fail_note = "kiss-o'-death";
	else if (li_bad)
		g_j.fail_note = "LI-not-announced";
	snprintf(extra, sizeof(extra),
	         "lost=%" PRId64 " li_bad=%" PRId64 " kisses=%" PRId64, lost,
	         li_bad, kisses);
	return vj_report(&g_j, "ntp", 1, extra);
}

/* ---- the face ---------------------------------------------------------- */

struct ftimer {
	struct vj_timer *t;
	clockid_t clock;
	int kind; /* 0 clock_nanosleep, 1 timerfd, 2 timer_create */
};

static void woke(struct ftimer *f)
{
	int64_t v = now(f->clock), m = now(CLOCK_MONOTONIC), k = vj_ktai();

	pthread_mutex_lock(&g_mu);
	if (f->t->woke == INT64_MIN) {
		f->t->woke = v;
		f->t->woke_mono = m;
		f->t->woke_k = k;
	}
	pthread_mutex_unlock(&g_mu);
}

static void posix_timer_cb(union sigval sv)
{
	woke(sv.sival_ptr);
}

static void *timer_main(void *arg)
{
	struct ftimer *f = arg;
	struct timespec ts = {.tv_sec = f->t->deadline / VJ_NS,
	                      .tv_nsec = f->t->deadline % VJ_NS};

	if (f->kind == 0) {
		int rc;

		do
			rc = clock_nanosleep(f->clock, TIMER_ABSTIME, &ts, NULL);
		while (rc == EINTR);
		if (rc == 0)
			woke(f);
	} else if (f->kind == 1) {
		struct itimerspec it = {.it_value = ts};
		int fd = timerfd_create(f->clock, TFD_CLOEXEC);
		uint64_t n;

		if (fd >= 0 && timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, NULL) == 0 &&
		    read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
			woke(f);
	} else {
		struct itimerspec it = {.it_value = ts};
		struct sigevent ev;
		timer_t id;

		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_THREAD;
		ev.sigev_notify_function = posix_timer_cb;
		ev.sigev_value.sival_ptr = f;
		if (timer_create(f->clock, &ev, &id) == 0)
			timer_settime(id, TIMER_ABSTIME, &it, NULL);
	}
	return NULL;
}

static int cmd_face(int argc, char **argv)
{
	struct vj_cfg c;
	static struct ftimer ft[4];
	int i = 3, cpu = -1, judged;
	int64_t midnight, tai_after;
	const char *face = argv[2];

	memset(&c, 0, sizeof(c));
	if (i + 1 < argc && strcmp(argv[i], "--cpu") == 0) {
		cpu = atoi(argv[i + 1]);
		i += 2;
	}
	if (vj_parse(&c, argc, argv, &i) != 0 || i != argc) {
		fprintf(stderr, "lc_vm_face face: bad arguments\n");
		return 2;
	}
	pin(cpu);
	if (strcmp(face, "ntp") == 0)
		return cmd_ntp_face(&c);
	judged = strcmp(face, "bare") != 0;
	vj_init(&g_j, &c);
	midnight = c.boundary_s + (c.dir > 0 ? 0 : 1);
	tai_after = c.tai_before + c.dir;
	ft[0] = (struct ftimer){vj_timer_add(&g_j, "rt-nanosleep", VJ_RT,
	                                     midnight * VJ_NS),
	                        CLOCK_REALTIME, 0};
	ft[1] = (struct ftimer){vj_timer_add(&g_j, "rt-timerfd", VJ_RT,
	                                     midnight * VJ_NS),
	                        CLOCK_REALTIME, 1};
	ft[2] = (struct ftimer){vj_timer_add(&g_j, "rt-timer_create", VJ_RT,
	                                     midnight * VJ_NS),
	                        CLOCK_REALTIME, 2};
	ft[3] = (struct ftimer){vj_timer_add(&g_j, "tai-nanosleep", VJ_TAI,
	                                     (midnight + tai_after) * VJ_NS),
	                        CLOCK_TAI, 0};
	for (int k = 0; k < 4; k++) {
		pthread_t th;

		pthread_create(&th, NULL, timer_main, &ft[k]);
		pthread_detach(th);
	}
	for (;;) {
		int64_t k1 = vj_ktai();
		int64_t m1 = now(CLOCK_MONOTONIC);
		int64_t rt = now(CLOCK_REALTIME);
		int64_t tai = now(CLOCK_TAI);
		int64_t m2 = now(CLOCK_MONOTONIC);
		int64_t k2 = vj_ktai();

		if (m1 >= c.end_mono)
			break;
		vj_kreading(&g_j, k1, m1, rt, tai, INT64_MIN, 0, m2, k2);
	}
	pthread_mutex_lock(&g_mu);
	return vj_report(&g_j, face, judged, NULL);
}

/* ---- the orchestrator ---------------------------------------------------- */

static int has_cap_sys_time(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return (d[CAP_SYS_TIME / 32].effective >> (CAP_SYS_TIME % 32)) & 1;
}

static int in_test_vm(void)
{
	char buf[4096];
	int fd = open("/proc/cmdline", O_RDONLY), n;

	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, " lc_vm=1") != NULL;
}

static int tx_status(int status)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = status;
	return adjtimex(&tx);
}

/* The kernel's leap state from scratch: PLL on then off resets it to
 * TIME_OK with no next leap (process_adj_status), then STA_INS/STA_DEL arms
 * it at the next second. The frequency, the tick and any adjtime() slew
 * go back to nothing too: a chronyd stopped mid-slew leaves its frequency
 * in the kernel, and the next run would start on a drifting clock. */
static void kernel_arm(int dir, int armed)
{
	struct timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY | ADJ_TICK;
	tx.tick = 1000000 / sysconf(_SC_CLK_TCK);
	adjtimex(&tx);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET_SINGLESHOT;
	adjtimex(&tx);
	tx_status(STA_PLL);
	tx_status(0);
	if (armed)
		tx_status(dir > 0 ? STA_INS : STA_DEL);
}

static pid_t spawn(char *const argv[], char *const env[], const char *out)
{
	pid_t p = fork();

	if (p == 0) {
		if (out != NULL) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		for (int k = 0; env != NULL && env[k] != NULL; k++)
			putenv(env[k]);
		execv(argv[0], argv);
		_exit(127);
	}
	return p;
}

static void sleep_until_mono(int64_t t)
{
	struct timespec ts = {.tv_sec = t / VJ_NS, .tv_nsec = t % VJ_NS};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

enum { NFACES = 5 };

#define CHRONY_CONF "/tmp/chrony.conf"

/* chronyd as a host would run it, synchronised to leapclockd's utc socket
 * (polled 16 times a second so it is synchronised within seconds), arming
 * the kernel's leap itself (leapsecmode system). */
static pid_t start_chronyd(void)
{
	FILE *f = fopen(CHRONY_CONF, "w");
	char *av[] = {"/bin/chronyd", "-d", "-u", "root", "-f", CHRONY_CONF,
	              NULL};

	if (f == NULL)
		return -1;
	fprintf(f, "server 127.0.0.1 port %d minpoll -4 maxpoll -4 iburst\n"
	           "leapsecmode system\n"
	           "makestep 1 -1\n"
	           "cmdport 0\n"
	           "bindcmdaddress /\n"
	           "pidfile /tmp/chronyd.pid\n",
	        NTP_PORT);
	fclose(f);
	return spawn(av, NULL, "/tmp/chronyd.log");
}

/* Waits until the kernel's leap is armed the way `dir` asks (chronyd does
 * it), or MONOTONIC `until`; the MONOTONIC it saw it at, or -1. */
static int64_t wait_kernel_armed(int dir, int64_t until)
{
	int want = dir > 0 ? STA_INS : STA_DEL;

	while (now(CLOCK_MONOTONIC) < until) {
		struct timex tx;

		memset(&tx, 0, sizeof(tx));
		if (adjtimex(&tx) >= 0 && (tx.status & want))
			return now(CLOCK_MONOTONIC);
		usleep(5000);
	}
	return -1;
}

static int cmd_run(int argc, char **argv)
{
	const char *leapfile = NULL, *label = "run";
	int dir = 0, armed = 0, agreed = 0, fails = 0, tai_before;
	int64_t offset = 0, midnight, boundary, set_rt, set_mono, t_true;
	int64_t step_mono, end_mono, m1, m2;
	struct timespec ts;
	struct timex tx;
	char cfg[8][32], *cfgv[17];
	int64_t lead, armed_at = -1;
	pid_t ld, chrony = -1, kids[NFACES];
	static const char *const names[NFACES] = {"lib", "lib-inproc", "shim",
	                                          "bare", "ntp"};

	for (int i = 2; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (strcmp(k, FLAG) == 0) {
			agreed = 1;
			continue;
		}
		i++;
		if (strcmp(k, "--dir") == 0)
			dir = strcmp(v, "del") == 0 ? -1 : strcmp(v, "ins") == 0;
		else if (strcmp(k, "--armed") == 0)
			armed = atoi(v);
		else if (strcmp(k, "--offset") == 0)
			offset = strtoll(v, NULL, 10);
		else if (strcmp(k, "--leapfile") == 0)
			leapfile = v;
		else if (strcmp(k, "--label") == 0)
			label = v;
		else {
			fprintf(stderr, "lc_vm_face run: unknown option %s\n", k);
			return 2;
		}
	}
	if (!agreed || !has_cap_sys_time() || !in_test_vm()) {
		fprintf(stderr, "lc_vm_face run: refusing: this sets the clock; "
		                "it runs only in the test VM (" FLAG
		                ", CAP_SYS_TIME and lc_vm=1 on the kernel "
		                "command line)\n");
		return 2;
	}
	if (dir == 0 || leapfile == NULL) {
		fprintf(stderr, "lc_vm_face run: --dir ins|del and --leapfile "
		                "are required\n");
		return 2;
	}
	/* 2017-01-01 (TAI-UTC 36 -> 37) or 2029-07-01 (37 -> 36) */
	midnight = dir > 0 ? INT64_C(1483228800) : INT64_C(1877558400);
	boundary = dir > 0 ? midnight : midnight - 1;
	tai_before = dir > 0 ? 36 : 37;

	/* --armed 2: chronyd arms the kernel, once it has synchronised */
	lead = armed == 2 ? 9 : 4;
	ts.tv_sec = (time_t)(boundary - lead);
	ts.tv_nsec = 500000000;
	if (clock_settime(CLOCK_REALTIME, &ts) != 0) {
		perror("lc_vm_face run: clock_settime");
		return 1;
	}
	m1 = now(CLOCK_MONOTONIC);
	set_rt = now(CLOCK_REALTIME);
	m2 = now(CLOCK_MONOTONIC);
	set_mono = m1 + (m2 - m1) / 2;
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = tai_before;
	adjtimex(&tx);
	kernel_arm(dir, armed == 1);
	t_true = set_mono + (boundary * VJ_NS - set_rt);
	step_mono = t_true - INT64_C(1700000000);
	end_mono = t_true + INT64_C(2500000000);

	/* the writer, on a fresh page */
	unlink(PAGE);
	mkdir("/run", 0755);
	mkdir("/run/leapclock", 0755);
	{
		char *av[] = {"/bin/leapclockd", "-d", "--timeline", PAGE,
		              "--leapfile", (char *)leapfile,
		              "--listen", "127.0.0.1:" NTP_PORT_S "=utc",
		              "--ratelimit", "off", NULL};
		ld = spawn(av, NULL, "/tmp/leapclockd.log");
	}
	for (int k = 0; k < 100 && access(PAGE, R_OK) != 0; k++)
		usleep(10000);
	usleep(100000);
	if (armed == 2) {
		chrony = start_chronyd();
		armed_at = wait_kernel_armed(dir, step_mono - VJ_NS / 2);
		printf("LC-FACE chrony %s armed=%s after=%.3fs\n",
		       armed_at < 0 ? "FAIL" : "PASS",
		       armed_at < 0 ? "no" : "yes",
		       armed_at < 0 ? -1.0 : (double)(armed_at - set_mono) / 1e9);
		if (armed_at < 0) {
			printf("LC-WHY chrony did not arm the kernel's leap\n");
			fails++;
		}
	}

	snprintf(cfg[0], 32, "%" PRId64, set_rt);
	snprintf(cfg[1], 32, "%" PRId64, set_mono);
	snprintf(cfg[2], 32, "%" PRId64, boundary);
	snprintf(cfg[3], 32, "%d", dir);
	snprintf(cfg[4], 32, "%" PRId64, offset);
	snprintf(cfg[5], 32, "%" PRId64, step_mono);
	snprintf(cfg[6], 32, "%d", tai_before);
	snprintf(cfg[7], 32, "%" PRId64, end_mono);
	{
		static const char *const keys[8] = {
		    "--set-rt", "--set-mono", "--boundary",  "--dir",
		    "--offset", "--step-mono", "--tai", "--end-mono"};

		for (int k = 0; k < 8; k++) {
			cfgv[2 * k] = (char *)keys[k];
			cfgv[2 * k + 1] = cfg[k];
		}
		cfgv[16] = NULL;
	}
	for (int f = 0; f < NFACES; f++) {
		char lf[300], *av[24], *env[4] = {NULL};
		int n = 0;

		snprintf(lf, sizeof(lf), "LEAPCLOCK_LEAPFILE=%s", leapfile);
		if (strcmp(names[f], "lib") == 0 ||
		    strcmp(names[f], "lib-inproc") == 0) {
			av[n++] = "/bin/lc_vm_lib";
		} else {
			av[n++] = "/bin/lc_vm_face";
		}
		av[n++] = "face";
		av[n++] = (char *)names[f];
		av[n++] = "--cpu";
		av[n++] = strcmp(names[f], "bare") == 0  ? "1"
		          : strcmp(names[f], "ntp") == 0 ? "-1"
		                                         : "0";
		for (int k = 0; k < 16; k++)
			av[n++] = cfgv[k];
		av[n] = NULL;
		if (strcmp(names[f], "lib-inproc") == 0) {
			env[0] = "LEAPCLOCK_TIMELINE=none";
			env[1] = lf;
		} else if (strcmp(names[f], "shim") == 0) {
			env[0] = "LD_PRELOAD=/lib/libleapclock-preload.so";
			env[1] = "LEAPCLOCK_MODE=exact";
		}
		kids[f] = spawn(av, env, NULL);
	}

	sleep_until_mono(step_mono);
	if (offset != 0) {
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET | ADJ_NANO;
		tx.time.tv_sec = (time_t)(offset >= 0 ? offset / VJ_NS
		                                      : -((-offset + VJ_NS - 1) /
		                                          VJ_NS));
		tx.time.tv_usec =
		    (long)(offset - (int64_t)tx.time.tv_sec * VJ_NS);
		if (adjtimex(&tx) < 0)
			perror("lc_vm_face run: ADJ_SETOFFSET");
		kernel_arm(dir, armed == 1);
	}
	for (int f = 0; f < NFACES; f++) {
		int st = 0;
		pid_t r = 0;

		for (int k = 0; k < 600; k++) {
			r = waitpid(kids[f], &st, WNOHANG);
			if (r != 0 || now(CLOCK_MONOTONIC) > end_mono + 5 * VJ_NS)
				break;
			usleep(10000);
		}
		if (r == 0) {
			kill(kids[f], SIGKILL);
			waitpid(kids[f], &st, 0);
			printf("LC-FACE %s FAIL hung\n", names[f]);
			fails++;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) {
			printf("LC-FACE %s FAIL exit status %d\n", names[f], st);
			fails++;
		} else if (WEXITSTATUS(st) == 1) {
			fails++;
		}
	}
	if (chrony > 0) {
		kill(chrony, SIGTERM);
		waitpid(chrony, NULL, 0);
	}
	kill(ld, SIGTERM);
	waitpid(ld, NULL, 0);
	kernel_arm(dir, 0);
	memset(&tx, 0, sizeof(tx));
	printf("LC-SCEN %s dir=%s armed=%d offset=%.3fms kernel-state=%d "
	       "faces-failed=%d\n",
	       label, dir > 0 ? "ins" : "del", armed, (double)offset / 1e6,
	       adjtimex(&tx), fails);
	fflush(stdout);
	return fails ? 1 : 0;
}

/* `leap`: the kernel's own leap, for the kernel's own tests
 * (tools/vm-kernel-test runs the timer selftests and leap-a-day on it):
 * REALTIME set to --in S before the leap of --dir (at .000), the TAI
 * offset of before it, the kernel armed; or --clear: no leap armed,
 * REALTIME set 1 h before the insertion's day ends (no leap near). */
static int cmd_leap(int argc, char **argv)
{
	int dir = 0, agreed = 0, clear = 0, rc;
	long in = 0;
	struct timespec ts = {0, 0};
	struct timex tx;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], FLAG) == 0)
			agreed = 1;
		else if (strcmp(argv[i], "--clear") == 0)
			clear = 1;
		else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
			dir = strcmp(argv[++i], "del") == 0 ? -1 : 1;
		else if (strcmp(argv[i], "--in") == 0 && i + 1 < argc)
			in = atol(argv[++i]);
		else {
			fprintf(stderr, "lc_vm_face leap: unknown option %s\n",
			        argv[i]);
			return 2;
		}
	}
	if (!agreed || !has_cap_sys_time() || !in_test_vm()) {
		fprintf(stderr, "lc_vm_face leap: refusing: this sets the clock; "
		                "it runs only in the test VM\n");
		return 2;
	}
	if (clear) {
		kernel_arm(1, 0);
		ts.tv_sec = (time_t)(INT64_C(1483228800) - 3600);
	} else {
		if (dir == 0 || in <= 0) {
			fprintf(stderr, "lc_vm_face leap: --dir ins|del --in S\n");
			return 2;
		}
		/* 2017-01-01 or 2029-07-01 (a deletion: its 23:59:59 goes) */
		ts.tv_sec = (time_t)((dir > 0 ? INT64_C(1483228800)
		                              : INT64_C(1877558400) - 1) -
		                     in);
	}
	if (clock_settime(CLOCK_REALTIME, &ts) != 0) {
		perror("lc_vm_face leap: clock_settime");
		return 1;
	}
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = dir < 0 ? 37 : 36;
	adjtimex(&tx);
	if (!clear)
		kernel_arm(dir, 1);
	memset(&tx, 0, sizeof(tx));
	rc = adjtimex(&tx); /* before tx.status is read */
	printf("LC-LEAP %s kernel-state=%d status=0x%x\n",
	       clear ? "clear" : dir > 0 ? "ins" : "del", rc,
	       (unsigned)tx.status);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "face") == 0)
		return cmd_face(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "leap") == 0)
		return cmd_leap(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc, argv);
	fprintf(stderr, "usage: lc_vm_face run " FLAG " --dir ins|del "
	                "--armed 0|1|2 --offset NS --leapfile PATH [--label T]\n"
	                "       lc_vm_face face bare|shim|ntp [--cpu N] CFG...\n"
	                "       lc_vm_face leap " FLAG " --dir ins|del --in S | "
	                "--clear\n");
	return 2;
}
