/* hl-cli-top.c — `heaplens-cli top PID|SESSION [--interval MS] [--once]
 * [--top N]`: a refreshing terminal view of a live session, a client of
 * the model's HlLiveSession (found as the application finds it,
 * hl-live-discovery.h; read, fed and symbolized by the session without
 * disturbing the target): state, heap, peak, RSS, allocation rate,
 * dropped events, the top call sites by live bytes (symbolized from
 * /proc/PID/maps while the process runs, raw addresses otherwise) and the
 * current metadata. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#include "hl-model.h"

#define TOP_FRAMES 3
#define TOP_NAME_MAX 72
#define STALE_AFTER_NS (5 * G_GUINT64_CONSTANT (1000000000))
/* the first polls catch up with the samples ring (a poll reads at most
 * 2048 of its 8192) */
#define CATCH_UP_POLLS 3

typedef struct
{
  /* Owned */
  HlLiveSession *session;
  GMainLoop     *loop;

  /* Borrowed */
  const char    *source;       /* the name or path the session was opened with */
  guint          n_top;
  gboolean       once;
  gboolean       tty;

  guint          n_warnings;   /* the session's warnings printed so far */
} Top;

static gboolean
pid_alive (guint32 pid)
{
  return pid != 0 && (kill ((pid_t) pid, 0) == 0 || errno == EPERM);
}

static gboolean
state_is_final (HlLiveState state)
{
  return state == HL_LIVE_STATE_ENDED || state == HL_LIVE_STATE_STALE || state == HL_LIVE_STATE_VANISHED
         || state == HL_LIVE_STATE_RESTARTED;
}

/* ---- Finding the session ------------------------------------------------- */

static gboolean
parse_pid (const char *text,
           guint32    *pid)
{
  guint64 v;

  for (const char *c = text; *c != '\0'; c++)
    if (!g_ascii_isdigit (*c))
      return FALSE;
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT32, &v, NULL))
    return FALSE;
  *pid = (guint32) v;
  return TRUE;
}

/* The session of TARGET (a pid, a segment name or a path), or NULL with
 * the reason printed (the application's reasons: hl-live-discovery.h).
 * *SOURCE: what it was opened with. */
static HlLiveSession *
open_target (const char  *target,
             char       **source)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  HlLiveSession *session;
  guint32 pid;

  if (parse_pid (target, &pid))
    {
      name = hl_live_session_find_pid (pid, &error);
      if (name == NULL)
        {
          fprintf (stderr, _("heaplens-cli top: %s\n"), error->message);
          return NULL;
        }
    }
  else
    name = g_strdup (target);
  session = hl_live_session_open_name (name, &error);
  if (session == NULL)
    {
      /* the message starts with the name */
      g_autofree char *prefix = g_strconcat (name, ": ", NULL);
      const char *why = g_str_has_prefix (error->message, prefix) ? error->message + strlen (prefix) : error->message;
      fprintf (stderr, _("heaplens-cli top: cannot read session %s: %s\n"), name, why);
      return NULL;
    }
  *source = g_steal_pointer (&name);
  return session;
}

/* ---- One view ------------------------------------------------------------ */

/* "stale (no heartbeat for N s)" when the segment of a running session
 * has not beaten for 5 s (a stopped process), else NULL. */
