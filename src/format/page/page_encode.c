/* page_encode.c - one block of a page from a column's values (page.h,
 * ig_page_encode): the body's header, the validity bitmap or the level
 * streams, the values stream the codecs choose (or a sliding-window body when
 * that is smaller), then sealed; strings that zstd took are stored as huffman
 * instead when that costs little more. Measures the rows' text length on the
 * way (from the codecs' census of distinct values when there is one). How a
 * page is cut into such blocks is page_blocks.c. */
#include "format/page/page.h"
#include "format/page/joint_levels.h"
#include "page_int.h"
#include "format/layout.h"
#include "format/page/blob_refs.h"
#include "format/page/slide.h"
#include "format/model/quantize.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
static uint64_t census_text_len(const struct ig_census *cen, const struct ig_values *v, bool json)
{
    return ig_render_lanes_len_counted(v->type, &v->lt, cen->vals, cen->counts, cen->k, json);
}

/* Render the page's rows to count their text bytes (all rows live at write
 * time). With a census of its values (and no NULL among them), each distinct
 * value is measured once and counted as often as it appears. */
static int page_text_len(const struct ig_values *v, size_t first, size_t count,
                         const struct ig_census *cen, struct ig_page_scratch *s, uint64_t *len);

int ig_page_text_len(const struct ig_values *v, size_t first, size_t count, struct ig_page_scratch *s,
                     uint64_t *len)
{
    return page_text_len(v, first, count, NULL, s, len);
}

