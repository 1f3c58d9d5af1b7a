/* slide_dict.c - the dictionary bulk of a sliding-window page
 * (IG_SLIDE_BULK_DICT, docs/FORMAT.md).
 *
 * Hashed feature ids (popular ids are not small numbers) cost ~60 bits each
 * in the bit-length codes however often they recur. Here the page's distinct
 * non-zero values are stored once, as a dictionary, and every value as its
 * code: its entry's index plus one (0 is the value 0).
 *
 * Indexes are ranks by frequency: rank r's code r + 1 has bit length g + 1
 * for the ranks of *group* g (2^g - 1 .. 2^(g+1) - 2), so a popular value's
 * code is short; codes are coded by bit length under a per-page prefix code,
 * as bulk kind 2 codes values. Within a group every code costs the same, so
 * the group's entries are free to be sorted, and are stored as a sorted set
 * (Elias-Fano): of n entries below 2^64, each entry's l low bits (l about
 * log2(max / n)) packed, and its high part v >> l in unary: bit (v_i >> l) + i
 * of the group's upper bits set. That is within ~2 bits an entry of naming the
 * set, and any entry is found without decoding the others (the i-th set bit),
 * so reading one row decodes only the entries its codes name.
 *
 * Erasure changes no size: a dead value's code becomes 0 where that costs no
 * more, else the first code of its group (the same length, low bits 0); an
 * entry no live value uses any more is moved to the end of its group as a copy
 * of the group's last live entry (0 if none), the live entries keeping their
 * order; a group keeps its l and its upper bits' length, which still hold
 * values no larger than before. Neither an erased value nor its place among
 * the live ones survives; the number of entries per group (how often some
 * value occurred) does, as the code table does. */
#include "format/layout.h"
#include "format/page/slide_int.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/sort.h"
#include "util/u64map.h"
#include "util/u64vec.h"

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
    memset(d, 0, sizeof *d);
    if (len < IG_SLIDE_DICT_HDR) return ig_err(err, -EIO, "slide page: dictionary truncated");
    d->nvalues = nvalues;
    d->nentries = ig_ld32(p + IG_SLIDE_DICT_ENTRIES);
    size_t elen = ig_ld32(p + IG_SLIDE_DICT_BYTES);
    d->ctable = p + IG_SLIDE_DICT_TABLE;
    if (d->nentries > nvalues || elen > len - IG_SLIDE_DICT_HDR)
        return ig_err(err, -EIO, "slide page: bad dictionary header");
    if (d->ctable[IG_PCODE_TABLE_BYTES - 1] >> 4) return ig_err(err, -EIO, "slide page: bad length code table");
    const uint8_t *e = p + IG_SLIDE_DICT_HDR;
    size_t pos = 0;
    for (size_t r = 0; r < d->nentries && d->ngroups < IG_SLIDE_MAX_GROUPS; r = group_end(r, d->nentries)) {
        struct ig_slide_group *g = &d->groups[d->ngroups++];
        g->first = r;
        g->n = group_end(r, d->nentries) - r;
        if (elen - pos < IG_SLIDE_GROUP_HDR) return ig_err(err, -EIO, "slide page: dictionary group truncated");
        g->l = e[pos + IG_SLIDE_GROUP_LOW];
        g->ubits = ig_ld32(e + pos + IG_SLIDE_GROUP_UPPER);
        pos += IG_SLIDE_GROUP_HDR;
        size_t lb = (g->n * g->l + 7) / 8, ub = (g->ubits + 7) / 8;
        if (g->l > 63 || g->ubits < g->n || lb > elen - pos || ub > elen - pos - lb)
            return ig_err(err, -EIO, "slide page: dictionary group %u past the end", d->ngroups - 1);
        g->lows = e + pos;
        g->upper = e + pos + lb;
        pos += lb + ub;
    }
    size_t covered = d->ngroups ? d->groups[d->ngroups - 1].first + d->groups[d->ngroups - 1].n : 0;
    if (covered != d->nentries || pos != elen)
        return ig_err(err, -EIO, "slide page: the dictionary's groups do not end where it does");
    d->cbits = e + elen;
    d->cbits_len = len - IG_SLIDE_DICT_HDR - elen;
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

