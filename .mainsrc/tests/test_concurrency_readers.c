/*
 * test_concurrency_readers.c - reader threads hammer every clock while a
 * writer thread advances the simulated counter and updates at random rates
 * through 100 leaps (insertions and deletions, smeared on UTC_SLS). No reader
 * may see a clock go backwards where DESIGN.md section 3 forbids it:
 * MONOTONIC*, BOOTTIME, TAI, UTC (in its 23:59:60 ordering) and UTC_SLS
 * never; REALTIME only at an inserted second, by at most 1 s, into 23:59:59.
 * `make check` runs this under ThreadSanitizer: the latch must be free of
 * data races in the C11 sense.
 */
#include "lc_test.h"

#include "leapclock.h"

#include <pthread.h>
#include <stdatomic.h>

#define NS INT64_C(1000000000)
#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define D2030 INT64_C(1893456000)
#define LEAPS 100
#define READERS 2

static lc_counter *cnt;
static lc_timekeeper *tk;
static atomic_int done;
static int64_t writer_prev;
static long writer_backs;
static atomic_long failures, reads, rt_backs;
static char first_failure[256];
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t fmod_pos(int64_t a, int64_t b)
{
	int64_t r = a % b;

	return r < 0 ? r + b : r;
}

static void fail(const char *what, int64_t a, int64_t b)
{
	if (atomic_fetch_add(&failures, 1) == 0) {
		pthread_mutex_lock(&msg_lock);
		snprintf(first_failure, sizeof(first_failure),
		         "%s: %" PRId64 " then %" PRId64, what, a, b);
		pthread_mutex_unlock(&msg_lock);
	}
}

static void *reader(void *arg)
{
	struct timespec prev[LC_CLOCK_COUNT], ts;
	long n = 0;

	(void)arg;
	memset(prev, 0, sizeof(prev));
	while (!atomic_load(&done)) {
		for (int id = 0; id < LC_CLOCK_COUNT; id++) {
			int64_t a, b;

			lc_gettime(tk, (lc_clock_id)id, &ts);
			n++;
			a = (int64_t)prev[id].tv_sec * NS + prev[id].tv_nsec;
			b = (int64_t)ts.tv_sec * NS + ts.tv_nsec;
			if (id == LC_CLOCK_UTC || id == LC_CLOCK_UTC_SLS) {
				/* lexicographic: (sec, nsec up to 2e9) */
				if (ts.tv_sec < prev[id].tv_sec ||
				    (ts.tv_sec == prev[id].tv_sec &&
				     ts.tv_nsec < prev[id].tv_nsec))
					fail(lc_clock_name((lc_clock_id)id), a, b);
				if (id == LC_CLOCK_UTC_SLS && ts.tv_nsec >= NS)
					fail("UTC_SLS shows a 60th second", a, b);
			} else if (b < a) {
				if (id != LC_CLOCK_REALTIME)
					fail(lc_clock_name((lc_clock_id)id), a, b);
				else if (a - b > NS ||
				         fmod_pos((int64_t)ts.tv_sec, 86400) != 86399)
					fail("REALTIME back outside a leap", a, b);
				else
					atomic_fetch_add(&rt_backs, 1);
			}
			prev[id] = ts;
		}
	}
	atomic_fetch_add(&reads, n);
	return NULL;
}

static void adj_status(int status)
{
	struct lc_timex tx;

	memset(&tx, 0, sizeof(tx));
	tx.modes = LC_ADJ_STATUS;
	tx.status = status;
	lc_adjtimex(tk, &tx);
}

/* Advances true time by `ns` in random steps of up to `step`, updating with
 * probability 1/`upd` after each step. */
