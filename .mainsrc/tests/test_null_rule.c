/* test_null_rule.c - the header's NULL rule (leapclock.h, "NULL, one rule
 * for every function"; issue 15): every public function that takes an
 * object handle (lc_leaptable, lc_counter, lc_timekeeper, lc_loop,
 * lc_timer) refuses NULL without harm, by the kind of value it returns:
 * LC_EINVAL for 0-or-error functions, 0 for counts, flags, times and
 * sequences, NULL for pointers, nothing for void functions, and the stated
 * exceptions (lc_loop_next_deadline INT64_MAX, lc_loop_fd -1,
 * lc_timer_clock LC_CLOCK_COUNT). Each call runs in a child process, so a
 * NULL dereference is reported as that call's failure, not as the end of
 * the test. */
#include "lc_test.h"

#include "leapclock.h"

#include <signal.h>
#include <sys/wait.h>

/* Runs the statements in a child; ok = 1 if they returned with their checks
 * held, 0 if a check failed or it crashed (printed with the call). */
#define IN_CHILD(what, ok, ...)                                                \
	do {                                                                   \
		pid_t p_;                                                      \
		int st_ = 0;                                                   \
		fflush(stdout);                                                \
		p_ = fork();                                                   \
		if (p_ == 0) {                                                 \
			lc_t_case_failed = 0;                                  \
			__VA_ARGS__;                                           \
			fflush(stdout);                                        \
			_exit(lc_t_case_failed ? 1 : 0);                       \
		}                                                              \
		(ok) = 0;                                                      \
		if (p_ > 0 && waitpid(p_, &st_, 0) == p_) {                    \
			if (WIFSIGNALED(st_))                                  \
				printf("  %s: crashed (signal %d)\n", what,    \
				       WTERMSIG(st_));                         \
			else                                                   \
				(ok) = WEXITSTATUS(st_) == 0;                  \
		}                                                              \
	} while (0)

#define CASE(what, ...)                                                        \
	do {                                                                   \
		int ok_;                                                       \
		IN_CHILD(what, ok_, __VA_ARGS__);                              \
		lc_t_checks++;                                                 \
		if (!ok_)                                                      \
			LC_T_FAIL_("NULL rule broken by %s", what);            \
	} while (0)

