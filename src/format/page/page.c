#include "format/page/page.h"
#include "page_int.h"
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
#include <math.h>
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
    ig_census_free(&s->census);
    memset(s, 0, sizeof *s);
}

void ig_page_built_free(struct ig_page_built *b)
{
    ig_buf_free(&b->stored);
    free(b->blocks);
    memset(b, 0, sizeof *b);
}

int ig_page_scratch_offs(struct ig_page_scratch *s, size_t n)
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

struct ig_int_desc ig_page_lane_desc(uint8_t type)
{
    const struct ig_type_info *ti = ig_type_info(type);
    return (struct ig_int_desc){.width = ti->width, .is_signed = ti->is_signed};
}

/* The census the encoder took of values [first, first + count) of v (codec.h:
 * where it weighed a dictionary), when it holds every distinct value; else
 * NULL. */
static const struct ig_census *census_of(const struct ig_values *v, size_t first, size_t count,
                                         const struct ig_page_scratch *s)
{
    const struct ig_census *c = &s->census;
    return !v->is_bytes && c->lanes && c->lanes == v->lanes + first && c->n == count && !c->over ? c : NULL;
}

/* The text (or JSON) length of a census's values: each distinct value
 * measured once, counted as often as it appears. */
static uint64_t census_text_len(const struct ig_census *cen, uint8_t type, bool json)
{
    return ig_render_lanes_len_counted(type, cen->vals, cen->counts, cen->k, json);
}

/* Render the page's rows to count their text bytes (all rows live at write
 * time). With a census of its values (and no NULL among them), each distinct
 * value is measured once and counted as often as it appears. */
static int page_text_len(const struct ig_values *v, size_t first, size_t count,
                         const struct ig_census *cen, struct ig_page_scratch *s, uint64_t *len)
{
    if (cen) {
        *len = census_text_len(cen, v->type, false) + count; /* and the newlines */
        return 0;
    }
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
    /* bytes: offsets stay absolute into v->data, so the shifted view reads
     * right; strings are counted (escapes included), not rendered */
    return ig_render_text_len(&view, NULL, &s->text, len);
}

/* Append the values stream for values [first, first + count) of v. */
static int encode_values(const struct ig_page_policy *pol, const struct ig_values *v, size_t first,
                         size_t count, struct ig_page_scratch *s, struct ig_buf *body,
                         struct ig_error *err)
{
    /* the census workspace: the encoder fills it for the values when it
     * weighs a dictionary (their text length is then counted from it) */
    struct ig_enc_opts eo = {.forced = pol->encoding, .allowed = 0, .max_depth = 0,
                             .no_drop = pol->leaf.levels,
                             .census = pol->leaf.quantize ? NULL : &s->census,
                             .decimal = pol->decimal && !pol->leaf.quantize &&
                                        (v->type == IG_T_FLOAT64 || v->type == IG_T_FLOAT32),
                             .item_ids = pol->item_ids && v->is_bytes && !pol->leaf.levels
                                             ? pol->item_ids + first
                                             : NULL};
    s->census.lanes = NULL;
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
        int rc = ig_page_scratch_offs(s, count);
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
                                   : ig_page_lane_desc(v->type);
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
    struct ig_int_desc d = ig_page_lane_desc(v->type);
    return ig_ints_encode(v->lanes + first, count, &d, &eo, body, err);
}

/* u32 length + an int stream of level values. Levels that vary are
 * bit-packed at once: among the schemes that survive an erase (no runs) that
 * is what the choice by statistics came to for them (lists of every length,
 * NULLs here and there), and weighing the others cost a list column's import
 * a sixth. Levels that never vary are left to the choice (a dictionary of one
 * value stores them in a few bytes). */
