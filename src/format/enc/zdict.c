/* zdict.c - a chunk's zstd dictionary (format 13; context kind 2): raw
 * content that the chunk's blocks may be compressed against, made of
 * segments, each a substring of a value of the chunk, so that an erase can
 * tell which bytes only erased values held and zero them
 * (docs/ENCODINGS.md, "Chunk dictionaries").
 *
 * Payload bytes: [segment count: varint] [each segment's length: u8, 1..64]
 * [content: the segments back to back]. A zeroed segment keeps its length
 * (the bytes after it keep their offsets, so blocks that never referred to
 * it decode as before); its bytes are zeros.
 *
 * Training is a cover of frequent 4-byte substrings: every sampled value is
 * cut into pieces of up to 64 bytes, each scored by how often the 4-byte
 * windows inside it occur over the sample; the best piece is taken, the
 * windows it holds stop counting (one copy in the dictionary is enough), and
 * so on until the dictionary is full or no piece holds a repeated window. The
 * most useful pieces go last: zstd codes near offsets in fewer bits. */
#define ZSTD_STATIC_LINKING_ONLY
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "enc_internal.h"
#include "util/varint.h"

struct ig_zdict {
    uint32_t nseg;
    uint8_t *seg_len;   /* nseg lengths */
    uint8_t *content;   /* the segments back to back */
    size_t len;         /* content bytes */
    ZSTD_DDict *ddict;  /* made with the dictionary, by reference */
    pthread_mutex_t mu; /* guards the compression dictionaries made on demand */
    ZSTD_CDict *cdict[2]; /* at two levels: an erase's, and the harder one it retries at */
    int cdict_level[2];
    /* unique to this dictionary and this state of its content (a zeroing
     * takes a new one): what a decompression window holds a copy of */
    _Atomic uint64_t serial;
};

static _Atomic uint64_t zd_serials = 1;

static struct ig_zdict *zd_new(uint32_t nseg, size_t len)
{
    struct ig_zdict *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->seg_len = malloc(nseg ? nseg : 1);
    d->content = malloc(len ? len : 1);
    if (!d->seg_len || !d->content) {
        free(d->seg_len);
        free(d->content);
        free(d);
        return NULL;
    }
    d->nseg = nseg;
    d->len = len;
    atomic_init(&d->serial, atomic_fetch_add(&zd_serials, 1));
    pthread_mutex_init(&d->mu, NULL);
    return d;
}

static int zd_ready(struct ig_zdict *d)
{
    d->ddict = ZSTD_createDDict_advanced(d->content, d->len, ZSTD_dlm_byRef, ZSTD_dct_rawContent,
                                         ZSTD_defaultCMem);
    return d->ddict ? 0 : -ENOMEM;
}

void ig_zdict_free(struct ig_zdict *d)
{
    if (!d) return;
    ZSTD_freeDDict(d->ddict);
    ZSTD_freeCDict(d->cdict[0]);
    ZSTD_freeCDict(d->cdict[1]);
    pthread_mutex_destroy(&d->mu);
    free(d->seg_len);
    free(d->content);
    free(d);
}

size_t ig_zdict_content_len(const struct ig_zdict *d) { return d ? d->len : 0; }
const uint8_t *ig_zdict_content(const struct ig_zdict *d) { return d->content; }
uint32_t ig_zdict_nsegments(const struct ig_zdict *d) { return d->nseg; }
unsigned ig_zdict_segment_len(const struct ig_zdict *d, uint32_t i) { return d->seg_len[i]; }

struct ig_zdict *ig_zdict_copy(const struct ig_zdict *d)
{
    struct ig_zdict *c = zd_new(d->nseg, d->len);
    if (!c) return NULL;
    memcpy(c->seg_len, d->seg_len, d->nseg);
    memcpy(c->content, d->content, d->len);
    if (zd_ready(c)) {
        ig_zdict_free(c);
        return NULL;
    }
    return c;
}

bool ig_zdict_segment_zero(const struct ig_zdict *d, uint32_t i, size_t off)
{
    for (unsigned k = 0; k < d->seg_len[i]; k++)
        if (d->content[off + k]) return false;
    return true;
}

