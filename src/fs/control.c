/* control.c - erasing through the mount: batches written to .ingot/erase, rm rows/ID (control.h). */
#include "control.h"
#include "invalidate.h"
#include "session.h"
#include "format/ops/erase.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

struct fs_batch *fs_batch_new(void) { return calloc(1, sizeof(struct fs_batch)); }

void fs_batch_free(struct fs_batch *b)
{
    if (!b) return;
    ig_buf_free(&b->pending);
    ig_u64vec_free(&b->rows);
    for (size_t i = 0; i < b->nwhere; i++)
        free(b->where[i]);
    free(b->where);
    free(b);
}

static void batch_clear(struct fs_batch *b)
{
    ig_buf_reset(&b->pending);
    b->rows.n = 0;
    for (size_t i = 0; i < b->nwhere; i++)
        free(b->where[i]);
    b->nwhere = 0;
    b->error = 0;
}

/* A COLUMN=VALUE line must pass the check `ingot erase --where` applies. */
static int check_where(struct fs_session *s, const char *col, const char *val)
{
    pthread_rwlock_rdlock(&s->table_lock);
    int rc = ig_erase_check_where(&s->table, col, val, NULL);
    pthread_rwlock_unlock(&s->table_lock);
    return rc ? -EINVAL : 0;
}

static int add_line(struct fs_session *s, struct fs_batch *b, char *line, size_t n)
{
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        line[--n] = '\0';
    while (n && (*line == ' ' || *line == '\t'))
        line++, n--;
    if (n == 0 || line[0] == '#') return 0;
    if (memchr(line, '\0', n)) return -EINVAL;
    char *eq = memchr(line, '=', n);
    if (!eq) {
        uint64_t id = 0;
        for (size_t i = 0; i < n; i++) {
            if (line[i] < '0' || line[i] > '9' || id > (UINT64_MAX - 9) / 10) return -EINVAL;
            id = id * 10 + (uint64_t)(line[i] - '0');
        }
        /* check now too, so shells (which ignore close errors) see ENOENT */
        uint32_t pi;
        uint64_t local;
        pthread_rwlock_rdlock(&s->table_lock);
        bool live = ig_table_row(&s->table, id, &pi, &local) == 0 &&
                    !ig_part_row_deleted(&s->table.parts[pi], local);
        pthread_rwlock_unlock(&s->table_lock);
        if (!live) return -ENOENT;
        return ig_u64vec_push(&b->rows, id);
    }
    if (eq == line) return -EINVAL;
    *eq = '\0';
    int rc = check_where(s, line, eq + 1);
    *eq = '=';
    if (rc) return rc;
    char **w = realloc(b->where, (b->nwhere + 1) * sizeof *w);
    if (!w) return -ENOMEM;
    b->where = w;
    b->where[b->nwhere] = strndup(line, n);
    return b->where[b->nwhere++] ? 0 : -ENOMEM;
}

int fs_batch_write(struct fs_session *s, struct fs_batch *b, const char *p, size_t n)
{
    if (b->error) return b->error;
    if (ig_buf_append(&b->pending, p, n)) return -ENOMEM;
    size_t start = 0;
    for (size_t i = 0; i < b->pending.len; i++) {
        if (b->pending.data[i] != '\n') continue;
        b->pending.data[i] = '\0';
        int rc = add_line(s, b, (char *)b->pending.data + start, i - start);
        if (rc) {
            b->error = rc;
            return rc;
        }
        start = i + 1;
    }
    memmove(b->pending.data, b->pending.data + start, b->pending.len - start);
    b->pending.len -= start;
    return 0;
}

int fs_batch_apply(struct fs_session *s, struct fs_batch *b, int64_t uid, int64_t pid)
{
    int rc = b->error;
    if (!rc && b->pending.len) {
        /* a last line without a newline */
        if (ig_buf_append_byte(&b->pending, '\0')) return -ENOMEM;
        rc = add_line(s, b, (char *)b->pending.data, b->pending.len - 1);
    }
    if (!rc && (b->rows.n || b->nwhere))
        rc = fs_erase_rows(s, b->rows.v, b->rows.n, b->where, b->nwhere, uid, pid);
    batch_clear(b);
    return rc;
}

int fs_erase_rows(struct fs_session *s, const uint64_t *rows, size_t n, char **where, size_t nwhere,
                  int64_t uid, int64_t pid)
{
    struct ig_erase_where *w = calloc(nwhere + 1, sizeof *w);
    if (!w) return -ENOMEM;
    for (size_t i = 0; i < nwhere; i++) {
        char *eq = strchr(where[i], '=');
        *eq = '\0';
        w[i] = (struct ig_erase_where){where[i], eq + 1};
    }
    struct ig_erase_request req = {rows, n, w, nwhere, "mount", uid, pid};
    struct ig_erase_report rep;
    struct ig_error err = {0};
    pthread_mutex_lock(&s->erase_mu);
    atomic_fetch_add(&s->erasing, 1); /* reads from part mappings check (fs_writer_seen) */
    int rc = ig_erase(s->dir, &req, &rep, &err);
    if (!rc) {
        /* the handler answers after the names go (fs_reply_after_names); with
         * view names cached the names thread reloads, dropping them first */
        if (!fs_view_names_cached(&s->vnames)) fs_reload(s, true, false);
        free(rep.ids);
    }
    atomic_fetch_sub(&s->erasing, 1);
    pthread_mutex_unlock(&s->erase_mu);
    for (size_t i = 0; i < nwhere; i++)
        where[i][strlen(where[i])] = '='; /* restore */
    free(w);
    if (rc && rc != -ENOENT && rc != -EINVAL) {
        if (s->foreground)
            fprintf(stderr, "ingot: erase: %s\n", err.msg);
        else
            syslog(LOG_ERR, "ingot: erase: %s", err.msg);
    }
    return rc;
}
