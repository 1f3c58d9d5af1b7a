/* ingot - import, inspect, verify, erase and mount ingot tables. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_help_list(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) return cli_help(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version")) {
        cli_version(stdout);
        return 0;
    }
    const struct cli_command *c = cli_command_find(cmd);
    if (!c) {
        cli_error("unknown command '%s' (ingot help lists them)", cmd);
        return 2;
    }
    return c->run(argc - 1, argv + 1);
}
