/* hl-cli-sessions.c — `heaplens-cli sessions [--prune]`: lists the
 * shared-memory sessions of the current user; --prune removes those whose
 * process is gone (and segments that are not valid sessions, unless the
 * pid in their name runs: another version's session, or one being made),
 * except one kept for its launcher in the minute after its end. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hl-cli-commands.h"
#include "hl-cli-session-file.h"

typedef struct
{
  bool     prune;
  unsigned listed;
  unsigned pruned;
} SessionsCtx;

static const char *
state_name (uint32_t state)
{
  switch (state)
    {
    case HL_SHM_STATE_STARTING:
      return "starting";
    case HL_SHM_STATE_RUNNING:
      return "running";
    case HL_SHM_STATE_ENDED:
      return "ended";
    default:
      return "unknown";
    }
}

/* The pid in a segment's name ("heaplens-UID-PID-NONCE"), 0 if none. */
static uint32_t
pid_of_name (const char *name)
{
  const char *p = strchr (name, '-');
  char *end;
  unsigned long pid;

  if (p == NULL || (p = strchr (p + 1, '-')) == NULL)
    return 0;
  pid = strtoul (p + 1, &end, 10);
  return *end == '-' && pid <= UINT32_MAX ? (uint32_t) pid : 0;
}

/* A session its launcher (`heaplens-cli record`, the application, a
 * test) asked to keep (HL_SHM_FLAG_KEPT) is read and removed by the
 * launcher once the program has ended. It is not pruned while the
 * launcher (the program's parent) runs, nor in the first minute after the
 * end: a prune running meanwhile would take it from under its launcher
 * (whose trace then stays uncompressed, or whose test failed). */
#define HL_KEPT_GRACE_NS (60ull * 1000000000ull)

static bool
kept_for_launcher (const HlCliSession *s)
{
  struct timespec ts;

  if (!(s->header.flags & HL_SHM_FLAG_KEPT) || s->header.state_atomic != HL_SHM_STATE_ENDED)
    return false;
  if (s->header.ppid > 1 && hl_cli_pid_alive (s->header.ppid))
    return true;
  if (clock_gettime (CLOCK_MONOTONIC, &ts) != 0)
    return false;
  uint64_t now = (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
  uint64_t ended = s->header.start_mono_ns + s->header.ended_ns;
  return ended >= s->header.start_mono_ns && now < ended + HL_KEPT_GRACE_NS;
}

static void
session_cb (const char *name,
            void       *user_data)
{
  SessionsCtx *ctx = user_data;
  HlCliSession s;
  char err[256];
  bool ok = hl_cli_session_read (name, &s, err, sizeof err);
  bool alive = ok && hl_cli_pid_alive (s.header.pid);
  /* A segment this reader refuses (a version of Heaplens from the future,
   * or one being created) is still the session of the process its name
   * gives: removed only when that process is gone too. */
  if (ctx->prune && !ok && pid_of_name (name) != 0 && hl_cli_pid_alive (pid_of_name (name)))
    {
      printf (_("%-40s invalid: %s (kept: pid %u is running)\n"), name, err, (unsigned) pid_of_name (name));
      return;
    }
  if (ctx->prune && ok && !alive && kept_for_launcher (&s))
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
  printf (_("%-40s pid %-7u %-8s%s allocations %-10llu %s%s%s\n"), name, (unsigned) s.header.pid,
          state_name (s.header.state_atomic), alive ? "" : " (dead)",
          (unsigned long long) s.n_allocs, s.header.exe,
          s.header.trace_path[0] ? " -> " : "", s.header.trace_path);
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
  hl_cli_session_foreach (session_cb, &ctx);
  if (ctx.prune)
    printf (ngettext ("%u session removed\n", "%u sessions removed\n", ctx.pruned), ctx.pruned);
  else if (ctx.listed == 0)
    printf (_("no sessions\n"));
  return 0;
}
