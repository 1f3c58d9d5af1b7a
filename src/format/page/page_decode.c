/* page_decode.c - a stored block back into values (page.h): its body
 * decompressed (page.c), its header checked against the column, then the
 * validity bitmap or level streams and the values stream decoded; a
 * sliding-window body handed to slide.c. Also the cheaper reads that skip a
 * full decode: values usable in place, only the picked rows of a string leaf
 * or sliding-window page, the row lengths of a sliding-window page. Erasing
 * is page_erase.c. */
#include "format/page/page.h"
#include "page_int.h"
#include "format/page/pagerec.h"
#include "format/layout.h"
#include "format/page/blob_refs.h"
#include "format/page/joint_levels.h"
#include "format/page/slide.h"
#include "format/model/quantize.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/enc/codec.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    out->lt = li->lt;
    out->levels = true;
    out->per_value = 1;
    ig_values_reset(out);
    return ig_slide_picked(p, len, rec->row_count, pick, li, &s->slide_rows, out, err);
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

/* The int stream a leaf of fixed-width values stores its lanes in: its type's,
 * or a quantised float's narrower width (read back as float32). */
static int leaf_lane_desc(const struct ig_leaf_info *li, struct ig_int_desc *d,
                          struct ig_error *err)
{
    if (!li->quantize) {
        *d = ig_page_lane_desc(li->type);
        return 0;
    }
    *d = (struct ig_int_desc){.width = (uint8_t)ig_quantize_width(li->quantize)};
    return d->width ? 0 : ig_err(err, -EIO, "unknown quantisation %u", li->quantize);
}

int ig_page_decode_picked(const uint8_t *stored, const struct ig_pagerec *rec,
                          const struct ig_leaf_info *li, const uint8_t *absent, const uint8_t *pick,
                          bool lanes, struct ig_page_scratch *s, struct ig_values *out,
                          struct ig_error *err)
{
    if (li->levels && li->slide_ok && rec->encoding == IG_PAGE_ENC_SLIDE)
        return decode_picked_slide(stored, rec, li, pick, s, out, err);
    const struct ig_type_info *ti = ig_type_info(li->type);
    if (li->levels || li->type == IG_T_BLOB || !ti) return -ENOTSUP;
    bool bytes = ti->phys == IG_PHYS_BYTES;
    if (!bytes && !lanes) return -ENOTSUP;
    struct ig_int_desc d = {0};
    int rc = bytes ? 0 : leaf_lane_desc(li, &d, err);
    if (rc) return rc;
    const uint8_t *body;
    rc = ig_page_body(stored, rec, s, &body, err);
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
    ig_values_retype(out, ig_read_type(li->type, bytes ? 0 : li->quantize));
    out->lt = li->lt;
    ig_values_reset(out);
    /* the picked rows found a word of bits at a time: a row read picks one
     * row of a block of up to thousands (a dictionary's codes), and testing
     * each bit was most of its time */
    size_t nbytes = (n + 7) / 8;
    for (size_t w = 0; w < nbytes && !rc; w += 8) {
        uint64_t bits = 0;
        for (size_t k = 0; k < 8 && w + k < nbytes; k++)
            bits |= (uint64_t)pick[w + k] << (8 * k);
        while (bits && !rc) {
            size_t i = w * 8 + (size_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (i >= n) break;
            if (valid && !((valid[i / 8] >> (i % 8)) & 1)) {
                rc = ig_values_push_null(out) ? ig_err(err, -ENOMEM, "out of memory") : 0;
                continue;
            }
            if (!bytes) {
                uint64_t lane;
                rc = ig_ints_get(body + pos, len - pos, n, &d, absent, i, &lane, err);
                if (!rc && li->quantize) ig_dequantize_lanes(li->quantize, &lane, 1, &lane);
                if (!rc && ig_values_push_lane(out, lane))
                    rc = ig_err(err, -ENOMEM, "out of memory");
                continue;
            }
            const uint8_t *val;
            size_t vl;
            rc = ig_bytes_get_cx(rec->cx, body + pos, len - pos, n, absent, i, &val, &vl, err);
            if (!rc && ig_values_push_bytes(out, val, vl)) rc = ig_err(err, -ENOMEM, "out of memory");
        }
    }
    return rc;
}

/* u32 length + level stream into dst (n bytes), unpacked in s's lanes. */
static int get_levels(const uint8_t *body, size_t len, size_t *pos, size_t n, uint8_t max,
                      struct ig_page_scratch *s, uint8_t *dst, struct ig_error *err)
{
    static const struct ig_int_desc d = {1, false};
    if (len - *pos < 4) return ig_err(err, -EIO, "level stream past the page end");
    size_t sl = ig_ld32(body + *pos);
    *pos += 4;
    if (sl > len - *pos) return ig_err(err, -EIO, "level stream past the page end");
    if (ig_buf_reserve(&s->level_lanes, (n + 1) * sizeof(uint64_t))) return ig_err(err, -ENOMEM, "out of memory");
    uint64_t *lanes = (uint64_t *)(void *)s->level_lanes.data;
    int rc = ig_ints_decode(body + *pos, sl, n, &d, NULL, lanes, err);
    uint64_t above = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        above |= lanes[i] > max;
        dst[i] = (uint8_t)lanes[i];
    }
    if (!rc && above) rc = ig_err(err, -EIO, "level above the maximum %u", max);
    *pos += sl;
    return rc;
}

