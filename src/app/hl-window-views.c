/* hl-window-views.c — the analysis of the session's filters (one at a
 * time, reused by every view) and the views' refresh: the flame graph,
 * the call tree and the allocations each built by its own worker
 * (hl-flame-build.h, hl-call-tree-rows.h, hl-allocations-build.h), the
 * summary on this thread; a view not shown catches up when shown. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-adapter-call-tree.h"
#include "hl-adapter-filter.h"
#include "hl-adapter-flame.h"
#include "hl-adapter-not-freed.h"
#include "hl-adapter-summary.h"
#include "hl-allocations-build.h"
#include "hl-call-tree-rows.h"
#include "hl-flame-build.h"
#include "hl-functions-build.h"
#include "hl-window-private.h"

/* A newer build of a view replaces this one: a new cancellable for it. */
static GCancellable *
renew (GCancellable **cancellable)
{
  g_cancellable_cancel (*cancellable);
  g_clear_object (cancellable);
  *cancellable = g_cancellable_new ();
  return *cancellable;
}

static gboolean
view_shown (HlWindow   *self,
            const char *name)
{
  return g_strcmp0 (adw_view_stack_get_visible_child_name (self->view_stack), name) == 0;
}

/* TRUE when view NAME is to be refreshed now: there is an analysis and
 * the view is shown; not shown, it is marked STALE for when it is. */
static gboolean
view_wanted (HlWindow   *self,
             const char *name,
             gboolean   *stale)
{
  if (hl_window_analysis (self) == NULL)
    return FALSE;
  if (!view_shown (self, name))
    {
      *stale = TRUE;
      return FALSE;
    }
  return TRUE;
}

/* ---- The flame graph -------------------------------------------------- */

static void
on_flame_built (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(HlWindow) self = user_data;
  g_autoptr(HlFlameData) data = NULL;
  g_autoptr(HlCallTree) tree = NULL;
  gboolean unchanged = FALSE, first;

  data = hl_flame_build_finish (result, &tree, &unchanged, NULL);
  /* cancelled: a newer build replaces this one; or of another recording */
  if (data == NULL || gtk_widget_in_destruction (GTK_WIDGET (self)) || self->flame_building == NULL
      || hl_analysis_get_recording (self->flame_building) != hl_window_recording (self))
    return;
  g_clear_pointer (&self->flame_tree, hl_call_tree_unref);
  self->flame_tree = g_steal_pointer (&tree);
  g_clear_object (&self->flame_analysis);
  self->flame_analysis = g_steal_pointer (&self->flame_building);
  self->flame_kind = self->flame_building_kind;
  self->flame_inverted = self->flame_building_inverted;
  if (!unchanged)
    hl_flame_view_set_data (self->flame_view, data);
  hl_timing_log (&self->flame_mark, "flame graph data %u nodes%s", hl_flame_data_get_n_nodes (data),
                 unchanged ? " (unchanged, kept)" : "");
  hl_timing_log (&self->analysis_mark, "refilter to flame graph data");
  if (!hl_window_has_views (self))
    hl_window_show_page (self, "views");
  first = self->opening;
  if (self->opening)
    {
      gboolean partial = hl_document_get_partial (self->document);

      self->opening = FALSE;
      hl_timing_log (&self->open_mark, partial ? "open to views shown (saved costs)" : "open to views shown");
      if (hl_timing_enabled ())
        hl_window_log_after_paint (self, partial ? "open to flame graph drawn (from the saved costs, events loading)"
                                                 : "open to flame graph drawn",
                                   &self->open_mark, self->open_frames, self->open_paint_cpu_us);
    }
  if (self->log_fully_loaded && self->flame_analysis != NULL
      && hl_analysis_get_recording (self->flame_analysis) == hl_window_recording (self))
    {
      /* the views are the events' now */
      self->log_fully_loaded = FALSE;
      if (hl_timing_enabled ())
        hl_window_log_after_paint (self, "open to fully loaded (events decoded, flame graph drawn from them)",
                                   &self->open_mark, self->open_frames, self->open_paint_cpu_us);
    }
  else if (hl_timing_enabled () && !first)
    hl_window_log_after_paint (self, "refilter to flame graph drawn", &self->analysis_mark,
                               self->analysis_frames, self->analysis_paint_cpu_us);
  hl_window_update_actions (self);
}

