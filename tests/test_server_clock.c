/*
 * test_server_clock.c - what leapclockd's modes serve (tools/leapclockd/
 * clock.c) at chosen instants, through --pretend: the leap indicator day by
 * day, the repeated 23:59:59 of an inserted second, and smeared time for
 * presets whose numbers are derived here by hand. A reading is taken a few
 * microseconds after the pretended instant, so values are compared within
 * 5 ms (the smear rates are at most 1000 ppm: 5 us of smear drift).
 * Every preset is swept through an insertion and a deletion with readings
 * at exact TAI instants (LC_SMEAR_SWEEP=full: 1 ms steps through every
 * whole window), against the library's pure smear and convert's answer.
 */
#include "lc_test.h"

#include "leapclockd.h"
#include "clockbound.h"

#include "ntp_packet.h"
/* `leapclock convert --to utc-sls`, for the served smear to agree with */
#include "../tools/leapclock/smearconv.c"

#include <stdarg.h>

void ld_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

#define MS INT64_C(1000000)
#define S INT64_C(1000000000)
/* 2017-01-01T00:00:00Z in POSIX seconds; the inserted second is before it */
#define NY2017 INT64_C(1483228800)

static struct ld_clock *clk;
static struct ld_source *src;

/* A clock pretending `when`, serving `mode` ("utc" or "smear:NAME"). */
static int open_at(const char *when, const char *mode, const char *leapfile)
{
	struct ld_config cfg;
	struct ld_listen_cfg l;
	char text[64], msg[256];

	ld_clock_free(clk);
	clk = NULL;
	ld_config_init(&cfg);
	snprintf(cfg.pretend, sizeof(cfg.pretend), "%s", when);
	snprintf(cfg.leapfile, sizeof(cfg.leapfile), "%s", leapfile);
	snprintf(text, sizeof(text), "127.0.0.1:1=%s", mode);
	if (ld_config_parse_listen(text, &l, msg, sizeof(msg)) != 0 ||
	    ld_clock_new(&clk, &cfg) != 0)
		return -1;
	src = ld_clock_source(clk, &l);
	return src != NULL ? 0 : -1;
}

static const char *iers(void)
{
	return LC_TEST_DATA_DIR "/leap-seconds.list.tzdata2026f";
}

static void read_at(const char *when, const char *mode, struct ld_reading *r)
{
	memset(r, 0, sizeof(*r));
	if (open_at(when, mode, iers()) != 0) {
		LC_T_FAIL_("cannot pretend %s for %s", when, mode);
		return;
	}
	ld_source_read(src, r);
}

