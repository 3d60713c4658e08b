/* hl-diff-tree.c — two call trees merged by function + module. */
#include "hl-diff-tree.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  const HlFrame *frame;
  guint          parent;
  HlCosts        a;
  HlCosts        b;
  GArray        *children;   /* guint, NULL when none */
} DiffNode;

struct _HlDiffTree
{
  gatomicrefcount ref_count;
  HlCostKind      sort_by;
  GArray         *nodes;     /* DiffNode */
};

G_DEFINE_BOXED_TYPE (HlDiffTree, hl_diff_tree, hl_diff_tree_ref, hl_diff_tree_unref)

static gboolean
same (const HlFrame *x,
      const HlFrame *y)
{
  return hl_frame_same_function (x, y) && x->is_inline == y->is_inline;
}

static guint
add_node (HlDiffTree    *self,
          guint          parent,
          const HlFrame *frame)
{
  DiffNode n = { .frame = frame, .parent = parent };
  guint index = self->nodes->len;

  g_array_append_val (self->nodes, n);
  if (parent != G_MAXUINT)
    {
      DiffNode *p = &g_array_index (self->nodes, DiffNode, parent);
      if (p->children == NULL)
        p->children = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_val (p->children, index);
    }
  return index;
}

/* Adds the subtree of NODE in TREE (side 0 = a, 1 = b) under DIFF. */
static void
merge (HlDiffTree       *self,
       const HlCallTree *tree,
       HlCallNode        node,
       guint             diff,
       int               side)
{
  guint n = hl_call_tree_get_n_children (tree, node);
  DiffNode *d = &g_array_index (self->nodes, DiffNode, diff);

  if (side == 0)
    d->a = *hl_call_tree_get_costs (tree, node);
  else
    d->b = *hl_call_tree_get_costs (tree, node);

  for (guint i = 0; i < n; i++)
    {
      HlCallNode c = hl_call_tree_get_child (tree, node, i);
      const HlFrame *frame = hl_call_tree_get_frame (tree, c);
      guint match = G_MAXUINT;
      GArray *kids = g_array_index (self->nodes, DiffNode, diff).children;

      for (guint k = 0; kids != NULL && k < kids->len; k++)
        {
          guint idx = g_array_index (kids, guint, k);
          if (same (g_array_index (self->nodes, DiffNode, idx).frame, frame))
            {
              match = idx;
              break;
            }
        }
      if (match == G_MAXUINT)
        match = add_node (self, diff, frame);
      merge (self, tree, c, match, side);
    }
}

static gint64
delta (const DiffNode *n,
       HlCostKind      kind)
{
  return (gint64) hl_costs_get (&n->b, kind) - (gint64) hl_costs_get (&n->a, kind);
}

static int
compare_children (gconstpointer x,
                  gconstpointer y,
                  gpointer      user_data)
{
  HlDiffTree *self = user_data;
  const DiffNode *a = &g_array_index (self->nodes, DiffNode, *(const guint *) x);
  const DiffNode *b = &g_array_index (self->nodes, DiffNode, *(const guint *) y);
  guint64 da = (guint64) llabs (delta (a, self->sort_by));
  guint64 db = (guint64) llabs (delta (b, self->sort_by));

  if (da != db)
    return da > db ? -1 : 1;
  return strcmp (a->frame->function, b->frame->function);
}

HlDiffTree *
hl_diff_tree_new (HlAnalysis     *a,
                  HlAnalysis     *b,
                  HlCallTreeKind  kind,
                  HlCostKind      sort_by)
{
  g_autoptr (HlCallTree) ta = NULL;
  g_autoptr (HlCallTree) tb = NULL;
  HlDiffTree *self;

  g_return_val_if_fail (HL_IS_ANALYSIS (a) && HL_IS_ANALYSIS (b), NULL);
  g_return_val_if_fail (sort_by < HL_N_COST_KINDS, NULL);

  ta = hl_analysis_get_call_tree (a, kind, sort_by);
  tb = hl_analysis_get_call_tree (b, kind, sort_by);
  self = g_new0 (HlDiffTree, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->sort_by = sort_by;
  self->nodes = g_array_new (FALSE, TRUE, sizeof (DiffNode));
  add_node (self, G_MAXUINT, NULL);
  merge (self, ta, 0, 0, 0);
  merge (self, tb, 0, 0, 1);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      GArray *kids = g_array_index (self->nodes, DiffNode, i).children;
      if (kids != NULL)
        g_array_sort_with_data (kids, compare_children, self);
    }
  return self;
}

HlDiffTree *
hl_diff_tree_ref (HlDiffTree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_ref_count_inc (&tree->ref_count);
  return tree;
}

void
hl_diff_tree_unref (HlDiffTree *tree)
{
  g_return_if_fail (tree != NULL);
  if (!g_atomic_ref_count_dec (&tree->ref_count))
    return;
  for (guint i = 0; i < tree->nodes->len; i++)
    g_clear_pointer (&g_array_index (tree->nodes, DiffNode, i).children, g_array_unref);
  g_array_unref (tree->nodes);
  g_free (tree);
}

static const DiffNode *
node_at (const HlDiffTree *tree,
         guint             node)
{
  g_return_val_if_fail (node < tree->nodes->len, &g_array_index (tree->nodes, DiffNode, 0));
  return &g_array_index (tree->nodes, DiffNode, node);
}

guint
hl_diff_tree_get_n_nodes (const HlDiffTree *tree)
{
  return tree->nodes->len;
}

const HlFrame *
hl_diff_tree_get_frame (const HlDiffTree *tree,
                        guint             node)
{
  return node_at (tree, node)->frame;
}

guint
hl_diff_tree_get_parent (const HlDiffTree *tree,
                         guint             node)
{
  return node_at (tree, node)->parent;
}

guint
hl_diff_tree_get_n_children (const HlDiffTree *tree,
                             guint             node)
{
  const DiffNode *n = node_at (tree, node);
  return n->children != NULL ? n->children->len : 0;
}

guint
hl_diff_tree_get_child (const HlDiffTree *tree,
                        guint             node,
                        guint             i)
{
  const DiffNode *n = node_at (tree, node);

  g_return_val_if_fail (n->children != NULL && i < n->children->len, G_MAXUINT);
  return g_array_index (n->children, guint, i);
}

const HlCosts *
hl_diff_tree_get_costs_a (const HlDiffTree *tree,
                          guint             node)
{
  return &node_at (tree, node)->a;
}

const HlCosts *
hl_diff_tree_get_costs_b (const HlDiffTree *tree,
                          guint             node)
{
  return &node_at (tree, node)->b;
}

gint64
hl_diff_tree_get_delta (const HlDiffTree *tree,
                        guint             node,
                        HlCostKind        kind)
{
  return delta (node_at (tree, node), kind);
}
