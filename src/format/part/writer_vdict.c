/* writer_vdict.c - whether a string or binary chunk gets a value dictionary
 * (format 14: its context's kind 3; docs/ENCODINGS.md "vdict"), and its
 * values' codes into it.
 *
 * A chunk whose distinct values the planner counted to the end (the chunk
 * record's count, chunk_dict in writer_plan.c: at most a quarter of its
 * values) stores them once in its context, each block then holding only
 * codes, when a probe says that is smaller than what its blocks would store
 * on their own: runs of a block's worth of values spread over the chunk are
 * encoded both ways (the blocks' own choice as the selector makes it, then
 * zstd where that is smaller; the codes as a vdict stream, then zstd) and
 * the dictionary's bytes are added to the codes' side, which must come out
 * under half the other. Every value of such a
 * chunk is coded (a column that forces vdict always is, when its values were
 * counted), so each entry's use count is its values' count. */
#include "format/part/writer_int.h"
#include "format/enc/codec.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "util/strset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* The most bytes a value dictionary takes (the context is at most
 * IG_MAX_CTX_SIZE, with room for the other entries). */
#define VDICT_MAX_BYTES (768u << 10)
#define PROBE_RUNS 16
#define PROBE_BYTES 4096 /* a block's worth of plain values */
#define OWN_SHARE 2

void ig_vcodes_free(struct ig_vcodes *c)
{
    free(c->code);
    *c = (struct ig_vcodes){0};
}

/* The stored size of a stream: zstd's frame where smaller. */
static size_t stored_size(ZSTD_CCtx *z, struct ig_buf *tmp, const struct ig_buf *s, int level)
{
    size_t bound = ZSTD_compressBound(s->len);
    if (ig_buf_reserve(tmp, bound)) return s->len;
    size_t r = ZSTD_compressCCtx(z, tmp->data, bound, s->data, s->len, level);
    return ZSTD_isError(r) || r > s->len ? s->len : r;
}

/* Whether the codes with the dictionary d are smaller than the blocks' own
 * streams, over runs spread through the chunk, each of a block's values
 * (block_values, else PROBE_BYTES of them). */
static bool pays(const struct ig_values *v, const uint32_t *code, uint32_t k, size_t dict_bytes,
                 int level, size_t block_values)
{
    uint64_t total = v->offs[v->n] - v->offs[0] + 4ull * v->n;
    size_t run = block_values ? block_values : (size_t)((uint64_t)PROBE_BYTES * v->n / (total ? total : 1));
    if (run < 16) run = 16;
    if (run > v->n) run = v->n;
    size_t runs = v->n / run < PROBE_RUNS ? (v->n / run ? v->n / run : 1) : PROBE_RUNS;
    size_t step = v->n / runs;
    ZSTD_CCtx *z = ZSTD_createCCtx();
    uint64_t *offs = malloc((run + 1) * sizeof *offs);
    struct ig_buf own = IG_BUF_INIT, codes = IG_BUF_INIT, tmp = IG_BUF_INIT;
    uint64_t own_bytes = 0, code_bytes = 0, seen = 0;
    bool ok = z && offs;
    for (size_t r = 0; ok && r < runs; r++) {
        size_t a = r * step, m = a + run <= v->n ? run : v->n - a;
        for (size_t i = 0; i <= m; i++)
            offs[i] = v->offs[a + i] - v->offs[a];
        ig_buf_reset(&own);
        ig_buf_reset(&codes);
        struct ig_enc_opts o = {0};
        const uint8_t *data = v->data.data ? v->data.data + v->offs[a] : (const uint8_t *)"";
        ok = ig_bytes_encode(offs, data, m, &o, &own, NULL) == 0 &&
             ig_bytes_encode_vdict(code + a, m, k, &codes, NULL) == 0;
        if (!ok) break;
        own_bytes += stored_size(z, &tmp, &own, level);
        code_bytes += stored_size(z, &tmp, &codes, level);
        seen += m;
    }
    ZSTD_freeCCtx(z);
    free(offs);
    ig_buf_free(&own);
    ig_buf_free(&codes);
    ig_buf_free(&tmp);
    if (!ok || !seen) return false;
    double scale = (double)v->n / (double)seen;
    /* the probe's runs stand alone; the writer's blocks of a flat leaf do
     * better (fitted to 4 KiB stored, runs and trials, a zstd dictionary): on
     * the package index they stored 1.7x (maintainers) to 5x (priorities of 5
     * values) less than the probe says, so the codes must win by OWN_SHARE.
     * A nested leaf's blocks are cut with its siblings' and fitted to
     * nothing: the probe's runs are their size, and the codes need only win. */
    double share = block_values ? 1 : OWN_SHARE;
    return (double)code_bytes * scale + (double)dict_bytes < (double)own_bytes * scale / share;
}

