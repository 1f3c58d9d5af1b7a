/* ingot - import, inspect, verify, erase and mount ingot tables. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: ingot COMMAND [OPTIONS] ...\n"
    "\n"
    "  import [--format csv|jsonl] [--schema FILE] [--append] [--rows-per-group N]\n"
    "         [--page-size BYTES] [--delimiter C] INPUT TABLE\n"
    "                          build a table (or add a part) from CSV or JSON Lines\n"
    "  inspect [--json] TABLE  parts, row groups, columns: types, encodings, sizes\n"
    "  cat [--group G] TABLE COLUMN\n"
    "                          one line per live row, PostgreSQL COPY text format\n"
    "  verify [--json] TABLE   check every checksum; exit 1 naming what failed\n"
    "  mount [-f] [-o OPTS] TABLE DIR\n"
    "                          mount the table as files (FUSE)\n"
    "  umount DIR              unmount\n"
    "\n"
    "Run 'ingot COMMAND --help' for a command's options. Docs: docs/ in the source tree.\n";

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ingot: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

unsigned long long cli_parse_count(const char *opt, const char *s, unsigned long long min,
                                   unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    /* accept K/M/G suffixes for sizes */
    if (end != s && *end && !end[1]) {
        unsigned long long mult = *end == 'K' || *end == 'k' ? 1024ULL
                                  : *end == 'M' || *end == 'm' ? 1024ULL * 1024
                                  : *end == 'G' || *end == 'g' ? 1024ULL * 1024 * 1024
                                                               : 0;
        if (mult && v <= max / mult) {
            v *= mult;
            end++;
        }
    }
    if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
        cli_error("%s: expected a number from %llu to %llu, got '%s'", opt, min, max, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    argc--;
    argv++;
    if (!strcmp(cmd, "import")) return cmd_import(argc, argv);
    if (!strcmp(cmd, "inspect")) return cmd_inspect(argc, argv);
    if (!strcmp(cmd, "cat")) return cmd_cat(argc, argv);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc, argv);
    if (!strcmp(cmd, "mount")) return cmd_mount(argc, argv);
    if (!strcmp(cmd, "umount") || !strcmp(cmd, "unmount")) return cmd_umount(argc, argv);
    if (!strcmp(cmd, "erase")) return cmd_erase(argc, argv);
    if (!strcmp(cmd, "--version")) {
        puts("ingot 0.1.0 (format version 1)");
        return 0;
    }
    cli_error("unknown command '%s'", cmd);
    fputs(usage, stderr);
    return 2;
}
