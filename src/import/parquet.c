#include "parquet.h"
#include "parquet/pq_meta.h"
#include "parquet/pq_page.h"
#include "format/model/logical.h"
#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/part/writer.h"
#include "import/stripe.h"
#include "import/widen.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a leaf's physical values become ingot lanes or bytes. */
enum conv {
    CV_RAW,    /* the lane as decoded: BOOLEAN, INT64, UINT64, FLOAT, DOUBLE, INT96 */
    CV_S32,    /* INT32 into int32: sign-extend */
    CV_S16,    /* INT32 holding INTEGER(16, signed) */
    CV_S8,
    CV_U32,    /* INT32 holding an unsigned value: zero-extended already */
    CV_U16,
    CV_U8,
    CV_F16,    /* FIXED_LEN_BYTE_ARRAY(2) FLOAT16 into float32 */
    CV_DEC32,  /* DECIMAL in INT32 into a decimal whose storage differs (int64, 16 bytes) */
    CV_DEC64,  /* DECIMAL in INT64, likewise (into int32: range checked) */
    CV_DECBIN, /* DECIMAL as big-endian two's complement bytes, into its storage */
    CV_STRING, /* BYTE_ARRAY checked to be UTF-8 */
    CV_BINARY,
};

struct ig_parquet {
    int fd;
    uint64_t size;
    char *path;
    struct pq_meta m;
    uint8_t *conv; /* per leaf */
    /* per leaf: how its values widen into the table's type (ig_parquet_check_schema) */
    struct ig_widen *widen;
};

int ig_parquet_open(struct ig_parquet **out, int fd, uint64_t size, const char *path,
                    struct ig_error *err)
{
    struct ig_parquet *pq = calloc(1, sizeof *pq);
    if (!pq || !(pq->path = strdup(path))) {
        free(pq);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    pq->fd = fd;
    pq->size = size;
    int rc = pq_meta_read(fd, size, path, &pq->m, err);
    if (!rc && (!(pq->conv = calloc(pq->m.nleaves, 1)) ||
                !(pq->widen = calloc(pq->m.nleaves ? pq->m.nleaves : 1, sizeof *pq->widen))))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        ig_parquet_close(pq);
        return rc;
    }
    *out = pq;
    return 0;
}

void ig_parquet_close(struct ig_parquet *pq)
{
    if (!pq) return;
    pq_meta_free(&pq->m);
    free(pq->conv);
    free(pq->widen);
    free(pq->path);
    free(pq);
}

uint64_t ig_parquet_rows(const struct ig_parquet *pq) { return (uint64_t)pq->m.num_rows; }

/* ---- schema ---- */

/* A logical annotation this importer cannot take as it stands (a DECIMAL
 * whose scale is above its precision, a TIMESTAMP on INT32, ...): what is
 * wrong with it, into why; NULL when it is well formed. */
static const char *bad_annotation(const struct pq_node *n, char *why, size_t cap)
{
    static const char *const units[] = {"no unit", "MILLIS", "MICROS", "NANOS"};
    const char *unit = n->unit <= PQ_NANOS ? units[n->unit] : "an unknown unit";
    switch (n->logical) {
    case PQ_L_DECIMAL:
        if (n->precision < 1 || n->precision > IG_DECIMAL_MAX_PRECISION)
            snprintf(why, cap, "DECIMAL(%d, %d): precision %d (1 to %d)", n->precision, n->scale, n->precision,
                     IG_DECIMAL_MAX_PRECISION);
        else if (n->scale < 0 || n->scale > n->precision)
            snprintf(why, cap, "DECIMAL(%d, %d): the scale is %s the precision", n->precision, n->scale,
                     n->scale < 0 ? "below 0, not between 0 and" : "above");
        else if (n->type != PQ_INT32 && n->type != PQ_INT64 && n->type != PQ_BYTE_ARRAY && n->type != PQ_FLBA)
            snprintf(why, cap, "DECIMAL(%d, %d) on %s", n->precision, n->scale, pq_type_name(n->type));
        else if (n->type == PQ_FLBA && (n->type_length < 1 || n->type_length > 16))
            snprintf(why, cap, "DECIMAL(%d, %d) in %d bytes (16 at most)", n->precision, n->scale, n->type_length);
        else
            return NULL;
        return why;
    case PQ_L_DATE:
        if (n->type == PQ_INT32) return NULL;
        snprintf(why, cap, "DATE on %s (INT32 days)", pq_type_name(n->type));
        return why;
    case PQ_L_TIME:
        if ((n->unit == PQ_MILLIS && n->type == PQ_INT32) || ((n->unit == PQ_MICROS || n->unit == PQ_NANOS) && n->type == PQ_INT64))
            return NULL;
        snprintf(why, cap, "TIME(%s) on %s", unit, pq_type_name(n->type));
        return why;
    case PQ_L_TIMESTAMP:
        if (n->unit >= PQ_MILLIS && n->unit <= PQ_NANOS && n->type == PQ_INT64) return NULL;
        snprintf(why, cap, "TIMESTAMP(%s) on %s", unit, pq_type_name(n->type));
        return why;
    case PQ_L_UUID:
        if (n->type == PQ_FLBA && n->type_length == 16) return NULL;
        snprintf(why, cap, "UUID on %s(%d) (FIXED_LEN_BYTE_ARRAY(16))", pq_type_name(n->type), n->type_length);
        return why;
    case PQ_L_FLOAT16:
        if (n->type == PQ_FLBA && n->type_length == 2) return NULL;
        snprintf(why, cap, "FLOAT16 on %s(%d) (FIXED_LEN_BYTE_ARRAY(2))", pq_type_name(n->type), n->type_length);
        return why;
    default: return NULL;
    }
}

