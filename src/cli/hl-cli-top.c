/* hl-cli-top.c — `heaplens-cli top PID|SESSION [--interval MS] [--once]
 * [--top N] [--diff-after D]`: a refreshing terminal view of a live session, read through
 * the format's shm reader (hl-shm-reader.h) without disturbing the target:
 * state, heap, peak, RSS, allocation rate, dropped events, the threads
 * by name (running ones with their counters), the top call
 * sites by live bytes (symbolized from /proc/PID/maps while the process
 * runs, raw addresses otherwise) and the current metadata. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hl-cli-model-util.h"

#include "hl-cli-commands.h"
#include "hl-cli-top-diff.h"
#include "hl-cli-top-leaks.h"
#include "hl-model.h"
#include "hl-shm-reader.h"

#define TOP_FRAMES 3
#define TOP_NAME_MAX 72

typedef struct
{
  guint64 *frames;
  guint    n_frames;
} TopStack;

typedef struct
{
  HlShmReader  *reader;
  HlShmHeader   header;
  uint64_t      res_cursor;
  GHashTable   *stacks;     /* stack id -> TopStack */
  GArray       *sites;      /* HlShmCallsiteView, refreshed */
  HlSymbolizer *sym;
  GHashTable   *names;      /* address -> "func (module)" */
  GHashTable   *thread_names; /* tid -> its last name (resources' THREAD nodes) */
  GArray       *threads;    /* HlShmThreadView, refreshed: the running threads */
  gboolean      sym_tried;
  uint64_t      diff_since_ns; /* --diff-after: its start, ns since the session's; 0: off */
} Top;

static void
top_stack_free (gpointer data)
{
  TopStack *s = data;
  g_free (s->frames);
  g_free (s);
}

static void
human (char *out, size_t cap, uint64_t v)
{
  /* the CLI's one size format: B, KiB, MiB, GiB */
  g_autofree char *text = hl_cli_format_size (v);
  g_strlcpy (out, text, cap);
}

static bool
pid_alive (uint32_t pid)
{
  return pid != 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}

/* ---- Finding the session of a pid ---------------------------------------- */

/* The session name for TARGET (a pid, a segment name or a path), or NULL
 * with the reason printed: the model's, the app's words. */
static char *
resolve_target (const char *target)
{
  g_autoptr(GError) error = NULL;
  char *name;

  if (!hl_cli_is_pid (target))
    return g_strdup (target);
  name = hl_live_session_find_pid ((guint32) strtoul (target, NULL, 10), &error);
  if (name == NULL)
    fprintf (stderr, _("heaplens-cli top: %s\n"), error->message);
  return name;
}

/* ---- Reading ------------------------------------------------------------- */

static void
stack_cb (void           *user_data,
          uint32_t        stack_id,
          const uint64_t *frames,
          uint32_t        n_frames)
{
  Top *top = user_data;
  TopStack *s = g_new0 (TopStack, 1);
  s->frames = g_memdup2 (frames, sizeof (guint64) * n_frames);
  s->n_frames = n_frames;
  g_hash_table_replace (top->stacks, GUINT_TO_POINTER (stack_id), s);
}

static void
thread_cb (void       *user_data,
           uint32_t    tid,
           const char *name)
{
  Top *top = user_data;
  /* a later node of the same tid renames the thread */
  g_hash_table_replace (top->thread_names, GUINT_TO_POINTER (tid), hl_cli_printable (name));
}

static void
thread_counters_cb (void                  *user_data,
                    const HlShmThreadView *thread)
{
  Top *top = user_data;
  g_array_append_val (top->threads, *thread);
}

