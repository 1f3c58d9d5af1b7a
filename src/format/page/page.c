/* page.c - what encoding, decoding and erasing a page share: the scratch
 * and result buffers' lifetimes, how a type's lanes read as integers, and
 * zstd both ways (this thread's compression context, sealing a body under
 * the column's policy with its checksum, recompressing an erased body to fit
 * its extent, decompressing a stored block). The page's bytes themselves are
 * laid out in page_encode.c, read in page_decode.c, erased in page_erase.c;
 * a page cut into blocks is page_blocks.c. */
#include "format/page/page.h"
#include "page_int.h"
#include "format/page/pagerec.h"
#include "format/page/slide.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/error.h"
#include "util/hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

void ig_page_scratch_free(struct ig_page_scratch *s)
{
    ig_buf_free(&s->body);
    ig_buf_free(&s->text);
    ig_buf_free(&s->tmp);
    ig_buf_free(&s->alt);
    ig_buf_free(&s->level_lanes);
    free(s->offs);
    ZSTD_freeDCtx(s->zstd_dctx);
    ig_zdict_window_free(&s->zwin);
    ig_census_free(&s->census);
    ig_slide_scratch_free(s->slide);
    ig_values_free(&s->slide_rows);
    memset(s, 0, sizeof *s);
}

void ig_page_built_free(struct ig_page_built *b)
{
    ig_buf_free(&b->stored);
    free(b->blocks);
    memset(b, 0, sizeof *b);
}

int ig_page_scratch_offs(struct ig_page_scratch *s, size_t n)
{
    if (n + 1 <= s->offs_cap) return 0;
    size_t cap = s->offs_cap ? s->offs_cap : 1024;
    while (cap < n + 1)
        cap *= 2;
    uint64_t *o = realloc(s->offs, cap * sizeof *o);
    if (!o) return -ENOMEM;
    s->offs = o;
    s->offs_cap = cap;
    return 0;
}

struct ig_int_desc ig_page_lane_desc(uint8_t type)
{
    const struct ig_type_info *ti = ig_type_info(type);
    return (struct ig_int_desc){.width = ti->width, .is_signed = ti->is_signed};
}

/* This thread's zstd compression context, made at its first use and reused
 * for every block after: a context per call (ZSTD_compress) costs more than
 * compressing a 4 KiB block. Freed when the thread ends. */
static pthread_key_t cctx_key;
static pthread_once_t cctx_once = PTHREAD_ONCE_INIT;
static void cctx_free(void *c) { ZSTD_freeCCtx(c); }
static void cctx_key_make(void) { (void)pthread_key_create(&cctx_key, cctx_free); }

static ZSTD_CCtx *thread_cctx(void)
{
    pthread_once(&cctx_once, cctx_key_make);
    ZSTD_CCtx *c = pthread_getspecific(cctx_key);
    if (!c && (c = ZSTD_createCCtx()) && pthread_setspecific(cctx_key, c)) {
        ZSTD_freeCCtx(c);
        c = NULL;
    }
    return c;
}

/* ZSTD_compress's output (same parameters, same bytes) through that context. */
size_t ig_page_compress(void *dst, size_t cap, const void *src, size_t n, int level)
{
    ZSTD_CCtx *c = thread_cctx();
    return c ? ZSTD_compressCCtx(c, dst, cap, src, n, level) : ZSTD_compress(dst, cap, src, n, level);
}

size_t ig_page_compress_dict(struct ig_zdict *d, void *dst, size_t cap, const void *src, size_t n,
                             int level)
{
    ZSTD_CCtx *c = thread_cctx();
    if (!c) return (size_t)-(int)ZSTD_error_memory_allocation;
    return ig_zdict_compress(c, d, dst, cap, src, n, level);
}

/* The body compressed at level (against d when given) in place of out's
 * stored frame when that is smaller; *took says whether it was. */
static int take_if_smaller(struct ig_zdict *d, const struct ig_buf *body, int level,
                           struct ig_page_built *out, bool *took, struct ig_error *err)
{
    *took = false;
    size_t bound = ZSTD_compressBound(body->len);
    struct ig_buf z = IG_BUF_INIT;
    if (ig_buf_reserve(&z, bound)) return ig_err(err, -ENOMEM, "out of memory");
    size_t n = d ? ig_page_compress_dict(d, z.data, bound, body->data, body->len, level)
                 : ig_page_compress(z.data, bound, body->data, body->len, level);
    *took = !ZSTD_isError(n) && n < out->stored.len;
    if (*took) {
        z.len = n;
        ig_buf_free(&out->stored);
        out->stored = z;
    } else {
        ig_buf_free(&z);
    }
    return 0;
}

