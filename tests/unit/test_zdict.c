/* test_zdict.c - property tests for chunk zstd dictionaries (format 13,
 * context kind 2; src/format/enc/zdict.c, context.c) and the rule an erase
 * keeps (src/format/ops/erase_dict.c uses the same finder).
 *
 * Training on several shapes of values: every segment is a substring of a
 * value, the dictionary fits its target, random blocks of values round trip
 * through frames compressed against it (and against it with segments zeroed:
 * a frame compressed against the new one reads back); the payload survives
 * its bytes (inside a context, beside a symbol table) and corrupt payloads
 * are errors. Random erase sets: the segments that only erased values held
 * are exactly those the finder leaves unfound among the values that stay,
 * zeroing them never changes the context's size, and afterwards every
 * segment not zero is some live value's substring. */
#include "check.h"

#include <errno.h>
#include <zstd.h>

#include "format/enc/codec.h"
#include "format/enc/enc_internal.h" /* ig_fsst_write: a symbol table's bytes */
#include "format/layout.h"
#include "format/model/values.h"
#include "format/page/page.h"
#include "format/page/pagerec.h"
#include "util/buf.h"
#include "util/error.h"

enum shape { Z_WORDS, Z_RANDOM, Z_ALLBYTES, Z_LONG, Z_SHORT, Z_COUNT };

/* n values of a shape; offs[0..n] into the returned buffer. */
static uint8_t *zgen(int sh, size_t n, uint64_t *offs, uint64_t *seed)
{
    static char vocab[300][10];
    for (int w = 0; w < 300; w++) {
        uint64_t s = (uint64_t)w * 7919 + 1;
        int len = 3 + (int)(test_rand(&s) % 7);
        for (int i = 0; i < len; i++)
            vocab[w][i] = (char)('a' + test_rand(&s) % 26);
        vocab[w][len] = 0;
    }
    struct ig_buf b = IG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        offs[i] = b.len;
        size_t len;
        switch (sh) {
        case Z_WORDS:
            len = 4 + test_rand(seed) % 12;
            for (size_t w = 0; w < len; w++) {
                const char *s = vocab[test_rand(seed) % 300];
                if (w) ig_buf_append_byte(&b, ' ');
                ig_buf_append(&b, s, strlen(s));
            }
            break;
        case Z_RANDOM:
            len = test_rand(seed) % 60;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)test_rand(seed));
            break;
        case Z_ALLBYTES: /* every byte value, in runs that repeat */
            len = test_rand(seed) % 200;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)(j * 7 + i % 5));
            break;
        case Z_LONG: /* a few values of several KiB sharing their parts */
            len = 2000 + test_rand(seed) % 6000;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)"lorem ipsum dolor sit amet, "[(j + i * 3) % 28]);
            break;
        default: /* empty and one-byte values among short ones */
            len = test_rand(seed) % 3 ? test_rand(seed) % 3 : 0;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)"ab:"[test_rand(seed) % 3]);
            break;
        }
    }
    offs[n] = b.len;
    return b.data ? b.data : calloc(1, 1);
}

static bool holds(const uint8_t *v, size_t vl, const uint8_t *s, size_t sl)
{
    return sl <= vl && memmem(v, vl, s, sl) != NULL;
}

/* Segment i's bytes. */
static const uint8_t *seg(const struct ig_zdict *d, uint32_t i, size_t *len)
{
    size_t at = 0;
    for (uint32_t k = 0; k < i; k++)
        at += ig_zdict_segment_len(d, k);
    *len = ig_zdict_segment_len(d, i);
    return ig_zdict_content(d) + at;
}

/* Values [a, b) compressed against d and read back with a fresh context. */
static void roundtrip(struct ig_zdict *d, const uint64_t *offs, const uint8_t *data, size_t a,
                      size_t b)
{
    size_t len = (size_t)(offs[b] - offs[a]);
    size_t cap = ZSTD_compressBound(len);
    uint8_t *z = malloc(cap), *back = malloc(len + 1);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    REQUIRE(z && back && cc && dc);
    size_t n = ig_zdict_compress(cc, d, z, cap, data + offs[a], len, IG_ZDICT_LEVEL);
    REQUIRE(!ZSTD_isError(n));
    size_t m = ig_zdict_decompress(dc, d, back, len + 1, z, n);
    REQUIRE(!ZSTD_isError(m) && m == len);
    REQUIRE(len == 0 || memcmp(back, data + offs[a], len) == 0);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    free(z);
    free(back);
}

