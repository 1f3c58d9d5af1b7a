/* pq_decode.c - the encodings inside a Parquet page (pq_decode.h): its
 * bytes decompressed (snappy, gzip, zstd, brotli, lz4_raw, lz4 with Hadoop
 * framing), its level streams (RLE/bit-packed hybrid, BIT_PACKED), and its
 * values: PLAIN, dictionary codes, RLE booleans, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT. Every
 * length is checked against the bytes that hold it. Which page holds what,
 * and the chunk's walk through them, is pq_page.c's. */
#include "pq_codecs.h"
#include "pq_decode.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int pq_fail(struct pq_ctx *x, int code, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ig_err(x->err, code, "%s, page %u: %s", x->where, x->page, msg);
}

/* w (0..64) bits at bit position pos of p[0..len), LSB first; the caller has
 * checked that pos + w <= 8 * len. */
static inline uint64_t bits_at(const uint8_t *p, size_t len, uint64_t pos, unsigned w)
{
    if (!w) return 0;
    size_t b = (size_t)(pos >> 3);
    unsigned sh = (unsigned)(pos & 7);
    uint64_t v = 0;
    memcpy(&v, p + b, len - b >= 8 ? 8 : len - b); /* little-endian hosts only (meson checks) */
    v >>= sh;
    if (sh + w > 64) v |= (uint64_t)p[b + 8] << (64 - sh);
    return w == 64 ? v : v & ((1ULL << w) - 1);
}

static int want_idx(struct pq_scratch *s, size_t n)
{
    if (n <= s->idx_cap) return 0;
    uint32_t *p = realloc(s->idx, n * sizeof *p);
    if (!p) return -ENOMEM;
    s->idx = p;
    s->idx_cap = n;
    return 0;
}

/* `take` values of bw (<= 32) bits from a bit-packed run of `avail` bytes:
 * one 8-byte load each while eight bytes remain (a shift of at most 7 and 32
 * bits fit in them), bits_at's careful load for the last few. */
static void unpack_run(const uint8_t *p, size_t avail, unsigned bw, size_t take, uint32_t *out)
{
    const uint64_t mask = (1ULL << bw) - 1;
    size_t i = 0;
    for (; i < take; i++) {
        uint64_t pos = (uint64_t)i * bw;
        size_t b = (size_t)(pos >> 3);
        if (avail < 8 || b > avail - 8) break;
        uint64_t v;
        memcpy(&v, p + b, 8); /* little-endian hosts only (meson checks) */
        out[i] = (uint32_t)((v >> (pos & 7)) & mask);
    }
    for (; i < take; i++) out[i] = (uint32_t)bits_at(p, avail, (uint64_t)i * bw, bw);
}

/* The RLE / bit-packed hybrid: n values of bw (0..32) bits into out. Returns the
 * bytes it used, or -1 when the runs are damaged or too short. */
static long rle_decode(const uint8_t *p, size_t len, unsigned bw, size_t n, uint32_t *out)
{
    size_t at = 0, got = 0, vbytes = (bw + 7) / 8;
    while (got < n) {
        uint64_t h;
        size_t k = ig_varint_get(p + at, len - at, &h);
        if (!k) return -1;
        at += k;
        size_t left = n - got;
        if (h & 1) { /* bit-packed: groups of 8 values */
            uint64_t groups = h >> 1;
            if (!groups) return -1;
            size_t take = groups >= (left + 7) / 8 ? left : (size_t)groups * 8;
            size_t need = (take * bw + 7) / 8;
            if (need > len - at) return -1;
            unpack_run(p + at, len - at, bw, take, out + got);
            /* the last run may be cut short after the values the page holds */
            uint64_t full = groups * bw;
            at += full < len - at ? (size_t)full : len - at;
            got += take;
        } else { /* a run of one value */
            uint64_t count = h >> 1;
            if (!count || vbytes > len - at) return -1;
            uint32_t v = 0;
            for (size_t b = 0; b < vbytes; b++) v |= (uint32_t)p[at + b] << (8 * b);
            at += vbytes;
            if (bw < 32 && (v >> bw)) return -1;
            size_t take = count < left ? (size_t)count : left;
            for (size_t i = 0; i < take; i++) out[got + i] = v;
            got += take;
        }
    }
    return (long)at;
}

