/* store.c - locations and their objects: the registry, the local and S3
 * backends, and ranged reads through the cache (store.h). */
#include "store/store.h"
#include "store/diskcache.h"
#include "store/rcache.h"
#include "store/s3.h"
#include "store/s3_config.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SMALL_CACHED 8                     /* whole small objects kept with their ETag */
#define SMALL_MAX    (1u << 20)            /* ... of at most this size */
#define PART_BYTES   ((size_t)64 << 20)    /* multipart upload part */
#define PIECE_MIN    ((uint64_t)1 << 20)   /* a parallel range GET's smallest piece */
#define RA_FIRST     ((uint64_t)256 << 10) /* first readahead window */
#define MAX_GAPS     64

struct small_obj {
    char name[IG_STORE_NAME_MAX];
    char etag[IG_ETAG_MAX];
    struct ig_buf data;
};

struct job {
    struct ig_obj *o;
    struct ig_range *gaps;
    size_t n;
    struct job *next;
};

struct ig_store {
    char *location;
    bool remote;
    /* remote */
    struct ig_s3 *s3;
    char bucket[64];
    char prefix[IG_S3_KEY_LEN_MAX]; /* "" or "PREFIX/" */
    struct ig_rcache *cache;
    struct ig_diskcache *disk;
    uint64_t ra_max;
    pthread_mutex_t mu; /* objs, small, the job queue */
    struct ig_obj *objs;
    struct small_obj small[SMALL_CACHED];
    unsigned small_next;
    pthread_cond_t work;
    struct job *jobs, *jobs_tail;
    bool worker;
    atomic_uint_fast64_t hits, misses, fetched;
    struct ig_store *next;
};

struct ig_obj {
    struct ig_store *st;
    char name[IG_STORE_NAME_MAX];
    char key[IG_S3_KEY_LEN_MAX];
    struct ig_obj_info info;
    int refs; /* under st->mu */
    int fd;   /* local */
    struct ig_rc_obj *rc;
    pthread_mutex_t ra_mu;
    uint64_t ra_next, ra_window,
        ra_ahead; /* readahead: next expected offset, window, fetched up to */
    struct ig_obj *next;
};

/* Stores live as long as the process, found by location: the connections
 * they keep warm and the ranges they cache serve every table handle opened
 * on that location (a mount reopens its table after each change). */
static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ig_store *registry;

bool ig_store_is_remote(const char *location)
{
    return location && !strncmp(location, "s3://", 5);
}

int ig_store_split(const char *path, char *location, size_t lcap, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1] || (size_t)(slash - path) >= lcap) return -EINVAL;
    memcpy(location, path, (size_t)(slash - path));
    location[slash - path] = '\0';
    *name = slash + 1;
    return 0;
}

static size_t env_size(const char *name, size_t dflt_mb)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt_mb << 20;
    char *end;
    unsigned long long mb = strtoull(v, &end, 10);
    if (*end || mb > (1ull << 24)) return dflt_mb << 20;
    return (size_t)mb << 20;
}

static int store_new(const char *location, struct ig_store **out, struct ig_error *err)
{
    struct ig_store *st = calloc(1, sizeof *st);
    if (!st || !(st->location = strdup(location))) {
        free(st);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->work, NULL);
    st->remote = ig_store_is_remote(location);
    int rc = 0;
    if (st->remote) {
        char prefix[IG_S3_KEY_LEN_MAX];
        rc = ig_s3_url_split(location, st->bucket, sizeof st->bucket, prefix, sizeof prefix - 1,
                             err);
        if (!rc) {
            size_t pl = strlen(prefix);
            memcpy(st->prefix, prefix, pl);
            if (pl) st->prefix[pl++] = '/';
            st->prefix[pl] = '\0';
        }
        struct ig_s3_config cfg;
        if (!rc) rc = ig_s3_config_load(&cfg, err);
        if (!rc) rc = ig_s3_open(&st->s3, &cfg, err);
        if (!rc && !(st->cache = ig_rcache_new(env_size("INGOT_S3_CACHE_MB", 256))))
            rc = ig_err(err, -ENOMEM, "out of memory");
        st->ra_max = env_size("INGOT_S3_READAHEAD_MB", 16);
        if (st->ra_max < RA_FIRST) st->ra_max = RA_FIRST;
        const char *dir = getenv("INGOT_S3_DISK_CACHE");
        if (!rc && dir && *dir) {
            rc = ig_diskcache_open(dir, env_size("INGOT_S3_DISK_CACHE_MB", 1024), &st->disk, err);
            if (rc) rc = ig_err_prefix(err, rc, "INGOT_S3_DISK_CACHE");
        }
    }
    if (rc) {
        ig_s3_close(st->s3);
        ig_rcache_free(st->cache);
        free(st->location);
        free(st);
        return rc;
    }
    *out = st;
    return 0;
}

