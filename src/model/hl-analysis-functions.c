/* hl-analysis-functions.c — the functions of an analysis' stacks: found
 * by name, for the callers and callees of `report --function`, and all of
 * them with their self and total costs, for the application's flat
 * Callers/Callees list. */
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

/* ---- The flat list ------------------------------------------------------ */

static int
compare_function_costs (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  HlCostKind kind = GPOINTER_TO_UINT (user_data);
  const HlFunctionCosts *x = a, *y = b;
  guint64 cx = hl_costs_get (&x->total, kind), cy = hl_costs_get (&y->total, kind);
  int by_name;

  if (cx != cy)
    return cx > cy ? -1 : 1;
  by_name = strcmp (x->frame->function, y->frame->function);
  return by_name != 0 ? by_name : g_strcmp0 (x->frame->module_name, y->frame->module_name);
}

GArray *
hl_analysis_get_functions (HlAnalysis *self,
                           HlCostKind  sort_by)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlFunctionCosts));
  g_autoptr (GHashTable) index_of = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) last_stack = g_array_new (FALSE, FALSE, sizeof (guint));

  g_return_val_if_fail (HL_IS_ANALYSIS (self), out);
  g_return_val_if_fail (sort_by < HL_N_COST_KINDS, out);

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
        {
          gpointer key = GUINT_TO_POINTER (f[i]->function_id + 1);
          guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (index_of, key));
          HlFunctionCosts *e;

          if (idx == 0)
            {
              HlFunctionCosts fresh = { .frame = &f[i]->pub };
              guint none = 0;

              g_array_append_val (out, fresh);
              g_array_append_val (last_stack, none);
              idx = out->len;
              g_hash_table_insert (index_of, key, GUINT_TO_POINTER (idx));
            }
          e = &g_array_index (out, HlFunctionCosts, idx - 1);
          if (e->frame->file == NULL && f[i]->pub.file != NULL)
            e->frame = &f[i]->pub;
          /* innermost first: frame 0 called the allocator */
          if (i == 0)
            hl_costs_add (&e->self, &c);
          /* a recursive function is met again in the same stack: once */
          if (g_array_index (last_stack, guint, idx - 1) != s)
            {
              g_array_index (last_stack, guint, idx - 1) = s;
              hl_costs_add (&e->total, &c);
            }
        }
    }
  g_array_sort_with_data (out, compare_function_costs, GUINT_TO_POINTER (sort_by));
  return out;
}

static void
functions_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  GArray *functions;

  if (g_task_return_error_if_cancelled (task))
    return;
  functions = hl_analysis_get_functions (source, GPOINTER_TO_UINT (task_data));
  if (g_task_return_error_if_cancelled (task))
    {
      g_array_unref (functions);
      return;
    }
  g_task_return_pointer (task, functions, (GDestroyNotify) g_array_unref);
}

void
hl_analysis_get_functions_async (HlAnalysis         *self,
                                 HlCostKind          sort_by,
                                 GCancellable       *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer            user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (HL_IS_ANALYSIS (self));
  g_return_if_fail (sort_by < HL_N_COST_KINDS);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_analysis_get_functions_async);
  g_task_set_task_data (task, GUINT_TO_POINTER (sort_by), NULL);
  g_task_run_in_thread (task, functions_thread);
}

GArray *
hl_analysis_get_functions_finish (HlAnalysis   *self,
                                  GAsyncResult *result,
                                  GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == hl_analysis_get_functions_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Callers and callees ----------------------------------------------- */

static GArray *
neighbours (HlAnalysis    *self,
            const HlFrame *function,
            int            direction,
            HlCostKind     sort_by)
{
  g_autoptr (GHashTable) by_function = g_hash_table_new (NULL, NULL);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlStackCosts));
  guint32 fid = hl_frame_entry (function)->function_id;
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  guint n_stacks;
  const HlCosts *stack_costs = hl_analysis_peek_stack_costs (self, &n_stacks);

  for (guint s = 1; s < n_stacks; s++)
    {
      guint n;
      const HlFrameEntry * const *f;

      if (stack_costs[s].allocations == 0 && stack_costs[s].mmap_bytes == 0)
        continue;
      f = hl_recording_get_stack_entries (hl_analysis_get_recording (self), s, &n);
      g_hash_table_remove_all (seen);
      for (guint i = 0; i < n; i++)
        {
          const HlFrameEntry *other;
          gpointer idx;

          if (f[i]->function_id != fid)
            continue;
          /* Frames are innermost first: callers are at i + 1. */
          if (direction > 0 ? i + 1 >= n : i == 0)
            continue;
          other = f[direction > 0 ? i + 1 : i - 1];
          if (g_hash_table_contains (seen, GUINT_TO_POINTER (other->function_id + 1)))
            continue;
          g_hash_table_add (seen, GUINT_TO_POINTER (other->function_id + 1));
          idx = g_hash_table_lookup (by_function, GUINT_TO_POINTER (other->function_id + 1));
          if (idx == NULL)
            {
              HlStackCosts e = { .frame = &other->pub };
              g_array_append_val (out, e);
              idx = GUINT_TO_POINTER (out->len);
              g_hash_table_insert (by_function, GUINT_TO_POINTER (other->function_id + 1), idx);
            }
          hl_costs_add (&g_array_index (out, HlStackCosts, GPOINTER_TO_UINT (idx) - 1).costs,
                        &stack_costs[s]);
        }
    }
  g_array_sort_with_data (out, hl_stack_costs_compare, GUINT_TO_POINTER (sort_by));
  return out;
}

GArray *
hl_analysis_get_callers (HlAnalysis    *self,
                         const HlFrame *function,
                         HlCostKind     sort_by)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (function != NULL, NULL);
  return neighbours (self, function, +1, sort_by);
}

GArray *
hl_analysis_get_callees (HlAnalysis    *self,
                         const HlFrame *function,
                         HlCostKind     sort_by)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (function != NULL, NULL);
  return neighbours (self, function, -1, sort_by);
}

void
hl_analysis_get_function_costs (HlAnalysis    *self,
                                const HlFrame *function,
                                HlCosts       *out)
{
  guint32 fid;
  guint n_stacks;
  const HlCosts *stack_costs;

  g_return_if_fail (HL_IS_ANALYSIS (self));
  g_return_if_fail (function != NULL);

  memset (out, 0, sizeof *out);
  stack_costs = hl_analysis_peek_stack_costs (self, &n_stacks);
  fid = hl_frame_entry (function)->function_id;
  for (guint s = 1; s < n_stacks; s++)
    {
      guint n;
      const HlFrameEntry * const *f;

      if (stack_costs[s].allocations == 0 && stack_costs[s].mmap_bytes == 0)
        continue;
      f = hl_recording_get_stack_entries (hl_analysis_get_recording (self), s, &n);
      for (guint i = 0; i < n; i++)
        if (f[i]->function_id == fid)
          {
            hl_costs_add (out, &stack_costs[s]);
            break;
          }
    }
}