/* The ingot type of a leaf (its text, into out) and how its values convert;
 * NULL when unsupported. Logical annotations become ingot's logical types
 * (DATE date, TIME and TIMESTAMP time(unit) and timestamp(unit[, UTC]),
 * INT96 timestamp(us), DECIMAL decimal(p, s), UUID uuid, FLOAT16 float16, a
 * FIXED_LEN_BYTE_ARRAY without one fixed_binary(N)); bad_annotation has
 * vouched for them. */
static const char *leaf_type(const struct pq_node *n, uint8_t *conv, char *out, size_t cap)
{
    static const char *const units[] = {"", "ms", "us", "ns"};
    bool dec = n->logical == PQ_L_DECIMAL, in = n->logical == PQ_L_INT;
    /* a decimal's storage: int32 up to 9 digits, int64 up to 18, else 16 bytes */
    uint8_t dec_store = n->precision <= IG_DECIMAL_INT32_DIGITS ? PQ_INT32 : n->precision <= IG_DECIMAL_INT64_DIGITS ? PQ_INT64 : PQ_FLBA;
    if (dec) snprintf(out, cap, "decimal(%d, %d)", n->precision, n->scale);
    if (n->logical == PQ_L_TIME) snprintf(out, cap, "time(%s)", units[n->unit]);
    if (n->logical == PQ_L_TIMESTAMP)
        snprintf(out, cap, "timestamp(%s%s)", units[n->unit], n->utc ? ", UTC" : "");
    switch (n->type) {
    case PQ_BOOLEAN: *conv = CV_RAW; return "bool";
    case PQ_INT32:
        if (dec) return *conv = dec_store == PQ_INT32 ? CV_S32 : CV_DEC32, out;
        if (n->logical == PQ_L_DATE) return *conv = CV_S32, "date";
        if (n->logical == PQ_L_TIME) return *conv = CV_S32, out;
        if (in && n->int_bits == 8) return *conv = n->int_signed ? CV_S8 : CV_U8, n->int_signed ? "int8" : "uint8";
        if (in && n->int_bits == 16) return *conv = n->int_signed ? CV_S16 : CV_U16, n->int_signed ? "int16" : "uint16";
        if (in && n->int_bits == 32 && !n->int_signed) return *conv = CV_U32, "uint32";
        if (in && n->int_bits != 32) return NULL;
        return *conv = CV_S32, "int32";
    case PQ_INT64:
        if (dec) return *conv = dec_store == PQ_INT64 ? CV_RAW : CV_DEC64, out;
        if (n->logical == PQ_L_TIME || n->logical == PQ_L_TIMESTAMP) return *conv = CV_RAW, out;
        if (in && n->int_bits != 64) return NULL;
        *conv = CV_RAW;
        return in && !n->int_signed ? "uint64" : "int64";
    case PQ_INT96: *conv = CV_RAW; return "timestamp(us)"; /* legacy timestamps: the decoder gives microseconds */
    case PQ_FLOAT: *conv = CV_RAW; return "float32";
    case PQ_DOUBLE: *conv = CV_RAW; return "float64";
    case PQ_BYTE_ARRAY:
        if (dec) return *conv = CV_DECBIN, out;
        if (n->logical == PQ_L_STRING) return *conv = CV_STRING, "string";
        return *conv = CV_BINARY, "binary";
    case PQ_FLBA:
        if (dec) return *conv = CV_DECBIN, out;
        if (n->logical == PQ_L_FLOAT16) return *conv = CV_F16, "float16";
        if (n->logical == PQ_L_UUID) return *conv = CV_BINARY, "uuid";
        if (n->type_length >= 1 && n->type_length <= IG_FIXED_MAX_WIDTH) {
            snprintf(out, cap, "fixed_binary(%d)", n->type_length);
            return *conv = CV_BINARY, out;
        }
        return *conv = CV_BINARY, "binary";
    default: return NULL;
    }
}

struct build {
    struct ig_parquet *pq;
    struct ig_buf *b;
    struct ig_error *err;
};

static int node_text(struct build *bd, uint32_t i);

static int unsupported(struct build *bd, uint32_t i, const char *what)
{
    char path[512];
    pq_node_path(&bd->pq->m, i, path, sizeof path);
    return ig_err(bd->err, -EINVAL, "%s: column '%s': %s is not supported", bd->pq->path, path, what);
}

static int put(struct build *bd, const char *s)
{
    return ig_buf_append(bd->b, s, strlen(s)) ? ig_err(bd->err, -ENOMEM, "out of memory") : 0;
}

/* A field name inside struct<...>, quoted unless it is a plain identifier. */
static int put_name(struct build *bd, uint32_t i)
{
    const struct pq_node *n = &bd->pq->m.nodes[i];
    bool plain = n->name_len > 0;
    for (uint32_t k = 0; k < n->name_len; k++) {
        char c = n->name[k];
        plain &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (c == '"' || c == '.' || !c) return unsupported(bd, i, "a field name with '\"', '.' or NUL");
    }
    if (plain) return put(bd, n->name);
    int rc = put(bd, "\"");
    if (!rc) rc = put(bd, n->name);
    return rc ? rc : put(bd, "\"");
}

static uint32_t first_child(uint32_t i) { return i + 1; }

