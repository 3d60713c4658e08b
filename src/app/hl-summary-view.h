/* hl-summary-view.h — the first page: totals and the top call sites per
 * cost, each a link into the flame graph, and the threads (the heap over
 * time is the window's timeline, above every view). */
#pragma once

#include <gtk/gtk.h>

#include "hl-summary-threads.h"

G_BEGIN_DECLS

#define HL_TYPE_SUMMARY_VIEW (hl_summary_view_get_type ())
G_DECLARE_FINAL_TYPE (HlSummaryView, hl_summary_view, HL, SUMMARY_VIEW, GtkWidget)

/* "Saved in SHOWN" above the cards, a link that opens FOLDER_PATH (the
 * header's subtitle is hidden in a wide window); FOLDER_PATH NULL hides it. */
void        hl_summary_view_set_saved_in   (HlSummaryView *self,
                                            const char    *folder_path,
                                            const char    *shown);
/* The line's text as shown, or NULL when hidden (for tests). */
const char *hl_summary_view_get_saved_in   (HlSummaryView *self);
/* The sentence under the cards that splits the RSS (where the memory the
 * system sees goes); NULL hides it. */
void        hl_summary_view_set_memory     (HlSummaryView *self,
                                            const char    *sentence);
/* The sentence as shown, or NULL when hidden (for tests). */
const char *hl_summary_view_get_memory     (HlSummaryView *self);
/* One number of the totals: ID is stable ("duration", "calls", ...), VALUE
 * the big text, DETAIL the small text under it (may be NULL). */
void        hl_summary_view_set_stat       (HlSummaryView *self,
                                            const char    *id,
                                            const char    *caption,
                                            const char    *value,
                                            const char    *detail);
/* The value text of stat ID, or NULL (for tests). */
const char *hl_summary_view_get_stat       (HlSummaryView *self,
                                            const char    *id);
/* The caption of stat ID (the card's title), or NULL (for tests). */
const char *hl_summary_view_get_stat_caption (HlSummaryView *self,
                                              const char    *id);
/* The detail text of stat ID, or NULL (for tests). */
const char *hl_summary_view_get_stat_detail (HlSummaryView *self,
                                             const char    *id);

/* The top list of cost COST (an index the window gives meaning to):
 * replaced by N rows of FUNCTIONS, MODULES and VALUES (display texts). */
void        hl_summary_view_set_top        (HlSummaryView      *self,
                                            guint               cost,
                                            const char         *title,
                                            guint               n,
                                            const char * const *functions,
                                            const char * const *modules,
                                            const char * const *values);
void        hl_summary_view_clear          (HlSummaryView *self);
/* Title of top list COST, and the function and value texts of its row
 * ROW, or NULL (for tests). */
const char *hl_summary_view_get_top_title  (HlSummaryView *self,
                                            guint          cost);
const char *hl_summary_view_get_top_row    (HlSummaryView *self,
                                            guint          cost,
                                            guint          row,
                                            const char   **value);
/* The table of threads: N ROWS, then MORE (NULL: none) saying what is
 * not shown; hidden when N is 0. A click on a row emits
 * "thread-activated" with its thread id. */
void        hl_summary_view_set_threads    (HlSummaryView            *self,
                                            const char               *not_freed_title,
                                            guint                     n,
                                            const HlSummaryThreadRow *rows,
                                            const char               *more);
/* The table (hl-summary-threads.h reads it), or NULL while it is hidden
 * (for tests). */
GtkWidget  *hl_summary_view_get_threads    (HlSummaryView *self);
/* Activates row ROW of top list COST as a click would (for tests). */
void        hl_summary_view_activate_top   (HlSummaryView *self,
                                            guint          cost,
                                            guint          row);

G_END_DECLS
