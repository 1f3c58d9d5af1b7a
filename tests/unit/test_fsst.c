/* test_fsst.c - property tests for the fsst bytes scheme and the chunk
 * contexts that hold its symbol table (src/format/enc/fsst.c, context.c).
 *
 * Round trips over many data shapes (random bytes, every byte value, empty
 * and very long items, text the table was not trained on); one item decoded
 * alone equals the whole stream's; random erase sets applied repeatedly
 * (never grows, zeros after the new end, erased items empty, live ones
 * unchanged, check_erased passes, the uses taken off the counts are exactly
 * the erased items', a symbol no item uses is pruned); the table and the
 * context survive their bytes and reject corrupt ones; corrupt streams are
 * errors, never crashes. test_fsst_speed prints sizes and MB/s. */
#include "check.h"

#include <errno.h>
#include <time.h>

#include "format/enc/codec.h"
#include "format/layout.h"
#include "format/enc/enc_internal.h"
#include "util/bitpack.h"
#include "util/buf.h"
#include "util/error.h"

enum bshape { F_WORDS, F_RANDOM, F_ALLBYTES, F_EMPTYISH, F_LONG, F_URLS, F_COUNT };

static const char *const vocab[] = {"the",   "a",       "dog",      "cat",    "runs", "over",
                                    "green", "field",   "under",    "bright", "sky",  "with",
                                    "small", "red",     "ball",     "photo",  "of",   "man",
                                    "woman", "holding", "umbrella", "street"};

/* n items of a shape: offsets into a fresh buffer (offs[0] = base). */
static uint8_t *fgen(int sh, size_t n, uint64_t *offs, uint64_t base, uint64_t *seed)
{
    struct ig_buf b = IG_BUF_INIT;
    ig_buf_append_zeros(&b, (size_t)base);
    for (size_t i = 0; i < n; i++) {
        offs[i] = b.len;
        size_t len;
        switch (sh) {
        case F_WORDS:
            len = test_rand(seed) % 12;
            for (size_t w = 0; w < len; w++) {
                const char *s = vocab[test_rand(seed) % (sizeof vocab / sizeof vocab[0])];
                if (w) ig_buf_append_byte(&b, ' ');
                ig_buf_append(&b, s, strlen(s));
            }
            break;
        case F_RANDOM:
            len = test_rand(seed) % 40;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)test_rand(seed));
            break;
        case F_ALLBYTES: /* every byte value, 255 (the escape code) included */
            len = test_rand(seed) % 300;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)(j + i));
            break;
        case F_EMPTYISH:
            len = test_rand(seed) % 4 ? 0 : 1 + test_rand(seed) % 3;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, "ab\xff"[test_rand(seed) % 3]);
            break;
        case F_LONG: /* a few very long items */
            len = i % 7 == 0 ? 70000 + test_rand(seed) % 1000 : test_rand(seed) % 20;
            for (size_t j = 0; j < len; j++)
                ig_buf_append_byte(&b, (uint8_t)("abcabcxyz"[j % 9] + (test_rand(seed) % 50 == 0)));
            break;
        default: {
            char u[128];
            char letter = (char)('a' + test_rand(seed) % 26);
            unsigned long long dir = test_rand(seed) % 5000, pkg = test_rand(seed) % 5000,
                               minor = test_rand(seed) % 30;
            int l =
                snprintf(u, sizeof u,
                         "https://deb.example.org/pool/main/%c/pkg%llu/pkg%llu_1.%llu_amd64.deb",
                         letter, dir, pkg, minor);
            ig_buf_append(&b, u, (size_t)l);
        }
        }
    }
    offs[n] = b.len;
    ig_buf_append_zeros(&b, 1); /* a real pointer even when empty */
    return b.data;
}

static bool item_is(const uint64_t *offs, const uint8_t *data, size_t i, const uint8_t *v,
                    size_t vl)
{
    size_t l = (size_t)(offs[i + 1] - offs[i]);
    return l == vl && (l == 0 || memcmp(data + offs[i], v, l) == 0);
}

