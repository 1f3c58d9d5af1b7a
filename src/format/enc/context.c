/* context.c - a column chunk's context: what every block of the chunk may
 * share, stored once in the chunk (format version 12; docs/FORMAT.md, "Chunk
 * contexts"), and which streams use it.
 *
 * Bytes: entries, each [kind: u8] [varint length] [payload], then zeros (a
 * kind byte 0 ends the entries; an erase that shrinks an entry leaves zeros
 * behind it). Kinds: 1 the chunk's FSST symbol table (fsst.c), 2 its zstd
 * dictionary (zdict.c, format 13), 3 its value dictionary (vdict.c, format
 * 14); 4 (format 22) the entries themselves as one zstd frame, the only
 * entry where it stands (ig_chunk_ctx_pack). A kind this
 * reader does not know is an error, as is a kind given twice: a context is
 * only ever read by those who must understand all of it. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "enc_internal.h"
#include "format/layout.h"

#define CTX_END  0
#define CTX_FSST 1
#define CTX_ZDICT 2
#define CTX_VDICT 3
#define CTX_ZSTD  4

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
    cx->bytes = 0;
}

bool ig_chunk_ctx_empty(const struct ig_chunk_ctx *cx)
{
    return !cx || (!cx->fsst && !cx->zdict && !cx->vdict);
}

static int parse_entries(const uint8_t *p, size_t len, bool packed_allowed, size_t *end,
                         struct ig_chunk_ctx *cx, struct ig_error *err);

/* Entries packed as one zstd frame (kind 4) at p[0, len), unpacked and parsed
 * into cx: the frame must say how many bytes it holds, at most a context's
 * largest, and hold exactly those. */
static int parse_packed(const uint8_t *p, size_t len, struct ig_chunk_ctx *cx, struct ig_error *err)
{
    unsigned long long n = ZSTD_getFrameContentSize(p, len);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n == 0 ||
        n > IG_MAX_CTX_SIZE)
        return ig_err(err, -EIO, "chunk context: its zstd frame does not say a size up to %u bytes",
                      IG_MAX_CTX_SIZE);
    if (ZSTD_findFrameCompressedSize(p, len) != len)
        return ig_err(err, -EIO, "chunk context: its zstd frame does not end its entry");
    uint8_t *plain = malloc((size_t)n);
    if (!plain) return ig_err(err, -ENOMEM, "out of memory");
    size_t got = ZSTD_decompress(plain, (size_t)n, p, len), end = 0;
    int rc = ZSTD_isError(got) || got != n
                 ? ig_err(err, -EIO, "chunk context: its zstd frame: %s",
                          ZSTD_isError(got) ? ZSTD_getErrorName(got) : "fewer bytes than it says")
                 : parse_entries(plain, (size_t)n, false, &end, cx, err);
    /* the frame holds entries only: no zeros after them */
    if (!rc && end != n) {
        ig_chunk_ctx_free(cx);
        rc = ig_err(err, -EIO, "chunk context: its zstd frame holds zeros after its entries");
    }
    free(plain);
    return rc;
}

int ig_chunk_ctx_parse(const uint8_t *p, size_t len, unsigned version, struct ig_chunk_ctx *cx,
                       struct ig_error *err)
{
    size_t end;
    return parse_entries(p, len, version >= IG_FORMAT_CTX_ZSTD, &end, cx, err);
}

/* The entries at p[0, len) into cx, then zeros to len; *end: where the
 * entries end. */
static int parse_entries(const uint8_t *p, size_t len, bool packed_allowed, size_t *end,
                         struct ig_chunk_ctx *cx, struct ig_error *err)
{
    memset(cx, 0, sizeof *cx);
    size_t pos = 0;
    int rc = 0;
    bool packed = false;
    while (!rc && pos < len && p[pos] != CTX_END) {
        if (packed) {
            rc = ig_err(err, -EIO, "chunk context: an entry after the packed ones");
            break;
        }
        unsigned kind = p[pos++];
        uint64_t l;
        size_t u = ig_varint_get(p + pos, len - pos, &l);
        if (!u || l > len - pos - u) {
            rc = ig_err(err, -EIO, "chunk context: entry of kind %u past the end", kind);
            break;
        }
        pos += u;
        if (kind == CTX_ZSTD) {
            packed = true;
            if (!packed_allowed || pos != 1 + u)
                rc = ig_err(err, -EIO, "chunk context: packed entries %s",
                            packed_allowed ? "after another entry" : "where its version has none");
            else
                rc = parse_packed(p + pos, (size_t)l, cx, err);
        } else if (kind == CTX_VDICT) {
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
    *end = pos;
    if (!packed) cx->bytes = pos;
    for (size_t i = pos; !rc && i < len; i++)
        if (p[i])
            rc = ig_err(err, -EIO, "chunk context: byte %zu after its entries is not zero", i);
    if (rc) ig_chunk_ctx_free(cx);
    return rc;
}

int ig_chunk_ctx_pack(struct ig_buf *b, size_t from, int level, bool with_room)
{
    size_t plain = b->len - from;
    if (!plain) return 0;
    size_t cap = ZSTD_compressBound(plain);
    uint8_t *z = malloc(cap);
    if (!z) return -ENOMEM;
    /* zstd's simple call: the frame says its size (parse_packed checks it)
     * and carries no checksum (the chunk record's hash covers the context);
     * within its bound, only memory fails */
    size_t n = ZSTD_compress(z, cap, b->data + from, plain, level);
    int rc = ZSTD_isError(n) ? -ENOMEM : 0;
    size_t head = 1 + ig_varint_size(n), room = !rc && with_room ? ig_chunk_ctx_room(n) : 0;
    if (!rc && head + n + room < plain) {
        b->data[from] = CTX_ZSTD;
        ig_varint_put(b->data + from + 1, n);
        memcpy(b->data + from + head, z, n);
        memset(b->data + from + head + n, 0, room);
        b->len = from + head + n + room;
    }
    free(z);
    return rc;
}

size_t ig_chunk_ctx_room(size_t packed)
{
    return packed / 64 > 16 ? packed / 64 : 16;
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
