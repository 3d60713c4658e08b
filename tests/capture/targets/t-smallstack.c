/* t-smallstack USED: a thread on a minimal stack (PTHREAD_STACK_MIN)
 * that is USED bytes deep when it first allocates (100 allocations and
 * frees), as a program with many small threads may be. Prints "ok" when
 * it got through. The preload must not need much more of that stack than
 * glibc's malloc does. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int used;
static volatile char sink;

static void __attribute__ ((noinline))
deep (int n)
{
  volatile char pad[256];
  pad[n % 256] = (char) n;
  if (n > 0)
    {
      deep (n - 1);
      sink = pad[0];
      return;
    }
  for (int i = 0; i < 100; i++)
    {
      char *volatile p = malloc (64 + (size_t) i);
      p[0] = 1;
      free (p);
    }
}

static void *
run (void *arg)
{
  (void) arg;
  deep (used / 256);
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  used = atoi (argv[1]);
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, PTHREAD_STACK_MIN);
  if (pthread_create (&thread, &attr, run, NULL) != 0)
    return 3;
  pthread_join (thread, NULL);
  puts ("ok");
  return 0;
}
