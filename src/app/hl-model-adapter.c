/* hl-model-adapter.c — the model's answers turned into what widgets draw. */
#include "hl-config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "hl-alloc-item.h"
#include "hl-cost.h"
#include "hl-model-adapter.h"
#include "hl-units.h"

#define SUMMARY_TOP 5

void
hl_adapter_costs_to_array (const HlCosts *costs,
                           guint64        out[HL_N_COST_KINDS])
{
  out[HL_COST_KIND_ALLOCATIONS] = costs->allocations;
  out[HL_COST_KIND_BYTES] = costs->bytes;
  out[HL_COST_KIND_TEMPORARY] = costs->temporary;
  out[HL_COST_KIND_PEAK] = costs->peak_bytes;
  out[HL_COST_KIND_LEAKED] = costs->leaked_bytes;
  out[HL_COST_KIND_LIVE] = costs->live_bytes;
}

/* ---- Flame graph ------------------------------------------------------ */

/* Frame → the first node made from it (+ 1; 0: none yet), open
 * addressing: one lookup per rect, a few hundred distinct frames. */
typedef struct
{
  const HlFrame **keys;
  guint          *values;
  gsize           mask;
  gsize           used;
} FrameMap;

static inline gsize
frame_slot (const FrameMap *m,
            const HlFrame  *f)
{
  gsize i = (gsize) (((guint64) (guintptr) f * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) & m->mask;

  while (m->keys[i] != NULL && m->keys[i] != f)
    i = (i + 1) & m->mask;
  return i;
}

static void
frame_map_insert (FrameMap      *m,
                  const HlFrame *f,
                  guint          value)
{
  gsize i;

  if ((m->used + 1) * 2 > m->mask + 1)
    {
      FrameMap bigger = { g_new0 (const HlFrame *, (m->mask + 1) * 2), g_new (guint, (m->mask + 1) * 2),
                          (m->mask + 1) * 2 - 1, m->used };

      for (gsize j = 0; j <= m->mask; j++)
        if (m->keys[j] != NULL)
          {
            gsize k = frame_slot (&bigger, m->keys[j]);

            bigger.keys[k] = m->keys[j];
            bigger.values[k] = m->values[j];
          }
      g_free (m->keys);
      g_free (m->values);
      *m = bigger;
    }
  i = frame_slot (m, f);
  m->keys[i] = f;
  m->values[i] = value;
  m->used++;
}

HlFlameData *
hl_adapter_flame_data (HlFlameLayout *layout)
{
  HlCostKind kind = hl_flame_layout_get_kind (layout);
  HlFlameData *data = hl_flame_data_new (_("all"), hl_cost_is_bytes (kind));
  const HlFlameRect *rects;
  guint n;
  FrameMap seen = { g_new0 (const HlFrame *, 1024), g_new (guint, 1024), 1023, 0 };

  rects = hl_flame_layout_get_rects (layout, &n);
  hl_flame_data_reserve (data, n);
  hl_flame_data_set_total (data, hl_flame_layout_get_total (layout));
  /* Both arrays are in the same pre-order, so rect i becomes node i. A
   * frame met before takes its strings from the node it made (a pointer
   * looked up, not three names hashed: 10⁵ stacks make 5 × 10⁵ nodes). */
  for (guint i = 1; i < n; i++)
    {
      const HlFrame *f = rects[i].frame;
      gsize slot = f != NULL ? frame_slot (&seen, f) : 0;
      guint like = f != NULL && seen.keys[slot] != NULL ? seen.values[slot] : 0;
      guint index;

      if (like != 0)
        index = hl_flame_data_add_like (data, rects[i].parent, like - 1, rects[i].width,
                                        GUINT_TO_POINTER (rects[i].node + 1));
      else
        index = hl_flame_data_add (data, rects[i].parent,
                                   f ? f->function : "??",
                                   f ? f->module_name : "",
                                   f ? f->file : NULL,
                                   f ? f->line : 0,
                                   rects[i].width,
                                   f ? f->is_inline : FALSE,
                                   GUINT_TO_POINTER (rects[i].node + 1));
      g_assert (index == i);
      if (f != NULL && like == 0)
        frame_map_insert (&seen, f, index + 1);
    }
  g_free (seen.keys);
  g_free (seen.values);
  hl_flame_data_finish (data);
  return data;
}

HlCallNode
hl_adapter_flame_node_call_node (const HlFlameData *data,
                                 guint              node)
{
  guint value = GPOINTER_TO_UINT (hl_flame_data_get_node (data, node)->user_data);

  return value == 0 ? HL_CALL_NODE_NONE : value - 1;
}

/* ---- Timeline --------------------------------------------------------- */

HlTimelineData *
hl_adapter_timeline_data (HlRecording *recording,
                          guint64      t0_ns,
                          guint64      t1_ns,
                          guint        n_buckets)
{
  HlSummary summary;
  HlTimelineData *data;
  g_autoptr(GArray) series = NULL;
  const HlMetaInterval *intervals;
  const HlMark *marks;
  guint n;

  hl_recording_get_summary (recording, &summary);
  data = hl_timeline_data_new (MAX (summary.duration_ns, 1));
  series = hl_recording_get_series (recording, t0_ns, t1_ns, MAX (n_buckets, 1));
  /* no RSS sample in a bucket: the previous value still holds */
  hl_series_hold_rss (series);
  for (guint i = 0; series != NULL && i < series->len; i++)
    {
      const HlSeriesBucket *s = &g_array_index (series, HlSeriesBucket, i);
      HlTimelineBucket b = {
        .time_ns = s->start_ns,
        .heap_min = s->heap_min,
        .heap_max = s->heap_max,
        .n_allocs = s->allocations,
        .rss = s->rss_max,
      };

      hl_timeline_data_add_bucket (data, &b);
    }

  intervals = hl_recording_get_metadata_intervals (recording, &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = g_strdup_printf ("%s=%s", intervals[i].key, intervals[i].value);
      hl_timeline_data_add_band (data, intervals[i].key, label, intervals[i].start_ns, intervals[i].end_ns);
    }
  marks = hl_recording_get_marks (recording, &n);
  for (guint i = 0; i < n; i++)
    hl_timeline_data_add_mark (data, marks[i].time_ns, marks[i].text);
  return data;
}

static const HlFrame *caller_frame_of (HlRecording *recording, HlStackId stack, const HlFrame *frame);

void
hl_adapter_timeline_set_sites (HlTimelineData     *data,
                               HlRecording        *recording,
                               const HlSiteSeries *sites)
{
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  guint n;

  if (sites == NULL)
    return;
  n = sites->sites->len;
  for (guint k = 0; k < n; k++)
    {
      const HlSiteInfo *site = &g_array_index (sites->sites, HlSiteInfo, k);
      const char *function = site->stack != 0 && site->frame != NULL ? site->frame->function : NULL;
      gboolean shared = FALSE;
      const HlFrame *caller;

      if (function == NULL)
        {
          g_ptr_array_add (labels, g_strdup (_("(stack not recorded)")));
          continue;
        }
      /* a function among the sites twice (a wrapper such as xmalloc) is
       * told apart by its callers */
      for (guint j = 0; j < n && !shared; j++)
        {
          const HlSiteInfo *other = &g_array_index (sites->sites, HlSiteInfo, j);
          shared = j != k && other->stack != 0 && other->frame != NULL
                   && g_strcmp0 (other->frame->function, function) == 0;
        }
      caller = shared ? caller_frame_of (recording, site->stack, site->frame) : NULL;
      if (caller != NULL && caller->line > 0)
        /* Translators: a call site in the timeline's legend: its function, and the function and line that called it */
        g_ptr_array_add (labels, g_strdup_printf (_("%s ← %s:%u"), function, caller->function, caller->line));
      else if (caller != NULL)
        /* Translators: a call site in the timeline's legend: its function and the function that called it */
        g_ptr_array_add (labels, g_strdup_printf (_("%s ← %s"), function, caller->function));
      else
        g_ptr_array_add (labels, g_strdup (function));
    }
  hl_timeline_data_set_sites (data, sites->t0_ns, sites->t1_ns, sites->n_buckets, n,
                              (const char * const *) labels->pdata, (const guint64 *) (void *) sites->bytes->data);
}

/* ---- Call trees ------------------------------------------------------- */

static void
fill_info_from_frame (HlTreeRowInfo *info,
                      const HlFrame *f)
{
  info->name = f ? f->function : "??";
  info->module = f ? f->module_name : "";
  info->file = f ? f->file : NULL;
  info->line = f ? f->line : 0;
  info->is_inline = f ? f->is_inline : FALSE;
}

static GListModel *
call_tree_children (HlTreeRow *row,
                    gpointer   user_data)
{
  HlCallTree *tree = user_data;
  HlCallNode node = GPOINTER_TO_UINT (hl_tree_row_get_node (row));
  guint n = hl_call_tree_get_n_children (tree, node);
  GListStore *store = g_list_store_new (HL_TYPE_TREE_ROW);

  for (guint i = 0; i < n; i++)
    {
      HlCallNode child = hl_call_tree_get_child (tree, node, i);
      HlTreeRowInfo info = { 0 };
      g_autoptr(HlTreeRow) r = NULL;

      fill_info_from_frame (&info, hl_call_tree_get_frame (tree, child));
      info.has_children = hl_call_tree_get_n_children (tree, child) > 0;
      info.node = GUINT_TO_POINTER (child);
      hl_adapter_costs_to_array (hl_call_tree_get_costs (tree, child), info.costs);
      r = hl_tree_row_new_child (row, &info);
      g_list_store_append (store, r);
    }
  return G_LIST_MODEL (store);
}

HlTreeRow *
hl_adapter_call_tree (HlCallTree *tree)
{
  HlCallNode root = hl_call_tree_get_root (tree);
  HlTreeRowInfo info = { .name = _("all"), .has_children = TRUE, .node = GUINT_TO_POINTER (root) };

  hl_adapter_costs_to_array (hl_call_tree_get_costs (tree, root), info.costs);
  return hl_tree_row_new_root (&info, info.costs, call_tree_children,
                               hl_call_tree_ref (tree), (GDestroyNotify) hl_call_tree_unref);
}

/* Caller/callee rows: node is the HlFrame; the two section rows carry a
 * marker in their node so that the children function knows the direction. */
typedef struct
{
  HlAnalysis    *analysis;
  const HlFrame *function;
} CallerCallee;

static void
caller_callee_free (CallerCallee *cc)
{
  g_object_unref (cc->analysis);
  g_free (cc);
}

static GListModel *
caller_callee_children (HlTreeRow *row,
                        gpointer   user_data)
{
  CallerCallee *cc = user_data;
  GListStore *store = g_list_store_new (HL_TYPE_TREE_ROW);
  HlTreeRow *r;
  gboolean callers = TRUE;
  const HlFrame *function;
  g_autoptr(GArray) list = NULL;

  if (hl_tree_row_get_parent (row) == NULL)
    {
      /* The root: the two sections. */
      for (int k = 0; k < 2; k++)
        {
          HlTreeRowInfo info = { 0 };
          HlCosts costs;
          g_autoptr(HlTreeRow) section = NULL;

          info.name = k == 0 ? _("Callers") : _("Callees");
          info.module = "";
          info.has_children = TRUE;
          info.node = (gpointer) cc->function;
          hl_analysis_get_function_costs (cc->analysis, cc->function, &costs);
          hl_adapter_costs_to_array (&costs, info.costs);
          section = hl_tree_row_new_child (row, &info);
          g_object_set_data (G_OBJECT (section), "hl-callers", GINT_TO_POINTER (k == 0));
          g_list_store_append (store, section);
        }
      return G_LIST_MODEL (store);
    }

  /* The direction is the section's, inherited down the rows. */
  for (r = row; hl_tree_row_get_parent (r) != NULL && hl_tree_row_get_parent (hl_tree_row_get_parent (r)) != NULL;
       r = hl_tree_row_get_parent (r))
    ;
  callers = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (r), "hl-callers"));
  function = hl_tree_row_get_node (row);
  list = callers ? hl_analysis_get_callers (cc->analysis, function, HL_COST_KIND_BYTES)
                 : hl_analysis_get_callees (cc->analysis, function, HL_COST_KIND_BYTES);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const HlStackCosts *sc = &g_array_index (list, HlStackCosts, i);
      HlTreeRowInfo info = { 0 };
      g_autoptr(HlTreeRow) child = NULL;

      fill_info_from_frame (&info, sc->frame);
      info.has_children = hl_tree_row_get_depth (row) < 64;
      info.node = (gpointer) sc->frame;
      hl_adapter_costs_to_array (&sc->costs, info.costs);
      child = hl_tree_row_new_child (row, &info);
      g_list_store_append (store, child);
    }
  return G_LIST_MODEL (store);
}

