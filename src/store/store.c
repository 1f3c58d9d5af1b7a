/* store.c - the store of a location: the registry that keeps one per
 * location for the process, its lifetime (S3 client, range and disk caches,
 * readahead bound from the environment), its accessors and statistics, and
 * how an object's name becomes a key or a path. What is done with objects
 * is in store_objects.c, store_write.c, store_obj.c and store_fetch.c
 * (store_int.h). */
#include "store/store.h"
#include "store/diskcache.h"
#include "store/rcache.h"
#include "store/s3.h"
#include "store/s3_config.h"
#include "store/store_int.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A size from the environment in units of 1 << shift bytes (the default
 * when unset or not a number). */
static size_t env_units(const char *name, size_t dflt, unsigned shift)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt << shift;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || n > (1ull << 24)) return dflt << shift;
    return (size_t)n << shift;
}

static size_t env_size(const char *name, size_t dflt_mb)
{
    return env_units(name, dflt_mb, 20);
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
        st->ra_max = env_size("INGOT_S3_READAHEAD_MB", 32);
        if (st->ra_max < RA_FIRST) st->ra_max = RA_FIRST;
        /* a request costs the gateway about what sending a few hundred KiB
         * does (1,000 random rows of a 58 MiB part: 748 GETs of 6 KB a row
         * took 307 ms, 23 GETs of 58 KB a row 82 ms), so ranges closer than
         * that are one request */
        st->coalesce = env_units("INGOT_S3_COALESCE_KB", 256, 10);
        st->ahead_piece = env_size("INGOT_S3_AHEAD_PIECE_MB", 8);
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

uint64_t ig_store_readahead(const struct ig_store *st)
{
    return st->remote ? st->ra_max : 0;
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
int store_key_of(const struct ig_store *st, const char *name, char *key, size_t cap,
                 struct ig_error *err)
{
    if (!name[0] || name[0] == '/' || strstr(name, "..") || strlen(name) >= IG_STORE_NAME_MAX)
        return ig_err(err, -EINVAL, "%s: bad object name '%s'", st->location, name);
    int n = snprintf(key, cap, "%s%s", st->remote ? st->prefix : "", name);
    if (n < 0 || (size_t)n >= cap)
        return ig_err(err, -ENAMETOOLONG, "%s/%s: name too long", st->location, name);
    return 0;
}

int store_local_path(const struct ig_store *st, const char *name, char *path, size_t cap,
                     struct ig_error *err)
{
    char key[IG_STORE_NAME_MAX];
    int rc = store_key_of(st, name, key, sizeof key, err);
    if (!rc && ig_path_join(path, cap, st->location, key))
        rc = ig_err(err, -ENAMETOOLONG, "%s/%s: path too long", st->location, name);
    return rc;
}

void store_local_etag(const struct stat *s, char *out)
{
    snprintf(out, IG_ETAG_MAX, "%" PRIx64 "-%" PRIx64 "-%" PRIx64, (uint64_t)s->st_size,
             (uint64_t)s->st_mtim.tv_sec, (uint64_t)s->st_mtim.tv_nsec);
}

void store_info_from_s3(struct ig_obj_info *info, const struct ig_s3_info *si, const char *name)
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
