/* staging.c - columns written through the mount, staged then committed
 * (staging.h). */
#include "staging.h"
#include "invalidate.h"
#include "session.h"
#include "format/model/names.h"
#include "format/model/types.h"
#include "format/ops/evolve.h"
#include "format/part/remote.h"
#include "store/store.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

struct fs_stage {
    uint64_t key; /* the inode written through (a staging inode, or a column's .npy) */
    char column[FS_NAME_MAX + 1];
    bool replace; /* an existing column's values */
    bool created; /* by CREATE: dropped when closed short */
    bool failed;  /* refused: later writes fail too, until closed or idle */
    int fd;
    char path[4200];
    uint64_t done; /* bytes written from offset 0 without a gap */
    uint64_t want; /* the whole .npy's size, once its header says (0 before) */
    time_t last;   /* CLOCK_MONOTONIC seconds of the last write */
};

struct fs_staging {
    pthread_mutex_t mu;
    struct fs_stage *v[FS_STAGE_MAX];
    uint64_t next_id;
    char local[4096]; /* a table on object storage: a local directory for the stages ("" yet) */
};

static time_t now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec;
}

struct fs_staging *fs_staging_new(void)
{
    struct fs_staging *g = calloc(1, sizeof *g);
    if (g) pthread_mutex_init(&g->mu, NULL);
    return g;
}

static void drop(struct fs_stage *st)
{
    if (st->fd >= 0) close(st->fd);
    unlink(st->path);
    free(st);
}

