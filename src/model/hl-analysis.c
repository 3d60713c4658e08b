/* hl-analysis.c — costs of the allocations a filter selects. */
#include "hl-analysis-private.h"
#include "hl-call-site.h"
#include "hl-call-tree-private.h"
#include "hl-filter-private.h"
#include "hl-recording-aggregate.h"

#include <string.h>

struct _HlAnalysis
{
  GObject parent_instance;

  /* Owned */
  HlRecording *recording;
  HlFilter    *filter;
  HlCosts     *stack_costs;     /* per internal stack */
  guint        n_stacks;
  HlCosts      totals;
  HlCosts     *thread_costs;    /* per thread index */
  guint        n_threads;
  HlSizeHistogram histogram;
  guint64      peak_time_ns;
  GMutex       lock;
  HlCallTree  *trees[2][HL_N_COST_KINDS];

  /* Selection, kept for the per-allocation views. */
  guint64      t0, t1, live_at;
  guint64      lived_min, end_ns;   /* LONG_LIVED's T; the recording's end */
  gboolean     has_range;
  guint64      peak_time;
  guint32      peak_seq;
  gboolean     have_peak;
  guint8      *stack_ok;        /* NULL: all */
  guint8      *thread_ok;       /* NULL: all */
  GArray      *meta_ranges;     /* per condition: GArray of guint64 pairs */
};

G_DEFINE_FINAL_TYPE (HlAnalysis, hl_analysis, G_TYPE_OBJECT)

