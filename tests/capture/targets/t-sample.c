/* t-sample — the workload of test-sample: many small allocations of every
 * size from 8 to 4096 bytes, freed in random order, deterministic (its own
 * LCG). Phase 1 holds PEAK_SWEEPS sweeps of all 4089 sizes at once (the
 * peak), then frees them in random order; phase 2 runs ROUNDS rounds of
 * CHURN_SWEEPS sweeps each (at most a quarter of the peak live), each
 * freed in random order. Prints its own counts: allocs, bytes, peak (of
 * the requested bytes it holds). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MIN_SIZE 8u
#define MAX_SIZE 4096u
#define N_SIZES (MAX_SIZE - MIN_SIZE + 1u)

static uint64_t lcg = 0x853c49e6748fea9bull;

static uint32_t
rnd (uint32_t n)
{
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t) ((lcg >> 33) % n);
}

static void
shuffle (uint32_t *a, uint32_t n)
{
  for (uint32_t i = n; i > 1; i--)
    {
      uint32_t j = rnd (i);
      uint32_t t = a[i - 1];
      a[i - 1] = a[j];
      a[j] = t;
    }
}

static uint64_t allocs, bytes, live, peak;

/* SWEEPS sweeps of every size in random order, all held, then freed in
 * random order. */
static void
round_of (uint32_t sweeps, uint32_t *sizes, void **blocks, uint32_t *order)
{
  uint32_t n = sweeps * N_SIZES;
  for (uint32_t i = 0; i < n; i++)
    sizes[i] = MIN_SIZE + i % N_SIZES;
  shuffle (sizes, n);
  for (uint32_t i = 0; i < n; i++)
    {
      blocks[i] = malloc (sizes[i]);
      if (blocks[i] == NULL)
        exit (1);
      ((volatile char *) blocks[i])[0] = 1;
      allocs++;
      bytes += sizes[i];
      live += sizes[i];
      if (live > peak)
        peak = live;
      order[i] = i;
    }
  shuffle (order, n);
  for (uint32_t i = 0; i < n; i++)
    {
      free (blocks[order[i]]);
      live -= sizes[order[i]];
    }
}

int
main (int argc, char **argv)
{
  uint32_t peak_sweeps = argc > 1 ? (uint32_t) atoi (argv[1]) : 16;
  uint32_t churn_sweeps = argc > 2 ? (uint32_t) atoi (argv[2]) : 4;
  uint32_t rounds = argc > 3 ? (uint32_t) atoi (argv[3]) : 8;
  uint32_t most = peak_sweeps > churn_sweeps ? peak_sweeps : churn_sweeps;
  /* the workload's own arrays before anything is counted */
  uint32_t *sizes = malloc (sizeof *sizes * most * N_SIZES);
  uint32_t *order = malloc (sizeof *order * most * N_SIZES);
  void **blocks = malloc (sizeof *blocks * most * N_SIZES);
  if (sizes == NULL || order == NULL || blocks == NULL)
    return 1;
  round_of (peak_sweeps, sizes, blocks, order);
  for (uint32_t r = 0; r < rounds; r++)
    round_of (churn_sweeps, sizes, blocks, order);
  free (sizes);
  free (order);
  free (blocks);
  printf ("allocs=%llu\nbytes=%llu\npeak=%llu\n", (unsigned long long) allocs,
          (unsigned long long) bytes, (unsigned long long) peak);
  return 0;
}
