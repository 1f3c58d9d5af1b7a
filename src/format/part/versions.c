/* versions.c - version files and tags (versions.h). */
#include "format/part/versions.h"
#include "format/part/footer.h"
#include "format/part/remote.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int versions_dir(const char *dir, char *out, size_t cap, struct ig_error *err)
{
    if ((size_t)snprintf(out, cap, "%s/%s", dir, IG_VERSIONS_DIR) >= cap)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    return 0;
}

/* A manifest that shows "every column" (written before versions) means the
 * columns the parts had then: a version's file names them, since a later
 * commit adds records. */
static int pin_columns(const char *dir, const struct ig_manifest *m, struct ig_manifest *out,
                       struct ig_error *err)
{
    if (ig_manifest_copy(out, m)) return ig_err(err, -ENOMEM, "out of memory");
    if (m->listed || !m->n) return 0;
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, m->parts[0].name);
    struct ig_part p;
    int rc = ig_part_open_at(&p, path, m->parts[0].footer_end, false, err);
    if (rc) {
        ig_manifest_free(out);
        return rc;
    }
    ig_idset_free(&out->columns);
    rc = p.num_columns && ig_idset_add(&out->columns, 0, p.num_columns)
             ? ig_err(err, -ENOMEM, "out of memory")
             : 0;
    out->listed = true;
    ig_part_close(&p);
    if (rc) ig_manifest_free(out);
    return rc;
}

int ig_version_save(const char *dir, const struct ig_manifest *m0, struct ig_error *err)
{
    struct ig_manifest pinned, *m = &pinned;
    int prc = pin_columns(dir, m0, &pinned, err);
    if (prc) return prc;
    char vdir[4200], ingot[4200], name[32];
    int rc = versions_dir(dir, vdir, sizeof vdir, err);
    if (rc) {
        ig_manifest_free(&pinned);
        return rc;
    }
    if (ig_store_is_remote(dir)) { /* an object of its own, written whole */
        struct ig_buf t = IG_BUF_INIT;
        snprintf(name, sizeof name, "%s/%010" PRIu64, IG_VERSIONS_DIR, m->version);
        rc = ig_manifest_format(m, &t) ? ig_err(err, -ENOMEM, "out of memory")
                                       : ig_remote_file_write(dir, name, t.data, t.len, err);
        ig_buf_free(&t);
        ig_manifest_free(&pinned);
        return rc;
    }
    snprintf(ingot, sizeof ingot, "%s/.ingot", dir);
    if ((mkdir(ingot, 0755) && errno != EEXIST) || (mkdir(vdir, 0755) && errno != EEXIST)) {
        ig_manifest_free(&pinned);
        return ig_err(err, -errno, "%s: %s", vdir, strerror(errno));
    }
    snprintf(name, sizeof name, "%010" PRIu64, m->version);
    struct ig_buf b = IG_BUF_INIT;
    rc = ig_manifest_format(m, &b);
    if (!rc)
        rc = ig_write_file_atomic(vdir, name, b.data, b.len, err);
    else
        rc = ig_err(err, rc, "out of memory");
    ig_buf_free(&b);
    ig_manifest_free(&pinned);
    return rc;
}

bool ig_version_kept(const char *dir, uint64_t version)
{
    char path[4300];
    if (version && ig_store_is_remote(dir)) { /* no access(): the object is read */
        char rel[64], *text;
        size_t len;
        snprintf(rel, sizeof rel, "%s/%010" PRIu64, IG_VERSIONS_DIR, version);
        if (ig_table_file_read(dir, rel, 64u << 20, &text, &len, NULL)) return false;
        free(text);
        return true;
    }
    return version &&
           (size_t)snprintf(path, sizeof path, "%s/%s/%010" PRIu64, dir, IG_VERSIONS_DIR, version) < sizeof path &&
           access(path, F_OK) == 0;
}

