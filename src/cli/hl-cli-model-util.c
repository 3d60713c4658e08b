/* hl-cli-model-util.c — helpers of the model-based subcommands. */
#include "hl-config.h"
#include "hl-cli-model-util.h"

#include <glib/gi18n.h>
#include <string.h>

#include "hl-cli-prune-salvage.h"

void
hl_cli_salvage_before_read (const char *cmd,
                            const char *path)
{
  /* the paths looked at (diff reads two; a loader that falls back on
   * another loads again) */
  static GMutex lock;
  static GHashTable *seen;
  g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
  g_autofree char *local = g_file_get_path (file);

  (void) cmd;
  if (local == NULL)
    return;
  g_mutex_lock (&lock);
  if (seen == NULL)
    seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean first = g_hash_table_add (seen, g_strdup (local));
  g_mutex_unlock (&lock);
  if (!first)
    return;
  g_autoptr (GPtrArray) done = hl_session_salvage_for_trace (local);
  for (guint i = 0; i < done->len; i++)
    {
      const HlSessionSalvageFound *f = g_ptr_array_index (done, i);
      hl_cli_prune_salvage_print (stderr, f->name, f->pid, f->trace, f->outcome, &f->salvage, f->error);
    }
}

HlRecording *
hl_cli_load_recording (const char *cmd,
                       const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr (GError) error = NULL;
  HlRecording *rec;

  hl_cli_salvage_before_read (cmd, path);
  rec = hl_recording_load (file, HL_LOAD_FLAGS_NONE, NULL, NULL, NULL, &error);

  if (rec == NULL)
    {
      fprintf (stderr, _("heaplens-cli %s: %s\n"), cmd, error->message);
      return NULL;
    }
  return rec;
}

HlRecording *
hl_cli_load_recording_for (const char     *cmd,
                           const char     *path,
                           const HlFilter *filter)
{
  /* Without a filter by time an analysis needs costs per call site (and
   * thread) only: a costs-only load reads the trace in one pass with
   * memory for what is live, or the costs saved in it
   * (HEAPLENS_REPORT_FULL=1 loads every allocation, for checks). */
  hl_cli_salvage_before_read (cmd, path);
  if (!hl_filter_selects_by_time (filter) && g_getenv ("HEAPLENS_REPORT_FULL") == NULL)
    {
      g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
      g_autoptr (GError) error = NULL;
      HlRecording *rec = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE, NULL, NULL, NULL, &error);

      if (rec != NULL)
        return rec;
      if (!g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
        {
          fprintf (stderr, _("heaplens-cli %s: %s\n"), cmd, error->message);
          return NULL;
        }
    }
  return hl_cli_load_recording (cmd, path);
}

char *
hl_cli_format_size (guint64 bytes)
{
  static const char *units[] = { "KiB", "MiB", "GiB", "TiB" };
  double v = (double) bytes;
  int u = -1;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  while (v >= 1024 && u < 3)
    {
      v /= 1024;
      u++;
    }
  return g_strdup_printf ("%.2f %s", v, units[u]);
}

char *
hl_cli_format_cost (HlCostKind kind,
                    guint64    value)
{
  if (hl_cost_kind_is_bytes (kind))
    return hl_cli_format_size (value);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
}

char *
hl_cli_format_frame (const HlFrame *frame)
{
  GString *s = g_string_new (frame->function);

  if (frame->file != NULL)
    {
      g_autofree char *base = g_path_get_basename (frame->file);
      g_string_append_printf (s, " (%s:%u)", base, frame->line);
    }
  if (frame->module_name != NULL && frame->module_name[0] != '\0')
    g_string_append_printf (s, " [%s]", frame->module_name);
  if (frame->is_inline)
    g_string_append (s, " [inline]");
  return g_string_free (s, FALSE);
}

void
hl_cli_filter_add_entries (GOptionContext     *ctx,
                           HlCliFilterOptions *opts)
{
  const GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &opts->from, N_("Only allocations made from time T (ns, or 20ms, 1.5s, or @MARK: the time of the first mark MARK; @MARK#N: of the Nth)"), "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &opts->to, N_("Only allocations made until time T (or @MARK)"), "T" },
    { "thread", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opts->threads, N_("Only allocations of thread TID (repeatable)"), "TID" },
    { "where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opts->where, N_("Only while metadata KEY had VALUE (repeatable)"), "KEY=VALUE" },
    { "filter", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opts->filters, N_("module=M, function=SUB, function~=REGEX, ... (repeatable)"), "EXPR" },
    { "lived-at-least", 0, 0, G_OPTION_ARG_STRING, &opts->lived_at_least, N_("The long-lived cost's T: bytes of the blocks that lived at least T (10ms, 1.5s; loads every allocation)"), "T" },
    { NULL }
  };
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
}

