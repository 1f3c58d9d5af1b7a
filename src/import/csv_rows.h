/* csv_rows.h - a CSV's records into a part writer's columns, on one thread or
 * several.
 *
 * The header line names the columns its fields fill (ig_csv_map_header); every
 * record after it is converted field by field by the column's type, as
 * convert.h converts text, a batch of records at a time (ig_csv_convert_rows).
 * ig_csv_rows_threads does the same work on `threads` threads: the input is
 * read in pieces cut between records (csv_cut.h), each piece parsed and
 * converted by one thread into columns of its own, and the pieces' rows handed
 * to the writer in input order, a writer's room at a time
 * (ig_part_writer_room): the writer sees the same values and the same row-group
 * boundaries, so the part is the same byte for byte as one thread converting
 * record after record, and an error is the same first error with the same
 * message.
 *
 * What the threaded path does not take: blob columns (their objects are
 * copied into the part's blob file in row order as they are converted: use
 * one thread), nested columns (CSV has none). */
#ifndef IG_IMPORT_CSV_ROWS_H
#define IG_IMPORT_CSV_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "import/convert.h"
#include "import/csv.h"

struct ig_error;
struct ig_part_writer;

/* Bytes of CSV a piece aims at: large enough that handing a piece over costs
 * nothing against converting it, small enough that a few per thread keep
 * both cores busy to the end without much memory. */
#define IG_CSV_PIECE ((size_t)4 << 20)

/* Records a batch converts at most (ig_csv_convert_rows): room for them is
 * made in every column once, so each value pushed is a store; a few thousand
 * rows keep that once-a-batch work out of sight without holding much. */
#define IG_CSV_BATCH 4096u

/* How a column's fields become values, decided once from its type when the
 * header is mapped, so a field costs one switch and a direct call instead of
 * the generic conversion's layers of dispatch (convert.h, parse_value.h). */
enum ig_csv_kind {
    IG_CSV_ABSENT,  /* not in the header: NULL in every row */
    IG_CSV_INT64,
    IG_CSV_FLOAT64,
    IG_CSV_FLOAT32,
    IG_CSV_BOOL,
    IG_CSV_LANE,    /* the other integer types (ranges checked by ig_parse_lane) */
    IG_CSV_STRING,
    IG_CSV_OTHER,   /* binary, blob, logical types: ig_convert_text */
    IG_CSV_NULL_ROWS, /* a leaf of a nested column not in the header: NULL rows,
                         written where a batch's rows reach the writer
                         (ig_csv_null_rows), not by ig_csv_convert_rows */
    IG_CSV_NODE,    /* a struct of such a column: no values of its own */
};

/* One schema column as the CSV fills it. */
struct ig_csv_col {
    const struct ig_column_def *def;
    uint32_t leaf;  /* its values: cols[leaf] */
    uint32_t field; /* the header field it takes (IG_CSV_ABSENT: 0, read, not used) */
    uint8_t kind;   /* enum ig_csv_kind */
};

/* Which header field fills which schema column, and how. */
struct ig_csv_map {
    const struct ig_schema *schema;
    const char *path;   /* the input, in messages */
    const char *hint;   /* appended to a value's error ("" or why types may be wrong) */
    struct ig_csv_col *cols; /* by schema column, in schema order (errors name the first) */
    size_t nfields;     /* fields of the header, which every record must have */
};

/* Map the header record: every field names a column once, every column not
 * named is nullable, every column named is flat (a nested column, one CSV
 * cannot give, may only be absent: NULL). Errors "PATH:LINE: ...". */
int ig_csv_map_header(struct ig_csv_map *m, const struct ig_schema *s, const struct ig_csv_record *header,
                      const char *path, const char *hint, struct ig_error *err);
void ig_csv_map_free(struct ig_csv_map *m);

/* Up to max records from csv, each pushing one value into every leaf's
 * values (cols by leaf, flat), room for max more made in each first. 0 with
 * *rows the records converted (fewer than max only at the end of the input),
 * or a negative errno with err "PATH:LINE: ..." (a value's error naming the
 * column, the reader's own errors as they are) and *rows the records
 * converted whole before the failing one, whose values so far stay behind in
 * cols: callers drop them (the import fails). */
/* rows rows of each nested column absent from the header into cols (the
 * writer's columns, by leaf): NULL, or the least value of one the table's
 * version hides (ig_stripe_absent). */
int ig_csv_null_rows(const struct ig_csv_map *m, struct ig_values *cols, size_t rows, struct ig_error *err);

int ig_csv_convert_rows(const struct ig_csv_map *m, struct ig_csv_reader *csv, struct ig_values *cols,
                        size_t max, const struct ig_convert_ctx *cc, size_t *rows, struct ig_error *err);

struct ig_csv_rows_opts {
    unsigned threads;  /* converting threads, >= 1 (the caller's thread hands rows over) */
    size_t piece;      /* bytes a piece aims at; 0: IG_CSV_PIECE */
    char delimiter;
    size_t max_record; /* longest record; 0: IG_INPUT_MAX_RECORD */
    /* optional, after each piece's rows are in the writer: nonzero (an error
     * set in err) stops the import; bytes_read is how far fd has been read */
    int (*after)(void *ctx, uint64_t bytes_read, struct ig_error *err);
    void *ctx;
};

/* Every record after the header: the bytes csv has read but not parsed,
 * then fd to its end (csv read the header from fd). */
int ig_csv_rows_threads(const struct ig_csv_map *m, struct ig_csv_reader *csv, int fd,
                        struct ig_part_writer *w, const struct ig_csv_rows_opts *o,
                        struct ig_error *err);

#endif
