/* schema_union.h - one schema from the declared schemas of several inputs
 * (the Parquet shards of one import): their top-level columns by name, in the
 * order first met, each with the type the first input that has it gives
 * (or one that holds every input's, below).
 *
 * A column some input lacks is made nullable at its top (that input's rows
 * hold NULL there), unless it is a vector, which cannot be: the import then
 * refuses the input that lacks it. Nullability inside a column
 * (a list's items, a struct's fields) is the first input's: a NULL a later
 * input holds where that cannot is refused as its rows are read.
 *
 * A column that one input gives as one type and another as another takes the
 * type that holds both (widen.h, ig_widen_union): leaves that are numbers,
 * times or decimals widen (int32 and int64 give int64, int64 and float64
 * float64, timestamp(ms) and timestamp(us) timestamp(us), list<int32> and
 * list<int64> list<int64>), and a struct's fields are united by name (a
 * field a later input adds comes after the first input's; a field an input
 * lacks is made nullable, and that input's rows hold NULL there). The import
 * reads each input into it. Two types no type holds both of (a string and a
 * number, int64 and uint64, a list and a scalar) are refused naming both
 * inputs.
 *
 * Not done: vectors of other widths, a vector field some input lacks (a
 * vector cannot be NULL). */
#ifndef IG_IMPORT_SCHEMA_UNION_H
#define IG_IMPORT_SCHEMA_UNION_H

#include <stdint.h>

#include "format/model/schema.h"
#include "util/strset.h"

struct ig_error;

struct ig_schema_union {
    struct ig_strset names; /* entry k names column k */
    struct column_met *cols;
    size_t cap;
    uint32_t inputs;
};

void ig_schema_union_init(struct ig_schema_union *u);
void ig_schema_union_free(struct ig_schema_union *u);
/* Take input `what`'s schema s (finished) in. */
int ig_schema_union_add(struct ig_schema_union *u, const struct ig_schema *s, const char *what,
                        struct ig_error *err);
/* The schema of every input taken in, into *out (ig_schema_free). */
int ig_schema_union_end(struct ig_schema_union *u, struct ig_schema *out, struct ig_error *err);

#endif
