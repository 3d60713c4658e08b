/* hl-cli-export.c — `heaplens-cli export --format FORMAT FILE -o OUT`: a
 * recording (with the report's filters) as a pprof profile, a speedscope
 * file, collapsed stacks or an SVG flame graph, all from the model's
 * costs (those `report --json` prints). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "hl-cli-commands.h"
#include "hl-cli-flame-svg.h"
#include "hl-cli-model-util.h"

static const char * const formats[] = { "pprof", "speedscope", "collapsed", "svg", NULL };

/* The export of ANALYSIS in FORMAT, or NULL with ERROR. */
static GBytes *
export_bytes (HlAnalysis  *analysis,
              const char  *format,
              const char  *path,
              HlCostKind   kind,
              GError     **error)
{
  g_autofree char *base = g_path_get_basename (path);
  char *text;

  if (strcmp (format, "pprof") == 0)
    return hl_export_pprof (analysis, path, kind, error);
  if (strcmp (format, "speedscope") == 0)
    text = hl_export_speedscope (analysis, base, kind);
  else
    {
      g_autoptr (HlCallTree) tree = hl_analysis_get_call_tree (analysis, HL_CALL_TREE_TOP_DOWN, kind);
      gboolean svg = strcmp (format, "svg") == 0;
      g_autoptr (HlFlameLayout) layout = hl_flame_layout_new (tree, kind, svg ? 0.0002 : 0);

      if (svg)
        {
          g_autofree char *title = g_strdup_printf ("%s — %s", base, hl_cost_kind_to_string (kind));
          text = hl_cli_flame_svg (layout, title, kind, FALSE);
        }
      else
        text = hl_flame_layout_to_collapsed (layout);
    }
  return g_bytes_new_take (text, strlen (text));
}

int
hl_cli_export (int    argc,
               char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = NULL;
  g_autoptr (HlFilter) filter = NULL;
  g_autoptr (HlAnalysis) analysis = NULL;
  g_autoptr (GBytes) bytes = NULL;
  HlCliFilterOptions fopts = { 0 };
  g_autofree char *cost = NULL, *format = NULL, *output = NULL;
  HlCostKind kind = HL_COST_KIND_BYTES;
  int status;
  const GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("pprof, speedscope, collapsed or svg"), "FORMAT" },
    { "cost", 0, 0, G_OPTION_ARG_STRING, &cost,
      N_("allocations, bytes (default), temporary, peak, leaked, live, long-lived (with --lived-at-least), mmap: the flame graph's cost, pprof's default sample type, speedscope's first profile"), "COST" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write to FILE (required)"), "FILE" },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("Export a recording for other tools: pprof (go tool pprof, Pyroscope, Parca),\n"
                                       "speedscope, collapsed stacks (flamegraph.pl) or an SVG flame graph."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  hl_cli_filter_add_entries (ctx, &fopts);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli export: %s\n"), error->message);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (argc != 2 || output == NULL || format == NULL)
    {
      fprintf (stderr, _("heaplens-cli export: expected --format FORMAT, one trace FILE and -o OUT (see 'heaplens-cli export --help')\n"));
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (!g_strv_contains (formats, format))
    {
      fprintf (stderr, _("heaplens-cli export: unknown format '%s' (pprof, speedscope, collapsed, svg)\n"), format);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (cost != NULL && !hl_cost_kind_from_string (cost, &kind))
    {
      fprintf (stderr, _("heaplens-cli export: unknown cost '%s'\n"), cost);
      hl_cli_filter_clear (&fopts);
      return 2;
    }
  if (hl_cli_cost_needs_events (&fopts, kind))
    rec = hl_cli_load_filtered_full ("export", argv[1], &fopts, &filter, &status);
  else
    rec = hl_cli_load_filtered ("export", argv[1], &fopts, &filter, &status);
  hl_cli_filter_clear (&fopts);
  if (rec == NULL)
    return status;
  analysis = hl_analysis_new (rec, filter);
  bytes = export_bytes (analysis, format, argv[1], kind, &error);
  if (bytes == NULL
      || !g_file_set_contents (output, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error))
    {
      fprintf (stderr, _("heaplens-cli export: %s\n"), error->message);
      return 1;
    }
  return 0;
}
