/* s3.c - the S3 client: its lifetime (settings from the environment, the
 * pool of connection sets it frees) and the single-object operations: HEAD,
 * GET (whole, tail, ranges), PUT and DELETE. How a request is sent, retried
 * and explained is s3_http.c; listing is s3_list.c; multipart uploads are
 * s3_mpu.c (s3_int.h). */
#include "store/curl_lib.h"
#include "store/s3.h"
#include "store/s3_int.h"
#include "store/s3_xml.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PUT_MAX (5ull << 30) /* one PUT; larger objects go in parts */

static unsigned env_uint(const char *name, unsigned dflt, unsigned lo, unsigned hi)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || n < lo || n > hi) return dflt;
    return (unsigned)n;
}

int ig_s3_open(struct ig_s3 **out, const struct ig_s3_config *cfg, struct ig_error *err)
{
    int rc = ig_curl_load(err); /* libcurl comes in with the first client */
    if (rc) return rc;
    struct ig_s3 *s3 = calloc(1, sizeof *s3);
    if (!s3) return ig_err(err, -ENOMEM, "out of memory");
    s3->cfg = *cfg;
    pthread_mutex_init(&s3->mu, NULL);
    s3->retries = env_uint("INGOT_S3_RETRIES", 4, 0, 20);
    s3->parallel = env_uint("INGOT_S3_PARALLEL", 16, 1, MAX_PARALLEL);
    s3->connect_ms = (long)env_uint("INGOT_S3_CONNECT_TIMEOUT_MS", 5000, 50, 600000);
    s3->stall_s = (long)env_uint("INGOT_S3_STALL_S", 5, 1, 3600);
    *out = s3;
    return 0;
}
void ig_s3_close(struct ig_s3 *s3)
{
    if (!s3) return;
    while (s3->idle) {
        struct conn *c = s3->idle;
        s3->idle = c->next;
        s3_conn_free(c);
    }
    pthread_mutex_destroy(&s3->mu);
    free(s3);
}

const struct ig_s3_config *ig_s3_config(const struct ig_s3 *s3)
{
    return &s3->cfg;
}

unsigned ig_s3_parallel(const struct ig_s3 *s3)
{
    return s3->parallel;
}

void ig_s3_stats(const struct ig_s3 *s3, struct ig_s3_stats *out)
{
    out->requests = atomic_load(&((struct ig_s3 *)s3)->requests);
    out->retries = atomic_load(&((struct ig_s3 *)s3)->retried);
    out->bytes_in = atomic_load(&((struct ig_s3 *)s3)->bytes_in);
    out->bytes_out = atomic_load(&((struct ig_s3 *)s3)->bytes_out);
    out->copied = atomic_load(&((struct ig_s3 *)s3)->copied);
}
int ig_s3_head(struct ig_s3 *s3, const char *bucket, const char *key, struct ig_s3_info *info,
               struct ig_error *err)
{
    struct xfer x;
    int rc = s3_xfer_init(s3, &x, "HEAD", bucket, key, NULL, err);
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc) rc = s3_explain(&x, err);
    if (!rc) {
        s3_fill_info(&x, info);
        if (!x.has_length) rc = ig_err(err, -EIO, "s3://%s/%s: HEAD without a length", bucket, key);
    }
    s3_xfer_free(&x);
    return rc;
}

