/* fuzz_parquet_file - a whole Parquet file through the import path, as `ingot
 * import` reads it: the footer, the schema mapping (LIST, MAP, legacy and
 * unannotated repeated fields), every column chunk of every row group, and
 * the levels assembled into rows by ig_parquet_write. fuzz_parquet reaches the
 * footer and chunk decoders one at a time; the rows only come together here,
 * where a crash on valid nested files (push_run) once was. Seeds: the Parquet
 * project's reader test corpus (scripts/fuzz). The part goes to a file in
 * /dev/shm that is never finished, so it is removed after each input. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create (meson passes it too) */
#endif
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/model/schema.h"
#include "format/part/writer.h"
#include "import/parquet.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char part[64];
    if (fd < 0) {
        if ((fd = memfd_create("fuzz_parquet_file", 0)) < 0) return 0;
        snprintf(part, sizeof part, "/dev/shm/fuzz_parquet_file.%ld.part", (long)getpid());
    }
    if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) return 0;

    struct ig_error err = {0};
    struct ig_parquet *pq = NULL;
    if (ig_parquet_open(&pq, fd, size, "fuzz.parquet", &err)) return 0;
    struct ig_schema s = {0};
    struct ig_part_writer *w = NULL;
    struct ig_writer_opts o;
    ig_writer_opts_default(&o);
    o.threads = 1;
    if (!ig_parquet_schema(pq, &s, &err) && !ig_part_writer_open(&w, part, &s, &o, 0, &err))
        (void)ig_parquet_write(pq, w, &s, NULL, NULL, NULL, &err);
    ig_part_writer_free(w); /* never finished: the file is removed */
    ig_schema_free(&s);
    ig_parquet_close(pq);
    return 0;
}
