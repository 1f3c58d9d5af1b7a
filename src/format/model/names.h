/* names.h - column names as file names, and back.
 *
 * A column name can hold any UTF-8 except NUL, but a file name cannot hold '/'
 * and cannot be "." or "..", and the views add suffixes (".npy", ".valid.npy")
 * that a column's own name might end with. The escaping (docs/FILESYSTEM.md):
 *
 *   - '%' and '/' become %25 and %2F;
 *   - a name that is exactly "." or ".." has its dots written %2E;
 *   - a name ending in ".npy" or in a view stem (".valid", ".values",
 *     ".offsets", ".f16") has that ending's '.' written %2E (so column "x.npy"
 *     is the file "x%2Enpy", never column x's array, and column "x.valid" has
 *     the array "x%2Evalid.npy", never column x's validity);
 *   - the name "_rowid" is written %5Frowid (columns/_rowid.npy is reserved).
 *
 * Every column has exactly one file name; a file name that is not the canonical
 * escape of some name is not found (no aliases, no collisions). */
#ifndef IG_FORMAT_NAMES_H
#define IG_FORMAT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "format/model/fs_view.h"

#define FS_NAME_MAX 255

/* Escape name into out (cap >= 3 * len + 1 is always enough). Returns the length,
 * or 0 if it would not fit in a file name (FS_NAME_MAX bytes with the longest
 * suffix): such a column is reachable through schema.json only. */
size_t fs_escape_name(const char *name, size_t len, char *out, size_t cap);

/* Split a directory entry of columns/ into its base and view, then unescape the
 * base into out. Returns false for names that cannot be canonical escapes. */
bool fs_parse_column_file(const char *file, char *out, size_t cap, size_t *out_len,
                          enum fs_view *view);

/* "blobs/ESCAPED" for a blob column (its directory in the mount). */
void ig_blob_dir_name(const char *name, size_t len, char *out, size_t cap);

/* The suffix a view adds: "", ".npy", ".valid.npy", ".values.npy", ... */
const char *fs_view_suffix(enum fs_view v);

#endif
