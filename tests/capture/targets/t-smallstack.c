/* t-smallstack USED [malloc|spawn|execl]: a thread on a minimal stack
 * (PTHREAD_STACK_MIN) that is USED bytes deep when it first allocates (100
 * allocations and frees), as a program with many small threads may be;
 * or starts `true` with posix_spawnp (spawn), or forks and runs it with
 * execlp there (execl). Prints "ok" when it got through. The preload must
 * not need much more of that stack than glibc does. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int used;
static const char *mode = "malloc";
static volatile int failed;
static volatile char sink;

static void
start_true (void)
{
  pid_t pid;
  int status = -1;
  if (strcmp (mode, "spawn") == 0)
    {
      char *argv[] = { (char *) "true", NULL };
      if (posix_spawnp (&pid, "true", NULL, NULL, argv, environ) != 0)
        pid = -1;
    }
  else
    {
      pid = fork ();
      if (pid == 0)
        {
          execlp ("true", "true", (char *) NULL);
          _exit (127);
        }
    }
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    failed = 1;
}

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
  if (strcmp (mode, "malloc") != 0)
    {
      start_true ();
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
  if (argc < 2 || argc > 3)
    return 2;
  used = atoi (argv[1]);
  if (argc == 3)
    mode = argv[2];
  /* the child and the preload start before the thread */
  free (malloc (1));
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, PTHREAD_STACK_MIN);
  if (pthread_create (&thread, &attr, run, NULL) != 0)
    return 3;
  pthread_join (thread, NULL);
  if (failed)
    return 1;
  puts ("ok");
  return 0;
}