int ig_page_skip_levels(const uint8_t *body, size_t len, size_t *pos)
{
    unsigned streams = body[0] & IG_BODY_JOINT ? 1
                       : !!(body[0] & IG_BODY_REP) + !!(body[0] & IG_BODY_DEF);
    for (unsigned i = 0; i < streams; i++) {
        if (len - *pos < 4 || ig_ld32(body + *pos) > len - *pos - 4) return -EIO;
        *pos += 4 + ig_ld32(body + *pos);
    }
    return 0;
}

/* The joint level stream (format 19) into out's level arrays: n entries, or
 * as far as holds the first `keep` rows whole (*got: the entries decoded). */
static int get_joint_levels(const uint8_t *body, size_t len, size_t *pos, size_t n, size_t keep,
                            const struct ig_leaf_info *li, struct ig_values *out, size_t *got,
                            struct ig_error *err)
{
    if (len - *pos < 4) return ig_err(err, -EIO, "level stream past the page end");
    size_t sl = ig_ld32(body + *pos);
    *pos += 4;
    if (sl > len - *pos) return ig_err(err, -EIO, "level stream past the page end");
    int rc = ig_joint_levels_decode_rows(body + *pos, sl, n, li->max_rep, li->max_def, keep,
                                         li->max_rep ? out->reps : NULL, out->defs, got, err);
    if (!rc && !li->max_rep && *got) memset(out->reps, 0, *got);
    *pos += sl;
    return rc;
}

/* Decode n value slots of the leaf's type into out (lanes or bytes). */
static int decode_values(const struct ig_leaf_info *li, const struct ig_chunk_ctx *cx,
                         const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                         struct ig_values *out, struct ig_error *err)
{
    int rc = ig_values_reserve(out, n);
    if (rc) return ig_err(err, rc, "out of memory");
    if (li->type == IG_T_BLOB) {
        rc = ig_blob_page_decode(p, len, n, out, err);
    } else if (out->is_bytes) {
        rc = ig_bytes_decode_cx(cx, p, len, n, absent, out->offs, &out->data, err);
    } else {
        struct ig_int_desc d;
        rc = leaf_lane_desc(li, &d, err);
        if (!rc) rc = ig_ints_decode(p, len, n, &d, absent, out->lanes, err);
        if (!rc && li->quantize) ig_dequantize_lanes(li->quantize, out->lanes, n, out->lanes);
    }
    if (!rc) out->n = n;
    return rc;
}

/* The block's rows, or (keep < its rows, a nested leaf) at least its first
 * `keep` (ig_page_decode_leaf_rows). */
static int decode_leaf(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                       const uint8_t *absent, size_t keep, struct ig_page_scratch *s,
                       struct ig_values *out, struct ig_error *err)
{
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    size_t len = rec->body_size;
    if (!ig_type_info(li->type)) return ig_err(err, -EIO, "unknown type %u", li->type);
    /* quantised floats read back as float32 */
    ig_values_retype(out, ig_read_type(li->type, li->quantize));
    out->lt = li->lt;
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
        rc = decode_values(li, rec->cx, body + pos, len - pos, n, absent, out, err);
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
    bool joint = li->joint_levels && (want & (IG_BODY_REP | IG_BODY_DEF)) && flags == (want | IG_BODY_JOINT);
    if (flags != want && !joint) return ig_err(err, -EIO, "page body flags 0x%02x do not fit the column", flags);
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
    size_t got = ne; /* entries decoded: the joint stream can stop after the rows kept */
    if (joint) {
        rc = get_joint_levels(body, len, &pos, ne, keep, li, out, &got, err);
        if (!rc && !li->max_def && got) memset(out->defs, 0, got);
    } else {
        if (li->max_rep) rc = get_levels(body, len, &pos, ne, li->max_rep, s, out->reps, err);
        else if (ne) memset(out->reps, 0, ne);
        if (!rc && li->max_def) rc = get_levels(body, len, &pos, ne, li->max_def, s, out->defs, err);
        else if (!rc && ne) memset(out->defs, 0, ne);
    }
    if (rc) return rc;
    out->nent = got;
    rc = decode_values(li, rec->cx, body + pos, len - pos, rec->value_count, NULL, out, err);
    if (!rc) rc = ig_levels_index(out, li->max_def, keep, err);
    /* the rows kept are all there (ig_levels_index stops at no fewer), and
     * levels read whole hold exactly the record's rows */
    bool kept_part = out->nent < ne;
    if (!rc && !kept_part && out->rows != rec->row_count)
        rc = ig_err(err, -EIO, "page holds %zu rows, its record says %u", out->rows, rec->row_count);
    return rc;
}

