/* sort.h - sorting 64-bit unsigned integers (LSD radix, 8 bits a pass).
 *
 * For the arrays encoders sort (a page's values, a dictionary's entries):
 * linear in n, passes over bytes that every value shares are skipped (small
 * values in wide lanes take one or two). Not stable in any sense that matters
 * (equal keys are equal), allocates a scratch copy of n values, or takes
 * the caller's (a writer sorting page after page keeps one). */
#ifndef IG_UTIL_SORT_H
#define IG_UTIL_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sort v[0..n) ascending. 0, or -ENOMEM (v unchanged). */
int ig_sort_u64(uint64_t *v, size_t n);

/* The same with tmp (room for n values, its contents lost) as the scratch. */
void ig_sort_u64_with(uint64_t *v, size_t n, uint64_t *tmp);

#endif
