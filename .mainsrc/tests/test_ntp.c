/*
 * test_ntp.c - the adjtimex state machine (src/ntp.c) as a pure module: no
 * clocks, the test passes the seconds in. Every expected value is derived
 * from /work/shared/reference/linux-leap-semantics.md ("ref N.N") or its
 * linux-ntp-vectors.py ("VEC"), or from the arithmetic written next to it.
 */
#include "lc_test.h"
#include "ntp.h"

#include <limits.h>
#include <math.h>

/* 2015-07-01 00:00:00 UTC: the midnight after the June 2015 leap (ref 2.2). */
#define E              INT64_C(1435708800)
#define ONE_SEC_SCALED (INT64_C(1000000000) << 32) /* 1 s in ns << 32 */

/* What the timekeeper does for lc_adjtimex (ntp.h contract 1), minus the
 * SETOFFSET clock step. */
static int adjx(struct lc__ntp *n, struct lc_timex *tx, int privileged,
                int64_t now_sec)
{
	int rc = lc__ntp_validate(tx, privileged);
	if (rc != 0)
		return rc;
	return lc__ntp_adjtimex(n, tx, now_sec, NULL);
}

static int set_status(struct lc__ntp *n, int status)
{
	struct lc_timex tx;
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	return adjx(n, &tx, 1, E - 100);
}

static int read_tx(struct lc__ntp *n, struct lc_timex *tx)
{
	memset(tx, 0, sizeof(*tx));
	return adjx(n, tx, 0, E - 100);
}

/* The kernel's accumulation loop (ref 2.1/2.2): the second `*xtime + 1`
 * begins, second_overflow() sees it, and the leap it returns is added to
 * the clock's seconds (insertion: -1, the same second begins again). */
struct step {
	int64_t secs; /* what second_overflow was called with */
	int ret;      /* what it returned */
	int state;    /* time_state afterwards */
	int32_t tai;  /* tai_offset afterwards */
};

static struct step tick(struct lc__ntp *n, int64_t *xtime)
{
	struct step s;
	*xtime += 1;
	s.secs = *xtime;
	s.ret = lc__ntp_second_overflow(n, *xtime);
	*xtime += s.ret;
	s.state = n->time_state;
	s.tai = n->tai_offset;
	return s;
}

/* ref 1.1 "Initial state": TIME_OK, STA_UNSYNC, tc 2, maxerror = esterror
 * = 16e6, tick 10000, no leap, TAI 0; a fresh read returns TIME_ERROR with
 * status 0x40. */
static void test_initial_state(void)
{
	struct lc__ntp n;
	struct lc_timex tx;
	int64_t when = 0;

	lc__ntp_init(&n);
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_ERROR);
	LC_EQ_INT(tx.status, 0x40);
	LC_EQ_I64(tx.constant, 2);
	LC_EQ_I64(tx.maxerror, 16000000);
	LC_EQ_I64(tx.esterror, 16000000);
	LC_EQ_I64(tx.tick, 10000);
	LC_EQ_I64(tx.freq, 0);
	LC_EQ_I64(tx.offset, 0);
	LC_EQ_INT(tx.tai, 0);
	LC_EQ_I64(tx.precision, 1);
	LC_EQ_I64(tx.tolerance, 32768000); /* ref 1.4, VEC "tolerance" */
	LC_EQ_INT(n.time_state, LC_TIME_OK);
	LC_EQ_I64(n.next_leap_sec, INT64_MAX);
	/* idle: a second is exactly 1e9 ns (10000 us * 100 ticks) */
	LC_EQ_I64(lc__ntp_rate(&n), ONE_SEC_SCALED);
	LC_EQ_INT(lc__ntp_pending_leap(&n, E, &when), 0);
	LC_EQ_I64(when, INT64_MAX);
	/* modes = 0 changes nothing (ref 1.4) */
	{
		struct lc__ntp copy;
		memcpy(&copy, &n, sizeof(n));
		LC_EQ_INT(read_tx(&n, &tx), LC_TIME_ERROR);
		LC_TRUE(memcmp(&copy, &n, sizeof(n)) == 0);
	}
}

/* ref 2.2: insertion, second by second, as the kernel loop drives it. STA_INS
 * is seen at E-10: OK -> INS with next = E; at E (00:00:00 begins) the call
 * returns -1, the state is OOP and TAI-UTC is +1 from that instant; the clock
 * goes back to E-1, so E begins again one second later: OOP -> WAIT; WAIT
 * persists while STA_INS stays set. */
static void test_insert_sequence(void)
{
	struct lc__ntp n;
	int64_t xtime = E - 11;
	struct step s;

	lc__ntp_init(&n);
	LC_EQ_INT(set_status(&n, LC_STA_INS), LC_TIME_OK); /* UNSYNC gone */
	LC_EQ_INT(n.time_state, LC_TIME_OK); /* moves only at a boundary */

	s = tick(&n, &xtime);
	LC_EQ_I64(s.secs, E - 10);
	LC_EQ_INT(s.ret, 0);
	LC_EQ_INT(s.state, LC_TIME_INS);
	LC_EQ_I64(n.next_leap_sec, E);
	for (int64_t t = E - 9; t <= E - 1; t++) {
		s = tick(&n, &xtime);
		LC_EQ_I64(s.secs, t);
		LC_EQ_INT(s.ret, 0);
		LC_EQ_INT(s.state, LC_TIME_INS);
		LC_EQ_INT(s.tai, 0);
	}
	s = tick(&n, &xtime); /* 00:00:00 would begin: insert instead */
	LC_EQ_I64(s.secs, E);
	LC_EQ_INT(s.ret, -1);
	LC_EQ_INT(s.state, LC_TIME_OOP);
	LC_EQ_INT(s.tai, 1);
	LC_EQ_I64(xtime, E - 1); /* 23:59:59 again (23:59:60) */
	s = tick(&n, &xtime);    /* the real 00:00:00 */
	LC_EQ_I64(s.secs, E);
	LC_EQ_INT(s.ret, 0);
	LC_EQ_INT(s.state, LC_TIME_WAIT);
	LC_EQ_INT(s.tai, 1);
	LC_EQ_I64(n.next_leap_sec, INT64_MAX);
	s = tick(&n, &xtime);
	LC_EQ_I64(s.secs, E + 1);
	LC_EQ_INT(s.ret, 0);
	LC_EQ_INT(s.state, LC_TIME_WAIT); /* STA_INS still set */
	/* clearing STA_INS ends WAIT at the next boundary */
	LC_EQ_INT(set_status(&n, 0), LC_TIME_WAIT);
	s = tick(&n, &xtime);
	LC_EQ_INT(s.ret, 0);
	LC_EQ_INT(s.state, LC_TIME_OK);
	LC_EQ_INT(s.tai, 1);
}

/* ref 2.2: deletion. STA_DEL seen at E-10: next = E-1 (23:59:59); when E-1
 * would begin the call returns +1, the clock jumps to E, the state is WAIT,
 * TAI-UTC is -1, next is cleared. 23:59:59 never begins. */
static void test_delete_sequence(void)
{
	struct lc__ntp n;
	int64_t xtime = E - 11;
	struct step s;

	lc__ntp_init(&n);
	set_status(&n, LC_STA_DEL);
	s = tick(&n, &xtime);
	LC_EQ_INT(s.ret, 0);
	LC_EQ_INT(s.state, LC_TIME_DEL);
	LC_EQ_I64(n.next_leap_sec, E - 1);
	for (int64_t t = E - 9; t <= E - 2; t++) {
		s = tick(&n, &xtime);
		LC_EQ_I64(s.secs, t);
		LC_EQ_INT(s.ret, 0);
		LC_EQ_INT(s.state, LC_TIME_DEL);
	}
	s = tick(&n, &xtime);
	LC_EQ_I64(s.secs, E - 1);
	LC_EQ_INT(s.ret, 1);
	LC_EQ_INT(s.state, LC_TIME_WAIT);
	LC_EQ_INT(s.tai, -1);
	LC_EQ_I64(xtime, E); /* 23:59:59 skipped */
	LC_EQ_I64(n.next_leap_sec, INT64_MAX);
	s = tick(&n, &xtime);
	LC_EQ_I64(s.secs, E + 1);
	LC_EQ_INT(s.ret, 0);
	LC_EQ_INT(s.state, LC_TIME_WAIT);
	set_status(&n, 0);
	s = tick(&n, &xtime);
	LC_EQ_INT(s.state, LC_TIME_OK);
	LC_EQ_INT(s.tai, -1);
}

/* ref 2.2 TIME_INS/TIME_DEL: clearing the flag before the leap cancels it
 * (issue 3: "STA_INS set then cleared at 23:59:59.9 gives no leap"). */