HlTreeRow *
hl_adapter_caller_callee (HlAnalysis    *analysis,
                          const HlFrame *function)
{
  CallerCallee *cc = g_new0 (CallerCallee, 1);
  HlTreeRowInfo info = { .name = function->function, .has_children = TRUE };
  HlCosts totals;
  guint64 total_array[HL_N_COST_KINDS];

  cc->analysis = g_object_ref (analysis);
  cc->function = function;
  hl_analysis_get_totals (analysis, &totals);
  hl_adapter_costs_to_array (&totals, total_array);
  memcpy (info.costs, total_array, sizeof info.costs);
  return hl_tree_row_new_root (&info, total_array, caller_callee_children, cc,
                               (GDestroyNotify) caller_callee_free);
}

const HlFrame *
hl_adapter_find_function (HlAnalysis *analysis,
                          const char *name)
{
  g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (analysis, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_BYTES);
  guint n = hl_call_tree_get_n_nodes (tree);

  /* Node indices cover the tree; any node with that name will do, since
   * callers/callees merge a function's frames by name and module. */
  for (HlCallNode node = 0; node < n; node++)
    {
      const HlFrame *f = hl_call_tree_get_frame (tree, node);
      if (f != NULL && g_strcmp0 (f->function, name) == 0)
        return f;
    }
  return NULL;
}

