/* ingot_export_arrow (include/ingot.h): a row group through the Arrow C Data
 * Interface. A table imported from JSON Lines (every type the view shows,
 * NULLs at both levels of a list, a nullable struct, and a struct holding a
 * list that it does not show) is exported and
 * walked as a consumer would: formats, names, flags, lengths, NULL counts and
 * every value against the rows that made it; erased rows are gone; a child
 * moved out lives after its parent is released (under ASan: no leak, no use
 * after free); bad requests fail cleanly. */
#include "check.h"

#include <errno.h>
#include <math.h>
#include <unistd.h>

#include "ingot.h"
#include "format/ops/erase.h"
#include "format/ops/evolve.h"
#include "import/import.h"
#include "util/buf.h"
#include "util/error.h"

#define ROWS 3000
#define GROUP 1024

static char dir[64], table[96];

/* The value of each column in row r (NULL where `null_*` says). */
static bool null_i8(uint64_t r) { return r % 7 == 3; }
static bool null_s(uint64_t r) { return r % 11 == 5; }
static bool null_l(uint64_t r) { return r % 13 == 4; }
static int8_t v_i8(uint64_t r) { return (int8_t)((int)(r % 200) - 100); }
static float v_f(uint64_t r) { return (float)r / 8.0f - 3.0f; }
static bool v_b(uint64_t r) { return r % 3 == 0; }
static size_t list_len(uint64_t r) { return r % 5; }
static bool null_elem(uint64_t r, size_t k) { return (r + k) % 9 == 0; }
static bool null_selem(uint64_t r, size_t k) { return (r + k) % 4 == 1; }
static bool null_fr(uint64_t r) { return r % 8 == 3; }
static uint64_t fr_obj(uint64_t r, size_t k) { return 1 + (r + k) % 4; }

static int make_table(void)
{
    strcpy(dir, "/tmp/ingot-arrowc-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    char in[128], schema[128];
    snprintf(in, sizeof in, "%s/in.jsonl", dir);
    snprintf(schema, sizeof schema, "%s/schema.txt", dir);
    snprintf(table, sizeof table, "%s/t", dir);
    FILE *f = fopen(schema, "w");
    if (!f) return -1;
    fputs("id int64\ni8 int8?\nf float32\nb bool\ns string?\nv vector<float32, 3>\nl list<int32?>?\n"
          "ls list<string?>\nst struct<a:int64, n:string?>?\nnest struct<x:list<int64>>\nimg blob?\n"
          "fr list<blob>?\nll list<list<int32>>\nss struct<in:struct<z:int64>?>\nsv struct<v:vector<float32, 2>>\n"
          "mp list<struct<key:string, value:int64?>>?\nlv list<vector<float32, 2>?>\n"
          "lsl list<struct<x:list<int32>>>\nlss list<struct<s:struct<z:int32>>>\n"
          "lsq list<struct<s:struct<q:list<int32>>>>\nlse list<struct<k:int32, e:vector<float32, 2>>>\n"
          "llv list<list<vector<float32, 2>>>\nsbo struct<o:blob?>\nfrn list<blob?>\n"
          "slm struct<m:list<struct<k:int32>>>\nlbo list<struct<o:blob?>>\n"
          "lsll list<struct<x:list<list<int32>>>>\nlslv list<struct<v:list<vector<float32, 2>>>>\n"
          "lsls list<struct<in:list<struct<z:int32>>>>?\nlfb list<struct<f:list<blob>>>\n"
          "lsle list<struct<in:list<struct<e:vector<float32, 2>?>>>>\n",
          f);
    fclose(f);
    if (!(f = fopen(in, "w"))) return -1;
    for (uint64_t r = 0; r < ROWS; r++) {
        fprintf(f, "{\"id\": %llu, \"i8\": ", (unsigned long long)r * 3);
        if (null_i8(r)) fputs("null", f);
        else fprintf(f, "%d", v_i8(r));
        fprintf(f, ", \"f\": %.9g, \"b\": %s, \"s\": ", (double)v_f(r), v_b(r) ? "true" : "false");
        if (null_s(r)) fputs("null", f);
        else fprintf(f, "\"w%llu%s\"", (unsigned long long)r, r % 4 ? "" : "\\u00e9");
        fprintf(f, ", \"v\": [%llu, 0.5, -%llu], \"l\": ", (unsigned long long)r, (unsigned long long)r);
        if (null_l(r)) {
            fputs("null", f);
        } else {
            fputc('[', f);
            for (size_t k = 0; k < list_len(r); k++) {
                if (k) fputc(',', f);
                if (null_elem(r, k)) fputs("null", f);
                else fprintf(f, "%lld", (long long)r * 10 + (long long)k);
            }
            fputc(']', f);
        }
        fputs(", \"ls\": [", f);
        for (size_t k = 0; k < r % 3; k++)
            if (null_selem(r, k)) fprintf(f, "%snull", k ? "," : "");
            else fprintf(f, "%s\"e%llu.%zu\"", k ? "," : "", (unsigned long long)r, k);
        if (r % 6 == 1)
            fputs("], \"st\": null", f);
        else if (r % 6 == 2)
            fprintf(f, "], \"st\": {\"a\": %llu, \"n\": null}", (unsigned long long)r);
        else
            fprintf(f, "], \"st\": {\"a\": %llu, \"n\": \"n%llu\"}", (unsigned long long)r, (unsigned long long)r);
        fprintf(f, ", \"nest\": {\"x\": [%llu, %llu]}, \"sv\": {\"v\": [1, 2]}", (unsigned long long)r,
                (unsigned long long)r + 1);
        if (r % 4 == 3) /* ss: its inner struct NULL every fourth row, else z = r * 7 */
            fputs(", \"ss\": {\"in\": null}", f);
        else
            fprintf(f, ", \"ss\": {\"in\": {\"z\": %llu}}", (unsigned long long)r * 7);
        fputs(", \"ll\": [", f);
        for (size_t j = 0; j < r % 3; j++) { /* ll: r % 3 lists, list j holding j + 1 values r * 10 + k */
            fputs(j ? ",[" : "[", f);
            for (size_t k = 0; k <= j; k++) fprintf(f, "%s%llu", k ? "," : "", (unsigned long long)(r * 10 + k));
            fputc(']', f);
        }
        fputc(']', f);
        if (r % 10 == 9) { /* mp: NULL, or r % 3 entries {"key": "kK", "value": r + K or NULL} */
            fputs(", \"mp\": null", f);
        } else {
            fputs(", \"mp\": [", f);
            for (size_t k = 0; k < r % 3; k++) {
                fprintf(f, "%s{\"key\": \"k%zu\", \"value\": ", k ? "," : "", k);
                if ((r + k) % 4 == 1) fputs("null}", f);
                else fprintf(f, "%llu}", (unsigned long long)(r + k));
            }
            fputc(']', f);
        }
        if (r % 5 == 0) {
            fputs(", \"img\": null, \"sbo\": {\"o\": null}, \"frn\": [], \"lbo\": [], \"lfb\": [{\"f\": []}]", f);
        } else { /* an object of r % 7 + 1 bytes */
            char obj[128];
            snprintf(obj, sizeof obj, "%s/o%llu", dir, (unsigned long long)r);
            FILE *o = fopen(obj, "w");
            if (!o) return -1;
            for (uint64_t k = 0; k < r % 7 + 1; k++) fputc('x', o);
            fclose(o);
            /* frn: [null, this row's object] */
            fprintf(f, ", \"img\": \"%s\", \"sbo\": {\"o\": \"%s\"}, \"frn\": [null, \"%s\"]", obj, obj, obj);
            fprintf(f, ", \"lbo\": [{\"o\": \"%s\"}]", obj); /* lbo: one struct holding the object */
            fprintf(f, ", \"lfb\": [{\"f\": [\"%s\", \"%s\"]}]", obj, obj); /* lfb: the object twice */
        }
        fprintf(f, ", \"lsl\": [{\"x\": [%llu]}]", (unsigned long long)r);
        fprintf(f, ", \"lss\": [{\"s\": {\"z\": %llu}}]", (unsigned long long)r);
        /* lslv: one struct whose v is [[r, 1], [2, r]] */
        fprintf(f, ", \"lslv\": [{\"v\": [[%llu, 1], [2, %llu]]}]", (unsigned long long)r, (unsigned long long)r);
        /* lsll: one struct whose x is [[r], [], [r, r + 1]] */
        fprintf(f, ", \"lsll\": [{\"x\": [[%llu], [], [%llu, %llu]]}]", (unsigned long long)r, (unsigned long long)r,
                (unsigned long long)r + 1);
        fprintf(f, ", \"lsq\": [{\"s\": {\"q\": [%llu]}}]", (unsigned long long)r);
        /* lsle: one struct whose in holds [r, 2] and a NULL vector */
        fprintf(f, ", \"lsle\": [{\"in\": [{\"e\": [%llu, 2]}, {\"e\": null}]}]", (unsigned long long)r);
        if (r % 5) /* lsls: NULL on every fifth row */
            fprintf(f, ", \"lsls\": [{\"in\": [{\"z\": %llu}, {\"z\": 7}]}]", (unsigned long long)r);
        else
            fputs(", \"lsls\": null", f);
        if (r % 2) /* lse: one struct {k: r, e: [r, 1]} on odd rows, none on even ones */
            fprintf(f, ", \"lse\": [{\"k\": %llu, \"e\": [%llu, 1]}]", (unsigned long long)r, (unsigned long long)r);
        else
            fputs(", \"lse\": []", f);
        fprintf(f, ", \"slm\": {\"m\": [{\"k\": %llu}]}", (unsigned long long)r); /* slm: one struct k = r */
        /* llv: on odd rows one list of one vector [r, 7], on even rows none */
        fprintf(f, r % 2 ? ", \"llv\": [[[%llu, 7]]]" : ", \"llv\": []", (unsigned long long)r);
        fputs(", \"lv\": [", f); /* lv: r % 3 vectors [r, k], NULL where (r + k) % 4 == 1 */
        for (size_t k = 0; k < r % 3; k++)
            if ((r + k) % 4 == 1) fprintf(f, "%snull", k ? "," : "");
            else fprintf(f, "%s[%llu, %zu]", k ? "," : "", (unsigned long long)r, k);
        fputc(']', f);
        if (null_fr(r)) { /* fr: NULL, or r % 3 of the objects o1..o4 (written by rows 1..4) */
            fputs(", \"fr\": null}\n", f);
        } else {
            fputs(", \"fr\": [", f);
            for (size_t k = 0; k < r % 3; k++)
                fprintf(f, "%s\"%s/o%llu\"", k ? "," : "", dir, (unsigned long long)fr_obj(r, k));
            fputs("]}\n", f);
        }
    }
    fclose(f);
    struct ig_import_opts o = {.schema_path = schema};
    ig_writer_opts_default(&o.w);
    o.w.rows_per_group = GROUP;
    o.w.page_size = 4096; /* several pages a column */
    struct ig_import_result res;
    struct ig_error err = {0};
    int rc = ig_import(in, table, &o, &res, &err);
    if (rc) fprintf(stderr, "  import: %s\n", err.msg);
    return rc;
}

static bool bit(const void *bits, int64_t i)
{
    return bits == NULL || (((const uint8_t *)bits)[i / 8] >> (i % 8)) & 1;
}

static const struct ArrowArray *child(const struct ArrowArray *a, const struct ArrowSchema *s, const char *name,
                                      const struct ArrowSchema **cs)
{
    for (int64_t i = 0; i < s->n_children; i++)
        if (!strcmp(s->children[i]->name, name)) {
            *cs = s->children[i];
            return a->children[i];
        }
    return NULL;
}

/* The schema's shape as text: its format, then its children in braces, each
 * "name:shape" ("?" before a nullable child's name), e.g. "+l{?item:+w:2{item:f}}". */
static void shape_of(const struct ArrowSchema *s, char *out, size_t cap)
{
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "%s", s->format);
    for (int64_t i = 0; i < s->n_children; i++) {
        n = strlen(out);
        snprintf(out + n, cap - n, "%s%s%s:", i ? "," : "{", s->children[i]->flags & ARROW_FLAG_NULLABLE ? "?" : "",
                 s->children[i]->name);
        shape_of(s->children[i], out, cap);
    }
    n = strlen(out);
    if (s->n_children) snprintf(out + n, cap - n, "}");
}

