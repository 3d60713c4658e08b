/* hl-attach.c — the injection of an attach and its async form
 * (hl-attach.h): loads the preload into a running process that was not
 * started under it (ptrace remote calls of its dlopen and of the
 * preload's heaplens__attach, hl-inject.h) and waits for its session.
 *
 * The preload's configuration goes through a file the process reads at
 * heaplens__attach: /dev/shm/heaplens-attach-<uid>-<pid>, created here
 * O_EXCL | O_NOFOLLOW with mode 0600 (the preload checks its owner and
 * mode, then unlinks it). docs/capture.md, "Attach". */
#define _GNU_SOURCE
#include "hl-config.h"

#include "hl-attach.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hl-inject.h"
#include "hl-launch-env.h"
#include "hl-launch-folder.h"
#include "hl-model-i18n.h"
#include "hl-shm-control.h"
#include "hl-shm-layout.h"

G_DEFINE_QUARK (hl-attach-error-quark, hl_attach_error)

void
hl_attach_result_free (HlAttachResult *result)
{
  if (result == NULL)
    return;
  g_free (result->session);
  g_free (result->trace_path);
  g_free (result);
}

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
      int e = errno;
      g_set_error (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_FAILED, _("cannot create %s: %s"), path, g_strerror (e));
      g_free (path);
      return NULL;
    }
  GString *text = g_string_new (NULL);
  /* the template expands %: a literal one doubled */
  GString *escaped = g_string_new (NULL);
  for (const char *c = trace; *c != '\0'; c++)
    {
      if (*c == '%')
        g_string_append_c (escaped, '%');
      g_string_append_c (escaped, *c);
    }
  g_string_append_printf (text, "HEAPLENS_OUTPUT=%s\nHEAPLENS_KEEP_SESSION=1\nHEAPLENS_LAUNCHER=%d\n", escaped->str,
                          (int) getpid ());
  g_string_free (escaped, TRUE);
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
  gboolean ok = write (fd, text->str, text->len) == (ssize_t) text->len;
  int e = errno;
  close (fd);
  g_string_free (text, TRUE);
  if (!ok)
    {
      g_set_error (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_FAILED, _("cannot write %s: %s"), path, g_strerror (e));
      (void) unlink (path);
      g_free (path);
      return NULL;
    }
  return path;
}

/* The address of the defined symbol NAME of the module of PID whose file
 * name starts with PREFIX. */
static gboolean
remote_symbol (pid_t pid, const char *prefix, const char *name, uintptr_t *addr, char *err, size_t cap)
{
  HlInjectModule m;
  uint64_t value;
  if (!hl_inject_find_module (pid, prefix, &m, err, cap))
    return FALSE;
  g_autofree char *file = g_strdup_printf ("/proc/%d/root%s", (int) pid, m.path);
  if (!hl_inject_elf_symbol (file, name, &value, err, cap))
    return FALSE;
  *addr = m.bias + (uintptr_t) value;
  return TRUE;
}

typedef struct
{
  HlAttachProgressFunc func;
  gpointer             data;
} Progress;

static void
step (const Progress *p, HlAttachStep s, const char *text)
{
  if (p->func != NULL)
    p->func (s, text, p->data);
}

/* The injection: dlopen (PRELOAD) unless it is loaded, then
 * heaplens__attach (). Returns 0, 2 (the process's dlopen or the preload
 * said no), 3 (the process exited) or 1, with a message in ERR. With a
 * progress function, the preload is asked how many slots it patched. */
