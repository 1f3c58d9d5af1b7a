/* schema.c - a table's columns in memory (schema.h): nodes added by type
 * (ig_schema_add) or by a type's text, parsed by the grammar below
 * (list<...>, struct<...>, vector<float32, D>, '?' for nullable) into nested
 * nodes; then finished (leaves, top-level columns, the name index), looked up
 * and compared. Schema files, and a schema written back as text, are
 * schema_text.c's. */
#include "format/model/schema.h"
#include "format/layout.h"
#include "format/model/logical.h"
#include "format/model/quantize.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the type grammar ----------------------------------------------------
 *   type   := base '?'?
 *   base   := PRIMITIVE | 'blob' | 'list' '<' type '>' | 'vector' '<' 'float32' ',' INT '>'
 *           | 'struct' '<' field (',' field)* '>'
 *           | LOGICAL ('(' ARG (',' ARG)* ')')?     date, time(ms), timestamp(us, UTC),
 *                                                  decimal(12, 2), uuid, fixed_binary(16), float16
 *   field  := NAME ':' type          NAME: letters, digits, _ - $ or "quoted"
 */
enum tkind { T_PRIM, T_STRUCT, T_LIST, T_VECTOR };

struct tnode {
    enum tkind kind;
    bool nullable;
    unsigned prim;
    struct ig_logical lt; /* a logical type (prim is its storage) */
    uint32_t dim;
    struct tnode *elem;
    struct tfield *fields;
    size_t nfields;
};

struct tfield {
    char *name;
    size_t len;
    struct tnode *t;
};

static void tnode_free(struct tnode *t)
{
    if (!t) return;
    tnode_free(t->elem);
    for (size_t i = 0; i < t->nfields; i++) {
        free(t->fields[i].name);
        tnode_free(t->fields[i].t);
    }
    free(t->fields);
    free(t);
}

struct tparser {
    const char *p, *end;
    char msg[200];
    int depth;
};

static void skip_ws(struct tparser *tp)
{
    while (tp->p < tp->end && (*tp->p == ' ' || *tp->p == '\t')) tp->p++;
}

static bool eat(struct tparser *tp, char c)
{
    skip_ws(tp);
    if (tp->p < tp->end && *tp->p == c) {
        tp->p++;
        return true;
    }
    return false;
}

static size_t word(struct tparser *tp, const char **w)
{
    skip_ws(tp);
    *w = tp->p;
    while (tp->p < tp->end && ((*tp->p >= 'a' && *tp->p <= 'z') || (*tp->p >= 'A' && *tp->p <= 'Z') ||
                               (*tp->p >= '0' && *tp->p <= '9') || *tp->p == '_' || *tp->p == '-' ||
                               *tp->p == '$' || (unsigned char)*tp->p >= 0x80))
        tp->p++;
    return (size_t)(tp->p - *w);
}

static struct tnode *parse_type(struct tparser *tp);

static struct tnode *tfail(struct tparser *tp, struct tnode *t, const char *what)
{
    if (!tp->msg[0]) snprintf(tp->msg, sizeof tp->msg, "%s", what);
    tnode_free(t);
    return NULL;
}

static struct tnode *parse_struct(struct tparser *tp, struct tnode *t)
{
    t->kind = T_STRUCT;
    if (!eat(tp, '<')) return tfail(tp, t, "expected '<' after struct");
    do {
        const char *name;
        size_t len;
        skip_ws(tp);
        if (tp->p < tp->end && *tp->p == '"') {
            const char *q = memchr(tp->p + 1, '"', (size_t)(tp->end - tp->p - 1));
            if (!q) return tfail(tp, t, "unterminated quoted field name");
            name = tp->p + 1;
            len = (size_t)(q - name);
            tp->p = q + 1;
        } else {
            len = word(tp, &name);
        }
        if (len == 0) return tfail(tp, t, "expected a field name in struct<...>");
        if (memchr(name, '.', len)) return tfail(tp, t, "field names cannot contain '.'");
        if (!eat(tp, ':')) return tfail(tp, t, "expected ':' after a struct field name");
        struct tnode *ft = parse_type(tp);
        if (!ft) return tfail(tp, t, "bad field type");
        struct tfield *f = realloc(t->fields, (t->nfields + 1) * sizeof *f);
        if (!f) {
            tnode_free(ft);
            return tfail(tp, t, "out of memory");
        }
        t->fields = f;
        f[t->nfields] = (struct tfield){strndup(name, len), len, ft};
        t->nfields++;
        for (size_t i = 0; i + 1 < t->nfields; i++)
            if (t->fields[i].len == len && !memcmp(t->fields[i].name, name, len))
                return tfail(tp, t, "duplicate struct field name");
    } while (eat(tp, ','));
    if (!eat(tp, '>')) return tfail(tp, t, "expected ',' or '>' in struct<...>");
    return t;
}

