/* hl-capture-launcher.c — whether the launcher that asked to keep the
 * session (HEAPLENS_KEEP_SESSION=1, HEAPLENS_LAUNCHER=PID) will still look
 * for it: the process's end unlinks its own segment otherwise
 * (docs/shm-layout.md §1, the hand-over). Async-signal-safe: a fatal
 * signal ends the session from its handler. */
#define _GNU_SOURCE
#include "hl-capture-private.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

/* PID's start time now (0 when unknown: no /proc, or no launcher), so that
 * a later process given its pid is not taken for it. */
uint64_t
hl_launcher_start_ticks (uint32_t pid)
{
  char state, comm[2];
  uint64_t start = 0;
  int saved = errno;
  if (pid == 0 || !hl_sys_proc_stat (pid, &state, &start, comm, sizeof comm))
    start = 0;
  errno = saved;
  return start;
}

static HlLauncherState
launcher_state (void)
{
  uint32_t pid = hl_g.cfg.launcher_pid;
  char state, comm[32];
  uint64_t start;
  if (pid == 0)
    return HL_LAUNCHER_WAITS; /* no launcher named: the one that asked unlinks */
  if (!hl_sys_proc_stat (pid, &state, &start, comm, sizeof comm))
    {
      /* /proc unreadable: whether it runs at all */
      bool gone = kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
      return gone ? HL_LAUNCHER_GONE : HL_LAUNCHER_WAITS;
    }
  /* a zombie looks for nothing: killed, its parent has not reaped it yet */
  if (state == 'Z' || state == 'X' || state == 'x')
    return HL_LAUNCHER_GONE;
  if (hl_g.cfg.launcher_start_ticks != 0 && start != hl_g.cfg.launcher_start_ticks)
    return HL_LAUNCHER_GONE;
  if (strcmp (comm, HL_SHM_LAUNCHER_ENDING_COMM) == 0)
    return HL_LAUNCHER_ENDING;
  return HL_LAUNCHER_WAITS;
}

HlLauncherState
hl_launcher_state (void)
{
  int saved = errno; /* the program's, at its exit or in a signal handler */
  HlLauncherState state = launcher_state ();
  errno = saved;
  return state;
}
