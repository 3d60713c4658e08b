/* hl-adapter-allocations.c — the allocations view's lists (leaks, largest)
 * and its size histogram. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "hl-adapter-allocations.h"
#include "hl-adapter-stack.h"
#include "hl-alloc-item.h"
#include "hl-site-name.h"
#include "hl-units.h"

/* ---- Allocations ------------------------------------------------------ */

static void
append_leak_items (GListStore  *store,
                   HlRecording *recording,
                   GArray      *top,
                   int          kind)
{
  guint n = top != NULL ? top->len : 0;
  g_autoptr(GArray) stacks = g_array_sized_new (FALSE, TRUE, sizeof (HlStackId), n);
  g_autoptr(GPtrArray) labels = NULL;
  g_autoptr(GPtrArray) callers = NULL;

  for (guint i = 0; i < n; i++)
    g_array_append_val (stacks, g_array_index (top, HlStackCosts, i).stack);
  labels = hl_site_name_labels (recording, (const HlStackId *) (void *) stacks->data, n, &callers);
  for (guint i = 0; i < n; i++)
    {
      const HlStackCosts *sc = &g_array_index (top, HlStackCosts, i);
      g_auto(GStrv) lines = hl_adapter_stack_lines (recording, sc->stack);
      g_autoptr(HlAllocItem) item = NULL;

      item = hl_alloc_item_new (sc->frame ? labels->pdata[i] : _("(no stack)"),
                                sc->frame ? sc->frame->module_name : "",
                                sc->costs.leaked_blocks, sc->costs.leaked_bytes, 0, 0,
                                (const char * const *) lines);
      hl_alloc_item_set_caller (item, sc->frame ? callers->pdata[i] : NULL);
      if (kind >= 0)
        hl_alloc_item_set_kind (item, kind, hl_adapter_reachability_kind_title (kind));
      g_list_store_append (store, item);
    }
}

const char *
hl_adapter_reachability_kind_title (int kind)
{
  switch (kind)
    {
    /* Translators: Valgrind memcheck's kinds of a block not freed at exit */
    case HL_REACHABILITY_DEFINITELY_LOST: return _("Definitely lost");
    case HL_REACHABILITY_INDIRECTLY_LOST: return _("Indirectly lost");
    case HL_REACHABILITY_POSSIBLY_LOST:   return _("Possibly lost");
    case HL_REACHABILITY_STILL_REACHABLE: return _("Still reachable");
    default:                              return "";
    }
}

GListModel *
hl_adapter_leak_items (HlRecording *recording,
                       GArray      *top)
{
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);

  append_leak_items (store, recording, top, -1);
  return G_LIST_MODEL (store);
}

GListModel *
hl_adapter_leak_items_by_kind (HlRecording *recording,
                               GArray     **by_kind)
{
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);

  /* the surest first */
  for (int k = HL_REACHABILITY_KINDS - 1; k >= 0; k--)
    append_leak_items (store, recording, by_kind[k], k);
  return G_LIST_MODEL (store);
}

GListModel *
hl_adapter_largest_items (HlRecording *recording,
                          GArray      *largest)
{
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);
  guint n = largest != NULL ? largest->len : 0;
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);   /* stack -> its label's index + 1 */
  g_autoptr(GArray) stacks = g_array_new (FALSE, TRUE, sizeof (HlStackId));
  g_autoptr(GPtrArray) labels = NULL;
  g_autoptr(GPtrArray) callers = NULL;

  /* many of the largest share a stack: a name per stack */
  for (guint i = 0; i < n; i++)
    {
      HlStackId stack = g_array_index (largest, HlAllocationInfo, i).stack;

      if (!g_hash_table_contains (index, GUINT_TO_POINTER (stack)))
        {
          g_array_append_val (stacks, stack);
          g_hash_table_insert (index, GUINT_TO_POINTER (stack), GUINT_TO_POINTER (stacks->len));
        }
    }
  labels = hl_site_name_labels (recording, (const HlStackId *) (void *) stacks->data, stacks->len, &callers);
  /* one row per call site and size (issue 27.5), with how many: the
   * first of them (the model gives them largest first) gives its time and
   * thread */
  {
    g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GArray) firsts = g_array_new (FALSE, FALSE, sizeof (guint));
    g_autoptr(GArray) counts = g_array_new (FALSE, TRUE, sizeof (guint64));

    for (guint i = 0; i < n; i++)
      {
        const HlAllocationInfo *a = &g_array_index (largest, HlAllocationInfo, i);
        g_autofree char *key = g_strdup_printf ("%u:%" G_GUINT64_FORMAT, a->stack, a->size);
        gpointer slot;

        if (g_hash_table_lookup_extended (groups, key, NULL, &slot))
          {
            g_array_index (counts, guint64, GPOINTER_TO_UINT (slot)) += MAX (a->weight, 1);
            continue;
          }
        g_hash_table_insert (groups, g_steal_pointer (&key), GUINT_TO_POINTER (firsts->len));
        g_array_append_val (firsts, i);
        g_array_set_size (counts, counts->len + 1);
        g_array_index (counts, guint64, counts->len - 1) = MAX (a->weight, 1);
      }
    for (guint g = 0; g < firsts->len; g++)
      {
        const HlAllocationInfo *a = &g_array_index (largest, HlAllocationInfo, g_array_index (firsts, guint, g));
        const HlFrame *f = hl_adapter_first_resolved_frame (recording, a->stack);
        guint k = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (a->stack))) - 1;
        g_auto(GStrv) lines = hl_adapter_stack_lines (recording, a->stack);
        g_autoptr(HlAllocItem) item = NULL;

        item = hl_alloc_item_new (f ? labels->pdata[k] : _("(no stack)"), f ? f->module_name : "",
                                  g_array_index (counts, guint64, g), a->size, a->time_ns, a->tid,
                                  (const char * const *) lines);
        hl_alloc_item_set_caller (item, f ? callers->pdata[k] : NULL);
        /* the group's first block's lifetime (the largest-first model's) */
        if (a->free_time_ns == HL_TIME_NONE)
          /* Translators: the Lifetime of a block never freed */
          hl_alloc_item_set_lifetime (item, G_MAXUINT64, _("alive at exit"));
        else
          {
            guint64 life = a->free_time_ns > a->time_ns ? a->free_time_ns - a->time_ns : 0;
            g_autofree char *text = hl_format_duration (life);
            hl_alloc_item_set_lifetime (item, life, text);
          }
        g_list_store_append (store, item);
      }
  }
  return G_LIST_MODEL (store);
}

