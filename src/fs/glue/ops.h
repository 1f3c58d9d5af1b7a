/* ops.h - the FUSE low-level operations over a session (the glue: ops.c). */
#ifndef IG_FS_GLUE_OPS_H
#define IG_FS_GLUE_OPS_H

struct fuse_lowlevel_ops;

extern const struct fuse_lowlevel_ops fs_ops;

#endif
