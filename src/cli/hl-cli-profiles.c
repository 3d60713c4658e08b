/* hl-cli-profiles.c — `heaplens-cli profiles PID|SESSION`: the continuous
 * heap profiles of a program under a preload set by hand (LD_PRELOAD
 * without record), written as `record --profile-dir` writes them
 * (docs/continuous-profiles.md).
 *
 * The preload never symbolizes or compresses on the program's threads, so
 * the profiles come from a follower, as record's do: this command finds
 * the program's session in /dev/shm, follows its plain trace read-only
 * from its start (a compress stream without output,
 * hl-trace-compress-stream.h), applies the packets to a costs stream
 * that writes the profiles (hl-cli-record-follow.h, the code record
 * runs), until the program ends or SIGINT/SIGTERM, and writes a last
 * profile then. The trace stays the program's: never written, truncated
 * or replaced. */
#define _GNU_SOURCE
#include "hl-config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-cli-commands.h"
#include "hl-cli-model-util.h"
#include "hl-cli-record-follow.h"
#include "hl-cli-record-profiles.h"
#include "hl-cli-session-file.h"
#include "hl-model.h"
#include "hl-trace-compress-stream.h"

/* As record's follower: often while the trace grows, less often while
 * it does not (hl-cli-record-stream.c). */
#define POLL_INTERVAL_US      (20 * 1000)
#define IDLE_POLL_INTERVAL_US (160 * 1000)
/* How often the session and the process are looked at. */
#define CHECK_INTERVAL_US     (200 * 1000)
/* After the session's end (its END written), how long the process may
 * go on (destructors, an exec'd image) before the last profile. */
#define END_GRACE_US          (2 * G_USEC_PER_SEC)
/* A poll takes at most this much of the trace, and none is taken while
 * the costs thread has this much queued: a trace of a long run is caught
 * up in steps, with bounded memory, and the costs thread never falls so
 * far behind that it would give up. */
#define POLL_LIMIT_BYTES      (32ull << 20)
/* /proc/PID/environ read at most */
#define ENVIRON_MAX_BYTES     (1u << 20)

static volatile sig_atomic_t interrupted;

static void
on_signal (int sig)
{
  (void) sig;
  interrupted = 1;
}

static void
usage (FILE *out)
{
  fprintf (out, "%s", _("Usage: heaplens-cli profiles [OPTIONS] PID|SESSION\n\n"
                        "Writes the continuous heap profiles (pprof .pb.gz) of a program that runs\n"
                        "under a preload set by hand (LD_PRELOAD=libheaplens-preload.so), as\n"
                        "record --profile-dir does, until the program ends or SIGINT/SIGTERM. Its\n"
                        "trace is only read. See docs/continuous-profiles.md.\n\n"
                        "Options:\n"
                        "  --profile-dir DIR   the folder (default: HEAPLENS_PROFILE_DIR of the\n"
                        "                      program's environment, else of this one)\n"
                        "  --profile-every T   the interval: 60s (default), 0.5s, 500ms, 2m, 1h\n"
                        "  --profile-keep K    keep the newest K of each kind (default 1440)\n"
                        "  -h, --help          this help\n"));
}

/* ---- The program's environment and process ----------------------------- */

/* NAME's value in /proc/PID/environ (the environment the program started
 * with), or NULL: unset, empty, or not readable. Only a file of ours is
 * read (the kernel lets the same user read it; another's is left), at
 * most ENVIRON_MAX_BYTES of it. */
static char *
environ_value (guint32     pid,
               const char *name)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/environ", (unsigned) pid);
  g_autofree char *buf = NULL;
  size_t len = 0, name_len = strlen (name);
  struct stat st;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || st.st_uid != getuid ())
    {
      close (fd);
      return NULL;
    }
  buf = g_malloc (ENVIRON_MAX_BYTES + 1);
  while (len < ENVIRON_MAX_BYTES)
    {
      ssize_t n = read (fd, buf + len, ENVIRON_MAX_BYTES - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  close (fd);
  buf[len] = '\0';
  for (size_t at = 0; at < len;)
    {
      const char *entry = buf + at;
      size_t n = strnlen (entry, len - at);
      if (n > name_len && strncmp (entry, name, name_len) == 0 && entry[name_len] == '=')
        return entry[name_len + 1] != '\0' ? g_strndup (entry + name_len + 1, n - name_len - 1) : NULL;
      at += n + 1;
    }
  return NULL;
}

/* PID's start time (/proc/PID/stat, field 22), 0 when it is gone or a
 * zombie (it writes nothing any more). */
static guint64
process_start (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/stat", (unsigned) pid);
  g_autofree char *text = NULL;
  const char *p;
  guint64 start = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL) || (p = strrchr (text, ')')) == NULL)
    return 0;
  /* ") S ppid ...": the state, then field 4 on; the start is field 22 */
  if (p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' || p[2] == 'x')
    return 0;
  p += 2;
  for (int field = 3; field < 22 && p != NULL; field++)
    {
      p = strchr (p, ' ');
      if (p != NULL)
        p++;
    }
  if (p != NULL)
    start = g_ascii_strtoull (p, NULL, 10);
  return start;
}

