/* hl-site-sizes.c — the size histogram by call site (hl-site-sizes.h). */
#include "hl-config.h"

#include "hl-site-sizes.h"
#include "hl-analysis-private.h"
#include "hl-call-site.h"
#include "hl-model-error.h"
#include "hl-model-i18n.h"

#include <string.h>

#define CANCEL_MASK ((G_GUINT64_CONSTANT (1) << 16) - 1)

/* The bucket of a block of SIZE bytes (hl-size-histogram.h) */
static guint
size_bucket (guint64 size)
{
  return size == 0 ? 0 : 64 - __builtin_clzll (size);
}

static int
compare_sites (gconstpointer a,
               gconstpointer b)
{
  const HlSiteSizes *x = a, *y = b;

  if (x->n_blocks != y->n_blocks)
    return x->n_blocks > y->n_blocks ? -1 : 1;
  if (x->n_bytes != y->n_bytes)
    return x->n_bytes > y->n_bytes ? -1 : 1;
  return x->stack < y->stack ? -1 : x->stack > y->stack;
}

HlSizesBySite *
hl_analysis_get_sizes_by_site (HlAnalysis   *self,
                               guint         top,
                               GCancellable *cancellable)
{
  HlRecording *rec;
  const HlAllocRec *allocs;
  const guint64 *weights;
  guint64 n_allocs;
  guint n_stacks;
  g_autofree guint32 *site_of = NULL;   /* stack -> site index + 1 */
  g_autofree guint32 *slot_of = NULL;   /* site -> its part + 1 (0: other) */
  g_autoptr (GArray) firsts = NULL;
  g_autoptr (GArray) sites = NULL;
  HlSizesBySite *out;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  rec = hl_analysis_get_recording (self);
  if (hl_recording_get_aggregate (rec) != NULL)
    return NULL;
  allocs = hl_recording_get_allocs (rec, &n_allocs);
  weights = hl_recording_get_alloc_weights (rec);
  n_stacks = hl_recording_get_n_stacks (rec);

  /* the call sites of the stacks the selection allocated from, with
   * their selected allocations (the analysis' costs) */
  site_of = g_new0 (guint32, n_stacks + 1);
  firsts = hl_analysis_group_call_sites (self, site_of);
  sites = g_array_sized_new (FALSE, TRUE, sizeof (HlSiteSizes), firsts->len);
  for (guint k = 0; k < firsts->len; k++)
    {
      HlStackId s = g_array_index (firsts, HlStackId, k);
      HlSiteSizes site = { .stack = s, .frame = hl_call_site_frame (rec, s) };
      g_array_append_val (sites, site);
    }
  for (guint s = 0; s < n_stacks; s++)
    if (site_of[s] != 0)
      {
        HlSiteSizes *site = &g_array_index (sites, HlSiteSizes, site_of[s] - 1);
        HlCosts c;

        hl_analysis_get_stack_costs (self, s, &c);
        site->n_blocks += c.allocations;
        site->n_bytes += c.bytes;
      }

  /* the TOP of them get a histogram each; sorting keeps site_of's
   * indices valid through slot_of */
  g_autoptr (GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (HlSiteSizes), sites->len);
  g_array_append_vals (order, sites->data, sites->len);
  g_array_sort (order, compare_sites);
  out = g_new0 (HlSizesBySite, 1);
  out->sites = g_array_sized_new (FALSE, TRUE, sizeof (HlSiteSizes), MIN (top, order->len));
  slot_of = g_new0 (guint32, sites->len + 1);
  for (guint k = 0; k < order->len && k < top; k++)
    {
      HlSiteSizes site = g_array_index (order, HlSiteSizes, k);
      memset (&site.histogram, 0, sizeof site.histogram);
      g_array_append_val (out->sites, site);
      /* find its index in SITES: the one with its stack */
      for (guint j = 0; j < sites->len; j++)
        if (g_array_index (sites, HlSiteSizes, j).stack == site.stack)
          {
            slot_of[j + 1] = k + 1;
            break;
          }
    }

  for (guint64 i = 0; i < n_allocs; i++)
    {
      const HlAllocRec *a = &allocs[i];
      guint64 unit;
      HlSizeHistogram *h;
      guint b;

      if ((i & CANCEL_MASK) == 0 && g_cancellable_is_cancelled (cancellable))
        break;
      if (a->stack >= n_stacks || site_of[a->stack] == 0)
        continue;
      unit = hl_alloc_unit_size (allocs, weights, i);
      if (!hl_analysis_selects (self, a, unit))
        continue;
      guint32 slot = slot_of[site_of[a->stack]];
      h = slot > 0 ? &g_array_index (out->sites, HlSiteSizes, slot - 1).histogram : &out->other;
      b = size_bucket (unit);
      /* a sampled block counts as the blocks it stands for */
      h->count[b] += hl_alloc_weight (weights, i);
      h->bytes[b] += a->size;
    }
  if (g_cancellable_is_cancelled (cancellable))
    g_clear_pointer (&out, hl_sizes_by_site_free);
  return out;
}

void
hl_sizes_by_site_free (HlSizesBySite *sizes)
{
  if (sizes == NULL)
    return;
  g_clear_pointer (&sizes->sites, g_array_unref);
  g_free (sizes);
}

typedef struct
{
  guint top;
} Query;

static void
sizes_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  const Query *q = task_data;
  HlSizesBySite *sizes;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (hl_recording_get_aggregate (hl_analysis_get_recording (source)) != NULL)
    {
      g_task_return_new_error (task, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED,
                               _("The sizes by call site need every allocation: this recording holds its costs only"));
      return;
    }
  sizes = hl_analysis_get_sizes_by_site (source, q->top, cancellable);
  if (g_task_return_error_if_cancelled (task))
    {
      hl_sizes_by_site_free (sizes);
      return;
    }
  g_task_return_pointer (task, sizes, (GDestroyNotify) hl_sizes_by_site_free);
}

void
hl_analysis_get_sizes_by_site_async (HlAnalysis         *self,
                                     guint               top,
                                     GCancellable       *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer            user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  Query *q = g_new (Query, 1);

  g_return_if_fail (HL_IS_ANALYSIS (self));
  q->top = top;
  g_task_set_source_tag (task, hl_analysis_get_sizes_by_site_async);
  g_task_set_task_data (task, q, g_free);
  g_task_run_in_thread (task, sizes_thread);
}

HlSizesBySite *
hl_analysis_get_sizes_by_site_finish (HlAnalysis   *self,
                                      GAsyncResult *result,
                                      GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
