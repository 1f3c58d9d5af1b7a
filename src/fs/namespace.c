/* namespace.c - the table of the mount's directories (namespace.h). */
#include "namespace.h"
#include "blobs.h"
#include "plan.h"
#include "session.h"
#include "format/model/names.h"
#include "format/model/types.h"
#include "format/part/versions.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fs_ns_parse_id(const char *name, uint64_t *out)
{
    if (!*name || (name[0] == '0' && name[1])) return false;
    uint64_t v = 0;
    for (const char *p = name; *p; p++) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return true;
}

/* ---- names made from the table ------------------------------------------- */

/* Each lists its k-th name (k from 0, after the directory's fixed names):
 * returns the k found (>= k, skipping holes) or -1 at the end. */
typedef int64_t (*list_fn)(struct fs_session *s, const struct fs_node *dir, int64_t k, char *name,
                           size_t cap, struct fs_node *out);
/* Each looks a name up: 0, or -ENOENT. */
typedef int (*lookup_fn)(struct fs_session *s, const struct fs_node *dir, const char *name,
                         struct fs_node *out);

static uint32_t dir_scope(const struct fs_node *dir)
{
    return dir->kind == FS_K_DIR && dir->dir == FS_D_GROUP ? dir->scope : FS_SCOPE_ALL;
}

/* A column's escaped name (false if too long for a file name: schema.json only). */
static bool column_file_name(struct fs_session *s, uint32_t col, enum fs_view v, char *name,
                             size_t cap)
{
    struct ig_colrec cr;
    char esc[3 * FS_NAME_MAX + 1];
    if (ig_part_column(&s->table.parts[0], col, &cr, NULL)) return false;
    size_t en = fs_escape_name(cr.name, cr.name_len, esc, sizeof esc);
    return en && (size_t)snprintf(name, cap, "%s%s", esc, fs_view_suffix(v)) < cap;
}

/* columns/ and groups/G/: every view of every column, in the order the
 * version shows its columns (k: a position in it, then a view). */
static int64_t list_views(struct fs_session *s, const struct fs_node *dir, int64_t k, char *name,
                          size_t cap, struct fs_node *out)
{
    uint32_t ncols = s->table.parts[0].num_columns, n = s->listed ? s->nlisted : ncols;
    for (int64_t j = k; j < (int64_t)n * FS_V_COUNT; j++) {
        uint32_t col = s->listed ? s->listed[j / FS_V_COUNT] : (uint32_t)(j / FS_V_COUNT);
        enum fs_view v = (enum fs_view)(j % FS_V_COUNT);
        if (v == FS_V_ROWID || col >= ncols || !ig_table_shows(&s->table, col) || !fs_column_has_view(s, col, v))
            continue;
        if (!column_file_name(s, col, v, name, cap)) continue;
        *out = (struct fs_node){.kind = FS_K_VIEW, .view = v, .col = col, .scope = dir_scope(dir)};
        return j;
    }
    return -1;
}

static int lookup_view(struct fs_session *s, const struct fs_node *dir, const char *name,
                       struct fs_node *out)
{
    char col_name[FS_NAME_MAX + 1];
    size_t len;
    enum fs_view view;
    uint32_t col;
    if (!fs_parse_column_file(name, col_name, sizeof col_name, &len, &view) ||
        ig_table_find(&s->table, col_name, len, &col, NULL) ||
        !fs_column_has_view(s, col, view))
        return -ENOENT;
    *out = (struct fs_node){.kind = FS_K_VIEW, .view = view, .col = col, .scope = dir_scope(dir)};
    return 0;
}

/* groups/: G/ */
static int64_t list_groups(struct fs_session *s, const struct fs_node *dir, int64_t k, char *name,
                           size_t cap, struct fs_node *out)
{
    (void)dir;
    if (k >= s->table.num_groups) return -1;
    snprintf(name, cap, "%" PRId64, k);
    *out = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_GROUP, .scope = (uint32_t)k + 1};
    return k;
}

static int lookup_group(struct fs_session *s, const struct fs_node *dir, const char *name,
                        struct fs_node *out)
{
    (void)dir;
    uint64_t id;
    if (!fs_ns_parse_id(name, &id) || id >= s->table.num_groups) return -ENOENT;
    *out = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_GROUP, .scope = (uint32_t)id + 1};
    return 0;
}

