/* parquet_view.c - a row group as a Parquet file (see parquet_view.h). */
#include "parquet_view.h"
#include "thrift_out.h"

#include "blob/blob.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/endian.h"
#include "util/strset.h"
#include "util/varint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parquet's numbers (parquet.thrift) */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_FLOAT = 4, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6 };
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
enum {
    PQ_CT_NONE = -1,
    PQ_CT_UTF8 = 0,
    PQ_CT_LIST = 3,
    PQ_CT_UINT_8 = 11,
    PQ_CT_UINT_16 = 12,
    PQ_CT_UINT_32 = 13,
    PQ_CT_UINT_64 = 14,
    PQ_CT_INT_8 = 15,
    PQ_CT_INT_16 = 16,
};
enum { PQ_ENC_PLAIN = 0, PQ_ENC_RLE = 3, PQ_ENC_RLE_DICTIONARY = 8 };
enum { PQ_DATA_PAGE = 0, PQ_DICTIONARY_PAGE = 2 };

/* ---- the schema ---------------------------------------------------------- */

struct pq_elem {
    const char *name;
    uint32_t name_len;
    int32_t type; /* -1: a group */
    int32_t rep, nchild, conv;
};

struct pq_name {
    const char *p;
    uint32_t n;
};

/* A Parquet leaf: the ingot leaf it shows, its levels and its path. */
struct pq_leaf {
    uint32_t col;
    uint8_t sub, phys, max_rep, max_def;
    bool blob_list; /* a top-level list<blob> of the first layout: levels made up */
    bool nested;    /* under a list or struct: a page's values are its live_values */
    bool strings;   /* string or binary values: may show as a dictionary */
    uint32_t path0, npath;
    uint32_t leaf;  /* the ingot leaf index (its chunks) */
    uint32_t dim;   /* a vector<float32, D> shown as a list of D floats: D */
};

struct ig_pqv_schema {
    const struct ig_part *p;
    struct pq_elem *e;
    size_t ne, ecap;
    struct pq_leaf *l;
    size_t nl, lcap;
    struct pq_name *paths;
    size_t np, pcap;
    size_t elements_len; /* the footer's list of SchemaElements, in bytes */
    /* while it is built: */
    struct pq_name stack[256];
    uint32_t depth;
    struct ig_error *err;
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *p = realloc(*v, c * size);
    if (!p) return -ENOMEM;
    *v = p;
    *cap = c;
    return 0;
}

static int add_elem(struct ig_pqv_schema *s, const char *name, uint32_t len, int32_t type, int32_t rep,
                    int32_t conv, size_t *at)
{
    if (grow((void **)&s->e, &s->ecap, s->ne + 1, sizeof *s->e)) return -ENOMEM;
    if (at) *at = s->ne;
    s->e[s->ne++] = (struct pq_elem){name, len, type, rep, 0, conv};
    return 0;
}

static int push(struct ig_pqv_schema *s, const char *name, uint32_t len)
{
    if (s->depth == sizeof s->stack / sizeof s->stack[0])
        return ig_err(s->err, -EIO, "%s: columns nested too deep for a Parquet view", s->p->path);
    s->stack[s->depth++] = (struct pq_name){name, len};
    return 0;
}

static int add_leaf(struct ig_pqv_schema *s, const struct ig_colrec *c, uint32_t col, uint8_t sub, uint8_t phys,
                    uint8_t rep, uint8_t def, bool blob_list)
{
    if (grow((void **)&s->l, &s->lcap, s->nl + 1, sizeof *s->l) ||
        grow((void **)&s->paths, &s->pcap, s->np + s->depth, sizeof *s->paths))
        return -ENOMEM;
    s->l[s->nl++] = (struct pq_leaf){.col = col, .sub = sub, .phys = phys, .max_rep = rep, .max_def = def,
                                     .blob_list = blob_list, .nested = c->parent != IG_NONE || c->lists,
                                     .strings = (c->type == IG_T_STRING || c->type == IG_T_BINARY) &&
                                                !c->dimension && !c->quantize,
                                     .path0 = (uint32_t)s->np, .npath = s->depth, .leaf = c->leaf,
                                     .dim = c->dimension};
    memcpy(s->paths + s->np, s->stack, s->depth * sizeof *s->stack);
    s->np += s->depth;
    return 0;
}

/* A top-level list<blob> whose elements are never NULL: its rows' references
 * are stored as one value, and the view makes up its levels. */
static bool is_top_blob_list(const struct ig_colrec *c)
{
    return c->parent == IG_NONE && c->lists == 1 && c->type == IG_T_BLOB && !(c->null_mask & 2);
}

/* Physical and converted type of a primitive leaf. */
static void primitive(const struct ig_colrec *c, int32_t *phys, int32_t *conv)
{
    *conv = PQ_CT_NONE;
    switch (ig_read_type(c->type, c->quantize)) {
    case IG_T_BOOL: *phys = PQ_BOOLEAN; break;
    case IG_T_INT8: *phys = PQ_INT32, *conv = PQ_CT_INT_8; break;
    case IG_T_INT16: *phys = PQ_INT32, *conv = PQ_CT_INT_16; break;
    case IG_T_INT32: *phys = PQ_INT32; break;
    case IG_T_UINT8: *phys = PQ_INT32, *conv = PQ_CT_UINT_8; break;
    case IG_T_UINT16: *phys = PQ_INT32, *conv = PQ_CT_UINT_16; break;
    case IG_T_UINT32: *phys = PQ_INT32, *conv = PQ_CT_UINT_32; break;
    case IG_T_INT64: *phys = PQ_INT64; break;
    case IG_T_UINT64: *phys = PQ_INT64, *conv = PQ_CT_UINT_64; break;
    case IG_T_FLOAT32: *phys = PQ_FLOAT; break;
    case IG_T_FLOAT64: *phys = PQ_DOUBLE; break;
    case IG_T_STRING: *phys = PQ_BYTE_ARRAY, *conv = PQ_CT_UTF8; break;
    default: *phys = PQ_BYTE_ARRAY; break; /* binary */
    }
}

/* A vector<float32, D> as Parquet's LIST of D required floats: one repeated
 * level more than ingot's (which stores the D lanes as one value), so a
 * present vector's definition level is ingot's maximum + 1. `opt`: the vector
 * itself may be NULL (a nullable column, or a list's nullable elements). */
static int vector_field(struct ig_pqv_schema *s, const struct ig_colrec *c, uint32_t col, const char *name,
                        uint32_t len, bool opt, uint8_t rep, uint8_t def)
{
    int rc = add_elem(s, name, len, -1, opt ? PQ_OPTIONAL : PQ_REQUIRED, PQ_CT_LIST, NULL);
    if (rc) return rc;
    s->e[s->ne - 1].nchild = 1;
    def += opt;
    if ((rc = push(s, name, len)) || (rc = add_elem(s, "list", 4, -1, PQ_REPEATED, PQ_CT_NONE, NULL))) return rc;
    s->e[s->ne - 1].nchild = 1;
    rep++, def++;
    int32_t phys, conv;
    primitive(c, &phys, &conv);
    if ((rc = push(s, "list", 4)) || (rc = add_elem(s, "element", 7, phys, PQ_REQUIRED, conv, NULL)) ||
        (rc = push(s, "element", 7)) || (rc = add_leaf(s, c, col, 0, (uint8_t)phys, rep, def, false)))
        return rc;
    if (rep != c->max_rep + 1 || def != c->max_def + 1)
        return ig_err(s->err, -EIO, "%s: vector column '%.*s': levels %u/%u, Parquet's %u/%u", s->p->path,
                      (int)c->name_len, c->name, c->max_rep, c->max_def, rep, def);
    return 0;
}

