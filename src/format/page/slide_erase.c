/* slide_erase.c - erasing rows of a sliding-window page in place
 * (slide.h: ig_slide_erase) and the check that they are gone
 * (ig_slide_check_erased). Parsing and reading the page are slide.c's; the
 * streams it writes, slide_streams.c's. */
#include "format/page/slide.h"
#include "format/layout.h"
#include "format/page/slide_int.h"
#include "format/enc/codec.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pcode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

static int load_meta(const struct ig_slide_page *sl, struct meta *m, struct ig_error *err)
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
    if (!rc) rc = ig_slide_count_values(m->a, m->a + rows, m->a + 3 * rows, m->a + 4 * rows, rows, &nv, err);
    if (!rc && nv != sl->nvalues)
        rc = ig_err(err, -EIO, "slide page: %zu values, header says %zu", nv, sl->nvalues);
    if (rc) free_meta(m);
    return rc;
}

/* Which bulk values hold nothing a live row reads (dead: nvalues bits). */
static int dead_values(const struct ig_slide_page *sl, struct meta *m, const uint8_t *deleted,
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
                     struct ig_slide_page *sl, struct meta *m, uint8_t **dead, struct ig_error *err)
{
    int rc = ig_slide_parse(p, len, rows, sl, err);
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
static int erase_stream(struct ig_buf *out, const uint8_t *s, size_t len, size_t n, const struct ig_int_desc *d,
                        const uint8_t *dead, bool prefixed, struct ig_error *err)
{
    size_t at = out->len;
    if (prefixed && ig_buf_append_u32(out, 0)) return ig_err(err, -ENOMEM, "out of memory");
    size_t pos = out->len;
    if (ig_buf_append(out, s, len)) return ig_err(err, -ENOMEM, "out of memory");
    size_t new_len = len;
    int rc = ig_ints_erase_drops(s, len)
                 ? -ENOSPC
                 : ig_ints_erase(out->data + pos, len, n, d, NULL, dead, &new_len, err);
    if (rc == -ENOSPC) { /* the scheme cannot: re-encode the values with zeros */
        uint64_t *v = malloc((n + 1) * sizeof *v);
        if (!v) return ig_err(err, -ENOMEM, "out of memory");
        rc = ig_ints_decode(s, len, n, d, NULL, v, err);
        for (size_t i = 0; !rc && i < n; i++)
            if (ig_slide_bit(dead, i)) v[i] = 0;
        out->len = pos;
        if (!rc) rc = ig_ints_encode_erased(v, n, d, dead, out, err);
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
static int erase_bit_bulk(const struct ig_slide_page *sl, const struct meta *m, const uint8_t *dead,
                          struct ig_buf *out, struct ig_error *err)
{
    struct ig_pcode code = {0};
    uint64_t *lens = malloc((sl->nvalues + 1) * sizeof *lens);
    uint64_t *lows = malloc((sl->nvalues + 1) * sizeof *lows);
    uint64_t *bbit = malloc((sl->nbases + 1) * sizeof *bbit);
    int rc = lens && lows && bbit ? ig_slide_read_bit_bulk(sl, lens, lows, NULL, &code, err)
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
        rc = erase_stream(out, sl->bulk, sl->bulk_len, sl->nvalues, &ig_slide_meta_desc, dead, true, err);
    size_t nbytes = (size_t)((bits + 7) / 8);
    uint8_t *dst = rc ? NULL : ig_buf_extend(out, nbytes + 8);
    if (!rc && !dst) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        memset(dst, 0, nbytes + 8);
        struct ig_bitwriter bw = {.dst = dst};
        for (size_t j = 0; j < sl->nvalues; j++) {
            if (sl->coded) ig_bw_put(&bw, code.code[lens[j]], code.len[lens[j]]);
            if (lens[j] > 1) ig_bw_put(&bw, lows[j], (unsigned)lens[j] - 1);
        }
        ig_bw_flush(&bw);
        out->len -= 8; /* the slack was only for the writes */
    }
    free(lens);
    free(lows);
    free(bbit);
    ig_pcode_free(&code);
    return rc;
}

int ig_slide_erase(const uint8_t *p, size_t len, size_t rows, uint8_t type, const uint8_t *deleted,
                   struct ig_buf *out, struct ig_error *err)
{
    struct ig_slide_page sl;
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
        if (!rc) rc = erase_stream(out, sl.bulk, sl.bulk_len, sl.nvalues, ig_slide_bulk_desc(type), dead, false, err);
    }
    if (!rc && out->len - base > len)
        rc = ig_err(err, -ENOSPC, "slide page: erasing would grow the page");
    free(dead);
    free_meta(&m);
    return rc;
}

int ig_slide_check_erased(const uint8_t *p, size_t len, size_t rows, uint8_t type, const uint8_t *deleted,
                          struct ig_error *err)
{
    struct ig_slide_page sl;
    struct meta m;
    uint8_t *dead;
    int rc = open_dead(p, len, rows, deleted, &sl, &m, &dead, err);
    if (rc) return rc;
    /* dead values hold nothing: by the lengths stream's rule, or length 0, or
     * code 0 (and the dictionary holds nothing only they used) */
    if (sl.dict)
        rc = ig_slide_dict_check(&sl.d, dead, err);
    else if (!sl.coded)
        rc = ig_ints_check_erased(sl.bulk, sl.bulk_len, sl.nvalues, ig_slide_bulk_desc(type), NULL, dead, err);
    if (!rc && (sl.bits || sl.coded)) { /* and no bits linger past the live ones */
        uint64_t *lens = malloc((sl.nvalues + 1) * sizeof *lens);
        uint64_t *lows = malloc((sl.nvalues + 1) * sizeof *lows), end = 0;
        rc = lens && lows ? ig_slide_read_bit_bulk(&sl, lens, lows, &end, NULL, err)
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
