/* test-call-tree-build.c — the call tree built in passes over the trie
 * (hl-call-tree.c) against a reference built the plain way (each stack's
 * costs added to every node of its path, children found by walking the
 * trie from the root, as before it was made fast): equal node for node,
 * top-down and bottom-up, every sort cost, with and without a filter, on
 * a random recording of tens of thousands of nodes, also when the
 * recording grows between analyses (as a live one does) and when a tree
 * is built in the memory a freed one left. The nodes are numbered in
 * display order (pre-order, each node's children in sort order: what the
 * flame layout walks), and the flame layout of every tree, for every cost
 * and a few cut-off widths, equals the one made the plain way (recursion
 * through the public accessors, as before it was made one pass). */
#include "hl-call-tree-private.h"
#include "hl-recording-builder.h"
#include "hl-recording-tables.h"
#include "hl-flame-layout.h"
#include "hl-model.h"

#include <string.h>

typedef struct
{
  const HlFrame *frame;
  HlCosts        costs;
  HlCosts        self;
  guint          depth;
  GArray        *children;   /* guint, sorted */
} RefNode;

typedef struct
{
  const HlTrie *trie;
  const HlCosts *node_costs;
  HlCostKind sort_by;
} RefSort;

static int
ref_compare (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  const RefSort *ctx = user_data;
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

static void
ref_node_clear (gpointer p)
{
  g_array_unref (((RefNode *) p)->children);
}

/* The reference tree: RefNode, [0] the root. */
static GArray *
ref_build (HlRecording   *rec,
           HlAnalysis    *analysis,
           HlCallTreeKind kind,
           HlCostKind     sort_by)
{
  const HlTrie *trie = hl_recording_get_trie (rec, kind == HL_CALL_TREE_BOTTOM_UP);
  guint n_trie = trie->nodes->len;
  guint n_stacks = hl_recording_get_n_stacks (rec);
  g_autofree HlCosts *node_costs = g_new0 (HlCosts, n_trie);
  g_autofree HlCosts *self_costs = g_new0 (HlCosts, n_trie);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RefNode));
  g_autoptr (GArray) work = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  RefSort ctx = { trie, node_costs, sort_by };
  RefNode root = { 0 };
  HlCosts c;

  g_array_set_clear_func (out, ref_node_clear);
  for (guint s = 1; s < n_stacks && s < trie->n_stacks; s++)
    {
      hl_analysis_get_stack_costs (analysis, s, &c);
      if (c.allocations == 0)
        continue;
      hl_costs_add (&self_costs[trie->stack_leaf[s]], &c);
      for (guint32 node = trie->stack_leaf[s]; node != 0;
           node = g_array_index (trie->nodes, HlTrieNode, node).parent)
        hl_costs_add (&node_costs[node], &c);
    }
  hl_analysis_get_totals (analysis, &root.costs);
  hl_analysis_get_stack_costs (analysis, 0, &root.self);
  node_costs[0] = root.costs;
  root.children = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_val (out, root);
  {
    guint32 pair[2] = { 0, 0 };
    g_array_append_val (work, pair);
  }
  for (guint w = 0; w < work->len; w++)
    {
      guint32 tnode = ((guint32 *) work->data)[2 * w];
      guint32 index = ((guint32 *) work->data)[2 * w + 1];
      g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));

      for (guint32 k = g_array_index (trie->nodes, HlTrieNode, tnode).first_child; k != 0;
           k = g_array_index (trie->nodes, HlTrieNode, k).next_sibling)
        if (node_costs[k].allocations > 0)
          g_array_append_val (kids, k);
      g_array_sort_with_data (kids, ref_compare, &ctx);
      for (guint i = 0; i < kids->len; i++)
        {
          guint32 k = g_array_index (kids, guint32, i);
          RefNode n = { 0 };
          guint new_index = out->len;
          guint32 pair[2] = { k, new_index };

          n.frame = &g_array_index (trie->nodes, HlTrieNode, k).frame->pub;
          n.costs = node_costs[k];
          n.self = self_costs[k];
          n.depth = g_array_index (out, RefNode, index).depth + 1;
          n.children = g_array_new (FALSE, FALSE, sizeof (guint));
          g_array_append_val (out, n);
          g_array_append_val (g_array_index (out, RefNode, index).children, new_index);
          g_array_append_val (work, pair);
        }
    }
  return out;
}