static void
hl_analysis_finalize (GObject *object)
{
  HlAnalysis *self = HL_ANALYSIS (object);

  for (guint k = 0; k < 2; k++)
    for (guint c = 0; c < HL_N_COST_KINDS; c++)
      g_clear_pointer (&self->trees[k][c], hl_call_tree_unref);
  g_clear_object (&self->recording);
  g_clear_pointer (&self->filter, hl_filter_unref);
  g_clear_pointer (&self->stack_costs, g_free);
  g_clear_pointer (&self->thread_costs, g_free);
  g_clear_pointer (&self->stack_ok, g_free);
  g_clear_pointer (&self->thread_ok, g_free);
  g_clear_pointer (&self->meta_ranges, g_array_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (hl_analysis_parent_class)->finalize (object);
}

static void
hl_analysis_class_init (HlAnalysisClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hl_analysis_finalize;
}

static void
hl_analysis_init (HlAnalysis *self)
{
  g_mutex_init (&self->lock);
}

static void
clear_range_array (gpointer data)
{
  g_array_unref (*(GArray **) data);
}

/* Which stacks the module/function conditions keep. */
static guint8 *
select_stacks (HlRecording    *recording,
               const HlFilter *f)
{
  guint n = hl_recording_get_n_stacks (recording);
  guint8 *ok;

  if (f->modules->len == 0 && f->functions->len == 0 && f->regexes->len == 0)
    return NULL;
  ok = g_new0 (guint8, n + 1);
  for (guint s = 1; s < n; s++)
    {
      guint nf;
      const HlFrameEntry * const *frames = hl_recording_get_stack_entries (recording, s, &nf);
      gboolean all = TRUE;

      for (guint c = 0; all && c < f->modules->len; c++)
        {
          gboolean any = FALSE;
          for (guint i = 0; !any && i < nf; i++)
            any = strstr (frames[i]->pub.module, f->modules->pdata[c]) != NULL;
          all = any;
        }
      for (guint c = 0; all && c < f->functions->len; c++)
        {
          gboolean any = FALSE;
          for (guint i = 0; !any && i < nf; i++)
            any = strstr (frames[i]->pub.function, f->functions->pdata[c]) != NULL;
          all = any;
        }
      for (guint c = 0; all && c < f->regexes->len; c++)
        {
          gboolean any = FALSE;
          for (guint i = 0; !any && i < nf; i++)
            any = g_regex_match (f->regexes->pdata[c], frames[i]->pub.function, 0, NULL);
          all = any;
        }
      ok[s] = all;
    }
  return ok;
}

/* UNIT_SIZE: the size the program asked for (hl_alloc_unit_size). */
static gboolean
selected (HlAnalysis       *self,
          const HlAllocRec *a,
          guint64           unit_size)
{
  if ((a->flags & HL_ALLOC_PRESENT) == 0)
    return FALSE;
  if (a->time_ns < self->t0 || a->time_ns > self->t1)
    return FALSE;
  if (unit_size < self->filter->min_size || unit_size > self->filter->max_size)
    return FALSE;
  if (self->thread_ok != NULL && !self->thread_ok[a->thread])
    return FALSE;
  if (self->stack_ok != NULL && !self->stack_ok[a->stack])
    return FALSE;
  for (guint c = 0; self->meta_ranges != NULL && c < self->meta_ranges->len; c++)
    {
      GArray *r = g_array_index (self->meta_ranges, GArray *, c);
      gboolean in = FALSE;
      for (guint i = 0; !in && i < r->len; i += 2)
        in = a->time_ns >= g_array_index (r, guint64, i) && a->time_ns < g_array_index (r, guint64, i + 1);
      if (!in)
        return FALSE;
    }
  return TRUE;
}

static gboolean
live_at_key (const HlAllocRec *a,
             guint64           t,
             guint32           seq)
{
  gboolean born = a->time_ns < t || (a->time_ns == t && a->seq <= seq);
  gboolean alive = (a->flags & HL_ALLOC_FREED) == 0 || a->free_time_ns > t ||
                   (a->free_time_ns == t && a->free_seq > seq);
  return born && alive;
}

static guint
size_bucket (guint64 size)
{
  return size == 0 ? 0 : 64 - __builtin_clzll (size);
}

static void
find_range_peak (HlAnalysis *self)
{
  self->have_peak = hl_recording_find_peak_in (self->recording, self->t0, self->t1,
                                               &self->peak_time, &self->peak_seq);
}

/* Whether block B of allocations may hold some in the filter's time range.
 * The time blocks cover the allocations when the curve is up to date;
 * blocks past them (appended since) are scanned whole. */
static inline gboolean
block_in_range (HlAnalysis             *self,
                const HlAllocTimeBlock *tb,
                guint64                 n_tb,
                guint64                 b)
{
  return b >= n_tb ||
         (tb[b].min_time_ns <= tb[b].max_time_ns && tb[b].max_time_ns >= self->t0 && tb[b].min_time_ns <= self->t1);
}

/* One thread's share of the allocations: the blocks it scans, and its own
 * sums, added up when every part is done. */
typedef struct
{
  HlAnalysis       *self;
  const HlAllocRec *allocs;
  const guint64    *weights;    /* by id; NULL: all weigh 1 */
  guint64           n_allocs;
  const guint64    *blocks;     /* block numbers */
  guint64           n_blocks;
  HlCosts          *stack_costs;
  HlCosts          *thread_costs;
  HlSizeHistogram   histogram;
} ScanPart;

static inline void
scan_one (HlAnalysis       *self,
          ScanPart         *part,
          guint64           id)
{
  const HlAllocRec *a = &part->allocs[id];
  HlCosts *c, *t;
  gboolean leaked, live, peak, lived;
  guint64 w, temporary, life_end;
  guint b;

  w = hl_alloc_weight (part->weights, id);
  if (!selected (self, a, w <= 1 ? a->size : a->size / w))
    return;
  c = &part->stack_costs[a->stack];
  leaked = (a->flags & HL_ALLOC_FREED) == 0 ||
           (self->t1 != HL_TIME_NONE && a->free_time_ns > self->t1);
  live = self->live_at == HL_TIME_NONE ? (a->flags & HL_ALLOC_FREED) == 0
         : live_at_key (a, self->live_at, G_MAXUINT32);
  if (self->has_range)
    peak = self->have_peak && live_at_key (a, self->peak_time, self->peak_seq);
  else
    peak = (a->flags & HL_ALLOC_LIVE_AT_PEAK) != 0;
  /* LONG_LIVED: freed at least T after its allocation, or never freed
   * and the recording's end at least T after it */
  life_end = (a->flags & HL_ALLOC_FREED) != 0 ? a->free_time_ns : MAX (self->end_ns, a->time_ns);
  lived = life_end - MIN (a->time_ns, life_end) >= self->lived_min;
  /* a sampled block stands for W of the program's (hl-sample-weight.h),
   * its size already weighed */
  temporary = (a->flags & HL_ALLOC_TEMPORARY) != 0 ? w : 0;

  c->allocations += w;
  c->bytes += a->size;
  c->temporary += temporary;
  c->leaked_bytes += leaked ? a->size : 0;
  c->leaked_blocks += leaked ? w : 0;
  c->live_bytes += live ? a->size : 0;
  c->peak_bytes += peak ? a->size : 0;
  c->long_lived_bytes += lived ? a->size : 0;

  t = &part->thread_costs[a->thread];
  t->allocations += w;
  t->bytes += a->size;
  t->temporary += temporary;
  t->leaked_bytes += leaked ? a->size : 0;
  t->leaked_blocks += leaked ? w : 0;
  t->live_bytes += live ? a->size : 0;
  t->peak_bytes += peak ? a->size : 0;
  t->long_lived_bytes += lived ? a->size : 0;

  b = size_bucket (w <= 1 ? a->size : a->size / w);
  part->histogram.count[b] += w;
  part->histogram.bytes[b] += a->size;
}

static gpointer
scan_part (gpointer data)
{
  ScanPart *part = data;

  for (guint64 k = 0; k < part->n_blocks; k++)
    {
      guint64 i = part->blocks[k] << HL_ALLOC_BLOCK_SHIFT;
      guint64 end = MIN (i + HL_ALLOC_BLOCK, part->n_allocs);
      for (; i < end; i++)
        scan_one (part->self, part, i);
    }
  return NULL;
}

/* Sums the selected allocations per stack and thread, and their size
 * histogram: on up to one thread per core, over the blocks of allocations
 * whose times meet the filter's range. */
static void
scan_allocations (HlAnalysis       *self,
                  const HlAllocRec *allocs,
                  guint64           n_allocs)
{
  guint64 n_tb, n_blocks = 0;
  const HlAllocTimeBlock *tb = hl_recording_get_alloc_time_blocks (self->recording, &n_tb);
  g_autofree guint64 *blocks = NULL;
  ScanPart parts[8];
  GThread *threads[8] = { NULL };
  guint n_parts;

  guint64 n_need = (n_allocs + HL_ALLOC_BLOCK - 1) >> HL_ALLOC_BLOCK_SHIFT;

  blocks = g_new (guint64, n_need + 1);
  for (guint64 b = 0; b < n_need; b++)
    if (block_in_range (self, tb, n_tb, b))
      blocks[n_blocks++] = b;

  /* Threads pay off from a few hundred thousand allocations on. */
  n_parts = CLAMP (g_get_num_processors (), 1, G_N_ELEMENTS (parts));
  n_parts = (guint) MIN ((guint64) n_parts, n_blocks / 64 + 1);
  for (guint p = 0; p < n_parts; p++)
    {
      ScanPart *part = &parts[p];
      guint64 from = n_blocks * p / n_parts, to = n_blocks * (p + 1) / n_parts;

      memset (part, 0, sizeof *part);
      part->self = self;
      part->allocs = allocs;
      part->weights = hl_recording_get_alloc_weights (self->recording);
      part->n_allocs = n_allocs;
      part->blocks = blocks + from;
      part->n_blocks = to - from;
      part->stack_costs = p == 0 ? self->stack_costs : g_new0 (HlCosts, self->n_stacks + 1);
      part->thread_costs = p == 0 ? self->thread_costs : g_new0 (HlCosts, self->n_threads + 1);
      if (p > 0)
        threads[p] = g_thread_new ("hl-analysis", scan_part, part);
    }
  scan_part (&parts[0]);
  self->histogram = parts[0].histogram;
  for (guint p = 1; p < n_parts; p++)
    {
      ScanPart *part = &parts[p];

      g_thread_join (threads[p]);
      for (guint s = 0; s <= self->n_stacks; s++)
        hl_costs_add (&self->stack_costs[s], &part->stack_costs[s]);
      for (guint t = 0; t <= self->n_threads; t++)
        hl_costs_add (&self->thread_costs[t], &part->thread_costs[t]);
      for (guint b = 0; b < HL_SIZE_HISTOGRAM_BUCKETS; b++)
        {
          self->histogram.count[b] += part->histogram.count[b];
          self->histogram.bytes[b] += part->histogram.bytes[b];
        }
      g_free (part->stack_costs);
      g_free (part->thread_costs);
    }
}

static void
select_threads (HlAnalysis *self)
{
  const HlFilter *f = self->filter;

  if (f->tids == NULL)
    return;
  self->thread_ok = g_new0 (guint8, self->n_threads + 1);
  for (guint t = 0; t < self->n_threads; t++)
    for (guint i = 0; i < f->tids->len; i++)
      if (hl_recording_get_thread_tid (self->recording, t) == g_array_index (f->tids, guint32, i))
        self->thread_ok[t] = 1;
}

static void
costs_sub (HlCosts       *a,
           const HlCosts *b)
{
  a->allocations -= b->allocations;
  a->bytes -= b->bytes;
  a->temporary -= b->temporary;
  a->peak_bytes -= b->peak_bytes;
  a->leaked_bytes -= b->leaked_bytes;
  a->leaked_blocks -= b->leaked_blocks;
  a->live_bytes -= b->live_bytes;
  a->long_lived_bytes -= b->long_lived_bytes;
  a->mmap_bytes -= b->mmap_bytes;
}

/* The costs of the selected (stack, thread) pairs of a costs-only
 * recording: each stack's owner has the stack's costs minus the other
 * threads' pairs. */
static void
filter_aggregate (HlAnalysis        *self,
                  const HlAggregate *agg)
{
  g_autofree HlCosts *owner = self->stack_costs;
  guint n_pairs = hl_aggregate_get_n_pairs (agg);

  self->stack_costs = g_new0 (HlCosts, self->n_stacks + 1);
  memset (self->thread_costs, 0, (self->n_threads + 1) * sizeof (HlCosts));
  for (guint i = 0; i < n_pairs; i++)
    {
      guint32 s, t;
      HlCosts c;

      hl_aggregate_get_pair (agg, i, &s, &t, &c);
      if (s >= self->n_stacks || t >= self->n_threads)
        continue;
      costs_sub (&owner[s], &c);
      if ((self->stack_ok == NULL || self->stack_ok[s]) && (self->thread_ok == NULL || self->thread_ok[t]))
        {
          hl_costs_add (&self->stack_costs[s], &c);
          hl_costs_add (&self->thread_costs[t], &c);
        }
    }
  for (guint s = 0; s < self->n_stacks; s++)
    {
      guint32 o = hl_aggregate_get_stack_owner (agg, s);

      if (o == 0 || o > self->n_threads || (self->stack_ok != NULL && !self->stack_ok[s]) ||
          (self->thread_ok != NULL && !self->thread_ok[o - 1]))
        continue;
      hl_costs_add (&self->stack_costs[s], &owner[s]);
      hl_costs_add (&self->thread_costs[o - 1], &owner[s]);
    }
  /* Sizes are not kept per stack or thread. */
  memset (&self->histogram, 0, sizeof self->histogram);
}

/* A costs-only recording (HL_LOAD_FLAGS_AGGREGATE) has its costs made:
 * the whole recording, or a selection of threads and stacks (modules,
 * functions), can be asked for; nothing by time. */
static void
compute_from_aggregate (HlAnalysis        *self,
                        const HlAggregate *agg)
{
  HlSummary summary;

  g_return_if_fail (!hl_filter_selects_by_time (self->filter));

  hl_recording_get_summary (self->recording, &summary);
  self->n_stacks = hl_recording_get_n_stacks (self->recording);
  self->n_threads = hl_recording_get_n_threads_internal (self->recording);
  self->stack_costs = hl_aggregate_dup_stack_costs (agg, self->n_stacks);
  self->thread_costs = hl_aggregate_dup_thread_costs (agg, self->n_threads);
  hl_aggregate_get_histogram (agg, &self->histogram);
  self->t0 = 0;
  self->t1 = HL_TIME_NONE;
  self->live_at = HL_TIME_NONE;
  self->peak_time_ns = summary.peak_time_ns;
  if (!hl_filter_is_empty (self->filter))
    {
      select_threads (self);
      self->stack_ok = select_stacks (self->recording, self->filter);
      filter_aggregate (self, agg);
    }
  /* LONG_LIVED's T is 0 here (a costs-only recording answers no other):
   * every block */
  for (guint s = 0; s < self->n_stacks; s++)
    self->stack_costs[s].long_lived_bytes = self->stack_costs[s].bytes;
  for (guint t = 0; t < self->n_threads; t++)
    self->thread_costs[t].long_lived_bytes = self->thread_costs[t].bytes;
  hl_analysis_add_mmap_saved (self, agg, self->stack_ok, self->stack_costs, self->n_stacks, self->thread_costs,
                              self->n_threads);
  for (guint s = 0; s < self->n_stacks; s++)
    hl_costs_add (&self->totals, &self->stack_costs[s]);
}

static void
compute (HlAnalysis *self)
{
  const HlFilter *f = self->filter;
  HlRecording *rec = self->recording;
  guint64 n_allocs;
  const HlAllocRec *allocs;
  HlSummary summary;

  if (hl_recording_get_aggregate (rec) != NULL)
    {
      compute_from_aggregate (self, hl_recording_get_aggregate (rec));
      return;
    }
  hl_recording_get_summary (rec, &summary);
  self->n_stacks = hl_recording_get_n_stacks (rec);
  self->n_threads = hl_recording_get_n_threads_internal (rec);
  self->stack_costs = g_new0 (HlCosts, self->n_stacks + 1);
  self->thread_costs = g_new0 (HlCosts, self->n_threads + 1);
  self->has_range = hl_filter_has_time_range (f);
  self->t0 = f->t0_ns;
  self->t1 = f->t1_ns;
  self->live_at = f->live_at_ns != HL_TIME_NONE ? f->live_at_ns :
                  self->has_range && f->t1_ns != HL_TIME_NONE ? f->t1_ns : HL_TIME_NONE;
  self->lived_min = f->lived_at_least_ns;
  self->end_ns = hl_recording_get_end_ns (rec);

  select_threads (self);
  self->stack_ok = select_stacks (rec, f);
  if (f->meta_keys->len > 0)
    {
      guint n_iv;
      const HlMetaInterval *iv = hl_recording_get_metadata_intervals (rec, &n_iv);

      self->meta_ranges = g_array_new (FALSE, FALSE, sizeof (GArray *));
      g_array_set_clear_func (self->meta_ranges, clear_range_array);
      for (guint c = 0; c < f->meta_keys->len; c++)
        {
          GArray *r = g_array_new (FALSE, FALSE, sizeof (guint64));
          for (guint i = 0; i < n_iv; i++)
            if (strcmp (iv[i].key, f->meta_keys->pdata[c]) == 0 &&
                strcmp (iv[i].value, f->meta_values->pdata[c]) == 0)
              {
                guint64 end = iv[i].end_ns == HL_TIME_NONE || iv[i].end_ns >= summary.duration_ns
                              ? G_MAXUINT64 : iv[i].end_ns;
                g_array_append_val (r, iv[i].start_ns);
                g_array_append_val (r, end);
              }
          g_array_append_val (self->meta_ranges, r);
        }
    }

  if (self->has_range)
    find_range_peak (self);
  self->peak_time_ns = self->has_range ? (self->have_peak ? self->peak_time : 0) : summary.peak_time_ns;

  allocs = hl_recording_get_allocs (rec, &n_allocs);
  scan_allocations (self, allocs, n_allocs);
  hl_analysis_add_mmap (self, &(HlMmapSelection) { self->t0, self->t1, self->live_at, self->stack_ok, self->meta_ranges },
                        self->stack_costs, self->n_stacks, self->thread_costs, self->n_threads);
  for (guint s = 0; s < self->n_stacks; s++)
    hl_costs_add (&self->totals, &self->stack_costs[s]);
}

HlAnalysis *
hl_analysis_new (HlRecording    *recording,
                 const HlFilter *filter)
{
  HlAnalysis *self;

  g_return_val_if_fail (HL_IS_RECORDING (recording), NULL);

  self = g_object_new (HL_TYPE_ANALYSIS, NULL);
  self->recording = g_object_ref (recording);
  self->filter = filter != NULL ? hl_filter_ref ((HlFilter *) filter) : hl_filter_new ();
  compute (self);
  /* Build the shared tries here, not concurrently later (a costs-only
   * recording serves reports, which need no tree). */
  if (hl_recording_get_aggregate (recording) == NULL)
    {
      hl_recording_get_trie (recording, FALSE);
      hl_recording_get_trie (recording, TRUE);
    }
  return self;
}

static void
analysis_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  HlAnalysis *self = task_data;

  compute (self);
  hl_recording_get_trie (self->recording, FALSE);
  hl_recording_get_trie (self->recording, TRUE);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_object_ref (self), g_object_unref);
}

