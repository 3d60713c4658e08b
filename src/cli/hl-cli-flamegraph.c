/* hl-cli-flamegraph.c — `heaplens-cli flamegraph FILE`: collapsed stacks
 * (flamegraph.pl, speedscope) or a self-contained interactive SVG. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "hl-cli-commands.h"
#include "hl-cli-flame-svg.h"
#include "hl-cli-model-util.h"

int
hl_cli_flamegraph (int    argc,
                   char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = NULL;
  g_autoptr (HlFilter) filter = NULL;
  g_autoptr (HlAnalysis) analysis = NULL;
  g_autoptr (HlCallTree) tree = NULL;
  g_autoptr (HlFlameLayout) layout = NULL;
  HlCliFilterOptions fopts = { 0 };
  g_autofree char *cost = NULL, *format = NULL, *output = NULL, *text = NULL;
  gboolean inverted = FALSE, svg;
  int status;
  double min_width = 0;
  HlCostKind kind = HL_COST_KIND_BYTES;
  const GOptionEntry entries[] = {
    { "cost", 0, 0, G_OPTION_ARG_STRING, &cost, N_("allocations, bytes (default), temporary, peak, leaked, live, long-lived (with --lived-at-least), mmap"), "COST" },
    { "inverted", 0, 0, G_OPTION_ARG_NONE, &inverted, N_("Bottom-up: allocating functions at the root"), NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("collapsed or svg (default: from -o's extension, else collapsed)"), "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write to FILE instead of stdout"), "FILE" },
    { "min-width", 0, 0, G_OPTION_ARG_DOUBLE, &min_width, N_("Drop frames narrower than this fraction of the total (SVG default 0.0002)"), "F" },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("Flame graph of a recording: collapsed stacks or an SVG."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  hl_cli_filter_add_entries (ctx, &fopts);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli flamegraph: %s\n"), error->message);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, _("heaplens-cli flamegraph: expected one trace FILE (see 'heaplens-cli flamegraph --help')\n"));
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (cost != NULL && !hl_cost_kind_from_string (cost, &kind))
    {
      fprintf (stderr, _("heaplens-cli flamegraph: unknown cost '%s'\n"), cost);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (format != NULL && strcmp (format, "svg") != 0 && strcmp (format, "collapsed") != 0)
    {
      fprintf (stderr, _("heaplens-cli flamegraph: unknown format '%s' (collapsed, svg)\n"), format);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  svg = format != NULL ? strcmp (format, "svg") == 0 : (output != NULL && g_str_has_suffix (output, ".svg"));
  if (min_width < 0 || min_width > 1)
    {
      fprintf (stderr, _("heaplens-cli flamegraph: --min-width is a fraction in [0, 1]\n"));
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (svg && min_width == 0)
    min_width = 0.0002;
  /* a time range: its packets only, with the trailing index */
  if (hl_cli_cost_needs_events (&fopts, kind))
    rec = hl_cli_load_filtered_full ("flamegraph", argv[1], &fopts, &filter, &status);
  else
    rec = hl_cli_load_selection ("flamegraph", argv[1], &fopts, &filter, &status);
  hl_cli_filter_clear (&fopts);
  if (rec == NULL)
    return status;
  analysis = hl_analysis_new (rec, filter);
  tree = hl_analysis_get_call_tree (analysis, inverted ? HL_CALL_TREE_BOTTOM_UP : HL_CALL_TREE_TOP_DOWN, kind);
  layout = hl_flame_layout_new (tree, kind, min_width);
  if (svg)
    {
      g_autofree char *base = g_path_get_basename (argv[1]);
      g_autofree char *title = g_strdup_printf ("%s — %s%s", base, hl_cost_kind_to_string (kind),
                                                inverted ? " (inverted)" : "");
      text = hl_cli_flame_svg (layout, title, kind, inverted);
    }
  else
    text = hl_flame_layout_to_collapsed (layout);

  if (output != NULL)
    {
      if (!g_file_set_contents (output, text, -1, &error))
        {
          fprintf (stderr, _("heaplens-cli flamegraph: %s\n"), error->message);
          return 1;
        }
    }
  else
    fputs (text, stdout);
  return 0;
}
