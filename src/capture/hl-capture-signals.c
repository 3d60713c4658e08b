/* hl-capture-signals.c — fatal signals: buffers flushed, the END event
 * written, then the default action runs as it would have.
 *
 * Handlers are installed only for terminating signals whose disposition is
 * SIG_DFL; sigaction() and signal() are interposed so that the program sees
 * SIG_DFL there, and a handler it installs simply replaces ours.
 *
 * Every handler the program installs (any signal) runs behind a trampoline
 * of ours, invisible to sigaction()/signal(), which report the program's
 * own. It does two things:
 * - a handler that interrupts the preload on its thread records its calls
 *   on a second block of the thread (the first is in the middle of an
 *   update), so nothing the program allocates goes unrecorded;
 * - after a signal whose handler was installed with SA_RESETHAND, the
 *   kernel has reset the disposition to SIG_DFL: the trampoline puts our
 *   fatal handler in its place (the program still sees SIG_DFL), so that a
 *   handler that re-raises (or returns to a faulting instruction) ends in
 *   our flush, then the default action.
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

/* ours[sig]: 0 the program's own disposition, 1 our handler stands for
 * SIG_DFL, 2 the program's SA_RESETHAND handler (program_act[sig]) runs
 * behind our trampoline. */
static _Atomic int ours[NSIG];
static struct sigaction program_act[NSIG];
static bool signals_enabled;

typedef int (*SigactionFunc) (int, const struct sigaction *, struct sigaction *);
static SigactionFunc real_sigaction;

static void
resolve_sigaction (void)
{
  if (real_sigaction == NULL)
    real_sigaction = (SigactionFunc) hl_dlsym_next ("sigaction");
}

static void
fatal_handler (int        sig,
               siginfo_t *info,
               void      *ctx)
{
  (void) ctx;
  int e = errno;
  if (hl_active ())
    hl_capture_finish (128 + sig, true, false, false);
  /* run the default action, as without us */
  struct sigaction dfl;
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  atomic_store (&ours[sig], 0);
  real_sigaction (sig, &dfl, NULL);
  errno = e;
  /* A fault (si_code > 0 for SIGSEGV, SIGBUS, SIGILL, SIGFPE) re-executes
   * the faulting instruction and takes the default action; a signal that
   * was sent is sent again, delivered when the handler returns (it is
   * blocked here). */
  bool fault = (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
               && info != NULL && info->si_code > 0;
  if (!fault)
    raise (sig);
}

static bool
is_fatal (int sig)
{
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    if (fatal_signals[i] == sig)
      return true;
  return false;
}

static void
set_ours (struct sigaction *sa,
          int               flags)
{
  sa->sa_sigaction = fatal_handler;
  sa->sa_flags = (flags & ~(SA_RESETHAND | SA_NODEFER)) | SA_SIGINFO | SA_ONSTACK;
}

/* Every handler the program installs runs behind this. A handler that
 * interrupts the preload on its thread (the guard is up, the thread's block
 * in the middle of an update) records its calls on the thread's shadow
 * block, so that they are counted and traced like any others. After an
 * SA_RESETHAND handler's signal the kernel has reset the disposition to
 * SIG_DFL: our handler takes its place (the program still sees SIG_DFL). */
static void
program_trampoline (int        sig,
                    siginfo_t *info,
                    void      *ctx)
{
  struct sigaction prog = program_act[sig];
  if ((prog.sa_flags & SA_RESETHAND) && is_fatal (sig))
    {
      int e = errno;
      if (hl_active () && atomic_load (&ours[sig]) == 2)
        {
          struct sigaction sa;
          memset (&sa, 0, sizeof sa);
          sigemptyset (&sa.sa_mask);
          set_ours (&sa, SA_RESTART);
          atomic_store (&ours[sig], real_sigaction (sig, &sa, NULL) == 0 ? 1 : 0);
        }
      else
        atomic_store (&ours[sig], 0);
      errno = e;
    }
  else if (prog.sa_flags & SA_RESETHAND)
    atomic_store (&ours[sig], 0);

  int guard = hl_tls.guard;
  HlThreadBlock *block = hl_tls.block;
  HlThreadBlock *shadow = NULL;
  if (guard > 0 && block != NULL && hl_active ())
    {
      shadow = hl_thread_shadow (block);
      if (shadow != NULL)
        {
          hl_tls.block = shadow;
          hl_tls.guard = 0;
        }
    }
  bool stripped = shadow == NULL && block != NULL;
  if (stripped)
    block->strip_self++; /* this frame is in the handler's stacks */
  if (prog.sa_flags & SA_SIGINFO)
    prog.sa_sigaction (sig, info, ctx);
  else if (prog.sa_handler != SIG_DFL && prog.sa_handler != SIG_IGN)
    prog.sa_handler (sig);
  if (stripped)
    block->strip_self--;
  if (shadow != NULL)
    {
      int e = errno;
      hl_tls.guard = 1;
      hl_thread_shadow_done (shadow);
      hl_tls.block = block;
      hl_tls.guard = guard;
      errno = e;
    }
}

static bool
is_ours (const struct sigaction *sa,
         void                   *fn)
{
  return (sa->sa_flags & SA_SIGINFO) && (void *) sa->sa_sigaction == fn;
}

void
hl_process_install_signals (void)
{
  resolve_sigaction ();
  const char *s = hl_env_get ("HEAPLENS_SIGNALS");
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
      sigemptyset (&sa.sa_mask);
      set_ours (&sa, SA_RESTART);
      atomic_store (&ours[sig], 1);
      if (real_sigaction (sig, &sa, NULL) != 0)
        atomic_store (&ours[sig], 0);
    }
}

