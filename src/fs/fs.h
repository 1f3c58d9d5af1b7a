/* fs.h - the ingot FUSE daemon: a table directory mounted as plain files.
 *
 * The names are listed in namespace.h (docs/FILESYSTEM.md). Data flows one
 * way: inode -> node (inode.h) -> pages in the footer view -> pread + decode
 * (format/) -> bytes rendered by a view (view.c) -> reply (glue/ops.c). Only
 * glue/ includes FUSE headers; everything it calls decides FUSE-free. */
#ifndef IG_FS_FS_H
#define IG_FS_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ig_error;
struct ig_logical;

/* How columns written through the mount become a version (staging.h): the
 * importer's, which the daemon does not include (import/ and fs/ stand side
 * by side); the CLI hands them over. */
struct fs_column_io {
    /* The size the .npy being written to fd will have, from its first `have`
     * bytes: 0, -EAGAIN while its header is not whole, or -EINVAL (err says
     * why). type and dim: the column type the array fills (its storage
     * type) and vector dimension; lt: its logical type (a datetime64 array's
     * date or timestamp(unit), a timedelta64's time(unit); else none). */
    int (*npy_size)(int fd, uint64_t have, const char *what, uint64_t *total, uint8_t *type, uint32_t *dim,
                    struct ig_logical *lt, uint64_t *rows, struct ig_error *err);
    /* Add (or replace) column `column` from the whole .npy at path. */
    int (*commit)(const char *table_dir, const char *path, const char *column, bool replace,
                  struct ig_error *err);
};

struct fs_opts {
    const char *table_dir;
    const char *mountpoint;
    bool foreground;
    bool debug;
    bool allow_other;
    const char *erase_group; /* a group whose members may erase too (with allow_other) */
    gid_t erase_gid;         /* its id, or (gid_t)-1 */
    size_t cache_bytes;      /* decoded-block cache budget; 0: by the table's width (session.h) */
    unsigned threads;        /* worker threads (the CLI's default: one per core, 2 to 8) */
    unsigned spin_us;        /* a worker stays awake this long for the next request, default 0 */
    unsigned readahead_kb;   /* kernel readahead for the mount, default 1024 */
    unsigned poll_ms;        /* check the table's generation this often, default 1000 (0: never) */
    bool no_inotify;         /* do not watch with inotify (changes are seen by polling only) */
    uint64_t version;        /* serve this version of the table (0: the current one, as it changes) */
    struct fs_column_io columns; /* NULL calls: columns cannot be written through the mount */
};

/* Mount and serve until unmounted or signalled. Without `foreground`, forks and
 * returns in the parent only once the mount is up (0) or has failed (non-zero,
 * message on stderr): the status travels back through a pipe. */
int fs_mount_main(const struct fs_opts *o);

#endif
