/* hl-cli-record.c — `heaplens-cli record [OPTIONS] -- PROG ARGS...`: runs a
 * program under libheaplens-preload.so, passes its stdin/stdout/stderr,
 * signals and exit status through, and prints one line on stderr at the end
 * (the program's stdout stays byte-identical). */
#define _GNU_SOURCE
#include "hl-config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hl-cli-model-util.h"

#include "hl-cli-commands.h"
#include "hl-cli-record-find.h"
#include "hl-cli-record-names.h"
#include "hl-cli-record-profiles.h"
#include "hl-cli-record-usage.h"
#include "hl-cli-record-prune.h"
#include "hl-cli-record-salvage.h"
#include "hl-cli-session-file.h"
#include "hl-cli-trace-cut.h"
#include "hl-model.h"
#ifdef HL_HAVE_ZSTD
#include "hl-cli-record-costs-finish.h"
#include "hl-cli-record-stream.h"
#include "hl-trace-zstd.h"
#include "hl-trace-compress.h"
#include "hl-trace-index.h"
#endif

static volatile pid_t child_pid;

/* HEAPLENS_DEBUG=timing: the steps after the program's exit, each with
 * the time since it (bench/capture.sh shows the total). */
static gint64 exited_at_us;

static bool
timing_on (void)
{
  return g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0;
}

static void
timing_step (const char *what)
{
  if (timing_on () && exited_at_us != 0)
    fprintf (stderr, "heaplens: timing: +%.3f s %s\n", (double) (g_get_monotonic_time () - exited_at_us) / 1e6, what);
}

/* The preload next to this build's heaplens-cli, else the installed one
 * (shared with the application: hl-launch-env.h). */
static bool
find_preload (char *out,
              size_t cap)
{
  char *path = hl_launch_env_find_preload ();
  if (path == NULL)
    return false;
  snprintf (out, cap, "%s", path);
  g_free (path);
  return true;
}

static void
forward_signal (int        sig,
                siginfo_t *info,
                void      *ctx)
{
  (void) ctx;
  /* a terminal's signals reach the child's process group already */
  if (child_pid > 0 && (info->si_code == SI_USER || info->si_code == SI_QUEUE)
      && info->si_pid != child_pid)
    kill (child_pid, sig);
}

/* A process that died without writing END (SIGKILL, the OOM killer)
 * left the events its threads were still building in its session: they
 * are appended to its trace, before it is compressed, with the record of
 * the death; a program killed by a signal that the preload caught (END
 * written) gets the signal noted. For the program itself (PID, wait
 * STATUS) *ROOT tells what was salvaged; true when something was. */
static bool
salvage_sessions (FindCtx         *ctx,
                  uint32_t         pid,
                  int              status,
                  uint64_t         died_mono_ns,
                  HlSessionSalvage *root)
{
  bool root_salvaged = false;
  for (guint k = 0; k < ctx->found->len; k++)
    {
      Found *f = FOUND (ctx, k);
      const HlShmHeader *h = &f->s.header;
      bool is_root = h->pid == pid && !(h->flags & HL_SHM_FLAG_ENDED_BY_EXEC);
      int sig = is_root && WIFSIGNALED (status) ? WTERMSIG (status) : 0;
      if (h->trace_path[0] == '\0')
        continue;
      /* a cut trace ends at its cut: nothing after it */
      if (h->state_atomic == HL_SHM_STATE_ENDED || hl_cli_trace_cut_reason (&f->s) != NULL)
        {
          /* its END says 128 + SIG; that it was a signal, only we know */
          if (sig > 0)
            (void) hl_session_salvage_note_death (h->trace_path, h->pid, h->start_mono_ns, died_mono_ns, sig,
                                                 NULL);
          continue;
        }
      HlSessionSalvage salvage;
      g_autoptr (GError) error = NULL;
      if (!hl_session_salvage (f->name, h->trace_path, f->s.n_allocs + f->s.n_frees, &salvage, &error))
        {
          fprintf (stderr, _("heaplens: the events %s left buffered could not be saved: %s\n"),
                   h->trace_path, error->message);
          continue;
        }
      (void) hl_session_salvage_note_death (h->trace_path, h->pid, h->start_mono_ns, died_mono_ns, sig, &salvage);
      if (is_root)
        {
          *root = salvage;
          root_salvaged = true;
        }
    }
  return root_salvaged;
}

static gpointer
unlink_thread (gpointer data)
{
  hl_record_unlink_sessions (data);
  return NULL;
}

#define RECORD_ZSTD_LEVEL 9

