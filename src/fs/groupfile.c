/* groupfile.c - a row group as one Parquet or Arrow file: layouts and pieces (groupfile.h). */
#include "groupfile.h"

#include <errno.h>
#include <stdlib.h>

/* ---- shared: a layout built with the session's reader, a piece rendered once ---- */

typedef int (*layout_fn)(const struct ig_table *t, const void *ctx, uint32_t group, struct ig_reader *r,
                         void *out, struct ig_error *err);

static int layout(struct fs_session *s, uint32_t group, size_t size, layout_fn fn, const void *ctx, void **out)
{
    struct fs_scratch *sc = fs_scratch(s);
    void *v = calloc(1, size);
    if (!sc || !v) {
        free(v);
        return -ENOMEM;
    }
    struct ig_error err = {0};
    int rc = fn(&s->table, ctx, group, &sc->r, v, &err);
    if (rc) {
        free(v);
        if (rc == -ENOMEM || rc == -ENOENT || rc == -EFBIG) return rc;
        return fs_page_failed(s, 0, 0, err.msg, rc);
    }
    *out = v;
    return 0;
}

typedef int (*render_fn)(const struct ig_table *t, const void *view, const void *piece, struct ig_reader *r,
                         struct ig_buf *out, struct ig_error *err);

/* A piece of a row group's file to render: its cache key, the page it comes
 * from (a failure names it), and how. */
struct rendering {
    uint64_t k1, k2;
    uint32_t part, page;
    render_fn fn;
    const void *view, *piece;
};

