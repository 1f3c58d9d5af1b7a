/* fsst.c - FSST (Boncz, Neumann, Leis, VLDB 2020): strings as codes of a
 * symbol table that a whole column chunk shares, each item coded alone.
 *
 * Why: a block of ~4 KiB compressed on its own by zstd or by a code of its own
 * pays for its context in every block (zstd's tables, huffman's 1.5 bytes per
 * byte value) and, for zstd, must be decompressed whole to read one item and
 * recompressed whole to erase one. A symbol table of up to 255 symbols of 1 to
 * 8 bytes, trained once per chunk and stored once in the chunk's context
 * (codec.h, struct ig_chunk_ctx), lets every block code its items against it:
 * item i is its own run of one-byte codes (a symbol, or the escape 255 and one
 * literal byte), so reading it decodes it alone, and erasing it removes its
 * codes without touching the other items' bytes or the table.
 *
 * Symbol table (the context's fsst entry; docs/ENCODINGS.md "fsst"):
 *   [k: u8] [k lengths: u8 each, 0..8] [the symbols' bytes back to back]
 *   [k use counts: varint each]
 *   Code c < k is symbol c; 255 escapes the next byte. A use count is how many
 *   times the chunk's items use the symbol; a symbol no item uses has length 0
 *   and count 0 (erased: no code may name it), so the table never holds a
 *   symbol that only erased values held.
 *
 * Stream: [12] [wo: u8] [packed(n+1, wo) offsets] [codes]
 *   Item i's codes are codes[offsets[i], offsets[i+1]); offsets are
 *   non-decreasing and wo is the bit width of offsets[n]. Written with
 *   offsets[0] = 0; an erase may leave zero bytes before the first item.
 *
 * Erase: the item's codes leave (its length becomes 0) and the live items on
 *   the shorter side shift over the gap (enc_erase_boundary, as huffman); the
 *   page layer takes the erased codes' uses off the table's counts and erases
 *   from the table every symbol whose count falls to 0.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"
#include "util/cpu.h"

#if IG_HAVE_X8
#include <immintrin.h>
#endif

#define FSST_ESC          255u
#define FSST_MAX_SYMBOLS  255u
#define FSST_SAMPLE_BYTES 32768u /* bytes of items the table is trained on */
#define FSST_SAMPLE_PIECE 512u   /* at most this much of one item per sample piece */
#define FSST_ROUNDS       5
#define FSST_SLOT_BITS    10 /* prefix slots of the long symbols (k <= 255 prefixes) */
#define FSST_SLOTS        (1u << FSST_SLOT_BITS)

/* The encoder's way to a symbol: the longer ones by their first three bytes
 * (a slot holds the longest of them, so that most matches cost one load
 * after the hash, and says where all of them are in `long_*`, longest
 * first, so the first that matches is the longest), the 1- and 2-byte ones
 * by their bytes: `short_code` holds, for every two bytes, the code of the
 * 2-byte symbol that is those bytes, else of the 1-byte symbol that is the
 * first, as (length << 8 | code), 0 when neither is (the byte is escaped).
 * One load where hashing the two bytes and probing for them, then looking
 * up the one, was a third of coding text whose words are not all symbols. */
struct fsst_index {
    int16_t one[256];
    uint16_t short_code[65536];
    struct fsst_slot {
        uint64_t sym;      /* the prefix's longest symbol; its first three bytes are the key */
        uint8_t len, code; /* len 0: an empty slot */
        uint8_t at, n;     /* the prefix's symbols are long_*[at, at + n) */
    } slot[FSST_SLOTS];
    uint8_t order[FSST_MAX_SYMBOLS];
    /* the long symbols in `order`'s order, each with the mask of its bytes:
     * a prefix's candidates side by side, nothing recomputed per position;
     * array by array, so that eight load as one vector, and eight past the
     * last there to be loaded (and masked off) */
    uint64_t long_sym[FSST_MAX_SYMBOLS + 8], long_mask[FSST_MAX_SYMBOLS + 8];
    uint8_t long_len[FSST_MAX_SYMBOLS + 8], long_code[FSST_MAX_SYMBOLS + 8];
};

struct ig_fsst {
    unsigned k;
    uint8_t len[256];      /* 0: no such symbol (erased, or c >= k) */
    uint64_t sym[256];     /* the symbol's bytes, little-endian, zero above len */
    uint64_t count[256];   /* uses by the chunk's items */
    struct fsst_index *ix; /* built for encoding (train, ig_fsst_index) */
};

static inline uint64_t len_mask(unsigned l)
{
    return l >= 8 ? ~0ULL : (1ULL << (8 * l)) - 1;
}

/* Up to 8 bytes at p (r left) as a little-endian word, zeros past the end. */
static inline uint64_t load_word(const uint8_t *p, size_t r)
{
    if (r >= 8) return ig_ld64(p);
    uint8_t b[8] = {0};
    memcpy(b, p, r);
    return ig_ld64(b);
}

static inline uint32_t slot_of(uint32_t prefix)
{
    return (prefix * 0x9E3779B1u) >> (32 - FSST_SLOT_BITS);
}

void ig_fsst_free(struct ig_fsst *t)
{
    if (!t) return;
    free(t->ix);
    free(t);
}

