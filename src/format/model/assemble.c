#include "format/model/assemble.h"
#include "format/model/render.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- trees ----------------------------------------------------------------- */

int ig_tree_init(struct ig_tree *t, uint32_t n)
{
    memset(t, 0, sizeof *t);
    t->nodes = calloc(n ? n : 1, sizeof *t->nodes);
    t->leaf_global = calloc(n ? n : 1, sizeof *t->leaf_global);
    return t->nodes && t->leaf_global ? 0 : -ENOMEM;
}

void ig_tree_free(struct ig_tree *t)
{
    free(t->nodes);
    free(t->leaf_global);
    memset(t, 0, sizeof *t);
}

/* Leaf ordinals and first/last leaf below each node (pre-order makes subtrees
 * contiguous, so a node's leaves are [first_leaf, leaf_end)). */
void ig_tree_finish(struct ig_tree *t)
{
    uint32_t next = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        struct ig_tree_node *nd = &t->nodes[i];
        nd->first_leaf = next;
        nd->leaf = nd->type == IG_T_STRUCT ? UINT32_MAX : next++;
    }
    t->nleaves = next;
    for (uint32_t i = t->n; i-- > 0;) {
        struct ig_tree_node *nd = &t->nodes[i];
        if (nd->leaf != UINT32_MAX) nd->leaf_end = nd->leaf + 1;
        if (nd->parent != UINT32_MAX && nd->leaf_end > t->nodes[nd->parent].leaf_end)
            t->nodes[nd->parent].leaf_end = nd->leaf_end;
    }
    for (uint32_t i = 0; i < t->n; i++)
        if (t->nodes[i].leaf_end < t->nodes[i].first_leaf) t->nodes[i].leaf_end = t->nodes[i].first_leaf;
}