void ig_zdict_zero_segment(struct ig_zdict *d, size_t off, unsigned len)
{
    /* the content is referenced by the decompression dictionary: zeroed in
     * place, it is the new dictionary (no compression one is kept past it) */
    memset(d->content + off, 0, len);
    atomic_store(&d->serial, atomic_fetch_add(&zd_serials, 1));
    pthread_mutex_lock(&d->mu);
    for (int i = 0; i < 2; i++) {
        ZSTD_freeCDict(d->cdict[i]);
        d->cdict[i] = NULL;
    }
    pthread_mutex_unlock(&d->mu);
}

size_t ig_zdict_size(const struct ig_zdict *d)
{
    return ig_varint_size(d->nseg) + d->nseg + d->len;
}

int ig_zdict_write(const struct ig_zdict *d, struct ig_buf *out)
{
    uint8_t *p = ig_buf_extend(out, ig_zdict_size(d));
    if (!p) return -ENOMEM;
    p += ig_varint_put(p, d->nseg);
    memcpy(p, d->seg_len, d->nseg);
    memcpy(p + d->nseg, d->content, d->len);
    return 0;
}

int ig_zdict_parse(const uint8_t *p, size_t len, struct ig_zdict **out, struct ig_error *err)
{
    *out = NULL;
    uint64_t nseg;
    size_t u = ig_varint_get(p, len, &nseg);
    if (!u || nseg == 0 || nseg > len - u)
        return ig_err(err, -EIO, "zstd dictionary: bad segment count");
    size_t total = 0;
    for (size_t i = 0; i < nseg; i++) {
        uint8_t l = p[u + i];
        if (l == 0 || l > IG_ZDICT_SEG_MAX)
            return ig_err(err, -EIO, "zstd dictionary: segment %zu of length %u", i, l);
        total += l;
    }
    if (total != len - u - nseg)
        return ig_err(err, -EIO, "zstd dictionary: segments of %zu bytes in %zu", total,
                      len - u - (size_t)nseg);
    struct ig_zdict *d = zd_new((uint32_t)nseg, total);
    if (!d) return ig_err(err, -ENOMEM, "out of memory");
    memcpy(d->seg_len, p + u, nseg);
    memcpy(d->content, p + u + nseg, total);
    if (zd_ready(d)) {
        ig_zdict_free(d);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    *out = d;
    return 0;
}

/* The compression dictionary at `level`, made at first use (shared by the
 * threads that compress against it: a ZSTD_CDict is read-only once made). */
static const ZSTD_CDict *zd_cdict(struct ig_zdict *d, int level)
{
    pthread_mutex_lock(&d->mu);
    int k = d->cdict[0] && d->cdict_level[0] == level ? 0 : d->cdict[1] && d->cdict_level[1] == level ? 1 : -1;
    if (k < 0) { /* slot 0 keeps the first level made; slot 1 takes any other */
        k = d->cdict[0] ? 1 : 0;
        ZSTD_freeCDict(d->cdict[k]);
        ZSTD_compressionParameters cp = ZSTD_getCParams(level, 4096, d->len);
        d->cdict[k] = ZSTD_createCDict_advanced(d->content, d->len, ZSTD_dlm_byRef,
                                                ZSTD_dct_rawContent, cp, ZSTD_defaultCMem);
        d->cdict_level[k] = level;
    }
    const ZSTD_CDict *c = d->cdict[k];
    pthread_mutex_unlock(&d->mu);
    return c;
}

size_t ig_zdict_compress(void *cctx, struct ig_zdict *d, void *dst, size_t cap, const void *src,
                         size_t n, int level)
{
    const ZSTD_CDict *cd = zd_cdict(d, level);
    if (!cd) return (size_t)-(int)ZSTD_error_memory_allocation;
    ZSTD_CCtx *c = cctx;
    size_t r = ZSTD_CCtx_refCDict(c, cd);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0);
    /* a 4 KiB block reads the dictionary's tables in place: copying them
     * would cost more than compressing it */
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(c, ZSTD_c_forceAttachDict, ZSTD_dictForceAttach);
    if (!ZSTD_isError(r)) r = ZSTD_compress2(c, dst, cap, src, n);
    /* the context is the thread's, shared with plain compression: no
     * dictionary sticks to it */
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    return r;
}