int ig_version_load(const char *dir, uint64_t version, struct ig_manifest *m, struct ig_error *err)
{
    char path[4300], what[4400];
    if ((size_t)snprintf(path, sizeof path, "%s/%s/%010" PRIu64, dir, IG_VERSIONS_DIR, version) >=
        sizeof path)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    char *text;
    size_t len;
    char rel[64];
    snprintf(rel, sizeof rel, "%s/%010" PRIu64, IG_VERSIONS_DIR, version);
    int rc = ig_table_file_read(dir, rel, 64u << 20, &text, &len, NULL);
    if (rc == -ENOENT) {
        /* every commit writes its version's file: one missing below the
         * current version was removed (versions are numbered 1, 2, 3, ...) */
        struct ig_manifest now;
        bool removed = false;
        if (ig_manifest_read(dir, &now, NULL) == 0) {
            removed = version < now.version;
            ig_manifest_free(&now);
        }
        if (removed)
            return ig_err(err, rc,
                          "%s: version %" PRIu64 " was removed by ingot gc (ingot versions lists "
                          "those kept)",
                          dir, version);
        return ig_err(err, rc, "%s: no version %" PRIu64 " (ingot versions lists them)", dir,
                      version);
    }
    if (rc) return ig_err(err, rc, "%s: %s", path, strerror(-rc));
    snprintf(what, sizeof what, "%s: version %" PRIu64, dir, version);
    rc = ig_manifest_parse(text, len, what, m, err);
    free(text);
    if (!rc && m->version != version) {
        ig_manifest_free(m);
        rc = ig_err(err, -EIO, "%s says it is version %" PRIu64, path, m->version);
    }
    /* past MANIFEST's version: a commit not made (yet) */
    struct ig_manifest now;
    if (!rc && ig_manifest_read(dir, &now, NULL) == 0) {
        if (now.version < version) {
            ig_manifest_free(m);
            rc = ig_err(err, -ENOENT, "%s: no version %" PRIu64 " (ingot versions lists them)",
                        dir, version);
        }
        ig_manifest_free(&now);
    }
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Versions named by a listing of a table's objects. */
struct found {
    uint64_t *v;
    size_t n, cap;
};

static int add_listed(void *ctx, const char *name)
{
    struct found *f = ctx;
    const char *leaf = name + strlen(IG_VERSIONS_DIR "/");
    char *end;
    if (strlen(leaf) != 10 || leaf[0] < '0' || leaf[0] > '9') return 0;
    uint64_t v = strtoull(leaf, &end, 10);
    if (*end || v == 0) return 0;
    uint64_t *g = ig_array_room(f->v, f->n, &f->cap, sizeof *g, 64);
    if (!g) return -ENOMEM;
    f->v = g;
    f->v[f->n++] = v;
    return 0;
}

static int list_version_files(const char *vdir, uint64_t **versions, size_t *n, struct ig_error *err);

int ig_version_list(const char *dir, uint64_t **versions, size_t *n, struct ig_error *err)
{
    char vdir[4200];
    *versions = NULL;
    *n = 0;
    int rc = versions_dir(dir, vdir, sizeof vdir, err);
    if (rc) return rc;
    if (ig_store_is_remote(dir)) {
        struct found f = {NULL, 0, 0};
        rc = ig_remote_list(dir, IG_VERSIONS_DIR "/", add_listed, &f, err);
        if (rc) {
            free(f.v);
            return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
        }
        *versions = f.v;
        *n = f.n;
    } else {
        rc = list_version_files(vdir, versions, n, err);
        if (rc) return rc;
    }
    /* a file past MANIFEST's version is a commit in progress, or one a crash
     * stopped before its commit point (the next commit writes it again) */
    struct ig_manifest now;
    if (*n && ig_manifest_read(dir, &now, NULL) == 0) {
        size_t kept = 0;
        for (size_t i = 0; i < *n; i++)
            if ((*versions)[i] <= now.version) (*versions)[kept++] = (*versions)[i];
        *n = kept;
        ig_manifest_free(&now);
    }
    if (*n > 1) qsort(*versions, *n, sizeof **versions, cmp_u64);
    if (!*n) {
        free(*versions);
        *versions = NULL;
    }
    return 0;
}

/* The version files of a directory (any order). */
static int list_version_files(const char *vdir, uint64_t **versions, size_t *n, struct ig_error *err)
{
    DIR *d = opendir(vdir);
    if (!d) return errno == ENOENT ? 0 : ig_err(err, -errno, "%s: %s", vdir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        if (strlen(e->d_name) != 10 || e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        uint64_t v = strtoull(e->d_name, &end, 10);
        if (*end || v == 0) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            uint64_t *p = realloc(*versions, cap * sizeof *p);
            if (!p) {
                closedir(d);
                free(*versions);
                *versions = NULL;
                return ig_err(err, -ENOMEM, "out of memory");
            }
            *versions = p;
        }
        (*versions)[(*n)++] = v;
    }
    closedir(d);
    return 0;
}

int ig_version_of_erase(const char *dir, struct ig_manifest *m, uint64_t g, bool *made,
                        struct ig_error *err)
{
    *made = m->generation < g;
    if (!*made) return 0;
    int rc = 0;
    if (m->format == 1) { /* its version 1 gets its file first */
        if (!m->change[0]) snprintf(m->change, sizeof m->change, "%s", "import");
        rc = ig_version_save(dir, m, err);
    }
    m->generation = g;
    m->version++;
    m->time = (int64_t)time(NULL);
    snprintf(m->change, sizeof m->change, "%s", "erase");
    return rc ? rc : ig_version_save(dir, m, err);
}

int ig_version_remove(const char *dir, uint64_t version, struct ig_error *err)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s/%010" PRIu64, dir, IG_VERSIONS_DIR, version);
    if (ig_store_is_remote(dir)) return ig_remote_remove(dir, path + strlen(dir) + 1, err);
    if (unlink(path) && errno != ENOENT)
        return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    return 0;
}

