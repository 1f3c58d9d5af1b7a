/* csv_cut.h - where a CSV may be cut between records, without parsing it.
 *
 * In RFC 4180 text (csv.h) every '"' opens a quoted field, closes one, or is
 * half of a "" inside one, so a line feed ends a record exactly when an even
 * number of quotes precede it (counted from a record start). Anything that
 * breaks this rule is a parse error at or before the first line feed it would
 * misplace, so pieces cut here and parsed apart (csv_rows.h) find the same
 * first error as one parser reading the whole input would.
 *
 * What this does not do: it looks at '"' and '\n' only, so it does not check
 * the text (the parser does) and does not know about delimiters or CR. */
#ifndef IG_IMPORT_CSV_CUT_H
#define IG_IMPORT_CSV_CUT_H

#include <stddef.h>
#include <stdint.h>

/* p[0..len) starts at a record start. Returns the length of the longest
 * prefix that ends just after a record's line feed (0: no record ends in it),
 * and in *lines the line feeds in that prefix (quoted ones included: the
 * parser's line numbers count physical lines). */
size_t ig_csv_cut(const char *p, size_t len, uint64_t *lines);

#endif
