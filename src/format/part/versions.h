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

struct ig_buf;
struct ig_error;

#define IG_VERSIONS_DIR ".ingot/versions"
#define IG_TAGS_FILE    ".ingot/tags"
#define IG_TAG_MAX      64

/* Write version m->version's file (atomically). */
int ig_version_save(const char *dir, const struct ig_manifest *m, struct ig_error *err);
/* Read version `version`: -ENOENT (with a message) when there is no such
 * version; one older than the current one without its file was let go by
 * `ingot gc`, and the message says so. */
int ig_version_load(const char *dir, uint64_t version, struct ig_manifest *m, struct ig_error *err);
/* Is version `version` kept (its file there)? One access(2), nothing parsed. */
bool ig_version_kept(const char *dir, uint64_t version);
/* The versions kept, ascending (malloc'd; *n may be 0). A version's file past
 * MANIFEST's version (a commit in progress, or one a crash stopped before its
 * commit point) is no version: not listed, not loaded. */
int ig_version_list(const char *dir, uint64_t **versions, size_t *n, struct ig_error *err);
int ig_version_remove(const char *dir, uint64_t version, struct ig_error *err);
/* An erasure is a version of its own: m (MANIFEST as read) moved to
 * generation g as the next version, "erase", and that version's file written
 * (a format-1 MANIFEST's own version gets its file first). MANIFEST itself is
 * the caller's to write (a file, or an object published under If-Match).
 * *made: false when m was at g already (a replay: nothing to do). */
int ig_version_of_erase(const char *dir, struct ig_manifest *m, uint64_t g, bool *made,
                        struct ig_error *err);
/* The versions kept: every version's file and the current one (MANIFEST's
 * version, which a table an older release wrote may have no file for yet),
 * ascending (malloc'd; never empty). */
int ig_versions_kept(const char *dir, uint64_t current, uint64_t **versions, size_t *n,
                     struct ig_error *err);
/* Versions as text: runs "A-B" or "A", ascending, comma-separated ("1-7",
 * "2,5-9"); "-" for none. v must be ascending. 0 or -ENOMEM. */
int ig_versions_format(const uint64_t *v, size_t n, struct ig_buf *out);
/* For each part i of `current` (MANIFEST), the column records some kept
 * version that lists the part shows: the union of the columns of `current`
 * and of every version's file that names the part (a version from before it
 * was appended shows nothing of it). every[i]: one of them shows every record
 * (no columns line), and shown[i] is then not the whole answer. shown and
 * every hold current->n each; shown's are freed by the caller (and left
 * empty on an error). */
int ig_versions_shown(const char *dir, const struct ig_manifest *current, struct ig_idset *shown,
                      bool *every, struct ig_error *err);

struct ig_tag {
    char name[IG_TAG_MAX + 1];
    uint64_t version;
};

/* A tag name: 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-', not all
 * digits (those name versions), not "end" (the tags file's last line). */
bool ig_tag_name_valid(const char *name);
/* The tags, in name order (malloc'd; none: *n = 0, no file is no error), and
 * the ETag they were read with into etag (NULL, or IG_ETAG_MAX bytes: "" when
 * there is no tags object, and for a directory's file). */
int ig_tags_load(const char *dir, struct ig_tag **tags, size_t *n, char *etag,
                 struct ig_error *err);
/* The tags file's text (len bytes, NUL after them; written into): its end
 * line's hash checked, every line a valid name and a version; `what` names it
 * in messages. */
int ig_tags_parse(char *text, size_t len, const char *what, struct ig_tag **tags, size_t *n,
                  struct ig_error *err);
/* The tags file written whole. On object storage with if_etag, only over the
 * object read with that ETag ("": only where there is none yet): -ESTALE with
 * a message, nothing written, when another writer changed them meanwhile. A
 * directory's file is written under the writers' lock (tag.h), which
 * serialises its writers. */
int ig_tags_save(const char *dir, const struct ig_tag *tags, size_t n, const char *if_etag,
                 struct ig_error *err);
/* A version named by a number or a tag: 0, or -ENOENT with a message. */
int ig_version_resolve(const char *dir, const char *spec, uint64_t *version, struct ig_error *err);

#endif
