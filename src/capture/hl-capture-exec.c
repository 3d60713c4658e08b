/* hl-capture-exec.c — exec: buffers flushed and the session ended first
 * (resumed if the exec fails); with HEAPLENS_FOLLOW=none the preload is
 * removed from the process's LD_PRELOAD at start, and from the
 * environments passed to exec* and posix_spawn*.
 *
 * A program that cannot take the preload (hl-capture-refusal.c) is
 * started without it, whatever HEAPLENS_FOLLOW says; the trace gets a
 * mark that names it and why, and the session the flag UNFOLLOWED, which
 * `heaplens-cli record` and the live panel report.
 */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- programs that cannot take the preload (hl-capture-refusal.c) ----------- */

/* TEXT: "VERB PATH", and when the program runs without the preload, why. */
static void
start_text (char       *text,
            size_t      cap,
            const char *verb,
            const char *path,
            const char *refusal)
{
  size_t n = hl_strlcpy (text, verb, cap);
  n += hl_strlcpy (text + n, path ? path : "", cap - (n < cap ? n : cap));
  if (refusal == NULL || n >= cap)
    return;
  n += hl_strlcpy (text + n, hl_refusal_is_foreign (refusal) ? " (run without the preload: "
                                                     : " (run without the preload: built with ",
                   cap - n);
  if (n < cap)
    n += hl_strlcpy (text + n, refusal, cap - n);
  if (n < cap)
    hl_strlcpy (text + n, ")", cap - n);
}

/* A program started without the preload: the session's flag. Also from a
 * vfork child (or one cloned without the atfork handlers), whose mapping is
 * the parent's segment: the parent's session gets it, where its marks
 * cannot be written (the buffers are the parent's). */
static void
flag_unfollowed (void)
{
  HlShmHeader *hdr = hl_g.hdr;
  if (hdr != NULL)
    __atomic_fetch_or (&hdr->flags, (uint32_t) HL_SHM_FLAG_UNFOLLOWED, __ATOMIC_RELAXED);
}

/* posix_spawn* of a program that runs without the preload: said in the
 * session and the trace. */
static void
note_spawn_unfollowed (const char *path,
                       const char *refusal)
{
  flag_unfollowed ();
  if (!hl_active () || hl_tls.guard > 0 || (uint32_t) getpid () != hl_g.pid)
    return;
  int e = errno;
  hl_tls.guard++;
  HlThreadBlock *b = hl_thread_block ();
  if (b != NULL)
    {
      uint64_t now = hl_now ();
      char text[300];
      start_text (text, sizeof text, "spawn ", path, refusal);
      atomic_store_explicit (&b->busy, 1, memory_order_relaxed);
      HL_TRACE_EMIT (b, now, hl_packet_writer_mark (w_, now, text));
      atomic_store_explicit (&b->busy, 0, memory_order_relaxed);
    }
  hl_tls.guard--;
  errno = e;
}

/* ---- exec -------------------------------------------------------------------- */

/* An exec in a child that shares its parent's memory (vfork, as dash and
 * system()'s shell start commands) of a program run without the preload:
 * the mark goes into the buffer of the parent's thread, suspended in
 * vfork outside the preload, which writes it with its next packet. Only
 * when it fits: a flush here would write the buffer twice were this a
 * child with a copy of the parent's memory (a raw clone without the fork
 * handlers), where the mark is lost with the copy instead. */
static void
mark_in_parent_buffer (const char *path,
                       const char *refusal)
{
  HlThreadBlock *b = hl_thread_block_current ();
  if (b == NULL || hl_g.trace_fd < 0 || hl_tls.guard > 0 || hl_tls.dead)
    return;
  hl_tls.guard++;
  uint64_t now = hl_now_for (b);
  char text[300];
  start_text (text, sizeof text, "exec ", path, refusal);
  (void) hl_packet_writer_mark (hl_trace_writer (b, now), now, text);
  hl_tls.guard--;
}

/* Before the image is replaced: everything written, the session ended,
 * the trace told by what (hl_capture_note_exec). */