int ig_tree_from_schema(const struct ig_schema *s, uint32_t top, uint32_t only,
                        struct ig_tree *t, struct ig_error *err)
{
    uint32_t end = top + 1;
    while (end < s->n && s->cols[end].top == top) end++;
    if (ig_tree_init(t, end - top)) return ig_err(err, -ENOMEM, "out of memory");
    uint32_t *local = calloc(end - top, sizeof *local);
    if (!local) {
        ig_tree_free(t);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    for (uint32_t i = top; i < end; i++) {
        const struct ig_column_def *c = &s->cols[i];
        local[i - top] = UINT32_MAX;
        if (only != UINT32_MAX) {
            /* keep the path to `only` and everything below it */
            bool keep = false;
            for (uint32_t k = only; k != IG_SCHEMA_NONE && !keep; k = s->cols[k].parent)
                keep = k == i;
            for (uint32_t k = i; k != IG_SCHEMA_NONE && !keep; k = s->cols[k].parent)
                keep = k == only;
            if (!keep) continue;
        }
        struct ig_tree_node *nd = &t->nodes[t->n];
        size_t fl;
        nd->field = ig_schema_field_name(s, i, &fl);
        nd->field_len = fl;
        nd->type = c->type;
        nd->lists = c->lists;
        nd->null_mask = c->null_mask;
        nd->max_def = c->max_def;
        nd->quantize = c->quantize;
        nd->dimension = c->dimension;
        nd->parent = c->parent == IG_SCHEMA_NONE || i == top ? UINT32_MAX : local[c->parent - top];
        if (c->type != IG_T_STRUCT) t->leaf_global[t->nleaves++] = c->leaf;
        local[i - top] = t->n++;
    }
    free(local);
    ig_tree_finish(t);
    return 0;
}

/* ---- reassembly -------------------------------------------------------------- */

struct asm_ctx {
    const struct ig_tree *t;
    struct ig_values *const *leaves;
    size_t *e, *val, *end;
    struct ig_buf *out;
    struct ig_error *err;
    bool measure;      /* only the length is wanted: numbers are counted, not written */
    bool values_known; /* measuring, the values' lengths are known: count only the rest */
    uint64_t measured; /* bytes counted and not written */
    /* each node's field name as a JSON string, rendered at its first use
     * into `names` (at name_at, its length + 1 in name_len; 0: not yet), so
     * that a name costs a copy (or, measuring, an add) in every row after;
     * name_len NULL: names rendered each time (one row) */
    uint32_t *name_len, *name_at;
    struct ig_buf names;
};

/* Text that is the same in every row (brackets, commas, null): written, or
 * only counted when measuring. */
static int put(struct asm_ctx *a, const char *s, size_t n)
{
    if (a->measure) {
        a->measured += n;
        return 0;
    }
    return ig_buf_append(a->out, s, n);
}

/* Node c's field name as a JSON string: written, or counted. */
static int put_name(struct asm_ctx *a, uint32_t c)
{
    const struct ig_tree_node *nd = &a->t->nodes[c];
    if (!a->name_len) return ig_render_json_string(a->out, (const uint8_t *)nd->field, nd->field_len);
    if (!a->name_len[c]) {
        size_t at = a->names.len;
        int rc = ig_render_json_string(&a->names, (const uint8_t *)nd->field, nd->field_len);
        if (rc) return rc;
        a->name_at[c] = (uint32_t)at;
        a->name_len[c] = (uint32_t)(a->names.len - at) + 1;
    }
    if (a->measure) {
        a->measured += a->name_len[c] - 1;
        return 0;
    }
    return ig_buf_append(a->out, a->names.data + a->name_at[c], a->name_len[c] - 1);
}

static int bad(struct asm_ctx *a)
{
    return ig_err(a->err, -EIO, "nested levels are inconsistent");
}

/* A null or empty node: one entry of every leaf below it. */
static int consume(struct asm_ctx *a, const struct ig_tree_node *nd)
{
    for (uint32_t l = nd->first_leaf; l < nd->leaf_end; l++) {
        if (a->e[l] >= a->end[l]) return bad(a);
        a->e[l]++;
    }
    return 0;
}

static int leaf_value(struct asm_ctx *a, const struct ig_tree_node *nd)
{
    uint32_t l = nd->leaf;
    struct ig_values *v = a->leaves[l];
    uint32_t per = v->per_value ? v->per_value : 1;
    if (a->val[l] + per > v->n) return bad(a);
    int rc = 0;
    uint64_t run = 0;
    if (a->measure && (a->values_known || ig_render_json_len_run(v, a->val[l], per, &run))) {
        /* numbers: their lengths, the commas and the brackets */
        a->measured += run + (per - 1) + (nd->dimension ? 2 : 0);
        a->val[l] += per;
        a->e[l]++;
        return 0;
    }
    if (nd->dimension) rc = ig_buf_append_byte(a->out, '[');
    for (uint32_t k = 0; k < per && !rc; k++) {
        size_t n;
        if (a->measure && ig_render_json_len(v, a->val[l] + k, &n)) {
            a->measured += n + (k > 0);
            continue;
        }
        if (k) rc = ig_buf_append_byte(a->out, ',');
        if (!rc) rc = ig_render_json_value(a->out, v, a->val[l] + k);
    }
    if (!rc && nd->dimension) rc = ig_buf_append_byte(a->out, ']');
    a->val[l] += per;
    a->e[l]++;
    return rc ? ig_err(a->err, rc, "out of memory") : 0;
}

/* Measuring, a list of numbers none of whose elements is NULL (a sparse
 * feature's list<int64>): its length in one call over its values, "[", the
 * numbers and their commas, "]". False (nothing consumed) when an element is
 * NULL or not a number: the caller walks it element by element. */
static bool measure_list(struct asm_ctx *a, const struct ig_tree_node *nd, unsigned depth)
{
    uint32_t l = nd->leaf;
    const struct ig_values *v = a->leaves[l];
    size_t e = a->e[l], end = a->end[l], k = 0;
    for (; e + k < end && (k == 0 || v->reps[e + k] == depth + 1); k++)
        if (v->defs[e + k] != nd->max_def) return false;
    uint64_t run = 0;
    if (a->val[l] + k > v->n || (!a->values_known && !ig_render_json_len_run(v, a->val[l], k, &run)))
        return false;
    a->measured += 2 + run + (k - 1);
    a->e[l] += k;
    a->val[l] += k;
    return true;
}

static int asm_node(struct asm_ctx *a, uint32_t ni, unsigned j, unsigned def, unsigned depth)
{
    const struct ig_tree_node *nd = &a->t->nodes[ni];
    uint32_t l0 = nd->first_leaf;
    if (l0 >= nd->leaf_end || a->e[l0] >= a->end[l0]) return bad(a);
    unsigned d = a->leaves[l0]->defs[a->e[l0]];
    int rc;
    if ((nd->null_mask >> j) & 1) {
        if (d < def + 1) {
            rc = consume(a, nd);
            return rc ? rc : put(a, "null", 4);
        }
        def++;
    }
    if (j < nd->lists) {
        if (d < def + 1) {
            rc = consume(a, nd);
            return rc ? rc : put(a, "[]", 2);
        }
        if (a->measure && j + 1 == nd->lists && nd->type != IG_T_STRUCT && !nd->dimension &&
            measure_list(a, nd, depth))
            return 0;
        if ((rc = put(a, "[", 1))) return rc;
        for (bool first = true;; first = false) {
            if (!first && (rc = put(a, ",", 1))) return rc;
            if ((rc = asm_node(a, ni, j + 1, def + 1, depth + 1))) return rc;
            if (a->e[l0] >= a->end[l0] || a->leaves[l0]->reps[a->e[l0]] != depth + 1) break;
        }
        return put(a, "]", 1);
    }
    if (nd->type != IG_T_STRUCT) {
        if (d != nd->max_def) return bad(a);
        return leaf_value(a, nd);
    }
    if ((rc = put(a, "{", 1))) return rc;
    bool first = true;
    for (uint32_t c = ni + 1; c < a->t->n; c++) {
        if (a->t->nodes[c].parent != ni) continue;
        if (!first && (rc = put(a, ",", 1))) return rc;
        first = false;
        if ((rc = put_name(a, c))) return rc;
        if ((rc = put(a, ":", 1))) return rc;
        if ((rc = asm_node(a, c, 0, def, depth))) return rc;
    }
    return put(a, "}", 1);
}

static int asm_one(struct asm_ctx *a, size_t row)
{
    for (uint32_t l = 0; l < a->t->nleaves; l++) {
        const struct ig_values *v = a->leaves[l];
        if (row >= v->rows || !v->row_ent) return bad(a);
        a->e[l] = v->row_ent[row];
        a->end[l] = v->row_ent[row + 1];
        a->val[l] = v->row_val[row];
    }
    int rc = asm_node(a, 0, 0, 0, 0);
    if (rc) return rc;
    for (uint32_t l = 0; l < a->t->nleaves; l++)
        if (a->e[l] != a->end[l]) return bad(a);
    return 0;
}

static int ctx_init(struct asm_ctx *a, const struct ig_tree *t, struct ig_values *const *leaves,
                    struct ig_buf *out, struct ig_error *err)
{
    *a = (struct asm_ctx){.t = t, .leaves = leaves, .out = out, .err = err};
    a->e = calloc(3 * (size_t)(t->nleaves ? t->nleaves : 1), sizeof *a->e);
    if (!a->e) return ig_err(err, -ENOMEM, "out of memory");
    a->val = a->e + t->nleaves;
    a->end = a->val + t->nleaves;
    return 0;
}

int ig_assemble_row(const struct ig_tree *t, struct ig_values *const *leaves, size_t row,
                    struct ig_buf *out, struct ig_error *err)
{
    struct asm_ctx a;
    int rc = ctx_init(&a, t, leaves, out, err);
    if (!rc) rc = asm_one(&a, row);
    free(a.e);
    return rc;
}

/* Does every row of rows [0, rows) have the same shape (no list, and nothing
 * NULL: either nothing may be, or every leaf's entries are defined to the
 * leaf, as in a Parquet file's optional struct that holds no NULL): its rows'
 * text differing only in the values? */
static bool fixed_shape(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->nodes[i].lists) return false;
    for (uint32_t i = 0; i < t->n; i++) {
        const struct ig_tree_node *nd = &t->nodes[i];
        if (nd->type == IG_T_STRUCT || !nd->max_def) continue;
        const struct ig_values *v = leaves[nd->leaf];
        if (!v->levels || !v->defs || !v->row_ent || v->rows < rows) return false;
        for (size_t e = v->row_ent[0]; e < v->row_ent[rows]; e++)
            if (v->defs[e] != nd->max_def) return false;
    }
    return true;
}

