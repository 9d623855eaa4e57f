/*
 * test_ntp.c - the adjtimex state machine (src/ntp.c) as a pure module: no
 * clocks, the test passes the seconds in. Every expected value is derived
 * from /work/shared/reference/linux-leap-semantics.md ("ref N.N") or its
 * linux-ntp-vectors.py ("VEC"), or from the arithmetic written next to it.
 */
#include "lc_test.h"
#include "ntp.h"

#include <limits.h>

/* 2015-07-01 00:00:00 UTC: the midnight after the June 2015 leap (ref 2.2). */
#define E INT64_C(1435708800)
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
	s = tick(&n, &xtime); /* the real 00:00:00 */
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
	LC_RUN(test_pll_off_resets, "PLL on->off resets the leap machine");
	LC_RUN(test_leap_a_day_clear, "leap-a-day's clear_time_state then "
	                              "STA_INS reads back exactly STA_INS");
	return lc_test_done();
}
