/* ops.c - FUSE low-level handlers: one reply per request, negative errno.
 *
 * Inodes are computed, not allocated (inode.h), so lookup counts need no
 * bookkeeping and forget only replies. Everything is read-only: requests that
 * would change the tree or a file fail with EROFS. */
#include "ops.h"
#include "attr.h"
#include "blobs.h"
#include "control.h"
#include "fill.h"
#include "invalidate.h"
#include "format/model/names.h"
#include "session.h"
#include "plan.h"
#include "rows.h"
#include "view.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "util/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct fs_session *S(fuse_req_t req) { return fuse_req_userdata(req); }

/* May the caller erase? The mount's owner and root, and with -o erase_group
 * that group's members. The kernel checks the modes shown too
 * (default_permissions); this holds even if it did not. */
static bool may_erase(fuse_req_t req)
{
    struct fs_session *s = S(req);
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    if (ctx->uid == 0 || ctx->uid == s->uid) return true;
    if (s->erase_gid == (gid_t)-1) return false;
    if (ctx->gid == s->erase_gid) return true;
    gid_t groups[256];
    int n = fuse_req_getgroups(req, 256, groups);
    for (int i = 0; i < n && i < 256; i++)
        if (groups[i] == s->erase_gid) return true;
    return false;
}

/* Who asked, for the audit log. */
static void who(fuse_req_t req, int64_t *uid, int64_t *pid)
{
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    *uid = ctx->uid;
    *pid = ctx->pid;
}

/* A request that met a page changing under it (-EAGAIN: a writer at work, see
 * fs_page_failed and fs_file_read) reloads the table, which waits for the
 * writer, and runs again: up to four times, since erases queued one after
 * another (three a second under test_load.sh) can each meet the retry; what
 * still fails is damage (-EIO). Call with the table lock released. */
static bool again(struct fs_session *s, int *rc, int *tries)
{
    if (*rc != -EAGAIN) return false;
    if ((*tries)++ >= 4) {
        *rc = -EIO;
        return false;
    }
    fs_reload_for_handler(s, *tries == 4); /* a handler: it may hold a directory in the kernel */
    return true;
}

/* Canonical decimal (no sign, no leading zeros). */
static bool parse_id(const char *name, uint64_t *out)
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

static int lookup_child_any(struct fs_session *s, const struct fs_node *parent, const char *name,
                            struct fs_node *child);

/* The child called name, as the generation thread `tid` sees (versions.h) when
 * it is a view or generated file; *gen gets that generation. */
static int lookup_child(struct fs_session *s, const struct fs_node *parent, const char *name,
                        uint32_t tid, struct fs_node *child, uint64_t *gen)
{
    int rc = lookup_child_any(s, parent, name, child);
    *gen = s->current.gen;
    if (rc || !fs_node_versioned(child)) return rc;
    /* an older generation only where it can be shown: arrays that keep their
     * shape, and the generation number itself unless view names are cached:
     * then a reader's lookups are mostly of that file, and a burst pinned on
     * it would hold its generation checks still while the files it opens move
     * on (the multi-file recipe would pass files of two generations) */
    struct fs_plan vp;
    bool may_be_old = child->kind == FS_K_SPECIAL
                          ? child->special == FS_S_GENERATION && !atomic_load(&s->view_names_cached)
                          : fs_plan_view(s, child->col, child->view, &vp) &&
                                fs_plan_keeps_shape(&vp, child->view);
    uint64_t where = ig_mix64(fs_ino(parent) ^ ig_hash(name, strlen(name)));
    *gen = fs_version_for_lookup(s, tid, where, may_be_old);
    child->version = fs_version_bits(*gen);
    return 0;
}

