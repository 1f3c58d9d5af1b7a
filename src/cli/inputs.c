/* inputs.c - an import's inputs, directories expanded (inputs.h). */
#include "inputs.h"
#include "cli.h"
#include "import/import.h"
#include "store/store.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int push(struct cli_inputs *l, const char *path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (!p) return -1;
        l->paths = p;
        l->cap = cap;
    }
    if (!(l->paths[l->n] = strdup(path))) return -1;
    l->n++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir whose names show an input format, sorted, pushed. */
static int expand_dir(struct cli_inputs *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("import: %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t first = l->n;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        if (ig_input_format_from_name(e->d_name) == IG_INPUT_AUTO || stat(path, &st) || !S_ISREG(st.st_mode)) continue;
        if (push(l, path)) rc = -1, cli_error("import: out of memory");
    }
    closedir(d);
    if (!rc && l->n == first) {
        cli_error("import: %s: no file in it whose name shows a format to import (.csv, .tsv, .jsonl, .ndjson, "
                  ".parquet, .npy; also .gz or .zst)",
                  dir);
        rc = -1;
    }
    if (!rc) qsort(l->paths + first, l->n - first, sizeof *l->paths, by_name);
    return rc;
}

struct listing {
    struct cli_inputs *l;
    const char *prefix; /* s3://BUCKET/DIR/ */
    int rc;
};

static int listed(void *ctx, const struct ig_obj_info *obj)
{
    struct listing *ls = ctx;
    char path[4096];
    if (strchr(obj->name, '/') || obj->name[0] == '.' || ig_input_format_from_name(obj->name) == IG_INPUT_AUTO)
        return 0; /* deeper, hidden, or not an input's name */
    if (snprintf(path, sizeof path, "%s%s", ls->prefix, obj->name) >= (int)sizeof path) return 0;
    if (push(ls->l, path)) return ls->rc = -ENOMEM;
    return 0;
}

/* The objects under an s3://BUCKET/DIR/ prefix, as a directory's files. */
static int expand_prefix(struct cli_inputs *l, const char *prefix)
{
    char location[4096];
    snprintf(location, sizeof location, "%.*s", (int)strlen(prefix) - 1, prefix); /* without its '/' */
    struct ig_store *st;
    struct ig_error err = {0};
    struct listing ls = {.l = l, .prefix = prefix};
    size_t first = l->n;
    int rc = ig_store_at(location, &st, &err);
    if (!rc) rc = ig_store_list(st, "", false, listed, &ls, &err);
    if (!rc) rc = ls.rc;
    if (rc) {
        cli_error("import: %s: %s", prefix, rc == -ENOMEM && !err.msg[0] ? "out of memory" : err.msg);
        return -1;
    }
    if (l->n == first) {
        cli_error("import: %s: no object in it whose name shows a format to import", prefix);
        return -1;
    }
    qsort(l->paths + first, l->n - first, sizeof *l->paths, by_name);
    return 0;
}

int cli_inputs_expand(struct cli_inputs *l, char *const *args, size_t n)
{
    memset(l, 0, sizeof *l);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        size_t len = strlen(args[i]);
        bool prefix = ig_store_is_remote(args[i]) && len && args[i][len - 1] == '/';
        int rc = prefix ? expand_prefix(l, args[i])
                 : strcmp(args[i], "-") && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode) ? expand_dir(l, args[i])
                 : push(l, args[i])                                                       ? (cli_error("import: out of memory"), -1)
                                                                                          : 0;
        if (rc) {
            cli_inputs_free(l);
            return -1;
        }
    }
    return 0;
}

void cli_inputs_free(struct cli_inputs *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}