static void walk(int64_t *t, int64_t ns, int64_t step, int upd, int pause)
{
	int64_t end = *t + ns;

	while (*t < end) {
		*t += lc_rand_range(1, step);
		if (*t > end)
			*t = end;
		lc_sim_set_true_ns(cnt, *t);
		if (lc_rand() % (uint64_t)upd == 0)
			lc_update(tk);
		if (pause) {
			/* Within 3 ms of a second boundary of REALTIME, let
			 * the readers run at this instant. */
			int64_t rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
			int64_t f = rt % NS;

			if (rt < writer_prev)
				writer_backs++;
			writer_prev = rt;

			if (f < 3 * MS || f > NS - 3 * MS) {
				struct timespec d = { 0, 20000 };

				nanosleep(&d, NULL);
			}
		}
	}
}

static void test_readers_through_leaps(void)
{
	struct lc_smear_policy p;
	struct lc_tk_config cfg;
	pthread_t th[READERS];
	int64_t t = 0;
	int sanitized = getenv("LC_SANITIZED") != NULL;
	int leaps = sanitized ? 30 : LEAPS; /* TSan is ~10x slower */

	LC_EQ_INT(lc_smear_preset("minute", 0, &p, NULL), 0);
	LC_EQ_INT(lc_counter_new_sim(&cnt, 1000000000u, 30000), 0);
	lc_tk_config_init(&cfg);
	cfg.initial_realtime_ns = (D2030 - 200) * NS;
	cfg.smear = &p;
	LC_EQ_INT(lc_tk_new(&tk, cnt, &cfg), 0);
	for (int i = 0; i < READERS; i++)
		pthread_create(&th[i], NULL, reader, NULL);

	for (int k = 0; k < leaps; k++) {
		int64_t w = D2030 + (int64_t)k * 86400;
		int64_t rt = lc_now_ns(tk, LC_CLOCK_REALTIME);
		struct lc_timex tx;

		/* jump to 23:58:20 and arm (the smear window is the last
		 * minute) */
		t += (w - 100) * NS - rt;
		lc_sim_set_true_ns(cnt, t);
		lc_update(tk);
		/* the counter runs 30 ppm fast: land on 23:58:20 exactly */
		t += (w - 100) * NS - lc_now_ns(tk, LC_CLOCK_REALTIME);
		lc_sim_set_true_ns(cnt, t);
		adj_status(LC_STA_PLL);
		memset(&tx, 0, sizeof(tx));
		tx.modes = LC_ADJ_MAXERROR;
		lc_adjtimex(tk, &tx);
		adj_status(0);
		adj_status(k % 2 ? LC_STA_DEL : LC_STA_INS);
		walk(&t, 99 * NS - 200 * MS, 20 * MS, 4, 0); /* the smear */
		/* the leap edge, slowly enough in wall time for the readers
		 * to read around it */
		walk(&t, 1400 * MS, 200 * US, 1 + k % 50, 1);
		walk(&t, 800 * MS, 20 * MS, 3, 0);
		adj_status(0);
		walk(&t, 2 * NS, 50 * MS, 2, 0);
	}
	atomic_store(&done, 1);
	for (int i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&failures) != 0)
		printf("  %ld failures; first: %s\n", atomic_load(&failures),
		       first_failure);
	printf("  %ld reads, %ld REALTIME steps back at insertions\n",
	       atomic_load(&reads), atomic_load(&rt_backs));
	LC_EQ_I64(atomic_load(&failures), 0);
	LC_GT_I64(atomic_load(&reads), 1000);
	/* the readers did read across insertions */
	LC_GT_I64(atomic_load(&rt_backs), 0);
	/* the writer saw each insertion (once), and REALTIME net of the
	 * insertions and deletions is where MONOTONIC says */
	LC_EQ_I64(writer_backs, (leaps + 1) / 2);
	LC_EQ_I64(lc_now_ns(tk, LC_CLOCK_REALTIME),
	          (D2030 - 200) * NS + lc_now_ns(tk, LC_CLOCK_MONOTONIC) -
	                  (leaps % 2) * NS);
	lc_tk_free(tk);
	lc_counter_free(cnt);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_readers_through_leaps,
	       "2 readers x every clock while the writer updates at random "
	       "rates through 100 leaps: nothing goes back where forbidden");
	return lc_test_done();
}
