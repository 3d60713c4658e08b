/* hl-flame-graph.h — the flame graph widget: zoom, search, tooltips, keyboard. */
#pragma once

#include <gtk/gtk.h>

#include "hl-flame-data.h"
#include "hl-flame-graph-draw.h"

G_BEGIN_DECLS

#define HL_TYPE_FLAME_GRAPH (hl_flame_graph_get_type ())
G_DECLARE_FINAL_TYPE (HlFlameGraph, hl_flame_graph, HL, FLAME_GRAPH, GtkWidget)

GtkWidget   *hl_flame_graph_new          (void);
void         hl_flame_graph_set_data     (HlFlameGraph *self,
                                          HlFlameData  *data);
HlFlameData *hl_flame_graph_get_data     (HlFlameGraph *self);
void         hl_flame_graph_set_inverted (HlFlameGraph *self,
                                          gboolean      inverted);
gboolean     hl_flame_graph_get_inverted (HlFlameGraph *self);
void         hl_flame_graph_set_colors   (HlFlameGraph *self,
                                          HlFlameColors colors);
HlFlameColors hl_flame_graph_get_colors  (HlFlameGraph *self);
void         hl_flame_graph_set_search   (HlFlameGraph *self,
                                          const char   *search);
const char  *hl_flame_graph_get_search   (HlFlameGraph *self);
/* The node that fills the width (0 = the root). */
void         hl_flame_graph_set_zoom     (HlFlameGraph *self,
                                          guint         node);
guint        hl_flame_graph_get_zoom     (HlFlameGraph *self);
/* Zoom to the parent of the zoomed node; FALSE at the root. */
gboolean     hl_flame_graph_zoom_out     (HlFlameGraph *self);
void         hl_flame_graph_set_selected (HlFlameGraph *self,
                                          gint          node);
gint         hl_flame_graph_get_selected (HlFlameGraph *self);
/* What a primary click at (X, Y) does: select and zoom into the frame there
 * (the gesture calls this; tests too). Returns the node or -1. */
gint         hl_flame_graph_click        (HlFlameGraph *self,
                                          double        x,
                                          double        y);
/* Move the selection: DX to the neighbour frame on the same row, DY towards
 * the leaves (+1) or the root (-1). */
void         hl_flame_graph_move_selection (HlFlameGraph *self,
                                            int           dx,
                                            int           dy);
/* The tooltip text for NODE (markup). */
char        *hl_flame_graph_describe_node (HlFlameGraph *self,
                                           guint         node);
/* Markup of the tooltip of NODE, when the caller describes nodes itself. */
typedef char *(*HlFlameDescribeFunc) (const HlFlameData *data,
                                      guint              node,
                                      gpointer           user_data);
/* Colours and tooltips from the caller (a diff); NULL funcs restore the
 * defaults. NOTIFY frees USER_DATA when replaced or on dispose. */
void         hl_flame_graph_set_node_funcs (HlFlameGraph       *self,
                                            HlFlameColorFunc    color_func,
                                            HlFlameDescribeFunc describe_func,
                                            gpointer            user_data,
                                            GDestroyNotify      notify);
/* The style the widget draws with (colours, search, selection, font). */
void         hl_flame_graph_get_style     (HlFlameGraph    *self,
                                           HlFlameStyle    *style);
void         hl_flame_graph_get_viewport  (HlFlameGraph    *self,
                                           HlFlameViewport *viewport);

G_END_DECLS
