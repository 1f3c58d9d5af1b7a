/* common.c - helpers shared by the scheme files: bitmaps, nested-stream framing,
 * lane sorting (util/sort.h). No scheme logic lives here. */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "util/sort.h"

size_t bm_count(const uint8_t *bm, size_t n)
{
    if (!bm) return 0;
    size_t c = 0, full = n / 8;
    for (size_t i = 0; i < full; i++)
        c += (size_t)__builtin_popcount(bm[i]);
    if (n % 8) c += (size_t)__builtin_popcount(bm[full] & ((1u << (n % 8)) - 1));
    return c;
}

bool bm_any(const uint8_t *bm, size_t n)
{
    return bm_count(bm, n) != 0;
}

bool bm_intersects(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (!a || !b) return false;
    size_t full = n / 8;
    for (size_t i = 0; i < full; i++)
        if (a[i] & b[i]) return true;
    return n % 8 && (a[full] & b[full] & ((1u << (n % 8)) - 1));
}

int enc_nomem(struct ig_error *err)
{
    return ig_err(err, -ENOMEM, "out of memory");
}

int enc_field(const uint8_t *p, size_t len, size_t *pos, uint64_t *v, const char *scheme,
              const char *what, struct ig_error *err)
{
    size_t k = *pos <= len ? ig_varint_get(p + *pos, len - *pos, v) : 0;
    if (!k) return ig_err(err, -EIO, "%s stream: truncated or invalid %s", scheme, what);
    *pos += k;
    return 0;
}

int enc_sub(const uint8_t *p, size_t len, size_t *pos, const uint8_t **sub, size_t *sublen,
            const char *scheme, const char *what, struct ig_error *err)
{
    uint64_t l;
    int rc = enc_field(p, len, pos, &l, scheme, what, err);
    if (rc) return rc;
    if (l > len - *pos)
        return ig_err(err, -EIO, "%s stream: %s of %llu bytes runs past the end (%zu left)", scheme,
                      what, (unsigned long long)l, len - *pos);
    *sub = p + *pos;
    *sublen = (size_t)l;
    *pos += (size_t)l;
    return 0;
}

int enc_put_sub(struct ig_buf *out, const uint8_t *p, size_t len)
{
    int rc = ig_varint_append(out, len);
    return rc ? rc : ig_buf_append(out, p, len);
}

int enc_check_slack(const uint8_t *p, size_t from, size_t len, const char *scheme,
                    struct ig_error *err)
{
    for (size_t i = from; i < len; i++)
        if (p[i])
            return ig_err(err, -EIO, "%s stream: %zu bytes after its end are not zero", scheme,
                          len - from);
    return 0;
}

int enc_sort_lanes(uint64_t *v, size_t k, bool is_signed)
{
    /* sorted as order keys (signed lanes with the sign bit flipped): the key
     * map is its own inverse */
    if (is_signed)
        for (size_t i = 0; i < k; i++)
            v[i] = enc_order_key(v[i], true);
    int rc = ig_sort_u64(v, k);
    if (is_signed)
        for (size_t i = 0; i < k; i++)
            v[i] = enc_order_key(v[i], true);
    return rc;
}

int enc_erase_zeroing(const struct int_scheme *s, const uint8_t *p, size_t len, size_t n,
                      const struct ig_int_desc *d, const uint8_t *absent, const uint8_t *kill,
                      struct enc_dctx *c, struct ig_buf *out)
{
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return enc_nomem(c->err);
    size_t used;
    int rc = s->decode(p, len, n, d, absent, v, &used, c);
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            if (bm_get(kill, i)) v[i] = 0;
        struct enc_ectx ec = {.err = c->err};
        rc = s->encode(v, n, d, NULL, &ec, out);
    }
    free(v);
    return rc;
}

int enc_width_header(const uint8_t *p, size_t len, size_t n, unsigned *w, const char *scheme,
                     struct ig_error *err)
{
    if (len < 2) return ig_err(err, -EIO, "%s stream: truncated header", scheme);
    *w = p[1];
    if (*w != 1 && *w != 2 && *w != 4 && *w != 8)
        return ig_err(err, -EIO, "%s stream: invalid width %u", scheme, *w);
    if (n > (len - 2) / *w)
        return ig_err(err, -EIO, "%s stream: %zu values of %u bytes need more than %zu bytes",
                      scheme, n, *w, len - 2);
    return 0;
}

uint64_t enc_longest_item(const uint64_t *offs, size_t n)
{
    uint64_t longest = 0;
    for (size_t i = 0; i < n; i++)
        if (offs[i + 1] - offs[i] > longest) longest = offs[i + 1] - offs[i];
    return longest;
}

void enc_compact_items(uint8_t *dst, const uint8_t *src, uint64_t *offs, size_t n,
                       const uint8_t *kill)
{
    /* one pass: offs is rewritten in place behind the read cursor */
    uint64_t w = 0, prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = prev, b = offs[i + 1];
        prev = b;
        if (!bm_get(kill, i) && b > a) {
            memmove(dst + w, src + a, (size_t)(b - a));
            w += b - a;
        }
        offs[i + 1] = w;
    }
}

/* Where an erase leaves the freed bytes. Live items either side of a boundary
 * s pack towards it: items before s end where item s began, items from s on
 * start there; the freed bytes become zeros before the first coded item and
 * after the last. s = 0 is the plain rule (everything after the first erased
 * item shifts left); s just past an erased item shifts the items before it
 * right instead. The boundary that moves the fewest live bytes is taken, so an
 * item erased near the start of a block rewrites the block's head, not its
 * tail: a quarter of the block on average where a left shift moved half. The
 * choice reads only the live items' sizes and the erased positions. */
static size_t erase_boundary(size_t n, const uint64_t *co, const uint8_t *kill)
{
    uint64_t live_total = 0;
    for (size_t i = 0; i < n; i++)
        if (!bm_get(kill, i)) live_total += co[i + 1] - co[i];
    /* with erased items k1 < k2 < ... and live(k) the live bytes before k:
     * s = 0 moves live_total - live(k1); s = kj + 1 moves live(kj) before it
     * and live_total - live(kj+1) after it (nothing after the last one) */
    size_t best = 0, prev = 0;
    uint64_t best_cost = UINT64_MAX, live = 0, prev_live = 0;
    bool seen = false;
    for (size_t i = 0; i < n; i++) {
        uint64_t size = co[i + 1] - co[i];
        if (!bm_get(kill, i) || !size) { /* an item with no coded bytes frees nothing */
            live += size;
            continue;
        }
        uint64_t cost = seen ? prev_live + (live_total - live) : live_total - live;
        if (cost < best_cost) {
            best_cost = cost;
            best = seen ? prev + 1 : 0;
        }
        seen = true;
        prev = i;
        prev_live = live;
    }
    if (seen && prev_live < best_cost) best = prev + 1;
    return best;
}

void enc_erase_shift(size_t n, const uint64_t *co, const uint8_t *kill, uint64_t *o2)
{
    size_t s = erase_boundary(n, co, kill);
    o2[s] = co[s];
    for (size_t i = s; i-- > 0;) /* before s: packed right, ending at co[s] */
        o2[i] = o2[i + 1] - (bm_get(kill, i) ? 0 : co[i + 1] - co[i]);
    for (size_t i = s; i < n; i++) /* from s on: packed left, from co[s] */
        o2[i + 1] = o2[i] + (bm_get(kill, i) ? 0 : co[i + 1] - co[i]);
}
