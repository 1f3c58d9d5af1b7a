/* bench_decode - the decode speed of each encoding scheme beside zstd's on the
 * same values (the sizes benchmark's "decode throughput"; BENCHMARKS.md).
 *
 *   bench_decode bytes FILE [BLOCK]     FILE: items as u32 LE length + bytes
 *   bench_decode float64 FILE [BLOCK]   FILE: float64 LE values
 *   bench_decode float32 FILE [BLOCK]   FILE: float32 LE values
 *
 * The values are cut into chunks of 65,536 (a row group's) and each chunk
 * into blocks of BLOCK plain bytes (strings: their bytes and 4 a value,
 * default 8192, the most a compressible string block holds; floats: default
 * 16384: 2,048 float64 values, 4,096 float32). Each scheme encodes every block on its own, as a
 * part's blocks are; zstd compresses the same blocks' plain streams (level
 * 3, the writer's), and once more in pages of 1 MiB, as Parquet's zstd does.
 * Prints a line a scheme:
 *
 *   scheme=NAME stored=BYTES ratio=R decode_MBps=S get_ns=T
 *
 * stored: the blocks and any chunk context (symbol table, dictionary);
 * decode_MBps: plain bytes (strings: their bytes; floats: 8 or 4 a value) over the
 * best of 5 decodes of every block into values (offsets and bytes, or lanes);
 * get_ns: one value of a block picked at random, as a row read gets it (a
 * zstd frame decompressed whole first), mean over 20,000 picks (500 in
 * pages of 1 MiB). One core.
 * Uses libingot's internal codecs (src/format/enc): the public API reads
 * tables, not streams. BENCH_DECODE_ONLY=NAME runs one scheme (to profile it). */
#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define CHUNK_ITEMS 65536
#define ZSTD_LEVEL 3
#define PAGE_BYTES (1u << 20)
#define ROUNDS 5
#define PICKS 20000

struct block {
    size_t first, n;     /* items */
    size_t chunk;        /* its chunk's index */
    struct ig_buf bytes; /* encoded (or compressed) */
};

struct column {
    bool is_bytes;
    size_t n;
    uint64_t *offs; /* bytes: n + 1 */
    uint8_t *data;
    uint64_t *lanes; /* floats: bit patterns */
    unsigned width;  /* floats: 8 or 4 bytes */
    uint64_t plain;  /* value bytes */
};

static void die(const char *what)
{
    fprintf(stderr, "bench_decode: %s\n", what);
    exit(1);
}

static void load(struct column *c, const char *kind, const char *path)
{
    size_t len;
    char *text;
    struct ig_error err = {0};
    if (ig_read_file(path, (size_t)1 << 40, &text, &len, &err)) die(err.msg);
    uint8_t *raw = (uint8_t *)text;
    memset(c, 0, sizeof *c);
    if (!strcmp(kind, "float64") || !strcmp(kind, "float32")) {
        c->width = kind[5] == '6' ? 8 : 4;
        c->n = len / c->width;
        c->lanes = malloc((c->n ? c->n : 1) * 8);
        if (!c->lanes) die("out of memory");
        for (size_t i = 0; i < c->n; i++)
            c->lanes[i] = ig_ld_le(raw + i * c->width, c->width);
        c->plain = c->n * c->width;
        free(raw);
        return;
    }
    if (strcmp(kind, "bytes")) die("kind is bytes, float64 or float32");
    c->is_bytes = true;
    size_t cap = 1024;
    c->offs = malloc(cap * sizeof *c->offs);
    c->data = malloc(len + 1);
    if (!c->offs || !c->data) die("out of memory");
    c->offs[0] = 0;
    for (size_t at = 0; at + 4 <= len;) {
        uint32_t l;
        memcpy(&l, raw + at, 4);
        if (at + 4 + l > len) die("truncated input");
        if (c->n + 2 > cap) {
            cap *= 2;
            c->offs = realloc(c->offs, cap * sizeof *c->offs);
            if (!c->offs) die("out of memory");
        }
        memcpy(c->data + c->offs[c->n], raw + at + 4, l);
        c->offs[c->n + 1] = c->offs[c->n] + l;
        c->n++;
        at += 4 + (size_t)l;
    }
    c->plain = c->offs[c->n];
    free(raw);
}

