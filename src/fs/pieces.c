/* pieces.c - a page's bytes as a column view shows them (pieces.h). */
#include "pieces.h"
#include "cache.h"
#include "invalidate.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/model/quantize.h"
#include "format/model/render.h"
#include "format/ops/nested.h"
#include "format/part/columns.h"
#include "format/model/types.h"
#include "store/store.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"
#include "util/sigbus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One float32 lane as the view wants it: float32 or fp16 bits. */
/* n float32 lanes (NULL: n NaNs, an absent vector) as float32, or as fp16
 * with half; one extension of out for all of them (a vector's floats are
 * most of what an embedding's .npy is made of). */
static int put_floats(struct ig_buf *out, const uint64_t *lanes, size_t n, bool half)
{
    uint8_t *o = ig_buf_extend(out, n * (half ? 2 : 4));
    if (!o) return -ENOMEM;
    /* a loop each, so that the float32 one vectorises (a vector's 768 floats
     * per row are most of an emb.npy read's work beside decoding) */
    if (half) {
        for (size_t k = 0; k < n; k++) {
            uint32_t b = lanes ? (uint32_t)lanes[k] : 0x7FC00000u;
            float f;
            memcpy(&f, &b, 4);
            ig_st16(o + 2 * k, (uint16_t)ig_quantize_one(IG_Q_FP16, f));
        }
    } else if (!lanes) {
        for (size_t k = 0; k < n; k++)
            ig_st32(o + 4 * k, 0x7FC00000u);
    } else {
        ig_lanes_put32(o, lanes, n);
    }
    return 0;
}

static bool bit(const uint8_t *bits, size_t i)
{
    return bits && ((bits[i / 8] >> (i % 8)) & 1);
}

/* Array pieces of vectors, lists and fp16 views, from a decoded page: rows in
 * `del` are left out, rows in `blank` (erased since the file's generation) read
 * as an absent vector (NaN, false). */
static int nested_piece(const struct fs_plan *vp, enum fs_view view, const struct ig_values *v,
                        const uint8_t *del, const uint8_t *blank, uint64_t values_before,
                        struct ig_buf *out)
{
    bool half = view == FS_V_F16;
    size_t rows = v->levels ? v->rows : v->n;
    uint32_t dim = vp->ref.rec.dimension ? vp->ref.rec.dimension : 1;
    uint64_t running = values_before;
    /* each row kept writes dim elements (a NULL vector's NaNs too): room for all at once */
    if ((view == FS_V_NPY || view == FS_V_F16) && ig_buf_reserve(out, rows * dim * (half ? 2 : 4)))
        return -ENOMEM;
    for (size_t r = 0; r < rows; r++) {
        if (bit(del, r)) continue;
        size_t v0 = v->levels ? v->row_val[r] : r, v1 = v->levels ? v->row_val[r + 1] : r + 1;
        if (bit(blank, r)) v1 = v0;
        int rc = 0;
        switch (view) {
        case FS_V_VALID: /* vectors: is the row's vector there? */
            rc = ig_buf_append_byte(out, v1 > v0);
            break;
        case FS_V_NPY:
        case FS_V_F16:
            if (!v->levels) { /* a flat fp16 column */
                rc = put_floats(out, ig_values_is_null(v, r) || v1 == v0 ? NULL : &v->lanes[r], 1,
                                half);
                break;
            }
            if (v1 > v0 && (v1 - v0 != dim || v1 > v->n)) return -EIO; /* a vector is dim floats */
            rc = put_floats(out, v1 > v0 ? &v->lanes[v0] : NULL, dim, half);
            break;
        case FS_V_VALUES: {
            /* the row's elements, each as the NumPy element type */
            struct ig_values slice = *v;
            slice.levels = false;
            slice.has_nulls = false;
            slice.lanes = v->lanes + v0;
            slice.n = v1 - v0;
            if (slice.n) rc = ig_render_npy(out, &slice, NULL, false);
            break;
        }
        case FS_V_OFFSETS: {
            running += v1 - v0;
            uint8_t *o = ig_buf_extend(out, 8);
            if (!o) return -ENOMEM;
            ig_st64(o, running);
            break;
        }
        default:
            rc = -EIO;
        }
        if (rc) return rc;
    }
    return 0;
}

