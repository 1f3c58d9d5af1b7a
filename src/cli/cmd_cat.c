/* ingot cat - a column's text rendering, one line per live row. */
#include "cli.h"
#include "cat_rows.h"
#include "format/ops/column_text.h"
#include "format/part/table.h"
#include "format/part/versions.h"
#include "util/error.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

const char cmd_cat_usage[] =
    "usage: ingot cat [--group G] [--version V] TABLE COLUMN\n"
    "       ingot cat --rows IDS | --rows-from FILE [--version V] TABLE [COLUMN...]\n"
    "  --group G         only row group G\n"
    "  --version V       an older version (a number or a tag: ingot versions lists them)\n"
    "  --rows IDS        these rows (5,17,100-104) as JSON Lines, like rows/ID of a mount\n"
    "  --rows-from FILE  the row ids listed in FILE (one id or A-B per line; - is stdin)\n";

static int emit(void *ctx, const void *p, size_t n)
{
    return fwrite(p, 1, n, ctx) == n ? 0 : -EIO;
}

int cmd_cat(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"group", required_argument, 0, 'g'}, {"rows", required_argument, 0, 'r'},
        {"rows-from", required_argument, 0, 'f'}, {"version", required_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *version_spec = NULL;
    long long group = -1;
    struct cli_ids ids = {0};
    bool by_row = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "g:", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': group = (long long)cli_parse_count("--group", optarg, 0, UINT32_MAX - 1); break;
        case 'r':
            by_row = true;
            if (cli_ids_parse(&ids, "--rows", optarg)) goto usage_error;
            break;
        case 'f':
            by_row = true;
            if (cli_ids_read(&ids, optarg)) goto usage_error;
            break;
        case 'v': version_spec = optarg; break;
        case 'h': cli_ids_free(&ids); fputs(cmd_cat_usage, stdout); return 0;
        default: fputs(cmd_cat_usage, stderr); goto usage_error;
        }
    }
    uint64_t version = 0;
    struct ig_error verr = {0};
    if (version_spec && argc - optind >= 1 && ig_version_resolve(argv[optind], version_spec, &version, &verr)) {
        cli_error("cat: %s", verr.msg);
        cli_ids_free(&ids);
        return 2;
    }
    if (by_row && argc - optind >= 1 && group < 0) {
        int rc = cli_cat_rows(argv[optind], version, &ids, argv + optind + 1, argc - optind - 1);
        cli_ids_free(&ids);
        return rc;
    }
    cli_ids_free(&ids);
    if (argc - optind != 2) {
        fputs(cmd_cat_usage, stderr);
        return 2;
    }
    const char *dir = argv[optind], *name = argv[optind + 1];
    struct ig_error err = {0};
    struct ig_table t;
    if (ig_table_open_version(&t, dir, version, false, &err)) {
        cli_error("cat: %s", err.msg);
        return 2;
    }
    int rc = 0;
    struct ig_column_ref col;
    if (ig_table_column(&t, name, strlen(name), &col, &err)) {
        cli_error("cat: %s", err.msg);
        rc = 2;
    } else if (group >= 0 && (uint64_t)group >= t.num_groups) {
        cli_error("%s: no row group %lld (the table has %u)", dir, group, t.num_groups);
        rc = 2;
    } else {
        static char obuf[1 << 20];
        setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
        if (ig_column_text(&t, &col, group < 0 ? UINT32_MAX : (uint32_t)group, emit, stdout,
                           &err)) {
            fflush(stdout);
            cli_error("cat: %s", err.msg);
            rc = 2;
        } else if (fflush(stdout)) {
            cli_error("writing output: %s", strerror(errno));
            rc = 2;
        }
    }
    ig_table_close(&t);
    return rc;
usage_error:
    cli_ids_free(&ids);
    return 2;
}
