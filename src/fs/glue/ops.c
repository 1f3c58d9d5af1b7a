/* ops.c - FUSE low-level handlers: one reply per request, negative errno.
 *
 * Glue only: what to answer is decided FUSE-free below (namespace.h: names;
 * entry.h: lookups and who may change the table; attr.h: attributes; view.h:
 * contents; control.h: erasing), and this file turns requests into those calls
 * and their answers into replies. Inodes are computed, not allocated (inode.h);
 * the kernel's lookup counts are kept (session.h fs_kernel_holds) so an erase
 * knows which cached inodes to drop. A table changes through the mount only by
 * erasing (rm rows/ID, writes to .ingot/erase); every other request that would
 * change the tree or a file fails with EROFS. */
#include "ops.h"
#include "fs/attr.h"
#include "fs/blobs.h"
#include "fs/control.h"
#include "fs/entry.h"
#include "fs/fill.h"
#include "fs/invalidate.h"
#include "fs/namespace.h"
#include "fs/session.h"
#include "fs/staging.h"
#include "fs/subtables.h"
#include "fs/plan.h"
#include "fs/rows.h"
#include "fs/view.h"

#include <errno.h>
#include <fuse_lowlevel.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct fs_session *S(fuse_req_t req) { return fuse_req_userdata(req); }

/* The session serving inode ino (the mount's table, or a version's under
 * versions/N/: subtables.h) and the node's number there. */
static bool target(fuse_req_t req, fuse_ino_t ino, struct fs_target *t)
{
    return fs_target_of(S(req), ino, t);
}

/* May the caller change the table (entry.h fs_may_change)? */
static bool may_erase(fuse_req_t req)
{
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    gid_t groups[256];
    int n = ctx->uid == 0 || ctx->uid == S(req)->uid ? 0 : fuse_req_getgroups(req, 256, groups);
    return fs_may_change(S(req), ctx->uid, ctx->gid, groups, n < 0 ? 0 : n > 256 ? 256 : n);
}

/* Who asked, for the audit log. */
static void who(fuse_req_t req, int64_t *uid, int64_t *pid)
{
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    *uid = ctx->uid;
    *pid = ctx->pid;
}

/* A request that met a page changing under it (-EAGAIN) waits for the writer
 * and runs again (invalidate.h); -EIO once it waited too long. Call with the
 * table lock released: a handler may hold a directory in the kernel. */
static bool again(struct fs_session *s, int *rc, struct fs_writer_wait *w)
{
    if (*rc != -EAGAIN) return false;
    if (!fs_wait_for_writer(s, w)) {
        *rc = -EIO;
        return false;
    }
    return true;
}

/* The entry's lifetimes and generation (entry.h) into the reply. */
static void entry_times(struct fs_session *s, const struct fs_node *n, uint64_t gen, bool views_cached,
                        struct fuse_entry_param *e)
{
    struct fs_entry_times et = fs_entry_times(s, n, gen, views_cached);
    e->attr_timeout = et.attr_timeout;
    e->entry_timeout = et.entry_timeout;
    e->generation = et.generation;
}

/* versions/N: the version's table, entered (subtables.h); its root's entry. */
static void enter_version(fuse_req_t req, uint64_t version)
{
    struct fs_target t;
    struct fuse_entry_param e = {0};
    int rc = fs_subtables_enter(S(req), version, &t);
    if (!rc) {
        struct fs_node root = {.kind = FS_K_ROOT};
        pthread_rwlock_rdlock(&t.s->table_lock);
        rc = fs_node_stat(t.s, &root, &e.attr);
        pthread_rwlock_unlock(&t.s->table_lock);
    }
    if (!rc && !(e.ino = fs_target_hold(S(req), &t, FS_ROOT_INO, 1))) rc = -ENOMEM;
    if (rc) {
        fuse_reply_err(req, -rc);
        return;
    }
    e.attr.st_ino = e.ino;
    e.entry_timeout = FS_NAME_SHORT_TIMEOUT; /* `ingot gc` may remove it */
    e.attr_timeout = t.s->timeout;
    if (fuse_reply_entry(req, &e) != 0) fs_target_release(S(req), e.ino, 1);
}