static int page_text_len(const struct ig_values *v, size_t first, size_t count,
                         const struct ig_census *cen, struct ig_page_scratch *s, uint64_t *len)
{
    if (cen) {
        *len = census_text_len(cen, v, false) + count; /* and the newlines */
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
    struct ig_enc_opts eo = {.forced = pol->encoding,
                             .allowed = 0,
                             .max_depth = 0,
                             .no_drop = pol->leaf.levels,
                             .census = pol->leaf.quantize ? NULL : &s->census,
                             .decimal = pol->decimal && !pol->leaf.quantize &&
                                        (v->type == IG_T_FLOAT64 || v->type == IG_T_FLOAT32),
                             .alp = pol->alp && !pol->leaf.quantize &&
                                    (v->type == IG_T_FLOAT64 || v->type == IG_T_FLOAT32),
                             .expo = pol->expo && !pol->leaf.quantize && v->type == IG_T_FLOAT32,
                             .huff_slots = pol->huff_slots,
                             .plain_lengths = pol->plain_lengths && pol->compression != IG_COMP_NONE,
                             .item_ids = pol->item_ids && v->is_bytes && !pol->leaf.levels
                                             ? pol->item_ids + first
                                             : NULL,
                             .fsst = v->is_bytes && v->type != IG_T_BLOB ? pol->fsst : NULL};
    /* a flat block weighs fsst against its zstd-compressed form (per_item_instead) */
    if (eo.forced == IG_ENC_AUTO && eo.fsst && !pol->leaf.levels)
        eo.allowed = (1u << IG_ENC_PLAIN) | (1u << IG_ENC_DICT);
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
    if (v->is_bytes && pol->vcodes) /* codes into the chunk's value dictionary */
        return ig_bytes_encode_vdict(pol->vcodes + first, count, pol->vdict_k, body, err);
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

/* Strings and binary values that zstd compressed are stored as huffman or
 * fsst instead (whichever is smaller) when that costs at most an eighth
 * more (a quarter more than a frame against the chunk's dictionary), and values zstd left alone as fsst when that is smaller at all: each
 * item then reads and erases on its own (a take decodes one item, an erase
 * removes its codes in place), where a zstd block is decompressed and
 * recompressed whole. Only when the column leaves the choice to the writer.
 * Returns the scheme (0: keep the sealed block); an fsst stream weighed is
 * left in s->alt. */
static unsigned per_item_instead(const struct ig_page_policy *pol, const struct ig_values *v,
                                 size_t first, size_t count, size_t values_at,
                                 const struct ig_page_built *sealed, struct ig_page_scratch *s)
{
    if (pol->encoding != IG_ENC_AUTO || pol->compression != IG_COMP_AUTO || pol->leaf.levels ||
        !v->is_bytes || v->type == IG_T_BLOB || count == 0 || pol->zstd_settled)
        return 0;
    bool zstd = sealed->compression != IG_PC_NONE;
    /* against the chunk's dictionary a quarter: a row read decompresses a
     * whole block whose frame reaches into the dictionary (on captions
     * sharing words, 3-4x the time of one huffman item), so per-item schemes
     * keep the blocks the dictionary gains less on (with an eighth, a take
     * of random captions-mixed rows took 1.4x as long for 3 % less size) */
    size_t limit = sealed->compression == IG_PC_ZSTD_DICT ? sealed->stored.len + sealed->stored.len / 4
                   : zstd ? sealed->stored.len + sealed->stored.len / 8
                          : sealed->stored.len - 1;
    unsigned best = 0;
    size_t best_size = limit + 1;
    if (pol->fsst && !pol->fsst_settled) {
        struct ig_enc_opts eo = {.forced = IG_ENC_FSST, .fsst = pol->fsst};
        ig_buf_reset(&s->alt);
        if (ig_bytes_encode(v->offs + first, v->data.data ? v->data.data : (const uint8_t *)"",
                            count, &eo, &s->alt, NULL) == 0 &&
            values_at + s->alt.len <= limit) {
            best = IG_ENC_FSST;
            best_size = values_at + s->alt.len;
        }
    }
    if (zstd) {
        size_t huff = values_at + ig_bytes_huffman_size(v->offs + first, v->data.data, count, pol->huff_slots);
        if (huff <= limit && huff < best_size) best = IG_ENC_HUFF;
    }
    return best;
}

/* The sealed alternative alt (and its body, alt_body) in place of out's page
 * (and body): the old ones are left in alt and alt_body, for the caller to free. */
static void take_sealed(struct ig_page_built *out, struct ig_page_built *alt, struct ig_buf *body,
                        struct ig_buf *alt_body)
{
    struct ig_buf t = out->stored;
    out->stored = alt->stored;
    alt->stored = t;
    out->body_size = alt->body_size;
    out->compression = alt->compression;
    out->checksum = alt->checksum;
    t = *body;
    *body = *alt_body;
    *alt_body = t;
}

/* A sliding-window page sealed again with its bulk as plain bytes
 * (ig_slide_encode_bytes), kept when it is stored smaller. Where the page may
 * be compressed only, and holds at most 2 x IG_SLIDE_BYTES_LANES values (a row
 * read decompresses it whole): the encoder weighs its bulk's codes as they
 * are, and bit codes hide from zstd the phrases that tokens of text repeat
 * (rows of token ids of real text: 0.62-0.74 of the bytes). Sealed at
 * IG_SLIDE_BYTES_ZSTD_LEVEL at least (slide.h). */
static int bytes_if_smaller(const struct ig_page_policy *pol, struct ig_values *v, size_t first, size_t count,
                            struct ig_page_scratch *s, struct ig_page_built *out, struct ig_error *err)
{
    if (pol->compression == IG_COMP_NONE || out->value_count > 2 * IG_SLIDE_BYTES_LANES) return 0;
    struct ig_buf body = IG_BUF_INIT;
    struct ig_page_built alt = {0};
    int rc = ig_buf_append(&body, s->body.data, IG_BODY_HDR) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = ig_slide_encode_bytes(v, first, count, &pol->leaf, s->slide, &body, err);
    struct ig_page_policy at = *pol;
    at.zstd_level = ig_slide_bytes_level(pol->zstd_level);
    if (!rc) rc = ig_page_seal(&at, &body, &alt, err);
    if (!rc && alt.stored.len < out->stored.len) {
        take_sealed(out, &alt, &s->body, &body);
        out->slide_bytes = true;
    }
    ig_buf_free(&body);
    ig_page_built_free(&alt);
    return rc > 0 ? 0 : rc;
}

/* A sliding-window body for a top-level list of integers: kept when forced,
 * or when smaller than the level streams' body, which is built beside it in a
 * fresh body. */
static int encode_slide(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                        size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                        struct ig_error *err)
{
    uint8_t hdr[IG_BODY_HDR] = {IG_BODY_SLIDE, 0, 0, 0};
    int rc = ig_buf_append(&s->body, hdr, sizeof hdr) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = ig_slide_encode(v, first, count, &pol->leaf, &s->slide, &s->body, err);
    if (rc) return rc;
    if (pol->encoding != IG_PAGE_ENC_SLIDE) {
        struct ig_buf slide = s->body; /* keep it aside; build the alternative in a fresh body */
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
        if (rc) return rc;
    }
    out->encoding = IG_PAGE_ENC_SLIDE;
    out->flags = 0;
    out->entry_count = (uint32_t)(v->row_ent[first + count] - v->row_ent[first]);
    out->value_count = (uint32_t)(v->row_val[first + count] - v->row_val[first]);
    rc = ig_page_seal(pol, &s->body, out, err);
    return rc ? rc : bytes_if_smaller(pol, v, first, count, s, out, err);
}


/* Do nearly all rows (7 in 8) have as many entries as the row before? From
 * the rows' entry index (row_ent[0..rows]). */
static bool lengths_mostly_repeat(const uint32_t *row_ent, size_t rows)
{
    size_t same = 0;
    for (size_t r = 1; r < rows; r++)
        same += row_ent[r + 1] - row_ent[r] == row_ent[r] - row_ent[r - 1];
    return rows && same >= rows - rows / 8;
}

/* The level streams just put at body[at..) (after the header at at - 4) as
 * one joint stream (format 19) when that is smaller: it is written after them
 * and moved over them. Levels whose symbols would be too many stay as they
 * are. (Lists of one length, whose bit-packed bytes repeat and zstd stores in
 * next to nothing, are weighed sealed: encode_levels.) */
static int joint_instead(const struct ig_leaf_info *li, const uint8_t *reps, const uint8_t *defs,
                         size_t n, size_t at, struct ig_buf *body, struct ig_error *err)
{
    if (!ig_joint_levels_alphabet(li->max_rep, li->max_def) || (!li->max_rep && !li->max_def)) return 0;
    size_t two = body->len - at;
    if (ig_buf_append_u32(body, 0)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_joint_levels_encode(reps, defs, n, li->max_rep, li->max_def, body, err);
    if (rc) return rc;
    size_t one = body->len - at - two;
    if (one >= two) {
        body->len = at + two;
        return 0;
    }
    ig_st32(body->data + at + two, (uint32_t)(one - 4));
    memmove(body->data + at, body->data + at + two, one);
    body->len = at + one;
    body->data[at - IG_BODY_HDR] |= IG_BODY_JOINT;
    return 0;
}

/* A body with a joint level stream, sealed in *out: the same body with the
 * two bit-packed streams instead, sealed too, replaces it (and *body) when
 * smaller. zstd finds the runs of long lists' levels in bit-packed bytes (a
 * row start in 60 entries: a few bits a row), where the rANS stream's bytes
 * are as good as random to it, and a body of values alone that zstd shrinks
 * by less than an eighth is stored as it is: lists of 30-90 floats in
 * dictionary codes took 1.06x the bytes with the joint stream always kept,
 * 0.96x weighed. */
static int two_if_smaller(const struct ig_page_policy *pol, const uint8_t *reps, const uint8_t *defs,
                          size_t n, size_t levels_at, size_t values_at, struct ig_buf *body,
                          struct ig_page_built *out, struct ig_error *err)
{
    struct ig_buf two = IG_BUF_INIT;
    struct ig_page_built alt = {0};
    int rc = ig_buf_append(&two, body->data, levels_at) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) {
        two.data[levels_at - IG_BODY_HDR] &= (uint8_t)~IG_BODY_JOINT;
        if (pol->leaf.max_rep) rc = put_levels(reps, n, &two, err);
        if (!rc && pol->leaf.max_def) rc = put_levels(defs, n, &two, err);
    }
    if (!rc && ig_buf_append(&two, body->data + values_at, body->len - values_at))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = ig_page_seal(pol, &two, &alt, err);
    if (!rc && alt.stored.len < out->stored.len) take_sealed(out, &alt, body, &two);
    ig_buf_free(&two);
    ig_page_built_free(&alt);
    return rc;
}

/* A nested leaf's body: its repetition and definition level streams, then its
 * values (NULLs are levels here, not validity bits). */
static int encode_levels(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                         size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                         struct ig_error *err)
{
    struct ig_buf *body = &s->body;
    size_t e0 = v->row_ent[first], e1 = v->row_ent[first + count];
    size_t v0 = v->row_val[first], v1 = v->row_val[first + count];
    uint8_t hdr[IG_BODY_HDR] = {(uint8_t)((pol->leaf.max_rep ? IG_BODY_REP : 0) |
                                          (pol->leaf.max_def ? IG_BODY_DEF : 0) |
                                          (v->type == IG_T_BLOB ? IG_BODY_BLOB : 0)),
                                0, 0, 0};
    int rc = ig_buf_append(body, hdr, sizeof hdr) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    size_t levels_at = body->len;
    if (!rc && pol->leaf.max_rep) rc = put_levels(v->reps + e0, e1 - e0, body, err);
    if (!rc && pol->leaf.max_def) rc = put_levels(v->defs + e0, e1 - e0, body, err);
    if (!rc && pol->leaf.joint_levels)
        rc = joint_instead(&pol->leaf, v->reps + e0, v->defs + e0, e1 - e0, levels_at, body, err);
    size_t values_at = body->len;
    if (!rc) rc = encode_values(pol, v, v0, v1 - v0, s, body, err);
    if (rc) return rc;
    const struct ig_census *cen = census_of(v, v0, v1 - v0, s);
    /* values that are never NULL themselves (NULLs are levels here) */
    out->values_json_known = cen && !v->has_nulls;
    out->values_json_len = out->values_json_known ? census_text_len(cen, v, true) : 0;
    out->encoding = v->type == IG_T_BLOB ? 0 : body->data[values_at];
    out->flags = 0;
    out->entry_count = (uint32_t)(e1 - e0);
    out->value_count = (uint32_t)(v1 - v0);
    rc = ig_page_seal(pol, body, out, err);
    /* long lists, and lists (nearly) all of one length (triples of ids: 1.11x
     * the bytes with the joint stream kept; boxes of four floats, NULL now
     * and then: the bit-packed levels repeat but for a few rows), only:
     * weighing every block so cost a table of structs' import a quarter, for
     * bytes it never saved */
    if (!rc && (body->data[levels_at - IG_BODY_HDR] & IG_BODY_JOINT) && pol->compression != IG_COMP_NONE &&
        (e1 - e0 >= 16 * count || (pol->leaf.max_rep && lengths_mostly_repeat(v->row_ent + first, count))))
        rc = two_if_smaller(pol, v->reps + e0, v->defs + e0, e1 - e0, levels_at, values_at, body, out, err);
    return rc;
}

/* A flat leaf's body: a validity bitmap when a row is NULL, then the values;
 * huffman in place of zstd for strings when that pays (huffman_instead), and
 * the rows' text length. */
static int encode_flat(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                       size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                       struct ig_error *err)
{
    struct ig_buf *body = &s->body;
    bool nulls = false;
    if (v->has_nulls)
        for (size_t i = 0; i < count && !nulls; i++)
            nulls = ig_values_is_null(v, first + i);
    uint8_t hdr[IG_BODY_HDR] = {(uint8_t)((nulls ? IG_BODY_VALIDITY : 0) |
                                          (v->type == IG_T_BLOB ? IG_BODY_BLOB : 0)),
                                0, 0, 0};
    int rc = ig_buf_append(body, hdr, sizeof hdr);
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
    if ((pol->encoding == IG_ENC_HUFF || pol->encoding == IG_ENC_FSST) &&
        pol->compression == IG_COMP_AUTO)
        sealing.compression = IG_COMP_NONE; /* zstd over it would undo what it is for */
    rc = ig_page_seal(&sealing, body, out, err);
    if (rc) return rc;
    unsigned item = per_item_instead(pol, v, first, count, values_at, out, s);
    out->fsst_weighed = pol->fsst && !pol->fsst_settled && pol->encoding == IG_ENC_AUTO &&
                        pol->compression == IG_COMP_AUTO && !pol->zstd_settled;
    if (item) {
        struct ig_page_policy h = *pol;
        h.encoding = (uint8_t)item;
        h.compression = IG_COMP_NONE;
        body->len = values_at;
        if (item == IG_ENC_FSST) /* the stream weighed */
            rc = ig_buf_append(body, s->alt.data, s->alt.len)
                     ? ig_err(err, -ENOMEM, "out of memory")
                     : 0;
        else
            rc = encode_values(&h, v, first, count, s, body, err);
        if (!rc) rc = ig_page_seal(&h, body, out, err);
        if (rc) return rc;
        out->encoding = (uint8_t)item;
    }
    return page_text_len(v, first, count, nulls ? NULL : cen, s, &out->text_len) ? ig_err(err, -ENOMEM, "out of memory")
                                                              : 0;
}

int ig_page_encode(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                   size_t count, struct ig_page_scratch *s, struct ig_page_built *out,
                   struct ig_error *err)
{
    ig_buf_reset(&s->body);
    out->fsst_weighed = false;
    out->slide_bytes = false;
    out->text_len = 0;
    out->values_json_len = 0;
    out->values_json_known = false;
    if (pol->leaf.levels && pol->leaf.slide_ok &&
        (pol->encoding == IG_PAGE_ENC_SLIDE || pol->encoding == IG_ENC_AUTO)) {
        if (ig_slide_page_fits(&pol->leaf, v, first, count)) return encode_slide(pol, v, first, count, s, out, err);
        /* a NULL item (list<T?>): level streams, their schemes chosen even
         * where sliding windows were asked for */
        struct ig_page_policy alt = *pol;
        alt.encoding = IG_ENC_AUTO;
        return encode_levels(&alt, v, first, count, s, out, err);
    }
    if (pol->leaf.levels) return encode_levels(pol, v, first, count, s, out, err);
    return encode_flat(pol, v, first, count, s, out, err);
}