static void
before_exec (const char *path,
             const char *refusal)
{
  if (refusal != NULL)
    flag_unfollowed ();
  if (!hl_active () || hl_tls.guard > 0)
    return;
  if ((uint32_t) getpid () != hl_g.pid)
    {
      if (refusal != NULL)
        mark_in_parent_buffer (path, refusal);
      return;
    }
  hl_tls.guard++;
  /* (a forked child that exec's at once has no block yet) */
  HlThreadBlock *b = hl_thread_block ();
  uint64_t now = hl_now ();
  if (b != NULL)
    {
      char text[300];
      start_text (text, sizeof text, "exec ", path, refusal);
      HL_TRACE_EMIT (b, now, hl_packet_writer_mark (w_, now, text));
    }
  hl_tls.guard--;
  hl_capture_finish (-1, false, true, false);
  /* after the END: what replaced the image, which report shows */
  hl_capture_note_exec (path);
}

static void
after_failed_exec (void)
{
  if (!hl_active () || (uint32_t) getpid () != hl_g.pid)
    return;
  hl_capture_note_exec (NULL); /* the image was not replaced */
  atomic_store (&hl_g.ended, 0);
  if (hl_g.hdr != NULL)
    {
      __atomic_fetch_and (&hl_g.hdr->flags, ~(uint32_t) HL_SHM_FLAG_ENDED_BY_EXEC, __ATOMIC_RELAXED);
      __atomic_store_n (&hl_g.hdr->state_atomic, HL_SHM_STATE_RUNNING, __ATOMIC_RELEASE);
    }
}

/* Copies the LD_PRELOAD value VALUE (after "LD_PRELOAD=") without the
 * preload's entries to OUT (which may be VALUE itself: it never writes
 * ahead of what it reads); returns the length written. */
static size_t
preload_without_us (const char *value,
                    char       *out,
                    size_t      cap)
{
  size_t len = 0;
  const char *p = value;
  while (*p)
    {
      const char *end = p;
      while (*end && *end != ':' && *end != ' ')
        end++;
      size_t w = (size_t) (end - p);
      bool mine = w > 0 && memmem (p, w, "libheaplens-preload", 19) != NULL;
      if (w > 0 && !mine && len + (len > 0) + w + 1 <= cap)
        {
          if (len > 0)
            out[len++] = ':';
          memmove (out + len, p, w);
          len += w;
        }
      p = *end ? end + 1 : end;
    }
  out[len] = '\0';
  return len;
}

/* A copy of an environment whose LD_PRELOAD lacks the preload. Small
 * ones live in the struct (1.3 KiB of the caller's stack: the exec and
 * spawn functions run on whatever stack the program gives them, a 16 KiB
 * thread's among them, where 20 KiB of fixed arrays crashed); larger ones
 * in pages of their own, unmapped by env_copy_release (an exec that
 * succeeds takes them with the image; in a vfork child they stay in the
 * parent, a rare and small loss). */
#define HL_ENV_SMALL   96u
#define HL_VALUE_SMALL 512u

typedef struct
{
  char  *small_env[HL_ENV_SMALL];
  char   small_value[HL_VALUE_SMALL];
  void  *map;
  size_t map_len;
} HlEnvCopy;

static void
env_copy_release (HlEnvCopy *c)
{
  if (c->map == NULL)
    return;
  int e = errno;
  hl_sys_munmap (c->map, c->map_len);
  c->map = NULL;
  errno = e;
}

/* With HEAPLENS_FOLLOW=none or a REFUSAL (the program cannot take the
 * preload), ENVP without the preload in its LD_PRELOAD (an LD_PRELOAD left
 * empty is dropped), built in C; else ENVP itself. */
static char *const *
filter_env (char *const *envp,
            const char  *refusal,
            HlEnvCopy   *c)
{
  c->map = NULL;
  if ((hl_g.cfg.follow && refusal == NULL) || envp == NULL)
    return envp;
  size_t n = 0, value_len = 0;
  for (; envp[n] != NULL; n++)
    if (strncmp (envp[n], "LD_PRELOAD=", 11) == 0)
      value_len += strlen (envp[n]) + 1;
  char **out = c->small_env;
  char *value = c->small_value;
  size_t value_cap = sizeof c->small_value;
  if (n + 1 > HL_ENV_SMALL || value_len > HL_VALUE_SMALL)
    {
      size_t len = (n + 1) * sizeof (char *) + value_len + 16;
      void *m = hl_sys_mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
        return envp; /* (no memory: the exec is as the program asked) */
      c->map = m;
      c->map_len = len;
      out = m;
      value = (char *) m + (n + 1) * sizeof (char *);
      value_cap = value_len + 16;
    }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (strncmp (envp[i], "LD_PRELOAD=", 11) != 0)
        {
          out[k++] = envp[i];
          continue;
        }
      /* each LD_PRELOAD entry gets its own part of VALUE (a program may
       * pass two; the loader takes the first) */
      size_t len = hl_strlcpy (value, "LD_PRELOAD=", value_cap);
      size_t kept = preload_without_us (envp[i] + 11, value + len, value_cap - len);
      if (kept > 0)
        {
          out[k++] = value;
          value += len + kept + 1;
          value_cap -= len + kept + 1;
        }
    }
  out[k] = NULL;
  return out;
}

