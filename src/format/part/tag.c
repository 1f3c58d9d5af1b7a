/* tag.c - a tag set or deleted under the table's writers' lock (tag.h), and
 * that lock as each storage has it. */
#include "format/part/tag.h"
#include "format/part/commit.h"
#include "format/part/lock.h"
#include "format/part/manifest.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ig_writer_hold(const char *dir, struct ig_writer_hold *h, struct ig_error *err)
{
    memset(h, 0, sizeof *h);
    h->fd = -1;
    h->remote = ig_store_is_remote(dir);
    if (!h->remote) {
        h->fd = ig_table_lock(dir, true, err);
        if (h->fd < 0) return h->fd;
        /* what a crash left, settled by the writer holding the lock (a table
         * open under it would wait for the lock to settle it) */
        bool replayed;
        int rc = ig_journal_recover(dir, &replayed, err);
        if (!rc) rc = ig_commit_recover(dir, err);
        if (rc) ig_writer_release(h);
        return rc;
    }
    int rc = ig_remote_lock(dir, UINT32_MAX, &h->rl, err);
    bool replayed;
    if (!rc) rc = ig_commit_settle_remote(dir, &h->rl, &replayed, err);
    if (rc) ig_writer_release(h);
    return rc;
}

int ig_writer_renew(struct ig_writer_hold *h, struct ig_error *err)
{
    return h->remote ? ig_remote_lock_renew(&h->rl, err) : 0;
}

void ig_writer_release(struct ig_writer_hold *h)
{
    if (h->remote)
        ig_remote_unlock(&h->rl);
    else
        ig_table_unlock(h->fd);
    h->fd = -1;
}

/* The tags with name set to version (or removed: del). */
static int change(struct ig_tag **tags, size_t *n, const char *dir, const char *name,
                  uint64_t version, bool del, uint64_t *named, struct ig_error *err)
{
    size_t k = 0;
    while (k < *n && strcmp((*tags)[k].name, name))
        k++;
    if (del) {
        if (k == *n) return ig_err(err, -ENOENT, "%s: no tag '%s'", dir, name);
        *named = (*tags)[k].version;
        memmove(*tags + k, *tags + k + 1, (*n - k - 1) * sizeof **tags);
        (*n)--;
        return 0;
    }
    *named = version;
    if (k < *n) { /* a tag moves */
        (*tags)[k].version = version;
        return 0;
    }
    struct ig_tag *p = realloc(*tags, (*n + 1) * sizeof *p);
    if (!p) return ig_err(err, -ENOMEM, "out of memory");
    *tags = p;
    memset(&p[*n], 0, sizeof p[*n]);
    snprintf(p[*n].name, sizeof p[*n].name, "%s", name);
    p[(*n)++].version = version;
    return 0;
}

int ig_tag_set(const char *dir, const char *name, uint64_t version, bool del, uint64_t *named,
               struct ig_error *err)
{
    if (!ig_tag_name_valid(name))
        return ig_err(err, -EINVAL, "'%s' is not a tag name (letters, digits, '.', '_' and '-', not all digits)",
                      name);
    struct ig_writer_hold h;
    int rc = ig_writer_hold(dir, &h, err);
    if (rc) return rc;
    /* MANIFEST alone says the current version: opening the table would read
     * every part's footer (a request or two per part on object storage) */
    struct ig_manifest now;
    rc = ig_manifest_read(dir, &now, err);
    if (!rc) {
        if (!version) version = now.version;
        if (!del && version != now.version) {
            struct ig_manifest m;
            rc = ig_version_load(dir, version, &m, err); /* kept? */
            if (!rc) ig_manifest_free(&m);
        }
        ig_manifest_free(&now);
    }
    struct ig_tag *tags = NULL;
    size_t n = 0;
    char etag[IG_ETAG_MAX];
    if (!rc) rc = ig_tags_load(dir, &tags, &n, etag, err);
    if (!rc) rc = change(&tags, &n, dir, name, version, del, named, err);
    if (!rc) rc = ig_writer_renew(&h, err);
    /* object storage: only over the tags read (the lock can lapse under a
     * stalled writer; the condition keeps the other's tags then) */
    if (!rc) rc = ig_tags_save(dir, tags, n, etag, err);
    free(tags);
    ig_writer_release(&h);
    return rc;
}
