/* rowsizes.c - rows/ sizes measured ahead of the lister (rowsizes.h). */
#include "rowsizes.h"

#include <stdlib.h>
#include <string.h>

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

int fs_rowsizes_claim(struct fs_rowsizes *r, uint64_t gen, uint64_t rows, uint64_t next,
                      uint64_t *first, size_t *want)
{
    int slot = -1;
    if (!r->run[0].size) return -1; /* out of memory at mount: each request measures */
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
            struct fs_rowsizes_run *u = &r->run[slot];
            u->gen = gen;
            u->first = start;
            u->n = 0;
            u->want = left < FS_ROWSIZES_RUN ? (size_t)left : FS_ROWSIZES_RUN;
            r->measuring = slot;
            *first = start;
            *want = u->want;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return slot;
}

uint64_t *fs_rowsizes_room(struct fs_rowsizes *r, int slot)
{
    return r->run[slot].size;
}

void fs_rowsizes_measured(struct fs_rowsizes *r, int slot, size_t n, bool last)
{
    pthread_mutex_lock(&r->mu);
    r->run[slot].n = n;
    if (last) {
        r->run[slot].want = n; /* short if measuring failed: each request measures the rest */
        r->measuring = -1;
    }
    pthread_cond_broadcast(&r->grown);
    pthread_mutex_unlock(&r->mu);
}
