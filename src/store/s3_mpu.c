/* s3_mpu.c - multipart uploads: start one, put or server-side copy its
 * parts, complete it (checking the 200 answer for an <Error> in its body)
 * or abort it; list those left incomplete under a prefix. Whether an object goes up in parts is for the callers to
 * decide (store.c); sending the requests is s3_http.c (s3_int.h). */
#include "store/s3.h"
#include "store/s3_int.h"
#include "store/s3_xml.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A 200 answer whose body is an <Error> (CompleteMultipartUpload and
 * UploadPartCopy may fail after answering 200). */
static int error_in_body(const struct xfer *x, const struct ig_buf *body, struct ig_error *err)
{
    char code[64];
    if (!body->len || !ig_xml_get((const char *)body->data, body->len, "Code", code, sizeof code))
        return 0;
    size_t pos = 0;
    const char *c;
    size_t cl;
    if (!ig_xml_next((const char *)body->data, body->len, &pos, "Error", &c, &cl)) return 0;
    return ig_err(err, !strcmp(code, "PreconditionFailed") ? -ESTALE : -EIO, "s3://%s/%s: %s",
                  x->bucket, x->key, code);
}

int ig_s3_mpu_start(struct ig_s3 *s3, const char *bucket, const char *key, char *upload_id,
                    size_t cap, struct ig_error *err)
{
    struct xfer x;
    struct ig_buf body = IG_BUF_INIT;
    int rc = s3_xfer_init(s3, &x, "POST", bucket, key, "uploads=", err);
    if (!rc && s3_add_header(&x, "Content-Type: application/octet-stream"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    x.out = &body;
    x.max = 1 << 20;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc) rc = s3_explain(&x, err);
    if (!rc && !ig_xml_get((const char *)body.data, body.len, "UploadId", upload_id, cap))
        rc = ig_err(err, -EIO, "s3://%s/%s: no upload id in the answer", bucket, key);
    s3_xfer_free(&x);
    ig_buf_free(&body);
    return rc;
}

static int part_query(unsigned part, const char *upload_id, char *q, size_t cap)
{
    char eu[1024];
    if (!ig_s3_uri_encode(upload_id, false, eu, sizeof eu)) return -EINVAL;
    int n = snprintf(q, cap, "partNumber=%u&uploadId=%s", part, eu);
    return n > 0 && (size_t)n < cap ? 0 : -EINVAL;
}

int ig_s3_mpu_put(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                  unsigned part, const void *data, size_t len, char etag[IG_ETAG_MAX],
                  struct ig_error *err)
{
    char q[1200];
    if (part < 1 || part > 10000 || part_query(part, upload_id, q, sizeof q))
        return ig_err(err, -EINVAL, "s3://%s/%s: bad part %u", bucket, key, part);
    struct xfer x;
    int rc = s3_xfer_init(s3, &x, "PUT", bucket, key, q, err);
    x.body = data;
    x.body_len = len;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc) rc = s3_explain(&x, err);
    if (!rc && !x.etag[0])
        rc = ig_err(err, -EIO, "s3://%s/%s: part %u stored without an ETag", bucket, key, part);
    if (!rc) snprintf(etag, IG_ETAG_MAX, "%s", x.etag);
    s3_xfer_free(&x);
    return rc;
}

/* Server-side work (a copied part, assembling an upload) sends nothing
 * until done; the slowest such work taken as alive: 4 MiB/s. */
#define COPY_MIN_RATE (4u << 20)

static long copy_quiet_s(const struct ig_s3 *s3, uint64_t len)
{
    uint64_t s = (uint64_t)s3->stall_s + len / COPY_MIN_RATE;
    return s > 3600 ? 3600 : (long)s;
}

