/* hl-adapter-timeline.c — the timeline's data (heap, RSS, rate, bands,
 * marks, call sites) from a recording. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-stack.h"
#include "hl-adapter-timeline.h"
#include "hl-site-name.h"
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
  guint n_pts, k = 0;
  const HlAllocatorPoint *pts = hl_recording_get_allocator_samples (recording, &n_pts);
  guint64 malloc_free = 0, mmap_bytes = 0;
  for (guint i = 0; series != NULL && i < series->len; i++)
    {
      const HlSeriesBucket *s = &g_array_index (series, HlSeriesBucket, i);
      /* the last allocator sample at the bucket's end holds */
      for (; k < n_pts && pts[k].time_ns < s->end_ns; k++)
        {
          malloc_free = pts[k].have_mallinfo ? pts[k].free_bytes : 0;
          mmap_bytes = pts[k].mmap_bytes;
        }
      HlTimelineBucket b = {
        .time_ns = s->start_ns,
        .heap_min = s->heap_min,
        .heap_max = s->heap_max,
        .n_allocs = s->allocations,
        .rss = s->rss_max,
        .malloc_free = malloc_free,
        .mmap = mmap_bytes,
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
  g_autoptr(GPtrArray) labels = NULL;
  g_autoptr(GArray) stacks = NULL;
  guint n;

  if (sites == NULL)
    return;
  n = sites->sites->len;
  stacks = g_array_sized_new (FALSE, TRUE, sizeof (HlStackId), n);
  for (guint k = 0; k < n; k++)
    {
      const HlSiteInfo *site = &g_array_index (sites->sites, HlSiteInfo, k);

      g_array_append_val (stacks, site->stack);
    }
  /* the legend's names tell every site apart (hl-site-name.h) */
  labels = hl_site_name_labels (recording, (const HlStackId *) (void *) stacks->data, n, NULL);
  for (guint k = 0; k < n; k++)
    {
      const HlSiteInfo *site = &g_array_index (sites->sites, HlSiteInfo, k);

      if (site->stack == 0 || site->frame == NULL)
        {
          g_free (labels->pdata[k]);
          labels->pdata[k] = g_strdup (_("(stack not recorded)"));
        }
    }
  hl_timeline_data_set_sites (data, sites->t0_ns, sites->t1_ns, sites->n_buckets, n,
                              (const char * const *) labels->pdata, (const guint64 *) (void *) sites->bytes->data);
}
