/* test_store.c - the object store's parts that need no server: signing
 * (SHA-256, HMAC, SigV4 against AWS's published examples), configuration
 * as the AWS tools read it, XML answers, range planning, the range cache,
 * and the local backend of the store seam. The S3 backend itself is tested
 * against a real gateway (tests/integration/test_s3.sh). */
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/ranges.h"
#include "store/rcache.h"
#include "store/s3.h"
#include "store/s3_config.h"
#include "store/s3_xml.h"
#include "store/sigv4.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/sha256.h"

static void hexof(const uint8_t *d, char *out)
{
    ig_hex(d, IG_SHA256_LEN, out);
}

static void test_sha256_and_hmac_vectors(void)
{
    uint8_t d[32];
    char h[65];
    ig_sha256("", 0, d);
    hexof(d, h);
    CHECK_EQ_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    ig_sha256("abc", 3, d);
    hexof(d, h);
    CHECK_EQ_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* two blocks, and fed a byte at a time */
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    struct ig_sha256 s;
    ig_sha256_init(&s);
    for (size_t i = 0; i < strlen(two); i++)
        ig_sha256_update(&s, two + i, 1);
    ig_sha256_final(&s, d);
    hexof(d, h);
    CHECK_EQ_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* RFC 4231, test case 2 */
    ig_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
    hexof(d, h);
    CHECK_EQ_STR(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    /* a key longer than a block is hashed first (RFC 4231, test case 6) */
    uint8_t key[131];
    memset(key, 0xaa, sizeof key);
    const char *msg = "Test Using Larger Than Block-Size Key - Hash Key First";
    ig_hmac_sha256(key, sizeof key, msg, strlen(msg), d);
    hexof(d, h);
    CHECK_EQ_STR(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void test_sigv4_matches_aws_example(void)
{
    /* "GET Object" from AWS's SigV4 for S3 documentation */
    struct ig_sigv4_header h[] = {
        {"x-amz-date", "20130524T000000Z"},
        {"range", "bytes=0-9"},
        {"host", "examplebucket.s3.amazonaws.com"},
        {"x-amz-content-sha256",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    };
    struct ig_sigv4_key k = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                             "us-east-1", "s3"};
    char auth[512];
    REQUIRE(ig_sigv4_sign("GET", "/test.txt", "", h, 4,
                          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", &k,
                          "20130524T000000Z", auth, sizeof auth));
    CHECK_EQ_STR(
        auth,
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    /* "GET Bucket (List Objects)": a query */
    struct ig_sigv4_header l[] = {
        {"host", "examplebucket.s3.amazonaws.com"},
        {"x-amz-content-sha256",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"x-amz-date", "20130524T000000Z"},
    };
    REQUIRE(ig_sigv4_sign("GET", "/", "max-keys=2&prefix=J", l, 3,
                          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", &k,
                          "20130524T000000Z", auth, sizeof auth));
    CHECK(strstr(auth,
                 "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") !=
          NULL);
    /* a name that is a prefix of another sorts first (curl 7.88 got this wrong) */
    struct ig_sigv4_header c[] = {
        {"x-amz-copy-source-range", "bytes=0-9"},
        {"x-amz-copy-source", "/b/k"},
        {"host", "h"},
    };
    REQUIRE(ig_sigv4_sign("PUT", "/b/k", "partNumber=1&uploadId=x", c, 3, "UNSIGNED-PAYLOAD", &k,
                          "20130524T000000Z", auth, sizeof auth));
    CHECK(strstr(auth, "SignedHeaders=host;x-amz-copy-source;x-amz-copy-source-range,") != NULL);
    /* a repeated name, a short buffer */
    struct ig_sigv4_header twice[] = {{"host", "a"}, {"host", "b"}};
    CHECK(!ig_sigv4_sign("GET", "/", "", twice, 2, "UNSIGNED-PAYLOAD", &k, "20130524T000000Z", auth,
                         sizeof auth));
    CHECK(
        !ig_sigv4_sign("GET", "/", "", c, 3, "UNSIGNED-PAYLOAD", &k, "20130524T000000Z", auth, 40));
}

static void test_uri_encode(void)
{
    char out[64];
    CHECK(ig_s3_uri_encode("a b/c~d.e_f-g+h", true, out, sizeof out));
    CHECK_EQ_STR(out, "a%20b/c~d.e_f-g%2Bh");
    CHECK(ig_s3_uri_encode("a/b", false, out, sizeof out));
    CHECK_EQ_STR(out, "a%2Fb");
    CHECK(!ig_s3_uri_encode("////", false, out, 8));
}

static void test_ini_files(void)
{
    const char *text =
        "# comment\n[default]\naws_access_key_id = AKD\naws_secret_access_key=SKD \n"
        "[profile dev]\n  region = eu-west-1\nregion=us-west-2\ns3 =\n  endpoint_url = http://no\n"
        "[dev]\n; another\naws_access_key_id=AKDEV\n[broken\nx=y\n";
    char v[64];
    CHECK(ig_ini_get(text, strlen(text), "default", "aws_access_key_id", v, sizeof v));
    CHECK_EQ_STR(v, "AKD");
    CHECK(ig_ini_get(text, strlen(text), "default", "aws_secret_access_key", v, sizeof v));
    CHECK_EQ_STR(v, "SKD");
    /* an indented line belongs to a nested block: the top-level key wins */
    CHECK(ig_ini_get(text, strlen(text), "profile dev", "region", v, sizeof v));
    CHECK_EQ_STR(v, "us-west-2");
    CHECK(!ig_ini_get(text, strlen(text), "profile dev", "endpoint_url", v, sizeof v));
    CHECK(ig_ini_get(text, strlen(text), "dev", "aws_access_key_id", v, sizeof v));
    CHECK_EQ_STR(v, "AKDEV");
    CHECK(!ig_ini_get(text, strlen(text), "broken", "x", v, sizeof v));
    CHECK(!ig_ini_get(text, strlen(text), "nope", "aws_access_key_id", v, sizeof v));
}

struct fake_env {
    const char *names[16], *values[16];
    int n;
};

static const char *fake_getenv(void *ctx, const char *name)
{
    struct fake_env *e = ctx;
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->names[i], name)) return e->values[i];
    return NULL;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_config_as_aws_tools_read_it(void)
{
    char dir[] = "/tmp/ingot-s3cfg.XXXXXX";
    REQUIRE(mkdtemp(dir));
    char creds[256], conf[256];
    snprintf(creds, sizeof creds, "%s/credentials", dir);
    snprintf(conf, sizeof conf, "%s/config", dir);
    write_text(
        creds,
        "[default]\naws_access_key_id=AKFILE\naws_secret_access_key=SKFILE\n"
        "[team]\naws_access_key_id=AKTEAM\naws_secret_access_key=SKTEAM\naws_session_token=TOK\n");
    write_text(conf,
               "[default]\nregion=eu-central-1\n[profile team]\nregion=ap-south-1\n"
               "endpoint_url=http://127.0.0.1:9000/\n[profile cfgonly]\naws_access_key_id=AKC\n"
               "aws_secret_access_key=SKC\n");
    struct ig_s3_config c;
    struct ig_error e = {0};
    /* environment keys win; region from the default profile's config */
    struct fake_env env = {{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                            "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"},
                           {"AKENV", "SKENV", creds, conf},
                           4};
    REQUIRE(ig_s3_config_load_from(&c, fake_getenv, &env, &e) == 0);
    CHECK_EQ_STR(c.access_key, "AKENV");
    CHECK_EQ_STR(c.region, "eu-central-1");
    CHECK_EQ_STR(c.endpoint, "https://s3.eu-central-1.amazonaws.com");
    CHECK(!c.path_style);
    /* a profile: keys and token from credentials, region and endpoint from config */
    struct fake_env env2 = {{"AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"},
                            {"team", creds, conf},
                            3};
    REQUIRE(ig_s3_config_load_from(&c, fake_getenv, &env2, &e) == 0);
    CHECK_EQ_STR(c.access_key, "AKTEAM");
    CHECK_EQ_STR(c.session_token, "TOK");
    CHECK_EQ_STR(c.region, "ap-south-1");
    CHECK_EQ_STR(c.endpoint, "http://127.0.0.1:9000");
    CHECK(c.path_style);
    /* AWS_REGION and AWS_ENDPOINT_URL over the files */
    struct fake_env env3 = {{"AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
                             "AWS_REGION", "AWS_ENDPOINT_URL"},
                            {"team", creds, conf, "us-west-1", "http://localhost:7480"},
                            5};
    REQUIRE(ig_s3_config_load_from(&c, fake_getenv, &env3, &e) == 0);
    CHECK_EQ_STR(c.region, "us-west-1");
    CHECK_EQ_STR(c.endpoint, "http://localhost:7480");
    /* keys in the config file only */
    struct fake_env env4 = {{"AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"},
                            {"cfgonly", creds, conf},
                            3};
    REQUIRE(ig_s3_config_load_from(&c, fake_getenv, &env4, &e) == 0);
    CHECK_EQ_STR(c.access_key, "AKC");
    /* the files under HOME/.aws */
    char aws[300];
    snprintf(aws, sizeof aws, "%s/.aws", dir);
    mkdir(aws, 0700);
    char c2[400];
    snprintf(c2, sizeof c2, "%s/credentials", aws);
    write_text(c2, "[default]\naws_access_key_id=AKHOME\naws_secret_access_key=SKHOME\n");
    struct fake_env env5 = {{"HOME"}, {dir}, 1};
    REQUIRE(ig_s3_config_load_from(&c, fake_getenv, &env5, &e) == 0);
    CHECK_EQ_STR(c.access_key, "AKHOME");
    CHECK_EQ_STR(c.region, "us-east-1");
    /* nothing anywhere: a message that says what to set */
    struct fake_env none = {{"AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"},
                            {"ghost", creds, conf},
                            3};
    CHECK(ig_s3_config_load_from(&c, fake_getenv, &none, &e) == -ENOKEY);
    CHECK(strstr(e.msg, "AWS_ACCESS_KEY_ID") && strstr(e.msg, "ghost"));
    /* endpoints that are not scheme://host[:port] */
    const char *bad[] = {"ftp://x", "http://", "http://h/path", "http://h p", "localhost:9000"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct fake_env b = {{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL"},
                             {"a", "b", bad[i]},
                             3};
        CHECK(ig_s3_config_load_from(&c, fake_getenv, &b, &e) == -EINVAL);
    }
    unlink(c2);
    rmdir(aws);
    unlink(creds);
    unlink(conf);
    rmdir(dir);
}

static void test_url_split(void)
{
    char b[64], p[256];
    struct ig_error e = {0};
    REQUIRE(ig_s3_url_split("s3://my-bucket/a/b/", b, sizeof b, p, sizeof p, &e) == 0);
    CHECK_EQ_STR(b, "my-bucket");
    CHECK_EQ_STR(p, "a/b");
    REQUIRE(ig_s3_url_split("s3://my.bucket", b, sizeof b, p, sizeof p, &e) == 0);
    CHECK_EQ_STR(p, "");
    const char *bad[] = {"s3://ab/x",        "s3://a b/x",       "http://bucket/x",
                         "s3://bucket/a//b", "s3://bucket/../x", "s3://bucket/a/./b",
                         "s3://bucket/a\nb"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(ig_s3_url_split(bad[i], b, sizeof b, p, sizeof p, &e) == -EINVAL);
}

static void test_xml_scanning(void)
{
    const char *t = "<?xml version=\"1.0\"?><ListBucketResult><KeyCount>2</KeyCount>"
                    "<Contents><Key>a&amp;b</Key><Size>10</Size></Contents>"
                    "<Contents><Key>c&#x2F;d&#47;&lt;&quot;</Key><Size>3</Size></Contents><Empty/>"
                    "<IsTruncated>false</IsTruncated></ListBucketResult>";
    size_t pos = 0, cl;
    const char *c;
    char v[64];
    int n = 0;
    while (ig_xml_next(t, strlen(t), &pos, "Contents", &c, &cl)) {
        CHECK(ig_xml_get(c, cl, "Key", v, sizeof v));
        CHECK_EQ_STR(v, n == 0 ? "a&b" : "c/d/<\"");
        n++;
    }
    CHECK_EQ_INT(n, 2);
    /* <Key> is not <KeyCount> */
    CHECK(ig_xml_get(t, strlen(t), "KeyCount", v, sizeof v) && !strcmp(v, "2"));
    pos = 0;
    CHECK(ig_xml_next(t, strlen(t), &pos, "Empty", &c, &cl) && cl == 0);
    /* truncated, malformed, too long */
    CHECK(!ig_xml_get("<Key>abc", 8, "Key", v, sizeof v));
    CHECK(!ig_xml_get("<Key>a&bogus;</Key>", 19, "Key", v, sizeof v));
    CHECK(!ig_xml_get("<Key>a&#0;</Key>", 16, "Key", v, sizeof v));
    CHECK(!ig_xml_get("<Key>abcdef</Key>", 17, "Key", v, 4));
    CHECK(ig_xml_escape("a<b&\"c'", v, sizeof v));
    CHECK_EQ_STR(v, "a&lt;b&amp;&quot;c&apos;");
}

static void test_ranges_coalesce_and_split(void)
{
    struct ig_range r[] = {{100, 10}, {0, 10}, {10, 5}, {50, 0}, {200, 50}, {105, 20}, {30, 5}};
    size_t n = ig_ranges_coalesce(r, 7, 0);
    REQUIRE(n == 4);
    CHECK(r[0].off == 0 && r[0].len == 15);
    CHECK(r[1].off == 30 && r[1].len == 5);
    CHECK(r[2].off == 100 && r[2].len == 25);
    CHECK(r[3].off == 200 && r[3].len == 50);
    n = ig_ranges_coalesce(r, n, 20); /* gaps of 15 and 65 and 75: the first merges */
    REQUIRE(n == 3);
    CHECK(r[0].off == 0 && r[0].len == 35);
    struct ig_range out[16];
    struct ig_range big = {1000, 10};
    n = ig_ranges_split(&big, 1, 3, out, 16);
    REQUIRE(n == 4);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(out[i].off == 1000 + total && out[i].len <= 3 && out[i].len > 0);
        total += out[i].len;
    }
    CHECK(total == 10);
    CHECK(ig_ranges_split(&big, 1, 1, out, 4) == SIZE_MAX);
}

/* Every byte covered once, in order; dirty bytes uploaded; parts within the
 * store's limits; copies only of bytes the old object had. */
static void check_plan(uint64_t size, uint64_t src, const struct ig_range *d, size_t nd,
                       uint64_t min)
{
    struct ig_part_plan p[4096];
    size_t n = ig_ranges_plan_parts(size, src, d, nd, min, 8 * min, 4 * min, p, 4096);
    REQUIRE(n != SIZE_MAX);
    uint64_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(p[i].off == pos && p[i].len > 0);
        if (i + 1 < n) CHECK(p[i].len >= min);
        CHECK(p[i].len <= (p[i].upload ? 4 * min : 8 * min));
        if (!p[i].upload) {
            CHECK(p[i].off + p[i].len <= src);
            for (size_t k = 0; k < nd; k++)
                CHECK(d[k].off + d[k].len <= p[i].off || d[k].off >= p[i].off + p[i].len);
        }
        pos += p[i].len;
    }
    CHECK(pos == size);
}

static void test_multipart_plans(void)
{
    const uint64_t M = 100;
    struct ig_range d1[] = {{5000, 10}};
    check_plan(10000, 10000, d1, 1, M); /* one change in the middle */
    struct ig_range d2[] = {{0, 1}, {9999, 1}};
    check_plan(10000, 10000, d2, 2, M); /* both ends */
    struct ig_range d3[] = {{1000, 5}, {1050, 5}, {1180, 5}, {5000, 10}};
    check_plan(10000, 10000, d3, 4, M);   /* close changes share a part */
    check_plan(10000, 10000, NULL, 0, M); /* nothing changed: all copied */
    struct ig_range d4[] = {{200, 10}, {10500, 100}};
    check_plan(11000, 10000, d4, 2, M); /* grown: moved pages past the old end */
    check_plan(10050, 10000, d1, 1, M); /* grown by less than a part */
    check_plan(150, 150, d1, 0, M);     /* smaller than a part */
    /* how much is uploaded for one small change: about a part */
    struct ig_part_plan p[64];
    size_t n = ig_ranges_plan_parts(10000, 10000, d1, 1, M, 8 * M, 4 * M, p, 64);
    uint64_t up = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].upload) up += p[i].len;
    CHECK(up >= 10 && up <= 2 * M);
    /* random changes */
    for (int trial = 0; trial < 300; trial++) {
        struct ig_range d[20];
        size_t nd = (size_t)(rand() % 20);
        uint64_t size = 1 + (uint64_t)(rand() % 20000),
                 src = size - (uint64_t)(rand() % (size < 500 ? size : 500));
        for (size_t i = 0; i < nd; i++) {
            d[i].off = (uint64_t)rand() % size;
            d[i].len = 1 + (uint64_t)rand() % 50;
            if (d[i].off + d[i].len > size) d[i].len = size - d[i].off;
        }
        nd = ig_ranges_coalesce(d, nd, 0);
        check_plan(size, src, d, nd, M);
    }
}

static void test_rcache_reads_claims_and_evicts(void)
{
    struct ig_rcache *c = ig_rcache_new(100);
    struct ig_rc_obj *o = ig_rc_obj_new(c);
    uint8_t buf[64];
    struct ig_range g[8];
    size_t ng;
    bool more;
    ig_rc_read(o, buf, 10, 0, g, 8, &ng, &more);
    REQUIRE(ng == 1 && !more && g[0].off == 0 && g[0].len == 10);
    /* while claimed, a prefetch of the same bytes claims nothing */
    CHECK(ig_rc_claim(o, 0, 10, false, g + 1, 7) == 0);
    uint8_t *d = malloc(10);
    for (int i = 0; i < 10; i++)
        d[i] = (uint8_t)i;
    ig_rc_fill(o, 0, 10, d);
    CHECK(ig_rc_has(o, 0, 10));
    /* a read across cached and missing bytes: copies one, claims the rest */
    memset(buf, 0xff, sizeof buf);
    ig_rc_read(o, buf, 20, 5, g, 8, &ng, &more);
    REQUIRE(ng == 1 && g[0].off == 10 && g[0].len == 15);
    CHECK(buf[0] == 5 && buf[4] == 9);
    ig_rc_fill(o, 10, 15, NULL); /* the fetch failed: the claim goes */
    CHECK(!ig_rc_has(o, 10, 1));
    CHECK(ig_rc_claim(o, 10, 15, false, g, 8) == 1);
    ig_rc_fill(o, 10, 15, calloc(1, 15));
    CHECK(ig_rc_has(o, 0, 25));
    /* over budget: the least recently used goes */
    CHECK(ig_rc_claim(o, 100, 80, false, g, 8) == 1);
    ig_rc_fill(o, 100, 80, calloc(1, 80));
    CHECK(ig_rcache_bytes(c) <= 100);
    CHECK(ig_rc_has(o, 100, 80));
    CHECK(!ig_rc_has(o, 0, 10));
    /* larger than the whole cache: not kept */
    CHECK(ig_rc_claim(o, 1000, 500, false, g, 8) == 1);
    ig_rc_fill(o, 1000, 500, calloc(1, 500));
    CHECK(!ig_rc_has(o, 1000, 1));
    /* more gaps than room: the rest left unclaimed */
    struct ig_rc_obj *o2 = ig_rc_obj_new(c);
    for (uint64_t k = 0; k < 5; k++) {
        CHECK(ig_rc_claim(o2, 2 * k, 1, false, g, 8) == 1);
        ig_rc_fill(o2, 2 * k, 1, calloc(1, 1));
    }
    /* the stretches a range holds: how often readers came to it */
    CHECK(ig_rc_pieces(o2, 0, 10) == 5);
    CHECK(ig_rc_pieces(o2, 3, 4) == 2);
    CHECK(ig_rc_pieces(o2, 9, 100) == 0);
    ig_rc_read(o2, buf, 10, 0, g, 2, &ng, &more);
    CHECK(ng == 2 && more);
    ig_rc_fill(o2, g[0].off, g[0].len, NULL);
    ig_rc_fill(o2, g[1].off, g[1].len, NULL);
    ig_rc_obj_free(o2);
    ig_rc_obj_free(o);
    CHECK(ig_rcache_bytes(c) == 0);
    ig_rcache_free(c);
}

/* A pinned extent's bytes stay while pinned: evicted, or its object freed,
 * it leaves the index and the budget at once and is freed by the last unpin
 * (ASan says whether anything leaked or was read after its free). */
static void test_rcache_pins_outlive_eviction(void)
{
    struct ig_rcache *c = ig_rcache_new(100);
    struct ig_rc_obj *o = ig_rc_obj_new(c);
    struct ig_range g[8];
    void *pin = (void *)1, *pin2 = NULL;
    /* nothing there, or pending: no pin */
    CHECK(ig_rc_pin(o, 0, 10, &pin) == NULL && pin == NULL);
    REQUIRE(ig_rc_claim(o, 0, 60, false, g, 8) == 1);
    CHECK(ig_rc_pin(o, 0, 10, &pin) == NULL && pin == NULL);
    uint8_t *d = malloc(60);
    for (int i = 0; i < 60; i++)
        d[i] = (uint8_t)i;
    ig_rc_fill(o, 0, 60, d);
    const uint8_t *p = ig_rc_pin(o, 10, 20, &pin);
    REQUIRE(p && pin && p[0] == 10 && p[19] == 29);
    CHECK(ig_rc_pin(o, 50, 20, &pin2) == NULL && !pin2); /* runs past the extent */
    const uint8_t *q = ig_rc_pin(o, 0, 60, &pin2);
    CHECK(q && pin2 == pin && q[59] == 59); /* two pins of one extent */
    /* across two extents: not one stretch, no pin */
    REQUIRE(ig_rc_claim(o, 60, 10, false, g, 8) == 1);
    ig_rc_fill(o, 60, 10, calloc(1, 10));
    void *pin3 = NULL;
    CHECK(ig_rc_pin(o, 55, 10, &pin3) == NULL && !pin3);
    /* evicted while pinned: out of the budget and the index, bytes intact */
    REQUIRE(ig_rc_claim(o, 200, 80, false, g, 8) == 1);
    ig_rc_fill(o, 200, 80, calloc(1, 80));
    CHECK(!ig_rc_has(o, 0, 60));
    CHECK(ig_rcache_bytes(c) <= 100);
    CHECK(p[0] == 10 && p[19] == 29);
    ig_rc_unpin(pin);
    CHECK(p[5] == 15); /* still pinned once */
    /* the range can be fetched again meanwhile (a new extent) */
    CHECK(ig_rc_claim(o, 0, 60, false, g, 8) == 1);
    ig_rc_fill(o, 0, 60, calloc(1, 60));
    ig_rc_unpin(pin2); /* the last: freed */
    ig_rc_unpin(NULL);
    /* the object freed while an extent is pinned */
    p = ig_rc_pin(o, 0, 60, &pin);
    REQUIRE(p && pin);
    ig_rc_obj_free(o);
    CHECK(ig_rcache_bytes(c) == 0);
    CHECK(p[59] == 0);
    ig_rc_unpin(pin);
    ig_rcache_free(c);
}

/* A range fetched ahead and then read through (in any order, pins and
 * copies alike) is spent: the next fetch's buffer is its buffer, and it
 * leaves the cache; one partly read, pinned, or fetched for a waiting reader
 * (not ahead) is kept. */
static void test_rcache_spent_ranges_lend_their_buffers(void)
{
    struct ig_rcache *c = ig_rcache_new(1000);
    struct ig_rc_obj *o = ig_rc_obj_new(c);
    struct ig_range g[8];
    size_t ng;
    bool more;
    uint8_t buf[100];
    REQUIRE(ig_rc_claim(o, 0, 100, true, g, 8) == 1);
    uint8_t *d = malloc(100);
    memset(d, 7, 100);
    ig_rc_fill(o, 0, 100, d);
    REQUIRE(ig_rc_claim(o, 100, 50, false, g, 8) == 1); /* a reader's own fetch */
    ig_rc_fill(o, 100, 50, calloc(1, 50));
    /* nothing spent yet: a fresh buffer */
    void *b = ig_rc_buffer(c, 100);
    REQUIRE(b);
    CHECK(b != d);
    free(b);
    /* read out of order, with overlaps, one stretch short of the end */
    void *pin = NULL, *pin2 = NULL;
    CHECK(ig_rc_pin(o, 40, 30, &pin) == d + 40);
    ig_rc_unpin(pin);
    ig_rc_read(o, buf, 30, 0, g, 8, &ng, &more);
    CHECK(ng == 0 && buf[29] == 7);
    CHECK(ig_rc_pin(o, 20, 30, &pin) == d + 20);
    ig_rc_unpin(pin);
    b = ig_rc_buffer(c, 100);
    CHECK(b != d); /* [70, 100) unread: kept */
    free(b);
    CHECK(ig_rc_has(o, 0, 100));
    /* the last stretch, still pinned: spent, but its buffer is not lent */
    CHECK(ig_rc_pin(o, 65, 35, &pin) == d + 65);
    b = ig_rc_buffer(c, 100);
    CHECK(b != d);
    free(b);
    ig_rc_unpin(pin);
    /* unpinned: its buffer is the next fetch's (its bytes in it: realloc'd to
     * the size asked for, moved or not), the extent gone */
    b = ig_rc_buffer(c, 100);
    REQUIRE(b);
    CHECK(((uint8_t *)b)[0] == 7 && ((uint8_t *)b)[99] == 7);
    CHECK(!ig_rc_has(o, 0, 1));
    CHECK(ig_rcache_bytes(c) == 50);
    free(b);
    /* a reader's own fetch read through is never spent */
    ig_rc_read(o, buf, 50, 100, g, 8, &ng, &more);
    CHECK(ng == 0);
    b = ig_rc_buffer(c, 50);
    CHECK(ig_rc_has(o, 100, 50));
    free(b);
    /* a spent range read again stays spent (a later pin is no reuse) */
    REQUIRE(ig_rc_claim(o, 200, 10, true, g, 8) == 1);
    d = malloc(10);
    ig_rc_fill(o, 200, 10, d);
    CHECK(ig_rc_pin(o, 200, 10, &pin) == d);
    CHECK(ig_rc_pin(o, 200, 4, &pin2) == d);
    ig_rc_unpin(pin);
    ig_rc_unpin(pin2);
    b = ig_rc_buffer(c, 20); /* to the size asked for */
    REQUIRE(b);
    memset(b, 1, 20);
    CHECK(!ig_rc_has(o, 200, 1));
    free(b);
    ig_rc_obj_free(o);
    CHECK(ig_rcache_bytes(c) == 0);
    ig_rcache_free(c);
}

/* A check recorded with a pinned extent is found by the next pin of the
 * same range, not of another; a new extent of the same bytes (fetched
 * again) has none. */
static void test_rcache_checks_are_remembered(void)
{
    struct ig_rcache *c = ig_rcache_new(1000);
    struct ig_rc_obj *o = ig_rc_obj_new(c);
    struct ig_range g[8];
    REQUIRE(ig_rc_claim(o, 0, 100, false, g, 8) == 1);
    ig_rc_fill(o, 0, 100, calloc(1, 100));
    void *pin = NULL, *pin2 = NULL;
    REQUIRE(ig_rc_pin(o, 10, 20, &pin));
    CHECK(!ig_rc_checked(pin, 10, 20));
    ig_rc_set_checked(pin, 10, 20);
    ig_rc_unpin(pin);
    REQUIRE(ig_rc_pin(o, 10, 20, &pin2));
    CHECK(ig_rc_checked(pin2, 10, 20));
    CHECK(!ig_rc_checked(pin2, 10, 21) && !ig_rc_checked(pin2, 0, 20));
    /* a ring of the latest: the oldest forgotten */
    for (uint64_t k = 0; k < 8; k++)
        ig_rc_set_checked(pin2, 40 + k, 1);
    CHECK(!ig_rc_checked(pin2, 10, 20) && ig_rc_checked(pin2, 47, 1));
    ig_rc_unpin(pin2);
    CHECK(!ig_rc_checked(NULL, 0, 1));
    ig_rc_obj_free(o);
    o = ig_rc_obj_new(c);
    REQUIRE(ig_rc_claim(o, 0, 100, false, g, 8) == 1);
    ig_rc_fill(o, 0, 100, calloc(1, 100));
    REQUIRE(ig_rc_pin(o, 47, 1, &pin));
    CHECK(!ig_rc_checked(pin, 47, 1));
    ig_rc_unpin(pin);
    ig_rc_obj_free(o);
    ig_rcache_free(c);
}

struct waiter {
    struct ig_rc_obj *o;
    uint8_t got[4];
    size_t ng;
};

static void *wait_read(void *arg)
{
    struct waiter *w = arg;
    struct ig_range g[4];
    bool more;
    ig_rc_read(w->o, w->got, 4, 0, g, 4, &w->ng, &more);
    return NULL;
}

static void test_rcache_waits_for_a_claim(void)
{
    struct ig_rcache *c = ig_rcache_new(1000);
    struct ig_rc_obj *o = ig_rc_obj_new(c);
    struct ig_range g[2];
    REQUIRE(ig_rc_claim(o, 0, 4, false, g, 2) == 1);
    struct waiter w = {o, {0}, 99};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, wait_read, &w) == 0);
    usleep(20000);
    uint8_t *d = malloc(4);
    memcpy(d, "abcd", 4);
    ig_rc_fill(o, 0, 4, d);
    pthread_join(t, NULL);
    CHECK(w.ng == 0 && !memcmp(w.got, "abcd", 4)); /* served from the fill, not fetched again */
    ig_rc_obj_free(o);
    ig_rcache_free(c);
}