/* parquet/, arrow/, jsonl/: G.parquet, G.arrow, G.jsonl */
static int64_t list_group_files(struct fs_session *s, const struct fs_node *dir, int64_t k,
                                char *name, size_t cap, struct fs_node *out)
{
    uint32_t gf = group_file_of(dir->dir);
    if (k >= s->table.num_groups) return -1;
    snprintf(name, cap, "%" PRId64 ".%s", k, group_file_ext(gf));
    *out = (struct fs_node){
        .kind = FS_K_VIEW, .view = FS_V_PARQUET, .col = gf, .scope = (uint32_t)k + 1};
    return k;
}

static int lookup_group_file(struct fs_session *s, const struct fs_node *dir, const char *name,
                             struct fs_node *out)
{
    uint32_t gf = group_file_of(dir->dir);
    const char *dot = strrchr(name, '.');
    char num[24];
    uint64_t id;
    if (!dot || strcmp(dot + 1, group_file_ext(gf)) || (size_t)(dot - name) >= sizeof num)
        return -ENOENT;
    memcpy(num, name, (size_t)(dot - name));
    num[dot - name] = '\0';
    if (!fs_ns_parse_id(num, &id) || id >= s->table.num_groups) return -ENOENT;
    *out = (struct fs_node){
        .kind = FS_K_VIEW, .view = FS_V_PARQUET, .col = gf, .scope = (uint32_t)id + 1};
    return 0;
}

/* rows/: every live row */
static int64_t list_rows(struct fs_session *s, const struct fs_node *dir, int64_t k, char *name,
                         size_t cap, struct fs_node *out)
{
    (void)dir;
    for (uint64_t row = (uint64_t)k; row < s->table.num_rows; row++) {
        uint32_t pi;
        uint64_t local;
        if (ig_table_row(&s->table, row, &pi, &local)) return -1;
        if (ig_part_row_deleted(&s->table.parts[pi], local)) continue;
        snprintf(name, cap, "%" PRIu64, row);
        *out = (struct fs_node){.kind = FS_K_ROW, .row = row};
        return (int64_t)row;
    }
    return -1;
}

static int lookup_row(struct fs_session *s, const struct fs_node *dir, const char *name,
                      struct fs_node *out)
{
    (void)dir;
    uint64_t id;
    if (!fs_ns_parse_id(name, &id) || id >= s->table.num_rows) return -ENOENT;
    *out = (struct fs_node){.kind = FS_K_ROW, .row = id};
    return 0;
}

/* blobs/: COL/ for every blob column */
static int64_t list_blob_columns(struct fs_session *s, const struct fs_node *dir, int64_t k,
                                 char *name, size_t cap, struct fs_node *out)
{
    (void)dir;
    for (; k < s->nblob_cols; k++) {
        if (!column_file_name(s, s->blob_cols[k], FS_V_TEXT, name, cap)) continue;
        *out = (struct fs_node){.kind = FS_K_BLOB_DIR, .blob = (uint32_t)k};
        return k;
    }
    return -1;
}

static int lookup_blob_column(struct fs_session *s, const struct fs_node *dir, const char *name,
                              struct fs_node *out)
{
    (void)dir;
    char esc[FS_NS_NAME_MAX];
    for (uint32_t b = 0; b < s->nblob_cols; b++)
        if (column_file_name(s, s->blob_cols[b], FS_V_TEXT, esc, sizeof esc) &&
            !strcmp(esc, name)) {
            *out = (struct fs_node){.kind = FS_K_BLOB_DIR, .blob = b};
            return 0;
        }
    return -ENOENT;
}

/* Is blob column `ordinal` a list<blob> (its rows are directories)? */
static int blob_column_is_list(struct fs_session *s, uint32_t ordinal, bool *list)
{
    struct ig_colrec cr;
    uint32_t col = fs_blob_column(s, ordinal);
    if (col == UINT32_MAX || ig_part_column(&s->table.parts[0], col, &cr, NULL)) return -ENOENT;
    *list = cr.flags & IG_COLF_REPEATED;
    return 0;
}

