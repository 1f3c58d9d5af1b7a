/* codec.c - the codecs' entry points (codec.h): arguments checked, the
 * options turned into an encode context for the selector (select.c), and
 * streams read through the dispatchers (dispatch.c).
 *
 * Erasing works on a fresh copy: the scheme writes the erased stream into a
 * buffer and it replaces the original only if it is no longer, so a failed
 * erase (-ENOSPC, -EIO) leaves the page as it was. */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

/* Largest n the entry points accept: codes and entry indices are 32-bit. */
#define ENC_MAX_N ((size_t)1 << 31)

static int check_desc(const struct ig_int_desc *d, size_t n, struct ig_error *err)
{
    if (!d || (d->width != 1 && d->width != 2 && d->width != 4 && d->width != 8))
        return ig_err(err, -EINVAL, "int stream: lane width must be 1, 2, 4 or 8 bytes");
    if (n > ENC_MAX_N)
        return ig_err(err, -EINVAL, "int stream: %zu values exceed the limit of %zu", n, ENC_MAX_N);
    return 0;
}

static int setup_ectx(const struct ig_enc_opts *o, unsigned all, struct enc_ectx *c,
                      struct ig_error *err)
{
    memset(c, 0, sizeof *c);
    c->err = err;
    enum ig_enc forced = o ? o->forced : IG_ENC_AUTO;
    int depth = o && o->max_depth ? o->max_depth : ENC_DEFAULT_DEPTH;
    if ((unsigned)forced >= IG_ENC_COUNT || (forced != IG_ENC_AUTO && !(all & ENC_BIT(forced))))
        return ig_err(err, -EINVAL, "encoding %s is not available for this stream",
                      ig_enc_name(forced));
    if (depth < 1) return ig_err(err, -EINVAL, "cascade depth %d must be at least 1", depth);
    if (depth > IG_ENC_COUNT) depth = IG_ENC_COUNT; /* a chain cannot be longer anyway */
    c->strict = forced != IG_ENC_AUTO;
    c->allowed = c->strict ? ENC_BIT(forced) : (o && o->allowed ? o->allowed & all : all);
    c->depth_left = depth;
    c->no_drop = o && o->no_drop;
    c->census = o ? o->census : NULL;
    if (c->census) c->census->lanes = NULL; /* nothing taken yet */
    c->decimal_ok = o && o->decimal;
    c->alp_ok = o && o->alp;
    c->expo_ok = o && o->expo;
    c->huff_slots_ok = o && o->huff_slots;
    c->plain_lengths_ok = o && o->plain_lengths;
    c->item_ids = o ? o->item_ids : NULL;
    c->fsst = o ? o->fsst : NULL;
    return 0;
}

int ig_ints_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                   const struct ig_enc_opts *o, struct ig_buf *out, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    if (!v && n) return ig_err(err, -EINVAL, "int stream: no values");
    struct enc_ectx c;
    rc = setup_ectx(o, ENC_INT_ALL, &c, err);
    if (rc) return rc;
    size_t at = out->len;
    rc = enc_int_encode(v, n, d, &c, out);
    if (rc) out->len = at;
    return rc;
}

int ig_ints_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, uint64_t *out, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    struct enc_dctx c = {0, err};
    size_t used;
    return enc_int_decode(p, len, n, d, absent, out, &used, &c);
}

int ig_ints_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                const uint8_t *absent, size_t i, uint64_t *out, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    if (i >= n) return ig_err(err, -EINVAL, "int stream: position %zu out of %zu", i, n);
    struct enc_dctx c = {0, err};
    return enc_int_get(p, len, n, d, absent, i, out, &c);
}

/* Shared by the int and bytes erase entry points: copy back, zero the rest. */
static int erase_commit(uint8_t *p, size_t len, struct ig_buf *fresh, size_t *new_len,
                        struct ig_error *err)
{
    if (fresh->len > len)
        return ig_err(err, -ENOSPC, "%s stream: erasing would grow it from %zu to %zu bytes",
                      ig_enc_name((enum ig_enc)p[0]), len, fresh->len);
    memcpy(p, fresh->data, fresh->len);
    memset(p + fresh->len, 0, len - fresh->len);
    *new_len = fresh->len;
    return 0;
}

int ig_ints_erase(uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *kill, size_t *new_len, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    if (bm_intersects(absent, kill, n))
        return ig_err(err, -EINVAL, "erase: a killed position is already absent");
    *new_len = len;
    if (!bm_any(kill, n)) return 0;
    struct enc_dctx c = {0, err};
    struct ig_buf fresh = IG_BUF_INIT;
    rc = enc_int_erase(p, len, n, d, absent, kill, true, &c, &fresh);
    if (!rc) rc = erase_commit(p, len, &fresh, new_len, err);
    ig_buf_free(&fresh);
    return rc;
}

/* Encode, then let the chosen scheme mark the gone positions its own way (an
 * explicit marker for FOR/delta, a mask code for dict): a zero alone is not
 * every scheme's erased form. If the scheme cannot, fall back to schemes whose
 * erased form a zero is. */
int ig_ints_encode_erased(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                          const uint8_t *gone, struct ig_buf *out, struct ig_error *err)
{
    struct ig_enc_opts o = {.no_drop = true};
    size_t at = out->len, new_len = 0;
    int rc = ig_ints_encode(v, n, d, &o, out, err);
    if (!rc) rc = ig_ints_erase(out->data + at, out->len - at, n, d, NULL, gone, &new_len, err);
    if (!rc) {
        out->len = at + new_len;
        return 0;
    }
    if (rc != -ENOSPC) return rc;
    out->len = at;
    o.allowed = ENC_BIT(IG_ENC_PLAIN) | ENC_BIT(IG_ENC_BITPACK) | ENC_BIT(IG_ENC_VARINT);
    return ig_ints_encode(v, n, d, &o, out, err);
}

