/* ingot gc - let old versions go and release what only they showed
 * (format/ops/gc.h). */
#include "cli.h"
#include "format/ops/gc.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_gc_usage[] =
    "usage: ingot gc [--keep N] [--older-than DURATION] [--dry-run] [--json] TABLE\n"
    "  --keep N          keep the newest N versions\n"
    "  --older-than D    remove only versions older than D: a number and a unit,\n"
    "                    s, m, h, d or w (30d, 12h)\n"
    "  --dry-run         say what would go; change nothing\n"
    "  --json            the report as JSON\n"
    "Removes the versions the rules let go (with both rules, a version goes only if\n"
    "both let it); the current version and tagged versions (ingot tag) always stay.\n"
    "Then every column that no version kept shows any more (replaced or dropped in\n"
    "a later version) is released: its pages are overwritten with zeros in place,\n"
    "so its old values are gone from the files, the space goes back to the file\n"
    "system, and its records in the footers keep no checksum, count or bound of\n"
    "them. The versions kept read as before; reading a removed one says gc removed\n"
    "it. A crash at any point leaves a table that reads and verifies; running gc\n"
    "again finishes the work.\n"
    "On object storage (s3://) nothing is zero-filled: under the writers' lock it\n"
    "deletes the part and blob objects no version kept names (with every version\n"
    "of them) and the older versions of MANIFEST, tags and version files that a\n"
    "bucket keeping versions holds, and aborts multipart uploads left incomplete.\n";

/* "30d" -> seconds; -1 when it is not a duration. */
static int64_t parse_duration(const char *s)
{
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    if (end == s || *s == '-' || !end[0] || end[1]) return -1;
    int64_t unit;
    switch (*end) {
    case 's':
        unit = 1;
        break;
    case 'm':
        unit = 60;
        break;
    case 'h':
        unit = 3600;
        break;
    case 'd':
        unit = 86400;
        break;
    case 'w':
        unit = 7 * 86400;
        break;
    default:
        return -1;
    }
    if (n > (unsigned long long)(INT64_MAX / unit)) return -1;
    return (int64_t)n * unit;
}

static void print_versions(const uint64_t *v, size_t n)
{
    struct ig_buf b = IG_BUF_INIT;
    if (ig_versions_format(v, n, &b) == 0) fwrite(b.data, 1, b.len, stdout);
    ig_buf_free(&b);
}

static void print_json_list(const char *key, const uint64_t *v, size_t n)
{
    printf("\"%s\":[", key);
    for (size_t i = 0; i < n; i++)
        printf("%s%" PRIu64, i ? "," : "", v[i]);
    printf("]");
}

static void print_json(const struct ig_gc_report *r, bool dry_run)
{
    printf("{\"dry_run\":%s,\"current\":%" PRIu64 ",", dry_run ? "true" : "false", r->current);
    print_json_list("removed", r->removed, r->nremoved);
    printf(",");
    print_json_list("kept", r->kept, r->nkept);
    printf(",\"columns\":%u,\"column_records\":%u,\"pages\":%" PRIu64 ",\"page_bytes\":%" PRIu64
           ",\"blob_objects\":%" PRIu64 ",\"blob_bytes\":%" PRIu64 ",\"disk_bytes_before\":%" PRIu64
           ",\"disk_bytes_after\":%" PRIu64 ",\"old_parts\":%u,\"objects\":%" PRIu64
           ",\"object_versions\":%" PRIu64 ",\"object_bytes\":%" PRIu64 ",\"uploads\":%" PRIu64
           ",\"objects_replaced\":%" PRIu64 ",\"bytes_uploaded\":%" PRIu64 ",\"bytes_copied\":%" PRIu64
           "}\n",
           r->columns, r->records, r->pages, r->page_bytes, r->blob_objects, r->blob_bytes,
           r->disk_before, r->disk_after, r->old_parts, r->objects, r->object_versions, r->object_bytes, r->uploads,
           r->objects_replaced, r->bytes_uploaded, r->bytes_copied);
}

