/* bench-cpu.h — CPU time for the benchmarks (not tests): of the whole
 * process (all threads), or of the calling thread. On a busy machine a
 * wall time says little; these are what the benchmarks compare.
 * Needs clock_gettime: define _POSIX_C_SOURCE (or include hl-config.h)
 * before the first system header. */
#pragma once

#include <time.h>

static inline double
bench_clock_ms (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* CPU milliseconds of the process (all threads). */
static inline double
bench_cpu_ms (void)
{
  return bench_clock_ms (CLOCK_PROCESS_CPUTIME_ID);
}

/* CPU seconds of the process (all threads). */
static inline double
bench_cpu_seconds (void)
{
  return bench_cpu_ms () / 1e3;
}

/* CPU milliseconds of the calling thread. */
static inline double
bench_thread_cpu_ms (void)
{
  return bench_clock_ms (CLOCK_THREAD_CPUTIME_ID);
}