/* DELTA_BINARY_PACKED: exactly `want` values into out (wrapping 64-bit sums;
 * INT32 callers keep the low 32 bits). Returns the bytes used, or -1. */
static long delta_decode(const uint8_t *p, size_t len, size_t want, uint64_t *out)
{
    size_t at = 0, k;
    uint64_t block, mbs, total, first;
    if (!(k = ig_varint_get(p, len, &block))) return -1;
    at += k;
    if (!(k = ig_varint_get(p + at, len - at, &mbs))) return -1;
    at += k;
    if (!(k = ig_varint_get(p + at, len - at, &total))) return -1;
    at += k;
    if (!(k = ig_varint_get(p + at, len - at, &first))) return -1;
    at += k;
    if (!block || block % 128 || block > (1u << 20) || !mbs || block % mbs || (block / mbs) % 32)
        return -1;
    if (total != want) return -1;
    if (!total) return (long)at;
    uint64_t prev = ig_unzigzag64(first), per = block / mbs;
    out[0] = prev;
    size_t got = 1;
    while (got < total) {
        uint64_t md;
        if (!(k = ig_varint_get(p + at, len - at, &md))) return -1;
        at += k;
        uint64_t min_delta = ig_unzigzag64(md);
        if (mbs > len - at) return -1;
        const uint8_t *widths = p + at;
        at += (size_t)mbs;
        for (uint64_t m = 0; m < mbs && got < total; m++) {
            unsigned w = widths[m];
            if (w > 64) return -1;
            size_t take = total - got < per ? (size_t)(total - got) : (size_t)per;
            uint64_t full = per * w / 8;
            if ((take * w + 7) / 8 > len - at) return -1;
            for (size_t i = 0; i < take; i++) {
                prev += min_delta + bits_at(p + at, len - at, (uint64_t)i * w, w);
                out[got++] = prev;
            }
            at += full < len - at ? (size_t)full : len - at;
        }
    }
    return (long)at;
}

/* A page's bytes, uncompressed: *out points at src itself when the page is
 * stored uncompressed (no copy), else into dst. */
