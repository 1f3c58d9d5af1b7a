/* journal.h - redo journal: all or nothing for in-place changes to a table.
 *
 * An erase first computes every byte it will write (new page images, footer
 * ranges, tails), puts them in a journal, and makes the journal durable
 * (TABLE/.ingot/journal.tmp, fsync, rename to TABLE/.ingot/journal, fsync the
 * directory: the rename is the commit point). Only then are the part files
 * written and fsynced, and the journal removed. Whoever opens the table next
 * (CLI or mount) and finds a journal replays it: the writes are idempotent, so
 * a crash at any point leaves the change either not started (no journal) or
 * completed on replay. The journal holds only the new bytes - zeros where values
 * are erased - never the erased values. Once the part files are durable, the
 * journal's table generation is written to MANIFEST (atomically), so every
 * reader on every host sees the change as a new table generation.
 *
 * File layout (little-endian; varints are LEB128, util/varint.h):
 *     "IGJRNL02"
 *     records: u8 4 | u8 name length | name   (the file of the records after it)
 *              u8 1 | varint offset | varint length | bytes   (write)
 *              u8 2 | varint offset | varint length           (zero-fill)
 *              u8 3 | u64 generation (the table generation once applied)
 *     u8 0 (end) | u64 XXH3 of everything before | "IGJEND01"
 * Names are part file names inside the table directory (no paths); a write or
 * zero-fill before any file record is malformed. Version 1 ("IGJRNL01", left
 * by an older binary's crash, still replayed) named the file in every record:
 * u8 kind | u16 name length | name | u64 offset | u32 length | bytes. */
#ifndef IG_FORMAT_JOURNAL_H
#define IG_FORMAT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/hash.h"

struct ig_error;

/* Test hooks: with INGOT_FAULT_AFTER=N in the environment, the process kills
 * itself (SIGKILL, no cleanup) right after its Nth durable step (a write, fsync,
 * rename or unlink) of an erase, to prove crash safety; with INGOT_PAUSE_AFTER=N
 * it stops itself there (SIGSTOP, lock held) until sent SIGCONT, so a test can
 * read the table through a mount at each step of an erase. */
struct ig_fault {
    uint64_t after; /* 0 = off */
    uint64_t pause_after; /* 0 = off */
    uint64_t steps;
};
void ig_fault_init(struct ig_fault *f);
void ig_fault_step(struct ig_fault *f);

struct ig_journal {
    struct ig_buf buf;   /* records not yet in the file */
    uint64_t bytes;      /* payload bytes */
    uint32_t records;
    int fd;              /* journal.tmp when streaming (ig_journal_stream), else -1 */
    int write_error;     /* first failed write to it, reported by commit */
    uint64_t spilled;    /* bytes already in the file */
    struct ig_hasher hash; /* of what went to the file so far */
    char file[256];      /* the file the last file record named ("" before one) */
    char tmp[4200];
};

void ig_journal_init(struct ig_journal *j);
void ig_journal_free(struct ig_journal *j);
int ig_journal_add(struct ig_journal *j, const char *name, uint64_t offset, const void *data,
                   size_t len);
/* Move the records of `from` (an in-memory journal: a helper thread's share of
 * an erase) to the end of j, leaving `from` empty. */
int ig_journal_take(struct ig_journal *j, struct ig_journal *from);
/* Writes for the byte ranges where `new` differs from `old` (len bytes each,
 * the file's bytes at `offset` now and as they are to be), nearby ranges
 * merged; *written grows by the bytes journaled. 0 or -ENOMEM. */
int ig_journal_diff(struct ig_journal *j, const char *name, uint64_t offset, const uint8_t *old,
                    const uint8_t *new, size_t len, uint64_t *written);
/* Zero [offset, offset + len) of a file (erased blob objects). */
int ig_journal_zero(struct ig_journal *j, const char *name, uint64_t offset, uint64_t len);

/* Raise the table's generation (MANIFEST) to `generation` once the writes are
 * applied. */
int ig_journal_generation(struct ig_journal *j, uint64_t generation);

/* Write records to dir/.ingot/journal.tmp as they come (in 8 MiB batches)
 * instead of holding them all: memory stays flat however much an erase
 * rewrites. Freeing an uncommitted journal removes the file. */
int ig_journal_stream(struct ig_journal *j, const char *dir, struct ig_error *err);
/* Make the journal durable in dir/.ingot/journal (the commit point); a journal
 * that was not streamed is written the same way, all at once. */
int ig_journal_commit(struct ig_journal *j, const char *dir, struct ig_fault *f,
                      struct ig_error *err);
/* Apply the committed journal's writes to the part files, fsync them, remove the
 * journal. */
int ig_journal_apply(const char *dir, struct ig_fault *f, struct ig_error *err);
/* The same, telling `progress` after each record the bytes written and
 * zero-filled so far of all the journal's (counted by a walk of it first). */
typedef void (*ig_journal_progress_fn)(void *ctx, uint64_t done, uint64_t total);
int ig_journal_apply_progress(const char *dir, struct ig_fault *f, ig_journal_progress_fn progress,
                              void *ctx, struct ig_error *err);

/* Every write and zero-fill of a committed journal file (checked whole
 * first), in order, without applying it: for a table on object storage,
 * whose objects are rewritten whole (remote.h). A write's bytes are not read:
 * data_at is where they lie in the journal file. *generation: the highest
 * generation record. */
struct ig_journal_rec {
    bool zero;          /* a zero-fill, else a write */
    const char *file;   /* a part file name (no path) */
    uint64_t off, len;
    uint64_t data_at;   /* a write: offset of its bytes in the journal file */
};
typedef int (*ig_journal_visit_fn)(void *ctx, const struct ig_journal_rec *r);
int ig_journal_walk(const char *path, ig_journal_visit_fn fn, void *ctx, uint64_t *generation,
                    struct ig_error *err);

/* If dir has a committed journal, replay it (caller holds the table lock).
 * *replayed tells whether there was one. A torn journal.tmp is discarded. */
int ig_journal_recover(const char *dir, bool *replayed, struct ig_error *err);
/* Cheap check for a pending journal (no lock needed). */
bool ig_journal_pending(const char *dir);

#endif
