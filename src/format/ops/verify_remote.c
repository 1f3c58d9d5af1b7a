/* verify_remote.c - a table on object storage: every object and every
 * version under its prefix accounted for (verify.h).
 *
 * The pages of the current part objects are checked like a part file's
 * (erased rows hold no data). What else is under the prefix must hold no
 * value an erase removed: MANIFEST, version files, tags, the audit log and the
 * lock hold none; an older version of a part or blob object (a bucket that
 * keeps versions) or a part object no MANIFEST names (an import killed before
 * it published) may, and is a failure once the table has erased rows: `ingot
 * erase` removes the older versions of every object it replaces. A journal
 * object is an erase not complete yet, a commit record a change of columns
 * (both settled by verify first unless their writer is at work). A multipart upload started under the
 * prefix and never completed (a writer killed mid-upload) lists as no
 * object, yet its parts are stored and may hold copies of rows: a failure
 * (`ingot gc` aborts it; so does the replay of a killed erase). */
#include "format/ops/verify_int.h"
#include "format/part/commitlog.h"
#include "format/part/manifest.h"
#include "format/part/remote.h"
#include "store/s3.h"
#include "store/store.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vobj {
    const struct ig_table *t;
    void (*fail)(void *ctx, const char *msg);
    void *ctx;
    uint64_t objects, versions;
    size_t prefix_len; /* of the table's keys in the bucket */
};

/* The part of table t whose part or blob file is `name`, or -1. */
static int part_named(const struct ig_table *t, const char *name, bool *blob)
{
    for (uint32_t i = 0; i < t->manifest.n; i++) {
        if (!strcmp(t->manifest.parts[i].name, name)) {
            *blob = false;
            return (int)i;
        }
        if (t->manifest.parts[i].blob[0] && !strcmp(t->manifest.parts[i].blob, name)) {
            *blob = true;
            return (int)i;
        }
    }
    return -1;
}

static bool metadata(const char *name)
{
    return !strcmp(name, IG_MANIFEST) || !strncmp(name, ".ingot/versions/", 16) ||
           !strcmp(name, ".ingot/tags") || !strcmp(name, ".ingot/erasures") ||
           !strncmp(name, ".ingot/lock/", 12);
}

static int visit(void *ctx, const struct ig_obj_info *o)
{
    struct vobj *v = ctx;
    char msg[1200];
    if (o->delete_marker) return 0;
    if (o->latest)
        v->objects++;
    else
        v->versions++;
    if (metadata(o->name)) return 0; /* no values in any version */
    if (!strcmp(o->name, ".ingot/journal") || !strcmp(o->name, IG_COMMIT_FILE)) {
        if (o->latest) {
            /* verify settled what it could first: its writer is at work, or
             * settling it failed and said why */
            bool erase = !strcmp(o->name, ".ingot/journal");
            snprintf(msg, sizeof msg, "%s: %s: its writer is at work, or %s failed (said first)",
                     o->name, erase ? "an erase is not complete" : "a change of columns is not settled",
                     erase ? "completing it" : "settling it");
            v->fail(v->ctx, msg);
        }
        return 0;
    }
    bool blob = false;
    int pi = part_named(v->t, o->name, &blob);
    if (pi < 0) {
        /* gc deletes only what MANIFEST's rules name a part or blob file */
        bool ours = ig_part_name_valid(o->name) || ig_blob_name_valid(o->name);
        snprintf(msg, sizeof msg,
                 "%s%s%s: not part of the table (%s): it may hold values no erase reaches (%s)",
                 o->name, o->version_id[0] ? " version " : "", o->version_id,
                 ours ? "an import stopped before it published?" : "not a name ingot writes",
                 ours ? "ingot gc deletes it" : "ingot gc leaves it: delete it yourself");
        v->fail(v->ctx, msg);
        return 0;
    }
    const struct ig_part *p = &v->t->parts[pi];
    struct ig_obj *cur = blob ? p->blob_obj : p->obj;
    bool checked = o->latest && cur && !strcmp(o->etag, ig_obj_etag(cur));
    if (checked) return 0;
    if (o->latest) {
        snprintf(msg, sizeof msg, "%s: replaced while verify read it (ETag %s): run verify again",
                 o->name, o->etag);
        v->fail(v->ctx, msg);
    } else if (p->deleted_rows) {
        snprintf(msg, sizeof msg,
                 "%s version %s: an older version of an object with erased rows: it may hold their "
                 "values "
                 "(ingot erase removes them; remove it)",
                 o->name, o->version_id[0] ? o->version_id : "null");
        v->fail(v->ctx, msg);
    }
    return 0;
}

static int upload_seen(void *ctx, const char *key, const char *upload_id)
{
    struct vobj *v = ctx;
    char msg[1400];
    snprintf(msg, sizeof msg,
             "%s: a multipart upload never completed (%.64s; a writer killed mid-upload?): its "
             "parts may hold values no erase reaches (ingot gc aborts it)",
             key + (strlen(key) >= v->prefix_len ? v->prefix_len : 0), upload_id);
    v->fail(v->ctx, msg);
    return 0;
}

int ig_verify_objects(const char *dir, const struct ig_table *t,
                      void (*fail)(void *ctx, const char *msg), void *ctx, uint64_t *objects,
                      uint64_t *versions, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    struct vobj v = {t, fail, ctx, 0, 0};
    if (!rc) rc = ig_store_list(st, "", true, visit, &v, err);
    const char *bucket, *prefix;
    struct ig_s3 *s3 = rc ? NULL : ig_store_s3(st, &bucket, &prefix);
    v.prefix_len = s3 ? strlen(prefix) : 0;
    if (s3) rc = ig_s3_mpu_list(s3, bucket, prefix, upload_seen, &v, err);
    *objects = v.objects;
    *versions = v.versions;
    return rc;
}
