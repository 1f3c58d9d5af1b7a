#include "arrowview.h"

#include <errno.h>
#include <stdlib.h>

int fs_arrow_layout(struct fs_session *s, uint32_t group, struct ig_arv **out)
{
    struct fs_scratch *sc = fs_scratch(s);
    struct ig_arv *v = calloc(1, sizeof *v);
    if (!sc || !v) {
        free(v);
        return -ENOMEM;
    }
    struct ig_error err = {0};
    int rc = ig_arv_layout(&s->table, group, &sc->r, v, &err);
    if (rc) {
        free(v);
        if (rc == -ENOMEM || rc == -ENOENT || rc == -EFBIG) return rc;
        return fs_page_failed(s, 0, 0, err.msg, rc);
    }
    *out = v;
    return 0;
}

void fs_arrow_free(struct ig_arv *v)
{
    if (v) ig_arv_free(v);
    free(v);
}

/* Cache keys: (part, page) and the piece's kind, apart from the Parquet
 * view's pieces of the same page (bit 24). */
int fs_arrow_piece(struct fs_session *s, const struct ig_arv *v, uint32_t i, struct fs_entry **out)
{
    const struct ig_arv_piece *pc = &v->pieces[i];
    uint64_t k1 = (uint64_t)v->part << 32 | pc->page;
    uint64_t k2 = KEY_PIECE(FS_V_PARQUET) | 1u << 24 | (uint64_t)pc->kind << 16;
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
    int rc = ig_arv_render(&s->table, v, pc, &sc->r, &e->data, &err);
    if (rc) {
        fs_entry_free(e);
        return rc == -ENOMEM ? rc : fs_page_failed(s, v->part, pc->page, err.msg, rc);
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}