/* The node after i's subtree (pre-order). */
static uint32_t skip_subtree(const struct pq_meta *m, uint32_t i)
{
    uint32_t todo = 1;
    while (todo && i < m->nnodes) todo += m->nodes[i++].nchildren - 1;
    return i;
}

static int struct_text(struct build *bd, uint32_t g)
{
    const struct pq_meta *m = &bd->pq->m;
    int rc = put(bd, "struct<");
    uint32_t c = first_child(g);
    for (uint32_t k = 0; k < m->nodes[g].nchildren && !rc; k++) {
        if (k) rc = put(bd, ", ");
        if (!rc) rc = put_name(bd, c);
        if (!rc) rc = put(bd, ":");
        if (!rc) rc = node_text(bd, c);
        c = skip_subtree(m, c);
    }
    return rc ? rc : put(bd, ">");
}

/* The type inside any repetition/optionality of node i. */
static int inner_text(struct build *bd, uint32_t i)
{
    const struct pq_meta *m = &bd->pq->m;
    const struct pq_node *n = &m->nodes[i];
    if (n->type >= 0) {
        char why[160], text[64];
        if (bad_annotation(n, why, sizeof why)) {
            char path[512];
            pq_node_path(&bd->pq->m, i, path, sizeof path);
            return ig_err(bd->err, -EINVAL, "%s: column '%s': malformed logical type %s", bd->pq->path, path, why);
        }
        const char *t = leaf_type(n, &bd->pq->conv[n->leaf], text, sizeof text);
        return t ? put(bd, t) : unsupported(bd, i, "this integer width");
    }
    if (n->logical == PQ_L_LIST || n->logical == PQ_L_MAP) {
        uint32_t c = first_child(i);
        const struct pq_node *cn = &m->nodes[c];
        if (n->nchildren != 1 || cn->rep != PQ_REPEATED)
            return unsupported(bd, i, "a LIST or MAP group without one repeated field");
        int rc = put(bd, "list<");
        if (rc) return rc;
        if (n->logical == PQ_L_MAP || cn->type >= 0) {
            rc = cn->type >= 0 ? inner_text(bd, c) : struct_text(bd, c);
        } else {
            /* 3-level list: the repeated group wraps the element, unless it is
             * itself the element, as the format's rules for older writers
             * say: several fields, or one under a legacy name. Then the
             * element is the group read as a value: a struct, or a list or
             * map where it is annotated so (parquet-avro's two-level
             * list<list<int>>: `repeated group array (LIST) { repeated int32
             * array; }`). */
            char tuple[300];
            snprintf(tuple, sizeof tuple, "%s_tuple", n->name);
            bool is_element = cn->nchildren != 1 || !strcmp(cn->name, "array") || !strcmp(cn->name, tuple);
            rc = is_element ? inner_text(bd, c) : node_text(bd, first_child(c));
        }
        return rc ? rc : put(bd, ">");
    }
    return struct_text(bd, i);
}

static int node_text(struct build *bd, uint32_t i)
{
    const struct pq_node *n = &bd->pq->m.nodes[i];
    int rc = 0;
    if (n->rep == PQ_REPEATED) rc = put(bd, "list<");
    if (!rc) rc = inner_text(bd, i);
    if (!rc && n->rep == PQ_REPEATED) rc = put(bd, ">");
    if (!rc && n->rep == PQ_OPTIONAL) rc = put(bd, "?");
    return rc;
}

int ig_parquet_schema(struct ig_parquet *pq, struct ig_schema *s, struct ig_error *err)
{
    const struct pq_meta *m = &pq->m;
    struct ig_buf b = {0};
    struct build bd = {.pq = pq, .b = &b, .err = err};
    int rc = 0;
    uint32_t c = 1;
    for (uint32_t k = 0; k < m->nodes[0].nchildren && !rc; k++) {
        b.len = 0;
        rc = node_text(&bd, c);
        if (!rc) {
            rc = ig_schema_add_typed(s, m->nodes[c].name, m->nodes[c].name_len, (const char *)b.data, b.len, err);
            if (rc) rc = ig_err_prefix(err, rc, "%s: column '%s'", pq->path, m->nodes[c].name);
        }
        c = skip_subtree(m, c);
    }
    ig_buf_free(&b);
    if (!rc) rc = ig_schema_finish(s, err);
    if (!rc && s->nleaves != m->nleaves)
        rc = ig_err(err, -EINVAL, "%s: %u Parquet columns became %u ingot columns", pq->path, m->nleaves, s->nleaves);
    for (uint32_t l = 0; !rc && l < m->nleaves; l++) {
        const struct pq_node *n = &m->nodes[m->leaves[l]];
        struct ig_column_def *cd = &s->cols[s->leaves[l]];
        if (cd->max_def != n->max_def || cd->max_rep != n->max_rep) {
            char path[512];
            pq_node_path(m, m->leaves[l], path, sizeof path);
            rc = ig_err(err, -EINVAL, "%s: column '%s': this nesting (repetition level %u, "
                                      "definition level %u) is not supported",
                        pq->path, path, n->max_rep, n->max_def);
        }
        if (pq->conv[l] == CV_F16) cd->quantize = IG_Q_FP16; /* every value fits fp16 */
    }
    return rc;
}

/* A leaf of s the file does not give, in a column it gives other leaves of:
 * a struct field the file lacks (a later shard added it: schema_union.h). It
 * is NULL wherever its nearest struct the file gives (`at`) is there, and its
 * levels follow a leaf the file gives under `at` (`from`, the file's leaf
 * index): each entry of that leaf that repeats below `at` left out, and each
 * definition level past `at`'s cut to `at`'s (the field's own NULL). */
