/* hl-cli-timeline.c — `heaplens-cli timeline FILE`: the heap over time as
 * CSV or JSON, per time bucket: the heap's least and most, RSS, the
 * allocations made; with --sites N, the N call sites that held the most at
 * once and their bytes at each bucket's end (the application's By Call
 * Site), then the heap's. For a spreadsheet, gnuplot or a script. */
#include "hl-config.h"

#include <glib/gi18n.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"

#define MAX_BUCKETS 100000
#define MAX_SITES   64

/* The name of call site SITE, a function with its file and line. */
static char *
site_name (const HlSiteInfo *site)
{
  if (site->stack == 0 || site->frame == NULL)
    return g_strdup (_("(stack not recorded)"));
  return hl_cli_format_frame (site->frame);
}

/* S as one CSV field (RFC 4180: quoted, quotes doubled). */
static void
csv_field (GString    *out,
           const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

/* --memory: the last allocator sample at or before each bucket's end
 * (zeros before the first): malloc's bytes in use and free inside its
 * arenas, the program's own mappings. */
typedef struct
{
  guint64 in_use, free_bytes, mmap;
} MemoryAt;

static GArray *
memory_of (HlRecording *rec,
           GArray      *series)
{
  guint n, k = 0;
  const HlAllocatorPoint *pts = hl_recording_get_allocator_samples (rec, &n);
  GArray *out = g_array_sized_new (FALSE, TRUE, sizeof (MemoryAt), series->len);
  MemoryAt m = { 0, 0, 0 };

  for (guint i = 0; i < series->len; i++)
    {
      const HlSeriesBucket *b = &g_array_index (series, HlSeriesBucket, i);
      for (; k < n && pts[k].time_ns < b->end_ns; k++)
        m = (MemoryAt) { pts[k].in_use_bytes + pts[k].mmapped_chunks_bytes, pts[k].free_bytes, pts[k].mmap_bytes };
      g_array_append_val (out, m);
    }
  return out;
}

static void
print_csv (GArray             *series,
           const HlSiteSeries *sites,
           GArray             *memory)
{
  g_autoptr (GString) out = g_string_new ("start_ns,end_ns,heap_min_bytes,heap_max_bytes,rss_bytes,allocations,bytes_allocated");
  guint n_sites = sites != NULL ? sites->sites->len : 0;

  if (sites != NULL)
    {
      for (guint k = 0; k < n_sites; k++)
        {
          g_autofree char *name = site_name (&g_array_index (sites->sites, HlSiteInfo, k));
          g_autofree char *shown = hl_cli_printable (name);
          g_string_append_c (out, ',');
          csv_field (out, shown);
        }
      g_string_append (out, ",heap_end_bytes");
    }
  if (memory != NULL)
    g_string_append (out, ",malloc_in_use_bytes,malloc_free_bytes,mmap_bytes");
  g_string_append_c (out, '\n');
  for (guint i = 0; i < series->len; i++)
    {
      const HlSeriesBucket *b = &g_array_index (series, HlSeriesBucket, i);
      g_string_append_printf (out, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                              b->start_ns, b->end_ns, b->heap_min, b->heap_max, b->rss_max, b->allocations,
                              b->bytes_allocated);
      for (guint k = 0; sites != NULL && k <= n_sites; k++)
        g_string_append_printf (out, ",%" G_GUINT64_FORMAT,
                                g_array_index (sites->bytes, guint64, (gsize) i * (n_sites + 1) + k));
      if (memory != NULL)
        {
          const MemoryAt *m = &g_array_index (memory, MemoryAt, i);
          g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, m->in_use,
                                  m->free_bytes, m->mmap);
        }
      g_string_append_c (out, '\n');
    }
  fwrite (out->str, 1, out->len, stdout);
}

/* A line for each site and bucket (a bucket's sites on its line). */
static const HlJsonLayout timeline_layout[] = {
  { "",        "", "\n ",  "" },
  { "sites",   "\n  ", "\n  ", "" },
  { "buckets", "\n  ", "\n  ", "" },
};

