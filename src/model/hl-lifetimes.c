/* hl-lifetimes.c — block lifetimes per call site, in one pass over the
 * selected allocations (see hl-lifetimes.h). */
#include "hl-lifetimes.h"

#include "hl-analysis-private.h"
#include "hl-call-site.h"
#include "hl-model-error.h"
#include "hl-model-i18n.h"

#include <string.h>

static const char * const bucket_keys[HL_LIFETIME_N_BUCKETS] = {
  "lt_1us", "1us_10us", "10us_100us", "100us_1ms", "1ms_10ms",
  "10ms_100ms", "100ms_1s", "1s_10s", "ge_10s", "alive_at_exit",
};

guint64
hl_lifetime_bucket_start_ns (guint b)
{
  guint64 edge = 1000; /* 1 µs */

  g_return_val_if_fail (b < HL_LIFETIME_N_BUCKETS, 0);
  if (b == 0)
    return 0;
  if (b == HL_LIFETIME_BUCKET_ALIVE)
    return G_MAXUINT64;
  for (guint i = 1; i < b; i++)
    edge *= 10;
  return edge;
}

const char *
hl_lifetime_bucket_label (guint b)
{
  g_return_val_if_fail (b < HL_LIFETIME_N_BUCKETS, "");
  switch (b)
    {
    case 0: return _("<1 µs");
    case 1: return _("1–10 µs");
    case 2: return _("10–100 µs");
    case 3: return _("100 µs–1 ms");
    case 4: return _("1–10 ms");
    case 5: return _("10–100 ms");
    case 6: return _("100 ms–1 s");
    case 7: return _("1–10 s");
    case 8: return _("≥10 s");
    default: return _("alive at exit");
    }
}

const char *
hl_lifetime_bucket_key (guint b)
{
  g_return_val_if_fail (b < HL_LIFETIME_N_BUCKETS, "");
  return bucket_keys[b];
}

static guint
bucket_of (const HlAllocRec *a)
{
  guint64 life, edge = 1000;
  guint b = 0;

  if ((a->flags & HL_ALLOC_FREED) == 0)
    return HL_LIFETIME_BUCKET_ALIVE;
  life = a->free_time_ns > a->time_ns ? a->free_time_ns - a->time_ns : 0;
  while (b < HL_LIFETIME_BUCKET_ALIVE - 1 && life >= edge)
    {
      b++;
      edge *= 10;
    }
  return b;
}

/* A call site's sums while the allocations are read. */
typedef struct
{
  HlSiteLifetimes out;
  guint64         alive_at_end;  /* blocks live at the range's end */
} SiteAcc;