static struct tnode *parse_type(struct tparser *tp)
{
    if (++tp->depth > 32) return tfail(tp, NULL, "type nested too deeply");
    struct tnode *t = calloc(1, sizeof *t);
    if (!t) return tfail(tp, NULL, "out of memory");
    const char *w;
    size_t n = word(tp, &w);
    if (n == 4 && !memcmp(w, "list", 4)) {
        t->kind = T_LIST;
        if (!eat(tp, '<')) return tfail(tp, t, "expected '<' after list");
        t->elem = parse_type(tp);
        if (!t->elem) return tfail(tp, t, "bad list element type");
        if (!eat(tp, '>')) return tfail(tp, t, "expected '>' closing list<...>");
    } else if (n == 6 && !memcmp(w, "struct", 6)) {
        if (!parse_struct(tp, t)) return NULL;
    } else if (n == 6 && !memcmp(w, "vector", 6)) {
        t->kind = T_VECTOR;
        if (!eat(tp, '<')) return tfail(tp, t, "expected '<' after vector");
        const char *e;
        size_t en = word(tp, &e);
        if (en != 7 || memcmp(e, "float32", 7)) return tfail(tp, t, "vectors hold float32");
        if (!eat(tp, ',')) return tfail(tp, t, "expected vector<float32, D>");
        const char *d;
        size_t dn = word(tp, &d);
        unsigned long long dim = 0;
        for (size_t i = 0; i < dn; i++) {
            if (d[i] < '0' || d[i] > '9') return tfail(tp, t, "bad vector dimension");
            dim = dim * 10 + (unsigned)(d[i] - '0');
            if (dim > IG_MAX_DIMENSION) break;
        }
        if (dn == 0 || dim == 0 || dim > IG_MAX_DIMENSION)
            return tfail(tp, t, "vector dimension must be 1..65536");
        t->dim = (uint32_t)dim;
        if (!eat(tp, '>')) return tfail(tp, t, "expected '>' closing vector<...>");
    } else if (ig_logical_kind_from_name(w, n)) {
        t->kind = T_PRIM;
        unsigned kind = ig_logical_kind_from_name(w, n);
        const char *args = NULL;
        size_t an = 0;
        skip_ws(tp);
        if (tp->p < tp->end && *tp->p == '(') {
            const char *close = memchr(tp->p, ')', (size_t)(tp->end - tp->p));
            if (!close) return tfail(tp, t, "expected ')' closing the type's arguments");
            args = tp->p + 1;
            an = (size_t)(close - args);
            tp->p = close + 1;
        }
        char why[160];
        if (ig_logical_from_args(kind, args, an, &t->lt, why, sizeof why)) {
            snprintf(tp->msg, sizeof tp->msg, "%s", why);
            return tfail(tp, t, "");
        }
        uint8_t st, q;
        ig_logical_storage(&t->lt, &st, &q);
        t->prim = st;
    } else {
        t->kind = T_PRIM;
        t->prim = ig_type_from_name(w, n);
        if (!t->prim) {
            snprintf(tp->msg, sizeof tp->msg, "unknown type '%.*s'", (int)(n ? n : 1), n ? w : tp->p);
            return tfail(tp, t, "");
        }
    }
    if (eat(tp, '?')) t->nullable = true;
    tp->depth--;
    return t;
}

/* ---- nodes ---------------------------------------------------------------- */

static int push_node(struct ig_schema *s, const char *name, size_t len, struct ig_error *err)
{
    if (len == 0) return ig_err(err, -EINVAL, "empty column name");
    if (len > IG_MAX_NAME_LEN)
        return ig_err(err, -EINVAL, "column name longer than %d bytes", IG_MAX_NAME_LEN);
    if (memchr(name, '\0', len)) return ig_err(err, -EINVAL, "column name contains a NUL byte");
    if (!ig_utf8_valid((const uint8_t *)name, len))
        return ig_err(err, -EINVAL, "column name is not valid UTF-8");
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        void *p = realloc(s->cols, cap * sizeof *s->cols);
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        s->cols = p;
        s->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return ig_err(err, -ENOMEM, "out of memory");
    memcpy(copy, name, len);
    copy[len] = '\0';
    s->cols[s->n++] = (struct ig_column_def){.name = copy,
                                             .name_len = len,
                                             .parent = IG_SCHEMA_NONE,
                                             .leaf = IG_SCHEMA_NONE,
                                             .top = IG_SCHEMA_NONE};
    return 0;
}