/* Build the encoder's index of t's symbols. */
static int fsst_index(struct ig_fsst *t)
{
    if (!t->ix && !(t->ix = malloc(sizeof *t->ix))) return -ENOMEM;
    struct fsst_index *ix = t->ix;
    memset(ix->one, 0xff, sizeof ix->one);
    memset(ix->slot, 0, sizeof ix->slot);
    for (unsigned c = 0; c < t->k; c++) /* the last of equal 1-byte symbols */
        if (t->len[c] == 1) ix->one[t->sym[c] & 0xff] = (int16_t)c;
    for (unsigned b = 0; b < 256; b++) /* the first byte is the low one */
        ix->short_code[b] = ix->one[b] >= 0 ? (uint16_t)(1u << 8 | (unsigned)ix->one[b]) : 0;
    for (unsigned h = 1; h < 256; h++)
        memcpy(ix->short_code + (h << 8), ix->short_code, 256 * sizeof ix->short_code[0]);
    /* long symbols ordered by prefix, then longest first: a slot is a run */
    unsigned nl = 0;
    for (unsigned c = t->k; c-- > 0;) /* the first of equal 2-byte symbols */
        if (t->len[c] == 2) ix->short_code[t->sym[c] & 0xffff] = (uint16_t)(2u << 8 | c);
    for (unsigned c = 0; c < t->k; c++) {
        unsigned l = t->len[c];
        if (l < 3) continue;
        unsigned j = nl++;
        uint32_t p = (uint32_t)(t->sym[c] & 0xffffff);
        for (; j > 0; j--) { /* insertion sort, k <= 255 */
            unsigned o = ix->order[j - 1];
            uint32_t po = (uint32_t)(t->sym[o] & 0xffffff);
            if (po < p || (po == p && t->len[o] >= l)) break;
            ix->order[j] = ix->order[j - 1];
        }
        ix->order[j] = (uint8_t)c;
    }
    for (unsigned i = 0; i < nl + 8; i++) {
        unsigned c = i < nl ? ix->order[i] : 0;
        ix->long_sym[i] = i < nl ? t->sym[c] : 0;
        ix->long_mask[i] = i < nl ? len_mask(t->len[c]) : 0;
        ix->long_len[i] = i < nl ? t->len[c] : 0;
        ix->long_code[i] = (uint8_t)c;
    }
    for (unsigned i = 0; i < nl;) {
        uint32_t p = (uint32_t)(t->sym[ix->order[i]] & 0xffffff);
        unsigned e = i;
        while (e < nl && (uint32_t)(t->sym[ix->order[e]] & 0xffffff) == p)
            e++;
        uint32_t s = slot_of(p);
        while (ix->slot[s].len)
            s = (s + 1) & (FSST_SLOTS - 1);
        ix->slot[s] = (struct fsst_slot){ix->long_sym[i], ix->long_len[i], ix->long_code[i],
                                         (uint8_t)i, (uint8_t)(e - i)};
        i = e;
    }
    return 0;
}

/* The slot of the long symbols that start with w's first three bytes, or
 * NULL. */
static inline __attribute__((always_inline)) const struct fsst_slot *
long_slot(const struct fsst_index *ix, uint64_t w)
{
    const struct fsst_slot *e = ix->slot + slot_of((uint32_t)(w & 0xffffff));
    for (; e->len; e = e + 1 < ix->slot + FSST_SLOTS ? e + 1 : ix->slot)
        if (((w ^ e->sym) & 0xffffff) == 0) return e;
    return NULL;
}

/* The longest of slot e's symbols that w starts with (r >= 3 bytes left):
 * its length, *code set; 0 when none. */
typedef unsigned long_match_fn(const struct fsst_index *ix, const struct fsst_slot *e, uint64_t w,
                               size_t r, unsigned *code);

static inline __attribute__((always_inline)) unsigned
long_match_plain(const struct fsst_index *ix, const struct fsst_slot *e, uint64_t w, size_t r,
                 unsigned *code)
{
    /* the first, the slot's own: its len (3..8) lowest bytes are w's */
    if (e->len <= r && ((w ^ e->sym) << (64 - 8 * e->len)) == 0) {
        *code = e->code;
        return e->len;
    }
    for (unsigned j = e->at + 1u; j < e->at + (unsigned)e->n; j++)
        if (ix->long_len[j] <= r && ((w ^ ix->long_sym[j]) & ix->long_mask[j]) == 0) {
            *code = ix->long_code[j];
            return ix->long_len[j];
        }
    return 0;
}

/* The longest symbol at w (r bytes left, r >= 1): its length, *code set; 0
 * when none matches (the byte is escaped). */
static inline __attribute__((always_inline)) unsigned
match_with(const struct fsst_index *ix, uint64_t w, size_t r, unsigned *code,
           long_match_fn *long_match)
{
    const struct fsst_slot *e;
    unsigned l;
    if (r >= 3 && (e = long_slot(ix, w)) && (l = long_match(ix, e, w, r, code))) return l;
    if (r >= 2) {
        unsigned s = ix->short_code[w & 0xffff];
        *code = s & 0xff;
        return s >> 8;
    }
    if (ix->one[w & 0xff] >= 0) {
        *code = (unsigned)ix->one[w & 0xff];
        return 1;
    }
    return 0;
}

static inline unsigned fsst_match(const struct ig_fsst *t, uint64_t w, size_t r, unsigned *code)
{
    return match_with(t->ix, w, r, code, long_match_plain);
}

