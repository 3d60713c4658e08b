/* t-crash — allocates, then dies: "segv" dereferences NULL, "term" is
 * killed by SIGTERM, "abort" calls abort(), "exit" calls _exit(9). The
 * allocations before must be in the trace. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static void
on_segv (int sig)
{
  static const char msg[] = "crash handler ran\n";
  (void) !write (1, msg, sizeof msg - 1);
  signal (sig, SIG_DFL);
  raise (sig);
}

int
main (int argc, char **argv)
{
  const char *how = argc > 1 ? argv[1] : "segv";
  for (int i = 0; i < 1000; i++)
    {
      sink = malloc (100);
      free (sink);
    }
  sink = malloc (4321);
  if (strcmp (how, "handler") == 0)
    {
      /* a crash handler of the program's own: report, restore the default,
       * re-raise (what Python's faulthandler does) */
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = on_segv;
      sigaction (SIGSEGV, &sa, NULL);
      int *volatile p = NULL;
      return *p;
    }
  if (strcmp (how, "segv") == 0)
    {
      int *volatile p = NULL;
      return *p;
    }
  if (strcmp (how, "term") == 0)
    raise (SIGTERM);
  if (strcmp (how, "abort") == 0)
    abort ();
  if (strcmp (how, "kill") == 0)
    {
      /* wait to be killed with SIGKILL (the test sends it) */
      (void) !write (1, "ready\n", 6);
      for (;;)
        {
          sink = malloc (50);
          free (sink);
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
        }
    }
  _exit (9);
}
