/* logical_int.h - what the logical type sources share (logical.c,
 * logical_parse.c); not a public interface. */
#ifndef IG_FORMAT_LOGICAL_INT_H
#define IG_FORMAT_LOGICAL_INT_H

#include <stdbool.h>
#include <stddef.h>

/* p[0..n) equals the lowercase word w, ignoring ASCII case: "UTC" in a
 * timestamp's arguments and after a timestamp's clock. */
bool ig_logical_word_is(const char *p, size_t n, const char *w);

#endif