/* Fill a piece: the page's live rows rendered for the view. */
/* What mapped_piece does with the mapped bytes, run under the SIGBUS guard:
 * are the page's blocks plain values of `width`, and do their checksums hold? */
struct mapped_check {
    const struct ig_part *p;
    const uint8_t *bytes; /* the page's stored bytes: in the mapping, or fetched */
    uint32_t page;
    struct ig_pagerec rec;
    unsigned width, per_row; /* bytes a value, values a row (a vector's dimension, else 1) */
    struct iovec *segs;      /* out: one per block */
    int nsegs;
    bool checked; /* the checksums held before (ig_obj_pin_checked): not computed again */
    bool plain;   /* out: every block is plain values of `width` */
    bool damaged; /* out: a checksum failed */
};

static void mapped_check_run(void *arg)
{
    struct mapped_check *m = arg;
    const uint8_t *page = m->bytes;
    m->plain = true;
    for (int b = 0; b < m->nsegs && m->plain && !m->damaged; b++) {
        struct ig_pagerec blk;
        size_t off = 0;
        if (ig_part_block(m->p, m->page, &m->rec, (uint32_t)b, &blk, NULL)) {
            m->damaged = true;
            break;
        }
        const uint8_t *bytes = page + (blk.offset - m->rec.offset);
        m->plain = blk.compression == IG_PC_NONE &&
                   ig_page_plain_values(bytes, &blk, m->width, m->per_row, &off);
        if (m->plain && !m->checked && ig_hash(bytes, blk.stored) != blk.checksum) m->damaged = true;
        m->segs[b] =
            (struct iovec){(void *)(bytes + off), (size_t)blk.row_count * m->per_row * m->width};
    }
}

/* A remote page's values where the store's cache holds its stored bytes
 * (pinned there): checked (once: the check that passed is recorded with the
 * pinned bytes, and the next FUSE read of the same page, the .npy header
 * shifting pages off the read grid, finds it), then the entry's segments point at them, and the
 * entry is transient, released with the reply that points at them (fs_piece_get
 * does not cache it: a cached entry would hold its pin, and with it a
 * fetched extent of many pages, for as long as it stays). Nothing is copied
 * between the socket's buffer and the reply. Takes over m->segs and pin. */
static int pinned_piece(struct fs_session *s, const struct fs_span *sp, struct mapped_check *m,
                        void *pin, const uint8_t *at, struct fs_entry *e)
{
    m->bytes = at;
    m->checked = ig_obj_pin_checked(pin, m->rec.offset, m->rec.stored);
    mapped_check_run(m);
    if (!m->checked && m->plain && !m->damaged)
        ig_obj_pin_set_checked(pin, m->rec.offset, m->rec.stored);
    int rc = m->damaged ? fs_page_failed(s, sp->part, sp->page, "checksum mismatch", -EIO)
             : !m->plain ? 1
                         : 0;
    if (rc) {
        free(m->segs);
        ig_obj_unpin(pin);
        return rc;
    }
    e->segs = m->segs;
    e->nsegs = m->nsegs;
    e->mapped_len = 0;
    for (int b = 0; b < m->nsegs; b++)
        e->mapped_len += m->segs[b].iov_len;
    e->obj = pin;
    e->obj_free = ig_obj_unpin;
    e->transient = true;
    return 0;
}

/* mapped_piece on object storage (below): the values moved together in place
 * (each block's follow its own header, so every move is backwards), one run
 * of bytes that a reply points at, not segments copied into each reply.
 * Takes m->segs. */
