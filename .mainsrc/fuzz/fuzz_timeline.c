/*
 * fuzz_timeline.c - libFuzzer target for the timeline page's validation
 * (lc__tl_validate, src/timeline_page.c): every input is a page image, checked
 * as a whole and at every boot id a reader could pass (none, "", its own,
 * another), in a 64-byte aligned copy as a mapped page is.
 *
 *  - lc__tl_validate accepts exactly the images that meet its documented
 *    checks, restated here independently (magic, ABI, size field and
 *    length, counter kind, clock and frequency, a terminated boot id of
 *    this boot, known flags); a refusal is LC_EINVAL with a message.
 *  - On an accepted image, what a reader then does with the page's other
 *    sections (lc__tl_read_status, lc__tl_read_table, lc__tl_table_into
 *    and queries of that table) stays in bounds, whatever those words
 *    hold: the strings come out terminated, the table count in range.
 * Any violation aborts, which libFuzzer reports as a crash. Seeds:
 * fuzz/corpus/timeline/ (written by tests/test_timeline with
 * LC_TL_CORPUS=DIR).
 */
#include "timeline.h"
#include "leaptable_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c))                                                      \
			abort();                                               \
	} while (0)

#define PAGE_SZ sizeof(struct lc__tl_page)

static int model_ok(const struct lc__tl_page *h, size_t len, const char *boot)
{
	if (len < offsetof(struct lc__tl_page, st_seq))
		return 0;
	if (h->magic != LC__TL_MAGIC || h->abi != LC__TL_ABI ||
	    h->size != PAGE_SZ || len != PAGE_SZ)
		return 0;
	if (h->counter_kind == LC_COUNTER_SYSTEM) {
		if (h->counter_clk != CLOCK_MONOTONIC &&
		    h->counter_clk != CLOCK_MONOTONIC_RAW)
			return 0;
	} else if (h->counter_kind != LC_COUNTER_TSC) {
		return 0;
	}
	if (h->counter_freq == 0 || h->counter_freq > (UINT64_C(1) << 40))
		return 0;
	if (memchr(h->boot_id, 0, sizeof(h->boot_id)) == NULL)
		return 0;
	if (boot != NULL && boot[0] != '\0' && strcmp(h->boot_id, boot) != 0)
		return 0;
	if (h->flags & ~(uint64_t)LC__TLF_PRETEND)
		return 0;
	return 1;
}

static void after_accept(const struct lc__tl_page *pg)
{
	static lc_leaptable *t;
	struct lc__tl_status st;
	struct lc__tl_table tab;
	struct lc_leap l;
	int32_t off;

	lc__tl_read_status(pg, &st);
	CHECK(memchr(st.table_source, 0, sizeof(st.table_source)) != NULL);
	CHECK(memchr(st.smear, 0, sizeof(st.smear)) != NULL);
	CHECK(memchr(st.table_note, 0, sizeof(st.table_note)) != NULL);
	lc__tl_read_table(pg, &tab);
	CHECK(tab.count >= 0 && tab.count <= LC__TL_MAX_LEAPS);
	if (t == NULL)
		t = lc_leaptable_new();
	CHECK(t != NULL);
	if (lc__tl_table_into(pg, t) == 0) {
		CHECK(t->count == (size_t)tab.count && t->count >= 1);
		CHECK(memchr(t->info.source, 0, sizeof(t->info.source)) != NULL);
		/* The queries a reader's timekeeper makes, on rows that no
		 * parser checked: in bounds whatever they say. */
		(void)lc_leaptable_tai_utc(t, 0, &off);
		(void)lc_leaptable_tai_utc(t, tab.rows[0].when, &off);
		(void)lc_leaptable_next(t, INT64_MIN, &l);
		(void)lc_leaptable_prev(t, INT64_MAX, &l);
		(void)lc_leaptable_leap_at(t, tab.rows[tab.count - 1].when - 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lc__tl_page *pg = NULL;
	char own[LC__TL_BOOT_ID];
	const char *boots[4];

	/* Exactly `size` bytes, 64-byte aligned as a mapped page: ASan sees
	 * any read past the input. */
	CHECK(posix_memalign((void **)&pg, 64, size ? size : 1) == 0);
	if (size > 0)
		memcpy(pg, data, size);
	memset(own, 0, sizeof(own));
	if (size >= offsetof(struct lc__tl_page, st_seq))
		memcpy(own, pg->boot_id, sizeof(own) - 1);
	boots[0] = NULL;
	boots[1] = "";
	boots[2] = own;
	boots[3] = "00000000-0000-0000-0000-000000000000";
	for (int k = 0; k < 4; k++) {
		struct lc_error err;
		int rc;

		memset(&err, 0, sizeof(err));
		rc = lc__tl_validate(pg, size, boots[k], &err);
		CHECK((rc == 0) == model_ok(pg, size, boots[k]));
		if (rc != 0) {
			CHECK(rc == LC_EINVAL && err.code == LC_EINVAL);
			CHECK(err.msg[0] != '\0');
			CHECK(memchr(err.msg, 0, sizeof(err.msg)) != NULL);
		} else if (k == 0) {
			after_accept(pg);
		}
	}
	free(pg);
	return 0;
}