/* Node for node from the roots; returns the nodes compared. */
static guint
compare_trees (const HlCallTree *tree,
               HlCallNode        node,
               GArray           *ref,
               guint             ref_node)
{
  const RefNode *r = &g_array_index (ref, RefNode, ref_node);
  guint n = 1;

  g_assert_true (hl_call_tree_get_frame (tree, node) == r->frame);
  g_assert_cmpmem (hl_call_tree_get_costs (tree, node), sizeof (HlCosts), &r->costs, sizeof (HlCosts));
  g_assert_cmpmem (hl_call_tree_get_self_costs (tree, node), sizeof (HlCosts), &r->self, sizeof (HlCosts));
  g_assert_cmpuint (hl_call_tree_get_depth (tree, node), ==, r->depth);
  g_assert_cmpuint (hl_call_tree_get_n_children (tree, node), ==, r->children->len);
  for (guint i = 0; i < r->children->len; i++)
    {
      HlCallNode c = hl_call_tree_get_child (tree, node, i);
      guint below;

      g_assert_cmpuint (hl_call_tree_get_parent (tree, c), ==, node);
      /* display order: the first child follows its parent, each next
       * one the subtree of the previous */
      g_assert_cmpuint (c, ==, node + n);
      below = compare_trees (tree, c, ref, g_array_index (r->children, guint, i));
      g_assert_cmpuint (hl_call_tree_get_nodes (tree)[c].end, ==, c + below);
      n += below;
    }
  g_assert_cmpuint (hl_call_tree_get_nodes (tree)[node].end, ==, node + n);
  return n;
}

/* A recording that grows at random: its generator and the next ids and
 * time, kept between rounds. */
typedef struct
{
  GRand       *rand;
  HlRecording *rec;
  guint        next_stack;
  guint        next_alloc;
  guint64      time_ns;
} RandomRecording;

static RandomRecording
random_recording_start (guint32 seed)
{
  return (RandomRecording) { g_rand_new_with_seed (seed), hl_recording_new (), 1, 0, 0 };
}

static void
random_recording_clear (RandomRecording *rr)
{
  g_clear_pointer (&rr->rand, g_rand_free);
  g_clear_object (&rr->rec);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RandomRecording, random_recording_clear)

/* N_STACKS stacks over a few return addresses, random depths, N_ALLOCS
 * allocations with some freed; ids go on from the last round's. */
static void
random_recording_grow (RandomRecording *rr,
                       guint            n_stacks,
                       guint            n_allocs)
{
  guint first_stack = rr->next_stack;

  for (guint s = 0; s < n_stacks; s++)
    {
      guint64 frames[16];
      guint depth = (guint) g_rand_int_range (rr->rand, 1, 17);

      /* shared outer frames, varied inner ones: a bushy trie */
      for (guint i = 0; i < depth; i++)
        frames[i] = 0x10000 + 0x10 * (guint64) g_rand_int_range (rr->rand, 0, i + 1 < depth ? 6 : 64);
      hl_recording_append_stack (rr->rec, rr->next_stack++, frames, depth);
    }
  for (guint i = 0; i < n_allocs; i++)
    {
      guint id = rr->next_alloc++;
      guint stack = first_stack + (guint) g_rand_int_range (rr->rand, 0, (gint32) n_stacks);
      guint64 address = 0x100000 + 16 * (guint64) id;

      rr->time_ns += (guint64) g_rand_int_range (rr->rand, 1, 100);
      hl_recording_append_alloc (rr->rec, id, rr->time_ns, 1,
                                 (guint64) g_rand_int_range (rr->rand, 1, 5000), address, stack);
      if (g_rand_int_range (rr->rand, 0, 3) == 0)
        {
          rr->time_ns += (guint64) g_rand_int_range (rr->rand, 1, 100);
          hl_recording_append_free (rr->rec, id, address, rr->time_ns, 1);
        }
    }
  hl_recording_commit (rr->rec);
}

/* The flame layout the plain way: NODE and its subtree, depth first,
 * through the public accessors. */