int ig_page_decode_leaf(const uint8_t *stored, const struct ig_pagerec *rec,
                        const struct ig_leaf_info *li, const uint8_t *absent,
                        struct ig_page_scratch *s, struct ig_values *out, struct ig_error *err)
{
    return decode_leaf(stored, rec, li, absent, SIZE_MAX, s, out, err);
}

int ig_page_decode_leaf_rows(const uint8_t *stored, const struct ig_pagerec *rec,
                             const struct ig_leaf_info *li, size_t keep, struct ig_page_scratch *s,
                             struct ig_values *out, struct ig_error *err)
{
    return decode_leaf(stored, rec, li, NULL, li->levels ? keep : SIZE_MAX, s, out, err);
}

int ig_page_decode(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type,
                   const uint8_t *absent, struct ig_page_scratch *s, struct ig_values *out,
                   struct ig_error *err)
{
    struct ig_leaf_info li = {.type = type, .per_value = 1};
    return ig_page_decode_leaf(stored, rec, &li, absent, s, out, err);
}

/* Where a bytes leaf's values stream starts in a block's body (*pos = len:
 * a body with none, a sliding window). */
static int bytes_values_at(const uint8_t *stored, const struct ig_pagerec *rec,
                           const struct ig_leaf_info *li, struct ig_page_scratch *s,
                           const uint8_t **bodyp, size_t *posp, struct ig_error *err)
{
    const uint8_t *body;
    int rc = ig_page_body(stored, rec, s, &body, err);
    if (rc) return rc;
    *bodyp = body;
    size_t len = rec->body_size, pos = IG_BODY_HDR;
    *posp = len;
    if (len < IG_BODY_HDR) return ig_err(err, -EIO, "page body of %zu bytes", len);
    if (!li->levels) {
        if (body[0] & IG_BODY_VALIDITY) pos += (rec->row_count + 7) / 8;
    } else {
        if (body[0] == IG_BODY_SLIDE) return 0;
        if (ig_page_skip_levels(body, len, &pos)) return ig_err(err, -EIO, "level stream past the page end");
    }
    if (pos > len) return ig_err(err, -EIO, "validity bitmap past the page end");
    *posp = pos;
    return 0;
}

int ig_page_symbol_uses(const uint8_t *stored, const struct ig_pagerec *rec,
                        const struct ig_leaf_info *li, struct ig_page_scratch *s, uint64_t *counts,
                        struct ig_error *err)
{
    const struct ig_type_info *ti = ig_type_info(li->type);
    if (!rec->cx || !ti || ti->phys != IG_PHYS_BYTES || li->type == IG_T_BLOB) return 0;
    const uint8_t *body;
    size_t pos, len = rec->body_size;
    int rc = bytes_values_at(stored, rec, li, s, &body, &pos, err);
    if (rc || pos >= len) return rc;
    return ig_bytes_symbol_uses(body + pos, len - pos, rec->value_count, rec->cx, counts, err);
}

int ig_page_value_uses(const uint8_t *stored, const struct ig_pagerec *rec, const struct ig_leaf_info *li,
                       struct ig_page_scratch *s, const struct ig_vdict *d, uint64_t *counts,
                       int sign, struct ig_error *err)
{
    const struct ig_type_info *ti = ig_type_info(li->type);
    if (!d || !ti || ti->phys != IG_PHYS_BYTES || li->type == IG_T_BLOB ||
        rec->encoding != IG_ENC_VDICT)
        return 0;
    const uint8_t *body;
    size_t pos, len = rec->body_size;
    int rc = bytes_values_at(stored, rec, li, s, &body, &pos, err);
    if (rc || pos >= len) return rc;
    return ig_vdict_uses(d, body + pos, len - pos, rec->value_count, counts, sign, err);
}
