/* cli.h - the `ingot` subcommands. Each takes argv after the subcommand name and
 * returns the process exit code: 0 success, 1 the work found a problem (verify
 * failures, rows not found), 2 bad usage or an error (message on stderr, naming
 * what it was doing and the input that caused it). */
#ifndef IG_CLI_H
#define IG_CLI_H

#include <stdio.h>

int cmd_import(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_erase(int argc, char **argv);
int cmd_add_column(int argc, char **argv);
int cmd_replace_column(int argc, char **argv);
int cmd_update(int argc, char **argv);
int cmd_drop_column(int argc, char **argv);
int cmd_rename_column(int argc, char **argv);
int cmd_move_column(int argc, char **argv);
int cmd_restore_columns(int argc, char **argv);
int cmd_versions(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_gc(int argc, char **argv);

/* Each command's usage text (what `ingot help CMD` and `CMD --help` print). */
extern const char cmd_import_usage[], cmd_inspect_usage[], cmd_cat_usage[], cmd_verify_usage[],
    cmd_mount_usage[], cmd_umount_usage[], cmd_erase_usage[], cmd_add_column_usage[],
    cmd_replace_column_usage[], cmd_update_usage[], cmd_drop_column_usage[], cmd_rename_column_usage[], cmd_move_column_usage[], cmd_restore_columns_usage[], cmd_versions_usage[], cmd_tag_usage[],
    cmd_gc_usage[];

/* The command table (help.c): name, what it does in a line, usage, an example. */
struct cli_command {
    const char *name, *summary;
    const char *usage;
    const char *example;
    int (*run)(int argc, char **argv);
};
const struct cli_command *cli_command_find(const char *name);
/* ingot help [COMMAND]: the list, or one command's usage and example. */
int cli_help(int argc, char **argv);
void cli_help_list(FILE *out);
/* ingot --version: the program's version and the format versions it writes and reads. */
void cli_version(FILE *out);

/* Parse a non-negative integer option; exits with a message on bad input. */
unsigned long long cli_parse_count(const char *opt, const char *s, unsigned long long min,
                                   unsigned long long max);
/* Print "ingot: msg" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