/* The program's view: our handler reads as SIG_DFL, our trampoline as
 * the program's handler. When the program sets SIG_DFL for a fatal signal
 * (a crash handler restoring the default before re-raising, as Python's
 * faulthandler does), ours is put back in its place, invisibly, so that the
 * recording is flushed before the default action. */
HL_EXPORT int
sigaction (int                     sig,
           const struct sigaction *act,
           struct sigaction       *old)
{
  resolve_sigaction ();
  if (sig <= 0 || sig >= NSIG)
    return real_sigaction (sig, act, old);
  bool candidate = act != NULL && signals_enabled && hl_active ();
  bool want_ours = candidate && is_fatal (sig) && !(act->sa_flags & SA_SIGINFO)
                   && act->sa_handler == SIG_DFL;
  bool want_wrap = candidate && ((act->sa_flags & SA_SIGINFO)
                                 || (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN));
  int state = atomic_load (&ours[sig]);
  if (!want_ours && !want_wrap && state == 0)
    return real_sigaction (sig, act, old);
  struct sigaction prev_prog = program_act[sig];
  struct sigaction mine;
  const struct sigaction *use = act;
  if (want_ours)
    {
      mine = *act;
      set_ours (&mine, act->sa_flags);
      use = &mine;
    }
  else if (want_wrap)
    {
      /* the trampoline reads program_act when the signal comes: mark the
       * slot unusable while it changes */
      atomic_store (&ours[sig], 0);
      program_act[sig] = *act;
      mine = *act;
      mine.sa_sigaction = program_trampoline;
      mine.sa_flags |= SA_SIGINFO;
      use = &mine;
    }
  int rc = real_sigaction (sig, use, old);
  if (rc != 0)
    {
      if (want_wrap)
        {
          program_act[sig] = prev_prog;
          atomic_store (&ours[sig], state);
        }
      return rc;
    }
  if (old != NULL && is_ours (old, (void *) fatal_handler))
    {
      memset (old, 0, sizeof *old);
      old->sa_handler = SIG_DFL;
      sigemptyset (&old->sa_mask);
    }
  else if (old != NULL && is_ours (old, (void *) program_trampoline))
    *old = prev_prog;
  if (act != NULL)
    atomic_store (&ours[sig], want_ours ? 1 : want_wrap ? 2 : 0);
  return 0;
}

HL_EXPORT sighandler_t
signal (int          sig,
        sighandler_t handler)
{
  static sighandler_t (*real_signal) (int, sighandler_t);
  if (sig <= 0 || sig >= NSIG
      || !(atomic_load (&ours[sig])
           || (signals_enabled && hl_active ()
               && (handler == SIG_DFL ? is_fatal (sig) : handler != SIG_IGN && handler != SIG_ERR))))
    {
      if (real_signal == NULL)
        real_signal = (sighandler_t (*) (int, sighandler_t)) hl_dlsym_next ("signal");
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
