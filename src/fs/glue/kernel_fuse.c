/* kernel_fuse.c - struct fs_kernel over libfuse: notify calls and the
 * deferred replies of erases (kernel.h, invalidate.h). */
#include "kernel_fuse.h"

#include <fuse_lowlevel.h>

static void inval_inode(void *ctx, uint64_t ino)
{
    fuse_lowlevel_notify_inval_inode(ctx, ino, 0, 0);
}

static void inval_entry(void *ctx, uint64_t parent, const char *name, size_t len)
{
    fuse_lowlevel_notify_inval_entry(ctx, parent, name, len);
}

static void delete_entry(void *ctx, uint64_t parent, uint64_t child, const char *name, size_t len)
{
    fuse_lowlevel_notify_delete(ctx, parent, child, name, len);
}

/* unlink: done (0); write: the bytes written */
static void answer(void *req, bool write, size_t size)
{
    if (write)
        fuse_reply_write(req, size);
    else
        fuse_reply_err(req, 0);
}

struct fs_kernel fs_kernel_fuse(struct fuse_session *se)
{
    return (struct fs_kernel){.ctx = se,
                              .inval_inode = inval_inode,
                              .inval_entry = inval_entry,
                              .delete_entry = delete_entry,
                              .answer = answer};
}
