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
 * Not done: decompressing while the import reads (the copy costs the input's
 * time and size once); other codecs (bzip2, xz): decompress them into a pipe,
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

/* Can `path` be read only once (standard input, a pipe, anything but a
 * regular file or an object)? A copy of it must then serve every reading. */
bool ig_spool_read_once(const char *path);

#endif