/* Column `col` and its subtree (pre-order), under a parent whose full name is
 * `parent_len` bytes long and whose levels are (rep, def). *next is the column
 * after the subtree; *shown whether it added a field (a vector inside a list
 * adds none). */
static int walk(struct ig_pqv_schema *s, uint32_t col, uint32_t parent_len, uint8_t rep, uint8_t def,
                uint32_t *next, bool *shown)
{
    struct ig_colrec c;
    int rc = ig_part_column(s->p, col, &c, s->err);
    if (rc) return rc;
    const char *name = c.name + parent_len;
    uint32_t len = c.name_len - parent_len;
    *next = col + 1;
    *shown = false;
    if (c.dimension && !c.lists) {
        uint32_t depth0 = s->depth;
        rc = vector_field(s, &c, col, name, len, c.flags & IG_COLF_NULLABLE, rep, def);
        s->depth = depth0;
        *shown = !rc;
        return rc;
    }
    bool top_blob_list = is_top_blob_list(&c);
    uint32_t depth0 = s->depth;
    /* list levels: name (LIST) { repeated list { element } } per level */
    for (uint32_t j = 0; j < c.lists; j++) {
        bool opt = (c.null_mask >> j) & 1;
        if ((rc = add_elem(s, j ? "element" : name, j ? 7 : len, -1, opt ? PQ_OPTIONAL : PQ_REQUIRED,
                           PQ_CT_LIST, NULL)))
            return rc;
        s->e[s->ne - 1].nchild = 1;
        if ((rc = push(s, j ? "element" : name, j ? 7 : len))) return rc;
        def += opt;
        if ((rc = add_elem(s, "list", 4, -1, PQ_REPEATED, PQ_CT_NONE, NULL))) return rc;
        s->e[s->ne - 1].nchild = 1;
        if ((rc = push(s, "list", 4))) return rc;
        rep++, def++;
    }
    const char *ename = c.lists ? "element" : name;
    uint32_t elen = c.lists ? 7 : len;
    if (c.dimension) { /* a list of vectors (frames' embeddings): a list of lists of D floats */
        rc = vector_field(s, &c, col, ename, elen, (c.null_mask >> c.lists) & 1, rep, def);
        s->depth = depth0;
        *shown = !rc;
        return rc;
    }
    bool opt = (c.null_mask >> c.lists) & 1;
    if (!c.lists) opt = c.flags & IG_COLF_NULLABLE;
    int32_t r = opt ? PQ_OPTIONAL : PQ_REQUIRED;
    def += opt;
    if ((rc = push(s, ename, elen))) return rc;
    if (c.type == IG_T_STRUCT) {
        size_t at;
        if ((rc = add_elem(s, ename, elen, -1, r, PQ_CT_NONE, &at))) return rc;
        uint32_t k = col + 1;
        for (uint32_t i = 0; i < c.num_children; i++) {
            bool child_shown;
            if ((rc = walk(s, k, c.name_len + 1, rep, def, &k, &child_shown))) return rc;
            s->e[at].nchild += child_shown;
        }
        if (!s->e[at].nchild)
            return ig_err(s->err, -EIO, "%s: column '%.*s' has no field a Parquet view can show",
                          s->p->path, (int)c.name_len, c.name);
        *next = k;
    } else if (c.type == IG_T_BLOB) {
        if ((rc = add_elem(s, ename, elen, -1, r, PQ_CT_NONE, NULL))) return rc;
        s->e[s->ne - 1].nchild = 2;
        if ((rc = add_elem(s, "path", 4, PQ_BYTE_ARRAY, PQ_REQUIRED, PQ_CT_UTF8, NULL)) ||
            (rc = push(s, "path", 4)) || (rc = add_leaf(s, &c, col, 0, PQ_BYTE_ARRAY, rep, def, top_blob_list)))
            return rc;
        s->depth--;
        if ((rc = add_elem(s, "size", 4, PQ_INT64, PQ_REQUIRED, PQ_CT_NONE, NULL)) ||
            (rc = push(s, "size", 4)) || (rc = add_leaf(s, &c, col, 1, PQ_INT64, rep, def, top_blob_list)))
            return rc;
    } else {
        int32_t phys, conv;
        primitive(&c, &phys, &conv);
        if ((rc = add_elem(s, ename, elen, phys, r, conv, NULL)) ||
            (rc = add_leaf(s, &c, col, 0, (uint8_t)phys, rep, def, false)))
            return rc;
    }
    /* Parquet counts levels as ingot does; a leaf that disagrees cannot be shown */
    if (c.type != IG_T_STRUCT && !top_blob_list && (rep != c.max_rep || def != c.max_def))
        return ig_err(s->err, -EIO, "%s: column '%.*s': levels %u/%u, Parquet's %u/%u", s->p->path,
                      (int)c.name_len, c.name, c.max_rep, c.max_def, rep, def);
    s->depth = depth0;
    *shown = true;
    return 0;
}

static size_t schema_elements_len(const struct ig_pqv_schema *s);

void ig_pqv_schema_free(struct ig_pqv_schema *s)
{
    if (!s) return;
    free(s->e);
    free(s->l);
    free(s->paths);
    free(s);
}

size_t ig_pqv_schema_bytes(const struct ig_pqv_schema *s)
{
    return sizeof *s + s->ecap * sizeof *s->e + s->lcap * sizeof *s->l + s->pcap * sizeof *s->paths;
}

static int build_schema(const struct ig_part *p, struct ig_pqv_schema *s, struct ig_error *err)
{
    *s = (struct ig_pqv_schema){.p = p, .err = err};
    /* room for a flat table at once: regrowing the arrays of a 10,000-column
     * table cost a tenth of its layout */
    size_t n = p->num_columns;
    int rc = grow((void **)&s->e, &s->ecap, n + 1, sizeof *s->e) || grow((void **)&s->l, &s->lcap, n, sizeof *s->l) ||
                     grow((void **)&s->paths, &s->pcap, n, sizeof *s->paths)
                 ? -ENOMEM
                 : 0;
    if (!rc) rc = add_elem(s, "schema", 6, -1, PQ_REQUIRED, PQ_CT_NONE, NULL);
    for (uint32_t col = 0; !rc && col < p->num_columns;) {
        bool shown = false; /* walk fails before it says (a corrupt column record) */
        rc = walk(s, col, 0, 0, 0, &col, &shown);
        if (!rc) s->e[0].nchild += shown;
    }
    if (rc == -ENOMEM) ig_err(err, rc, "out of memory");
    s->elements_len = schema_elements_len(s);
    s->err = NULL;
    return rc;
}

