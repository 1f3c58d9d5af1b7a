/* spool.h - inputs an import cannot read where they lie: standard input ("-")
 * and other pipes (a FIFO, <(zcat x.gz)),
 * objects on object storage (s3://BUCKET/KEY: range GETs, the store reading
 * ahead), and files compressed with gzip or zstd (told by their first bytes,
 * whatever their name: x.csv.gz, x.jsonl.zst, a .npy or Parquet file
 * compressed whole).
 *
 * The import samples its input for types, cuts it among threads and reads it
 * again, so it needs a file it can map. Such an input is first copied
 * (decompressed) into an unnamed temporary file (O_TMPFILE under $TMPDIR, else
 * /var/tmp): it takes the decompressed size on that disk while the import
 * runs and is gone when its descriptor closes, however the import ends (even
 * killed). Concatenated gzip members (cat a.gz b.gz) and zstd frames are read
 * one after another, as gzip -d and zstd -d do.
 *
 * A compressed file or an object whose rows are read once, from the start
 * (CSV and JSON Lines, typed from a head copied for the sample or by a
 * schema), is instead streamed: decompressed (or fetched) on a thread of its
 * own into a pipe the import reads while it converts, no copy on disk
 * (ig_spool_stream_open).
 *
 * Not done: streaming what is read more than once or at offsets (a .npy or
 * Parquet file compressed whole, an input whose blob values are fetched ahead
 * of its rows, standard input, which is read once and sampled too); other
 * codecs (bzip2, xz): decompress them into a pipe,
 * `xz -dc x.csv.xz | ingot import --format csv - TABLE`. */
#ifndef IG_IMPORT_SPOOL_H
#define IG_IMPORT_SPOOL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;

/* Whether an input's name ends in `suffix` (".csv"), in any case, after
 * something: how every format and codec is told from a name. */
bool ig_name_ends_with(const char *name, const char *suffix);

/* The name an input's format is told from: `path` without a final .gz, .zst
 * or .zstd (x.csv.gz: x.csv), into out (cap bytes, truncated). */
void ig_spool_plain_name(const char *path, char *out, size_t cap);

/* Copy `path` ("-": standard input), decompressed where it is gzip or zstd,
 * into an unnamed temporary file: *fd is its descriptor, to be read from
 * offset 0 and closed by the caller; or *fd = -1 when `path` is a plain file
 * the import reads where it lies. Errors name the input: a damaged or
 * truncated stream, a full disk (naming the directory), a library that
 * cannot be loaded. */
struct ig_spool_opts {
    const volatile sig_atomic_t *cancel; /* optional: stops the copy with -EINTR once nonzero */
    /* optional: told the input's bytes read so far of its size (0 on a pipe)
     * after every MiB; rows always 0 (the import's progress callback) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, uint64_t rows);
    void *progress_ctx;
    /* optional: copy only the first head_lines lines of an input that can be
     * read again (a file, an object; a pipe is copied whole), cut after the
     * last newline that ends a line among them: a sample of it for types;
     * *cut (when given) tells whether it was cut */
    uint64_t head_lines;
    /* optional: of an uncompressed object larger than this, copy only its
     * last tail_bytes, at their offsets in a sparse file of its size (a
     * Parquet file's footer, for its schema); *cut then says so too */
    uint64_t tail_bytes;
    bool *cut;
    /* copy the bytes as they are, compressed or not (an object stored as a
     * blob: a .gz file is a .gz file) */
    bool raw;
};
int ig_spool_input(const char *path, const struct ig_spool_opts *o, int *fd, struct ig_error *err);

/* An unnamed file under $TMPDIR (else /var/tmp), where copies go: its
 * descriptor, or a negative errno naming the directory (dir: its name). */
int ig_spool_temp_file(char *dir, size_t cap, struct ig_error *err);

/* Is `path` one to stream rather than copy: a regular file compressed with
 * gzip or zstd (told by its first bytes), or an object (s3://)? */
bool ig_spool_streams(const char *path);

/* `path`'s bytes, decompressed as ig_spool_input's copy would hold them,
 * through a pipe: *fd is its read end (the caller's, to read to its end and
 * close), fed by a thread of its own until the input ends or fails; the pipe
 * then ends. A reader that stops early closes *fd first: the thread stops at
 * its next write. o: its cancel flag only. */
struct ig_spool_stream;
int ig_spool_stream_open(const char *path, const struct ig_spool_opts *o, int *fd, struct ig_spool_stream **out,
                         struct ig_error *err);
/* The input's bytes (as they lie) consumed so far, and its size (*total, 0
 * unknown), for a progress line; safe while the thread runs. */
uint64_t ig_spool_stream_done(const struct ig_spool_stream *st, uint64_t *total);
/* Wait for the thread (close *fd first unless it was read to its end) and
 * free it: 0, or its error (a damaged or truncated stream, a failed read,
 * an interruption), which explains an early end of the pipe; *written: the
 * bytes it put through. A reader that closed early is not its error. */
int ig_spool_stream_close(struct ig_spool_stream *st, uint64_t *written, struct ig_error *err);

/* Can `path` be read only once (standard input, a pipe, anything but a
 * regular file or an object)? A copy of it must then serve every reading. */
bool ig_spool_read_once(const char *path);

#endif