void
hl_analysis_new_async (HlRecording        *recording,
                       const HlFilter     *filter,
                       GCancellable       *cancellable,
                       GAsyncReadyCallback callback,
                       gpointer            user_data)
{
  g_autoptr (GTask) task = NULL;
  HlAnalysis *self;

  g_return_if_fail (HL_IS_RECORDING (recording));

  self = g_object_new (HL_TYPE_ANALYSIS, NULL);
  self->recording = g_object_ref (recording);
  self->filter = filter != NULL ? hl_filter_ref ((HlFilter *) filter) : hl_filter_new ();
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_analysis_new_async);
  g_task_set_task_data (task, self, g_object_unref);
  g_task_run_in_thread (task, analysis_thread);
}

HlAnalysis *
hl_analysis_new_finish (GAsyncResult *result,
                        GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

HlRecording *
hl_analysis_get_recording (HlAnalysis *self)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  return self->recording;
}

const HlFilter *
hl_analysis_get_filter (HlAnalysis *self)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  return self->filter;
}

void
hl_analysis_get_totals (HlAnalysis *self,
                        HlCosts    *out)
{
  g_return_if_fail (HL_IS_ANALYSIS (self));
  *out = self->totals;
}

guint64
hl_analysis_get_peak_time_ns (HlAnalysis *self)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), 0);
  return self->peak_time_ns;
}

