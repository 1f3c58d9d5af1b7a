/* vdict.c - a column chunk's value dictionary (context kind 3, format 14) and
 * the bytes scheme whose blocks hold only codes into it (vdict, 14).
 *
 * Why: a low-cardinality string column (maintainers, tags, countries, class
 * names) coded with a dictionary per ~4 KiB block carries the same values
 * again in every block. Stored once per chunk, with each block keeping only
 * its codes (an int stream: bitpack, for, dict ... as any codes), the values
 * are paid for once, as Parquet's one dictionary page per column chunk.
 *
 * Dictionary (the context's kind-3 payload; docs/ENCODINGS.md "vdict"):
 *   [k: varint] [sub: a plain bytes stream of the k entries] [k use counts: varint each]
 *   Entry c (1..k) is item c - 1 of the stream. Its count is how many live
 *   items of the chunk's blocks name it; an entry no item names has length 0
 *   and count 0 (erased: its bytes are gone from the context), and only it.
 *
 * Stream: [14] [w: u8 in {1, 2, 4}] [codes: int stream of n lanes in 0..k]
 *   Code 0 is the empty item (NULLs and empty values, and every erased item);
 *   code c >= 1 is entry c, which must not be erased. w is the codes' desc
 *   width (the byte width of k).
 *
 * Erase: the item's code becomes 0 by its int stream's rule (never grows,
 *   never drops); the page layer takes the killed codes' uses off the counts
 *   (ig_vdict_uses before and after) and ig_vdict_prune erases every entry
 *   whose count fell to 0, then the context is written back in place (it only
 *   shrinks).
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

/* The most entries a dictionary holds (the codes' desc is at most 4 bytes;
 * a reader allocates O(k) for one, so k is bounded by the payload too). */
#define VDICT_MAX_K (1u << 26)

struct ig_vdict {
    uint32_t k;
    uint64_t *offs;  /* k + 1: entry c is data[offs[c - 1], offs[c]) */
    uint8_t *data;
    uint64_t *count; /* k + 1; count[0] unused (code 0 is the empty item) */
};

void ig_vdict_free(struct ig_vdict *v)
{
    if (!v) return;
    free(v->offs);
    free(v->data);
    free(v->count);
    free(v);
}

static struct ig_vdict *vdict_alloc(uint32_t k, uint64_t bytes)
{
    struct ig_vdict *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->k = k;
    v->offs = malloc(((size_t)k + 1) * sizeof *v->offs);
    v->data = malloc((size_t)bytes + 1);
    v->count = calloc((size_t)k + 1, sizeof *v->count);
    if (!v->offs || !v->data || !v->count) {
        ig_vdict_free(v);
        return NULL;
    }
    return v;
}

int ig_vdict_new(const uint64_t *offs, const uint8_t *data, uint32_t k, struct ig_vdict **out)
{
    *out = NULL;
    if (k > VDICT_MAX_K) return -E2BIG;
    uint64_t bytes = offs[k] - offs[0];
    struct ig_vdict *v = vdict_alloc(k, bytes);
    if (!v) return -ENOMEM;
    for (uint32_t c = 0; c <= k; c++)
        v->offs[c] = offs[c] - offs[0];
    if (bytes) memcpy(v->data, data + offs[0], (size_t)bytes);
    *out = v;
    return 0;
}

struct ig_vdict *ig_vdict_copy(const struct ig_vdict *s)
{
    struct ig_vdict *v = vdict_alloc(s->k, s->offs[s->k]);
    if (!v) return NULL;
    memcpy(v->offs, s->offs, ((size_t)s->k + 1) * sizeof *v->offs);
    memcpy(v->data, s->data, (size_t)s->offs[s->k]);
    memcpy(v->count, s->count, ((size_t)s->k + 1) * sizeof *v->count);
    return v;
}

uint32_t ig_vdict_k(const struct ig_vdict *v)
{
    return v->k;
}

