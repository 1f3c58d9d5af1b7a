/* fuzz_fsst.c - libFuzzer target for chunk contexts (FSST symbol tables) and
 * the streams coded against them (src/format/enc/fsst.c, context.c).
 *
 * Input: [mode] [seed] [rest ...]
 *   mode bit 0 clear  rest is [ctx len: u16 LE] [ctx bytes] [n: u16 LE] [stream]:
 *                     a context and a stream as a part file could hold them
 *   mode bit 0 set    rest is items separated by '\n': a table is trained on
 *                     them, the items coded against it (fsst, and a dictionary
 *                     when mode bit 1 is set), the context written; then one
 *                     byte of the context (bit 2) or of the stream (bit 3), at a
 *                     place the seed picks, is flipped to a value it picks
 *   mode bits 4-6     kill density (1 in 2^k items)
 *   mode bit 7        (bit 0 clear) the ctx bytes are packed first, as
 *                     format 22 packs a context (one zstd frame of entries),
 *                     so that any entry bytes reach the packed parser
 * Buffers are exact-size so ASan sees any overread.
 *
 * Besides "no crash, no UB": a context that parses writes back to the same
 * bytes; for a stream the decoder accepts, get(i) agrees with decode, the
 * symbol uses it reports name symbols of the table, and a successful erase
 * never grows it, zeroes what it frees, passes check_erased and leaves the
 * other items unchanged. Trained, unmutated input must round trip. A violation
 * aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static bool bit(const uint8_t *b, size_t i)
{
    return b && ((b[i / 8] >> (i % 8)) & 1);
}

#define require(ok) require_at((ok), __LINE__, &err)
static void require_at(bool ok, int line, const struct ig_error *err)
{
    if (ok) return;
    fprintf(stderr, "fuzz_fsst.c:%d: invariant broken (last error: %s)\n", line, err->msg);
    abort();
}

/* The stream p[0..len) of n items against cx: the invariants above. With
 * `valid`, decoding must succeed and give the items offs/data. */
static void check_stream(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                         const uint8_t *kill, bool valid, const uint64_t *want_offs,
                         const uint8_t *want_data)
{
    struct ig_error err = {0};
    uint64_t *offs = malloc((n + 1) * sizeof *offs), *offs2 = malloc((n + 1) * sizeof *offs2);
    struct ig_buf data = IG_BUF_INIT, data2 = IG_BUF_INIT;
    uint8_t *q = malloc(len ? len : 1);
    uint64_t counts[256] = {0};
    if (!offs || !offs2 || !q) goto done;
    int dec = ig_bytes_decode_cx(cx, p, len, n, NULL, offs, &data, &err);
    if (valid) {
        require(dec == 0);
        for (size_t i = 0; i < n; i++) {
            uint64_t l = offs[i + 1] - offs[i];
            require(l == want_offs[i + 1] - want_offs[i]);
            require(l == 0 || memcmp(data.data + offs[i], want_data + want_offs[i], l) == 0);
        }
    }
    for (size_t t = 0; n && t < 8; t++) {
        size_t i = (t * 7919) % n;
        const uint8_t *val = NULL;
        size_t vl = 0;
        int rc = ig_bytes_get_cx(cx, p, len, n, NULL, i, &val, &vl, &err);
        if (!dec)
            require(rc == 0 && vl == offs[i + 1] - offs[i] &&
                    (vl == 0 || memcmp(val, data.data + offs[i], vl) == 0));
    }
    if (ig_bytes_symbol_uses(p, len, n, cx, counts, &err) == 0 && cx->fsst) {
        for (unsigned c = 0; c < 256; c++)
            if (counts[c]) require(c < 255); /* 255 is the escape, never a symbol */
    }
    (void)ig_bytes_check_erased_cx(cx, p, len, n, NULL, kill, &err);

    memcpy(q, p, len);
    size_t nl = 0;
    bool drops = ig_bytes_erase_drops(p, len);
    int rc = ig_bytes_erase_cx(cx, q, len, n, NULL, kill, &nl, &err);
    if (rc) {
        require(memcmp(q, p, len) == 0); /* a failed erase changes nothing */
        goto done;
    }
    require(nl <= len);
    for (size_t i = nl; i < len; i++)
        require(q[i] == 0);
    if (dec) goto done;
    uint8_t *absent2 = calloc(n / 8 + 2, 1);
    if (!absent2) goto done;
    for (size_t i = 0; i < n; i++)
        if (drops && bit(kill, i)) absent2[i / 8] |= (uint8_t)(1u << (i % 8));
    bool killed = false;
    for (size_t i = 0; i < n && !killed; i++)
        killed = bit(kill, i);
    /* an erase that kills nothing leaves the stream as it was: a mutated one
     * may be valid to read and still not canonical (check_erased says so) */
    if (killed) require(ig_bytes_check_erased_cx(cx, q, nl, n, absent2, kill, &err) == 0);
    require(ig_bytes_decode_cx(cx, q, nl, n, absent2, offs2, &data2, &err) == 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t l = offs2[i + 1] - offs2[i];
        if (bit(kill, i)) {
            require(l == 0);
        } else {
            require(l == offs[i + 1] - offs[i]);
            require(l == 0 || memcmp(data2.data + offs2[i], data.data + offs[i], l) == 0);
        }
    }
    free(absent2);
done:
    free(offs);
    free(offs2);
    free(q);
    ig_buf_free(&data);
    ig_buf_free(&data2);
}