size_t ig_zdict_decompress(void *dctx, const struct ig_zdict *d, void *dst, size_t cap,
                           const void *src, size_t n)
{
    return ZSTD_decompress_usingDDict(dctx, dst, cap, src, n, d->ddict);
}

void ig_zdict_window_free(struct ig_zdict_window *w)
{
    ZSTD_freeDDict(w->ddict);
    ig_buf_free(&w->buf);
    memset(w, 0, sizeof *w);
}

/* Make the window hold d's content with room for cap bytes after it; false
 * when memory runs out (the caller decompresses without it). */
static bool window_fill(struct ig_zdict_window *w, const struct ig_zdict *d, uint64_t serial,
                        size_t cap)
{
    ZSTD_freeDDict(w->ddict);
    w->ddict = NULL;
    w->held = 0;
    ig_buf_reset(&w->buf);
    if (ig_buf_reserve(&w->buf, d->len + cap)) return false;
    memcpy(w->buf.data, d->content, d->len);
    w->ddict = ZSTD_createDDict_advanced(w->buf.data, d->len, ZSTD_dlm_byRef, ZSTD_dct_rawContent,
                                         ZSTD_defaultCMem);
    if (!w->ddict) return false;
    /* segments are zeroed in an erase's own copy of a dictionary, not while
     * others decode against it (its DDict reads the content in place too); the
     * serial tells a window that the copy it holds is of an earlier state */
    if (atomic_load(&d->serial) != serial) return false;
    w->held = serial;
    return true;
}

size_t ig_zdict_decompress_window(void *dctx, const struct ig_zdict *d, struct ig_zdict_window *w,
                                  void *dst, size_t cap, const void *src, size_t n,
                                  const uint8_t **out)
{
    uint64_t serial = atomic_load(&d->serial);
    bool again = w->last == serial;
    w->last = serial;
    bool held = w->held == serial && w->buf.cap >= d->len + cap;
    if (!held && again) held = window_fill(w, d, serial, cap);
    if (!held) {
        *out = dst;
        return ZSTD_decompress_usingDDict(dctx, dst, cap, src, n, d->ddict);
    }
    /* the output right after the content: zstd reads the dictionary as the
     * history before it (ZSTD_decompress_usingDDict checks the continuity) */
    uint8_t *at = w->buf.data + d->len;
    *out = at;
    return ZSTD_decompress_usingDDict(dctx, at, cap, src, n, w->ddict);
}

/* ---- finding segments in values ---------------------------------------------- */

struct ig_zdict_find {
    const struct ig_zdict *d;
    size_t *off;      /* each segment's offset in the content */
    uint8_t *hits;    /* values found holding it, up to cap */
    uint32_t *last;   /* the value that last counted it (a value counts once) */
    uint32_t *head;   /* hash of the first min(4, length) bytes -> segment + 1 */
    uint32_t *next;   /* chain, segment + 1 */
    size_t keyed[5];  /* segments still looked for by their key's length, 1..4 */
    size_t hcap, remaining;
    uint32_t serial;
    uint8_t cap;
};

/* A segment is keyed by its first min(4, length) bytes: a value's bytes are
 * looked up at each position once per key length any segment still sought
 * has, so short segments cost a lookup each, not a search of the value. */
static inline uint32_t seg_keylen(uint8_t seg_len)
{
    return seg_len < 4 ? seg_len : 4;
}

/* The (up to) four bytes at p of an n-byte run, little-endian; one load
 * where four are there (a key is its word's first klen bytes). */
static inline uint32_t word_at(const uint8_t *p, size_t n)
{
    return n >= 4 ? ig_ld32(p) : (uint32_t)ig_ld_le(p, n);
}

static inline uint64_t key_hash(uint32_t word, uint32_t klen)
{
    uint32_t v = klen < 4 ? word & ((1u << (8 * klen)) - 1) : word;
    return ((uint64_t)v | (uint64_t)klen << 32) * 0x9E3779B97F4A7C15ull;
}

