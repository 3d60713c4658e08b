/* hl-timeline-data.c — what the timeline draws. */
#include "hl-config.h"

#include "hl-timeline-data.h"

struct _HlTimelineData
{
  guint64       duration_ns;
  GArray       *buckets;   /* HlTimelineBucket */
  GArray       *bands;     /* HlTimelineBand */
  GArray       *marks;     /* HlTimelineMark */
  GPtrArray    *keys;      /* row order, borrowed from strings */
  GStringChunk *strings;
  guint64       max_bytes;
  guint64       max_heap;
  guint64       max_rss;
  gboolean      has_memory;     /* a bucket has malloc_free or mmap */
  guint64       max_rate;
  guint64       max_allocations_total;
  guint64       max_temporary_total;
  /* call sites */
  GPtrArray    *site_labels;  /* borrowed from strings */
  GArray       *site_bytes;   /* guint64 [site_buckets][n_sites + 1] */
  guint         site_buckets;
  guint64       sites_t0_ns;
  guint64       sites_t1_ns;
};

static void
hl_timeline_data_free (HlTimelineData *data)
{
  g_array_unref (data->buckets);
  g_array_unref (data->bands);
  g_array_unref (data->marks);
  g_ptr_array_unref (data->keys);
  g_ptr_array_unref (data->site_labels);
  g_array_unref (data->site_bytes);
  g_string_chunk_free (data->strings);
}

G_DEFINE_BOXED_TYPE (HlTimelineData, hl_timeline_data, hl_timeline_data_ref, hl_timeline_data_unref)

HlTimelineData *
hl_timeline_data_new (guint64 duration_ns)
{
  HlTimelineData *data = g_atomic_rc_box_new0 (HlTimelineData);

  data->duration_ns = duration_ns;
  data->buckets = g_array_new (FALSE, FALSE, sizeof (HlTimelineBucket));
  data->bands = g_array_new (FALSE, FALSE, sizeof (HlTimelineBand));
  data->marks = g_array_new (FALSE, FALSE, sizeof (HlTimelineMark));
  data->keys = g_ptr_array_new ();
  data->site_labels = g_ptr_array_new ();
  data->site_bytes = g_array_new (FALSE, FALSE, sizeof (guint64));
  data->strings = g_string_chunk_new (1024);
  return data;
}

HlTimelineData *
hl_timeline_data_ref (HlTimelineData *data)
{
  return g_atomic_rc_box_acquire (data);
}

void
hl_timeline_data_unref (HlTimelineData *data)
{
  g_atomic_rc_box_release_full (data, (GDestroyNotify) hl_timeline_data_free);
}

void
hl_timeline_data_add_bucket (HlTimelineData         *data,
                             const HlTimelineBucket *bucket)
{
  g_array_append_vals (data->buckets, bucket, 1);
  data->max_bytes = MAX (data->max_bytes, MAX (bucket->heap_max, bucket->rss));
  data->max_bytes = MAX (data->max_bytes, bucket->heap_max + bucket->malloc_free + bucket->mmap);
  data->has_memory |= bucket->malloc_free > 0 || bucket->mmap > 0;
  data->max_rate = MAX (data->max_rate, bucket->n_allocs);
  data->max_heap = MAX (data->max_heap, bucket->heap_max);
  data->max_rss = MAX (data->max_rss, bucket->rss);
  data->max_allocations_total = MAX (data->max_allocations_total, bucket->allocations_total);
  data->max_temporary_total = MAX (data->max_temporary_total, bucket->temporary_total);
}

guint64
hl_timeline_bucket_value (const HlTimelineBucket *b,
                          HlTimelineMode          mode)
{
  switch (mode)
    {
    case HL_TIMELINE_MODE_ALLOCATIONS:
      return b->allocations_total;
    case HL_TIMELINE_MODE_TEMPORARY:
      return b->temporary_total;
    case HL_TIMELINE_MODE_CONSUMED:
    case HL_TIMELINE_N_MODES:
    default:
      return b->heap_max;
    }
}

void
hl_timeline_data_add_band (HlTimelineData *data,
                           const char     *key,
                           const char     *label,
                           guint64         start_ns,
                           guint64         end_ns)
{
  HlTimelineBand band = { 0 };
  guint row;

  band.key = g_string_chunk_insert_const (data->strings, key);
  band.label = g_string_chunk_insert_const (data->strings, label ? label : key);
  band.start_ns = start_ns;
  band.end_ns = MAX (start_ns, end_ns);
  if (!g_ptr_array_find (data->keys, band.key, &row))
    {
      row = data->keys->len;
      g_ptr_array_add (data->keys, (gpointer) band.key);
    }
  band.row = row;
  g_array_append_val (data->bands, band);
}

void
hl_timeline_data_add_mark (HlTimelineData *data,
                           guint64         time_ns,
                           const char     *label)
{
  HlTimelineMark mark = { time_ns, g_string_chunk_insert_const (data->strings, label ? label : "") };

  g_array_append_val (data->marks, mark);
}