/* d and e hold the same dictionary (or are both NULL). */
static bool same_dict(const struct ig_zdict *d, const struct ig_zdict *e)
{
    if (!d || !e) return d == e;
    size_t l = ig_zdict_content_len(d);
    return l == ig_zdict_content_len(e) && ig_zdict_nsegments(d) == ig_zdict_nsegments(e) &&
           memcmp(ig_zdict_content(d), ig_zdict_content(e), l) == 0;
}

static void test_zdict_train(void)
{
    uint64_t seed = 5;
    struct ig_train_scratch sc = {0}; /* one for every shape, as a writer's thread keeps one */
    for (int sh = 0; sh < Z_COUNT; sh++) {
        size_t n = sh == Z_LONG ? 300 : 20000;
        uint64_t *offs = malloc((n + 1) * sizeof *offs);
        uint8_t *data = zgen(sh, n, offs, &seed);
        size_t target = 8192;
        struct ig_zdict *d = NULL;
        REQUIRE(ig_zdict_train(offs, data, n, target, 0, &d) == 0);
        if (sh == Z_WORDS || sh == Z_LONG) REQUIRE(d != NULL); /* values that repeat */
        /* asked for a vocabulary of at least 4,096 windows (writer_plan.c):
         * none for one sentence over and over (28), one for 300 words */
        struct ig_zdict *few = NULL;
        REQUIRE(ig_zdict_train(offs, data, n, target, 4096, &few) == 0);
        if (sh == Z_LONG) CHECK(few == NULL);
        if (sh == Z_WORDS) CHECK(few != NULL && ig_zdict_content_len(few) == ig_zdict_content_len(d));
        /* counting in kept counters, after other shapes: the same as fresh ones */
        struct ig_zdict *kept = NULL, *kept_few = NULL;
        REQUIRE(ig_zdict_train_in(offs, data, n, target, 0, &sc, &kept) == 0);
        REQUIRE(ig_zdict_train_in(offs, data, n, target, 4096, &sc, &kept_few) == 0);
        CHECK(same_dict(kept, d));
        CHECK(same_dict(kept_few, few));
        ig_zdict_free(kept);
        ig_zdict_free(kept_few);
        ig_zdict_free(few);
        if (!d) {
            free(offs);
            free(data);
            continue;
        }
        REQUIRE(ig_zdict_content_len(d) <= target);
        /* every segment is a substring of a value */
        for (uint32_t i = 0; i < ig_zdict_nsegments(d); i++) {
            size_t sl;
            const uint8_t *s = seg(d, i, &sl);
            REQUIRE(sl >= 1 && sl <= IG_ZDICT_SEG_MAX);
            bool found = false;
            for (size_t v = 0; v < n && !found; v++)
                found = holds(data + offs[v], (size_t)(offs[v + 1] - offs[v]), s, sl);
            REQUIRE(found);
        }
        for (int r = 0; r < 20; r++) {
            size_t a = test_rand(&seed) % n, b = a + 1 + test_rand(&seed) % 60;
            roundtrip(d, offs, data, a, b > n ? n : b);
        }
        /* with segments zeroed: a frame against the new dictionary reads back */
        struct ig_zdict *z = ig_zdict_copy(d);
        REQUIRE(z != NULL);
        size_t at = 0;
        for (uint32_t i = 0; i < ig_zdict_nsegments(z); at += ig_zdict_segment_len(z, i), i++)
            if (i % 3 == 0) ig_zdict_zero_segment(z, at, ig_zdict_segment_len(z, i));
        REQUIRE(ig_zdict_size(z) == ig_zdict_size(d));
        for (int r = 0; r < 10; r++) {
            size_t a = test_rand(&seed) % n;
            roundtrip(z, offs, data, a, a + 1 + (n - a - 1) / 50);
        }
        ig_zdict_free(z);
        ig_zdict_free(d);
        free(offs);
        free(data);
    }
    ig_train_scratch_free(&sc);
}

/* Rows of three kinds in turn, each of words over its own eight letters
 * (a-h, i-p, q-x): 32 bytes a value, so that both trainers sample one value
 * of every 6 (a multiple of the period). Each kind must be in what they
 * keep: a sample of every 6th value saw only the first kind. */