static void
print_json (const char         *path,
            GArray             *series,
            const HlSiteSeries *sites,
            GArray             *memory)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  guint n_sites = sites != NULL ? sites->sites->len : 0;

  json_builder_begin_object (b);
  hl_json_add_string (b, "file", path);
  json_builder_set_member_name (b, "sites");
  json_builder_begin_array (b);
  for (guint k = 0; k < n_sites; k++)
    {
      const HlSiteInfo *site = &g_array_index (sites->sites, HlSiteInfo, k);
      g_autofree char *name = site_name (site);

      json_builder_begin_object (b);
      hl_json_add_string (b, "name", name);
      hl_json_add_string (b, "function", site->frame != NULL && site->stack != 0 ? site->frame->function : "");
      hl_json_add_uint (b, "peak_bytes", site->peak_bytes);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "buckets");
  json_builder_begin_array (b);
  for (guint i = 0; i < series->len; i++)
    {
      const HlSeriesBucket *bucket = &g_array_index (series, HlSeriesBucket, i);

      json_builder_begin_object (b);
      hl_json_add_uint (b, "start_ns", bucket->start_ns);
      hl_json_add_uint (b, "end_ns", bucket->end_ns);
      hl_json_add_uint (b, "heap_min", bucket->heap_min);
      hl_json_add_uint (b, "heap_max", bucket->heap_max);
      hl_json_add_uint (b, "rss", bucket->rss_max);
      hl_json_add_uint (b, "allocations", bucket->allocations);
      hl_json_add_uint (b, "bytes_allocated", bucket->bytes_allocated);
      if (sites != NULL)
        {
          const guint64 *row = &g_array_index (sites->bytes, guint64, (gsize) i * (n_sites + 1));

          json_builder_set_member_name (b, "sites");
          json_builder_begin_array (b);
          for (guint k = 0; k < n_sites; k++)
            hl_json_add_uint (b, NULL, row[k]);
          json_builder_end_array (b);
          hl_json_add_uint (b, "heap_end", row[n_sites]);
        }
      if (memory != NULL)
        {
          const MemoryAt *m = &g_array_index (memory, MemoryAt, i);
          hl_json_add_uint (b, "malloc_in_use", m->in_use);
          hl_json_add_uint (b, "malloc_free", m->free_bytes);
          hl_json_add_uint (b, "mmap", m->mmap);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  hl_json_write (out, root, timeline_layout, G_N_ELEMENTS (timeline_layout));
  g_string_append_c (out, '\n');
  fwrite (out->str, 1, out->len, stdout);
}

int
hl_cli_timeline (int    argc,
                 char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = NULL;
  g_autoptr (HlFilter) filter = NULL;
  g_autoptr (GArray) series = NULL;
  g_autoptr (HlSiteSeries) sites = NULL;
  HlCliFilterOptions opts = { 0 };
  int buckets = 100, n_sites = 0, status;
  gboolean json = FALSE, with_memory = FALSE;
  g_autoptr (GArray) memory = NULL;
  guint64 t0 = 0, t1 = HL_TIME_END;
  GOptionEntry entries[] = {
    { "buckets", 'n', 0, G_OPTION_ARG_INT, &buckets, N_("Time buckets (default 100)"), "N" },
    { "sites", 's', 0, G_OPTION_ARG_INT, &n_sites, N_("Also the N call sites that held the most at once, and their bytes"), "N" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &opts.from, N_("From time T (ns, or 20ms, 1.5s, or @MARK, @MARK#N)"), "T" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &opts.to, N_("Until time T (or @MARK)"), "T" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("JSON instead of CSV"), NULL },
    { "memory", 0, 0, G_OPTION_ARG_NONE, &with_memory, N_("Also malloc's bytes in use and free, and the program's own mappings"), NULL },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("The heap over time, as CSV (or JSON): per time bucket the heap's least and\n"
                                       "most, RSS and the allocations made; with --sites N, the N call sites that\n"
                                       "held the most at once, their bytes at each bucket's end, and the heap's."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli timeline: %s\n"), error->message);
      hl_cli_filter_clear (&opts);
      return 2;
    }
  if (argc != 2 || buckets < 1 || buckets > MAX_BUCKETS || n_sites < 0 || n_sites > MAX_SITES)
    {
      fprintf (stderr, _("heaplens-cli timeline: expected one trace FILE, 1 to %d buckets and 0 to %d sites "
                         "(see 'heaplens-cli timeline --help')\n"), MAX_BUCKETS, MAX_SITES);
      hl_cli_filter_clear (&opts);
      return 2;
    }
  rec = hl_cli_load_filtered_full ("timeline", argv[1], &opts, &filter, &status);
  hl_cli_filter_clear (&opts);
  if (rec == NULL)
    return status;
  if (hl_filter_has_time_range (filter))
    hl_filter_get_time_range (filter, &t0, &t1);
  /* a range's end is inclusive: the buckets end after it */
  if (t1 != HL_TIME_END)
    t1++;
  series = hl_recording_get_series (rec, t0, t1, (guint) buckets);
  if (series == NULL)
    return 1;
  hl_series_hold_rss (series); /* the largest sample in a bucket, else the last one before */
  if (n_sites > 0)
    sites = hl_recording_get_site_series (rec, t0, t1, (guint) buckets, (guint) n_sites);
  if (with_memory)
    memory = memory_of (rec, series);
  if (json)
    print_json (argv[1], series, sites, memory);
  else
    print_csv (series, sites, memory);
  return 0;
}
