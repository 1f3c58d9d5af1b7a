/* versions.h - a table's versions and tags.
 *
 *     TABLE/.ingot/versions/0000000007   version 7: MANIFEST's text as it was
 *                                        committed (manifest.h)
 *     TABLE/.ingot/tags                  "NAME VERSION" lines, then an end line
 *                                        with their hash, as MANIFEST's
 *
 * Every commit (import, append, a column added, replaced or dropped, values
 * updated, an erasure) writes its version's file before MANIFEST names it.
 * A version is read with the part footers MANIFEST names now (footer= of the
 * current manifest): a part's footer only ever gains column records, so the
 * newest one describes every version's columns, and an erasure is recorded in
 * it for every version at once. `ingot gc` removes versions' files (never a
 * tagged version's, nor the current one's).
 *
 * What it does not do: lock (callers hold the table lock to write) or keep
 * anything a version shows: the column records and pages live in the parts. */
#ifndef IG_FORMAT_PART_VERSIONS_H
#define IG_FORMAT_PART_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/part/manifest.h"

struct ig_error;

#define IG_VERSIONS_DIR ".ingot/versions"
#define IG_TAGS_FILE    ".ingot/tags"
#define IG_TAG_MAX      64

/* Write version m->version's file (atomically). */
int ig_version_save(const char *dir, const struct ig_manifest *m, struct ig_error *err);
/* Read version `version`: -ENOENT (with a message) when there is no such version. */
int ig_version_load(const char *dir, uint64_t version, struct ig_manifest *m, struct ig_error *err);
/* Is version `version` kept (its file there)? One access(2), nothing parsed. */
bool ig_version_kept(const char *dir, uint64_t version);
/* The versions kept, ascending (malloc'd; *n may be 0). */
int ig_version_list(const char *dir, uint64_t **versions, size_t *n, struct ig_error *err);
int ig_version_remove(const char *dir, uint64_t version, struct ig_error *err);

struct ig_tag {
    char name[IG_TAG_MAX + 1];
    uint64_t version;
};

/* A tag name: 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-', not all
 * digits (those name versions). */
bool ig_tag_name_valid(const char *name);
/* The tags, in name order (malloc'd; none: *n = 0, no file is no error). */
int ig_tags_load(const char *dir, struct ig_tag **tags, size_t *n, struct ig_error *err);
int ig_tags_save(const char *dir, const struct ig_tag *tags, size_t n, struct ig_error *err);
/* A version named by a number or a tag: 0, or -ENOENT with a message. */
int ig_version_resolve(const char *dir, const char *spec, uint64_t *version, struct ig_error *err);

#endif
