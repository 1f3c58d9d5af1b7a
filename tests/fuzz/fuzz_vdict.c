/* fuzz_vdict.c - libFuzzer target for chunk value dictionaries (format 14,
 * context kind 3) and the vdict streams of codes into them
 * (src/format/enc/vdict.c, context.c).
 *
 * Input: [mode] [rest ...]
 *   mode bit 0 clear  rest is [ctx len: u16 LE] [a context's bytes] [n: u16 LE]
 *                     [a vdict stream]: the context parsed; where it holds a
 *                     value dictionary the stream is decoded, each item got
 *                     alone, erased (the first item of every 3) and checked
 *   mode bit 0 set    rest is values separated by '\n' and, after a 0 byte,
 *                     codes (one byte each, mod k + 1): a dictionary made of
 *                     the distinct values, a stream of the codes, its items
 *                     erased by the byte pattern of the codes, the counts
 *                     taken off and put back, the entries no code names
 *                     pruned, the context written and parsed again
 * Buffers are exact-size so ASan sees any overread.
 *
 * Besides "no crash, no UB": a dictionary that parses writes bytes that parse
 * to the same entries and counts; every item read alone equals the decoded
 * stream's; an erase never grows, erased items read empty and check clean;
 * the counts after an erase equal the live codes, and a pruned context holds
 * no entry whose count fell to 0. A violation aborts. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/enc/codec.h"
#include "format/layout.h"
#include "util/buf.h"
#include "util/error.h"

#define require(ok) require_at((ok), __LINE__)
static void require_at(bool ok, int line)
{
    if (ok) return;
    fprintf(stderr, "fuzz_vdict.c:%d: invariant broken\n", line);
    abort();
}

/* Decode, get each item, erase, check: s is a private copy of len bytes. */
static void exercise(const struct ig_chunk_ctx *cx, uint8_t *s, size_t len, size_t n)
{
    struct ig_error err = {0};
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    struct ig_buf data = IG_BUF_INIT;
    if (!offs) return;
    int rc = ig_bytes_decode_cx(cx, s, len, n, NULL, offs, &data, &err);
    require(rc == 0 || rc == -EIO || rc == -ENOMEM);
    if (!rc) {
        /* each item read alone, up to 512 of them spread over the stream: a
         * plain stream in the lengths form sums the lengths before an item to
         * find it (plain.c), so reading all of 65,535 items alone is quadratic
         * (a 14 s timeout here), where a block holds a few hundred */
        size_t step = n > 512 ? n / 512 : 1;
        for (size_t i = 0; i < n; i += step) {
            const uint8_t *v;
            size_t vl;
            require(ig_bytes_get_cx(cx, s, len, n, NULL, i, &v, &vl, &err) == 0);
            require(vl == offs[i + 1] - offs[i] && (!vl || !memcmp(v, data.data + offs[i], vl)));
        }
        uint8_t *kill = calloc(n / 8 + 1, 1);
        for (size_t i = 0; kill && i < n; i += 3)
            kill[i / 8] |= (uint8_t)(1u << (i % 8));
        size_t nl = 0;
        if (kill && n && ig_bytes_erase_cx(cx, s, len, n, NULL, kill, &nl, &err) == 0) {
            require(nl <= len);
            for (size_t j = nl; j < len; j++)
                require(s[j] == 0);
            require(ig_bytes_check_erased_cx(cx, s, nl, n, NULL, kill, &err) == 0);
            /* every third item was erased: up to 512 of them read alone */
            for (size_t i = 0; i < n; i += 3 * (n / 1536 + 1)) {
                const uint8_t *v;
                size_t vl;
                require(ig_bytes_get_cx(cx, s, nl, n, NULL, i, &v, &vl, &err) == 0 && vl == 0);
            }
        }
        free(kill);
    }
    free(offs);
    ig_buf_free(&data);
}

static void fuzz_raw(const uint8_t *in, size_t size)
{
    if (size < 2) return;
    size_t cl = (size_t)in[0] | (size_t)in[1] << 8;
    if (cl > size - 2) return;
    uint8_t *c = malloc(cl ? cl : 1);
    if (!c) return;
    memcpy(c, in + 2, cl);
    struct ig_error err = {0};
    struct ig_chunk_ctx cx = {0};
    int rc = ig_chunk_ctx_parse(c, cl, IG_FORMAT_VERSION, &cx, &err);
    require(rc == 0 || rc == -EIO || rc == -ENOMEM);
    if (!rc && cx.vdict) {
        /* written again: the same entries and counts */
        struct ig_buf w = IG_BUF_INIT;
        struct ig_vdict *again = NULL;
        require(ig_vdict_write(cx.vdict, &w) == 0);
        require(ig_vdict_parse(w.data, w.len, &again, &err) == 0);
        uint32_t k = ig_vdict_k(cx.vdict);
        require(ig_vdict_k(again) == k);
        for (uint32_t e = 1; e <= k; e++) {
            const uint8_t *a, *b;
            size_t al = ig_vdict_entry(cx.vdict, e, &a), bl = ig_vdict_entry(again, e, &b);
            require(al == bl && (!al || !memcmp(a, b, al)));
            require(ig_vdict_count(cx.vdict, e) == ig_vdict_count(again, e));
        }
        ig_vdict_free(again);
        ig_buf_free(&w);
        size_t rest = size - 2 - cl;
        if (rest >= 2) {
            size_t n = (size_t)in[2 + cl] | (size_t)in[3 + cl] << 8, sl = rest - 2;
            uint8_t *s = malloc(sl ? sl : 1);
            if (s) {
                memcpy(s, in + 4 + cl, sl);
                exercise(&cx, s, sl, n);
                free(s);
            }
        }
    }
    ig_chunk_ctx_free(&cx);
    free(c);
}

