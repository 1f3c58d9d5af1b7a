/* slide.c - reading sliding-window pages (slide.h): a page's streams parsed
 * and checked (slide_int.h, struct ig_slide_page), every row decoded, the
 * rows' lengths from the metadata alone, and one row or the picked rows
 * walked to from the last base before them. Writing is slide_encode.c's,
 * erasing slide_erase.c's. */
#include "format/page/slide.h"
#include "format/layout.h"
#include "format/page/slide_int.h"
#include "format/page/page.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pcode.h"
#include "util/u64vec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- decoding ------------------------------------------------------------- */

int ig_slide_parse(const uint8_t *p, size_t len, size_t rows, struct ig_slide_page *sl, struct ig_error *err)
{
    if (len < 16) return ig_err(err, -EIO, "slide page: truncated");
    sl->rows = ig_ld32(p + IG_SLIDE_ROWS);
    sl->nbases = ig_ld32(p + IG_SLIDE_BASES);
    uint8_t kind = p[IG_SLIDE_BULK_KIND];
    sl->bits = kind == IG_SLIDE_BULK_BITS;
    sl->coded = kind == IG_SLIDE_BULK_CODED;
    sl->dict = kind == IG_SLIDE_BULK_DICT;
    sl->raw = p[IG_SLIDE_RAW];
    sl->nvalues = ig_ld32(p + IG_SLIDE_BULK_VALUES);
    if (sl->rows != rows || sl->nbases > rows || kind > IG_SLIDE_BULK_DICT || p[IG_SLIDE_RAW] > 1 ||
        p[IG_SLIDE_RESERVED] || p[IG_SLIDE_RESERVED + 1])
        return ig_err(err, -EIO, "slide page: bad header");
    size_t pos = IG_SLIDE_HDR;
    for (int s = 0; s < IG_SLIDE_STREAMS; s++) {
        if (len - pos < 4) return ig_err(err, -EIO, "slide page: truncated");
        size_t l = ig_ld32(p + pos);
        pos += 4;
        if (l > len - pos) return ig_err(err, -EIO, "slide page: stream past the end");
        sl->s[s] = p + pos;
        sl->sl[s] = l;
        pos += l;
    }
    if (sl->dict) {
        sl->bulk = sl->mant = NULL;
        sl->bulk_len = sl->mant_len = 0;
        return ig_slide_dict_parse(p + pos, len - pos, sl->nvalues, &sl->d, err);
    }
    if (sl->coded) {
        if (len - pos < IG_PCODE_TABLE_BYTES) return ig_err(err, -EIO, "slide page: truncated");
        sl->table = p + pos;
        if (sl->table[IG_PCODE_TABLE_BYTES - 1] >> 4)
            return ig_err(err, -EIO, "slide page: bad length code table");
        sl->bulk = NULL;
        sl->bulk_len = 0;
        sl->mant = p + pos + IG_PCODE_TABLE_BYTES;
        sl->mant_len = len - pos - IG_PCODE_TABLE_BYTES;
    } else if (sl->bits) {
        if (len - pos < 4) return ig_err(err, -EIO, "slide page: truncated");
        size_t l = ig_ld32(p + pos);
        pos += 4;
        if (l > len - pos) return ig_err(err, -EIO, "slide page: stream past the end");
        sl->bulk = p + pos;
        sl->bulk_len = l;
        sl->mant = p + pos + l;
        sl->mant_len = len - pos - l;
    } else {
        sl->bulk = p + pos;
        sl->bulk_len = len - pos;
    }
    return 0;
}

/* The number of bulk values follows from the metadata. */
int ig_slide_count_values(const uint64_t *kind, const uint64_t *lenv, const uint64_t *head,
                          const uint64_t *tail, size_t rows, size_t *nv, struct ig_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < rows; i++) {
        if (lenv[i] > IG_SLIDE_MAX_LIST || kind[i] > IG_SLIDE_KIND_EMPTY)
            return ig_err(err, -EIO, "slide page: bad row %zu", i);
        uint64_t add = kind[i] == IG_SLIDE_KIND_BASE    ? lenv[i]
                       : kind[i] == IG_SLIDE_KIND_DELTA ? head[i] + tail[i]
                                               : 0;
        if (kind[i] == IG_SLIDE_KIND_DELTA && head[i] + tail[i] > lenv[i])
            return ig_err(err, -EIO, "slide page: row %zu has more new values than values", i);
        total += add;
        if (total > ((size_t)1 << 34)) return ig_err(err, -EIO, "slide page: implausible size");
    }
    *nv = total;
    return 0;
}

