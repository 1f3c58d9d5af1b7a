/* remote.c - a table on object storage: small files, the writers' lock
 * object, uploads and the MANIFEST commit (remote.h); erasure by replacing
 * objects is remote_erase.c's. */
#include "format/part/remote.h"
#include "format/part/remote_int.h"
#include "format/part/versions.h"
#include "store/ranges.h"
#include "store/s3.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


uint64_t ig_remote_env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    return *end ? dflt : (uint64_t)n;
}

static int64_t mono_s(void)
{
    return (int64_t)(ig_now_ns() / 1000000000u);
}

static int64_t mono_ms(void)
{
    return (int64_t)(ig_now_ns() / 1000000u);
}

static void sleep_ms(unsigned ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

int ig_table_file_read(const char *dir, const char *name, size_t max, char **text, size_t *len,
                       struct ig_error *err)
{
    return ig_table_file_read_etag(dir, name, max, text, len, NULL, err);
}

int ig_table_file_read_etag(const char *dir, const char *name, size_t max, char **text, size_t *len,
                            char *etag, struct ig_error *err)
{
    if (etag) etag[0] = '\0';
    if (!ig_store_is_remote(dir)) {
        char path[4300];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
            return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
        return ig_read_file(path, max, text, len, err);
    }
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    struct ig_buf b = IG_BUF_INIT;
    struct ig_obj_info info;
    rc = ig_store_read(st, name, max, &b, &info, err);
    if (!rc && ig_buf_append_byte(&b, 0)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        ig_buf_free(&b);
        return rc;
    }
    if (etag) snprintf(etag, IG_ETAG_MAX, "%s", info.etag);
    *text = (char *)b.data;
    *len = b.len - 1;
    return 0;
}

int ig_remote_file_write(const char *dir, const char *name, const void *data, size_t len,
                         struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    return rc ? rc : ig_store_write(st, name, data, len, NULL, NULL, err);
}

struct list_names {
    int (*fn)(void *ctx, const char *name);
    void *ctx;
};

static int list_name(void *ctx, const struct ig_obj_info *o)
{
    struct list_names *l = ctx;
    return l->fn(l->ctx, o->name);
}

int ig_remote_list(const char *dir, const char *sub, int (*fn)(void *ctx, const char *name),
                   void *ctx, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    struct list_names l = {fn, ctx};
    return rc ? rc : ig_store_list(st, sub, false, list_name, &l, err);
}

/* The versions of one object (an exact name), as listed. */
struct versions_of {
    const char *name;
    struct ig_obj_info *v;
    size_t n, cap;
};

static int collect_version(void *ctx, const struct ig_obj_info *o)
{
    struct versions_of *vs = ctx;
    if (strcmp(o->name, vs->name)) return 0;
    struct ig_obj_info *g = ig_array_room(vs->v, vs->n, &vs->cap, sizeof *g, 8);
    if (!g) return -ENOMEM;
    vs->v = g;
    vs->v[vs->n++] = *o;
    return 0;
}

/* Remove every version of name but `keep` (a version id; NULL: remove all,
 * the current one too). Each removed version is named in *removed. */
int ig_remote_remove_versions(struct ig_store *st, const char *name, const char *keep,
                              struct ig_buf *removed, uint64_t *count, struct ig_error *err)
{
    struct versions_of vs = {name, NULL, 0, 0};
    int rc = ig_store_list(st, name, true, collect_version, &vs, err);
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    for (size_t i = 0; !rc && i < vs.n; i++) {
        const struct ig_obj_info *v = &vs.v[i];
        if (keep && (!v->version_id[0] || !strcmp(v->version_id, keep))) continue;
        rc = ig_store_remove(st, name, v->version_id[0] ? v->version_id : NULL, err);
        if (!rc && count && !v->delete_marker) (*count)++;
        if (!rc && removed && !v->delete_marker)
            ig_buf_printf(removed, "%s%s@%s", removed->len ? " " : "", name,
                          v->version_id[0] ? v->version_id : "null");
    }
    /* nothing listed (a store without versions): the object itself */
    if (!rc && !keep && vs.n == 0) rc = ig_store_remove(st, name, NULL, err);
    free(vs.v);
    return rc;
}

int ig_remote_remove(const char *dir, const char *name, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    return rc ? rc : ig_remote_remove_versions(st, name, NULL, NULL, NULL, err);
}

/* ---- the writers' lock ---------------------------------------------------- */

/* Each writer that wants the lock writes an object of its own under
 * .ingot/lock/ and lists them: the one the store wrote first (its
 * LastModified, by the store's clock; ties by name) holds it, the others
 * remove theirs and try again later. No conditional request is needed (a
 * store may ignore them: radosgw 16 does on buckets that keep versions). A
 * winner lists again after a settling pause (INGOT_S3_LOCK_SETTLE_MS, 100),
 * so that a contender whose write was still in flight at its first listing
 * is seen. The holder renews by writing NAME.alive; an entry whose newest
 * write is INGOT_S3_LOCK_LEASE_S (60) older than the newest entry, or whose
 * writer is a process of this host that is gone, is removed by the next
 * contender. */
#define LOCK_DIR ".ingot/lock/"

struct lock_entry {
    char name[IG_STORE_NAME_MAX];
    int64_t t, alive; /* written, and last renewed (ms, the store's clock) */
};

struct lock_list {
    struct lock_entry *e;
    size_t n, cap;
    int64_t newest;
};

static int lock_seen(void *ctx, const struct ig_obj_info *o)
{
    struct lock_list *l = ctx;
    const char *leaf = o->name + strlen(LOCK_DIR);
    size_t ll = strlen(leaf);
    bool alive = ll > 6 && !strcmp(leaf + ll - 6, ".alive");
    if (o->mtime_ms > l->newest) l->newest = o->mtime_ms;
    for (size_t i = 0; i < l->n; i++)
        if (!strncmp(l->e[i].name, leaf, alive ? ll - 6 : ll) &&
            strlen(l->e[i].name) == (alive ? ll - 6 : ll)) {
            if (alive)
                l->e[i].alive = o->mtime_ms;
            else
                l->e[i].t = o->mtime_ms;
            return 0;
        }
    struct lock_entry *g = ig_array_room(l->e, l->n, &l->cap, sizeof *g, 8);
    if (!g) return -ENOMEM;
    l->e = g;
    struct lock_entry *e = &l->e[l->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%.*s", (int)(alive ? ll - 6 : ll), leaf);
    if (alive)
        e->alive = o->mtime_ms;
    else
        e->t = o->mtime_ms;
    return 0;
}

static void my_host(char *host, size_t cap)
{
    snprintf(host, cap, "?");
    gethostname(host, cap - 1);
    host[cap - 1] = '\0';
    for (char *c = host; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.'))
            *c = '_';
}

/* An entry whose writer is gone: a process of this host that is not there,
 * or no write within the lease of the newest one listed. Names are
 * HOST-PID-NONCE. */
static bool entry_gone(const struct lock_entry *e, int64_t newest)
{
    char host[256], h[256];
    my_host(host, sizeof host);
    long pid = 0;
    const char *d2 = strrchr(e->name, '-');
    if (d2 && d2 > e->name) {
        const char *d1 = d2 - 1;
        while (d1 > e->name && *d1 != '-')
            d1--;
        if (*d1 == '-' && (size_t)(d1 - e->name) < sizeof h) {
            memcpy(h, e->name, (size_t)(d1 - e->name));
            h[d1 - e->name] = '\0';
            pid = strtol(d1 + 1, NULL, 10);
            if (!strcmp(h, host) && pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH) return true;
        }
    }
    int64_t last = e->alive > e->t ? e->alive : e->t;
    return last && newest - last > (int64_t)ig_remote_env_u64("INGOT_S3_LOCK_LEASE_S", 60) * 1000;
}

/* An entry and (alive: it was ever renewed) its renewal. A renewal never
 * written is not removed: on a bucket that keeps versions the removal of a
 * key that is not there leaves a delete marker behind. */
static void remove_entry(struct ig_store *st, const char *leaf, bool alive)
{
    char name[IG_STORE_NAME_MAX + 16];
    snprintf(name, sizeof name, LOCK_DIR "%s", leaf);
    (void)ig_remote_remove_versions(st, name, NULL, NULL, NULL, NULL);
    if (!alive) return;
    snprintf(name, sizeof name, LOCK_DIR "%s.alive", leaf);
    (void)ig_remote_remove_versions(st, name, NULL, NULL, NULL, NULL);
}

/* List the entries, remove those whose writers are gone, and say who holds
 * the lock (the first written): *first. */
static int lock_round(struct ig_store *st, const char *mine, struct lock_entry *first,
                      bool *mine_listed, struct ig_error *err)
{
    struct lock_list l = {0};
    int rc = ig_store_list(st, LOCK_DIR, false, lock_seen, &l, err);
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    memset(first, 0, sizeof *first);
    *mine_listed = false;
    bool have = false;
    for (size_t i = 0; !rc && i < l.n; i++) {
        const struct lock_entry *e = &l.e[i];
        if (!e->t) continue; /* a renewal left after its entry went */
        bool is_mine = !strcmp(e->name, mine);
        *mine_listed |= is_mine;
        if (!is_mine && entry_gone(e, l.newest)) {
            remove_entry(st, e->name, e->alive != 0);
            continue;
        }
        if (!have || e->t < first->t || (e->t == first->t && strcmp(e->name, first->name) < 0)) {
            *first = *e;
            have = true;
        }
    }
    free(l.e);
    return rc;
}

int ig_remote_lock(const char *dir, unsigned wait_ms, struct ig_remote_lock *l,
                   struct ig_error *err)
{
    memset(l, 0, sizeof *l);
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    if (wait_ms == UINT32_MAX) wait_ms = (unsigned)ig_remote_env_u64("INGOT_S3_LOCK_WAIT_S", 30) * 1000;
    unsigned settle = (unsigned)ig_remote_env_u64("INGOT_S3_LOCK_SETTLE_MS", 100);
    int64_t deadline = mono_ms() + wait_ms;
    char host[256];
    my_host(host, sizeof host);
    uint64_t nonce = (uint64_t)mono_ms() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)l;
    unsigned pause = 50;
    for (int attempt = 0;; attempt++) {
        char name[IG_STORE_NAME_MAX + 16], body[512];
        snprintf(l->name, sizeof l->name, "%.200s-%ld-%016" PRIx64 "%02x", host, (long)getpid(),
                 nonce, attempt & 0xff);
        snprintf(name, sizeof name, LOCK_DIR "%s", l->name);
        int bl = snprintf(body, sizeof body, "ingot-lock 2\nhost %s\npid %ld\ntime %lld\n", host,
                          (long)getpid(), (long long)time(NULL));
        rc = ig_store_write(st, name, body, (size_t)bl, NULL, NULL, err);
        if (rc) break;
        struct lock_entry first;
        bool listed;
        rc = lock_round(st, l->name, &first, &listed, err);
        if (!rc && listed && !strcmp(first.name, l->name)) {
            /* first: again after a pause, for a write that was in flight */
            sleep_ms(settle);
            rc = lock_round(st, l->name, &first, &listed, err);
            if (!rc && listed && !strcmp(first.name, l->name)) {
                l->held = true;
                l->renewed = mono_s();
                break;
            }
        }
        remove_entry(st, l->name, false); /* never renewed */
        if (rc) break;
        if (mono_ms() >= deadline) {
            rc =
                ig_err(err, -EBUSY,
                       "%s: the table is locked by another writer (%s, under .ingot/lock/); a lock "
                       "not renewed "
                       "for %" PRIu64 " s lapses",
                       dir, first.name[0] ? first.name : "?", ig_remote_env_u64("INGOT_S3_LOCK_LEASE_S", 60));
            break;
        }
        sleep_ms(pause + (unsigned)(nonce % 50));
        if (pause < 800) pause *= 2;
    }
    return rc;
}

int ig_remote_lock_renew(struct ig_remote_lock *l, struct ig_error *err)
{
    if (l && l->lost)
        return ig_err(err, -ESTALE, "%s: the writers' lock lapsed while this writer worked", l->dir);
    if (!l || !l->held || mono_s() - l->renewed < 5) return 0;
    struct ig_store *st;
    int rc = ig_store_at(l->dir, &st, err);
    if (rc) return rc;
    char name[IG_STORE_NAME_MAX + 16];
    snprintf(name, sizeof name, LOCK_DIR "%s", l->name);
    struct ig_obj_info info;
    /* taken over (removed as gone by another writer): this writer must stop */
    if (ig_store_stat(st, name, &info, NULL) == -ENOENT) {
        l->held = false;
        l->lost = true;
        return ig_remote_lock_renew(l, err);
    }
    snprintf(name, sizeof name, LOCK_DIR "%s.alive", l->name);
    l->alive_written = true; /* (tried: removed at unlock even if the write failed) */
    rc = ig_store_write(st, name, "alive\n", 6, NULL, NULL, err);
    if (!rc) l->renewed = mono_s();
    return rc;
}

void ig_remote_unlock(struct ig_remote_lock *l)
{
    if (!l || !l->held) return;
    l->held = false;
    struct ig_store *st;
    if (ig_store_at(l->dir, &st, NULL) == 0) remove_entry(st, l->name, l->alive_written);
}

/* ---- uploads and the commit --------------------------------------------- */

int ig_remote_upload(const char *local_dir, const char *dir, const char *const *names, size_t n,
                     void (*sent)(void *ctx, uint64_t bytes), void *sent_ctx, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    for (size_t i = 0; !rc && i < n; i++) {
        char path[4300];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", local_dir, names[i]) >= sizeof path)
            return ig_err(err, -ENAMETOOLONG, "%s: path too long", local_dir);
        rc = ig_store_write_file(st, names[i], path, sent, sent_ctx, NULL, NULL, err);
    }
    return rc;
}

int ig_remote_manifest_publish(const char *dir, const struct ig_manifest *m, const char *if_match,
                               bool if_absent, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    struct ig_buf b = IG_BUF_INIT;
    if (ig_manifest_format(m, &b)) {
        ig_buf_free(&b);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    struct ig_store_cond c = {if_match && if_match[0] ? if_match : NULL, if_absent};
    rc = ig_store_write(st, IG_MANIFEST, b.data, b.len, &c, NULL, err);
    ig_buf_free(&b);
    if (rc == -ESTALE)
        rc = ig_err(
            err, -ESTALE,
            if_absent ? "%s: a table exists there already (another writer made it)"
                      : "%s: another writer committed first (MANIFEST changed since it was read); "
                        "nothing of this change is visible",
            dir);
    return rc;
}

int ig_remote_append_line(const char *dir, const char *name, const char *line, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    struct ig_buf b = IG_BUF_INIT;
    for (int tries = 0; !rc && tries < 20; tries++) {
        ig_buf_reset(&b);
        struct ig_obj_info info;
        rc = ig_store_read(st, name, 256u << 20, &b, &info, err);
        bool absent = rc == -ENOENT;
        if (rc && !absent) break;
        if (ig_buf_printf(&b, "%s", line)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        struct ig_store_cond c = {absent ? NULL : info.etag, absent};
        rc = ig_store_write(st, name, b.data, b.len, &c, NULL, err);
        if (rc != -ESTALE) break;
        rc = 0; /* appended by another writer first: again */
        sleep_ms(20u << (tries < 5 ? tries : 5));
    }
    ig_buf_free(&b);
    return rc;
}

void ig_remote_report_free(struct ig_remote_report *r)
{
    ig_buf_free(&r->removed);
}

int ig_remote_stage_dir(char *out, size_t cap, struct ig_error *err)
{
    const char *base = getenv("INGOT_STAGE_DIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char host[256], prefix[300];
    my_host(host, sizeof host);
    /* this host's writers that are gone (killed, so no one removed theirs)
     * left stages that may hold copies of rows (an import's parts, a change's
     * new columns) a later erase would not reach */
    snprintf(prefix, sizeof prefix, "ingot-stage.%s-", host);
    ig_remove_orphans(base, prefix, "-");
    if ((size_t)snprintf(out, cap, "%s/ingot-stage.%s-%d-XXXXXX", base, host, (int)getpid()) >= cap)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", base);
    if (!mkdtemp(out)) return ig_err(err, -errno, "%s: %s", out, strerror(errno));
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/.ingot", out);
    if (mkdir(sub, 0700)) return ig_err(err, -errno, "%s: %s", sub, strerror(errno));
    return 0;
}

/* ---- erasure: objects rewritten from the journal ------------------------ */

bool ig_remote_journal_pending(const char *dir)
{
    struct ig_store *st;
    struct ig_obj_info info;
    return ig_store_at(dir, &st, NULL) == 0 && ig_store_stat(st, JOURNAL_NAME, &info, NULL) == 0;
}
