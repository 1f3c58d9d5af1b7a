/* lib_load.c - loading a library on first use (lib_load.h). */
#include "util/lib_load.h"

#include <dlfcn.h>
#include <stdio.h>

#define MAX_SYMS 32

int ig_lib_load(const char *what, const char *const *names, size_t nnames, const struct ig_lib_sym *syms,
                size_t nsyms, char *why, size_t why_len)
{
    if (nsyms > MAX_SYMS) {
        snprintf(why, why_len, "%s: more than %d functions to look up in %s", what, MAX_SYMS, names[0]);
        return -1;
    }
    void *h = NULL;
    for (size_t i = 0; i < nnames && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, why_len, "%s needs %s, which cannot be loaded: %s", what, names[0], dlerror());
        return -1;
    }
    void *found[MAX_SYMS];
    for (size_t i = 0; i < nsyms; i++) {
        if (!(found[i] = dlsym(h, syms[i].name))) {
            snprintf(why, why_len, "%s needs %s with %s, which the one installed lacks", what, names[0],
                     syms[i].name);
            dlclose(h);
            return -1;
        }
    }
    for (size_t i = 0; i < nsyms; i++)
        *syms[i].slot = found[i];
    return 0;
}
