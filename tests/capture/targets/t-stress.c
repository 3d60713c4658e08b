/* t-stress — "threads": 250 rounds of 20 short-lived threads that allocate;
 * "sigprof": a 50 us profiling timer whose handler allocates while the
 * main thread churns (signals land inside the preload most of the time). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static void *volatile sink;
static void *volatile handler_sink;
static volatile sig_atomic_t handled;

static void *
worker (void *arg)
{
  for (int i = 0; i < 50; i++)
    {
      void *volatile p = malloc (32 + (size_t) i); /* each thread its own */
      free (p);
    }
  return arg;
}

static void
on_prof (int sig)
{
  (void) sig;
  handler_sink = malloc (48);
  free (handler_sink);
  handled = 1;
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "threads";
  if (strcmp (mode, "threads") == 0)
    {
      for (int round = 0; round < 250; round++)
        {
          pthread_t t[20];
          for (int i = 0; i < 20; i++)
            pthread_create (&t[i], NULL, worker, NULL);
          for (int i = 0; i < 20; i++)
            pthread_join (t[i], NULL);
        }
      printf ("threads: done\n");
      return 0;
    }
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_prof;
  sigaction (SIGPROF, &sa, NULL);
  struct itimerval it = { { 0, 50 }, { 0, 50 } };
  setitimer (ITIMER_PROF, &it, NULL);
  for (long i = 0; i < 1000000 || !handled; i++)
    {
      sink = malloc (16 + (size_t) (i & 255));
      free (sink);
    }
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer (ITIMER_PROF, &off, NULL);
  printf ("sigprof: done\n");
  return 0;
}