/* "ID" or "ID.ext", the extension the object's kind gives */
static void object_name(char *name, size_t cap, uint64_t id, unsigned kind)
{
    const char *ext = ig_blob_kind_ext(kind);
    snprintf(name, cap, "%" PRIu64 "%s%s", id, *ext ? "." : "", ext);
}

/* blobs/COL/: a row's object (ID.ext) or, for list<blob>, its directory (ID) */
static int64_t list_blob_rows(struct fs_session *s, const struct fs_node *dir, int64_t k,
                              char *name, size_t cap, struct fs_node *out)
{
    bool list;
    if (blob_column_is_list(s, dir->blob, &list)) return -1;
    for (uint64_t row = (uint64_t)k; row < s->table.num_rows && row < FS_MAX_BLOB_ROW; row++) {
        const uint8_t *refs;
        uint32_t count;
        struct fs_entry *e;
        if (fs_blob_row(s, dir->blob, row, &refs, &count, &e)) continue; /* erased or NULL */
        if (list) {
            snprintf(name, cap, "%" PRIu64, row);
            *out = (struct fs_node){.kind = FS_K_BLOB_ROW, .blob = dir->blob, .row = row};
        } else {
            struct ig_blob_ref r;
            unsigned kind = 0;
            if (count) ig_blob_ref_load(refs, &r, &kind);
            object_name(name, cap, row, kind);
            *out = (struct fs_node){.kind = FS_K_BLOB, .blob = dir->blob, .row = row};
        }
        fs_cache_release(&s->cache, e);
        return (int64_t)row;
    }
    return -1;
}

/* blobs/COL/ID/: the row's objects, K.ext */
static int64_t list_blob_objects(struct fs_session *s, const struct fs_node *dir, int64_t k,
                                 char *name, size_t cap, struct fs_node *out)
{
    const uint8_t *refs;
    uint32_t count;
    struct fs_entry *e;
    if (fs_blob_row(s, dir->blob, dir->row, &refs, &count, &e)) return -1;
    int64_t found = -1;
    if (k < count && k < (int64_t)FS_MAX_BLOB_K) {
        struct ig_blob_ref r;
        unsigned kind;
        ig_blob_ref_load(refs + (size_t)k * IG_BLOB_REF_BYTES, &r, &kind);
        object_name(name, cap, (uint64_t)k, kind);
        *out = (struct fs_node){
            .kind = FS_K_BLOB, .blob = dir->blob, .row = dir->row, .k = (uint32_t)k};
        found = k;
    }
    fs_cache_release(&s->cache, e);
    return found;
}

/* In blobs/COL/ or blobs/COL/ID/: one canonical name per object. */
static int lookup_blob_item(struct fs_session *s, const struct fs_node *dir, const char *name,
                            struct fs_node *out)
{
    bool list;
    uint64_t id;
    const char *ext;
    if (blob_column_is_list(s, dir->blob, &list) || !fs_blob_parse_name(name, &id, &ext))
        return -ENOENT;
    if (dir->kind == FS_K_BLOB_DIR && list) {
        if (*ext || id >= FS_MAX_BLOB_ROW) return -ENOENT;
        *out = (struct fs_node){.kind = FS_K_BLOB_ROW, .blob = dir->blob, .row = id};
        return 0;
    }
    uint64_t row = dir->kind == FS_K_BLOB_ROW ? dir->row : id;
    uint32_t k = dir->kind == FS_K_BLOB_ROW ? (uint32_t)id : 0;
    if (row >= FS_MAX_BLOB_ROW || (dir->kind == FS_K_BLOB_ROW && id >= FS_MAX_BLOB_K))
        return -ENOENT;
    struct ig_blob_ref r;
    unsigned kind;
    uint32_t part;
    if (fs_blob_object(s, dir->blob, row, k, &r, &kind, &part) ||
        strcmp(ext, ig_blob_kind_ext(kind)))
        return -ENOENT;
    *out = (struct fs_node){.kind = FS_K_BLOB, .blob = dir->blob, .row = row, .k = k};
    return 0;
}