/* Render the entry, not in the cache, and put it there. */
static int render_new(struct fs_session *s, const struct rendering *rd, struct fs_entry **out)
{
    struct fs_scratch *sc = fs_scratch(s);
    if (!sc) return -ENOMEM;
    struct fs_entry *e = fs_entry_new(rd->k1, rd->k2);
    if (!e) return -ENOMEM;
    struct ig_error err = {0};
    int rc = rd->fn(&s->table, rd->view, rd->piece, &sc->r, &e->data, &err);
    if (rc) {
        fs_entry_free(e);
        return rc == -ENOMEM ? rc : fs_page_failed(s, rd->part, rd->page, err.msg, rc);
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}

/* The cached entry, or render it (render_new). */
static int cached(struct fs_session *s, const struct rendering *rd, struct fs_entry **out)
{
    struct fs_entry *e = fs_cache_get(&s->cache, rd->k1, rd->k2);
    if (e) {
        *out = e;
        return 0;
    }
    return render_new(s, rd, out);
}

/* Put an object made for the cache under (k1, k2), accounted `bytes`; the
 * cache frees it with obj_free (and so does this on -ENOMEM). */
static int put_obj(struct fs_session *s, uint64_t k1, uint64_t k2, void *obj, void (*obj_free)(void *),
                   size_t bytes, struct fs_entry **out)
{
    struct fs_entry *e = fs_entry_new(k1, k2);
    if (!e) {
        obj_free(obj);
        return -ENOMEM;
    }
    e->obj = obj;
    e->obj_free = obj_free;
    e->bytes = bytes;
    *out = fs_cache_put(&s->cache, e);
    return 0;
}

/* ---- parquet/G.parquet ---------------------------------------------------- */

static void schema_free(void *obj) { ig_pqv_schema_free(obj); }

/* The table's Parquet schema, built once per generation and kept in the cache:
 * every group's layout and footer use it (walking 10,000 columns was a third
 * of a wide view's first byte). */
static int pq_schema(struct fs_session *s, struct fs_entry **out)
{
    uint64_t k2 = KEY_PQ_SCHEMA(s->gens.current.gen);
    struct fs_entry *e = fs_cache_get(&s->cache, KEY_SPECIAL_K1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    struct ig_error err = {0};
    struct ig_pqv_schema *sch;
    int rc = ig_pqv_schema_new(&s->table, &sch, &err);
    if (rc) return rc == -ENOMEM ? rc : fs_page_failed(s, 0, 0, err.msg, rc);
    return put_obj(s, KEY_SPECIAL_K1, k2, sch, schema_free, ig_pqv_schema_bytes(sch), out);
}

static int pq_layout(const struct ig_table *t, const void *schema, uint32_t group, struct ig_reader *r, void *out,
                     struct ig_error *err)
{
    return ig_pqv_layout(t, schema, group, r, out, err);
}

/* A page of a dictionary-coded chunk is rendered with its chunk's dictionary. */
struct pq_piece {
    const struct ig_pqv_page *pg;
    const struct ig_pqv_dict *dict;
};

static int pq_render(const struct ig_table *t, const void *view, const void *piece, struct ig_reader *r,
                     struct ig_buf *out, struct ig_error *err)
{
    const struct pq_piece *pc = piece;
    return ig_pqv_render(t, view, pc->pg, pc->dict, r, out, err);
}

static void dict_free(void *obj) { ig_pqv_dict_free(obj); }

/* The dictionary of the chunk whose dictionary page is v->pages[i], built
 * once (every ingot page of the chunk decoded) and kept in the cache for the
 * chunk's other pages; keyed by its part and first page like a piece. */
static int pq_dict(struct fs_session *s, const struct ig_pqv *v, uint32_t i, struct fs_entry **out)
{
    const struct ig_pqv_page *dp = &v->pages[i];
    uint64_t k1 = (uint64_t)v->part << 32 | dp->page;
    uint64_t k2 = KEY_PIECE(FS_V_PARQUET) | (uint64_t)dp->sub << 16 | KEY_PQ_DICT;
    struct fs_entry *e = fs_cache_get(&s->cache, k1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    struct fs_scratch *sc = fs_scratch(s);
    if (!sc) return -ENOMEM;
    struct ig_error err = {0};
    struct ig_pqv_dict *d;
    int rc = ig_pqv_dict_new(&s->table, v, i, &sc->r, &d, &err);
    if (rc) return rc == -ENOMEM ? rc : fs_page_failed(s, v->part, dp->page, err.msg, rc);
    return put_obj(s, k1, k2, d, dict_free, ig_pqv_dict_mem(d), out);
}

int fs_pq_layout(struct fs_session *s, uint32_t group, struct ig_pqv **out)
{
    struct fs_entry *sch;
    int rc = pq_schema(s, &sch);
    if (rc) return rc;
    rc = layout(s, group, sizeof **out, pq_layout, sch->obj, (void **)out);
    fs_cache_release(&s->cache, sch);
    return rc;
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
    uint64_t k2 = KEY_PIECE(FS_V_PARQUET) | (uint64_t)pg->sub << 16 | (pg->kind == IG_PQV_DICT ? KEY_PQ_DICT_PAGE : 0);
    struct pq_piece pc = {pg, NULL};
    struct fs_entry *d = fs_cache_get(&s->cache, k1, k2); /* a cached piece needs no dictionary */
    if (d) {
        *out = d;
        return 0;
    }
    if (pg->kind != IG_PQV_PLAIN) {
        int rc = pq_dict(s, v, pg->dict, &d);
        if (rc) return rc;
        pc.dict = d->obj;
    }
    int rc = render_new(s, &(struct rendering){k1, k2, v->part, pg->page, pq_render, v, &pc}, out);
    if (d) fs_cache_release(&s->cache, d);
    return rc;
}

static int pq_tail(const struct ig_table *t, const void *view, const void *schema, struct ig_reader *r,
                   struct ig_buf *out, struct ig_error *err)
{
    (void)r;
    return ig_pqv_tail(t, schema, view, out, err);
}

/* The footer, built at the first read that reaches it; keyed by the view's
 * inode and the generation it was laid out for, so a footer of an older
 * generation is never served with a newer layout. */
int fs_pq_tail(struct fs_session *s, const struct ig_pqv *v, uint64_t ino, uint64_t gen, struct fs_entry **out)
{
    struct fs_entry *e = fs_cache_get(&s->cache, ino, KEY_PQ_TAIL(gen));
    if (e) {
        *out = e;
        return 0;
    }
    struct fs_entry *sch;
    int rc = pq_schema(s, &sch);
    if (rc) return rc;
    rc = cached(s, &(struct rendering){ino, KEY_PQ_TAIL(gen), v->part, 0, pq_tail, v, sch->obj}, out);
    fs_cache_release(&s->cache, sch);
    return rc;
}

/* ---- arrow/G.arrow -------------------------------------------------------- */

static int arrow_layout(const struct ig_table *t, const void *ctx, uint32_t group, struct ig_reader *r, void *out,
                        struct ig_error *err)
{
    (void)ctx;
    return ig_arv_layout(t, group, r, out, err);
}

static int arrow_render(const struct ig_table *t, const void *view, const void *piece, struct ig_reader *r,
                        struct ig_buf *out, struct ig_error *err)
{
    return ig_arv_render(t, view, piece, r, out, err);
}

int fs_arrow_layout(struct fs_session *s, uint32_t group, struct ig_arv **out)
{
    return layout(s, group, sizeof **out, arrow_layout, NULL, (void **)out);
}

void fs_arrow_free(struct ig_arv *v)
{
    if (v) ig_arv_free(v);
    free(v);
}

/* Keys: (part, page) and the piece's kind, list level (lists of lists make
 * one piece per level of the same kind and page) and width (a tree column's
 * arrays make one piece per buffer of the same level and page), apart from the
 * Parquet view's pages of the same ingot page (bit 24). */
int fs_arrow_piece(struct fs_session *s, const struct ig_arv *v, uint32_t i, struct fs_entry **out)
{
    const struct ig_arv_piece *pc = &v->pieces[i];
    uint64_t k1 = (uint64_t)v->part << 32 | pc->page;
    uint64_t k2 = KEY_PIECE(FS_V_PARQUET) | 1u << 24 | (uint64_t)pc->kind << 16 | (uint64_t)pc->level << 32 |
                  (uint64_t)pc->width << 40;
    return cached(s, &(struct rendering){k1, k2, v->part, pc->page, arrow_render, v, pc}, out);
}
