#include "format/page/page.h"
#include "format/page/pagerec.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/page/blob_refs.h"
#include "format/page/slide.h"
#include "format/model/quantize.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

void ig_page_scratch_free(struct ig_page_scratch *s)
{
    ig_buf_free(&s->body);
    ig_buf_free(&s->text);
    ig_buf_free(&s->tmp);
    free(s->offs);
    ZSTD_freeDCtx(s->zstd_dctx);
    memset(s, 0, sizeof *s);
}

void ig_page_built_free(struct ig_page_built *b)
{
    ig_buf_free(&b->stored);
    free(b->blocks);
    memset(b, 0, sizeof *b);
}

static int scratch_offs(struct ig_page_scratch *s, size_t n)
{
    if (n + 1 <= s->offs_cap) return 0;
    size_t cap = s->offs_cap ? s->offs_cap : 1024;
    while (cap < n + 1)
        cap *= 2;
    uint64_t *o = realloc(s->offs, cap * sizeof *o);
    if (!o) return -ENOMEM;
    s->offs = o;
    s->offs_cap = cap;
    return 0;
}

static struct ig_int_desc lane_desc(uint8_t type)
{
    const struct ig_type_info *ti = ig_type_info(type);
    return (struct ig_int_desc){.width = ti->width, .is_signed = ti->is_signed};
}

/* Render the page's rows to count their text bytes (all rows live at write time). */
static int page_text_len(const struct ig_values *v, size_t first, size_t count,
                         struct ig_page_scratch *s, uint64_t *len)
{
    /* A view of the slice without copying: shift the pointers. */
    struct ig_values view = *v;
    view.n = count;
    view.row_base = v->row_base + first;
    if (v->is_bytes) {
        view.offs = v->offs + first;
    } else {
        view.lanes = v->lanes + first;
    }
    if (v->has_nulls && first % 8 == 0) {
        view.valid = v->valid + first / 8;
    } else if (v->has_nulls) {
        /* unaligned validity: copy bits */
        int rc = ig_buf_reserve(&s->tmp, count / 8 + 1);
        if (rc) return rc;
        memset(s->tmp.data, 0, count / 8 + 1);
        for (size_t i = 0; i < count; i++)
            if (!ig_values_is_null(v, first + i)) s->tmp.data[i / 8] |= (uint8_t)(1u << (i % 8));
        view.valid = s->tmp.data;
    }
    if (v->is_bytes) {
        /* offsets are absolute into v->data: render each value directly */
        uint64_t total = 0;
        for (size_t i = 0; i < count; i++) {
            ig_buf_reset(&s->text);
            int rc = ig_render_text_value(&s->text, &view, i);
            if (rc) return rc;
            total += s->text.len + 1;
        }
        *len = total;
        return 0;
    }
    return ig_render_text_len(&view, NULL, &s->text, len);
}

/* Append the values stream for values [first, first + count) of v. */
static int encode_values(const struct ig_page_policy *pol, const struct ig_values *v, size_t first,
                         size_t count, struct ig_page_scratch *s, struct ig_buf *body,
                         struct ig_error *err)
{
    struct ig_enc_opts eo = {.forced = pol->encoding, .allowed = 0, .max_depth = 0,
                             .no_drop = pol->leaf.levels};
    static const uint64_t no_lanes[1];
    if (v->type == IG_T_BLOB) {
        if (count == 0) { /* no values: an empty reference list */
            struct ig_values none;
            ig_values_init(&none, IG_T_BLOB);
            int rc = ig_values_reserve(&none, 1) ? -ENOMEM : ig_blob_page_encode(&none, 0, 0, NULL, body, err);
            ig_values_free(&none);
            return rc;
        }
        return ig_blob_page_encode(v, first, count, NULL, body, err);
    }
    if (v->is_bytes) {
        int rc = scratch_offs(s, count);
        if (rc) return ig_err(err, rc, "out of memory");
        if (count == 0) {
            s->offs[0] = 0;
            return ig_bytes_encode(s->offs, (const uint8_t *)"", 0, &eo, body, err);
        }
        uint64_t base = v->offs[first];
        for (size_t i = 0; i <= count; i++)
            s->offs[i] = v->offs[first + i] - base;
        const uint8_t *data = v->data.data ? v->data.data + base : (const uint8_t *)"";
        return ig_bytes_encode(s->offs, data, count, &eo, body, err);
    }
    if (count == 0) {
        struct ig_int_desc d = pol->leaf.quantize
                                   ? (struct ig_int_desc){.width = (uint8_t)ig_quantize_width(pol->leaf.quantize)}
                                   : lane_desc(v->type);
        return ig_ints_encode(no_lanes, 0, &d, &eo, body, err);
    }
    if (pol->leaf.quantize) {
        /* float32 lanes already rounded to the format (the writer did): exact */
        uint64_t *q = malloc((count + 1) * sizeof *q);
        if (!q) return ig_err(err, -ENOMEM, "out of memory");
        ig_quantize_lanes(pol->leaf.quantize, IG_T_FLOAT32, v->lanes + first, count, q);
        struct ig_int_desc d = {.width = (uint8_t)ig_quantize_width(pol->leaf.quantize)};
        int rc = ig_ints_encode(q, count, &d, &eo, body, err);
        free(q);
        return rc;
    }
    struct ig_int_desc d = lane_desc(v->type);
    return ig_ints_encode(v->lanes + first, count, &d, &eo, body, err);
}

