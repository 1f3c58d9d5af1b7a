/* csv.h - streaming RFC 4180 reader over a file descriptor.
 *
 * Grammar (RFC 4180 with the usual relaxations):
 *   - records end with LF or CR LF; the last record may lack a terminator;
 *     a file ending in a terminator has no empty record after it;
 *   - an empty line elsewhere is a record of one empty unquoted field (as in
 *     PostgreSQL COPY: in a one-column file it is a NULL);
 *   - fields are separated by the delimiter (any byte but '"', CR, LF);
 *   - a field that starts with '"' is quoted: it runs to the matching '"',
 *     may contain delimiters, CR, LF (kept byte for byte, including CR LF)
 *     and '""', which stands for one '"';
 *   - a UTF-8 byte order mark at the start of the input is skipped;
 *   - the number of fields may vary between records (the caller checks).
 * Errors, each "PATH:LINE: ..." with LINE the physical 1-based line of the
 * offending byte:
 *   - "unterminated quoted field" (LINE is where the field's quote opened);
 *   - a '"' inside an unquoted field;
 *   - anything but a delimiter or line end after a closing quote;
 *   - a CR not followed by LF outside quotes (old Mac line endings would
 *     otherwise silently turn the file into one record);
 *   - a record longer than the limit (1 GiB by default), read errors.
 * After an error the reader's position is unspecified: stop reading.
 *
 * Field values: quotes removed and '""' unescaped. `quoted` tells an empty
 * unquoted field (a NULL, by convention) from "" (an empty string). Pointers
 * are valid until the next call to ig_csv_next/ig_csv_rewind/ig_csv_close.
 * No per-field allocation: values point into the read buffer, except quoted
 * fields containing '""', which are unescaped into a reused scratch buffer.
 * Bytes are not validated as UTF-8 here (the importer does, per column).
 *
 * The reader never closes fd, reads from fd's position at open time, and
 * ig_csv_rewind returns to that position (same rules as ig_lines_rewind:
 * works without lseek while the input read so far fits in the buffer). */
#ifndef IG_IMPORT_CSV_H
#define IG_IMPORT_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;
struct ig_csv_reader;

struct ig_csv_field {
    const char *p;
    size_t len;
    bool quoted;
};

struct ig_csv_record {
    size_t nfields; /* >= 1 */
    const struct ig_csv_field *fields;
    uint64_t line; /* 1-based line where the record starts */
};

/* The delimiter of a CSV file read with none given: a tab where its name
 * (before a final .gz or .zst) ends in .tsv or .tab; else ',' unless its
 * first line holds no comma and holds tabs, ';' or '|', as many in its second
 * line (a European CSV of ';', a TSV by another name). fd is read at offset 0
 * (pread: its position stays). */
char ig_csv_sniff_delimiter(int fd, const char *name);

/* -ENOMEM, or -EINVAL for a delimiter that is '"', '\r' or '\n'. path is
 * copied and only used in messages. */
int ig_csv_open(struct ig_csv_reader **r, int fd, const char *path_for_messages, char delimiter);
/* 1 and *rec filled, 0 at end of input, negative errno with err set. */
int ig_csv_next(struct ig_csv_reader *r, struct ig_csv_record *rec, struct ig_error *err);
/* Restart at the first record (the BOM is skipped again). 0, -ESPIPE, -errno. */
int ig_csv_rewind(struct ig_csv_reader *r);
void ig_csv_close(struct ig_csv_reader *r);
/* Parse p[0..len) from now on as the rest of the input, its first byte on
 * `line` and at a record start: nothing is read from fd or copied, the end of p
 * is the end of input. Several threads each parse a piece of one CSV this way
 * (csv_rows.h), each with its own reader; p must outlive the parsing. */
void ig_csv_borrow(struct ig_csv_reader *r, const char *p, size_t len, uint64_t line);
/* What the reader has read from fd but not parsed yet: *p, the returned
 * length, the line of *p, and whether fd is at its end. Whoever goes on
 * reading fd itself starts with these bytes. Valid until the next call. */
size_t ig_csv_unparsed(const struct ig_csv_reader *r, const char **p, uint64_t *line, bool *eof);
/* Initial buffer size and maximum record size in bytes (0 keeps the current
 * value). Only before the first ig_csv_next; for tests and fuzzing. */
void ig_csv_set_limits(struct ig_csv_reader *r, size_t bufsize, size_t max_record);

#endif
