/* lines.h - buffered line reader over a file descriptor (JSON Lines input),
 * and the refill machinery it shares with the CSV reader.
 *
 * Contract:
 *   - ig_lines_next returns each line without its terminator ("\n" or "\r\n";
 *     a '\r' not followed by '\n' is part of the line), with its 1-based line
 *     number. The last line need not end in '\n'; an empty last line (the file
 *     ends with '\n') is not returned. A UTF-8 byte order mark at the start of
 *     the stream is skipped (RFC 8259 allows parsers to ignore it).
 *   - Lines of any length are supported by growing the buffer, up to a limit
 *     (default IG_INPUT_MAX_RECORD, 1 GiB) that turns a file with no newlines
 *     into an error instead of an out-of-memory kill.
 *   - The returned pointer is valid until the next call on the reader.
 *   - The reader never closes fd. It reads from fd's position at open time.
 *   - ig_lines_rewind restarts at that position, so a driver can sample lines
 *     for type inference and re-read. While nothing has been dropped from the
 *     buffer (the input so far fits in it, >= 1 MiB) rewinding needs no lseek,
 *     so sampling works on pipes too; otherwise an unseekable fd gives -ESPIPE.
 *
 * Buffering: one buffer of IG_INPUT_BUFSIZE (1 MiB) that is refilled by
 * reading until it is full, compacted when the consumer needs more, and
 * doubled when a single record does not fit. No per-line allocation. */
#ifndef IG_IMPORT_LINES_H
#define IG_IMPORT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ig_error;

#define IG_INPUT_BUFSIZE   ((size_t)1 << 20)
#define IG_INPUT_MAX_RECORD ((size_t)1 << 30)

struct ig_lines_reader;

/* -ENOMEM only. path is copied and used in messages ("PATH:LINE: ..."). */
int ig_lines_open(struct ig_lines_reader **r, int fd, const char *path);
/* 1 with a line, 0 at end of input, negative errno on a read error or a line
 * longer than the limit (err says which, with the line number). */
int ig_lines_next(struct ig_lines_reader *r, const char **line, size_t *len, uint64_t *lineno,
                  struct ig_error *err);
/* 0, or -ESPIPE / -errno from lseek (see above). */
int ig_lines_rewind(struct ig_lines_reader *r);
void ig_lines_close(struct ig_lines_reader *r);
/* Override the initial buffer size and the maximum line length (0 keeps the
 * current value). Only before the first ig_lines_next; meant for tests and
 * fuzzing, where tiny buffers exercise the refill paths. */
void ig_lines_set_limits(struct ig_lines_reader *r, size_t bufsize, size_t max_line);

/* ---- shared with csv.c: the input buffer ---------------------------------
 * buf[pos..len) is unconsumed input; a consumer parses from pos and, when a
 * record runs past len, calls ig_inbuf_fill and parses the record again from
 * the (possibly moved) pos. After a successful fill either len == cap or eof
 * is set, so one record is re-parsed at most O(log size) times and total
 * work stays linear. */
struct ig_inbuf {
    int fd;
    char *path;
    const char *unit;  /* "line" or "record", for the too-long message */
    char *buf;
    size_t cap, len, pos;
    size_t init_cap;   /* first allocation (lazy, at the first fill) */
    size_t max_record; /* fill fails once a record at pos would exceed this */
    uint64_t line;     /* 1-based line number of buf[pos], kept by the consumer */
    off_t start_off;   /* fd position at open; -1 when unseekable */
    bool eof;          /* read() returned 0: buf[len] is the end of input */
    bool discarded;    /* bytes from the stream start were dropped (rewind needs lseek) */
    bool at_start;     /* BOM not yet checked */
    bool borrowed;     /* buf is the caller's whole input (ig_inbuf_borrow): never freed */
};

int ig_inbuf_init(struct ig_inbuf *b, int fd, const char *path);
void ig_inbuf_free(struct ig_inbuf *b);
/* Make more input available after len, moving buf[pos..len) to the front
 * and/or growing the buffer first. Returns 1 when bytes were added, 0 at end
 * of input (eof set, nothing added), or a negative errno with "PATH:LINE: ..."
 * in err (read error, or the record at pos exceeds max_record). */
int ig_inbuf_fill(struct ig_inbuf *b, struct ig_error *err);
/* Skip a UTF-8 BOM if the stream starts with one (call before parsing; cheap
 * no-op after the first call). 0 or a negative errno from reading. */
int ig_inbuf_start(struct ig_inbuf *b, struct ig_error *err);
/* Back to the start position (see ig_lines_rewind). Resets line to 1. */
int ig_inbuf_rewind(struct ig_inbuf *b);
/* Parse p[0..len) as the whole input from here on, its first byte on `line`:
 * nothing is read or copied, the end of p is the end of input (eof), no BOM is
 * looked for. p stays the caller's and must outlive the parsing. */
void ig_inbuf_borrow(struct ig_inbuf *b, const char *p, size_t len, uint64_t line);

#endif
