/* hl-flame-view.h — the flame graph page: cost, inversion, colours, search,
 * breadcrumb of the zoom path, and the graph. */
#pragma once

#include <gtk/gtk.h>

#include "hl-flame-graph.h"
#include "hl-lifetime-slider.h"

G_BEGIN_DECLS

#define HL_TYPE_FLAME_VIEW (hl_flame_view_get_type ())
G_DECLARE_FINAL_TYPE (HlFlameView, hl_flame_view, HL, FLAME_VIEW, GtkWidget)

HlFlameGraph *hl_flame_view_get_graph      (HlFlameView        *self);
/* Names of the costs offered; "cost-changed" says which one is chosen. */
void          hl_flame_view_set_costs      (HlFlameView        *self,
                                            const char * const *labels);
guint         hl_flame_view_get_cost       (HlFlameView        *self);
void          hl_flame_view_set_cost       (HlFlameView        *self,
                                            guint               cost);
/* The cost (an index of the labels) whose T the lifetime slider beside
 * the costs sets, shown while it is chosen; "lifetime-changed" (guint64
 * ns) says where the slider came to rest. G_MAXUINT (the default): none. */
void          hl_flame_view_set_lifetime_cost (HlFlameView     *self,
                                               guint            cost);
HlLifetimeSlider *hl_flame_view_get_lifetime_slider (HlFlameView *self);
/* Replaces the data, keeping the zoom on the same path of names when it
 * still exists (a filter changed, not the recording). */
void          hl_flame_view_set_data       (HlFlameView        *self,
                                            HlFlameData        *data);
void          hl_flame_view_focus_search   (HlFlameView        *self);
void          hl_flame_view_set_search     (HlFlameView        *self,
                                            const char         *text);
/* Text of the breadcrumb, names joined by " › " (for tests). */
char         *hl_flame_view_get_breadcrumb (HlFlameView        *self);
const char   *hl_flame_view_get_search_summary (HlFlameView    *self);

/* The text next to the search entry, when the caller knows better than
 * "share of the total" (a diff shows A and B); NULL = the default. Set it
 * before the set_data() it belongs to: it is used from then on. */
typedef char *(*HlFlameSearchSummaryFunc) (HlFlameData *data,
                                           const char  *search,
                                           gpointer     user_data);
void          hl_flame_view_set_search_summary_func (HlFlameView              *self,
                                                     HlFlameSearchSummaryFunc  func,
                                                     gpointer                  user_data,
                                                     GDestroyNotify            notify);
/* Hides the colour choice (a diff colours by growth). */
void          hl_flame_view_set_colors_visible (HlFlameView    *self,
                                                gboolean        visible);

G_END_DECLS
