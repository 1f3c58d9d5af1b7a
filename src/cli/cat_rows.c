/* cat_rows.c - ingot cat --rows: chosen rows as JSON Lines, the bytes rows/ID
 * shows in a mount, optionally only some columns. Each row reads one block per
 * column (format/ops/take.h); a run of consecutive live rows of every column
 * is rendered column by column (ig_rows_render_json), each block once. */
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

/* How many ids from i on are consecutive rows, all live (up to 4,096): a run
 * every column renders at once. An erased or missing row ends it, to be told
 * as missing on its own. */
static size_t live_run(const struct ig_table *t, const struct cli_ids *ids, size_t i)
{
    size_t n = 0;
    struct ig_row_at at;
    while (i + n < ids->n && n < 4096 && ids->ids[i + n] == ids->ids[i] + n && !ig_row_locate(t, ids->ids[i + n], &at))
        n++;
    return n;
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
    for (size_t i = 0; i < ids->n && !rc;) {
        ig_buf_reset(&line);
        size_t run = nnames ? 0 : live_run(&t, ids, i);
        if (run > 1) { /* consecutive live rows: rendered together, column by column */
            size_t done = 0;
            if (ig_rows_render_json(&t, ids->ids[i], run, ig_take_source(tk), &line, &done, &err) || !done) {
                fflush(stdout);
                cli_error("cat --rows: %s", err.msg[0] ? err.msg : "rows rendered short");
                rc = 2;
            } else if (fwrite(line.data, 1, line.len, stdout) != line.len) {
                rc = 2;
            }
            i += done;
            continue;
        }
        int r = ig_take_render_row(tk, ids->ids, ids->n, i++, nnames ? cols : NULL, (size_t)nnames, &line, &err);
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
