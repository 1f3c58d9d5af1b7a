/* context.c - a column chunk's context: what every block of the chunk may
 * share, stored once in the chunk (format version 12; docs/FORMAT.md, "Chunk
 * contexts"), and which streams use it.
 *
 * Bytes: entries, each [kind: u8] [varint length] [payload], then zeros (a
 * kind byte 0 ends the entries; an erase that shrinks an entry leaves zeros
 * behind it). Kinds: 1 the chunk's FSST symbol table (fsst.c), 2 its zstd
 * dictionary (zdict.c, format 13), 3 its value dictionary (vdict.c, format
 * 14). A kind this
 * reader does not know is an error, as is a kind given twice: a context is
 * only ever read by those who must understand all of it. */
#include <string.h>

#include "enc_internal.h"

#define CTX_END  0
#define CTX_FSST 1
#define CTX_ZDICT 2
#define CTX_VDICT 3

void ig_chunk_ctx_free(struct ig_chunk_ctx *cx)
{
    ig_fsst_free(cx->fsst);
    cx->fsst = NULL;
    ig_zdict_free(cx->zdict);
    cx->zdict = NULL;
    ig_zdict_free(cx->zdict_next);
    cx->zdict_next = NULL;
    cx->zdict_grain = false;
    ig_vdict_free(cx->vdict);
    cx->vdict = NULL;
}

bool ig_chunk_ctx_empty(const struct ig_chunk_ctx *cx)
{
    return !cx || (!cx->fsst && !cx->zdict && !cx->vdict);
}

int ig_chunk_ctx_parse(const uint8_t *p, size_t len, struct ig_chunk_ctx *cx, struct ig_error *err)
{
    memset(cx, 0, sizeof *cx);
    size_t pos = 0;
    int rc = 0;
    while (!rc && pos < len && p[pos] != CTX_END) {
        unsigned kind = p[pos++];
        uint64_t l;
        size_t u = ig_varint_get(p + pos, len - pos, &l);
        if (!u || l > len - pos - u) {
            rc = ig_err(err, -EIO, "chunk context: entry of kind %u past the end", kind);
            break;
        }
        pos += u;
        if (kind == CTX_VDICT) {
            if (cx->vdict)
                rc = ig_err(err, -EIO, "chunk context: two value dictionaries");
            else
                rc = ig_vdict_parse(p + pos, (size_t)l, &cx->vdict, err);
        } else if (kind == CTX_ZDICT) {
            if (cx->zdict)
                rc = ig_err(err, -EIO, "chunk context: two zstd dictionaries");
            else
                rc = ig_zdict_parse(p + pos, (size_t)l, &cx->zdict, err);
        } else if (kind != CTX_FSST) {
            rc = ig_err(err, -EIO, "chunk context: unknown entry kind %u", kind);
        } else if (cx->fsst) {
            rc = ig_err(err, -EIO, "chunk context: two symbol tables");
        } else {
            size_t used = 0;
            rc = ig_fsst_parse(p + pos, (size_t)l, &cx->fsst, &used, err);
            if (!rc && used != l)
                rc = ig_err(err, -EIO, "chunk context: %llu bytes after the symbol table",
                            (unsigned long long)(l - used));
        }
        pos += (size_t)l;
    }
    for (size_t i = pos; !rc && i < len; i++)
        if (p[i])
            rc = ig_err(err, -EIO, "chunk context: byte %zu after its entries is not zero", i);
    if (rc) ig_chunk_ctx_free(cx);
    return rc;
}

int ig_chunk_ctx_write(const struct ig_chunk_ctx *cx, struct ig_buf *out)
{
    if (cx->fsst) {
        size_t l = ig_fsst_size(cx->fsst);
        uint8_t *h = ig_buf_extend(out, 1 + ig_varint_size(l));
        if (!h) return -ENOMEM;
        h[0] = CTX_FSST;
        ig_varint_put(h + 1, l);
        int rc = ig_fsst_write(cx->fsst, out);
        if (rc) return rc;
    }
    if (cx->zdict) {
        /* an erase writes the dictionary its blocks now use */
        const struct ig_zdict *z = cx->zdict_next ? cx->zdict_next : cx->zdict;
        size_t l = ig_zdict_size(z);
        uint8_t *h = ig_buf_extend(out, 1 + ig_varint_size(l));
        if (!h) return -ENOMEM;
        h[0] = CTX_ZDICT;
        ig_varint_put(h + 1, l);
        int rc = ig_zdict_write(z, out);
        if (rc) return rc;
    }
    if (cx->vdict) {
        size_t l = ig_vdict_size(cx->vdict);
        if (l == SIZE_MAX) return -ENOMEM;
        uint8_t *h = ig_buf_extend(out, 1 + ig_varint_size(l));
        if (!h) return -ENOMEM;
        h[0] = CTX_VDICT;
        ig_varint_put(h + 1, l);
        return ig_vdict_write(cx->vdict, out);
    }
    return 0;
}

int ig_bytes_symbol_uses(const uint8_t *p, size_t len, size_t n, const struct ig_chunk_ctx *cx,
                         uint64_t *counts, struct ig_error *err)
{
    if (!cx || !cx->fsst || len < 1) return 0;
    if (p[0] == IG_ENC_FSST) return enc_fsst_uses(p, len, n, cx->fsst, counts, err);
    if (p[0] != IG_ENC_DICT) return 0;
    /* a dictionary whose entries are coded against the table */
    size_t pos = 1, sl;
    uint64_t k;
    const uint8_t *sub;
    int rc = enc_field(p, len, &pos, &k, "dict", "entry count", err);
    if (!rc) rc = enc_sub(p, len, &pos, &sub, &sl, "dict", "dictionary", err);
    if (rc) return rc;
    if (k > n)
        return ig_err(err, -EIO, "dict stream: %llu entries for %zu items", (unsigned long long)k,
                      n);
    return sl && sub[0] == IG_ENC_FSST ? enc_fsst_uses(sub, sl, (size_t)k, cx->fsst, counts, err)
                                       : 0;
}