int pq_decompress(struct pq_ctx *x, uint8_t codec, const uint8_t *src, size_t slen, size_t dlen,
                      struct ig_buf *dst, const uint8_t **out)
{
    if (codec == PQ_UNCOMPRESSED) {
        if (slen != dlen)
            return pq_fail(x, -EIO, "uncompressed page of %zu bytes, the header says %zu", slen, dlen);
        *out = src;
        return 0;
    }
    dst->len = 0;
    if (ig_buf_reserve(dst, dlen + 1)) return pq_fail(x, -ENOMEM, "out of memory");
    char *d = (char *)dst->data;
    bool ok = false;
    if (dlen == 0) {
        /* nothing to decompress (a v2 page of NULLs only): writers store no
         * bytes at all, or an empty stream of their codec; either way there
         * is nothing to check, and zero bytes is no valid snappy stream */
        *out = dst->data;
        return 0;
    }
    char why[400] = ""; /* the codec's library, when it cannot be loaded */
    const struct pq_snappy *sn = codec == PQ_SNAPPY ? pq_snappy(why, sizeof why) : NULL;
    const struct pq_zlib *zl = codec == PQ_GZIP ? pq_zlib(why, sizeof why) : NULL;
    const struct pq_brotli *br = codec == PQ_BROTLI ? pq_brotli(why, sizeof why) : NULL;
    const struct pq_lz4 *lz = codec == PQ_LZ4 || codec == PQ_LZ4_RAW ? pq_lz4(why, sizeof why) : NULL;
    if (why[0]) return pq_fail(x, -ENOSYS, "%s", why);
    switch (codec) {
    case PQ_SNAPPY: {
        size_t n;
        ok = sn->uncompressed_length((const char *)src, slen, &n) == SNAPPY_OK && n == dlen &&
             sn->uncompress((const char *)src, slen, d, &n) == SNAPPY_OK && n == dlen;
        break;
    }
    case PQ_ZSTD: {
        size_t n = ZSTD_decompress(d, dlen, src, slen);
        ok = !ZSTD_isError(n) && n == dlen;
        break;
    }
    case PQ_GZIP: {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (zl->inflate_init2(&zs, 15 + 32, ZLIB_VERSION, (int)sizeof zs) != Z_OK)
            return pq_fail(x, -ENOMEM, "out of memory (zlib)");
        zs.next_in = (Bytef *)(uintptr_t)src;
        zs.avail_in = (uInt)slen;
        zs.next_out = (Bytef *)d;
        zs.avail_out = (uInt)dlen;
        int zr = zl->inflate(&zs, Z_FINISH);
        /* gzip allows several members one after another (a writer that
         * compresses a page in pieces): each ends a stream, the next starts
         * where it ended; total_out restarts with each, so count by next_out */
        while (zr == Z_STREAM_END && zs.avail_in > 0 && zs.avail_out > 0 && zl->inflate_reset(&zs) == Z_OK)
            zr = zl->inflate(&zs, Z_FINISH);
        ok = zr == Z_STREAM_END && (size_t)((char *)zs.next_out - d) == dlen;
        zl->inflate_end(&zs);
        break;
    }
    case PQ_BROTLI: {
        size_t n = dlen;
        ok = br->decompress(slen, src, &n, (uint8_t *)d) == BROTLI_DECODER_RESULT_SUCCESS && n == dlen;
        break;
    }
    case PQ_LZ4_RAW:
        ok = lz->decompress_safe((const char *)src, d, (int)slen, (int)dlen) == (int)dlen;
        break;
    case PQ_LZ4: { /* Hadoop framing: [BE expanded size][BE compressed size][block]... */
        size_t at = 0, done = 0;
        ok = true;
        while (ok && at < slen) {
            if (slen - at < 8) { ok = false; break; }
            uint32_t exp = (uint32_t)src[at] << 24 | (uint32_t)src[at + 1] << 16 | (uint32_t)src[at + 2] << 8 | src[at + 3];
            uint32_t cmp = (uint32_t)src[at + 4] << 24 | (uint32_t)src[at + 5] << 16 | (uint32_t)src[at + 6] << 8 | src[at + 7];
            at += 8;
            if (cmp > slen - at || exp > dlen - done) { ok = false; break; }
            ok = lz->decompress_safe((const char *)src + at, d + done, (int)cmp, (int)exp) == (int)exp;
            at += cmp;
            done += exp;
        }
        ok = ok && done == dlen;
        if (!ok) /* some writers put a bare block under this codec */
            ok = lz->decompress_safe((const char *)src, d, (int)slen, (int)dlen) == (int)dlen;
        break;
    }
    default:
        return pq_fail(x, -EINVAL, "%s compression is not supported", pq_codec_name(codec));
    }
    if (!ok)
        return pq_fail(x, -EIO, "%s data does not decompress to the %zu bytes the page header says",
                    pq_codec_name(codec), dlen);
    dst->len = dlen;
    *out = dst->data;
    return 0;
}

static unsigned bit_width(unsigned max) { return max ? 32u - (unsigned)__builtin_clz(max) : 0u; }

/* One level stream (RLE hybrid, no length prefix) of n levels, each <= max. */
int pq_decode_levels(struct pq_ctx *x, const uint8_t *p, size_t len, unsigned max, size_t n,
                         uint8_t *out, const char *what)
{
    if (want_idx(x->s, n)) return pq_fail(x, -ENOMEM, "out of memory");
    long used = rle_decode(p, len, bit_width(max), n, x->s->idx);
    if (used < 0) return pq_fail(x, -EIO, "%s levels are damaged", what);
    /* narrowed and checked in one pass the compiler can vectorise (out, bytes,
     * may alias anything: the levels are read through a local pointer) */
    const uint32_t *idx = x->s->idx;
    uint32_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        worst = idx[i] > worst ? idx[i] : worst;
        out[i] = (uint8_t)idx[i];
    }
    for (size_t i = 0; worst > max && i < n; i++)
        if (idx[i] > max) return pq_fail(x, -EIO, "%s level %u above the column's maximum %u", what, idx[i], max);
    return 0;
}