static char *
heartbeat_text (Top *top)
{
  g_autoptr(HlLiveSessionInfo) info = hl_live_session_info_read (top->source);
  struct timespec ts;
  guint64 now, since;

  if (!info->readable)
    return NULL;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  now = (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
  since = now > info->start_mono_ns ? now - info->start_mono_ns : 0;
  if (since <= info->heartbeat_ns + STALE_AFTER_NS)
    return NULL;
  return g_strdup_printf (_("stale (no heartbeat for %.0f s)"), (double) (since - info->heartbeat_ns) / 1e9);
}

static char *
state_text (Top *top)
{
  HlLiveSession *s = top->session;
  int status = hl_live_session_get_exit_status (s);
  char *stale;

  switch (hl_live_session_get_state (s))
    {
    case HL_LIVE_STATE_ENDED:
      if (status >= 128)
        return g_strdup_printf (_("ended (killed by signal %d)"), status - 128);
      return g_strdup_printf (_("ended (exit status %d)"), status);
    case HL_LIVE_STATE_RESTARTED:
      return g_strdup (_("ended (exec'd another program)"));
    case HL_LIVE_STATE_STALE:
    case HL_LIVE_STATE_VANISHED:
      if (pid_alive (hl_live_session_get_pid (s)) && (stale = heartbeat_text (top)) != NULL)
        return stale;
      return g_strdup (_("stale (the process is gone without ending its session)"));
    case HL_LIVE_STATE_STARTING:
    case HL_LIVE_STATE_RUNNING:
    default:
      if ((stale = heartbeat_text (top)) != NULL)
        return stale;
      return g_strdup (hl_live_session_get_state (s) == HL_LIVE_STATE_STARTING ? _("starting") : _("running"));
    }
}

/* Allocations per second over the last second of samples. */
static double
alloc_rate (HlLiveSession *session)
{
  guint n_all;
  const HlLiveSample *all = hl_live_session_get_samples (session, &n_all);
  guint n = MIN (n_all, 256u);
  const HlLiveSample *s = all + (n_all - n);

  if (n < 2)
    return 0;
  const HlLiveSample *last = &s[n - 1];
  guint k = n - 1;
  while (k > 0 && last->time_ns - s[k - 1].time_ns <= G_GUINT64_CONSTANT (1000000000)
         && s[k - 1].time_ns <= last->time_ns)
    k--;
  if (k == n - 1 || last->time_ns <= s[k].time_ns)
    return 0;
  return (double) (last->n_allocs - s[k].n_allocs) * 1e9 / (double) (last->time_ns - s[k].time_ns);
}

/* NAME cut to TOP_NAME_MAX characters (C++ template names run for
 * hundreds); takes NAME. */
static char *
cut_name (char *name)
{
  if (g_utf8_strlen (name, -1) <= TOP_NAME_MAX)
    return name;
  g_autofree char *cut = g_utf8_substring (name, 0, TOP_NAME_MAX - 1);
  g_free (name);
  return g_strconcat (cut, "…", NULL);
}

/* One return address as the recording symbolized it: its innermost frame
 * (an inline frame when inlined), FRAMES[0..N) being that address's
 * frames, the last one not inline. */
static char *
address_name (const HlFrame * const *frames,
              guint                  n)
{
  const HlFrame *inner = frames[0], *outer = frames[n - 1];

  if (!outer->resolved)
    return g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", outer->address);
  if (inner->file != NULL)
    return g_strdup_printf ("%s (%s:%u)", inner->function, inner->file, inner->line);
  return g_strdup (inner->function);
}

/* The first TOP_FRAMES return addresses of C's stack, innermost first. */
static void
append_stack (GString              *out,
              HlRecording          *recording,
              const HlLiveCallsite *c)
{
  HlStackId stack = c->stack_id != 0 ? hl_recording_lookup_stack (recording, c->stack_id) : 0;
  guint n_frames = 0, shown = 0;
  const HlFrame * const *frames = stack != 0 ? hl_recording_get_stack_frames (recording, stack, &n_frames) : NULL;

  if (c->stack_id == 0 || c->n_frames == 0)
    {
      g_string_append (out, _("(no stack)"));
      return;
    }
  if (n_frames == 0)
    {
      /* not in the recording yet: raw addresses */
      for (guint f = 0; f < c->n_frames && f < TOP_FRAMES; f++)
        g_string_append_printf (out, "%s0x%" G_GINT64_MODIFIER "x", f > 0 ? " ← " : "", c->frames[f]);
      return;
    }
  /* an address's frames: its inline frames, then the function they are in */
  for (guint first = 0; first < n_frames && shown < TOP_FRAMES; shown++)
    {
      guint end = first;
      while (end + 1 < n_frames && frames[end]->is_inline)
        end++;
      g_autofree char *name = cut_name (address_name (frames + first, end + 1 - first));
      g_string_append_printf (out, "%s%s", shown > 0 ? " ← " : "", name);
      first = end + 1;
    }
}

static void
append_callsites (Top     *top,
                  GString *out)
{
  HlRecording *recording = hl_live_session_get_recording (top->session);
  guint n_sites, shown = 0;
  const HlLiveCallsite *sites = hl_live_session_get_callsites (top->session, &n_sites);

  g_string_append_printf (out, _("top call sites by live bytes\n  %10s %8s  %s\n"), _("live"), _("blocks"),
                          _("stack (innermost first)"));
  /* sorted by live bytes, largest first */
  for (guint i = 0; i < n_sites && shown < top->n_top; i++)
    {
      const HlLiveCallsite *c = &sites[i];
      g_autofree char *live = NULL;

      if (c->live_bytes == 0)
        break;
      live = hl_cli_format_size (c->live_bytes);
      g_string_append_printf (out, "  %10s %8" PRIu64 "  ", live, c->live_count);
      append_stack (out, recording, c);
      g_string_append_c (out, '\n');
      shown++;
    }
  if (shown == 0)
    g_string_append (out, _("  (nothing live)\n"));
}

/* One view into OUT; *FINAL: the session will not change any more. */
static void
render (Top      *top,
        GString  *out,
        gboolean *final)
{
  HlLiveSession *s = top->session;
  GPtrArray *metadata = hl_live_session_get_metadata (s);
  g_autofree char *state = state_text (top);
  HlLiveTotals t;

  hl_live_session_get_totals (s, &t);
  *final = state_is_final (hl_live_session_get_state (s));
  g_string_append_printf (out, _("heaplens top — pid %u  %s\n"), (unsigned) hl_live_session_get_pid (s),
                          hl_live_session_get_exe (s));
  g_string_append_printf (out, _("state      %s\n"), state);
  g_autofree char *heap = hl_cli_format_size (t.heap_bytes);
  g_autofree char *peak = hl_cli_format_size (t.peak_heap_bytes);
  g_autofree char *rss = hl_cli_format_size (t.rss_bytes);
  g_autofree char *peak_rss = hl_cli_format_size (t.peak_rss_bytes);
  g_string_append_printf (out, _("heap       %s   peak %s at %.2f s\n"), heap, peak,
                          (double) t.peak_heap_time_ns / 1e9);
  g_string_append_printf (out, _("rss        %s   peak %s\n"), rss, peak_rss);
  g_string_append_printf (out, _("rate       %.0f allocations/s   total %" PRIu64 " allocations, %" PRIu64 " frees\n"),
                          alloc_rate (s), t.n_allocs, t.n_frees);
  g_string_append_printf (out, _("live       %" PRIu64 " blocks\n"),
                          t.n_allocs > t.n_frees ? t.n_allocs - t.n_frees : 0);
  g_string_append_printf (out, _("dropped    %" PRIu64 " events, %" PRIu64 " stacks\n"),
                          t.dropped, t.stacks_dropped);
  if (hl_live_session_get_unfollowed (s))
    g_string_append (out, _("unrecorded programs it started that cannot take the preload (built with a sanitizer, or for "
                            "another machine)\n"));
  g_string_append (out, _("metadata\n"));
  for (guint i = 0; i < metadata->len; i++)
    {
      const HlLiveMetaInterval *m = g_ptr_array_index (metadata, i);
      g_string_append_printf (out, "  %s = %s\n", m->key, m->value);
    }
  if (metadata->len == 0)
    g_string_append (out, _("  (none)\n"));
  append_callsites (top, out);
}

/* ---- Refreshing ---------------------------------------------------------- */

/* Lets the session's symbolizer store the frames of the stacks read so
 * far (the live-table scan, which top does not show, may go on). */
static void
wait_symbols (HlLiveSession *session)
{
  while (hl_live_session_is_symbolizing (session))
    g_main_context_iteration (NULL, TRUE);
}

/* Problems the session met while reading (a malformed region, the segment
 * shrinking under it), once each. */
static void
print_warnings (Top *top)
{
  const char * const *warnings = hl_live_session_get_warnings (top->session);
  guint n = g_strv_length ((char **) warnings);

  for (; top->n_warnings < n; top->n_warnings++)
    fprintf (stderr, _("heaplens-cli top: %s\n"), warnings[top->n_warnings]);
}

/* Prints one view; TRUE when it was the last. */
static gboolean
show (Top *top)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean final;

  render (top, out, &final);
  print_warnings (top);
  if (top->tty && !top->once)
    fputs ("\033[H\033[2J", stdout);
  else if (!top->once)
    fputs ("\n", stdout);
  fputs (out->str, stdout);
  fflush (stdout);
  return top->once || final;
}