/* Coding items a position at a time. Each position's match waits on the
 * last (where it starts, then a load, a hash, a table load), so one item's
 * positions run no faster than that chain; two lanes of items, coded in
 * turn, let the processor run two chains at once. A lane codes items
 * [item, end) into dst, item j's codes from co[j] (relative to dst) on. */
struct code_lane {
    const uint64_t *offs;
    const uint8_t *data;
    uint64_t data_end; /* offs[n] of the whole block: what may be read */
    size_t item, end;
    const uint8_t *p;  /* the item being coded */
    size_t i, n;       /* at byte i of its n */
    size_t readable;   /* bytes that may be read from p on (n or more) */
    uint8_t *dst;      /* the lane's codes, `at` of them so far */
    uint64_t at, *co;
};

static inline __attribute__((always_inline)) void lane_start_item(struct code_lane *l)
{
    uint64_t o = l->offs[l->item];
    l->p = l->data + o;
    l->i = 0;
    l->n = (size_t)(l->offs[l->item + 1] - o);
    l->readable = (size_t)(l->data_end - o);
}

static void lane_init(struct code_lane *l, const uint64_t *offs, const uint8_t *data, size_t n,
                      size_t item, size_t end, uint8_t *dst, uint64_t *co)
{
    *l = (struct code_lane){.offs = offs, .data = data, .data_end = offs[n], .item = item,
                            .end = end, .dst = dst, .co = co};
    co[item] = 0;
    if (item < end) lane_start_item(l);
}

/* One step: the next position's symbol (or escape), or the next item when
 * this one is coded. A match looks at no byte past the r it is told, so
 * where eight bytes can be read the word is one load, whatever follows the
 * item; only a block's last bytes are copied out (load_word). */
static inline __attribute__((always_inline)) void
lane_step(const struct fsst_index *ix, struct code_lane *l, long_match_fn *long_match)
{
    if (l->i == l->n) {
        l->co[++l->item] = l->at;
        if (l->item < l->end) lane_start_item(l);
        return;
    }
    unsigned code;
    size_t r = l->n - l->i;
    uint64_t w = l->readable - l->i >= 8 ? ig_ld64(l->p + l->i) : load_word(l->p + l->i, r);
    unsigned len = match_with(ix, w, r, &code, long_match);
    if (len) {
        l->dst[l->at++] = (uint8_t)code;
        l->i += len;
    } else {
        l->dst[l->at++] = FSST_ESC;
        l->dst[l->at++] = l->p[l->i++];
    }
}

/* Items [0, n) (n >= 1, some bytes) coded into codes (room for twice their
 * bytes), item i's from co[i] on: the first items in one lane, those from
 * where the second half of the bytes starts in the other, which codes into
 * the buffer's second half and moves down after. */
static inline __attribute__((always_inline)) void
code_items_with(const struct fsst_index *ix, const uint64_t *offs, const uint8_t *data, size_t n,
                uint8_t *codes, uint64_t *co, long_match_fn *long_match)
{
    uint64_t half = offs[0] + (offs[n] - offs[0]) / 2;
    size_t mid = 0;
    while (mid < n && offs[mid] < half) mid++;
    struct code_lane a, b;
    uint8_t *b_dst = codes + 2 * (offs[mid] - offs[0]);
    lane_init(&a, offs, data, n, 0, mid, codes, co);
    lane_init(&b, offs, data, n, mid, n, b_dst, co); /* a sets co[mid] last */
    while (a.item < a.end && b.item < b.end) {
        lane_step(ix, &a, long_match);
        lane_step(ix, &b, long_match);
    }
    while (a.item < a.end)
        lane_step(ix, &a, long_match);
    while (b.item < b.end)
        lane_step(ix, &b, long_match);
    /* co[mid] is a's bytes; b's offsets after it are relative to b_dst */
    uint64_t a_bytes = a.at;
    memmove(codes + a_bytes, b_dst, (size_t)b.at);
    for (size_t j = mid + 1; j <= n; j++)
        co[j] += a_bytes;
}

static void code_items_plain(const struct fsst_index *ix, const uint64_t *offs, const uint8_t *data,
                             size_t n, uint8_t *codes, uint64_t *co)
{
    code_items_with(ix, offs, data, n, codes, co, long_match_plain);
}

#if IG_HAVE_X8
/* long_match_plain with eight of the slot's symbols compared at once: which
 * one matches is a branch per symbol that the processor cannot foresee (on
 * titles of words a third of positions match a prefix's second or later
 * symbol), and the lowest lane that matches is the same first match. */
IG_X8 static inline unsigned long_match_x8(const struct fsst_index *ix, const struct fsst_slot *e,
                                           uint64_t w, size_t r, unsigned *code)
{
    unsigned at = e->at, left = e->n;
    const __m512i word = _mm512_set1_epi64((long long)w);
    const __m128i room = _mm_set1_epi8((char)(r < 8 ? r : 8));
    for (;;) {
        __mmask8 lanes = (__mmask8)(left >= 8 ? 0xff : (1u << left) - 1);
        __m512i diff = _mm512_xor_si512(word, _mm512_loadu_si512(ix->long_sym + at));
        __m512i mask = _mm512_loadu_si512(ix->long_mask + at);
        __m128i len = _mm_loadl_epi64((const __m128i *)(ix->long_len + at));
        __mmask8 hit = _mm512_mask_testn_epi64_mask(lanes, diff, mask);
        hit &= (__mmask8)_mm_cmple_epu8_mask(len, room);
        if (hit) {
            unsigned j = at + (unsigned)__builtin_ctz(hit);
            *code = ix->long_code[j];
            return ix->long_len[j];
        }
        if (left <= 8) return 0;
        at += 8;
        left -= 8;
    }
}