static void test_cancel(void)
{
	for (int del = 0; del <= 1; del++) {
		struct lc__ntp n;
		int64_t xtime = E - 11, last = del ? E - 2 : E - 1;
		struct step s;

		lc__ntp_init(&n);
		set_status(&n, del ? LC_STA_DEL : LC_STA_INS);
		while (xtime < last) {
			s = tick(&n, &xtime);
			LC_EQ_INT(s.ret, 0);
			LC_EQ_INT(s.state, del ? LC_TIME_DEL : LC_TIME_INS);
		}
		/* 23:59:59.9 (or 23:59:58.9): the flag goes */
		set_status(&n, 0);
		for (int i = 0; i < 5; i++) {
			s = tick(&n, &xtime);
			LC_EQ_INT(s.ret, 0);
			LC_EQ_INT(s.state, LC_TIME_OK);
			LC_EQ_INT(s.tai, 0);
			LC_EQ_I64(n.next_leap_sec, INT64_MAX);
		}
		LC_EQ_I64(xtime, last + 5); /* no second repeated or skipped */
	}
}

/* ref 2.2 TIME_WAIT: a still-set STA_INS does not insert again the next day
 * (the man page says it would; the code does not). Run two more days. */
static void test_wait_persists(void)
{
	struct lc__ntp n;
	int64_t xtime = E - 2;
	struct step s;
	int leaps = 0;

	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS);
	while (xtime < E + 2 * 86400 + 10) {
		s = tick(&n, &xtime);
		if (s.ret != 0)
			leaps++;
		if (s.secs > E || (s.secs == E && s.ret == 0))
			LC_EQ_INT(s.state, LC_TIME_WAIT);
	}
	LC_EQ_INT(leaps, 1);
	LC_EQ_INT(n.tai_offset, 1);
	LC_EQ_INT(n.time_state, LC_TIME_WAIT);
	LC_EQ_I64(n.next_leap_sec, INT64_MAX);
	{
		int64_t when = 0;
		LC_EQ_INT(lc__ntp_pending_leap(&n, xtime + 1, &when), 0);
	}
	/* STA_DEL alone also keeps WAIT (both bits must be clear) */
	set_status(&n, LC_STA_DEL);
	s = tick(&n, &xtime);
	LC_EQ_INT(s.state, LC_TIME_WAIT);
	set_status(&n, 0);
	s = tick(&n, &xtime);
	LC_EQ_INT(s.state, LC_TIME_OK);
}

/* ref 2.2 TIME_OK: STA_INS wins when both bits are set. */
static void test_ins_wins(void)
{
	struct lc__ntp n;
	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS | LC_STA_DEL);
	LC_EQ_INT(lc__ntp_second_overflow(&n, E - 10), 0);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	LC_EQ_I64(n.next_leap_sec, E);
}

/* ref 2.2 test vectors / VEC "next leap": the instant armed when STA_INS or
 * STA_DEL is first seen at `secs`, both via second_overflow and as predicted
 * beforehand by lc__ntp_pending_leap. */
static void test_next_leap_vectors(void)
{
	static const struct {
		int64_t secs, ins, del;
	} v[] = {
	    {1435708790, 1435708800, 1435708799},
	    {1435708800, 1435795200, 1435795199},
	    {1435708799, 1435708800, 1435795199},
	    {1435622400, 1435708800, 1435708799},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct lc__ntp n;
		int64_t when = 0;

		lc__ntp_init(&n);
		set_status(&n, LC_STA_INS);
		LC_EQ_INT(lc__ntp_pending_leap(&n, v[i].secs, &when), 1);
		LC_EQ_I64(when, v[i].ins);
		LC_EQ_INT(lc__ntp_second_overflow(&n, v[i].secs), 0);
		LC_EQ_I64(n.next_leap_sec, v[i].ins);
		LC_EQ_INT(lc__ntp_pending_leap(&n, v[i].secs + 1, &when), 1);
		LC_EQ_I64(when, v[i].ins);

		lc__ntp_init(&n);
		set_status(&n, LC_STA_DEL);
		LC_EQ_INT(lc__ntp_pending_leap(&n, v[i].secs, &when), -1);
		LC_EQ_I64(when, v[i].del);
		LC_EQ_INT(lc__ntp_second_overflow(&n, v[i].secs), 0);
		LC_EQ_I64(n.next_leap_sec, v[i].del);
		LC_EQ_INT(lc__ntp_pending_leap(&n, v[i].secs + 1, &when), -1);
		LC_EQ_I64(when, v[i].del);
	}
}

/* ntp.h lc__ntp_pending_leap: what is pending in each state. The answer must
 * agree with what second_overflow then does, boundary by boundary. */
static void test_pending_leap(void)
{
	struct lc__ntp n;
	int64_t when = 0, xtime = E - 4;
	struct step s;

	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS);
	/* each boundary before the leap predicts +1 at E */
	for (;;) {
		int dir = lc__ntp_pending_leap(&n, xtime + 1, &when);
		LC_EQ_INT(dir, 1);
		LC_EQ_I64(when, E);
		s = tick(&n, &xtime);
		if (s.ret != 0)
			break;
	}
	LC_EQ_I64(s.secs, E);
	/* OOP: nothing more pending */
	LC_EQ_INT(lc__ntp_pending_leap(&n, xtime + 1, &when), 0);
	LC_EQ_I64(when, INT64_MAX);

	/* cancelled: state INS but STA_INS cleared -> nothing */
	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS);
	lc__ntp_second_overflow(&n, E - 5);
	set_status(&n, 0);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	LC_EQ_INT(lc__ntp_pending_leap(&n, E - 4, &when), 0);

	/* armed, then the clock was set (ntp_clear): the state stays INS but
	 * the leap can no longer fire (ref 2.6) */
	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS);
	lc__ntp_second_overflow(&n, E - 5);
	lc__ntp_clear(&n);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	LC_TRUE(n.time_status & LC_STA_INS);
	LC_EQ_INT(lc__ntp_pending_leap(&n, E - 4, &when), 0);
	for (int64_t t = E - 4; t <= E + 3; t++)
		LC_EQ_INT(lc__ntp_second_overflow(&n, t), 0);
	LC_EQ_INT(n.time_state, LC_TIME_INS);

	/* deletion pending in DEL state */
	lc__ntp_init(&n);
	set_status(&n, LC_STA_DEL);
	lc__ntp_second_overflow(&n, E - 5);
	LC_EQ_INT(lc__ntp_pending_leap(&n, E - 4, &when), -1);
	LC_EQ_I64(when, E - 1);
	/* a boundary past `next` (cannot fire: equality trigger) */
	LC_EQ_INT(lc__ntp_pending_leap(&n, E, &when), 0);
}

/* Issue 28.18: a flag swapped for the other (STA_DEL in STA_INS's place, or
 * back) in TIME_INS/DEL. The machine cancels at the next boundary and arms
 * the other direction at the one after; lc__ntp_pending_leap() must say so
 * at once (it answered 0 until the next writer call ran those boundaries,
 * and readers showed no 23:59:60). Checked against the machine itself: from
 * every armed state, at boundaries around both leap instants, with every
 * new status, the prediction is the first leap second_overflow() applies
 * within two days (or none). */
static void test_pending_after_swap(void)
{
	static const int64_t starts[] = {E - 86400 + 15, E - 3600, E - 3, E - 2,
	                                 E - 1, E};
	static const int statuses[] = {0, LC_STA_INS, LC_STA_DEL,
	                               LC_STA_INS | LC_STA_DEL};
	int checked = 0;

	for (int arm = 0; arm < 2; arm++)
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
			for (size_t k = 0; k < 4; k++) {
				struct lc__ntp n;
				int64_t b = starts[i] - 10, when = 0;
				int64_t got = INT64_MAX;
				int dir, gdir = 0;

				lc__ntp_init(&n);
				set_status(&n, arm ? LC_STA_DEL : LC_STA_INS);
				/* armed at b - 1; boundaries up to starts[i] */
				lc__ntp_second_overflow(&n, b - 1);
				for (; b < starts[i]; b++)
					lc__ntp_second_overflow(&n, b);
				if (n.time_state !=
				    (arm ? LC_TIME_DEL : LC_TIME_INS))
					continue; /* the leap already happened */
				set_status(&n, statuses[k]);
				dir = lc__ntp_pending_leap(&n, b, &when);
				for (int64_t t = b; t < b + 2 * 86400; t++) {
					int r = lc__ntp_second_overflow(&n, t);
					if (r != 0) {
						got = t;
						gdir = -r;
						break;
					}
				}
				LC_EQ_INT(dir, gdir);
				LC_EQ_I64(when, got);
				checked++;
			}
	LC_TRUE(checked >= 40);
	printf("#   %d swaps predicted as the machine runs them\n", checked);
}

/* ref 1.3 step 1: PLL on -> off resets the state machine (state OK, next
 * cleared), whatever was armed. */
