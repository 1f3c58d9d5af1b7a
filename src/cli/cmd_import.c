/* ingot import - CSV / JSON Lines / .npy / Parquet into a new table or a new part of one. */
#include "cli.h"
#include "cli_json.h"
#include "util/buf.h"
#include "format/model/schema.h"
#include "inputs.h"
#include "import/import.h"
#include "util/cpu.h"
#include "util/error.h"
#include "util/progress.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char cmd_import_usage[] =
    "usage: ingot import [OPTIONS] INPUT... TABLE\n"
    "  INPUT is a file, gzip or zstd compressed or not (x.csv.gz, x.jsonl.zst), an\n"
    "  object (s3://BUCKET/KEY), or - for standard input (CSV and JSON Lines need\n"
    "  --format there, or an input before it that shows the format). A compressed\n"
    "  file or object of CSV or JSON Lines is decompressed as its rows are read;\n"
    "  standard input, pipes and a compressed .npy or Parquet file are first\n"
    "  copied, decompressed, into an unnamed file under $TMPDIR (else /var/tmp).\n"
    "  Several inputs (or a directory, or an s3://BUCKET/DIR/ prefix:\n"
    "  its files of such names, in name order) of one format make one table, or\n"
    "  one append, in one version; their columns by name from every input (NULL\n"
    "  where one lacks a column), typed by a sample of each as one file of all\n"
    "  their rows would be; a Parquet column of two number, time or decimal types\n"
    "  in two files takes the one that holds both (int32 and int64: int64), a\n"
    "  struct's fields are united by name (NULL in the rows of a file that lacks\n"
    "  one), and an append widens a narrower column into the table's.\n"
    "  --format csv|jsonl|npy|parquet\n"
    "                         input format (default: from the extension, or a\n"
    "                         Parquet file's PAR1 magic; a .npy array becomes one\n"
    "                         column named after the file; Parquet keeps its\n"
    "                         schema, nesting and nulls)\n"
    "  --schema FILE          column types, one 'NAME TYPE' a line (default: inferred\n"
    "                         from a sample; ISO dates and timestamps are recognised):\n"
    "                         bool, int8..int64, uint8..uint64, float32, float64,\n"
    "                         string, binary, date, time(ms|us|ns),\n"
    "                         timestamp(s|ms|us|ns[, UTC]), decimal(P, S), uuid,\n"
    "                         fixed_binary(N), float16, blob, list<T>, struct<a:T>,\n"
    "                         vector<float32, D>; T? is nullable\n"
    "  --append               add the rows as a new part of an existing table\n"
    "  --rows-per-group N     rows per row group (default: sized by the values, 65536 to\n"
    "                         262144, the first three 65536; fewer, from 8192, for rows\n"
    "                         of thousands of columns)\n"
    "  --page-size BYTES      target page size (default 65536; K/M suffixes)\n"
    "  --part-size BYTES      cut the rows into parts of at most BYTES each, at row\n"
    "                         group boundaries (a larger group is a part of its\n"
    "                         own; K/M/G; 0: one part); an erase on\n"
    "                         object storage rewrites only the parts it touches\n"
    "                         (default: 128M for s3:// tables, one part for local\n"
    "                         ones; never cut with blob columns)\n"
    "  --delimiter C          CSV field separator (\\t: a tab; default: a tab for\n"
    "                         .tsv and .tab, else ',' unless the first line has no\n"
    "                         comma and the first two as many tabs, ';' or '|')\n"
    "  --sample-rows N        rows sampled from each input to infer types\n"
    "                         (default 10000)\n"
    "  -j, --threads N        encoding threads, and above 2 CSV parsing threads\n"
    "                         (default: one per core); the table is the same byte\n"
    "                         for byte for any N\n"
    "  --json                 print the result as JSON\n"
    "  --print-schema         print the types an import of INPUT... would give (no\n"
    "                         TABLE), as a schema file to edit and pass to --schema\n";

/* The progress lines of an import: the inputs sampled for their types, then
 * the rows' reading, then (a table on object storage) the upload. */
struct import_lines {
    struct ig_progress sampling;
    struct ig_progress_pair pair; /* the import's line, then the upload's */
};

