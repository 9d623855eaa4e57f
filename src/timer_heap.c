/*
 * timer_heap.c - the timer queue's heap: a 4-ary min-heap of (key, timer)
 * entries in one 64-byte aligned array, with O(1) stops by tombstone and
 * the bulk take of due entries (timer.h describes the layout). It knows a
 * timer only by its key, start order and recorded index.
 */
#include "timer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The 4-ary heap                                                            */
/* ------------------------------------------------------------------------ */

/*
 * Index arithmetic with the root at H0 = 3: the children of k are
 * 4(k - H0) + H0 + 1 .. + 4 = 4k - 8 .. 4k - 5, and the parent of c >= 4 is
 * (c - 4) / 4 + 3 = c / 4 + 2 (integer division). Entry k is 16 bytes, so
 * children 4k-8 .. 4k-5 occupy bytes 64k - 128 .. 64k - 65: one aligned cache
 * line when the array is 64-byte aligned.
 */
static inline uint32_t first_child(uint32_t k)
{
	return 4 * k - 8;
}

static inline uint32_t parent(uint32_t c)
{
	return c / 4 + 2;
}

/* Tombstones (timer.h): a stopped timer's entry holds (seq << 1) | 1. */
#define ent_dead lc__ent_dead
#define ent_seq lc__ent_seq

static inline int ent_less(const struct lc__heap_ent *a,
                           const struct lc__heap_ent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	/* ties: start order; a tombstone keeps its timer's seq */
	return ent_seq(a) < ent_seq(b);
}

static inline void set_idx(struct lc__heap_ent *e, uint32_t k)
{
	LC__ASSERT(k >= LC__HEAP0);
	if (!ent_dead(e))
		e->t->idx = k;
}

static void sift_up(struct lc__heap *h, uint32_t k)
{
	struct lc__heap_ent e = h->v[k];

	while (k > LC__HEAP0) {
		uint32_t p = parent(k);
		if (!ent_less(&e, &h->v[p]))
			break;
		h->v[k] = h->v[p];
		set_idx(&h->v[k], k);
		k = p;
	}
	h->v[k] = e;
	set_idx(&h->v[k], k);
}

/* with_idx 0: the indexes are left for the caller to set (heapify). */
static void sift_down_(struct lc__heap *h, uint32_t k, int with_idx)
{
	struct lc__heap_ent e = h->v[k];
	uint32_t n = h->n;

	for (;;) {
		uint32_t c = first_child(k), m;
		if (c >= n)
			break;
		m = c;
		if (c + 3 < n) {
			/* all four children: two pairs, then the winners */
			uint32_t a = ent_less(&h->v[c + 1], &h->v[c]) ? c + 1 : c;
			uint32_t b = ent_less(&h->v[c + 3], &h->v[c + 2]) ? c + 3
			                                                  : c + 2;
			m = ent_less(&h->v[b], &h->v[a]) ? b : a;
		} else {
			for (uint32_t i = c + 1; i < n; i++)
				if (ent_less(&h->v[i], &h->v[m]))
					m = i;
		}
		if (!ent_less(&h->v[m], &e))
			break;
		h->v[k] = h->v[m];
		if (with_idx)
			set_idx(&h->v[k], k);
		k = m;
	}
	h->v[k] = e;
	if (with_idx)
		set_idx(&h->v[k], k);
}

static void sift_down(struct lc__heap *h, uint32_t k)
{
	sift_down_(h, k, 1);
}

int lc__heap_reserve(struct lc__heap *h, size_t n)
{
	struct lc__heap_ent *v;
	size_t cap;

	/* at most 2^30 entries, so that 4k - 8 never wraps in 32 bits */
	if (n > (UINT32_C(1) << 30) - 64)
		return LC_ENOMEM;
	if (n + LC__HEAP0 <= h->cap)
		return 0;
	cap = h->cap ? h->cap : 64;
	while (cap < n + LC__HEAP0)
		cap *= 2;
	/* cap is a power of two >= 64: cap * 16 is a multiple of 64 */
	v = aligned_alloc(64, cap * sizeof(*v));
	if (v == NULL)
		return LC_ENOMEM;
	if (h->v != NULL)
		memcpy(v, h->v, (size_t)h->n * sizeof(*v));
	free(h->v);
	h->v = v;
	h->cap = (uint32_t)cap;
	if (h->n < LC__HEAP0)
		h->n = LC__HEAP0;
	return 0;
}