/* Rewrites TRACE as zstd frames (hl-trace-codec.h): the preload writes
 * plain packets, and `record` compresses them beside the program while it
 * runs (hl-cli-record-stream.h), so that only the last frame is left for
 * the end. A trace without a stream (or whose stream failed) is compressed
 * whole here. Prints a warning and leaves the file plain on failure. */
static bool
compress_trace (void       *streams,
                const char *trace)
{
#ifdef HL_HAVE_ZSTD
  HlFormatError err;
  if (trace[0] == '\0')
    return false;
  if (hl_record_streams_finish (streams, trace))
    return true;
  if (hl_trace_compress_file_indexed (trace, trace, hl_trace_codec_zstd (RECORD_ZSTD_LEVEL), 0, &err) != 0)
    {
      fprintf (stderr, _("heaplens: %s left uncompressed: %s\n"), trace, err.message);
      return false;
    }
  return true;
#else
  (void) streams;
  (void) trace;
  return false;
#endif
}

#define HL_RECORD_COSTS_MIN_BYTES (1 << 20) /* plain trace size from which costs are saved */

/* Costs of the plain trace, made on a thread while the trace is being
 * compressed (the compressed file's image is the same bytes). */
typedef struct
{
  const char *trace;
  GBytes     *payload;
  GError     *error;
} CostsJob;

static gpointer
costs_thread (gpointer data)
{
  CostsJob *job = data;
  job->payload = hl_costs_packet_prepare (job->trace, &job->error);
  return NULL;
}

/* Compresses TRACE and, when COSTS, appends the costs a report needs
 * (hl-recording-costs-packet.h), so that `report` need not decode the
 * events. Without them (a trace whose time order its index does not
 * promise, say), report decodes them. */
typedef enum
{
  COSTS_NONE,     /* --no-costs */
  COSTS_FOLLOWED, /* the default: saved when followed while the program ran */
  COSTS_ALWAYS,   /* --costs: else loaded once the program has exited */
} CostsMode;

/* Saved costs may add this share of the compressed trace by default
 * (percent; HEAPLENS_RECORD_COSTS_SHARE=P), or HL_RECORD_COSTS_WORTH
 * percent of the plain trace (HEAPLENS_RECORD_COSTS_WORTH=P), whose
 * events they spare every report decoding. The stacks go inline whenever
 * that form fits: by reference, `report` decompresses the whole trace for
 * them (python3: inline 62 % of its compressed trace, 0.3 % of its
 * events; report 0.3 s of CPU inline, 0.7 s by reference; bench/results/
 * costs-python-20261203-1845.md). */
#define HL_RECORD_COSTS_SHARE 5
#define HL_RECORD_COSTS_WORTH 1

/* The packet to save for the costs-only recording REC of TRACE, whose
 * plain form had PLAIN_SIZE bytes: its stacks inline when that fits the
 * share or is worth its bytes, else by reference to the trace's STACK
 * events (report then decompresses the trace, but decodes only those)
 * when that does, else none (WHY says so).
 * --costs: inline, always. HEAPLENS_RECORD_COSTS_STACKS=inline|reference
 * forces a form (tests). Each form is serialized and compressed once:
 * the packet measured is the one written. */
