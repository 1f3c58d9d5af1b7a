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

struct slide {
    size_t rows, nbases;
    bool bits;  /* IG_SLIDE_BULK_BITS */
    bool coded; /* IG_SLIDE_BULK_CODED: code holds the table, mant the whole bit stream */
    bool dict;  /* IG_SLIDE_BULK_DICT: the bulk in d */
    struct ig_slide_dict d;
    bool raw;   /* values not zigzagged even if the type is signed */
    const uint8_t *table;
    const uint8_t *s[8]; /* the eight metadata streams */
    size_t sl[8];
    const uint8_t *bulk; /* kind 0: the int stream; kind 1: the lengths stream */
    size_t bulk_len;
    const uint8_t *mant; /* kind 1: mantissa bits */
    size_t mant_len;
    size_t nvalues; /* values in the bulk */
};

static int parse(const uint8_t *p, size_t len, size_t rows, struct slide *sl, struct ig_error *err)
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
static int count_values(const uint64_t *kind, const uint64_t *lenv, const uint64_t *head,
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
static int load_code(const struct slide *sl, struct ig_pcode *c, struct ig_error *err)
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
static int read_bit_bulk(const struct slide *sl, uint64_t *lens, uint64_t *lows, uint64_t *end,
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
    uint8_t def = null ? 0 : (uint8_t)(li->max_def - 1);
    return ig_values_push_entry(out, 0, def) ? -ENOMEM : ig_values_end_row(out);
}

int ig_slide_decode(const uint8_t *p, size_t len, size_t rows, const struct ig_leaf_info *li,
                    struct ig_values *out, struct ig_error *err)
{
    struct slide sl;
    int rc = parse(p, len, rows, &sl, err);
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
    if (!rc) rc = count_values(kind, lenv, head, tail, rows, &nv, err);
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
        rc = read_bit_bulk(&sl, bulk, NULL, NULL, NULL, err);
    } else if (!rc && sl.dict) {
        rc = ig_slide_dict_values(&sl.d, bulk, err);
    } else if (!rc)
        rc = ig_ints_decode(sl.bulk, sl.bulk_len, nv, &ig_slide_meta_desc, NULL, bulk, err);
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

int ig_slide_lengths(const uint8_t *p, size_t len, size_t rows, uint64_t *lens, struct ig_error *err)
{
    struct slide sl;
    int rc = parse(p, len, rows, &sl, err);
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
    struct slide sl;
    size_t rows;
    bool sgn;
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
    int rc = parse(p, len, rows, &w->sl, err);
    if (rc) return rc;
    const struct ig_type_info *ti = ig_type_info(li->type);
    w->sgn = ti && ti->is_signed && !w->sl.raw;
    if (w->sl.coded) rc = load_code(&w->sl, &w->code, err);
    if (!rc && w->sl.dict) rc = ig_slide_dict_open(&w->sl.d, 0, &w->dr, err); /* entries found alone */
    if (rc) walk_close(w);
    return rc;
}

/* Start the walk at the last base at or before row k, unless it is under way
 * between that base and k. */
static int walk_seek(struct walk *w, size_t k, struct ig_error *err)
{
    const struct slide *sl = &w->sl;
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
    const struct slide *sl = &w->sl;
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
        rc = ig_ints_get(sl->bulk, sl->bulk_len, sl->nvalues, &ig_slide_meta_desc, NULL, w->at++, x, err);
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
    const struct slide *sl = &w->sl;
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

int ig_slide_picked(const uint8_t *p, size_t len, size_t rows, const uint8_t *pick, const struct ig_leaf_info *li,
                    struct ig_values *out, struct ig_error *err)
{
    struct walk w;
    int rc = walk_open(&w, p, len, rows, li, err);
    if (rc) return rc;
    struct ig_buf row = IG_BUF_INIT;
    for (size_t k = 0; k < rows && !rc; k++) {
        if (!((pick[k / 8] >> (k % 8)) & 1)) continue;
        size_t cnt = 0;
        bool is_null = false;
        rc = walk_to(&w, k, &row, &cnt, &is_null, err);
        if (rc) break;
        if (!cnt) { /* a NULL or empty list: one entry, as ig_slide_decode gives it */
            uint8_t def = is_null ? 0 : (uint8_t)(li->max_def - 1);
            if (ig_values_push_entry(out, 0, def) || ig_values_end_row(out)) rc = ig_err(err, -ENOMEM, "out of memory");
            continue;
        }
        if (ig_values_reserve(out, out->n + cnt)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        memcpy(out->lanes + out->n, row.data, cnt * sizeof *out->lanes);
        if (ig_values_commit_list_row(out, cnt, li->max_def)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    ig_buf_free(&row);
    walk_close(&w);
    return rc;
}

/* ---- erasure ---------------------------------------------------------------
 *
 * A deleted row keeps its place in the chain of windows (its kind and lengths
 * stay, so the rows after it still decode), but every value it added to the bulk
 * that no live row reads any more is zeroed: dropped from the bit-length code
 * (length 0, its bits compacted away), written as the prefix code's length 0
 * (which the encoder made no longer than any value it replaces, low bits
 * included; the code table stays) or erased by the int stream's own rule.
 * Values a later live row still reads through the chain are that row's data and
 * stay. Nothing grows: the streams only lose bits, and the base bit offsets
 * (bit-packed) only get smaller. */

struct meta {
    uint64_t *a;                  /* 5 x rows: kind, len, start, head, tail */
    uint64_t *brow, *bval, *bbit; /* nbases each */
    size_t *first;                /* rows: bulk index of each row's first own value */
    size_t *lo, *hi;              /* rows: positions of its vector a live row reads */
};

static void free_meta(struct meta *m)
{
    free(m->a);
    free(m->brow);
    free(m->first);
}

static int load_meta(const struct slide *sl, struct meta *m, struct ig_error *err)
{
    size_t rows = sl->rows, nb = sl->nbases;
    *m = (struct meta){0};
    m->a = malloc((5 * rows + 1) * sizeof *m->a);
    m->brow = malloc((3 * nb + 1) * sizeof *m->brow);
    m->first = malloc((3 * rows + 1) * sizeof *m->first);
    if (!m->a || !m->brow || !m->first) {
        free_meta(m);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    m->bval = m->brow + nb;
    m->bbit = m->brow + 2 * nb;
    m->lo = m->first + rows;
    m->hi = m->first + 2 * rows;
    int rc = 0;
    for (int s = 0; s < 5 && !rc; s++)
        rc = ig_ints_decode(sl->s[s], sl->sl[s], rows, &ig_slide_meta_desc, NULL, m->a + (size_t)s * rows,
                            err);
    for (int s = 0; s < 3 && !rc; s++)
        rc = ig_ints_decode(sl->s[5 + s], sl->sl[5 + s], nb, &ig_slide_meta_desc, NULL,
                            m->brow + (size_t)s * nb, err);
    size_t nv = 0;
    if (!rc) rc = count_values(m->a, m->a + rows, m->a + 3 * rows, m->a + 4 * rows, rows, &nv, err);
    if (!rc && nv != sl->nvalues)
        rc = ig_err(err, -EIO, "slide page: %zu values, header says %zu", nv, sl->nvalues);
    if (rc) free_meta(m);
    return rc;
}

/* Which bulk values hold nothing a live row reads (dead: nvalues bits). */
static int dead_values(const struct slide *sl, struct meta *m, const uint8_t *deleted,
                       uint8_t *dead, struct ig_error *err)
{
    size_t rows = sl->rows;
    const uint64_t *kind = m->a, *lenv = m->a + rows, *start = m->a + 2 * rows,
                   *head = m->a + 3 * rows, *tail = m->a + 4 * rows;
    size_t at = 0;
    for (size_t j = 0; j < rows; j++) {
        m->first[j] = at;
        at += kind[j] == IG_SLIDE_KIND_BASE ? lenv[j] : kind[j] == IG_SLIDE_KIND_DELTA ? head[j] + tail[j] : 0;
    }
    /* backwards: a deleted row's needed positions are those the next row with
     * values keeps from it and itself needs (live rows need all of theirs) */
    size_t next = SIZE_MAX;
    for (size_t j = rows; j-- > 0;) {
        if (kind[j] != IG_SLIDE_KIND_BASE && kind[j] != IG_SLIDE_KIND_DELTA) continue;
        m->lo[j] = m->hi[j] = 0;
        if (!ig_slide_bit(deleted, j)) {
            m->hi[j] = lenv[j];
        } else if (next != SIZE_MAX && kind[next] == IG_SLIDE_KIND_DELTA) {
            size_t h = head[next], keep = lenv[next] - head[next] - tail[next], s = start[next];
            if (s > lenv[j] || keep > lenv[j] - s)
                return ig_err(err, -EIO, "slide page: row %zu refers past its predecessor", next);
            size_t a = m->lo[next] > h ? m->lo[next] : h;
            size_t b = m->hi[next] < h + keep ? m->hi[next] : h + keep;
            if (a < b) m->lo[j] = s + a - h, m->hi[j] = s + b - h;
        }
        next = j;
    }
    memset(dead, 0, (sl->nvalues + 7) / 8);
    for (size_t j = 0; j < rows; j++) {
        if (!ig_slide_bit(deleted, j) || (kind[j] != IG_SLIDE_KIND_BASE && kind[j] != IG_SLIDE_KIND_DELTA)) continue;
        size_t n = lenv[j], h = kind[j] == IG_SLIDE_KIND_BASE ? n : head[j],
               t = kind[j] == IG_SLIDE_KIND_BASE ? 0 : tail[j];
        for (size_t q = 0; q < h + t; q++) {
            size_t pos = q < h ? q : n - t + (q - h); /* head values, then tail values */
            if (pos < m->lo[j] || pos >= m->hi[j]) {
                size_t v = m->first[j] + q;
                dead[v / 8] |= (uint8_t)(1u << (v % 8));
            }
        }
    }
    return 0;
}

/* Parse a page and find its dead values (the start of erasing and of checking
 * it). On success the caller frees *dead and free_meta(m). */
static int open_dead(const uint8_t *p, size_t len, size_t rows, const uint8_t *deleted,
                     struct slide *sl, struct meta *m, uint8_t **dead, struct ig_error *err)
{
    int rc = parse(p, len, rows, sl, err);
    if (!rc) rc = load_meta(sl, m, err);
    if (rc) return rc;
    *dead = malloc(sl->nvalues / 8 + 1);
    rc = *dead ? dead_values(sl, m, deleted, *dead, err) : ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        free(*dead);
        free_meta(m);
    }
    return rc;
}

/* Append a u32-prefixed copy of stream s (the prefix sits just before it). */
static int copy_stream(struct ig_buf *out, const uint8_t *s, size_t len)
{
    return ig_buf_append_u32(out, (uint32_t)len) || ig_buf_append(out, s, len) ? -ENOMEM : 0;
}

/* Erase positions `dead` of int stream s in a copy appended to out (prefixed with
 * its new length when `prefixed`); never longer than s. */
static int erase_stream(struct ig_buf *out, const uint8_t *s, size_t len, size_t n,
                        const uint8_t *dead, bool prefixed, struct ig_error *err)
{
    size_t at = out->len;
    if (prefixed && ig_buf_append_u32(out, 0)) return ig_err(err, -ENOMEM, "out of memory");
    size_t pos = out->len;
    if (ig_buf_append(out, s, len)) return ig_err(err, -ENOMEM, "out of memory");
    size_t new_len = len;
    int rc = ig_ints_erase_drops(s, len)
                 ? -ENOSPC
                 : ig_ints_erase(out->data + pos, len, n, &ig_slide_meta_desc, NULL, dead, &new_len, err);
    if (rc == -ENOSPC) { /* the scheme cannot: re-encode the values with zeros */
        uint64_t *v = malloc((n + 1) * sizeof *v);
        if (!v) return ig_err(err, -ENOMEM, "out of memory");
        rc = ig_ints_decode(s, len, n, &ig_slide_meta_desc, NULL, v, err);
        for (size_t i = 0; !rc && i < n; i++)
            if (ig_slide_bit(dead, i)) v[i] = 0;
        out->len = pos;
        if (!rc) rc = ig_ints_encode_erased(v, n, &ig_slide_meta_desc, dead, out, err);
        free(v);
        if (!rc && out->len - pos > len)
            return ig_err(err, -ENOSPC, "slide page: erasing would grow a stream");
        new_len = out->len - pos;
    }
    if (rc) return rc;
    out->len = pos + new_len;
    if (prefixed) ig_st32(out->data + at, (uint32_t)new_len);
    return 0;
}

/* The rest of a bit-coded page (IG_SLIDE_BULK_BITS or IG_SLIDE_BULK_CODED) with its dead values
 * made length 0 and their low bits dropped, appended to out: the base bit
 * offsets, then the lengths stream (erased by its own rule) or the code table
 * (kept: length 0's code is no longer than any value's code and low bits),
 * then the bits. Each value only loses bits, so nothing grows. */
static int erase_bit_bulk(const struct slide *sl, const struct meta *m, const uint8_t *dead,
                          struct ig_buf *out, struct ig_error *err)
{
    struct ig_pcode code = {0};
    uint64_t *lens = malloc((sl->nvalues + 1) * sizeof *lens);
    uint64_t *lows = malloc((sl->nvalues + 1) * sizeof *lows);
    uint64_t *bbit = malloc((sl->nbases + 1) * sizeof *bbit);
    int rc = lens && lows && bbit ? read_bit_bulk(sl, lens, lows, NULL, &code, err)
                                  : ig_err(err, -ENOMEM, "out of memory");
    uint64_t bits = 0;
    size_t b = 0;
    for (size_t j = 0; !rc && j < sl->nvalues; j++) {
        if (ig_slide_bit(dead, j)) lens[j] = lows[j] = 0;
        while (b < sl->nbases && m->bval[b] == j)
            bbit[b++] = bits;
        bits += (sl->coded ? code.len[lens[j]] : 0) + (lens[j] > 1 ? lens[j] - 1 : 0);
    }
    while (!rc && b < sl->nbases)
        bbit[b++] = bits;
    size_t at = out->len;
    if (!rc) rc = ig_slide_put_stream(out, bbit, sl->nbases, IG_ENC_BITPACK, true, err);
    if (!rc && out->len - at > sl->sl[7] + 4)
        rc = ig_err(err, -ENOSPC, "slide page: base offsets grew");
    if (!rc && sl->coded && ig_buf_append(out, sl->table, IG_PCODE_TABLE_BYTES))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && !sl->coded)
        rc = erase_stream(out, sl->bulk, sl->bulk_len, sl->nvalues, dead, true, err);
    size_t nbytes = (size_t)((bits + 7) / 8);
    uint8_t *dst = rc ? NULL : ig_buf_extend(out, nbytes + 8);
    if (!rc && !dst) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        memset(dst, 0, nbytes + 8);
        uint64_t pos = 0;
        for (size_t j = 0; j < sl->nvalues; j++) {
            if (sl->coded) put_bits(dst, &pos, code.code[lens[j]], code.len[lens[j]]);
            if (lens[j] > 1) put_bits(dst, &pos, lows[j], (unsigned)lens[j] - 1);
        }
        out->len -= 8; /* the slack was only for the writes */
    }
    free(lens);
    free(lows);
    free(bbit);
    ig_pcode_free(&code);
    return rc;
}

int ig_slide_erase(const uint8_t *p, size_t len, size_t rows, const uint8_t *deleted,
                   struct ig_buf *out, struct ig_error *err)
{
    struct slide sl;
    struct meta m;
    uint8_t *dead;
    int rc = open_dead(p, len, rows, deleted, &sl, &m, &dead, err);
    if (rc) return rc;
    size_t base = out->len;
    if (!rc && ig_buf_append(out, p, 16)) rc = ig_err(err, -ENOMEM, "out of memory");
    for (int s = 0; s < 7 && !rc; s++)
        if (copy_stream(out, sl.s[s], sl.sl[s])) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && sl.dict) { /* dead values' codes become 0, entries only they used are zeroed */
        rc = ig_slide_dict_erase(&sl.d, m.bval, sl.nbases, dead, sl.sl[7], out, err);
    } else if (!rc && (sl.bits || sl.coded)) { /* dead values become length 0, their bits go */
        rc = erase_bit_bulk(&sl, &m, dead, out, err);
    } else if (!rc) { /* the bulk is one int stream: its own erase rule */
        if (copy_stream(out, sl.s[7], sl.sl[7])) rc = ig_err(err, -ENOMEM, "out of memory");
        if (!rc) rc = erase_stream(out, sl.bulk, sl.bulk_len, sl.nvalues, dead, false, err);
    }
    if (!rc && out->len - base > len)
        rc = ig_err(err, -ENOSPC, "slide page: erasing would grow the page");
    free(dead);
    free_meta(&m);
    return rc;
}

int ig_slide_check_erased(const uint8_t *p, size_t len, size_t rows, const uint8_t *deleted,
                          struct ig_error *err)
{
    struct slide sl;
    struct meta m;
    uint8_t *dead;
    int rc = open_dead(p, len, rows, deleted, &sl, &m, &dead, err);
    if (rc) return rc;
    /* dead values hold nothing: by the lengths stream's rule, or length 0, or
     * code 0 (and the dictionary holds nothing only they used) */
    if (sl.dict)
        rc = ig_slide_dict_check(&sl.d, dead, err);
    else if (!sl.coded)
        rc = ig_ints_check_erased(sl.bulk, sl.bulk_len, sl.nvalues, &ig_slide_meta_desc, NULL, dead, err);
    if (!rc && (sl.bits || sl.coded)) { /* and no bits linger past the live ones */
        uint64_t *lens = malloc((sl.nvalues + 1) * sizeof *lens);
        uint64_t *lows = malloc((sl.nvalues + 1) * sizeof *lows), end = 0;
        rc = lens && lows ? read_bit_bulk(&sl, lens, lows, &end, NULL, err)
                          : ig_err(err, -ENOMEM, "out of memory");
        for (size_t j = 0; !rc && j < sl.nvalues; j++)
            if (ig_slide_bit(dead, j) && lens[j] != 0)
                rc = ig_err(err, -EIO, "slide page: erased value %zu still holds data", j);
        if (!rc && !ig_bits_zero_from(sl.mant, sl.mant_len, end))
            rc = ig_err(err, -EIO, "slide page: bits of erased values remain past bit %" PRIu64, end);
        free(lens);
        free(lows);
    }
    free(dead);
    free_meta(&m);
    return rc;
}
