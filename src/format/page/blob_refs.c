#include "format/page/blob_refs.h"
#include "format/enc/codec.h"
#include "blob/blob.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int put_stream(struct ig_buf *body, const uint64_t *v, size_t n, struct ig_error *err)
{
    static const struct ig_int_desc d = {8, false};
    struct ig_enc_opts o = {.no_drop = true};
    size_t at = body->len;
    if (ig_buf_append_u32(body, 0)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_ints_encode(v, n, &d, &o, body, err);
    if (rc) return rc;
    ig_st32(body->data + at, (uint32_t)(body->len - at - 4));
    return 0;
}

int ig_blob_page_encode(const struct ig_values *v, size_t first, size_t count,
                        const uint8_t *skip, struct ig_buf *body, struct ig_error *err)
{
    size_t m = 0;
    for (size_t i = 0; i < count; i++)
        if (!skip || !((skip[i / 8] >> (i % 8)) & 1))
            m += (size_t)(v->offs[first + i + 1] - v->offs[first + i]) / IG_BLOB_REF_BYTES;
    if (m > IG_BLOB_PAGE_MAX_OBJECTS) return ig_err(err, -EFBIG, "too many objects in one page");
    uint64_t *lanes = malloc((count + 3 * m + 1) * sizeof *lanes);
    if (!lanes) return ig_err(err, -ENOMEM, "out of memory");
    uint64_t *counts = lanes, *offs = lanes + count, *sizes = offs + m, *hashes = sizes + m;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        bool skipped = skip && ((skip[i / 8] >> (i % 8)) & 1);
        size_t len;
        const uint8_t *p = ig_values_bytes(v, first + i, &len);
        counts[i] = skipped ? 0 : len / IG_BLOB_REF_BYTES;
        for (size_t j = 0; !skipped && j < counts[i]; j++, k++) {
            struct ig_blob_ref r;
            unsigned kind;
            ig_blob_ref_load(p + j * IG_BLOB_REF_BYTES, &r, &kind);
            offs[k] = r.offset;
            sizes[k] = r.size | (uint64_t)kind << 56;
            hashes[k] = r.hash;
        }
    }
    int rc = ig_buf_append_u32(body, (uint32_t)m) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = put_stream(body, counts, count, err);
    if (!rc) rc = put_stream(body, offs, m, err);
    if (!rc) rc = put_stream(body, sizes, m, err);
    if (!rc) rc = put_stream(body, hashes, m, err);
    free(lanes);
    return rc;
}

static int get_stream(const uint8_t *p, size_t len, size_t *pos, size_t n, uint64_t *out,
                      struct ig_error *err)
{
    static const struct ig_int_desc d = {8, false};
    if (len - *pos < 4) return ig_err(err, -EIO, "blob page: truncated");
    size_t sl = ig_ld32(p + *pos);
    *pos += 4;
    if (sl > len - *pos) return ig_err(err, -EIO, "blob page: stream past the page end");
    int rc = ig_ints_decode(p + *pos, sl, n, &d, NULL, out, err);
    *pos += sl;
    return rc;
}

int ig_blob_page_decode(const uint8_t *p, size_t len, size_t n, struct ig_values *out,
                        struct ig_error *err)
{
    if (len < 4) return ig_err(err, -EIO, "blob page: truncated");
    size_t m = ig_ld32(p), pos = 4;
    if (m > IG_BLOB_PAGE_MAX_OBJECTS) return ig_err(err, -EIO, "blob page: implausible object count");
    uint64_t *lanes = malloc((n + 3 * m + 1) * sizeof *lanes);
    if (!lanes) return ig_err(err, -ENOMEM, "out of memory");
    uint64_t *counts = lanes, *offs = lanes + n, *sizes = offs + m, *hashes = sizes + m;
    int rc = get_stream(p, len, &pos, n, counts, err);
    if (!rc) rc = get_stream(p, len, &pos, m, offs, err);
    if (!rc) rc = get_stream(p, len, &pos, m, sizes, err);
    if (!rc) rc = get_stream(p, len, &pos, m, hashes, err);
    uint64_t total = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (counts[i] > m - total) rc = ig_err(err, -EIO, "blob page: counts exceed the objects");
        else total += counts[i];
    }
    if (!rc && total != m) rc = ig_err(err, -EIO, "blob page: %zu objects but counts sum to %llu",
                                       m, (unsigned long long)total);
    if (!rc && ig_buf_reserve(&out->data, m * IG_BLOB_REF_BYTES)) rc = ig_err(err, -ENOMEM, "out of memory");
    size_t k = 0;
    out->offs[0] = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        for (uint64_t j = 0; j < counts[i]; j++, k++) {
            struct ig_blob_ref r = {offs[k], sizes[k] & ((1ull << 56) - 1), hashes[k]};
            ig_blob_ref_store(out->data.data + out->data.len, &r, (unsigned)(sizes[k] >> 56));
            out->data.len += IG_BLOB_REF_BYTES;
        }
        out->offs[i + 1] = out->data.len;
    }
    free(lanes);
    return rc;
}