/* A table trained on the items, wrapped as a context. */
static struct ig_chunk_ctx trained(const uint64_t *offs, const uint8_t *data, size_t n)
{
    struct ig_chunk_ctx cx = {0};
    CHECK(ig_fsst_train(offs, data, n, &cx.fsst) == 0);
    return cx;
}

static int fsst_encode(struct ig_chunk_ctx *cx, const uint64_t *offs, const uint8_t *data, size_t n,
                       struct ig_buf *out)
{
    struct ig_enc_opts o = {.forced = IG_ENC_FSST, .fsst = cx->fsst};
    return ig_bytes_encode(offs, data, n, &o, out, NULL);
}

/* The uses a stream makes of the table, as counts[256]. */
static void uses_of(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                    uint64_t *counts)
{
    memset(counts, 0, 256 * sizeof *counts);
    CHECK(ig_bytes_symbol_uses(p, len, n, cx, counts, NULL) == 0);
}

static void test_fsst_roundtrip(void)
{
    uint64_t seed = check_seed ^ 0xF551;
    const size_t ns[] = {0, 1, 2, 127, 129, 3000};
    for (int sh = 0; sh < F_COUNT; sh++)
        for (size_t si = 0; si < sizeof ns / sizeof ns[0]; si++) {
            size_t n = ns[si];
            if (sh == F_LONG && n > 200) continue;
            uint64_t *offs = malloc((n + 1) * 8), *oo = malloc((n + 1) * 8);
            uint64_t base = test_rand(&seed) % 3;
            uint8_t *data = fgen(sh, n, offs, base, &seed);
            /* trained on these items, and on other ones (every byte then escapes or not) */
            struct ig_chunk_ctx cx = trained(offs, data, n);
            for (int other = 0; other < 2; other++) {
                struct ig_chunk_ctx ocx = cx;
                uint64_t *o2 = NULL;
                uint8_t *d2 = NULL;
                if (other) {
                    o2 = malloc(101 * 8);
                    d2 = fgen((sh + 1) % F_COUNT == F_LONG ? F_WORDS : (sh + 1) % F_COUNT, 100, o2,
                              0, &seed);
                    ocx = trained(o2, d2, 100);
                }
                struct ig_buf b = IG_BUF_INIT, out = IG_BUF_INIT;
                struct ig_error err = {0};
                int rc = fsst_encode(&ocx, offs, data, n, &b);
                CHECK(rc == 0 && b.data[0] == IG_ENC_FSST);
                if (!rc) {
                    rc = ig_bytes_decode_cx(&ocx, b.data, b.len, n, NULL, oo, &out, &err);
                    CHECK(rc == 0);
                    if (rc) fprintf(stderr, "  shape %d n=%zu: %s\n", sh, n, err.msg);
                    size_t bad = 0;
                    for (size_t i = 0; !rc && i < n; i++)
                        bad +=
                            !item_is(offs, data, i, out.data + oo[i], (size_t)(oo[i + 1] - oo[i]));
                    CHECK(bad == 0);
                    for (size_t k = 0; !rc && k < (n < 50 ? n : 50); k++) {
                        size_t i = n < 50 ? k : test_rand(&seed) % n;
                        const uint8_t *v;
                        size_t vl;
                        CHECK(ig_bytes_get_cx(&ocx, b.data, b.len, n, NULL, i, &v, &vl, &err) == 0);
                        CHECK(item_is(offs, data, i, v, vl));
                    }
                    CHECK(ig_bytes_check_erased_cx(&ocx, b.data, b.len, n, NULL, NULL, &err) == 0);
                    /* without the table: an error, not a crash */
                    CHECK(ig_bytes_decode(b.data, b.len, n, NULL, oo, &out, &err) == -EIO);
                }
                ig_buf_free(&b);
                ig_buf_free(&out);
                if (other) {
                    ig_chunk_ctx_free(&ocx);
                    free(o2);
                    free(d2);
                }
            }
            ig_chunk_ctx_free(&cx);
            free(offs);
            free(oo);
            free(data);
        }
}

/* The items the table was trained on take about half their bytes, and auto
 * takes fsst where it is the smallest (only when offered a table). */
