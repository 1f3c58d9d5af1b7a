/* parquet_schema.c - the table's Parquet schema (parquet_view.h,
 * ig_pqv_schema_new): each shown column walked once into SchemaElements
 * (groups for lists, structs, blobs and vectors; the 3-level LIST form), the
 * Parquet leaves with their levels, and each leaf's path. Built once a table
 * and shared by every row group's layout; the footer's bytes of it are
 * counted by parquet_footer.c. */
#include "parquet_view_int.h"
#include "format/part/columns.h"

#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    s->e[s->ne++] = (struct pq_elem){name, len, type, rep, 0, conv, 0, {0}};
    return 0;
}

/* The leaf element just added: what a logical type adds to it (its
 * LogicalType, a FIXED_LEN_BYTE_ARRAY's length). */
static void leaf_logical(struct ig_pqv_schema *s, const struct ig_colrec *c, int32_t phys)
{
    struct pq_elem *e = &s->e[s->ne - 1];
    e->lt = c->lt;
    if (phys == PQ_FLBA) e->type_length = c->lt.kind == IG_LT_FLOAT16 ? 2 : c->lt.width;
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
                                                !c->dimension && !c->quantize && !c->lt.width,
                                     .path0 = (uint32_t)s->np, .npath = s->depth, .leaf = c->leaf,
                                     .dim = c->dimension,
                                     .width = phys == PQ_FLBA ? (c->lt.kind == IG_LT_FLOAT16 ? 2 : c->lt.width) : 0,
                                     .seconds = c->lt.kind == IG_LT_TIMESTAMP && c->lt.unit == IG_UNIT_S};
    memcpy(s->paths + s->np, s->stack, s->depth * sizeof *s->stack);
    s->np += s->depth;
    return 0;
}

/* A top-level list<blob> whose elements are never NULL: its rows' references
 * are stored as one value, and the view makes up its levels. */
bool pqv_is_top_blob_list(const struct ig_colrec *c)
{
    return c->parent == IG_NONE && c->lists == 1 && c->type == IG_T_BLOB && !(c->null_mask & 2);
}

/* Physical and converted type of a primitive leaf: its logical type's
 * where it has one (DATE, TIMESTAMP and DECIMAL on their integers, UUID,
 * FLOAT16 and fixed_binary as FIXED_LEN_BYTE_ARRAY, a 16-byte decimal too;
 * converted types only where they mean the same: a local timestamp has none,
 * a UTC one of milli- or microseconds TIMESTAMP_*). */
static void primitive(const struct ig_colrec *c, int32_t *phys, int32_t *conv)
{
    *conv = PQ_CT_NONE;
    switch (c->lt.kind) {
    case IG_LT_DATE: *phys = PQ_INT32, *conv = PQ_CT_DATE; return;
    case IG_LT_TIME: *phys = c->type == IG_T_INT32 ? PQ_INT32 : PQ_INT64; return;
    case IG_LT_TIMESTAMP:
        *phys = PQ_INT64;
        if (c->lt.utc && (c->lt.unit == IG_UNIT_MS || c->lt.unit == IG_UNIT_S)) *conv = PQ_CT_TIMESTAMP_MILLIS;
        if (c->lt.utc && c->lt.unit == IG_UNIT_US) *conv = PQ_CT_TIMESTAMP_MICROS;
        return;
    case IG_LT_DECIMAL:
        *phys = c->type == IG_T_INT32 ? PQ_INT32 : c->type == IG_T_INT64 ? PQ_INT64 : PQ_FLBA;
        *conv = PQ_CT_DECIMAL;
        return;
    case IG_LT_UUID:
    case IG_LT_FIXED:
    case IG_LT_FLOAT16: *phys = PQ_FLBA; return;
    default: break;
    }
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
    bool top_blob_list = pqv_is_top_blob_list(&c);
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
        if ((rc = add_elem(s, ename, elen, phys, r, conv, NULL))) return rc;
        leaf_logical(s, &c, phys);
        if ((rc = add_leaf(s, &c, col, 0, (uint8_t)phys, rep, def, false))) return rc;
    }
    /* Parquet counts levels as ingot does; a leaf that disagrees cannot be shown */
    if (c.type != IG_T_STRUCT && !top_blob_list && (rep != c.max_rep || def != c.max_def))
        return ig_err(s->err, -EIO, "%s: column '%.*s': levels %u/%u, Parquet's %u/%u", s->p->path,
                      (int)c.name_len, c.name, c.max_rep, c.max_def, rep, def);
    s->depth = depth0;
    *shown = true;
    return 0;
}

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

static int build_schema(const struct ig_table *t, const struct ig_part *p, struct ig_pqv_schema *s,
                        struct ig_error *err)
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
    /* the columns this version shows, in its order (chunks follow s->l) */
    struct ig_shown_walk tops = {0};
    for (uint32_t col, next; !rc && ig_table_next_top(t, &tops, &col);) {
        bool shown = false; /* walk fails before it says (a corrupt column record) */
        rc = walk(s, col, 0, 0, 0, &next, &shown);
        if (!rc) s->e[0].nchild += shown;
    }
    if (rc == -ENOMEM) ig_err(err, rc, "out of memory");
    s->elements_len = pqv_schema_elements_len(s);
    s->err = NULL;
    return rc;
}

int ig_pqv_schema_new(const struct ig_table *t, struct ig_pqv_schema **out, struct ig_error *err)
{
    struct ig_pqv_schema *s = malloc(sizeof *s);
    if (!s) return ig_err(err, -ENOMEM, "out of memory");
    int rc = build_schema(t, &t->parts[0], s, err);
    if (rc) {
        ig_pqv_schema_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}
