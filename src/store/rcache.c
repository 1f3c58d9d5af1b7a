/* rcache.c - byte ranges of immutable objects in memory, LRU (rcache.h). */
#include "store/rcache.h"
#include "util/buf.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SEEN_MAX    4 /* separate read stretches an extent remembers (more: not spent) */
#define CHECKED_MAX 4 /* checked ranges an extent remembers, the latest */
#define TAKE_LOOK   4 /* spent extents at the LRU's cold end a buffer may come from */

struct span {
    uint64_t a, b; /* [a, b), object offsets */
};

struct extent {
    uint64_t off, len;
    uint8_t *data; /* NULL while pending */
    struct ig_rc_obj *obj;
    struct ig_rcache *c; /* the cache outlives the extent's pins (ig_rcache_free) */
    int pins;  /* holders of a pointer into data (ig_rc_pin), under c->mu */
    bool gone; /* dropped while pinned: freed by the last unpin */
    bool ahead; /* claimed by a fetch ahead of its readers (ig_rc_claim's `ahead`) */
    bool spent; /* ahead, and every byte of it since read: at the LRU's cold end */
    int nseen;
    struct span seen[SEEN_MAX]; /* the stretches read so far (ahead extents), sorted */
    unsigned nchecked;
    struct span checked[CHECKED_MAX]; /* ranges a reader checked (ig_rc_set_checked), a ring */
    struct extent *prev, *next; /* LRU (ready extents only): head most recent */
};

struct ig_rc_obj {
    struct ig_rcache *c;
    struct extent **ext; /* sorted by off, non-overlapping */
    size_t n, cap;
};

struct ig_rcache {
    pthread_mutex_t mu;
    pthread_cond_t filled;
    size_t cap, bytes;
    size_t pins; /* pins held, of every object: none when the cache is freed */
    struct extent *head, *tail;
};

struct ig_rcache *ig_rcache_new(size_t cap_bytes)
{
    struct ig_rcache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->filled, NULL);
    c->cap = cap_bytes;
    return c;
}

void ig_rcache_free(struct ig_rcache *c)
{
    if (!c) return;
    /* an unpin reaches the cache through its extent (e->c): none may follow */
    assert(c->pins == 0);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->filled);
    free(c);
}

size_t ig_rcache_bytes(const struct ig_rcache *c)
{
    struct ig_rcache *m = (struct ig_rcache *)c;
    pthread_mutex_lock(&m->mu);
    size_t b = m->bytes;
    pthread_mutex_unlock(&m->mu);
    return b;
}

struct ig_rc_obj *ig_rc_obj_new(struct ig_rcache *c)
{
    struct ig_rc_obj *o = calloc(1, sizeof *o);
    if (o) o->c = c;
    return o;
}

