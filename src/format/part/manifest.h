/* manifest.h - MANIFEST, the list of a table's parts (format of the file in
 * table.h), and the names part files have. */
#ifndef IG_FORMAT_MANIFEST_H
#define IG_FORMAT_MANIFEST_H

#include <stdint.h>

struct ig_error;

#define IG_MANIFEST "MANIFEST"
#define IG_PART_NAME_MAX 64

struct ig_manifest_part {
    char name[IG_PART_NAME_MAX];
    uint64_t first_row, rows;
    char blob[IG_PART_NAME_MAX]; /* "part-NNNNNN.blob", or "" */
};

struct ig_manifest {
    uint64_t generation;
    uint32_t n;
    struct ig_manifest_part *parts;
};

int ig_manifest_read(const char *dir, struct ig_manifest *m, struct ig_error *err);
int ig_manifest_write(const char *dir, const struct ig_manifest *m, struct ig_error *err);
int ig_manifest_add(struct ig_manifest *m, const char *name, uint64_t first_row, uint64_t rows);
void ig_manifest_free(struct ig_manifest *m);
/* "part-%06u.ingot" and its blob file "part-%06u.blob" */
void ig_part_file_name(char *out, uint32_t index);
void ig_blob_file_name(char *out, uint32_t index);

#endif
