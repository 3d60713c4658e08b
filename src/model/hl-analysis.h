/* hl-analysis.h — the answers for one (recording, filter): totals, trees,
 * leaks, largest allocations, size histogram, per-thread totals, callers and
 * callees of a function.
 *
 * Immutable once built; build it on a worker thread with new_async() for
 * big recordings. A time-range change builds a new analysis (the stack tries
 * are shared with the recording, so this is one pass over the allocations
 * and one over the stacks).
 */
#pragma once

#include <gio/gio.h>

#include "hl-call-tree.h"
#include "hl-filter.h"
#include "hl-recording.h"
#include "hl-size-histogram.h"

G_BEGIN_DECLS

#define HL_TYPE_ANALYSIS (hl_analysis_get_type ())
G_DECLARE_FINAL_TYPE (HlAnalysis, hl_analysis, HL, ANALYSIS, GObject)

/* Costs of one stack, or of one function among callers/callees. */
typedef struct
{
  HlStackId      stack;      /* 0 for function entries */
  const HlFrame *frame;      /* the function (callers/callees), or the
                              * stack's first resolved frame */
  HlCosts        costs;
} HlStackCosts;

/* One function of the flat list (Callers/Callees): its frames merged by
 * name and module (hl_frame_same_function), as the trees merge them. */
typedef struct
{
  const HlFrame *frame;      /* a frame of the function: the first met
                              * with a source line, else the first */
  HlCosts        self;       /* the stacks whose innermost frame it is */
  HlCosts        total;      /* the stacks through it, each once even
                              * when it recurses */
} HlFunctionCosts;

typedef struct
{
  guint64   time_ns;
  guint64   size;
  guint64   address;
  guint64   free_time_ns;    /* HL_TIME_NONE when never freed */
  guint32   tid;
  HlStackId stack;
  guint64   weight;          /* how many of the program's blocks it stands
                              * for: 1, or more in a sampled recording */
} HlAllocationInfo;

typedef struct
{
  guint32  tid;
  const char *name;
  HlCosts  costs;
  guint64  start_ns;         /* as HlThreadInfo */
  guint64  end_ns;
} HlThreadCosts;

HlAnalysis      *hl_analysis_new              (HlRecording        *recording,
                                               const HlFilter     *filter);
void             hl_analysis_new_async        (HlRecording        *recording,
                                               const HlFilter     *filter,
                                               GCancellable       *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer            user_data);
HlAnalysis      *hl_analysis_new_finish       (GAsyncResult       *result,
                                               GError            **error);

HlRecording     *hl_analysis_get_recording    (HlAnalysis *self);
const HlFilter  *hl_analysis_get_filter       (HlAnalysis *self);
void             hl_analysis_get_totals       (HlAnalysis *self,
                                               HlCosts    *out);
/* Time of the heap peak the PEAK cost refers to. */
guint64          hl_analysis_get_peak_time_ns (HlAnalysis *self);
/* Costs of one stack (zero when it is not selected). */
void             hl_analysis_get_stack_costs  (HlAnalysis *self,
                                               HlStackId   stack,
                                               HlCosts    *out);

/* New reference; trees are built on first use and cached per (kind, sort). */
HlCallTree      *hl_analysis_get_call_tree    (HlAnalysis     *self,
                                               HlCallTreeKind  kind,
                                               HlCostKind      sort_by);
/* TREE, built by BEFORE (an earlier analysis of the same recording), when
 * it is the tree this analysis would build: the recording's stacks and
 * symbols are the same as then and every stack has the same costs (a live
 * view refreshing an idle target). It is then cached as this analysis'
 * tree and returned with a new reference; else NULL. Costs a comparison of
 * the costs per stack, not a build. */
HlCallTree      *hl_analysis_reuse_call_tree  (HlAnalysis     *self,
                                               HlAnalysis     *before,
                                               HlCallTree     *tree);

/* Call sites (stacks; those with identical symbolized frames merged under
 * the first one's id) with a non-zero cost of KIND, largest first, at
 * most N (0: all).
 * New array of HlStackCosts. With KIND LEAKED these are the leaks grouped
 * by stack. */
GArray          *hl_analysis_get_top_stacks   (HlAnalysis *self,
                                               HlCostKind  kind,
                                               guint       n);
/* The stacks of reachability kind KIND (the leak scan at exit,
 * hl_recording_get_reachability()), by bytes, at most N (0: all): a new
 * array of HlReachabilityStack. The lost kinds are the scan's blocks; the
 * still reachable ones are each stack's leaked blocks less its lost ones
 * (the selection's leaks: with no filter, those at exit). Empty without a
 * scan. */
/* The leaks grouped by call site, as hl_analysis_get_top_stacks() with
 * LEAKED, of one kind of the leak scan at exit: a new array of
 * HlStackCosts whose costs hold only the leaked blocks and bytes of KIND
 * (still reachable: each stack's leaks less its lost blocks). NULL when
 * the recording has no scan or the analysis has a filter: the scan's
 * kinds are the whole run's blocks at its exit. */
GArray          *hl_analysis_get_top_leaks_of_kind (HlAnalysis         *self,
                                                    HlReachabilityKind  kind,
                                                    guint               n);
