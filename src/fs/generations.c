/* generations.c - the table generations the kernel still holds files of (generations.h). */
#include "generations.h"
#include "format/part/table.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>

/* The slot of tid's pin, or of where it would go (a stale one); NULL if full. */
static struct fs_pin *pin_slot(struct fs_generations *s, uint32_t tid, uint64_t now)
{
    struct fs_pin *free_slot = NULL;
    for (uint32_t i = 0, h = (tid * 2654435761u) % FS_PINS; i < 16; i++, h = (h + 1) % FS_PINS) {
        struct fs_pin *p = &s->pins[h];
        if (p->tid == tid && p->last_ns) return p;
        if (!free_slot && now - p->last_ns > FS_PIN_MS * 1000000ull) free_slot = p;
    }
    return free_slot;
}

/* Is pin p live: a burst still going on at `now`? */
static bool pin_live(const struct fs_pin *p, uint64_t now)
{
    return p->last_ns && now - p->last_ns < FS_BURST_MS * 1000000ull &&
           now - p->first_ns < FS_PIN_MS * 1000000ull;
}

/* Is version gen (current or kept) still there? */
static bool have_gen(struct fs_generations *s, uint64_t gen)
{
    if (s->current.gen == gen) return true;
    for (uint32_t i = 0; i < s->nold; i++)
        if (s->old[i]->gen == gen) return true;
    return false;
}

uint64_t fs_generation_for_lookup(struct fs_generations *s, uint32_t tid, uint64_t name, bool may_be_old)
{
    uint64_t now = ig_now_ns(), gen = s->current.gen;
    pthread_mutex_lock(&s->mu);
    struct fs_pin *p = pin_slot(s, tid, now);
    if (p && p->tid == tid && p->name == name && pin_live(p, now) && may_be_old &&
        have_gen(s, p->gen)) {
        gen = p->gen; /* the burst goes on */
        p->last_ns = now;
    } else if (p) {
        *p = (struct fs_pin){.tid = tid, .gen = gen, .name = name, .first_ns = now, .last_ns = now};
    }
    pthread_mutex_unlock(&s->mu);
    return gen;
}

void fs_generation_unpin(struct fs_generations *s, uint32_t tid)
{
    pthread_mutex_lock(&s->mu);
    struct fs_pin *p = pin_slot(s, tid, ig_now_ns());
    if (p && p->tid == tid) *p = (struct fs_pin){0};
    pthread_mutex_unlock(&s->mu);
}

/* Could a burst still want generation gen? (It must be kept a while longer.) */
static bool pinned(struct fs_generations *s, uint64_t gen)
{
    uint64_t now = ig_now_ns();
    for (uint32_t i = 0; i < FS_PINS; i++)
        if (s->pins[i].gen == gen && pin_live(&s->pins[i], now)) return true;
    return false;
}

const struct fs_generation *fs_generation_of(struct fs_generations *s, uint32_t vbits)
{
    if (fs_gen_bits(s->current.gen) == vbits) return &s->current;
    for (uint32_t i = 0; i < s->nold; i++)
        if (fs_gen_bits(s->old[i]->gen) == vbits) return s->old[i];
    return NULL;
}

bool fs_generation_deleted(const struct fs_generation *v, const struct ig_table *t, uint32_t part,
                        uint64_t row)
{
    if (!v->deleted) return ig_part_row_deleted(&t->parts[part], row);
    if (part >= v->nparts || row >= v->part_rows[part] || !v->deleted[part]) return false;
    return (v->deleted[part][row / 8] >> (row % 8)) & 1;
}

uint32_t fs_generation_deleted_count(const struct fs_generation *v, const struct ig_table *t,
                                  uint32_t part, uint64_t first, uint32_t count)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        n += fs_generation_deleted(v, t, part, first + i);
    return n;
}

bool fs_generation_deleted_bits(const struct fs_generation *v, const struct ig_table *t, uint32_t part,
                             uint64_t first, uint32_t count, uint8_t *dst)
{
    if (!v->deleted) return ig_part_deleted_bits(&t->parts[part], first, count, dst);
    memset(dst, 0, (count + 7) / 8);
    bool any = false;
    for (uint32_t i = 0; i < count; i++)
        if (fs_generation_deleted(v, t, part, first + i)) {
            dst[i / 8] |= (uint8_t)(1u << (i % 8));
            any = true;
        }
    return any;
}