/* versions/: N/ for every version kept (read from the table's .ingot/versions
 * at each call: a commit or `ingot gc` changes them without a reload) */
static int64_t list_versions(struct fs_session *s, const struct fs_node *dir, int64_t k, char *name,
                             size_t cap, struct fs_node *out)
{
    (void)dir;
    uint64_t *v = NULL;
    size_t n = 0;
    int64_t found = -1;
    if (ig_version_list(s->dir, &v, &n, NULL) == 0 && k >= 0 && (uint64_t)k < n && v[k] <= UINT32_MAX) {
        snprintf(name, cap, "%" PRIu64, v[k]);
        *out = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_VERSION, .scope = (uint32_t)v[k]};
        found = k;
    }
    free(v);
    return found;
}

bool fs_ns_version_kept(struct fs_session *s, uint64_t version)
{
    return ig_version_kept(s->dir, version);
}

static int lookup_version(struct fs_session *s, const struct fs_node *dir, const char *name,
                          struct fs_node *out)
{
    (void)dir;
    uint64_t v;
    if (!fs_ns_parse_id(name, &v) || v > UINT32_MAX || !fs_ns_version_kept(s, v)) return -ENOENT;
    *out = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_VERSION, .scope = (uint32_t)v};
    return 0;
}

/* tags/: NAME for every tag, a link to the version it names */
static int64_t list_tags(struct fs_session *s, const struct fs_node *dir, int64_t k, char *name,
                         size_t cap, struct fs_node *out)
{
    (void)dir;
    struct ig_tag *tags = NULL;
    size_t n = 0;
    int64_t found = -1;
    if (ig_tags_load(s->dir, &tags, &n, NULL, NULL) == 0 && k >= 0 && (uint64_t)k < n) {
        snprintf(name, cap, "%s", tags[k].name);
        *out = (struct fs_node){.kind = FS_K_LINK, .row = tags[k].version};
        found = k;
    }
    free(tags);
    return found;
}

static int lookup_tag(struct fs_session *s, const struct fs_node *dir, const char *name,
                      struct fs_node *out)
{
    (void)dir;
    struct ig_tag *tags = NULL;
    size_t n = 0;
    int rc = -ENOENT;
    if (ig_tags_load(s->dir, &tags, &n, NULL, NULL) == 0)
        for (size_t i = 0; i < n && rc; i++)
            if (!strcmp(tags[i].name, name)) {
                *out = (struct fs_node){.kind = FS_K_LINK, .row = tags[i].version};
                rc = 0;
            }
    free(tags);
    return rc;
}

int fs_ns_link_target(const struct fs_node *n, char *out, size_t cap)
{
    if (n->kind != FS_K_LINK) return -EINVAL;
    int len = snprintf(out, cap, "../versions/%" PRIu64, n->row);
    return len < 0 || (size_t)len >= cap ? -ENAMETOOLONG : len;
}

/* ---- the table ------------------------------------------------------------ */

struct fixed_name {
    const char *name;
    struct fs_node node; /* a view's scope is the directory's */
    bool (*present)(struct fs_session *s);
};

static bool has_blobs(struct fs_session *s)
{
    return s->nblob_cols > 0;
}

/* versions/ and tags/: in a mount of the current table (a version's table,
 * shown under versions/N/ or mounted with --version, does not list them) */
static bool has_versions(struct fs_session *s)
{
    return s->version == 0;
}

/* .ingot/erase: where the table can be erased from (not a version's table
 * shown under versions/N/, which is read-only) */
static bool can_erase(struct fs_session *s)
{
    return !s->read_only;
}

