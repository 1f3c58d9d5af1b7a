/* inputs.h - the inputs an import names: files, "-", objects (s3://B/KEY),
 * and directories, each directory (or s3://B/DIR/ prefix, ending in '/')
 * standing for the files in it whose names show a format ingot imports
 * (x.csv, x.jsonl.gz, part-00003.parquet...; not hidden ones, not
 * subdirectories), in byte order of their names: the order in which sharded
 * datasets number their files. */
#ifndef IG_CLI_INPUTS_H
#define IG_CLI_INPUTS_H

#include <stddef.h>

struct cli_inputs {
    char **paths;
    size_t n, cap;
};

/* Expand args[0..n) into l (zeroed first). 0, or -1 after printing why (a
 * directory that cannot be read or holds no such file; out of memory). */
int cli_inputs_expand(struct cli_inputs *l, char *const *args, size_t n);
void cli_inputs_free(struct cli_inputs *l);

#endif
