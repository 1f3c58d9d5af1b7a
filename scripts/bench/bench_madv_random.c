/* bench_madv_random - LD_PRELOAD shim for an experiment, not part of ingot.
 *
 * Marks every file-backed read-only MAP_SHARED mapping MADV_RANDOM right after
 * mmap, which turns off the kernel's read-around on page faults. In the ingot
 * reader the only such mapping is a part's footer, so this shows what a cold
 * ingot_open would cost if the reader did the same (wide_projection --shim). */
#undef _FILE_OFFSET_BITS /* define mmap and mmap64 ourselves, unrenamed */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

static void *shim(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static mmap_fn real;
    if (!real) real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
    void *p = real(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && fd >= 0 && (flags & MAP_SHARED) && !(prot & PROT_WRITE))
        madvise(p, len, MADV_RANDOM);
    return p;
}

/* mmap and mmap64 are the shim under the names the loader resolves (aliases:
 * no second definition of mmap for a reader of the tree to take for libc's) */
extern __typeof__(shim) mmap __attribute__((alias("shim")));
extern __typeof__(shim) mmap64 __attribute__((alias("shim")));