GArray          *hl_analysis_get_reachability_stacks (HlAnalysis         *self,
                                                      HlReachabilityKind  kind,
                                                      guint               n);
/* The same over costs the caller gives per stack, STACK_COSTS[0..N_STACKS)
 * indexed by HlStackId (a live session's exact counters,
 * hl_live_session_get_stack_costs); stacks the analysis does not know
 * are left out. */
GArray          *hl_analysis_get_top_stacks_by (HlAnalysis    *self,
                                                const HlCosts *stack_costs,
                                                guint          n_stacks,
                                                HlCostKind     kind,
                                                guint          n);
/* Functions calling FUNCTION directly / called by it, with the costs of the
 * stacks through that edge (each stack counted once per edge). Sorted by
 * SORT_BY. New array of HlStackCosts. */
GArray          *hl_analysis_get_callers      (HlAnalysis    *self,
                                               const HlFrame *function,
                                               HlCostKind     sort_by);
GArray          *hl_analysis_get_callees      (HlAnalysis    *self,
                                               const HlFrame *function,
                                               HlCostKind     sort_by);
/* Costs of all stacks through FUNCTION (each stack once). */
void             hl_analysis_get_function_costs (HlAnalysis    *self,
                                               const HlFrame *function,
                                               HlCosts       *out);

/* The N largest selected allocations, largest first. New array of
 * HlAllocationInfo. */
GArray          *hl_analysis_get_largest      (HlAnalysis *self,
                                               guint       n);
void             hl_analysis_get_size_histogram (HlAnalysis      *self,
                                               HlSizeHistogram *out);
/* One entry per thread with selected allocations, by BYTES. New array of
 * HlThreadCosts. */
GArray          *hl_analysis_get_thread_costs (HlAnalysis *self);
/* One entry per thread of the recording (a thread without selected
 * allocations has zero costs), in start order (start_ns, then tid). New
 * array of HlThreadCosts. */
GArray          *hl_analysis_get_all_thread_costs (HlAnalysis *self);
/* The same for the threads of THREADS_OF, another recording of the same
 * trace (the whole run's, when SELF's recording was loaded for a time
 * range: hl_recording_load_range()), each matched by tid and start; a
 * thread SELF's recording lacks has zero costs. */
GArray          *hl_analysis_get_thread_costs_for (HlAnalysis  *self,
                                                   HlRecording *threads_of);
/* The functions named exactly NAME in the selected stacks (one frame per
 * function and module, as callers/callees merge them), the costliest by
 * BYTES first. New array of borrowed HlFrame pointers; empty when none. */
GPtrArray       *hl_analysis_find_functions   (HlAnalysis *self,
                                               const char *name);

/* Every function of the selected stacks with its self and total costs,
 * the largest total of SORT_BY first (ties by name). New array of
 * HlFunctionCosts. One pass over the stacks' frames. */
GArray          *hl_analysis_get_functions    (HlAnalysis *self,
                                               HlCostKind  sort_by);

/* ---- On a worker thread (hl-analysis-async.c) ----------------------------
 *
 * The heavy answers above, computed on a worker thread of GLib's pool.
 * CALLBACK runs on the thread-default main context of the thread that
 * called the _async function (the main thread in the application), after
 * the worker has finished with the analysis. CANCELLABLE is looked at
 * before and after the work (the largest allocations: also every 64
 * blocks of allocations); a cancelled call finishes with
 * G_IO_ERROR_CANCELLED.
 *
 * The worker reads the analysis' recording: a recording that grows (a
 * live session's) must not be appended to until CALLBACK has run; the
 * caller holds it still (hl_live_session_hold) around the call and
 * releases it in CALLBACK. */

/* hl_analysis_get_call_tree (); a tree built and cancelled meanwhile is
 * cached all the same. _finish: a new reference, or NULL with ERROR. */
void             hl_analysis_get_call_tree_async   (HlAnalysis         *self,
                                                    HlCallTreeKind      kind,
                                                    HlCostKind          sort_by,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
HlCallTree      *hl_analysis_get_call_tree_finish  (HlAnalysis         *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);
/* hl_analysis_get_top_stacks (): a new array of HlStackCosts, or NULL
 * with ERROR. */
void             hl_analysis_get_top_stacks_async  (HlAnalysis         *self,
                                                    HlCostKind          kind,
                                                    guint               n,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
GArray          *hl_analysis_get_top_stacks_finish (HlAnalysis         *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);
/* hl_analysis_get_largest (): a new array of HlAllocationInfo, or NULL
 * with ERROR. */
void             hl_analysis_get_largest_async     (HlAnalysis         *self,
                                                    guint               n,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
GArray          *hl_analysis_get_largest_finish    (HlAnalysis         *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);

/* hl_analysis_get_functions (): a new array of HlFunctionCosts, or NULL
 * with ERROR (hl-analysis-functions.c). */
void             hl_analysis_get_functions_async   (HlAnalysis         *self,
                                                    HlCostKind          sort_by,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
GArray          *hl_analysis_get_functions_finish  (HlAnalysis         *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);

G_END_DECLS
