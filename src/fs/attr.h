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

/* Attributes of an existing node, or -ENOENT (or the error sizing it met). */
int fs_node_stat(struct fs_session *s, const struct fs_node *n, struct stat *st);
/* The same for a row in a directory listing: sized by rendering it into
 * scratch, not cached (a listing visits every row once). */
int fs_row_stat(struct fs_session *s, const struct fs_node *n, struct ig_buf *scratch,
                struct stat *st);

/* A listing's run of row sizes, measured together (fs_rows_sizes): the rows
 * one READDIRPLUS reply shows cost one pass over each column's blocks instead
 * of one lookup per row and column. Zeroed to start; fs_row_sizes_free after. */
struct fs_row_sizes {
    uint64_t first;  /* the run's first row */
    size_t n, cap;   /* rows measured, room */
    uint64_t *size;  /* each row's size, 0 for an erased row */
};
/* A row's attributes in a listing, from the run holding it (taking a new run
 * of up to `want` rows from it from those measured ahead, rowsizes.h, or
 * measuring it when none does); as fs_row_stat where the run cannot say. */
int fs_row_stat_listed(struct fs_session *s, const struct fs_node *n, struct fs_row_sizes *rs,
                       size_t want, struct ig_buf *scratch, struct stat *st);
void fs_row_sizes_free(struct fs_row_sizes *rs);
/* A reply listed rows/ up to `next` (excluded): measure the rows after it
 * ahead of the lister, here and now, if the runs kept (rowsizes.h) are about
 * to run out. Takes the table lock for reading. */
void fs_rows_listed_ahead(struct fs_session *s, uint64_t next);

#endif
