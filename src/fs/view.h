/* view.h - what each file of the mount contains, and how big it is.
 *
 * Column views (text, .npy, .valid.npy, _rowid.npy) are laid out page by page:
 * a file is the concatenation of one piece per page of its scope, each piece
 * the page's live rows rendered for that view. The footer gives every piece's
 * length without decoding (text length per page; live rows x element width), so
 * sizes are exact from the footer alone, and a read at any offset finds its
 * page by binary search over the pieces and decodes only the pages it covers.
 *
 * Row files and the generated README and schema.json are materialised whole.
 *
 * Nothing is kept per open file: the kernel does not tell the daemon about
 * opens (ops.c), so everything a read needs follows from the inode, which names
 * the node and, for views and generated files, the table generation it shows
 * (generations.h). A file's layout is built on its first read and cached by inode. */
#ifndef IG_FS_VIEW_H
#define IG_FS_VIEW_H

#include <pthread.h>
#include <stdint.h>
#include <sys/uio.h>

#include "blob/blob.h"
#include "inode.h"
#include "plan.h"
#include "groupfile.h"
#include "jsonlfile.h"
#include "session.h"
#include "file.h"


/* Does the node exist, and what is its size? -ENOENT if not; -ESTALE for a view
 * of a generation that is gone. */
int fs_node_size(struct fs_session *s, const struct fs_node *n, uint64_t *size);
/* A path was looked up and a read usually follows: ask the kernel now for the
 * bytes it will need (a row's block of each column, a blob object's extent), so
 * that from a cold cache they are on their way during the round trips (advice
 * only; listings do not call this: ls -l must not read every object). */
void fs_prefetch_node(struct fs_session *s, const struct fs_node *n);

/* The layout of the file node n names, from the cache or built now (held in
 * *e, e->obj is the struct fs_file). -ENOENT for a row or object erased since,
 * -ESTALE for a view of an older generation that cannot keep its shape. Caller
 * holds the table lock for reading. */
int fs_layout_get(struct fs_session *s, const struct fs_node *n, struct fs_entry **e);

/* Read [off, off + size) as an iovec list pointing into cached pieces (held
 * until fs_read_release). A read spanning more pieces than FS_READ_MAX_IOV is
 * gathered into one buffer instead. Returns the number of iovecs or -errno; the
 * whole range is always produced (a short read would look like end of file). */
#define FS_READ_MAX_IOV 320
struct fs_read {
    struct iovec iov[FS_READ_MAX_IOV];
    struct fs_entry *held[FS_READ_MAX_IOV];
    int niov, nheld;
    size_t bytes, want;
    uint8_t *flat;
    bool from_mapping; /* bytes were copied from a part's mapping (checked after) */
};
int fs_file_read(struct fs_session *s, const struct fs_file *f, uint64_t off, size_t size,
                 struct fs_read *rd);
void fs_read_release(struct fs_session *s, struct fs_read *rd);


#endif