static gint
compare_thread_bytes (gconstpointer a,
                      gconstpointer b)
{
  const HlShmThreadView *x = a, *y = b;
  if (x->bytes_allocated != y->bytes_allocated)
    return x->bytes_allocated < y->bytes_allocated ? 1 : -1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static gint
compare_tids (gconstpointer a,
              gconstpointer b)
{
  guint x = GPOINTER_TO_UINT (*(gconstpointer const *) a), y = GPOINTER_TO_UINT (*(gconstpointer const *) b);
  return x < y ? -1 : x > y;
}

#define TOP_EXITED_MAX 10

/* The running threads (their slots' counters), the costliest first, at
 * most N_TOP, and the names of the threads that have exited. */
static void
render_threads (Top     *top,
                guint    n_top,
                GString *out)
{
  g_autoptr (GHashTable) running = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) exited = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_array_sort (top->threads, compare_thread_bytes);
  for (guint i = 0; i < top->threads->len; i++)
    g_hash_table_add (running, GUINT_TO_POINTER (g_array_index (top->threads, HlShmThreadView, i).tid));
  g_hash_table_iter_init (&it, top->thread_names);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_hash_table_contains (running, key))
      g_ptr_array_add (exited, key);
  g_ptr_array_sort (exited, compare_tids);
  g_string_append_printf (out, _("threads    %u running, %u exited\n"), top->threads->len, exited->len);
  if (top->threads->len > 0)
    g_string_append_printf (out, "  %8s  %-16s %12s %12s\n", _("tid"), _("name"), _("allocations"), _("allocated"));
  for (guint i = 0; i < top->threads->len && i < n_top; i++)
    {
      const HlShmThreadView *t = &g_array_index (top->threads, HlShmThreadView, i);
      const char *name = g_hash_table_lookup (top->thread_names, GUINT_TO_POINTER (t->tid));
      char bytes[32];
      human (bytes, sizeof bytes, t->bytes_allocated);
      g_string_append_printf (out, "  %8u  %-16s %12" PRIu64 " %12s\n", t->tid, name != NULL ? name : "-",
                              t->n_allocs, bytes);
    }
  if (exited->len > 0)
    {
      g_string_append (out, _("  exited:"));
      for (guint i = 0; i < exited->len && i < TOP_EXITED_MAX; i++)
        g_string_append_printf (out, "%s %s (%u)", i > 0 ? "," : "",
                                (const char *) g_hash_table_lookup (top->thread_names, exited->pdata[i]),
                                GPOINTER_TO_UINT (exited->pdata[i]));
      if (exited->len > TOP_EXITED_MAX)
        g_string_append_printf (out, _(" and %u more"), exited->len - TOP_EXITED_MAX);
      g_string_append_c (out, '\n');
    }
}

static void
site_cb (void                    *user_data,
         const HlShmCallsiteView *site)
{
  Top *top = user_data;
  g_array_append_val (top->sites, *site);
}

static uint64_t
live_bytes (const HlShmCallsiteView *s)
{
  return s->bytes > s->freed_bytes ? s->bytes - s->freed_bytes : 0;
}

static gint
compare_live (gconstpointer a,
              gconstpointer b)
{
  uint64_t x = live_bytes (a), y = live_bytes (b);
  return x < y ? 1 : x > y ? -1 : 0;
}

static void
meta_cb (void                *user_data,
         const HlShmMetaItem *item)
{
  GString *out = user_data;
  if (item->flags & HL_SHM_META_IS_STRING)
    g_string_append_printf (out, "  %s = %s\n", item->key, item->string_value);
  else
    g_string_append_printf (out, "  %s = %" PRId64 "\n", item->key, item->int_value);
}

static const char *
frame_name (Top     *top,
            guint64  address)
{
  char *name = g_hash_table_lookup (top->names, &address);
  if (name != NULL)
    return name;
  if (!top->sym_tried)
    {
      /* symbols from the process's own map while it runs (same user only:
       * the segment's owner check already made sure of it) */
      top->sym_tried = TRUE;
      GArray *mods = hl_proc_maps_read (top->header.pid, NULL);
      if (mods != NULL)
        {
          top->sym = hl_symbolizer_new ();
          for (guint i = 0; i < mods->len; i++)
            hl_symbolizer_add_module (top->sym, g_array_index (mods, HlProcModule, i).path,
                                      g_array_index (mods, HlProcModule, i).start, NULL);
          hl_symbolizer_end_modules (top->sym);
          g_array_unref (mods);
        }
    }
  HlSymbol frames[8];
  guint n = top->sym != NULL ? hl_symbolizer_resolve (top->sym, address, TRUE, frames, G_N_ELEMENTS (frames)) : 0;
  if (n > 0 && frames[n - 1].function != NULL)
    {
      const HlSymbol *f = &frames[0]; /* innermost: an inline frame when inlined */
      name = f->file != NULL ? g_strdup_printf ("%s (%s:%u)", f->function, f->file, f->line)
                             : g_strdup (f->function);
    }
  else
    name = g_strdup_printf ("0x%" PRIx64, address);
  if (g_utf8_strlen (name, -1) > TOP_NAME_MAX)
    {
      /* C++ template names run for hundreds of characters */
      char *cut = g_utf8_substring (name, 0, TOP_NAME_MAX - 1);
      g_free (name);
      name = g_strconcat (cut, "…", NULL);
      g_free (cut);
    }
  guint64 *key = g_new (guint64, 1);
  *key = address;
  g_hash_table_insert (top->names, key, name);
  return name;
}

