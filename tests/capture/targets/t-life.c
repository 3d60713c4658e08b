/* t-life — threads (named with pthread_setname_np and prctl), a signal
 * handler that allocates while the main thread allocates, dlopen/dlclose of
 * a plugin, fork, and exec of itself. Output is deterministic.
 *   t-life PLUGIN.so          the whole run
 *   t-life --exec-child       what the exec'd image does (exit 7) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static void *volatile sink;

static void
on_usr1 (int sig)
{
  (void) sig;
  sink = malloc (24);
  free (sink);
  handled++;
}

static pthread_barrier_t named;

static void *
worker (void *arg)
{
  int n = (int) (long) arg;
  pthread_barrier_wait (&named); /* main has named us */
  if (n == 0)
    prctl (PR_SET_NAME, "prctl-name", 0, 0, 0);
  void *keep[100];
  for (int round = 0; round < 10; round++)
    {
      for (int i = 0; i < 100; i++)
        keep[i] = malloc (32 + (size_t) i);
      for (int i = 0; i < 100; i++)
        free (keep[i]);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--exec-child") == 0)
    {
      sink = malloc (77);
      printf ("exec child\n");
      return 7;
    }

  /* threads */
  pthread_t t[4];
  pthread_barrier_init (&named, NULL, 5);
  for (long i = 0; i < 4; i++)
    {
      pthread_create (&t[i], NULL, worker, (void *) i);
      char name[16];
      snprintf (name, sizeof name, "worker-%ld", i);
      if (i != 0)
        pthread_setname_np (t[i], name);
    }
  pthread_barrier_wait (&named);
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  printf ("threads done\n");

  /* a signal handler allocating between the main thread's allocations */
  signal (SIGUSR1, on_usr1);
  for (int i = 0; i < 200; i++)
    {
      void *p = malloc (40);
      raise (SIGUSR1);
      free (p);
    }
  printf ("signals handled: %d\n", (int) handled);

  /* dlopen / dlclose */
  if (argc > 1)
    {
      for (int round = 0; round < 3; round++)
        {
          void *h = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
          if (h == NULL)
            {
              printf ("dlopen failed: %s\n", dlerror ());
              return 1;
            }
          void *(*plugin_alloc) (size_t) = (void *(*) (size_t)) dlsym (h, "plugin_alloc");
          free (plugin_alloc (123));
          dlclose (h);
        }
      printf ("plugin ok\n");
    }

  /* fork */
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    {
      for (int i = 0; i < 10; i++)
        {
          sink = malloc (64);
          free (sink);
        }
      exit (5);
    }
  int status;
  waitpid (pid, &status, 0);
  printf ("fork child status %d\n", WEXITSTATUS (status));

  /* vfork: the child shares our memory until it execs or _exits */
  pid = vfork ();
  if (pid == 0)
    {
      execl ("/nonexistent/program", "nothing", (char *) NULL);
      _exit (3);
    }
  waitpid (pid, &status, 0);
  printf ("vfork child status %d\n", WEXITSTATUS (status));

  /* exec */
  fflush (stdout);
  pid = fork ();
  if (pid == 0)
    {
      execl ("/proc/self/exe", argv[0], "--exec-child", (char *) NULL);
      _exit (99);
    }
  waitpid (pid, &status, 0);
  printf ("exec child status %d\n", WEXITSTATUS (status));
  return 0;
}
