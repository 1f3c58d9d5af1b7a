/* store.h - where a table's bytes live: a local directory, or objects under
 * s3://BUCKET/PREFIX.
 *
 * The seam under the format: a location holds named objects (MANIFEST,
 * part-000000.ingot, .ingot/versions/0000000001, ...) that are read whole or
 * by range, published whole and atomically (optionally only if unchanged or
 * absent), listed, and removed. Two backends: local files (a name is a file
 * under the directory; publishing writes aside, fsyncs and renames) and S3
 * (s3.h). The format keeps reading local part files through their own file
 * descriptors and mappings (one pread, one mmap: nothing here slows them);
 * remote parts are read through ig_obj handles below.
 *
 * Reading an object by range (ig_obj_read) goes through a bounded memory
 * cache of the ranges already fetched (rcache.h), shared by every object of
 * the store: a range fetched once is not fetched again while it stays.
 * Ranges not cached are fetched with range GETs, large ones split into
 * parallel requests; a batch prefetched (ig_obj_prefetch) merges ranges less
 * than INGOT_S3_COALESCE_KB (256) apart into one request; a read that continues the previous one starts an
 * asynchronous readahead that doubles up to INGOT_S3_READAHEAD_MB (32),
 * claimed and fetched in the background in pieces of INGOT_S3_AHEAD_PIECE_MB
 * (8), one GET each, by four fetchers (store_fetch.c). A
 * local disk cache (INGOT_S3_DISK_CACHE=DIR, INGOT_S3_DISK_CACHE_MB, default
 * 1024) keeps fetched ranges across processes; the memory budget is
 * INGOT_S3_CACHE_MB (256).
 *
 * One store per location lives as long as the process (like the connections
 * it keeps warm), found again by location, shared by threads. */
#ifndef IG_STORE_STORE_H
#define IG_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/ranges.h"
#include "store/s3.h"

struct ig_error;
struct ig_buf;
struct ig_store;
struct ig_obj;

#define IG_STORE_NAME_MAX 512

/* "s3://..." (anything else is a local path). */
bool ig_store_is_remote(const char *location);
/* Split a remote object path "s3://b/p/NAME" into its location "s3://b/p"
 * and NAME (after the last '/'). -EINVAL when there is no name. */
int ig_store_split(const char *path, char *location, size_t lcap, const char **name);

int ig_store_at(const char *location, struct ig_store **out, struct ig_error *err);
const char *ig_store_location(const struct ig_store *st);
/* The most a sequential reader is read ahead of, in bytes
 * (INGOT_S3_READAHEAD_MB); 0 for a local store. */
uint64_t ig_store_readahead(const struct ig_store *st);
bool ig_store_remote(const struct ig_store *st);
/* The S3 client of a remote store (NULL for a local one), and its bucket and
 * key prefix ("" or "PREFIX/"). */
struct ig_s3 *ig_store_s3(const struct ig_store *st, const char **bucket, const char **prefix);

struct ig_obj_info {
    uint64_t size;
    char etag[IG_ETAG_MAX];             /* local: size and mtime, as S3's is opaque */
    char version_id[IG_VERSION_ID_MAX]; /* "" unless the bucket keeps versions */
    bool latest, delete_marker;         /* listings of versions */
    char name[IG_STORE_NAME_MAX];       /* listings: relative to the location */
    int64_t mtime_ms;                   /* listings: when written, by the store's clock */
};

/* A whole object of at most max bytes appended to out. Remote objects read
 * before are asked for with If-None-Match: an unchanged one costs an answer
 * without a body (MANIFEST polled by mounts). -ENOENT when absent. */
int ig_store_read(struct ig_store *st, const char *name, size_t max, struct ig_buf *out,
                  struct ig_obj_info *info, struct ig_error *err);
int ig_store_stat(struct ig_store *st, const char *name, struct ig_obj_info *info,
                  struct ig_error *err);

/* Publish a whole object atomically: readers see the old bytes or the new,
 * never a mix. if_match: only over the object with that ETag; if_absent:
 * only where there is none. A failed condition is -ESTALE (remote) or
 * -EEXIST / -ESTALE (local, checked under no lock: callers serialise). */
struct ig_store_cond {
    const char *if_match;
    bool if_absent;
};
int ig_store_write(struct ig_store *st, const char *name, const void *data, size_t len,
                   const struct ig_store_cond *cond, struct ig_obj_info *info,
                   struct ig_error *err);
/* What a write from a file has sent so far, told after each piece of it
 * (a part of a multipart upload, or the whole object): `bytes` more. */
typedef void (*ig_store_sent_fn)(void *ctx, uint64_t bytes);
/* The same from a local file (remote: a multipart upload above 64 MiB);
 * sent (NULL: none) is told as it goes. */