void
hl_window_refresh_flame_graph (HlWindow *self)
{
  HlCostKind kind = hl_flame_view_get_cost (self->flame_view);
  gboolean inverted = hl_flame_graph_get_inverted (hl_flame_view_get_graph (self->flame_view));
  HlFlameData *shown = hl_flame_graph_get_data (hl_flame_view_get_graph (self->flame_view));
  gboolean same = self->flame_tree != NULL && self->flame_analysis != NULL && shown != NULL;
  HlLiveSession *held = NULL;

  if (hl_window_analysis (self) == NULL)
    return;
  if (kind >= HL_N_COST_KINDS)
    kind = HL_COST_KIND_BYTES;
  if (hl_window_live_session (self) != NULL)
    {
      /* the call tree reads the recording's stack trie: no appends now */
      if (!hl_live_session_hold (hl_window_live_session (self)))
        {
          self->flame_pending = TRUE;
          return;
        }
      held = hl_window_live_session (self);
    }
  self->flame_pending = FALSE;
  same = same && self->flame_kind == kind && self->flame_inverted == inverted;
  g_set_object (&self->flame_building, hl_window_analysis (self));
  self->flame_building_kind = kind;
  self->flame_building_inverted = inverted;
  hl_timing_mark (&self->flame_mark);
  hl_flame_build_async (hl_window_analysis (self), kind, inverted,
                        same ? self->flame_analysis : NULL, same ? self->flame_tree : NULL, same ? shown : NULL,
                        held, renew (&self->flame_cancellable), on_flame_built, g_object_ref (self));
}

/* ---- The summary, the call tree, the allocations ---------------------- */

static void
refresh_summary (HlWindow *self)
{
  if (!view_wanted (self, "summary", &self->summary_stale))
    return;
  self->summary_stale = FALSE;
  if (hl_window_live_session (self) != NULL)
    {
      HlAdapterLive live = {
        .state = hl_live_session_get_state (hl_window_live_session (self)),
      };
      g_autofree HlCosts *stack_costs = hl_live_session_get_stack_costs (hl_window_live_session (self), &live.n_stacks);

      live.stack_costs = stack_costs;
      hl_live_session_get_totals (hl_window_live_session (self), &live.totals);
      live.time_ns = hl_live_session_get_totals_time_ns (hl_window_live_session (self));
      hl_live_session_get_leak_scan (hl_window_live_session (self), &live.leak_scan);
      hl_adapter_fill_summary (self->summary_view, hl_window_recording (self), hl_window_analysis (self), &live);
    }
  else
    hl_adapter_fill_summary (self->summary_view, hl_window_recording (self), hl_window_analysis (self), NULL);
}

typedef struct
{
  HlRecording *recording;
  gboolean     bottom_up;
} TreeResolver;

static void
tree_resolver_free (gpointer p)
{
  TreeResolver *r = p;

  g_clear_object (&r->recording);
  g_free (r);
}

static GStrv
tree_resolve (gpointer user_data,
              guint64  address)
{
  TreeResolver *r = user_data;

  if (r->recording == NULL)
    return NULL;
  return hl_adapter_call_tree_resolve (r->recording, address, r->bottom_up);
}