int ig_store_at(const char *location, struct ig_store **out, struct ig_error *err)
{
    /* one spelling per location: no trailing slashes */
    char loc[IG_S3_KEY_LEN_MAX + 128];
    size_t n = strlen(location);
    while (n > 1 && location[n - 1] == '/')
        n--;
    if (n >= sizeof loc) return ig_err(err, -ENAMETOOLONG, "%s: location too long", location);
    memcpy(loc, location, n);
    loc[n] = '\0';
    pthread_mutex_lock(&registry_mu);
    struct ig_store *st = registry;
    while (st && strcmp(st->location, loc))
        st = st->next;
    int rc = 0;
    if (!st) {
        rc = store_new(loc, &st, err);
        if (!rc) {
            st->next = registry;
            registry = st;
        }
    }
    pthread_mutex_unlock(&registry_mu);
    if (!rc) *out = st;
    return rc;
}

const char *ig_store_location(const struct ig_store *st)
{
    return st->location;
}

bool ig_store_remote(const struct ig_store *st)
{
    return st->remote;
}

struct ig_s3 *ig_store_s3(const struct ig_store *st, const char **bucket, const char **prefix)
{
    if (bucket) *bucket = st->bucket;
    if (prefix) *prefix = st->prefix;
    return st->s3;
}

void ig_store_stats(struct ig_store *st, struct ig_store_stats *out)
{
    memset(out, 0, sizeof *out);
    if (st->s3) {
        struct ig_s3_stats s;
        ig_s3_stats(st->s3, &s);
        out->requests = s.requests;
    }
    out->bytes_fetched = atomic_load(&st->fetched);
    out->cache_hits = atomic_load(&st->hits);
    out->cache_misses = atomic_load(&st->misses);
}

/* The object's key under the store's prefix, checked: names are relative,
 * never empty, never climbing out ("..") or absolute. */
static int key_of(const struct ig_store *st, const char *name, char *key, size_t cap,
                  struct ig_error *err)
{
    if (!name[0] || name[0] == '/' || strstr(name, "..") || strlen(name) >= IG_STORE_NAME_MAX)
        return ig_err(err, -EINVAL, "%s: bad object name '%s'", st->location, name);
    int n = snprintf(key, cap, "%s%s", st->remote ? st->prefix : "", name);
    if (n < 0 || (size_t)n >= cap)
        return ig_err(err, -ENAMETOOLONG, "%s/%s: name too long", st->location, name);
    return 0;
}

static int local_path(const struct ig_store *st, const char *name, char *path, size_t cap,
                      struct ig_error *err)
{
    char key[IG_STORE_NAME_MAX];
    int rc = key_of(st, name, key, sizeof key, err);
    if (!rc && ig_path_join(path, cap, st->location, key))
        rc = ig_err(err, -ENAMETOOLONG, "%s/%s: path too long", st->location, name);
    return rc;
}

static void local_etag(const struct stat *s, char *out)
{
    snprintf(out, IG_ETAG_MAX, "%" PRIx64 "-%" PRIx64 "-%" PRIx64, (uint64_t)s->st_size,
             (uint64_t)s->st_mtim.tv_sec, (uint64_t)s->st_mtim.tv_nsec);
}

/* ---- whole objects ------------------------------------------------------ */

