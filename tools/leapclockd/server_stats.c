/*
 * server_stats.c - leapclockd's counters summed over the workers, for the
 * stats file (written atomically, removed at the end when ours) and the
 * metrics endpoint.
 */
#define _GNU_SOURCE /* recvmmsg, ppoll, struct in6_pktinfo */

#include "server_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The counters of listener i summed over the workers. */
static void sum_counters(struct ld_server *s, int li, struct ld_counters *sum)
{
	uint64_t *o = (uint64_t *)sum;

	memset(sum, 0, sizeof(*sum));
	for (int k = 0; k < s->nw; k++) {
		const _Atomic uint64_t *v =
		        (const _Atomic uint64_t *)&s->w[k]->sk[li].c;

		for (size_t j = 0; j < sizeof(*sum) / sizeof(uint64_t); j++)
			o[j] += atomic_load_explicit(&v[j], memory_order_relaxed);
	}
}

int ld_server_nlisteners(struct ld_server *s)
{
	return s->nl;
}

int ld_server_listener(struct ld_server *s, int i, struct ld_listener_info *out)
{
	if (i < 0 || i >= s->nl)
		return -1;
	out->addr = s->l[i].name;
	out->mode = s->l[i].cfg.mode_name;
	out->src = s->l[i].src;
	out->li = atomic_load_explicit(&s->l[i].last_li, memory_order_relaxed);
	out->refid = atomic_load_explicit(&s->l[i].last_refid,
	                                  memory_order_relaxed);
	return 0;
}

void ld_server_counters(struct ld_server *s, int listener,
                        struct ld_counters *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < s->nl; i++) {
		struct ld_counters one;
		uint64_t *o = (uint64_t *)sum;
		const uint64_t *v = (const uint64_t *)&one;

		if (listener >= 0 && i != listener)
			continue;
		sum_counters(s, i, &one);
		for (size_t k = 0; k < sizeof(*sum) / sizeof(uint64_t); k++)
			o[k] += v[k];
	}
}

/* Reads the first line of `path` into buf ("" if none). */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)size, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* What says that the stats file's pid is this process and not a later
 * one that reuses it: the process start time (clock ticks after boot) and
 * the boot. Read again after a fork (detaching changes the pid). */
static long daemon_pid(const struct ld_server *s)
{
	return s->daemon_pid > 0 ? s->daemon_pid : (long)getpid();
}

