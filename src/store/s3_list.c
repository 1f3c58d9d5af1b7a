/* s3_list.c - listing a bucket's objects under a prefix (ListObjectsV2)
 * or all their versions and delete markers (ListObjectVersions), page by
 * page, read from the answer's XML (s3_xml.c). Sending the requests is
 * s3_http.c (s3_int.h). */
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
#include <time.h>

/* "2026-12-02T05:16:38.343Z" as ms since 1970; 0 when malformed. */
static int64_t parse_time_ms(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return 0;
    if (*rest == '.') {
        int digits = 0;
        for (rest++; *rest >= '0' && *rest <= '9'; rest++)
            if (digits < 3) ms = ms * 10 + (*rest - '0'), digits++;
        while (digits++ < 3)
            ms *= 10;
    }
    return (int64_t)timegm(&tm) * 1000 + ms;
}

/* One <Contents>, <Version> or <DeleteMarker> element's fields. */
static bool list_entry(const char *c, size_t cl, bool marker, struct ig_s3_info *o)
{
    char num[32] = "", latest[8] = "";
    memset(o, 0, sizeof *o);
    if (!ig_xml_get(c, cl, "Key", o->key, sizeof o->key)) return false;
    (void)ig_xml_get(c, cl, "VersionId", o->version_id, sizeof o->version_id);
    if (!strcmp(o->version_id, "null")) o->version_id[0] = '\0';
    char etag[IG_ETAG_MAX + 8] = "";
    if (ig_xml_get(c, cl, "ETag", etag, sizeof etag)) {
        size_t el = strlen(etag);
        const char *e = etag;
        if (el >= 2 && e[0] == '"' && e[el - 1] == '"') e++, el -= 2;
        if (el < sizeof o->etag) {
            memcpy(o->etag, e, el);
            o->etag[el] = '\0';
        }
    }
    if (ig_xml_get(c, cl, "Size", num, sizeof num)) {
        char *end;
        o->size = strtoull(num, &end, 10);
        if (*end) return false;
    }
    o->latest = !ig_xml_get(c, cl, "IsLatest", latest, sizeof latest) || !strcmp(latest, "true");
    char when[40];
    if (ig_xml_get(c, cl, "LastModified", when, sizeof when)) o->mtime_ms = parse_time_ms(when);
    o->delete_marker = marker;
    return true;
}

/* A listing's query for the page after (kmark, other): key-marker, prefix,
 * OTHER_NAME (version-id-marker, upload-id-marker) and then the flag that
 * names the listing (versions, uploads), in name order as curl signs them.
 * -EIO when a marker does not fit. */
int s3_marker_query(char *q, size_t cap, const char *kmark, const char *ep,
                    const char *other_name, const char *other, const char *flag)
{
    char ek[3 * IG_S3_KEY_LEN_MAX + 1], eo[3 * 1024 + 1];
    if (!ig_s3_uri_encode(kmark, false, ek, sizeof ek) || !ig_s3_uri_encode(other, false, eo, sizeof eo))
        return -EIO;
    int qn = snprintf(q, cap, "%s%s%sprefix=%s%s%s%s%s&%s=", kmark[0] ? "key-marker=" : "",
                      kmark[0] ? ek : "", kmark[0] ? "&" : "", ep, other[0] ? "&" : "",
                      other[0] ? other_name : "", other[0] ? "=" : "", other[0] ? eo : "", flag);
    return qn < 0 || (size_t)qn >= cap ? -EIO : 0;
}

/* One page of a listing: GET ?q on the bucket into body (at most 64 MiB). */
int s3_get_listing(struct ig_s3 *s3, const char *bucket, const char *q, struct ig_buf *body,
                   struct ig_error *err)
{
    struct xfer x;
    ig_buf_reset(body);
    int rc = s3_xfer_init(s3, &x, "GET", bucket, NULL, q, err);
    x.out = body;
    x.max = 64u << 20;
    if (!rc) rc = s3_perform1(s3, &x, err);
    if (!rc) rc = s3_explain(&x, err);
    s3_xfer_free(&x);
    return rc;
}