static void test_fsst_selection(void)
{
    uint64_t seed = check_seed ^ 0x5E1;
    size_t n = 4000;
    uint64_t *offs = malloc((n + 1) * 8);
    uint8_t *data = fgen(F_URLS, n, offs, 0, &seed);
    struct ig_chunk_ctx cx = trained(offs, data, n);
    struct ig_buf f = IG_BUF_INIT, a = IG_BUF_INIT, p = IG_BUF_INIT;
    REQUIRE(fsst_encode(&cx, offs, data, n, &f) == 0);
    struct ig_enc_opts auto_cx = {.fsst = cx.fsst}, plain = {.forced = IG_ENC_PLAIN};
    REQUIRE(ig_bytes_encode(offs, data, n, &auto_cx, &a, NULL) == 0);
    REQUIRE(ig_bytes_encode(offs, data, n, &plain, &p, NULL) == 0);
    CHECK(f.len * 2 < p.len);
    CHECK(a.data[0] == IG_ENC_FSST && a.len == f.len);
    /* not allowed: not taken */
    struct ig_enc_opts no = {.fsst = cx.fsst,
                             .allowed = ENC_BIT(IG_ENC_PLAIN) | ENC_BIT(IG_ENC_DICT)};
    ig_buf_reset(&a);
    REQUIRE(ig_bytes_encode(offs, data, n, &no, &a, NULL) == 0);
    CHECK(a.data[0] != IG_ENC_FSST);
    /* forced without a table: refused */
    struct ig_enc_opts bare = {.forced = IG_ENC_FSST};
    struct ig_error err = {0};
    CHECK(ig_bytes_encode(offs, data, n, &bare, &a, &err) == -EINVAL);
    ig_buf_free(&f);
    ig_buf_free(&a);
    ig_buf_free(&p);
    ig_chunk_ctx_free(&cx);
    free(offs);
    free(data);
}

static void test_fsst_erase(void)
{
    uint64_t seed = check_seed ^ 0xE2A5;
    const size_t ns[] = {1, 2, 129, 1000};
    for (int sh = 0; sh < F_COUNT; sh++)
        for (size_t si = 0; si < sizeof ns / sizeof ns[0]; si++) {
            size_t n = ns[si];
            if (sh == F_LONG && n > 200) continue;
            uint64_t *offs = malloc((n + 1) * 8), *oo = malloc((n + 1) * 8);
            uint8_t *data = fgen(sh, n, offs, 0, &seed);
            struct ig_chunk_ctx cx = trained(offs, data, n);
            struct ig_buf b = IG_BUF_INIT, out = IG_BUF_INIT;
            REQUIRE(fsst_encode(&cx, offs, data, n, &b) == 0);
            uint64_t counts[256], after[256];
            uses_of(&cx, b.data, b.len, n, counts);
            CHECK(ig_fsst_add_uses(cx.fsst, counts, 1) == 0);
            uint8_t *gone = calloc(n / 8 + 1, 1), *kill = calloc(n / 8 + 1, 1);
            size_t len = b.len;
            for (int round = 0; round < 4; round++) {
                memset(kill, 0, n / 8 + 1);
                for (size_t i = 0; i < n; i++)
                    if (!((gone[i / 8] >> (i % 8)) & 1) && test_rand(&seed) % 4 == 0)
                        kill[i / 8] |= (uint8_t)(1u << (i % 8));
                size_t new_len = 0;
                struct ig_error err = {0};
                int rc = ig_bytes_erase_cx(&cx, b.data, len, n, NULL, kill, &new_len, &err);
                CHECK(rc == 0);
                if (rc) break;
                CHECK(new_len <= len);
                for (size_t j = new_len; j < len; j++)
                    CHECK(b.data[j] == 0);
                /* the uses that left are the killed items' (each coded alone, as in the stream) */
                uint64_t want[256] = {0};
                for (size_t i = 0; i < n; i++) {
                    if (!((kill[i / 8] >> (i % 8)) & 1)) continue;
                    struct ig_buf one = IG_BUF_INIT;
                    uint64_t oo1[2] = {0, offs[i + 1] - offs[i]};
                    REQUIRE(fsst_encode(&cx, oo1, data + offs[i], 1, &one) == 0);
                    uses_of(&cx, one.data, one.len, 1, counts);
                    for (int c = 0; c < 256; c++)
                        want[c] += counts[c];
                    ig_buf_free(&one);
                }
                CHECK(ig_fsst_add_uses(cx.fsst, want, -1) == 0);
                for (size_t i = 0; i < n / 8 + 1; i++)
                    gone[i] |= kill[i];
                len = new_len;
                CHECK(ig_bytes_check_erased_cx(&cx, b.data, len, n, NULL, gone, &err) == 0);
                CHECK(ig_bytes_decode_cx(&cx, b.data, len, n, NULL, oo, &out, &err) == 0);
                for (size_t i = 0; i < n; i++) {
                    bool g = (gone[i / 8] >> (i % 8)) & 1;
                    size_t vl = (size_t)(oo[i + 1] - oo[i]);
                    CHECK(g ? vl == 0 : item_is(offs, data, i, out.data + oo[i], vl));
                }
                /* the counts left are exactly the live items' uses */
                uses_of(&cx, b.data, len, n, after);
                for (unsigned c = 0; c < 256; c++)
                    CHECK(ig_fsst_count(cx.fsst, c) == after[c]);
            }
            /* a symbol no live item uses leaves the table; what is left still decodes */
            ig_fsst_prune(cx.fsst);
            struct ig_error err = {0};
            CHECK(ig_bytes_decode_cx(&cx, b.data, len, n, NULL, oo, &out, &err) == 0);
            for (unsigned c = 0; c < 256; c++) {
                CHECK(ig_fsst_count(cx.fsst, c) == after[c]);
            }
            free(gone);
            free(kill);
            ig_buf_free(&b);
            ig_buf_free(&out);
            ig_chunk_ctx_free(&cx);
            free(offs);
            free(oo);
            free(data);
        }
}