/* Blocks of about `target` plain bytes that never cross a chunk. */
static struct block *cut(const struct column *c, size_t target, size_t *nb)
{
    struct block *b = NULL;
    size_t cap = 0;
    *nb = 0;
    for (size_t i = 0; i < c->n;) {
        size_t chunk_end = (i / CHUNK_ITEMS + 1) * CHUNK_ITEMS, j = i, bytes = 0;
        if (chunk_end > c->n) chunk_end = c->n;
        while (j < chunk_end && (bytes < target || j == i)) {
            bytes += c->is_bytes ? (size_t)(c->offs[j + 1] - c->offs[j]) + 4 : c->width;
            j++;
        }
        if (*nb == cap) {
            cap = cap ? 2 * cap : 256;
            b = realloc(b, cap * sizeof *b);
            if (!b) die("out of memory");
        }
        b[(*nb)++] = (struct block){.first = i, .n = j - i, .chunk = i / CHUNK_ITEMS};
        i = j;
    }
    return b;
}

static void free_blocks(struct block *b, size_t nb)
{
    for (size_t i = 0; i < nb; i++)
        ig_buf_free(&b[i].bytes);
    free(b);
}

/* Offsets of block b's items from 0 (the codecs take a block's own). */
static uint64_t *block_offs(const struct column *c, const struct block *b)
{
    uint64_t *o = malloc((b->n + 1) * sizeof *o);
    if (!o) die("out of memory");
    for (size_t i = 0; i <= b->n; i++)
        o[i] = c->offs[b->first + i] - c->offs[b->first];
    return o;
}

enum how { SCHEME, ZSTD, ZDICT };

struct run {
    const char *name;
    enum how how;
    enum ig_enc scheme; /* SCHEME: forced; ZSTD and ZDICT: the plain stream under them */
    bool fsst;          /* a symbol table per chunk */
    size_t block;       /* plain bytes a block */
};

struct contexts {
    struct ig_chunk_ctx *cx; /* one a chunk */
    size_t n;
    uint64_t bytes;
};

static void train(const struct column *c, const struct run *r, struct contexts *ctx)
{
    ctx->n = (c->n + CHUNK_ITEMS - 1) / CHUNK_ITEMS;
    ctx->cx = calloc(ctx->n ? ctx->n : 1, sizeof *ctx->cx);
    ctx->bytes = 0;
    if (!ctx->cx) die("out of memory");
    for (size_t k = 0; k < ctx->n; k++) {
        size_t first = k * CHUNK_ITEMS, n = c->n - first < CHUNK_ITEMS ? c->n - first : CHUNK_ITEMS;
        uint64_t *o = malloc((n + 1) * sizeof *o);
        if (!o) die("out of memory");
        for (size_t i = 0; i <= n; i++)
            o[i] = c->offs[first + i] - c->offs[first];
        const uint8_t *d = c->data + c->offs[first];
        if (r->fsst && ig_fsst_train(o, d, n, &ctx->cx[k].fsst)) die("fsst: out of memory");
        if (r->how == ZDICT) {
            /* as the writer sizes it: a 64th of the chunk's text, at most 64 KiB */
            size_t t = (size_t)(o[n] / 64) < (64u << 10) ? (size_t)(o[n] / 64) : (64u << 10);
            if (t < 256 || ig_zdict_train(o, d, n, t, 0, &ctx->cx[k].zdict)) ctx->cx[k].zdict = NULL;
        }
        struct ig_buf w = {0};
        if (ig_chunk_ctx_write(&ctx->cx[k], &w)) die("context: out of memory");
        ctx->bytes += w.len;
        ig_buf_free(&w);
        free(o);
    }
}