static void print_text(const struct ig_gc_report *r, bool dry_run, bool remote)
{
    char b1[32], b2[32];
    if (r->nremoved) {
        printf("%s %zu version%s (", dry_run ? "would remove" : "removed", r->nremoved,
               r->nremoved == 1 ? "" : "s");
        print_versions(r->removed, r->nremoved);
        printf(")");
    } else {
        printf("%s no version", dry_run ? "would remove" : "removed");
    }
    printf("; %s ", dry_run ? "would keep" : "kept");
    print_versions(r->kept, r->nkept);
    printf(" (current %" PRIu64 ")\n", r->current);
    if (remote) { /* objects deleted too (gc_remote.h) */
        ig_format_bytes(b1, sizeof b1, r->object_bytes);
        printf("%s %" PRIu64 " part object%s no version kept names; %" PRIu64 " object version%s in all (%s)\n",
               dry_run ? "would delete" : "deleted", r->objects, r->objects == 1 ? "" : "s",
               r->object_versions, r->object_versions == 1 ? "" : "s", b1);
        if (r->uploads)
            printf("%s %" PRIu64 " multipart upload%s left incomplete\n", dry_run ? "would abort" : "aborted",
                   r->uploads, r->uploads == 1 ? "" : "s");
    }
    if (r->records) {
        ig_format_bytes(b1, sizeof b1, r->page_bytes);
        printf("%s %u column%s (%u column record%s): %" PRIu64 " page%s, %s zeroed",
               dry_run ? "would release" : "released", r->columns, r->columns == 1 ? "" : "s",
               r->records, r->records == 1 ? "" : "s", r->pages, r->pages == 1 ? "" : "s", b1);
        if (r->blob_objects) {
            ig_format_bytes(b2, sizeof b2, r->blob_bytes);
            printf(", %" PRIu64 " blob object%s (%s)", r->blob_objects,
                   r->blob_objects == 1 ? "" : "s", b2);
        }
        printf("\n");
        if (r->objects_replaced) /* object storage: the zeros written by replacing objects */
            printf("%" PRIu64 " object%s replaced (%" PRIu64 " bytes uploaded, %" PRIu64
                   " copied by the store)\n",
                   r->objects_replaced, r->objects_replaced == 1 ? "" : "s", r->bytes_uploaded,
                   r->bytes_copied);
    } else {
        printf("%s no column: each is shown by a version kept, or was released before\n",
               dry_run ? "would release" : "released");
    }
    if (!dry_run && !remote) {
        ig_format_bytes(b1, sizeof b1, r->disk_before);
        ig_format_bytes(b2, sizeof b2, r->disk_after);
        printf("on disk: %s before, %s after\n", b1, b2);
    }
    if (r->old_parts)
        printf("%u part%s older than format 10 keep%s the pages of columns no version shows\n",
               r->old_parts, r->old_parts == 1 ? "" : "s", r->old_parts == 1 ? "s" : "");
}

int cmd_gc(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"keep", required_argument, 0, 'k'}, {"older-than", required_argument, 0, 'o'},
        {"dry-run", no_argument, 0, 'n'},    {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    struct ig_gc_request req = {0};
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            req.keep_set = true;
            req.keep = cli_parse_count("--keep", optarg, 0, UINT64_MAX);
            break;
        case 'o':
            req.age_set = true;
            req.older_than = parse_duration(optarg);
            if (req.older_than < 0) {
                cli_error(
                    "gc: --older-than: expected a number and a unit (s, m, h, d or w), got '%s'",
                    optarg);
                return 2;
            }
            break;
        case 'n':
            req.dry_run = true;
            break;
        case 'j':
            json = true;
            break;
        case 'h':
            fputs(cmd_gc_usage, stdout);
            return 0;
        default:
            fputs(cmd_gc_usage, stderr);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fputs(cmd_gc_usage, stderr);
        return 2;
    }
    if (!req.keep_set && !req.age_set) {
        cli_error("gc: say which versions go: --keep N, --older-than DURATION, or both");
        return 2;
    }
    const char *dir = argv[optind];
    struct ig_gc_report rep;
    struct ig_error err = {0};
    struct ig_progress prog;
    ig_progress_begin(&prog, "gc");
    if (prog.on) {
        req.progress = ig_progress_bytes_hook; /* released pages zero-filled so far */
        req.progress_ctx = &prog;
    }
    int rc = ig_gc(dir, &req, &rep, &err);
    ig_progress_end(&prog);
    if (rc) {
        cli_error("gc: %s", err.msg);
        return 2;
    }
    if (json)
        print_json(&rep, req.dry_run);
    else
        print_text(&rep, req.dry_run, ig_store_is_remote(dir));
    ig_gc_report_free(&rep);
    return 0;
}
