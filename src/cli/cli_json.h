/* cli_json.h - small helpers for the CLI's --json output. */
#ifndef IG_CLI_JSON_H
#define IG_CLI_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write s as a JSON string literal (invalid UTF-8 becomes U+FFFD). */
void cli_json_string(FILE *f, const char *s);
void cli_json_string_n(FILE *f, const char *s, size_t n);

#endif