static HlFilter *
apply (const char *cmd,
       HlFilter   *f,
       const char *expr)
{
  g_autoptr (GError) error = NULL;
  HlFilter *g = hl_filter_parse (f, expr, &error);

  hl_filter_unref (f);
  if (g == NULL)
    fprintf (stderr, _("heaplens-cli %s: %s\n"), cmd, error->message);
  return g;
}

char *
hl_cli_printable (const char *text)
{
  char *out = g_utf8_make_valid (text != NULL ? text : "", -1);
  for (char *c = out; *c != '\0'; c++)
    if ((guchar) *c < 0x20 || *c == 0x7f)
      *c = ' ';
  return out;
}

/* A time given as "@TEXT": the time of the recording's first mark TEXT
 * ("@TEXT#N": of its Nth). */
static gboolean
is_mark_ref (const char *t)
{
  return t != NULL && t[0] == '@';
}

HlFilter *
hl_cli_filter_build (const char         *cmd,
                     HlCliFilterOptions *opts)
{
  HlFilter *f = hl_filter_new ();

  if (opts->from != NULL && !is_mark_ref (opts->from))
    {
      g_autofree char *e = g_strconcat ("from=", opts->from, NULL);
      if ((f = apply (cmd, f, e)) == NULL)
        return NULL;
    }
  if (opts->to != NULL && !is_mark_ref (opts->to))
    {
      g_autofree char *e = g_strconcat ("to=", opts->to, NULL);
      if ((f = apply (cmd, f, e)) == NULL)
        return NULL;
    }
  for (guint i = 0; opts->threads != NULL && opts->threads[i] != NULL; i++)
    {
      g_autofree char *e = g_strconcat ("thread=", opts->threads[i], NULL);
      if ((f = apply (cmd, f, e)) == NULL)
        return NULL;
    }
  for (guint i = 0; opts->where != NULL && opts->where[i] != NULL; i++)
    {
      const char *eq = strchr (opts->where[i], '=');
      HlFilter *g;
      g_autofree char *key = NULL;
      if (eq == NULL || eq == opts->where[i])
        {
          fprintf (stderr, _("heaplens-cli %s: --where takes KEY=VALUE, not '%s'\n"), cmd, opts->where[i]);
          hl_filter_unref (f);
          return NULL;
        }
      key = g_strndup (opts->where[i], eq - opts->where[i]);
      g = hl_filter_with_metadata (f, key, eq + 1);
      hl_filter_unref (f);
      f = g;
    }
  for (guint i = 0; opts->filters != NULL && opts->filters[i] != NULL; i++)
    if ((f = apply (cmd, f, opts->filters[i])) == NULL)
      return NULL;
  if (opts->lived_at_least != NULL)
    {
      g_autofree char *e = g_strconcat ("lived=", opts->lived_at_least, NULL);
      if ((f = apply (cmd, f, e)) == NULL)
        return NULL;
    }
  return f;
}

/* The mark REF ("TEXT", or "TEXT#N": the Nth mark TEXT, counted from 1,
 * when no mark is "TEXT#N" itself) among MARKS, in time order; NULL when
 * there is none. *N_SAME: how many marks TEXT there are when REF asked for
 * the Nth and there were fewer; 0 otherwise. */
static const HlMark *
find_mark (const HlMark *marks,
           guint         n,
           const char   *ref,
           guint        *n_same)
{
  *n_same = 0;
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (marks[i].text, ref) == 0)
      return &marks[i];
  const char *hash = strrchr (ref, '#');
  guint64 nth;
  if (hash == NULL || !g_ascii_string_to_unsigned (hash + 1, 10, 1, G_MAXUINT, &nth, NULL))
    return NULL;
  gsize len = (gsize) (hash - ref);
  guint seen = 0;
  for (guint i = 0; i < n; i++)
    if (marks[i].text != NULL && strlen (marks[i].text) == len && memcmp (marks[i].text, ref, len) == 0
        && ++seen == nth)
      return &marks[i];
  *n_same = seen;
  return NULL;
}

/* F with KEY ("from", "to") at the time of the mark REF + 1 of REC (REF:
 * "@TEXT", "@TEXT#N"); F itself when REF is not a mark reference. */
