/* t-meta LOG — metadata and marks from 8 threads at once. The main
 * thread sets "phase" to "main" first; then 8 workers, 16 rounds each,
 * take turns (one lock, so that their clocks and the preload's agree on
 * the order): read the clock, set "phase" to "tK-R", allocate (and keep)
 * one block of 100000 + 100 K + R bytes, mark "mK-R". Each thread's
 * packets reach the trace when it ends, so the trace holds them out of
 * time order, the main thread's (its "main" set first of all) last.
 * LOG gets one line per set, "KEY VALUE TIME_NS" (CLOCK_MONOTONIC), in
 * no particular order; the target writes it without allocating, so that
 * the last worker's value holds its block alone. Run it with the fine
 * clock throughout (HEAPLENS_FINE_CLOCK_MS, `record --fine-clock`): the
 * sets are 70 µs apart, the coarse clock's ticks 4 ms. Prints
 * "t-meta: ok". */
#define _POSIX_C_SOURCE 200809L
#include <heaplens.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_THREADS 8
#define N_ROUNDS  16

typedef struct
{
  char     value[16];
  long long time_ns;
} Entry;

static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start, end;
static Entry entries[N_THREADS][N_ROUNDS];

static long long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void
spin_us (int us)
{
  long long t0 = now_ns ();
  while (now_ns () - t0 < us * 1000LL)
    ;
}

static void *
worker (void *arg)
{
  int k = (int) (long) arg;

  pthread_barrier_wait (&start);
  for (int r = 0; r < N_ROUNDS; r++)
    {
      Entry *e = &entries[k][r];
      char mark[16];

      snprintf (e->value, sizeof e->value, "t%d-%d", k, r);
      snprintf (mark, sizeof mark, "m%d-%d", k, r);
      pthread_mutex_lock (&turn);
      e->time_ns = now_ns ();
      heaplens_metadata_set_string ("phase", e->value);
      {
        void *volatile p = malloc ((size_t) (100000 + 100 * k + r));
        (void) p; /* kept: the block of this value */
      }
      heaplens_mark (mark);
      spin_us (70); /* the next set 2 grains of the fine clock later */
      pthread_mutex_unlock (&turn);
      spin_us (50 + 37 * k);
    }
  pthread_barrier_wait (&end);
  return NULL;
}

static void
log_line (int         fd,
          const char *value,
          long long   time_ns)
{
  char line[64];
  int n = snprintf (line, sizeof line, "phase %s %lld\n", value, time_ns);
  if (write (fd, line, (size_t) n) != n)
    exit (1);
}

int
main (int    argc,
      char **argv)
{
  pthread_t threads[N_THREADS];
  long long main_ns;
  int fd;

  if (argc != 2)
    return 2;
  fd = open (argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return 1;
  pthread_barrier_init (&start, NULL, N_THREADS);
  pthread_barrier_init (&end, NULL, N_THREADS);
  main_ns = now_ns ();
  heaplens_metadata_set_string ("phase", "main");
  for (long k = 0; k < N_THREADS; k++)
    pthread_create (&threads[k], NULL, worker, (void *) k);
  for (int k = 0; k < N_THREADS; k++)
    pthread_join (threads[k], NULL);

  log_line (fd, "main", main_ns);
  for (int k = 0; k < N_THREADS; k++)
    for (int r = 0; r < N_ROUNDS; r++)
      log_line (fd, entries[k][r].value, entries[k][r].time_ns);
  close (fd);
  if (write (1, "t-meta: ok\n", 11) != 11)
    return 1;
  return 0;
}
