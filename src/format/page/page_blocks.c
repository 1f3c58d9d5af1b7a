/* page_blocks.c - a page written as blocks (page.h, ig_page_encode_blocks):
 * each block encoded alone (page_encode.c) and appended with its record and
 * slack; with a fit, blocks sized by their stored bytes to lie inside one disk
 * page each, the size guessed from the blocks before and the block encoded
 * again when it missed; and the trials (zstd or not, huffman or zstd, plain or
 * dictionary) that a page's blocks stop repeating once one choice keeps
 * winning. It decides only how rows are cut and which choices are offered;
 * the bytes of a block are page_encode.c's. */
#include "format/page/page.h"
#include "page_int.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Zeroed room after a compressed block: an erase recompresses it to about, not
 * exactly, its size (uncompressed blocks never grow on erase), and tries a
 * harder level before it moves the page. 1/128 of it, at least 32 bytes; a
 * frame against its chunk's dictionary at least 16: such frames are small
 * (1.5 KiB of plain captions, several to a disk page), 32 bytes each were 2.4 %
 * of a table of captions of words, and with 16 a 2 % erase moved no more
 * pages (captions of words, pci.ids, words; the package index one more in
 * 2,705); plain zstd blocks of a few hundred bytes (the wallpaper's pixels)
 * moved four times as many pages with 8 than with 32. */
size_t ig_block_slack(const struct ig_page_built *unit)
{
    if (unit->compression == IG_PC_NONE) return 0;
    size_t n = unit->stored.len / 128, least = unit->compression == IG_PC_ZSTD_DICT ? 16 : 32;
    return n > least ? n : least;
}

/* Room for block k (grow out->blocks). */
static int room_for_block(struct ig_page_built *out, size_t k, struct ig_error *err)
{
    if (k < out->blocks_cap) return 0;
    size_t cap = out->blocks_cap ? (size_t)out->blocks_cap * 2 : 16;
    struct ig_block_built *b = realloc(out->blocks, cap * sizeof *b);
    if (!b) return ig_err(err, -ENOMEM, "out of memory");
    out->blocks = b;
    out->blocks_cap = (uint32_t)cap;
    return 0;
}

/* Append the block just encoded (unit, rows [a, b) of the page) with its slack. */
static int add_block(struct ig_page_built *out, const struct ig_page_built *unit, size_t a,
                     size_t b, struct ig_error *err)
{
    size_t slack = ig_block_slack(unit), at = out->stored.len, k = out->nblocks;
    if (out->stored.len + unit->stored.len + slack > IG_MAX_PAGE_BODY)
        return ig_err(err, -EFBIG, "page of %zu bytes exceeds the 1 GiB limit", out->stored.len);
    int rc = room_for_block(out, k, err);
    if (rc) return rc;
    if (ig_buf_append(&out->stored, unit->stored.data, unit->stored.len) ||
        ig_buf_append_zeros(&out->stored, slack))
        return ig_err(err, -ENOMEM, "out of memory");
    out->blocks[k] = (struct ig_block_built){.offset = (uint32_t)at,
                                             .stored = (uint32_t)unit->stored.len,
                                             .capacity = (uint32_t)(unit->stored.len + slack),
                                             .body_size = unit->body_size,
                                             .first_row = (uint32_t)a,
                                             .row_count = (uint32_t)(b - a),
                                             .entry_count = unit->entry_count,
                                             .value_count = unit->value_count,
                                             .encoding = unit->encoding,
                                             .compression = unit->compression,
                                             .flags = unit->flags,
                                             .checksum = unit->checksum};
    if (k == 0) out->encoding = unit->encoding;
    out->nblocks = (uint32_t)k + 1;
    out->body_size += unit->body_size;
    out->entry_count += unit->entry_count;
    out->value_count += unit->value_count;
    out->text_len += unit->text_len;
    out->values_json_len += unit->values_json_len;
    out->values_json_known = (k == 0 || out->values_json_known) && unit->values_json_known;
    out->flags |= unit->flags;
    if (unit->compression != IG_PC_NONE) out->compression = IG_PC_ZSTD;
    return 0;
}

/* Zeros up to the next grain boundary, as room of the last block (its capacity
 * runs to the next block; readers and erasure see zeroed slack). */
static int pad_to_grain(struct ig_page_built *out, const struct ig_block_fit *fit,
                        struct ig_error *err)
{
    size_t pos = (size_t)((fit->at + out->stored.len) % fit->grain);
    if (pos && ig_buf_append_zeros(&out->stored, fit->grain - pos))
        return ig_err(err, -ENOMEM, "out of memory");
    return 0;
}

/* What a block's stored size is guessed from: its values' plain bytes (a
 * length word each) for bytes leaves, whose rows vary in size, else its rows. */
static double fit_weight(const struct ig_values *v, size_t a, size_t rows)
{
    if (!v->is_bytes || v->levels) return (double)rows;
    return (double)(v->offs[a + rows] - v->offs[a]) + 4.0 * (double)rows;
}

/* The most rows from a (at least 1, at most max) whose weight is within w. */
static size_t fit_rows(const struct ig_values *v, size_t a, size_t max, double w)
{
    size_t lo = 1, hi = max;
    if (fit_weight(v, a, hi) <= w) return hi;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (fit_weight(v, a, mid) <= w)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* What the blocks of a page have shown so far, so that a trial that keeps
 * losing is not made again for every block (a page holds one kind of data):
 * numbers zstd did not shrink by an eighth in two blocks running (random
 * floats, hashes) are not offered to it again but in every eighth block;
 * numbers whose values the full choice left plain in two blocks running
 * (Gaussian floats: no decimal, no alp, no dictionary; 64-bit hashes) are
 * stored plain without weighing the schemes again but in every eighth block,
 * which goes back to the full choice when the values change. Weighing alp on
 * such floats (every exponent tried on a sample, then the whole block split)
 * was half the CPU of adding a vector<float32, 768> column, for blocks that
 * came out plain all the same. Both findings of numbers left to the writer
 * are carried from page to page of a leaf (struct ig_block_fit): a page of
 * 768-float vectors holds a dozen blocks. Strings that
 * went to huffman instead of zstd in two blocks running go straight to
 * huffman while a quick look for repeats (zstd's fastest level, no entropy
 * stage) finds none worth an eighth of the block: the full trial cost a third
 * of an import of captions, for the same bytes, and the look sends a block
 * whose values start repeating back to it. The other way round, strings that
 * zstd kept from huffman in two blocks running (captions sharing words) are
 * not sized for huffman again but in every eighth block, which keeps
 * watching for the values to change (the sizing was a seventh of such an
 * import). For fitted blocks the string counters are carried from page to
 * page of the column (struct ig_block_fit): a page holds only a few of them,
 * and the sizing was still a sixteenth of an import of unique captions. */
struct block_trials {
    const struct ig_page_policy *pol;
    unsigned zstd_misses; /* numbers: blocks running that zstd did not shrink */
    unsigned huff_wins;   /* strings: blocks running that one of huffman and fsst took from zstd */
    uint8_t item_enc;     /* which of the two took the last of them */
    unsigned fsst_losses; /* strings: blocks running that weighed fsst and did not take it */
    unsigned zstd_wins;   /* strings: blocks running that zstd kept from huffman */
    unsigned blocks;      /* blocks encoded so far */
    unsigned dict_losses; /* strings: blocks running whose frame against the chunk's
                             dictionary was tried and not kept */
    unsigned leaf_runs;  /* numbers: blocks running the full choice gave one leaf scheme
                             without a cascade (plain, or expo for float32) */
    uint8_t settled_enc;  /* that scheme */
    unsigned num_blocks;  /* numbers: blocks so far (carried: the recheck's clock) */
    uint64_t settled;     /* numbers: blocks stored by the settled scheme without the full choice */
    struct ig_buf look;   /* the quick look's output */
};

/* Every this many blocks, strings zstd has settled are sized for huffman again. */
#define TRIAL_RECHECK 8

/* zstd's fastest level: matches found at a stride, literals left raw */
#define TRIAL_LOOK_LEVEL (-10)

/* Numbers whose scheme is left to the writer (not a sliding-window
 * candidate, whose page is one unit and weighs its own body). */
static bool trial_numbers(const struct ig_page_policy *pol, const struct ig_values *v)
{
    return pol->encoding == IG_ENC_AUTO && !pol->leaf.slide_ok && !v->is_bytes && v->type != IG_T_BLOB;
}

/* Numbers under compression auto, whatever their scheme: zstd's trial. */
static bool trial_zstd_numbers(const struct ig_page_policy *pol, const struct ig_values *v)
{
    return pol->compression == IG_COMP_AUTO && !v->is_bytes && v->type != IG_T_BLOB;
}

static bool trial_strings(const struct ig_page_policy *pol, const struct ig_values *v)
{
    return pol->encoding == IG_ENC_AUTO && pol->compression == IG_COMP_AUTO && !pol->leaf.levels &&
           v->is_bytes && v->type != IG_T_BLOB;
}

/* Whether the values of rows [first, first + count) repeat enough for zstd's
 * matches to shrink them by an eighth (or the look could not be made). */
static bool trial_repeats(struct block_trials *t, const struct ig_values *v, size_t first, size_t count)
{
    size_t n = (size_t)(v->offs[first + count] - v->offs[first]);
    if (n < IG_ZSTD_MIN_BODY) return true;
    size_t bound = ZSTD_compressBound(n);
    if (ig_buf_reserve(&t->look, bound)) return true;
    size_t z = ig_page_compress(t->look.data, bound, v->data.data + v->offs[first], n, TRIAL_LOOK_LEVEL);
    return ZSTD_isError(z) || z <= n - n / 8;
}

/* The policy for the block of rows [first, first + count). */
static struct ig_page_policy trial_policy(struct block_trials *t, const struct ig_values *v,
                                          size_t first, size_t count)
{
    struct ig_page_policy p = *t->pol;
    /* settled choices are weighed again every TRIAL_RECHECK blocks: numbers
     * by their own clock (carried from page to page), the rest by blocks */
    bool numbers_recheck = t->num_blocks % TRIAL_RECHECK == 0;
    bool recheck = t->blocks % TRIAL_RECHECK == 0;
    if (trial_zstd_numbers(t->pol, v) && t->zstd_misses >= 2 && !numbers_recheck)
        p.compression = IG_COMP_NONE;
    if (trial_numbers(t->pol, v) && t->leaf_runs >= 2 && !numbers_recheck) p.encoding = t->settled_enc;
    /* Strings one item scheme won twice running go straight to it: fsst's
     * (words that repeat) until the next recheck, as zstd's do; huffman's
     * (letters that do not) while the look finds no repeats. The look costs
     * little where there are none, but fsst's values nearly always have
     * some: on captions of words it found them in every block (a tenth of
     * the import at zstd's fastest level), and the full trial it led to
     * chose fsst again (a third of the import). The look knows nothing of a
     * chunk dictionary, against which values that do not repeat among
     * themselves may still compress. */
    if (trial_strings(t->pol, v) && t->huff_wins >= 2 && !t->pol->zdict &&
        (t->item_enc == IG_ENC_FSST ? !recheck : !trial_repeats(t, v, first, count)))
        p.encoding = t->item_enc;
    if (trial_strings(t->pol, v) && t->zstd_wins >= 2 && !recheck) p.zstd_settled = true;
    /* fsst lost twice running (values a dictionary or zstd holds better, or
     * random ones): weighed again every TRIAL_RECHECK blocks only */
    if (t->fsst_losses >= 2 && !recheck) p.fsst_settled = true;
    /* the chunk's dictionary lost twice running (values a block's dictionary
     * or per-item codes hold better): tried again every TRIAL_RECHECK blocks
     * (a frame at its level is most of a block's encode) */
    if (t->dict_losses >= 2 && !recheck) p.zdict = NULL;
    return p;
}

/* What the block encoded under `used` came out as. */
static void trial_seen(struct block_trials *t, const struct ig_values *v,
                       const struct ig_page_policy *used, const struct ig_page_built *unit)
{
    /* zstd tried (compression auto, not settled) on a body it may take */
    if (trial_zstd_numbers(t->pol, v) && used->compression == IG_COMP_AUTO &&
        unit->body_size >= IG_ZSTD_MIN_BODY)
        t->zstd_misses = unit->compression == IG_PC_NONE ? t->zstd_misses + 1 : 0;
    if (trial_numbers(t->pol, v)) {
        if (used->encoding == IG_ENC_AUTO) { /* the full choice was made */
            bool leaf = unit->encoding == IG_ENC_PLAIN || unit->encoding == IG_ENC_EXPO;
            t->leaf_runs = !leaf ? 0 : unit->encoding == t->settled_enc ? t->leaf_runs + 1 : 1;
            if (leaf) t->settled_enc = unit->encoding;
        } else
            t->settled++;
    }
    if (!v->is_bytes && v->type != IG_T_BLOB) t->num_blocks++;
    if (used->zdict) t->dict_losses = unit->compression == IG_PC_ZSTD_DICT ? 0 : t->dict_losses + 1;
    if (trial_strings(t->pol, v) && used->encoding == IG_ENC_AUTO) { /* a trial was made */
        if (unit->fsst_weighed) t->fsst_losses = unit->encoding == IG_ENC_FSST ? 0 : t->fsst_losses + 1;
        /* the same item scheme twice running: one that won a block by a hair
         * must not take the next ones from the other, which may hold them
         * better (random text: huffman's code beats fsst's single bytes) */
        bool item = unit->encoding == IG_ENC_HUFF || unit->encoding == IG_ENC_FSST;
        bool same = item && t->huff_wins && t->item_enc == unit->encoding;
        t->huff_wins = same ? t->huff_wins + 1 : item ? 1 : 0;
        if (item) t->item_enc = unit->encoding;
        bool kept = unit->compression != IG_PC_NONE;
        if (!used->zstd_settled || !kept) t->zstd_wins = kept ? t->zstd_wins + 1 : 0;
    }
    t->blocks++;
}

/* A dictionary of strings is chosen by the bytes it saves before
 * compression, but zstd finds the same repeats in the strings themselves and
 * compresses the dictionary's codes badly: captions sharing words came out
 * 8 % smaller plain in 98 % of the blocks where the dictionary was chosen,
 * while strings of a few hundred values or fewer keep their dictionary. So a
 * fitted block whose dictionary zstd compressed is encoded plain as well, and
 * the smaller kept, until one layout has won twice running; from then on it is
 * weighed again every TRIAL_RECHECK blocks only, and in between a column
 * whose plain bytes keep winning is encoded plain at once (no dictionary
 * statistics). */
static bool weigh_due(const struct ig_block_fit *fit)
{
    return (fit->plain_wins < 2 && fit->dict_wins < 2) || fit->blocks % TRIAL_RECHECK == 0;
}

static int weigh_layouts(const struct ig_page_policy *tried, struct ig_values *v, size_t first,
                         size_t count, struct ig_block_fit *fit, struct ig_page_scratch *s,
                         struct ig_page_built *unit, struct ig_page_built *alt, struct ig_error *err)
{
    if (unit->encoding != IG_ENC_DICT || unit->compression == IG_PC_NONE || !weigh_due(fit)) return 0;
    struct ig_page_policy plain = *tried;
    plain.encoding = IG_ENC_PLAIN;
    plain.zstd_settled = true;
    int rc = ig_page_encode(&plain, v, first, count, s, alt, err);
    if (rc) return rc;
    if (alt->stored.len + ig_block_slack(alt) < unit->stored.len + ig_block_slack(unit)) {
        struct ig_page_built t = *unit;
        *unit = *alt;
        *alt = t;
        fit->plain_wins++;
        fit->dict_wins = 0;
    } else {
        fit->dict_wins++;
        fit->plain_wins = 0;
    }
    return 0;
}

/* The guess of a block's stored size (struct ig_block_fit): a block given
 * less than this much of a grain teaches the overhead, a larger one the ratio.
 * A page's first block gets what the page before left of its last grain (a
 * quarter to three quarters of it, commonly): guessed by the ratio of the full
 * blocks alone, 48 % of them missed their room and were encoded again, and
 * the ratio they taught then made the next block too small (captions: a
 * sixth of all blocks encoded twice). */
#define FIT_SMALL_ROOM(grain) ((grain) * 3 / 4)

/* The plain bytes a block of stored size `target` holds, by the guess with
 * this ratio (0 when the overhead alone fills it: one row is still taken). */
static double fit_budget(const struct ig_block_fit *fit, double ratio, double target)
{
    double w = (target - fit->overhead) / ratio;
    return w > 0 ? w : 0;
}

/* The ratio that a block of plain bytes w stored in `size` shows under the
 * current overhead; the plain ratio when the overhead would take most of it
 * (a block of a few large values). */
static double block_ratio(const struct ig_block_fit *fit, double size, double w)
{
    return size - fit->overhead > size / 2 ? (size - fit->overhead) / w : size / w;
}

/* Learn from a block (not the page's last: see encode_fitted) given `room`. */
static void fit_learn(struct ig_block_fit *fit, size_t room, double size, double w)
{
    if (fit->ratio > 0 && room < FIT_SMALL_ROOM(fit->grain)) {
        double o = size - fit->ratio * w;
        fit->overhead = o < 0 ? 0 : o > (double)room / 2 ? (double)room / 2 : o;
        return;
    }
    fit->ratio = block_ratio(fit, size, w);
}

/* How far below its room a block's first guess aims (struct ig_block_fit,
 * margin): at the whole room at first, FIT_MARGIN_UP more after a guess that
 * missed, a twentieth of that less after one that fit, so that about one
 * guess in twenty-one misses and is encoded again. A fixed 1.5 % (the spread
 * of captions' blocks around the guess) left 2.8 % of a part of unique
 * captions and 3.8 % of the package index's as zeros after blocks whose size
 * hardly varies (learned: 0.9 % and 2.8 %); values whose blocks vary more
 * (short captions of a few common words, in the small rooms pages start in)
 * keep a margin. With a tenth instead of a twentieth those missed one guess
 * in nine: 1.12 encodes a block where 1.08 had been. */
#define FIT_MARGIN_UP 0.005
#define FIT_MARGIN_MOST 0.03
#define FIT_RETRY_MARGIN 0.015

static void fit_margin(struct ig_block_fit *fit, bool missed)
{
    double m = fit->margin + (missed ? FIT_MARGIN_UP : -FIT_MARGIN_UP / 20);
    fit->margin = m < 0 ? 0 : m > FIT_MARGIN_MOST ? FIT_MARGIN_MOST : m;
}

/* The least room a block is started in, as a share of a grain (a frame
 * against the chunk's dictionary: a sixteenth); less is left as zeros. An
 * eighth, not a quarter: a block in 512 bytes to 1 KiB (a page's last rows,
 * or the next page's first) costs its record and its code tables, and still
 * stores less than the zeros it replaces: the package index 0.995x the
 * bytes, dpkg's file lists 0.988x, pci.ids 0.981x, the words list 0.991x,
 * captions 0.999x. A sixteenth made mixed captions 1.026x (items of 300
 * bytes do not fit such rooms: tried, missed, and the zeros left anyway). */
#define FIT_LEAST_ROOM_DIV 8

/* Blocks framed against the chunk's zstd dictionary hold at most
 * IG_ZDICT_FRAME_PLAIN plain bytes (codec.h), several to a grain. A row read
 * decompresses its block's whole frame, and a frame reaching into the
 * dictionary holds several times the plain bytes of one without: frames
 * filling a 4 KiB grain (~10 KiB of captions of words) made a take of 1,000
 * rows 3.3x slower than huffman's one item, and an erase of 2 % of the rows
 * recompressed nearly every block. Measured on captions of words (200,000
 * rows, against huffman blocks without a dictionary): 2 KiB takes 1.05x the
 * time, 0.73x the bytes, erase writes 0.81x; 1.5 KiB 0.89x, 0.75x, 0.66x;
 * 1 KiB 0.76x, 0.82x, 0.56x (each block's record, slack and frame header
 * weigh more). The writer keeps a dictionary only where it pays in such
 * frames (ig_zdict_gain). Where the chunk's blocks would be whole-block zstd
 * without it (pol->zdict_grain), a row read already decompresses a whole
 * block of a grain, so those framed against it fill a grain too. */
/* Whether the page's blocks are cut small for the chunk's dictionary: it has
 * one, its blocks would otherwise be item-decodable, and they still try it
 * (block_trials: it lost twice running). */
static bool dict_small(const struct ig_page_policy *pol, const struct block_trials *t)
{
    return pol->zdict && !pol->zdict_grain && t->dict_losses < 2;
}

/* Rows [0, count) as blocks that each fit inside one grain (struct
 * ig_block_fit in page.h), the last one taking up to fit->extend rows more
 * to fill its room. A block's rows are guessed from the blocks before
 * (fit->ratio and fit->overhead, carried from page to page), the block is
 * encoded, and cut down (or, once, grown) and encoded again when it missed its
 * room; the fourth try stands. */
static int encode_fitted(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                         size_t count, size_t guess_rows, struct ig_block_fit *fit,
                         struct ig_page_scratch *s, struct ig_page_built *out,
                         struct ig_page_built *unit, struct ig_page_built *alt,
                         struct block_trials *trials, struct ig_error *err)
{
    const size_t grain = fit->grain, avail = count + fit->extend;
    const double page_weight = fit_weight(v, first, count);
    for (size_t a = 0; a < count;) {
        size_t room = grain - (size_t)((fit->at + out->stored.len) % grain), left = avail - a;
        /* rows past the cut only as far as a block holds no more plain bytes
         * than the page's cut does: a row read decompresses its block whole */
        if (left > count - a) {
            size_t reach = fit_rows(v, first + a, left, page_weight);
            left = reach > count - a ? reach : count - a;
        }
        /* blocks framed against the chunk's dictionary hold few plain bytes */
        bool small = dict_small(pol, trials);
        size_t most = small ? fit_rows(v, first + a, left, (double)IG_ZDICT_FRAME_PLAIN) : left;
        /* the share of the room aimed at, below it by what the size varies
         * around the guess, more in a smaller room (as one over its square
         * root): by the column's learned margin for the guess (fit_margin), by
         * FIT_RETRY_MARGIN for a block encoded again, whose own ratio is known */
        double scale = sqrt((double)grain / (double)room);
        double aim = 1.0 - FIT_RETRY_MARGIN * scale, aim_guess = 1.0 - fit->margin * scale;
        size_t rows = guess_rows && guess_rows < most ? guess_rows : most;
        bool guessed = fit->ratio > 0;
        if (guessed) rows = fit_rows(v, first + a, most, fit_budget(fit, fit->ratio, (double)room * aim_guess));
        size_t size = 0;
        bool grown = false;
        struct ig_page_policy first_try = trial_policy(trials, v, first + a, rows);
        if (trial_strings(pol, v) && first_try.encoding == IG_ENC_AUTO && fit->plain_wins >= 2 &&
            !weigh_due(fit))
            first_try.encoding = IG_ENC_PLAIN; /* plain keeps winning under zstd */
        struct ig_page_policy again = first_try;
        for (int tries = 0;; tries++) {
            int rc = ig_page_encode(tries ? &again : &first_try, v, first + a, rows, s, unit, err);
            if (rc) return rc;
            fit->encodes++;
            if (!tries) trial_seen(trials, v, &first_try, unit);
            if (!tries && trial_strings(pol, v) && first_try.encoding == IG_ENC_AUTO) {
                rc = weigh_layouts(&first_try, v, first + a, rows, fit, s, unit, alt, err);
                if (rc) return rc;
            }
            /* a retry keeps the first try's choices: huffman or zstd (no trial
             * of the other again), and a string block's plain or dictionary
             * layout (no statistics again; 0.98x the time of a caption import,
             * tables 0.3 % smaller) */
            if (!tries && (unit->encoding == IG_ENC_HUFF || unit->encoding == IG_ENC_FSST) &&
                unit->compression == IG_PC_NONE && pol->compression == IG_COMP_AUTO)
                again.encoding = unit->encoding;
            if (!tries && unit->compression != IG_PC_NONE) again.zstd_settled = true;
            if (!tries && pol->encoding == IG_ENC_AUTO && v->is_bytes &&
                (unit->encoding == IG_ENC_PLAIN || unit->encoding == IG_ENC_DICT))
                again.encoding = unit->encoding;
            size = unit->stored.len + ig_block_slack(unit);
            double w = fit_weight(v, first + a, rows);
            /* a block of the rows left over (the page's last, where it may
             * not take more) compresses worse than a full one: guessing the
             * next page's first block from it made that block too small, and
             * a second try grew a quarter of all blocks (captions); so it
             * does not teach the guess */
            if (rows < left || fit->ratio <= 0) fit_learn(fit, room, (double)size, w);
            if (!tries && guessed) fit_margin(fit, size > room && rows > 1);
            if (tries == 3) break;
            /* this block's own values, under the overhead learned */
            double own = block_ratio(fit, (double)size, w);
            size_t best = fit_rows(v, first + a, most, fit_budget(fit, own, (double)room * aim));
            if (size > room && rows > 1) { /* cut down to what the room holds */
                rows = best < rows ? best : rows - 1;
                continue;
            }
            if (size < room * 15 / 16 && !grown && best > rows) { /* the guess was short */
                rows = best;
                grown = true;
                continue;
            }
            break;
        }
        /* too big for what is left of this grain but not for a whole one: start
         * it on the next boundary (the zeros join the previous block's room,
         * or, before a page's first block, lie in the page's extent ahead of
         * it: a row read of it would read two disk pages) */
        if (size > room && size <= grain) {
            int rc = pad_to_grain(out, fit, err);
            if (rc) return rc;
        }
        int rc = add_block(out, unit, a, a + rows, err);
        if (rc) return rc;
        a += rows;
        fit->blocks++;
        /* too little left of the grain for a useful block: skip to the next */
        size_t rest = grain - (size_t)((fit->at + out->stored.len) % grain);
        if (rest < grain / (small ? 16 : FIT_LEAST_ROOM_DIV) && rest != grain) {
            rc = pad_to_grain(out, fit, err);
            if (rc) return rc;
        }
    }
    return 0;
}

int ig_page_encode_blocks(const struct ig_page_policy *pol, struct ig_values *v, size_t first,
                          size_t count, const size_t *cuts, size_t ncuts,
                          struct ig_block_fit *fit, struct ig_page_scratch *s,
                          struct ig_page_built *out, struct ig_error *err)
{
    size_t one[2] = {0, count};
    if (!cuts || ncuts == 0) {
        cuts = one;
        ncuts = 1;
    }
    ig_buf_reset(&out->stored);
    out->nblocks = 0;
    out->body_size = out->entry_count = out->value_count = 0;
    out->text_len = 0;
    out->values_json_len = 0;
    out->values_json_known = false;
    out->compression = IG_PC_NONE;
    out->flags = 0;
    struct ig_page_built unit = {0}, alt = {0};
    struct block_trials trials = {.pol = pol};
    /* numbers left to the writer carry their findings from page to page; a
     * forced scheme (split pages of 1 MiB, one block each) tries zstd on
     * every page */
    if (fit && pol->encoding == IG_ENC_AUTO) {
        trials.leaf_runs = fit->leaf_runs;
        trials.settled_enc = fit->settled_enc;
        trials.zstd_misses = fit->zstd_misses;
        trials.num_blocks = fit->num_blocks;
    }
    int rc = 0;
    if (fit && fit->grain) {
        trials.zstd_wins = fit->zstd_wins;
        trials.huff_wins = fit->huff_wins;
        trials.item_enc = fit->item_enc;
        trials.blocks = fit->trial_blocks;
        trials.dict_losses = fit->dict_losses;
        rc = encode_fitted(pol, v, first, count, cuts[1] - cuts[0], fit, s, out, &unit, &alt, &trials, err);
        fit->zstd_wins = trials.zstd_wins;
        fit->huff_wins = trials.huff_wins;
        fit->item_enc = trials.item_enc;
        fit->trial_blocks = trials.blocks;
        fit->dict_losses = trials.dict_losses;
        ncuts = 0; /* done */
    }
    for (size_t k = 0; k < ncuts && !rc; k++) {
        size_t a = cuts[k], b = cuts[k + 1];
        if (b <= a || b > count) {
            rc = ig_err(err, -EINVAL, "bad block cuts");
            break;
        }
        struct ig_page_policy cur = trial_policy(&trials, v, first + a, b - a);
        rc = ig_page_encode(&cur, v, first + a, b - a, s, &unit, err);
        if (!rc) rc = add_block(out, &unit, a, b, err);
        trial_seen(&trials, v, &cur, &unit);
    }
    if (fit && pol->encoding == IG_ENC_AUTO) {
        fit->leaf_runs = trials.leaf_runs;
        fit->settled_enc = trials.settled_enc;
        fit->zstd_misses = trials.zstd_misses;
        fit->num_blocks = trials.num_blocks;
        fit->settled += trials.settled;
    }
    ig_page_built_free(&unit);
    ig_page_built_free(&alt);
    ig_buf_free(&trials.look);
    return rc;
}