static inline size_t key_slot(uint64_t h, size_t cap)
{
    return (size_t)(h >> 40) & (cap - 1);
}

void ig_zdict_find_free(struct ig_zdict_find *f)
{
    if (!f) return;
    free(f->off);
    free(f->hits);
    free(f->last);
    free(f->head);
    free(f->next);
    free(f);
}

int ig_zdict_find_new(const struct ig_zdict *d, const uint8_t *only, uint8_t cap,
                      struct ig_zdict_find **out)
{
    *out = NULL;
    struct ig_zdict_find *f = calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    uint32_t n = d->nseg;
    size_t hc = 64;
    while (hc < 2 * (size_t)n)
        hc *= 2;
    f->d = d;
    f->cap = cap ? cap : 1;
    f->hcap = hc;
    f->off = malloc((n + 1) * sizeof *f->off);
    f->hits = calloc(n + 1, 1);
    f->last = calloc(n + 1, sizeof *f->last);
    f->head = calloc(hc, sizeof *f->head);
    f->next = calloc(n + 1, sizeof *f->next);
    if (!f->off || !f->hits || !f->last || !f->head || !f->next) {
        ig_zdict_find_free(f);
        return -ENOMEM;
    }
    size_t at = 0;
    for (uint32_t i = 0; i < n; at += d->seg_len[i], i++) {
        f->off[i] = at;
        bool want = only ? only[i] != 0 : !ig_zdict_segment_zero(d, i, at);
        if (!want) {
            f->hits[i] = f->cap; /* not looked for */
            continue;
        }
        f->remaining++;
        uint32_t klen = seg_keylen(d->seg_len[i]);
        f->keyed[klen]++;
        uint64_t h = key_hash(word_at(d->content + at, klen), klen);
        size_t sl = key_slot(h, hc);
        f->next[i + 1] = f->head[sl];
        f->head[sl] = i + 1;
    }
    *out = f;
    return 0;
}

static inline void find_hit(struct ig_zdict_find *f, uint32_t i)
{
    if (f->hits[i] >= f->cap || f->last[i] == f->serial) return;
    f->last[i] = f->serial;
    if (++f->hits[i] == f->cap) f->remaining--;
}

/* A segment found in cap values leaves the search (its chain): an erase's
 * search of the values that stay runs over the whole chunk when a segment
 * only erased values held is never found, and walking the segments found
 * long before cost most of its time (a package index: over half of an erase
 * of 2 % of its rows). */
void ig_zdict_find_value(struct ig_zdict_find *f, const uint8_t *v, size_t len)
{
    if (!f->remaining) return;
    const struct ig_zdict *d = f->d;
    f->serial++;
    for (size_t p = 0; p < len; p++) {
        uint32_t word = word_at(v + p, len - p);
        for (uint32_t klen = 1; klen <= 4 && p + klen <= len; klen++) {
            if (!f->keyed[klen]) continue;
            uint64_t h = key_hash(word, klen);
            uint32_t *link = &f->head[key_slot(h, f->hcap)];
            for (uint32_t e; (e = *link) != 0;) {
                uint32_t i = e - 1;
                if (d->seg_len[i] <= len - p && seg_keylen(d->seg_len[i]) == klen &&
                    !memcmp(v + p, d->content + f->off[i], d->seg_len[i]))
                    find_hit(f, i);
                if (f->hits[i] >= f->cap) {
                    *link = f->next[e];
                    f->keyed[seg_keylen(d->seg_len[i])]--;
                } else {
                    link = &f->next[e];
                }
            }
        }
    }
}

size_t ig_zdict_find_remaining(const struct ig_zdict_find *f) { return f->remaining; }
const uint8_t *ig_zdict_find_hits(const struct ig_zdict_find *f) { return f->hits; }
size_t ig_zdict_find_offset(const struct ig_zdict_find *f, uint32_t i) { return f->off[i]; }

/* ---- training ------------------------------------------------------------ */

#define ZT_D 4                 /* window length counted (zstd's shortest match is 3;
                                  4 and 6 beat 8 on words of a few letters) */
