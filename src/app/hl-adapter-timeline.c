/* hl-adapter-timeline.c — the timeline's data (heap, RSS, rate, bands,
 * marks, call sites) from a recording. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-stack.h"
#include "hl-adapter-timeline.h"
#include "hl-units.h"

HlTimelineData *
hl_adapter_timeline_data (HlRecording *recording,
                          guint64      t0_ns,
                          guint64      t1_ns,
                          guint        n_buckets)
{
  HlSummary summary;
  HlTimelineData *data;
  g_autoptr(GArray) series = NULL;
  const HlMetaInterval *intervals;
  const HlMark *marks;
  guint n;

  hl_recording_get_summary (recording, &summary);
  data = hl_timeline_data_new (MAX (summary.duration_ns, 1));
  series = hl_recording_get_series (recording, t0_ns, t1_ns, MAX (n_buckets, 1));
  /* no RSS sample in a bucket: the previous value still holds */
  hl_series_hold_rss (series);
  for (guint i = 0; series != NULL && i < series->len; i++)
    {
      const HlSeriesBucket *s = &g_array_index (series, HlSeriesBucket, i);
      HlTimelineBucket b = {
        .time_ns = s->start_ns,
        .heap_min = s->heap_min,
        .heap_max = s->heap_max,
        .n_allocs = s->allocations,
        .rss = s->rss_max,
        .allocations_total = s->allocations_total,
        .temporary_total = s->temporary_total,
      };

      hl_timeline_data_add_bucket (data, &b);
    }

  intervals = hl_recording_get_metadata_intervals (recording, &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("%s=%s", intervals[i].key, intervals[i].value);
      hl_timeline_data_add_band (data, intervals[i].key, label, intervals[i].start_ns, intervals[i].end_ns);
    }
  marks = hl_recording_get_marks (recording, &n);
  for (guint i = 0; i < n; i++)
    hl_timeline_data_add_mark (data, marks[i].time_ns, marks[i].text);
  return data;
}
void
hl_adapter_timeline_set_sites (HlTimelineData     *data,
                               HlRecording        *recording,
                               const HlSiteSeries *sites)
{
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  guint n;

  if (sites == NULL)
    return;
  n = sites->sites->len;
  for (guint k = 0; k < n; k++)
    {
      const HlSiteInfo *site = &g_array_index (sites->sites, HlSiteInfo, k);
      const char *function = site->stack != 0 && site->frame != NULL ? site->frame->function : NULL;
      gboolean shared = FALSE;
      const HlFrame *caller;

      if (function == NULL)
        {
          g_ptr_array_add (labels, g_strdup (_("(stack not recorded)")));
          continue;
        }
      /* a function among the sites twice (a wrapper such as xmalloc) is
       * told apart by its callers */
      for (guint j = 0; j < n && !shared; j++)
        {
          const HlSiteInfo *other = &g_array_index (sites->sites, HlSiteInfo, j);
          shared = j != k && other->stack != 0 && other->frame != NULL
                   && g_strcmp0 (other->frame->function, function) == 0;
        }
      caller = shared ? hl_adapter_caller_frame (recording, site->stack, site->frame) : NULL;
      if (caller != NULL && caller->line > 0)
        /* Translators: a call site in the timeline's legend: its function, and the function and line that called it */
        g_ptr_array_add (labels, g_strdup_printf (_("%s ← %s:%u"), function, caller->function, caller->line));
      else if (caller != NULL)
        /* Translators: a call site in the timeline's legend: its function and the function that called it */
        g_ptr_array_add (labels, g_strdup_printf (_("%s ← %s"), function, caller->function));
      else
        g_ptr_array_add (labels, g_strdup (function));
    }
  hl_timeline_data_set_sites (data, sites->t0_ns, sites->t1_ns, sites->n_buckets, n,
                              (const char * const *) labels->pdata, (const guint64 *) (void *) sites->bytes->data);
}
