/* hl-cli-attach.c — `heaplens-cli attach PID [-o FILE]`: loads the
 * preload into a running process that was not started under it (ptrace
 * remote calls of its dlopen and of the preload's heaplens__attach,
 * hl-inject.h), follows the recording in the foreground as record does,
 * and at Ctrl+C (or `attach --detach PID` from elsewhere) has the preload
 * detach: the allocator put back, the trace finished, the process left
 * running. The trace is then compressed and one line printed.
 *
 * The preload's configuration goes through a file the process reads at
 * heaplens__attach: /dev/shm/heaplens-attach-<uid>-<pid>, created here
 * O_EXCL | O_NOFOLLOW with mode 0600 (the preload checks its owner and
 * mode, then unlinks it). docs/capture.md, "Attach". */
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

#include "hl-cli-attach-refusal.h"
#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#include "hl-cli-session-file.h"
#include "hl-inject.h"
#include "hl-model.h"
#include "hl-shm-control.h"
#include "hl-shm-layout.h"
#ifdef HL_HAVE_ZSTD
#include "hl-trace-compress.h"
#include "hl-trace-zstd.h"
#endif

#define ATTACH_ZSTD_LEVEL 9

/* heaplens__attach's answers (hl-capture-attach.c) */
static const char *
attach_answer (uint64_t code)
{
  switch ((int) code)
    {
    case 1: return _("the program runs under the preload already (LD_PRELOAD): its session has ended");
    case 2: return _("the process is being recorded already");
    case 3: return _("the preload found no safe configuration file (/dev/shm/heaplens-attach-UID-PID)");
    case 4: return _("the preload could not create its session (its line on the process's stderr says why)");
    case 5: return _("the preload's own functions resolve elsewhere (it must be linked with -Bsymbolic-functions)");
    case 6: return _("the program is not position-independent and takes the address of malloc or its kin, so "
                     "its allocator cannot be redirected safely (record it from its start with heaplens-cli "
                     "record; the preload stays loaded, inert)");
    default: return _("the preload gave an unknown answer");
    }
}

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

/* The configuration file for the preload (hl-capture-attach.c). */
static char *
write_config (pid_t pid, const char *trace, GError **error)
{
  char *path = g_strdup_printf ("/dev/shm/heaplens-attach-%u-%d", (unsigned) geteuid (), (int) pid);
  struct stat st;
  /* a stale one of ours (an attach that failed): replaced */
  if (lstat (path, &st) == 0 && st.st_uid == geteuid ())
    (void) unlink (path);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), _("cannot create %s: %s"), path,
                   g_strerror (errno));
      g_free (path);
      return NULL;
    }
  GString *text = g_string_new (NULL);
  /* the template expands %: a literal one doubled */
  g_autofree char *escaped = NULL;
  {
    GString *e = g_string_new (NULL);
    for (const char *c = trace; *c != '\0'; c++)
      {
        if (*c == '%')
          g_string_append_c (e, '%');
        g_string_append_c (e, *c);
      }
    escaped = g_string_free (e, FALSE);
  }
  g_string_append_printf (text, "HEAPLENS_OUTPUT=%s\nHEAPLENS_KEEP_SESSION=1\nHEAPLENS_LAUNCHER=%d\n", escaped,
                          (int) getpid ());
  /* our own HEAPLENS_* settings (the unwinder, the depth...) go along */
  static const char *const passed[] = { "HEAPLENS_UNWIND", "HEAPLENS_DEPTH", "HEAPLENS_MAX_STACKS",
                                        "HEAPLENS_LIVE_SLOTS", "HEAPLENS_SAMPLE_MS", "HEAPLENS_FOLLOW",
                                        "HEAPLENS_SAMPLE_BYTES", "HEAPLENS_SAMPLE_SEED", "HEAPLENS_LIVE_GRANULE",
                                        "HEAPLENS_FINE_CLOCK_MS" };
  for (size_t i = 0; i < G_N_ELEMENTS (passed); i++)
    {
      const char *v = g_getenv (passed[i]);
      if (v != NULL && strchr (v, '\n') == NULL)
        g_string_append_printf (text, "%s=%s\n", passed[i], v);
    }
  bool ok = write (fd, text->str, text->len) == (ssize_t) text->len;
  int e = errno;
  close (fd);
  g_string_free (text, TRUE);
  if (!ok)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), _("cannot write %s: %s"), path, g_strerror (e));
      (void) unlink (path);
      g_free (path);
      return NULL;
    }
  return path;
}

/* The address of the defined symbol NAME of the module of PID whose file
 * name starts with PREFIX. */
static bool
remote_symbol (pid_t pid, const char *prefix, const char *name, uintptr_t *addr, char *err, size_t cap)
{
  HlInjectModule m;
  uint64_t value;
  if (!hl_inject_find_module (pid, prefix, &m, err, cap))
    return false;
  g_autofree char *file = g_strdup_printf ("/proc/%d/root%s", (int) pid, m.path);
  if (!hl_inject_elf_symbol (file, name, &value, err, cap))
    return false;
  *addr = m.bias + (uintptr_t) value;
  return true;
}

/* The injection: dlopen (PRELOAD) unless it is loaded, then
 * heaplens__attach (). Returns 0, 2 (the preload said no), 3 (the
 * process exited) or 1, with a message in ERR. */
