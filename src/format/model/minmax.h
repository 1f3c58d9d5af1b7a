/* minmax.h - a flat numeric leaf's smallest and largest value (format 9's
 * chunk statistics, docs/FORMAT.md "Chunk record").
 *
 * Bounds are lanes (codec.h): signed integers sign-extended, unsigned
 * zero-extended, floats their bit pattern; they compare in the type's own
 * order. NULLs and NaNs are outside them (a chunk of only those has none), and
 * a zero bound of a float is -0.0 as the minimum and +0.0 as the maximum, as
 * Parquet's statistics want, so that either zero lies within.
 *
 * Bounds are what engines skip row groups by (a Parquet view's footer), so
 * they must hold every live value; they need not be reached by one (rows
 * deleted after they were written leave them wider). What they must never do
 * is keep an erased value: an erase that removes a value at or past a bound
 * (ig_minmax_reached) takes the chunk's bounds again over the rows that stay,
 * so every bound is a value of a row that is still there.
 *
 * Not kept for bools, strings, binary, blobs, or any leaf with levels
 * (lists, structs, vectors): those chunks are never bounded. */
#ifndef IG_FORMAT_MODEL_MINMAX_H
#define IG_FORMAT_MODEL_MINMAX_H

#include <stdbool.h>
#include <stdint.h>

struct ig_values;

struct ig_minmax {
    bool bounded;
    uint64_t min, max; /* lanes; 0 when not bounded */
};

/* Whether a leaf of this type keeps bounds (nested: it has levels or a
 * dimension). */
bool ig_minmax_kept(uint8_t type, bool nested);

/* The bounds of a flat leaf's values v (v->type kept, no levels) but those
 * whose bit is set in skip (LSB-first bytes; NULL: none): unbounded when none
 * is left that is present and not NaN. */
void ig_minmax_of(const struct ig_values *v, const uint8_t *skip, struct ig_minmax *out);

/* Whether value `lane` of a leaf of `type` lies at or past either bound (so
 * that removing it may leave the bound unreached, or leave it naming the
 * removed value). NaN reaches none. */
bool ig_minmax_reached(uint8_t type, const struct ig_minmax *m, uint64_t lane);

/* Whether `lane` lies within the bounds (NaN always does: it is outside the
 * order). */
bool ig_minmax_holds(uint8_t type, const struct ig_minmax *m, uint64_t lane);

/* acc widened to hold m as well (an unbounded acc takes m). */
void ig_minmax_widen(uint8_t type, struct ig_minmax *acc, const struct ig_minmax *m);

/* Whether min is no greater than max in the type's order, and a float bound
 * is not NaN: what a reader may check of bounds from disk. */
bool ig_minmax_ordered(uint8_t type, const struct ig_minmax *m);

#endif
