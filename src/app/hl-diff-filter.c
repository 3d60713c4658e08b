/* hl-diff-filter.c — a recording window's filters for both sides of a
 * comparison. */
#include "hl-config.h"

#include "hl-diff-filter.h"
#include "hl-model-adapter.h"

/* No thread has id 0: a filter on it selects nothing. */
#define NO_THREAD 0

static const char *
thread_name (const HlThreadInfo *t)
{
  return t->name != NULL ? t->name : "";
}

/* The threads of TO that stand for thread TID of FROM (see the header). */
static void
matching_threads (HlRecording *from,
                  HlRecording *to,
                  guint32      tid,
                  GArray      *tids)
{
  const HlThreadInfo *ft, *tt;
  guint fn, tn, position = 0, seen = 0;
  const char *name = NULL;

  ft = hl_recording_get_threads (from, &fn);
  tt = hl_recording_get_threads (to, &tn);
  for (guint i = 0; i < fn && name == NULL; i++)
    {
      if (ft[i].tid == tid)
        name = thread_name (&ft[i]);
      else if (thread_name (&ft[i])[0] == '\0')
        position++;
    }
  if (name == NULL)
    return;
  for (guint i = 0; i < tn; i++)
    {
      if (name[0] != '\0')
        {
          if (g_str_equal (thread_name (&tt[i]), name))
            g_array_append_val (tids, tt[i].tid);
        }
      else if (thread_name (&tt[i])[0] == '\0' && seen++ == position)
        g_array_append_val (tids, tt[i].tid);
    }
}

HlFilter *
hl_diff_filter_for (HlViewState   *session,
                    HlRecording *origin,
                    HlRecording *recording)
{
  g_autoptr(HlFilter) filter = hl_filter_new ();
  g_autoptr(GArray) tids = g_array_new (FALSE, FALSE, sizeof (guint32));
  const guint *threads;
  guint n;
  guint64 t0, t1;

  g_return_val_if_fail (HL_IS_VIEW_STATE (session), NULL);
  g_return_val_if_fail (HL_IS_RECORDING (recording), NULL);

#define APPLY(expr) G_STMT_START { HlFilter *next_ = (expr); hl_filter_unref (filter); filter = next_; } G_STMT_END
  if (hl_view_state_get_range (session, &t0, &t1))
    APPLY (hl_filter_with_time_range (filter, t0, t1));

  threads = hl_view_state_get_threads (session, &n);
  for (guint i = 0; i < n; i++)
    {
      if (origin == NULL || origin == recording)
        {
          guint32 tid = threads[i];
          g_array_append_val (tids, tid);
        }
      else
        matching_threads (origin, recording, threads[i], tids);
    }
  if (n > 0 && tids->len == 0)
    {
      guint32 none = NO_THREAD;
      g_array_append_val (tids, none);
    }
  for (guint i = 0; i < tids->len; i++)
    APPLY (hl_filter_with_thread (filter, g_array_index (tids, guint32, i)));

  APPLY (hl_adapter_filter_labels (session, filter));
#undef APPLY
  return g_steal_pointer (&filter);
}