/* u32 length + an int stream of level values. */
static int put_levels(const uint8_t *lv, size_t n, struct ig_buf *body, struct ig_error *err)
{
    static const struct ig_int_desc d = {1, false};
    struct ig_enc_opts eo = {.no_drop = true};
    uint64_t *lanes = malloc((n + 1) * sizeof *lanes);
    if (!lanes) return ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        lanes[i] = lv[i];
    size_t at = body->len;
    int rc = ig_buf_append_u32(body, 0) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = ig_ints_encode(lanes, n, &d, &eo, body, err);
    if (!rc) ig_st32(body->data + at, (uint32_t)(body->len - at - 4));
    free(lanes);
    return rc;
}

/* This thread's zstd compression context, made at its first use and reused
 * for every block after: a context per call (ZSTD_compress) costs more than
 * compressing a 4 KiB block. Freed when the thread ends. */
static pthread_key_t cctx_key;
static pthread_once_t cctx_once = PTHREAD_ONCE_INIT;
static void cctx_free(void *c) { ZSTD_freeCCtx(c); }
static void cctx_key_make(void) { (void)pthread_key_create(&cctx_key, cctx_free); }

/* ZSTD_compress's output (same parameters, same bytes) through that context. */
static size_t compress_block(void *dst, size_t cap, const void *src, size_t n, int level)
{
    pthread_once(&cctx_once, cctx_key_make);
    ZSTD_CCtx *c = pthread_getspecific(cctx_key);
    if (!c && (c = ZSTD_createCCtx()) && pthread_setspecific(cctx_key, c)) {
        ZSTD_freeCCtx(c);
        c = NULL;
    }
    return c ? ZSTD_compressCCtx(c, dst, cap, src, n, level) : ZSTD_compress(dst, cap, src, n, level);
}

/* Compress (per policy), checksum. */
static int seal(const struct ig_page_policy *pol, struct ig_buf *body, struct ig_page_built *out,
                struct ig_error *err)
{
    if (body->len > IG_MAX_PAGE_BODY)
        return ig_err(err, -EFBIG, "page body of %zu bytes exceeds the 1 GiB limit", body->len);
    out->body_size = (uint32_t)body->len;
    /* zstd when forced, or when it saves at least an eighth of the page. */
    bool try_zstd = pol->compression == IG_COMP_ZSTD ||
                    (pol->compression == IG_COMP_AUTO && body->len >= 256);
    out->compression = IG_PC_NONE;
    ig_buf_reset(&out->stored);
    if (try_zstd) {
        size_t bound = ZSTD_compressBound(body->len);
        if (ig_buf_reserve(&out->stored, bound)) return ig_err(err, -ENOMEM, "out of memory");
        size_t z = compress_block(out->stored.data, bound, body->data, body->len,
                                 pol->zstd_level ? pol->zstd_level : 3);
        if (ZSTD_isError(z)) return ig_err(err, -EIO, "zstd: %s", ZSTD_getErrorName(z));
        if (pol->compression == IG_COMP_ZSTD || z <= body->len - body->len / 8) {
            out->stored.len = z;
            out->compression = IG_PC_ZSTD;
        }
    }
    if (out->compression == IG_PC_NONE && ig_buf_append(&out->stored, body->data, body->len))
        return ig_err(err, -ENOMEM, "out of memory");
    out->checksum = ig_hash(out->stored.data, out->stored.len);
    return 0;
}

/* An erased page's zstd frame can come out a few bytes longer than the one it
 * replaces (the input changed, not grew); harder levels nearly always win them
 * back, which keeps the page in its extent instead of moving it. */
static int recompress_to_fit(const struct ig_buf *body, size_t capacity, struct ig_page_built *out,
                             struct ig_error *err)
{
    static const int levels[] = {9}; /* 19 costs ten times as much for little more */
    for (size_t i = 0; i < sizeof levels / sizeof levels[0] && out->stored.len > capacity; i++) {
        size_t bound = ZSTD_compressBound(body->len);
        struct ig_buf z = IG_BUF_INIT;
        if (ig_buf_reserve(&z, bound)) return ig_err(err, -ENOMEM, "out of memory");
        size_t n = compress_block(z.data, bound, body->data, body->len, levels[i]);
        if (!ZSTD_isError(n) && n < out->stored.len) {
            z.len = n;
            ig_buf_free(&out->stored);
            out->stored = z;
            out->checksum = ig_hash(z.data, z.len);
        } else {
            ig_buf_free(&z);
        }
    }
    return 0;
}