static int lookup_child_any(struct fs_session *s, const struct fs_node *parent, const char *name,
                            struct fs_node *child)
{
    *child = (struct fs_node){0};
    if (parent->kind == FS_K_ROOT) {
        if (!strcmp(name, "README")) {
            *child = (struct fs_node){.kind = FS_K_SPECIAL, .special = FS_S_README};
        } else if (!strcmp(name, "schema.json")) {
            *child = (struct fs_node){.kind = FS_K_SPECIAL, .special = FS_S_SCHEMA};
        } else if (!strcmp(name, "columns")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_COLUMNS};
        } else if (!strcmp(name, "groups")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_GROUPS};
        } else if (!strcmp(name, "rows")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_ROWS};
        } else if (!strcmp(name, "parquet")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_PARQUET};
        } else if (!strcmp(name, "arrow")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_ARROW};
        } else if (!strcmp(name, "jsonl")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_JSONL};
        } else if (!strcmp(name, ".ingot")) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_CONTROL};
        } else if (!strcmp(name, "blobs") && s->nblob_cols) {
            *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_BLOBS};
        } else {
            return -ENOENT;
        }
        return 0;
    }
    uint64_t id;
    const char *ext;
    if (parent->kind == FS_K_BLOB_DIR || parent->kind == FS_K_BLOB_ROW) {
        struct ig_colrec cr;
        uint32_t col = fs_blob_column(s, parent->blob);
        if (col == UINT32_MAX || ig_part_column(&s->table.parts[0], col, &cr, NULL)) return -ENOENT;
        bool list = cr.flags & IG_COLF_REPEATED;
        if (!fs_blob_parse_name(name, &id, &ext)) return -ENOENT;
        if (parent->kind == FS_K_BLOB_DIR && list) {
            if (*ext || id >= FS_MAX_BLOB_ROW) return -ENOENT;
            *child = (struct fs_node){.kind = FS_K_BLOB_ROW, .blob = parent->blob, .row = id};
            return 0;
        }
        uint64_t row = parent->kind == FS_K_BLOB_ROW ? parent->row : id;
        uint32_t k = parent->kind == FS_K_BLOB_ROW ? (uint32_t)id : 0;
        if (row >= FS_MAX_BLOB_ROW || (parent->kind == FS_K_BLOB_ROW && id >= FS_MAX_BLOB_K))
            return -ENOENT;
        struct ig_blob_ref r;
        unsigned kind;
        uint32_t part;
        if (fs_blob_object(s, parent->blob, row, k, &r, &kind, &part)) return -ENOENT;
        if (strcmp(ext, ig_blob_kind_ext(kind))) return -ENOENT; /* one canonical name */
        *child = (struct fs_node){.kind = FS_K_BLOB, .blob = parent->blob, .row = row, .k = k};
        return 0;
    }
    if (parent->kind != FS_K_DIR || !fs_dir_exists(s, parent)) return -ENOENT;
    switch (parent->dir) {
    case FS_D_COLUMNS:
    case FS_D_GROUP: {
        uint32_t scope = parent->dir == FS_D_GROUP ? parent->scope : FS_SCOPE_ALL;
        if (!strcmp(name, "_rowid.npy")) {
            *child = (struct fs_node){.kind = FS_K_VIEW, .view = FS_V_ROWID, .scope = scope};
            return 0;
        }
        char col_name[FS_NAME_MAX + 1];
        size_t len;
        enum fs_view view;
        if (!fs_parse_column_file(name, col_name, sizeof col_name, &len, &view)) return -ENOENT;
        uint32_t col;
        if (ig_part_find(&s->table.parts[0], col_name, len, &col, NULL)) return -ENOENT;
        if (!fs_column_has_view(s, col, view)) return -ENOENT;
        *child = (struct fs_node){.kind = FS_K_VIEW, .view = view, .col = col, .scope = scope};
        return 0;
    }
    case FS_D_GROUPS:
        if (!parse_id(name, &id) || id >= s->table.num_groups) return -ENOENT;
        *child = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_GROUP, .scope = (uint32_t)id + 1};
        return 0;
    case FS_D_PARQUET:
    case FS_D_ARROW:
    case FS_D_JSONL: {
        uint32_t gf = group_file_of(parent->dir);
        const char *dot = strrchr(name, '.');
        char num[24];
        if (!dot || strcmp(dot + 1, group_file_ext(gf)) || (size_t)(dot - name) >= sizeof num)
            return -ENOENT;
        memcpy(num, name, (size_t)(dot - name));
        num[dot - name] = '\0';
        if (!parse_id(num, &id) || id >= s->table.num_groups) return -ENOENT;
        *child = (struct fs_node){.kind = FS_K_VIEW, .view = FS_V_PARQUET, .col = gf, .scope = (uint32_t)id + 1};
        return 0;
    }
    case FS_D_ROWS:
        if (!parse_id(name, &id) || id >= s->table.num_rows) return -ENOENT;
        *child = (struct fs_node){.kind = FS_K_ROW, .row = id};
        return 0;
    case FS_D_BLOBS:
        for (uint32_t b = 0; b < s->nblob_cols; b++) {
            struct ig_colrec cr;
            char esc[3 * FS_NAME_MAX + 1];
            if (ig_part_column(&s->table.parts[0], s->blob_cols[b], &cr, NULL)) continue;
            size_t en = fs_escape_name(cr.name, cr.name_len, esc, sizeof esc);
            if (en && !strcmp(esc, name)) {
                *child = (struct fs_node){.kind = FS_K_BLOB_DIR, .blob = b};
                return 0;
            }
        }
        return -ENOENT;
    case FS_D_CONTROL:
        if (!strcmp(name, "erase"))
            *child = (struct fs_node){.kind = FS_K_SPECIAL, .special = FS_S_ERASE};
        else if (!strcmp(name, "erasures"))
            *child = (struct fs_node){.kind = FS_K_SPECIAL, .special = FS_S_ERASURES};
        else if (!strcmp(name, "generation"))
            *child = (struct fs_node){.kind = FS_K_SPECIAL, .special = FS_S_GENERATION};
        else
            return -ENOENT;
        return 0;
    }
    return -ENOENT;
}

