/* hl-cli-sessions.c — `heaplens-cli sessions [--prune]`: lists the
 * shared-memory sessions of the current user, and says what it left out
 * (other users' sessions, entries that are not session segments: /dev/shm
 * is world-writable); --prune removes what is provably dead
 * (hl_live_session_prune: sessions whose process is gone, segments that
 * are not valid sessions unless the pid in their name runs, except one
 * kept for its launcher in the minute after its end) and says why. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hl-cli-commands.h"
#include "hl-cli-prune-salvage.h"
#include "hl-model.h"

typedef struct
{
  unsigned listed;
  unsigned foreign;       /* other users' sessions, not read */
  unsigned not_segments;  /* FIFOs, symlinks, others' files named like ours */
  unsigned invalid;       /* regular files of ours the reader refuses */
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

static void
session_cb (const HlLiveSessionInfo *s,
            SessionsCtx             *ctx)
{
  if (!s->same_user)
    {
      ctx->foreign++;
      return;
    }
  if (!s->readable)
    {
      if (s->not_segment)
        ctx->not_segments++;
      else
        ctx->invalid++;
      printf (_("%-40s left out: %s\n"), s->name, s->refusal != NULL ? s->refusal : "?");
      return;
    }
  printf (_("%-40s pid %-7u %-8s%s allocations %-10llu %s%s%s\n"), s->name, (unsigned) s->pid,
          state_name (s->state), s->alive ? "" : " (dead)",
          (unsigned long long) s->totals.n_allocs, s->exe,
          s->trace_path[0] ? " -> " : "", s->trace_path);
  if (s->shm_full)
    printf (_("%-40s live table stopped growing: /dev/shm is full (%llu allocations not tracked live; the trace is "
              "complete)\n"), "", (unsigned long long) s->totals.live_dropped);
  ctx->listed++;
}

/* What the list left out, and why. */
static void
print_left_out (const SessionsCtx *ctx)
{
  if (ctx->foreign > 0)
    printf (ngettext ("left out %u session of another user (only its owner can read it)\n",
                      "left out %u sessions of other users (only their owners can read them)\n",
                      ctx->foreign),
            ctx->foreign);
  if (ctx->not_segments > 0)
    printf (ngettext ("left out %u entry named like a session that is not a session segment of yours "
                      "(a FIFO, a symbolic link or another user's file: not opened)\n",
                      "left out %u entries named like sessions that are not session segments of yours "
                      "(FIFOs, symbolic links or other users' files: not opened)\n",
                      ctx->not_segments),
            ctx->not_segments);
  if (ctx->invalid > 0)
    printf (ngettext ("left out %u segment that cannot be read (above: why)\n",
                      "left out %u segments that cannot be read (above: why)\n", ctx->invalid),
            ctx->invalid);
}

static int
prune (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_OWN, &error);
  g_autoptr(GPtrArray) done = NULL;
  unsigned removed = 0;

  /* what a process killed without a launcher left in its segment goes
   * into its trace before the segment goes */
  if (list != NULL)
    hl_cli_prune_salvage (list, stdout);
  if (list != NULL)
    done = hl_live_session_prune (list, &error);

  if (done == NULL)
    {
      fprintf (stderr, "heaplens-cli sessions: %s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < done->len; i++)
    {
      const HlLivePruneResult *r = g_ptr_array_index (done, i);
      if (r->action == HL_LIVE_PRUNE_REMOVED)
        removed++;
      printf ("%s\n", r->message);
    }
  printf (ngettext ("%u session removed\n", "%u sessions removed\n", removed), removed);
  return 0;
}

int
hl_cli_sessions (int    argc,
                 char **argv)
{
  SessionsCtx ctx = { 0 };
  bool do_prune = false;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--prune") == 0)
        do_prune = true;
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
  if (do_prune)
    return prune ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_ALL_USERS, &error);
  if (list == NULL)
    {
      fprintf (stderr, "heaplens-cli sessions: %s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < list->len; i++)
    session_cb (g_ptr_array_index (list, i), &ctx);
  if (ctx.listed == 0)
    printf (_("no sessions\n"));
  print_left_out (&ctx);
  return 0;
}
