/* hl-analysis-mmap.c — the MMAP cost of a selection (hl-cost-kind.h):
 * the program's own anonymous mappings its calls made and still held,
 * from the recording's pieces of mappings (hl-recording-sysmem.h), or
 * from the saved costs' sites. */
#include "hl-analysis-private.h"
#include "hl-filter-private.h"
#include "hl-recording-aggregate.h"
#include "hl-recording-sysmem.h"

/* Whether the filter's threads hold TID (none: every thread). */
static gboolean
tid_selected (const HlFilter *f,
              guint32         tid)
{
  if (f->tids == NULL)
    return TRUE;
  for (guint i = 0; i < f->tids->len; i++)
    if (g_array_index (f->tids, guint32, i) == tid)
      return TRUE;
  return FALSE;
}

static gboolean
in_meta_ranges (const GArray *meta_ranges,
                guint64       t)
{
  for (guint c = 0; meta_ranges != NULL && c < meta_ranges->len; c++)
    {
      const GArray *r = g_array_index (meta_ranges, GArray *, c);
      gboolean in = FALSE;
      for (guint i = 0; !in && i + 1 < r->len; i += 2)
        in = t >= g_array_index (r, guint64, i) && t < g_array_index (r, guint64, i + 1);
      if (!in)
        return FALSE;
    }
  return TRUE;
}

/* Thread index + 1 of every tid of REC (0: a tid that allocated nothing). */
static GHashTable *
thread_indices (HlRecording *rec,
                guint        n_threads)
{
  GHashTable *by_tid = g_hash_table_new (NULL, NULL);

  for (guint t = 0; t < n_threads; t++)
    g_hash_table_insert (by_tid, GUINT_TO_POINTER (hl_recording_get_thread_tid (rec, t)), GUINT_TO_POINTER (t + 1));
  return by_tid;
}

void
hl_analysis_add_mmap (HlAnalysis            *self,
                      const HlMmapSelection *sel,
                      HlCosts               *stack_costs,
                      guint                  n_stacks,
                      HlCosts               *thread_costs,
                      guint                  n_threads)
{
  HlRecording *rec = hl_analysis_get_recording (self);
  const HlFilter *f = hl_analysis_get_filter (self);
  guint n;
  const HlMmapPiece *pieces = hl_recording_get_mmap_pieces (rec, &n);
  g_autoptr (GHashTable) by_tid = NULL;

  if (n == 0)
    return;
  by_tid = thread_indices (rec, n_threads);
  for (guint i = 0; i < n; i++)
    {
      const HlMmapPiece *p = &pieces[i];
      HlStackId s;
      guint t;

      if (p->time_ns < sel->t0 || p->time_ns > sel->t1)
        continue;
      /* mapped at the instant: by then, not unmapped by then */
      if (sel->live_at != HL_TIME_NONE
            ? p->time_ns > sel->live_at || (p->unmap_time_ns != HL_TIME_NONE && p->unmap_time_ns <= sel->live_at)
            : p->unmap_time_ns != HL_TIME_NONE)
        continue;
      if (p->call_bytes < f->min_size || p->call_bytes > f->max_size || !tid_selected (f, p->tid)
          || !in_meta_ranges (sel->meta_ranges, p->time_ns))
        continue;
      s = hl_recording_lookup_stack (rec, p->stack);
      if (s >= n_stacks || (sel->stack_ok != NULL && !sel->stack_ok[s]))
        continue;
      stack_costs[s].mmap_bytes += p->bytes;
      t = GPOINTER_TO_UINT (g_hash_table_lookup (by_tid, GUINT_TO_POINTER (p->tid)));
      if (t > 0 && t <= n_threads)
        thread_costs[t - 1].mmap_bytes += p->bytes;
    }
}

void
hl_analysis_add_mmap_saved (HlAnalysis        *self,
                            const HlAggregate *agg,
                            const guint8      *stack_ok,
                            HlCosts           *stack_costs,
                            guint              n_stacks,
                            HlCosts           *thread_costs,
                            guint              n_threads)
{
  HlRecording *rec = hl_analysis_get_recording (self);
  const HlFilter *f = hl_analysis_get_filter (self);
  guint n;
  g_autoptr (GArray) sites = NULL;

  hl_recording_get_mmap_pieces (rec, &n);
  if (n > 0)
    {
      HlMmapSelection sel = { 0, HL_TIME_NONE, HL_TIME_NONE, stack_ok, NULL };
      hl_analysis_add_mmap (self, &sel, stack_costs, n_stacks, thread_costs, n_threads);
      return;
    }
  /* the saved sites: what each stack maps at the end */
  sites = hl_recording_get_mmap_sites (rec, 0);
  for (guint i = 0; i < sites->len; i++)
    {
      const HlMmapSite *m = &g_array_index (sites, HlMmapSite, i);
      guint32 owner = hl_aggregate_get_stack_owner (agg, m->stack);

      if (m->stack >= n_stacks || (stack_ok != NULL && !stack_ok[m->stack]))
        continue;
      if (f->tids != NULL && (owner == 0 || owner > n_threads
                              || !tid_selected (f, hl_recording_get_thread_tid (rec, owner - 1))))
        continue;
      stack_costs[m->stack].mmap_bytes += m->live_bytes;
      if (owner > 0 && owner <= n_threads)
        thread_costs[owner - 1].mmap_bytes += m->live_bytes;
    }
}