int ig_page_encode(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                   size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                   struct ig_error *err)
{
    struct ig_buf *body = &s->body;
    ig_buf_reset(body);
    int rc;
    out->text_len = 0;
    if (pol->leaf.levels && pol->leaf.slide_ok &&
        (pol->encoding == IG_PAGE_ENC_SLIDE || pol->encoding == IG_ENC_AUTO)) {
        /* sliding windows: keep it when smaller than level streams (or forced) */
        uint8_t hdr[IG_BODY_HDR] = {IG_BODY_SLIDE, 0, 0, 0};
        rc = ig_buf_append(body, hdr, sizeof hdr) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc) rc = ig_slide_encode(v, first, count, &pol->leaf, body, err);
        if (rc) return rc;
        if (pol->encoding == IG_PAGE_ENC_SLIDE) goto slide_done;
        struct ig_buf slide = *body; /* keep it aside; build the alternative in a fresh body */
        s->body = (struct ig_buf)IG_BUF_INIT;
        struct ig_page_policy alt = *pol;
        alt.leaf.slide_ok = false;
        rc = ig_page_encode(&alt, v, first, count, s, out, err);
        if (!rc && out->body_size <= slide.len) {
            ig_buf_free(&slide);
            return 0;
        }
        ig_buf_free(&s->body);
        s->body = slide;
        body = &s->body;
        if (rc) return rc;
    slide_done:
        out->encoding = IG_PAGE_ENC_SLIDE;
        out->flags = 0;
        out->entry_count = (uint32_t)(v->row_ent[first + count] - v->row_ent[first]);
        out->value_count = (uint32_t)(v->row_val[first + count] - v->row_val[first]);
        return seal(pol, body, out, err);
    }
    if (pol->leaf.levels) {
        size_t e0 = v->row_ent[first], e1 = v->row_ent[first + count];
        size_t v0 = v->row_val[first], v1 = v->row_val[first + count];
        uint8_t hdr[IG_BODY_HDR] = {(uint8_t)((pol->leaf.max_rep ? IG_BODY_REP : 0) |
                                              (pol->leaf.max_def ? IG_BODY_DEF : 0) |
                                              (v->type == IG_T_BLOB ? IG_BODY_BLOB : 0)),
                                    0, 0, 0};
        rc = ig_buf_append(body, hdr, sizeof hdr) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc && pol->leaf.max_rep) rc = put_levels(v->reps + e0, e1 - e0, body, err);
        if (!rc && pol->leaf.max_def) rc = put_levels(v->defs + e0, e1 - e0, body, err);
        size_t values_at = body->len;
        if (!rc) rc = encode_values(pol, v, v0, v1 - v0, s, body, err);
        if (rc) return rc;
        out->encoding = v->type == IG_T_BLOB ? 0 : body->data[values_at];
        out->flags = 0;
        out->entry_count = (uint32_t)(e1 - e0);
        out->value_count = (uint32_t)(v1 - v0);
        return seal(pol, body, out, err);
    }
    bool nulls = false;
    if (v->has_nulls)
        for (size_t i = 0; i < count && !nulls; i++)
            nulls = ig_values_is_null(v, first + i);
    uint8_t hdr[IG_BODY_HDR] = {(uint8_t)((nulls ? IG_BODY_VALIDITY : 0) |
                                          (v->type == IG_T_BLOB ? IG_BODY_BLOB : 0)),
                                0, 0, 0};
    rc = ig_buf_append(body, hdr, sizeof hdr);
    if (!rc && nulls) {
        uint8_t *bits = ig_buf_extend(body, (count + 7) / 8);
        if (!bits) return ig_err(err, -ENOMEM, "out of memory");
        memset(bits, 0, (count + 7) / 8);
        for (size_t i = 0; i < count; i++)
            if (!ig_values_is_null(v, first + i)) bits[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    if (rc) return ig_err(err, rc, "out of memory");
    size_t values_at = body->len;
    rc = encode_values(pol, v, first, count, s, body, err);
    if (rc) return rc;
    out->encoding = v->type == IG_T_BLOB ? 0 : body->data[values_at];
    out->flags = nulls ? IG_PGF_HAS_NULLS : 0;
    out->entry_count = out->value_count = (uint32_t)count;
    rc = seal(pol, body, out, err);
    if (rc) return rc;
    return page_text_len(v, first, count, s, &out->text_len) ? ig_err(err, -ENOMEM, "out of memory")
                                                              : 0;
}

/* Zeroed room after a compressed block: an erase recompresses it to about, not
 * exactly, its size (uncompressed blocks never grow on erase). */
static size_t block_slack(const struct ig_page_built *unit)
{
    if (unit->compression != IG_PC_ZSTD) return 0;
    size_t n = unit->stored.len / 128;
    return n > 32 ? n : 32;
}

int ig_page_encode_blocks(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                          size_t count, const size_t *cuts, size_t ncuts, struct ig_page_scratch *s,
                          struct ig_page_built *out, struct ig_error *err)
{
    size_t one[2] = {0, count};
    if (!cuts || ncuts == 0) {
        cuts = one;
        ncuts = 1;
    }
    ig_buf_reset(&out->stored);
    out->nblocks = 0;
    out->body_size = out->entry_count = out->value_count = 0;
    out->text_len = 0;
    out->compression = IG_PC_NONE;
    out->flags = 0;
    if (ncuts > out->blocks_cap) {
        struct ig_block_built *b = realloc(out->blocks, ncuts * sizeof *b);
        if (!b) return ig_err(err, -ENOMEM, "out of memory");
        out->blocks = b;
        out->blocks_cap = (uint32_t)ncuts;
    }
    struct ig_page_built unit = {0};
    int rc = 0;
    for (size_t k = 0; k < ncuts && !rc; k++) {
        size_t a = cuts[k], b = cuts[k + 1];
        if (b <= a || b > count) {
            rc = ig_err(err, -EINVAL, "bad block cuts");
            break;
        }
        rc = ig_page_encode(pol, v, first + a, b - a, s, &unit, err);
        if (rc) break;
        size_t slack = block_slack(&unit), at = out->stored.len;
        if (out->stored.len + unit.stored.len + slack > IG_MAX_PAGE_BODY) {
            rc = ig_err(err, -EFBIG, "page of %zu bytes exceeds the 1 GiB limit", out->stored.len);
            break;
        }
        if (ig_buf_append(&out->stored, unit.stored.data, unit.stored.len) ||
            ig_buf_append_zeros(&out->stored, slack)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        out->blocks[k] = (struct ig_block_built){.offset = (uint32_t)at,
                                                 .stored = (uint32_t)unit.stored.len,
                                                 .capacity = (uint32_t)(unit.stored.len + slack),
                                                 .body_size = unit.body_size,
                                                 .first_row = (uint32_t)a,
                                                 .row_count = (uint32_t)(b - a),
                                                 .entry_count = unit.entry_count,
                                                 .value_count = unit.value_count,
                                                 .encoding = unit.encoding,
                                                 .compression = unit.compression,
                                                 .flags = unit.flags,
                                                 .checksum = unit.checksum};
        if (k == 0) out->encoding = unit.encoding;
        out->nblocks = (uint32_t)k + 1;
        out->body_size += unit.body_size;
        out->entry_count += unit.entry_count;
        out->value_count += unit.value_count;
        out->text_len += unit.text_len;
        out->flags |= unit.flags;
        if (unit.compression == IG_PC_ZSTD) out->compression = IG_PC_ZSTD;
    }
    ig_page_built_free(&unit);
    return rc;
}

bool ig_page_plain_values(const uint8_t *stored, const struct ig_pagerec *rec, unsigned width,
                          size_t *offset)
{
    size_t n = (size_t)rec->row_count * width;
    if (rec->compression != IG_PC_NONE || rec->stored != IG_BODY_HDR + 2 + n) return false;
    if (stored[0] != 0 || stored[IG_BODY_HDR] != IG_ENC_PLAIN || stored[IG_BODY_HDR + 1] != width)
        return false;
    *offset = IG_BODY_HDR + 2;
    return true;
}

int ig_page_body(const uint8_t *stored, const struct ig_pagerec *rec, struct ig_page_scratch *s,
                 const uint8_t **body, struct ig_error *err)
{
    if (rec->compression == IG_PC_NONE) {
        *body = stored;
        return 0;
    }
    ig_buf_reset(&s->body);
    if (ig_buf_reserve(&s->body, rec->body_size)) return ig_err(err, -ENOMEM, "out of memory");
    if (!s->zstd_dctx && !(s->zstd_dctx = ZSTD_createDCtx())) return ig_err(err, -ENOMEM, "out of memory");
    size_t z = ZSTD_decompressDCtx(s->zstd_dctx, s->body.data, rec->body_size, stored, rec->stored);
    if (ZSTD_isError(z) || z != rec->body_size)
        return ig_err(err, -EIO, "zstd: %s",
                      ZSTD_isError(z) ? ZSTD_getErrorName(z) : "decompressed size mismatch");
    s->body.len = z;
    *body = s->body.data;
    return 0;
}

/* u32 length + level stream into dst (n bytes). */
static int get_levels(const uint8_t *body, size_t len, size_t *pos, size_t n, uint8_t max,
                      uint8_t *dst, struct ig_error *err)
{
    static const struct ig_int_desc d = {1, false};
    if (len - *pos < 4) return ig_err(err, -EIO, "level stream past the page end");
    size_t sl = ig_ld32(body + *pos);
    *pos += 4;
    if (sl > len - *pos) return ig_err(err, -EIO, "level stream past the page end");
    uint64_t *lanes = malloc((n + 1) * sizeof *lanes);
    if (!lanes) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_ints_decode(body + *pos, sl, n, &d, NULL, lanes, err);
    for (size_t i = 0; !rc && i < n; i++) {
        if (lanes[i] > max) rc = ig_err(err, -EIO, "level %llu above the maximum %u",
                                        (unsigned long long)lanes[i], max);
        dst[i] = (uint8_t)lanes[i];
    }
    free(lanes);
    *pos += sl;
    return rc;
}

/* Decode n value slots of the leaf's type into out (lanes or bytes). */
static int decode_values(const struct ig_leaf_info *li, const uint8_t *p, size_t len, size_t n,
                         const uint8_t *absent, struct ig_values *out, struct ig_error *err)
{
    int rc = ig_values_reserve(out, n);
    if (rc) return ig_err(err, rc, "out of memory");
    if (li->type == IG_T_BLOB) {
        rc = ig_blob_page_decode(p, len, n, out, err);
    } else if (out->is_bytes) {
        rc = ig_bytes_decode(p, len, n, absent, out->offs, &out->data, err);
    } else if (li->quantize) {
        struct ig_int_desc d = {.width = (uint8_t)ig_quantize_width(li->quantize)};
        if (!d.width) return ig_err(err, -EIO, "unknown quantisation %u", li->quantize);
        rc = ig_ints_decode(p, len, n, &d, absent, out->lanes, err);
        if (!rc) ig_dequantize_lanes(li->quantize, out->lanes, n, out->lanes);
    } else {
        struct ig_int_desc d = lane_desc(li->type);
        rc = ig_ints_decode(p, len, n, &d, absent, out->lanes, err);
    }
    if (!rc) out->n = n;
    return rc;
}

int ig_page_decode_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                        const struct ig_leaf_info *li, const uint8_t *absent,
                        struct ig_page_scratch *s, struct ig_values *out, struct ig_error *err)
{
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    size_t len = rec->body_size;
    if (!ig_type_info(li->type)) return ig_err(err, -EIO, "unknown type %u", li->type);
    /* quantised floats read back as float32 */
    ig_values_retype(out, li->quantize ? IG_T_FLOAT32 : li->type);
    uint8_t flags = body[0];
    uint8_t blob = li->type == IG_T_BLOB ? IG_BODY_BLOB : 0;
    if (body[1] || body[2] || body[3]) return ig_err(err, -EIO, "unknown page body flags");
    if (!li->levels) {
        size_t n = rec->row_count;
        out->levels = false;
        if (rec->entry_count != n || rec->value_count != n)
            return ig_err(err, -EIO, "nested page layout in a flat column");
        if ((flags & ~(IG_BODY_VALIDITY | blob)) || (flags & IG_BODY_BLOB) != blob)
            return ig_err(err, -EIO, "unknown page body flags 0x%02x", flags);
        size_t pos = IG_BODY_HDR;
        const uint8_t *valid = NULL;
        if (flags & IG_BODY_VALIDITY) {
            size_t vb = (n + 7) / 8;
            if (vb > len - pos) return ig_err(err, -EIO, "validity bitmap past the page end");
            valid = body + pos;
            pos += vb;
        }
        rc = decode_values(li, body + pos, len - pos, n, absent, out, err);
        if (rc) return rc;
        return ig_values_set_validity(out, valid, n) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    if (flags == IG_BODY_SLIDE && li->slide_ok) {
        out->levels = true;
        out->per_value = 1;
        ig_values_reset(out);
        rc = ig_slide_decode(body + IG_BODY_HDR, len - IG_BODY_HDR, rec->row_count, li, out, err);
        if (!rc && (out->nent != rec->entry_count || out->n != rec->value_count))
            rc = ig_err(err, -EIO, "sliding-window page holds %zu entries, its record says %u",
                        out->nent, rec->entry_count);
        return rc;
    }
    uint8_t want = (uint8_t)((li->max_rep ? IG_BODY_REP : 0) | (li->max_def ? IG_BODY_DEF : 0) | blob);
    if (flags != want) return ig_err(err, -EIO, "page body flags 0x%02x do not fit the column", flags);
    size_t ne = rec->entry_count, pos = IG_BODY_HDR;
    out->levels = true;
    out->per_value = li->per_value ? li->per_value : 1;
    out->nent = 0;
    while (out->ent_cap < ne) { /* grow the level arrays */
        size_t cap = out->ent_cap ? out->ent_cap * 2 : 256;
        while (cap < ne) cap *= 2;
        uint8_t *r = realloc(out->reps, cap), *d = realloc(out->defs, cap);
        if (r) out->reps = r;
        if (d) out->defs = d;
        if (!r || !d) return ig_err(err, -ENOMEM, "out of memory");
        out->ent_cap = cap;
    }
    if (li->max_rep) rc = get_levels(body, len, &pos, ne, li->max_rep, out->reps, err);
    else if (ne) memset(out->reps, 0, ne);
    if (!rc && li->max_def) rc = get_levels(body, len, &pos, ne, li->max_def, out->defs, err);
    else if (!rc && ne) memset(out->defs, 0, ne);
    if (rc) return rc;
    out->nent = ne;
    rc = decode_values(li, body + pos, len - pos, rec->value_count, NULL, out, err);
    if (!rc) rc = ig_levels_index(out, li->max_def, err);
    if (!rc && out->rows != rec->row_count)
        rc = ig_err(err, -EIO, "page holds %zu rows, its record says %u", out->rows, rec->row_count);
    return rc;
}

int ig_page_decode(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type,
                   const uint8_t *absent, struct ig_page_scratch *s, struct ig_values *out,
                   struct ig_error *err)
{
    struct ig_leaf_info li = {.type = type, .per_value = 1};
    return ig_page_decode_leaf(stored, rec, &li, absent, s, out, err);
}

/* Where the values stream starts in a flat page body. */
static int values_offset(const uint8_t *body, size_t len, size_t n, size_t *voff,
                         struct ig_error *err)
{
    if (len < IG_BODY_HDR || body[0] & ~(IG_BODY_VALIDITY | IG_BODY_BLOB) || body[1] || body[2] ||
        body[3])
        return ig_err(err, -EIO, "unknown page body flags");
    *voff = IG_BODY_HDR + (body[0] & IG_BODY_VALIDITY ? (n + 7) / 8 : 0);
    return *voff <= len ? 0 : ig_err(err, -EIO, "validity bitmap past the page end");
}

/* Re-encode the values with every erased slot zeroed, using no scheme that drops
 * elements (so the page no longer depends on which rows were dropped). */
static int reencode_values(const uint8_t *vals, size_t vlen, size_t n, uint8_t type,
                           const uint8_t *absent, const uint8_t *gone, struct ig_page_scratch *s,
                           struct ig_buf *out, struct ig_error *err)
{
    struct ig_values v;
    ig_values_init(&v, type);
    int rc = ig_values_reserve(&v, n);
    if (rc) return ig_err(err, rc, "out of memory");
    if (v.is_bytes) {
        rc = ig_bytes_decode(vals, vlen, n, absent, v.offs, &v.data, err);
        if (!rc) {
            /* rebuild without the erased items' bytes */
            rc = scratch_offs(s, n);
            struct ig_buf data = IG_BUF_INIT;
            s->offs[0] = 0;
            for (size_t i = 0; i < n && !rc; i++) {
                bool g = (gone[i / 8] >> (i % 8)) & 1;
                if (!g) rc = ig_buf_append(&data, v.data.data + v.offs[i], v.offs[i + 1] - v.offs[i]);
                s->offs[i + 1] = data.len;
            }
            if (!rc) rc = ig_bytes_encode_erased(s->offs, data.data ? data.data : (const uint8_t *)"", n,
                                                 gone, out, err);
            ig_buf_free(&data);
        }
    } else {
        struct ig_int_desc d = lane_desc(type);
        rc = ig_ints_decode(vals, vlen, n, &d, absent, v.lanes, err);
        for (size_t i = 0; i < n && !rc; i++)
            if ((gone[i / 8] >> (i % 8)) & 1) v.lanes[i] = 0;
        if (!rc) rc = ig_ints_encode_erased(v.lanes, n, &d, gone, out, err);
    }
    ig_values_free(&v);
    return rc;
}

int ig_page_erase(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type,
                  const uint8_t *absent, const uint8_t *kill, int zstd_level,
                  struct ig_page_scratch *s, struct ig_page_built *out, struct ig_error *err)
{
    const uint8_t *src;
    int rc = ig_page_body(stored, rec, s, &src, err);
    if (rc) return rc;
    size_t n = rec->row_count, len = rec->body_size;
    /* a private, writable copy of the body */
    struct ig_buf *body = &s->tmp;
    ig_buf_reset(body);
    if (ig_buf_append(body, src, len)) return ig_err(err, -ENOMEM, "out of memory");
    size_t voff = 0;
    rc = values_offset(body->data, len, n, &voff, err);
    if (rc) return rc;
    if (body->data[0] & IG_BODY_VALIDITY)
        for (size_t i = 0; i < n; i++)
            if ((kill[i / 8] >> (i % 8)) & 1) body->data[IG_BODY_HDR + i / 8] &= (uint8_t)~(1u << (i % 8));
    const struct ig_type_info *ti = ig_type_info(type);
    if (!ti) return ig_err(err, -EIO, "unknown type %u", type);
    size_t new_len = 0;
    struct ig_error sub = {0};
    if (type == IG_T_BLOB) {
        /* rebuild the references without the erased rows' objects */
        struct ig_values v;
        ig_values_init(&v, type);
        rc = ig_values_reserve(&v, n) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc) rc = ig_blob_page_decode(src + voff, len - voff, n, &v, err);
        if (!rc) {
            v.n = n;
            body->len = voff;
            rc = ig_blob_page_encode(&v, 0, n, kill, body, err);
        }
        ig_values_free(&v);
        if (rc) return rc;
    } else if (ti->phys == IG_PHYS_BYTES) {
        rc = ig_bytes_erase(body->data + voff, len - voff, n, absent, kill, &new_len, &sub);
    } else {
        struct ig_int_desc d = lane_desc(type);
        rc = ig_ints_erase(body->data + voff, len - voff, n, &d, absent, kill, &new_len, &sub);
    }
    if (rc == -ENOSPC) {
        /* cannot erase in place: re-encode the values with every erased slot zero */
        uint8_t *gone = malloc((n + 7) / 8);
        if (!gone) return ig_err(err, -ENOMEM, "out of memory");
        for (size_t i = 0; i < (n + 7) / 8; i++)
            gone[i] = (uint8_t)((absent ? absent[i] : 0) | kill[i]);
        struct ig_buf vals = IG_BUF_INIT;
        rc = reencode_values(src + voff, len - voff, n, type, absent, gone, s, &vals, err);
        free(gone);
        if (!rc) {
            body->len = voff;
            rc = ig_buf_append(body, vals.data, vals.len) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        }
        ig_buf_free(&vals);
        if (rc) return rc;
    } else if (rc) {
        return ig_err(err, rc, "%s", sub.msg);
    } else if (type != IG_T_BLOB) {
        body->len = voff + new_len;
    }
    out->body_size = (uint32_t)body->len;
    out->entry_count = out->value_count = rec->row_count;
    out->encoding = type == IG_T_BLOB ? 0 : body->data[voff];
    out->flags = rec->flags;
    out->compression = rec->compression;
    ig_buf_reset(&out->stored);
    if (rec->compression == IG_PC_ZSTD) {
        size_t bound = ZSTD_compressBound(body->len);
        if (ig_buf_reserve(&out->stored, bound)) return ig_err(err, -ENOMEM, "out of memory");
        size_t z = compress_block(out->stored.data, bound, body->data, body->len,
                                 zstd_level ? zstd_level : 3);
        if (ZSTD_isError(z)) return ig_err(err, -EIO, "zstd: %s", ZSTD_getErrorName(z));
        out->stored.len = z;
    } else if (ig_buf_append(&out->stored, body->data, body->len)) {
        return ig_err(err, -ENOMEM, "out of memory");
    }
    out->checksum = ig_hash(out->stored.data, out->stored.len);
    return rec->compression == IG_PC_ZSTD ? recompress_to_fit(body, rec->capacity, out, err) : 0;
}

int ig_page_check_erased(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type,
                         const uint8_t *erased, struct ig_page_scratch *s, struct ig_error *err)
{
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    size_t n = rec->row_count, voff = 0;
    rc = values_offset(body, rec->body_size, n, &voff, err);
    if (rc) return rc;
    if (body[0] & IG_BODY_VALIDITY)
        for (size_t i = 0; i < n; i++)
            if (((erased[i / 8] >> (i % 8)) & 1) && ((body[IG_BODY_HDR + i / 8] >> (i % 8)) & 1))
                return ig_err(err, -EIO, "erased row %zu of the page is still marked present", i);
    const struct ig_type_info *ti = ig_type_info(type);
    if (!ti) return ig_err(err, -EIO, "unknown type %u", type);
    if (type == IG_T_BLOB) {
        struct ig_values v;
        ig_values_init(&v, type);
        rc = ig_values_reserve(&v, n) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc) rc = ig_blob_page_decode(body + voff, rec->body_size - voff, n, &v, err);
        for (size_t i = 0; !rc && i < n; i++)
            if (((erased[i / 8] >> (i % 8)) & 1) && v.offs[i + 1] != v.offs[i])
                rc = ig_err(err, -EIO, "erased row %zu of the page still references objects", i);
        ig_values_free(&v);
        return rc;
    }
    if (ti->phys == IG_PHYS_BYTES)
        return ig_bytes_check_erased(body + voff, rec->body_size - voff, n, erased, erased, err);
    struct ig_int_desc d = lane_desc(type);
    return ig_ints_check_erased(body + voff, rec->body_size - voff, n, &d, erased, erased, err);
}

