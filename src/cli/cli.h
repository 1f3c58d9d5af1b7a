/* cli.h - the `ingot` subcommands. Each takes argv after the subcommand name and
 * returns the process exit code: 0 success, 1 the work found a problem (verify
 * failures), 2 bad usage or an error (message on stderr). */
#ifndef IG_CLI_H
#define IG_CLI_H

int cmd_import(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_erase(int argc, char **argv);

/* Parse a non-negative integer option; exits with a message on bad input. */
unsigned long long cli_parse_count(const char *opt, const char *s, unsigned long long min,
                                   unsigned long long max);
/* Print "ingot: msg" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