static const char *
state_text (Top  *top,
            char *buf,
            size_t cap,
            bool *ended)
{
  uint64_t heartbeat = 0;
  HlShmState st = hl_shm_reader_state (top->reader, &heartbeat);
  *ended = false;
  if (st == HL_SHM_STATE_ENDED)
    {
      int32_t status = 0;
      uint32_t flags = 0;
      hl_shm_reader_end_info (top->reader, &status, NULL, &flags);
      *ended = true;
      if (flags & HL_SHM_FLAG_ENDED_BY_EXEC)
        snprintf (buf, cap, "%s", _("ended (exec'd another program)"));
      else if (status >= 128)
        snprintf (buf, cap, _("ended (killed by signal %d)"), (int) status - 128);
      else
        snprintf (buf, cap, _("ended (exit status %d)"), (int) status);
      return buf;
    }
  if (!pid_alive (top->header.pid))
    {
      *ended = true;
      snprintf (buf, cap, "%s", _("stale (the process is gone without ending its session)"));
      return buf;
    }
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  uint64_t now = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
  uint64_t since = now > top->header.start_mono_ns ? now - top->header.start_mono_ns : 0;
  if (since > heartbeat + 5000000000ull)
    snprintf (buf, cap, _("stale (no heartbeat for %.0f s)"), (double) (since - heartbeat) / 1e9);
  else
    snprintf (buf, cap, "%s", st == HL_SHM_STATE_STARTING ? _("starting") : _("running"));
  return buf;
}

/* Allocations per second over the last second of samples. */
static double
alloc_rate (Top                *top,
            const HlShmTotals  *t)
{
  HlShmSample s[256];
  uint64_t first = t->n_samples > G_N_ELEMENTS (s) ? t->n_samples - G_N_ELEMENTS (s) : 0;
  size_t n = hl_shm_reader_samples (top->reader, first, s, G_N_ELEMENTS (s));
  if (n < 2)
    return 0;
  const HlShmSample *last = &s[n - 1];
  size_t k = n - 1;
  while (k > 0 && last->time_ns - s[k - 1].time_ns <= 1000000000ull && s[k - 1].time_ns <= last->time_ns)
    k--;
  if (k == n - 1 || last->time_ns <= s[k].time_ns)
    return 0;
  return (double) (last->n_allocs - s[k].n_allocs) * 1e9 / (double) (last->time_ns - s[k].time_ns);
}

/* STACK_ID's first frames, and the line's end. */
static void
append_stack (Top      *top,
              GString  *out,
              uint32_t  stack_id)
{
  TopStack *st = g_hash_table_lookup (top->stacks, GUINT_TO_POINTER (stack_id));
  if (stack_id == 0 || st == NULL || st->n_frames == 0)
    g_string_append (out, _("(no stack)"));
  else
    for (guint f = 0; f < st->n_frames && f < TOP_FRAMES; f++)
      g_string_append_printf (out, "%s%s", f > 0 ? " ← " : "", frame_name (top, st->frames[f]));
  g_string_append_c (out, '\n');
}

/* The session's time now: ns since its start. */
static uint64_t
session_now_ns (const Top *top)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  uint64_t now = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
  return now > top->header.start_mono_ns ? now - top->header.start_mono_ns : 0;
}

/* --diff-after: the blocks allocated since its start and live now, by
 * call site. */
