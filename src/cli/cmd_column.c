/* ingot add-column, replace-column, update, drop-column - change a table's
 * columns; each makes a new version (format/ops/evolve.h). */
#include "cli.h"
#include "inputs.h"
#include "import/spool.h"
#include "format/ops/evolve.h"
#include "import/columns.h"
#include "util/cpu.h"
#include "util/error.h"
#include "util/progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_add_column_usage[] =
    "usage: ingot add-column [OPTIONS] TABLE FILE...\n"
    "  FILE.npy      one column: row k of the array goes to the table's k-th live row\n"
    "                (rows in id order), so the array has as many rows as the table\n"
    "                has live rows; a 1-D array becomes a column of its dtype\n"
    "                (datetime64: date or timestamp(unit), timedelta64: time(unit);\n"
    "                NaT is NULL), a 2-D float32 array (rows, D) a vector<float32, D>\n"
    "  FILE          CSV, JSON Lines or Parquet: every column but the key becomes a\n"
    "                column, each row going to the table row its key names; either\n"
    "                may be gzip or zstd compressed (x.csv.gz, x.npy.zst), or - for\n"
    "                standard input (a keyed file needs --format, a .npy --name);\n"
    "                several keyed files (or a directory) are read as one, their\n"
    "                columns by name as import reads several inputs: one version\n"
    "  --name NAME   the column's name (a .npy: default its file name; a keyed file\n"
    "                with one column besides the key: renames it)\n"
    "  --key COL     the key: a column of the file and of the table (integers or\n"
    "                strings) whose equal values match rows (default: the file's\n"
    "                _rowid column, which holds row ids, else id when both have one)\n"
    "  --schema FILE the file's column types (as import --schema): nested, vector,\n"
    "                quantised and blob columns (a blob value is a file's path,\n"
    "                relative to FILE's directory: its bytes are copied in)\n"
    "  --format csv|jsonl|npy|parquet   (default: from the name or the magic)\n"
    "  --delimiter C CSV field separator (default: as import finds it)\n"
    "  --require-all every live row must be named by the file (else the rows it does\n"
    "                not name are NULL; the columns then keep the file's nullability)\n"
    "  --ignore-missing  leave out rows of the file whose key names no live row (else\n"
    "                an error naming the first few)\n"
    "  --first       show the new columns first (default: last)\n"
    "  --after COL   show them right after column COL\n"
    "  --json        print the result as JSON\n"
    "Only the new columns' pages are written, beside every part's; the table gets a\n"
    "new version (ingot versions), older versions do not show the columns. Erased\n"
    "rows are NULL. A key given twice, or held by two live rows, is an error.\n";

const char cmd_replace_column_usage[] =
    "usage: ingot replace-column [OPTIONS] TABLE FILE...\n"
    "Replaces columns' values whole (a backfill), from a .npy (row k to the k-th live\n"
    "row) or a keyed CSV, JSON Lines or Parquet file (every column but the key\n"
    "replaces the table's column of its name; rows the file does not name are NULL).\n"
    "The type must stay the same (CSV and JSON Lines are read as the table's types;\n"
    "a Parquet column of a narrower type, int32 into int64, is widened) unless\n"
    "--retype: then the column takes the file's type (a .npy's dtype, a\n"
    "Parquet file's, --schema's, or as CSV and JSON Lines values infer), as int64\n"
    "days become a date column; older versions keep the old type. The column keeps\n"
    "its place among the table's columns.\n"
    "The old values stay readable through older versions until `ingot gc` lets those\n"
    "versions go; an erasure reaches them either way. Options as add-column, and\n"
    "  --retype      the new values' type becomes the column's\n";