/* Do the arrays' tree and the schema's agree (so a test may index children)? */
static bool same_tree(const struct ArrowArray *a, const struct ArrowSchema *s)
{
    if (a->n_children != s->n_children) return false;
    for (int64_t i = 0; i < a->n_children; i++)
        if (!same_tree(a->children[i], s->children[i])) return false;
    return true;
}

/* var: column `name` of the batch (a, s; its schema in cs), its tree as its
 * schema's and its shape (shape_of) `want`. */
#define SHAPED(var, name, want)                                                                    \
    const struct ArrowArray *var = child(a, s, name, &cs);                                         \
    REQUIRE(var && same_tree(var, cs));                                                            \
    do {                                                                                           \
        char got_[256] = "";                                                                       \
        shape_of(cs, got_, sizeof got_);                                                           \
        CHECK_EQ_STR(got_, want);                                                                  \
    } while (0)

/* Every value of the batch of group g (rows first..first+GROUP, `gone` erased) against the rows. */
static void check_batch(const struct ArrowArray *a, const struct ArrowSchema *s, uint64_t first,
                        const uint64_t *gone, size_t ngone)
{
    CHECK_EQ_STR(s->format, "+s");
    const struct ArrowSchema *cs;
    const struct ArrowArray *id = child(a, s, "id", &cs), *i8 = child(a, s, "i8", &cs);
    REQUIRE(id && i8);
    CHECK_EQ_STR(cs->format, "c");
    CHECK(cs->flags & ARROW_FLAG_NULLABLE);
    const struct ArrowArray *fa = child(a, s, "f", &cs);
    REQUIRE(fa);
    CHECK_EQ_STR(cs->format, "f");
    CHECK(!(cs->flags & ARROW_FLAG_NULLABLE));
    const struct ArrowArray *ba = child(a, s, "b", &cs), *sa = child(a, s, "s", &cs);
    REQUIRE(ba && sa);
    CHECK_EQ_STR(cs->format, "u");
    const struct ArrowArray *va = child(a, s, "v", &cs);
    REQUIRE(va);
    CHECK_EQ_STR(cs->format, "+w:3");
    CHECK_EQ_STR(cs->children[0]->format, "f");
    const struct ArrowArray *la = child(a, s, "l", &cs);
    REQUIRE(la);
    CHECK_EQ_STR(cs->format, "+l");
    CHECK_EQ_STR(cs->children[0]->format, "i");
    CHECK(cs->children[0]->flags & ARROW_FLAG_NULLABLE);
    const struct ArrowArray *lsa = child(a, s, "ls", &cs);
    REQUIRE(lsa);
    CHECK_EQ_STR(cs->format, "+l");
    CHECK_EQ_STR(cs->children[0]->format, "u");
    REQUIRE(lsa->n_buffers == 2 && lsa->children[0]->n_buffers == 3);
    const struct ArrowArray *st = child(a, s, "st", &cs);
    REQUIRE(st);
    CHECK_EQ_STR(cs->format, "+s");
    CHECK(cs->flags & ARROW_FLAG_NULLABLE);
    REQUIRE(st->n_children == 2 && cs->n_children == 2);
    CHECK_EQ_STR(cs->children[0]->name, "a");
    CHECK_EQ_STR(cs->children[0]->format, "l");
    CHECK_EQ_STR(cs->children[1]->name, "n");
    CHECK_EQ_STR(cs->children[1]->format, "u");
    /* a struct holding a list: Struct<x: List<Int64>> */
    const struct ArrowArray *nest = child(a, s, "nest", &cs);
    REQUIRE(nest);
    CHECK_EQ_STR(cs->format, "+s");
    REQUIRE(nest->n_children == 1 && cs->n_children == 1);
    CHECK_EQ_STR(cs->children[0]->name, "x");
    CHECK_EQ_STR(cs->children[0]->format, "+l");
    CHECK_EQ_STR(cs->children[0]->children[0]->format, "l");
    REQUIRE(nest->children[0]->n_children == 1);
    const int32_t *nxo = nest->children[0]->buffers[1];
    const int64_t *nxv = nest->children[0]->children[0]->buffers[1];
    /* a list of lists: List<List<Int32>> */
    const struct ArrowArray *ll = child(a, s, "ll", &cs);
    REQUIRE(ll);
    CHECK_EQ_STR(cs->format, "+l");
    REQUIRE(cs->n_children == 1 && ll->n_children == 1 && ll->children[0]->n_children == 1);
    CHECK_EQ_STR(cs->children[0]->format, "+l");
    CHECK_EQ_STR(cs->children[0]->children[0]->format, "i");
    const int32_t *llo = ll->buffers[1], *lli = ll->children[0]->buffers[1];
    const int32_t *llv = ll->children[0]->children[0]->buffers[1];
    /* a struct in a struct: Struct<in: Struct<z: Int64>> */
    const struct ArrowArray *ss = child(a, s, "ss", &cs);
    REQUIRE(ss);
    CHECK_EQ_STR(cs->format, "+s");
    REQUIRE(cs->n_children == 1 && ss->n_children == 1 && ss->children[0]->n_children == 1);
    CHECK_EQ_STR(cs->children[0]->name, "in");
    CHECK_EQ_STR(cs->children[0]->format, "+s");
    CHECK(cs->children[0]->flags & ARROW_FLAG_NULLABLE);
    CHECK_EQ_STR(cs->children[0]->children[0]->name, "z");
    const struct ArrowArray *ssin = ss->children[0];
    const int64_t *ssz = ssin->children[0]->buffers[1];
    /* a struct holding a vector: Struct<v: FixedSizeList<Float32>[2]> */
    SHAPED(sv, "sv", "+s{v:+w:2{item:f}}");
    CHECK_EQ_INT(sv->children[0]->children[0]->length, 2 * sv->length);
    const float *svv = sv->children[0]->children[0]->buffers[1];
    /* a map: List<Struct<key: Utf8, value: Int64>> */
    const struct ArrowArray *mp = child(a, s, "mp", &cs);
    REQUIRE(mp);
    CHECK_EQ_STR(cs->format, "+l");
    REQUIRE(cs->n_children == 1 && mp->n_children == 1 && mp->children[0]->n_children == 2);
    CHECK_EQ_STR(cs->children[0]->format, "+s");
    CHECK_EQ_STR(cs->children[0]->children[0]->name, "key");
    CHECK_EQ_STR(cs->children[0]->children[0]->format, "u");
    CHECK_EQ_STR(cs->children[0]->children[1]->name, "value");
    CHECK_EQ_STR(cs->children[0]->children[1]->format, "l");
    const int32_t *mpo = mp->buffers[1], *mko = mp->children[0]->children[0]->buffers[1];
    const char *mkb = mp->children[0]->children[0]->buffers[2];
    const struct ArrowArray *mva = mp->children[0]->children[1];
    const int64_t *mvv = mva->buffers[1];
    int64_t nulls_mp = 0;
    const struct ArrowArray *img = child(a, s, "img", &cs);
    REQUIRE(img);
    CHECK_EQ_STR(cs->format, "+s");
    REQUIRE(img->n_children == 2 && cs->n_children == 2);
    CHECK_EQ_STR(cs->children[0]->name, "path");
    CHECK_EQ_STR(cs->children[0]->format, "u");
    CHECK_EQ_STR(cs->children[1]->name, "size");
    CHECK_EQ_STR(cs->children[1]->format, "l");
    /* a list of objects: List<Struct<path, size>> */
    const struct ArrowArray *fr = child(a, s, "fr", &cs);
    REQUIRE(fr);
    CHECK_EQ_STR(cs->format, "+l");
    CHECK(cs->flags & ARROW_FLAG_NULLABLE);
    REQUIRE(fr->n_children == 1 && cs->n_children == 1 && fr->children[0]->n_children == 2);
    CHECK_EQ_STR(cs->children[0]->format, "+s");
    CHECK_EQ_STR(cs->children[0]->name, "item");
    CHECK_EQ_STR(cs->children[0]->children[0]->name, "path");
    CHECK_EQ_STR(cs->children[0]->children[0]->format, "u");
    CHECK_EQ_STR(cs->children[0]->children[1]->name, "size");
    CHECK_EQ_STR(cs->children[0]->children[1]->format, "l");
    const int32_t *fro = fr->buffers[1], *fpo = fr->children[0]->children[0]->buffers[1];
    const char *fpb = fr->children[0]->children[0]->buffers[2];
    const int64_t *fsz = fr->children[0]->children[1]->buffers[1];
    int64_t nulls_fr = 0;
    const int32_t *ipo = img->children[0]->buffers[1];
    const char *ipb = img->children[0]->buffers[2];
    const int64_t *isz = img->children[1]->buffers[1];
    const int64_t *sta = st->children[0]->buffers[1];
    const int32_t *sno = st->children[1]->buffers[1];
    const char *snb = st->children[1]->buffers[2];
    int64_t nulls_st = 0;
    /* a list of vectors: List<FixedSizeList<Float32>[2]>, NULL vectors kept */
    SHAPED(lv, "lv", "+l{?item:+w:2{item:f}}");
    REQUIRE(lv->children[0]->n_buffers == 1 && lv->children[0]->children[0]->n_buffers == 2);
    CHECK_EQ_INT(lv->children[0]->children[0]->length, 2 * lv->children[0]->length);
    const int32_t *lvo = lv->buffers[1];
    /* a list of structs holding a vector: List<Struct<k: Int32, e: FixedSizeList<Float32>[2]>> */
    SHAPED(lse, "lse", "+l{item:+s{k:i,e:+w:2{item:f}}}");
    const int32_t *lseo = lse->buffers[1], *lsek = lse->children[0]->children[0]->buffers[1];
    const float *lsee = lse->children[0]->children[1]->children[0]->buffers[1];
    /* a list of lists of vectors: List<List<FixedSizeList<Float32>[2]>> */
    SHAPED(llva, "llv", "+l{item:+l{item:+w:2{item:f}}}");
    const int32_t *llvo = llva->buffers[1], *llvi = llva->children[0]->buffers[1];
    const float *llvv = llva->children[0]->children[0]->children[0]->buffers[1];
    /* a struct holding a blob: Struct<o: Struct<path: Utf8, size: Int64>> */
    SHAPED(sbo, "sbo", "+s{?o:+s{?path:u,?size:l}}");
    const struct ArrowArray *sbob = sbo->children[0];
    const int32_t *sbpo = sbob->children[0]->buffers[1];
    const char *sbpb = sbob->children[0]->buffers[2];
    const int64_t *sbsz = sbob->children[1]->buffers[1];
    /* a struct holding a list of structs: Struct<m: List<Struct<k: Int32>>> */
    SHAPED(slm, "slm", "+s{m:+l{item:+s{k:i}}}");
    const int32_t *slmo = slm->children[0]->buffers[1], *slmk = slm->children[0]->children[0]->children[0]->buffers[1];
    /* a list of structs holding a list: List<Struct<x: List<Int32>>> */
    SHAPED(lsl, "lsl", "+l{item:+s{x:+l{item:i}}}");
    const struct ArrowArray *lslx = lsl->children[0]->children[0];
    const int32_t *lslo = lsl->buffers[1], *lslxo = lslx->buffers[1], *lslv = lslx->children[0]->buffers[1];
    /* a list of structs holding a struct: List<Struct<s: Struct<z: Int32>>> */
    SHAPED(lss, "lss", "+l{item:+s{s:+s{z:i}}}");
    const int32_t *lsso = lss->buffers[1], *lssz = lss->children[0]->children[0]->children[0]->buffers[1];
    /* a list of structs holding a struct holding a list: List<Struct<s: Struct<q: List<Int32>>>> */
    SHAPED(lsq, "lsq", "+l{item:+s{s:+s{q:+l{item:i}}}}");
    const int32_t *lsqo = lsq->buffers[1], *lsqqo = lsq->children[0]->children[0]->children[0]->buffers[1],
                  *lsqv = lsq->children[0]->children[0]->children[0]->children[0]->buffers[1];
    /* a list of structs holding a list of structs: the same types, nested (arrow_tree.c) */
    SHAPED(lsls, "lsls", "+l{item:+s{in:+l{item:+s{z:i}}}}");
    CHECK(cs->flags & ARROW_FLAG_NULLABLE);
    const struct ArrowArray *lslsin = lsls->children[0]->children[0];
    const int32_t *lslso = lsls->buffers[1], *lslsino = lslsin->buffers[1],
                  *lslsz = lslsin->children[0]->children[0]->buffers[1];
    /* ... holding vectors: FixedSizeList<float>[2] in the inner structs */
    SHAPED(lsle, "lsle", "+l{item:+s{in:+l{item:+s{?e:+w:2{item:f}}}}}");
    const struct ArrowArray *lslein = lsle->children[0]->children[0], *lslee = lslein->children[0]->children[0];
    const int32_t *lsleo = lsle->buffers[1], *lsleino = lslein->buffers[1];
    const float *lslef = lslee->children[0]->buffers[1];
    /* a list of structs holding a list of lists: List<Struct<x: List<List<Int32>>>> */
    SHAPED(lsll, "lsll", "+l{item:+s{x:+l{item:+l{item:i}}}}");
    /* a list of structs holding a list of vectors: List<Struct<v: List<FixedSizeList<float>[2]>>> */
    SHAPED(lsvv, "lslv", "+l{item:+s{v:+l{item:+w:2{item:f}}}}");
    const int32_t *lslvo = lsvv->buffers[1], *lslvvo = lsvv->children[0]->children[0]->buffers[1];
    const float *lslvf = lsvv->children[0]->children[0]->children[0]->children[0]->buffers[1];
    const struct ArrowArray *lsllx = lsll->children[0]->children[0], *lsllxx = lsllx->children[0];
    const int32_t *lsllo = lsll->buffers[1], *lsllxo = lsllx->buffers[1], *lsllxxo = lsllxx->buffers[1],
                  *lsllv = lsllxx->children[0]->buffers[1];
    /* a list of structs holding a blob: List<Struct<o: Struct<path, size>>> */
    SHAPED(lbo, "lbo", "+l{item:+s{?o:+s{?path:u,?size:l}}}");
    /* a list of structs holding a list of objects: List<Struct<f: List<Struct<path, size>>>> */
    SHAPED(lfb, "lfb", "+l{item:+s{f:+l{item:+s{?path:u,?size:l}}}}");
    const struct ArrowArray *lfbf = lfb->children[0]->children[0], *lfbo = lfbf->children[0];
    const int32_t *lfbl = lfb->buffers[1], *lfbfo = lfbf->buffers[1], *lfbp = lfbo->children[0]->buffers[1];
    const char *lfbb = lfbo->children[0]->buffers[2];
    const int64_t *lfbsz = lfbo->children[1]->buffers[1];
    const struct ArrowArray *lbob = lbo->children[0]->children[0];
    const int32_t *lboo = lbo->buffers[1], *lbop = lbob->children[0]->buffers[1];
    const char *lbob_bytes = lbob->children[0]->buffers[2];
    const int64_t *lbosz = lbob->children[1]->buffers[1];
    /* a list of objects with NULL ones: List<Struct<path, size>>, the item nullable */
    SHAPED(frn, "frn", "+l{?item:+s{?path:u,?size:l}}");
    const int32_t *frno = frn->buffers[1], *frnp = frn->children[0]->children[0]->buffers[1];
    const char *frnb = frn->children[0]->children[0]->buffers[2];
    const float *lvv = lv->children[0]->children[0]->buffers[1];
    const int32_t *lso = lsa->buffers[1], *eo = lsa->children[0]->buffers[1];
    const char *eb = lsa->children[0]->buffers[2];

    int64_t i = 0, nulls_i8 = 0, nulls_s = 0, nulls_l = 0, nulls_lsls = 0;
    const int64_t *ids = id->buffers[1];
    const int8_t *i8s = i8->buffers[1];
    const float *fs = fa->buffers[1], *vs = va->children[0]->buffers[1];
    const int32_t *so = sa->buffers[1], *lo = la->buffers[1], *ls = la->children[0]->buffers[1];
    const char *sb = sa->buffers[2];
    for (uint64_t r = first; r < first + GROUP && r < ROWS; r++) {
        bool erased = false;
        for (size_t k = 0; k < ngone; k++) erased |= gone[k] == r;
        if (erased) continue;
        REQUIRE(i < a->length);
        CHECK_EQ_INT(ids[i], (int64_t)r * 3);
        CHECK_EQ_INT(bit(i8->buffers[0], i), !null_i8(r));
        if (!null_i8(r)) CHECK_EQ_INT(i8s[i], v_i8(r));
        nulls_i8 += null_i8(r);
        CHECK(fs[i] == v_f(r));
        CHECK_EQ_INT(bit(ba->buffers[1], i), v_b(r));
        CHECK_EQ_INT(bit(sa->buffers[0], i), !null_s(r));
        nulls_s += null_s(r);
        if (!null_s(r)) {
            char want[32];
            int n = snprintf(want, sizeof want, "w%llu%s", (unsigned long long)r, r % 4 ? "" : "\xc3\xa9");
            CHECK_EQ_INT(so[i + 1] - so[i], n);
            CHECK(!memcmp(sb + so[i], want, (size_t)n));
        } else {
            CHECK_EQ_INT(so[i + 1], so[i]);
        }
        CHECK(vs[3 * i] == (float)r && vs[3 * i + 1] == 0.5f && vs[3 * i + 2] == -(float)r);
        CHECK_EQ_INT(bit(la->buffers[0], i), !null_l(r));
        nulls_l += null_l(r);
        size_t want_len = null_l(r) ? 0 : list_len(r);
        CHECK_EQ_INT(lo[i + 1] - lo[i], (int64_t)want_len);
        for (size_t k = 0; k < want_len; k++) {
            int64_t e = lo[i] + (int64_t)k;
            CHECK_EQ_INT(bit(la->children[0]->buffers[0], e), !null_elem(r, k));
            if (!null_elem(r, k)) CHECK_EQ_INT(ls[e], (int64_t)r * 10 + (int64_t)k);
        }
        CHECK(svv[2 * i] == 1.0f && svv[2 * i + 1] == 2.0f);
        CHECK_EQ_INT(lseo[i + 1] - lseo[i], (int64_t)(r % 2));
        CHECK_EQ_INT(llvo[i + 1] - llvo[i], (int64_t)(r % 2));
        if (r % 2) {
            int32_t l = llvo[i];
            CHECK_EQ_INT(llvi[l + 1] - llvi[l], 1);
            CHECK(llvv[2 * llvi[l]] == (float)r && llvv[2 * llvi[l] + 1] == 7.0f);
        }
        if (r % 2)
            CHECK(lsek[lseo[i]] == (int32_t)r && lsee[2 * lseo[i]] == (float)r && lsee[2 * lseo[i] + 1] == 1.0f);
        CHECK_EQ_INT(lvo[i + 1] - lvo[i], (int64_t)(r % 3));
        for (size_t k = 0; k < r % 3; k++) {
            int64_t e = lvo[i] + (int64_t)k;
            CHECK_EQ_INT(bit(lv->children[0]->buffers[0], e), (r + k) % 4 != 1);
            if ((r + k) % 4 != 1) CHECK(lvv[2 * e] == (float)r && lvv[2 * e + 1] == (float)k);
            else CHECK(lvv[2 * e] == 0 && lvv[2 * e + 1] == 0);
        }
        CHECK(slmo[i + 1] - slmo[i] == 1 && slmk[slmo[i]] == (int32_t)r);
        CHECK_EQ_INT(bit(lsls->buffers[0], i), r % 5 != 0);
        nulls_lsls += r % 5 == 0;
        { /* lsle: in = [[r, 2], NULL] */
            int32_t x = lsleo[i], e0 = lsleino[x];
            CHECK(lsleo[i + 1] - x == 1 && lsleino[x + 1] - e0 == 2);
            CHECK(bit(lslee->buffers[0], e0) && !bit(lslee->buffers[0], e0 + 1));
            CHECK(lslef[2 * e0] == (float)r && lslef[2 * e0 + 1] == 2 && lslef[2 * e0 + 2] == 0 && lslef[2 * e0 + 3] == 0);
        }
        if (r % 5) { /* one struct, its in: [{z: r}, {z: 7}] */
            int32_t x = lslso[i];
            CHECK_EQ_INT(lslso[i + 1] - x, 1);
            CHECK_EQ_INT(lslsino[x + 1] - lslsino[x], 2);
            CHECK(lslsz[lslsino[x]] == (int32_t)r && lslsz[lslsino[x] + 1] == 7);
        } else {
            CHECK_EQ_INT(lslso[i + 1], lslso[i]);
        }
        CHECK_EQ_INT(lslo[i + 1] - lslo[i], 1); /* one struct, its x = [r] */
        CHECK(lsso[i + 1] - lsso[i] == 1 && lssz[lsso[i]] == (int32_t)r);
        CHECK(lsqo[i + 1] - lsqo[i] == 1 && lsqqo[lsqo[i] + 1] - lsqqo[lsqo[i]] == 1 &&
              lsqv[lsqqo[lsqo[i]]] == (int32_t)r); /* lsq: one struct, its s.q = [r] */
        { /* lslv: one struct, v two vectors: [r, 1], [2, r] */
            int64_t x = lslvo[i], v0 = lslvvo[x];
            CHECK(lslvo[i + 1] - x == 1 && lslvvo[x + 1] - v0 == 2);
            CHECK(lslvf[2 * v0] == (float)r && lslvf[2 * v0 + 1] == 1 && lslvf[2 * v0 + 2] == 2 &&
                  lslvf[2 * v0 + 3] == (float)r);
        }
        { /* lsll: one struct, x three lists: [r], [], [r, r + 1] */
            int64_t x = lsllo[i], l0 = lsllxo[x];
            CHECK(lsllo[i + 1] - x == 1 && lsllxo[x + 1] - l0 == 3);
            CHECK(lsllxxo[l0 + 1] - lsllxxo[l0] == 1 && lsllxxo[l0 + 2] - lsllxxo[l0 + 1] == 0 &&
                  lsllxxo[l0 + 3] - lsllxxo[l0 + 2] == 2);
            CHECK(lsllv[lsllxxo[l0]] == (int32_t)r && lsllv[lsllxxo[l0 + 2]] == (int32_t)r &&
                  lsllv[lsllxxo[l0 + 2] + 1] == (int32_t)r + 1);
        }
        CHECK(lslxo[lslo[i] + 1] - lslxo[lslo[i]] == 1 && lslv[lslxo[lslo[i]]] == (int32_t)r);
        CHECK_EQ_INT(lboo[i + 1] - lboo[i], r % 5 ? 1 : 0);
        if (r % 5) { /* the element's object, named ROW/0 */
            int64_t e = lboo[i];
            char want[48];
            int n = snprintf(want, sizeof want, "blobs/lbo.o/%llu/0", (unsigned long long)r);
            CHECK(lbop[e + 1] - lbop[e] >= n && !memcmp(lbob_bytes + lbop[e], want, (size_t)n));
            CHECK_EQ_INT(lbosz[e], (int64_t)(r % 7 + 1));
        }
        { /* lfb: one struct, f the row's object twice (K = 0, 1), none on rows without one */
            int64_t x = lfbl[i], e = lfbfo[x];
            CHECK(lfbl[i + 1] - x == 1 && lfbfo[x + 1] - e == (r % 5 ? 2 : 0));
            for (int64_t k = 0; r % 5 && k < 2; k++) {
                char want[48];
                int n = snprintf(want, sizeof want, "blobs/lfb.f/%llu/%lld", (unsigned long long)r, (long long)k);
                CHECK(lfbp[e + k + 1] - lfbp[e + k] >= n && !memcmp(lfbb + lfbp[e + k], want, (size_t)n));
                CHECK_EQ_INT(lfbsz[e + k], (int64_t)(r % 7 + 1));
            }
        }
        CHECK_EQ_INT(frno[i + 1] - frno[i], r % 5 ? 2 : 0);
        if (r % 5) { /* element 0 NULL, element 1 the row's object, named ROW/0: K counts objects */
            int64_t e = frno[i];
            CHECK(!bit(frn->children[0]->buffers[0], e) && bit(frn->children[0]->buffers[0], e + 1));
            char want[48];
            int n = snprintf(want, sizeof want, "blobs/frn/%llu/0", (unsigned long long)r);
            CHECK_EQ_INT(frnp[e + 1], frnp[e]);
            CHECK(frnp[e + 2] - frnp[e + 1] >= n && !memcmp(frnb + frnp[e + 1], want, (size_t)n));
        }
        CHECK_EQ_INT(bit(sbob->buffers[0], i), r % 5 != 0);
        if (r % 5) { /* a member's object is named ROW/0, as rows/ID shows it */
            char want[48];
            int n = snprintf(want, sizeof want, "blobs/sbo.o/%llu/0", (unsigned long long)r);
            CHECK(sbpo[i + 1] - sbpo[i] >= n && !memcmp(sbpb + sbpo[i], want, (size_t)n));
            CHECK_EQ_INT(sbsz[i], (int64_t)(r % 7 + 1));
        }
        CHECK_EQ_INT(bit(img->buffers[0], i), r % 5 != 0);
        if (r % 5) {
            char want[40];
            int n = snprintf(want, sizeof want, "blobs/img/%llu", (unsigned long long)r);
            CHECK(ipo[i + 1] - ipo[i] >= n && !memcmp(ipb + ipo[i], want, (size_t)n));
            CHECK_EQ_INT(isz[i], (int64_t)(r % 7 + 1));
        }
        CHECK_EQ_INT(bit(fr->buffers[0], i), !null_fr(r));
        nulls_fr += null_fr(r);
        size_t nobj = null_fr(r) ? 0 : r % 3;
        CHECK_EQ_INT(fro[i + 1] - fro[i], (int64_t)nobj);
        for (size_t k = 0; k < nobj; k++) {
            int64_t e = fro[i] + (int64_t)k;
            char want[48];
            int n = snprintf(want, sizeof want, "blobs/fr/%llu/%zu", (unsigned long long)r, k);
            CHECK_EQ_INT(fpo[e + 1] - fpo[e], n);
            CHECK(!memcmp(fpb + fpo[e], want, (size_t)n));
            CHECK_EQ_INT(fsz[e], (int64_t)(fr_obj(r, k) % 7 + 1));
        }
        CHECK_EQ_INT(bit(mp->buffers[0], i), r % 10 != 9);
        nulls_mp += r % 10 == 9;
        size_t nmp = r % 10 == 9 ? 0 : r % 3;
        CHECK_EQ_INT(mpo[i + 1] - mpo[i], (int64_t)nmp);
        for (size_t k = 0; k < nmp; k++) {
            int32_t e = mpo[i] + (int32_t)k;
            char want[8];
            int n = snprintf(want, sizeof want, "k%zu", k);
            CHECK(mko[e + 1] - mko[e] == n && !memcmp(mkb + mko[e], want, (size_t)n));
            CHECK_EQ_INT(bit(mva->buffers[0], e), (r + k) % 4 != 1);
            if ((r + k) % 4 != 1) CHECK_EQ_INT(mvv[e], (int64_t)(r + k));
        }
        CHECK_EQ_INT(bit(ssin->buffers[0], i), r % 4 != 3);
        CHECK_EQ_INT(bit(ssin->children[0]->buffers[0], i), r % 4 != 3);
        if (r % 4 != 3) CHECK_EQ_INT(ssz[i], (int64_t)r * 7);
        CHECK_EQ_INT(llo[i + 1] - llo[i], (int64_t)(r % 3));
        for (size_t j = 0; j < r % 3; j++) {
            int32_t in = llo[i] + (int32_t)j;
            CHECK_EQ_INT(lli[in + 1] - lli[in], (int64_t)j + 1);
            for (size_t k = 0; k <= j; k++) CHECK_EQ_INT(llv[lli[in] + (int32_t)k], (int64_t)(r * 10 + k));
        }
        CHECK_EQ_INT(nxo[i + 1] - nxo[i], 2);
        CHECK(nxv[nxo[i]] == (int64_t)r && nxv[nxo[i] + 1] == (int64_t)r + 1);
        bool st_null = r % 6 == 1, n_null = st_null || r % 6 == 2;
        nulls_st += st_null;
        CHECK_EQ_INT(bit(st->buffers[0], i), !st_null);
        CHECK_EQ_INT(bit(st->children[0]->buffers[0], i), !st_null);
        if (!st_null) CHECK_EQ_INT(sta[i], (int64_t)r);
        CHECK_EQ_INT(bit(st->children[1]->buffers[0], i), !n_null);
        if (!n_null) {
            char want[32];
            int n = snprintf(want, sizeof want, "n%llu", (unsigned long long)r);
            CHECK_EQ_INT(sno[i + 1] - sno[i], n);
            CHECK(!memcmp(snb + sno[i], want, (size_t)n));
        } else {
            CHECK_EQ_INT(sno[i + 1], sno[i]);
        }
        CHECK_EQ_INT(lso[i + 1] - lso[i], (int64_t)(r % 3));
        for (size_t k = 0; k < r % 3; k++) {
            int64_t e = lso[i] + (int64_t)k;
            CHECK_EQ_INT(bit(lsa->children[0]->buffers[0], e), !null_selem(r, k));
            char want[48];
            int n = null_selem(r, k) ? 0 : snprintf(want, sizeof want, "e%llu.%zu", (unsigned long long)r, k);
            CHECK_EQ_INT(eo[e + 1] - eo[e], n);
            if (n) CHECK(!memcmp(eb + eo[e], want, (size_t)n));
        }
        i++;
    }
    CHECK_EQ_INT(i, a->length);
    CHECK_EQ_INT(id->length, a->length);
    CHECK_EQ_INT(i8->null_count, nulls_i8);
    CHECK_EQ_INT(lsls->null_count, nulls_lsls);
    CHECK_EQ_INT(sa->null_count, nulls_s);
    CHECK_EQ_INT(la->null_count, nulls_l);
    CHECK_EQ_INT(st->null_count, nulls_st);
    CHECK_EQ_INT(fr->null_count, nulls_fr);
    CHECK_EQ_INT(mp->null_count, nulls_mp);
    CHECK_EQ_INT(mp->children[0]->length, mpo[a->length]);
    CHECK_EQ_INT(fr->children[0]->length, fro[a->length]);
    CHECK_EQ_INT(st->length, a->length);
    CHECK_EQ_INT(va->children[0]->length, 3 * a->length);
    CHECK_EQ_INT(la->children[0]->length, lo[a->length]);
    for (int64_t k = 0; k < a->n_children; k++) CHECK(((uintptr_t)a->children[k]->buffers[1] & 7) == 0);
}