static int
render_diff (Top           *top,
             guint          n_top,
             GString       *out,
             HlFormatError *err)
{
  uint64_t blocks = 0, bytes = 0;
  g_autoptr(GArray) sites = hl_top_diff_collect (top->reader, top->diff_since_ns, top->header.sample_bytes,
                                                 &blocks, &bytes, err);
  if (sites == NULL)
    {
      fprintf (stderr, _("heaplens-cli top: %s\n"), err->message);
      return -1;
    }
  char total[32];
  human (total, sizeof total, bytes);
  g_string_append_printf (out, _("allocated after %.1f s and still live at %.1f s: %s in %" PRIu64 " blocks\n"),
                          (double) top->diff_since_ns / 1e9, (double) session_now_ns (top) / 1e9, total, blocks);
  g_string_append_printf (out, "  %10s %8s  %s\n", _("live"), _("blocks"), _("stack (innermost first)"));
  for (guint i = 0; i < sites->len && i < n_top; i++)
    {
      const HlTopDiffSite *d = &g_array_index (sites, HlTopDiffSite, i);
      char b[32];
      human (b, sizeof b, d->bytes);
      g_string_append_printf (out, "  %10s %8" PRIu64 "  ", b, d->blocks);
      append_stack (top, out, d->stack_id);
    }
  if (sites->len == 0)
    g_string_append (out, _("  (nothing allocated since is live)\n"));
  return 0;
}

/* One view into OUT; -1 with the error printed when the segment cannot be
 * read any more. */
static int
render (Top     *top,
        guint    n_top,
        GString *out,
        bool    *ended)
{
  HlFormatError err;
  HlShmTotals t;
  if (hl_shm_reader_totals (top->reader, &t, &err) != 0
      || hl_shm_reader_resources (top->reader, &top->res_cursor, stack_cb, thread_cb, top, &err) != 0)
    {
      fprintf (stderr, _("heaplens-cli top: %s\n"), err.message);
      return -1;
    }
  g_array_set_size (top->sites, 0);
  g_array_set_size (top->threads, 0);
  if (hl_shm_reader_callsites (top->reader, site_cb, top, &err) != 0
      || hl_shm_reader_threads (top->reader, thread_counters_cb, top, &err) != 0)
    {
      fprintf (stderr, _("heaplens-cli top: %s\n"), err.message);
      return -1;
    }
  g_array_sort (top->sites, compare_live);

  char state[128], heap[32], peak[32], rss[32], prss[32];
  uint64_t dropped = 0;
  for (int i = 0; i < HL_DROP_REASONS_MAX; i++)
    dropped += t.dropped[i];
  human (heap, sizeof heap, t.heap_bytes);
  human (peak, sizeof peak, t.peak_heap_bytes);
  human (rss, sizeof rss, t.rss_bytes);
  human (prss, sizeof prss, t.peak_rss_bytes);
  g_string_append_printf (out, _("heaplens top — pid %u  %s\n"), (unsigned) top->header.pid, top->header.exe);
  g_string_append_printf (out, _("state      %s\n"), state_text (top, state, sizeof state, ended));
  g_string_append_printf (out, _("heap       %s   peak %s at %.2f s\n"), heap, peak,
                          (double) t.peak_heap_time_ns / 1e9);
  g_string_append_printf (out, _("rss        %s   peak %s\n"), rss, prss);
  if (t.malloc_sample_ns != 0)
    {
      char in_use[32], free_b[32], own[32];
      human (in_use, sizeof in_use, t.malloc_in_use_bytes);
      human (free_b, sizeof free_b, t.malloc_free_bytes);
      human (own, sizeof own, t.malloc_mmapped_bytes);
      guint32 mflags = 0;
      hl_shm_reader_end_info (top->reader, NULL, NULL, &mflags);
      if (mflags & HL_SHM_FLAG_MALLOC_ESTIMATED)
        /* Translators: glibc's mallinfo2() figures, estimated since it became too slow to call */
        g_string_append_printf (out, _("malloc     in use %s   free inside its arenas %s   its own mappings %s   (at %.2f s, "
                                       "estimated: mallinfo2() had become too slow to call)\n"),
                                in_use, free_b, own, (double) t.malloc_sample_ns / 1e9);
      else
        /* Translators: glibc's mallinfo2() at its last sample */
        g_string_append_printf (out, _("malloc     in use %s   free inside its arenas %s   its own mappings %s   (at %.2f s)\n"),
                                in_use, free_b, own, (double) t.malloc_sample_ns / 1e9);
    }
  if (t.peak_mmap_bytes != 0)
    {
      char maps[32], pmaps[32];
      human (maps, sizeof maps, t.mmap_bytes);
      human (pmaps, sizeof pmaps, t.peak_mmap_bytes);
      g_string_append_printf (out, _("mmap       %s in %" PRIu64 " regions   peak %s\n"), maps, t.mmap_regions, pmaps);
    }
  g_string_append_printf (out, _("rate       %.0f allocations/s   total %" PRIu64 " allocations, %" PRIu64 " frees\n"),
                          alloc_rate (top, &t), t.n_allocs, t.n_frees);
  g_string_append_printf (out, _("live       %" PRIu64 " blocks\n"), t.n_allocs > t.n_frees ? t.n_allocs - t.n_frees : 0);
  g_string_append_printf (out, _("dropped    %" PRIu64 " events, %" PRIu64 " stacks\n"), dropped, t.stacks_dropped);
  hl_top_leaks_append (top->reader, out);
  guint32 flags = 0;
  hl_shm_reader_end_info (top->reader, NULL, NULL, &flags);
  if (flags & HL_SHM_FLAG_SHM_FULL)
    g_string_append_printf (out, _("live table stopped growing: /dev/shm is full (%" PRIu64 " allocations not tracked "
                                   "live; the trace is complete)\n"), t.dropped[HL_DROP_LIVE_TABLE]);
  if (flags & HL_SHM_FLAG_UNFOLLOWED)
    g_string_append (out, _("unrecorded programs it started that cannot take the preload (built with a sanitizer, or for "
                            "another machine)\n"));
  render_threads (top, n_top, out);
  g_string_append (out, _("metadata\n"));
  gsize before = out->len;
  if (hl_shm_reader_metadata (top->reader, meta_cb, out, &err) != 0)
    g_string_append_printf (out, "  (%s)\n", err.message);
  else if (out->len == before)
    g_string_append (out, _("  (none)\n"));
  if (top->header.sample_bytes != 0)
    g_string_append_printf (out, _("sampled    every %" PRIu64 " bytes allocated on average: the call sites are estimated\n"),
                            top->header.sample_bytes);
  if (top->diff_since_ns != 0)
    return render_diff (top, n_top, out, &err);
  g_string_append_printf (out, _("top call sites by live bytes\n  %10s %8s  %s\n"), _("live"), _("blocks"), _("stack (innermost first)"));
  guint shown = 0;
  for (guint i = 0; i < top->sites->len && shown < n_top; i++)
    {
      const HlShmCallsiteView *s = &g_array_index (top->sites, HlShmCallsiteView, i);
      uint64_t lb = live_bytes (s);
      if (lb == 0)
        break;
      char lbs[32];
      human (lbs, sizeof lbs, lb);
      g_string_append_printf (out, "  %10s %8" PRIu64 "  ", lbs, s->calls > s->frees ? s->calls - s->frees : 0);
      append_stack (top, out, s->stack_id);
      shown++;
    }
  if (shown == 0)
    g_string_append (out, _("  (nothing live)\n"));
  return 0;
}

