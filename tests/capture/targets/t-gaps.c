/* t-gaps — process-life corners of the capture:
 *   forkfree        a forked child frees blocks inherited from its parent
 *                   (in its main thread and in threads that exit), allocates
 *                   and leaks its own; prints the child's pid, then the
 *                   parent's
 *   system CMD      runs CMD with system() and popen(), and posix_spawn of
 *                   /bin/sh -c CMD
 *   resethand SIG   a handler installed with SA_RESETHAND reports and
 *                   re-raises (SIG: term, segv, info)
 *   threads N       N threads alive at once, each allocating
 *   sigalloc        a SIGALRM handler allocating, every 20 us, while the
 *                   main thread allocates
 *   raisesegv       raise (SIGSEGV) with the default disposition
 * Each mode first allocates 1000 blocks and frees them, and leaves one
 * block of 4321 bytes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void *volatile sink;

/* ---- forkfree ----------------------------------------------------------- */

#define INHERITED 140

static void *inherited[INHERITED];

static void *
child_thread (void *arg)
{
  void **mine = arg;
  for (int i = 0; i < 10; i++)
    free (mine[i]); /* inherited */
  void *own[5];
  for (int i = 0; i < 5; i++)
    own[i] = malloc (200);
  for (int i = 0; i < 3; i++)
    free (own[i]);
  return NULL;
}

static int
forkfree (void)
{
  for (int i = 0; i < INHERITED; i++)
    inherited[i] = malloc (1000);
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    {
      for (int i = 0; i < 100; i++)
        free (inherited[i]);
      pthread_t t[4];
      for (int k = 0; k < 4; k++)
        pthread_create (&t[k], NULL, child_thread, &inherited[100 + 10 * k]);
      for (int k = 0; k < 4; k++)
        pthread_join (t[k], NULL);
      void *own[10];
      for (int i = 0; i < 10; i++)
        own[i] = malloc (300);
      for (int i = 0; i < 4; i++)
        free (own[i]);
      printf ("%d\n", (int) getpid ());
      exit (0);
    }
  int st;
  waitpid (pid, &st, 0);
  printf ("%d\n", (int) getpid ());
  for (int i = 0; i < INHERITED; i++)
    free (inherited[i]);
  return WIFEXITED (st) ? WEXITSTATUS (st) : 1;
}

/* ---- system ------------------------------------------------------------- */

static int
run_system (const char *cmd)
{
  fflush (stdout);
  if (system (cmd) != 0)
    return 1;
  FILE *f = popen (cmd, "r");
  if (f == NULL)
    return 1;
  char line[4096];
  while (fgets (line, sizeof line, f) != NULL)
    fputs (line, stdout);
  if (pclose (f) != 0)
    return 1;
  fflush (stdout);
  pid_t pid;
  char *argv[] = { "sh", "-c", (char *) cmd, NULL };
  if (posix_spawn (&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
    return 1;
  int st;
  waitpid (pid, &st, 0);
  return WIFEXITED (st) ? WEXITSTATUS (st) : 1;
}

/* ---- resethand ---------------------------------------------------------- */

static void
on_signal (int sig)
{
  static const char msg[] = "handler ran\n";
  (void) !write (1, msg, sizeof msg - 1);
  raise (sig);
}

static void
on_signal_info (int sig, siginfo_t *info, void *ctx)
{
  (void) ctx;
  static const char msg[] = "siginfo handler ran\n";
  if (info != NULL && info->si_signo == sig)
    (void) !write (1, msg, sizeof msg - 1);
  raise (sig);
}

static int
resethand (const char *how)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_flags = SA_RESETHAND;
  if (strcmp (how, "info") == 0)
    {
      sa.sa_sigaction = on_signal_info;
      sa.sa_flags |= SA_SIGINFO;
    }
  else
    sa.sa_handler = on_signal;
  int sig = strcmp (how, "segv") == 0 ? SIGSEGV : SIGTERM;
  sigaction (sig, &sa, NULL);
  struct sigaction now;
  sigaction (sig, NULL, &now);
  if (!(now.sa_flags & SA_RESETHAND)
      || (now.sa_flags & SA_SIGINFO ? (void *) now.sa_sigaction : (void *) now.sa_handler)
             != (sa.sa_flags & SA_SIGINFO ? (void *) on_signal_info : (void *) on_signal))
    {
      printf ("sigaction does not report the program's handler\n");
      return 3;
    }
  if (sig == SIGSEGV)
    {
      int *volatile p = NULL;
      return *p;
    }
  raise (sig);
  return 4;
}

/* ---- threads ------------------------------------------------------------ */

static pthread_barrier_t barrier;

static void *volatile *held;

static void *
thread_main (void *arg)
{
  size_t i = (size_t) (uintptr_t) arg;
  held[i] = malloc (64);
  pthread_barrier_wait (&barrier); /* all alive at once, each with a block */
  free (held[i]);
  held[i] = malloc (16); /* its own slot: the threads run at once */
  free (held[i]);
  return NULL;
}

static int
threads (int n)
{
  pthread_t *t = calloc ((size_t) n, sizeof *t);
  held = calloc ((size_t) n, sizeof *held);
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, 64 * 1024);
  pthread_barrier_init (&barrier, NULL, (unsigned) n + 1);
  for (int i = 0; i < n; i++)
    if (pthread_create (&t[i], &attr, thread_main, (void *) (uintptr_t) i) != 0)
      {
        printf ("pthread_create failed at %d\n", i);
        return 1;
      }
  pthread_barrier_wait (&barrier);
  for (int i = 0; i < n; i++)
    pthread_join (t[i], NULL);
  pthread_barrier_destroy (&barrier);
  pthread_attr_destroy (&attr);
  free (t);
  free ((void *) held);
  printf ("threads: %d\n", n);
  return 0;
}