void
hl_analysis_get_stack_costs (HlAnalysis *self,
                             HlStackId   stack,
                             HlCosts    *out)
{
  g_return_if_fail (HL_IS_ANALYSIS (self));
  if (stack < self->n_stacks)
    *out = self->stack_costs[stack];
  else
    memset (out, 0, sizeof *out);
}

HlCallTree *
hl_analysis_reuse_call_tree (HlAnalysis *self,
                             HlAnalysis *before,
                             HlCallTree *tree)
{
  HlCallTreeKind kind;
  HlCostKind sort_by;
  const HlTrie *trie;
  HlCallTree **slot;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (HL_IS_ANALYSIS (before), NULL);
  g_return_val_if_fail (tree != NULL, NULL);

  kind = hl_call_tree_get_kind (tree);
  sort_by = hl_call_tree_get_sort_kind (tree);
  if (self->recording != before->recording || self->n_stacks != before->n_stacks
      || memcmp (&self->totals, &before->totals, sizeof self->totals) != 0
      || (self->n_stacks > 0
          && memcmp (self->stack_costs, before->stack_costs, (gsize) self->n_stacks * sizeof (HlCosts)) != 0))
    return NULL;
  /* the trie a tree would be built from now */
  trie = hl_recording_get_trie (self->recording, kind == HL_CALL_TREE_BOTTOM_UP);
  if (trie->serial != hl_call_tree_get_trie_serial (tree))
    return NULL;
  g_mutex_lock (&self->lock);
  slot = &self->trees[kind != HL_CALL_TREE_TOP_DOWN][sort_by];
  if (*slot == NULL)
    *slot = hl_call_tree_ref (tree);
  tree = hl_call_tree_ref (*slot);
  g_mutex_unlock (&self->lock);
  return tree;
}

