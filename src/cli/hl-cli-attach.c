/* hl-cli-attach.c — `heaplens-cli attach PID [-o FILE]`: loads the
 * preload into a running process that was not started under it (the
 * model's hl_attach_check and hl_attach_run, hl-attach.h), follows the
 * recording in the foreground as record does, and at Ctrl+C (or `attach
 * --detach PID` from elsewhere) has the preload detach: the allocator put
 * back, the trace finished, the process left running. The trace is then
 * compressed and one line printed. docs/capture.md, "Attach". */
#define _GNU_SOURCE
#include "hl-config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#include "hl-cli-session-file.h"
#include "hl-model.h"
#include "hl-shm-control.h"
#include "hl-shm-layout.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-compress.h"
#include "hl-trace-zstd.h"
#endif

#define ATTACH_ZSTD_LEVEL 9

static void
usage (FILE *out)
{
  fprintf (out, "%s", _("Usage: heaplens-cli attach [-o FILE] PID\n"
                        "       heaplens-cli attach --detach PID\n\n"
                        "Loads the Heaplens preload into the running process PID, which was not started\n"
                        "under it, and records its heap from then on, until Ctrl+C (or attach --detach\n"
                        "PID): the process then goes on running, unrecorded.\n\n"
                        "  -o, --output FILE   the trace (default: heaplens.COMM.PID.hltrace here)\n"
                        "      --no-compress   keep the plain trace\n"
                        "      --detach PID    end the recording of an attached process\n"
                        "  -h, --help          this help\n"));
}

static volatile sig_atomic_t interrupted;

static void
on_signal (int sig)
{
  (void) sig;
  interrupted++;
}

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
print_end (const HlCliSession *s, const char *trace, bool detached)
{
  g_autofree char *peak = hl_cli_format_size (s->peak_heap_bytes);
  uint64_t live = s->bytes_allocated >= s->bytes_freed ? s->bytes_allocated - s->bytes_freed : 0;
  g_autofree char *leaked = hl_cli_format_size (live);
  uint64_t known_frees = s->n_frees - MIN (s->frees_unknown, s->n_frees);
  uint64_t blocks = s->n_allocs >= known_frees ? s->n_allocs - known_frees : 0;
  fprintf (stderr,
           _("heaplens: %s: %" PRIu64 " allocations, %" PRIu64 " frees, peak %s, not freed %s in %" PRIu64
             " blocks, %" PRIu64 " dropped; %" PRIu64 " frees of blocks allocated before the attach"),
           trace, s->n_allocs, s->n_frees, peak, leaked, blocks, s->dropped, s->frees_unknown);
  if (detached)
    fprintf (stderr, "%s", _("; detached, the process goes on\n"));
  else if (s->header.exit_status >= 0)
    fprintf (stderr, _("; the process exited with status %d\n"), s->header.exit_status);
  else
    fprintf (stderr, "%s", _("; the process ended\n"));
}

static int
detach_command (const char *pid_text)
{
  guint64 pid;
  if (!g_ascii_string_to_unsigned (pid_text, 10, 1, G_MAXINT32, &pid, NULL))
    {
      fprintf (stderr, _("heaplens-cli attach: not a process id: %s\n"), pid_text);
      return 2;
    }
  g_autofree char *found = hl_attach_find_session ((guint32) pid, TRUE);
  if (found == NULL)
    {
      fprintf (stderr, _("heaplens-cli attach: process %d has no attached session (heaplens-cli sessions lists "
                         "them)\n"),
               (int) pid);
      return 1;
    }
  const char *name = found;
  g_autoptr (GError) error = NULL;
  if (!hl_attach_request_detach (name, (guint32) pid, &error))
    {
      fprintf (stderr, "heaplens-cli attach: %s\n", error->message);
      return 1;
    }
  for (int waited = 0; waited < 10000; waited += 20)
    {
      HlCliSession s;
      char err[256];
      if (!hl_cli_session_read (name, &s, err, sizeof err) || s.header.state_atomic == HL_SHM_STATE_ENDED)
        {
          fprintf (stderr, _("heaplens: process %d detached\n"), (int) pid);
          return 0;
        }
      g_usleep (20000);
    }
  fprintf (stderr, _("heaplens: detach of process %d requested: it takes effect at the process's next "
                     "allocation\n"),
           (int) pid);
  return 0;
}

