/* cache.c - the daemon's bounded cache of decoded blocks and rendered pieces (cache.h). */
#include "cache.h"
#include "util/hash.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The index: open addressing with linear probing over slots that hold their
 * keys, at most half full, so a lookup reads one slot (a cache line) where a
 * chained table read a bucket and then each entry on its chain: a block read
 * of a 10,000-column row makes 20,000 lookups. */
static size_t home_of(const struct fs_cache *c, uint64_t k1, uint64_t k2)
{
    return (size_t)ig_mix64(k1 ^ ig_mix64(k2)) & (c->nslots - 1);
}

int fs_cache_init(struct fs_cache *c, size_t budget)
{
    memset(c, 0, sizeof *c);
    c->budget = budget;
    c->nslots = 2048;
    c->slots = calloc(c->nslots, sizeof *c->slots);
    if (!c->slots) return -ENOMEM;
    pthread_mutex_init(&c->mu, NULL);
    return 0;
}

struct fs_entry *fs_entry_new(uint64_t k1, uint64_t k2)
{
    struct fs_entry *e = calloc(1, sizeof *e);
    if (e) {
        e->k1 = k1;
        e->k2 = k2;
    }
    return e;
}

void fs_entry_free(struct fs_entry *e)
{
    if (!e) return;
    ig_buf_free(&e->data);
    if (e->vals) {
        ig_values_free(e->vals);
        free(e->vals);
    }
    free(e->deleted);
    free(e->segs);
    if (e->obj_free) e->obj_free(e->obj);
    free(e);
}

static void lru_unlink(struct fs_cache *c, struct fs_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push_front(struct fs_cache *c, struct fs_entry *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head) c->head->prev = e;
    c->head = e;
    if (!c->tail) c->tail = e;
}

/* The slot holding (k1, k2), or the empty slot where it would go. */
static size_t slot_of(const struct fs_cache *c, uint64_t k1, uint64_t k2)
{
    size_t mask = c->nslots - 1, i = home_of(c, k1, k2);
    while (c->slots[i].e && (c->slots[i].k1 != k1 || c->slots[i].k2 != k2))
        i = (i + 1) & mask;
    return i;
}

static void index_remove(struct fs_cache *c, struct fs_entry *e)
{
    size_t mask = c->nslots - 1, i = slot_of(c, e->k1, e->k2);
    if (c->slots[i].e == e) {
        /* shift back the entries after it that probed past it, so that no
         * probe meets a hole before its key */
        for (size_t j = (i + 1) & mask; c->slots[j].e; j = (j + 1) & mask) {
            size_t h = home_of(c, c->slots[j].k1, c->slots[j].k2);
            bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j); /* home in (i, j] */
            if (!stays) {
                c->slots[i] = c->slots[j];
                i = j;
            }
        }
        c->slots[i] = (struct fs_slot){0, 0, NULL};
    }
    lru_unlink(c, e);
    c->used -= e->bytes;
    c->count--;
    e->dead = 1;
    if (c->big == e) c->big = NULL;
}

static void grow(struct fs_cache *c)
{
    size_t n = c->nslots * 2;
    struct fs_slot *s = calloc(n, sizeof *s);
    if (!s) return; /* keep the fuller table: it still has room */
    struct fs_slot *old = c->slots;
    size_t oldn = c->nslots;
    c->slots = s;
    c->nslots = n;
    for (size_t i = 0; i < oldn; i++)
        if (old[i].e) c->slots[slot_of(c, old[i].k1, old[i].k2)] = old[i];
    free(old);
}

/* Inserts since an oversized entry's last use for which it is still "being
 * read": each read request of it uses it again, and may make an entry or two of
 * its own (a rebuilt layout). */
#define FS_CACHE_BIG_GRACE 8

/* Note a use of e (a hit or an insert). */
static void used(struct fs_cache *c, struct fs_entry *e)
{
    e->used_at = c->inserts;
    if (e->bytes > c->budget) c->big = e;
}

