/* hl-analysis-sites.c — the call sites of a selection, shared by the
 * per-site answers (hl-lifetimes.c, hl-site-sizes.c). */
#include "hl-config.h"

#include "hl-analysis-private.h"
#include "hl-call-site.h"

GArray *
hl_analysis_group_call_sites (HlAnalysis *self,
                              guint32    *site_of)
{
  HlRecording *rec = hl_analysis_get_recording (self);
  guint n_stacks = hl_recording_get_n_stacks (rec);
  g_autoptr (GHashTable) groups = hl_call_site_table_new ();
  GArray *firsts = g_array_new (FALSE, FALSE, sizeof (HlStackId));

  for (guint s = 0; s < n_stacks; s++)
    {
      HlCosts c;
      GPtrArray *key;
      gpointer index;

      hl_analysis_get_stack_costs (self, s, &c);
      if (c.allocations == 0)
        continue;
      key = hl_call_site_key (rec, s);
      /* stack 0 (no frames) is a site of its own, never merged */
      index = s == 0 ? NULL : g_hash_table_lookup (groups, key);
      if (index == NULL)
        {
          HlStackId first = s;
          g_array_append_val (firsts, first);
          index = GUINT_TO_POINTER (firsts->len);
          if (s != 0)
            g_hash_table_insert (groups, g_steal_pointer (&key), index);
        }
      g_clear_pointer (&key, g_ptr_array_unref);
      site_of[s] = GPOINTER_TO_UINT (index);
    }
  return firsts;
}
