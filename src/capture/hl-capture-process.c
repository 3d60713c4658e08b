/* hl-capture-process.c — process life: fork (the child gets its own session
 * and trace, or none with HEAPLENS_FOLLOW=none), exec (buffers flushed and
 * the session ended first; with HEAPLENS_FOLLOW=none the preload is removed
 * from the new image's LD_PRELOAD), and fatal signals (buffers flushed, the
 * END event written, then the default action runs as it would have).
 *
 * Signal handlers are installed only for terminating signals whose
 * disposition is SIG_DFL; sigaction() and signal() are interposed so that the
 * program sees SIG_DFL there, and a handler it installs simply replaces ours.
 */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Flushing everything --------------------------------------------------- */

static HlTraceBuffer emergency;

/* Flushes every thread's packet that is not being appended to right now
 * (async-signal-safe: only write(2)). */
void
hl_flush_all_for_exit (void)
{
  if (hl_g.blocks == NULL)
    return;
  uint64_t now = hl_now ();
  for (uint32_t i = 0; i < HL_MAX_THREADS; i++)
    {
      HlThreadBlock *b = hl_thread_block_at (i);
      if (!atomic_load_explicit (&b->in_use, memory_order_acquire))
        continue;
      if (b == hl_tls.block ? hl_tls.guard > 1 : atomic_load (&b->busy) != 0)
        continue;
      hl_callsites_flush (b, now);
      hl_trace_flush (b, now);
    }
}

static void
write_end (int status)
{
  if (hl_g.trace_fd < 0)
    return;
  uint64_t now = hl_now ();
  hl_packet_writer_init (&emergency.w, emergency.buf, sizeof emergency.buf, hl_g.pid, hl_sys_gettid ());
  hl_packet_writer_begin (&emergency.w, now);
  hl_packet_writer_end (&emergency.w, now, status);
  size_t len = hl_packet_writer_finish (&emergency.w);
  (void) hl_sys_write_all (hl_g.trace_fd, emergency.buf, len);
}

/* Writes what is buffered, the END event, and marks the session ended.
 * Events after this point are written one packet each; the session stays
 * ACTIVE so that destructors running later are still counted. */
void
hl_capture_finish (int  exit_status,
                   bool have_status,
                   bool by_exec)
{
  /* a vfork child shares our memory and descriptors until it execs or
   * _exits: it must not end the parent's recording */
  if ((uint32_t) getpid () != hl_g.pid)
    return;
  if (atomic_exchange (&hl_g.ended, 1) != 0)
    return;
  hl_tls.guard++;
  hl_unwind_report ();
  int status = have_status ? exit_status : -1;
  HlThreadBlock *b = hl_tls.block;
  if (b != NULL && hl_tls.guard == 1)
    hl_counters_tick (b, hl_now (), true);
  hl_flush_all_for_exit ();
  write_end (status);
  hl_session_end (status, by_exec);
  hl_tls.guard--;
}

/* ---- fork ------------------------------------------------------------------ */

static void
atfork_prepare (void)
{
  hl_tls.guard++;
  if (hl_active () && hl_tls.block != NULL && hl_tls.guard == 1)
    hl_trace_flush (hl_tls.block, hl_now ());
}

static void
atfork_parent (void)
{
  hl_tls.guard--;
}

