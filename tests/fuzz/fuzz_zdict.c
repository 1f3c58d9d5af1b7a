/* fuzz_zdict.c - libFuzzer target for chunk zstd dictionaries (format 13,
 * context kind 2: src/format/enc/zdict.c, context.c) and the frames
 * compressed against them.
 *
 * Input: [mode] [seed: 8 bytes] [rest ...]
 *   mode bit 0 clear  rest is [payload len: u16 LE] [payload] [frame]: a
 *                     dictionary payload as a context could hold it, and a
 *                     block's frame; bit 1: the payload inside a context
 *   mode bit 0 set    rest is values separated by '\n': a dictionary is
 *                     trained on them, blocks of them compressed against it,
 *                     a random set (the seed's) erased by the erase's rule,
 *                     then one byte of the payload flipped
 * Buffers are exact-size so ASan sees any overread.
 *
 * Besides "no crash, no UB": a payload that parses writes bytes that parse
 * and write alike; a frame decompresses into at most its room; a trained
 * dictionary's segments are substrings of the values, frames round trip
 * before and after segments are zeroed, the erase rule leaves every segment
 * not zero in a live value and the payload's size unchanged. A violation
 * aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format/enc/codec.h"
#include "format/layout.h"
#include "util/buf.h"
#include "util/error.h"

static uint64_t rng(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ULL;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#define require(ok) require_at((ok), __LINE__)
static void require_at(bool ok, int line)
{
    if (ok) return;
    fprintf(stderr, "fuzz_zdict.c:%d: invariant broken\n", line);
    abort();
}

static void decompress_any(const struct ig_zdict *d, const uint8_t *f, size_t fl)
{
    uint8_t *frame = malloc(fl ? fl : 1), *out = malloc(1 << 16);
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (frame && out && dc) {
        memcpy(frame, f, fl);
        size_t n = ig_zdict_decompress(dc, d, out, 1 << 16, frame, fl);
        require(ZSTD_isError(n) || n <= (1 << 16));
        /* through a decompression window (held from the second frame on):
         * the same answer, the same bytes */
        struct ig_zdict_window w = {0};
        uint8_t *other = malloc(1 << 16);
        for (int k = 0; other && k < 2; k++) {
            const uint8_t *at = NULL;
            size_t m = ig_zdict_decompress_window(dc, d, &w, other, 1 << 16, frame, fl, &at);
            require(ZSTD_isError(m) == ZSTD_isError(n));
            require(ZSTD_isError(m) || (m == n && memcmp(at, out, n) == 0));
        }
        ig_zdict_window_free(&w);
        free(other);
    }
    ZSTD_freeDCtx(dc);
    free(frame);
    free(out);
}

static void fuzz_raw(uint8_t mode, const uint8_t *in, size_t size)
{
    if (size < 2) return;
    size_t pl = (size_t)in[0] | (size_t)in[1] << 8;
    if (pl > size - 2) return;
    uint8_t *p = malloc(pl ? pl : 1);
    if (!p) return;
    memcpy(p, in + 2, pl);
    struct ig_error err = {0};
    struct ig_zdict *d = NULL;
    struct ig_chunk_ctx cx = {0};
    int rc = (mode & 2) ? ig_chunk_ctx_parse(p, pl, IG_FORMAT_VERSION, &cx, &err)
                        : ig_zdict_parse(p, pl, &d, &err);
    if (mode & 2) d = cx.zdict;
    if (!rc && d) {
        struct ig_buf w = IG_BUF_INIT, w2 = IG_BUF_INIT;
        struct ig_zdict *again = NULL;
        require(ig_zdict_write(d, &w) == 0);
        require(ig_zdict_parse(w.data, w.len, &again, &err) == 0);
        require(ig_zdict_write(again, &w2) == 0);
        require(w.len == w2.len && memcmp(w.data, w2.data, w.len) == 0);
        ig_zdict_free(again);
        ig_buf_free(&w);
        ig_buf_free(&w2);
        decompress_any(d, in + 2 + pl, size - 2 - pl);
        struct ig_zdict_find *f = NULL;
        if (ig_zdict_find_new(d, NULL, 2, &f) == 0) {
            ig_zdict_find_value(f, in + 2 + pl, size - 2 - pl);
            require(ig_zdict_find_remaining(f) <= ig_zdict_nsegments(d));
        }
        ig_zdict_find_free(f);
    }
    if (mode & 2)
        ig_chunk_ctx_free(&cx);
    else
        ig_zdict_free(d);
    free(p);
}

static bool holds(const uint8_t *v, size_t vl, const uint8_t *s, size_t sl)
{
    return sl <= vl && memmem(v, vl, s, sl) != NULL;
}