const char cmd_update_usage[] =
    "usage: ingot update [OPTIONS] TABLE --column COL [--column COL2...] --from FILE\n"
    "  --column COL  a flat column of the table to update (and of the file)\n"
    "  --from FILE   CSV, JSON Lines or Parquet, its rows named by a key (gzip or\n"
    "                zstd compressed, or - for standard input, as add-column);\n"
    "                again, or a directory, for several files read as one\n"
    "  --key COL     the key (default: the file's _rowid column, which holds row ids,\n"
    "                else id when the file and the table both have one)\n"
    "  --schema FILE, --format F, --delimiter C, --ignore-missing, --json\n"
    "                as add-column\n"
    "Makes a new version in which the rows the file names hold its values and every\n"
    "other row keeps its own; the type stays (CSV and JSON Lines are read as the\n"
    "table's types; a Parquet column of a narrower type, int32 into int64 or\n"
    "float32 into float64, is widened). Only the columns' new pages are written, under one commit: a\n"
    "crash leaves the old version or the new one. Older versions keep the old values\n"
    "until `ingot gc` lets them go.\n";

const char cmd_drop_column_usage[] =
    "usage: ingot drop-column [--json] TABLE COLUMN...\n"
    "Stops showing the columns from the new version on (nothing is rewritten); older\n"
    "versions still show them until `ingot gc` lets those versions go. --json prints\n"
    "{\"version\": N, \"columns\": K}.\n";

const char cmd_rename_column_usage[] =
    "usage: ingot rename-column [--json] TABLE OLD NEW [OLD NEW]...\n"
    "Shows column OLD as NEW from the new version on (a struct's fields follow it);\n"
    "nothing is rewritten: the parts keep the name it was written with and MANIFEST\n"
    "gives it the new one. Older versions show the old name. Several pairs make one\n"
    "version, their names checked as they are after all of them (two columns may\n"
    "swap names). A name another column has is refused. --json prints\n"
    "{\"version\": N, \"columns\": K}.\n";

const char cmd_move_column_usage[] =
    "usage: ingot move-column [--json] TABLE NAME --first | --after OTHER\n"
    "Shows column NAME first, or right after column OTHER (a struct's fields go\n"
    "with it), from the new version on: rows, schema, the views. Nothing is\n"
    "rewritten. Older versions keep their order. --json prints\n"
    "{\"version\": N, \"columns\": 1}.\n";

const char cmd_restore_columns_usage[] =
    "usage: ingot restore-columns [--json] TABLE VERSION|TAG\n"
    "Shows the columns an older version showed, under the names it gave them, as a\n"
    "new version: a bad backfill, drop or rename undone. Nothing is rewritten. Rows\n"
    "stay as they are now: rows appended since keep showing, rows erased since stay\n"
    "erased. A version `ingot gc` let go cannot be restored. --json prints\n"
    "{\"version\": N, \"columns\": K}.\n";

/* The column name a file gives: its base name without ".npy". */
static void name_from_file(const char *path, char *out, size_t cap)
{
    char copy[4096];
    ig_spool_plain_name(path, copy, sizeof copy); /* x.npy.gz: x.npy */
    const char *base = basename(copy);
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".npy")) n -= 4;
    snprintf(out, cap, "%.*s", (int)n, base);
}

enum column_cmd { ADD, REPLACE, UPDATE };

static const char *cmd_name(enum column_cmd cmd)
{
    return cmd == ADD ? "add-column" : cmd == REPLACE ? "replace-column" : "update";
}

static int usage_error(const char *usage)
{
    fputs(usage, stderr);
    return 2;
}

