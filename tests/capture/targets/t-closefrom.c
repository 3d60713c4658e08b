/* t-closefrom DIR: a program that closes every descriptor above 2 (as a
 * daemon does), then puts a file of its own on every number from 3 to 599
 * (the preload keeps its trace at 500 or above), allocates, forks a child
 * that allocates and finds each of them still that file, and writes a
 * line into the file. The file must hold that line alone: the preload never writes
 * into, nor closes, a descriptor that is no longer its own (its trace's,
 * nor the one it samples RSS through: 30 ms pass before the close, so
 * that a sample was taken). It changes directory first: a relative trace
 * name still finds the trace, and the child's trace is written beside
 * the program's. 2000 allocations and frees before the close,
 * 3000 after, 500 in the child. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
churn (int n)
{
  for (int i = 0; i < n; i++)
    {
      char *volatile p = malloc (48 + (size_t) (i % 200));
      p[0] = (char) i;
      free (p);
    }
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  churn (1000);
  struct timespec pause = { 0, 30 * 1000 * 1000 };
  nanosleep (&pause, NULL);
  churn (1000);
  if (chdir ("/") != 0)
    return 8;
  for (int fd = 3; fd < 1024; fd++)
    close (fd);
  char path[4096];
  snprintf (path, sizeof path, "%s/own", argv[1]);
  int own = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (own != 3)
    return 3;
  for (int fd = 4; fd < 600; fd++)
    if (dup2 (own, fd) != fd)
      return 4;
  churn (3000);
  pid_t child = fork ();
  if (child == 0)
    {
      churn (500);
      struct stat mine, st;
      if (fstat (own, &mine) != 0)
        _exit (7);
      for (int fd = 3; fd < 600; fd++)
        if (fstat (fd, &st) != 0 || st.st_dev != mine.st_dev || st.st_ino != mine.st_ino)
          _exit (7);
      _exit (0);
    }
  int status;
  if (child < 0 || waitpid (child, &status, 0) != child || status != 0)
    return 5;
  const char line[] = "the program's own line\n";
  if (write (own, line, sizeof line - 1) != (ssize_t) sizeof line - 1)
    return 6;
  for (int fd = 3; fd < 600; fd++)
    close (fd);
  puts ("t-closefrom: ok");
  return 0;
}