static uint8_t *periodic(size_t n, uint64_t *offs, uint64_t *seed)
{
    struct ig_buf b = IG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        offs[i] = b.len;
        for (int w = 0; w < 4; w++) { /* a word of the kind's 64 (7 letters and a space) */
            uint64_t s = (i % 3) * 64 + test_rand(seed) % 64 + 1;
            for (int c = 0; c < 7; c++)
                ig_buf_append_byte(&b, (uint8_t)('a' + 8 * (i % 3) + test_rand(&s) % 8));
            ig_buf_append_byte(&b, ' ');
        }
    }
    offs[n] = b.len;
    return b.data;
}

/* Bytes of p[0..len) in each kind's letters; true if each holds a tenth of them. */
static bool every_kind(const uint8_t *p, size_t len)
{
    size_t kind[3] = {0}, letters = 0;
    for (size_t i = 0; i < len; i++)
        if (p[i] >= 'a' && p[i] < 'a' + 24) kind[(p[i] - 'a') / 8]++, letters++;
    return letters && kind[0] * 10 >= letters && kind[1] * 10 >= letters && kind[2] * 10 >= letters;
}

static void test_trainers_sample_every_kind(void)
{
    uint64_t seed = 3;
    size_t n = 994 * 6; /* fsst: 994 items of 33 bytes fill its 32 KiB: one of every 6 */
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    uint8_t *data = periodic(n, offs, &seed);
    REQUIRE(data && offs[n] == 32 * n);
    struct ig_fsst *t = NULL;
    REQUIRE(ig_fsst_train(offs, data, n, &t) == 0 && t);
    struct ig_buf w = IG_BUF_INIT;
    REQUIRE(ig_fsst_write(t, &w) == 0);
    CHECK(every_kind(w.data, w.len));
    /* a dictionary of 4 KiB samples 32 KiB of the 186 KiB: one value of every 6 */
    struct ig_zdict *d = NULL;
    REQUIRE(ig_zdict_train(offs, data, n, 4096, 0, &d) == 0 && d);
    CHECK(every_kind(ig_zdict_content(d), ig_zdict_content_len(d)));
    ig_zdict_free(d);
    ig_fsst_free(t);
    ig_buf_free(&w);
    free(offs);
    free(data);
}

/* cx's symbol table with the uses an fsst stream of the n values makes of
 * it, the symbols none uses erased (as the writer keeps it). */
static void count_fsst_uses(struct ig_chunk_ctx *cx, const uint64_t *offs, const uint8_t *data,
                            size_t n)
{
    struct ig_buf st = IG_BUF_INIT;
    struct ig_enc_opts o = {.forced = IG_ENC_FSST, .fsst = cx->fsst};
    uint64_t counts[256] = {0};
    REQUIRE(ig_bytes_encode(offs, data, n, &o, &st, NULL) == 0);
    REQUIRE(ig_bytes_symbol_uses(st.data, st.len, n, cx, counts, NULL) == 0);
    REQUIRE(ig_fsst_add_uses(cx->fsst, counts, 1) == 0);
    ig_fsst_prune(cx->fsst);
    ig_buf_free(&st);
}

/* A dictionary in a context beside a symbol table: written, parsed, written
 * alike; damaged lengths are errors (EIO), never a crash. */