static HlCostsPacket *
choose_packet (HlRecording        *rec,
                const char         *trace,
                CostsMode           costs,
                unsigned long long  plain_size,
                char               *why,
                size_t              why_size)
{
  const char *form = getenv ("HEAPLENS_RECORD_COSTS_STACKS");
  const char *share_env = getenv ("HEAPLENS_RECORD_COSTS_SHARE");
  unsigned long long share = share_env != NULL ? strtoull (share_env, NULL, 10) : HL_RECORD_COSTS_SHARE;
  struct stat st;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) payload = NULL;
  HlCostsPacket *packet, *by_reference = NULL;
  gsize inline_size, reference_size = 0;

  if (form != NULL)
    {
      payload = hl_costs_packet_payload (rec, strcmp (form, "reference") == 0 ? HL_COSTS_STACKS_BY_REFERENCE
                                                                              : HL_COSTS_STACKS_INLINE, &error);
      if (payload == NULL)
        snprintf (why, why_size, "%s", error->message);
      return payload != NULL ? hl_costs_packet_build (payload) : NULL;
    }
  payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_INLINE, &error);
  if (payload == NULL)
    {
      snprintf (why, why_size, "%s", error->message);
      return NULL;
    }
  packet = hl_costs_packet_build (payload);
  if (costs == COSTS_ALWAYS || stat (trace, &st) != 0)
    return packet;
  unsigned long long limit = (unsigned long long) st.st_size * share / 100;
  const char *worth_env = getenv ("HEAPLENS_RECORD_COSTS_WORTH");
  unsigned long long worth_share = worth_env != NULL ? strtoull (worth_env, NULL, 10) : HL_RECORD_COSTS_WORTH;
  unsigned long long worth = plain_size * worth_share / 100;
  inline_size = hl_costs_packet_built_size (packet);
  if (timing_on ())
    fprintf (stderr, "heaplens: timing: costs packet: stacks inline, %zu bytes\n", inline_size);
  if (inline_size <= limit || inline_size <= worth)
    return packet;
  g_clear_pointer (&payload, g_bytes_unref);
  g_clear_error (&error);
  payload = hl_costs_packet_payload (rec, HL_COSTS_STACKS_BY_REFERENCE, &error);
  if (payload != NULL)
    by_reference = hl_costs_packet_build (payload);
  if (by_reference != NULL)
    reference_size = hl_costs_packet_built_size (by_reference);
  hl_costs_packet_free (packet);
  if (timing_on ())
    fprintf (stderr, "heaplens: timing: costs packet: stacks by reference, %zu bytes\n", reference_size);
  if (by_reference != NULL && (reference_size <= limit || reference_size <= worth))
    return by_reference;
  hl_costs_packet_free (by_reference);
  snprintf (why, why_size, "its packet would add %zu bytes (%zu with its stacks inline) to a trace of %llu: more "
            "than %llu %%, and more than %llu %% of the %llu bytes of events it would spare decoding",
            reference_size, inline_size, (unsigned long long) st.st_size, share, worth_share, plain_size);
  return NULL;
}

/* NOTE (at least 256 bytes): when following the costs was given up
 * because the recorder could not keep up, what became of them for the end
 * line ("costs not saved (WHY)" or "costs finished after the program
 * exited, in T s (WHY)"), else "". */
static void
compress_and_save_costs (void       *streams,
                         const char *trace,
                         CostsMode   costs,
                         char       *lagged)
{
  CostsJob job = { trace, NULL, NULL };
  GThread *thread = NULL;
  HlCostsPacket *packet = NULL;

  lagged[0] = '\0';
  if (trace[0] == '\0')
    return;
  /* A small trace decodes in milliseconds: not worth its costs (a program
   * under pyenv's shim leaves dozens of them). */
  const char *min_env = getenv ("HEAPLENS_RECORD_COSTS_MIN"); /* bytes; tests set 0 */
  unsigned long long min = min_env != NULL ? strtoull (min_env, NULL, 10) : HL_RECORD_COSTS_MIN_BYTES;
  struct stat st;
  bool big = stat (trace, &st) == 0 && (unsigned long long) st.st_size >= min;
  unsigned long long plain_size = big ? (unsigned long long) st.st_size : 0;
  /* Followed while the program ran (hl-recording-costs-stream.h) when the
   * trace was compressed as it was written; else, with --costs, loaded
   * now, beside the compression. */
#ifdef HL_HAVE_ZSTD
  bool followed = costs != COSTS_NONE && hl_record_streams_following_costs (streams, trace);
#else
  bool followed = false;
#endif
  if (costs == COSTS_ALWAYS && big && !followed)
    thread = g_thread_new ("hl-costs", costs_thread, &job);
  bool compressed = compress_trace (streams, trace);
  if (thread != NULL)
    g_thread_join (thread);
  timing_step ("compressed");
  if (compressed && costs != COSTS_NONE && thread == NULL)
    {
      char why[256] = "";
      bool fell_behind = false;
      g_autoptr (HlRecording) followed_costs = NULL;
#ifdef HL_HAVE_ZSTD
      followed_costs = hl_record_streams_take_costs (streams, trace, why, sizeof why, &fell_behind);
#endif
      if (big && followed_costs != NULL)
        packet = choose_packet (followed_costs, trace, costs, plain_size, why, sizeof why);
      else if (big && costs == COSTS_ALWAYS)
        job.payload = hl_costs_packet_prepare (trace, &job.error);
      else if (big && fell_behind)
        {
          /* finished from the events now, within a bounded time, so that
           * report takes the fast path anyway */
          double took = 0;
          g_autoptr (HlRecording) finished = hl_record_finish_costs_bounded (trace, &took);
          char too_large[256] = "";
          if (finished != NULL)
            packet = choose_packet (finished, trace, costs, plain_size, too_large, sizeof too_large);
          if (packet != NULL)
            snprintf (lagged, 256, _("costs finished after the program exited, in %.1f s (%s)"), took, why);
          else if (finished != NULL)
            snprintf (lagged, 256, _("costs not saved (%s)"), too_large);
          else if (took > 0)
            snprintf (lagged, 256, _("costs not saved (%s; finishing them after the program exited took over %.0f s)"),
                      why, took);
          else
            snprintf (lagged, 256, _("costs not saved (%s)"), why);
        }
      timing_step ("costs packet made");
      /* a trace that needs them and did not get them: the end line says why */
      if (big && packet == NULL && job.payload == NULL && why[0] != '\0' && lagged[0] == '\0')
        snprintf (lagged, 256, _("costs not saved (%s)"), why);
    }
  if (compressed && packet == NULL && job.payload != NULL)
    packet = hl_costs_packet_build (job.payload);
  if (compressed && packet != NULL && !hl_costs_packet_write_built (packet, trace, &job.error))
    fprintf (stderr, _("heaplens: costs not saved in %s: %s\n"), trace, job.error->message);
  else if (compressed && job.error != NULL && !g_error_matches (job.error, HL_MODEL_ERROR, HL_MODEL_ERROR_UNSUPPORTED))
    fprintf (stderr, _("heaplens: costs not saved in %s: %s\n"), trace, job.error->message);
  timing_step ("costs written");
  hl_costs_packet_free (packet);
  g_clear_pointer (&job.payload, g_bytes_unref);
  g_clear_error (&job.error);
}

