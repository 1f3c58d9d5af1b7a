/* generations.h - the table generations the kernel still holds files of.
 *
 * The generation of a table (MANIFEST) moves with every erase and append. A
 * column view or generated file shows one generation, and its inode number says
 * which (inode.h): a lookup always answers with the current generation's inode,
 * so a file opened (or mapped) before an erase keeps its own inode, its own
 * size and its own kernel page cache, and never mixes two generations.
 *
 * What an older generation looked like is kept while the kernel knows an inode
 * of it: which parts the table had and each part's deletion bitmap then. Page
 * contents are always read as they are now (erased bytes are gone), so an old
 * fixed-width array (.npy, valid, _rowid, fp16, vectors) keeps its rows and
 * reads an erased row in its erased form (0, NaN, false); other files of an
 * older generation answer ESTALE and must be reopened.
 *
 * A path leads to the current generation, with one exception that keeps a
 * burst of opens of one file together: NumPy's np.load(mmap_mode=...) opens a
 * file three times, and if an erase landed between them, the header of one
 * generation would meet the size of another. So a thread's lookups of the same
 * name, each within FS_BURST_MS of its previous lookup, see the generation the
 * first one saw (for FS_PIN_MS at most); any other lookup sees the newest.
 * Generations a thread sees only move forward, so "read .ingot/generation, read
 * files, read it again; equal means one generation" holds for a thread, and a
 * thread erasing sees its own erase at once.
 *
 * The kernel's lookup counts (invalidate.c) reference-count the generations; the
 * last forget of an old generation's inode frees its snapshot. Inode numbers
 * hold the generation's low FS_GEN_BITS; the FUSE entry generation holds
 * all of it, so a generation number that wraps onto a still-held old one makes
 * the kernel retire that old inode (EIO) rather than mix them. */
#ifndef IG_FS_GENERATIONS_H
#define IG_FS_GENERATIONS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct ig_table;

#define FS_GEN_BITS 8
#define FS_GEN_MASK ((1u << FS_GEN_BITS) - 1)
#define FS_MAX_OLD_GENERATIONS 64 /* older snapshots than this answer ESTALE */
#define FS_BURST_MS 100 /* lookups of one name closer than this are one burst */
#define FS_PIN_MS 1000 /* a burst never holds a generation longer than this */
#define FS_PINS 1024   /* threads pinned at once; more simply see the newest */

struct fs_pin {
    uint32_t tid;
    uint64_t gen;
    uint64_t name;     /* hash of (parent, name) of the burst's file */
    uint64_t first_ns; /* CLOCK_MONOTONIC: the burst's first lookup */
    uint64_t last_ns;  /* its latest */
};

struct fs_generation {
    uint64_t gen;        /* table generation (MANIFEST) */
    uint64_t refs;       /* kernel lookups of inodes of this generation */
    uint32_t nparts;     /* parts the table had */
    uint32_t ngroups;    /* row groups it had */
    uint8_t **deleted;   /* per part, its deletion bitmap then; NULL: the live table's */
    uint64_t *part_rows; /* rows of each part (bounds for deleted) */
};

/* The current generation, the older ones kept, and the threads' bursts. */
struct fs_generations {
    pthread_mutex_t mu; /* guards refs, old and pins (current.gen moves under the table lock) */
    struct fs_generation current;
    struct fs_generation *old[FS_MAX_OLD_GENERATIONS]; /* generations the kernel still holds */
    uint32_t nold;
    struct fs_pin pins[FS_PINS]; /* threads' pinned generations */
};

void fs_generations_init(struct fs_generations *g, uint64_t gen);
void fs_generations_free(struct fs_generations *g);

/* The generation an inode's generation bits name (current or kept), or NULL when it
 * is gone. Caller holds the session's table lock. */
const struct fs_generation *fs_generation_of(struct fs_generations *g, uint32_t vbits);
static inline uint32_t fs_gen_bits(uint64_t gen) { return (uint32_t)gen & FS_GEN_MASK; }

/* Is part-local row `row` of part `part` deleted in generation v? */
bool fs_generation_deleted(const struct fs_generation *v, const struct ig_table *t, uint32_t part,
                        uint64_t row);
/* Deleted rows among [first, first + count) of a part in generation v. */
uint32_t fs_generation_deleted_count(const struct fs_generation *v, const struct ig_table *t,
                                  uint32_t part, uint64_t first, uint32_t count);
/* Their bits (LSB first) into dst; true if any. */
bool fs_generation_deleted_bits(const struct fs_generation *v, const struct ig_table *t, uint32_t part,
                             uint64_t first, uint32_t count, uint8_t *dst);

/* The generation a lookup of `name` (a hash of parent and name) by thread
 * `tid` shows: the burst's when it continues one (and `may_be_old`: the node
 * keeps its shape in an older generation, or holds nothing erased), else the
 * current one, which starts a burst. Caller holds the table lock for reading. */
uint64_t fs_generation_for_lookup(struct fs_generations *g, uint32_t tid, uint64_t name, bool may_be_old);
/* The thread changed the table (an erase): its next lookups see the newest. */
void fs_generation_unpin(struct fs_generations *g, uint32_t tid);

/* Lookup counts: the kernel learned (n > 0) or forgot (n < 0) n references to
 * an inode of generation `vbits`. Takes the mutex. */
void fs_generation_ref(struct fs_generations *g, uint32_t vbits, int64_t n);

/* At a reload, before the old table is closed: keep what the current generation
 * looked like if the kernel still holds inodes of it, then make `gen` (of the
 * new table) current. Caller holds the table lock for writing. */
void fs_generation_advance(struct fs_generations *g, const struct ig_table *old, uint64_t gen);


#endif
