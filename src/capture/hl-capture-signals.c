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

