/* strset.h - an exact set of byte strings, numbered in the order they came.
 *
 * Dictionaries are built with it: the writer counts a column chunk's distinct
 * values (and their bytes) for the footer, and a Parquet view numbers the same
 * values as its dictionary codes. Equality is on the bytes, not on a hash: two
 * different strings are never one entry, so a count made at write time and a
 * dictionary made at read time agree exactly.
 *
 * The set keeps its own copy of every distinct string (one buffer), so what
 * is added may be freed afterwards. It does not remove entries, and it is not
 * safe to add from two threads at once; lookups on a set nobody adds to are. */
#ifndef IG_UTIL_STRSET_H
#define IG_UTIL_STRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct ig_strset {
    uint32_t count;   /* distinct strings */
    uint64_t bytes;   /* their bytes, together */
    struct ig_buf data;
    uint64_t *offs;   /* entry i is data[offs[i], offs[i + 1]) */
    size_t offs_cap;
    uint64_t *slots;  /* open addressing: entry + 1 | hash bits << 32, 0 = empty */
    size_t nslots;    /* a power of two, at least twice count */
};

void ig_strset_init(struct ig_strset *s);
void ig_strset_free(struct ig_strset *s);
/* Empty the set and keep its memory for the next use (a writer counts every
 * chunk's strings in one set: fresh memory for each cost more page faults
 * than the counting). */
void ig_strset_clear(struct ig_strset *s);
/* Add p[0, len) if absent. *index: its entry number (first come, first
 * numbered); *added: whether it was new. -ENOMEM leaves the set as it was;
 * -E2BIG when it already holds UINT32_MAX - 1 entries. */
int ig_strset_add(struct ig_strset *s, const void *p, size_t len, uint32_t *index, bool *added);
/* The same with p's hash given (ig_strset_hash), so that a caller walking
 * many strings can hash ahead and ig_strset_prefetch the slot each will
 * probe: counting a column's strings waits on the slots more than it hashes. */
uint64_t ig_strset_hash(const void *p, size_t len);
int ig_strset_add_hashed(struct ig_strset *s, const void *p, size_t len, uint64_t hash, uint32_t *index,
                         bool *added);
static inline void ig_strset_prefetch(const struct ig_strset *s, uint64_t hash)
{
    if (s->nslots) __builtin_prefetch(&s->slots[(size_t)((hash >> 32) & (s->nslots - 1))]);
}
/* Entry number of p[0, len), or -1 if absent. */
int64_t ig_strset_find(const struct ig_strset *s, const void *p, size_t len);
/* Entry i (< count). */
static inline const uint8_t *ig_strset_get(const struct ig_strset *s, uint32_t i, size_t *len)
{
    *len = (size_t)(s->offs[i + 1] - s->offs[i]);
    return s->data.data ? s->data.data + s->offs[i] : (const uint8_t *)"";
}
/* Memory it holds, in bytes. */
size_t ig_strset_mem(const struct ig_strset *s);

#endif