/* Parse ctx bytes (exact-size copy; packed first where `pack`); a context
 * that parses writes bytes that parse again and write alike (the input itself
 * may spell a length longer), and packed, parse to the same entries. */
static int parse_ctx(const uint8_t *b, size_t len, bool pack, struct ig_chunk_ctx *cx)
{
    struct ig_error err = {0};
    struct ig_buf in = IG_BUF_INIT;
    if (ig_buf_append(&in, b, len) || (pack && len && ig_chunk_ctx_pack(&in, 0, 1, b[0] & 1))) {
        ig_buf_free(&in);
        return -1;
    }
    uint8_t *c = malloc(in.len ? in.len : 1); /* exact size */
    if (!c) {
        ig_buf_free(&in);
        return -1;
    }
    if (in.len) memcpy(c, in.data, in.len);
    int rc = ig_chunk_ctx_parse(c, in.len, IG_FORMAT_VERSION, cx, &err);
    if (!rc) {
        struct ig_buf w = IG_BUF_INIT, w2 = IG_BUF_INIT, packed = IG_BUF_INIT;
        struct ig_chunk_ctx again = {0};
        require(ig_chunk_ctx_write(cx, &w) == 0);
        require(ig_chunk_ctx_parse(w.data ? w.data : (const uint8_t *)"", w.len, IG_FORMAT_VERSION,
                                   &again, &err) == 0);
        require(ig_chunk_ctx_write(&again, &w2) == 0);
        require(w.len == w2.len && (!w.len || memcmp(w.data, w2.data, w.len) == 0));
        ig_chunk_ctx_free(&again);
        require(ig_buf_append(&packed, w.data ? w.data : (const uint8_t *)"", w.len) == 0);
        require(ig_chunk_ctx_pack(&packed, 0, 1, true) == 0);
        require(ig_chunk_ctx_parse(packed.data ? packed.data : (const uint8_t *)"", packed.len,
                                   IG_FORMAT_VERSION, &again, &err) == 0);
        ig_buf_reset(&w2);
        require(ig_chunk_ctx_write(&again, &w2) == 0);
        require(w.len == w2.len && (!w.len || memcmp(w.data, w2.data, w.len) == 0));
        ig_chunk_ctx_free(&again);
        ig_buf_free(&w);
        ig_buf_free(&w2);
        ig_buf_free(&packed);
    }
    free(c);
    ig_buf_free(&in);
    return rc;
}

