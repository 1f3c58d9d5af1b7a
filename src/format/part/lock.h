/* lock.h - one writer at a time per table.
 *
 * Appends and erases take an exclusive flock on TABLE/.ingot/lock, so they are
 * serialised between processes (a mount and the CLI included). The lock dies with
 * its process, so a crash never leaves a table locked. */
#ifndef IG_FORMAT_LOCK_H
#define IG_FORMAT_LOCK_H

#include <stdbool.h>

struct ig_error;

/* Blocks until the lock is held (or fails fast with -EWOULDBLOCK if !wait).
 * Returns the lock's fd (>= 0) or a negative errno. */
int ig_table_lock(const char *dir, bool wait, struct ig_error *err);
void ig_table_unlock(int fd);

#endif