/* The length code of a IG_SLIDE_BULK_CODED page, ready to decode. */
static int load_code(const struct ig_slide_page *sl, struct ig_pcode *c, struct ig_error *err)
{
    ig_pcode_load(sl->table, c);
    int rc = ig_pcode_build(c, 1);
    return rc == -ENOMEM ? ig_err(err, rc, "out of memory")
           : rc          ? ig_err(err, -EIO, "slide page: bad length code table")
                         : 0;
}

/* Every value of a bit-coded bulk (IG_SLIDE_BULK_BITS or IG_SLIDE_BULK_CODED): its bit length
 * in lens[j] and its low bits in lows[j], or, with lows NULL, the value itself
 * in lens[j]. *end gets the bit position after the last value (may be NULL);
 * for IG_SLIDE_BULK_CODED, *code the page's code when code is not NULL (the caller
 * frees it). */
int ig_slide_read_bit_bulk(const struct ig_slide_page *sl, uint64_t *lens, uint64_t *lows, uint64_t *end,
                           struct ig_pcode *code, struct ig_error *err)
{
    struct ig_pcode own = {0}, *c = code ? code : &own;
    memset(c, 0, sizeof *c);
    int rc = sl->coded
                 ? load_code(sl, c, err)
                 : ig_ints_decode(sl->bulk, sl->bulk_len, sl->nvalues, &ig_slide_meta_desc, NULL, lens, err);
    struct ig_bitreader br = {sl->mant, sl->mant_len, 0};
    for (size_t j = 0; j < sl->nvalues && !rc; j++) {
        uint64_t L = sl->coded ? 0 : lens[j], low = 0;
        if (sl->coded ? ig_slide_read_coded(&br, c, &L, &low) != 0
                      : L > 64 || (L > 1 && ig_bits_read(&br, (unsigned)L - 1, &low)))
            rc =
                ig_err(err, -EIO, "slide page: %s", L > 64 ? "bad value length" : "bits truncated");
        else if (lows)
            lens[j] = L, lows[j] = low;
        else
            lens[j] = ig_slide_from_code(L, low);
    }
    if (end) *end = br.pos;
    if (!code) ig_pcode_free(&own);
    return rc;
}

/* A row without values: a NULL list or an empty one. */
static int emit_empty(struct ig_values *out, bool null, const struct ig_leaf_info *li)
{
    uint8_t def = null ? 0 : ig_slide_empty_def(li);
    return ig_values_push_entry(out, 0, def) ? -ENOMEM : ig_values_end_row(out);
}

