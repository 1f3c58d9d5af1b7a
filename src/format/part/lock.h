/* lock.h - one writer at a time per table, readers that see it whole.
 *
 * Appends and erases take an exclusive lock on TABLE/.ingot/lock, so they are
 * serialised between processes (a mount and the CLI included) and between
 * hosts sharing the table: the lock is an fcntl open-file-description lock
 * (F_OFD_SETLKW), which network file systems with POSIX locks honour (NFS,
 * GlusterFS, CephFS), never a PID file or anything host-local. It dies with its
 * process (or its file description), so a crash never leaves a table locked.
 *
 * A reader that must see the footers whole (the mount reloading after a change)
 * takes the lock shared: it waits for a writer to finish, and writers wait for
 * it. Plain reads of pages take no lock; a page that changes under a reader
 * fails its checksum, and the reader looks again. */
#ifndef IG_FORMAT_LOCK_H
#define IG_FORMAT_LOCK_H

#include <stdbool.h>

struct ig_error;

/* The writer's lock. Blocks until it is held (or fails fast with -EWOULDBLOCK
 * if !wait). Returns the lock's fd (>= 0) or a negative errno. */
int ig_table_lock(const char *dir, bool wait, struct ig_error *err);
/* A reader's shared lock, waiting for any writer. Returns an fd, or a negative
 * errno when the table cannot be locked (a read-only directory without
 * .ingot/lock): the caller then goes on without it. */
int ig_table_lock_shared(const char *dir, struct ig_error *err);
void ig_table_unlock(int fd);

#endif
