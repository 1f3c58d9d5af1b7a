#include "hash.h"
#include "endian.h"

#include <errno.h>
#include <xxhash.h>

uint64_t ig_hash(const void *p, size_t n) { return XXH3_64bits(p, n); }

int ig_hasher_init(struct ig_hasher *h)
{
    XXH3_state_t *s = XXH3_createState();
    if (!s) return -ENOMEM;
    XXH3_64bits_reset(s);
    h->state = s;
    return 0;
}

void ig_hasher_update(struct ig_hasher *h, const void *p, size_t n)
{
    XXH3_64bits_update(h->state, p, n);
}

void ig_hasher_update_u64(struct ig_hasher *h, uint64_t v)
{
    uint8_t b[8];
    ig_st64(b, v);
    XXH3_64bits_update(h->state, b, 8);
}

uint64_t ig_hasher_final(struct ig_hasher *h)
{
    uint64_t v = XXH3_64bits_digest(h->state);
    XXH3_freeState(h->state);
    h->state = NULL;
    return v;
}
