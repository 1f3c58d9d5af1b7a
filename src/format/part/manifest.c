/* manifest.c - MANIFEST: which parts make the table, in order, and the table
 * generation; read and checked, written atomically (manifest.h). */
#include "format/part/manifest.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ig_part_file_name(char *out, uint32_t index)
{
    snprintf(out, IG_PART_NAME_MAX, "part-%06u.ingot", index);
}

void ig_blob_file_name(char *out, uint32_t index)
{
    snprintf(out, IG_PART_NAME_MAX, "part-%06u.blob", index);
}

static bool valid_blob_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 11 || n >= IG_PART_NAME_MAX || strncmp(s, "part-", 5) != 0) return false;
    if (strcmp(s + n - 5, ".blob") != 0) return false;
    for (size_t i = 5; i < n - 5; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static bool valid_part_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 12 || n >= IG_PART_NAME_MAX || strncmp(s, "part-", 5) != 0) return false;
    if (strcmp(s + n - 6, ".ingot") != 0) return false;
    for (size_t i = 5; i < n - 6; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

int ig_manifest_add(struct ig_manifest *m, const char *name, uint64_t first_row, uint64_t rows)
{
    void *p = realloc(m->parts, (m->n + 1) * sizeof *m->parts);
    if (!p) return -ENOMEM;
    m->parts = p;
    struct ig_manifest_part *mp = &m->parts[m->n++];
    memset(mp, 0, sizeof *mp);
    snprintf(mp->name, sizeof mp->name, "%s", name);
    mp->first_row = first_row;
    mp->rows = rows;
    return 0;
}

void ig_manifest_free(struct ig_manifest *m)
{
    free(m->parts);
    memset(m, 0, sizeof *m);
}

int ig_manifest_read(const char *dir, struct ig_manifest *m, struct ig_error *err)
{
    memset(m, 0, sizeof *m);
    char path[4096];
    if (ig_path_join(path, sizeof path, dir, IG_MANIFEST))
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    char *text;
    size_t len;
    int rc = ig_read_file(path, 64u << 20, &text, &len, err);
    if (rc) {
        if (rc == -ENOENT) return ig_err(err, rc, "%s: not an ingot table (no MANIFEST)", dir);
        return rc;
    }
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
    if (!end_line) {
        free(text);
        return ig_err(err, -EIO, "%s: MANIFEST is truncated (no end line)", dir);
    }
    uint64_t want = strtoull(end_line + 4, NULL, 16);
    if (ig_hash(text, (size_t)(end_line - text)) != want) {
        free(text);
        return ig_err(err, -EIO, "%s: MANIFEST checksum mismatch", dir);
    }
    *end_line = '\0';
    unsigned line = 0;
    rc = 0;
    uint64_t next_row = 0;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln && !rc; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        char name[IG_PART_NAME_MAX + 1];
        unsigned version;
        uint64_t a, b;
        if (line == 1) {
            if (sscanf(ln, "ingot-manifest %u", &version) != 1 || version != 1)
                rc = ig_err(err, -EIO, "%s: MANIFEST: unsupported header '%s'", dir, ln);
        } else if (sscanf(ln, "generation %" SCNu64, &a) == 1) {
            m->generation = a;
        } else if (sscanf(ln, "part %64s %" SCNu64 " %" SCNu64, name, &a, &b) == 3) {
            char blob[IG_PART_NAME_MAX + 1] = "";
            const char *opt = strstr(ln, " blob=");
            if (opt && sscanf(opt, " blob=%64s", blob) != 1) blob[0] = '\0';
            if (!valid_part_name(name) || (opt && !valid_blob_name(blob)))
                rc = ig_err(err, -EIO, "%s: MANIFEST line %u: bad part name", dir, line);
            else if (a != next_row)
                rc = ig_err(err, -EIO, "%s: MANIFEST line %u: part starts at row %" PRIu64
                                       ", expected %" PRIu64, dir, line, a, next_row);
            else if (ig_manifest_add(m, name, a, b))
                rc = ig_err(err, -ENOMEM, "out of memory");
            else
                snprintf(m->parts[m->n - 1].blob, IG_PART_NAME_MAX, "%s", blob);
            next_row = a + b;
        } else {
            rc = ig_err(err, -EIO, "%s: MANIFEST line %u: cannot parse '%s'", dir, line, ln);
        }
    }
    free(text);
    if (!rc && m->n == 0) rc = ig_err(err, -EIO, "%s: MANIFEST lists no parts", dir);
    if (rc) ig_manifest_free(m);
    return rc;
}

int ig_manifest_write(const char *dir, const struct ig_manifest *m, struct ig_error *err)
{
    struct ig_buf b = IG_BUF_INIT;
    int rc = ig_buf_printf(&b, "ingot-manifest 1\ngeneration %" PRIu64 "\n", m->generation);
    for (uint32_t i = 0; i < m->n && !rc; i++)
        rc = ig_buf_printf(&b, "part %s %" PRIu64 " %" PRIu64 "%s%s\n", m->parts[i].name,
                           m->parts[i].first_row, m->parts[i].rows,
                           m->parts[i].blob[0] ? " blob=" : "", m->parts[i].blob);
    if (!rc) rc = ig_buf_printf(&b, "end %016" PRIx64 "\n", ig_hash(b.data, b.len));
    if (rc) {
        ig_buf_free(&b);
        return ig_err(err, rc, "out of memory");
    }
    rc = ig_write_file_atomic(dir, IG_MANIFEST, b.data, b.len, err);
    ig_buf_free(&b);
    return rc;
}