HlCallTree *
hl_analysis_get_call_tree (HlAnalysis     *self,
                           HlCallTreeKind  kind,
                           HlCostKind      sort_by)
{
  HlCallTree *tree;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (sort_by < HL_N_COST_KINDS, NULL);

  g_mutex_lock (&self->lock);
  if (self->trees[kind != HL_CALL_TREE_TOP_DOWN][sort_by] == NULL)
    {
      const HlTrie *trie = hl_recording_get_trie (self->recording, kind == HL_CALL_TREE_BOTTOM_UP);
      self->trees[kind != HL_CALL_TREE_TOP_DOWN][sort_by] =
        hl_call_tree_build (trie, kind, sort_by, self->stack_costs, self->n_stacks, &self->totals);
    }
  tree = hl_call_tree_ref (self->trees[kind != HL_CALL_TREE_TOP_DOWN][sort_by]);
  g_mutex_unlock (&self->lock);
  return tree;
}

int
hl_stack_costs_compare (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  HlCostKind kind = GPOINTER_TO_UINT (user_data);
  const HlStackCosts *sa = a, *sb = b;
  guint64 ca = hl_costs_get (&sa->costs, kind), cb = hl_costs_get (&sb->costs, kind);

  if (ca != cb)
    return ca > cb ? -1 : 1;
  if (sa->stack != sb->stack)
    return sa->stack < sb->stack ? -1 : 1;
  if (sa->frame != NULL && sb->frame != NULL)
    return strcmp (sa->frame->function, sb->frame->function);
  return 0;
}