/* A secret only erased items held leaves both the stream and the table. */
static void test_fsst_secret_gone(void)
{
    size_t n = 300;
    uint64_t *offs = malloc((n + 1) * 8);
    struct ig_buf d = IG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        offs[i] = d.len;
        const char *s = i % 10 == 3 ? "ZQXJVWKP ZQXJVWKP ZQXJVWKP" : "plain old caption text";
        ig_buf_append(&d, s, strlen(s));
    }
    offs[n] = d.len;
    struct ig_chunk_ctx cx = trained(offs, d.data, n);
    struct ig_buf b = IG_BUF_INIT, ctx = IG_BUF_INIT;
    REQUIRE(fsst_encode(&cx, offs, d.data, n, &b) == 0);
    uint64_t counts[256];
    uses_of(&cx, b.data, b.len, n, counts);
    REQUIRE(ig_fsst_add_uses(cx.fsst, counts, 1) == 0);
    ig_fsst_prune(cx.fsst);
    REQUIRE(ig_chunk_ctx_write(&cx, &ctx) == 0);
    CHECK(memmem(ctx.data, ctx.len, "ZQXJ", 4) != NULL); /* the table learnt it */
    uint8_t *kill = calloc(n / 8 + 1, 1);
    for (size_t i = 3; i < n; i += 10)
        kill[i / 8] |= (uint8_t)(1u << (i % 8));
    uses_of(&cx, b.data, b.len, n, counts);
    size_t new_len;
    REQUIRE(ig_bytes_erase_cx(&cx, b.data, b.len, n, NULL, kill, &new_len, NULL) == 0);
    uint64_t after[256];
    uses_of(&cx, b.data, b.len, n, after);
    for (int c = 0; c < 256; c++)
        counts[c] -= after[c];
    REQUIRE(ig_fsst_add_uses(cx.fsst, counts, -1) == 0);
    CHECK(ig_fsst_prune(cx.fsst));
    size_t old = ctx.len;
    ig_buf_reset(&ctx);
    REQUIRE(ig_chunk_ctx_write(&cx, &ctx) == 0);
    CHECK(ctx.len < old);
    for (const char *s = "ZQXJVWKP"; s[1]; s++) /* no two letters of it together */
        CHECK(memmem(ctx.data, ctx.len, s, 2) == NULL);
    CHECK(memmem(b.data, b.len, "ZQ", 2) == NULL);
    free(kill);
    free(offs);
    ig_buf_free(&d);
    ig_buf_free(&b);
    ig_buf_free(&ctx);
    ig_chunk_ctx_free(&cx);
}

