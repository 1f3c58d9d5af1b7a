/* slide_encode.c - writing sliding-window pages (slide.h): each row is found
 * as a base or a delta against the row before it with values, then the bulk of
 * new values is coded four ways (the fourth, a dictionary: slide_dict.c) and
 * the smallest kept. */
#include "format/page/slide.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/page/page.h"
#include "format/page/slide_int.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pcode.h"
#include "util/u64vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH 64 /* how far heads and starts are searched */

bool ig_slide_fits(const struct ig_leaf_info *li, unsigned lists, unsigned null_mask)
{
    const struct ig_type_info *ti = ig_type_info(li->type);
    return lists == 1 && li->item_nulls == ((null_mask & 2) != 0) && li->max_rep == 1 && ti &&
           ti->phys == IG_PHYS_LANES && li->type != IG_T_BOOL && !li->quantize &&
           li->per_value <= 1;
}

uint8_t ig_slide_empty_def(const struct ig_leaf_info *li)
{
    return (uint8_t)(li->max_def - 1 - (li->item_nulls ? 1 : 0));
}

bool ig_slide_page_fits(const struct ig_leaf_info *li, const struct ig_values *v, size_t first, size_t count)
{
    if (!li->item_nulls) return true;
    uint8_t null_item = (uint8_t)(li->max_def - 1);
    for (size_t e = v->row_ent[first]; e < v->row_ent[first + count]; e++)
        if (v->defs[e] == null_item) return false;
    return true;
}

static int put_meta(struct ig_buf *b, const uint64_t *v, size_t n, struct ig_error *err)
{
    return ig_slide_put_stream(b, v, n, IG_ENC_AUTO, false, err);
}

/* best_run's heads by value: an open-addressed table of HEAD_SLOTS slots
 * (the SEARCH + 1 heads fill at most a quarter), each 0 or a head's h + 1.
 * Heads are added in order of h and found by linear probing, so equal values
 * are met in order of h, as a scan of the heads meets them. */
#define HEAD_SLOTS 256
static inline unsigned head_slot(uint64_t x)
{
    return (unsigned)((x * 0x9E3779B97F4A7C15ULL) >> 56);
}

/* Longest run cur[h..] == prev[s..]. */
static size_t run(const uint64_t *cur, size_t n, size_t h, const uint64_t *prev, size_t pn,
                  size_t s)
{
    size_t k = 0;
    while (h + k < n && s + k < pn && cur[h + k] == prev[s + k])
        k++;
    return k;
}

/* The best way to write cur against prev: the longest run of prev (from prev[s])
 * found at cur[h], trying small s and h and stopping once no later s can do
 * better. Returns the run length (0: write cur as a base). */
static size_t best_run(const uint64_t *prev, size_t pn, const uint64_t *cur, size_t cn, size_t *bh,
                       size_t *bs)
{
    size_t best = 0;
    *bh = *bs = 0;
    if (!prev || pn == 0 || cn == 0) return 0;
    /* a start is tried only against the heads that hold its value: rows that
     * share nothing, as random ids mostly do, cost O(pn + cn), not pn * cn */
    uint8_t heads[HEAD_SLOTS] = {0};
    for (size_t h = 0; h < cn && h <= SEARCH; h++) {
        unsigned q = head_slot(cur[h]);
        while (heads[q])
            q = (q + 1) % HEAD_SLOTS;
        heads[q] = (uint8_t)(h + 1);
    }
    for (size_t s = 0; s < pn && s <= SEARCH && best < pn - s; s++)
        for (unsigned q = head_slot(prev[s]); heads[q]; q = (q + 1) % HEAD_SLOTS) {
            size_t h = heads[q] - 1u;
            if (cur[h] != prev[s]) continue;
            size_t k = run(cur, cn, h, prev, pn, s);
            if (k > best) best = k, *bh = h, *bs = s;
            /* a run that reaches either end cannot be beaten from a later h;
             * a shorter one may be a new id that repeats an old one (small
             * ids are frequent), with the real overlap further on */
            if (k == pn - s || h + k == cn) break;
        }
    /* a short run does not pay for its metadata unless it is the whole row */
    return best >= 4 || (best > 0 && best == cn) ? best : 0;
}