/* Measuring rows [0, rows) of a fixed-shape tree: one row's brackets, commas
 * and names counted once for all of them, and the leaves' values measured a
 * leaf at a time (or known). False when a leaf's values are not numbers
 * measured in runs (strings, objects): the rows are walked one by one. */
static bool measure_fixed(struct asm_ctx *a, size_t rows, uint64_t *len)
{
    uint64_t values = 0;
    for (uint32_t l = 0; !a->values_known && l < a->t->nleaves; l++) {
        const struct ig_values *v = a->leaves[l];
        uint64_t run;
        if (!v->row_val || v->rows < rows || v->row_val[rows] > v->n ||
            !ig_render_json_len_run(v, v->row_val[0], v->row_val[rows] - v->row_val[0], &run))
            return false;
        values += run;
    }
    bool known = a->values_known;
    uint64_t before = a->measured;
    a->values_known = true; /* row 0's shape alone */
    int rc = asm_one(a, 0);
    if (!rc) rc = put(a, "\n", 1);
    a->values_known = known;
    if (rc) {
        a->measured = before;
        return false;
    }
    *len = (a->measured - before) * rows + values;
    a->measured = before;
    return true;
}

/* Measuring rows [0, rows) of a column that is one list of numbers (a
 * sparse feature's list<int64>): one pass over its levels, "null" for a NULL
 * list or element, "[]" for an empty one, brackets and commas around the
 * values, whose lengths are known or measured in one run. False when the
 * column is of another shape or a value is not a number: the rows are walked
 * one by one. */
