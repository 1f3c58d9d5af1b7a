/* infer.h - a schema from the data itself, when no --schema is given.
 *
 * CSV: the header names the columns; the first `sample` records choose each
 * column's type: int64 if every non-empty value is an integer, else float64 if
 * every one is a number, else bool if every one is true/false/t/f/1/0, else
 * date if every one is an ISO-8601 date (2024-01-01), else timestamp if every
 * one is a date and time (2024-01-01T20:34:56, or a date alone): us, or ns
 * with more than six fraction digits; UTC when every one has a zone (Z,
 * +02:00), local when none has; else string (an all-empty column is a
 * string). JSON Lines: keys in order of first appearance; JSON true/false ->
 * bool, integers -> int64, other numbers -> float64, strings -> string (or
 * date, timestamp as for CSV); mixing kinds in one key is an error.
 *
 * Inferred columns are all nullable: a sample cannot prove a later row has no
 * NULL (DuckDB's CSV sniffer makes the same choice). A later value that does not
 * fit the inferred type stops the import with its line and a hint to use --schema.
 * Both readers are rewound to their start before returning. */
#ifndef IG_IMPORT_INFER_H
#define IG_IMPORT_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "import/csv.h"
#include "import/lines.h"

struct ig_error;

#define IG_INFER_SAMPLE 10000

/* *sampled (NULL: not told): the records the types were inferred from (0: a
 * header alone, or no record: nothing but the names says anything). */
int ig_infer_csv(struct ig_csv_reader *r, const char *path, uint32_t sample,
                 struct ig_schema *out, uint32_t *sampled, struct ig_error *err);
/* known (NULL: none): the columns of a table the rows are appended to, read
 * with its types: their fields are not inferred (nor refused for holding
 * arrays or objects), and out then holds the other fields alone, possibly
 * none (left unfinished then). */
int ig_infer_jsonl(struct ig_lines_reader *r, const char *path, uint32_t sample, const struct ig_schema *known,
                   struct ig_schema *out, uint32_t *sampled, struct ig_error *err);

/* The same over several inputs of one format (the shards of one import): the
 * columns of them all by name, in the order first met (a CSV's header names
 * its columns; an input without some holds NULL there), each typed by the
 * values sampled from every input as if they were one input's (an integer
 * column whose later shard holds fractions is float64). `sample` records are
 * read from each input. A CSV input that is a copy of another's head
 * (`prefix`) may end inside a quoted field: its sample ends before it.
 * ig_infer_end gives the schema and frees the inference, as ig_infer_free
 * does on any path that does not reach it. */
struct ig_infer;
struct ig_infer *ig_infer_new(const struct ig_schema *known);
int ig_infer_csv_more(struct ig_infer *g, struct ig_csv_reader *r, const char *path, uint32_t sample, bool prefix,
                      struct ig_error *err);
int ig_infer_jsonl_more(struct ig_infer *g, struct ig_lines_reader *r, const char *path, uint32_t sample,
                        struct ig_error *err);
/* Take what o read into g, as if g had read o's inputs after its own (two
 * threads sampling the two halves of the inputs); o is left as it was. */
int ig_infer_merge(struct ig_infer *g, const struct ig_infer *o, struct ig_error *err);
int ig_infer_end(struct ig_infer *g, bool jsonl, struct ig_schema *out, uint32_t *sampled, struct ig_error *err);
void ig_infer_free(struct ig_infer *g);

#endif
