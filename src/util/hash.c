#include "hash.h"
#include "endian.h"

uint64_t ig_hash(const void *p, size_t n) { return XXH3_64bits(p, n); }

void ig_hasher_init(struct ig_hasher *h) { XXH3_64bits_reset(&h->state); }

void ig_hasher_update(struct ig_hasher *h, const void *p, size_t n)
{
    XXH3_64bits_update(&h->state, p, n);
}

void ig_hasher_update_u64(struct ig_hasher *h, uint64_t v)
{
    uint8_t b[8];
    ig_st64(b, v);
    XXH3_64bits_update(&h->state, b, 8);
}

uint64_t ig_hasher_final(const struct ig_hasher *h) { return XXH3_64bits_digest(&h->state); }