extern char **environ;

/* HEAPLENS_FOLLOW=none, at start: the preload leaves the process's own
 * environment, so that no child image loads it, however it is started
 * (system(), popen() and glibc's other internal spawns do not go through
 * the functions below). The program's own LD_PRELOAD entries stay; an
 * LD_PRELOAD left empty is removed. Edited in place: no allocation. */
void
hl_exec_unfollow_environ (void)
{
  if (hl_g.cfg.follow || environ == NULL)
    return;
  for (char **e = environ; *e != NULL; e++)
    {
      if (strncmp (*e, "LD_PRELOAD=", 11) != 0)
        continue;
      if (preload_without_us (*e + 11, *e + 11, strlen (*e + 11) + 1) > 0)
        continue;
      char **q = e;
      do
        q[0] = q[1];
      while (*q++ != NULL);
      e--;
    }
}

/* An exec* that returned (it failed): the environment copy released, the
 * session resumed, errno as the exec left it. */
static int
exec_returned (int        rc,
               HlEnvCopy *env)
{
  int e = errno;
  env_copy_release (env);
  after_failed_exec ();
  errno = e;
  return rc;
}

typedef int (*ExecveFunc) (const char *, char *const[], char *const[]);

HL_EXPORT int
execve (const char  *path,
        char *const  argv[],
        char *const  envp[])
{
  static ExecveFunc real;
  if (real == NULL)
    real = (ExecveFunc) hl_dlsym_next ("execve");
  HlEnvCopy env;
  const char *refusal = hl_g.cfg.follow ? hl_refusal_of_file (path, false) : NULL;
  before_exec (path, refusal);
  int rc = real (path, argv, filter_env (envp, refusal, &env));
  return exec_returned (rc, &env);
}

HL_EXPORT int
execvpe (const char  *file,
         char *const  argv[],
         char *const  envp[])
{
  static ExecveFunc real;
  if (real == NULL)
    real = (ExecveFunc) hl_dlsym_next ("execvpe");
  HlEnvCopy env;
  const char *refusal = hl_g.cfg.follow ? hl_refusal_of_file (file, true) : NULL;
  before_exec (file, refusal);
  int rc = real (file, argv, filter_env (envp, refusal, &env));
  return exec_returned (rc, &env);
}

HL_EXPORT int
execv (const char  *path,
       char *const  argv[])
{
  return execve (path, argv, environ);
}

HL_EXPORT int
execvp (const char  *file,
        char *const  argv[])
{
  return execvpe (file, argv, environ);
}

HL_EXPORT int
fexecve (int          fd,
         char *const  argv[],
         char *const  envp[])
{
  static int (*real) (int, char *const[], char *const[]);
  if (real == NULL)
    real = (int (*) (int, char *const[], char *const[])) hl_dlsym_next ("fexecve");
  HlEnvCopy env;
  const char *refusal = hl_g.cfg.follow ? hl_refusal_of_fd (fd) : NULL;
  before_exec ("(fd)", refusal);
  int rc = real (fd, argv, filter_env (envp, refusal, &env));
  return exec_returned (rc, &env);
}

/* execveat (glibc 2.34): PATH relative to DIRFD, or DIRFD itself with
 * AT_EMPTY_PATH. Without it in libc (older glibc), the system call. */
typedef int (*ExecveatFunc) (int, const char *, char *const[], char *const[], int);