bool ig_slide_rows_slide(const struct ig_values *v, size_t first, size_t count)
{
    const uint64_t *prev = NULL;
    size_t pn = 0, with = 0, kept = 0;
    for (size_t r = first; r < first + count; r++) {
        const uint64_t *cur = v->lanes + v->row_val[r];
        size_t cn = v->row_val[r + 1] - v->row_val[r], h, s;
        if (!cn) continue; /* rows without values are transparent */
        with++;
        kept += best_run(prev, pn, cur, cn, &h, &s) > 0;
        prev = cur;
        pn = cn;
    }
    return with && 2 * kept >= with;
}

uint64_t ig_slide_sizer_row(struct ig_slide_sizer *z, const uint64_t *prev, size_t pn, const uint64_t *cur,
                            size_t cn, bool sgn)
{
    size_t h, st, keep = best_run(prev, pn, cur, cn, &h, &st);
    if (z->chain >= IG_SLIDE_MAX_CHAIN) keep = 0; /* a base, as plan_windows writes it */
    if (cn) z->chain = keep ? z->chain + 1 : 0;   /* rows without values are transparent */
    uint64_t bits = 8; /* the row's share of the metadata streams */
    /* a repeat as a dictionary index: about log2 of the distinct values, plus its length's code */
    uint64_t index_bits = 3 + ig_bit_len(z->seen.n);
    for (size_t k = 0; k < cn; k++) {
        if (keep && k == h) k += keep; /* the kept run costs nothing */
        if (k >= cn) break;
        uint64_t x = zz(cur[k], sgn && (int64_t)cur[k] < 0); /* pages of non-negative ids: raw */
        uint64_t coded = 5 + (x > 1 ? ig_bit_len(x) - 1 : 0); /* length code + bits */
        bool seen = false; /* out of memory: counted as new */
        if (x && ig_u64map_add(&z->seen, x, 1, &seen)) seen = false;
        bool cheaper = seen && index_bits < coded;
        bits += cheaper ? index_bits : coded;
        z->saved += cheaper ? coded - index_bits : 0;
    }
    return bits;
}

void ig_slide_sizer_start(struct ig_slide_sizer *z)
{
    z->saved = 0;
    z->chain = 0;
    if (z->seen.cap) (void)ig_u64map_reset(&z->seen, 0); /* keeps its memory: cannot fail */
}

void ig_slide_sizer_free(struct ig_slide_sizer *z)
{
    ig_u64map_free(&z->seen);
    z->saved = 0;
}


/* The bulk as IG_SLIDE_BULK_CODED into out (table, then the bit stream), with each
 * base's bit offset in cbit; false when no code fits (then *rc is 0). */
static bool code_bulk(const uint64_t *vals, const uint64_t *lens, size_t n,
                      const struct ig_u64vec *bval, uint64_t *cbit, struct ig_buf *out, int *rc)
{
    struct ig_pcode c;
    if (!ig_slide_length_code(lens, n, true, &c)) return false;
    uint64_t bits = 0;
    for (size_t j = 0; j < n; j++)
        bits += c.len[lens[j]] + (lens[j] > 1 ? lens[j] - 1 : 0);
    size_t nbytes = (size_t)((bits + 7) / 8);
    uint8_t *o = ig_buf_extend(out, IG_PCODE_TABLE_BYTES + nbytes + 8);
    if (!o) {
        *rc = -ENOMEM;
        return false;
    }
    memset(o, 0, IG_PCODE_TABLE_BYTES + nbytes + 8);
    ig_pcode_store(&c, o);
    struct ig_bitwriter bw = {.dst = o + IG_PCODE_TABLE_BYTES};
    size_t b = 0;
    for (size_t j = 0; j < n; j++) {
        while (b < bval->n && bval->v[b] == j)
            cbit[b++] = bw.pos;
        ig_bw_put(&bw, c.code[lens[j]], c.len[lens[j]]);
        if (lens[j] > 1) ig_bw_put(&bw, vals[j], (unsigned)lens[j] - 1);
    }
    ig_bw_flush(&bw);
    while (b < bval->n)
        cbit[b++] = bw.pos;
    out->len -= 8; /* the slack was only for the writes */
    return true;
}


