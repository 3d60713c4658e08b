/* t-linger MS [exit|segv|abort] — allocates and frees for MS milliseconds
 * (a block every millisecond, the last 16 kept), then exits 0 or dies of
 * SIGSEGV or SIGABRT: a program that outlives a launcher killed meanwhile
 * (test-launcher-killed). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *volatile keep[16];

int
main (int    argc,
      char **argv)
{
  long ms = argc > 1 ? atol (argv[1]) : 1000;
  const char *how = argc > 2 ? argv[2] : "exit";
  struct timespec tick = { 0, 1000000 };
  for (long i = 0; i < ms; i++)
    {
      free (keep[i % 16]);
      keep[i % 16] = malloc (32 + (size_t) (i % 100));
      nanosleep (&tick, NULL);
    }
  if (strcmp (how, "segv") == 0)
    raise (SIGSEGV);
  else if (strcmp (how, "abort") == 0)
    abort ();
  return 0;
}
