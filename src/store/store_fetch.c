/* store_fetch.c - filling the range cache of a remote object: claimed
 * gaps read from the disk cache or by parallel range GETs, a background
 * fetcher for prefetches that need not be waited for, readahead for
 * sequential reads, and prefetch of ranges asked for. Serving reads from the
 * cache is store_obj.c (rcache.c keeps the ranges). */
#include "store/store.h"
#include "store/diskcache.h"
#include "store/ranges.h"
#include "store/rcache.h"
#include "store/s3.h"
#include "store/store_int.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE_MIN ((uint64_t)1 << 20) /* a parallel range GET's smallest piece */
/* Background fetchers: each takes one claimed piece at a time, so a piece is
 * in the cache (and its waiting reader goes on) as soon as its own GET ends,
 * not when the slowest GET of its window does; this many GETs in flight for
 * the readaheads of a store. */
#define AHEAD_WORKERS 4

/* Fetch claimed gaps: each from the disk cache if there, else by range GETs
 * (gaps over a piece split into parallel ones), into the cache. On failure
 * every claim is dropped. bufs[i] (when bufs) gets gap i's bytes, still owned
 * by the cache: valid only until the next eviction, so callers copy at once
 * under the claim (they read it before filling). */
int store_fetch_gaps(struct ig_obj *o, const struct ig_range *gaps, size_t ng, uint8_t **data,
                     struct ig_error *err)
{
    return store_fetch_gaps_by(o, gaps, ng, data, PIECE_MIN, err);
}

int store_fetch_gaps_by(struct ig_obj *o, const struct ig_range *gaps, size_t ng, uint8_t **data,
                        uint64_t piece_min, struct ig_error *err)
{
    struct ig_store *st = o->st;
    uint64_t total = 0;
    for (size_t i = 0; i < ng; i++)
        total += gaps[i].len;
    unsigned par = ig_s3_parallel(st->s3);
    uint64_t piece = total / par;
    if (piece < piece_min) piece = piece_min;
    if (piece < PIECE_MIN) piece = PIECE_MIN;
    size_t nr = 0, rcap = ng + (size_t)(total / piece) + 1;
    struct ig_s3_range *r = calloc(rcap, sizeof *r);
    int rc = r ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < ng; i++)
        data[i] = NULL;
    for (size_t i = 0; !rc && i < ng; i++) {
        data[i] = ig_rc_buffer(st->cache, (size_t)gaps[i].len); /* a spent range's pages, if any */
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
        /* nothing waits for these bytes yet: fewer, larger GETs (each GET
         * costs the gateway a request's work besides its bytes) */
        int rc = data ? store_fetch_gaps_by(j->o, j->gaps, j->n, data, st->ahead_piece, NULL)
                      : -ENOMEM;
        for (size_t i = 0; i < j->n; i++)
            ig_rc_fill(j->o->rc, j->gaps[i].off, j->gaps[i].len, rc ? NULL : data[i]);
        free(data);
        store_obj_release(j->o);
        free(j->gaps);
        free(j);
    }
    return NULL;
}

/* Hand claimed gaps to the store's background fetchers (started on first
 * use), one job a gap, in order; false when they cannot take them (the
 * caller then fetches what was not queued itself: *queued say how many were). */
static bool enqueue(struct ig_obj *o, const struct ig_range *gaps, size_t n, size_t *queued)
{
    struct ig_store *st = o->st;
    *queued = 0;
    pthread_mutex_lock(&st->mu);
    while (st->workers < AHEAD_WORKERS) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        bool made = pthread_create(&t, &a, worker_main, st) == 0;
        pthread_attr_destroy(&a);
        if (!made) break;
        st->workers++;
    }
    for (size_t i = 0; st->workers && i < n; i++) {
        struct job *j = calloc(1, sizeof *j);
        if (!j || !(j->gaps = malloc(sizeof *gaps))) {
            free(j);
            break;
        }
        j->gaps[0] = gaps[i];
        j->n = 1;
        j->o = o;
        o->refs++;
        if (st->jobs_tail)
            st->jobs_tail->next = j;
        else
            st->jobs = j;
        st->jobs_tail = j;
        ++*queued;
    }
    if (*queued) pthread_cond_broadcast(&st->work);
    pthread_mutex_unlock(&st->mu);
    return *queued == n;
}

static void prefetch(struct ig_obj *o, const struct ig_range *r, size_t n, bool wait);

