/* api_int.h - what the public API's sources (api.c, api_take.c, arrow_c.c)
 * share: the table handle behind ingot_table, and how an error reaches the
 * caller's buffer. Not installed; nothing outside src/api/ includes it. */
#ifndef IG_API_INT_H
#define IG_API_INT_H

#include "ingot.h"
#include "format/ops/reader.h"
#include "format/ops/take.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"

struct ingot_table {
    struct ig_table t;
    struct ig_reader r;
    struct ig_values v;
    struct ig_buf out;
    struct ig_take *take; /* made at the first ingot_take: its decoded blocks stay */
};

/* Copy e's message into the caller's buffer; returns rc. */
int ingot_api_fail(char *errbuf, size_t errlen, const struct ig_error *e, int rc);

#endif