static int
inject (pid_t pid, const char *preload, bool loaded, char *err, size_t cap, uint64_t *stopped_ns,
        uint64_t *all_ns)
{
  HlInject *inj;
  uintptr_t f_dlopen = 0, f_dlerror = 0, f_attach = 0;
  if (!loaded && (!remote_symbol (pid, "libc", "dlopen", &f_dlopen, err, cap)
                  || !remote_symbol (pid, "libc", "dlerror", &f_dlerror, err, cap)))
    return 1;
  HlInjectStatus st = hl_inject_begin (pid, &inj, err, cap);
  if (st != HL_INJECT_OK)
    return st == HL_INJECT_GONE ? 3 : 1;
  /* for the test of a process that exits while it is stopped
   * (HEAPLENS_ATTACH_TEST_PAUSE_MS: the threads are stopped meanwhile) */
  const char *pause = g_getenv ("HEAPLENS_ATTACH_TEST_PAUSE_MS");
  if (pause != NULL)
    g_usleep ((gulong) MIN (g_ascii_strtoull (pause, NULL, 10), 10000) * 1000);
  uint64_t ret = 0;
  int rc = 0;
  if (!loaded)
    {
      st = hl_inject_call (inj, f_dlopen, preload, HL_INJECT_ARG_STR, 2 /* RTLD_NOW */, 0, &ret, err, cap);
      if (st == HL_INJECT_OK && ret == 0)
        {
          char why[512] = "?";
          uint64_t msg = 0;
          if (hl_inject_call (inj, f_dlerror, NULL, 0, 0, 0, &msg, err, cap) == HL_INJECT_OK && msg != 0)
            hl_inject_read_string (inj, (uintptr_t) msg, why, sizeof why);
          snprintf (err, cap, _("the process's dlopen of the preload failed: %s"), why);
          rc = 2;
        }
    }
  if (st == HL_INJECT_OK && rc == 0)
    {
      if (!remote_symbol (pid, "libheaplens-preload", "heaplens__attach", &f_attach, err, cap))
        rc = 1;
      else
        {
          st = hl_inject_call (inj, f_attach, NULL, 0, 0, 0, &ret, err, cap);
          if (st == HL_INJECT_OK && (int) ret != 0)
            {
              snprintf (err, cap, "%s", attach_answer (ret));
              rc = 2;
            }
        }
    }
  char end_err[256];
  HlInjectStatus end = hl_inject_end (inj, stopped_ns, all_ns, end_err, sizeof end_err);
  if (st == HL_INJECT_GONE || end == HL_INJECT_GONE)
    {
      snprintf (err, cap, "%s", _("the process exited during the attach"));
      return 3;
    }
  if (st != HL_INJECT_OK)
    return 1;
  if (end != HL_INJECT_OK && rc == 0)
    {
      snprintf (err, cap, "%s", end_err);
      return 1;
    }
  return rc;
}

static bool
wait_session (pid_t pid, char *name, size_t cap, int timeout_ms)
{
  for (int waited = 0; waited <= timeout_ms; waited += 10)
    {
      if (hl_attach_find_session (pid, true, name, cap))
        return true;
      g_usleep (10000);
    }
  return false;
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
  char name[256];
  if (!g_ascii_string_to_unsigned (pid_text, 10, 1, G_MAXINT32, &pid, NULL))
    {
      fprintf (stderr, _("heaplens-cli attach: not a process id: %s\n"), pid_text);
      return 2;
    }
  if (!hl_attach_find_session ((pid_t) pid, true, name, sizeof name))
    {
      fprintf (stderr, _("heaplens-cli attach: process %d has no attached session (heaplens-cli sessions lists "
                         "them)\n"),
               (int) pid);
      return 1;
    }
  if (hl_shm_request_control (name, (uint32_t) pid, HL_SHM_CONTROL_DETACH) != 0)
    {
      fprintf (stderr, _("heaplens-cli attach: cannot ask session %s to detach: %s\n"), name, g_strerror (errno));
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
  int status;
  g_autofree char *refusal = hl_attach_refusal (pid, &target, &status);
  if (refusal != NULL)
    {
      fprintf (stderr, "heaplens-cli attach: %s\n", refusal);
      return status;
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

  g_autoptr (GError) error = NULL;
  g_autofree char *config = write_config (pid, trace, &error);
  if (config == NULL)
    {
      fprintf (stderr, "heaplens-cli attach: %s\n", error->message);
      return 1;
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
  char err[512] = "";
  uint64_t stopped_ns = 0, all_ns = 0;
  int rc = inject (pid, preload, target.preload_loaded, err, sizeof err, &stopped_ns, &all_ns);
  sigprocmask (SIG_SETMASK, &old, NULL);
  (void) unlink (config);
  if (rc != 0)
    {
      if (rc == 3)
        fprintf (stderr, _("heaplens-cli attach: process %d (%s) exited during the attach\n"), (int) pid,
                 target.comm);
      else
        fprintf (stderr, _("heaplens-cli attach: cannot attach to process %d (%s): %s; the process was left "
                           "as it was\n"),
                 (int) pid, target.comm, err);
      return rc == 3 ? 1 : rc;
    }

  char name[256];
  if (!wait_session (pid, name, sizeof name, 2000))
    {
      fprintf (stderr, _("heaplens-cli attach: the preload was loaded into process %d but no session appeared\n"),
               (int) pid);
      return 1;
    }
  fprintf (stderr, _("heaplens: attached to process %d (%s): stopped %.1f ms (every thread %.1f ms); recording "
                     "to %s (Ctrl+C detaches)\n"),
           (int) pid, target.comm, stopped_ns / 1e6, all_ns / 1e6, trace);

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
