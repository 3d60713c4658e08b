/* hl-tree-row.h — one row of a call tree table: a frame and its costs.
 *
 * Rows are created on demand: a row knows how to make its children (a
 * function given by whoever built the root, normally an adapter over the
 * model), and GtkTreeListModel asks only when a row is expanded. */
#pragma once

#include <gio/gio.h>

#include "hl-cost.h"

G_BEGIN_DECLS

#define HL_TYPE_TREE_ROW (hl_tree_row_get_type ())
G_DECLARE_FINAL_TYPE (HlTreeRow, hl_tree_row, HL, TREE_ROW, GObject)

/* Returns a new list of HlTreeRow, the children of ROW (or NULL for none). */
typedef GListModel *(*HlTreeRowChildrenFunc) (HlTreeRow *row,
                                              gpointer   user_data);

typedef struct
{
  const char *name;
  const char *module;
  const char *file;
  guint       line;
  gboolean    is_inline;
  gboolean    has_children;
  guint64     costs[HL_N_COST_KINDS];       /* inclusive (Total) */
  gboolean    has_self;                     /* self_costs are known */
  guint64     self_costs[HL_N_COST_KINDS];  /* of the stacks ending here */
  gpointer    node;           /* the model's node, borrowed */
  guint64     address;        /* a frame not symbolized: its return
                               * address (absolute); 0 otherwise */
} HlTreeRowInfo;

/* A root: TOTALS are the 100 % of the percentage columns. FUNC makes
 * children for the whole tree; DATA lives as long as the tree (DESTROY). */
HlTreeRow  *hl_tree_row_new_root   (const HlTreeRowInfo   *info,
                                    const guint64          totals[HL_N_COST_KINDS],
                                    HlTreeRowChildrenFunc  func,
                                    gpointer               data,
                                    GDestroyNotify         destroy);
/* A child of PARENT (used by children functions). */
HlTreeRow  *hl_tree_row_new_child  (HlTreeRow             *parent,
                                    const HlTreeRowInfo   *info);

const char *hl_tree_row_get_name       (HlTreeRow *self);
const char *hl_tree_row_get_module     (HlTreeRow *self);
const char *hl_tree_row_get_file       (HlTreeRow *self);
guint       hl_tree_row_get_line       (HlTreeRow *self);
gboolean    hl_tree_row_get_is_inline  (HlTreeRow *self);
gboolean    hl_tree_row_has_children   (HlTreeRow *self);
guint64     hl_tree_row_get_cost       (HlTreeRow *self,
                                        HlCostKind     cost);
guint64     hl_tree_row_get_total      (HlTreeRow *self,
                                        HlCostKind     cost);
/* The row's own cost, without its children's (its cost = self + the
 * children's costs, where has_self); 0 where not known. */
gboolean    hl_tree_row_has_self       (HlTreeRow *self);
guint64     hl_tree_row_get_self_cost  (HlTreeRow *self,
                                        HlCostKind     cost);
gpointer    hl_tree_row_get_node       (HlTreeRow *self);
/* The return address of a frame not symbolized, 0 for others. */
guint64     hl_tree_row_get_address    (HlTreeRow *self);
HlTreeRow  *hl_tree_row_get_parent     (HlTreeRow *self);
guint       hl_tree_row_get_depth      (HlTreeRow *self);
/* New list of the row's children (calls the tree's function), or NULL. */
GListModel *hl_tree_row_create_children (HlTreeRow *self);
/* "name — file:line (module)" */
char       *hl_tree_row_describe       (HlTreeRow *self);

G_END_DECLS
