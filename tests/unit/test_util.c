#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

static void test_endian_roundtrip(void)
{
    uint8_t b[8];
    ig_st64(b, 0x0102030405060708ULL);
    CHECK(b[0] == 8 && b[7] == 1);
    CHECK(ig_ld64(b) == 0x0102030405060708ULL);
    ig_st32(b, 0xA1B2C3D4u);
    CHECK(ig_ld32(b) == 0xA1B2C3D4u);
    ig_st16(b, 0xBEEF);
    CHECK(ig_ld16(b) == 0xBEEF);
}

static void test_buf_grows_and_keeps_content(void)
{
    struct ig_buf b = IG_BUF_INIT;
    for (int i = 0; i < 10000; i++)
        CHECK(ig_buf_append_byte(&b, (uint8_t)i) == 0);
    CHECK(b.len == 10000);
    int ok = 1;
    for (int i = 0; i < 10000; i++)
        ok &= b.data[i] == (uint8_t)i;
    CHECK(ok);
    CHECK(ig_buf_printf(&b, "%d-%s", 42, "x") == 0);
    CHECK(b.len == 10004 && memcmp(b.data + 10000, "42-x", 4) == 0);
    ig_buf_free(&b);
}

static void test_hash_streaming_equals_oneshot(void)
{
    const char *s = "hello ingot, a column store";
    struct ig_hasher h;
    ig_hasher_init(&h);
    ig_hasher_update(&h, s, 5);
    ig_hasher_update(&h, s + 5, strlen(s) - 5);
    CHECK(ig_hasher_final(&h) == ig_hash(s, strlen(s)));
    CHECK(ig_hash("a", 1) != ig_hash("b", 1));
}

static void test_error_prefix(void)
{
    struct ig_error e = {0};
    CHECK(ig_err(&e, -EIO, "page %d bad", 3) == -EIO);
    CHECK(ig_err_prefix(&e, -EINVAL, "part-%d", 0) == -EIO);
    CHECK_EQ_STR(e.msg, "part-0: page 3 bad");
}

static void test_atomic_write_and_read(void)
{
    char dir[] = "/tmp/ingot-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    struct ig_error e = {0};
    CHECK(ig_write_file_atomic(dir, "f", "abc", 3, &e) == 0);
    char *p = NULL;
    size_t n = 0;
    CHECK(ig_read_file(strcat(strcpy((char[4200]){0}, dir), "/f"), 100, &p, &n, &e) == 0);
    CHECK(n == 3 && p && memcmp(p, "abc", 3) == 0);
    free(p);
    char path[4200];
    snprintf(path, sizeof path, "%s/f", dir);
    int fd = open(path, O_RDONLY);
    char b[8];
    CHECK(ig_pread_full(fd, b, 4, 0) == -EIO); /* short file is an error */
    close(fd);
    ig_remove_tree(dir);
    CHECK(access(dir, F_OK) != 0);
}

TEST_MAIN(T(test_endian_roundtrip), T(test_buf_grows_and_keeps_content),
          T(test_hash_streaming_equals_oneshot), T(test_error_prefix),
          T(test_atomic_write_and_read))
