/* idlist.c - row id lists from arguments and files. */
#include "idlist.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A range of a million million ids is a typo, not a request. */
#define MAX_RANGE 100000000ULL

static int push(struct cli_ids *l, uint64_t id)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        uint64_t *p = realloc(l->ids, cap * sizeof *p);
        if (!p) return -1;
        l->ids = p;
        l->cap = cap;
    }
    l->ids[l->n++] = id;
    return 0;
}

static int parse_id(const char *s, const char *end, uint64_t *out)
{
    if (s == end) return -1;
    uint64_t v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* One item "N" or "A-B" between s and end. */
static int parse_item(struct cli_ids *l, const char *s, const char *end)
{
    const char *dash = memchr(s, '-', (size_t)(end - s));
    uint64_t a, b;
    if (!dash) return parse_id(s, end, &a) || push(l, a) ? -1 : 0;
    if (parse_id(s, dash, &a) || parse_id(dash + 1, end, &b) || b < a || b - a >= MAX_RANGE)
        return -1;
    for (uint64_t id = a;; id++) {
        if (push(l, id)) return -1;
        if (id == b) return 0;
    }
}

int cli_ids_parse(struct cli_ids *l, const char *what, const char *s)
{
    while (*s) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        if (parse_item(l, s, end)) {
            cli_error("%s: expected row ids like 5,17,100-104, got '%.*s'", what, (int)(end - s), s);
            return -1;
        }
        s = *end ? end + 1 : end;
    }
    return 0;
}

int cli_ids_read(struct cli_ids *l, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int rc = 0;
    while (!rc && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = '\0';
        if (len == 0) continue;
        if (parse_item(l, line, line + len)) {
            cli_error("%s: line %zu: expected a row id or a range A-B, got '%s'", path, lineno,
                      line);
            rc = -1;
        }
    }
    if (!rc && ferror(f)) {
        cli_error("%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    if (f != stdin) fclose(f);
    return rc;
}

void cli_ids_free(struct cli_ids *l)
{
    free(l->ids);
    *l = (struct cli_ids){0};
}
