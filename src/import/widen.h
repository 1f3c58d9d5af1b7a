/* widen.h - which scalar type holds every value of another, and how a value
 * goes from one into the other.
 *
 * Shards of one column are written with different types by different writers
 * or on different days: Spark's int in one file and bigint in another,
 * pandas's int64 where a day had no missing value and float64 where it had
 * (pandas turns such a column into floats), timestamps in ms from an old
 * writer and in us from a new one, decimal(9, 2) and decimal(12, 4). Such a
 * column has one type that holds both: the importer reads every shard into
 * it (ig_widen_common for the shards of one import, ig_widen_plan for an
 * append into a table's column).
 *
 * Widening (ig_widen_plan from -> to):
 *   integers     into a wider integer of the same sign, unsigned into a wider
 *                signed one (int32 -> int64, uint16 -> int32)
 *   integers     into float32 or float64 (exact up to 24 and 53 bits; a wider
 *                value is taken when the float holds it exactly, refused when
 *                not: 2^53 + 1 never becomes 2^53)
 *   floats       float16 -> float32 -> float64
 *   time units   time(ms) -> time(us) -> time(ns); timestamp(s) -> (ms) ->
 *                (us) -> (ns) with the same UTC flag (a value past the finer
 *                unit's range, ns after 2262, is refused)
 *   decimals     decimal(p, s) -> decimal(p', s') when s' >= s and
 *                p' - s' >= p - s (no digit lost on either side)
 *   dates        date -> timestamp(unit) without UTC: the day's midnight, as
 *                DuckDB's union_by_name takes DATE and TIMESTAMP (a date has
 *                no zone, so one of UTC is not a widening)
 *
 * What it does not do: narrow (int64 into int32, float64 into float32),
 * change a value's kind (numbers into strings,
 * decimals into floats, bool into integers, a date into a time), or widen a signed integer into an
 * unsigned one; a vector's float32 stays float32 (its shape says so). Leaves
 * inside lists and structs widen as top-level ones do (ig_widen_column);
 * a struct that gains a field in a later shard holds both (ig_widen_union).
 * Values that do not survive are refused one by one
 * (ig_widen_lane false), never rounded. */
#ifndef IG_IMPORT_WIDEN_H
#define IG_IMPORT_WIDEN_H

#include <stdbool.h>
#include <stdint.h>

#include "format/model/types.h"

/* A scalar leaf's type: its storage type and what its values mean. */
struct ig_scalar {
    uint8_t type; /* enum ig_type: a primitive */
    struct ig_logical lt;
};

enum ig_widen_op {
    IG_WIDEN_NONE = 0,     /* the lane as it is (lanes of integers are sign- or
                              zero-extended already; float16 reads as float32) */
    IG_WIDEN_INT_FLOAT,    /* a signed integer lane into float32 or float64 bits */
    IG_WIDEN_UINT_FLOAT,   /* an unsigned one, likewise */
    IG_WIDEN_FLOAT_DOUBLE, /* float32 bits into float64 bits */
    IG_WIDEN_SCALE,        /* an integer times 10^digits: a finer time unit, a larger
                              decimal scale */
    IG_WIDEN_DAYS,         /* days times 86,400 * 10^digits: a date into a timestamp */
};

struct ig_widen {
    uint8_t op;     /* enum ig_widen_op */
    uint8_t digits; /* IG_WIDEN_SCALE: the power of ten */
    uint8_t to;     /* the target's storage type (its range is checked) */
    bool exact;     /* every value of `from` converts (no value can be refused) */
};

/* How a value of `from` becomes one of `to`: false when `to` is not a
 * widening of `from` (above). Equal types give IG_WIDEN_NONE. */
bool ig_widen_plan(const struct ig_scalar *from, const struct ig_scalar *to, struct ig_widen *w);

/* The narrowest type both a and b widen into (int32 and uint32: int64; int64
 * and float64: float64; decimal(9, 2) and decimal(12, 4): decimal(14, 4)),
 * into *out; false when none does. A type that holds every value of the other
 * is chosen over one that may refuse some. */
bool ig_widen_common(const struct ig_scalar *a, const struct ig_scalar *b, struct ig_scalar *out);

/* Lane `in` of the source type as the target's lane (ig_values' lanes): false
 * when the target cannot hold it exactly. */
bool ig_widen_lane(const struct ig_widen *w, uint64_t in, uint64_t *out);

/* A decimal's unscaled value scaled to the target (IG_WIDEN_SCALE, else as it
 * is): false on overflow of 128 bits (the caller checks the storage's range). */
bool ig_widen_unscaled(const struct ig_widen *w, __int128 in, __int128 *out);

/* Does column ca of a widen into column cb of b (top-level nodes)? One
 * shape (the same lists, struct fields by name and order, vectors;
 * nullability aside), and each leaf of a's either has the type of b's leaf
 * there or widens into it (ig_widen_plan: a list<int32> into a list<int64>).
 * False where the shapes differ or a leaf does not widen. */
struct ig_schema;
bool ig_widen_column(const struct ig_schema *a, uint32_t ca, const struct ig_schema *b, uint32_t cb);

/* The type that holds the values of node ca of a and node cb of b, in schema
 * syntax, appended to out: leaves widened as ig_widen_column widens them,
 * and structs united by field name, as DuckDB's union_by_name unites them
 * (a's fields in a's order, then those only b has in b's; a field one side
 * lacks made nullable: that side's rows hold NULL there). Nullability is
 * a's where both have a node. *ok false where no type holds both (other
 * lists, a struct and a scalar, leaves that do not widen, a vector field one
 * side lacks, which cannot be NULL). 0, or -ENOMEM. */
struct ig_buf;
int ig_widen_union(const struct ig_schema *a, uint32_t ca, const struct ig_schema *b, uint32_t cb,
                   struct ig_buf *out, bool *ok);

#endif