/* ---- phase 1: every row as a base or a delta ---------------------------------- */

/* Per row its kind, length, start, head and tail (meta: IG_SLIDE_STREAMS - 3
 * streams of n), the values it adds (bulk), and each base's row and the bulk
 * index of its first value. */
struct windows {
    size_t n;
    struct ig_u64vec meta, bulk, brow, bval;
    bool raw;   /* a signed column's values stored without zigzag (none negative) */
    bool floats; /* the bulk holds float lanes (format 21) */
};

/* bases_only: every row with values a base (the bulk in bytes:
 * ig_slide_encode_bytes); sgn: values zigzagged */
static int plan_windows(const struct ig_values *v, size_t first, size_t count,
                        const struct ig_leaf_info *li, bool sgn, bool bases_only, struct windows *w)
{
    size_t n = w->n = count;
    w->bulk.n = w->brow.n = w->bval.n = 0;
    if (ig_u64vec_size(&w->meta, 5 * (n + 1))) return -ENOMEM;
    memset(w->meta.v, 0, 5 * (n + 1) * sizeof *w->meta.v);
    uint64_t *kind = w->meta.v, *lenv = kind + n, *start = kind + 2 * n, *head = kind + 3 * n,
             *tail = kind + 4 * n;
    const uint64_t *prev = NULL;
    const bool floats = ig_type_info(li->type)->is_float;
    size_t pn = 0, chain = 0; /* chain: deltas since the last base */
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        size_t r = first + i;
        size_t e0 = v->row_ent[r], e1 = v->row_ent[r + 1];
        size_t v0 = v->row_val[r], v1 = v->row_val[r + 1];
        const uint64_t *cur = v->lanes + v0;
        size_t cn = v1 - v0;
        if (e1 - e0 == 1 && v->defs[e0] < li->max_def) {
            /* no values: the window carries over to the next row with values,
             * so erasing a row (which empties it) rarely costs its successor */
            kind[i] = ig_slide_empty_def(li) == 1 && v->defs[e0] == 0 ? IG_SLIDE_KIND_NULL : IG_SLIDE_KIND_EMPTY;
            continue;
        }
        lenv[i] = cn;
        size_t bh = 0, bs = 0,
               best = !bases_only && chain < IG_SLIDE_MAX_CHAIN ? best_run(prev, pn, cur, cn, &bh, &bs) : 0;
        /* a run of under a quarter of the row (a word two rows of text share)
         * saves little and chains the row to the one before, which a row read
         * then walks: a base instead (lists of floats' pages are decoded whole) */
        if (best * 4 < cn && !floats) best = 0;
        chain = best ? chain + 1 : 0;
        if (best) {
            kind[i] = IG_SLIDE_KIND_DELTA;
            start[i] = bs;
            head[i] = bh;
            tail[i] = cn - bh - best;
        } else {
            kind[i] = IG_SLIDE_KIND_BASE;
            rc = ig_u64vec_push(&w->brow, i);
            if (!rc) rc = ig_u64vec_push(&w->bval, w->bulk.n);
        }
        for (size_t k = 0; k < cn && !rc; k++) { /* the values the row adds */
            if (best && k == bh) k += best;       /* the kept run costs nothing */
            if (k < cn) rc = ig_u64vec_push(&w->bulk, zz(cur[k], sgn));
        }
        prev = cur;
        pn = cn;
    }
    return rc;
}

/* ---- phase 2: the bulk four ways -------------------------------------------- */