static void
ref_layout_add (GArray           *rects,
                const HlCallTree *tree,
                HlCostKind        kind,
                HlCallNode        node,
                guint64           width,
                guint             parent,
                guint64           offset,
                guint64           min_width,
                guint            *max_depth)
{
  HlFlameRect r = { 0 };
  guint index = rects->len;
  guint64 child_offset = offset, hidden = 0;

  r.frame = hl_call_tree_get_frame (tree, node);
  r.node = node;
  r.offset = offset;
  r.width = width;
  r.depth = hl_call_tree_get_depth (tree, node);
  r.parent = parent;
  g_array_append_val (rects, r);
  *max_depth = MAX (*max_depth, r.depth);
  for (guint i = 0; i < hl_call_tree_get_n_children (tree, node); i++)
    {
      HlCallNode c = hl_call_tree_get_child (tree, node, i);
      guint64 w = hl_costs_get (hl_call_tree_get_costs (tree, c), kind);

      if (w == 0)
        continue;
      if (w < min_width)
        {
          hidden += w;
          continue;
        }
      ref_layout_add (rects, tree, kind, c, w, index, child_offset, min_width, max_depth);
      child_offset += w;
    }
  g_array_index (rects, HlFlameRect, index).hidden_cost = hidden;
  g_array_index (rects, HlFlameRect, index).end = rects->len;
}

/* Every cost, a few cut-off widths: the layout equals the plain one,
 * rect for rect. Returns the rects compared. */
static guint
check_layouts (HlCallTree *tree)
{
  static const double fractions[] = { 0, 0.001, 0.05 };
  guint compared = 0;

  for (HlCostKind kind = 0; kind < HL_N_COST_KINDS; kind++)
    for (guint f = 0; f < G_N_ELEMENTS (fractions); f++)
      {
        g_autoptr (HlFlameLayout) layout = hl_flame_layout_new (tree, kind, fractions[f]);
        g_autoptr (GArray) ref = g_array_new (FALSE, TRUE, sizeof (HlFlameRect));
        guint64 total = hl_costs_get (hl_call_tree_get_costs (tree, 0), kind);
        guint64 min_width = MAX ((guint64) (fractions[f] * (double) total), 1);
        guint max_depth = 0, n;
        const HlFlameRect *rects = hl_flame_layout_get_rects (layout, &n);

        ref_layout_add (ref, tree, kind, 0, total, G_MAXUINT, 0, min_width, &max_depth);
        g_assert_cmpuint (n, ==, ref->len);
        g_assert_cmpuint (hl_flame_layout_get_max_depth (layout), ==, max_depth);
        g_assert_cmpuint (hl_flame_layout_get_total (layout), ==, total);
        for (guint i = 0; i < n; i++)
          {
            const HlFlameRect *a = &rects[i], *b = &g_array_index (ref, HlFlameRect, i);

            g_assert_true (a->frame == b->frame);
            g_assert_cmpuint (a->node, ==, b->node);
            g_assert_cmpuint (a->offset, ==, b->offset);
            g_assert_cmpuint (a->width, ==, b->width);
            g_assert_cmpuint (a->hidden_cost, ==, b->hidden_cost);
            g_assert_cmpuint (a->depth, ==, b->depth);
            g_assert_cmpuint (a->parent, ==, b->parent);
            g_assert_cmpuint (a->end, ==, b->end);
          }
        compared += n;
      }
  return compared;
}

static guint
check_all (HlRecording *rec,
           HlFilter    *filter,
           gboolean     layouts)
{
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, filter);
  guint compared = 0;

  for (guint k = 0; k < 2; k++)
    for (HlCostKind sort = 0; sort < HL_N_COST_KINDS; sort++)
      {
        HlCallTreeKind kind = k == 0 ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP;
        g_autoptr (HlCallTree) tree = hl_analysis_get_call_tree (a, kind, sort);
        g_autoptr (GArray) ref = ref_build (rec, a, kind, sort);
        guint n = compare_trees (tree, 0, ref, 0);

        g_assert_cmpuint (n, ==, ref->len);
        g_assert_cmpuint (hl_call_tree_get_n_nodes (tree), ==, ref->len);
        /* (two sort costs: the layout walks the tree's own sort costs
         * when its cost is the tree's, its costs per node otherwise) */
        if (layouts && (sort == HL_COST_KIND_BYTES || sort == HL_COST_KIND_LEAKED))
          check_layouts (tree);
        compared += n;
      }
  return compared;
}

static void
test_equal_to_reference (void)
{
  g_auto (RandomRecording) rr = random_recording_start (8);

  random_recording_grow (&rr, 6000, 30000);
  guint n = check_all (rr.rec, NULL, TRUE);
  g_test_message ("%u nodes compared", n);
  /* large enough for the freed trees' memory to be used again */
  g_assert_cmpuint (n, >, 2 * HL_N_COST_KINDS * 30000);

  /* a time range: fewer stacks, nodes without costs dropped */
  g_autoptr (HlFilter) f = hl_filter_new ();
  g_autoptr (HlFilter) range = hl_filter_with_time_range (f, rr.time_ns / 3, rr.time_ns / 2);
  check_all (rr.rec, range, FALSE);
}

