/* generated.h - the files the mount makes up from the footer: README (what the
 * table is and how to read it), schema.json (columns, file names, types,
 * encodings, sizes, row counts) and .ingot/erasures (the audit log, read fresh
 * at every open because each erase appends to it). */
#ifndef IG_FS_GENERATED_H
#define IG_FS_GENERATED_H

#include "session.h"

struct fs_entry;
struct ig_buf;

int fs_render_readme(struct fs_session *s, struct ig_buf *b);
int fs_render_schema(struct fs_session *s, struct ig_buf *b);
/* An uncached entry holding the audit log as it is now (empty if absent). */
int fs_erasures_entry(struct fs_session *s, struct fs_entry **out);

#endif
