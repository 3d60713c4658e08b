/* hl-analysis-threads.c — an analysis' thread costs listed by the threads
 * of another recording of the same trace: a range load's analysis
 * (hl_recording_load_range()) shown with the whole run's threads. */
#include "hl-analysis-private.h"

GArray *
hl_analysis_get_thread_costs_for (HlAnalysis  *self,
                                  HlRecording *threads_of)
{
  g_autoptr (GArray) own = NULL;
  g_autoptr (GHashTable) by_tid = NULL;   /* tid → index + 1 in OWN of its first thread */
  const HlThreadInfo *threads;
  GArray *out;
  guint n;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (HL_IS_RECORDING (threads_of), NULL);

  own = hl_analysis_get_all_thread_costs (self);
  by_tid = g_hash_table_new (NULL, NULL);
  for (guint i = own->len; i > 0; i--)
    g_hash_table_insert (by_tid, GUINT_TO_POINTER (g_array_index (own, HlThreadCosts, i - 1).tid),
                         GUINT_TO_POINTER (i));
  out = g_array_new (FALSE, TRUE, sizeof (HlThreadCosts));
  threads = hl_recording_get_threads (threads_of, &n);
  for (guint t = 0; t < n; t++)
    {
      HlThreadCosts e = { .tid = threads[t].tid, .name = threads[t].name,
                          .start_ns = threads[t].start_ns, .end_ns = threads[t].end_ns };
      guint first = GPOINTER_TO_UINT (g_hash_table_lookup (by_tid, GUINT_TO_POINTER (e.tid)));

      /* a tid used again by a later thread: told apart by its start */
      for (guint i = first; i > 0 && i <= own->len; i++)
        {
          const HlThreadCosts *o = &g_array_index (own, HlThreadCosts, i - 1);
          if (o->tid == e.tid && o->start_ns == e.start_ns)
            {
              e.costs = o->costs;
              break;
            }
        }
      g_array_append_val (out, e);
    }
  g_array_sort (out, hl_thread_costs_compare_starts);
  return out;
}