void lc__heap_free(struct lc__heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

int lc__heap_grow(struct lc__heap *h)
{
	size_t slots = h->n > LC__HEAP0 ? h->n - LC__HEAP0 : 0;

	return lc__heap_reserve(h, slots + 1);
}

static void remove_at(struct lc__heap *h, uint32_t k)
{
	uint32_t last = h->n - 1;

	h->n = last;
	if (k == last)
		return;
	h->v[k] = h->v[last];
	if (k > LC__HEAP0 && ent_less(&h->v[k], &h->v[parent(k)]))
		sift_up(h, k);
	else
		sift_down(h, k);
}

/* Keeps the head live: drops tombstones that reached it. */
static void clean_top(struct lc__heap *h)
{
	while (h->n > LC__HEAP0 && ent_dead(&h->v[LC__HEAP0])) {
		remove_at(h, LC__HEAP0);
		h->dead--;
	}
}

/* Floyd's bottom-up heap construction over [H0, n), then the recorded
 * indexes in one pass, so that each timer is written once however often
 * its entry moved. */
static void heapify(struct lc__heap *h)
{
	if (h->n > LC__HEAP0 + 1)
		for (uint32_t e = parent(h->n - 1); e >= LC__HEAP0; e--)
			sift_down_(h, e, 0);
	for (uint32_t e = LC__HEAP0; e < h->n; e++)
		set_idx(&h->v[e], e);
}

/* Drops every tombstone and rebuilds the heap: O(n). */
static void compact(struct lc__heap *h)
{
	uint32_t w = LC__HEAP0;

	for (uint32_t k = LC__HEAP0; k < h->n; k++)
		if (!ent_dead(&h->v[k]))
			h->v[w++] = h->v[k];
	h->n = w;
	h->dead = 0;
	heapify(h);
}

void lc__heap_remove(struct lc__heap *h, struct lc__timer *t)
{
	uint32_t k = t->idx;

	/* a queued timer's index is its live entry's */
	LC__ASSERT(k >= LC__HEAP0 && k < h->n && !ent_dead(&h->v[k]) &&
	           h->v[k].t == t && h->v[k].key == t->key);
	t->idx = 0;
	remove_at(h, k);
	clean_top(h);
	if (h->dead > 64 && h->dead > lc__heap_count(h))
		compact(h);
}

void lc__heap_cancel_at(struct lc__heap *h, uint32_t k)
{
	/* the head leaves at once; the live count still drops, so the bound
	 * on tombstones applies here too */
	LC__ASSERT(k >= LC__HEAP0 && k < h->n && !ent_dead(&h->v[k]));
	remove_at(h, k);
	clean_top(h);
	if (h->dead > 64 && h->dead > lc__heap_count(h))
		compact(h);
}

void lc__heap_compact(struct lc__heap *h)
{
	compact(h);
}

int lc__heap_check(const struct lc__heap *h)
{
	uint32_t dead = 0;

	if (h->n > LC__HEAP0 && ent_dead(&h->v[LC__HEAP0]))
		return -3;
	for (uint32_t k = LC__HEAP0; k < h->n; k++) {
		if (ent_dead(&h->v[k]))
			dead++;
		else if (h->v[k].t->idx != k || h->v[k].t->key != h->v[k].key)
			return -1;
		if (k > LC__HEAP0 && ent_less(&h->v[k], &h->v[parent(k)]))
			return -2;
	}
	return dead == h->dead ? 0 : -4;
}

/* Due entries, counted by a walk of the due part of the tree (closed
 * upwards: a due node's parent is due); stops at `limit`. */
uint32_t lc__heap_count_due(const struct lc__heap *h, int64_t now,
                            uint32_t limit)
{
	uint32_t stack[128], cnt = 0;
	int sp = 0;

	if (h->n <= LC__HEAP0 || h->v[LC__HEAP0].key > now)
		return 0;
	stack[sp++] = LC__HEAP0;
	while (sp > 0) {
		uint32_t k = stack[--sp], c = first_child(k);
		if (++cnt >= limit)
			return cnt;
		/* depth <= 16 for 2^30 entries, at most 3 siblings waiting
		 * per level plus 4 children: the stack never exceeds 64 */
		for (uint32_t i = c; i < c + 4 && i < h->n; i++)
			if (h->v[i].key <= now)
				stack[sp++] = i;
	}
	return cnt;
}

static void swap_ent(struct lc__heap_ent *a, struct lc__heap_ent *b)
{
	struct lc__heap_ent x = *a;
	*a = *b;
	*b = x;
}

/* Quicksort (Hoare partition around the middle element) by (key, seq),
 * insertion sort below 16; recursion on the smaller side only. */
static void sort_ents(struct lc__heap_ent *a, size_t n)
{
	while (n > 16) {
		struct lc__heap_ent p = a[n / 2];
		ptrdiff_t i = -1, j = (ptrdiff_t)n;
		for (;;) {
			do
				i++;
			while (ent_less(&a[i], &p));
			do
				j--;
			while (ent_less(&p, &a[j]));
			if (i >= j)
				break;
			swap_ent(&a[i], &a[j]);
		}
		/* [0, j] and [j + 1, n), both non-empty */
		if ((size_t)j + 1 < n - (size_t)j - 1) {
			sort_ents(a, (size_t)j + 1);
			a += j + 1;
			n -= (size_t)j + 1;
		} else {
			sort_ents(a + j + 1, n - (size_t)j - 1);
			n = (size_t)j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct lc__heap_ent x = a[i];
		size_t j = i;
		while (j > 0 && ent_less(&x, &a[j - 1])) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

uint32_t lc__heap_split_due(struct lc__heap *h, int64_t now)
{
	struct lc__heap_ent *v = h->v;
	uint32_t i = LC__HEAP0, j;

	if (h->dead) {
		/* drop the tombstones first (the heap is rebuilt anyway) */
		uint32_t d = LC__HEAP0;
		for (uint32_t e = LC__HEAP0; e < h->n; e++)
			if (!ent_dead(&v[e]))
				v[d++] = v[e];
		h->n = d;
		h->dead = 0;
	}
	j = h->n;
	while (i < j) {
		if (v[i].key <= now)
			i++;
		else
			swap_ent(&v[i], &v[--j]);
	}
	sort_ents(v + LC__HEAP0, i - LC__HEAP0);
	return i - LC__HEAP0;
}

void lc__heap_rejoin(struct lc__heap *h, uint32_t k, uint32_t kept)
{
	struct lc__heap_ent *v = h->v + LC__HEAP0;
	uint32_t rest = h->n - LC__HEAP0 - k;

	memmove(v + kept, v + k, (size_t)rest * sizeof(*v));
	h->n = LC__HEAP0 + kept + rest;
	heapify(h);
}
