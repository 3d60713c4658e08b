/* t-nofp — built without frame pointers: ARGV[1] (default 50000)
 * malloc/free pairs from one loop, so that HEAPLENS_UNWIND=fp finds its
 * stacks incomplete, switches to the DWARF unwinder, and keeps allocating
 * from the very same stack states after the switch. No stdio. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

__attribute__ ((noinline)) static void
churn (uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    {
      void *p = malloc (24 + (i & 7) * 8);
      keep = p;
      free (p);
    }
}

int
main (int    argc,
      char **argv)
{
  uint32_t n = argc > 1 ? (uint32_t) strtoul (argv[1], NULL, 10) : 50000u;
  churn (n);
  (void) !write (1, "t-nofp: done\n", 13);
  return 0;
}
