#include "check.h"

int check_failures;
int check_skipped;
uint64_t check_seed = 0x9E3779B97F4A7C15ULL;

int check_run(const struct test_case *cases, size_t n, int argc, char **argv)
{
    const char *s = getenv("INGOT_SEED");
    if (s && *s) check_seed = strtoull(s, NULL, 0);
    if (check_seed == 0) check_seed = 1;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
        check_failures = 0;
        check_skipped = 0;
        cases[i].fn();
        if (check_skipped && !check_failures) {
            printf("SKIP %s\n", cases[i].name);
        } else if (check_failures) {
            printf("FAIL %s\n", cases[i].name);
            failed++;
        } else {
            printf("PASS %s\n", cases[i].name);
        }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}