static int fetched_piece(struct fs_session *s, const struct fs_span *sp, enum ig_ahead ahead,
                         struct mapped_check *m, struct fs_entry *e)
{
    struct ig_error err = {0};
    ig_buf_reset(&e->data);
    int rc = ig_buf_reserve(&e->data, m->rec.stored) ? -ENOMEM : 0;
    if (!rc) rc = ig_part_read_by(m->p, e->data.data, m->rec.stored, m->rec.offset, ahead, &err);
    if (rc && rc != -ENOMEM) rc = fs_page_failed(s, sp->part, sp->page, err.msg, rc);
    if (!rc) {
        m->bytes = e->data.data;
        mapped_check_run(m);
        if (m->damaged)
            rc = fs_page_failed(s, sp->part, sp->page, "checksum mismatch", -EIO);
        else if (!m->plain)
            rc = 1;
    }
    if (rc) {
        free(m->segs);
        ig_buf_free(&e->data); /* decoded after all: from the start */
        return rc;
    }
    size_t at = 0;
    for (int b = 0; b < m->nsegs; b++) {
        memmove(e->data.data + at, m->segs[b].iov_base, m->segs[b].iov_len);
        at += m->segs[b].iov_len;
    }
    e->data.len = at;
    free(m->segs);
    return 0;
}

/* The .npy bytes of a page that stores them as they are: uncompressed blocks,
 * each a plain stream of the type's width, no NULL, no deleted row (a flat
 * column's values, or a vector column's floats: no levels, so no NULL
 * vector, and the rows' vectors back to back as the .npy has them). Then the
 * piece is the blocks' own values in the part's mapping, checked against their
 * checksums once (the cache keeps the result): no pread copy, no decode copy.
 * The mapped bytes are only touched under the SIGBUS guard (a part truncated
 * under the mount). A part on object storage has no mapping: its page's
 * values are pointed at where the store's cache holds its fetched bytes
 * (pinned_piece), else its stored bytes are fetched into the entry (counted
 * against the cache), checked the same way, and its values moved together in
 * place: a column scan copies no value, or one copy, never a decode and a render. 1 when the page
 * needs decoding; -EAGAIN when it changed under us. */
static int mapped_piece(struct fs_session *s, const struct ig_part *p, const struct fs_plan *vp,
                        enum fs_view view, const struct fs_span *sp, enum ig_ahead ahead,
                        struct fs_entry *e)
{
    const struct ig_colrec *c = &vp->ref.rec;
    const struct ig_type_info *ti = ig_type_info(c->type);
    struct mapped_check m = {.p = p, .page = sp->page};
    bool vector = c->dimension && c->type == IG_T_FLOAT32;
    bool converted = c->lt.kind && (c->type != IG_T_INT64 || c->lt.kind == IG_LT_DECIMAL); /* a date's int32s widen */
    if (view != FS_V_NPY || (vp->ref.nested && !vector) || c->quantize || converted ||
        (!p->data && !p->obj) || !ti || ti->phys != IG_PHYS_LANES ||
        ig_part_page(p, sp->page, &m.rec, NULL) || m.rec.leaf != c->leaf || m.rec.deleted ||
        (p->data && m.rec.offset + m.rec.capacity > p->data_len)) /* past the mapping: read */
        return 1;
    if (m.rec.nblocks) { /* the page's own checksum: its block records' hash */
        const uint8_t *records =
            ig_part_section(p, IG_SEC_BLOCKS) + (uint64_t)m.rec.first_block * IG_BLK_SIZE;
        if (ig_hash(records, (size_t)m.rec.nblocks * IG_BLK_SIZE) != m.rec.checksum)
            return fs_page_failed(s, sp->part, sp->page, "block records' checksum mismatch", -EIO);
    } else if (m.rec.compression != IG_PC_NONE) {
        return 1;
    }
    m.width = ti->width;
    m.per_row = vector ? c->dimension : 1;
    m.nsegs = (int)ig_page_nblocks(&m.rec);
    m.segs = calloc((size_t)m.nsegs, sizeof *m.segs);
    if (!m.segs) return -ENOMEM;
    if (!p->data) { /* object storage: pointed at where fetched, else copied */
        struct ig_error err = {0};
        void *pin = NULL;
        const uint8_t *at = NULL;
        int rc = ig_obj_pin(p->obj, m.rec.offset, m.rec.stored, ahead, &at, &pin, &err);
        if (rc) {
            free(m.segs);
            return fs_page_failed(s, sp->part, sp->page, err.msg, rc);
        }
        return pin ? pinned_piece(s, sp, &m, pin, at, e) : fetched_piece(s, sp, ahead, &m, e);
    }
    m.bytes = p->data + m.rec.offset; /* ig_part_page checked the extent */
    int rc = 0;
    if (ig_sigbus_guard(mapped_check_run, &m))
        rc = fs_page_failed(s, sp->part, sp->page, "the part file shrank under the mount", -EIO);
    else if (m.damaged)
        rc = fs_page_failed(s, sp->part, sp->page, "checksum mismatch", -EIO);
    else if (!m.plain)
        rc = 1;
    if (rc) {
        free(m.segs);
        return rc;
    }
    e->segs = m.segs;
    e->nsegs = m.nsegs;
    e->mapped_len = (size_t)m.rec.row_count * m.per_row * ti->width;
    return 0;
}

