/* hl-analysis-reachability.c — the leak scan's kinds per stack for an
 * analysis: the lost ones as the scan listed them, the still reachable
 * ones as each stack's leaks less its lost blocks. */
#include "hl-analysis-private.h"

GArray *
hl_analysis_get_reachability_stacks (HlAnalysis         *self,
                                     HlReachabilityKind  kind,
                                     guint               n)
{
  HlRecording *rec;
  HlReachability r;
  HlSummary s;
  GArray *out;
  g_autofree guint64 *lost_bytes = NULL, *lost_blocks = NULL;
  const HlReachabilityBlock *blocks;
  guint n_blocks;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  rec = hl_analysis_get_recording (self);
  if (kind != HL_REACHABILITY_STILL_REACHABLE || !hl_recording_get_reachability (rec, &r))
    return hl_recording_get_reachability_stacks (rec, kind, n);

  out = g_array_new (FALSE, TRUE, sizeof (HlReachabilityStack));
  hl_recording_get_summary (rec, &s);
  lost_bytes = g_new0 (guint64, s.n_stacks + 1);
  lost_blocks = g_new0 (guint64, s.n_stacks + 1);
  blocks = hl_recording_get_reachability_blocks (rec, &n_blocks);
  for (guint i = 0; i < n_blocks; i++)
    if (blocks[i].stack <= s.n_stacks)
      {
        lost_bytes[blocks[i].stack] += blocks[i].size;
        lost_blocks[blocks[i].stack]++;
      }
  for (guint st = 0; st <= s.n_stacks; st++)
    {
      HlCosts c;

      hl_analysis_get_stack_costs (self, st, &c);
      if (c.leaked_blocks > lost_blocks[st])
        {
          HlReachabilityStack e = { st, kind, c.leaked_blocks - lost_blocks[st],
                                    c.leaked_bytes > lost_bytes[st] ? c.leaked_bytes - lost_bytes[st] : 0 };
          g_array_append_val (out, e);
        }
    }
  g_array_sort (out, hl_reachability_stack_compare);
  if (n > 0 && out->len > n)
    g_array_set_size (out, n);
  return out;
}

GArray *
hl_analysis_get_top_leaks_of_kind (HlAnalysis         *self,
                                   HlReachabilityKind  kind,
                                   guint               n)
{
  HlRecording *rec;
  HlReachability r;
  HlSummary s;
  g_autofree HlCosts *of_kind = NULL;
  g_autofree guint64 *lost_bytes = NULL, *lost_blocks = NULL;
  const HlReachabilityBlock *blocks;
  guint n_blocks;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail ((guint) kind < HL_REACHABILITY_KINDS, NULL);
  rec = hl_analysis_get_recording (self);
  /* the scan's kinds are the whole run's blocks at its exit: a filter's
   * leaks (a time range's "not freed by its end") are other blocks */
  if (!hl_filter_is_empty (hl_analysis_get_filter (self)) || !hl_recording_get_reachability (rec, &r))
    return NULL;

  hl_recording_get_summary (rec, &s);
  of_kind = g_new0 (HlCosts, s.n_stacks + 1);
  lost_bytes = g_new0 (guint64, s.n_stacks + 1);
  lost_blocks = g_new0 (guint64, s.n_stacks + 1);
  blocks = hl_recording_get_reachability_blocks (rec, &n_blocks);
  for (guint i = 0; i < n_blocks; i++)
    if (blocks[i].stack <= s.n_stacks)
      {
        lost_bytes[blocks[i].stack] += blocks[i].size;
        lost_blocks[blocks[i].stack]++;
        if (blocks[i].kind == kind)
          {
            of_kind[blocks[i].stack].leaked_bytes += blocks[i].size;
            of_kind[blocks[i].stack].leaked_blocks++;
          }
      }
  if (kind == HL_REACHABILITY_STILL_REACHABLE)
    for (guint st = 0; st <= s.n_stacks; st++)
      {
        HlCosts c;

        hl_analysis_get_stack_costs (self, st, &c);
        of_kind[st].leaked_blocks = c.leaked_blocks > lost_blocks[st] ? c.leaked_blocks - lost_blocks[st] : 0;
        of_kind[st].leaked_bytes = c.leaked_bytes > lost_bytes[st] ? c.leaked_bytes - lost_bytes[st] : 0;
      }
  return hl_analysis_get_top_stacks_by (self, of_kind, s.n_stacks + 1, HL_COST_KIND_LEAKED, n);
}
