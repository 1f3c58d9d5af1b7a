/* train_scratch.c - the counters the context trainers (fsst.c, zdict.c) count
 * in, kept by a writer's encoding thread from chunk to chunk (codec.h,
 * struct ig_train_scratch). Apart from context.c, which only parses and
 * writes what they trained, so that neither trainer reaches back into it. */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

uint32_t *enc_train_counters(uint32_t **table, size_t words)
{
    if (!*table) *table = calloc(words, sizeof **table);
    return *table;
}

void ig_train_scratch_free(struct ig_train_scratch *s)
{
    free(s->fsst_pairs);
    free(s->zdict_windows);
    memset(s, 0, sizeof *s);
}
