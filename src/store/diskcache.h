/* diskcache.h - ranges of remote objects kept in a local directory, across
 * processes, within a size the user sets (INGOT_S3_DISK_CACHE,
 * INGOT_S3_DISK_CACHE_MB).
 *
 * DIR/OBJECT/ETAG/OFFSET-LENGTH (OBJECT and ETAG hashed): one file per range
 * fetched, its bytes and their XXH3 (a file that fails it is a miss and is
 * removed). A range is found only as it was stored (block reads ask for the
 * same ranges again). When over size, the least recently used files go. When
 * an object's ETag changes (an erase replaced it), opening the new one removes
 * the old one's files: the cache never keeps what an erase removed once this
 * host has seen the change (docs/ERASURE.md). Files are 0600 in a 0700
 * directory. */
#ifndef IG_STORE_DISKCACHE_H
#define IG_STORE_DISKCACHE_H

#include <stddef.h>
#include <stdint.h>

struct ig_error;
struct ig_diskcache;

int ig_diskcache_open(const char *dir, size_t cap, struct ig_diskcache **out, struct ig_error *err);
/* 0 and dst filled when [off, off + len) of that object and ETag is there. */
int ig_diskcache_get(struct ig_diskcache *dc, const char *location, const char *name,
                     const char *etag, uint64_t off, uint64_t len, void *dst);
void ig_diskcache_put(struct ig_diskcache *dc, const char *location, const char *name,
                      const char *etag, uint64_t off, uint64_t len, const void *data);
/* Remove the files of every other ETag of that object. */
void ig_diskcache_forget_others(struct ig_diskcache *dc, const char *location, const char *name,
                                const char *etag);

#endif