static void test_pll_off_resets(void)
{
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	set_status(&n, LC_STA_PLL | LC_STA_INS);
	lc__ntp_second_overflow(&n, E - 5);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	/* NANO is read-only in status but settable by ADJ_NANO */
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_NANO;
	adjx(&n, &tx, 1, E - 5);
	LC_TRUE(n.time_status & LC_STA_NANO);
	/* PLL off, INS kept: the armed leap is dropped and state is OK; the
	 * kernel's "status = STA_UNSYNC" is then masked to read-only bits, so
	 * the result is just the new bits (STA_NANO is lost too). */
	LC_EQ_INT(set_status(&n, LC_STA_INS), LC_TIME_OK);
	LC_EQ_INT(n.time_state, LC_TIME_OK);
	LC_EQ_I64(n.next_leap_sec, INT64_MAX);
	LC_EQ_INT(n.time_status, LC_STA_INS);
	/* and the leap re-arms at the next boundary */
	lc__ntp_second_overflow(&n, E - 4);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	LC_EQ_I64(n.next_leap_sec, E);
}

/* ref 5 leap-a-day step 2-3: clear_time_state (STATUS=PLL, MAXERROR=0,
 * STATUS=0) then STA_INS reads back exactly STA_INS, even with STA_NANO set
 * before (the PLL on->off drops it). */
static void test_leap_a_day_clear(void)
{
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_NANO;
	adjx(&n, &tx, 1, E);
	set_status(&n, LC_STA_PLL);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_MAXERROR;
	tx.maxerror = 0;
	adjx(&n, &tx, 1, E);
	set_status(&n, 0);
	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = LC_STA_INS;
	LC_EQ_INT(adjx(&n, &tx, 1, E), LC_TIME_OK);
	LC_EQ_INT(tx.status, LC_STA_INS);
}

static struct lc_timex mk(unsigned int modes)
{
	struct lc_timex tx;
	memset(&tx, 0, sizeof(tx));
	tx.modes = modes;
	return tx;
}

/* VEC "freq in": ADJ_FREQUENCY stores freq * PPM_SCALE (65,536,000),
 * clamped to +-500 ppm (2^31 * 1e6 = 2,147,483,648,000,000), and reads back
 * through PPM_SCALE_INV. */
static void test_freq_roundtrip(void)
{
	static const struct {
		int64_t in, time_freq, out;
	} v[] = {
	    {1, 65536000, 1},
	    {-1, -65536000, -1},
	    {-1000, -65536000000, -1000},
	    {65536, 4294967296000, 65536},
	    {-65536, -4294967296000, -65536},
	    {100 * 65536, 429496729600000, 6553600},
	    {-100 * 65536, -429496729600000, -6553600},
	    {499 * 65536, 2143188680704000, 32702464},
	    {-499 * 65536, -2143188680704000, -32702464},
	    {550 * 65536, 2147483648000000, 32768000},
	    {-550 * 65536, -2147483648000000, -32768000},
	    {1000 * 65536, 2147483648000000, 32768000},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct lc__ntp n;
		struct lc_timex tx = mk(LC_ADJ_FREQUENCY);

		lc__ntp_init(&n);
		tx.freq = v[i].in;
		LC_GE_INT(adjx(&n, &tx, 1, E), 0);
		LC_EQ_I64(n.time_freq, v[i].time_freq);
		LC_EQ_I64(tx.freq, v[i].out);
	}
}

/* Property behind the round trips: (f * PPM_SCALE) >> 19 is f * 125 exactly
 * (PPM_SCALE = 125 << 19), and 125 * PPM_SCALE_INV = 125 * 34,359,739 =
 * 2^32 + 79, so the read-back is f + trunc(f * 79 / 2^32), which is f for
 * every |f| < 2^32 / 79 ~ 5.4e7, i.e. the whole +-32,768,000 range. */
static void test_freq_roundtrip_random(void)
{
	for (int i = 0; i < 20000; i++) {
		struct lc__ntp n;
		struct lc_timex tx = mk(LC_ADJ_FREQUENCY);
		int64_t f = lc_rand_range(-40000000, 40000000);

		lc__ntp_init(&n);
		tx.freq = f;
		adjx(&n, &tx, 1, E);
		LC_EQ_I64(tx.freq, f > 32768000    ? 32768000
		                   : f < -32768000 ? -32768000
		                                   : f);
	}
}

/* ref 4 "Tick length": a second is tick_usec * USER_HZ us + time_freq. With
 * 1 ppm (65536) that is 1,000,001,000 ns; with tick 10100 us it is 1.01e9
 * ns; with tick 9000 and -1 ppm (-1000 ns/s) 899,999,000 ns. All divide by HZ
 * exactly, so rate == the second's length << 32. */
static void test_rate_from_freq_and_tick(void)
{
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	tx = mk(LC_ADJ_FREQUENCY);
	tx.freq = 65536;
	adjx(&n, &tx, 1, E);
	LC_EQ_I64(lc__ntp_rate(&n), INT64_C(1000001000) << 32);
	/* unchanged by a second boundary (nothing to slew) */
	lc__ntp_second_overflow(&n, E);
	LC_EQ_I64(lc__ntp_rate(&n), INT64_C(1000001000) << 32);

	lc__ntp_init(&n);
	tx = mk(LC_ADJ_TICK);
	tx.tick = 10100;
	LC_GE_INT(adjx(&n, &tx, 1, E), 0);
	LC_EQ_I64(tx.tick, 10100);
	LC_EQ_I64(lc__ntp_rate(&n), INT64_C(1010000000) << 32);

	tx = mk(LC_ADJ_TICK | LC_ADJ_FREQUENCY);
	tx.tick = 9000;
	tx.freq = -65536;
	adjx(&n, &tx, 1, E);
	LC_EQ_I64(lc__ntp_rate(&n), INT64_C(899999000) << 32);

	/* the fastest second there can be: tick 11000 us (1.1e9 ns) + 500 ppm
	 * (5e5 ns) + a quarter of MAXPHASE at tc 0 (1.25e8 ns) + 500 us of
	 * adjtime = 1,226,000,000 ns; << 32 that is 5.27e18, still an int64
	 * (UBSan would flag an overflow). The offset is given in the same
	 * second as PLL goes on, so the PLL term is 0 (secs = 0). */
	lc__ntp_init(&n);
	tx = mk(LC_ADJ_STATUS | LC_ADJ_NANO | LC_ADJ_TIMECONST | LC_ADJ_TICK |
	        LC_ADJ_FREQUENCY | LC_ADJ_OFFSET);
	tx.status = LC_STA_PLL;
	tx.constant = 0;
	tx.tick = 11000;
	tx.freq = 500 * 65536;
	tx.offset = 500000000;
	LC_GE_INT(adjx(&n, &tx, 1, E), 0);
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = 1000000;
	adjx(&n, &tx, 1, E);
	lc__ntp_second_overflow(&n, E + 1);
	LC_EQ_I64(lc__ntp_rate(&n), INT64_C(1226000000) << 32);
}

struct pll_case {
	int64_t off;  /* us */
	int64_t secs; /* since the last update */
	int tc;       /* internal time constant */
	int fll;      /* STA_FLL requested */
	int64_t freq; /* expected time_freq */
	int64_t readback;
	int mode;     /* expected STA_MODE */
	int64_t toff; /* expected time_offset */
};

/* Runs one PLL update: STA_PLL switched on at T0 (time_reftime = T0), the
 * time constant set, then ADJ_OFFSET at T0 + secs. */
static void run_pll_case(const struct pll_case *c)
{
	struct lc__ntp n;
	struct lc_timex tx;
	const int64_t t0 = 1700000000;

	lc__ntp_init(&n);
	if (c->tc != 2) {
		/* us mode: the kernel adds 4 to the given constant */
		tx = mk(LC_ADJ_TIMECONST);
		tx.constant = c->tc - 4;
		adjx(&n, &tx, 1, t0);
		LC_EQ_I64(n.time_constant, c->tc);
	}
	tx = mk(LC_ADJ_STATUS);
	tx.status = LC_STA_PLL | (c->fll ? LC_STA_FLL : 0);
	adjx(&n, &tx, 1, t0); /* PLL off -> on: time_reftime = t0 */
	LC_EQ_I64(n.time_reftime, t0);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = c->off;
	LC_GE_INT(adjx(&n, &tx, 1, t0 + c->secs), 0);
	LC_EQ_I64(n.time_freq, c->freq);
	LC_EQ_I64(tx.freq, c->readback);
	LC_EQ_INT(!!(tx.status & LC_STA_MODE), c->mode);
	LC_EQ_I64(n.time_offset, c->toff);
	LC_EQ_I64(n.time_reftime, t0 + c->secs);
}

