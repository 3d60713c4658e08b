/* t-marks — a mark repeated: three rounds, each marked "round" and then
 * allocating three blocks of 1000 + round bytes, 2 ms apart, so that
 * `--from "@round#2" --to "@round#3"` selects the second round alone.
 * Prints "t-marks: ok". */
#include <heaplens.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void
spin_ms (int ms)
{
  struct timespec t0, t;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  do
    clock_gettime (CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

int
main (void)
{
  for (int round = 1; round <= 3; round++)
    {
      heaplens_mark ("round");
      spin_ms (2);
      for (int i = 0; i < 3; i++)
        {
          void *volatile p = malloc ((size_t) (1000 + round));
          (void) p; /* kept: each round's blocks are its leak */
        }
      spin_ms (2);
    }
  printf ("t-marks: ok\n");
  return 0;
}