static void fuzz_trained(uint64_t seed, const uint8_t *items, size_t size)
{
    size_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += items[i] == '\n';
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    uint8_t *data = malloc(size ? size : 1), *kill = calloc(n, 1);
    struct ig_zdict *d = NULL;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!offs || !data || !kill || !cc || !dc) goto done;
    size_t k = 0, at = 0;
    offs[0] = 0;
    for (size_t i = 0; i < size; i++) {
        if (items[i] == '\n')
            offs[++k] = at;
        else
            data[at++] = items[i];
    }
    offs[++k] = at;
    size_t target = 64 + rng(&seed) % 4096;
    if (ig_zdict_train(offs, data, n, target, 0, &d) || !d) goto done;
    require(ig_zdict_content_len(d) <= target);
    const uint8_t *c = ig_zdict_content(d);
    size_t so = 0;
    for (uint32_t i = 0; i < ig_zdict_nsegments(d); so += ig_zdict_segment_len(d, i), i++) {
        bool found = false;
        for (size_t v = 0; v < n && !found; v++)
            found = holds(data + offs[v], (size_t)(offs[v + 1] - offs[v]), c + so, ig_zdict_segment_len(d, i));
        require(found);
    }
    size_t cap = ZSTD_compressBound(at), size0 = ig_zdict_size(d);
    uint8_t *z = malloc(cap), *back = malloc(at + 1);
    for (int round = 0; z && back && round < 2; round++) {
        size_t zl = ig_zdict_compress(cc, d, z, cap, data, at, IG_ZDICT_LEVEL);
        require(!ZSTD_isError(zl));
        size_t bl = ig_zdict_decompress(dc, d, back, at + 1, z, zl);
        require(!ZSTD_isError(bl) && bl == at && (at == 0 || memcmp(back, data, at) == 0));
        if (round) break;
        /* erase a random set by the rule */
        for (size_t i = 0; i < n; i++)
            kill[i] = rng(&seed) % 3 == 0;
        struct ig_zdict_find *held = NULL, *kept = NULL;
        require(ig_zdict_find_new(d, NULL, 1, &held) == 0);
        for (size_t i = 0; i < n; i++)
            if (kill[i]) ig_zdict_find_value(held, data + offs[i], (size_t)(offs[i + 1] - offs[i]));
        uint32_t ns = ig_zdict_nsegments(d);
        uint8_t *sus = calloc(ns + 1, 1);
        for (uint32_t i = 0; sus && i < ns; i++)
            sus[i] = ig_zdict_find_hits(held)[i];
        require(sus && ig_zdict_find_new(d, sus, 1, &kept) == 0);
        for (size_t i = 0; i < n; i++)
            if (!kill[i]) ig_zdict_find_value(kept, data + offs[i], (size_t)(offs[i + 1] - offs[i]));
        so = 0;
        for (uint32_t i = 0; i < ns; so += ig_zdict_segment_len(d, i), i++)
            if (sus[i] && !ig_zdict_find_hits(kept)[i]) ig_zdict_zero_segment(d, so, ig_zdict_segment_len(d, i));
        ig_zdict_find_free(held);
        ig_zdict_find_free(kept);
        free(sus);
        require(ig_zdict_size(d) == size0);
        struct ig_zdict_find *all = NULL;
        require(ig_zdict_find_new(d, NULL, 1, &all) == 0);
        for (size_t i = 0; i < n; i++)
            if (!kill[i]) ig_zdict_find_value(all, data + offs[i], (size_t)(offs[i + 1] - offs[i]));
        require(ig_zdict_find_remaining(all) == 0);
        ig_zdict_find_free(all);
    }
    /* one byte of the payload flipped: an error or a dictionary, never a crash */
    struct ig_buf w = IG_BUF_INIT;
    if (z && ig_zdict_write(d, &w) == 0 && w.len) {
        w.data[rng(&seed) % w.len] ^= (uint8_t)(1 + rng(&seed) % 255);
        struct ig_zdict *bad = NULL;
        struct ig_error err = {0};
        if (ig_zdict_parse(w.data, w.len, &bad, &err) == 0) decompress_any(bad, z, 16 < cap ? 16 : cap);
        ig_zdict_free(bad);
    }
    ig_buf_free(&w);
    free(z);
    free(back);
done:
    ig_zdict_free(d);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    free(offs);
    free(data);
    free(kill);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 9) return 0;
    uint8_t mode = in[0];
    uint64_t seed;
    memcpy(&seed, in + 1, 8);
    if (mode & 1)
        fuzz_trained(seed, in + 9, size - 9);
    else
        fuzz_raw(mode, in + 9, size - 9);
    return 0;
}
