/* slide_dict.c - the dictionary bulk of a sliding-window page
 * (IG_SLIDE_BULK_DICT, docs/FORMAT.md).
 *
 * Hashed feature ids (popular ids are not small numbers) cost ~60 bits each
 * in the bit-length codes however often they recur. Here the page's distinct
 * non-zero values are stored once, as a dictionary, and every value as its
 * index plus one (0 is the value 0, and what erasure writes).
 *
 * Indexes are ranks by frequency: rank r's index r + 1 has bit length g + 1
 * for the ranks of *group* g (2^g - 1 .. 2^(g+1) - 2), so a popular value's
 * code is short. Within a group every index costs the same, so the group's
 * entries are free to be sorted by value, and are: each entry is stored as its
 * XOR with the entry before it in its group (the first: with 0), which for
 * sorted values costs about what their gap does. Entries and indexes are both
 * coded by bit length under a per-page prefix code, as bulk kind 2.
 *
 * Erasure never grows the page: a dead value's code becomes 0 where that costs
 * no more, else the first code of its group (the same length, low bits 0);
 * an entry no live value refers to any more is moved to the end of its group
 * as a copy of the group's last live entry (XOR 0); the live entries keep
 * their order and their indexes stay in the group (same length). For sorted
 * a <= b <= c the top differing bit of a and c is the higher of a-b's and
 * b-c's, so a live entry's new XOR costs what one of the XORs it spans did.
 * Neither an erased value nor its place among the live ones survives; the
 * number of entries per group (how often some value occurred) does, as the
 * code tables do. */
#include "format/layout.h"
#include "format/page/slide_int.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Is rank r the first of its group (r + 1 a power of two)? */
static bool group_start(size_t r)
{
    return ((r + 1) & r) == 0;
}

/* The end (exclusive) of the group that starts at rank r, of n entries. */
static size_t group_end(size_t r, size_t n)
{
    size_t e = 2 * r + 1;
    return e < n ? e : n;
}

int ig_slide_dict_parse(const uint8_t *p, size_t len, size_t nvalues, struct ig_slide_dict *d,
                        struct ig_error *err)
{
    if (len < IG_SLIDE_DICT_HDR) return ig_err(err, -EIO, "slide page: dictionary truncated");
    d->nvalues = nvalues;
    d->nentries = ig_ld32(p + IG_SLIDE_DICT_ENTRIES);
    d->ebits_len = ig_ld32(p + IG_SLIDE_DICT_BYTES);
    d->dtable = p + IG_SLIDE_DICT_TABLES;
    d->ctable = d->dtable + IG_PCODE_TABLE_BYTES;
    /* every entry's code takes a bit at least */
    if (d->nentries > nvalues || d->ebits_len > len - IG_SLIDE_DICT_HDR || d->nentries > (uint64_t)d->ebits_len * 8)
        return ig_err(err, -EIO, "slide page: bad dictionary header");
    if ((d->dtable[IG_PCODE_TABLE_BYTES - 1] >> 4) || (d->ctable[IG_PCODE_TABLE_BYTES - 1] >> 4))
        return ig_err(err, -EIO, "slide page: bad length code table");
    d->ebits = p + IG_SLIDE_DICT_HDR;
    d->cbits = d->ebits + d->ebits_len;
    d->cbits_len = len - IG_SLIDE_DICT_HDR - d->ebits_len;
    return 0;
}

static int load_code(const uint8_t *table, struct ig_pcode *c, struct ig_error *err)
{
    memset(c, 0, sizeof *c);
    ig_pcode_load(table, c);
    int rc = ig_pcode_build(c, 1);
    return rc == -ENOMEM ? ig_err(err, rc, "out of memory")
           : rc          ? ig_err(err, -EIO, "slide page: bad length code table")
                         : 0;
}

/* The entries' values (and, when xs is not NULL, each one's stored XOR);
 * *end: the bit after the last. */