uint64_t *ig_vdict_counts(struct ig_vdict *v)
{
    return v->count;
}

uint64_t ig_vdict_count(const struct ig_vdict *v, uint32_t c)
{
    return c >= 1 && c <= v->k ? v->count[c] : 0;
}

size_t ig_vdict_entry(const struct ig_vdict *v, uint32_t c, const uint8_t **p)
{
    *p = v->data + v->offs[c - 1];
    return (size_t)(v->offs[c] - v->offs[c - 1]);
}

uint64_t ig_vdict_bytes(const struct ig_vdict *v)
{
    return v->offs[v->k];
}

int ig_vdict_write(const struct ig_vdict *v, struct ig_buf *out)
{
    struct ig_buf sub = IG_BUF_INIT;
    struct ig_enc_opts o = {.forced = IG_ENC_PLAIN};
    int rc = ig_bytes_encode(v->offs, v->data, v->k, &o, &sub, NULL);
    uint8_t *h = rc ? NULL : ig_buf_extend(out, 10 + ig_varint_size(sub.len));
    if (!rc && !h) rc = -ENOMEM;
    if (!rc) {
        size_t a = ig_varint_put(h, v->k);
        a += ig_varint_put(h + a, sub.len);
        out->len -= 10 + ig_varint_size(sub.len) - a;
        rc = ig_buf_append(out, sub.data, sub.len);
    }
    for (uint32_t c = 1; !rc && c <= v->k; c++) {
        uint8_t *d = ig_buf_extend(out, 10);
        if (!d) {
            rc = -ENOMEM;
            break;
        }
        out->len -= 10 - ig_varint_put(d, v->count[c]);
    }
    ig_buf_free(&sub);
    return rc;
}

size_t ig_vdict_size(const struct ig_vdict *v)
{
    struct ig_buf b = IG_BUF_INIT;
    size_t n = ig_vdict_write(v, &b) ? SIZE_MAX : b.len;
    ig_buf_free(&b);
    return n;
}

