/* schema_union.h - one schema from the declared schemas of several inputs
 * (the Parquet shards of one import): their top-level columns by name, in the
 * order first met, each with the type the first input that has it gives.
 *
 * A column some input lacks is made nullable at its top (that input's rows
 * hold NULL there), unless it is a vector, which cannot be: the import then
 * refuses the input that lacks it. Two inputs that give one column two types
 * (nullability aside) are refused naming both. Nullability inside a column
 * (a list's items, a struct's fields) is the first input's: a NULL a later
 * input holds where that cannot is refused as its rows are read.
 *
 * Not done: widening (int32 in one shard, int64 in another is refused, not
 * read as int64), and struct fields united by name (a struct is one type). */
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