HL_EXPORT int
execveat (int          dirfd,
          const char  *path,
          char *const  argv[],
          char *const  envp[],
          int          flags)
{
  static ExecveatFunc real;
  if (real == NULL)
    real = (ExecveatFunc) hl_dlsym_next ("execveat");
  /* (glibc declares PATH nonnull; a program that passes NULL gets EFAULT
   * from the kernel, not a crash from us) */
  const char *volatile path_v = path;
  const char *name = path_v;
  HlEnvCopy env;
  const char *refusal = hl_g.cfg.follow ? hl_refusal_of_at (dirfd, name, flags) : NULL;
  before_exec (name != NULL && name[0] != '\0' ? name : "(fd)", refusal);
  char *const *use_env = filter_env (envp, refusal, &env);
  int rc = real != NULL ? real (dirfd, path, argv, use_env, flags)
                        : (int) syscall (SYS_execveat, dirfd, path, argv, use_env, flags);
  return exec_returned (rc, &env);
}

/* execl, execlp, execle: the variadic arguments, counted first (a copy of
 * the list), then gathered into an array of their number on the stack:
 * no fixed 8 KiB array on a stack that may be a small thread's. */
static size_t
count_args (const char *first,
            va_list     ap)
{
  va_list cp;
  va_copy (cp, ap);
  size_t n = 1;
  for (const char *a = first; a != NULL; a = va_arg (cp, const char *))
    n++;
  va_end (cp);
  return n; /* with the NULL */
}

static void
gather_args (char       **argv,
             const char  *first,
             va_list      ap)
{
  size_t n = 0;
  argv[n++] = (char *) first;
  while (argv[n - 1] != NULL)
    argv[n++] = va_arg (ap, char *);
}

HL_EXPORT int
execl (const char *path,
       const char *arg,
       ...)
{
  va_list ap;
  va_start (ap, arg);
  char *argv[count_args (arg, ap)];
  gather_args (argv, arg, ap);
  va_end (ap);
  return execve (path, argv, environ);
}

HL_EXPORT int
execlp (const char *file,
        const char *arg,
        ...)
{
  va_list ap;
  va_start (ap, arg);
  char *argv[count_args (arg, ap)];
  gather_args (argv, arg, ap);
  va_end (ap);
  return execvpe (file, argv, environ);
}

HL_EXPORT int
execle (const char *path,
        const char *arg,
        ...)
{
  va_list ap;
  va_start (ap, arg);
  char *argv[count_args (arg, ap)];
  gather_args (argv, arg, ap);
  char *const *envp = va_arg (ap, char *const *);
  va_end (ap);
  return execve (path, argv, envp);
}

typedef int (*SpawnFunc) (pid_t *, const char *, const posix_spawn_file_actions_t *,
                          const posix_spawnattr_t *, char *const[], char *const[]);

/* posix_spawn (SEARCH false) and posix_spawnp (true), through REAL. */
static int
spawn_common (SpawnFunc                         real,
              bool                              search,
              pid_t                            *pid,
              const char                       *file,
              const posix_spawn_file_actions_t *actions,
              const posix_spawnattr_t          *attr,
              char *const                       argv[],
              char *const                       envp[])
{
  HlEnvCopy env;
  const char *refusal = hl_g.cfg.follow ? hl_refusal_of_file (file, search) : NULL;
  if (refusal != NULL)
    note_spawn_unfollowed (file, refusal);
  int rc = real (pid, file, actions, attr, argv, filter_env (envp, refusal, &env));
  env_copy_release (&env);
  return rc;
}

HL_EXPORT int
posix_spawn (pid_t                            *pid,
             const char                       *path,
             const posix_spawn_file_actions_t *actions,
             const posix_spawnattr_t          *attr,
             char *const                       argv[],
             char *const                       envp[])
{
  static SpawnFunc real;
  if (real == NULL)
    real = (SpawnFunc) hl_dlsym_next ("posix_spawn");
  return spawn_common (real, false, pid, path, actions, attr, argv, envp);
}

HL_EXPORT int
posix_spawnp (pid_t                            *pid,
              const char                       *file,
              const posix_spawn_file_actions_t *actions,
              const posix_spawnattr_t          *attr,
              char *const                       argv[],
              char *const                       envp[])
{
  static SpawnFunc real;
  if (real == NULL)
    real = (SpawnFunc) hl_dlsym_next ("posix_spawnp");
  return spawn_common (real, true, pid, file, actions, attr, argv, envp);
}
