/* t-clock — event times and the recorder's clock word (hl-capture-clock.c).
 * Each step allocates blocks of its own size, so that the test finds their
 * times in `heaplens-cli dump`.
 *
 *   t-clock sleep   1001, 200 ms of sleep, 1002: under `record` (the word
 *                   kept) and without it, the times are 200 ms apart.
 *   t-clock kept    prints whether the session's clock word is kept (by
 *                   `record`) within half a second, and holds the coarse
 *                   clock (at most 10 ms behind it).
 *   t-clock word    run under the preload alone: the target keeps its own
 *                   session's clock word, as a recorder would, and checks
 *                   what the preload makes of it:
 *                   - 2001: the word set to now: the time is the word's;
 *                   - 2002 (300 blocks), 100 ms later: the word is stale;
 *                     at most 255 of them carry it, then the preload sets
 *                     it to 0 (checked here) and reads the clock;
 *                   - 2003: the word set to now + 6 ms: its time;
 *                   - 2004: the word 0, the clock behind the thread's last
 *                     time: the time does not go back;
 *                   - 2005: the word 3 s ahead of the clock: another
 *                     clock, stale: set to 0 (checked here).
 *                   (All after 60 ms: the first 50 read the fine clock.)
 *   t-clock fine    run under the preload alone, the word kept fresh by
 *                   the target: 20 blocks of 3001, 200 µs of spinning
 *                   apart, in the process's first 50 ms read
 *                   CLOCK_MONOTONIC (distinct times, the word ignored);
 *                   3002, 60 ms later, with the word 6 ms ahead: the
 *                   word's time again.
 * Prints "t-clock: ok", or what failed (exit 1). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HEADER_SIZE 4096
#define CLOCK_WORD  3232 /* offset of clock_ns_atomic (docs/shm-layout.md) */

/* The clock the preload and the recorder use. */
static uint64_t
coarse_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
keep (size_t size)
{
  void *volatile p = malloc (size);
  (void) p; /* leaked on purpose: the dump shows its ALLOC */
}

static uint64_t
fine_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* This process's session header, mapped for writing; NULL when none. */
static uint64_t *
own_clock_word (void)
{
  char prefix[64];
  snprintf (prefix, sizeof prefix, "heaplens-%u-%u-", (unsigned) getuid (), (unsigned) getpid ());
  DIR *d = opendir ("/dev/shm");
  if (d == NULL)
    return NULL;
  uint8_t *header = NULL;
  struct dirent *e;
  while (header == NULL && (e = readdir (d)) != NULL)
    {
      if (strncmp (e->d_name, prefix, strlen (prefix)) != 0)
        continue;
      int fd = openat (dirfd (d), e->d_name, O_RDWR | O_NOFOLLOW);
      if (fd < 0)
        continue;
      void *m = mmap (NULL, HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close (fd);
      if (m != MAP_FAILED)
        header = m;
    }
  closedir (d);
  return header != NULL ? (uint64_t *) (void *) (header + CLOCK_WORD) : NULL;
}

static int
word (void)
{
  uint64_t *w = own_clock_word ();
  if (w == NULL)
    {
      printf ("t-clock: no session of this process in /dev/shm\n");
      return 1;
    }
  if (__atomic_load_n (w, __ATOMIC_RELAXED) != 0)
    {
      printf ("t-clock: the clock word is kept already (run without record)\n");
      return 1;
    }
  /* past the preload's first 50 ms, which read the fine clock */
  usleep (60000);
  /* 2001: the word frozen now: fresh, its time */
  __atomic_store_n (w, coarse_ns (), __ATOMIC_RELEASE);
  keep (2001);
  /* 2002: 100 ms later the word is stale: at most 255 blocks carry it,
   * then the preload sets it to 0 and reads the clock */
  usleep (100000);
  for (int i = 0; i < 300; i++)
    keep (2002);
  if (__atomic_load_n (w, __ATOMIC_RELAXED) != 0)
    {
      printf ("t-clock: the stale word was not set to 0\n");
      return 1;
    }
  /* 2003: a word 6 ms ahead of the clock is fresh (within 10 ms): its time */
  __atomic_store_n (w, coarse_ns () + 6000000u, __ATOMIC_RELEASE);
  keep (2003);
  /* 2004: no word, and the clock behind the thread's last time: the time
   * does not go back */
  __atomic_store_n (w, 0, __ATOMIC_RELEASE);
  keep (2004);
  /* 2005: a word 3 s ahead is another clock: stale, set to 0 */
  __atomic_store_n (w, coarse_ns () + 3000000000u, __ATOMIC_RELEASE);
  keep (2005);
  if (__atomic_load_n (w, __ATOMIC_RELAXED) != 0)
    {
      printf ("t-clock: a word 3 s ahead of the clock was not set to 0\n");
      return 1;
    }
  return 0;
}

static int
fine (void)
{
  uint64_t *w = own_clock_word ();
  if (w == NULL)
    {
      printf ("t-clock: no session of this process in /dev/shm\n");
      return 1;
    }
  /* a fresh word, which the first 50 ms do not take */
  __atomic_store_n (w, coarse_ns (), __ATOMIC_RELEASE);
  for (int i = 0; i < 20; i++)
    {
      keep (3001);
      uint64_t until = fine_ns () + 200000u;
      while (fine_ns () < until)
        ;
    }
  usleep (60000);
  __atomic_store_n (w, coarse_ns () + 6000000u, __ATOMIC_RELEASE);
  keep (3002);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "sleep";
  if (strcmp (mode, "sleep") == 0)
    {
      keep (1001);
      usleep (200000);
      keep (1002);
    }
  else if (strcmp (mode, "word") == 0)
    {
      if (word () != 0)
        return 1;
    }
  else if (strcmp (mode, "fine") == 0)
    {
      if (fine () != 0)
        return 1;
    }
  else if (strcmp (mode, "kept") == 0)
    {
      /* is the word kept (by a recorder) within half a second? */
      uint64_t *w = own_clock_word ();
      int kept = 0;
      for (int i = 0; i < 50 && w != NULL && !kept; i++)
        {
          usleep (10000);
          kept = __atomic_load_n (w, __ATOMIC_RELAXED) != 0;
        }
      if (!kept)
        {
          printf ("t-clock: word not kept\n");
          return 0;
        }
      /* and it holds the coarse clock, a tick or two behind at most */
      int64_t off = (int64_t) (coarse_ns () - __atomic_load_n (w, __ATOMIC_RELAXED));
      if (off < -1000000 || off > 10000000)
        printf ("t-clock: word kept, %lld ns off the coarse clock\n", (long long) off);
      else
        printf ("t-clock: word kept\n");
      return 0;
    }
  else
    {
      printf ("usage: t-clock sleep|word|fine|kept\n");
      return 2;
    }
  printf ("t-clock: ok\n");
  return 0;
}