/* Contexts survive their bytes; corrupt tables and streams are errors. */
static void test_fsst_context_bytes(void)
{
    uint64_t seed = check_seed ^ 0xC7C7;
    size_t n = 500;
    uint64_t *offs = malloc((n + 1) * 8), *oo = malloc((n + 1) * 8);
    uint8_t *data = fgen(F_WORDS, n, offs, 0, &seed);
    struct ig_chunk_ctx cx = trained(offs, data, n);
    struct ig_buf b = IG_BUF_INIT, ctx = IG_BUF_INIT, out = IG_BUF_INIT;
    REQUIRE(fsst_encode(&cx, offs, data, n, &b) == 0);
    uint64_t counts[256];
    uses_of(&cx, b.data, b.len, n, counts);
    REQUIRE(ig_fsst_add_uses(cx.fsst, counts, 1) == 0);
    ig_fsst_prune(cx.fsst);
    REQUIRE(ig_chunk_ctx_write(&cx, &ctx) == 0);
    REQUIRE(ig_buf_append_zeros(&ctx, 7) == 0); /* zeros after the entries are allowed */
    struct ig_chunk_ctx back = {0};
    struct ig_error err = {0};
    REQUIRE(ig_chunk_ctx_parse(ctx.data, ctx.len, IG_FORMAT_VERSION, &back, &err) == 0);
    CHECK(ig_fsst_symbols(back.fsst) == ig_fsst_symbols(cx.fsst));
    CHECK(ig_bytes_decode_cx(&back, b.data, b.len, n, NULL, oo, &out, &err) == 0);
    for (size_t i = 0; i < n; i++)
        CHECK(item_is(offs, data, i, out.data + oo[i], (size_t)(oo[i + 1] - oo[i])));
    ig_chunk_ctx_free(&back);
    /* every single-byte change and every truncation: parsed or refused, and
     * whatever parses decodes the stream or refuses it */
    int refused = 0;
    for (size_t at = 0; at < ctx.len; at++)
        for (int v = 0; v < 4; v++) {
            uint8_t *c2 = malloc(ctx.len);
            memcpy(c2, ctx.data, ctx.len);
            c2[at] = (uint8_t)(v == 0   ? 0u
                               : v == 1 ? 0xffu
                               : v == 2 ? c2[at] + 1u
                                        : (unsigned)test_rand(&seed));
            int rc = ig_chunk_ctx_parse(c2, ctx.len, IG_FORMAT_VERSION, &back, &err);
            if (rc) {
                refused++;
            } else {
                (void)ig_bytes_decode_cx(&back, b.data, b.len, n, NULL, oo, &out, &err);
                ig_chunk_ctx_free(&back);
            }
            free(c2);
        }
    CHECK(refused > 0);
    for (size_t l = 0; l < ctx.len - 7; l++) {
        if (ig_chunk_ctx_parse(ctx.data, l, IG_FORMAT_VERSION, &back, &err) == 0)
            ig_chunk_ctx_free(&back);
        else
            CHECK(strstr(err.msg, "context") || strstr(err.msg, "symbol table"));
    }
    /* unknown kinds, two tables */
    uint8_t unk[3] = {9, 0, 0};
    CHECK(ig_chunk_ctx_parse(unk, 3, IG_FORMAT_VERSION, &back, &err) == -EIO);
    struct ig_buf two = IG_BUF_INIT;
    ig_buf_append(&two, ctx.data, ctx.len - 7);
    ig_buf_append(&two, ctx.data, ctx.len - 7);
    CHECK(ig_chunk_ctx_parse(two.data, two.len, IG_FORMAT_VERSION, &back, &err) == -EIO);
    /* corrupt streams: every byte changed, every truncation */
    for (size_t at = 0; at < b.len; at += 1 + b.len / 300) {
        uint8_t *s2 = malloc(b.len);
        memcpy(s2, b.data, b.len);
        s2[at] ^= (uint8_t)(1 + test_rand(&seed) % 255);
        (void)ig_bytes_decode_cx(&cx, s2, b.len, n, NULL, oo, &out, &err);
        const uint8_t *v;
        size_t vl;
        (void)ig_bytes_get_cx(&cx, s2, b.len, n, NULL, at % n, &v, &vl, &err);
        (void)ig_bytes_check_erased_cx(&cx, s2, b.len, n, NULL, NULL, &err);
        size_t nl;
        uint8_t first[(500 + 7) / 8] = {1};
        (void)ig_bytes_erase_cx(&cx, s2, b.len, n, NULL, first, &nl, &err);
        free(s2);
    }
    for (size_t l = 0; l < b.len; l += 1 + b.len / 100)
        CHECK(ig_bytes_decode_cx(&cx, b.data, l, n, NULL, oo, &out, &err) != 0 || l == b.len);
    free(offs);
    free(oo);
    free(data);
    ig_buf_free(&b);
    ig_buf_free(&ctx);
    ig_buf_free(&out);
    ig_buf_free(&two);
    ig_chunk_ctx_free(&cx);
}

