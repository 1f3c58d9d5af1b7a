/* store_int.h - what the pieces of the store share, and nothing outside
 * src/store/store*.c includes: a store and an object handle as they are,
 * and the helpers more than one piece calls.
 *
 * store.c         the registry of stores by location, their lifetime and
 *                 accessors, and object names (keys, paths, local ETags)
 * store_objects.c whole objects: stat, read (small ones kept), remove, list
 * store_write.c   writing whole objects: local files, PUT or multipart
 * store_obj.c     object handles read by range, through the range cache
 * store_fetch.c   filling the range cache: range GETs, the disk cache, the
 *                 background fetcher, readahead and prefetch */
#ifndef IG_STORE_STORE_INT_H
#define IG_STORE_STORE_INT_H

#include "store/diskcache.h"
#include "store/rcache.h"
#include "store/s3.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define SMALL_CACHED 8                     /* whole small objects kept with their ETag */
#define RA_FIRST     ((uint64_t)256 << 10) /* first readahead window */
#define RA_GAP       ((uint64_t)4 << 10)   /* a read this far past the last one's end is still sequential */
#define MAX_GAPS     64

struct small_obj {
    char name[IG_STORE_NAME_MAX];
    char etag[IG_ETAG_MAX];
    struct ig_buf data;
};

struct job {
    struct ig_obj *o;
    struct ig_range *gaps;
    size_t n;
    struct job *next;
};

struct ig_store {
    char *location;
    bool remote;
    /* remote */
    struct ig_s3 *s3;
    char bucket[64];
    char prefix[IG_S3_KEY_LEN_MAX]; /* "" or "PREFIX/" */
    struct ig_rcache *cache;
    struct ig_diskcache *disk;
    uint64_t ra_max;
    uint64_t coalesce; /* prefetched ranges this close are one request */
    uint64_t ahead_piece; /* a background fetch's smallest GET (0: PIECE_MIN) */
    pthread_mutex_t mu; /* objs, small, the job queue */
    struct ig_obj *objs;
    struct small_obj small[SMALL_CACHED];
    unsigned small_next;
    pthread_cond_t work;
    struct job *jobs, *jobs_tail;
    unsigned workers; /* background fetchers started (up to AHEAD_WORKERS) */
    atomic_uint_fast64_t hits, misses, fetched;
    struct ig_store *next;
};

struct ig_obj {
    struct ig_store *st;
    char name[IG_STORE_NAME_MAX];
    char key[IG_S3_KEY_LEN_MAX];
    struct ig_obj_info info;
    int refs; /* under st->mu */
    int fd;   /* local */
    struct ig_rc_obj *rc;
    pthread_mutex_t ra_mu;
    uint64_t ra_next, ra_window,
        ra_ahead; /* readahead: next expected offset, window, fetched up to */
    struct ig_obj *next;
};

/* The object's key under the store's prefix, checked: names are relative,
 * never empty, never climbing out ("..") or absolute. */
int store_key_of(const struct ig_store *st, const char *name, char *key, size_t cap,
                 struct ig_error *err);

/* A local store's object as a path under its directory. */
int store_local_path(const struct ig_store *st, const char *name, char *path, size_t cap,
                     struct ig_error *err);

/* A local file's ETag: its size and modification time. */
void store_local_etag(const struct stat *s, char *out);

/* What S3 said of an object, as the store says it (info may be NULL). */
void store_info_from_s3(struct ig_obj_info *info, const struct ig_s3_info *si, const char *name);

/* Fetch claimed gaps into data[0..ng) (store_fetch.c); on failure every
 * data[i] is NULL. The caller fills (or drops) each claim. */
int store_fetch_gaps(struct ig_obj *o, const struct ig_range *gaps, size_t ng, uint8_t **data,
                     struct ig_error *err);
/* The same with GETs of at least piece_min bytes where the ranges allow. */
int store_fetch_gaps_by(struct ig_obj *o, const struct ig_range *gaps, size_t ng, uint8_t **data,
                        uint64_t piece_min, struct ig_error *err);

/* Note a read of [off, off+n) and, if reads run sequentially, fetch ahead
 * of it in the background (store_fetch.c). */
void store_read_ahead(struct ig_obj *o, uint64_t off, size_t n);

/* Handles (store_handle.c): a fresh one for name (not yet shared); the
 * handle of the same name, ETag and size if one is open (fresh is then the
 * caller's to destroy), else fresh, counted once; destroyed with its cached
 * ranges; released (a local one at once, a remote one by its last holder). */
struct ig_obj *store_obj_alloc(struct ig_store *st, const char *name);
struct ig_obj *store_obj_share(struct ig_store *st, struct ig_obj *fresh);
void store_obj_destroy(struct ig_obj *o);
void store_obj_release(struct ig_obj *o);

#endif