/* Copy entries/values of row r of v into w, or (killed) the erased form. */
static int copy_row(const struct ig_values *v, size_t r, bool killed, uint8_t max_def,
                    struct ig_values *w)
{
    size_t e0 = v->row_ent[r], e1 = v->row_ent[r + 1];
    size_t v0 = v->row_val[r];
    uint32_t per = v->per_value ? v->per_value : 1;
    if (killed && max_def > 0) return ig_values_push_entry(w, 0, 0) ? -ENOMEM : ig_values_end_row(w);
    size_t k = v0;
    for (size_t e = e0; e < e1; e++) {
        if (ig_values_push_entry(w, v->reps[e], v->defs[e])) return -ENOMEM;
        if (v->defs[e] != max_def) continue;
        for (uint32_t j = 0; j < per; j++, k++) {
            int rc;
            if (v->is_bytes) {
                size_t len;
                const uint8_t *p = ig_values_bytes(v, k, &len);
                rc = killed ? ig_values_push_bytes(w, "", 0) : ig_values_push_bytes(w, p, len);
            } else {
                rc = ig_values_push_lane(w, killed ? 0 : v->lanes[k]);
            }
            if (rc) return rc;
        }
    }
    return ig_values_end_row(w);
}

/* A sliding-window page erases by its own rule (page_slide.h): rows keep their
 * place in the chain of windows, their values go. */
