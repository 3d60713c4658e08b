/* hl-cli-dump.c — `heaplens-cli dump [OPTIONS] FILE`: prints the packets and
 * events of a trace in a readable form, with the reader's warnings. The
 * debugging tool of the trace format (docs/trace-format.md). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#include "hl-trace-dump.h"
#include "hl-trace-index.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#define DUMP_CODEC hl_trace_codec_zstd (0)
#else
#include "hl-trace-codec.h"
#define DUMP_CODEC NULL
#endif

static int
dump_index (HlTraceReader *r, const char *path)
{
  HlTraceIndex *x;
  HlFormatError err;
  if (hl_trace_index_load (r, &x, &err) != 0)
    {
      fprintf (stderr, _("heaplens-cli dump: %s: %s\n"), path, err.message);
      return 2;
    }
  printf (_("index: %zu packets, %s\n"), x->n_entries, x->from_file ? "trailing index" : x->note);
  for (size_t i = 0; i < x->n_entries; i++)
    {
      const HlTraceIndexEntry *e = &x->entries[i];
      printf ("  @%" PRIu64 " %s tid %" PRIu32 ": %" PRIu32 " bytes, %" PRIu32 " events, time %" PRIu64 "..%" PRIu64,
              e->offset, e->kind == HL_PACKET_KIND_INFO ? "INFO" : "EVENTS", e->tid, e->size, e->n_events,
              e->time_begin_ns, e->time_end_ns);
      if (e->alloc_id_end > e->alloc_id_begin)
        printf (", ids %" PRIu64 "..%" PRIu64, e->alloc_id_begin, e->alloc_id_end - 1);
      printf (", flags 0x%" PRIx32 "\n", e->flags);
    }
  hl_trace_index_free (x);
  return 0;
}

int
hl_cli_dump (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr(GError) error = NULL;
  gboolean offsets = FALSE, headers = FALSE, index = FALSE;
  const GOptionEntry entries[] = {
    { "offsets", 0, 0, G_OPTION_ARG_NONE, &offsets, N_("prefix each event with its byte offset in the file"), NULL },
    { "headers", 0, 0, G_OPTION_ARG_NONE, &headers, N_("packet headers only"), NULL },
    { "index", 0, 0, G_OPTION_ARG_NONE, &index, N_("the packet index (trailing index, or a walk of the headers)"), NULL },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("Prints the packets and events of a Heaplens trace, and what the reader\n"
                                       "skipped or could not decode."));
  g_option_context_set_description (ctx, _("Exit status: 0 when the trace decoded cleanly, 1 when something was\n"
                                           "skipped or malformed, 2 when the file cannot be read as a trace."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli dump: %s\n"), error->message);
      return 2;
    }
  /* "--" ends the options: FILE may start with '-' */
  int first = argc > 1 && strcmp (argv[1], "--") == 0 ? 2 : 1;
  if (argc - first != 1)
    {
      fprintf (stderr, _("heaplens-cli dump: expected one trace FILE (see 'heaplens-cli dump --help')\n"));
      return 2;
    }
  const char *path = argv[first];
  unsigned flags = (offsets ? HL_DUMP_OFFSETS : 0u) | (headers ? HL_DUMP_HEADERS_ONLY : 0u);
  HlTraceReader *r;
  HlFormatError err;
  hl_cli_salvage_before_read ("dump", path);
  if (hl_trace_reader_open_file_codec (path, DUMP_CODEC, &r, &err) != 0)
    {
      fprintf (stderr, _("heaplens-cli dump: %s: %s\n"), path, err.message);
      return 2;
    }
  int rc = index ? dump_index (r, path) : hl_trace_dump (r, stdout, flags, NULL);
  hl_trace_reader_free (r);
  if (fflush (stdout) != 0)
    return 2;
  return rc;
}
