/* tag.c - a tag set or deleted under the table's writers' lock (tag.h), and
 * that lock as each storage has it. */
#include "format/part/tag.h"
#include "format/part/lock.h"
#include "format/part/table.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"

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
        return h->fd < 0 ? h->fd : 0;
    }
    int rc = ig_remote_lock(dir, UINT32_MAX, &h->rl, err);
    bool replayed;
    if (!rc) rc = ig_remote_recover_locked(dir, &h->rl, &replayed, err);
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

/* The tags as they are, and (object storage) the ETag they were read with
 * ("" and *absent when there is no tags object yet). */
static int read_tags(const char *dir, struct ig_tag **tags, size_t *n, char *etag, size_t cap,
                     bool *absent, struct ig_error *err)
{
    *absent = false;
    etag[0] = '\0';
    if (!ig_store_is_remote(dir)) return ig_tags_load(dir, tags, n, err);
    *tags = NULL;
    *n = 0;
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    struct ig_buf b = IG_BUF_INIT;
    struct ig_obj_info info;
    if (!rc) rc = ig_store_read(st, IG_TAGS_FILE, 16u << 20, &b, &info, err);
    if (rc == -ENOENT) {
        *absent = true;
        ig_err_clear(err);
        ig_buf_free(&b);
        return 0;
    }
    if (!rc && ig_buf_append_byte(&b, 0)) rc = ig_err(err, -ENOMEM, "out of memory");
    char what[4300];
    snprintf(what, sizeof what, "%s/%s", dir, IG_TAGS_FILE);
    if (!rc) rc = ig_tags_parse((char *)b.data, b.len - 1, what, tags, n, err);
    if (!rc) snprintf(etag, cap, "%s", info.etag);
    ig_buf_free(&b);
    return rc;
}

/* The tags written whole: a file (versions.c), or the object under If-Match
 * on the ETag read (If-None-Match where there was none). */
static int write_tags(const char *dir, const struct ig_tag *tags, size_t n, const char *etag,
                      bool absent, struct ig_error *err)
{
    if (!ig_store_is_remote(dir)) return ig_tags_save(dir, tags, n, err);
    struct ig_buf b = IG_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = ig_buf_printf(&b, "%s %" PRIu64 "\n", tags[i].name, tags[i].version);
    if (!rc) rc = ig_buf_printf(&b, "end %016" PRIx64 "\n", ig_hash(b.data, b.len));
    struct ig_store *st = NULL;
    rc = rc ? ig_err(err, -ENOMEM, "out of memory") : ig_store_at(dir, &st, err);
    struct ig_store_cond c = {etag[0] ? etag : NULL, absent};
    if (!rc) rc = ig_store_write(st, IG_TAGS_FILE, b.data, b.len, &c, NULL, err);
    if (rc == -ESTALE)
        rc = ig_err(err, rc, "%s: another writer changed the tags since they were read; nothing "
                             "was changed",
                    dir);
    ig_buf_free(&b);
    return rc;
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
    struct ig_table t;
    bool open = false;
    rc = ig_table_open(&t, dir, false, err);
    open = !rc;
    if (!rc && !version) version = t.manifest.version;
    if (!rc && !del && version != t.manifest.version) {
        struct ig_manifest m;
        rc = ig_version_load(dir, version, &m, err); /* kept? */
        if (!rc) ig_manifest_free(&m);
    }
    struct ig_tag *tags = NULL;
    size_t n = 0;
    char etag[128];
    bool absent;
    if (!rc) rc = read_tags(dir, &tags, &n, etag, sizeof etag, &absent, err);
    if (!rc) rc = change(&tags, &n, dir, name, version, del, named, err);
    if (!rc) rc = ig_writer_renew(&h, err);
    if (!rc) rc = write_tags(dir, tags, n, etag, absent, err);
    free(tags);
    if (open) ig_table_close(&t);
    ig_writer_release(&h);
    return rc;
}
