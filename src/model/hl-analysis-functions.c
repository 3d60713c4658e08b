/* hl-analysis-functions.c — the functions of an analysis' stacks found
 * by name, for the callers and callees of `report --function`. */
#include "hl-analysis-private.h"

#include <string.h>

static int
compare_function_bytes (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  HlAnalysis *self = user_data;
  const HlFrame *x = *(const HlFrame * const *) a, *y = *(const HlFrame * const *) b;
  HlCosts cx, cy;

  hl_analysis_get_function_costs (self, x, &cx);
  hl_analysis_get_function_costs (self, y, &cy);
  if (cx.bytes != cy.bytes)
    return cx.bytes > cy.bytes ? -1 : 1;
  return g_strcmp0 (x->module, y->module);
}

GPtrArray *
hl_analysis_find_functions (HlAnalysis *self,
                            const char *name)
{
  GPtrArray *out = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (HL_IS_ANALYSIS (self), out);
  g_return_val_if_fail (name != NULL, out);

  HlRecording *rec = hl_analysis_get_recording (self);
  guint n_stacks = hl_recording_get_n_stacks (rec);

  for (guint s = 1; s < n_stacks; s++)
    {
      guint n;
      const HlFrameEntry * const *f;
      HlCosts c;

      hl_analysis_get_stack_costs (self, s, &c);
      if (c.allocations == 0)
        continue;
      f = hl_recording_get_stack_entries (rec, s, &n);
      for (guint i = 0; i < n; i++)
        if (strcmp (f[i]->pub.function, name) == 0 &&
            g_hash_table_add (seen, GUINT_TO_POINTER (f[i]->function_id + 1)))
          g_ptr_array_add (out, (gpointer) &f[i]->pub);
    }
  g_ptr_array_sort_with_data (out, compare_function_bytes, self);
  return out;
}
