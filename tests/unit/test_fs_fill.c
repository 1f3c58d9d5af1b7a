/* Filling small objects into the kernel's page cache (src/fs/fill.c): the rules
 * that keep it safe, without a mount. At most all but one worker fill at once
 * (a fill may wait for a READ only a free worker answers); a fill that noted
 * the epoch before a page-dropping pass never stores after it, and a pass
 * waits for a store already under way (so it drops what that store put in);
 * only blob objects and rows are filled, each once until the kernel forgets it. */
#include "check.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "fs/fill.h"

static void test_all_workers_but_one(void)
{
    static const unsigned workers[] = {1, 2, 4, 8};
    for (size_t w = 0; w < sizeof workers / sizeof *workers; w++) {
        struct fs_fill s = {0};
        REQUIRE(fs_fill_init(&s, workers[w]) == 0);
        unsigned took = 0;
        while (took < 64 && fs_fill_begin(&s))
            took++;
        CHECK_EQ_INT(took, workers[w] - 1);
        if (took) { /* one ends: one more may begin, and no more */
            fs_fill_end(&s);
            CHECK(fs_fill_begin(&s));
            CHECK(!fs_fill_begin(&s));
        }
        while (took--)
            fs_fill_end(&s);
        CHECK_EQ_INT(atomic_load(&s.filling), 0);
        fs_fill_destroy(&s);
    }
}

static void test_what_is_filled(void)
{
    struct fs_fill s = {0};
    REQUIRE(fs_fill_init(&s, 2) == 0);
    struct fs_node blob = {.kind = FS_K_BLOB, .blob = 1, .row = 7}, row = {.kind = FS_K_ROW, .row = 7};
    struct fs_node view = {.kind = FS_K_VIEW, .col = 3}, dir = {.kind = FS_K_DIR, .dir = FS_D_ROWS};
    uint64_t ib = fs_ino(&blob), ir = fs_ino(&row), iv = fs_ino(&view), id = fs_ino(&dir);
    CHECK(fs_fill_wanted(&s, &blob, ib));
    CHECK(fs_fill_wanted(&s, &row, ir));
    CHECK(!fs_fill_wanted(&s, &view, iv)); /* read in ranges, some only mapped */
    CHECK(!fs_fill_wanted(&s, &dir, id));
    fs_fill_done(&s, &blob, ib); /* the kernel holds its bytes: not again */
    CHECK(!fs_fill_wanted(&s, &blob, ib));
    CHECK(fs_fill_wanted(&s, &row, ir));
    fs_fill_dropped(&s, ir); /* another inode forgotten: the blob's mark stays */
    CHECK(!fs_fill_wanted(&s, &blob, ib));
    fs_fill_dropped(&s, ib); /* forgotten: filled again when next opened */
    CHECK(fs_fill_wanted(&s, &blob, ib));
    fs_fill_destroy(&s);
    struct fs_fill none = {0}; /* never initialised (or out of memory): nothing is filled */
    CHECK(!fs_fill_wanted(&none, &blob, ib));
}

static void test_store_never_after_a_pass(void)
{
    struct fs_fill s = {0};
    REQUIRE(fs_fill_init(&s, 2) == 0);
    uint64_t e = fs_fill_epoch(&s);
    REQUIRE(fs_fill_store_begin(&s, e));
    fs_fill_store_end(&s);
    fs_fill_barrier(&s); /* a pass that drops pages began after the read */
    CHECK(!fs_fill_store_begin(&s, e));
    uint64_t e2 = fs_fill_epoch(&s);
    CHECK(e2 != e);
    REQUIRE(fs_fill_store_begin(&s, e2)); /* a read after the pass stores */
    fs_fill_store_end(&s);
    fs_fill_destroy(&s);
}

struct pass {
    struct fs_fill *s;
    atomic_bool done;
};

static void *run_pass(void *arg)
{
    struct pass *p = arg;
    fs_fill_barrier(p->s);
    atomic_store(&p->done, true);
    return NULL;
}

static void test_pass_waits_for_a_store(void)
{
    struct fs_fill s = {0};
    REQUIRE(fs_fill_init(&s, 2) == 0);
    REQUIRE(fs_fill_store_begin(&s, fs_fill_epoch(&s))); /* a store under way */
    struct pass p = {.s = &s};
    atomic_init(&p.done, false);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, run_pass, &p) == 0);
    usleep(50 * 1000);
    CHECK(!atomic_load(&p.done)); /* it would drop pages before the store lands */
    fs_fill_store_end(&s);
    pthread_join(t, NULL);
    CHECK(atomic_load(&p.done));
    fs_fill_destroy(&s);
}

TEST_MAIN(T(test_all_workers_but_one), T(test_what_is_filled), T(test_store_never_after_a_pass),
          T(test_pass_waits_for_a_store))
