/* import_int.h - what import.c, import_input.c and import_schema.c share:
 * one import run's state, which input it reads, and the schema it writes
 * with. Not for callers outside the importer (import.h is theirs). */
#ifndef IG_IMPORT_IMPORT_INT_H
#define IG_IMPORT_IMPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "convert.h"
#include "csv.h"
#include "lines.h"
#include "npy.h"
#include "parquet.h"
#include "format/model/schema.h"
#include "format/part/table.h"
#include "util/buf.h"

struct ig_error;
struct ig_part_writer;
struct ig_blob_fetch;

/* Everything one import run needs, so helpers can share it. */
struct import_run {
    /* the inputs, read one after another into the same part (ig_import_many),
     * and which one is being read */
    const char *const *inputs;
    size_t ninputs, at;
    const char *input; /* the one being read, as messages name it */
    /* it decompressed or read from standard input (spool.h), which each
     * reader reads from its start; -1: the file at `input` */
    int spool_fd;
    /* inputs copied whole while the schema was made (schema_of_all), to be
     * read from those copies (-1: none; ninputs of them, or NULL) */
    int *kept;
    /* CSV: each input's delimiter as its sample found it (0: not sampled),
     * for a streamed input, which cannot be read at offsets (NULL: none) */
    char *delims;
    /* nonzero: copy only this many lines of an input that can be read again
     * (its sample for types), or only this many last bytes of an object (a
     * Parquet footer); cut: whether the copy is of a part of it alone */
    uint64_t head_lines, tail_bytes;
    bool cut;
    /* the input's rows read as a stream (spool.h: a compressed file or an
     * object decompressed into a pipe, in_fd its read end, while they are
     * converted); NULL: from a file. stream_rows: an input that can be is
     * streamed (its schema is known: it is read once, from its start) */
    struct ig_spool_stream *stream;
    bool stream_rows;
    /* the first input, one to stream, was read from a copy of its head for
     * its sample (cut: of a part of it); its rows are read again from its
     * start (import_rows_from_start) */
    bool first_head;
    /* its path without its compression suffix (x.npy.gz: x.npy), which
     * names a .npy's column; NULL: standard input, which has none */
    const char *plain_name;
    char plain[4096];
    char base_dir[4096]; /* blob paths in it are relative to this */
    const struct ig_import_opts *o;
    int in_fd;
    uint64_t in_size;
    char delim; /* CSV: o->delimiter, or the input's own */
    uint32_t sampled; /* CSV, JSON Lines: the records the types were inferred from */
    /* progress over every input: bytes of the inputs read before this one,
     * and the sizes of those after it (as they lie: compressed, 0 for a pipe) */
    uint64_t bytes_before, bytes_after;
    /* the bytes read of the inputs before this one (decompressed), and of a
     * stream that ended, those that came through it: the result's count */
    uint64_t read_before, stream_bytes;
    struct ig_schema schema;
    /* appending: the table's schema named as its footers store it (the new
     * part's footer must match theirs), while the input's columns go by the
     * version's names and its hidden columns by none (schema) */
    struct ig_schema stored;
    /* JSON Lines inferred for an append: the table's columns, whose fields
     * are read with its types, not inferred (NULL: infer every field) */
    const struct ig_schema *known;
    struct ig_part_writer *w;
    struct ig_buf scratch, path;
    struct ig_convert_ctx cc;
    struct ig_blob_fetch *fetched; /* the input's objects fetched before its rows (cc.fetched) */
    struct ig_import_result *res;
    struct ig_npy npy; /* IG_INPUT_NPY */
    struct ig_parquet *pq; /* IG_INPUT_PARQUET */
};

/* 0, or -EINTR once the caller asked the import to stop. */
int import_check_cancel(const struct import_run *r, struct ig_error *err);
/* A file's size as it lies (compressed: its compressed bytes; 0 for a pipe,
 * standard input or an object), for the progress line's total. */
uint64_t import_size_as_it_lies(const char *path);
/* Make input i the one read: copied first where it must be (spool.h; a copy
 * the caller or the schema's making kept is taken instead), its format told
 * (*fmt, when AUTO; a later input that cannot tell takes the first's) or
 * checked against the first input's. */
int import_begin_input(struct import_run *r, size_t i, enum ig_input_format *fmt, struct ig_error *err);
/* Open the input and its reader for the format. */
/* Would input i be streamed for its rows (a compressed file or an object,
 * CSV or JSON Lines by its name or --format, no copy of it at hand)? */
bool import_streams(const struct import_run *r, size_t i);
/* The first input, read so far from a copy of its head (first_head), made
 * the one whose rows are read: streamed unless `blobs` (its blob values are
 * read ahead of its rows), else copied whole; its readers opened again. */
int import_rows_from_start(struct import_run *r, enum ig_input_format fmt, bool blobs, struct ig_csv_reader **csv,
                           struct ig_lines_reader **lr, struct ig_error *err);
/* The stream of the input just read ended: its thread's error (a damaged or
 * truncated input, which explains whatever the rows met at its end) before
 * rc; the input's bytes counted as a copy's. */
int import_end_stream(struct import_run *r, int rc, struct ig_error *err);
int import_open_input(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader **csv,
                      struct ig_lines_reader **lr, struct ig_error *err);
/* Close what reads the current input; its bytes count as read. */
void import_end_input(struct import_run *r, struct ig_csv_reader **csv, struct ig_lines_reader **lr);
/* Close the copies kept for inputs not read. */
void import_free_kept(struct import_run *r);

/* The schema the rows are written with into r->schema (import_schema.c). */
int import_choose_schema(struct import_run *r, enum ig_input_format fmt, const struct ig_table *existing,
                         struct ig_csv_reader *csv, struct ig_lines_reader *lr, struct ig_error *err);
/* Do the input's top-level columns fit the table's (the same type, whatever
 * may be NULL; with `widens`, or a number, time or decimal type the table's
 * holds every value of: widen.h)? Errors name `what`. */
int import_schema_fits(const struct ig_schema *in, const struct ig_schema *table, bool widens, const char *what,
                       struct ig_error *err);

/* Fetch the objects on object storage the input's blob values name, several
 * at a time, before its rows are read (import_blobs.c; r->fetched, freed by
 * import_prefetched_free). */
int import_prefetch_blobs(struct import_run *r, enum ig_input_format fmt, struct ig_error *err);
void import_prefetched_free(struct import_run *r);

#endif
