/* fuzz_manifest - the small texts a table keeps beside its parts must never
 * crash their parsers, and what they accept must mean one thing.
 *
 * The first byte picks the text: 0 a manifest (MANIFEST, or a version's file
 * in .ingot/versions/: ig_manifest_parse), 1 the tags file (ig_tags_parse), 2
 * the record of a commit at work (.ingot/commit: ig_commitlog_parse); the
 * rest is the text. Each ends in a line with the hash of what comes before:
 * most mutations would only meet that check, so unless the first byte's high
 * bit is set the target writes the right hash into the end line first
 * (appending one where there is none), letting the fuzzer reach the lines.
 *
 * What a parser accepts is checked: a manifest's parts follow each other in
 * rows and have valid names, its order lists each shown column once, and
 * formatting it and parsing that again gives the same manifest (the same
 * columns in the same order); tags are valid names of versions from 1, in name order,
 * and their text read back is the same; a commit record's parts name files
 * inside the table. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/part/commitlog.h"
#include "format/part/manifest.h"
#include "format/part/versions.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The text's end line made to hold the hash of the bytes before it (a
 * manifest's and the tags' end line is the first line starting "end ", a
 * commit record's follows the first "\nend "), or appended where there is
 * none. Returns the new length (text has room for 21 more bytes). */
static size_t reseal(char *text, size_t len, int kind)
{
    size_t at = len;
    if (kind == 2) {
        char *e = memmem(text, len, "\nend ", 5);
        if (e) at = (size_t)(e - text) + 1;
    } else {
        for (size_t p = 0; p < len;) {
            if (len - p >= 4 && !memcmp(text + p, "end ", 4)) {
                at = p;
                break;
            }
            char *nl = memchr(text + p, '\n', len - p);
            if (!nl) break;
            p = (size_t)(nl - text) + 1;
        }
    }
    if (at == len && len && text[len - 1] != '\n') return len; /* it would not start a line */
    char line[24];
    snprintf(line, sizeof line, "end %016" PRIx64 "\n", ig_hash(text, at));
    memcpy(text + at, line, 21);
    return at + 21 > len ? at + 21 : len;
}

/* The ids m shows, in the order it shows them (its order line, else by id),
 * at most cap of them; how many there are. */
static uint64_t shown_ids(const struct ig_manifest *m, uint32_t *out, uint64_t cap)
{
    uint64_t n = 0;
    const struct ig_idrun *runs = m->order.n ? m->order.runs : m->columns.runs;
    size_t nruns = m->order.n ? m->order.n : m->columns.n;
    for (size_t r = 0; r < nruns; r++) { /* a run may hold billions of ids: counted, not walked */
        for (uint64_t k = 0; k < runs[r].count && n + k < cap; k++) out[n + k] = runs[r].first + (uint32_t)k;
        n += runs[r].count;
    }
    return n;
}

