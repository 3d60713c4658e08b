/* t-range — threads whose allocations a time range cuts in every way, for
 * test-report-seek (issue 26: `report --from/--to` read with the trailing
 * index must equal the report of every event):
 *
 *   three workers ("worker-0..2", started 20 ms apart) allocate for about
 *     300 ms in rings of 64 blocks, and every 8th block is handed to the
 *     "freer" thread, which frees it (frees from another thread);
 *   "idler" makes one block at about 100 ms and none after; the main thread
 *     frees it at the end, so it is temporary (no allocation of its thread
 *     in between) although its free comes long after any range around it;
 *   "late-0..3" start after 400 ms (tids a range before them has not seen),
 *     each makes 100 blocks and leaks 10;
 *   the main thread leaks one block of 1000 bytes every 50 ms.
 *
 * Prints "t-range: done". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING  64
#define QUEUE 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static void *queue[QUEUE];
static unsigned q_head, q_tail;
static int workers_done;
static void *volatile idle_block;
static void *volatile sink;

static void
sleep_ms (unsigned ms)
{
  struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

static void
hand_over (void *p)
{
  pthread_mutex_lock (&lock);
  if (q_tail - q_head < QUEUE)
    {
      queue[q_tail++ % QUEUE] = p;
      p = NULL;
    }
  pthread_cond_signal (&more);
  pthread_mutex_unlock (&lock);
  free (p); /* the queue is full: freed here */
}

static void *
freer (void *arg)
{
  (void) arg;
  pthread_setname_np (pthread_self (), "freer");
  pthread_mutex_lock (&lock);
  for (;;)
    {
      while (q_head == q_tail && workers_done < 3)
        pthread_cond_wait (&more, &lock);
      if (q_head == q_tail)
        break;
      void *p = queue[q_head++ % QUEUE];
      pthread_mutex_unlock (&lock);
      free (p);
      pthread_mutex_lock (&lock);
    }
  pthread_mutex_unlock (&lock);
  return NULL;
}

static void *
worker (void *arg)
{
  long k = (long) arg;
  char name[16];
  void *ring[RING] = { 0 };
  struct timespec start, now;

  snprintf (name, sizeof name, "worker-%ld", k);
  pthread_setname_np (pthread_self (), name);
  clock_gettime (CLOCK_MONOTONIC, &start);
  for (unsigned long i = 1;; i++)
    {
      void *p = malloc (16 + (i * 7 + (unsigned long) k) % 300);
      if (i % 8 == 0)
        hand_over (p);
      else
        {
          free (ring[i % RING]);
          ring[i % RING] = p;
        }
      if (i % 32 == 0)
        {
          usleep (200);
          clock_gettime (CLOCK_MONOTONIC, &now);
          if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > 300)
            break;
        }
    }
  for (int i = 0; i < RING; i++)
    free (ring[i]);
  pthread_mutex_lock (&lock);
  workers_done++;
  pthread_cond_signal (&more);
  pthread_mutex_unlock (&lock);
  return NULL;
}

static void *
idler (void *arg)
{
  (void) arg;
  pthread_setname_np (pthread_self (), "idler");
  sleep_ms (100);
  idle_block = malloc (777);
  return NULL;
}

static void *
late (void *arg)
{
  char name[16];
  void *blocks[100];

  snprintf (name, sizeof name, "late-%ld", (long) arg);
  pthread_setname_np (pthread_self (), name);
  for (int i = 0; i < 100; i++)
    blocks[i] = malloc (64 + (size_t) i);
  for (int i = 10; i < 100; i++)
    free (blocks[i]);
  return NULL;
}

int
main (void)
{
  pthread_t w[3], f, idle, l[4];

  pthread_create (&f, NULL, freer, NULL);
  pthread_create (&idle, NULL, idler, NULL);
  for (long k = 0; k < 3; k++)
    {
      pthread_create (&w[k], NULL, worker, (void *) k);
      sleep_ms (20);
    }
  for (int i = 0; i < 8; i++)
    {
      sink = malloc (1000); /* leaked */
      sleep_ms (50);
    }
  for (int k = 0; k < 3; k++)
    pthread_join (w[k], NULL);
  pthread_join (f, NULL);
  pthread_join (idle, NULL);
  for (long k = 0; k < 4; k++)
    {
      pthread_create (&l[k], NULL, late, (void *) k);
      pthread_join (l[k], NULL);
    }
  sleep_ms (50);
  free (idle_block);
  printf ("t-range: done\n");
  return 0;
}
