/* hl-cli-compress.c — `heaplens-cli compress [--level N] [-o OUT] FILE`:
 * rewrites a plain trace as zstd frames (hl-trace-codec.h). Every reader of
 * the model and the CLI reads both forms. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <glib.h>
#include <stdio.h>
#include <sys/stat.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"
#endif

typedef struct
{
  int    level;
  size_t frame_raw;   /* 0: the default */
} CompressOptions;

/* TEXT as an integer in MIN..MAX, else FALSE. */
static gboolean
parse_range (const char *text,
             gint64      min,
             gint64      max,
             gint64     *out)
{
  return g_ascii_string_to_signed (text, 10, min, max, out, NULL);
}

static gboolean
parse_level (const char  *option,
             const char  *value,
             gpointer     data,
             GError     **error)
{
  CompressOptions *o = data;
  gint64 v;
  if (!parse_range (value, 1, 19, &v))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--level takes 1..19, not '%s'"), value);
      return FALSE;
    }
  o->level = (int) v;
  return TRUE;
}

static gboolean
parse_frame_mib (const char  *option,
                 const char  *value,
                 gpointer     data,
                 GError     **error)
{
  CompressOptions *o = data;
  gint64 v;
  if (!parse_range (value, 1, 64, &v))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--frame-mib takes 1..64, not '%s'"), value);
      return FALSE;
    }
  o->frame_raw = (size_t) v * 1024u * 1024u;
  return TRUE;
}

int
hl_cli_compress (int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  CompressOptions o = { 3, 0 };
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("write the compressed trace to OUT"), "OUT" },
    { "level", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_level, N_("zstd level 1..19 (default 3)"), "N" },
    { "frame-mib", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_frame_mib,
      N_("at most N MiB of plain packets per frame (1..64, default 16)"), "N" },
    { NULL }
  };
  GOptionGroup *group = g_option_group_new (NULL, NULL, NULL, &o, NULL);

  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, HL_GETTEXT_PACKAGE);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_summary (ctx, _("Compresses a Heaplens trace in place (or into OUT) with zstd."));
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli compress: %s\n"), error->message);
      return 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, _("heaplens-cli compress: expected one trace FILE (see 'heaplens-cli compress --help')\n"));
      return 2;
    }
  const char *in = argv[1];
  int level = o.level;
  size_t frame_raw = o.frame_raw;
#ifdef HL_HAVE_ZSTD
  HlFormatError err;
  struct stat before, after;
  /* what a killed program left in its session, before it is compressed
   * out of reach (nothing is appended to a compressed trace) */
  hl_cli_salvage_before_read ("compress", in);
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
