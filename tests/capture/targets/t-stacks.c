/* t-stacks — ARGV[1] distinct call stacks (default 500), each allocating
 * once, in each of ARGV[2] threads (default 2) run one after the other
 * from the same code, so that the threads' stacks are the same stacks:
 * the later threads find them in the session's stack index (their own
 * per-thread caches are new), whatever level of the index holds them
 * (hl-capture-stacks.c). Stack K is the path of bits of K through two
 * functions, twelve levels deep (at most 4096). Prints "t-stacks: done". */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define LEVELS 12

static void walk (unsigned k, int level);

__attribute__ ((noinline)) static void
leaf (void)
{
  void *p = malloc (24);
  __asm__ volatile ("" : : "r" (p) : "memory");
  free (p);
}

__attribute__ ((noinline)) static void
via_a (unsigned k, int level)
{
  walk (k, level);
  __asm__ volatile ("" ::: "memory"); /* no tail call: the frame stays */
}

__attribute__ ((noinline)) static void
via_b (unsigned k, int level)
{
  walk (k, level);
  __asm__ volatile ("" ::: "memory");
}

__attribute__ ((noinline)) static void
walk (unsigned k, int level)
{
  if (level == 0)
    leaf ();
  else if (k & 1)
    via_b (k >> 1, level - 1);
  else
    via_a (k >> 1, level - 1);
  __asm__ volatile ("" ::: "memory");
}

static unsigned n_stacks = 500;

static void *
run_pass (void *arg)
{
  (void) arg;
  for (unsigned k = 0; k < n_stacks; k++)
    walk (k, LEVELS);
  return NULL;
}

int
main (int argc, char **argv)
{
  unsigned passes = 2;
  if (argc > 1)
    n_stacks = (unsigned) atoi (argv[1]);
  if (argc > 2)
    passes = (unsigned) atoi (argv[2]);
  if (n_stacks > 1u << LEVELS)
    n_stacks = 1u << LEVELS;
  for (unsigned i = 0; i < passes; i++)
    {
      pthread_t t;
      if (pthread_create (&t, NULL, run_pass, NULL) != 0 || pthread_join (t, NULL) != 0)
        return 1;
    }
  static const char done[] = "t-stacks: done\n";
  return write (1, done, sizeof done - 1) == (ssize_t) (sizeof done - 1) ? 0 : 1;
}
