/* subtables.c - versions under versions/N/: their sessions and numbers (subtables.h). */
#include "subtables.h"
#include "invalidate.h"
#include "inode.h"
#include "session.h"
#include "util/error.h"
#include "util/hash.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

/* A version being served. */
struct sub_slot {
    struct fs_subtables *owner;
    uint64_t version;
    struct fs_session s;
};

/* A number handed out: node `inner` of slot's session, held n times. */
struct sub_ino {
    uint64_t handle, inner, n;
    struct sub_slot *slot;
    struct sub_ino *next_by_handle, *next_by_node;
};

struct fs_subtables {
    struct fs_session *root;
    pthread_mutex_t open_mu; /* opening a version's session (slow: reads its footers) */
    pthread_mutex_t mu;      /* slots published, and the numbers */
    struct sub_slot *slots[FS_SUBTABLES_MAX];
    int nslots;
    struct sub_ino **by_handle, **by_node; /* chained hash tables, cap buckets each */
    size_t cap, count;
    uint64_t next_handle;
};

#define HANDLE_MASK ((1ULL << 60) - 1)

static size_t handle_bucket(const struct fs_subtables *st, uint64_t handle)
{
    return (size_t)ig_mix64(handle) & (st->cap - 1);
}

static size_t node_bucket(const struct fs_subtables *st, const struct sub_slot *slot, uint64_t inner)
{
    return (size_t)ig_mix64(inner ^ (uint64_t)(uintptr_t)slot) & (st->cap - 1);
}

/* Double the tables (caller holds mu); out of memory: they stay, chains grow. */
static void grow(struct fs_subtables *st)
{
    size_t cap = st->cap ? st->cap * 2 : 256;
    struct sub_ino **bh = calloc(cap, sizeof *bh), **bn = calloc(cap, sizeof *bn);
    if (!bh || !bn) {
        free(bh);
        free(bn);
        return;
    }
    struct sub_ino **oh = st->by_handle;
    size_t ocap = st->cap;
    free(st->by_node);
    st->by_handle = bh, st->by_node = bn, st->cap = cap;
    for (size_t i = 0; i < ocap; i++)
        for (struct sub_ino *e = oh[i], *next; e; e = next) {
            next = e->next_by_handle;
            size_t h = handle_bucket(st, e->handle), b = node_bucket(st, e->slot, e->inner);
            e->next_by_handle = bh[h], bh[h] = e;
            e->next_by_node = bn[b], bn[b] = e;
        }
    free(oh);
}

static struct sub_ino *find_handle(const struct fs_subtables *st, uint64_t handle)
{
    if (!st->cap) return NULL;
    struct sub_ino *e = st->by_handle[handle_bucket(st, handle)];
    while (e && e->handle != handle)
        e = e->next_by_handle;
    return e;
}

static struct sub_ino *find_node(const struct fs_subtables *st, const struct sub_slot *slot, uint64_t inner)
{
    if (!st->cap) return NULL;
    struct sub_ino *e = st->by_node[node_bucket(st, slot, inner)];
    while (e && (e->slot != slot || e->inner != inner))
        e = e->next_by_node;
    return e;
}

static void unlink_entry(struct fs_subtables *st, struct sub_ino *e)
{
    struct sub_ino **p = &st->by_handle[handle_bucket(st, e->handle)];
    while (*p != e)
        p = &(*p)->next_by_handle;
    *p = e->next_by_handle;
    p = &st->by_node[node_bucket(st, e->slot, e->inner)];
    while (*p != e)
        p = &(*p)->next_by_node;
    *p = e->next_by_node;
    st->count--;
    free(e);
}

static uint64_t outer_ino(uint64_t handle)
{
    struct fs_node n = {.kind = FS_K_SUB, .row = handle};
    return fs_ino(&n);
}

/* ---- what a version's session tells the kernel, renumbered ------------- */

/* The number the kernel knows node inner of slot by, or 0 if it holds none. */
static uint64_t peek(struct sub_slot *slot, uint64_t inner)
{
    struct fs_subtables *st = slot->owner;
    pthread_mutex_lock(&st->mu);
    struct sub_ino *e = find_node(st, slot, inner);
    uint64_t ino = e ? outer_ino(e->handle) : 0;
    pthread_mutex_unlock(&st->mu);
    return ino;
}

static const struct fs_kernel *root_kernel(struct sub_slot *slot)
{
    return &slot->owner->root->kernel;
}

static void sub_inval_inode(void *ctx, uint64_t inner)
{
    uint64_t ino = peek(ctx, inner);
    if (ino) root_kernel(ctx)->inval_inode(root_kernel(ctx)->ctx, ino);
}