/* Compress (per policy), checksum. */
int ig_page_seal(const struct ig_page_policy *pol, struct ig_buf *body, struct ig_page_built *out,
                struct ig_error *err)
{
    if (body->len > IG_MAX_PAGE_BODY)
        return ig_err(err, -EFBIG, "page body of %zu bytes exceeds the 1 GiB limit", body->len);
    out->body_size = (uint32_t)body->len;
    /* zstd when forced, or when it saves at least an eighth of the page. */
    bool try_zstd = pol->compression == IG_COMP_ZSTD ||
                    (pol->compression == IG_COMP_AUTO && body->len >= IG_ZSTD_MIN_BODY);
    out->compression = IG_PC_NONE;
    ig_buf_reset(&out->stored);
    if (try_zstd) {
        size_t bound = ZSTD_compressBound(body->len);
        if (ig_buf_reserve(&out->stored, bound)) return ig_err(err, -ENOMEM, "out of memory");
        /* against the chunk's dictionary first, and without it only where that
         * frame is no use: the frame with it was the smaller in every block
         * of the chunks that keep one (14,000 of 14,000 on captions of words
         * and the package index), and making both was a fifth of importing
         * those captions */
        size_t z = pol->zdict ? ig_page_compress_dict(pol->zdict, out->stored.data, bound, body->data,
                                                      body->len, ig_zdict_level(pol->zstd_level))
                              : 0;
        bool dict = pol->zdict && !ZSTD_isError(z) && z <= body->len - body->len / 8;
        if (!dict)
            z = ig_page_compress(out->stored.data, bound, body->data, body->len,
                                 pol->zstd_level ? pol->zstd_level : 3);
        if (ZSTD_isError(z)) return ig_err(err, -EIO, "zstd: %s", ZSTD_getErrorName(z));
        out->stored.len = z;
        out->compression = dict ? IG_PC_ZSTD_DICT : IG_PC_ZSTD;
        if (pol->compression != IG_COMP_ZSTD && out->stored.len > body->len - body->len / 8) {
            out->stored.len = 0;
            out->compression = IG_PC_NONE;
        }
    }
    if (out->compression == IG_PC_NONE && ig_buf_append(&out->stored, body->data, body->len))
        return ig_err(err, -ENOMEM, "out of memory");
    out->checksum = ig_hash(out->stored.data, out->stored.len);
    return 0;
}

/* An erased page's zstd frame can come out a few bytes longer than the one it
 * replaces (the input changed, not grew); harder levels nearly always win them
 * back, which keeps the page in its extent instead of moving it. */
int ig_page_recompress_to_fit(const struct ig_buf *body, size_t capacity, struct ig_page_built *out,
                             struct ig_error *err)
{
    return ig_page_recompress_to_fit_dict(body, capacity, NULL, 0, out, err);
}

int ig_page_recompress_to_fit_dict(const struct ig_buf *body, size_t capacity, struct ig_zdict *d,
                                   int first, struct ig_page_built *out, struct ig_error *err)
{
    const int levels[] = {first, 9}; /* 19 costs ten times as much for little more */
    for (size_t i = 0; i < sizeof levels / sizeof levels[0] && out->stored.len > capacity; i++) {
        if (!levels[i] || (i && levels[i] == levels[i - 1])) continue; /* none, or tried */
        bool took;
        int rc = take_if_smaller(out->compression == IG_PC_ZSTD_DICT ? d : NULL, body, levels[i], out,
                                 &took, err);
        if (rc) return rc;
        if (took) out->checksum = ig_hash(out->stored.data, out->stored.len);
    }
    return 0;
}

int ig_page_body(const uint8_t *stored, const struct ig_pagerec *rec, struct ig_page_scratch *s,
                 const uint8_t **body, struct ig_error *err)
{
    s->last_body = NULL;
    if (rec->compression == IG_PC_NONE) {
        *body = s->last_body = stored;
        return 0;
    }
    ig_buf_reset(&s->body);
    if (ig_buf_reserve(&s->body, rec->body_size)) return ig_err(err, -ENOMEM, "out of memory");
    if (!s->zstd_dctx && !(s->zstd_dctx = ZSTD_createDCtx())) return ig_err(err, -ENOMEM, "out of memory");
    size_t z;
    const uint8_t *at = s->body.data;
    if (rec->compression == IG_PC_ZSTD_DICT) {
        if (!rec->cx || !rec->cx->zdict)
            return ig_err(err, -EIO, "compressed with its chunk's zstd dictionary, which the chunk lacks");
        z = ig_zdict_decompress_window(s->zstd_dctx, rec->cx->zdict, &s->zwin, s->body.data,
                                       rec->body_size, stored, rec->stored, &at);
    } else if (rec->compression == IG_PC_ZSTD) {
        z = ZSTD_decompressDCtx(s->zstd_dctx, s->body.data, rec->body_size, stored, rec->stored);
    } else {
        return ig_err(err, -EIO, "unknown compression %u", rec->compression);
    }
    if (ZSTD_isError(z) || z != rec->body_size)
        return ig_err(err, -EIO, "zstd: %s",
                      ZSTD_isError(z) ? ZSTD_getErrorName(z) : "decompressed size mismatch");
    if (at == s->body.data) s->body.len = z;
    *body = s->last_body = at;
    return 0;
}
