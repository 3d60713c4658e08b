/* t-analysis — a program whose threads, call structure and block lifetimes
 * are known, for test-report-analysis (issue 30, points 1, 5 and 6). Built
 * with -O0 so that every function below is a frame of its own.
 *
 *   threads: the main thread is named "t-main" (prctl), "worker-a"
 *     (pthread_setname_np, from inside) makes 100 blocks of 1000 bytes and
 *     frees 60, "worker-b" (prctl) makes 50 of 20000 and frees them all
 *     once it holds them all: the heap's peak, when worker-a holds 40000
 *     bytes and worker-b 1000000;
 *   calls: run_calls → caller_x → leaf_alloc (3 × 100 bytes), run_calls →
 *     caller_y → leaf_alloc (5 × 200) and caller_y → malloc (2 × 50), none
 *     freed;
 *   lifetimes: life_short 100 blocks freed at once, life_mid 10 freed after
 *     20 ms, life_long 10 freed after the growth below (over 200 ms),
 *     life_never 10 never freed, grow_one a block of 1000 bytes every 10 ms
 *     (20) until the program ends, never freed.
 *
 * With --hold FILE, instead of the lifetimes: a thread "holder-c" makes 10
 * blocks of 100 bytes, the program creates FILE.ready and waits (at most
 * 20 s) until FILE exists, so that `top` can read the running session.
 *
 * Prints what each thread did, one line each:
 *   thread NAME allocations N bytes B peak P leaked L */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void *keep[256];
static int n_keep;

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

/* ---- Threads ------------------------------------------------------------ */

static void *a_blocks[100];

static void *
worker_a (void *arg)
{
  (void) arg;
  pthread_setname_np (pthread_self (), "worker-a");
  for (int i = 0; i < 100; i++)
    a_blocks[i] = malloc (1000);
  for (int i = 0; i < 60; i++)
    free (a_blocks[i]);
  return NULL;
}

static void *
worker_b (void *arg)
{
  void *blocks[50];
  (void) arg;
  prctl (PR_SET_NAME, "worker-b", 0, 0, 0);
  for (int i = 0; i < 50; i++)
    blocks[i] = malloc (20000);
  for (int i = 0; i < 50; i++)
    free (blocks[i]);
  return NULL;
}

static void
run_threads (void)
{
  pthread_t t;
  pthread_create (&t, NULL, worker_a, NULL);
  pthread_join (t, NULL);
  pthread_create (&t, NULL, worker_b, NULL);
  pthread_join (t, NULL);
}

/* ---- Calls -------------------------------------------------------------- */

static void *
leaf_alloc (size_t n)
{
  void *p = malloc (n);
  keep[n_keep++] = p;
  return p;
}

static void
caller_x (void)
{
  for (int i = 0; i < 3; i++)
    leaf_alloc (100);
}

static void
caller_y (void)
{
  for (int i = 0; i < 5; i++)
    leaf_alloc (200);
  for (int i = 0; i < 2; i++)
    keep[n_keep++] = malloc (50);
}

static void
run_calls (void)
{
  caller_x ();
  caller_y ();
}

/* ---- Lifetimes ---------------------------------------------------------- */

static void
life_short (void)
{
  for (int i = 0; i < 100; i++)
    {
      void *volatile p = malloc (64);
      free (p);
    }
}

static void
life_mid (void)
{
  void *p[10];
  for (int i = 0; i < 10; i++)
    p[i] = malloc (128);
  sleep_ms (20);
  for (int i = 0; i < 10; i++)
    free (p[i]);
}

static void **
life_long (void)
{
  static void *p[10];
  for (int i = 0; i < 10; i++)
    p[i] = malloc (256);
  return p;
}

static void
life_never (void)
{
  for (int i = 0; i < 10; i++)
    keep[n_keep++] = malloc (512);
}

static void
grow_one (void)
{
  keep[n_keep++] = malloc (1000);
}

static void
run_lifetimes (void)
{
  life_short ();
  life_mid ();
  void **longs = life_long ();
  life_never ();
  for (int i = 0; i < 20; i++)
    {
      grow_one ();
      sleep_ms (10);
    }
  for (int i = 0; i < 10; i++)
    free (longs[i]);
}

/* ---- Holding a live session -------------------------------------------- */

static void *
holder_c (void *arg)
{
  const char *release = arg;
  char ready[4096];
  pthread_setname_np (pthread_self (), "holder-c");
  for (int i = 0; i < 10; i++)
    keep[n_keep++] = malloc (100);
  snprintf (ready, sizeof ready, "%s.ready", release);
  close (open (ready, O_WRONLY | O_CREAT, 0600));
  for (int i = 0; i < 2000 && access (release, F_OK) != 0; i++)
    sleep_ms (10);
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  const char *hold = argc == 3 && strcmp (argv[1], "--hold") == 0 ? argv[2] : NULL;

  prctl (PR_SET_NAME, "t-main", 0, 0, 0);
  run_calls ();
  /* Events of two threads within one tick of the recorder's coarse clock
   * (1 to 4 ms) are ordered by their arrival, and the main thread's packet
   * arrives after the workers': without this pause run_calls' blocks could
   * be put after worker-b's peak (docs/shm-layout.md, "The recorder's
   * clock"). */
  sleep_ms (10);
  run_threads ();
  if (hold != NULL)
    {
      pthread_t t;
      pthread_create (&t, NULL, holder_c, (void *) hold);
      pthread_join (t, NULL);
    }
  else
    run_lifetimes ();
  printf ("thread worker-a allocations 100 bytes 100000 peak 40000 leaked 40000\n"
          "thread worker-b allocations 50 bytes 1000000 peak 1000000 leaked 0\n");
  return 0;
}