int ig_slide_decode(const uint8_t *p, size_t len, size_t rows, const struct ig_leaf_info *li,
                    struct ig_values *out, struct ig_error *err)
{
    struct ig_slide_page sl;
    int rc = ig_slide_parse(p, len, rows, &sl, err);
    if (rc) return rc;
    const struct ig_type_info *ti = ig_type_info(li->type);
    bool sgn = ti && ti->is_signed && !sl.raw;
    uint64_t *meta = malloc(5 * (rows + 1) * sizeof *meta);
    if (!meta) return ig_err(err, -ENOMEM, "out of memory");
    uint64_t *kind = meta, *lenv = meta + rows, *start = meta + 2 * rows, *head = meta + 3 * rows,
             *tail = meta + 4 * rows;
    for (int s = 0; s < 5 && !rc; s++)
        rc =
            ig_ints_decode(sl.s[s], sl.sl[s], rows, &ig_slide_meta_desc, NULL, meta + (size_t)s * rows, err);
    size_t nv = 0;
    if (!rc) rc = ig_slide_count_values(kind, lenv, head, tail, rows, &nv, err);
    if (!rc && nv != sl.nvalues)
        rc = ig_err(err, -EIO, "slide page: %zu values, header says %zu", nv, sl.nvalues);
    /* the output at once: grown by doubling, a page of long windows (tens of
     * MB) would be copied over and over, and come in fresh pages each time */
    size_t total = 0;
    for (size_t i = 0; !rc && i < rows; i++)
        total += (size_t)lenv[i]; /* each at most IG_SLIDE_MAX_LIST (count_values) */
    if (!rc && total <= ((size_t)1 << 27) && ig_values_reserve(out, out->n + total))
        rc = ig_err(err, -ENOMEM, "out of memory"); /* more (hostile) grows row by row */
    uint64_t *bulk = rc ? NULL : malloc((nv + 1) * sizeof *bulk);
    if (!rc && !bulk) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && (sl.bits || sl.coded)) {
        rc = ig_slide_read_bit_bulk(&sl, bulk, NULL, NULL, NULL, err);
    } else if (!rc && sl.dict) {
        rc = ig_slide_dict_values(&sl.d, bulk, err);
    } else if (!rc)
        rc = ig_ints_decode(sl.bulk, sl.bulk_len, nv, ig_slide_bulk_desc(li->type), NULL, bulk, err);
    /* each row is built in place at the end of out's lanes; its predecessor is
     * the row before it there (rows without values are skipped) */
    size_t prev_at = 0, pn = 0, at = 0;
    bool have_prev = false;
    for (size_t i = 0; i < rows && !rc; i++) {
        size_t cn = (size_t)lenv[i];
        if (kind[i] == IG_SLIDE_KIND_NULL || kind[i] == IG_SLIDE_KIND_EMPTY ||
            cn == 0) { /* the window carries over */
            rc = emit_empty(out, kind[i] == IG_SLIDE_KIND_NULL, li) ? ig_err(err, -ENOMEM, "out of memory")
                                                           : 0;
            continue;
        }
        size_t keep = kind[i] == IG_SLIDE_KIND_DELTA ? cn - head[i] - tail[i] : 0;
        if (kind[i] == IG_SLIDE_KIND_DELTA && (!have_prev || start[i] > pn || keep > pn - start[i])) {
            rc = ig_err(err, -EIO, "slide page: row %zu refers past its predecessor", i);
            break;
        }
        if (ig_values_reserve(out, out->n + cn)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        uint64_t *cur = out->lanes + out->n;
        if (kind[i] == IG_SLIDE_KIND_BASE) {
            for (size_t k = 0; k < cn; k++)
                cur[k] = unzz(bulk[at++], sgn);
        } else {
            for (size_t k = 0; k < head[i]; k++)
                cur[k] = unzz(bulk[at++], sgn);
            memcpy(cur + head[i], out->lanes + prev_at + start[i], keep * sizeof *cur);
            for (size_t k = head[i] + keep; k < cn; k++)
                cur[k] = unzz(bulk[at++], sgn);
        }
        prev_at = out->n;
        rc = ig_values_commit_list_row(out, cn, li->max_def) ? ig_err(err, -ENOMEM, "out of memory")
                                                             : 0;
        pn = cn;
        have_prev = true;
    }
    free(bulk);
    free(meta);
    return rc;
}

bool ig_slide_bulk_is_stream(const uint8_t *p, size_t len)
{
    return len > IG_SLIDE_BULK_KIND && p[IG_SLIDE_BULK_KIND] == IG_SLIDE_BULK_STREAM;
}