static void print_result(enum column_cmd cmd, const struct ig_evolve_report *rep,
                         const struct ig_column_counts *n, const char *name, bool keyed, bool json)
{
    if (json) {
        printf("{\"version\":%" PRIu64 ",\"columns\":%u,\"bytes_written\":%" PRIu64
               ",\"objects_replaced\":%" PRIu64 ",\"bytes_uploaded\":%" PRIu64
               ",\"bytes_copied\":%" PRIu64,
               rep->version, rep->columns, rep->bytes_written, rep->objects_replaced,
               rep->bytes_uploaded, rep->bytes_copied);
        if (keyed)
            printf(",\"input_rows\":%" PRIu64 ",\"matched\":%" PRIu64 ",\"ignored\":%" PRIu64
                   ",\"unmatched\":%" PRIu64,
                   n->input_rows, n->matched, n->ignored, n->unmatched);
        printf("}\n");
        return;
    }
    const char *did = cmd == ADD ? "added" : cmd == REPLACE ? "replaced" : "updated";
    if (name)
        printf("%s '%s': version %" PRIu64 ", %" PRIu64 " bytes written\n", did, name, rep->version,
               rep->bytes_written);
    else
        printf("%s %u column%s: version %" PRIu64 ", %" PRIu64 " bytes written\n", did,
               rep->columns, rep->columns == 1 ? "" : "s", rep->version, rep->bytes_written);
    if (rep->objects_replaced || rep->bytes_uploaded) /* object storage: what crossed the network */
        printf("%" PRIu64 " object%s replaced (%" PRIu64 " bytes uploaded, %" PRIu64
               " copied by the store)\n",
               rep->objects_replaced, rep->objects_replaced == 1 ? "" : "s", rep->bytes_uploaded,
               rep->bytes_copied);
    if (keyed)
        printf("%" PRIu64 " row%s matched; %" PRIu64 " other live row%s %s; %" PRIu64
               " row%s of the file left out\n",
               n->matched, n->matched == 1 ? "" : "s", n->unmatched, n->unmatched == 1 ? "" : "s",
               cmd == UPDATE ? "kept their values" : "NULL", n->ignored,
               n->ignored == 1 ? "" : "s");
}