/* Copy n mapped bytes under the SIGBUS guard: -EIO if the part shrank. */

/* Rows of a page as the file's generation had them: `skip` the rows deleted
 * then (left out), `blank` those erased since (shown in their erased form).
 * For the current generation skip is the page's deletion bits and nothing is
 * blank. */
struct row_masks {
    struct ig_buf skip, blank;
    bool any_skip, any_blank;
};

static int old_masks(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                     const struct ig_pagerec *rec, const uint8_t *del_now, struct row_masks *m)
{
    const struct fs_generation *ver = fs_generation_of(&s->gens, f->node.gen_bits);
    if (!ver || ver->gen != f->gen) return -ESTALE;
    size_t nb = (rec->row_count + 7) / 8;
    uint8_t *sk = ig_buf_extend(&m->skip, nb), *bl = ig_buf_extend(&m->blank, nb);
    if (!sk || !bl) return -ENOMEM;
    m->any_skip = fs_generation_deleted_bits(
        ver, &s->table, sp->part, sp->group_first_row + rec->first_row, rec->row_count, sk);
    for (size_t i = 0; i < nb; i++) {
        bl[i] = (uint8_t)((del_now ? del_now[i] : 0) & ~sk[i]);
        m->any_blank |= bl[i] != 0;
    }
    return 0;
}

/* _rowid.npy: the row ids of the rows a generation shows (no page data). */
static int rowid_piece(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                       const struct fs_generation *ver, struct fs_entry *e)
{
    const struct ig_part *p = &s->table.parts[sp->part];
    struct ig_pagerec rec;
    if (ig_part_page(p, sp->page, &rec, NULL)) return -EIO;
    (void)f;
    uint64_t first = sp->group_first_row + rec.first_row;
    for (uint32_t i = 0; i < rec.row_count; i++) {
        if (fs_generation_deleted(ver, &s->table, sp->part, first + i)) continue;
        uint8_t *o = ig_buf_extend(&e->data, 8);
        if (!o) return -ENOMEM;
        ig_st64(o, p->first_row_id + first + i);
    }
    return 0;
}

/* The cache key of a piece: the same page makes different pieces for a whole
 * nested column's text and a projection's, offsets that continue from
 * earlier pieces, and older generations (cache.h). */
static void piece_key(const struct fs_file *f, const struct fs_span *sp, const struct fs_plan *vp,
                      bool old, uint64_t *k1, uint64_t *k2)
{
    *k1 = (uint64_t)sp->part << 32 | sp->page;
    if (old) {
        *k2 = KEY_OLD_PIECE(f->node.view, f->gen);
        return;
    }
    *k2 = KEY_PIECE(f->node.view) | sp->values_before << 16;
    if (vp->whole) *k2 |= KEY_PIECE_WHOLE;
    if (f->node.view == FS_V_TEXT && vp->ref.nested) *k2 |= KEY_PIECE_PROJECTION;
}