static bool measure_one_list(const struct asm_ctx *a, size_t rows, uint64_t *len)
{
    const struct ig_tree *t = a->t;
    if (t->n != 1 || t->nodes[0].lists != 1 || t->nodes[0].type == IG_T_STRUCT || t->nodes[0].dimension)
        return false;
    const struct ig_tree_node *nd = &t->nodes[0];
    const struct ig_values *v = a->leaves[0];
    if (!v->levels || !v->defs || !v->reps || !v->row_ent || v->rows < rows || (v->per_value && v->per_value != 1))
        return false;
    size_t e0 = v->row_ent[0], e1 = v->row_ent[rows], v0 = v->row_val[0], v1 = v->row_val[rows];
    if (v1 > v->n) return false;
    uint64_t values = 0;
    if (!a->values_known && !ig_render_json_len_run(v, v0, v1 - v0, &values)) return false;
    /* definition levels: below `present` the list is NULL, below `filled` it
     * is empty, below max_def its element is NULL */
    unsigned present = nd->null_mask & 1, filled = present + 1, max_def = nd->max_def;
    uint64_t structure = rows; /* the newlines */
    size_t defined = 0;
    unsigned bad = 0;
    const uint8_t *reps = v->reps, *defs = v->defs;
    /* without branches (the compiler vectorises it): an entry that starts a
     * row adds "null", "[]" or the brackets around its elements, any other
     * the comma before its element; an element is a value or a NULL ("null") */
    for (size_t e = e0; e < e1; e++) {
        unsigned d = defs[e], row = reps[e] == 0, elem = d >= filled;
        structure += row ? (d < present ? 4u : 2u) : 1u;
        defined += elem & (d == max_def);
        structure += 4u * (elem & (d != max_def));
        /* past the column's levels, or an element of a list that has none */
        bad |= (d > max_def) | (reps[e] > 1) | (!row & !elem);
    }
    if (bad || defined != v1 - v0) return false;
    *len = structure + values;
    return true;
}

/* Measuring any tree by its leaves' levels alone, entry by entry with two
 * table lookups, where the walk (asm_one) calls itself for every node of
 * every row: the text around the values belongs to the nodes, and each
 * node's is counted from the entries of its first leaf, which meets every
 * instance of it once (Dremel). On a leaf's path from the top, its nodes'
 * definition slots (a level that may be NULL, a list with elements) come in
 * order, and between them the containers: a list's brackets, a struct's
 * braces with its fields' names, colons and commas. An entry of definition
 * level d stands for the containers before slot d + 1 and ends there:
 * "null" where that slot may be NULL, "[]" where it is a list, else the
 * value. Of those containers it opens the ones below its repetition level r
 * (a comma first when r > 0: the next item of list r), and closes the ones
 * below the next entry's (0 at a row's end). False (nothing counted) where
 * the levels do not fit the tree, or a leaf is a vector: the walk then says
 * what is wrong, or measures. */
struct level_table {
    unsigned max_def, max_rep;
    uint32_t *open, *close; /* [d * (max_rep + 1) + r]: the containers' text (cells of them) */
    size_t cells;
    uint32_t end[256];      /* [d]: "null", "[]" or 0 (the value) */
    uint32_t comma[256];    /* [r]: 1 where list r is this leaf's to count */
    uint8_t least[256];     /* [r]: the least definition level inside list r */
};

