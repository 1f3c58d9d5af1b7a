/* tag.h - `ingot tag`: a version named, or a name let go, by one writer at a
 * time, on a file system or object storage alike.
 *
 * A writer of either kind holds the table the way its storage allows
 * (ig_writer_hold): the table lock (lock.h) in a directory; on object storage
 * the writers' lock object (remote.h), after completing an erase a crash
 * left. The tags are then read, changed and written whole: a file renamed
 * into place, or the object .ingot/tags published with If-Match on the ETag
 * it was read with (If-None-Match where there was none), as MANIFEST is, so a
 * writer whose lock lapsed fails rather than undo another's tag.
 *
 * What it does not do: check that a tagged version stays kept (gc keeps every
 * tagged version), or write MANIFEST (a tag is no version). */
#ifndef IG_FORMAT_PART_TAG_H
#define IG_FORMAT_PART_TAG_H

#include <stdbool.h>
#include <stdint.h>

#include "format/part/remote.h"

struct ig_error;

/* The table held by this writer: exactly one of the two is held. */
struct ig_writer_hold {
    bool remote;
    int fd;                  /* the table lock (a directory), or -1 */
    struct ig_remote_lock rl; /* the writers' lock object (object storage) */
};
/* Hold the table at dir for writing: wait for the lock (object storage:
 * INGOT_S3_LOCK_WAIT_S) and settle an interrupted erase or change of columns
 * there (commit.h). */
int ig_writer_hold(const char *dir, struct ig_writer_hold *h, struct ig_error *err);
/* Still ours? (object storage: renews the lease, -ESTALE once it lapsed) */
int ig_writer_renew(struct ig_writer_hold *h, struct ig_error *err);
void ig_writer_release(struct ig_writer_hold *h);

/* Name version `version` (0: the current one) `name`, moving the tag if it
 * names another; or (del) remove the tag: -ENOENT when there is none. The
 * version must be kept (-ENOENT, saying gc removed it, otherwise). *named:
 * the version the tag names now (del: the one it named). */
int ig_tag_set(const char *dir, const char *name, uint64_t version, bool del, uint64_t *named,
               struct ig_error *err);

#endif