static void test_zdict_context_bytes(void)
{
    uint64_t seed = 9;
    size_t n = 5000;
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    uint8_t *data = zgen(Z_WORDS, n, offs, &seed);
    struct ig_chunk_ctx cx = {0}, back = {0};
    REQUIRE(ig_zdict_train(offs, data, n, 4096, 0, &cx.zdict) == 0 && cx.zdict);
    REQUIRE(ig_fsst_train(offs, data, n, &cx.fsst) == 0);
    count_fsst_uses(&cx, offs, data, n);
    struct ig_buf b = IG_BUF_INIT, b2 = IG_BUF_INIT;
    REQUIRE(ig_chunk_ctx_write(&cx, &b) == 0);
    struct ig_error err = {0};
    int prc = ig_chunk_ctx_parse(b.data, b.len, IG_FORMAT_VERSION, &back, &err);
    if (prc) fprintf(stderr, "%s\n", err.msg);
    REQUIRE(prc == 0);
    REQUIRE(back.zdict && ig_zdict_content_len(back.zdict) == ig_zdict_content_len(cx.zdict));
    REQUIRE(memcmp(ig_zdict_content(back.zdict), ig_zdict_content(cx.zdict),
                   ig_zdict_content_len(cx.zdict)) == 0);
    REQUIRE(ig_chunk_ctx_write(&back, &b2) == 0);
    REQUIRE(b2.len == b.len && memcmp(b.data, b2.data, b.len) == 0);
    ig_chunk_ctx_free(&back);
    /* the dictionary payload alone, damaged: a count, a length, a total */
    struct ig_buf p = IG_BUF_INIT;
    REQUIRE(ig_zdict_write(cx.zdict, &p) == 0);
    struct ig_zdict *d = NULL;
    REQUIRE(ig_zdict_parse(p.data, p.len, &d, &err) == 0 && d);
    ig_zdict_free(d);
    uint8_t *q = malloc(p.len);
    for (size_t i = 0; i < p.len && i < 400; i++) {
        memcpy(q, p.data, p.len);
        q[i] ^= (uint8_t)(1 + test_rand(&seed) % 255);
        d = NULL;
        int rc = ig_zdict_parse(q, p.len, &d, &err);
        REQUIRE(rc == 0 || rc == -EIO);
        if (rc == 0) ig_zdict_free(d);
    }
    REQUIRE(ig_zdict_parse(p.data, p.len - 1, &d, &err) == -EIO); /* short by a byte */
    REQUIRE(ig_zdict_parse(p.data, 0, &d, &err) == -EIO);
    /* a second dictionary in one context is corrupt */
    struct ig_buf two = IG_BUF_INIT;
    struct ig_chunk_ctx only = {.zdict = cx.zdict};
    REQUIRE(ig_chunk_ctx_write(&only, &two) == 0 && ig_chunk_ctx_write(&only, &two) == 0);
    REQUIRE(ig_chunk_ctx_parse(two.data, two.len, IG_FORMAT_VERSION, &back, &err) == -EIO);
    free(q);
    ig_buf_free(&p);
    ig_buf_free(&two);
    ig_buf_free(&b);
    ig_buf_free(&b2);
    ig_chunk_ctx_free(&cx);
    free(offs);
    free(data);
}

/* A context of text, packed (format 22): smaller, parsed to the same
 * entries, refused in a part of format 21; damaged or hostile frames are
 * errors (EIO), never a crash; a context of random bytes is left unpacked. */