int ig_vdict_parse(const uint8_t *p, size_t len, struct ig_vdict **out, struct ig_error *err)
{
    *out = NULL;
    size_t pos = 0, sl = 0;
    uint64_t k;
    const uint8_t *sub = NULL;
    int rc = enc_field(p, len, &pos, &k, "value dictionary", "entry count", err);
    if (rc) return rc;
    /* every entry has a count of at least one byte */
    if (k > VDICT_MAX_K || k > len)
        return ig_err(err, -EIO, "value dictionary: %llu entries in %zu bytes", (unsigned long long)k, len);
    rc = enc_sub(p, len, &pos, &sub, &sl, "value dictionary", "entries", err);
    if (rc) return rc;
    if (!sl || sub[0] != IG_ENC_PLAIN)
        return ig_err(err, -EIO, "value dictionary: its entries are not a plain bytes stream");
    uint64_t *offs = malloc(((size_t)k + 1) * sizeof *offs);
    struct ig_buf data = IG_BUF_INIT;
    struct ig_vdict *v = NULL;
    rc = offs ? ig_bytes_decode(sub, sl, (size_t)k, NULL, offs, &data, err) : enc_nomem(err);
    if (!rc && !(v = vdict_alloc((uint32_t)k, offs[k]))) rc = enc_nomem(err);
    if (!rc) {
        memcpy(v->offs, offs, ((size_t)k + 1) * sizeof *offs);
        if (offs[k]) memcpy(v->data, data.data, (size_t)offs[k]);
    }
    for (uint32_t c = 1; !rc && c <= k; c++) {
        rc = enc_field(p, len, &pos, &v->count[c], "value dictionary", "use count", err);
        bool empty = v->offs[c] == v->offs[c - 1];
        if (!rc && empty != (v->count[c] == 0))
            rc = ig_err(err, -EIO, "value dictionary: entry %u has %s bytes and %llu uses", c,
                        empty ? "no" : "some", (unsigned long long)v->count[c]);
    }
    if (!rc && pos != len)
        rc = ig_err(err, -EIO, "value dictionary: %zu bytes after its counts", len - pos);
    free(offs);
    ig_buf_free(&data);
    if (rc) {
        ig_vdict_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

size_t ig_vdict_prune(struct ig_vdict *v)
{
    size_t zeroed = 0;
    uint64_t at = 0;
    for (uint32_t c = 1; c <= v->k; c++) {
        uint64_t a = v->offs[c - 1], l = v->offs[c] - a;
        v->offs[c - 1] = at;
        if (v->count[c]) {
            memmove(v->data + at, v->data + a, (size_t)l);
            at += l;
        } else if (l) {
            zeroed++;
        }
    }
    v->offs[v->k] = at;
    return zeroed;
}

/* ---- the stream --------------------------------------------------------- */

static struct ig_int_desc codes_desc(uint64_t k)
{
    return (struct ig_int_desc){.width = k < 256 ? 1 : k < 65536 ? 2 : 4, .is_signed = false};
}

int ig_bytes_encode_vdict(const uint32_t *codes, size_t n, uint32_t k, struct ig_buf *out,
                          struct ig_error *err)
{
    struct ig_int_desc d = codes_desc(k);
    uint64_t *lanes = malloc((n + 1) * sizeof *lanes);
    uint8_t *h = ig_buf_extend(out, 2);
    if (!lanes || !h) {
        free(lanes);
        return enc_nomem(err);
    }
    h[0] = IG_ENC_VDICT;
    h[1] = d.width;
    for (size_t i = 0; i < n; i++)
        lanes[i] = codes[i];
    /* no scheme that drops: an erase never changes which positions the codes cover */
    struct ig_enc_opts o = {.no_drop = true};
    int rc = ig_ints_encode(lanes, n, &d, &o, out, err);
    free(lanes);
    return rc;
}

static int vdict_header(const uint8_t *p, size_t len, struct enc_dctx *c, struct ig_int_desc *d)
{
    if (!c->vdict)
        return ig_err(c->err, -EIO, "vdict stream: its chunk has no value dictionary");
    if (len < 3) return ig_err(c->err, -EIO, "vdict stream: truncated header");
    *d = codes_desc(c->vdict->k);
    if (p[1] != d->width)
        return ig_err(c->err, -EIO, "vdict stream: code width %u for %u entries", p[1], c->vdict->k);
    return 0;
}

/* Code c of item i checked against the dictionary. */
static int code_ok(const struct ig_vdict *v, uint64_t code, size_t i, struct ig_error *err)
{
    if (code > v->k)
        return ig_err(err, -EIO, "vdict stream: item %zu names entry %llu of %u", i,
                      (unsigned long long)code, v->k);
    if (code && v->offs[code] == v->offs[code - 1])
        return ig_err(err, -EIO, "vdict stream: item %zu names erased entry %llu", i,
                      (unsigned long long)code);
    return 0;
}

static int decode_codes(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                        uint64_t **codes, size_t *used, struct enc_dctx *c)
{
    struct ig_int_desc d;
    int rc = vdict_header(p, len, c, &d);
    if (rc) return rc;
    *codes = malloc((n + 1) * sizeof **codes);
    if (!*codes) return enc_nomem(c->err);
    size_t u = 0;
    rc = enc_int_decode(p + 2, len - 2, n, &d, absent, *codes, &u, c);
    for (size_t i = 0; !rc && i < n; i++)
        rc = code_ok(c->vdict, (*codes)[i], i, c->err);
    if (rc) {
        free(*codes);
        *codes = NULL;
        return rc;
    }
    if (used) *used = 2 + u;
    return 0;
}

static int vdict_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                        uint64_t *offs_out, struct ig_buf *data_out, size_t *used,
                        struct enc_dctx *c)
{
    uint64_t *codes;
    int rc = decode_codes(p, len, n, absent, &codes, used, c);
    if (rc) return rc;
    const struct ig_vdict *v = c->vdict;
    uint64_t total = 0;
    offs_out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t code = codes[i];
        total += code ? v->offs[code] - v->offs[code - 1] : 0;
        offs_out[i + 1] = total;
    }
    ig_buf_reset(data_out);
    uint8_t *dst = NULL;
    if (total > ENC_MAX_DECODED)
        rc = ig_err(c->err, -EIO, "vdict stream: too large decoded");
    else if (!(dst = ig_buf_extend(data_out, (size_t)total + 1)))
        rc = enc_nomem(c->err);
    for (size_t i = 0; !rc && i < n; i++)
        if (codes[i])
            memcpy(dst + offs_out[i], v->data + v->offs[codes[i] - 1],
                   (size_t)(offs_out[i + 1] - offs_out[i]));
    if (!rc) data_out->len = (size_t)total;
    free(codes);
    return rc;
}

