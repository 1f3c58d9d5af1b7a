/* joint_levels.c - levels as one rANS-coded stream (joint_levels.h).
 *
 * A static code with frequencies in 256ths and states kept in [2^16, 2^24),
 * renormalised a byte at a time: the table costs two bytes a symbol and a
 * state three, and a block's levels decode with one table lookup, one
 * multiply and at most one byte read an entry, two or four states in turn.
 * An adaptive binary coder needs no table and comes out about as small on
 * blocks of a few hundred entries, but decodes bit by bit, several times
 * slower, and a row read decodes a block of every leaf of its column. */
#include "format/page/joint_levels.h"
#include "util/error.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define STATE_LOW (1u << 16) /* the state's lower bound; the encoder starts here */
#define PROB_BITS 8          /* frequencies are in 256ths */
#define PROB_TOTAL (1u << PROB_BITS)
#define STATE_BYTES 3

unsigned ig_joint_levels_alphabet(uint8_t max_rep, uint8_t max_def)
{
    unsigned a = (max_rep + 1u) * (max_def + 1u);
    return a <= 255 ? a : 0;
}

/* Frequencies in 256ths for counts of n entries over k symbols: each at least
 * 1, the rest shared by count, what rounding leaves to the most frequent. */
static void quantise(const uint32_t *count, const uint8_t *syms, unsigned k, size_t n, uint16_t *freq)
{
    unsigned sum = 0, top = 0;
    for (unsigned i = 0; i < k; i++) {
        uint32_t c = count[syms[i]];
        freq[i] = (uint16_t)(1 + (uint64_t)c * (PROB_TOTAL - k) / n);
        sum += freq[i];
        if (c > count[syms[top]]) top = i;
    }
    freq[top] = (uint16_t)(freq[top] + (PROB_TOTAL - sum)); /* sum <= 256: the shares round down */
}

/* States coded in turn: entry i goes with state i mod lanes. One state's
 * decode is a chain (table, multiply, renormalise) of a few ns an entry; two
 * or four run side by side in the CPU, for 3 bytes of state each. */
static unsigned lanes_for(size_t n)
{
    return n >= 1024 ? 4 : n >= 128 ? 2 : 1;
}

int ig_joint_levels_encode(const uint8_t *reps, const uint8_t *defs, size_t n, uint8_t max_rep,
                           uint8_t max_def, struct ig_buf *out, struct ig_error *err)
{
    unsigned d = max_def + 1u, a = (max_rep + 1u) * d;
    if (!ig_joint_levels_alphabet(max_rep, max_def))
        return ig_err(err, -EINVAL, "joint level stream of %u symbols (at most 255)", a);
    if (!max_rep) reps = NULL;
    /* four histograms in turn: levels repeat, and one count bumped entry
     * after entry waits on its own store each time */
    uint32_t count4[4][256], count[256];
    for (unsigned j = 0; j < 4; j++)
        memset(count4[j], 0, a * sizeof count4[j][0]);
    for (size_t i = 0; i < n; i++)
        count4[i % 4][(reps ? reps[i] * d : 0) + defs[i]]++;
    uint8_t syms[256];
    unsigned k = 0;
    for (unsigned s = 0; s < a; s++) {
        count[s] = count4[0][s] + count4[1][s] + count4[2][s] + count4[3][s];
        if (count[s]) syms[k++] = (uint8_t)s;
    }
    if (ig_buf_append_byte(out, (uint8_t)k) || ig_buf_append(out, syms, k)) goto nomem;
    if (k <= 1) return 0;
    uint16_t freq[256];
    quantise(count, syms, k, n, freq);
    uint16_t f_of[256], cum_of[256];
    uint64_t rcp_of[256]; /* x / f as (x * rcp) >> 40: exact for x < 2^24, f <= 256 */
    unsigned cum = 0;
    for (unsigned i = 0; i < k; i++) {
        if (ig_buf_append_byte(out, (uint8_t)(freq[i] - 1))) goto nomem;
        f_of[syms[i]] = freq[i];
        rcp_of[syms[i]] = ((uint64_t)1 << 40) / freq[i] + 1;
        cum_of[syms[i]] = (uint16_t)cum;
        cum += freq[i];
    }
    /* rANS codes backwards: bytes come out in reverse of the decoder's reads,
     * at most one an entry (a frequency of at least 1 in 256 moves a state
     * by at most 8 bits) */
    unsigned w = lanes_for(n);
    size_t at = out->len + STATE_BYTES * w;
    if (ig_buf_reserve(out, STATE_BYTES * w + n)) goto nomem;
    uint8_t *rev = out->data + at;
    size_t m = 0;
    uint32_t x[4] = {STATE_LOW, STATE_LOW, STATE_LOW, STATE_LOW};
    for (size_t i = n; i-- > 0;) {
        unsigned s = (reps ? reps[i] * d : 0) + defs[i];
        uint32_t f = f_of[s], *xs = &x[i % w];
        bool out_byte = *xs >= f << 16; /* branch-free: which way is as good as random */
        rev[m] = (uint8_t)*xs;           /* m < n: at most one byte an entry before this one */
        m += out_byte;
        *xs = out_byte ? *xs >> 8 : *xs;
        uint32_t q = (uint32_t)((*xs * rcp_of[s]) >> 40);
        *xs = (q << PROB_BITS) + (*xs - q * f) + cum_of[s];
    }
    for (size_t i = 0; i < m / 2; i++) { /* into reading order */
        uint8_t t = rev[i];
        rev[i] = rev[m - 1 - i];
        rev[m - 1 - i] = t;
    }
    for (unsigned j = 0; j < w; j++) {
        uint8_t *st = out->data + out->len + STATE_BYTES * j;
        st[0] = (uint8_t)x[j];
        st[1] = (uint8_t)(x[j] >> 8);
        st[2] = (uint8_t)(x[j] >> 16);
    }
    out->len = at + m;
    return 0;
nomem:
    return ig_err(err, -ENOMEM, "out of memory");
}