/* ref 4 vectors / VEC "offset_us,secs,tc": the six reference cases, plus
 * the MINSEC/MAXSEC edges of the FLL term (ref 4 step 4) and STA_FLL cases
 * derived by hand from ref 4: PLL with secs capped at 2^(3+2) = 32 is
 * 1e6 ns * 32 << 20 = 33,554,432,000,000; FLL = (1e6 << 30) / secs toward
 * zero: 3,579,139,413,333 at 300 s, 4,194,304,000,000 at 256 s and
 * 524,032,124,938 at 2049 s. Read-backs by ref 1.4's formula. */
static void test_pll_vectors(void)
{
	static const struct pll_case v[] = {
	    {1000, 64, 2, 0, 33554432000000, 512000, 0, 4294967296000},
	    {1000, 64, 6, 0, 262144000000, 4000, 0, 4294967296000},
	    {1000, 4096, 6, 0, 2359296000000, 36000, 1, 4294967296000},
	    {-1000, 16, 2, 0, -16777216000000, -256000, 0, -4294967296000},
	    {500000, 64, 2, 0, 2147483648000000, 32768000, 0, 2147483648000000},
	    {1000, 300, 2, 0, 33554432000000, 512000, 0, 4294967296000},
	    /* FLL on request */
	    {1000, 300, 2, 1, 37133571413333, 566613, 1, 4294967296000},
	    /* STA_FLL but secs < MINSEC (256): PLL only; at 256: FLL */
	    {1000, 255, 2, 1, 33554432000000, 512000, 0, 4294967296000},
	    {1000, 256, 2, 1, 33554432000000 + 4194304000000, 576000, 1,
	     4294967296000},
	    /* no STA_FLL: FLL only when secs > MAXSEC (2048) */
	    {1000, 2048, 2, 0, 33554432000000, 512000, 0, 4294967296000},
	    {1000, 2049, 2, 0, 33554432000000 + 524032124938, 519996, 1,
	     4294967296000},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		run_pll_case(&v[i]);
		LC_BAIL();
	}
}

/* ref 4 steps 1-2, 8 and the STA_PLL / STA_FREQHOLD rules. */
static void test_offset_modes(void)
{
	struct lc__ntp n;
	struct lc_timex tx;
	const int64_t t0 = 1700000000;

	/* without STA_PLL, ADJ_OFFSET is silently ignored */
	lc__ntp_init(&n);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = 1000;
	LC_EQ_INT(adjx(&n, &tx, 1, t0), LC_TIME_ERROR);
	LC_EQ_I64(n.time_offset, 0);
	LC_EQ_I64(n.time_freq, 0);
	LC_EQ_I64(tx.offset, 0);

	/* ns mode: 1e6 ns after 64 s at tc 2 is the first vector */
	lc__ntp_init(&n);
	tx = mk(LC_ADJ_STATUS | LC_ADJ_NANO);
	tx.status = LC_STA_PLL;
	adjx(&n, &tx, 1, t0);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = 1000000;
	adjx(&n, &tx, 1, t0 + 64);
	LC_EQ_I64(n.time_freq, 33554432000000);
	LC_EQ_I64(tx.offset, 1000000); /* read back in ns (STA_NANO) */

	/* ns offsets clamp at MAXPHASE (5e8 ns); us offsets are first
	 * clamped to +-1e6 us, then to 5e8 ns: 2e6 us reads back 500000 */
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = -600000000;
	adjx(&n, &tx, 1, t0 + 64);
	LC_EQ_I64(tx.offset, -500000000);
	LC_EQ_I64(n.time_offset, -(INT64_C(500000000) << 32) / 1000);
	tx = mk(LC_ADJ_OFFSET | LC_ADJ_MICRO);
	tx.offset = 2000000;
	adjx(&n, &tx, 1, t0 + 64);
	LC_EQ_I64(tx.offset, 500000);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = INT64_MIN; /* the pre-clamp keeps *1000 from overflowing */
	adjx(&n, &tx, 1, t0 + 64);
	LC_EQ_I64(tx.offset, -500000);

	/* STA_FREQHOLD: secs = 0, so neither FLL nor PLL term; the phase is
	 * still taken */
	lc__ntp_init(&n);
	tx = mk(LC_ADJ_STATUS);
	tx.status = LC_STA_PLL | LC_STA_FREQHOLD;
	adjx(&n, &tx, 1, t0);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = 1000;
	adjx(&n, &tx, 1, t0 + 4096);
	LC_EQ_I64(n.time_freq, 0);
	LC_EQ_I64(n.time_offset, 4294967296000);
	LC_EQ_I64(n.time_reftime, t0 + 4096);
	LC_EQ_INT(n.time_status & LC_STA_MODE, 0);
}

/* VEC "remaining offset ... tc=2, HZ=1000": after an offset of 1000 us, each
 * second slews shift_right(time_offset, 2 + 2): 62,500 / 58,593 / 54,931 ns
 * are applied and 937,500 / 878,906 / 823,974 ns remain. The rate of each
 * second is the base (1e9 ns + time_freq) plus what is slewed. */
static void test_slew_remainders(void)
{
	static const int64_t remain[] = {937500, 878906, 823974, 772476,
	                                 724196};
	static const int64_t applied[] = {62500, 58593, 54931, 51498, 48279};
	struct lc__ntp n;
	struct lc_timex tx;
	const int64_t t0 = 1700000000;
	/* time_freq after the update is the first PLL vector */
	const int64_t base_rate =
	    ((INT64_C(1000000000) << 32) + 33554432000000) / 1000 * 1000;

	for (int sign = 1; sign >= -1; sign -= 2) {
		lc__ntp_init(&n);
		tx = mk(LC_ADJ_STATUS);
		tx.status = LC_STA_PLL;
		adjx(&n, &tx, 1, t0);
		tx = mk(LC_ADJ_OFFSET | LC_ADJ_FREQUENCY);
		tx.freq = 0;
		tx.offset = 1000 * sign;
		adjx(&n, &tx, 1, t0 + 64);
		LC_EQ_I64(n.time_freq, 33554432000000 * sign);
		for (int i = 0; i < 5; i++) {
			int64_t applied_scaled;
			lc__ntp_second_overflow(&n, t0 + 65 + i);
			/* us read: toward zero (-937.5 us reads -937) */
			tx = mk(0);
			adjx(&n, &tx, 0, t0 + 65 + i);
			LC_EQ_I64(tx.offset, remain[i] * sign / 1000);
			tx = mk(LC_ADJ_NANO);
			adjx(&n, &tx, 1, t0 + 65 + i);
			LC_EQ_I64(tx.offset, remain[i] * sign);
			tx = mk(LC_ADJ_MICRO);
			adjx(&n, &tx, 1, t0 + 65 + i);
			if (sign > 0) {
				applied_scaled = lc__ntp_rate(&n) - base_rate;
			} else {
				int64_t neg_base =
				    ((INT64_C(1000000000) << 32) -
				     33554432000000) /
				    1000 * 1000;
				applied_scaled = neg_base - lc__ntp_rate(&n);
			}
			/* toward zero: >> on the magnitude */
			LC_EQ_I64(applied_scaled >> 32, applied[i]);
		}
	}
}

/* ref 1.3 "Singleshot" and ref 4 "adjtime": 0x8001 returns the pending
 * adjustment (us) and replaces it; it is slewed at MAX_TICKADJ = 500 us per
 * second (rate 1e9 + 5e5 ns, exactly: (500,000 << 32) / 1000 per tick), the
 * last <= 500 us in one second; 1 s therefore takes 2000 s. 0xa001 only
 * reads. */