static int
inject (pid_t pid, const char *preload, gboolean loaded, const Progress *progress, char *err, size_t cap,
        HlAttachResult *result)
{
  HlInject *inj;
  uintptr_t f_dlopen = 0, f_dlerror = 0, f_attach = 0, f_slots = 0;
  if (!loaded && (!remote_symbol (pid, "libc", "dlopen", &f_dlopen, err, cap)
                  || !remote_symbol (pid, "libc", "dlerror", &f_dlerror, err, cap)))
    return 1;
  step (progress, HL_ATTACH_STEP_STOPPING, _("Stopping threads…"));
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
      step (progress, HL_ATTACH_STEP_LOADING, _("Loading the preload…"));
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
          step (progress, HL_ATTACH_STEP_PATCHING, _("Patching the allocator's slots…"));
          st = hl_inject_call (inj, f_attach, NULL, 0, 0, 0, &ret, err, cap);
          if (st == HL_INJECT_OK && (int) ret != 0)
            {
              snprintf (err, cap, "%s", attach_answer (ret));
              rc = 2;
            }
          /* how many (an older preload has no heaplens__attach_slots) */
          char serr[256];
          if (st == HL_INJECT_OK && rc == 0 && progress->func != NULL
              && remote_symbol (pid, "libheaplens-preload", "heaplens__attach_slots", &f_slots, serr, sizeof serr)
              && hl_inject_call (inj, f_slots, NULL, 0, 0, 0, &ret, serr, sizeof serr) == HL_INJECT_OK)
            result->slots_patched = (guint) ret;
        }
    }
  char end_err[256];
  HlInjectStatus end = hl_inject_end (inj, &result->stopped_ns, &result->all_stopped_ns, end_err, sizeof end_err);
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

static char *
wait_session (guint32 pid, int timeout_ms)
{
  for (int waited = 0; waited <= timeout_ms; waited += 10)
    {
      char *name = hl_attach_find_session (pid, TRUE);
      if (name != NULL)
        return name;
      g_usleep (10000);
    }
  return NULL;
}

gboolean
hl_attach_run (const HlAttachTarget   *target,
               const HlAttachOptions  *options,
               HlAttachProgressFunc    progress,
               gpointer                progress_data,
               HlAttachResult         *result,
               GError                **error)
{
  g_return_val_if_fail (target != NULL && options != NULL && result != NULL, FALSE);
  g_return_val_if_fail (options->trace_path != NULL, FALSE);
  memset (result, 0, sizeof *result);
  pid_t pid = (pid_t) target->pid;
  g_autofree char *found = options->preload == NULL ? hl_launch_env_find_preload () : NULL;
  const char *preload = options->preload != NULL ? options->preload : found;
  if (preload == NULL)
    {
      g_set_error (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_FAILED,
                   _("cannot find libheaplens-preload.so (looked in %s and %s; HEAPLENS_PRELOAD overrides)"),
                   HL_BUILD_PRELOAD_DIR, HL_PKGLIBDIR);
      return FALSE;
    }
  g_autofree char *config = write_config (pid, options->trace_path, error);
  if (config == NULL)
    return FALSE;
  Progress p = { progress, progress_data };
  char err[512] = "";
  int rc = inject (pid, preload, target->preload_loaded, &p, err, sizeof err, result);
  (void) unlink (config);
  if (rc == 3)
    {
      g_set_error (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_EXITED, _("process %d (%s) exited during the attach"),
                   (int) pid, target->comm);
      return FALSE;
    }
  if (rc != 0)
    {
      g_set_error (error, HL_ATTACH_ERROR, rc == 2 ? HL_ATTACH_ERROR_DECLINED : HL_ATTACH_ERROR_FAILED,
                   _("cannot attach to process %d (%s): %s; the process was left as it was"), (int) pid,
                   target->comm, err);
      return FALSE;
    }
  result->session = wait_session (target->pid, 2000);
  if (result->session == NULL)
    {
      g_set_error (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_NO_SESSION,
                   _("the preload was loaded into process %d but no session appeared"), (int) pid);
      return FALSE;
    }
  result->trace_path = g_strdup (options->trace_path);
  if (progress != NULL)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Recording: %u allocator slot patched",
                                                            "Recording: %u allocator slots patched",
                                                            result->slots_patched),
                                               result->slots_patched);
      progress (HL_ATTACH_STEP_RECORDING, text, progress_data);
    }
  return TRUE;
}

