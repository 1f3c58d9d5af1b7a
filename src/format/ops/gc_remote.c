/* gc_remote.c - objects no kept version needs, deleted (gc_remote.h). */
#include "format/ops/gc_remote.h"
#include "format/part/journal.h"
#include "format/part/remote.h"
#include "format/part/tag.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One object version the listing found that goes. */
struct doomed {
    char name[IG_STORE_NAME_MAX];
    char version_id[IG_VERSION_ID_MAX];
    uint64_t size;
    bool whole; /* a part or blob object no version kept names */
    bool marker;
    bool lock_marker; /* a delete marker under .ingot/lock/ (kept if its key has a version) */
};

struct sweep {
    char (*names)[IG_PART_NAME_MAX];
    size_t n;
    struct doomed *d;
    size_t nd, cap;
    char (*live)[IG_STORE_NAME_MAX]; /* lock entries with a version (not a marker) */
    size_t nlive, livecap;
};

#define LOCK_PREFIX ".ingot/lock/"

static int name_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The table's small objects whose older versions go. */
static bool is_table_file(const char *name)
{
    return !strcmp(name, "MANIFEST") || !strcmp(name, IG_TAGS_FILE) ||
           !strncmp(name, IG_VERSIONS_DIR "/", strlen(IG_VERSIONS_DIR "/"));
}

static int seen(void *ctx, const struct ig_obj_info *o)
{
    struct sweep *s = ctx;
    /* a part or blob object by MANIFEST's own rule for their names */
    bool whole = (ig_part_name_valid(o->name) || ig_blob_name_valid(o->name)) &&
                 !bsearch(o->name, s->names, s->n, sizeof *s->names, name_cmp);
    bool older = is_table_file(o->name) && (!o->latest || o->delete_marker);
    /* a bucket keeping versions keeps a delete marker for each lock entry a
     * writer removed (remote.c): one a key has no version under is nothing */
    bool lock = !strncmp(o->name, LOCK_PREFIX, strlen(LOCK_PREFIX));
    if (lock && !o->delete_marker) {
        char(*g)[IG_STORE_NAME_MAX] = ig_array_room(s->live, s->nlive, &s->livecap, sizeof *g, 16);
        if (!g) return -ENOMEM;
        s->live = g;
        snprintf(s->live[s->nlive++], IG_STORE_NAME_MAX, "%s", o->name);
        return 0;
    }
    if (!whole && !older && !lock) return 0;
    struct doomed *g = ig_array_room(s->d, s->nd, &s->cap, sizeof *g, 64);
    if (!g) return -ENOMEM;
    s->d = g;
    struct doomed *d = &s->d[s->nd++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", o->name);
    snprintf(d->version_id, sizeof d->version_id, "%s", o->version_id);
    d->size = o->delete_marker ? 0 : o->size;
    d->whole = whole;
    d->marker = o->delete_marker;
    d->lock_marker = lock;
    return 0;
}

/* Whether a lock entry's marker is to stay: its key has a version (a writer
 * at work, or one whose entry is the next writer's to judge). */
static bool lock_live(const struct sweep *s, const char *name)
{
    for (size_t i = 0; i < s->nlive; i++)
        if (!strcmp(s->live[i], name)) return true;
    return false;
}

int ig_gc_remote_sweep(const char *dir, char (*names)[IG_PART_NAME_MAX], size_t n, bool dry_run,
                       struct ig_writer_hold *hold, struct ig_fault *f, struct ig_gc_sweep *out,
                       struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    qsort(names, n, sizeof *names, name_cmp);
    struct sweep s = {.names = names, .n = n};
    /* the whole listing first: deleting while listing could skip entries */
    rc = ig_store_list(st, "", true, seen, &s, err);
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    const char *last = "";
    for (size_t i = 0; !rc && i < s.nd; i++) {
        const struct doomed *d = &s.d[i];
        if (d->lock_marker && lock_live(&s, d->name)) continue;
        if (d->whole && strcmp(d->name, last)) out->objects++;
        if (d->whole) last = d->name;
        if (!d->marker) out->versions++;
        out->bytes += d->size;
        if (dry_run) continue;
        rc = ig_writer_renew(hold, err);
        if (!rc) rc = ig_store_remove(st, d->name, d->version_id[0] ? d->version_id : NULL, err);
        if (rc == -ENOENT) rc = 0; /* gone already (a gc before this one) */
        ig_fault_step(f);
    }
    free(s.d);
    free(s.live);
    if (!rc)
        rc = ig_remote_abort_uploads(dir, dry_run, hold ? &hold->rl : NULL, f, &out->uploads, err);
    return rc;
}
