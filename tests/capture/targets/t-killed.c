/* t-killed — four threads allocate without end, each writing its own
 * count and the time to descriptor 3 just before each call ("thread
 * count time_ns"), until the process is killed: the log says which
 * allocations reached the preload, and when (test-killed). With
 * T_KILLED_LOG=FILE the log goes to FILE instead (a launcher that passes
 * no descriptor 3: the application's, tests/app/test-live.c). With
 * T_KILLED_IDLE=N a fifth thread ("4 count time_ns" in the log) makes N
 * allocations of IDLE_SIZE bytes, keeps them, and then waits for the kill
 * without another call: its last packet is only in its slot of the
 * session (test-killed-report). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING 64
#define IDLE_SIZE 4321

static void *
idle_worker (void *arg)
{
  unsigned long n = (unsigned long) arg;
  for (unsigned long i = 1; i <= n; i++)
    {
      struct timespec ts;
      char line[64];
      clock_gettime (CLOCK_MONOTONIC, &ts);
      int len = snprintf (line, sizeof line, "4 %lu %llu\n", i,
                          (unsigned long long) ts.tv_sec * 1000000000ull + (unsigned long long) ts.tv_nsec);
      if (write (3, line, (size_t) len) != len)
        _exit (3);
      if (malloc (IDLE_SIZE) == NULL)
        _exit (4);
    }
  for (;;)
    pause ();
  return NULL;
}

static void *
worker (void *arg)
{
  int k = (int) (long) arg;
  void *ring[RING] = { 0 };
  for (unsigned long i = 1;; i++)
    {
      struct timespec ts;
      char line[64];
      clock_gettime (CLOCK_MONOTONIC, &ts);
      int n = snprintf (line, sizeof line, "%d %lu %llu\n", k, i,
                        (unsigned long long) ts.tv_sec * 1000000000ull + (unsigned long long) ts.tv_nsec);
      if (write (3, line, (size_t) n) != n)
        _exit (3);
      free (ring[i % RING]);
      ring[i % RING] = malloc (16 + i % 200);
      if (i % 64 == 0)
        usleep (100);
    }
  return NULL;
}

int
main (void)
{
  pthread_t t[4];
  const char *log = getenv ("T_KILLED_LOG");
  if (log != NULL)
    {
      int fd = open (log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0 || dup2 (fd, 3) != 3)
        return 2;
    }
  const char *idle = getenv ("T_KILLED_IDLE");
  if (idle != NULL)
    {
      pthread_t it;
      pthread_create (&it, NULL, idle_worker, (void *) strtoul (idle, NULL, 10));
    }
  for (long k = 0; k < 4; k++)
    pthread_create (&t[k], NULL, worker, (void *) k);
  for (int k = 0; k < 4; k++)
    pthread_join (t[k], NULL);
  return 0;
}