static void sub_inval_entry(void *ctx, uint64_t parent, const char *name, size_t len)
{
    uint64_t dir = peek(ctx, parent); /* a directory the kernel does not hold caches no name */
    if (dir) root_kernel(ctx)->inval_entry(root_kernel(ctx)->ctx, dir, name, len);
}

static void sub_delete_entry(void *ctx, uint64_t parent, uint64_t child, const char *name, size_t len)
{
    uint64_t dir = peek(ctx, parent), ino = peek(ctx, child);
    if (dir && ino)
        root_kernel(ctx)->delete_entry(root_kernel(ctx)->ctx, dir, ino, name, len);
    else if (dir)
        root_kernel(ctx)->inval_entry(root_kernel(ctx)->ctx, dir, name, len);
}

static void sub_answer(void *req, bool write, size_t size)
{
    (void)req, (void)write, (void)size; /* nothing is erased through a version */
}

/* ---- following the mount's table ---------------------------------------- */

/* After the mount's table reloaded: each version reloads if the table moved
 * (an erasure reaches it; a commit only renames what it reads). From the
 * watcher or names thread (names_now) the kernel is told at once, before the
 * erase through the mount is answered; from a handler, by each version's own
 * invalidation thread. */
static void follow(void *ctx, bool names_now)
{
    struct fs_subtables *st = ctx;
    pthread_mutex_lock(&st->mu);
    int n = st->nslots;
    struct sub_slot *slots[FS_SUBTABLES_MAX];
    memcpy(slots, st->slots, (size_t)n * sizeof *slots);
    pthread_mutex_unlock(&st->mu);
    for (int i = 0; i < n; i++)
        if (fs_reload(&slots[i]->s, false, names_now) && names_now) fs_invalidate_erased_now(&slots[i]->s);
}

/* ---- starting, entering, stopping ---------------------------------------- */

int fs_subtables_start(struct fs_session *root)
{
    struct fs_subtables *st = calloc(1, sizeof *st);
    if (!st) return -ENOMEM;
    st->root = root;
    pthread_mutex_init(&st->open_mu, NULL);
    pthread_mutex_init(&st->mu, NULL);
    root->subs = st;
    root->after_reload_ctx = st;
    root->after_reload = follow;
    return 0;
}