static void untrain(struct contexts *ctx)
{
    for (size_t k = 0; k < ctx->n; k++)
        ig_chunk_ctx_free(&ctx->cx[k]);
    free(ctx->cx);
}

/* The scheme's stream of block b into out (-1: it cannot hold these values). */
static int encode_stream(const struct column *c, const struct block *b, enum ig_enc e,
                         const struct ig_chunk_ctx *cx, struct ig_buf *out)
{
    struct ig_enc_opts o = {.forced = e, .alp = true, .decimal = true, .expo = c->width == 4,
                            .huff_slots = true, .fsst = cx ? cx->fsst : NULL};
    if (c->is_bytes) {
        uint64_t *offs = block_offs(c, b);
        int rc = ig_bytes_encode(offs, c->data + c->offs[b->first], b->n, &o, out, NULL);
        free(offs);
        return rc ? -1 : 0;
    }
    struct ig_int_desc d = {(uint8_t)c->width, false};
    return ig_ints_encode(c->lanes + b->first, b->n, &d, &o, out, NULL) ? -1 : 0;
}

struct coder {
    ZSTD_CCtx *cc;
    ZSTD_DCtx *dc;
    struct ig_buf plain; /* a stream before zstd, or after it */
    uint64_t *offs;      /* bytes: decoded offsets */
    struct ig_buf data;  /* bytes: decoded items */
    uint64_t *lanes;     /* floats: decoded lanes */
};

static int encode_block(const struct column *c, const struct run *r, const struct contexts *ctx,
                        struct coder *k, struct block *b)
{
    const struct ig_chunk_ctx *cx = ctx->cx ? &ctx->cx[b->chunk] : NULL;
    if (r->how == SCHEME) return encode_stream(c, b, r->scheme, cx, &b->bytes);
    k->plain.len = 0;
    if (encode_stream(c, b, r->scheme, NULL, &k->plain)) return -1;
    size_t cap = ZSTD_compressBound(k->plain.len);
    uint8_t *dst = ig_buf_extend(&b->bytes, cap);
    if (!dst) die("out of memory");
    size_t z = r->how == ZDICT && cx->zdict
                   ? ig_zdict_compress(k->cc, cx->zdict, dst, cap, k->plain.data, k->plain.len,
                                       IG_ZDICT_LEVEL)
                   : ZSTD_compressCCtx(k->cc, dst, cap, k->plain.data, k->plain.len, ZSTD_LEVEL);
    if (ZSTD_isError(z)) die("zstd refused a block");
    b->bytes.len = z;
    return 0;
}

/* Block b's stream, decompressed when it is a frame: a pointer and length. */
static const uint8_t *stream_of(const struct run *r, const struct contexts *ctx, struct coder *k,
                                const struct block *b, size_t *len)
{
    if (r->how == SCHEME) {
        *len = b->bytes.len;
        return b->bytes.data;
    }
    unsigned long long want = ZSTD_getFrameContentSize(b->bytes.data, b->bytes.len);
    if (want == ZSTD_CONTENTSIZE_ERROR || want == ZSTD_CONTENTSIZE_UNKNOWN) die("frame size");
    k->plain.len = 0;
    uint8_t *dst = ig_buf_extend(&k->plain, (size_t)want);
    if (!dst && want) die("out of memory");
    const struct ig_zdict *zd = r->how == ZDICT ? ctx->cx[b->chunk].zdict : NULL;
    size_t got = zd
                     ? ig_zdict_decompress(k->dc, zd, dst, (size_t)want, b->bytes.data,
                                           b->bytes.len)
                     : ZSTD_decompressDCtx(k->dc, dst, (size_t)want, b->bytes.data, b->bytes.len);
    if (ZSTD_isError(got) || got != want) die("zstd could not decompress a block");
    *len = got;
    return k->plain.data;
}

