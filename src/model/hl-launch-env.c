/* hl-launch-env.c — see hl-launch-env.h. */
#include "hl-config.h"

#include "hl-launch-env.h"

#include <string.h>
#include <unistd.h>

static gboolean
readable (const char *path)
{
  return access (path, R_OK) == 0;
}

char *
hl_launch_env_find_preload (void)
{
  const char *env = g_getenv ("HEAPLENS_PRELOAD");
  if (env != NULL && readable (env))
    return g_strdup (env);
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *build = g_build_filename (HL_BUILD_PRELOAD_DIR, "libheaplens-preload.so", NULL);
  g_autofree char *installed = g_build_filename (HL_PKGLIBDIR, "libheaplens-preload.so", NULL);
  /* an executable in the build tree uses the build tree's preload */
  g_autofree char *build_root = g_strdup (HL_BUILD_PRELOAD_DIR);
  char *cut = strstr (build_root, "/src/capture");
  if (cut != NULL)
    *cut = '\0';
  gboolean in_build = self != NULL && g_str_has_prefix (self, build_root);
  const char *first = in_build ? build : installed;
  const char *second = in_build ? installed : build;
  if (readable (first))
    return g_strdup (first);
  if (readable (second))
    return g_strdup (second);
  return NULL;
}

char **
hl_launch_env_build (const char               *preload,
                     const char               *old_ld_preload,
                     const HlLaunchEnvOptions *options)
{
  GPtrArray *out = g_ptr_array_new ();
  if (old_ld_preload != NULL && old_ld_preload[0] != '\0')
    g_ptr_array_add (out, g_strdup_printf ("LD_PRELOAD=%s:%s", preload, old_ld_preload));
  else
    g_ptr_array_add (out, g_strdup_printf ("LD_PRELOAD=%s", preload));
  g_ptr_array_add (out, g_strdup_printf ("HEAPLENS_OUTPUT=%s",
                                         options->trace_path != NULL ? options->trace_path : "none"));
  if (options->keep_session)
    {
      g_ptr_array_add (out, g_strdup ("HEAPLENS_KEEP_SESSION=1"));
      /* a program that outlives us (a daemon) unlinks its own segment */
      g_ptr_array_add (out, g_strdup_printf ("HEAPLENS_LAUNCHER=%d", (int) getpid ()));
    }
  if (options->unwind != NULL)
    g_ptr_array_add (out, g_strdup_printf ("HEAPLENS_UNWIND=%s", options->unwind));
  if (options->depth != NULL)
    g_ptr_array_add (out, g_strdup_printf ("HEAPLENS_DEPTH=%s", options->depth));
  if (options->fine_clock_ms != NULL)
    g_ptr_array_add (out, g_strdup_printf ("HEAPLENS_FINE_CLOCK_MS=%s", options->fine_clock_ms));
  g_ptr_array_add (out, g_strdup_printf ("HEAPLENS_FOLLOW=%s", options->follow ? "all" : "none"));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

char **
hl_launch_env_apply (char                    **envp,
                     const char               *preload,
                     const HlLaunchEnvOptions *options)
{
  g_auto(GStrv) vars = hl_launch_env_build (preload, g_environ_getenv (envp, "LD_PRELOAD"), options);
  for (char **v = vars; *v != NULL; v++)
    {
      char *eq = strchr (*v, '=');
      *eq = '\0';
      envp = g_environ_setenv (envp, *v, eq + 1, TRUE);
      *eq = '=';
    }
  return envp;
}