static void stats_identity(struct ld_server *s)
{
	char buf[1024], path[64], *p;
	int field;

	if (s->stats_pid == daemon_pid(s))
		return;
	s->stats_pid = daemon_pid(s);
	s->pid_start[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/stat", s->stats_pid);
	read_line(path, buf, sizeof(buf));
	/* the command name (field 2) may hold spaces: count from its ')' */
	p = strrchr(buf, ')');
	for (field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		snprintf(s->pid_start, sizeof(s->pid_start), "%.*s",
		         (int)strcspn(p + 1, " "), p + 1);
	read_line("/proc/sys/kernel/random/boot_id", s->boot_id,
	          sizeof(s->boot_id));
}

/* Removes the stats file when the daemon stops, if it is still the one
 * this process wrote (another leapclockd may have taken the path over). */
void ld__srv_remove_stats(struct ld_server *s)
{
	const char *path = s->cfg->statsfile;
	char line[64], want[64];
	struct stat st;
	FILE *f;
	int fd, ours = 0;

	if (!s->stats_written || path[0] == '\0')
		return;
	snprintf(want, sizeof(want), "pid %ld\n", daemon_pid(s));
	/* without waiting: a FIFO put there must not hold up the stop */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL)
		if (strcmp(line, want) == 0) {
			ours = 1;
			break;
		}
	fclose(f);
	if (ours && unlink(path) != 0)
		ld_log(LD_LOG_WARNING, "stats file %s: %s", path, strerror(errno));
	s->stats_written = 0;
}

/* The stats file's temporary: a new file of a name nobody can guess, made
 * here (O_CREAT|O_EXCL: never a file, a hard link or a symbolic link
 * someone planted; issue 28 item 12: a fixed FILE.tmp opened with
 * O_TRUNC let a planted hard link's target be overwritten by root), in
 * the stats file's own folder so that rename() replaces it atomically.
 * Its name into tmp (PATH_MAX + 8). NULL with errno set. */
static FILE *open_stats_tmp(const char *path, char *tmp)
{
	FILE *f;
	int fd;

	snprintf(tmp, PATH_MAX + 8, "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* mkostemp makes it 0600: the stats are for every user */
	if (fchmod(fd, 0644) != 0 || (f = fdopen(fd, "w")) == NULL) {
		int e = errno;

		close(fd);
		unlink(tmp);
		errno = e;
		return NULL;
	}
	return f;
}

/* The stats file's temporary copy of path opened (its name into tmp);
 * its folder made if missing (as systemd's RuntimeDirectory). NULL,
 * warned once. */
static FILE *open_stats(struct ld_server *s, const char *path, char *tmp)
{
	FILE *f = open_stats_tmp(path, tmp);

	if (f == NULL && errno == ENOENT) {
		/* create the last directory (as systemd's RuntimeDirectory) */
		char dir[PATH_MAX];
		char *slash;
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
			mkdir(dir, 0755);
			f = open_stats_tmp(path, tmp);
		}
	}
	if (f == NULL) {
		if (!s->stats_warned)
			ld_log(LD_LOG_WARNING, "stats file %s: %s", tmp,
			       strerror(errno));
		s->stats_warned = 1;
	}
	return f;
}

/* The stats file's text: the daemon, then each listener's counters, then
 * (with several workers) each worker's share. */
static void print_stats(struct ld_server *s, FILE *f)
{
	struct lc_leaptable_info info;

	lc_leaptable_info(ld_clock_table(s->clock), &info);
	stats_identity(s);
	fprintf(f, "# leapclockd statistics: read with 'leapclock server-stats'\n");
	fprintf(f, "leapclockd-stats 1\n");
	fprintf(f, "pid %ld\n", daemon_pid(s));
	if (s->pid_start[0] != '\0')
		fprintf(f, "pid-start %s\n", s->pid_start);
	if (s->boot_id[0] != '\0')
		fprintf(f, "boot-id %s\n", s->boot_id);
	fprintf(f, "started %" PRId64 "\n", s->started_unix);
	fprintf(f, "updated %" PRId64 "\n", (int64_t)time(NULL));
	fprintf(f, "leaptable %s\n", info.source);
	fprintf(f, "leaptable-expires %" PRId64 "\n", info.expires);
	fprintf(f, "pretend %s\n", s->cfg->pretend[0] ? s->cfg->pretend : "-");
	fprintf(f, "threads %d\n", s->nw);
	for (int i = 0; i < s->nl; i++) {
		const struct listener *L = &s->l[i];
		struct ld_counters c;

		sum_counters(s, i, &c);
		fprintf(f,
		        "listen %s %s received=%" PRIu64 " requests=%" PRIu64
		        " replies=%" PRIu64 " malformed=%" PRIu64
		        " control=%" PRIu64 " other_mode=%" PRIu64
		        " ratelimited=%" PRIu64 " kod=%" PRIu64
		        " send_errors=%" PRIu64 " li=%u refid=0x%08" PRIx32
		        " interleaved=%" PRIu64 " tx_kernel=%" PRIu64
		        " auth_ok=%" PRIu64 " auth_fail=%" PRIu64
		        " denied=%" PRIu64 "\n",
		        L->name, L->cfg.mode_name, c.received, c.requests,
		        c.replies, c.malformed, c.control, c.other_mode,
		        c.ratelimited, c.kod, c.send_errors,
		        atomic_load_explicit(&L->last_li, memory_order_relaxed),
		        atomic_load_explicit(&L->last_refid, memory_order_relaxed),
		        c.interleaved, c.tx_kernel, c.auth_ok, c.auth_fail,
		        c.denied);
	}
	/* per worker (ignored by server-stats; shows the spread) */
	for (int k = 0; k < s->nw && s->nw > 1; k++)
		for (int i = 0; i < s->nl; i++) {
			const struct ld_live_counters *c = &s->w[k]->sk[i].c;

			fprintf(f, "worker %d %s received=%" PRIu64
			        " replies=%" PRIu64 " ratelimited=%" PRIu64 "\n",
			        k, s->l[i].name,
			        atomic_load_explicit(&c->received, memory_order_relaxed),
			        atomic_load_explicit(&c->replies, memory_order_relaxed),
			        atomic_load_explicit(&c->ratelimited,
			                             memory_order_relaxed));
		}
}

void ld__srv_write_stats(struct ld_server *s)
{
	char tmp[PATH_MAX + 8];
	const char *path = s->cfg->statsfile;
	FILE *f;

	if (path[0] == '\0')
		return;
	f = open_stats(s, path, tmp);
	if (f == NULL)
		return;
	print_stats(s, f);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		if (!s->stats_warned)
			ld_log(LD_LOG_WARNING, "stats file %s: %s", path,
			       strerror(errno));
		s->stats_warned = 1;
		unlink(tmp);
		return;
	}
	s->stats_written = 1;
}

void ld_server_dump_stats(struct ld_server *s, int log)
{
	ld__srv_write_stats(s);
	if (!log)
		return;
	for (int i = 0; i < s->nl; i++) {
		struct ld_counters cs, *c = &cs;

		sum_counters(s, i, c);
		ld_log(LD_LOG_INFO,
		       "%s %s: received %" PRIu64 ", requests %" PRIu64
		       ", replies %" PRIu64 ", malformed %" PRIu64
		       ", control %" PRIu64 ", other modes %" PRIu64
		       ", rate-limited %" PRIu64 " (kod %" PRIu64
		       "), send errors %" PRIu64,
		       s->l[i].name, s->l[i].cfg.mode_name, c->received,
		       c->requests, c->replies, c->malformed, c->control,
		       c->other_mode, c->ratelimited, c->kod, c->send_errors);
	}
}

/* For metrics.c (keep after merging hA): the auth code's counters. */
#include "metrics.h"

void ld_server_auth_counters(struct ld_server *s, struct ld_auth_counters *c,
                             int *configured)
{
	*configured = s->auth != NULL;
	ld_auth_counters(s->auth, c);
}
