/* t-lifecost — blocks and mappings whose lifetimes the program measures
 * itself, for test-lifecost (issue 30, point 1: the long-lived and mmap
 * costs). Built with -O0 so that every function below is a frame.
 *
 *   life_zero   40 blocks of 1000 bytes, each freed at once
 *   life_long   8 blocks of 3000 bytes, freed after 300 ms
 *   life_never  5 blocks of 7000 bytes, never freed (the program ends
 *               300 ms later)
 *   map_keep    6 anonymous pages mapped and kept
 *   map_drop    3 pages mapped and unmapped at once
 *   map_trim    8 pages mapped, the first 2 unmapped
 *
 * The delays are far from the threshold of the test (100 ms): a loaded
 * machine makes them longer, never shorter, and a block freed at once
 * would need a 100 ms stall between two lines to cross it. Prints, with
 * its own clock (CLOCK_MONOTONIC from each malloc's return to each
 * free's call, or to the end of main):
 *   site NAME bytes B lived_ge_100ms L
 *   map NAME bytes_at_end M */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define T_NS 100000000LL

static long long
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

static long long zero_lived, long_lived, never_born[5];
static void *never[5];

static void
life_zero (void)
{
  for (int i = 0; i < 40; i++)
    {
      void *volatile p = malloc (1000);
      long long born = now_ns ();
      memset (p, 1, 1000);
      if (now_ns () - born >= T_NS)
        zero_lived += 1000;
      free (p);
    }
}

static void
life_long (void)
{
  void *p[8];
  long long born[8];
  for (int i = 0; i < 8; i++)
    {
      p[i] = malloc (3000);
      born[i] = now_ns ();
    }
  sleep_ms (300);
  for (int i = 0; i < 8; i++)
    {
      if (now_ns () - born[i] >= T_NS)
        long_lived += 3000;
      free (p[i]);
    }
}

static void
life_never (void)
{
  for (int i = 0; i < 5; i++)
    {
      never[i] = malloc (7000);
      never_born[i] = now_ns ();
    }
}

static size_t page;

static void *
map_pages (size_t n)
{
  void *p = mmap (NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    exit (3);
  memset (p, 7, n * page);
  return p;
}

static void *
map_keep (void)
{
  return map_pages (6);
}

static void
map_drop (void)
{
  void *p = map_pages (3);
  munmap (p, 3 * page);
}

static void *
map_trim (void)
{
  char *p = map_pages (8);
  munmap (p, 2 * page);
  return p + 2 * page;
}

int
main (void)
{
  page = (size_t) sysconf (_SC_PAGESIZE);
  life_zero ();
  life_never ();
  void *volatile kept = map_keep ();
  map_drop ();
  void *volatile trimmed = map_trim ();
  life_long ();
  sleep_ms (300);
  long long end = now_ns (), never_lived = 0;
  for (int i = 0; i < 5; i++)
    if (end - never_born[i] >= T_NS)
      never_lived += 7000;
  printf ("site life_zero bytes %d lived_ge_100ms %lld\n", 40 * 1000, zero_lived);
  printf ("site life_long bytes %d lived_ge_100ms %lld\n", 8 * 3000, long_lived);
  printf ("site life_never bytes %d lived_ge_100ms %lld\n", 5 * 7000, never_lived);
  printf ("map map_keep bytes_at_end %zu\n", 6 * page);
  printf ("map map_drop bytes_at_end %d\n", 0);
  printf ("map map_trim bytes_at_end %zu\n", 6 * page);
  (void) kept;
  (void) trimmed;
  return 0;
}
