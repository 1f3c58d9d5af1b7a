/* Subcommands whose issues are still open. */
#include "cli.h"

int cmd_erase(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("erase: not built yet");
    return 2;
}
