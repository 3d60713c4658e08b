/* t-churn — deterministic allocation churn through recursion of varying
 * depth: ARGV[1] rounds (default 20000), a ring of live blocks, a known
 * leak at the end. No stdio. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING 256

static void *ring[RING];
static uint32_t seed = 12345;

static uint32_t
next_rand (void)
{
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

__attribute__ ((noinline)) static void
leaf (uint32_t i)
{
  uint32_t slot = i % RING;
  free (ring[slot]);
  ring[slot] = malloc (16 + next_rand () % 1000);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
descend (uint32_t depth, uint32_t i)
{
  if (depth == 0)
    leaf (i);
  else
    descend (depth - 1, i);
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  uint32_t rounds = argc > 1 ? (uint32_t) atoi (argv[1]) : 20000;
  for (uint32_t i = 0; i < rounds; i++)
    descend (5 + next_rand () % 20, i);
  for (int k = 0; k < RING / 2; k++)
    {
      free (ring[k]);
      ring[k] = NULL;
    }
  /* RING/2 blocks stay reachable (still in ring) at exit */
  (void) !write (1, "t-churn: done\n", 14);
  return 0;
}