#define ZT_HBITS 18            /* counters: 2^18 */
#define ZT_SAMPLE (1u << 20)   /* value bytes sampled at most */
#define ZT_SAMPLE_X 8          /* and at most this many times the target */
#define ZT_MIN_SCORE (4 * ZT_D) /* a piece scoring less is not worth its bytes */

struct piece {
    uint32_t off, len; /* in the sample */
    uint64_t score;
};

static inline uint32_t win_hash(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, ZT_D);
    return (uint32_t)(((uint64_t)v * 0x9E3779B97F4A7C15ull) >> (64 - ZT_HBITS));
}

static uint64_t piece_score(const uint8_t *s, const struct piece *pc, const uint32_t *cnt)
{
    uint64_t sc = 0;
    for (uint32_t i = 0; i + ZT_D <= pc->len; i++) {
        uint32_t c = cnt[win_hash(s + pc->off + i)];
        if (c > 1) sc += c; /* a window seen once is no repeat */
    }
    return sc;
}

/* Max-heap by score: h[i] sifted down to its place. Most sifts are of a
 * piece whose score was taken again and fell (the greedy's stale tops, four
 * in five of its steps), which sinks nearly to the bottom; so the path of
 * larger children (the right one only when strictly larger) is walked to a
 * leaf moving each up, one comparison a level, and the piece climbs back up
 * it past the children not larger than it. The places are a plain sift's:
 * it would stop at the first child on that path not larger than the piece. */
static void heap_down(struct piece *h, size_t n, size_t i)
{
    struct piece x = h[i];
    size_t j = i;
    for (size_t l; (l = 2 * j + 1) < n;) {
        size_t m = l + 1 < n && h[l + 1].score > h[l].score ? l + 1 : l;
        h[j] = h[m];
        j = m;
    }
    while (j > i && h[(j - 1) / 2].score <= x.score) {
        h[j] = h[(j - 1) / 2];
        j = (j - 1) / 2;
    }
    h[j] = x;
}

/* A byte of a word (segments are cut after the bytes that follow a word). */
static inline bool word_byte(uint8_t c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80;
}

/* A dictionary of the nch segments of s chosen (best piece first; a
 * piece's segments share its number in .score, in order): the best piece
 * last, each piece's segments in their order (zstd matches across them). */
static int build(const struct piece *chosen, size_t nch, size_t bytes, const uint8_t *s,
                 struct ig_zdict **out)
{
    struct ig_zdict *d = zd_new((uint32_t)nch, bytes);
    if (!d) return -ENOMEM;
    size_t at = 0, k = 0;
    for (size_t end = nch; end > 0;) {
        size_t start = end - 1;
        while (start > 0 && chosen[start - 1].score == chosen[end - 1].score)
            start--;
        for (size_t i = start; i < end; i++, k++) {
            d->seg_len[k] = (uint8_t)chosen[i].len;
            memcpy(d->content + at, s + chosen[i].off, chosen[i].len);
            at += chosen[i].len;
        }
        end = start;
    }
    int rc = zd_ready(d);
    if (rc)
        ig_zdict_free(d);
    else
        *out = d;
    return rc;
}

/* The distinct windows (by hash) in about ZT_PROBE bytes of values spread
 * evenly over offs/data; cnt: zero counters, left zero. A vocabulary of a few
 * dozen words shows all its windows in this much (bench_gen mixed's text:
 * 1,400-1,500, in 32 KiB as in 196,608 values), a larger one thousands
 * (captions of words: 22,000). */
#define ZT_PROBE (32u << 10)
static size_t vocabulary(const uint64_t *offs, const uint8_t *data, size_t n, uint32_t *cnt)
{
    uint64_t total = offs[n] - offs[0];
    size_t stride = total > ZT_PROBE ? (size_t)((total + ZT_PROBE - 1) / ZT_PROBE) : 1, windows = 0;
    for (int clear = 0; clear < 2; clear++)
        for (size_t w = 0, i; (i = enc_sample_at(w, stride)) < n; w++) {
            size_t l = (size_t)(offs[i + 1] - offs[i]);
            if (l > 4096) l = 4096;
            for (size_t k = 0; k + ZT_D <= l; k++) {
                uint32_t *c = &cnt[win_hash(data + offs[i] + k)];
                windows += !clear && !*c;
                *c = !clear;
            }
        }
    return windows;
}