static void test_context_packed(void)
{
    struct ig_error err = {0};
    for (int sh = Z_WORDS; sh <= Z_RANDOM; sh++) {
        uint64_t seed = 21 + (uint64_t)sh;
        size_t n = 4000;
        uint64_t *offs = malloc((n + 1) * sizeof *offs);
        uint8_t *data = zgen(sh, n, offs, &seed);
        struct ig_chunk_ctx cx = {0}, back = {0};
        REQUIRE(ig_fsst_train(offs, data, n, &cx.fsst) == 0);
        count_fsst_uses(&cx, offs, data, n);
        if (sh == Z_WORDS)
            REQUIRE(ig_zdict_train(offs, data, n, 4096, 0, &cx.zdict) == 0 && cx.zdict);
        struct ig_buf plain = IG_BUF_INIT, b = IG_BUF_INIT, again = IG_BUF_INIT;
        REQUIRE(ig_chunk_ctx_write(&cx, &plain) == 0);
        REQUIRE(ig_buf_append(&b, "ab", 2) == 0); /* packs from an offset */
        REQUIRE(ig_buf_append(&b, plain.data, plain.len) == 0);
        REQUIRE(ig_chunk_ctx_pack(&b, 2, IG_CTX_ZSTD_LEVEL, true) == 0);
        REQUIRE(memcmp(b.data, "ab", 2) == 0);
        const uint8_t *c = b.data + 2;
        size_t cl = b.len - 2;
        if (sh == Z_RANDOM && !cx.zdict && cl == plain.len) { /* random symbols: not smaller */
            CHECK(memcmp(c, plain.data, cl) == 0);
        } else {
            REQUIRE(c[0] == 4 && cl < plain.len);
            uint64_t fl;
            size_t u = ig_varint_get(c + 1, cl - 1, &fl);
            REQUIRE(u && 1 + u + fl <= cl);
            /* room after the frame, zeros */
            CHECK_EQ_INT(cl - 1 - u - fl, ig_chunk_ctx_room((size_t)fl));
            for (size_t i = 1 + u + (size_t)fl; i < cl; i++)
                CHECK(c[i] == 0);
            /* parsed to the same entries; refused where the version has none */
            int prc = ig_chunk_ctx_parse(c, cl, IG_FORMAT_VERSION, &back, &err);
            if (prc) fprintf(stderr, "%s\n", err.msg);
            REQUIRE(prc == 0);
            REQUIRE(ig_chunk_ctx_write(&back, &again) == 0);
            CHECK(again.len == plain.len && memcmp(again.data, plain.data, plain.len) == 0);
            ig_chunk_ctx_free(&back);
            CHECK(ig_chunk_ctx_parse(c, cl, IG_FORMAT_CTX_ZSTD - 1, &back, &err) == -EIO);
            CHECK(strstr(err.msg, "version") != NULL);
            /* damaged anywhere, or cut: parsed or EIO */
            uint8_t *q = malloc(cl);
            for (int t = 0; t < 600; t++) {
                memcpy(q, c, cl);
                size_t len = cl;
                if (t % 3)
                    q[test_rand(&seed) % (t % 3 == 1 ? (cl < 64 ? cl : 64) : cl)] ^=
                        (uint8_t)(1 + test_rand(&seed) % 255);
                else
                    len = test_rand(&seed) % cl;
                int rc = ig_chunk_ctx_parse(q, len, IG_FORMAT_VERSION, &back, &err);
                CHECK(rc == 0 || rc == -EIO);
                if (!rc) ig_chunk_ctx_free(&back);
            }
            free(q);
        }
        ig_buf_free(&plain);
        ig_buf_free(&b);
        ig_buf_free(&again);
        ig_chunk_ctx_free(&cx);
        free(offs);
        free(data);
    }
    /* hostile packings: entries followed by zeros inside the frame, a packed
     * entry after another or packed again inside, an entry after the packed
     * one, a frame that does not say its size or says more than a context holds */
    static const uint8_t fsst1[] = {1, 4, 1, 1, 'x', 1}; /* one symbol "x" used once */
    struct {
        const char *why;
        uint8_t inner[32];
        size_t inner_len;
        bool sized;
        uint8_t after[8];
        size_t after_len;
        size_t before;
    } bad[] = {
        {"zeros inside", {1, 4, 1, 1, 'x', 1, 0, 0}, 8, true, {0}, 0, 0},
        {"packed inside", {4, 1, 0}, 3, true, {0}, 0, 0},
        {"an entry after", {1, 4, 1, 1, 'x', 1}, 6, true, {1, 4, 1, 1, 'x', 1}, 6, 0},
        {"after another entry", {1, 4, 1, 1, 'x', 1}, 6, true, {0}, 0, 6},
        {"no size", {1, 4, 1, 1, 'x', 1}, 6, false, {0}, 0, 0},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        uint8_t frame[256], ctx[512];
        ZSTD_CCtx *z = ZSTD_createCCtx();
        REQUIRE(z != NULL);
        ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, bad[k].sized);
        size_t fl;
        if (bad[k].sized) {
            fl = ZSTD_compress2(z, frame, sizeof frame, bad[k].inner, bad[k].inner_len);
        } else { /* streamed: the frame says no size */
            ZSTD_outBuffer o = {frame, sizeof frame, 0};
            ZSTD_inBuffer in = {bad[k].inner, bad[k].inner_len, 0};
            ZSTD_compressStream2(z, &o, &in, ZSTD_e_end);
            fl = o.pos;
        }
        ZSTD_freeCCtx(z);
        REQUIRE(!ZSTD_isError(fl) && fl < 128);
        size_t at = 0;
        memcpy(ctx, fsst1, bad[k].before);
        at += bad[k].before;
        ctx[at++] = 4;
        ctx[at++] = (uint8_t)fl;
        memcpy(ctx + at, frame, fl);
        at += fl;
        memcpy(ctx + at, bad[k].after, bad[k].after_len);
        at += bad[k].after_len;
        struct ig_chunk_ctx back = {0};
        int rc = ig_chunk_ctx_parse(ctx, at, IG_FORMAT_VERSION, &back, &err);
        if (rc != -EIO) fprintf(stderr, "%s: parsed\n", bad[k].why);
        CHECK(rc == -EIO);
        if (!rc) ig_chunk_ctx_free(&back);
    }
    /* the good one of them parses */
    {
        uint8_t frame[64], ctx[80];
        size_t fl = ZSTD_compress(frame, sizeof frame, fsst1, sizeof fsst1, 3);
        REQUIRE(!ZSTD_isError(fl));
        ctx[0] = 4;
        ctx[1] = (uint8_t)fl;
        memcpy(ctx + 2, frame, fl);
        memset(ctx + 2 + fl, 0, 8);
        struct ig_chunk_ctx back = {0};
        CHECK(ig_chunk_ctx_parse(ctx, 2 + fl + 8, IG_FORMAT_VERSION, &back, &err) == 0);
        CHECK(back.fsst != NULL);
        ig_chunk_ctx_free(&back);
    }
}

