/* control.h - erasing through the mount.
 *
 *   rm rows/ID                          erase one row
 *   printf '17\n42\nuser_id=9001\n' > .ingot/erase
 *                                       a batch: row ids and COLUMN=VALUE lines
 *
 * Each write(2) to .ingot/erase is one batch, all its lines or none: they are
 * checked as a whole (a malformed line, unknown column or unparsable value:
 * EINVAL; an erased or nonexistent row id: ENOENT) and erased before the
 * write returns, so its errno is the batch's. */
#ifndef IG_FS_CONTROL_H
#define IG_FS_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"
#include "util/u64vec.h"

struct fs_session;

struct fs_batch {
    struct ig_buf pending;   /* bytes after the last complete line */
    struct ig_u64vec rows;   /* row ids named so far */
    char **where;            /* "COLUMN=VALUE" strings */
    size_t nwhere;
    int error;               /* first error, sticky: the batch is void */
};

struct fs_batch *fs_batch_new(void);
void fs_batch_free(struct fs_batch *b);
/* Add written bytes; complete lines are validated now. */
int fs_batch_write(struct fs_session *s, struct fs_batch *b, const char *p, size_t n);
/* Apply the batch (the end of one write); empties it. uid and pid: who asked (the audit log). */
int fs_batch_apply(struct fs_session *s, struct fs_batch *b, int64_t uid, int64_t pid);

/* Erase a set of rows through the session (lock, erase, reload, invalidate). */
int fs_erase_rows(struct fs_session *s, const uint64_t *rows, size_t n, char **where,
                  size_t nwhere, int64_t uid, int64_t pid);

#endif
