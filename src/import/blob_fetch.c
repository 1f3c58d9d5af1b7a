/* blob_fetch.c - objects named by blob values, fetched in parallel before
 * the rows (blob_fetch.h). */
#include "blob_fetch.h"
#include "spool.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/strset.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An object's first request asks for its last this many bytes: a small one
 * (an image, a frame) comes whole in one GET, its size with it. */
#define FIRST_GET (1u << 20)
#define PIECE (1u << 20)
/* The most the local file holds by default (INGOT_BLOB_FETCH_MB sets it;
 * 0: none fetched ahead): objects past it are left to their rows (fetched
 * one at a time as they are met), so that a manifest of millions of images
 * needs no more room under $TMPDIR than this beside its table. */
#define FETCH_BUDGET_MB 1024

struct fetched {
    uint64_t off, size;
    bool ok;
};

struct ig_blob_fetch {
    struct ig_strset paths; /* entry i is object i */
    struct fetched *at;     /* by entry */
    size_t cap;
    int fd; /* the local file they are fetched into */
    char dir[4096];
    _Atomic uint64_t end;  /* next free byte of it */
    _Atomic size_t next;   /* next object to fetch */
    _Atomic int failed;    /* a local write failed: its error in err */
    uint64_t budget;       /* bytes fetched before no more are claimed */
    pthread_mutex_t mu;    /* err */
    struct ig_error err;
    const volatile sig_atomic_t *cancel;
};

int ig_blob_fetch_new(struct ig_blob_fetch **out, struct ig_error *err)
{
    struct ig_blob_fetch *f = calloc(1, sizeof *f);
    if (!f) return ig_err(err, -ENOMEM, "out of memory");
    ig_strset_init(&f->paths);
    f->fd = -1;
    pthread_mutex_init(&f->mu, NULL);
    *out = f;
    return 0;
}

void ig_blob_fetch_free(struct ig_blob_fetch *f)
{
    if (!f) return;
    ig_strset_free(&f->paths);
    free(f->at);
    if (f->fd >= 0) close(f->fd);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

int ig_blob_fetch_want(struct ig_blob_fetch *f, const char *path, size_t n, struct ig_error *err)
{
    uint32_t i;
    bool added;
    if (ig_strset_add(&f->paths, path, n, &i, &added)) return ig_err(err, -ENOMEM, "out of memory");
    if (added && (size_t)i >= f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 256;
        struct fetched *p = realloc(f->at, cap * sizeof *p);
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        f->at = p;
        f->cap = cap;
    }
    if (added) f->at[i] = (struct fetched){0};
    return 0;
}

size_t ig_blob_fetch_count(const struct ig_blob_fetch *f)
{
    return f->paths.count;
}

/* Bytes into the local file at `at`; a failure stops every fetcher. */
static int put(struct ig_blob_fetch *f, const void *p, size_t n, uint64_t at)
{
    int rc = ig_pwrite_full(f->fd, p, n, at);
    if (!rc) return 0;
    pthread_mutex_lock(&f->mu);
    if (!f->failed) ig_err(&f->err, rc, "%s: writing fetched blob objects: %s", f->dir, strerror(-rc));
    f->failed = 1;
    pthread_mutex_unlock(&f->mu);
    return rc;
}

/* Object i, fetched into its place: false when it could not be (left to the
 * row that names it). */
static bool fetch_one(struct ig_blob_fetch *f, uint32_t i, uint8_t *buf)
{
    size_t len;
    char path[4096], location[4096];
    const uint8_t *p = ig_strset_get(&f->paths, i, &len);
    if (len >= sizeof path) return false;
    memcpy(path, p, len);
    path[len] = 0;
    const char *name;
    struct ig_store *st;
    struct ig_obj *o = NULL;
    struct ig_error e = {0};
    struct ig_buf tail = IG_BUF_INIT;
    uint64_t start = 0;
    if (ig_store_split(path, location, sizeof location, &name) || ig_store_at(location, &st, &e) ||
        ig_obj_open_tail(st, name, 0, FIRST_GET, &tail, &start, &o, &e)) {
        ig_buf_free(&tail);
        return false;
    }
    uint64_t size = ig_obj_size(o), off = atomic_fetch_add(&f->end, size);
    bool ok = put(f, tail.data, tail.len, off + start) == 0;
    for (uint64_t at = 0; ok && at < start; at += PIECE) { /* the rest of a large one */
        size_t n = start - at < PIECE ? (size_t)(start - at) : PIECE;
        ok = !(f->cancel && *f->cancel) && ig_obj_read(o, buf, n, at, &e) == 0 && put(f, buf, n, off + at) == 0;
    }
    ig_obj_close(o);
    ig_buf_free(&tail);
    if (ok) f->at[i] = (struct fetched){off, size, true};
    return ok;
}

static void *fetcher(void *arg)
{
    struct ig_blob_fetch *f = arg;
    uint8_t *buf = malloc(PIECE);
    for (size_t i; buf && !f->failed && !(f->cancel && *f->cancel) && atomic_load(&f->end) < f->budget &&
                   (i = atomic_fetch_add(&f->next, 1)) < f->paths.count;)
        fetch_one(f, (uint32_t)i, buf);
    free(buf);
    return NULL;
}

int ig_blob_fetch_run(struct ig_blob_fetch *f, unsigned threads, const volatile sig_atomic_t *cancel,
                      struct ig_error *err)
{
    const char *mb = getenv("INGOT_BLOB_FETCH_MB");
    f->budget = (mb && *mb ? strtoull(mb, NULL, 10) : FETCH_BUDGET_MB) << 20;
    if (!f->paths.count || !f->budget) return 0;
    f->cancel = cancel;
    if (f->fd < 0 && (f->fd = ig_spool_temp_file(f->dir, sizeof f->dir, err)) < 0) return f->fd;
    if (threads > f->paths.count) threads = (unsigned)f->paths.count;
    pthread_t *tid = calloc(threads ? threads : 1, sizeof *tid);
    if (!tid) return ig_err(err, -ENOMEM, "out of memory");
    unsigned started = 0;
    while (started < threads && pthread_create(&tid[started], NULL, fetcher, f) == 0)
        started++;
    if (!started) fetcher(f); /* no thread to be had: one after another here */
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    if (f->failed) {
        *err = f->err;
        return f->err.code ? f->err.code : -EIO;
    }
    if (cancel && *cancel) return ig_err(err, -EINTR, "interrupted; nothing was written");
    return 0;
}

bool ig_blob_fetch_find(const struct ig_blob_fetch *f, const char *path, size_t n, int *fd, uint64_t *off,
                        uint64_t *size)
{
    int64_t i = ig_strset_find(&f->paths, path, n);
    if (i < 0 || !f->at[i].ok) return false;
    *fd = f->fd;
    *off = f->at[i].off;
    *size = f->at[i].size;
    return true;
}
