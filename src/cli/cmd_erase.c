/* ingot erase - physically erase rows (docs/ERASURE.md). */
#include "cli.h"
#include "cli_json.h"
#include "idlist.h"
#include "format/ops/erase.h"
#include "util/error.h"
#include "util/progress.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char cmd_erase_usage[] =
    "usage: ingot erase [--row IDS]... [--rows-from FILE] [--where COLUMN=VALUE]... [--json] TABLE\n"
    "  --row IDS             erase these rows: an id, or a list like 5,17,100-104 (repeatable)\n"
    "  --rows-from FILE      erase the rows listed in FILE (one id or A-B per line; - is stdin)\n"
    "  --where COLUMN=VALUE  erase every row whose COLUMN equals VALUE (repeatable;\n"
    "                        VALUE as in CSV, \\N for NULL)\n"
    "  --json                print the report as JSON\n"
    "Exit status: 0 done, 2 error (nothing was changed).\n";

int cmd_erase(int argc, char **argv)
{
    static const struct option longopts[] = {{"row", required_argument, 0, 'r'},
                                             {"rows", required_argument, 0, 'r'},
                                             {"rows-from", required_argument, 0, 'f'},
                                             {"where", required_argument, 0, 'w'},
                                             {"json", no_argument, 0, 'j'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    struct cli_ids ids = {0};
    struct ig_erase_where *where = calloc((size_t)argc + 1, sizeof *where);
    size_t nwhere = 0;
    bool json = false;
    int c, rc = 0;
    optind = 1;
    while (rc == 0 && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (cli_ids_parse(&ids, "--row", optarg)) rc = 2;
            break;
        case 'f':
            if (cli_ids_read(&ids, optarg)) rc = 2;
            break;
        case 'w': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                cli_error("--where: expected COLUMN=VALUE, got '%s'", optarg);
                rc = 2;
                break;
            }
            *eq = '\0';
            where[nwhere++] = (struct ig_erase_where){optarg, eq + 1};
            break;
        }
        case 'j': json = true; break;
        case 'h': fputs(cmd_erase_usage, stdout); goto out;
        default: fputs(cmd_erase_usage, stderr); rc = 2;
        }
    }
    if (!rc && (argc - optind != 1 || (ids.n == 0 && nwhere == 0))) {
        fputs(cmd_erase_usage, stderr);
        rc = 2;
    }
    if (!rc) {
        /* the erase's line, then on object storage the objects' replacement */
        struct ig_progress_pair prog;
        char replacing[300];
        snprintf(replacing, sizeof replacing, "replacing objects of %s", argv[optind]);
        ig_progress_pair_begin(&prog, "erasing", replacing);
        /* counted only for a terminal: the count reads every page record of
         * the chunks, where a one-row erase reads those up to its row's; the
         * replacement's total is a HEAD of each object */
        struct ig_erase_request req = {ids.ids, ids.n, where, nwhere, "cli", (int64_t)getuid(),
                                       (int64_t)getpid(), prog.first.on ? ig_progress_bytes_hook : NULL,
                                       &prog.first, prog.first.on ? ig_progress_second_hook : NULL, &prog};
        struct ig_erase_report rep;
        struct ig_error err = {0};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int erc = ig_erase(argv[optind], &req, &rep, &err);
        ig_progress_pair_end(&prog);
        if (erc) {
            cli_error("erase: %s", err.msg);
            rc = 2;
        } else {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
            if (json)
                printf("{\"rows\":%" PRIu64 ",\"pages_rewritten\":%" PRIu64
                       ",\"pages_moved\":%" PRIu64 ",\"page_records\":%" PRIu64
                       ",\"bytes_written\":%" PRIu64 ",\"journal_bytes\":%" PRIu64
                       ",\"dict_segments_zeroed\":%" PRIu64 ",\"dict_blocks_recompressed\":%" PRIu64
                       ",\"vdict_entries_zeroed\":%" PRIu64 ",\"contexts_moved\":%" PRIu64
                       ",\"objects_replaced\":%" PRIu64 ",\"bytes_uploaded\":%" PRIu64
                       ",\"bytes_copied\":%" PRIu64 ",\"object_versions_removed\":%" PRIu64
                       ",\"ms\":%.3f}\n",
                       rep.rows, rep.pages_rewritten, rep.pages_moved, rep.records,
                       rep.bytes_written, rep.journal_bytes, rep.dict_segments, rep.dict_blocks,
                       rep.vdict_entries, rep.contexts_moved, rep.objects_replaced,
                       rep.bytes_uploaded, rep.bytes_copied, rep.versions_removed, ms);
            else
                printf("%s: erased %" PRIu64 " row%s (%" PRIu64 " pages rewritten, %" PRIu64
                       " moved, %" PRIu64 " bytes written) in %.1f ms\n",
                       argv[optind], rep.rows, rep.rows == 1 ? "" : "s", rep.pages_rewritten,
                       rep.pages_moved, rep.bytes_written, ms);
            if (!json && rep.contexts_moved) /* format 22: packed again, they outgrew their place */
                printf("%s: %" PRIu64 " chunk context%s moved after the data\n", argv[optind],
                       rep.contexts_moved, rep.contexts_moved == 1 ? "" : "s");
            if (!json && rep.objects_replaced) /* object storage: what crossed the network */
                printf("%s: %" PRIu64 " object%s replaced (%" PRIu64 " bytes uploaded, %" PRIu64
                       " copied by the store, %" PRIu64 " older version%s removed)\n",
                       argv[optind], rep.objects_replaced, rep.objects_replaced == 1 ? "" : "s",
                       rep.bytes_uploaded, rep.bytes_copied, rep.versions_removed,
                       rep.versions_removed == 1 ? "" : "s");
            free(rep.ids);
        }
    }
out:
    cli_ids_free(&ids);
    free(where);
    return rc;
}