/* A whole nested column's text: page i of every leaf, reassembled. */
static int whole_piece(struct fs_session *s, const struct fs_span *sp, const struct fs_plan *vp,
                       struct fs_entry *e)
{
    struct ig_nested_reader nr;
    struct ig_error err = {0};
    struct ig_nested_page np = {.group = sp->group, .index = sp->page_index};
    int rc = ig_nested_open(&nr, &s->table, vp->ref.top, &err);
    if (!rc) {
        rc = ig_nested_load(&nr, &s->table, &np, &err);
        if (!rc) rc = ig_assemble_lines(&nr.tree, nr.vp, np.rows, np.deleted, &e->data, NULL, &err);
        ig_nested_close(&nr);
    }
    return rc ? fs_page_failed(s, sp->part, sp->page, err.msg, rc) : 0;
}

/* A sliding-window page's offsets, from its row metadata alone: no value
 * decoded (such a page can span its row group). -ENOTSUP for any other page. */
static int slide_offsets_piece(struct fs_session *s, const struct fs_span *sp,
                               const struct fs_plan *vp, struct fs_scratch *sc, struct fs_entry *e)
{
    const struct ig_part *p = &s->table.parts[sp->part];
    struct ig_column_ref ref = vp->ref;
    struct ig_pagerec rec;
    struct ig_error err = {0};
    const uint8_t *del;
    int rc = ig_reader_row_lengths(&sc->r, &(struct ig_page_at){p, &ref, sp->page, sp->group_first_row}, &rec, &sc->tmp, &del, &err);
    if (rc == -ENOTSUP) return rc;
    const uint64_t *lens = (const uint64_t *)sc->tmp.data;
    uint64_t running = sp->values_before;
    for (size_t r = 0; !rc && r < rec.row_count; r++) {
        if (bit(del, r)) continue;
        running += lens[r];
        uint8_t *o = ig_buf_extend(&e->data, 8);
        if (o)
            ig_st64(o, running);
        else
            rc = -ENOMEM;
    }
    return rc && rc != -ENOMEM ? fs_page_failed(s, sp->part, sp->page, err.msg, rc) : rc;
}

/* A decoded page's values as the view renders them; rows in `del` left out,
 * rows in `blank` (erased since an older generation) read as NULL. */
static int render_piece(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                        const struct fs_plan *vp, struct ig_values *v, const uint8_t *del,
                        const uint8_t *blank, struct fs_entry *e)
{
    const struct ig_column_ref *ref = &vp->ref;
    enum fs_view view = (enum fs_view)f->node.view;
    if (view == FS_V_TEXT && ref->nested) {
        struct ig_tree tree;
        struct ig_values *vpp = v;
        struct ig_error err = {0};
        int rc = ig_tree_from_part(&s->table.parts[0], ref->top, ref->col, &tree, &err);
        if (!rc) {
            rc = ig_assemble_lines(&tree, &vpp, v->rows, del, &e->data, NULL, &err);
            ig_tree_free(&tree);
        }
        return rc ? -EIO : 0;
    }
    if (view == FS_V_TEXT) return ig_render_text_lines(&e->data, v, del);
    if (view == FS_V_VALUES && ref->nested && !del && !blank && v->levels && v->rows &&
        v->row_val[0] == 0 && v->row_val[v->rows] == v->n) {
        /* every row's elements in order are the decoded lanes themselves: taken
         * over, not copied (a sliding-window page of hashed ids can decode to
         * 100+ MB; 8-byte elements only, else rendered as below) */
        struct ig_values flat = *v;
        flat.levels = false;
        flat.has_nulls = false;
        int rc = ig_render_npy(&e->data, &flat, NULL, true);
        if (!flat.lanes)
            v->lanes = NULL, v->lanes_cap = 0, v->cap = 0, v->n = 0; /* moved: not v's to free */
        return rc;
    }
    if (ref->nested || view == FS_V_F16)
        return nested_piece(vp, view, v, del, blank, sp->values_before, &e->data);
    return view == FS_V_VALID ? ig_render_fixed(&e->data, v, del, true) : ig_render_npy(&e->data, v, del, true);
}

