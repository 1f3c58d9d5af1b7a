/* cpu.h - what the CPU can run, asked once.
 *
 * The few kernels written for AVX-512 (format/model/float_len_x8.c,
 * format/model/int_len.c, format/enc/stats_x8.c, the escape count in
 * format/model/text_escape.c, the ASCII run in util/utf8.c, the field scan in
 * import/csv.c, fsst's symbol match in format/enc/fsst.c) run only where
 * ig_cpu_avx512() is true and have a scalar path beside them that gives the same answer; their tests compare the
 * two (scripts/test runs every unit test again with INGOT_NO_AVX512=1). IG_X8 marks such a kernel's functions (the compiler may use AVX-512 in
 * them and nowhere else). Set INGOT_NO_AVX512=1 in the environment to take the
 * scalar paths (tests, and a bug report's first question).
 *
 * Likewise IG_BMI2 marks a function built a second time for BMI2's shifts by
 * a register's count (shrx: no count in cl, no flags), run where
 * ig_cpu_bmi2() is true: the same C code, so the same answer
 * (format/enc/huff.c's block decode, whose chain of table lookups is a chain
 * of such shifts). format/model/minmax.c builds a plain C loop under IG_X8
 * the same way, for AVX-512's 64-bit min and max. INGOT_NO_AVX512=1 turns these off too, so that the run of
 * the unit tests with it covers the plain builds. */
#ifndef IG_UTIL_CPU_H
#define IG_UTIL_CPU_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define IG_HAVE_X8 1
#define IG_X8 __attribute__((target("avx512f,avx512dq,avx512cd,avx512vl,avx512bw")))
#define IG_BMI2 __attribute__((target("bmi,bmi2")))
#else
#define IG_HAVE_X8 0
#define IG_X8
#define IG_BMI2
#endif

/* AVX-512 F, DQ, CD, VL and BW, and not turned off by INGOT_NO_AVX512. */
bool ig_cpu_avx512(void);
/* BMI1 and BMI2, and not turned off by INGOT_NO_AVX512. */
bool ig_cpu_bmi2(void);

/* The cores this process may use, at least 1: those of its affinity mask
 * (`taskset -c 0`, a container's cpuset), and no more than its cgroup's CPU
 * bandwidth allows (a container's CPU limit: cgroup v2's cpu.max, v1's
 * cpu.cfs_quota_us over cpu.cfs_period_us, the tightest along the cgroup's
 * ancestors, rounded up), where the machine may have many more. The
 * threads of import, add-column, verify, erase and the daemon are sized
 * from it. Asked each call: the mask and limits can change. */
unsigned ig_cpu_cores(void);

/* The CPU limit in cores (rounded up) of the cgroups that the file
 * proc_cgroup lists (/proc/self/cgroup's format), read under sys_cgroup
 * (where the hierarchies are mounted: /sys/fs/cgroup); 0 when none binds.
 * What ig_cpu_cores asks, with the paths given for tests. */
unsigned ig_cpu_limit_at(const char *proc_cgroup, const char *sys_cgroup);

#endif
