/* floatbits.h - a float's bits in a 64-bit lane and back: the lanes of int
 * streams hold float32 and float64 values by their bit patterns (a float32 in
 * the low 32 bits). memcpy, so no aliasing rule is bent; the compiler makes it
 * a register move. */
#ifndef IG_UTIL_FLOATBITS_H
#define IG_UTIL_FLOATBITS_H

#include <stdint.h>
#include <string.h>

static inline double ig_lane_f64(uint64_t lane)
{
    double d;
    memcpy(&d, &lane, 8);
    return d;
}

static inline uint64_t ig_f64_lane(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static inline float ig_lane_f32(uint64_t lane)
{
    uint32_t b = (uint32_t)lane;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static inline uint64_t ig_f32_lane(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

#endif
