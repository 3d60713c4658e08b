/* hl-adapter-allocations.c — the allocations view's lists (leaks, largest)
 * and its size histogram. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-allocations.h"
#include "hl-adapter-stack.h"
#include "hl-alloc-item.h"
#include "hl-units.h"

/* ---- Allocations ------------------------------------------------------ */
GListModel *
hl_adapter_leak_items (HlRecording *recording,
                       GArray      *top)
{
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);

  for (guint i = 0; top != NULL && i < top->len; i++)
    {
      const HlStackCosts *sc = &g_array_index (top, HlStackCosts, i);
      g_auto(GStrv) lines = hl_adapter_stack_lines (recording, sc->stack);
      g_autoptr(HlAllocItem) item = NULL;

      item = hl_alloc_item_new (sc->frame ? sc->frame->function : _("(no stack)"),
                                sc->frame ? sc->frame->module_name : "",
                                sc->costs.leaked_blocks, sc->costs.leaked_bytes, 0, 0,
                                (const char * const *) lines);
      hl_alloc_item_set_caller (item, hl_adapter_caller (recording, sc->stack, sc->frame));
      g_list_store_append (store, item);
    }
  return G_LIST_MODEL (store);
}

GListModel *
hl_adapter_largest_items (HlRecording *recording,
                          GArray      *largest)
{
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);

  for (guint i = 0; largest != NULL && i < largest->len; i++)
    {
      const HlAllocationInfo *a = &g_array_index (largest, HlAllocationInfo, i);
      const HlFrame *f = hl_adapter_first_resolved_frame (recording, a->stack);
      g_auto(GStrv) lines = hl_adapter_stack_lines (recording, a->stack);
      g_autoptr(HlAllocItem) item = NULL;

      item = hl_alloc_item_new (f ? f->function : _("(no stack)"), f ? f->module_name : "",
                                1, a->size, a->time_ns, a->tid, (const char * const *) lines);
      hl_alloc_item_set_caller (item, hl_adapter_caller (recording, a->stack, f));
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
      out[n].count = h.count[i];
      out[n].bytes = h.bytes[i];
    }
  return n;
}