struct derived {
    uint32_t leaf; /* s's */
    uint32_t from; /* the file's */
    uint8_t rep;   /* `at`'s repetition level: an entry repeating deeper belongs to the same field */
    uint8_t def;   /* `at`'s definition level, counted as s counts it */
};

/* The file's leaf l gives the values of s's leaf map[l]: the leaf of the same
 * name (its column's path), in whatever order the file has them. A top-level
 * column of s the file does not give is NULL in every row written (so it must
 * be nullable, or hidden by the table's version); a struct field inside one
 * it gives is NULL where its struct is there (so it must be nullable), its
 * levels derived (*derived, *nderived; NULL: only checked). mine: the file's
 * schema (ig_parquet_schema). */
static int map_leaves(const struct ig_parquet *pq, const struct ig_schema *mine, const struct ig_schema *s,
                      uint32_t *map, struct derived **derived, uint32_t *nderived, struct ig_error *err)
{
    /* by s's node: 1 + the file's leaf that gives it (leaves), or whether a leaf below is given (structs) */
    uint32_t *given = calloc(s->n ? s->n : 1, sizeof *given);
    struct derived *d = calloc(s->nleaves ? s->nleaves : 1, sizeof *d);
    uint32_t nd = 0;
    int rc = given && d ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t l = 0; !rc && l < mine->nleaves; l++) {
        const struct ig_column_def *a = &mine->cols[mine->leaves[l]];
        long node = ig_schema_find(s, a->name, a->name_len); /* a hidden record answers to no name */
        if (node < 0 || s->cols[node].leaf == IG_SCHEMA_NONE)
            rc = ig_err(err, -EINVAL, "%s: column '%s' is not in the schema it is read with", pq->path, a->name);
        else {
            map[l] = s->cols[node].leaf;
            given[node] = l + 1;
            for (uint32_t p = s->cols[node].parent; p != IG_SCHEMA_NONE && !given[p]; p = s->cols[p].parent)
                given[p] = 1;
        }
    }
    for (uint32_t k = 0; !rc && k < s->ntops; k++) {
        const struct ig_column_def *t = &s->cols[s->tops[k]];
        if (!t->hidden && !given[s->tops[k]] && !t->nullable)
            rc = ig_err(err, -EINVAL, "%s: has no column '%s', which is not nullable", pq->path, t->name);
    }
    for (uint32_t l = 0; !rc && l < s->nleaves; l++) {
        uint32_t leaf = s->leaves[l], field = leaf, at = s->cols[leaf].parent;
        if (given[leaf] || !given[s->cols[leaf].top]) continue;
        while (!given[at]) { /* the nearest struct the file gives, and its field this leaf is in */
            field = at;
            at = s->cols[at].parent;
        }
        if (!(s->cols[field].null_mask & 1)) {
            rc = ig_err(err, -EINVAL, "%s: has no field '%s', which is not nullable", pq->path, s->cols[field].name);
            break;
        }
        uint32_t from = at + 1; /* the first leaf the file gives under `at` (its subtree follows it) */
        while (s->cols[from].leaf == IG_SCHEMA_NONE || !given[from]) from++;
        unsigned rep, def; /* below a leaf's, which the schema bounds by 255 */
        ig_schema_node_levels(s, at, &rep, &def);
        d[nd++] = (struct derived){.leaf = l, .from = given[from] - 1, .rep = (uint8_t)rep, .def = (uint8_t)def};
    }
    free(given);
    if (!rc && derived) {
        *derived = d;
        *nderived = nd;
    } else
        free(d);
    return rc;
}

/* Definition levels of the file's leaf fl (in fs) as the table's leaf tl (in
 * ts) counts them, where the two differ only in which nodes may be NULL:
 * out[d] for each file level d up to its max_def, IG_DEF_NULL where the file's
 * level stops at a node the table does not let be NULL. Each node on the
 * path gives, for list level j = 0..lists, an optional slot where its
 * null_mask bit j is set and (j < lists) a repeated one (stripe.c counts them
 * the same way); a file level d stops at the file's (d+1)-th slot. -EINVAL
 * when the paths differ in shape (a list here, none there). *same: out is
 * the identity. */
#define IG_DEF_NULL 0xff
static int def_map(const struct ig_schema *fs, uint32_t fl, const struct ig_schema *ts, uint32_t tl, uint8_t *out,
                   bool *same)
{
    uint32_t fchain[256], tchain[256];
    unsigned nf = 0, nt = 0;
    for (uint32_t n = fl; n != IG_SCHEMA_NONE && nf < 256; n = fs->cols[n].parent) fchain[nf++] = n;
    for (uint32_t n = tl; n != IG_SCHEMA_NONE && nt < 256; n = ts->cols[n].parent) tchain[nt++] = n;
    if (nf != nt) return -EINVAL;
    unsigned fdef = 0, tdef = 0; /* slots each has seen */
    *same = true;
    for (unsigned k = nf; k-- > 0;) {
        const struct ig_column_def *a = &fs->cols[fchain[k]], *b = &ts->cols[tchain[k]];
        if (a->lists != b->lists || a->dimension != b->dimension) return -EINVAL;
        for (unsigned j = 0; j <= a->lists; j++) {
            bool fa = (a->null_mask >> j) & 1, fb = (b->null_mask >> j) & 1;
            if (fdef + 2 >= 256 || tdef + 2 >= 256) return -EINVAL;
            *same &= fa == fb;
            if (fa) out[fdef++] = fb ? (uint8_t)tdef : IG_DEF_NULL;
            tdef += fb;
            if (j < a->lists) out[fdef++] = (uint8_t)tdef++; /* an empty list */
        }
    }
    out[fdef] = (uint8_t)tdef; /* defined down to the leaf */
    return fdef == fs->cols[fl].max_def && tdef == ts->cols[tl].max_def ? 0 : -EINVAL;
}