/* The codes are the greedy longest match at every position, whichever way
 * the encoder finds it (eight symbols of a prefix at a time where the CPU
 * has AVX-512, one by one under INGOT_NO_AVX512=1; two lanes of items):
 * against a search of the whole table, on a table made by hand whose
 * prefixes hold up to twelve long symbols (more than one vector of them),
 * 2-byte symbols whose first byte is no symbol, and bytes that are none
 * (escaped), over items of every length up to the block's last bytes. */
static void test_fsst_codes_are_longest_matches(void)
{
    static const char *const syms[] = {
        "a", "b", "c", "ab", "ba", "cc", "dd", "abc", "abca", "abcab", "abcabc", "abcabca",
        "abcabcab", "abcd", "abcda", "abcdab", "abcddd", "abcbbb", "abcccc", "bab", "babab",
        "dddddddd", "\xff\xff\x61", "ccab", "cabd"};
    size_t k = sizeof syms / sizeof syms[0];
    struct ig_buf tb = IG_BUF_INIT;
    ig_buf_append_byte(&tb, (uint8_t)k);
    for (size_t c = 0; c < k; c++)
        ig_buf_append_byte(&tb, (uint8_t)strlen(syms[c]));
    for (size_t c = 0; c < k; c++)
        ig_buf_append(&tb, syms[c], strlen(syms[c]));
    for (size_t c = 0; c < k; c++)
        ig_buf_append_byte(&tb, 1); /* a use each */
    struct ig_chunk_ctx cx = {0};
    size_t used = 0;
    struct ig_error err = {0};
    REQUIRE(ig_fsst_parse(tb.data, tb.len, &cx.fsst, &used, &err) == 0);
    static const char *const frags[] = {"abc", "abcab", "abcd", "ab", "ba", "dd", "\xff",
                                        "c", "bab", "ccab", "d", "abcabcab", "e", "ddd"};
    uint64_t seed = check_seed ^ 0x5EED;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + test_rand(&seed) % 300;
        uint64_t *offs = malloc((n + 1) * 8);
        struct ig_buf d = IG_BUF_INIT;
        ig_buf_append_zeros(&d, (size_t)(test_rand(&seed) % 5)); /* offs[0] > 0 */
        for (size_t i = 0; i < n; i++) {
            offs[i] = d.len;
            size_t parts = test_rand(&seed) % 4 ? test_rand(&seed) % 12 : 0;
            for (size_t j = 0; j < parts; j++) {
                const char *f = frags[test_rand(&seed) % (sizeof frags / sizeof frags[0])];
                ig_buf_append(&d, f, strlen(f));
            }
        }
        offs[n] = d.len;
        /* the reference: at each position the longest symbol that fits */
        struct ig_buf want = IG_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            for (uint64_t at = offs[i]; at < offs[i + 1];) {
                size_t best = 0, code = 0;
                for (size_t c = 0; c < k; c++) {
                    size_t l = strlen(syms[c]);
                    if (l > best && l <= offs[i + 1] - at && !memcmp(d.data + at, syms[c], l)) {
                        best = l;
                        code = c;
                    }
                }
                if (best) {
                    ig_buf_append_byte(&want, (uint8_t)code);
                    at += best;
                } else {
                    ig_buf_append_byte(&want, 255);
                    ig_buf_append_byte(&want, d.data[at++]);
                }
            }
        struct ig_buf b = IG_BUF_INIT;
        REQUIRE(fsst_encode(&cx, offs, d.data ? d.data : (const uint8_t *)"", n, &b) == 0);
        size_t head = 2 + ig_bitpack_size(n + 1, ig_bit_width(want.len));
        CHECK(b.len == head + want.len);
        /* every item empty: no codes, and want.data may be NULL, which memcmp
         * must not see even for no bytes */
        CHECK(b.len == head + want.len &&
              (!want.len || memcmp(b.data + head, want.data, want.len) == 0));
        ig_buf_free(&b);
        ig_buf_free(&want);
        ig_buf_free(&d);
        free(offs);
    }
    ig_buf_free(&tb);
    ig_chunk_ctx_free(&cx);
}