static void on_sampled(void *ctx, uint64_t done, uint64_t total)
{
    struct import_lines *l = ctx;
    ig_progress_count(&l->sampling, done, total, "inputs");
}

static void on_progress(void *ctx, uint64_t done, uint64_t total, uint64_t rows)
{
    struct import_lines *l = ctx;
    ig_progress_end(&l->sampling);
    ig_progress_update(&l->pair.first, done, total, rows);
}

/* Set by SIGINT/SIGTERM/SIGHUP: the import stops at the next row and removes
 * what it wrote (a signal can only reach the import through a flag). */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void catch_stop_signals(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* import --print-schema INPUT...: the types an import would give, as a schema file. */
static int print_inferred(const struct cli_inputs *inputs, const struct ig_import_opts *o)
{
    struct ig_schema s;
    struct ig_error err = {0};
    struct ig_buf text = IG_BUF_INIT;
    int rc = ig_import_infer((const char *const *)inputs->paths, inputs->n, o, &s, &err);
    if (!rc) {
        rc = ig_schema_format(&s, &text) ? ig_err(&err, -ENOMEM, "out of memory") : 0;
        ig_schema_free(&s);
    }
    if (rc)
        cli_error("import: %s", err.msg);
    else
        fwrite(text.data, 1, text.len, stdout);
    ig_buf_free(&text);
    return rc ? 2 : 0;
}

int cmd_import(int argc, char **argv)
{
    struct ig_import_opts o;
    ig_import_opts_default(&o);
    bool json = false, print_schema = false;
    static const struct option longopts[] = {
        {"format", required_argument, 0, 'F'},   {"schema", required_argument, 0, 's'},
        {"append", no_argument, 0, 'a'},          {"rows-per-group", required_argument, 0, 'r'},
        {"page-size", required_argument, 0, 'p'}, {"delimiter", required_argument, 0, 'd'},
        {"json", no_argument, 0, 'J'},            {"help", no_argument, 0, 'h'},
        {"sample-rows", required_argument, 0, 'S'}, {"threads", required_argument, 0, 'j'},
        {"part-size", required_argument, 0, 'P'}, {"print-schema", no_argument, 0, 'I'},
        {0, 0, 0, 0}};
    int c;
    optind = 1;
    o.w.threads = ig_cpu_cores();
    while ((c = getopt_long(argc, argv, "j:", longopts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (!strcmp(optarg, "csv"))
                o.format = IG_INPUT_CSV;
            else if (!strcmp(optarg, "jsonl") || !strcmp(optarg, "ndjson"))
                o.format = IG_INPUT_JSONL;
            else if (!strcmp(optarg, "npy"))
                o.format = IG_INPUT_NPY;
            else if (!strcmp(optarg, "parquet"))
                o.format = IG_INPUT_PARQUET;
            else {
                cli_error("import: --format: expected csv, jsonl, npy or parquet, got '%s'", optarg);
                return 2;
            }
            break;
        case 's': o.schema_path = optarg; break;
        case 'a': o.append = true; break;
        case 'r':
            o.w.rows_per_group = (uint32_t)cli_parse_count("--rows-per-group", optarg, 1, 1u << 30);
            break;
        case 'p': o.w.page_size = (uint32_t)cli_parse_count("--page-size", optarg, 64, 256u << 20); break;
        case 'd':
            if (strlen(optarg) == 2 && optarg[0] == '\\' && optarg[1] == 't')
                o.delimiter = '\t';
            else if (strlen(optarg) != 1) {
                cli_error("import: --delimiter: expected one character, got %s", optarg);
                return 2;
            } else
                o.delimiter = optarg[0];
            break;
        case 'J': json = true; break;
        case 'P':
            o.part_bytes = cli_parse_count("--part-size", optarg, 0, 1ull << 50);
            o.part_bytes_set = true;
            break;
        case 'I': print_schema = true; break;
        case 'j': o.w.threads = (unsigned)cli_parse_count("--threads", optarg, 1, 1024); break;
        case 'S': o.sample_rows = (uint32_t)cli_parse_count("--sample-rows", optarg, 1, 1u << 30); break;
        case 'h': fputs(cmd_import_usage, stdout); return 0;
        default: fputs(cmd_import_usage, stderr); return 2;
        }
    }
    if (print_schema) {
        if (argc - optind < 1 || o.schema_path || o.append) {
            fputs(cmd_import_usage, stderr);
            return 2;
        }
        struct cli_inputs inputs;
        if (cli_inputs_expand(&inputs, argv + optind, (size_t)(argc - optind))) return 2;
        int rc = print_inferred(&inputs, &o);
        cli_inputs_free(&inputs);
        return rc;
    }
    if (argc - optind < 2) {
        fputs(cmd_import_usage, stderr);
        return 2;
    }
    const char *table = argv[argc - 1];
    struct cli_inputs inputs;
    if (cli_inputs_expand(&inputs, argv + optind, (size_t)(argc - optind - 1))) return 2;
    const char *input = inputs.paths[0];
    struct import_lines lines;
    char import_what[300], upload_what[300], sample_what[300];
    if (inputs.n > 1)
        snprintf(import_what, sizeof import_what, "importing %zu inputs", inputs.n);
    else
        snprintf(import_what, sizeof import_what, "importing %s", strcmp(input, "-") ? input : "standard input");
    snprintf(upload_what, sizeof upload_what, "uploading to %s", table);
    snprintf(sample_what, sizeof sample_what, "sampling %s for their types", inputs.n > 1 ? "the inputs" : "the input");
    ig_progress_begin(&lines.sampling, sample_what);
    ig_progress_pair_begin(&lines.pair, import_what, upload_what);
    o.progress = on_progress;
    o.progress_ctx = &lines;
    o.sample_progress = on_sampled;
    o.sample_progress_ctx = &lines;
    if (lines.pair.first.on) { /* (the upload's total is a stat of each staged file) */
        o.upload_progress = ig_progress_second_hook;
        o.upload_progress_ctx = &lines.pair;
    }
    o.cancel = &stop_signal;
    catch_stop_signals(on_stop_signal);
    struct ig_error err = {0};
    struct ig_import_result res;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = ig_import_many((const char *const *)inputs.paths, inputs.n, table, &o, &res, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ig_progress_end(&lines.sampling);
    ig_progress_pair_end(&lines.pair);
    catch_stop_signals(SIG_DFL);
    if (rc) {
        cli_error("import: %s", err.msg);
        cli_inputs_free(&inputs);
        if (stop_signal) raise(stop_signal); /* the conventional status: killed by it */
        return 2;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    char from[4200];
    if (inputs.n > 1)
        snprintf(from, sizeof from, "the %zu inputs", inputs.n);
    else
        snprintf(from, sizeof from, "%s", strcmp(input, "-") ? input : "standard input");
    if (json) { /* the table's path as a JSON string (a quote or a backslash in it) */
        printf("{\"table\":");
        cli_json_string(stdout, table);
        printf(",\"part\":\"%s\",\"parts\":%u,\"rows\":%" PRIu64 ",\"first_row_id\":%" PRIu64 ",\"input_bytes\":%" PRIu64
               ",\"seconds\":%.3f,\"released_columns\":%u,\"columns_version\":%" PRIu64 "}\n",
               res.part, res.parts, res.rows, res.first_row_id, res.input_bytes, secs, res.released,
               res.columns_version);
    } else if (!res.rows && res.columns_version)
        fprintf(stderr, "%s: no rows in %s: nothing appended; its new columns were added (version %" PRIu64 ")\n",
                table, from, res.columns_version);
    else if (!res.rows)
        fprintf(stderr, "%s: no rows in %s: nothing appended, the table is unchanged\n", table, from);
    else
        fprintf(stderr, "%s: %" PRIu64 " rows (ids %" PRIu64 "..%" PRIu64 ") from %s into %s%s in %.2f s\n",
                table, res.rows, res.first_row_id, res.first_row_id + res.rows - 1, from, res.part,
                res.parts > 1 ? " and the parts after it" : "", secs);
    if (!json && res.released)
        fprintf(stderr, "%s: %u column%s only older versions show cannot be NULL and %s no value in these rows: "
                        "restore-columns can no longer show %s (older versions read as they were)\n",
                table, res.released, res.released > 1 ? "s" : "", res.released > 1 ? "have" : "has",
                res.released > 1 ? "them" : "it");
    cli_inputs_free(&inputs);
    return 0;
}