guint64
hl_timeline_data_get_duration (const HlTimelineData *data)
{
  return data->duration_ns;
}

guint
hl_timeline_data_get_n_buckets (const HlTimelineData *data)
{
  return data->buckets->len;
}

const HlTimelineBucket *
hl_timeline_data_get_bucket (const HlTimelineData *data,
                             guint                 i)
{
  g_return_val_if_fail (i < data->buckets->len, NULL);
  return &g_array_index (data->buckets, HlTimelineBucket, i);
}

guint
hl_timeline_data_get_n_bands (const HlTimelineData *data)
{
  return data->bands->len;
}

const HlTimelineBand *
hl_timeline_data_get_band (const HlTimelineData *data,
                           guint                 i)
{
  g_return_val_if_fail (i < data->bands->len, NULL);
  return &g_array_index (data->bands, HlTimelineBand, i);
}

guint
hl_timeline_data_get_n_rows (const HlTimelineData *data)
{
  return data->keys->len;
}

const char *
hl_timeline_data_get_row_key (const HlTimelineData *data,
                              guint                 row)
{
  g_return_val_if_fail (row < data->keys->len, NULL);
  return g_ptr_array_index (data->keys, row);
}

guint
hl_timeline_data_get_n_marks (const HlTimelineData *data)
{
  return data->marks->len;
}

const HlTimelineMark *
hl_timeline_data_get_mark (const HlTimelineData *data,
                           guint                 i)
{
  g_return_val_if_fail (i < data->marks->len, NULL);
  return &g_array_index (data->marks, HlTimelineMark, i);
}

guint64
hl_timeline_data_get_max_bytes (const HlTimelineData *data)
{
  return data->max_bytes;
}

guint64
hl_timeline_data_get_max_rate (const HlTimelineData *data)
{
  return data->max_rate;
}

guint64
hl_timeline_data_get_max_heap (const HlTimelineData *data)
{
  return data->max_heap;
}

gboolean
hl_timeline_data_has_memory (const HlTimelineData *data)
{
  return data->has_memory;
}

guint64
hl_timeline_data_get_max_rss (const HlTimelineData *data)
{
  return data->max_rss;
}

guint64
hl_timeline_data_get_max_value (const HlTimelineData *data,
                                HlTimelineMode        mode)
{
  switch (mode)
    {
    case HL_TIMELINE_MODE_ALLOCATIONS:
      return data->max_allocations_total;
    case HL_TIMELINE_MODE_TEMPORARY:
      return data->max_temporary_total;
    case HL_TIMELINE_MODE_CONSUMED:
    case HL_TIMELINE_N_MODES:
    default:
      return data->max_bytes;
    }
}

void
hl_timeline_data_set_sites (HlTimelineData     *data,
                            guint64             t0_ns,
                            guint64             t1_ns,
                            guint               n_buckets,
                            guint               n_sites,
                            const char * const *labels,
                            const guint64      *bytes)
{
  g_ptr_array_set_size (data->site_labels, 0);
  g_array_set_size (data->site_bytes, 0);
  data->site_buckets = 0;
  if (n_sites == 0 || n_buckets == 0 || t1_ns <= t0_ns)
    return;
  for (guint k = 0; k < n_sites; k++)
    g_ptr_array_add (data->site_labels, g_string_chunk_insert_const (data->strings, labels[k] ? labels[k] : ""));
  g_array_append_vals (data->site_bytes, bytes, n_buckets * (n_sites + 1));
  data->site_buckets = n_buckets;
  data->sites_t0_ns = t0_ns;
  data->sites_t1_ns = t1_ns;
}

guint
hl_timeline_data_get_n_sites (const HlTimelineData *data)
{
  return data->site_labels->len;
}

const char *
hl_timeline_data_get_site_label (const HlTimelineData *data,
                                 guint                 site)
{
  g_return_val_if_fail (site < data->site_labels->len, NULL);
  return g_ptr_array_index (data->site_labels, site);
}

const guint64 *
hl_timeline_data_get_sites_at (const HlTimelineData *data,
                               guint64               time_ns)
{
  guint n = data->site_labels->len;

  if (n == 0 || time_ns < data->sites_t0_ns || time_ns >= data->sites_t1_ns)
    return NULL;
  /* the bucket b whose [start, end) holds TIME_NS, as the model divides */
  guint64 width = data->sites_t1_ns - data->sites_t0_ns;
  guint b = (guint) ((double) (time_ns - data->sites_t0_ns) / (double) width * data->site_buckets);
  b = MIN (b, data->site_buckets - 1);
  while (b + 1 < data->site_buckets
         && data->sites_t0_ns + (guint64) ((double) width * (b + 1) / data->site_buckets) <= time_ns)
    b++;
  while (b > 0 && data->sites_t0_ns + (guint64) ((double) width * b / data->site_buckets) > time_ns)
    b--;
  return &g_array_index (data->site_bytes, guint64, (gsize) b * (n + 1));
}