/* As a live recording grows: stacks and allocations added between
 * analyses; each analysis equals its reference. */
static void
test_growing (void)
{
  g_auto (RandomRecording) rr = random_recording_start (88);

  for (guint round = 0; round < 4; round++)
    {
      random_recording_grow (&rr, 500 + 500 * round, 3000);
      check_all (rr.rec, NULL, round == 3);
    }
}

/* Stacks without frames (a thread's first allocation before any frame
 * could be read): in the trees at the root, and one call site in the top
 * stacks (two of them compared as keys: no frames to compare). */
static void
test_empty_stacks (void)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  const guint64 frames[] = { 0x1000, 0x2000 };

  hl_recording_append_stack (rec, 1, NULL, 0);
  hl_recording_append_stack (rec, 2, NULL, 0);
  hl_recording_append_stack (rec, 3, frames, 2);
  hl_recording_append_alloc (rec, 0, 10, 1, 100, 0xa0, 1);
  hl_recording_append_alloc (rec, 1, 20, 1, 200, 0xa1, 2);
  hl_recording_append_alloc (rec, 2, 30, 1, 400, 0xa2, 3);
  hl_recording_commit (rec);
  check_all (rec, NULL, TRUE);

  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (GArray) top = hl_analysis_get_top_stacks (a, HL_COST_KIND_BYTES, 10);
  guint64 sum = 0;
  for (guint i = 0; i < top->len; i++)
    sum += g_array_index (top, HlStackCosts, i).costs.bytes;
  g_assert_cmpuint (sum, ==, 700);
}

/* A tree kept from an earlier analysis when nothing it depends on
 * changed (a live view of an idle target), and only then. */
static void
test_reuse (void)
{
  g_auto (RandomRecording) rr = random_recording_start (888);
  HlRecording *rec = rr.rec;

  random_recording_grow (&rr, 300, 2000);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) ta = hl_analysis_get_call_tree (a, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_LEAKED);

  /* the same costs: the same tree, cached for the new analysis too */
  g_autoptr (HlAnalysis) b = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) tb = hl_analysis_reuse_call_tree (b, a, ta);
  g_assert_true (tb == ta);
  g_autoptr (HlCallTree) tb2 = hl_analysis_get_call_tree (b, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_LEAKED);
  g_assert_true (tb2 == ta);

  /* another filter, the same costs per stack: still the same tree */
  g_autoptr (HlFilter) f = hl_filter_new ();
  g_autoptr (HlFilter) all = hl_filter_with_time_range (f, 0, rr.time_ns + 1);
  g_autoptr (HlAnalysis) c = hl_analysis_new (rec, all);
  g_autoptr (HlCallTree) tc = hl_analysis_reuse_call_tree (c, a, ta);
  g_assert_true (tc == ta);

  /* other costs */
  g_autoptr (HlFilter) half = hl_filter_with_time_range (f, 0, rr.time_ns / 2);
  g_autoptr (HlAnalysis) d = hl_analysis_new (rec, half);
  g_assert_null (hl_analysis_reuse_call_tree (d, a, ta));

  /* symbols resolved again: same costs, new tries */
  hl_recording_symbols_changed (rec);
  g_autoptr (HlAnalysis) e = hl_analysis_new (rec, NULL);
  g_assert_null (hl_analysis_reuse_call_tree (e, a, ta));

  /* the recording grew */
  g_autoptr (HlAnalysis) e2 = hl_analysis_new (rec, NULL);
  g_autoptr (HlCallTree) te2 = hl_analysis_get_call_tree (e2, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_LEAKED);
  random_recording_grow (&rr, 10, 10);
  g_autoptr (HlAnalysis) g = hl_analysis_new (rec, NULL);
  g_assert_null (hl_analysis_reuse_call_tree (g, e2, te2));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/call-tree-build/equal-to-reference", test_equal_to_reference);
  g_test_add_func ("/call-tree-build/growing", test_growing);
  g_test_add_func ("/call-tree-build/empty-stacks", test_empty_stacks);
  g_test_add_func ("/call-tree-build/reuse", test_reuse);
  return g_test_run ();
}