/* CPU seconds of `record` itself, all its threads (the compression's). */
static double
self_cpu_seconds (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;
  return (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void
human_bytes (char *out, size_t cap, uint64_t v)
{
  /* the CLI's one size format: B, KiB, MiB, GiB */
  g_autofree char *text = hl_cli_format_size (v);
  g_strlcpy (out, text, cap);
}

int
hl_cli_record (int    argc,
               char **argv)
{
  const char *output = NULL, *output_dir = NULL, *unwind = NULL, *depth = NULL, *fine_clock = NULL;
  const char *sample_bytes = NULL, *leak_scan = NULL;
  bool follow = true;
  bool compress = true;
  /* Saved costs are computed while the program runs, from the packets the
   * compression takes in (hl-recording-costs-stream.h): nothing is left
   * for after it exits but its last packets. */
  CostsMode costs = COSTS_FOLLOWED;
  g_auto (HlRecordProfiles) profiles = { 0 };
  int i = 1;
  for (; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] != '-')
        break;
      if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          hl_cli_record_usage (stdout);
          return 0;
        }
      if ((strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0) && i + 1 < argc)
        output = argv[++i];
      else if (strncmp (a, "--output=", 9) == 0)
        output = a + 9;
      else if ((strcmp (a, "-d") == 0 || strcmp (a, "--output-dir") == 0) && i + 1 < argc)
        output_dir = argv[++i];
      else if (strncmp (a, "--output-dir=", 13) == 0)
        output_dir = a + 13;
      else if (strcmp (a, "--unwind") == 0 && i + 1 < argc)
        unwind = argv[++i];
      else if (strncmp (a, "--unwind=", 9) == 0)
        unwind = a + 9;
      else if (strcmp (a, "--depth") == 0 && i + 1 < argc)
        depth = argv[++i];
      else if (strcmp (a, "--sample-bytes") == 0 && i + 1 < argc)
        sample_bytes = argv[++i];
      else if (strncmp (a, "--sample-bytes=", 15) == 0)
        sample_bytes = a + 15;
      else if (strcmp (a, "--sample") == 0)
        sample_bytes = "524288";
      else if (strcmp (a, "--fine-clock") == 0 && i + 1 < argc)
        fine_clock = argv[++i];
      else if (strncmp (a, "--fine-clock=", 13) == 0)
        fine_clock = a + 13;
      else if (strcmp (a, "--leak-scan") == 0 || strcmp (a, "--no-leak-scan") == 0)
        leak_scan = a[2] == 'n' ? "0" : "1";
      else if (strcmp (a, "--no-follow") == 0 || strcmp (a, "--no-children") == 0)
        follow = false;
      else if (strcmp (a, "--no-compress") == 0)
        compress = false;
      else if (strcmp (a, "--no-costs") == 0)
        costs = COSTS_NONE;
      else if (strcmp (a, "--costs") == 0)
        costs = COSTS_ALWAYS;
      else if (hl_record_profiles_parse_arg (&profiles, argc, argv, &i))
        ;
      else
        {
          fprintf (stderr, _("heaplens-cli record: unknown option '%s'\n"), a);
          hl_cli_record_usage (stderr);
          return 2;
        }
    }
  if (i >= argc)
    {
      fprintf (stderr, _("heaplens-cli record: no program given\n"));
      hl_cli_record_usage (stderr);
      return 2;
    }
  if (output != NULL && output_dir != NULL)
    {
      fprintf (stderr, _("heaplens-cli record: --output names the trace, --output-dir its folder: give one\n"));
      return 2;
    }
  if (unwind != NULL && strcmp (unwind, "fp") != 0 && strcmp (unwind, "libunwind") != 0)
    {
      fprintf (stderr, _("heaplens-cli record: --unwind takes fp or libunwind, not '%s'\n"), unwind);
      return 2;
    }

  guint64 fine_ms;
  if (fine_clock != NULL && !g_ascii_string_to_unsigned (fine_clock, 10, 0, 86400000, &fine_ms, NULL))
    {
      fprintf (stderr, _("heaplens-cli record: --fine-clock takes milliseconds from 0 to 86400000, not '%s'\n"),
               fine_clock);
      return 2;
    }

  guint64 sample_n;
  if (sample_bytes != NULL && !g_ascii_string_to_unsigned (sample_bytes, 10, 1, G_GUINT64_CONSTANT (1) << 40, &sample_n, NULL))
    {
      fprintf (stderr, _("heaplens-cli record: --sample-bytes takes bytes from 1 to 2^40, not '%s'\n"),
               sample_bytes);
      return 2;
    }

