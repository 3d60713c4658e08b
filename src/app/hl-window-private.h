/* hl-window-private.h — what the files of HlWindow share: its instance
 * struct and the functions one file of it calls in another. HlWindow is
 * one class in several files, each of one part of the window:
 *   hl-window.c           the shell: pages, actions, filters, banner, drop
 *   hl-window-load.c      opening a file through its HlDocument
 *   hl-window-views.c     the analysis of the filters and the views' refresh
 *   hl-window-timeline.c  the timeline, its legend and the heap by call site
 *   hl-window-live.c      live mode, driven by the live panel's signals
 *   hl-window-export.c    Export Flame Graph… and Export Report…
 *   hl-window-compare.c   Compare With…
 *   hl-window-timing.c    HEAPLENS_DEBUG=timing lines of painted frames */
#pragma once

#include "hl-allocations-view.h"
#include "hl-analysis-scheduler.h"
#include "hl-call-tree-view.h"
#include "hl-document.h"
#include "hl-filter-bar.h"
#include "hl-flame-view.h"
#include "hl-summary-view.h"
#include "hl-timeline.h"
#include "hl-timing.h"
#include "hl-window.h"

G_BEGIN_DECLS

#define HL_WINDOW_TIMELINE_BUCKETS 1200

struct _HlWindow
{
  AdwApplicationWindow parent_instance;

  /* Template widgets */
  AdwToastOverlay    *toast_overlay;
  AdwViewSwitcherTitle *switcher_title;
  AdwViewSwitcherBar *switcher_bar;
  GtkStack           *main_stack;
  AdwViewStack       *view_stack;
  AdwStatusPage      *loading_page;
  GtkProgressBar     *loading_progress;
  AdwStatusPage      *error_page;
  GtkRevealer        *banner_revealer;
  GtkLabel           *banner_label;
  HlFilterBar        *filter_bar;
  HlTimeline         *timeline;
  GtkPaned           *timeline_paned;        /* the timeline over the views */
  AdwSqueezer        *timeline_legend_squeezer;
  GtkLabel           *timeline_legend;
  GtkLabel           *timeline_legend_keys;
  GtkLabel           *timeline_legend_short;
  GtkToggleButton    *by_site_button;
  GtkButton          *live_mark_button;      /* live only: Mark, then Mark 2 */
  GtkButton          *live_scan_button;      /* live only: Scan for Leaks */
  HlSummaryView      *summary_view;
  HlFlameView        *flame_view;
  HlCallTreeView     *call_tree_view;
  HlAllocationsView  *allocations_view;
  GtkMenuButton      *filter_button;
  GtkBox             *live_slot;
  GtkRevealer        *events_revealer;
  GtkLabel           *events_label;
  GtkProgressBar     *events_progress;

  /* Owned */
  HlViewState          *session;               /* the view state */
  HlDocument         *document;              /* the file and its load */
  GHashTable         *thread_names;          /* tid → name, from the recording */
  HlAnalysisScheduler *analyses;             /* the document's: recording, live session, analysis */
  char               *banner_details;
  char               *banner_title;

  /* The analysis of the session's filters (hl-window-views.c) */
  guint64             cursor_ns;             /* the timeline's cursor, HL_TIME_NONE */
  gboolean            live_mark_set;         /* live: the first of two marks is set ... */
  guint64             live_mark_ns;          /* ... at this time of the recording */
  guint               live_scans_seen;       /* leak scans on demand shown so far */
  gboolean            live_scan_asked;       /* Scan for Leaks pressed, its scan not in yet */
  /* Views not shown are refreshed when they are shown. */
  gboolean            summary_stale;
  gboolean            allocations_stale;
  gboolean            call_tree_stale;
  /* Each view's worker: a newer build cancels the one before. */
  GCancellable       *flame_cancellable;
  HlTimingMark        flame_mark;
  HlAnalysis         *flame_building;        /* the analysis being built, its kind */
  HlCostKind          flame_building_kind;
  gboolean            flame_building_inverted;
  HlCallTree         *flame_tree;            /* the tree the flame graph shows */
  HlAnalysis         *flame_analysis;        /* the analysis that built it */
  HlCostKind          flame_kind;            /* of flame_tree's data */
  gboolean            flame_inverted;
  gboolean            flame_pending;         /* live: the session was busy */
  GCancellable       *call_tree_cancellable;
  HlTimingMark        call_tree_mark;
  GStrv               call_tree_reveal;      /* a path to reveal when it lands */
  gint64              call_tree_time_us;     /* live: at most every 2 s */
  GCancellable       *functions_cancellable; /* Callers/Callees: the flat list */
  GCancellable       *neighbours_cancellable; /* … the chosen one's callers and callees */
  HlAnalysis         *functions_analysis;    /* the analysis the list shows */
  GCancellable       *allocations_cancellable;
  HlTimingMark        allocations_mark;