static int count_names(void *ctx, const struct ig_obj_info *o)
{
    struct ig_buf *b = ctx;
    ig_buf_printf(b, "%s=%llu;", o->name, (unsigned long long)o->size);
    return 0;
}

static void test_local_store(void)
{
    char dir[] = "/tmp/ingot-store.XXXXXX";
    REQUIRE(mkdtemp(dir));
    struct ig_store *st;
    struct ig_error e = {0};
    REQUIRE(ig_store_at(dir, &st, &e) == 0);
    CHECK(!ig_store_remote(st));
    struct ig_obj_info info;
    REQUIRE(ig_store_write(st, "MANIFEST", "hello", 5, NULL, &info, &e) == 0);
    /* create-only refuses an existing name; if-match refuses another ETag */
    struct ig_store_cond absent = {NULL, true}, stale = {"0-0-0", false};
    CHECK(ig_store_write(st, "MANIFEST", "x", 1, &absent, NULL, &e) == -EEXIST);
    CHECK(ig_store_write(st, "MANIFEST", "x", 1, &stale, NULL, &e) == -ESTALE);
    struct ig_store_cond match = {info.etag, false};
    usleep(2000);
    CHECK(ig_store_write(st, "MANIFEST", "world!", 6, &match, NULL, &e) == 0);
    struct ig_buf b = IG_BUF_INIT;
    REQUIRE(ig_store_read(st, "MANIFEST", 100, &b, NULL, &e) == 0);
    CHECK(b.len == 6 && !memcmp(b.data, "world!", 6));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/.ingot", dir);
    mkdir(sub, 0755);
    REQUIRE(ig_store_write(st, ".ingot/erasures", "a\n", 2, NULL, NULL, &e) == 0);
    ig_buf_reset(&b);
    REQUIRE(ig_store_list(st, "", false, count_names, &b, &e) == 0);
    CHECK(b.len && strstr((const char *)b.data, "MANIFEST=6;") &&
          strstr((const char *)b.data, ".ingot/erasures=2;"));
    struct ig_obj *o;
    REQUIRE(ig_obj_open(st, "MANIFEST", NULL, &o, &e) == 0);
    char two[2];
    CHECK(ig_obj_read(o, two, 2, 3, &e) == 0 && !memcmp(two, "ld", 2));
    CHECK(ig_obj_read(o, two, 2, 5, &e) == -EIO); /* past the end */
    ig_obj_close(o);
    CHECK(ig_store_read(st, "../etc/passwd", 10, &b, NULL, &e) == -EINVAL);
    CHECK(ig_store_remove(st, "MANIFEST", NULL, &e) == 0);
    CHECK(ig_store_remove(st, "MANIFEST", NULL, &e) == 0);
    CHECK(ig_store_read(st, "MANIFEST", 100, &b, NULL, &e) == -ENOENT);
    ig_store_remove(st, ".ingot/erasures", NULL, &e);
    rmdir(sub);
    rmdir(dir);
    ig_buf_free(&b);
}

TEST_MAIN(T(test_sha256_and_hmac_vectors), T(test_sigv4_matches_aws_example), T(test_uri_encode),
          T(test_ini_files), T(test_config_as_aws_tools_read_it), T(test_url_split),
          T(test_xml_scanning), T(test_ranges_coalesce_and_split), T(test_multipart_plans),
          T(test_rcache_reads_claims_and_evicts), T(test_rcache_pins_outlive_eviction),
          T(test_rcache_waits_for_a_claim), T(test_rcache_spent_ranges_lend_their_buffers),
          T(test_rcache_checks_are_remembered),
          T(test_local_store))
