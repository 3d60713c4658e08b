/* hl-cli-sessions.c — `heaplens-cli sessions [--prune]`: lists the
 * shared-memory sessions of the current user; --prune removes those whose
 * process is gone (and segments that are not valid sessions, unless the
 * pid in their name runs: another version's session, or one being made),
 * except one kept for its launcher in the minute after its end. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hl-cli-commands.h"
#include "hl-cli-session-file.h"
#include "hl-model.h"

typedef struct
{
  bool     prune;
  unsigned listed;
  unsigned pruned;
} SessionsCtx;

static const char *
state_name (HlLiveState state)
{
  switch (state)
    {
    case HL_LIVE_STATE_STARTING:
      return "starting";
    case HL_LIVE_STATE_RUNNING:
      return "running";
    case HL_LIVE_STATE_ENDED:
    case HL_LIVE_STATE_RESTARTED:
      return "ended";
    default:
      return "unknown";
    }
}

/* A session its launcher (`heaplens-cli record`, the application, a
 * test) asked to keep (HL_SHM_FLAG_KEPT) is read and removed by the
 * launcher once the program has ended. It is not pruned while the
 * launcher (the program's parent) runs, nor in the first minute after the
 * end: a prune running meanwhile would take it from under its launcher
 * (whose trace then stays uncompressed, or whose test failed). */
#define HL_KEPT_GRACE_NS (60ull * 1000000000ull)

static bool
kept_for_launcher (const HlLiveSessionInfo *s)
{
  struct timespec ts;

  if (!s->kept || (s->state != HL_LIVE_STATE_ENDED && s->state != HL_LIVE_STATE_RESTARTED))
    return false;
  if (s->ppid > 1 && hl_cli_pid_alive (s->ppid))
    return true;
  if (clock_gettime (CLOCK_MONOTONIC, &ts) != 0)
    return false;
  uint64_t now = (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
  uint64_t ended = s->start_mono_ns + s->ended_ns;
  return ended >= s->start_mono_ns && now < ended + HL_KEPT_GRACE_NS;
}

static void
session_cb (const HlLiveSessionInfo *s,
            SessionsCtx             *ctx)
{
  const char *name = s->name;
  const char *err = s->refusal;
  bool ok = s->readable;
  bool alive = ok && s->alive;
  /* A segment this reader refuses (a version of Heaplens from the future,
   * or one being created) is still the session of the process its name
   * gives: removed only when that process is gone too. */
  if (ctx->prune && !ok && s->pid != 0 && hl_cli_pid_alive (s->pid))
    {
      printf (_("%-40s invalid: %s (kept: pid %u is running)\n"), name, err, (unsigned) s->pid);
      return;
    }
  if (ctx->prune && ok && !alive && kept_for_launcher (s))
    {
      printf (_("%-40s ended, kept for its launcher (pruned a minute after its end)\n"), name);
      return;
    }
  if (ctx->prune && (!ok || !alive))
    {
      char path[512];
      snprintf (path, sizeof path, "/dev/shm/%s", name);
      if (unlink (path) == 0)
        {
          printf (_("removed %s (%s)\n"), name, ok ? "process gone" : err);
          ctx->pruned++;
        }
      return;
    }
  if (!ok)
    {
      printf (_("%-40s invalid: %s\n"), name, err);
      return;
    }
  printf (_("%-40s pid %-7u %-8s%s allocations %-10llu %s%s%s\n"), name, (unsigned) s->pid,
          state_name (s->state), alive ? "" : " (dead)",
          (unsigned long long) s->totals.n_allocs, s->exe,
          s->trace_path[0] ? " -> " : "", s->trace_path);
  ctx->listed++;
}

int
hl_cli_sessions (int    argc,
                 char **argv)
{
  SessionsCtx ctx = { 0 };
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--prune") == 0)
        ctx.prune = true;
      else if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          printf (_("Usage: heaplens-cli sessions [--prune]\n\n"
                  "Lists the live-recording sessions of the current user in /dev/shm.\n"
                  "  --prune   remove the sessions of processes that no longer exist\n"));
          return 0;
        }
      else
        {
          fprintf (stderr, _("heaplens-cli sessions: unknown option '%s'\n"), argv[i]);
          return 2;
        }
    }
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_OWN, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    session_cb (g_ptr_array_index (list, i), &ctx);
  if (ctx.prune)
    printf (ngettext ("%u session removed\n", "%u sessions removed\n", ctx.pruned), ctx.pruned);
  else if (ctx.listed == 0)
    printf (_("no sessions\n"));
  return 0;
}
