#include "io.h"
#include "error.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/vfs.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Before retry `attempt` (0, 1, ...) after ESTALE: wait a little longer each
 * time, about a second in all; false when it is time to give up. */
static bool wait_after_stale(size_t attempt)
{
    static const long wait_ms[] = {10, 50, 150, 300, 500};
    if (attempt >= sizeof wait_ms / sizeof wait_ms[0]) return false;
    struct timespec ts = {0, wait_ms[attempt] * 1000000L};
    nanosleep(&ts, NULL);
    return true;
}

int ig_open(const char *path, int flags, unsigned mode)
{
    int fd = open(path, flags, (mode_t)mode);
    for (size_t i = 0; fd < 0 && errno == ESTALE && wait_after_stale(i); i++)
        fd = open(path, flags, (mode_t)mode);
    return fd;
}

int ig_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (r == 0) return -EIO;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

int ig_pwrite_full(int fd, const void *buf, size_t n, uint64_t off)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pwrite(fd, p, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

int ig_write_full(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int ig_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int rc = fsync(fd) ? -errno : 0;
    close(fd);
    return rc;
}

int ig_path_join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap) return -ENAMETOOLONG;
    return 0;
}

int ig_write_file_atomic(const char *dir, const char *name, const void *data, size_t n,
                         struct ig_error *err)
{
    char tmp[4096], dst[4096], tmpname[512];
    snprintf(tmpname, sizeof tmpname, ".%s.tmp", name);
    if (ig_path_join(tmp, sizeof tmp, dir, tmpname) || ig_path_join(dst, sizeof dst, dir, name))
        return ig_err(err, -ENAMETOOLONG, "%s/%s: path too long", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", tmp, strerror(errno));
    int rc = ig_write_full(fd, data, n);
    if (!rc && fsync(fd)) rc = -errno;
    if (close(fd) && !rc) rc = -errno;
    if (!rc && rename(tmp, dst)) rc = -errno;
    if (rc) {
        unlink(tmp);
        return ig_err(err, rc, "%s: %s", dst, strerror(-rc));
    }
    rc = ig_fsync_dir(dir);
    if (rc) return ig_err(err, rc, "%s: fsync: %s", dir, strerror(-rc));
    return 0;
}

static int read_file_once(const char *path, size_t max, char **out, size_t *len,
                          struct ig_error *err)
{
    /* read to EOF rather than trusting st_size: pipes (<(...)) report 0 */
    int fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *p = malloc(cap + 1);
    int rc = p ? 0 : -ENOMEM;
    while (!rc) {
        if (n == cap) {
            if (cap >= max) {
                rc = -EFBIG;
                break;
            }
            cap = cap * 2 > max ? max : cap * 2;
            char *q = realloc(p, cap + 1);
            if (!q) {
                rc = -ENOMEM;
                break;
            }
            p = q;
        }
        ssize_t r = read(fd, p + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            rc = -errno;
        } else if (r == 0) {
            break;
        } else {
            n += (size_t)r;
        }
    }
    close(fd);
    if (rc) {
        free(p);
        if (rc == -EFBIG) return ig_err(err, rc, "%s: file too large (over %zu bytes)", path, max);
        return ig_err(err, rc, "%s: %s", path, strerror(-rc));
    }
    p[n] = '\0';
    *out = p;
    if (len) *len = n;
    return 0;
}

int ig_read_file(const char *path, size_t max, char **out, size_t *len, struct ig_error *err)
{
    /* the open can succeed on a handle that the first read finds stale (a
     * name replaced by another host): read the whole file again, as ig_open
     * retries */
    int rc = read_file_once(path, max, out, len, err);
    for (size_t i = 0; rc == -ESTALE && wait_after_stale(i); i++)
        rc = read_file_once(path, max, out, len, err);
    return rc;
}

void ig_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    char sub[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (ig_path_join(sub, sizeof sub, path, e->d_name)) continue;
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            ig_remove_tree(sub);
        else
            unlink(sub);
    }
    closedir(d);
    rmdir(path);
}

void ig_remove_orphans(const char *dir, const char *prefix, const char *after)
{
    DIR *d = opendir(dir);
    if (!d) return;
    size_t pl = strlen(prefix);
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *name = de->d_name + (de->d_name[0] == '.');
        if (strncmp(name, prefix, pl) != 0) continue;
        char *end;
        long pid = strtol(name + pl, &end, 10);
        if (end == name + pl || (*end && !strchr(after, *end)) || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[4600];
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) < (int)sizeof path)
            ig_remove_tree(path);
    }
    closedir(d);
}

static bool shared_type(unsigned long type)
{
    switch (type) {
    case 0x6969:     /* NFS */
    case 0xff534d42: /* CIFS */
    case 0xfe534d42: /* SMB2 */
    case 0x517b:     /* SMB */
    case 0x00c36400: /* Ceph */
    case 0x65735546: /* FUSE (GlusterFS, CephFS-fuse, sshfs, ...) */
    case 0x01021997: /* 9p */
    case 0x0bd00bd0: /* Lustre */
    case 0x01161970: /* GFS2 */
    case 0x7461636f: /* OCFS2 */
    case 0x47504653: /* GPFS */
        return true;
    default:
        return false;
    }
}

bool ig_fs_is_shared(const char *path)
{
    struct statfs sf;
    if (statfs(path, &sf)) return true; /* unknown: assume the careful case */
    return shared_type((unsigned long)sf.f_type);
}

bool ig_fd_is_shared(int fd)
{
    struct statfs sf;
    if (fstatfs(fd, &sf)) return true;
    return shared_type((unsigned long)sf.f_type);
}

int ig_pages_written(const void *addr, size_t len, size_t page_size, uint8_t *written)
{
    uintptr_t first = (uintptr_t)addr / page_size, last = ((uintptr_t)addr + len - 1) / page_size;
    if (!len) return 0;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int rc = 0;
    uint64_t entries[512];
    for (uintptr_t pg = first; !rc && pg <= last;) {
        size_t n = last - pg + 1 < 512 ? (size_t)(last - pg + 1) : 512;
        ssize_t got = pread(fd, entries, n * sizeof *entries, (off_t)(pg * sizeof *entries));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0 || (size_t)got % sizeof *entries) {
            rc = got < 0 ? -errno : -EIO;
            break;
        }
        n = (size_t)got / sizeof *entries;
        for (size_t i = 0; i < n; i++) {
            uint64_t e = entries[i];
            bool present = e >> 63 & 1, swapped = e >> 62 & 1, file = e >> 61 & 1;
            written[pg - first + i] = swapped || (present && !file);
        }
        pg += n;
    }
    close(fd);
    return rc;
}