int ig_pqv_schema_new(const struct ig_table *t, struct ig_pqv_schema **out, struct ig_error *err)
{
    struct ig_pqv_schema *s = malloc(sizeof *s);
    if (!s) return ig_err(err, -ENOMEM, "out of memory");
    int rc = build_schema(&t->parts[0], s, err);
    if (rc) {
        ig_pqv_schema_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

/* ---- page sizes ------------------------------------------------------------ */

static unsigned bit_width(unsigned max)
{
    unsigned w = 0;
    while (max >> w) w++;
    return w;
}

/* A level section of n entries: u32 length, then one run. Its length must be
 * known from the footer alone, so the run's kind depends on what the footer
 * proves, not on the levels: when every entry is the maximum (a flat page the
 * footer says holds no NULL) one RLE run (varint n << 1, the value in
 * ceil(width / 8) bytes), which readers take as "all valid" (DuckDB sums such
 * an int32 view in half the time of a bit-packed one); else one bit-packed run
 * of ceil(n / 8) groups of 8. */
static uint64_t levels_len(uint64_t n, unsigned width, bool all_max)
{
    if (!width) return 0;
    if (all_max) return 4 + tw_varint_len(n << 1) + (width + 7) / 8;
    uint64_t groups = (n + 7) / 8;
    return 4 + tw_varint_len(groups << 1 | 1) + groups * width;
}

/* A data page's header (values PLAIN or RLE_DICTIONARY codes), or a
 * dictionary page's (entries: its values, PLAIN). */
static void page_header(struct ig_buf *b, uint8_t kind, uint32_t body, uint32_t entries)
{
    struct tw w;
    tw_init(&w, b);
    tw_i32(&w, 1, kind == IG_PQV_DICT ? PQ_DICTIONARY_PAGE : PQ_DATA_PAGE);
    tw_i32(&w, 2, (int32_t)body);
    tw_i32(&w, 3, (int32_t)body);
    if (kind == IG_PQV_DICT) {
        tw_struct(&w, 7);
        tw_i32(&w, 1, (int32_t)entries);
        tw_i32(&w, 2, PQ_ENC_PLAIN);
    } else {
        tw_struct(&w, 5);
        tw_i32(&w, 1, (int32_t)entries);
        tw_i32(&w, 2, kind == IG_PQV_CODES ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN);
        tw_i32(&w, 3, PQ_ENC_RLE);
        tw_i32(&w, 4, PQ_ENC_RLE);
    }
    tw_end(&w);
    tw_finish(&w);
}

/* page_header's length without writing it (a wide table's layout has tens of
 * thousands of pages): one byte per field header and stop, i32s as zigzag
 * varints; the page type and the encodings take one byte each. ig_pqv_render
 * checks the header it writes against this. */
static uint32_t page_header_len(uint8_t kind, uint32_t body, uint32_t entries)
{
    size_t body_len = 1 + tw_varint_len((uint64_t)body << 1);
    size_t fields = (1 + tw_varint_len((uint64_t)entries << 1)) + (kind == IG_PQV_DICT ? 1 : 3) * 2;
    return (uint32_t)(2 + 2 * body_len + 1 + fields + 1 + 1);
}

/* Room for the values of a page: count values of the leaf's type, bytes of
 * strings no more than the page's text. */
static uint64_t values_room(const struct pq_leaf *l, uint64_t count, uint64_t text)
{
    switch (l->phys) {
    case PQ_BOOLEAN: return (count + 7) / 8;
    case PQ_INT32:
    case PQ_FLOAT: return count * 4;
    case PQ_INT64:
    case PQ_DOUBLE: return count * 8;
    default: return count * 4 + text;
    }
}

/* Dictionary codes of `slots` values: the bit width, then one bit-packed run
 * of ceil(slots / 8) groups of 8 (codes past the live values are zero). */
static uint64_t codes_len(uint64_t slots, unsigned width)
{
    uint64_t groups = (slots + 7) / 8;
    return 1 + tw_varint_len(groups << 1 | 1) + groups * width;
}

/* ---- live rows as levels and values ------------------------------------- */

/* The page's live entries: levels, and for each defined one the value (and,
 * in a top-level list<blob>, the object within it) it shows. */
struct entries {
    uint8_t *rep, *def;
    uint32_t *val, *obj;
    uint64_t *row; /* the row id of each value (blob paths) */
    size_t n, nval, cap, vcap;
};

static int entry(struct entries *e, uint8_t rep, uint8_t def)
{
    if (e->n == e->cap) {
        size_t c = e->cap ? e->cap * 2 : 1024;
        uint8_t *r = realloc(e->rep, c), *d = r ? realloc(e->def, c) : NULL;
        if (r) e->rep = r;
        if (d) e->def = d;
        if (!r || !d) return -ENOMEM;
        e->cap = c;
    }
    e->rep[e->n] = rep;
    e->def[e->n++] = def;
    return 0;
}

static int value(struct entries *e, uint32_t val, uint32_t obj, uint64_t row)
{
    if (e->nval == e->vcap) {
        size_t c = e->vcap ? e->vcap * 2 : 1024;
        uint32_t *v = realloc(e->val, c * sizeof *v), *o = v ? realloc(e->obj, c * sizeof *o) : NULL;
        uint64_t *r = o ? realloc(e->row, c * sizeof *r) : NULL;
        if (v) e->val = v;
        if (o) e->obj = o;
        if (r) e->row = r;
        if (!v || !o || !r) return -ENOMEM;
        e->vcap = c;
    }
    e->val[e->nval] = val;
    e->obj[e->nval] = obj;
    e->row[e->nval++] = row;
    return 0;
}

static void entries_free(struct entries *e)
{
    free(e->rep), free(e->def), free(e->val), free(e->obj), free(e->row);
}

static bool bit_set(const uint8_t *bits, size_t i) { return bits && (bits[i / 8] >> (i % 8)) & 1; }

static int live_entries(const struct pq_leaf *l, const struct ig_values *v, const uint8_t *del,
                        struct entries *e)
{
    int rc = 0;
    if (l->dim && v->levels) { /* a present vector is D Parquet entries, the rest one each */
        for (size_t r = 0; r < v->rows && !rc; r++) {
            if (bit_set(del, r)) continue;
            uint32_t vi = v->row_val[r];
            for (uint32_t k = v->row_ent[r]; k < v->row_ent[r + 1] && !rc; k++) {
                uint8_t rp = v->reps ? v->reps[k] : 0, d = v->defs[k];
                if (d + 1 != l->max_def) { /* NULL or empty here or above */
                    rc = entry(e, rp, d);
                    continue;
                }
                for (uint32_t j = 0; j < l->dim && !rc; j++) {
                    rc = entry(e, j ? l->max_rep : rp, l->max_def);
                    if (!rc) rc = value(e, vi++, 0, v->row_base + r);
                }
            }
        }
    } else if (v->levels) {
        for (size_t r = 0; r < v->rows && !rc; r++) {
            if (bit_set(del, r)) continue;
            uint32_t vi = v->row_val[r];
            for (uint32_t k = v->row_ent[r]; k < v->row_ent[r + 1] && !rc; k++) {
                rc = entry(e, v->reps[k], v->defs[k]);
                if (!rc && v->defs[k] == l->max_def) rc = value(e, vi++, 0, v->row_base + r);
            }
        }
    } else if (l->blob_list) {
        bool nullable = l->max_def == 2;
        for (size_t i = 0; i < v->n && !rc; i++) {
            if (bit_set(del, i)) continue;
            size_t len;
            ig_values_bytes(v, i, &len);
            size_t k = ig_values_is_null(v, i) ? 0 : len / IG_BLOB_REF_BYTES;
            if (ig_values_is_null(v, i)) rc = entry(e, 0, 0);
            else if (!k) rc = entry(e, 0, nullable);
            for (size_t j = 0; j < k && !rc; j++) {
                rc = entry(e, j ? 1 : 0, l->max_def);
                if (!rc) rc = value(e, (uint32_t)i, (uint32_t)j, v->row_base + i);
            }
        }
    } else {
        for (size_t i = 0; i < v->n && !rc; i++) {
            if (bit_set(del, i)) continue;
            bool null = ig_values_is_null(v, i);
            rc = entry(e, 0, null ? 0 : l->max_def);
            if (!rc && !null) rc = value(e, (uint32_t)i, 0, v->row_base + i);
        }
    }
    return rc;
}

/* ---- the layout ----------------------------------------------------------- */

static int load(const struct ig_table *t, struct ig_pqv *pv, const struct pq_leaf *l, uint32_t page,
                struct ig_reader *r, struct ig_values *v, const uint8_t **del, struct ig_error *err)
{
    struct ig_column_ref ref;
    struct ig_pagerec rec;
    int rc = ig_table_column_at(t, l->col, &ref, err);
    if (!rc)
        rc = ig_reader_load(r, &t->parts[pv->part], &ref, page, pv->group_first_row, &rec, v, del, err);
    if (!rc) v->blob_dir = NULL; /* ref's copy dies here: callers set their own */
    return rc;
}

static int count_live_entries(const struct ig_table *t, struct ig_pqv *pv, const struct pq_leaf *l,
                              uint32_t page, struct ig_reader *r, uint32_t *n, struct ig_error *err)
{
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    const uint8_t *del;
    struct entries e = {0};
    int rc = load(t, pv, l, page, r, &v, &del, err);
    if (!rc && live_entries(l, &v, del, &e)) rc = ig_err(err, -ENOMEM, "out of memory");
    *n = (uint32_t)e.n;
    entries_free(&e);
    ig_values_free(&v);
    return rc;
}

static int add_page(struct ig_pqv *pv, uint32_t *cap, const struct ig_pqv_page *pg);

/* pg placed at *at with its levels and `values` bytes of values after its header. */
static inline __attribute__((always_inline)) int place_page(struct ig_pqv *pv, uint32_t *cap, uint64_t *at, struct ig_pqv_page *pg, uint64_t values,
                      const struct ig_part *p, struct ig_error *err)
{
    uint64_t body = levels_len(pg->entries, bit_width(pg->max_rep), false) +
                    levels_len(pg->entries, bit_width(pg->max_def), pg->no_nulls) + values;
    if (body > INT32_MAX) return ig_err(err, -EFBIG, "%s: page %u too large for a Parquet page", p->path, pg->page);
    if (!pg->page_end) pg->page_end = pg->page + 1;
    pg->header_len = page_header_len(pg->kind, (uint32_t)body, pg->entries);
    pg->start = *at;
    pg->len = pg->header_len + body;
    *at += pg->len;
    return add_page(pv, cap, pg) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

static int add_page(struct ig_pqv *pv, uint32_t *cap, const struct ig_pqv_page *pg)
{
    if (pv->npages == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        void *p = realloc(pv->pages, c * sizeof *pv->pages);
        if (!p) return -ENOMEM;
        pv->pages = p;
        *cap = c;
    }
    pv->pages[pv->npages++] = *pg;
    return 0;
}

/* ---- the footer ------------------------------------------------------------
 *
 * The layout only needs the footer's length (the file's size at stat), and
 * building the footer of a 10,000-column table is half of laying it out: its
 * length is computed here field by field, and the bytes are written when a
 * read reaches them (ig_pqv_tail), which checks the two agree. */

/* A field of Thrift's compact protocol whose id is within 15 of the previous
 * one (all of the footer's are): one header byte, then the zigzag varint. */
static size_t tl_int(int64_t v) { return 1 + tw_varint_len(((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static size_t tl_bin(size_t n) { return tw_varint_len(n) + n; }               /* a list element */
static size_t tl_list(uint32_t n) { return 1 + (n < 15 ? 1 : 1 + tw_varint_len(n)); } /* header + size */

static size_t schema_elements_len(const struct ig_pqv_schema *s)
{
    size_t n = tl_list((uint32_t)s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        const struct pq_elem *e = &s->e[i];
        n += (e->type >= 0 ? tl_int(e->type) : 0) + (i ? tl_int(e->rep) : 0) + 1 + tl_bin(e->name_len) +
             (e->type < 0 ? tl_int(e->nchild) : 0) + (e->conv >= 0 ? tl_int(e->conv) : 0) + 1;
    }
    return n;
}

/* What the footer says of a leaf's column chunk. */
struct chunk_sum {
    uint64_t first;      /* its first page (the dictionary, if it has one) */
    uint64_t data_first; /* its first data page */
    uint64_t values, bytes;
    bool no_nulls, dict;
    uint8_t bound_len;     /* bytes of min_value and of max_value (0: no bounds) */
    uint8_t min[8], max[8]; /* PLAIN-encoded in the leaf's physical type */
};

/* The bytes of a bound of leaf l in the view: the leaf's PLAIN width (4 for
 * INT32 and FLOAT, 8 for INT64 and DOUBLE) when its chunk in group lg of p is
 * bounded (format 9, model/minmax.h), else 0. Read while the layout walks the
 * chunk records (the record's line is then at hand: a 10,000-column layout
 * reading them again for the footer's length cost it 12 %); the values are
 * read only when the footer is written. Unknown flag bits and reserved bytes
 * are verify's to find: here they only mean no bounds. */
static uint8_t bound_len(const struct ig_part *p, uint32_t lg, const struct pq_leaf *l)
{
    if (p->version < IG_FORMAT_CHUNK_STATS || l->nested || l->dim || l->blob_list) return 0;
    const uint8_t *r = ig_part_section(p, IG_SEC_CHUNKS) + ((uint64_t)lg * p->num_leaves + l->leaf) * IG_CHK_SIZE;
    if (r[IG_CHK_STATS_FLAGS] != IG_CHKS_BOUNDED) return 0;
    return l->phys == PQ_INT32 || l->phys == PQ_FLOAT ? 4 : l->phys == PQ_INT64 || l->phys == PQ_DOUBLE ? 8 : 0;
}

/* The chunk's bounds as Parquet's statistics min_value/max_value: the low
 * bytes of the lanes (which holds for int8/16 sign-extended and uint8/16/32
 * zero-extended: their converted types give the order). */
static void chunk_bounds(const struct ig_part *p, uint32_t lg, const struct pq_leaf *l, struct chunk_sum *c)
{
    if (!c->bound_len) return;
    const uint8_t *r = ig_part_section(p, IG_SEC_CHUNKS) + ((uint64_t)lg * p->num_leaves + l->leaf) * IG_CHK_SIZE;
    memcpy(c->min, r + IG_CHK_MIN, 8);
    memcpy(c->max, r + IG_CHK_MAX, 8);
}

/* A ColumnChunk as file_metadata writes it. */
static size_t column_chunk_len(const struct ig_pqv_schema *s, const struct pq_leaf *l, const struct chunk_sum *c)
{
    size_t n = tl_int((int64_t)c->first) + 1;                   /* file_offset, meta_data { */
    n += tl_int(l->phys) + tl_list(2) + 2 + c->dict;            /* type, encodings */
    n += tl_list(l->npath);                                     /* path_in_schema */
    for (uint32_t j = 0; j < l->npath; j++) n += tl_bin(s->paths[l->path0 + j].n);
    n += tl_int(0) + tl_int((int64_t)c->values) + 2 * tl_int((int64_t)c->bytes) + tl_int((int64_t)c->data_first);
    if (c->dict) n += tl_int((int64_t)c->first);               /* dictionary_page_offset */
    if (c->no_nulls || c->bound_len)                            /* statistics { null_count, max, min } */
        n += 1 + (c->no_nulls ? tl_int(0) : 0) + (c->bound_len ? 2 * (1 + tl_bin(c->bound_len)) : 0) + 1;
    return n + 1 + 1;                                           /* } } */
}

/* Leaf l's column chunk: its pages from *k on (*k moves past them). Inlined:
 * a 10,000-column layout calls it once a leaf. */
static inline __attribute__((always_inline)) void chunk_totals(const struct ig_pqv *pv, const struct pq_leaf *l, uint32_t *k, struct chunk_sum *c)
{
    uint32_t i = *k;
    c->first = i < pv->npages ? pv->pages[i].start : pv->size - pv->tail_len;
    c->dict = i < pv->npages && pv->pages[i].col == l->col && pv->pages[i].sub == l->sub &&
              pv->pages[i].kind == IG_PQV_DICT;
    c->data_first = c->dict ? pv->pages[i + 1].start : c->first; /* a dictionary is never alone */
    c->bound_len = i < pv->npages && pv->pages[i].col == l->col && pv->pages[i].sub == l->sub ? pv->pages[i].bound_len : 0;
    c->values = c->bytes = 0;
    c->no_nulls = true; /* every page proves it: null_count 0 lets engines skip validity */
    for (; i < pv->npages && pv->pages[i].col == l->col && pv->pages[i].sub == l->sub; i++) {
        c->values += pv->pages[i].entries;
        c->bytes += pv->pages[i].len;
        if (pv->pages[i].kind != IG_PQV_DICT) c->no_nulls &= pv->pages[i].no_nulls;
    }
    *k = i;
}

/* The FileMetaData of the laid-out file (of a group of part p). */
static int file_metadata(const struct ig_part *p, const struct ig_pqv *pv, const struct ig_pqv_schema *s,
                         struct ig_buf *out)
{
    struct tw w;
    tw_init(&w, out);
    tw_i32(&w, 1, 1);
    tw_list(&w, 2, TW_STRUCT, (uint32_t)s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        const struct pq_elem *e = &s->e[i];
        tw_elem_struct(&w);
        if (e->type >= 0) tw_i32(&w, 1, e->type);
        if (i) tw_i32(&w, 3, e->rep);
        tw_binary(&w, 4, e->name, e->name_len);
        if (e->type < 0) tw_i32(&w, 5, e->nchild);
        if (e->conv >= 0) tw_i32(&w, 6, e->conv);
        tw_end(&w);
    }
    tw_i64(&w, 3, (int64_t)pv->rows);
    tw_list(&w, 4, TW_STRUCT, 1);
    tw_elem_struct(&w);
    tw_list(&w, 1, TW_STRUCT, (uint32_t)s->nl);
    uint64_t total = 0;
    uint32_t k = 0;
    for (size_t i = 0; i < s->nl; i++) {
        const struct pq_leaf *l = &s->l[i];
        struct chunk_sum c;
        chunk_totals(pv, l, &k, &c);
        chunk_bounds(p, pv->part_group, l, &c);
        total += c.bytes;
        tw_elem_struct(&w);
        tw_i64(&w, 2, (int64_t)c.first);
        tw_struct(&w, 3);
        tw_i32(&w, 1, l->phys);
        tw_list(&w, 2, TW_I32, 2 + c.dict);
        tw_elem_i32(&w, PQ_ENC_PLAIN);
        tw_elem_i32(&w, PQ_ENC_RLE);
        if (c.dict) tw_elem_i32(&w, PQ_ENC_RLE_DICTIONARY);
        tw_list(&w, 3, TW_BINARY, l->npath);
        for (uint32_t j = 0; j < l->npath; j++) tw_elem_binary(&w, s->paths[l->path0 + j].p, s->paths[l->path0 + j].n);
        tw_i32(&w, 4, 0); /* UNCOMPRESSED */
        tw_i64(&w, 5, (int64_t)c.values);
        tw_i64(&w, 6, (int64_t)c.bytes);
        tw_i64(&w, 7, (int64_t)c.bytes);
        tw_i64(&w, 9, (int64_t)c.data_first);
        if (c.dict) tw_i64(&w, 11, (int64_t)c.first);
        if (c.no_nulls || c.bound_len) {
            tw_struct(&w, 12);
            if (c.no_nulls) tw_i64(&w, 3, 0); /* null_count */
            if (c.bound_len) {
                tw_binary(&w, 5, c.max, c.bound_len); /* max_value */
                tw_binary(&w, 6, c.min, c.bound_len); /* min_value */
            }
            tw_end(&w);
        }
        tw_end(&w);
        tw_end(&w);
    }
    tw_i64(&w, 2, (int64_t)total);
    tw_i64(&w, 3, (int64_t)pv->rows);
    tw_end(&w);
    tw_binary(&w, 6, "ingot", 5);
    tw_finish(&w);
    return w.err;
}

/* file_metadata's length, field by field as it writes them. */
static size_t footer_len(const struct ig_pqv *pv, const struct ig_pqv_schema *s)
{
    size_t n = tl_int(1) + s->elements_len + tl_int((int64_t)pv->rows) + tl_list(1) + tl_list((uint32_t)s->nl);
    uint64_t total = 0;
    uint32_t k = 0;
    for (size_t i = 0; i < s->nl; i++) {
        struct chunk_sum c;
        chunk_totals(pv, &s->l[i], &k, &c);
        total += c.bytes;
        n += column_chunk_len(s, &s->l[i], &c);
    }
    n += tl_int((int64_t)total) + tl_int((int64_t)pv->rows) + 1; /* the row group's } */
    return n + 1 + tl_bin(5) + 1;                                 /* created_by "ingot", } */
}

int ig_pqv_layout(const struct ig_table *t, const struct ig_pqv_schema *s, uint32_t group, struct ig_reader *r,
                  struct ig_pqv *out, struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t pi, lg;
    if (ig_table_group(t, group, &pi, &lg)) return ig_err(err, -ENOENT, "no row group %u", group);
    const struct ig_part *p = &t->parts[pi];
    struct ig_grouprec gr;
    int rc = ig_part_group(p, lg, &gr, err);
    if (rc) return rc;
    out->group = group;
    out->part = pi;
    out->part_group = lg;
    out->group_first_row = gr.first_row;
    uint32_t cap = 0;
    if (s->nl) { /* a page per leaf at least: a wide table never regrows its list */
        out->pages = malloc(s->nl * sizeof *out->pages);
        if (out->pages) cap = (uint32_t)s->nl;
        else rc = ig_err(err, -ENOMEM, "out of memory");
    }
    uint64_t at = IG_PQV_HEAD;
    bool rows_known = false;
    for (size_t i = 0; !rc && i < s->nl; i++) {
        const struct pq_leaf *l = &s->l[i];
        uint32_t first = 0, count = 0;
        rc = ig_part_group_chunk(p, lg, &gr, l->leaf, &first, &count, err);
        uint8_t blen = rc ? 0 : bound_len(p, lg, l);
        uint32_t rows_before = 0;
        struct ig_chunk_dict cd = {0};
        if (!rc && l->strings) rc = ig_part_chunk_dict(p, lg, l->leaf, &cd, err);
        uint32_t dict_at = UINT32_MAX, width = 0;
        if (!rc && cd.count) { /* the dictionary page first; dropped below if no page follows */
            uint64_t body = 4ull * cd.count + cd.bytes;
            if (body > INT32_MAX) {
                rc = ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) counts a dictionary of %" PRIu64
                            " bytes", p->path, lg, l->leaf, body);
                break;
            }
            struct ig_pqv_page dp = {.page = first, .col = l->col, .sub = l->sub, .phys = l->phys, .bound_len = blen,
                                     .max_rep = l->max_rep, .max_def = l->max_def, .kind = IG_PQV_DICT,
                                     .dict = out->npages, .slots = cd.count, .dict_bytes = cd.bytes};
            dp.header_len = page_header_len(IG_PQV_DICT, (uint32_t)body, cd.count);
            dp.start = at;
            dp.len = dp.header_len + body;
            at += dp.len;
            dict_at = out->npages;
            width = bit_width(cd.count - 1);
            if (!width) width = 1; /* one value: codes of one bit, all 0 */
            if (add_page(out, &cap, &dp)) rc = ig_err(err, -ENOMEM, "out of memory");
        }
        /* A dictionary-coded chunk's codes are one Parquet page over all its
         * ingot pages: DuckDB hands on a dictionary as such only while a
         * vector (2,048 values) lies in one page, and ingot's pages end
         * anywhere (their bytes, not their rows, are what is aimed at). */
        struct ig_pqv_page codes = {.col = l->col, .sub = l->sub, .phys = l->phys, .bound_len = blen, .max_rep = l->max_rep,
                                    .max_def = l->max_def, .no_nulls = true, .kind = IG_PQV_CODES, .dict = dict_at,
                                    .code_width = (uint8_t)width};
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            struct ig_pagex px;
            rc = ig_part_page(p, pg, &rec, err);
            if (!rc) rc = ig_part_page_extra(p, pg, &px, err);
            if (!rc) rc = ig_chunk_page_check(p, pg, &rec, l->leaf, rows_before, gr.row_count, err);
            if (rc) break;
            uint32_t live = rec.row_count - rec.deleted;
            rows_before += rec.row_count;
            if (!rows_known) out->rows += live;
            if (!live) continue;
            struct ig_pqv_page pq = {.page = pg, .col = l->col, .sub = l->sub, .phys = l->phys, .bound_len = blen,
                                     .max_rep = l->max_rep, .max_def = l->max_def,
                                     .no_nulls = !l->max_rep && !(rec.flags & IG_PGF_HAS_NULLS)};
            /* a page with levels never sets the flag: a struct member's entries
             * (one a live row) are all defined when as many values are live */
            if (l->nested && !l->max_rep) pq.no_nulls = px.live_values == live;
            uint64_t nvalues;
            if (l->blob_list || (l->max_rep && rec.deleted)) {
                rc = count_live_entries(t, out, l, pg, r, &pq.entries, err);
                if (rc) break;
                nvalues = l->blob_list ? pq.entries : px.live_values;
            } else if (l->dim) { /* D entries a present vector, one an absent one */
                uint64_t present = px.live_values / l->dim;
                uint64_t ingot_entries = l->max_rep > 1 ? rec.entry_count : live; /* in a list: several a row */
                if (px.live_values % l->dim || present > ingot_entries ||
                    ingot_entries + present * (l->dim - 1) > UINT32_MAX) {
                    rc = ig_err(err, -EIO, "%s: page %u: %u live values for vectors of %u", p->path, pg,
                                px.live_values, l->dim);
                    break;
                }
                pq.entries = (uint32_t)(ingot_entries + present * (l->dim - 1));
                nvalues = px.live_values;
            } else {
                pq.entries = l->max_rep ? rec.entry_count : live;
                nvalues = l->max_rep || l->nested ? px.live_values : live;
            }
            if (dict_at != UINT32_MAX) { /* one page of codes for the chunk's pages */
                if (!codes.page_end) codes.page = pg;
                codes.page_end = pg + 1;
                codes.entries += pq.entries;
                codes.slots += (uint32_t)nvalues;
                codes.no_nulls &= pq.no_nulls;
                if (codes.entries < pq.entries || codes.slots < nvalues) {
                    rc = ig_err(err, -EFBIG, "%s: row group %u, leaf %u too large for a Parquet page", p->path, lg,
                                l->leaf);
                    break;
                }
                continue;
            }
            rc = place_page(out, &cap, &at, &pq, values_room(l, nvalues, rec.text_len), p, err);
        }
        if (!rc && dict_at != UINT32_MAX) {
            if (!codes.page_end) { /* every row of the chunk erased: no dictionary */
                at -= out->pages[dict_at].len;
                out->npages--;
            } else {
                out->pages[dict_at].page = codes.page;
                out->pages[dict_at].page_end = codes.page_end;
                rc = place_page(out, &cap, &at, &codes, codes_len(codes.slots, codes.code_width), p, err);
            }
        }
        rows_known = true;
    }
    out->size = at;
    if (!rc) {
        out->tail_len = footer_len(out, s) + 8;
        out->size += out->tail_len;
    }
    if (rc) ig_pqv_free(out);
    return rc;
}

void ig_pqv_free(struct ig_pqv *v)
{
    free(v->pages);
    v->pages = NULL;
    v->npages = 0;
}

int ig_pqv_tail(const struct ig_table *t, const struct ig_pqv_schema *s, const struct ig_pqv *v, struct ig_buf *out,
                struct ig_error *err)
{
    size_t base = out->len;
    int rc = 0;
    if (ig_buf_reserve(out, v->tail_len)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && file_metadata(&t->parts[v->part], v, s, out)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        uint8_t len[4];
        ig_st32(len, (uint32_t)(out->len - base));
        if (ig_buf_append(out, len, 4) || ig_buf_append(out, "PAR1", 4)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc && out->len - base != v->tail_len)
        rc = ig_err(err, -EIO, "%s: row group %u: Parquet footer of %zu bytes, the layout counted %" PRIu64,
                    t->parts[v->part].path, v->group, out->len - base, v->tail_len);
    if (rc) out->len = base;
    return rc;
}

/* ---- rendering ------------------------------------------------------------ */

/* levels_len's section; all_max: every level is max (-EIO when one is not:
 * the footer's claim was wrong). */
static int put_levels(struct ig_buf *out, const uint8_t *lv, size_t n, unsigned width, bool all_max,
                      uint8_t max)
{
    if (!width) return 0;
    uint64_t len = levels_len(n, width, all_max) - 4;
    uint8_t *o = ig_buf_extend(out, 4 + len);
    if (!o) return -ENOMEM;
    memset(o, 0, 4 + len);
    ig_st32(o, (uint32_t)len);
    o += 4;
    if (all_max) {
        for (size_t i = 0; i < n; i++)
            if (lv[i] != max) return -EIO;
        o += ig_varint_put(o, (uint64_t)n << 1);
        *o = max; /* width <= 8: one byte */
        return 0;
    }
    o += ig_varint_put(o, (n + 7) / 8 << 1 | 1);
    for (size_t i = 0; i < n; i++) /* LSB first, value after value */
        for (unsigned b = 0; b < width; b++)
            if ((lv[i] >> b) & 1) {
                size_t bitpos = i * width + b;
                o[bitpos / 8] |= (uint8_t)(1u << (bitpos % 8));
            }
    return 0;
}

static int blob_path(struct ig_buf *out, const struct ig_values *v, const char *dir, const struct entries *e,
                     size_t k, unsigned kind)
{
    const char *ext = ig_blob_kind_ext(kind);
    uint64_t row = e->row[k];
    char path[64];
    if (v->levels) { /* object K of its row, K counted within the row */
        size_t r0 = (size_t)(row - v->row_base);
        snprintf(path, sizeof path, "/%" PRIu64 "/%" PRIu32 "%s%s", row, e->val[k] - v->row_val[r0],
                 *ext ? "." : "", ext);
    } else if (v->blob_list) {
        snprintf(path, sizeof path, "/%" PRIu64 "/%" PRIu32 "%s%s", row, e->obj[k], *ext ? "." : "", ext);
    } else {
        snprintf(path, sizeof path, "/%" PRIu64 "%s%s", row, *ext ? "." : "", ext);
    }
    size_t dl = strlen(dir), pl = strlen(path);
    uint8_t *o = ig_buf_extend(out, 4 + dl + pl);
    if (!o) return -ENOMEM;
    ig_st32(o, (uint32_t)(dl + pl));
    memcpy(o + 4, dir, dl);
    memcpy(o + 4 + dl, path, pl);
    return 0;
}

static int put_values(struct ig_buf *out, const struct ig_pqv_page *pg, const struct ig_values *v,
                      const char *blob_dir, const struct entries *e)
{
    if (pg->phys == PQ_BOOLEAN) {
        uint8_t *o = ig_buf_extend(out, (e->nval + 7) / 8);
        if (!o) return -ENOMEM;
        memset(o, 0, (e->nval + 7) / 8);
        for (size_t k = 0; k < e->nval; k++)
            if (v->lanes[e->val[k]]) o[k / 8] |= (uint8_t)(1u << (k % 8));
        return 0;
    }
    bool blob = v->type == IG_T_BLOB;
    for (size_t k = 0; k < e->nval; k++) {
        uint32_t i = e->val[k];
        struct ig_blob_ref r;
        unsigned kind = 0;
        if (blob) {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            if ((size_t)(e->obj[k] + 1) * IG_BLOB_REF_BYTES > len) return -EIO;
            ig_blob_ref_load(p + (size_t)e->obj[k] * IG_BLOB_REF_BYTES, &r, &kind);
        }
        uint8_t *o;
        switch (pg->phys) {
        case PQ_INT32:
        case PQ_FLOAT:
            if (!(o = ig_buf_extend(out, 4))) return -ENOMEM;
            ig_st32(o, (uint32_t)v->lanes[i]);
            break;
        case PQ_INT64:
        case PQ_DOUBLE:
            if (!(o = ig_buf_extend(out, 8))) return -ENOMEM;
            ig_st64(o, blob ? r.size : v->lanes[i]);
            break;
        default:
            if (blob) {
                if (blob_path(out, v, blob_dir, e, k, kind)) return -ENOMEM;
            } else {
                size_t len;
                const uint8_t *p = ig_values_bytes(v, i, &len);
                if (!(o = ig_buf_extend(out, 4 + len))) return -ENOMEM;
                ig_st32(o, (uint32_t)len);
                memcpy(o + 4, p, len);
            }
        }
    }
    return 0;
}

/* ---- dictionaries ---------------------------------------------------------- */

struct ig_pqv_dict {
    struct ig_strset set;
};

/* The leaf a page shows, for live_entries. */
static struct pq_leaf page_leaf(const struct ig_pqv_page *pg, const struct ig_column_ref *ref)
{
    bool top_blob_list = is_top_blob_list(&ref->rec);
    return (struct pq_leaf){.col = pg->col, .sub = pg->sub, .phys = pg->phys, .max_rep = pg->max_rep,
                            .max_def = pg->max_def, .blob_list = top_blob_list, .dim = ref->rec.dimension};
}

/* Ingot page `page` of pg's leaf, decoded (into v, reset first), and its
 * live entries (appended to e). */
static int live_page(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                     uint32_t page, struct ig_reader *r, struct ig_column_ref *ref, struct ig_values *v,
                     struct entries *e, struct ig_error *err)
{
    int rc = ig_table_column_at(t, pg->col, ref, err);
    if (rc) return rc;
    struct pq_leaf l = page_leaf(pg, ref);
    const uint8_t *del;
    struct ig_pagerec rec;
    rc = ig_reader_load(r, &t->parts[pv->part], ref, page, pv->group_first_row, &rec, v, &del, err);
    if (!rc && live_entries(&l, v, del, e)) rc = ig_err(err, -ENOMEM, "out of memory");
    return rc;
}

static int entries_differ(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                          size_t n, struct ig_error *err)
{
    return ig_err(err, -EIO, "%s: page %u: %zu live entries, the layout counted %u", t->parts[pv->part].path,
                  pg->page, n, pg->entries);
}

int ig_pqv_dict_new(const struct ig_table *t, const struct ig_pqv *pv, uint32_t i, struct ig_reader *r,
                    struct ig_pqv_dict **out, struct ig_error *err)
{
    *out = NULL;
    if (i >= pv->npages || pv->pages[i].kind != IG_PQV_DICT)
        return ig_err(err, -EINVAL, "Parquet view page %u is not a dictionary", i);
    const struct ig_pqv_page *dp = &pv->pages[i];
    struct ig_pqv_dict *d = calloc(1, sizeof *d);
    if (!d) return ig_err(err, -ENOMEM, "out of memory");
    ig_strset_init(&d->set);
    int rc = 0;
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    for (uint32_t page = dp->page; !rc && page < dp->page_end; page++) {
        struct ig_column_ref ref;
        struct entries e = {0};
        rc = live_page(t, pv, dp, page, r, &ref, &v, &e, err);
        for (size_t j = 0; !rc && j < e.nval; j++) {
            size_t len;
            const uint8_t *b = ig_values_bytes(&v, e.val[j], &len);
            uint32_t at;
            bool added;
            if (ig_strset_add(&d->set, b, len, &at, &added)) rc = ig_err(err, -ENOMEM, "out of memory");
        }
        if (!rc && (d->set.count > dp->slots || d->set.bytes > dp->dict_bytes))
            rc = ig_err(err, -EIO, "%s: row group %u, column chunk of page %u: %u distinct values of %" PRIu64
                        " bytes, more than the footer counts (%u of %u)", t->parts[pv->part].path, pv->group,
                        page, d->set.count, d->set.bytes, dp->slots, dp->dict_bytes);
        entries_free(&e);
    }
    ig_values_free(&v);
    if (rc) {
        ig_pqv_dict_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void ig_pqv_dict_free(struct ig_pqv_dict *d)
{
    if (!d) return;
    ig_strset_free(&d->set);
    free(d);
}

size_t ig_pqv_dict_mem(const struct ig_pqv_dict *d) { return sizeof *d + ig_strset_mem(&d->set); }

/* The dictionary page's body: the live values, then what they do not fill of
 * the footer's count made up by unused entries (empty, the last of spaces),
 * so its length is the one laid out. */
static int put_dictionary(struct ig_buf *out, const struct ig_pqv_page *pg, const struct ig_pqv_dict *d)
{
    const struct ig_strset *set = &d->set;
    if (set->count > pg->slots || set->bytes > pg->dict_bytes) return -EIO;
    uint8_t *o = ig_buf_extend(out, 4ull * pg->slots + pg->dict_bytes);
    if (!o) return -ENOMEM;
    for (uint32_t i = 0; i < set->count; i++) {
        size_t len;
        const uint8_t *b = ig_strset_get(set, i, &len);
        ig_st32(o, (uint32_t)len);
        memcpy(o + 4, b, len);
        o += 4 + len;
    }
    uint32_t unused = pg->slots - set->count;
    uint64_t spare = pg->dict_bytes - set->bytes;
    if (!unused && spare) return -EIO;
    for (uint32_t i = 0; i < unused; i++) {
        uint32_t len = i + 1 == unused ? (uint32_t)spare : 0;
        ig_st32(o, len);
        memset(o + 4, ' ', len);
        o += 4 + len;
    }
    return 0;
}

/* codes_len's section for n codes. */
static int put_codes(struct ig_buf *out, const struct ig_pqv_page *pg, const uint32_t *codes, size_t n)
{
    unsigned width = pg->code_width;
    uint64_t len = codes_len(pg->slots, width);
    if (n > pg->slots) return -EIO;
    uint8_t *o = ig_buf_extend(out, len);
    if (!o) return -ENOMEM;
    memset(o, 0, len);
    *o++ = (uint8_t)width;
    o += ig_varint_put(o, ((uint64_t)pg->slots + 7) / 8 << 1 | 1);
    for (size_t k = 0; k < n; k++) {
        uint64_t bitpos = (uint64_t)k * width; /* LSB first, value after value */
        for (unsigned j = 0; j < width; j++, bitpos++)
            if ((codes[k] >> j) & 1) o[bitpos / 8] |= (uint8_t)(1u << (bitpos % 8));
    }
    return 0;
}

/* The live entries of the codes page's ingot pages, one after another, and
 * each value's number in d (codes, e->nval of them; the caller frees it). */
static int chunk_codes(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                       const struct ig_pqv_dict *d, struct ig_reader *r, struct entries *e, uint32_t **codes,
                       struct ig_error *err)
{
    *codes = malloc(((size_t)pg->slots + 1) * sizeof **codes);
    if (!*codes) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    int rc = 0;
    for (uint32_t page = pg->page; !rc && page < pg->page_end; page++) {
        struct ig_column_ref ref;
        size_t from = e->nval;
        rc = live_page(t, pv, pg, page, r, &ref, &v, e, err);
        if (!rc && e->nval > pg->slots)
            rc = ig_err(err, -EIO, "%s: page %u: more values than the layout counted", t->parts[pv->part].path, page);
        for (size_t k = from; !rc && k < e->nval; k++) {
            size_t n;
            const uint8_t *b = ig_values_bytes(&v, e->val[k], &n);
            int64_t code = ig_strset_find(&d->set, b, n);
            if (code < 0)
                rc = ig_err(err, -EIO, "%s: page %u: a value not in its chunk's dictionary", t->parts[pv->part].path,
                            page);
            else (*codes)[k] = (uint32_t)code;
        }
    }
    ig_values_free(&v);
    return rc;
}

int ig_pqv_render(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                  const struct ig_pqv_dict *d, struct ig_reader *r, struct ig_buf *out, struct ig_error *err)
{
    const char *path = t->parts[pv->part].path;
    if (pg->kind != IG_PQV_PLAIN && !d)
        return ig_err(err, -EINVAL, "%s: page %u: a dictionary-coded Parquet page without its dictionary", path,
                      pg->page);
    struct ig_column_ref ref;
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    struct entries e = {0};
    size_t base = out->len;
    uint32_t *codes = NULL;
    int rc = 0;
    if (pg->kind == IG_PQV_PLAIN) rc = live_page(t, pv, pg, pg->page, r, &ref, &v, &e, err);
    else if (pg->kind == IG_PQV_CODES) rc = chunk_codes(t, pv, pg, d, r, &e, &codes, err);
    if (!rc && pg->kind != IG_PQV_DICT && e.n != pg->entries) rc = entries_differ(t, pv, pg, e.n, err);
    if (!rc) {
        uint64_t body = pg->len - pg->header_len;
        struct ig_buf h = IG_BUF_INIT;
        page_header(&h, pg->kind, (uint32_t)body, pg->kind == IG_PQV_DICT ? pg->slots : pg->entries);
        int w = h.len == pg->header_len ? ig_buf_append(out, h.data, h.len) : -EIO;
        ig_buf_free(&h);
        if (pg->kind == IG_PQV_DICT) {
            if (!w) w = put_dictionary(out, pg, d);
        } else {
            if (!w) w = put_levels(out, e.rep, e.n, bit_width(pg->max_rep), false, pg->max_rep);
            if (!w && (w = put_levels(out, e.def, e.n, bit_width(pg->max_def), pg->no_nulls, pg->max_def)) == -EIO)
                rc = ig_err(err, -EIO, "%s: page %u: a NULL in a page whose record says it has none", path, pg->page);
            if (!w) w = pg->kind == IG_PQV_CODES ? put_codes(out, pg, codes, e.nval) : put_values(out, pg, &v, ref.blob_dir, &e);
        }
        if (!w && out->len - base > pg->len) w = -EIO;
        if (!w) w = ig_buf_append_zeros(out, pg->len - (out->len - base));
        if (rc) {
        } else if (w == -ENOMEM) rc = ig_err(err, w, "out of memory");
        else if (w) rc = ig_err(err, -EIO, "%s: page %u: does not fit its Parquet page%s", path, pg->page,
                             pg->kind == IG_PQV_PLAIN ? "" : " (or its chunk's dictionary)");
    }
    free(codes);
    entries_free(&e);
    ig_values_free(&v);
    if (rc) out->len = base;
    return rc;
}