/* The erase's rule over random erase sets, applied one after another. */
static void test_zdict_erase_rule(void)
{
    uint64_t seed = 17;
    size_t shorts = 0;
    for (int sh = 0; sh < Z_COUNT; sh++) {
        size_t n = sh == Z_LONG ? 200 : 6000;
        uint64_t *offs = malloc((n + 1) * sizeof *offs);
        uint8_t *data = zgen(sh, n, offs, &seed);
        struct ig_zdict *d = NULL;
        REQUIRE(ig_zdict_train(offs, data, n, 4096, 0, &d) == 0);
        if (!d) {
            free(offs);
            free(data);
            continue;
        }
        uint8_t *gone = calloc(n, 1);
        uint32_t ns = ig_zdict_nsegments(d);
        size_t size0 = ig_zdict_size(d);
        for (uint32_t i = 0; i < ns; i++) /* keyed by fewer than four bytes */
            shorts += ig_zdict_segment_len(d, i) < 4;
        for (int round = 0; round < 6; round++) {
            uint8_t *kill = calloc(n, 1);
            size_t density = 2 + test_rand(&seed) % 30;
            for (size_t i = 0; i < n; i++)
                if (!gone[i] && test_rand(&seed) % density == 0) kill[i] = 1;
            if (round == 5) /* the last round erases every value */
                for (size_t i = 0; i < n; i++)
                    kill[i] = !gone[i];
            /* as erase_dict.c: segments the erased values hold, then those a
             * value that stays holds too */
            struct ig_zdict_find *held = NULL, *kept = NULL;
            REQUIRE(ig_zdict_find_new(d, NULL, 1, &held) == 0);
            for (size_t i = 0; i < n; i++)
                if (kill[i]) ig_zdict_find_value(held, data + offs[i], (size_t)(offs[i + 1] - offs[i]));
            uint8_t *suspect = calloc(ns + 1, 1);
            size_t at = 0;
            for (uint32_t i = 0; i < ns; at += ig_zdict_segment_len(d, i), i++)
                suspect[i] = ig_zdict_find_hits(held)[i] && !ig_zdict_segment_zero(d, i, at);
            REQUIRE(ig_zdict_find_new(d, suspect, 1, &kept) == 0);
            for (size_t i = 0; i < n; i++)
                if (!kill[i] && !gone[i])
                    ig_zdict_find_value(kept, data + offs[i], (size_t)(offs[i + 1] - offs[i]));
            at = 0;
            for (uint32_t i = 0; i < ns; at += ig_zdict_segment_len(d, i), i++) {
                size_t sl;
                const uint8_t *s = seg(d, i, &sl);
                bool by_erased = false, by_live = false;
                for (size_t v = 0; v < n; v++) {
                    bool h = holds(data + offs[v], (size_t)(offs[v + 1] - offs[v]), s, sl);
                    if (kill[v]) by_erased |= h;
                    if (!kill[v] && !gone[v]) by_live |= h;
                }
                bool zero = ig_zdict_segment_zero(d, i, at);
                REQUIRE(suspect[i] == (by_erased && !zero));
                if (!suspect[i]) continue;
                REQUIRE((ig_zdict_find_hits(kept)[i] != 0) == by_live);
                if (!by_live) ig_zdict_zero_segment(d, at, (unsigned)sl);
            }
            ig_zdict_find_free(held);
            ig_zdict_find_free(kept);
            free(suspect);
            for (size_t i = 0; i < n; i++)
                gone[i] |= kill[i];
            free(kill);
            /* never grows; every segment not zero is a live value's substring */
            REQUIRE(ig_zdict_size(d) == size0);
            struct ig_zdict_find *all = NULL;
            REQUIRE(ig_zdict_find_new(d, NULL, 1, &all) == 0);
            for (size_t i = 0; i < n; i++)
                if (!gone[i]) ig_zdict_find_value(all, data + offs[i], (size_t)(offs[i + 1] - offs[i]));
            REQUIRE(ig_zdict_find_remaining(all) == 0);
            ig_zdict_find_free(all);
        }
        /* every value erased: nothing of them is left */
        size_t at = 0;
        for (uint32_t i = 0; i < ns; at += ig_zdict_segment_len(d, i), i++)
            REQUIRE(ig_zdict_segment_zero(d, i, at));
        ig_zdict_free(d);
        free(gone);
        free(offs);
        free(data);
    }
    REQUIRE(shorts > 0); /* the finder's keys of one to three bytes were tried */
}

