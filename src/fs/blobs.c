/* blobs.c - the objects of blob columns: a row's references, one object (blobs.h). */
#include "blobs.h"
#include "cache.h"
#include "session.h"
#include "rows.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "util/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint32_t fs_blob_column(struct fs_session *s, uint32_t ordinal)
{
    return ordinal < s->nblob_cols ? s->blob_cols[ordinal] : UINT32_MAX;
}

int fs_blob_row(struct fs_session *s, uint32_t ordinal, uint64_t row, const uint8_t **refs,
                uint32_t *count, struct fs_entry **hold)
{
    uint32_t col = fs_blob_column(s, ordinal);
    if (col == UINT32_MAX || row >= FS_MAX_BLOB_ROW) return -ENOENT;
    size_t i;
    int rc = fs_row_value(s, col, row, hold, &i);
    if (rc) return rc;
    const struct ig_values *v = (*hold)->vals;
    if (v->levels) { /* a nested blob leaf: i is the row; its objects' refs lie together */
        if (i >= v->rows || v->row_val[i + 1] == v->row_val[i]) {
            fs_cache_release(&s->cache, *hold);
            return -ENOENT;
        }
        size_t a = v->row_val[i], b = v->row_val[i + 1], len;
        *refs = ig_values_bytes(v, a, &len);
        *count = (uint32_t)((v->offs[b] - v->offs[a]) / IG_BLOB_REF_BYTES);
        return 0;
    }
    if (ig_values_is_null(v, i)) {
        fs_cache_release(&s->cache, *hold);
        return -ENOENT;
    }
    size_t len;
    *refs = ig_values_bytes(v, i, &len);
    *count = (uint32_t)(len / IG_BLOB_REF_BYTES);
    return 0;
}

int fs_blob_object(struct fs_session *s, uint32_t ordinal, uint64_t row, uint32_t k,
                   struct ig_blob_ref *ref, unsigned *kind, uint32_t *part)
{
    const uint8_t *refs;
    uint32_t count;
    struct fs_entry *e;
    int rc = fs_blob_row(s, ordinal, row, &refs, &count, &e);
    if (rc) return rc;
    if (k >= count) {
        fs_cache_release(&s->cache, e);
        return -ENOENT;
    }
    ig_blob_ref_load(refs + (size_t)k * IG_BLOB_REF_BYTES, ref, kind);
    fs_cache_release(&s->cache, e);
    uint64_t local;
    return ig_table_row(&s->table, row, part, &local) ? -ENOENT : 0;
}

bool fs_blob_parse_name(const char *name, uint64_t *id, const char **ext)
{
    if (!*name || (name[0] == '0' && name[1] && name[1] != '.')) return false;
    uint64_t v = 0;
    const char *p = name;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (p == name || (*p && *p != '.') || (*p == '.' && !p[1])) return false;
    *id = v;
    *ext = *p ? p + 1 : "";
    return true;
}

bool fs_blob_verified(struct fs_session *s, uint32_t part, uint64_t offset, bool mark)
{
    return fs_keyset_had(&s->verified, ((uint64_t)part << 48) ^ offset, mark);
}