static int read_entries(const struct ig_slide_dict *d, uint64_t *vals, uint64_t *xs, uint64_t *end,
                        struct ig_error *err)
{
    struct ig_pcode c;
    int rc = load_code(d->dtable, &c, err);
    struct ig_bitreader br = {d->ebits, d->ebits_len, 0};
    for (size_t r = 0; r < d->nentries && !rc; r++) {
        uint64_t L, low;
        if (ig_slide_read_coded(&br, &c, &L, &low)) {
            rc = ig_err(err, -EIO, "slide page: dictionary entry %zu truncated", r);
            break;
        }
        uint64_t x = ig_slide_from_code(L, low);
        vals[r] = group_start(r) ? x : vals[r - 1] ^ x;
        if (xs) xs[r] = x;
    }
    if (end) *end = br.pos;
    ig_pcode_free(&c);
    return rc;
}

int ig_slide_dict_open(const struct ig_slide_dict *d, uint64_t bit, struct ig_slide_dict_reader *r,
                       struct ig_error *err)
{
    memset(r, 0, sizeof *r);
    r->n = d->nentries;
    r->entries = malloc((d->nentries + 1) * sizeof *r->entries);
    if (!r->entries) return ig_err(err, -ENOMEM, "out of memory");
    int rc = read_entries(d, r->entries, NULL, NULL, err);
    if (!rc) rc = load_code(d->ctable, &r->code, err);
    r->br = (struct ig_bitreader){d->cbits, d->cbits_len, bit};
    if (rc) ig_slide_dict_close(r);
    return rc;
}

/* The next code: 0, or an entry's index + 1. */
static int next_code(struct ig_slide_dict_reader *r, uint64_t *c, struct ig_error *err)
{
    uint64_t L, low;
    if (ig_slide_read_coded(&r->br, &r->code, &L, &low))
        return ig_err(err, -EIO, "slide page: dictionary codes truncated");
    *c = ig_slide_from_code(L, low);
    if (*c > r->n) return ig_err(err, -EIO, "slide page: code %llu past the dictionary's %zu entries",
                                 (unsigned long long)*c, r->n);
    return 0;
}

int ig_slide_dict_next(struct ig_slide_dict_reader *r, uint64_t *x, struct ig_error *err)
{
    uint64_t c;
    int rc = next_code(r, &c, err);
    *x = rc || !c ? 0 : r->entries[c - 1];
    return rc;
}

void ig_slide_dict_close(struct ig_slide_dict_reader *r)
{
    free(r->entries);
    ig_pcode_free(&r->code);
    memset(r, 0, sizeof *r);
}

