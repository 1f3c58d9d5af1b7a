/* store_obj.c - object handles read by range: opened on a local file, or
 * on a remote object whose size and ETag are known (shared by every open
 * handle of that version, with its cached ranges), reads served from the
 * range cache, and whether the object was replaced since. How missing
 * ranges are fetched, now or ahead of time, is store_fetch.c; a handle's
 * sharing, counting and release are store_handle.c's. */
#include "store/store.h"
#include "store/diskcache.h"
#include "store/rcache.h"
#include "store/s3.h"
#include "store/store_int.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"

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

/* A handle for a remote object whose size and ETag are known; shared with
 * an open handle of the same name and ETag. */
static int obj_make(struct ig_store *st, const char *name, const struct ig_obj_info *info,
                    struct ig_obj **out, struct ig_error *err)
{
    struct ig_obj *o = store_obj_alloc(st, name);
    if (!o) return ig_err(err, -ENOMEM, "out of memory");
    o->info = *info;
    snprintf(o->info.name, sizeof o->info.name, "%s", name);
    int rc = store_key_of(st, name, o->key, sizeof o->key, err);
    if (!rc && !(o->rc = ig_rc_obj_new(st->cache))) rc = ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        store_obj_destroy(o);
        return rc;
    }
    struct ig_obj *shared = store_obj_share(st, o);
    if (shared != o)
        store_obj_destroy(o);
    else if (st->disk)
        ig_diskcache_forget_others(st->disk, st->location, name, info->etag);
    *out = shared;
    return 0;
}

int ig_obj_open(struct ig_store *st, const char *name, const struct ig_obj_info *known,
                struct ig_obj **out, struct ig_error *err)
{
    if (!st->remote) {
        struct ig_obj *o = store_obj_alloc(st, name);
        if (!o) return ig_err(err, -ENOMEM, "out of memory");
        char path[4096];
        int rc = store_local_path(st, name, path, sizeof path, err);
        struct stat s;
        if (!rc && (o->fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0)) < 0)
            rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        if (!rc && fstat(o->fd, &s)) rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
        if (rc) {
            store_obj_destroy(o);
            return rc;
        }
        o->info.size = (uint64_t)s.st_size;
        store_local_etag(&s, o->info.etag);
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
    int rc = store_key_of(st, name, key, sizeof key, err);
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
    size_t ng = len ? ig_rc_claim((*out)->rc, s, len, false, gaps, MAX_GAPS) : 0;
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

int ig_obj_read(struct ig_obj *o, void *buf, size_t n, uint64_t off, struct ig_error *err)
{
    return ig_obj_read_by(o, buf, n, off, IG_AHEAD_STORE, err);
}

int ig_obj_read_by(struct ig_obj *o, void *buf, size_t n, uint64_t off, enum ig_ahead ahead,
                   struct ig_error *err)
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
        int rc = store_fetch_gaps(o, gaps, ng, data, err);
        for (size_t i = 0; i < ng; i++) {
            if (!rc) memcpy((uint8_t *)buf + (gaps[i].off - off), data[i], (size_t)gaps[i].len);
            ig_rc_fill(o->rc, gaps[i].off, gaps[i].len, rc ? NULL : data[i]);
        }
        if (rc) return rc;
        if (!more) break;
    }
    atomic_fetch_add(missed ? &st->misses : &st->hits, 1);
    if (ahead == IG_AHEAD_STORE) store_read_ahead(o, off, n);
    return 0;
}

int ig_obj_pin(struct ig_obj *o, uint64_t off, size_t n, enum ig_ahead ahead, const uint8_t **p,
               void **pin, struct ig_error *err)
{
    struct ig_store *st = o->st;
    *p = NULL;
    *pin = NULL;
    if (!st->remote || n == 0) return 0;
    if (off > o->info.size || n > o->info.size - off)
        return ig_err(err, -EIO,
                      "%s/%s: bytes %" PRIu64 "+%zu past the end (%" PRIu64 ": truncated?)",
                      st->location, o->name, off, n, o->info.size);
    bool missed = false;
    if (!(*p = ig_rc_pin(o->rc, off, n, pin))) {
        /* being fetched (a readahead): wait for it; what no one fetches is
         * fetched here, one claim for each gap */
        struct ig_range gaps[MAX_GAPS];
        size_t ng;
        bool more;
        ig_rc_read(o->rc, NULL, n, off, gaps, MAX_GAPS, &ng, &more);
        if (ng) {
            missed = true;
            uint8_t *data[MAX_GAPS];
            int rc = store_fetch_gaps(o, gaps, ng, data, err);
            for (size_t i = 0; i < ng; i++)
                ig_rc_fill(o->rc, gaps[i].off, gaps[i].len, rc ? NULL : data[i]);
            if (rc) return rc;
        }
        /* NULL when in pieces, past MAX_GAPS or evicted at once: copied */
        *p = ig_rc_pin(o->rc, off, n, pin);
    }
    if (!*p) return 0; /* ig_obj_read_by counts it */
    atomic_fetch_add(missed ? &st->misses : &st->hits, 1);
    if (ahead == IG_AHEAD_STORE) store_read_ahead(o, off, n);
    return 0;
}

void ig_obj_unpin(void *pin)
{
    ig_rc_unpin(pin);
}

bool ig_obj_pin_checked(void *pin, uint64_t off, size_t n)
{
    return ig_rc_checked(pin, off, n);
}

void ig_obj_pin_set_checked(void *pin, uint64_t off, size_t n)
{
    ig_rc_set_checked(pin, off, n);
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
    store_obj_release(o);
}
