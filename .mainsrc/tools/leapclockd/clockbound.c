/*
 * clockbound.c - leapclock's error bound in AWS ClockBound's public
 * shared-memory layout, protocol version 2 (clock-bound docs/PROTOCOL.md):
 *
 *	off  0	magic		u64: the bytes 41 4D 5A 4E 43 42 02 00
 *	off  8	segment size	u32: bytes
 *	off 12	version		u16: 2
 *	off 14	generation	u16: odd while the writer updates, even
 *				after; wraps to 2, never 0
 *	off 16	as_of		i64 tv_sec, i64 tv_nsec: CLOCK_MONOTONIC_COARSE
 *				when the bound was computed
 *	off 32	void_after	i64, i64: CLOCK_MONOTONIC_COARSE after which
 *				the bound is not to be trusted
 *	off 48	bound		i64 ns: |CLOCK_REALTIME - true time| at as_of
 *	off 56	disruption	u64: the last VMClock disruption marker
 *	off 64	max drift	u32 ppb, from as_of on
 *	off 68	clock status	i32: 0 unknown, 1 synchronized, 2 free
 *				running, 3 disrupted
 *	off 72	disruption support u8, then padding to 80 bytes
 *
 * A ClockBound client reads the host's CLOCK_REALTIME itself and takes
 * [realtime - bound - drift * age, realtime + bound + drift * age]. So the
 * bound published here is on the *host's* CLOCK_REALTIME against true
 * UTC: leapclock's own bound plus how far the host is from leapclock's
 * exact UTC at the sample (a smear the host follows, a leap it applies
 * late or never, its slew after one), and the drift adds how fast that
 * difference moved since the sample before. Through a smear or a leap a
 * ClockBound program then gets a wider interval that still holds true
 * UTC (as POSIX ns: in an inserted second, the repeated 23:59:59), never
 * a narrow wrong one. Disruption support is off (0), the marker 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CLOCK_MONOTONIC_COARSE */
#endif
#include "clockbound.h"

#include "leapclockd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CB_SIZE    80
#define CB_VERSION 2
/* How long a bound stays good without a new one: the writer updates
 * four times a second, and its bound widens at the drift rate; past
 * this the page's writer is taken for gone (ClockBound's clients then
 * report the bound void). */
#define CB_VOID_NS (10 * (int64_t)1000000000)

struct cb_seg {
	uint8_t magic[8];
	uint32_t size;
	uint16_t version;
	_Atomic uint16_t generation;
	int64_t as_of_sec, as_of_nsec;
	int64_t void_sec, void_nsec;
	int64_t bound_ns;
	uint64_t disruption;
	uint32_t max_drift_ppb;
	int32_t status;
	uint8_t disruption_support;
	uint8_t pad[7];
};

_Static_assert(sizeof(struct cb_seg) == CB_SIZE, "ClockBound v2 is 80 bytes");
_Static_assert(offsetof(struct cb_seg, as_of_sec) == 16, "as_of at 16");
_Static_assert(offsetof(struct cb_seg, bound_ns) == 48, "bound at 48");
_Static_assert(offsetof(struct cb_seg, max_drift_ppb) == 64, "drift at 64");
_Static_assert(offsetof(struct cb_seg, status) == 68, "status at 68");

struct ld_clockbound {
	struct cb_seg *seg;
	lc_timekeeper *tk;
	char path[PATH_MAX];
	int have_prev;
	int64_t prev_diff, prev_mono; /* host - leapclock at the last update */
};

static int64_t cb_ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t cb_abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* The host's CLOCK_REALTIME minus leapclock's exact REALTIME, and
 * leapclock's bound, from the tightest of a few brackets; *slack_ns what
 * the bracket cannot resolve. */
static void cb_sample(struct ld_clockbound *cb, int64_t *diff, int64_t *slack,
                      struct lc_bounds *out)
{
	int64_t best = INT64_MAX;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 5; i++) {
		struct timespec a, b;
		struct lc_bounds lb;

		clock_gettime(CLOCK_REALTIME, &a);
		lc_gettime_bounds(cb->tk, LC_CLOCK_REALTIME, &lb);
		clock_gettime(CLOCK_REALTIME, &b);
		if (cb_ts_ns(&b) - cb_ts_ns(&a) < best) {
			best = cb_ts_ns(&b) - cb_ts_ns(&a);
			*diff = cb_ts_ns(&a) + best / 2 - cb_ts_ns(&lb.now);
			*out = lb;
		}
	}
	*slack = (best + 1) / 2;
}