static int
compare_sites (gconstpointer a,
               gconstpointer b)
{
  const HlSiteLifetimes *x = a, *y = b;

  if (x->n_blocks != y->n_blocks)
    return x->n_blocks > y->n_blocks ? -1 : 1;
  if (x->n_bytes != y->n_bytes)
    return x->n_bytes > y->n_bytes ? -1 : 1;
  return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Live at END: allocated by then, not freed by then. */
static inline gboolean
live_at (const HlAllocRec *a,
         guint64           end)
{
  return a->time_ns <= end && ((a->flags & HL_ALLOC_FREED) == 0 || a->free_time_ns > end);
}

#define CANCEL_MASK ((G_GUINT64_CONSTANT (1) << 16) - 1)

HlLifetimes *
hl_analysis_get_lifetimes (HlAnalysis   *self,
                           GCancellable *cancellable)
{
  HlRecording *rec;
  guint64 n_allocs, t0, t1, quarter_end[HL_LIFETIME_N_QUARTERS];
  const HlAllocRec *allocs;
  const guint64 *weights;
  guint n_stacks;
  g_autofree guint32 *site_of = NULL;   /* stack -> site index + 1 */
  g_autoptr (GArray) firsts = NULL;
  g_autoptr (GArray) acc = NULL;
  HlLifetimes *lt;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);

  rec = hl_analysis_get_recording (self);
  if (hl_recording_get_aggregate (rec) != NULL || hl_recording_is_sampled (rec))
    return NULL;
  allocs = hl_recording_get_allocs (rec, &n_allocs);
  weights = hl_recording_get_alloc_weights (rec);
  n_stacks = hl_recording_get_n_stacks (rec);
  hl_analysis_get_range (self, &t0, &t1);
  if (t1 == HL_TIME_NONE || t1 > hl_recording_get_end_ns (rec))
    t1 = hl_recording_get_end_ns (rec);
  if (t0 > t1)
    t0 = t1;
  for (guint q = 0; q < HL_LIFETIME_N_QUARTERS; q++)
    quarter_end[q] = t0 + (t1 - t0) / HL_LIFETIME_N_QUARTERS * (q + 1);
  quarter_end[HL_LIFETIME_N_QUARTERS - 1] = t1;

  /* the call site of every stack the selection allocated from */
  site_of = g_new0 (guint32, n_stacks + 1);
  firsts = hl_analysis_group_call_sites (self, site_of);
  acc = g_array_sized_new (FALSE, TRUE, sizeof (SiteAcc), firsts->len);
  for (guint k = 0; k < firsts->len; k++)
    {
      HlStackId s = g_array_index (firsts, HlStackId, k);
      SiteAcc a = { .out = { .stack = s, .frame = hl_call_site_frame (rec, s) } };
      g_array_append_val (acc, a);
    }

  lt = g_new0 (HlLifetimes, 1);
  lt->t0_ns = t0;
  lt->t1_ns = t1;
  for (guint64 i = 0; i < n_allocs; i++)
    {
      const HlAllocRec *a = &allocs[i];
      SiteAcc *sa;
      guint64 w;
      guint b;

      if ((i & CANCEL_MASK) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      if (a->stack >= n_stacks || site_of[a->stack] == 0 || !hl_analysis_selects (self, a, hl_alloc_unit_size (allocs, weights, i)))
        continue;
      sa = &g_array_index (acc, SiteAcc, site_of[a->stack] - 1);
      b = bucket_of (a);
      /* a sampled block counts as the blocks it stands for */
      w = hl_alloc_weight (weights, i);
      sa->out.blocks[b] += w;
      sa->out.bytes[b] += a->size;
      sa->out.n_blocks += w;
      sa->out.n_bytes += a->size;
      lt->blocks[b] += w;
      lt->bytes[b] += a->size;
      sa->alive_at_end += live_at (a, t1) ? w : 0;
      for (guint q = 0; q < HL_LIFETIME_N_QUARTERS; q++)
        if (live_at (a, quarter_end[q]))
          sa->out.live_bytes[q] += a->size;
    }

  lt->sites = g_array_sized_new (FALSE, TRUE, sizeof (HlSiteLifetimes), acc->len);
  for (guint k = 0; k < acc->len; k++)
    {
      SiteAcc *sa = &g_array_index (acc, SiteAcc, k);
      HlSiteLifetimes *o = &sa->out;
      guint64 short_blocks = 0, below = 0;

      /* the bucket of the middle block, (n + 1) / 2 from the shortest */
      for (guint b = 0; b < HL_LIFETIME_N_BUCKETS; b++)
        {
          below += o->blocks[b];
          if (2 * below >= o->n_blocks)
            {
              o->median_bucket = b;
              break;
            }
        }
      for (guint b = 0; b < HL_LIFETIME_SHORT_BUCKETS; b++)
        short_blocks += o->blocks[b];
      o->short_lived = o->n_blocks > 0 && 2 * short_blocks >= o->n_blocks;
      /* blocks alive at the range's end: never freed, or freed after it */
      o->growing = o->n_blocks > 0 && 2 * sa->alive_at_end >= o->n_blocks;
      for (guint q = 1; q < HL_LIFETIME_N_QUARTERS; q++)
        o->growing = o->growing && o->live_bytes[q] > o->live_bytes[q - 1];
      if (o->n_blocks > 0)
        g_array_append_val (lt->sites, *o);
    }
  g_array_sort (lt->sites, compare_sites);
  if (g_cancellable_is_cancelled (cancellable))
    g_clear_pointer (&lt, hl_lifetimes_free);
  return lt;
}

void
hl_lifetimes_free (HlLifetimes *lifetimes)
{
  if (lifetimes == NULL)
    return;
  g_clear_pointer (&lifetimes->sites, g_array_unref);
  g_free (lifetimes);
}

static int
compare_growth (gconstpointer a,
                gconstpointer b)
{
  const HlSiteLifetimes *x = *(const HlSiteLifetimes * const *) a;
  const HlSiteLifetimes *y = *(const HlSiteLifetimes * const *) b;
  guint64 gx = x->live_bytes[HL_LIFETIME_N_QUARTERS - 1], gy = y->live_bytes[HL_LIFETIME_N_QUARTERS - 1];

  return gx > gy ? -1 : gx < gy;
}

/* SITES' entries with short_lived (GROWING FALSE) or growing set, at most
 * TOP (0: all): short-lived by blocks, growing by live bytes at the end. */
GPtrArray *
hl_lifetimes_pick (const HlLifetimes *lt,
                   gboolean           growing,
                   guint              top)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < lt->sites->len; i++)
    {
      const HlSiteLifetimes *s = &g_array_index (lt->sites, HlSiteLifetimes, i);
      if (growing ? s->growing : s->short_lived)
        g_ptr_array_add (out, (gpointer) s);
    }
  if (growing)
    g_ptr_array_sort (out, compare_growth);
  if (top > 0 && out->len > top)
    g_ptr_array_set_size (out, top);
  return out;
}

/* ---- On a worker thread ------------------------------------------------ */

static void
lifetimes_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  HlLifetimes *lt;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (hl_recording_get_aggregate (hl_analysis_get_recording (source)) != NULL ||
      hl_recording_is_sampled (hl_analysis_get_recording (source)))
    {
      g_task_return_new_error (task, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                               _("Lifetimes need every allocation: this recording holds its costs only, or "
                                 "samples of a live session"));
      return;
    }
  lt = hl_analysis_get_lifetimes (source, cancellable);
  if (g_task_return_error_if_cancelled (task))
    {
      hl_lifetimes_free (lt);
      return;
    }
  g_task_return_pointer (task, lt, (GDestroyNotify) hl_lifetimes_free);
}

void
hl_analysis_get_lifetimes_async (HlAnalysis         *self,
                                 GCancellable       *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer            user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_return_if_fail (HL_IS_ANALYSIS (self));
  g_task_set_source_tag (task, hl_analysis_get_lifetimes_async);
  g_task_run_in_thread (task, lifetimes_thread);
}

HlLifetimes *
hl_analysis_get_lifetimes_finish (HlAnalysis   *self,
                                  GAsyncResult *result,
                                  GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
