/* live-arenas — a program with many threads, hence many glibc arenas
 * (each a 64 MiB heap mapping, aligned to 64 MiB), for bench/live-drops.sh:
 * ARGV[1] threads (default 32), each keeping a ring of ARGV[2] live blocks
 * (default 100000) of 16 to ARGV[4] bytes (default 48: dense regions of
 * the heap) and replacing ARGV[3] of them at random (default 300000).
 * Prints the sum of a byte of each block. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long ring_n = 100000, rounds = 300000, max_size = 48;

static void *
work (void *arg)
{
  uint32_t seed = (uint32_t) (uintptr_t) arg * 2654435761u + 1;
  unsigned char **ring = calloc (ring_n, sizeof *ring);
  unsigned long sum = 0;
  if (ring == NULL)
    return NULL;
  for (unsigned long i = 0; i < ring_n + rounds; i++)
    {
      seed = seed * 1103515245u + 12345u;
      unsigned long slot = i < ring_n ? i : (seed >> 8) % ring_n;
      size_t size = 16 + (seed >> 4) % (max_size - 15);
      free (ring[slot]);
      ring[slot] = malloc (size);
      if (ring[slot] != NULL)
        ring[slot][0] = (unsigned char) i;
    }
  for (unsigned long i = 0; i < ring_n; i++)
    {
      sum += ring[i] != NULL ? ring[i][0] : 0;
      free (ring[i]);
    }
  free (ring);
  return (void *) (uintptr_t) sum;
}

int
main (int argc, char **argv)
{
  unsigned long threads = argc > 1 ? strtoul (argv[1], NULL, 10) : 32;
  if (argc > 2)
    ring_n = strtoul (argv[2], NULL, 10);
  if (argc > 3)
    rounds = strtoul (argv[3], NULL, 10);
  if (argc > 4)
    max_size = strtoul (argv[4], NULL, 10);
  if (threads == 0 || threads > 1024 || ring_n == 0 || max_size < 16)
    return 2;
  pthread_t *tids = calloc (threads, sizeof *tids);
  if (tids == NULL)
    return 1;
  for (unsigned long t = 0; t < threads; t++)
    if (pthread_create (&tids[t], NULL, work, (void *) (uintptr_t) (t + 1)) != 0)
      return 1;
  unsigned long sum = 0;
  for (unsigned long t = 0; t < threads; t++)
    {
      void *r;
      pthread_join (tids[t], &r);
      sum += (unsigned long) (uintptr_t) r;
    }
  free (tids);
  printf ("%lu\n", sum);
  return 0;
}
