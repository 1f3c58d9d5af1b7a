/* idset.h - a set of 32-bit ids as sorted runs ("0-21,23"): the columns a table
 * version shows (MANIFEST's `columns` line). Compact however many columns a
 * table has, since columns are added and retired in runs; membership is a
 * binary search over the runs. */
#ifndef IG_UTIL_IDSET_H
#define IG_UTIL_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_buf;

struct ig_idrun {
    uint32_t first, count; /* ids [first, first + count) */
};

struct ig_idset {
    struct ig_idrun *runs; /* sorted, disjoint, never adjacent (merged) */
    size_t n, cap;
};

void ig_idset_free(struct ig_idset *s);
bool ig_idset_has(const struct ig_idset *s, uint32_t id);
/* Add ids [first, first + count) / remove id: 0, or -ENOMEM (s unchanged). */
int ig_idset_add(struct ig_idset *s, uint32_t first, uint32_t count);
int ig_idset_remove(struct ig_idset *s, uint32_t id);
int ig_idset_copy(struct ig_idset *dst, const struct ig_idset *src);
uint64_t ig_idset_count(const struct ig_idset *s);
bool ig_idset_equal(const struct ig_idset *a, const struct ig_idset *b);

/* Text: runs "A-B" or "A" separated by commas, ascending; "-" for the empty
 * set. Parse: 0, -EINVAL (malformed, unsorted or overlapping runs) or -ENOMEM. */
int ig_idset_format(const struct ig_idset *s, struct ig_buf *out);
int ig_idset_parse(const char *text, struct ig_idset *s);

/* A sequence of distinct ids in an order of its own, as runs ("5-9,0-4"): the
 * order a table version shows its columns in (MANIFEST's `order` line). The
 * text is a set's with the runs in any order. */
struct ig_idseq {
    struct ig_idrun *runs; /* in sequence order */
    size_t n, cap;
};

void ig_idseq_free(struct ig_idseq *q);
/* id next (a run grows when id follows it): 0, or -ENOMEM. Distinctness is
 * the caller's. */
int ig_idseq_push(struct ig_idseq *q, uint32_t id);
int ig_idseq_copy(struct ig_idseq *dst, const struct ig_idseq *src);
uint64_t ig_idseq_count(const struct ig_idseq *q);
/* The same runs in the same order (as parsed, and as a MANIFEST writes them). */
bool ig_idseq_equal(const struct ig_idseq *a, const struct ig_idseq *b);
int ig_idseq_format(const struct ig_idseq *q, struct ig_buf *out);
/* 0, -EINVAL (malformed) or -ENOMEM. That no id comes twice is the caller's
 * to check (MANIFEST's reader does, against the ids shown, in linear time). */
int ig_idseq_parse(const char *text, struct ig_idseq *q);

#endif