void ld_clockbound_update(struct ld_clockbound *cb)
{
	struct cb_seg *s;
	struct lc_bounds lb;
	struct lc_bounds_info bi;
	struct timespec coarse, mono;
	int64_t diff = 0, slack = 0, drift, bound, va;
	uint16_t g;

	if (cb == NULL)
		return;
	s = cb->seg;
	cb_sample(cb, &diff, &slack, &lb);
	lc_tk_bounds_info(cb->tk, &bi);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	/* as_of no later than the bound's instant: coarse lags, and an
	 * earlier as_of only widens a client's interval */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse);
	bound = lb.error_ns + cb_abs64(diff) + slack;
	drift = bi.drift_ppb;
	if (cb->have_prev && cb_ts_ns(&mono) > cb->prev_mono) {
		/* the host moves from us this fast (a smear, a slew): twice
		 * it, so the next update is not overtaken */
		int64_t dt = cb_ts_ns(&mono) - cb->prev_mono;
		int64_t r = (int64_t)((__int128)cb_abs64(diff - cb->prev_diff) *
		                      1000000000 / dt);

		drift += 2 * r;
	}
	cb->have_prev = 1;
	cb->prev_diff = diff;
	cb->prev_mono = cb_ts_ns(&mono);
	if (drift > UINT32_MAX)
		drift = UINT32_MAX;
	va = cb_ts_ns(&coarse) + CB_VOID_NS;

	/* the generation: odd while writing, even after, wrapping to 2 */
	g = atomic_load_explicit(&s->generation, memory_order_relaxed);
	atomic_store_explicit(&s->generation, (uint16_t)(g + 1),
	                      memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	s->as_of_sec = (int64_t)coarse.tv_sec;
	s->as_of_nsec = coarse.tv_nsec;
	s->void_sec = va / 1000000000;
	s->void_nsec = va % 1000000000;
	s->bound_ns = bound;
	s->disruption = 0;
	s->max_drift_ppb = (uint32_t)drift;
	s->status = lb.status == LC_BOUNDS_SYNCHRONIZED   ? 1
	            : lb.status == LC_BOUNDS_FREE_RUNNING ? 2
	                                                  : 0;
	s->disruption_support = 0;
	g = (uint16_t)(g + 2);
	if (g == 0)
		g = 2;
	atomic_store_explicit(&s->generation, g, memory_order_release);
}

int ld_clockbound_open(struct ld_clockbound **out, const char *path,
                       lc_timekeeper *tk)
{
	static const uint8_t magic[8] = {0x41, 0x4D, 0x5A, 0x4E,
	                                 0x43, 0x42, 0x02, 0x00};
	struct ld_clockbound *cb = calloc(1, sizeof(*cb));
	char tmp[PATH_MAX + 32];
	int fd = -1, e;
	void *p;

	*out = NULL;
	if (cb == NULL)
		return -1;
	cb->tk = tk;
	snprintf(cb->path, sizeof(cb->path), "%s", path);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new.%ld", path,
	                     (long)getpid()) >= sizeof(tmp)) {
		ld_log(LD_LOG_ERR, "clockbound %s: path too long", path);
		goto fail;
	}
	fd =
	    open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || fchmod(fd, 0644) != 0) {
		ld_log(LD_LOG_ERR, "clockbound %s: %s", tmp, strerror(errno));
		goto fail;
	}
	e = posix_fallocate(fd, 0, CB_SIZE);
	if (e != 0) {
		ld_log(LD_LOG_ERR, "clockbound %s: %s", tmp, strerror(e));
		goto fail;
	}
	p = mmap(NULL, CB_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ld_log(LD_LOG_ERR, "clockbound %s: mmap: %s", tmp,
		       strerror(errno));
		goto fail;
	}
	cb->seg = p;
	memset(cb->seg, 0, CB_SIZE);
	memcpy(cb->seg->magic, magic, sizeof(magic));
	cb->seg->size = CB_SIZE;
	cb->seg->version = CB_VERSION;
	ld_clockbound_update(cb);
	if (rename(tmp, path) != 0) {
		ld_log(LD_LOG_ERR, "clockbound %s: %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	ld_log(LD_LOG_INFO,
	       "clockbound %s: published (ClockBound shared "
	       "memory, protocol version 2)",
	       path);
	*out = cb;
	return 0;
fail:
	if (fd >= 0) {
		unlink(tmp);
		close(fd);
	}
	if (cb->seg != NULL)
		munmap(cb->seg, CB_SIZE);
	free(cb);
	return -1;
}

void ld_clockbound_close(struct ld_clockbound *cb)
{
	if (cb == NULL)
		return;
	munmap(cb->seg, CB_SIZE);
	free(cb);
}