static void
show_call_tree (HlWindow  *self,
                HlTreeRow *root)
{
  /* a rebuild (a filter, a live refresh) keeps what the reader opened; a
   * row of a frame not symbolized is found by its address in the new
   * tree (a live view's become its trace's) */
  g_auto(GStrv) selected = NULL;
  g_autoptr(GPtrArray) open = NULL;
  TreeResolver *r = g_new0 (TreeResolver, 1);

  r->recording = hl_window_recording (self) != NULL ? g_object_ref (hl_window_recording (self)) : NULL;
  r->bottom_up = hl_call_tree_view_get_mode (self->call_tree_view) == HL_CALL_TREE_MODE_BOTTOM_UP;
  hl_call_tree_view_set_resolver (self->call_tree_view, tree_resolve, r, tree_resolver_free);
  open = hl_call_tree_view_get_open_paths (self->call_tree_view, &selected);

  hl_call_tree_view_set_root (self->call_tree_view, root);
  /* "Show in call tree" asked while the tree was being built */
  if (self->call_tree_reveal != NULL)
    {
      g_auto(GStrv) names = g_steal_pointer (&self->call_tree_reveal);

      hl_call_tree_view_reveal_path (self->call_tree_view, (const char * const *) names, g_strv_length (names));
    }
  else if (hl_call_tree_view_open_paths (self->call_tree_view, open, (const char * const *) selected) == 0)
    /* a new tree opens on where the cost goes, as heaptrack's does */
    hl_call_tree_view_expand_heaviest (self->call_tree_view, HL_CALL_TREE_HEAVIEST_DEPTH);
}

/* A view's worker reading the recording: the window, and the live
 * session held for it (appends wait until the worker is done), released
 * when its result is back on this thread. */
typedef struct
{
  HlWindow      *window;
  HlLiveSession *held;
} ViewRead;

/* A new read of the recording for SELF, or NULL when a live session
 * refuses the hold now (an analysis of it waits for the feed: the view
 * stays stale and the next update brings it). */
static ViewRead *
view_read_new (HlWindow *self)
{
  HlLiveSession *live = hl_window_live_session (self);
  ViewRead *read;

  if (live != NULL && !hl_live_session_hold (live))
    return NULL;
  read = g_new0 (ViewRead, 1);
  read->window = g_object_ref (self);
  read->held = live != NULL ? g_object_ref (live) : NULL;
  return read;
}

static void
view_read_free (ViewRead *read)
{
  if (read->held != NULL)
    {
      hl_live_session_release (read->held);
      g_object_unref (read->held);
    }
  g_object_unref (read->window);
  g_free (read);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ViewRead, view_read_free)

static void
on_call_tree_rows (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(ViewRead) read = user_data;
  HlWindow *self = read->window;
  g_autoptr(HlTreeRow) root = NULL;
  gboolean built = hl_call_tree_rows_finish (result, &root, NULL);

  /* a newer one replaces it */
  if (gtk_widget_in_destruction (GTK_WIDGET (self))
      || g_task_get_cancellable (G_TASK (result)) != self->call_tree_cancellable)
    return;
  g_clear_object (&self->call_tree_cancellable);
  if (!built)
    return; /* cancelled by a newer filter, whose analysis brings the next tree */
  show_call_tree (self, root);
  hl_timing_log (&self->call_tree_mark, "call tree (worker)");
}

/* ---- Callers/Callees --------------------------------------------------- */

static void
on_neighbours (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(ViewRead) read = user_data;
  HlWindow *self = read->window;
  g_autoptr(GListModel) callers = NULL;
  g_autoptr(GListModel) callees = NULL;
  HlFunctionsView *view;

  if (!hl_function_neighbours_finish (result, &callers, &callees, NULL)
      || gtk_widget_in_destruction (GTK_WIDGET (self)))
    return; /* a newer choice replaces it */
  view = hl_call_tree_view_get_functions_view (self->call_tree_view);
  hl_functions_view_set_neighbours (view, hl_functions_view_get_selected (view), callers, callees);
  hl_timing_log (&self->call_tree_mark, "callers and callees (worker)");
}

/* A function chosen in the flat list: its callers and callees, on a
 * worker (every stack through it is looked at). */
