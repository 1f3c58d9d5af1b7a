/* ahead.c - readahead of a column view's pages on object storage (ahead.h). */
#include "ahead.h"
#include "file.h"
#include "format/part/footer.h"
#include "store/store.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define AHEAD_FIRST ((uint64_t)4 << 20) /* the first window, stored bytes */
#define SEQ_SLACK   ((uint64_t)4 << 20) /* reads this close to the last end are sequential */
#define MAX_RANGES  1024                /* one top-up's ranges (pages, contexts) */

struct fs_ahead {
    atomic_bool busy; /* a thread is updating the fields below */
    uint64_t next;    /* where the last read ended (file bytes) */
    uint32_t upto;    /* spans before this one are asked for */
    uint64_t window;  /* stored bytes to keep asked for ahead; 0: not sequential */
    uint64_t refill;  /* file offset past which the next top-up starts */
};

struct fs_ahead *fs_ahead_new(void)
{
    return calloc(1, sizeof(struct fs_ahead));
}

void fs_ahead_free(struct fs_ahead *a)
{
    free(a);
}

/* (a file has readahead only when its first span's part is an object: view.c) */
static uint64_t window_max(struct fs_session *s, const struct fs_file *f)
{
    return ig_store_readahead(ig_obj_store(s->table.parts[f->spans[0].part].obj));
}

/* Ask for ranges r[0..n) of part `part`'s object (top_up takes ranges only
 * from parts that are objects), in the background. */
static void ask(struct fs_session *s, uint32_t part, const struct ig_range *r, size_t n)
{
    if (n) ig_obj_prefetch(s->table.parts[part].obj, r, n, false);
}

/* Ask for spans from `upto` on until `want` stored bytes are asked for;
 * returns the span after the last asked for. */
static uint32_t top_up(struct fs_session *s, const struct fs_file *f, uint32_t upto, uint64_t want)
{
    struct ig_range r[MAX_RANGES];
    size_t n = 0;
    uint32_t part = f->spans[upto].part, group = UINT32_MAX;
    uint64_t got = 0;
    for (; upto < f->nspans && got < want && n + 2 <= MAX_RANGES; upto++) {
        const struct fs_span *sp = &f->spans[upto];
        if (sp->part >= s->table.nparts) break;
        const struct ig_part *p = &s->table.parts[sp->part];
        if (!p->obj) break; /* a local part: the kernel's readahead */
        if (sp->part != part) { /* one request batch per part object */
            ask(s, part, r, n);
            n = 0;
            part = sp->part;
            group = UINT32_MAX;
        }
        struct ig_pagerec rec;
        if (ig_part_page(p, sp->page, &rec, NULL) || ig_page_released(&rec)) continue;
        uint32_t g;
        if (ig_part_page_group(p, sp->page, &g, NULL) == 0 && g != group) {
            /* the chunk's context (format 12's symbol table), read once per
             * group before its first page decodes */
            struct ig_ctxrec cr;
            group = g;
            if (ig_part_chunk_ctx(p, g, rec.leaf, &cr, NULL) == 0 && cr.size)
                r[n++] = (struct ig_range){cr.offset, cr.size};
        }
        r[n++] = (struct ig_range){rec.offset, rec.stored};
        got += rec.stored;
    }
    ask(s, part, r, n);
    return upto;
}

void fs_ahead_read(struct fs_session *s, const struct fs_file *f, struct fs_ahead *a, uint32_t span,
                   uint64_t off, uint64_t n)
{
    if (!a || !f->nspans || span >= f->nspans) return;
    if (atomic_exchange(&a->busy, true)) return; /* another thread is at it */
    uint64_t end = off + n;
    bool seq = off == 0 || (off + SEQ_SLACK >= a->next && off <= a->next + SEQ_SLACK);
    uint64_t most = seq ? window_max(s, f) : 0;
    if (!most) {
        a->window = 0;
        a->upto = span + 1;
        a->refill = 0;
    } else {
        /* upto stays where it is when this read is past it: the kernel's
         * readahead sends reads out of order from several threads, and the
         * spans between are read by them (jumping to span + 1 left them each
         * to a GET of its own) */
        if (a->window == 0 && a->upto < span + 1) a->upto = span + 1;
        if (a->upto < f->nspans && end >= a->refill) {
            a->window = a->window ? (2 * a->window < most ? 2 * a->window : most)
                                  : (AHEAD_FIRST < most ? AHEAD_FIRST : most);
            uint32_t was = a->upto;
            a->upto = top_up(s, f, a->upto, a->window);
            /* the next top-up once half of what was just asked for is read */
            uint64_t from = f->spans[was].start;
            uint64_t to = a->upto < f->nspans ? f->spans[a->upto].start : f->size;
            a->refill = from + (to - from) / 2;
        }
    }
    if (end > a->next || !seq) a->next = end;
    atomic_store(&a->busy, false);
}
