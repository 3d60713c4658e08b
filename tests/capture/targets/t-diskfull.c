/* t-diskfull — a deterministic program whose trace outgrows a small disk:
 * ARGV[1] rounds (default 100000) of churn through a ring of 64 blocks,
 * all freed, then ARGV[2] blocks (default 1000, at most 4096) of 515
 * bytes that are never freed: 101,000 allocations and 515,000 bytes
 * leaked in 1,000 blocks with the defaults. No stdio; exit status 0. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define RING 64
#define LEAK_SIZE 515

static void *ring[RING];
#define MAX_LEAKS 4096

static void *volatile leaks[MAX_LEAKS];
static uint32_t seed = 4242;

static uint32_t
next_rand (void)
{
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

__attribute__ ((noinline)) static void
churn (uint32_t i)
{
  uint32_t slot = i % RING;
  free (ring[slot]);
  ring[slot] = malloc (16 + next_rand () % 1000);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
leak (uint32_t i)
{
  leaks[i] = malloc (LEAK_SIZE);
  __asm__ volatile ("" ::: "memory");
}

int
main (int    argc,
      char **argv)
{
  uint32_t rounds = argc > 1 ? (uint32_t) atoi (argv[1]) : 100000;
  uint32_t n_leaks = argc > 2 ? (uint32_t) atoi (argv[2]) : 1000;
  if (n_leaks > MAX_LEAKS)
    n_leaks = MAX_LEAKS;
  for (uint32_t i = 0; i < rounds; i++)
    churn (i);
  for (uint32_t k = 0; k < RING; k++)
    {
      free (ring[k]);
      ring[k] = NULL;
    }
  for (uint32_t i = 0; i < n_leaks; i++)
    leak (i);
  (void) !write (1, "t-diskfull: done\n", 17);
  return 0;
}
