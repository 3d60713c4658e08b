/* hl-diff-window.h — a window comparing two recordings (Compare With…,
 * `heaplens --diff A B`). */
#pragma once

#include <adwaita.h>

#include "hl-diff-view.h"
#include "hl-filter-bar.h"
#include "hl-model.h"
#include "hl-view-state.h"

G_BEGIN_DECLS

#define HL_TYPE_DIFF_WINDOW (hl_diff_window_get_type ())
G_DECLARE_FINAL_TYPE (HlDiffWindow, hl_diff_window, HL, DIFF_WINDOW, AdwApplicationWindow)

HlDiffWindow *hl_diff_window_new       (GtkApplication *app);
/* Loads what is missing (a recording NULL: its file is loaded, without
 * blocking), then shows B against A. A_RECORDING lets a window that has A
 * open already skip loading it again. */
void          hl_diff_window_compare   (HlDiffWindow   *self,
                                        GFile          *a_file,
                                        HlRecording    *a_recording,
                                        GFile          *b_file,
                                        HlRecording    *b_recording);
/* Compare with a copy of SESSION's filters, shown as chips that can be
 * removed, and its cost; ORIGIN is the recording SESSION's thread ids come
 * from (hl-diff-filter.h says how each filter is carried to the other
 * side). Call before compare(). */
void          hl_diff_window_set_filters (HlDiffWindow *self,
                                          HlViewState    *session,
                                          HlRecording  *origin);
HlViewState    *hl_diff_window_get_session (HlDiffWindow *self);
HlFilterBar  *hl_diff_window_get_filter_bar (HlDiffWindow *self);
/* B becomes A and A becomes B (win.swap). */
void          hl_diff_window_swap      (HlDiffWindow   *self);
/* The flame graph as SVG or PNG (as drawn), or collapsed stacks of both
 * sides ("a;b SELF_A SELF_B", hl_diff_flame_to_collapsed()), by FILE's
 * extension (win.export-flame-graph). */
gboolean      hl_diff_window_export_flame_graph (HlDiffWindow *self,
                                                 GFile        *file,
                                                 GError      **error);
HlDiffView   *hl_diff_window_get_view  (HlDiffWindow   *self);
/* "loading", "error" or "diff" (for tests). */
const char   *hl_diff_window_get_page  (HlDiffWindow   *self);
const char   *hl_diff_window_get_error (HlDiffWindow   *self);

G_END_DECLS