static void
on_function_selected (HlWindow      *self,
                      HlFunctionRow *row)
{
  ViewRead *read;

  g_cancellable_cancel (self->neighbours_cancellable);
  if (row == NULL || self->functions_analysis == NULL)
    return;
  read = view_read_new (self);
  if (read == NULL)
    return;  /* live and busy: the next refresh chooses it again */
  hl_timing_mark (&self->call_tree_mark);
  hl_function_neighbours_async (self->functions_analysis, hl_function_row_get_frame (row),
                                renew (&self->neighbours_cancellable), on_neighbours, read);
}

static void
on_functions_built (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(ViewRead) read = user_data;
  HlWindow *self = read->window;
  g_autoptr(GListModel) rows = hl_functions_build_finish (result, NULL);
  HlAnalysis *analysis = hl_window_analysis (self);
  HlCosts totals;

  if (rows == NULL || gtk_widget_in_destruction (GTK_WIDGET (self))
      || g_task_get_cancellable (G_TASK (result)) != self->functions_cancellable || analysis == NULL)
    return; /* a newer one replaces it */
  g_clear_object (&self->functions_cancellable);
  g_set_object (&self->functions_analysis, analysis);
  hl_analysis_get_totals (analysis, &totals);
  /* the view chooses a function: on_function_selected reads the
   * recording too, so this read's hold ends after it */
  hl_functions_view_set_functions (hl_call_tree_view_get_functions_view (self->call_tree_view), rows, &totals);
  hl_timing_log (&self->call_tree_mark, "functions (worker) %u", g_list_model_get_n_items (rows));
}

static void
refresh_functions (HlWindow *self,
                   ViewRead *read)
{
  hl_timing_mark (&self->call_tree_mark);
  g_cancellable_cancel (self->call_tree_cancellable);
  hl_functions_build_async (hl_window_analysis (self), HL_COST_KIND_BYTES,
                            renew (&self->functions_cancellable), on_functions_built, read);
}

void
hl_window_refresh_call_tree (HlWindow *self)
{
  HlCallTreeMode mode = hl_call_tree_view_get_mode (self->call_tree_view);

  /* The tree is rebuilt when looked at (live, that also keeps what the
   * user unfolded from folding at every refresh). */
  if (!view_wanted (self, "calltree", &self->call_tree_stale))
    return;
  if (hl_window_live_session (self) != NULL && !self->call_tree_stale
      && g_get_monotonic_time () < self->call_tree_time_us + 2 * G_USEC_PER_SEC)
    return;
  ViewRead *read = view_read_new (self);
  if (read == NULL)
    {
      self->call_tree_stale = TRUE;
      return;
    }
  self->call_tree_stale = FALSE;
  self->call_tree_time_us = g_get_monotonic_time ();
  if (mode == HL_CALL_TREE_MODE_CALLER_CALLEE)
    {
      refresh_functions (self, read);
      return;
    }
  hl_timing_mark (&self->call_tree_mark);
  g_cancellable_cancel (self->call_tree_cancellable);
  g_cancellable_cancel (self->functions_cancellable);
  hl_call_tree_rows_async (hl_window_analysis (self), mode, renew (&self->call_tree_cancellable),
                           on_call_tree_rows, read);
}

void
hl_window_on_call_tree_mode_changed (HlWindow *self)
{
  hl_window_refresh_call_tree (self);
}

static void
on_allocations_built (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(ViewRead) read = user_data;
  HlWindow *self = read->window;
  g_autoptr(HlAllocationsData) data = hl_allocations_build_finish (result, NULL);

  if (data == NULL || gtk_widget_in_destruction (GTK_WIDGET (self)))
    return; /* a newer one replaces it */
  hl_allocations_data_show (data, self->allocations_view);
  hl_timing_log (&self->allocations_mark, "allocations view (worker)");
}

/* The Leaks tab says what it lists: leaks, or what was not freed yet or
 * by the range's end (the same words as the summary's cards). */
