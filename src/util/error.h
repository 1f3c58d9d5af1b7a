/* error.h - the error type every fallible ingot function fills.
 *
 * Contract: a function that can fail returns 0 on success or a negative errno
 * (-EIO for corrupt data, -EINVAL for bad input, -ENOMEM, ...) and, when given a
 * non-NULL struct ig_error, writes a one-line message naming what failed (file,
 * column, page, row, line). Library code never prints, exits or aborts on bad input.
 */
#ifndef IG_UTIL_ERROR_H
#define IG_UTIL_ERROR_H

#include <stdarg.h>

#define IG_ERROR_MSG_MAX 512

struct ig_error {
    int code;                   /* negative errno, 0 when clear */
    char msg[IG_ERROR_MSG_MAX]; /* NUL-terminated, never a trailing newline */
};

/* Record an error and return `code` (a negative errno), so callers can write
 * `return ig_err(err, -EIO, "%s: page %u: bad length", path, page);`.
 * A NULL err is allowed and only the code is returned. */
int ig_err(struct ig_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix context to an already-set message: "ctx: old message". Returns err->code
 * (or `code` if the error was not set). Used to add file names as errors rise. */
int ig_err_prefix(struct ig_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Code 0 and an empty message. In a loop over values, clear one error per
 * value with this rather than `struct ig_error e = {0}`, which zeroes all
 * IG_ERROR_MSG_MAX bytes (it was a tenth of a CSV import). */
void ig_err_clear(struct ig_error *err);

#endif