int ig_zdict_train_in(const uint64_t *offs, const uint8_t *data, size_t n, size_t target,
                      size_t least_windows, struct ig_train_scratch *sc, struct ig_zdict **out)
{
    *out = NULL;
    if (!n || target < IG_ZDICT_SEG_MAX) return 0;
    uint64_t total = offs[n] - offs[0];
    uint64_t want = (uint64_t)target * ZT_SAMPLE_X < ZT_SAMPLE ? (uint64_t)target * ZT_SAMPLE_X : ZT_SAMPLE;
    size_t stride = total > want ? (size_t)((total + want - 1) / want) : 1;
    /* the sample: a value of every stride (enc_sample_at), back to back, and its pieces */
    struct ig_buf s = IG_BUF_INIT;
    struct piece *pcs = NULL;
    size_t npcs = 0, cap = 0;
    uint32_t *cnt = enc_train_counters(&sc->zdict_windows, (size_t)1 << ZT_HBITS);
    int rc = cnt ? 0 : -ENOMEM;
    if (!rc && least_windows && vocabulary(offs, data, n, cnt) < least_windows)
        return 0; /* it leaves them zero */
    for (size_t w = 0, i; !rc && (i = enc_sample_at(w, stride)) < n; w++) {
        size_t l = (size_t)(offs[i + 1] - offs[i]);
        if (l > 4096) l = 4096; /* a long value's start stands for it */
        if (l < ZT_D) continue;
        uint32_t at = (uint32_t)s.len;
        if (ig_buf_append(&s, data + offs[i], l)) {
            rc = -ENOMEM;
            break;
        }
        for (size_t k = 0; k + ZT_D <= l; k++) {
            uint32_t *c = &cnt[win_hash(s.data + at + k)];
            if (*c < UINT32_MAX) (*c)++;
        }
        for (size_t k = 0; k < l; k += IG_ZDICT_SEG_MAX) {
            if (npcs == cap) {
                cap = cap ? 2 * cap : 1024;
                struct piece *np = realloc(pcs, cap * sizeof *np);
                if (!np) {
                    rc = -ENOMEM;
                    break;
                }
                pcs = np;
            }
            size_t pl = l - k < IG_ZDICT_SEG_MAX ? l - k : IG_ZDICT_SEG_MAX;
            pcs[npcs++] = (struct piece){at + (uint32_t)k, (uint32_t)pl, 0};
        }
    }
    if (!rc) {
        for (size_t i = 0; i < npcs; i++)
            pcs[i].score = piece_score(s.data, &pcs[i], cnt);
        for (size_t i = npcs / 2; i-- > 0;)
            heap_down(pcs, npcs, i);
    }
    /* lazy greedy: the top's score is re-taken; kept if it still leads */
    struct piece *chosen = NULL;
    size_t nch = 0, bytes = 0, npieces = 0;
    if (!rc && !(chosen = malloc((target + 1) * sizeof *chosen))) rc = -ENOMEM;
    size_t hn = npcs;
    while (!rc && hn && bytes + IG_ZDICT_SEG_MAX <= target) {
        struct piece top = pcs[0];
        uint64_t now = piece_score(s.data, &top, cnt);
        if (now < top.score) { /* stale: scores only fall, so a fresh top leads */
            pcs[0].score = now;
            heap_down(pcs, hn, 0);
            continue;
        }
        if (now < ZT_MIN_SCORE) break; /* the best left holds too few repeats */
        /* the piece's segments: its words, each with the bytes that follow
         * it up to the next word (a word: letters, digits and bytes of 0x80
         * and up). Together they are the piece (zstd matches across them);
         * alone, each is what other values share (a word of a vocabulary,
         * a token of a name), so that an erase seldom finds one that only
         * erased values held and zeroes little. */
        for (uint32_t i = 0; i < top.len;) {
            uint32_t j = i;
            while (j < top.len && word_byte(s.data[top.off + j]))
                j++;
            while (j < top.len && !word_byte(s.data[top.off + j]))
                j++;
            chosen[nch++] = (struct piece){top.off + i, j - i, npieces};
            bytes += j - i;
            i = j;
        }
        npieces++;
        for (uint32_t i = 0; i + ZT_D <= top.len; i++)
            cnt[win_hash(s.data + top.off + i)] = 0;
        pcs[0] = pcs[--hn];
        heap_down(pcs, hn, 0);
    }
    if (!rc && nch) rc = build(chosen, nch, bytes, s.data, out);
    free(chosen);
    if (cnt) memset(cnt, 0, sizeof *cnt << ZT_HBITS); /* left zero for the next */
    free(pcs);
    ig_buf_free(&s);
    return rc;
}