static int erase_slide(const uint8_t *stored, const struct ig_pagerec *rec, const uint8_t *kill,
                       const uint8_t *deleted, int zstd_level, struct ig_page_scratch *s,
                       struct ig_page_built *out, struct ig_error *err)
{
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    size_t n = rec->row_count, nb = (n + 7) / 8;
    uint8_t *all = malloc(nb + 1);
    if (!all) return ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < nb; i++) all[i] = (uint8_t)(kill[i] | (deleted ? deleted[i] : 0));
    struct ig_buf nbody = IG_BUF_INIT;
    rc = ig_buf_append(&nbody, body, IG_BODY_HDR) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = ig_slide_erase(body + IG_BODY_HDR, rec->body_size - IG_BODY_HDR, n, all, &nbody, err);
    free(all);
    if (!rc) {
        struct ig_page_policy pol = {.compression = rec->compression ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .zstd_level = zstd_level};
        out->encoding = IG_PAGE_ENC_SLIDE;
        out->flags = rec->flags;
        out->entry_count = rec->entry_count;
        out->value_count = rec->value_count;
        out->text_len = 0;
        rc = seal(&pol, &nbody, out, err);
        if (!rc && out->compression == IG_PC_ZSTD) rc = recompress_to_fit(&nbody, rec->capacity, out, err);
    }
    ig_buf_free(&nbody);
    return rc;
}