int ig_bytes_encode_erased(const uint64_t *offs, const uint8_t *data, size_t n, const uint8_t *gone,
                           struct ig_buf *out, struct ig_error *err)
{
    struct ig_enc_opts o = {.no_drop = true};
    size_t at = out->len, new_len = 0;
    int rc = ig_bytes_encode(offs, data, n, &o, out, err);
    if (!rc) rc = ig_bytes_erase(out->data + at, out->len - at, n, NULL, gone, &new_len, err);
    if (!rc) {
        out->len = at + new_len;
        return 0;
    }
    if (rc != -ENOSPC) return rc;
    out->len = at;
    o.allowed = ENC_BIT(IG_ENC_PLAIN);
    return ig_bytes_encode(offs, data, n, &o, out, err);
}

bool ig_ints_erase_drops(const uint8_t *p, size_t len)
{
    return enc_int_drops(p, len);
}

int ig_ints_check_erased(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                         const uint8_t *absent, const uint8_t *erased, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    struct enc_dctx c = {0, err};
    return enc_int_check(p, len, n, d, absent, erased, &c);
}


int ig_bytes_encode(const uint64_t *offs, const uint8_t *data, size_t n,
                    const struct ig_enc_opts *o, struct ig_buf *out, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    if (!offs) return ig_err(err, -EINVAL, "bytes stream: no offsets");
    for (size_t i = 0; i < n; i++)
        if (offs[i + 1] < offs[i])
            return ig_err(err, -EINVAL, "bytes stream: offset %zu decreases", i + 1);
    if (offs[n] != offs[0] && !data) return ig_err(err, -EINVAL, "bytes stream: no data");
    struct enc_ectx c;
    int rc = setup_ectx(o, ENC_BYTES_ALL, &c, err);
    if (rc) return rc;
    if (!data) {
        /* Every item is empty: encode zero offsets over a real (unread) byte so
         * no pointer arithmetic touches NULL. */
        static const uint8_t no_bytes[1];
        uint64_t *zero = calloc(n + 1, sizeof *zero);
        if (!zero) return enc_nomem(err);
        rc = ig_bytes_encode(zero, no_bytes, n, o, out, err);
        free(zero);
        return rc;
    }
    return enc_bytes_encode(offs, data, n, &c, out);
}

int ig_bytes_decode_cx(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                       const uint8_t *absent, uint64_t *offs_out, struct ig_buf *data_out,
                       struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    struct enc_dctx c = {0, err, cx ? cx->fsst : NULL, cx ? cx->vdict : NULL};
    size_t used;
    return enc_bytes_decode(p, len, n, absent, offs_out, data_out, &used, &c);
}

int ig_bytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    uint64_t *offs_out, struct ig_buf *data_out, struct ig_error *err)
{
    return ig_bytes_decode_cx(NULL, p, len, n, absent, offs_out, data_out, err);
}

int ig_bytes_get_cx(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                    const uint8_t *absent, size_t i, const uint8_t **val, size_t *vlen,
                    struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    if (i >= n) return ig_err(err, -EINVAL, "bytes stream: item %zu out of %zu", i, n);
    struct enc_dctx c = {0, err, cx ? cx->fsst : NULL, cx ? cx->vdict : NULL};
    return enc_bytes_get(p, len, n, absent, i, val, vlen, &c);
}

int ig_bytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                 const uint8_t **val, size_t *vlen, struct ig_error *err)
{
    return ig_bytes_get_cx(NULL, p, len, n, absent, i, val, vlen, err);
}

int ig_bytes_erase_cx(const struct ig_chunk_ctx *cx, uint8_t *p, size_t len, size_t n,
                      const uint8_t *absent, const uint8_t *kill, size_t *new_len,
                      struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    if (bm_intersects(absent, kill, n))
        return ig_err(err, -EINVAL, "erase: a killed position is already absent");
    *new_len = len;
    if (!bm_any(kill, n)) return 0;
    struct enc_dctx c = {0, err, cx ? cx->fsst : NULL, cx ? cx->vdict : NULL};
    struct ig_buf fresh = IG_BUF_INIT;
    int rc = enc_bytes_erase(p, len, n, absent, kill, true, &c, &fresh);
    if (!rc) rc = erase_commit(p, len, &fresh, new_len, err);
    ig_buf_free(&fresh);
    return rc;
}

int ig_bytes_erase(uint8_t *p, size_t len, size_t n, const uint8_t *absent, const uint8_t *kill,
                   size_t *new_len, struct ig_error *err)
{
    return ig_bytes_erase_cx(NULL, p, len, n, absent, kill, new_len, err);
}

size_t ig_bytes_huffman_size(const uint64_t *offs, const uint8_t *data, size_t n, bool slots)
{
    return enc_huff_bytes_size(offs, data, n, slots);
}

bool ig_bytes_erase_drops(const uint8_t *p, size_t len)
{
    return enc_int_drops(p, len);
}

int ig_bytes_check_erased_cx(const struct ig_chunk_ctx *cx, const uint8_t *p, size_t len, size_t n,
                             const uint8_t *absent, const uint8_t *erased, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    struct enc_dctx c = {0, err, cx ? cx->fsst : NULL, cx ? cx->vdict : NULL};
    return enc_bytes_check(p, len, n, absent, erased, &c);
}

int ig_bytes_check_erased(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                          const uint8_t *erased, struct ig_error *err)
{
    return ig_bytes_check_erased_cx(NULL, p, len, n, absent, erased, err);
}
