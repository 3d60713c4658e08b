/* hl-tree-columns.h — the columns of the call trees and of Callers and
 * Callees as the column chooser names them: their ids, which are shown,
 * and the chooser's menu and actions. */
#pragma once

#include <gtk/gtk.h>

#include "hl-cost.h"

G_BEGIN_DECLS

/* The tables' columns, in their order: Function, Location, then per
 * cost (the tree's costs, then mmap) its total ("bytes") and its Self
 * ("bytes-self"). Function is always shown. */
#define HL_TREE_COLUMN_FUNCTION "function"
#define HL_TREE_COLUMN_LOCATION "location"

/* The prefix of the chooser's actions: "columns.ID", a stateful boolean
 * action per column. */
#define HL_TREE_COLUMNS_ACTION_PREFIX "columns"

/* The costs with columns: the HL_N_TREE_COSTS kinds, then MMAP. */
#define HL_TREE_COLUMNS_N_COSTS (HL_N_TREE_COSTS + 1)
HlCostKind          hl_tree_columns_cost       (guint       i);
/* A cost's total column's id or its Self column's (static strings). */
const char         *hl_tree_columns_id         (HlCostKind  cost,
                                                gboolean    self_column);
/* Every column's id, Function first (static, NULL-terminated). */
const char * const *hl_tree_columns_all        (void);
/* The columns shown by default: with the stack beside them they fit a
 * 1400 px window (static, NULL-terminated; the tree-columns setting's
 * default). */
const char * const *hl_tree_columns_default    (void);
/* The known ids of COLUMNS (NULL: the defaults) in the tables' order,
 * without Function and without duplicates (a new GStrv): a setting may
 * hold ids of another version. */
char              **hl_tree_columns_normalize  (const char * const *columns);
/* Whether COLUMNS (NULL: the defaults) shows ID; Function always. */
gboolean            hl_tree_columns_shows      (const char * const *columns,
                                                const char         *id);
/* The chooser's name of a column (a new string): its header, "Leaked
 * Self" for a Self column. */
char               *hl_tree_columns_label      (const char *id);
/* The header of COST's Self column (a new string): "Self" beside its
 * total, in full ("Leaked Self") when COLUMNS hides the total. */
char               *hl_tree_columns_self_title (const char * const *columns,
                                                HlCostKind          cost);
/* The chooser's menu: a section of check items per cost, each named
 * by hl_tree_columns_label and activating "columns.ID". */
GMenuModel         *hl_tree_columns_new_menu   (void);
/* Inserts the chooser's actions in WIDGET, as "columns.ID": they show
 * and set WIDGET's "columns" property (a GStrv of ids). An action's
 * state says whether WIDGET shows its column, and changing it adds or
 * takes off the column; Function's is checked and disabled. */
void                hl_tree_columns_insert_actions (GtkWidget *widget);

G_END_DECLS
