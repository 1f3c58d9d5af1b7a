/* arrow_c.c - ingot_export_arrow (include/ingot.h): a row group handed over
 * through the Arrow C Data Interface.
 *
 * The Arrow view (arrow_view.h) lays the group out as it lays out
 * arrow/G.arrow; its body (every column's buffers, 8-byte aligned) is rendered
 * once into one allocation, and the exported arrays point into it. The body
 * is shared by reference count: the spec lets a consumer move a child array
 * out and release it apart from its parent, so every array holds a reference
 * and the last release frees it. Schemas own copies of their strings. */
#include "ingot.h"
#include "api_int.h"
#include "format/export/arrow_view.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- arrays ----------------------------------------------------------------- */

struct body_ref {
    uint8_t *data;
    atomic_uint refs;
};

static void body_put(struct body_ref *b)
{
    if (atomic_fetch_sub(&b->refs, 1) == 1) {
        free(b->data);
        free(b);
    }
}

struct array_priv {
    struct body_ref *body;
    const void *bufs[3];
    struct ArrowArray *kids; /* the children's structs (the consumer may move them out) */
    struct ArrowArray **kid_ptrs;
};

static void release_array(struct ArrowArray *a)
{
    struct array_priv *p = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++)
        if (p->kid_ptrs[i]->release) p->kid_ptrs[i]->release(p->kid_ptrs[i]);
    free(p->kids);
    free(p->kid_ptrs);
    body_put(p->body);
    free(p);
    a->release = NULL;
}

/* Zero-length buffers that are not validity bitmaps point here (consumers may
 * want a pointer, never read it). */
static const uint64_t empty_buffer[1];

/* a, of `length` values (`nulls` of them NULL) and room for nkids children,
 * holding a reference to the body; its buffers are the caller's to point. */
static int array_new(struct ArrowArray *a, struct body_ref *body, uint64_t length, uint64_t nulls, int nbufs,
                     int nkids)
{
    struct array_priv *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    if (nkids && (!(p->kids = calloc((size_t)nkids, sizeof *p->kids)) ||
                  !(p->kid_ptrs = calloc((size_t)nkids, sizeof *p->kid_ptrs)))) {
        free(p->kids);
        free(p);
        return -ENOMEM;
    }
    for (int k = 0; k < nkids; k++)
        p->kid_ptrs[k] = &p->kids[k];
    p->body = body;
    atomic_fetch_add(&body->refs, 1);
    *a = (struct ArrowArray){.length = (int64_t)length, .null_count = (int64_t)nulls, .n_buffers = nbufs,
                             .n_children = nkids, .buffers = p->bufs, .children = p->kid_ptrs,
                             .release = release_array, .private_data = p};
    return 0;
}

/* a as layout node `node`, with nbufs buffers (their indexes into the
 * layout's buffers, taken from *buf) and room for nkids children. */
static int array_init(struct ArrowArray *a, struct body_ref *body, const struct ig_arv *v, uint32_t node,
                      uint32_t *buf, int nbufs, int nkids)
{
    int rc = array_new(a, body, v->nodes[node][0], v->nodes[node][1], nbufs, nkids);
    if (rc) return rc;
    struct array_priv *p = a->private_data;
    for (int k = 0; k < nbufs; k++, (*buf)++) {
        uint64_t off = v->bufs[*buf][0], len = v->bufs[*buf][1];
        p->bufs[k] = len ? body->data + off : k == 0 ? NULL : (const void *)empty_buffer;
    }
    return 0;
}

/* ---- schemas ---------------------------------------------------------------- */

struct schema_priv {
    char *format, *name;
    struct ArrowSchema *kids;
    struct ArrowSchema **kid_ptrs;
};

static void release_schema(struct ArrowSchema *s)
{
    struct schema_priv *p = s->private_data;
    for (int64_t i = 0; i < s->n_children; i++)
        if (p->kid_ptrs[i]->release) p->kid_ptrs[i]->release(p->kid_ptrs[i]);
    free(p->kids);
    free(p->kid_ptrs);
    free(p->format);
    free(p->name);
    free(p);
    s->release = NULL;
}