int ig_parquet_check_schema(struct ig_parquet *pq, const struct ig_schema *s, struct ig_error *err)
{
    struct ig_schema mine = {0};
    int rc = ig_parquet_schema(pq, &mine, err);
    uint32_t *map = rc ? NULL : malloc((mine.nleaves ? mine.nleaves : 1) * sizeof *map);
    if (!rc && !map) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = map_leaves(pq, &mine, s, map, NULL, NULL, err);
    for (uint32_t l = 0; !rc && l < mine.nleaves; l++) {
        const struct ig_column_def *a = &mine.cols[mine.leaves[l]], *b = &s->cols[s->leaves[map[l]]];
        /* a node may be OPTIONAL in the file and not nullable in the table
         * (as DuckDB, Spark and pyarrow write every column) or the other way
         * round: its levels are mapped, and a NULL where the table cannot
         * hold one is refused (feed_rows) */
        uint8_t dmap[256];
        bool same;
        /* a type the table's holds every value of is widened into it (widen.h) */
        struct ig_scalar from = {.type = a->type, .lt = a->lt}, to = {.type = b->type, .lt = b->lt};
        if (a->max_rep != b->max_rep || a->lists != b->lists || a->dimension != b->dimension ||
            !ig_widen_plan(&from, &to, &pq->widen[l]) ||
            def_map(&mine, mine.leaves[l], s, s->leaves[map[l]], dmap, &same)) {
            struct ig_buf ta = {0}, tb = {0};
            (void)ig_schema_type_text(&mine, mine.leaves[l], &ta);
            (void)ig_schema_type_text(s, s->leaves[map[l]], &tb);
            rc = ig_err(err, -EINVAL, "%s: column '%s' holds %.*s, the table %.*s", pq->path, a->name,
                        (int)ta.len, (const char *)ta.data, (int)tb.len, (const char *)tb.data);
            ig_buf_free(&ta);
            ig_buf_free(&tb);
        }
        /* a decimal scaled into the table's: by way of its unscaled value */
        if (!rc && b->lt.kind == IG_LT_DECIMAL && pq->widen[l].op == IG_WIDEN_SCALE)
            pq->conv[l] = pq->conv[l] == CV_S32 ? CV_DEC32 : pq->conv[l] == CV_RAW ? CV_DEC64 : pq->conv[l];
    }
    ig_schema_free(&mine);
    free(map);
    return rc;
}

/* ---- rows ---- */

struct feed {
    struct ig_parquet *pq;
    uint32_t group;
    uint64_t row; /* within the row group */
    struct ig_error *err;
    /* by the file's leaf: its definition levels as the table's leaf counts
     * them (def_map; IG_DEF_NULL: a NULL the table cannot hold), and
     * whether that is the identity (levels copied as they are, in bulk) */
    const uint8_t (*dmap)[256];
    const bool *same;
    struct ig_buf *defs; /* a stretch of levels counted again */
};

static int row_error(struct feed *f, uint32_t leaf, const char *fmt, const char *detail)
{
    char path[512];
    pq_node_path(&f->pq->m, f->pq->m.leaves[leaf], path, sizeof path);
    return ig_err(f->err, -EIO, "%s: row group %u, column '%s', row %" PRIu64 ": %s%s", f->pq->path,
                  f->group, path, f->row, fmt, detail ? detail : "");
}

/* A decimal's unscaled value into its column's storage (v's type): an int32
 * or int64 lane (a value out of its range is an error: it is wider than the
 * column's precision says), or 16 bytes, little-endian two's complement. */
static int push_decimal(struct feed *f, uint32_t leaf, struct ig_values *v, __int128 x)
{
    if (!ig_widen_unscaled(&f->pq->widen[leaf], x, &x))
        return row_error(f, leaf, "a DECIMAL value wider than the table's column holds", NULL);
    if (v->is_bytes) {
        uint8_t b[16];
        for (int k = 0; k < 16; k++) b[k] = (uint8_t)((unsigned __int128)x >> (8 * k));
        return ig_values_push_bytes(v, b, 16) ? ig_err(f->err, -ENOMEM, "out of memory") : 0;
    }
    if (v->type == IG_T_INT32 ? x < INT32_MIN || x > INT32_MAX : x < INT64_MIN || x > INT64_MAX)
        return row_error(f, leaf, "a DECIMAL value wider than its precision", NULL);
    return ig_values_push_lane(v, (uint64_t)(int64_t)x) ? ig_err(f->err, -ENOMEM, "out of memory") : 0;
}

/* A lane of the file's type into the table's (widened, where the two differ). */
static int push_lane(struct feed *f, uint32_t leaf, struct ig_values *v, uint64_t lane)
{
    const struct ig_widen *w = &f->pq->widen[leaf];
    uint64_t out = lane;
    if (w->op != IG_WIDEN_NONE && !ig_widen_lane(w, lane, &out)) {
        char value[32];
        if (w->op == IG_WIDEN_UINT_FLOAT) snprintf(value, sizeof value, "%" PRIu64, lane);
        else snprintf(value, sizeof value, "%" PRId64, (int64_t)lane);
        return row_error(f, leaf, "a value the table's type cannot hold exactly: ", value);
    }
    return ig_values_push_lane(v, out) ? ig_err(f->err, -ENOMEM, "out of memory") : 0;
}

