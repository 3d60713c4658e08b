/* hl-diff-window.h — a window comparing two recordings (Compare With…,
 * `heaplens --diff A B`). */
#pragma once

#include <adwaita.h>

#include "hl-diff-view.h"
#include "hl-model.h"

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
HlDiffView   *hl_diff_window_get_view  (HlDiffWindow   *self);
/* "loading", "error" or "diff" (for tests). */
const char   *hl_diff_window_get_page  (HlDiffWindow   *self);
const char   *hl_diff_window_get_error (HlDiffWindow   *self);

G_END_DECLS