/* The fallback when a rebuilt nested page would not fit its extent (re-chosen
 * level encodings can come out longer, rarely): keep the level streams byte for
 * byte and erase the erased rows' value slots in place by the values stream's own
 * rule, which never grows. v is the decoded page (for the rows' value slots).
 * Replaces *out only when that fits better. */
static int erase_in_shape(const uint8_t *stored, const struct ig_pagerec *rec,
                          const struct ig_leaf_info *li, const uint8_t *kill, const struct ig_values *v,
                          int zstd_level, struct ig_page_scratch *s, struct ig_page_built *out,
                          struct ig_error *err)
{
    if (li->type == IG_T_BLOB) return 0;
    const uint8_t *src;
    int rc = ig_page_body(stored, rec, s, &src, err);
    if (rc) return rc;
    size_t len = rec->body_size, pos = IG_BODY_HDR, n = rec->value_count;
    for (uint8_t f = IG_BODY_REP; f <= IG_BODY_DEF; f <<= 1) /* skip the level streams */
        if (src[0] & f) {
            if (len - pos < 4 || ig_ld32(src + pos) > len - pos - 4) return 0;
            pos += 4 + ig_ld32(src + pos);
        }
    if (v->n != n || ig_ints_erase_drops(src + pos, len - pos)) return 0;
    uint8_t *slots = calloc(n / 8 + 1, 1);
    struct ig_buf body = IG_BUF_INIT;
    if (!slots || ig_buf_append(&body, src, len)) {
        free(slots);
        ig_buf_free(&body);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < v->rows; r++)
        if ((kill[r / 8] >> (r % 8)) & 1)
            for (size_t k = v->row_val[r]; k < v->row_val[r + 1] && k < n; k++)
                slots[k / 8] |= (uint8_t)(1u << (k % 8));
    size_t new_len = 0;
    struct ig_error sub = {0};
    if (v->is_bytes) {
        rc = ig_bytes_erase(body.data + pos, len - pos, n, NULL, slots, &new_len, &sub);
    } else {
        struct ig_int_desc d = li->quantize ? (struct ig_int_desc){.width = (uint8_t)ig_quantize_width(li->quantize)}
                                            : lane_desc(li->type);
        rc = ig_ints_erase(body.data + pos, len - pos, n, &d, NULL, slots, &new_len, &sub);
    }
    struct ig_page_built alt = {0};
    if (!rc) {
        body.len = pos + new_len;
        struct ig_page_policy pol = {.compression = rec->compression ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .zstd_level = zstd_level};
        rc = seal(&pol, &body, &alt, err);
        if (!rc && alt.compression == IG_PC_ZSTD) rc = recompress_to_fit(&body, rec->capacity, &alt, err);
        if (!rc && alt.stored.len < out->stored.len) {
            alt.encoding = out->encoding;
            alt.flags = rec->flags;
            alt.entry_count = rec->entry_count;
            alt.value_count = rec->value_count;
            alt.text_len = out->text_len;
            ig_page_built_free(out);
            *out = alt;
            alt = (struct ig_page_built){0};
        }
    }
    ig_page_built_free(&alt);
    ig_buf_free(&body);
    free(slots);
    return rc == -ENOSPC ? 0 : rc; /* no in-place rule: keep the rebuilt page (it moves) */
}

