/* t-attach — a program to attach to while it runs (test-attach.sh).
 *
 *   t-attach DIR ROUNDS
 *
 * Eight worker threads allocate in a loop (malloc, realloc, calloc, free)
 * from the start to the end. The main thread allocates 1000 blocks of
 * 100 bytes, then for each round R (1..ROUNDS) creates DIR/ready-R, waits
 * for DIR/go-R, allocates 5000 blocks of 777 bytes and frees them (round
 * 1 also frees the 1000 blocks of the start) and prints one line. Then it
 * stops the workers and prints what they computed: the same for every
 * run, attached or not. A ninth thread, named "t-idle", only sleeps: it
 * never allocates, so an attach knows its name from /proc only. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_WORKERS 8
#define N_OLD     1000
#define N_ROUND   5000

static atomic_int stop;

#ifdef T_TAKE_MALLOC_ADDRESS
/* built -no-pie: malloc's address here is the program's canonical PLT
 * entry (t-attach-nopie, which attach refuses) */
void *(*volatile t_malloc_address) (size_t);
#endif

static void *
worker (void *arg)
{
  uintptr_t k = (uintptr_t) arg;
  uint64_t sum = 0, iterations = 0;
  char *ring[16] = { 0 };
  while (!atomic_load (&stop))
    {
      size_t n = 16 + (size_t) ((iterations * 7 + k * 13) % 300);
      unsigned slot = (unsigned) (iterations % 16);
      if (ring[slot] != NULL && iterations % 3 == 0)
        {
          char *q = realloc (ring[slot], n * 2);
          if (q != NULL)
            ring[slot] = q;
        }
      else
        {
          free (ring[slot]);
          ring[slot] = iterations % 5 == 0 ? calloc (1, n) : malloc (n);
        }
      if (ring[slot] != NULL)
        {
          ring[slot][0] = (char) k;
          sum += (unsigned char) ring[slot][0];
        }
      iterations++;
      if (iterations % 256 == 0)
        sched_yield ();
    }
  for (int i = 0; i < 16; i++)
    free (ring[i]);
  /* sum / iterations is k for every run */
  return (void *) (uintptr_t) (iterations > 0 ? sum / iterations : k);
}

static void *
idle (void *arg)
{
  (void) arg;
  while (!atomic_load (&stop))
    {
      struct timespec ms = { 0, 2000000 };
      nanosleep (&ms, NULL);
    }
  return NULL;
}

static void
touch (const char *dir, const char *name, int round)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s-%d", dir, name, round);
  FILE *f = fopen (path, "w");
  if (f != NULL)
    fclose (f);
}

static void
wait_for (const char *dir, const char *name, int round)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s-%d", dir, name, round);
  struct timespec ms = { 0, 1000000 };
  while (access (path, F_OK) != 0)
    nanosleep (&ms, NULL);
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: t-attach DIR ROUNDS\n");
      return 2;
    }
  const char *dir = argv[1];
#ifdef T_TAKE_MALLOC_ADDRESS
  t_malloc_address = malloc;
#endif
  int rounds = atoi (argv[2]);
  pthread_t t[N_WORKERS], idler;
  for (uintptr_t k = 0; k < N_WORKERS; k++)
    pthread_create (&t[k], NULL, worker, (void *) k);
  pthread_create (&idler, NULL, idle, NULL);
  pthread_setname_np (idler, "t-idle");
  static char *old[N_OLD];
  for (int i = 0; i < N_OLD; i++)
    {
      old[i] = malloc (100);
      memset (old[i], i & 0xff, 100);
    }
  static char *blocks[N_ROUND];
  uint64_t check = 0;
  for (int r = 1; r <= rounds; r++)
    {
      touch (dir, "ready", r);
      wait_for (dir, "go", r);
      for (int i = 0; i < N_ROUND; i++)
        {
          blocks[i] = malloc (777);
          blocks[i][0] = (char) i;
        }
      for (int i = 0; i < N_ROUND; i++)
        {
          check += (unsigned char) blocks[i][0];
          free (blocks[i]);
        }
      if (r == 1)
        for (int i = 0; i < N_OLD; i++)
          {
            check += (unsigned char) old[i][99];
            free (old[i]);
          }
      printf ("round %d: %llu\n", r, (unsigned long long) check);
      fflush (stdout);
    }
  atomic_store (&stop, 1);
  pthread_join (idler, NULL);
  for (int k = 0; k < N_WORKERS; k++)
    {
      void *ret;
      pthread_join (t[k], &ret);
      printf ("worker %d: %lu\n", k, (unsigned long) (uintptr_t) ret);
    }
  return 7;
}