static void
show_leak_titles (HlWindow *self)
{
  HlLiveSession *live = hl_window_live_session (self);
  HlLiveState state = live != NULL ? hl_live_session_get_state (live) : HL_LIVE_STATE_ENDED;
  HlNotFreedTitles titles;
  HlSummary s;

  hl_recording_get_summary (hl_window_recording (self), &s);
  hl_adapter_not_freed_titles (hl_window_analysis (self), s.duration_ns, live != NULL ? &state : NULL, &titles);
  hl_allocations_view_set_leak_titles (self->allocations_view, titles.tab, titles.column, titles.none);
  hl_not_freed_titles_clear (&titles);
}

static void
refresh_allocations (HlWindow *self)
{
  /* The largest allocations and the histogram walk every allocation: do
   * it when the page is looked at, not on every range drag. */
  if (!view_wanted (self, "allocations", &self->allocations_stale))
    return;
  show_leak_titles (self);
  ViewRead *read = view_read_new (self);
  if (read == NULL)
    {
      self->allocations_stale = TRUE;
      return;
    }
  self->allocations_stale = FALSE;
  hl_timing_mark (&self->allocations_mark);
  hl_allocations_build_async (hl_window_analysis (self), renew (&self->allocations_cancellable),
                              on_allocations_built, read);
}

/* A view shown for the first time since the analysis changed catches up. */
static void
on_visible_view_changed (HlWindow *self)
{
  HlTimingMark begin;
  gboolean stale = self->summary_stale || self->allocations_stale || self->call_tree_stale;

  hl_timing_mark (&begin);
  if (self->summary_stale)
    refresh_summary (self);
  if (self->allocations_stale)
    refresh_allocations (self);
  if (self->call_tree_stale)
    hl_window_refresh_call_tree (self);
  if (stale)
    hl_timing_log (&begin, "view %s refreshed when shown",
                   adw_view_stack_get_visible_child_name (self->view_stack));
}

static void
refresh_views (HlWindow *self)
{
  HlTimingMark begin, stage;

  if (hl_window_analysis (self) == NULL)
    return;
  hl_timing_mark (&begin);
  stage = begin;
  /* The workers first (the flame graph's data is on the way to the first
   * frame), then the summary on this thread while they run. */
  hl_window_refresh_flame_graph (self);
  hl_timing_log (&stage, "  flame graph (to its worker)");
  hl_timing_mark (&stage);
  hl_window_refresh_call_tree (self);
  hl_timing_log (&stage, "  call tree");
  hl_timing_mark (&stage);
  refresh_allocations (self);
  hl_timing_log (&stage, "  allocations");
  hl_timing_mark (&stage);
  refresh_summary (self);
  hl_timing_log (&stage, "  summary");
  hl_timing_log (&begin, "views refreshed");
}

/* ---- The analysis ----------------------------------------------------- */

/* The scheduler's "ready": ANALYSIS is the current one; the views show it. */
static void
on_analysis_ready (HlWindow   *self,
                   HlAnalysis *analysis)
{
  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  hl_timing_log (&self->analysis_mark, "analysis");
  /* the flame graph's worker takes its own hold while this one lasts */
  refresh_views (self);
  hl_timing_log (&self->analysis_mark, "refilter (analysis and every view but the flame graph)");
}

static void
on_analysis_failed (HlWindow   *self,
                    const char *message)
{
  hl_window_show_toast (self, message);
}

/* A new analysis for the session's filters; the views keep showing the
 * previous one until it is ready. */