int ig_page_erase_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                       const struct ig_leaf_info *li, const uint8_t *kill, const uint8_t *deleted,
                       int zstd_level, struct ig_page_scratch *s, struct ig_page_built *out,
                       struct ig_error *err)
{
    if (li->slide_ok && rec->encoding == IG_PAGE_ENC_SLIDE)
        return erase_slide(stored, rec, kill, deleted, zstd_level, s, out, err);
    struct ig_values v, w;
    ig_values_init(&v, li->type);
    ig_values_init(&w, li->quantize ? IG_T_FLOAT32 : li->type);
    ig_values_set_levels(&w, li->per_value);
    int rc = ig_page_decode_leaf(stored, rec, li, NULL, s, &v, err);
    for (size_t r = 0; !rc && r < v.rows; r++)
        if (copy_row(&v, r, (kill[r / 8] >> (r % 8)) & 1, li->max_def, &w))
            rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        /* blob references of erased rows are dropped (copy_row pushed empty bytes) */
        struct ig_page_policy pol = {.type = li->type,
                                     .compression = rec->compression ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .zstd_level = zstd_level,
                                     .leaf = *li};
        w.type = li->quantize ? IG_T_FLOAT32 : li->type;
        rc = ig_page_encode(&pol, &w, 0, w.rows, s, out, err);
        out->flags = rec->flags;
        if (!rc && out->compression == IG_PC_ZSTD) rc = recompress_to_fit(&s->body, rec->capacity, out, err);
    }
    if (!rc && out->stored.len > rec->capacity) rc = erase_in_shape(stored, rec, li, kill, &v, zstd_level, s, out, err);
    ig_values_free(&v);
    ig_values_free(&w);
    return rc;
}

