/* verify_int.h - what verify's sources share (not a public interface). */
#ifndef IG_FORMAT_VERIFY_INT_H
#define IG_FORMAT_VERIFY_INT_H

#include <stdint.h>

#include "format/part/table.h"

struct ig_error;

/* Every object and version under a remote table's prefix (verify_remote.c):
 * each that may hold a value no erase reached is reported through fail.
 * *objects: current objects listed, *versions: older versions. */
int ig_verify_objects(const char *dir, const struct ig_table *t,
                      void (*fail)(void *ctx, const char *msg), void *ctx, uint64_t *objects,
                      uint64_t *versions, struct ig_error *err);

#endif