IG_X8 static void code_items_x8(const struct fsst_index *ix, const uint64_t *offs,
                                const uint8_t *data, size_t n, uint8_t *codes, uint64_t *co)
{
    code_items_with(ix, offs, data, n, codes, co, long_match_x8);
}
#endif

/* The same codes either way (test_fsst's longest-match test runs in both). */
static void fsst_code_items(const struct ig_fsst *t, const uint64_t *offs, const uint8_t *data,
                            size_t n, uint8_t *codes, uint64_t *co)
{
#if IG_HAVE_X8
    if (ig_cpu_avx512()) {
        code_items_x8(t->ix, offs, data, n, codes, co);
        return;
    }
#endif
    code_items_plain(t->ix, offs, data, n, codes, co);
}

/* ---- training ----------------------------------------------------------- */

/* A candidate symbol and what it would save. */
struct cand {
    uint64_t sym, gain;
    uint8_t len;
};

struct cand_map {
    struct cand *c;
    size_t cap, n;
};

/* Add gain to the candidate (sym, len), a new one if it is not there yet;
 * the map is sized for every candidate a round adds (train_round). */
static void cand_add(struct cand_map *m, uint64_t sym, unsigned len, uint64_t gain)
{
    size_t s = (size_t)((sym * 0x9E3779B97F4A7C15ULL + len) >> 20) & (m->cap - 1);
    while (m->c[s].len && (m->c[s].sym != sym || m->c[s].len != len))
        s = (s + 1) & (m->cap - 1);
    if (!m->c[s].len) {
        m->c[s] = (struct cand){.sym = sym, .len = (uint8_t)len};
        m->n++;
    }
    m->c[s].gain += gain;
}

static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->gain != y->gain) return x->gain > y->gain ? -1 : 1;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* c[i] sifted down a heap of c[0..n) whose top is the last in cand_cmp's order. */
static void cand_down(struct cand *c, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && cand_cmp(&c[l], &c[m]) > 0) m = l;
        if (r < n && cand_cmp(&c[r], &c[m]) > 0) m = r;
        if (m == i) return;
        struct cand x = c[i];
        c[i] = c[m];
        c[m] = x;
        i = m;
    }
}

/* The FSST_MAX_SYMBOLS candidates of c[0..n) first in cand_cmp's order (a
 * total order: no two candidates are equal), sorted, at its front; how many.
 * A round weighs tens of thousands of candidates on varied text, and sorting
 * them all was half of a training. */
static size_t cand_best(struct cand *c, size_t n)
{
    size_t k = n < FSST_MAX_SYMBOLS ? n : FSST_MAX_SYMBOLS;
    for (size_t i = k / 2; i-- > 0;)
        cand_down(c, k, i);
    for (size_t i = k; i < n; i++)
        if (cand_cmp(&c[i], &c[0]) < 0) {
            c[0] = c[i];
            cand_down(c, k, 0);
        }
    if (k) qsort(c, k, sizeof *c, cand_cmp); /* nothing sampled: c is NULL */
    return k;
}

/* The pieces of the items that the table is trained on: every item when
 * they are few, else one item of every stride (enc_sample_at: not the same
 * kind of item throughout where rows repeat a pattern, and the same items on
 * every run), each at most FSST_SAMPLE_PIECE bytes, up to FSST_SAMPLE_BYTES. */
struct piece {
    const uint8_t *p;
    size_t n;
};

static size_t take_sample(const uint64_t *offs, const uint8_t *data, size_t n, struct piece *pc,
                          size_t max_pieces)
{
    uint64_t total = offs[n] - offs[0];
    size_t np = 0, got = 0;
    /* about as many items as fill the sample, spread evenly */
    uint64_t avg = n ? total / n + 1 : 1;
    size_t want =
        (size_t)(FSST_SAMPLE_BYTES / (avg < FSST_SAMPLE_PIECE ? avg : FSST_SAMPLE_PIECE)) + 1;
    size_t stride = total <= FSST_SAMPLE_BYTES || want >= n ? 1 : n / want;
    for (size_t k = 0, i;
         (i = enc_sample_at(k, stride)) < n && got < FSST_SAMPLE_BYTES && np < max_pieces; k++) {
        size_t l = (size_t)(offs[i + 1] - offs[i]);
        if (!l) continue;
        const uint8_t *p = data + offs[i];
        /* a long item gives a piece from its middle, whose bytes are as typical */
        if (l > FSST_SAMPLE_PIECE) {
            p += (l - FSST_SAMPLE_PIECE) / 2;
            l = FSST_SAMPLE_PIECE;
        }
        pc[np++] = (struct piece){p, l};
        got += l;
    }
    return np;
}

/* The pair counts of a round (512 x 512, zero between rounds) and the pairs
 * it counted, in the order first seen: a round sees a few thousand of the
 * 262,144, and clearing and scanning them all was most of a training. */
