/* help.c - the command table, ingot help and ingot --version. */
#include "cli.h"
#include "format/layout.h"

#include <string.h>

#ifndef INGOT_VERSION
#define INGOT_VERSION "unknown"
#endif

static const struct cli_command commands[] = {
    {"import", "build a table, or add a part, from CSV, JSON Lines, .npy or Parquet", cmd_import_usage,
     "ingot import --schema s.txt events.csv mytable", cmd_import},
    {"inspect", "parts, row groups and columns: types, encodings, sizes", cmd_inspect_usage,
     "ingot inspect --json mytable", cmd_inspect},
    {"cat", "a column as text, one line per live row; or rows by id as JSON", cmd_cat_usage,
     "ingot cat mytable caption; ingot cat --rows 5,17,100-104 mytable", cmd_cat},
    {"verify", "check every checksum and erased row; exit 1 naming what failed",
     cmd_verify_usage, "ingot verify mytable", cmd_verify},
    {"erase", "physically erase rows in place (GDPR/CCPA), with an audit log", cmd_erase_usage,
     "ingot erase --row 123 --where user_id=42 mytable", cmd_erase},
    {"add-column", "add columns from a .npy, or CSV/JSONL/Parquet keyed by row id or a key: a new version",
     cmd_add_column_usage, "ingot add-column mytable score.npy; ingot add-column --key id mytable labels.csv",
     cmd_add_column},
    {"replace-column", "replace a column's values (a backfill): a new version", cmd_replace_column_usage,
     "ingot replace-column mytable score.npy", cmd_replace_column},
    {"update", "set some rows' values of a column from a keyed file: a new version", cmd_update_usage,
     "ingot update mytable --column label --from fixes.csv", cmd_update},
    {"drop-column", "stop showing columns: a new version", cmd_drop_column_usage,
     "ingot drop-column mytable leaked_feature", cmd_drop_column},
    {"rename-column", "show a column under another name: a new version", cmd_rename_column_usage,
     "ingot rename-column mytable lbl label", cmd_rename_column},
    {"move-column", "show a column first or after another: a new version", cmd_move_column_usage,
     "ingot move-column mytable label --after id", cmd_move_column},
    {"restore-columns", "show the columns an older version showed: a new version", cmd_restore_columns_usage,
     "ingot restore-columns mytable 7", cmd_restore_columns},
    {"versions", "the table's versions: when, what changed, rows, columns, tags", cmd_versions_usage,
     "ingot versions mytable", cmd_versions},
    {"tag", "name a version, to read it by name and keep it", cmd_tag_usage, "ingot tag mytable v1-train 7",
     cmd_tag},
    {"gc", "let old versions go; zero and free what only they showed", cmd_gc_usage,
     "ingot gc --keep 5 --older-than 30d mytable", cmd_gc},
    {"mount", "serve the table as files over FUSE (columns, rows, blobs)", cmd_mount_usage,
     "ingot mount mytable /mnt/t", cmd_mount},
    {"umount", "unmount a mounted table", cmd_umount_usage, "ingot umount /mnt/t", cmd_umount},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const struct cli_command *cli_command_find(const char *name)
{
    if (!strcmp(name, "unmount")) name = "umount";
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    if (!strcmp(name, "help")) {
        static const struct cli_command help = {"help", "", "", "", cli_help};
        return &help;
    }
    return NULL;
}

void cli_help_list(FILE *out)
{
    fputs("usage: ingot COMMAND [OPTIONS] ...\n\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
    fputs("\nA TABLE is a directory, or s3://BUCKET/PREFIX on object storage (every command\n"
          "but umount; credentials as the AWS tools take them).\n", out);
    fputs("\n'ingot help COMMAND' (or 'ingot COMMAND --help') shows a command's options;\n"
          "'ingot --version' the formats it reads. Manual: man ingot, man ingot-mount.\n",
          out);
}

int cli_help(int argc, char **argv)
{
    if (argc < 2) {
        cli_help_list(stdout);
        return 0;
    }
    const struct cli_command *c = cli_command_find(argv[1]);
    if (!c || !strcmp(c->name, "help")) {
        cli_error("help: unknown command '%s'", argv[1]);
        cli_help_list(stderr);
        return 2;
    }
    printf("ingot %s - %s\n\n%s\nexample:\n  %s\n", c->name, c->summary, c->usage, c->example);
    return 0;
}

void cli_version(FILE *out)
{
    fprintf(out, "ingot %s (writes format version %u; reads versions %u to %u)\n", INGOT_VERSION,
            IG_FORMAT_VERSION, IG_FORMAT_MIN_VERSION, IG_FORMAT_VERSION);
}
