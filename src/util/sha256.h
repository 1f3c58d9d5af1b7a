/* sha256.h - SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104), for request
 * signing (AWS SigV4). Not for anything that needs constant time. */
#ifndef IG_UTIL_SHA256_H
#define IG_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define IG_SHA256_LEN 32

struct ig_sha256 {
    uint32_t h[8];
    uint64_t total;
    uint8_t block[64];
    size_t fill;
};

void ig_sha256_init(struct ig_sha256 *s);
void ig_sha256_update(struct ig_sha256 *s, const void *p, size_t n);
void ig_sha256_final(struct ig_sha256 *s, uint8_t out[IG_SHA256_LEN]);
void ig_sha256(const void *p, size_t n, uint8_t out[IG_SHA256_LEN]);
void ig_hmac_sha256(const void *key, size_t klen, const void *msg, size_t n,
                    uint8_t out[IG_SHA256_LEN]);
/* 64 lowercase hex digits and a NUL. */
void ig_hex(const uint8_t *p, size_t n, char *out);

#endif