int ig_writer_plan_vdict(const struct ig_column_def *cd, const struct ig_values *v,
                         const struct ig_chunk_dict *dict, const struct ig_item_ids *ids,
                         const struct ig_strset *set, int level, size_t block_values,
                         struct ig_vcodes *out, struct ig_chunk_ctx *cx)
{
    out->on = false;
    out->k = 0;
    if (!v->is_bytes || cd->type == IG_T_BLOB || !dict->count || v->n < 2) return 0;
    if (cd->encoding != IG_ENC_AUTO && cd->encoding != IG_ENC_VDICT) return 0;
    if (set->bytes > VDICT_MAX_BYTES || set->count >= UINT32_MAX - 1) return 0;
    /* the set's entries without the empty value (code 0), numbered from 1 */
    uint32_t n_ids = set->count + 1; /* + a flat leaf's NULL number past the set */
    uint32_t *map = malloc(n_ids * sizeof *map);
    uint64_t *eoffs = malloc((size_t)n_ids * sizeof *eoffs);
    if (!map || !eoffs) {
        free(map);
        free(eoffs);
        return -ENOMEM;
    }
    /* the entries: the set's values but the empty one, back to back in its order */
    struct ig_buf data = IG_BUF_INIT;
    uint32_t k = 0;
    int rc = 0;
    eoffs[0] = 0;
    for (uint32_t i = 0; !rc && i < set->count; i++) {
        size_t len;
        const uint8_t *p = ig_strset_get(set, i, &len);
        map[i] = len ? ++k : 0;
        if (len) {
            eoffs[k] = eoffs[k - 1] + len;
            if (ig_buf_append(&data, p, len)) rc = -ENOMEM;
        }
    }
    map[set->count] = 0;
    if (!rc && out->cap < v->n) {
        uint32_t *p = realloc(out->code, v->n * sizeof *p);
        if (!p) rc = -ENOMEM;
        else {
            out->code = p;
            out->cap = v->n;
        }
    }
    for (size_t i = 0; !rc && i < v->n; i++) {
        if (ig_values_is_null(v, i)) {
            out->code[i] = 0;
            continue;
        }
        if (ids->valid) {
            out->code[i] = ids->id[i] < n_ids ? map[ids->id[i]] : 0;
        } else {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            int64_t at = ig_strset_find(set, p, len);
            if (at < 0) rc = -EINVAL; /* the set was counted from these values */
            else out->code[i] = map[at];
        }
    }
    struct ig_vdict *d = NULL;
    if (!rc && k) rc = ig_vdict_new(eoffs, data.data ? data.data : (const uint8_t *)"", k, &d);
    free(map);
    free(eoffs);
    ig_buf_free(&data);
    if (rc || !d) return rc == -EINVAL || rc == -E2BIG ? 0 : rc;
    uint64_t *count = ig_vdict_counts(d);
    for (size_t i = 0; i < v->n; i++)
        count[out->code[i]]++;
    size_t dsize = ig_vdict_size(d);
    bool keep = dsize != SIZE_MAX && dsize + 64 <= VDICT_MAX_BYTES + (64u << 10) &&
                (cd->encoding == IG_ENC_VDICT || pays(v, out->code, k, dsize, level ? level : 3, block_values));
    if (!keep) {
        ig_vdict_free(d);
        return 0;
    }
    ig_vdict_free(cx->vdict);
    cx->vdict = d;
    out->on = true;
    out->k = k;
    return 0;
}
