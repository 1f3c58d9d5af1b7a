/* remote.h - a table on object storage (s3://BUCKET/PREFIX): what the format
 * does there that it does with files, locks and renames on a file system.
 *
 *     s3://b/t/MANIFEST                  published last by every writer, with
 *                                        If-Match on the ETag it read (If-None-
 *                                        Match for a new table): a writer that
 *                                        lost a race fails, nothing half made
 *     s3://b/t/part-000000.ingot         a part: immutable; an erase writes a
 *     s3://b/t/part-000000.blob          new object under the same name (only
 *                                        the changed ranges uploaded, the rest
 *                                        copied server-side) and removes every
 *                                        older version of it
 *     s3://b/t/.ingot/versions/N, tags   as in a directory (versions.h)
 *     s3://b/t/.ingot/lock/...           the writers' lock (below)
 *     s3://b/t/.ingot/journal            an erase in progress (journal.h's
 *                                        format: only the new bytes)
 *     s3://b/t/.ingot/erasures           the audit log
 *
 * Writers (an import, an erase) take the writers' lock first: each writes an
 * object of its own under .ingot/lock/ and lists them, and the one the store
 * wrote first holds it (remote.c says why and how, and what makes a holder
 * gone: a dead process of this host, or no renewal within
 * INGOT_S3_LOCK_LEASE_S, default 60 s). A writer waits for it up to
 * INGOT_S3_LOCK_WAIT_S (default 30 s), then fails naming the holder. Writes
 * that a store honours conditions on (If-Match, If-None-Match) carry them too,
 * so that a writer whose lock lapsed fails at its commit rather than
 * overwrite another's.
 *
 * An erase on object storage (ig_remote_erase_apply) writes its journal (the
 * same records as on disk) as the object .ingot/journal, the commit point;
 * then each part object the journal names is replaced by the old bytes with
 * the records applied, every older version of it is removed (a bucket that
 * keeps versions keeps the erased values in them otherwise), MANIFEST's
 * generation moves on, and the journal object goes. Replaying is idempotent:
 * a crash at any step leaves every object readable (old or new), and the next
 * writer, or any reader allowed to write, completes the erase. */
#ifndef IG_FORMAT_PART_REMOTE_H
#define IG_FORMAT_PART_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/part/journal.h"
#include "format/part/manifest.h"
#include "util/buf.h"

struct ig_error;

/* A small file of a table (".ingot/versions/0000000003", ".ingot/tags"),
 * read whole into a malloc'd NUL-terminated buffer, from a directory or an
 * object; -ENOENT when there is none. */
int ig_table_file_read(const char *dir, const char *name, size_t max, char **text, size_t *len,
                       struct ig_error *err);
/* The same, and the ETag it was read with into etag (NULL, or IG_ETAG_MAX
 * bytes, store.h; "" for a directory's file): the condition for writing it
 * back only over what was read. */
int ig_table_file_read_etag(const char *dir, const char *name, size_t max, char **text, size_t *len,
                            char *etag, struct ig_error *err);
/* Written whole and atomically (remote tables only: a directory's files are
 * written by their own code). */
int ig_remote_file_write(const char *dir, const char *name, const void *data, size_t len,
                         struct ig_error *err);
/* Names of a table's objects under sub (".ingot/versions/"): fn gets each. */
int ig_remote_list(const char *dir, const char *sub, int (*fn)(void *ctx, const char *name),
                   void *ctx, struct ig_error *err);
/* Remove a table object, and every older version of it. */
int ig_remote_remove(const char *dir, const char *name, struct ig_error *err);

struct ig_remote_lock {
    char dir[4096];
    char name[256];  /* our entry under .ingot/lock/ */
    int64_t renewed; /* when (monotonic seconds) */
    bool held;
    bool lost;          /* taken over while held: every renewal after fails too */
    bool alive_written; /* its renewal object (NAME.alive) was written */
};
/* Take the writers' lock of the table at dir, waiting up to wait_ms (0: try
 * once). -EBUSY naming the holder when it stays taken. */