/* The session NAME has ended (its END is written) or is gone. */
static bool
session_over (const char *name)
{
  g_autoptr (HlLiveSessionInfo) info = hl_live_session_info_read (name);
  return !info->readable || info->state != HL_LIVE_STATE_RUNNING;
}

/* ---- Finding the session ----------------------------------------------- */

/* The session of TARGET (a pid, a segment name or a path) that this
 * command may follow, or NULL with the reason printed. */
static HlLiveSessionInfo *
find_session (const char *target)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  HlLiveSessionInfo *info;

  if (hl_cli_is_pid (target))
    {
      name = hl_live_session_find_pid ((guint32) strtoul (target, NULL, 10), &error);
      if (name == NULL)
        {
          fprintf (stderr, _("heaplens-cli profiles: %s\n"), error->message);
          return NULL;
        }
    }
  info = hl_live_session_info_read (name != NULL ? name : target);
  if (!info->readable)
    fprintf (stderr, _("heaplens-cli profiles: %s: %s\n"), info->name,
             info->refusal != NULL ? info->refusal : _("not a session"));
  else if (info->state != HL_LIVE_STATE_RUNNING || !info->alive)
    fprintf (stderr, _("heaplens-cli profiles: %s (pid %u) is not running: nothing to follow\n"), info->name,
             (unsigned) info->pid);
  else if (info->trace_path == NULL || info->trace_path[0] == '\0')
    fprintf (stderr, _("heaplens-cli profiles: pid %u writes no trace (HEAPLENS_OUTPUT=none): nothing to "
                       "follow\n"), (unsigned) info->pid);
  else if (info->launcher_pid > 1 && hl_cli_pid_alive (info->launcher_pid))
    fprintf (stderr, _("heaplens-cli profiles: pid %u is recorded by its launcher (pid %u: heaplens-cli record "
                       "or the application), which follows its trace: heap profiles come from record "
                       "--profile-dir there\n"), (unsigned) info->pid, (unsigned) info->launcher_pid);
  else
    return info;
  hl_live_session_info_free (info);
  return NULL;
}

/* The profiles' folder: --profile-dir, else HEAPLENS_PROFILE_DIR of the
 * program (a relative one is taken from its current folder), else ours;
 * NULL when none. *FROM_PROGRAM says whether it was the program's. */
static char *
choose_dir (const HlRecordProfiles *p,
            guint32                 pid,
            bool                   *from_program)
{
  g_autofree char *theirs = NULL;

  *from_program = false;
  if (p->dir_arg != NULL)
    return g_strdup (p->dir_arg);
  theirs = environ_value (pid, "HEAPLENS_PROFILE_DIR");
  if (theirs != NULL)
    {
      g_autofree char *cwd_link = g_strdup_printf ("/proc/%u/cwd", (unsigned) pid);
      g_autofree char *cwd = g_path_is_absolute (theirs) ? NULL : g_file_read_link (cwd_link, NULL);
      if (g_path_is_absolute (theirs) || cwd != NULL)
        {
          *from_program = true;
          return cwd != NULL ? g_build_filename (cwd, theirs, NULL) : g_steal_pointer (&theirs);
        }
    }
  return g_strdup (g_getenv ("HEAPLENS_PROFILE_DIR"));
}

/* ---- Following ---------------------------------------------------------- */

/* Polls until the packets the program had written when the follower
 * stopped are all applied: up to the trace's size then (or until a poll
 * takes nothing more, as when the last bytes are a packet still being
 * written). A program that goes on writing does not keep a follower
 * stopped by a signal from ending. FALSE with the reason printed. */
static bool
drain (HlTraceCompressStream *follow,
       HlCostsStream         *costs,
       const char            *trace)
{
  unsigned long long taken = hl_trace_compress_stream_taken (follow);
  unsigned long long stop_size = 0;
  HlFormatError err;
  struct stat st;

  if (stat (trace, &st) == 0)
    stop_size = (unsigned long long) st.st_size;
  while (taken < stop_size)
    {
      while (hl_costs_stream_queued (costs) >= POLL_LIMIT_BYTES && !hl_costs_stream_failed (costs))
        g_usleep (10 * 1000);
      if (hl_trace_compress_stream_poll (follow, &err) != 0)
        {
          fprintf (stderr, _("heaplens-cli profiles: following %s failed: %s\n"), trace, err.message);
          return false;
        }
      if (hl_trace_compress_stream_taken (follow) == taken || hl_costs_stream_failed (costs))
        break;
      taken = hl_trace_compress_stream_taken (follow);
    }
  return true;
}

/* Follows TRACE of PID's session NAME until the program ends or a
 * signal: 0, or 1 when following failed. */