int ig_s3_list(struct ig_s3 *s3, const char *bucket, const char *prefix, bool versions,
               ig_s3_list_fn fn, void *ctx, struct ig_error *err)
{
    char ep[3 * IG_S3_KEY_LEN_MAX + 1], token[2048] = "", kmark[IG_S3_KEY_LEN_MAX] = "",
                                        vmark[IG_VERSION_ID_MAX] = "";
    if (!ig_s3_uri_encode(prefix, false, ep, sizeof ep))
        return ig_err(err, -ENAMETOOLONG, "s3://%s/%s: prefix too long", bucket, prefix);
    struct ig_buf body = IG_BUF_INIT;
    int rc = 0;
    for (int page = 0; !rc; page++) {
        char q[16384], et[3 * sizeof token + 1];
        /* parameters sorted by name: curl 7.88 signs the query as given */
        if (!versions) {
            if (!ig_s3_uri_encode(token, false, et, sizeof et)) rc = -EIO;
            int qn = snprintf(q, sizeof q, "%s%s%slist-type=2&prefix=%s",
                              token[0] ? "continuation-token=" : "", token[0] ? et : "",
                              token[0] ? "&" : "", ep);
            if (qn < 0 || (size_t)qn >= sizeof q) rc = -EIO;
        } else if (s3_marker_query(q, sizeof q, kmark, ep, "version-id-marker", vmark, "versions")) {
            rc = -EIO;
        }
        if (rc) {
            rc = ig_err(err, -EIO, "s3://%s/%s: listing marker too long", bucket, prefix);
            break;
        }
        rc = s3_get_listing(s3, bucket, q, &body, err);
        if (rc) break;
        const char *t = (const char *)body.data;
        size_t tl = body.len, pos = 0;
        const char *c;
        size_t cl;
        struct ig_s3_info o;
        if (!versions) {
            while (!rc && ig_xml_next(t, tl, &pos, "Contents", &c, &cl)) {
                if (!list_entry(c, cl, false, &o))
                    rc = ig_err(err, -EIO, "s3://%s: malformed listing", bucket);
                else
                    rc = fn(ctx, &o);
            }
        } else {
            /* versions and delete markers, in whatever order they come */
            static const char *const kinds[2] = {"Version", "DeleteMarker"};
            for (int kind = 0; kind < 2 && !rc; kind++) {
                pos = 0;
                while (!rc && ig_xml_next(t, tl, &pos, kinds[kind], &c, &cl)) {
                    if (!list_entry(c, cl, kind == 1, &o))
                        rc = ig_err(err, -EIO, "s3://%s: malformed listing", bucket);
                    else
                        rc = fn(ctx, &o);
                }
            }
        }
        if (rc) break;
        char trunc[8] = "";
        if (!ig_xml_get(t, tl, "IsTruncated", trunc, sizeof trunc) || strcmp(trunc, "true")) break;
        if (!versions) {
            if (!ig_xml_get(t, tl, "NextContinuationToken", token, sizeof token) || !token[0])
                rc = ig_err(err, -EIO, "s3://%s: truncated listing without a continuation token",
                            bucket);
        } else {
            if (!ig_xml_get(t, tl, "NextKeyMarker", kmark, sizeof kmark)) kmark[0] = '\0';
            if (!ig_xml_get(t, tl, "NextVersionIdMarker", vmark, sizeof vmark)) vmark[0] = '\0';
            if (!kmark[0])
                rc = ig_err(err, -EIO, "s3://%s: truncated listing without a marker", bucket);
        }
        if (page > 1000000) rc = ig_err(err, -EIO, "s3://%s: listing does not end", bucket);
    }
    ig_buf_free(&body);
    return rc;
}