/* The entry the kernel gets for node n (attributes filled). Names are cached
 * but those of column views and generated files (inode.h
 * fs_node_name_cached), which are looked up afresh every time (entry timeout
 * 0): a path always reaches the current generation, while a file opened
 * before a change keeps its own inode; the entry's generation is the whole
 * table generation, so an inode number whose version bits wrap never stands
 * for two generations. */
static void entry_times(struct fs_session *s, const struct fs_node *n, uint64_t gen, bool views_cached,
                        struct fuse_entry_param *e)
{
    e->attr_timeout = s->timeout;
    e->entry_timeout = fs_node_name_cached(n) || (views_cached && n->kind == FS_K_VIEW) ? s->timeout : 0;
    e->generation = fs_node_versioned(n) ? gen : 0;
}

/* May the kernel keep this view's name (with view names cached)? Not an
 * array that keeps its shape (.npy of a flat column, .valid.npy, _rowid.npy):
 * its older generation is still served, so a name cached from it could lead a
 * new open there, and np.load's opens of it must each be looked up for its
 * burst to stay on one generation (versions.h). Other views answer ESTALE in
 * an older generation. Caller holds the table lock. */
static bool view_name_cacheable(struct fs_session *s, const struct fs_node *n)
{
    struct fs_plan vp;
    if (n->kind != FS_K_VIEW || n->view == FS_V_ROWID) return false;
    return !(fs_plan_view(s, n->col, (enum fs_view)n->view, &vp) && fs_plan_keeps_shape(&vp, (enum fs_view)n->view));
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fs_session *s = S(req);
    struct fs_node pn, cn;
    struct fuse_entry_param e = {0};
    uint64_t gen = 0;
    uint32_t tid = (uint32_t)fuse_req_ctx(req)->pid;
    int rc, tries = 0;
    uint64_t epoch = fs_view_names_epoch(s);
    bool current = false, cacheable = false;
    do {
        pthread_rwlock_rdlock(&s->table_lock);
        rc = fs_node_of(parent, &pn) ? lookup_child(s, &pn, name, tid, &cn, &gen) : -ENOENT;
        if (!rc && tries == 0) fs_prefetch_node(s, &cn); /* a read usually follows */
        if (!rc) rc = fs_node_stat(s, &cn, &e.attr);
        if (!rc) {
            entry_times(s, &cn, gen, false, &e);
            e.ino = e.attr.st_ino;
            fs_known_add(s, e.ino, 1); /* before a reload can retire this generation */
            current = gen == s->current.gen; /* a burst's older generation: never cached */
            cacheable = view_name_cacheable(s, &cn);
        }
        pthread_rwlock_unlock(&s->table_lock);
    } while (again(s, &rc, &tries));
    if (rc == -ENOENT) {
        /* a cached negative entry: the namespace only ever loses names */
        e = (struct fuse_entry_param){.entry_timeout = s->timeout};
        fuse_reply_entry(req, &e);
        return;
    }
    if (rc) {
        fuse_reply_err(req, -rc);
        return;
    }
    /* a view's name cached only if no reload began since the epoch */
    bool send = cacheable && !fs_node_name_cached(&cn) && current && fs_view_names_send(s, epoch);
    if (send) e.entry_timeout = s->timeout;
    if (fuse_reply_entry(req, &e) != 0) fs_known_forget(s, e.ino, 1);
    else if (fs_node_versioned(&cn) && fs_node_name_cached(&cn)) fs_invalidate_if_moved(s, gen);
    if (send) fs_view_names_sent(s);
}

/* Inodes need no freeing (they are computed), but the kernel's references are
 * counted so an erase knows which cached inodes to invalidate. */
static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    fs_known_forget(S(req), ino, nlookup);
    fs_fill_dropped(S(req), ino);
    fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    for (size_t i = 0; i < count; i++) {
        fs_known_forget(S(req), forgets[i].ino, forgets[i].nlookup);
        fs_fill_dropped(S(req), forgets[i].ino);
    }
    fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;

    struct fs_session *s = S(req);
    struct fs_node n;
    struct stat st;
    int rc, tries = 0;
    do {
        pthread_rwlock_rdlock(&s->table_lock);
        rc = fs_node_of(ino, &n) ? fs_node_stat(s, &n, &st) : -ENOENT;
        pthread_rwlock_unlock(&s->table_lock);
    } while (again(s, &rc, &tries));
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_attr(req, &st, s->timeout);
}