int ig_zdict_train(const uint64_t *offs, const uint8_t *data, size_t n, size_t target,
                   size_t least_windows, struct ig_zdict **out)
{
    struct ig_train_scratch sc = {0};
    int rc = ig_zdict_train_in(offs, data, n, target, least_windows, &sc, out);
    ig_train_scratch_free(&sc);
    return rc;
}

/* ---- whether it pays -------------------------------------------------------- */

#define ZG_PROBES 16     /* runs of values tried, spread over the chunk */
#define ZG_RUN 4096      /* bytes of values in each (a block's worth) */
#define ZG_RUN_MAX (64u << 10) /* a grain's run at most (values zstd shrinks 16x) */

/* Values [i, j) from i holding at least `want` bytes (fewer at the chunk's end). */
static size_t run_end(const uint64_t *offs, size_t n, size_t i, uint64_t want)
{
    size_t j = i;
    while (j < n && offs[j] - offs[i] < want)
        j++;
    return j;
}

uint64_t ig_zdict_gain(struct ig_zdict *d, const uint64_t *offs, const uint8_t *data, size_t n,
                       int level, int dict_level, size_t grain)
{
    uint64_t total = offs[n] - offs[0];
    if (!n || !total) return 0;
    ZSTD_CCtx *c = ZSTD_createCCtx();
    size_t most = grain ? ZG_RUN_MAX : 2 * ZG_RUN;
    uint8_t *dst = malloc(ZSTD_compressBound(most));
    uint64_t tried = 0, saved = 0;
    for (unsigned k = 0; c && dst && k < ZG_PROBES; k++) {
        size_t i = (size_t)((uint64_t)n * k / ZG_PROBES);
        size_t len = (size_t)(offs[run_end(offs, n, i, ZG_RUN)] - offs[i]);
        if (len > 2 * ZG_RUN) len = 2 * ZG_RUN; /* one long value */
        if (len < 64) continue;
        size_t cap = ZSTD_compressBound(most);
        size_t a = ZSTD_compressCCtx(c, dst, cap, data + offs[i], len, level);
        if (ZSTD_isError(a)) continue;
        if (grain && a < grain) { /* the run a block of zstd alone would hold */
            uint64_t want = (uint64_t)len * grain / (a ? a : 1);
            len = (size_t)(offs[run_end(offs, n, i, want < most ? want : most)] - offs[i]);
            if (len > most) len = most;
            a = ZSTD_compressCCtx(c, dst, cap, data + offs[i], len, level);
            if (ZSTD_isError(a)) continue;
        }
        size_t b = 0, frame = grain ? len : IG_ZDICT_FRAME_PLAIN;
        for (size_t o = 0; o < len && !ZSTD_isError(b); o += frame) {
            size_t m = len - o < frame ? len - o : frame;
            size_t f = ig_zdict_compress(c, d, dst, cap, data + offs[i] + o, m, dict_level);
            b = ZSTD_isError(f) ? f : b + f + (grain ? 0 : IG_ZDICT_FRAME_COST);
        }
        if (ZSTD_isError(b)) continue;
        if (a > len) a = len; /* stored as is */
        tried += len;
        if (b < a) saved += a - b;
    }
    ZSTD_freeCCtx(c);
    free(dst);
    return tried ? (uint64_t)((double)saved * (double)total / (double)tried) : 0;
}
