#include "format/part/lock.h"
#include "store/store.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Open TABLE/.ingot/lock (made if missing and we may) and lock the whole file. */
static int lock_file(const char *dir, short type, bool wait, struct ig_error *err)
{
    char path[4096];
    /* the writers of a table on object storage lock with an object (remote.h) */
    if (ig_store_is_remote(dir))
        return ig_err(err, -EOPNOTSUPP, "%s: this change is not supported on object storage yet", dir);
    if (snprintf(path, sizeof path, "%s/.ingot", dir) >= (int)sizeof path)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    bool exclusive = type == F_WRLCK;
    /* writers lock tables that exist (a new one is built aside, then renamed
     * in): a directory without a MANIFEST gets no .ingot/ of a writer's */
    struct stat st;
    if (exclusive && stat(path, &st) && errno == ENOENT) {
        char manifest[4096];
        snprintf(manifest, sizeof manifest, "%s/MANIFEST", dir);
        if (stat(manifest, &st) && errno == ENOENT && stat(dir, &st) == 0)
            return ig_err(err, -ENOENT, "%s: not an ingot table (no MANIFEST)", dir);
    }
    if (exclusive && mkdir(path, 0755) && errno != EEXIST) {
        if (errno == ENOENT) return ig_err(err, -ENOENT, "%s: no such table (no such directory)", dir);
        return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/.ingot/lock", dir);
    int fd = ig_open(path, exclusive ? O_RDWR | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC, 0644);
    if (fd < 0 && !exclusive && errno == ENOENT) fd = ig_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    while (fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl)) {
        if (errno == EINTR) continue;
        int e = errno == EAGAIN || errno == EACCES ? EWOULDBLOCK : errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return ig_err(err, -e, "%s: the table is locked by another writer", dir);
        return ig_err(err, -e, "%s: locking: %s", path, strerror(e));
    }
    return fd;
}

int ig_table_lock(const char *dir, bool wait, struct ig_error *err)
{
    return lock_file(dir, F_WRLCK, wait, err);
}

int ig_table_lock_shared(const char *dir, struct ig_error *err)
{
    return lock_file(dir, F_RDLCK, true, err);
}

void ig_table_unlock(int fd)
{
    if (fd >= 0) close(fd);
}