void fs_generation_ref(struct fs_generations *s, uint32_t vbits, int64_t n)
{
    pthread_mutex_lock(&s->mu);
    struct fs_generation *v = NULL;
    if (fs_gen_bits(s->current.gen) == vbits) v = &s->current;
    for (uint32_t i = 0; !v && i < s->nold; i++)
        if (fs_gen_bits(s->old[i]->gen) == vbits) v = s->old[i];
    if (v && n < 0 && (uint64_t)-n > v->refs)
        v->refs = 0;
    else if (v)
        v->refs = (uint64_t)((int64_t)v->refs + n);
    pthread_mutex_unlock(&s->mu);
}

static void generation_free(struct fs_generation *v)
{
    for (uint32_t p = 0; v->deleted && p < v->nparts; p++)
        free(v->deleted[p]);
    free(v->deleted);
    free(v->part_rows);
    free(v);
}

/* A copy of the deletion bitmaps of every part of t. */
static struct fs_generation *snapshot(const struct ig_table *t, const struct fs_generation *cur)
{
    struct fs_generation *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    *v = *cur;
    v->nparts = t->nparts;
    v->ngroups = t->num_groups;
    v->deleted = calloc(t->nparts ? t->nparts : 1, sizeof *v->deleted);
    v->part_rows = calloc(t->nparts ? t->nparts : 1, sizeof *v->part_rows);
    if (!v->deleted || !v->part_rows) {
        generation_free(v);
        return NULL;
    }
    for (uint32_t p = 0; p < t->nparts; p++) {
        const struct ig_part *pp = &t->parts[p];
        const uint8_t *bits = ig_part_deletion(pp);
        size_t bytes = (size_t)ig_part_deletion_bytes(pp);
        v->part_rows[p] = pp->num_rows;
        if (!bits) continue; /* no row of it deleted: no bitmap (format 17), none kept */
        v->deleted[p] = malloc(bytes);
        if (!v->deleted[p]) {
            generation_free(v);
            return NULL;
        }
        memcpy(v->deleted[p], bits, bytes);
    }
    return v;
}

void fs_generation_advance(struct fs_generations *s, const struct ig_table *old, uint64_t gen)
{
    pthread_mutex_lock(&s->mu);
    bool moved = s->current.gen != gen;
    /* versions the kernel has forgotten (and no thread is pinned to) need no
     * snapshot any more */
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nold; i++) {
        if (s->old[i]->refs || pinned(s, s->old[i]->gen))
            s->old[k++] = s->old[i];
        else
            generation_free(s->old[i]);
    }
    s->nold = k;
    if (moved && (s->current.refs || pinned(s, s->current.gen))) {
        if (s->nold == FS_MAX_OLD_GENERATIONS) { /* the oldest goes: its files answer ESTALE */
            generation_free(s->old[0]);
            memmove(s->old, s->old + 1, (s->nold - 1) * sizeof *s->old);
            s->nold--;
        }
        struct fs_generation *v = snapshot(old, &s->current);
        if (v) s->old[s->nold++] = v; /* out of memory: that generation's files answer ESTALE */
    }
    /* a kept generation whose number the new one wraps onto is retired */
    k = 0;
    for (uint32_t i = 0; i < s->nold; i++) {
        if (fs_gen_bits(s->old[i]->gen) != fs_gen_bits(gen))
            s->old[k++] = s->old[i];
        else
            generation_free(s->old[i]);
    }
    s->nold = k;
    if (moved) s->current = (struct fs_generation){.gen = gen};
    pthread_mutex_unlock(&s->mu);
}

void fs_generations_init(struct fs_generations *s, uint64_t gen)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->current.gen = gen;
}

void fs_generations_free(struct fs_generations *s)
{
    for (uint32_t i = 0; i < s->nold; i++)
        generation_free(s->old[i]);
    s->nold = 0;
    pthread_mutex_destroy(&s->mu);
}
