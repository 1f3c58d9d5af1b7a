/* known.c - the kernel's references, counted (known.h). */
#include "known.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

void fs_known_init(struct fs_known *k)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
}

void fs_known_free(struct fs_known *k)
{
    free(k->slots);
    for (size_t i = 0; i < k->nrow_chunks; i++)
        free(k->row_given[i]);
    free(k->row_given);
    pthread_mutex_destroy(&k->mu);
    memset(k, 0, sizeof *k);
}

static size_t slot_of(uint64_t ino, size_t cap)
{
    /* inode numbers are structured (kind, column, view in separate bit fields):
     * mix every bit into the low ones before masking, or they cluster */
    return (size_t)ig_mix64(ino) & (cap - 1);
}

static void grow(struct fs_known *k)
{
    size_t cap = k->cap ? k->cap * 2 : 1024;
    struct fs_known_slot *t = calloc(cap, sizeof *t);
    if (!t) return;
    for (size_t i = 0; i < k->cap; i++) {
        if (!k->slots[i].ino) continue;
        size_t j = slot_of(k->slots[i].ino, cap);
        while (t[j].ino)
            j = (j + 1) & (cap - 1);
        t[j] = k->slots[i];
    }
    free(k->slots);
    k->slots = t;
    k->cap = cap;
}

void fs_known_add(struct fs_known *k, uint64_t ino, uint64_t n)
{
    if (!n || !ino) return;
    pthread_mutex_lock(&k->mu);
    if ((k->count + 1) * 2 > k->cap) grow(k);
    if (k->cap) { /* out of memory: the inode is not told of when it goes stale */
        size_t j = slot_of(ino, k->cap);
        while (k->slots[j].ino && k->slots[j].ino != ino)
            j = (j + 1) & (k->cap - 1);
        if (!k->slots[j].ino) {
            k->slots[j].ino = ino;
            k->count++;
        }
        k->slots[j].n += n;
    }
    pthread_mutex_unlock(&k->mu);
}

uint64_t fs_known_forget(struct fs_known *k, uint64_t ino, uint64_t n)
{
    uint64_t had = 0;
    pthread_mutex_lock(&k->mu);
    if (k->cap) {
        size_t mask = k->cap - 1, j = slot_of(ino, k->cap);
        while (k->slots[j].ino && k->slots[j].ino != ino)
            j = (j + 1) & mask;
        if (k->slots[j].ino == ino) {
            had = n < k->slots[j].n ? n : k->slots[j].n;
            k->slots[j].n -= had;
        }
        if (k->slots[j].ino == ino && k->slots[j].n == 0) {
            /* remove, shifting back entries that probed past this slot */
            size_t hole = j;
            k->slots[hole] = (struct fs_known_slot){0};
            k->count--;
            for (size_t i = (hole + 1) & mask; k->slots[i].ino; i = (i + 1) & mask) {
                size_t home = slot_of(k->slots[i].ino, k->cap);
                if (((i - home) & mask) >= ((i - hole) & mask)) {
                    k->slots[hole] = k->slots[i];
                    k->slots[i] = (struct fs_known_slot){0};
                    hole = i;
                }
            }
        }
    }
    pthread_mutex_unlock(&k->mu);
    return had;
}

#define ROW_CHUNK ((uint64_t)1 << 20) /* 128 KiB of bits, made on first use */

void fs_known_row_given(struct fs_known *k, uint64_t row)
{
    uint64_t c = row / ROW_CHUNK, bit = row % ROW_CHUNK;
    pthread_mutex_lock(&k->mu);
    if (c >= k->nrow_chunks) {
        size_t n = (size_t)c + 1;
        uint64_t **t = realloc(k->row_given, n * sizeof *t);
        if (t) {
            memset(t + k->nrow_chunks, 0, (n - k->nrow_chunks) * sizeof *t);
            k->row_given = t;
            k->nrow_chunks = n;
        }
    }
    if (c < k->nrow_chunks && !k->row_given[c])
        k->row_given[c] = calloc(ROW_CHUNK / 64, sizeof(uint64_t));
    /* out of memory: the bit is lost and an erase of this row tells the kernel
     * nothing; its name and pages then last until their timeout */
    if (c < k->nrow_chunks && k->row_given[c]) k->row_given[c][bit / 64] |= 1ULL << (bit % 64);
    pthread_mutex_unlock(&k->mu);
}

/* Caller holds the lock. */
static bool row_given(const struct fs_known *k, uint64_t row)
{
    uint64_t c = row / ROW_CHUNK, bit = row % ROW_CHUNK;
    return c < k->nrow_chunks && k->row_given[c] && (k->row_given[c][bit / 64] >> (bit % 64)) & 1;
}

void fs_known_keep_given_rows(struct fs_known *k, struct ig_u64vec *r)
{
    size_t held = 0;
    pthread_mutex_lock(&k->mu);
    for (size_t i = 0; i < r->n; i++)
        if (row_given(k, r->v[i])) r->v[held++] = r->v[i];
    pthread_mutex_unlock(&k->mu);
    r->n = held;
}

void fs_known_given_rows(struct fs_known *k, struct ig_u64vec *r)
{
    pthread_mutex_lock(&k->mu);
    for (size_t c = 0; c < k->nrow_chunks; c++)
        for (uint64_t w = 0; k->row_given[c] && w < ROW_CHUNK / 64; w++)
            for (uint64_t bits = k->row_given[c][w]; bits; bits &= bits - 1)
                if (ig_u64vec_push(r, c * ROW_CHUNK + w * 64 + (uint64_t)__builtin_ctzll(bits))) {
                    pthread_mutex_unlock(&k->mu);
                    return;
                }
    pthread_mutex_unlock(&k->mu);
}

uint64_t *fs_known_inodes(struct fs_known *k, bool (*keep)(void *ctx, uint64_t ino), void *ctx,
                          size_t *n)
{
    pthread_mutex_lock(&k->mu);
    *n = 0;
    uint64_t *inos = malloc((k->count + 1) * sizeof *inos);
    for (size_t i = 0; inos && i < k->cap; i++)
        if (k->slots[i].ino && (!keep || keep(ctx, k->slots[i].ino)))
            inos[(*n)++] = k->slots[i].ino;
    pthread_mutex_unlock(&k->mu);
    return inos;
}
