/* s3.h - an S3 client: libcurl, SigV4 signing (curl's), pooled connections,
 * retries, and errors that name the bucket and key.
 *
 * One client per endpoint and credentials; any number of threads may use it
 * at once. Each request borrows a connection set (a curl multi handle with
 * its own kept-alive connections) from the client's pool and returns it, so
 * a thread's next request finds a warm connection, and a batch of range GETs
 * runs in parallel on one set.
 *
 * Requests are retried on 5xx answers, 429 and broken or refused connections,
 * with exponential backoff (about 1.5 s over 5 tries by default); every
 * transfer that stalls (no byte for INGOT_S3_STALL_S seconds, default 5) is
 * aborted and retried, so nothing waits forever (at most about 30 s); a
 * copied part and the completion of a multipart upload, which the store
 * answers only when done, are allowed more (4 MiB/s of the copy; a minute). Failures are negative errno
 * values with a message naming s3://BUCKET/KEY and what the server said:
 *   -EACCES     403 (wrong or unknown credentials, no permission)
 *   -ENOENT     404: no such key
 *   -ENXIO      404: no such bucket
 *   -ESTALE     412: a condition failed (If-Match, If-None-Match, the source
 *               of a copy changed): the object is not what the caller knew
 *   -EALREADY   304: not modified (a GET with If-None-Match)
 *   -EIO        a malformed answer, a range past the end, 5xx after retries
 *   -ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH  the network, after retries
 *
 * Tuning (environment): INGOT_S3_RETRIES (retries after the first try,
 * default 4), INGOT_S3_CONNECT_TIMEOUT_MS (default 5000), INGOT_S3_STALL_S
 * (default 5), INGOT_S3_PARALLEL (range GETs in flight per batch, default 16:
 * a batch of any size keeps that many going until its last). */
#ifndef IG_STORE_S3_H
#define IG_STORE_S3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/s3_config.h"

struct ig_error;
struct ig_buf;
struct ig_s3;

#define IG_ETAG_MAX       128
#define IG_VERSION_ID_MAX 256
#define IG_S3_KEY_LEN_MAX 1024

/* What the server says about an object (HEAD, GET, PUT, LIST). */
struct ig_s3_info {
    uint64_t size;
    char etag[IG_ETAG_MAX];             /* as the server wrote it, quotes removed */
    char version_id[IG_VERSION_ID_MAX]; /* "" when the bucket keeps no versions */
    bool latest;                        /* LIST of versions: the current one */
    bool delete_marker;                 /* LIST of versions: a delete marker */
    char key[IG_S3_KEY_LEN_MAX];        /* LIST only */
    int64_t mtime_ms;                   /* LIST only: LastModified, ms since 1970 (the server's clock) */
};

int ig_s3_open(struct ig_s3 **out, const struct ig_s3_config *cfg, struct ig_error *err);
void ig_s3_close(struct ig_s3 *s3);
const struct ig_s3_config *ig_s3_config(const struct ig_s3 *s3);
/* Range GETs a batch keeps in flight (INGOT_S3_PARALLEL). */
unsigned ig_s3_parallel(const struct ig_s3 *s3);

/* Counters since the client opened (benchmarks, tests). */
struct ig_s3_stats {
    uint64_t requests, retries, bytes_in, bytes_out, copied; /* copied: server-side copy bytes */
};
void ig_s3_stats(const struct ig_s3 *s3, struct ig_s3_stats *out);

int ig_s3_head(struct ig_s3 *s3, const char *bucket, const char *key, struct ig_s3_info *info,
               struct ig_error *err);
/* The whole object (at most max bytes: larger is -EFBIG) appended to out.
 * if_none_match: an ETag; the same object then answers -EALREADY. */
int ig_s3_get(struct ig_s3 *s3, const char *bucket, const char *key, const char *if_none_match,
              size_t max, struct ig_buf *out, struct ig_s3_info *info, struct ig_error *err);
/* The last n bytes (fewer if the object is smaller) appended to out;
 * *start is where they begin in the object, info->size its size. */
int ig_s3_get_tail(struct ig_s3 *s3, const char *bucket, const char *key, uint64_t n,
                   struct ig_buf *out, uint64_t *start, struct ig_s3_info *info,
                   struct ig_error *err);