int ig_store_stat(struct ig_store *st, const char *name, struct ig_obj_info *info,
                  struct ig_error *err)
{
    memset(info, 0, sizeof *info);
    if (!st->remote) {
        char path[4096];
        int rc = local_path(st, name, path, sizeof path, err);
        struct stat s;
        if (!rc && stat(path, &s)) rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        if (rc) return rc;
        info->size = (uint64_t)s.st_size;
        local_etag(&s, info->etag);
        snprintf(info->name, sizeof info->name, "%s", name);
        return 0;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = key_of(st, name, key, sizeof key, err);
    struct ig_s3_info si;
    if (!rc) rc = ig_s3_head(st->s3, st->bucket, key, &si, err);
    if (rc) return rc;
    info->size = si.size;
    snprintf(info->etag, sizeof info->etag, "%s", si.etag);
    snprintf(info->version_id, sizeof info->version_id, "%s", si.version_id);
    snprintf(info->name, sizeof info->name, "%s", name);
    return 0;
}

int ig_store_read(struct ig_store *st, const char *name, size_t max, struct ig_buf *out,
                  struct ig_obj_info *info, struct ig_error *err)
{
    struct ig_obj_info ignored;
    if (!info) info = &ignored;
    memset(info, 0, sizeof *info);
    if (!st->remote) {
        char path[4096];
        int rc = local_path(st, name, path, sizeof path, err);
        char *data = NULL;
        size_t len = 0;
        if (!rc) rc = ig_read_file(path, max, &data, &len, err);
        if (!rc && ig_buf_append(out, data, len)) rc = ig_err(err, -ENOMEM, "out of memory");
        free(data);
        struct stat s;
        if (!rc && stat(path, &s) == 0) local_etag(&s, info->etag);
        info->size = len;
        return rc;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = key_of(st, name, key, sizeof key, err);
    if (rc) return rc;
    /* the copy kept of it, if any: asked for only if changed */
    char etag[IG_ETAG_MAX] = "";
    pthread_mutex_lock(&st->mu);
    int slot = -1;
    for (int i = 0; i < SMALL_CACHED; i++)
        if (!strcmp(st->small[i].name, name)) {
            slot = i;
            snprintf(etag, sizeof etag, "%s", st->small[i].etag);
        }
    pthread_mutex_unlock(&st->mu);
    size_t start = out->len;
    struct ig_s3_info si;
    rc = ig_s3_get(st->s3, st->bucket, key, etag[0] ? etag : NULL, max, out, &si, err);
    if (rc == -EALREADY) {
        pthread_mutex_lock(&st->mu);
        struct small_obj *s = &st->small[slot];
        rc = strcmp(s->name, name) || strcmp(s->etag, etag)  ? -EAGAIN
             : ig_buf_append(out, s->data.data, s->data.len) ? -ENOMEM
                                                             : 0;
        if (!rc) {
            info->size = s->data.len;
            snprintf(info->etag, sizeof info->etag, "%s", etag);
        }
        pthread_mutex_unlock(&st->mu);
        if (rc == -EAGAIN) /* replaced meanwhile by another thread's read: read it whole */
            rc = ig_s3_get(st->s3, st->bucket, key, NULL, max, out, &si, err);
        else if (rc)
            return ig_err(err, rc, "out of memory");
        else
            return 0;
    }
    if (rc) return rc;
    info->size = si.size;
    snprintf(info->etag, sizeof info->etag, "%s", si.etag);
    snprintf(info->version_id, sizeof info->version_id, "%s", si.version_id);
    size_t len = out->len - start;
    if (len <= SMALL_MAX && si.etag[0]) {
        pthread_mutex_lock(&st->mu);
        if (slot < 0 || strcmp(st->small[slot].name, name)) {
            slot = (int)(st->small_next++ % SMALL_CACHED);
            snprintf(st->small[slot].name, sizeof st->small[slot].name, "%s", name);
        }
        struct small_obj *s = &st->small[slot];
        ig_buf_reset(&s->data);
        if (ig_buf_append(&s->data, out->data + start, len) == 0)
            snprintf(s->etag, sizeof s->etag, "%s", si.etag);
        else
            s->name[0] = '\0';
        pthread_mutex_unlock(&st->mu);
    }
    return 0;
}

static int local_write(struct ig_store *st, const char *name, const void *data, size_t len,
                       const struct ig_store_cond *cond, struct ig_obj_info *info,
                       struct ig_error *err)
{
    char path[4096], tmp[4200], dir[4096];
    int rc = local_path(st, name, path, sizeof path, err);
    if (rc) return rc;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
    if (cond && cond->if_match) {
        struct stat s;
        char now[IG_ETAG_MAX];
        if (stat(path, &s)) return ig_err(err, -ESTALE, "%s: gone (changed since read)", path);
        local_etag(&s, now);
        if (strcmp(now, cond->if_match))
            return ig_err(err, -ESTALE, "%s: changed since read", path);
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", tmp, strerror(errno));
    rc = ig_write_full(fd, data, len);
    if (!rc && fsync(fd)) rc = -errno;
    if (close(fd) && !rc) rc = -errno;
    if (!rc) {
        if (cond && cond->if_absent) {
            /* link refuses an existing name: create-only, atomically */
            if (link(tmp, path)) rc = errno == EEXIST ? -EEXIST : -errno;
            unlink(tmp);
        } else if (rename(tmp, path)) {
            rc = -errno;
        }
    }
    if (rc) {
        unlink(tmp);
        return ig_err(err, rc, "%s: %s", path, rc == -EEXIST ? "exists already" : strerror(-rc));
    }
    rc = ig_fsync_dir(dir);
    if (rc) return ig_err(err, rc, "%s: fsync: %s", dir, strerror(-rc));
    if (info) {
        struct stat s;
        memset(info, 0, sizeof *info);
        info->size = len;
        if (stat(path, &s) == 0) local_etag(&s, info->etag);
    }
    return 0;
}

/* A remote object from memory: one PUT, or parts of PART_BYTES. */
static int s3_write(struct ig_store *st, const char *key, const void *data, size_t len,
                    const struct ig_store_cond *cond, struct ig_s3_info *si, struct ig_error *err)
{
    struct ig_s3_cond c = {cond ? cond->if_match : NULL, cond && cond->if_absent};
    if (len <= PART_BYTES) return ig_s3_put(st->s3, st->bucket, key, data, len, &c, si, err);
    if (c.if_match || c.if_none_match)
        return ig_err(err, -EINVAL, "s3://%s/%s: a conditional write of over 64 MiB", st->bucket,
                      key);
    char upload[1024];
    int rc = ig_s3_mpu_start(st->s3, st->bucket, key, upload, sizeof upload, err);
    if (rc) return rc;
    unsigned nparts = (unsigned)((len + PART_BYTES - 1) / PART_BYTES);
    char(*etags)[IG_ETAG_MAX] = calloc(nparts, IG_ETAG_MAX);
    if (!etags) rc = ig_err(err, -ENOMEM, "out of memory");
    for (unsigned i = 0; !rc && i < nparts; i++) {
        size_t off = (size_t)i * PART_BYTES, n = len - off < PART_BYTES ? len - off : PART_BYTES;
        rc = ig_s3_mpu_put(st->s3, st->bucket, key, upload, i + 1, (const uint8_t *)data + off, n,
                           etags[i], err);
    }
    if (!rc) rc = ig_s3_mpu_complete(st->s3, st->bucket, key, upload, etags, nparts, si, err);
    if (rc) ig_s3_mpu_abort(st->s3, st->bucket, key, upload);
    free(etags);
    return rc;
}

static void info_from_s3(struct ig_obj_info *info, const struct ig_s3_info *si, const char *name)
{
    if (!info) return;
    memset(info, 0, sizeof *info);
    info->size = si->size;
    snprintf(info->etag, sizeof info->etag, "%s", si->etag);
    snprintf(info->version_id, sizeof info->version_id, "%s", si->version_id);
    info->latest = si->latest;
    info->delete_marker = si->delete_marker;
    info->mtime_ms = si->mtime_ms;
    snprintf(info->name, sizeof info->name, "%s", name);
}

int ig_store_write(struct ig_store *st, const char *name, const void *data, size_t len,
                   const struct ig_store_cond *cond, struct ig_obj_info *info, struct ig_error *err)
{
    if (!st->remote) return local_write(st, name, data, len, cond, info, err);
    char key[IG_S3_KEY_LEN_MAX];
    int rc = key_of(st, name, key, sizeof key, err);
    struct ig_s3_info si;
    if (!rc) rc = s3_write(st, key, data, len, cond, &si, err);
    if (!rc) info_from_s3(info, &si, name);
    return rc;
}

int ig_store_write_file(struct ig_store *st, const char *name, const char *path,
                        const struct ig_store_cond *cond, struct ig_obj_info *info,
                        struct ig_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    struct stat s;
    int rc = fstat(fd, &s) ? ig_err(err, -errno, "%s: %s", path, strerror(errno)) : 0;
    uint64_t size = rc ? 0 : (uint64_t)s.st_size;
    if (!rc && (!st->remote || size <= PART_BYTES)) {
        /* small enough to hold: one write */
        uint8_t *data = malloc(size ? (size_t)size : 1);
        rc = data ? ig_pread_full(fd, data, (size_t)size, 0) : -ENOMEM;
        if (rc) rc = ig_err(err, rc, "%s: %s", path, strerror(-rc));
        if (!rc) rc = ig_store_write(st, name, data, (size_t)size, cond, info, err);
        free(data);
        close(fd);
        return rc;
    }
    char key[IG_S3_KEY_LEN_MAX], upload[1024];
    if (!rc) rc = key_of(st, name, key, sizeof key, err);
    if (!rc && cond && (cond->if_match || cond->if_absent))
        rc =
            ig_err(err, -EINVAL, "s3://%s/%s: a conditional write of over 64 MiB", st->bucket, key);
    if (!rc) rc = ig_s3_mpu_start(st->s3, st->bucket, key, upload, sizeof upload, err);
    if (rc) {
        close(fd);
        return rc;
    }
    unsigned nparts = (unsigned)((size + PART_BYTES - 1) / PART_BYTES);
    char(*etags)[IG_ETAG_MAX] = calloc(nparts, IG_ETAG_MAX);
    uint8_t *buf = malloc(PART_BYTES);
    if (!etags || !buf) rc = ig_err(err, -ENOMEM, "out of memory");
    for (unsigned i = 0; !rc && i < nparts; i++) {
        uint64_t off = (uint64_t)i * PART_BYTES;
        size_t n = size - off < PART_BYTES ? (size_t)(size - off) : PART_BYTES;
        rc = ig_pread_full(fd, buf, n, off);
        if (rc)
            rc = ig_err(err, rc, "%s: %s", path, strerror(-rc));
        else
            rc = ig_s3_mpu_put(st->s3, st->bucket, key, upload, i + 1, buf, n, etags[i], err);
    }
    struct ig_s3_info si;
    if (!rc) rc = ig_s3_mpu_complete(st->s3, st->bucket, key, upload, etags, nparts, &si, err);
    if (rc)
        ig_s3_mpu_abort(st->s3, st->bucket, key, upload);
    else
        info_from_s3(info, &si, name);
    free(buf);
    free(etags);
    close(fd);
    return rc;
}

int ig_store_remove(struct ig_store *st, const char *name, const char *version_id,
                    struct ig_error *err)
{
    if (!st->remote) {
        char path[4096];
        int rc = local_path(st, name, path, sizeof path, err);
        if (!rc && unlink(path) && errno != ENOENT)
            rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        return rc;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = key_of(st, name, key, sizeof key, err);
    if (!rc)
        rc = ig_s3_delete(st->s3, st->bucket, key, version_id && version_id[0] ? version_id : NULL,
                          err);
    if (!rc && !version_id) {
        pthread_mutex_lock(&st->mu);
        for (int i = 0; i < SMALL_CACHED; i++)
            if (!strcmp(st->small[i].name, name)) st->small[i].name[0] = '\0';
        pthread_mutex_unlock(&st->mu);
    }
    return rc;
}

struct list_ctx {
    struct ig_store *st;
    ig_store_list_fn fn;
    void *ctx;
};

static int list_one(void *ctx, const struct ig_s3_info *o)
{
    struct list_ctx *lc = ctx;
    size_t pl = strlen(lc->st->prefix);
    if (strncmp(o->key, lc->st->prefix, pl)) return 0;
    struct ig_obj_info info;
    info_from_s3(&info, o, o->key + pl);
    return lc->fn(lc->ctx, &info);
}

static int local_walk(struct ig_store *st, const char *rel, const char *sub, ig_store_list_fn fn,
                      void *ctx, struct ig_error *err)
{
    char path[4096];
    if (ig_path_join(path, sizeof path, st->location, rel))
        return ig_err(err, -ENAMETOOLONG, "path too long");
    DIR *d = opendir(rel[0] ? path : st->location);
    if (!d) return errno == ENOENT ? 0 : ig_err(err, -errno, "%s: %s", path, strerror(errno));
    int rc = 0;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char name[IG_STORE_NAME_MAX];
        int n = snprintf(name, sizeof name, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        if (n < 0 || (size_t)n >= sizeof name) continue;
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", st->location, name);
        struct stat s;
        if (lstat(full, &s)) continue;
        if (S_ISDIR(s.st_mode)) {
            rc = local_walk(st, name, sub, fn, ctx, err);
            continue;
        }
        if (!S_ISREG(s.st_mode) || strncmp(name, sub, strlen(sub))) continue;
        struct ig_obj_info info = {.size = (uint64_t)s.st_size,
                                   .latest = true,
                                   .mtime_ms = (int64_t)s.st_mtim.tv_sec * 1000 + s.st_mtim.tv_nsec / 1000000};
        local_etag(&s, info.etag);
        snprintf(info.name, sizeof info.name, "%s", name);
        rc = fn(ctx, &info);
    }
    closedir(d);
    return rc;
}

int ig_store_list(struct ig_store *st, const char *sub, bool versions, ig_store_list_fn fn,
                  void *ctx, struct ig_error *err)
{
    if (!st->remote) return local_walk(st, "", sub, fn, ctx, err);
    char key[IG_S3_KEY_LEN_MAX];
    int n = snprintf(key, sizeof key, "%s%s", st->prefix, sub);
    if (n < 0 || (size_t)n >= sizeof key)
        return ig_err(err, -ENAMETOOLONG, "%s: prefix too long", st->location);
    struct list_ctx lc = {st, fn, ctx};
    return ig_s3_list(st->s3, st->bucket, key, versions, list_one, &lc, err);
}

/* ---- objects read by range --------------------------------------------- */

static struct ig_obj *obj_find_or_add(struct ig_store *st, struct ig_obj *fresh)
{
    pthread_mutex_lock(&st->mu);
    for (struct ig_obj *o = st->objs; o; o = o->next)
        if (!strcmp(o->name, fresh->name) && !strcmp(o->info.etag, fresh->info.etag) &&
            o->info.size == fresh->info.size) {
            o->refs++;
            pthread_mutex_unlock(&st->mu);
            return o;
        }
    fresh->refs = 1;
    fresh->next = st->objs;
    st->objs = fresh;
    pthread_mutex_unlock(&st->mu);
    return fresh;
}

static struct ig_obj *obj_alloc(struct ig_store *st, const char *name)
{
    struct ig_obj *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->st = st;
    o->fd = -1;
    snprintf(o->name, sizeof o->name, "%s", name);
    pthread_mutex_init(&o->ra_mu, NULL);
    return o;
}

static void obj_destroy(struct ig_obj *o)
{
    ig_rc_obj_free(o->rc);
    if (o->fd >= 0) close(o->fd);
    pthread_mutex_destroy(&o->ra_mu);
    free(o);
}

/* A handle for a remote object whose size and ETag are known; shared with
 * an open handle of the same name and ETag. */
static int obj_make(struct ig_store *st, const char *name, const struct ig_obj_info *info,
                    struct ig_obj **out, struct ig_error *err)
{
    struct ig_obj *o = obj_alloc(st, name);
    if (!o) return ig_err(err, -ENOMEM, "out of memory");
    o->info = *info;
    snprintf(o->info.name, sizeof o->info.name, "%s", name);
    int rc = key_of(st, name, o->key, sizeof o->key, err);
    if (!rc && !(o->rc = ig_rc_obj_new(st->cache))) rc = ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        obj_destroy(o);
        return rc;
    }
    struct ig_obj *shared = obj_find_or_add(st, o);
    if (shared != o)
        obj_destroy(o);
    else if (st->disk)
        ig_diskcache_forget_others(st->disk, st->location, name, info->etag);
    *out = shared;
    return 0;
}

int ig_obj_open(struct ig_store *st, const char *name, const struct ig_obj_info *known,
                struct ig_obj **out, struct ig_error *err)
{
    if (!st->remote) {
        struct ig_obj *o = obj_alloc(st, name);
        if (!o) return ig_err(err, -ENOMEM, "out of memory");
        char path[4096];
        int rc = local_path(st, name, path, sizeof path, err);
        struct stat s;
        if (!rc && (o->fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0)) < 0)
            rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        if (!rc && fstat(o->fd, &s)) rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        if (rc) {
            obj_destroy(o);
            return rc;
        }
        o->info.size = (uint64_t)s.st_size;
        local_etag(&s, o->info.etag);
        o->refs = 1;
        *out = o;
        return 0;
    }
    struct ig_obj_info info;
    if (known) {
        info = *known;
    } else {
        int rc = ig_store_stat(st, name, &info, err);
        if (rc) return rc;
    }
    return obj_make(st, name, &info, out, err);
}

int ig_obj_open_tail(struct ig_store *st, const char *name, uint64_t end, size_t want,
                     struct ig_buf *tail, uint64_t *tail_start, struct ig_obj **out,
                     struct ig_error *err)
{
    if (!st->remote) {
        int rc = ig_obj_open(st, name, NULL, out, err);
        if (rc) return rc;
        uint64_t size = (*out)->info.size, e = end ? end : size;
        if (e > size) {
            ig_obj_close(*out);
            return ig_err(err, -EIO, "%s/%s: %" PRIu64 " bytes, shorter than %" PRIu64,
                          st->location, name, size, e);
        }
        uint64_t s = e > want ? e - want : 0;
        uint8_t *p = ig_buf_extend(tail, (size_t)(e - s));
        rc = p ? ig_obj_read(*out, p, (size_t)(e - s), s, err)
               : ig_err(err, -ENOMEM, "out of memory");
        if (rc) {
            ig_obj_close(*out);
            return rc;
        }
        *tail_start = s;
        return 0;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = key_of(st, name, key, sizeof key, err);
    if (rc) return rc;
    size_t start = tail->len;
    struct ig_s3_info si;
    uint64_t s;
    struct ig_obj_info info = {0};
    if (!end) {
        rc = ig_s3_get_tail(st->s3, st->bucket, key, want, tail, &s, &si, err);
        if (rc) return rc;
        info.size = si.size;
        snprintf(info.etag, sizeof info.etag, "%s", si.etag);
        snprintf(info.version_id, sizeof info.version_id, "%s", si.version_id);
    } else {
        /* the end is known (MANIFEST records it): one ranged GET before it,
         * whose answer gives the object's size (Content-Range) and ETag: no
         * HEAD first */
        s = end > want ? end - want : 0;
        uint8_t *p = ig_buf_extend(tail, (size_t)(end - s));
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        rc = ig_s3_get_range(st->s3, st->bucket, key, s, end - s, p, &si, err);
        if (rc) {
            tail->len = start;
            return rc;
        }
        info.size = si.size;
        snprintf(info.etag, sizeof info.etag, "%s", si.etag);
        snprintf(info.version_id, sizeof info.version_id, "%s", si.version_id);
    }
    atomic_fetch_add(&st->fetched, tail->len - start);
    rc = obj_make(st, name, &info, out, err);
    if (rc) return rc;
    *tail_start = s;
    /* the bytes fetched are cached: the last pages before a footer are read too */
    size_t len = tail->len - start;
    struct ig_range gaps[MAX_GAPS];
    size_t ng = len ? ig_rc_claim((*out)->rc, s, len, gaps, MAX_GAPS) : 0;
    for (size_t i = 0; i < ng; i++) {
        void *copy = malloc((size_t)gaps[i].len);
        if (copy) memcpy(copy, tail->data + start + (gaps[i].off - s), (size_t)gaps[i].len);
        ig_rc_fill((*out)->rc, gaps[i].off, gaps[i].len, copy);
    }
    return 0;
}

uint64_t ig_obj_size(const struct ig_obj *o)
{
    return o->info.size;
}

const char *ig_obj_etag(const struct ig_obj *o)
{
    return o->info.etag;
}

const char *ig_obj_version(const struct ig_obj *o)
{
    return o->info.version_id;
}

struct ig_store *ig_obj_store(const struct ig_obj *o)
{
    return o->st;
}

const char *ig_obj_name(const struct ig_obj *o)
{
    return o->name;
}

/* Fetch claimed gaps: each from the disk cache if there, else by range GETs
 * (gaps over a piece split into parallel ones), into the cache. On failure
 * every claim is dropped. bufs[i] (when bufs) gets gap i's bytes, still owned
 * by the cache: valid only until the next eviction, so callers copy at once
 * under the claim (they read it before filling). */
static int fetch_gaps(struct ig_obj *o, const struct ig_range *gaps, size_t ng, uint8_t **data,
                      struct ig_error *err)
{
    struct ig_store *st = o->st;
    uint64_t total = 0;
    for (size_t i = 0; i < ng; i++)
        total += gaps[i].len;
    unsigned par = 8;
    uint64_t piece = total / par;
    if (piece < PIECE_MIN) piece = PIECE_MIN;
    size_t nr = 0, rcap = ng + (size_t)(total / piece) + 1;
    struct ig_s3_range *r = calloc(rcap, sizeof *r);
    int rc = r ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < ng; i++)
        data[i] = NULL;
    for (size_t i = 0; !rc && i < ng; i++) {
        data[i] = malloc((size_t)gaps[i].len);
        if (!data[i]) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        if (st->disk && ig_diskcache_get(st->disk, st->location, o->name, o->info.etag, gaps[i].off,
                                         gaps[i].len, data[i]) == 0)
            continue;
        struct ig_range whole = gaps[i], pieces[64];
        size_t np = ig_ranges_split(&whole, 1, piece, pieces, 64);
        if (np == SIZE_MAX) np = ig_ranges_split(&whole, 1, (whole.len + 63) / 64, pieces, 64);
        for (size_t k = 0; k < np && nr < rcap; k++)
            r[nr++] = (struct ig_s3_range){pieces[k].off, pieces[k].len,
                                           data[i] + (pieces[k].off - gaps[i].off)};
    }
    if (!rc && nr) rc = ig_s3_get_ranges(st->s3, st->bucket, o->key, o->info.etag, r, nr, err);
    if (!rc) {
        uint64_t got = 0;
        for (size_t k = 0; k < nr; k++)
            got += r[k].len;
        atomic_fetch_add(&st->fetched, got);
        if (st->disk)
            for (size_t i = 0; i < ng; i++)
                ig_diskcache_put(st->disk, st->location, o->name, o->info.etag, gaps[i].off,
                                 gaps[i].len, data[i]);
    }
    free(r);
    if (rc)
        for (size_t i = 0; i < ng; i++) {
            free(data[i]);
            data[i] = NULL;
        }
    return rc;
}

static void *worker_main(void *arg)
{
    struct ig_store *st = arg;
    for (;;) {
        pthread_mutex_lock(&st->mu);
        while (!st->jobs)
            pthread_cond_wait(&st->work, &st->mu);
        struct job *j = st->jobs;
        st->jobs = j->next;
        if (!st->jobs) st->jobs_tail = NULL;
        pthread_mutex_unlock(&st->mu);
        uint8_t **data = calloc(j->n, sizeof *data);
        int rc = data ? fetch_gaps(j->o, j->gaps, j->n, data, NULL) : -ENOMEM;
        for (size_t i = 0; i < j->n; i++)
            ig_rc_fill(j->o->rc, j->gaps[i].off, j->gaps[i].len, rc ? NULL : data[i]);
        free(data);
        ig_obj_close(j->o);
        free(j->gaps);
        free(j);
    }
    return NULL;
}

/* Hand claimed gaps to the store's background fetcher (started on first
 * use); false when it cannot take them (the caller drops the claims). */
static bool enqueue(struct ig_obj *o, const struct ig_range *gaps, size_t n)
{
    struct ig_store *st = o->st;
    struct job *j = calloc(1, sizeof *j);
    if (!j || !(j->gaps = malloc(n * sizeof *gaps))) {
        free(j);
        return false;
    }
    memcpy(j->gaps, gaps, n * sizeof *gaps);
    j->n = n;
    j->o = o;
    pthread_mutex_lock(&st->mu);
    o->refs++;
    bool ok = true;
    if (!st->worker) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        st->worker = pthread_create(&t, &a, worker_main, st) == 0;
        pthread_attr_destroy(&a);
        ok = st->worker;
    }
    if (ok) {
        if (st->jobs_tail)
            st->jobs_tail->next = j;
        else
            st->jobs = j;
        st->jobs_tail = j;
        pthread_cond_signal(&st->work);
    } else {
        o->refs--;
    }
    pthread_mutex_unlock(&st->mu);
    if (!ok) {
        free(j->gaps);
        free(j);
    }
    return ok;
}

/* Readahead: a read that starts where the last one ended grows a window
 * (256 KiB doubling to ra_max) fetched in the background ahead of it,
 * topped up once half of it is consumed. */
static void read_ahead(struct ig_obj *o, uint64_t off, size_t n)
{
    uint64_t from = 0, to = 0;
    pthread_mutex_lock(&o->ra_mu);
    bool seq = off == o->ra_next && off != 0;
    uint64_t end = off + n;
    if (!seq) {
        o->ra_window = 0;
        o->ra_ahead = end;
    } else {
        o->ra_window = o->ra_window
                           ? (2 * o->ra_window < o->st->ra_max ? 2 * o->ra_window : o->st->ra_max)
                           : RA_FIRST;
        if (o->ra_ahead < end) o->ra_ahead = end;
        if (o->ra_ahead - end < o->ra_window / 2) {
            from = o->ra_ahead;
            to = end + o->ra_window;
            if (to > o->info.size) to = o->info.size;
            if (to > from) o->ra_ahead = to;
        }
    }
    o->ra_next = end;
    pthread_mutex_unlock(&o->ra_mu);
    if (to > from) {
        struct ig_range r = {from, to - from};
        ig_obj_prefetch(o, &r, 1, false);
    }
}

int ig_obj_read(struct ig_obj *o, void *buf, size_t n, uint64_t off, struct ig_error *err)
{
    struct ig_store *st = o->st;
    if (off > o->info.size || n > o->info.size - off)
        return ig_err(err, -EIO,
                      "%s/%s: bytes %" PRIu64 "+%zu past the end (%" PRIu64 ": truncated?)",
                      st->location, o->name, off, n, o->info.size);
    if (!st->remote) {
        int rc = ig_pread_full(o->fd, buf, n, off);
        return rc ? ig_err(err, rc, "%s/%s: read: %s", st->location, o->name,
                           rc == -EIO ? "file truncated" : strerror(-rc))
                  : 0;
    }
    if (n == 0) return 0;
    bool missed = false;
    for (;;) {
        struct ig_range gaps[MAX_GAPS];
        size_t ng;
        bool more;
        ig_rc_read(o->rc, buf, n, off, gaps, MAX_GAPS, &ng, &more);
        if (ng == 0 && !more) break;
        missed = true;
        uint8_t *data[MAX_GAPS];
        int rc = fetch_gaps(o, gaps, ng, data, err);
        for (size_t i = 0; i < ng; i++) {
            if (!rc) memcpy((uint8_t *)buf + (gaps[i].off - off), data[i], (size_t)gaps[i].len);
            ig_rc_fill(o->rc, gaps[i].off, gaps[i].len, rc ? NULL : data[i]);
        }
        if (rc) return rc;
        if (!more) break;
    }
    atomic_fetch_add(missed ? &st->misses : &st->hits, 1);
    read_ahead(o, off, n);
    return 0;
}

void ig_obj_prefetch(struct ig_obj *o, const struct ig_range *r, size_t n, bool wait)
{
    struct ig_store *st = o->st;
    if (!st->remote) {
        for (size_t i = 0; i < n; i++)
            (void)posix_fadvise(o->fd, (off_t)r[i].off, (off_t)r[i].len, POSIX_FADV_WILLNEED);
        return;
    }
    struct ig_range *m = malloc((n ? n : 1) * sizeof *m);
    if (!m) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) { /* inside the object only */
        if (r[i].off >= o->info.size) continue;
        uint64_t len = r[i].len < o->info.size - r[i].off ? r[i].len : o->info.size - r[i].off;
        m[k++] = (struct ig_range){r[i].off, len};
    }
    /* neighbours a few KiB apart become one request */
    k = ig_ranges_coalesce(m, k, 16u << 10);
    for (size_t i = 0; i < k;) {
        struct ig_range gaps[MAX_GAPS];
        size_t ng = 0;
        for (; i < k && ng < MAX_GAPS / 2; i++)
            ng += ig_rc_claim(o->rc, m[i].off, m[i].len, gaps + ng, MAX_GAPS - ng);
        if (!ng) continue;
        if (!wait && enqueue(o, gaps, ng)) continue;
        uint8_t *data[MAX_GAPS];
        int rc = fetch_gaps(o, gaps, ng, data, NULL);
        for (size_t g = 0; g < ng; g++)
            ig_rc_fill(o->rc, gaps[g].off, gaps[g].len, rc ? NULL : data[g]);
    }
    free(m);
}

bool ig_obj_replaced(struct ig_obj *o)
{
    struct ig_store *st = o->st;
    struct ig_obj_info now;
    struct ig_error e = {0};
    int rc = ig_store_stat(st, o->name, &now, &e);
    if (rc == -ENOENT) return true;
    if (rc) return false;
    return strcmp(now.etag, o->info.etag) != 0 || now.size != o->info.size;
}

void ig_obj_close(struct ig_obj *o)
{
    if (!o) return;
    struct ig_store *st = o->st;
    if (!st->remote) {
        obj_destroy(o);
        return;
    }
    pthread_mutex_lock(&st->mu);
    bool last = --o->refs == 0;
    if (last)
        for (struct ig_obj **pp = &st->objs; *pp; pp = &(*pp)->next)
            if (*pp == o) {
                *pp = o->next;
                break;
            }
    pthread_mutex_unlock(&st->mu);
    /* the last handle takes its cached ranges with it: bytes of a replaced
     * object (values an erase removed) do not stay in memory */
    if (last) obj_destroy(o);
}
