/* t-regions — fills many 128 KiB regions of the heap densely, the layout
 * the live table's region directory is for: ARGV[1] threads (each gets an
 * arena of its own from glibc: a 64 MiB heap mapping), each allocating
 * ARGV[2] blocks of ARGV[3] bytes and keeping them all, then freeing them
 * all; ARGV[4] (optional) blocks of each thread kept as a leak. The main
 * thread is one of the threads when ARGV[1] is 1. ARGV[5] "fork" (one
 * thread): after allocating, free every other block and fork; the child
 * allocates as many blocks into the holes, frees them and exits with 5.
 * With T_REGIONS_GATE=FILE in the environment, waits (at most 20 s) until
 * FILE exists before it allocates: a test can act on the session first.
 * No stdio. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <sys/wait.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t count = 1000, size = 24, leak;
static pthread_barrier_t all_allocated;
static int barrier_on;

static void *
work (void *arg)
{
  (void) arg;
  void **blocks = malloc (count * sizeof *blocks);
  if (blocks == NULL)
    return (void *) 1;
  for (size_t i = 0; i < count; i++)
    {
      blocks[i] = malloc (size);
      if (blocks[i] == NULL)
        return (void *) 1;
      memset (blocks[i], (int) i, size < 8 ? size : 8);
    }
  /* every thread's blocks are live at once */
  if (barrier_on)
    pthread_barrier_wait (&all_allocated);
  for (size_t i = leak; i < count; i++)
    free (blocks[i]);
  free (blocks);
  return NULL;
}

/* Fills the holes of every other block in the child of a fork. */
static int
forked (void)
{
  void **blocks = malloc (count * sizeof *blocks);
  if (blocks == NULL)
    return 1;
  for (size_t i = 0; i < count; i += 2)
    blocks[i] = malloc (size);
  for (size_t i = 0; i < count; i += 2)
    free (blocks[i]);
  free (blocks);
  return 0;
}

static int
with_fork (void)
{
  void **blocks = malloc (count * sizeof *blocks);
  if (blocks == NULL)
    return 1;
  for (size_t i = 0; i < count; i++)
    blocks[i] = malloc (size);
  for (size_t i = 0; i < count; i += 2)
    free (blocks[i]);
  pid_t pid = fork ();
  if (pid < 0)
    return 1;
  if (pid == 0)
    exit (forked () == 0 ? 5 : 1);
  int status = 0;
  if (waitpid (pid, &status, 0) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 5)
    return 1;
  for (size_t i = 1; i < count; i += 2)
    free (blocks[i]);
  free (blocks);
  return 0;
}

static void
wait_for_gate (void)
{
  const char *gate = getenv ("T_REGIONS_GATE");
  struct timespec ms = { 0, 1000000L };
  for (int i = 0; gate != NULL && i < 20000 && access (gate, F_OK) != 0; i++)
    nanosleep (&ms, NULL);
}

int
main (int argc, char **argv)
{
  wait_for_gate ();
  size_t threads = argc > 1 ? strtoul (argv[1], NULL, 10) : 1;
  if (argc > 2)
    count = strtoul (argv[2], NULL, 10);
  if (argc > 3)
    size = strtoul (argv[3], NULL, 10);
  if (argc > 4)
    leak = strtoul (argv[4], NULL, 10);
  if (threads == 0 || threads > 256 || leak > count)
    return 2;
  if (threads == 1 && argc > 5 && strcmp (argv[5], "fork") == 0)
    return with_fork ();
  if (threads == 1)
    return work (NULL) == NULL ? 0 : 1;
  pthread_t tids[256];
  barrier_on = 1;
  pthread_barrier_init (&all_allocated, NULL, (unsigned) threads);
  for (size_t t = 0; t < threads; t++)
    if (pthread_create (&tids[t], NULL, work, NULL) != 0)
      return 1;
  int status = 0;
  for (size_t t = 0; t < threads; t++)
    {
      void *r;
      pthread_join (tids[t], &r);
      if (r != NULL)
        status = 1;
    }
  pthread_barrier_destroy (&all_allocated);
  static const char done[] = "t-regions: done\n";
  return write (1, done, sizeof done - 1) == (ssize_t) sizeof done - 1 ? status : 1;
}
