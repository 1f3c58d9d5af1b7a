/* fuzz_codec.c - libFuzzer target for the encoding schemes (src/format/enc).
 *
 * Input: [flags] [n: u16 LE] [seed] [stream ...]
 *   flags bit 0     bytes stream instead of int stream
 *   flags bits 1-2  lane width 1 << b (int streams)
 *   flags bit 3     signed lanes
 *   flags bit 4     pass a random `absent` bitmap
 *   flags bits 5-7  kill density (1 in 2^k positions)
 *   seed            drives the absent / kill bitmaps
 * The stream is copied into an exact-size buffer so ASan sees any overread.
 *
 * Besides "no crash, no UB", it checks what must hold for any input the
 * decoder accepts: get(i) agrees with decode; a successful erase never grows
 * the stream, zeroes what it frees, passes check_erased for the killed set, and
 * leaves every other position's value unchanged. A violation aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/error.h"

#define FUZZ_MAX_N (1u << 16)

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

static bool any(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (bit(b, i)) return true;
    return false;
}

/* Abort on a broken invariant, saying which and with the codec's last message. */
#define require(ok) require_at((ok), __LINE__, &err)
static void require_at(bool ok, int line, const struct ig_error *err)
{
    if (ok) return;
    fprintf(stderr, "fuzz_codec.c:%d: invariant broken (last error: %s)\n", line, err->msg);
    abort();
}

static void fuzz_ints(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, uint8_t *kill)
{
    struct ig_error err = {0};
    uint64_t *out = malloc((n + 1) * sizeof *out);
    uint64_t *after = malloc((n + 1) * sizeof *after);
    uint8_t *q = malloc(len ? len : 1);
    if (!out || !after || !q) goto done;
    int dec = ig_ints_decode(p, len, n, d, absent, out, &err);
    for (size_t t = 0; n && t < 8; t++) {
        size_t i = (size_t)((dec ? 0 : out[0]) + t * 7919) % n; /* any spread will do */
        uint64_t x;
        int rc = ig_ints_get(p, len, n, d, absent, i, &x, &err);
        if (!dec) require(rc == 0 && x == out[i]);
    }
    (void)ig_ints_check_erased(p, len, n, d, absent, kill, &err);
    (void)ig_ints_erase_drops(p, len);
    (void)ig_stream_scheme(p, len);

    memcpy(q, p, len);
    size_t nl = 0;
    bool drops = ig_ints_erase_drops(p, len);
    int rc = ig_ints_erase(q, len, n, d, absent, kill, &nl, &err);
    if (rc) {
        require(memcmp(q, p, len) == 0); /* a failed erase changes nothing */
        goto done;
    }
    require(nl <= len);
    for (size_t i = nl; i < len; i++)
        require(q[i] == 0);
    if (dec || !any(kill, n)) goto done; /* nothing to compare; an empty kill is a no-op */
    uint8_t *absent2 = calloc(n / 8 + 2, 1);
    if (!absent2) goto done;
    for (size_t i = 0; i < n; i++)
        if (bit(absent, i) || (drops && bit(kill, i))) absent2[i / 8] |= (uint8_t)(1u << (i % 8));
    require(ig_ints_check_erased(q, nl, n, d, absent2, kill, &err) == 0);
    require(ig_ints_decode(q, nl, n, d, absent2, after, &err) == 0);
    for (size_t i = 0; i < n; i++)
        require(bit(kill, i) ? after[i] == 0 : after[i] == out[i]);
    free(absent2);
done:
    free(out);
    free(after);
    free(q);
}

static void fuzz_bytes(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, uint8_t *kill)
{
    struct ig_error err = {0};
    uint64_t *offs = malloc((n + 1) * sizeof *offs), *offs2 = malloc((n + 1) * sizeof *offs2);
    struct ig_buf data = IG_BUF_INIT, data2 = IG_BUF_INIT;
    uint8_t *q = malloc(len ? len : 1);
    if (!offs || !offs2 || !q) goto done;
    int dec = ig_bytes_decode(p, len, n, absent, offs, &data, &err);
    for (size_t t = 0; n && t < 8; t++) {
        size_t i = (t * 7919) % n;
        const uint8_t *val = NULL;
        size_t vl = 0;
        int rc = ig_bytes_get(p, len, n, absent, i, &val, &vl, &err);
        /* points into the stream, or (huffman) into the decoder's own buffer */
        if (!rc && ig_stream_scheme(p, len) != IG_ENC_HUFF) require(val >= p && val + vl <= p + len);
        if (!dec)
            require(rc == 0 && vl == offs[i + 1] - offs[i] &&
                    (vl == 0 || memcmp(val, data.data + offs[i], vl) == 0));
    }
    (void)ig_bytes_check_erased(p, len, n, absent, kill, &err);

    memcpy(q, p, len);
    size_t nl = 0;
    bool drops = ig_bytes_erase_drops(p, len);
    int rc = ig_bytes_erase(q, len, n, absent, kill, &nl, &err);
    if (rc) {
        require(memcmp(q, p, len) == 0);
        goto done;
    }
    require(nl <= len);
    for (size_t i = nl; i < len; i++)
        require(q[i] == 0);
    if (dec || !any(kill, n)) goto done;
    uint8_t *absent2 = calloc(n / 8 + 2, 1);
    if (!absent2) goto done;
    for (size_t i = 0; i < n; i++)
        if (bit(absent, i) || (drops && bit(kill, i))) absent2[i / 8] |= (uint8_t)(1u << (i % 8));
    require(ig_bytes_check_erased(q, nl, n, absent2, kill, &err) == 0);
    require(ig_bytes_decode(q, nl, n, absent2, offs2, &data2, &err) == 0);
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

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 4) return 0;
    uint8_t flags = in[0];
    size_t n = (size_t)in[1] | (size_t)in[2] << 8; /* < FUZZ_MAX_N */
    uint64_t seed = in[3];
    size_t len = size - 4;
    uint8_t *p = malloc(len ? len : 1); /* exact size */
    uint8_t *absent = calloc(n / 8 + 2, 1), *kill = calloc(n / 8 + 2, 1);
    if (!p || !absent || !kill) goto done;
    memcpy(p, in + 4, len);
    unsigned den = 1u << (flags >> 5);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&seed);
        bool a = (flags & 0x10) && r % 4 == 0;
        if (a)
            absent[i / 8] |= (uint8_t)(1u << (i % 8));
        else if ((r >> 8) % den == 0)
            kill[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    const uint8_t *ab = (flags & 0x10) ? absent : NULL;
    if (flags & 1) {
        fuzz_bytes(p, len, n, ab, kill);
    } else {
        struct ig_int_desc d = {(uint8_t)(1u << ((flags >> 1) & 3)), (flags & 8) != 0};
        fuzz_ints(p, len, n, &d, ab, kill);
    }
done:
    free(p);
    free(absent);
    free(kill);
    return 0;
}
