/* leaptable_impl.h - the table's layout, shared by leaptable.c and its
 * parsers (leapfile.c). Not public. */
#ifndef LC_LEAPTABLE_IMPL_H
#define LC_LEAPTABLE_IMPL_H

#include "internal.h"

/* Enough for one leap a month until 2100; the parsers reject more. */
#define LC__LEAP_MAX 2048

struct lc_leaptable {
	size_t count;
	struct lc_leap rows[LC__LEAP_MAX];
	struct lc_leaptable_info info;
};

void lc__leaptable_set_builtin(struct lc_leaptable *t);

#endif