static void test_adjtime_singleshot(void)
{
	struct lc__ntp n;
	struct lc_timex tx;
	int64_t sum = 0, secs = 0, t = E;

	lc__ntp_init(&n);
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = 1000000;
	LC_EQ_INT(adjx(&n, &tx, 1, t), LC_TIME_ERROR);
	LC_EQ_I64(tx.offset, 0); /* nothing was pending */
	LC_EQ_I64(n.time_adjust, 1000000);
	LC_EQ_I64(lc__ntp_rate(&n), ONE_SEC_SCALED); /* from the next second */
	for (;;) {
		int64_t extra;
		lc__ntp_second_overflow(&n, ++t);
		extra = lc__ntp_rate(&n) - ONE_SEC_SCALED;
		if (extra == 0)
			break;
		LC_EQ_I64(extra, INT64_C(500000) << 32);
		sum += extra;
		secs++;
		if (secs == 1 || secs == 1000) {
			/* unprivileged read of the remainder */
			tx = mk(LC_ADJ_OFFSET_SS_READ);
			LC_GE_INT(adjx(&n, &tx, 0, t), 0);
			LC_EQ_I64(tx.offset, 1000000 - 500 * secs);
			LC_EQ_I64(n.time_adjust, 1000000 - 500 * secs);
		}
	}
	LC_EQ_I64(secs, 2000);
	LC_EQ_I64(sum, ONE_SEC_SCALED);
	LC_EQ_I64(n.time_adjust, 0);

	/* -1200 us: -500, -500, then the remainder -200, then nothing */
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = -1200;
	adjx(&n, &tx, 1, t);
	LC_EQ_I64(tx.offset, 0);
	lc__ntp_second_overflow(&n, ++t);
	LC_EQ_I64(lc__ntp_rate(&n) - ONE_SEC_SCALED, -(INT64_C(500000) << 32));
	lc__ntp_second_overflow(&n, ++t);
	LC_EQ_I64(lc__ntp_rate(&n) - ONE_SEC_SCALED, -(INT64_C(500000) << 32));
	lc__ntp_second_overflow(&n, ++t);
	LC_EQ_I64(lc__ntp_rate(&n) - ONE_SEC_SCALED, -(INT64_C(200000) << 32));
	lc__ntp_second_overflow(&n, ++t);
	LC_EQ_I64(lc__ntp_rate(&n), ONE_SEC_SCALED);

	/* a new singleshot returns what was pending and replaces it */
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = 5000;
	adjx(&n, &tx, 1, t);
	lc__ntp_second_overflow(&n, ++t);
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = 0;
	adjx(&n, &tx, 1, t);
	LC_EQ_I64(tx.offset, 4500);
	lc__ntp_second_overflow(&n, ++t);
	LC_EQ_I64(lc__ntp_rate(&n), ONE_SEC_SCALED);

	/* the NTP mode bits are not processed with 0x8000 (Linux checks only
	 * that 0x0001 is there): frequency and tick stay as they were */
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT | LC_ADJ_FREQUENCY | LC_ADJ_TICK);
	tx.offset = 10;
	tx.freq = 65536;
	tx.tick = 1;
	LC_GE_INT(adjx(&n, &tx, 1, t), 0);
	LC_EQ_I64(n.time_freq, 0);
	LC_EQ_I64(n.tick_usec, 10000);
	LC_EQ_I64(n.time_adjust, 10);
	LC_EQ_I64(tx.tick, 10000);
	/* the read mode reports without changing */
	tx = mk(LC_ADJ_OFFSET_SS_READ);
	tx.offset = 777;
	adjx(&n, &tx, 0, t);
	LC_EQ_I64(tx.offset, 10);
	LC_EQ_I64(n.time_adjust, 10);
}

/* ref 5 valid-adjtimex, ADJ_FREQUENCY part, and ref 1.2 step 3. */
static void test_validate_freq(void)
{
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	for (int64_t ppm = 1; ppm <= 499; ppm++) {
		for (int sign = -1; sign <= 1; sign += 2) {
			tx = mk(LC_ADJ_FREQUENCY);
			tx.freq = sign * ppm * 65536;
			LC_GE_INT(adjx(&n, &tx, 1, E), 0);
			LC_EQ_I64(tx.freq, sign * ppm * 65536);
		}
	}
	tx = mk(LC_ADJ_FREQUENCY);
	tx.freq = -1000;
	LC_GE_INT(adjx(&n, &tx, 1, E), 0);
	LC_EQ_I64(tx.freq, -1000);
	tx = mk(LC_ADJ_FREQUENCY);
	tx.freq = 0;
	LC_GE_INT(adjx(&n, &tx, 1, E), 0);
	LC_EQ_I64(tx.freq, 0);
	/* succeed, but read back clamped */
	{
		static const int64_t big[] = {550, 1000};
		for (int i = 0; i < 2; i++) {
			for (int sign = -1; sign <= 1; sign += 2) {
				tx = mk(LC_ADJ_FREQUENCY);
				tx.freq = sign * big[i] * 65536;
				LC_GE_INT(adjx(&n, &tx, 1, E), 0);
				LC_NE_I64(tx.freq, sign * big[i] * 65536);
				LC_EQ_I64(tx.freq, sign * 32768000);
			}
		}
	}
	/* 64-bit: freq * 65,536,000 must fit in int64. 2^63 / 65,536,000 =
	 * 140,737,488,355.33, so 140,737,488,355 is the last good value on
	 * either side (division toward zero). */
	tx = mk(LC_ADJ_FREQUENCY);
	tx.freq = LONG_MAX;
	LC_EQ_INT(adjx(&n, &tx, 1, E), LC_EINVAL);
	tx.freq = LONG_MIN;
	LC_EQ_INT(adjx(&n, &tx, 1, E), LC_EINVAL);
	tx.freq = INT64_C(140737488356);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
	tx.freq = -INT64_C(140737488356);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
	tx.freq = INT64_C(140737488355);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	tx.freq = -INT64_C(140737488355);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	LC_EQ_INT(adjx(&n, &tx, 1, E), LC_TIME_ERROR);
	LC_EQ_I64(tx.freq, -32768000);
}

/* ref 5 valid-adjtimex, ADJ_SETOFFSET part (ref 1.2 step 2): the fraction
 * must be in [0, unit) where unit is 1e9 with ADJ_NANO in *this call's*
 * modes, else 1e6; tv_sec any sign. */
static void test_validate_setoffset(void)
{
	for (int nano = 0; nano <= 1; nano++) {
		const int64_t unit = nano ? 1000000000 : 1000000;
		const unsigned int modes =
		    LC_ADJ_SETOFFSET | (nano ? LC_ADJ_NANO : 0);
		/* +(unit-1), -(unit-1) = {-1, 1}, -(unit+1) = {-2, unit-1},
		 * +-5 s, +-5.5 s */
		const int64_t ok[][2] = {
		    {0, unit - 1}, {-1, 1},       {-2, unit - 1}, {5, 0},
		    {-5, 0},       {5, unit / 2}, {-6, unit / 2}, {0, 0},
		};
		const int64_t bad[] = {-1, unit, 2 * unit, -unit};
		struct lc_timex tx;

		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
			tx = mk(modes);
			tx.time.tv_sec = ok[i][0];
			tx.time.tv_usec = ok[i][1];
			LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
		}
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			tx = mk(modes);
			tx.time.tv_sec = 0;
			tx.time.tv_usec = bad[i];
			LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
		}
	}
	/* the unit is this call's ADJ_NANO, not STA_NANO: a ns fraction in a
	 * call without ADJ_NANO is out of range even if STA_NANO is set */
	{
		struct lc__ntp n;
		struct lc_timex tx = mk(LC_ADJ_NANO);
		lc__ntp_init(&n);
		adjx(&n, &tx, 1, E);
		LC_TRUE(n.time_status & LC_STA_NANO);
		tx = mk(LC_ADJ_SETOFFSET);
		tx.time.tv_usec = 999999999;
		LC_EQ_INT(adjx(&n, &tx, 1, E), LC_EINVAL);
		tx = mk(LC_ADJ_SETOFFSET | LC_ADJ_NANO);
		tx.time.tv_usec = 999999999;
		LC_EQ_INT(adjx(&n, &tx, 1, E), LC_TIME_ERROR);
	}
}

/* ref 1.2: unprivileged callers may use modes 0 and 0xa001 only; the
 * singleshot rules come first; ADJ_TICK range 9000..11000 us. */
static void test_validate_perm_and_tick(void)
{
	static const unsigned int bits[] = {
	    LC_ADJ_OFFSET, LC_ADJ_FREQUENCY, LC_ADJ_MAXERROR, LC_ADJ_ESTERROR,
	    LC_ADJ_STATUS, LC_ADJ_TIMECONST, LC_ADJ_TAI,      LC_ADJ_SETOFFSET,
	    LC_ADJ_MICRO,  LC_ADJ_NANO,      LC_ADJ_TICK,
	};
	struct lc_timex tx;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		tx = mk(bits[i]);
		tx.tick = 10000;
		LC_EQ_INT(lc__ntp_validate(&tx, 0), LC_EPERM);
		LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	}
	tx = mk(0);
	LC_EQ_INT(lc__ntp_validate(&tx, 0), 0);
	tx = mk(LC_ADJ_OFFSET_SS_READ);
	LC_EQ_INT(lc__ntp_validate(&tx, 0), 0);
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	LC_EQ_INT(lc__ntp_validate(&tx, 0), LC_EPERM);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	/* 0x8000 without 0x0001 is EINVAL, before any privilege check */
	tx = mk(0x8000);
	LC_EQ_INT(lc__ntp_validate(&tx, 0), LC_EINVAL);
	tx = mk(0xa000);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
	/* the read with SETOFFSET still needs the privilege */
	tx = mk(LC_ADJ_OFFSET_SS_READ | LC_ADJ_SETOFFSET);
	LC_EQ_INT(lc__ntp_validate(&tx, 0), LC_EPERM);
	/* EPERM comes before the tick range */
	tx = mk(LC_ADJ_TICK);
	tx.tick = 1;
	LC_EQ_INT(lc__ntp_validate(&tx, 0), LC_EPERM);
	LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
	/* 900000 / USER_HZ .. 1100000 / USER_HZ */
	tx.tick = 8999;
	LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
	tx.tick = 9000;
	LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	tx.tick = 11000;
	LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	tx.tick = 11001;
	LC_EQ_INT(lc__ntp_validate(&tx, 1), LC_EINVAL);
	/* a bad tick is ignored with 0x8001: Linux checks it only outside
	 * the adjtime branch */
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT | LC_ADJ_TICK);
	tx.tick = 1;
	LC_EQ_INT(lc__ntp_validate(&tx, 1), 0);
	LC_EQ_INT(lc__ntp_validate(NULL, 1), LC_EFAULT);
}