/* What decoding needs of a slot (x mod 256): its symbol's frequency (bits
 * 0-8), slot - cum (bits 9-16), the symbol's index in the table (17-24) and
 * its levels (rep 32-39, def 40-47), so that a step is one load, one multiply
 * and one add, and its entry's levels come with it. */
struct decoder {
    uint64_t slot[PROB_TOTAL];
    uint8_t seen[256];
    const uint8_t *p;
    size_t pos, len;
    bool short_read;
};

/* One entry from state *x: its symbol's index, the state renormalised from
 * the stream. Unchecked (the caller knows a byte is there) the renormalising
 * is a branch: branch-free, every state's next byte would wait on the byte
 * position the others moved, one chain through all of them (3.3 ns an entry
 * against 2.8 on lists of lists, four states). Checked, a byte past the end
 * reads 0 and marks the stream short. */
static inline __attribute__((always_inline)) uint64_t step(struct decoder *dc, uint32_t *x, bool checked)
{
    uint64_t e = dc->slot[*x & (PROB_TOTAL - 1)];
    uint32_t y = ((uint32_t)e & 511) * (*x >> PROB_BITS) + (((uint32_t)e >> 9) & 255);
    if (!checked) {
        if (y < STATE_LOW) y = y << 8 | dc->p[dc->pos++];
        *x = y;
        return e;
    }
    bool need = y < STATE_LOW, have = dc->pos < dc->len;
    uint32_t b = have ? dc->p[dc->pos] : 0;
    dc->short_read |= need & !have;
    *x = need ? y << 8 | b : y;
    dc->pos += need & have; /* never past len */
    return e;
}

/* Entry i, coded with state x. */
static inline __attribute__((always_inline)) uint64_t put(struct decoder *dc, uint32_t *x, bool checked,
                                                          size_t i, uint8_t *reps, uint8_t *defs)
{
    uint64_t e = step(dc, x, checked);
    dc->seen[(e >> 17) & 255] = 1;
    if (reps) reps[i] = (uint8_t)(e >> 32);
    defs[i] = (uint8_t)(e >> 40);
    return e;
}

/* n entries with w states in turn (w a constant where inlined): w entries
 * at a time unchecked while w bytes are left (a step reads at most one).
 * With `stop` (a constant), it returns after the group of w in which the
 * entries seen begin more than `rows` rows: the first `rows` rows are then
 * whole (a row ends where the next begins). Returns the entries decoded. */
static inline __attribute__((always_inline)) size_t run(struct decoder *dc, uint32_t *x, unsigned w,
                                                        size_t n, uint8_t *reps, uint8_t *defs,
                                                        bool stop, size_t rows)
{
    size_t i = 0, begun = 0;
    for (; i + w <= n; i += w) {
        if (stop && begun > rows) return i;
        bool checked = dc->len - dc->pos < w;
        for (unsigned j = 0; j < w; j++) {
            uint64_t e = checked ? put(dc, &x[j], true, i + j, reps, defs)
                                 : put(dc, &x[j], false, i + j, reps, defs);
            if (stop) begun += ((e >> 32) & 255) == 0;
        }
    }
    if (stop && begun > rows) return i;
    for (unsigned j = 0; i < n; i++, j++)
        put(dc, &x[j], true, i, reps, defs);
    return n;
}