struct pair_counts {
    uint32_t *c2;
    uint32_t *seen;
    size_t n;
};

/* One round: code the sample with t, count each code and each pair of codes
 * that follow each other (codes 256 + b stand for the byte b escaped, or for
 * the single byte at a symbol's start, which may become a symbol too), and
 * make t the FSST_MAX_SYMBOLS candidates that save the most (ranked by what
 * they save, then length, then bytes: the order they are added in does not
 * matter). */
static int train_round(struct ig_fsst *t, const struct piece *pc, size_t np, uint32_t *c1,
                       struct pair_counts *pairs, bool last)
{
    int rc = fsst_index(t);
    if (rc) return rc;
    memset(c1, 0, 512 * sizeof *c1);
    uint32_t *c2 = pairs->c2;
    pairs->n = 0;
    for (size_t j = 0; j < np; j++) {
        const uint8_t *p = pc[j].p;
        size_t n = pc[j].n, i = 0;
        unsigned prev = 512;
        while (i < n) {
            unsigned code;
            uint64_t w = load_word(p + i, n - i);
            unsigned l = fsst_match(t, w, n - i, &code);
            unsigned cur = l ? code : 256u + p[i];
            c1[cur]++;
            if (l > 1) c1[256u + p[i]]++;
            if (prev < 512 && !c2[prev * 512 + cur]++) pairs->seen[pairs->n++] = prev * 512 + cur;
            prev = cur;
            i += l ? l : 1;
        }
    }
    /* sized once for every candidate (at most the 512 codes and the pairs
     * seen) at half full: no growing, no rehashing */
    struct cand_map m = {0};
    size_t most = 512 + pairs->n;
    for (m.cap = 4096; m.cap < 2 * most; m.cap *= 2) {}
    if (!(m.c = calloc(m.cap, sizeof *m.c))) rc = -ENOMEM;
    for (unsigned a = 0; a < 512 && !rc; a++) {
        if (!c1[a]) continue;
        uint64_t sa = a < 256 ? t->sym[a] : a - 256;
        unsigned la = a < 256 ? t->len[a] : 1;
        /* a single byte saves nothing but the escape: weigh it by its count */
        cand_add(&m, sa, la, (uint64_t)c1[a] * (la == 1 ? 1 : la));
    }
    for (size_t i = 0; i < pairs->n; i++) {
        unsigned a = pairs->seen[i] / 512, b = pairs->seen[i] % 512;
        uint32_t f = c2[pairs->seen[i]];
        c2[pairs->seen[i]] = 0;
        unsigned la = a < 256 ? t->len[a] : 1;
        if (rc || last || la >= 8) continue;
        uint64_t sa = a < 256 ? t->sym[a] : a - 256, sb = b < 256 ? t->sym[b] : b - 256;
        unsigned lb = b < 256 ? t->len[b] : 1, l = la + lb > 8 ? 8 : la + lb;
        uint64_t s = (sa | sb << (8 * la)) & len_mask(l);
        cand_add(&m, s, l, (uint64_t)f * l);
    }
    if (!rc) {
        size_t k = 0;
        for (size_t i = 0; i < m.cap; i++)
            if (m.c[i].len) m.c[k++] = m.c[i];
        t->k = (unsigned)cand_best(m.c, k);
        memset(t->len, 0, sizeof t->len);
        memset(t->sym, 0, sizeof t->sym);
        for (unsigned c = 0; c < t->k; c++) {
            t->len[c] = m.c[c].len;
            t->sym[c] = m.c[c].sym;
        }
    }
    free(m.c);
    return rc; /* the next round, or ig_fsst_train, indexes the new table */
}