int ig_s3_mpu_copy(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                   unsigned part, const char *src_key, const char *src_version, const char *src_etag, uint64_t off,
                   uint64_t len, char etag[IG_ETAG_MAX], struct ig_error *err)
{
    char q[1200];
    if (part < 1 || part > 10000 || part_query(part, upload_id, q, sizeof q) || len == 0)
        return ig_err(err, -EINVAL, "s3://%s/%s: bad part %u", bucket, key, part);
    char esrc[3 * IG_S3_KEY_LEN_MAX + 1], h[3 * IG_S3_KEY_LEN_MAX + 3 * IG_VERSION_ID_MAX + 320];
    if (!ig_s3_uri_encode(src_key, true, esrc, sizeof esrc))
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%s: key too long", bucket, src_key);
    char ever[3 * IG_VERSION_ID_MAX + 1] = "";
    if (src_version && src_version[0] && !ig_s3_uri_encode(src_version, false, ever, sizeof ever))
        return ig_err(err, -EINVAL, "s3://%s/%s: version id too long", bucket, src_key);
    /* checked before the transfer exists: a bucket name long enough to cut the
     * header short would copy from some other key */
    int n = snprintf(h, sizeof h, "x-amz-copy-source: /%s/%s%s%s", bucket, esrc,
                     ever[0] ? "?versionId=" : "", ever);
    if (n < 0 || (size_t)n >= sizeof h)
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%s: copy source too long", bucket, src_key);
    struct xfer x;
    struct ig_buf body = IG_BUF_INIT;
    int rc = s3_xfer_init(s3, &x, "PUT", bucket, key, q, err);
    if (!rc && s3_add_header(&x, h)) rc = -ENOMEM;
    snprintf(h, sizeof h, "x-amz-copy-source-range: bytes=%" PRIu64 "-%" PRIu64, off,
             off + len - 1);
    if (!rc && s3_add_header(&x, h)) rc = -ENOMEM;
    if (!rc && src_etag) {
        snprintf(h, sizeof h, "x-amz-copy-source-if-match: \"%s\"", src_etag);
        if (s3_add_header(&x, h)) rc = -ENOMEM;
    }
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    x.out = &body;
    x.max = 1 << 20;
    /* the store copies the whole range before it answers a byte: allow it
     * COPY_MIN_RATE, so a large copy is not taken for a stalled one */
    x.quiet_s = copy_quiet_s(s3, len);
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc) rc = s3_explain(&x, err);
    if (!rc) rc = error_in_body(&x, &body, err);
    char et[IG_ETAG_MAX + 8] = "";
    if (!rc && !ig_xml_get((const char *)body.data, body.len, "ETag", et, sizeof et))
        rc = ig_err(err, -EIO, "s3://%s/%s: copied part %u without an ETag", bucket, key, part);
    if (!rc) {
        size_t el = strlen(et);
        const char *e = et;
        if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
        snprintf(etag, IG_ETAG_MAX, "%.*s", (int)el, e);
        atomic_fetch_add(&s3->copied, len);
    }
    s3_xfer_free(&x);
    ig_buf_free(&body);
    return rc;
}

int ig_s3_mpu_complete(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id,
                       char (*etags)[IG_ETAG_MAX], unsigned nparts, struct ig_s3_info *info,
                       struct ig_error *err)
{
    char q[1200], eu[1024];
    if (!ig_s3_uri_encode(upload_id, false, eu, sizeof eu))
        return ig_err(err, -EINVAL, "s3://%s/%s: upload id too long", bucket, key);
    snprintf(q, sizeof q, "uploadId=%s", eu);
    struct ig_buf xml = IG_BUF_INIT, body = IG_BUF_INIT;
    int rc = ig_buf_printf(&xml, "<CompleteMultipartUpload>");
    for (unsigned i = 0; !rc && i < nparts; i++) {
        char ee[2 * IG_ETAG_MAX];
        if (!ig_xml_escape(etags[i], ee, sizeof ee))
            rc = -EINVAL;
        else
            rc = ig_buf_printf(&xml, "<Part><PartNumber>%u</PartNumber><ETag>\"%s\"</ETag></Part>",
                               i + 1, ee);
    }
    if (!rc) rc = ig_buf_printf(&xml, "</CompleteMultipartUpload>");
    if (rc) {
        ig_buf_free(&xml);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    struct xfer x;
    rc = s3_xfer_init(s3, &x, "POST", bucket, key, q, err);
    if (!rc && s3_add_header(&x, "Content-Type: application/xml"))
        rc = ig_err(err, -ENOMEM, "out of memory");
    x.body = xml.data;
    x.body_len = xml.len;
    x.out = &body;
    x.max = 1 << 20;
    /* the store assembles the object before it answers: a minute more */
    x.quiet_s = s3->stall_s + 60;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc) rc = s3_explain(&x, err);
    if (!rc) rc = error_in_body(&x, &body, err);
    if (!rc && info) {
        s3_fill_info(&x, info);
        char et[IG_ETAG_MAX + 8];
        if (ig_xml_get((const char *)body.data, body.len, "ETag", et, sizeof et)) {
            size_t el = strlen(et);
            const char *e = et;
            if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
            snprintf(info->etag, sizeof info->etag, "%.*s", (int)el, e);
        }
    }
    s3_xfer_free(&x);
    ig_buf_free(&xml);
    ig_buf_free(&body);
    /* the answer's body has no size, and radosgw's an empty ETag: ask */
    if (!rc && info) {
        char version[IG_VERSION_ID_MAX];
        snprintf(version, sizeof version, "%s", info->version_id);
        rc = ig_s3_head(s3, bucket, key, info, err);
        if (!rc && version[0] && !info->version_id[0])
            snprintf(info->version_id, sizeof info->version_id, "%s", version);
    }
    return rc;
}

