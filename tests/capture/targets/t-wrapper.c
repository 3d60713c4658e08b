/* t-wrapper — every allocation through one wrapper of the program's own
 * (as sqlite3Malloc), called from 24 sites in turn at the same depth: the
 * wrapper's frame, the state the preload starts unwinding from, is the
 * same for all 24 stacks, which differ further out. ARGV[1] rounds
 * (default 2000). No stdio. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define SITES 24

static void *live[SITES];

__attribute__ ((noinline)) static void *
wrapper_alloc (size_t n)
{
  void *p = malloc (n);
  __asm__ volatile ("" ::: "memory");
  return p;
}

/* one caller per site, the same frame size for all */
#define SITE(k)                                          \
  __attribute__ ((noinline)) static void                 \
  site_##k (void)                                        \
  {                                                      \
    free (live[k]);                                      \
    live[k] = wrapper_alloc (16 + k);                    \
    __asm__ volatile ("" ::: "memory");                  \
  }

SITE (0) SITE (1) SITE (2) SITE (3) SITE (4) SITE (5) SITE (6) SITE (7)
SITE (8) SITE (9) SITE (10) SITE (11) SITE (12) SITE (13) SITE (14) SITE (15)
SITE (16) SITE (17) SITE (18) SITE (19) SITE (20) SITE (21) SITE (22) SITE (23)

static void (*const sites[SITES]) (void) = {
  site_0, site_1, site_2, site_3, site_4, site_5, site_6, site_7,
  site_8, site_9, site_10, site_11, site_12, site_13, site_14, site_15,
  site_16, site_17, site_18, site_19, site_20, site_21, site_22, site_23,
};

int
main (int    argc,
      char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 2000;
  for (long r = 0; r < rounds; r++)
    for (int k = 0; k < SITES; k++)
      sites[k] ();
  for (int k = 0; k < SITES; k++)
    free (live[k]);
  static const char done[] = "t-wrapper: done\n";
  return write (1, done, sizeof done - 1) == (ssize_t) (sizeof done - 1) ? 0 : 1;
}
