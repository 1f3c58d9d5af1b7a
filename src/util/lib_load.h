/* lib_load.h - a shared library loaded when a feature first needs it
 * (dlopen), its functions looked up by name: libraries that only some
 * commands use (libcurl for object storage, the codecs of imported Parquet
 * files) stay out of every start, and a machine without them runs everything
 * else. A loaded library stays until the process ends. */
#ifndef INGOT_UTIL_LIB_LOAD_H
#define INGOT_UTIL_LIB_LOAD_H

#include <stddef.h>

/* A function to look up: where its pointer goes and the name it is exported under. */
struct ig_lib_sym {
    void **slot;
    const char *name;
};

/* The first of names[0..nnames) that loads, every sym resolved into its
 * slot: 0. Else -1, the slots untouched, and `why` (why_len bytes) says which
 * library for what (`what`, e.g. "object storage") could not be loaded or
 * lacks which function. Not thread-safe: call it under a pthread_once. */
int ig_lib_load(const char *what, const char *const *names, size_t nnames, const struct ig_lib_sym *syms,
                size_t nsyms, char *why, size_t why_len);

#endif
