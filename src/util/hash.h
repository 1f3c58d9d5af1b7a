/* hash.h - XXH3-64 wrappers: the one checksum ingot uses everywhere.
 *
 * Page checksums, row-group hashes, the schema hash and the root hash are all
 * XXH3-64. The streaming form lets the footer hash several sections without
 * concatenating them. */
#ifndef IG_UTIL_HASH_H
#define IG_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t ig_hash(const void *p, size_t n);

struct ig_hasher {
    void *state; /* XXH3_state_t, opaque here so xxhash.h stays out of headers */
};

int ig_hasher_init(struct ig_hasher *h); /* -ENOMEM on failure */
void ig_hasher_update(struct ig_hasher *h, const void *p, size_t n);
void ig_hasher_update_u64(struct ig_hasher *h, uint64_t v); /* little-endian bytes */
uint64_t ig_hasher_final(struct ig_hasher *h);              /* also frees the state */

#endif