/* The page decoded (the block cache's reader), then rendered; an older
 * generation's array (only those keep their shape: fs_plan_keeps_shape) with
 * the rows deleted since blanked, not left out. */
static int decoded_piece(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                         const struct fs_plan *vp, bool old, struct fs_scratch *sc,
                         struct fs_entry *e)
{
    const struct ig_part *p = &s->table.parts[sp->part];
    struct ig_column_ref ref = vp->ref;
    struct ig_pagerec rec;
    struct ig_error err = {0};
    const uint8_t *del, *blank = NULL;
    struct ig_values v;
    ig_values_init(&v, ref.rec.type);
    struct row_masks m = {IG_BUF_INIT, IG_BUF_INIT, false, false};
    int rc = ig_reader_load(&sc->r, &(struct ig_page_at){p, &ref, sp->page, sp->group_first_row}, &rec, &v, &del, &err);
    if (rc) {
        ig_values_free(&v);
        return fs_page_failed(s, sp->part, sp->page, err.msg, rc);
    }
    if (old) {
        rc = old_masks(s, f, sp, &rec, del, &m);
        del = m.any_skip ? m.skip.data : NULL;
        blank = m.any_blank ? m.blank.data : NULL;
        for (size_t i = 0; !rc && blank && !ref.nested && i < v.n; i++)
            if (bit(blank, i)) rc = ig_values_set_null(&v, i); /* an erased value reads as NULL */
    }
    if (!rc) rc = render_piece(s, f, sp, vp, &v, del, blank, e);
    ig_values_free(&v);
    ig_buf_free(&m.skip);
    ig_buf_free(&m.blank);
    return rc;
}

/* What a piece is made of, by the view and the page. */
static int fill_piece(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                      const struct fs_plan *vp, bool old, struct fs_entry *e)
{
    if (f->node.view == FS_V_ROWID) {
        const struct fs_generation *ver =
            old ? fs_generation_of(&s->gens, f->node.gen_bits) : &s->gens.current;
        return ver && ver->gen == f->gen ? rowid_piece(s, f, sp, ver, e) : -ESTALE;
    }
    if (vp->whole) return whole_piece(s, sp, vp, e);
    struct fs_scratch *sc = fs_scratch(s);
    if (!sc) return -ENOMEM;
    /* plain pages served from the part's mapping (a page with no deleted row
     * now had none in any earlier generation either): 1 when it cannot be */
    /* a file that fetches its pages ahead itself (ahead.c) says so of the
     * reads it makes (the scratch reader is the thread's: others read with
     * the store's readahead) */
    enum ig_ahead ahead = f->ahead ? IG_AHEAD_CALLER : IG_AHEAD_STORE;
    int rc =
        mapped_piece(s, &s->table.parts[sp->part], vp, (enum fs_view)f->node.view, sp, ahead, e);
    if (rc != 1) return rc;
    sc->r.ahead = ahead;
    rc = -ENOTSUP;
    if (f->node.view == FS_V_OFFSETS && !old && vp->ref.nested)
        rc = slide_offsets_piece(s, sp, vp, sc, e);
    if (rc == -ENOTSUP) rc = decoded_piece(s, f, sp, vp, old, sc, e);
    sc->r.ahead = IG_AHEAD_STORE;
    return rc;
}

int fs_piece_get(struct fs_session *s, const struct fs_file *f, const struct fs_span *sp,
                 struct fs_entry **out)
{
    struct fs_plan vp;
    if (!fs_plan_view(s, f->node.col, f->node.view, &vp)) return -EIO;
    bool old = f->gen != s->gens.current.gen;
    uint64_t k1, k2;
    piece_key(f, sp, &vp, old, &k1, &k2);
    struct fs_entry *e = fs_cache_get(&s->cache, k1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    e = fs_entry_new(k1, k2);
    if (!e) return -ENOMEM;
    int rc = fill_piece(s, f, sp, &vp, old, e);
    if (rc) {
        fs_entry_free(e);
        return rc;
    }
    if (e->transient) { /* the caller's alone: freed by its release */
        e->refs = 1;
        e->dead = 1;
        *out = e;
        return 0;
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}
