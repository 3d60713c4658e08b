/* hl-live-launch.c — see hl-live-launch.h. */
#include "hl-config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "hl-live-launch.h"
#include "hl-model.h"

/* Whether the program found at PATH (NULL: not in $PATH) can be started:
 * said in a few words for "Cannot record PROG: …" (the spawn's own error
 * names a child process and errno, and came only once the live window
 * was made). */
static gboolean
program_can_run (const char  *path,
                 GError     **error)
{
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("no program of that name in PATH"));
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("there is no such file"));
      return FALSE;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, _("it is a folder, not a program"));
      return FALSE;
    }
  if (access (path, X_OK) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("it is not executable (it lacks the execute permission)"));
      return FALSE;
    }
  return TRUE;
}

GSubprocess *
hl_live_launch (const HlLiveRecordOptions *options,
                gint64                    *spawned_wall_ns,
                GError                   **error)
{
  g_return_val_if_fail (options->argv != NULL && options->argv[0] != NULL, NULL);
  g_autofree char *preload = hl_launch_env_find_preload ();
  if (preload == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("libheaplens-preload.so was found neither in %s nor in %s"), HL_BUILD_PRELOAD_DIR,
                   HL_PKGLIBDIR);
      return NULL;
    }
  g_autofree char *cwd = options->cwd != NULL && options->cwd[0] ? g_strdup (options->cwd) : g_get_current_dir ();
  /* as `heaplens-cli record`: a program that cannot take the preload is
   * refused with the reason (hl-launch-sanitizer.h) */
  const char *program = options->argv[0];
  g_autofree char *program_path = g_path_is_absolute (program) ? g_strdup (program)
                                  : strchr (program, '/') != NULL ? g_build_filename (cwd, program, NULL)
                                                                  : g_find_program_in_path (program);
  if (!program_can_run (program_path, error))
    return NULL;
  HlLaunchRefusal refusal;
  if (hl_launch_refusal_of (program_path, &refusal))
    {
      /* short: a toast shows one line ("Cannot record PROG: …"); a
       * non-breaking hyphen: a wrapped line never starts with "fsanitize" */
      if (refusal.sanitizer != NULL && refusal.interpreter[0] != '\0')
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("its interpreter %s is built with %s, which replaces the allocator: rebuild it without "
                       "\u2011fsanitize"),
                     refusal.interpreter, refusal.sanitizer);
      else if (refusal.sanitizer != NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("built with %s, which replaces the allocator: rebuild it without \u2011fsanitize"),
                     refusal.sanitizer);
      else if (refusal.foreign)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("built for another machine or word size (32-bit?): the preload cannot be loaded into it"));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("statically linked: no dynamic loader runs for it, so nothing can load the preload"));
      return NULL;
    }
  /* a folder of its own, as `record` makes (hl-launch-folder.h) */
  g_autofree char *folder = hl_launch_folder_create (NULL, program, error);
  if (folder == NULL)
    return NULL;
  g_autofree char *trace = hl_launch_folder_trace_template (folder);
  HlLaunchEnvOptions env_options = {
    .trace_path = trace,
    .unwind = options->unwind,
    .follow = options->follow,
    .keep_session = TRUE,
  };
  char **envp = g_get_environ ();
  for (char **e = options->extra_env; e != NULL && *e != NULL; e++)
    {
      g_auto(GStrv) kv = g_strsplit (*e, "=", 2);
      if (kv[0] != NULL && kv[0][0] != '\0' && kv[1] != NULL)
        envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    }
  envp = hl_launch_env_apply (envp, preload, &env_options);

  g_autoptr(GSubprocessLauncher) launcher =
      g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_environ (launcher, envp);
  g_subprocess_launcher_set_cwd (launcher, cwd);
  g_strfreev (envp);
  *spawned_wall_ns = g_get_real_time () * 1000;
  GSubprocess *child = g_subprocess_launcher_spawnv (launcher, (const char * const *) options->argv, error);
  if (child == NULL)
    (void) g_rmdir (folder); /* nothing was written in it */
  return child;
}