static void decode_block(const struct column *c, const struct run *r, const struct contexts *ctx,
                         struct coder *k, const struct block *b)
{
    size_t len;
    const uint8_t *p = stream_of(r, ctx, k, b, &len);
    struct ig_error err = {0};
    int rc;
    if (c->is_bytes)
        rc = ig_bytes_decode_cx(r->how == SCHEME && ctx->cx ? &ctx->cx[b->chunk] : NULL, p, len,
                                b->n, NULL, k->offs, &k->data, &err);
    else {
        struct ig_int_desc d = {(uint8_t)c->width, false};
        rc = ig_ints_decode(p, len, b->n, &d, NULL, k->lanes, &err);
    }
    if (rc) {
        fprintf(stderr, "bench_decode: %s: %s\n", r->name, err.msg);
        exit(1);
    }
}

/* Item i of block b, compared with the input so that a wrong decode fails. */
static void get_one(const struct column *c, const struct run *r, const struct contexts *ctx,
                    struct coder *k, const struct block *b, size_t i)
{
    size_t len;
    const uint8_t *p = stream_of(r, ctx, k, b, &len);
    struct ig_error err = {0};
    bool same;
    if (c->is_bytes) {
        const uint8_t *v;
        size_t vl;
        if (ig_bytes_get_cx(r->how == SCHEME && ctx->cx ? &ctx->cx[b->chunk] : NULL, p, len, b->n,
                            NULL, i, &v, &vl, &err))
            die(err.msg);
        size_t want = (size_t)(c->offs[b->first + i + 1] - c->offs[b->first + i]);
        same = vl == want && (!vl || !memcmp(v, c->data + c->offs[b->first + i], vl));
    } else {
        struct ig_int_desc d = {(uint8_t)c->width, false};
        uint64_t v;
        if (ig_ints_get(p, len, b->n, &d, NULL, i, &v, &err)) die(err.msg);
        same = v == c->lanes[b->first + i];
    }
    if (!same) {
        fprintf(stderr, "bench_decode: %s: item %zu of a block reads back wrong\n", r->name, i);
        exit(1);
    }
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void measure(const struct column *c, const struct run *r, struct coder *k)
{
    struct contexts ctx = {0};
    if (r->fsst || r->how == ZDICT) train(c, r, &ctx);
    size_t nb;
    struct block *b = cut(c, r->block, &nb);
    size_t most = 0;
    uint64_t stored = ctx.bytes;
    for (size_t i = 0; i < nb; i++) {
        if (encode_block(c, r, &ctx, k, &b[i])) {
            printf("scheme=%s cannot hold these values\n", r->name);
            free_blocks(b, nb);
            untrain(&ctx);
            return;
        }
        stored += b[i].bytes.len;
        if (b[i].n > most) most = b[i].n;
    }
    k->offs = realloc(k->offs, (most + 1) * sizeof *k->offs);
    k->lanes = realloc(k->lanes, (most + 1) * sizeof *k->lanes);
    if (!k->offs || !k->lanes) die("out of memory");
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t t0 = ig_now_ns();
        for (size_t i = 0; i < nb; i++)
            decode_block(c, r, &ctx, k, &b[i]);
        uint64_t t = ig_now_ns() - t0;
        if (t < best) best = t;
    }
    /* the decode checked once: every block's values equal the input's */
    for (size_t i = 0; i < nb; i++) {
        decode_block(c, r, &ctx, k, &b[i]);
        bool same = c->is_bytes ? k->offs[b[i].n] == c->offs[b[i].first + b[i].n] - c->offs[b[i].first] &&
                                      !memcmp(k->data.data, c->data + c->offs[b[i].first], (size_t)k->offs[b[i].n])
                                : !memcmp(k->lanes, c->lanes + b[i].first, b[i].n * 8);
        if (!same) {
            fprintf(stderr, "bench_decode: %s: block %zu decodes wrong\n", r->name, i);
            exit(1);
        }
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int picks = r->block >= PAGE_BYTES ? PICKS / 40 : PICKS; /* a page costs ~1 ms a pick */
    uint64_t t0 = ig_now_ns();
    for (int i = 0; i < picks; i++) {
        const struct block *p = &b[rnd(&seed) % nb];
        get_one(c, r, &ctx, k, p, (size_t)(rnd(&seed) % p->n));
    }
    uint64_t get = ig_now_ns() - t0;
    printf("scheme=%s stored=%llu ratio=%.2f decode_MBps=%.0f get_ns=%.0f\n", r->name,
           (unsigned long long)stored, (double)c->plain / (double)(stored ? stored : 1),
           (double)c->plain / ((double)best / 1e9) / 1e6, (double)get / picks);
    free_blocks(b, nb);
    untrain(&ctx);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_decode bytes|float64 FILE [BLOCK]\n");
        return 2;
    }
    struct column c;
    load(&c, argv[1], argv[2]);
    if (!c.n) die("no values");
    size_t block = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : c.is_bytes ? 8192 : 16384;
    struct coder k = {.cc = ZSTD_createCCtx(), .dc = ZSTD_createDCtx()};
    if (!k.cc || !k.dc) die("out of memory");
    static const struct run strings[] = {
        {"zstd", ZSTD, IG_ENC_PLAIN, false, 0},
        {"zstd-1MiB-pages", ZSTD, IG_ENC_PLAIN, false, PAGE_BYTES},
        {"huffman", SCHEME, IG_ENC_HUFF, false, 0},
        {"fsst", SCHEME, IG_ENC_FSST, true, 0},
        {"zdict-1.5KiB-frames", ZDICT, IG_ENC_PLAIN, false, IG_ZDICT_FRAME_PLAIN},
        {"zdict-block-frames", ZDICT, IG_ENC_PLAIN, false, 0},
        {"plain", SCHEME, IG_ENC_PLAIN, false, 0},
    };
    static const struct run floats32[] = {
        {"zstd", ZSTD, IG_ENC_PLAIN, false, 0},
        {"zstd-1MiB-pages", ZSTD, IG_ENC_PLAIN, false, PAGE_BYTES},
        {"split+zstd", ZSTD, IG_ENC_SPLIT, false, 0},
        {"split+zstd-1MiB-pages", ZSTD, IG_ENC_SPLIT, false, PAGE_BYTES},
        {"expo", SCHEME, IG_ENC_EXPO, false, 0},
        {"alp", SCHEME, IG_ENC_ALP, false, 0},
        {"auto", SCHEME, IG_ENC_AUTO, false, 0},
        {"plain", SCHEME, IG_ENC_PLAIN, false, 0},
    };
    static const struct run floats[] = {
        {"zstd", ZSTD, IG_ENC_PLAIN, false, 0},
        {"zstd-1MiB-pages", ZSTD, IG_ENC_PLAIN, false, PAGE_BYTES},
        {"alp", SCHEME, IG_ENC_ALP, false, 0},
        {"decimal", SCHEME, IG_ENC_DECIMAL, false, 0},
        {"dict", SCHEME, IG_ENC_DICT, false, 0},
        {"auto", SCHEME, IG_ENC_AUTO, false, 0},
        {"plain", SCHEME, IG_ENC_PLAIN, false, 0},
    };
    const struct run *runs = c.is_bytes ? strings : c.width == 4 ? floats32 : floats;
    size_t nruns = c.is_bytes        ? sizeof strings / sizeof *strings
                   : c.width == 4    ? sizeof floats32 / sizeof *floats32
                                     : sizeof floats / sizeof *floats;
    printf("values=%zu plain=%llu block=%zu\n", c.n, (unsigned long long)c.plain, block);
    const char *only = getenv("BENCH_DECODE_ONLY"); /* one scheme by name (profiling) */
    for (size_t i = 0; i < nruns; i++) {
        struct run r = runs[i];
        if (only && strcmp(only, r.name)) continue;
        if (!r.block) r.block = block;
        measure(&c, &r, &k);
    }
    ZSTD_freeCCtx(k.cc);
    ZSTD_freeDCtx(k.dc);
    free(k.offs);
    free(k.lanes);
    ig_buf_free(&k.plain);
    ig_buf_free(&k.data);
    free(c.offs);
    free(c.data);
    free(c.lanes);
    return 0;
}
