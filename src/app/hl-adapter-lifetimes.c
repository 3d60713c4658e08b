/* hl-adapter-lifetimes.c — the Lifetimes page's rows and histogram. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-lifetimes.h"
#include "hl-adapter-stack.h"
#include "hl-alloc-item.h"
#include "hl-site-name.h"

GListModel *
hl_adapter_lifetime_items (HlRecording       *recording,
                           const HlLifetimes *lt,
                           guint              max_rows)
{
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);
  guint n = lt != NULL ? MIN (lt->sites->len, max_rows) : 0;
  g_autoptr(GArray) stacks = g_array_sized_new (FALSE, FALSE, sizeof (HlStackId), n);
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GPtrArray) labels = NULL;

  for (guint i = 0; i < n; i++)
    g_array_append_val (stacks, g_array_index (lt->sites, HlSiteLifetimes, i).stack);
  /* the sites named as everywhere else (hl-site-name.h) */
  labels = hl_site_name_labels (recording, (const HlStackId *) (void *) stacks->data, n, &callers);
  for (guint i = 0; i < n; i++)
    {
      const HlSiteLifetimes *s = &g_array_index (lt->sites, HlSiteLifetimes, i);
      g_auto(GStrv) lines = hl_adapter_stack_lines (recording, s->stack);
      g_autoptr(HlAllocItem) item = NULL;

      item = hl_alloc_item_new (s->frame ? labels->pdata[i] : _("(no stack)"),
                                s->frame ? s->frame->module_name : "", s->n_blocks, s->n_bytes, 0, 0,
                                (const char * const *) lines);
      hl_alloc_item_set_caller (item, s->frame ? callers->pdata[i] : NULL);
      hl_alloc_item_set_lifetime (item, hl_lifetime_bucket_start_ns (s->median_bucket),
                                  hl_lifetime_bucket_label (s->median_bucket));
      /* Translators: a call site's verdict in the Lifetimes table: half its
       * blocks freed within 1 ms / most alive at the end, more every quarter */
      hl_alloc_item_set_verdict (item, s->growing ? _("Growing") : s->short_lived ? _("Short-lived") : NULL);
      g_list_store_append (store, item);
    }
  return G_LIST_MODEL (store);
}

guint
hl_adapter_lifetime_histogram (const HlLifetimes *lt,
                               HlHistogramBucket  out[HL_LIFETIME_N_BUCKETS])
{
  guint64 total = 0;

  if (lt == NULL)
    return 0;
  for (guint b = 0; b < HL_LIFETIME_N_BUCKETS; b++)
    {
      out[b].min_size = hl_lifetime_bucket_start_ns (b);
      out[b].count = lt->blocks[b];
      out[b].bytes = lt->bytes[b];
      out[b].label = hl_lifetime_bucket_label (b);
      total += lt->blocks[b];
    }
  return total > 0 ? HL_LIFETIME_N_BUCKETS : 0;
}
