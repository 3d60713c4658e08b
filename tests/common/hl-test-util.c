/* hl-test-util.c — see hl-test-util.h. */
#define _GNU_SOURCE
#include "hl-test-util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int tap_planned = -1;
static int tap_count;
static int tap_failed;

void
hl_tap_plan (int n_cases)
{
  tap_planned = n_cases;
  printf ("1..%d\n", n_cases);
  fflush (stdout);
}

bool
hl_tap_ok (bool cond, const char *name_fmt, ...)
{
  va_list ap;
  printf ("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
  va_start (ap, name_fmt);
  vprintf (name_fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
  if (!cond)
    tap_failed++;
  return cond;
}

void
hl_tap_diag (const char *fmt, ...)
{
  va_list ap;
  printf ("# ");
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
}

int
hl_tap_finish (void)
{
  if (tap_planned >= 0 && tap_count != tap_planned)
    {
      hl_tap_diag ("planned %d cases, ran %d", tap_planned, tap_count);
      return 1;
    }
  return tap_failed ? 1 : 0;
}

char *
hl_test_tmpdir_new (const char *prefix)
{
  const char *base = getenv ("TMPDIR");
  char *path = NULL;
  if (asprintf (&path, "%s/%s-XXXXXX", base && *base ? base : "/tmp", prefix) < 0)
    return NULL;
  if (mkdtemp (path) == NULL)
    {
      free (path);
      return NULL;
    }
  return path;
}

static void
remove_tree (const char *path)
{
  DIR *dir = opendir (path);
  if (dir != NULL)
    {
      struct dirent *e;
      while ((e = readdir (dir)) != NULL)
        {
          if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
            continue;
          char *child = NULL;
          if (asprintf (&child, "%s/%s", path, e->d_name) < 0)
            continue;
          struct stat st;
          if (lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
            remove_tree (child);
          else
            unlink (child);
          free (child);
        }
      closedir (dir);
    }
  rmdir (path);
}

void
hl_test_tmpdir_remove (char *path)
{
  if (path == NULL)
    return;
  remove_tree (path);
  free (path);
}

char *
hl_test_read_file (const char *path, size_t *len_out)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc (cap);
  while (buf != NULL)
    {
      if (len + 1 >= cap)
        {
          char *grown = realloc (buf, cap * 2);
          if (grown == NULL)
            {
              free (buf);
              buf = NULL;
              break;
            }
          buf = grown;
          cap *= 2;
        }
      ssize_t n = read (fd, buf + len, cap - len - 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          free (buf);
          buf = NULL;
          break;
        }
      if (n == 0)
        break;
      len += (size_t) n;
    }
  close (fd);
  if (buf != NULL)
    {
      buf[len] = '\0';
      if (len_out)
        *len_out = len;
    }
  return buf;
}

/* Appends what is readable on FD to *BUF; returns false at EOF. */
static bool
drain (int fd, char **buf, size_t *len)
{
  char chunk[4096];
  ssize_t n = read (fd, chunk, sizeof chunk);
  if (n < 0 && errno == EINTR)
    return true;
  if (n <= 0)
    return false;
  char *grown = realloc (*buf, *len + (size_t) n + 1);
  if (grown == NULL)
    return false;
  memcpy (grown + *len, chunk, (size_t) n);
  *len += (size_t) n;
  grown[*len] = '\0';
  *buf = grown;
  return true;
}

bool
hl_test_run (char *const argv[], char *const extra_env[], HlTestRun *out)
{
  int out_pipe[2], err_pipe[2];
  memset (out, 0, sizeof *out);
  if (pipe2 (out_pipe, O_CLOEXEC) != 0)
    return false;
  if (pipe2 (err_pipe, O_CLOEXEC) != 0)
    {
      close (out_pipe[0]);
      close (out_pipe[1]);
      return false;
    }

  pid_t pid = fork ();
  if (pid < 0)
    return false;
  if (pid == 0)
    {
      dup2 (out_pipe[1], STDOUT_FILENO);
      dup2 (err_pipe[1], STDERR_FILENO);
      for (size_t i = 0; extra_env != NULL && extra_env[i] != NULL; i++)
        putenv (extra_env[i]);
      execve (argv[0], argv, environ);
      _exit (127);
    }
  close (out_pipe[1]);
  close (err_pipe[1]);

  size_t out_len = 0, err_len = 0;
  out->out = calloc (1, 1);
  out->err = calloc (1, 1);
  struct pollfd fds[2] = { { out_pipe[0], POLLIN, 0 }, { err_pipe[0], POLLIN, 0 } };
  int open_fds = 2;
  while (open_fds > 0)
    {
      if (poll (fds, 2, -1) < 0 && errno != EINTR)
        break;
      for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
          {
            if (!drain (fds[i].fd, i == 0 ? &out->out : &out->err, i == 0 ? &out_len : &err_len))
              {
                close (fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
              }
          }
    }

  int status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  out->exit_status = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  return true;
}

void
hl_test_run_clear (HlTestRun *run)
{
  free (run->out);
  free (run->err);
  memset (run, 0, sizeof *run);
}

const char *
hl_test_build_path (const char *relative)
{
  static char path[4096];
  const char *root = getenv ("HL_BUILD_ROOT");
  snprintf (path, sizeof path, "%s/%s", root ? root : ".", relative);
  return path;
}

const char *
hl_test_preload_path (void)
{
  if (getenv ("HL_BUILD_ROOT") == NULL)
    return NULL;
  return hl_test_build_path ("src/capture/libheaplens-preload.so");
}