/* ---- sigalloc ----------------------------------------------------------- */

/* malloc is not async-signal-safe: a handler that allocates from the same
 * glibc tcache bin the interrupted code is using corrupts it (about one run
 * in twenty crashed without any preload). So the handler and the main loop
 * use disjoint bins (chunks of 32 and 48 bytes against 144..256), each bin
 * is warmed before the timer starts and never holds more than tcache's 7
 * entries, and neither ever reaches the arena: the only code they can
 * interrupt in each other is the preload's. */
static volatile sig_atomic_t handler_calls;

static void
on_alarm (int sig)
{
  (void) sig;
  void *p = malloc (24);
  void *q = malloc (40);
  free (p);
  sink = q;
  free (q);
  handler_calls++;
  if (handler_calls == 3000)
    {
      /* from here on the main loop runs free (a slow handler could
       * otherwise keep it from ever seeing the count) */
      struct itimerval off = { { 0, 0 }, { 0, 0 } };
      setitimer (ITIMER_REAL, &off, NULL);
    }
}

static int
sigalloc (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction (SIGALRM, &sa, NULL);
  /* warm the handler's bins and the loop's (see handler_calls) */
  free (malloc (24));
  free (malloc (40));
  void *p[8];
  for (int i = 0; i < 8; i++)
    p[i] = malloc (128 + (size_t) i * 16);
  for (int i = 0; i < 8; i++)
    free (p[i]);
  struct itimerval it = { { 0, 20 }, { 0, 20 } };
  setitimer (ITIMER_REAL, &it, NULL);
  unsigned long loops = 0;
  while (handler_calls < 3000)
    {
      for (int i = 0; i < 8; i++)
        p[i] = malloc (128 + (size_t) i * 16);
      for (int i = 0; i < 8; i++)
        free (p[i]);
      loops++;
    }
  /* the program's own allocations: the 1001 of main, 10 to warm the bins,
   * 8 per loop, 2 per handler call */
  printf ("sigalloc: done\nallocations: %lu\n", 1011 + 8 * loops + 2 * (unsigned long) handler_calls);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  for (int i = 0; i < 1000; i++)
    {
      sink = malloc (100);
      free (sink);
    }
  sink = malloc (4321);
  if (strcmp (mode, "forkfree") == 0)
    return forkfree ();
  if (strcmp (mode, "system") == 0 && argc > 2)
    return run_system (argv[2]);
  if (strcmp (mode, "resethand") == 0 && argc > 2)
    return resethand (argv[2]);
  if (strcmp (mode, "threads") == 0 && argc > 2)
    return threads (atoi (argv[2]));
  if (strcmp (mode, "sigalloc") == 0)
    return sigalloc ();
  if (strcmp (mode, "raisesegv") == 0)
    {
      /* a SIGSEGV that is sent, not a fault: nothing re-executes */
      raise (SIGSEGV);
      printf ("survived SIGSEGV\n");
      return 4;
    }
  fprintf (stderr, "usage: t-gaps forkfree|system CMD|resethand term|segv|info|threads N|sigalloc\n");
  return 2;
}