static int vdict_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                     const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    struct ig_int_desc d;
    int rc = vdict_header(p, len, c, &d);
    uint64_t code = 0;
    if (!rc) rc = enc_int_get(p + 2, len - 2, n, &d, absent, i, &code, c);
    if (!rc) rc = code_ok(c->vdict, code, i, c->err);
    if (rc) return rc;
    static const uint8_t empty[1];
    *val = code ? c->vdict->data + c->vdict->offs[code - 1] : empty;
    *vlen = code ? (size_t)(c->vdict->offs[code] - c->vdict->offs[code - 1]) : 0;
    return 0;
}

static int vdict_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                        struct ig_buf *out)
{
    (void)offs, (void)data, (void)n, (void)out;
    return ig_err(c->err, -EINVAL, "vdict streams are written from their codes");
}

static int vdict_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                       const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    (void)may_drop;
    struct ig_int_desc d;
    int rc = vdict_header(p, len, c, &d);
    if (rc) return rc;
    if (ig_buf_append(out, p, 2)) return enc_nomem(c->err);
    return enc_int_erase(p + 2, len - 2, n, &d, absent, kill, false, c, out);
}

static int vdict_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                       const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    uint64_t *codes;
    int rc = decode_codes(p, len, n, absent, &codes, used, c);
    if (rc) return rc;
    for (size_t i = 0; !rc && i < n; i++)
        if (bm_get(erased, i) && codes[i])
            rc = ig_err(c->err, -EIO, "vdict stream: erased item %zu still names entry %llu", i,
                        (unsigned long long)codes[i]);
    free(codes);
    struct ig_int_desc d = codes_desc(c->vdict->k);
    if (!rc) rc = enc_int_check(p + 2, len - 2, n, &d, absent, erased, c);
    return rc;
}

int ig_vdict_uses(const struct ig_vdict *v, const uint8_t *p, size_t len, size_t n,
                  uint64_t *counts, int sign, struct ig_error *err)
{
    if (len < 1 || p[0] != IG_ENC_VDICT) return 0;
    struct enc_dctx c = {0, err, NULL, v};
    uint64_t *codes;
    int rc = decode_codes(p, len, n, NULL, &codes, NULL, &c);
    if (rc) return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t code = codes[i];
        if (!code) continue;
        if (sign > 0)
            counts[code]++;
        else if (counts[code])
            counts[code]--;
        else
            rc = ig_err(err, -EIO, "value dictionary: entry %llu used more often than counted",
                        (unsigned long long)code);
    }
    free(codes);
    return rc;
}

const struct bytes_scheme enc_vdict_bytes = {
    .id = IG_ENC_VDICT,
    .name = "vdict",
    .encode = vdict_encode,
    .decode = vdict_decode,
    .get = vdict_get,
    .erase = vdict_erase,
    .check = vdict_check,
};
