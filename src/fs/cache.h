/* cache.h - the daemon's bounded cache of decoded and rendered pages.
 *
 * Entries are keyed by two 64-bit words (part/page and what was made of it) and
 * hold a byte buffer and, optionally, decoded values. The cache keeps at most
 * `budget` bytes, evicting least recently used entries that no reader holds,
 * except the most recent one, and the most recently used entry larger than the
 * whole budget while it is in use (it does not count against the budget: a page
 * that decodes to more than the cache is read through in many requests, each
 * of which may make small entries of its own, a file's layout).
 * Lookups and inserts take one mutex briefly; decoding happens outside it, so
 * readers of different columns proceed in parallel (two readers missing on the
 * same page may both decode it; the first insert wins).
 *
 * fs_cache_clear() drops everything (after an erase); entries still held by a
 * reader are freed when released. */
#ifndef IG_FS_CACHE_H
#define IG_FS_CACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "format/model/values.h"
#include "util/buf.h"

/* What the session caches (k1, k2): pieces of page p of part i are
 * (i << 32 | p, KEY_PIECE(view) | variant bits), decoded pages KEY_DECODED, a
 * rendered row (KEY_ROW_K1(id), KEY_ROW), generated files (KEY_SPECIAL_K1,
 * KEY_SPECIAL(which)). */
#define KEY_PIECE(view) (0x100u + (view))
/* a piece's variant bits (pieces.c: bits 16.. hold the values before it) */
#define KEY_PIECE_WHOLE (1u << 12)      /* a whole nested column's text */
#define KEY_PIECE_PROJECTION (1u << 13) /* one leaf of a nested column, as text */
#define KEY_DECODED 0x200u
#define KEY_DECODED_BLOCK(b) (0x600u | (uint64_t)(b) << 16) /* block b of a page, decoded */
#define KEY_ROW_K1(row) ((1ULL << 63) | (row))
#define KEY_ROW 0x300u
#define KEY_SPECIAL_K1 (1ULL << 62)
#define KEY_SPECIAL(which) (0x400u + (which))
#define KEY_LAYOUT 0x700u /* (inode, KEY_LAYOUT): a file's layout */
#define KEY_PQ_TAIL(gen) (0x800u | (uint64_t)(gen) << 16)   /* (inode, ...): a Parquet view's footer */
#define KEY_PQ_SCHEMA(gen) (0x900u | (uint64_t)(gen) << 16) /* (KEY_SPECIAL_K1, ...): the views' schema */
#define KEY_JSONL_RUN(i) (0xA00u | (uint64_t)(i) << 16)     /* (inode, ...): run i of jsonl/G.jsonl */
/* variant bits of a Parquet view's pieces (KEY_PIECE(FS_V_PARQUET) | sub << 16 | ...) */
#define KEY_PQ_DICT_PAGE (1ULL << 24) /* a chunk's dictionary page (at its first ingot page) */
#define KEY_PQ_DICT (2ULL << 24)      /* a chunk's dictionary, decoded (entry obj) */
/* a piece as an older generation shows it (views that keep their shape) */
#define KEY_OLD_PIECE(view, gen) ((0x500u + (view)) | (uint64_t)(gen) << 16)

struct fs_entry {
    uint64_t k1, k2;
    struct ig_buf data;
    struct iovec *segs;      /* when set, the bytes are these nsegs ranges of a part */
    int nsegs;               /* file's mapping (checked), one per block, not data */
    size_t mapped_len;       /* their total */
    struct ig_values *vals;  /* decoded page, or NULL */
    uint8_t *deleted;        /* page deletion bits when vals is set, or NULL */
    void *obj;               /* anything else the entry owns, freed by obj_free */
    void (*obj_free)(void *obj);
    bool transient;          /* never cached: freed by its last release; segs point at
                                bytes held for it (obj: a pin in the store's cache) */
    size_t bytes;            /* accounted size */
    uint64_t used_at;        /* the cache's insert count when last used */
    int refs;
    int dead;                /* removed from the index; free on last release */
    struct fs_entry *prev, *next;  /* LRU list, most recent first */
};

/* A slot of the cache's index (cache.c): an entry under its keys, or empty (e NULL). */
struct fs_slot {
    uint64_t k1, k2;
    struct fs_entry *e;
};

struct fs_cache {
    pthread_mutex_t mu;
    size_t budget, used;
    struct fs_slot *slots; /* open addressing, at most half full */
    size_t nslots, count;
    struct fs_entry *head, *tail;
    struct fs_entry *big; /* the most recently used entry larger than the budget */
    uint64_t inserts;
    uint64_t hits, misses, evictions;
};

int fs_cache_init(struct fs_cache *c, size_t budget);
void fs_cache_destroy(struct fs_cache *c);

/* A held entry, or NULL on a miss. */
struct fs_entry *fs_cache_get(struct fs_cache *c, uint64_t k1, uint64_t k2);
/* Is the entry there now? (No hold, no use counted: for advice.) */
bool fs_cache_has(struct fs_cache *c, uint64_t k1, uint64_t k2);
/* Insert a new entry built by the caller (fs_entry_new); returns the held entry
 * now in the cache (the caller's, or an existing one with the same key, in which
 * case the caller's is freed). */
struct fs_entry *fs_cache_put(struct fs_cache *c, struct fs_entry *e);
void fs_cache_release(struct fs_cache *c, struct fs_entry *e);
/* One more hold on an entry already held. */
void fs_cache_hold(struct fs_cache *c, struct fs_entry *e);
void fs_cache_clear(struct fs_cache *c);

struct fs_entry *fs_entry_new(uint64_t k1, uint64_t k2);
void fs_entry_free(struct fs_entry *e);

#endif