#define N_INT(call, want)                                                      \
	CASE(#call, LC_T_CMP_(int, "d", call, ==, want, (void)0))
#define N_I64(call, want)                                                      \
	CASE(#call, LC_T_CMP_(int64_t, PRId64, call, ==, want, (void)0))
#define N_U64(call, want)                                                      \
	CASE(#call, LC_T_CMP_(uint64_t, PRIu64, call, ==, want, (void)0))
typedef const void *cptr;
#define N_PTR(call)                                                            \
	CASE(#call, LC_T_CMP_(cptr, "p", (cptr)(call), ==, (cptr)NULL, (void)0))
#define N_VOID(call) CASE(#call, call)

/* The harness itself: a child that dereferences NULL, or whose check
 * fails, is reported as broken; one that holds is not. */
static void test_harness(void)
{
	volatile int *volatile nowhere = NULL;
	int ok;

	IN_CHILD("a NULL dereference", ok, (void)*nowhere);
	LC_EQ_INT(ok, 0);
	IN_CHILD("a failing check", ok, LC_EXPECT_I64(1, 2));
	LC_EQ_INT(ok, 0);
	IN_CHILD("a passing check", ok, LC_EXPECT_I64(2, 2));
	LC_EQ_INT(ok, 1);
}

static void test_leaptable(void)
{
	struct lc_leaptable_info info;
	struct lc_leaptable_search search;
	struct lc_leap leap;
	struct lc_error err;
	struct timespec ts = {1483228800, 0};
	int32_t off;
	int64_t ns;
	int in_leap;

	N_VOID(lc_leaptable_free(NULL));
	N_VOID(lc_leaptable_reset_builtin(NULL));
	N_INT(lc_leaptable_load_file(NULL, LC_TEST_DATA_DIR "/x", 0, &err),
	      LC_EINVAL);
	N_INT(lc_leaptable_load_buffer(NULL, "x", "", 0, 0, NULL), LC_EINVAL);
	N_INT(lc_leaptable_load_system(NULL, NULL), LC_EINVAL);
	N_INT(lc_leaptable_load_system_report(NULL, &search, NULL), LC_EINVAL);
	N_INT(lc_leaptable_info(NULL, &info), LC_EINVAL);
	N_INT(lc_leaptable_expired(NULL, 0), 0);
	N_U64(lc_leaptable_count(NULL), 0);
	N_INT(lc_leaptable_get(NULL, 0, &leap), LC_EINVAL);
	N_INT(lc_leaptable_tai_utc(NULL, 1483228800, &off), LC_EINVAL);
	N_INT(lc_leaptable_tai_utc_at_tai(NULL, 1483228837, &off, &in_leap),
	      LC_EINVAL);
	N_INT(lc_leaptable_leap_at(NULL, 1483228799), 0);
	N_INT(lc_leaptable_next(NULL, 0, &leap), LC_EINVAL);
	N_INT(lc_leaptable_prev(NULL, 0, &leap), LC_EINVAL);
	/* the conversions take a table: NULL is refused */
	N_INT(lc_utc_check(NULL, &ts), LC_EINVAL);
	N_INT(lc_tai_from_utc(NULL, &ts, &ns), LC_EINVAL);
	N_INT(lc_utc_from_tai(NULL, 0, &ts), LC_EINVAL);
	N_INT(lc_tai_from_unix(NULL, 0, &ns), LC_EINVAL);
	N_INT(lc_unix_from_tai(NULL, 0, &ns), LC_EINVAL);
}

/* The stated exception: lc_iso8601_parse(_range) without a table reads
 * second 60 at any 23:59:60 UTC. */
static void test_parse_without_table(void)
{
	struct timespec ts;

	LC_EQ_INT(lc_iso8601_parse("2015-12-31T23:59:60Z", NULL, &ts, NULL), 0);
	LC_EQ_I64(ts.tv_nsec, LC_NSEC_PER_SEC);
	LC_EQ_INT(lc_iso8601_parse_range("2015-12-31T23:59:60Z", NULL,
	                                 LC_RANGE_FIRST_SEC, LC_RANGE_END_SEC,
	                                 &ts, NULL),
	          0);
}

static void test_counter(void)
{
	lc_timekeeper *tk = (lc_timekeeper *)NULL;

	N_VOID(lc_counter_free(NULL));
	N_U64(lc_counter_read(NULL), 0);
	N_U64(lc_counter_freq(NULL), 0);
	N_INT(lc_counter_kind(NULL), LC_EINVAL);
	N_PTR(lc_counter_name(NULL));
	N_VOID(lc_sim_advance(NULL, 1000));
	N_VOID(lc_sim_set_true_ns(NULL, 1000));
	N_I64(lc_sim_true_ns(NULL), 0);
	N_I64(lc_sim_true_ns_at(NULL, 1000), 0);
	N_INT(lc_tk_new(&tk, NULL, NULL), LC_EINVAL);
}

static void test_timekeeper(void)
{
	struct timespec ts = {0, 0};
	struct lc_timeline_info ti;
	struct lc_tk_host host;
	struct lc_bounds bounds;
	struct lc_bounds_info binfo;
	struct lc_timex tx;
	struct lc_tm tm;
	int64_t when;
	int dir;

	memset(&tx, 0, sizeof(tx));
	N_VOID(lc_tk_free(NULL));
	N_PTR(lc_tk_counter(NULL));
	N_PTR(lc_tk_table(NULL));
	N_INT(lc_tk_leap_source(NULL), LC_EINVAL);
	N_INT(lc_timeline_info(NULL, &ti), LC_EINVAL);
	N_INT(lc_update(NULL), LC_EINVAL);
	N_INT(lc_gettime(NULL, LC_CLOCK_REALTIME, &ts), LC_EINVAL);
	N_INT(lc_gettime(NULL, LC_CLOCK_UTC, &ts), LC_EINVAL);
	N_I64(lc_now_ns(NULL, LC_CLOCK_MONOTONIC), 0);
	N_I64(lc_now_ns(NULL, LC_CLOCK_UTC_SLS), 0);
	N_INT(lc_gettime_utc_tm(NULL, &tm), LC_EINVAL);
	N_INT(lc_settime(NULL, LC_CLOCK_REALTIME, &ts), LC_EINVAL);
	N_U64(lc_clock_was_set_seq(NULL), 0);
	N_INT(lc_adjtimex(NULL, &tx), LC_EINVAL);
	N_INT(lc_adjtimex_unprivileged(NULL, &tx), LC_EINVAL);
	N_INT(lc_tk_host_status(NULL, &host), LC_EINVAL);
	N_INT(lc_tk_next_leap(NULL, &when, &dir), LC_EINVAL);
	N_INT(lc_gettime_bounds(NULL, LC_CLOCK_UTC, &bounds), LC_EINVAL);
	N_INT(lc_tk_bounds_info(NULL, &binfo), LC_EINVAL);
}

static void cb(lc_timer *t, int status, void *data)
{
	(void)t;
	(void)status;
	(void)data;
}

static void test_loop_and_timer(void)
{
	lc_counter *c = NULL;
	lc_timekeeper *tk = NULL;
	lc_loop *loop = (lc_loop *)NULL;
	struct timespec ts = {1, 0};
	lc_timer t;

	N_INT(lc_loop_new(&loop, NULL, 0), LC_EINVAL);
	N_VOID(lc_loop_free(NULL));
	N_PTR(lc_loop_timekeeper(NULL));
	N_INT(lc_loop_reserve(NULL, LC_CLOCK_MONOTONIC, 8), LC_EINVAL);
	N_U64(lc_loop_count(NULL), 0);
	N_I64(lc_loop_next_deadline(NULL), INT64_MAX);
	N_INT(lc_loop_expire(NULL), 0);
	N_I64(lc_loop_run_sim(NULL, 1000), LC_EINVAL);
	N_I64(lc_loop_run(NULL, LC_RUN_NOWAIT), LC_EINVAL);
	N_VOID(lc_loop_stop(NULL));
	N_INT(lc_loop_fd(NULL), -1);

	N_INT(lc_timer_init(NULL, &t, LC_CLOCK_MONOTONIC, cb, NULL), LC_EINVAL);
	N_INT(lc_timer_start(NULL, 0, &ts, NULL), LC_EINVAL);
	N_INT(lc_timer_start_ns(NULL, 0, 1000, 0), LC_EINVAL);
	N_INT(lc_timer_stop(NULL), 0);
	N_INT(lc_timer_active(NULL), 0);
	N_INT(lc_timer_remaining(NULL, &ts), LC_EINVAL);
	N_INT(lc_timer_deadline(NULL, &ts), LC_EINVAL);
	N_I64(lc_timer_overrun(NULL), 0);
	N_PTR(lc_timer_data(NULL));
	N_INT((int)lc_timer_clock(NULL), (int)LC_CLOCK_COUNT);

	/* a real loop, a NULL timer */
	LC_EQ_INT(lc_counter_new_sim(&c, 1000000000, 0), 0);
	LC_EQ_INT(lc_tk_new(&tk, c, NULL), 0);
	LC_EQ_INT(lc_loop_new(&loop, tk, 0), 0);
	N_INT(lc_timer_init(loop, NULL, LC_CLOCK_MONOTONIC, cb, NULL),
	      LC_EINVAL);
	LC_EQ_U64(lc_loop_count(loop), 0);
	lc_loop_free(loop);
	lc_tk_free(tk);
	lc_counter_free(c);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_harness, "a crash or a failed check in a child is caught");
	LC_RUN(test_leaptable,
	       "lc_leaptable_* and the conversions refuse a NULL table");
	LC_RUN(test_parse_without_table,
	       "lc_iso8601_parse(_range): a NULL table means no table");
	LC_RUN(test_counter, "lc_counter_* and lc_sim_* refuse NULL");
	LC_RUN(test_timekeeper,
	       "the timekeeper's readers, writers and queries refuse NULL");
	LC_RUN(test_loop_and_timer,
	       "lc_loop_* and lc_timer_* refuse a NULL loop or timer");
	return lc_test_done();
}