/* Stacks whose symbolized frames are the same (different return addresses
 * on the same lines) are one call site: their costs are summed under the
 * first stack's id. */
GArray *
hl_analysis_get_top_stacks (HlAnalysis *self,
                            HlCostKind  kind,
                            guint       n)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), g_array_new (FALSE, TRUE, sizeof (HlStackCosts)));

  return hl_analysis_get_top_stacks_by (self, self->stack_costs, self->n_stacks, kind, n);
}

GArray *
hl_analysis_get_top_stacks_by (HlAnalysis    *self,
                               const HlCosts *stack_costs,
                               guint          n_stacks,
                               HlCostKind     kind,
                               guint          n)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlStackCosts));
  g_autoptr (GHashTable) groups = hl_call_site_table_new ();

  g_return_val_if_fail (HL_IS_ANALYSIS (self), out);
  g_return_val_if_fail (stack_costs != NULL || n_stacks == 0, out);

  /* the stacks the analysis knows (a live recording may have grown since) */
  n_stacks = MIN (n_stacks, self->n_stacks);
  for (guint s = 0; s < n_stacks; s++)
    if (hl_costs_get (&stack_costs[s], kind) > 0)
      {
        GPtrArray *key = hl_call_site_key (self->recording, s);
        gpointer index;

        index = s == 0 ? NULL : g_hash_table_lookup (groups, key);
        if (index != NULL)
          {
            hl_costs_add (&g_array_index (out, HlStackCosts, GPOINTER_TO_UINT (index) - 1).costs,
                          &stack_costs[s]);
            g_ptr_array_unref (key);
          }
        else
          {
            HlStackCosts e = { .stack = s, .frame = hl_call_site_frame (self->recording, s),
                               .costs = stack_costs[s] };
            g_array_append_val (out, e);
            if (s != 0)
              g_hash_table_insert (groups, key, GUINT_TO_POINTER (out->len));
            else
              g_ptr_array_unref (key);
          }
      }
  g_array_sort_with_data (out, hl_stack_costs_compare, GUINT_TO_POINTER (kind));
  if (n > 0 && out->len > n)
    g_array_set_size (out, n);
  return out;
}

