/* hl-functions-view.h — Callers/Callees: every function of the selection
 * in a flat list with its self and total costs (sortable by every column,
 * searched by name: the search entry is its owner's), and below it the callers and the callees of the one
 * chosen, with the costs of the stacks through each edge. It shows what
 * it is given: the window builds the lists (hl-functions-build.h). */
#pragma once

#include <gtk/gtk.h>

#include "hl-function-row.h"

G_BEGIN_DECLS

#define HL_TYPE_FUNCTIONS_VIEW (hl_functions_view_get_type ())
G_DECLARE_FINAL_TYPE (HlFunctionsView, hl_functions_view, HL, FUNCTIONS_VIEW, GtkWidget)

/* ROWS: a GListModel of HlFunctionRow; TOTALS are the 100 % of the
 * percentages. The search stays; the function chosen before (or the
 * focus, or else the first row) is chosen again. */
void           hl_functions_view_set_functions  (HlFunctionsView *self,
                                                 GListModel      *rows,
                                                 const HlCosts   *totals);
/* The callers and callees of OF (the row chosen; lists of HlFunctionRow). */
void           hl_functions_view_set_neighbours (HlFunctionsView *self,
                                                 HlFunctionRow   *of,
                                                 GListModel      *callers,
                                                 GListModel      *callees);
/* Chooses the function named NAME now, or when the list it is in comes. */
void           hl_functions_view_set_focus      (HlFunctionsView *self,
                                                 const char      *name);
/* Chooses the row of the function of FRAME (same name and module), the
 * search cleared when it hides it; FALSE when it is not in the list. */
gboolean       hl_functions_view_select_frame   (HlFunctionsView *self,
                                                 const HlFrame   *frame);
/* The chosen row (borrowed), or NULL. */
HlFunctionRow *hl_functions_view_get_selected   (HlFunctionsView *self);
/* The "search" property: the rows shown are the functions whose name
 * holds TEXT (any case); NULL or "": all. Filtered incrementally. */
void           hl_functions_view_set_search     (HlFunctionsView *self,
                                                 const char      *text);
const char    *hl_functions_view_get_search     (HlFunctionsView *self);
/* The "count-text" property: "1,024 functions", "12 of 1,024 functions". */
const char    *hl_functions_view_get_count_text (HlFunctionsView *self);
/* Sorts the list by COST, its Self column when SELF_COLUMN, descending. */
void           hl_functions_view_sort_by        (HlFunctionsView *self,
                                                 HlCostKind       cost,
                                                 gboolean         self_column);
/* Shows the columns COLUMNS names (the call tree view's chooser,
 * hl-tree-columns.h; NULL: the defaults); a caller's or callee's cost
 * while the cost's total or Self column is shown. */
void           hl_functions_view_set_columns    (HlFunctionsView    *self,
                                                 const char * const *columns);

/* For tests: the rows shown (sorted and searched), the callers' and the
 * callees' rows, the list. */
GListModel    *hl_functions_view_get_rows       (HlFunctionsView *self);
GListModel    *hl_functions_view_get_callers    (HlFunctionsView *self);
GListModel    *hl_functions_view_get_callees    (HlFunctionsView *self);
GtkColumnView *hl_functions_view_get_list       (HlFunctionsView *self);

G_END_DECLS
