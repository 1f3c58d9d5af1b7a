/* attr.h - what stat(2) shows for a node of the mount (FUSE-free).
 *
 * Modes follow who may do what: directories and files are readable by all
 * (allow_other then lets the kernel check them: default_permissions); rows/ and
 * .ingot/erase are writable by the owner (and -o erase_group), since writing
 * there erases. Sizes are exact. */
#ifndef IG_FS_ATTR_H
#define IG_FS_ATTR_H

#include <stdbool.h>
#include <sys/stat.h>

#include "inode.h"
#include "session.h"

struct ig_buf;

/* Does directory node n exist in the table as loaded? */
bool fs_dir_exists(struct fs_session *s, const struct fs_node *n);
/* Attributes of an existing node, or -ENOENT (or the error sizing it met). */
int fs_node_stat(struct fs_session *s, const struct fs_node *n, struct stat *st);
/* The same for a row in a directory listing: sized by rendering it into
 * scratch, not cached (a listing visits every row once). */
int fs_row_stat(struct fs_session *s, const struct fs_node *n, struct ig_buf *scratch,
                struct stat *st);

#endif
