/* The daemon's page cache (src/fs/cache.c): bounded, least recently used out,
 * entries in use never freed, and the entry being read kept even when it alone
 * exceeds the budget (else a page larger than the cache is decoded again for
 * every read request). */
#include "check.h"

#include "fs/cache.h"

/* A held entry of about `bytes` bytes (NULL only when out of memory). */
static struct fs_entry *put2(struct fs_cache *c, uint64_t k1, uint64_t k2, size_t bytes);
static struct fs_entry *put(struct fs_cache *c, uint64_t key, size_t bytes) { return put2(c, key, 0, bytes); }

/* A held entry under (k1, k2) of about `bytes` bytes. */
static struct fs_entry *put2(struct fs_cache *c, uint64_t k1, uint64_t k2, size_t bytes)
{
    struct fs_entry *e = fs_entry_new(k1, k2);
    if (!e || ig_buf_reserve(&e->data, bytes)) {
        fs_entry_free(e);
        return NULL;
    }
    return fs_cache_put(c, e);
}

static bool cached(struct fs_cache *c, uint64_t key)
{
    struct fs_entry *e = fs_cache_get(c, key, 0);
    if (e) fs_cache_release(c, e);
    return e != NULL;
}

static void test_lru_within_budget(void)
{
    struct fs_cache c;
    REQUIRE(fs_cache_init(&c, 10000) == 0);
    for (uint64_t k = 1; k <= 5; k++)
        fs_cache_release(&c, put(&c, k, 3000));
    /* 5 x 3000 bytes in a 10,000-byte cache: the oldest went first */
    CHECK(!cached(&c, 1));
    CHECK(!cached(&c, 2));
    CHECK(cached(&c, 5));
    CHECK(c.used <= c.budget);
    fs_cache_destroy(&c);
}

static void test_held_entries_survive(void)
{
    struct fs_cache c;
    REQUIRE(fs_cache_init(&c, 5000) == 0);
    struct fs_entry *held = put(&c, 1, 4000);
    REQUIRE(held != NULL);
    fs_cache_release(&c, put(&c, 2, 4000));
    fs_cache_release(&c, put(&c, 3, 4000));
    /* 1 is in use: it stays and its bytes stay readable */
    CHECK(held->data.cap >= 4000);
    CHECK(cached(&c, 1));
    fs_cache_release(&c, held);
    fs_cache_destroy(&c);
}

static void test_oversize_entry_kept_while_read(void)
{
    struct fs_cache c;
    REQUIRE(fs_cache_init(&c, 1000) == 0);
    fs_cache_release(&c, put(&c, 1, 100000)); /* a page 100x the cache */
    CHECK(cached(&c, 1));                     /* the next read of it is a hit */
    CHECK(cached(&c, 1));
    for (uint64_t k = 2; k < 2 + 8; k++) /* reading moves on: other entries, 1 unused */
        fs_cache_release(&c, put(&c, k, 100));
    CHECK(!cached(&c, 1));
    CHECK(cached(&c, 9));
    fs_cache_destroy(&c);
}

/* Each read request of a page larger than the cache may rebuild a small entry
 * of its own (the file's layout, evicted meanwhile): the page stays through all
 * of them. Fails when only the most recent entry is kept (the small one). */
static void test_oversize_entry_kept_among_small_ones(void)
{
    struct fs_cache c;
    REQUIRE(fs_cache_init(&c, 1000) == 0);
    fs_cache_release(&c, put(&c, 1, 100000));
    int missed = 0;
    for (uint64_t k = 100; k < 200; k++) {
        fs_cache_release(&c, put(&c, k, 300)); /* the layout, made again */
        missed += !cached(&c, 1);              /* the read itself */
        if (missed) fs_cache_release(&c, put(&c, 1, 100000)); /* decoded again */
    }
    CHECK_EQ_INT(missed, 0);
    /* the small entries stay within the budget around it */
    REQUIRE(c.big != NULL);
    CHECK(c.used - c.big->bytes <= c.budget);
    fs_cache_destroy(&c);
}

/* The index and the LRU list agree: every listed entry is found under its
 * keys (a lookup that does not reorder the list), every slot's entry is under
 * the slot's keys, and the slots hold as many entries as are listed. */
static bool index_agrees(struct fs_cache *c)
{
    size_t listed = 0, slotted = 0;
    for (struct fs_entry *e = c->head; e; e = e->next, listed++)
        if (!fs_cache_has(c, e->k1, e->k2)) return false;
    for (size_t i = 0; i < c->nslots; i++) {
        const struct fs_slot *sl = &c->slots[i];
        if (sl->e && (sl->e->k1 != sl->k1 || sl->e->k2 != sl->k2)) return false;
        slotted += sl->e != NULL;
    }
    return listed == c->count && slotted == c->count;
}

/* Many keys, many of them landing on the same slots (keys that differ only in
 * k2's high bits, and runs of k1), evicted in LRU order while others are put,
 * cleared at the end: every lookup finds what is cached and nothing else, as
 * the index grows and as entries leave from the middle of probe runs. */
static void test_index_under_churn(void)
{
    struct fs_cache c;
    REQUIRE(fs_cache_init(&c, 2000 * 200) == 0);
    uint64_t rng = check_seed | 1;
    size_t wrong = 0, found = 0;
    for (int round = 0; round < 40000; round++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        uint64_t k1 = rng % 5000, k2 = (rng >> 32) % 3 << 48;
        struct fs_entry *e = fs_cache_get(&c, k1, k2);
        if (e) {
            found++;
            wrong += e->k1 != k1 || e->k2 != k2;
            fs_cache_release(&c, e);
        } else {
            fs_cache_release(&c, put2(&c, k1, k2, 40));
            wrong += !fs_cache_has(&c, k1, k2); /* the last put stays */
        }
        if (round % 4000 == 0) CHECK(index_agrees(&c));
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK(found > 1000);
    CHECK(c.evictions > 1000);
    CHECK(c.nslots >= 2 * c.count);
    CHECK(index_agrees(&c));
    fs_cache_clear(&c);
    CHECK_EQ_INT(c.count, 0);
    for (size_t i = 0; i < c.nslots; i++)
        wrong += c.slots[i].e != NULL;
    CHECK_EQ_INT(wrong, 0);
    fs_cache_destroy(&c);
}

TEST_MAIN(T(test_lru_within_budget), T(test_held_entries_survive),
          T(test_oversize_entry_kept_while_read), T(test_oversize_entry_kept_among_small_ones),
          T(test_index_under_churn))
