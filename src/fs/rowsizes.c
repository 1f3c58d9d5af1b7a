/* rowsizes.c - rows/ sizes measured ahead of the lister (rowsizes.h). */
#include "rowsizes.h"
#include "rows.h"
#include "session.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

/* Rows measured between two publications: a waiting request gets its rows
 * soon after they are measured, not when the whole run is. */
#define MEASURE_STEP 256u

bool fs_rowsizes_init(struct fs_rowsizes *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->grown, NULL);
    r->measuring = -1;
    for (int i = 0; i < 2; i++)
        r->run[i].size = malloc(FS_ROWSIZES_RUN * sizeof *r->run[i].size);
    if (r->run[0].size && r->run[1].size) return true;
    for (int i = 0; i < 2; i++) {
        free(r->run[i].size);
        r->run[i].size = NULL;
    }
    return false;
}

void fs_rowsizes_destroy(struct fs_rowsizes *r)
{
    for (int i = 0; i < 2; i++) {
        free(r->run[i].size);
        r->run[i] = (struct fs_rowsizes_run){0};
    }
    pthread_cond_destroy(&r->grown);
    pthread_mutex_destroy(&r->mu);
}

/* Does run u (of generation gen) hold or will it hold row? */
static bool covers(const struct fs_rowsizes_run *u, uint64_t gen, uint64_t row)
{
    return u->size && u->gen == gen && row >= u->first && row - u->first < u->want;
}

size_t fs_rowsizes_take(struct fs_rowsizes *r, uint64_t gen, uint64_t row, uint64_t *out, size_t cap)
{
    size_t got = 0;
    pthread_mutex_lock(&r->mu);
    for (int i = 0; i < 2; i++) {
        struct fs_rowsizes_run *u = &r->run[i];
        if (!covers(u, gen, row)) continue;
        /* the run's measurer holds the table lock already: waiting for it
         * here, under ours, cannot keep it from finishing */
        while (r->measuring == i && covers(u, gen, row) && row - u->first >= u->n)
            pthread_cond_wait(&r->grown, &r->mu);
        if (covers(u, gen, row) && row - u->first < u->n) {
            size_t at = (size_t)(row - u->first);
            got = u->n - at < cap ? u->n - at : cap;
            memcpy(out, u->size + at, got * sizeof *out);
        }
        break;
    }
    pthread_mutex_unlock(&r->mu);
    return got;
}

/* Measure run i's rows (its first, want and gen set, n = 0), publishing them
 * as they come. Caller holds the table lock for reading. */
static void measure(struct fs_session *s, struct fs_rowsizes *r, int i)
{
    struct fs_rowsizes_run *u = &r->run[i];
    struct ig_buf scratch = {0};
    /* only this thread writes the run while it is measured, and readers
     * look only below the n published under mu */
    size_t n = 0, want = u->want;
    while (n < want) {
        size_t step = want - n < MEASURE_STEP ? want - n : MEASURE_STEP, done = 0;
        if (fs_rows_sizes(s, u->first + n, step, &scratch, u->size + n, &done) || !done) break;
        n += done;
        pthread_mutex_lock(&r->mu);
        u->n = n;
        pthread_cond_broadcast(&r->grown);
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    u->want = n; /* short if measuring failed: the rest is measured by each request */
    r->measuring = -1;
    pthread_cond_broadcast(&r->grown);
    pthread_mutex_unlock(&r->mu);
    ig_buf_free(&scratch);
}

void fs_rowsizes_ahead(struct fs_session *s, uint64_t next)
{
    struct fs_rowsizes *r = &s->rowsizes;
    if (!r->run[0].size) return; /* out of memory at mount: each request measures */
    pthread_rwlock_rdlock(&s->table_lock);
    uint64_t gen = s->generation, rows = s->table.num_rows;
    int slot = -1;
    pthread_mutex_lock(&r->mu);
    if (r->measuring < 0 && next < rows) {
        int at = covers(&r->run[0], gen, next) ? 0 : covers(&r->run[1], gen, next) ? 1 : -1;
        uint64_t start = next;
        if (at >= 0) {
            const struct fs_rowsizes_run *u = &r->run[at], *o = &r->run[!at];
            start = u->first + u->want;
            /* far enough ahead, or the run after it is measured already */
            if (start - next > FS_ROWSIZES_RUN / 2 || covers(o, gen, start)) start = rows;
        }
        if (start < rows) {
            slot = at >= 0 ? !at : 0;
            uint64_t left = rows - start;
            r->run[slot].gen = gen;
            r->run[slot].first = start;
            r->run[slot].n = 0;
            r->run[slot].want = left < FS_ROWSIZES_RUN ? (size_t)left : FS_ROWSIZES_RUN;
            r->measuring = slot;
        }
    }
    pthread_mutex_unlock(&r->mu);
    if (slot >= 0) measure(s, r, slot);
    pthread_rwlock_unlock(&s->table_lock);
}
