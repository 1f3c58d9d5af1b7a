/* test_vdict.c - property tests for chunk value dictionaries (format 14,
 * context kind 3) and the vdict bytes scheme whose streams hold only codes
 * into one (src/format/enc/vdict.c, context.c).
 *
 * Random values of random cardinality (empty values, very long ones, codes
 * 0 for NULLs) coded into streams of random lengths round trip; one item
 * read alone equals the whole stream's; random erase sets applied again and
 * again never grow a stream, leave erased items empty and live ones as they
 * were, keep the counts equal to the live codes (the uses before less the
 * uses after), and prune exactly the entries no live code names, whose bytes
 * then appear nowhere in the context; the context survives its bytes;
 * corrupt dictionaries, contexts and codes are errors, never crashes. */
#include "check.h"

#include <errno.h>

#include "format/enc/codec.h"
#include "format/layout.h"
#include "util/buf.h"
#include "util/error.h"

/* k distinct non-empty entries of random lengths (some very long), each
 * starting with its number so they differ. */
static uint8_t *entries(uint32_t k, uint64_t *offs, uint64_t *seed)
{
    struct ig_buf b = IG_BUF_INIT;
    offs[0] = 0;
    for (uint32_t c = 0; c < k; c++) {
        char head[16];
        int hl = snprintf(head, sizeof head, "#%u:", c);
        ig_buf_append(&b, head, (size_t)hl);
        /* a few very long ones (only where k is small: the dictionary stays small) */
        size_t len = k <= 300 && test_rand(seed) % 16 == 0 ? 1000 + test_rand(seed) % 70000
                                                          : test_rand(seed) % 24;
        for (size_t j = 0; j < len; j++)
            ig_buf_append_byte(&b, (uint8_t)test_rand(seed));
        offs[c + 1] = b.len;
    }
    ig_buf_append_byte(&b, 0);
    return b.data;
}

struct fixture {
    uint32_t k;
    uint64_t *eoffs;
    uint8_t *edata;
    size_t n;
    uint32_t *codes;
    struct ig_chunk_ctx cx;
};

static void make(struct fixture *f, uint64_t *seed)
{
    static const uint32_t ks[] = {1, 2, 3, 17, 255, 256, 300, 4000, 70000};
    /* (70,000: codes of 4 bytes) */
    f->k = ks[test_rand(seed) % (sizeof ks / sizeof ks[0])];
    f->n = 1 + test_rand(seed) % 3000;
    f->eoffs = malloc(((size_t)f->k + 1) * 8);
    f->edata = entries(f->k, f->eoffs, seed);
    f->codes = malloc(f->n * 4);
    unsigned nulls = (unsigned)(test_rand(seed) % 4); /* none, or 1 in 2, 4, 8 */
    uint32_t hot = 1 + (uint32_t)(test_rand(seed) % f->k);
    for (size_t i = 0; i < f->n; i++) {
        if (nulls && test_rand(seed) % (1u << nulls) == 0) f->codes[i] = 0;
        else if (test_rand(seed) % 2) f->codes[i] = 1 + (uint32_t)(test_rand(seed) % hot);
        else f->codes[i] = 1 + (uint32_t)(test_rand(seed) % f->k);
    }
    memset(&f->cx, 0, sizeof f->cx);
    REQUIRE(ig_vdict_new(f->eoffs, f->edata, f->k, &f->cx.vdict) == 0);
}

static void unmake(struct fixture *f)
{
    ig_chunk_ctx_free(&f->cx);
    free(f->eoffs);
    free(f->edata);
    free(f->codes);
}

/* The expected item i. */
static size_t expect(const struct fixture *f, const uint32_t *codes, size_t i, const uint8_t **p)
{
    uint32_t c = codes[i];
    *p = c ? f->edata + f->eoffs[c - 1] : (const uint8_t *)"";
    return c ? (size_t)(f->eoffs[c] - f->eoffs[c - 1]) : 0;
}

static void test_vdict_roundtrip(void)
{
    uint64_t seed = 1;
    for (int round = 0; round < 60; round++) {
        struct fixture f;
        make(&f, &seed);
        struct ig_buf s = IG_BUF_INIT, data = IG_BUF_INIT;
        struct ig_error err = {0};
        REQUIRE(ig_bytes_encode_vdict(f.codes, f.n, f.k, &s, &err) == 0);
        CHECK(ig_stream_scheme(s.data, s.len) == IG_ENC_VDICT);
        uint8_t *p = malloc(s.len); /* exact size: ASan sees overreads */
        memcpy(p, s.data, s.len);
        uint64_t *offs = malloc((f.n + 1) * 8);
        REQUIRE(ig_bytes_decode_cx(&f.cx, p, s.len, f.n, NULL, offs, &data, &err) == 0);
        for (size_t i = 0; i < f.n; i++) {
            const uint8_t *e;
            size_t el = expect(&f, f.codes, i, &e);
            CHECK_EQ_INT(offs[i + 1] - offs[i], el);
            CHECK(!el || !memcmp(data.data + offs[i], e, el));
            /* one item alone equals the block's */
            const uint8_t *v;
            size_t vl;
            REQUIRE(ig_bytes_get_cx(&f.cx, p, s.len, f.n, NULL, i, &v, &vl, &err) == 0);
            CHECK_EQ_INT(vl, el);
            CHECK(!el || !memcmp(v, e, el));
        }
        /* without the dictionary: an error naming it */
        CHECK(ig_bytes_decode(p, s.len, f.n, NULL, offs, &data, &err) == -EIO);
        CHECK(strstr(err.msg, "value dictionary") != NULL);
        free(p);
        free(offs);
        ig_buf_free(&s);
        ig_buf_free(&data);
        unmake(&f);
    }
}

