/* hl-capture-signals.c — fatal signals: buffers flushed, the END event
 * written, then the default action runs as it would have.
 *
 * Handlers are installed only for terminating signals whose disposition is
 * SIG_DFL; sigaction() and signal() are interposed so that the program sees
 * SIG_DFL there, and a handler it installs simply replaces ours.
 */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- Fatal signals -------------------------------------------------------- */

static const int fatal_signals[] = {
  SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV,
  SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS, SIGUSR1, SIGUSR2,
};

static _Atomic int ours[NSIG];
static bool signals_enabled;

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
  signals_enabled = true;
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

static bool
is_fatal (int sig)
{
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    if (fatal_signals[i] == sig)
      return true;
  return false;
}

/* The program's view: our handler reads as SIG_DFL. When the program sets
 * SIG_DFL for a fatal signal (a crash handler restoring the default before
 * re-raising, as Python's faulthandler does), ours is put back in its place,
 * invisibly, so that the recording is flushed before the default action. */
HL_EXPORT int
sigaction (int                     sig,
           const struct sigaction *act,
           struct sigaction       *old)
{
  resolve_sigaction ();
  if (sig <= 0 || sig >= NSIG)
    return real_sigaction (sig, act, old);
  bool want_ours = act != NULL && signals_enabled && !(act->sa_flags & SA_SIGINFO)
                   && act->sa_handler == SIG_DFL && is_fatal (sig) && hl_active ();
  if (!want_ours && !atomic_load (&ours[sig]))
    return real_sigaction (sig, act, old);
  struct sigaction mine;
  const struct sigaction *use = act;
  if (want_ours)
    {
      mine = *act;
      mine.sa_handler = fatal_handler;
      mine.sa_flags |= SA_ONSTACK;
      use = &mine;
    }
  int rc = real_sigaction (sig, use, old);
  if (rc != 0)
    return rc;
  if (old != NULL && !(old->sa_flags & SA_SIGINFO) && old->sa_handler == fatal_handler)
    {
      memset (old, 0, sizeof *old);
      old->sa_handler = SIG_DFL;
      sigemptyset (&old->sa_mask);
    }
  if (act != NULL)
    atomic_store (&ours[sig], want_ours ? 1 : 0);
  return 0;
}

HL_EXPORT sighandler_t
signal (int          sig,
        sighandler_t handler)
{
  static sighandler_t (*real_signal) (int, sighandler_t);
  if (sig <= 0 || sig >= NSIG
      || !(atomic_load (&ours[sig]) || (handler == SIG_DFL && signals_enabled && is_fatal (sig))))
    {
      if (real_signal == NULL)
        real_signal = (sighandler_t (*) (int, sighandler_t)) dlsym (RTLD_NEXT, "signal");
      return real_signal (sig, handler);
    }
  /* through our sigaction: BSD semantics, as glibc's signal() */
  struct sigaction sa, old;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset (&sa.sa_mask);
  sigaddset (&sa.sa_mask, sig);
  sa.sa_flags = SA_RESTART;
  if (sigaction (sig, &sa, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}