static int column_command(int argc, char **argv, enum column_cmd cmd)
{
    enum {
        O_NAME = 256,
        O_KEY,
        O_SCHEMA,
        O_FORMAT,
        O_DELIM,
        O_REQUIRE,
        O_IGNORE,
        O_JSON,
        O_COLUMN,
        O_FROM,
        O_RETYPE,
        O_FIRST,
        O_AFTER
    };
    static const struct option longopts[] = {{"name", required_argument, 0, O_NAME},
                                             {"key", required_argument, 0, O_KEY},
                                             {"schema", required_argument, 0, O_SCHEMA},
                                             {"format", required_argument, 0, O_FORMAT},
                                             {"delimiter", required_argument, 0, O_DELIM},
                                             {"require-all", no_argument, 0, O_REQUIRE},
                                             {"ignore-missing", no_argument, 0, O_IGNORE},
                                             {"json", no_argument, 0, O_JSON},
                                             {"column", required_argument, 0, O_COLUMN},
                                             {"from", required_argument, 0, O_FROM},
                                             {"retype", no_argument, 0, O_RETYPE},
                                             {"first", no_argument, 0, O_FIRST},
                                             {"after", required_argument, 0, O_AFTER},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *usage = cmd == ADD       ? cmd_add_column_usage
                        : cmd == REPLACE ? cmd_replace_column_usage
                                         : cmd_update_usage;
    struct ig_column_input in = {.replace = cmd == REPLACE};
    const char **columns = calloc((size_t)argc + 1, sizeof *columns);
    char **from = calloc((size_t)argc + 1, sizeof *from); /* update's --from files */
    size_t ncolumns = 0, nfrom = 0;
    bool json = false;
    int c, rc = 0;
    if (!columns || !from) {
        free(from);
        cli_error("%s: out of memory", cmd_name(cmd));
        return 2;
    }
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        bool update_only = c == O_COLUMN || c == O_FROM;
        bool add_only = c == O_NAME || c == O_REQUIRE;
        bool placing = c == O_FIRST || c == O_AFTER;
        if ((update_only && cmd != UPDATE) || (add_only && cmd == UPDATE) || (c == O_RETYPE && cmd != REPLACE) ||
            (placing && cmd != ADD))
            c = '?';
        switch (c) {
        case O_NAME:
            in.name = optarg;
            break;
        case O_KEY:
            in.key = optarg;
            break;
        case O_SCHEMA:
            in.schema_path = optarg;
            break;
        case O_FORMAT:
            in.format = !strcmp(optarg, "csv")                                  ? IG_INPUT_CSV
                        : !strcmp(optarg, "jsonl") || !strcmp(optarg, "ndjson") ? IG_INPUT_JSONL
                        : !strcmp(optarg, "npy")                                ? IG_INPUT_NPY
                        : !strcmp(optarg, "parquet")                            ? IG_INPUT_PARQUET
                                                                                : IG_INPUT_AUTO;
            if (in.format == IG_INPUT_AUTO) {
                cli_error("%s: --format: expected csv, jsonl, npy or parquet, got '%s'",
                          cmd_name(cmd), optarg);
                rc = 2;
            }
            break;
        case O_DELIM:
            if (!strcmp(optarg, "\\t"))
                in.delimiter = '\t';
            else if (strlen(optarg) == 1)
                in.delimiter = optarg[0];
            else {
                cli_error("%s: --delimiter: expected one character, got %s", cmd_name(cmd), optarg);
                rc = 2;
            }
            break;
        case O_REQUIRE:
            in.require_all = true;
            break;
        case O_IGNORE:
            in.ignore_missing = true;
            break;
        case O_JSON:
            json = true;
            break;
        case O_COLUMN:
            columns[ncolumns++] = optarg;
            break;
        case O_FROM:
            from[nfrom++] = optarg;
            break;
        case O_RETYPE:
            in.retype = true;
            break;
        case O_FIRST:
            in.first = true;
            break;
        case O_AFTER:
            in.after = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            free(columns);
            free(from);
            return 0;
        default:
            rc = usage_error(usage);
            break;
        }
    }
    bool args_ok = cmd == UPDATE ? argc - optind == 1 && nfrom && ncolumns : argc - optind >= 2;
    if (!rc && (!args_ok || (in.first && in.after))) rc = usage_error(usage);
    /* the files (a directory: its files, as import takes them) */
    struct cli_inputs files = {0};
    if (!rc && cli_inputs_expand(&files, cmd == UPDATE ? from : argv + optind + 1,
                                 cmd == UPDATE ? nfrom : (size_t)(argc - optind - 1)))
        rc = 2;
    free(from);
    if (rc) {
        free(columns);
        cli_inputs_free(&files);
        return rc;
    }
    const char *table = argv[optind];
    in.path = files.paths[0];
    in.paths = (const char *const *)files.paths;
    in.npaths = files.n;
    enum ig_input_format fmt = ig_input_format_of(in.format, in.path, -1);
    bool keyed = fmt != IG_INPUT_NPY;
    char derived[4096];
    if (!in.name && !keyed && !strcmp(in.path, "-")) {
        free(columns);
        cli_inputs_free(&files);
        cli_error("%s: a .npy on standard input names no column: pass --name", cmd_name(cmd));
        return 2;
    }
    if (!in.name && !keyed) {
        name_from_file(in.path, derived, sizeof derived);
        in.name = derived;
    }
    struct ig_writer_opts wo;
    ig_writer_opts_default(&wo);
    wo.threads = ig_cpu_cores();
    in.writer = &wo;
    struct ig_evolve_report rep;
    struct ig_column_counts counts;
    struct ig_error err = {0};
    /* the rows given their values, then on object storage the objects' replacement */
    struct ig_progress_pair prog;
    char replacing[300];
    snprintf(replacing, sizeof replacing, "replacing objects of %s", table);
    ig_progress_pair_begin(&prog, cmd_name(cmd), replacing);
    if (prog.first.on) {
        in.progress = ig_progress_rows_hook; /* rows given their values so far */
        in.progress_ctx = &prog.first;
        in.replace_progress = ig_progress_second_hook;
        in.replace_progress_ctx = &prog;
    }
    rc = cmd == UPDATE ? ig_update_columns_from(table, &in, columns, ncolumns, &rep, &counts, &err)
                       : ig_add_column_from(table, &in, &rep, &counts, &err);
    ig_progress_pair_end(&prog);
    free(columns);
    if (rc) {
        cli_error("%s: %s", cmd_name(cmd), err.msg);
        cli_inputs_free(&files);
        return 2;
    }
    print_result(cmd, &rep, &counts, in.name, keyed, json);
    cli_inputs_free(&files);
    return 0;
}

