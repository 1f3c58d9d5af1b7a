/* fill.c - which small objects to put into the kernel's page cache ahead of
 * the read (fill.h); the store itself is FUSE glue in ops.c. */
#include "fill.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/hash.h"

/* 2 MiB: one slot per object of an epoch up to a few hundred thousand objects
 * before collisions start costing redundant fills */
#define FILLED_SLOTS (1u << 18)

static _Atomic uint64_t *slot(struct fs_fill *s, uint64_t ino)
{
    return &s->filled[ig_mix64(ino) & (FILLED_SLOTS - 1)];
}

int fs_fill_init(struct fs_fill *s, unsigned workers)
{
    s->workers = workers;
    atomic_init(&s->filling, 0);
    atomic_init(&s->epoch, 0);
    const char *pause = getenv("INGOT_TEST_FILL_PAUSE_MS");
    s->test_pause_ms = pause ? (unsigned)strtoul(pause, NULL, 10) : 0;
    s->filled = calloc(FILLED_SLOTS, sizeof *s->filled);
    if (!s->filled) return -ENOMEM; /* nothing is filled, nothing is locked */
    pthread_rwlock_init(&s->lock, NULL);
    return 0;
}

void fs_fill_destroy(struct fs_fill *s)
{
    if (!s->filled) return;
    free((void *)s->filled);
    s->filled = NULL;
    pthread_rwlock_destroy(&s->lock);
}

static bool fillable(const struct fs_node *n)
{
    return n->kind == FS_K_BLOB || n->kind == FS_K_ROW;
}

bool fs_fill_wanted(struct fs_fill *s, const struct fs_node *n, uint64_t ino)
{
    if (!s->filled || !fillable(n)) return false;
    return atomic_load_explicit(slot(s, ino), memory_order_relaxed) != ino;
}

bool fs_fill_begin(struct fs_fill *s)
{
    unsigned before = atomic_fetch_add(&s->filling, 1);
    if (before + 1 < s->workers) return true;
    atomic_fetch_sub(&s->filling, 1);
    return false;
}

void fs_fill_end(struct fs_fill *s)
{
    atomic_fetch_sub(&s->filling, 1);
}

void fs_fill_done(struct fs_fill *s, const struct fs_node *n, uint64_t ino)
{
    if (s->filled && fillable(n)) atomic_store_explicit(slot(s, ino), ino, memory_order_relaxed);
}

void fs_fill_dropped(struct fs_fill *s, uint64_t ino)
{
    if (!s->filled) return;
    uint64_t expect = ino;
    atomic_compare_exchange_strong(slot(s, ino), &expect, 0);
}

uint64_t fs_fill_epoch(struct fs_fill *s)
{
    return atomic_load(&s->epoch);
}

bool fs_fill_store_begin(struct fs_fill *s, uint64_t epoch)
{
    if (s->test_pause_ms) /* an erase may come and be answered meanwhile */
        usleep(s->test_pause_ms * 1000u);
    pthread_rwlock_rdlock(&s->lock);
    if (atomic_load(&s->epoch) == epoch) return true;
    pthread_rwlock_unlock(&s->lock);
    return false;
}

void fs_fill_store_end(struct fs_fill *s)
{
    pthread_rwlock_unlock(&s->lock);
}

void fs_fill_barrier(struct fs_fill *s)
{
    if (!s->filled) return;
    atomic_fetch_add(&s->epoch, 1);
    pthread_rwlock_wrlock(&s->lock); /* the stores that saw the old epoch end */
    pthread_rwlock_unlock(&s->lock);
}