static gboolean
on_refresh (gpointer user_data)
{
  Top *top = user_data;

  hl_live_session_poll (top->session);
  if (!show (top))
    return G_SOURCE_CONTINUE;
  g_main_loop_quit (top->loop);
  return G_SOURCE_REMOVE;
}

int
hl_cli_top (int    argc,
            char **argv)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new (_("PID|SESSION"));
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  gint interval_ms = 1000, n_top = 10;
  gboolean once = FALSE;
  Top top = { 0 };
  const GOptionEntry entries[] = {
    { "interval", 0, 0, G_OPTION_ARG_INT, &interval_ms, N_("refresh period (default 1000)"), "MS" },
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
  interval_ms = MAX (interval_ms, 50);
  n_top = MAX (n_top, 1);

  top.session = open_target (argv[1], &source);
  if (top.session == NULL)
    return 1;
  top.source = source;
  top.n_top = (guint) n_top;
  top.once = once;
  top.tty = isatty (STDOUT_FILENO);
  for (guint i = 0; i < CATCH_UP_POLLS; i++)
    hl_live_session_poll (top.session);
  /* the one view of --once waits for the symbols (the session resolves
   * them on a worker: a second or two the first time); a refreshing view
   * starts at once, and its names come with the next refreshes */
  if (once)
    wait_symbols (top.session);
  if (!show (&top))
    {
      top.loop = g_main_loop_new (NULL, FALSE);
      g_timeout_add ((guint) interval_ms, on_refresh, &top);
      g_main_loop_run (top.loop);
      g_main_loop_unref (top.loop);
    }
  /* a live-table scan still running on a worker holds the session until
   * it ends: the process does not wait for it */
  g_object_unref (top.session);
  return 0;
}