gboolean
hl_attach_request_detach (const char *name,
                          guint32     pid,
                          GError    **error)
{
  g_return_val_if_fail (name != NULL, FALSE);
  if (hl_shm_request_control (name, pid, HL_SHM_CONTROL_DETACH) != 0)
    {
      int e = errno;
      g_set_error (error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_FAILED, _("cannot ask session %s to detach: %s"), name,
                   g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

/* ---- Async ------------------------------------------------------------------ */

typedef struct
{
  guint32         pid;
  char           *preload;
  char           *trace_path;
  GMainContext   *context;
  GTask          *task;       /* borrowed: the task holds this job */
  Progress        progress;
  GDestroyNotify  progress_notify;
} AttachJob;

static void
attach_job_free (gpointer data)
{
  AttachJob *job = data;
  g_free (job->preload);
  g_free (job->trace_path);
  if (job->progress_notify != NULL)
    job->progress_notify (job->progress.data);
  g_main_context_unref (job->context);
  g_free (job);
}

typedef struct
{
  GTask        *task;  /* a reference: its job lives until this step is shown */
  AttachJob    *job;
  HlAttachStep  step;
  char         *text;
} StepCall;

static gboolean
step_in_context (gpointer data)
{
  StepCall *c = data;
  c->job->progress.func (c->step, c->text, c->job->progress.data);
  return G_SOURCE_REMOVE;
}

static void
step_call_free (gpointer data)
{
  StepCall *c = data;
  g_free (c->text);
  g_object_unref (c->task);
  g_free (c);
}

static void
step_from_thread (HlAttachStep s, const char *text, gpointer data)
{
  AttachJob *job = data;
  StepCall *c = g_new0 (StepCall, 1);
  c->task = g_object_ref (job->task);
  c->job = job;
  c->step = s;
  c->text = g_strdup (text);
  /* always a source of the caller's context: g_main_context_invoke would
   * run it here, on the worker, whenever the caller's thread does not hold
   * that context at the moment (between two iterations of its loop) */
  GSource *source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, step_in_context, c, step_call_free);
  g_source_attach (source, job->context);
  g_source_unref (source);
}

static void
attach_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  AttachJob *job = task_data;
  job->task = task;
  HlAttachTarget target;
  GError *error = NULL;
  if (!hl_attach_check (job->pid, &target, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (job->trace_path == NULL)
    {
      g_autofree char *folder = hl_launch_folder_create (NULL, target.comm[0] != '\0' ? target.comm : "process",
                                                         &error);
      if (folder == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      g_autofree char *base = g_strdup_printf ("%s.%u.hltrace", target.comm[0] != '\0' ? target.comm : "process",
                                               (unsigned) job->pid);
      job->trace_path = g_build_filename (folder, base, NULL);
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  HlAttachOptions options = { job->preload, job->trace_path };
  g_autoptr (HlAttachResult) result = g_new0 (HlAttachResult, 1);
  if (!hl_attach_run (&target, &options, job->progress.func != NULL ? step_from_thread : NULL, job, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&result), (GDestroyNotify) hl_attach_result_free);
}

void
hl_attach_async (guint32                 pid,
                 const HlAttachOptions  *options,
                 GCancellable           *cancellable,
                 HlAttachProgressFunc    progress,
                 gpointer                progress_data,
                 GDestroyNotify          progress_notify,
                 GAsyncReadyCallback     callback,
                 gpointer                user_data)
{
  AttachJob *job = g_new0 (AttachJob, 1);
  job->pid = pid;
  job->preload = options != NULL ? g_strdup (options->preload) : NULL;
  job->trace_path = options != NULL ? g_strdup (options->trace_path) : NULL;
  job->context = g_main_context_ref_thread_default ();
  job->progress.func = progress;
  job->progress.data = progress_data;
  job->progress_notify = progress_notify;
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, hl_attach_async);
  g_task_set_task_data (task, job, attach_job_free);
  g_task_run_in_thread (task, attach_thread);
}

HlAttachResult *
hl_attach_finish (GAsyncResult *result,
                  GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
