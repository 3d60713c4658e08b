/* hl-call-tree.c — compact, sorted call trees over a recording's trie. */
#include "hl-call-tree-private.h"

#include <string.h>

#include "hl-recycle.h"

/* Nodes are numbered in display order: depth-first pre-order with every
 * node's children in sort order, so a node's subtree is [i, end) and a
 * flame graph is one pass over the arrays. Each node's children are also
 * listed, contiguous, in CHILDREN (for hl_call_tree_get_child). */
struct _HlCallTree
{
  gatomicrefcount ref_count;
  HlCallTreeKind  kind;
  HlCostKind      sort_by;
  guint           n_nodes;
  guint           max_depth;
  guint64         trie_serial;  /* of the trie it was built from */
  HlCallTreeNode *nodes;
  HlCosts        *costs;     /* inclusive */
  HlCosts        *self;
  guint64        *sort_costs;
  guint          *children;
  gpointer        block;     /* all of the above, one allocation */
  gsize           block_size;
};

G_DEFINE_BOXED_TYPE (HlCallTree, hl_call_tree, hl_call_tree_ref, hl_call_tree_unref)

HlCallTree *
hl_call_tree_ref (HlCallTree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_ref_count_inc (&tree->ref_count);
  return tree;
}

/* The memory of the last large tree freed, and the build's scratch
 * arrays, for the next build (hl-recycle.h). */
static HlRecycleSlot recycled_tree;
static HlRecycleSlot recycled_scratch;

void
hl_call_tree_unref (HlCallTree *tree)
{
  g_return_if_fail (tree != NULL);
  if (!g_atomic_ref_count_dec (&tree->ref_count))
    return;
  hl_recycle_give (&recycled_tree, tree->block, tree->block_size);
  g_free (tree);
}

typedef struct
{
  const guint64    *key;     /* per trie node: its sort cost */
  const HlTrieNode *trie;
} SortCtx;

/* Siblings (trie nodes): by the sort cost, largest first, then by
 * function name, then in the order of the trie. */
static inline int
compare_siblings (const SortCtx *ctx,
                  guint32        a,
                  guint32        b)
{
  int r;

  if (ctx->key[a] != ctx->key[b])
    return ctx->key[a] > ctx->key[b] ? -1 : 1;
  r = strcmp (ctx->trie[a].frame->pub.function, ctx->trie[b].frame->pub.function);
  if (r != 0)
    return r;
  return a < b ? -1 : a > b;
}

static int
compare_siblings_qsort (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data)
{
  return compare_siblings (user_data, *(const guint32 *) a, *(const guint32 *) b);
}

static void
sort_siblings (const SortCtx *ctx,
               guint32       *kids,
               guint          n)
{
  if (n == 2)
    {
      if (compare_siblings (ctx, kids[0], kids[1]) > 0)
        {
          guint32 t = kids[0];

          kids[0] = kids[1];
          kids[1] = t;
        }
    }
  else if (n > 2)
    g_qsort_with_data (kids, (gint) n, sizeof *kids, compare_siblings_qsort, (gpointer) ctx);
}

/* What makes a stack's nodes exist: its allocations, or its mappings (a
 * stack that only maps has no allocation; the flame layout leaves out
 * what has none of its cost). */
static inline guint64
stack_presence (const HlCosts *c)
{
  return c->allocations + (c->mmap_bytes != 0);
}