static void fuzz_raw(const uint8_t *in, size_t size, bool pack, const uint8_t *kill_bits)
{
    if (size < 2) return;
    size_t cl = (size_t)in[0] | (size_t)in[1] << 8;
    if (cl > size - 2) return;
    const uint8_t *cb = in + 2, *rest = in + 2 + cl;
    size_t rl = size - 2 - cl;
    if (rl < 2) return;
    size_t n = (size_t)rest[0] | (size_t)rest[1] << 8;
    struct ig_chunk_ctx cx = {0};
    if (parse_ctx(cb, cl, pack, &cx)) return;
    uint8_t *p = malloc(rl - 2 ? rl - 2 : 1);
    if (p) {
        memcpy(p, rest + 2, rl - 2);
        check_stream(&cx, p, rl - 2, n, kill_bits, false, NULL, NULL);
    }
    free(p);
    ig_chunk_ctx_free(&cx);
}

static void fuzz_trained(uint8_t mode, uint64_t seed, const uint8_t *items, size_t size,
                         const uint8_t *kill_bits)
{
    struct ig_error err = {0};
    size_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += items[i] == '\n';
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    struct ig_fsst *t = NULL;
    struct ig_buf stream = IG_BUF_INIT, ctxb = IG_BUF_INIT;
    struct ig_chunk_ctx cx = {0}, parsed = {0};
    uint8_t *data = malloc(size ? size : 1);
    if (!offs || !data) goto done;
    /* items without their separators */
    size_t k = 0, at = 0;
    offs[0] = 0;
    for (size_t i = 0; i < size; i++) {
        if (items[i] == '\n') {
            offs[++k] = at;
        } else {
            data[at++] = items[i];
        }
    }
    offs[++k] = at;
    if (ig_fsst_train(offs, data, n, &t)) goto done;
    struct ig_enc_opts o = {.forced = (mode & 2) ? IG_ENC_DICT : IG_ENC_FSST, .fsst = t};
    if (ig_bytes_encode(offs, data, n, &o, &stream, &err)) goto done;
    cx.fsst = t;
    t = NULL;
    if (ig_chunk_ctx_write(&cx, &ctxb)) goto done;
    check_stream(&cx, stream.data, stream.len, n, kill_bits, true, offs, data);
    /* a flipped byte of the context or of the stream: errors, never a crash */
    uint64_t r = rng(&seed);
    if ((mode & 4) && ctxb.len) ctxb.data[r % ctxb.len] = (uint8_t)(r >> 32);
    if ((mode & 8) && stream.len) stream.data[(r >> 16) % stream.len] ^= (uint8_t)(r >> 40) | 1;
    if (parse_ctx(ctxb.data, ctxb.len, false, &parsed) == 0) {
        uint8_t *p = malloc(stream.len ? stream.len : 1);
        if (p) {
            memcpy(p, stream.data, stream.len);
            check_stream(&parsed, p, stream.len, n, kill_bits, !(mode & 12), offs, data);
        }
        free(p);
        ig_chunk_ctx_free(&parsed);
    }
done:
    ig_fsst_free(t);
    ig_chunk_ctx_free(&cx);
    ig_buf_free(&stream);
    ig_buf_free(&ctxb);
    free(offs);
    free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 2 || size > (1u << 16)) return 0;
    uint8_t mode = in[0];
    uint64_t seed = in[1];
    uint8_t *kill = calloc((1u << 16) / 8 + 2, 1);
    if (!kill) return 0;
    unsigned den = 1u << ((mode >> 4) & 7);
    for (size_t i = 0; i < (1u << 16); i += 1)
        if (rng(&seed) % den == 0) kill[i / 8] |= (uint8_t)(1u << (i % 8));
    if (mode & 1)
        fuzz_trained(mode, seed, in + 2, size - 2, kill);
    else
        fuzz_raw(in + 2, size - 2, mode & 0x80, kill);
    free(kill);
    return 0;
}