/* Entries of blobs/COL (rows with objects) and blobs/COL/ID (objects). */
static int64_t blob_dir_entry(struct fs_session *s, const struct fs_node *d, int64_t idx,
                              char *name, size_t cap, struct fs_node *n)
{
    uint32_t col = fs_blob_column(s, d->blob);
    struct ig_colrec cr;
    if (col == UINT32_MAX || ig_part_column(&s->table.parts[0], col, &cr, NULL)) return -1;
    bool list = cr.flags & IG_COLF_REPEATED;
    if (d->kind == FS_K_BLOB_ROW) {
        const uint8_t *refs;
        uint32_t count;
        struct fs_entry *e;
        if (fs_blob_row(s, d->blob, d->row, &refs, &count, &e)) return -1;
        int64_t k = idx - 2;
        int64_t found = -1;
        if (k < count && k < (int64_t)FS_MAX_BLOB_K) {
            struct ig_blob_ref r;
            unsigned kind;
            ig_blob_ref_load(refs + (size_t)k * IG_BLOB_REF_BYTES, &r, &kind);
            const char *ext = ig_blob_kind_ext(kind);
            snprintf(name, cap, "%" PRId64 "%s%s", k, *ext ? "." : "", ext);
            *n = (struct fs_node){.kind = FS_K_BLOB, .blob = d->blob, .row = d->row, .k = (uint32_t)k};
            found = idx;
        }
        fs_cache_release(&s->cache, e);
        return found;
    }
    for (uint64_t row = (uint64_t)(idx - 2); row < s->table.num_rows && row < FS_MAX_BLOB_ROW; row++, idx++) {
        const uint8_t *refs;
        uint32_t count;
        struct fs_entry *e;
        if (fs_blob_row(s, d->blob, row, &refs, &count, &e)) continue; /* erased or NULL */
        if (list) {
            snprintf(name, cap, "%" PRIu64, row);
            *n = (struct fs_node){.kind = FS_K_BLOB_ROW, .blob = d->blob, .row = row};
        } else {
            struct ig_blob_ref r;
            unsigned kind = 0;
            if (count) ig_blob_ref_load(refs, &r, &kind);
            const char *ext = ig_blob_kind_ext(kind);
            snprintf(name, cap, "%" PRIu64 "%s%s", row, *ext ? "." : "", ext);
            *n = (struct fs_node){.kind = FS_K_BLOB, .blob = d->blob, .row = row};
        }
        fs_cache_release(&s->cache, e);
        return idx;
    }
    return -1;
}

/* The idx-th entry of a directory (0 ".", 1 ".."), skipping holes. Returns the
 * index found (>= idx) or -1 at the end; fills name and node. */