static void lru_unlink(struct ig_rcache *c, struct extent *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else if (c->head == e)
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else if (c->tail == e)
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_front(struct ig_rcache *c, struct extent *e)
{
    lru_unlink(c, e);
    e->next = c->head;
    if (c->head) c->head->prev = e;
    c->head = e;
    if (!c->tail) c->tail = e;
}

/* The cold end: the next to be evicted, or whose buffer a fetch takes. */
static void lru_back(struct ig_rcache *c, struct extent *e)
{
    lru_unlink(c, e);
    e->prev = c->tail;
    if (c->tail) c->tail->next = e;
    c->tail = e;
    if (!c->head) c->head = e;
}

/* A reader came to [off, off + n) of e: a recent one (to the LRU's front),
 * unless e was fetched ahead of its readers and has now been read through:
 * a column scan's bytes, read once (the kernel's page cache keeps the file's
 * pages), go first, and their buffers are the next fetches' (ig_rc_buffer),
 * so a scan neither flushes the cache nor faults in fresh memory for every
 * range. Stretches read are merged; an extent read in more than SEEN_MAX
 * separate stretches at once is never spent (kept as any other). */
static void touch(struct ig_rcache *c, struct extent *e, uint64_t off, uint64_t n)
{
    if (e->spent) return;
    if (!e->ahead) {
        lru_front(c, e);
        return;
    }
    uint64_t a = off > e->off ? off : e->off, b = off + n < e->off + e->len ? off + n : e->off + e->len;
    int i = 0, k = e->nseen;
    while (i < k && e->seen[i].b < a)
        i++;
    int j = i; /* seen[i..j) touch [a, b): merged into one */
    while (j < k && e->seen[j].a <= b) {
        if (e->seen[j].a < a) a = e->seen[j].a;
        if (e->seen[j].b > b) b = e->seen[j].b;
        j++;
    }
    if (j == i && k == SEEN_MAX) { /* no room: forget nothing, record nothing */
        lru_front(c, e);
        return;
    }
    memmove(e->seen + i + 1, e->seen + j, (size_t)(k - j) * sizeof *e->seen);
    e->seen[i] = (struct span){a, b};
    e->nseen = k - (j - i) + 1;
    if (e->nseen == 1 && e->seen[0].a == e->off && e->seen[0].b == e->off + e->len) {
        e->spent = true;
        lru_back(c, e);
    } else {
        lru_front(c, e);
    }
}

/* Index of the first extent that ends after off. */
static size_t first_after(const struct ig_rc_obj *o, uint64_t off)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->ext[mid]->off + o->ext[mid]->len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void remove_at(struct ig_rc_obj *o, size_t i)
{
    memmove(o->ext + i, o->ext + i + 1, (o->n - i - 1) * sizeof *o->ext);
    o->n--;
}

static void drop(struct ig_rcache *c, struct extent *e)
{
    struct ig_rc_obj *o = e->obj;
    size_t i = first_after(o, e->off);
    if (i < o->n && o->ext[i] == e) remove_at(o, i);
    if (e->data) {
        lru_unlink(c, e);
        c->bytes -= (size_t)e->len;
    }
    if (e->pins) { /* out of the index and the budget; its bytes live on until unpinned */
        e->gone = true;
        e->obj = NULL;
        return;
    }
    free(e->data);
    free(e);
}

void ig_rc_obj_free(struct ig_rc_obj *o)
{
    if (!o) return;
    struct ig_rcache *c = o->c;
    pthread_mutex_lock(&c->mu);
    while (o->n)
        drop(c, o->ext[o->n - 1]);
    pthread_mutex_unlock(&c->mu);
    free(o->ext);
    free(o);
}

/* A new pending extent at index i; false without memory. */
static bool insert_pending(struct ig_rc_obj *o, size_t i, uint64_t off, uint64_t len, bool ahead)
{
    struct extent **g = ig_array_room(o->ext, o->n, &o->cap, sizeof *g, 16);
    if (!g) return false;
    o->ext = g;
    struct extent *e = calloc(1, sizeof *e);
    if (!e) return false;
    e->off = off;
    e->len = len;
    e->obj = o;
    e->c = o->c;
    e->ahead = ahead;
    memmove(o->ext + i + 1, o->ext + i, (o->n - i) * sizeof *o->ext);
    o->ext[i] = e;
    o->n++;
    return true;
}

/* One pass over [off, off + n): copy ready bytes into dst (when dst), claim
 * gaps (when claim), report whether a pending extent of another claim lies
 * inside (*blocked). */
static void walk(struct ig_rc_obj *o, uint8_t *dst, uint64_t off, uint64_t n, bool claim,
                 bool ahead, struct ig_range *gaps, size_t cap, size_t *ngaps, bool *more,
                 bool *blocked)
{
    struct ig_rcache *c = o->c;
    uint64_t pos = off, end = off + n;
    size_t i = first_after(o, off);
    *ngaps = 0;
    *more = *blocked = false;
    while (pos < end) {
        struct extent *e = i < o->n ? o->ext[i] : NULL;
        if (e && e->off <= pos) { /* pos lies inside e */
            uint64_t take = (e->off + e->len < end ? e->off + e->len : end) - pos;
            if (e->data && dst) {
                memcpy(dst + (pos - off), e->data + (pos - e->off), (size_t)take);
                touch(c, e, pos, take);
            } else if (e->data) {
                if (!e->spent) lru_front(c, e);
            } else {
                *blocked = true;
            }
            pos += take;
            i++;
            continue;
        }
        /* a gap up to the next extent or the end */
        uint64_t gap_end = e && e->off < end ? e->off : end;
        if (claim) {
            if (*ngaps == cap || !insert_pending(o, i, pos, gap_end - pos, ahead)) {
                *more = true;
                return;
            }
            gaps[(*ngaps)++] = (struct ig_range){pos, gap_end - pos};
            i++; /* past the pending extent just inserted */
        } else {
            *more = true;
        }
        pos = gap_end;
    }
}

void ig_rc_read(struct ig_rc_obj *o, void *dst, size_t n, uint64_t off, struct ig_range *gaps,
                size_t cap, size_t *ngaps, bool *more)
{
    struct ig_rcache *c = o->c;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        bool blocked;
        /* a look first, claiming nothing: only when no other claim is in
         * the way are gaps claimed (a waiter must not hold claims) */
        walk(o, NULL, off, n, false, false, gaps, cap, ngaps, more, &blocked);
        if (blocked) {
            pthread_cond_wait(&c->filled, &c->mu);
            continue;
        }
        walk(o, dst, off, n, true, false, gaps, cap, ngaps, more, &blocked);
        break;
    }
    pthread_mutex_unlock(&c->mu);
}

size_t ig_rc_claim(struct ig_rc_obj *o, uint64_t off, uint64_t n, bool ahead, struct ig_range *gaps,
                   size_t cap)
{
    struct ig_rcache *c = o->c;
    size_t ng = 0;
    bool more, blocked;
    pthread_mutex_lock(&c->mu);
    walk(o, NULL, off, n, true, ahead, gaps, cap, &ng, &more, &blocked);
    pthread_mutex_unlock(&c->mu);
    return ng;
}

