/* joint_levels.h - a nested leaf's repetition and definition levels as one
 * entropy-coded stream (format 19, page body flag IG_BODY_JOINT).
 *
 * Each entry's levels are one symbol, rep * (max_def + 1) + def, and a block's
 * symbols are coded with a static rANS code whose frequencies (in 256ths) the
 * stream carries: the levels of a struct's fields or of a list's items take
 * about their order-0 entropy (a NULL struct in 30 rows costs a fifth of a bit
 * an entry, where bit-packing spends two). Layout (docs/FORMAT.md, "Page body"):
 *
 *     u8 k                          distinct symbols, 1..alphabet
 *     k x u8 symbols, ascending     each below the alphabet
 *     if k > 1:
 *       k x u8 frequency - 1        their sum is 256
 *       w x 3 bytes: final states   little-endian, each in [2^16, 2^24); w = 1,
 *                                   2 from 128 entries, 4 from 1,024: entry i
 *                                   is coded with state i mod w
 *       the renormalisation bytes   in the order the decoder reads them
 *
 * With k = 1 every entry is that symbol and nothing follows. The decoder starts
 * from the stored states and must end with each at 2^16 having read every byte
 * and met every listed symbol: anything else is EIO, so a stream holds only
 * what its entries need.
 *
 * What it does not do: read one entry without the ones before it (a block's
 * levels are decoded from its start: a row read stops after its row);
 * alphabets above 255 symbols (such leaves keep two bit-packed streams). */
#ifndef IG_FORMAT_JOINT_LEVELS_H
#define IG_FORMAT_JOINT_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct ig_error;

/* Symbols a leaf's entries can take: (max_rep + 1) x (max_def + 1); 0 when
 * that is above 255 (the joint stream does not apply). */
unsigned ig_joint_levels_alphabet(uint8_t max_rep, uint8_t max_def);

/* Append the joint stream of n entries (reps is not read when max_rep is 0;
 * every level within its maximum) to out. -EINVAL where the alphabet is 0,
 * -ENOMEM. */
int ig_joint_levels_encode(const uint8_t *reps, const uint8_t *defs, size_t n, uint8_t max_rep,
                           uint8_t max_def, struct ig_buf *out, struct ig_error *err);

/* Decode n entries from p[0..len) into reps (when max_rep > 0) and defs.
 * -EIO naming what is wrong on any stream that is not exactly what the
 * encoder writes for some levels. */
int ig_joint_levels_decode(const uint8_t *p, size_t len, size_t n, uint8_t max_rep, uint8_t max_def,
                           uint8_t *reps, uint8_t *defs, struct ig_error *err);

/* As ig_joint_levels_decode, for a reader that wants the block's first `rows`
 * rows only (a row read): it may stop once the entries decoded hold them
 * whole, that is once an entry begins row `rows` (an entry of rep 0; without
 * reps every entry is a row). *decoded: the entries decoded, n when it did not
 * stop (then checked as above), else at least the rows' and at most four
 * more. A stream read in part is not checked past what was read (its block's
 * checksum stands for the rest); no read goes past p[len - 1] either way.
 * rows = SIZE_MAX: every entry. */
int ig_joint_levels_decode_rows(const uint8_t *p, size_t len, size_t n, uint8_t max_rep, uint8_t max_def,
                                size_t rows, uint8_t *reps, uint8_t *defs, size_t *decoded,
                                struct ig_error *err);

#endif
