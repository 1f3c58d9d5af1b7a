/* strset.c - an exact set of byte strings (see strset.h). */
#include "strset.h"

/* XXH3 inlined here: most strings a set sees are a few bytes long, and the
 * call cost as much as the hash (an import counts every string it writes). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ig_strset_init(struct ig_strset *s) { memset(s, 0, sizeof *s); }

void ig_strset_free(struct ig_strset *s)
{
    ig_buf_free(&s->data);
    free(s->offs);
    free(s->slots);
    ig_strset_init(s);
}

void ig_strset_clear(struct ig_strset *s)
{
    if (s->count) memset(s->slots, 0, s->nslots * sizeof *s->slots);
    s->count = 0;
    s->bytes = 0;
    ig_buf_reset(&s->data);
}

static uint64_t hash_of(const void *p, size_t len) { return XXH3_64bits(p, len); }

/* A slot holds entry + 1 (low half, 0 = empty) and the hash's low 32 bits
 * (high half), so most mismatches are seen without touching the entry; the
 * hash's high bits choose where probing starts. */
static size_t slot_of(uint64_t h, size_t nslots) { return (size_t)((h >> 32) & (nslots - 1)); }
static uint64_t slot_val(uint64_t h, uint32_t e) { return (uint64_t)(uint32_t)h << 32 | (e + 1); }

static bool same(const struct ig_strset *s, uint32_t e, const void *p, size_t len)
{
    size_t n;
    const uint8_t *q = ig_strset_get(s, e, &n);
    return n == len && (len == 0 || memcmp(q, p, len) == 0);
}

/* The slot holding p, or the empty slot where it would go. */
static size_t probe(const struct ig_strset *s, uint64_t h, const void *p, size_t len)
{
    size_t mask = s->nslots - 1, i = slot_of(h, s->nslots);
    for (;; i = (i + 1) & mask) {
        uint64_t v = s->slots[i];
        if (!v) return i;
        if ((uint32_t)(v >> 32) == (uint32_t)h && same(s, (uint32_t)v - 1, p, len)) return i;
    }
}

/* Twice the slots, every entry placed again by its hash. */
static int grow_slots(struct ig_strset *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 64;
    uint64_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -ENOMEM;
    for (uint32_t e = 0; e < s->count; e++) {
        size_t len;
        const uint8_t *q = ig_strset_get(s, e, &len);
        uint64_t h = hash_of(q, len);
        size_t i = slot_of(h, n);
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = slot_val(h, e);
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return 0;
}

int64_t ig_strset_find(const struct ig_strset *s, const void *p, size_t len)
{
    if (!s->count) return -1;
    uint64_t v = s->slots[probe(s, hash_of(p, len), p, len)];
    return v ? (int64_t)(uint32_t)v - 1 : -1;
}

uint64_t ig_strset_hash(const void *p, size_t len) { return hash_of(p, len); }

int ig_strset_add(struct ig_strset *s, const void *p, size_t len, uint32_t *index, bool *added)
{
    return ig_strset_add_hashed(s, p, len, hash_of(p, len), index, added);
}

int ig_strset_add_hashed(struct ig_strset *s, const void *p, size_t len, uint64_t h, uint32_t *index,
                         bool *added)
{
    *added = false;
    if ((s->count + 1) * 2 > s->nslots && grow_slots(s)) return -ENOMEM;
    size_t i = probe(s, h, p, len);
    if (s->slots[i]) {
        *index = (uint32_t)s->slots[i] - 1;
        return 0;
    }
    if (s->count >= UINT32_MAX - 1) return -E2BIG;
    if (s->count + 2 > s->offs_cap) {
        size_t c = s->offs_cap ? s->offs_cap * 2 : 64;
        uint64_t *o = realloc(s->offs, c * sizeof *o);
        if (!o) return -ENOMEM;
        s->offs = o;
        s->offs_cap = c;
    }
    if (len && ig_buf_append(&s->data, p, len)) return -ENOMEM;
    if (!s->count) s->offs[0] = 0;
    s->offs[s->count + 1] = s->data.len;
    s->slots[i] = slot_val(h, s->count);
    *index = s->count++;
    s->bytes += len;
    *added = true;
    return 0;
}

size_t ig_strset_mem(const struct ig_strset *s)
{
    return s->data.cap + s->offs_cap * sizeof *s->offs + s->nslots * sizeof *s->slots;
}
