/* store_objects.c - whole objects of a store, local or on S3: stat, read
 * (small remote ones kept with their ETag and asked for again only if
 * changed), remove and list. Writing them is store_write.c; reading them by
 * range is store_obj.c. */
#include "store/store.h"
#include "store/s3.h"
#include "store/store_int.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SMALL_MAX (1u << 20) /* whole objects kept (SMALL_CACHED) are at most this size */

int ig_store_stat(struct ig_store *st, const char *name, struct ig_obj_info *info,
                  struct ig_error *err)
{
    memset(info, 0, sizeof *info);
    if (!st->remote) {
        char path[4096];
        int rc = store_local_path(st, name, path, sizeof path, err);
        struct stat s;
        if (!rc && stat(path, &s)) rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        if (rc) return rc;
        info->size = (uint64_t)s.st_size;
        store_local_etag(&s, info->etag);
        snprintf(info->name, sizeof info->name, "%s", name);
        return 0;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = store_key_of(st, name, key, sizeof key, err);
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
        int rc = store_local_path(st, name, path, sizeof path, err);
        char *data = NULL;
        size_t len = 0;
        if (!rc) rc = ig_read_file(path, max, &data, &len, err);
        if (!rc && ig_buf_append(out, data, len)) rc = ig_err(err, -ENOMEM, "out of memory");
        free(data);
        struct stat s;
        if (!rc && stat(path, &s) == 0) store_local_etag(&s, info->etag);
        info->size = len;
        return rc;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = store_key_of(st, name, key, sizeof key, err);
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

int ig_store_remove(struct ig_store *st, const char *name, const char *version_id,
                    struct ig_error *err)
{
    if (!st->remote) {
        char path[4096];
        int rc = store_local_path(st, name, path, sizeof path, err);
        if (!rc && unlink(path) && errno != ENOENT)
            rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        return rc;
    }
    char key[IG_S3_KEY_LEN_MAX];
    int rc = store_key_of(st, name, key, sizeof key, err);
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
    store_info_from_s3(&info, o, o->key + pl);
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
        store_local_etag(&s, info.etag);
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