static void
read_ended (gpointer data)
{
  Top *top = ((gpointer *) data)[0];
  *(bool *) ((gpointer *) data)[1] = hl_shm_reader_state (top->reader, NULL) == HL_SHM_STATE_ENDED;
}

/* The session ended (or its segment shrank under the reader). */
static bool
session_ended_guarded (Top *top)
{
  bool ended = false;
  gpointer args[2] = { top, &ended };
  return !hl_shm_guard_run (read_ended, args) || ended;
}

typedef struct
{
  Top     *top;
  guint    n_top;
  GString *out;
  bool     ended;
  int      rc;
} RenderCtx;

static void
render_guarded (gpointer data)
{
  RenderCtx *c = data;
  c->rc = render (c->top, c->n_top, c->out, &c->ended);
}

int
hl_cli_top (int    argc,
            char **argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new (_("PID|SESSION"));
  g_autoptr(GError) error = NULL;
  gint interval_ms = 1000, n_top = 10;
  gboolean once = FALSE, leak_scan = FALSE;
  g_autofree char *diff_after = NULL;
  const GOptionEntry entries[] = {
    { "diff-after", 0, 0, G_OPTION_ARG_STRING, &diff_after,
      N_("wait D (30s, 500ms, 2m), then print what was allocated meanwhile and is still live, by call site"), "D" },
    { "interval", 0, 0, G_OPTION_ARG_INT, &interval_ms, N_("refresh period (default 1000)"), "MS" },
    { "leak-scan", 0, 0, G_OPTION_ARG_NONE, &leak_scan,
      N_("ask the program for a leak scan now, wait for it (at most 10 s) and print one view with what it found"), NULL },
    { "once", 0, 0, G_OPTION_ARG_NONE, &once, N_("print one view and exit"), NULL },
    { "top", 0, 0, G_OPTION_ARG_INT, &n_top, N_("call sites shown (default 10)"), "N" },
    { NULL }
  };

  g_option_context_set_summary (ctx, _("Watches a live session (see 'heaplens-cli sessions'): heap, peak, RSS,\n"
                                       "allocation rate, dropped events, the call sites holding the most live\n"
                                       "bytes and the program's current metadata."));
  g_option_context_add_main_entries (ctx, entries, HL_GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, _("heaplens-cli top: %s\n"), error->message);
      return 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, _("heaplens-cli top: expected one PID or SESSION (see 'heaplens-cli top --help')\n"));
      return 2;
    }
  const char *target = argv[1];
  if (interval_ms < 50)
    interval_ms = 50;
  if (n_top < 1)
    n_top = 1;
  uint64_t diff_ns = 0;
  if (diff_after != NULL && !hl_top_diff_parse_duration (diff_after, &diff_ns))
    {
      fprintf (stderr, _("heaplens-cli top: --diff-after %s: not a duration (30s, 500ms, 2m, 1h)\n"), diff_after);
      return 2;
    }

  char *name = resolve_target (target);
  if (name == NULL)
    return 1;
  Top top = { 0 };
  HlFormatError err;
  if (hl_shm_reader_open (name, &top.reader, &err) != 0)
    {
      fprintf (stderr, _("heaplens-cli top: cannot read session %s: %s\n"), name, err.message);
      g_free (name);
      return 1;
    }
  top.header = *hl_shm_reader_header (top.reader);
  top.stacks = g_hash_table_new_full (NULL, NULL, NULL, top_stack_free);
  top.sites = g_array_new (FALSE, FALSE, sizeof (HlShmCallsiteView));
  top.names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  top.thread_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  top.threads = g_array_new (FALSE, FALSE, sizeof (HlShmThreadView));
  if (diff_ns != 0)
    {
      /* the first moment now; the second D later, or when the program ends */
      top.diff_since_ns = MAX (session_now_ns (&top), 1);
      fprintf (stderr, _("heaplens-cli top: watching pid %u for %.1f s: what it allocates meanwhile and still holds then\n"),
               (unsigned) top.header.pid, (double) diff_ns / 1e9);
      while (session_now_ns (&top) < top.diff_since_ns + diff_ns && pid_alive (top.header.pid) &&
             !session_ended_guarded (&top))
        g_usleep (20000);
      once = TRUE;
    }

  int rc = 0;
  if (leak_scan)
    {
      if (hl_top_leaks_request (top.reader, name, top.header.pid, 10 * G_GUINT64_CONSTANT (1000000000)) != 0)
        rc = 1;
      once = TRUE;
    }

  bool tty = isatty (STDOUT_FILENO);
  for (;;)
    {
      GString *out = g_string_new (NULL);
      /* the owner can shrink the segment under us: SIGBUS is caught */
      RenderCtx rc_ctx = { &top, (guint) n_top, out, false, 0 };
      if (!hl_shm_guard_run (render_guarded, &rc_ctx))
        {
          fprintf (stderr, "%s", _("heaplens-cli top: the session segment shrank while it was read (SIGBUS)\n"));
          rc_ctx.rc = -1;
        }
      bool ended = rc_ctx.ended;
      if (rc_ctx.rc != 0)
        {
          g_string_free (out, TRUE);
          rc = 1;
          break;
        }
      if (rc != 0)
        {
          /* --leak-scan that got no answer: no view */
          g_string_free (out, TRUE);
          break;
        }
      if (tty && !once)
        fputs ("\033[H\033[2J", stdout);
      else if (!once)
        fputs ("\n", stdout);
      fputs (out->str, stdout);
      fflush (stdout);
      g_string_free (out, TRUE);
      if (once || ended)
        break;
      g_usleep ((gulong) interval_ms * 1000);
    }

  if (top.sym != NULL)
    hl_symbolizer_free (top.sym);
  g_hash_table_destroy (top.names);
  g_hash_table_destroy (top.thread_names);
  g_array_unref (top.threads);
  g_hash_table_destroy (top.stacks);
  g_array_unref (top.sites);
  hl_shm_reader_free (top.reader);
  g_free (name);
  return rc;
}
