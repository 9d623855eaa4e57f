/* test_timer_heap.c - the timer queue on its own: the 4-ary heap of
 * src/timer.c checked against a sort of the same (key, seq) pairs, with
 * random inserts and removals anywhere, ties in start order, and the
 * memory it takes per timer. */
#include "lc_test.h"
#include "timer.h"

#include <stdlib.h>

static int cmp_timer(const void *a, const void *b)
{
	const struct lc__timer *x = *(struct lc__timer *const *)a;
	const struct lc__timer *y = *(struct lc__timer *const *)b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Pops everything, checking against the reference order of `ref`. */
static void drain_and_compare(struct lc__heap *h, struct lc__timer **ref,
                              size_t n)
{
	qsort(ref, n, sizeof(*ref), cmp_timer);
	for (size_t i = 0; i < n; i++) {
		struct lc__timer *t = lc__heap_top(h);
		LC_TRUE(t != NULL);
		LC_TRUE(t == ref[i]);
		lc__heap_remove(h, t);
		LC_EQ_INT((int)t->idx, 0);
	}
	LC_TRUE(lc__heap_top(h) == NULL);
	LC_EQ_INT((int)lc__heap_count(h), 0);
}

static void test_order_matches_sort(void)
{
	enum { N = 20000 };
	struct lc__timer *tm = calloc(N, sizeof(*tm));
	struct lc__timer **ref = calloc(N, sizeof(*ref));
	struct lc__heap h = {0};
	uint64_t seq = 0;

	for (size_t round = 0; round < 4; round++) {
		/* few distinct keys in some rounds: ties everywhere */
		int64_t span = round % 2 ? 16 : INT64_C(1) << 40;
		for (size_t i = 0; i < N; i++) {
			tm[i].key = lc_rand_range(-span, span);
			tm[i].seq = ++seq;
			LC_EQ_INT(lc__heap_insert(&h, &tm[i]), 0);
			ref[i] = &tm[i];
		}
		LC_EQ_INT(lc__heap_check(&h), 0);
		LC_EQ_INT((int)lc__heap_count(&h), N);
		drain_and_compare(&h, ref, N);
		LC_BAIL();
	}
	lc__heap_free(&h);
	free(tm);
	free(ref);
}

static void test_remove_anywhere(void)
{
	enum { N = 5000 };
	struct lc__timer *tm = calloc(N, sizeof(*tm));
	struct lc__timer **ref = calloc(N, sizeof(*ref));
	char *in = calloc(N, 1);
	struct lc__heap h = {0};
	uint64_t seq = 0;
	size_t live = 0, nref = 0;

	/* 200k random operations: insert an idle timer, remove a queued one
	 * (anywhere, the head included), re-key a queued one */
	for (int op = 0; op < 200000; op++) {
		size_t i = (size_t)lc_rand_range(0, N - 1);
		int64_t r = lc_rand_range(0, 2);
		if (!in[i]) {
			tm[i].key = lc_rand_range(0, 1000);
			tm[i].seq = ++seq;
			LC_EQ_INT(lc__heap_insert(&h, &tm[i]), 0);
			in[i] = 1;
			live++;
		} else if (r == 0) {
			/* stop: a tombstone, O(1) */
			lc__heap_cancel(&h, &tm[i]);
			LC_EQ_INT((int)tm[i].idx, 0);
			in[i] = 0;
			live--;
		} else if (r == 1) {
			struct lc__timer *top = lc__heap_top(&h);
			lc__heap_remove(&h, top);
			in[top - tm] = 0;
			live--;
		} else {
			if (lc_rand_range(0, 1))
				lc__heap_remove(&h, &tm[i]);
			else
				lc__heap_cancel(&h, &tm[i]);
			tm[i].key = lc_rand_range(0, 1000);
			tm[i].seq = ++seq;
			LC_EQ_INT(lc__heap_insert(&h, &tm[i]), 0);
		}
		LC_EQ_U64(lc__heap_count(&h), live);
		/* tombstones never outnumber the live entries (+64) */
		LC_TRUE(h.dead <= 64 || h.dead <= live);
		/* the head is never a tombstone */
		LC_TRUE(live == 0 || lc__heap_top(&h) != NULL);
		if (op % 1000 == 0)
			LC_EQ_INT(lc__heap_check(&h), 0);
	}
	LC_EQ_INT(lc__heap_check(&h), 0);
	for (size_t i = 0; i < N; i++)
		if (in[i])
			ref[nref++] = &tm[i];
	LC_EQ_U64(nref, live);
	drain_and_compare(&h, ref, nref);
	lc__heap_free(&h);
	free(tm);
	free(ref);
	free(in);
}

static void test_ties_in_start_order(void)
{
	enum { N = 1000 };
	static struct lc__timer tm[N];
	struct lc__heap h = {0};

	/* started in a shuffled order; all the same deadline */
	for (int i = 0; i < N; i++)
		tm[i].seq = (uint64_t)i + 1;
	for (int i = N - 1; i > 0; i--) {
		int j = (int)lc_rand_range(0, i);
		uint64_t s = tm[i].seq;
		tm[i].seq = tm[j].seq;
		tm[j].seq = s;
	}
	for (int i = 0; i < N; i++) {
		tm[i].key = 42;
		LC_EQ_INT(lc__heap_insert(&h, &tm[i]), 0);
	}
	for (uint64_t want = 1; want <= N; want++) {
		struct lc__timer *t = lc__heap_top(&h);
		LC_EQ_U64(t->seq, want);
		lc__heap_remove(&h, t);
	}
	lc__heap_free(&h);
}

static void test_memory_per_timer(void)
{
	struct lc__heap h = {0};
	struct lc__timer t;

	/* 16 bytes per queued timer: a key and a pointer, nothing else */
	LC_EQ_INT((int)sizeof(struct lc__heap_ent), 16);
	LC_TRUE(sizeof(struct lc__timer) <= sizeof(struct lc_timer));
	printf("# sizeof(struct lc_timer) = %zu bytes (caller's memory), "
	       "queue entry = %zu bytes\n",
	       sizeof(struct lc_timer), sizeof(struct lc__heap_ent));
	LC_EQ_INT(lc__heap_reserve(&h, 10000000), 0);
	/* capacity: the next power of two >= 10M + 3 = 2^24 entries */
	LC_EQ_U64(h.cap, UINT64_C(1) << 24);
	LC_EQ_U64((uintptr_t)h.v % 64, 0);
	/* a reserve that fits does not reallocate */
	struct lc__heap_ent *v = h.v;
	LC_EQ_INT(lc__heap_reserve(&h, 5), 0);
	LC_TRUE(h.v == v);
	t.key = INT64_MAX;
	t.seq = 1;
	LC_EQ_INT(lc__heap_insert(&h, &t), 0);
	LC_TRUE(h.v == v);
	LC_EQ_INT((int)t.idx, (int)LC__HEAP0);
	lc__heap_free(&h);
	LC_TRUE(h.v == NULL);
}

static void test_extreme_keys(void)
{
	static struct lc__timer tm[6];
	int64_t keys[6] = {INT64_MAX, INT64_MIN, 0, -1, INT64_MAX, 1};
	int64_t want[6] = {INT64_MIN, -1, 0, 1, INT64_MAX, INT64_MAX};
	struct lc__heap h = {0};

	for (int i = 0; i < 6; i++) {
		tm[i].key = keys[i];
		tm[i].seq = (uint64_t)i + 1;
		LC_EQ_INT(lc__heap_insert(&h, &tm[i]), 0);
	}
	for (int i = 0; i < 6; i++) {
		struct lc__timer *t = lc__heap_top(&h);
		LC_EQ_I64(t->key, want[i]);
		lc__heap_remove(&h, t);
	}
	/* the two INT64_MAX ones came out in start order */
	LC_EQ_U64(tm[0].seq, 1);
	lc__heap_free(&h);
}

static void test_utc_keys_decode(void)
{
	/* the UTC key gives each UTC day 86,401 s: 23:59:60.5 on 2016-12-31
	 * (tv_sec of 23:59:59 = 1483228799, tv_nsec 1.5e9) sits between
	 * 23:59:59.9 and 00:00:00.0, and decodes back */
	int64_t s = 1483228799, k60 = lc__utc_key(s, 1500000000);
	struct timespec ts = lc__key_to_ts(LC_CLOCK_UTC, k60);
	LC_EQ_I64(ts.tv_sec, s);
	LC_EQ_I64(ts.tv_nsec, 1500000000);
	LC_GT_I64(k60, lc__utc_key(s, 900000000));
	LC_LT_I64(k60, lc__utc_key(s + 1, 0));
	LC_EQ_I64(lc__utc_key(s + 1, 0) - lc__utc_key(s, 1999999999), 1);
	ts = lc__key_to_ts(LC_CLOCK_UTC_SLS, lc__utc_key(s + 1, 0));
	LC_EQ_I64(ts.tv_sec, s + 1);
	LC_EQ_I64(ts.tv_nsec, 0);
	/* 23:59:60 only ends a day: elsewhere tv_nsec >= 1e9 is the next
	 * second's start, the first reading at or past it */
	LC_EQ_I64(lc__utc_key(s - 10, 1500000000), lc__utc_key(s - 9, 0));
	/* the key just below 1970-01-01 00:00:00 is 1969's 23:59:60.999... */
	ts = lc__key_to_ts(LC_CLOCK_UTC, -1);
	LC_EQ_I64(ts.tv_sec, -1);
	LC_EQ_I64(ts.tv_nsec, 1999999999);
	/* the range: 2262-04-09 23:59:60 has a key, 2262-04-10 is "never";
	 * 2174 (past 2116, where 2e9 * tv_sec ends) decodes exactly */
	s = lc_days_from_civil(2262, 4, 10) * LC_SECS_PER_DAY;
	LC_LT_I64(lc__utc_key(s - 1, 1999999999), INT64_MAX);
	ts = lc__key_to_ts(LC_CLOCK_UTC, lc__utc_key(s - 1, 1999999999));
	LC_EQ_I64(ts.tv_sec, s - 1);
	LC_EQ_I64(ts.tv_nsec, 1999999999);
	LC_EQ_I64(lc__utc_key(s, 0), INT64_MAX);
	s = lc_days_from_civil(2174, 1, 14) * LC_SECS_PER_DAY + 85400;
	ts = lc__key_to_ts(LC_CLOCK_UTC, lc__utc_key(s, 123));
	LC_EQ_I64(ts.tv_sec, s);
	LC_EQ_I64(ts.tv_nsec, 123);
	ts = lc__key_to_ts(LC_CLOCK_REALTIME, -1);
	LC_EQ_I64(ts.tv_sec, -1);
	LC_EQ_I64(ts.tv_nsec, 999999999);
}

int main(int argc, char **argv)
{
	lc_test_init(argc, argv);
	LC_RUN(test_order_matches_sort,
	       "4x20k random keys (wide and tied) pop in (deadline, start) order");
	LC_RUN(test_remove_anywhere,
	       "200k random inserts/stops (tombstones)/pops/re-keys keep heap, indexes, bound");
	LC_RUN(test_ties_in_start_order,
	       "1000 equal deadlines expire in the order they were started");
	LC_RUN(test_memory_per_timer,
	       "16 bytes per queued timer; reserve presizes; no realloc per arm");
	LC_RUN(test_extreme_keys, "INT64_MIN/MAX keys order correctly");
	LC_RUN(test_utc_keys_decode,
	       "UTC keys decode to the 23:59:60 timespec convention");
	return lc_test_done();
}
