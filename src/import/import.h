/* import.h - CSV / JSON Lines / NumPy .npy / Parquet into a table, atomically.
 *
 * A new table is built in a hidden sibling directory and renamed into place, so
 * the table either appears whole or not at all. --append writes the new part
 * under a temporary name inside the table, renames it, then replaces MANIFEST
 * atomically; a failure at any point leaves the table exactly as it was. Appends
 * hold the table lock (lock.h). Row ids continue across parts.
 *
 * Bad input stops the import with "FILE:LINE: column 'x': what is wrong". */
#ifndef IG_IMPORT_IMPORT_H
#define IG_IMPORT_IMPORT_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>

#include "format/part/writer.h"

struct ig_error;

enum ig_input_format { IG_INPUT_AUTO = 0, IG_INPUT_CSV, IG_INPUT_JSONL, IG_INPUT_NPY, IG_INPUT_PARQUET };

typedef void (*ig_progress_fn)(void *ctx, uint64_t bytes_done, uint64_t bytes_total,
                               uint64_t rows);

struct ig_import_opts {
    enum ig_input_format format;
    const char *schema_path;   /* NULL: infer (new tables) or take the table's (append) */
    bool append;
    char delimiter;            /* CSV; 0 (the default): each input's own, a tab for .tsv,
                                  else ',' unless its first lines say otherwise
                                  (ig_csv_sniff_delimiter) */
    uint32_t sample_rows;      /* inference sample, default IG_INFER_SAMPLE */
    struct ig_writer_opts w;   /* w.threads also converts CSV records on that many
                                  threads (csv_rows.h), the part the same */
    size_t csv_piece;          /* bytes of CSV a thread converts at a time; 0: the
                                  default (tests make it small) */
    ig_progress_fn progress;   /* optional, called every ~64 Ki rows */
    void *progress_ctx;
    /* optional: where the schema is made from every input (several, or one
     * typed from a copy of its head), told the inputs sampled so far of
     * their number, on the calling thread, before `progress` is first called */
    void (*sample_progress)(void *ctx, uint64_t done, uint64_t total);
    void *sample_progress_ctx;
    /* optional: into a table on object storage the parts are built in a
     * local stage and uploaded at the end; this is told the bytes sent of
     * their total as each piece (at most 64 MiB) is sent */
    void (*upload_progress)(void *ctx, uint64_t done, uint64_t total);
    void *upload_progress_ctx;
    /* optional: once it reads nonzero (a signal handler sets it), the import
     * stops with -EINTR and removes everything it wrote */
    const volatile sig_atomic_t *cancel;
    /* cut the rows into parts of at most this many bytes each (at row group
     * boundaries, writer.h; not with blob columns); 0: one part; part_bytes_set false:
     * the table's default (ig_append_part_bytes_default: 128 MiB on object
     * storage, one part on a file system) */
    uint64_t part_bytes;
    bool part_bytes_set;
    /* optional: inputs already copied by the caller (spool.h), one
     * descriptor per input (-1: none), each read from its start while its
     * path still names it (messages, a .npy's column, blob paths): standard
     * input and pipes given to an inference and then to an import; the
     * caller closes them */
    const int *input_copies;
};

struct ig_import_result {
    uint64_t rows;
    uint64_t first_row_id;
    uint64_t input_bytes;
    char part[64];     /* the first part written */
    uint32_t parts;    /* how many */
    /* columns only older versions show that cannot be NULL and that these
     * rows leave without a value: released in the new parts, so that
     * restore-columns can show them no more (0: none such, or gc had let
     * them go already) */
    uint32_t released;
    /* the version that added the input's columns the table had not (an
     * append), else 0; an append of no rows adds them and no part (rows 0,
     * parts 0, part "") */
    uint64_t columns_version;
};

void ig_import_opts_default(struct ig_import_opts *o);
int ig_import(const char *input, const char *table_dir, const struct ig_import_opts *o,
              struct ig_import_result *res, struct ig_error *err);
/* Several inputs of one format into one table, one after another in the order
 * given, as one transaction: one part (cut by part_bytes), one version, row
 * groups running across inputs. CSV and JSON Lines without a schema: the
 * columns of every input by name, in the order first met, typed by a sample
 * of each (infer.h; an input without a column holds NULL there; a shard's
 * head alone is copied for it where the shard is copied and can be read
 * again, and a copy made whole is read again by the import, not made twice).
 * Parquet: the first file's schema, each later one checked against it; a
 * schema file: its types. A value that does not fit stops the import naming
 * its file and line. Appending, the inputs' new columns are added first. At
 * most one input is "-"; .npy inputs (a column each) are refused. */
int ig_import_many(const char *const *inputs, size_t ninputs, const char *table_dir, const struct ig_import_opts *o,
                   struct ig_import_result *res, struct ig_error *err);

/* The schema an import of the inputs would give a new table (inferred from
 * samples, the first Parquet schema, a .npy's dtype, or o->schema_path's),
 * into *out (ig_schema_free), writing nothing: import --print-schema. */
int ig_import_infer(const char *const *inputs, size_t ninputs, const struct ig_import_opts *o,
                    struct ig_schema *out, struct ig_error *err);

/* Format from a file name's extension (.csv/.tsv, .jsonl/.ndjson, .npy,
 * .parquet/.parq/.pq; before a final .gz, .zst or .zstd), or AUTO. */
enum ig_input_format ig_input_format_from_name(const char *path);
/* Format from the first bytes of the file (Parquet's "PAR1", NumPy's magic), or AUTO. */
enum ig_input_format ig_input_format_from_magic(const char *path);
/* The same from an open file's first bytes (a copy made by spool.h). */
enum ig_input_format ig_input_format_from_fd(int fd);
/* An input's format: `given` when not AUTO, else from its name, else from
 * its first bytes (those of copy_fd, its copy, when >= 0; else the file's). */
enum ig_input_format ig_input_format_of(enum ig_input_format given, const char *path, int copy_fd);

#endif
