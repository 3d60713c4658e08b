/* hl-diff-row.c — one call path of a diff, as a list item. */
#include "hl-config.h"

#include <math.h>

#include "hl-diff-row.h"

struct _HlDiffRow
{
  GObject     parent_instance;
  HlDiffTree *tree;
  guint       node;
  HlCostKind  kind;
};

G_DEFINE_FINAL_TYPE (HlDiffRow, hl_diff_row, G_TYPE_OBJECT)

static guint64
cost_of (const HlCosts *costs,
         HlCostKind     kind)
{
  return costs != NULL ? hl_costs_get (costs, kind) : 0;
}

HlDiffRow *
hl_diff_row_new (HlDiffTree *tree,
                 guint       node,
                 HlCostKind  kind)
{
  HlDiffRow *self = g_object_new (HL_TYPE_DIFF_ROW, NULL);

  self->tree = hl_diff_tree_ref (tree);
  self->node = node;
  self->kind = kind;
  return self;
}

guint
hl_diff_row_get_node (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return self->node;
}

const char *
hl_diff_row_get_name (HlDiffRow *self)
{
  const HlFrame *f;

  g_return_val_if_fail (HL_IS_DIFF_ROW (self), NULL);
  f = hl_diff_tree_get_frame (self->tree, self->node);
  return f != NULL ? f->function : "";
}

guint64
hl_diff_row_get_a (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return cost_of (hl_diff_tree_get_costs_a (self->tree, self->node), self->kind);
}

guint64
hl_diff_row_get_b (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return cost_of (hl_diff_tree_get_costs_b (self->tree, self->node), self->kind);
}

gint64
hl_diff_row_get_delta (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return hl_diff_tree_get_delta (self->tree, self->node, self->kind);
}

guint64
hl_diff_row_get_self_a (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return cost_of (hl_diff_tree_get_self_costs_a (self->tree, self->node), self->kind);
}

guint64
hl_diff_row_get_self_b (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return cost_of (hl_diff_tree_get_self_costs_b (self->tree, self->node), self->kind);
}

gint64
hl_diff_row_get_self_delta (HlDiffRow *self)
{
  g_return_val_if_fail (HL_IS_DIFF_ROW (self), 0);
  return hl_diff_tree_get_self_delta (self->tree, self->node, self->kind);
}

double
hl_diff_row_get_change (HlDiffRow *self)
{
  guint64 a = hl_diff_row_get_a (self);
  gint64 d = hl_diff_row_get_delta (self);

  if (a == 0)
    return d > 0 ? INFINITY : 0.0;
  return (double) d / (double) a;
}

GListModel *
hl_diff_row_get_children (HlDiffRow *self)
{
  GListStore *store = NULL;
  guint n;

  g_return_val_if_fail (HL_IS_DIFF_ROW (self), NULL);
  n = hl_diff_tree_get_n_children (self->tree, self->node);
  for (guint i = 0; i < n; i++)
    {
      guint child = hl_diff_tree_get_child (self->tree, self->node, i);
      g_autoptr(HlDiffRow) row = NULL;

      if (cost_of (hl_diff_tree_get_costs_a (self->tree, child), self->kind) == 0
          && cost_of (hl_diff_tree_get_costs_b (self->tree, child), self->kind) == 0)
        continue;
      if (store == NULL)
        store = g_list_store_new (HL_TYPE_DIFF_ROW);
      row = hl_diff_row_new (self->tree, child, self->kind);
      g_list_store_append (store, row);
    }
  return store != NULL ? G_LIST_MODEL (store) : NULL;
}

static void
hl_diff_row_finalize (GObject *object)
{
  HlDiffRow *self = HL_DIFF_ROW (object);

  g_clear_pointer (&self->tree, hl_diff_tree_unref);
  G_OBJECT_CLASS (hl_diff_row_parent_class)->finalize (object);
}

static void
hl_diff_row_class_init (HlDiffRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hl_diff_row_finalize;
}

static void
hl_diff_row_init (HlDiffRow *self)
{
}