/* ---- Allocations ------------------------------------------------------ */

GStrv
hl_adapter_stack_lines (HlRecording *recording,
                        HlStackId    stack)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  const HlFrame * const *frames;
  guint n = 0;

  frames = hl_recording_get_stack_frames (recording, stack, &n);
  for (guint i = 0; frames != NULL && i < n; i++)
    {
      const HlFrame *f = frames[i];
      GString *line = g_string_new (f->function);

      if (f->is_inline)
        g_string_append (line, _(" [inline]"));
      if (f->file != NULL)
        g_string_append_printf (line, " — %s:%u", f->file, f->line);
      if (f->module_name != NULL && f->module_name[0] != '\0')
        g_string_append_printf (line, " (%s)", f->module_name);
      g_strv_builder_add (builder, line->str);
      g_string_free (line, TRUE);
    }
  return g_strv_builder_end (builder);
}

/* Whether A and B name the same function in the source: the compiler's
 * clones ("f.part.0", "f.cold", "f.isra.0") and an inlined frame's own
 * outer copy are one function to a person. */
static gboolean
same_source_function (const char *a,
                      const char *b)
{
  gsize la = strcspn (a, "."), lb = strcspn (b, ".");

  return la == lb && strncmp (a, b, la) == 0;
}

/* The first function that called FRAME's function in STACK (its clones
 * and inlined copies skipped), or NULL. */