static void
atfork_child (void)
{
  if (atomic_load (&hl_g.state) != HL_STATE_ACTIVE)
    {
      hl_tls.guard--;
      return;
    }
  atomic_store (&hl_g.state, HL_STATE_INIT);
  hl_g.forked = 1;
  hl_g.pid = (uint32_t) getpid ();
  if (hl_g.trace_fd >= 0)
    close (hl_g.trace_fd);
  hl_g.trace_fd = -1;
  hl_session_detach ();
  hl_sys_rss_reset ();
  hl_modules_reset ();
  hl_thread_after_fork_child ();
  atomic_store (&hl_g.ended, 0);
  atomic_store (&hl_g.exit_status_known, 0);
  if (!hl_g.cfg.follow)
    {
      atomic_store (&hl_g.state, HL_STATE_DISABLED);
      hl_tls.guard--;
      return;
    }
  hl_g.start_mono_ns = hl_sys_now_ns ();
  hl_g.start_wall_ns = hl_sys_wall_ns ();
  atomic_store (&hl_g.next_id_block, 1);
  atomic_store (&hl_g.next_sample_ns, 0);
  if (hl_session_create () != 0)
    {
      atomic_store (&hl_g.state, HL_STATE_DISABLED);
      hl_tls.guard--;
      return;
    }
  if (hl_g.cfg.trace)
    (void) hl_trace_open ();
  hl_session_running ();
  atomic_store (&hl_g.modules_dirty, 1); /* scanned on the first event */
  atomic_store (&hl_g.state, HL_STATE_ACTIVE);
  hl_tls.guard--;
}

void
hl_process_atfork (void)
{
  static bool done;
  if (!done)
    pthread_atfork (atfork_prepare, atfork_parent, atfork_child);
  done = true;
}

/* ---- Fatal signals -------------------------------------------------------- */

static const int fatal_signals[] = {
  SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV,
  SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS, SIGUSR1, SIGUSR2,
};

static _Atomic int ours[NSIG];

typedef int (*SigactionFunc) (int, const struct sigaction *, struct sigaction *);
static SigactionFunc real_sigaction;

static void
resolve_sigaction (void)
{
  if (real_sigaction == NULL)
    real_sigaction = (SigactionFunc) dlsym (RTLD_NEXT, "sigaction");
}

static void
fatal_handler (int sig)
{
  int e = errno;
  if (hl_active ())
    hl_capture_finish (128 + sig, true, false);
  /* run the default action, as without us */
  struct sigaction dfl;
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  atomic_store (&ours[sig], 0);
  real_sigaction (sig, &dfl, NULL);
  errno = e;
  if (sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE)
    raise (sig); /* delivered when the handler returns (the signal is blocked here) */
  /* a fault re-executes the faulting instruction and takes the default action */
}

void
hl_process_install_signals (void)
{
  resolve_sigaction ();
  const char *s = getenv ("HEAPLENS_SIGNALS");
  if (s != NULL && strcmp (s, "0") == 0)
    return;
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    {
      int sig = fatal_signals[i];
      struct sigaction old;
      if (real_sigaction (sig, NULL, &old) != 0)
        continue;
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
        continue;
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = fatal_handler;
      sigemptyset (&sa.sa_mask);
      sa.sa_flags = SA_RESTART | SA_ONSTACK;
      atomic_store (&ours[sig], 1);
      if (real_sigaction (sig, &sa, NULL) != 0)
        atomic_store (&ours[sig], 0);
    }
}

HL_EXPORT int
sigaction (int                     sig,
           const struct sigaction *act,
           struct sigaction       *old)
{
  resolve_sigaction ();
  if (sig <= 0 || sig >= NSIG || !atomic_load (&ours[sig]))
    return real_sigaction (sig, act, old);
  int rc = real_sigaction (sig, act, old);
  if (rc != 0)
    return rc;
  if (old != NULL && old->sa_handler == fatal_handler)
    {
      memset (old, 0, sizeof *old);
      old->sa_handler = SIG_DFL;
      sigemptyset (&old->sa_mask);
    }
  if (act != NULL)
    atomic_store (&ours[sig], 0);
  return 0;
}

