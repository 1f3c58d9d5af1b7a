/* kernel.h - what the daemon tells the kernel, behind a table of calls.
 *
 * The invalidation passes (invalidate.c) decide which cached names, pages and
 * attributes went stale; the FUSE glue (glue/) says how the kernel is told, and
 * fills this table at mount. Nothing here includes a FUSE header, so the
 * deciding can be tested without a mount. The calls may block on the kernel
 * (which may be waiting on a request of the daemon's): never call them from a
 * request handler. */
#ifndef IG_FS_KERNEL_H
#define IG_FS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_kernel {
    void *ctx; /* the glue's: the FUSE session */
    /* drop an inode's cached pages and attributes */
    void (*inval_inode)(void *ctx, uint64_t ino);
    /* drop a cached name (the inode stays) */
    void (*inval_entry)(void *ctx, uint64_t parent, const char *name, size_t len);
    /* a name is gone: the kernel drops it and, once unused, the inode */
    void (*delete_entry)(void *ctx, uint64_t parent, uint64_t child, const char *name, size_t len);
    /* answer a request held back until the kernel was told (invalidate.h
     * fs_reply_after_names): a write with the bytes written, an unlink with 0 */
    void (*answer)(void *req, bool write, size_t size);
};

#endif