static int push_value(struct feed *f, uint32_t leaf, struct ig_values *v, const struct pq_column *c, size_t vi)
{
    uint8_t conv = f->pq->conv[leaf];
    if (c->vals.is_bytes) {
        size_t len;
        const uint8_t *p = ig_values_bytes(&c->vals, vi, &len);
        if (conv == CV_STRING && !ig_utf8_valid(p, len)) return row_error(f, leaf, "a STRING that is not UTF-8", NULL);
        if (conv == CV_F16) {
            float x = ig_dequantize_one(IG_Q_FP16, (uint32_t)p[0] | (uint32_t)p[1] << 8);
            uint32_t bits;
            memcpy(&bits, &x, 4);
            return push_lane(f, leaf, v, bits);
        }
        if (conv == CV_DECBIN) {
            if (len > 16 || !len) return row_error(f, leaf, "a DECIMAL wider than 16 bytes", NULL);
            __int128 x = (p[0] & 0x80) ? -1 : 0;
            for (size_t k = 0; k < len; k++) x = (__int128)((unsigned __int128)x << 8 | p[k]);
            return push_decimal(f, leaf, v, x);
        }
        return ig_values_push_bytes(v, p, len) ? ig_err(f->err, -ENOMEM, "out of memory") : 0;
    }
    uint64_t raw = c->vals.lanes[vi], lane = raw;
    int32_t s32 = (int32_t)(uint32_t)raw;
    switch (conv) {
    case CV_S32: lane = (uint64_t)(int64_t)s32; break;
    case CV_S16:
    case CV_S8:
        if (conv == CV_S16 ? s32 < -32768 || s32 > 32767 : s32 < -128 || s32 > 127)
            return row_error(f, leaf, "a value outside its INTEGER width", NULL);
        lane = (uint64_t)(int64_t)s32;
        break;
    case CV_U16:
    case CV_U8:
        if (raw > (conv == CV_U16 ? 65535u : 255u)) return row_error(f, leaf, "a value outside its INTEGER width", NULL);
        break;
    case CV_DEC32: return push_decimal(f, leaf, v, s32);
    case CV_DEC64: return push_decimal(f, leaf, v, (int64_t)raw);
    default: break;
    }
    return push_lane(f, leaf, v, lane);
}

/* Values [vi, vi + k) of leaf l, none NULL, in one copy: numbers that need no
 * conversion but an int32's sign, strings (checked to be UTF-8 together) and
 * binary values. False (nothing pushed) for any other conversion, or a
 * string that is not UTF-8 (the caller goes value by value and names it). */
static bool push_run(struct feed *f, uint32_t l, struct ig_values *v, struct pq_column *c, size_t vi,
                     size_t k, int *rc)
{
    uint8_t conv = f->pq->conv[l];
    if (vi + k > c->vals.n) return false;
    /* rows of empty lists only: no values, and a column that has none has no
     * lanes or offsets to point into either */
    if (k == 0) {
        *rc = 0;
        return true;
    }
    if (!c->vals.is_bytes) {
        if (conv != CV_RAW && conv != CV_S32 && conv != CV_U32) return false;
        uint64_t *lanes = c->vals.lanes + vi;
        for (size_t i = 0; conv == CV_S32 && i < k; i++) /* each value is read once */
            lanes[i] = (uint64_t)(int64_t)(int32_t)(uint32_t)lanes[i];
        const struct ig_widen *w = &f->pq->widen[l];
        if (w->op != IG_WIDEN_NONE) {
            /* all or none: a value refused is named row by row, from lanes
             * as they were (the sign extension above gives them again) */
            uint64_t out;
            for (size_t i = 0; !w->exact && i < k; i++)
                if (!ig_widen_lane(w, lanes[i], &out)) return false;
            for (size_t i = 0; i < k; i++) (void)ig_widen_lane(w, lanes[i], &lanes[i]);
        }
        *rc = ig_values_push_lanes(v, lanes, k) ? ig_err(f->err, -ENOMEM, "out of memory") : 0;
        return true;
    }
    if (conv != CV_STRING && conv != CV_BINARY) return false;
    const uint64_t *offs = c->vals.offs + vi;
    const uint8_t *base = c->vals.data.data ? c->vals.data.data : (const uint8_t *)"";
    if (conv == CV_STRING) {
        /* the strings together are UTF-8 and none begins inside a character:
         * then each is UTF-8 */
        if (!ig_utf8_valid(base + offs[0], offs[k] - offs[0])) return false;
        for (size_t i = 0; i < k; i++)
            if (offs[i] < offs[k] && (base[offs[i]] & 0xC0) == 0x80) return false;
    }
    *rc = ig_values_push_bytes_run(v, offs, base, k) ? ig_err(f->err, -ENOMEM, "out of memory") : 0;
    return true;
}

/* Rows [r0, r0 + n) of a nested leaf l in one pass: their levels copied,
 * their values in one run. False (nothing taken) when the levels run out
 * before n rows, or push_run declines the values. */