int ig_store_write_file(struct ig_store *st, const char *name, const char *path,
                        ig_store_sent_fn sent, void *sent_ctx, const struct ig_store_cond *cond,
                        struct ig_obj_info *info, struct ig_error *err);
/* Remove an object, or one version of it; absent is not an error. */
int ig_store_remove(struct ig_store *st, const char *name, const char *version_id,
                    struct ig_error *err);
/* Every object whose name starts with sub (names relative to the location),
 * or every version and delete marker of them (versions: remote only; a local
 * directory has one version of each file). */
typedef int (*ig_store_list_fn)(void *ctx, const struct ig_obj_info *obj);
int ig_store_list(struct ig_store *st, const char *sub, bool versions, ig_store_list_fn fn,
                  void *ctx, struct ig_error *err);

/* An object opened for range reads. Objects are immutable: a handle reads
 * the bytes of the ETag it opened (remote reads carry If-Match), and an
 * object replaced since is -ESTALE. Handles of one name and ETag share their
 * cached ranges. */
int ig_obj_open(struct ig_store *st, const char *name, const struct ig_obj_info *known,
                struct ig_obj **out, struct ig_error *err);
/* Open by reading the object's tail: the want bytes before `end` (0: the
 * object's end) fetched in one request (appended to tail; *tail_start is
 * their offset), the handle made from the answer's size and ETag. The bytes
 * are cached too. */
int ig_obj_open_tail(struct ig_store *st, const char *name, uint64_t end, size_t want,
                     struct ig_buf *tail, uint64_t *tail_start, struct ig_obj **out,
                     struct ig_error *err);
uint64_t ig_obj_size(const struct ig_obj *o);
const char *ig_obj_etag(const struct ig_obj *o);
const char *ig_obj_version(const struct ig_obj *o);
struct ig_store *ig_obj_store(const struct ig_obj *o);
const char *ig_obj_name(const struct ig_obj *o);
/* Read exactly [off, off + n); past the end is -EIO. */
int ig_obj_read(struct ig_obj *o, void *buf, size_t n, uint64_t off, struct ig_error *err);
/* Who reads ahead of a read: the store (a run of sequential reads grows a
 * window fetched in the background), or the caller, which asks for what it
 * reads next itself (ig_obj_prefetch without waiting: a mount's column
 * readahead, a blob's whole extent); the store's then stays out of its way
 * (the two claimed alternate pieces of the same bytes: 300 GETs for a 128 MiB
 * column instead of 60). Said by each read, as a handle is shared by every
 * reader of its object; ig_obj_read is the store's. */
enum ig_ahead { IG_AHEAD_STORE, IG_AHEAD_CALLER };
int ig_obj_read_by(struct ig_obj *o, void *buf, size_t n, uint64_t off, enum ig_ahead ahead,
                   struct ig_error *err);
/* [off, off + n) of a remote object without a copy: fetched as ig_obj_read_by
 * would be, then *p points at it in the memory cache, held there until
 * ig_obj_unpin(*pin) (evicting it meanwhile only takes it out of the
 * cache's count; hold pins briefly, for one request, and release them before
 * the object is closed). Returns 0 with *pin NULL when the bytes are not in
 * one cached stretch (a local object; a range partly cached before in
 * another piece; a cache too small): read them with ig_obj_read instead. */
int ig_obj_pin(struct ig_obj *o, uint64_t off, size_t n, enum ig_ahead ahead, const uint8_t **p,
               void **pin, struct ig_error *err);
void ig_obj_unpin(void *pin); /* NULL: nothing */
/* Has a reader checked [off, off + n) of a pin's bytes (its checksums
 * held)? Said by ig_obj_pin_set_checked after a check that passed: two reads
 * of one page check it once. A failed check is never recorded. */
bool ig_obj_pin_checked(void *pin, uint64_t off, size_t n);
void ig_obj_pin_set_checked(void *pin, uint64_t off, size_t n);
/* Fetch these ranges into the cache (coalesced; those already cached or
 * being fetched skipped), in parallel; wait: before returning, else in the
 * background. Errors are left for the reads that follow. */
void ig_obj_prefetch(struct ig_obj *o, const struct ig_range *r, size_t n, bool wait);
/* How many separate stretches of [off, off + n) a remote object's memory
 * cache holds or is fetching (0 for a local object): how densely readers have
 * come to that range so far. */
size_t ig_obj_cached_pieces(struct ig_obj *o, uint64_t off, uint64_t n);
/* Has the object at its name moved on from this handle (replaced, removed)?
 * One HEAD; false when that cannot be told (the network). */
bool ig_obj_replaced(struct ig_obj *o);
void ig_obj_close(struct ig_obj *o);

/* Counters of a store's traffic (benchmarks, tests). */
struct ig_store_stats {
    uint64_t requests, bytes_fetched, cache_hits, cache_misses;
};
void ig_store_stats(struct ig_store *st, struct ig_store_stats *out);

#endif
