/* t-entry — every allocator entry point once or more, deterministic, no
 * stdio (libc allocates nothing of its own). Leaks a known set. Checks
 * that errno survives successful calls, and exits with status 3. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heaplens.h"

static void
say (const char *s)
{
  (void) !write (1, s, strlen (s));
}

/* A block the compiler knows nothing of: from -O1 on, GCC removes an
 * allocation whose block is only freed (realloc (NULL, n) and
 * aligned_alloc below: 23 allocations at -O0 were 21 at -O2), and takes
 * the alignment aligned_alloc and memalign return as given (alloc_align),
 * folding the checks. Every build makes the same calls. */
static void *
opaque (void *p)
{
  __asm__ volatile ("" : "+r" (p) :: "memory");
  return p;
}

/* alone in its section: the linker's __start_/__stop_ symbols bound it
 * whatever its size (it is larger at -O0) */
__attribute__ ((noinline, section ("hl_site"))) static void *
alloc_site (size_t n)
{
  void *p = malloc (n);
  __asm__ volatile ("" ::: "memory");
  return p;
}

extern char __start_hl_site[], __stop_hl_site[];

static int failures;

static void
check (int ok, const char *what)
{
  if (!ok)
    {
      say ("FAIL ");
      say (what);
      say ("\n");
      failures++;
    }
}

int
main (int    argc,
      char **argv)
{
  /* Valgrind does not implement pvalloc: the oracle run leaves it out */
  int with_pvalloc = !(argc > 1 && strcmp (argv[1], "--no-pvalloc") == 0);
  heaplens_metadata_set_int ("site_lo", (int64_t) (uintptr_t) __start_hl_site);
  heaplens_metadata_set_int ("site_hi", (int64_t) (uintptr_t) __stop_hl_site);

  errno = 4242;
  void *a = malloc (100);
  check (errno == 4242, "errno after malloc");
  void *b = calloc (10, 30);
  check (errno == 4242, "errno after calloc");
  b = realloc (b, 600);            /* grow */
  b = realloc (b, 50);             /* shrink */
  void *c = opaque (realloc (NULL, 70));    /* = malloc */
  free (c);
  void *d = reallocarray (NULL, 8, 16);
  d = reallocarray (d, 16, 16);
  void *e = NULL;
  check (posix_memalign (&e, 64, 200) == 0 && ((uintptr_t) e & 63) == 0, "posix_memalign");
  void *f = opaque (aligned_alloc (128, 256));
  check (((uintptr_t) f & 127) == 0, "aligned_alloc alignment");
  void *g = opaque (memalign (32, 90));
  check (((uintptr_t) g & 31) == 0, "memalign alignment");
  void *h = valloc (10);
  check (((uintptr_t) h & 4095) == 0, "valloc alignment");
  void *i = opaque (with_pvalloc ? pvalloc (5000) : malloc (8192));
  check (((uintptr_t) i & 4095) == 0 || !with_pvalloc, "pvalloc alignment");
  check (malloc_usable_size (a) >= 100, "malloc_usable_size");
  free (NULL);
  check (errno == 4242, "errno after free");

  /* failures are not recorded and keep their errno */
  errno = 0;
  void *huge = malloc (SIZE_MAX / 2);
  check (huge == NULL && errno == ENOMEM, "failed malloc sets ENOMEM");
  errno = 0;
  volatile size_t big = SIZE_MAX / 2;
  void *ovf = calloc (big, 4);
  check (ovf == NULL, "calloc overflow fails");

  for (int k = 0; k < 10; k++)
    free (alloc_site (16 + (size_t) k));

  free (a);
  free (d);
  free (e);
  free (f);
  free (g);
  /* leaked: b (50 bytes), h (10 bytes), i (8192 bytes) */
  void *z = opaque (malloc (33));
  z = realloc (z, 0);  /* frees, returns NULL in glibc */
  check (z == NULL, "realloc (p, 0) returns NULL");

  /* the preload's fatal-signal handlers are invisible */
  struct sigaction sa;
  check (sigaction (SIGINT, NULL, &sa) == 0 && (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN),
         "SIGINT reads as it was inherited");
  sighandler_t old = signal (SIGTERM, SIG_DFL);
  check (old == SIG_DFL || old == SIG_IGN, "signal (SIGTERM) returns the inherited handler");

  say (failures ? "t-entry: failures\n" : "t-entry: ok\n");
  return failures ? 1 : 3;
}