/* The level table of the leaf at tree node `node`: its path's slots and
 * containers. */
static bool level_table(const struct ig_tree *t, uint32_t node, struct ig_buf *names, struct level_table *lt)
{
    uint32_t path[256], depth = 0, li = t->nodes[node].leaf;
    for (uint32_t k = node; k != UINT32_MAX; k = t->nodes[k].parent) {
        if (depth == 256) return false;
        path[depth++] = k;
    }
    /* the containers in path order: their definition slots passed before
     * them, their repetition depth, their text, whether this leaf counts it */
    struct container {
        unsigned slots, depth;
        uint32_t open, close;
    } cs[256 * 8];
    unsigned nc = 0, slot = 0, lists = 0, d_max = t->nodes[node].max_def;
    uint32_t ends[256];
    bool list_mine[256];
    uint8_t least[256];
    least[0] = 0;
    while (depth--) {
        const struct ig_tree_node *nd = &t->nodes[path[depth]];
        bool mine = nd->first_leaf == li;
        if (nd->dimension || slot + 2 * nd->lists + 1 >= 256 || lists + nd->lists >= 256) return false;
        for (unsigned j = 0; j <= nd->lists; j++) {
            if ((nd->null_mask >> j) & 1) ends[slot++] = mine ? 4 : 0; /* "null" */
            if (j == nd->lists) break;
            ends[slot++] = mine ? 2 : 0; /* "[]" */
            cs[nc++] = (struct container){slot, lists, mine, mine};
            list_mine[++lists] = mine;
            least[lists] = (uint8_t)slot;
        }
        if (nd->type == IG_T_STRUCT) {
            uint32_t text = 2; /* braces, then each field's name, colon and comma */
            for (uint32_t c = path[depth] + 1; mine && c < t->n; c++) {
                if (t->nodes[c].parent != path[depth]) continue;
                ig_buf_reset(names);
                if (ig_render_json_string(names, (const uint8_t *)t->nodes[c].field, t->nodes[c].field_len))
                    return false;
                text += (uint32_t)names->len + 1 + (text > 2);
            }
            cs[nc++] = (struct container){slot, lists, mine ? text - 1 : 0, mine};
        }
    }
    unsigned R = lists;
    if (slot != d_max || (size_t)(d_max + 1) * (R + 1) > lt->cells) return false;
    lt->max_def = d_max;
    lt->max_rep = R;
    for (unsigned d = 0; d <= d_max; d++) {
        lt->end[d] = d < d_max ? ends[d] : 0;
        for (unsigned r = 0; r <= R; r++) {
            uint32_t open = 0, close = 0;
            for (unsigned c = 0; c < nc; c++)
                if (cs[c].slots <= d && cs[c].depth >= r) {
                    open += cs[c].open;
                    close += cs[c].close;
                }
            lt->open[d * (R + 1) + r] = open;
            lt->close[d * (R + 1) + r] = close;
        }
    }
    for (unsigned r = 0; r <= R; r++) {
        lt->comma[r] = r && list_mine[r];
        lt->least[r] = least[r];
    }
    return true;
}