/* Entry i of group g from its high part and low bits; -EIO if it does not fit 64 bits. */
static int entry_of(const struct ig_slide_group *g, size_t i, uint64_t high, uint64_t *v)
{
    if (g->l && high >> (64 - g->l)) return -EIO;
    uint64_t low = 0;
    struct ig_bitreader br = {g->lows, (g->n * g->l + 7) / 8, (uint64_t)i * g->l};
    if (g->l && ig_bits_read(&br, g->l, &low)) return -EIO;
    *v = high << g->l | low;
    return 0;
}

/* Every entry of group g, in order, into vals[0..n); checks the group holds
 * exactly n of them and nothing after (padding bits zero). */
static int group_values(const struct ig_slide_group *g, uint64_t *vals, struct ig_error *err)
{
    size_t i = 0;
    for (size_t byte = 0; byte < (g->ubits + 7) / 8; byte++)
        for (unsigned b = g->upper[byte]; b; b &= b - 1) {
            size_t pos = byte * 8 + (size_t)__builtin_ctz(b);
            if (pos >= g->ubits || i >= g->n || entry_of(g, i, pos - i, &vals[i]))
                return ig_err(err, -EIO, "slide page: dictionary group of ranks %zu.. is damaged", g->first);
            i++;
        }
    if (i != g->n) return ig_err(err, -EIO, "slide page: dictionary group of ranks %zu.. is short", g->first);
    size_t lowbits = g->n * g->l;
    if (lowbits % 8 && g->lows[lowbits / 8] >> (lowbits % 8))
        return ig_err(err, -EIO, "slide page: bits after the low bits of ranks %zu..", g->first);
    return 0;
}

int ig_slide_dict_entries(const struct ig_slide_dict *d, uint64_t *vals, struct ig_error *err)
{
    int rc = 0;
    for (unsigned k = 0; k < d->ngroups && !rc; k++)
        rc = group_values(&d->groups[k], vals + d->groups[k].first, err);
    return rc;
}

int ig_slide_dict_open(const struct ig_slide_dict *d, uint64_t bit, struct ig_slide_dict_reader *r,
                       struct ig_error *err)
{
    memset(r, 0, sizeof *r);
    r->d = *d;
    int rc = load_code(d->ctable, &r->code, err);
    r->br = (struct ig_bitreader){d->cbits, d->cbits_len, bit};
    /* each group's upper bits as words, with the set bits before each word:
     * the i-th set bit is then a binary search and one word away */
    size_t words = 0;
    for (unsigned k = 0; k < d->ngroups; k++)
        words += d->groups[k].ubits / 64 + 1;
    r->words = rc ? NULL : calloc(words + 1, sizeof *r->words);
    r->before = rc ? NULL : calloc(words + d->ngroups + 1, sizeof *r->before);
    if (!rc && (!r->words || !r->before)) rc = ig_err(err, -ENOMEM, "out of memory");
    size_t w = 0, c = 0;
    for (unsigned k = 0; k < d->ngroups && !rc; k++) {
        const struct ig_slide_group *g = &d->groups[k];
        size_t nw = g->ubits / 64 + 1;
        r->at[k] = w;
        r->cat[k] = c;
        for (size_t b = 0; b < (g->ubits + 7) / 8; b++)
            r->words[w + b / 8] |= (uint64_t)g->upper[b] << (8 * (b % 8));
        uint64_t ones = 0;
        for (size_t j = 0; j < nw; j++) {
            r->before[c + j] = ones;
            ones += (uint64_t)__builtin_popcountll(r->words[w + j]);
        }
        r->before[c + nw] = ones;
        if (ones != g->n) rc = ig_err(err, -EIO, "slide page: dictionary group of ranks %zu.. is damaged", g->first);
        w += nw;
        c += nw + 1;
    }
    if (rc) ig_slide_dict_close(r);
    return rc;
}

