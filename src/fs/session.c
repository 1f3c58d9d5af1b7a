/* session.c - one mounted table: open, close, and the checks every room shares (session.h). */
#include "session.h"
#include "fill.h"
#include "format/model/types.h"
#include "store/store.h"
#include "util/error.h"
#include "format/part/commitlog.h"
#include "format/part/journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

static void free_scratch(void *p)
{
    struct fs_scratch *sc = p;
    if (!sc) return;
    ig_reader_free(&sc->r);
    ig_buf_free(&sc->tmp);
    free(sc);
}

void fs_map_parts(struct ig_table *t)
{
    /* the footers are private copies already (ig_table_open_shared); without
     * the data mapping, pages are read with pread */
    for (uint32_t i = 0; i < t->nparts; i++)
        (void)ig_part_map_data(&t->parts[i], NULL);
}

size_t fs_cache_default_bytes(const struct ig_table *t)
{
    /* a row's file decodes a block of every leaf: rows read in order share
     * those blocks only if a block of each stays (below that the cache is
     * emptied in the order it fills, and misses every time) */
    uint64_t want = (uint64_t)(t->nparts ? t->parts[0].num_leaves : 0) * FS_CACHE_PER_LEAF;
    if (want < FS_CACHE_MIN) want = FS_CACHE_MIN;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t cap = FS_CACHE_MAX;
    if (pages > 0 && page > 0 && (uint64_t)pages * (uint64_t)page / 16 < cap)
        cap = (uint64_t)pages * (uint64_t)page / 16;
    if (want > cap) want = cap > FS_CACHE_MIN ? cap : FS_CACHE_MIN;
    return (size_t)want;
}

uint64_t fs_manifest_generation(const char *dir)
{
    struct ig_manifest m;
    if (ig_manifest_read(dir, &m, NULL)) return 0;
    uint64_t g = m.generation;
    ig_manifest_free(&m);
    return g;
}

/* The generation a change would move: the table's own for the current table;
 * for a version's, MANIFEST's when it was opened (the version's is older). */
static uint64_t seen_generation(const struct fs_session *s)
{
    return s->version ? s->seen_generation : s->table.manifest.generation;
}

int fs_session_init(struct fs_session *s, const char *dir, uint64_t version, size_t cache_bytes,
                    struct ig_error *err)
{
    memset(s, 0, sizeof *s);
    /* a table on object storage (s3://) is named by its URL */
    s->dir = ig_store_is_remote(dir) ? strdup(dir) : realpath(dir, NULL);
    if (!s->dir) return ig_err(err, -errno, "%s: %s", dir, strerror(errno));
    s->version = version;
    s->seen_generation = version ? fs_manifest_generation(s->dir) : 0;
    int rc = ig_table_open_shared_version(&s->table, s->dir, version, err);
    if (rc) {
        free(s->dir);
        return rc;
    }
    if (s->table.parts[0].num_columns > FS_MAX_COLUMNS || s->table.num_groups > FS_MAX_GROUPS) {
        ig_table_close(&s->table);
        free(s->dir);
        return ig_err(err, -EFBIG, "%s: more than 16 Mi columns or 32 Mi row groups cannot be mounted",
                      dir);
    }
    fs_map_parts(&s->table);
    rc = fs_cache_init(&s->cache, cache_bytes ? cache_bytes : fs_cache_default_bytes(&s->table));
    if (rc) {
        ig_table_close(&s->table);
        free(s->dir);
        return ig_err(err, rc, "out of memory");
    }
    pthread_key_create(&s->scratch_key, free_scratch);
    pthread_rwlock_init(&s->table_lock, NULL);
    fs_keyset_init(&s->damaged);
    pthread_mutex_init(&s->erase_mu, NULL);
    /* a version's files change only by erasure, which moves MANIFEST's
     * generation, not the version's: its files follow MANIFEST's */
    fs_generations_init(&s->gens, s->version ? s->seen_generation : s->table.manifest.generation);
    fs_known_init(&s->known);
    fs_view_names_init(&s->vnames);
    fs_watch_init(&s->watch, 0, false);
    atomic_init(&s->erasing, 0);
    fs_keyset_init(&s->verified);
    if (fs_blob_columns(s)) {
        ig_table_close(&s->table);
        free(s->dir);
        return ig_err(err, -EFBIG, "%s: more than 256 blob columns cannot be mounted", dir);
    }
    fs_list_order(s);
    fs_rowsizes_init(&s->rowsizes); /* out of memory: listings measure as they go */
    s->uid = getuid();
    s->gid = getgid();
    s->erase_gid = (gid_t)-1;
    struct stat st;
    char path[4096];
    snprintf(path, sizeof path, "%s/MANIFEST", s->dir);
    if (!ig_store_is_remote(s->dir) && stat(path, &st) == 0) s->mtime = st.st_mtim;
    s->timeout = 86400.0;
    const char *pause = getenv("INGOT_TEST_RELOAD_PAUSE_MS");
    s->test_reload_pause_ms = pause ? (unsigned)strtoul(pause, NULL, 10) : 0;
    pause = getenv("INGOT_TEST_INVAL_PAUSE_MS");
    s->test_inval_pause_ms = pause ? (unsigned)strtoul(pause, NULL, 10) : 0;
    pause = getenv("INGOT_TEST_ROWS_PAUSE_MS");
    s->test_rows_pause_ms = pause ? (unsigned)strtoul(pause, NULL, 10) : 0;
    return 0;
}