int ig_slide_lengths(const uint8_t *p, size_t len, size_t rows, uint64_t *lens, struct ig_error *err)
{
    struct ig_slide_page sl;
    int rc = ig_slide_parse(p, len, rows, &sl, err);
    uint64_t *kind = rc ? NULL : malloc((rows + 1) * sizeof *kind);
    if (!rc && !kind) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = ig_ints_decode(sl.s[0], sl.sl[0], rows, &ig_slide_meta_desc, NULL, kind, err);
    if (!rc) rc = ig_ints_decode(sl.s[1], sl.sl[1], rows, &ig_slide_meta_desc, NULL, lens, err);
    for (size_t i = 0; !rc && i < rows; i++) {
        if (kind[i] > IG_SLIDE_KIND_EMPTY || lens[i] > IG_SLIDE_MAX_LIST)
            rc = ig_err(err, -EIO, "slide page: bad row %zu", i);
        else if (kind[i] == IG_SLIDE_KIND_NULL || kind[i] == IG_SLIDE_KIND_EMPTY)
            lens[i] = 0; /* as the decoder reads them */
    }
    free(kind);
    return rc;
}

/* Rows decoded one after another from a base (ig_slide_row, ig_slide_picked):
 * the page parsed and its codes loaded once; `row` is the next row to decode
 * (SIZE_MAX: no walk started), `prev` the last row with values. */
struct walk {
    struct ig_slide_page sl;
    size_t rows;
    bool sgn;
    const struct ig_int_desc *bulk_desc; /* the bulk's, as one int stream */
    struct ig_pcode code;
    struct ig_slide_dict_reader dr;
    struct ig_bitreader br;
    size_t at;  /* the next bulk value */
    size_t row;
    struct ig_buf prev;
    size_t pn;
};

static void walk_close(struct walk *w)
{
    ig_pcode_free(&w->code);
    ig_slide_dict_close(&w->dr);
    ig_buf_free(&w->prev);
}

static int walk_open(struct walk *w, const uint8_t *p, size_t len, size_t rows, const struct ig_leaf_info *li,
                     struct ig_error *err)
{
    memset(w, 0, sizeof *w);
    w->rows = rows;
    w->row = SIZE_MAX;
    int rc = ig_slide_parse(p, len, rows, &w->sl, err);
    if (rc) return rc;
    const struct ig_type_info *ti = ig_type_info(li->type);
    w->sgn = ti && ti->is_signed && !w->sl.raw;
    w->bulk_desc = ig_slide_bulk_desc(li->type);
    if (w->sl.coded) rc = load_code(&w->sl, &w->code, err);
    if (!rc && w->sl.dict) rc = ig_slide_dict_open(&w->sl.d, 0, &w->dr, err); /* entries found alone */
    if (rc) walk_close(w);
    return rc;
}

/* Start the walk at the last base at or before row k, unless it is under way
 * between that base and k. */