int ig_versions_kept(const char *dir, uint64_t current, uint64_t **versions, size_t *n,
                     struct ig_error *err)
{
    int rc = ig_version_list(dir, versions, n, err);
    if (rc) return rc;
    for (size_t i = 0; i < *n; i++)
        if ((*versions)[i] == current) return 0;
    uint64_t *p = realloc(*versions, (*n + 1) * sizeof *p);
    if (!p) {
        free(*versions);
        *versions = NULL;
        *n = 0;
        return ig_err(err, -ENOMEM, "out of memory");
    }
    p[(*n)++] = current;
    qsort(p, *n, sizeof *p, cmp_u64);
    *versions = p;
    return 0;
}

int ig_versions_format(const uint64_t *v, size_t n, struct ig_buf *out)
{
    if (!n) return ig_buf_printf(out, "-");
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        rc = ig_buf_printf(out, "%s%" PRIu64, i ? "," : "", v[i]);
        if (!rc && j > i) rc = ig_buf_printf(out, "-%" PRIu64, v[j]);
        i = j + 1;
    }
    return rc;
}

static int add_shown(const struct ig_manifest *m, struct ig_idset *shown, bool *every)
{
    if (!m->listed) {
        *every = true;
        return 0;
    }
    for (size_t r = 0; r < m->columns.n; r++)
        if (ig_idset_add(shown, m->columns.runs[r].first, m->columns.runs[r].count)) return -ENOMEM;
    return 0;
}

/* m's columns into shown[i] for every part i of `current` that m lists too
 * (by name; both list their parts in row order). */
static int add_shown_by_part(const struct ig_manifest *current, const struct ig_manifest *m,
                             struct ig_idset *shown, bool *every)
{
    size_t j = 0;
    for (size_t i = 0; i < current->n; i++) {
        const struct ig_manifest_part *cp = &current->parts[i];
        while (j < m->n && m->parts[j].first_row < cp->first_row) j++;
        if (j < m->n && !strcmp(m->parts[j].name, cp->name) && add_shown(m, &shown[i], &every[i]))
            return -ENOMEM;
    }
    return 0;
}

int ig_versions_shown(const char *dir, const struct ig_manifest *current, struct ig_idset *shown,
                      bool *every, struct ig_error *err)
{
    for (size_t i = 0; i < current->n; i++) {
        shown[i] = (struct ig_idset){0};
        every[i] = false;
    }
    uint64_t *vs;
    size_t n;
    int rc = ig_version_list(dir, &vs, &n, err);
    if (!rc && add_shown_by_part(current, current, shown, every)) rc = ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        struct ig_manifest m;
        if (vs[i] == current->version) continue; /* MANIFEST says it */
        rc = ig_version_load(dir, vs[i], &m, err);
        if (rc) break;
        if (add_shown_by_part(current, &m, shown, every)) rc = ig_err(err, -ENOMEM, "out of memory");
        ig_manifest_free(&m);
    }
    free(vs);
    if (rc)
        for (size_t i = 0; i < current->n; i++) ig_idset_free(&shown[i]);
    return rc;
}

bool ig_tag_name_valid(const char *name)
{
    size_t n = strlen(name);
    bool digits = true;
    if (n == 0 || n > IG_TAG_MAX || name[0] == '.' || name[0] == '-') return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok) return false;
        digits &= c >= '0' && c <= '9';
    }
    return !digits && strcmp(name, "end") != 0; /* "end" would read as the file's end line */
}

static int tag_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ig_tag *)a)->name, ((const struct ig_tag *)b)->name);
}