static void test_export_every_group(void)
{
    REQUIRE(make_table() == 0);
    ingot_table *t;
    char eb[256];
    REQUIRE(ingot_open(table, &t, eb, sizeof eb) == 0);
    for (uint32_t g = 0; g < ingot_groups(t); g++) {
        struct ArrowArray a;
        struct ArrowSchema s;
        REQUIRE(ingot_export_arrow(t, g, NULL, 0, &a, &s, eb, sizeof eb) == 0);
        CHECK_EQ_INT(a.length, (int64_t)ingot_group_live_rows(t, g));
        check_batch(&a, &s, (uint64_t)g * GROUP, NULL, 0);
        a.release(&a);
        s.release(&s);
        CHECK(a.release == NULL && s.release == NULL);
    }
    ingot_close(t);
}

static void test_export_after_erase(void)
{
    uint64_t gone[] = {0, 5, 700, 1023, 1024, 2999};
    struct ig_erase_request req = {gone, 6, NULL, 0, "test"};
    struct ig_erase_report rep;
    struct ig_error err = {0};
    int erc = ig_erase(table, &req, &rep, &err);
    if (erc) fprintf(stderr, "  erase: %s\n", err.msg);
    REQUIRE(erc == 0);
    free(rep.ids);
    ingot_table *t;
    char eb[256];
    REQUIRE(ingot_open(table, &t, eb, sizeof eb) == 0);
    for (uint32_t g = 0; g < ingot_groups(t); g++) {
        struct ArrowArray a;
        struct ArrowSchema s;
        REQUIRE(ingot_export_arrow(t, g, NULL, 0, &a, &s, eb, sizeof eb) == 0);
        check_batch(&a, &s, (uint64_t)g * GROUP, gone, 6);
        s.release(&s);
        a.release(&a); /* either order */
    }
    ingot_close(t);
}