/* The pair counters are left zero: each round clears the ones it counted. */
int ig_fsst_train_in(const uint64_t *offs, const uint8_t *data, size_t n, struct ig_train_scratch *s,
                     struct ig_fsst **out)
{
    *out = NULL;
    struct ig_fsst *t = calloc(1, sizeof *t);
    size_t max_pieces = FSST_SAMPLE_BYTES; /* at most one piece per sampled byte */
    struct piece *pc = malloc(max_pieces * sizeof *pc);
    uint32_t *c1 = malloc(512 * sizeof *c1);
    /* a pair per sampled byte at most (FSST_SAMPLE_BYTES, and the last piece
     * may pass it by FSST_SAMPLE_PIECE) */
    struct pair_counts pairs = {enc_train_counters(&s->fsst_pairs, 512 * 512),
                                malloc((FSST_SAMPLE_BYTES + FSST_SAMPLE_PIECE) * sizeof *pairs.seen), 0};
    int rc = t && pc && c1 && pairs.c2 && pairs.seen ? 0 : -ENOMEM;
    size_t np = rc || !n ? 0 : take_sample(offs, data, n, pc, max_pieces);
    for (int r = 0; r < FSST_ROUNDS && !rc; r++)
        rc = train_round(t, pc, np, c1, &pairs, r == FSST_ROUNDS - 1);
    if (!rc) rc = fsst_index(t);
    free(pc);
    free(c1);
    free(pairs.seen);
    if (rc) {
        ig_fsst_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int ig_fsst_train(const uint64_t *offs, const uint8_t *data, size_t n, struct ig_fsst **out)
{
    struct ig_train_scratch s = {0};
    int rc = ig_fsst_train_in(offs, data, n, &s, out);
    ig_train_scratch_free(&s);
    return rc;
}

/* ---- the table on disk -------------------------------------------------- */

size_t ig_fsst_size(const struct ig_fsst *t)
{
    size_t s = 1 + t->k;
    for (unsigned c = 0; c < t->k; c++)
        s += t->len[c] + ig_varint_size(t->count[c]);
    return s;
}

int ig_fsst_write(const struct ig_fsst *t, struct ig_buf *out)
{
    uint8_t *d = ig_buf_extend(out, ig_fsst_size(t));
    if (!d) return -ENOMEM;
    size_t at = 0;
    d[at++] = (uint8_t)t->k;
    for (unsigned c = 0; c < t->k; c++)
        d[at++] = t->len[c];
    for (unsigned c = 0; c < t->k; c++)
        for (unsigned b = 0; b < t->len[c]; b++)
            d[at++] = (uint8_t)(t->sym[c] >> (8 * b));
    for (unsigned c = 0; c < t->k; c++)
        at += ig_varint_put(d + at, t->count[c]);
    return 0;
}

int ig_fsst_parse(const uint8_t *p, size_t len, struct ig_fsst **out, size_t *used,
                  struct ig_error *err)
{
    *out = NULL;
    if (len < 1) return ig_err(err, -EIO, "fsst symbol table: empty");
    unsigned k = p[0];
    if (k > FSST_MAX_SYMBOLS) return ig_err(err, -EIO, "fsst symbol table: %u symbols", k);
    if (len - 1 < k) return ig_err(err, -EIO, "fsst symbol table: lengths past the end");
    struct ig_fsst *t = calloc(1, sizeof *t);
    if (!t) return ig_err(err, -ENOMEM, "out of memory");
    t->k = k;
    size_t pos = 1 + k, bytes = 0;
    for (unsigned c = 0; c < k; c++) {
        if (p[1 + c] > 8) {
            ig_fsst_free(t);
            return ig_err(err, -EIO, "fsst symbol table: symbol %u is %u bytes long", c, p[1 + c]);
        }
        t->len[c] = p[1 + c];
        bytes += t->len[c];
    }
    if (len - pos < bytes) {
        ig_fsst_free(t);
        return ig_err(err, -EIO, "fsst symbol table: symbols past the end");
    }
    for (unsigned c = 0; c < k; c++) {
        for (unsigned b = 0; b < t->len[c]; b++)
            t->sym[c] |= (uint64_t)p[pos + b] << (8 * b);
        pos += t->len[c];
    }
    for (unsigned c = 0; c < k; c++) {
        uint64_t v;
        size_t u = ig_varint_get(p + pos, len - pos, &v);
        if (!u) {
            ig_fsst_free(t);
            return ig_err(err, -EIO, "fsst symbol table: use counts past the end");
        }
        pos += u;
        if ((v == 0) != (t->len[c] == 0)) {
            unsigned l = t->len[c];
            ig_fsst_free(t);
            return ig_err(err, -EIO, "fsst symbol table: symbol %u has length %u and %llu uses", c, l,
                          (unsigned long long)v);
        }
        t->count[c] = v;
    }
    if (fsst_index(t)) {
        ig_fsst_free(t);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    *used = pos;
    *out = t;
    return 0;
}

unsigned ig_fsst_symbols(const struct ig_fsst *t)
{
    unsigned live = 0;
    for (unsigned c = 0; c < t->k; c++)
        live += t->len[c] != 0;
    return live;
}

void ig_fsst_reset_counts(struct ig_fsst *t)
{
    memset(t->count, 0, sizeof t->count);
}

bool ig_fsst_prune(struct ig_fsst *t)
{
    bool changed = false;
    for (unsigned c = 0; c < t->k; c++)
        if (t->len[c] && !t->count[c]) {
            t->len[c] = 0;
            t->sym[c] = 0;
            changed = true;
        }
    /* trailing erased symbols leave the table (nothing can name them) */
    while (t->k && !t->len[t->k - 1]) {
        t->k--;
        changed = true;
    }
    if (changed && t->ix) (void)fsst_index(t); /* its memory is there: cannot fail */
    return changed;
}

/* ---- reading ------------------------------------------------------------ */

struct fsst_hdr {
    unsigned wo;
    size_t index_at, data_at, data_avail;
};

static int fsst_header(const uint8_t *p, size_t len, size_t n, const struct ig_fsst *t,
                       struct fsst_hdr *h, struct ig_error *err)
{
    if (!t) return ig_err(err, -EIO, "fsst stream without its chunk's symbol table");
    if (len < 2) return ig_err(err, -EIO, "fsst stream: truncated header");
    h->wo = p[1];
    if (h->wo > 40) return ig_err(err, -EIO, "fsst stream: offset width %u", h->wo);
    size_t ib = ig_bitpack_size(n + 1, h->wo);
    if (ib > len - 2) return ig_err(err, -EIO, "fsst stream: item index past the end");
    h->index_at = 2;
    h->data_at = 2 + ib;
    h->data_avail = len - h->data_at;
    return 0;
}

/* The raw length of an item's codes, checked: every code a symbol of the
 * table or an escape followed by its byte. */
static int item_raw_len(const struct ig_fsst *t, const uint8_t *c, size_t n, uint64_t *raw,
                        size_t item, struct ig_error *err)
{
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned code = c[i];
        if (code == FSST_ESC) {
            if (++i >= n) return ig_err(err, -EIO, "fsst stream: item %zu ends in an escape", item);
            r++;
        } else if (!t->len[code]) {
            return ig_err(err, -EIO, "fsst stream: item %zu: code %u names no symbol", item, code);
        } else {
            r += t->len[code];
        }
    }
    *raw = r;
    return 0;
}

/* Decode checked codes c[0..n) into dst, which has 8 bytes of room past the
 * item's raw length (a symbol is stored as a whole word). */
static size_t item_decode(const struct ig_fsst *t, const uint8_t *c, size_t n, uint8_t *dst)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned code = c[i];
        if (code == FSST_ESC) {
            dst[o++] = c[++i];
        } else {
            ig_st64(dst + o, t->sym[code]);
            o += t->len[code];
        }
    }
    return o;
}

