/* ingot mount / umount - serve a table as files over FUSE. */
#include "cli.h"
#include "format/part/versions.h"
#include "fs/fs.h"
#include "import/columns.h"
#include "import/npy.h"
#include "store/store.h"
#include "util/cpu.h"
#include "util/error.h"

#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char cmd_mount_usage[] =
    "usage: ingot mount [-f] [-d] [--version N | --tag NAME] [-o OPTION[,OPTION...]] TABLE DIR\n"
    "  --version N        serve version N (ingot versions lists them) instead of the\n"
    "                     current one: its rows and columns as they were (less rows\n"
    "                     erased since: an erasure reaches every version)\n"
    "  --tag NAME         the version tag NAME names\n"
    "  -f                 stay in the foreground (Ctrl-C unmounts)\n"
    "  -d                 FUSE debug output (implies -f)\n"
    "  -o allow_other     let other users read the mount (as the file modes allow)\n"
    "  -o erase_group=G   with allow_other: members of group G may erase too (rm rows/ID,\n"
    "                     .ingot/erase); otherwise only the mount's owner and root\n"
    "  -o cache_mb=N      decoded-block cache of the daemon (default: 16 KiB a\n"
    "                     column, at least 32 MiB, at most 1 GiB)\n"
    "  -o threads=N       worker threads (default: one per core, 2 to 8; 16 for\n"
    "                     s3://, where a request mostly waits on the network)\n"
    "  -o spin_us=N       a worker stays awake N microseconds for the next request (default 0: sleep at once)\n"
    "  -o readahead_kb=N  kernel readahead for the mount (default 1024)\n"
    "  -o poll_ms=N       check the table for changes by other hosts every N ms (default 1000; 0: never)\n"
    "  -o no_inotify      do not watch this host's changes with inotify (polling alone)\n";

static int parse_o(struct fs_opts *o, char *list)
{
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "allow_other"))
            o->allow_other = true;
        else if (!strncmp(tok, "erase_group=", 12)) {
            struct group *g = getgrnam(tok + 12);
            if (!g) {
                cli_error("mount: -o erase_group: no group '%s'", tok + 12);
                return -1;
            }
            o->erase_group = tok + 12;
            o->erase_gid = g->gr_gid;
        } else if (!strncmp(tok, "cache_mb=", 9))
            o->cache_bytes = cli_parse_count("-o cache_mb", tok + 9, 1, 1 << 20) << 20;
        else if (!strncmp(tok, "threads=", 8))
            o->threads = (unsigned)cli_parse_count("-o threads", tok + 8, 1, 256);
        else if (!strncmp(tok, "poll_ms=", 8))
            o->poll_ms = (unsigned)cli_parse_count("-o poll_ms", tok + 8, 0, 3600000);
        else if (!strcmp(tok, "no_inotify"))
            o->no_inotify = true;
        else if (!strncmp(tok, "spin_us=", 8))
            o->spin_us = (unsigned)cli_parse_count("-o spin_us", tok + 8, 0, 100000);
        else if (!strncmp(tok, "readahead_kb=", 13))
            o->readahead_kb = (unsigned)cli_parse_count("-o readahead_kb", tok + 13, 0, 1 << 20);
        else {
            cli_error("mount: unknown option '%s'", tok);
            return -1;
        }
    }
    return 0;
}

/* Worker threads by default: one per core, at least two (one request waiting
 * on the disk does not hold up the rest) and at most eight. More threads than
 * cores cost more than they overlap: on two cores, 2 threads against 8 took
 * a cold DataLoader epoch over small objects from 0.28-0.40 to 0.27-0.29 s and
 * the first touch of 1,000 rows/ID from 442 to 256 ms (BENCHMARKS-random.md). */
static unsigned default_threads(void)
{
    unsigned cores = ig_cpu_cores();
    return cores < 2 ? 2 : cores > 8 ? 8 : cores;
}

/* A table on object storage: a worker mostly waits for range GETs, not a
 * core, and concurrent readers (a DataLoader's workers) overlap only as far
 * as there are workers to take their requests: 2 workers served 16 Python
 * readers' cold rows/ID two at a time. */
#define REMOTE_THREADS 16

/* The importer's side of writing columns through the mount (fs.h). */
static int npy_size(int fd, uint64_t have, const char *what, uint64_t *total, uint8_t *type, uint32_t *dim,
                    struct ig_logical *lt, uint64_t *rows, struct ig_error *err)
{
    struct ig_npy n;
    int rc = ig_npy_size(fd, have, what, &n, total, err);
    if (rc) return rc;
    *type = n.type;
    *dim = n.dim;
    *lt = n.lt;
    *rows = n.rows;
    return 0;
}

static int commit_column(const char *table_dir, const char *path, const char *column, bool replace,
                         struct ig_error *err)
{
    struct ig_column_input in = {.path = path, .name = column, .replace = replace};
    struct ig_evolve_report rep;
    struct ig_column_counts counts;
    return ig_add_column_from(table_dir, &in, &rep, &counts, err);
}

int cmd_mount(int argc, char **argv)
{
    struct fs_opts o = {.cache_bytes = 0 /* by the table's width */, .threads = 0 /* below */, .spin_us = 0, .readahead_kb = 1024,
                        .poll_ms = 1000, .erase_gid = (gid_t)-1,
                        .columns = {.npy_size = npy_size, .commit = commit_column}};
    int c;
    optind = 1;
    static const struct option longopts[] = {{"help", no_argument, 0, 'h'}, {"version", required_argument, 0, 'V'},
                                             {"tag", required_argument, 0, 'T'}, {0, 0, 0, 0}};
    const char *version_spec = NULL;
    while ((c = getopt_long(argc, argv, "fdo:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': o.foreground = true; break;
        case 'd': o.debug = o.foreground = true; break;
        case 'o':
            if (parse_o(&o, optarg)) return 2;
            break;
        case 'V':
        case 'T':
            if (version_spec) {
                cli_error("mount: --version and --tag name one version between them");
                return 2;
            }
            version_spec = optarg;
            break;
        case 'h': fputs(cmd_mount_usage, stdout); return 0;
        default: fputs(cmd_mount_usage, stderr); return 2;
        }
    }
    if (argc - optind != 2) {
        fputs(cmd_mount_usage, stderr);
        return 2;
    }
    o.table_dir = argv[optind];
    if (!o.threads) o.threads = ig_store_is_remote(o.table_dir) ? REMOTE_THREADS : default_threads();
    if (version_spec) {
        struct ig_error err = {0};
        if (ig_version_resolve(o.table_dir, version_spec, &o.version, &err)) {
            cli_error("mount: %s", err.msg);
            return 2;
        }
    }
    o.mountpoint = argv[optind + 1];
    return fs_mount_main(&o);
}

const char cmd_umount_usage[] = "usage: ingot umount DIR\n  unmount a mounted table (fusermount3 -u DIR does the same)\n";

int cmd_umount(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(cmd_umount_usage, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fputs(cmd_umount_usage, stderr);
        return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execlp("fusermount3", "fusermount3", "-u", argv[1], (char *)NULL);
        perror("ingot: fusermount3");
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return 2;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 2;
}
