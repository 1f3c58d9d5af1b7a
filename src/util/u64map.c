#include "u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ig_u64map_init(struct ig_u64map *m, size_t max_entries)
{
    size_t cap = 16;
    while (cap < 2 * max_entries)
        cap *= 2;
    *m = (struct ig_u64map){.keys = malloc(cap * sizeof *m->keys), .vals = calloc(cap, sizeof *m->vals), .cap = cap};
    if (!m->keys || !m->vals) {
        ig_u64map_free(m);
        return -ENOMEM;
    }
    return 0;
}

int ig_u64map_reset(struct ig_u64map *m, size_t max_entries)
{
    if (!m->cap || m->cap < 2 * max_entries) {
        ig_u64map_free(m);
        return ig_u64map_init(m, max_entries);
    }
    memset(m->vals, 0, m->cap * sizeof *m->vals);
    m->n = 0;
    return 0;
}

void ig_u64map_free(struct ig_u64map *m)
{
    free(m->keys);
    free(m->vals);
    *m = (struct ig_u64map){0};
}

int ig_u64map_add(struct ig_u64map *m, uint64_t key, uint32_t val, bool *had)
{
    if (!m->cap && ig_u64map_init(m, 512)) return -ENOMEM;
    size_t s = ig_u64map_slot(m, key);
    *had = m->vals[s] != 0;
    if (*had) return 0;
    if (2 * (m->n + 1) > m->cap) { /* rehash into twice the room */
        struct ig_u64map g;
        if (ig_u64map_init(&g, m->cap)) return -ENOMEM;
        for (size_t i = 0; i < m->cap; i++)
            if (m->vals[i]) {
                size_t t = ig_u64map_slot(&g, m->keys[i]);
                g.keys[t] = m->keys[i];
                g.vals[t] = m->vals[i];
            }
        g.n = m->n;
        ig_u64map_free(m);
        *m = g;
        s = ig_u64map_slot(m, key);
    }
    m->keys[s] = key;
    m->vals[s] = val;
    m->n++;
    return 0;
}
