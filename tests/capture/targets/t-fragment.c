/* t-fragment LOG — fragments glibc's heap gradually, as a long-running
 * program does: N blocks allocated at once, then every other one freed
 * over about a second (free chunks that cannot coalesce pile up in the
 * bins, and each mallinfo2() call walks them all), then half a second of
 * malloc/free. LOG gets the longest of its own malloc and free calls after
 * the first phase, then its own mallinfo2() figures and how long that call
 * took (test-allocator-stall: the preload must never make one of the
 * program's calls wait as long as mallinfo2() takes). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_BLOCKS   600000
#define BLOCK_SIZE 160

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static uint64_t longest;

static void
timed_free (void *p)
{
  uint64_t t0 = now_ns ();
  free (p);
  uint64_t took = now_ns () - t0;
  if (took > longest)
    longest = took;
}

static void *
timed_malloc (size_t size)
{
  uint64_t t0 = now_ns ();
  void *p = malloc (size);
  uint64_t took = now_ns () - t0;
  if (took > longest)
    longest = took;
  return p;
}

int
main (int    argc,
      char **argv)
{
  if (argc != 2)
    return 2;
  FILE *log = fopen (argv[1], "w");
  void **blocks = malloc (N_BLOCKS * sizeof *blocks);
  if (log == NULL || blocks == NULL)
    return 1;
  for (size_t i = 0; i < N_BLOCKS; i++)
    if ((blocks[i] = malloc (BLOCK_SIZE)) == NULL)
      return 1;
  /* every other block, in a random order (the bins' lists then jump
   * across the whole heap, as after a long run), 1000 at a time, 3 ms
   * apart; a fixed seed: the same run each time */
  size_t n_free = N_BLOCKS / 2;
  size_t *order = malloc (n_free * sizeof *order);
  if (order == NULL)
    return 1;
  for (size_t k = 0; k < n_free; k++)
    order[k] = 2 * k;
  uint64_t x = 88172645463325252u;
  for (size_t k = n_free - 1; k > 0; k--)
    {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      size_t j = (size_t) (x % (k + 1));
      size_t t = order[k];
      order[k] = order[j];
      order[j] = t;
    }
  struct timespec pause = { 0, 3000000 };
  for (size_t k = 0; k < n_free; k++)
    {
      timed_free (blocks[order[k]]);
      blocks[order[k]] = NULL;
      if (k % 1000 == 0)
        nanosleep (&pause, NULL);
    }
  uint64_t end = now_ns () + 500000000u;
  while (now_ns () < end)
    timed_free (timed_malloc (BLOCK_SIZE));
  fprintf (log, "longest_call_ns %llu\n", (unsigned long long) longest);
  uint64_t t0 = now_ns ();
  struct mallinfo2 mi = mallinfo2 ();
  uint64_t took = now_ns () - t0;
  fprintf (log, "mallinfo %zu %zu %zu %zu\n", mi.arena, mi.uordblks, mi.fordblks, mi.hblkhd);
  fprintf (log, "mallinfo_ns %llu\n", (unsigned long long) took);
  fclose (log);
  puts ("done");
  return 0;
}