static int fsst_index_read(const uint8_t *p, size_t n, const struct fsst_hdr *h, uint64_t *co,
                           struct ig_error *err)
{
    ig_bitpack_unpack(co, p + h->index_at, n + 1, h->wo);
    for (size_t i = 0; i < n; i++)
        if (co[i + 1] < co[i]) return ig_err(err, -EIO, "fsst stream: offset %zu decreases", i + 1);
    if (co[n] > h->data_avail)
        return ig_err(err, -EIO, "fsst stream: %llu coded bytes, only %zu present",
                      (unsigned long long)co[n], h->data_avail);
    return 0;
}

static int fsst_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                       uint64_t *offs_out, struct ig_buf *data_out, size_t *used,
                       struct enc_dctx *c)
{
    (void)absent;
    const struct ig_fsst *t = c->fsst;
    struct fsst_hdr h = {0};
    int rc = fsst_header(p, len, n, t, &h, c->err);
    if (rc) return rc;
    uint64_t *co = malloc((n + 1) * sizeof *co);
    if (!co) return enc_nomem(c->err);
    rc = fsst_index_read(p, n, &h, co, c->err);
    /* the raw lengths first (and every code checked), then one pass of copies */
    uint64_t total = 0;
    offs_out[0] = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        uint64_t r = 0;
        rc = item_raw_len(t, p + h.data_at + co[i], (size_t)(co[i + 1] - co[i]), &r, i, c->err);
        total += r;
        offs_out[i + 1] = total;
        if (!rc && total > ENC_MAX_DECODED)
            rc = ig_err(c->err, -EIO, "fsst stream: too large decoded");
    }
    ig_buf_reset(data_out);
    uint8_t *dst = rc ? NULL : ig_buf_extend(data_out, (size_t)total + 8);
    if (!rc && !dst) rc = enc_nomem(c->err);
    for (size_t i = 0; !rc && i < n; i++)
        item_decode(t, p + h.data_at + co[i], (size_t)(co[i + 1] - co[i]), dst + offs_out[i]);
    if (!rc) {
        data_out->len = (size_t)total;
        *used = h.data_at + (size_t)co[n];
    }
    free(co);
    return rc;
}

/* One item, decoded into this thread's buffer (valid until its next get). */
static int fsst_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                    const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    (void)absent;
    static _Thread_local uint8_t item[(1 << 16) + 8];
    static _Thread_local struct ig_buf big = IG_BUF_INIT;
    const struct ig_fsst *t = c->fsst;
    struct fsst_hdr h = {0};
    int rc = fsst_header(p, len, n, t, &h, c->err);
    if (rc) return rc;
    size_t ib = h.data_at - h.index_at;
    uint64_t a = ig_bitpack_get(p + h.index_at, ib, i, h.wo);
    uint64_t b = ig_bitpack_get(p + h.index_at, ib, i + 1, h.wo);
    if (a > b || b > h.data_avail)
        return ig_err(c->err, -EIO, "fsst stream: item %zu has invalid offsets", i);
    uint64_t raw = 0;
    rc = item_raw_len(t, p + h.data_at + a, (size_t)(b - a), &raw, i, c->err);
    if (rc) return rc;
    uint8_t *dst = item;
    if (raw + 8 > sizeof item) {
        ig_buf_reset(&big);
        if (!(dst = ig_buf_extend(&big, (size_t)raw + 8))) return enc_nomem(c->err);
    }
    item_decode(t, p + h.data_at + a, (size_t)(b - a), dst);
    *val = dst;
    *vlen = (size_t)raw;
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* One pass: every item's codes into a scratch buffer (at most two bytes per
 * byte), their offsets beside; then the stream. */
static int fsst_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                       struct ig_buf *out)
{
    const struct ig_fsst *t = c->fsst;
    if (!t || !t->ix) return ig_err(c->err, -EINVAL, "fsst needs its chunk's symbol table");
    uint64_t raw = offs[n] - offs[0];
    uint64_t *co = malloc((n + 1) * sizeof *co);
    uint8_t *codes = malloc((size_t)(2 * raw + 1));
    int rc = co && codes ? 0 : enc_nomem(c->err);
    if (!rc) {
        if (raw)
            fsst_code_items(t, offs, data, n, codes, co);
        else /* all empty: data may be NULL */
            memset(co, 0, (n + 1) * sizeof *co);
        unsigned wo = ig_bit_width(co[n]);
        size_t ib = ig_bitpack_size(n + 1, wo);
        uint8_t *d = ig_buf_extend(out, 2 + ib + (size_t)co[n]);
        if (!d) {
            rc = enc_nomem(c->err);
        } else {
            d[0] = IG_ENC_FSST;
            d[1] = (uint8_t)wo;
            ig_bitpack_pack(d + 2, co, n + 1, wo);
            memcpy(d + 2 + ib, codes, (size_t)co[n]);
        }
    }
    free(co);
    free(codes);
    return rc;
}