/* Entry `rank`, found alone. */
static int entry_at(const struct ig_slide_dict_reader *r, uint64_t rank, uint64_t *v)
{
    unsigned k = (unsigned)(ig_bit_len(rank + 1) - 1);
    const struct ig_slide_group *g = &r->d.groups[k];
    size_t i = (size_t)(rank - g->first), nw = g->ubits / 64 + 1;
    const uint64_t *words = r->words + r->at[k], *before = r->before + r->cat[k];
    size_t lo = 0, hi = nw; /* the last word with fewer than i + 1 set bits before it */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (before[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t x = words[lo];
    for (uint64_t skip = i - before[lo]; skip; skip--)
        x &= x - 1;
    if (!x) return -EIO;
    size_t pos = lo * 64 + (size_t)__builtin_ctzll(x);
    return entry_of(g, i, pos - i, v);
}

/* The next code: 0, or an entry's index + 1. */
static int next_code(struct ig_bitreader *br, const struct ig_pcode *code, size_t nentries, uint64_t *c,
                     struct ig_error *err)
{
    uint64_t L, low;
    if (ig_slide_read_coded(br, code, &L, &low)) return ig_err(err, -EIO, "slide page: dictionary codes truncated");
    *c = ig_slide_from_code(L, low);
    if (*c > nentries)
        return ig_err(err, -EIO, "slide page: code %llu past the dictionary's %zu entries", (unsigned long long)*c,
                      nentries);
    return 0;
}

int ig_slide_dict_next(struct ig_slide_dict_reader *r, uint64_t *x, struct ig_error *err)
{
    uint64_t c;
    *x = 0;
    int rc = next_code(&r->br, &r->code, r->d.nentries, &c, err);
    if (!rc && c && entry_at(r, c - 1, x))
        rc = ig_err(err, -EIO, "slide page: dictionary entry %llu is damaged", (unsigned long long)c - 1);
    return rc;
}

void ig_slide_dict_close(struct ig_slide_dict_reader *r)
{
    free(r->words);
    free(r->before);
    ig_pcode_free(&r->code);
    memset(r, 0, sizeof *r);
}

int ig_slide_dict_values(const struct ig_slide_dict *d, uint64_t *out, struct ig_error *err)
{
    uint64_t *vals = malloc((d->nentries + 1) * sizeof *vals);
    struct ig_pcode code;
    int rc = vals ? load_code(d->ctable, &code, err) : ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        free(vals);
        return rc;
    }
    rc = ig_slide_dict_entries(d, vals, err);
    struct ig_bitreader br = {d->cbits, d->cbits_len, 0};
    for (size_t j = 0; j < d->nvalues && !rc; j++) {
        uint64_t c;
        rc = next_code(&br, &code, d->nentries, &c, err);
        out[j] = rc || !c ? 0 : vals[c - 1];
    }
    ig_pcode_free(&code);
    free(vals);
    return rc;
}

/* ---- writing ---------------------------------------------------------------- */

/* The low bits per entry of a sorted group whose largest entry is max: the
 * high parts (max >> l) + n then take under 3n bits. */
static unsigned low_bits(uint64_t max, size_t n)
{
    unsigned l = 0;
    while (l < 63 && (max >> l) / 2 >= n)
        l++;
    return l;
}

/* Append group vals[0..n) (ascending) with l low bits and ubits upper bits;
 * -ENOSPC if an entry does not fit them. */
static int put_group(const uint64_t *vals, size_t n, unsigned l, uint64_t ubits, struct ig_buf *out)
{
    size_t lb = (n * l + 7) / 8, ub = (size_t)((ubits + 7) / 8);
    uint8_t *o = ig_buf_extend(out, IG_SLIDE_GROUP_HDR + lb + ub + 8);
    if (!o) return -ENOMEM;
    memset(o, 0, IG_SLIDE_GROUP_HDR + lb + ub + 8);
    o[IG_SLIDE_GROUP_LOW] = (uint8_t)l;
    ig_st32(o + IG_SLIDE_GROUP_UPPER, (uint32_t)ubits);
    uint8_t *lows = o + IG_SLIDE_GROUP_HDR, *upper = lows + lb;
    struct ig_bitwriter bw = {.dst = lows}; /* its words stay inside lows: only a full one is stored */
    for (size_t i = 0; i < n; i++) {
        uint64_t at = (vals[i] >> l) + i;
        if (at >= ubits || (i && vals[i] < vals[i - 1])) return -ENOSPC;
        upper[at / 8] |= (uint8_t)(1u << (at % 8));
        ig_bw_put(&bw, vals[i], l);
    }
    ig_bw_flush(&bw);
    out->len -= 8; /* the slack was only for the writes */
    return 0;
}

/* Append the bulk: header, the groups of entries ranked[0..nent) (with each
 * group's l and upper bits from ls and us when not NULL, else chosen), the
 * codes under cc; cbit[b] gets the bit of value bval[b]. */
static int put_bulk(const uint64_t *ranked, size_t nent, const uint8_t *ls, const uint64_t *us,
                    const uint64_t *codes, size_t n, const struct ig_pcode *cc, const uint64_t *bval, size_t nbases,
                    uint64_t *cbit, struct ig_buf *out)
{
    if (nent > UINT32_MAX) return -EFBIG;
    size_t at = out->len;
    uint8_t *h = ig_buf_extend(out, IG_SLIDE_DICT_HDR);
    if (!h) return -ENOMEM;
    memset(h, 0, IG_SLIDE_DICT_HDR);
    ig_st32(h + IG_SLIDE_DICT_ENTRIES, (uint32_t)nent);
    ig_pcode_store(cc, h + IG_SLIDE_DICT_TABLE);
    int rc = 0;
    for (size_t r = 0, k = 0; r < nent && !rc; r = group_end(r, nent), k++) {
        size_t gn = group_end(r, nent) - r;
        unsigned l = ls ? ls[k] : low_bits(ranked[r + gn - 1], gn);
        uint64_t ubits = us ? us[k] : (ranked[r + gn - 1] >> l) + gn;
        rc = ubits > UINT32_MAX ? -EFBIG : put_group(ranked + r, gn, l, ubits, out);
    }
    if (rc) return rc;
    if (out->len - at - IG_SLIDE_DICT_HDR > UINT32_MAX) return -EFBIG;
    ig_st32(out->data + at + IG_SLIDE_DICT_BYTES, (uint32_t)(out->len - at - IG_SLIDE_DICT_HDR));
    uint64_t cbits = 0;
    for (size_t j = 0; j < n; j++)
        cbits += ig_slide_coded_bits(cc, codes[j]);
    size_t cb = (size_t)((cbits + 7) / 8);
    uint8_t *dst = ig_buf_extend(out, cb + 8);
    if (!dst) return -ENOMEM;
    memset(dst, 0, cb + 8);
    struct ig_bitwriter bw = {.dst = dst};
    size_t b = 0;
    for (size_t j = 0; j < n; j++) {
        while (b < nbases && bval[b] == j)
            cbit[b++] = bw.pos;
        ig_slide_put_coded(&bw, cc, codes[j]);
    }
    ig_bw_flush(&bw);
    while (b < nbases)
        cbit[b++] = bw.pos;
    out->len -= 8; /* the slack was only for the writes */
    return 0;
}

int ig_slide_dict_encode(const uint64_t *vals, size_t n, const uint64_t *bval, size_t nbases, uint64_t *cbit,
                         struct ig_slide_dict_scratch *sc, struct ig_buf *out, bool *made)
{
    *made = false;
    ig_buf_reset(out);
    int rc = ig_u64vec_size(&sc->a, 6 * (n + 1));
    if (rc) return rc;
    uint64_t *u = sc->a.v, *cnt = u + (n + 1), *ranked = cnt + (n + 1), *codes = ranked + (n + 1),
             *order = codes + (n + 1), *tmp = order + (n + 1);
    size_t m = 0, nd = 0;
    for (size_t j = 0; j < n; j++)
        if (vals[j]) u[m++] = vals[j];
    ig_sort_u64_with(u, m, tmp);
    for (size_t j = 0; j < m; j++) { /* distinct values and their counts */
        if (nd && u[nd - 1] == u[j]) {
            cnt[nd - 1]++;
            continue;
        }
        u[nd] = u[j];
        cnt[nd++] = 1;
    }
    /* with few repeats a dictionary names nearly every value once and its
     * codes cost what sorting saves: not worth the work */
    if (nd == 0 || m > UINT32_MAX || nd * 10 > m * 9) return 0;
    /* most frequent first (ties: the smaller value), as one sort of keys */
    for (size_t k = 0; k < nd; k++)
        order[k] = (UINT32_MAX - cnt[k]) << 32 | k;
    ig_sort_u64_with(order, nd, tmp);
    for (size_t r = 0; r < nd; r++)
        order[r] &= UINT32_MAX;
    for (size_t r = 0; r < nd; r = group_end(r, nd)) /* each group by value (u is sorted) */
        ig_sort_u64_with(order + r, group_end(r, nd) - r, tmp);
    struct ig_u64map *map = &sc->map; /* each distinct value's rank + 1 */
    rc = ig_u64map_reset(map, nd);
    if (rc) return rc;
    for (size_t r = 0; r < nd; r++) {
        ranked[r] = u[order[r]];
        size_t k = ig_u64map_slot(map, ranked[r]);
        map->keys[k] = ranked[r];
        map->vals[k] = (uint32_t)r + 1;
    }
    for (size_t j = 0; j < n; j++) /* the code: rank + 1 */
        codes[j] = vals[j] ? map->vals[ig_u64map_slot(map, vals[j])] : 0;
    /* an erased value is written as code 0 or as its group's first code
     * (erase_code): 0 needs no code of its own */
    for (size_t j = 0; j < n; j++)
        cnt[j] = ig_bit_len(codes[j]); /* cnt: scratch now */
    struct ig_pcode cc;
    if (!ig_slide_length_code(cnt, n, false, &cc)) return 0;
    rc = put_bulk(ranked, nd, NULL, NULL, codes, n, &cc, bval, nbases, cbit, out);
    *made = rc == 0;
    return rc;
}

void ig_slide_dict_scratch_free(struct ig_slide_dict_scratch *sc)
{
    ig_u64vec_free(&sc->a);
    ig_u64map_free(&sc->map);
}

/* ---- erasure ---------------------------------------------------------------- */

/* Every code of the bulk (0, or an entry's index + 1). */
static int read_codes(const struct ig_slide_dict *d, uint64_t *codes, uint64_t *end, struct ig_error *err)
{
    struct ig_pcode code;
    int rc = load_code(d->ctable, &code, err);
    struct ig_bitreader br = {d->cbits, d->cbits_len, 0};
    for (size_t j = 0; j < d->nvalues && !rc; j++)
        rc = next_code(&br, &code, d->nentries, &codes[j], err);
    if (end) *end = br.pos;
    ig_pcode_free(&code);
    return rc;
}

/* What a dead value's code c becomes: 0 when that costs no more, else the
 * first code of c's group (its bit length, low bits 0: the same cost). Either
 * tells no more of the value than the group counts do. */
static uint64_t erase_code(const struct ig_pcode *cc, uint64_t c)
{
    if (!c || (cc->len[0] && cc->len[0] <= ig_slide_coded_bits(cc, c))) return 0;
    return 1ull << (ig_bit_len(c) - 1);
}

/* Which entries some live value refers to (live: nentries bits, zeroed here). */
static void live_entries(const struct ig_slide_dict *d, const uint64_t *codes, const uint8_t *dead, uint8_t *live)
{
    memset(live, 0, d->nentries / 8 + 1);
    for (size_t j = 0; j < d->nvalues; j++)
        if (codes[j] && !ig_slide_bit(dead, j)) live[(codes[j] - 1) / 8] |= (uint8_t)(1u << ((codes[j] - 1) % 8));
}

int ig_slide_dict_erase(const struct ig_slide_dict *d, const uint64_t *bval, size_t nbases, const uint8_t *dead,
                        size_t old_offsets_len, struct ig_buf *out, struct ig_error *err)
{
    size_t n = d->nvalues, ne = d->nentries;
    uint64_t *codes = malloc((n + 1) * sizeof *codes), *vals = malloc((ne + 1) * sizeof *vals);
    uint64_t *moved = malloc((ne + 1) * sizeof *moved), *to = malloc((ne + 1) * sizeof *to);
    uint64_t *cbit = malloc((nbases + 1) * sizeof *cbit), us[IG_SLIDE_MAX_GROUPS];
    uint8_t *live = malloc(ne / 8 + 1), ls[IG_SLIDE_MAX_GROUPS];
    struct ig_pcode cc = {0};
    int rc = codes && vals && moved && to && cbit && live ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = ig_slide_dict_entries(d, vals, err);
    if (!rc) rc = read_codes(d, codes, NULL, err);
    if (!rc) {
        ig_pcode_load(d->ctable, &cc);
        rc = ig_pcode_build(&cc, 0) ? ig_err(err, -EIO, "slide page: bad length code table") : 0;
    }
    if (!rc) {
        for (size_t j = 0; j < n; j++)
            if (ig_slide_bit(dead, j)) codes[j] = erase_code(&cc, codes[j]);
        live_entries(d, codes, dead, live);
        /* per group: its live entries in their order, then the others as
         * copies of the last live one; `to` maps old ranks to new ones */
        for (unsigned k = 0; k < d->ngroups; k++) {
            const struct ig_slide_group *g = &d->groups[k];
            size_t at = g->first, e = g->first + g->n;
            uint64_t last = 0;
            for (size_t r = g->first; r < e; r++)
                if (ig_slide_bit(live, r)) to[r] = at, moved[at++] = last = vals[r];
            for (size_t r = g->first; r < e; r++)
                if (!ig_slide_bit(live, r)) to[r] = at, moved[at++] = last;
            ls[k] = g->l;
            us[k] = g->ubits;
        }
        for (size_t j = 0; j < n; j++) /* a group's first code stays its first */
            if (codes[j] && !ig_slide_bit(dead, j)) codes[j] = to[codes[j] - 1] + 1;
    }
    size_t at = out->len;
    struct ig_buf bulk = IG_BUF_INIT;
    if (!rc) {
        rc = put_bulk(moved, ne, ls, us, codes, n, &cc, bval, nbases, cbit, &bulk);
        if (rc == -ENOSPC) ig_err(err, rc, "slide page: a dictionary group is not sorted");
        else if (rc) ig_err(err, rc, "out of memory");
    }
    if (!rc) rc = ig_slide_put_stream(out, cbit, nbases, IG_ENC_BITPACK, true, err);
    if (!rc && out->len - at > old_offsets_len + 4) rc = ig_err(err, -ENOSPC, "slide page: base offsets grew");
    if (!rc && ig_buf_append(out, bulk.data, bulk.len)) rc = ig_err(err, -ENOMEM, "out of memory");
    ig_buf_free(&bulk);
    ig_pcode_free(&cc);
    free(codes);
    free(vals);
    free(moved);
    free(to);
    free(cbit);
    free(live);
    return rc;
}

int ig_slide_dict_check(const struct ig_slide_dict *d, const uint8_t *dead, struct ig_error *err)
{
    size_t n = d->nvalues, ne = d->nentries;
    uint64_t *codes = malloc((n + 1) * sizeof *codes), *vals = malloc((ne + 1) * sizeof *vals), cend = 0;
    uint8_t *live = malloc(ne / 8 + 1);
    int rc = codes && vals && live ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = ig_slide_dict_entries(d, vals, err);
    if (!rc) rc = read_codes(d, codes, &cend, err);
    for (size_t j = 0; !rc && j < n; j++) /* 0, or the first code of a group */
        if (ig_slide_bit(dead, j) && (codes[j] & (codes[j] - 1)))
            rc = ig_err(err, -EIO, "slide page: erased value %zu still refers to dictionary entry %llu", j,
                        (unsigned long long)codes[j] - 1);
    if (!rc) live_entries(d, codes, dead, live);
    /* an entry no live value uses is a copy of the one before it (0 first) */
    for (size_t r = 0; !rc && r < ne; r++)
        if (!ig_slide_bit(live, r) && vals[r] != (group_start(r) ? 0 : vals[r - 1]))
            rc = ig_err(err, -EIO, "slide page: dictionary entry %zu, which no live value uses, still holds data", r);
    if (!rc && !ig_bits_zero_from(d->cbits, d->cbits_len, cend))
        rc = ig_err(err, -EIO, "slide page: bits remain past the last code");
    free(codes);
    free(vals);
    free(live);
    return rc;
}