int pq_decode_levels_packed(struct pq_ctx *x, const uint8_t *p, size_t len, unsigned max, size_t n,
                            uint8_t *out, const char *what, size_t *used)
{
    unsigned bw = bit_width(max);
    uint64_t need = ((uint64_t)n * bw + 7) / 8;
    if (need > len) return pq_fail(x, -EIO, "%s levels: %zu BIT_PACKED levels in %zu bytes", what, n, len);
    for (size_t i = 0; i < n; i++) {
        unsigned v = 0;
        for (unsigned b = 0; b < bw; b++) {
            uint64_t at = (uint64_t)i * bw + b;
            v = v << 1 | ((p[at >> 3] >> (7 - (at & 7))) & 1u);
        }
        if (v > max) return pq_fail(x, -EIO, "%s level %u above the column's maximum %u", what, v, max);
        out[i] = (uint8_t)v;
    }
    *used = (size_t)need;
    return 0;
}

static int fixed_width(const struct pq_node *leaf)
{
    switch (leaf->type) {
    case PQ_INT32: case PQ_FLOAT: return 4;
    case PQ_INT64: case PQ_DOUBLE: return 8;
    case PQ_INT96: return 12;
    case PQ_FLBA: return leaf->type_length;
    default: return 0;
    }
}

/* INT96 (8 bytes nanoseconds of the day, 4 bytes Julian day, both signed) as
 * int64 microseconds since 1970, as Spark (its main writer) and DuckDB read
 * it: nanoseconds would reach only the years 1677 to 2262, and warehouses
 * write 9999-12-31 for "no end". The nanoseconds below a microsecond are
 * dropped. The sum wraps around as int64 arithmetic would: Spark computes
 * day and time of day in an int64 that overflows past the year ~290,000,
 * leaving both negative, and the wrapped sum is the time it meant
 * (int96_from_spark.parquet). */
static uint64_t int96_us(const uint8_t *p)
{
    int64_t micros_of_day = (int64_t)ig_ld64(p) / 1000;
    int64_t day = (int64_t)(int32_t)ig_ld32(p + 8) - 2440588;
    return (uint64_t)day * 86400000000ULL + (uint64_t)micros_of_day;
}

/* A fixed-width value from its little-endian bytes as a lane (zero-extended). */
static uint64_t lane_of(const struct pq_node *leaf, const uint8_t *p)
{
    switch (leaf->type) {
    case PQ_INT32: case PQ_FLOAT: return ig_ld32(p);
    case PQ_INT96: return int96_us(p);
    default: return ig_ld64(p);
    }
}

static int push_bytes(struct pq_ctx *x, struct ig_values *v, const uint8_t *p, size_t len)
{
    return ig_values_push_bytes(v, p, len) ? pq_fail(x, -ENOMEM, "out of memory") : 0;
}

/* PLAIN values: n of them from p[0..len) into v. */
int pq_decode_plain(struct pq_ctx *x, const uint8_t *p, size_t len, size_t n, struct ig_values *v)
{
    const struct pq_node *leaf = x->leaf;
    if (leaf->type == PQ_BYTE_ARRAY) {
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            if (len - at < 4) return pq_fail(x, -EIO, "PLAIN strings end after %zu of %zu", i, n);
            uint32_t l = ig_ld32(p + at);
            at += 4;
            if (l > len - at) return pq_fail(x, -EIO, "PLAIN string %zu runs past the page", i);
            if (push_bytes(x, v, p + at, l)) return -ENOMEM;
            at += l;
        }
        return 0;
    }
    if (ig_values_reserve(v, v->n + n)) return pq_fail(x, -ENOMEM, "out of memory");
    if (leaf->type == PQ_BOOLEAN) {
        if ((n + 7) / 8 > len) return pq_fail(x, -EIO, "PLAIN booleans: %zu values in %zu bytes", n, len);
        for (size_t i = 0; i < n; i++) v->lanes[v->n + i] = (p[i / 8] >> (i % 8)) & 1;
        v->n += n;
        return 0;
    }
    size_t w = (size_t)fixed_width(leaf);
    if (!w || n > len / w) return pq_fail(x, -EIO, "PLAIN: %zu values of %zu bytes in %zu bytes", n, w, len);
    if (leaf->type == PQ_FLBA) {
        for (size_t i = 0; i < n; i++)
            if (push_bytes(x, v, p + i * w, w)) return -ENOMEM;
        return 0;
    }
    for (size_t i = 0; i < n; i++) v->lanes[v->n + i] = lane_of(leaf, p + i * w);
    v->n += n;
    return 0;
}