static void check_manifest(char *text, size_t len)
{
    struct ig_manifest m;
    struct ig_error err = {0};
    if (ig_manifest_parse(text, len, "fuzz", &m, &err)) {
        if (!err.msg[0]) abort(); /* a refusal says why */
        return;
    }
    if (m.n == 0 || m.format < 1 || m.format > 4 || m.version == 0) abort();
    /* an order: each shown column once (as many, and every one shown) */
    if (m.order.n && (!m.listed || ig_idseq_count(&m.order) != ig_idset_count(&m.columns))) abort();
    for (size_t r = 0; r < m.order.n; r++)
        for (uint64_t k = 0; k < m.order.runs[r].count && k < 4096; k++)
            if (!ig_idset_has(&m.columns, m.order.runs[r].first + (uint32_t)k)) abort();
    /* a renamed column's name: not empty, no NUL, ids ascending */
    for (uint32_t i = 0; i < m.nnames; i++)
        if (!m.names[i].len || memchr(m.names[i].name, 0, m.names[i].len) ||
            (i && m.names[i - 1].col >= m.names[i].col))
            abort();
    uint64_t row = 0;
    for (uint32_t i = 0; i < m.n; i++) {
        const struct ig_manifest_part *p = &m.parts[i];
        if (p->first_row != row || strncmp(p->name, "part-", 5) || strchr(p->name, '/')) abort();
        if (p->blob[0] && (strncmp(p->blob, "part-", 5) || strchr(p->blob, '/'))) abort();
        row += p->rows;
    }
    /* formatted (as format 2, 3 with names, 4 with an order) and parsed again: the same manifest */
    struct ig_buf b = IG_BUF_INIT;
    if (ig_manifest_format(&m, &b) || ig_buf_append_byte(&b, 0)) abort();
    struct ig_manifest back;
    if (ig_manifest_parse((char *)b.data, b.len - 1, "again", &back, &err)) {
        fprintf(stderr, "formatted manifest refused: %s\n", err.msg);
        abort();
    }
    char change[IG_CHANGE_MAX + 1];
    snprintf(change, sizeof change, "%s", m.change);
    for (char *c = change; *c; c++)
        if (*c == '\r') *c = ' '; /* one line: format says so */
    if (back.version != m.version || back.generation != m.generation || back.time != m.time ||
        strcmp(back.change, change) || back.listed != m.listed ||
        (m.listed && !ig_idset_equal(&back.columns, &m.columns)) || back.n != m.n || back.nnames != m.nnames)
        abort();
    if (m.listed) { /* the same ids in the same order (an order by id writes no line) */
        static uint32_t a[4096], b2[4096];
        uint64_t na = shown_ids(&m, a, 4096), nb = shown_ids(&back, b2, 4096);
        if (na != nb || memcmp(a, b2, (na < 4096 ? na : 4096) * sizeof *a)) abort();
    }
    for (uint32_t i = 0; i < m.nnames; i++)
        if (back.names[i].col != m.names[i].col || back.names[i].len != m.names[i].len ||
            memcmp(back.names[i].name, m.names[i].name, m.names[i].len))
            abort();
    for (uint32_t i = 0; i < m.n; i++)
        if (strcmp(back.parts[i].name, m.parts[i].name) ||
            strcmp(back.parts[i].blob, m.parts[i].blob) ||
            back.parts[i].first_row != m.parts[i].first_row ||
            back.parts[i].rows != m.parts[i].rows ||
            back.parts[i].footer_end != m.parts[i].footer_end)
            abort();
    ig_manifest_free(&back);
    ig_buf_free(&b);
    ig_manifest_free(&m);
}

static void check_tags(char *text, size_t len)
{
    struct ig_tag *tags;
    size_t n;
    struct ig_error err = {0};
    if (ig_tags_parse(text, len, "fuzz", &tags, &n, &err)) {
        if (!err.msg[0]) abort();
        return;
    }
    struct ig_buf b = IG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (!ig_tag_name_valid(tags[i].name) || !tags[i].version) abort();
        if (i && strcmp(tags[i - 1].name, tags[i].name) > 0) abort();
        if (ig_buf_printf(&b, "%s %" PRIu64 "\n", tags[i].name, tags[i].version)) abort();
    }
    /* the text ig_tags_save writes, read back: the same tags */
    if (ig_buf_printf(&b, "end %016" PRIx64 "\n", ig_hash(b.data, b.len)) ||
        ig_buf_append_byte(&b, 0))
        abort();
    struct ig_tag *back;
    size_t nback;
    if (ig_tags_parse((char *)b.data, b.len - 1, "again", &back, &nback, &err) || nback != n)
        abort();
    for (size_t i = 0; i < n; i++)
        if (strcmp(back[i].name, tags[i].name) || back[i].version != tags[i].version) abort();
    free(back);
    free(tags);
    ig_buf_free(&b);
}

static void check_commit(char *text, size_t len)
{
    uint64_t version;
    struct ig_commitlog_part *parts;
    size_t n;
    struct ig_error err = {0};
    if (ig_commitlog_parse(text, len, "fuzz", &version, &parts, &n, &err)) {
        if (!err.msg[0]) abort();
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!parts[i].name[0] || parts[i].name[0] == '.' || strchr(parts[i].name, '/') ||
            strlen(parts[i].name) >= IG_PART_NAME_MAX)
            abort();
    free(parts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    int kind = data[0] % 3;
    bool as_is = data[0] & 0x80;
    size_t len = size - 1;
    char *text = malloc(len + 24 + 1);
    if (!text) return 0;
    memcpy(text, data + 1, len);
    if (!as_is) len = reseal(text, len, kind);
    text[len] = '\0';
    if (kind == 0)
        check_manifest(text, len);
    else if (kind == 1)
        check_tags(text, len);
    else
        check_commit(text, len);
    free(text);
    return 0;
}