static int64_t dir_entry(struct fs_session *s, const struct fs_node *d, int64_t idx, char *name,
                         size_t cap, struct fs_node *n)
{
    if (idx == 0 || idx == 1) {
        snprintf(name, cap, idx ? ".." : ".");
        *n = idx ? (struct fs_node){.kind = FS_K_ROOT} : *d;
        return idx;
    }
    int64_t k = idx - 2;
    if (d->kind == FS_K_BLOB_DIR || d->kind == FS_K_BLOB_ROW) return blob_dir_entry(s, d, idx, name, cap, n);
    if (d->kind == FS_K_ROOT) {
        static const char *const names[] = {"README", "schema.json", "columns", "groups", "rows",
                                            ".ingot", "parquet",     "arrow",   "jsonl"};
        static const struct fs_node nodes[] = {
            {.kind = FS_K_SPECIAL, .special = FS_S_README},
            {.kind = FS_K_SPECIAL, .special = FS_S_SCHEMA},
            {.kind = FS_K_DIR, .dir = FS_D_COLUMNS},
            {.kind = FS_K_DIR, .dir = FS_D_GROUPS},
            {.kind = FS_K_DIR, .dir = FS_D_ROWS},
            {.kind = FS_K_DIR, .dir = FS_D_CONTROL},
            {.kind = FS_K_DIR, .dir = FS_D_PARQUET},
            {.kind = FS_K_DIR, .dir = FS_D_ARROW},
            {.kind = FS_K_DIR, .dir = FS_D_JSONL}};
        enum { NFIXED = sizeof nodes / sizeof nodes[0] };
        if (k == NFIXED && s->nblob_cols) {
            snprintf(name, cap, "blobs");
            *n = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_BLOBS};
            return idx;
        }
        if (k >= NFIXED) return -1;
        snprintf(name, cap, "%s", names[k]);
        *n = nodes[k];
        return idx;
    }
    switch (d->dir) {
    case FS_D_COLUMNS:
    case FS_D_GROUP: {
        uint32_t scope = d->dir == FS_D_GROUP ? d->scope : FS_SCOPE_ALL;
        if (k == 0) {
            snprintf(name, cap, "_rowid.npy");
            *n = (struct fs_node){.kind = FS_K_VIEW, .view = FS_V_ROWID, .scope = scope};
            return idx;
        }
        uint32_t ncols = s->table.parts[0].num_columns;
        for (int64_t j = k - 1; j < (int64_t)ncols * FS_V_COUNT; j++, idx++) {
            uint32_t col = (uint32_t)(j / FS_V_COUNT);
            enum fs_view v = (enum fs_view)(j % FS_V_COUNT);
            if (v == FS_V_ROWID || !fs_column_has_view(s, col, v)) continue;
            struct ig_colrec cr;
            if (ig_part_column(&s->table.parts[0], col, &cr, NULL)) continue;
            char esc[3 * FS_NAME_MAX + 1];
            size_t en = fs_escape_name(cr.name, cr.name_len, esc, sizeof esc);
            if (!en) continue; /* too long for a file name: schema.json only */
            snprintf(name, cap, "%s%s", esc, fs_view_suffix(v));
            *n = (struct fs_node){.kind = FS_K_VIEW, .view = v, .col = col, .scope = scope};
            return idx;
        }
        return -1;
    }
    case FS_D_PARQUET:
    case FS_D_ARROW:
    case FS_D_JSONL: {
        uint32_t gf = group_file_of(d->dir);
        if (k >= s->table.num_groups) return -1;
        snprintf(name, cap, "%" PRId64 ".%s", k, group_file_ext(gf));
        *n = (struct fs_node){.kind = FS_K_VIEW, .view = FS_V_PARQUET, .col = gf, .scope = (uint32_t)k + 1};
        return idx;
    }
    case FS_D_GROUPS:
        if (k >= s->table.num_groups) return -1;
        snprintf(name, cap, "%" PRId64, k);
        *n = (struct fs_node){.kind = FS_K_DIR, .dir = FS_D_GROUP, .scope = (uint32_t)k + 1};
        return idx;
    case FS_D_BLOBS: {
        struct ig_colrec cr;
        char esc[3 * FS_NAME_MAX + 1];
        for (; k < s->nblob_cols; k++, idx++) {
            if (ig_part_column(&s->table.parts[0], s->blob_cols[k], &cr, NULL)) continue;
            if (!fs_escape_name(cr.name, cr.name_len, esc, sizeof esc)) continue;
            snprintf(name, cap, "%s", esc);
            *n = (struct fs_node){.kind = FS_K_BLOB_DIR, .blob = (uint32_t)k};
            return idx;
        }
        return -1;
    }
    case FS_D_CONTROL: {
        static const char *const names[] = {"erase", "erasures", "generation"};
        static const uint32_t which[] = {FS_S_ERASE, FS_S_ERASURES, FS_S_GENERATION};
        if (k >= 3) return -1;
        snprintf(name, cap, "%s", names[k]);
        *n = (struct fs_node){.kind = FS_K_SPECIAL, .special = which[k]};
        return idx;
    }
    case FS_D_ROWS:
        for (uint64_t row = (uint64_t)k; row < s->table.num_rows; row++, idx++) {
            uint32_t pi;
            uint64_t local;
            if (ig_table_row(&s->table, row, &pi, &local)) return -1;
            if (ig_part_row_deleted(&s->table.parts[pi], local)) continue;
            snprintf(name, cap, "%" PRIu64, row);
            *n = (struct fs_node){.kind = FS_K_ROW, .row = row};
            return idx;
        }
        return -1;
    }
    return -1;
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
    struct fs_session *s = S(req);
    struct fs_node d;
    struct stat dst;
    pthread_rwlock_rdlock(&s->table_lock);
    bool ok = fs_node_of(ino, &d) && fs_node_stat(s, &d, &dst) == 0 && S_ISDIR(dst.st_mode);
    pthread_rwlock_unlock(&s->table_lock);
    if (!ok) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    char *buf = malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    size_t used = 0;
    struct ig_buf scratch = {0};
    struct fs_row_sizes sizes = {0};
    bool cached_versioned = false;
    /* views' entries cached unless a reload that drops names is at work; one
     * that starts waits for this reply */
    bool views = plus && fs_view_names_send(s, fs_view_names_epoch(s));
    pthread_rwlock_rdlock(&s->table_lock);
    uint64_t gen = s->current.gen;
    for (int64_t idx = off;;) {
        char name[3 * FS_NAME_MAX + 16];
        struct fs_node n;
        int64_t found = dir_entry(s, &d, idx, name, sizeof name, &n);
        if (found < 0) break;
        if (fs_node_versioned(&n)) n.version = fs_version_bits(gen);
        bool view_cached = views && view_name_cacheable(s, &n);
        cached_versioned |= fs_node_versioned(&n) && (fs_node_name_cached(&n) || view_cached);
        size_t add;
        if (plus) {
            struct fuse_entry_param e = {0};
            bool dots = !strcmp(name, ".") || !strcmp(name, "..");
            int rc = dots                  ? -ENOENT
                     /* the rows this reply can still hold (an entry takes at
                      * least 160 bytes), measured together */
                     : n.kind == FS_K_ROW ? fs_row_stat_listed(s, &n, &sizes, (size - used) / 160 + 1, &scratch, &e.attr)
                                          : fs_node_stat(s, &n, &e.attr);
            if (rc == 0) {
                e.ino = e.attr.st_ino;
                entry_times(s, &n, gen, view_cached, &e);
            } else {
                e.attr.st_ino = fs_ino(&n);
                e.attr.st_mode = n.kind == FS_K_ROW ? S_IFREG : S_IFDIR;
            }
            add = fuse_add_direntry_plus(req, buf + used, size - used, name, &e, found + 1);
            if (add <= size - used) fs_known_add(s, e.ino, 1);
        } else {
            bool dir = n.kind == FS_K_DIR || n.kind == FS_K_ROOT || n.kind == FS_K_BLOB_DIR ||
                       n.kind == FS_K_BLOB_ROW;
            struct stat st = {.st_ino = fs_ino(&n), .st_mode = dir ? S_IFDIR : S_IFREG};
            add = fuse_add_direntry(req, buf + used, size - used, name, &st, found + 1);
        }
        if (add > size - used) break;
        used += add;
        idx = found + 1;
    }
    pthread_rwlock_unlock(&s->table_lock);
    ig_buf_free(&scratch);
    fs_row_sizes_free(&sizes);
    fuse_reply_buf(req, buf, used);
    if (views) fs_view_names_sent(s);
    free(buf);
    if (plus && cached_versioned) fs_invalidate_if_moved(s, gen);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    (void)fi;
    do_readdir(req, ino, size, off, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi)
{
    (void)fi;
    do_readdir(req, ino, size, off, true);
}