/* Evict from the cold end until within budget; skip entries in use. The most
 * recently used entry stays even over budget, and so does the most recently
 * used entry larger than the budget while it is being read (used within the
 * last FS_CACHE_BIG_GRACE inserts), outside the budget: a page that decodes to
 * more than the whole cache is then decoded once while it is read through,
 * not once per read request, though its reads rebuild small entries around it. */
static void evict(struct fs_cache *c)
{
    struct fs_entry *keep = c->big && c->inserts - c->big->used_at < FS_CACHE_BIG_GRACE ? c->big : NULL;
    size_t counted = c->used - (keep ? keep->bytes : 0);
    struct fs_entry *e = c->tail;
    while (counted > c->budget && e && e != c->head) {
        struct fs_entry *prev = e->prev;
        if (e->refs == 0 && e != keep) {
            counted -= e->bytes;
            index_remove(c, e);
            fs_entry_free(e);
            c->evictions++;
        }
        e = prev;
    }
}

/* The entry under (k1, k2), or NULL. Caller holds c->mu. */
static struct fs_entry *find_locked(struct fs_cache *c, uint64_t k1, uint64_t k2)
{
    return c->slots[slot_of(c, k1, k2)].e;
}

bool fs_cache_has(struct fs_cache *c, uint64_t k1, uint64_t k2)
{
    pthread_mutex_lock(&c->mu);
    bool had = find_locked(c, k1, k2) != NULL;
    pthread_mutex_unlock(&c->mu);
    return had;
}

struct fs_entry *fs_cache_get(struct fs_cache *c, uint64_t k1, uint64_t k2)
{
    pthread_mutex_lock(&c->mu);
    struct fs_entry *e = find_locked(c, k1, k2);
    if (e) {
        e->refs++;
        lru_unlink(c, e);
        lru_push_front(c, e);
        used(c, e);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->mu);
    return e;
}

struct fs_entry *fs_cache_put(struct fs_cache *c, struct fs_entry *e)
{
    e->bytes = sizeof *e + e->data.cap +
               (e->vals ? e->vals->lanes_cap * 8 + e->vals->offs_cap * 8 + e->vals->data.cap +
                              e->vals->valid_cap
                        : 0);
    pthread_mutex_lock(&c->mu);
    struct fs_entry *x = find_locked(c, e->k1, e->k2);
    if (x) {
        x->refs++;
        used(c, x);
        pthread_mutex_unlock(&c->mu);
        fs_entry_free(e);
        return x;
    }
    if (2 * (c->count + 1) > c->nslots) grow(c);
    if (c->count + 1 >= c->nslots) { /* could not grow, and full: not cached, */
        e->refs = 1;                    /* freed by its last release */
        e->dead = 1;
        pthread_mutex_unlock(&c->mu);
        return e;
    }
    c->slots[slot_of(c, e->k1, e->k2)] = (struct fs_slot){e->k1, e->k2, e};
    e->refs = 1;
    lru_push_front(c, e);
    c->inserts++;
    used(c, e);
    c->used += e->bytes;
    c->count++;
    evict(c);
    pthread_mutex_unlock(&c->mu);
    return e;
}

void fs_cache_hold(struct fs_cache *c, struct fs_entry *e)
{
    pthread_mutex_lock(&c->mu);
    e->refs++;
    pthread_mutex_unlock(&c->mu);
}

void fs_cache_release(struct fs_cache *c, struct fs_entry *e)
{
    if (!e) return;
    pthread_mutex_lock(&c->mu);
    bool free_it = --e->refs == 0 && e->dead;
    if (!free_it && e->refs == 0 && c->used > c->budget) evict(c);
    pthread_mutex_unlock(&c->mu);
    if (free_it) fs_entry_free(e);
}

void fs_cache_clear(struct fs_cache *c)
{
    pthread_mutex_lock(&c->mu);
    for (struct fs_entry *e = c->head, *next; e; e = next) {
        next = e->next;
        index_remove(c, e);
        if (e->refs == 0) fs_entry_free(e);
    }
    pthread_mutex_unlock(&c->mu);
}

void fs_cache_destroy(struct fs_cache *c)
{
    fs_cache_clear(c);
    free(c->slots);
    pthread_mutex_destroy(&c->mu);
    memset(c, 0, sizeof *c);
}
