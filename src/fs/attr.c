/* attr.c - the attributes each node of the namespace shows: modes (who may
 * read, who may erase), owner, times, exact sizes. FUSE-free: ops.c hands
 * them to the kernel. */
#include "attr.h"
#include "namespace.h"
#include "rows.h"
#include "view.h"
#include "util/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Can columns be written and removed through this mount (staging.h)? Not
 * in a mount of an older version, nor without the importer's help. */
static bool columns_writable(const struct fs_session *s)
{
    return s->column_io.commit && !s->version;
}

/* A regular file's attributes (st's common fields already set) once its size is known. */
static void file_stat(struct fs_session *s, const struct fs_node *n, uint64_t size, struct stat *st)
{
    bool erase_group = s->erase_gid != (gid_t)-1;
    st->st_mode = S_IFREG | 0444;
    if (n->kind == FS_K_SPECIAL && n->special == FS_S_ERASE) {
        st->st_mode = S_IFREG | (erase_group ? 0220 : 0200);
        if (erase_group) st->st_gid = s->erase_gid;
    }
    /* columns/NAME.npy of a whole column: writing it replaces the values */
    if (n->kind == FS_K_VIEW && n->view == FS_V_NPY && n->scope == FS_SCOPE_ALL && columns_writable(s)) {
        st->st_mode = S_IFREG | (erase_group ? 0664 : 0644);
        if (erase_group) st->st_gid = s->erase_gid;
    }
    st->st_nlink = 1;
    st->st_size = (off_t)size;
    st->st_blocks = (blkcnt_t)((size + 511) / 512);
    st->st_blksize = 1 << 20; /* tells cat and cp to read in large chunks */
}

/* Attributes of an existing node, or -ENOENT. */
int fs_node_stat(struct fs_session *s, const struct fs_node *n, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = fs_ino(n);
    st->st_uid = s->uid;
    st->st_gid = s->gid;
    st->st_atim = st->st_mtim = st->st_ctim = s->mtime;
    bool erase_group = s->erase_gid != (gid_t)-1;
    if (n->kind == FS_K_ROOT || n->kind == FS_K_DIR) {
        if (!fs_ns_dir_exists(s, n)) return -ENOENT;
        st->st_mode = S_IFDIR | 0555;
        /* rm rows/ID erases; a file made or removed in columns/ adds or
         * drops a column: the owner, and the erase group */
        if (n->kind == FS_K_DIR && ((n->dir == FS_D_ROWS && !s->read_only) ||
                                    (n->dir == FS_D_COLUMNS && columns_writable(s)))) {
            st->st_mode = S_IFDIR | (erase_group ? 0775 : 0755);
            if (erase_group) st->st_gid = s->erase_gid;
        }
        st->st_nlink = 2;
        return 0;
    }
    if (n->kind == FS_K_LINK) { /* tags/NAME -> ../versions/N */
        char target[64];
        int len = fs_ns_link_target(n, target, sizeof target);
        if (len < 0) return len;
        st->st_mode = S_IFLNK | 0777;
        st->st_nlink = 1;
        st->st_size = len;
        return 0;
    }
    if (n->kind == FS_K_BLOB_DIR || n->kind == FS_K_BLOB_ROW) {
        uint64_t none;
        int rc = fs_node_size(s, n, &none);
        if (rc) return rc;
        st->st_mode = S_IFDIR | 0555;
        st->st_nlink = 2;
        return 0;
    }
    uint64_t size;
    int rc = fs_node_size(s, n, &size);
    if (rc) return rc;
    file_stat(s, n, size, st);
    return 0;
}

/* A row's attributes once its size is known. */
static void row_attr(struct fs_session *s, const struct fs_node *n, uint64_t size, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = fs_ino(n);
    st->st_uid = s->uid;
    st->st_gid = s->gid;
    st->st_atim = st->st_mtim = st->st_ctim = s->mtime;
    file_stat(s, n, size, st);
}

int fs_row_stat_listed(struct fs_session *s, const struct fs_node *n, struct fs_row_sizes *rs,
                       size_t want, struct ig_buf *scratch, struct stat *st)
{
    if (n->row < rs->first || n->row - rs->first >= rs->n) {
        if (want > rs->cap) {
            uint64_t *p = realloc(rs->size, want * sizeof *p);
            if (p) rs->size = p, rs->cap = want;
        }
        rs->first = n->row;
        size_t cap = want < rs->cap ? want : rs->cap;
        /* measured ahead while the lister was busy (rowsizes.h), or now */
        rs->n = rs->size ? fs_rowsizes_take(&s->rowsizes, s->generation, n->row, rs->size, cap) : 0;
        if (!rs->n && (!rs->size || fs_rows_sizes(s, n->row, cap, scratch, rs->size, &rs->n)))
            rs->n = 0;
    }
    uint64_t size = n->row - rs->first < rs->n ? rs->size[n->row - rs->first] : 0;
    if (!size) return fs_row_stat(s, n, scratch, st); /* erased (it says so), or not measured */
    row_attr(s, n, size, st);
    return 0;
}

/* Rows measured between two publications: a waiting request gets its rows
 * soon after they are measured, not when the whole run is. */
#define MEASURE_STEP 256u

void fs_rows_listed_ahead(struct fs_session *s, uint64_t next)
{
    struct fs_rowsizes *r = &s->rowsizes;
    uint64_t first;
    size_t want, n = 0;
    pthread_rwlock_rdlock(&s->table_lock);
    int slot = fs_rowsizes_claim(r, s->generation, s->table.num_rows, next, &first, &want);
    if (slot >= 0) {
        uint64_t *room = fs_rowsizes_room(r, slot);
        struct ig_buf scratch = {0};
        while (n < want) {
            size_t step = want - n < MEASURE_STEP ? want - n : MEASURE_STEP, done = 0;
            if (fs_rows_sizes(s, first + n, step, &scratch, room + n, &done) || !done) break;
            n += done;
            if (n < want) fs_rowsizes_measured(r, slot, n, false);
        }
        fs_rowsizes_measured(r, slot, n, true);
        ig_buf_free(&scratch);
    }
    pthread_rwlock_unlock(&s->table_lock);
}

void fs_row_sizes_free(struct fs_row_sizes *rs)
{
    free(rs->size);
    memset(rs, 0, sizeof *rs);
}

/* A row's attributes for a directory listing: its JSON rendered into scratch
 * for the length, not cached (a listing visits every row once; the blocks it
 * decodes are cached, so rows sharing a block decode it once). */
int fs_row_stat(struct fs_session *s, const struct fs_node *n, struct ig_buf *scratch,
                    struct stat *st)
{
    ig_buf_reset(scratch);
    int rc = fs_row_render(s, n->row, scratch);
    if (rc) return rc;
    row_attr(s, n, scratch->len, st);
    return 0;
}