/* Opens are not the daemon's business: the first one answers ENOSYS and the
 * kernel stops sending OPEN, FLUSH and RELEASE for the whole mount (and the
 * directories' OPENDIR likewise), so a file the kernel already holds costs no
 * request at all. Nothing is kept per open file (view.h): permissions are the
 * kernel's to check on the modes shown (default_permissions), reads find
 * everything from the inode, and a write to .ingot/erase is a request of its
 * own. */
static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino, (void)fi;
    fuse_reply_err(req, ENOSYS);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino, (void)fi;
    fuse_reply_err(req, ENOSYS);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)fi;
    struct fs_session *s = S(req);
    struct fs_node n;
    if (!fs_node_of(ino, &n) || n.kind == FS_K_ROOT || n.kind == FS_K_DIR ||
        n.kind == FS_K_BLOB_DIR || n.kind == FS_K_BLOB_ROW) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    struct fs_read rd = {0};
    struct fs_entry *layout = NULL;
    int rc, tries = 0;
    for (;;) {
        pthread_rwlock_rdlock(&s->table_lock);
        rc = fs_layout_get(s, &n, &layout);
        if (!rc) rc = fs_file_read(s, layout->obj, (uint64_t)off, size, &rd);
        if (rc != -EAGAIN) break;
        fs_read_release(s, &rd);
        if (layout) fs_cache_release(&s->cache, layout);
        layout = NULL;
        pthread_rwlock_unlock(&s->table_lock);
        if (!again(s, &rc, &tries)) {
            pthread_rwlock_rdlock(&s->table_lock);
            break;
        }
    }
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else if (rc == 0)
        fuse_reply_buf(req, NULL, 0);
    else if (fuse_reply_iov(req, rd.iov, rd.niov) == 0 && off == 0)
        fs_fill_done(s, &n, ino); /* its first bytes are the kernel's: no fill (op_ioctl) */
    fs_read_release(s, &rd);
    if (layout) fs_cache_release(&s->cache, layout);
    pthread_rwlock_unlock(&s->table_lock);
}

/* A small object's bytes into the kernel's page cache: read under the table
 * lock as a read from offset 0 would be, stored after it unless a page drop
 * began meanwhile (fill.h). Nothing is retried: a table that moved, an error,
 * a kernel that no longer holds the inode leave the read to ask as usual. */