struct bulk_ways {
    struct ig_buf stream, bits, coded, dict; /* IG_SLIDE_BULK_STREAM, _BITS, _CODED, _DICT */
    struct ig_u64vec lens;                   /* bit length of each bulk value */
    struct ig_u64vec bbit, cbit, dbit; /* per base: bit offset of its first value (bits, coded, dict) */
    struct ig_u64vec zeros;            /* per base: 0 (a bulk of one int stream) */
    int kind;                          /* the smallest */
    struct ig_slide_dict_scratch dict_scratch;
};

/* Buffers a page is encoded in, kept from page to page (slide.h). */
struct ig_slide_scratch {
    struct windows w;
    struct bulk_ways b;
};

void ig_slide_scratch_free(struct ig_slide_scratch *sc)
{
    if (!sc) return;
    struct windows *w = &sc->w;
    struct bulk_ways *b = &sc->b;
    ig_u64vec_free(&w->meta);
    ig_u64vec_free(&w->bulk);
    ig_u64vec_free(&w->brow);
    ig_u64vec_free(&w->bval);
    ig_buf_free(&b->stream);
    ig_buf_free(&b->bits);
    ig_buf_free(&b->coded);
    ig_buf_free(&b->dict);
    ig_u64vec_free(&b->lens);
    ig_u64vec_free(&b->bbit);
    ig_u64vec_free(&b->cbit);
    ig_u64vec_free(&b->dbit);
    ig_u64vec_free(&b->zeros);
    ig_slide_dict_scratch_free(&b->dict_scratch);
    free(sc);
}

/* Bit lengths, then lengths as an int stream and the bits below each leading one. */
static int bits_bulk(const struct windows *w, struct bulk_ways *b, struct ig_error *err)
{
    const struct ig_u64vec *bulk = &w->bulk, *brow = &w->brow, *bval = &w->bval;
    uint64_t bits = 0;
    for (size_t j = 0; j < bulk->n; j++) {
        b->lens.v[j] = bulk->v[j] ? 64 - (uint64_t)__builtin_clzll(bulk->v[j]) : 0;
        bits += b->lens.v[j] > 1 ? b->lens.v[j] - 1 : 0;
    }
    size_t k = 0;
    uint64_t at = 0;
    for (size_t j = 0; j < bulk->n && k < brow->n; j++) { /* bit offset of each base's first value */
        while (k < brow->n && bval->v[k] == j)
            b->bbit.v[k++] = at;
        at += b->lens.v[j] > 1 ? b->lens.v[j] - 1 : 0;
    }
    while (k < brow->n)
        b->bbit.v[k++] = at;
    int rc = ig_slide_put_stream(&b->bits, b->lens.v, bulk->n, IG_ENC_AUTO, true, err);
    if (rc) return rc;
    size_t nbytes = (size_t)((bits + 7) / 8);
    uint8_t *out = ig_buf_extend(&b->bits, nbytes + 8);
    if (!out) return -ENOMEM;
    memset(out, 0, nbytes + 8);
    struct ig_bitwriter bw = {.dst = out};
    for (size_t j = 0; j < bulk->n; j++)
        if (b->lens.v[j] > 1) ig_bw_put(&bw, bulk->v[j], (unsigned)b->lens.v[j] - 1);
    ig_bw_flush(&bw);
    b->bits.len -= 8; /* the slack was only for the writes */
    return 0;
}

/* The bulk four ways; a list of floats' three, its int stream weighed by the
 * float schemes too, and no dictionary: its pages are small (a row read
 * decodes its page whole), where a dictionary saved a tenth of series of
 * readings and cost a row read 3x its time in decoding its codes and entries. */
