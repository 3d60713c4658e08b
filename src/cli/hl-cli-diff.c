/* hl-cli-diff.c — `heaplens-cli diff A B`: what changed between two
 * recordings, per call path matched frame by frame (hl-diff-tree.h): how
 * many frames matched, the totals, then the paths with their change and
 * the change of what each one allocates itself (its self cost: a path's
 * change is its self change plus its children's). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"

static char *
format_delta (HlCostKind kind,
              gint64     delta)
{
  g_autofree char *abs_text = hl_cli_format_cost (kind, (guint64) llabs (delta));
  return g_strdup_printf ("%s%s", delta < 0 ? "-" : delta > 0 ? "+" : " ", abs_text);
}

/* S right-aligned in WIDTH characters (printf counts bytes: "−" is 3). */
static char *
pad_left (const char *s,
          int         width)
{
  int n = (int) g_utf8_strlen (s, -1);

  return g_strdup_printf ("%*s%s", MAX (0, width - n), "", s);
}

static void
print_node (HlDiffTree *tree,
            guint       node,
            HlCostKind  kind,
            guint       depth,
            gint64      threshold,
            guint      *lines,
            guint       max_lines)
{
  for (guint i = 0; i < hl_diff_tree_get_n_children (tree, node) && *lines < max_lines; i++)
    {
      guint c = hl_diff_tree_get_child (tree, node, i);
      gint64 d = hl_diff_tree_get_delta (tree, c, kind);
      g_autofree char *delta = NULL, *self_delta = NULL, *a = NULL, *b = NULL, *frame = NULL;

      if (llabs (d) < threshold || d == 0)
        continue;
      delta = format_delta (kind, d);
      self_delta = format_delta (kind, hl_diff_tree_get_self_delta (tree, c, kind));
      a = hl_cli_format_cost (kind, hl_costs_get (hl_diff_tree_get_costs_a (tree, c), kind));
      b = hl_cli_format_cost (kind, hl_costs_get (hl_diff_tree_get_costs_b (tree, c), kind));
      frame = hl_cli_format_frame (hl_diff_tree_get_frame (tree, c));
      printf ("  %12s  %12s  %12s → %-12s %*s%s\n", delta, self_delta, a, b, (int) depth * 2, "", frame);
      (*lines)++;
      print_node (tree, c, kind, depth + 1, threshold, lines, max_lines);
    }
}

int
hl_cli_diff (int    argc,
             char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("A B");
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) ra = NULL;
  g_autoptr (HlRecording) rb = NULL;
  g_autoptr (HlAnalysis) aa = NULL;
  g_autoptr (HlAnalysis) ab = NULL;
  g_autoptr (HlDiffTree) tree = NULL;
  g_autofree char *cost = NULL;
  HlCostKind kind = HL_COST_KIND_BYTES;
  int top = 40;
  guint lines = 0;
  gint64 root_delta;
  const GOptionEntry entries[] = {
    { "cost", 0, 0, G_OPTION_ARG_STRING, &cost, N_("allocations, bytes (default), temporary, peak, leaked, live"), "COST" },
    { "top", 0, 0, G_OPTION_ARG_INT, &top, N_("At most N lines of call paths (default 40)"), "N" },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("Differences of a cost between recordings A and B (B − A), per call path."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli diff: %s\n"), error->message);
      return 2;
    }
  if (argc != 3 || top < 0)
    {
      fprintf (stderr, _("heaplens-cli diff: expected two trace files A B (see 'heaplens-cli diff --help')\n"));
      return 2;
    }
  if (cost != NULL && !hl_cost_kind_from_string (cost, &kind))
    {
      fprintf (stderr, _("heaplens-cli diff: unknown cost '%s'\n"), cost);
      return 2;
    }
  {
    /* no filter: costs only (or the costs saved in the traces) */
    g_autoptr (HlFilter) none = hl_filter_new ();

    ra = hl_cli_load_recording_for ("diff", argv[1], none);
    if (ra == NULL)
      return 1;
    rb = hl_cli_load_recording_for ("diff", argv[2], none);
    if (rb == NULL)
      return 1;
  }
  aa = hl_analysis_new (ra, NULL);
  ab = hl_analysis_new (rb, NULL);
  tree = hl_diff_tree_new (aa, ab, HL_CALL_TREE_TOP_DOWN, kind);
  root_delta = hl_diff_tree_get_delta (tree, 0, kind);
  {
    guint ma, ta, mb, tb;

    hl_diff_tree_get_match_counts (tree, &ma, &ta, &mb, &tb);
    printf (_("frames matched: A %u of %u, B %u of %u\n"), ma, ta, mb, tb);
  }
  {
    g_autofree char *a = hl_cli_format_cost (kind, hl_costs_get (hl_diff_tree_get_costs_a (tree, 0), kind));
    g_autofree char *b = hl_cli_format_cost (kind, hl_costs_get (hl_diff_tree_get_costs_b (tree, 0), kind));
    g_autofree char *d = format_delta (kind, root_delta);
    printf ("%s: A %s, B %s, B − A %s\n", hl_cost_kind_to_string (kind), a, b, d);
  }
  {
    g_autofree char *delta = pad_left ("B − A", 12);
    /* Translators: column of `heaplens-cli diff`, the change of what a
     * call path allocates itself (without its callees) */
    g_autofree char *self_delta = pad_left (_("self B − A"), 12);

    printf (_("\n  %s  %s  %12s   %-12s call path\n"), delta, self_delta, "A", "B");
  }
  {
    gint64 largest = 0;
    for (guint i = 1; i < hl_diff_tree_get_n_nodes (tree); i++)
      largest = MAX (largest, llabs (hl_diff_tree_get_delta (tree, i, kind)));
    print_node (tree, 0, kind, 0, MAX (1, largest / 100), &lines, (guint) top);
  }
  if (lines == 0)
    printf (_("  (no differences)\n"));
  return 0;
}