static int decode_bss(struct pq_ctx *x, const uint8_t *p, size_t len, size_t n, struct ig_values *v)
{
    size_t w = (size_t)fixed_width(x->leaf);
    if (!w || x->leaf->type == PQ_INT96 || w > 16 || n > len / w)
        return pq_fail(x, -EIO, "BYTE_STREAM_SPLIT: %zu values of %zu bytes in %zu bytes", n, w, len);
    uint8_t one[16];
    if (ig_values_reserve(v, v->n + n)) return pq_fail(x, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 0; b < w; b++) one[b] = p[b * n + i];
        if (x->leaf->type == PQ_FLBA) {
            if (push_bytes(x, v, one, w)) return -ENOMEM;
        } else {
            v->lanes[v->n++] = lane_of(x->leaf, one);
        }
    }
    return 0;
}

static int decode_dict_codes(struct pq_ctx *x, const uint8_t *p, size_t len, size_t n, struct ig_values *v)
{
    const struct ig_values *d = &x->s->dict;
    if (!x->s->dict.type) return pq_fail(x, -EIO, "dictionary-coded page without a dictionary page");
    if (n == 0) return 0;
    if (len < 1 || p[0] > 32) return pq_fail(x, -EIO, "bad dictionary code width");
    if (want_idx(x->s, n)) return pq_fail(x, -ENOMEM, "out of memory");
    if (rle_decode(p + 1, len - 1, p[0], n, x->s->idx) < 0)
        return pq_fail(x, -EIO, "dictionary codes are damaged");
    const uint32_t *idx = x->s->idx;
    uint32_t worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = idx[i] > worst ? idx[i] : worst;
    for (size_t i = 0; worst >= d->n && i < n; i++)
        if (idx[i] >= d->n) return pq_fail(x, -EIO, "dictionary code %u, the dictionary has %zu values", idx[i], d->n);
    if (d->is_bytes) /* every code checked: the strings in one pass */
        return ig_values_push_bytes_coded(v, d, idx, n) ? pq_fail(x, -ENOMEM, "out of memory") : 0;
    if (ig_values_reserve(v, v->n + n)) return pq_fail(x, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        v->lanes[v->n + i] = d->lanes[idx[i]];
    v->n += n;
    return 0;
}

/* n lengths (DELTA_BINARY_PACKED) then the bytes of n values, into v; *used. */
static int decode_delta_lba(struct pq_ctx *x, const uint8_t *p, size_t len, size_t n,
                            struct ig_values *v, size_t *used)
{
    struct ig_buf *t = &x->s->tmp;
    t->len = 0;
    if (ig_buf_reserve(t, (n ? n : 1) * sizeof(uint64_t))) return pq_fail(x, -ENOMEM, "out of memory");
    uint64_t *lens = (uint64_t *)(void *)t->data;
    long at = delta_decode(p, len, n, lens);
    if (at < 0) return pq_fail(x, -EIO, "DELTA_LENGTH_BYTE_ARRAY lengths are damaged");
    size_t pos = (size_t)at;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > len - pos) return pq_fail(x, -EIO, "DELTA_LENGTH_BYTE_ARRAY value %zu runs past the page", i);
        if (push_bytes(x, v, p + pos, (size_t)lens[i])) return -ENOMEM;
        pos += (size_t)lens[i];
    }
    *used = pos;
    return 0;
}