int ig_schema_add(struct ig_schema *s, const char *name, size_t name_len, unsigned type,
                  bool nullable, struct ig_error *err)
{
    if (!ig_type_is_leaf(type)) return ig_err(err, -EINVAL, "unsupported type %u", type);
    int rc = push_node(s, name, name_len, err);
    if (rc) return rc;
    struct ig_column_def *c = &s->cols[s->n - 1];
    c->type = (uint8_t)type;
    c->nullable = nullable;
    c->null_mask = nullable ? 1 : 0;
    return 0;
}

/* Add the nodes of a field of type t under parent. */
static int add_tree(struct ig_schema *s, uint32_t parent, const char *name, size_t len,
                    const struct tnode *t, struct ig_error *err)
{
    int rc = push_node(s, name, len, err);
    if (rc) return rc;
    uint32_t me = s->n - 1;
    struct ig_column_def *c = &s->cols[me];
    c->parent = parent;
    uint8_t lists = 0, mask = 0;
    while (t->kind == T_LIST) {
        if (lists == IG_MAX_LISTS)
            return ig_err(err, -EINVAL, "'%s': more than %d nested lists", c->name, IG_MAX_LISTS);
        if (t->nullable) mask |= (uint8_t)(1u << lists);
        lists++;
        t = t->elem;
    }
    if (t->nullable) mask |= (uint8_t)(1u << lists);
    c->lists = lists;
    c->null_mask = mask;
    c->nullable = mask & 1;
    if (t->kind == T_PRIM) {
        c->type = (uint8_t)t->prim;
        c->lt = t->lt;
        if (t->lt.kind == IG_LT_FLOAT16) c->quantize = IG_Q_FP16;
        return 0;
    }
    if (t->kind == T_VECTOR) {
        c->type = IG_T_FLOAT32;
        c->dimension = t->dim;
        return 0;
    }
    c->type = IG_T_STRUCT;
    c->num_children = (uint32_t)t->nfields;
    for (size_t i = 0; i < t->nfields; i++) {
        struct ig_buf path = IG_BUF_INIT;
        rc = ig_buf_printf(&path, "%s.%.*s", s->cols[me].name, (int)t->fields[i].len, t->fields[i].name);
        if (!rc) rc = add_tree(s, me, (char *)path.data, path.len, t->fields[i].t, err);
        ig_buf_free(&path);
        if (rc) return rc;
    }
    return 0;
}

int ig_schema_add_typed(struct ig_schema *s, const char *name, size_t name_len, const char *type,
                        size_t type_len, struct ig_error *err)
{
    struct tparser tp = {.p = type, .end = type + type_len};
    struct tnode *t = parse_type(&tp);
    skip_ws(&tp);
    if (t && tp.p != tp.end) {
        tnode_free(t);
        t = NULL;
        snprintf(tp.msg, sizeof tp.msg, "unexpected '%.*s' after the type", (int)(tp.end - tp.p), tp.p);
    }
    if (!t) return ig_err(err, -EINVAL, "%s", tp.msg[0] ? tp.msg : "bad type");
    int rc = add_tree(s, IG_SCHEMA_NONE, name, name_len, t, err);
    tnode_free(t);
    return rc;
}

int ig_name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