/* ---- erasing and checking ----------------------------------------------- */

static int fsst_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                      const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    (void)absent;
    (void)may_drop;
    struct fsst_hdr h = {0};
    int rc = fsst_header(p, len, n, c->fsst, &h, c->err);
    if (rc) return rc;
    uint64_t *co = malloc((n + 1) * sizeof *co), *o2 = malloc((n + 1) * sizeof *o2);
    rc = co && o2 ? fsst_index_read(p, n, &h, co, c->err) : enc_nomem(c->err);
    if (!rc) {
        enc_erase_shift(n, co, kill, o2);
        unsigned wo = ig_bit_width(o2[n]);
        size_t ib = ig_bitpack_size(n + 1, wo);
        uint8_t *d = ig_buf_extend(out, 2 + ib + (size_t)o2[n]);
        if (!d) {
            rc = enc_nomem(c->err);
        } else {
            d[0] = IG_ENC_FSST;
            d[1] = (uint8_t)wo;
            ig_bitpack_pack(d + 2, o2, n + 1, wo);
            uint8_t *data = d + 2 + ib;
            memset(data, 0, (size_t)o2[0]);
            for (size_t i = 0; i < n; i++)
                if (o2[i + 1] > o2[i])
                    memcpy(data + o2[i], p + h.data_at + co[i], (size_t)(co[i + 1] - co[i]));
        }
    }
    free(co);
    free(o2);
    return rc;
}

static int fsst_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                      const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    struct fsst_hdr h = {0};
    int rc = fsst_header(p, len, n, c->fsst, &h, c->err);
    if (rc) return rc;
    uint64_t *co = malloc((n + 1) * sizeof *co);
    rc = co ? fsst_index_read(p, n, &h, co, c->err) : enc_nomem(c->err);
    for (size_t i = 0; !rc && i < n; i++) {
        uint64_t raw;
        rc = item_raw_len(c->fsst, p + h.data_at + co[i], (size_t)(co[i + 1] - co[i]), &raw, i,
                          c->err);
        if (!rc && bm_get(erased, i) && co[i + 1] > co[i])
            rc = ig_err(c->err, -EIO, "fsst stream: erased item %zu still holds %llu coded bytes",
                        i, (unsigned long long)(co[i + 1] - co[i]));
    }
    for (uint64_t j = 0; !rc && j < co[0]; j++)
        if (p[h.data_at + j])
            rc = ig_err(c->err, -EIO, "fsst stream: byte %llu before the first item is not zero",
                        (unsigned long long)j);
    if (!rc && h.wo != ig_bit_width(co[n]))
        rc = ig_err(c->err, -EIO, "fsst stream: offset width %u is not minimal", h.wo);
    if (!rc) *used = h.data_at + (size_t)co[n];
    free(co);
    return rc;
}

/* Add every code's use in an fsst stream to counts (256 entries). */
int enc_fsst_uses(const uint8_t *p, size_t len, size_t n, const struct ig_fsst *t, uint64_t *counts,
                  struct ig_error *err)
{
    struct fsst_hdr h = {0};
    int rc = fsst_header(p, len, n, t, &h, err);
    if (rc) return rc;
    size_t ib = h.data_at - h.index_at;
    uint64_t a = ig_bitpack_get(p + h.index_at, ib, 0, h.wo);
    uint64_t b = ig_bitpack_get(p + h.index_at, ib, n, h.wo);
    if (a > b || b > h.data_avail) return ig_err(err, -EIO, "fsst stream: invalid offsets");
    const uint8_t *codes = p + h.data_at;
    for (uint64_t i = a; i < b; i++) {
        if (codes[i] == FSST_ESC) {
            i++; /* the literal is no code; items never end in an escape (checked on read) */
            continue;
        }
        counts[codes[i]]++;
    }
    return 0;
}

int ig_fsst_add_uses(struct ig_fsst *t, const uint64_t *counts, int sign)
{
    for (unsigned c = 0; c < 256; c++) {
        if (!counts[c]) continue;
        if (c >= t->k || !t->len[c]) return -EIO;
        if (sign > 0) {
            t->count[c] += counts[c];
        } else {
            if (t->count[c] < counts[c]) return -EIO;
            t->count[c] -= counts[c];
        }
    }
    return 0;
}

uint64_t ig_fsst_count(const struct ig_fsst *t, unsigned code)
{
    return code < t->k ? t->count[code] : 0;
}

const struct bytes_scheme enc_fsst_bytes = {
    .id = IG_ENC_FSST,
    .name = "fsst",
    .encode = fsst_encode,
    .decode = fsst_decode,
    .get = fsst_get,
    .erase = fsst_erase,
    .check = fsst_check,
};