/* Byte ranges of one object, fetched in parallel (INGOT_S3_PARALLEL in
 * flight) into their buffers; each must come back whole and exactly where asked
 * (checked against Content-Range). if_match: the ETag the caller read the
 * object's layout from; an object replaced since is -ESTALE. */
struct ig_s3_range {
    uint64_t off, len;
    void *dst;
};
int ig_s3_get_ranges(struct ig_s3 *s3, const char *bucket, const char *key, const char *if_match,
                     const struct ig_s3_range *r, size_t n, struct ig_error *err);

/* One range with what the answer tells of the object (its size from
 * Content-Range, its ETag and version): enough to read it further without a
 * HEAD. An object shorter than off + len is -EIO naming its size. */
int ig_s3_get_range(struct ig_s3 *s3, const char *bucket, const char *key, uint64_t off,
                    uint64_t len, void *dst, struct ig_s3_info *info, struct ig_error *err);

/* Conditions on a write. */
struct ig_s3_cond {
    const char *if_match; /* replace only this object (its ETag) */
    bool if_none_match;   /* create only: no object of that key yet */
};
/* PUT a whole object from memory (at most 5 GiB); info (may be NULL) gets
 * its ETag and version id. A failed condition is -ESTALE. */
int ig_s3_put(struct ig_s3 *s3, const char *bucket, const char *key, const void *data, size_t len,
              const struct ig_s3_cond *cond, struct ig_s3_info *info, struct ig_error *err);
/* DELETE the object, or one version of it (version_id not NULL). A key that
 * is not there is not an error. */
int ig_s3_delete(struct ig_s3 *s3, const char *bucket, const char *key, const char *version_id,
                 struct ig_error *err);

/* Every object under prefix (ListObjectsV2), or every version and delete
 * marker (ListObjectVersions), page by page; fn returning non-zero stops the
 * walk and is returned. */
typedef int (*ig_s3_list_fn)(void *ctx, const struct ig_s3_info *obj);
int ig_s3_list(struct ig_s3 *s3, const char *bucket, const char *prefix, bool versions,
               ig_s3_list_fn fn, void *ctx, struct ig_error *err);

/* Multipart upload. Parts are numbered from 1 and, but for the last, hold at
 * least 5 MiB (the store's minimum). A copied part takes [off, off + len) of
 * an existing object server-side: of its version src_version when not NULL
 * (pinned: a bucket that keeps versions), and only while it has ETag
 * src_etag (AWS checks it; radosgw 16 ignores the condition on a part). */
int ig_s3_mpu_start(struct ig_s3 *s3, const char *bucket, const char *key, char *upload_id,
                    size_t cap, struct ig_error *err);
int ig_s3_mpu_put(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                  unsigned part, const void *data, size_t len, char etag[IG_ETAG_MAX],
                  struct ig_error *err);
int ig_s3_mpu_copy(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                   unsigned part, const char *src_key, const char *src_version, const char *src_etag, uint64_t off,
                   uint64_t len, char etag[IG_ETAG_MAX], struct ig_error *err);
/* Publish the parts (etags[i] of part i + 1) as the object, atomically. */
int ig_s3_mpu_complete(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                       char (*etags)[IG_ETAG_MAX], unsigned nparts, struct ig_s3_info *info,
                       struct ig_error *err);
void ig_s3_mpu_abort(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id);
/* The multipart uploads started under prefix and neither completed nor
 * aborted (ListMultipartUploads), page by page: fn gets each one's key and
 * upload id; non-zero stops the walk and is returned. Their parts are stored
 * (and billed) until an abort, and list as no object. */
typedef int (*ig_s3_upload_fn)(void *ctx, const char *key, const char *upload_id);
int ig_s3_mpu_list(struct ig_s3 *s3, const char *bucket, const char *prefix, ig_s3_upload_fn fn,
                   void *ctx, struct ig_error *err);

/* Percent-encode s for a URL path (keep '/' when keep_slash) or a query
 * value, as SigV4 canonicalises it: unreserved bytes stay. False when it does
 * not fit cap. */
bool ig_s3_uri_encode(const char *s, bool keep_slash, char *out, size_t cap);

#endif