guint
hl_adapter_histogram (HlAnalysis        *analysis,
                      HlHistogramBucket  out[HL_SIZE_HISTOGRAM_BUCKETS])
{
  HlSizeHistogram h;
  guint first = HL_SIZE_HISTOGRAM_BUCKETS, last = 0, n = 0;

  hl_analysis_get_size_histogram (analysis, &h);
  for (guint i = 0; i < HL_SIZE_HISTOGRAM_BUCKETS; i++)
    if (h.count[i] > 0)
      {
        first = MIN (first, i);
        last = MAX (last, i);
      }
  if (first == HL_SIZE_HISTOGRAM_BUCKETS)
    return 0;
  /* Bucket i holds sizes in [2^(i-1), 2^i); bucket 0 is size 0. */
  for (guint i = first; i <= last; i++, n++)
    {
      out[n].min_size = i == 0 ? 0 : G_GUINT64_CONSTANT (1) << (i - 1);
      out[n].max_size = i == 0 ? 0 : i == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << i) - 1;
      out[n].label = NULL;
      out[n].count = h.count[i];
      out[n].bytes = h.bytes[i];
    }
  return n;
}

GStrv
hl_adapter_histogram_parts (HlRecording         *recording,
                            const HlSizesBySite *sizes,
                            guint                n,
                            HlHistogramBucket   *buckets)
{
  guint n_sites;
  g_autoptr(GArray) stacks = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  GStrv names;

  if (sizes == NULL || sizes->sites->len == 0 || n == 0)
    return NULL;
  n_sites = MIN (sizes->sites->len, HL_HISTOGRAM_MAX_PARTS - 1);
  stacks = g_array_sized_new (FALSE, TRUE, sizeof (HlStackId), n_sites);
  for (guint k = 0; k < n_sites; k++)
    g_array_append_val (stacks, g_array_index (sizes->sites, HlSiteSizes, k).stack);
  /* the names the timeline's By Call Site gives (hl-site-name.h) */
  labels = hl_site_name_labels (recording, (const HlStackId *) (void *) stacks->data, n_sites, NULL);
  for (guint j = 0; j < n; j++)
    {
      HlHistogramBucket *b = &buckets[j];
      /* the bucket's index in the model's histogram: sizes [2^(i-1), 2^i) */
      guint i = b->min_size == 0 ? 0 : (guint) __builtin_ctzll (b->min_size) + 1;
      memset (b->part_count, 0, sizeof b->part_count);
      memset (b->part_bytes, 0, sizeof b->part_bytes);
      for (guint k = 0; k < sizes->sites->len; k++)
        {
          const HlSiteSizes *site = &g_array_index (sizes->sites, HlSiteSizes, k);
          guint part = MIN (k, n_sites);   /* past the named ones: the others' */
          b->part_count[part] += site->histogram.count[i];
          b->part_bytes[part] += site->histogram.bytes[i];
        }
      b->part_count[n_sites] += sizes->other.count[i];
      b->part_bytes[n_sites] += sizes->other.bytes[i];
    }
  names = g_new0 (char *, n_sites + 2);
  for (guint k = 0; k < n_sites; k++)
    names[k] = g_strdup (labels->pdata[k]);
  names[n_sites] = g_strdup (_("Other call sites"));
  return names;
}
