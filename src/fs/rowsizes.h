/* rowsizes.h - the sizes a rows/ listing shows, measured ahead of the lister
 * (FUSE-free).
 *
 * `ls -l rows/` of a large table is one READDIRPLUS request after another,
 * each carrying a few hundred rows with their exact sizes: each row's JSON
 * length, measured from its columns' decoded blocks (rows.h fs_rows_sizes).
 * Between two requests the kernel makes an inode for each entry and the
 * lister stats them, in the lister's own time; measuring when the request
 * comes would make the two take turns (a million rows: about 0.7 s of the
 * daemon's CPU beside some 4 s of the lister's). So once a reply has gone, the
 * worker that sent it measures the rows after it (attr.h
 * fs_rows_listed_ahead), a run of FS_ROWSIZES_RUN rows, while the lister
 * works through its entries; the next request takes its sizes from that run
 * (fs_rowsizes_take), waiting only for rows still being measured. Two runs
 * are kept: the one being listed and the next.
 *
 * What it does not do: serve a size of another generation (a run is of the
 * generation that measured it, and every erase reloads the table and so
 * moves it), or measure two runs at once (a second listing at another place
 * finds no run and measures its own rows, as every request did before). The
 * runs are advice: a request they do not cover measures its rows itself. */
#ifndef IG_FS_ROWSIZES_H
#define IG_FS_ROWSIZES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rows in one run measured ahead: ~30 ms of the lister's work at the rate
 * the kernel makes and stats inodes here, a few ms of measuring. */
#define FS_ROWSIZES_RUN 4096u

struct fs_rowsizes_run {
    uint64_t gen;    /* the session's generation when measured */
    uint64_t first;  /* its first row */
    size_t n;        /* rows measured so far (sizes published under mu) */
    size_t want;     /* rows it will hold when measured */
    uint64_t *size;  /* FS_ROWSIZES_RUN sizes, 0 for an erased row */
};

struct fs_rowsizes {
    pthread_mutex_t mu;
    pthread_cond_t grown;        /* the run being measured grew or ended */
    struct fs_rowsizes_run run[2];
    int measuring;               /* the run being measured, or -1 */
};

/* false when out of memory: nothing is measured ahead (each request measures
 * its own rows); fs_rowsizes_destroy still follows. */
bool fs_rowsizes_init(struct fs_rowsizes *r);
void fs_rowsizes_destroy(struct fs_rowsizes *r);

/* Sizes of rows row, row + 1, ... from a run of generation gen, copied into
 * out (at most cap), waiting while the rows are being measured: how many were
 * copied (0: no run holds row). Caller holds the table lock for reading. */
size_t fs_rowsizes_take(struct fs_rowsizes *r, uint64_t gen, uint64_t row, uint64_t *out, size_t cap);

/* The measuring, by the one who measures (attr.h fs_rows_listed_ahead):
 *
 * A reply listed rows/ up to `next` (excluded), the table (of generation gen)
 * having `rows` rows: if fewer than half a run's rows are measured past it and
 * no run is being measured, claim the run after the last one (or from next,
 * if none holds it): its slot, *first and *want set; -1 if there is nothing to
 * measure. The claimer must hold the table lock for reading from before the
 * claim to its last fs_rowsizes_measured (waiters hold it too), and call that
 * with last = true once. */
int fs_rowsizes_claim(struct fs_rowsizes *r, uint64_t gen, uint64_t rows, uint64_t next,
                      uint64_t *first, size_t *want);
/* Where the claimed run's sizes go (FS_ROWSIZES_RUN of them): only the
 * claimer writes there, and readers look only below what it published. */
uint64_t *fs_rowsizes_room(struct fs_rowsizes *r, int slot);
/* Publish the run's first n sizes; last: the run ends there. */
void fs_rowsizes_measured(struct fs_rowsizes *r, int slot, size_t n, bool last);

#endif