int ig_page_check_erased_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                              const struct ig_leaf_info *li, const uint8_t *erased,
                              struct ig_page_scratch *s, struct ig_error *err)
{
    if (li->slide_ok && rec->encoding == IG_PAGE_ENC_SLIDE) {
        const uint8_t *body;
        int rc = ig_page_body(stored, rec, s, &body, err);
        if (rc) return rc;
        if (body[0] != IG_BODY_SLIDE) return ig_err(err, -EIO, "slide page without its body flag");
        return ig_slide_check_erased(body + IG_BODY_HDR, rec->body_size - IG_BODY_HDR, rec->row_count,
                                     erased, err);
    }
    struct ig_values v;
    ig_values_init(&v, li->type);
    int rc = ig_page_decode_leaf(stored, rec, li, NULL, s, &v, err);
    for (size_t r = 0; !rc && r < v.rows; r++) {
        if (!((erased[r / 8] >> (r % 8)) & 1)) continue;
        size_t e0 = v.row_ent[r], e1 = v.row_ent[r + 1], v0 = v.row_val[r], v1 = v.row_val[r + 1];
        if (li->max_def > 0 && e1 - e0 == 1 && v.defs[e0] == 0) continue; /* reduced to "undefined" */
        for (size_t k = v0; k < v1 && !rc; k++) {
            size_t len = 0;
            bool zero = v.is_bytes ? (ig_values_bytes(&v, k, &len), len == 0) : v.lanes[k] == 0;
            if (!zero) rc = ig_err(err, -EIO, "erased row %zu of the page still holds data", r);
        }
    }
    ig_values_free(&v);
    return rc;
}
