/* hl-shm-guard.c — see hl-shm-guard.h. */
#define _GNU_SOURCE
#include "hl-shm-guard.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

static struct sigaction previous;
static _Thread_local sigjmp_buf *armed;

static void
on_sigbus (int        sig,
           siginfo_t *info,
           void      *context)
{
  if (armed != NULL)
    siglongjmp (*armed, 1);
  /* not ours: what would have happened without us */
  if (previous.sa_flags & SA_SIGINFO)
    {
      if (previous.sa_sigaction != NULL)
        {
          previous.sa_sigaction (sig, info, context);
          return;
        }
    }
  else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN)
    {
      previous.sa_handler (sig);
      return;
    }
  signal (SIGBUS, SIG_DFL);
  raise (SIGBUS);
}

static gpointer
install (gpointer data)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGBUS, &sa, &previous);
  return NULL;
}

gboolean
hl_shm_guard_run (HlShmGuardFunc func,
                  gpointer       user_data)
{
  static GOnce once = G_ONCE_INIT;
  g_once (&once, install, NULL);

  sigjmp_buf here;
  sigjmp_buf *outer = armed;
  if (sigsetjmp (here, 1) != 0)
    {
      armed = outer;
      return FALSE;
    }
  armed = &here;
  func (user_data);
  armed = outer;
  return TRUE;
}