static const HlFrame *
caller_frame_of (HlRecording   *recording,
                 HlStackId      stack,
                 const HlFrame *frame)
{
  const HlFrame * const *frames;
  guint n = 0, i;

  if (frame == NULL || frame->function == NULL)
    return NULL;
  frames = hl_recording_get_stack_frames (recording, stack, &n);
  for (i = 0; i < n && frames[i] != frame; i++)
    ;
  for (i++; i < n; i++)
    if (frames[i]->function != NULL && !same_source_function (frames[i]->function, frame->function))
      return frames[i];
  return NULL;
}

static const char *
caller_of (HlRecording   *recording,
           HlStackId      stack,
           const HlFrame *frame)
{
  const HlFrame *caller = caller_frame_of (recording, stack, frame);

  return caller != NULL ? caller->function : NULL;
}

GListModel *
hl_adapter_leaks (HlAnalysis *analysis,
                  guint       max)
{
  HlRecording *recording = hl_analysis_get_recording (analysis);
  g_autoptr(GArray) top = hl_analysis_get_top_stacks (analysis, HL_COST_KIND_LEAKED, max);
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
      hl_alloc_item_set_caller (item, caller_of (recording, sc->stack, sc->frame));
      g_list_store_append (store, item);
    }
  return G_LIST_MODEL (store);
}

static const HlFrame *
first_resolved_frame (HlRecording *recording,
                      HlStackId    stack)
{
  const HlFrame * const *frames;
  guint n = 0;

  frames = hl_recording_get_stack_frames (recording, stack, &n);
  for (guint i = 0; frames != NULL && i < n; i++)
    if (frames[i]->resolved)
      return frames[i];
  return n > 0 ? frames[0] : NULL;
}

