/* hl-cli-dump.c — `heaplens-cli dump [OPTIONS] FILE`: prints the packets and
 * events of a trace in a readable form, with the reader's warnings. The
 * debugging tool of the trace format (docs/trace-format.md). */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hl-cli-commands.h"
#include "hl-trace-dump.h"
#include "hl-trace-index.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#define DUMP_CODEC hl_trace_codec_zstd (0)
#else
#include "hl-trace-codec.h"
#define DUMP_CODEC NULL
#endif

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: heaplens-cli dump [OPTIONS] FILE\n\n"
           "Prints the packets and events of a Heaplens trace, and what the reader\n"
           "skipped or could not decode.\n\n"
           "Options:\n"
           "  --offsets     prefix each event with its byte offset in the file\n"
           "  --headers     packet headers only\n"
           "  --index       the packet index (trailing index, or a walk of the headers)\n"
           "  -h, --help    this help\n\n"
           "Exit status: 0 when the trace decoded cleanly, 1 when something was\n"
           "skipped or malformed, 2 when the file cannot be read as a trace.\n");
}

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
  unsigned flags = 0;
  bool index = false;
  const char *path = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else if (strcmp (argv[i], "--offsets") == 0)
        flags |= HL_DUMP_OFFSETS;
      else if (strcmp (argv[i], "--headers") == 0)
        flags |= HL_DUMP_HEADERS_ONLY;
      else if (strcmp (argv[i], "--index") == 0)
        index = true;
      else if (argv[i][0] == '-' && strcmp (argv[i], "-") != 0 && path == NULL && strcmp (argv[i], "--") != 0)
        {
          fprintf (stderr, _("heaplens-cli dump: unknown option '%s' (see --help)\n"), argv[i]);
          return 2;
        }
      else if (strcmp (argv[i], "--") == 0 && i + 1 < argc && path == NULL)
        path = argv[++i];
      else if (path == NULL)
        path = argv[i];
      else
        {
          fprintf (stderr, _("heaplens-cli dump: one FILE only (see --help)\n"));
          return 2;
        }
    }
  if (path == NULL)
    {
      usage (stderr);
      return 2;
    }
  HlTraceReader *r;
  HlFormatError err;
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