/* Every pass over the trie goes through it in the order of its nodes (a
 * child comes after its parent there), never from parent to children: at
 * 10⁵ stacks and 5 × 10⁵ nodes a walk from node to node was a cache miss
 * at every step. Only two numbers per trie node are summed there (the
 * allocations, that decide which nodes exist, and the sort cost); the
 * full costs are summed in display order at the end. */
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
  const HlTrieNode *tn = (const HlTrieNode *) (gconstpointer) trie->nodes->data;
  guint n_stack_costs = MIN (n_stacks, trie->n_stacks);
  gsize scratch_size;
  gpointer scratch;
  guint64 *allocs, *key;
  guint32 *count, *first, *size, *pos, *kids;
  guint n_out = 1, offset = 0, max_depth = 0;
  SortCtx ctx;
  char *p;

  g_atomic_ref_count_init (&tree->ref_count);
  tree->kind = kind;
  tree->sort_by = sort_by;
  tree->trie_serial = trie->serial;

  /* The scratch arrays, per trie node. */
  scratch = hl_recycle_take (&recycled_scratch, (gsize) n_trie * (2 * sizeof (guint64) + 5 * sizeof (guint32)),
                             &scratch_size);
  allocs = scratch;
  key = allocs + n_trie;
  count = (guint32 *) (key + n_trie);
  first = count + n_trie;
  size = first + n_trie;
  pos = size + n_trie;
  kids = pos + n_trie;

  /* Allocations and the sort cost at the stacks' leaves, then inclusive
   * from the last node to the first: a node is complete before it is
   * added to its parent. */
  memset (allocs, 0, (gsize) n_trie * sizeof *allocs);
  memset (key, 0, (gsize) n_trie * sizeof *key);
  for (guint s = 1; s < n_stack_costs; s++)
    {
      const HlCosts *c = &stack_costs[s];
      guint64 present = stack_presence (c);

      if (present == 0)
        continue;
      allocs[trie->stack_leaf[s]] += present;
      key[trie->stack_leaf[s]] += hl_costs_value (c, sort_by);
    }
  for (guint32 t = n_trie - 1; t > 0; t--)
    {
      allocs[tn[t].parent] += allocs[t];
      key[tn[t].parent] += key[t];
    }

  /* The nodes with allocations (a parent has them when a child has),
   * each counted by its parent; then every node's children contiguous in
   * KIDS, in trie order, and sorted. */
  memset (count, 0, (gsize) n_trie * sizeof *count);
  for (guint32 t = 1; t < n_trie; t++)
    if (allocs[t] != 0)
      {
        count[tn[t].parent]++;
        n_out++;
      }
  for (guint32 t = 0; t < n_trie; t++)
    {
      first[t] = offset;
      offset += count[t];
      count[t] = 0;
      size[t] = 1;
    }
  for (guint32 t = 1; t < n_trie; t++)
    if (allocs[t] != 0)
      {
        guint32 parent = tn[t].parent;

        kids[first[parent] + count[parent]++] = t;
      }
  ctx.key = key;
  ctx.trie = tn;
  for (guint32 t = 0; t < n_trie; t++)
    sort_siblings (&ctx, kids + first[t], count[t]);

  /* Subtree sizes, then each node's place in display order: its parent's
   * place + 1 + the sizes of its previous siblings. */
  for (guint32 t = n_trie - 1; t > 0; t--)
    if (allocs[t] != 0)
      size[tn[t].parent] += size[t];
  pos[0] = 0;
  for (guint32 t = 0; t < n_trie; t++)
    {
      guint32 next;

      if (t != 0 && allocs[t] == 0)
        continue;
      next = pos[t] + 1;
      for (guint i = 0; i < count[t]; i++)
        {
          pos[kids[first[t] + i]] = next;
          next += size[kids[first[t] + i]];
        }
    }

  /* The tree, in display order, in the memory a freed tree left. */
  tree->n_nodes = n_out;
  tree->block = hl_recycle_take (&recycled_tree,
                                 (gsize) n_out * (sizeof (HlCallTreeNode) + 2 * sizeof (HlCosts)
                                                  + sizeof (guint64) + sizeof (guint)),
                                 &tree->block_size);
  p = tree->block;
  tree->nodes = (HlCallTreeNode *) (gpointer) p;
  p += (gsize) n_out * sizeof (HlCallTreeNode);
  tree->costs = (HlCosts *) (gpointer) p;
  p += (gsize) n_out * sizeof (HlCosts);
  tree->self = (HlCosts *) (gpointer) p;
  p += (gsize) n_out * sizeof (HlCosts);
  tree->sort_costs = (guint64 *) (gpointer) p;
  p += (gsize) n_out * sizeof (guint64);
  tree->children = (guint *) (gpointer) p;

  for (guint32 t = 0; t < n_trie; t++)
    {
      HlCallTreeNode *n;

      if (t != 0 && allocs[t] == 0)
        continue;
      n = &tree->nodes[pos[t]];
      n->frame = t == 0 ? NULL : &tn[t].frame->pub;
      n->parent = t == 0 ? HL_CALL_NODE_NONE : pos[tn[t].parent];
      n->depth = tn[t].depth;
      n->end = pos[t] + size[t];
      n->first_child = first[t];
      n->n_children = count[t];
      max_depth = MAX (max_depth, n->depth);
    }
  for (guint i = 0; i + 1 < n_out; i++)
    tree->children[i] = pos[kids[i]];
  tree->max_depth = max_depth;

  /* Self costs at the stacks' leaves; inclusive costs from the last node
   * to the first, each node the sum of its own and its children's (which
   * follow it: i + 1, then each one's subtree end). */
  memset (tree->self, 0, (gsize) n_out * sizeof (HlCosts));
  for (guint s = 1; s < n_stack_costs; s++)
    {
      const HlCosts *c = &stack_costs[s];

      if (stack_presence (c) == 0)
        continue;
      hl_costs_add (&tree->self[pos[trie->stack_leaf[s]]], c);
    }
  for (guint i = n_out - 1; i > 0; i--)
    {
      HlCosts *c = &tree->costs[i];

      *c = tree->self[i];
      for (guint j = i + 1; j < tree->nodes[i].end; j = tree->nodes[j].end)
        hl_costs_add (c, &tree->costs[j]);
      tree->sort_costs[i] = hl_costs_value (c, sort_by);
    }
  tree->costs[0] = *totals;
  tree->self[0] = stack_costs[0];
  tree->sort_costs[0] = hl_costs_value (totals, sort_by);

  hl_recycle_give (&recycled_scratch, scratch, scratch_size);
  return tree;
}

const HlCallTreeNode *
hl_call_tree_get_nodes (const HlCallTree *tree)
{
  return tree->nodes;
}

const HlCosts *
hl_call_tree_get_all_costs (const HlCallTree *tree)
{
  return tree->costs;
}

const guint64 *
hl_call_tree_get_sort_costs (const HlCallTree *tree)
{
  return tree->sort_costs;
}

guint
hl_call_tree_get_max_depth (const HlCallTree *tree)
{
  return tree->max_depth;
}

guint64
hl_call_tree_get_trie_serial (const HlCallTree *tree)
{
  return tree->trie_serial;
}

static const HlCallTreeNode *
node_at (const HlCallTree *tree,
         HlCallNode        node)
{
  g_return_val_if_fail (node < tree->n_nodes, &tree->nodes[0]);
  return &tree->nodes[node];
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
  return tree->n_nodes;
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
  const HlCallTreeNode *n = node_at (tree, node);

  g_return_val_if_fail (i < n->n_children, HL_CALL_NODE_NONE);
  return tree->children[n->first_child + i];
}

const HlCosts *
hl_call_tree_get_costs (const HlCallTree *tree,
                        HlCallNode        node)
{
  g_return_val_if_fail (node < tree->n_nodes, &tree->costs[0]);
  return &tree->costs[node];
}

const HlCosts *
hl_call_tree_get_self_costs (const HlCallTree *tree,
                             HlCallNode        node)
{
  g_return_val_if_fail (node < tree->n_nodes, &tree->self[0]);
  return &tree->self[node];
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