/* Is needle anywhere in hay? (memmem: a byte-by-byte memcmp at every offset
 * took most of this test's time under ASan) */
static bool contains(const uint8_t *hay, size_t hl, const uint8_t *needle, size_t nl)
{
    return nl && memmem(hay, hl, needle, nl) != NULL;
}

static void test_vdict_erase(void)
{
    uint64_t seed = 2;
    for (int round = 0; round < 40; round++) {
        struct fixture f;
        make(&f, &seed);
        struct ig_error err = {0};
        /* several blocks of the chunk: the codes cut in runs */
        size_t nb = 1 + test_rand(&seed) % 4, per = (f.n + nb - 1) / nb;
        struct ig_buf blocks[4] = {IG_BUF_INIT, IG_BUF_INIT, IG_BUF_INIT, IG_BUF_INIT};
        uint64_t *counts = ig_vdict_counts(f.cx.vdict);
        for (size_t b = 0; b < nb; b++) {
            size_t a = b * per, m = a >= f.n ? 0 : (a + per <= f.n ? per : f.n - a);
            REQUIRE(ig_bytes_encode_vdict(f.codes + a, m, f.k, &blocks[b], &err) == 0);
            REQUIRE(ig_vdict_uses(f.cx.vdict, blocks[b].data, blocks[b].len, m, counts, 1, &err) == 0);
        }
        uint32_t *live = malloc(f.n * 4);
        memcpy(live, f.codes, f.n * 4);
        for (int pass = 0; pass < 3; pass++) {
            for (size_t b = 0; b < nb; b++) {
                size_t a = b * per, m = a >= f.n ? 0 : (a + per <= f.n ? per : f.n - a);
                if (!m) continue;
                uint8_t *kill = calloc(m / 8 + 1, 1);
                for (size_t i = 0; i < m; i++)
                    if (test_rand(&seed) % 3 == 0) kill[i / 8] |= (uint8_t)(1u << (i % 8));
                size_t len = blocks[b].len, nl = 0;
                REQUIRE(ig_vdict_uses(f.cx.vdict, blocks[b].data, len, m, counts, -1, &err) == 0);
                REQUIRE(ig_bytes_erase_cx(&f.cx, blocks[b].data, len, m, NULL, kill, &nl, &err) == 0);
                CHECK(nl <= len); /* never grows */
                for (size_t j = nl; j < len; j++)
                    CHECK(blocks[b].data[j] == 0);
                blocks[b].len = nl;
                REQUIRE(ig_vdict_uses(f.cx.vdict, blocks[b].data, nl, m, counts, 1, &err) == 0);
                for (size_t i = 0; i < m; i++)
                    if ((kill[i / 8] >> (i % 8)) & 1) live[a + i] = 0;
                CHECK(ig_bytes_check_erased_cx(&f.cx, blocks[b].data, nl, m, NULL, kill, &err) == 0);
                free(kill);
            }
            size_t before = ig_vdict_size(f.cx.vdict);
            size_t zeroed = ig_vdict_prune(f.cx.vdict);
            CHECK(ig_vdict_size(f.cx.vdict) <= before);
            /* the counts are the live codes; an entry no live code names is
             * erased, and only it */
            uint64_t *want = calloc((size_t)f.k + 1, 8);
            for (size_t i = 0; i < f.n; i++)
                want[live[i]]++;
            size_t gone = 0;
            for (uint32_t c = 1; c <= f.k; c++) {
                CHECK_EQ_INT(ig_vdict_count(f.cx.vdict, c), want[c]);
                const uint8_t *e;
                size_t el = ig_vdict_entry(f.cx.vdict, c, &e);
                CHECK_EQ_INT(el == 0, want[c] == 0);
                gone += want[c] == 0;
            }
            CHECK(zeroed <= gone);
            /* the context's bytes hold no entry only erased items named */
            struct ig_buf ctx = IG_BUF_INIT;
            REQUIRE(ig_chunk_ctx_write(&f.cx, &ctx) == 0);
            for (uint32_t c = 1; c <= f.k; c++) {
                if (want[c]) continue;
                size_t el = (size_t)(f.eoffs[c] - f.eoffs[c - 1]);
                if (el > 64) el = 64; /* a unique head: its number, then random bytes */
                if (f.k <= 4000) CHECK(!contains(ctx.data, ctx.len, f.edata + f.eoffs[c - 1], el));
            }
            /* and parse again to the same dictionary */
            struct ig_chunk_ctx again = {0};
            REQUIRE(ig_chunk_ctx_parse(ctx.data, ctx.len, IG_FORMAT_VERSION, &again, &err) == 0);
            REQUIRE(again.vdict != NULL);
            for (uint32_t c = 1; c <= f.k; c++)
                CHECK_EQ_INT(ig_vdict_count(again.vdict, c), want[c]);
            ig_chunk_ctx_free(&again);
            ig_buf_free(&ctx);
            free(want);
            /* every live item reads as it was */
            for (size_t b = 0; b < nb; b++) {
                size_t a = b * per, m = a >= f.n ? 0 : (a + per <= f.n ? per : f.n - a);
                for (size_t i = 0; i < m; i++) {
                    const uint8_t *v, *e;
                    size_t vl;
                    REQUIRE(ig_bytes_get_cx(&f.cx, blocks[b].data, blocks[b].len, m, NULL, i, &v, &vl, &err) == 0);
                    size_t el = expect(&f, live, a + i, &e);
                    CHECK_EQ_INT(vl, el);
                    CHECK(!el || !memcmp(v, e, el));
                }
            }
        }
        for (size_t b = 0; b < 4; b++)
            ig_buf_free(&blocks[b]);
        free(live);
        unmake(&f);
    }
}