/* ---- writing ---------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}


/* The index of x in the sorted distinct values u[0..n). */
static size_t find(const uint64_t *u, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Append the bulk: header, then the entries' XORs and the codes, each coded by
 * bit length (xs, codes: the values to code; their length codes dc, cc). */
static int put_bulk(const uint64_t *xs, size_t nent, const uint64_t *codes, size_t n,
                    const struct ig_pcode *dc, const struct ig_pcode *cc, const uint64_t *bval,
                    size_t nbases, uint64_t *cbit, struct ig_buf *out)
{
    uint64_t ebits = 0, cbits = 0;
    for (size_t r = 0; r < nent; r++)
        ebits += ig_slide_coded_bits(dc, xs[r]);
    for (size_t j = 0; j < n; j++)
        cbits += ig_slide_coded_bits(cc, codes[j]);
    size_t eb = (size_t)((ebits + 7) / 8), cb = (size_t)((cbits + 7) / 8);
    if (eb > UINT32_MAX || nent > UINT32_MAX) return -EFBIG;
    uint8_t *o = ig_buf_extend(out, IG_SLIDE_DICT_HDR + eb + cb + 8);
    if (!o) return -ENOMEM;
    memset(o, 0, IG_SLIDE_DICT_HDR + eb + cb + 8);
    ig_st32(o + IG_SLIDE_DICT_ENTRIES, (uint32_t)nent);
    ig_st32(o + IG_SLIDE_DICT_BYTES, (uint32_t)eb);
    ig_pcode_store(dc, o + IG_SLIDE_DICT_TABLES);
    ig_pcode_store(cc, o + IG_SLIDE_DICT_TABLES + IG_PCODE_TABLE_BYTES);
    uint8_t *dst = o + IG_SLIDE_DICT_HDR;
    uint64_t pos = 0;
    for (size_t r = 0; r < nent; r++)
        ig_slide_put_coded(dst, &pos, dc, xs[r]);
    dst += eb;
    pos = 0;
    size_t b = 0;
    for (size_t j = 0; j < n; j++) {
        while (b < nbases && bval[b] == j)
            cbit[b++] = pos;
        ig_slide_put_coded(dst, &pos, cc, codes[j]);
    }
    while (b < nbases)
        cbit[b++] = pos;
    out->len -= 8; /* the slack was only for the writes */
    return 0;
}

/* Bit lengths of xs[0..n) into lens, then their code (zero_for_erasure:
 * ig_slide_length_code's). */
static bool code_of(const uint64_t *xs, size_t n, uint64_t *lens, bool zero_for_erasure, struct ig_pcode *c)
{
    for (size_t j = 0; j < n; j++)
        lens[j] = ig_bit_len(xs[j]);
    return ig_slide_length_code(lens, n, zero_for_erasure, c);
}

int ig_slide_dict_encode(const uint64_t *vals, size_t n, const uint64_t *bval, size_t nbases,
                         uint64_t *cbit, struct ig_buf *out, bool *made)
{
    *made = false;
    uint64_t *u = malloc((n + 1) * sizeof *u), *cnt = malloc((n + 1) * sizeof *cnt);
    uint64_t *xs = malloc((n + 1) * sizeof *xs), *codes = malloc((n + 1) * sizeof *codes);
    uint64_t *order = malloc((n + 1) * sizeof *order);
    uint32_t *rank = malloc((n + 1) * sizeof *rank);
    int rc = u && cnt && xs && codes && order && rank ? 0 : -ENOMEM;
    size_t m = 0, nd = 0;
    for (size_t j = 0; !rc && j < n; j++)
        if (vals[j]) u[m++] = vals[j];
    if (!rc) qsort(u, m, sizeof *u, cmp_u64);
    for (size_t j = 0; !rc && j < m; j++) { /* distinct values and their counts */
        if (nd && u[nd - 1] == u[j]) {
            cnt[nd - 1]++;
            continue;
        }
        u[nd] = u[j];
        cnt[nd++] = 1;
    }
    /* with few repeats a dictionary names nearly every value once and its
     * indexes cost what sorting saves: not worth the work */
    if (rc || nd == 0 || m > UINT32_MAX || nd * 10 > m * 9) goto done;
    /* most frequent first (ties: the smaller value), as one sort of keys */
    for (size_t k = 0; k < nd; k++)
        order[k] = (UINT32_MAX - cnt[k]) << 32 | k;
    qsort(order, nd, sizeof *order, cmp_u64);
    for (size_t r = 0; r < nd; r++)
        order[r] &= UINT32_MAX;
    for (size_t r = 0; r < nd; r = group_end(r, nd)) /* each group by value (u is sorted) */
        qsort(order + r, group_end(r, nd) - r, sizeof *order, cmp_u64);
    for (size_t r = 0; r < nd; r++) {
        rank[order[r]] = (uint32_t)r;
        xs[r] = u[order[r]] ^ (group_start(r) ? 0 : u[order[r - 1]]);
    }
    for (size_t j = 0; j < n; j++)
        codes[j] = vals[j] ? (uint64_t)rank[find(u, nd, vals[j])] + 1 : 0;
    struct ig_pcode dc, cc;
    /* an erased entry is written as XOR 0, an erased value as code 0 or as
     * its group's first code (erase_code), so only the entries need a code
     * for 0 */
    if (!code_of(xs, nd, cnt, true, &dc) || !code_of(codes, n, u, false, &cc)) goto done; /* cnt, u: scratch */
    rc = put_bulk(xs, nd, codes, n, &dc, &cc, bval, nbases, cbit, out);
    *made = rc == 0;
done:
    free(u);
    free(cnt);
    free(xs);
    free(codes);
    free(order);
    free(rank);
    return rc;
}

/* ---- erasure ---------------------------------------------------------------- */

static bool bit_set(const uint8_t *bm, size_t i)
{
    return bm && ((bm[i / 8] >> (i % 8)) & 1);
}

/* Every code of the bulk (0, or an entry's index + 1); *end: the bit after the last. */
static int read_codes(const struct ig_slide_dict *d, uint64_t *codes, uint64_t *end, struct ig_error *err)
{
    struct ig_slide_dict_reader r = {.n = d->nentries};
    int rc = load_code(d->ctable, &r.code, err);
    r.br = (struct ig_bitreader){d->cbits, d->cbits_len, 0};
    for (size_t j = 0; j < d->nvalues && !rc; j++)
        rc = next_code(&r, &codes[j], err);
    if (end) *end = r.br.pos;
    ig_pcode_free(&r.code);
    return rc;
}

/* What a dead value's code c becomes: 0 when that costs no more, else the
 * first code of c's group (its bit length, low bits 0: the same cost). Either
 * tells no more of the value than the group counts do. */
static uint64_t erase_code(const struct ig_pcode *cc, uint64_t c)
{
    uint64_t L = ig_bit_len(c);
    if (!c || (cc->len[0] && cc->len[0] <= ig_slide_coded_bits(cc, c))) return 0;
    return 1ull << (L - 1);
}

/* Which entries some live value refers to (live: nentries bits, zeroed here). */
static void live_entries(const struct ig_slide_dict *d, const uint64_t *codes, const uint8_t *dead,
                         uint8_t *live)
{
    memset(live, 0, d->nentries / 8 + 1);
    for (size_t j = 0; j < d->nvalues; j++)
        if (codes[j] && !bit_set(dead, j)) live[(codes[j] - 1) / 8] |= (uint8_t)(1u << ((codes[j] - 1) % 8));
}

int ig_slide_dict_erase(const struct ig_slide_dict *d, const uint64_t *bval, size_t nbases, const uint8_t *dead,
                        size_t old_offsets_len, struct ig_buf *out, struct ig_error *err)
{
    size_t n = d->nvalues, ne = d->nentries;
    uint64_t *codes = malloc((n + 1) * sizeof *codes), *vals = malloc((ne + 1) * sizeof *vals);
    uint64_t *xs = malloc((ne + 1) * sizeof *xs), *to = malloc((ne + 1) * sizeof *to);
    uint64_t *cbit = malloc((nbases + 1) * sizeof *cbit);
    uint8_t *live = malloc(ne / 8 + 1);
    struct ig_pcode dc = {0}, cc = {0};
    int rc = codes && vals && xs && to && cbit && live ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = read_entries(d, vals, NULL, NULL, err);
    if (!rc) rc = read_codes(d, codes, NULL, err);
    if (!rc) {
        ig_pcode_load(d->dtable, &dc);
        ig_pcode_load(d->ctable, &cc);
        rc = ig_pcode_build(&dc, 0) || ig_pcode_build(&cc, 0) ? ig_err(err, -EIO, "slide page: bad length code table")
                                                               : 0;
    }
    if (!rc) {
        for (size_t j = 0; j < n; j++)
            if (bit_set(dead, j)) codes[j] = erase_code(&cc, codes[j]);
        live_entries(d, codes, dead, live);
        /* per group: its live entries in their order, then the others as
         * copies of the last live one; `to` maps old ranks to new ones */
        for (size_t g = 0; g < ne; g = group_end(g, ne)) {
            size_t e = group_end(g, ne), at = g;
            uint64_t last = 0;
            for (size_t r = g; r < e; r++)
                if (bit_set(live, r)) {
                    to[r] = at;
                    xs[at++] = vals[r] ^ last; /* as XOR with its predecessor (the first: 0) */
                    last = vals[r];
                }
            for (size_t r = g; r < e; r++)
                if (!bit_set(live, r)) to[r] = at, xs[at++] = 0;
        }
        for (size_t j = 0; j < n; j++) /* a group's first code stays its first */
            if (codes[j] && !bit_set(dead, j)) codes[j] = to[codes[j] - 1] + 1;
        for (size_t r = 0; r < ne && !rc; r++)
            if (!dc.len[ig_bit_len(xs[r])])
                rc = ig_err(err, -ENOSPC, "slide page: an entry needs a length the dictionary's code lacks");
    }
    size_t at = out->len;
    struct ig_buf bulk = IG_BUF_INIT;
    if (!rc) rc = put_bulk(xs, ne, codes, n, &dc, &cc, bval, nbases, cbit, &bulk) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = ig_slide_put_stream(out, cbit, nbases, IG_ENC_BITPACK, true, err);
    if (!rc && out->len - at > old_offsets_len + 4) rc = ig_err(err, -ENOSPC, "slide page: base offsets grew");
    if (!rc && ig_buf_append(out, bulk.data, bulk.len)) rc = ig_err(err, -ENOMEM, "out of memory");
    ig_buf_free(&bulk);
    ig_pcode_free(&dc);
    ig_pcode_free(&cc);
    free(codes);
    free(vals);
    free(xs);
    free(to);
    free(cbit);
    free(live);
    return rc;
}

/* Are the bits of p[0..len) from bit `from` on all zero? */
static bool zero_from(const uint8_t *p, size_t len, uint64_t from)
{
    for (uint64_t q = from; q < (uint64_t)len * 8; q++)
        if ((p[q / 8] >> (q % 8)) & 1) return false;
    return true;
}

int ig_slide_dict_check(const struct ig_slide_dict *d, const uint8_t *dead, struct ig_error *err)
{
    size_t n = d->nvalues, ne = d->nentries;
    uint64_t *codes = malloc((n + 1) * sizeof *codes), *vals = malloc((ne + 1) * sizeof *vals);
    uint64_t *xs = malloc((ne + 1) * sizeof *xs), eend = 0, cend = 0;
    uint8_t *live = malloc(ne / 8 + 1);
    int rc = codes && vals && xs && live ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = read_entries(d, vals, xs, &eend, err);
    if (!rc) rc = read_codes(d, codes, &cend, err);
    for (size_t j = 0; !rc && j < n; j++) /* 0, or the first code of a group */
        if (bit_set(dead, j) && (codes[j] & (codes[j] - 1)))
            rc = ig_err(err, -EIO, "slide page: erased value %zu still refers to dictionary entry %llu", j,
                        (unsigned long long)codes[j] - 1);
    if (!rc) live_entries(d, codes, dead, live);
    for (size_t r = 0; !rc && r < ne; r++)
        if (!bit_set(live, r) && xs[r])
            rc = ig_err(err, -EIO, "slide page: dictionary entry %zu, which no live value uses, still holds data", r);
    if (!rc && !zero_from(d->ebits, d->ebits_len, eend))
        rc = ig_err(err, -EIO, "slide page: bits remain past the dictionary's last entry");
    if (!rc && !zero_from(d->cbits, d->cbits_len, cend))
        rc = ig_err(err, -EIO, "slide page: bits remain past the last code");
    free(codes);
    free(vals);
    free(xs);
    free(live);
    return rc;
}