/* Blocks of a chunk with a dictionary, fitted to disk pages as the writer
 * fits a large string column (page_blocks.c): every block framed against the
 * dictionary holds at most IG_ZDICT_FRAME_PLAIN plain bytes (values and a
 * length word each; a block of one value may hold more), so a row read
 * decompresses a small frame; several share a 4 KiB page, none straddles
 * one; every block reads back its rows. Fails if dictionary frames grow to
 * fill the grain again (~10 KiB of these captions each). */
static void test_zdict_small_frames(void)
{
    uint64_t seed = 11;
    const size_t n = 20000, page_rows = 2000;
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    uint8_t *data = zgen(Z_WORDS, n, offs, &seed);
    struct ig_zdict *d = NULL;
    REQUIRE(ig_zdict_train(offs, data, n, 16384, 0, &d) == 0 && d);
    struct ig_values v, back;
    ig_values_init(&v, IG_T_STRING);
    for (size_t i = 0; i < n; i++)
        REQUIRE(ig_values_push_bytes(&v, data + offs[i], (size_t)(offs[i + 1] - offs[i])) == 0);
    struct ig_chunk_ctx cx = {.zdict = d};
    struct ig_page_policy pol = {.type = IG_T_STRING, .leaf = {.type = IG_T_STRING, .per_value = 1}, .zdict = d};
    struct ig_page_scratch scratch = {0};
    struct ig_error err = {0};
    struct ig_block_fit fit = {.grain = 4096};
    size_t framed = 0, blocks = 0, big = 0, straddle = 0, bad = 0;
    for (size_t p0 = 0; p0 < n; p0 += page_rows) {
        struct ig_page_built page = {0};
        size_t cuts[2] = {0, page_rows};
        REQUIRE(ig_page_encode_blocks(&pol, &v, p0, page_rows, cuts, 1, &fit, &scratch, &page, &err) == 0);
        for (uint32_t b = 0; b < page.nblocks; b++) {
            const struct ig_block_built *k = &page.blocks[b];
            blocks++;
            size_t r0 = p0 + k->first_row;
            uint64_t plain = offs[r0 + k->row_count] - offs[r0] + 4 * (uint64_t)k->row_count;
            uint64_t at = fit.at + k->offset;
            if (k->stored && at / 4096 != (at + k->stored - 1) / 4096) straddle++;
            if (k->compression == IG_PC_ZSTD_DICT) {
                framed++;
                if (plain > IG_ZDICT_FRAME_PLAIN && k->row_count > 1) big++;
            }
            struct ig_pagerec rec = {.stored = k->stored, .row_count = k->row_count,
                                     .entry_count = k->row_count, .value_count = k->row_count,
                                     .encoding = k->encoding, .compression = k->compression,
                                     .flags = k->flags, .body_size = k->body_size, .cx = &cx};
            ig_values_init(&back, IG_T_STRING);
            if (ig_page_decode(page.stored.data + k->offset, &rec, IG_T_STRING, NULL, &scratch, &back, &err) ||
                back.n != k->row_count) {
                bad++;
            } else {
                for (size_t i = 0; i < back.n; i++) {
                    size_t na;
                    const uint8_t *a = ig_values_bytes(&back, i, &na);
                    if (na != offs[r0 + i + 1] - offs[r0 + i] || memcmp(a, data + offs[r0 + i], na)) {
                        bad++;
                        break;
                    }
                }
            }
            ig_values_free(&back);
        }
        fit.at += page.stored.len;
        ig_page_built_free(&page);
    }
    if (big || straddle || framed < blocks / 2)
        fprintf(stderr, "  %zu blocks, %zu framed against the dictionary, %zu too big, %zu straddle\n", blocks,
                framed, big, straddle);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(big, 0);
    CHECK_EQ_INT(straddle, 0);
    CHECK(framed >= blocks / 2);
    /* several to a disk page: the stored bytes over the blocks */
    CHECK(blocks * 4096 > fit.at * 2);
    ig_page_scratch_free(&scratch);
    ig_values_free(&v);
    ig_zdict_free(d);
    free(offs);
    free(data);
}