static int put_levels(const uint8_t *lv, size_t n, struct ig_buf *body, struct ig_error *err)
{
    static const struct ig_int_desc d = {1, false};
    bool varies = false;
    for (size_t i = 1; i < n && !varies; i++)
        varies = lv[i] != lv[0];
    size_t at = body->len;
    if (ig_buf_append_u32(body, 0)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    if (varies) {
        rc = ig_ints_encode_bitpack_u8(lv, n, body, err); /* straight from the bytes */
    } else {
        struct ig_enc_opts eo = {.no_drop = true};
        uint64_t *lanes = malloc((n + 1) * sizeof *lanes);
        if (!lanes) return ig_err(err, -ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            lanes[i] = lv[i];
        rc = ig_ints_encode(lanes, n, &d, &eo, body, err);
        free(lanes);
    }
    if (!rc) ig_st32(body->data + at, (uint32_t)(body->len - at - 4));
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
size_t ig_page_compress(void *dst, size_t cap, const void *src, size_t n, int level)
{
    pthread_once(&cctx_once, cctx_key_make);
    ZSTD_CCtx *c = pthread_getspecific(cctx_key);
    if (!c && (c = ZSTD_createCCtx()) && pthread_setspecific(cctx_key, c)) {
        ZSTD_freeCCtx(c);
        c = NULL;
    }
    return c ? ZSTD_compressCCtx(c, dst, cap, src, n, level) : ZSTD_compress(dst, cap, src, n, level);
}

/* Bodies below this are not worth a zstd frame. */
#define IG_ZSTD_MIN_BODY 256

/* Compress (per policy), checksum. */
int ig_page_seal(const struct ig_page_policy *pol, struct ig_buf *body, struct ig_page_built *out,
                struct ig_error *err)
{
    if (body->len > IG_MAX_PAGE_BODY)
        return ig_err(err, -EFBIG, "page body of %zu bytes exceeds the 1 GiB limit", body->len);
    out->body_size = (uint32_t)body->len;
    /* zstd when forced, or when it saves at least an eighth of the page. */
    bool try_zstd = pol->compression == IG_COMP_ZSTD ||
                    (pol->compression == IG_COMP_AUTO && body->len >= IG_ZSTD_MIN_BODY);
    out->compression = IG_PC_NONE;
    ig_buf_reset(&out->stored);
    if (try_zstd) {
        size_t bound = ZSTD_compressBound(body->len);
        if (ig_buf_reserve(&out->stored, bound)) return ig_err(err, -ENOMEM, "out of memory");
        size_t z = ig_page_compress(out->stored.data, bound, body->data, body->len,
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
int ig_page_recompress_to_fit(const struct ig_buf *body, size_t capacity, struct ig_page_built *out,
                             struct ig_error *err)
{
    static const int levels[] = {9}; /* 19 costs ten times as much for little more */
    for (size_t i = 0; i < sizeof levels / sizeof levels[0] && out->stored.len > capacity; i++) {
        size_t bound = ZSTD_compressBound(body->len);
        struct ig_buf z = IG_BUF_INIT;
        if (ig_buf_reserve(&z, bound)) return ig_err(err, -ENOMEM, "out of memory");
        size_t n = ig_page_compress(z.data, bound, body->data, body->len, levels[i]);
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

/* Strings and binary values compressed by zstd are stored as huffman instead
 * when that costs at most an eighth more: each item then reads and erases on
 * its own (a take decodes one item, an erase removes its bytes in place),
 * where a zstd block is decompressed and recompressed whole. Only when the
 * column leaves both choices to the writer. */
static bool huffman_instead(const struct ig_page_policy *pol, const struct ig_values *v, size_t first,
                            size_t count, size_t values_at, const struct ig_page_built *sealed)
{
    if (pol->encoding != IG_ENC_AUTO || pol->compression != IG_COMP_AUTO || pol->leaf.levels ||
        !v->is_bytes || v->type == IG_T_BLOB || sealed->compression != IG_PC_ZSTD || count == 0 ||
        pol->zstd_settled)
        return false;
    size_t huff = values_at + ig_bytes_huffman_size(v->offs + first, v->data.data, count);
    return huff <= sealed->stored.len + sealed->stored.len / 8;
}

int ig_page_encode(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                   size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                   struct ig_error *err)
{
    struct ig_buf *body = &s->body;
    ig_buf_reset(body);
    int rc;
    out->text_len = 0;
    out->values_json_len = 0;
    out->values_json_known = false;
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
        return ig_page_seal(pol, body, out, err);
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
        const struct ig_census *cen = census_of(v, v0, v1 - v0, s);
        /* values that are never NULL themselves (NULLs are levels here) */
        out->values_json_known = cen && !v->has_nulls;
        out->values_json_len = out->values_json_known ? census_text_len(cen, v->type, true) : 0;
        out->encoding = v->type == IG_T_BLOB ? 0 : body->data[values_at];
        out->flags = 0;
        out->entry_count = (uint32_t)(e1 - e0);
        out->value_count = (uint32_t)(v1 - v0);
        return ig_page_seal(pol, body, out, err);
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
    const struct ig_census *cen = census_of(v, first, count, s);
    out->encoding = v->type == IG_T_BLOB ? 0 : body->data[values_at];
    out->flags = nulls ? IG_PGF_HAS_NULLS : 0;
    out->entry_count = out->value_count = (uint32_t)count;
    struct ig_page_policy sealing = *pol;
    if (pol->encoding == IG_ENC_HUFF && pol->compression == IG_COMP_AUTO)
        sealing.compression = IG_COMP_NONE; /* zstd over it would undo what it is for */
    rc = ig_page_seal(&sealing, body, out, err);
    if (rc) return rc;
    if (huffman_instead(pol, v, first, count, values_at, out)) {
        struct ig_page_policy h = *pol;
        h.encoding = IG_ENC_HUFF;
        h.compression = IG_COMP_NONE;
        body->len = values_at;
        rc = encode_values(&h, v, first, count, s, body, err);
        if (!rc) rc = ig_page_seal(&h, body, out, err);
        if (rc) return rc;
        out->encoding = IG_ENC_HUFF;
    }
    return page_text_len(v, first, count, nulls ? NULL : cen, s, &out->text_len) ? ig_err(err, -ENOMEM, "out of memory")
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

/* Room for block k (grow out->blocks). */
static int room_for_block(struct ig_page_built *out, size_t k, struct ig_error *err)
{
    if (k < out->blocks_cap) return 0;
    size_t cap = out->blocks_cap ? (size_t)out->blocks_cap * 2 : 16;
    struct ig_block_built *b = realloc(out->blocks, cap * sizeof *b);
    if (!b) return ig_err(err, -ENOMEM, "out of memory");
    out->blocks = b;
    out->blocks_cap = (uint32_t)cap;
    return 0;
}

/* Append the block just encoded (unit, rows [a, b) of the page) with its slack. */
static int add_block(struct ig_page_built *out, const struct ig_page_built *unit, size_t a,
                     size_t b, struct ig_error *err)
{
    size_t slack = block_slack(unit), at = out->stored.len, k = out->nblocks;
    if (out->stored.len + unit->stored.len + slack > IG_MAX_PAGE_BODY)
        return ig_err(err, -EFBIG, "page of %zu bytes exceeds the 1 GiB limit", out->stored.len);
    int rc = room_for_block(out, k, err);
    if (rc) return rc;
    if (ig_buf_append(&out->stored, unit->stored.data, unit->stored.len) ||
        ig_buf_append_zeros(&out->stored, slack))
        return ig_err(err, -ENOMEM, "out of memory");
    out->blocks[k] = (struct ig_block_built){.offset = (uint32_t)at,
                                             .stored = (uint32_t)unit->stored.len,
                                             .capacity = (uint32_t)(unit->stored.len + slack),
                                             .body_size = unit->body_size,
                                             .first_row = (uint32_t)a,
                                             .row_count = (uint32_t)(b - a),
                                             .entry_count = unit->entry_count,
                                             .value_count = unit->value_count,
                                             .encoding = unit->encoding,
                                             .compression = unit->compression,
                                             .flags = unit->flags,
                                             .checksum = unit->checksum};
    if (k == 0) out->encoding = unit->encoding;
    out->nblocks = (uint32_t)k + 1;
    out->body_size += unit->body_size;
    out->entry_count += unit->entry_count;
    out->value_count += unit->value_count;
    out->text_len += unit->text_len;
    out->values_json_len += unit->values_json_len;
    out->values_json_known = (k == 0 || out->values_json_known) && unit->values_json_known;
    out->flags |= unit->flags;
    if (unit->compression == IG_PC_ZSTD) out->compression = IG_PC_ZSTD;
    return 0;
}

/* Zeros up to the next grain boundary, as room of the last block (its capacity
 * runs to the next block; readers and erasure see zeroed slack). */
static int pad_to_grain(struct ig_page_built *out, const struct ig_block_fit *fit,
                        struct ig_error *err)
{
    size_t pos = (size_t)((fit->at + out->stored.len) % fit->grain);
    if (pos && ig_buf_append_zeros(&out->stored, fit->grain - pos))
        return ig_err(err, -ENOMEM, "out of memory");
    return 0;
}

/* What a block's stored size is guessed from: its values' plain bytes (a
 * length word each) for bytes leaves, whose rows vary in size, else its rows. */
static double fit_weight(const struct ig_values *v, size_t a, size_t rows)
{
    if (!v->is_bytes || v->levels) return (double)rows;
    return (double)(v->offs[a + rows] - v->offs[a]) + 4.0 * (double)rows;
}

/* The most rows from a (at least 1, at most max) whose weight is within w. */
static size_t fit_rows(const struct ig_values *v, size_t a, size_t max, double w)
{
    size_t lo = 1, hi = max;
    if (fit_weight(v, a, hi) <= w) return hi;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (fit_weight(v, a, mid) <= w)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* What the blocks of a page have shown so far, so that a trial that keeps
 * losing is not made again for every block (a page holds one kind of data):
 * numbers zstd did not shrink by an eighth in two blocks running (random
 * floats, hashes) are not offered to it in the rest of the page; strings that
 * went to huffman instead of zstd in two blocks running go straight to
 * huffman while a quick look for repeats (zstd's fastest level, no entropy
 * stage) finds none worth an eighth of the block: the full trial cost a third
 * of an import of captions, for the same bytes, and the look sends a block
 * whose values start repeating back to it. The other way round, strings that
 * zstd kept from huffman in two blocks running (captions sharing words) are
 * not sized for huffman again but in every eighth block, which keeps
 * watching for the values to change (the sizing was a seventh of such an
 * import). For fitted blocks the string counters are carried from page to
 * page of the column (struct ig_block_fit): a page holds only a few of them,
 * and the sizing was still a sixteenth of an import of unique captions. */
struct block_trials {
    const struct ig_page_policy *pol;
    unsigned zstd_misses; /* numbers: blocks running that zstd did not shrink */
    unsigned huff_wins;   /* strings: blocks running that huffman took from zstd */
    unsigned zstd_wins;   /* strings: blocks running that zstd kept from huffman */
    unsigned blocks;      /* blocks encoded so far */
    bool no_zstd;         /* numbers: zstd no longer tried */
    struct ig_buf look;   /* the quick look's output */
};

/* Every this many blocks, strings zstd has settled are sized for huffman again. */
#define TRIAL_RECHECK 8

/* zstd's fastest level: matches found at a stride, literals left raw */
#define TRIAL_LOOK_LEVEL (-10)

static bool trial_strings(const struct ig_page_policy *pol, const struct ig_values *v)
{
    return pol->encoding == IG_ENC_AUTO && pol->compression == IG_COMP_AUTO && !pol->leaf.levels &&
           v->is_bytes && v->type != IG_T_BLOB;
}

/* Whether the values of rows [first, first + count) repeat enough for zstd's
 * matches to shrink them by an eighth (or the look could not be made). */
static bool trial_repeats(struct block_trials *t, const struct ig_values *v, size_t first, size_t count)
{
    size_t n = (size_t)(v->offs[first + count] - v->offs[first]);
    if (n < IG_ZSTD_MIN_BODY) return true;
    size_t bound = ZSTD_compressBound(n);
    if (ig_buf_reserve(&t->look, bound)) return true;
    size_t z = ig_page_compress(t->look.data, bound, v->data.data + v->offs[first], n, TRIAL_LOOK_LEVEL);
    return ZSTD_isError(z) || z <= n - n / 8;
}

/* The policy for the block of rows [first, first + count). */
static struct ig_page_policy trial_policy(struct block_trials *t, const struct ig_values *v,
                                          size_t first, size_t count)
{
    struct ig_page_policy p = *t->pol;
    if (t->no_zstd) p.compression = IG_COMP_NONE;
    if (trial_strings(t->pol, v) && t->huff_wins >= 2 && !trial_repeats(t, v, first, count))
        p.encoding = IG_ENC_HUFF;
    if (trial_strings(t->pol, v) && t->zstd_wins >= 2 && t->blocks % TRIAL_RECHECK != 0)
        p.zstd_settled = true;
    return p;
}

/* What the block encoded under `used` came out as. */
static void trial_seen(struct block_trials *t, const struct ig_values *v,
                       const struct ig_page_policy *used, const struct ig_page_built *unit)
{
    if (t->pol->compression == IG_COMP_AUTO && !v->is_bytes && v->type != IG_T_BLOB &&
        unit->body_size >= IG_ZSTD_MIN_BODY) {
        t->zstd_misses = unit->compression == IG_PC_NONE ? t->zstd_misses + 1 : 0;
        if (t->zstd_misses == 2) t->no_zstd = true;
    }
    if (trial_strings(t->pol, v) && used->encoding == IG_ENC_AUTO) { /* a trial was made */
        t->huff_wins = unit->encoding == IG_ENC_HUFF ? t->huff_wins + 1 : 0;
        bool kept = unit->compression == IG_PC_ZSTD;
        if (!used->zstd_settled || !kept) t->zstd_wins = kept ? t->zstd_wins + 1 : 0;
    }
    t->blocks++;
}

/* A dictionary of strings is chosen by the bytes it saves before
 * compression, but zstd finds the same repeats in the strings themselves and
 * compresses the dictionary's codes badly: captions sharing words came out
 * 8 % smaller plain in 98 % of the blocks where the dictionary was chosen,
 * while strings of a few hundred values or fewer keep their dictionary. So a
 * fitted block whose dictionary zstd compressed is encoded plain as well, and
 * the smaller kept, until one layout has won twice running; from then on it is
 * weighed again every TRIAL_RECHECK blocks only, and in between a column
 * whose plain bytes keep winning is encoded plain at once (no dictionary
 * statistics). */
static bool weigh_due(const struct ig_block_fit *fit)
{
    return (fit->plain_wins < 2 && fit->dict_wins < 2) || fit->blocks % TRIAL_RECHECK == 0;
}

static int weigh_layouts(const struct ig_page_policy *tried, struct ig_values *v, size_t first,
                         size_t count, struct ig_block_fit *fit, struct ig_page_scratch *s,
                         struct ig_page_built *unit, struct ig_page_built *alt, struct ig_error *err)
{
    if (unit->encoding != IG_ENC_DICT || unit->compression != IG_PC_ZSTD || !weigh_due(fit)) return 0;
    struct ig_page_policy plain = *tried;
    plain.encoding = IG_ENC_PLAIN;
    plain.zstd_settled = true;
    int rc = ig_page_encode(&plain, v, first, count, s, alt, err);
    if (rc) return rc;
    if (alt->stored.len + block_slack(alt) < unit->stored.len + block_slack(unit)) {
        struct ig_page_built t = *unit;
        *unit = *alt;
        *alt = t;
        fit->plain_wins++;
        fit->dict_wins = 0;
    } else {
        fit->dict_wins++;
        fit->plain_wins = 0;
    }
    return 0;
}

/* The guess of a block's stored size (struct ig_block_fit): a block given
 * less than this much of a grain teaches the overhead, a larger one the ratio.
 * A page's first block gets what the page before left of its last grain (a
 * quarter to three quarters of it, commonly): guessed by the ratio of the full
 * blocks alone, 48 % of them missed their room and were encoded again, and
 * the ratio they taught then made the next block too small (captions: a
 * sixth of all blocks encoded twice). */
#define FIT_SMALL_ROOM(grain) ((grain) * 3 / 4)

/* The plain bytes a block of stored size `target` holds, by the guess with
 * this ratio (0 when the overhead alone fills it: one row is still taken). */
static double fit_budget(const struct ig_block_fit *fit, double ratio, double target)
{
    double w = (target - fit->overhead) / ratio;
    return w > 0 ? w : 0;
}

/* The ratio that a block of plain bytes w stored in `size` shows under the
 * current overhead; the plain ratio when the overhead would take most of it
 * (a block of a few large values). */
static double block_ratio(const struct ig_block_fit *fit, double size, double w)
{
    return size - fit->overhead > size / 2 ? (size - fit->overhead) / w : size / w;
}

/* Learn from a block (not the page's last: see encode_fitted) given `room`. */
static void fit_learn(struct ig_block_fit *fit, size_t room, double size, double w)
{
    if (fit->ratio > 0 && room < FIT_SMALL_ROOM(fit->grain)) {
        double o = size - fit->ratio * w;
        fit->overhead = o < 0 ? 0 : o > (double)room / 2 ? (double)room / 2 : o;
        return;
    }
    fit->ratio = block_ratio(fit, size, w);
}

/* Rows [0, count) as blocks that each fit inside one grain (struct
 * ig_block_fit in page.h). A block's rows are guessed from the blocks before
 * (fit->ratio and fit->overhead, carried from page to page), the block is
 * encoded, and cut down (or, once, grown) and encoded again when it missed its
 * room; the fourth try stands. */
static int encode_fitted(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                         size_t count, size_t guess_rows, struct ig_block_fit *fit,
                         struct ig_page_scratch *s, struct ig_page_built *out,
                         struct ig_page_built *unit, struct ig_page_built *alt,
                         struct block_trials *trials, struct ig_error *err)
{
    const size_t grain = fit->grain;
    for (size_t a = 0; a < count;) {
        size_t room = grain - (size_t)((fit->at + out->stored.len) % grain), left = count - a;
        /* the share of the room aimed at: what the size varies by around the
         * guess, 1.2 % of a grain's block (captions), more in a smaller room
         * (as one over its square root: a fourth of a grain missed by 2.5 %) */
        double aim = 1.0 - 0.015 * sqrt((double)grain / (double)room);
        size_t rows = guess_rows && guess_rows < left ? guess_rows : left;
        if (fit->ratio > 0) rows = fit_rows(v, first + a, left, fit_budget(fit, fit->ratio, (double)room * aim));
        size_t size = 0;
        bool grown = false;
        struct ig_page_policy first_try = trial_policy(trials, v, first + a, rows);
        if (trial_strings(pol, v) && first_try.encoding == IG_ENC_AUTO && fit->plain_wins >= 2 &&
            !weigh_due(fit))
            first_try.encoding = IG_ENC_PLAIN; /* plain keeps winning under zstd */
        struct ig_page_policy again = first_try;
        for (int tries = 0;; tries++) {
            int rc = ig_page_encode(tries ? &again : &first_try, v, first + a, rows, s, unit, err);
            if (rc) return rc;
            fit->encodes++;
            if (!tries) trial_seen(trials, v, &first_try, unit);
            if (!tries && trial_strings(pol, v) && first_try.encoding == IG_ENC_AUTO) {
                rc = weigh_layouts(&first_try, v, first + a, rows, fit, s, unit, alt, err);
                if (rc) return rc;
            }
            /* a retry keeps the first try's choices: huffman or zstd (no trial
             * of the other again), and a string block's plain or dictionary
             * layout (no statistics again; 0.98x the time of a caption import,
             * tables 0.3 % smaller) */
            if (!tries && unit->encoding == IG_ENC_HUFF && unit->compression == IG_PC_NONE &&
                pol->compression == IG_COMP_AUTO)
                again.encoding = IG_ENC_HUFF;
            if (!tries && unit->compression == IG_PC_ZSTD) again.zstd_settled = true;
            if (!tries && pol->encoding == IG_ENC_AUTO && v->is_bytes &&
                (unit->encoding == IG_ENC_PLAIN || unit->encoding == IG_ENC_DICT))
                again.encoding = unit->encoding;
            size = unit->stored.len + block_slack(unit);
            double w = fit_weight(v, first + a, rows);
            /* the page's last block, of the rows left over, compresses worse
             * than a full one: guessing the next page's first block from it
             * made that block too small, and a second try grew a quarter of
             * all blocks (captions); so it does not teach the guess */
            if (rows < left || fit->ratio <= 0) fit_learn(fit, room, (double)size, w);
            if (tries == 3) break;
            /* this block's own values, under the overhead learned */
            double own = block_ratio(fit, (double)size, w);
            size_t best = fit_rows(v, first + a, left, fit_budget(fit, own, (double)room * aim));
            if (size > room && rows > 1) { /* cut down to what the room holds */
                rows = best < rows ? best : rows - 1;
                continue;
            }
            if (size < room * 15 / 16 && !grown && best > rows) { /* the guess was short */
                rows = best;
                grown = true;
                continue;
            }
            break;
        }
        /* too big for what is left of this grain but not for a whole one: start
         * it on the next boundary (the zeros join the previous block's room) */
        if (size > room && size <= grain && out->nblocks > 0) {
            int rc = pad_to_grain(out, fit, err);
            if (rc) return rc;
        }
        int rc = add_block(out, unit, a, a + rows, err);
        if (rc) return rc;
        a += rows;
        fit->blocks++;
        /* too little left of the grain for a useful block: skip to the next */
        size_t rest = grain - (size_t)((fit->at + out->stored.len) % grain);
        if (rest < grain / 4 && rest != grain) {
            rc = pad_to_grain(out, fit, err);
            if (rc) return rc;
        }
    }
    return 0;
}

int ig_page_encode_blocks(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                          size_t count, const size_t *cuts, size_t ncuts,
                          struct ig_block_fit *fit, struct ig_page_scratch *s,
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
    out->values_json_len = 0;
    out->values_json_known = false;
    out->compression = IG_PC_NONE;
    out->flags = 0;
    struct ig_page_built unit = {0}, alt = {0};
    struct block_trials trials = {.pol = pol};
    int rc = 0;
    if (fit && fit->grain) {
        trials.zstd_wins = fit->zstd_wins;
        trials.huff_wins = fit->huff_wins;
        trials.blocks = fit->trial_blocks;
        rc = encode_fitted(pol, v, first, count, cuts[1] - cuts[0], fit, s, out, &unit, &alt, &trials, err);
        fit->zstd_wins = trials.zstd_wins;
        fit->huff_wins = trials.huff_wins;
        fit->trial_blocks = trials.blocks;
        ncuts = 0; /* done */
    }
    for (size_t k = 0; k < ncuts && !rc; k++) {
        size_t a = cuts[k], b = cuts[k + 1];
        if (b <= a || b > count) {
            rc = ig_err(err, -EINVAL, "bad block cuts");
            break;
        }
        struct ig_page_policy cur = trial_policy(&trials, v, first + a, b - a);
        rc = ig_page_encode(&cur, v, first + a, b - a, s, &unit, err);
        if (!rc) rc = add_block(out, &unit, a, b, err);
        trial_seen(&trials, v, &cur, &unit);
    }
    ig_page_built_free(&unit);
    ig_page_built_free(&alt);
    ig_buf_free(&trials.look);
    return rc;
}

bool ig_page_plain_values(const uint8_t *stored, const struct ig_pagerec *rec, unsigned width,
                          unsigned per_row, size_t *offset)
{
    size_t n = (size_t)rec->row_count * per_row * width;
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

/* A sliding-window page's body after its header (decompressed when zstd), checked. */
static int slide_body(const uint8_t *stored, const struct ig_pagerec *rec, struct ig_page_scratch *s,
                      const uint8_t **p, size_t *len, struct ig_error *err)
{
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    if (rec->body_size < IG_BODY_HDR || body[0] != IG_BODY_SLIDE || body[1] || body[2] || body[3])
        return ig_err(err, -EIO, "page body flags 0x%02x do not fit a sliding-window page", body[0]);
    *p = body + IG_BODY_HDR;
    *len = rec->body_size - IG_BODY_HDR;
    return 0;
}

/* ig_page_decode_picked of a sliding-window page: the picked rows in one walk
 * from base to base (ig_slide_picked), not the page from its start. */
static int decode_picked_slide(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                               const uint8_t *pick, struct ig_page_scratch *s, struct ig_values *out,
                               struct ig_error *err)
{
    const uint8_t *p = NULL;
    size_t len = 0;
    int rc = slide_body(stored, rec, s, &p, &len, err);
    if (rc) return rc;
    ig_values_retype(out, li->type);
    out->levels = true;
    out->per_value = 1;
    ig_values_reset(out);
    return ig_slide_picked(p, len, rec->row_count, pick, li, out, err);
}

int ig_page_row_lengths(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                        struct ig_page_scratch *s, uint64_t *lens, struct ig_error *err)
{
    if (!li->levels || !li->slide_ok || rec->encoding != IG_PAGE_ENC_SLIDE) return -ENOTSUP;
    const uint8_t *p = NULL;
    size_t len = 0;
    int rc = slide_body(stored, rec, s, &p, &len, err);
    return rc ? rc : ig_slide_lengths(p, len, rec->row_count, lens, err);
}

int ig_page_decode_picked(const uint8_t *stored, const struct ig_pagerec *rec,
                          const struct ig_leaf_info *li, const uint8_t *absent, const uint8_t *pick,
                          struct ig_page_scratch *s, struct ig_values *out, struct ig_error *err)
{
    if (li->levels && li->slide_ok && rec->encoding == IG_PAGE_ENC_SLIDE)
        return decode_picked_slide(stored, rec, li, pick, s, out, err);
    const struct ig_type_info *ti = ig_type_info(li->type);
    if (li->levels || li->type == IG_T_BLOB || !ti || ti->phys != IG_PHYS_BYTES) return -ENOTSUP;
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    size_t n = rec->row_count, len = rec->body_size, pos = IG_BODY_HDR;
    if (rec->entry_count != n || rec->value_count != n)
        return ig_err(err, -EIO, "nested page layout in a flat column");
    if ((body[0] & ~IG_BODY_VALIDITY) || body[1] || body[2] || body[3])
        return ig_err(err, -EIO, "unknown page body flags 0x%02x", body[0]);
    const uint8_t *valid = NULL;
    if (body[0] & IG_BODY_VALIDITY) {
        if ((n + 7) / 8 > len - pos) return ig_err(err, -EIO, "validity bitmap past the page end");
        valid = body + pos;
        pos += (n + 7) / 8;
    }
    ig_values_retype(out, li->type);
    ig_values_reset(out);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!((pick[i / 8] >> (i % 8)) & 1)) continue;
        if (valid && !((valid[i / 8] >> (i % 8)) & 1)) {
            rc = ig_values_push_null(out) ? ig_err(err, -ENOMEM, "out of memory") : 0;
            continue;
        }
        const uint8_t *val;
        size_t vl;
        rc = ig_bytes_get(body + pos, len - pos, n, absent, i, &val, &vl, err);
        if (!rc && ig_values_push_bytes(out, val, vl)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    return rc;
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
        struct ig_int_desc d = ig_page_lane_desc(li->type);
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
    ig_values_retype(out, ig_read_type(li->type, li->quantize));
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
