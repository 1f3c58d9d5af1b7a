/* import_input.c - which input an import reads, and from where: a file where
 * it lies, or a copy (spool.h) made for it, or kept from the schema's making;
 * its format told (import.h: from its name, or its first bytes), its reader
 * opened for it (import_int.h). */
#include "import_int.h"
#include "spool.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum ig_input_format ig_input_format_from_name(const char *name)
{
    char path[4096];
    ig_spool_plain_name(name, path, sizeof path);
    static const struct {
        const char *suffix;
        enum ig_input_format format;
    } names[] = {{".csv", IG_INPUT_CSV},         {".tsv", IG_INPUT_CSV},     {".tab", IG_INPUT_CSV},
                 {".jsonl", IG_INPUT_JSONL},     {".ndjson", IG_INPUT_JSONL}, {".npy", IG_INPUT_NPY},
                 {".parquet", IG_INPUT_PARQUET}, {".parq", IG_INPUT_PARQUET}, {".pq", IG_INPUT_PARQUET}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (ig_name_ends_with(path, names[i].suffix)) return names[i].format;
    return IG_INPUT_AUTO;
}

enum ig_input_format ig_input_format_from_fd(int fd)
{
    uint8_t head[6] = {0};
    ssize_t n = pread(fd, head, sizeof head, 0);
    /* PARE: a Parquet file with an encrypted footer, which the Parquet
     * reader refuses saying so */
    if (n >= 4 && (!memcmp(head, "PAR1", 4) || !memcmp(head, "PARE", 4))) return IG_INPUT_PARQUET;
    if (n == 6 && !memcmp(head, "\x93NUMPY", 6)) return IG_INPUT_NPY;
    return IG_INPUT_AUTO;
}

enum ig_input_format ig_input_format_from_magic(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IG_INPUT_AUTO;
    enum ig_input_format f = ig_input_format_from_fd(fd);
    close(fd);
    return f;
}

enum ig_input_format ig_input_format_of(enum ig_input_format given, const char *path, int copy_fd)
{
    enum ig_input_format f = given ? given : ig_input_format_from_name(path);
    if (f == IG_INPUT_AUTO) f = copy_fd >= 0 ? ig_input_format_from_fd(copy_fd) : ig_input_format_from_magic(path);
    return f;
}

/* 0, or -EINTR once the caller asked the import to stop. */
int import_check_cancel(const struct import_run *r, struct ig_error *err)
{
    if (!r->o->cancel || !*r->o->cancel) return 0;
    return ig_err(err, -EINTR, "%s: interrupted; nothing was written", r->input);
}

/* The spool's progress, over every input (its bytes as they lie). */
static void spool_progress(void *ctx, uint64_t done, uint64_t total, uint64_t rows)
{
    const struct import_run *r = ctx;
    (void)rows;
    if (r->o->progress)
        r->o->progress(r->o->progress_ctx, r->bytes_before + done, r->bytes_before + total + r->bytes_after, 0);
}

uint64_t import_size_as_it_lies(const char *path)
{
    struct stat st;
    return strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

bool import_streams(const struct import_run *r, size_t i)
{
    if ((r->o->input_copies && r->o->input_copies[i] >= 0) || (r->kept && r->kept[i] >= 0)) return false;
    enum ig_input_format f = r->o->format ? r->o->format : ig_input_format_from_name(r->inputs[i]);
    return (f == IG_INPUT_CSV || f == IG_INPUT_JSONL) && ig_spool_streams(r->inputs[i]);
}

/* Make input i the one read: copied first where it must be (spool.h), or
 * streamed (r->stream_rows), its format told (*fmt, when AUTO) or checked
 * against the first input's. */
int import_begin_input(struct import_run *r, size_t i, enum ig_input_format *fmt, struct ig_error *err)
{
    const char *path = r->inputs[i];
    bool from_stdin = !strcmp(path, "-");
    r->at = i;
    r->input = from_stdin ? "standard input" : path;
    ig_spool_plain_name(path, r->plain, sizeof r->plain);
    r->plain_name = from_stdin ? NULL : r->plain;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(r->base_dir, sizeof r->base_dir, "%s", dirname(copy));
    uint64_t raw = import_size_as_it_lies(path);
    r->bytes_after -= raw < r->bytes_after ? raw : r->bytes_after;
    /* a head copied for a sample is no part of the rows' progress */
    struct ig_spool_opts so = {.cancel = r->o->cancel, .progress = r->head_lines ? NULL : spool_progress, .progress_ctx = r,
                               .head_lines = r->head_lines, .tail_bytes = r->tail_bytes, .cut = &r->cut};
    int rc = 0;
    r->cut = false;
    if (r->o->input_copies && r->o->input_copies[i] >= 0) { /* the caller's copy */
        r->spool_fd = fcntl(r->o->input_copies[i], F_DUPFD_CLOEXEC, 0);
        if (r->spool_fd < 0) rc = ig_err(err, -errno, "%s: %s", r->input, strerror(errno));
    } else if (r->kept && r->kept[i] >= 0) { /* copied whole while the schema was made */
        r->spool_fd = r->kept[i];
        r->kept[i] = -1;
    } else if (r->stream_rows && !r->head_lines && !r->tail_bytes && import_streams(r, i)) {
        rc = ig_spool_stream_open(path, &so, &r->in_fd, &r->stream, err);
        r->in_size = raw; /* as it lies: the stream's progress counts those bytes */
    } else {
        rc = ig_spool_input(path, &so, &r->spool_fd, err);
    }
    if (rc) return rc;
    enum ig_input_format f = ig_input_format_of(r->o->format, path, r->spool_fd);
    if (f == IG_INPUT_AUTO) f = *fmt; /* a later input with no telling name ("-", a pipe): the first's */
    if (f == IG_INPUT_AUTO)
        return ig_err(err, -EINVAL, "%s: cannot tell the format from the %s; pass --format csv, jsonl, npy or parquet",
                      r->input, from_stdin ? "first bytes" : "name");
    static const char *const names[] = {"", "CSV", "JSON Lines", ".npy", "Parquet"};
    if (*fmt != IG_INPUT_AUTO && f != *fmt)
        return ig_err(err, -EINVAL, "%s: %s, where the first input (%s) is %s: the inputs of one import share a format",
                      r->input, names[f], r->inputs[0], names[*fmt]);
    *fmt = f;
    return 0;
}

/* The delimiter of a streamed CSV input, which cannot be read at offsets:
 * sniffed from a copy of its first two lines (ig_csv_sniff_delimiter reads
 * no more than them). */
static char stream_delimiter(const struct import_run *r)
{
    struct ig_spool_opts so = {.cancel = r->o->cancel, .head_lines = 2};
    struct ig_error sub = {0};
    int fd = -1;
    if (ig_spool_input(r->inputs[r->at], &so, &fd, &sub) || fd < 0) return ',';
    char d = ig_csv_sniff_delimiter(fd, r->plain_name ? r->plain_name : "");
    close(fd);
    return d;
}

/* Open the input and its reader for the format. */
int import_open_input(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader **csv,
                      struct ig_lines_reader **lr, struct ig_error *err)
{
    if (r->stream) { /* in_fd is the pipe, read once from its start */
        r->delim = r->o->delimiter                ? r->o->delimiter
                   : fmt != IG_INPUT_CSV            ? ','
                   : r->delims && r->delims[r->at] ? r->delims[r->at] /* its sample's */
                                                    : stream_delimiter(r);
        int rc = fmt == IG_INPUT_CSV ? ig_csv_open(csv, r->in_fd, r->input, r->delim)
                                     : ig_lines_open(lr, r->in_fd, r->input);
        return rc ? ig_err(err, rc, "%s: cannot read: %s", r->input, strerror(-rc)) : 0;
    }
    if (r->spool_fd >= 0) { /* read again from its start (the offset is shared) */
        r->in_fd = fcntl(r->spool_fd, F_DUPFD_CLOEXEC, 0);
        if (r->in_fd < 0 || lseek(r->in_fd, 0, SEEK_SET) < 0)
            return ig_err(err, -errno, "%s: %s", r->input, strerror(errno));
    } else {
        r->in_fd = open(r->input, O_RDONLY | O_CLOEXEC);
    }
    if (r->in_fd < 0) return ig_err(err, -errno, "%s: %s", r->input, strerror(errno));
    struct stat st;
    if (fstat(r->in_fd, &st) == 0) r->in_size = (uint64_t)st.st_size;
    if (fmt == IG_INPUT_NPY) return ig_npy_open(r->in_fd, r->in_size, r->input, &r->npy, err);
    if (fmt == IG_INPUT_PARQUET) return ig_parquet_open(&r->pq, r->in_fd, r->in_size, r->input, err);
    r->delim = r->o->delimiter ? r->o->delimiter : ig_csv_sniff_delimiter(r->in_fd, r->plain_name ? r->plain_name : "");
    int rc = fmt == IG_INPUT_CSV
                 ? ig_csv_open(csv, r->in_fd, r->input, r->delim)
                 : ig_lines_open(lr, r->in_fd, r->input);
    return rc ? ig_err(err, rc, "%s: cannot read: %s", r->input, strerror(-rc)) : 0;
}

int import_end_stream(struct import_run *r, int rc, struct ig_error *err)
{
    if (!r->stream) return rc;
    /* rows that failed may have met the garbage a damaged input decompresses
     * to before the decompression finds it damaged (a gzip member's CRC is
     * at its end): read on to the end, as a copy made first would have, to
     * let it say so; unless the import was interrupted or failed for want
     * of room */
    char drain[65536];
    bool input_error = rc && rc != -EINTR && rc != -ENOMEM && rc != -ENOSPC && rc != -EDQUOT && rc != -EFBIG;
    while (input_error && r->in_fd >= 0 && !(r->o->cancel && *r->o->cancel)) {
        ssize_t n = read(r->in_fd, drain, sizeof drain);
        if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    if (r->in_fd >= 0) close(r->in_fd); /* a reader that stopped early: the thread stops too */
    r->in_fd = -1;
    struct ig_error sub = {0};
    uint64_t written = 0;
    int src = ig_spool_stream_close(r->stream, &written, &sub);
    r->stream = NULL;
    r->stream_bytes = written; /* its bytes read, as a copy's size would count them */
    if (!src) return rc;
    *err = sub;
    return src;
}

int import_rows_from_start(struct import_run *r, enum ig_input_format fmt, bool blobs, struct ig_csv_reader **csv,
                           struct ig_lines_reader **lr, struct ig_error *err)
{
    r->first_head = false;
    r->head_lines = 0;
    r->stream_rows = !blobs;
    if (!r->cut) return 0; /* the head copied was the whole input: its rows are read from it */
    /* the input starts again: its bytes not yet counted as read, nor gone
     * from those after it */
    uint64_t before = r->bytes_before, read = r->read_before,
             after = r->bytes_after + import_size_as_it_lies(r->inputs[0]);
    import_end_input(r, csv, lr);
    r->bytes_before = before;
    r->read_before = read;
    r->bytes_after = after;
    enum ig_input_format f = fmt;
    int rc = import_begin_input(r, 0, &f, err);
    return rc ? rc : import_open_input(r, fmt, csv, lr, err);
}

/* Close what reads the current input; its bytes count as read. */
void import_end_input(struct import_run *r, struct ig_csv_reader **csv, struct ig_lines_reader **lr)
{
    struct ig_error ignored;
    (void)import_end_stream(r, 0, &ignored); /* the import failed: its own error stands */
    if (*csv) ig_csv_close(*csv);
    if (*lr) ig_lines_close(*lr);
    *csv = NULL;
    *lr = NULL;
    ig_parquet_close(r->pq);
    r->pq = NULL;
    if (r->in_fd >= 0) close(r->in_fd);
    if (r->spool_fd >= 0) close(r->spool_fd);
    r->in_fd = r->spool_fd = -1;
    r->bytes_before += r->in_size; /* a stream's as it lies, as the progress counts it */
    r->read_before += r->stream_bytes ? r->stream_bytes : r->in_size;
    r->in_size = r->stream_bytes = 0;
}

void import_free_kept(struct import_run *r)
{
    free(r->delims);
    r->delims = NULL;
    for (size_t k = 0; r->kept && k < r->ninputs; k++)
        if (r->kept[k] >= 0) close(r->kept[k]);
    free(r->kept);
    r->kept = NULL;
}