static HlFilter *
apply_mark (const char  *cmd,
            const char  *path,
            HlFilter    *f,
            const char  *key,
            const char  *ref,
            HlRecording *rec)
{
  guint n;
  const HlMark *marks;

  if (!is_mark_ref (ref))
    return f;
  marks = hl_recording_get_marks (rec, &n);
  guint n_same;
  const HlMark *mark = find_mark (marks, n, ref + 1, &n_same);
  if (mark != NULL)
    {
      g_autofree char *e = g_strdup_printf ("%s=%" G_GUINT64_FORMAT, key, mark->time_ns);
      return apply (cmd, f, e);
    }
  if (n_same > 0)
    {
      g_autofree char *text = g_strndup (ref + 1, (gsize) (strrchr (ref, '#') - (ref + 1)));
      g_autofree char *shown = hl_cli_printable (text);
      fprintf (stderr, ngettext ("heaplens-cli %s: --%s %s: %s has %u mark '%s'\n",
                                 "heaplens-cli %s: --%s %s: %s has %u marks '%s'\n", n_same),
               cmd, key, ref, path, n_same, shown);
      hl_filter_unref (f);
      return NULL;
    }

  /* the first 10 distinct texts (a repeated mark once) */
  g_autoptr (GString) known = g_string_new (NULL);
  g_autoptr (GHashTable) listed = g_hash_table_new (g_str_hash, g_str_equal);
  guint i = 0;
  for (; i < n && g_hash_table_size (listed) < 10; i++)
    if (marks[i].text != NULL && g_hash_table_add (listed, (gpointer) marks[i].text))
      {
        g_autofree char *text = hl_cli_printable (marks[i].text);
        g_string_append_printf (known, "%s'%s'", g_hash_table_size (listed) > 1 ? ", " : "", text);
      }
  for (; i < n; i++)
    if (marks[i].text != NULL && !g_hash_table_contains (listed, marks[i].text))
      {
        g_string_append (known, ", …");
        break;
      }
  if (n == 0)
    fprintf (stderr, _("heaplens-cli %s: --%s %s: %s has no marks\n"), cmd, key, ref, path);
  else
    fprintf (stderr, _("heaplens-cli %s: --%s %s: %s has no mark '%s' (its marks: %s)\n"), cmd, key, ref, path,
             ref + 1, known->str);
  hl_filter_unref (f);
  return NULL;
}

static HlRecording *
load_filtered (const char         *cmd,
               const char         *path,
               HlCliFilterOptions *opts,
               gboolean            full,
               HlFilter          **filter,
               int                *status)
{
  gboolean by_mark = full || is_mark_ref (opts->from) || is_mark_ref (opts->to);
  HlFilter *f = hl_cli_filter_build (cmd, opts);
  HlRecording *rec;

  *filter = NULL;
  *status = 2;
  if (f == NULL)
    return NULL;
  hl_cli_salvage_before_read (cmd, path);
  /* (a range between marks selects by time: every allocation is loaded;
   * so FULL, for what needs them all: the heap over time) */
  rec = by_mark ? hl_cli_load_recording (cmd, path) : hl_cli_load_recording_for (cmd, path, f);
  if (rec == NULL)
    {
      hl_filter_unref (f);
      *status = 1;
      return NULL;
    }
  if ((f = apply_mark (cmd, path, f, "from", opts->from, rec)) == NULL
      || (f = apply_mark (cmd, path, f, "to", opts->to, rec)) == NULL)
    {
      g_object_unref (rec);
      return NULL;
    }
  *filter = f;
  *status = 0;
  return rec;
}

HlRecording *
hl_cli_load_filtered (const char         *cmd,
                      const char         *path,
                      HlCliFilterOptions *opts,
                      HlFilter          **filter,
                      int                *status)
{
  return load_filtered (cmd, path, opts, FALSE, filter, status);
}

HlRecording *
hl_cli_load_filtered_full (const char         *cmd,
                           const char         *path,
                           HlCliFilterOptions *opts,
                           HlFilter          **filter,
                           int                *status)
{
  return load_filtered (cmd, path, opts, TRUE, filter, status);
}

