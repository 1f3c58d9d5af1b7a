/* ingot verify - check every checksum and structure; exit 1 naming what failed. */
#include "cli.h"
#include "cli_json.h"
#include "format/ops/verify.h"
#include "util/error.h"
#include "util/progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_verify_usage[] =
    "usage: ingot verify [--deep] [--cold] [--json] TABLE\n"
    "  --deep  also decode every value and render it, to check the text lengths the\n"
    "          footer records (the mount's text views are sized by them; slower), and\n"
    "          count string chunks' distinct values (Parquet views' dictionaries)\n"
    "          and hold numeric values to their chunks' bounds (their statistics)\n"
    "  --cold  read the disk, not this host's page cache (done anyway on shared storage)\n"
    "  --json  the result as JSON\n"
    "Checks every checksum (blocks, pages, row groups, the Merkle root), that rows\n"
    "follow, that erased rows hold no data and every blob object's hash. Values are\n"
    "decoded where a check needs them (nested columns, blob references), all of\n"
    "them with --deep. Exit 1 naming what failed.\n";

struct vstate {
    bool json;
    bool first;
    struct ig_progress prog;
};

static void on_fail(void *ctx, const char *msg)
{
    struct vstate *s = ctx;
    ig_progress_end(&s->prog);
    if (s->json) {
        fputs(s->first ? "" : ",", stdout);
        cli_json_string(stdout, msg);
        s->first = false;
    } else {
        printf("FAIL %s\n", msg);
    }
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct vstate *s = ctx;
    ig_progress_update(&s->prog, done, total, 0);
}

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'}, {"deep", no_argument, 0, 'd'}, {"cold", no_argument, 0, 'c'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    struct vstate s = {.first = true};
    bool deep = false, cold = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': s.json = true; break;
        case 'd': deep = true; break;
        case 'c': cold = true; break;
        case 'h': fputs(cmd_verify_usage, stdout); return 0;
        default: fputs(cmd_verify_usage, stderr); return 2;
        }
    }
    if (argc - optind != 1) {
        fputs(cmd_verify_usage, stderr);
        return 2;
    }
    const char *dir = argv[optind];
    char what[300];
    snprintf(what, sizeof what, "verifying %s", dir);
    ig_progress_begin(&s.prog, what);
    struct ig_verify_hooks h = {on_fail, on_progress, &s, deep, cold};
    struct ig_verify_report rep;
    struct ig_error err = {0};
    if (s.json) fputs("{\"failures\":[", stdout);
    ig_verify_table(dir, &h, &rep, &err);
    ig_progress_end(&s.prog);
    if (s.json) {
        printf("],\"ok\":%s,\"parts\":%u,\"row_groups\":%" PRIu64 ",\"rows\":%" PRIu64
               ",\"pages\":%" PRIu64 ",\"page_bytes\":%" PRIu64 ",\"released_pages\":%" PRIu64
               ",\"released_bytes\":%" PRIu64 ",\"objects\":%" PRIu64 ",\"object_versions\":%" PRIu64 "}\n",
               rep.failures ? "false" : "true", rep.parts, rep.groups, rep.rows, rep.pages,
               rep.page_bytes, rep.released_pages, rep.released_bytes, rep.objects, rep.object_versions);
    } else if (rep.failures) {
        printf("%s: %" PRIu64 " problem%s found\n", dir, rep.failures, rep.failures == 1 ? "" : "s");
    } else {
        char b[32];
        ig_format_bytes(b, sizeof b, rep.page_bytes);
        printf("%s: ok (%u part%s, %" PRIu64 " row groups, %" PRIu64 " rows, %" PRIu64
               " pages, %s checked",
               dir, rep.parts, rep.parts == 1 ? "" : "s", rep.groups, rep.rows, rep.pages, b);
        if (rep.released_pages) {
            ig_format_bytes(b, sizeof b, rep.released_bytes);
            printf("; %" PRIu64 " released page%s, %s of zeros", rep.released_pages,
                   rep.released_pages == 1 ? "" : "s", b);
        }
        printf(")\n");
        if (rep.objects) /* object storage: what the listing proved */
            printf("%s: %" PRIu64 " objects and %" PRIu64 " older versions listed, none holding an erased "
                   "value\n",
                   dir, rep.objects, rep.object_versions);
    }
    return rep.failures ? 1 : 0;
}
