/* hl-call-tree.c — compact, sorted call trees over a recording's trie. */
#include "hl-call-tree-private.h"

#include <string.h>

typedef struct
{
  const HlFrame *frame;
  guint          parent;
  guint          depth;
  guint          first_child;   /* into children */
  guint          n_children;
  HlCosts        costs;
  HlCosts        self;
} Node;

struct _HlCallTree
{
  gatomicrefcount ref_count;
  HlCallTreeKind  kind;
  HlCostKind      sort_by;
  GArray         *nodes;     /* Node */
  GArray         *children;  /* guint */
};

G_DEFINE_BOXED_TYPE (HlCallTree, hl_call_tree, hl_call_tree_ref, hl_call_tree_unref)

HlCallTree *
hl_call_tree_ref (HlCallTree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_ref_count_inc (&tree->ref_count);
  return tree;
}

void
hl_call_tree_unref (HlCallTree *tree)
{
  g_return_if_fail (tree != NULL);
  if (!g_atomic_ref_count_dec (&tree->ref_count))
    return;
  g_array_unref (tree->nodes);
  g_array_unref (tree->children);
  g_free (tree);
}

typedef struct
{
  const HlTrie  *trie;
  const HlCosts *node_costs;
  HlCostKind     sort_by;
} SortCtx;

static int
compare_trie_nodes (gconstpointer a,
                    gconstpointer b,
                    gpointer      user_data)
{
  const SortCtx *ctx = user_data;
  guint32 na = *(const guint32 *) a, nb = *(const guint32 *) b;
  guint64 ca = hl_costs_get (&ctx->node_costs[na], ctx->sort_by);
  guint64 cb = hl_costs_get (&ctx->node_costs[nb], ctx->sort_by);
  const HlTrieNode *ta = &g_array_index (ctx->trie->nodes, HlTrieNode, na);
  const HlTrieNode *tb = &g_array_index (ctx->trie->nodes, HlTrieNode, nb);
  int r;

  if (ca != cb)
    return ca > cb ? -1 : 1;
  r = strcmp (ta->frame->pub.function, tb->frame->pub.function);
  if (r != 0)
    return r;
  return na < nb ? -1 : na > nb;
}

HlCallTree *
hl_call_tree_build (const HlTrie   *trie,
                    HlCallTreeKind  kind,
                    HlCostKind      sort_by,
                    const HlCosts  *stack_costs,
                    guint           n_stacks,
                    const HlCosts  *totals)
{
  HlCallTree *tree = g_new0 (HlCallTree, 1);
  guint n_trie = trie->nodes->len;
  g_autofree HlCosts *node_costs = g_new0 (HlCosts, n_trie);
  g_autofree HlCosts *self_costs = g_new0 (HlCosts, n_trie);
  g_autoptr (GArray) work = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));
  SortCtx ctx = { trie, NULL, sort_by };
  Node root = { 0 };

  g_atomic_ref_count_init (&tree->ref_count);
  tree->kind = kind;
  tree->sort_by = sort_by;
  tree->nodes = g_array_new (FALSE, TRUE, sizeof (Node));
  tree->children = g_array_new (FALSE, FALSE, sizeof (guint));

  /* Inclusive costs: each stack adds to every node of its path. */
  for (guint s = 1; s < n_stacks && s < trie->n_stacks; s++)
    {
      const HlCosts *c = &stack_costs[s];
      guint32 node = trie->stack_leaf[s];

      if (c->allocations == 0)
        continue;
      hl_costs_add (&self_costs[node], c);
      for (; node != 0; node = g_array_index (trie->nodes, HlTrieNode, node).parent)
        hl_costs_add (&node_costs[node], c);
    }
  node_costs[0] = *totals;
  self_costs[0] = stack_costs[0];
  ctx.node_costs = node_costs;

  /* Pre-order walk: each entry is (trie node, tree parent). */
  root.parent = HL_CALL_NODE_NONE;
  root.costs = node_costs[0];
  root.self = self_costs[0];
  g_array_append_val (tree->nodes, root);
  {
    guint32 pair[2] = { 0, 0 };
    g_array_append_val (work, pair);
  }
  /* Breadth-first so children of a node are contiguous in `children`. */
  for (guint w = 0; w < work->len; w++)
    {
      guint32 tnode = ((guint32 *) work->data)[2 * w];
      guint32 index = ((guint32 *) work->data)[2 * w + 1];
      const HlTrieNode *tn = &g_array_index (trie->nodes, HlTrieNode, tnode);
      Node *parent;

      g_array_set_size (kids, 0);
      for (guint32 c = tn->first_child; c != 0; c = g_array_index (trie->nodes, HlTrieNode, c).next_sibling)
        if (node_costs[c].allocations > 0)
          g_array_append_val (kids, c);
      g_array_sort_with_data (kids, compare_trie_nodes, &ctx);

      parent = &g_array_index (tree->nodes, Node, index);
      parent->first_child = tree->children->len;
      parent->n_children = kids->len;
      for (guint k = 0; k < kids->len; k++)
        {
          guint32 c = g_array_index (kids, guint32, k);
          Node n = { 0 };
          guint32 pair[2];
          guint new_index = tree->nodes->len;

          n.frame = &g_array_index (trie->nodes, HlTrieNode, c).frame->pub;
          n.parent = index;
          n.depth = g_array_index (tree->nodes, Node, index).depth + 1;
          n.costs = node_costs[c];
          n.self = self_costs[c];
          g_array_append_val (tree->nodes, n);
          g_array_append_val (tree->children, new_index);
          pair[0] = c;
          pair[1] = new_index;
          g_array_append_val (work, pair);
        }
    }
  return tree;
}

