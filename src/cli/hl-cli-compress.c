/* hl-cli-compress.c — `heaplens-cli compress [--level N] [-o OUT] FILE`:
 * rewrites a plain trace as zstd frames (hl-trace-codec.h). Every reader of
 * the model and the CLI reads both forms. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hl-cli-commands.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"
#endif

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: heaplens-cli compress [OPTIONS] FILE\n\n"
           "Compresses a Heaplens trace in place (or into OUT) with zstd.\n\n"
           "Options:\n"
           "  -o, --output OUT  write the compressed trace to OUT\n"
           "  --level N         zstd level 1..19 (default 3)\n"
           "  --frame-mib N     at most N MiB of plain packets per frame (1..64, default 48)\n"
           "  -h, --help        this help\n");
}

int
hl_cli_compress (int    argc,
                 char **argv)
{
  const char *in = NULL, *out = NULL;
  int level = 3;
  size_t frame_raw = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else if ((strcmp (argv[i], "-o") == 0 || strcmp (argv[i], "--output") == 0) && i + 1 < argc)
        out = argv[++i];
      else if (strcmp (argv[i], "--level") == 0 && i + 1 < argc)
        {
          char *end;
          long l = strtol (argv[++i], &end, 10);
          if (*end != '\0' || l < 1 || l > 19)
            {
              fprintf (stderr, _("heaplens-cli compress: --level takes 1..19, not '%s'\n"), argv[i]);
              return 2;
            }
          level = (int) l;
        }
      else if (strcmp (argv[i], "--frame-mib") == 0 && i + 1 < argc)
        {
          char *end;
          long l = strtol (argv[++i], &end, 10);
          if (*end != '\0' || l < 1 || l > 64)
            {
              fprintf (stderr, _("heaplens-cli compress: --frame-mib takes 1..64, not '%s'\n"), argv[i]);
              return 2;
            }
          frame_raw = (size_t) l * 1024u * 1024u;
        }
      else if (argv[i][0] == '-' || in != NULL)
        {
          fprintf (stderr, _("heaplens-cli compress: unexpected '%s' (see --help)\n"), argv[i]);
          return 2;
        }
      else
        in = argv[i];
    }
  if (in == NULL)
    {
      usage (stderr);
      return 2;
    }
#ifdef HL_HAVE_ZSTD
  HlFormatError err;
  struct stat before, after;
  if (stat (in, &before) != 0)
    before.st_size = 0;
  if (hl_trace_compress_file (in, out != NULL ? out : in, hl_trace_codec_zstd (level), frame_raw, &err) != 0)
    {
      fprintf (stderr, _("heaplens-cli compress: %s: %s\n"), in, err.message);
      return 1;
    }
  if (stat (out != NULL ? out : in, &after) == 0)
    fprintf (stderr, _("%s: %lld -> %lld bytes\n"), out != NULL ? out : in, (long long) before.st_size,
             (long long) after.st_size);
  return 0;
#else
  (void) level;
  (void) frame_raw;
  (void) out;
  fprintf (stderr, _("heaplens-cli compress: built without libzstd\n"));
  return 1;
#endif
}