void fs_subtables_stop(struct fs_session *root)
{
    struct fs_subtables *st = root->subs;
    if (!st) return;
    root->after_reload = NULL;
    root->subs = NULL;
    for (int i = 0; i < st->nslots; i++) {
        fs_invalidate_stop(&st->slots[i]->s);
        fs_session_destroy(&st->slots[i]->s);
        free(st->slots[i]);
    }
    for (size_t i = 0; i < st->cap; i++)
        for (struct sub_ino *e = st->by_handle[i], *next; e; e = next) {
            next = e->next_by_handle;
            free(e);
        }
    free(st->by_handle);
    free(st->by_node);
    pthread_mutex_destroy(&st->open_mu);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static void log_open_failure(const struct fs_session *root, const char *msg)
{
    if (root->foreground)
        fprintf(stderr, "ingot: versions: %s\n", msg);
    else
        syslog(LOG_ERR, "ingot: versions: %s", msg);
}

/* Version `version`'s session, opened as the root's mount was, read-only and
 * told of changes by the root's reloads. Caller holds open_mu. */
static int open_slot(struct fs_subtables *st, uint64_t version, struct sub_slot **out)
{
    struct fs_session *root = st->root;
    struct sub_slot *slot = calloc(1, sizeof *slot);
    if (!slot) return -ENOMEM;
    slot->owner = st;
    slot->version = version;
    struct fs_session *s = &slot->s;
    struct ig_error err = {0};
    /* the smallest cache budget: a version is read now and then, beside the table */
    int rc = fs_session_init(s, root->dir, version, FS_CACHE_MIN, &err);
    if (rc) {
        log_open_failure(root, err.msg);
        free(slot);
        return rc;
    }
    s->read_only = true;
    s->foreground = root->foreground;
    s->uid = root->uid, s->gid = root->gid, s->erase_gid = (gid_t)-1;
    s->timeout = root->timeout;
    s->kernel = (struct fs_kernel){.ctx = slot, .inval_inode = sub_inval_inode, .inval_entry = sub_inval_entry,
                                   .delete_entry = sub_delete_entry, .answer = sub_answer};
    fs_watch_init(&s->watch, 0, false); /* the root's reloads drive it (follow) */
    rc = fs_invalidate_start(s);
    if (rc) {
        fs_session_destroy(s);
        free(slot);
        return rc;
    }
    *out = slot;
    return 0;
}

int fs_subtables_enter(struct fs_session *root, uint64_t version, struct fs_target *t)
{
    struct fs_subtables *st = root->subs;
    if (!st || !version) return -ENOENT;
    pthread_mutex_lock(&st->open_mu);
    struct sub_slot *slot = NULL;
    pthread_mutex_lock(&st->mu);
    for (int i = 0; i < st->nslots && !slot; i++)
        if (st->slots[i]->version == version) slot = st->slots[i];
    bool full = st->nslots == FS_SUBTABLES_MAX;
    pthread_mutex_unlock(&st->mu);
    int rc = 0;
    if (!slot && full) {
        char msg[160];
        snprintf(msg, sizeof msg, "version %" PRIu64 ": %d versions are served already (unmount to read others)",
                 version, FS_SUBTABLES_MAX);
        log_open_failure(root, msg);
        rc = -EMFILE;
    } else if (!slot && !(rc = open_slot(st, version, &slot))) {
        pthread_mutex_lock(&st->mu);
        st->slots[st->nslots++] = slot;
        pthread_mutex_unlock(&st->mu);
    }
    pthread_mutex_unlock(&st->open_mu);
    if (rc) return rc;
    *t = (struct fs_target){.s = &slot->s, .ino = FS_ROOT_INO, .slot = 0};
    for (int i = 0; i < FS_SUBTABLES_MAX; i++)
        if (st->slots[i] == slot) t->slot = i;
    return 0;
}

/* ---- numbers ---------------------------------------------------------------- */

bool fs_target_of(struct fs_session *root, uint64_t ino, struct fs_target *t)
{
    struct fs_node n;
    if (!fs_node_of(ino, &n) || n.kind != FS_K_SUB) {
        *t = (struct fs_target){.s = root, .ino = ino, .slot = -1};
        return true;
    }
    struct fs_subtables *st = root->subs;
    if (!st) return false;
    pthread_mutex_lock(&st->mu);
    struct sub_ino *e = find_handle(st, n.row);
    if (e) {
        *t = (struct fs_target){.s = &e->slot->s, .ino = e->inner, .slot = 0};
        for (int i = 0; i < st->nslots; i++)
            if (st->slots[i] == e->slot) t->slot = i;
    }
    pthread_mutex_unlock(&st->mu);
    return e != NULL;
}

uint64_t fs_target_hold(struct fs_session *root, const struct fs_target *t, uint64_t inner, uint64_t n)
{
    if (t->slot < 0) {
        fs_kernel_holds(root, inner, n);
        return inner;
    }
    struct fs_subtables *st = root->subs;
    pthread_mutex_lock(&st->mu);
    struct sub_slot *slot = st->slots[t->slot];
    struct sub_ino *e = find_node(st, slot, inner);
    if (!e && (st->count + 1 > st->cap)) grow(st);
    if (!e && st->cap && (e = calloc(1, sizeof *e))) {
        e->handle = ++st->next_handle & HANDLE_MASK;
        e->inner = inner;
        e->slot = slot;
        size_t h = handle_bucket(st, e->handle), b = node_bucket(st, slot, inner);
        e->next_by_handle = st->by_handle[h], st->by_handle[h] = e;
        e->next_by_node = st->by_node[b], st->by_node[b] = e;
        st->count++;
    }
    if (e) e->n += n;
    uint64_t ino = e ? outer_ino(e->handle) : 0;
    pthread_mutex_unlock(&st->mu);
    if (ino) fs_kernel_holds(&slot->s, inner, n);
    return ino;
}

void fs_target_release(struct fs_session *root, uint64_t ino, uint64_t n)
{
    struct fs_node node;
    if (!fs_node_of(ino, &node) || node.kind != FS_K_SUB) {
        fs_kernel_lets_go(root, ino, n);
        return;
    }
    struct fs_subtables *st = root->subs;
    if (!st) return;
    pthread_mutex_lock(&st->mu);
    struct sub_ino *e = find_handle(st, node.row);
    struct fs_session *s = e ? &e->slot->s : NULL;
    uint64_t inner = e ? e->inner : 0, took = e ? (n < e->n ? n : e->n) : 0;
    if (e && (e->n -= took) == 0) unlink_entry(st, e);
    pthread_mutex_unlock(&st->mu);
    if (s) fs_kernel_lets_go(s, inner, took);
}

uint64_t fs_target_peek(struct fs_session *root, const struct fs_target *t, uint64_t inner)
{
    if (t->slot < 0) return inner;
    return peek(root->subs->slots[t->slot], inner);
}
