/* s3_int.h - what the pieces of the S3 client share, and nothing outside
 * src/store/s3*.c includes: the client, a connection set, one request (xfer),
 * and the transport calls that build, run and explain requests.
 *
 * s3.c       the client's lifetime and the single-object operations
 * s3_http.c  the transport: URLs, headers, signing each try, curl callbacks,
 *            parallel runs with retries, backoff and stall bounds, errors
 * s3_list.c  listing objects and versions (ListObjectsV2, ListObjectVersions)
 * s3_mpu.c   multipart uploads: start, put and copy parts, complete, abort */
#ifndef IG_STORE_S3_INT_H
#define IG_STORE_S3_INT_H

#include "store/s3.h"
#include "store/sigv4.h"
#include "util/buf.h"
#include "util/error.h"

#include "store/curl_lib.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_PARALLEL 32
#define MAX_HEADERS  12

/* A connection set: one multi handle (it owns the kept-alive connections)
 * and the easy handles its transfers use. */
struct conn {
    CURLM *multi;
    CURL *easy[MAX_PARALLEL];
    struct conn *next;
};

struct ig_s3 {
    struct ig_s3_config cfg;
    pthread_mutex_t mu;
    struct conn *idle;
    unsigned nidle;
    unsigned retries, parallel;
    long connect_ms, stall_s;
    /* radosgw (Ceph 16) matches an If-Match on PUT only unquoted: learned
     * from the first such PUT that fails although HEAD shows the ETag */
    atomic_bool unquoted_if_match;
    atomic_bool if_match_ignored; /* ... and on a bucket that keeps versions, not at all */
    atomic_uint_fast64_t requests, retried, bytes_in, bytes_out, copied;
};

/* One HTTP request and what came back. */
struct xfer {
    struct ig_s3 *s3;
    CURL *easy;
    /* request */
    const char *method;
    char url[IG_S3_URL_MAX + 3 * IG_S3_KEY_LEN_MAX + 512];
    char host[IG_S3_URL_MAX];                /* as signed and sent */
    char path[3 * IG_S3_KEY_LEN_MAX + 128];  /* encoded, from '/' */
    char query[4 * IG_S3_KEY_LEN_MAX];       /* canonical: sorted, encoded */
    struct ig_sigv4_header hdr[MAX_HEADERS]; /* the request's own headers (values owned) */
    size_t nhdr;
    struct curl_slist *headers; /* all of them, signed, for this try */
    const uint8_t *body;
    size_t body_len, body_pos;
    bool post;
    /* where the body goes: dst (exactly dst_len bytes), out (up to max), or nowhere */
    uint8_t *dst;
    size_t dst_len;
    struct ig_buf *out;
    size_t out_start, max;
    /* answer */
    long status;
    CURLcode cc;
    char curl_msg[CURL_ERROR_SIZE];
    size_t got;
    bool overflow;
    bool sign_failed;
    struct ig_buf errbody;
    char etag[IG_ETAG_MAX];
    char version_id[IG_VERSION_ID_MAX];
    bool has_range;
    uint64_t range_first, range_last, range_total;
    uint64_t content_length;
    bool has_length;
    /* how long the answer may take without a byte moving (0: the store's
     * stall_s): longer where the server works before it answers at all */
    long quiet_s;
    /* retries */
    unsigned tries;
    int64_t not_before_ms;
    bool done;
    /* for messages */
    const char *bucket, *key;
};

/* A connection set's handles, freed (s3_http.c). */
void s3_conn_free(struct conn *c);

/* A request; the headers every one carries are added when it is signed. */
int s3_xfer_init(struct ig_s3 *s3, struct xfer *x, const char *method, const char *bucket,
                 const char *key, const char *query, struct ig_error *err);
void s3_xfer_free(struct xfer *x);

/* A header of the request: "name: value" (the name is lowercased, as it is signed). */
int s3_add_header(struct xfer *x, const char *h);

/* Run xs[0..n), in parallel, each retried as its failure allows; 0 unless
 * the transfers could not be run at all. Each xfer's outcome is its own:
 * see s3_explain. */
int s3_perform(struct ig_s3 *s3, struct xfer **xs, size_t n, struct ig_error *err);
int s3_perform1(struct ig_s3 *s3, struct xfer *x, struct ig_error *err);

/* The error of a finished transfer, explained; 0 for a 2xx answer. */
int s3_explain(const struct xfer *x, struct ig_error *err);

/* Listings (s3_list.c): a page's query after its markers, in the order curl
 * signs it (-EIO when a marker does not fit), and one page GET into body. */
int s3_marker_query(char *q, size_t cap, const char *kmark, const char *ep,
                    const char *other_name, const char *other, const char *flag);
int s3_get_listing(struct ig_s3 *s3, const char *bucket, const char *q, struct ig_buf *body,
                   struct ig_error *err);

/* What a finished transfer's answer said of the object: ETag, version,
 * size (info may be NULL). */
void s3_fill_info(const struct xfer *x, struct ig_s3_info *info);

#endif