#ifdef HL_HAVE_ZSTD
  bool followed = compress && costs != COSTS_NONE;
#else
  bool followed = false;
#endif
  if (hl_record_profiles_check (&profiles, followed) != 0)
    return 2;

  char preload[PATH_MAX];
  if (!find_preload (preload, sizeof preload))
    {
      fprintf (stderr, _("heaplens-cli record: cannot find libheaplens-preload.so in %s or %s\n"),
               HL_BUILD_PRELOAD_DIR, HL_PKGLIBDIR);
      return 2;
    }

  char cwd[PATH_MAX];
  if (getcwd (cwd, sizeof cwd) == NULL)
    snprintf (cwd, sizeof cwd, ".");
  char out_path[PATH_MAX + 64];
  if (output != NULL)
    {
      if (output[0] == '/')
        snprintf (out_path, sizeof out_path, "%s", output);
      else
        snprintf (out_path, sizeof out_path, "%s/%s", cwd, output);
      struct stat st;
      if (lstat (out_path, &st) == 0 && S_ISREG (st.st_mode))
        unlink (out_path); /* -o FILE replaces FILE */
    }

  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  uint64_t start_wall_ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;

  /* A program that cannot take the preload (a sanitizer runtime that must
   * be loaded first aborts under it; another machine's; statically linked):
   * said, and not run. */
  g_autofree char *program_path = strchr (argv[i], '/') != NULL ? g_strdup (argv[i]) : g_find_program_in_path (argv[i]);
  HlLaunchRefusal refusal;
  if (program_path != NULL && hl_launch_refusal_of (program_path, &refusal))
    {
      if (refusal.sanitizer != NULL && refusal.interpreter[0] != '\0')
        fprintf (stderr,
                 _("heaplens-cli record: %s runs under %s, which is built with %s, whose runtime replaces the "
                   "allocator and must be loaded first: it cannot be recorded (build it without -fsanitize)\n"),
                 argv[i], refusal.interpreter, refusal.sanitizer);
      else if (refusal.sanitizer != NULL)
        fprintf (stderr,
                 _("heaplens-cli record: %s is built with %s, whose runtime replaces the allocator and must be "
                   "loaded first: it cannot be recorded (build it without -fsanitize)\n"),
                 argv[i], refusal.sanitizer);
      else if (refusal.foreign)
        fprintf (stderr,
                 _("heaplens-cli record: %s is built for another machine or word size (a 32-bit program?): the "
                   "preload cannot be loaded into it, so it cannot be recorded\n"),
                 argv[i]);
      else
        fprintf (stderr,
                 _("heaplens-cli record: %s is statically linked: no dynamic loader runs for it, so nothing can "
                   "load the preload: it cannot be recorded\n"),
                 argv[i]);
      return 2;
    }

  /* Without -o: a folder of its own for the recording, the program's
   * trace and its children's in it (hl-launch-folder.h) */
  g_autofree char *folder = NULL;
  if (output == NULL)
    {
      g_autoptr (GError) ferr = NULL;
      folder = hl_launch_folder_create (output_dir, argv[i], &ferr);
      if (folder == NULL)
        {
          fprintf (stderr, _("heaplens-cli record: %s\n"), ferr->message);
          return 2;
        }
      g_autofree char *template = hl_launch_folder_trace_template (folder);
      snprintf (out_path, sizeof out_path, "%s", template);
    }
  HlLaunchEnvOptions env_options = {
    .trace_path = out_path,
    .unwind = unwind,
    .depth = depth,
    .fine_clock_ms = fine_clock,
    .follow = follow,
    .keep_session = true,
  };
  char **record_env = hl_launch_env_build (preload, getenv ("LD_PRELOAD"), &env_options);
  if (sample_bytes != NULL)
    record_env = g_environ_setenv (record_env, "HEAPLENS_SAMPLE_BYTES", sample_bytes, TRUE);
  if (leak_scan != NULL)
    record_env = g_environ_setenv (record_env, "HEAPLENS_LEAK_SCAN", leak_scan, TRUE);

  /* what an earlier record, killed, left in /dev/shm */
  hl_cli_record_prune ();

  /* Under a file-size limit (ulimit -f) a compressed trace past it would
   * kill record with SIGXFSZ: record ignores it (the write fails, the
   * trace is left plain with a warning); the program gets the disposition
   * record was given. */
  struct sigaction xfsz_ign = { 0 }, xfsz_was;
  xfsz_ign.sa_handler = SIG_IGN;
  sigaction (SIGXFSZ, &xfsz_ign, &xfsz_was);
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0)
    {
      fprintf (stderr, _("heaplens-cli record: fork: %s\n"), strerror (errno));
      return 2;
    }
  if (pid == 0)
    {
      sigaction (SIGXFSZ, &xfsz_was, NULL);
      for (char **v = record_env; *v != NULL; v++)
        putenv (*v);
      execvp (argv[i], argv + i);
      /* as a shell says it: 127 not found, 126 found but not runnable */
      int not_found = errno == ENOENT || errno == ENOTDIR;
      fprintf (stderr, _("heaplens-cli record: cannot run %s: %s\n"), argv[i], strerror (errno));
      _exit (not_found ? 127 : 126);
    }
  child_pid = pid;
  g_strfreev (record_env);
  /* HEAPLENS_RECORD_CLOCK=0 (tests, bench): the preload reads the clock
   * itself, as without record */
  HlLaunchClock *clock = g_strcmp0 (g_getenv ("HEAPLENS_RECORD_CLOCK"), "0") != 0
                           ? hl_launch_clock_start (pid, start_wall_ns)
                           : NULL;
  void *streams = NULL;