/* ref 5 set-tai and ref 1.3 step 7: ADJ_TAI with constant 0..100000 sets the
 * offset; anything else is ignored; tai_changed tells the timekeeper. */
static void test_set_tai(void)
{
	struct lc__ntp n;
	struct lc_timex tx;
	int changed = -1;

	lc__ntp_init(&n);
	for (int i = 1; i <= 60; i++) {
		tx = mk(LC_ADJ_TAI);
		tx.constant = i;
		LC_GE_INT(lc__ntp_adjtimex(&n, &tx, E, &changed), 0);
		LC_EQ_INT(changed, 1);
		LC_EQ_INT(tx.tai, i);
		tx = mk(0);
		lc__ntp_adjtimex(&n, &tx, E, &changed);
		LC_EQ_INT(tx.tai, i);
		LC_EQ_INT(changed, 0);
	}
	tx = mk(LC_ADJ_TAI); /* same value: not a change */
	tx.constant = 60;
	lc__ntp_adjtimex(&n, &tx, E, &changed);
	LC_EQ_INT(changed, 0);
	tx = mk(LC_ADJ_TAI);
	tx.constant = -1;
	lc__ntp_adjtimex(&n, &tx, E, &changed);
	LC_EQ_INT(changed, 0);
	LC_EQ_INT(tx.tai, 60);
	tx = mk(LC_ADJ_TAI);
	tx.constant = 100001;
	lc__ntp_adjtimex(&n, &tx, E, &changed);
	LC_EQ_INT(tx.tai, 60);
	tx = mk(LC_ADJ_TAI);
	tx.constant = 100000;
	lc__ntp_adjtimex(&n, &tx, E, &changed);
	LC_EQ_INT(changed, 1);
	LC_EQ_INT(tx.tai, 100000);
	tx = mk(LC_ADJ_TAI); /* current kernels accept 0 */
	tx.constant = 0;
	lc__ntp_adjtimex(&n, &tx, E, NULL);
	LC_EQ_INT(tx.tai, 0);
	/* TAI and TIMECONST share `constant` (us mode: tc = 5 + 4) */
	tx = mk(LC_ADJ_TAI | LC_ADJ_TIMECONST);
	tx.constant = 5;
	lc__ntp_adjtimex(&n, &tx, E, NULL);
	LC_EQ_INT(tx.tai, 5);
	LC_EQ_I64(tx.constant, 9);
}

/* ref 1.3 step 6: tc = clamp(c, 0, 10), +4 unless STA_NANO, clamp again. */
static void test_timeconst(void)
{
	static const int64_t us[][2] = {{-5, 4}, {0, 4},  {2, 6},
	                                {6, 10}, {7, 10}, {100, 10}};
	static const int64_t ns[][2] = {
	    {-1, 0}, {0, 0}, {3, 3}, {10, 10}, {11, 10}};
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
		tx = mk(LC_ADJ_TIMECONST);
		tx.constant = us[i][0];
		adjx(&n, &tx, 1, E);
		LC_EQ_I64(tx.constant, us[i][1]);
		LC_EQ_I64(n.time_constant, us[i][1]);
	}
	/* ADJ_NANO is processed before TIMECONST in the same call */
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		tx = mk(LC_ADJ_TIMECONST | LC_ADJ_NANO);
		tx.constant = ns[i][0];
		adjx(&n, &tx, 1, E);
		LC_EQ_I64(tx.constant, ns[i][1]);
	}
	/* and MICRO too: with STA_NANO set, MICRO in the call adds the 4 */
	tx = mk(LC_ADJ_TIMECONST | LC_ADJ_MICRO);
	tx.constant = 3;
	adjx(&n, &tx, 1, E);
	LC_EQ_I64(tx.constant, 7);
	/* NANO and MICRO together: MICRO wins */
	tx = mk(LC_ADJ_NANO | LC_ADJ_MICRO);
	adjx(&n, &tx, 1, E);
	LC_EQ_INT(tx.status & LC_STA_NANO, 0);
}

/* ref 1.5 and ref 1.3 step 5: maxerror grows 500 us per second and is
 * pinned at 16e6 with STA_UNSYNC: from 0 it reaches 16e6 after 32,000 s and
 * the 32,001st second sets UNSYNC. esterror does not grow. Both are clamped
 * to [0, 16e6] when set. */
static void test_maxerror_growth(void)
{
	struct lc__ntp n;
	struct lc_timex tx;
	int64_t t = E;

	lc__ntp_init(&n);
	tx = mk(LC_ADJ_MAXERROR | LC_ADJ_ESTERROR | LC_ADJ_STATUS);
	tx.maxerror = 0;
	tx.esterror = 1234;
	tx.status = 0;
	LC_EQ_INT(adjx(&n, &tx, 1, t), LC_TIME_OK);
	for (int i = 1; i <= 32000; i++) {
		lc__ntp_second_overflow(&n, ++t);
		if (n.time_maxerror != 500 * (int64_t)i)
			LC_EQ_I64(n.time_maxerror, 500 * (int64_t)i);
	}
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_OK);
	LC_EQ_I64(tx.maxerror, 16000000);
	LC_EQ_I64(tx.esterror, 1234);
	lc__ntp_second_overflow(&n, ++t); /* the 32,001st */
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_ERROR);
	LC_EQ_I64(tx.maxerror, 16000000);
	LC_EQ_INT(tx.status, LC_STA_UNSYNC);

	tx = mk(LC_ADJ_MAXERROR | LC_ADJ_ESTERROR);
	tx.maxerror = -5;
	tx.esterror = 20000000;
	adjx(&n, &tx, 1, t);
	LC_EQ_I64(tx.maxerror, 0);
	LC_EQ_I64(tx.esterror, 16000000);
}

/* ref 2.6: lc__ntp_clear() stops adjtime, sets UNSYNC, maxerror = esterror =
 * 16e6, drops the phase and the armed leap; the frequency, the state and
 * STA_INS/DEL stay. */
static void test_clear(void)
{
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	tx = mk(LC_ADJ_STATUS | LC_ADJ_FREQUENCY | LC_ADJ_MAXERROR);
	tx.status = LC_STA_PLL | LC_STA_INS;
	tx.freq = 65536;
	tx.maxerror = 10;
	adjx(&n, &tx, 1, E - 100);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = 300;
	adjx(&n, &tx, 1, E - 36);
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = 3000;
	adjx(&n, &tx, 1, E - 36);
	lc__ntp_second_overflow(&n, E - 35);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	LC_NE_I64(n.time_offset, 0);

	lc__ntp_clear(&n);
	LC_EQ_INT(n.time_state, LC_TIME_INS);
	LC_EQ_INT(n.time_status, LC_STA_PLL | LC_STA_INS | LC_STA_UNSYNC);
	LC_EQ_I64(n.time_adjust, 0);
	LC_EQ_I64(n.time_offset, 0);
	LC_EQ_I64(n.time_maxerror, 16000000);
	LC_EQ_I64(n.time_esterror, 16000000);
	LC_EQ_I64(n.next_leap_sec, INT64_MAX);
	/* the rate is the base of the (kept) frequency: 1 ppm + the PLL's
	 * own update of 300 us over 64 s (capped to 32) at tc 2:
	 * 3e5 * 32 << 20 = 10,066,329,600,000 */
	LC_EQ_I64(n.time_freq, 4294967296000 + 10066329600000);
	LC_EQ_I64(lc__ntp_rate(&n), ((INT64_C(1000000000) << 32) +
	                             4294967296000 + 10066329600000) /
	                                1000 * 1000);
}

/* ref 1.2 "Everything else is clamped": rejected input changes nothing, in
 * the state nor in *tx (issue 3). */