static char *copy(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

static int schema_init(struct ArrowSchema *s, const char *format, const char *name, size_t name_len, bool nullable,
                       int nkids)
{
    struct schema_priv *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->format = copy(format, strlen(format));
    p->name = copy(name, name_len);
    if (nkids) {
        p->kids = calloc((size_t)nkids, sizeof *p->kids);
        p->kid_ptrs = calloc((size_t)nkids, sizeof *p->kid_ptrs);
    }
    if (!p->format || !p->name || (nkids && (!p->kids || !p->kid_ptrs))) {
        free(p->format), free(p->name), free(p->kids), free(p->kid_ptrs), free(p);
        return -ENOMEM;
    }
    for (int k = 0; k < nkids; k++)
        p->kid_ptrs[k] = &p->kids[k];
    *s = (struct ArrowSchema){.format = p->format, .name = p->name, .flags = nullable ? ARROW_FLAG_NULLABLE : 0,
                              .n_children = nkids, .children = p->kid_ptrs, .release = release_schema,
                              .private_data = p};
    return 0;
}

/* ---- one column --------------------------------------------------------------- */

/* Buffers of an array of format f: strings and binary 3 (validity, offsets,
 * bytes), a vector or struct 1 (validity), a list 2 (validity, offsets),
 * others 2 (validity, values). */
static int buffers_of(const char *f)
{
    return f[0] == 'u' || f[0] == 'z' ? 3 : !strncmp(f, "+w", 2) || !strcmp(f, "+s") ? 1 : 2;
}

/* Where field x's nodes and buffers end, from where they start. */
static void field_skip(const struct ig_arv_field *x, uint32_t *node, uint32_t *buf)
{
    *node += 1;
    *buf += (uint32_t)buffers_of(x->format);
    if (x->shape == IG_ARV_VECTOR || x->shape == IG_ARV_LIST) {
        *node += 1;
        *buf += (uint32_t)buffers_of(x->child_format);
    }
    for (uint32_t k = 0; k < x->nkids; k++) field_skip(&x->kids[k], node, buf);
}

/* Field x (named by column c) as array a and schema s, from the nodes and
 * buffers at *node, *buf (advanced past it). */
static int export_field(const struct ig_part *p, const struct ig_arv *v, const struct ig_arv_field *x,
                        struct body_ref *body, struct ArrowArray *a, struct ArrowSchema *s, uint32_t *node,
                        uint32_t *buf)
{
    struct ig_colrec c;
    if (ig_part_column(p, x->col, &c, NULL) || c.name_len < x->name_skip) return -EIO;
    bool listy = x->shape == IG_ARV_VECTOR || x->shape == IG_ARV_LIST;
    int nbufs = buffers_of(x->format), kid_bufs = listy ? buffers_of(x->child_format) : 0;
    int nkids = listy ? 1 : (int)x->nkids;
    if (*node + (listy ? 2u : 1u) > v->nnodes || *buf + (uint32_t)(nbufs + kid_bufs) > v->nbufs) return -EIO;
    const char *name = x->name ? x->name : c.name + x->name_skip;
    size_t name_len = x->name ? strlen(x->name) : c.name_len - x->name_skip;
    int rc = schema_init(s, x->format, name, name_len, x->nullable, nkids);
    if (!rc && listy) rc = schema_init(s->children[0], x->child_format, "item", 4, x->elem_nullable, 0);
    if (!rc) rc = array_init(a, body, v, (*node)++, buf, nbufs, nkids);
    if (!rc && listy) rc = array_init(a->children[0], body, v, (*node)++, buf, kid_bufs, 0);
    for (uint32_t k = 0; !rc && k < x->nkids; k++)
        rc = export_field(p, v, &x->kids[k], body, a->children[k], s->children[k], node, buf);
    return rc;
}

/* ---- the batch ---------------------------------------------------------------- */

/* Field index of top-level column col in the view; -ENOTSUP (or -EINVAL) with a
 * message naming it when it is not shown. */
static int pick(const struct ig_table *t, const struct ig_arv *v, uint32_t col, uint32_t *f, struct ig_error *err)
{
    for (uint32_t i = 0; i < v->nfields; i++)
        if (v->fields[i].col == col) {
            *f = i;
            return 0;
        }
    const struct ig_part *p = &t->parts[v->part];
    struct ig_colrec c;
    if (col >= p->num_columns || ig_part_column(p, col, &c, NULL))
        return ig_err(err, -EINVAL, "no column %u (the table has %u)", col, p->num_columns);
    if (c.parent != IG_NONE)
        return ig_err(err, -EINVAL, "column '%.*s' is inside a nested column: export the top-level one",
                      (int)c.name_len, c.name);
    return ig_err(err, -ENOTSUP, "column '%.*s' has no Arrow form here", (int)c.name_len, c.name);
}

int ingot_export_arrow(ingot_table *t, uint32_t group, const uint32_t *cols, size_t ncols,
                       struct ArrowArray *array, struct ArrowSchema *schema, char *errbuf, size_t errlen)
{
    struct ig_error e = {0};
    if (!array || !schema) return ingot_api_fail(errbuf, errlen, &e, ig_err(&e, -EINVAL, "no array or schema"));
    struct ig_arv v;
    int rc = ig_arv_layout(&t->t, group, &t->r, &v, &e);
    if (rc) return ingot_api_fail(errbuf, errlen, &e, rc);
    size_t n = cols ? ncols : v.nfields;
    uint32_t *fields = calloc(n ? n : 1, sizeof *fields);
    if (!fields) rc = ig_err(&e, -ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        if (cols)
            rc = pick(&t->t, &v, cols[i], &fields[i], &e);
        else
            fields[i] = (uint32_t)i;
    }
    /* the body, every piece in file order, as one allocation */
    struct ig_buf out = IG_BUF_INIT;
    if (!rc && ig_buf_reserve(&out, v.size - v.head.len - v.tail.len + 8))
        rc = ig_err(&e, -ENOMEM, "out of memory");
    for (uint32_t i = 0; !rc && i < v.npieces; i++) {
        if (v.pieces[i].start != v.body_at + out.len) {
            rc = ig_err(&e, -EIO, "Arrow view of row group %u: a piece out of place", group);
            break;
        }
        rc = ig_arv_render(&t->t, &v, &v.pieces[i], &t->r, &out, &e);
    }
    struct body_ref *body = rc ? NULL : calloc(1, sizeof *body);
    if (!rc && !body) rc = ig_err(&e, -ENOMEM, "out of memory");
    if (rc) {
        ig_buf_free(&out);
        free(fields);
        ig_arv_free(&v);
        return ingot_api_fail(errbuf, errlen, &e, rc);
    }
    body->data = out.data; /* the arrays' references free it */
    atomic_init(&body->refs, 1);
    struct ArrowArray a = {0};
    struct ArrowSchema s = {0};
    rc = schema_init(&s, "+s", "", 0, false, (int)n);
    if (!rc) rc = array_new(&a, body, v.rows, 0, 1, (int)n); /* the batch: no validity */
    const struct ig_part *part = &t->t.parts[v.part];
    for (size_t i = 0; !rc && i < n; i++) {
        uint32_t node = 0, buf = 0;
        for (uint32_t f = 0; f < fields[i]; f++) field_skip(&v.fields[f], &node, &buf);
        rc = export_field(part, &v, &v.fields[fields[i]], body, a.children[i], s.children[i], &node, &buf);
    }
    body_put(body); /* the arrays hold theirs */
    if (rc) { /* a half-built batch: what was made goes (children not made are zeroed) */
        if (a.release) a.release(&a);
        if (s.release) s.release(&s);
    }
    if (rc == -EIO && !e.msg[0])
        rc = ig_err(&e, rc, "Arrow view of row group %u: its buffers do not add up", group);
    else if (rc && !e.msg[0])
        rc = ig_err(&e, rc, "out of memory");
    free(fields);
    ig_arv_free(&v);
    if (rc) return ingot_api_fail(errbuf, errlen, &e, rc);
    *array = a;
    *schema = s;
    return 0;
}