int ig_tags_parse(char *text, size_t len, const char *what, struct ig_tag **tags, size_t *n,
                  struct ig_error *err)
{
    *tags = NULL;
    *n = 0;
    char *end_line = NULL;
    for (char *p = text; p < text + len;) {
        if (!strncmp(p, "end ", 4)) {
            end_line = p;
            break;
        }
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl) break;
        p = nl + 1;
    }
    if (!end_line || ig_hash(text, (size_t)(end_line - text)) != strtoull(end_line + 4, NULL, 16))
        return ig_err(err, -EIO, "%s: damaged (no end line, or its hash does not match)", what);
    *end_line = '\0';
    size_t cap = 0;
    int rc = 0;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln && !rc; ln = strtok_r(NULL, "\n", &save)) {
        struct ig_tag t = {0};
        char name[IG_TAG_MAX + 2];
        if (sscanf(ln, "%65s %" SCNu64, name, &t.version) != 2 || !ig_tag_name_valid(name) ||
            !t.version) {
            rc = ig_err(err, -EIO, "%s: cannot parse '%.200s'", what, ln);
            break;
        }
        memcpy(t.name, name, strlen(name) + 1); /* valid: at most IG_TAG_MAX bytes */
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            struct ig_tag *p = realloc(*tags, cap * sizeof *p);
            if (!p) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
            *tags = p;
        }
        (*tags)[(*n)++] = t;
    }
    if (rc) {
        free(*tags);
        *tags = NULL;
        *n = 0;
        return rc;
    }
    if (*n > 1) qsort(*tags, *n, sizeof **tags, tag_cmp); /* none: tags is NULL */
    return 0;
}

int ig_tags_load(const char *dir, struct ig_tag **tags, size_t *n, char *etag, struct ig_error *err)
{
    char path[4300];
    *tags = NULL;
    *n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, IG_TAGS_FILE);
    char *text;
    size_t len;
    int rc = ig_table_file_read_etag(dir, IG_TAGS_FILE, 16u << 20, &text, &len, etag, NULL);
    if (rc == -ENOENT) return 0;
    if (rc) return ig_err(err, rc, "%s: %s", path, strerror(-rc));
    rc = ig_tags_parse(text, len, path, tags, n, err);
    free(text);
    return rc;
}

int ig_tags_save(const char *dir, const struct ig_tag *tags, size_t n, const char *if_etag,
                 struct ig_error *err)
{
    bool remote = ig_store_is_remote(dir);
    char ingot[4200];
    snprintf(ingot, sizeof ingot, "%s/.ingot", dir);
    if (!remote && mkdir(ingot, 0755) && errno != EEXIST)
        return ig_err(err, -errno, "%s: %s", ingot, strerror(errno));
    struct ig_buf b = IG_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = ig_buf_printf(&b, "%s %" PRIu64 "\n", tags[i].name, tags[i].version);
    if (!rc) rc = ig_buf_printf(&b, "end %016" PRIx64 "\n", ig_hash(b.data, b.len));
    if (rc) {
        ig_buf_free(&b);
        return ig_err(err, rc, "out of memory");
    }
    struct ig_store *st = NULL;
    if (remote) rc = ig_store_at(dir, &st, err);
    struct ig_store_cond c = {if_etag && if_etag[0] ? if_etag : NULL, if_etag && !if_etag[0]};
    if (remote && !rc)
        rc = ig_store_write(st, IG_TAGS_FILE, b.data, b.len, if_etag ? &c : NULL, NULL, err);
    if (!remote) rc = ig_write_file_atomic(ingot, "tags", b.data, b.len, err);
    if (rc == -ESTALE)
        rc = ig_err(err, rc,
                    "%s: another writer changed the tags since they were read; nothing "
                    "was changed",
                    dir);
    ig_buf_free(&b);
    return rc;
}

int ig_version_resolve(const char *dir, const char *spec, uint64_t *version, struct ig_error *err)
{
    char *end;
    uint64_t v = strtoull(spec, &end, 10);
    if (*spec >= '0' && *spec <= '9' && !*end) {
        if (!v) return ig_err(err, -ENOENT, "%s: versions count from 1", dir);
        *version = v;
        return 0;
    }
    struct ig_tag *tags;
    size_t n;
    int rc = ig_tags_load(dir, &tags, &n, NULL, err);
    if (rc) return rc;
    rc = ig_err(err, -ENOENT, "%s: no version or tag '%s' (ingot versions lists them)", dir, spec);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tags[i].name, spec)) {
            *version = tags[i].version;
            rc = 0;
            break;
        }
    free(tags);
    return rc;
}