void
hl_window_start_analysis (HlWindow *self)
{
  g_autoptr(HlFilter) filter = NULL;
  guint cost = hl_flame_view_get_cost (self->flame_view);
  gboolean live = cost == HL_COST_KIND_LIVE;
  HlTimingMark mark;

  if (hl_window_recording (self) == NULL)
    return;
  filter = hl_adapter_filter (self->session, live ? self->cursor_ns : HL_TIME_NONE);
  if (cost == HL_COST_KIND_LONG_LIVED)
    {
      /* the slider's T, from 1 µs to the recording's duration */
      HlLifetimeSlider *slider = hl_flame_view_get_lifetime_slider (self->flame_view);
      HlSummary s;
      HlFilter *with_t;

      hl_recording_get_summary (hl_window_recording (self), &s);
      hl_lifetime_slider_set_max_ns (slider, s.duration_ns);
      if (hl_view_state_get_lived_at_least (self->session) != 0)
        hl_lifetime_slider_set_value_ns (slider, hl_view_state_get_lived_at_least (self->session));
      hl_view_state_set_lived_at_least (self->session, hl_lifetime_slider_get_value_ns (slider));
      with_t = hl_filter_with_lived_at_least (filter, hl_view_state_get_lived_at_least (self->session));
      hl_filter_unref (filter);
      filter = with_t;
    }
  if (hl_document_get_partial (self->document) && hl_filter_needs_events (filter, cost))
    {
      /* The saved costs have no times: the views keep what they show and
       * the filter applies when the events have loaded (on_loaded
       * analyses them with the session's filters). */
      const char *waiting = hl_filter_has_time_range (filter)
                              ? _("The time range applies once the events are loaded")
                              : _("The filter applies once the events are loaded");

      if (!self->filters_waiting)
        hl_window_show_toast (self, waiting);
      self->filters_waiting = TRUE;
      gtk_label_set_label (self->events_label, waiting);
      return;
    }
  hl_timing_mark (&mark);
  if (!hl_analysis_scheduler_start (self->analyses, filter))
    return; /* live: one at a time, "retry" brings this one */
  /* a call tree of the previous filter is not wanted any more */
  g_cancellable_cancel (self->call_tree_cancellable);
  g_cancellable_cancel (self->functions_cancellable);
  self->analysis_mark = mark;
  self->analysis_frames = self->frames_painted;
  self->analysis_paint_cpu_us = self->paint_cpu_us;
}

/* ---- What the views ask ------------------------------------------------ */

void
hl_window_on_flame_cost_changed (HlWindow *self,
                                 guint     cost)
{
  guint before = hl_view_state_get_cost (self->session);

  hl_view_state_set_cost (self->session, cost);
  /* LIVE needs the cursor's instant in the filter, LONG_LIVED its T (and
   * leaving it, an analysis without), MMAP by thread the events */
  if (cost == HL_COST_KIND_LIVE || cost == HL_COST_KIND_LONG_LIVED || before == HL_COST_KIND_LONG_LIVED
      || cost == HL_COST_KIND_MMAP)
    hl_window_start_analysis (self);
  else
    hl_window_refresh_flame_graph (self);
}

void
hl_window_on_flame_lifetime_changed (HlWindow *self,
                                     guint64   t_ns)
{
  hl_view_state_set_lived_at_least (self->session, t_ns);
  if (hl_flame_view_get_cost (self->flame_view) == HL_COST_KIND_LONG_LIVED)
    hl_window_start_analysis (self);
}

static void
on_show_in_call_tree (HlWindow *self,
                      guint     node)
{
  HlFlameData *data = hl_flame_graph_get_data (hl_flame_view_get_graph (self->flame_view));
  HlCallNode call_node;
  g_autoptr(GPtrArray) path = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  if (data == NULL || self->flame_tree == NULL)
    return;
  call_node = hl_adapter_flame_node_call_node (data, node);
  if (call_node == HL_CALL_NODE_NONE)
    return;
  path = hl_call_tree_get_path (self->flame_tree, call_node);
  for (guint i = 0; i < path->len; i++)
    g_ptr_array_add (names, (gpointer) ((const HlFrame *) g_ptr_array_index (path, i))->function);
  /* The inverted graph shows the bottom-up tree: reveal the path there. */
  hl_call_tree_view_set_mode (self->call_tree_view,
                              hl_call_tree_get_kind (self->flame_tree) == HL_CALL_TREE_BOTTOM_UP
                              ? HL_CALL_TREE_MODE_BOTTOM_UP : HL_CALL_TREE_MODE_TOP_DOWN);
  adw_view_stack_set_visible_child_name (self->view_stack, "calltree");
  if (self->call_tree_cancellable != NULL)
    {
      /* once the tree being built is shown */
      g_ptr_array_add (names, NULL);
      g_strfreev (self->call_tree_reveal);
      self->call_tree_reveal = g_strdupv ((char **) names->pdata);
    }
  else
    hl_call_tree_view_reveal_path (self->call_tree_view, (const char * const *) names->pdata, names->len);
}

