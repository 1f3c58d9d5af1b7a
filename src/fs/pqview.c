#include "pqview.h"

#include <errno.h>
#include <stdlib.h>

int fs_pq_layout(struct fs_session *s, uint32_t group, struct ig_pqv **out)
{
    struct fs_scratch *sc = fs_scratch(s);
    struct ig_pqv *v = calloc(1, sizeof *v);
    if (!sc || !v) {
        free(v);
        return -ENOMEM;
    }
    struct ig_error err = {0};
    int rc = ig_pqv_layout(&s->table, group, &sc->r, v, &err);
    if (rc) {
        free(v);
        if (rc == -ENOMEM || rc == -ENOENT) return rc;
        return fs_page_failed(s, 0, 0, err.msg, rc);
    }
    *out = v;
    return 0;
}

void fs_pq_free(struct ig_pqv *v)
{
    if (v) ig_pqv_free(v);
    free(v);
}

int fs_pq_piece(struct fs_session *s, const struct ig_pqv *v, uint32_t i, struct fs_entry **out)
{
    const struct ig_pqv_page *pg = &v->pages[i];
    uint64_t k1 = (uint64_t)v->part << 32 | pg->page;
    uint64_t k2 = KEY_PIECE(FS_V_PARQUET) | (uint64_t)pg->sub << 16;
    struct fs_entry *e = fs_cache_get(&s->cache, k1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    struct fs_scratch *sc = fs_scratch(s);
    if (!sc) return -ENOMEM;
    e = fs_entry_new(k1, k2);
    if (!e) return -ENOMEM;
    struct ig_error err = {0};
    int rc = ig_pqv_render(&s->table, v, pg, &sc->r, &e->data, &err);
    if (rc) {
        fs_entry_free(e);
        return rc == -ENOMEM ? rc : fs_page_failed(s, v->part, pg->page, err.msg, rc);
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}
