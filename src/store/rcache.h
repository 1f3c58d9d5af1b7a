/* rcache.h - a bounded memory cache of byte ranges of immutable objects.
 *
 * Each object (an ETag of a key: its bytes never change) keeps the ranges
 * fetched of it as non-overlapping extents; all objects of one cache share
 * one byte budget, evicted least recently used first. A range being fetched
 * is claimed (pending) by the thread fetching it: others that need it wait
 * for it instead of fetching it again (a prefetch and the read it serves, two
 * daemon threads reading one block). Thread-safe; no I/O of its own.
 *
 * A reader may pin a ready extent to point at its bytes instead of copying
 * them (a FUSE reply sent from the cache): an extent evicted while pinned
 * leaves the index and the byte budget at once and is freed by its last
 * unpin, so memory is the budget plus what pins hold (pins are short: one
 * request's). A pin points back at its cache: the cache must outlive every
 * pin (ig_rcache_free asserts none is held).
 *
 * A range fetched ahead of its readers (a readahead's claim) that has since
 * been read through, every byte, is spent: it goes to the cold end of the
 * LRU, and the next fetch's buffer is taken from it (ig_rc_buffer) rather
 * than from fresh memory, so a sequential scan neither flushes what random
 * reads cached nor faults in a new page for every page it fetches. */
#ifndef IG_STORE_RCACHE_H
#define IG_STORE_RCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/ranges.h"

struct ig_rcache;
struct ig_rc_obj;

struct ig_rcache *ig_rcache_new(size_t cap_bytes);
void ig_rcache_free(struct ig_rcache *c); /* its objects freed and its pins released first */
size_t ig_rcache_bytes(const struct ig_rcache *c);

struct ig_rc_obj *ig_rc_obj_new(struct ig_rcache *c);
/* Drop the object's extents (waits for none: its fetches must be done). */
void ig_rc_obj_free(struct ig_rc_obj *o);

/* Copy the cached bytes of [off, off + n) into dst and claim the rest: the
 * uncached stretches (at most cap of them; past that the rest is left
 * unclaimed and *more set) are returned in gaps[0..*ngaps) as pending, for
 * the caller to fetch and then ig_rc_fill. Waits while another thread's
 * claim covers part of the range. */
void ig_rc_read(struct ig_rc_obj *o, void *dst, size_t n, uint64_t off, struct ig_range *gaps,
                size_t cap, size_t *ngaps, bool *more);
/* Claim what is neither cached nor pending in [off, off + n) (a prefetch):
 * never waits; returns the count put into gaps. ahead: fetched before its
 * readers come (a readahead): spent once they have read all of it. */
size_t ig_rc_claim(struct ig_rc_obj *o, uint64_t off, uint64_t n, bool ahead, struct ig_range *gaps,
                   size_t cap);
/* A buffer of len bytes for a fetch into the cache (then ig_rc_fill): a
 * spent extent's, dropped for it, when one that no pin holds is at the LRU's
 * cold end, else malloc'd. NULL without memory. */
void *ig_rc_buffer(struct ig_rcache *c, size_t len);
/* A claimed range fetched: the cache takes `data` (malloc'd, len bytes, or
 * NULL when the fetch failed: the claim is dropped, waiters fetch it
 * themselves). */
void ig_rc_fill(struct ig_rc_obj *o, uint64_t off, uint64_t len, void *data);
/* How many separate stretches of [off, off + n) are cached or pending: how
 * many times a reader has come to that range (an extent may hold several
 * adjacent fetches). */
size_t ig_rc_pieces(struct ig_rc_obj *o, uint64_t off, uint64_t n);
/* Pin the ready extent that holds all of [off, off + n): returns a pointer
 * to off's byte, valid until ig_rc_unpin(*pin) even if the extent is evicted
 * meanwhile; NULL (and *pin NULL) when no one extent holds the range. The
 * object may not be freed while pins of it are held. */
const uint8_t *ig_rc_pin(struct ig_rc_obj *o, uint64_t off, uint64_t n, void **pin);
void ig_rc_unpin(void *pin); /* NULL: nothing */
/* A reader's check of [off, off + n) of a pinned extent (a page's checksums)
 * recorded with it, so a second reader of the same bytes (two FUSE reads
 * that share a page) need not compute it again: ig_rc_set_checked after a
 * check that passed (never one that failed), ig_rc_checked before checking.
 * The extent remembers its last few checked ranges; false for NULL. */
bool ig_rc_checked(void *pin, uint64_t off, uint64_t n);
void ig_rc_set_checked(void *pin, uint64_t off, uint64_t n);
/* Is all of [off, off + n) cached (not pending)? */
bool ig_rc_has(struct ig_rc_obj *o, uint64_t off, uint64_t n);

#endif
