/* slide_streams.c - what every writer of a sliding-window page's bytes uses
 * (slide_int.h): the page's int streams (a u32 length, then a codec stream of
 * 8-byte unsigned lanes) and the bit-length code of its bulk. The encoder
 * (slide_encode.c), the dictionary bulk (slide_dict.c) and erasure
 * (slide_erase.c) write with them; each keeps its own layout. */
#include "format/page/slide_int.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pcode.h"

#include <errno.h>
#include <string.h>

const struct ig_int_desc ig_slide_meta_desc = {8, false};
static const struct ig_int_desc float32_bulk = {4, false};

const struct ig_int_desc *ig_slide_bulk_desc(uint8_t type)
{
    return type == IG_T_FLOAT32 ? &float32_bulk : &ig_slide_meta_desc; /* float64: 8-byte lanes too */
}

int ig_slide_put_stream(struct ig_buf *b, const uint64_t *v, size_t n, enum ig_enc forced,
                         bool erasable, struct ig_error *err)
{
    struct ig_enc_opts o = {.forced = forced, .no_drop = erasable};
    size_t at = b->len;
    if (ig_buf_append_u32(b, 0)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_ints_encode(v, n, &ig_slide_meta_desc, &o, b, err);
    if (!rc) ig_st32(b->data + at, (uint32_t)(b->len - at - 4));
    return rc;
}

bool ig_slide_length_code(const uint64_t *lens, size_t n, bool zero_for_erasure, struct ig_pcode *c)
{
    uint64_t freq[IG_PCODE_MAX_SYMS] = {0};
    for (size_t j = 0; j < n; j++)
        freq[lens[j]]++;
    if (zero_for_erasure && !freq[0]) freq[0] = 1; /* always present: erasure writes it */
    memset(c, 0, sizeof *c);
    /* too skewed for codes of IG_PCODE_MAX_LEN bits (a page of many values):
     * flatten the counts until it fits (all 1: 65 symbols take 7 bits) */
    while (ig_pcode_lengths(freq, IG_PCODE_MAX_SYMS, c->len) > IG_PCODE_MAX_LEN)
        for (unsigned L = 0; L < IG_PCODE_MAX_SYMS; L++)
            if (freq[L]) freq[L] = freq[L] / 2 | 1;
    unsigned bound = 255, swap = 0;
    for (unsigned L = 1; L < IG_PCODE_MAX_SYMS; L++)
        if (c->len[L] && c->len[L] + L - 1 < bound) bound = c->len[L] + L - 1;
    if (zero_for_erasure && c->len[0] > bound) { /* trade codes with the longest one that fits the bound */
        for (unsigned L = 1; L < IG_PCODE_MAX_SYMS; L++)
            if (c->len[L] && c->len[L] <= bound && (!swap || c->len[L] > c->len[swap])) swap = L;
        uint8_t t = c->len[0];
        c->len[0] = c->len[swap];
        c->len[swap] = t;
    }
    return ig_pcode_build(c, 0) == 0;
}
