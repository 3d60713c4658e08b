/* t-starter NAME PATH: starts the program PATH (NAME: its name, found
 * through PATH) in each way a program can, one after the other, and
 * prints each one's exit status: fork and execv, fork and execvp (by
 * name), vfork and execv, fork and fexecve (of an O_PATH descriptor),
 * fork and execveat (relative to a directory descriptor), posix_spawn, posix_spawnp, system(). Output is deterministic. With the preload, a program that
 * cannot take it (t-asan) must run as without it in every case. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void
report (const char *how,
        pid_t       pid)
{
  int status;
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    {
      printf ("%s: not started\n", how);
      return;
    }
  printf ("%s: %s %d\n", how, WIFEXITED (status) ? "exit" : "signal",
          WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status));
  fflush (stdout);
}

int
main (int    argc,
      char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: t-starter NAME PATH\n");
      return 2;
    }
  const char *name = argv[1], *path = argv[2];
  char *args[] = { (char *) name, NULL };
  /* the children's output comes after what is already printed */
  setvbuf (stdout, NULL, _IONBF, 0);
  free (malloc (64));

  pid_t pid = fork ();
  if (pid == 0)
    {
      execv (path, args);
      _exit (127);
    }
  report ("fork+execv", pid);

  pid = fork ();
  if (pid == 0)
    {
      execvp (name, args);
      _exit (127);
    }
  report ("fork+execvp", pid);

  pid = vfork ();
  if (pid == 0)
    {
      execv (path, args);
      _exit (127);
    }
  report ("vfork+execv", pid);

  /* an O_PATH descriptor, which cannot be read (the preload reads the
   * image through /proc/self/fd) */
  int fd = open (path, O_PATH | O_CLOEXEC);
  pid = fork ();
  if (pid == 0)
    {
      fexecve (fd, args, environ);
      _exit (127);
    }
  report ("fork+fexecve", pid);
  close (fd);

  /* execveat: the name relative to a descriptor of its directory */
  char dir[4096];
  snprintf (dir, sizeof dir, "%s", path);
  char *slash = strrchr (dir, '/');
  const char *base = path;
  if (slash != NULL)
    {
      *slash = '\0';
      base = path + (slash - dir) + 1;
    }
  int dirfd = open (slash != NULL ? (dir[0] != '\0' ? dir : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  pid = fork ();
  if (pid == 0)
    {
      execveat (dirfd, base, args, environ, 0);
      _exit (127);
    }
  report ("fork+execveat", pid);
  close (dirfd);

  if (posix_spawn (&pid, path, NULL, NULL, args, environ) != 0)
    pid = -1;
  report ("posix_spawn", pid);

  if (posix_spawnp (&pid, name, NULL, NULL, args, environ) != 0)
    pid = -1;
  report ("posix_spawnp", pid);

  char cmd[4096];
  snprintf (cmd, sizeof cmd, "'%s'", path);
  int status = system (cmd);
  printf ("system: exit %d\n", WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return 0;
}
