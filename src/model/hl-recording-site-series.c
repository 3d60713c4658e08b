/* hl-recording-site-series.c — the heap over time by call site: the call sites that
 * held the most memory at once, each one's live bytes at the end of every
 * bucket of a range, and the whole heap's (the rest is "other").
 *
 * Two passes over the heap curve: the first finds each call site's own
 * peak over the whole recording (so a zoomed view keeps the same sites
 * and colours), the second follows the chosen ones to the range's end. */
#include "hl-call-site.h"

#include <string.h>

typedef struct
{
  guint   group;
  guint64 peak;
} GroupPeak;

static int
compare_peaks (gconstpointer a,
               gconstpointer b)
{
  const GroupPeak *x = a, *y = b;

  if (x->peak != y->peak)
    return x->peak > y->peak ? -1 : 1;
  return x->group < y->group ? -1 : x->group > y->group;
}

/* Each stack's call site, 0..*N_GROUPS; stack 0 ("not recorded") is one of
 * its own. REPS: the first stack of each. */
static guint32 *
group_stacks (HlRecording *self,
              guint        n_stacks,
              GArray      *reps)
{
  g_autoptr (GHashTable) table = hl_call_site_table_new ();
  guint32 *group = g_new (guint32, MAX (n_stacks, 1));

  for (guint s = 0; s < n_stacks; s++)
    {
      GPtrArray *key = hl_call_site_key (self, s);
      gpointer found = s == 0 ? NULL : g_hash_table_lookup (table, key);

      if (found != NULL)
        {
          group[s] = GPOINTER_TO_UINT (found) - 1;
          g_ptr_array_unref (key);
          continue;
        }
      group[s] = reps->len;
      g_array_append_val (reps, s);
      if (s != 0)
        g_hash_table_insert (table, key, GUINT_TO_POINTER (reps->len));
      else
        g_ptr_array_unref (key);
    }
  return group;
}

static inline guint32
group_of (const guint32 *group,
          guint          n_stacks,
          guint32        stack)
{
  return group[stack < n_stacks ? stack : 0];
}

static inline guint64
apply (guint64 live,
       guint64 size,
       gboolean is_free)
{
  return is_free ? (live >= size ? live - size : 0) : live + size;
}

HlSiteSeries *
hl_recording_get_site_series (HlRecording *self,
                              guint64      t0_ns,
                              guint64      t1_ns,
                              guint        n_buckets,
                              guint        max_sites)
{
  guint64 n_points, n_allocs;
  const HlHeapPoint *pts;
  const HlAllocRec *allocs;
  guint n_stacks, n_sites;
  g_autoptr (GArray) reps = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *group = NULL;
  g_autofree guint64 *live = NULL;
  g_autofree GroupPeak *peaks = NULL;
  g_autofree gint *slot = NULL;
  HlSiteSeries *out;

  g_return_val_if_fail (HL_IS_RECORDING (self), NULL);
  g_return_val_if_fail (n_buckets > 0, NULL);

  /* a live session's recording holds samples of the allocations, not
   * every one: its call sites' curves would not add up to the heap */
  if (hl_recording_is_sampled (self))
    return NULL;
  allocs = hl_recording_get_allocs (self, &n_allocs);
  pts = hl_recording_get_heap_curve (self, &n_points);
  n_stacks = hl_recording_get_n_stacks (self);
  if (n_points == 0 || n_stacks == 0 || max_sites == 0)
    return NULL;

  /* 1: each call site's own peak */
  group = group_stacks (self, n_stacks, reps);
  live = g_new0 (guint64, reps->len);
  peaks = g_new0 (GroupPeak, reps->len);
  for (guint g = 0; g < reps->len; g++)
    peaks[g].group = g;
  for (guint64 i = 0; i < n_points; i++)
    {
      const HlAllocRec *a = &allocs[HL_HEAP_POINT_ALLOC (&pts[i])];
      guint32 g = group_of (group, n_stacks, a->stack);

      live[g] = apply (live[g], a->size, HL_HEAP_POINT_IS_FREE (&pts[i]));
      peaks[g].peak = MAX (peaks[g].peak, live[g]);
    }
  qsort (peaks, reps->len, sizeof (GroupPeak), compare_peaks);
  n_sites = 0;
  while (n_sites < max_sites && n_sites < reps->len && peaks[n_sites].peak > 0)
    n_sites++;
  if (n_sites == 0)
    return NULL;

  out = g_new0 (HlSiteSeries, 1);
  out->n_buckets = n_buckets;
  out->sites = g_array_sized_new (FALSE, TRUE, sizeof (HlSiteInfo), n_sites);
  out->bytes = g_array_sized_new (FALSE, TRUE, sizeof (guint64), (guint) n_buckets * (n_sites + 1));
  g_array_set_size (out->bytes, (guint) n_buckets * (n_sites + 1));
  slot = g_new (gint, reps->len);
  for (guint g = 0; g < reps->len; g++)
    slot[g] = -1;
  for (guint k = 0; k < n_sites; k++)
    {
      guint32 stack = g_array_index (reps, guint32, peaks[k].group);
      HlSiteInfo site = { stack, hl_call_site_frame (self, stack), peaks[k].peak };

      g_array_append_val (out->sites, site);
      slot[peaks[k].group] = (gint) k;
    }

  /* 2: the chosen sites and the heap at each bucket's end (the buckets
   * of hl_recording_get_series) */
  if (t1_ns == HL_TIME_END)
    t1_ns = hl_recording_get_end_ns (self) + 1;
  if (t1_ns <= t0_ns)
    t1_ns = t0_ns + 1;
  out->t0_ns = t0_ns;
  out->t1_ns = t1_ns;
  memset (live, 0, (n_sites + 1) * sizeof (guint64));
  guint64 width = t1_ns - t0_ns, i = 0;
  guint64 *row = (guint64 *) (void *) out->bytes->data;
  for (guint b = 0; b < n_buckets; b++, row += n_sites + 1)
    {
      guint64 end = b + 1 == n_buckets ? t1_ns : t0_ns + (guint64) ((double) width * (b + 1) / n_buckets);

      for (; i < n_points && hl_heap_point_time (allocs, &pts[i]) < end; i++)
        {
          const HlAllocRec *a = &allocs[HL_HEAP_POINT_ALLOC (&pts[i])];
          gboolean is_free = HL_HEAP_POINT_IS_FREE (&pts[i]);
          gint k = slot[group_of (group, n_stacks, a->stack)];

          if (k >= 0)
            live[k] = apply (live[k], a->size, is_free);
          live[n_sites] = apply (live[n_sites], a->size, is_free);
        }
      memcpy (row, live, (n_sites + 1) * sizeof (guint64));
    }
  return out;
}

void
hl_site_series_free (HlSiteSeries *series)
{
  if (series == NULL)
    return;
  g_array_unref (series->sites);
  g_array_unref (series->bytes);
  g_free (series);
}