int cmd_add_column(int argc, char **argv)
{
    return column_command(argc, argv, ADD);
}
int cmd_replace_column(int argc, char **argv)
{
    return column_command(argc, argv, REPLACE);
}
int cmd_update(int argc, char **argv)
{
    return column_command(argc, argv, UPDATE);
}

/* The [--json] ARG... of a command that makes a version from its arguments
 * alone (rename-column, move-column, restore-columns): the arguments but --json moved to
 * argv[1..] in order and their count; -1 once --help is printed. */
static int version_args(int argc, char **argv, const char *usage, bool *json)
{
    int npos = 0;
    *json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return -1;
        }
        if (!strcmp(argv[i], "--json"))
            *json = true;
        else
            argv[++npos] = argv[i];
    }
    return npos;
}

/* The version made, as --json prints it. */
static void print_version_json(const struct ig_evolve_report *rep)
{
    printf("{\"version\":%" PRIu64 ",\"columns\":%u}\n", rep->version, rep->columns);
}

int cmd_drop_column(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(cmd_drop_column_usage, stdout);
        return 0;
    }
    bool json = argc >= 2 && !strcmp(argv[1], "--json");
    argc -= json;
    argv += json;
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
    if (json)
        print_version_json(&rep);
    else
        printf("dropped %d column%s: version %" PRIu64 "\n", argc - 2, argc == 3 ? "" : "s",
               rep.version);
    return 0;
}

int cmd_rename_column(int argc, char **argv)
{
    bool json;
    int npos = version_args(argc, argv, cmd_rename_column_usage, &json);
    if (npos < 0) return 0;
    if (npos < 3 || npos % 2 == 0) { /* TABLE, then pairs */
        fputs(cmd_rename_column_usage, stderr);
        return 2;
    }
    size_t n = (size_t)(npos - 1) / 2;
    struct ig_evolve_report rep;
    struct ig_error err = {0};
    if (ig_rename_columns(argv[1], (const char *const *)argv + 2, n, &rep, &err)) {
        cli_error("rename-column: %s", err.msg);
        return 2;
    }
    if (json)
        print_version_json(&rep);
    else if (n == 1)
        printf("renamed '%s' to '%s': version %" PRIu64 "\n", argv[2], argv[3], rep.version);
    else
        printf("renamed %zu columns: version %" PRIu64 "\n", n, rep.version);
    return 0;
}

int cmd_move_column(int argc, char **argv)
{
    bool json;
    int npos = version_args(argc, argv, cmd_move_column_usage, &json);
    if (npos < 0) return 0;
    bool first = npos == 3 && !strcmp(argv[3], "--first"), after = npos == 4 && !strcmp(argv[3], "--after");
    if (!first && !after) {
        fputs(cmd_move_column_usage, stderr);
        return 2;
    }
    struct ig_evolve_report rep;
    struct ig_error err = {0};
    if (ig_move_column(argv[1], argv[2], after ? argv[4] : NULL, &rep, &err)) {
        cli_error("move-column: %s", err.msg);
        return 2;
    }
    if (json)
        print_version_json(&rep);
    else if (first)
        printf("moved '%s' first: version %" PRIu64 "\n", argv[2], rep.version);
    else
        printf("moved '%s' after '%s': version %" PRIu64 "\n", argv[2], argv[4], rep.version);
    return 0;
}

int cmd_restore_columns(int argc, char **argv)
{
    bool json;
    int npos = version_args(argc, argv, cmd_restore_columns_usage, &json);
    if (npos < 0) return 0;
    if (npos != 2) {
        fputs(cmd_restore_columns_usage, stderr);
        return 2;
    }
    const char *pos[2] = {argv[1], argv[2]};
    struct ig_evolve_report rep;
    struct ig_error err = {0};
    if (ig_restore_columns(pos[0], pos[1], &rep, &err)) {
        cli_error("restore-columns: %s", err.msg);
        return 2;
    }
    if (json)
        print_version_json(&rep);
    else
        printf("columns of version %s restored: version %" PRIu64 "\n", pos[1], rep.version);
    return 0;
}