static void test_export_some_columns_and_move(void)
{
    ingot_table *t;
    char eb[256];
    REQUIRE(ingot_open(table, &t, eb, sizeof eb) == 0);
    uint32_t s_col, id_col, v_col;
    REQUIRE(ingot_column_find(t, "s", &s_col) == 0 && ingot_column_find(t, "id", &id_col) == 0 &&
            ingot_column_find(t, "v", &v_col) == 0);
    uint32_t cols[] = {v_col, s_col, id_col};
    struct ArrowArray a;
    struct ArrowSchema s;
    REQUIRE(ingot_export_arrow(t, 1, cols, 3, &a, &s, eb, sizeof eb) == 0);
    REQUIRE(a.n_children == 3 && s.n_children == 3);
    CHECK_EQ_STR(s.children[0]->name, "v");
    CHECK_EQ_STR(s.children[1]->name, "s");
    CHECK_EQ_STR(s.children[2]->name, "id");
    /* move the vector column out (the spec's move: copy, mark the source released) */
    struct ArrowArray moved = *a.children[0];
    a.children[0]->release = NULL;
    struct ArrowSchema moved_s = *s.children[0];
    s.children[0]->release = NULL;
    a.release(&a);
    s.release(&s);
    ingot_close(t); /* the batch does not need the table */
    const float *vs = moved.children[0]->buffers[1];
    CHECK(vs[0] == 1025.0f); /* row 1024 was erased: group 1 starts at 1025 */
    CHECK_EQ_STR(moved_s.children[0]->format, "f");
    moved.release(&moved);
    moved_s.release(&moved_s);
}