/* Frames decoded through a decompression window (codec.h) read back as
 * without it, whichever dictionaries follow each other; the window takes a
 * dictionary's content on its second frame in a row, and a segment zeroed in
 * place is never read from the copy held before. */
static void test_zdict_window(void)
{
    uint64_t seed = 13;
    const size_t n = 6000;
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    uint8_t *data = zgen(Z_WORDS, n, offs, &seed);
    struct ig_zdict *d = NULL;
    REQUIRE(ig_zdict_train(offs, data, n, 8192, 0, &d) == 0 && d);
    struct ig_zdict *e = ig_zdict_copy(d);
    REQUIRE(e != NULL);
    size_t at = 0;
    for (uint32_t i = 0; i < ig_zdict_nsegments(e); at += ig_zdict_segment_len(e, i), i++)
        if (i % 2) ig_zdict_zero_segment(e, at, ig_zdict_segment_len(e, i));
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    struct ig_zdict_window w = {0};
    uint8_t z[8192], dst[4096];
    REQUIRE(cc && dc);
    /* d d d e e d e e e d: the window takes a dictionary on its second frame
     * in a row and serves it until it takes another */
    const char *order = "dddeedeeed";
    char holding = 0;
    size_t held = 0, bad = 0, wrong_place = 0;
    for (int k = 0; order[k]; k++) {
        struct ig_zdict *x = order[k] == 'd' ? d : e;
        size_t a = test_rand(&seed) % (n - 20), b = a + 1 + test_rand(&seed) % 15;
        size_t len = (size_t)(offs[b] - offs[a]);
        REQUIRE(len <= sizeof dst);
        size_t zl = ig_zdict_compress(cc, x, z, sizeof z, data + offs[a], len, IG_ZDICT_LEVEL);
        REQUIRE(!ZSTD_isError(zl));
        const uint8_t *out = NULL;
        size_t m = ig_zdict_decompress_window(dc, x, &w, dst, len, z, zl, &out);
        if (ZSTD_isError(m) || m != len || memcmp(out, data + offs[a], len)) bad++;
        if (k > 0 && order[k - 1] == order[k]) holding = order[k];
        bool windowed = out != dst;
        if (windowed != (holding == order[k])) wrong_place++;
        held += windowed;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(wrong_place, 0);
    CHECK_EQ_INT(held, 6);
    /* d is held: a segment of it zeroed in place drops that copy; the next
     * frame's copy is of the zeroed content */
    REQUIRE(w.held != 0);
    ig_zdict_zero_segment(d, 0, ig_zdict_segment_len(d, 0));
    for (int k = 0; k < 2; k++) {
        size_t len = (size_t)(offs[11] - offs[10]);
        size_t zl = ig_zdict_compress(cc, d, z, sizeof z, data + offs[10], len, IG_ZDICT_LEVEL);
        REQUIRE(!ZSTD_isError(zl));
        const uint8_t *out = NULL;
        size_t m = ig_zdict_decompress_window(dc, d, &w, dst, len, z, zl, &out);
        CHECK(!ZSTD_isError(m) && m == len && memcmp(out, data + offs[10], len) == 0);
        CHECK((out != dst) == (k == 1));
    }
    CHECK(memcmp(w.buf.data, ig_zdict_content(d), ig_zdict_content_len(d)) == 0);
    ig_zdict_window_free(&w);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    ig_zdict_free(d);
    ig_zdict_free(e);
    free(offs);
    free(data);
}

TEST_MAIN(T(test_zdict_train), T(test_trainers_sample_every_kind), T(test_zdict_window),
          T(test_zdict_context_bytes), T(test_context_packed), T(test_zdict_erase_rule),
          T(test_zdict_small_frames))