static const struct fixed_name root_names[] = {
    {"README", {.kind = FS_K_SPECIAL, .special = FS_S_README}, NULL},
    {"schema.json", {.kind = FS_K_SPECIAL, .special = FS_S_SCHEMA}, NULL},
    {"columns", {.kind = FS_K_DIR, .dir = FS_D_COLUMNS}, NULL},
    {"groups", {.kind = FS_K_DIR, .dir = FS_D_GROUPS}, NULL},
    {"rows", {.kind = FS_K_DIR, .dir = FS_D_ROWS}, NULL},
    {".ingot", {.kind = FS_K_DIR, .dir = FS_D_CONTROL}, NULL},
    {"parquet", {.kind = FS_K_DIR, .dir = FS_D_PARQUET}, NULL},
    {"arrow", {.kind = FS_K_DIR, .dir = FS_D_ARROW}, NULL},
    {"jsonl", {.kind = FS_K_DIR, .dir = FS_D_JSONL}, NULL},
    {"blobs", {.kind = FS_K_DIR, .dir = FS_D_BLOBS}, has_blobs},
    {"versions", {.kind = FS_K_DIR, .dir = FS_D_VERSIONS}, has_versions},
    {"tags", {.kind = FS_K_DIR, .dir = FS_D_TAGS}, has_versions},
};

static const struct fixed_name control_names[] = {
    {"erase", {.kind = FS_K_SPECIAL, .special = FS_S_ERASE}, can_erase},
    {"erasures", {.kind = FS_K_SPECIAL, .special = FS_S_ERASURES}, NULL},
    {"generation", {.kind = FS_K_SPECIAL, .special = FS_S_GENERATION}, NULL},
};

static const struct fixed_name view_names[] = {
    {"_rowid.npy", {.kind = FS_K_VIEW, .view = FS_V_ROWID}, NULL},
};

struct dir_class {
    const struct fixed_name *fixed;
    uint32_t nfixed;
    list_fn list; /* names made from the table, after the fixed ones (NULL: none) */
    lookup_fn lookup;
};

#define FIXED(a) a, (uint32_t)(sizeof a / sizeof a[0])

static const struct dir_class root_class = {FIXED(root_names), NULL, NULL};
static const struct dir_class control_class = {FIXED(control_names), NULL, NULL};
static const struct dir_class views_class = {FIXED(view_names), list_views, lookup_view};
static const struct dir_class groups_class = {NULL, 0, list_groups, lookup_group};
static const struct dir_class group_files_class = {NULL, 0, list_group_files, lookup_group_file};
static const struct dir_class rows_class = {NULL, 0, list_rows, lookup_row};
static const struct dir_class blob_columns_class = {NULL, 0, list_blob_columns, lookup_blob_column};
static const struct dir_class blob_rows_class = {NULL, 0, list_blob_rows, lookup_blob_item};
static const struct dir_class blob_objects_class = {NULL, 0, list_blob_objects, lookup_blob_item};
static const struct dir_class versions_class = {NULL, 0, list_versions, lookup_version};
static const struct dir_class tags_class = {NULL, 0, list_tags, lookup_tag};

/* The class of directory node d, or NULL if d is no directory. */
static const struct dir_class *class_of(const struct fs_node *d)
{
    switch (d->kind) {
    case FS_K_ROOT:
        return &root_class;
    case FS_K_BLOB_DIR:
        return &blob_rows_class;
    case FS_K_BLOB_ROW:
        return &blob_objects_class;
    case FS_K_DIR:
        break;
    default:
        return NULL;
    }
    switch (d->dir) {
    case FS_D_COLUMNS:
    case FS_D_GROUP:
        return &views_class;
    case FS_D_GROUPS:
        return &groups_class;
    case FS_D_ROWS:
        return &rows_class;
    case FS_D_CONTROL:
        return &control_class;
    case FS_D_BLOBS:
        return &blob_columns_class;
    case FS_D_PARQUET:
    case FS_D_ARROW:
    case FS_D_JSONL:
        return &group_files_class;
    case FS_D_VERSIONS:
        return &versions_class;
    case FS_D_TAGS:
        return &tags_class;
    default: /* FS_D_VERSION: its table is another session's (subtables.h) */
        return NULL;
    }
}

bool fs_ns_dir_exists(struct fs_session *s, const struct fs_node *n)
{
    if (n->kind == FS_K_ROOT) return true;
    if (n->kind == FS_K_DIR && n->dir == FS_D_VERSION) return has_versions(s) && fs_ns_version_kept(s, n->scope);
    if (n->kind == FS_K_DIR && (n->dir == FS_D_VERSIONS || n->dir == FS_D_TAGS)) return has_versions(s);
    if (n->kind != FS_K_DIR || !class_of(n)) return false;
    if (n->dir == FS_D_GROUP) return n->scope >= 1 && n->scope - 1 < s->table.num_groups;
    if (n->dir == FS_D_BLOBS) return has_blobs(s);
    return true;
}

