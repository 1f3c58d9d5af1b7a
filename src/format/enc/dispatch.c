/* dispatch.c - the scheme tables and the way into a nested stream: a
 * stream's first byte names its scheme (and the names below name them to
 * people), and every decode, get, erase and check of a stream inside another
 * goes through the dispatchers here, which refuse a scheme already on the
 * chain above (BtrBlocks' rule: never the same scheme twice in one cascade;
 * it also bounds recursion on hostile input). Choosing a scheme is
 * select.c's; the schemes themselves are a file each. */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "format/layout.h"

/* a page record's encoding byte names these schemes (or slide) */
_Static_assert(IG_PAGE_ENC_COUNT == IG_ENC_COUNT, "layout.h counts the schemes enum ig_enc has");

static const char *const enc_names[IG_ENC_COUNT] = {
    "auto", "plain", "bitpack", "varint", "rle",   "dict",
    "for",  "delta", NULL /* slide */, "split", "huffman", "decimal", "fsst", "alp", "vdict", "expo"};

const char *ig_enc_name(enum ig_enc e)
{
    return (unsigned)e < IG_ENC_COUNT && enc_names[e] ? enc_names[e] : "?";
}

int ig_enc_from_name(const char *name)
{
    for (int e = 0; name && e < IG_ENC_COUNT; e++)
        if (enc_names[e] && strcmp(name, enc_names[e]) == 0) return e;
    return -1;
}

const char *ig_page_enc_name(unsigned e)
{
    return e == IG_PAGE_ENC_SLIDE ? "slide" : ig_enc_name((enum ig_enc)e);
}

int ig_page_enc_from_name(const char *name)
{
    return name && strcmp(name, "slide") == 0 ? IG_PAGE_ENC_SLIDE : ig_enc_from_name(name);
}

int ig_stream_scheme(const uint8_t *p, size_t len)
{
    if (!p || len < 1 || p[0] == IG_ENC_AUTO || p[0] >= IG_ENC_COUNT || !enc_names[p[0]]) return -1;
    return p[0];
}

const struct int_scheme *const enc_int_schemes[IG_ENC_COUNT] = {
    NULL,         &enc_plain_int, &enc_bitpack_int, &enc_varint_int,
    &enc_rle_int, &enc_dict_int,  &enc_for_int,     &enc_delta_int,
    NULL /* slide: a page-level scheme */, &enc_split_int, NULL /* huffman: bytes only */,
    &enc_decimal_int, NULL /* fsst: bytes only */, &enc_alp_int, NULL /* vdict: bytes only */,
    &enc_expo_int,
};

const struct bytes_scheme *enc_bytes_scheme(unsigned id)
{
    return id == IG_ENC_PLAIN  ? &enc_plain_bytes
           : id == IG_ENC_DICT ? &enc_dict_bytes
           : id == IG_ENC_HUFF ? &enc_huff_bytes
           : id == IG_ENC_FSST ? &enc_fsst_bytes
           : id == IG_ENC_VDICT ? &enc_vdict_bytes
                               : NULL;
}

/* Find the scheme of a nested stream and push it on the chain. */
static const struct int_scheme *int_enter(const uint8_t *p, size_t len, struct enc_dctx *c,
                                          unsigned *saved, int *rc)
{
    const struct int_scheme *s = len ? enc_int_scheme(p[0]) : NULL;
    if (!len) {
        *rc = ig_err(c->err, -EIO, "empty int stream");
    } else if (!s) {
        *rc = ig_err(c->err, -EIO, "unknown int stream scheme %u", p[0]);
    } else if (c->used & ENC_BIT(s->id)) {
        *rc = ig_err(c->err, -EIO, "%s stream nested inside itself", s->name);
        s = NULL;
    }
    *saved = c->used;
    if (s) c->used |= ENC_BIT(s->id);
    return s;
}

static const struct bytes_scheme *bytes_enter(const uint8_t *p, size_t len, struct enc_dctx *c,
                                              unsigned *saved, int *rc)
{
    const struct bytes_scheme *s = len ? enc_bytes_scheme(p[0]) : NULL;
    if (!len) {
        *rc = ig_err(c->err, -EIO, "empty bytes stream");
    } else if (!s) {
        *rc = ig_err(c->err, -EIO, "unknown bytes stream scheme %u", p[0]);
    } else if (c->used & ENC_BIT(s->id)) {
        *rc = ig_err(c->err, -EIO, "%s stream nested inside itself", s->name);
        s = NULL;
    }
    *saved = c->used;
    if (s) c->used |= ENC_BIT(s->id);
    return s;
}

int enc_int_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->decode(p, len, n, d, absent, out, used, c);
    c->used = saved;
    return rc;
}

int enc_int_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->get(p, len, n, d, absent, i, out, c);
    c->used = saved;
    return rc;
}

int enc_int_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                  struct ig_buf *out)
{
    unsigned saved;
    int rc = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->erase(p, len, n, d, absent, kill, may_drop, c, out);
    c->used = saved;
    return rc;
}

int enc_int_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *erased, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    size_t used = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->check(p, len, n, d, absent, erased, &used, c);
    if (s && !rc) rc = enc_check_slack(p, used, len, s->name, c->err);
    c->used = saved;
    return rc;
}

int enc_bytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                     uint64_t *offs_out, struct ig_buf *data_out, size_t *used, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->decode(p, len, n, absent, offs_out, data_out, used, c);
    c->used = saved;
    return rc;
}

int enc_bytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                  const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->get(p, len, n, absent, i, val, vlen, c);
    c->used = saved;
    return rc;
}

int enc_bytes_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    unsigned saved;
    int rc = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->erase(p, len, n, absent, kill, may_drop, c, out);
    c->used = saved;
    return rc;
}

int enc_bytes_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    const uint8_t *erased, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    size_t used = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->check(p, len, n, absent, erased, &used, c);
    if (s && !rc) rc = enc_check_slack(p, used, len, s->name, c->err);
    c->used = saved;
    return rc;
}

/* rle at the top, or a dict whose codes are rle: erasing drops elements. */
static bool stream_drops(const uint8_t *p, size_t len)
{
    unsigned used = 0;
    while (len >= 1 && p[0] < IG_ENC_COUNT && !(used & ENC_BIT(p[0]))) {
        used |= ENC_BIT(p[0]);
        if (p[0] == IG_ENC_RLE) return true;
        if (p[0] != IG_ENC_DICT) return false;
        size_t pos = 1, l;
        uint64_t k;
        const uint8_t *sub;
        if (enc_field(p, len, &pos, &k, "dict", "entry count", NULL) ||
            enc_sub(p, len, &pos, &sub, &l, "dict", "dictionary", NULL) ||
            enc_sub(p, len, &pos, &sub, &l, "dict", "codes", NULL))
            return false;
        p = sub;
        len = l;
    }
    return false;
}

bool enc_int_drops(const uint8_t *p, size_t len)
{
    return stream_drops(p, len);
}
