#include "format/part/lock.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int ig_table_lock(const char *dir, bool wait, struct ig_error *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/.ingot", dir) >= (int)sizeof path)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    if (mkdir(path, 0755) && errno != EEXIST)
        return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/.ingot/lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
        if (errno == EINTR) continue;
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return ig_err(err, -e, "%s: the table is locked by another writer", dir);
        return ig_err(err, -e, "%s: %s", path, strerror(e));
    }
    return fd;
}

void ig_table_unlock(int fd)
{
    if (fd >= 0) close(fd);
}
