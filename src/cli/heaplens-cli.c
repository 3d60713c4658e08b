/* heaplens-cli — the command-line front end: dispatches to a subcommand. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "hl-cli-commands.h"

static const HlCliCommand commands[] = {
  { "dump", hl_cli_dump, N_("print the packets and events of a trace file") },
  { "compress", hl_cli_compress, N_("compress a trace file (zstd frames)") },
  { "record", hl_cli_record, N_("run a program and record its heap") },
  { "attach", hl_cli_attach, N_("record a running process from now on (ptrace), until Ctrl+C") },
  { "sessions", hl_cli_sessions, N_("list (or --prune) live-recording sessions") },
  { "top", hl_cli_top, N_("watch a live session: heap, rate, top call sites, metadata") },
  { "profiles", hl_cli_profiles, N_("write continuous heap profiles of a program under a preload set by hand") },
  { "report", hl_cli_report, N_("summary and top call sites of a recording") },
  { "flamegraph", hl_cli_flamegraph, N_("flame graph of a recording (collapsed stacks or SVG)") },
  { "export", hl_cli_export, N_("export a recording: pprof, speedscope, collapsed stacks or SVG") },
  { "diff", hl_cli_diff, N_("differences between two recordings, per call path") },
  { "timeline", hl_cli_timeline, N_("the heap over time (CSV or JSON), by call site with --sites") },
  { NULL, NULL, NULL },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s", _("Usage: heaplens-cli COMMAND [OPTIONS...]\n\nCommands:\n"));
  for (const HlCliCommand *c = commands; c->name != NULL; c++)
    fprintf (out, "  %-12s %s\n", c->name, _(c->summary));
  fprintf (out, "%s", _("\nRun 'heaplens-cli COMMAND --help' for the options of one command.\n"));
}

int
main (int    argc,
      char **argv)
{
  /* Messages follow the user's language; numbers in reports, JSON and
   * collapsed stacks stay in the C locale so that scripts can read them. */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  /* HEAPLENS_LOCALEDIR: translations of an uninstalled build (tests). */
  bindtextdomain (HL_GETTEXT_PACKAGE, g_getenv ("HEAPLENS_LOCALEDIR") ? g_getenv ("HEAPLENS_LOCALEDIR") : HL_LOCALEDIR);
  bind_textdomain_codeset (HL_GETTEXT_PACKAGE, "UTF-8");
  textdomain (HL_GETTEXT_PACKAGE);

  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("heaplens-cli %s\n", HL_VERSION);
      return 0;
    }
  for (const HlCliCommand *c = commands; c->name != NULL; c++)
    if (strcmp (argv[1], c->name) == 0)
      return c->func (argc - 1, argv + 1);

  fprintf (stderr, _("heaplens-cli: unknown command '%s' (see 'heaplens-cli --help')\n"), argv[1]);
  return 2;
}