/* Damaged dictionaries, contexts and codes: -EIO, never a crash. */
static void test_vdict_corrupt(void)
{
    uint64_t seed = 3;
    struct ig_error err = {0};
    for (int round = 0; round < 30; round++) {
        struct fixture f;
        make(&f, &seed);
        uint64_t *counts = ig_vdict_counts(f.cx.vdict);
        for (size_t i = 0; i < f.n; i++)
            counts[f.codes[i]]++;
        ig_vdict_prune(f.cx.vdict);
        struct ig_buf ctx = IG_BUF_INIT, s = IG_BUF_INIT, data = IG_BUF_INIT;
        REQUIRE(ig_chunk_ctx_write(&f.cx, &ctx) == 0);
        REQUIRE(ig_bytes_encode_vdict(f.codes, f.n, f.k, &s, &err) == 0);
        uint64_t *offs = malloc((f.n + 1) * 8);
        for (int t = 0; t < 200; t++) {
            /* a flipped byte or a cut context parses or fails cleanly */
            size_t len = ctx.len;
            uint8_t *p = malloc(len);
            memcpy(p, ctx.data, len);
            if (t % 2) {
                size_t at = test_rand(&seed) % len;
                p[at] ^= (uint8_t)(1 + test_rand(&seed) % 255);
            } else {
                len = test_rand(&seed) % len;
            }
            struct ig_chunk_ctx cx = {0};
            int rc = ig_chunk_ctx_parse(p, len, IG_FORMAT_VERSION, &cx, &err);
            CHECK(rc == 0 || rc == -EIO);
            if (!rc && cx.vdict) /* codes read against whatever parsed: checked */
                rc = ig_bytes_decode_cx(&cx, s.data, s.len, f.n, NULL, offs, &data, &err);
            CHECK(rc == 0 || rc == -EIO);
            ig_chunk_ctx_free(&cx);
            free(p);
            /* damaged codes against the good dictionary */
            uint8_t *q = malloc(s.len);
            memcpy(q, s.data, s.len);
            size_t at = 1 + test_rand(&seed) % (s.len - 1);
            q[at] ^= (uint8_t)(1 + test_rand(&seed) % 255);
            rc = ig_bytes_decode_cx(&f.cx, q, s.len, f.n, NULL, offs, &data, &err);
            CHECK(rc == 0 || rc == -EIO);
            free(q);
        }
        /* a code past k or naming an erased entry */
        uint32_t bad = f.k + 1;
        ig_buf_reset(&s);
        REQUIRE(ig_bytes_encode_vdict(&bad, 1, f.k, &s, &err) == 0);
        CHECK(ig_bytes_decode_cx(&f.cx, s.data, s.len, 1, NULL, offs, &data, &err) == -EIO);
        ig_buf_free(&ctx);
        ig_buf_free(&s);
        ig_buf_free(&data);
        free(offs);
        unmake(&f);
    }
    /* a count where an entry is erased, and a count 0 where one is not */
    static const uint8_t zero_count[] = {1, 4, 1, 1, 2, 'x', 0};
    struct ig_vdict *d = NULL;
    CHECK(ig_vdict_parse(zero_count, sizeof zero_count, &d, &err) == -EIO);
    CHECK(strstr(err.msg, "entry 1") != NULL);
}

TEST_MAIN(T(test_vdict_roundtrip), T(test_vdict_erase), T(test_vdict_corrupt))
