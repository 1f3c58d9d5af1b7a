/* io.h - checked file I/O.
 *
 * pread/pwrite that loop over short transfers and retry EINTR, and the
 * write-aside-then-rename helpers that make every visible change atomic. */
#ifndef IG_UTIL_IO_H
#define IG_UTIL_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ig_error;

/* Read exactly n bytes at off. A short file is -EIO ("unexpected end of file"). */
/* open(2), retried when a shared file system answers ESTALE: another host
 * renamed a new file over the name (MANIFEST) or removed it, and this host's
 * client still held the old handle; the retry looks the name up afresh (a few
 * times over ~1 s, the attribute cache time of GlusterFS and NFS defaults).
 * Returns the fd or -1 with errno set, as open does. */
int ig_open(const char *path, int flags, unsigned mode);
int ig_pread_full(int fd, void *buf, size_t n, uint64_t off);
/* Write exactly n bytes at off. */
int ig_pwrite_full(int fd, const void *buf, size_t n, uint64_t off);
/* Append-style write at the current position. */
int ig_write_full(int fd, const void *buf, size_t n);

/* fsync a directory so a rename inside it is durable. */
int ig_fsync_dir(const char *dir);

/* Write `data` to dir/name atomically: dir/.name.tmp, fsync, rename, fsync dir. */
int ig_write_file_atomic(const char *dir, const char *name, const void *data, size_t n,
                         struct ig_error *err);

/* Read a whole small file into a malloc'd NUL-terminated buffer (max bytes). */
int ig_read_file(const char *path, size_t max, char **out, size_t *len, struct ig_error *err);

/* Is path on a file system other hosts may write (NFS, CIFS/SMB, Ceph,
 * GlusterFS or any FUSE file system, 9p, Lustre, GFS2, OCFS2)? There this
 * host's page cache can hold bytes older than the storage's. */
bool ig_fs_is_shared(const char *path);
bool ig_fd_is_shared(int fd);

/* Remove a directory tree (used to discard a failed import). Best effort. */
void ig_remove_tree(const char *path);
/* What killed processes of this host left in dir: every entry named
 * [.]PREFIX<pid> followed by one of the characters of `after` or by nothing,
 * whose process is gone, removed with what it holds (best effort). This
 * process's own, and a pid that is alive (maybe reused), stay. */
void ig_remove_orphans(const char *dir, const char *prefix, const char *after);

/* Which pages of [addr, addr + len) of a private file mapping (MAP_PRIVATE)
 * this process wrote: copied on write, they are anonymous memory now, where
 * the others still map the file or are not mapped at all. written[k] is set
 * for page k counted from addr's page (page_size bytes each; the caller sizes
 * written to cover the range). Read from /proc/self/pagemap (Linux: bit 63
 * present, 62 swapped, 61 a file page). -errno when it cannot be read: the
 * caller then treats every page as written. */
int ig_pages_written(const void *addr, size_t len, size_t page_size, uint8_t *written);

/* Join dir and name into out (size cap); -ENAMETOOLONG if it does not fit. */
int ig_path_join(char *out, size_t cap, const char *dir, const char *name);

#endif