static void test_invalid_unchanged(void)
{
	struct bad {
		unsigned int modes;
		int privileged;
		int64_t tick, freq, usec;
		int expect;
	};
	static const struct bad v[] = {
	    {LC_ADJ_TICK | LC_ADJ_STATUS, 1, 8999, 0, 0, LC_EINVAL},
	    {LC_ADJ_TICK | LC_ADJ_FREQUENCY, 1, 11001, 65536, 0, LC_EINVAL},
	    {LC_ADJ_FREQUENCY | LC_ADJ_STATUS, 1, 0, LONG_MAX, 0, LC_EINVAL},
	    {LC_ADJ_FREQUENCY, 1, 0, LONG_MIN, 0, LC_EINVAL},
	    {LC_ADJ_SETOFFSET | LC_ADJ_STATUS, 1, 0, 0, -1, LC_EINVAL},
	    {LC_ADJ_SETOFFSET, 1, 0, 0, 1000000, LC_EINVAL},
	    {LC_ADJ_SETOFFSET | LC_ADJ_NANO, 1, 0, 0, 1000000000, LC_EINVAL},
	    {0x8000, 1, 0, 0, 0, LC_EINVAL},
	    {0x8000 | LC_ADJ_STATUS, 1, 0, 0, 0, LC_EINVAL},
	    {LC_ADJ_OFFSET_SINGLESHOT, 0, 0, 0, 0, LC_EPERM},
	    {LC_ADJ_STATUS, 0, 0, 0, 0, LC_EPERM},
	    {LC_ADJ_TAI, 0, 0, 0, 0, LC_EPERM},
	    {LC_ADJ_OFFSET_SS_READ | LC_ADJ_SETOFFSET, 0, 0, 0, 0, LC_EPERM},
	};
	struct lc__ntp n, snap;
	struct lc_timex tx, txsnap;

	/* a state with something in every field */
	lc__ntp_init(&n);
	tx = mk(LC_ADJ_STATUS | LC_ADJ_FREQUENCY | LC_ADJ_TAI);
	tx.status = LC_STA_PLL | LC_STA_INS;
	tx.freq = 12345;
	tx.constant = 36;
	adjx(&n, &tx, 1, E - 100);
	tx = mk(LC_ADJ_OFFSET);
	tx.offset = -250;
	adjx(&n, &tx, 1, E - 80);
	tx = mk(LC_ADJ_OFFSET_SINGLESHOT);
	tx.offset = 2000;
	adjx(&n, &tx, 1, E - 80);
	lc__ntp_second_overflow(&n, E - 79);

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memcpy(&snap, &n, sizeof(n));
		tx = mk(v[i].modes);
		tx.status = LC_STA_DEL;
		tx.constant = 7;
		tx.offset = 99;
		tx.tick = v[i].tick;
		tx.freq = v[i].freq;
		tx.time.tv_usec = v[i].usec;
		memcpy(&txsnap, &tx, sizeof(tx));
		LC_EQ_INT(adjx(&n, &tx, v[i].privileged, E - 79), v[i].expect);
		LC_TRUE(memcmp(&snap, &n, sizeof(n)) == 0);
		LC_TRUE(memcmp(&txsnap, &tx, sizeof(tx)) == 0);
		/* the module re-checks on its own (as privileged) */
		if (v[i].privileged) {
			LC_EQ_INT(lc__ntp_adjtimex(&n, &tx, E - 79, NULL),
			          v[i].expect);
			LC_TRUE(memcmp(&snap, &n, sizeof(n)) == 0);
			LC_TRUE(memcmp(&txsnap, &tx, sizeof(tx)) == 0);
		}
	}
}

/* ref 1.1 STA_RONLY and ref 1.4 "Return": read-only bits cannot be set; the
 * return is TIME_ERROR only for STA_UNSYNC or STA_CLOCKERR (we model Linux
 * without CONFIG_NTP_PPS, so STA_PPSFREQ/PPSTIME without a PPS signal do
 * not make it TIME_ERROR). */
static void test_status_and_return(void)
{
	struct lc__ntp n;
	struct lc_timex tx;

	lc__ntp_init(&n);
	LC_EQ_INT(set_status(&n, 0xffff & ~LC_STA_UNSYNC), LC_TIME_OK);
	read_tx(&n, &tx);
	LC_EQ_INT(tx.status, 0x00ff & ~LC_STA_UNSYNC);
	LC_EQ_INT(set_status(&n, LC_STA_PPSFREQ | LC_STA_PPSTIME), LC_TIME_OK);
	LC_EQ_INT(set_status(&n, LC_STA_UNSYNC), LC_TIME_ERROR);
	/* STA_CLOCKERR (read-only) is kept if the state has it */
	n.time_status |= LC_STA_CLOCKERR;
	LC_EQ_INT(set_status(&n, 0), LC_TIME_ERROR);
	LC_EQ_INT(n.time_status, LC_STA_CLOCKERR);
	n.time_status = 0;

	/* the return follows the state at each boundary, as long as maxerror
	 * stays below 16e6: from the initial 16e6 the first boundary alone
	 * sets UNSYNC again (ref 1.5) */
	lc__ntp_init(&n);
	LC_EQ_INT(set_status(&n, LC_STA_INS), LC_TIME_OK);
	lc__ntp_second_overflow(&n, E - 2);
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_ERROR);
	LC_EQ_INT(tx.status, LC_STA_INS | LC_STA_UNSYNC);
	tx = mk(LC_ADJ_STATUS | LC_ADJ_MAXERROR);
	tx.status = LC_STA_INS;
	tx.maxerror = 0;
	LC_EQ_INT(adjx(&n, &tx, 1, E - 2), LC_TIME_INS);
	lc__ntp_second_overflow(&n, E - 1);
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_INS);
	lc__ntp_second_overflow(&n, E);
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_OOP);
	LC_EQ_INT(tx.tai, 1);
	lc__ntp_second_overflow(&n, E);
	LC_EQ_INT(read_tx(&n, &tx), LC_TIME_WAIT);
	/* UNSYNC hides the state */
	LC_EQ_INT(set_status(&n, LC_STA_INS | LC_STA_UNSYNC), LC_TIME_ERROR);
	LC_EQ_INT(n.time_state, LC_TIME_WAIT);
}

/* Closes the loop the way an NTP daemon does, on a modelled oscillator that
 * runs `err_ppm` fast: each second the clock advances (1 + err) times the
 * second's length lc__ntp_rate() prescribes; every `poll` seconds the daemon
 * measures the offset and passes its negation (us) with ADJ_OFFSET. Returns
 * the largest |offset| (us) over the last `tail` seconds; *ppm gets the final
 * frequency read back. */
static double run_loop(double err_ppm, int status, int64_t poll, int64_t total,
                       int64_t tail, double *ppm)
{
	struct lc__ntp n;
	struct lc_timex tx;
	const int64_t t0 = 1700000000;
	double off_ns = 0, worst = 0;

	lc__ntp_init(&n);
	tx = mk(LC_ADJ_STATUS | LC_ADJ_TIMECONST);
	tx.status = status;
	tx.constant = 0; /* us mode: tc 4, a 16 s loop */
	adjx(&n, &tx, 1, t0);
	for (int64_t t = 1; t <= total; t++) {
		lc__ntp_second_overflow(&n, t0 + t);
		off_ns += (1 + err_ppm * 1e-6) *
		              ((double)lc__ntp_rate(&n) / 4294967296.0) -
		          1e9;
		if (t % poll == 0) {
			tx = mk(LC_ADJ_OFFSET);
			tx.offset = (int64_t)(-off_ns / 1000);
			adjx(&n, &tx, 1, t0 + t);
			*ppm = (double)tx.freq / 65536;
		}
		if (t > total - tail && fabs(off_ns / 1000) > worst)
			worst = fabs(off_ns / 1000);
	}
	return worst;
}

/* issue 3 "PLL and FLL converge with a 50 ppm frequency error": the
 * frequency must settle at -50 / 1.00005 = -49.9975 ppm (the correction is
 * applied to the fast oscillator's seconds) and the offset near zero. PLL:
 * 16 s polls at tc 4 (ref 4: gain 1/2^(2*(4+tc)) per s^2). FLL: STA_FLL with
 * 512 s polls (> MINSEC), where the FLL term offset/secs/4 does the work. */
static void test_loop_converges(void)
{
	double ppm = 0, worst;

	worst = run_loop(50, LC_STA_PLL, 16, 20000, 5000, &ppm);
	LC_EQ_DBL(ppm, -50 / 1.00005, 0.01);
	LC_TRUE(worst < 2);
	worst = run_loop(-50, LC_STA_PLL, 16, 20000, 5000, &ppm);
	LC_EQ_DBL(ppm, 50 / 0.99995, 0.01);
	LC_TRUE(worst < 2);
	worst = run_loop(50, LC_STA_PLL | LC_STA_FLL, 512, 40000, 10000, &ppm);
	LC_EQ_DBL(ppm, -50 / 1.00005, 0.01);
	LC_TRUE(worst < 5);
}

/* ref 2.3: the adjtimex read path shows the leap on its edge even before
 * the boundary has been processed. */