static int
compare_largest (gconstpointer a,
                 gconstpointer b)
{
  const HlAllocationInfo *x = a, *y = b;

  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

GArray *
hl_analysis_get_largest (HlAnalysis *self,
                         guint       n)
{
  g_return_val_if_fail (HL_IS_ANALYSIS (self), g_array_new (FALSE, TRUE, sizeof (HlAllocationInfo)));
  return hl_analysis_find_largest (self, n, NULL);
}

/* Cancellation is looked at every 64 blocks of allocations (2.6 × 10⁵). */
#define LARGEST_CANCEL_MASK ((G_GUINT64_CONSTANT (64) << HL_ALLOC_BLOCK_SHIFT) - 1)

GArray *
hl_analysis_find_largest (HlAnalysis   *self,
                          guint         n,
                          GCancellable *cancellable)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlAllocationInfo));
  guint64 n_allocs, n_tb;
  const HlAllocRec *allocs;
  const HlAllocTimeBlock *tb;
  const guint64 *weights;
  guint64 threshold = 0;

  g_assert (HL_IS_ANALYSIS (self));
  if (n == 0)
    return out;

  allocs = hl_recording_get_allocs (self->recording, &n_allocs);
  weights = hl_recording_get_alloc_weights (self->recording);
  tb = hl_recording_get_alloc_time_blocks (self->recording, &n_tb);
  for (guint64 i = 0; i < n_allocs; i++)
    {
      const HlAllocRec *a = &allocs[i];
      HlAllocationInfo info;
      guint64 size;

      if ((i & LARGEST_CANCEL_MASK) == 0 && g_cancellable_is_cancelled (cancellable))
        {
          g_array_unref (out);
          return NULL;
        }
      /* whole blocks outside the time range are skipped */
      if ((i & (HL_ALLOC_BLOCK - 1)) == 0 && !block_in_range (self, tb, n_tb, i >> HL_ALLOC_BLOCK_SHIFT))
        {
          i += HL_ALLOC_BLOCK - 1;
          continue;
        }
      /* a sampled block: the size of one of the blocks it stands for */
      size = hl_alloc_unit_size (allocs, weights, i);
      if (out->len >= n && size <= threshold)
        continue;
      if (!selected (self, a, size))
        continue;
      info.time_ns = a->time_ns;
      info.size = size;
      info.address = a->address;
      info.free_time_ns = (a->flags & HL_ALLOC_FREED) ? a->free_time_ns : HL_TIME_NONE;
      info.tid = hl_recording_get_thread_tid (self->recording, a->thread);
      info.stack = a->stack;
      info.weight = hl_alloc_weight (weights, i);
      g_array_append_val (out, info);
      if (out->len >= 2 * n)
        {
          g_array_sort (out, compare_largest);
          g_array_set_size (out, n);
          threshold = g_array_index (out, HlAllocationInfo, n - 1).size;
        }
    }
  g_array_sort (out, compare_largest);
  if (out->len > n)
    g_array_set_size (out, n);
  return out;
}