/* Readahead: a read that starts where the last one ended, or a little past
 * it, grows a window (256 KiB doubling to ra_max) fetched in the background
 * ahead of it, topped up once half of it is consumed. A little past: a
 * reader walking a column's blocks skips the zeroed slack after each
 * compressed one (at least 32 bytes, page.h) and the zeros to the next disk
 * page where a chunk ends; had those reset the window, a group file read its
 * delta-coded ids a GET a block (125 GETs where 7 do). */
void store_read_ahead(struct ig_obj *o, uint64_t off, size_t n)
{
    uint64_t from = 0, to = 0;
    pthread_mutex_lock(&o->ra_mu);
    bool seq = o->ra_next != 0 && off >= o->ra_next && off - o->ra_next <= RA_GAP;
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
        prefetch(o, &r, 1, false);
    }
}

/* Claim what is neither cached nor pending of m[0..k) into a growing array:
 * every gap of every range (a range may hold any number of holes between
 * extents fetched before). Returns the count; *out is malloc'd (NULL and 0
 * when out of memory: nothing is left claimed). */
static size_t claim_all(struct ig_obj *o, const struct ig_range *m, size_t k, bool ahead,
                        struct ig_range **out)
{
    size_t ng = 0, cap = 0;
    struct ig_range *g = NULL;
    for (size_t i = 0; i < k;) {
        if (cap - ng < MAX_GAPS) {
            size_t nc = cap ? 2 * cap : 4 * MAX_GAPS;
            struct ig_range *t = realloc(g, nc * sizeof *t);
            if (!t) { /* give back what was claimed: waiters fetch it themselves */
                for (size_t j = 0; j < ng; j++)
                    ig_rc_fill(o->rc, g[j].off, g[j].len, NULL);
                free(g);
                *out = NULL;
                return 0;
            }
            g = t;
            cap = nc;
        }
        size_t got = ig_rc_claim(o->rc, m[i].off, m[i].len, ahead, g + ng, MAX_GAPS);
        ng += got;
        /* a full answer may have left holes unclaimed: ask again (what was
         * claimed is pending now, so the next answer starts past it) */
        if (got < MAX_GAPS) i++;
    }
    *out = g;
    return ng;
}

static void prefetch(struct ig_obj *o, const struct ig_range *r, size_t n, bool wait)
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
    /* neighbours closer than INGOT_S3_COALESCE_KB (256) become one request */
    k = ig_ranges_coalesce(m, k, st->coalesce);
    if (!wait && st->ahead_piece) { /* in the background: a claim a piece (AHEAD_WORKERS) */
        size_t cap = 0;
        for (size_t i = 0; i < k; i++)
            cap += (size_t)(m[i].len / st->ahead_piece) + 1;
        struct ig_range *cut = malloc(cap * sizeof *cut);
        size_t nc = cut ? ig_ranges_split(m, k, st->ahead_piece, cut, cap) : SIZE_MAX;
        if (nc != SIZE_MAX) {
            free(m);
            m = cut;
            k = nc;
        } else {
            free(cut); /* out of memory: the ranges whole */
        }
    }
    /* every gap claimed first, then fetched in one parallel run: a batch of
     * 1,000 rows keeps INGOT_S3_PARALLEL requests in flight until the last,
     * instead of waiting for each group of them in turn */
    struct ig_range *gaps;
    size_t ng = claim_all(o, m, k, !wait, &gaps); /* not waited for: ahead of its readers */
    free(m);
    if (!ng) {
        free(gaps);
        return;
    }
    size_t queued = 0;
    if (!wait && enqueue(o, gaps, ng, &queued)) {
        free(gaps);
        return;
    }
    /* waited for, or what the fetchers could not take */
    struct ig_range *left = gaps + queued;
    ng -= queued;
    uint8_t **data = calloc(ng, sizeof *data);
    int rc = data ? store_fetch_gaps(o, left, ng, data, NULL) : -ENOMEM;
    for (size_t g = 0; g < ng; g++)
        ig_rc_fill(o->rc, left[g].off, left[g].len, rc ? NULL : data[g]);
    free(data);
    free(gaps);
}

void ig_obj_prefetch(struct ig_obj *o, const struct ig_range *r, size_t n, bool wait)
{
    prefetch(o, r, n, wait);
}

size_t ig_obj_cached_pieces(struct ig_obj *o, uint64_t off, uint64_t n)
{
    return o && o->rc ? ig_rc_pieces(o->rc, off, n) : 0;
}