int ig_remote_lock(const char *dir, unsigned wait_ms, struct ig_remote_lock *l,
                   struct ig_error *err);
/* Say we are still at work (a long erase), at most every few seconds;
 * -ESTALE when the lock was taken over meanwhile: the writer must stop, and
 * every later call says so again (threads of one writer that share the lock
 * each find out, not only the first that asked). */
int ig_remote_lock_renew(struct ig_remote_lock *l, struct ig_error *err);
void ig_remote_unlock(struct ig_remote_lock *l);

/* The multipart uploads under a table's prefix that were started and never
 * completed (an import or an erase killed mid-upload), aborted: their parts
 * are stored until then and may hold copies of rows erased since, and no
 * listing of objects shows them. The caller holds the writers' lock, so none
 * of the table's writers has one in flight; with l, it is renewed before each
 * abort (a long gc), and one that lapsed stops them (-ESTALE). f steps after
 * each (NULL: none). *n (may be NULL): how many were found; dry_run: only
 * that. A directory has none. */
int ig_remote_abort_uploads(const char *dir, bool dry_run, struct ig_remote_lock *l,
                            struct ig_fault *f, uint64_t *n, struct ig_error *err);

/* Upload files built in local_dir (names relative to it and to the table),
 * large ones in parts; sent (NULL: none) is told the bytes as they go. */
int ig_remote_upload(const char *local_dir, const char *dir, const char *const *names, size_t n,
                     void (*sent)(void *ctx, uint64_t bytes), void *sent_ctx, struct ig_error *err);
/* Publish m as the table's MANIFEST, the commit point: only over the MANIFEST
 * whose ETag is if_match, or only where there is none (if_absent). A failed
 * condition is -ESTALE: another writer committed first. */
int ig_remote_manifest_publish(const char *dir, const struct ig_manifest *m, const char *if_match,
                               bool if_absent, struct ig_error *err);
/* Append one line to a log object (the audit log): read, append, publish
 * under If-Match, again when another writer appended first. */
int ig_remote_append_line(const char *dir, const char *name, const char *line,
                          struct ig_error *err);

/* What an erase did to the objects. */
struct ig_remote_report {
    uint64_t objects_replaced, bytes_uploaded, bytes_copied, versions_removed;
    struct ig_buf removed; /* "NAME@VERSION " for each object version removed (audit log) */
};
void ig_remote_report_free(struct ig_remote_report *r);

/* Is there an erase's journal object? */
bool ig_remote_journal_pending(const char *dir);
/* Commit a journal written locally (journal.h) as the table's journal
 * object: from then on the erase completes, now or on replay. */
int ig_remote_journal_commit(const char *dir, const char *journal_path, struct ig_fault *f,
                             struct ig_error *err);
/* Apply the committed journal (its local copy at journal_path) to the
 * table's objects, raise MANIFEST's generation, remove the journal object.
 * The caller holds l. `made` (NULL: none) is called by the calling thread
 * with the bytes of the new objects in the store (uploaded, or copied there
 * by the store) of all they will hold, from 0 to the whole, as each object
 * or multipart part is done; it costs a HEAD of each object ahead (several
 * at once), before any is made. */
int ig_remote_journal_apply(const char *dir, const char *journal_path, struct ig_remote_lock *l,
                            struct ig_fault *f, ig_journal_progress_fn made, void *made_ctx,
                            struct ig_remote_report *rep, struct ig_error *err);
/* Complete an interrupted erase, if there is one; the caller holds the lock
 * (commit.h's ig_remote_settle takes it, and settles a change of columns
 * too). *replayed says whether one was completed. */
int ig_remote_recover_locked(const char *dir, struct ig_remote_lock *l, bool *replayed,
                             struct ig_error *err);

/* A local scratch directory for a writer's files before they are uploaded:
 * under INGOT_STAGE_DIR, else TMPDIR, else /tmp, named ingot-stage.HOST-PID-*;
 * made with .ingot/ inside. Those of this host's writers that are gone
 * (killed) are removed first. */
int ig_remote_stage_dir(char *out, size_t cap, struct ig_error *err);

#endif