const uint8_t *ig_rc_pin(struct ig_rc_obj *o, uint64_t off, uint64_t n, void **pin)
{
    struct ig_rcache *c = o->c;
    const uint8_t *p = NULL;
    *pin = NULL;
    pthread_mutex_lock(&c->mu);
    size_t i = first_after(o, off);
    struct extent *e = i < o->n ? o->ext[i] : NULL;
    if (e && e->data && e->off <= off && e->off + e->len - off >= n) {
        e->pins++;
        c->pins++;
        touch(c, e, off, n);
        p = e->data + (off - e->off);
        *pin = e;
    }
    pthread_mutex_unlock(&c->mu);
    return p;
}

void ig_rc_unpin(void *pin)
{
    struct extent *e = pin;
    if (!e) return;
    struct ig_rcache *c = e->c;
    pthread_mutex_lock(&c->mu);
    c->pins--;
    bool free_it = --e->pins == 0 && e->gone;
    pthread_mutex_unlock(&c->mu);
    if (free_it) {
        free(e->data);
        free(e);
    }
}

bool ig_rc_has(struct ig_rc_obj *o, uint64_t off, uint64_t n)
{
    struct ig_rcache *c = o->c;
    pthread_mutex_lock(&c->mu);
    uint64_t pos = off, end = off + n;
    size_t i = first_after(o, off);
    bool ok = true;
    while (ok && pos < end) {
        struct extent *e = i < o->n ? o->ext[i] : NULL;
        if (!e || e->off > pos || !e->data)
            ok = false;
        else
            pos = e->off + e->len, i++;
    }
    pthread_mutex_unlock(&c->mu);
    return ok;
}

size_t ig_rc_pieces(struct ig_rc_obj *o, uint64_t off, uint64_t n)
{
    struct ig_rcache *c = o->c;
    pthread_mutex_lock(&c->mu);
    size_t k = 0;
    for (size_t i = first_after(o, off); i < o->n && o->ext[i]->off < off + n; i++)
        k++;
    pthread_mutex_unlock(&c->mu);
    return k;
}

void ig_rc_fill(struct ig_rc_obj *o, uint64_t off, uint64_t len, void *data)
{
    struct ig_rcache *c = o->c;
    pthread_mutex_lock(&c->mu);
    size_t i = first_after(o, off);
    struct extent *e = i < o->n ? o->ext[i] : NULL;
    if (e && e->off == off && e->len == len && !e->data) {
        if (!data || len > c->cap) {
            /* failed, or larger than the whole cache: nothing is kept */
            remove_at(o, i);
            free(e);
            free(data);
        } else {
            e->data = data;
            c->bytes += (size_t)len;
            lru_front(c, e);
            /* over budget: the least recent go (never the one just filled) */
            while (c->bytes > c->cap && c->tail && c->tail != e)
                drop(c, c->tail);
        }
    } else {
        free(data); /* not a claim of ours */
    }
    pthread_cond_broadcast(&c->filled);
    pthread_mutex_unlock(&c->mu);
}

void *ig_rc_buffer(struct ig_rcache *c, size_t len)
{
    uint8_t *data = NULL;
    pthread_mutex_lock(&c->mu);
    struct extent *e = c->tail;
    for (int k = 0; e && e->spent && k < TAKE_LOOK; k++, e = e->prev) {
        if (e->pins) continue;
        struct ig_rc_obj *o = e->obj;
        size_t i = first_after(o, e->off);
        if (i < o->n && o->ext[i] == e) remove_at(o, i);
        lru_unlink(c, e);
        c->bytes -= (size_t)e->len;
        data = e->data;
        free(e);
        break;
    }
    pthread_mutex_unlock(&c->mu);
    if (!data) return malloc(len ? len : 1);
    /* to the size asked for: the budget counts len; a large buffer's pages
     * are moved, not copied or faulted in again (mremap) */
    uint8_t *fit = realloc(data, len ? len : 1);
    if (!fit) free(data);
    return fit;
}

/* The ring entry equal to [off, off + n) of e, or -1. */
static int checked_at(const struct extent *e, uint64_t off, uint64_t n)
{
    for (unsigned i = 0; i < e->nchecked && i < CHECKED_MAX; i++)
        if (e->checked[i].a == off && e->checked[i].b == off + n) return i;
    return -1;
}

bool ig_rc_checked(void *pin, uint64_t off, uint64_t n)
{
    struct extent *e = pin;
    if (!e) return false;
    pthread_mutex_lock(&e->c->mu);
    bool yes = checked_at(e, off, n) >= 0;
    pthread_mutex_unlock(&e->c->mu);
    return yes;
}

void ig_rc_set_checked(void *pin, uint64_t off, uint64_t n)
{
    struct extent *e = pin;
    if (!e) return;
    pthread_mutex_lock(&e->c->mu);
    if (checked_at(e, off, n) < 0) e->checked[e->nchecked++ % CHECKED_MAX] = (struct span){off, off + n};
    pthread_mutex_unlock(&e->c->mu);
}