HL_EXPORT sighandler_t
signal (int          sig,
        sighandler_t handler)
{
  static sighandler_t (*real_signal) (int, sighandler_t);
  if (sig <= 0 || sig >= NSIG || !atomic_load (&ours[sig]))
    {
      if (real_signal == NULL)
        real_signal = (sighandler_t (*) (int, sighandler_t)) dlsym (RTLD_NEXT, "signal");
      return real_signal (sig, handler);
    }
  /* one of ours: the program replaces it; report SIG_DFL as before */
  struct sigaction sa, old;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset (&sa.sa_mask);
  if (sig > 0 && sig < NSIG)
    sigaddset (&sa.sa_mask, sig);
  sa.sa_flags = SA_RESTART; /* BSD semantics, as glibc's signal() */
  if (sigaction (sig, &sa, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}

/* ---- _exit ---------------------------------------------------------------
 * A program's own call to _exit()/_Exit() skips the exit handlers: finish
 * the recording first. (exit() reaches libc's _exit internally, after our
 * on_exit handler has run.) */

typedef void (*ExitFunc) (int);

HL_EXPORT void
_exit (int status)
{
  static ExitFunc real;
  if (real == NULL)
    real = (ExitFunc) dlsym (RTLD_NEXT, "_exit");
  if (hl_active () && hl_tls.guard == 0)
    hl_capture_finish (status, true, false);
  real (status);
  __builtin_unreachable ();
}

HL_EXPORT void
_Exit (int status)
{
  _exit (status);
}

/* ---- exec -------------------------------------------------------------------- */

/* Before the image is replaced: everything written, the session ended. */
static void
before_exec (const char *path)
{
  if (!hl_active () || hl_tls.guard > 0 || (uint32_t) getpid () != hl_g.pid)
    return;
  hl_tls.guard++;
  HlThreadBlock *b = hl_tls.block;
  uint64_t now = hl_now ();
  if (b != NULL)
    {
      char text[300];
      size_t n = hl_strlcpy (text, "exec ", sizeof text);
      hl_strlcpy (text + n, path ? path : "", sizeof text - n);
      HL_TRACE_EMIT (b, now, hl_packet_writer_mark (w_, now, text));
    }
  hl_tls.guard--;
  hl_capture_finish (-1, false, true);
}

static void
after_failed_exec (void)
{
  if (!hl_active () || (uint32_t) getpid () != hl_g.pid)
    return;
  atomic_store (&hl_g.ended, 0);
  if (hl_g.hdr != NULL)
    {
      __atomic_fetch_and (&hl_g.hdr->flags, ~(uint32_t) HL_SHM_FLAG_ENDED_BY_EXEC, __ATOMIC_RELAXED);
      __atomic_store_n (&hl_g.hdr->state_atomic, HL_SHM_STATE_RUNNING, __ATOMIC_RELEASE);
    }
}

/* With HEAPLENS_FOLLOW=none, a copy of ENVP whose LD_PRELOAD lacks the
 * preload, built in the caller-provided arrays. */
static char *const *
filter_env (char *const *envp,
            char       **out,
            size_t       cap,
            char        *value,
            size_t       value_cap)
{
  if (hl_g.cfg.follow || envp == NULL)
    return envp;
  size_t n = 0;
  for (size_t i = 0; envp[i] != NULL && n + 1 < cap; i++)
    {
      if (strncmp (envp[i], "LD_PRELOAD=", 11) != 0)
        {
          out[n++] = envp[i];
          continue;
        }
      size_t len = hl_strlcpy (value, "LD_PRELOAD=", value_cap);
      const char *p = envp[i] + 11;
      while (*p)
        {
          const char *end = p;
          while (*end && *end != ':' && *end != ' ')
            end++;
          size_t w = (size_t) (end - p);
          bool mine = w > 0 && memmem (p, w, "libheaplens-preload", 19) != NULL;
          if (w > 0 && !mine && len + w + 2 < value_cap)
            {
              if (len > 11)
                value[len++] = ':';
              memcpy (value + len, p, w);
              len += w;
            }
          p = *end ? end + 1 : end;
        }
      value[len] = '\0';
      if (len > 11)
        out[n++] = value;
    }
  out[n] = NULL;
  return out;
}

#define HL_ENV_MAX 2048
extern char **environ;

typedef int (*ExecveFunc) (const char *, char *const[], char *const[]);

HL_EXPORT int
execve (const char  *path,
        char *const  argv[],
        char *const  envp[])
{
  static ExecveFunc real;
  if (real == NULL)
    real = (ExecveFunc) dlsym (RTLD_NEXT, "execve");
  char *env[HL_ENV_MAX];
  char value[4096];
  before_exec (path);
  int rc = real (path, argv, filter_env (envp, env, HL_ENV_MAX, value, sizeof value));
  int e = errno;
  after_failed_exec ();
  errno = e;
  return rc;
}

HL_EXPORT int
execvpe (const char  *file,
         char *const  argv[],
         char *const  envp[])
{
  static ExecveFunc real;
  if (real == NULL)
    real = (ExecveFunc) dlsym (RTLD_NEXT, "execvpe");
  char *env[HL_ENV_MAX];
  char value[4096];
  before_exec (file);
  int rc = real (file, argv, filter_env (envp, env, HL_ENV_MAX, value, sizeof value));
  int e = errno;
  after_failed_exec ();
  errno = e;
  return rc;
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
    real = (int (*) (int, char *const[], char *const[])) dlsym (RTLD_NEXT, "fexecve");
  char *env[HL_ENV_MAX];
  char value[4096];
  before_exec ("(fd)");
  int rc = real (fd, argv, filter_env (envp, env, HL_ENV_MAX, value, sizeof value));
  int e = errno;
  after_failed_exec ();
  errno = e;
  return rc;
}

#define HL_ARGS_MAX 1024

/* execl, execlp, execle: collect the variadic arguments. */
#define COLLECT_ARGS(first, ap, argv, n)                   \
  do                                                       \
    {                                                      \
      argv[0] = (char *) (first);                          \
      n = 1;                                               \
      while (argv[n - 1] != NULL && n < HL_ARGS_MAX)       \
        argv[n++] = va_arg (ap, char *);                   \
      argv[HL_ARGS_MAX - 1] = NULL;                        \
    }                                                      \
  while (0)

HL_EXPORT int
execl (const char *path,
       const char *arg,
       ...)
{
  char *argv[HL_ARGS_MAX];
  size_t n;
  va_list ap;
  va_start (ap, arg);
  COLLECT_ARGS (arg, ap, argv, n);
  va_end (ap);
  return execve (path, argv, environ);
}

HL_EXPORT int
execlp (const char *file,
        const char *arg,
        ...)
{
  char *argv[HL_ARGS_MAX];
  size_t n;
  va_list ap;
  va_start (ap, arg);
  COLLECT_ARGS (arg, ap, argv, n);
  va_end (ap);
  return execvpe (file, argv, environ);
}

HL_EXPORT int
execle (const char *path,
        const char *arg,
        ...)
{
  char *argv[HL_ARGS_MAX];
  size_t n;
  va_list ap;
  va_start (ap, arg);
  COLLECT_ARGS (arg, ap, argv, n);
  char *const *envp = va_arg (ap, char *const *);
  va_end (ap);
  return execve (path, argv, envp);
}

typedef int (*SpawnFunc) (pid_t *, const char *, const posix_spawn_file_actions_t *,
                          const posix_spawnattr_t *, char *const[], char *const[]);

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
    real = (SpawnFunc) dlsym (RTLD_NEXT, "posix_spawn");
  char *env[HL_ENV_MAX];
  char value[4096];
  return real (pid, path, actions, attr, argv, filter_env (envp, env, HL_ENV_MAX, value, sizeof value));
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
    real = (SpawnFunc) dlsym (RTLD_NEXT, "posix_spawnp");
  char *env[HL_ENV_MAX];
  char value[4096];
  return real (pid, file, actions, attr, argv, filter_env (envp, env, HL_ENV_MAX, value, sizeof value));
}