int
hl_cli_attach (int    argc,
               char **argv)
{
  const char *output = NULL, *pid_text = NULL;
  bool compress = true;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else if (strcmp (a, "--detach") == 0 && i + 1 < argc)
        return detach_command (argv[i + 1]);
      else if ((strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0) && i + 1 < argc)
        output = argv[++i];
      else if (strcmp (a, "--no-compress") == 0)
        compress = false;
      else if (a[0] != '-' && pid_text == NULL)
        pid_text = a;
      else
        {
          usage (stderr);
          return 2;
        }
    }
  guint64 pid64;
  if (pid_text == NULL || !g_ascii_string_to_unsigned (pid_text, 10, 1, G_MAXINT32, &pid64, NULL))
    {
      usage (stderr);
      return 2;
    }
  pid_t pid = (pid_t) pid64;

  HlAttachTarget target;
  g_autoptr (GError) error = NULL;
  if (!hl_attach_check ((guint32) pid, &target, &error))
    {
      fprintf (stderr, "heaplens-cli attach: %s\n", error->message);
      return g_error_matches (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_NOT_FOUND) ? 1 : 2;
    }
  g_autofree char *preload = hl_launch_env_find_preload ();
  if (preload == NULL)
    {
      fprintf (stderr, _("heaplens-cli attach: cannot find libheaplens-preload.so (looked in %s and %s; "
                         "HEAPLENS_PRELOAD overrides)\n"),
               HL_BUILD_PRELOAD_DIR, HL_PKGLIBDIR);
      return 1;
    }
  g_autofree char *trace = NULL;
  if (output != NULL)
    trace = g_path_is_absolute (output) ? g_strdup (output) : g_build_filename (g_get_current_dir (), output, NULL);
  else
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_autofree char *base = g_strdup_printf ("heaplens.%s.%d.hltrace", target.comm[0] ? target.comm : "process",
                                               (int) pid);
      trace = g_build_filename (cwd, base, NULL);
    }

  /* Ctrl+C, SIGTERM, SIGHUP: held off while the process is stopped (a
   * half-made call must be put back first), then they detach */
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  sigset_t block, old;
  sigemptyset (&block);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGHUP);
  sigprocmask (SIG_BLOCK, &block, &old);
  HlAttachOptions options = { preload, trace };
  HlAttachResult result;
  gboolean attached = hl_attach_run (&target, &options, NULL, NULL, &result, &error);
  sigprocmask (SIG_SETMASK, &old, NULL);
  if (!attached)
    {
      fprintf (stderr, "heaplens-cli attach: %s\n", error->message);
      return g_error_matches (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_DECLINED) ? 2 : 1;
    }
  char name[256];
  g_strlcpy (name, result.session, sizeof name);
  fprintf (stderr, _("heaplens: attached to process %d (%s): stopped %.1f ms (every thread %.1f ms); recording "
                     "to %s (Ctrl+C detaches)\n"),
           (int) pid, target.comm, result.stopped_ns / 1e6, result.all_stopped_ns / 1e6, trace);
  g_free (result.session);
  g_free (result.trace_path);

  /* the foreground: until the session ends (a detach, or the process's
   * exit) */
  bool requested = false, said_waiting = false, detached;
  uint64_t requested_at = 0;
  HlCliSession s;
  memset (&s, 0, sizeof s);
  for (;;)
    {
      char serr[256];
      bool have = hl_cli_session_read (name, &s, serr, sizeof serr);
      if (!have || s.header.state_atomic == HL_SHM_STATE_ENDED)
        break;
      if (!hl_cli_pid_alive ((uint32_t) pid))
        {
          fprintf (stderr, _("heaplens: process %d ended without finishing its recording (killed?)\n"), (int) pid);
          break;
        }
      if (interrupted > 0 && !requested)
        {
          if (hl_shm_request_control (name, (uint32_t) pid, HL_SHM_CONTROL_DETACH) != 0)
            fprintf (stderr, _("heaplens: cannot ask the process to detach: %s\n"), g_strerror (errno));
          requested = true;
          requested_at = now_ns ();
        }
      if (requested && !said_waiting && now_ns () - requested_at > 1000000000u)
        {
          fprintf (stderr, "%s", _("heaplens: the process detaches at its next allocation (Ctrl+C again: stop "
                                   "waiting)\n"));
          said_waiting = true;
        }
      if (interrupted > 1)
        return 1;
      g_usleep (20000);
    }
  /* a detach (ours or attach --detach's) ends with status -1 and the
   * process running */
  detached = s.header.state_atomic == HL_SHM_STATE_ENDED && s.header.exit_status == -1
             && hl_cli_pid_alive ((uint32_t) pid);
  /* the segment was left for us (HEAPLENS_KEEP_SESSION) */
  if (s.header.flags & HL_SHM_FLAG_KEPT)
    {
      g_autofree char *path = g_strdup_printf ("/dev/shm/%s", name);
      (void) g_unlink (path);
    }
#ifdef HL_HAVE_ZSTD
  if (compress && g_file_test (trace, G_FILE_TEST_IS_REGULAR))
    {
      HlFormatError ferr;
      if (hl_trace_compress_file_indexed (trace, trace, hl_trace_codec_zstd (ATTACH_ZSTD_LEVEL), 0, &ferr) != 0)
        fprintf (stderr, _("heaplens: %s left uncompressed: %s\n"), trace, ferr.message);
    }
#else
  (void) compress;
#endif
  print_end (&s, trace, detached);
  return 0;
}
