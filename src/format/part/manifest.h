/* manifest.h - MANIFEST: a table version (format of the file in table.h and
 * docs/FORMAT.md), and the names part files have.
 *
 * A manifest of format 2 records, besides the parts, which table version it is,
 * when it was made and by what change, which column records of the parts'
 * footers the version shows, and where each part's footer ends (the footer a
 * commit appended last: parts only grow, so a reader that opens a part at the
 * recorded end never meets a commit at work beyond it). The same text, kept in
 * .ingot/versions/, records every version (versions.h). Format 1 (written by
 * older releases) has none of these: version 1, every column, the tail at the
 * end of each part file. A version that renamed columns is written as format
 * 3: its `name` lines give a top-level record the name the version shows it
 * by (the footers keep the name it was written with; docs/FORMAT.md), and a
 * release that reads only format 2 refuses it rather than show old names. A
 * version that shows its columns in another order than their ids' (a
 * replaced column keeps its place) is written as format 4: its `order` line
 * lists the records it shows in that order. */
#ifndef IG_FORMAT_MANIFEST_H
#define IG_FORMAT_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "util/idset.h"

struct ig_error;
struct ig_buf;

#define IG_MANIFEST "MANIFEST"
#define IG_PART_NAME_MAX 64

#define IG_CHANGE_MAX 200 /* bytes of the `change` line's text */

struct ig_manifest_part {
    char name[IG_PART_NAME_MAX];
    uint64_t first_row, rows;
    char blob[IG_PART_NAME_MAX]; /* "part-NNNNNN.blob", or "" */
    uint64_t footer_end;         /* where its tail ends; 0: at the end of the file (format 1) */
};

/* A top-level column record the version shows under another name than its
 * footer's (a rename: its struct fields follow it, ig_table_open). */
struct ig_manifest_name {
    uint32_t col;
    uint32_t len;
    char *name; /* owned, NUL-terminated (a name never holds NUL) */
};

struct ig_manifest {
    uint32_t format;       /* 1, 2 or 3 */
    uint64_t generation;   /* moves with every change of the table, erasures included */
    uint64_t version;      /* the table version (1 for format 1) */
    int64_t time;          /* when it was committed (seconds since 1970), 0 unknown */
    char change[IG_CHANGE_MAX + 1]; /* what it changed, one line ("" unknown) */
    bool listed;           /* a columns line names the records the version shows */
    struct ig_idset columns; /* those (not listed: every record, as format 1) */
    struct ig_idseq order; /* the records shown, in the order shown (an `order`
                              line: each of `columns` once); n == 0: by id */
    uint32_t nnames;       /* renamed records, by id ascending */
    uint32_t names_cap;    /* entries names has room for */
    struct ig_manifest_name *names;
    uint32_t n;
    struct ig_manifest_part *parts;
    char etag[128];        /* as read from object storage (the condition a writer
                              publishes under), else "" */
};

int ig_manifest_read(const char *dir, struct ig_manifest *m, struct ig_error *err);
/* Written as format 2, 3 when it renames a column, or 4 when it shows its
 * columns in an order of their own, whatever m->format says (format 1 is only
 * ever read). The order line written lists the records m->columns holds, each
 * once: m->order's first, then any it leaves out, by id. */
int ig_manifest_write(const char *dir, const struct ig_manifest *m, struct ig_error *err);
/* The text of m (with its end line), and back; `what` names it in messages. */
int ig_manifest_format(const struct ig_manifest *m, struct ig_buf *out);
int ig_manifest_parse(char *text, size_t len, const char *what, struct ig_manifest *m, struct ig_error *err);
/* A deep copy; 0 or -ENOMEM. */
int ig_manifest_copy(struct ig_manifest *dst, const struct ig_manifest *src);
/* Does version m show column record `col`? */
bool ig_manifest_shows(const struct ig_manifest *m, uint32_t col);
/* Records [first, first + count) shown right before record `at` (a
 * replacement where the column it replaces is, both shown when placed; a
 * column moved or added before another), or last when `at` is IG_PLACE_LAST
 * (or not shown). */
#define IG_PLACE_LAST UINT32_MAX
struct ig_placement {
    uint32_t first, count, at;
};
/* Make n placements at once (those before one record in the order given),
 * the other records keeping their order; m->listed. One pass over the shown
 * records, however many are placed. 0 or -ENOMEM. */
int ig_manifest_place(struct ig_manifest *m, const struct ig_placement *pl, size_t n);
/* Give record col the name (len bytes; NULL: its footer's again); 0 or -ENOMEM. */
int ig_manifest_rename(struct ig_manifest *m, uint32_t col, const char *name, size_t len);
int ig_manifest_add(struct ig_manifest *m, const char *name, uint64_t first_row, uint64_t rows);
void ig_manifest_free(struct ig_manifest *m);
/* The blob file beside part `part` ("part-N.ingot" -> "part-N.blob", into out,
 * IG_PART_NAME_MAX bytes); false if the part is not so named. */
bool ig_blob_file_of_part(const char *part, char *out);
/* A name MANIFEST may give a part ("part-" digits ".ingot") or its blob file
 * ("part-" digits ".blob"): what gc may take for one of the table's objects. */
bool ig_part_name_valid(const char *name);
bool ig_blob_name_valid(const char *name);
/* "part-%06u.ingot" and its blob file "part-%06u.blob" */
void ig_part_file_name(char *out, uint32_t index);
void ig_blob_file_name(char *out, uint32_t index);

#endif