int ig_joint_levels_decode(const uint8_t *p, size_t len, size_t n, uint8_t max_rep, uint8_t max_def,
                           uint8_t *reps, uint8_t *defs, struct ig_error *err)
{
    size_t decoded;
    return ig_joint_levels_decode_rows(p, len, n, max_rep, max_def, SIZE_MAX, reps, defs, &decoded, err);
}

int ig_joint_levels_decode_rows(const uint8_t *p, size_t len, size_t n, uint8_t max_rep, uint8_t max_def,
                                size_t rows, uint8_t *reps, uint8_t *defs, size_t *decoded,
                                struct ig_error *err)
{
    *decoded = 0;
    unsigned a = ig_joint_levels_alphabet(max_rep, max_def), d = max_def + 1u;
    if (!a) return ig_err(err, -EIO, "joint level stream in a leaf of %u levels", (max_rep + 1u) * d);
    if (len < 1) return ig_err(err, -EIO, "joint level stream of 0 bytes");
    unsigned k = p[0];
    if ((k == 0) != (n == 0) || k > a || len < 1 + (size_t)k)
        return ig_err(err, -EIO, "joint level stream of %u symbols for %zu entries", k, n);
    if (n == 0) return len == 1 ? 0 : ig_err(err, -EIO, "joint level stream of no entries holds %zu bytes", len);
    if (!max_rep) reps = NULL;
    const uint8_t *syms = p + 1;
    for (unsigned i = 0; i < k; i++)
        if (syms[i] >= a || (i && syms[i] <= syms[i - 1]))
            return ig_err(err, -EIO, "joint level stream: symbol %u out of order or above %u", syms[i], a - 1);
    if (k == 1) {
        if (len != 2) return ig_err(err, -EIO, "joint level stream of one symbol holds %zu bytes", len);
        if (reps) memset(reps, syms[0] / d, n);
        memset(defs, syms[0] % d, n);
        *decoded = n;
        return 0;
    }
    unsigned w = lanes_for(n);
    struct decoder dc; /* its tables are filled below, as far as the symbols go: no zeroing */
    dc.p = p;
    dc.len = len;
    dc.pos = 1 + 2 * (size_t)k + STATE_BYTES * w;
    dc.short_read = false;
    if (len < dc.pos) return ig_err(err, -EIO, "joint level stream past its end");
    unsigned total = 0;
    for (unsigned i = 0; i < k; i++) {
        unsigned f = p[1 + k + i] + 1u;
        if (total + f > PROB_TOTAL) break;
        uint64_t levels = (uint64_t)(syms[i] / d) << 32 | (uint64_t)(syms[i] % d) << 40;
        for (unsigned slot = total; slot < total + f; slot++)
            dc.slot[slot] = f | (slot - total) << 9 | i << 17 | levels;
        dc.seen[i] = 0;
        total += f;
    }
    if (total != PROB_TOTAL) return ig_err(err, -EIO, "joint level stream: frequencies do not sum to 256");
    uint32_t x[4];
    for (unsigned j = 0; j < w; j++) {
        const uint8_t *sp = p + 1 + 2 * k + STATE_BYTES * j;
        x[j] = sp[0] | (uint32_t)sp[1] << 8 | (uint32_t)sp[2] << 16;
        if (x[j] < STATE_LOW) return ig_err(err, -EIO, "joint level stream: state %u below 2^16", j);
    }
    /* stopping early (rows < n), a row's end is where the next row begins;
     * without reps (a struct's leaf) every entry begins one */
    size_t entries = n;
    bool stop = rows < entries && reps;
    if (rows < entries && !reps) n = rows + 1;
    size_t got = w == 4 ? (stop ? run(&dc, x, 4, n, reps, defs, true, rows) : run(&dc, x, 4, n, reps, defs, false, 0))
                 : w == 2 ? (stop ? run(&dc, x, 2, n, reps, defs, true, rows) : run(&dc, x, 2, n, reps, defs, false, 0))
                          : (stop ? run(&dc, x, 1, n, reps, defs, true, rows) : run(&dc, x, 1, n, reps, defs, false, 0));
    if (dc.short_read) return ig_err(err, -EIO, "joint level stream ends before its %zu entries", entries);
    *decoded = got;
    if (got < entries) return 0; /* the stream's end unchecked: the block's checksum stands for it */
    for (unsigned j = 0; j < w; j++)
        if (x[j] != STATE_LOW)
            return ig_err(err, -EIO, "joint level stream: state %u does not end where coding began", j);
    if (dc.pos != len) return ig_err(err, -EIO, "joint level stream: %zu bytes after its entries", len - dc.pos);
    unsigned used = 0;
    for (unsigned i = 0; i < k; i++)
        used += dc.seen[i];
    if (used != k) return ig_err(err, -EIO, "joint level stream lists a symbol no entry has");
    return 0;
}