void
hl_analysis_get_size_histogram (HlAnalysis      *self,
                                HlSizeHistogram *out)
{
  g_return_if_fail (HL_IS_ANALYSIS (self));
  *out = self->histogram;
}

static int
compare_threads (gconstpointer a,
                 gconstpointer b)
{
  const HlThreadCosts *x = a, *y = b;

  if (x->costs.bytes != y->costs.bytes)
    return x->costs.bytes > y->costs.bytes ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

GArray *
hl_analysis_get_thread_costs (HlAnalysis *self)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlThreadCosts));
  guint n_threads;
  const HlThreadInfo *threads;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), out);

  threads = hl_recording_get_threads (self->recording, &n_threads);
  for (guint t = 0; t < self->n_threads && t < n_threads; t++)
    if (self->thread_costs[t].allocations > 0)
      {
        HlThreadCosts e = { .tid = threads[t].tid, .name = threads[t].name, .costs = self->thread_costs[t],
                            .start_ns = threads[t].start_ns, .end_ns = threads[t].end_ns };
        g_array_append_val (out, e);
      }
  g_array_sort (out, compare_threads);
  return out;
}

int
hl_thread_costs_compare_starts (gconstpointer a,
                                gconstpointer b)
{
  const HlThreadCosts *x = a, *y = b;

  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

GArray *
hl_analysis_get_all_thread_costs (HlAnalysis *self)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (HlThreadCosts));
  guint n_threads;
  const HlThreadInfo *threads;

  g_return_val_if_fail (HL_IS_ANALYSIS (self), out);

  threads = hl_recording_get_threads (self->recording, &n_threads);
  for (guint t = 0; t < n_threads; t++)
    {
      HlThreadCosts e = { .tid = threads[t].tid, .name = threads[t].name,
                          .start_ns = threads[t].start_ns, .end_ns = threads[t].end_ns };
      if (t < self->n_threads)
        e.costs = self->thread_costs[t];
      g_array_append_val (out, e);
    }
  g_array_sort (out, hl_thread_costs_compare_starts);
  return out;
}

gboolean
hl_analysis_selects (HlAnalysis       *self,
                     const HlAllocRec *a,
                     guint64           unit_size)
{
  return selected (self, a, unit_size);
}

const HlCosts *
hl_analysis_peek_stack_costs (HlAnalysis *self,
                              guint      *n_stacks)
{
  *n_stacks = self->n_stacks;
  return self->stack_costs;
}

void
hl_analysis_get_range (HlAnalysis *self,
                       guint64    *t0,
                       guint64    *t1)
{
  *t0 = self->t0;
  *t1 = self->t1;
}