void fs_session_destroy(struct fs_session *s)
{
    fs_cache_destroy(&s->cache);
    ig_table_close(&s->table);
    free(s->listed);
    free_scratch(pthread_getspecific(s->scratch_key));
    pthread_key_delete(s->scratch_key);
    pthread_rwlock_destroy(&s->table_lock);
    fs_keyset_free(&s->damaged);
    pthread_mutex_destroy(&s->erase_mu);
    fs_generations_free(&s->gens);
    fs_known_free(&s->known);
    fs_rowsizes_destroy(&s->rowsizes);
    fs_view_names_free(&s->vnames);
    fs_fill_destroy(&s->fill);
    fs_keyset_free(&s->verified);
    free(s->dir);
    memset(s, 0, sizeof *s);
}

struct fs_scratch *fs_scratch(struct fs_session *s)
{
    struct fs_scratch *sc = pthread_getspecific(s->scratch_key);
    if (!sc) {
        sc = calloc(1, sizeof *sc);
        if (sc) pthread_setspecific(s->scratch_key, sc);
    }
    return sc;
}

/* Did the table change on disk since we opened it? */
bool fs_manifest_moved(struct fs_session *s)
{
    struct ig_manifest m;
    if (ig_journal_pending(s->dir) || ig_commit_pending(s->dir)) return true;
    if (ig_manifest_read(s->dir, &m, NULL)) return false; /* keep serving what we have */
    pthread_rwlock_rdlock(&s->table_lock);
    bool changed = m.generation != seen_generation(s) || (!s->version && m.n != s->table.nparts);
    pthread_rwlock_unlock(&s->table_lock);
    ig_manifest_free(&m);
    return changed;
}

bool fs_table_moved(struct fs_session *s)
{
    struct ig_manifest m;
    if (ig_journal_pending(s->dir) || ig_commit_pending(s->dir)) return true;
    if (ig_manifest_read(s->dir, &m, NULL)) return false; /* keep serving what we have */
    bool changed = m.generation != seen_generation(s) || (!s->version && m.n != s->table.nparts);
    ig_manifest_free(&m);
    for (uint32_t i = 0; !changed && i < s->table.nparts; i++)
        changed = ig_part_rewritten(&s->table.parts[i]);
    return changed;
}

int fs_page_failed(struct fs_session *s, uint32_t part, uint32_t page, const char *msg, int rc)
{
    if (rc == -ENOMEM) return rc;
    if (fs_table_moved(s)) return -EAGAIN; /* a writer changed it under us: look again */
    fs_log_page_error(s, part, page, msg);
    return -EIO;
}

void fs_log_page_error(struct fs_session *s, uint32_t part, uint32_t page, const char *msg)
{
    if (fs_keyset_had(&s->damaged, (uint64_t)part << 32 | page, true)) return;
    if (s->foreground)
        fprintf(stderr, "ingot: %s\n", msg);
    else
        syslog(LOG_ERR, "ingot: %s", msg);
}

int fs_blob_columns(struct fs_session *s)
{
    s->nblob_cols = 0;
    for (uint32_t c = 0; c < s->table.parts[0].num_columns; c++) {
        struct ig_colrec cr;
        if (ig_part_column(&s->table.parts[0], c, &cr, NULL) || cr.type != IG_T_BLOB ||
            !ig_table_shows(&s->table, c))
            continue;
        if (s->nblob_cols == FS_MAX_BLOB_COLUMNS) return -EFBIG;
        s->blob_cols[s->nblob_cols++] = c;
    }
    return 0;
}

void fs_list_order(struct fs_session *s)
{
    free(s->listed);
    s->listed = NULL;
    s->nlisted = 0;
    if (!s->table.manifest.order.n) return;
    uint64_t n = ig_idseq_count(&s->table.manifest.order);
    s->listed = malloc((n ? n : 1) * sizeof *s->listed);
    if (!s->listed) return;
    struct ig_shown_walk shown = {0};
    for (uint32_t col; s->nlisted < n && ig_table_next_shown(&s->table, &shown, &col);)
        s->listed[s->nlisted++] = col;
}

bool fs_column_ref(struct fs_session *s, uint32_t col, struct ig_column_ref *ref)
{
    return col < s->table.parts[0].num_columns && ig_table_column_at(&s->table, col, ref, NULL) == 0;
}

/* A row's inode, or not. */
static bool row_of(uint64_t ino, uint64_t *row)
{
    struct fs_node node;
    if (!fs_node_of(ino, &node) || node.kind != FS_K_ROW) return false;
    *row = node.row;
    return true;
}

/* The kernel's references to a view or generated file count for its generation. */
static void generation_ref(struct fs_session *s, uint64_t ino, int64_t n)
{
    struct fs_node node;
    if (!n || !fs_node_of(ino, &node) || !fs_node_generational(&node)) return;
    fs_generation_ref(&s->gens, node.gen_bits, n);
}

void fs_kernel_holds(struct fs_session *s, uint64_t ino, uint64_t n)
{
    uint64_t row;
    if (!n || !ino) return;
    if (row_of(ino, &row)) {
        fs_known_row_given(&s->known, row);
        return;
    }
    fs_known_add(&s->known, ino, n);
    generation_ref(s, ino, (int64_t)n);
}

void fs_kernel_lets_go(struct fs_session *s, uint64_t ino, uint64_t n)
{
    uint64_t row;
    if (row_of(ino, &row)) return;
    generation_ref(s, ino, -(int64_t)fs_known_forget(&s->known, ino, n));
}

bool fs_writer_seen(struct fs_session *s)
{
    return atomic_load(&s->erasing) || fs_watch_unsettled(&s->watch);
}
