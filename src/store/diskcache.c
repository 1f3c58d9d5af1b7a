/* diskcache.c - fetched ranges in a local directory, bounded (diskcache.h). */
#include "store/diskcache.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct entry {
    char *path;
    uint64_t size;
    int64_t used; /* ns, for least recently used */
};

struct ig_diskcache {
    char *dir;
    size_t cap;
    pthread_mutex_t mu;
    struct entry *e;
    size_t n, ecap;
    uint64_t bytes;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int add_entry(struct ig_diskcache *dc, const char *path, uint64_t size, int64_t used)
{
    struct entry *g = ig_array_room(dc->e, dc->n, &dc->ecap, sizeof *g, 64);
    if (!g) return -ENOMEM;
    dc->e = g;
    char *p = strdup(path);
    if (!p) return -ENOMEM;
    dc->e[dc->n++] = (struct entry){p, size, used};
    dc->bytes += size;
    return 0;
}

/* Every file two levels down (OBJECT/ETAG/RANGE) into the index. */
static void scan(struct ig_diskcache *dc, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.') continue;
        char path[4096];
        if (ig_path_join(path, sizeof path, dir, de->d_name)) continue;
        struct stat s;
        if (lstat(path, &s)) continue;
        if (S_ISDIR(s.st_mode) && depth < 2)
            scan(dc, path, depth + 1);
        else if (S_ISREG(s.st_mode) && depth == 2)
            (void)add_entry(dc, path, (uint64_t)s.st_size,
                            (int64_t)s.st_atim.tv_sec * 1000000000 + s.st_atim.tv_nsec);
    }
    closedir(d);
}

int ig_diskcache_open(const char *dir, size_t cap, struct ig_diskcache **out, struct ig_error *err)
{
    if (mkdir(dir, 0700) && errno != EEXIST)
        return ig_err(err, -errno, "%s: %s", dir, strerror(errno));
    struct stat s;
    if (stat(dir, &s) || !S_ISDIR(s.st_mode))
        return ig_err(err, -ENOTDIR, "%s: not a directory", dir);
    struct ig_diskcache *dc = calloc(1, sizeof *dc);
    if (!dc || !(dc->dir = strdup(dir))) {
        free(dc);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    dc->cap = cap;
    pthread_mutex_init(&dc->mu, NULL);
    scan(dc, dir, 0);
    *out = dc;
    return 0;
}

static void object_dir(const struct ig_diskcache *dc, const char *location, const char *name,
                       char *out, size_t cap)
{
    char key[4200];
    int n = snprintf(key, sizeof key, "%s/%s", location, name);
    snprintf(out, cap, "%s/%016" PRIx64, dc->dir, ig_hash(key, n > 0 ? (size_t)n : 0));
}

static void range_path(const struct ig_diskcache *dc, const char *location, const char *name,
                       const char *etag, uint64_t off, uint64_t len, char *out, size_t cap)
{
    char od[4096];
    object_dir(dc, location, name, od, sizeof od);
    snprintf(out, cap, "%s/%016" PRIx64 "/%" PRIx64 "-%" PRIx64, od, ig_hash(etag, strlen(etag)),
             off, len);
}

static void forget_path(struct ig_diskcache *dc, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < dc->n;) {
        if (!strncmp(dc->e[i].path, prefix, pl)) {
            unlink(dc->e[i].path);
            dc->bytes -= dc->e[i].size;
            free(dc->e[i].path);
            dc->e[i] = dc->e[--dc->n];
        } else {
            i++;
        }
    }
}

int ig_diskcache_get(struct ig_diskcache *dc, const char *location, const char *name,
                     const char *etag, uint64_t off, uint64_t len, void *dst)
{
    char path[4200];
    range_path(dc, location, name, etag, off, len, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -ENOENT;
    uint8_t h[8];
    bool ok = ig_pread_full(fd, dst, (size_t)len, 0) == 0 && ig_pread_full(fd, h, 8, len) == 0 &&
              ig_ld64(h) == ig_hash(dst, (size_t)len);
    close(fd);
    pthread_mutex_lock(&dc->mu);
    if (!ok) {
        forget_path(dc, path);
        unlink(path);
    } else {
        for (size_t i = 0; i < dc->n; i++)
            if (!strcmp(dc->e[i].path, path)) dc->e[i].used = now_ns();
    }
    pthread_mutex_unlock(&dc->mu);
    return ok ? 0 : -ENOENT;
}

static int by_use(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

void ig_diskcache_put(struct ig_diskcache *dc, const char *location, const char *name,
                      const char *etag, uint64_t off, uint64_t len, const void *data)
{
    if (len + 8 > dc->cap) return;
    char path[4200], tmp[4300], d1[4096], d2[4200];
    object_dir(dc, location, name, d1, sizeof d1);
    snprintf(d2, sizeof d2, "%s/%016" PRIx64, d1, ig_hash(etag, strlen(etag)));
    range_path(dc, location, name, etag, off, len, path, sizeof path);
    if (access(path, F_OK) == 0) return;
    (void)mkdir(d1, 0700);
    (void)mkdir(d2, 0700);
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    uint8_t h[8];
    ig_st64(h, ig_hash(data, (size_t)len));
    bool ok = ig_write_full(fd, data, (size_t)len) == 0 && ig_write_full(fd, h, 8) == 0;
    close(fd);
    if (!ok || rename(tmp, path)) {
        unlink(tmp);
        return;
    }
    pthread_mutex_lock(&dc->mu);
    (void)add_entry(dc, path, len + 8, now_ns());
    if (dc->bytes > dc->cap) {
        /* a tenth below the budget, oldest use first */
        qsort(dc->e, dc->n, sizeof *dc->e, by_use);
        size_t i = 0;
        while (i < dc->n && dc->bytes > dc->cap - dc->cap / 10) {
            unlink(dc->e[i].path);
            dc->bytes -= dc->e[i].size;
            free(dc->e[i].path);
            i++;
        }
        memmove(dc->e, dc->e + i, (dc->n - i) * sizeof *dc->e);
        dc->n -= i;
    }
    pthread_mutex_unlock(&dc->mu);
}

void ig_diskcache_forget_others(struct ig_diskcache *dc, const char *location, const char *name,
                                const char *etag)
{
    char od[4096], keep[64];
    object_dir(dc, location, name, od, sizeof od);
    snprintf(keep, sizeof keep, "%016" PRIx64, ig_hash(etag, strlen(etag)));
    DIR *d = opendir(od);
    if (!d) return;
    pthread_mutex_lock(&dc->mu);
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || !strcmp(de->d_name, keep)) continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s/", od, de->d_name);
        forget_path(dc, sub);
        /* files not in the index (another process's) too */
        sub[strlen(sub) - 1] = '\0';
        DIR *d2 = opendir(sub);
        if (d2) {
            for (struct dirent *f; (f = readdir(d2));) {
                if (f->d_name[0] == '.' &&
                    (!f->d_name[1] || (f->d_name[1] == '.' && !f->d_name[2])))
                    continue;
                char fp[4700];
                snprintf(fp, sizeof fp, "%s/%s", sub, f->d_name);
                unlink(fp);
            }
            closedir(d2);
        }
        rmdir(sub);
    }
    pthread_mutex_unlock(&dc->mu);
    closedir(d);
}