HlRecording *
hl_cli_load_range (const char         *cmd,
                   const char         *path,
                   HlCliFilterOptions *opts,
                   HlFilter          **filter,
                   HlRecording       **whole,
                   int                *status)
{
  g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) all = NULL;
  HlFilter *f = hl_cli_filter_build (cmd, opts);
  HlRecording *rec;
  guint64 t0, t1;

  *filter = NULL;
  *whole = NULL;
  *status = 2;
  if (f == NULL)
    return NULL;
  hl_cli_salvage_before_read (cmd, path);
  /* a block's lifetime ends with its free, after the range's packets */
  if (opts->lived_at_least != NULL)
    {
      hl_filter_unref (f);
      return load_filtered (cmd, path, opts, TRUE, filter, status);
    }
  /* The whole run's summary from the costs saved in the trace; without
   * them a costs-only pass plus the range costs more than one full load
   * (docs/cli.md), unless HEAPLENS_REPORT_SEEK=1 (tests, benchmarks). */
  all = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE | HL_LOAD_FLAGS_SAVED_COSTS_ONLY, NULL, NULL, NULL, &error);
  if (all == NULL && g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
    {
      g_clear_error (&error);
      if (g_strcmp0 (g_getenv ("HEAPLENS_REPORT_SEEK"), "1") != 0)
        {
          hl_filter_unref (f);
          return load_filtered (cmd, path, opts, TRUE, filter, status);
        }
      all = hl_recording_load (file, HL_LOAD_FLAGS_AGGREGATE, NULL, NULL, NULL, &error);
    }
  if (all == NULL)
    {
      hl_filter_unref (f);
      if (!g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
        {
          fprintf (stderr, _("heaplens-cli %s: %s\n"), cmd, error->message);
          *status = 1;
          return NULL;
        }
      /* Translators: the reason is a sentence of the model's */
      fprintf (stderr, _("heaplens-cli %s: note: every allocation is loaded (%s)\n"), cmd, error->message);
      return load_filtered (cmd, path, opts, TRUE, filter, status);
    }
  if ((f = apply_mark (cmd, path, f, "from", opts->from, all)) == NULL
      || (f = apply_mark (cmd, path, f, "to", opts->to, all)) == NULL)
    return NULL;
  hl_filter_get_time_range (f, &t0, &t1);
  rec = hl_recording_load_range (file, t0, t1, HL_LOAD_FLAGS_NONE, NULL, &error);
  if (rec == NULL)
    {
      if (!g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
        {
          fprintf (stderr, _("heaplens-cli %s: %s\n"), cmd, error->message);
          hl_filter_unref (f);
          *status = 1;
          return NULL;
        }
      fprintf (stderr, _("heaplens-cli %s: note: every allocation is loaded (%s)\n"), cmd, error->message);
      if ((rec = hl_cli_load_recording (cmd, path)) == NULL)
        {
          hl_filter_unref (f);
          *status = 1;
          return NULL;
        }
    }
  else
    *whole = g_steal_pointer (&all);
  *filter = f;
  *status = 0;
  return rec;
}

HlRecording *
hl_cli_load_selection (const char         *cmd,
                       const char         *path,
                       HlCliFilterOptions *opts,
                       HlFilter          **filter,
                       int                *status)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;
  HlFilter *f;
  HlRecording *rec;
  guint64 t0, t1;

  if ((opts->from == NULL && opts->to == NULL) || is_mark_ref (opts->from) || is_mark_ref (opts->to)
      || opts->where != NULL || opts->lived_at_least != NULL || g_getenv ("HEAPLENS_REPORT_FULL") != NULL)
    return load_filtered (cmd, path, opts, FALSE, filter, status);
  *filter = NULL;
  *status = 2;
  if ((f = hl_cli_filter_build (cmd, opts)) == NULL)
    return NULL;
  hl_cli_salvage_before_read (cmd, path);
  file = g_file_new_for_commandline_arg (path);
  hl_filter_get_time_range (f, &t0, &t1);
  rec = hl_recording_load_range (file, t0, t1, HL_LOAD_FLAGS_NONE, NULL, &error);
  if (rec == NULL && g_error_matches (error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
    {
      fprintf (stderr, _("heaplens-cli %s: note: every allocation is loaded (%s)\n"), cmd, error->message);
      rec = hl_cli_load_recording (cmd, path);
    }
  else if (rec == NULL)
    fprintf (stderr, _("heaplens-cli %s: %s\n"), cmd, error->message);
  if (rec == NULL)
    {
      hl_filter_unref (f);
      *status = 1;
      return NULL;
    }
  *filter = f;
  *status = 0;
  return rec;
}

gboolean
hl_cli_cost_needs_events (HlCliFilterOptions *opts,
                          HlCostKind          cost)
{
  return cost == HL_COST_KIND_MMAP && opts->threads != NULL;
}

void
hl_cli_filter_clear (HlCliFilterOptions *opts)
{
  g_clear_pointer (&opts->from, g_free);
  g_clear_pointer (&opts->to, g_free);
  g_clear_pointer (&opts->threads, g_strfreev);
  g_clear_pointer (&opts->where, g_strfreev);
  g_clear_pointer (&opts->filters, g_strfreev);
  g_clear_pointer (&opts->lived_at_least, g_free);
}

gboolean
hl_cli_is_pid (const char *text)
{
  if (*text == '\0')
    return FALSE;
  for (; *text != '\0'; text++)
    if (*text < '0' || *text > '9')
      return FALSE;
  return TRUE;
}