static int
follow_trace (const HlLiveSessionInfo *info,
              const HlRecordProfiles  *profiles)
{
  const char *trace = info->trace_path;
  HlFollowTuning tuning;
  HlFormatError err;
  guint64 start = process_start (info->pid);
  unsigned long long taken = 0;
  gint64 interval = POLL_INTERVAL_US, next_check = 0, ended_at = 0;
  bool gone = false, ok = true;

  /* the whole command runs at the costs thread's nice value (10): the
   * program goes first; its threads are made after this */
  hl_follow_tuning_init (&tuning);
  if (tuning.costs_nice != 0 && setpriority (PRIO_PROCESS, 0, tuning.costs_nice) != 0)
    g_debug ("profiles: setpriority: %s", g_strerror (errno));

  HlTraceCompressStream *follow = hl_trace_compress_stream_new (trace, NULL, NULL, 0);
  if (follow == NULL)
    g_error ("out of memory");
  hl_trace_compress_stream_set_poll_limit (follow, POLL_LIMIT_BYTES);
  /* never given up for its lag: there is nothing to fall back on, and
   * the polls wait for it (POLL_LIMIT_BYTES) */
  HlCostsStream *costs = hl_follow_costs_new (&tuning, profiles, G_MAXUINT64, G_MAXUINT64);
  hl_trace_compress_stream_set_packet_func (follow, hl_costs_stream_take, costs);

  while (!interrupted && !gone && !(ended_at != 0 && g_get_monotonic_time () - ended_at >= END_GRACE_US))
    {
      if (hl_costs_stream_queued (costs) < POLL_LIMIT_BYTES && hl_trace_compress_stream_poll (follow, &err) != 0)
        {
          fprintf (stderr, _("heaplens-cli profiles: following %s failed: %s\n"), trace, err.message);
          ok = false;
          break;
        }
      if (hl_costs_stream_failed (costs))
        {
          ok = false; /* the stream said why ("heap profiles stopped: ...") */
          break;
        }
      unsigned long long now_taken = hl_trace_compress_stream_taken (follow);
      interval = now_taken != taken ? POLL_INTERVAL_US : MIN (interval * 2, IDLE_POLL_INTERVAL_US);
      taken = now_taken;
      gint64 now = g_get_monotonic_time ();
      if (now >= next_check)
        {
          next_check = now + CHECK_INTERVAL_US;
          if (ended_at == 0 && session_over (info->name))
            ended_at = now;
          gone = start == 0 || process_start (info->pid) != start;
        }
      if (!gone && !interrupted)
        g_usleep ((gulong) interval);
    }
  /* the packets written until now, then the last profile */
  ok = ok && drain (follow, costs, trace);
  g_autoptr (GError) error = NULL;
  g_autoptr (HlRecording) rec = hl_costs_stream_finish (costs, &error);
  if (rec == NULL && g_getenv ("HEAPLENS_RECORD_COSTS_VERBOSE") != NULL)
    fprintf (stderr, "heaplens: %s\n", error->message);
  hl_record_profiles_say_written (profiles, hl_costs_stream_n_profiles (costs), trace);
  hl_costs_stream_free (costs);
  hl_trace_compress_stream_free (follow);
  return ok ? 0 : 1;
}

int
hl_cli_profiles (int    argc,
                 char **argv)
{
  g_auto (HlRecordProfiles) profiles = { 0 };
  g_autoptr (HlLiveSessionInfo) info = NULL;
  g_autofree char *dir = NULL;
  const char *target = NULL;
  bool from_program;
  int rc;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else if (hl_record_profiles_parse_arg (&profiles, argc, argv, &i))
        ;
      else if (argv[i][0] == '-' || target != NULL)
        {
          fprintf (stderr, _("heaplens-cli profiles: unexpected argument '%s'\n"), argv[i]);
          usage (stderr);
          return 2;
        }
      else
        target = argv[i];
    }
  if (target == NULL || target[0] == '\0')
    {
      usage (stderr);
      return 2;
    }
  info = find_session (target);
  if (info == NULL)
    return 1;
  dir = choose_dir (&profiles, info->pid, &from_program);
  if (dir == NULL)
    {
      fprintf (stderr, _("heaplens-cli profiles: no folder for the profiles: give --profile-dir DIR, or set "
                         "HEAPLENS_PROFILE_DIR in the program's environment or in this one\n"));
      return 2;
    }
  if ((rc = hl_record_profiles_check_dir (&profiles, "profiles", dir)) != 0)
    return rc;

  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  if (from_program)
    fprintf (stderr, _("heaplens: following %s (pid %u): heap profiles in %s (the program's "
                       "HEAPLENS_PROFILE_DIR)\n"), info->trace_path, (unsigned) info->pid, profiles.dir);
  else
    fprintf (stderr, _("heaplens: following %s (pid %u): heap profiles in %s\n"), info->trace_path,
             (unsigned) info->pid, profiles.dir);
  return follow_trace (info, &profiles);
}
