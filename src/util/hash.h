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

/* A 64-bit integer mixer (the murmur3 finaliser): every input bit reaches every
 * output bit, so structured keys (inode numbers, lanes) spread over a hash table. */
static inline uint64_t ig_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

struct ig_hasher {
    XXH3_state_t state;
};

void ig_hasher_init(struct ig_hasher *h);
void ig_hasher_update(struct ig_hasher *h, const void *p, size_t n);
void ig_hasher_update_u64(struct ig_hasher *h, uint64_t v); /* little-endian bytes */
uint64_t ig_hasher_final(const struct ig_hasher *h);

#endif
