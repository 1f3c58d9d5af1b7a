/* ingot versions, ingot tag - a table's history (format/part/versions.h). */
#include "cli.h"
#include "cli_json.h"
#include "format/layout.h"
#include "format/part/table.h"
#include "format/part/tag.h"
#include "format/part/versions.h"
#include "util/error.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_versions_usage[] =
    "usage: ingot versions [--json] TABLE\n"
    "  --json  the list as JSON\n"
    "Lists the table's versions, oldest first: number, when it was committed, what\n"
    "it changed, its live rows and columns, and the tags that name it. Every import,\n"
    "append, column added, replaced or dropped and every erasure makes one; `ingot\n"
    "mount --version N` (or versions/N/ in a mount) reads one, `ingot gc` lets old\n"
    "ones go. An erasure reaches every version.\n";

const char cmd_tag_usage[] =
    "usage: ingot tag TABLE NAME [VERSION]\n"
    "       ingot tag --delete TABLE NAME\n"
    "Names a version (default: the current one), so that it can be read by name\n"
    "(ingot mount --tag NAME, tags/NAME/ in a mount) and is kept by `ingot gc`.\n"
    "NAME: letters, digits, '.', '_' and '-', not all digits. On object storage\n"
    "(s3://) the tags object is written under the writers' lock, as MANIFEST is.\n";

/* Live rows and shown top-level columns of version m, with today's parts. */
static void counts(const struct ig_table *t, const struct ig_manifest *m, uint64_t *rows,
                   uint32_t *cols)
{
    *rows = 0;
    *cols = 0;
    for (uint32_t i = 0; i < m->n; i++)
        for (uint32_t k = 0; k < t->nparts; k++)
            if (!strcmp(t->manifest.parts[k].name, m->parts[i].name))
                *rows += t->parts[k].num_rows - t->parts[k].deleted_rows;
    const struct ig_part *p0 = &t->parts[0];
    for (uint32_t c = 0; c < p0->num_columns; c++) {
        struct ig_colrec cr;
        if (ig_part_column(p0, c, &cr, NULL) == 0 && cr.parent == IG_NONE &&
            ig_manifest_shows(m, c))
            (*cols)++;
    }
}

static void when_text(int64_t t, char *out, size_t cap)
{
    if (!t) {
        snprintf(out, cap, "-");
        return;
    }
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cmd_versions(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 'h') {
            fputs(cmd_versions_usage, stdout);
            return 0;
        } else {
            fputs(cmd_versions_usage, stderr);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fputs(cmd_versions_usage, stderr);
        return 2;
    }
    const char *dir = argv[optind];
    struct ig_table t;
    struct ig_error err = {0};
    if (ig_table_open(&t, dir, false, &err)) {
        cli_error("versions: %s", err.msg);
        return 2;
    }
    uint64_t *vs = NULL;
    size_t n = 0;
    struct ig_tag *tags = NULL;
    size_t ntags = 0;
    int rc = ig_version_list(dir, &vs, &n, &err);
    if (!rc) rc = ig_tags_load(dir, &tags, &ntags, NULL, &err);
    bool have_current = false;
    for (size_t i = 0; i < n; i++)
        have_current |= vs[i] == t.manifest.version;
    if (json)
        fputs("[", stdout);
    else if (!rc)
        printf("%-8s %-20s %12s %8s  %s\n", "version", "time", "rows", "columns", "change");
    /* every version kept, and the current one (a table never changed since an
     * older release wrote it has no version file yet) */
    for (size_t i = 0; i <= n && !rc; i++) {
        struct ig_manifest m;
        bool current = i == n;
        if (current && have_current) break;
        if (current) {
            m = t.manifest;
        } else if ((rc = ig_version_load(dir, vs[i], &m, &err))) {
            break;
        }
        uint64_t rows;
        uint32_t cols;
        counts(&t, &m, &rows, &cols);
        char when[32];
        when_text(m.time, when, sizeof when);
        const char *change = m.change[0] ? m.change : "-";
        if (json) {
            printf("%s{\"version\":%" PRIu64 ",\"time\":", i ? "," : "", m.version);
            if (m.time)
                cli_json_string(stdout, when);
            else
                fputs("null", stdout);
            printf(",\"rows\":%" PRIu64 ",\"columns\":%u,\"change\":", rows, cols);
            cli_json_string(stdout, change);
            printf(",\"current\":%s,\"tags\":[",
                   m.version == t.manifest.version ? "true" : "false");
            bool first = true;
            for (size_t k = 0; k < ntags; k++)
                if (tags[k].version == m.version) {
                    fputs(first ? "" : ",", stdout);
                    cli_json_string(stdout, tags[k].name);
                    first = false;
                }
            fputs("]}", stdout);
        } else {
            printf("%-8" PRIu64 " %-20s %12" PRIu64 " %8u  %s", m.version, when, rows, cols,
                   change);
            for (size_t k = 0; k < ntags; k++)
                if (tags[k].version == m.version) printf(" [%s]", tags[k].name);
            printf("%s\n", m.version == t.manifest.version ? " (current)" : "");
        }
        if (!current) ig_manifest_free(&m);
    }
    if (json && !rc) fputs("]\n", stdout);
    free(vs);
    free(tags);
    ig_table_close(&t);
    if (rc) {
        cli_error("versions: %s", err.msg);
        return 2;
    }
    return 0;
}

int cmd_tag(int argc, char **argv)
{
    bool del = argc > 1 && !strcmp(argv[1], "--delete");
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(cmd_tag_usage, stdout);
        return 0;
    }
    char **a = argv + 1 + del;
    int n = argc - 1 - del;
    if (n < 2 || n > (del ? 2 : 3)) {
        fputs(cmd_tag_usage, stderr);
        return 2;
    }
    const char *dir = a[0], *name = a[1];
    if (!ig_tag_name_valid(name)) {
        cli_error("tag: '%s' is not a tag name (letters, digits, '.', '_' and '-', not all digits)",
                  name);
        return 2;
    }
    uint64_t version = n == 3 ? cli_parse_count("VERSION", a[2], 1, UINT64_MAX) : 0, named = 0;
    struct ig_error err = {0};
    int rc = ig_tag_set(dir, name, version, del, &named, &err);
    if (rc) {
        cli_error("tag: %s", err.msg);
        return 2;
    }
    if (del)
        printf("tag '%s' deleted\n", name);
    else
        printf("tag '%s' names version %" PRIu64 "\n", name, named);
    return 0;
}
