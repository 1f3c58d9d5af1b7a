/* fuzz_npy - a .npy header (ig_npy_open, ig_npy_size as the mount reads one
 * while it is being written) must never crash its parser, and what it
 * accepts must describe the file: a size that matches, a 2-D array only of
 * float32, a type text. The elements of a datetime64 or timedelta64 array it
 * accepts go through ig_npy_time_lane, whose lanes must fit the column: a
 * date's int32 days, a time of day within the day. The input is the file. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/model/types.h"
#include "import/npy.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("npy", 0);
    if (fd < 0) return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    struct ig_error err = {0};
    struct ig_npy n;
    uint64_t total = 0;
    /* every prefix the mount may have seen: an answer, or "not yet" */
    for (size_t have = 0; have <= size; have += 1 + have / 3) {
        int rc = ig_npy_size(fd, have, "f.npy", &n, &total, &err);
        if (rc == 0 && total < n.data_off) abort();
        if (rc != 0 && rc != -EAGAIN && rc != -EINVAL) abort();
    }
    if (ig_npy_open(fd, size, "f.npy", &n, &err) == 0) {
        uint64_t per_row = (uint64_t)n.width * (n.dim ? n.dim : 1);
        if (n.data_off + n.rows * per_row != size) abort();
        if (n.dim && (n.type != IG_T_FLOAT32 || n.lt.kind)) abort();
        char type[64];
        if (ig_npy_type_text(&n, type, sizeof type)) abort();
        static const int64_t day[] = {0, 86400, 86400000, 86400000000, 86400000000000};
        for (uint64_t r = 0; n.lt.kind && r < n.rows; r++) {
            uint64_t lane = 0;
            int t = ig_npy_time_lane(&n, data + n.data_off + r * 8, &lane);
            if (t < 0 && t != -ERANGE) abort();
            if (t != 0) continue;
            int64_t v = (int64_t)lane;
            if (n.type == IG_T_INT32 && (v < INT32_MIN || v > INT32_MAX)) abort();
            if (n.lt.kind == IG_LT_TIME && (v < 0 || v >= day[n.lt.unit])) abort();
        }
    }
    close(fd);
    return 0;
}
