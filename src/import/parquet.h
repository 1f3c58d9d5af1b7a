/* parquet.h - a Parquet file as import input.
 *
 * The Parquet schema becomes the ingot schema leaf for leaf, keeping Parquet's
 * repetition and definition levels as they are (both follow Dremel, and ingot's
 * list<...>? / struct<...>? levels count the same way as Parquet's LIST, MAP
 * and group annotations):
 *   group (LIST), 3-level or legacy 2-level   list<T>         (? when OPTIONAL)
 *   group (MAP) of key_value                  list<struct<key:K, value:V>>
 *   other groups                              struct<...>; a REPEATED one list<struct<...>>
 *   REPEATED primitive                        list<T>
 *   BOOLEAN                                   bool
 *   INT32 / INT64                             int32 / int64; INTEGER(8|16|32|64, signed or
 *                                             not) to int8 .. uint64; DATE as int32 days,
 *                                             TIME and TIMESTAMP as int32/int64 in their unit
 *   INT96 (legacy timestamps)                 int64 microseconds since 1970
 *   FLOAT / DOUBLE                            float32 / float64
 *   DECIMAL (any physical type)               float64, the nearest double to the decimal
 *   FLOAT16                                   float32 stored quantize=fp16 (lossless)
 *   BYTE_ARRAY as STRING, ENUM or JSON        string (checked to be UTF-8)
 *   other BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY    binary
 * Anything else (INTERVAL, a map key that is not required, nesting deeper than
 * ingot's seven list levels) is refused naming the column and the feature,
 * before anything is written.
 *
 * The file is read row group by row group (memory bounded by one row group's
 * decoded values), each column chunk with one pread at the footer's offset. */
#ifndef IG_IMPORT_PARQUET_H
#define IG_IMPORT_PARQUET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct ig_error;
struct ig_schema;
struct ig_part_writer;
struct ig_parquet;

/* Read the footer of the Parquet file open on fd. */
int ig_parquet_open(struct ig_parquet **pq, int fd, uint64_t size, const char *path,
                    struct ig_error *err);
void ig_parquet_close(struct ig_parquet *pq);

/* The ingot schema for the file (s must be empty; it is finished). */
int ig_parquet_schema(struct ig_parquet *pq, struct ig_schema *s, struct ig_error *err);
/* Can the file's rows go into a table of schema s (append, --schema)? Each
 * file column goes to the column of s of its name (any order), of the same
 * type and nesting (options may differ) or one that widens into s's
 * (widen.h); a column of s the file lacks is NULL in its rows, so it must be
 * nullable, and so is a struct field of s the file lacks, NULL where its
 * struct is there (its levels derived from a field the file has). */
int ig_parquet_check_schema(struct ig_parquet *pq, const struct ig_schema *s, struct ig_error *err);

typedef void (*ig_parquet_progress_fn)(void *ctx, uint64_t bytes_done, uint64_t rows);

/* Every row into w (opened with a schema that passed ig_parquet_check_schema or
 * came from ig_parquet_schema). Stops with -EINTR once *cancel reads nonzero. */
int ig_parquet_write(struct ig_parquet *pq, struct ig_part_writer *w, const struct ig_schema *s,
                     ig_parquet_progress_fn progress, void *progress_ctx,
                     const volatile sig_atomic_t *cancel, struct ig_error *err);

uint64_t ig_parquet_rows(const struct ig_parquet *pq);

#endif
