/* page_erase.c - erasing rows of one page (or block) in place: the erased
 * values overwritten per each encoding's rule (docs/ERASURE.md), the body
 * re-encoded in the same shape and recompressed to fit its extent; and the
 * check that erased rows hold nothing (verify). Flat pages, nested leaves,
 * sliding-window pages. */
#include "page_int.h"
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
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

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
static int reencode_values(const struct ig_chunk_ctx *cx, const uint8_t *vals, size_t vlen,
                           size_t n, uint8_t type, const uint8_t *absent, const uint8_t *gone,
                           struct ig_page_scratch *s, struct ig_buf *out, struct ig_error *err)
{
    struct ig_values v;
    ig_values_init(&v, type);
    int rc = ig_values_reserve(&v, n);
    if (rc) return ig_err(err, rc, "out of memory");
    if (v.is_bytes) {
        rc = ig_bytes_decode_cx(cx, vals, vlen, n, absent, v.offs, &v.data, err);
        if (!rc) {
            /* rebuild without the erased items' bytes */
            rc = ig_page_scratch_offs(s, n);
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
        struct ig_int_desc d = ig_page_lane_desc(type);
        rc = ig_ints_decode(vals, vlen, n, &d, absent, v.lanes, err);
        for (size_t i = 0; i < n && !rc; i++)
            if ((gone[i / 8] >> (i % 8)) & 1) v.lanes[i] = 0;
        if (!rc) rc = ig_ints_encode_erased(v.lanes, n, &d, gone, out, err);
    }
    ig_values_free(&v);
    return rc;
}

/* An erased block's body compressed as the block was: zstd alone, or against
 * its chunk's dictionary (the one an erase now writes, cx->zdict_next, when
 * it pruned one); a harder level when the frame came out over the block's
 * room, and for a dictionary block zstd alone when that is what fits. */
static int recompress(const struct ig_buf *body, const struct ig_pagerec *rec, int zstd_level,
                      struct ig_page_built *out, struct ig_error *err)
{
    out->compression = rec->compression;
    ig_buf_reset(&out->stored);
    struct ig_zdict *d = NULL;
    if (rec->compression == IG_PC_ZSTD_DICT) {
        if (!rec->cx || !rec->cx->zdict)
            return ig_err(err, -EIO, "compressed with its chunk's zstd dictionary, which the chunk lacks");
        d = rec->cx->zdict_next ? rec->cx->zdict_next : rec->cx->zdict;
    }
    if (rec->compression != IG_PC_NONE) {
        size_t bound = ZSTD_compressBound(body->len);
        if (ig_buf_reserve(&out->stored, bound)) return ig_err(err, -ENOMEM, "out of memory");
        /* against the dictionary near its level: 3 misses its room twice as often */
        int level = d ? ig_zdict_erase_level(zstd_level) : zstd_level ? zstd_level : 3;
        size_t z = d ? ig_page_compress_dict(d, out->stored.data, bound, body->data, body->len, level)
                     : ig_page_compress(out->stored.data, bound, body->data, body->len, level);
        if (ZSTD_isError(z)) return ig_err(err, -EIO, "zstd: %s", ZSTD_getErrorName(z));
        out->stored.len = z;
    } else if (ig_buf_append(&out->stored, body->data, body->len)) {
        return ig_err(err, -ENOMEM, "out of memory");
    }
    out->checksum = ig_hash(out->stored.data, out->stored.len);
    if (rec->compression == IG_PC_NONE) return 0;
    /* a miss against the dictionary tries the writer's level first */
    int rc = ig_page_recompress_to_fit_dict(body, rec->capacity, d, d ? ig_zdict_level(zstd_level) : 0,
                                            out, err);
    if (!rc && d && out->stored.len > rec->capacity) {
        struct ig_page_built alt = {0};
        struct ig_pagerec plain = *rec;
        plain.compression = IG_PC_ZSTD;
        rc = recompress(body, &plain, zstd_level, &alt, err);
        if (!rc && alt.stored.len < out->stored.len) {
            ig_buf_free(&out->stored);
            out->stored = alt.stored;
            alt.stored = (struct ig_buf)IG_BUF_INIT;
            out->compression = alt.compression;
            out->checksum = alt.checksum;
        }
        ig_page_built_free(&alt);
    }
    return rc;
}

int ig_page_recompress_stale(const struct ig_pagerec *rec, struct ig_page_scratch *s,
                             struct ig_page_built *out, struct ig_error *err)
{
    struct ig_buf *body = &s->tmp; /* the body ig_page_dict_stale read under the old dictionary */
    if (body->len != rec->body_size) return ig_err(err, -EINVAL, "no stale block's body held");
    out->body_size = rec->body_size;
    out->entry_count = rec->entry_count;
    out->value_count = rec->value_count;
    out->encoding = rec->encoding;
    out->flags = rec->flags;
    return recompress(body, rec, 3, out, err);
}

int ig_page_dict_stale(const uint8_t *stored, const struct ig_pagerec *rec, struct ig_page_scratch *s,
                       bool *stale, struct ig_error *err)
{
    *stale = false;
    if (rec->compression != IG_PC_ZSTD_DICT || !rec->cx || !rec->cx->zdict_next) return 0;
    const uint8_t *src;
    int rc = ig_page_body(stored, rec, s, &src, err);
    if (rc) return rc;
    struct ig_buf *old = &s->tmp; /* kept for ig_page_recompress_stale */
    ig_buf_reset(old);
    if (ig_buf_append(old, src, rec->body_size)) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_chunk_ctx next = {.zdict = rec->cx->zdict_next};
    struct ig_pagerec r = *rec;
    r.cx = &next;
    struct ig_error sub = {0};
    rc = ig_page_body(stored, &r, s, &src, &sub);
    *stale = rc == -ENOMEM ? false : rc || memcmp(src, old->data, rec->body_size) != 0;
    return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : 0;
}

int ig_page_erase(const uint8_t *stored, const uint8_t *decoded, const struct ig_pagerec *rec, uint8_t type,
                  const uint8_t *absent, const uint8_t *kill, int zstd_level,
                  struct ig_page_scratch *s, struct ig_page_built *out, struct ig_error *err)
{
    const uint8_t *src = decoded;
    int rc = src ? 0 : ig_page_body(stored, rec, s, &src, err);
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
        rc = ig_bytes_erase_cx(rec->cx, body->data + voff, len - voff, n, absent, kill, &new_len,
                               &sub);
    } else {
        struct ig_int_desc d = ig_page_lane_desc(type);
        rc = ig_ints_erase(body->data + voff, len - voff, n, &d, absent, kill, &new_len, &sub);
    }
    if (rc == -ENOSPC) {
        /* cannot erase in place: re-encode the values with every erased slot zero */
        uint8_t *gone = malloc((n + 7) / 8);
        if (!gone) return ig_err(err, -ENOMEM, "out of memory");
        for (size_t i = 0; i < (n + 7) / 8; i++)
            gone[i] = (uint8_t)((absent ? absent[i] : 0) | kill[i]);
        struct ig_buf vals = IG_BUF_INIT;
        rc = reencode_values(rec->cx, src + voff, len - voff, n, type, absent, gone, s, &vals, err);
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
    return recompress(body, rec, zstd_level, out, err);
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
        return ig_bytes_check_erased_cx(rec->cx, body + voff, rec->body_size - voff, n, erased,
                                        erased, err);
    struct ig_int_desc d = ig_page_lane_desc(type);
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
static int erase_slide(const uint8_t *stored, const struct ig_pagerec *rec, uint8_t type, const uint8_t *kill,
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
    if (!rc) rc = ig_slide_erase(body + IG_BODY_HDR, rec->body_size - IG_BODY_HDR, n, type, all, &nbody, err);
    free(all);
    if (!rc) {
        /* a bulk of one int stream (in bytes, or a list of floats' lanes) at
         * level 6 at least, the level the writer seals a bulk in bytes at
         * (slide.h): at the erase's own, such a page would not fit its extent */
        bool stream = ig_slide_bulk_is_stream(nbody.data + IG_BODY_HDR, nbody.len - IG_BODY_HDR);
        struct ig_page_policy pol = {.compression = rec->compression ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .zstd_level = stream ? ig_slide_bytes_level(zstd_level) : zstd_level};
        out->encoding = IG_PAGE_ENC_SLIDE;
        out->flags = rec->flags;
        out->entry_count = rec->entry_count;
        out->value_count = rec->value_count;
        out->text_len = 0;
        rc = ig_page_seal(&pol, &nbody, out, err);
        if (!rc && out->compression == IG_PC_ZSTD) rc = ig_page_recompress_to_fit(&nbody, rec->capacity, out, err);
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
    if (ig_page_skip_levels(src, len, &pos)) return 0;
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
        rc = ig_bytes_erase_cx(rec->cx, body.data + pos, len - pos, n, NULL, slots, &new_len, &sub);
    } else {
        struct ig_int_desc d = li->quantize ? (struct ig_int_desc){.width = (uint8_t)ig_quantize_width(li->quantize)}
                                            : ig_page_lane_desc(li->type);
        rc = ig_ints_erase(body.data + pos, len - pos, n, &d, NULL, slots, &new_len, &sub);
    }
    struct ig_page_built alt = {0};
    if (!rc) {
        body.len = pos + new_len;
        struct ig_page_policy pol = {.compression = rec->compression ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .zstd_level = zstd_level};
        rc = ig_page_seal(&pol, &body, &alt, err);
        if (!rc && alt.compression == IG_PC_ZSTD) rc = ig_page_recompress_to_fit(&body, rec->capacity, &alt, err);
        if (!rc && (!out->stored.len || alt.stored.len < out->stored.len)) {
            alt.encoding = rec->encoding; /* the values stream kept its scheme */
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
        return erase_slide(stored, rec, li->type, kill, deleted, zstd_level, s, out, err);
    struct ig_values v, w;
    ig_values_init(&v, li->type);
    ig_values_init(&w, ig_read_type(li->type, li->quantize));
    ig_values_set_levels(&w, li->per_value);
    int rc = ig_page_decode_leaf(stored, rec, li, NULL, s, &v, err);
    if (!rc && rec->encoding == IG_ENC_VDICT) {
        /* codes into the chunk's value dictionary (format 14) are erased in
         * place, never re-encoded: a rebuilt page would lose the shared
         * dictionary (and its values' uses), and the codes' own rule never grows */
        ig_buf_reset(&out->stored);
        out->text_len = 0;
        rc = erase_in_shape(stored, rec, li, kill, &v, zstd_level, s, out, err);
        if (!rc && !out->stored.len) rc = ig_err(err, -EIO, "vdict page: cannot erase its codes in place");
        ig_values_free(&v);
        ig_values_free(&w);
        return rc;
    }
    for (size_t r = 0; !rc && r < v.rows; r++)
        if (copy_row(&v, r, (kill[r / 8] >> (r % 8)) & 1, li->max_def, &w))
            rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        /* blob references of erased rows are dropped (copy_row pushed empty bytes) */
        struct ig_page_policy pol = {.type = li->type,
                                     .compression = rec->compression ? IG_COMP_ZSTD : IG_COMP_NONE,
                                     .zstd_level = zstd_level,
                                     .leaf = *li,
                                     .fsst = rec->cx ? rec->cx->fsst : NULL};
        w.type = ig_read_type(li->type, li->quantize);
        rc = ig_page_encode(&pol, &w, 0, w.rows, s, out, err);
        out->flags = rec->flags;
        if (!rc && out->compression == IG_PC_ZSTD) rc = ig_page_recompress_to_fit(&s->body, rec->capacity, out, err);
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
        return ig_slide_check_erased(body + IG_BODY_HDR, rec->body_size - IG_BODY_HDR, rec->row_count, li->type,
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