/* A bar of the size histogram clicked: its sizes become the session's
 * size filter (a chip in the filter bar removes it). */
static void
on_size_range_chosen (HlWindow *self,
                      guint64   min_size,
                      guint64   max_size)
{
  hl_view_state_set_size_range (self->session, min_size, max_size);
}

void
hl_window_forget_analysis (HlWindow *self)
{
  hl_analysis_scheduler_forget (self->analyses);
  g_cancellable_cancel (self->flame_cancellable);
  g_cancellable_cancel (self->functions_cancellable);
  g_cancellable_cancel (self->neighbours_cancellable);
  g_clear_object (&self->flame_building);
  g_clear_pointer (&self->flame_tree, hl_call_tree_unref);
  g_clear_object (&self->flame_analysis);
  g_clear_object (&self->functions_analysis);
}

void
hl_window_init_views (HlWindow *self)
{
  self->cursor_ns = HL_TIME_NONE;
  self->analyses = g_object_ref (hl_document_get_analyses (self->document));
  g_signal_connect_swapped (self->analyses, "ready", G_CALLBACK (on_analysis_ready), self);
  g_signal_connect_swapped (self->analyses, "failed", G_CALLBACK (on_analysis_failed), self);
  g_signal_connect_swapped (self->analyses, "retry", G_CALLBACK (hl_window_start_analysis), self);
  g_signal_connect_swapped (hl_flame_view_get_graph (self->flame_view), "notify::inverted",
                            G_CALLBACK (hl_window_refresh_flame_graph), self);
  g_signal_connect_swapped (hl_flame_view_get_graph (self->flame_view), "show-in-call-tree",
                            G_CALLBACK (on_show_in_call_tree), self);
  g_signal_connect_swapped (self->view_stack, "notify::visible-child-name",
                            G_CALLBACK (on_visible_view_changed), self);
  g_signal_connect_swapped (hl_call_tree_view_get_functions_view (self->call_tree_view), "function-selected",
                            G_CALLBACK (on_function_selected), self);
  g_signal_connect_swapped (self->allocations_view, "size-range-chosen",
                            G_CALLBACK (on_size_range_chosen), self);
}

void
hl_window_dispose_views (HlWindow *self)
{
  if (self->analyses != NULL)
    hl_analysis_scheduler_forget (self->analyses);
  g_cancellable_cancel (self->call_tree_cancellable);
  g_clear_object (&self->call_tree_cancellable);
  g_cancellable_cancel (self->functions_cancellable);
  g_clear_object (&self->functions_cancellable);
  g_cancellable_cancel (self->neighbours_cancellable);
  g_clear_object (&self->neighbours_cancellable);
  g_clear_object (&self->functions_analysis);
  g_cancellable_cancel (self->flame_cancellable);
  g_clear_object (&self->flame_cancellable);
  g_cancellable_cancel (self->allocations_cancellable);
  g_clear_object (&self->allocations_cancellable);
  g_clear_pointer (&self->call_tree_reveal, g_strfreev);
  g_clear_object (&self->flame_building);
  g_clear_pointer (&self->flame_tree, hl_call_tree_unref);
  g_clear_object (&self->flame_analysis);
}
