/* t-reach — blocks of every reachability kind at exit, for the leak
 * scan's oracle (test-leakscan.sh, against Valgrind memcheck):
 *   definitely lost: the head of a 10-node list dropped whole (32 bytes),
 *     one block of a 2-block cycle (48), a block with no pointer (24);
 *   indirectly lost: the list's other 9 nodes (9 x 32), the cycle's other
 *     block (48);
 *   possibly lost: a block pointed to only 16 bytes in (64);
 *   still reachable: a block held by a global (100), one held only on a
 *     thread's stack while it is blocked at exit (200), a chain of two from
 *     a global (40 + 40), and stdout's buffer (the program prints).
 * With "print" it prints; with "_exit" too, then ends by _exit (the
 * preload's _exit hook runs the scan). The exit status is 3 either way
 * (the scan must keep it). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node
{
  struct node *next;
  char         payload[24];
};

void *keep_global;
char *keep_interior;
void **keep_chain;
static int ready[2], hold[2];

static __attribute__ ((noinline)) void
drop_list (void)
{
  struct node *head = NULL;
  for (int i = 0; i < 10; i++)
    {
      struct node *n = malloc (sizeof *n);
      memset (n, 0, sizeof *n);
      n->next = head;
      head = n;
    }
  __asm__ volatile ("" : : "r" (head) : "memory");
}

static __attribute__ ((noinline)) void
drop_cycle (void)
{
  void **a = malloc (48), **b = malloc (48);
  memset (a, 0, 48);
  memset (b, 0, 48);
  a[0] = b;
  b[0] = a;
  __asm__ volatile ("" : : "r" (a), "r" (b) : "memory");
}

static __attribute__ ((noinline)) void
drop_plain (void)
{
  void *p = malloc (24);
  memset (p, 0, 24);
  __asm__ volatile ("" : : "r" (p) : "memory");
}

static void *
thread_main (void *arg)
{
  (void) arg;
  void *volatile mine = malloc (200);
  memset (mine, 0, 200);
  char c = 1;
  (void) !write (ready[1], &c, 1);
  /* blocked until the process exits */
  (void) !read (hold[0], &c, 1);
  return mine;
}

/* Zeroes the stack below the caller's frame: no stale copy of a pointer
 * stays there. */
static __attribute__ ((noinline)) void
scrub (void)
{
  volatile char area[32768];
  memset ((char *) area, 0, sizeof area);
  __asm__ volatile ("" : : "r" (area) : "memory");
}

/* "wait READY GO": says it is ready (creates READY), then allocates and
 * frees a small block every millisecond (so that a leak scan asked for on
 * demand runs) until GO exists, at most 60 s, then exits as "print" does
 * (tests/capture/test-leakscan-demand.sh). */
static __attribute__ ((noinline)) void
wait_for (const char *ready_path,
          const char *go_path)
{
  int fd = open (ready_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0)
    close (fd);
  for (int i = 0; i < 60000 && access (go_path, F_OK) != 0; i++)
    {
      void *volatile p = malloc (16);
      free (p);
      usleep (1000);
    }
  scrub ();
}

int
main (int    argc,
      char **argv)
{
  pthread_t t;
  char c;
  if (pipe (ready) != 0 || pipe (hold) != 0)
    return 1;
  keep_global = malloc (100);
  memset (keep_global, 0, 100);
  keep_interior = (char *) malloc (64) + 16;
  keep_chain = malloc (40);
  memset (keep_chain, 0, 40);
  keep_chain[0] = malloc (40);
  memset (keep_chain[0], 0, 40);
  drop_list ();
  drop_cycle ();
  drop_plain ();
  if (pthread_create (&t, NULL, thread_main, NULL) != 0 || read (ready[0], &c, 1) != 1)
    return 1;
  if (argc > 1 && (strcmp (argv[1], "print") == 0 || strcmp (argv[1], "_exit") == 0
                   || strcmp (argv[1], "wait") == 0))
    printf ("t-reach printed this line\n");
  scrub ();
  if (argc > 3 && strcmp (argv[1], "wait") == 0)
    wait_for (argv[2], argv[3]);
  if (argc > 1 && strcmp (argv[1], "_exit") == 0)
    {
      fflush (stdout);
      _exit (3);
    }
  exit (3);
}
