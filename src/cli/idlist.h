/* idlist.h - row ids given on the command line: "5,17,100-104", or read from a
 * file (one id, or a range A-B, per line; '-' is standard input). The order is
 * kept and repeats are allowed; ranges are inclusive. */
#ifndef IG_CLI_IDLIST_H
#define IG_CLI_IDLIST_H

#include <stddef.h>
#include <stdint.h>

struct cli_ids {
    uint64_t *ids;
    size_t n, cap;
};

/* Append the ids of a list like "5,17,100-104". On bad input prints a message
 * naming `what` and the bad item, and returns -1. */
int cli_ids_parse(struct cli_ids *l, const char *what, const char *s);
/* Append the ids listed in a file (path, or "-" for stdin). -1 with a message
 * naming the file and line on bad input. */
int cli_ids_read(struct cli_ids *l, const char *path);
void cli_ids_free(struct cli_ids *l);

#endif