static int name_cmp(const void *a, const void *b, void *ctx)
{
    const struct ig_schema *s = ctx;
    const struct ig_column_def *x = &s->cols[*(const uint32_t *)a], *y = &s->cols[*(const uint32_t *)b];
    return ig_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

void ig_schema_node_levels(const struct ig_schema *s, uint32_t n, unsigned *rep, unsigned *def)
{
    unsigned r = 0, d = 0;
    for (uint32_t k = n, depth = 0; k != IG_SCHEMA_NONE && depth < 256; k = s->cols[k].parent, depth++) {
        const struct ig_column_def *p = &s->cols[k];
        for (unsigned j = 0; j < p->lists; j++) {
            d += (p->null_mask >> j) & 1;
            d++; /* a list with elements */
            r++;
        }
        d += (p->null_mask >> p->lists) & 1;
    }
    *rep = r;
    *def = d;
}

int ig_schema_finish(struct ig_schema *s, struct ig_error *err)
{
    free(s->leaves);
    free(s->tops);
    free(s->by_name);
    s->by_name = NULL;
    s->leaves = malloc((s->n + 1) * sizeof *s->leaves);
    s->tops = malloc((s->n + 1) * sizeof *s->tops);
    uint32_t *order = malloc((s->n + 1) * sizeof *order);
    if (!s->leaves || !s->tops || !order) {
        free(order);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    s->nleaves = s->ntops = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        struct ig_column_def *c = &s->cols[i];
        c->top = c->parent == IG_SCHEMA_NONE ? i : s->cols[c->parent].top;
        if (c->parent == IG_SCHEMA_NONE) s->tops[s->ntops++] = i;
        if (c->type == IG_T_STRUCT) {
            c->leaf = IG_SCHEMA_NONE;
            continue;
        }
        c->leaf = s->nleaves;
        s->leaves[s->nleaves++] = i;
        unsigned rep, def;
        ig_schema_node_levels(s, i, &rep, &def);
        if (rep > 255 || def > 255) {
            free(order);
            return ig_err(err, -EINVAL, "'%s' is nested too deeply", c->name);
        }
        c->max_rep = (uint8_t)rep;
        c->max_def = (uint8_t)def;
    }
    if (s->ntops == 0) {
        free(order);
        return ig_err(err, -EINVAL, "no columns");
    }
    /* names are unique paths */
    for (uint32_t i = 0; i < s->n; i++)
        order[i] = i;
    qsort_r(order, s->n, sizeof *order, name_cmp, s);
    for (uint32_t i = 1; i < s->n && !s->names_repeat; i++)
        if (name_cmp(&order[i - 1], &order[i], s) == 0) {
            uint32_t d = order[i] > order[i - 1] ? order[i] : order[i - 1];
            free(order);
            order = NULL;
            int rc = s->cols[d].line
                         ? ig_err(err, -EINVAL, "%u: duplicate column name '%s'", s->cols[d].line,
                                  s->cols[d].name)
                         : ig_err(err, -EINVAL, "duplicate column name '%s'", s->cols[d].name);
            return rc;
        }
    s->by_name = order;
    return 0;
}

long ig_schema_find(const struct ig_schema *s, const char *name, size_t len)
{
    if (s->by_name) { /* the first not below name, then those equal to it */
        size_t lo = 0, hi = s->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ig_name_cmp(s->cols[s->by_name[mid]].name, s->cols[s->by_name[mid]].name_len, name, len) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < s->n && !ig_name_cmp(s->cols[s->by_name[lo]].name, s->cols[s->by_name[lo]].name_len, name, len); lo++)
            if (!s->cols[s->by_name[lo]].hidden) return s->by_name[lo];
        return -1;
    }
    for (uint32_t i = 0; i < s->n; i++)
        if (!s->cols[i].hidden && !ig_name_cmp(s->cols[i].name, s->cols[i].name_len, name, len)) return i;
    return -1;
}

const char *ig_schema_field_name(const struct ig_schema *s, uint32_t i, size_t *len)
{
    const struct ig_column_def *c = &s->cols[i];
    if (c->parent == IG_SCHEMA_NONE) {
        *len = c->name_len;
        return c->name;
    }
    size_t skip = s->cols[c->parent].name_len + 1;
    *len = c->name_len - skip;
    return c->name + skip;
}

bool ig_schema_equal(const struct ig_schema *a, const struct ig_schema *b)
{
    if (a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++) {
        const struct ig_column_def *x = &a->cols[i], *y = &b->cols[i];
        if (x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len) ||
            x->type != y->type || x->null_mask != y->null_mask || x->lists != y->lists ||
            x->parent != y->parent || x->num_children != y->num_children ||
            x->page_size != y->page_size || x->block_size != y->block_size ||
            x->encoding != y->encoding ||
            x->compression != y->compression || x->erase_level != y->erase_level ||
            x->quantize != y->quantize || x->dimension != y->dimension || !ig_logical_equal(&x->lt, &y->lt))
            return false;
    }
    return true;
}

void ig_schema_free(struct ig_schema *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        free(s->cols[i].name);
    free(s->cols);
    free(s->leaves);
    free(s->tops);
    free(s->by_name);
    memset(s, 0, sizeof *s);
}
