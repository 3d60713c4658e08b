/* t-sysmem — where the memory the system sees goes, with the program's
 * own figures to check the recording against (test-sysmem):
 *
 * - three phases of heap work, each followed by the program's own call
 *   of mallinfo2() (written to LOG as "mallinfo K arena in_use free
 *   mmapped"), a mark "sysmem-K", a pause longer than the preload's
 *   allocator period and one malloc of a size whose chunk waits in the
 *   tcache (so the figures do not change), at which the preload samples;
 * - anonymous private mappings of known sizes from three functions (a
 *   partial munmap of one, a hole punched in another, an mremap that
 *   grows and moves the third), a file mapping (not counted) and
 *   /proc/self/smaps read at the peak and at the end ("smaps peak N",
 *   "smaps end N": the bytes the kernel has mapped in the program's own
 *   ranges);
 * - calls that fail and calls that succeed with errno set before: their
 *   results and errno go to stdout, the same with and without the preload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "heaplens.h"

static int log_fd = -1;
static size_t page;

/* the program's own ranges: every mapping it made, as made */
static uintptr_t ranges[8][2];
static int n_ranges;

static void
say (const char *line)
{
  (void) !write (log_fd, line, strlen (line));
}

static void
pause_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

static void
phase_end (int k)
{
  char line[256];
  /* a chunk of 24 bytes into the tcache first: the malloc below takes it
   * back without changing what mallinfo2 counts */
  void *volatile k24 = malloc (24); /* volatile: the pair is not optimised away */
  free (k24);
  struct mallinfo2 m = mallinfo2 ();
  snprintf (line, sizeof line, "mallinfo %d %zu %zu %zu %zu\n", k, m.arena, m.uordblks, m.fordblks, m.hblkhd);
  say (line);
  snprintf (line, sizeof line, "sysmem-%d", k);
  heaplens_mark (line);
  pause_ms (250);
  void *volatile t = malloc (24); /* the preload's tick: its allocator sample */
  free (t);
}

/* Bytes the kernel maps (smaps) inside the program's own ranges. */
static uint64_t
smaps_bytes (void)
{
  int fd = open ("/proc/self/smaps", O_RDONLY);
  if (fd < 0)
    return 0;
  static char buf[1 << 20];
  size_t n = 0;
  ssize_t r;
  while (n < sizeof buf - 1 && (r = read (fd, buf + n, sizeof buf - 1 - n)) > 0)
    n += (size_t) r;
  close (fd);
  buf[n] = '\0';
  uint64_t total = 0;
  for (char *l = buf; l != NULL && *l != '\0';)
    {
      char *next = strchr (l, '\n');
      if (next != NULL)
        *next++ = '\0';
      unsigned long lo, hi;
      char rest[256] = "";
      if (sscanf (l, "%lx-%lx %255[^\n]", &lo, &hi, rest) >= 2 && strchr (rest, '/') == NULL)
        for (int i = 0; i < n_ranges; i++)
          {
            uintptr_t a = lo > ranges[i][0] ? lo : ranges[i][0];
            uintptr_t e = hi < ranges[i][1] ? hi : ranges[i][1];
            if (a < e)
              total += e - a;
          }
      l = next;
    }
  return total;
}

static void
keep_range (void *p, size_t len)
{
  ranges[n_ranges][0] = (uintptr_t) p;
  ranges[n_ranges][1] = (uintptr_t) p + len;
  n_ranges++;
}

static __attribute__ ((noinline)) void *
map_big (size_t len)
{
  void *p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED)
    memset (p, 1, len);
  return p;
}

static __attribute__ ((noinline)) void *
map_pages (size_t len)
{
  void *p = mmap64 (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED)
    memset (p, 2, len);
  return p;
}

static __attribute__ ((noinline)) void *
map_growing (size_t len)
{
  void *p = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED)
    memset (p, 3, len);
  return p;
}

int
main (int    argc,
      char **argv)
{
  if (argc < 2)
    return 2;
  log_fd = open (argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log_fd < 0)
    return 2;
  page = (size_t) sysconf (_SC_PAGESIZE);

  /* Heap work: small blocks with holes, medium ones mostly freed, large
   * ones that malloc maps on their own */
  static void *small[4000], *medium[600], *large[5];
  for (int i = 0; i < 4000; i++)
    small[i] = malloc (200);
  for (int i = 0; i < 4000; i += 2)
    free (small[i]);
  phase_end (1);
  for (int i = 0; i < 600; i++)
    medium[i] = malloc (4000);
  for (int i = 0; i < 600; i++)
    if (i % 10 != 0)
      free (medium[i]);
  phase_end (2);
  for (int i = 0; i < 5; i++)
    large[i] = malloc (200 * 1024);
  phase_end (3);

  /* Mappings */
  char *a = map_big (1024 * 1024);
  char *b = map_pages (3 * page);
  char *c = map_growing (64 * 1024);
  if (a == MAP_FAILED || b == MAP_FAILED || c == MAP_FAILED)
    return 3;
  keep_range (a, 1024 * 1024);
  keep_range (b, 3 * page);
  keep_range (c, 64 * 1024);
  /* a file mapping: not the program's anonymous memory */
  int fd = open (argv[0], O_RDONLY);
  void *f = fd >= 0 ? mmap (NULL, page, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  if (fd >= 0)
    close (fd);
  /* a hole in the middle of b */
  if (munmap (b + page, page) != 0)
    return 4;
  /* c grows and (it has a neighbour, or not) moves */
  char *c2 = mremap (c, 64 * 1024, 256 * 1024, MREMAP_MAYMOVE);
  if (c2 == MAP_FAILED)
    return 5;
  memset (c2, 4, 256 * 1024);
  ranges[2][0] = (uintptr_t) c2; /* c is gone, or part of c2 */
  ranges[2][1] = (uintptr_t) c2 + 256 * 1024;
  char line[256];
  snprintf (line, sizeof line, "smaps peak %llu\n", (unsigned long long) smaps_bytes ());
  say (line);
  /* the first quarter of a goes */
  if (munmap (a, 256 * 1024) != 0)
    return 6;
  if (f != MAP_FAILED)
    munmap (f, page);

  /* Results and errno, as without the preload */
  errno = 1234;
  void *ok = mmap (NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int e1 = errno;
  int r1 = munmap (ok, page);
  int e2 = errno;
  void *bad = mmap (NULL, page, PROT_READ, MAP_PRIVATE, 12345, 0);
  int e3 = errno;
  errno = 0;
  int r2 = munmap (a + 1, page);
  int e4 = errno;
  errno = 0;
  void *bad2 = mremap (a + 1, page, 2 * page, 0);
  int e5 = errno;
  printf ("mmap ok: errno %d; munmap %d errno %d; bad fd: %s errno %d; unaligned munmap %d errno %d; "
          "unaligned mremap %s errno %d\n",
          e1, r1, e2, bad == MAP_FAILED ? "MAP_FAILED" : "mapped", e3, r2, e4,
          bad2 == MAP_FAILED ? "MAP_FAILED" : "mapped", e5);

  snprintf (line, sizeof line, "smaps end %llu\n", (unsigned long long) smaps_bytes ());
  say (line);
  for (int i = 0; i < 5; i++)
    free (large[i]);
  close (log_fd);
  printf ("t-sysmem: ok\n");
  return 0;
}