static void fill(struct fs_session *s, fuse_ino_t ino)
{
    struct fs_node n;
    if (!fs_node_of(ino, &n) || !fs_fill_wanted(s, &n, ino) || !fs_fill_begin(s)) return;
    uint64_t epoch = fs_fill_epoch(s);
    struct fs_read rd = {0};
    struct fs_entry *layout = NULL;
    pthread_rwlock_rdlock(&s->table_lock);
    const struct fs_file *f = fs_layout_get(s, &n, &layout) ? NULL : layout->obj;
    bool got = f && f->size && f->size <= FS_FILL_MAX && fs_file_read(s, f, 0, f->size, &rd) > 0;
    pthread_rwlock_unlock(&s->table_lock);
    if (got && fs_fill_store_begin(s, epoch)) {
        struct {
            struct fuse_bufvec v;
            struct fuse_buf more[FS_READ_MAX_IOV - 1];
        } bufs = {.v = {.count = (size_t)rd.niov}};
        for (int i = 0; i < rd.niov; i++)
            bufs.v.buf[i] = (struct fuse_buf){.mem = rd.iov[i].iov_base, .size = rd.iov[i].iov_len};
        if (fuse_lowlevel_notify_store(s->se, ino, 0, &bufs.v, 0) == 0) fs_fill_done(s, &n, ino);
        fs_fill_store_end(s);
    }
    fs_read_release(s, &rd);
    if (layout) fs_cache_release(&s->cache, layout);
    fs_fill_end(s);
}

/* No ioctl is served (ENOTTY, as a plain file answers isatty), but the kernel
 * asks: Python's open() asks isatty of every file before reading it, and the
 * answer waits while the file is filled (fill.h). */
static void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi,
                     unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
    (void)cmd, (void)arg, (void)fi, (void)flags, (void)in_buf, (void)in_bufsz, (void)out_bufsz;
    fill(S(req), ino);
    fuse_reply_err(req, ENOTTY);
}

/* Each write to .ingot/erase is one request, all its lines or none: they are
 * checked and erased before the write returns, and its errno is the request's
 * (so a shell's `echo 17 > .ingot/erase` sees it). Lines end with a newline; a
 * short write (under 4 KiB) may leave the last one without. A longer write that
 * does not end at a line end is refused (EINVAL) rather than guessed at: the
 * kernel splits writes over 1 MiB, and a split may fall inside a line (use
 * `ingot erase --rows-from FILE` for big batches). */
#define FS_CONTROL_SHORT_WRITE 4096
static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    (void)off, (void)fi; /* lines are taken as they come */
    struct fs_session *s = S(req);
    struct fs_node n;
    if (!fs_node_of(ino, &n) || n.kind != FS_K_SPECIAL || n.special != FS_S_ERASE) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if (!may_erase(req)) {
        fuse_reply_err(req, EACCES);
        return;
    }
    if (size && buf[size - 1] != '\n' && size >= FS_CONTROL_SHORT_WRITE) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    struct fs_batch *b = fs_batch_new();
    int64_t uid, pid;
    who(req, &uid, &pid);
    int rc = b ? fs_batch_write(s, b, buf, size) : -ENOMEM;
    if (!rc) rc = fs_batch_apply(s, b, uid, pid);
    fs_batch_free(b);
    fs_version_unpin(s, (uint32_t)fuse_req_ctx(req)->pid); /* it sees its own erase */
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fs_reply_after_names(s, req, true, size);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino, (void)fi;
    fuse_reply_err(req, ENOSYS); /* never asked again */
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    (void)ino;
    struct fs_session *s = S(req);
    uint64_t bytes = 0;
    struct statvfs sv = {0};
    pthread_rwlock_rdlock(&s->table_lock); /* a reload swaps the parts */
    for (uint32_t i = 0; i < s->table.nparts; i++)
        bytes += s->table.parts[i].file_size;
    sv.f_files = s->table.num_rows + 3ull * s->table.parts[0].num_columns + 16;
    pthread_rwlock_unlock(&s->table_lock);
    sv.f_bsize = sv.f_frsize = 4096;
    sv.f_blocks = (bytes + 4095) / 4096;
    sv.f_namemax = FS_NAME_MAX;
    fuse_reply_statfs(req, &sv);
}

