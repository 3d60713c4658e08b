/* t-profiles.c — a steady workload for the continuous heap profiles'
 * test (test-profiles.sh): phase=load keeps LIVE blocks of known sizes
 * live to the end, then phase=serve allocates and frees at a steady rate
 * for SECONDS. Prints the truth: the live set and the totals allocated,
 * all it holds at its exit (held_bytes) and the wall-clock time it ended
 * its work at (end_wall_ms: the heap does not change after it).
 * Usage: t-profiles SECONDS [LIVE_BLOCKS] */
#define _POSIX_C_SOURCE 200809L
#include <heaplens.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <time.h>

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* sizes from 16 to 4111 bytes, the same sequence on every run */
static size_t
size_of (uint64_t i)
{
  return 16 + (size_t) ((i * 2654435761u) % 4096);
}

static void * __attribute__ ((noinline))
keep_block (size_t size)
{
  return malloc (size);
}

static void __attribute__ ((noinline))
churn_block (size_t size)
{
  volatile char *p = malloc (size);

  if (p != NULL)
    p[0] = 1;
  free ((void *) p);
}

int
main (int    argc,
      char **argv)
{
  double seconds = argc > 1 ? atof (argv[1]) : 3.0;
  long live = argc > 2 ? atol (argv[2]) : 2048;
  void **kept = calloc ((size_t) live, sizeof *kept);
  uint64_t live_bytes = 0, total_bytes = 0, total_blocks = 0, i = 0;
  uint64_t end;

  if (kept == NULL || seconds <= 0 || live < 0)
    return 2;
  heaplens_metadata_set_string ("phase", "load");
  for (long k = 0; k < live; k++)
    {
      size_t s = size_of ((uint64_t) k + 1000003u);
      kept[k] = keep_block (s);
      live_bytes += s;
      total_bytes += s;
      total_blocks++;
    }
  heaplens_metadata_set_string ("phase", "serve");
  /* 100 blocks every 10 ms: about 20 MB/s */
  end = now_ns () + (uint64_t) (seconds * 1e9);
  while (now_ns () < end)
    {
      struct timespec pause = { 0, 10 * 1000 * 1000 };

      for (int k = 0; k < 100; k++, i++)
        {
          size_t s = size_of (i);
          churn_block (s);
          total_bytes += s;
          total_blocks++;
        }
      nanosleep (&pause, NULL);
    }
  printf ("live_bytes %llu\nlive_blocks %ld\ntotal_bytes %llu\ntotal_blocks %llu\n",
          (unsigned long long) live_bytes, live, (unsigned long long) total_bytes,
          (unsigned long long) total_blocks);
  /* what it holds to its exit, all told: the blocks, their array and
   * stdout's buffer (test-profiles-preload.sh) */
  printf ("held_bytes %llu\n",
          (unsigned long long) (live_bytes + (uint64_t) live * sizeof *kept + __fbufsize (stdout)));
  struct timespec wall;
  clock_gettime (CLOCK_REALTIME, &wall);
  printf ("end_wall_ms %llu\n",
          (unsigned long long) wall.tv_sec * 1000u + (unsigned long long) (wall.tv_nsec / 1000000));
  fflush (stdout);
  /* the live set stays live to the exit (the last profile shows it) */
  return kept[0] == NULL && live > 0;
}