static bool feed_level_rows(struct feed *f, uint32_t l, struct ig_values *v, struct pq_column *c, uint64_t n,
                            size_t *cur, size_t *vcur, int *rc)
{
    const struct pq_meta *m = &f->pq->m;
    uint8_t max_def = m->nodes[m->leaves[l]].max_def;
    if (!c->defs || v->per_value > 1 || *cur >= c->nlevels || (c->reps && c->reps[*cur] != 0)) return false;
    size_t e = *cur, k = 0;
    for (uint64_t r = 0; r < n; r++) {
        if (e >= c->nlevels) return false;
        k += c->defs[e] == max_def;
        e++;
        while (c->reps && e < c->nlevels && c->reps[e] != 0)
            k += c->defs[e++] == max_def;
    }
    if (*vcur + k > c->vals.n) return false;
    const uint8_t *defs = c->defs + *cur;
    if (!f->same[l]) { /* counted as the table's leaf counts them */
        if (ig_buf_reserve(f->defs, e - *cur)) {
            *rc = ig_err(f->err, -ENOMEM, "out of memory");
            return true;
        }
        uint8_t *d = f->defs->data, bad = 0;
        for (size_t i = 0; i < e - *cur; i++) bad |= (d[i] = f->dmap[l][defs[i]]) == IG_DEF_NULL;
        if (bad) return false; /* row by row, to name the row */
        defs = d;
    }
    size_t rows = v->rows, nent = v->nent, vals = v->n;
    if (ig_values_push_level_rows(v, c->reps ? c->reps + *cur : NULL, defs, e - *cur, f->dmap[l][max_def])) {
        *rc = ig_err(f->err, -ENOMEM, "out of memory");
        return true;
    }
    if (!push_run(f, l, v, c, *vcur, k, rc)) {
        v->rows = rows; /* undone: the caller goes row by row */
        v->nent = nent;
        v->n = vals;
        return false;
    }
    *cur = e;
    *vcur += k;
    return true;
}

/* Rows [r0, r0 + n) of leaf l (its entries from *cur, its values from *vcur)
 * into the writer's column v. Flat values none of them NULL, and nested
 * leaves, in bulk where their conversion allows (push_run); any other row by
 * row. */
static int feed_rows(struct feed *f, uint32_t l, struct ig_values *v, struct pq_column *c, uint64_t r0,
                     uint64_t n, size_t *cur, size_t *vcur)
{
    const struct pq_meta *m = &f->pq->m;
    uint8_t max_def = m->nodes[m->leaves[l]].max_def;
    int rc = 0;
    if (v->levels && feed_level_rows(f, l, v, c, n, cur, vcur, &rc)) return rc;
    if (!v->levels && *cur + n <= c->nlevels) {
        bool present = true;
        for (size_t i = 0; max_def && present && i < n; i++)
            present = c->defs[*cur + i] == max_def;
        if (present && push_run(f, l, v, c, *vcur, n, &rc)) {
            *cur += n;
            *vcur += n;
            return rc;
        }
    }
    for (uint64_t r = r0; !rc && r < r0 + n; r++) {
        f->row = r;
        if (*cur >= c->nlevels) return row_error(f, l, "the column ends before the row group's last row", NULL);
        do {
            uint8_t def = max_def ? c->defs[*cur] : 0, tdef = f->dmap[l][def];
            if (tdef == IG_DEF_NULL)
                rc = row_error(f, l, "NULL, where the table's column cannot hold one", NULL);
            else if (v->levels && ig_values_push_entry(v, c->reps ? c->reps[*cur] : 0, tdef))
                rc = ig_err(f->err, -ENOMEM, "out of memory");
            else if (def == max_def) rc = push_value(f, l, v, c, (*vcur)++);
            else if (!v->levels && ig_values_push_null(v)) rc = ig_err(f->err, -ENOMEM, "out of memory");
            (*cur)++;
        } while (!rc && v->levels && *cur < c->nlevels && c->reps && c->reps[*cur] != 0);
        if (!rc && v->levels && ig_values_end_row(v)) rc = ig_err(f->err, -ENOMEM, "out of memory");
    }
    return rc;
}

/* n rows of a derived leaf (struct derived) into v, from the levels of the
 * file's leaf it follows (c: fed already for these rows, so its levels are
 * whole), its entries from *cur. */
static int feed_derived(struct feed *f, const struct derived *d, struct ig_values *v, const struct pq_column *c,
                        uint64_t n, size_t *cur)
{
    const struct pq_meta *m = &f->pq->m;
    uint8_t max_def = m->nodes[m->leaves[d->from]].max_def;
    size_t e = *cur;
    for (uint64_t r = 0; r < n; r++) {
        if (e >= c->nlevels) return ig_err(f->err, -EIO, "%s: the file's levels changed", f->pq->path);
        do {
            uint8_t rep = c->reps ? c->reps[e] : 0, def = f->dmap[d->from][max_def ? c->defs[e] : 0];
            if (rep <= d->rep && ig_values_push_entry(v, rep, def < d->def ? def : d->def))
                return ig_err(f->err, -ENOMEM, "out of memory");
            e++;
        } while (c->reps && e < c->nlevels && c->reps[e] != 0);
        if (ig_values_end_row(v)) return ig_err(f->err, -ENOMEM, "out of memory");
    }
    *cur = e;
    return 0;
}

/* Is any leaf of top-level column `top` fed by the file, or derived from one
 * it feeds (all or none are: map_leaves)? A struct without leaves needs no
 * rows. */
