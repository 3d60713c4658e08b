/* test-attach-model.c — the model's attach (hl-attach.h) and process list
 * (hl-process-list.h), checked against /proc and the process itself:
 *
 * /attach-model/process-list: a child `sleep 30` is listed with its name,
 *   command line, owner and /proc/PID/status's VmRSS; this process is
 *   not; another user's sleep (as uid 65534, where setpriv can) is left
 *   out and counted.
 * /attach-model/check: refusals as GErrors with the reason and remedy
 *   (itself, another user's, no such process); the sleep accepted.
 * /attach-model/async: hl_attach_async on the sleep: cancelled before it
 *   touches it; then attached, its four progress steps in order in this
 *   thread's main context, its session found and marked attached, the
 *   process running (not left in a tracing stop). */
#include "hl-config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hl-model.h"

static GPid
spawn (char **argv)
{
  GPid pid;
  g_autoptr(GError) error = NULL;
  g_assert_true (g_spawn_async (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL, &pid,
                                &error));
  g_assert_no_error (error);
  return pid;
}

static void
end (GPid pid)
{
  kill (pid, SIGKILL);
  (void) waitpid (pid, NULL, 0);
  g_spawn_close_pid (pid);
}

/* A sleep that has exec'd and whose loader has mapped the C library (just
 * after the exec its maps have none yet, and the check would call it
 * statically linked). */
static GPid
sleeper (gboolean other_user)
{
  char *plain[] = { (char *) "sleep", (char *) "30", NULL };
  char *other[] = { (char *) "setpriv", (char *) "--reuid=65534", (char *) "--regid=65534", (char *) "--clear-groups",
                    (char *) "sleep", (char *) "30", NULL };
  GPid pid = spawn (other_user ? other : plain);
  g_autofree char *comm_path = g_strdup_printf ("/proc/%d/comm", (int) pid);
  g_autofree char *maps_path = g_strdup_printf ("/proc/%d/maps", (int) pid);
  for (int i = 0; i < 500; i++)
    {
      g_autofree char *comm = NULL;
      g_autofree char *maps = NULL;
      if (g_file_get_contents (comm_path, &comm, NULL, NULL) && strcmp (g_strstrip (comm), "sleep") == 0
          && (other_user || (g_file_get_contents (maps_path, &maps, NULL, NULL) && strstr (maps, "/libc.so") != NULL)))
        return pid;
      g_usleep (10000);
    }
  g_assert_not_reached ();
}

static gboolean
can_run_as_other_user (void)
{
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  return geteuid () != 65534 && setpriv != NULL
         && system ("setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null") == 0;
}

/* VmRSS of /proc/PID/status, in bytes. */
static guint64
vm_rss (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  const char *p = strstr (text, "\nVmRSS:");
  g_assert_nonnull (p);
  return g_ascii_strtoull (p + strlen ("\nVmRSS:"), NULL, 10) * 1024;
}

static const HlProcessInfo *
find (GPtrArray *list,
      GPid       pid)
{
  for (guint i = 0; i < list->len; i++)
    {
      const HlProcessInfo *p = g_ptr_array_index (list, i);
      if (p->pid == (guint32) pid)
        return p;
    }
  return NULL;
}

static void
test_process_list (void)
{
  GPid pid = sleeper (FALSE);
  gboolean other = can_run_as_other_user ();
  GPid other_pid = other ? sleeper (TRUE) : 0;
  guint n_others = 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = hl_process_list (&n_others, &error);
  g_assert_no_error (error);
  const HlProcessInfo *p = find (list, pid);
  if (p == NULL)
    g_error ("pid %d is not in the process list", (int) pid);
  g_assert_cmpstr (p->name, ==, "sleep");
  g_assert_cmpstr (p->cmdline, ==, "sleep 30");
  g_assert_cmpuint (p->uid, ==, geteuid ());
  g_assert_cmpuint (p->rss_bytes, ==, vm_rss (pid));
  g_assert_cmpuint (p->rss_bytes, >, 0);
  g_assert_null (find (list, getpid ()));
  if (other)
    {
      g_assert_null (find (list, other_pid));
      g_assert_cmpuint (n_others, >=, 1);
      end (other_pid);
    }
  else
    g_test_message ("no process of another user: setpriv cannot run one as uid 65534 here");
  end (pid);
}