/* ---- everything that would write ---- */

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
                       struct fuse_file_info *fi)
{
    (void)fi;
    struct fs_node n;
    /* `> .ingot/erase` truncates first: allow exactly that */
    if (fs_node_of(ino, &n) && n.kind == FS_K_SPECIAL && n.special == FS_S_ERASE &&
        (to_set & ~(FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_ATIME |
                    FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_CTIME)) == FUSE_SET_ATTR_SIZE &&
        attr->st_size == 0) {
        struct stat st;
        pthread_rwlock_rdlock(&S(req)->table_lock);
        fs_node_stat(S(req), &n, &st);
        pthread_rwlock_unlock(&S(req)->table_lock);
        fuse_reply_attr(req, &st, 0);
        return;
    }
    fuse_reply_err(req, EROFS);
}
static void op_mknod(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m, dev_t r)
{
    (void)p, (void)n, (void)m, (void)r;
    fuse_reply_err(req, EROFS);
}
static void op_mkdir(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m)
{
    (void)p, (void)n, (void)m;
    fuse_reply_err(req, EROFS);
}
/* rm rows/ID erases the row (docs/ERASURE.md); nothing else can be removed. */
static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fs_session *s = S(req);
    struct fs_node pn;
    uint64_t id;
    if (!fs_node_of(parent, &pn) || pn.kind != FS_K_DIR || pn.dir != FS_D_ROWS) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if (!parse_id(name, &id)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    if (!may_erase(req)) {
        fuse_reply_err(req, EACCES);
        return;
    }
    int64_t uid, pid;
    who(req, &uid, &pid);
    int rc = fs_erase_rows(s, &id, 1, NULL, 0, uid, pid);
    fs_version_unpin(s, (uint32_t)fuse_req_ctx(req)->pid); /* it sees its own erase */
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fs_reply_after_names(s, req, false, 0);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t p, const char *n)
{
    (void)p, (void)n;
    fuse_reply_err(req, EROFS);
}
static void op_symlink(fuse_req_t req, const char *l, fuse_ino_t p, const char *n)
{
    (void)l, (void)p, (void)n;
    fuse_reply_err(req, EROFS);
}
static void op_rename(fuse_req_t req, fuse_ino_t p, const char *n, fuse_ino_t np, const char *nn,
                      unsigned int flags)
{
    (void)p, (void)n, (void)np, (void)nn, (void)flags;
    fuse_reply_err(req, EROFS);
}
static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t np, const char *nn)
{
    (void)ino, (void)np, (void)nn;
    fuse_reply_err(req, EROFS);
}
static void op_create(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
                      struct fuse_file_info *fi)
{
    (void)p, (void)n, (void)m, (void)fi;
    fuse_reply_err(req, EROFS);
}
static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *n, const char *v, size_t sz,
                        int flags)
{
    (void)ino, (void)n, (void)v, (void)sz, (void)flags;
    fuse_reply_err(req, EROFS);
}
/* No file has extended attributes, and the daemon says so itself: EOPNOTSUPP,
 * not ENOSYS. After an ENOSYS the kernel answers getxattr alone, but for the
 * POSIX ACL names it answers ENODATA ("no ACL on this file"; since Linux 6.2),
 * so `ls -l` asks again for every file it lists: a second path walk, and for a
 * name the kernel may not cache (an array that keeps its shape: .npy,
 * .valid.npy, _rowid.npy) a second LOOKUP. ls -l of a 10,000-column table's
 * columns/ sent 40,003 lookups, two per array; EOPNOTSUPP makes ls stop asking
 * after the first file (20,002). The price: a getxattr now reaches the daemon
 * (one round trip each), as does the kernel's security.capability check when
 * .ingot/erase is written (two per `echo ID > .ingot/erase`). */
static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *n, size_t sz)
{
    (void)ino, (void)n, (void)sz;
    fuse_reply_err(req, EOPNOTSUPP);
}
static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *n)
{
    (void)ino, (void)n;
    fuse_reply_err(req, EROFS);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    (void)userdata;
    conn->max_readahead = 1u << 20;
    if (conn->capable & FUSE_CAP_READDIRPLUS) conn->want |= FUSE_CAP_READDIRPLUS;
    /* every listing carries attributes: `ls -l rows/` then needs no lookup per
     * row (the kernel's adaptive mode switches plus off between a listing's
     * reads when the entries it gave were all used from the cache) */
    conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
    /* Page contents never change behind the kernel's back except through an
     * erase, which invalidates explicitly; do not drop the cache on mtime. */
    conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
    /* no OPEN, FLUSH, RELEASE or OPENDIR: see op_open */
    if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
    if (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
    /* one write(2) to .ingot/erase of up to 1 MiB arrives as one request */
    conn->max_write = 1u << 20;
}

const struct fuse_lowlevel_ops fs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .read = op_read,
    .ioctl = op_ioctl,
    .write = op_write,
    .flush = op_flush,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .readdirplus = op_readdirplus,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .removexattr = op_removexattr,
    .create = op_create,
};
