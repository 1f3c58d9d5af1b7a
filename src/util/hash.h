/* hash.h - XXH3-64 wrappers: the one checksum ingot uses everywhere.
 *
 * Page checksums, row-group hashes, the schema hash and the root hash are all
 * XXH3-64. The streaming form hashes several sections without concatenating them;
 * its state lives on the caller's stack, so hashing never fails. */
#ifndef IG_UTIL_HASH_H
#define IG_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

uint64_t ig_hash(const void *p, size_t n);

struct ig_hasher {
    XXH3_state_t state;
};

void ig_hasher_init(struct ig_hasher *h);
void ig_hasher_update(struct ig_hasher *h, const void *p, size_t n);
void ig_hasher_update_u64(struct ig_hasher *h, uint64_t v); /* little-endian bytes */
uint64_t ig_hasher_final(const struct ig_hasher *h);

#endif