GListModel *
hl_adapter_largest (HlAnalysis *analysis,
                    guint       max)
{
  HlRecording *recording = hl_analysis_get_recording (analysis);
  g_autoptr(GArray) largest = hl_analysis_get_largest (analysis, max);
  GListStore *store = g_list_store_new (HL_TYPE_ALLOC_ITEM);

  for (guint i = 0; largest != NULL && i < largest->len; i++)
    {
      const HlAllocationInfo *a = &g_array_index (largest, HlAllocationInfo, i);
      const HlFrame *f = first_resolved_frame (recording, a->stack);
      g_auto(GStrv) lines = hl_adapter_stack_lines (recording, a->stack);
      g_autoptr(HlAllocItem) item = NULL;

      item = hl_alloc_item_new (f ? f->function : _("(no stack)"), f ? f->module_name : "",
                                1, a->size, a->time_ns, a->tid, (const char * const *) lines);
      hl_alloc_item_set_caller (item, caller_of (recording, a->stack, f));
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

/* ---- Summary ---------------------------------------------------------- */

typedef struct
{
  const char *function;  /* borrowed from the recording */
  char       *subtitle;
  guint64     value;
} TopRow;

static void
top_row_clear (TopRow *row)
{
  g_free (row->subtitle);
}

static int
compare_top_rows (gconstpointer a,
                  gconstpointer b)
{
  guint64 va = ((const TopRow *) a)->value, vb = ((const TopRow *) b)->value;

  return va > vb ? -1 : va < vb ? 1 : 0;
}

/* "module · from caller" for a top call site. */
static char *
describe_caller (HlRecording        *recording,
                 const HlStackCosts *sc)
{
  const char *caller;

  if (sc->frame == NULL)
    return g_strdup ("");
  caller = caller_of (recording, sc->stack, sc->frame);
  if (caller != NULL)
    /* Translators: a call site's module and its caller, e.g. "libfoo.so · from parse_file" */
    return g_strdup_printf (_("%s · from %s"), sc->frame->module_name, caller);
  return g_strdup (sc->frame->module_name);
}

/* The costs the call-site table of a live session counts exactly. */
static gboolean
exact_live_kind (HlCostKind kind)
{
  return kind == HL_COST_KIND_BYTES || kind == HL_COST_KIND_ALLOCATIONS || kind == HL_COST_KIND_LEAKED;
}

void
hl_adapter_fill_summary (HlSummaryView       *view,
                         HlRecording         *recording,
                         HlAnalysis          *analysis,
                         const HlAdapterLive *live)
{
  static const HlCostKind top_kinds[] = {
    HL_COST_KIND_BYTES, HL_COST_KIND_PEAK, HL_COST_KIND_ALLOCATIONS,
    HL_COST_KIND_TEMPORARY, HL_COST_KIND_LEAKED,
  };
  HlSummary s;
  HlCosts t;
  gboolean filtered = !hl_filter_is_empty (hl_analysis_get_filter (analysis));
  gboolean running = live != NULL
                     && (live->state == HL_LIVE_STATE_RUNNING || live->state == HL_LIVE_STATE_STARTING);
  gboolean exact_live;
  const char *duration_detail;
  const char *not_freed_title = _("Leaked"), *most_not_freed_title = NULL;
  guint64 n_calls, n_bytes, peak_bytes, peak_ns, open_bytes, open_blocks, peak_rss, n_dropped;
  g_autofree char *duration = NULL, *calls = NULL, *frees = NULL, *peak = NULL, *peak_at = NULL;
  g_autofree char *peak_time = NULL, *rss = NULL, *leaked = NULL, *blocks = NULL, *temporary = NULL;
  g_autofree char *temp_pct = NULL, *temp_detail = NULL, *dropped = NULL, *bytes = NULL;
  g_autofree char *leaked_detail = NULL, *range_title = NULL, *range_most_title = NULL;

  hl_recording_get_summary (recording, &s);
  hl_analysis_get_totals (analysis, &t);

  /* A live program's totals are the preload's own counters, exact. The
   * recording a live session grows holds the allocations that lived
   * through one of its polls (hl-live-session.c): its sums and its peak
   * are a sample, right for the shares of a selection, not for totals. */
  exact_live = live != NULL && !filtered;
  n_calls = exact_live ? live->totals.n_allocs : t.allocations;
  n_bytes = exact_live ? live->totals.bytes_allocated : t.bytes;
  peak_bytes = exact_live ? live->totals.peak_heap_bytes : t.peak_bytes;
  peak_ns = exact_live ? live->totals.peak_heap_time_ns : hl_analysis_get_peak_time_ns (analysis);
  open_bytes = exact_live ? live->totals.heap_bytes : t.leaked_bytes;
  open_blocks = exact_live ? (live->totals.n_allocs > live->totals.n_frees
                              ? live->totals.n_allocs - live->totals.n_frees : 0)
                           : t.leaked_blocks;
  peak_rss = live != NULL ? MAX (live->totals.peak_rss_bytes, s.peak_rss_bytes) : s.peak_rss_bytes;

  duration = hl_format_duration (s.duration_ns);
  /* A program still running has not exited yet, normally or not; what
   * it has not freed yet is not a leak yet. A live session whose trace
   * could not be opened keeps what was read until its program ended. */
  if (running)
    duration_detail = _("still running");
  else if (live != NULL && live->state == HL_LIVE_STATE_ENDED)
    duration_detail = NULL;
  else if (live != NULL)
    duration_detail = _("the program vanished (killed?)");
  else
    duration_detail = s.has_exit_status ? NULL : _("did not exit normally");
  hl_summary_view_set_stat (view, "duration", _("Duration"), duration, duration_detail);
  /* a leak is what a program that exited did not free */
  if (running)
    {
      not_freed_title = _("Not Freed Yet");
      most_not_freed_title = _("Most Not Freed Yet");
    }
  else if (live != NULL && live->state != HL_LIVE_STATE_ENDED)
    {
      not_freed_title = _("Not Freed");
      most_not_freed_title = _("Most Not Freed");
    }
  else if (hl_filter_has_time_range (hl_analysis_get_filter (analysis)))
    {
      /* a range that ends before the recording: what its allocations had
       * not freed by its end, not what leaked */
      guint64 t0, t1;
      hl_filter_get_time_range (hl_analysis_get_filter (analysis), &t0, &t1);
      if (t1 < s.duration_ns)
        {
          g_autofree char *end = hl_format_time (t1);
          /* Translators: a summary card's title, e.g. "Not Freed by 4.6 s" */
          range_title = g_strdup_printf (_("Not Freed by %s"), end);
          /* Translators: the title of a list of call sites, e.g. "Most Not Freed by 4.6 s" */
          range_most_title = g_strdup_printf (_("Most Not Freed by %s"), end);
          not_freed_title = range_title;
          most_not_freed_title = range_most_title;
        }
    }

  calls = hl_format_count (n_calls);
  bytes = hl_format_size (n_bytes);
  frees = g_strdup_printf (filtered ? _("%s allocated in the selection") : _("%s allocated"), bytes);
  hl_summary_view_set_stat (view, "calls", _("Allocations"), calls, frees);

  peak = hl_format_size (peak_bytes);
  peak_time = hl_format_time (peak_ns);
  /* Translators: when the heap peak happened, e.g. "at 1.5 s"; with a
   * selection, the peak of the selected allocations */
  peak_at = g_strdup_printf (filtered ? _("at %s, of the selected allocations") : _("at %s"), peak_time);
  hl_summary_view_set_stat (view, "peak", _("Peak Heap"), peak, peak_at);

  rss = peak_rss > 0 ? hl_format_size (peak_rss) : g_strdup (_("not sampled"));
  hl_summary_view_set_stat (view, "rss", _("Peak RSS"), rss, NULL);

  leaked = hl_format_size (open_bytes);
  blocks = hl_format_count (open_blocks);
  /* Translators: number of leaked blocks, e.g. "in 57 blocks" */
  leaked_detail = g_strdup_printf (_("in %s blocks"), blocks);
  hl_summary_view_set_stat (view, "leaked", not_freed_title, leaked, leaked_detail);

  /* Live, an allocation freed between two polls is never seen: temporary
   * allocations are counted from the trace once the program ends. */
  if (live != NULL)
    hl_summary_view_set_stat (view, "temporary", _("Temporary"), "—",
                              running ? _("counted when the program ends") : _("counted from the trace only"));
  else
    {
      temporary = hl_format_count (t.temporary);
      temp_pct = hl_format_percentage (t.temporary, t.allocations);
      /* Translators: share of allocations that were temporary, e.g. "12.5 % of allocations" */
      temp_detail = g_strdup_printf (_("%s of allocations"), temp_pct);
      hl_summary_view_set_stat (view, "temporary", _("Temporary"), temporary, temp_detail);
    }

  n_dropped = live != NULL ? MAX (live->totals.dropped, s.dropped_events) : s.dropped_events;
  dropped = hl_format_count (n_dropped);
  hl_summary_view_set_stat (view, "dropped", _("Dropped Events"), dropped,
                            n_dropped > 0 ? _("the counts are lower bounds") : NULL);

  for (guint k = 0; k < G_N_ELEMENTS (top_kinds); k++)
    {
      /* Stacks that look the same to a person (same function, same caller,
       * different addresses deeper down) are one row: take more stacks
       * than shown and merge them. */
      g_autoptr(GArray) top = NULL;
      g_autoptr(GArray) rows = g_array_new (FALSE, TRUE, sizeof (TopRow));
      g_autoptr(GPtrArray) functions = g_ptr_array_new ();
      g_autoptr(GPtrArray) subtitles = g_ptr_array_new ();
      g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);

      /* Live, the call-site table counts every call, bytes and what is
       * not freed yet per stack; the recording has a sample of them. The
       * peak's share and temporaries are not in the table. */
      if (exact_live && live->stack_costs != NULL && exact_live_kind (top_kinds[k]))
        top = hl_analysis_get_top_stacks_by (analysis, live->stack_costs, live->n_stacks, top_kinds[k],
                                             SUMMARY_TOP * 5);
      else
        top = hl_analysis_get_top_stacks (analysis, top_kinds[k], SUMMARY_TOP * 5);
      g_array_set_clear_func (rows, (GDestroyNotify) top_row_clear);
      for (guint i = 0; top != NULL && i < top->len; i++)
        {
          const HlStackCosts *sc = &g_array_index (top, HlStackCosts, i);
          const char *function = sc->frame ? sc->frame->function : _("(no stack)");
          g_autofree char *subtitle = describe_caller (recording, sc);
          guint64 value = hl_costs_get (&sc->costs, top_kinds[k]);
          guint r;

          for (r = 0; r < rows->len; r++)
            {
              TopRow *row = &g_array_index (rows, TopRow, r);
              if (g_str_equal (row->function, function) && g_str_equal (row->subtitle, subtitle))
                {
                  row->value += value;
                  break;
                }
            }
          if (r == rows->len)
            {
              TopRow row = { function, g_steal_pointer (&subtitle), value };
              g_array_append_val (rows, row);
            }
        }
      g_array_sort (rows, compare_top_rows);
      for (guint i = 0; i < rows->len && i < SUMMARY_TOP; i++)
        {
          TopRow *row = &g_array_index (rows, TopRow, i);
          g_ptr_array_add (functions, (gpointer) row->function);
          g_ptr_array_add (subtitles, row->subtitle);
          g_ptr_array_add (values, hl_cost_format (top_kinds[k], row->value));
        }
      hl_summary_view_set_top (view, top_kinds[k],
                               top_kinds[k] == HL_COST_KIND_LEAKED && most_not_freed_title != NULL
                               ? most_not_freed_title : hl_cost_get_top_title (top_kinds[k]),
                               functions->len,
                               (const char * const *) functions->pdata,
                               (const char * const *) subtitles->pdata,
                               (const char * const *) values->pdata);
    }
}

/* ---- Filters ---------------------------------------------------------- */

HlFilter *
hl_adapter_filter (HlSession *session,
                   guint64    live_at_ns)
{
  g_autoptr(HlFilter) filter = hl_filter_new ();
  const guint *threads;
  guint n;
  guint64 t0, t1;

#define APPLY(expr) G_STMT_START { HlFilter *next_ = (expr); hl_filter_unref (filter); filter = next_; } G_STMT_END
  if (hl_session_get_range (session, &t0, &t1))
    APPLY (hl_filter_with_time_range (filter, t0, t1));
  if (live_at_ns != HL_TIME_NONE)
    APPLY (hl_filter_with_live_at (filter, live_at_ns));
  threads = hl_session_get_threads (session, &n);
  for (guint i = 0; i < n; i++)
    APPLY (hl_filter_with_thread (filter, threads[i]));
  APPLY (hl_adapter_filter_labels (session, filter));
#undef APPLY
  return g_steal_pointer (&filter);
}

HlFilter *
hl_adapter_filter_labels (HlSession *session,
                          HlFilter  *base)
{
  HlFilter *filter = hl_filter_ref (base);
  const char * const *modules;

#define APPLY(expr) G_STMT_START { HlFilter *next_ = (expr); hl_filter_unref (filter); filter = next_; } G_STMT_END
  for (guint i = 0; i < hl_session_get_n_metadata (session); i++)
    {
      const char *key, *value;
      hl_session_get_metadata (session, i, &key, &value);
      APPLY (hl_filter_with_metadata (filter, key, value));
    }
  modules = hl_session_get_modules (session);
  for (guint i = 0; modules[i] != NULL; i++)
    APPLY (hl_filter_with_module (filter, modules[i]));
#undef APPLY
  return filter;
}

/* Values of one metadata key offered in the filter menu: all of them
 * inline up to MENU_INLINE_VALUES, else the first MENU_MAX_VALUES in a submenu. */
#define MENU_INLINE_VALUES 6
#define MENU_MAX_VALUES    40

GMenuModel *
hl_adapter_filter_menu (HlRecording *recording)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenu) threads = g_menu_new ();
  g_autoptr(GMenu) metadata = g_menu_new ();
  g_autoptr(GMenu) modules = g_menu_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const HlThreadInfo *t;
  const HlMetaInterval *m;
  const HlModuleInfo *mods;
  guint n;

  t = hl_recording_get_threads (recording, &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *label = t[i].name && t[i].name[0]
                                 ? g_strdup_printf ("%s (%u)", t[i].name, t[i].tid)
                                 : g_strdup_printf (_("Thread %u"), t[i].tid);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.filter-thread", g_variant_new_uint32 (t[i].tid));
      g_menu_append_item (threads, item);
    }

  /* Metadata: a key with a few values lists them; a key with many (a
   * request number, a document index) gets a submenu of its first ones,
   * so that the phases and the modules stay in sight. */
  m = hl_recording_get_metadata_intervals (recording, &n);
  {
    g_autoptr(GPtrArray) keys = g_ptr_array_new ();                     /* borrowed, in order */
    g_autoptr(GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                          (GDestroyNotify) g_ptr_array_unref);

    for (guint i = 0; i < n; i++)
      {
        GPtrArray *list = g_hash_table_lookup (values, m[i].key);
        g_autofree char *pair = g_strdup_printf ("%s=%s", m[i].key, m[i].value);

        if (list == NULL)
          {
            list = g_ptr_array_new ();
            g_hash_table_insert (values, (gpointer) m[i].key, list);
            g_ptr_array_add (keys, (gpointer) m[i].key);
          }
        if (list->len < MENU_MAX_VALUES && !g_hash_table_contains (seen, pair))
          {
            g_ptr_array_add (list, (gpointer) m[i].value);
            g_hash_table_add (seen, g_steal_pointer (&pair));
          }
      }
    for (guint k = 0; k < keys->len; k++)
      {
        const char *key = g_ptr_array_index (keys, k);
        GPtrArray *list = g_hash_table_lookup (values, key);
        g_autoptr(GMenu) target = list->len > MENU_INLINE_VALUES ? g_menu_new () : g_object_ref (metadata);

        for (guint v = 0; v < list->len; v++)
          {
            g_autofree char *pair = g_strdup_printf ("%s=%s", key, (const char *) g_ptr_array_index (list, v));
            g_autoptr(GMenuItem) item = g_menu_item_new (pair, NULL);

            g_menu_item_set_action_and_target_value (item, "win.filter-metadata", g_variant_new_string (pair));
            g_menu_append_item (target, item);
          }
        if (target != metadata)
          g_menu_append_submenu (metadata, key, G_MENU_MODEL (target));
      }
  }

  mods = hl_recording_get_modules (recording, &n);
  g_hash_table_remove_all (seen);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GMenuItem) item = NULL;

      if (mods[i].name == NULL || mods[i].name[0] == '\0' || g_hash_table_contains (seen, mods[i].name))
        continue;
      item = g_menu_item_new (mods[i].name, NULL);
      g_menu_item_set_action_and_target_value (item, "win.filter-module", g_variant_new_string (mods[i].name));
      g_menu_append_item (modules, item);
      g_hash_table_add (seen, g_strdup (mods[i].name));
    }

  if (g_menu_model_get_n_items (G_MENU_MODEL (threads)) > 0)
    g_menu_append_section (menu, _("Threads"), G_MENU_MODEL (threads));
  if (g_menu_model_get_n_items (G_MENU_MODEL (metadata)) > 0)
    g_menu_append_section (menu, _("Metadata"), G_MENU_MODEL (metadata));
  if (g_menu_model_get_n_items (G_MENU_MODEL (modules)) > 0)
    g_menu_append_section (menu, _("Modules"), G_MENU_MODEL (modules));
  {
    g_autoptr(GMenu) clear = g_menu_new ();
    g_menu_append (clear, _("_Remove All Filters"), "win.clear-filters");
    g_menu_append_section (menu, NULL, G_MENU_MODEL (clear));
  }
  return G_MENU_MODEL (menu);
}