static void test_export_refusals(void)
{
    ingot_table *t;
    char eb[256];
    REQUIRE(ingot_open(table, &t, eb, sizeof eb) == 0);
    struct ArrowArray a = {0};
    struct ArrowSchema s = {0};
    uint32_t member;
    REQUIRE(ingot_column_find(t, "st.a", &member) == 0);
    CHECK_EQ_INT(ingot_export_arrow(t, 0, &member, 1, &a, &s, eb, sizeof eb), -EINVAL);
    CHECK(a.release == NULL && s.release == NULL);
    uint32_t none = 999;
    CHECK_EQ_INT(ingot_export_arrow(t, 0, &none, 1, &a, &s, eb, sizeof eb), -EINVAL);
    CHECK_EQ_INT(ingot_export_arrow(t, 99, NULL, 0, &a, &s, eb, sizeof eb), -ENOENT);
    CHECK(a.release == NULL && s.release == NULL);
    ingot_close(t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* Logical types through the C API: their names and descriptions, the values
 * ingot_read_fixed and ingot_read_text give, and Arrow's types and values
 * in the export (date32, time64, timestamp with and without a zone,
 * decimal128 from int32, int64 and 16-byte storage, fixed_size_binary,
 * float16), NULLs included. */
static int text_into(void *ctx, const void *p, size_t n)
{
    struct ig_buf *b = ctx;
    return ig_buf_append(b, p, n);
}

/* A table imported from in_text (a file named in_name) with schema_text as
 * its --schema (NULL: none), in a new directory made from the template ldir:
 * its path into tab. */
static void import_temp(char *ldir, const char *in_name, const char *in_text, const char *schema_text, char *tab,
                        size_t cap)
{
    REQUIRE(mkdtemp(ldir));
    char in[128], schema[128];
    snprintf(in, sizeof in, "%s/%s", ldir, in_name);
    snprintf(schema, sizeof schema, "%s/s.txt", ldir);
    snprintf(tab, cap, "%s/t", ldir);
    FILE *f;
    if (schema_text) {
        REQUIRE((f = fopen(schema, "w")));
        fputs(schema_text, f);
        fclose(f);
    }
    REQUIRE((f = fopen(in, "w")));
    fputs(in_text, f);
    fclose(f);
    struct ig_import_opts o = {.schema_path = schema_text ? schema : NULL};
    ig_writer_opts_default(&o.w);
    struct ig_import_result res;
    struct ig_error err = {0};
    int rc = ig_import(in, tab, &o, &res, &err);
    if (rc) fprintf(stderr, "  import: %s\n", err.msg);
    REQUIRE(rc == 0);
}

static void remove_temp(const char *ldir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ldir);
    CHECK(system(cmd) == 0);
}

static void test_logical_types(void)
{
    char ldir[64] = "/tmp/ingot-arrowc-lt-XXXXXX", tab[128];
    import_temp(ldir, "in.jsonl",
                "{\"d\": \"2024-01-01\", \"t\": \"20:34:56.123456\", \"ts\": \"2024-01-01T20:34:56.123456+01:00\", "
                "\"lts\": \"1969-12-31T23:59:59.999999999\", \"p\": \"-12345.67\", \"q\": 1.5, "
                "\"w\": \"-12345678901234567890.1234\", \"u\": \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\", "
                "\"fb\": \"\\\\x0a0b0c\", \"h\": 0.1}\n"
                "{\"d\": null, \"t\": \"00:00:00\", \"ts\": \"1970-01-01\", \"lts\": null, \"p\": 0, \"q\": null, "
                "\"w\": 0, \"u\": null, \"fb\": \"\\\\xffffff\", \"h\": null}\n",
                "d date?\nt time(us)\nts timestamp(us, UTC)\nlts timestamp(ns)?\np decimal(7, 2)\n"
                "q decimal(15, 3)?\nw decimal(30, 4)\nu uuid?\nfb fixed_binary(3)\nh float16?\n",
                tab, sizeof tab);
    ingot_table *t;
    char eb[256];
    REQUIRE(ingot_open(tab, &t, eb, sizeof eb) == 0);
    /* names and descriptions */
    static const char *names[] = {"date?", "time(us)", "timestamp(us, UTC)", "timestamp(ns)?", "decimal(7, 2)",
                                  "decimal(15, 3)?", "decimal(30, 4)", "uuid?", "fixed_binary(3)", "float16?"};
    static const enum ingot_type store[] = {INGOT_INT32, INGOT_INT64, INGOT_INT64, INGOT_INT64, INGOT_INT32,
                                            INGOT_INT64, INGOT_BINARY, INGOT_BINARY, INGOT_BINARY, INGOT_FLOAT32};
    for (uint32_t c = 0; c < 10; c++) {
        char name[64];
        CHECK(ingot_column_type_name(t, c, name, sizeof name) == (int)strlen(names[c]));
        CHECK_EQ_STR(name, names[c]);
        enum ingot_type ty;
        CHECK(ingot_column_type(t, c, &ty, NULL) == 0 && ty == store[c]);
    }
    char tiny[4];
    CHECK_EQ_INT(ingot_column_type_name(t, 2, tiny, sizeof tiny), -ENOSPC);
    struct ingot_logical_type lt;
    CHECK(ingot_column_logical(t, 2, &lt) == 0 && lt.kind == INGOT_TIMESTAMP && lt.unit == INGOT_MICROS && lt.utc);
    CHECK(ingot_column_logical(t, 6, &lt) == 0 && lt.kind == INGOT_DECIMAL && lt.precision == 30 && lt.scale == 4 &&
          lt.width == 16);
    /* stored values: a date's days (NULL 0), as the text says */
    int32_t days[2];
    uint8_t valid[2];
    CHECK_EQ_INT(ingot_read_fixed(t, 0, INGOT_ALL_GROUPS, days, sizeof days, valid, eb, sizeof eb), 2);
    CHECK(days[0] == 19723 && valid[0] == 1 && valid[1] == 0);
    struct ig_buf text = IG_BUF_INIT;
    CHECK_EQ_INT(ingot_read_text(t, 2, INGOT_ALL_GROUPS, text_into, &text, eb, sizeof eb), 0);
    ig_buf_append_byte(&text, 0);
    CHECK_EQ_STR((const char *)text.data, "2024-01-01T19:34:56.123456Z\n1970-01-01T00:00:00.000000Z\n");
    ig_buf_free(&text);
    /* Arrow */
    struct ArrowArray a = {0};
    struct ArrowSchema sc = {0};
    REQUIRE(ingot_export_arrow(t, 0, NULL, 0, &a, &sc, eb, sizeof eb) == 0);
    static const char *formats[] = {"tdD", "ttu", "tsu:UTC", "tsn:", "d:7,2", "d:15,3", "d:30,4", "w:16", "w:3", "e"};
    REQUIRE(sc.n_children == 10 && a.length == 2);
    for (int c = 0; c < 10; c++) CHECK_EQ_STR(sc.children[c]->format, formats[c]);
    const struct ArrowArray *d = a.children[0], *p = a.children[4], *q = a.children[5], *w = a.children[6],
                            *u = a.children[7], *fb = a.children[8], *h = a.children[9], *ts = a.children[2];
    CHECK(d->null_count == 1 && ((const int32_t *)d->buffers[1])[0] == 19723 && !bit(d->buffers[0], 1));
    CHECK(((const int64_t *)ts->buffers[1])[0] == 1704137696123456ll && ((const int64_t *)ts->buffers[1])[1] == 0);
    /* decimal128: 16 bytes a value, little-endian, sign-extended */
    const int64_t *pv = p->buffers[1], *qv = q->buffers[1], *wv = w->buffers[1];
    CHECK(pv[0] == -1234567 && pv[1] == -1 && pv[2] == 0 && pv[3] == 0);
    CHECK(qv[0] == 1500 && qv[1] == 0 && q->null_count == 1);
    __int128 wide;
    memcpy(&wide, wv, 16);
    CHECK(wide == -((__int128)1234567890123456789ll * 10 * 10000 + 1234));
    const uint8_t *uv = u->buffers[1], *fv = fb->buffers[1];
    CHECK(uv[0] == 0x6b && uv[15] == 0xc8 && u->null_count == 1);
    CHECK(fv[0] == 0x0a && fv[2] == 0x0c && fv[3] == 0xff && fv[5] == 0xff);
    CHECK(((const uint16_t *)h->buffers[1])[0] == 0x2e66 && h->null_count == 1); /* fp16 of 0.1 */
    a.release(&a);
    sc.release(&sc);
    ingot_close(t);
    remove_temp(ldir);
}

/* A version that shows its columns in an order of its own (one moved): the
 * API lists them so, and the Arrow export's children follow it. */
static void test_columns_in_the_version_order(void)
{
    char ldir[64] = "/tmp/ingot-arrowc-order.XXXXXX", tab[128];
    import_temp(ldir, "in.csv", "a,b,c\n1,x,2.5\n2,y,3.5\n", NULL, tab, sizeof tab);
    struct ig_evolve_report rep;
    struct ig_error err = {0};
    REQUIRE(ig_move_column(tab, "c", NULL, &rep, &err) == 0); /* c, a, b */
    ingot_table *t;
    char eb[256];
    REQUIRE(ingot_open(tab, &t, eb, sizeof eb) == 0);
    uint32_t cols[3] = {0}, one;
    CHECK_EQ_INT(ingot_columns_shown(t, cols, 3), 3);
    CHECK(cols[0] == 2 && cols[1] == 0 && cols[2] == 1);
    CHECK(ingot_columns_shown(t, &one, 1) == 3 && one == 2);
    struct ArrowArray a = {0};
    struct ArrowSchema sc = {0};
    REQUIRE(ingot_export_arrow(t, 0, NULL, 0, &a, &sc, eb, sizeof eb) == 0);
    CHECK(sc.n_children == 3 && !strcmp(sc.children[0]->name, "c") && !strcmp(sc.children[1]->name, "a") &&
          !strcmp(sc.children[2]->name, "b"));
    a.release(&a);
    sc.release(&sc);
    ingot_close(t);
    remove_temp(ldir);
}

TEST_MAIN(T(test_export_every_group), T(test_export_after_erase), T(test_export_some_columns_and_move),
          T(test_export_refusals), T(test_logical_types), T(test_columns_in_the_version_order))