  /* Opening (hl-window-load.c) */
  HlTimingMark        open_mark;             /* for HEAPLENS_DEBUG=timing */
  gboolean            opening;               /* until the first views are drawn */
  gboolean            filters_waiting;       /* a filter by time waits for the events */
  gboolean            log_fully_loaded;      /* timing: log when its flame graph is drawn */

  /* The timeline (hl-window-timeline.c) */
  guint               timeline_refetch_id;
  HlSiteSeries       *site_series;           /* of the recording, once asked for */
  gboolean            site_series_done;
  gboolean            site_series_running;   /* a worker computes it */
  gboolean            timeline_whole;        /* its data covers the whole recording */
  GtkDropDown        *timeline_mode;         /* its chart: Consumed, Allocations, Temporary */
  guint               timeline_fit_id;       /* its height fitted to the window's (idle) */

  /* HEAPLENS_DEBUG=timing (hl-window-timing.c): the frames painted, and
   * the CPU of the whole process while they were (a GL renderer's own
   * threads included) */
  HlTimingMark        analysis_mark;
  guint               frames_painted;
  gint64              paint_cpu_us;
  HlTimingMark        paint_mark;
  guint               open_frames;           /* frames_painted at open_mark */
  gint64              open_paint_cpu_us;
  guint               analysis_frames;       /* … and at analysis_mark */
  gint64              analysis_paint_cpu_us;

  /* Live mode (hl-window-live.c): the recording grows on this thread
   * between polls; analyses and flame data are built on workers while the
   * session holds its appends back. */
  guint               live_updates;
  guint64             live_view_end_ns;      /* the timeline's end as last followed, 0 = zoomed by the user */
  gboolean            live_follow;           /* the timeline shows the whole run as it grows */
};

/* hl-window.c */
gboolean  hl_window_has_views        (HlWindow   *self);
void      hl_window_show_page        (HlWindow   *self,
                                      const char *name);
void      hl_window_update_actions   (HlWindow   *self);

/* hl-window-load.c */
void      hl_window_open_file        (HlWindow   *self,
                                      GFile      *file,
                                      gboolean    in_place);
void      hl_window_init_load        (HlWindow   *self);
void      hl_window_show_events_strip (HlWindow  *self,
                                       gboolean   show);
void      hl_window_on_cancel_clicked (HlWindow  *self);

/* hl-window-views.c */
void      hl_window_start_analysis   (HlWindow   *self);
void      hl_window_refresh_flame_graph (HlWindow *self);
void      hl_window_refresh_call_tree (HlWindow  *self);
/* Drops the analysis, the views' workers and what they built. */
void      hl_window_forget_analysis  (HlWindow   *self);
void      hl_window_init_views       (HlWindow   *self);
void      hl_window_dispose_views    (HlWindow   *self);
/* The long-lived cost's slider came to rest at T_NS. */
void      hl_window_on_flame_lifetime_changed (HlWindow *self,
                                               guint64   t_ns);
void      hl_window_on_flame_cost_changed (HlWindow *self,
                                           guint     cost);
void      hl_window_on_call_tree_mode_changed (HlWindow *self);

/* hl-window-timeline.c */
void      hl_window_show_timeline    (HlWindow   *self);
void      hl_window_update_timeline_legend (HlWindow *self);
void      hl_window_set_timeline_legend_text (HlWindow   *self,
                                              const char *text);
void      hl_window_forget_sites     (HlWindow   *self);
void      hl_window_init_timeline    (HlWindow   *self);
void      hl_window_on_by_site_toggled (HlWindow *self);

/* hl-window-export.c, hl-window-compare.c */
void      hl_window_class_add_export_actions  (GtkWidgetClass *widget_class);
void      hl_window_class_add_compare_action  (GtkWidgetClass *widget_class);
GtkFileChooserNative *hl_window_new_file_dialog (HlWindow             *self,
                                                 const char           *title,
                                                 GtkFileChooserAction  action,
                                                 const char           *accept,
                                                 const char           *filter_name,
                                                 const char           *pattern);

/* hl-window-timing.c */
void      hl_window_count_frames     (HlWindow   *self);
void      hl_window_log_after_paint  (HlWindow           *self,
                                      const char         *what,
                                      const HlTimingMark *since,
                                      guint               frames,
                                      gint64              paint_cpu_us);

/* The recording shown, its live session and its current analysis (the
 * document's HlAnalysisScheduler; NULL once the window is disposed). */
static inline HlRecording *
hl_window_recording (HlWindow *self)
{
  return self->analyses != NULL ? hl_analysis_scheduler_get_recording (self->analyses) : NULL;
}

static inline HlLiveSession *
hl_window_live_session (HlWindow *self)
{
  return self->analyses != NULL ? hl_analysis_scheduler_get_live_session (self->analyses) : NULL;
}

static inline HlAnalysis *
hl_window_analysis (HlWindow *self)
{
  return self->analyses != NULL ? hl_analysis_scheduler_get_analysis (self->analyses) : NULL;
}

G_END_DECLS
