/* test-flame-adapter.c — the drawing nodes made from a flame layout
 * (hl_adapter_flame_data) against the layout's rects: node i is rect i,
 * with the same cost, offset, depth, parent and subtree end, and the
 * strings of its frame; on random recordings large enough for the nodes
 * to be built in the memory freed data left (hl-recycle.h), for every
 * cost, top-down and bottom-up. No display. */
#include "hl-config.h"
#include "hl-recording-builder.h"

#include <string.h>

#include "hl-flame-data.h"
#include "hl-model-adapter.h"
#include "hl-model.h"

/* Stacks over a few hundred return addresses, random depths (a bushy
 * trie), allocations with some freed. */
static HlRecording *
random_recording (guint32 seed,
                  guint   n_stacks,
                  guint   n_allocs)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  HlRecording *rec = hl_recording_new ();
  guint64 t = 0;

  for (guint s = 1; s <= n_stacks; s++)
    {
      guint64 frames[20];
      guint depth = (guint) g_rand_int_range (rand, 1, 21);

      for (guint i = 0; i < depth; i++)
        frames[i] = 0x10000 + 0x10 * (guint64) g_rand_int_range (rand, 0, i + 1 < depth ? 4 : 200);
      hl_recording_append_stack (rec, s, frames, depth);
    }
  for (guint i = 0; i < n_allocs; i++)
    {
      t += (guint64) g_rand_int_range (rand, 1, 100);
      hl_recording_append_alloc (rec, i, t, 1, (guint64) g_rand_int_range (rand, 1, 5000), 0x100000 + 16 * (guint64) i,
                                 1 + (guint) g_rand_int_range (rand, 0, (gint32) n_stacks));
      if (g_rand_int_range (rand, 0, 3) == 0)
        hl_recording_append_free (rec, i, 0x100000 + 16 * (guint64) i, ++t, 1);
    }
  hl_recording_commit (rec);
  return rec;
}

static guint
check_data (HlFlameLayout *layout)
{
  g_autoptr (HlFlameData) data = hl_adapter_flame_data (layout);
  guint n;
  const HlFlameRect *rects = hl_flame_layout_get_rects (layout, &n);

  g_assert_cmpuint (hl_flame_data_get_n_nodes (data), ==, n);
  g_assert_cmpuint (hl_flame_data_get_total (data), ==, hl_flame_layout_get_total (layout));
  g_assert_cmpuint (hl_flame_data_get_max_depth (data), ==, hl_flame_layout_get_max_depth (layout));
  for (guint i = 1; i < n; i++)
    {
      const HlFlameNode *node = hl_flame_data_get_node (data, i);
      const HlFlameRect *r = &rects[i];

      g_assert_cmpuint (node->cost, ==, r->width);
      g_assert_cmpuint (node->offset, ==, r->offset);
      g_assert_cmpuint (node->depth, ==, r->depth);
      g_assert_cmpint (node->parent, ==, (gint) r->parent);
      g_assert_cmpuint (node->end, ==, r->end);
      g_assert_cmpstr (node->name, ==, r->frame->function);
      g_assert_cmpstr (node->module, ==, r->frame->module_name);
      g_assert_cmpstr (node->file, ==, r->frame->file);
      g_assert_cmpuint (node->line, ==, r->frame->line);
      g_assert_cmpint (!!node->is_inline, ==, !!r->frame->is_inline);
      g_assert_cmpuint (hl_adapter_flame_node_call_node (data, i), ==, r->node);
    }
  return n;
}

static void
test_equal_to_layout (void)
{
  guint largest = 0;

  /* the second and third recordings reuse the first's freed memory */
  for (guint round = 0; round < 3; round++)
    {
      g_autoptr (HlRecording) rec = random_recording (8 + round, 30000 - 5000 * round, 60000);
      g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);

      for (guint k = 0; k < 2; k++)
        for (HlCostKind kind = 0; kind < HL_N_COST_KINDS; kind++)
          {
            g_autoptr (HlCallTree) tree
              = hl_analysis_get_call_tree (a, k == 0 ? HL_CALL_TREE_TOP_DOWN : HL_CALL_TREE_BOTTOM_UP, kind);
            g_autoptr (HlFlameLayout) all = hl_flame_layout_new (tree, kind, 0);
            g_autoptr (HlFlameLayout) cut = hl_flame_layout_new (tree, (kind + 1) % HL_N_COST_KINDS, 0.001);

            largest = MAX (largest, check_data (all));
            check_data (cut);
          }
    }
  g_test_message ("largest: %u nodes", largest);
  /* 4 MiB of nodes: large enough to be recycled */
  g_assert_cmpuint (largest * sizeof (HlFlameNode), >, 4u << 20);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/flame-adapter/equal-to-layout", test_equal_to_layout);
  return g_test_run ();
}