static const Node *
node_at (const HlCallTree *tree,
         HlCallNode        node)
{
  g_return_val_if_fail (node < tree->nodes->len, &g_array_index (tree->nodes, Node, 0));
  return &g_array_index (tree->nodes, Node, node);
}

HlCallTreeKind
hl_call_tree_get_kind (const HlCallTree *tree)
{
  return tree->kind;
}

HlCostKind
hl_call_tree_get_sort_kind (const HlCallTree *tree)
{
  return tree->sort_by;
}

guint
hl_call_tree_get_n_nodes (const HlCallTree *tree)
{
  return tree->nodes->len;
}

HlCallNode
hl_call_tree_get_root (const HlCallTree *tree)
{
  return 0;
}

const HlFrame *
hl_call_tree_get_frame (const HlCallTree *tree,
                        HlCallNode        node)
{
  return node_at (tree, node)->frame;
}

HlCallNode
hl_call_tree_get_parent (const HlCallTree *tree,
                         HlCallNode        node)
{
  return node_at (tree, node)->parent;
}

guint
hl_call_tree_get_depth (const HlCallTree *tree,
                        HlCallNode        node)
{
  return node_at (tree, node)->depth;
}

guint
hl_call_tree_get_n_children (const HlCallTree *tree,
                             HlCallNode        node)
{
  return node_at (tree, node)->n_children;
}

HlCallNode
hl_call_tree_get_child (const HlCallTree *tree,
                        HlCallNode        node,
                        guint             i)
{
  const Node *n = node_at (tree, node);

  g_return_val_if_fail (i < n->n_children, HL_CALL_NODE_NONE);
  return g_array_index (tree->children, guint, n->first_child + i);
}

const HlCosts *
hl_call_tree_get_costs (const HlCallTree *tree,
                        HlCallNode        node)
{
  return &node_at (tree, node)->costs;
}

const HlCosts *
hl_call_tree_get_self_costs (const HlCallTree *tree,
                             HlCallNode        node)
{
  return &node_at (tree, node)->self;
}

GPtrArray *
hl_call_tree_get_path (const HlCallTree *tree,
                       HlCallNode        node)
{
  GPtrArray *path = g_ptr_array_new ();

  for (; node != 0 && node != HL_CALL_NODE_NONE; node = node_at (tree, node)->parent)
    g_ptr_array_insert (path, 0, (gpointer) node_at (tree, node)->frame);
  return path;
}