static int decode_delta_ba(struct pq_ctx *x, const uint8_t *p, size_t len, size_t n, struct ig_values *v)
{
    /* prefix lengths, then the suffixes as DELTA_LENGTH_BYTE_ARRAY; each value is
     * built in `cur` from `prev`'s prefix, then the two buffers swap */
    uint64_t *pre = malloc((n ? n : 1) * sizeof *pre);
    if (!pre) return pq_fail(x, -ENOMEM, "out of memory");
    struct ig_values suf;
    ig_values_init(&suf, IG_T_BINARY);
    struct ig_buf prev = {0}, cur = {0};
    size_t used;
    long at = delta_decode(p, len, n, pre);
    int rc = at < 0 ? pq_fail(x, -EIO, "DELTA_BYTE_ARRAY prefix lengths are damaged")
                    : decode_delta_lba(x, p + at, len - (size_t)at, n, &suf, &used);
    for (size_t i = 0; i < n && !rc; i++) {
        size_t sl;
        const uint8_t *s = ig_values_bytes(&suf, i, &sl);
        if (pre[i] > prev.len) {
            rc = pq_fail(x, -EIO, "DELTA_BYTE_ARRAY value %zu shares %" PRIu64 " bytes with a %zu-byte value", i, pre[i], prev.len);
            break;
        }
        cur.len = 0;
        if (ig_buf_append(&cur, prev.data, (size_t)pre[i]) || ig_buf_append(&cur, s, sl)) {
            rc = pq_fail(x, -ENOMEM, "out of memory");
            break;
        }
        rc = push_bytes(x, v, cur.data, cur.len);
        struct ig_buf t = prev;
        prev = cur;
        cur = t;
    }
    ig_buf_free(&prev);
    ig_buf_free(&cur);
    free(pre);
    ig_values_free(&suf);
    return rc;
}

int pq_decode_values(struct pq_ctx *x, unsigned enc, const uint8_t *p, size_t len, size_t n,
                         struct ig_values *v)
{
    const struct pq_node *leaf = x->leaf;
    size_t used;
    switch (enc) {
    case E_PLAIN:
        return pq_decode_plain(x, p, len, n, v);
    case E_PLAIN_DICT:
    case E_RLE_DICT:
        return decode_dict_codes(x, p, len, n, v);
    case E_RLE:
        if (leaf->type != PQ_BOOLEAN) break;
        if (len < 4 || ig_ld32(p) > len - 4) return pq_fail(x, -EIO, "RLE booleans: bad length");
        if (want_idx(x->s, n) || ig_values_reserve(v, v->n + n)) return pq_fail(x, -ENOMEM, "out of memory");
        if (rle_decode(p + 4, ig_ld32(p), 1, n, x->s->idx) < 0) return pq_fail(x, -EIO, "RLE booleans are damaged");
        for (size_t i = 0; i < n; i++) v->lanes[v->n + i] = x->s->idx[i];
        v->n += n;
        return 0;
    case E_DELTA_BP: {
        if (leaf->type != PQ_INT32 && leaf->type != PQ_INT64) break;
        if (ig_values_reserve(v, v->n + n)) return pq_fail(x, -ENOMEM, "out of memory");
        if (delta_decode(p, len, n, v->lanes + v->n) < 0) return pq_fail(x, -EIO, "DELTA_BINARY_PACKED values are damaged");
        if (leaf->type == PQ_INT32)
            for (size_t i = 0; i < n; i++) v->lanes[v->n + i] &= 0xffffffffu;
        v->n += n;
        return 0;
    }
    case E_DELTA_LBA:
        if (leaf->type != PQ_BYTE_ARRAY) break;
        return decode_delta_lba(x, p, len, n, v, &used);
    case E_DELTA_BA:
        if (!pq_is_bytes_type(leaf)) break;
        return decode_delta_ba(x, p, len, n, v);
    case E_BSS:
        if (leaf->type == PQ_BOOLEAN || leaf->type == PQ_BYTE_ARRAY) break;
        return decode_bss(x, p, len, n, v);
    default:
        return pq_fail(x, -EINVAL, "encoding %s (%u) is not supported", pq_enc_name(enc), enc);
    }
    return pq_fail(x, -EIO, "encoding %s does not apply to %s values", pq_enc_name(enc), pq_type_name(leaf->type));
}
