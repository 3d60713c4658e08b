/* t-top-diff — a program whose allocations before and after a moment are
 * known, for test-top-diff (`top --diff-after`, issue 30 point 4). With
 * -O0 each function is a frame.
 *
 *   t-top-diff DIR: old_site keeps 20 blocks of 1000 bytes, creates
 *   DIR/ready and waits for DIR/go; then new_site keeps 30 blocks of 500
 *   bytes and temp_site makes 40 of 300 and frees them; it creates
 *   DIR/done and waits for DIR/release (each wait at most 20 s). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *keep[64];
static int n_keep;

static void
wait_for (const char *dir,
          const char *name)
{
  char path[4096];
  struct timespec ms10 = { 0, 10000000L };
  snprintf (path, sizeof path, "%s/%s", dir, name);
  for (int i = 0; i < 2000 && access (path, F_OK) != 0; i++)
    nanosleep (&ms10, NULL);
}

static void
touch (const char *dir,
       const char *name)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  close (open (path, O_WRONLY | O_CREAT, 0600));
}

static void
old_site (void)
{
  for (int i = 0; i < 20; i++)
    keep[n_keep++] = malloc (1000);
}

static void
new_site (void)
{
  for (int i = 0; i < 30; i++)
    keep[n_keep++] = malloc (500);
}

static void
temp_site (void)
{
  for (int i = 0; i < 40; i++)
    {
      void *volatile p = malloc (300);
      free (p);
    }
}

int
main (int    argc,
      char **argv)
{
  if (argc != 2)
    return 2;
  old_site ();
  touch (argv[1], "ready");
  wait_for (argv[1], "go");
  new_site ();
  temp_site ();
  touch (argv[1], "done");
  wait_for (argv[1], "release");
  return 0;
}
