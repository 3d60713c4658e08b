/* hl-call-tree-view.h — call tree tables: top-down, bottom-up, with
 * sortable cost columns and the full stack of the selected row; and
 * Callers/Callees, the flat function list (an HlFunctionsView). */
#pragma once

#include <gtk/gtk.h>

#include "hl-functions-view.h"
#include "hl-tree-row.h"

G_BEGIN_DECLS

typedef enum
{
  HL_CALL_TREE_MODE_TOP_DOWN,
  HL_CALL_TREE_MODE_BOTTOM_UP,
  HL_CALL_TREE_MODE_CALLER_CALLEE,
} HlCallTreeMode;

#define HL_TYPE_CALL_TREE_VIEW (hl_call_tree_view_get_type ())
G_DECLARE_FINAL_TYPE (HlCallTreeView, hl_call_tree_view, HL, CALL_TREE_VIEW, GtkWidget)

/* The tree shown: ROOT's children are the top-level rows. */
void           hl_call_tree_view_set_root     (HlCallTreeView *self,
                                               HlTreeRow      *root);
HlCallTreeMode hl_call_tree_view_get_mode     (HlCallTreeView *self);
void           hl_call_tree_view_set_mode     (HlCallTreeView *self,
                                               HlCallTreeMode  mode);
/* The Callers/Callees page (the window fills it). */
HlFunctionsView *hl_call_tree_view_get_functions_view (HlCallTreeView *self);
/* Its search entry, in the bar in that mode. */
GtkEditable     *hl_call_tree_view_get_function_search (HlCallTreeView *self);
/* Expands the rows along NAMES (from the top level down) and selects the
 * last one found; returns how many names were found. */
guint          hl_call_tree_view_reveal_path  (HlCallTreeView     *self,
                                               const char * const *names,
                                               guint               n_names);
/* The rows expanded now, each as its names from the top level down (a
 * new array of GStrv, in the rows' order), and in *SELECTED the selected
 * row's (a new GStrv, NULL: none): what hl_call_tree_view_open_paths ()
 * opens again in a rebuilt tree. */
/* What names the rows of frames not symbolized (hl_tree_row_get_address)
 * take in get_open_paths: the functions FUNC gives their address in the
 * tree about to be shown (a live tree rebuilt, or become its trace's),
 * or NULL: their own name. */
typedef GStrv (*HlCallTreeResolveFunc) (gpointer user_data,
                                        guint64  address);
void           hl_call_tree_view_set_resolver (HlCallTreeView        *self,
                                               HlCallTreeResolveFunc  func,
                                               gpointer               user_data,
                                               GDestroyNotify         destroy);
GPtrArray     *hl_call_tree_view_get_open_paths (HlCallTreeView   *self,
                                                 char           ***selected);
/* Expands each of PATHS where the tree has it whole, then reveals and
 * selects SELECTED (when one path opened); returns how many opened. */
guint          hl_call_tree_view_open_paths   (HlCallTreeView     *self,
                                               GPtrArray          *paths,
                                               const char * const *selected);
HlTreeRow     *hl_call_tree_view_get_selected (HlCallTreeView *self);
/* The visible rows (for tests): a GListModel of GtkTreeListRow. */
GListModel    *hl_call_tree_view_get_rows     (HlCallTreeView *self);
GtkColumnView *hl_call_tree_view_get_column_view (HlCallTreeView *self);
const char    *hl_call_tree_view_get_stack_text  (HlCallTreeView *self);
/* The columns shown, by their ids (hl-tree-columns.h: "location",
 * "bytes", "bytes-self"…; Function is always shown), the "columns"
 * property the chooser sets; NULL: the defaults. Both trees and the
 * Callers/Callees tables show them; mmap's while the tree maps
 * something. */
const char * const *hl_call_tree_view_get_columns (HlCallTreeView     *self);
void           hl_call_tree_view_set_columns  (HlCallTreeView     *self,
                                               const char * const *columns);
/* Sorts by COST, descending. */
void           hl_call_tree_view_sort_by_cost (HlCallTreeView *self,
                                               HlCostKind          cost);
/* Opens every row, top to bottom, until HL_CALL_TREE_EXPAND_ALL_MAX rows
 * are open (a deep tree of a long run has millions); the rows shown. The
 * "tree.expand-all" action. */
#define HL_CALL_TREE_EXPAND_ALL_MAX 5000
guint          hl_call_tree_view_expand_all   (HlCallTreeView *self);
/* Opens the heaviest path for the sorted column: the first row, its
 * first child, and so on, at most MAX_DEPTH levels; the levels opened.
 * The window calls it when a new tree is shown. */
#define HL_CALL_TREE_HEAVIEST_DEPTH 32
guint          hl_call_tree_view_expand_heaviest (HlCallTreeView *self,
                                                  guint           max_depth);
/* "12.3 MiB  45.1 %" as the cost cells show it. */
char          *hl_call_tree_format_cell       (HlTreeRow      *row,
                                               HlCostKind          cost);
/* The Self column's cell: the row's own cost, "" where it is not known
 * (callers and callees). */
char          *hl_call_tree_format_self_cell  (HlTreeRow      *row,
                                               HlCostKind      cost);
/* The Location column's cell: "file.c:42 · module" (the file's basename),
 * the module alone where the frame has no line info. */
char          *hl_call_tree_format_location   (HlTreeRow      *row);

G_END_DECLS
