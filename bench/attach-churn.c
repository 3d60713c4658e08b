/* attach-churn — the per-call cost after an attach (bench/attach.sh).
 *
 *   attach-churn DIR PAIRS
 *
 * Creates DIR/ready, waits for DIR/go (the attach happens meanwhile, or
 * not), then makes PAIRS malloc+free pairs of 16 to 271 bytes through the
 * PLT (-fno-builtin: no pair elided) and prints "ns_per_pair N". Four
 * worker-free frames deep: the unwinder's share stays small and the same
 * in every configuration. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

__attribute__ ((noinline)) static void
pair (size_t n)
{
  void *p = malloc (n);
  sink = p;
  free (p);
}

__attribute__ ((noinline)) static void
loop (long pairs)
{
  for (long i = 0; i < pairs; i++)
    pair (16 + (size_t) (i % 256));
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: attach-churn DIR PAIRS\n");
      return 2;
    }
  char ready[4096], go[4096];
  snprintf (ready, sizeof ready, "%s/ready", argv[1]);
  snprintf (go, sizeof go, "%s/go", argv[1]);
  long pairs = atol (argv[2]);
  FILE *f = fopen (ready, "w");
  if (f == NULL)
    return 1;
  fclose (f);
  while (access (go, F_OK) != 0)
    {
      struct timespec ms = { 0, 1000000 };
      nanosleep (&ms, NULL);
    }
  uint64_t t0 = now_ns ();
  loop (pairs);
  uint64_t t1 = now_ns ();
  printf ("ns_per_pair %.1f\n", (double) (t1 - t0) / (double) pairs);
  return 0;
}