static void test_read_leap(void)
{
	struct lc__ntp n;
	struct lc_timex tx;
	int r;

	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS);
	lc__ntp_second_overflow(&n, E - 5);
	/* 23:59:59: nothing to fix */
	r = read_tx(&n, &tx);
	tx.time.tv_sec = E - 1;
	LC_EQ_INT(lc__ntp_read_leap(&n, E - 1, r, &tx), r);
	LC_EQ_I64(tx.time.tv_sec, E - 1);
	LC_EQ_INT(tx.tai, 0);
	/* 00:00:00.001, the boundary E not yet run: 23:59:60, OOP, tai + 1,
	 * even though the state machine's return is TIME_ERROR (UNSYNC from
	 * maxerror) */
	r = read_tx(&n, &tx);
	LC_EQ_INT(r, LC_TIME_ERROR);
	tx.time.tv_sec = E;
	LC_EQ_INT(lc__ntp_read_leap(&n, E, r, &tx), LC_TIME_OOP);
	LC_EQ_I64(tx.time.tv_sec, E - 1);
	LC_EQ_INT(tx.tai, 1);
	/* boundary E processed: the clock reads E-1 again, state OOP */
	LC_EQ_INT(lc__ntp_second_overflow(&n, E), -1);
	r = read_tx(&n, &tx);
	tx.time.tv_sec = E - 1;
	LC_EQ_INT(lc__ntp_read_leap(&n, E - 1, LC_TIME_OOP, &tx), LC_TIME_OOP);
	LC_EQ_I64(tx.time.tv_sec, E - 1);
	LC_EQ_INT(tx.tai, 1);
	/* the real 00:00:00 before the OOP -> WAIT boundary ran */
	tx.time.tv_sec = E;
	LC_EQ_INT(lc__ntp_read_leap(&n, E, LC_TIME_OOP, &tx), LC_TIME_WAIT);
	LC_EQ_I64(tx.time.tv_sec, E);
	LC_EQ_INT(tx.tai, 1);
	lc__ntp_second_overflow(&n, E);
	LC_EQ_INT(lc__ntp_read_leap(&n, E, LC_TIME_WAIT, &tx), LC_TIME_WAIT);

	/* deletion: at 23:59:59 unprocessed the read shows 00:00:00 */
	lc__ntp_init(&n);
	set_status(&n, LC_STA_DEL);
	lc__ntp_second_overflow(&n, E - 5);
	r = read_tx(&n, &tx);
	tx.time.tv_sec = E - 1;
	LC_EQ_INT(lc__ntp_read_leap(&n, E - 1, r, &tx), LC_TIME_WAIT);
	LC_EQ_I64(tx.time.tv_sec, E);
	LC_EQ_INT(tx.tai, -1);

	/* cancelled (STA_INS cleared, state still INS): no fix-up */
	lc__ntp_init(&n);
	set_status(&n, LC_STA_INS);
	lc__ntp_second_overflow(&n, E - 5);
	set_status(&n, 0);
	r = read_tx(&n, &tx);
	tx.time.tv_sec = E;
	LC_EQ_INT(lc__ntp_read_leap(&n, E, r, &tx), r);
	LC_EQ_I64(tx.time.tv_sec, E);
	LC_EQ_INT(tx.tai, 0);
}

/* ref 5 adjtick at the module level: eight ticks from -10% to +7.5% of
 * 10000 us with STA_PLL, offset = freq = 0. Each reads back as set, and each
 * second is then exactly tick * USER_HZ us long: the drift against the
 * nominal rate is tick / 10000 - 1, over 15 s as over one. */
static void test_adjtick(void)
{
	for (int64_t tick = 9000; tick <= 10750; tick += 250) {
		struct lc__ntp n;
		struct lc_timex tx;
		__int128 sum = 0;

		lc__ntp_init(&n);
		tx = mk(LC_ADJ_STATUS | LC_ADJ_OFFSET | LC_ADJ_FREQUENCY |
		        LC_ADJ_TICK);
		tx.status = LC_STA_PLL;
		tx.tick = tick;
		LC_GE_INT(adjx(&n, &tx, 1, E), 0);
		LC_EQ_I64(tx.tick, tick);
		LC_EQ_I64(tx.offset, 0);
		LC_EQ_I64(tx.freq, 0);
		for (int i = 1; i <= 15; i++) {
			lc__ntp_second_overflow(&n, E + i);
			sum += lc__ntp_rate(&n);
		}
		LC_TRUE(sum == (__int128)15 * ((tick * 100000) << 32));
		tx = mk(0);
		adjx(&n, &tx, 0, E + 15);
		LC_EQ_I64(tx.tick, tick);
		LC_EQ_I64(tx.offset, 0);
		LC_EQ_I64(tx.freq, 0);
	}
}

/* ref 5 leapcrash at the module level: ADJ_STATUS = STA_INS repeated many
 * times within every second across the leap changes nothing: one insertion,
 * the same state sequence, TAI-UTC + 1 once. */
static void test_leapcrash(void)
{
	struct lc__ntp n;
	int64_t xtime = E - 3;
	int leaps = 0;
	struct step s;

	lc__ntp_init(&n);
	while (xtime < E + 2) {
		for (int k = 0; k < 100; k++)
			LC_GE_INT(set_status(&n, LC_STA_INS), 0);
		s = tick(&n, &xtime);
		if (s.ret != 0) {
			leaps++;
			LC_EQ_I64(s.secs, E);
			LC_EQ_INT(s.ret, -1);
		}
	}
	LC_EQ_INT(leaps, 1);
	LC_EQ_INT(n.tai_offset, 1);
	LC_EQ_INT(n.time_state, LC_TIME_WAIT);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_initial_state, "fresh state: TIME_ERROR, status 0x40, "
	                           "Linux defaults, rate 1e9<<32 (ref 1.1)");
	LC_RUN(test_insert_sequence, "insertion: INS, -1 at midnight, OOP one "
	                             "second, WAIT, tai +1 (ref 2.2)");
	LC_RUN(test_delete_sequence, "deletion: DEL, +1 at 23:59:59, WAIT, "
	                             "tai -1 (ref 2.2)");
	LC_RUN(test_cancel, "clearing STA_INS/DEL before the leap cancels it");
	LC_RUN(test_wait_persists, "WAIT holds while STA_INS stays set: no "
	                           "second insertion the next day");
	LC_RUN(test_ins_wins, "STA_INS wins over STA_DEL");
	LC_RUN(test_next_leap_vectors, "next-leap instants for the four "
	                               "secs of the reference");
	LC_RUN(test_pending_leap, "pending_leap agrees with second_overflow "
	                          "in every state");
	LC_RUN(test_pending_after_swap, "a flag swapped in INS/DEL: the other "
	                                "direction is predicted at once");
	LC_RUN(test_pll_off_resets, "PLL on->off resets the leap machine");
	LC_RUN(test_leap_a_day_clear, "leap-a-day's clear_time_state then "
	                              "STA_INS reads back exactly STA_INS");
	LC_RUN(test_freq_roundtrip, "frequency round trips and clamps (VEC)");
	LC_RUN(test_freq_roundtrip_random, "every in-range frequency reads "
	                                   "back exactly");
	LC_RUN(test_rate_from_freq_and_tick, "rate = (tick * USER_HZ us + "
	                                     "freq) << 32");
	LC_RUN(test_pll_vectors, "PLL/FLL frequencies of the reference and "
	                         "the MINSEC/MAXSEC edges");
	LC_RUN(test_offset_modes, "offset: ignored without PLL, ns/us units, "
	                          "clamps, FREQHOLD");
	LC_RUN(test_slew_remainders, "phase slew remainders 937500/878906/"
	                             "823974 ns at tc 2");
	LC_RUN(test_adjtime_singleshot, "adjtime: 500 us/s, 1 s in 2000 s, "
	                                "remainder, read");
	LC_RUN(test_validate_freq, "valid-adjtimex ADJ_FREQUENCY: succeed, "
	                           "clamp, overflow EINVAL");
	LC_RUN(test_validate_setoffset, "valid-adjtimex ADJ_SETOFFSET "
	                                "fractions in us and ns");
	LC_RUN(test_validate_perm_and_tick, "EPERM for unprivileged modes, "
	                                    "singleshot rules, tick range");
	LC_RUN(test_set_tai, "set-tai 1..60, out-of-range ignored, shared "
	                     "constant");
	LC_RUN(test_timeconst, "TIMECONST clamps and the +4 in us mode");
	LC_RUN(test_maxerror_growth, "maxerror +500 us/s, UNSYNC on second "
	                             "32001, clamps");
	LC_RUN(test_clear, "ntp_clear keeps state, INS and freq; drops the "
	                   "rest");
	LC_RUN(test_invalid_unchanged, "rejected input leaves state and tx "
	                               "unchanged");
	LC_RUN(test_status_and_return, "read-only status bits, return value "
	                               "per state and UNSYNC");
	LC_RUN(test_loop_converges, "PLL and FLL converge on a 50 ppm "
	                            "frequency error");
	LC_RUN(test_read_leap, "adjtimex read path shows the leap on its "
	                       "edge (ref 2.3)");
	LC_RUN(test_adjtick, "adjtick: eight ticks read back and set the "
	                     "length of the second exactly");
	LC_RUN(test_leapcrash, "leapcrash: STA_INS spammed across the leap "
	                       "inserts once");
	return lc_test_done();
}