static struct fs_node fixed_node(const struct fixed_name *f, const struct fs_node *dir)
{
    struct fs_node n = f->node;
    if (n.kind == FS_K_VIEW) n.scope = dir_scope(dir);
    return n;
}

int fs_ns_lookup(struct fs_session *s, const struct fs_node *dir, const char *name,
                 struct fs_node *out)
{
    *out = (struct fs_node){0};
    const struct dir_class *c = class_of(dir);
    /* blob directories exist as their objects do (the lookup checks) */
    if (!c || (dir->kind == FS_K_DIR && !fs_ns_dir_exists(s, dir))) return -ENOENT;
    for (uint32_t i = 0; i < c->nfixed; i++)
        if (!strcmp(name, c->fixed[i].name)) {
            if (c->fixed[i].present && !c->fixed[i].present(s)) return -ENOENT;
            *out = fixed_node(&c->fixed[i], dir);
            return 0;
        }
    return c->lookup ? c->lookup(s, dir, name, out) : -ENOENT;
}

int64_t fs_ns_entry(struct fs_session *s, const struct fs_node *dir, int64_t idx, char *name,
                    size_t cap, struct fs_node *out)
{
    if (idx == 0 || idx == 1) {
        snprintf(name, cap, idx ? ".." : ".");
        *out = idx ? (struct fs_node){.kind = FS_K_ROOT} : *dir;
        return idx;
    }
    const struct dir_class *c = class_of(dir);
    if (!c) return -1;
    for (int64_t k = idx - 2; k < c->nfixed; k++) {
        const struct fixed_name *f = &c->fixed[k];
        if (f->present && !f->present(s)) continue;
        snprintf(name, cap, "%s", f->name);
        *out = fixed_node(f, dir);
        return k + 2;
    }
    if (!c->list) return -1;
    int64_t from = idx - 2 - c->nfixed;
    int64_t found = c->list(s, dir, from < 0 ? 0 : from, name, cap, out);
    return found < 0 ? -1 : found + 2 + c->nfixed;
}

/* A fixed name's place: the directory whose table holds a node like n. */
static bool fixed_place(const struct fixed_name *names, uint32_t n, const struct fs_node *node,
                        uint64_t dir_ino, uint64_t *parent, char *name, size_t cap)
{
    for (uint32_t i = 0; i < n; i++)
        if (names[i].node.kind == node->kind && names[i].node.special == node->special) {
            *parent = dir_ino;
            return (size_t)snprintf(name, cap, "%s", names[i].name) < cap;
        }
    return false;
}

bool fs_ns_place(struct fs_session *s, const struct fs_node *n, uint64_t *parent, char *name,
                 size_t cap)
{
    switch (n->kind) {
    case FS_K_VIEW:
        if (n->view == FS_V_PARQUET) {
            if (n->col > FS_GF_JSONL) return false;
            *parent = fs_ino_dir(group_file_dir(n->col), 0);
            return (size_t)snprintf(name, cap, "%u.%s", n->scope - 1, group_file_ext(n->col)) < cap;
        }
        *parent = n->scope == FS_SCOPE_ALL ? fs_ino_dir(FS_D_COLUMNS, 0)
                                           : fs_ino_dir(FS_D_GROUP, n->scope);
        if (n->view == FS_V_ROWID)
            return (size_t)snprintf(name, cap, "%s", view_names[0].name) < cap;
        return column_file_name(s, n->col, (enum fs_view)n->view, name, cap);
    case FS_K_SPECIAL:
        return fixed_place(FIXED(root_names), n, FS_ROOT_INO, parent, name, cap) ||
               fixed_place(FIXED(control_names), n, fs_ino_dir(FS_D_CONTROL, 0), parent, name, cap);
    case FS_K_ROW:
        *parent = fs_ino_dir(FS_D_ROWS, 0);
        return (size_t)snprintf(name, cap, "%" PRIu64, n->row) < cap;
    default:
        return false;
    }
}
