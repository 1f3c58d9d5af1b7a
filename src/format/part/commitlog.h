/* commitlog.h - the record of a commit at work, and what a crash left of one.
 *
 * TABLE/.ingot/commit (text, written atomically, with a hash line as
 * MANIFEST's) names the version being made and, per part, the file's size when
 * the commit began and the footer it had (offset, end):
 *
 *     ingot-commit 1
 *     version 8
 *     part part-000000.ingot SIZE FOOTER_OFFSET FOOTER_END
 *     blob part-000000.blob SIZE
 *     end XXH3-HEX
 *
 * A blob line names the part's blob file (new blob columns append objects to
 * it) and its size then, 0 when there was none.
 *
 * Recovery (the lock held): if MANIFEST names the version, the commit happened
 * and each part's footer it superseded (where MANIFEST's footer= moved on) is
 * zeroed; if not, each part and blob file is cut back to its recorded size
 * (the bytes past it zeroed first; a blob file that was not there is zeroed
 * and removed) and the version's file removed. Then the record goes.
 * commit.h writes it; table.c recovers before reading.
 *
 * On object storage (s3://) the record is the object .ingot/commit, written
 * before any part object changes, and recovery is the same decision made on
 * objects (commit_remote.c): a superseded footer zeroed, or the bytes past
 * the recorded size zeroed (an object is not cut: its size stays, zeros
 * after its tail; the old footer, which the change left unbounded, gets its
 * bounds back from the new one) and a blob object the commit made removed,
 * each object rewritten whole with the store's copy of what stays. */
#ifndef IG_FORMAT_PART_COMMITLOG_H
#define IG_FORMAT_PART_COMMITLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/part/manifest.h"

struct ig_error;

#define IG_COMMIT_FILE ".ingot/commit"

struct ig_commitlog_part {
    char name[IG_PART_NAME_MAX];
    uint64_t size, footer_off, footer_end;
    bool blob; /* a blob line: name and size only */
};

int ig_commitlog_write(const char *dir, uint64_t version, const struct ig_commitlog_part *parts,
                       size_t n, struct ig_error *err);
/* The record's text (len bytes, NUL after them; written into), checked: its
 * hash, header, version, part and blob lines; `what` names it in messages. */
int ig_commitlog_parse(char *text, size_t len, const char *what, uint64_t *version,
                       struct ig_commitlog_part **parts, size_t *n, struct ig_error *err);
void ig_commitlog_remove(const char *dir);
/* Zero [from, to) of part `name` (a superseded footer and its tail), fsynced. */
int ig_commitlog_zero_footer(const char *dir, const char *name, uint64_t from, uint64_t to,
                             struct ig_error *err);
/* The record, checked: -ENOENT when there is none. */
int ig_commitlog_read(const char *dir, uint64_t *version, struct ig_commitlog_part **parts,
                      size_t *n, struct ig_error *err);
/* A commit a crash interrupted: completed or rolled back (caller holds the
 * table lock). No record: 0. */
int ig_commit_recover(const char *dir, struct ig_error *err);

/* How recovery changes a table's files: a directory's in place (above), or a
 * bucket's objects (commit_remote.c), told every change first, then `done`
 * (which makes them so, all at once on object storage), then the version's
 * file goes (rolled back) and `remove_record` removes the record. */
struct ig_commitlog_ops {
    int (*zero_footer)(void *ctx, const char *name, uint64_t from, uint64_t to,
                       struct ig_error *err);
    /* the bytes of part (or blob) file rp past its recorded size zeroed (a
     * directory's file cut back too); size 0: a blob file the commit made,
     * removed */
    int (*cut_back)(void *ctx, const struct ig_commitlog_part *rp, struct ig_error *err);
    int (*done)(void *ctx, struct ig_error *err);
    int (*remove_record)(void *ctx, struct ig_error *err);
};
int ig_commitlog_settle(const char *dir, const struct ig_commitlog_ops *ops, void *ctx,
                        struct ig_error *err);
/* Cheap check (no lock): is there a record? */
bool ig_commit_pending(const char *dir);

#endif