int ig_s3_get(struct ig_s3 *s3, const char *bucket, const char *key, const char *if_none_match,
              size_t max, struct ig_buf *out, struct ig_s3_info *info, struct ig_error *err)
{
    struct xfer x;
    char h[IG_ETAG_MAX + 32];
    int rc = s3_xfer_init(s3, &x, "GET", bucket, key, NULL, err);
    if (!rc && if_none_match) {
        snprintf(h, sizeof h, "If-None-Match: \"%s\"", if_none_match);
        if (s3_add_header(&x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    x.out = out;
    x.out_start = out->len;
    x.max = max;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc && x.overflow && x.status >= 200 && x.status < 300) {
        rc = ig_err(err, -EFBIG, "s3://%s/%s: larger than %zu bytes", bucket, key, max);
    } else if (!rc) {
        rc = s3_explain(&x, err);
    }
    if (!rc) {
        s3_fill_info(&x, info);
        if (x.has_length && x.content_length != x.got)
            rc = ig_err(err, -EIO, "s3://%s/%s: %zu bytes of %" PRIu64 " came", bucket, key, x.got,
                        x.content_length);
        if (info) info->size = x.got;
    }
    if (rc) out->len = x.out_start;
    s3_xfer_free(&x);
    return rc;
}

int ig_s3_get_tail(struct ig_s3 *s3, const char *bucket, const char *key, uint64_t n,
                   struct ig_buf *out, uint64_t *start, struct ig_s3_info *info,
                   struct ig_error *err)
{
    struct xfer x;
    char h[64];
    int rc = s3_xfer_init(s3, &x, "GET", bucket, key, NULL, err);
    snprintf(h, sizeof h, "Range: bytes=-%" PRIu64, n);
    if (!rc && s3_add_header(&x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    x.out = out;
    x.out_start = out->len;
    x.max = (size_t)n;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc && x.status == 416) { /* an empty object */
        s3_xfer_free(&x);
        rc = ig_s3_head(s3, bucket, key, info, err);
        if (!rc) *start = info->size;
        return rc;
    }
    if (!rc) rc = s3_explain(&x, err);
    if (!rc) {
        s3_fill_info(&x, info);
        if (x.status == 206 && x.has_range && x.range_last + 1 == x.range_total &&
            x.range_last - x.range_first + 1 == x.got) {
            *start = x.range_first;
        } else if (x.status == 200 && (!x.has_length || x.content_length == x.got) && x.got <= n) {
            *start = 0; /* the whole object, smaller than asked */
            if (info) info->size = x.got;
        } else {
            rc = ig_err(err, -EIO, "s3://%s/%s: the tail came back malformed (HTTP %ld, %zu bytes)",
                        bucket, key, x.status, x.got);
        }
    }
    if (rc) out->len = x.out_start;
    s3_xfer_free(&x);
    return rc;
}

static bool range_ok(const struct xfer *x, const struct ig_s3_range *r)
{
    if (x->got != r->len) return false;
    if (x->status == 206)
        return x->has_range && x->range_first == r->off && x->range_last == r->off + r->len - 1;
    /* a whole object that is exactly the range asked for */
    return x->status == 200 && r->off == 0 && (!x->has_length || x->content_length == r->len);
}

int ig_s3_get_ranges(struct ig_s3 *s3, const char *bucket, const char *key, const char *if_match,
                     const struct ig_s3_range *r, size_t n, struct ig_error *err)
{
    if (n == 0) return 0;
    struct xfer *xs = calloc(n, sizeof *xs);
    struct xfer **ptrs = calloc(n, sizeof *ptrs);
    int rc = xs && ptrs ? 0 : ig_err(err, -ENOMEM, "out of memory");
    size_t inited = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (r[i].len == 0 || r[i].off > UINT64_MAX - r[i].len) {
            rc = ig_err(err, -EINVAL, "s3://%s/%s: empty or impossible range", bucket, key);
            break;
        }
        rc = s3_xfer_init(s3, &xs[i], "GET", bucket, key, NULL, err);
        if (rc) break;
        inited++;
        char h[IG_ETAG_MAX + 64];
        snprintf(h, sizeof h, "Range: bytes=%" PRIu64 "-%" PRIu64, r[i].off,
                 r[i].off + r[i].len - 1);
        if (s3_add_header(&xs[i], h)) rc = ig_err(err, -ENOMEM, "out of memory");
        if (!rc && if_match && if_match[0]) {
            snprintf(h, sizeof h, "If-Match: \"%s\"", if_match);
            if (s3_add_header(&xs[i], h)) rc = ig_err(err, -ENOMEM, "out of memory");
        }
        xs[i].dst = r[i].dst;
        xs[i].dst_len = (size_t)r[i].len;
        ptrs[i] = &xs[i];
    }
    if (!rc) rc = s3_perform(s3, ptrs, n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = s3_explain(&xs[i], err);
        if (!rc && !range_ok(&xs[i], &r[i]))
            rc = ig_err(err, -EIO,
                        "s3://%s/%s: asked for bytes %" PRIu64 "-%" PRIu64
                        ", got %zu bytes (HTTP %ld%s): "
                        "truncated or changed",
                        bucket, key, r[i].off, r[i].off + r[i].len - 1, xs[i].got, xs[i].status,
                        xs[i].has_range ? "" : ", no Content-Range");
    }
    for (size_t i = 0; i < inited; i++)
        s3_xfer_free(&xs[i]);
    free(xs);
    free(ptrs);
    return rc;
}

int ig_s3_get_range(struct ig_s3 *s3, const char *bucket, const char *key, uint64_t off,
                    uint64_t len, void *dst, struct ig_s3_info *info, struct ig_error *err)
{
    if (len == 0 || off > UINT64_MAX - len)
        return ig_err(err, -EINVAL, "s3://%s/%s: empty range", bucket, key);
    struct xfer x;
    char h[64];
    int rc = s3_xfer_init(s3, &x, "GET", bucket, key, NULL, err);
    snprintf(h, sizeof h, "Range: bytes=%" PRIu64 "-%" PRIu64, off, off + len - 1);
    if (!rc && s3_add_header(&x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    x.dst = dst;
    x.dst_len = (size_t)len;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc && x.cc == CURLE_OK && x.status == 416)
        rc = ig_err(err, -EIO, "s3://%s/%s: truncated: shorter than %" PRIu64 " bytes", bucket, key,
                    off + 1);
    if (!rc) rc = s3_explain(&x, err);
    struct ig_s3_range r = {off, len, dst};
    if (!rc && x.status == 206 && x.has_range && x.range_total < off + len)
        rc = ig_err(err, -EIO,
                    "s3://%s/%s: truncated: %" PRIu64 " bytes, expected at least %" PRIu64, bucket,
                    key, x.range_total, off + len);
    else if (!rc && !range_ok(&x, &r))
        rc = ig_err(err, -EIO,
                    "s3://%s/%s: asked for bytes %" PRIu64 "-%" PRIu64 ", got %zu (HTTP %ld)",
                    bucket, key, off, off + len - 1, x.got, x.status);
    if (!rc) {
        s3_fill_info(&x, info);
        if (x.status == 200) info->size = x.got;
    }
    s3_xfer_free(&x);
    return rc;
}

static int put_once(struct ig_s3 *s3, const char *bucket, const char *key, const void *data,
                    size_t len, const struct ig_s3_cond *cond, bool unquoted, struct xfer *x,
                    struct ig_error *err)
{
    int rc = s3_xfer_init(s3, x, "PUT", bucket, key, NULL, err);
    char h[IG_ETAG_MAX + 32];
    if (!rc && cond && cond->if_match) {
        snprintf(h, sizeof h, unquoted ? "If-Match: %s" : "If-Match: \"%s\"", cond->if_match);
        if (s3_add_header(x, h)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc && cond && cond->if_none_match && s3_add_header(x, "If-None-Match: *"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && s3_add_header(x, "Content-Type: application/octet-stream"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    x->body = data;
    x->body_len = len;
    if (!rc) rc = s3_perform1(s3, x, err);
    return rc;
}

int ig_s3_put(struct ig_s3 *s3, const char *bucket, const char *key, const void *data, size_t len,
              const struct ig_s3_cond *cond, struct ig_s3_info *info, struct ig_error *err)
{
    if (len > PUT_MAX) return ig_err(err, -EFBIG, "s3://%s/%s: over 5 GiB in one PUT", bucket, key);
    struct ig_s3_cond c = cond ? *cond : (struct ig_s3_cond){0};
    if (c.if_none_match) {
        /* asked first: a store may ignore the header (radosgw 16 on a
         * bucket that keeps versions), and the callers hold the writers'
         * lock, which serialises them where it does */
        struct ig_s3_info now;
        int h = ig_s3_head(s3, bucket, key, &now, NULL);
        if (h == 0) return ig_err(err, -ESTALE, "s3://%s/%s: exists already", bucket, key);
        if (h != -ENOENT) return ig_s3_head(s3, bucket, key, &now, err);
    }
    if (c.if_match && atomic_load(&s3->if_match_ignored)) {
        /* the store fails every If-Match here: checked by HEAD instead */
        struct ig_s3_info now;
        int h = ig_s3_head(s3, bucket, key, &now, err);
        if (h) return h;
        if (strcmp(now.etag, c.if_match))
            return ig_err(err, -ESTALE, "s3://%s/%s: the object is not the one expected (changed since read)",
                          bucket, key);
        c.if_match = NULL;
    }
    struct xfer x;
    bool unq = atomic_load(&s3->unquoted_if_match);
    int rc = put_once(s3, bucket, key, data, len, &c, unq, &x, err);
    if (!rc && x.cc == CURLE_OK && x.status == 412 && c.if_match) {
        /* a failed If-Match on an object that does have that ETag: some
         * stores compare it unquoted (radosgw 16); some fail it always (the
         * same on a bucket that keeps versions): learn which, and ask again */
        struct ig_s3_info now;
        if (ig_s3_head(s3, bucket, key, &now, NULL) == 0 && !strcmp(now.etag, c.if_match)) {
            s3_xfer_free(&x);
            rc = unq ? 0 : put_once(s3, bucket, key, data, len, &c, true, &x, err);
            if (!unq && !rc && x.cc == CURLE_OK && x.status != 412) atomic_store(&s3->unquoted_if_match, true);
            if (unq || (!rc && x.cc == CURLE_OK && x.status == 412)) {
                if (!unq) s3_xfer_free(&x);
                atomic_store(&s3->if_match_ignored, true);
                c.if_match = NULL;
                rc = put_once(s3, bucket, key, data, len, &c, true, &x, err);
            }
        }
    }
    if (!rc) rc = s3_explain(&x, err);
    if (!rc) {
        s3_fill_info(&x, info);
        if (info) info->size = len;
    }
    s3_xfer_free(&x);
    return rc;
}

int ig_s3_delete(struct ig_s3 *s3, const char *bucket, const char *key, const char *version_id,
                 struct ig_error *err)
{
    struct xfer x;
    char q[3 * IG_VERSION_ID_MAX + 32] = "", ev[3 * IG_VERSION_ID_MAX + 1];
    if (version_id) {
        if (!ig_s3_uri_encode(version_id, false, ev, sizeof ev))
            return ig_err(err, -EINVAL, "s3://%s/%s: version id too long", bucket, key);
        snprintf(q, sizeof q, "versionId=%s", ev);
    }
    int rc = s3_xfer_init(s3, &x, "DELETE", bucket, key, version_id ? q : NULL, err);
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc && x.cc == CURLE_OK && x.status == 404) {
        char code[64] = "";
        (void)ig_xml_get((const char *)x.errbody.data, x.errbody.len, "Code", code, sizeof code);
        if (strcmp(code, "NoSuchBucket")) x.status = 204; /* gone already */
    }
    if (!rc) rc = s3_explain(&x, err);
    s3_xfer_free(&x);
    return rc;
}
