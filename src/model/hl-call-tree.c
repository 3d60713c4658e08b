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
  guint           nodes_room;     /* elements allocated */
  guint           children_room;
};

G_DEFINE_BOXED_TYPE (HlCallTree, hl_call_tree, hl_call_tree_ref, hl_call_tree_unref)

HlCallTree *
hl_call_tree_ref (HlCallTree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_ref_count_inc (&tree->ref_count);
  return tree;
}

/* The arrays of the last large tree freed, for the next build: a live
 * flame graph builds a tree of the same size several times a second, and
 * memory taken back from the kernel and given again costs a page fault per
 * 4 KiB (at 5 × 10⁵ nodes, 60 MiB). One of each, the largest. */
#define RECYCLE_MIN_BYTES (4u << 20)

typedef struct
{
  GArray *array;
  guint   room;   /* elements allocated */
} Recycled;

static GMutex recycle_lock;
static Recycled recycled_nodes;
static Recycled recycled_children;

static void
recycle (Recycled *slot,
         GArray   *array,
         guint     room)
{
  if ((gsize) room * g_array_get_element_size (array) >= RECYCLE_MIN_BYTES)
    {
      g_mutex_lock (&recycle_lock);
      if (slot->array == NULL || slot->room < room)
        {
          Recycled old = *slot;

          slot->array = array;
          slot->room = room;
          array = old.array;
        }
      g_mutex_unlock (&recycle_lock);
    }
  if (array != NULL)
    g_array_unref (array);
}

/* An empty array with room for N elements (*ROOM: how many). */
static GArray *
take_recycled (Recycled *slot,
               guint     element_size,
               guint     n,
               guint    *room)
{
  GArray *array = NULL;

  g_mutex_lock (&recycle_lock);
  if (slot->array != NULL && slot->room >= n)
    {
      array = g_steal_pointer (&slot->array);
      *room = slot->room;
    }
  g_mutex_unlock (&recycle_lock);
  if (array != NULL)
    {
      g_array_set_size (array, 0);
      return array;
    }
  *room = n;
  return g_array_sized_new (FALSE, FALSE, element_size, n);
}

void
hl_call_tree_unref (HlCallTree *tree)
{
  g_return_if_fail (tree != NULL);
  if (!g_atomic_ref_count_dec (&tree->ref_count))
    return;
  recycle (&recycled_nodes, tree->nodes, tree->nodes_room);
  recycle (&recycled_children, tree->children, tree->children_room);
  g_free (tree);
}

typedef struct
{
  const Node *nodes;
  HlCostKind  sort_by;
} SortCtx;

/* Siblings: by the sort cost, largest first, then by function name, then
 * in the order of the trie (a node's index follows its trie node's). */
static int
compare_siblings (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  const SortCtx *ctx = user_data;
  guint na = *(const guint *) a, nb = *(const guint *) b;
  guint64 ca = hl_costs_get (&ctx->nodes[na].costs, ctx->sort_by);
  guint64 cb = hl_costs_get (&ctx->nodes[nb].costs, ctx->sort_by);
  int r;

  if (ca != cb)
    return ca > cb ? -1 : 1;
  r = strcmp (ctx->nodes[na].frame->function, ctx->nodes[nb].frame->function);
  if (r != 0)
    return r;
  return na < nb ? -1 : na > nb;
}

/* Every pass goes through the trie in the order of its nodes (a child
 * comes after its parent there), not from parent to children: at 10⁵
 * stacks and 5 × 10⁵ nodes, a walk from node to node was a cache miss at
 * every step (about 400 ms; the passes take a fraction of that). */
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
  const HlTrieNode *trie_nodes = (const HlTrieNode *) (gconstpointer) trie->nodes->data;
  g_autofree guint32 *out_of = g_new (guint32, n_trie);
  guint n_out = 1, offset = 0;
  Node *nodes;
  guint *children;
  SortCtx ctx = { NULL, sort_by };

  g_atomic_ref_count_init (&tree->ref_count);
  tree->kind = kind;
  tree->sort_by = sort_by;

  /* One node per trie node first (the nodes without costs are dropped
   * below, in place), in recycled memory when a tree of that size was
   * freed: tens of MiB of new pages cost more than the sums. */
  tree->nodes = take_recycled (&recycled_nodes, sizeof (Node), n_trie, &tree->nodes_room);
  g_array_set_size (tree->nodes, n_trie);
  nodes = (Node *) (gpointer) tree->nodes->data;
  memset (nodes, 0, n_trie * sizeof *nodes);

  /* Self costs at the stacks' leaves, then inclusive costs from the last
   * node to the first: a node is complete before it is added to its
   * parent. The same sums as adding each stack to every node of its path,
   * in O(nodes) instead of O(stacks × depth). */
  for (guint s = 1; s < n_stacks && s < trie->n_stacks; s++)
    {
      const HlCosts *c = &stack_costs[s];

      if (c->allocations == 0)
        continue;
      hl_costs_add (&nodes[trie->stack_leaf[s]].self, c);
    }
  for (guint32 node = n_trie - 1; node > 0; node--)
    {
      hl_costs_add (&nodes[node].costs, &nodes[node].self);
      hl_costs_add (&nodes[trie_nodes[node].parent].costs, &nodes[node].costs);
    }
  nodes[0].parent = HL_CALL_NODE_NONE;
  nodes[0].costs = *totals;
  nodes[0].self = stack_costs[0];

  /* The nodes with costs, moved down in trie order (a parent has costs
   * when a child has), each counted by its parent. */
  out_of[0] = 0;
  for (guint32 node = 1; node < n_trie; node++)
    {
      Node *n;

      if (nodes[node].costs.allocations == 0)
        continue;
      out_of[node] = n_out;
      n = &nodes[n_out++];
      if (n != &nodes[node])
        {
          n->costs = nodes[node].costs;
          n->self = nodes[node].self;
        }
      n->frame = &trie_nodes[node].frame->pub;
      n->parent = out_of[trie_nodes[node].parent];
      n->depth = trie_nodes[node].depth;
      n->n_children = 0;
      nodes[n->parent].n_children++;
    }
  g_array_set_size (tree->nodes, n_out);

  /* Children contiguous, in sort order. */
  for (guint i = 0; i < n_out; i++)
    {
      nodes[i].first_child = offset;
      offset += nodes[i].n_children;
      nodes[i].n_children = 0;
    }
  tree->children = take_recycled (&recycled_children, sizeof (guint), n_out, &tree->children_room);
  g_array_set_size (tree->children, n_out - 1);
  children = (guint *) (gpointer) tree->children->data;
  for (guint i = 1; i < n_out; i++)
    {
      Node *p = &nodes[nodes[i].parent];

      children[p->first_child + p->n_children++] = i;
    }
  ctx.nodes = nodes;
  for (guint i = 0; i < n_out; i++)
    if (nodes[i].n_children > 1)
      g_qsort_with_data (children + nodes[i].first_child, (gint) nodes[i].n_children, sizeof (guint),
                         compare_siblings, &ctx);
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