/* Is n where a version's table is shown (versions/N)? */
static bool is_version_root(const struct fs_node *n)
{
    return n->kind == FS_K_DIR && n->dir == FS_D_VERSION;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fs_target pt;
    if (!target(req, parent, &pt)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct fs_session *s = pt.s;
    struct fs_node pn = {0}, cn;
    struct fuse_entry_param e = {0};
    uint64_t gen = 0;
    uint32_t tid = (uint32_t)fuse_req_ctx(req)->pid;
    int rc;
    struct fs_writer_wait writer = {0};
    uint64_t epoch = fs_view_names_epoch(&s->vnames);
    bool current = false, cacheable = false;
    do {
        pthread_rwlock_rdlock(&s->table_lock);
        rc = fs_node_of(pt.ino, &pn) ? fs_entry_lookup(s, &pn, name, tid, &cn, &gen) : -ENOENT;
        if (!rc && is_version_root(&cn)) {
            pthread_rwlock_unlock(&s->table_lock);
            enter_version(req, cn.scope);
            return;
        }
        if (!rc && writer.tries == 0) fs_prefetch_node(s, &cn); /* a read usually follows */
        if (!rc) rc = fs_node_stat(s, &cn, &e.attr);
        if (!rc) {
            entry_times(s, &cn, gen, false, &e);
            /* counted before a reload can retire this generation */
            e.ino = e.attr.st_ino = fs_target_hold(S(req), &pt, e.attr.st_ino, 1);
            if (!e.ino) rc = -ENOMEM;
            current = gen == s->gens.current.gen; /* a burst's older generation: never cached */
            cacheable = fs_entry_view_name_cacheable(s, &cn);
        }
        pthread_rwlock_unlock(&s->table_lock);
    } while (again(s, &rc, &writer));
    if (rc == -ENOENT) {
        /* a negative entry, kept a second: names appear too (a column added,
         * rows appended), and a reload does not know which absences the
         * kernel holds, so they are not kept longer than a poll lasts (in
         * columns/ not at all: entry.h) */
        e = (struct fuse_entry_param){.entry_timeout = fs_entry_absence_timeout(&pn)};
        fuse_reply_entry(req, &e);
        return;
    }
    if (rc) {
        fuse_reply_err(req, -rc);
        return;
    }
    /* a view's name cached only if no reload began since the epoch */
    bool send = cacheable && !fs_node_name_cached(&cn) && current && fs_view_names_send(&s->vnames, epoch);
    if (send) e.entry_timeout = s->timeout;
    if (fuse_reply_entry(req, &e) != 0) fs_target_release(S(req), e.ino, 1);
    else if (fs_node_generational(&cn) && fs_node_name_cached(&cn)) fs_invalidate_if_moved(s, gen);
    if (send) fs_view_names_sent(&s->vnames);
}

/* Inodes need no freeing (they are computed), but the kernel's references are
 * counted so an erase knows which cached inodes to invalidate. */
static void forget_one(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    struct fs_target t;
    if (target(req, ino, &t)) fs_fill_dropped(&t.s->fill, t.ino);
    fs_target_release(S(req), ino, nlookup);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    forget_one(req, ino, nlookup);
    fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    for (size_t i = 0; i < count; i++)
        forget_one(req, forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

/* Attributes of a file being written as a column (staging.h). */
static void stage_attr(struct fs_session *s, fuse_ino_t ino, uint64_t size, struct stat *st)
{
    *st = (struct stat){.st_ino = ino, .st_mode = S_IFREG | 0644, .st_nlink = 1, .st_uid = s->uid,
                        .st_gid = s->gid, .st_size = (off_t)size, .st_blksize = 1 << 20};
    st->st_atim = st->st_mtim = st->st_ctim = s->mtime;
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;

    struct fs_target t;
    if (!target(req, ino, &t)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct fs_session *s = t.s;
    struct fs_node n;
    struct stat st;
    int rc;
    struct fs_writer_wait writer = {0};
    uint64_t staged;
    if (t.slot < 0 && fs_node_of(ino, &n) && n.kind == FS_K_STAGE) {
        if (!fs_stage_size(s, ino, &staged)) {
            fuse_reply_err(req, ENOENT); /* committed or dropped: the path leads elsewhere now */
            return;
        }
        stage_attr(s, ino, staged, &st);
        fuse_reply_attr(req, &st, 0);
        return;
    }
    do {
        pthread_rwlock_rdlock(&s->table_lock);
        rc = fs_node_of(t.ino, &n) ? fs_node_stat(s, &n, &st) : -ENOENT;
        pthread_rwlock_unlock(&s->table_lock);
    } while (again(s, &rc, &writer));
    st.st_ino = ino;
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_attr(req, &st, s->timeout);
}

/* A directory listing being answered: the reply's buffer and what its
 * entries share. */
struct listing {
    fuse_req_t req;
    struct fs_target t;      /* the directory's session */
    bool plus;               /* READDIRPLUS: entries carry attributes and references */
    char *buf;
    size_t size, used;
    uint64_t gen;            /* the generation listed */
    bool views;              /* views' entries may be cached (viewnames.h) */
    bool cached_versioned;   /* an entry of gen's files was cached: check it still shows */
    struct fs_row_sizes sizes; /* rows measured together (attr.h) */
    uint64_t rows_next;      /* rows/: the row after the last one listed (0: none) */
    struct ig_buf scratch;
};

/* One entry of a READDIRPLUS reply: its attributes and, but for "." and ".."
 * and versions/N (entered by a lookup only: subtables.h), a reference the
 * kernel takes, counted (released if the entry did not fit). Caller holds the
 * table lock. The bytes added (more than room: it did not fit). */
static size_t add_entry_plus(struct listing *l, const char *name, struct fs_node *n, int64_t next)
{
    struct fs_session *s = l->t.s;
    struct fuse_entry_param e = {0};
    size_t room = l->size - l->used;
    bool view_cached = l->views && fs_entry_view_name_cacheable(s, n);
    l->cached_versioned |= fs_node_generational(n) && (fs_node_name_cached(n) || view_cached);
    bool dots = !strcmp(name, ".") || !strcmp(name, "..");
    int rc = dots || is_version_root(n) ? -ENOENT
             /* the rows this reply can still hold (an entry takes at least
              * 160 bytes), measured together */
             : n->kind == FS_K_ROW ? fs_row_stat_listed(s, n, &l->sizes, room / 160 + 1, &l->scratch, &e.attr)
                                   : fs_node_stat(s, n, &e.attr);
    if (rc == 0 && !(e.ino = fs_target_hold(S(l->req), &l->t, e.attr.st_ino, 1))) rc = -ENOMEM;
    if (rc == 0) {
        e.attr.st_ino = e.ino;
        entry_times(s, n, l->gen, view_cached, &e);
    } else { /* a name without an entry: the kernel looks it up when used */
        e.attr.st_ino = fs_ino(n);
        e.attr.st_mode = n->kind == FS_K_ROW ? S_IFREG : S_IFDIR;
    }
    size_t add = fuse_add_direntry_plus(l->req, l->buf + l->used, room, name, &e, next);
    if (add > room && e.ino) fs_target_release(S(l->req), e.ino, 1);
    return add;
}

/* One entry of a READDIR reply: a name, its type and a number. */
static size_t add_entry(struct listing *l, const char *name, const struct fs_node *n, int64_t next)
{
    bool dir = n->kind == FS_K_DIR || n->kind == FS_K_ROOT || n->kind == FS_K_BLOB_DIR || n->kind == FS_K_BLOB_ROW;
    uint64_t held = fs_target_peek(S(l->req), &l->t, fs_ino(n));
    struct stat st = {.st_ino = held ? held : fs_ino(n),
                      .st_mode = n->kind == FS_K_LINK ? S_IFLNK : dir ? S_IFDIR : S_IFREG};
    return fuse_add_direntry(l->req, l->buf + l->used, l->size - l->used, name, &st, next);
}

/* Entries of directory d from index off on, while they fit. */
static void list_entries(struct listing *l, const struct fs_node *d, int64_t off)
{
    struct fs_session *s = l->t.s;
    pthread_rwlock_rdlock(&s->table_lock);
    l->gen = s->gens.current.gen;
    for (int64_t idx = off;;) {
        char name[FS_NS_NAME_MAX];
        struct fs_node n;
        int64_t found = fs_ns_entry(s, d, idx, name, sizeof name, &n);
        if (found < 0) break;
        if (fs_node_generational(&n)) n.gen_bits = fs_gen_bits(l->gen);
        size_t add = l->plus ? add_entry_plus(l, name, &n, found + 1) : add_entry(l, name, &n, found + 1);
        if (add > l->size - l->used) break;
        l->used += add;
        if (n.kind == FS_K_ROW) l->rows_next = n.row + 1;
        idx = found + 1;
    }
    pthread_rwlock_unlock(&s->table_lock);
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
    struct listing l = {.req = req, .plus = plus, .size = size};
    if (!target(req, ino, &l.t)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct fs_session *s = l.t.s;
    struct fs_node d;
    struct stat dst;
    pthread_rwlock_rdlock(&s->table_lock);
    bool ok = fs_node_of(l.t.ino, &d) && fs_node_stat(s, &d, &dst) == 0 && S_ISDIR(dst.st_mode);
    pthread_rwlock_unlock(&s->table_lock);
    if (!ok) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    if (!(l.buf = malloc(size))) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    /* views' entries cached unless a reload that drops names is at work; one
     * that starts waits for this reply */
    l.views = plus && fs_view_names_send(&s->vnames, fs_view_names_epoch(&s->vnames));
    list_entries(&l, &d, off);
    ig_buf_free(&l.scratch);
    fs_row_sizes_free(&l.sizes);
    fuse_reply_buf(req, l.buf, l.used);
    if (l.views) fs_view_names_sent(&s->vnames);
    free(l.buf);
    if (plus && l.cached_versioned) fs_invalidate_if_moved(s, l.gen);
    /* the lister now makes and stats these entries' inodes: measure the
     * rows it asks for next meanwhile */
    if (plus && l.rows_next) fs_rows_listed_ahead(s, l.rows_next);
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
    struct fs_target t;
    if (!target(req, ino, &t)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct fs_session *s = t.s;
    struct fs_node n;
    if (!fs_node_of(t.ino, &n) || n.kind == FS_K_ROOT || n.kind == FS_K_DIR ||
        n.kind == FS_K_BLOB_DIR || n.kind == FS_K_BLOB_ROW) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    fs_invalidate_wait_told(s, &n); /* .ingot/generation: the older pages dropped first */
    struct fs_read rd = {0};
    struct fs_entry *layout = NULL;
    int rc;
    struct fs_writer_wait writer = {0};
    for (;;) {
        pthread_rwlock_rdlock(&s->table_lock);
        rc = fs_layout_get(s, &n, &layout);
        if (!rc) rc = fs_file_read(s, layout->obj, (uint64_t)off, size, &rd);
        if (rc != -EAGAIN) break;
        fs_read_release(s, &rd);
        if (layout) fs_cache_release(&s->cache, layout);
        layout = NULL;
        pthread_rwlock_unlock(&s->table_lock);
        if (!again(s, &rc, &writer)) {
            pthread_rwlock_rdlock(&s->table_lock);
            break;
        }
    }
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else if (rc == 0)
        fuse_reply_buf(req, NULL, 0);
    else if (fuse_reply_iov(req, rd.iov, rd.niov) == 0 && off == 0)
        fs_fill_done(&s->fill, &n, t.ino); /* its first bytes are the kernel's: no fill (op_ioctl) */
    fs_read_release(s, &rd);
    if (layout) fs_cache_release(&s->cache, layout);
    pthread_rwlock_unlock(&s->table_lock);
}

/* A small object's bytes into the kernel's page cache: read under the table
 * lock as a read from offset 0 would be, stored after it unless a page drop
 * began meanwhile (fill.h). Nothing is retried: a table that moved, an error,
 * a kernel that no longer holds the inode leave the read to ask as usual. */
static void fill(struct fs_session *root, fuse_ino_t ino)
{
    struct fs_target t;
    struct fs_node n;
    if (!fs_target_of(root, ino, &t)) return;
    struct fs_session *s = t.s;
    if (!fs_node_of(t.ino, &n) || !fs_fill_wanted(&s->fill, &n, t.ino) || !fs_fill_begin(&s->fill)) return;
    uint64_t epoch = fs_fill_epoch(&s->fill);
    struct fs_read rd = {0};
    struct fs_entry *layout = NULL;
    pthread_rwlock_rdlock(&s->table_lock);
    const struct fs_file *f = fs_layout_get(s, &n, &layout) ? NULL : layout->obj;
    bool got = f && f->size && f->size <= FS_FILL_MAX && fs_file_read(s, f, 0, f->size, &rd) > 0;
    pthread_rwlock_unlock(&s->table_lock);
    if (got && fs_fill_store_begin(&s->fill, epoch)) {
        struct {
            struct fuse_bufvec v;
            struct fuse_buf more[FS_READ_MAX_IOV - 1];
        } bufs = {.v = {.count = (size_t)rd.niov}};
        for (int i = 0; i < rd.niov; i++)
            bufs.v.buf[i] = (struct fuse_buf){.mem = rd.iov[i].iov_base, .size = rd.iov[i].iov_len};
        /* the mount's own kernel calls: a version's renumber (subtables.h) */
        if (fuse_lowlevel_notify_store(root->kernel.ctx, ino, 0, &bufs.v, 0) == 0) fs_fill_done(&s->fill, &n, t.ino);
        fs_fill_store_end(&s->fill);
    }
    fs_read_release(s, &rd);
    if (layout) fs_cache_release(&s->cache, layout);
    fs_fill_end(&s->fill);
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

/* Bytes of a column written through the mount (staging.h): the one that
 * completes the array answers with the commit's errno. */
static void write_column(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off)
{
    struct fs_session *s = S(req);
    if (!may_erase(req)) {
        fuse_reply_err(req, EACCES);
        return;
    }
    int rc = off < 0 ? -EINVAL : fs_stage_write(s, ino, (uint64_t)off, buf, size);
    if (rc == -ENOENT) rc = -EROFS; /* a column's .npy not opened to be rewritten (truncated) */
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_write(req, size);
}
static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    (void)off, (void)fi; /* lines are taken as they come */
    struct fs_session *s = S(req);
    struct fs_node n;
    if (fs_node_of(ino, &n) && n.kind == FS_K_SUB) { /* a version's table: read-only */
        fuse_reply_err(req, EROFS);
        return;
    }
    if (fs_node_of(ino, &n) && (n.kind == FS_K_STAGE || (n.kind == FS_K_VIEW && n.view == FS_V_NPY))) {
        write_column(req, ino, buf, size, off); /* staging.h */
        return;
    }
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
    fs_generation_unpin(&s->gens, (uint32_t)fuse_req_ctx(req)->pid); /* it sees its own erase */
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fs_reply_after_names(s, req, true, size);
}

/* tags/NAME -> ../versions/N */
static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    struct fs_node n;
    char target_path[64];
    int len = fs_node_of(ino, &n) ? fs_ns_link_target(&n, target_path, sizeof target_path) : -ENOENT;
    if (len < 0)
        fuse_reply_err(req, len == -EINVAL ? EINVAL : -len);
    else
        fuse_reply_readlink(req, target_path);
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

/* Only a truncation to 0 (and times, which are not kept). */
static bool truncates(const struct stat *attr, int to_set)
{
    return (to_set & ~(FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_ATIME |
                       FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_CTIME)) == FUSE_SET_ATTR_SIZE &&
           attr->st_size == 0;
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
                       struct fuse_file_info *fi)
{
    (void)fi;
    struct fs_session *s = S(req);
    struct fs_node n;
    uint64_t staged;
    if (fs_node_of(ino, &n) && n.kind == FS_K_STAGE && fs_stage_size(s, ino, &staged)) {
        struct stat st;
        stage_attr(s, ino, staged, &st);
        fuse_reply_attr(req, &st, 0);
        return;
    }
    /* `> columns/NAME.npy`, np.save, cp: a column's values rewritten */
    if (fs_node_of(ino, &n) && n.kind == FS_K_VIEW && n.view == FS_V_NPY && n.scope == FS_SCOPE_ALL &&
        truncates(attr, to_set)) {
        int rc = may_erase(req) ? fs_stage_rewrite(s, n.col, ino) : -EACCES;
        if (rc) {
            fuse_reply_err(req, -rc);
            return;
        }
        struct stat st;
        stage_attr(s, ino, 0, &st);
        fuse_reply_attr(req, &st, 0);
        return;
    }
    /* `> .ingot/erase` truncates first: allow exactly that */
    if (fs_node_of(ino, &n) && n.kind == FS_K_SPECIAL && n.special == FS_S_ERASE && truncates(attr, to_set)) {
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
/* rm columns/NAME (or one of its views, NAME.npy ...): the column dropped
 * (staging.h fs_column_drop). */
static void drop_column(fuse_req_t req, const struct fs_node *dir, const char *name)
{
    struct fs_session *s = S(req);
    struct fs_node cn;
    pthread_rwlock_rdlock(&s->table_lock);
    int rc = fs_ns_lookup(s, dir, name, &cn);
    pthread_rwlock_unlock(&s->table_lock);
    if (!rc && cn.kind != FS_K_VIEW) rc = -EPERM; /* _rowid.npy */
    if (!rc && cn.view == FS_V_ROWID) rc = -EPERM;
    if (!rc && !may_erase(req)) rc = -EACCES;
    if (!rc) rc = fs_column_drop(s, cn.col);
    fuse_reply_err(req, -rc);
}

/* rm rows/ID erases the row (docs/ERASURE.md); rm columns/NAME drops a
 * column; nothing else can be removed. */
static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    struct fs_session *s = S(req);
    struct fs_node pn;
    uint64_t id;
    if (fs_node_of(parent, &pn) && pn.kind == FS_K_DIR && pn.dir == FS_D_COLUMNS) {
        drop_column(req, &pn, name);
        return;
    }
    if (!fs_node_of(parent, &pn) || pn.kind != FS_K_DIR || pn.dir != FS_D_ROWS) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if (!fs_ns_parse_id(name, &id)) {
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
    fs_generation_unpin(&s->gens, (uint32_t)fuse_req_ctx(req)->pid); /* it sees its own erase */
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
/* mv columns/NAME columns/NEW renames the column (staging.h
 * fs_column_rename); nothing else can be renamed (groups/G/ included: a
 * group's files are views of the table's columns). */
static void op_rename(fuse_req_t req, fuse_ino_t p, const char *n, fuse_ino_t np, const char *nn,
                      unsigned int flags)
{
    struct fs_session *s = S(req);
    struct fs_node pn, npn, cn;
    if (!fs_node_of(p, &pn) || pn.kind != FS_K_DIR || pn.dir != FS_D_COLUMNS || pn.scope != FS_SCOPE_ALL ||
        !fs_node_of(np, &npn) || npn.kind != FS_K_DIR || npn.dir != FS_D_COLUMNS || npn.scope != FS_SCOPE_ALL) {
        fuse_reply_err(req, EROFS);
        return;
    }
    bool exchange = flags & RENAME_EXCHANGE;
    if (flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE)) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    struct fs_node other = {0};
    pthread_rwlock_rdlock(&s->table_lock);
    int rc = fs_ns_lookup(s, &pn, n, &cn);
    if (!rc && exchange) rc = fs_ns_lookup(s, &npn, nn, &other);
    pthread_rwlock_unlock(&s->table_lock);
    if (!rc && (cn.kind != FS_K_VIEW || cn.view == FS_V_ROWID)) rc = -EPERM;
    /* an exchange swaps two columns' names: two files of one view */
    if (!rc && exchange && (other.kind != FS_K_VIEW || other.view != cn.view)) rc = -EPERM;
    if (!rc && !may_erase(req)) rc = -EACCES;
    if (!rc) rc = exchange ? fs_column_exchange(s, cn.col, other.col) : fs_column_rename(s, cn.col, cn.view, nn);
    fuse_reply_err(req, -rc);
}
static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t np, const char *nn)
{
    (void)ino, (void)np, (void)nn;
    fuse_reply_err(req, EROFS);
}
/* A new columns/NAME.npy: a column being written (staging.h). Its name is
 * not kept (entry timeout 0): once the array commits, the next lookup finds
 * the column's own files. */
static void op_create(fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
                      struct fuse_file_info *fi)
{
    (void)m;
    struct fs_session *s = S(req);
    struct fs_node pn;
    if (!fs_node_of(p, &pn) || pn.kind != FS_K_DIR || pn.dir != FS_D_COLUMNS) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if (!may_erase(req)) {
        fuse_reply_err(req, EACCES);
        return;
    }
    uint64_t ino;
    int rc = fs_stage_create(s, n, &ino);
    if (rc) {
        fuse_reply_err(req, -rc == EINVAL ? EPERM : -rc); /* only NAME.npy can be made */
        return;
    }
    struct fuse_entry_param e = {.ino = ino, .attr_timeout = 0, .entry_timeout = 0};
    stage_attr(s, ino, 0, &e.attr);
    fi->direct_io = 0;
    fi->keep_cache = 0;
    if (fuse_reply_create(req, &e, fi) != 0) fs_stage_closed(s, ino);
}

/* Closing a file made by create (the only ones opened for real): one whose
 * array is not whole is dropped. */
static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    fs_stage_closed(S(req), ino);
    fuse_reply_err(req, 0);
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
 * a file is written (.ingot/erase, a column's .npy). */
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
    /* lookups in one directory at once (rows/ID opened by a DataLoader's
     * workers): without it the kernel sends them one at a time, and on object
     * storage each waits for its range GETs in turn. libfuse 3 wants it by
     * default; said here because it matters (libfuse 3.14 with a 7.45 kernel
     * still leaves it out of its INIT reply: lookups arrive one at a time) */
    if (conn->capable & FUSE_CAP_PARALLEL_DIROPS) conn->want |= FUSE_CAP_PARALLEL_DIROPS;
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
    /* O_TRUNC as a SETATTR of its own: with atomic O_TRUNC the kernel leaves
     * the truncation to OPEN, which this daemon does not serve, and a column's
     * .npy opened to be rewritten would never say so (staging.h) */
    conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
    /* one write(2) to .ingot/erase of up to 1 MiB arrives as one request */
    conn->max_write = 1u << 20;
}

const struct fuse_lowlevel_ops fs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .readlink = op_readlink,
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
    .release = op_release,
};
