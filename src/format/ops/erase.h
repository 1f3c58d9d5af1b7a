/* erase.h - erase rows for real: in place, crash-safe, provable.
 *
 * For every column at compliance level 2 (the default), each page holding an
 * erased row is rewritten without growing: the row's validity bit is cleared and
 * its value overwritten or dropped by the page encoding's own rule (codec.h,
 * docs/ERASURE.md); zstd pages are decompressed, erased and recompressed, and a
 * page that would no longer fit its extent moves to the end of the file (its old
 * extent zero-filled, the footer rewritten after it). Blob columns drop the row's
 * references and zero-fill its objects in the blob file. At level 1 only the
 * deletion bit is set. Either way the row disappears from every view: the page
 * records' deleted counts and text lengths, the deletion bitmap, the row-group
 * hashes and the root hash are updated along their Merkle paths.
 *
 * Every byte to be written goes into a redo journal first (journal.h); the table
 * lock serialises erases between processes. The audit log TABLE/.ingot/erasures
 * gets one line per erase: time, origin, request (values redacted), rows
 * affected, pages and bytes rewritten. */
#ifndef IG_FORMAT_ERASE_H
#define IG_FORMAT_ERASE_H

#include <stddef.h>
#include <stdint.h>

#include "format/part/table.h"

struct ig_error;

struct ig_erase_where {
    const char *column;
    const char *value; /* text form as in CSV / COPY; "\N" matches NULL */
};

struct ig_erase_request {
    const uint64_t *rows; /* global row ids */
    size_t nrows;
    const struct ig_erase_where *where;
    size_t nwhere;
    const char *origin;   /* "cli" or "mount", for the audit log */
    int64_t uid, pid;     /* who asked (the audit log names them); -1 if unknown */
    /* Called now and then by the thread that called ig_erase while the erase
     * goes through the column chunks holding its rows: `done` of `total`
     * stored bytes of those chunks (all counted before the first is erased).
     * What follows (the journal's commit and apply) is not counted. NULL:
     * not called. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* On object storage, called the same way while the touched part objects
     * are replaced: bytes of the new objects in the store (uploaded, or
     * copied by the store) of all they will hold. NULL: not called (and no
     * HEAD of each object ahead). */
    void (*replace_progress)(void *ctx, uint64_t done, uint64_t total);
    void *replace_progress_ctx;
};

struct ig_erase_report {
    uint64_t rows;            /* rows erased */
    uint64_t pages_rewritten; /* page images rewritten (level 2) */
    uint64_t pages_moved;     /* of which relocated */
    uint64_t records;         /* page records updated (any level) */
    uint64_t blob_objects;    /* objects zero-filled in blob files */
    uint64_t dict_segments;   /* chunk dictionary segments zeroed (only erased values held them) */
    uint64_t dict_blocks;     /* blocks compressed again against a dictionary so zeroed */
    uint64_t vdict_entries;   /* value dictionary entries erased (only erased values named them) */
    uint64_t contexts_moved;  /* chunk contexts packed again that outgrew their place (format 22) */
    uint64_t bytes_written;   /* to part files, journal excluded */
    uint64_t journal_bytes;
    uint64_t generation;      /* the table generation after the erase (MANIFEST) */
    /* on object storage (remote.h): objects replaced, bytes uploaded and
     * copied server-side to make them, older object versions removed */
    uint64_t objects_replaced, bytes_uploaded, bytes_copied, versions_removed;
    uint64_t *ids;            /* the erased row ids, sorted (free()) */
};

/* Resolve the request against an open table: explicit ids must exist and be live
 * (-ENOENT otherwise); where-columns must exist and values parse (-EINVAL).
 * Returns the sorted, distinct row ids (malloc'd). */
int ig_erase_resolve(const struct ig_table *t, const struct ig_erase_request *req, uint64_t **ids,
                     size_t *n, struct ig_error *err);

/* Check one `--where COLUMN=VALUE` clause without scanning: the column must
 * exist and hold values that can be compared (not blob, not nested), and the
 * value must parse as the column's type ("\\N" is NULL). -EINVAL with a message
 * naming the column otherwise. `ingot erase` and the mount's control file both
 * check through this (ig_erase_resolve applies the same rule). */
int ig_erase_check_where(const struct ig_table *t, const char *column, const char *value,
                         struct ig_error *err);

/* Take the table lock, replay any interrupted erase, resolve and erase. Nothing
 * is changed when resolution fails. Erasing rewrites the part files in place:
 * without write permission on the table directory and its files this fails at
 * once with -EACCES and a message saying so. */
int ig_erase(const char *dir, const struct ig_erase_request *req, struct ig_erase_report *rep,
             struct ig_error *err);

#endif
