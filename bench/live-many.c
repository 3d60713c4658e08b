/* live-many — the target of bench/live.sh's snapshot and flame graph
 * measurements: N live allocations (argv[1], default 1,000,000) spread
 * over S distinct call stacks (argv[2], default 100,000), made through a
 * chain of 17 binary choices between two call sites. Prints "ready" when
 * they are all allocated, then waits (stdin closed or SIGTERM) and frees
 * nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LEVELS 17

static void **blocks;
static uint32_t n_blocks;

static void step (uint32_t depth, uint32_t path, uint32_t count);

__attribute__ ((noinline)) static void
left (uint32_t depth, uint32_t path, uint32_t count)
{
  step (depth, path, count);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
right (uint32_t depth, uint32_t path, uint32_t count)
{
  step (depth, path, count);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
step (uint32_t depth, uint32_t path, uint32_t count)
{
  if (depth == 0)
    {
      for (uint32_t i = 0; i < count; i++)
        blocks[n_blocks++] = malloc (16 + (path + i) % 48);
      return;
    }
  if (path & 1)
    left (depth - 1, path >> 1, count);
  else
    right (depth - 1, path >> 1, count);
  __asm__ volatile ("" ::: "memory");
}

int
main (int argc, char **argv)
{
  uint32_t n = argc > 1 ? (uint32_t) strtoul (argv[1], NULL, 10) : 1000000;
  uint32_t stacks = argc > 2 ? (uint32_t) strtoul (argv[2], NULL, 10) : 100000;
  if (stacks == 0 || stacks > (1u << LEVELS))
    stacks = 1u << LEVELS;
  blocks = calloc (n, sizeof *blocks);
  for (uint32_t s = 0; s < stacks; s++)
    {
      uint32_t count = n / stacks + (s < n % stacks);
      step (LEVELS, s, count);
    }
  printf ("ready %u blocks\n", n_blocks);
  fflush (stdout);
  char c;
  while (read (0, &c, 1) > 0)
    ;
  return 0;
}