static bool measure_by_levels(struct asm_ctx *a, size_t rows, uint64_t *len)
{
    const struct ig_tree *t = a->t;
    uint64_t total = rows; /* the newlines */
    struct ig_buf names = IG_BUF_INIT;
    struct level_table lt = {0};
    /* room for the deepest leaf's tables, made once: its definition levels
     * by the lists on its path */
    unsigned most_def = 0, most_lists = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        unsigned lists = 0;
        for (uint32_t k = i, guard = 0; k != UINT32_MAX && guard < 256; k = t->nodes[k].parent, guard++)
            lists += t->nodes[k].lists;
        most_def = t->nodes[i].max_def > most_def ? t->nodes[i].max_def : most_def;
        most_lists = lists > most_lists ? lists : most_lists;
    }
    lt.cells = (size_t)(most_def + 1) * (most_lists + 1);
    lt.open = malloc(2 * lt.cells * sizeof *lt.open);
    lt.close = lt.open ? lt.open + lt.cells : NULL;
    bool ok = lt.open != NULL;
    for (uint32_t node = 0; ok && node < t->n; node++) {
        uint32_t li = t->nodes[node].leaf;
        if (li == UINT32_MAX) continue;
        const struct ig_values *v = li < t->nleaves ? a->leaves[li] : NULL;
        if (!v || !v->levels || !v->defs || !v->reps || !v->row_ent || !v->row_val || v->rows < rows ||
            (v->per_value && v->per_value != 1) || !level_table(t, node, &names, &lt)) {
            ok = false;
            break;
        }
        size_t e0 = v->row_ent[0], e1 = v->row_ent[rows], v0 = v->row_val[0], v1 = v->row_val[rows];
        if (e1 < e0 || e1 > v->nent || v1 < v0 || v1 > v->n) {
            ok = false;
            break;
        }
        const uint8_t *reps = v->reps, *defs = v->defs;
        unsigned R1 = lt.max_rep + 1, D = lt.max_def, bad = 0;
        size_t defined = 0, starts = 0;
        uint64_t text = 0;
        for (size_t e = e0; e < e1; e++) {
            unsigned d = defs[e], r = reps[e], next = e + 1 < e1 ? reps[e + 1] : 0;
            bad |= (d > D) | (r > lt.max_rep) | (next > lt.max_rep);
            if (bad) break;
            bad |= r && d < lt.least[r]; /* an item of a list that has none */
            starts += r == 0;
            defined += d == D;
            text += lt.open[d * R1 + r] + lt.end[d] + lt.comma[r] + lt.close[d * R1 + next];
        }
        if (bad || starts != rows || (e1 > e0 && reps[e0] != 0) || defined != v1 - v0) {
            ok = false;
            break;
        }
        total += text;
        if (a->values_known) continue;
        uint64_t run = 0;
        if (ig_render_json_len_run(v, v0, v1 - v0, &run)) {
            total += run;
            continue;
        }
        for (size_t k = v0; ok && k < v1; k++) {
            size_t n;
            if (ig_render_json_len(v, k, &n)) {
                total += n;
                continue;
            }
            ig_buf_reset(&names);
            ok = ig_render_json_value(&names, v, k) == 0;
            total += names.len;
        }
    }
    free(lt.open);
    ig_buf_free(&names);
    if (ok) *len = total;
    return ok;
}

static int assemble_lines(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows,
                          const uint8_t *deleted, struct ig_buf *out, bool values_known,
                          uint64_t *len, struct ig_error *err)
{
    struct ig_buf scratch = IG_BUF_INIT;
    struct asm_ctx a;
    int rc = ctx_init(&a, t, leaves, out ? out : &scratch, err);
    a.measure = !out;
    a.values_known = values_known;
    a.name_len = calloc(2 * (size_t)(t->n ? t->n : 1), sizeof *a.name_len); /* NULL: names rendered each time */
    if (a.name_len) a.name_at = a.name_len + (t->n ? t->n : 1);
    uint64_t total = 0;
    bool fixed = !rc && a.measure && !deleted && rows &&
                 ((fixed_shape(t, leaves, rows) && measure_fixed(&a, rows, &total)) ||
                  measure_one_list(&a, rows, &total) || measure_by_levels(&a, rows, &total));
    for (size_t r = 0; !fixed && r < rows && !rc; r++) {
        if (deleted && ((deleted[r / 8] >> (r % 8)) & 1)) continue;
        size_t before = a.out->len;
        rc = asm_one(&a, r);
        if (!rc) rc = put(&a, "\n", 1);
        total += a.out->len - before;
        if (!out) ig_buf_reset(&scratch);
    }
    if (len) *len = total + a.measured;
    free(a.e);
    free(a.name_len);
    ig_buf_free(&a.names);
    ig_buf_free(&scratch);
    return rc;
}

int ig_assemble_lines(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows,
                      const uint8_t *deleted, struct ig_buf *out, uint64_t *len,
                      struct ig_error *err)
{
    return assemble_lines(t, leaves, rows, deleted, out, false, len, err);
}

int ig_assemble_measure_known(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows,
                              uint64_t values_len, uint64_t *len, struct ig_error *err)
{
    for (uint32_t l = 0; l < t->nleaves; l++)
        if (leaves[l]->is_bytes || leaves[l]->type == IG_T_BLOB || leaves[l]->has_nulls)
            return ig_err(err, -EINVAL, "lengths known only for numbers never NULL");
    uint64_t structure = 0;
    int rc = assemble_lines(t, leaves, rows, NULL, NULL, true, &structure, err);
    if (!rc) *len = structure + values_len;
    return rc;
}