void ig_s3_mpu_abort(struct ig_s3 *s3, const char *bucket, const char *key, const char *upload_id)
{
    char q[1200], eu[1024];
    if (!ig_s3_uri_encode(upload_id, false, eu, sizeof eu)) return;
    snprintf(q, sizeof q, "uploadId=%s", eu);
    struct xfer x;
    if (!s3_xfer_init(s3, &x, "DELETE", bucket, key, q, NULL)) (void)s3_perform1(s3, &x, NULL);
    s3_xfer_free(&x);
}

int ig_s3_mpu_list(struct ig_s3 *s3, const char *bucket, const char *prefix, ig_s3_upload_fn fn,
                   void *ctx, struct ig_error *err)
{
    char ep[3 * IG_S3_KEY_LEN_MAX + 1], kmark[IG_S3_KEY_LEN_MAX] = "", umark[1024] = "";
    if (!ig_s3_uri_encode(prefix, false, ep, sizeof ep))
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%s: prefix too long", bucket, prefix);
    struct ig_buf body = IG_BUF_INIT;
    int rc = 0;
    for (int page = 0; !rc; page++) {
        char q[16384];
        rc = s3_marker_query(q, sizeof q, kmark, ep, "upload-id-marker", umark, "uploads");
        if (rc) {
            rc = ig_err(err, -EIO, "s3://%s/%s: listing marker too long", bucket, prefix);
            break;
        }
        rc = s3_get_listing(s3, bucket, q, &body, err);
        if (rc) break;
        const char *t = (const char *)body.data, *c;
        size_t tl = body.len, pos = 0, cl;
        while (!rc && ig_xml_next(t, tl, &pos, "Upload", &c, &cl)) {
            char key[IG_S3_KEY_LEN_MAX], id[1024];
            if (!ig_xml_get(c, cl, "Key", key, sizeof key) || !ig_xml_get(c, cl, "UploadId", id, sizeof id))
                rc = ig_err(err, -EIO, "s3://%s: malformed listing of uploads", bucket);
            else
                rc = fn(ctx, key, id);
        }
        char trunc[8] = "";
        if (rc || !ig_xml_get(t, tl, "IsTruncated", trunc, sizeof trunc) || strcmp(trunc, "true")) break;
        if (!ig_xml_get(t, tl, "NextKeyMarker", kmark, sizeof kmark)) kmark[0] = '\0';
        if (!ig_xml_get(t, tl, "NextUploadIdMarker", umark, sizeof umark)) umark[0] = '\0';
        if (!kmark[0]) rc = ig_err(err, -EIO, "s3://%s: truncated listing of uploads without a marker", bucket);
        if (page > 1000000) rc = ig_err(err, -EIO, "s3://%s: listing does not end", bucket);
    }
    ig_buf_free(&body);
    return rc;
}