static int encode_bulk(const struct windows *w, struct bulk_ways *b, uint8_t type, struct ig_error *err)
{
    const struct ig_u64vec *bulk = &w->bulk;
    if (ig_u64vec_size(&b->lens, bulk->n + 1) || ig_u64vec_size(&b->bbit, w->brow.n + 1) ||
        ig_u64vec_size(&b->cbit, w->brow.n + 1) || ig_u64vec_size(&b->dbit, w->brow.n + 1))
        return -ENOMEM;
    ig_buf_reset(&b->stream);
    ig_buf_reset(&b->bits);
    ig_buf_reset(&b->coded);
    bool floats = ig_type_info(type)->is_float, dict = !floats;
    struct ig_enc_opts o = {.no_drop = true, .decimal = floats, .alp = floats, .expo = type == IG_T_FLOAT32};
    int rc = ig_ints_encode(bulk->v ? bulk->v : (const uint64_t[1]){0}, bulk->n,
                            ig_slide_bulk_desc(type), &o, &b->stream, err);
    if (!rc) rc = bits_bulk(w, b, err);
    bool coded = !rc && code_bulk(bulk->v, b->lens.v, bulk->n, &w->bval, b->cbit.v, &b->coded, &rc);
    if (!rc && dict) rc = ig_slide_dict_encode(bulk->v, bulk->n, w->bval.v, w->bval.n, b->dbit.v, &b->dict_scratch,
                                           &b->dict, &dict);
    if (rc) return rc;
    b->kind = IG_SLIDE_BULK_STREAM;
    size_t best = b->stream.len;
    if (b->bits.len < best) b->kind = IG_SLIDE_BULK_BITS, best = b->bits.len;
    if (coded && b->coded.len < best) b->kind = IG_SLIDE_BULK_CODED, best = b->coded.len;
    if (dict && b->dict.len < best) b->kind = IG_SLIDE_BULK_DICT;
    return 0;
}

/* ---- phase 3: the page ------------------------------------------------------ */

static int write_page(const struct windows *w, struct bulk_ways *b, bool raw,
                      struct ig_buf *body, struct ig_error *err)
{
    if (w->bulk.n > UINT32_MAX) return ig_err(err, -EFBIG, "too many values in one page");
    uint8_t hdr[IG_SLIDE_HDR] = {0};
    ig_st32(hdr + IG_SLIDE_ROWS, (uint32_t)w->n);
    ig_st32(hdr + IG_SLIDE_BASES, (uint32_t)w->brow.n);
    hdr[IG_SLIDE_BULK_KIND] = (uint8_t)b->kind;
    hdr[IG_SLIDE_RAW] = raw; /* 1: signed values stored without zigzag (none is negative) */
    ig_st32(hdr + IG_SLIDE_BULK_VALUES, (uint32_t)w->bulk.n);
    if (ig_buf_append(body, hdr, sizeof hdr)) return -ENOMEM;
    int rc = 0;
    for (int s = 0; s < 5 && !rc; s++)
        rc = put_meta(body, w->meta.v + (size_t)s * w->n, w->n, err);
    if (!rc) rc = put_meta(body, w->brow.v ? w->brow.v : (const uint64_t[1]){0}, w->brow.n, err);
    if (!rc) rc = put_meta(body, w->bval.v ? w->bval.v : (const uint64_t[1]){0}, w->brow.n, err);
    /* bit-packed, so erasure (which only lowers these offsets) never grows it;
     * zeros for a bulk of one int stream, whose values a base finds by their
     * index alone (a reader never reads them): the bit-length code's offsets,
     * climbing by hundreds a row, were a twentieth of a page of short rows of
     * token ids under zstd */
    const uint64_t *offs = b->kind == IG_SLIDE_BULK_CODED ? b->cbit.v
                           : b->kind == IG_SLIDE_BULK_DICT ? b->dbit.v
                           : b->kind == IG_SLIDE_BULK_BITS ? b->bbit.v
                                                           : NULL;
    if (!offs && w->brow.n) {
        if (ig_u64vec_size(&b->zeros, w->brow.n)) return -ENOMEM;
        memset(b->zeros.v, 0, w->brow.n * sizeof *b->zeros.v);
        offs = b->zeros.v;
    }
    if (!rc) rc = ig_slide_put_stream(body, offs ? offs : (const uint64_t[1]){0}, w->brow.n, IG_ENC_BITPACK, true, err);
    const struct ig_buf *chosen = b->kind == IG_SLIDE_BULK_CODED  ? &b->coded
                                  : b->kind == IG_SLIDE_BULK_DICT ? &b->dict
                                  : b->kind == IG_SLIDE_BULK_BITS ? &b->bits
                                                                  : &b->stream;
    if (!rc && ig_buf_append(body, chosen->data, chosen->len)) rc = -ENOMEM;
    return rc;
}

