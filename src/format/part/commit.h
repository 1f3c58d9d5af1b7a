/* commit.h - a change that makes a new table version, all or nothing.
 *
 *     ig_commit_begin    take the table lock, finish what a crash left, open
 *                        the current version; the next one starts as its copy
 *     ig_commit_graft    add columns to a part (graft.h), past its footer
 *     (edit c->next)     which columns the new version shows (c->next.columns)
 *     ig_commit_finish   write the version's file, then MANIFEST (the commit
 *                        point), then zero the footers it superseded
 *     ig_commit_end      roll back what did not commit, unlock, close
 *
 * Before the first graft writes a byte, TABLE/.ingot/commit records the
 * version being made and, for every part, its size and the footer it had.
 * Whoever next takes the lock (a writer, or a reader finishing a crashed
 * writer's work, as for an erase's journal) and finds that record looks at
 * MANIFEST: if it names the version, the commit happened and the superseded
 * footers are zeroed; if not, every part is cut back to its recorded size
 * (the bytes past it zeroed first: they held the new columns' values), and
 * so is its blob file (new blob columns' objects are appended to it). So a
 * kill at any step leaves the old table or the new one, and no copy of values
 * the table does not reference.
 *
 * On object storage (s3://, remote.h) the same steps hold the writers' lock
 * object instead of the lock file (commit_remote.c): the new columns' pages
 * and footers are written into local copies of the parts (sparse files of the
 * objects' sizes: nothing of the old bytes is fetched), then the record is
 * written as the object .ingot/commit, then each grafted part object is
 * replaced by one with the new bytes after its own (the store copies the old
 * ones where it can) and its superseded footer's bounds cleared (it stays
 * valid for readers of the version before; bounds are the only values a
 * footer holds, so it need not be zeroed by a second replacement), then the
 * version's object and MANIFEST, published only over the ETag read (the
 * commit point), then the record goes. Every replaced object's older
 * versions are removed. A crash leaves the record: the next writer settles
 * it (ig_commit_settle_remote), as on a directory.
 *
 * What it does not do: decide what the new columns hold (ops/evolve.c) or
 * change a part's existing pages (erasure: journal.h). */
#ifndef IG_FORMAT_PART_COMMIT_H
#define IG_FORMAT_PART_COMMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/part/commitlog.h"
#include "format/part/graft.h"
#include "format/part/journal.h"
#include "format/part/remote.h"
#include "format/part/table.h"

struct ig_error;

struct ig_commit_part {
    uint64_t size;       /* the file's size when the commit began */
    uint64_t footer_off; /* its footer then: zeroed once superseded */
    uint64_t footer_end;
    bool grafted;
    char blob[IG_PART_NAME_MAX]; /* its blob file (MANIFEST's, or the name it would have) */
    uint64_t blob_size;          /* its size then; 0: none */
};

/* What a commit on object storage sent (0 on a directory). */
struct ig_commit_traffic {
    uint64_t objects_replaced, bytes_uploaded, bytes_copied; /* copied: by the store */
};

struct ig_commit {
    char dir[4096];
    int lock_fd;
    bool remote;                 /* on object storage: */
    struct ig_remote_lock rlock; /* the writers' lock, held when rlock.held */
    char stage[4096];            /* local copies of the parts being grafted ("": none) */
    struct ig_commit_traffic traffic;
    ig_journal_progress_fn replace_progress; /* the objects' replacement (NULL: not told) */
    void *replace_progress_ctx;
    bool have_table, journaled, committed;
    struct ig_table table;        /* the current version (footers as MANIFEST names them) */
    struct ig_manifest next;      /* the version being made */
    struct ig_commit_part *parts; /* per part of table */
    struct ig_fault fault;        /* INGOT_FAULT_AFTER / INGOT_PAUSE_AFTER (journal.h) */
};

/* `change`: what the version does, one line for `ingot versions`. */
int ig_commit_begin(struct ig_commit *c, const char *dir, const char *change, struct ig_error *err);
/* Add the columns of `add` to part `part` (graft.h); their ids are the next
 * ones the parts' footers number (every part gets the same). */
int ig_commit_graft(struct ig_commit *c, uint32_t part, const struct ig_schema *add,
                    const struct ig_writer_opts *o, ig_graft_fill_fn fill, void *ctx,
                    struct ig_error *err);
int ig_commit_finish(struct ig_commit *c, struct ig_error *err);
void ig_commit_end(struct ig_commit *c);

/* Before a writer changes a table on object storage (holding l): an erase
 * or a commit a crash interrupted completed or rolled back (remote.h's
 * ig_remote_recover_locked, then the commit record). *replayed: an erase was
 * completed. */
int ig_commit_settle_remote(const char *dir, struct ig_remote_lock *l, bool *replayed,
                            struct ig_error *err);
/* The same for a reader allowed to write (verify), taking the lock only when
 * there is something to settle (an erase's journal or a commit record: a
 * HEAD each), waiting up to wait_ms (ig_remote_lock); a lock a live writer
 * holds means that writer is at work, and nothing is done. */
int ig_remote_settle(const char *dir, unsigned wait_ms, bool *replayed, struct ig_error *err);

/* A manifest's columns as an explicit set (format 1 and new tables show
 * every record: 0 .. num_columns - 1). */
int ig_manifest_columns_explicit(struct ig_manifest *m, uint32_t num_columns);

#endif
