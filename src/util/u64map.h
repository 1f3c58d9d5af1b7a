/* u64map.h - an open-addressed map from 64-bit keys to 32-bit values.
 *
 * For counting and numbering distinct values (a page's lanes, a dictionary's
 * entries): linear probing over a power-of-two table kept at most half full.
 * A value of 0 marks an empty slot, so callers store index + 1. Any key may be
 * stored, 0 included. A map made for max_entries holds that many without
 * growing (ig_u64map_slot is then all a caller needs); ig_u64map_add grows it. */
#ifndef IG_UTIL_U64MAP_H
#define IG_UTIL_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_u64map {
    uint64_t *keys;
    uint32_t *vals; /* 0 = empty slot, else the caller's value (an index + 1) */
    size_t cap;     /* power of two */
    size_t n;       /* keys added by ig_u64map_add */
};

/* Room for max_entries keys. 0, or -ENOMEM (m empty). */
int ig_u64map_init(struct ig_u64map *m, size_t max_entries);
/* Empty m with room for max_entries keys, keeping its memory where it has
 * the room (a map reused page after page). 0, or -ENOMEM (m empty). */
int ig_u64map_reset(struct ig_u64map *m, size_t max_entries);
void ig_u64map_free(struct ig_u64map *m);

/* Slot index for key (existing or the empty slot where it belongs). */
static inline size_t ig_u64map_slot(const struct ig_u64map *m, uint64_t key)
{
    size_t mask = m->cap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
    while (m->vals[h] && m->keys[h] != key)
        h = (h + 1) & mask;
    return h;
}

/* Add key with value val (non-zero) unless it is there; *had says whether it
 * was. Doubles the table when it would be more than half full. 0, or -ENOMEM
 * (the map unchanged). */
int ig_u64map_add(struct ig_u64map *m, uint64_t key, uint32_t val, bool *had);

#endif
