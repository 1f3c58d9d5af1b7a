/* cat_rows.h - ingot cat --rows IDS TABLE [COLUMN...]: rows as JSON Lines, in
 * the order asked. A row that is erased or out of range is named on stderr and
 * the rest still printed; exit 1 then, 2 on an error. */
#ifndef IG_CLI_CAT_ROWS_H
#define IG_CLI_CAT_ROWS_H

#include "idlist.h"

#include <stdint.h>

/* version: 0 for the current one. */
int cli_cat_rows(const char *dir, uint64_t version, const struct cli_ids *ids, char **names, int nnames);

#endif
