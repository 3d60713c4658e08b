/* churn — allocation churn benchmark: N malloc/free pairs (argv[1],
 * default 2,000,000) made at recursion depths 5..25 from ~1000 distinct
 * call paths, with a ring of 256 live blocks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING 256
static void *ring[RING];
static uint32_t seed = 1;

static inline uint32_t
rnd (void)
{
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

__attribute__ ((noinline)) static void leaf_a (uint32_t i) { free (ring[i % RING]); ring[i % RING] = malloc (16 + rnd () % 512); }
__attribute__ ((noinline)) static void leaf_b (uint32_t i) { free (ring[i % RING]); ring[i % RING] = malloc (32 + rnd () % 128); }

__attribute__ ((noinline)) static void
descend (uint32_t depth, uint32_t path, uint32_t i)
{
  if (depth == 0)
    {
      if (path & 1)
        leaf_a (i);
      else
        leaf_b (i);
    }
  else if (path & 2)
    descend (depth - 1, path >> 1, i);
  else
    descend (depth - 1, path >> 1, i);
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  uint32_t n = argc > 1 ? (uint32_t) strtoul (argv[1], NULL, 10) : 2000000u;
  for (uint32_t i = 0; i < n; i++)
    descend (5 + rnd () % 21, rnd () % 64, i);
  for (int k = 0; k < RING; k++)
    free (ring[k]);
  printf ("churn: %u pairs\n", n);
  return 0;
}