#ifdef HL_HAVE_ZSTD
  if (compress)
    streams = hl_record_streams_start (pid, start_wall_ns, RECORD_ZSTD_LEVEL, costs != COSTS_NONE, &profiles);
#endif

  static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++)
    sigaction (forwarded[k], &sa, NULL);

  int status = 0;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      {
        fprintf (stderr, _("heaplens-cli record: waitpid: %s\n"), strerror (errno));
        return 2;
      }
  gint64 exited_us = g_get_monotonic_time ();
  exited_at_us = exited_us;
  double exited_cpu = self_cpu_seconds ();
  hl_launch_clock_stop (clock);
#ifdef HL_HAVE_ZSTD
  hl_record_streams_stop (streams);
  timing_step ("compress thread stopped");
#endif

  /* From now on a process of the family that ends unlinks its own
   * session (hl-capture-launcher.c): one that ends before it is found
   * below, ended or running (then abandon_session() decides) */
  prctl (PR_SET_NAME, HL_SHM_LAUNCHER_ENDING_COMM, 0, 0, 0);
  FindCtx ctx = { start_wall_ns, g_array_new (FALSE, TRUE, sizeof (Found)), 0 };
  hl_record_find_sessions (&ctx, (uint32_t) pid);
  timing_step ("sessions found");
  HlSessionSalvage root_salvage = { 0 };
  bool root_salvaged = salvage_sessions (&ctx, (uint32_t) pid, status, (uint64_t) exited_us * 1000u,
                                          &root_salvage);
  /* a trace cut by a full disk: its record, with the session's totals */
  bool cut_noted = true;
  for (guint k = 0; k < ctx.found->len; k++)
    if (!hl_cli_trace_cut_append (&FOUND (&ctx, k)->s) && FOUND (&ctx, k)->s.header.pid == (uint32_t) pid)
      cut_noted = false;
  /* ctx is not written again: the thread reads the names beside us */
  GThread *unlinker = g_thread_try_new ("hl-unlink", unlink_thread, &ctx, NULL);
  /* the program's session: its pid, and of its images the one that did not
   * end by exec'ing another (`record -- sh -c PROG` reports PROG) */
  Found *root = NULL;
  for (guint k = 0; k < ctx.found->len; k++)
    {
      Found *f = FOUND (&ctx, k);
      if (f->s.header.pid != (uint32_t) pid)
        continue;
      bool final = !(f->s.header.flags & HL_SHM_FLAG_ENDED_BY_EXEC);
      bool root_final = root != NULL && !(root->s.header.flags & HL_SHM_FLAG_ENDED_BY_EXEC);
      if (root == NULL || (final && !root_final)
          || (final == root_final && f->s.header.start_wall_ns > root->s.header.start_wall_ns))
        root = f;
    }
  /* what its trace cannot say: how a chain of execs that went on
   * unrecorded ended, a live table stopped by a full /dev/shm */
  if (root != NULL && root->s.header.trace_path[0] != '\0')
    (void) hl_record_salvage_note_session (root->s.header.trace_path, &root->s.header, root->s.live_dropped,
                                           (uint64_t) exited_us * 1000u, status);
  char root_lagged[256] = "";
  for (guint k = 0; k < ctx.found->len; k++)
    if (compress)
      {
        char lagged[256];
        compress_and_save_costs (streams, FOUND (&ctx, k)->s.header.trace_path, costs, lagged);
        if (FOUND (&ctx, k) == root)
          snprintf (root_lagged, sizeof root_lagged, "%s", lagged);
      }
    else if (FOUND (&ctx, k)->s.header.trace_path[0] != '\0')
      {
        /* compressed traces get it in hl_record_streams_finish */
        HlFormatError ierr;
        if (hl_trace_index_append_file (FOUND (&ctx, k)->s.header.trace_path, &ierr) != 0)
          fprintf (stderr, _("heaplens: no index appended to %s: %s\n"), FOUND (&ctx, k)->s.header.trace_path,
                   ierr.message);
      }