static int walk_seek(struct walk *w, size_t k, struct ig_error *err)
{
    const struct ig_slide_page *sl = &w->sl;
    size_t lo = 0, hi = sl->nbases;
    uint64_t brow = 0;
    int rc = 0;
    while (hi - lo > 0) { /* bases are in row order */
        size_t mid = lo + (hi - lo) / 2;
        rc = ig_ints_get(sl->s[5], sl->sl[5], sl->nbases, &ig_slide_meta_desc, NULL, mid, &brow, err);
        if (rc) return rc;
        if (brow <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return ig_err(err, -EIO, "slide page: no base before row %zu", k);
    uint64_t row0, val0, bit0 = 0;
    rc = ig_ints_get(sl->s[5], sl->sl[5], sl->nbases, &ig_slide_meta_desc, NULL, lo - 1, &row0, err);
    if (!rc) rc = ig_ints_get(sl->s[6], sl->sl[6], sl->nbases, &ig_slide_meta_desc, NULL, lo - 1, &val0, err);
    if (!rc && (sl->bits || sl->coded || sl->dict))
        rc = ig_ints_get(sl->s[7], sl->sl[7], sl->nbases, &ig_slide_meta_desc, NULL, lo - 1, &bit0, err);
    if (rc) return rc;
    if (w->row != SIZE_MAX && w->row > row0 && w->row <= k) return 0; /* on its way: go on */
    w->row = (size_t)row0;
    w->at = (size_t)val0;
    w->br = (struct ig_bitreader){sl->mant, sl->mant_len, bit0};
    w->dr.br.pos = bit0;
    w->pn = 0;
    ig_buf_reset(&w->prev);
    return 0;
}

/* The next bulk value of the walk. */
static int walk_value(struct walk *w, size_t r, uint64_t *x, struct ig_error *err)
{
    const struct ig_slide_page *sl = &w->sl;
    int rc = 0;
    if (w->at >= sl->nvalues) return ig_err(err, -EIO, "slide page: row %zu reads past the bulk", r);
    if (sl->dict) {
        w->at++;
        rc = ig_slide_dict_next(&w->dr, x, err);
    } else if (sl->coded) {
        uint64_t L = 0, mm = 0;
        w->at++;
        if (ig_slide_read_coded(&w->br, &w->code, &L, &mm)) rc = ig_err(err, -EIO, "slide page: bits truncated");
        *x = rc ? 0 : ig_slide_from_code(L, mm);
    } else {
        rc = ig_ints_get(sl->bulk, sl->bulk_len, sl->nvalues, w->bulk_desc, NULL, w->at++, x, err);
    }
    if (!rc && sl->bits) {
        uint64_t mm = 0;
        if (*x > 64 || (*x > 1 && ig_bits_read(&w->br, (unsigned)*x - 1, &mm)))
            rc = ig_err(err, -EIO, "slide page: bits truncated");
        *x = rc ? 0 : ig_slide_from_code(*x, mm);
    }
    return rc;
}

/* Row k into vec (n values; *is_null for a NULL row), walking from where the
 * walk is or from the last base before k. */
static int walk_to(struct walk *w, size_t k, struct ig_buf *vec, size_t *n, bool *is_null, struct ig_error *err)
{
    const struct ig_slide_page *sl = &w->sl;
    if (k >= w->rows) return ig_err(err, -EINVAL, "row %zu out of range", k);
    uint64_t kk;
    int rc = ig_ints_get(sl->s[0], sl->sl[0], w->rows, &ig_slide_meta_desc, NULL, k, &kk, err);
    if (rc) return rc;
    *n = 0;
    ig_buf_reset(vec);
    *is_null = kk == IG_SLIDE_KIND_NULL;
    if (kk == IG_SLIDE_KIND_NULL || kk == IG_SLIDE_KIND_EMPTY) return 0; /* the walk needs no step */
    rc = walk_seek(w, k, err);
    /* the bulk holds at most what the rows from the base need: bound by the page */
    for (size_t r = w->row; r <= k && !rc; r++) {
        uint64_t m[5];
        for (int s = 0; s < 5 && !rc; s++)
            rc = ig_ints_get(sl->s[s], sl->sl[s], w->rows, &ig_slide_meta_desc, NULL, r, &m[s], err);
        if (rc) break;
        w->row = r + 1;
        if (m[0] == IG_SLIDE_KIND_NULL || m[0] == IG_SLIDE_KIND_EMPTY) continue; /* the window carries over */
        if (m[0] > IG_SLIDE_KIND_DELTA || m[1] > IG_SLIDE_MAX_LIST ||
            (m[0] == IG_SLIDE_KIND_DELTA && m[3] + m[4] > m[1])) {
            rc = ig_err(err, -EIO, "slide page: bad row %zu", r);
            break;
        }
        size_t cn = (size_t)m[1], keep = m[0] == IG_SLIDE_KIND_DELTA ? cn - m[3] - m[4] : 0;
        ig_buf_reset(vec);
        if (ig_buf_reserve(vec, cn * 8 + 8)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        uint64_t *cur = (uint64_t *)vec->data;
        const uint64_t *prev = (const uint64_t *)w->prev.data;
        if (m[0] == IG_SLIDE_KIND_DELTA && (m[2] > w->pn || keep > w->pn - m[2])) {
            rc = ig_err(err, -EIO, "slide page: row %zu refers past its predecessor", r);
            break;
        }
        size_t news = m[0] == IG_SLIDE_KIND_BASE ? cn : (size_t)(m[3] + m[4]);
        for (size_t j = 0, out = 0; j < news && !rc; j++, out++) {
            uint64_t x = 0;
            if (m[0] == IG_SLIDE_KIND_DELTA && j == m[3]) out += keep; /* the tail follows the kept run */
            rc = walk_value(w, r, &x, err);
            cur[out] = unzz(x, w->sgn);
        }
        if (m[0] == IG_SLIDE_KIND_DELTA) memcpy(cur + m[3], prev + m[2], keep * 8);
        vec->len = cn * 8;
        ig_buf_reset(&w->prev);
        if (!rc && ig_buf_append(&w->prev, cur, cn * 8)) rc = ig_err(err, -ENOMEM, "out of memory");
        w->pn = cn;
        *n = cn;
    }
    if (rc) w->row = SIZE_MAX; /* start again from a base */
    return rc;
}

int ig_slide_row(const uint8_t *p, size_t len, size_t rows, size_t k, const struct ig_leaf_info *li,
                 struct ig_buf *vec, size_t *n, bool *is_null, struct ig_error *err)
{
    struct walk w;
    int rc = walk_open(&w, p, len, rows, li, err);
    if (rc) return rc;
    rc = walk_to(&w, k, vec, n, is_null, err);
    walk_close(&w);
    return rc;
}

/* A page of at most this many bytes gives picked rows by decoding it whole:
 * its streams decode in bulk, where a walk gets each metadata field and each
 * value alone, through the stream's scheme (a list of floats slides in pages
 * of ~8 KiB, whose walks cost 3x a row read of level streams). */
#define IG_SLIDE_WHOLE_BYTES (16u << 10)

/* One picked row appended to out: cnt lanes, or (cnt 0) a NULL or empty
 * list's one entry at definition level def, as ig_slide_decode gives it. */
static int append_row(struct ig_values *out, const uint64_t *lanes, size_t cnt, uint8_t def,
                      const struct ig_leaf_info *li, struct ig_error *err)
{
    int rc;
    if (!cnt)
        rc = ig_values_push_entry(out, 0, def) || ig_values_end_row(out);
    else if (!(rc = ig_values_reserve(out, out->n + cnt))) {
        memcpy(out->lanes + out->n, lanes, cnt * sizeof *out->lanes);
        rc = ig_values_commit_list_row(out, cnt, li->max_def);
    }
    return rc ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

static int picked_whole(const uint8_t *p, size_t len, size_t rows, const uint8_t *pick, const struct ig_leaf_info *li,
                        struct ig_values *whole, struct ig_values *out, struct ig_error *err)
{
    struct ig_values own, *all = whole ? whole : &own;
    if (!whole) memset(&own, 0, sizeof own);
    ig_values_retype(all, li->type);
    all->levels = true;
    all->per_value = 1;
    ig_values_reset(all);
    int rc = ig_slide_decode(p, len, rows, li, all, err);
    for (size_t k = 0; k < rows && !rc; k++) {
        if (!((pick[k / 8] >> (k % 8)) & 1)) continue;
        size_t v0 = all->row_val[k];
        rc = append_row(out, all->lanes + v0, all->row_val[k + 1] - v0, all->defs[all->row_ent[k]], li, err);
    }
    if (!whole) ig_values_free(&own);
    return rc;
}

int ig_slide_picked(const uint8_t *p, size_t len, size_t rows, const uint8_t *pick, const struct ig_leaf_info *li,
                    struct ig_values *whole, struct ig_values *out, struct ig_error *err)
{
    if (len <= IG_SLIDE_WHOLE_BYTES) return picked_whole(p, len, rows, pick, li, whole, out, err);
    struct walk w;
    int rc = walk_open(&w, p, len, rows, li, err);
    if (rc) return rc;
    struct ig_buf row = IG_BUF_INIT;
    for (size_t k = 0; k < rows && !rc; k++) {
        if (!((pick[k / 8] >> (k % 8)) & 1)) continue;
        size_t cnt = 0;
        bool is_null = false;
        rc = walk_to(&w, k, &row, &cnt, &is_null, err);
        if (!rc) rc = append_row(out, (const uint64_t *)row.data, cnt, is_null ? 0 : ig_slide_empty_def(li), li, err);
    }
    ig_buf_free(&row);
    walk_close(&w);
    return rc;
}