static void
test_check (void)
{
  HlAttachTarget target;
  g_autoptr(GError) self_error = NULL;
  g_assert_false (hl_attach_check ((guint32) getpid (), &target, &self_error));
  g_assert_error (self_error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_REFUSED);
  g_assert_cmpstr (self_error->message, ==, "cannot attach to itself");

  /* a pid that was ours and is gone */
  GPid gone = sleeper (FALSE);
  end (gone);
  g_autoptr(GError) gone_error = NULL;
  g_assert_false (hl_attach_check ((guint32) gone, &target, &gone_error));
  g_assert_error (gone_error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_NOT_FOUND);

  if (can_run_as_other_user ())
    {
      GPid other = sleeper (TRUE);
      g_autoptr(GError) other_error = NULL;
      g_assert_false (hl_attach_check ((guint32) other, &target, &other_error));
      g_assert_error (other_error, HL_ATTACH_ERROR, HL_ATTACH_ERROR_REFUSED);
      /* the reason and the remedy */
      g_assert_nonnull (strstr (other_error->message, "belongs to user 65534"));
      g_assert_nonnull (strstr (other_error->message, "sudo -u '#65534' heaplens-cli attach"));
      end (other);
    }

  GPid pid = sleeper (FALSE);
  g_autoptr(GError) error = NULL;
  gboolean ok = hl_attach_check ((guint32) pid, &target, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (target.pid, ==, (guint32) pid);
  g_assert_cmpstr (target.comm, ==, "sleep");
  g_assert_false (target.preload_loaded);
  g_assert_cmpstr (target.session, ==, "");
  end (pid);
}

typedef struct
{
  GPtrArray      *steps;      /* "N text" */
  HlAttachResult *result;
  GError         *error;
  gboolean        done;
  GThread        *thread;     /* where the steps must come */
  gboolean        wrong_thread;
} Run;

static void
on_step (HlAttachStep step,
         const char  *text,
         gpointer     data)
{
  Run *r = data;
  r->wrong_thread |= g_thread_self () != r->thread;
  g_ptr_array_add (r->steps, g_strdup_printf ("%d %s", (int) step, text));
}

static void
on_done (GObject      *source,
         GAsyncResult *res,
         gpointer      data)
{
  Run *r = data;
  r->result = hl_attach_finish (res, &r->error);
  r->done = TRUE;
}

static void
run_attach (Run          *r,
            GPid          pid,
            const char   *trace,
            GCancellable *cancellable)
{
  r->steps = g_ptr_array_new_with_free_func (g_free);
  r->thread = g_thread_self ();
  HlAttachOptions options = { NULL, trace };
  hl_attach_async ((guint32) pid, &options, cancellable, on_step, r, NULL, on_done, r);
  while (!r->done)
    g_main_context_iteration (NULL, TRUE);
}

/* Not stopped: the state of /proc/PID/stat is not t (tracing stop). */
static char
proc_state (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  const char *p = strrchr (text, ')');
  g_assert_nonnull (p);
  return p[2];
}

static void
test_async (void)
{
  GPid pid = sleeper (FALSE);
  g_autofree char *dir = g_dir_make_tmp ("hl-attach-model-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "sleep.hltrace", NULL);

  /* cancelled first: nothing done to the process */
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_cancellable_cancel (cancelled);
  Run c = { 0 };
  run_attach (&c, pid, trace, cancelled);
  g_assert_error (c.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (c.result);
  g_assert_cmpuint (c.steps->len, ==, 0);
  g_assert_null (hl_attach_find_session ((guint32) pid, FALSE));
  g_clear_error (&c.error);
  g_ptr_array_unref (c.steps);

  Run r = { 0 };
  run_attach (&r, pid, trace, NULL);
  g_assert_no_error (r.error);
  g_assert_nonnull (r.result);
  g_assert_false (r.wrong_thread);
  for (guint i = 0; i < r.steps->len; i++)
    g_test_message ("step %s", (const char *) g_ptr_array_index (r.steps, i));
  g_assert_cmpuint (r.steps->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (r.steps, 0), ==, "0 Stopping threads…");
  g_assert_cmpstr (g_ptr_array_index (r.steps, 1), ==, "1 Loading the preload…");
  g_assert_cmpstr (g_ptr_array_index (r.steps, 2), ==, "2 Patching the allocator's slots…");
  g_autofree char *recording = g_strdup_printf ("3 Recording: %u allocator slots patched", r.result->slots_patched);
  g_assert_cmpstr (g_ptr_array_index (r.steps, 3), ==, recording);
  g_assert_cmpuint (r.result->slots_patched, >, 0);
  g_assert_cmpstr (r.result->trace_path, ==, trace);
  g_test_message ("stopped %.1f ms (every thread %.1f ms)", r.result->stopped_ns / 1e6,
                  r.result->all_stopped_ns / 1e6);
  g_assert_cmpuint (r.result->stopped_ns, >=, r.result->all_stopped_ns);
  g_autofree char *found = hl_attach_find_session ((guint32) pid, TRUE);
  g_assert_cmpstr (found, ==, r.result->session);
  g_autoptr(HlLiveSessionInfo) info = hl_live_session_info_read (r.result->session);
  g_assert_true (info->readable);
  g_assert_true (info->attached);
  g_assert_cmpuint (info->pid, ==, (guint32) pid);
  g_assert_cmpint (proc_state (pid), !=, 't');
  g_assert_cmpint (proc_state (pid), !=, 'T');
  /* recorded already: a second attach is refused with its session named */
  HlAttachTarget target;
  g_autoptr(GError) again = NULL;
  g_assert_false (hl_attach_check ((guint32) pid, &target, &again));
  g_assert_error (again, HL_ATTACH_ERROR, HL_ATTACH_ERROR_REFUSED);
  g_assert_nonnull (strstr (again->message, r.result->session));
  /* the detach is asked for (sleep never allocates again: it stays) */
  g_autoptr(GError) detach_error = NULL;
  g_assert_true (hl_attach_request_detach (r.result->session, (guint32) pid, &detach_error));
  g_assert_no_error (detach_error);

  end (pid);
  g_autofree char *segment = g_strdup_printf ("/dev/shm/%s", r.result->session);
  g_unlink (segment);
  g_unlink (trace);
  g_rmdir (dir);
  hl_attach_result_free (r.result);
  g_ptr_array_unref (r.steps);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/attach-model/process-list", test_process_list);
  g_test_add_func ("/attach-model/check", test_check);
  g_test_add_func ("/attach-model/async", test_async);
  return g_test_run ();
}