static void fuzz_made(const uint8_t *in, size_t size)
{
    const uint8_t *z = memchr(in, 0, size);
    size_t vl = z ? (size_t)(z - in) : size;
    const uint8_t *codes_in = z ? z + 1 : in + size;
    size_t n = z ? size - vl - 1 : 0;
    /* the distinct non-empty values, in order of first appearance */
    uint64_t *offs = malloc((vl + 2) * sizeof *offs);
    struct ig_buf data = IG_BUF_INIT;
    uint32_t k = 0;
    offs[0] = 0;
    for (size_t a = 0; a < vl;) {
        const uint8_t *e = memchr(in + a, '\n', vl - a);
        size_t l = e ? (size_t)(e - (in + a)) : vl - a;
        bool dup = l == 0;
        for (uint32_t j = 0; !dup && j < k; j++)
            dup = offs[j + 1] - offs[j] == l && !memcmp(data.data + offs[j], in + a, l);
        if (!dup) {
            ig_buf_append(&data, in + a, l);
            offs[++k] = data.len;
        }
        a += l + 1;
    }
    struct ig_chunk_ctx cx = {0};
    if (!k || ig_vdict_new(offs, data.data, k, &cx.vdict)) goto out;
    uint32_t *codes = malloc((n + 1) * sizeof *codes);
    uint8_t *kill = calloc(n / 8 + 1, 1);
    struct ig_buf s = IG_BUF_INIT;
    struct ig_error err = {0};
    uint64_t *counts = ig_vdict_counts(cx.vdict);
    for (size_t i = 0; i < n; i++) {
        codes[i] = codes_in[i] % (k + 1);
        counts[codes[i]]++;
        if (codes_in[i] & 0x80) kill[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    require(ig_bytes_encode_vdict(codes, n, k, &s, &err) == 0);
    uint8_t *p = malloc(s.len);
    memcpy(p, s.data, s.len);
    size_t nl = 0;
    require(ig_vdict_uses(cx.vdict, p, s.len, n, counts, -1, &err) == 0);
    require(ig_bytes_erase_cx(&cx, p, s.len, n, NULL, kill, &nl, &err) == 0);
    require(nl <= s.len);
    require(ig_vdict_uses(cx.vdict, p, nl, n, counts, 1, &err) == 0);
    require(ig_bytes_check_erased_cx(&cx, p, nl, n, NULL, kill, &err) == 0);
    uint64_t *want = calloc((size_t)k + 1, sizeof *want);
    for (size_t i = 0; i < n; i++)
        if (!((kill[i / 8] >> (i % 8)) & 1)) want[codes[i]]++;
    for (uint32_t e = 1; e <= k; e++)
        require(ig_vdict_count(cx.vdict, e) == want[e]);
    size_t before = ig_vdict_size(cx.vdict);
    ig_vdict_prune(cx.vdict);
    require(ig_vdict_size(cx.vdict) <= before);
    for (uint32_t e = 1; e <= k; e++) {
        const uint8_t *v;
        require((ig_vdict_entry(cx.vdict, e, &v) == 0) == (want[e] == 0));
    }
    struct ig_buf w = IG_BUF_INIT;
    struct ig_chunk_ctx again = {0};
    require(ig_chunk_ctx_write(&cx, &w) == 0);
    require(ig_chunk_ctx_parse(w.data, w.len, IG_FORMAT_VERSION, &again, &err) == 0 && again.vdict);
    exercise(&again, p, nl, n);
    ig_chunk_ctx_free(&again);
    ig_buf_free(&w);
    free(want);
    free(p);
    free(codes);
    free(kill);
    ig_buf_free(&s);
out:
    ig_chunk_ctx_free(&cx);
    free(offs);
    ig_buf_free(&data);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 1) return 0;
    if (in[0] & 1)
        fuzz_made(in + 1, size - 1);
    else
        fuzz_raw(in + 1, size - 1);
    return 0;
}
