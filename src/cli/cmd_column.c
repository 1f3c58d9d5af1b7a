/* ingot add-column, replace-column, drop-column - change a table's columns;
 * each makes a new version (format/ops/evolve.h). */
#include "cli.h"
#include "format/ops/evolve.h"
#include "import/columns.h"
#include "util/error.h"

#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_add_column_usage[] =
    "usage: ingot add-column [--name NAME] TABLE FILE.npy\n"
    "  --name NAME  the column's name (default: the file's name without .npy)\n"
    "Adds a column: row k of the array goes to the table's k-th live row (rows in id\n"
    "order), so the array has as many rows as the table has live rows. A 1-D array\n"
    "becomes a column of its dtype (NULL where a row was erased), a 2-D float32 array\n"
    "(rows, D) a vector<float32, D>. Only the new column's pages are written, beside\n"
    "every part's; the table gets a new version (ingot versions), older versions do\n"
    "not show the column.\n";

const char cmd_replace_column_usage[] =
    "usage: ingot replace-column [--name NAME] TABLE FILE.npy\n"
    "  --name NAME  the column to replace (default: the file's name without .npy)\n"
    "Replaces a column's values (a backfill), row k of the array going to the k-th\n"
    "live row; the type must stay the same. The old values stay readable through\n"
    "older versions until `ingot gc` lets those versions go; an erasure reaches them\n"
    "either way.\n";

const char cmd_drop_column_usage[] =
    "usage: ingot drop-column TABLE COLUMN...\n"
    "Stops showing the columns from the new version on (nothing is rewritten); older\n"
    "versions still show them until `ingot gc` lets those versions go.\n";

/* The column name a file gives: its base name without ".npy". */
static void name_from_file(const char *path, char *out, size_t cap)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    const char *base = basename(copy);
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".npy")) n -= 4;
    snprintf(out, cap, "%.*s", (int)n, base);
}

static int add_or_replace(int argc, char **argv, bool replace)
{
    static const struct option longopts[] = {
        {"name", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *usage = replace ? cmd_replace_column_usage : cmd_add_column_usage;
    const char *name = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            name = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (argc - optind != 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *table = argv[optind], *file = argv[optind + 1];
    char derived[4096];
    if (!name) {
        name_from_file(file, derived, sizeof derived);
        name = derived;
    }
    struct ig_column_input in = {.path = file, .name = name, .replace = replace};
    struct ig_evolve_report rep;
    struct ig_error err = {0};
    int rc = ig_add_column_from(table, &in, &rep, &err);
    if (rc) {
        cli_error("%s: %s", replace ? "replace-column" : "add-column", err.msg);
        return 2;
    }
    printf("%s '%s': version %" PRIu64 ", %" PRIu64 " bytes written\n",
           replace ? "replaced" : "added", name, rep.version, rep.bytes_written);
    return 0;
}

int cmd_add_column(int argc, char **argv)
{
    return add_or_replace(argc, argv, false);
}
int cmd_replace_column(int argc, char **argv)
{
    return add_or_replace(argc, argv, true);
}

int cmd_drop_column(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(cmd_drop_column_usage, stdout);
        return 0;
    }
    if (argc < 3) {
        fputs(cmd_drop_column_usage, stderr);
        return 2;
    }
    struct ig_evolve_report rep;
    struct ig_error err = {0};
    int rc =
        ig_drop_columns(argv[1], (const char *const *)argv + 2, (size_t)(argc - 2), &rep, &err);
    if (rc) {
        cli_error("drop-column: %s", err.msg);
        return 2;
    }
    printf("dropped %d column%s: version %" PRIu64 "\n", argc - 2, argc == 3 ? "" : "s",
           rep.version);
    return 0;
}