#ifdef HL_HAVE_ZSTD
  hl_record_streams_free (streams);
  timing_step ("streams freed");
#endif
  guint n_folded = 0;
  g_autoptr (GPtrArray) images = g_ptr_array_new ();
  for (guint k = 0; k < ctx.found->len; k++)
    g_ptr_array_add (images, &FOUND (&ctx, k)->s);
  g_autofree char *folded_names
    = hl_record_fold_helper_images ((HlCliSession **) images->pdata, images->len, root ? &root->s : NULL, &n_folded);
  if (output != NULL && root != NULL)
    hl_record_name_root_trace ((HlCliSession **) images->pdata, images->len, &root->s, out_path);
  /* bench/capture.sh: how long the user waited after the program exited */
  if (g_strcmp0 (g_getenv ("HEAPLENS_DEBUG"), "timing") == 0)
    {
      struct rusage ru;
      fprintf (stderr, "heaplens: timing: %.3f s after the program exited (%.3f s CPU)\n",
               (double) (g_get_monotonic_time () - exited_us) / 1e6, self_cpu_seconds () - exited_cpu);
      /* record's own threads and buffers, not the program's */
      if (getrusage (RUSAGE_SELF, &ru) == 0)
        fprintf (stderr, "heaplens: timing: record's peak RSS %ld KiB\n", ru.ru_maxrss);
    }
  if (root != NULL)
    {
      HlCliSession *s = &root->s;
      char peak[32], leaked[32];
      human_bytes (peak, sizeof peak, s->peak_heap_bytes);
      /* sampling mode counts the heap in usable sizes (bytes freed too,
       * docs/capture.md): requested bytes less usable ones would go below
       * zero, so the heap word is what is left */
      uint64_t live = s->header.sample_bytes != 0 ? s->heap_bytes
                      : s->bytes_allocated >= s->bytes_freed ? s->bytes_allocated - s->bytes_freed : 0;
      human_bytes (leaked, sizeof leaked, live);
      uint64_t known_frees = s->n_frees - (s->frees_unknown < s->n_frees ? s->frees_unknown : s->n_frees);
      uint64_t blocks = s->n_allocs >= known_frees ? s->n_allocs - known_frees : 0;
      /* A block the live table dropped is freed unseen by the counters
       * (its size and stack unknown there; the trace pairs it by
       * address): with drops, the peak and the leaks are upper bounds. */
      const char *bound = s->dropped > 0 ? "at most " : "";
      const char *cut = hl_cli_trace_cut_reason (s);
      fprintf (stderr,
               "heaplens: %s: %llu allocations, %llu frees, peak %s%s, leaked %s%s in %s%llu blocks, %llu dropped%s",
               s->header.trace_path[0] ? s->header.trace_path : "(no trace written)",
               (unsigned long long) s->n_allocs, (unsigned long long) s->n_frees, bound, peak,
               bound, leaked, bound,
               (unsigned long long) blocks, (unsigned long long) s->dropped,
               s->dropped > 0 && cut == NULL ? " (the exact numbers: heaplens-cli report)" : "");
      if (cut != NULL)
        fprintf (stderr, _("; trace cut at %.3f s by %s (%s): numbers up to %.3f s in it, these are the whole run's%s"),
                 s->header.trace_cut_ns_atomic / 1e9, hl_cli_trace_cut_cause (cut), cut,
                 s->header.trace_cut_ns_atomic / 1e9, cut_noted ? "" : _(" (no room to say so in the trace)"));
      guint children = hl_record_count_children (&ctx, (uint32_t) pid);
      if (children > 0)
        fprintf (stderr, ngettext ("; %u child process recorded too", "; %u child processes recorded too",
                                   children), children);
      /* the preload started them without itself (hl-capture-exec.c) */
      bool unfollowed = false;
      for (guint k = 0; k < ctx.found->len; k++)
        unfollowed |= (FOUND (&ctx, k)->s.header.flags & HL_SHM_FLAG_UNFOLLOWED) != 0;
      /* hl-capture-session.c: the segment's pages could not be reserved */
      uint64_t untracked = 0;
      bool shm_full = false;
      for (guint k = 0; k < ctx.found->len; k++)
        if (FOUND (&ctx, k)->s.header.flags & HL_SHM_FLAG_SHM_FULL)
          {
            shm_full = true;
            untracked += FOUND (&ctx, k)->s.live_dropped;
          }
      if (shm_full)
        fprintf (stderr, _("; live table stopped growing: /dev/shm is full (%llu allocations not tracked live; the "
                           "trace is complete)"), (unsigned long long) untracked);
      if (unfollowed)
        fprintf (stderr, _("; programs it started that cannot take the preload (built with a sanitizer, or for "
                           "another machine) ran unrecorded"));
      if (root_salvaged && WIFSIGNALED (status))
        {
          const char *abbrev = sigabbrev_np (WTERMSIG (status));
          fprintf (stderr, _("; ended by SIG%s (signal %d): %llu events salvaged"), abbrev != NULL ? abbrev : "?",
                   WTERMSIG (status), (unsigned long long) root_salvage.events);
          if (!root_salvage.lost_known)
            fprintf (stderr, _(", an unknown number lost"));
          else
            fprintf (stderr, _(", %llu lost"), (unsigned long long) root_salvage.lost);
        }
      if (n_folded > 0)
        fprintf (stderr, ngettext ("; %u image that exec'ed another at once folded (%s)",
                                   "; %u images that exec'ed another at once folded (%s)", n_folded),
                 n_folded, folded_names);
      if (ctx.running > 0)
        fprintf (stderr, ngettext ("; %u process still running (its trace is left uncompressed)",
                                   "; %u processes still running (their traces are left uncompressed)",
                                   ctx.running), ctx.running);
      /* the report will decode the events: slower, the same numbers */
      if (root_lagged[0] != '\0')
        fprintf (stderr, "; %s", root_lagged);
      fprintf (stderr, "\n");
    }
  else
    {
      /* the loader ignores LD_PRELOAD for a program that changes its
       * user or group (secure execution) */
      struct stat pst;
      bool secure = program_path != NULL && stat (program_path, &pst) == 0
                    && (((pst.st_mode & S_ISUID) && pst.st_uid != geteuid ())
                        || ((pst.st_mode & S_ISGID) && pst.st_gid != getegid ()));
      if (secure)
        fprintf (stderr, _("heaplens: %s was not recorded: it is set-user-ID or set-group-ID, and the loader ignores "
                           "LD_PRELOAD for such a program\n"), argv[i]);
      else
        fprintf (stderr, _("heaplens: %s was not recorded (no session found)\n"), argv[i]);
    }
  if (unlinker != NULL)
    g_thread_join (unlinker);
  else
    hl_record_unlink_sessions (&ctx);
  g_array_unref (ctx.found);
  /* a program that could not be run wrote nothing: no empty folder left */
  if (folder != NULL)
    (void) g_rmdir (folder);

  if (WIFSIGNALED (status))
    {
      int sig = WTERMSIG (status);
      signal (sig, SIG_DFL);
      prctl (PR_SET_DUMPABLE, 0, 0, 0, 0); /* the program dumped core already, if at all */
      sigset_t set;
      sigemptyset (&set);
      sigaddset (&set, sig);
      sigprocmask (SIG_UNBLOCK, &set, NULL);
      raise (sig);
      return 128 + sig;
    }
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