/* Training that counts in kept counters (a writer's thread keeps one
 * ig_train_scratch for every chunk it plans) makes the same table as
 * training with fresh ones, whatever was trained before. */
static void test_fsst_train_in_kept_counters(void)
{
    uint64_t seed = check_seed ^ 0x7EA1;
    struct ig_train_scratch sc = {0};
    for (int round = 0; round < 2; round++)
        for (int sh = 0; sh < F_COUNT; sh++) {
            size_t n = sh == F_LONG ? 40 : 2000;
            uint64_t *offs = malloc((n + 1) * 8);
            uint8_t *data = fgen(sh, n, offs, 0, &seed);
            struct ig_fsst *fresh = NULL, *kept = NULL;
            REQUIRE(ig_fsst_train(offs, data, n, &fresh) == 0);
            REQUIRE(ig_fsst_train_in(offs, data, n, &sc, &kept) == 0);
            struct ig_buf a = IG_BUF_INIT, b = IG_BUF_INIT;
            REQUIRE(ig_fsst_write(fresh, &a) == 0 && ig_fsst_write(kept, &b) == 0);
            CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
            ig_buf_free(&a);
            ig_buf_free(&b);
            ig_fsst_free(fresh);
            ig_fsst_free(kept);
            free(offs);
            free(data);
        }
    ig_train_scratch_free(&sc);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sizes and speeds on caption-like text (informational). */
static void test_fsst_speed(void)
{
    uint64_t seed = 42;
    size_t n = 20000;
    uint64_t *offs = malloc((n + 1) * 8), *oo = malloc((n + 1) * 8);
    uint8_t *data = fgen(F_WORDS, n, offs, 0, &seed);
    double t0 = now_s();
    struct ig_chunk_ctx cx = trained(offs, data, n);
    double t1 = now_s();
    struct ig_buf b = IG_BUF_INIT, out = IG_BUF_INIT;
    REQUIRE(fsst_encode(&cx, offs, data, n, &b) == 0);
    double t2 = now_s();
    int reps = 20;
    for (int r = 0; r < reps; r++)
        REQUIRE(ig_bytes_decode_cx(&cx, b.data, b.len, n, NULL, oo, &out, NULL) == 0);
    double t3 = now_s();
    double mb = (double)offs[n] / 1e6;
    printf("     fsst: %.2f MB -> %.2f MB (%.2fx), train %.1f ms, encode %.0f MB/s, decode %.0f "
           "MB/s\n",
           mb, (double)b.len / 1e6, (double)offs[n] / (double)b.len, (t1 - t0) * 1e3,
           mb / (t2 - t1), mb * reps / (t3 - t2));
    ig_buf_free(&b);
    ig_buf_free(&out);
    ig_chunk_ctx_free(&cx);
    free(offs);
    free(oo);
    free(data);
}

TEST_MAIN(T(test_fsst_roundtrip), T(test_fsst_selection), T(test_fsst_erase),
          T(test_fsst_secret_gone), T(test_fsst_context_bytes),
          T(test_fsst_codes_are_longest_matches), T(test_fsst_train_in_kept_counters),
          T(test_fsst_speed))
