/* stripe.h - a nested JSON value striped into its leaves' level entries.
 *
 * One pass over the value, as in the field-striping note: every leaf below a
 * node gets exactly one entry for each occurrence of that node, so a missing
 * optional struct, a struct whose fields are all unset and an empty list stay
 * distinct (their definition levels differ), and every leaf of a row can be
 * reassembled in lockstep (assemble.h). A value that does not fit the schema is
 * an error naming the field's path. A key missing for a list that cannot be null
 * is the empty list (repeated fields are zero-or-more); a missing or null value
 * anywhere else that cannot be null is an error, but for a record the table's
 * version hides (ig_column_def.hidden: ig_stripe_absent). */
#ifndef IG_IMPORT_STRIPE_H
#define IG_IMPORT_STRIPE_H

#include "format/model/schema.h"
#include "format/model/values.h"
#include "import/convert.h"
#include "import/json.h"

struct ig_error;

/* Stripe the value of top-level node `top` (NULL: the key was absent) for one
 * row into leaves (indexed by global leaf index) and close the row on each. */
int ig_stripe_json(const struct ig_schema *s, uint32_t top, const struct ig_json_doc *doc,
                   const struct ig_json_node *val, struct ig_values *(*leaf)(void *, uint32_t),
                   void *leaf_ctx, const struct ig_convert_ctx *cc, struct ig_error *err);

/* rows rows in which column `top` is absent from the input: NULL, or where it
 * cannot be NULL (a non-nullable nested column the table's version hides: a
 * record `ingot gc` released, which no version shows again) its least value:
 * empty lists, zero numbers and vectors, empty strings, empty objects. Rows
 * closed on each leaf, as ig_stripe_json does. */
int ig_stripe_absent(const struct ig_schema *s, uint32_t top, struct ig_values *(*leaf)(void *, uint32_t),
                     void *leaf_ctx, size_t rows, struct ig_error *err);

#endif
