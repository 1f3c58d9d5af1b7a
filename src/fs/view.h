/* view.h - what each file of the mount contains, and how big it is.
 *
 * Column views (text, .npy, .valid.npy, _rowid.npy) are laid out page by page:
 * a file is the concatenation of one piece per page of its scope, each piece
 * the page's live rows rendered for that view. The footer gives every piece's
 * length without decoding (text length per page; live rows x element width), so
 * sizes are exact from the footer alone, and a read at any offset finds its
 * page by binary search over the pieces and decodes only the pages it covers.
 *
 * Row files and the generated README and schema.json are materialised whole. */
#ifndef IG_FS_VIEW_H
#define IG_FS_VIEW_H

#include <pthread.h>
#include <stdint.h>
#include <sys/uio.h>

#include "blob/blob.h"
#include "inode.h"
#include "plan.h"
#include "session.h"

struct fs_batch;

/* An open file. */
struct fs_file {
    struct fs_node node;
    uint64_t gen;             /* session reload count at open: did anything change since? */
    uint64_t version_gen;     /* the table generation the file shows (versions.h) */
    struct fs_batch *batch;   /* the .ingot/erase control file */
    uint64_t size;
    uint32_t header;          /* npy header bytes at the start (0 for text) */
    uint8_t header_bytes[FS_NPY_HEADER + 8];
    uint32_t nspans;
    struct fs_span *spans;
    struct fs_entry *content; /* materialised files (rows, README, schema.json) */
    struct ig_blob_ref blob;  /* blob objects: the reference and its part */
    uint32_t blob_part;
};

/* Does the node exist, and what is its size? -ENOENT if not. */
int fs_node_size(struct fs_session *s, const struct fs_node *n, uint64_t *size);

/* Open: build spans or materialise the content. */
int fs_file_open(struct fs_session *s, const struct fs_node *n, struct fs_file **out);
void fs_file_close(struct fs_session *s, struct fs_file *f);

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
};
int fs_file_read(struct fs_session *s, struct fs_file *f, uint64_t off, size_t size,
                 struct fs_read *rd);
void fs_read_release(struct fs_session *s, struct fs_read *rd);


#endif