static void test_li_days(void)
{
	struct ld_reading r;

	read_at("2016-12-30T23:59:59.9Z", "utc", &r);
	LC_BAIL();
	LC_EQ_INT(r.li, LD_LI_NONE);
	read_at("2016-12-31T00:00:00.1Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	read_at("2016-12-31T12:00:00Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	read_at("2016-12-31T23:59:59.5Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	/* the inserted second: still announced, served as 23:59:59.5 again */
	read_at("2016-12-31T23:59:60.5Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	LC_GE_I64(r.unix_ns, (NY2017 - 1) * S + 500 * MS);
	LC_LT_I64(r.unix_ns, (NY2017 - 1) * S + 505 * MS);
	read_at("2017-01-01T00:00:00.1Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_NONE);
	LC_GE_I64(r.unix_ns, NY2017 * S + 100 * MS);
	LC_LT_I64(r.unix_ns, NY2017 * S + 105 * MS);
	/* 2015-06-30 too; an ordinary month end does not */
	read_at("2015-06-30T08:00:00Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	read_at("2016-06-30T08:00:00Z", "utc", &r);
	LC_EQ_INT(r.li, LD_LI_NONE);
	/* a smearing server never announces */
	read_at("2016-12-31T20:00:00Z", "smear:google", &r);
	LC_EQ_INT(r.li, LD_LI_NONE);
}

/* served - POSIX within 5 ms of `want_ns`, and served = POSIX + that */
static void check_smear(const char *when, const char *mode, int64_t posix_ns,
                        int64_t want_ns)
{
	struct ld_reading r;

	read_at(when, mode, &r);
	LC_BAIL();
	LC_GE_I64(r.smear_ns, want_ns - 5 * MS);
	LC_LE_I64(r.smear_ns, want_ns + 5 * MS);
	LC_GE_I64(r.unix_ns, posix_ns + want_ns - 5 * MS);
	LC_LE_I64(r.unix_ns, posix_ns + want_ns + 5 * MS);
}

static void test_smear_google(void)
{
	/* 24 h linear, noon to noon on a UTC clock: 86401 SI s around the
	 * insertion. At 18:00, 21600 s in: 21600/86401 s behind. */
	check_smear("2016-12-31T18:00:00Z", "smear:google",
	            (NY2017 - 6 * 3600) * S, -249997106);
	LC_BAIL();
	/* 06:00 after: 64801 s in (with the leap second); served = T - g
	 * with T one second ahead of POSIX: 1 - 64801/86401 = 0.249997 s */
	check_smear("2017-01-01T06:00:00Z", "smear:google",
	            (NY2017 + 6 * 3600) * S, 249997106);
	LC_BAIL();
	/* outside the window: plain UTC */
	check_smear("2016-12-31T11:00:00Z", "smear:google",
	            (NY2017 - 13 * 3600) * S, 0);
	LC_BAIL();
	check_smear("2017-01-01T13:00:00Z", "smear:google",
	            (NY2017 + 13 * 3600) * S, 0);
}

static void test_smear_utc_sls(void)
{
	/* Kuhn's UTC-SLS: the last 1000 s before midnight run 0.1% slow.
	 * 500 s before midnight: 500 s in, 0.5 s behind. */
	check_smear("2016-12-31T23:51:40Z", "smear:utc-sls",
	            (NY2017 - 500) * S, -500 * MS);
	LC_BAIL();
	/* 23:59:60.5: 999.5 s in, served 00:00:00.5 (pre-leap count) -
	 * 0.9995 s = 23:59:59.5005; POSIX repeats 23:59:59.5 */
	check_smear("2016-12-31T23:59:60.5Z", "smear:utc-sls",
	            (NY2017 - 1) * S + 500 * MS, 500000);
	LC_BAIL();
	check_smear("2016-12-31T23:40:00Z", "smear:utc-sls",
	            (NY2017 - 1200) * S, 0);
}

static void test_refid_from_reading(void)
{
	struct ld_reading r;
	int64_t back;

	read_at("2016-12-31T18:00:00Z", "smear:google", &r);
	LC_BAIL();
	LC_EQ_INT(ld_ntp_smear_refid_decode(ld_ntp_smear_refid(r.smear_ns),
	                                    &back), 0);
	LC_LE_I64(back - r.smear_ns, 120);
	LC_LE_I64(r.smear_ns - back, 120);
}

/* Readings at exact TAI instants (ld_source_at, what the server uses for
 * kernel receive timestamps). 2017-01-01T00:00:00Z is TAI 1483228837 s
 * (TAI-UTC 37 s), so 23:59:60.0 is TAI 1483228836 and the first
 * 23:59:59.0 is TAI 1483228835. */
static void test_at_tai(void)
{
	const int64_t t60 = INT64_C(1483228836) * S;
	struct ld_reading r;

	if (open_at("2016-12-31T12:00:00Z", "utc", iers()) != 0) {
		LC_T_FAIL_("%s", "cannot open");
		return;
	}
	ld_source_at(src, t60 - 100 * MS, &r); /* 23:59:59.9 */
	LC_EQ_I64(r.unix_ns, (NY2017 - 1) * S + 900 * MS);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	ld_source_at(src, t60 + 100 * MS, &r); /* 23:59:60.1: repeated */
	LC_EQ_I64(r.unix_ns, (NY2017 - 1) * S + 100 * MS);
	LC_EQ_INT(r.li, LD_LI_INSERT);
	ld_source_at(src, t60 + 1100 * MS, &r); /* 00:00:00.1 */
	LC_EQ_I64(r.unix_ns, NY2017 * S + 100 * MS);
	LC_EQ_INT(r.li, LD_LI_NONE);

	if (open_at("2016-12-31T12:00:00Z", "smear:utc-sls", iers()) != 0) {
		LC_T_FAIL_("%s", "cannot open");
		return;
	}
	/* 23:59:60.5: 999.5 s of 1000 in, served 23:59:59.5005 against the
	 * repeated 23:59:59.5: exactly 0.5 ms ahead */
	ld_source_at(src, t60 + 500 * MS, &r);
	LC_EQ_I64(r.unix_ns, (NY2017 - 1) * S + 500 * MS + 500000);
	LC_EQ_I64(r.smear_ns, 500000);
	LC_EQ_INT(r.li, LD_LI_NONE);
	ld_source_at(src, t60 + 1000 * MS, &r); /* midnight: smear done */
	LC_EQ_I64(r.unix_ns, NY2017 * S);
	LC_EQ_I64(r.smear_ns, 0);
}

/* A deletion at the end of 2030-06-30 (none has happened: the table gets
 * one for the test). 2030-07-01T00:00:00Z is POSIX 1909094400; TAI-UTC
 * goes from 37 to 36 s, so that midnight is TAI 1909094436 and half a
 * second before it on TAI the clock reads 23:59:58.5 (23:59:59 is gone). */
static void test_deletion(void)
{
	char path[] = "/tmp/lc-test-server-clock.XXXXXX";
	const int64_t p = INT64_C(1909094400), mid_tai = (p + 36) * S;
	char line[256];
	struct ld_reading r;
	FILE *in, *out;
	int fd = mkstemp(path);

	in = fopen(LC_TEST_DATA_DIR "/leapseconds.tzdata2026f", "r");
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (in == NULL || out == NULL) {
		LC_T_FAIL_("%s", "cannot write the test's leap file");
		return;
	}
	while (fgets(line, sizeof(line), in) != NULL)
		if (strncmp(line, "#expires", 8) != 0)
			fputs(line, out);
	fputs("Leap\t2030\tJun\t30\t23:59:59\t-\tS\n", out);
	fclose(in);
	fclose(out);
	if (open_at("2030-06-30T12:00:00Z", "utc", path) != 0) {
		LC_T_FAIL_("cannot load %s", path);
		unlink(path);
		return;
	}
	unlink(path);
	ld_source_read(src, &r);
	LC_EQ_INT(r.li, LD_LI_DELETE);
	ld_source_at(src, mid_tai - 500 * MS, &r);
	LC_EQ_I64(r.unix_ns, p * S - 1500 * MS);
	LC_EQ_INT(r.li, LD_LI_DELETE);
	ld_source_at(src, mid_tai + 500 * MS, &r);
	LC_EQ_I64(r.unix_ns, p * S + 500 * MS);
	LC_EQ_INT(r.li, LD_LI_NONE);
}

/* The smear computed here as a function of the instant agrees with the
 * library's own UTC_SLS for a timekeeper that ran through the whole window
 * (simulated counter from 2016-12-31T00:00Z with the google policy). */
static void test_matches_timekeeper_sls(void)
{
	struct lc_smear_policy pol;
	struct lc_tk_config tc;
	lc_counter *cnt = NULL;
	lc_timekeeper *tk = NULL;
	lc_leaptable *tab = lc_leaptable_new();
	int64_t t = 0, worst = 0, deepest = 0;

	if (open_at("2016-12-31T00:00:00Z", "smear:google", iers()) != 0 ||
	    tab == NULL ||
	    lc_leaptable_load_file(tab, iers(), LC_LEAPFMT_AUTO, NULL) < 0 ||
	    lc_smear_preset("google", 0, &pol, NULL) < 0 ||
	    lc_counter_new_sim(&cnt, 1000000000, 0) < 0) {
		LC_T_FAIL_("%s", "setup");
		lc_leaptable_free(tab);
		return;
	}
	lc_tk_config_init(&tc);
	tc.table = tab;
	tc.leap_source = LC_LEAP_FROM_TABLE;
	tc.initial_realtime_ns = (NY2017 - 86400) * S;
	tc.smear = &pol;
	if (lc_tk_new(&tk, cnt, &tc) < 0) {
		LC_T_FAIL_("%s", "lc_tk_new");
		goto out;
	}
	/* 36 h in steps of 997 s (not aligned to anything), updating */
	for (t = 0; t <= 36 * 3600 * S; t += 997 * S) {
		struct ld_reading r;
		int64_t d;

		lc_sim_set_true_ns(cnt, t);
		lc_update(tk);
		ld_source_at(src, lc_now_ns(tk, LC_CLOCK_TAI), &r);
		d = r.unix_ns - lc_now_ns(tk, LC_CLOCK_UTC_SLS);
		if (d < 0)
			d = -d;
		if (d > worst)
			worst = d;
		if (r.smear_ns < deepest)
			deepest = r.smear_ns;
	}
	/* it did smear: nearly half a second behind before the leap */
	LC_LT_I64(deepest, -490000000);
	/* a read of each clock in between: both are exact on the sim */
	LC_LE_I64(worst, 1000);
out:
	lc_tk_free(tk);
	lc_counter_free(cnt);
	lc_leaptable_free(tab);
}

/* ---------------------------------------------------------------------- */
/* Every preset, both directions: the served smear is the library's         */
/* ---------------------------------------------------------------------- */

#define US INT64_C(1000)

/* The test data's tzdata table plus a deleted second at the end of
 * 2029-06-30 (TAI-UTC 37 -> 36), written to `path` (a mkstemp name). */
static int write_deletion_file(char *path, int64_t *when)
{
	char line[256];
	FILE *in, *out;
	int fd = mkstemp(path);

	*when = lc_days_from_civil(2029, 7, 1) * 86400;
	in = fopen(LC_TEST_DATA_DIR "/leapseconds.tzdata2026f", "r");
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (in == NULL || out == NULL) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return -1;
	}
	while (fgets(line, sizeof(line), in) != NULL)
		if (strncmp(line, "#expires", 8) != 0)
			fputs(line, out);
	fputs("Leap\t2029\tJun\t30\t23:59:59\t-\tS\n", out);
	fclose(in);
	return fclose(out) == 0 ? 0 : -1;
}

struct band {
	int64_t lo, hi, step;
};

/* Steps relative to the leap instant L (the start of 23:59:60, or of the
 * deleted 23:59:59): 1 us within 20 ms of L, of midnight and of the
 * window's ends; 1 ms over the whole window and 2 s either side when
 * LC_SMEAR_SWEEP=full or the window is at most 2100 s, else 1 ms within
 * 300 s of those instants and 997 ms in between. */
static int make_bands(int64_t s, int64_t e, struct band *b)
{
	const char *env = getenv("LC_SMEAR_SWEEP");
	int64_t c[4] = {0, S, s, e};
	int n = 0, full = (env != NULL && strcmp(env, "full") == 0) ||
	                  e - s <= 2100 * S;

	for (int i = 0; i < 4; i++)
		b[n++] = (struct band){c[i] - 20 * MS, c[i] + 20 * MS, US};
	if (full)
		b[n++] = (struct band){(s < 0 ? s : 0) - 2 * S,
		                       (e > S ? e : S) + 2 * S, MS};
	else
		for (int i = 0; i < 4; i++)
			b[n++] = (struct band){c[i] - 300 * S, c[i] + 300 * S,
			                       MS};
	return n;
}

static int64_t sweep_next(const struct band *b, int n, int64_t rel)
{
	int64_t step = 997 * MS, next;

	for (int i = 0; i < n; i++)
		if (rel >= b[i].lo && rel < b[i].hi && b[i].step < step)
			step = b[i].step;
	next = rel + step;
	for (int i = 0; i < n; i++)
		if (b[i].lo > rel && b[i].lo < next)
			next = b[i].lo;
	return next;
}

/* One reading checked against the library (lc__smear_sls_from_tai) and
 * convert (lc_smearconv_to_sls), with |UTC_SLS - UTC| <= 1 s, the smear
 * offset it carries, no LI, and UTC itself outside [ws, we). */
static int check_reading(const struct lc_smear_policy *p, int64_t tai,
                         int64_t rel, int64_t ws, int64_t we,
                         const struct ld_reading *r)
{
	const lc_leaptable *t = ld_clock_table(clk);
	struct timespec u, o;
	int64_t lib = 0, rt = 0, un;

	LC_EXPECT_I64(lc__smear_sls_from_tai(t, p, tai, &lib), 0);
	LC_EXPECT_I64(lc_unix_from_tai(t, tai, &rt), 0);
	LC_EXPECT_I64(lc_utc_from_tai(t, tai, &u), 0);
	un = lc__ts_to_ns(&u); /* UTC's count: 23:59:60.f is midnight + f */
	LC_EXPECT_I64(lc_smearconv_to_sls(t, p, &u, &o), 0);
	if (r->unix_ns != lib || r->unix_ns != lc__ts_to_ns(&o) ||
	    r->smear_ns != r->unix_ns - rt || r->li != LD_LI_NONE ||
	    r->unix_ns - un > S || un - r->unix_ns > S ||
	    ((rel < ws || rel >= we) && r->unix_ns != un)) {
		LC_T_FAIL_("%s at TAI %" PRId64 " (rel %" PRId64
		           " ns): served %" PRId64 " (smear %" PRId64
		           ", li %u), library %" PRId64 ", convert %" PRId64
		           ", UTC count %" PRId64 ", POSIX %" PRId64,
		           p->name, tai, rel, r->unix_ns, r->smear_ns, r->li,
		           lib, lc__ts_to_ns(&o), un, rt);
		return -1;
	}
	return 0;
}

/* Sweeps the leap of `when` in table file `leapfile` for preset `name`
 * through ld_source_at in time order: the served UTC_SLS never goes back. */
static void sweep_served(const char *leapfile, const char *name, int64_t when)
{
	char mode[48];
	struct lc_smear_policy p;
	struct lc_leap lp;
	struct band b[8];
	int64_t ws, we, L, lo, hi, prev = INT64_MIN;
	int nb;

	snprintf(mode, sizeof(mode), "smear:%s", name);
	if (open_at("2016-12-31T12:00:00Z", mode, leapfile) != 0 ||
	    lc_smear_preset(name, 0, &p, NULL) < 0 ||
	    lc_leaptable_prev(ld_clock_table(clk), when, &lp) != 0 ||
	    lp.when != when) {
		LC_T_FAIL_("cannot serve %s with %s", mode, leapfile);
		return;
	}
	lc_smear_window_dir(&p, lp.dir, &ws, &we);
	L = (when + lp.tai_utc - (lp.dir > 0 ? 1 : 0)) * S;
	nb = make_bands(ws, we, b);
	lo = hi = 0;
	for (int i = 0; i < nb; i++) {
		lo = b[i].lo < lo ? b[i].lo : lo;
		hi = b[i].hi > hi ? b[i].hi : hi;
	}
	for (int64_t rel = lo; rel <= hi; rel = sweep_next(b, nb, rel)) {
		struct ld_reading r;

		ld_source_at(src, L + rel, &r);
		if (r.unix_ns <= prev) {
			LC_T_FAIL_("%s dir %d: served time went back at rel %" PRId64
			           " ns: %" PRId64 " after %" PRId64,
			           name, lp.dir, rel, r.unix_ns, prev);
			return;
		}
		prev = r.unix_ns;
		if (check_reading(&p, L + rel, rel, ws, we, &r) < 0)
			return;
	}
	/* random instants in random order (the source's cached span moves
	 * between windows and quiet stretches) */
	for (int i = 0; i < 20000; i++) {
		struct ld_reading r;
		int64_t rel = lc_rand_range(0, 3) == 0
		                  ? lc_rand_range(-400 * 86400 * S, 400 * 86400 * S)
		                  : lc_rand_range(lo, hi);

		ld_source_at(src, L + rel, &r);
		if (check_reading(&p, L + rel, rel, ws, we, &r) < 0)
			return;
	}
}

static void test_every_preset_both_directions(void)
{
	char path[] = "/tmp/lc-test-server-smear.XXXXXX";
	int64_t del;

	if (write_deletion_file(path, &del) != 0) {
		LC_T_FAIL_("%s", "cannot write the test's leap file");
		unlink(path);
		return;
	}
	for (const char *const *n = lc_smear_preset_names();
	     *n != NULL && !lc_t_case_failed; n++) {
		sweep_served(iers(), *n, NY2017);
		if (!lc_t_case_failed)
			sweep_served(path, *n, del);
	}
	unlink(path);
}

/* The report of issue 11: smear:chrony (and fbclock) pretending
 * 23:59:58 served 23:59:59.636 during the inserted second, then
 * 23:59:59.038: back a second at the leap. The window starts at
 * 23:59:60.000, so 23:59:60.x reads 00:00:00.x, already smeared. */
static void test_starting_presets_at_the_leap(void)
{
	const int64_t t60 = INT64_C(1483228836) * S;
	const char *modes[] = {"smear:chrony", "smear:fbclock"};

	for (int i = 0; i < 2; i++) {
		struct ld_reading r;

		if (open_at("2016-12-31T23:59:58Z", modes[i], iers()) != 0) {
			LC_T_FAIL_("cannot open %s", modes[i]);
			return;
		}
		ld_source_at(src, t60 - 364 * MS, &r); /* 23:59:59.636 */
		LC_EQ_I64(r.unix_ns, (NY2017 - 1) * S + 636 * MS);
		LC_EQ_I64(r.smear_ns, 0);
		/* 23:59:60.636: 00:00:00.636 less what the smear, from
		 * 23:59:60.000 on (issue 28.16), took: 10.2 us at fbclock's
		 * 16 ppm, 0.2 ns on chrony's ramp */
		ld_source_at(src, t60 + 636 * MS, &r);
		LC_GT_I64(r.unix_ns, NY2017 * S + 636 * MS - 10200);
		LC_LE_I64(r.unix_ns, NY2017 * S + 636 * MS);
		LC_GT_I64(r.smear_ns, S - 10200); /* ahead of the repeated */
		LC_LE_I64(r.smear_ns, S);         /* 23:59:59 */
		ld_source_at(src, t60 + 1038 * MS, &r); /* 00:00:00.038 */
		LC_GT_I64(r.unix_ns, NY2017 * S + 1037 * MS);
		LC_LE_I64(r.unix_ns, NY2017 * S + 1038 * MS);
		LC_GT_I64(r.smear_ns, S - MS);
		LC_LE_I64(r.smear_ns, S);
	}
}

static void test_bad_pretend(void)
{
	/* 23:59:60 on a day without a leap, and a date that is not one */
	LC_EQ_INT(open_at("2016-12-30T23:59:60Z", "utc", iers()), -1);
	LC_EQ_INT(open_at("2016-13-01T00:00:00Z", "utc", iers()), -1);
	LC_EQ_INT(open_at("2016-12-31T00:00:00Z", "smear:nosuch", iers()), -1);
	LC_EQ_INT(open_at("2016-12-31T00:00:00Z", "utc", "/nonexistent/leap"), -1);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_li_days, "LI only on the day that ends with the leap, inserted second included");
	LC_RUN(test_smear_google, "smear:google before and after the leap, and outside the window");
	LC_RUN(test_smear_utc_sls, "smear:utc-sls: Kuhn's 1000 s, through 23:59:60");
	LC_RUN(test_at_tai, "readings at exact TAI instants through 23:59:60 (utc, utc-sls)");
	LC_RUN(test_deletion, "a deleted second: LI 2 on its day, 23:59:58 then 00:00:00");
	LC_RUN(test_matches_timekeeper_sls, "the served smear equals the timekeeper's UTC_SLS through the window");
	LC_RUN(test_refid_from_reading, "the refid carries the reading's smear offset");
	LC_RUN(test_starting_presets_at_the_leap,
	       "smear:chrony, smear:fbclock: 23:59:60.x is served as 00:00:00.x, never back");
	LC_RUN(test_every_preset_both_directions,
	       "every preset, an insertion and a deletion: the served UTC_SLS never goes back, "
	       "is within 1 s of UTC, equals the library and convert, and UTC outside the window");
	LC_RUN(test_bad_pretend, "bad --pretend, preset or leap file refused");
	ld_clock_free(clk);
	return lc_test_done();
}