int ig_slide_encode(const struct ig_values *v, size_t first, size_t count, const struct ig_leaf_info *li,
                    struct ig_slide_scratch **scratch, struct ig_buf *body, struct ig_error *err)
{
    /* Signed ids are zigzagged, one bit each; a page without a negative value
     * stores them as they are (header flag), as ids usually are. */
    const struct ig_type_info *ti = ig_type_info(li->type);
    bool sgn = false;
    if (ti->is_signed)
        for (size_t k = v->row_val[first]; k < v->row_val[first + count] && !sgn; k++)
            sgn = (int64_t)v->lanes[k] < 0;
    if (!*scratch && !(*scratch = calloc(1, sizeof **scratch))) return ig_err(err, -ENOMEM, "out of memory");
    struct windows *w = &(*scratch)->w;
    struct bulk_ways *b = &(*scratch)->b;
    int rc = plan_windows(v, first, count, li, sgn, false, w);
    w->raw = ti->is_signed && !sgn;
    w->floats = ti->is_float;
    if (!rc) rc = encode_bulk(w, b, li->type, err);
    if (!rc) rc = write_page(w, b, w->raw, body, err);
    return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
}

/* The fewest bytes (1, 2 or 4) that hold every bulk value, or 0: 8. */
static unsigned bulk_bytes(const struct ig_u64vec *bulk)
{
    uint64_t all = 0;
    for (size_t j = 0; j < bulk->n; j++) all |= bulk->v[j];
    return all < 1ull << 8 ? 1 : all < 1ull << 16 ? 2 : all < 1ull << 32 ? 4 : 0;
}

int ig_slide_encode_bytes(const struct ig_values *v, size_t first, size_t count, const struct ig_leaf_info *li,
                          struct ig_slide_scratch *sc, struct ig_buf *body, struct ig_error *err)
{
    struct windows *w = &sc->w;
    struct bulk_ways *b = &sc->b;
    if (w->floats) return 1;
    /* every row a base: zstd finds what a row repeats of the rows before in
     * the bytes, where a delta's kept run, cut out of the bulk, hid it (short
     * rows of token ids, where a row kept a phrase of the one before, stored
     * 0.91x the bytes so; rows that slide keep their bit codes, smaller still) */
    /* zigzagged as ig_slide_encode chose (w->raw: a signed page without a
     * negative value stores them as they are) */
    bool sgn = ig_type_info(li->type)->is_signed && !w->raw;
    int rc = plan_windows(v, first, count, li, sgn, true, w);
    if (rc) return ig_err(err, rc, "out of memory");
    unsigned width = bulk_bytes(&w->bulk);
    if (!width) return 1;
    /* plain lanes of that width read back through the bulk's own description
     * (8-byte unsigned lanes: a narrower plain stream widens on decode) */
    const struct ig_int_desc narrow = {.width = (uint8_t)width, .is_signed = false};
    const struct ig_enc_opts o = {.forced = IG_ENC_PLAIN, .no_drop = true};
    ig_buf_reset(&b->stream);
    rc = ig_ints_encode(w->bulk.v ? w->bulk.v : (const uint64_t[1]){0}, w->bulk.n, &narrow, &o, &b->stream, err);
    if (rc) return rc;
    b->kind = IG_SLIDE_BULK_STREAM; /* its bases' bit offsets: zeros (write_page) */
    rc = write_page(w, b, w->raw, body, err);
    return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
}