static bool top_fed(const struct ig_schema *s, uint32_t top, const bool *fed)
{
    for (uint32_t n = top; n < s->n && s->cols[n].top == top; n++)
        if (s->cols[n].leaf != IG_SCHEMA_NONE) return fed[s->cols[n].leaf];
    return true;
}

static struct ig_values *writer_leaf(void *w, uint32_t leaf) { return ig_part_writer_column(w, leaf); }

int ig_parquet_write(struct ig_parquet *pq, struct ig_part_writer *w, const struct ig_schema *s,
                     ig_parquet_progress_fn progress, void *progress_ctx,
                     const volatile sig_atomic_t *cancel, struct ig_error *err)
{
    const struct pq_meta *m = &pq->m;
    uint32_t nl = m->nleaves;
    struct pq_column *cols = calloc(nl, sizeof *cols);
    size_t *cur = calloc(nl, sizeof *cur), *vcur = calloc(nl, sizeof *vcur);
    /* the file's leaf l gives the values of s's leaf map[l] (ig_parquet_check_schema); s's
     * leaves no file leaf gives (hidden by the version, or a nullable column
     * the file lacks) get NULL rows */
    uint32_t *map = malloc((nl ? nl : 1) * sizeof *map);
    bool *fed = calloc(s->nleaves ? s->nleaves : 1, sizeof *fed);
    struct ig_schema mine = {0};
    struct pq_scratch scratch = {0};
    int rc = cols && cur && vcur && map && fed ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = ig_parquet_schema(pq, &mine, err);
    if (!rc && mine.nleaves != nl) rc = ig_err(err, -EIO, "%s: the file's schema changed", pq->path);
    struct derived *derived = NULL;
    uint32_t nderived = 0;
    if (!rc) rc = map_leaves(pq, &mine, s, map, &derived, &nderived, err);
    size_t *dcur = rc ? NULL : calloc(nderived ? nderived : 1, sizeof *dcur);
    if (!rc && !dcur) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t k = 0; !rc && k < nderived; k++) fed[derived[k].leaf] = true;
    uint8_t(*dmap)[256] = rc ? NULL : calloc(nl ? nl : 1, sizeof *dmap);
    bool *same = rc ? NULL : calloc(nl ? nl : 1, sizeof *same);
    if (!rc && (!dmap || !same)) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t l = 0; !rc && l < nl; l++) {
        fed[map[l]] = true;
        if (def_map(&mine, mine.leaves[l], s, s->leaves[map[l]], dmap[l], &same[l]))
            rc = ig_err(err, -EINVAL, "%s: the file's schema changed", pq->path); /* checked before */
    }
    ig_schema_free(&mine);
    for (uint32_t l = 0; cols && l < nl; l++) pq_column_init(&cols[l]);
    uint64_t bytes = 0, total_rows = 0;
    struct ig_buf defs = IG_BUF_INIT;
    struct feed f = {.pq = pq, .err = err, .dmap = (const uint8_t(*)[256])dmap, .same = same, .defs = &defs};
    for (uint32_t g = 0; !rc && g < m->ngroups; g++) {
        f.group = g;
        for (uint32_t l = 0; !rc && l < nl; l++) {
            rc = pq_read_chunk(pq->fd, pq->path, m, g, l, &scratch, &cols[l], err);
            bytes += m->groups[g].chunks[l].size;
            cur[l] = vcur[l] = 0;
        }
        for (uint32_t k = 0; k < nderived; k++) dcur[k] = 0;
        /* column by column, as many rows at a time as the writer's row
         * group has room for */
        uint64_t rows = (uint64_t)m->groups[g].num_rows;
        for (uint64_t r = 0; !rc && r < rows;) {
            uint32_t n = ig_part_writer_room(w);
            if (n > rows - r) n = (uint32_t)(rows - r);
            for (uint32_t l = 0; !rc && l < nl; l++)
                rc = feed_rows(&f, l, ig_part_writer_column(w, map[l]), &cols[l], r, n, &cur[l], &vcur[l]);
            for (uint32_t k = 0; !rc && k < nderived; k++)
                rc = feed_derived(&f, &derived[k], ig_part_writer_column(w, derived[k].leaf),
                                  &cols[derived[k].from], n, &dcur[k]);
            for (uint32_t t = 0; !rc && t < s->ntops; t++) /* a column the file lacks has no leaf fed */
                if (!top_fed(s, s->tops[t], fed))
                    rc = ig_stripe_absent(s, s->tops[t], writer_leaf, w, n, err);
            if (!rc) rc = ig_part_writer_end_rows(w, n, err);
            if (!rc && cancel && *cancel) rc = ig_err(err, -EINTR, "%s: interrupted; nothing was written", pq->path);
            if (!rc && progress) progress(progress_ctx, bytes, total_rows + r);
            r += n;
        }
        for (uint32_t l = 0; !rc && l < nl; l++)
            if (cur[l] != cols[l].nlevels || vcur[l] != cols[l].vals.n) {
                f.row = (uint64_t)m->groups[g].num_rows;
                rc = row_error(&f, l, "the column holds more values than the row group has rows", NULL);
            }
        total_rows += (uint64_t)m->groups[g].num_rows;
    }
    if (!rc && progress) progress(progress_ctx, bytes, total_rows);
    for (uint32_t l = 0; cols && l < nl; l++) pq_column_free(&cols[l]);
    free(cols);
    free(cur);
    free(vcur);
    pq_scratch_free(&scratch);
    free(map);
    free(fed);
    free(dmap);
    free(same);
    free(derived);
    free(dcur);
    ig_buf_free(&defs);
    return rc;
}
