/* hl-session-salvage-find.c — the dead session of a trace, salvaged
 * before the trace is read (hl-session-salvage-find.h). */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-session-salvage-find.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hl-live-segment.h"

/* PID runs (a zombie does not: killed, its parent has not reaped it
 * yet, it looks for nothing). */
static gboolean
pid_runs (guint32 pid)
{
  char path[64], buf[512];
  if (!hl_live_pid_alive (pid))
    return FALSE;
  snprintf (path, sizeof path, "/proc/%u/stat", (unsigned) pid);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return TRUE;
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  /* "PID (COMM) S ...": COMM may hold spaces and parentheses */
  const char *close = strrchr (buf, ')');
  return close == NULL || close[1] != ' ' || (close[2] != 'Z' && close[2] != 'X' && close[2] != 'x');
}

gboolean
hl_session_salvage_is_left (const HlLiveSessionInfo *s)
{
  g_return_val_if_fail (s != NULL, FALSE);
  if (!s->readable || s->not_segment || s->trace_path == NULL || s->trace_path[0] == '\0')
    return FALSE;
  /* (a zombie writes nothing more: killed, not reaped yet) */
  if (s->alive && pid_runs (s->pid))
    return FALSE;
  if (s->state == HL_LIVE_STATE_ENDED || s->state == HL_LIVE_STATE_RESTARTED || s->state == HL_LIVE_STATE_VANISHED)
    return FALSE;
  /* a launcher that kept it, or one named (a killed program never sets
   * KEPT: that is done at the end), salvages it itself while it runs; a
   * bare program's parent (its shell) is no launcher */
  guint32 launcher = hl_live_session_info_get_launcher (s);
  return !((s->kept || s->launcher_pid != 0) && launcher > 1 && pid_runs (launcher));
}

void
hl_session_salvage_found_free (HlSessionSalvageFound *found)
{
  if (found == NULL)
    return;
  g_free (found->name);
  g_free (found->trace);
  g_clear_error (&found->error);
  g_free (found);
}

GPtrArray *
hl_session_salvage_for_trace (const char *path)
{
  GPtrArray *done = g_ptr_array_new_with_free_func ((GDestroyNotify) hl_session_salvage_found_free);
  struct stat want;

  g_return_val_if_fail (path != NULL, done);
  if (stat (path, &want) != 0 || !S_ISREG (want.st_mode))
    return done;
  g_autoptr (GPtrArray) list = hl_live_session_list (HL_LIVE_LIST_OWN, NULL);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const HlLiveSessionInfo *s = g_ptr_array_index (list, i);
      struct stat st;
      if (!hl_session_salvage_is_left (s) || stat (s->trace_path, &st) != 0 || st.st_dev != want.st_dev
          || st.st_ino != want.st_ino)
        continue;
      HlSessionSalvageFound *f = g_new0 (HlSessionSalvageFound, 1);
      f->name = g_strdup (s->name);
      f->pid = s->pid;
      f->trace = g_strdup (s->trace_path);
      if (!hl_session_salvage_unseen (s->name, &f->outcome, &f->salvage, &f->error))
        f->outcome = HL_SESSION_SALVAGE_NOTHING;
      if (f->outcome == HL_SESSION_SALVAGE_NOTHING && f->error == NULL)
        hl_session_salvage_found_free (f);
      else
        g_ptr_array_add (done, f);
    }
  return done;
}