void fs_staging_free(struct fs_staging *g)
{
    if (!g) return;
    for (int i = 0; i < FS_STAGE_MAX; i++)
        if (g->v[i]) drop(g->v[i]);
    if (g->local[0]) ig_remove_tree(g->local);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

bool fs_stage_is_inode(uint64_t ino)
{
    struct fs_node n;
    return fs_node_of(ino, &n) && n.kind == FS_K_STAGE;
}

static void say(struct fs_session *s, const char *fmt, const char *column, const char *msg)
{
    char line[1200];
    snprintf(line, sizeof line, fmt, column, msg);
    if (s->foreground)
        fprintf(stderr, "ingot: %s\n", line);
    else
        syslog(LOG_ERR, "ingot: %s", line);
}

/* The stage written through ino (caller holds mu), or NULL. */
static struct fs_stage **find(struct fs_staging *g, uint64_t ino)
{
    for (int i = 0; i < FS_STAGE_MAX; i++)
        if (g->v[i] && g->v[i]->key == ino) return &g->v[i];
    return NULL;
}

/* Stages without a write for FS_STAGE_IDLE_S go (caller holds mu). */
static void sweep(struct fs_session *s, struct fs_staging *g)
{
    time_t t = now_s();
    for (int i = 0; i < FS_STAGE_MAX; i++) {
        struct fs_stage *st = g->v[i];
        if (!st || t - st->last < FS_STAGE_IDLE_S) continue;
        say(s, "columns/%s.npy: %s", st->column,
            "no write for a while before the array was whole: nothing changed");
        drop(st);
        g->v[i] = NULL;
    }
}

/* A new stage for column `column` written through ino. */
static int begin(struct fs_session *s, const char *column, bool replace, bool created, uint64_t ino)
{
    struct fs_staging *g = s->staging;
    if (!g || !s->column_io.commit || s->version)
        return -EROFS; /* a version's mount is read-only */
    pthread_mutex_lock(&g->mu);
    sweep(s, g);
    struct fs_stage **old = find(g, ino);
    if (old) { /* rewritten again from the start */
        drop(*old);
        *old = NULL;
    }
    int slot = -1;
    for (int i = 0; i < FS_STAGE_MAX && slot < 0; i++)
        if (!g->v[i]) slot = i;
    struct fs_stage *st = slot < 0 ? NULL : calloc(1, sizeof *st);
    int rc = slot < 0 ? -EBUSY : st ? 0 : -ENOMEM;
    if (!rc) {
        snprintf(st->column, sizeof st->column, "%s", column);
        st->key = ino;
        st->replace = replace;
        st->created = created;
        st->last = now_s();
        /* beside the table; a bucket's: in a local directory made once */
        struct ig_error e = {0};
        bool remote = ig_store_is_remote(s->dir);
        if (remote && !g->local[0] && ig_remote_stage_dir(g->local, sizeof g->local, &e)) {
            syslog(LOG_ERR, "%s", e.msg);
            g->local[0] = '\0';
        }
        snprintf(st->path, sizeof st->path, "%s/.ingot/stage-%" PRIu64 ".npy",
                 remote ? g->local : s->dir, g->next_id++);
        st->fd = remote && !g->local[0]
                     ? (errno = EIO, -1)
                     : ig_open(st->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (st->fd < 0) {
            rc = -errno;
            free(st);
        } else {
            g->v[slot] = st;
        }
    }
    pthread_mutex_unlock(&g->mu);
    return rc;
}

int fs_stage_create(struct fs_session *s, const char *file, uint64_t *ino)
{
    char column[FS_NAME_MAX + 1];
    size_t len;
    enum fs_view view;
    size_t n = strlen(file);
    /* NAME.npy only (a column's array), not NAME.valid.npy and the like */
    if (!fs_parse_column_file(file, column, sizeof column, &len, &view) || view != FS_V_NPY ||
        n < 5 || strcmp(file + n - 4, ".npy") || len + 4 != n)
        return -EINVAL;
    uint32_t col;
    pthread_rwlock_rdlock(&s->table_lock);
    bool exists = ig_table_find(&s->table, column, len, &col, NULL) == 0;
    pthread_rwlock_unlock(&s->table_lock);
    struct fs_staging *g = s->staging;
    if (!g) return -EROFS;
    pthread_mutex_lock(&g->mu);
    uint64_t id = g->next_id; /* the stage's number names its inode and its file */
    pthread_mutex_unlock(&g->mu);
    struct fs_node node = {.kind = FS_K_STAGE, .row = id};
    *ino = fs_ino(&node);
    return begin(s, column, exists, true, *ino);
}

int fs_stage_rewrite(struct fs_session *s, uint32_t col, uint64_t ino)
{
    struct ig_colrec cr;
    char column[FS_NAME_MAX + 1];
    pthread_rwlock_rdlock(&s->table_lock);
    int rc = ig_table_shows(&s->table, col) ? ig_part_column(&s->table.parts[0], col, &cr, NULL)
                                            : -ENOENT;
    if (!rc && (cr.name_len > FS_NAME_MAX || cr.parent != IG_NONE)) rc = -EINVAL;
    if (!rc) snprintf(column, sizeof column, "%.*s", (int)cr.name_len, cr.name);
    pthread_rwlock_unlock(&s->table_lock);
    return rc ? rc : begin(s, column, true, false, ino);
}

/* A column type for a message: "int64", "timestamp(us)", "date", ... */
static void type_name(uint8_t type, const struct ig_logical *lt, char *out, size_t cap)
{
    static const char *const units[] = {"", "s", "ms", "us", "ns"};
    const struct ig_type_info *ti = ig_type_info(type);
    const char *u = lt->unit < 5 ? units[lt->unit] : "?";
    if (lt->kind == IG_LT_DATE) snprintf(out, cap, "date");
    else if (lt->kind == IG_LT_TIMESTAMP) snprintf(out, cap, "timestamp(%s%s)", u, lt->utc ? ", UTC" : "");
    else if (lt->kind == IG_LT_TIME) snprintf(out, cap, "time(%s)", u);
    else snprintf(out, cap, "%s", ti ? ti->name : "?");
}

/* The array's header, once whole: its size, and whether the table can take
 * it (its rows are the live rows; a replaced column keeps its type). */
static int check_header(struct fs_session *s, struct fs_stage *st, struct ig_error *err)
{
    uint8_t type;
    uint32_t dim;
    uint64_t rows;
    struct ig_logical lt = {0};
    char what[FS_NAME_MAX + 32];
    snprintf(what, sizeof what, "columns/%s.npy", st->column);
    int rc = s->column_io.npy_size(st->fd, st->done, what, &st->want, &type, &dim, &lt, &rows, err);
    if (rc) return rc;
    pthread_rwlock_rdlock(&s->table_lock);
    uint64_t live = s->table.num_rows - s->table.deleted_rows;
    uint32_t col;
    struct ig_colrec cr;
    bool exists = st->replace &&
                  ig_table_find(&s->table, st->column, strlen(st->column), &col, NULL) == 0 &&
                  ig_part_column(&s->table.parts[0], col, &cr, NULL) == 0;
    pthread_rwlock_unlock(&s->table_lock);
    if (rows != live)
        return ig_err(err, -EINVAL, "%s: %" PRIu64 " rows; the table has %" PRIu64 " live rows",
                      what, rows, live);
    /* a datetime64 (timedelta64) array replaces a date or timestamp (time)
     * column of its unit; a plain number array one of its type without
     * a logical type that changes its values' meaning */
    bool same_lt = lt.kind ? cr.lt.kind == lt.kind && cr.lt.unit == lt.unit : !ig_logical_renders(&cr.lt);
    if (exists && (cr.type != type || cr.dimension != dim || cr.lists || cr.num_children || !same_lt)) {
        char want[64], got[64];
        type_name(cr.type, &cr.lt, want, sizeof want);
        type_name(type, &lt, got, sizeof got);
        return ig_err(err, -EINVAL,
                      "%s: column '%s' is %s%s; the array is %s (a replaced column keeps its type here; "
                      "save under a new name to add a column, or change it with `ingot replace-column "
                      "--retype`)",
                      what, st->column, cr.lists || cr.num_children || cr.dimension ? "nested " : "", want, got);
    }
    return 0;
}

/* The whole array: a new version (the table lock is the commit's; readers
 * go on), then the table reloaded so the next lookup finds the column. */
static int commit(struct fs_session *s, struct fs_stage *st, struct ig_error *err)
{
    if (fsync(st->fd))
        return ig_err(err, -errno, "columns/%s.npy: %s", st->column, strerror(errno));
    pthread_mutex_lock(&s->erase_mu); /* one change at a time from this daemon */
    atomic_fetch_add(&s->erasing, 1);
    int rc = s->column_io.commit(s->dir, st->path, st->column, st->replace, err);
    if (!rc) fs_reload(s, true, false);
    atomic_fetch_sub(&s->erasing, 1);
    pthread_mutex_unlock(&s->erase_mu);
    return rc;
}

int fs_stage_write(struct fs_session *s, uint64_t ino, uint64_t off, const void *buf, size_t n)
{
    struct fs_staging *g = s->staging;
    if (!g) return -ENOENT;
    pthread_mutex_lock(&g->mu);
    struct fs_stage **slot = find(g, ino), *st = slot ? *slot : NULL;
    int rc = !st ? -ENOENT : st->failed ? -EINVAL : 0;
    if (!rc) rc = ig_pwrite_full(st->fd, buf, n, off);
    struct ig_error err = {0};
    if (!rc) {
        st->last = now_s();
        if (off <= st->done && off + n > st->done) st->done = off + n;
        if (!st->want) {
            rc = check_header(s, st, &err);
            if (rc == -EAGAIN) rc = 0;
        }
        if (!rc && st->want && st->done > st->want)
            rc = ig_err(&err, -EINVAL, "columns/%s.npy: more bytes than its header says",
                        st->column);
    }
    bool whole = !rc && st && st->want && st->done == st->want;
    if (whole) *slot = NULL; /* the commit's now: a rewrite meanwhile starts afresh */
    if (rc && st && rc != -ENOENT && !st->failed) {
        if (err.msg[0]) say(s, "%s%s", "", err.msg);
        /* refused: its bytes go now; the stage stays to refuse the rest */
        st->failed = true;
        close(st->fd);
        st->fd = -1;
        unlink(st->path);
    }
    pthread_mutex_unlock(&g->mu);
    if (!whole) return rc;
    rc = commit(s, st, &err);
    if (rc) say(s, "columns/%s.npy: %s", st->column, err.msg);
    drop(st);
    return rc;
}

void fs_stage_closed(struct fs_session *s, uint64_t ino)
{
    struct fs_staging *g = s->staging;
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    struct fs_stage **slot = find(g, ino);
    if (slot && (*slot)->created) {
        if (!(*slot)->failed)
            say(s, "columns/%s.npy: %s", (*slot)->column,
                "closed before the array was whole: nothing changed");
        drop(*slot);
        *slot = NULL;
    }
    pthread_mutex_unlock(&g->mu);
}

/* The shown top-level column col's name (NUL-terminated, into out): 0,
 * -ENOENT (not shown), -EPERM (a struct's field, or a name no file can have). */
static int top_column_name(struct fs_session *s, uint32_t col, char out[FS_NAME_MAX + 1])
{
    struct ig_colrec cr;
    pthread_rwlock_rdlock(&s->table_lock);
    int rc = ig_table_shows(&s->table, col) ? ig_part_column(&s->table.parts[0], col, &cr, NULL)
                                            : -ENOENT;
    if (!rc && (cr.name_len > FS_NAME_MAX || cr.parent != IG_NONE))
        rc = -EPERM; /* a struct's field */
    if (!rc) snprintf(out, FS_NAME_MAX + 1, "%.*s", (int)cr.name_len, cr.name);
    pthread_rwlock_unlock(&s->table_lock);
    return rc;
}

/* Run a change of columns as the mount's writers do: one at a time with
 * erasures (erase_mu), the table reloaded after it. */
static int change_columns(struct fs_session *s, int (*change)(struct fs_session *s, const void *arg,
                                                              struct ig_error *err),
                          const void *arg, struct ig_error *err)
{
    pthread_mutex_lock(&s->erase_mu);
    atomic_fetch_add(&s->erasing, 1);
    int rc = change(s, arg, err);
    if (!rc) fs_reload(s, true, false);
    atomic_fetch_sub(&s->erasing, 1);
    pthread_mutex_unlock(&s->erase_mu);
    return rc;
}

static int drop_named(struct fs_session *s, const void *arg, struct ig_error *err)
{
    const char *names[] = {arg};
    struct ig_evolve_report rep;
    return ig_drop_columns(s->dir, names, 1, &rep, err);
}

int fs_column_drop(struct fs_session *s, uint32_t col)
{
    if (s->version) return -EROFS;
    char column[FS_NAME_MAX + 1];
    int rc = top_column_name(s, col, column);
    if (rc) return rc;
    struct ig_error err = {0};
    rc = change_columns(s, drop_named, column, &err);
    if (rc) say(s, "rm columns/%s: %s", column, err.msg);
    return rc == -EINVAL ? -EPERM : rc; /* the last column: not removable */
}

struct rename_arg {
    const char *const *pairs; /* from, to, ... */
    size_t n;
};

static int rename_named(struct fs_session *s, const void *arg, struct ig_error *err)
{
    const struct rename_arg *ra = arg;
    struct ig_evolve_report rep;
    return ig_rename_columns(s->dir, ra->pairs, ra->n, &rep, err);
}

int fs_column_rename(struct fs_session *s, uint32_t col, uint32_t view, const char *to_file)
{
    if (s->version) return -EROFS;
    char column[FS_NAME_MAX + 1], to[FS_NAME_MAX + 1];
    size_t len;
    enum fs_view to_view;
    /* the same view of the new name: a file keeps its kind (NAME.npy to NEW.npy) */
    if (!fs_parse_column_file(to_file, to, sizeof to, &len, &to_view) || to_view != view ||
        strlen(to) != len)
        return -EPERM;
    int rc = top_column_name(s, col, column);
    if (rc) return rc;
    struct ig_error err = {0};
    const char *pairs[] = {column, to};
    rc = change_columns(s, rename_named, &(struct rename_arg){pairs, 1}, &err);
    if (rc) say(s, "mv columns/%s: %s", column, err.msg);
    return rc;
}

int fs_column_exchange(struct fs_session *s, uint32_t a, uint32_t b)
{
    if (s->version) return -EROFS;
    if (a == b) return 0;
    char name_a[FS_NAME_MAX + 1], name_b[FS_NAME_MAX + 1];
    int rc = top_column_name(s, a, name_a);
    if (!rc) rc = top_column_name(s, b, name_b);
    if (rc) return rc;
    struct ig_error err = {0};
    const char *pairs[] = {name_a, name_b, name_b, name_a};
    rc = change_columns(s, rename_named, &(struct rename_arg){pairs, 2}, &err);
    if (rc) say(s, "columns/%s exchanged: %s", name_a, err.msg);
    return rc;
}

bool fs_stage_size(struct fs_session *s, uint64_t ino, uint64_t *size)
{
    struct fs_staging *g = s->staging;
    if (!g) return false;
    pthread_mutex_lock(&g->mu);
    struct fs_stage **slot = find(g, ino);
    if (slot) *size = (*slot)->done;
    pthread_mutex_unlock(&g->mu);
    return slot != NULL;
}
