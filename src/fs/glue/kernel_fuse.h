/* kernel_fuse.h - telling the kernel through libfuse's notify calls (kernel.h). */
#ifndef IG_FS_GLUE_KERNEL_FUSE_H
#define IG_FS_GLUE_KERNEL_FUSE_H

#include "fs/kernel.h"

struct fuse_session;

struct fs_kernel fs_kernel_fuse(struct fuse_session *se);

#endif
