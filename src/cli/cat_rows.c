/* cat_rows.c - ingot cat --rows: chosen rows as JSON Lines, the bytes rows/ID
 * shows in a mount, optionally only some columns. Each row reads one block per
 * column (format/ops/take.h). */
#include "cat_rows.h"
#include "cli.h"
#include "format/ops/take.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column ids of the names asked for (every top-level column when none). */
static int resolve_columns(const struct ig_table *t, const char *dir, char **names, int nnames,
                           uint32_t *cols)
{
    for (int k = 0; k < nnames; k++) {
        struct ig_column_ref ref;
        struct ig_error err = {0};
        if (ig_table_column(t, names[k], strlen(names[k]), &ref, &err)) {
            cli_error("cat --rows: %s: %s", dir, err.msg);
            return -1;
        }
        cols[k] = ref.col;
    }
    return 0;
}

int cli_cat_rows(const char *dir, uint64_t version, const struct cli_ids *ids, char **names, int nnames)
{
    struct ig_error err = {0};
    struct ig_table t;
    if (ig_table_open_version(&t, dir, version, false, &err)) {
        cli_error("cat --rows: %s", err.msg);
        return 2;
    }
    uint32_t *cols = calloc((size_t)nnames + 1, sizeof *cols);
    struct ig_take *tk = NULL;
    struct ig_buf line = {0};
    int rc = cols && !ig_take_new(&t, &tk) ? 0 : 2;
    if (rc) cli_error("cat --rows: out of memory");
    if (!rc && resolve_columns(&t, dir, names, nnames, cols)) rc = 2;
    if (!rc) ig_take_prefetch(&t, ids->ids, ids->n, nnames ? cols : NULL, (size_t)nnames, NULL, NULL);
    static char obuf[1 << 20];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    size_t missing = 0;
    for (size_t i = 0; i < ids->n && !rc; i++) {
        ig_buf_reset(&line);
        int r = ig_row_render_json(&t, ids->ids[i], nnames ? cols : NULL, (size_t)nnames,
                                   ig_take_source(tk), &line, &err);
        if (r == -ENOENT) { /* a missing row is reported, the others still printed */
            fflush(stdout);
            cli_error("cat --rows: %s: %s", dir, err.msg);
            missing++;
        } else if (r) {
            fflush(stdout);
            cli_error("cat --rows: %s", err.msg);
            rc = 2;
        } else if (fwrite(line.data, 1, line.len, stdout) != line.len) {
            rc = 2;
        }
    }
    if (fflush(stdout) && !rc) {
        cli_error("cat --rows: writing output: %s", strerror(errno));
        rc = 2;
    }
    ig_buf_free(&line);
    ig_take_free(tk);
    free(cols);
    ig_table_close(&t);
    return rc ? rc : missing ? 1 : 0;
}
